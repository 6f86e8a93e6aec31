// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * One rank of the lifecycle test (selftests/net/test_lifecycle.sh): N
 * back-to-back cycles of init, one float32 allreduce (checked), destroy
 * on the same job and port, with no pause between them. Prints
 * "lifecycle: N cycles ok, fds A -> B, rx_bad_tag T rx_kernel_drops K"
 * (T: data refused at the door, K: dropped by the kernel at the socket,
 * the tag filter's refusals among them, over all cycles) or the first
 * failure.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>

#include "rina.h"

#define COUNT	4096

static int open_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	int n = 0;

	if (!d)
		return -1;
	while (readdir(d))
		n++;
	closedir(d);
	return n;
}

int main(int argc, char **argv)
{
	static float x[COUNT];
	int cycles = argc > 1 ? atoi(argv[1]) : 100, i, j, fds0 = -1;
	unsigned long long bad_tag = 0, kernel_drops = 0;

	for (i = 0; i < cycles; i++) {
		struct rina_stats st;
		rina_comm_t *c;
		int rc = rina_comm_init_env(&c), n;

		if (rc) {
			printf("lifecycle: cycle %d: init: %s\n", i,
			       rina_last_error());
			return 1;
		}
		n = rina_comm_size(c);
		for (j = 0; j < COUNT; j++)
			x[j] = (float)(rina_comm_rank(c) + j % 7 + i);
		rc = rina_allreduce(x, x, COUNT, RINA_FLOAT32, RINA_SUM, c);
		if (rc) {
			printf("lifecycle: cycle %d: allreduce: %s\n", i,
			       rina_last_error());
			st.size = sizeof(st);
			if (!rina_comm_get_stats(c, &st))
				printf("lifecycle: cycle %d: rx %llu tx %llu retransmits %llu timeouts %llu duplicates %llu stale %llu early %llu rx_bad_tag %llu tor %llu/%llu agent contributions %llu slots %llu\n",
				       i, (unsigned long long)st.rx_packets,
				       (unsigned long long)st.tx_packets,
				       (unsigned long long)st.retransmits,
				       (unsigned long long)st.timeouts,
				       (unsigned long long)st.duplicates,
				       (unsigned long long)st.rx_stale,
				       (unsigned long long)st.rx_early,
				       (unsigned long long)st.rx_bad_tag,
				       (unsigned long long)st.agent_tor,
				       (unsigned long long)st.agent_tor_status,
				       (unsigned long long)st.agent_contrib_in,
				       (unsigned long long)st.agent_slots_done);
			return 1;
		}
		for (j = 0; j < COUNT; j++) {
			float want = (float)(n * (n - 1) / 2 +
					     n * (j % 7 + i));

			if (x[j] != want) {
				printf("lifecycle: cycle %d: element %d is %g, not %g\n",
				       i, j, x[j], want);
				return 1;
			}
		}
		st.size = sizeof(st);
		if (!rina_comm_get_stats(c, &st)) {
			bad_tag += st.rx_bad_tag;
			kernel_drops += st.rx_kernel_drops;
		}
		rina_comm_destroy(c);
		if (!i)
			fds0 = open_fds();
	}
	printf("lifecycle: %d cycles ok, fds %d -> %d, rx_bad_tag %llu rx_kernel_drops %llu\n",
	       cycles, fds0, open_fds(), bad_tag, kernel_drops);
	return fds0 == open_fds() ? 0 : 1;
}
