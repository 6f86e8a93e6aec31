/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * What the shared protocol core needs from its host environment, mapped
 * once for the kernel and for userspace. Nothing else in core/ includes
 * a libc or kernel header, so the same files build in rina.ko, librina,
 * the switch model and the fuzzers.
 */
#ifndef RINA_CORE_COMPAT_H
#define RINA_CORE_COMPAT_H

#ifdef __KERNEL__
#include <linux/types.h>
#include <asm/byteorder.h>
#define rina_ntohs(x)	be16_to_cpu(x)
#define rina_ntohl(x)	be32_to_cpu(x)
#define rina_htons(x)	cpu_to_be16(x)
#define rina_htonl(x)	cpu_to_be32(x)
#else
#include <stdint.h>
#include <stddef.h>
#include <linux/types.h>
#define rina_ntohs(x)	((__u16)__builtin_bswap16((__u16)(x)))
#define rina_ntohl(x)	((__u32)__builtin_bswap32((__u32)(x)))
#define rina_htons(x)	((__be16)__builtin_bswap16((__u16)(x)))
#define rina_htonl(x)	((__be32)__builtin_bswap32((__u32)(x)))
#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "core/compat.h: only little-endian hosts are supported"
#endif
#endif

#define rina_memset(p, c, n)	__builtin_memset(p, c, n)
#define rina_memcpy(d, s, n)	__builtin_memcpy(d, s, n)

/*
 * Wipe key material: a memset the compiler cannot drop as a dead store
 * (the kernel's memzero_explicit(); elsewhere the same barrier it uses).
 */
#ifdef __KERNEL__
#include <linux/string.h>
#define rina_memzero_explicit(p, n)	memzero_explicit(p, n)
#else
#define rina_memzero_explicit(p, n)					\
	do {								\
		__builtin_memset(p, 0, n);				\
		__asm__ __volatile__("" : : "r"(p) : "memory");		\
	} while (0)
#endif

/* A big-endian 64-bit field at any alignment (packed wire structs). */
static inline __u64 rina_get_be64(const void *p)
{
	const __u8 *b = (const __u8 *)p;
	__u64 v = 0;
	int i;

	for (i = 0; i < 8; i++)
		v = v << 8 | b[i];
	return v;
}

static inline void rina_put_be64(void *p, __u64 v)
{
	__u8 *b = (__u8 *)p;
	int i;

	for (i = 7; i >= 0; i--, v >>= 8)
		b[i] = (__u8)v;
}

#endif /* RINA_CORE_COMPAT_H */
