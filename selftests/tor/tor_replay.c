// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * Replay packet vectors against a live switch: each "in" frame is sent on
 * the interface wired to that switch port, and the frames coming back on
 * all interfaces must be exactly the "out" frames that follow it (as a
 * multiset: replicas on different ports may come in any order). Only
 * IPv4/UDP frames are compared (the kernel's own IGMP/ARP chatter on the
 * links is ignored), so files with other traffic do not fit. "cli" and
 * "counter" lines are skipped: the switch under test was configured on its
 * own. Used by test_rina_tor.sh against rina-tor. Prints KTAP.
 *
 *   tor_replay IF0,IF1,... FILE.vec...    (IFn is wired to switch port n)
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <net/if.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include "vec_hex.h"
#include "../ktap.h"

#define MAX_IF		8
#define MAX_FRAME	9216
#define MAX_OUT		64

struct frame {
	int	port;
	int	len;
	unsigned char data[MAX_FRAME];
	int	matched;
};

static int fds[MAX_IF], ifx[MAX_IF], n_if;
static struct frame want[MAX_OUT], got[MAX_OUT];

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

static void drain(void)
{
	unsigned char b[64];
	int i;

	for (i = 0; i < n_if; i++)
		while (recv(fds[i], b, sizeof(b), MSG_DONTWAIT) > 0)
			;
}

/* Collect frames until nwant arrived and a quiet grace period passed. */
static int collect(int nwant)
{
	struct pollfd pfd[MAX_IF];
	long long end = now_ms() + (nwant ? 1000 : 60), quiet = 0;
	int i, n = 0;

	for (i = 0; i < n_if; i++) {
		pfd[i].fd = fds[i];
		pfd[i].events = POLLIN;
	}
	while (now_ms() < end) {
		if (n >= nwant && !quiet)
			quiet = now_ms() + 40;
		if (quiet && now_ms() >= quiet)
			break;
		if (poll(pfd, (nfds_t)n_if, 10) <= 0)
			continue;
		for (i = 0; i < n_if; i++) {
			ssize_t len;

			if (!(pfd[i].revents & POLLIN))
				continue;
			while (n < MAX_OUT &&
			       (len = recv(fds[i], got[n].data, MAX_FRAME,
					   MSG_DONTWAIT)) > 0) {
				if (len < 34 || got[n].data[12] != 8 ||
				    got[n].data[13] != 0 ||
				    got[n].data[23] != 17)
					continue;	/* not IPv4/UDP */
				got[n].port = i;
				got[n].len = (int)len;
				got[n].matched = 0;
				n++;
			}
		}
	}
	return n;
}

static void dump(const char *what, const struct frame *f)
{
	int i;

	printf("#   %s port %d len %d: ", what, f->port, f->len);
	for (i = 0; i < f->len && i < 96; i++)
		printf("%02x", f->data[i]);
	printf("%s\n", f->len > 96 ? "..." : "");
}

static int check(const char *file, int line, int nwant, int ngot)
{
	int i, j, bad = 0;

	for (i = 0; i < nwant; i++) {
		want[i].matched = 0;
		for (j = 0; j < ngot; j++) {
			if (got[j].matched || got[j].port != want[i].port ||
			    got[j].len != want[i].len ||
			    memcmp(got[j].data, want[i].data, (size_t)want[i].len))
				continue;
			got[j].matched = want[i].matched = 1;
			break;
		}
	}
	for (i = 0; i < nwant; i++)
		if (!want[i].matched) {
			if (!bad++)
				printf("# %s:%d: output differs\n", file, line);
			dump("missing", &want[i]);
		}
	for (j = 0; j < ngot; j++)
		if (!got[j].matched) {
			if (!bad++)
				printf("# %s:%d: output differs\n", file, line);
			dump("extra", &got[j]);
		}
	return bad;
}

static int run_file(const char *file)
{
	static char line[4 * MAX_FRAME];
	static unsigned char frame[MAX_FRAME];
	int lineno = 0, in_line = 0, nwant = 0, pending = 0, bad = 0, n;
	FILE *f = fopen(file, "r");

	if (!f)
		return 1;
	drain();
	while (fgets(line, sizeof(line), f) && !bad) {
		char *p = line, *arg;
		int port;

		lineno++;
		while (isspace((unsigned char)*p))
			p++;
		if (!*p || *p == '#')
			continue;
		arg = strchr(p, ' ');
		if (arg)
			*arg++ = 0;
		else
			arg = p + strlen(p);
		if (strcmp(p, "out") && pending) {
			bad |= check(file, in_line, nwant, collect(nwant));
			pending = 0;
		}
		if (!strcmp(p, "in")) {
			struct sockaddr_ll sll = { .sll_family = AF_PACKET,
						   .sll_halen = 6 };

			if (sscanf(arg, "%d", &port) != 1 || port < 0 ||
			    port >= n_if || !strchr(arg, ' ') ||
			    (n = vec_hex(strchr(arg, ' '), frame, MAX_FRAME)) < 14)
				return printf("# %s:%d: bad in\n", file,
					      lineno), 1;
			sll.sll_ifindex = ifx[port];
			memcpy(sll.sll_addr, frame, 6);
			if (sendto(fds[port], frame, (size_t)n, 0,
				   (struct sockaddr *)&sll, sizeof(sll)) != n)
				return printf("# %s:%d: send: %s\n", file,
					      lineno, strerror(errno)), 1;
			in_line = lineno;
			nwant = 0;
			pending = 1;
		} else if (!strcmp(p, "out")) {
			if (nwant == MAX_OUT || sscanf(arg, "%d", &port) != 1 ||
			    !strchr(arg, ' ') ||
			    (n = vec_hex(strchr(arg, ' '), want[nwant].data,
				     MAX_FRAME)) < 0)
				return printf("# %s:%d: bad out\n", file,
					      lineno), 1;
			want[nwant].port = port;
			want[nwant].len = n;
			nwant++;
		}
	}
	if (pending && !bad)
		bad |= check(file, in_line, nwant, collect(nwant));
	fclose(f);
	return bad;
}

int main(int argc, char **argv)
{
	char *list, *tok, *save;
	int i, one = 1;

	if (argc < 3) {
		fprintf(stderr, "usage: tor_replay IF0,IF1,... FILE.vec...\n");
		return 2;
	}
	list = strdup(argv[1]);
	if (!list)
		return 1;
	for (tok = strtok_r(list, ",", &save); tok && n_if < MAX_IF;
	     tok = strtok_r(NULL, ",", &save)) {
		struct sockaddr_ll sll = { .sll_family = AF_PACKET,
					   .sll_protocol = htons(ETH_P_ALL) };

		ifx[n_if] = (int)if_nametoindex(tok);
		fds[n_if] = socket(AF_PACKET, SOCK_RAW, htons(ETH_P_ALL));
		sll.sll_ifindex = ifx[n_if];
		if (!ifx[n_if] || fds[n_if] < 0 ||
		    setsockopt(fds[n_if], SOL_PACKET, PACKET_IGNORE_OUTGOING,
			       &one, sizeof(one)) ||
		    bind(fds[n_if], (struct sockaddr *)&sll, sizeof(sll))) {
			fprintf(stderr, "tor_replay: %s: %s\n", tok,
				strerror(errno));
			free(list);
			return 1;
		}
		n_if++;
	}
	free(list);	/* the names are only needed to open the sockets */
	ktap_plan(argc - 2);
	for (i = 2; i < argc; i++) {
		const char *name = strrchr(argv[i], '/');
		int bad = run_file(argv[i]);

		ktap_result(!bad, "%s", name ? name + 1 : argv[i]);
	}
	return ktap_finish();
}
