// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Reference int32 aggregation kernels (see agg.h).
 */
#include "agg.h"

/*
 * librina builds this file twice, the second time with -mavx2 and
 * RINA_AGG_NAME adding a suffix, so the vectorised kernels are these same
 * loops compiled for another target; the kernel builds it once.
 */
#ifndef RINA_AGG_NAME
#define RINA_AGG_NAME(x)	x
#endif

int RINA_AGG_NAME(rina_agg_add_be)(__s32 *acc, const __be32 *in, __u32 n)
{
	__u32 i, ovf = 0;

	for (i = 0; i < n; i++) {
		__s32 a = acc[i], b = (__s32)rina_ntohl(in[i]);
		__s32 s = (__s32)((__u32)a + (__u32)b);

		/* wrapped iff both operands share a sign the sum lacks */
		ovf |= (__u32)((a ^ s) & (b ^ s)) >> 31;
		acc[i] = s;
	}
	return (int)ovf;
}

void RINA_AGG_NAME(rina_agg_max_be)(__s32 *acc, const __be32 *in, __u32 n)
{
	__u32 i;

	for (i = 0; i < n; i++) {
		__s32 b = (__s32)rina_ntohl(in[i]);

		if (b > acc[i])
			acc[i] = b;
	}
}

void RINA_AGG_NAME(rina_agg_store_be)(__be32 *out, const __s32 *acc, __u32 n)
{
	__u32 i;

	for (i = 0; i < n; i++)
		out[i] = rina_htonl((__u32)acc[i]);
}

void RINA_AGG_NAME(rina_agg_load_be)(__s32 *acc, const __be32 *in, __u32 n)
{
	__u32 i;

	for (i = 0; i < n; i++)
		acc[i] = (__s32)rina_ntohl(in[i]);
}
