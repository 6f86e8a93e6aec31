// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * The job secret in userspace (secret.h). The cryptography is
 * libsodium's; this file only reads keys and hands bytes over.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <sodium.h>

#include "secret.h"

_Static_assert(crypto_shorthash_siphash24_BYTES == RINA_MAC_LEN,
	       "SipHash-2-4 output");
_Static_assert(crypto_shorthash_siphash24_KEYBYTES == RINA_SECRET_LEN,
	       "SipHash-2-4 key");

static int hexval(int ch)
{
	if (ch >= '0' && ch <= '9')
		return ch - '0';
	if (ch >= 'a' && ch <= 'f')
		return ch - 'a' + 10;
	if (ch >= 'A' && ch <= 'F')
		return ch - 'A' + 10;
	return -1;
}

int rina_secret_load(const char *path, __u8 key[RINA_SECRET_LEN], char *err,
		     size_t errlen)
{
	char buf[2 * RINA_SECRET_LEN + 2];
	struct stat st;
	ssize_t n;
	int fd, i;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0) {
		snprintf(err, errlen, "secret file %s: %s", path,
			 strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		snprintf(err, errlen, "secret file %s: not a regular file",
			 path);
		goto fail;
	}
	/* as ssh does with keys: a secret others can read is none */
	if (st.st_mode & 077) {
		snprintf(err, errlen,
			 "secret file %s: readable by others (mode %04o), chmod 600 it",
			 path, (unsigned int)(st.st_mode & 07777));
		goto fail;
	}
	n = read(fd, buf, sizeof(buf));
	if (n == (ssize_t)sizeof(buf) - 1 && buf[n - 1] == '\n')
		n--;
	if (n != 2 * RINA_SECRET_LEN) {
		snprintf(err, errlen,
			 "secret file %s: expected %d hexadecimal digits",
			 path, 2 * RINA_SECRET_LEN);
		goto fail;
	}
	for (i = 0; i < RINA_SECRET_LEN; i++) {
		int hi = hexval(buf[2 * i]), lo = hexval(buf[2 * i + 1]);

		if (hi < 0 || lo < 0) {
			snprintf(err, errlen,
				 "secret file %s: expected %d hexadecimal digits",
				 path, 2 * RINA_SECRET_LEN);
			goto fail;
		}
		key[i] = (__u8)(hi << 4 | lo);
	}
	sodium_memzero(buf, sizeof(buf));
	close(fd);
	return 0;
fail:
	sodium_memzero(buf, sizeof(buf));
	close(fd);
	return -1;
}

int rina_secret_create(const char *path, __u8 key[RINA_SECRET_LEN],
		       char *err, size_t errlen)
{
	char hex[2 * RINA_SECRET_LEN + 2];
	ssize_t n;
	int fd;

	if (sodium_init() < 0) {
		snprintf(err, errlen, "secret file %s: libsodium unusable", path);
		return -1;
	}
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW,
		  0600);
	if (fd < 0) {
		snprintf(err, errlen, "secret file %s: %s", path,
			 strerror(errno));
		return -1;
	}
	randombytes_buf(key, RINA_SECRET_LEN);
	sodium_bin2hex(hex, sizeof(hex) - 1, key, RINA_SECRET_LEN);
	hex[2 * RINA_SECRET_LEN] = '\n';
	n = write(fd, hex, sizeof(hex) - 1);
	sodium_memzero(hex, sizeof(hex));
	if (n != (ssize_t)sizeof(hex) - 1 || fsync(fd)) {
		snprintf(err, errlen, "secret file %s: %s", path,
			 n < 0 ? strerror(errno) : "short write");
		close(fd);
		unlink(path);
		sodium_memzero(key, RINA_SECRET_LEN);
		return -1;
	}
	close(fd);
	return 0;
}

void rina_siphash24(const __u8 key[RINA_SECRET_LEN], const void *in,
		    __u32 len, __u8 out[RINA_MAC_LEN])
{
	crypto_shorthash_siphash24(out, in, len, key);
}

__u64 rina_random_u64(void)
{
	__u64 r;

	/*
	 * sodium_init() is idempotent and thread-safe. A session's number
	 * is sent in clear and needs only to be new: should libsodium fail
	 * to start, the wall clock's microseconds will do.
	 */
	if (sodium_init() < 0)
		return rina_wall_us();
	randombytes_buf(&r, sizeof(r));
	return r;
}

__u64 rina_wall_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (__u64)ts.tv_sec * 1000000 + (__u64)ts.tv_nsec / 1000;
}

__u64 rina_ctrl_stamp(void)
{
	static __u64 last;
	__u64 now = rina_wall_us(), prev, next;

	prev = __atomic_load_n(&last, __ATOMIC_RELAXED);
	do {
		next = now > prev ? now : prev + 1;
	} while (!__atomic_compare_exchange_n(&last, &prev, next, 0,
					      __ATOMIC_RELAXED,
					      __ATOMIC_RELAXED));
	return next;
}
