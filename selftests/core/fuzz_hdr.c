// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * libFuzzer target: the header validator must classify any byte string
 * without reading past it, and an accepted header must describe exactly
 * the bytes given. The job file parser gets the same bytes as text.
 */
#include <arpa/inet.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "compat.h"
#include "wire.h"
#include "jobfile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct rina_job_desc job;
	enum rina_parse_err e;
	char err[256], *text;
	uint8_t *copy;

	/* an exact-size heap copy lets ASan catch any over-read */
	copy = malloc(size ? size : 1);
	memcpy(copy, data, size);
	if (size >= RINA_HDR_LEN) {
		e = rina_hdr_check((const struct rina_hdr *)copy,
				   (unsigned int)size);
		/* accepted: the payload words and the data tag, if any */
		if (e == RINA_PARSE_OK &&
		    RINA_HDR_LEN + 4u * ntohs(((struct rina_hdr *)copy)->n_elem) +
		    rina_hdr_trailer((struct rina_hdr *)copy) != size)
			abort();
		if (e >= __RINA_PARSE_MAX)
			abort();
	}
	free(copy);

	text = malloc(size + 1);
	memcpy(text, data, size);
	text[size] = 0;
	if (!rina_jobfile_parse_text(text, "fuzz", &job, err, sizeof(err)) &&
	    rina_job_validate(&job).err)
		abort();	/* the parser must never accept an invalid job */
	free(text);
	return 0;
}
