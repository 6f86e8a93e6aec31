/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * librina transports: how Rina messages (header + payload, no L2-L4
 * headers) reach ring peers. UDP sockets, AF_XDP and an in-process
 * transport for unit tests all implement this interface; the ring engine
 * never knows which one it drives.
 */
#ifndef RINA_TRANSPORT_H
#define RINA_TRANSPORT_H

#include <stdbool.h>
#include <stdint.h>
#include <linux/types.h>
#include <netinet/ip.h>

#include "hdr.h"

struct rina_addr {
	__be32	ip;		/* IPv4, network order */
	__be16	port;		/* UDP port, network order */
	uint8_t	mac[6];		/* all zero: resolve through the neighbour table */
};

struct rina_msg {
	void		*buf;	/* struct rina_hdr, then payload */
	uint32_t	len;
	struct rina_addr addr;	/* destination on send, source on receive */
	/*
	 * on receive: the datagram's IP ECN field (RFC 3168, IPTOS_ECN_*
	 * of <netinet/ip.h>); unused on send
	 */
	uint8_t		ecn;
};

/* What a transport counts; all monotonic. */
struct rina_transport_stats {
	uint64_t tx_packets, tx_bytes;	/* bytes as framed on the wire (L2) */
	uint64_t rx_packets, rx_bytes;
	uint64_t tx_errors;		/* sends the kernel refused */
	uint64_t tx_error_bytes;	/* their bytes, framed as tx_bytes */
	uint64_t rx_dropped;		/* AF_XDP XDP_STATISTICS */
	uint64_t rx_ring_full;
	uint64_t rx_fill_ring_empty;
	uint64_t rx_invalid_descs, tx_invalid_descs;
	/* the host XDP program's counters on the device (all its users) */
	uint64_t prog_redirected;	/* to AF_XDP sockets */
	uint64_t prog_passed;		/* to the stack: not Rina, agent port */
	uint64_t prog_dropped;		/* malformed Rina packets */
	uint64_t prog_fault_dropped;	/* its drop_ppm knob */
	/* datagrams the kernel dropped at the socket (SO_MEMINFO) */
	uint64_t rx_kernel_drops;
};

struct rina_transport_cfg {
	struct rina_addr local;		/* bind address and port */
	const char	*ifname;	/* device for AF_XDP; NULL: find from local.ip */
	uint32_t	max_msg_len;	/* largest message (hdr + payload) */
	uint32_t	window;		/* packets in flight per peer, sizes rings */
	uint32_t	rcvbuf;		/* socket buffer bytes, 0 = default */
	/* send ECN-capable (ECT(0)): the sender reacts to CE marks */
	bool		ecn;
};

struct rina_transport;

struct rina_transport_ops {
	const char *name;
	/* Queue n messages; returns how many were sent (0..n) or -errno. */
	int (*send)(struct rina_transport *t, const struct rina_msg *msgs,
		    int n);
	/*
	 * Wait up to timeout_ms (0: don't wait) and receive up to max
	 * messages. Buffers belong to the transport and stay valid until
	 * the next recv() call. Returns the count, 0 on timeout, or -errno.
	 */
	int (*recv)(struct rina_transport *t, struct rina_msg *msgs, int max,
		    int timeout_ms);
	void (*get_stats)(struct rina_transport *t,
			  struct rina_transport_stats *st);
	void (*destroy)(struct rina_transport *t);
	/*
	 * Optional: refuse in the kernel, before the socket queue, the
	 * job's data, ACKs and NACKs whose last RINA_TAG_LEN bytes are not
	 * tag; -EOPNOTSUPP where the transport does not (issue 49).
	 */
	int (*rx_tag_filter)(struct rina_transport *t, uint16_t job_id,
			     const uint8_t tag[RINA_TAG_LEN]);
	/*
	 * Bytes of socket memory that datagrams already sent still hold
	 * in this host's queues (SIOCOUTQ), or -errno. NULL: not known.
	 */
	int (*tx_queued)(struct rina_transport *t);
};

struct rina_transport {
	const struct rina_transport_ops *ops;
};

/* Constructors: 0 and *out set, or -errno with a message in err. */
int rina_udp_transport_create(const struct rina_transport_cfg *cfg,
			      struct rina_transport **out,
			      char *err, size_t errlen);
int rina_xdp_transport_create(const struct rina_transport_cfg *cfg,
			      struct rina_transport **out,
			      char *err, size_t errlen);

#endif /* RINA_TRANSPORT_H */
