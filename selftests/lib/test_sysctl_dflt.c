// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * librina and rinactl fill in what a job file leaves out from rina.ko's
 * net.rina.* when the module is loaded: here with a fake sysctl
 * directory (RINA_SYSCTL_DIR, test-only), through the parser and through
 * a communicator (rina_comm_elems). The guest repeats it for real
 * (selftests/vm/sysctl_e2e.sh).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rina.h"
#include "sysctl_dflt.h"
#include "../ktap.h"

static char dir[64];

static void put(const char *name, const char *val)
{
	char path[128];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	if (!f || fputs(val, f) < 0 || fclose(f)) {
		printf("# cannot write %s: %s\n", path, strerror(errno));
		exit(1);
	}
}

static void module_values(void)
{
	put("default_elems", "100\n");
	put("default_window", "8\n");
	put("timeout_ms", "700\n");
	put("rto_us", "300\n");
	put("fallback", "0\n");
	put("debug", "0\n");
}

static const char bare[] =
	"job 5\n"
	"rack 0 ina tor 198.18.0.254\n"
	"rank 0 198.18.0.1 rack 0\n"
	"rank 1 198.18.0.2 rack 0\n";

/* for a communicator: one rank (no neighbour to wait for), no ToR to
 * ask (fallback abort would fail init) */
static const char plain[] =
	"job 5\n"
	"rack 0 plain\n"
	"rank 0 198.18.0.1 rack 0\n";

/* timeout_ms 500 is below the built-in rto_us (20000): valid only with
 * the module's rto_us 300 */
static const char some[] =
	"job 5\nelements 50\ntimeout_ms 500\nfallback software\n"
	"rack 0 plain\nrank 0 198.18.0.1 rack 0\n";

static int comm_elems(const char *text, char *why, size_t len)
{
	struct rina_config cfg = RINA_CONFIG_INIT;
	rina_comm_t *comm;
	int e;

	*why = 0;
	cfg.job_text = text;
	cfg.rank = 0;
	cfg.transport = "inproc";
	if (rina_comm_init(&comm, &cfg)) {
		snprintf(why, len, "%s", rina_last_error());
		return -1;
	}
	e = rina_comm_elems(comm);
	rina_comm_destroy(comm);
	return e;
}

int main(void)
{
	struct rina_job_desc job;
	unsigned int given;
	char err[512] = "", why[512] = "";
	int ret, e;

	ktap_plan(8);
	snprintf(dir, sizeof(dir), "/tmp/rina-sysctl.XXXXXX");
	if (!mkdtemp(dir))
		return 1;
	module_values();
	setenv("RINA_SYSCTL_DIR", dir, 1);

	ret = rina_jobfile_parse_host("bare", bare, &given, &job, err,
				      sizeof(err));
	ktap_result(!ret && !given && job.elems == 100 && job.window == 8 &&
		    job.timeout_ms == 700 && job.rto_us == 300 &&
		    job.fallback == RINA_FALLBACK_ABORT,
		    "sysctl_dflt_fill_what_the_file_leaves_out # E %u W %u T %u RTO %u F %u given %#x %s",
		    job.elems, job.window, job.timeout_ms, job.rto_us,
		    job.fallback, given, err);

	ret = rina_jobfile_parse_host("some", some, &given, &job, err,
				      sizeof(err));
	ktap_result(!ret && given == (RINA_JF_ELEMS | RINA_JF_TIMEOUT |
				      RINA_JF_FALLBACK) &&
		    job.elems == 50 && job.window == 8 &&
		    job.timeout_ms == 500 && job.rto_us == 300 &&
		    job.fallback == RINA_FALLBACK_SOFTWARE,
		    "sysctl_dflt_file_wins # E %u W %u T %u RTO %u given %#x %s",
		    job.elems, job.window, job.timeout_ms, job.rto_us, given,
		    err);

	e = comm_elems(plain, why, sizeof(why));
	ktap_result(e == 100, "sysctl_dflt_librina_comm_elems # %d %s", e,
		    why);

	put("fallback", "2\n");
	ret = rina_jobfile_parse_host("bare", bare, NULL, &job, err,
				      sizeof(err));
	ktap_result(ret && strstr(err, "net.rina.fallback"),
		    "sysctl_dflt_ring_fallback_refused_for_a_tor # %s", err);
	put("fallback", "0\n");

	put("default_window", "48\n");
	e = comm_elems(plain, why, sizeof(why));
	ktap_result(e < 0 && strstr(why, "/default_window: 48 is not a power of two"),
		    "sysctl_dflt_bad_value_named # %s", why);
	put("default_window", "junk\n");
	ret = rina_jobfile_parse_host("bare", bare, NULL, &job, err,
				      sizeof(err));
	ktap_result(ret && strstr(err, "/default_window: \"junk\" is not a number"),
		    "sysctl_dflt_junk_named # %s", err);
	module_values();

	/* no module: the parser's built-in defaults */
	setenv("RINA_SYSCTL_DIR", "/nonexistent/rina", 1);
	ret = rina_jobfile_parse_host("bare", bare, NULL, &job, err,
				      sizeof(err));
	ktap_result(!ret && job.elems == 256 && job.window == 256 &&
		    job.rto_us == 20000 &&
		    job.fallback == RINA_FALLBACK_SOFTWARE,
		    "sysctl_dflt_builtin_without_module # E %u W %u RTO %u",
		    job.elems, job.window, job.rto_us);
	e = comm_elems(plain, why, sizeof(why));
	ktap_result(e == 256, "sysctl_dflt_librina_builtin_without_module # %d %s",
		    e, why);

	for (const char *n = "default_elems\0default_window\0timeout_ms\0"
			     "rto_us\0fallback\0debug\0"; *n; n += strlen(n) + 1) {
		char path[128];

		snprintf(path, sizeof(path), "%s/%s", dir, n);
		unlink(path);
	}
	rmdir(dir);
	return ktap_finish();
}
