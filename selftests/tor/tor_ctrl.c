// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * A client of the ToR control protocol (Documentation/protocol-ina.md §9):
 * send TOR_INSTALL or TOR_REMOVE for the job of a job file to a ToR and
 * print the status of its TOR_REPLY. Exit status: the reply's status, or
 * 10 when no reply came within a second.
 *
 *   tor_ctrl JOBFILE TOR_IPV4 install|remove [--bad-hash] [--job-id N]
 */
#include <arpa/inet.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include "compat.h"
#include "wire.h"
#include "plan.h"
#include "jobfile.h"

static struct rina_job_desc job;

int main(int argc, char **argv)
{
	struct sockaddr_in to = { .sin_family = AF_INET,
				  .sin_port = htons(RINA_UDP_PORT_AGENT) };
	struct sockaddr_in me = { .sin_family = AF_INET,
				  .sin_port = htons(RINA_UDP_PORT_WORKER) };
	unsigned char buf[RINA_HDR_LEN + 16], in[256];
	struct rina_hdr *h = (struct rina_hdr *)buf;
	struct rina_ctrl *c = (struct rina_ctrl *)(buf + RINA_HDR_LEN);
	struct pollfd pfd;
	char err[256];
	__u64 hash;
	int fd, i, job_id = -1, bad = 0;
	ssize_t n;

	if (argc < 4 || inet_pton(AF_INET, argv[2], &to.sin_addr) != 1 ||
	    (strcmp(argv[3], "install") && strcmp(argv[3], "remove"))) {
		fprintf(stderr, "usage: tor_ctrl JOBFILE TOR_IPV4 "
			"install|remove [--bad-hash] [--job-id N]\n");
		return 2;
	}
	for (i = 4; i < argc; i++) {
		if (!strcmp(argv[i], "--bad-hash"))
			bad = 1;
		else if (!strcmp(argv[i], "--job-id") && i + 1 < argc)
			job_id = atoi(argv[++i]);
	}
	if (rina_jobfile_parse(argv[1], &job, err, sizeof(err))) {
		fprintf(stderr, "tor_ctrl: %s\n", err);
		return 2;
	}
	hash = rina_job_hash(&job) ^ (bad ? 1 : 0);
	memset(buf, 0, sizeof(buf));
	h->ver_op = RINA_VERSION << 4 | RINA_OP_CTRL;
	h->job_id = htons((__u16)(job_id >= 0 ? job_id : job.job_id));
	h->n_elem = htons(RINA_CTRL_WORDS);
	h->exp = RINA_EXP_NONE;
	c->type = htonl(strcmp(argv[3], "install") ? RINA_CTRL_TOR_REMOVE :
						     RINA_CTRL_TOR_INSTALL);
	c->hash = htobe64(hash);
	fd = socket(AF_INET, SOCK_DGRAM, 0);
	if (fd < 0 || bind(fd, (struct sockaddr *)&me, sizeof(me)) ||
	    sendto(fd, buf, sizeof(buf), 0, (struct sockaddr *)&to,
		   sizeof(to)) != (ssize_t)sizeof(buf)) {
		perror("tor_ctrl");
		return 2;
	}
	pfd.fd = fd;
	pfd.events = POLLIN;
	while (poll(&pfd, 1, 1000) > 0) {
		n = recv(fd, in, sizeof(in), 0);
		h = (struct rina_hdr *)in;
		c = (struct rina_ctrl *)(in + RINA_HDR_LEN);
		if (n != (ssize_t)sizeof(buf) || rina_hdr_check(h, (unsigned)n) ||
		    rina_hdr_opcode(h) != RINA_OP_CTRL ||
		    ntohl(c->type) != RINA_CTRL_TOR_REPLY)
			continue;
		printf("status %u\n", ntohl(c->arg));
		return (int)ntohl(c->arg);
	}
	printf("no reply\n");
	return 10;
}
