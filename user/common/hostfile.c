// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * The line parsers of rinactl job gen (hostfile.h): each takes one line
 * or one variable's text, never a file or a name lookup, so rinactl and
 * the fuzzer run the same code.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hostfile.h"

/* Only digits (strtoul alone takes blanks, signs and overflow). */
int rina_parse_uint(const char *s, unsigned long min, unsigned long max,
		    unsigned long *v)
{
	char *end;

	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	*v = strtoul(s, &end, 10);
	return errno || *end || *v < min || *v > max ? -1 : 0;
}

/* Digits at *s (at most 9: no overflow), *s moved past them. */
static int parse_digits(const char **s, unsigned long *v)
{
	const char *p = *s;

	*v = 0;
	while (*p >= '0' && *p <= '9' && p - *s < 9)
		*v = *v * 10 + (unsigned long)(*p++ - '0');
	if (p == *s || (*p >= '0' && *p <= '9'))
		return -1;
	*s = p;
	return 0;
}

static char *trim(char *s)
{
	char *e;

	while (*s == ' ' || *s == '\t')
		s++;
	e = s + strlen(s);
	while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\n' ||
			 e[-1] == '\r'))
		*--e = 0;
	return s;
}

/*
 * What a host name may hold (RFC 1123 and '_'): it is looked up and
 * written into the job file's comments, and anything else is a line
 * read wrongly.
 */
static bool host_name_ok(const char *name)
{
	size_t len = strlen(name);

	if (!len || len >= RINA_HOSTNAME_MAX)
		return false;
	return strspn(name, "abcdefghijklmnopqrstuvwxyz"
			    "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._") == len;
}

int rina_hostfile_line(char *line, const char **name, unsigned int *slots,
		       char *err, size_t errlen)
{
	char *s, *tok, *save = NULL, *colon;
	unsigned long n = 1, v;

	s = strchr(line, '#');
	if (s)
		*s = 0;
	s = trim(line);
	if (!*s)
		return 0;
	*name = strtok_r(s, " \t", &save);
	colon = strchr(*name, ':');
	if (colon) {
		*colon = 0;
		if (rina_parse_uint(colon + 1, 1, RINA_HOST_PORTS, &n)) {
			snprintf(err, errlen,
				 "\"%.40s\": expected host:N with N in 1..%d",
				 colon + 1, RINA_HOST_PORTS);
			return -1;
		}
	}
	while ((tok = strtok_r(NULL, " \t", &save))) {
		if (!strncmp(tok, "slots=", 6) && !colon) {
			if (rina_parse_uint(tok + 6, 1, RINA_HOST_PORTS, &n)) {
				snprintf(err, errlen,
					 "\"%.40s\": slots must be a number in 1..%d",
					 tok, RINA_HOST_PORTS);
				return -1;
			}
		} else if (!strncmp(tok, "max_slots=", 10) &&
			   !rina_parse_uint(tok + 10, 1, 1u << 20, &v)) {
			continue;	/* mpirun's cap, not ranks */
		} else {
			snprintf(err, errlen,
				 "\"%.40s\": expected \"host [slots=N]\" or \"host:N\"",
				 tok);
			return -1;
		}
	}
	if (!host_name_ok(*name)) {
		snprintf(err, errlen,
			 "\"%.40s%s\" is not a host name (letters, digits, '-', '.', '_'; at most %d)",
			 *name, strlen(*name) > 40 ? "..." : "",
			 RINA_HOSTNAME_MAX - 1);
		return -1;
	}
	*slots = (unsigned int)n;
	return 1;
}

int rina_rackmap_line(char *line, const char **host, unsigned int *rack,
		      struct in_addr *ip, bool *have_ip, char *err,
		      size_t errlen)
{
	char *save = NULL, *s, *r, *a, *extra;
	unsigned long v;

	s = strchr(line, '#');
	if (s)
		*s = 0;
	*host = strtok_r(line, " \t\r\n", &save);
	if (!*host)
		return 0;
	r = strtok_r(NULL, " \t\r\n", &save);
	a = strtok_r(NULL, " \t\r\n", &save);
	extra = strtok_r(NULL, " \t\r\n", &save);
	if (!r || extra) {
		snprintf(err, errlen, "expected \"HOST RACK [IPV4]\"");
		return -1;
	}
	if (rina_parse_uint(r, 0, 65535, &v)) {
		snprintf(err, errlen,
			 "rack \"%.40s\" is not a number in 0..65535", r);
		return -1;
	}
	*rack = (unsigned int)v;
	*have_ip = a;
	if (a && inet_pton(AF_INET, a, ip) != 1) {
		snprintf(err, errlen, "\"%.40s\" is not an IPv4 address", a);
		return -1;
	}
	return 1;
}

int rina_tasks_per_node(const char *s, unsigned int *ranks, int n,
			char *err, size_t errlen)
{
	const char *p = s;
	int i = 0;

	while (*p) {
		unsigned long k, rep = 1;

		if (parse_digits(&p, &k))
			goto bad;
		if (!strncmp(p, "(x", 2)) {
			p += 2;
			if (parse_digits(&p, &rep) || !rep || *p != ')')
				goto bad;
			p++;
		}
		if (!k || k > RINA_HOST_PORTS) {
			snprintf(err, errlen,
				 "%lu ranks on host %d, but a host has %d Rina worker ports (21056..21063)",
				 k, i + 1, RINA_HOST_PORTS);
			return -1;
		}
		if (rep > (unsigned long)(n - i))
			goto bad;
		while (rep--)
			ranks[i++] = (unsigned int)k;
		if (*p == ',' && p[1])
			p++;
		else if (*p)
			goto bad;
	}
	if (i == n)
		return 0;
bad:
	snprintf(err, errlen,
		 "\"%.60s\" does not give a count for each of the %d hosts",
		 s, n);
	return -1;
}
