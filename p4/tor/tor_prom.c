// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * rina-tor's counters in Prometheus's text format (--stats FILE --format
 * prometheus, a node_exporter textfile): the JSON object's numbers
 * (tor_stats.c), one metric family per counter, labelled by rack, job,
 * port. Names: Documentation/metrics.md.
 */
#include <stddef.h>
#include <stdio.h>

#include "prom.h"
#include "tor.h"

static void job_family(FILE *f, const char *key, const char *help,
		       const __u64 *ctr, int stride, int idx)
{
	char name[96], lb[64];
	int k;

	snprintf(name, sizeof(name), "rina_tor_job_%s_total", key);
	rina_prom_head(f, name, "counter", help);
	for (k = 0; k < n_jobs; k++) {
		snprintf(lb, sizeof(lb), "rack=\"%u\",job=\"%u\"", rack,
			 jobs[k].job_id);
		rina_prom_sample(f, name, lb,
				 (unsigned long long)ctr[k * stride + idx]);
	}
}

static void ports_family(FILE *f, const char *name, const char *help,
			 size_t off)
{
	char lb[96], port[2 * IF_NAMESIZE];
	int i;

	rina_prom_head(f, name, "counter", help);
	for (i = 0; i < n_ports; i++) {
		rina_prom_escape(port, sizeof(port), ports[i].name);
		snprintf(lb, sizeof(lb), "rack=\"%u\",port=\"%s\"", rack, port);
		rina_prom_sample(f, name, lb, (unsigned long long)
				 *(const __u64 *)((const char *)&ports[i] +
						  off));
	}
}

void tor_prom(FILE *f)
{
	static const char *const jn[] = RINA_TOR_JOB_CTR_NAMES;
	static const char *const on[] = RINA_TOR_OUT_CTR_NAMES;
	static const char *const pn[] = RINA_PARSE_NAMES;
	static const char *const tn[] = { "non_rina", "l2_flood", "l2_runt",
					  "giant" };
	static const char *const cn[] = { "ok", "forged", "replayed",
					  "bad_hash" };
	__u64 selected, steered, unleased;
	char lb[96];
	int i, k;

	for (i = 0; i < __RINA_TC_MAX; i++)
		job_family(f, jn[i],
			   "A job's packets or events in the switch (rina-tor -j: jobs[].counters).",
			   sw->job_ctr, __RINA_TC_MAX, i);
	for (i = 0; i < __RINA_TO_MAX; i++)
		job_family(f, on[i],
			   "A job's packets out of the switch (rina-tor -j: jobs[].counters).",
			   sw->job_out, __RINA_TO_MAX, i);
	rina_prom_head(f, "rina_tor_control_requests_total", "counter",
		       "Control requests of a job, by result.");
	for (k = 0; k < n_jobs; k++) {
		const __u64 v[] = { ctrl_ctr[k].ok, ctrl_ctr[k].forged,
				    ctrl_ctr[k].replayed,
				    ctrl_ctr[k].bad_hash };

		for (i = 0; i < 4; i++) {
			snprintf(lb, sizeof(lb),
				 "rack=\"%u\",job=\"%u\",result=\"%s\"", rack,
				 jobs[k].job_id, cn[i]);
			rina_prom_sample(f, "rina_tor_control_requests_total",
					 lb, (unsigned long long)v[i]);
		}
	}
	rina_prom_head(f, "rina_tor_control_unknown_job_total", "counter",
		       "Control requests naming no job of this switch.");
	snprintf(lb, sizeof(lb), "rack=\"%u\"", rack);
	rina_prom_sample(f, "rina_tor_control_unknown_job_total", lb,
			 (unsigned long long)ctrl_unknown);
	rina_prom_head(f, "rina_tor_switch_packets_total", "counter",
		       "Frames the switch parsed, by verdict (ok: a well-formed Rina packet).");
	for (i = 0; i < __RINA_TS_MAX; i++) {
		snprintf(lb, sizeof(lb), "rack=\"%u\",kind=\"%s\"", rack,
			 i < __RINA_PARSE_MAX ? pn[i] :
			 tn[i - __RINA_PARSE_MAX]);
		rina_prom_sample(f, "rina_tor_switch_packets_total", lb,
				 (unsigned long long)sw->tor_ctr[i]);
	}
	ports_family(f, "rina_tor_port_rx_packets_total",
		     "Frames received on a port.",
		     offsetof(struct port, rx));
	ports_family(f, "rina_tor_port_tx_packets_total",
		     "Frames sent on a port.", offsetof(struct port, tx));
	ports_family(f, "rina_tor_port_rx_dropped_packets_total",
		     "Frames a port's receive ring had no room for.",
		     offsetof(struct port, rx_drop));
	ports_family(f, "rina_tor_port_tx_dropped_packets_total",
		     "Frames a port could not send.",
		     offsetof(struct port, tx_drop));
	if (!tor_steer_counts(&selected, &steered, &unleased))
		return;
	snprintf(lb, sizeof(lb), "rack=\"%u\"", rack);
	rina_prom_head(f, "rina_tor_steer_selected_total", "counter",
		       "Frames the tc program selected for the switch.");
	rina_prom_sample(f, "rina_tor_steer_selected_total", lb,
			 (unsigned long long)selected);
	rina_prom_head(f, "rina_tor_steer_steered_total", "counter",
		       "Selected frames steered to the switch's sockets.");
	rina_prom_sample(f, "rina_tor_steer_steered_total", lb,
			 (unsigned long long)steered);
	rina_prom_head(f, "rina_tor_steer_unleased_total", "counter",
		       "Selected frames passed on while no lease was held.");
	rina_prom_sample(f, "rina_tor_steer_unleased_total", lb,
			 (unsigned long long)unleased);
	rina_prom_head(f, "rina_tor_steer_lease_lapses_total", "counter",
		       "Times the switch's lease lapsed.");
	rina_prom_sample(f, "rina_tor_steer_lease_lapses_total", lb,
			 (unsigned long long)tor_lease_lapses);
}
