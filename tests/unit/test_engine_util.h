/* Shared scaffolding of the engine's streaming-SQL unit tests (test_engine_join.c,
 * test_engine_window.c, test_engine_topn.c): hand-built projects, plans and IR
 * graphs (no binder, no ir_build), a listener that prints each step's changes as
 * "I row; U new <- old; D row", a dead-letter collector, and builders for the
 * streaming operators. Included by exactly one test file per binary. */
#ifndef WEIR_TEST_ENGINE_UTIL_H
#define WEIR_TEST_ENGINE_UTIL_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "engine/engine.h"
#include "engine/keyed_table.h"
#include "engine/op.h"

#define TB_FN static __attribute__((unused))

/* ---------- hand-built projects, plans and IR ---------- */

#define MAXN 32

typedef struct TB {
    Arena a;
    Project proj;
    SourceDef srcs[4];
    ModelDef models[4];
    IrGraph g;
    IrModel ims[4];
    IrNode *nodes[MAXN];
    int nn;
    EngPipeline *p;
    StrBuf out;              /* listener output of the current step */
    StrBuf dl;               /* dead letters */
    int ncalls;              /* listener calls */
    int ndead;
    bool fail_listener;
} TB;

TB_FN Type T(TypeId id) { return type_make(id); }

TB_FN void tb_init(TB *tb)
{
    memset(tb, 0, sizeof *tb);
    arena_init(&tb->a, 8192);
    tb->proj.sources = tb->srcs;
    tb->proj.models = tb->models;
    tb->g.project = &tb->proj;
    tb->g.nodes = tb->nodes;
    tb->g.models = tb->ims;
    sb_init(&tb->out);
    sb_init(&tb->dl);
}

TB_FN void tb_fini(TB *tb)
{
    eng_pipeline_free(tb->p);
    arena_fini(&tb->a);
    sb_free(&tb->out);
    sb_free(&tb->dl);
}

/* A source with columns "name:type,...": types i2 i4 i8 f8 num txt bool iv ts. */
TB_FN int add_source(TB *tb, const char *name, const char *spec, DataFormat fmt, int pkcol)
{
    int s = tb->proj.nsources++;
    SourceDef *sd = &tb->srcs[s];
    sd->name = name;
    sd->format = fmt;
    sd->event_time_col = -1;
    sd->columns = ARENA_ARRAY(&tb->a, ColumnDef, 16);
    char buf[256];
    snprintf(buf, sizeof buf, "%s", spec);
    for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ",")) {
        char *colon = strchr(tok, ':');
        *colon = '\0';
        const char *ty = colon + 1;
        Type t = strcmp(ty, "i2") == 0 ? T(T_INT2) : strcmp(ty, "i4") == 0 ? T(T_INT4)
               : strcmp(ty, "i8") == 0 ? T(T_INT8) : strcmp(ty, "f8") == 0 ? T(T_FLOAT8)
               : strcmp(ty, "num") == 0 ? type_numeric(-1, -1) : strcmp(ty, "txt") == 0 ? T(T_TEXT)
               : strcmp(ty, "bool") == 0 ? T(T_BOOL) : strcmp(ty, "iv") == 0 ? T(T_INTERVAL)
               : T(T_TIMESTAMP);
        ColumnDef *cd = &sd->columns[sd->ncolumns++];
        cd->name = arena_strdup(&tb->a, tok);
        cd->type = t;
    }
    if (pkcol >= 0) {
        sd->pk_cols = ARENA_ARRAY(&tb->a, int, 1);
        sd->pk_cols[0] = pkcol;
        sd->npk = 1;
    }
    return s;
}

TB_FN int add_model(TB *tb, const char *name)
{
    int m = tb->proj.nmodels++;
    tb->models[m].name = name;
    tb->ims[m].def = &tb->models[m];
    tb->ims[m].nout_key = -1;
    tb->g.nmodels = tb->proj.nmodels;
    return m;
}

TB_FN IrNode *node(TB *tb, PlanKind k, int model, IrNode **ins, int nin, ChangelogMode mode)
{
    IrNode *n = ARENA_NEW(&tb->a, IrNode);
    n->plan = plan_node_new(&tb->a, k, -1);
    n->model = model;
    n->index = tb->nn;
    n->mode = mode;
    n->nkey = -1;
    n->source = -1;
    n->ninputs = nin;
    n->inputs = ARENA_ARRAY(&tb->a, IrNode *, nin > 0 ? nin : 1);
    n->plan->inputs = ARENA_ARRAY(&tb->a, PlanNode *, nin > 0 ? nin : 1);
    n->plan->ninputs = nin;
    for (int i = 0; i < nin; i++) {
        n->inputs[i] = ins[i];
        n->plan->inputs[i] = ins[i]->plan;
    }
    n->op_id = arena_printf(&tb->a, "%s/op%d", tb->models[model].name, tb->nn);
    tb->nodes[tb->nn++] = n;
    tb->g.nnodes = tb->nn;
    return n;
}

TB_FN void set_cols(TB *tb, IrNode *n, int ncols)
{
    n->plan->ncols = ncols;
    n->plan->cols = ARENA_ARRAY(&tb->a, PlanColumn, ncols > 0 ? ncols : 1);
}

TB_FN void col(IrNode *n, int i, const char *name, Type t)
{
    n->plan->cols[i].name = name;
    n->plan->cols[i].type = t;
}

TB_FN IrNode *n_source(TB *tb, int model, int s, ChangelogMode mode)
{
    IrNode *n = node(tb, PL_SOURCE, model, NULL, 0, mode);
    n->source = s;
    n->plan->name = tb->srcs[s].name;
    set_cols(tb, n, tb->srcs[s].ncolumns);
    for (int i = 0; i < tb->srcs[s].ncolumns; i++) col(n, i, tb->srcs[s].columns[i].name, tb->srcs[s].columns[i].type);
    return n;
}

TB_FN Expr *ex(TB *tb, ExprKind k, Type t)
{
    Expr *e = ARENA_NEW(&tb->a, Expr);
    e->kind = k;
    e->type = t;
    e->loc = -1;
    e->col = -1;
    return e;
}

TB_FN Expr *ecol(TB *tb, int c, Type t)
{
    Expr *e = ex(tb, EX_COLUMN, t);
    e->col = c;
    return e;
}

TB_FN Expr *eint(TB *tb, int64_t v, Type t)
{
    Expr *e = ex(tb, EX_CONST, t);
    e->cval = value_int(v);
    return e;
}

TB_FN Expr *eop(TB *tb, OpKind op, Type t, Expr *l, Expr *r)
{
    Expr *e = ex(tb, EX_OP, t);
    e->op = op;
    e->nargs = 2;
    e->args = ARENA_ARRAY(&tb->a, Expr *, 2);
    e->args[0] = l;
    e->args[1] = r;
    return e;
}

TB_FN IrNode *n_filter(TB *tb, int model, IrNode *in, Expr *pred)
{
    IrNode *n = node(tb, PL_FILTER, model, &in, 1, in->mode);
    n->plan->pred = pred;
    n->plan->cols = in->plan->cols;
    n->plan->ncols = in->plan->ncols;
    return n;
}

/* Projection: exprs[i] named names[i]. */
TB_FN IrNode *n_project(TB *tb, int model, IrNode *in, Expr **exprs, const char **names, int k)
{
    IrNode *n = node(tb, PL_PROJECT, model, &in, 1, in->mode);
    n->plan->exprs = ARENA_ARRAY(&tb->a, Expr *, k);
    n->plan->nexprs = k;
    set_cols(tb, n, k);
    for (int i = 0; i < k; i++) {
        n->plan->exprs[i] = exprs[i];
        col(n, i, names[i], exprs[i]->type);
    }
    return n;
}

typedef struct AggDef {
    AggKind kind;
    Expr *arg;
    bool distinct;
    Expr *filter;
    Type type;
    const char *name;
} AggDef;

TB_FN IrNode *n_agg(TB *tb, int model, IrNode *in, Expr **group, const char **gnames, int ng,
                     const AggDef *aggs, int na)
{
    IrNode *n = node(tb, PL_AGGREGATE, model, &in, 1, CL_UPSERT);
    PlanNode *p = n->plan;
    p->group = ARENA_ARRAY(&tb->a, Expr *, ng > 0 ? ng : 1);
    p->ngroup = ng;
    p->aggs = ARENA_ARRAY(&tb->a, AggCall, na > 0 ? na : 1);
    p->naggs = na;
    set_cols(tb, n, ng + na);
    for (int i = 0; i < ng; i++) {
        p->group[i] = group[i];
        col(n, i, gnames[i], group[i]->type);
    }
    for (int j = 0; j < na; j++) {
        p->aggs[j].kind = aggs[j].kind;
        p->aggs[j].arg = aggs[j].arg;
        p->aggs[j].distinct = aggs[j].distinct;
        p->aggs[j].filter = aggs[j].filter;
        p->aggs[j].type = aggs[j].type;
        col(n, ng + j, aggs[j].name, aggs[j].type);
    }
    n->nkey = ng;
    n->key = ARENA_ARRAY(&tb->a, int, ng > 0 ? ng : 1);
    for (int i = 0; i < ng; i++) n->key[i] = i;
    n->nstate = 1;
    n->state = ARENA_NEW(&tb->a, StateDesc);
    n->state->id = arena_printf(&tb->a, "%s/aggregate0", tb->models[model].name);
    n->state->kind = "aggregate";
    return n;
}

TB_FN IrNode *n_same_cols(TB *tb, PlanKind k, int model, IrNode **ins, int nin, ChangelogMode mode)
{
    IrNode *n = node(tb, k, model, ins, nin, mode);
    n->plan->cols = ins[0]->plan->cols;
    n->plan->ncols = ins[0]->plan->ncols;
    return n;
}

TB_FN void set_root(TB *tb, int model, IrNode *root, const int *key, int nkey)
{
    tb->ims[model].root = root;
    tb->ims[model].nout_key = nkey;
    if (nkey >= 0) {
        tb->ims[model].out_key = ARENA_ARRAY(&tb->a, int, nkey > 0 ? nkey : 1);
        for (int i = 0; i < nkey; i++) tb->ims[model].out_key[i] = key[i];
    }
}

/* ---------- running ---------- */

TB_FN void fmt_row(const PlanColumn *cols, int n, const Value *row, StrBuf *sb)
{
    for (int c = 0; c < n; c++) {
        if (c) sb_putc(sb, '|');
        if (row[c].isnull) sb_puts(sb, "NULL");
        else value_format_text(cols[c].type, &row[c], sb);
    }
}

TB_FN bool listener(void *ctx, int model, const EngChange *ch, int n, char *err, size_t errsize)
{
    TB *tb = ctx;
    tb->ncalls++;
    if (tb->fail_listener) {
        snprintf(err, errsize, "sink is down");
        return false;
    }
    const PlanNode *p = tb->ims[model].root->plan;
    for (int i = 0; i < n; i++) {
        if (tb->out.len) sb_puts(&tb->out, "; ");
        if (tb->g.nmodels > 1) sb_printf(&tb->out, "%s:", tb->models[model].name);
        sb_puts(&tb->out, ch[i].op == CHANGE_INSERT ? "I " : ch[i].op == CHANGE_UPDATE ? "U " : "D ");
        fmt_row(p->cols, p->ncols, ch[i].row, &tb->out);
        if (ch[i].op == CHANGE_UPDATE) {
            sb_puts(&tb->out, " <- ");
            fmt_row(p->cols, p->ncols, ch[i].old_row, &tb->out);
        }
    }
    return true;
}

TB_FN void dead_letter(void *ctx, const EngDeadLetter *d)
{
    TB *tb = ctx;
    tb->ndead++;
    if (tb->dl.len) sb_puts(&tb->dl, "; ");
    sb_printf(&tb->dl, "%s: %s [", d->source, d->reason);
    PlanColumn cols[16];
    for (int c = 0; c < d->ncols; c++) {
        cols[c].name = "";
        cols[c].type = d->types[c];
    }
    fmt_row(cols, d->ncols, d->row, &tb->dl);
    sb_putc(&tb->dl, ']');
}

TB_FN void start(TB *tb)
{
    EngOptions o = {0};
    o.listener = listener;
    o.listener_ctx = tb;
    o.dead_letter = dead_letter;
    o.dead_letter_ctx = tb;
    char err[256] = "";
    tb->p = eng_pipeline_new(&tb->g, &o, err, sizeof err);
    if (!tb->p) fail_msg("pipeline: %s", err);
}

/* Append a row to a source batch from text cells "1|x|NULL" (parsed per column type). */
TB_FN void push(TB *tb, int s, int64_t w, const char *cells)
{
    Batch *b = eng_source_batch(tb->p, s);
    assert_non_null(b);
    Value *row = batch_append(b, w);
    const SourceDef *sd = &tb->srcs[s];
    const char *c = cells;
    for (int i = 0; i < sd->ncolumns; i++) {
        const char *bar = strchr(c, '|');
        size_t len = bar ? (size_t)(bar - c) : strlen(c);
        if (len == 4 && memcmp(c, "NULL", 4) == 0) {
            row[i] = value_null();
        } else {
            char err[128];
            if (!value_parse(sd->columns[i].type, c, len, &b->arena, &row[i], err, sizeof err))
                fail_msg("parse '%.*s': %s", (int)len, c, err);
        }
        c = bar ? bar + 1 : c + len;
    }
}

TB_FN void parse_row(TB *tb, int s, const char *cells, Value *row)
{
    const SourceDef *sd = &tb->srcs[s];
    const char *c = cells;
    for (int i = 0; i < sd->ncolumns; i++) {
        const char *bar = strchr(c, '|');
        size_t len = bar ? (size_t)(bar - c) : strlen(c);
        char err[128];
        if (len == 4 && memcmp(c, "NULL", 4) == 0) row[i] = value_null();
        else if (!value_parse(sd->columns[i].type, c, len, &tb->a, &row[i], err, sizeof err))
            fail_msg("parse: %s", err);
        c = bar ? bar + 1 : c + len;
    }
}

/* Run one step and return the listener output ("" when nothing was emitted). */
TB_FN const char *step(TB *tb)
{
    sb_clear(&tb->out);
    char err[256] = "";
    if (!eng_step(tb->p, err, sizeof err)) fail_msg("step: %s", err);
    return tb->out.len ? sb_cstr(&tb->out) : "";
}

TB_FN int64_t stat_entries(TB *tb, const char *id, int64_t *bytes)
{
    EngStateStats st[16];
    int n = eng_state_stats(tb->p, st, 16);
    for (int i = 0; i < n && i < 16; i++)
        if (strcmp(st[i].id, id) == 0) {
            if (bytes) *bytes = st[i].bytes;
            return st[i].entries;
        }
    return -1;
}


/* ---------- streaming operators ---------- */

TB_FN Expr *ebool_and(TB *tb, Expr *a, Expr *b)
{
    Expr *e = ex(tb, EX_AND, T(T_BOOL));
    e->nargs = 2;
    e->args = ARENA_ARRAY(&tb->a, Expr *, 2);
    e->args[0] = a;
    e->args[1] = b;
    return e;
}

/* A join on left column lk[i] = right column rk[i]; output = left ++ right columns
 * (SEMI/ANTI: left only). Mode: retract unless both inputs are insert-only. */
TB_FN IrNode *n_join(TB *tb, int model, IrNode *l, IrNode *r, JoinType jt, const int *lk, const int *rk, int nk,
                     Expr *pred)
{
    IrNode *ins[2] = {l, r};
    bool io = l->mode == CL_INSERT_ONLY && r->mode == CL_INSERT_ONLY && (jt == JOIN_INNER || jt == JOIN_SEMI);
    IrNode *n = node(tb, PL_JOIN, model, ins, 2, io ? CL_INSERT_ONLY : CL_RETRACT);
    PlanNode *p = n->plan;
    p->join_type = jt;
    p->nkeys = nk;
    p->left_keys = ARENA_ARRAY(&tb->a, Expr *, nk > 0 ? nk : 1);
    p->right_keys = ARENA_ARRAY(&tb->a, Expr *, nk > 0 ? nk : 1);
    for (int i = 0; i < nk; i++) {
        p->left_keys[i] = ecol(tb, lk[i], l->plan->cols[lk[i]].type);
        p->right_keys[i] = ecol(tb, rk[i], r->plan->cols[rk[i]].type);
    }
    p->pred = pred;
    bool sa = jt == JOIN_SEMI || jt == JOIN_ANTI;
    int nc = l->plan->ncols + (sa ? 0 : r->plan->ncols);
    set_cols(tb, n, nc);
    for (int i = 0; i < l->plan->ncols; i++) n->plan->cols[i] = l->plan->cols[i];
    if (!sa)
        for (int i = 0; i < r->plan->ncols; i++) n->plan->cols[l->plan->ncols + i] = r->plan->cols[i];
    return n;
}

/* A window TVF over in: output = in ++ window_start, window_end. */
TB_FN IrNode *n_tvf(TB *tb, int model, IrNode *in, WindowTvfKind kind, int time_col, int64_t size_us,
                    int64_t slide_us, int64_t gap_us)
{
    IrNode *n = node(tb, PL_WINDOW_TVF, model, &in, 1, in->mode);
    PlanNode *p = n->plan;
    p->wtvf = kind;
    p->time_col = time_col;
    p->size_us = size_us;
    p->slide_us = slide_us;
    p->gap_us = gap_us;
    int nin = in->plan->ncols;
    set_cols(tb, n, nin + 2);
    for (int i = 0; i < nin; i++) n->plan->cols[i] = in->plan->cols[i];
    Type tt = in->plan->cols[time_col].type;
    col(n, nin, "window_start", tt);
    col(n, nin + 1, "window_end", tt);
    return n;
}

/* A window aggregate: n_agg with window keys at group positions ws_k / we_k. */
TB_FN IrNode *n_wagg(TB *tb, int model, IrNode *in, Expr **group, const char **gnames, int ng, const AggDef *aggs,
                     int na, int ws_k, int we_k)
{
    IrNode *n = n_agg(tb, model, in, group, gnames, ng, aggs, na);
    n->plan->window_start_key = ws_k;
    n->plan->window_end_key = we_k;
    n->mode = CL_INSERT_ONLY;
    n->state->kind = "window_aggregate";
    return n;
}

/* Top-N over in: partition by columns part[0..np), order by columns ord[i] (desc[i],
 * nulls first[i]); output = in (++ rank bigint when emit_rank). */
TB_FN IrNode *n_topn(TB *tb, int model, IrNode *in, const int *part, int np, const int *ord, const bool *desc,
                     const bool *nulls_first, int no, int64_t limit, int rank_kind, bool emit_rank)
{
    IrNode *n = node(tb, PL_TOPN, model, &in, 1, CL_RETRACT);
    PlanNode *p = n->plan;
    p->npartition = np;
    p->partition = ARENA_ARRAY(&tb->a, Expr *, np > 0 ? np : 1);
    for (int i = 0; i < np; i++) p->partition[i] = ecol(tb, part[i], in->plan->cols[part[i]].type);
    p->norder = no;
    p->order = ARENA_ARRAY(&tb->a, SortKey, no > 0 ? no : 1);
    for (int i = 0; i < no; i++) {
        p->order[i].expr = ecol(tb, ord[i], in->plan->cols[ord[i]].type);
        p->order[i].desc = desc ? desc[i] : false;
        p->order[i].nulls_first = nulls_first ? nulls_first[i] : (desc ? desc[i] : false);
    }
    p->limit = limit;
    p->rank_kind = rank_kind;
    p->emit_rank = emit_rank;
    int nin = in->plan->ncols;
    set_cols(tb, n, nin + (emit_rank ? 1 : 0));
    for (int i = 0; i < nin; i++) n->plan->cols[i] = in->plan->cols[i];
    if (emit_rank) col(n, nin, "rk", T(T_INT8));
    n->nstate = 1;
    n->state = ARENA_NEW(&tb->a, StateDesc);
    n->state->id = arena_printf(&tb->a, "%s/topn0", tb->models[model].name);
    n->state->kind = "topn";
    return n;
}

TB_FN IrNode *n_setop(TB *tb, int model, IrNode *l, IrNode *r, SetOpKind kind, bool all)
{
    IrNode *ins[2] = {l, r};
    IrNode *n = n_same_cols(tb, PL_SETOP, model, ins, 2, CL_RETRACT);
    n->plan->setop = kind;
    n->plan->all = all;
    n->nstate = 1;
    n->state = ARENA_NEW(&tb->a, StateDesc);
    n->state->id = arena_printf(&tb->a, "%s/setop0", tb->models[model].name);
    n->state->kind = "setop";
    return n;
}

/* Running aggregates over in: partition by columns part[0..np), ORDER BY column tcol. */
TB_FN IrNode *n_over(TB *tb, int model, IrNode *in, const int *part, int np, int tcol, const AggDef *aggs, int na,
                     bool frame_rows)
{
    IrNode *n = node(tb, PL_OVER_AGG, model, &in, 1, CL_INSERT_ONLY);
    PlanNode *p = n->plan;
    p->npartition = np;
    p->partition = ARENA_ARRAY(&tb->a, Expr *, np > 0 ? np : 1);
    for (int i = 0; i < np; i++) p->partition[i] = ecol(tb, part[i], in->plan->cols[part[i]].type);
    p->norder = 1;
    p->order = ARENA_ARRAY(&tb->a, SortKey, 1);
    p->order[0].expr = ecol(tb, tcol, in->plan->cols[tcol].type);
    p->frame_rows = frame_rows;
    p->naggs = na;
    p->aggs = ARENA_ARRAY(&tb->a, AggCall, na > 0 ? na : 1);
    int nin = in->plan->ncols;
    set_cols(tb, n, nin + na);
    for (int i = 0; i < nin; i++) n->plan->cols[i] = in->plan->cols[i];
    for (int j = 0; j < na; j++) {
        p->aggs[j].kind = aggs[j].kind;
        p->aggs[j].arg = aggs[j].arg;
        p->aggs[j].distinct = aggs[j].distinct;
        p->aggs[j].filter = aggs[j].filter;
        p->aggs[j].type = aggs[j].type;
        col(n, nin + j, aggs[j].name, aggs[j].type);
    }
    n->nstate = 1;
    n->state = ARENA_NEW(&tb->a, StateDesc);
    n->state->id = arena_printf(&tb->a, "%s/over0", tb->models[model].name);
    n->state->kind = "over_aggregate";
    return n;
}

/* Timestamp text -> microseconds. */
TB_FN int64_t ts(const char *text)
{
    Value v;
    char err[128];
    Arena a;
    arena_init(&a, 256);
    if (!value_parse(T(T_TIMESTAMP), text, strlen(text), &a, &v, err, sizeof err)) fail_msg("ts '%s': %s", text, err);
    arena_fini(&a);
    return v.i;
}

TB_FN void wm(TB *tb, int s, const char *text)
{
    eng_source_watermark(tb->p, s, strcmp(text, "end") == 0 ? INT64_MAX : ts(text));
}

/* Serialize the operator of node n in tb1 and load it into tb2's (same graph shape);
 * both must serialize to the same bytes afterwards. Truncated input is rejected. */
TB_FN void roundtrip(TB *tb1, TB *tb2, int node_index)
{
    Op *o1 = eng_pipeline_op(tb1->p, node_index);
    Op *o2 = eng_pipeline_op(tb2->p, node_index);
    assert_non_null(o1);
    assert_non_null(o2);
    StrBuf b1 = STRBUF_INIT, b2 = STRBUF_INIT;
    assert_true(o1->vt->serialize(o1, &b1));
    char err[256] = "";
    assert_false(o2->vt->deserialize(o2, (const uint8_t *)b1.data, b1.len - 1, err, sizeof err));
    assert_false(o2->vt->deserialize(o2, (const uint8_t *)"junkjunkjunkjunk", 16, err, sizeof err));
    if (!o2->vt->deserialize(o2, (const uint8_t *)b1.data, b1.len, err, sizeof err)) fail_msg("deserialize: %s", err);
    assert_true(o2->vt->serialize(o2, &b2));
    assert_int_equal(b1.len, b2.len);
    assert_memory_equal(b1.data, b2.data, b1.len);
    sb_free(&b1);
    sb_free(&b2);
}

/* ---------- materialized views for randomized comparisons ---------- */

/* A multiset of formatted rows. */
typedef struct MS {
    char **s;
    int64_t *c;
    int n, cap;
} MS;

TB_FN void ms_add(MS *m, const char *s, int64_t c)
{
    for (int i = 0; i < m->n; i++)
        if (strcmp(m->s[i], s) == 0) {
            m->c[i] += c;
            return;
        }
    if (m->n == m->cap) {
        m->cap = m->cap ? m->cap * 2 : 64;
        m->s = realloc(m->s, sizeof(char *) * (size_t)m->cap);
        m->c = realloc(m->c, sizeof(int64_t) * (size_t)m->cap);
    }
    m->s[m->n] = xstrdup(s);
    m->c[m->n++] = c;
}

TB_FN void ms_free(MS *m)
{
    for (int i = 0; i < m->n; i++) free(m->s[i]);
    free(m->s);
    free(m->c);
    memset(m, 0, sizeof *m);
}

TB_FN int64_t ms_get(const MS *m, const char *s)
{
    for (int i = 0; i < m->n; i++)
        if (strcmp(m->s[i], s) == 0) return m->c[i];
    return 0;
}

/* Every entry of a equals b's (zero counts included). */
TB_FN bool ms_equal(const MS *a, const MS *b)
{
    for (int i = 0; i < a->n; i++)
        if (a->c[i] != ms_get(b, a->s[i])) return false;
    for (int i = 0; i < b->n; i++)
        if (b->c[i] != ms_get(a, b->s[i])) return false;
    return true;
}

typedef struct Rnd {
    TB tb;
    MS view;                 /* the materialized output */
} Rnd;

TB_FN bool rnd_listener(void *ctx, int model, const EngChange *ch, int n, char *err, size_t errsize)
{
    (void)err;
    (void)errsize;
    Rnd *r = ctx;
    const PlanNode *p = r->tb.ims[model].root->plan;
    StrBuf sb = STRBUF_INIT;
    for (int i = 0; i < n; i++) {
        sb_clear(&sb);
        fmt_row(p->cols, p->ncols, ch[i].row, &sb);
        assert_true(ch[i].op != CHANGE_UPDATE);
        ms_add(&r->view, sb_cstr(&sb), ch[i].op == CHANGE_INSERT ? 1 : -1);
    }
    sb_free(&sb);
    return true;
}

TB_FN uint64_t rng_next(uint64_t *s)
{
    *s = *s * 6364136223846793005ull + 1442695040888963407ull;
    return *s >> 33;
}

#endif
