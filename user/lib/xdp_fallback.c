// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * Weak default for builds without the AF_XDP transport: "xdp" reports
 * that it is unavailable and "auto" falls back to UDP.
 */
#include <errno.h>
#include <stdio.h>

#include "rina_int.h"

__attribute__((weak))
int rina_xdp_transport_create(const struct rina_transport_cfg *cfg,
			      struct rina_transport **out,
			      char *err, size_t errlen)
{
	(void)cfg;
	(void)out;
	snprintf(err, errlen, "AF_XDP transport not built into this librina");
	return -EOPNOTSUPP;
}
