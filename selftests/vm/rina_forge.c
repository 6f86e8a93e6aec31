// SPDX-License-Identifier: GPL-2.0
/*
 * A small injector for the guest tests (selftests/vm/agent_e2e.sh):
 * COUNT forged Rina datagrams of one kind, unsigned and untagged, sent
 * from BIND_IP:BIND_PORT (a party the receiver talks to: a local
 * worker's address and port) to DST_IP:DST_PORT. Kinds: hello, abort
 * (control messages without a MAC) and contrib (an SR_CONTRIB without
 * the job's data tag). Paced (a pause every 32 datagrams) so that the
 * receiver's socket buffer holds them all. Bounded by COUNT (<= 100000).
 *   rina_forge BIND_IP BIND_PORT DST_IP DST_PORT JOB SRC_ID KIND COUNT
 */
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <linux/rina.h>

#define ELEMS	64

static int usage(void)
{
	fputs("usage: rina_forge BIND_IP BIND_PORT DST_IP DST_PORT JOB SRC_ID\n"
	      "                  hello|abort|contrib COUNT\n", stderr);
	return 2;
}

static int addr(struct sockaddr_in *sin, const char *ip, const char *port)
{
	memset(sin, 0, sizeof(*sin));
	sin->sin_family = AF_INET;
	sin->sin_port = htons((unsigned short)strtoul(port, NULL, 0));
	return inet_pton(AF_INET, ip, &sin->sin_addr) == 1 ? 0 : -1;
}

int main(int argc, char **argv)
{
	unsigned char buf[RINA_HDR_LEN + ELEMS * 4];
	struct rina_hdr *h = (struct rina_hdr *)buf;
	struct timespec pause = { 0, 2000000 };
	struct sockaddr_in src, dst;
	unsigned long i, count;
	size_t len;
	int fd;

	if (argc != 9 || addr(&src, argv[1], argv[2]) ||
	    addr(&dst, argv[3], argv[4]))
		return usage();
	count = strtoul(argv[8], NULL, 0);
	if (!count || count > 100000)
		return usage();
	memset(buf, 0, sizeof(buf));
	h->job_id = htons((unsigned short)strtoul(argv[5], NULL, 0));
	h->src_id = htons((unsigned short)strtoul(argv[6], NULL, 0));
	h->exp = RINA_EXP_NONE;
	if (!strcmp(argv[7], "hello") || !strcmp(argv[7], "abort")) {
		struct rina_ctrl *c = (struct rina_ctrl *)(h + 1);

		h->ver_op = RINA_VERSION << 4 | RINA_OP_CTRL;
		h->n_elem = htons(RINA_CTRL_WORDS);
		c->type = htonl(argv[7][0] == 'h' ? RINA_CTRL_HELLO :
				RINA_CTRL_ABORT);
		len = RINA_HDR_LEN + sizeof(*c);
	} else if (!strcmp(argv[7], "contrib")) {
		h->ver_op = RINA_VERSION << 4 | RINA_OP_SR_CONTRIB;
		h->n_elem = htons(ELEMS);
		h->p_chunk = htons(1);
		h->num_contrib = htons(1);
		h->flags = RINA_F_LAST;
		h->dtype_op = RINA_DTYPE_OP(RINA_WIRE_INT32, RINA_WIRE_SUM);
		memset(h + 1, 0x7f, ELEMS * 4);	/* garbage to add */
		len = sizeof(buf);
	} else {
		return usage();
	}
	fd = socket(AF_INET, SOCK_DGRAM, 0);
	if (fd < 0 || bind(fd, (struct sockaddr *)&src, sizeof(src))) {
		perror("rina_forge: bind");
		return 1;
	}
	for (i = 0; i < count; i++) {
		if (h->ver_op == (RINA_VERSION << 4 | RINA_OP_SR_CONTRIB)) {
			h->round = htons((unsigned short)(i % 4));
			h->seq = htonl((unsigned int)i);
		}
		if (sendto(fd, buf, len, 0, (struct sockaddr *)&dst,
			   sizeof(dst)) != (ssize_t)len) {
			perror("rina_forge: sendto");
			return 1;
		}
		if (i % 32 == 31)
			nanosleep(&pause, NULL);
	}
	close(fd);
	return 0;
}
