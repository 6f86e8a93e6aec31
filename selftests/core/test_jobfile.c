// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * The job description parser: a good file round-trips into the job
 * struct; every kind of bad line is refused with its line number, the
 * directive and a reason.
 */
#include <arpa/inet.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "jobfile.h"
#include "cc.h"
#include "../ktap.h"

static const char good[] =
	"# two racks\n"
	"job 7\n"
	"elements 128\n"
	"window 32   # in flight\n"
	"timeout_ms 5000\n"
	"rack 1 plain\n"
	"rack 0 ina tor 198.18.0.254\n"
	"rank 0 198.18.0.1:21056 rack 0\n"
	"rank 1 198.18.0.2 rack 0 mac 02:00:00:00:00:02\n"
	"rank 2 198.18.1.1:21057 rack 1\n";

static const struct {
	const char *text;
	const char *want;	/* substring of the message */
} bad[] = {
	{ "job 7\nelements 0\n", ":2: elements: value \"0\" is not a number in 1..1024" },
	{ "job 7\nwindow 48\n", ":2: window: 48 is not a power of two" },
	{ "job 7\nwindow\n", ":2: window: expected one value" },
	{ "job 7\nbogus 1\n", ":2: bogus: unknown directive" },
	{ "job 7\nrack 0 fancy\n", ":2: rack: \"fancy\" is neither" },
	{ "job 7\nrack 0 plain\nrack 0 ina\n", ":3: rack: rack 0 declared twice" },
	{ "job 7\nrack 0 plain\nrank 0 300.1.1.1 rack 0\n", ":3: rank: \"300.1.1.1\" is not an IPv4 address" },
	{ "job 7\nrack 0 plain\nrank 0 198.18.0.1:80 rack 0\n", ":3: rank: port 80 is outside the Rina range" },
	{ "job 7\nrack 0 plain\nrank 0 198.18.0.1 rack 0\nrank 0 198.18.0.2 rack 0\n", ":4: rank: rank 0 declared twice" },
	{ "job 7\nrack 0 plain\nrank 0 198.18.0.1 rack 0 mac zz\n", ":3: rank: \"zz\" is not a MAC address" },
	{ "job 7\nrack 0 plain\nrank 0 198.18.0.1\n", ":3: rank: expected" },
	{ "job 7\nrack 0 plain\nrank 1 198.18.0.1 rack 0\n", ":3: rank: rank 0 is missing" },
	{ "job 7\nrack 0 plain\nrank 0 198.18.0.1 rack 3\n", ":3: rank: rank 0: rank names a rack that is not declared" },
	{ "job 7\nrack 0 plain\nrank 0 198.18.0.1 rack 0\nrank 1 198.18.0.1 rack 0\n", ":4: rank: rank 1: two ranks share one address" },
	{ "rack 0 plain\nrank 0 198.18.0.1 rack 0\n", "job.txt:2: job: no \"job ID\" line" },
	{ "job 7\nrack 0 plain\n", ":2: job: the job has no ranks" },
	{ "job 7\ntimeout_ms 10\nrto_us 20000\nrack 0 plain\nrank 0 198.18.0.1 rack 0\n", ":3: job: retransmission timeout out of range" },
	{ "job -1\n", ":1: job: value \"-1\" is not a number" },
	{ "job 7\nwindow 64\nwindow 128\n", ":3: window: given twice" },
	{ "job 7\ncc off\ncc all\n", ":3: cc: given twice" },
	{ "job 7\nrack 0 plain\nrank 0 224.0.0.1 rack 0\n", ":3: rank: 224.0.0.1 is a multicast address" },
	{ "job 7\nrack 0 plain\nrank 0 255.255.255.255 rack 0\n", ":3: rank: 255.255.255.255 is a broadcast" },
	{ "job 7\nrack 0 ina tor 239.1.1.1\n", ":2: rack: 239.1.1.1 is a multicast address" },
	{ "job 7\ncc fast\n", ":2: cc: \"fast\": expected off, all, or signals" },
	{ "job 7\ncc loss,\n", ":2: cc: \"loss,\"" },
	{ "job 7\ncc_beta 2000\n", ":2: cc_beta: value \"2000\" is not a number in 1..1024" },
	{ "job 7\nauth hmac\n", ":2: auth: \"hmac\": expected tag or mac" },
	{ "job 7\nauth mac\nauth tag\n", ":3: auth: given twice" },
	{ "job 7\nauth\n", ":2: auth: expected one value" },
	{ "job 7\nfallback ring\n", ":2: fallback: \"ring\": librina's agents have no plain-ring fallback" },
	{ "job 7\nfallback 1\n", ":2: fallback: \"1\": expected abort or software" },
	{ "job 7\nfallback abort\nfallback software\n", ":3: fallback: given twice" },
	{ "job 7\ntxq_limit 512\n", ":2: txq_limit: bytes \"512\" is not a number in 1024..16777216" },
	{ "job 7\ntxq_limit none\n", ":2: txq_limit: bytes \"none\" is not a number" },
	{ "job 7\ntxq_limit 4096\ntxq_limit off\n", ":3: txq_limit: given twice" },
	{ "job 7\ntxq_limit\n", ":2: txq_limit: expected one value" },
	{ "job 7\nauth mac\nrack 0 ina tor 198.18.0.254\nrank 0 198.18.0.1 rack 0\n",
	  ":3: rack: rack 0: auth mac in a rack with a ToR, which cannot check per-packet MACs" },
	{ "job 7\nrack 0 ina agent_port 21063\n", ":2: rack: agent_port \"21063\" is not a number in 21064..21071" },
	{ "job 7\nrack 0 ina agent_port 21070 agent_port 21069\n", ":2: rack: unknown or repeated field \"agent_port\"" },
	{ "job 7\nrack 0 plain\nrank 0 198.18.0.1:21064 rack 0\n", ":3: rank: port 21064 is outside the Rina range 21056..21063" },
	/* accepted once, and failed only when the ranks started */
	{ "job 7\nrack 0 ina tor 198.18.0.254:80\nrank 0 198.18.0.1 rack 0\n",
	  ":2: rack: rack 0: the ToR's control port is 21071" },
	{ "job 7\nrack 1 plain\nrack 0 ina tor 198.18.0.254:21070\nrank 0 198.18.0.1 rack 0\n",
	  ":3: rack: rack 0: the ToR's control port is 21071" },
	{ "job 7\nrack 0 plain\nrank 0 198.18.0.1 rack 0\n\nrank 1 127.0.0.1 rack 0\n",
	  ":5: rank: rank 1: rank on a loopback address" },
	{ "job 7\nrack 0 plain\nrank 1 198.18.0.2 rack 0\nrank 0 127.0.0.2 rack 0\n",
	  ":3: rank: rank 1: rank on a loopback address" },
	/* job-wide checks after the last line: the line they are about */
	{ "job 7\nrack 0 plain\nrank 2 198.18.0.3 rack 0\nrank 0 198.18.0.1 rack 0\n# end\n",
	  ":3: rank: rank 1 is missing" },
	{ "# no job\nrack 0 plain\nrank 0 198.18.0.1 rack 0\n\n", "job.txt:4: job: no \"job ID\" line" },
	{ "", "job.txt:1: job: no \"job ID\" line" },
	{ "job 7\nrto_us 20000\ntimeout_ms 10\nrack 0 plain\nrank 0 198.18.0.1 rack 0\n",
	  ":3: job: retransmission timeout out of range" },
	{ "job 7\ntimeout_ms 15\nrack 0 plain\nrank 0 198.18.0.1 rack 0\n",
	  ":2: job: retransmission timeout out of range" },
	{ "job 7\nrack 0 plain\nrack 1 ina tor 198.18.1.254\nauth mac\nrank 0 198.18.0.1 rack 0\n",
	  ":3: rack: rack 1: auth mac in a rack with a ToR" },
	{ "job 7\nrack 0 plain\nrank 0 198.18.0.1 rack 0\nrank 1 198.18.0.2 rack 9\n",
	  ":4: rank: rank 1: rank names a rack that is not declared" },
};

/*
 * Every refusal names the file and a line, "job.txt:N: ", N >= 1: none
 * says only the file (before, 11 of 48 bad files did).
 */
static bool names_line(const char *err)
{
	static const char name[] = "job.txt:";
	unsigned long line;
	char *end;

	if (strncmp(err, name, sizeof(name) - 1))
		return false;
	line = strtoul(err + sizeof(name) - 1, &end, 10);
	return line >= 1 && end != err + sizeof(name) - 1 &&
	       !strncmp(end, ": ", 2);
}

/* A file with a NUL byte on line 3: refused at that line. */
static bool nul_byte(void)
{
	static const char text[] = "job 7\nrack 0 plain\nrank 0\0\n";
	char path[] = "/tmp/test_jobfile.XXXXXX", err[512];
	struct rina_job_desc job;
	bool ok;
	int fd;

	fd = mkstemp(path);
	if (fd < 0)
		return false;
	ok = write(fd, text, sizeof(text) - 1) == sizeof(text) - 1;
	close(fd);
	ok = ok && rina_jobfile_parse(path, &job, err, sizeof(err)) &&
	     !strncmp(err, path, strlen(path)) &&
	     !strcmp(err + strlen(path), ":3: line: contains a NUL byte");
	if (!ok)
		ktap_diag("%s", err);
	unlink(path);
	return ok;
}

/*
 * A rack's agent_port: the job's INA member is reached there, and it is
 * in the job hash when set (ranks that disagree fail at HELLO). A rack
 * with a ToR may have one too: the ToR's tables take the port from the
 * job (p4cfg), so two jobs' agents behind one ToR may share a host.
 */
static bool agent_port(void)
{
	static const char base[] =
		"job 7\nrack 0 ina\nrank 0 198.18.0.1 rack 0\n";
	static const char other[] =
		"job 7\nrack 0 ina agent_port 21064\nrank 0 198.18.0.1 rack 0\n";
	static const char dflt[] =
		"job 7\nrack 0 ina agent_port 21071\nrank 0 198.18.0.1 rack 0\n";
	static const char tor[] =
		"job 7\nrack 0 ina tor 198.18.0.254 agent_port 21070\n"
		"rank 0 198.18.0.1 rack 0\n";
	struct rina_job_desc a, b, d, t;
	char err[256];
	bool ok;

	ok = !rina_jobfile_parse_text(base, "a", &a, err, sizeof(err)) &&
	     !rina_jobfile_parse_text(other, "b", &b, err, sizeof(err)) &&
	     !rina_jobfile_parse_text(dflt, "d", &d, err, sizeof(err)) &&
	     !rina_jobfile_parse_text(tor, "t", &t, err, sizeof(err));
	return ok && ntohs(rina_rack_agent_port(&a, 0)) == RINA_UDP_PORT_AGENT &&
	       ntohs(rina_rack_agent_port(&b, 0)) == 21064 &&
	       ntohs(rina_rack_agent_port(&d, 0)) == RINA_UDP_PORT_AGENT &&
	       ntohs(rina_rack_agent_port(&t, 0)) == 21070 &&
	       rina_job_hash(&a) != rina_job_hash(&b);
}

/*
 * Parse the one-rank job below with line added (before it when first,
 * else after): the job-wide options' tests below.
 */
static bool parse_with(const char *line, bool first, const char *name,
		       struct rina_job_desc *job)
{
	static const char base[] =
		"job 7\nrack 0 plain\nrank 0 198.18.0.1 rack 0\n";
	char text[256], err[256];

	snprintf(text, sizeof(text), "%s%s%s", first ? line : "", base,
		 first ? "" : line);
	return !rina_jobfile_parse_text(text, name, job, err, sizeof(err));
}

/*
 * "auth": tag is the default and leaves the job hash as it was (hosts
 * of older jobs agree); mac is hashed, so ranks that disagree on it fail
 * at HELLO with a hash mismatch instead of dropping each other's data.
 */
static bool auth_option(void)
{
	struct rina_job_desc plain, tag, mac;
	bool ok;

	ok = parse_with("", false, "plain", &plain);
	ok &= parse_with("auth tag\n", true, "tag", &tag);
	ok &= parse_with("auth mac\n", false, "mac", &mac);
	return ok && plain.auth == RINA_JOB_AUTH_TAG &&
	       tag.auth == RINA_JOB_AUTH_TAG && mac.auth == RINA_JOB_AUTH_MAC &&
	       rina_job_hash(&plain) == rina_job_hash(&tag) &&
	       rina_job_hash(&plain) != rina_job_hash(&mac);
}

/* "fallback": software by default, abort when asked, not hashed. */
static bool fallback_option(void)
{
	struct rina_job_desc dflt, sw, ab;
	bool ok;

	ok = parse_with("", false, "dflt", &dflt);
	ok &= parse_with("fallback software\n", true, "sw", &sw);
	ok &= parse_with("fallback abort\n", false, "ab", &ab);
	return ok && dflt.fallback == RINA_FALLBACK_SOFTWARE &&
	       sw.fallback == RINA_FALLBACK_SOFTWARE &&
	       ab.fallback == RINA_FALLBACK_ABORT &&
	       rina_job_hash(&dflt) == rina_job_hash(&ab);
}

/*
 * txq_limit: bytes or off, 0 (the default) when absent; a sender's own
 * policy, so not in the job hash.
 */
static bool txq_limit_option(void)
{
	struct rina_job_desc dflt, set, off;
	bool ok;

	ok = parse_with("", false, "dflt", &dflt);
	ok &= parse_with("txq_limit 4096\n", false, "set", &set);
	ok &= parse_with("txq_limit off\n", false, "off", &off);
	return ok && dflt.txq_limit == 0 && set.txq_limit == 4096 &&
	       off.txq_limit == RINA_TXQ_LIMIT_OFF &&
	       rina_job_hash(&dflt) == rina_job_hash(&set) &&
	       rina_job_hash(&dflt) == rina_job_hash(&off);
}

/* The congestion-control directives land in the job description. */
static bool cc_knobs(void)
{
	static const char text[] =
		"job 7\ncc loss,delay\ncc_target_us 500\ncc_init 4\n"
		"cc_ai 2048\ncc_beta 256\nrack 0 plain\n"
		"rank 0 198.18.0.1 rack 0\n";
	struct rina_job_desc job;
	char err[256];
	__u16 v = 0;
	bool ok;

	ok = !rina_jobfile_parse_text(text, "cc", &job, err, sizeof(err)) &&
	     job.cc == (RINA_CC_F_LOSS | RINA_CC_F_DELAY) &&
	     job.cc_target_us == 500 && job.cc_init == 4 &&
	     job.cc_ai == 2048 && job.cc_beta == 256;
	ok &= !rina_jobfile_cc("off", &v) && v == RINA_JOB_CC_OFF;
	ok &= !rina_jobfile_cc("all", &v) && v == RINA_CC_F_ALL;
	ok &= !rina_jobfile_cc("ecn", &v) && v == RINA_CC_F_ECN;
	ok &= rina_jobfile_cc("", &v) && rina_jobfile_cc(",", &v);
	return ok;
}

int main(void)
{
	struct rina_job_desc job;
	char err[512];
	unsigned int i;
	bool ok;

	ktap_plan(8 + 2 * (int)(sizeof(bad) / sizeof(bad[0])));
	ktap_result(nul_byte(), "a NUL byte is refused at its line");
	ktap_result(fallback_option(), "fallback abort|software parse, software by default, not in the job hash");
	ktap_result(cc_knobs(), "cc, cc_target_us, cc_init, cc_ai, cc_beta parse");
	ktap_result(txq_limit_option(), "txq_limit BYTES|off parse, 0 (the default) when absent, not in the job hash");
	ktap_result(auth_option(), "auth tag|mac parse; mac is in the job hash, tag (the default) leaves it as it was");
	ktap_result(agent_port(), "rack agent_port: parsed, 21071 by default, in the job hash when set, also with a ToR");
	ok = !rina_jobfile_parse_text(good, "good", &job, err, sizeof(err));
	if (!ok)
		ktap_diag("%s", err);
	ok = ok && job.job_id == 7 && job.elems == 128 && job.window == 32 &&
	     job.timeout_ms == 5000 && job.rto_us == 20000 &&
	     job.n_ranks == 3 && job.n_racks == 2 &&
	     job.racks[1].ina && job.racks[1].tor_ip == htonl(0xc61200fe) &&
	     ntohs(job.racks[1].tor_port) == RINA_UDP_PORT_AGENT &&
	     ntohs(job.ranks[2].port) == 21057 &&
	     ntohs(job.ranks[1].port) == RINA_UDP_PORT_WORKER &&
	     job.ranks[1].mac[5] == 2 && job.ranks[2].rack == 1;
	ktap_result(ok, "a good job file parses into the job description");

	ok = rina_jobfile_parse("/nonexistent/job", &job, err,
				sizeof(err)) &&
	     strstr(err, "No such file");
	ktap_result(ok, "a missing file is reported: %s", err);

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int rc = rina_jobfile_parse_text(bad[i].text, "job.txt", &job,
						 err, sizeof(err));

		ok = rc && strstr(err, bad[i].want);
		ktap_result(ok, "refused with \"%s\"", rc ? err : "(accepted)");
		ktap_result(rc && names_line(err),
			    "bad file %u: file:line in \"%s\"", i,
			    rc ? err : "(accepted)");
	}
	return ktap_finish();
}
