/* Net changes per key between sink flushes (see coalesce.h). */
#include "runtime/coalesce.h"

#include "base/hash.h"

#include <stdlib.h>
#include <string.h>

#define ABSENT UINT32_MAX
#define CHUNK 1024                   /* changes per emit call */

#define KEY_INLINE 16                /* keys up to this many bytes live in the entry */
#define AHEAD 64                     /* changes whose keys are looked up together */

struct CoalEntry {                   /* one cache line */
    uint64_t hash;
    union {
        uint64_t off;                /* key_len > KEY_INLINE: its offset in bytes */
        uint8_t bytes[KEY_INLINE];
    } key;
    uint64_t before_off, after_off;
    uint32_t key_len;
    uint32_t before_len;             /* ABSENT: the sink does not hold the key */
    uint32_t after_len;              /* ABSENT: the model no longer has the key */
    uint32_t after_cap;              /* bytes reserved at after_off */
};

void coalesce_init(Coalescer *c, const PlanColumn *cols, int ncols, const int *key, int nkey)
{
    memset(c, 0, sizeof *c);
    c->ncols = ncols;
    c->nkey = nkey;
    Type *types = xcalloc((size_t)ncols + 1, sizeof(Type));
    Type *ktypes = xcalloc((size_t)nkey + 1, sizeof(Type));
    for (int i = 0; i < ncols; i++) types[i] = cols[i].type;
    c->key_cols = xcalloc((size_t)nkey + 1, sizeof(int));
    for (int k = 0; k < nkey; k++) {
        c->key_cols[k] = key[k];
        ktypes[k] = cols[key[k]].type;
    }
    rowc_init(&c->row, types, ncols);
    rowc_init(&c->key, ktypes, nkey);
    free(types);
    c->key_types = ktypes;
    c->key_scratch = xcalloc((size_t)nkey + 1, sizeof(Value));
    c->nindex = 1024;
    c->index = xcalloc(c->nindex, sizeof(uint32_t));
    sb_init(&c->bytes);
    sb_init(&c->kbuf);
}

void coalesce_fini(Coalescer *c)
{
    rowc_fini(&c->row);
    rowc_fini(&c->key);
    free(c->key_cols);
    free(c->key_types);
    free(c->key_scratch);
    free(c->e);
    free(c->index);
    free(c->scratch);
    sb_free(&c->bytes);
    sb_free(&c->kbuf);
    memset(c, 0, sizeof *c);
}

void coalesce_clear(Coalescer *c)
{
    if (c->n) memset(c->index, 0, sizeof(uint32_t) * c->nindex);
    c->n = 0;
    sb_clear(&c->bytes);
}

/* Append n bytes to the buffer; returns their offset. */
static uint64_t put(Coalescer *c, const void *p, size_t n)
{
    uint64_t off = c->bytes.len;
    sb_append(&c->bytes, p, n);
    return off;
}

static const uint8_t *at(const Coalescer *c, uint64_t off) { return (const uint8_t *)c->bytes.data + off; }

/* The encoded row in c->scratch; returns its length. */
static size_t encode_row(Coalescer *c, const Value *row)
{
    size_t n = rowc_size(&c->row, row);
    if (n > c->scratch_cap) {
        c->scratch_cap = n * 2 + 64;
        c->scratch = xrealloc(c->scratch, c->scratch_cap);
    }
    return rowc_encode(&c->row, row, c->scratch);
}

static void grow_index(Coalescer *c)
{
    free(c->index);
    c->nindex *= 2;
    c->index = xcalloc(c->nindex, sizeof(uint32_t));
    uint32_t mask = c->nindex - 1;
    for (uint32_t i = 0; i < c->n; i++) {
        uint32_t s = (uint32_t)c->e[i].hash & mask;
        while (c->index[s]) s = (s + 1) & mask;
        c->index[s] = i + 1;
    }
}

static const uint8_t *key_bytes(const Coalescer *c, const CoalEntry *e)
{
    return e->key_len > KEY_INLINE ? at(c, e->key.off) : e->key.bytes;
}

/* Encode row's key into c->kbuf (appended); returns its length. */
static size_t encode_key(Coalescer *c, const Value *row)
{
    for (int k = 0; k < c->nkey; k++) c->key_scratch[k] = row[c->key_cols[k]];
    size_t klen = rowc_size(&c->key, c->key_scratch);
    sb_reserve(&c->kbuf, klen);
    rowc_encode(&c->key, c->key_scratch, (uint8_t *)c->kbuf.data + c->kbuf.len);
    c->kbuf.len += klen;
    return klen;
}

static uint64_t key_hash(const void *k, size_t n) { return hash_bytes(k, n, 0x636f616cu); }

/* The entry of key k (klen bytes, hash h); a new one (*fresh) has neither a before
 * nor an after row. */
static CoalEntry *entry_for(Coalescer *c, const uint8_t *k, size_t klen, uint64_t h, bool *fresh)
{
    uint32_t mask = c->nindex - 1;
    for (uint32_t s = (uint32_t)h & mask;; s = (s + 1) & mask) {
        uint32_t i = c->index[s];
        if (!i) {
            if (c->n == c->cap) {
                c->cap = c->cap ? c->cap * 2 : 1024;
                c->e = xrealloc(c->e, sizeof(CoalEntry) * c->cap);
            }
            CoalEntry *e = &c->e[c->n];
            *e = (CoalEntry){.hash = h, .key_len = (uint32_t)klen, .before_len = ABSENT, .after_len = ABSENT};
            if (klen > KEY_INLINE) e->key.off = put(c, k, klen);
            else memcpy(e->key.bytes, k, klen);
            c->index[s] = ++c->n;
            if (c->n * 2 > c->nindex) grow_index(c);
            *fresh = true;
            return &c->e[c->n - 1];
        }
        CoalEntry *e = &c->e[i - 1];
        if (e->hash == h && e->key_len == klen && memcmp(key_bytes(c, e), k, klen) == 0) {
            *fresh = false;
            return e;
        }
    }
}

static void set_after(Coalescer *c, CoalEntry *e, const Value *row)
{
    if (!row) {
        e->after_len = ABSENT;
        return;
    }
    size_t n = encode_row(c, row);
    if (n > e->after_cap) {
        e->after_off = put(c, c->scratch, n);
        e->after_cap = (uint32_t)n;
    } else {
        memcpy(c->bytes.data + e->after_off, c->scratch, n);
    }
    e->after_len = (uint32_t)n;
}

static void set_before(Coalescer *c, CoalEntry *e, const Value *row)
{
    size_t n = encode_row(c, row);
    e->before_off = put(c, c->scratch, n);
    e->before_len = (uint32_t)n;
}

/* One change of key K(key_row): `before` is what the sink held when the key is new
 * to the coalescer (NULL: nothing), `after` what the model has now (NULL: nothing). */
static void fold_key(Coalescer *c, const uint8_t *k, size_t klen, uint64_t h, const Value *before,
                     const Value *after)
{
    bool fresh;
    CoalEntry *e = entry_for(c, k, klen, h, &fresh);
    if (fresh && before) set_before(c, e, before);
    set_after(c, e, after);
}

static void fold(Coalescer *c, const Value *key_row, const Value *before, const Value *after)
{
    sb_clear(&c->kbuf);
    size_t klen = encode_key(c, key_row);
    fold_key(c, (const uint8_t *)c->kbuf.data, klen, key_hash(c->kbuf.data, klen), before, after);
}

static bool same_key(const Coalescer *c, const Value *a, const Value *b)
{
    for (int k = 0; k < c->nkey; k++) {
        int col = c->key_cols[k];
        if (a[col].isnull != b[col].isnull) return false;
        if (!a[col].isnull && !value_equal(c->key_types[k], &a[col], &b[col])) return false;
    }
    return true;
}

/* Changes [i0, i1): their keys are hashed and their entries' cache lines fetched
 * first (a few passes over a short run), then folded in order. */
static void add_run(Coalescer *c, const EngChange *changes, int i0, int i1)
{
    uint64_t h[AHEAD];
    uint32_t koff[AHEAD], klen[AHEAD];
    sb_clear(&c->kbuf);
    for (int i = i0; i < i1; i++) {
        koff[i - i0] = (uint32_t)c->kbuf.len;
        klen[i - i0] = (uint32_t)encode_key(c, changes[i].row);
    }
    const uint8_t *kb = (const uint8_t *)c->kbuf.data;
    uint32_t mask = c->nindex - 1;
    for (int j = 0; j < i1 - i0; j++) {
        h[j] = key_hash(kb + koff[j], klen[j]);
        __builtin_prefetch(&c->index[(uint32_t)h[j] & mask]);
    }
    for (int j = 0; j < i1 - i0; j++) {
        uint32_t e = c->index[(uint32_t)h[j] & mask];
        if (e) __builtin_prefetch(&c->e[e - 1]);
    }
    for (int j = 0; j < i1 - i0; j++) {
        uint32_t e = c->index[(uint32_t)h[j] & mask];
        if (e && c->e[e - 1].after_len != ABSENT) __builtin_prefetch(at(c, c->e[e - 1].after_off));
    }
    for (int i = i0; i < i1; i++) {
        const EngChange *ch = &changes[i];
        const uint8_t *k = kb + koff[i - i0];
        uint64_t hk = h[i - i0];
        switch (ch->op) {
        case CHANGE_INSERT:
            fold_key(c, k, klen[i - i0], hk, NULL, ch->row);
            break;
        case CHANGE_DELETE:
            fold_key(c, k, klen[i - i0], hk, ch->row, NULL);
            break;
        default: /* CHANGE_UPDATE; one whose key changed goes through fold (below) */
            fold_key(c, k, klen[i - i0], hk, ch->old_row ? ch->old_row : ch->row, ch->row);
            break;
        }
    }
}

void coalesce_add(Coalescer *c, const EngChange *changes, int n)
{
    int i0 = 0;
    for (int i = 0; i <= n; i++) {
        const EngChange *ch = i < n ? &changes[i] : NULL;
        bool moved = ch && ch->op == CHANGE_UPDATE && ch->old_row && !same_key(c, ch->old_row, ch->row);
        if (i == n || moved || i - i0 == AHEAD) {
            if (i > i0) add_run(c, changes, i0, i);
            i0 = i;
        }
        if (moved) {
            /* the key changed: a delete of the old key and an insert of the new one */
            fold(c, ch->old_row, ch->old_row, NULL);
            fold(c, ch->row, NULL, ch->row);
            i0 = i + 1;
        }
    }
}

bool coalesce_emit(const Coalescer *c, CoalEmitFn fn, void *ctx, char *err, size_t errsize)
{
    size_t nc = (size_t)(c->ncols > 0 ? c->ncols : 1);
    Value *rows = xmalloc(sizeof(Value) * nc * 2 * CHUNK);
    EngChange *ch = xmalloc(sizeof(EngChange) * CHUNK);
    bool ok = true;
    int k = 0;
    for (uint32_t i = 0; i < c->n && ok; i++) {
        const CoalEntry *e = &c->e[i];
        bool had = e->before_len != ABSENT, has = e->after_len != ABSENT;
        if (!had && !has) continue;
        if (had && has && e->before_len == e->after_len &&
            memcmp(at(c, e->before_off), at(c, e->after_off), e->after_len) == 0)
            continue;  /* back where the sink is */
        Value *row = rows + (size_t)k * 2 * nc, *old = row + nc;
        if (has) rowc_decode(&c->row, at(c, e->after_off), row);
        if (had) rowc_decode(&c->row, at(c, e->before_off), has ? old : row);
        ch[k++] = (EngChange){has ? (had ? CHANGE_UPDATE : CHANGE_INSERT) : CHANGE_DELETE, row,
                              had && has ? old : NULL};
        if (k == CHUNK) {
            ok = fn(ctx, ch, k, err, errsize);
            k = 0;
        }
    }
    if (ok && k) ok = fn(ctx, ch, k, err, errsize);
    free(rows);
    free(ch);
    return ok;
}
