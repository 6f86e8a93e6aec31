// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * Expander of Slurm's compressed host lists (nodelist.h), for rinactl
 * job gen --slurm: top-level commas separate names; each bracket group
 * is a comma list of numbers and LO-HI ranges, zero-padded to LO's width.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nodelist.h"

struct expand {
	char	(*out)[RINA_HOSTNAME_MAX];
	int	n, max;
	char	*err;
	size_t	errlen;
};

static int bad(struct expand *x, const char *what, const char *at)
{
	snprintf(x->err, x->errlen, "%s at \"%.40s\"", what, at);
	return -1;
}

static int add(struct expand *x, const char *name, size_t len)
{
	if (len >= RINA_HOSTNAME_MAX) {
		snprintf(x->err, x->errlen, "host name too long");
		return -1;
	}
	if (x->n == x->max) {
		snprintf(x->err, x->errlen, "more than %d hosts", x->max);
		return -1;
	}
	memcpy(x->out[x->n], name, len);
	x->out[x->n][len] = 0;
	x->n++;
	return 0;
}

/* A number of at most 9 digits at *s; its digit count in *width. */
static int number(const char **s, long *v, int *width)
{
	const char *p = *s;

	while (*p >= '0' && *p <= '9')
		p++;
	*width = (int)(p - *s);
	if (!*width || *width > 9)
		return -1;
	*v = strtol(*s, NULL, 10);
	*s = p;
	return 0;
}

/* name[0..len) done so far, rest still to expand (up to end). */
static int expand_name(struct expand *x, const char *done, size_t len,
		       const char *rest, const char *end)
{
	const char *open = memchr(rest, '[', (size_t)(end - rest));
	const char *close, *p;
	char buf[RINA_HOSTNAME_MAX];
	size_t pre;

	if (!open) {
		if (memchr(rest, ']', (size_t)(end - rest)))
			return bad(x, "\"]\" without \"[\"", rest);
		if (len + (size_t)(end - rest) >= sizeof(buf))
			return bad(x, "host name too long", rest);
		memcpy(buf, done, len);
		memcpy(buf + len, rest, (size_t)(end - rest));
		return add(x, buf, len + (size_t)(end - rest));
	}
	if (memchr(rest, ']', (size_t)(open - rest)))
		return bad(x, "\"]\" without \"[\"", rest);
	close = memchr(open, ']', (size_t)(end - open));
	if (!close)
		return bad(x, "\"[\" without \"]\"", open);
	pre = (size_t)(open - rest);
	if (len + pre + 10 >= sizeof(buf))
		return bad(x, "host name too long", rest);
	memcpy(buf, done, len);
	memcpy(buf + len, rest, pre);
	for (p = open + 1; p < close; ) {
		long lo, hi, v;
		int w, w2;

		if (number(&p, &lo, &w))
			return bad(x, "expected a number", p);
		hi = lo;
		if (*p == '-') {
			p++;
			if (number(&p, &hi, &w2))
				return bad(x, "expected a number", p);
			if (hi < lo)
				return bad(x, "range runs backwards", p);
		}
		if (p < close && *p != ',')
			return bad(x, "expected \",\", \"-\" or \"]\"", p);
		if (*p == ',' && ++p == close)
			return bad(x, "empty range", p);
		if (hi - lo >= x->max - x->n) {
			snprintf(x->err, x->errlen, "more than %d hosts",
				 x->max);
			return -1;
		}
		for (v = lo; v <= hi; v++) {
			int n = snprintf(buf + len + pre,
					 sizeof(buf) - len - pre, "%0*ld", w,
					 v);

			if (expand_name(x, buf, len + pre + (size_t)n,
					close + 1, end))
				return -1;
		}
	}
	if (open + 1 == close)
		return bad(x, "empty range", open);
	return 0;
}

int rina_nodelist_expand(const char *list, char (*out)[RINA_HOSTNAME_MAX],
			 int max, char *err, size_t errlen)
{
	struct expand x = { .out = out, .max = max, .err = err,
			    .errlen = errlen };
	const char *s = list, *p;
	int depth;

	if (!*list) {
		snprintf(err, errlen, "empty host list");
		return -1;
	}
	while (*s) {
		/* the next top-level comma ends this name */
		for (p = s, depth = 0; *p && (depth || *p != ','); p++) {
			if (*p == '[')
				depth++;
			else if (*p == ']' && depth)
				depth--;
			if (*p == ' ' || *p == '\t' || *p == '\n')
				return bad(&x, "blank in a host list", p);
		}
		if (depth)
			return bad(&x, "\"[\" without \"]\"", s);
		if (p == s)
			return bad(&x, "empty host name", s);
		if (expand_name(&x, "", 0, s, p))
			return -1;
		s = *p ? p + 1 : p;
		if (*p && !*s)
			return bad(&x, "empty host name", p);
	}
	return x.n;
}
