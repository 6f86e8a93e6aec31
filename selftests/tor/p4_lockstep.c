// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * The P4 program and the C model must share their constants: every
 * "#define NAME VALUE" of p4/configuration.p4 is compared with the value
 * the C headers (model configuration, core/slot.h, core/wire.h, the UAPI
 * header) give to the same name; and, given the compiled program
 * (build/p4/rina_tor.json), the size of every register, counter, table
 * and header stack p4c laid out is compared with the C model's. Prints
 * KTAP; the JSON checks skip when the program was not compiled.
 *   p4_lockstep p4/configuration.p4 [build/p4/rina_tor.json]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jansson.h>
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
	C(RINA_TOR_DROP_SIZE), C(RINA_TOR_FLOOD_GRP), C(RINA_TOR_WORKER_SIZE),
	C(RINA_TOR_FRAME_MAX),
	{ "RINA_TOR_SLOTS", 2LL * RINA_TOR_POOL_SIZE },
	{ "RINA_TOR_VALUES", 2LL * RINA_TOR_POOL_SIZE * RINA_TOR_ELEMS },
	C(RINA_VERSION), C(RINA_UDP_PORT_MIN), C(RINA_UDP_PORT_MASK),
	C(RINA_HDR_LEN), C(RINA_MAX_ELEMS), C(RINA_CTRL_WORDS),
	C(RINA_X_TAG), C(RINA_X_MAC), C(RINA_TAG_LEN),
	C(RINA_CTRL_AUTH_WORDS),
	C(RINA_OP_SR_CONTRIB), C(RINA_OP_SR_PARTIAL), C(RINA_OP_AG_DATA),
	C(RINA_OP_ACK), C(RINA_OP_NACK), C(RINA_OP_CTRL),
	C(RINA_F_RETX), C(RINA_F_LAST), C(RINA_F_OWN_FINAL),
	C(RINA_F_SW_BYPASS), C(RINA_F_OVERFLOW), C(RINA_F_ECN_ECHO),
	C(RINA_F_FROM_SWITCH),
	C(RINA_F_AG_PHASE), C(RINA_WIRE_INT32), C(RINA_WIRE_MAX),
	{ "RINA_EXP_NONE", 0x80 },
	C(RINA_PARSE_OK), C(RINA_PARSE_RUNT), C(RINA_PARSE_BAD_VERSION),
	C(RINA_PARSE_BAD_OPCODE), C(RINA_PARSE_BAD_LENGTH),
	C(RINA_PARSE_OVERSIZE), C(RINA_PARSE_BAD_DTYPE),
	C(RINA_PARSE_BAD_FIELD), C(RINA_PARSE_UNKNOWN_JOB),
	C(RINA_SLOT_FRESH), C(RINA_SLOT_ADD), C(RINA_SLOT_DUP),
	C(RINA_SLOT_DUP_DONE), C(RINA_SLOT_STALE), C(RINA_SLOT_COLLISION),
	C(RINA_SLOT_ST_DONE), C(RINA_SLOT_ST_CE), C(RINA_SLOT_ST_UP_CE),
	C(RINA_ECN_NOT_ECT), C(RINA_ECN_ECT0), C(RINA_ECN_CE),
	C(RINA_EMIT_LOCAL), C(RINA_EMIT_ONE), C(RINA_EMIT_NEXT),
	C(RINA_EMIT_UP), C(RINA_EMIT_AGENT), C(RINA_RW_LOCAL), C(RINA_RW_NEXT),
	C(RINA_RW_UP), C(RINA_RW_AGENT), C(RINA_RW_HOST),
	C(RINA_TC_CONTRIB_IN), C(RINA_TC_PARTIAL_IN), C(RINA_TC_AG_IN),
	C(RINA_TC_ACK_IN), C(RINA_TC_NACK_IN), C(RINA_TC_CTRL_IN),
	C(RINA_TC_BYPASS_IN), C(RINA_TC_SLOT_DONE), C(RINA_TC_DUP),
	C(RINA_TC_REEMIT), C(RINA_TC_STALE), C(RINA_TC_COLLISION),
	C(RINA_TC_OVERFLOW), C(RINA_TC_BAD), C(RINA_TC_TOO_LONG),
	C(RINA_TC_NO_WORKER), C(RINA_TC_DROP_SIM), C(RINA_TC_BAD_TAG),
	{ "RINA_TC_MAX", __RINA_TC_MAX },
	C(RINA_TO_PARTIAL_OUT), C(RINA_TO_AG_OUT), C(RINA_TO_AG_MCAST),
	C(RINA_TO_ACK_OUT), C(RINA_TO_ACK_MCAST), C(RINA_TO_DROP_SIM),
	C(RINA_TO_AG_AGENT),
	{ "RINA_TO_MAX", __RINA_TO_MAX },
	C(RINA_TS_NON_RINA), C(RINA_TS_L2_FLOOD), C(RINA_TS_L2_RUNT),
	C(RINA_TS_GIANT), { "RINA_TS_MAX", __RINA_TS_MAX },
	{ "RINA_LCG_MUL", 1664525 }, { "RINA_LCG_INC", 1013904223 },
};

/* The three source checks: configuration.p4 against the C headers. */
static int check_sources(FILE *f)
{
	unsigned int i, n = sizeof(consts) / sizeof(consts[0]);
	int seen[sizeof(consts) / sizeof(consts[0])] = { 0 };
	int bad = 0, extra = 0;
	char line[512], name[128];
	long long v;

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
	ktap_result(!bad, "every P4 constant has the C value");
	ktap_result(!extra, "no P4 constant unknown to the model");
	for (i = 0; i < n; i++)
		if (!seen[i]) {
			printf("# %s missing from the P4 program\n",
			       consts[i].name);
			extra = 2;
		}
	ktap_result(extra != 2, "every C constant is in the P4 program");
	return bad || extra;
}

/* What p4c must have laid out: JSON array, object name, its size. */
struct json_size {
	const char *array;	/* top-level array, or "tables" */
	const char *name;
	long long size;
};

#define SLOTS		(2LL * RINA_TOR_POOL_SIZE)
#define SLOT_REG(n)	{ "register_arrays", "RinaIngress.slot_tag." n, SLOTS }

static const struct json_size sizes[] = {
	SLOT_REG("slot_epoch"), SLOT_REG("slot_round"), SLOT_REG("slot_seq"),
	SLOT_REG("slot_id"), SLOT_REG("slot_bitmap"), SLOT_REG("slot_state"),
	SLOT_REG("slot_exp"), SLOT_REG("slot_ncontrib"),
	{ "register_arrays", "RinaIngress.adders.slot_val",
	  SLOTS * RINA_TOR_ELEMS },
	{ "register_arrays", "RinaIngress.adders.slot_ovf", SLOTS },
	{ "register_arrays", "RinaIngress.drop_sim.drop_rng", 1 },
	{ "register_arrays", "RinaEgress.drop_sim.drop_rng", 1 },
	{ "counter_arrays", "RinaIngress.counters.job_ctr",
	  RINA_TOR_MAX_JOBS * __RINA_TC_MAX },
	{ "counter_arrays", "RinaIngress.counters.tor_ctr", __RINA_TS_MAX },
	{ "counter_arrays", "RinaEgress.counters.job_out",
	  RINA_TOR_MAX_JOBS * __RINA_TO_MAX },
	{ "tables", "RinaIngress.job_classify.rina_job", RINA_TOR_MAX_JOBS },
	{ "tables", "RinaIngress.job_classify.rina_worker",
	  sizeof(((struct rina_tor *)0)->rina_worker) /
	  sizeof(struct tor_worker_entry) },
	{ "tables", "RinaIngress.l2_fwd.l2_fwd", RINA_TOR_L2_SIZE },
	{ "tables", "RinaIngress.drop_sim.drop_sim", RINA_TOR_DROP_SIZE },
	{ "tables", "RinaEgress.drop_sim.drop_sim", RINA_TOR_DROP_SIZE },
	{ "tables", "RinaEgress.rewrite.replica", RINA_TOR_RID_SIZE },
	{ "header_stacks", "elems", RINA_TOR_ELEMS },
};

#define NSIZES (sizeof(sizes) / sizeof(sizes[0]))

/*
 * Look every object of one JSON array up in sizes[]: a wrong size is a
 * lock-step bug, an object the list does not know is one nobody checks
 * (tables p4c made for actions outside a table, tbl_*, are not objects
 * of the program).
 */
static void check_array(json_t *arr, const char *kind, const char *size_key,
			int *seen, int *bad, int *unknown)
{
	size_t k;
	json_t *o;

	json_array_foreach(arr, k, o) {
		const char *name = json_string_value(json_object_get(o, "name"));
		json_t *sz = json_object_get(o, size_key);
		unsigned int i;

		if (!name || !json_is_integer(sz)) {
			printf("# %s[%zu]: no name or %s\n", kind, k, size_key);
			*bad = 1;
			continue;
		}
		if (!strcmp(kind, "tables") && !strncmp(name, "tbl_", 4))
			continue;
		for (i = 0; i < NSIZES; i++)
			if (!strcmp(sizes[i].array, kind) &&
			    !strcmp(sizes[i].name, name))
				break;
		if (i == NSIZES) {
			printf("# %s %s (size %lld) is not checked against "
			       "the model\n", kind, name,
			       (long long)json_integer_value(sz));
			*unknown = 1;
			continue;
		}
		seen[i] = 1;
		if (json_integer_value(sz) != sizes[i].size) {
			printf("# %s %s: JSON %lld, C model %lld\n", kind, name,
			       (long long)json_integer_value(sz),
			       sizes[i].size);
			*bad = 1;
		}
	}
}

/* The three checks of the compiled program; skipped when it is absent. */
static int check_json(const char *path)
{
	static const char *const names[] = {
		"every register, counter, table and stack has the model's size",
		"every one of them is in the compiled program",
		"the compiled program has no object the check does not know",
	};
	int seen[NSIZES] = { 0 }, bad = 0, unknown = 0, missing = 0;
	static const char *const arrays[] = {
		"register_arrays", "counter_arrays", "header_stacks",
	};
	json_error_t jerr;
	json_t *root, *p;
	unsigned int i;
	size_t k;

	if (!path || !(root = json_load_file(path, 0, &jerr))) {
		const char *why = !path ? "no compiled program given" :
			"no P4 compiler (p4c-bm2-ss): program not compiled";
		FILE *f = path ? fopen(path, "r") : NULL;

		if (f) {	/* there, but not JSON: a failure */
			fclose(f);
			printf("# %s:%d: %s\n", path, jerr.line, jerr.text);
			for (i = 0; i < 3; i++)
				ktap_result(0, "%s", names[i]);
			return 1;
		}
		for (i = 0; i < 3; i++)
			ktap_skip_reason(names[i], "%s", why);
		return 0;
	}
	for (i = 0; i < sizeof(arrays) / sizeof(arrays[0]); i++)
		check_array(json_object_get(root, arrays[i]), arrays[i],
			    "size", seen, &bad, &unknown);
	json_array_foreach(json_object_get(root, "pipelines"), k, p)
		check_array(json_object_get(p, "tables"), "tables",
			    "max_size", seen, &bad, &unknown);
	for (i = 0; i < NSIZES; i++)
		if (!seen[i]) {
			printf("# %s %s is not in %s\n", sizes[i].array,
			       sizes[i].name, path);
			missing = 1;
		}
	json_decref(root);
	ktap_result(!bad, "%s", names[0]);
	ktap_result(!missing, "%s", names[1]);
	ktap_result(!unknown, "%s", names[2]);
	return bad || missing || unknown;
}

int main(int argc, char **argv)
{
	FILE *f;

	if (argc < 2 || argc > 3 || !(f = fopen(argv[1], "r"))) {
		fprintf(stderr, "usage: p4_lockstep p4/configuration.p4 "
			"[build/p4/rina_tor.json]\n");
		return 2;
	}
	ktap_plan(6);
	check_sources(f);
	fclose(f);
	check_json(argc == 3 ? argv[2] : NULL);
	return ktap_finish();
}
