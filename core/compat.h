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

#endif /* RINA_CORE_COMPAT_H */
