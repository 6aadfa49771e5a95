/* Compact row encoding for operator state (see row_codec.h). */
#include "engine/row_codec.h"

#include "base/arena.h"

#include <stdlib.h>
#include <string.h>

enum {
    RC_B1,    /* bool */
    RC_I2,    /* smallint */
    RC_I4,    /* integer, date */
    RC_I8,    /* bigint, timestamp, timestamptz */
    RC_F8,    /* real, double precision (as the double's bits) */
    RC_NUM,   /* numeric */
    RC_IV,    /* interval */
    RC_TEXT,  /* text, varchar, and anything else held as bytes */
};

void rowc_init(RowCodec *c, const Type *types, int ncols)
{
    c->ncols = ncols;
    c->kind = xmalloc((size_t)(ncols > 0 ? ncols : 1));
    for (int i = 0; i < ncols; i++) {
        uint8_t k;
        switch ((TypeId)types[i].id) {
        case T_BOOL: k = RC_B1; break;
        case T_INT2: k = RC_I2; break;
        case T_INT4: case T_DATE: k = RC_I4; break;
        case T_INT8: case T_TIMESTAMP: case T_TIMESTAMPTZ: k = RC_I8; break;
        case T_FLOAT4: case T_FLOAT8: k = RC_F8; break;
        case T_NUMERIC: k = RC_NUM; break;
        case T_INTERVAL: k = RC_IV; break;
        default: k = RC_TEXT; break;
        }
        c->kind[i] = k;
    }
}

void rowc_fini(RowCodec *c)
{
    free(c->kind);
    c->kind = NULL;
    c->ncols = 0;
}

static inline size_t leb_size(uint32_t v)
{
    size_t n = 1;
    while (v >= 0x80) {
        v >>= 7;
        n++;
    }
    return n;
}

/* A numeric's high word is redundant when it is the sign extension of the low one. */
static inline bool num_short(const Value *v)
{
    return v->hi == ((int64_t)v->lo >> 63);
}

size_t rowc_size(const RowCodec *c, const Value *row)
{
    size_t n = ((size_t)c->ncols + 7) / 8;
    for (int i = 0; i < c->ncols; i++) {
        const Value *v = &row[i];
        if (v->isnull) continue;
        switch (c->kind[i]) {
        case RC_B1: n += 1; break;
        case RC_I2: n += 2; break;
        case RC_I4: n += 4; break;
        case RC_I8: case RC_F8: n += 8; break;
        case RC_NUM: n += 3 + (num_short(v) ? 8 : 16); break;
        case RC_IV: n += 16; break;
        default: n += leb_size(v->len) + v->len; break;
        }
    }
    return n;
}

size_t rowc_encode(const RowCodec *c, const Value *row, uint8_t *dst)
{
    size_t nb = ((size_t)c->ncols + 7) / 8;
    memset(dst, 0, nb);
    uint8_t *p = dst + nb;
    for (int i = 0; i < c->ncols; i++) {
        const Value *v = &row[i];
        if (v->isnull) {
            dst[i >> 3] |= (uint8_t)(1u << (i & 7));
            continue;
        }
        switch (c->kind[i]) {
        case RC_B1: *p++ = (uint8_t)(v->i != 0); break;
        case RC_I2: { int16_t x = (int16_t)v->i; memcpy(p, &x, 2); p += 2; break; }
        case RC_I4: { int32_t x = (int32_t)v->i; memcpy(p, &x, 4); p += 4; break; }
        case RC_I8: memcpy(p, &v->i, 8); p += 8; break;
        case RC_F8: memcpy(p, &v->f, 8); p += 8; break;
        case RC_NUM: {
            memcpy(p, &v->scale, 2);
            bool s = num_short(v);
            p[2] = s ? 0 : 1;
            memcpy(p + 3, &v->lo, 8);
            if (!s) memcpy(p + 11, &v->hi, 8);
            p += s ? 11 : 19;
            break;
        }
        case RC_IV:
            memcpy(p, &v->i, 8);
            memcpy(p + 8, &v->iv.months, 4);
            memcpy(p + 12, &v->iv.days, 4);
            p += 16;
            break;
        default: {
            uint32_t len = v->len;
            while (len >= 0x80) {
                *p++ = (uint8_t)(len | 0x80);
                len >>= 7;
            }
            *p++ = (uint8_t)len;
            if (v->len) memcpy(p, v->s, v->len);
            p += v->len;
            break;
        }
        }
    }
    return (size_t)(p - dst);
}

void rowc_decode(const RowCodec *c, const uint8_t *src, Value *out)
{
    const uint8_t *p = src + ((size_t)c->ncols + 7) / 8;
    for (int i = 0; i < c->ncols; i++) {
        Value *v = &out[i];
        memset(v, 0, sizeof *v);
        if (src[i >> 3] & (1u << (i & 7))) {
            v->isnull = 1;
            continue;
        }
        switch (c->kind[i]) {
        case RC_B1: v->i = *p++; break;
        case RC_I2: { int16_t x; memcpy(&x, p, 2); v->i = x; p += 2; break; }
        case RC_I4: { int32_t x; memcpy(&x, p, 4); v->i = x; p += 4; break; }
        case RC_I8: memcpy(&v->i, p, 8); p += 8; break;
        case RC_F8: memcpy(&v->f, p, 8); p += 8; break;
        case RC_NUM: {
            memcpy(&v->scale, p, 2);
            bool s = p[2] == 0;
            memcpy(&v->lo, p + 3, 8);
            if (s) v->hi = (int64_t)v->lo >> 63;
            else memcpy(&v->hi, p + 11, 8);
            p += s ? 11 : 19;
            break;
        }
        case RC_IV:
            memcpy(&v->i, p, 8);
            memcpy(&v->iv.months, p + 8, 4);
            memcpy(&v->iv.days, p + 12, 4);
            p += 16;
            break;
        default: {
            uint32_t len = 0;
            int shift = 0;
            uint8_t b;
            do {
                b = *p++;
                len |= (uint32_t)(b & 0x7f) << shift;
                shift += 7;
            } while (b & 0x80);
            v->s = (const char *)p;
            v->len = len;
            p += len;
            break;
        }
        }
    }
}
