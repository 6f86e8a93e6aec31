// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * rina-tor's counters: the model's per job and switch-wide, the control
 * protocol's and the ports', as one JSON object (-j at exit, --stats
 * FILE every second; its field names are an interface: rina-run and the
 * tests read them), and the one line rina-tor prints at exit. --stats
 * FILE is replaced atomically (FILE.tmp, renamed), in either format.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "atomic_write.h"
#include "tor.h"

void tor_json(FILE *f)
{
	static const char *const jn[] = RINA_TOR_JOB_CTR_NAMES;
	static const char *const on[] = RINA_TOR_OUT_CTR_NAMES;
	static const char *const pn[] = RINA_PARSE_NAMES;
	static const char *const tn[] = { "non_rina", "l2_flood", "l2_runt",
					  "giant" };
	__u64 selected, steered, unleased;
	int i, k;

	fprintf(f, "{\"rack\":%u,\"jobs\":[", rack);
	for (k = 0; k < n_jobs; k++) {
		const __u64 *jc = &sw->job_ctr[k * __RINA_TC_MAX];
		const __u64 *jo = &sw->job_out[k * __RINA_TO_MAX];

		fprintf(f, "%s{\"job\":%u,\"job_idx\":%d,\"counters\":{",
			k ? "," : "", jobs[k].job_id, k);
		for (i = 0; i < __RINA_TC_MAX; i++)
			fprintf(f, "%s\"%s\":%llu", i ? "," : "", jn[i],
				(unsigned long long)jc[i]);
		for (i = 0; i < __RINA_TO_MAX; i++)
			fprintf(f, ",\"%s\":%llu", on[i],
				(unsigned long long)jo[i]);
		fprintf(f, "},\"control\":{\"ok\":%llu,\"forged\":%llu,"
			"\"replayed\":%llu,\"bad_hash\":%llu}}",
			(unsigned long long)ctrl_ctr[k].ok,
			(unsigned long long)ctrl_ctr[k].forged,
			(unsigned long long)ctrl_ctr[k].replayed,
			(unsigned long long)ctrl_ctr[k].bad_hash);
	}
	fprintf(f, "],\"control\":{\"unknown_job\":%llu}",
		(unsigned long long)ctrl_unknown);
	fprintf(f, ",\"switch\":{");
	for (i = 0; i < __RINA_PARSE_MAX; i++)
		fprintf(f, "%s\"%s\":%llu", i ? "," : "", pn[i],
			(unsigned long long)sw->tor_ctr[i]);
	for (i = __RINA_PARSE_MAX; i < __RINA_TS_MAX; i++)
		fprintf(f, ",\"%s\":%llu", tn[i - __RINA_PARSE_MAX],
			(unsigned long long)sw->tor_ctr[i]);
	fprintf(f, "},\"ports\":[");
	for (i = 0; i < n_ports; i++)
		fprintf(f, "%s{\"name\":\"%s\",\"rx\":%llu,\"tx\":%llu,"
			"\"rx_drop\":%llu,\"tx_drop\":%llu}", i ? "," : "",
			ports[i].name, (unsigned long long)ports[i].rx,
			(unsigned long long)ports[i].tx,
			(unsigned long long)ports[i].rx_drop,
			(unsigned long long)ports[i].tx_drop);
	fprintf(f, "]");
	/* every frame the sockets were given was kept from the bridge */
	if (tor_steer_counts(&selected, &steered, &unleased))
		fprintf(f, ",\"steer\":{\"selected\":%llu,\"steered\":%llu,"
			"\"unleased\":%llu,\"lease_lapses\":%llu}",
			(unsigned long long)selected,
			(unsigned long long)steered,
			(unsigned long long)unleased,
			(unsigned long long)tor_lease_lapses);
	fprintf(f, "}\n");
}

static void fill_json(FILE *f, void *arg)
{
	(void)arg;
	tor_json(f);
}

static void fill_prom(FILE *f, void *arg)
{
	(void)arg;
	tor_prom(f);
}

int tor_stats_probe(const char *path)
{
	char tmp[4096];
	FILE *f;

	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	f = fopen(tmp, "w");
	if (!f) {
		fprintf(stderr, "rina-tor: --stats: %s: %s\n", tmp,
			strerror(errno));
		return -1;
	}
	fclose(f);
	unlink(tmp);
	return 0;
}

int tor_stats_write(const char *path, int prom)
{
	char err[600];

	if (!rina_write_atomic(path, prom ? fill_prom : fill_json, NULL,
				err, sizeof(err)))
		return 0;
	fprintf(stderr, "rina-tor: --stats: %s\n", err);
	return -1;
}

/*
 * What the first job did, and the control requests refused (of every
 * job), in one line: written at once, so that it stays one line in a log
 * other processes write too.
 */
void tor_exit_line(void)
{
	const __u64 *jc = sw->job_ctr, *jo = sw->job_out;
	struct ctrl_ctr refused = { 0 };
	const struct {
		const char	*name;
		__u64		v;
	} c[] = {
		{ "contrib_in", jc[RINA_TC_CONTRIB_IN] },
		{ "partial_in", jc[RINA_TC_PARTIAL_IN] },
		{ "slots", jc[RINA_TC_SLOT_DONE] },
		{ "partial_out", jo[RINA_TO_PARTIAL_OUT] },
		{ "ag_mcast", jo[RINA_TO_AG_MCAST] },
		{ "ag_agent", jo[RINA_TO_AG_AGENT] },
		{ "dup", jc[RINA_TC_DUP] },
		{ "stale", jc[RINA_TC_STALE] },
		{ "collision", jc[RINA_TC_COLLISION] },
		{ "bypass_in", jc[RINA_TC_BYPASS_IN] },
		{ "too_long", jc[RINA_TC_TOO_LONG] },
		{ "bad_tag", jc[RINA_TC_BAD_TAG] },
	};
	char line[512];
	size_t n = 0;
	unsigned int i;

	for (i = 0; i < (unsigned int)n_jobs; i++) {
		refused.forged += ctrl_ctr[i].forged;
		refused.replayed += ctrl_ctr[i].replayed;
		refused.bad_hash += ctrl_ctr[i].bad_hash;
	}
	for (i = 0; i < sizeof(c) / sizeof(c[0]) && n < sizeof(line); i++)
		n += (size_t)snprintf(line + n, sizeof(line) - n, "%s%s %llu",
				      i ? " " : "", c[i].name,
				      (unsigned long long)c[i].v);
	fprintf(stderr, "rina-tor: exit: %s; control requests refused: "
		"unknown job %llu forged %llu replayed %llu bad hash %llu\n",
		line, (unsigned long long)ctrl_unknown,
		(unsigned long long)refused.forged,
		(unsigned long long)refused.replayed,
		(unsigned long long)refused.bad_hash);
}
