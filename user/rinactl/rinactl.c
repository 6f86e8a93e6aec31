// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * rinactl: control CLI for Rina. Parses the global options and hands
 * the rest of the command line to the registered subcommand.
 */
#include <stdlib.h>
#include <string.h>

#include "rinactl.h"

struct rinactl_opts rinactl_opts;

extern const struct rinactl_cmd __start_rinactl_cmds[];
extern const struct rinactl_cmd __stop_rinactl_cmds[];

bool rinactl_matches(const char *arg, const char *word)
{
	size_t n = strlen(arg);

	return n && n <= strlen(word) && !strncmp(arg, word, n);
}

static void usage(FILE *f)
{
	const struct rinactl_cmd *c;

	fprintf(f, "Usage: rinactl [-j] [-p] [-v] OBJECT COMMAND...\n");
	fprintf(f, "       rinactl -V\n");
	for (c = __start_rinactl_cmds; c < __stop_rinactl_cmds; c++)
		fprintf(f, "       rinactl %s\n", c->help);
}

int main(int argc, char **argv)
{
	const struct rinactl_cmd *c, *found = NULL;
	int i;

	for (i = 1; i < argc && argv[i][0] == '-'; i++) {
		const char *o = argv[i];

		if (!strcmp(o, "-j") || !strcmp(o, "-json")) {
			rinactl_opts.json = true;
		} else if (!strcmp(o, "-p") || !strcmp(o, "-pretty")) {
			rinactl_opts.pretty = true;
		} else if (!strcmp(o, "-v") || !strcmp(o, "-vv")) {
			rinactl_opts.verbose += (int)strlen(o) - 1;
		} else if (!strcmp(o, "-h") || !strcmp(o, "-help") ||
			   !strcmp(o, "--help")) {
			usage(stdout);
			return 0;
		} else if (!strcmp(o, "-V") || !strcmp(o, "-Version") ||
			   !strcmp(o, "--version")) {
			/* the release, from the top VERSION file (user/build.mk) */
			printf("rinactl %s\n", RINA_RELEASE);
			return 0;
		} else {
			fprintf(stderr, "rinactl: unknown option \"%s\"\n", o);
			usage(stderr);
			return RINACTL_EXIT_USAGE;
		}
	}
	if (i >= argc) {
		usage(stderr);
		return RINACTL_EXIT_USAGE;
	}
	for (c = __start_rinactl_cmds; c < __stop_rinactl_cmds; c++) {
		if (!strcmp(argv[i], c->name)) {
			found = c;
			break;
		}
		if (!found && rinactl_matches(argv[i], c->name))
			found = c;
	}
	if (!found) {
		fprintf(stderr, "rinactl: unknown object \"%s\"\n", argv[i]);
		usage(stderr);
		return RINACTL_EXIT_USAGE;
	}
	return found->fn(argc - i, argv + i);
}
