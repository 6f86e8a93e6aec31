// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* The one clock every librina timer reads: monotonic microseconds. */
#include <time.h>

#include "rina_int.h"

uint64_t rina_now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000 + (uint64_t)ts.tv_nsec / 1000;
}
