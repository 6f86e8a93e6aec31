/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * A file replaced atomically: written as "path.tmp" in path's directory
 * (which node_exporter's textfile collector does not read: not *.prom),
 * then renamed over path, so that a reader sees the old file or the
 * whole new one, never a part.
 */
#ifndef RINA_ATOMIC_WRITE_H
#define RINA_ATOMIC_WRITE_H

#include <stddef.h>
#include <stdio.h>

/* fill writes the contents; 0, or -1 with "file: reason" in err and
 * nothing left behind. */
int rina_write_atomic(const char *path, void (*fill)(FILE *f, void *arg),
		      void *arg, char *err, size_t errlen);

#endif /* RINA_ATOMIC_WRITE_H */
