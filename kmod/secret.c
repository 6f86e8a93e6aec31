// SPDX-License-Identifier: GPL-2.0
/*
 * The job secret in the kernel: the MAC, clocks and stamps the agent
 * core needs for signed control messages and the data tag
 * (core/ctrl_auth.h). The cryptography is the kernel's siphash(); this
 * file only turns the job's key bytes into its key and its result into
 * the reference byte order, so that the MACs equal libsodium's
 * crypto_shorthash() of librina and the ToR.
 */
#include <linux/atomic.h>
#include <linux/ktime.h>
#include <linux/siphash.h>
#include <linux/string.h>

#include "rina_kmod.h"

void rina_kmac(const __u8 key[RINA_SECRET_LEN], const void *in, __u32 len,
	       __u8 out[RINA_MAC_LEN])
{
	siphash_key_t k;
	__le64 w[2];

	/* the key: two little-endian words, as in the reference */
	memcpy(w, key, sizeof(w));
	k.key[0] = le64_to_cpu(w[0]);
	k.key[1] = le64_to_cpu(w[1]);
	w[0] = cpu_to_le64(siphash(in, len, &k));
	memcpy(out, &w[0], RINA_MAC_LEN);
	memzero_explicit(&k, sizeof(k));
	memzero_explicit(w, sizeof(w));
}

u64 rina_kwall_us(void)
{
	return div_u64(ktime_get_real_ns(), NSEC_PER_USEC);
}

/*
 * Strictly increasing over the module, so that two control messages of
 * one sender never share a stamp (the receiver's replay guard would
 * refuse the second): the wall clock, or one more than the last.
 */
static atomic64_t rina_last_stamp = ATOMIC64_INIT(0);

u64 rina_kctrl_stamp(void)
{
	s64 now = (s64)rina_kwall_us();
	s64 prev = atomic64_read(&rina_last_stamp), next;

	do {
		next = now > prev ? now : prev + 1;
	} while (!atomic64_try_cmpxchg(&rina_last_stamp, &prev, next));
	return (u64)next;
}

/*
 * SipHash-2-4's reference vector (key 00..0f, message 00..0e), as the
 * byte string libsodium writes: a kernel whose siphash() or byte order
 * disagreed would sign nothing librina accepts, so the module refuses
 * to load instead.
 */
int rina_kmac_selftest(void)
{
	static const __u8 want[RINA_MAC_LEN] = {
		0xe5, 0x45, 0xbe, 0x49, 0x61, 0xca, 0x29, 0xa1,
	};
	__u8 key[RINA_SECRET_LEN], msg[15], out[RINA_MAC_LEN];
	unsigned int i;

	for (i = 0; i < sizeof(key); i++)
		key[i] = i;
	for (i = 0; i < sizeof(msg); i++)
		msg[i] = i;
	rina_kmac(key, msg, sizeof(msg), out);
	if (memcmp(out, want, sizeof(out))) {
		pr_err("rina: siphash() self-test failed: %8phN, want %8phN\n",
		       out, want);
		return -EINVAL;
	}
	return 0;
}
