/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * librina's AF_XDP transport, and how userspace finds the Rina XDP
 * program attached to a device: directly (ip link, rinactl, libbpf) or as
 * one program of a libxdp dispatcher. Maps are found through the attached
 * program's map ids by name, so nothing needs to be pinned.
 */
#ifndef RINA_XDP_TRANSPORT_H
#define RINA_XDP_TRANSPORT_H

#include <errno.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <xdp/libxdp.h>

#include "../../bpf/rina_xdp.h"
#include "transport.h"

/* True when the transport's sockets run in zero-copy mode. */
int rina_xdp_transport_zerocopy(const struct rina_transport *t);

/*
 * Find the rina_xdp program attached to ifindex. Returns a program fd
 * (caller closes) or -ENOENT; *mode gets the attach mode when non-NULL.
 */
static inline int rina_xdp_prog_fd(int ifindex, enum xdp_attach_mode *mode)
{
	struct xdp_multiprog *mp = xdp_multiprog__get_from_ifindex(ifindex);
	struct xdp_program *p = NULL;
	int fd = -ENOENT;

	if (!mp || libxdp_get_error(mp))
		return -ENOENT;
	if (xdp_multiprog__is_legacy(mp)) {
		p = xdp_multiprog__main_prog(mp);
	} else {
		for (p = xdp_multiprog__next_prog(NULL, mp); p;
		     p = xdp_multiprog__next_prog(p, mp))
			if (!strcmp(xdp_program__name(p), RINA_XDP_PROG_NAME))
				break;
	}
	if (p && !strcmp(xdp_program__name(p), RINA_XDP_PROG_NAME)) {
		fd = bpf_prog_get_fd_by_id(xdp_program__id(p));
		if (fd < 0)
			fd = -errno;
		if (mode)
			*mode = xdp_multiprog__attach_mode(mp);
	}
	xdp_multiprog__close(mp);
	return fd;
}

/* Open the map called name used by program prog_fd: fd or -errno. */
static inline int rina_xdp_prog_map(int prog_fd, const char *name)
{
	struct bpf_prog_info pi;
	struct bpf_map_info mi;
	__u32 ids[16], len, i;
	int fd;

	memset(&pi, 0, sizeof(pi));
	pi.nr_map_ids = 16;
	pi.map_ids = (__u64)(unsigned long)ids;
	len = sizeof(pi);
	if (bpf_obj_get_info_by_fd(prog_fd, &pi, &len))
		return -errno;
	for (i = 0; i < pi.nr_map_ids && i < 16; i++) {
		fd = bpf_map_get_fd_by_id(ids[i]);
		if (fd < 0)
			continue;
		memset(&mi, 0, sizeof(mi));
		len = sizeof(mi);
		if (!bpf_obj_get_info_by_fd(fd, &mi, &len) &&
		    !strcmp(mi.name, name))
			return fd;
		close(fd);
	}
	return -ENOENT;
}

#endif /* RINA_XDP_TRANSPORT_H */
