/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * The job secret in userspace: reading it from its file, and the MAC
 * that signs control messages with it (libsodium's SipHash-2-4).
 */
#ifndef RINA_SECRET_H
#define RINA_SECRET_H

#include <stddef.h>
#include "ctrl_auth.h"

/*
 * Read a secret file: 32 hexadecimal digits and an optional newline,
 * readable by its owner only. 0, or -1 with the reason in err (which
 * never shows the file's contents).
 */
int rina_secret_load(const char *path, __u8 key[RINA_SECRET_LEN], char *err,
		     size_t errlen);

/*
 * A new secret (libsodium's randombytes_buf) in a new file at path, mode
 * 0600, in the format rina_secret_load() reads; it refuses to replace a
 * file. 0, or -1 with the reason in err.
 */
int rina_secret_create(const char *path, __u8 key[RINA_SECRET_LEN],
		       char *err, size_t errlen);

/* rina_mac_fn for core/ctrl_auth.h */
void rina_siphash24(const __u8 key[RINA_SECRET_LEN], const void *in,
		    __u32 len, __u8 out[RINA_MAC_LEN]);

/*
 * The next control-message stamp of this process: the wall clock in
 * microseconds, strictly increasing over every sender in the process
 * (a rank and its agent share a src_id).
 */
__u64 rina_ctrl_stamp(void);

/* The wall clock in microseconds, for checking stamps. */
__u64 rina_wall_us(void);

/* 64 random bits (libsodium's randombytes_buf): a session's number. */
__u64 rina_random_u64(void);

#endif /* RINA_SECRET_H */
