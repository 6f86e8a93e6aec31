// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * rinactl job gen: a job file (Documentation/job-file.md) from what a
 * cluster already has: a hostfile (OpenMPI "host slots=N", Slurm/MPICH
 * "host:N") or SLURM_JOB_NODELIST, ranks per host, and the rack of each
 * host (--rack-size N consecutive hosts, or a map file "HOST RACK
 * [IPV4]"). The text is checked by the job-file parser before anything
 * is written, and written atomically (-o FILE) or to stdout.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "atomic_write.h"
#include "hostfile.h"
#include "jobfile.h"
#include "nodelist.h"
#include "rinactl.h"

#define GEN_PORTS	RINA_HOST_PORTS
#define GEN_TEXT_MAX	(64 * 1024)

struct gen_host {
	char		name[RINA_HOSTNAME_MAX];
	char		where[300];	/* "file:line" or "SLURM_JOB_NODELIST" */
	unsigned int	ranks;
	unsigned int	rack;
	int		order;		/* in the list, kept in a rack */
	struct in_addr	ip;
	bool		have_ip;
};

struct gen {
	struct gen_host	*h;
	int		n;
	unsigned int	ranks_per_host;	/* 0: the hostfile's slots */
	unsigned int	rack_size;
	const char	*rack_map;
	unsigned int	job_id;
	const char	*ina;		/* all, none, or R,R,... */
	const char	*tor[64];	/* R=IPV4 */
	int		n_tor;
	const char	*set[32];	/* extra 'KEY VALUE' lines */
	int		n_set;
	char		*text;
	size_t		len;
};

static char (*hostnames)[RINA_HOSTNAME_MAX];

__attribute__((format(printf, 1, 2)))
static int gen_fail(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "rinactl: job gen: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n");
	return RINACTL_EXIT_FAIL;
}

static int gen_usage(void)
{
	fprintf(stderr,
		"Usage: rinactl job gen { --hostfile FILE | --slurm | --nodelist LIST }\n"
		"                       [--ranks-per-host N] [--rack-size N | --rack-map FILE]\n"
		"                       [--ina all|none|R[,R...]] [--tor R=IPV4]...\n"
		"                       [--job ID] [--set 'KEY VALUE']... [-o FILE]\n"
		"  --hostfile FILE   lines \"host [slots=N]\" (OpenMPI) or \"host[:N]\" (Slurm, MPICH)\n"
		"  --slurm           hosts from SLURM_JOB_NODELIST, ranks from SLURM_TASKS_PER_NODE\n"
		"  --nodelist LIST   a Slurm host list, e.g. node[01-04,07],gpu5\n"
		"  --ranks-per-host N  ranks on every host (1..8), instead of the slots\n"
		"  --rack-size N     N consecutive hosts per rack (default: one rack)\n"
		"  --rack-map FILE   lines \"HOST RACK [IPV4]\": each host's rack (and address)\n"
		"  --ina             racks whose ToR aggregates (default none: plain)\n"
		"  --tor R=IPV4      rack R is INA, with its ToR's control address\n"
		"  --job ID          job id 1..65535 (default from SLURM_JOB_ID)\n"
		"  --set 'KEY VALUE' a job-file line, e.g. 'window 64' (repeatable)\n"
		"  -o FILE           write FILE atomically (FILE.tmp, renamed); default stdout\n");
	return RINACTL_EXIT_USAGE;
}

/* One more host (or more slots of a host already listed). */
static int add_host(struct gen *g, const char *name, unsigned int ranks,
		    const char *where)
{
	struct gen_host *h;
	int i;

	for (i = 0; i < g->n; i++)
		if (!strcmp(g->h[i].name, name))
			break;
	if (i == g->n) {
		if (g->n == RINA_NODELIST_MAX)
			return gen_fail("%s: more than %d hosts", where,
					RINA_NODELIST_MAX);
		h = &g->h[g->n++];
		memset(h, 0, sizeof(*h));
		snprintf(h->name, sizeof(h->name), "%s", name);
		snprintf(h->where, sizeof(h->where), "%s", where);
	}
	h = &g->h[i];
	h->ranks += ranks;
	if (h->ranks > GEN_PORTS)
		return gen_fail("%s: %s: %u ranks, but a host has %d Rina worker ports (21056..21063)",
				where, name, h->ranks, GEN_PORTS);
	return 0;
}

/* "host", "host slots=N [max_slots=M]", "host:N"; # comments. */
static int read_hostfile(struct gen *g, const char *path)
{
	char line[1024], where[300], err[256];
	int lineno = 0, ret = 0, rc;
	FILE *f = fopen(path, "r");

	if (!f)
		return gen_fail("%s: %s", path, strerror(errno));
	while (!ret && fgets(line, sizeof(line), f)) {
		const char *name;
		unsigned int slots;

		lineno++;
		snprintf(where, sizeof(where), "%s:%d", path, lineno);
		if (!strchr(line, '\n') && !feof(f)) {
			ret = gen_fail("%s: line too long", where);
			break;
		}
		rc = rina_hostfile_line(line, &name, &slots, err, sizeof(err));
		if (rc < 0)
			ret = gen_fail("%s: %s", where, err);
		else if (rc > 0)
			ret = add_host(g, name, slots, where);
	}
	if (!ret && ferror(f))
		ret = gen_fail("%s: %s", path, strerror(errno));
	fclose(f);
	if (!ret && !g->n)
		ret = gen_fail("%s: no hosts", path);
	return ret;
}

/* SLURM_TASKS_PER_NODE: "2(x3),1" is 2 2 2 1, one count per host. */
static int slurm_tasks(struct gen *g, const char *s)
{
	unsigned int *ranks = calloc((size_t)g->n, sizeof(*ranks));
	char err[256];
	int i;

	if (!ranks)
		return gen_fail("out of memory");
	if (rina_tasks_per_node(s, ranks, g->n, err, sizeof(err))) {
		free(ranks);
		return gen_fail("SLURM_TASKS_PER_NODE: %s", err);
	}
	for (i = 0; i < g->n; i++)
		g->h[i].ranks = ranks[i];
	free(ranks);
	return 0;
}

static int read_nodelist(struct gen *g, const char *list, const char *what)
{
	char err[256];
	int n, i;

	n = rina_nodelist_expand(list, hostnames, RINA_NODELIST_MAX, err,
				 sizeof(err));
	if (n < 0)
		return gen_fail("%s: %s", what, err);
	for (i = 0; i < n; i++)
		if (add_host(g, hostnames[i], 1, what))
			return RINACTL_EXIT_FAIL;
	return 0;
}

/* "HOST RACK [IPV4]" lines: every host of the job must be there. */
static int read_rack_map(struct gen *g, const char *path)
{
	char line[1024], err[256];
	bool *seen = calloc((size_t)g->n, sizeof(*seen));
	int lineno = 0, i, ret = 0, rc;
	FILE *f = fopen(path, "r");
	const char *host;
	unsigned int rack;
	struct in_addr ip;
	bool have_ip;

	if (!seen || !f) {
		ret = gen_fail("%s: %s", path, strerror(errno));
		goto out;
	}
	while (fgets(line, sizeof(line), f)) {
		lineno++;
		if (!strchr(line, '\n') && !feof(f)) {
			ret = gen_fail("%s:%d: line too long", path, lineno);
			goto out;
		}
		rc = rina_rackmap_line(line, &host, &rack, &ip, &have_ip, err,
				       sizeof(err));
		if (rc < 0) {
			ret = gen_fail("%s:%d: %s", path, lineno, err);
			goto out;
		}
		if (!rc)
			continue;
		for (i = 0; i < g->n; i++)
			if (!strcmp(g->h[i].name, host))
				break;
		if (i == g->n)
			continue;	/* the cluster's, not the job's */
		if (seen[i]) {
			ret = gen_fail("%s:%d: host %s given twice", path,
				       lineno, host);
			goto out;
		}
		seen[i] = true;
		g->h[i].rack = rack;
		g->h[i].ip = ip;
		g->h[i].have_ip = have_ip;
	}
	for (i = 0; i < g->n; i++)
		if (!seen[i]) {
			ret = gen_fail("%s: host %s is not in the rack map %s",
				       g->h[i].where, g->h[i].name, path);
			goto out;
		}
out:
	if (f)
		fclose(f);
	free(seen);
	return ret;
}

static int resolve(struct gen_host *h)
{
	struct addrinfo hints = { .ai_family = AF_INET }, *ai;
	int err;

	if (h->have_ip)
		return 0;
	err = getaddrinfo(h->name, NULL, &hints, &ai);
	if (err)
		return gen_fail("%s: %s: no IPv4 address (%s): give it in the rack map (HOST RACK IPV4)",
				h->where, h->name, gai_strerror(err));
	h->ip = ((struct sockaddr_in *)ai->ai_addr)->sin_addr;
	freeaddrinfo(ai);
	return 0;
}

__attribute__((format(printf, 2, 3)))
static void put(struct gen *g, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (g->len >= GEN_TEXT_MAX)
		return;
	va_start(ap, fmt);
	n = vsnprintf(g->text + g->len, GEN_TEXT_MAX - g->len, fmt, ap);
	va_end(ap);
	g->len = n < 0 ? GEN_TEXT_MAX : g->len + (size_t)n;
}

/* Whether rack r is INA (--ina) and its ToR (--tor), checked before */
static bool rack_is_ina(const struct gen *g, unsigned int r, const char **tor)
{
	char buf[256], *tok, *save = NULL;
	int i;

	*tor = NULL;
	for (i = 0; i < g->n_tor; i++)
		if (strtoul(g->tor[i], NULL, 10) == r)
			*tor = strchr(g->tor[i], '=') + 1;
	if (*tor || !strcmp(g->ina, "all"))
		return true;
	if (!strcmp(g->ina, "none"))
		return false;
	snprintf(buf, sizeof(buf), "%s", g->ina);
	for (tok = strtok_r(buf, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save))
		if (strtoul(tok, NULL, 10) == r)
			return true;
	return false;
}

static int check_rack_opts(struct gen *g)
{
	char buf[256], *tok, *save = NULL, *eq;
	struct in_addr a;
	unsigned long v;
	int i;

	for (i = 0; i < g->n_tor; i++) {
		snprintf(buf, sizeof(buf), "%s", g->tor[i]);
		eq = strchr(buf, '=');
		if (eq)
			*eq = 0;
		if (!eq || rina_parse_uint(buf, 0, 65535, &v) ||
		    inet_pton(AF_INET, eq + 1, &a) != 1)
			return gen_fail("--tor %s: expected RACK=IPV4",
					g->tor[i]);
	}
	if (!strcmp(g->ina, "all") || !strcmp(g->ina, "none"))
		return 0;
	snprintf(buf, sizeof(buf), "%s", g->ina);
	for (tok = strtok_r(buf, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save))
		if (rina_parse_uint(tok, 0, 65535, &v))
			return gen_fail("--ina %s: expected all, none or a list of racks",
					g->ina);
	return 0;
}

static int cmp_rack(const void *a, const void *b)
{
	const struct gen_host *x = a, *y = b;

	if (x->rack != y->rack)
		return x->rack < y->rack ? -1 : 1;
	return x->order - y->order;
}

static void write_text(FILE *f, void *arg)
{
	const struct gen *g = arg;

	fwrite(g->text, 1, g->len, f);
}

static int build(struct gen *g)
{
	unsigned int rank = 0, k, last = ~0u;
	const char *tor;
	int i;

	for (i = 0; i < g->n; i++) {
		if (g->ranks_per_host)
			g->h[i].ranks = g->ranks_per_host;
		if (g->rack_size)
			g->h[i].rack = (unsigned int)i / g->rack_size;
		if (resolve(&g->h[i]))
			return RINACTL_EXIT_FAIL;
		if (rank + g->h[i].ranks > RINA_MAX_RANKS)
			return gen_fail("%s: %s: more than %d ranks in the job",
					g->h[i].where, g->h[i].name,
					RINA_MAX_RANKS);
		rank += g->h[i].ranks;
	}
	/* a rack's ranks consecutive, in the list's order */
	for (i = 0; i < g->n; i++)
		g->h[i].order = i;
	qsort(g->h, (size_t)g->n, sizeof(*g->h), cmp_rack);
	put(g, "# Rina job written by rinactl job gen: %d hosts, %u ranks\n",
	    g->n, rank);
	put(g, "job %u\n", g->job_id);
	for (i = 0; i < g->n_set; i++)
		put(g, "%s\n", g->set[i]);
	for (i = 0; i < g->n; i++) {
		if (g->h[i].rack == last)
			continue;
		last = g->h[i].rack;
		if (!rack_is_ina(g, last, &tor))
			put(g, "rack %u plain\n", last);
		else if (tor)
			put(g, "rack %u ina tor %s\n", last, tor);
		else
			put(g, "rack %u ina\n", last);
	}
	rank = 0;
	for (i = 0; i < g->n; i++) {
		put(g, "# %s\n", g->h[i].name);
		for (k = 0; k < g->h[i].ranks; k++)
			put(g, "rank %u %s:%u rack %u\n", rank++,
			    inet_ntoa(g->h[i].ip), RINA_UDP_PORT_WORKER + k,
			    g->h[i].rack);
	}
	if (g->len >= GEN_TEXT_MAX)
		return gen_fail("the job file would exceed %d bytes",
				GEN_TEXT_MAX);
	return 0;
}

int rinactl_job_gen(int argc, char **argv)
{
	static struct gen g;
	const char *hostfile = NULL, *nodelist = NULL, *out = NULL;
	struct rina_job_desc *job = NULL;
	char err[512];
	unsigned long v;
	bool slurm = false;
	int i, ret = RINACTL_EXIT_FAIL;

	memset(&g, 0, sizeof(g));
	g.ina = "none";
	for (i = 0; i < argc; i++) {
		const char *o = argv[i], *a = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(o, "-h") || !strcmp(o, "--help")) {
			gen_usage();
			return 0;
		}
		if (!strcmp(o, "--slurm")) {
			slurm = true;
			continue;
		}
		if (!a)
			return gen_usage();
		i++;
		if (!strcmp(o, "--hostfile")) {
			hostfile = a;
		} else if (!strcmp(o, "--nodelist")) {
			nodelist = a;
		} else if (!strcmp(o, "--ranks-per-host")) {
			if (rina_parse_uint(a, 1, GEN_PORTS, &v))
				return gen_fail("--ranks-per-host %s: expected 1..%d (a host has %d Rina worker ports)",
						a, GEN_PORTS, GEN_PORTS);
			g.ranks_per_host = (unsigned int)v;
		} else if (!strcmp(o, "--rack-size")) {
			if (rina_parse_uint(a, 1, RINA_MAX_RANKS, &v))
				return gen_fail("--rack-size %s: expected 1..%d",
						a, RINA_MAX_RANKS);
			g.rack_size = (unsigned int)v;
		} else if (!strcmp(o, "--rack-map")) {
			g.rack_map = a;
		} else if (!strcmp(o, "--ina")) {
			g.ina = a;
		} else if (!strcmp(o, "--tor")) {
			if (g.n_tor == 64)
				return gen_fail("more than 64 --tor");
			g.tor[g.n_tor++] = a;
		} else if (!strcmp(o, "--job")) {
			if (rina_parse_uint(a, 1, 65535, &v))
				return gen_fail("--job %s: expected 1..65535",
						a);
			g.job_id = (unsigned int)v;
		} else if (!strcmp(o, "--set")) {
			if (g.n_set == 32)
				return gen_fail("more than 32 --set");
			if (strchr(a, '\n'))
				return gen_fail("--set: one line only");
			g.set[g.n_set++] = a;
		} else if (!strcmp(o, "-o") || !strcmp(o, "--output")) {
			out = a;
		} else {
			return gen_usage();
		}
	}
	if (!!hostfile + !!nodelist + slurm != 1) {
		fprintf(stderr, "rinactl: job gen: give one of --hostfile, --slurm, --nodelist\n");
		return gen_usage();
	}
	if (g.rack_size && g.rack_map) {
		fprintf(stderr, "rinactl: job gen: --rack-size or --rack-map, not both\n");
		return gen_usage();
	}
	if (!g.job_id) {
		const char *id = getenv("SLURM_JOB_ID");

		if (!id || rina_parse_uint(id, 0, ~0ul, &v))
			return gen_fail("give --job ID (no SLURM_JOB_ID to take it from)");
		g.job_id = (unsigned int)(v % 65535 + 1);
	}
	if (check_rack_opts(&g))
		return RINACTL_EXIT_FAIL;
	g.h = calloc(RINA_NODELIST_MAX, sizeof(*g.h));
	hostnames = calloc(RINA_NODELIST_MAX, sizeof(*hostnames));
	g.text = malloc(GEN_TEXT_MAX + 1);
	job = malloc(sizeof(*job));
	if (!g.h || !hostnames || !g.text || !job) {
		gen_fail("out of memory");
		goto out;
	}
	if (hostfile) {
		if (read_hostfile(&g, hostfile))
			goto out;
	} else if (nodelist) {
		if (read_nodelist(&g, nodelist, "--nodelist"))
			goto out;
	} else {
		nodelist = getenv("SLURM_JOB_NODELIST");
		if (!nodelist) {
			gen_fail("--slurm: SLURM_JOB_NODELIST is not set (not inside a Slurm job?)");
			goto out;
		}
		if (read_nodelist(&g, nodelist, "SLURM_JOB_NODELIST"))
			goto out;
		if (!g.ranks_per_host && getenv("SLURM_TASKS_PER_NODE") &&
		    slurm_tasks(&g, getenv("SLURM_TASKS_PER_NODE")))
			goto out;
	}
	if (g.rack_map && read_rack_map(&g, g.rack_map))
		goto out;
	if (build(&g))
		goto out;
	/* the same parser as a hand-written file: nothing invalid leaves */
	g.text[g.len] = 0;
	if (rina_jobfile_parse_text(g.text, "generated job", job, err,
				    sizeof(err))) {
		gen_fail("%s", err);
		goto out;
	}
	if (!out) {
		fwrite(g.text, 1, g.len, stdout);
		ret = fflush(stdout) ? gen_fail("stdout: %s", strerror(errno))
				     : 0;
	} else if (rina_write_atomic(out, write_text, &g, err, sizeof(err))) {
		gen_fail("%s", err);
	} else {
		ret = 0;
	}
out:
	free(job);
	free(g.text);
	free(hostnames);
	free(g.h);
	return ret;
}
