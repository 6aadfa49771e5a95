/* GROUP BY aggregate operator, incremental under retractions.
 *
 * State: a keyed table group key -> Group {weighted row count, one accumulator per
 * aggregate}. A step applies every input change (with its weight) to its group; for
 * each group touched in the step the output row it had before the step is emitted as
 * -old when first touched (text copied), and at the end of the step the new row is
 * emitted as +new unless it is identical to the old one (then the -old is dropped). A
 * group whose row count returns to 0 is deleted (emitting only -old). A global
 * aggregate (no GROUP BY) follows PostgreSQL: it always has exactly one row, emitted
 * in the first step (COUNT 0, SUM NULL ...) and never deleted.
 *
 * Accumulators (NULL arguments are ignored by all but COUNT(*)):
 *   COUNT(*), COUNT(x)          weighted counts
 *   SUM/AVG of integers         int128 sum + count (SUM(int2/int4) is bigint and
 *                               reports "bigint out of range"; SUM(int8) is numeric)
 *   SUM/AVG of numeric          int128 at the largest scale seen while the group had
 *                               values (PostgreSQL's result scale); AVG via dec_div
 *   SUM/AVG of floats           double sum of finite values + counts of NaN/+Inf/-Inf,
 *                               so retracting a non-finite value restores the sum.
 *                               Retracting finite values can leave rounding residue
 *                               (as any floating-point running sum); the sum is reset
 *                               to exactly 0 whenever no finite value remains.
 *   SUM/AVG of intervals        field-wise sums (months, days, micros)
 *   MIN/MAX                     ordered multiset value -> multiplicity (AVL tree), so
 *                               retracting the extreme falls back to the next value;
 *                               over an insert-only input only the extreme is kept
 *   BOOL_AND/BOOL_OR            counts of true and false
 *   DISTINCT                    per-group value -> multiplicity; the accumulator sees a
 *                               value only on 0 -> 1 and 1 -> 0 transitions
 *   FILTER (WHERE p)            evaluated per change; the aggregate skips it unless true
 *
 * Runtime errors (evaluating keys, arguments or filters; a sum leaving its type's
 * range) send the input row to the dead letters before any state changes, so a row
 * is either applied completely or not at all. */
#include "base/decimal.h"
#include "engine/keyed_table.h"
#include "engine/op.h"
#include "engine/ordset.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define AGG_MAGIC 0x57414747u /* "WAGG" */
#define AGG_VERSION 1u
#define PF_SLOT 48
#define PF_ENTRY 24

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
    FastOut fast;            /* output shortcut when the natural type is the result type */
} AggSpec;

/* One aggregate's accumulator in a group (48 bytes: the state of 10k groups should
 * stay cache-friendly). */
typedef struct Acc {
    int64_t n;               /* non-NULL values counted (weighted) */
    OSet *dist;              /* DISTINCT: value -> multiplicity, NULL until used */
    union {
        struct { i128 sum; int32_t scale; } s;                  /* int / numeric */
        struct { double sum; int64_t npinf, nninf, nnan; } f;   /* float */
        struct { i128 micros; int64_t months, days; } iv;       /* interval */
        struct { int64_t ntrue, nfalse; } b;                    /* bool */
        OSet set;                                               /* MIN/MAX multiset */
        Value ext;                                              /* MIN/MAX extreme (text malloc'd) */
    } u;
} Acc;

typedef struct Group {
    int64_t nrows;           /* weighted input row count */
    uint64_t touched;        /* step of the last change */
    int32_t old_idx;         /* index of this step's -old row in the output, -1 none */
    int32_t pad_;
    Acc acc[];
} Group;

typedef struct AggOp {
    Op base;
    const PlanNode *plan;
    const char *state_id;
    int ngroup, naggs;
    AggSpec *specs;
    Type *key_types;
    int *keycol;             /* per group key: input column, or -1 (expression) */
    KTab tab;
    bool global;             /* ngroup == 0 */
    bool initial_pending;    /* global: the initial row is still to be emitted */
    Group *gg;               /* the global group */
    int64_t extra_bytes;     /* multisets, DISTINCT maps, extreme text */
    /* per-row scratch */
    Value *keybuf;
    Value *argv;
    bool *active;
    int64_t *eff;
    i128 *cand;
    int32_t *cand_scale;
    bool out_has_text;
    Group **touched;
    int ntouched, touched_cap;
    bool col_keys;           /* every group key is a plain input column */
    uint64_t *hashes;        /* per input row key hashes (col_keys), for prefetching */
    int hashes_cap;
} AggOp;

static inline bool intlike(Type t)
{
    switch (t.id) {
    case T_BOOL: case T_INT2: case T_INT4: case T_INT8:
    case T_TIMESTAMP: case T_TIMESTAMPTZ: case T_DATE:
        return true;
    default:
        return false;
    }
}

static ArgClass classify(Type t)
{
    if (type_is_integer(t)) return AC_INT;
    if (t.id == T_NUMERIC) return AC_NUM;
    if (type_is_float(t)) return AC_FLOAT;
    if (t.id == T_INTERVAL) return AC_IV;
    if (t.id == T_BOOL) return AC_BOOL;
    return AC_OTHER;
}

/* ---------- group memory ---------- */

static void free_acc(AggOp *a, const AggSpec *sp, Acc *acc)
{
    if (sp->kind == AGG_MIN || sp->kind == AGG_MAX) {
        if (sp->extreme_only) {
            if (sp->argt.id == T_TEXT && acc->n > 0 && !acc->u.ext.isnull) {
                a->extra_bytes -= acc->u.ext.len;
                free((void *)acc->u.ext.s);
            }
            acc->u.ext = value_null();
        } else {
            oset_clear(&acc->u.set, sp->argt, &a->extra_bytes);
        }
    }
    if (acc->dist) {
        oset_clear(acc->dist, sp->argt, &a->extra_bytes);
        free(acc->dist);
        a->extra_bytes -= (int64_t)sizeof(OSet);
        acc->dist = NULL;
    }
}

static void free_group(AggOp *a, Group *g)
{
    for (int j = 0; j < a->naggs; j++) free_acc(a, &a->specs[j], &g->acc[j]);
    ktab_remove(&a->tab, g);
}

static void clear_groups(AggOp *a)
{
    uint32_t pos = 0;
    Group *g;
    while ((g = ktab_next(&a->tab, &pos)))
        for (int j = 0; j < a->naggs; j++) free_acc(a, &a->specs[j], &g->acc[j]);
    KTab fresh;
    ktab_init(&fresh, a->tab.nkey, a->tab.types, a->tab.payload_size);
    ktab_fini(&a->tab);
    a->tab = fresh;
    a->gg = NULL;
}

static Group *new_group(AggOp *a, const Value *key, uint64_t h)
{
    bool created;
    Group *g = ktab_upsert(&a->tab, key, h, &created);
    if (created) g->old_idx = -1;
    return g;
}

static void ensure_global(AggOp *a)
{
    if (a->global && !a->gg) a->gg = new_group(a, NULL, ktab_hash(&a->tab, NULL));
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

static double float_total(const Acc *acc)
{
    if (acc->u.f.nnan > 0 || (acc->u.f.npinf > 0 && acc->u.f.nninf > 0)) return NAN;
    if (acc->u.f.npinf > 0) return INFINITY;
    if (acc->u.f.nninf > 0) return -INFINITY;
    return acc->u.f.sum;
}

/* The aggregate's current value. Only converting to an unexpected result type can
 * fail (a safety net for binder/engine disagreement). */
static bool acc_value(const AggSpec *sp, const Acc *acc, Arena *arena, Value *out, char *err, size_t errsize)
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
            double d = float_total(acc);
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
            v = value_float(float_total(acc) / (double)acc->n);
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

/* Fast output paths for the common accumulators whose natural type is the result
 * type; everything else goes through acc_value. */
static inline bool agg_out(const AggSpec *sp, const Acc *acc, Arena *arena, Value *out, char *err, size_t errsize)
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
        return acc_value(sp, acc, arena, out, err, errsize);
    }
}

/* The group's output row (keys ++ aggregates) into row. Text points into the state. */
static bool group_row(AggOp *a, const Group *g, Value *row, Arena *arena, char *err, size_t errsize)
{
    if (a->ngroup > 0) memcpy(row, ktab_key(&a->tab, g), sizeof(Value) * (size_t)a->ngroup);
    for (int j = 0; j < a->naggs; j++)
        if (!agg_out(&a->specs[j], &g->acc[j], arena, &row[a->ngroup + j], err, errsize)) return false;
    return true;
}

static bool had_row(const AggOp *a, const Group *g)
{
    return a->global ? !a->initial_pending : g->nrows > 0;
}

/* First change of g in this step: remember (and emit as -old) the row it had. */
static bool touch(AggOp *a, Group *g, uint64_t step, OpCtx *ctx)
{
    if (g->touched == step) return true;
    g->touched = step;
    g->old_idx = -1;
    if (a->ntouched == a->touched_cap) {
        a->touched_cap = a->touched_cap ? a->touched_cap * 2 : 256;
        a->touched = xrealloc(a->touched, sizeof(Group *) * (size_t)a->touched_cap);
    }
    a->touched[a->ntouched++] = g;
    if (had_row(a, g)) {
        /* the state changes below: the -old row must own copies of its text */
        Batch *out = a->base.out;
        g->old_idx = out->n;
        Value *dst = batch_append(out, -1);
        if (!group_row(a, g, dst, &out->arena, ctx->err, ctx->errsize)) return false;
        if (a->out_has_text)
            for (int c = 0; c < a->base.ncols; c++)
                if (a->base.out_types[c].id == T_TEXT && !dst[c].isnull) dst[c] = batch_text(out, dst[c].s, dst[c].len);
    }
    return true;
}

/* ---------- applying changes ---------- */

static bool check_int64(i128 v) { return v >= (i128)INT64_MIN && v <= (i128)INT64_MAX; }

/* Phase A for aggregate j: decide the effective weight and pre-compute anything that
 * can fail. Returns NULL on success, else the reason. */
static const char *prepare(AggOp *a, int j, const Group *g, int64_t w)
{
    const AggSpec *sp = &a->specs[j];
    const Acc *acc = &g->acc[j];
    const Value *v = &a->argv[j];
    int64_t eff = w;
    if (sp->distinct) {
        int64_t prev = acc->dist ? oset_add(acc->dist, sp->argt, v, 0, NULL) : 0;
        int64_t nc = prev + w;
        eff = (prev <= 0 && nc > 0) ? 1 : (prev > 0 && nc <= 0) ? -1 : 0;
    }
    a->eff[j] = eff;
    if (eff == 0) return NULL;
    switch (sp->kind) {
    case AGG_SUM:
    case AGG_AVG:
        if (sp->cls == AC_INT) {
            i128 prod, sum;
            if (__builtin_mul_overflow((i128)v->i, (i128)eff, &prod) ||
                __builtin_add_overflow(acc->u.s.sum, prod, &sum))
                return sp->rest.id == T_INT8 ? "bigint out of range" : "value overflows numeric format";
            if (sp->kind == AGG_SUM && sp->rest.id == T_INT8 && !check_int64(sum)) return "bigint out of range";
            a->cand[j] = sum;
            a->cand_scale[j] = 0;
        } else if (sp->cls == AC_NUM) {
            i128 x = value_num(v), r;
            int xs = v->scale, rs;
            if (eff != 1 && eff != -1) {
                if (!dec_mul(x, xs, (i128)eff, 0, &x, &xs)) return "value overflows numeric format";
            } else if (eff == -1) {
                x = -x;
            }
            if (acc->n == 0) {
                r = x;
                rs = xs;
            } else if (!dec_add(acc->u.s.sum, acc->u.s.scale, x, xs, &r, &rs)) {
                return "value overflows numeric format";
            }
            a->cand[j] = r;
            a->cand_scale[j] = rs;
        } else if (sp->cls == AC_IV) {
            int64_t m = acc->u.iv.months + (int64_t)v->iv.months * eff;
            int64_t d = acc->u.iv.days + (int64_t)v->iv.days * eff;
            i128 us;
            if (__builtin_mul_overflow((i128)v->i, (i128)eff, &us) ||
                __builtin_add_overflow(acc->u.iv.micros, us, &us))
                return "interval out of range";
            if (m < INT32_MIN || m > INT32_MAX || d < INT32_MIN || d > INT32_MAX || !check_int64(us))
                return "interval out of range";
            a->cand[j] = us;
        }
        break;
    default:
        break;
    }
    return NULL;
}

static inline int cmp_arg(const AggSpec *sp, const Value *x, const Value *y)
{
    if (sp->argt_intlike) return (x->i > y->i) - (x->i < y->i);
    return value_compare(sp->argt, x, y);
}

/* Phase B: commit aggregate j (cannot fail except an impossible retraction on an
 * insert-only input, which is fatal). */
static bool commit(AggOp *a, int j, Group *g, int64_t w, OpCtx *ctx)
{
    const AggSpec *sp = &a->specs[j];
    Acc *acc = &g->acc[j];
    const Value *v = &a->argv[j];
    int64_t eff = a->eff[j];
    if (sp->distinct) {
        if (!acc->dist) {
            acc->dist = xcalloc(1, sizeof(OSet));
            a->extra_bytes += (int64_t)sizeof(OSet);
        }
        oset_add(acc->dist, sp->argt, v, w, &a->extra_bytes);
    }
    if (eff == 0) return true;
    switch (sp->kind) {
    case AGG_COUNT_STAR:
    case AGG_COUNT:
        acc->n += eff;
        break;
    case AGG_SUM:
    case AGG_AVG:
        acc->n += eff;
        switch (sp->cls) {
        case AC_INT:
        case AC_NUM:
            acc->u.s.sum = a->cand[j];
            acc->u.s.scale = a->cand_scale[j];
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
            } else {
                acc->u.f.sum += v->f * (double)eff;
            }
            if (acc->n - acc->u.f.nnan - acc->u.f.npinf - acc->u.f.nninf == 0) acc->u.f.sum = 0.0;
            break;
        case AC_IV:
            acc->u.iv.months += (int64_t)v->iv.months * eff;
            acc->u.iv.days += (int64_t)v->iv.days * eff;
            acc->u.iv.micros = a->cand[j];
            break;
        default:
            break;
        }
        break;
    case AGG_MIN:
    case AGG_MAX:
        if (!sp->extreme_only) {
            oset_add(&acc->u.set, sp->argt, v, eff, &a->extra_bytes);
            acc->n += eff;
            break;
        }
        if (eff < 0) {
            snprintf(ctx->err, ctx->errsize,
                     "internal error: retraction on the insert-only input of %s", a->state_id);
            return false;
        }
        if (acc->n == 0 || (sp->kind == AGG_MIN ? cmp_arg(sp, v, &acc->u.ext) < 0
                                                : cmp_arg(sp, v, &acc->u.ext) > 0)) {
            if (sp->argt.id == T_TEXT) {
                if (acc->n > 0 && !acc->u.ext.isnull) {
                    a->extra_bytes -= acc->u.ext.len;
                    free((void *)acc->u.ext.s);
                }
                char *t = xmalloc(v->len ? v->len : 1);
                if (v->len) memcpy(t, v->s, v->len);
                a->extra_bytes += v->len;
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
    case AGG__COUNT:
        break;
    }
    return true;
}

/* ---------- the step ---------- */

static bool finish(AggOp *a, OpCtx *ctx)
{
    Batch *out = a->base.out;
    bool compact = false;
    for (int t = 0; t < a->ntouched; t++) {
        if (t + 4 < a->ntouched) ktab_prefetch_payload(&a->tab, a->touched[t + 4]);
        Group *g = a->touched[t];
        if (a->global || g->nrows > 0) {
            /* text points into the group's state, which stays put until the next step */
            Value *dst = batch_append(out, 1);
            if (!group_row(a, g, dst, &out->arena, ctx->err, ctx->errsize)) return false;
            if (g->old_idx >= 0 &&
                op_rows_identical(a->base.out_types, a->base.ncols, batch_row(out, g->old_idx), dst)) {
                out->n--;
                out->weights[g->old_idx] = 0;
                compact = true;
            }
        }
        g->old_idx = -1;
        if (!a->global && g->nrows == 0) free_group(a, g);
    }
    a->ntouched = 0;
    if (compact) {
        int k = 0;
        for (int i = 0; i < out->n; i++) {
            if (out->weights[i] == 0) continue;
            if (k != i) {
                memcpy(batch_row(out, k), batch_row(out, i), sizeof(Value) * (size_t)out->ncols);
                out->weights[k] = out->weights[i];
            }
            k++;
        }
        out->n = k;
    }
    return true;
}

static bool agg_step(Op *op, OpCtx *ctx)
{
    AggOp *a = (AggOp *)op;
    const Batch *in = op->in[0]->out;
    Batch *out = op->out;
    const PlanNode *pn = a->plan;
    EvalCtx ec = {0};
    ec.arena = &out->arena;
    ec.err[0] = '\0';
    uint64_t step = ctx->step;

    a->ntouched = 0;
    ensure_global(a);
    if (a->global && a->initial_pending) {
        if (!touch(a, a->gg, step, ctx)) return false;
        a->initial_pending = false;
    }

    /* The state is far bigger than the L1/L2 caches and rows hit groups at random:
     * hash every row's key first, then prefetch the home slot PF_SLOT rows ahead and
     * the group block PF_ENTRY rows ahead, so the memory latency overlaps with useful
     * work (distances measured with bench/engine_bench). */
    uint64_t *hashes = NULL;
    size_t entry_bytes = a->tab.payload_off + a->tab.payload_size;
    if (a->col_keys && !a->global && in->n > 0) {
        if (in->n > a->hashes_cap) {
            a->hashes_cap = in->n;
            a->hashes = xrealloc(a->hashes, sizeof(uint64_t) * (size_t)in->n);
        }
        hashes = a->hashes;
        for (int i = 0; i < in->n; i++) {
            const Value *row = batch_row(in, i);
            if (a->ngroup == 1) {
                hashes[i] = ktab_hash(&a->tab, &row[a->keycol[0]]);
            } else {
                for (int k = 0; k < a->ngroup; k++) a->keybuf[k] = row[a->keycol[k]];
                hashes[i] = ktab_hash(&a->tab, a->keybuf);
            }
        }
    }

    for (int i = 0; i < in->n; i++) {
        if (hashes) {
            if (i + PF_SLOT < in->n) ktab_prefetch_slot(&a->tab, hashes[i + PF_SLOT]);
            if (i + PF_ENTRY < in->n) ktab_prefetch_entry(&a->tab, hashes[i + PF_ENTRY], entry_bytes);
        }
        int64_t w = in->weights[i];
        if (w == 0) continue;
        const Value *row = batch_row(in, i);
        const char *fail = NULL;

        for (int k = 0; k < a->ngroup && !fail; k++) {
            if (a->keycol[k] >= 0) a->keybuf[k] = row[a->keycol[k]];
            else if (!eval_expr(pn->group[k], row, &ec, &a->keybuf[k])) fail = ec.err;
        }
        for (int j = 0; j < a->naggs && !fail; j++) {
            const AggSpec *sp = &a->specs[j];
            a->active[j] = true;
            if (sp->filter) {
                int r = eval_pred(sp->filter, row, &ec);
                if (r < 0) {
                    fail = ec.err;
                    break;
                }
                if (r == 0) {
                    a->active[j] = false;
                    continue;
                }
            }
            if (!sp->arg) continue;
            if (sp->argcol >= 0) a->argv[j] = row[sp->argcol];
            else if (!eval_expr(sp->arg, row, &ec, &a->argv[j])) {
                fail = ec.err;
                break;
            }
            if (a->argv[j].isnull) a->active[j] = false;
        }
        if (fail) {
            op_dead_letter(op, 0, i, fail);
            continue;
        }

        Group *g = a->global ? a->gg
                             : new_group(a, a->keybuf, hashes ? hashes[i] : ktab_hash(&a->tab, a->keybuf));
        if (!touch(a, g, step, ctx)) return false;
        for (int j = 0; j < a->naggs && !fail; j++)
            if (a->active[j]) fail = prepare(a, j, g, w);
        if (fail) {
            op_dead_letter(op, 0, i, fail);
            continue;
        }
        g->nrows += w;
        for (int j = 0; j < a->naggs; j++)
            if (a->active[j] && !commit(a, j, g, w, ctx)) return false;
    }
    return finish(a, ctx);
}

/* ---------- stats and checkpoints ---------- */

static int agg_stats(const Op *op, EngStateStats *out, int max)
{
    const AggOp *a = (const AggOp *)op;
    if (max >= 1) {
        out[0].id = a->state_id;
        out[0].entries = a->tab.count;
        out[0].bytes = a->tab.bytes + a->extra_bytes;
    }
    return 1;
}

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

typedef struct KeySortCtx {
    const AggOp *a;
} KeySortCtx;

static int cmp_groups(const void *x, const void *y, void *ctx)
{
    const AggOp *a = ((const KeySortCtx *)ctx)->a;
    const Value *kx = ktab_key(&a->tab, *(Group *const *)x);
    const Value *ky = ktab_key(&a->tab, *(Group *const *)y);
    for (int k = 0; k < a->ngroup; k++) {
        int c = op_cell_order(a->key_types[k], &kx[k], &ky[k]);
        if (c) return c;
    }
    return 0;
}

static void put_acc(StrBuf *sb, const AggSpec *sp, const Acc *acc)
{
    op_put_i64(sb, acc->n);
    switch (sp->kind) {
    case AGG_SUM:
    case AGG_AVG:
        if (sp->cls == AC_INT || sp->cls == AC_NUM) {
            op_put_i128(sb, acc->u.s.sum);
            op_put_u32(sb, (uint32_t)acc->u.s.scale);
        } else if (sp->cls == AC_FLOAT) {
            op_put_f64(sb, acc->u.f.sum);
            op_put_i64(sb, acc->u.f.nnan);
            op_put_i64(sb, acc->u.f.npinf);
            op_put_i64(sb, acc->u.f.nninf);
        } else if (sp->cls == AC_IV) {
            op_put_i128(sb, acc->u.iv.micros);
            op_put_i64(sb, acc->u.iv.months);
            op_put_i64(sb, acc->u.iv.days);
        }
        break;
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
    op_put_u8(sb, acc->dist ? 1 : 0);
    if (acc->dist) put_set(sb, sp->argt, acc->dist);
}

static bool get_acc(AggOp *a, OpReader *r, const AggSpec *sp, Acc *acc)
{
    acc->n = op_get_i64(r);
    switch (sp->kind) {
    case AGG_SUM:
    case AGG_AVG:
        if (sp->cls == AC_INT || sp->cls == AC_NUM) {
            acc->u.s.sum = op_get_i128(r);
            acc->u.s.scale = (int32_t)op_get_u32(r);
            if (acc->u.s.scale < 0 || acc->u.s.scale > 38) return false;
        } else if (sp->cls == AC_FLOAT) {
            acc->u.f.sum = op_get_f64(r);
            acc->u.f.nnan = op_get_i64(r);
            acc->u.f.npinf = op_get_i64(r);
            acc->u.f.nninf = op_get_i64(r);
        } else if (sp->cls == AC_IV) {
            acc->u.iv.micros = op_get_i128(r);
            acc->u.iv.months = op_get_i64(r);
            acc->u.iv.days = op_get_i64(r);
        }
        break;
    case AGG_MIN:
    case AGG_MAX:
        if (sp->extreme_only) {
            Value v;
            op_get_value(r, sp->argt, &v);
            if (sp->argt.id == T_TEXT && !v.isnull) {
                char *t = xmalloc(v.len ? v.len : 1);
                if (v.len) memcpy(t, v.s, v.len);
                a->extra_bytes += v.len;
                v.s = t;
            }
            acc->u.ext = v;
            if ((acc->n > 0) == (v.isnull != 0)) return false;
        } else if (!get_set(r, sp->argt, &acc->u.set, &a->extra_bytes)) {
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
        acc->dist = xcalloc(1, sizeof(OSet));
        a->extra_bytes += (int64_t)sizeof(OSet);
        if (!get_set(r, sp->argt, acc->dist, &a->extra_bytes)) return false;
    }
    return !r->bad;
}

/* Shape header: agg kinds and argument/result types must match the running plan. */
static uint64_t shape_hash(const AggOp *a)
{
    uint64_t h = 1469598103934665603ull;
#define MIX(x) (h = (h ^ (uint64_t)(x)) * 1099511628211ull)
    MIX(a->ngroup);
    MIX(a->naggs);
    for (int k = 0; k < a->ngroup; k++) MIX(a->key_types[k].id);
    for (int j = 0; j < a->naggs; j++) {
        const AggSpec *sp = &a->specs[j];
        MIX(sp->kind);
        MIX(sp->cls);
        MIX(sp->argt.id);
        MIX(sp->rest.id);
        MIX(sp->distinct);
        MIX(sp->extreme_only);
    }
#undef MIX
    return h;
}

static bool agg_serialize(const Op *op, StrBuf *sb)
{
    const AggOp *a = (const AggOp *)op;
    op_put_u32(sb, AGG_MAGIC);
    op_put_u32(sb, AGG_VERSION);
    op_put_u64(sb, shape_hash(a));
    op_put_u8(sb, a->initial_pending ? 1 : 0);
    /* groups sorted by key so the bytes depend only on the state's content */
    Group **gs = xmalloc(sizeof(Group *) * (size_t)(a->tab.count > 0 ? a->tab.count : 1));
    uint32_t pos = 0, n = 0;
    Group *g;
    while ((g = ktab_next(&a->tab, &pos))) gs[n++] = g;
    KeySortCtx kc = {a};
    qsort_r(gs, n, sizeof(Group *), cmp_groups, &kc);
    op_put_u64(sb, n);
    for (uint32_t i = 0; i < n; i++) {
        const Value *k = ktab_key(&a->tab, gs[i]);
        for (int c = 0; c < a->ngroup; c++) op_put_value(sb, a->key_types[c], &k[c]);
        op_put_i64(sb, gs[i]->nrows);
        for (int j = 0; j < a->naggs; j++) put_acc(sb, &a->specs[j], &gs[i]->acc[j]);
    }
    free(gs);
    return true;
}

static bool agg_deserialize(Op *op, const uint8_t *data, size_t len, char *err, size_t errsize)
{
    AggOp *a = (AggOp *)op;
    OpReader r = {data, data + len, false};
    if (op_get_u32(&r) != AGG_MAGIC || op_get_u32(&r) != AGG_VERSION || op_get_u64(&r) != shape_hash(a)) {
        snprintf(err, errsize, "state of %s: not an aggregate state of this shape", a->state_id);
        return false;
    }
    clear_groups(a);
    uint8_t pending = op_get_u8(&r);
    uint64_t n = op_get_u64(&r);
    bool ok = pending <= 1;
    for (uint64_t i = 0; i < n && ok && !r.bad; i++) {
        for (int c = 0; c < a->ngroup; c++) op_get_value(&r, a->key_types[c], &a->keybuf[c]);
        if (r.bad) break;
        uint64_t h = ktab_hash(&a->tab, a->keybuf);
        if (ktab_find(&a->tab, a->keybuf, h)) {
            ok = false;
            break;
        }
        Group *g = new_group(a, a->keybuf, h);
        g->nrows = op_get_i64(&r);
        for (int j = 0; j < a->naggs && ok; j++) ok = get_acc(a, &r, &a->specs[j], &g->acc[j]);
    }
    if (!ok || r.bad || r.p != r.end) {
        clear_groups(a);
        a->initial_pending = a->global;
        ensure_global(a);
        snprintf(err, errsize, "state of %s: truncated or malformed", a->state_id);
        return false;
    }
    a->initial_pending = pending != 0;
    ensure_global(a);
    return true;
}

static void agg_free(Op *op)
{
    AggOp *a = (AggOp *)op;
    clear_groups(a);
    ktab_fini(&a->tab);
    free(a->specs);
    free(a->key_types);
    free(a->keycol);
    free(a->keybuf);
    free(a->argv);
    free(a->active);
    free(a->eff);
    free(a->cand);
    free(a->cand_scale);
    free(a->touched);
    free(a->hashes);
    op_base_fini(op);
    free(a);
}

static const OpVtbl agg_vt = {
    .kind = "aggregate",
    .step = agg_step,
    .free = agg_free,
    .state_stats = agg_stats,
    .serialize = agg_serialize,
    .deserialize = agg_deserialize,
};

Op *op_aggregate_new(EngPipeline *p, const IrNode *n, Op **inputs)
{
    AggOp *a = xcalloc(1, sizeof *a);
    op_base_init(&a->base, &agg_vt, p, n, inputs, 1);
    const PlanNode *pn = n->plan;
    a->plan = pn;
    a->state_id = n->nstate > 0 ? n->state[0].id : n->op_id;
    a->ngroup = pn->ngroup;
    a->naggs = pn->naggs;
    a->global = pn->ngroup == 0;
    a->initial_pending = a->global;
    bool insert_only = n->inputs[0]->mode == CL_INSERT_ONLY;
    int ng = a->ngroup > 0 ? a->ngroup : 1, na = a->naggs > 0 ? a->naggs : 1;
    a->key_types = xmalloc(sizeof(Type) * (size_t)ng);
    a->keycol = xmalloc(sizeof(int) * (size_t)ng);
    a->col_keys = true;
    for (int k = 0; k < a->ngroup; k++) {
        a->key_types[k] = pn->group[k]->type;
        a->keycol[k] = pn->group[k]->kind == EX_COLUMN ? pn->group[k]->col : -1;
        if (a->keycol[k] < 0) a->col_keys = false;
    }
    a->specs = xcalloc((size_t)na, sizeof(AggSpec));
    for (int j = 0; j < a->naggs; j++) {
        const AggCall *c = &pn->aggs[j];
        AggSpec *sp = &a->specs[j];
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
        sp->argt_intlike = intlike(sp->argt);
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
    for (int c = 0; c < a->base.ncols; c++)
        if (a->base.out_types[c].id == T_TEXT) a->out_has_text = true;
    ktab_init(&a->tab, a->ngroup, a->key_types, sizeof(Group) + sizeof(Acc) * (size_t)a->naggs);
    a->keybuf = xcalloc((size_t)ng, sizeof(Value));
    a->argv = xcalloc((size_t)na, sizeof(Value));
    a->active = xcalloc((size_t)na, sizeof(bool));
    a->eff = xcalloc((size_t)na, sizeof(int64_t));
    a->cand = xcalloc((size_t)na, sizeof(i128));
    a->cand_scale = xcalloc((size_t)na, sizeof(int32_t));
    ensure_global(a);
    return &a->base;
}
