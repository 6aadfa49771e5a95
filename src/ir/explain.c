/* `weir explain`: the operator tree of each model with the changelog mode of every
 * edge and the state of every stateful operator, as text, JSON or Graphviz DOT. */
#include "ir/explain.h"
#include "ir/ir_internal.h"

#include <string.h>

/* The node's title in explain output: plan_kind_name, except for the two kinds whose
 * explain titles differ from their plan names. */
static const char *op_title(PlanKind k)
{
    if (k == PL_WINDOW_TVF) return "Window";
    if (k == PL_OVER_AGG) return "OverAggregate";
    return plan_kind_name(k);
}

static void type_text(Type t, StrBuf *sb)
{
    char buf[64];
    sb_puts(sb, type_name(t, buf, sizeof buf));
}

/* Expressions of a node are evaluated over its input row: the first input's columns,
 * or left ++ right for joins (whose keys are printed over each side). */
static void input_cols(const IrNode *n, Arena *a, PlanColumn **cols, int *ncols)
{
    *cols = NULL;
    *ncols = 0;
    if (n->ninputs == 0) return;
    if (n->plan->kind != PL_JOIN) {
        *cols = n->inputs[0]->plan->cols;
        *ncols = n->inputs[0]->plan->ncols;
        return;
    }
    int total = 0;
    for (int i = 0; i < n->ninputs; i++) total += n->inputs[i]->plan->ncols;
    PlanColumn *c = ARENA_ARRAY(a, PlanColumn, total > 0 ? total : 1);
    int k = 0;
    for (int i = 0; i < n->ninputs; i++)
        for (int j = 0; j < n->inputs[i]->plan->ncols; j++) c[k++] = n->inputs[i]->plan->cols[j];
    *cols = c;
    *ncols = total;
}

const char *ir_node_detail(const IrGraph *g, const IrNode *n, Arena *a)
{
    const PlanNode *p = n->plan;
    StrBuf sb = STRBUF_INIT;
    PlanColumn *ic;
    int nic;
    input_cols(n, a, &ic, &nic);
    sb_puts(&sb, op_title(p->kind));
    switch (p->kind) {
    case PL_SOURCE:
        sb_printf(&sb, " %s", p->name);
        if (n->source >= 0) sb_printf(&sb, " (%s)", data_format_name(g->project->sources[n->source].format));
        break;
    case PL_REF: sb_printf(&sb, " %s", p->name); break;
    case PL_VALUES:
        for (int r = 0; r < p->nrows; r++) {
            sb_puts(&sb, r ? ", (" : " (");
            for (int c = 0; c < p->ncols; c++) {
                if (c) sb_puts(&sb, ", ");
                plan_expr_sql(p->exprs[r * p->ncols + c], NULL, 0, &sb);
            }
            sb_putc(&sb, ')');
        }
        break;
    case PL_FILTER:
        sb_puts(&sb, " ");
        plan_expr_sql(p->pred, ic, nic, &sb);
        break;
    case PL_PROJECT:
        for (int i = 0; i < p->nexprs; i++) {
            sb_puts(&sb, i ? ", " : " ");
            size_t start = sb.len;
            plan_expr_sql(p->exprs[i], ic, nic, &sb);
            if (strcmp(sb.data + start, p->cols[i].name) != 0 &&
                !(p->exprs[i]->kind == EX_COLUMN && sb.len - start == strlen(p->cols[i].name) + 2))
                sb_printf(&sb, " AS %s", p->cols[i].name);
        }
        break;
    case PL_AGGREGATE:
        sb_puts(&sb, " group=[");
        for (int i = 0; i < p->ngroup; i++) {
            if (i) sb_puts(&sb, ", ");
            plan_expr_sql(p->group[i], ic, nic, &sb);
        }
        sb_puts(&sb, "] aggs=[");
        for (int i = 0; i < p->naggs; i++) {
            if (i) sb_puts(&sb, ", ");
            plan_agg_sql(&p->aggs[i], ic, nic, &sb);
            sb_printf(&sb, " AS %s", p->cols[p->ngroup + i].name);
        }
        sb_putc(&sb, ']');
        break;
    case PL_JOIN: {
        const PlanNode *l = n->inputs[0]->plan, *r = n->inputs[1]->plan;
        if (p->join_type == JOIN_INNER && !p->nkeys && !p->pred) sb_puts(&sb, " cross");
        else sb_printf(&sb, " %s", join_type_name(p->join_type));
        if (p->null_aware) sb_puts(&sb, " (NOT IN)");
        for (int i = 0; i < p->nkeys; i++) {
            sb_puts(&sb, i ? " AND " : " ON ");
            plan_expr_sql(p->left_keys[i], l->cols, l->ncols, &sb);
            sb_puts(&sb, " = ");
            plan_expr_sql(p->right_keys[i], r->cols, r->ncols, &sb);
        }
        if (p->pred) {
            /* the residual predicate reads left ++ right, also for semi/anti joins */
            int nb = l->ncols + r->ncols;
            PlanColumn *both = ARENA_ARRAY(a, PlanColumn, nb + 1);
            memcpy(both, l->cols, sizeof(PlanColumn) * (size_t)l->ncols);
            memcpy(both + l->ncols, r->cols, sizeof(PlanColumn) * (size_t)r->ncols);
            sb_puts(&sb, p->nkeys ? " AND " : " ON ");
            plan_expr_sql(p->pred, both, nb, &sb);
        }
        if (p->interval_join && p->left_time_col >= 0 && p->right_time_col >= 0)
            sb_printf(&sb, " (interval join: %s BETWEEN %s%s%s AND %s%s%s)", l->cols[p->left_time_col].name,
                      r->cols[p->right_time_col].name, p->lower_us < 0 ? " - " : " + ",
                      plan_duration_text(a, p->lower_us < 0 ? (p->lower_us == INT64_MIN ? INT64_MAX : -p->lower_us)
                                                            : p->lower_us),
                      r->cols[p->right_time_col].name, p->upper_us < 0 ? " - " : " + ",
                      plan_duration_text(a, p->upper_us < 0 ? (p->upper_us == INT64_MIN ? INT64_MAX : -p->upper_us)
                                                            : p->upper_us));
        if (n->lookup)
            sb_puts(&sb, " (lookup: only the left input triggers; a change of the right input updates the table "
                         "and emits nothing)");
        break;
    }
    case PL_WINDOW_TVF: {
        const char *t = p->time_col >= 0 && p->time_col < nic ? ic[p->time_col].name : "?";
        if (p->wtvf == WTVF_TUMBLE) sb_printf(&sb, " TUMBLE(%s, %s)", t, plan_duration_text(a, p->size_us));
        else if (p->wtvf == WTVF_HOP)
            sb_printf(&sb, " HOP(%s, slide %s, size %s)", t, plan_duration_text(a, p->slide_us),
                      plan_duration_text(a, p->size_us));
        else sb_printf(&sb, " SESSION(%s, gap %s)", t, plan_duration_text(a, p->gap_us));
        break;
    }
    case PL_TOPN:
    case PL_OVER_AGG:
        if (p->kind == PL_TOPN && (p->emit_rank || p->npartition))
            sb_puts(&sb, p->rank_kind == 1 ? " RANK()" : p->rank_kind == 2 ? " DENSE_RANK()" : " ROW_NUMBER()");
        if (p->npartition) {
            sb_puts(&sb, " partition=[");
            for (int i = 0; i < p->npartition; i++) {
                if (i) sb_puts(&sb, ", ");
                plan_expr_sql(p->partition[i], ic, nic, &sb);
            }
            sb_putc(&sb, ']');
        }
        sb_puts(&sb, " order=[");
        for (int i = 0; i < p->norder; i++) {
            if (i) sb_puts(&sb, ", ");
            plan_expr_sql(p->order[i].expr, ic, nic, &sb);
            if (p->order[i].desc) sb_puts(&sb, " DESC");
            if (p->order[i].nulls_first != p->order[i].desc) sb_puts(&sb, p->order[i].nulls_first ? " NULLS FIRST" : " NULLS LAST");
        }
        sb_putc(&sb, ']');
        if (p->kind == PL_TOPN) {
            sb_printf(&sb, " limit=%lld", (long long)p->limit);
            if (p->emit_rank) sb_printf(&sb, " rank=%s", p->cols[p->ncols - 1].name);
        } else {
            sb_puts(&sb, " aggs=[");
            for (int i = 0; i < p->naggs; i++) {
                if (i) sb_puts(&sb, ", ");
                plan_agg_sql(&p->aggs[i], ic, nic, &sb);
                sb_printf(&sb, " AS %s", p->cols[nic + i].name);
            }
            sb_printf(&sb, "] frame=%s", p->frame_rows ? "rows" : "range");
            if (p->frame_offset >= 0 && p->frame_rows) sb_printf(&sb, " %lld preceding", (long long)p->frame_offset);
            else if (p->frame_offset >= 0) sb_printf(&sb, " %s preceding", plan_duration_text(a, p->frame_offset));
        }
        break;
    case PL_SETOP:
        sb_printf(&sb, " %s%s", p->setop == SETOP_UNION ? "UNION" : p->setop == SETOP_EXCEPT ? "EXCEPT" : "INTERSECT",
                  p->all ? " ALL" : "");
        break;
    default: break;
    }
    if (p->kind == PL_AGGREGATE && (p->window_start_key >= 0 || p->window_end_key >= 0))
        sb_puts(&sb, " emit=window close");
    const char *s = arena_strdup(a, sb_cstr(&sb));
    sb_free(&sb);
    return s;
}

/* ---------- text ---------- */

static void cols_text(const PlanColumn *c, int n, StrBuf *sb)
{
    for (int i = 0; i < n; i++) {
        if (i) sb_puts(sb, ", ");
        sb_printf(sb, "%s ", c[i].name);
        type_text(c[i].type, sb);
    }
}

static void state_text(const StateDesc *s, StrBuf *sb, const char *prefix)
{
    char fp[17];
    sb_printf(sb, "%sstate %s (%s)\n", prefix, s->id, s->kind);
    sb_printf(sb, "%s  key:    (", prefix);
    cols_text(s->key, s->nkey, sb);
    sb_printf(sb, ")\n%s  values: (", prefix);
    cols_text(s->values, s->nvalues, sb);
    sb_printf(sb, ")\n%s  bound:  %s", prefix, state_bound_name(s->bound));
    if (s->bound == BOUND_TTL) {
        int64_t sec = s->ttl_us / 1000000;
        if (sec % 86400 == 0) sb_printf(sb, " %lldd idle", (long long)(sec / 86400));
        else if (sec % 3600 == 0) sb_printf(sb, " %lldh idle", (long long)(sec / 3600));
        else sb_printf(sb, " %llds idle", (long long)sec);
    }
    if (s->bound_detail) sb_printf(sb, " (%s)", s->bound_detail);
    ir_fp_hex(s->schema_fp, fp);
    sb_printf(sb, "   schema %s", fp);
    ir_fp_hex(s->logic_fp, fp);
    sb_printf(sb, "  logic %s\n", fp);
}

/* A node reached a second time in one model's tree (a common subexpression the IR
 * computes once) is printed without its state and inputs, pointing at the first. */
static void tree_text(const IrGraph *g, const IrNode *n, Arena *a, StrBuf *sb, const char *prefix,
                      bool last, bool top, bool *seen)
{
    sb_puts(sb, prefix);
    if (!top) sb_puts(sb, last ? "└── " : "├── ");
    sb_printf(sb, "%s  -> %s", ir_node_detail(g, n, a), ir_mode_text(n, a));
    if (seen[n->index] && n->plan->kind != PL_SOURCE && n->plan->kind != PL_REF) {
        sb_printf(sb, "   (shared: %s, shown above)\n", n->op_id);
        return;
    }
    seen[n->index] = true;
    sb_putc(sb, '\n');
    const char *child_prefix = top ? prefix : arena_printf(a, "%s%s", prefix, last ? "    " : "│   ");
    bool expand = n->plan->kind != PL_REF;
    const char *state_prefix = arena_printf(a, "%s%s", child_prefix, expand && n->ninputs ? "│   " : "    ");
    for (int i = 0; i < n->nstate; i++) state_text(&n->state[i], sb, state_prefix);
    if (!expand) return;
    for (int i = 0; i < n->ninputs; i++)
        tree_text(g, n->inputs[i], a, sb, child_prefix, i == n->ninputs - 1, false, seen);
}

static bool model_selected(const IrGraph *g, const bool *want, int m)
{
    return (!want || want[m]) && g->models[m].root;
}

static void model_text(const IrGraph *g, int m, Arena *a, StrBuf *sb)
{
    const IrModel *im = &g->models[m];
    const ModelDef *d = im->def;
    sb_printf(sb, "model %s  (%s)\n", d->name, d->sql_file);
    sb_printf(sb, "  materialized: %s", materialization_name(d->materialized));
    if (im->nout_key >= 0) {
        sb_puts(sb, "   key: [");
        for (int i = 0; i < im->nout_key; i++) {
            if (i) sb_puts(sb, ", ");
            sb_puts(sb, im->root->plan->cols[im->out_key[i]].name);
        }
        sb_puts(sb, "]");
    }
    sb_printf(sb, "   output: %s   fingerprint: %s\n", ir_mode_text(im->root, a), im->fingerprint_hex);
    sb_puts(sb, "  columns: ");
    cols_text(im->root->plan->cols, im->root->plan->ncols, sb);
    sb_puts(sb, "\n\n");
    bool *seen = ARENA_ARRAY(a, bool, g->nnodes + 1);
    tree_text(g, im->root, a, sb, "  ", true, true, seen);
}

void ir_explain_text(const IrGraph *g, const bool *model, StrBuf *out)
{
    Arena a;
    arena_init(&a, 16 * 1024);
    bool first = true;
    for (int t = 0; t < g->bound->ntopo; t++) {
        int m = g->bound->topo[t];
        if (!model_selected(g, model, m)) continue;
        if (!first) sb_putc(out, '\n');
        first = false;
        model_text(g, m, &a, out);
    }
    arena_fini(&a);
}

/* ---------- JSON ---------- */

static void cols_json(JsonW *w, const PlanColumn *c, int n)
{
    char buf[64];
    jw_arr(w);
    for (int i = 0; i < n; i++) {
        jw_obj(w);
        jw_kstr(w, "name", c[i].name);
        jw_kstr(w, "type", type_name(c[i].type, buf, sizeof buf));
        jw_end_obj(w);
    }
    jw_end_arr(w);
}

void ir_state_json(JsonW *w, const StateDesc *s)
{
    char fp[17];
    jw_obj(w);
    jw_kstr(w, "id", s->id);
    jw_kstr(w, "kind", s->kind);
    jw_key(w, "key");
    cols_json(w, s->key, s->nkey);
    jw_key(w, "values");
    cols_json(w, s->values, s->nvalues);
    jw_kstr(w, "bound", state_bound_name(s->bound));
    jw_key(w, "ttl_seconds");
    if (s->bound == BOUND_TTL) jw_int(w, s->ttl_us / 1000000);
    else jw_null(w);
    jw_kstr(w, "bound_detail", s->bound_detail);
    ir_fp_hex(s->schema_fp, fp);
    jw_kstr(w, "schema_fingerprint", fp);
    ir_fp_hex(s->logic_fp, fp);
    jw_kstr(w, "logic_fingerprint", fp);
    jw_end_obj(w);
}

static void key_json(JsonW *w, const PlanNode *p, const int *key, int nkey)
{
    if (nkey < 0) {
        jw_null(w);
        return;
    }
    jw_arr(w);
    for (int i = 0; i < nkey; i++) jw_str(w, p->cols[key[i]].name);
    jw_end_arr(w);
}

/* A node reached a second time in one model's tree is written again, with "shared":
 * true and without its state and inputs (listed at its first occurrence). */
static void node_json(JsonW *w, const IrGraph *g, const IrNode *n, Arena *a, bool *seen)
{
    char fp[17];
    bool repeat = seen[n->index] && n->plan->kind != PL_SOURCE && n->plan->kind != PL_REF;
    seen[n->index] = true;
    jw_obj(w);
    jw_kstr(w, "id", n->op_id);
    jw_kstr(w, "op", op_title(n->plan->kind));
    jw_kstr(w, "detail", ir_node_detail(g, n, a));
    jw_kstr(w, "mode", changelog_mode_name(n->mode));
    jw_key(w, "key");
    key_json(w, n->plan, n->key, n->nkey);
    jw_key(w, "columns");
    cols_json(w, n->plan->cols, n->plan->ncols);
    ir_fp_hex(n->logic_fp, fp);
    jw_kstr(w, "logic_fingerprint", fp);
    jw_key(w, "state");
    jw_arr(w);
    for (int i = 0; i < n->nstate && !repeat; i++) ir_state_json(w, &n->state[i]);
    jw_end_arr(w);
    if (n->plan->kind == PL_REF) jw_kstr(w, "ref", n->plan->name);
    if (n->plan->kind == PL_SOURCE) jw_kstr(w, "source", n->plan->name);
    jw_key(w, "inputs");
    jw_arr(w);
    if (n->plan->kind != PL_REF && !repeat)
        for (int i = 0; i < n->ninputs; i++) node_json(w, g, n->inputs[i], a, seen);
    jw_end_arr(w);
    if (repeat) {
        jw_key(w, "shared");
        jw_bool(w, true);
    }
    jw_end_obj(w);
}

static void names_json(JsonW *w, const char **names, int n)
{
    jw_arr(w);
    for (int i = 0; i < n; i++) jw_str(w, names[i]);
    jw_end_arr(w);
}

/* Where the model's output goes: connector, place and format (null without a sink).
 * Values are as written in the config (a ${ENV:..} reference stays unexpanded). */
static void sink_json(JsonW *w, const ModelDef *d)
{
    const SinkDef *s = d->sink;
    if (!s) {
        jw_null(w);
        return;
    }
    jw_obj(w);
    jw_kstr(w, "connector", sink_connector_name(s->connector));
    if (s->path) jw_kstr(w, "path", s->path);
    if (s->connector == SINK_SQLITE || s->connector == SINK_POSTGRES || s->connector == SINK_CLICKHOUSE)
        jw_kstr(w, "table", s->table ? s->table : d->name);
    if (s->topic) jw_kstr(w, "topic", s->topic);
    if (s->database) jw_kstr(w, "database", s->database);
    if (s->url) jw_kstr(w, "url", s->url);
    if (s->connector == SINK_FILE || s->connector == SINK_STDOUT || s->connector == SINK_KAFKA)
        jw_kstr(w, "format", data_format_name(s->format));
    jw_end_obj(w);
}

void ir_model_json(JsonW *w, const IrGraph *g, int m)
{
    Arena a;
    arena_init(&a, 16 * 1024);
    const IrModel *im = &g->models[m];
    const ModelDef *d = im->def;
    jw_obj(w);
    jw_kstr(w, "name", d->name);
    jw_kstr(w, "file", d->sql_file);
    jw_kstr(w, "materialized", materialization_name(d->materialized));
    jw_key(w, "key");
    if (im->root) key_json(w, im->root->plan, im->out_key, im->nout_key);
    else jw_null(w);
    jw_kstr(w, "output_mode", im->root ? changelog_mode_name(im->root->mode) : NULL);
    jw_kstr(w, "fingerprint", im->root ? im->fingerprint_hex : NULL);
    jw_kstr(w, "output_fingerprint", im->root ? im->output_fp_hex : NULL);
    if (d->state_ttl_us > 0) jw_kint(w, "state_ttl_seconds", d->state_ttl_us / 1000000);
    jw_key(w, "sink");
    sink_json(w, d);
    jw_key(w, "columns");
    if (im->root) cols_json(w, im->root->plan->cols, im->root->plan->ncols);
    else jw_null(w);
    jw_key(w, "depends_on");
    jw_obj(w);
    jw_key(w, "sources");
    names_json(w, im->bound->dep_sources, im->bound->ndep_sources);
    jw_key(w, "models");
    names_json(w, im->bound->dep_models, im->bound->ndep_models);
    jw_end_obj(w);
    jw_key(w, "plan");
    if (im->root) node_json(w, g, im->root, &a, ARENA_ARRAY(&a, bool, g->nnodes + 1));
    else jw_null(w);
    jw_end_obj(w);
    arena_fini(&a);
}

void ir_explain_json(const IrGraph *g, const bool *model, StrBuf *out)
{
    JsonW w;
    jw_init(&w, out, true);
    jw_obj(&w);
    jw_kint(&w, "version", 1);
    jw_key(&w, "models");
    jw_arr(&w);
    for (int t = 0; t < g->bound->ntopo; t++) {
        int m = g->bound->topo[t];
        if (model_selected(g, model, m)) ir_model_json(&w, g, m);
    }
    jw_end_arr(&w);
    jw_end_obj(&w);
}

/* ---------- DOT ---------- */

static void dot_escape(StrBuf *sb, const char *s)
{
    for (; *s; s++) {
        if (*s == '"' || *s == '\\') sb_putc(sb, '\\');
        sb_putc(sb, *s);
    }
}

void ir_explain_dot(const IrGraph *g, const bool *model, StrBuf *out)
{
    Arena a;
    arena_init(&a, 16 * 1024);
    sb_puts(out, "digraph weir {\n  rankdir=BT;\n  node [shape=box, fontname=\"monospace\"];\n");
    for (int t = 0; t < g->bound->ntopo; t++) {
        int m = g->bound->topo[t];
        if (!model_selected(g, model, m)) continue;
        sb_printf(out, "  subgraph \"cluster_%s\" {\n    label=\"%s\";\n", g->models[m].def->name,
                  g->models[m].def->name);
        for (int i = 0; i < g->nnodes; i++) {
            const IrNode *n = g->nodes[i];
            if (n->model != m) continue;
            sb_printf(out, "    \"%s\" [label=\"", n->op_id);
            dot_escape(out, ir_node_detail(g, n, &a));
            for (int s = 0; s < n->nstate; s++) {
                sb_puts(out, "\\nstate ");
                dot_escape(out, n->state[s].id);
                sb_printf(out, " (%s)", state_bound_name(n->state[s].bound));
            }
            sb_printf(out, "\"%s];\n", n->nstate ? ", style=bold" : "");
        }
        sb_puts(out, "  }\n");
        for (int i = 0; i < g->nnodes; i++) {
            const IrNode *n = g->nodes[i];
            if (n->model != m) continue;
            for (int k = 0; k < n->ninputs; k++) {
                sb_printf(out, "  \"%s\" -> \"%s\" [label=\"", n->inputs[k]->op_id, n->op_id);
                dot_escape(out, ir_mode_text(n->inputs[k], &a));
                sb_puts(out, "\"];\n");
            }
        }
    }
    sb_puts(out, "}\n");
    arena_fini(&a);
}
