/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * int32 aggregation of wire payloads (network byte order) into host-order
 * accumulators. Wrap-around is detected, never silent: every add reports
 * whether any element overflowed. These are the reference kernels; librina
 * adds vectorised versions that must give the same results.
 */
#ifndef RINA_CORE_AGG_H
#define RINA_CORE_AGG_H

#include "compat.h"

/* acc[i] += ntoh(in[i]); returns 1 if any sum wrapped around. */
int rina_agg_add_be(__s32 *acc, const __be32 *in, __u32 n);
/* acc[i] = max(acc[i], ntoh(in[i])). */
void rina_agg_max_be(__s32 *acc, const __be32 *in, __u32 n);
/* out[i] = hton(acc[i]). */
void rina_agg_store_be(__be32 *out, const __s32 *acc, __u32 n);
/* acc[i] = ntoh(in[i]). */
void rina_agg_load_be(__s32 *acc, const __be32 *in, __u32 n);

/* The four kernels as a table: a host may give vectorised ones. */
struct rina_agg_ops {
	int	(*add_be)(__s32 *acc, const __be32 *in, __u32 n);
	void	(*max_be)(__s32 *acc, const __be32 *in, __u32 n);
	void	(*store_be)(__be32 *out, const __s32 *acc, __u32 n);
	void	(*load_be)(__s32 *acc, const __be32 *in, __u32 n);
};

/* Sum of two int32 with overflow reporting, for single elements. */
static inline __s32 rina_add_s32(__s32 a, __s32 b, int *overflow)
{
	__s32 r;

	if (__builtin_add_overflow(a, b, &r))
		*overflow = 1;
	return r;
}

#endif /* RINA_CORE_AGG_H */
