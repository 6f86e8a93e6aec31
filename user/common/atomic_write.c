// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * Replace a file atomically (atomic_write.h): what rinactl job gen and
 * the Prometheus textfiles of rinactl and rina-tor write.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "atomic_write.h"

int rina_write_atomic(const char *path, void (*fill)(FILE *f, void *arg),
		       void *arg, char *err, size_t errlen)
{
	char tmp[4096];
	FILE *f;
	int bad;

	if ((size_t)snprintf(tmp, sizeof(tmp), "%s.tmp", path) >=
	    sizeof(tmp)) {
		snprintf(err, errlen, "%s: path too long", path);
		return -1;
	}
	f = fopen(tmp, "w");
	if (!f) {
		snprintf(err, errlen, "%s: %s", tmp, strerror(errno));
		return -1;
	}
	fill(f, arg);
	/* no fsync: readers need the rename's atomicity, not durability,
	 * and rina-tor's packet loop writes its --stats every second */
	bad = fflush(f) || ferror(f);
	if (bad)
		snprintf(err, errlen, "%s: %s", tmp, strerror(errno));
	if (fclose(f) && !bad) {
		bad = 1;
		snprintf(err, errlen, "%s: %s", tmp, strerror(errno));
	}
	if (!bad && rename(tmp, path)) {
		bad = 1;
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
	}
	if (bad)
		unlink(tmp);
	return bad ? -1 : 0;
}
