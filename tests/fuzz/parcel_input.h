// SPDX-License-Identifier: MIT
/*
 * parcel_input.h - how fuzz_parcel interprets its input, shared with the
 * seed generator gen_parcel_corpus.c.
 *
 * Input layout (all little endian, as on every machine fastbinder runs):
 *   u8  n                 offsets count, taken modulo 33
 *   u16 offsets[n]        raw offset values (not forced aligned or sorted)
 *   u8  m                 script length
 *   u8  script[m]         one reader operation per byte, op = byte % FZ_NOPS
 *   ... data              the parcel bytes (whatever is left)
 * A short input is padded with zero bytes for the header fields.
 */
#ifndef FUZZ_PARCEL_INPUT_H
#define FUZZ_PARCEL_INPUT_H

#include <stdint.h>

#define FZ_MAX_OFFSETS	32

/* ops 0..13 read the types BL_TYPE_U8..BL_TYPE_FD (op + 1) */
#define FZ_OP_READ_LAST	13
#define FZ_OP_ENTER	14	/* enter an array, continue inside it */
#define FZ_OP_LEAVE	15	/* back to the enclosing reader */
#define FZ_OP_PEEK	16
#define FZ_OP_SKIP	17
#define FZ_OP_LOCAL	18	/* bl_reader_read_local */
#define FZ_OP_HANDLE	19	/* bl_reader_read_handle */
#define FZ_OP_REGION	20	/* bl_reader_read_region */
#define FZ_NOPS		21

#endif
