// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * libFuzzer target: what rinactl job gen reads before it writes a job
 * file: Slurm host lists (nodelist.c), hostfile and rack-map lines and
 * SLURM_TASKS_PER_NODE (hostfile.c). Beyond ASan's and UBSan's checks,
 * each accepted input must give what the callers rely on: names that
 * fit and hold no list syntax, counts in range, one count per host.
 *
 * Input: a mode byte (low 2 bits: 0 host list, 1 hostfile, 2 rack map,
 * 3 tasks per node; the next 6 bits: the hosts for mode 3, 0..63), then
 * the text. A host list is one string; hostfile and rack-map text is cut
 * into lines as fgets would (each line an exact-size heap copy).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "hostfile.h"
#include "nodelist.h"

static char names[RINA_NODELIST_MAX][RINA_HOSTNAME_MAX];

static char *copy(const uint8_t *data, size_t len)
{
	char *s = malloc(len + 1);

	if (!s)
		abort();
	memcpy(s, data, len);
	s[len] = 0;
	return s;
}

static void host_list(const uint8_t *data, size_t size)
{
	char *list = copy(data, size), err[256], *joined;
	size_t k, len, at = 0;
	int n, i;

	n = rina_nodelist_expand(list, names, RINA_NODELIST_MAX, err,
				 sizeof(err));
	if (n < 0) {
		if (!memchr(err, 0, sizeof(err)) || !err[0])
			abort();
		goto out;
	}
	if (n == 0 || n > RINA_NODELIST_MAX)
		abort();
	for (i = 0; i < n; i++) {
		len = strnlen(names[i], RINA_HOSTNAME_MAX);
		if (!len || len == RINA_HOSTNAME_MAX ||
		    strpbrk(names[i], ",[] \t\n"))
			abort();
	}
	/* without brackets, the names are the list's, in its order */
	if (!strchr(list, '[') && strlen(list) == size) {
		joined = malloc(size + 1);
		if (!joined)
			abort();
		for (i = 0; i < n; i++) {
			len = strlen(names[i]);
			if (at + len + (i ? 1 : 0) > size)
				abort();
			if (i)
				joined[at++] = ',';
			memcpy(joined + at, names[i], len);
			at += len;
		}
		joined[at] = 0;
		k = strcmp(joined, list);
		free(joined);
		if (k)
			abort();
	}
out:
	free(list);
}

static void one_line(int mode, const uint8_t *data, size_t len)
{
	char *line = copy(data, len), err[256];
	const char *name;
	unsigned int slots, rack;
	struct in_addr ip;
	bool have_ip;
	int rc;

	if (mode == 1) {
		rc = rina_hostfile_line(line, &name, &slots, err, sizeof(err));
		if (rc > 0 && (!name[0] || strlen(name) >= RINA_HOSTNAME_MAX ||
			       strspn(name, "abcdefghijklmnopqrstuvwxyz"
					    "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
					    "0123456789-._") != strlen(name) ||
			       !slots || slots > RINA_HOST_PORTS))
			abort();
	} else {
		rc = rina_rackmap_line(line, &name, &rack, &ip, &have_ip, err,
				       sizeof(err));
		if (rc > 0 && (!name[0] || strpbrk(name, " \t\r\n#") ||
			       rack > 65535))
			abort();
	}
	if (rc < 0 && (!memchr(err, 0, sizeof(err)) || !err[0]))
		abort();
	free(line);
}

static void lines(int mode, const uint8_t *data, size_t size)
{
	size_t at = 0, end;

	/* fgets: up to and with each '\n', at most 1023 bytes */
	while (at < size) {
		for (end = at; end < size && end - at < 1023; end++)
			if (data[end] == '\n') {
				end++;
				break;
			}
		one_line(mode, data + at, end - at);
		at = end;
	}
}

static void tasks(int hosts, const uint8_t *data, size_t size)
{
	char *s = copy(data, size), err[256];
	unsigned int *ranks = calloc((size_t)hosts + 1, sizeof(*ranks));
	int i;

	if (!ranks)
		abort();
	if (!rina_tasks_per_node(s, ranks, hosts, err, sizeof(err))) {
		for (i = 0; i < hosts; i++)
			if (!ranks[i] || ranks[i] > RINA_HOST_PORTS)
				abort();
		if (ranks[hosts])	/* written past the hosts */
			abort();
	} else if (!memchr(err, 0, sizeof(err)) || !err[0]) {
		abort();
	}
	free(ranks);
	free(s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int mode;

	if (!size)
		return 0;
	mode = data[0] & 3;
	data++;
	size--;
	switch (mode) {
	case 0:
		host_list(data, size);
		break;
	case 1:
	case 2:
		lines(mode, data, size);
		break;
	default:
		tasks(data[-1] >> 2, data, size);
	}
	return 0;
}
