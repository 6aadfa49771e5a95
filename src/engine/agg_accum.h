/* Aggregate accumulators shared by the operators that aggregate: GROUP BY
 * (op_aggregate.c), window aggregates (op_window_aggregate.c) and running OVER
 * aggregates (op_over_agg.c). An AggAccs describes the aggregate calls of one operator
 * plus per-row scratch; the accumulators themselves (Acc, one per call) live in the
 * operator's state blocks, zero-initialised.
 *
 * Accumulators (NULL arguments are ignored by all but COUNT(*)):
 *   COUNT(*), COUNT(x)          weighted counts
 *   SUM/AVG of integers         int128 sum + count (SUM(int2/int4) is bigint and
 *                               reports "bigint out of range"; SUM(int8) is numeric)
 *   SUM/AVG of numeric          int128 at the largest scale among the values counted
 *                               (PostgreSQL's result scale); AVG via dec_div. Over an
 *                               updating input a count of values per scale (0..38)
 *                               lets the scale shrink again when the values that had
 *                               it are retracted: the result depends only on the rows
 *                               that remain
 *   SUM/AVG of floats           finite values + counts of NaN/+Inf/-Inf, so
 *                               retracting a non-finite value restores the sum. Over
 *                               an insert-only input a running double sum (the order
 *                               PostgreSQL adds in); over an updating input an exact
 *                               fixed-point sum of every double (2176 bits) rounded
 *                               once when read, so retracting a value leaves no
 *                               rounding residue (3e9 + 12.0000001 - 3e9 is 12.0000001)
 *   SUM/AVG of intervals        field-wise sums (months, days, micros)
 *   MIN/MAX                     ordered multiset value -> multiplicity (AVL tree), so
 *                               retracting the extreme falls back to the next value;
 *                               over an insert-only input only the extreme is kept
 *   STRING_AGG                  the same ordered multiset, joined in order when read
 *   ARRAY_AGG, JSON_AGG,        the same ordered multiset of packed items (the values and
 *   JSON_OBJECT_AGG             the ORDER BY keys, agg_vitem.h), built when read
 *   BOOL_AND/BOOL_OR            counts of true and false
 *   DISTINCT                    per-group value -> multiplicity (hash multiset,
 *                               distset.h); the accumulator sees a
 *                               value only on 0 -> 1 and 1 -> 0 transitions
 *   FILTER (WHERE p)            evaluated per change; the aggregate skips it unless true
 *
 * Applying a change is two-phase so that a row is applied completely or not at all:
 * aggacc_eval (arguments, filters), aggacc_prepare (everything that can fail, e.g. a
 * sum leaving its type's range), then aggacc_commit (cannot fail). The hot functions
 * are inline: they run once per input row and aggregate call. */
#ifndef WEIR_ENGINE_AGG_ACCUM_H
#define WEIR_ENGINE_AGG_ACCUM_H

#include "base/decimal.h"
#include "engine/op.h"
#include "engine/distset.h"
#include "engine/pool.h"
#include "engine/ordset.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef enum ArgClass { AC_NONE, AC_INT, AC_NUM, AC_FLOAT, AC_IV, AC_BOOL, AC_OTHER } ArgClass;
typedef enum FastOut { FAST_NONE, FAST_COUNT, FAST_SUM_BIGINT, FAST_SUM_NUMERIC, FAST_EXTREME } FastOut;

typedef struct AggSpec {
    AggKind kind;
    ArgClass cls;
    Type argt;               /* argument type (int8 for COUNT(*)) */
    Type rest;               /* result type */
    const Expr *arg;         /* NULL for COUNT(*) */
    const Expr *filter;      /* NULL when none */
    int argcol;              /* >= 0: the argument is this input column */
    bool distinct;           /* DISTINCT that changes the result (not for MIN/MAX) */
    bool extreme_only;       /* MIN/MAX over an insert-only input: keep just the extreme */
    bool argt_intlike;       /* argument compares as int64 */
    bool track_scale;        /* numeric SUM/AVG over an updating input: count values per scale */
    bool exact_float;        /* float SUM/AVG over an updating input: exact fixed-point sum */
    FastOut fast;            /* output shortcut when the natural type is the result type */
    int fsame;               /* an earlier call with an equal FILTER (its verdict is reused), or -1 */
    int dgroup;              /* DISTINCT: the group of calls sharing this argument, else -1 */
    uint32_t dpos;           /* DISTINCT: this call's counter in the group's set */
    Value sep;               /* STRING_AGG: the separator (text) */
    bool item;               /* STRING_AGG over packed items (agg_item.h): argt is oset_item_type */
    bool desc;               /* STRING_AGG, ordered-set aggregates: values in descending order */
    bool nulls_first;        /* STRING_AGG over items: NULL order keys first */
    bool reorder;            /* STRING_AGG over items: sorted when read by key (desc, nulls_first),
                                then value and delimiter ascending, NULL last (PostgreSQL's order
                                for DISTINCT; NULL placement the multiset's order does not give) */
    bool frac_null;          /* PERCENTILE_*: the fraction is NULL (the result is NULL) */
    double frac;             /* PERCENTILE_*: the fraction, 0 <= frac <= 1 */
} AggSpec;

/* DISTINCT calls over one argument share one value set per group (held by the Acc of
 * the first of them, `lead`), one counter per call. */
typedef struct DistGroup {
    int lead;
    uint32_t width;          /* calls in the group */
} DistGroup;

/* 128-bit sums at 8-byte alignment, so that an accumulator is 40 bytes, not 48 (the
 * state of 100k groups should stay small and cache-friendly); the members are only
 * read and written whole, never through a pointer. */
typedef i128 i128_a8 __attribute__((aligned(8)));

/* One aggregate's accumulator (40 bytes). Zeroed memory is the empty accumulator. A
 * DISTINCT call's value set is its group's, in the accumulator block after the
 * accumulators (aggacc_dist). */
typedef struct Acc {
    int64_t n;               /* non-NULL values counted (weighted) */
    union {
        struct { i128_a8 sum; int32_t scale; int32_t pad_; int64_t *scnt; } s; /* int / numeric;
                                                                  scnt: values per scale (track_scale) */
        struct {
            union { double sum; uint64_t *exact; };             /* exact: AGGACC_XLIMBS limbs */
            int64_t npinf, nninf, nnan;
        } f;                                                    /* float */
        struct { i128_a8 micros; int64_t months, days; } iv;    /* interval */
        struct { int64_t ntrue, nfalse; } b;                    /* bool */
        OSet set;                                               /* MIN/MAX, STRING_AGG, ordered-set multiset */
        Value ext;                                              /* MIN/MAX extreme (text malloc'd) */
    } u;
} Acc;

typedef struct AggAccs {
    int n;                   /* aggregate calls */
    AggSpec *specs;
    const char *state_id;    /* for messages */
    int64_t extra_bytes;     /* memory owned by accumulators (multisets, DISTINCT maps, text) */
    Pool pool;               /* DISTINCT sets' text copies and value blocks (released by aggacc_fini) */
    bool insert_only;        /* the input never retracts (DISTINCT sets keep presence bits) */
    DistGroup *dg;           /* DISTINCT groups */
    int ndg;
    /* per-row scratch, filled by aggacc_eval / aggacc_prepare */
    int8_t *fpass;           /* per call with a FILTER: eval_pred's verdict for this row */
    uint64_t *dhash;         /* per DISTINCT group: the argument's hash */
    const DSetEntry **dent;  /* per DISTINCT group: the argument's entry (NULL: absent) */
    bool *dlooked;           /* per DISTINCT group: dhash/dent are this row's */
    int64_t *ddelta;         /* counter deltas of one group (the widest) */
    Value *argv;
    Value *sqv;              /* AGG_SUM_SQUARES: the square of argv */
    bool *active;
    int64_t *eff;
    i128 *cand;
    int32_t *cand_scale;
} AggAccs;

/* Exact float sums: a two's complement fixed-point integer in units of 2^-1074 (the
 * smallest double) with room for 2^63 maximal doubles. */
#define AGGACC_XLIMBS 34
#define AGGACC_NSCALES 39
/* x += v * w exactly (v finite). */
void aggacc_xadd(uint64_t *x, double v, int64_t w);
/* x rounded to the nearest double (ties to even). */
double aggacc_xvalue(const uint64_t *x);

/* Bytes of one group's accumulator block: the calls' Accs, then the header of each
 * DISTINCT group's set (the sets' tables are allocated apart). Operators size their
 * per-group state with it; zeroed memory is the empty accumulator. */
static inline size_t aggacc_bytes(const AggAccs *x)
{
    return sizeof(Acc) * (size_t)x->n + sizeof(DSet) * (size_t)x->ndg;
}
/* The header of DISTINCT group g's set in the block starting at accs. */
static inline DSet *aggacc_dset_home(const AggAccs *x, Acc *accs, int g)
{
    return (DSet *)(void *)(accs + x->n) + g;
}
/* DISTINCT group g's set, NULL until its first value (a zeroed header has width 0). */
static inline const DSet *aggacc_dist(const AggAccs *x, const Acc *accs, int g)
{
    const DSet *d = (const DSet *)(const void *)(accs + x->n) + g;
    return d->width ? d : NULL;
}

/* Set up the calls (the plan must outlive x). insert_only: the input never retracts,
 * so MIN/MAX keep only the extreme. */
/* mode / percentile_cont / percentile_disc: accumulate the multiset of their values. */
static inline bool aggacc_is_ordered_set(AggKind k)
{
    return k == AGG_MODE || k == AGG_PERCENTILE_CONT || k == AGG_PERCENTILE_DISC;
}
/* array_agg / json_agg / json_object_agg: the multiset of their packed items (agg_vitem.h). */
static inline bool aggacc_is_collecting(AggKind k)
{
    return k == AGG_ARRAY_AGG || k == AGG_JSON_AGG || k == AGG_JSON_OBJECT_AGG;
}
void aggacc_init(AggAccs *x, const AggCall *calls, int n, bool insert_only, const char *state_id);
void aggacc_fini(AggAccs *x);
/* Release the memory owned by the n accumulators of one group (they become empty). */
void aggacc_release(AggAccs *x, Acc *accs);
/* Does every accumulator keep its memory in x->pool alone (released by aggacc_fini), so
 * that a table of groups can be dropped without aggacc_release on each? */
bool aggacc_pool_only(const AggAccs *x);
/* Mix the accumulator shape (kinds, classes, types) into h: checkpoints of a different
 * shape are rejected. */
uint64_t aggacc_shape(const AggAccs *x, uint64_t h);
/* Checkpoint one group's accumulators / read them back into zeroed accs. */
void aggacc_put(const AggAccs *x, StrBuf *sb, const Acc *accs);
bool aggacc_get(AggAccs *x, OpReader *r, Acc *accs);
/* Copy accumulator i of src_accs (calls `src`) into accumulator j of dst_accs (calls
 * `dst`), which is empty. False when the two calls keep different accumulators (kind,
 * argument class or layout), or for DISTINCT calls, whose value sets are shared by the
 * calls over one argument. */
bool aggacc_copy1(AggAccs *dst, int j, Acc *dst_accs, const AggAccs *src, int i, const Acc *src_accs);
/* The general result path of aggregate j (conversions to the result type). */
bool aggacc_value(const AggSpec *sp, const Acc *acc, Arena *arena, Value *out, char *err, size_t errsize);

/* Evaluate the filters and arguments of every call over row into the scratch
 * (argv/active). Returns NULL, or the runtime error message (in ec). */
static inline const char *aggacc_eval(AggAccs *x, const Value *row, EvalCtx *ec)
{
    for (int j = 0; j < x->n; j++) {
        const AggSpec *sp = &x->specs[j];
        x->active[j] = true;
        if (sp->filter) {
            int r = sp->fsame >= 0 ? x->fpass[sp->fsame] : eval_pred(sp->filter, row, ec);
            if (r < 0) return ec->err;
            x->fpass[j] = (int8_t)r;
            if (r == 0) {
                x->active[j] = false;
                continue;
            }
        }
        if (!sp->arg) continue;
        if (sp->argcol >= 0) x->argv[j] = row[sp->argcol];
        else if (!eval_expr(sp->arg, row, ec, &x->argv[j])) return ec->err;
        if (x->argv[j].isnull) x->active[j] = false;
    }
    return NULL;
}

static inline bool aggacc_check_int64(i128 v) { return v >= (i128)INT64_MIN && v <= (i128)INT64_MAX; }

/* Phase A for call j: decide the effective weight and pre-compute anything that can
 * fail. Returns NULL on success, else the reason. */
static inline const char *aggacc_prepare1(AggAccs *x, int j, const Acc *accs, int64_t w)
{
    const AggSpec *sp = &x->specs[j];
    const Acc *acc = &accs[j];
    const Value *v = &x->argv[j];
    int64_t eff = w;
    if (sp->distinct) {
        int g = sp->dgroup;
        if (!x->dlooked[g]) {
            /* one lookup per row for all the calls sharing the argument */
            const DSet *ds = aggacc_dist(x, accs, g);
            x->dhash[g] = dset_hash(sp->argt, v);
            x->dent[g] = ds ? dset_find(ds, sp->argt, v, x->dhash[g]) : NULL;
            x->dlooked[g] = true;
        }
        int64_t prev = x->dent[g] ? dset_ent_count(aggacc_dist(x, accs, g), x->dent[g], sp->dpos) : 0;
        int64_t nc = prev + w;
        eff = (prev <= 0 && nc > 0) ? 1 : (prev > 0 && nc <= 0) ? -1 : 0;
    }
    x->eff[j] = eff;
    if (eff == 0) return NULL;
    if (sp->kind == AGG_SUM_SQUARES) {
        /* the value summed is the square; the DISTINCT key above stays the value */
        if (sp->cls == AC_FLOAT) {
            x->sqv[j] = value_float(v->f * v->f);
        } else {
            i128 r;
            int rs;
            if (!dec_mul(value_num(v), v->scale, value_num(v), v->scale, &r, &rs)) return "value overflows numeric format";
            x->sqv[j] = value_numeric(r, rs);
        }
        v = &x->sqv[j];
    }
    switch (sp->kind) {
    case AGG_SUM:
    case AGG_AVG:
    case AGG_SUM_SQUARES:
        if (sp->cls == AC_INT) {
            i128 prod, sum;
            if (__builtin_mul_overflow((i128)v->i, (i128)eff, &prod) ||
                __builtin_add_overflow(acc->u.s.sum, prod, &sum))
                return sp->rest.id == T_INT8 ? "bigint out of range" : "value overflows numeric format";
            if (sp->kind == AGG_SUM && sp->rest.id == T_INT8 && !aggacc_check_int64(sum)) return "bigint out of range";
            x->cand[j] = sum;
            x->cand_scale[j] = 0;
        } else if (sp->cls == AC_NUM) {
            i128 xv = value_num(v), r;
            int xs = v->scale, rs;
            if (eff != 1 && eff != -1) {
                if (!dec_mul(xv, xs, (i128)eff, 0, &xv, &xs)) return "value overflows numeric format";
            } else if (eff == -1) {
                xv = -xv;
            }
            if (acc->n == 0) {
                r = xv;
                rs = xs;
            } else if (!dec_add(acc->u.s.sum, acc->u.s.scale, xv, xs, &r, &rs)) {
                return "value overflows numeric format";
            }
            x->cand[j] = r;
            x->cand_scale[j] = rs;
        } else if (sp->cls == AC_IV) {
            int64_t m = acc->u.iv.months + (int64_t)v->iv.months * eff;
            int64_t d = acc->u.iv.days + (int64_t)v->iv.days * eff;
            i128 us;
            if (__builtin_mul_overflow((i128)v->i, (i128)eff, &us) ||
                __builtin_add_overflow(acc->u.iv.micros, us, &us))
                return "interval out of range";
            if (m < INT32_MIN || m > INT32_MAX || d < INT32_MIN || d > INT32_MAX || !aggacc_check_int64(us))
                return "interval out of range";
            x->cand[j] = us;
        }
        break;
    default:
        break;
    }
    return NULL;
}

/* Phase A for every active call. */
static inline const char *aggacc_prepare(AggAccs *x, const Acc *accs, int64_t w)
{
    for (int g = 0; g < x->ndg; g++) x->dlooked[g] = false;
    for (int j = 0; j < x->n; j++) {
        if (!x->active[j]) continue;
        const char *fail = aggacc_prepare1(x, j, accs, w);
        if (fail) return fail;
    }
    return NULL;
}

static inline int aggacc_cmp_arg(const AggSpec *sp, const Value *a, const Value *b)
{
    if (sp->argt_intlike) return (a->i > b->i) - (a->i < b->i);
    return value_compare(sp->argt, a, b);
}

/* Phase B for call j (after a successful phase A). Fails only on a retraction of an
 * insert-only MIN/MAX (an IR contract violation, fatal). */
static inline bool aggacc_commit1(AggAccs *x, int j, Acc *acc, int64_t w, char *err, size_t errsize)
{
    const AggSpec *sp = &x->specs[j];
    const Value *v = sp->kind == AGG_SUM_SQUARES ? &x->sqv[j] : &x->argv[j];
    int64_t eff = x->eff[j];
    if (eff == 0) return true;
    switch (sp->kind) {
    case AGG_COUNT_STAR:
    case AGG_COUNT:
        acc->n += eff;
        break;
    case AGG_SUM:
    case AGG_AVG:
    case AGG_SUM_SQUARES:
        acc->n += eff;
        switch (sp->cls) {
        case AC_INT:
        case AC_NUM:
            acc->u.s.sum = x->cand[j];
            acc->u.s.scale = x->cand_scale[j];
            if (sp->track_scale) {
                if (!acc->u.s.scnt) {
                    acc->u.s.scnt = xcalloc(AGGACC_NSCALES, sizeof(int64_t));
                    x->extra_bytes += AGGACC_NSCALES * (int64_t)sizeof(int64_t);
                }
                acc->u.s.scnt[v->scale] += eff;
                /* the largest scale among the values still counted */
                int top = acc->u.s.scale;
                while (top > 0 && acc->u.s.scnt[top] <= 0) top--;
                if (top < acc->u.s.scale) {
                    i128 r;
                    /* exact: no value left has digits beyond `top` */
                    if (dec_rescale(acc->u.s.sum, acc->u.s.scale, top, &r)) {
                        acc->u.s.sum = r;
                        acc->u.s.scale = top;
                    }
                }
            }
            if (acc->n == 0) {
                acc->u.s.sum = 0;
                acc->u.s.scale = 0;
            }
            break;
        case AC_FLOAT:
            if (isnan(v->f)) acc->u.f.nnan += eff;
            else if (isinf(v->f)) {
                if (v->f > 0) acc->u.f.npinf += eff;
                else acc->u.f.nninf += eff;
            } else if (sp->exact_float) {
                if (!acc->u.f.exact) {
                    acc->u.f.exact = xcalloc(AGGACC_XLIMBS, sizeof(uint64_t));
                    x->extra_bytes += AGGACC_XLIMBS * (int64_t)sizeof(uint64_t);
                }
                aggacc_xadd(acc->u.f.exact, v->f, eff);
            } else {
                acc->u.f.sum += v->f * (double)eff;
            }
            if (!sp->exact_float && acc->n - acc->u.f.nnan - acc->u.f.npinf - acc->u.f.nninf == 0)
                acc->u.f.sum = 0.0;
            break;
        case AC_IV:
            acc->u.iv.months += (int64_t)v->iv.months * eff;
            acc->u.iv.days += (int64_t)v->iv.days * eff;
            acc->u.iv.micros = x->cand[j];
            break;
        default:
            break;
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
        if (!sp->extreme_only) {
            oset_add(&acc->u.set, sp->argt, v, eff, &x->extra_bytes);
            acc->n += eff;
            break;
        }
        if (eff < 0) {
            snprintf(err, errsize, "internal error: retraction on the insert-only input of %s", x->state_id);
            return false;
        }
        if (acc->n == 0 || (sp->kind == AGG_MIN ? aggacc_cmp_arg(sp, v, &acc->u.ext) < 0
                                                : aggacc_cmp_arg(sp, v, &acc->u.ext) > 0)) {
            if (type_is_varlen(sp->argt)) {
                if (acc->n > 0 && !acc->u.ext.isnull) {
                    x->extra_bytes -= acc->u.ext.len;
                    free((void *)acc->u.ext.s);
                }
                char *t = xmalloc(v->len ? v->len : 1);
                if (v->len) memcpy(t, v->s, v->len);
                x->extra_bytes += v->len;
                acc->u.ext = value_text(t, v->len);
            } else {
                acc->u.ext = *v;
            }
        }
        acc->n += eff;
        break;
    case AGG_BOOL_AND:
    case AGG_BOOL_OR:
        acc->n += eff;
        if (v->i) acc->u.b.ntrue += eff;
        else acc->u.b.nfalse += eff;
        break;
    case AGG_LAG:
    case AGG_FIRST_VALUE:
    case AGG_LAST_VALUE:
    case AGG__COUNT:
        break; /* value functions are read from kept rows (op_over_agg.c), never accumulated */
    }
    return true;
}

/* Phase B for every active call. */
/* Phase B for the DISTINCT sets: each group's set takes w in the counters of its
 * active calls, in one update. */
static inline bool aggacc_commit_distinct(AggAccs *x, Acc *accs, int64_t w, char *err, size_t errsize)
{
    if (x->insert_only && w < 0) {
        snprintf(err, errsize, "internal error: retraction on the insert-only input of %s", x->state_id);
        return false;
    }
    for (int g = 0; g < x->ndg; g++) {
        if (!x->dlooked[g]) continue; /* no call of the group was active */
        const DistGroup *dg = &x->dg[g];
        DSet *dist = aggacc_dset_home(x, accs, g);
        const AggSpec *lsp = &x->specs[dg->lead];
        if (!dist->width) dset_init(dist, lsp->argt, dg->width, x->insert_only);
        const Value *v = NULL;
        memset(x->ddelta, 0, sizeof(int64_t) * dg->width);
        for (int j = 0; j < x->n; j++)
            if (x->specs[j].dgroup == g && x->active[j]) {
                x->ddelta[x->specs[j].dpos] = w;
                v = &x->argv[j];
            }
        dset_apply(dist, lsp->argt, v, x->dhash[g], x->ddelta, &x->pool, &x->extra_bytes);
    }
    return true;
}

static inline bool aggacc_commit(AggAccs *x, Acc *accs, int64_t w, char *err, size_t errsize)
{
    if (x->ndg && !aggacc_commit_distinct(x, accs, w, err, errsize)) return false;
    for (int j = 0; j < x->n; j++)
        if (x->active[j] && !aggacc_commit1(x, j, &accs[j], w, err, errsize)) return false;
    return true;
}

/* The current value of call j (text points into the accumulator). Fast paths for the
 * common accumulators whose natural type is the result type. */
static inline bool aggacc_out(const AggSpec *sp, const Acc *acc, Arena *arena, Value *out, char *err, size_t errsize)
{
    switch (sp->fast) {
    case FAST_COUNT:
        *out = value_int(acc->n);
        return true;
    case FAST_SUM_BIGINT:
        *out = acc->n > 0 ? value_int((int64_t)acc->u.s.sum) : value_null();
        return true;
    case FAST_SUM_NUMERIC:
        *out = acc->n > 0 ? value_numeric(acc->u.s.sum, acc->u.s.scale) : value_null();
        return true;
    case FAST_EXTREME:
        *out = acc->n > 0 ? acc->u.ext : value_null();
        return true;
    default:
        return aggacc_value(sp, acc, arena, out, err, errsize);
    }
}

/* An output row of aggregated state: the nkeys cells of keys (group key, or the input
 * row of a running aggregate), then the current value of every call (aggacc_out: text
 * may point into the accumulators or arena). False on a conversion error (err). */
static inline bool aggacc_row(const AggAccs *x, const Acc *accs, const Value *keys, int nkeys, Value *row,
                              Arena *arena, char *err, size_t errsize)
{
    if (nkeys > 0) memcpy(row, keys, sizeof(Value) * (size_t)nkeys);
    for (int j = 0; j < x->n; j++)
        if (!aggacc_out(&x->specs[j], &accs[j], arena, &row[nkeys + j], err, errsize)) return false;
    return true;
}

#endif
