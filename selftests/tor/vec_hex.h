/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * The packet-vector files' frame bytes (selftests/tor/README.md):
 * hex digits, blanks anywhere. Shared by tor_vectors and tor_replay.
 */
#ifndef RINA_VEC_HEX_H
#define RINA_VEC_HEX_H

#include <ctype.h>

/* Bytes written to buf (at most cap), or -1 on a bad digit or odd count. */
static inline int vec_hex(const char *s, unsigned char *buf, unsigned int cap)
{
	unsigned int n = 0;
	int hi = -1;

	for (; *s; s++) {
		int v;

		if (isspace((unsigned char)*s))
			continue;
		if (!isxdigit((unsigned char)*s))
			return -1;
		v = isdigit((unsigned char)*s) ? *s - '0' :
			tolower((unsigned char)*s) - 'a' + 10;
		if (hi < 0) {
			hi = v;
			continue;
		}
		if (n >= cap)
			return -1;
		buf[n++] = (unsigned char)(hi << 4 | v);
		hi = -1;
	}
	return hi >= 0 ? -1 : (int)n;
}

#endif /* RINA_VEC_HEX_H */
