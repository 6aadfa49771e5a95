/* Aggregate accumulators shared by the aggregating operators: set-up, the general
 * result conversion, memory release and the checkpoint codec (see agg_accum.h; the
 * per-row hot path is inline there). */
#include "engine/agg_accum.h"

#include "engine/agg_item.h"
#include "engine/agg_vitem.h"

#include <stdlib.h>

static ArgClass classify(Type t)
{
    if (type_is_integer(t)) return AC_INT;
    if (t.id == T_NUMERIC) return AC_NUM;
    if (type_is_float(t)) return AC_FLOAT;
    if (t.id == T_INTERVAL) return AC_IV;
    if (t.id == T_BOOL) return AC_BOOL;
    return AC_OTHER;
}

void aggacc_init(AggAccs *x, const AggCall *calls, int n, bool insert_only, const char *state_id)
{
    memset(x, 0, sizeof *x);
    x->n = n;
    x->state_id = state_id;
    x->insert_only = insert_only;
    int na = n > 0 ? n : 1;
    x->specs = xcalloc((size_t)na, sizeof(AggSpec));
    for (int j = 0; j < n; j++) {
        const AggCall *c = &calls[j];
        AggSpec *sp = &x->specs[j];
        sp->kind = c->kind;
        sp->arg = c->kind == AGG_COUNT_STAR ? NULL : c->arg;
        sp->filter = c->filter;
        sp->argt = sp->arg ? sp->arg->type : type_make(T_INT8);
        sp->rest = c->type;
        sp->cls = sp->arg ? classify(sp->argt) : AC_NONE;
        sp->argcol = sp->arg && sp->arg->kind == EX_COLUMN ? sp->arg->col : -1;
        bool minmax = c->kind == AGG_MIN || c->kind == AGG_MAX;
        sp->distinct = c->distinct && !minmax && sp->arg;
        sp->extreme_only = minmax && insert_only;
        sp->argt_intlike = type_is_int_like(sp->argt);
        if (c->kind == AGG_STRING_AGG && sp->arg && sp->arg->kind == EX_FUNC && sp->arg->func == FN_STRING_AGG_ITEM &&
            sp->arg->nargs == 3) {
            sp->item = true;
            sp->argt = oset_item_type((TypeId)sp->arg->args[2]->type.id);
        }
        if (c->kind == AGG_STRING_AGG) {
            const Expr *d = c->dflt;
            sp->sep = d && d->kind == EX_CONST && !d->cval.isnull ? d->cval : value_text("", 0);
            sp->desc = (c->offset & 1) != 0;
            bool flip = (c->offset & 2) != 0;
            sp->nulls_first = sp->desc != flip;
            sp->reorder = sp->item && (flip || c->distinct);
        }
        if (aggacc_is_collecting(c->kind)) sp->argt = oset_vitem_type();
        if (aggacc_is_ordered_set(c->kind)) {
            sp->desc = c->offset != 0;
            const Expr *f = c->dflt;
            sp->frac_null = c->kind != AGG_MODE && (!f || f->kind != EX_CONST || f->cval.isnull);
            sp->frac = sp->frac_null || c->kind == AGG_MODE ? 0.0 : f->cval.f;
        }
        bool sumavg = c->kind == AGG_SUM || c->kind == AGG_AVG || c->kind == AGG_SUM_SQUARES;
        sp->track_scale = sumavg && sp->cls == AC_NUM && !insert_only;
        sp->exact_float = sumavg && sp->cls == AC_FLOAT && !insert_only;
        if (c->kind == AGG_COUNT || c->kind == AGG_COUNT_STAR) {
            if (sp->rest.id == T_INT8) sp->fast = FAST_COUNT;
        } else if (c->kind == AGG_SUM && sp->cls == AC_INT) {
            sp->fast = sp->rest.id == T_INT8 ? FAST_SUM_BIGINT : sp->rest.id == T_NUMERIC ? FAST_SUM_NUMERIC : FAST_NONE;
        } else if (c->kind == AGG_SUM && sp->cls == AC_NUM) {
            if (sp->rest.id == T_NUMERIC) sp->fast = FAST_SUM_NUMERIC;
        } else if (minmax && sp->extreme_only && sp->rest.id == sp->argt.id) {
            sp->fast = FAST_EXTREME;
        }
    }
    /* equal FILTERs are evaluated once per row */
    for (int j = 0; j < n; j++) {
        AggSpec *sp = &x->specs[j];
        sp->fsame = -1;
        for (int i = 0; i < j && sp->filter && sp->fsame < 0; i++)
            if (x->specs[i].filter && x->specs[i].fsame < 0 && plan_expr_equal(x->specs[i].filter, sp->filter))
                sp->fsame = i;
    }
    x->fpass = xcalloc((size_t)na, sizeof(int8_t));
    /* DISTINCT calls over equal arguments share a set */
    x->dg = xcalloc((size_t)na, sizeof(DistGroup));
    for (int j = 0; j < n; j++) {
        AggSpec *sp = &x->specs[j];
        sp->dgroup = -1;
        if (!sp->distinct) continue;
        for (int g = 0; g < x->ndg && sp->dgroup < 0; g++) {
            const AggSpec *lead = &x->specs[x->dg[g].lead];
            if (type_equal(lead->argt, sp->argt) && plan_expr_equal(lead->arg, sp->arg)) {
                sp->dgroup = g;
                sp->dpos = x->dg[g].width++;
            }
        }
        if (sp->dgroup < 0) {
            sp->dgroup = x->ndg;
            sp->dpos = 0;
            x->dg[x->ndg].lead = j;
            x->dg[x->ndg].width = 1;
            x->ndg++;
        }
    }
    int ng = x->ndg > 0 ? x->ndg : 1;
    x->dhash = xcalloc((size_t)ng, sizeof(uint64_t));
    x->dent = xcalloc((size_t)ng, sizeof(DSetEntry *));
    x->dlooked = xcalloc((size_t)ng, sizeof(bool));
    x->ddelta = xcalloc((size_t)na, sizeof(int64_t));
    x->argv = xcalloc((size_t)na, sizeof(Value));
    x->sqv = xcalloc((size_t)na, sizeof(Value));
    x->active = xcalloc((size_t)na, sizeof(bool));
    x->eff = xcalloc((size_t)na, sizeof(int64_t));
    x->cand = xcalloc((size_t)na, sizeof(i128));
    x->cand_scale = xcalloc((size_t)na, sizeof(int32_t));
}

void aggacc_fini(AggAccs *x)
{
    pool_fini(&x->pool);
    free(x->specs);
    free(x->fpass);
    free(x->dg);
    free(x->dhash);
    free(x->dent);
    free(x->dlooked);
    free(x->ddelta);
    free(x->argv);
    free(x->sqv);
    free(x->active);
    free(x->eff);
    free(x->cand);
    free(x->cand_scale);
    memset(x, 0, sizeof *x);
}

static void release1(AggAccs *x, const AggSpec *sp, Acc *acc)
{
    if (sp->track_scale && acc->u.s.scnt) {
        free(acc->u.s.scnt);
        acc->u.s.scnt = NULL;
        x->extra_bytes -= AGGACC_NSCALES * (int64_t)sizeof(int64_t);
    }
    if (sp->exact_float && acc->u.f.exact) {
        free(acc->u.f.exact);
        acc->u.f.exact = NULL;
        x->extra_bytes -= AGGACC_XLIMBS * (int64_t)sizeof(uint64_t);
    }
    if (sp->kind == AGG_MIN || sp->kind == AGG_MAX || sp->kind == AGG_STRING_AGG || aggacc_is_ordered_set(sp->kind) ||
        aggacc_is_collecting(sp->kind)) {
        if (sp->extreme_only) {
            if (type_is_varlen(sp->argt) && acc->n > 0 && !acc->u.ext.isnull) {
                x->extra_bytes -= acc->u.ext.len;
                free((void *)acc->u.ext.s);
            }
            acc->u.ext = value_null();
        } else {
            oset_clear(&acc->u.set, sp->argt, &x->extra_bytes);
        }
    }
}

void aggacc_release(AggAccs *x, Acc *accs)
{
    for (int j = 0; j < x->n; j++) release1(x, &x->specs[j], &accs[j]);
    for (int g = 0; g < x->ndg; g++) {
        DSet *d = aggacc_dset_home(x, accs, g);
        if (!d->width) continue;
        dset_clear(d, x->specs[x->dg[g].lead].argt, &x->pool, &x->extra_bytes);
        memset(d, 0, sizeof *d);
    }
}

bool aggacc_pool_only(const AggAccs *x)
{
    for (int j = 0; j < x->n; j++) {
        const AggSpec *sp = &x->specs[j];
        if (sp->track_scale || sp->exact_float) return false;
        if ((sp->kind == AGG_MIN || sp->kind == AGG_MAX || sp->kind == AGG_STRING_AGG || aggacc_is_ordered_set(sp->kind)) &&
            (!sp->extreme_only || sp->argt.id == T_TEXT))
            return false;
        /* the value multisets of array_agg and json_agg live outside the pool */
        if (sp->kind == AGG_ARRAY_AGG || sp->kind == AGG_JSON_AGG || sp->kind == AGG_JSON_OBJECT_AGG) return false;
        if (type_is_varlen(sp->argt) && sp->argt.id != T_TEXT) return false;
    }
    /* (as release1 and dset_init decide: only insert-only text sets live in the pool) */
    for (int g = 0; g < x->ndg; g++)
        if (!x->insert_only || x->dg[g].width > 64 || x->specs[x->dg[g].lead].argt.id != T_TEXT) return false;
    return true;
}

uint64_t aggacc_shape(const AggAccs *x, uint64_t h)
{
    op_shape_mix(&h, (uint64_t)x->n);
    for (int j = 0; j < x->n; j++) {
        const AggSpec *sp = &x->specs[j];
        op_shape_mix(&h, sp->kind);
        op_shape_mix(&h, sp->cls);
        op_shape_mix(&h, sp->argt.id);
        op_shape_mix(&h, sp->rest.id);
        if (sp->rest.id == T_ARRAY) op_shape_mix(&h, 0x415252ull ^ sp->rest.elem);  /* array_agg's element type */
        op_shape_mix(&h, sp->distinct);
        op_shape_mix(&h, sp->extreme_only);
        if (sp->track_scale) op_shape_mix(&h, 0x5343414c45ull);  /* checkpoints carry the per-scale counts */
        if (sp->exact_float) op_shape_mix(&h, 0x4558414354ull);  /* ... or the exact float sum */
        if (sp->distinct && x->insert_only) op_shape_mix(&h, 0x50524553ull); /* DISTINCT presence bits */
    }
    return h;
}

/* ---------- results ---------- */

/* PostgreSQL's interval_div by a count (avg(interval)). */
static Value interval_div(int64_t months, int64_t days, i128 micros, int64_t n)
{
    const double DAYS_PER_MONTH = 30.0, SECS_PER_DAY = 86400.0;
    double factor = (double)n;
    int32_t rm = (int32_t)((double)months / factor);
    int32_t rd = (int32_t)((double)days / factor);
    double month_rem_days = ((double)months / factor - rm) * DAYS_PER_MONTH;
    month_rem_days = rint(month_rem_days * 1e6) / 1e6;
    double sec_rem = ((double)days / factor - rd + month_rem_days - (int)month_rem_days) * SECS_PER_DAY;
    sec_rem = rint(sec_rem * 1e6) / 1e6;
    if (fabs(sec_rem) >= SECS_PER_DAY) {
        rd += (int32_t)(sec_rem / SECS_PER_DAY);
        sec_rem -= (int)(sec_rem / SECS_PER_DAY) * SECS_PER_DAY;
    }
    rd += (int32_t)month_rem_days;
    double t = rint((double)micros / factor + sec_rem * 1e6);
    return value_interval(rm, rd, (int64_t)t);
}

/* ---------- exact float sums ---------- */

/* Add (sub = false) or subtract the 128-bit magnitude m shifted left by p bits. Carries
 * and borrows stop at the first limb that absorbs them. */
static void xadd_mag(uint64_t *x, unsigned __int128 m, int p, bool sub)
{
    int q = p / 64, r = p % 64;
    uint64_t lo = (uint64_t)m, hi = (uint64_t)(m >> 64);
    uint64_t w[3];
    w[0] = lo << r;
    w[1] = r ? (hi << r) | (lo >> (64 - r)) : hi;
    w[2] = r ? hi >> (64 - r) : 0;
    unsigned carry = 0;
    for (int k = 0; q + k < AGGACC_XLIMBS; k++) {
        uint64_t add = k < 3 ? w[k] : 0;
        if (k >= 3 && !carry) break;
        uint64_t *d = &x[q + k];
        if (!sub) {
            uint64_t t = *d + add;
            unsigned c1 = t < add;
            uint64_t t2 = t + carry;
            unsigned c2 = t2 < t;
            *d = t2;
            carry = c1 | c2;
        } else {
            uint64_t t = *d - add;
            unsigned b1 = *d < add;
            uint64_t t2 = t - carry;
            unsigned b2 = t < carry;
            *d = t2;
            carry = b1 | b2;
        }
    }
}

void aggacc_xadd(uint64_t *x, double v, int64_t w)
{
    if (v == 0.0 || w == 0) return;
    int e;
    double fr = frexp(v, &e); /* v = fr * 2^e, 0.5 <= |fr| < 1 */
    int64_t m = (int64_t)ldexp(fr, 53);
    e -= 53;                  /* v = m * 2^e */
    if (e < -1074) {          /* subnormal: the low bits of m are zero */
        m /= (int64_t)1 << (-1074 - e);
        e = -1074;
    }
    __int128 prod = (__int128)m * w;
    bool neg = prod < 0;
    unsigned __int128 mag = neg ? (unsigned __int128)(-prod) : (unsigned __int128)prod;
    xadd_mag(x, mag, e + 1074, neg);
}

/* 64 bits of x starting at bit s (bits beyond the top read as 0). */
static uint64_t bits64(const uint64_t *x, int s)
{
    int q = s / 64, r = s % 64;
    uint64_t v = q < AGGACC_XLIMBS ? x[q] >> r : 0;
    if (r && q + 1 < AGGACC_XLIMBS) v |= x[q + 1] << (64 - r);
    return v;
}

double aggacc_xvalue(const uint64_t *x)
{
    uint64_t mag[AGGACC_XLIMBS];
    bool neg = (x[AGGACC_XLIMBS - 1] >> 63) != 0;
    if (neg) {
        unsigned carry = 1;
        for (int k = 0; k < AGGACC_XLIMBS; k++) {
            uint64_t t = ~x[k] + carry;
            carry = carry && t == 0;
            mag[k] = t;
        }
    } else {
        memcpy(mag, x, sizeof mag);
    }
    int h = AGGACC_XLIMBS - 1;
    while (h >= 0 && mag[h] == 0) h--;
    if (h < 0) return 0.0;
    int len = h * 64 + (64 - __builtin_clzll(mag[h]));
    double d;
    if (len <= 53) {
        d = ldexp((double)mag[0], -1074); /* exact */
    } else {
        int s = len - 53;                 /* bits below the mantissa */
        uint64_t mant = bits64(mag, s) & (((uint64_t)1 << 53) - 1);
        bool round = (bits64(mag, s - 1) & 1) != 0;
        bool sticky = false;
        for (int k = 0; k < (s - 1) / 64 && !sticky; k++) sticky = mag[k] != 0;
        int rb = (s - 1) % 64;
        if (!sticky && rb) sticky = (mag[(s - 1) / 64] & (((uint64_t)1 << rb) - 1)) != 0;
        if (round && (sticky || (mant & 1))) mant++;
        d = ldexp((double)mant, s - 1074);
    }
    return neg ? -d : d;
}

static double float_total(const AggSpec *sp, const Acc *acc)
{
    if (acc->u.f.nnan > 0 || (acc->u.f.npinf > 0 && acc->u.f.nninf > 0)) return NAN;
    if (acc->u.f.npinf > 0) return INFINITY;
    if (acc->u.f.nninf > 0) return -INFINITY;
    if (sp->exact_float) return acc->u.f.exact ? aggacc_xvalue(acc->u.f.exact) : 0.0;
    return acc->u.f.sum;
}

typedef struct DescWalk {
    const AggSpec *sp;
    char *buf;
    size_t end;              /* the next piece ends here */
    bool first;
} DescWalk;

/* Ascending walk writing from the end: the first (smallest) value lands last. */
static void desc_entry(void *ctx, const Value *v, int64_t count)
{
    DescWalk *w = ctx;
    for (int64_t k = 0; k < count; k++) {
        if (!w->first) {
            w->end -= w->sp->sep.len;
            memcpy(w->buf + w->end, w->sp->sep.s, w->sp->sep.len);
        }
        w->first = false;
        w->end -= v->len;
        if (v->len) memcpy(w->buf + w->end, v->s, v->len);
    }
}

typedef struct JoinWalk {
    const AggSpec *sp;
    char *buf;
    size_t len;
    bool first;
    bool sizing;
} JoinWalk;

static void join_entry(void *ctx, const Value *v, int64_t count)
{
    JoinWalk *w = ctx;
    for (int64_t k = 0; k < count; k++) {
        if (!w->first) {
            if (!w->sizing) memcpy(w->buf + w->len, w->sp->sep.s, w->sp->sep.len);
            w->len += w->sp->sep.len;
        }
        w->first = false;
        if (!w->sizing && v->len) memcpy(w->buf + w->len, v->s, v->len);
        w->len += v->len;
    }
}

typedef struct ItemWalk {
    const AggSpec *sp;
    const Value **v;
    int64_t *count;
    int64_t n;
} ItemWalk;

static void item_entry(void *ctx, const Value *v, int64_t count)
{
    ItemWalk *w = ctx;
    w->v[w->n] = v;
    w->count[w->n++] = count;
}

typedef struct SortedItem {
    AggItem it;
    int64_t count;
} SortedItem;

/* PostgreSQL's order of string_agg's items (AggSpec.reorder). */
static int sorted_item_cmp(const void *pa, const void *pb, void *ud)
{
    const AggSpec *sp = ud;
    const AggItem *a = &((const SortedItem *)pa)->it, *b = &((const SortedItem *)pb)->it;
    if (a->key.isnull != b->key.isnull) return a->key.isnull == sp->nulls_first ? -1 : 1;
    if (!a->key.isnull) {
        int c = value_compare(type_make((TypeId)sp->argt.scale), &a->key, &b->key);
        if (c) return sp->desc ? (c < 0 ? 1 : -1) : (c < 0 ? -1 : 1);
    }
    int c = agg_item_text_cmp(&a->x, &b->x);
    if (c) return c;
    if (a->delim.isnull != b->delim.isnull) return a->delim.isnull ? 1 : -1;
    return a->delim.isnull ? 0 : agg_item_text_cmp(&a->delim, &b->delim);
}

/* Packed items (agg_item.h) in the multiset's order (descending: reversed; or sorted
 * again, AggSpec.reorder), each x as often as it occurs, every one but the first after
 * its own delimiter. */
static Value string_agg_items(const AggSpec *sp, const Acc *acc, Arena *arena)
{
    int64_t n = acc->u.set.n;
    ItemWalk w = {sp, arena_alloc(arena, sizeof(Value *) * (size_t)(n > 0 ? n : 1)),
                  arena_alloc(arena, sizeof(int64_t) * (size_t)(n > 0 ? n : 1)), 0};
    oset_walk(&acc->u.set, item_entry, &w);
    Type kt = type_make((TypeId)sp->argt.scale);
    if (sp->reorder) {
        SortedItem *si = arena_alloc(arena, sizeof(SortedItem) * (size_t)(w.n > 0 ? w.n : 1));
        int64_t m = 0;
        for (int64_t k = 0; k < w.n; k++)
            if (agg_item_unpack(kt, w.v[k]->s, w.v[k]->len, &si[m].it)) si[m++].count = w.count[k];
        qsort_r(si, (size_t)m, sizeof *si, sorted_item_cmp, (void *)sp);
        size_t total = 0;
        for (int pass = 0; pass < 2; pass++) {
            char *buf = pass ? arena_alloc(arena, total + 1) : NULL;
            size_t len = 0;
            bool first = true;
            for (int64_t k = 0; k < m; k++)
                for (int64_t c = 0; c < si[k].count; c++) {
                    const AggItem *it = &si[k].it;
                    if (!first && !it->delim.isnull) {
                        if (pass && it->delim.len) memcpy(buf + len, it->delim.s, it->delim.len);
                        len += it->delim.len;
                    }
                    first = false;
                    if (pass && it->x.len) memcpy(buf + len, it->x.s, it->x.len);
                    len += it->x.len;
                }
            if (pass) return value_text(buf, (uint32_t)len);
            total = len;
        }
    }
    size_t total = 0;
    bool first = true;
    for (int pass = 0; pass < 2; pass++) {
        char *buf = pass ? arena_alloc(arena, total + 1) : NULL;
        size_t len = 0;
        first = true;
        for (int64_t k = 0; k < w.n; k++) {
            const Value *v = w.v[sp->desc ? w.n - 1 - k : k];
            AggItem it;
            if (!agg_item_unpack(kt, v->s, v->len, &it)) continue;
            for (int64_t c = 0; c < w.count[sp->desc ? w.n - 1 - k : k]; c++) {
                if (!first && !it.delim.isnull) {
                    if (pass && it.delim.len) memcpy(buf + len, it.delim.s, it.delim.len);
                    len += it.delim.len;
                }
                first = false;
                if (pass && it.x.len) memcpy(buf + len, it.x.s, it.x.len);
                len += it.x.len;
            }
        }
        if (pass) return value_text(buf, (uint32_t)len);
        total = len;
    }
    return value_null();
}

/* The values of the ordered multiset joined by the separator, each as often as it
 * occurs (descending: the ascending walk writes from the end of the buffer). */
static Value string_agg_value(const AggSpec *sp, const Acc *acc, Arena *arena)
{
    if (sp->item) return string_agg_items(sp, acc, arena);
    JoinWalk w = {sp, NULL, 0, true, true};
    oset_walk(&acc->u.set, join_entry, &w);
    size_t total = w.len;
    char *buf = arena_alloc(arena, total + 1);
    if (!sp->desc) {
        w = (JoinWalk){sp, buf, 0, true, false};
        oset_walk(&acc->u.set, join_entry, &w);
        return value_text(buf, (uint32_t)total);
    }
    /* descending: write each piece from the end of the buffer */
    DescWalk dw = {sp, buf, total, true};
    oset_walk(&acc->u.set, desc_entry, &dw);
    return value_text(buf, (uint32_t)total);
}

/* ---------- ordered-set aggregates (PostgreSQL's orderedsetaggs.c over the multiset) ---------- */

typedef struct ModeWalk {
    const Value *best;
    int64_t best_count;
    bool desc;
} ModeWalk;

/* Ascending walk: the most frequent value, ties to the first in the aggregate's order
 * (ascending: the smallest, so only a strictly larger count wins; descending: the
 * largest, so an equal count later in the ascending walk wins). */
static void mode_entry(void *ctx, const Value *v, int64_t count)
{
    ModeWalk *w = ctx;
    if (!w->best || count > w->best_count || (w->desc && count == w->best_count)) {
        w->best = v;
        w->best_count = count;
    }
}

typedef struct PosWalk {
    int64_t k[2];            /* 0-based positions in ascending order */
    const Value *v[2];
    int64_t seen;
} PosWalk;

static void pos_entry(void *ctx, const Value *v, int64_t count)
{
    PosWalk *w = ctx;
    for (int i = 0; i < 2; i++)
        if (!w->v[i] && w->k[i] >= w->seen && w->k[i] < w->seen + count) w->v[i] = v;
    w->seen += count;
}

/* The values at 0-based positions a and b of the aggregate's order (descending counts
 * from the largest value) among acc->n values. */
static void ordered_pos(const AggSpec *sp, const Acc *acc, int64_t a, int64_t b, const Value **va, const Value **vb)
{
    PosWalk w = {{sp->desc ? acc->n - 1 - a : a, sp->desc ? acc->n - 1 - b : b}, {NULL, NULL}, 0};
    oset_walk(&acc->u.set, pos_entry, &w);
    *va = w.v[0];
    *vb = w.v[1];
}

static Value ordered_set_value(const AggSpec *sp, const Acc *acc)
{
    if (acc->n <= 0 || sp->frac_null) return value_null();
    const Value *lo = NULL, *hi = NULL;
    switch (sp->kind) {
    case AGG_MODE: {
        ModeWalk w = {NULL, 0, sp->desc};
        oset_walk(&acc->u.set, mode_entry, &w);
        return w.best ? *w.best : value_null();
    }
    case AGG_PERCENTILE_DISC: {
        /* the first value whose position (1-based) reaches ceil(frac * N) */
        int64_t rownum = (int64_t)ceil(sp->frac * (double)acc->n);
        if (rownum < 1) rownum = 1;
        if (rownum > acc->n) rownum = acc->n;
        ordered_pos(sp, acc, rownum - 1, rownum - 1, &lo, &hi);
        return lo ? *lo : value_null();
    }
    case AGG_PERCENTILE_CONT: {
        double pos = sp->frac * (double)(acc->n - 1);
        int64_t first = (int64_t)floor(pos), second = (int64_t)ceil(pos);
        ordered_pos(sp, acc, first, second, &lo, &hi);
        if (!lo || !hi) return value_null();
        if (second <= first) return value_float(lo->f);
        return value_float(lo->f + (hi->f - lo->f) * (pos - (double)first));
    }
    default:
        return value_null();
    }
}

/* ---------- array_agg / json_agg / json_object_agg ---------- */

typedef struct CollectWalk {
    const AggSpec *sp;
    StrBuf *out;
    int64_t n;               /* elements written */
    bool bad;                /* a corrupt item, or a NULL json_object_agg key */
    bool null_key;
} CollectWalk;

/* PostgreSQL's json_agg puts a line break before an array or a row after the first. */
static void collect_entry(void *ctx, const Value *v, int64_t count)
{
    CollectWalk *w = ctx;
    AggVItem it;
    if (!agg_vitem_unpack(v->s, v->len, &it) || it.nvals < 1) {
        w->bad = true;
        return;
    }
    for (int64_t c = 0; c < count; c++, w->n++) {
        switch (w->sp->kind) {
        case AGG_JSON_AGG:
            if (w->n) sb_puts(w->out, ", ");
            if (w->n && !it.val[0].isnull && it.vtype[0].id == T_ARRAY) sb_puts(w->out, "\n ");
            value_format_pgjson(it.vtype[0], &it.val[0], w->out);
            break;
        default: { /* json_object_agg */
            if (it.nvals < 2 || it.val[0].isnull) {
                w->null_key = it.nvals >= 2;
                w->bad = true;
                return;
            }
            sb_puts(w->out, w->n ? ", " : "");
            value_format_pgjson_key(it.vtype[0], &it.val[0], w->out);
            sb_puts(w->out, " : ");
            value_format_pgjson(it.vtype[1], &it.val[1], w->out);
            break;
        }
        }
    }
}

typedef struct ArrayWalk {
    Type elem;
    char *p;                 /* NULL: sizing */
    size_t size;
    int64_t n;
    bool bad;
} ArrayWalk;

static void array_entry(void *ctx, const Value *v, int64_t count)
{
    ArrayWalk *w = ctx;
    AggVItem it;
    if (!agg_vitem_unpack(v->s, v->len, &it) || it.nvals < 1) {
        w->bad = true;
        return;
    }
    for (int64_t c = 0; c < count; c++, w->n++) {
        if (w->p) w->p = array_put_elem(w->p, w->elem, &it.val[0]);
        else w->size += array_elem_size(w->elem, &it.val[0]);
    }
}

/* array_agg's array, built in the arena in two walks (sizes, then bytes). */
static bool array_agg_value(const AggSpec *sp, const Acc *acc, Arena *arena, Value *out, char *err, size_t errsize)
{
    ArrayWalk w = {type_elem(sp->rest), NULL, 4, 0, false};
    oset_walk(&acc->u.set, array_entry, &w);
    if (w.bad || w.size > UINT32_MAX || w.n > UINT32_MAX) {
        snprintf(err, errsize, w.bad ? "internal error: a corrupt array_agg item" : "array size exceeds the maximum allowed");
        return false;
    }
    char *buf = arena_alloc_raw(arena, w.size);
    array_put_count(buf, (uint32_t)w.n);
    size_t size = w.size;
    w = (ArrayWalk){type_elem(sp->rest), buf + 4, 0, 0, false};
    oset_walk(&acc->u.set, array_entry, &w);
    *out = value_text(buf, (uint32_t)size);
    return true;
}

/* The array or json text of the items in the multiset's order (ORDER BY keys first);
 * json is formatted through a StrBuf (one allocation per result), then copied. */
static bool collected_value(const AggSpec *sp, const Acc *acc, Arena *arena, Value *out, char *err, size_t errsize)
{
    if (sp->kind == AGG_ARRAY_AGG) return array_agg_value(sp, acc, arena, out, err, errsize);
    StrBuf b = STRBUF_INIT;
    sb_puts(&b, sp->kind == AGG_JSON_AGG ? "[" : "{ ");
    CollectWalk w = {sp, &b, 0, false, false};
    oset_walk(&acc->u.set, collect_entry, &w);
    if (w.bad) {
        sb_free(&b);
        snprintf(err, errsize, w.null_key ? "field name must not be null" : "internal error: a corrupt %s item",
                 sp->kind == AGG_JSON_AGG ? "json_agg" : "json_object_agg");
        return false;
    }
    sb_puts(&b, sp->kind == AGG_JSON_AGG ? "]" : " }");
    if (b.len > UINT32_MAX) {
        sb_free(&b);
        snprintf(err, errsize, "json value too large");
        return false;
    }
    *out = value_text(arena_strndup(arena, b.data, b.len), (uint32_t)b.len);
    sb_free(&b);
    return true;
}

/* Only converting to an unexpected result type can fail (a safety net for
 * binder/engine disagreement). */
bool aggacc_value(const AggSpec *sp, const Acc *acc, Arena *arena, Value *out, char *err, size_t errsize)
{
    Value v = value_null();
    Type natural = sp->rest;
    switch (sp->kind) {
    case AGG_COUNT_STAR:
    case AGG_COUNT:
        v = value_int(acc->n);
        natural = type_make(T_INT8);
        break;
    case AGG_SUM:
    case AGG_SUM_SQUARES:
        if (acc->n <= 0) break;
        switch (sp->cls) {
        case AC_INT:
            if (sp->rest.id == T_INT8) {
                v = value_int((int64_t)acc->u.s.sum);
                natural = type_make(T_INT8);
            } else {
                v = value_numeric(acc->u.s.sum, 0);
                natural = type_numeric(-1, -1);
            }
            break;
        case AC_NUM:
            v = value_numeric(acc->u.s.sum, acc->u.s.scale);
            natural = type_numeric(-1, -1);
            break;
        case AC_FLOAT: {
            double d = float_total(sp, acc);
            if (sp->argt.id == T_FLOAT4) d = (double)(float)d;
            v = value_float(d);
            natural = sp->argt;
            break;
        }
        case AC_IV:
            v = value_interval((int32_t)acc->u.iv.months, (int32_t)acc->u.iv.days, (int64_t)acc->u.iv.micros);
            natural = type_make(T_INTERVAL);
            break;
        default:
            break;
        }
        break;
    case AGG_AVG:
        if (acc->n <= 0) break;
        switch (sp->cls) {
        case AC_INT:
        case AC_NUM: {
            i128 q;
            int qs;
            if (!dec_div(acc->u.s.sum, sp->cls == AC_INT ? 0 : acc->u.s.scale, (i128)acc->n, 0, &q, &qs)) {
                snprintf(err, errsize, "value overflows numeric format");
                return false;
            }
            v = value_numeric(q, qs);
            natural = type_numeric(-1, -1);
            break;
        }
        case AC_FLOAT:
            v = value_float(float_total(sp, acc) / (double)acc->n);
            natural = type_make(T_FLOAT8);
            break;
        case AC_IV:
            v = interval_div(acc->u.iv.months, acc->u.iv.days, acc->u.iv.micros, acc->n);
            natural = type_make(T_INTERVAL);
            break;
        default:
            break;
        }
        break;
    case AGG_MIN:
    case AGG_MAX:
        if (sp->extreme_only) {
            if (acc->n > 0) v = acc->u.ext;
        } else {
            const Value *e = sp->kind == AGG_MIN ? oset_min(&acc->u.set) : oset_max(&acc->u.set);
            if (e) v = *e;
        }
        natural = sp->argt;
        break;
    case AGG_BOOL_AND:
        if (acc->n > 0) v = value_bool(acc->u.b.nfalse <= 0);
        natural = type_make(T_BOOL);
        break;
    case AGG_BOOL_OR:
        if (acc->n > 0) v = value_bool(acc->u.b.ntrue > 0);
        natural = type_make(T_BOOL);
        break;
    case AGG_STRING_AGG:
        if (acc->n > 0) v = string_agg_value(sp, acc, arena);
        natural = type_make(T_TEXT);
        break;
    case AGG_MODE:
    case AGG_PERCENTILE_DISC:
        v = ordered_set_value(sp, acc);
        natural = sp->argt;
        break;
    case AGG_PERCENTILE_CONT:
        v = ordered_set_value(sp, acc);
        natural = type_make(T_FLOAT8);
        break;
    case AGG_ARRAY_AGG:
    case AGG_JSON_AGG:
    case AGG_JSON_OBJECT_AGG:
        if (acc->n > 0 && !collected_value(sp, acc, arena, &v, err, errsize)) return false;
        natural = sp->rest;
        break;
    case AGG_LAG:
    case AGG_FIRST_VALUE:
    case AGG_LAST_VALUE:
    case AGG__COUNT:
        break;
    }
    if (!v.isnull && natural.id != sp->rest.id && sp->rest.id != T_UNKNOWN) {
        Value c;
        if (!value_cast(natural, sp->rest, &v, arena, &c, err, errsize)) return false;
        v = c;
    }
    *out = v;
    return true;
}

/* ---------- checkpoints ---------- */

typedef struct SetWriter {
    StrBuf *sb;
    Type t;
} SetWriter;

static void put_entry(void *ctx, const Value *v, int64_t count)
{
    SetWriter *w = ctx;
    op_put_value(w->sb, w->t, v);
    op_put_i64(w->sb, count);
}

static void put_set(StrBuf *sb, Type t, const OSet *s)
{
    op_put_u64(sb, (uint64_t)s->n);
    SetWriter w = {sb, t};
    oset_walk(s, put_entry, &w);
}

static bool get_set(OpReader *r, Type t, OSet *s, int64_t *bytes)
{
    uint64_t n = op_get_u64(r);
    for (uint64_t i = 0; i < n && !r->bad; i++) {
        Value v;
        op_get_value(r, t, &v);
        int64_t c = op_get_i64(r);
        if (r->bad || v.isnull || c == 0) return false;
        oset_add(s, t, &v, c, bytes);
    }
    return !r->bad;
}

/* DISTINCT sets, per call (its counter k of the group's set): the same bytes as
 * put_set / get_set (values in ascending order). */
static void put_dset(StrBuf *sb, Type t, const DSet *s, uint32_t k)
{
    op_put_u64(sb, (uint64_t)dset_size(s, k));
    SetWriter w = {sb, t};
    dset_walk_sorted(s, t, k, put_entry, &w);
}

static bool get_dset(OpReader *r, Type t, DSet *s, uint32_t k, Pool *pool, int64_t *bytes)
{
    uint64_t n = op_get_u64(r);
    for (uint64_t i = 0; i < n && !r->bad; i++) {
        Value v;
        op_get_value(r, t, &v);
        int64_t c = op_get_i64(r);
        if (r->bad || v.isnull || c == 0 || (s->presence && c < 0) || dset_count(s, t, &v, k) != 0) return false;
        dset_add(s, t, &v, k, c, pool, bytes);
    }
    return !r->bad;
}

/* ds: the call's DISTINCT set (its group's, shared), or NULL. */
static void put_acc(StrBuf *sb, const AggSpec *sp, const Acc *acc, const DSet *ds)
{
    op_put_i64(sb, acc->n);
    switch (sp->kind) {
    case AGG_SUM:
    case AGG_AVG:
    case AGG_SUM_SQUARES:
        if (sp->cls == AC_INT || sp->cls == AC_NUM) {
            op_put_i128(sb, acc->u.s.sum);
            op_put_u32(sb, (uint32_t)acc->u.s.scale);
            if (sp->track_scale) {
                op_put_u8(sb, acc->u.s.scnt ? 1 : 0);
                for (int k = 0; acc->u.s.scnt && k < AGGACC_NSCALES; k++) op_put_i64(sb, acc->u.s.scnt[k]);
            }
        } else if (sp->cls == AC_FLOAT) {
            if (sp->exact_float) {
                op_put_u8(sb, acc->u.f.exact ? 1 : 0);
                for (int k = 0; acc->u.f.exact && k < AGGACC_XLIMBS; k++) op_put_u64(sb, acc->u.f.exact[k]);
            } else {
                op_put_f64(sb, acc->u.f.sum);
            }
            op_put_i64(sb, acc->u.f.nnan);
            op_put_i64(sb, acc->u.f.npinf);
            op_put_i64(sb, acc->u.f.nninf);
        } else if (sp->cls == AC_IV) {
            op_put_i128(sb, acc->u.iv.micros);
            op_put_i64(sb, acc->u.iv.months);
            op_put_i64(sb, acc->u.iv.days);
        }
        break;
    case AGG_STRING_AGG:
    case AGG_MODE:
    case AGG_PERCENTILE_CONT:
    case AGG_PERCENTILE_DISC:
    case AGG_ARRAY_AGG:
    case AGG_JSON_AGG:
    case AGG_JSON_OBJECT_AGG:
    case AGG_MIN:
    case AGG_MAX:
        if (sp->extreme_only) {
            Value v = acc->n > 0 ? acc->u.ext : value_null();
            op_put_value(sb, sp->argt, &v);
        } else {
            put_set(sb, sp->argt, &acc->u.set);
        }
        break;
    case AGG_BOOL_AND:
    case AGG_BOOL_OR:
        op_put_i64(sb, acc->u.b.ntrue);
        op_put_i64(sb, acc->u.b.nfalse);
        break;
    default:
        break;
    }
    op_put_u8(sb, ds ? 1 : 0);
    if (ds) put_dset(sb, sp->argt, ds, sp->dpos);
}

/* lead: the Acc holding the call's DISTINCT set (its group's lead call); home: where
 * that set's header lives. */
static bool get_acc(AggAccs *x, OpReader *r, const AggSpec *sp, Acc *acc, Acc *lead, DSet *home)
{
    acc->n = op_get_i64(r);
    switch (sp->kind) {
    case AGG_SUM:
    case AGG_AVG:
    case AGG_SUM_SQUARES:
        if (sp->cls == AC_INT || sp->cls == AC_NUM) {
            acc->u.s.sum = op_get_i128(r);
            acc->u.s.scale = (int32_t)op_get_u32(r);
            if (acc->u.s.scale < 0 || acc->u.s.scale > 38) return false;
            if (sp->track_scale) {
                uint8_t has = op_get_u8(r);
                if (has > 1) return false;
                if (has) {
                    acc->u.s.scnt = xcalloc(AGGACC_NSCALES, sizeof(int64_t));
                    x->extra_bytes += AGGACC_NSCALES * (int64_t)sizeof(int64_t);
                    for (int k = 0; k < AGGACC_NSCALES; k++) acc->u.s.scnt[k] = op_get_i64(r);
                }
            }
        } else if (sp->cls == AC_FLOAT) {
            if (sp->exact_float) {
                uint8_t has = op_get_u8(r);
                if (has > 1) return false;
                if (has) {
                    acc->u.f.exact = xcalloc(AGGACC_XLIMBS, sizeof(uint64_t));
                    x->extra_bytes += AGGACC_XLIMBS * (int64_t)sizeof(uint64_t);
                    for (int k = 0; k < AGGACC_XLIMBS; k++) acc->u.f.exact[k] = op_get_u64(r);
                }
            } else {
                acc->u.f.sum = op_get_f64(r);
            }
            acc->u.f.nnan = op_get_i64(r);
            acc->u.f.npinf = op_get_i64(r);
            acc->u.f.nninf = op_get_i64(r);
        } else if (sp->cls == AC_IV) {
            acc->u.iv.micros = op_get_i128(r);
            acc->u.iv.months = op_get_i64(r);
            acc->u.iv.days = op_get_i64(r);
        }
        break;
    case AGG_STRING_AGG:
    case AGG_MODE:
    case AGG_PERCENTILE_CONT:
    case AGG_PERCENTILE_DISC:
    case AGG_ARRAY_AGG:
    case AGG_JSON_AGG:
    case AGG_JSON_OBJECT_AGG:
    case AGG_MIN:
    case AGG_MAX:
        if (sp->extreme_only) {
            Value v;
            op_get_value(r, sp->argt, &v);
            if (type_is_varlen(sp->argt) && !v.isnull) {
                char *t = xmalloc(v.len ? v.len : 1);
                if (v.len) memcpy(t, v.s, v.len);
                x->extra_bytes += v.len;
                v.s = t;
            }
            acc->u.ext = v;
            if ((acc->n > 0) == (v.isnull != 0)) return false;
        } else if (!get_set(r, sp->argt, &acc->u.set, &x->extra_bytes)) {
            return false;
        }
        break;
    case AGG_BOOL_AND:
    case AGG_BOOL_OR:
        acc->u.b.ntrue = op_get_i64(r);
        acc->u.b.nfalse = op_get_i64(r);
        break;
    default:
        break;
    }
    uint8_t has_dist = op_get_u8(r);
    if (has_dist > 1) return false;
    if (has_dist) {
        if (!sp->distinct) return false;
        (void)lead;
        if (!home->width) dset_init(home, sp->argt, x->dg[sp->dgroup].width, x->insert_only);
        if (!get_dset(r, sp->argt, home, sp->dpos, &x->pool, &x->extra_bytes)) return false;
    }
    return !r->bad;
}

void aggacc_put(const AggAccs *x, StrBuf *sb, const Acc *accs)
{
    for (int j = 0; j < x->n; j++) {
        const AggSpec *sp = &x->specs[j];
        put_acc(sb, sp, &accs[j], sp->distinct ? aggacc_dist(x, accs, sp->dgroup) : NULL);
    }
}

bool aggacc_copy1(AggAccs *dst, int j, Acc *dst_accs, const AggAccs *src, int i, const Acc *src_accs)
{
    const AggSpec *d = &dst->specs[j], *s = &src->specs[i];
    if (d->kind != s->kind || d->cls != s->cls || d->argt.id != s->argt.id || d->distinct || s->distinct ||
        d->extreme_only != s->extreme_only || d->track_scale != s->track_scale || d->exact_float != s->exact_float)
        return false;
    StrBuf b = STRBUF_INIT;
    put_acc(&b, s, &src_accs[i], NULL);
    OpReader r = {(const uint8_t *)b.data, (const uint8_t *)b.data + b.len, false};
    bool ok = get_acc(dst, &r, d, &dst_accs[j], NULL, NULL) && !r.bad && r.p == r.end;
    sb_free(&b);
    return ok;
}

bool aggacc_get(AggAccs *x, OpReader *r, Acc *accs)
{
    for (int j = 0; j < x->n; j++) {
        const AggSpec *sp = &x->specs[j];
        bool d = sp->distinct;
        if (!get_acc(x, r, sp, &accs[j], d ? &accs[x->dg[sp->dgroup].lead] : NULL,
                     d ? aggacc_dset_home(x, accs, sp->dgroup) : NULL))
            return false;
    }
    return true;
}
