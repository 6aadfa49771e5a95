/* Compact byte encoding of the rows that operators keep in state (join sides): a
 * Value is 24 bytes whatever it holds, so a row of a bigint, a timestamp and a short
 * text costs 72 bytes of cells plus its text as Values, and about 30 bytes encoded.
 *
 * Layout: a NULL bitmap (one bit per column, ceil(n/8) bytes), then each non-NULL
 * column by type: bool 1 byte; smallint 2; integer and date 4; bigint, timestamp,
 * timestamptz and floats 8 (floats as their IEEE bits); numeric its scale (2), a tag
 * byte and 8 or 16 bytes of the scaled integer; interval 16; text a LEB128 length and
 * the bytes. Little-endian, unaligned. Decoding gives back cells identical to the
 * encoded ones (op_cell_identical), with text pointing into the encoded bytes, so the
 * bytes must outlive the decoded row. Equal rows (representation) have equal bytes,
 * so encoded rows can be hashed and compared as bytes. */
#ifndef WEIR_ENGINE_ROW_CODEC_H
#define WEIR_ENGINE_ROW_CODEC_H

#include "base/value.h"

#include <stddef.h>
#include <stdint.h>

typedef struct RowCodec {
    int ncols;
    uint8_t *kind;           /* per column: how it is encoded (row_codec.c) */
} RowCodec;

/* A codec for rows of ncols cells of types (copied). */
void rowc_init(RowCodec *c, const Type *types, int ncols);
void rowc_fini(RowCodec *c);
/* Bytes that rowc_encode writes for row. */
size_t rowc_size(const RowCodec *c, const Value *row);
/* Write row into dst (rowc_size(c, row) bytes); returns the number written. */
size_t rowc_encode(const RowCodec *c, const Value *row, uint8_t *dst);
/* Decode the row at src into out (ncols cells); text points into src. */
void rowc_decode(const RowCodec *c, const uint8_t *src, Value *out);

#endif
