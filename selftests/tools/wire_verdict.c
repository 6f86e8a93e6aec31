// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * The shared validator's verdict for UDP payloads given in hex, one per
 * line ("-" for an empty one): prints rina_hdr_check()'s reason name per
 * line, so that the dissector test compares the Lua checks with
 * core/wire.h itself on every crafted packet.
 */
#include <stdio.h>
#include <string.h>

#include "wire.h"

static const char *const names[] = RINA_PARSE_NAMES;

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

int main(void)
{
	static char line[2 * (RINA_HDR_LEN + RINA_MAX_PAYLOAD) + 64];
	static unsigned char buf[sizeof(line) / 2];
	union {
		struct rina_hdr h;
		unsigned char b[RINA_HDR_LEN];
	} hdr;

	while (fgets(line, sizeof(line), stdin)) {
		size_t n = 0, i;

		for (i = 0; line[i] && line[i + 1]; i += 2) {
			int hi = hexval(line[i]), lo = hexval(line[i + 1]);

			if (hi < 0 || lo < 0)
				break;
			buf[n++] = (unsigned char)(hi << 4 | lo);
		}
		/* the header as a parser sees it: zeros past the end */
		memset(&hdr, 0, sizeof(hdr));
		memcpy(hdr.b, buf, n < RINA_HDR_LEN ? n : RINA_HDR_LEN);
		printf("%s\n", names[rina_hdr_check(&hdr.h, (unsigned int)n)]);
	}
	return 0;
}
