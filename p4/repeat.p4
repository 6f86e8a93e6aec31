/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * REPEAT_<n>(M, J): M(J) M(J + 1) ... M(J + n - 1), for the statements
 * one header-stack word needs (P4 has no loop over a stack's indexes).
 */
#ifndef _RINA_REPEAT_P4_
#define _RINA_REPEAT_P4_

#define REPEAT_4(M, J)		M(J) M(J + 1) M(J + 2) M(J + 3)
#define REPEAT_16(M, J)		REPEAT_4(M, J) REPEAT_4(M, J + 4)	\
				REPEAT_4(M, J + 8) REPEAT_4(M, J + 12)
#define REPEAT_64(M, J)		REPEAT_16(M, J) REPEAT_16(M, J + 16)	\
				REPEAT_16(M, J + 32) REPEAT_16(M, J + 48)
#define REPEAT_256(M, J)	REPEAT_64(M, J) REPEAT_64(M, J + 64)	\
				REPEAT_64(M, J + 128) REPEAT_64(M, J + 192)

#endif
