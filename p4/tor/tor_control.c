// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * The ToR control protocol (Documentation/protocol-ina.md, "The ToR
 * control protocol"): an agent's TOR_INSTALL or TOR_REMOVE, a CTRL to
 * the ToR's own address and port 0x524f, is handled here and never seen
 * by the model; the answer is a TOR_REPLY with an enum rina_tor_status.
 * In a job with a secret requests and replies are signed (core/ctrl_auth.h).
 */
#include <arpa/inet.h>
#include <net/if.h>
#include <netinet/in.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "tor.h"
#include "ctrl_auth.h"
#include "secret.h"

#define CTRL_MSG_OFF	offsetof(struct tor_ctrl_frame, m)
#define CTRL_PLAIN_LEN	(RINA_HDR_LEN + 4 * RINA_CTRL_WORDS)
#define CTRL_SIGNED_LEN	(RINA_HDR_LEN + 4 * RINA_CTRL_AUTH_WORDS)

_Static_assert(CTRL_MSG_OFF == RINA_TOR_RINA_OFF,
	       "the Rina header where the model parses it");
_Static_assert(sizeof(struct rina_ctrl_msg) == CTRL_SIGNED_LEN,
	       "a signed control message is struct rina_ctrl_msg");

struct ctrl_ctr ctrl_ctr[MAX_TOR_JOBS];
__u64 ctrl_unknown;
/* each job's accepted stamps per sender (ctrl_auth.h) */
static struct rina_ctrl_guard ctrl_guard[MAX_TOR_JOBS];

static __be32 my_ip;		/* the bridge's address; 0: no control */
static __u8 my_mac[ETH_ALEN];

void tor_control_set(__be32 ip, const __u8 mac[ETH_ALEN])
{
	__u64 start = rina_wall_us();
	int k;

	my_ip = ip;
	memcpy(my_mac, mac, ETH_ALEN);
	/* nothing signed before the ToR started is for it (ctrl_auth.h) */
	for (k = 0; k < MAX_TOR_JOBS; k++)
		rina_ctrl_guard_init(&ctrl_guard[k], start);
}

void tor_control_addr(const char *bridge)
{
	struct ifreq ifr = { 0 };
	__u8 mac[ETH_ALEN] = { 0 };
	__be32 ip = 0;
	int fd = socket(AF_INET, SOCK_DGRAM, 0);

	if (fd < 0)
		return;
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", bridge);
	if (!ioctl(fd, SIOCGIFADDR, &ifr))
		ip = ((struct sockaddr_in *)&ifr.ifr_addr)->sin_addr.s_addr;
	if (!ioctl(fd, SIOCGIFHWADDR, &ifr))
		memcpy(mac, ifr.ifr_hwaddr.sa_data, ETH_ALEN);
	close(fd);
	tor_control_set(ip, mac);
}

/*
 * The reply to the request req: Ethernet, IPv4 and UDP from our address
 * and port 0x524f to the sender's, then m, sealed for the sender's
 * ip:port with key (NULL: unsigned). Returns the frame's length.
 */
static unsigned int reply_frame(struct tor_ctrl_frame *r,
				const struct tor_ctrl_frame *req,
				const struct rina_ctrl_msg *m, const __u8 *key)
{
	__be32 to_ip = req->ip.saddr;
	__be16 to_port = req->udp.source;
	unsigned int len;

	memset(r, 0, sizeof(*r));
	r->m = *m;
	len = rina_ctrl_seal(&r->m, key, rina_siphash24,
			     key ? rina_ctrl_stamp() : 0, to_ip, to_port);
	memcpy(r->eth.h_dest, req->eth.h_source, ETH_ALEN);
	memcpy(r->eth.h_source, my_mac, ETH_ALEN);
	r->eth.h_proto = htons(ETH_P_IP);
	r->ip.version = 4;
	r->ip.ihl = 5;
	r->ip.tot_len = htons((__u16)(sizeof(r->ip) + sizeof(r->udp) + len));
	r->ip.frag_off = htons(0x4000);		/* DF */
	r->ip.ttl = 64;
	r->ip.protocol = IPPROTO_UDP;
	r->ip.saddr = my_ip;
	r->ip.daddr = to_ip;
	r->ip.check = htons(rina_tor_ipv4_csum((const __u8 *)&r->ip));
	r->udp.source = htons(RINA_UDP_PORT_AGENT);
	r->udp.dest = to_port;
	r->udp.len = htons((__u16)(sizeof(r->udp) + len));
	r->udp.check = 0;			/* none: optional on IPv4 */
	return (unsigned int)CTRL_MSG_OFF + len;
}

/*
 * Whether a request may act on job k: signed, fresh and new when the job
 * has a secret (rina_ctrl_check()), unsigned when it has none, and for
 * the job description the ToR holds. Counts what it refuses.
 */
static int control_trusted(int k, const struct rina_hdr *h, __u64 hash)
{
	const __u8 *key = jobs[k].has_secret ? jobs[k].secret : NULL;
	enum rina_ctrl_verdict v;

	v = rina_ctrl_check(&ctrl_guard[k], h, key, rina_siphash24,
			    key ? rina_wall_us() : 0, my_ip,
			    htons(RINA_UDP_PORT_AGENT));
	/*
	 * A copy of a request taken, or one signed before the ToR started,
	 * counts as replayed here: only agents send to the ToR, one hop
	 * away, and its tests replay requests so (selftests/tor/ctrl_cases.sh)
	 */
	if (v == RINA_CTRL_STALE || v == RINA_CTRL_REPLAY ||
	    v == RINA_CTRL_DUPLICATE || v == RINA_CTRL_BEFORE_START) {
		ctrl_ctr[k].replayed++;
		return 0;
	}
	if (v != RINA_CTRL_OK) {
		ctrl_ctr[k].forged++;
		return 0;
	}
	if (job_hash[k] != hash) {
		ctrl_ctr[k].bad_hash++;
		return 0;
	}
	ctrl_ctr[k].ok++;
	return 1;
}

/*
 * Whether the frame is a control request to us: exactly a plain or
 * signed CTRL in IPv4 (no options) and UDP whose lengths agree with the
 * frame's, to our address and port 0x524f, with a TOR_* request type.
 * Anything else, malformed or not, is the model's to switch and count
 * (its parser counts a bad Rina header by name).
 */
static int is_request(const struct tor_ctrl_frame *q, unsigned int len)
{
	unsigned int rlen;
	__u32 type;

	/* the frame's length first: it holds every field read below */
	if (!my_ip || len < CTRL_MSG_OFF)
		return 0;
	rlen = len - (unsigned int)CTRL_MSG_OFF;
	if (rlen != CTRL_PLAIN_LEN && rlen != CTRL_SIGNED_LEN)
		return 0;
	if (q->eth.h_proto != htons(ETH_P_IP) || q->ip.version != 4 ||
	    q->ip.ihl != 5 || q->ip.protocol != IPPROTO_UDP ||
	    ntohs(q->ip.tot_len) != len - sizeof(q->eth) ||
	    q->ip.daddr != my_ip ||
	    ntohs(q->udp.len) != sizeof(q->udp) + rlen ||
	    q->udp.dest != htons(RINA_UDP_PORT_AGENT))
		return 0;
	if (rina_hdr_check(&q->m.h, rlen) != RINA_PARSE_OK ||
	    rina_hdr_opcode(&q->m.h) != RINA_OP_CTRL)
		return 0;
	type = ntohl(q->m.c.type);
	return type == RINA_CTRL_TOR_INSTALL || type == RINA_CTRL_TOR_REMOVE;
}

/*
 * Every request that does not prove it comes from a job the ToR holds
 * (an unknown job id, a wrong hash, in a job with a secret a missing or
 * wrong MAC, a stale or replayed stamp) gets the same answer: unsigned,
 * status "unknown job", the request's job id and hash echoed, so that
 * the answer tells a prober nothing.
 */
unsigned int tor_control(const __u8 *f, unsigned int len, __u8 *reply,
			 int n_ports)
{
	const struct tor_ctrl_frame *q = (const struct tor_ctrl_frame *)f;
	__u32 st = RINA_TOR_ST_UNKNOWN_JOB;
	const __u8 *key = NULL;
	struct rina_ctrl_msg m;
	__u64 hash;
	int k;

	if (!is_request(q, len))
		return 0;
	hash = rina_get_be64(&q->m.c.hash);
	for (k = 0; k < n_jobs; k++)
		if (jobs[k].job_id == ntohs(q->m.h.job_id))
			break;
	if (k == n_jobs)
		ctrl_unknown++;
	else if (control_trusted(k, &q->m.h, hash))
		key = jobs[k].has_secret ? jobs[k].secret : NULL;
	else
		k = n_jobs;
	if (k < n_jobs && ntohl(q->m.c.type) == RINA_CTRL_TOR_INSTALL)
		st = (__u32)tor_job_install(k, n_ports,
					    rina_ctrl_session(&q->m.h));
	else if (k < n_jobs)
		st = (__u32)tor_job_remove(k);
	memset(&m, 0, sizeof(m));
	m.h.ver_op = RINA_VERSION << 4 | RINA_OP_CTRL;
	m.h.flags = RINA_F_FROM_SWITCH;
	m.h.job_id = q->m.h.job_id;
	m.h.src_id = htons((__u16)(RINA_SRC_SWITCH | rack));
	m.h.exp = RINA_EXP_NONE;
	/* which of an agent's requests this answers (an old one's?) */
	rina_ctrl_set_session(&m.h, rina_ctrl_session(&q->m.h));
	m.c.type = htonl(RINA_CTRL_TOR_REPLY);
	m.c.arg = htonl(st);
	m.c.hash = q->m.c.hash;
	return reply_frame((struct tor_ctrl_frame *)reply, q, &m, key);
}
