// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* Opening a transport by name (auto, udp, xdp, inproc). */
#include <string.h>

#include "rina_int.h"

int rina_transport_open(const char *want, const struct rina_transport_cfg *tc,
			struct rina_transport **out)
{
	char err[256] = "";
	int ret;

	if (!want || !*want)
		want = "auto";
	if (!strcmp(want, "inproc"))
		ret = rina_inproc_transport_create(tc, out, err, sizeof(err));
	else if (!strcmp(want, "xdp"))
		ret = rina_xdp_transport_create(tc, out, err, sizeof(err));
	else if (!strcmp(want, "udp"))
		ret = rina_udp_transport_create(tc, out, err, sizeof(err));
	else if (!strcmp(want, "auto")) {
		/* AF_XDP when the Rina XDP program is attached, else UDP */
		ret = rina_xdp_transport_create(tc, out, err, sizeof(err));
		if (ret)
			ret = rina_udp_transport_create(tc, out, err,
							sizeof(err));
	} else {
		return rina_fail(RINA_ERR_INVALID,
				 "unknown transport \"%s\" (auto, udp, xdp, inproc)",
				 want);
	}
	if (ret)
		return rina_fail(RINA_ERR_TRANSPORT, "%s transport: %s", want,
				 err);
	return RINA_OK;
}
