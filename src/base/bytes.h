/* A little-endian byte codec for the records weir writes to disk (checkpoints,
 * source positions, sink deliveries): fixed-width integers and length-prefixed
 * strings appended to a StrBuf, and a bounds-checked reader that turns truncated or
 * malformed input into a flag instead of a crash. */
#ifndef WEIR_BASE_BYTES_H
#define WEIR_BASE_BYTES_H

#include "base/strbuf.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

void bytes_put_u8(StrBuf *b, uint8_t v);
void bytes_put_u32(StrBuf *b, uint32_t v);
void bytes_put_u64(StrBuf *b, uint64_t v);
/* A u32 length, then the bytes. */
void bytes_put_str(StrBuf *b, const char *s, size_t n);

typedef struct ByteReader {
    const uint8_t *p, *end;
    bool bad;                /* set on truncation or malformed input; reads then return 0 */
} ByteReader;

static inline ByteReader bytes_reader(const void *data, size_t len)
{
    ByteReader r = {data, (const uint8_t *)data + len, false};
    return r;
}
/* The next n bytes (NULL and bad when fewer are left). */
const uint8_t *bytes_take(ByteReader *r, size_t n);
uint8_t bytes_get_u8(ByteReader *r);
uint32_t bytes_get_u32(ByteReader *r);
uint64_t bytes_get_u64(ByteReader *r);
/* A string written by bytes_put_str: points into the input (not NUL-terminated). */
const char *bytes_get_str(ByteReader *r, size_t *n);
/* True when the reader consumed everything without error. */
static inline bool bytes_done(const ByteReader *r) { return !r->bad && r->p == r->end; }

#endif
