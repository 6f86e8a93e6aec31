// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * A program built against the installed librina-dev (pkg-config rina)
 * and run on the installed librina1 by test_deb.sh: one int32 allreduce
 * of 4096 elements on every rank (rina_comm_init_env: RINA_JOB,
 * RINA_RANK from rina-run); prints "allreduce ok" when every element is
 * the sum over the ranks.
 */
#include <stdio.h>
#include <stdint.h>

#include <rina.h>

#define COUNT 4096

int main(void)
{
	static int32_t buf[COUNT];
	rina_comm_t *comm;
	int32_t want;
	int i, n, rank, rc;

	rc = rina_comm_init_env(&comm);
	if (rc) {
		fprintf(stderr, "init: %s: %s\n", rina_strerror(rc),
			rina_last_error());
		return 1;
	}
	rank = rina_comm_rank(comm);
	n = rina_comm_size(comm);
	for (i = 0; i < COUNT; i++)
		buf[i] = (rank + 1) * (i % 97);
	rc = rina_allreduce(buf, buf, COUNT, RINA_INT32, RINA_SUM, comm);
	if (rc) {
		fprintf(stderr, "allreduce: %s: %s\n", rina_strerror(rc),
			rina_last_error());
		rina_comm_destroy(comm);
		return 1;
	}
	for (i = 0; i < COUNT; i++) {
		want = n * (n + 1) / 2 * (i % 97);
		if (buf[i] != want) {
			fprintf(stderr, "element %d: %d, want %d\n", i,
				buf[i], want);
			rina_comm_destroy(comm);
			return 1;
		}
	}
	rina_comm_destroy(comm);
	printf("allreduce ok\n");
	return 0;
}
