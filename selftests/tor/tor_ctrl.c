// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * A client of the ToR control protocol (Documentation/protocol-ina.md §9):
 * send TOR_INSTALL or TOR_REMOVE for the job of a job file to a ToR and
 * print the status of its TOR_REPLY and whether the reply was signed
 * for us ("status N signed"), unsigned ("status N unsigned") or wrongly
 * signed ("status N forged"). When the job file has a secret the request
 * is signed (core/ctrl_auth.h), unless told otherwise:
 *   --unsigned      send it unsigned
 *   --bad-mac       sign it, then flip a bit of the MAC
 *   --stale         stamp it 60 s in the past
 *   --bad-hash      a job hash one bit off
 *   --job-id N      another job id
 *   --save FILE     keep the datagram sent (to replay it later)
 *   --save-only FILE  write the datagram to FILE, send nothing
 *   --replay FILE   send FILE's datagram instead of building one
 *   --reply FILE    keep the reply's datagram
 *   --session N     the session an install names (default 1); the ToR
 *                   tags the job for it (protocol.md 6.3)
 * Exit status: the reply's status, or 10 when no reply came within a
 * second.
 *
 *   tor_ctrl JOBFILE TOR_IPV4 install|remove [OPTION...]
 *   tor_ctrl JOBFILE tag [SESSION]
 * The second prints the job's data tag for a session (default 1;
 * rina_session_tag()) in hex, for the tests that send tagged packets to
 * a ToR and of the Python copy (test_ctrl_auth_py.py); the tools never
 * do.
 */
#include <arpa/inet.h>
#include <fcntl.h>
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
#include "secret.h"

static struct rina_job_desc job;
static struct rina_ctrl_guard guard;

struct opts {
	int job_id, bad_hash, unsigned_, bad_mac, stale, save_only;
	unsigned long long session;
	const char *save, *replay, *reply;
};

static int usage(void)
{
	fprintf(stderr, "usage: tor_ctrl JOBFILE TOR_IPV4 install|remove "
		"[--bad-hash] [--job-id N] [--unsigned] [--bad-mac] "
		"[--stale] [--save FILE] [--save-only FILE] "
		"[--replay FILE] [--reply FILE] [--session N]\n"
		"       tor_ctrl JOBFILE tag [SESSION]\n");
	return 2;
}

static int parse_opts(int argc, char **argv, struct opts *o)
{
	int i;

	o->job_id = -1;
	o->session = 1;
	for (i = 4; i < argc; i++) {
		if (!strcmp(argv[i], "--bad-hash"))
			o->bad_hash = 1;
		else if (!strcmp(argv[i], "--unsigned"))
			o->unsigned_ = 1;
		else if (!strcmp(argv[i], "--bad-mac"))
			o->bad_mac = 1;
		else if (!strcmp(argv[i], "--stale"))
			o->stale = 1;
		else if (!strcmp(argv[i], "--job-id") && i + 1 < argc)
			o->job_id = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--save") && i + 1 < argc)
			o->save = argv[++i];
		else if (!strcmp(argv[i], "--save-only") && i + 1 < argc)
			o->save = argv[++i], o->save_only = 1;
		else if (!strcmp(argv[i], "--replay") && i + 1 < argc)
			o->replay = argv[++i];
		else if (!strcmp(argv[i], "--reply") && i + 1 < argc)
			o->reply = argv[++i];
		else if (!strcmp(argv[i], "--session") && i + 1 < argc)
			o->session = strtoull(argv[++i], NULL, 0);
		else
			return -1;
	}
	return 0;
}

/* The request, built or read back; its length, or -1. */
static ssize_t request(struct rina_ctrl_msg *m, const char *op,
		       const struct opts *o, __be32 to_ip, __be16 to_port)
{
	const __u8 *key = job.has_secret && !o->unsigned_ ? job.secret : NULL;
	__u64 stamp;
	ssize_t n;
	int fd;

	if (o->replay) {
		fd = open(o->replay, O_RDONLY);
		if (fd < 0)
			return -1;
		n = read(fd, m, sizeof(*m));
		close(fd);
		return n;
	}
	memset(m, 0, sizeof(*m));
	m->h.ver_op = RINA_VERSION << 4 | RINA_OP_CTRL;
	m->h.job_id = htons((__u16)(o->job_id >= 0 ? o->job_id : job.job_id));
	m->h.exp = RINA_EXP_NONE;
	rina_ctrl_set_session(&m->h, o->session);
	m->c.type = htonl(strcmp(op, "install") ? RINA_CTRL_TOR_REMOVE :
						  RINA_CTRL_TOR_INSTALL);
	m->c.hash = htobe64(rina_job_hash(&job) ^ (o->bad_hash ? 1 : 0));
	stamp = rina_ctrl_stamp();
	if (o->stale)
		stamp -= 2 * RINA_CTRL_WINDOW_US;
	n = rina_ctrl_seal(m, key, rina_siphash24, stamp, to_ip, to_port);
	if (o->bad_mac)
		m->a.mac[0] ^= 1;
	return n;
}

static int save(const char *path, const void *buf, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	int ok = fd >= 0 && write(fd, buf, len) == (ssize_t)len;

	if (fd >= 0)
		close(fd);
	return ok ? 0 : -1;
}

int main(int argc, char **argv)
{
	struct sockaddr_in to = { .sin_family = AF_INET,
				  .sin_port = htons(RINA_UDP_PORT_AGENT) };
	struct sockaddr_in me = { .sin_family = AF_INET,
				  .sin_port = htons(RINA_UDP_PORT_WORKER) };
	socklen_t mlen = sizeof(me);
	struct rina_ctrl_msg req;
	unsigned char in[256];
	struct opts o = { 0 };
	struct pollfd pfd;
	char err[256];
	int fd;
	ssize_t n, len;

	if ((argc == 3 || argc == 4) && !strcmp(argv[2], "tag")) {
		__u8 tag[RINA_TAG_LEN];

		if (rina_jobfile_parse(argv[1], &job, err, sizeof(err)) ||
		    !job.has_secret) {
			fprintf(stderr, "tor_ctrl: %s\n", job.has_secret ? err :
				"the job has no secret");
			return 2;
		}
		rina_session_tag(job.secret, rina_siphash24, job.job_id,
				 argc == 4 ? strtoull(argv[3], NULL, 0) : 1,
				 tag);
		printf("%016llx\n", (unsigned long long)rina_get_be64(tag));
		return 0;
	}
	if (argc < 4 || inet_pton(AF_INET, argv[2], &to.sin_addr) != 1 ||
	    (strcmp(argv[3], "install") && strcmp(argv[3], "remove")) ||
	    parse_opts(argc, argv, &o))
		return usage();
	if (rina_jobfile_parse(argv[1], &job, err, sizeof(err))) {
		fprintf(stderr, "tor_ctrl: %s\n", err);
		return 2;
	}
	if (o.save_only) {
		len = request(&req, argv[3], &o, to.sin_addr.s_addr,
			      to.sin_port);
		return len <= 0 || save(o.save, &req, (size_t)len) ? 2 : 0;
	}
	fd = socket(AF_INET, SOCK_DGRAM, 0);
	if (fd < 0 || bind(fd, (struct sockaddr *)&me, sizeof(me)) ||
	    connect(fd, (struct sockaddr *)&to, sizeof(to)) ||
	    getsockname(fd, (struct sockaddr *)&me, &mlen)) {
		perror("tor_ctrl");
		return 2;
	}
	len = request(&req, argv[3], &o, to.sin_addr.s_addr, to.sin_port);
	if (len <= 0 || (o.save && save(o.save, &req, (size_t)len)) ||
	    send(fd, &req, (size_t)len, 0) != len) {
		perror("tor_ctrl");
		return 2;
	}
	pfd.fd = fd;
	pfd.events = POLLIN;
	while (poll(&pfd, 1, 1000) > 0) {
		const struct rina_hdr *h = (const struct rina_hdr *)in;
		const struct rina_ctrl *c;
		const char *how = "unsigned";

		n = recv(fd, in, sizeof(in), 0);
		c = (const struct rina_ctrl *)(in + RINA_HDR_LEN);
		if (n < RINA_HDR_LEN || rina_hdr_check(h, (unsigned int)n) ||
		    rina_hdr_opcode(h) != RINA_OP_CTRL ||
		    ntohl(c->type) != RINA_CTRL_TOR_REPLY)
			continue;
		if (ntohs(h->n_elem) == RINA_CTRL_AUTH_WORDS)
			how = job.has_secret &&
			      rina_ctrl_check(&guard, h, job.secret,
					      rina_siphash24, rina_wall_us(),
					      me.sin_addr.s_addr,
					      me.sin_port) == RINA_CTRL_OK ?
			      "signed" : "forged";
		if (o.reply && save(o.reply, in, (size_t)n))
			perror("tor_ctrl: --reply");
		printf("status %u %s\n", ntohl(c->arg), how);
		return (int)ntohl(c->arg);
	}
	printf("no reply\n");
	return 10;
}
