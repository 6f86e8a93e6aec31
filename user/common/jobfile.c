// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * Parser for the job description file: one directive per line, checked
 * field by field with the line number in every message, then the whole
 * job validated by the shared core.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jobfile.h"
#include "secret.h"
#include "cc.h"

#define MAX_FIELDS	8

/* do_param()'s directives, in its table's order */
enum param {
	PARAM_JOB, PARAM_ELEMS, PARAM_WINDOW, PARAM_TIMEOUT, PARAM_RTO,
	PARAM_CC_TARGET, PARAM_CC_INIT, PARAM_CC_AI, PARAM_CC_BETA,
	PARAM_MAX,
};

struct parse_ctx {
	const char *name;
	int line;
	char *err;
	size_t errlen;
	unsigned char seen_rank[RINA_MAX_RANKS];
	/* where each was declared: the checks after the last line name it */
	int rank_line[RINA_MAX_RANKS];
	int rack_line[RINA_MAX_RACKS];	/* index: job->racks[] */
	int param_line[PARAM_MAX];	/* index: params[] of do_param() */
	unsigned int seen_param;	/* bit i: params[i] given */
	unsigned int given;		/* RINA_JF_* the text gave */
	bool seen_cc;
	bool seen_auth;
	bool seen_fallback;
	bool seen_txq_limit;
};

__attribute__((format(printf, 3, 4)))
static int fail(struct parse_ctx *c, const char *dir, const char *fmt, ...)
{
	va_list ap;
	int n;

	n = snprintf(c->err, c->errlen, "%s:%d: %s: ", c->name, c->line, dir);
	if (n < 0 || (size_t)n >= c->errlen)
		return -1;
	va_start(ap, fmt);
	vsnprintf(c->err + n, c->errlen - n, fmt, ap);
	va_end(ap);
	return -1;
}

static int parse_uint(const char *s, unsigned long min, unsigned long max,
		      unsigned long *out)
{
	char *end;
	unsigned long v;

	if (!*s || *s == '-' || *s == '+')
		return -1;
	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || *end || v < min || v > max)
		return -1;
	*out = v;
	return 0;
}

static int num(struct parse_ctx *c, const char *dir, const char *what,
	       const char *s, unsigned long min, unsigned long max,
	       unsigned long *out)
{
	if (parse_uint(s, min, max, out))
		return fail(c, dir, "%s \"%s\" is not a number in %lu..%lu",
			    what, s, min, max);
	return 0;
}

/* IPV4[:PORT] */
static int parse_addr(struct parse_ctx *c, const char *dir, char *s,
		      __be32 *ip, __be16 *port, unsigned long def_port)
{
	char *colon = strchr(s, ':');
	unsigned long p = def_port;
	struct in_addr a;

	if (colon) {
		*colon = 0;
		if (parse_uint(colon + 1, 1, 65535, &p))
			return fail(c, dir, "port \"%s\" is not a number in 1..65535",
				    colon + 1);
	}
	if (inet_pton(AF_INET, s, &a) != 1)
		return fail(c, dir, "\"%s\" is not an IPv4 address", s);
	if (a.s_addr == 0)
		return fail(c, dir, "0.0.0.0 is not a usable address");
	/* a datagram to these reaches many hosts, or none */
	if ((ntohl(a.s_addr) >> 28) == 0xe)
		return fail(c, dir, "%s is a multicast address", s);
	if ((ntohl(a.s_addr) >> 28) == 0xf)
		return fail(c, dir, "%s is a broadcast or reserved address",
			    s);
	*ip = a.s_addr;
	*port = htons((unsigned short)p);
	return 0;
}

static int parse_mac(const char *s, __u8 mac[6])
{
	unsigned int b[6];
	char tail;
	int i;

	if (sscanf(s, "%x:%x:%x:%x:%x:%x%c", &b[0], &b[1], &b[2], &b[3],
		   &b[4], &b[5], &tail) != 6)
		return -1;
	for (i = 0; i < 6; i++) {
		if (b[i] > 255)
			return -1;
		mac[i] = (__u8)b[i];
	}
	return 0;
}

static int do_rack(struct parse_ctx *c, struct rina_job_desc *job,
		   char **f, int nf)
{
	struct rina_rack_desc *r;
	unsigned long id, port;
	int i;

	if (nf != 3 && nf != 5 && nf != 7)
		return fail(c, "rack", "expected \"rack ID ina|plain [tor IPV4[:PORT]] [agent_port PORT]\"");
	if (job->n_racks >= RINA_MAX_RACKS)
		return fail(c, "rack", "more than %d racks", RINA_MAX_RACKS);
	if (num(c, "rack", "rack id", f[1], 0, 65535, &id))
		return -1;
	if (rina_job_rack(job, (unsigned int)id))
		return fail(c, "rack", "rack %lu declared twice", id);
	r = &job->racks[job->n_racks];
	r->id = (__u16)id;
	if (!strcmp(f[2], "ina"))
		r->ina = 1;
	else if (strcmp(f[2], "plain"))
		return fail(c, "rack", "\"%s\" is neither \"ina\" nor \"plain\"",
			    f[2]);
	for (i = 3; i + 1 < nf; i += 2) {
		if (!strcmp(f[i], "tor") && !r->tor_ip) {
			if (parse_addr(c, "rack", f[i + 1], &r->tor_ip,
				       &r->tor_port, RINA_UDP_PORT_AGENT))
				return -1;
		} else if (!strcmp(f[i], "agent_port") && !r->agent_port) {
			if (num(c, "rack", "agent_port", f[i + 1],
				RINA_UDP_PORT_AGENT_MIN, RINA_UDP_PORT_AGENT,
				&port))
				return -1;
			r->agent_port = htons((__u16)port);
		} else {
			return fail(c, "rack", "unknown or repeated field \"%s\"",
				    f[i]);
		}
	}
	c->rack_line[job->n_racks++] = c->line;
	return 0;
}

static int do_rank(struct parse_ctx *c, struct rina_job_desc *job,
		   char **f, int nf)
{
	struct rina_rank_desc *r;
	unsigned long rank, rack, port;
	int i;

	if (nf < 5 || strcmp(f[3], "rack"))
		return fail(c, "rank", "expected \"rank R IPV4[:PORT] rack ID [mac MAC]\"");
	if (num(c, "rank", "rank", f[1], 0, RINA_MAX_RANKS - 1, &rank))
		return -1;
	if (c->seen_rank[rank])
		return fail(c, "rank", "rank %lu declared twice", rank);
	r = &job->ranks[rank];
	if (parse_addr(c, "rank", f[2], &r->ip, &r->port, RINA_UDP_PORT_WORKER))
		return -1;
	port = ntohs(r->port);
	if (port < RINA_UDP_PORT_MIN || port >= RINA_UDP_PORT_AGENT_MIN)
		return fail(c, "rank", "port %lu is outside the Rina range %d..%d",
			    port, RINA_UDP_PORT_MIN, RINA_UDP_PORT_AGENT_MIN - 1);
	if (num(c, "rank", "rack id", f[4], 0, 65535, &rack))
		return -1;
	r->rack = (__u16)rack;
	for (i = 5; i < nf; i += 2) {
		if (!strcmp(f[i], "mac") && i + 1 < nf) {
			if (parse_mac(f[i + 1], r->mac))
				return fail(c, "rank", "\"%s\" is not a MAC address",
					    f[i + 1]);
		} else {
			return fail(c, "rank", "unknown field \"%s\"", f[i]);
		}
	}
	c->seen_rank[rank] = 1;
	c->rank_line[rank] = c->line;
	if (rank + 1 > job->n_ranks)
		job->n_ranks = (__u16)(rank + 1);
	return 0;
}

/* "off", "all" or SIGNAL[,SIGNAL...] of loss, delay, ecn */
int rina_jobfile_cc(const char *val, __u16 *cc)
{
	char buf[64], *save = NULL, *tok;
	unsigned int flags = 0;

	if (!strcmp(val, "off")) {
		*cc = RINA_JOB_CC_OFF;
		return 0;
	}
	/* every comma separates two signals */
	if (!*val || strlen(val) >= sizeof(buf) || val[0] == ',' ||
	    val[strlen(val) - 1] == ',' || strstr(val, ",,"))
		return -1;
	strcpy(buf, val);
	for (tok = strtok_r(buf, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		if (!strcmp(tok, "loss"))
			flags |= RINA_CC_F_LOSS;
		else if (!strcmp(tok, "delay"))
			flags |= RINA_CC_F_DELAY;
		else if (!strcmp(tok, "ecn"))
			flags |= RINA_CC_F_ECN;
		else if (!strcmp(tok, "all"))
			flags |= RINA_CC_F_ALL;
		else
			return -1;
	}
	if (!flags)
		return -1;
	*cc = (__u16)flags;
	return 0;
}

static int do_cc(struct parse_ctx *c, struct rina_job_desc *job, char **f,
		 int nf)
{
	if (nf != 2)
		return fail(c, f[0], "expected one value");
	if (c->seen_cc)
		return fail(c, f[0], "given twice");
	c->seen_cc = true;
	if (rina_jobfile_cc(f[1], &job->cc))
		return fail(c, f[0],
			    "\"%s\": expected off, all, or signals from loss,delay,ecn",
			    f[1]);
	return 0;
}

/* "secret_file PATH": the job secret (protocol.md 6.2) */
static int do_secret(struct parse_ctx *c, struct rina_job_desc *job,
		     char **f, int nf)
{
	char why[256];

	if (nf != 2)
		return fail(c, f[0], "expected one path");
	if (job->has_secret)
		return fail(c, f[0], "given twice");
	if (f[1][0] != '/')
		return fail(c, f[0], "\"%s\" is not an absolute path", f[1]);
	if (rina_secret_load(f[1], job->secret, why, sizeof(why)))
		return fail(c, f[0], "%s", why);
	job->has_secret = 1;
	return 0;
}

/* "auth tag|mac": the job's tag, or a MAC per packet (protocol.md 6.4) */
static int do_auth(struct parse_ctx *c, struct rina_job_desc *job,
		   char **f, int nf)
{
	if (nf != 2)
		return fail(c, f[0], "expected one value");
	if (c->seen_auth)
		return fail(c, f[0], "given twice");
	c->seen_auth = true;
	if (!strcmp(f[1], "tag"))
		job->auth = RINA_JOB_AUTH_TAG;
	else if (!strcmp(f[1], "mac"))
		job->auth = RINA_JOB_AUTH_MAC;
	else
		return fail(c, f[0], "\"%s\": expected tag or mac", f[1]);
	return 0;
}

/*
 * "txq_limit BYTES|off": what a bounded sender may keep queued on its
 * own host (endpoint.h, struct rina_txq).
 */
static int do_txq_limit(struct parse_ctx *c, struct rina_job_desc *job,
			char **f, int nf)
{
	unsigned long v;

	if (nf != 2)
		return fail(c, f[0], "expected one value");
	if (c->seen_txq_limit)
		return fail(c, f[0], "given twice");
	c->seen_txq_limit = true;
	if (!strcmp(f[1], "off")) {
		job->txq_limit = RINA_TXQ_LIMIT_OFF;
		return 0;
	}
	if (num(c, f[0], "bytes", f[1], RINA_TXQ_LIMIT_MIN,
		RINA_TXQ_LIMIT_MAX, &v))
		return -1;
	job->txq_limit = (__u32)v;
	return 0;
}

/*
 * "fallback abort|software": what an INA rack's agent does when its ToR
 * refuses the job, does not answer, or goes silent mid-job (the values
 * of net.rina.fallback; librina has no plain-ring fallback).
 */
static int do_fallback(struct parse_ctx *c, struct rina_job_desc *job,
		       char **f, int nf)
{
	if (nf != 2)
		return fail(c, f[0], "expected one value");
	if (c->seen_fallback)
		return fail(c, f[0], "given twice");
	c->seen_fallback = true;
	c->given |= RINA_JF_FALLBACK;
	if (!strcmp(f[1], "abort"))
		job->fallback = RINA_FALLBACK_ABORT;
	else if (!strcmp(f[1], "software"))
		job->fallback = RINA_FALLBACK_SOFTWARE;
	else if (!strcmp(f[1], "ring"))
		return fail(c, f[0], "\"ring\": librina's agents have no plain-ring fallback; expected abort or software");
	else
		return fail(c, f[0], "\"%s\": expected abort or software",
			    f[1]);
	return 0;
}

static int do_param(struct parse_ctx *c, struct rina_job_desc *job,
		    char **f, int nf)
{
	static const struct {
		const char *name;
		unsigned long min, max;
	} params[PARAM_MAX] = {
		{ "job", 1, 65535 },
		{ "elements", 1, RINA_MAX_ELEMS },
		{ "window", RINA_MIN_WINDOW, RINA_MAX_WINDOW },
		{ "timeout_ms", 10, 3600000 },
		{ "rto_us", 50, 10000000 },
		{ "cc_target_us", 1, 10000000 },
		{ "cc_init", 1, RINA_MAX_WINDOW },
		{ "cc_ai", 1, 65535 },
		{ "cc_beta", 1, 1024 },
	};
	unsigned long v;
	unsigned int i;

	for (i = 0; i < sizeof(params) / sizeof(params[0]); i++) {
		if (strcmp(f[0], params[i].name))
			continue;
		if (nf != 2)
			return fail(c, f[0], "expected one value");
		/* a second value would silently win over the first */
		if (c->seen_param & 1u << i)
			return fail(c, f[0], "given twice");
		c->seen_param |= 1u << i;
		c->param_line[i] = c->line;
		if (num(c, f[0], "value", f[1], params[i].min, params[i].max,
			&v))
			return -1;
		switch (i) {
		case PARAM_JOB: job->job_id = (__u16)v; break;
		case PARAM_ELEMS:
			job->elems = (__u16)v;
			c->given |= RINA_JF_ELEMS;
			break;
		case PARAM_WINDOW:
			if (v & (v - 1))
				return fail(c, f[0], "%lu is not a power of two",
					    v);
			job->window = (__u16)v;
			c->given |= RINA_JF_WINDOW;
			break;
		case PARAM_TIMEOUT:
			job->timeout_ms = (__u32)v;
			c->given |= RINA_JF_TIMEOUT;
			break;
		case PARAM_RTO:
			job->rto_us = (__u32)v;
			c->given |= RINA_JF_RTO;
			break;
		case PARAM_CC_TARGET: job->cc_target_us = (__u32)v; break;
		case PARAM_CC_INIT: job->cc_init = (__u16)v; break;
		case PARAM_CC_AI: job->cc_ai = (__u16)v; break;
		case PARAM_CC_BETA: job->cc_beta = (__u16)v; break;
		}
		return 0;
	}
	return fail(c, f[0], "unknown directive");
}

static int parse_line(struct parse_ctx *c, struct rina_job_desc *job,
		      char *line)
{
	char *f[MAX_FIELDS + 1], *save = NULL, *tok, *hash;
	int nf = 0;

	hash = strchr(line, '#');
	if (hash)
		*hash = 0;
	for (tok = strtok_r(line, " \t\r", &save); tok;
	     tok = strtok_r(NULL, " \t\r", &save)) {
		if (nf == MAX_FIELDS)
			return fail(c, f[0], "too many fields");
		f[nf++] = tok;
	}
	if (!nf)
		return 0;
	if (!strcmp(f[0], "rack"))
		return do_rack(c, job, f, nf);
	if (!strcmp(f[0], "rank"))
		return do_rank(c, job, f, nf);
	if (!strcmp(f[0], "cc"))
		return do_cc(c, job, f, nf);
	if (!strcmp(f[0], "secret_file"))
		return do_secret(c, job, f, nf);
	if (!strcmp(f[0], "auth"))
		return do_auth(c, job, f, nf);
	if (!strcmp(f[0], "fallback"))
		return do_fallback(c, job, f, nf);
	if (!strcmp(f[0], "txq_limit"))
		return do_txq_limit(c, job, f, nf);
	return do_param(c, job, f, nf);
}

const struct rina_jobfile_dflt rina_jobfile_builtin = {
	.elems		= 256,
	.window		= 256,
	.timeout_ms	= 10000,
	.rto_us		= 20000,
	.fallback	= RINA_FALLBACK_SOFTWARE,
};

static void job_defaults(struct rina_job_desc *job,
			 const struct rina_jobfile_dflt *d)
{
	memset(job, 0, sizeof(*job));
	job->elems = d->elems;
	job->window = d->window;
	job->timeout_ms = d->timeout_ms;
	job->rto_us = d->rto_us;
	/* librina's agents have no plain-ring fallback: see below */
	job->fallback = d->fallback == RINA_FALLBACK_RING ?
			RINA_FALLBACK_SOFTWARE : d->fallback;
}

static bool job_has_tor(const struct rina_job_desc *job)
{
	unsigned int i;

	for (i = 0; i < job->n_racks; i++)
		if (job->racks[i].ina && job->racks[i].tor_ip)
			return true;
	return false;
}

/*
 * The line of a job-wide verdict: the directive it is about, else the
 * last line (the value was the default, or a line is missing).
 */
static int validate_line(const struct parse_ctx *c, enum rina_job_err err)
{
	int line = 0;

	switch (err) {
	case RINA_JOB_BAD_ELEMS:
		line = c->param_line[PARAM_ELEMS];
		break;
	case RINA_JOB_BAD_WINDOW:
		line = c->param_line[PARAM_WINDOW];
		break;
	case RINA_JOB_BAD_TIMEOUT:
		line = c->param_line[PARAM_TIMEOUT];
		break;
	case RINA_JOB_BAD_RTO:
		line = c->param_line[PARAM_RTO] > c->param_line[PARAM_TIMEOUT] ?
		       c->param_line[PARAM_RTO] : c->param_line[PARAM_TIMEOUT];
		break;
	default:
		break;
	}
	return line ? line : c->line;
}

int rina_jobfile_parse_text(const char *text, const char *name,
			    struct rina_job_desc *job, char *err,
			    size_t errlen)
{
	return rina_jobfile_parse_text_dflt(text, name, NULL, NULL, job, err,
					    errlen);
}

int rina_jobfile_parse_text_dflt(const char *text, const char *name,
				 const struct rina_jobfile_dflt *dflt,
				 unsigned int *given,
				 struct rina_job_desc *job, char *err,
				 size_t errlen)
{
	struct parse_ctx c = { .name = name, .err = err, .errlen = errlen };
	struct rina_job_verdict v;
	char line[1024];
	bool rack_err;
	const char *p = text;
	unsigned int i;

	if (!dflt)
		dflt = &rina_jobfile_builtin;
	job_defaults(job, dflt);
	while (*p) {
		size_t n = strcspn(p, "\n");

		c.line++;
		if (n >= sizeof(line))
			return fail(&c, "line", "longer than %zu characters",
				    sizeof(line) - 1);
		memcpy(line, p, n);
		line[n] = 0;
		if (parse_line(&c, job, line))
			return -1;
		p += n + (p[n] == '\n');
	}
	/* what only the whole file shows: at the line that declared it */
	c.line = c.line ? c.line : 1;
	if (given)
		*given = c.given;
	/* a plain-ring fallback (net.rina.fallback 2) only rina.ko's refusal
	 * would show, later: say so now, for the jobs it concerns */
	if (!(c.given & RINA_JF_FALLBACK) &&
	    dflt->fallback == RINA_FALLBACK_RING && job_has_tor(job))
		return fail(&c, "fallback", "the default fallback is 2 (ring, from net.rina.fallback), which neither librina nor rina.ko implements for a rack with a ToR: give \"fallback abort\" or \"fallback software\"");
	if (!job->job_id)
		return fail(&c, "job", "no \"job ID\" line before the end of the file");
	for (i = 0; i < job->n_ranks; i++) {
		if (!c.seen_rank[i]) {
			c.line = c.rank_line[job->n_ranks - 1];
			return fail(&c, "rank",
				    "rank %u is missing (ranks must be 0..%u)",
				    i, job->n_ranks - 1);
		}
	}
	v = rina_job_validate(job);
	if (!v.err)
		return 0;
	rack_err = rina_job_err_is_rack(v.err);
	if (v.what >= 0) {
		c.line = rack_err ? c.rack_line[v.what] : c.rank_line[v.what];
		return fail(&c, rack_err ? "rack" : "rank", "%s %d: %s",
			    rack_err ? "rack" : "rank",
			    rack_err ? job->racks[v.what].id : v.what,
			    rina_job_err_names[v.err]);
	}
	c.line = validate_line(&c, v.err);
	return fail(&c, "job", "%s", rina_job_err_names[v.err]);
}

int rina_jobfile_parse(const char *path, struct rina_job_desc *job,
		       char *err, size_t errlen)
{
	return rina_jobfile_parse_dflt(path, NULL, NULL, job, err, errlen);
}

int rina_jobfile_parse_dflt(const char *path,
			    const struct rina_jobfile_dflt *dflt,
			    unsigned int *given, struct rina_job_desc *job,
			    char *err, size_t errlen)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL;
	size_t len = 0;
	long sz;
	int ret;

	if (!f) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	if (fseek(f, 0, SEEK_END) || (sz = ftell(f)) < 0 || sz > (1 << 20) ||
	    fseek(f, 0, SEEK_SET)) {
		snprintf(err, errlen, "%s: not a readable file of at most 1 MiB",
			 path);
		fclose(f);
		return -1;
	}
	buf = malloc((size_t)sz + 1);
	if (!buf) {
		fclose(f);
		snprintf(err, errlen, "%s: out of memory", path);
		return -1;
	}
	len = fread(buf, 1, (size_t)sz, f);
	fclose(f);
	buf[len] = 0;
	if (strlen(buf) != len) {
		const char *q;
		int line = 1;

		for (q = buf; *q; q++)
			line += *q == '\n';
		snprintf(err, errlen, "%s:%d: line: contains a NUL byte", path,
			 line);
		free(buf);
		return -1;
	}
	ret = rina_jobfile_parse_text_dflt(buf, path, dflt, given, job, err,
					   errlen);
	free(buf);
	return ret;
}
