// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * Error reporting: the thread's last error message (rina_last_error())
 * and the names of the result codes (rina_strerror()).
 */
#include <stdarg.h>
#include <stdio.h>

#include "rina_int.h"

static __thread char last_error[512];

int rina_fail(int result, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(last_error, sizeof(last_error), fmt, ap);
	va_end(ap);
	return result;
}

const char *rina_last_error(void)
{
	return last_error;
}

static const char *const result_names[__RINA_RESULT_MAX] = {
	[RINA_OK]		= "success",
	[RINA_ERR_INVALID]	= "invalid argument",
	[RINA_ERR_JOBFILE]	= "bad job description",
	[RINA_ERR_SYSTEM]	= "system call failed",
	[RINA_ERR_NOMEM]	= "out of memory",
	[RINA_ERR_TIMEOUT]	= "timed out waiting for a peer",
	/* rina_last_error() says by whom: a rank, rina.ko, its agent */
	[RINA_ERR_ABORTED]	= "job aborted",
	[RINA_ERR_MISMATCH]	= "ranks disagree on the job or the call",
	[RINA_ERR_OVERFLOW]	= "int32 sum overflowed",
	[RINA_ERR_NONFINITE]	= "NaN or infinity in the input",
	[RINA_ERR_TRANSPORT]	= "transport failure",
	[RINA_ERR_BROKEN]	= "communicator failed earlier",
};

const char *rina_strerror(int result)
{
	if (result < 0 || result >= __RINA_RESULT_MAX)
		return "unknown result";
	return result_names[result];
}
