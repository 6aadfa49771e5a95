/* Runs one deterministic model test (see test_runner.h).
 *
 * Semantics (documented in docs/testing.md):
 * - `given` entries are processed in order; every row is one engine step, and so is
 *   every watermark entry. Bare rows feed the model's only source.
 * - Event time moves as in `weir run`: a row is judged against its source's watermark
 *   before it (its frontier), then the watermark becomes max(event time) -
 *   watermark_delay; `watermark` entries move it further.
 * - Rows of updating sources carry `op` (insert|update|delete); other sources take
 *   inserts only. Omitted columns are NULL.
 * - `expect` is the exact changelog of the model; `expect_final` the rows it holds at
 *   the end, compared order-insensitively. In both, values are converted to the
 *   column's type before comparing (15.5 equals numeric 15.50) and an omitted column
 *   means NULL.
 * - Rows the engine rejects (late rows, runtime errors) are collected in order;
 *   `expect_dead_letters` lists them exactly: each its reason and, optionally, some
 *   columns of the rejected row as the rejecting operator saw it.
 * - Upgrade tests (`previous`): `given` runs on the previous version; the plan from it
 *   to the project's version is checked against `expect_verdict`; the new version takes
 *   the state as weir apply does (kept and mapped by operator id, rebuilt by replaying
 *   `given`); the model's changelog then records the restatement (the changes from its
 *   old rows to the new ones, or all its new rows when its columns changed, or the
 *   replay's whole output when its rows are not kept in state) and the rows of `then`. */
#include "testing/test_runner.h"
#include "base/jsonw.h"
#include "base/strmap.h"
#include "engine/engine.h"
#include "lifecycle/manifest.h"
#include "lifecycle/manifest_read.h"
#include "lifecycle/plan.h"
#include "sql/binder.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct RowList {
    int ncols;
    int n, cap;
    Value *vals;
    ChangeOp *ops;
    unsigned char *masks;  /* expected rows of a `compare: subset` test: [n * ncols], 1 where
                              the row names the column (only those are compared); else NULL */
} RowList;

/* A row the engine rejected during the test (copied: the engine's row is borrowed). */
typedef struct DeadRow {
    const char *reason;
    const char *at;        /* the model (or source) that rejected it */
    int ncols;
    const char **names;
    Type *types;
    Value *row;
} DeadRow;

/* Blobs of a checkpoint held in memory (the round trip of TestOptions). A deleted
 * blob keeps its slot (and its name, which the index borrows) with live unset. */
typedef struct MemBlob {
    char *name;
    char *data;
    size_t len;
    bool live;
} MemBlob;

/* Restores of --checkpoint-each-step: each step earns this many bytes of restore, and a
 * round trip (a new pipeline restored from the checkpoint) is made when the bytes
 * earned cover the checkpoint's size. Small state round-trips after every step;
 * large state as often as keeps the test linear in its input. Every step saves
 * (incrementally: only what changed). */
#define ROUNDTRIP_BYTES_PER_STEP ((int64_t)16 << 10)

typedef struct Runner {
    const IrGraph *g;
    const TestCase *tc;
    bool checkpoint_each_step;
    EngOptions eo;
    MemBlob *blobs;
    int nblobs, capblobs;
    StrMap blob_index;    /* name -> index in blobs */
    const EngPipeline *blob_owner; /* the pipeline whose last save the blobs hold */
    int64_t blob_bytes;   /* bytes of the live blobs */
    int64_t restore_budget;
    int model;
    const PlanColumn *cols;
    int ncols;
    bool keyed;
    Arena arena;          /* copies of produced rows and parsed expectations */
    RowList actual;
    DeadRow *dead;        /* dead letters in the order they were rejected */
    int ndead, capdead;
    StrBuf msg;           /* error message when the test itself is wrong */
    double *tol;          /* float_tolerance per output column, -1 = exact */
    int64_t *lineage_offsets; /* per source: the next row's _replay_offset (its 0-based
                                 position among the rows the test gives the source) */
} Runner;

static Value *rows_append(RowList *l, ChangeOp op)
{
    if (l->n == l->cap) {
        l->cap = l->cap ? l->cap * 2 : 16;
        l->vals = xrealloc(l->vals, sizeof(Value) * (size_t)l->cap * (size_t)(l->ncols ? l->ncols : 1));
        l->ops = xrealloc(l->ops, sizeof(ChangeOp) * (size_t)l->cap);
    }
    l->ops[l->n] = op;
    return l->vals + (size_t)l->n++ * (size_t)l->ncols;
}

static void rows_free(RowList *l)
{
    free(l->vals);
    free(l->ops);
    free(l->masks);
    memset(l, 0, sizeof *l);
}

static void copy_row(Runner *r, Value *dst, const Value *src)
{
    for (int i = 0; i < r->ncols; i++) {
        dst[i] = src[i];
        if (!src[i].isnull && type_is_varlen(r->cols[i].type)) {
            dst[i].s = arena_strndup(&r->arena, src[i].s, src[i].len);
        }
    }
}

static bool on_changes(void *ctx, int model, const EngChange *changes, int n, char *err, size_t errsize)
{
    Runner *r = ctx;
    if (model != r->model) return true;
    for (int i = 0; i < n; i++) copy_row(r, rows_append(&r->actual, changes[i].op), changes[i].row);
    return true;
}

static void on_dead_letter(void *ctx, const EngDeadLetter *dl)
{
    Runner *r = ctx;
    if (r->ndead == r->capdead) {
        r->capdead = r->capdead ? r->capdead * 2 : 8;
        r->dead = xrealloc(r->dead, sizeof(DeadRow) * (size_t)r->capdead);
    }
    DeadRow *d = &r->dead[r->ndead++];
    d->reason = arena_strdup(&r->arena, dl->reason ? dl->reason : "");
    d->at = arena_strdup(&r->arena, dl->source ? dl->source : "");
    d->ncols = dl->cols ? dl->ncols : 0;
    d->names = ARENA_ARRAY(&r->arena, const char *, d->ncols + 1);
    d->types = ARENA_ARRAY(&r->arena, Type, d->ncols + 1);
    d->row = ARENA_ARRAY(&r->arena, Value, d->ncols + 1);
    for (int c = 0; c < d->ncols; c++) {
        d->names[c] = arena_strdup(&r->arena, dl->cols[c].name);
        d->types[c] = dl->types[c];
        d->row[c] = dl->row[c];
        if (!dl->row[c].isnull && type_is_varlen(dl->types[c])) d->row[c].s = arena_strndup(&r->arena, dl->row[c].s, dl->row[c].len);
    }
}

static const char *op_name(ChangeOp op)
{
    return op == CHANGE_INSERT ? "insert" : op == CHANGE_UPDATE ? "update" : "delete";
}

/* ---------- rendering ---------- */

static void render_value(Type t, const Value *v, StrBuf *sb)
{
    if (v->isnull) {
        sb_puts(sb, "null");
        return;
    }
    bool quote = !(type_is_numeric_family(t) || t.id == T_BOOL);
    if (t.id == T_BOOL) {
        sb_puts(sb, v->i ? "true" : "false");
        return;
    }
    if (!quote) {
        value_format_text(t, v, sb);
        return;
    }
    StrBuf tmp = STRBUF_INIT;
    value_format_text(t, v, &tmp);
    sb_putc(sb, '\'');
    for (size_t i = 0; i < tmp.len; i++) {
        if (tmp.data[i] == '\'') sb_putc(sb, '\'');
        sb_putc(sb, tmp.data[i]);
    }
    sb_putc(sb, '\'');
    sb_free(&tmp);
}

/* mask (NULL: every column): the columns an expected row of a subset test names. */
static void render_row_cols(const Runner *r, const Value *row, const ChangeOp *op, const unsigned char *mask,
                            StrBuf *sb)
{
    sb_putc(sb, '{');
    bool first = true;
    if (op) {
        sb_printf(sb, "op: %s", op_name(*op));
        first = false;
    }
    for (int i = 0; i < r->ncols; i++) {
        if (mask && !mask[i]) continue;
        if (!first) sb_puts(sb, ", ");
        first = false;
        sb_printf(sb, "%s: ", r->cols[i].name);
        render_value(r->cols[i].type, &row[i], sb);
    }
    sb_putc(sb, '}');
}

static void render_row(const Runner *r, const Value *row, const ChangeOp *op, StrBuf *sb)
{
    render_row_cols(r, row, op, NULL, sb);
}

/* {reason: ..., at: ..., row: {...}} as text (reports) or JSON. */
static void render_dead(const DeadRow *d, StrBuf *sb)
{
    sb_printf(sb, "{reason: ");
    render_value(type_make(T_TEXT), &(Value){.s = d->reason, .len = (uint32_t)strlen(d->reason)}, sb);
    sb_printf(sb, ", at: %s, row: {", d->at);
    for (int c = 0; c < d->ncols; c++) {
        if (c) sb_puts(sb, ", ");
        sb_printf(sb, "%s: ", d->names[c]);
        render_value(d->types[c], &d->row[c], sb);
    }
    sb_puts(sb, "}}");
}

static char *dead_json(const Runner *r)
{
    StrBuf sb = STRBUF_INIT;
    sb_putc(&sb, '[');
    for (int i = 0; i < r->ndead; i++) {
        const DeadRow *d = &r->dead[i];
        sb_puts(&sb, i ? ", {\"reason\": " : "{\"reason\": ");
        sb_json_str(&sb, d->reason, strlen(d->reason));
        sb_puts(&sb, ", \"at\": ");
        sb_json_str(&sb, d->at, strlen(d->at));
        sb_puts(&sb, ", \"row\": {");
        for (int c = 0; c < d->ncols; c++) {
            if (c) sb_puts(&sb, ", ");
            sb_json_str(&sb, d->names[c], strlen(d->names[c]));
            sb_puts(&sb, ": ");
            value_format_json(d->types[c], &d->row[c], &sb);
        }
        sb_puts(&sb, "}}");
    }
    sb_putc(&sb, ']');
    return sb_take(&sb);
}

static char *rows_json(const Runner *r, const RowList *l, bool with_ops)
{
    StrBuf sb = STRBUF_INIT;
    sb_putc(&sb, '[');
    for (int i = 0; i < l->n; i++) {
        sb_puts(&sb, i ? ", {" : "{");
        bool first = true;
        if (with_ops) {
            sb_printf(&sb, "\"op\": \"%s\"", op_name(l->ops[i]));
            first = false;
        }
        const Value *row = l->vals + (size_t)i * (size_t)l->ncols;
        for (int c = 0; c < r->ncols; c++) {
            if (!first) sb_puts(&sb, ", ");
            first = false;
            sb_json_str(&sb, r->cols[c].name, strlen(r->cols[c].name));
            sb_puts(&sb, ": ");
            value_format_json(r->cols[c].type, &row[c], &sb);
        }
        sb_putc(&sb, '}');
    }
    sb_putc(&sb, ']');
    return sb_take(&sb);
}

/* ---------- test-data conversion ---------- */

static bool fail_at(Runner *r, SrcPos pos, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static bool fail_at(Runner *r, SrcPos pos, const char *fmt, ...)
{
    if (pos.file) sb_printf(&r->msg, "%s:%d:%d: ", pos.file, pos.line, pos.col);
    va_list ap;
    va_start(ap, fmt);
    sb_vprintf(&r->msg, fmt, ap);
    va_end(ap);
    return false;
}

static int col_index(const PlanColumn *cols, int n, const char *name)
{
    for (int i = 0; i < n; i++)
        if (strcmp(cols[i].name, name) == 0) return i;
    return -1;
}

static bool parse_op(Runner *r, const YNode *v, ChangeOp *op)
{
    if (v->kind == YNODE_SCALAR) {
        if (strcmp(v->str, "insert") == 0) return *op = CHANGE_INSERT, true;
        if (strcmp(v->str, "update") == 0) return *op = CHANGE_UPDATE, true;
        if (strcmp(v->str, "delete") == 0) return *op = CHANGE_DELETE, true;
    }
    return fail_at(r, v->pos, "op must be insert, update or delete");
}

/* Convert a YAML row mapping into cells of the given columns. `op` is optional unless
 * need_op; it defaults to insert. Unknown columns are errors. */
static bool convert_row_named(Runner *r, const YNode *m, const PlanColumn *cols, int ncols, const char *what,
                              Value *out, ChangeOp *op, bool need_op, unsigned char *named);

static bool convert_row(Runner *r, const YNode *m, const PlanColumn *cols, int ncols, const char *what,
                        Value *out, ChangeOp *op, bool need_op)
{
    return convert_row_named(r, m, cols, ncols, what, out, op, need_op, NULL);
}

/* A YAML list of scalars as an array of type t: each item read as the element type
 * (null: a NULL element). */
static bool array_from_list(Runner *r, const YNode *v, Type t, const char *col, Value *out)
{
    Type et = type_elem(t);
    StrBuf b = STRBUF_INIT;
    size_t start;
    char err[256];
    array_begin(&b, &start);
    for (int j = 0; j < v->nitems; j++) {
        const YNode *it = v->items[j];
        Value e = value_null();
        if (!yaml_is_null(it) && (it->kind != YNODE_SCALAR || !value_parse(et, it->str, it->len, &r->arena, &e, err, sizeof err))) {
            sb_free(&b);
            return fail_at(r, it->pos, "column %s, element %d: %s", col, j + 1,
                           it->kind != YNODE_SCALAR ? "an element must be a scalar (arrays have one dimension)" : err);
        }
        array_push(&b, et, &e);
    }
    array_end(&b, start, (uint32_t)v->nitems);
    *out = value_text(arena_strndup(&r->arena, b.data, b.len), (uint32_t)b.len);
    sb_free(&b);
    return true;
}

/* convert_row, also setting named[c] (when not NULL) for every column the row names. */
static bool convert_row_named(Runner *r, const YNode *m, const PlanColumn *cols, int ncols, const char *what,
                              Value *out, ChangeOp *op, bool need_op, unsigned char *named)
{
    if (!m || m->kind != YNODE_MAP) return fail_at(r, m ? m->pos : r->tc->pos, "a row must be a mapping of column: value");
    for (int i = 0; i < ncols; i++) out[i] = value_null();
    *op = CHANGE_INSERT;
    bool have_op = false;
    char err[256];
    for (int i = 0; i < m->npairs; i++) {
        const YNode *k = m->pairs[i].key, *v = m->pairs[i].value;
        if (strcmp(k->str, "op") == 0) {
            if (!parse_op(r, v, op)) return false;
            have_op = true;
            continue;
        }
        int c = col_index(cols, ncols, k->str);
        if (c < 0) {
            const char **names = xcalloc((size_t)ncols + 1, sizeof *names);
            for (int j = 0; j < ncols; j++) names[j] = cols[j].name;
            const char *close = diag_closest(k->str, names, ncols);
            free(names);
            if (close) return fail_at(r, k->pos, "'%s' is not a column of %s; did you mean '%s'?", k->str, what, close);
            return fail_at(r, k->pos, "'%s' is not a column of %s", k->str, what);
        }
        if (named) named[c] = 1;
        if (yaml_is_null(v)) continue;
        if (v->kind == YNODE_SEQ && cols[c].type.id == T_ARRAY) {
            if (!array_from_list(r, v, cols[c].type, k->str, &out[c])) return false;
            continue;
        }
        if (v->kind != YNODE_SCALAR)
            return fail_at(r, v->pos, "value of '%s' must be a scalar%s", k->str,
                           v->kind == YNODE_SEQ ? " (a list is the value of an array column)" : "");
        if (!value_parse(cols[c].type, v->str, v->len, &r->arena, &out[c], err, sizeof err))
            return fail_at(r, v->pos, "column %s: %s", k->str, err);
    }
    if (need_op && !have_op) return fail_at(r, m->pos, "expected rows need an `op` (insert, update or delete)");
    return true;
}

static bool rows_equal(const Runner *r, const Value *a, const Value *b)
{
    for (int i = 0; i < r->ncols; i++)
        if (!value_equal(r->cols[i].type, &a[i], &b[i])) return false;
    return true;
}

/* Does expected row e (its mask: the columns compared, NULL = all) match actual row a?
 * Float columns with a tolerance t match when |e - a| <= t * max(1, |e|, |a|) (absolute
 * near zero, relative beyond); NaN matches NaN, an infinity only itself. */
static bool expected_matches(const Runner *r, const Value *e, const unsigned char *mask, const Value *a)
{
    for (int i = 0; i < r->ncols; i++) {
        if (mask && !mask[i]) continue;
        double t = r->tol ? r->tol[i] : -1;
        if (t >= 0 && type_is_float(r->cols[i].type) && !e[i].isnull && !a[i].isnull) {
            double x = e[i].f, y = a[i].f;
            if (isnan(x) || isnan(y)) {
                if (isnan(x) != isnan(y)) return false;
                continue;
            }
            if (isinf(x) || isinf(y)) {
                if (x != y) return false;
                continue;
            }
            double scale = fabs(x) > fabs(y) ? fabs(x) : fabs(y);
            if (scale < 1) scale = 1;
            if (fabs(x - y) > t * scale) return false;
            continue;
        }
        if (!value_equal(r->cols[i].type, &e[i], &a[i])) return false;
    }
    return true;
}

static const unsigned char *row_mask(const RowList *l, int i)
{
    return l->masks ? l->masks + (size_t)i * (size_t)l->ncols : NULL;
}

/* float_tolerance: a number for every float column, or {column: number}. Returns false
 * (r->msg set) for a column the model does not have or one that is not a float. */
static bool load_tolerances(Runner *r)
{
    const YNode *ft = r->tc->float_tolerance;
    if (!ft) return true;
    r->tol = xcalloc((size_t)r->ncols + 1, sizeof(double));
    for (int i = 0; i < r->ncols; i++) r->tol[i] = -1;
    if (ft->kind == YNODE_SCALAR) {
        double t = strtod(ft->str, NULL);
        for (int i = 0; i < r->ncols; i++)
            if (type_is_float(r->cols[i].type)) r->tol[i] = t;
        return true;
    }
    for (int k = 0; k < ft->npairs; k++) {
        const YNode *key = ft->pairs[k].key;
        int c = col_index(r->cols, r->ncols, key->str);
        if (c < 0) {
            const char **names = xcalloc((size_t)r->ncols + 1, sizeof *names);
            for (int j = 0; j < r->ncols; j++) names[j] = r->cols[j].name;
            const char *close = diag_closest(key->str, names, r->ncols);
            free(names);
            if (close)
                return fail_at(r, key->pos, "float_tolerance: '%s' is not a column of model '%s'; did you mean '%s'?",
                               key->str, r->tc->model, close);
            return fail_at(r, key->pos, "float_tolerance: '%s' is not a column of model '%s'", key->str, r->tc->model);
        }
        if (!type_is_float(r->cols[c].type)) {
            char tn[64];
            return fail_at(r, key->pos, "float_tolerance: column %s is %s; a tolerance applies to real and double "
                           "precision columns (numeric compares exactly)", key->str, type_name(r->cols[c].type, tn, sizeof tn));
        }
        r->tol[c] = strtod(ft->pairs[k].value->str, NULL);
    }
    return true;
}

/* ---------- sources ---------- */

static void collect_sources(const IrNode *n, bool *seen)
{
    if (n->plan->kind == PL_SOURCE && n->source >= 0) seen[n->source] = true;
    for (int i = 0; i < n->ninputs; i++) collect_sources(n->inputs[i], seen);
}

static int model_in(const IrGraph *g, const char *name);

static int resolve_source(Runner *r, const TestStep *st)
{
    const Project *p = r->g->project;
    bool *seen = xcalloc((size_t)p->nsources + 1, sizeof *seen);
    /* the sources of the test's model in the graph that runs (an upgrade test's
     * previous version may not have the model yet: then every source) */
    int m = model_in(r->g, r->tc->model);
    if (m >= 0) collect_sources(r->g->models[m].root, seen);
    else
        for (int i = 0; i < p->nsources; i++) seen[i] = true;
    int found = -1, count = 0;
    if (st->source) {
        for (int i = 0; i < p->nsources; i++)
            if (strcmp(p->sources[i].name, st->source) == 0) found = i;
        if (found < 0) fail_at(r, st->pos, "no source named '%s'", st->source);
        else if (!seen[found])
            fail_at(r, st->pos, "model '%s' does not read source '%s'", r->tc->model, st->source);
        int res = found >= 0 && seen[found] ? found : -1;
        free(seen);
        return res;
    }
    StrBuf names = STRBUF_INIT;
    for (int i = 0; i < p->nsources; i++)
        if (seen[i]) {
            if (count++) sb_puts(&names, ", ");
            sb_puts(&names, p->sources[i].name);
            found = i;
        }
    if (count != 1) {
        fail_at(r, st->pos, "bare rows need a single source, but model '%s' reads %s; use `- source: NAME` with `rows:`",
                r->tc->model, count ? sb_cstr(&names) : "no source");
        found = -1;
    }
    sb_free(&names);
    free(seen);
    return found;
}

static bool keep_blob(void *ctx, const char *name, const void *data, size_t len, char *err, size_t errsize)
{
    (void)err; (void)errsize;
    Runner *r = ctx;
    int i = strmap_get(&r->blob_index, name);
    if (i < 0) {
        if (r->nblobs == r->capblobs) {
            r->capblobs = r->capblobs ? 2 * r->capblobs : 64;
            r->blobs = xrealloc(r->blobs, sizeof(MemBlob) * (size_t)r->capblobs);
        }
        i = r->nblobs++;
        r->blobs[i] = (MemBlob){xstrdup(name), NULL, 0, false};
        strmap_put(&r->blob_index, r->blobs[i].name, i);
    }
    MemBlob *b = &r->blobs[i];
    if (b->live) r->blob_bytes -= (int64_t)b->len;
    free(b->data);
    b->data = xmalloc(len + 1);
    memcpy(b->data, data, len);
    b->len = len;
    b->live = true;
    r->blob_bytes += (int64_t)len;
    return true;
}

static bool del_blob(void *ctx, const char *name, char *err, size_t errsize)
{
    (void)err; (void)errsize;
    Runner *r = ctx;
    int i = strmap_get(&r->blob_index, name);
    if (i < 0 || !r->blobs[i].live) return true;
    r->blob_bytes -= (int64_t)r->blobs[i].len;
    free(r->blobs[i].data);
    r->blobs[i].data = NULL;
    r->blobs[i].live = false;
    return true;
}

static bool find_blob(void *ctx, const char *name, const void **data, size_t *len)
{
    Runner *r = ctx;
    int i = strmap_get(&r->blob_index, name);
    if (i < 0 || !r->blobs[i].live) return false;
    *data = r->blobs[i].data;
    *len = r->blobs[i].len;
    return true;
}

static void drop_blobs(Runner *r)
{
    for (int i = 0; i < r->nblobs; i++) {
        free(r->blobs[i].name);
        free(r->blobs[i].data);
    }
    free(r->blobs);
    strmap_fini(&r->blob_index);
    r->blob_index = (StrMap)STRMAP_INIT;
    r->blobs = NULL;
    r->nblobs = r->capblobs = 0;
    r->blob_bytes = 0;
    r->blob_owner = NULL;
}

/* One engine step; with checkpoint_each_step the pipeline is then saved (only what
 * changed since its last save, when the blobs hold that one) and, as often as the
 * restore budget allows (ROUNDTRIP_BYTES_PER_STEP), freed and restored into a new
 * one, which the next step runs on. */
static bool step(Runner *r, EngPipeline **pl, char *err, size_t errsize)
{
    if (!eng_step(*pl, err, errsize)) return false;
    if (!r->checkpoint_each_step) return true;
    if (r->blob_owner != *pl || !eng_checkpoint_incremental_ok(*pl)) {
        drop_blobs(r);
        eng_checkpoint_forget(*pl);
    }
    bool ok = eng_checkpoint_save_inc(*pl, keep_blob, del_blob, r, err, errsize);
    r->blob_owner = *pl;
    if (!ok) {
        drop_blobs(r);
        return false;
    }
    r->restore_budget += ROUNDTRIP_BYTES_PER_STEP;
    if (r->blob_bytes > r->restore_budget) return true;
    r->restore_budget -= r->blob_bytes;
    eng_pipeline_free(*pl);
    *pl = eng_pipeline_new(r->g, &r->eo, err, errsize);
    if (*pl && !eng_checkpoint_restore(*pl, find_blob, r, err, errsize)) ok = false;
    r->blob_owner = *pl;
    if (!ok) drop_blobs(r);
    return ok && *pl;
}

static bool feed_rows(Runner *r, EngPipeline **pl, const TestStep *st)
{
    int s = resolve_source(r, st);
    if (s < 0) return false;
    const SourceDef *src = &r->g->project->sources[s];
    PlanColumn *cols = ARENA_ARRAY(&r->arena, PlanColumn, src->ncolumns);
    for (int i = 0; i < src->ncolumns; i++) {
        cols[i].name = src->columns[i].name;
        cols[i].type = src->columns[i].type;
    }
    Value *row = ARENA_ARRAY(&r->arena, Value, src->ncolumns);
    const char *what = arena_printf(&r->arena, "source '%s'", src->name);
    bool updating = data_format_is_updating(src->format);
    char err[256];
    for (int i = 0; i < st->nrows; i++) {
        ChangeOp op;
        if (!convert_row(r, st->rows[i], cols, src->ncolumns, what, row, &op, false)) return false;
        int64_t front = eng_source_current_watermark(*pl, s);
        if (updating) {
            if (!eng_source_upsert(*pl, s, op, row, NULL, front, err, sizeof err))
                return fail_at(r, st->rows[i]->pos, "%s", err);
        } else {
            if (op != CHANGE_INSERT)
                return fail_at(r, st->rows[i]->pos,
                               "source '%s' (format %s) is insert-only; `op: %s` needs an updating format "
                               "(changelog-json or debezium-json)", src->name, data_format_name(src->format), op_name(op));
            Batch *b = eng_source_batch(*pl, s);
            if (!r->lineage_offsets)
                r->lineage_offsets = ARENA_ARRAY(&r->arena, int64_t, r->g->project->nsources + 1);
            EngLineage lin = {0, r->lineage_offsets[s]++, INT64_MIN, INT64_MIN};
            if (b) {
                eng_source_append(b, row, src->ncolumns, 1, &lin);
                batch_set_frontier(b, b->n - 1, front);
            }
            /* text cells point into the runner's arena, which outlives the step */
        }
        int64_t t, d = src->watermark_delay_us;
        if (eng_event_time(src, row, &t) && !(d > 0 && t < INT64_MIN + d)) eng_source_watermark(*pl, s, t - d);
        if (!step(r, pl, err, sizeof err)) return fail_at(r, st->rows[i]->pos, "engine error: %s", err);
    }
    return true;
}

static bool feed_watermark(Runner *r, EngPipeline **pl, const TestStep *st)
{
    char err[256];
    for (int i = 0; i < st->nwms; i++) {
        const TestWatermark *w = &st->wms[i];
        TestStep fake = {.kind = STEP_ROWS, .pos = w->pos, .source = w->source};
        int s = resolve_source(r, &fake);
        if (s < 0) return false;
        Value v;
        if (!value_parse(type_make(T_TIMESTAMP), w->time, strlen(w->time), &r->arena, &v, err, sizeof err))
            return fail_at(r, w->pos, "watermark: %s", err);
        eng_source_watermark(*pl, s, v.i);
    }
    if (!step(r, pl, err, sizeof err)) return fail_at(r, st->pos, "engine error: %s", err);
    return true;
}

/* ---------- upgrade tests ---------- */

/* The previous version of an upgrade test, loaded and compiled. */
typedef struct Previous {
    DiagList dl;
    Arena arena;
    Project *p;
    IrGraph *g;
    Manifest mf;                 /* the manifest it came from (manifest form) */
    bool have_mf;
    char *text;
} Previous;

/* A YAML subtree as JSON (which YAML reads back as the same tree; scalars as strings). */
static void yaml_as_json(const YNode *n, JsonW *w)
{
    if (n->kind == YNODE_MAP) {
        jw_obj(w);
        for (int i = 0; i < n->npairs; i++) {
            jw_key(w, n->pairs[i].key->str);
            yaml_as_json(n->pairs[i].value, w);
        }
        jw_end_obj(w);
    } else if (n->kind == YNODE_SEQ) {
        jw_arr(w);
        for (int i = 0; i < n->nitems; i++) yaml_as_json(n->items[i], w);
        jw_end_arr(w);
    } else {
        jw_str(w, n->str);
    }
}

static bool has_suffix(const char *s, const char *suf)
{
    size_t n = strlen(s), k = strlen(suf);
    return n >= k && strcmp(s + n - k, suf) == 0;
}

#define OVERRIDE_FILE "models/__previous__.yml"

/* The previous version: the project's definition with the models of `previous.models`
 * (SQL, and config in place of theirs), or the definition a manifest keeps. */
static bool load_previous(Runner *r, const IrGraph *g, Previous *v)
{
    memset(v, 0, sizeof *v);
    diag_init(&v->dl);
    arena_init(&v->arena, 64 * 1024);
    const YNode *prev = r->tc->previous, *mpath = yaml_get(prev, "manifest"), *models = yaml_get(prev, "models");
    const Project *cur = g->project;
    ProjectOptions po = {.dir = cur->dir, .target = cur->target ? cur->target->name : NULL};
    const ProjectFile *files = cur->files;
    int nfiles = cur->nfiles;
    ProjectFile *edited = NULL;
    if (mpath) {
        const char *path = project_path((Project *)cur, mpath->str);
        FILE *f = fopen(path, "rb");
        StrBuf b = STRBUF_INIT;
        char buf[65536];
        size_t n;
        while (f && (n = fread(buf, 1, sizeof buf, f)) > 0) sb_append(&b, buf, n);
        if (f) fclose(f);
        if (!f) return fail_at(r, mpath->pos, "previous: cannot read %s", path);
        v->text = sb_take(&b);
        char err[512];
        if (!manifest_parse(v->text, strlen(v->text), mpath->str, &v->mf, err, sizeof err))
            return fail_at(r, mpath->pos, "previous: %s", err);
        v->have_mf = true;
        files = v->mf.files;
        nfiles = v->mf.nfiles;
    } else {
        edited = ARENA_ARRAY(&v->arena, ProjectFile, nfiles + models->npairs + 2);
        memcpy(edited, cur->files, sizeof(ProjectFile) * (size_t)nfiles);
        StrBuf cfg = STRBUF_INIT;
        JsonW w;
        jw_init(&w, &cfg, false);
        jw_obj(&w);
        jw_key(&w, "models");
        jw_obj(&w);
        int n = nfiles;
        for (int i = 0; i < models->npairs; i++) {
            const char *name = models->pairs[i].key->str;
            const YNode *m = models->pairs[i].value, *sql = yaml_get(m, "sql"), *c = yaml_get(m, "config");
            const char *file = arena_printf(&v->arena, "/%s.sql", name);
            int at = -1;
            for (int k = 0; k < n && at < 0; k++)
                if (has_suffix(edited[k].path, file)) at = k;
            if (at < 0) {
                at = n++;
                edited[at].path = arena_printf(&v->arena, "models/%s.sql", name);
            }
            edited[at].text = sql->str;
            edited[at].len = strlen(sql->str);
            if (c) {
                jw_key(&w, name);
                yaml_as_json(c, &w);
            }
        }
        jw_end_obj(&w);
        jw_end_obj(&w);
        edited[n++] = (ProjectFile){OVERRIDE_FILE, arena_strdup(&v->arena, sb_cstr(&cfg)), cfg.len};
        sb_free(&cfg);
        files = edited;
        nfiles = n;
        po.override_file = OVERRIDE_FILE;
    }
    v->p = project_load_files(files, nfiles, &po, &v->dl);
    if (v->p) v->g = ir_build(sql_bind_project(v->p, &v->arena, &v->dl), &v->arena, &v->dl);
    for (int i = 0; i < v->dl.count; i++) {
        const Diag *d = &v->dl.items[i];
        if (d->severity != DIAG_ERROR) continue;
        return fail_at(r, prev->pos, "the previous version does not compile: %s:%d:%d: %s", d->pos.file ? d->pos.file : "?",
                       d->pos.line, d->pos.col, d->message);
    }
    if (!v->p || !v->g) return fail_at(r, prev->pos, "the previous version cannot be loaded");
    return true;
}

static void previous_free(Previous *v)
{
    if (v->p) project_free(v->p);
    if (v->have_mf) manifest_free(&v->mf);
    free(v->text);
    arena_fini(&v->arena);
    diag_fini(&v->dl);
}

static bool feed_steps(Runner *r, EngPipeline **pl, const TestStep *steps, int n)
{
    bool ok = true;
    for (int i = 0; i < n && ok; i++)
        ok = steps[i].kind == STEP_ROWS ? feed_rows(r, pl, &steps[i]) : feed_watermark(r, pl, &steps[i]);
    return ok;
}

/* expect_verdict against the plan: a failure adds lines to the report. */
static bool check_verdicts(Runner *r, const Plan *plan, StrBuf *report)
{
    const YNode *ev = r->tc->expect_verdict;
    if (!ev) return true;
    bool ok = true;
    int n = ev->kind == YNODE_MAP ? ev->npairs : 1;
    for (int i = 0; i < n; i++) {
        const char *model = ev->kind == YNODE_MAP ? ev->pairs[i].key->str : r->tc->model;
        const YNode *want = ev->kind == YNODE_MAP ? ev->pairs[i].value : ev;
        Verdict v;
        if (want->kind != YNODE_SCALAR || !verdict_parse(want->str, &v))
            return fail_at(r, want->pos, "expect_verdict: '%s' is not a verdict (unchanged, safe, new, backfill, "
                           "rebuild, removed)", want->kind == YNODE_SCALAR ? want->str : "?");
        const PlanModel *pm = plan_find_model(plan, model);
        if (!pm) return fail_at(r, want->pos, "expect_verdict: no model '%s' in either version", model);
        if (pm->verdict != v) {
            sb_printf(report, "  verdict of %s: expected %s, got %s\n", model, verdict_name(v), verdict_name(pm->verdict));
            for (int k = 0; k < pm->nreasons; k++) sb_printf(report, "      %s\n", pm->reasons[k]);
            ok = false;
        }
    }
    return ok;
}

static int model_in(const IrGraph *g, const char *name)
{
    for (int m = 0; m < g->nmodels; m++)
        if (strcmp(g->models[m].def->name, name) == 0) return g->models[m].root ? m : -1;
    return -1;
}


/* The previous version's rows of the model and the new version's have the same columns. */
static bool same_columns(const IrGraph *a, int ma, const IrGraph *b, int mb)
{
    const PlanNode *x = a->models[ma].root->plan, *y = b->models[mb].root->plan;
    if (x->ncols != y->ncols || a->models[ma].nout_key != b->models[mb].nout_key) return false;
    for (int c = 0; c < x->ncols; c++)
        if (strcmp(x->cols[c].name, y->cols[c].name) != 0 || !type_equal(x->cols[c].type, y->cols[c].type)) return false;
    return true;
}

/* Run an upgrade test up to its final rows (see the file's comment). False with r->msg
 * set when the test itself is wrong; *verdicts_ok tells whether expect_verdict held. */
static bool append_final(void *ctx, int model, const EngChange *changes, int n, char *err, size_t errsize)
{
    (void)model; (void)err; (void)errsize;
    Runner *r = ((void **)ctx)[0];
    RowList *fin = ((void **)ctx)[1];
    for (int i = 0; i < n; i++) copy_row(r, rows_append(fin, CHANGE_INSERT), changes[i].row);
    return true;
}

static bool run_upgrade(Runner *r, const IrGraph *g, StrBuf *report, bool *verdicts_ok, RowList *fin, bool *have_fin)
{
    Previous v;
    bool ok = load_previous(r, g, &v);
    EngPipeline *old = NULL, *replay = NULL, *next = NULL;
    Manifest ma, mb;
    bool have_ma = false, have_mb = false, have_plan = false;
    Plan plan;
    const char **ids = NULL;
    bool *wanted = xcalloc((size_t)g->nmodels + 1, sizeof(bool));
    char err[512];
    int m = r->model, om = ok ? model_in(v.g, r->tc->model) : -1;
    if (!ok) goto out;
    /* the previous version over `given` */
    r->g = v.g;
    r->model = -1;
    EngOptions eo = r->eo;
    eo.models_wanted = NULL;
    eo.dead_letter = NULL;
    r->eo = eo;
    old = eng_pipeline_new(v.g, &eo, err, sizeof err);
    if (!old) {
        ok = fail_at(r, r->tc->previous->pos, "the previous version cannot run: %s", err);
        goto out;
    }
    if (!(ok = feed_steps(r, &old, r->tc->given, r->tc->ngiven))) goto out;
    /* the plan */
    if (!manifest_of_graph(v.g, &ma, err, sizeof err) || !(have_ma = true) || !manifest_of_graph(g, &mb, err, sizeof err)) {
        ok = fail_at(r, r->tc->pos, "%s", err);
        goto out;
    }
    have_mb = true;
    plan_compute(&ma, &mb, &plan);
    have_plan = true;
    *verdicts_ok = check_verdicts(r, &plan, report);
    if (r->msg.len) {
        ok = false;
        goto out;
    }
    /* the new version: a replay of `given` for the state the plan rebuilds */
    r->g = g;
    EngOptions eo2 = {0};
    eo2.listener = r->eo.listener;
    eo2.listener_ctx = r;
    eo2.dead_letter = on_dead_letter;
    eo2.dead_letter_ctx = r;
    bool *want_next = xcalloc((size_t)g->nmodels + 1, sizeof(bool));
    want_next[m] = true;
    eo2.models_wanted = want_next;
    next = eng_pipeline_new(g, &eo2, err, sizeof err);
    if (!next) {
        free(want_next);
        ok = fail_at(r, r->tc->pos, "%s", err);
        goto out;
    }
    int nids = eng_op_ids(next, NULL, 0);
    ids = xcalloc((size_t)nids + 1, sizeof(char *));
    eng_op_ids(next, ids, nids);
    bool any_replay = false;
    for (int i = 0; i < nids; i++) {
        if (plan_op_action(&plan, ids[i]) != STATE_REPLAY) continue;
        any_replay = true;
        for (int k = 0; k < g->nmodels; k++) {
            size_t len = strlen(g->models[k].def->name);
            if (strncmp(ids[i], g->models[k].def->name, len) == 0 && ids[i][len] == '/') wanted[k] = true;
        }
        if (strncmp(ids[i], "source:", 7) == 0) wanted[m] = true;
    }
    const MfModel *mo = mf_find_model(&ma, r->tc->model), *mn = mf_find_model(&mb, r->tc->model);
    bool changed = !mo || !mo->output_fp || !mn->output_fp || strcmp(mo->output_fp, mn->output_fp) != 0;
    bool derivable = eng_model_derivable(next, m);
    bool from_replay = changed && !derivable;
    if (from_replay) wanted[m] = any_replay = true;
    if (any_replay) {
        EngOptions eo3 = eo2;
        eo3.models_wanted = wanted;
        eo3.dead_letter = NULL;
        r->eo = eo3;
        replay = eng_pipeline_new(g, &eo3, err, sizeof err);
        if (!replay) {
            free(want_next);
            ok = fail_at(r, r->tc->pos, "%s", err);
            goto out;
        }
        r->model = from_replay ? m : -1;  /* the replay's output is the restatement */
        if (!(ok = feed_steps(r, &replay, r->tc->given, r->tc->ngiven))) {
            free(want_next);
            goto out;
        }
    }
    r->eo = eo2;
    r->model = m;
    for (int i = 0; i < nids && ok; i++) {
        StateAction act = plan_op_action(&plan, ids[i]);
        EngPipeline *from = act == STATE_REPLAY ? replay : old;
        if (act != STATE_REPLAY && !eng_has_op(old, ids[i])) from = replay && eng_has_op(replay, ids[i]) ? replay : NULL;
        if (from && !eng_adopt_state(next, from, ids[i], act == STATE_MAP, err, sizeof err))
            ok = fail_at(r, r->tc->pos, "upgrade: %s", err);
    }
    if (!ok) {
        free(want_next);
        goto out;
    }
    eng_adopt_progress(next, old);
    /* the restatement from state */
    if (changed && derivable) {
        if (om >= 0 && same_columns(v.g, om, g, m) && eng_model_derivable(old, om)) {
            Batch rows;
            batch_init(&rows, v.g->models[om].root->plan->ncols);
            ok = eng_model_rows_batch(old, om, &rows, err, sizeof err) &&
                 eng_model_rows(next, m, &rows, on_changes, r, err, sizeof err);
            batch_fini(&rows);
        } else {
            ok = eng_model_rows(next, m, NULL, on_changes, r, err, sizeof err);
        }
        if (!ok) ok = fail_at(r, r->tc->pos, "upgrade: %s", err);
    }
    /* the new version goes on */
    if (ok) ok = feed_steps(r, &next, r->tc->then, r->tc->nthen);
    /* the final rows: from the state where it holds them (the changelog starts at the
     * upgrade), else from the changelog (the replay's whole output, then the rest) */
    if (ok && derivable) {
        fin->ncols = r->ncols;
        void *ctx[2] = {r, fin};
        ok = eng_model_rows(next, m, NULL, append_final, ctx, err, sizeof err);
        *have_fin = ok;
        if (!ok) ok = fail_at(r, r->tc->pos, "upgrade: %s", err);
    }
    free(want_next);
out:
    eng_pipeline_free(old);
    eng_pipeline_free(replay);
    eng_pipeline_free(next);
    if (have_plan) plan_free(&plan);
    if (have_ma) manifest_free(&ma);
    if (have_mb) manifest_free(&mb);
    free(ids);
    free(wanted);
    r->g = g;
    previous_free(&v);
    return ok;
}

/* ---------- comparison ---------- */

/* Longest-common-subsequence diff of expected vs actual changelogs, as lines
 * prefixed "  ", "- " (expected only) and "+ " (actual only). */
static void changelog_diff(Runner *r, const RowList *exp, StrBuf *out)
{
    const RowList *act = &r->actual;
    int n = exp->n, m = act->n;
    int *dp = xcalloc((size_t)(n + 1) * (size_t)(m + 1), sizeof(int));
#define DP(i, j) dp[(size_t)(i) * (size_t)(m + 1) + (size_t)(j)]
    for (int i = n - 1; i >= 0; i--)
        for (int j = m - 1; j >= 0; j--) {
            bool eq = exp->ops[i] == act->ops[j] &&
                      expected_matches(r, exp->vals + (size_t)i * (size_t)r->ncols, row_mask(exp, i),
                                       act->vals + (size_t)j * (size_t)r->ncols);
            DP(i, j) = eq ? DP(i + 1, j + 1) + 1 : (DP(i + 1, j) > DP(i, j + 1) ? DP(i + 1, j) : DP(i, j + 1));
        }
    int i = 0, j = 0;
    while (i < n || j < m) {
        const Value *ev = i < n ? exp->vals + (size_t)i * (size_t)r->ncols : NULL;
        const Value *av = j < m ? act->vals + (size_t)j * (size_t)r->ncols : NULL;
        if (i < n && j < m && exp->ops[i] == act->ops[j] && expected_matches(r, ev, row_mask(exp, i), av)) {
            sb_puts(out, "      ");
            render_row(r, av, &act->ops[j], out);
            i++, j++;
        } else if (j < m && (i == n || DP(i, j + 1) >= DP(i + 1, j))) {
            sb_puts(out, "    + ");
            render_row(r, av, &act->ops[j], out);
            j++;
        } else {
            sb_puts(out, "    - ");
            render_row_cols(r, ev, &exp->ops[i], row_mask(exp, i), out);
            i++;
        }
        sb_putc(out, '\n');
    }
#undef DP
    free(dp);
}

/* Apply the actual changelog to get the final rows. */
static void final_rows(Runner *r, RowList *fin)
{
    fin->ncols = r->ncols;
    const RowList *a = &r->actual;
    for (int i = 0; i < a->n; i++) {
        const Value *row = a->vals + (size_t)i * (size_t)r->ncols;
        ChangeOp op = a->ops[i];
        const IrModel *im = &r->g->models[r->model];
        /* an insert into a keyed result replaces the row of its key, as a keyed sink
         * does (after a state_ttl expired the key's state, its next row is an insert) */
        if (op == CHANGE_INSERT && im->nout_key < 0) {
            memcpy(rows_append(fin, CHANGE_INSERT), row, sizeof(Value) * (size_t)r->ncols);
            continue;
        }
        /* update/delete: remove the row with the same key (keyed) or the same values */
        bool found = false;
        for (int k = 0; k < fin->n && !found; k++) {
            Value *cur = fin->vals + (size_t)k * (size_t)r->ncols;
            bool match = true;
            if (im->nout_key >= 0) {
                for (int c = 0; c < im->nout_key && match; c++) {
                    int col = im->out_key[c];
                    match = value_equal(r->cols[col].type, &cur[col], &row[col]);
                }
            } else {
                match = rows_equal(r, cur, row);
            }
            if (!match) continue;
            found = true;
            if (op != CHANGE_DELETE) memcpy(cur, row, sizeof(Value) * (size_t)r->ncols);
            else {
                memmove(cur, cur + r->ncols, sizeof(Value) * (size_t)(fin->n - k - 1) * (size_t)r->ncols);
                fin->n--;
            }
        }
        if (op == CHANGE_INSERT && !found) memcpy(rows_append(fin, CHANGE_INSERT), row, sizeof(Value) * (size_t)r->ncols);
    }
}

static bool check_expect(Runner *r, StrBuf *report)
{
    const TestCase *tc = r->tc;
    RowList exp = {.ncols = r->ncols};
    const char *what = arena_printf(&r->arena, "model '%s'", tc->model);
    bool ok = true;
    if (tc->compare_subset) exp.masks = xcalloc((size_t)tc->nexpect * (size_t)r->ncols + 1, 1);
    for (int i = 0; i < tc->nexpect && ok; i++) {
        ChangeOp op;
        Value *row = rows_append(&exp, CHANGE_INSERT);
        ok = convert_row_named(r, tc->expect[i], r->cols, r->ncols, what, row, &op, true,
                               exp.masks ? exp.masks + (size_t)i * (size_t)r->ncols : NULL);
        exp.ops[exp.n - 1] = op;
        if (ok && op == CHANGE_UPDATE && !r->keyed)
            ok = fail_at(r, tc->expect[i]->pos,
                         "model '%s' has no key, so its changes are inserts and deletes (an update is a delete "
                         "then an insert)", tc->model);
    }
    if (!ok) {
        rows_free(&exp);
        return false;
    }
    bool same = exp.n == r->actual.n;
    for (int i = 0; same && i < exp.n; i++)
        same = exp.ops[i] == r->actual.ops[i] &&
               expected_matches(r, exp.vals + (size_t)i * (size_t)r->ncols, row_mask(&exp, i),
                                r->actual.vals + (size_t)i * (size_t)r->ncols);
    if (!same) {
        sb_printf(report, "  expect: changelog differs (- expected, + actual):\n");
        changelog_diff(r, &exp, report);
    }
    rows_free(&exp);
    return same;
}

/* Kuhn's augmenting path from expected row i (round `round` marks the actual rows
 * visited): true when i gets an actual row of its own. */
static bool augment(const Runner *r, const RowList *exp, const RowList *fin, int i, int round, int *owner, int *seen)
{
    for (int j = 0; j < fin->n; j++) {
        if (seen[j] == round) continue;
        if (!expected_matches(r, exp->vals + (size_t)i * (size_t)r->ncols, row_mask(exp, i),
                              fin->vals + (size_t)j * (size_t)r->ncols))
            continue;
        seen[j] = round;
        if (owner[j] < 0 || augment(r, exp, fin, owner[j], round, owner, seen)) {
            owner[j] = i;
            return true;
        }
    }
    return false;
}

static bool check_final(Runner *r, StrBuf *report, RowList *fin)
{
    const TestCase *tc = r->tc;
    RowList exp = {.ncols = r->ncols};
    const char *what = arena_printf(&r->arena, "model '%s'", tc->model);
    if (tc->compare_subset) exp.masks = xcalloc((size_t)tc->nexpect_final * (size_t)r->ncols + 1, 1);
    for (int i = 0; i < tc->nexpect_final; i++) {
        ChangeOp op;
        Value *row = rows_append(&exp, CHANGE_INSERT);
        if (!convert_row_named(r, tc->expect_final[i], r->cols, r->ncols, what, row, &op, false,
                               exp.masks ? exp.masks + (size_t)i * (size_t)r->ncols : NULL)) {
            rows_free(&exp);
            return false;
        }
    }
    /* multiset comparison: a maximum matching of expected to actual rows (with subset
     * rows or tolerances one expected row may match several actual rows) */
    bool *used = xcalloc((size_t)fin->n + 1, sizeof(bool));
    bool *matched = xcalloc((size_t)exp.n + 1, sizeof(bool));
    int *owner = xcalloc((size_t)fin->n + 1, sizeof(int));
    int *seen = xcalloc((size_t)fin->n + 1, sizeof(int));
    for (int j = 0; j < fin->n; j++) owner[j] = -1, seen[j] = -1;
    int unmatched_exp = 0;
    for (int i = 0; i < exp.n; i++) {
        matched[i] = augment(r, &exp, fin, i, i, owner, seen);
        if (!matched[i]) unmatched_exp++;
    }
    for (int j = 0; j < fin->n; j++) used[j] = owner[j] >= 0;
    free(owner);
    free(seen);
    int unmatched_act = 0;
    for (int j = 0; j < fin->n; j++)
        if (!used[j]) unmatched_act++;
    bool same = unmatched_exp == 0 && unmatched_act == 0;
    if (!same) {
        sb_puts(report, "  expect_final: final rows differ (- expected only, + actual only):\n");
        for (int i = 0; i < exp.n; i++)
            if (!matched[i]) {
                sb_puts(report, "    - ");
                render_row_cols(r, exp.vals + (size_t)i * (size_t)r->ncols, NULL, row_mask(&exp, i), report);
                sb_putc(report, '\n');
            }
        for (int j = 0; j < fin->n; j++)
            if (!used[j]) {
                sb_puts(report, "    + ");
                render_row(r, fin->vals + (size_t)j * (size_t)r->ncols, NULL, report);
                sb_putc(report, '\n');
            }
    }
    free(used);
    free(matched);
    rows_free(&exp);
    return same;
}

/* Does expected dead letter e (a {reason, row?} mapping) describe actual d? The listed
 * columns must exist in d's row and equal after conversion to their types. Returns -1
 * when the expectation itself is wrong (a value that does not parse), with r->msg. */
static int dead_matches(Runner *r, const YNode *e, const DeadRow *d)
{
    const YNode *reason = yaml_get(e, "reason");
    if (!reason || strcmp(reason->str, d->reason) != 0) return 0;
    const YNode *row = yaml_get(e, "row");
    if (!row || yaml_is_null(row)) return 1;
    char err[256];
    for (int i = 0; i < row->npairs; i++) {
        const YNode *k = row->pairs[i].key, *v = row->pairs[i].value;
        int c = -1;
        for (int j = 0; j < d->ncols && c < 0; j++)
            if (strcmp(d->names[j], k->str) == 0) c = j;
        if (c < 0) return 0;
        Value want;
        if (yaml_is_null(v)) want = value_null();
        else if (!value_parse(d->types[c], v->str, v->len, &r->arena, &want, err, sizeof err)) {
            fail_at(r, v->pos, "column %s: %s", k->str, err);
            return -1;
        }
        if (!value_equal(d->types[c], &want, &d->row[c])) return 0;
    }
    return 1;
}

static void render_expected_dead(const YNode *e, StrBuf *sb)
{
    const YNode *reason = yaml_get(e, "reason"), *row = yaml_get(e, "row");
    sb_printf(sb, "{reason: '%s'", reason ? reason->str : "");
    if (row && row->kind == YNODE_MAP) {
        sb_puts(sb, ", row: {");
        for (int i = 0; i < row->npairs; i++)
            sb_printf(sb, "%s%s: %s", i ? ", " : "", row->pairs[i].key->str,
                      yaml_is_null(row->pairs[i].value) ? "null" : row->pairs[i].value->str);
        sb_putc(sb, '}');
    }
    sb_putc(sb, '}');
}

/* expect_dead_letters: the same dead letters in the same order. */
static bool check_dead(Runner *r, StrBuf *report)
{
    const TestCase *tc = r->tc;
    bool same = tc->nexpect_dead == r->ndead;
    for (int i = 0; i < tc->nexpect_dead && i < r->ndead; i++) {
        int m = dead_matches(r, tc->expect_dead[i], &r->dead[i]);
        if (m < 0) return false;
        if (!m) same = false;
    }
    if (same) return true;
    sb_puts(report, "  expect_dead_letters: dead letters differ (- expected, + actual):\n");
    for (int i = 0; i < tc->nexpect_dead || i < r->ndead; i++) {
        int m = i < tc->nexpect_dead && i < r->ndead ? dead_matches(r, tc->expect_dead[i], &r->dead[i]) : 0;
        if (m == 1) {
            sb_puts(report, "      ");
            render_dead(&r->dead[i], report);
            sb_putc(report, '\n');
            continue;
        }
        if (i < tc->nexpect_dead) {
            sb_puts(report, "    - ");
            render_expected_dead(tc->expect_dead[i], report);
            sb_putc(report, '\n');
        }
        if (i < r->ndead) {
            sb_puts(report, "    + ");
            render_dead(&r->dead[i], report);
            sb_putc(report, '\n');
        }
    }
    return false;
}

/* ---------- driver ---------- */

void test_run_case(const IrGraph *g, const TestCase *tc, const TestOptions *o, TestResult *out)
{
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    memset(out, 0, sizeof *out);
    out->test = tc;
    Runner r = {0};
    r.g = g;
    r.tc = tc;
    arena_init(&r.arena, 16 * 1024);
    sb_init(&r.msg);
    StrBuf report = STRBUF_INIT;

    r.model = -1;
    for (int i = 0; i < g->nmodels; i++)
        if (strcmp(g->models[i].def->name, tc->model) == 0) r.model = i;
    if (r.model < 0 || !g->models[r.model].root) {
        fail_at(&r, tc->model_pos, r.model < 0 ? "no model named '%s'" : "model '%s' does not compile; run weir check",
                tc->model);
        out->status = TEST_ERROR;
        goto done;
    }
    const IrModel *im = &g->models[r.model];
    r.cols = im->root->plan->cols;
    r.ncols = im->root->plan->ncols;
    r.keyed = im->nout_key >= 0;
    r.actual.ncols = r.ncols;
    if (!load_tolerances(&r)) {
        out->status = TEST_ERROR;
        goto done;
    }

    bool *wanted = xcalloc((size_t)g->nmodels, sizeof(bool));
    wanted[r.model] = true;
    EngOptions eo = {0};
    eo.models_wanted = wanted;
    eo.listener = on_changes;
    eo.listener_ctx = &r;
    eo.dead_letter = on_dead_letter;
    eo.dead_letter_ctx = &r;
    r.eo = eo;
    r.checkpoint_each_step = o && o->checkpoint_each_step;
    char err[256];
    EngPipeline *pl = eng_pipeline_new(g, &eo, err, sizeof err);
    if (!pl) {
        free(wanted);
        fail_at(&r, tc->pos, "%s", err);
        out->status = TEST_ERROR;
        goto done;
    }
    bool ok = true, verdicts_ok = true, have_fin = false;
    RowList fin = {0};
    if (tc->previous) {
        eng_pipeline_free(pl);
        pl = NULL;
        ok = run_upgrade(&r, g, &report, &verdicts_ok, &fin, &have_fin);
    }
    for (int i = 0; i < tc->ngiven && ok && !tc->previous; i++) {
        const TestStep *st = &tc->given[i];
        ok = st->kind == STEP_ROWS ? feed_rows(&r, &pl, st) : feed_watermark(&r, &pl, st);
    }
    if (ok && !tc->previous && tc->ngiven == 0) {
        /* no input at all: one step still runs, as a run does, so constant relations
         * (VALUES, SELECT without FROM) and global aggregates have their rows */
        char err[256];
        if (!step(&r, &pl, err, sizeof err)) ok = fail_at(&r, tc->pos, "engine error: %s", err);
    }
    eng_pipeline_free(pl);
    free(wanted);
    if (!ok) {
        rows_free(&fin);
        out->status = TEST_ERROR;
        goto done;
    }
    if (!have_fin) final_rows(&r, &fin);
    bool pass = verdicts_ok;
    if (tc->has_expect) {
        bool good = check_expect(&r, &report);
        if (r.msg.len) {
            out->status = TEST_ERROR;
            rows_free(&fin);
            goto done;
        }
        pass = good && pass;
    }
    if (tc->has_expect_final) {
        bool good = check_final(&r, &report, &fin);
        if (r.msg.len) {
            out->status = TEST_ERROR;
            rows_free(&fin);
            goto done;
        }
        pass = good && pass;
    }
    if (tc->has_expect_dead) {
        bool good = check_dead(&r, &report);
        if (r.msg.len) {
            out->status = TEST_ERROR;
            rows_free(&fin);
            goto done;
        }
        pass = good && pass;
    } else if (!pass && r.ndead) {
        /* a failure may be explained by rows the engine rejected */
        sb_printf(&report, "  dead letters (not checked: add expect_dead_letters):\n");
        for (int i = 0; i < r.ndead; i++) {
            sb_puts(&report, "      ");
            render_dead(&r.dead[i], &report);
            sb_putc(&report, '\n');
        }
    }
    out->status = pass ? TEST_PASS : TEST_FAIL;
    out->actual_json = rows_json(&r, &r.actual, true);
    out->final_json = rows_json(&r, &fin, false);
    out->dead_json = dead_json(&r);
    out->ndead = r.ndead;
    out->dead_unchecked = !tc->has_expect_dead && r.ndead > 0;
    rows_free(&fin);
done:
    if (out->status == TEST_ERROR) {
        sb_puts(&report, "  ");
        sb_puts(&report, sb_cstr(&r.msg));
        sb_putc(&report, '\n');
    }
    out->report = report.len ? sb_take(&report) : NULL;
    sb_free(&report);
    sb_free(&r.msg);
    drop_blobs(&r);
    rows_free(&r.actual);
    free(r.dead);
    free(r.tol);
    arena_fini(&r.arena);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    out->millis = (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e6;
}

void test_result_fini(TestResult *r)
{
    free(r->report);
    free(r->actual_json);
    free(r->final_json);
    free(r->dead_json);
    memset(r, 0, sizeof *r);
}
