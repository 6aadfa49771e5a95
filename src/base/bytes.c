/* The little-endian byte codec (see bytes.h). */
#include "base/bytes.h"

void bytes_put_u8(StrBuf *b, uint8_t v) { sb_append(b, (const char *)&v, 1); }

void bytes_put_u32(StrBuf *b, uint32_t v)
{
    unsigned char x[4];
    for (int i = 0; i < 4; i++) x[i] = (unsigned char)(v >> (8 * i));
    sb_append(b, (const char *)x, 4);
}

void bytes_put_u64(StrBuf *b, uint64_t v)
{
    unsigned char x[8];
    for (int i = 0; i < 8; i++) x[i] = (unsigned char)(v >> (8 * i));
    sb_append(b, (const char *)x, 8);
}

void bytes_put_str(StrBuf *b, const char *s, size_t n)
{
    bytes_put_u32(b, (uint32_t)n);
    sb_append(b, s, n);
}

const uint8_t *bytes_take(ByteReader *r, size_t n)
{
    if (r->bad || (size_t)(r->end - r->p) < n) {
        r->bad = true;
        return NULL;
    }
    const uint8_t *q = r->p;
    r->p += n;
    return q;
}

uint8_t bytes_get_u8(ByteReader *r)
{
    const uint8_t *q = bytes_take(r, 1);
    return q ? q[0] : 0;
}

uint32_t bytes_get_u32(ByteReader *r)
{
    const uint8_t *q = bytes_take(r, 4);
    if (!q) return 0;
    uint32_t v = 0;
    for (int i = 0; i < 4; i++) v |= (uint32_t)q[i] << (8 * i);
    return v;
}

uint64_t bytes_get_u64(ByteReader *r)
{
    const uint8_t *q = bytes_take(r, 8);
    if (!q) return 0;
    uint64_t v = 0;
    for (int i = 0; i < 8; i++) v |= (uint64_t)q[i] << (8 * i);
    return v;
}

const char *bytes_get_str(ByteReader *r, size_t *n)
{
    uint32_t len = bytes_get_u32(r);
    const uint8_t *q = bytes_take(r, len);
    *n = q ? len : 0;
    return q ? (const char *)q : "";
}
