// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * libFuzzer target for the INA ToR model's packet entry point. An input
 * is a sequence of records [port u8][length be16][frame bytes]; the
 * switch carries a job install (the packet-vectors' rack, tagged with
 * their tag, so that the tag paths are fuzzed too) and keeps its state
 * across inputs. An input starting with 0xff is instead a text of
 * runtime CLI lines for rina_tor_cli() (the control-plane parser). Checks: no memory error (ASan/UBSan), every
 * output within bounds, every emitted Rina packet valid by rina_hdr_check,
 * and a second switch in the TNA program's two passes (rina_tor_pass1(),
 * rina_tor_pass2(), back to back) sends the same packets and counts the
 * same counters.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "rina_tor_model.h"

static struct rina_tor *sw, *sw2;
static struct rina_tor_out *out, *out2;
static struct rina_tor_recirc *rc;

static const char *const config[] = {
	"table_add RinaIngress.l2_fwd.l2_fwd RinaIngress.l2_fwd.set_port 02:00:00:00:01:0b => 1",
	"table_add RinaIngress.l2_fwd.l2_fwd RinaIngress.l2_fwd.set_port 02:00:00:00:01:0c => 2",
	"table_add RinaIngress.l2_fwd.l2_fwd RinaIngress.l2_fwd.set_port 02:00:00:00:01:0d => 3",
	"table_add RinaIngress.l2_fwd.l2_fwd RinaIngress.l2_fwd.set_port 02:00:00:00:00:0a => 0",
	"table_add RinaIngress.l2_fwd.l2_fwd RinaIngress.l2_fwd.set_port 02:00:00:00:02:0a => 0",
	"table_add RinaIngress.job_classify.rina_job RinaIngress.job_classify.set_job 198.18.1.11 21071 7 => 0 1 0 4 1 3 2 3 7 2 61441 02:00:00:00:01:0b 198.18.1.11 21071 1 0xa1b2c3d4e5f60718",
	"table_add RinaIngress.job_classify.rina_worker RinaIngress.job_classify.set_worker 0 1 198.18.1.11 21056 => 0",
	"table_add RinaIngress.job_classify.rina_worker RinaIngress.job_classify.set_worker 0 2 198.18.1.12 21056 => 1",
	"table_add RinaIngress.job_classify.rina_worker RinaIngress.job_classify.set_worker 0 3 198.18.1.13 21056 => 2",
	"mc_mgrp_create 2",
	"mc_mgrp_create 1",
	"table_add RinaEgress.rewrite.replica RinaEgress.rewrite.rw_host 1 => 0 02:00:00:00:01:0b 198.18.1.11 21056",
	"table_add RinaEgress.rewrite.replica RinaEgress.rewrite.rw_local 2 => 1 02:00:00:00:01:0c 198.18.1.12 21056",
	"table_add RinaEgress.rewrite.replica RinaEgress.rewrite.rw_local 3 => 2 02:00:00:00:01:0d 198.18.1.13 21056",
	"table_add RinaEgress.rewrite.replica RinaEgress.rewrite.rw_next 4 => 02:00:00:00:02:0a 198.18.2.10 21056",
	"table_add RinaEgress.rewrite.replica RinaEgress.rewrite.rw_up 5 => 02:00:00:00:00:0a 198.18.0.10 21056",
	"table_add RinaEgress.rewrite.replica RinaEgress.rewrite.rw_agent 6 => 02:00:00:00:01:0b 198.18.1.11 21071",
	"mc_node_create 1 1", "mc_node_associate 2 0",
	"mc_node_create 2 2", "mc_node_associate 2 1",
	"mc_node_create 3 3", "mc_node_associate 2 2",
	"mc_node_create 4 0", "mc_node_associate 2 3",
	"mc_node_create 5 0", "mc_node_associate 2 4",
	"mc_node_create 6 1", "mc_node_associate 2 5",
	"mc_node_create 0 0 1 2 3", "mc_node_associate 1 6",
	"table_add RinaIngress.drop_sim.drop_sim RinaIngress.drop_sim.drop_rate 0x13 => 3000",
	"table_add RinaEgress.drop_sim.drop_sim RinaEgress.drop_sim.drop_rate 0x14 => 3000",
};

static void setup(void)
{
	char err[256];
	unsigned int i;

	sw = calloc(1, sizeof(*sw));
	sw2 = calloc(1, sizeof(*sw2));
	out = calloc(1, sizeof(*out));
	out2 = calloc(1, sizeof(*out2));
	rc = calloc(1, sizeof(*rc));
	if (!sw || !sw2 || !out || !out2 || !rc)
		abort();
	rina_tor_init(sw);
	rina_tor_init(sw2);
	for (i = 0; i < sizeof(config) / sizeof(config[0]); i++) {
		if (rina_tor_cli(sw, config[i], err, sizeof(err)) ||
		    rina_tor_cli(sw2, config[i], err, sizeof(err))) {
			fprintf(stderr, "config: %s: %s\n", config[i], err);
			abort();
		}
	}
}

static void check_out(void)
{
	unsigned int i;

	if (out->n > RINA_TOR_MAX_OUT)
		abort();
	for (i = 0; i < out->n; i++) {
		const struct rina_tor_pkt *p = &out->pkt[i];
		unsigned int ulen;

		if (p->len > RINA_TOR_FRAME_MAX || p->port >= RINA_TOR_MAX_PORTS)
			abort();
		/* an emitted (UDP checksum 0, TTL 64, id 0) Rina packet */
		if (p->len < RINA_TOR_RINA_OFF + RINA_HDR_LEN ||
		    p->data[12] != 8 || p->data[13] != 0 ||
		    p->data[14] != 0x45 || p->data[18] || p->data[19] ||
		    p->data[20] != 0x40 || p->data[21] || p->data[22] != 64 ||
		    p->data[23] != 17)
			continue;
		ulen = (unsigned int)(p->data[38] << 8 | p->data[39]);
		if (!rina_port_match((unsigned int)(p->data[36] << 8 |
						     p->data[37])) ||
		    p->data[40] || p->data[41] || ulen < 8 ||
		    ulen != p->len - RINA_TOR_L4_OFF)
			continue;
		if (rina_hdr_check((const struct rina_hdr *)
				   (p->data + RINA_TOR_RINA_OFF), ulen - 8))
			abort();
	}
}

/* The two passes: what one pass sent and counted. */
static void check_two_pass(void)
{
	unsigned int i;

	if (out2->n != out->n)
		abort();
	for (i = 0; i < out->n; i++)
		if (out2->pkt[i].port != out->pkt[i].port ||
		    out2->pkt[i].len != out->pkt[i].len ||
		    memcmp(out2->pkt[i].data, out->pkt[i].data,
			   out->pkt[i].len))
			abort();
	if (memcmp(sw2->job_ctr, sw->job_ctr, sizeof(sw->job_ctr)) ||
	    memcmp(sw2->job_out, sw->job_out, sizeof(sw->job_out)) ||
	    memcmp(sw2->tor_ctr, sw->tor_ctr, sizeof(sw->tor_ctr)))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!sw)
		setup();
	if (size && data[0] == 0xff) {
		char line[1024], err[128];
		size_t i = 1, n = 0;

		for (; i <= size; i++) {
			if (i == size || data[i] == '\n' || n == sizeof(line) - 1) {
				line[n] = 0;
				rina_tor_cli(sw, line, err, sizeof(err));
				rina_tor_cli(sw2, line, err, sizeof(err));
				n = 0;
				continue;
			}
			line[n++] = data[i] ? (char)data[i] : ' ';
		}
		return 0;
	}
	while (size >= 3) {
		unsigned int port = data[0] % 8;
		size_t len = (size_t)data[1] << 8 | data[2];

		data += 3;
		size -= 3;
		if (len > size)
			len = size;
		rina_tor_process(sw, port, data, (unsigned int)len, out);
		check_out();
		if (rina_tor_pass1(sw2, port, data, (unsigned int)len, out2,
				   rc))
			rina_tor_pass2(sw2, rc, out2);
		check_two_pass();
		data += len;
		size -= len;
	}
	return 0;
}
