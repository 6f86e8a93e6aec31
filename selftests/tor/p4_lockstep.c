// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * The P4 program and the C model must share their constants: every
 * "#define NAME VALUE" of p4/configuration.p4 is compared with the value
 * the C headers (model configuration, core/slot.h, core/wire.h, the UAPI
 * header) give to the same name. Prints KTAP.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "rina_tor_model.h"
#include "../ktap.h"

struct c_const {
	const char *name;
	long long value;
};

#define C(x) { #x, (long long)(x) }

static const struct c_const consts[] = {
	C(RINA_TOR_ELEMS), C(RINA_TOR_POOL_SIZE), C(RINA_TOR_MAX_JOBS),
	C(RINA_TOR_MAX_WORKERS), C(RINA_TOR_L2_SIZE), C(RINA_TOR_RID_SIZE),
	C(RINA_TOR_DROP_SIZE), C(RINA_TOR_FLOOD_GRP),
	{ "RINA_TOR_SLOTS", 2LL * RINA_TOR_POOL_SIZE },
	{ "RINA_TOR_VALUES", 2LL * RINA_TOR_POOL_SIZE * RINA_TOR_ELEMS },
	C(RINA_VERSION), C(RINA_UDP_PORT_MIN), C(RINA_UDP_PORT_MASK),
	C(RINA_HDR_LEN), C(RINA_MAX_ELEMS), C(RINA_CTRL_WORDS),
	C(RINA_OP_SR_CONTRIB), C(RINA_OP_SR_PARTIAL), C(RINA_OP_AG_DATA),
	C(RINA_OP_ACK), C(RINA_OP_NACK), C(RINA_OP_CTRL),
	C(RINA_F_RETX), C(RINA_F_LAST), C(RINA_F_OWN_FINAL),
	C(RINA_F_SW_BYPASS), C(RINA_F_OVERFLOW), C(RINA_F_FROM_SWITCH),
	C(RINA_F_AG_PHASE), C(RINA_WIRE_INT32), C(RINA_WIRE_MAX),
	{ "RINA_EXP_NONE", 0x80 },
	C(RINA_PARSE_OK), C(RINA_PARSE_RUNT), C(RINA_PARSE_BAD_VERSION),
	C(RINA_PARSE_BAD_OPCODE), C(RINA_PARSE_BAD_LENGTH),
	C(RINA_PARSE_OVERSIZE), C(RINA_PARSE_BAD_DTYPE),
	C(RINA_PARSE_BAD_FIELD), C(RINA_PARSE_UNKNOWN_JOB),
	C(RINA_SLOT_FRESH), C(RINA_SLOT_ADD), C(RINA_SLOT_DUP),
	C(RINA_SLOT_DUP_DONE), C(RINA_SLOT_STALE), C(RINA_SLOT_COLLISION),
	C(RINA_SLOT_ST_DONE),
	C(RINA_EMIT_LOCAL), C(RINA_EMIT_ONE), C(RINA_EMIT_NEXT),
	C(RINA_EMIT_UP), C(RINA_EMIT_AGENT), C(RINA_RW_LOCAL), C(RINA_RW_NEXT),
	C(RINA_RW_UP), C(RINA_RW_AGENT),
	C(RINA_TC_CONTRIB_IN), C(RINA_TC_PARTIAL_IN), C(RINA_TC_AG_IN),
	C(RINA_TC_ACK_IN), C(RINA_TC_NACK_IN), C(RINA_TC_CTRL_IN),
	C(RINA_TC_BYPASS_IN), C(RINA_TC_SLOT_DONE), C(RINA_TC_DUP),
	C(RINA_TC_REEMIT), C(RINA_TC_STALE), C(RINA_TC_COLLISION),
	C(RINA_TC_OVERFLOW), C(RINA_TC_BAD), C(RINA_TC_TOO_LONG),
	C(RINA_TC_NO_WORKER), C(RINA_TC_DROP_SIM),
	{ "RINA_TC_MAX", __RINA_TC_MAX },
	C(RINA_TO_PARTIAL_OUT), C(RINA_TO_AG_OUT), C(RINA_TO_AG_MCAST),
	C(RINA_TO_ACK_OUT), C(RINA_TO_ACK_MCAST), C(RINA_TO_DROP_SIM),
	C(RINA_TO_AG_AGENT),
	{ "RINA_TO_MAX", __RINA_TO_MAX },
	C(RINA_TS_NON_RINA), C(RINA_TS_L2_FLOOD), C(RINA_TS_L2_RUNT),
	C(RINA_TS_GIANT), { "RINA_TS_MAX", __RINA_TS_MAX },
	{ "RINA_LCG_MUL", 1664525 }, { "RINA_LCG_INC", 1013904223 },
};

int main(int argc, char **argv)
{
	unsigned int i, n = sizeof(consts) / sizeof(consts[0]);
	int seen[sizeof(consts) / sizeof(consts[0])] = { 0 };
	int bad = 0, extra = 0;
	char line[512], name[128];
	long long v;
	FILE *f;

	if (argc != 2 || !(f = fopen(argv[1], "r"))) {
		fprintf(stderr, "usage: p4_lockstep p4/configuration.p4\n");
		return 2;
	}
	ktap_plan(3);
	while (fgets(line, sizeof(line), f)) {
		char val[64];

		if (sscanf(line, "#define %127s %63s", name, val) != 2 ||
		    !strncmp(name, "_RINA", 5))
			continue;
		v = strtoll(val, NULL, 0);
		for (i = 0; i < n; i++)
			if (!strcmp(consts[i].name, name))
				break;
		if (i == n) {
			printf("# %s is in the P4 program only\n", name);
			extra = 1;
			continue;
		}
		seen[i] = 1;
		if (consts[i].value != v) {
			printf("# %s: P4 %lld, C %lld\n", name, v,
			       consts[i].value);
			bad = 1;
		}
	}
	fclose(f);
	ktap_result(!bad, "every P4 constant has the C value");
	ktap_result(!extra, "no P4 constant unknown to the model");
	for (i = 0; i < n; i++)
		if (!seen[i]) {
			printf("# %s missing from the P4 program\n",
			       consts[i].name);
			extra = 2;
		}
	ktap_result(extra != 2, "every C constant is in the P4 program");
	return ktap_finish();
}
