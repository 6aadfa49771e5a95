/* Golden tests of the binder. Each tests/golden/bind/<case>.case file holds
 *
 *   -- source commerce.orders: order_id bigint, amount numeric(12,2), ...
 *      (optionally followed by `; event_time col; watermark_delay 5s; primary_key a b;
 *      format changelog-json`)
 *   -- model upstream            (optional extra models, each with its SQL)
 *   SELECT ...
 *   -- model m                   (the last model is the one printed)
 *   SELECT ...
 *   -- expect
 *   <printed plan and diagnostics>
 *
 * The driver builds an in-memory Project from the case, binds it, and prints the last
 * model's dependencies, its plan (one line per node: kind, expressions printed with
 * plan_expr_sql, output columns name:type; Filter and Distinct pass their input's
 * columns through and do not repeat them) and every diagnostic rendered as text.
 *
 * Usage: bind_golden [--update] [case files or directories...]
 * (default directory: tests/golden/bind). Prints ok/FAIL per case with a line diff,
 * exits 1 when a case fails; --update rewrites the expectations instead. */
#include "base/arena.h"
#include "base/diag.h"
#include "base/strbuf.h"
#include "project/project.h"
#include "sql/binder.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

typedef struct Case {
    Project p;
    int cap_sources, cap_models;
    const char *printed;      /* name of the model to print */
    const char *expect;       /* expected output */
    size_t header_len;        /* bytes of the file up to and including "-- expect\n" */
} Case;

static char *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *s = xmalloc((size_t)n + 1);
    size_t got = fread(s, 1, (size_t)n, f);
    fclose(f);
    s[got] = '\0';
    if (len) *len = got;
    return s;
}

static char *trim(char *s)
{
    while (*s == ' ' || *s == '\t') s++;
    size_t n = strlen(s);
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r')) s[--n] = '\0';
    return s;
}

static bool parse_source(Case *c, char *line, char *err, size_t errsize)
{
    Project *p = &c->p;
    char *colon = strchr(line, ':');
    if (!colon) {
        snprintf(err, errsize, "source line without ':'");
        return false;
    }
    *colon = '\0';
    char *opts = strchr(colon + 1, ';');
    if (opts) *opts++ = '\0';
    if (p->nsources == c->cap_sources) {
        c->cap_sources = c->cap_sources ? c->cap_sources * 2 : 4;
        SourceDef *v = ARENA_ARRAY(&p->arena, SourceDef, c->cap_sources);
        if (p->nsources) memcpy(v, p->sources, sizeof(SourceDef) * (size_t)p->nsources);
        p->sources = v;
    }
    SourceDef *s = &p->sources[p->nsources++];
    memset(s, 0, sizeof *s);
    s->name = arena_strdup(&p->arena, trim(line));
    s->event_time_col = -1;
    s->format = FMT_JSON;
    /* columns: "name type" separated by commas outside parentheses */
    char *q = colon + 1;
    int cap = 16;
    s->columns = ARENA_ARRAY(&p->arena, ColumnDef, cap);
    while (*q) {
        char *start = q;
        int depth = 0;
        while (*q && !(*q == ',' && depth == 0)) {
            if (*q == '(') depth++;
            if (*q == ')') depth--;
            q++;
        }
        if (*q) *q++ = '\0';
        char *item = trim(start);
        if (!*item) continue;
        char *sp = strpbrk(item, " \t");
        if (!sp) {
            snprintf(err, errsize, "column without a type: %s", item);
            return false;
        }
        *sp = '\0';
        if (s->ncolumns == cap) {
            cap *= 2;
            ColumnDef *v = ARENA_ARRAY(&p->arena, ColumnDef, cap);
            memcpy(v, s->columns, sizeof(ColumnDef) * (size_t)s->ncolumns);
            s->columns = v;
        }
        ColumnDef *cd = &s->columns[s->ncolumns++];
        memset(cd, 0, sizeof *cd);
        cd->name = arena_strdup(&p->arena, item);
        const char *tn = trim(sp + 1);
        if (!type_parse(tn, &cd->type)) {
            snprintf(err, errsize, "unknown type: %s", tn);
            return false;
        }
    }
    while (opts && *opts) {
        char *next = strchr(opts, ';');
        if (next) *next++ = '\0';
        char *opt = trim(opts);
        opts = next;
        if (!*opt) continue;
        char *sp = strpbrk(opt, " \t");
        char *val = sp ? trim(sp + 1) : "";
        if (sp) *sp = '\0';
        if (strcmp(opt, "event_time") == 0) {
            s->event_time_col = source_column_index(s, val);
            if (s->event_time_col < 0) {
                snprintf(err, errsize, "event_time: no column %s", val);
                return false;
            }
        } else if (strcmp(opt, "watermark_delay") == 0) {
            if (!project_parse_duration(val, &s->watermark_delay_us)) {
                snprintf(err, errsize, "bad watermark_delay: %s", val);
                return false;
            }
        } else if (strcmp(opt, "primary_key") == 0) {
            s->pk_cols = ARENA_ARRAY(&p->arena, int, s->ncolumns + 1);
            for (char *tok = strtok(val, " ,"); tok; tok = strtok(NULL, " ,")) {
                int k = source_column_index(s, tok);
                if (k < 0) {
                    snprintf(err, errsize, "primary_key: no column %s", tok);
                    return false;
                }
                s->pk_cols[s->npk++] = k;
            }
        } else if (strcmp(opt, "format") == 0) {
            if (strcmp(val, "changelog-json") == 0) s->format = FMT_CHANGELOG_JSON;
            else if (strcmp(val, "debezium-json") == 0) s->format = FMT_DEBEZIUM_JSON;
            else if (strcmp(val, "json") == 0) s->format = FMT_JSON;
            else {
                snprintf(err, errsize, "unknown format: %s", val);
                return false;
            }
        } else {
            snprintf(err, errsize, "unknown source option: %s", opt);
            return false;
        }
    }
    return true;
}

static ModelDef *add_model(Case *c, const char *name)
{
    Project *p = &c->p;
    if (p->nmodels == c->cap_models) {
        c->cap_models = c->cap_models ? c->cap_models * 2 : 4;
        ModelDef *v = ARENA_ARRAY(&p->arena, ModelDef, c->cap_models);
        if (p->nmodels) memcpy(v, p->models, sizeof(ModelDef) * (size_t)p->nmodels);
        p->models = v;
    }
    ModelDef *m = &p->models[p->nmodels++];
    memset(m, 0, sizeof *m);
    m->name = arena_strdup(&p->arena, name);
    m->sql_file = arena_printf(&p->arena, "models/%s.sql", name);
    m->materialized = MAT_VIEW;
    m->config_pos.file = m->sql_file;
    m->config_pos.line = 1;
    m->config_pos.col = 1;
    return m;
}

static int cmp_source(const void *a, const void *b)
{
    return strcmp(((const SourceDef *)a)->name, ((const SourceDef *)b)->name);
}

static int cmp_model(const void *a, const void *b)
{
    return strcmp(((const ModelDef *)a)->name, ((const ModelDef *)b)->name);
}

/* Parses a case file into c (project in c->p.arena). */
static bool parse_case(Case *c, const char *text, char *err, size_t errsize)
{
    memset(c, 0, sizeof *c);
    arena_init(&c->p.arena, 64 * 1024);
    c->p.dir = ".";
    c->p.name = "golden";
    Project *p = &c->p;
    StrBuf sql = STRBUF_INIT;
    ModelDef *cur = NULL;
    const char *s = text;
    bool ok = true;
    while (*s) {
        const char *e = strchr(s, '\n');
        size_t n = e ? (size_t)(e - s) : strlen(s);
        char *line = arena_strndup(&p->arena, s, n);
        const char *next = e ? e + 1 : s + n;
        bool directive = strncmp(line, "-- source ", 10) == 0 || strncmp(line, "-- model ", 9) == 0 ||
                         strcmp(trim(line), "-- expect") == 0;
        if (directive && cur) {
            cur->raw_sql = cur->sql = arena_strdup(&p->arena, sql.len ? sb_cstr(&sql) : "");
            sb_clear(&sql);
            cur = NULL;
        }
        if (strncmp(line, "-- source ", 10) == 0) {
            if (!parse_source(c, line + 10, err, errsize)) {
                ok = false;
                break;
            }
        } else if (strncmp(line, "-- model ", 9) == 0) {
            cur = add_model(c, trim(line + 9));
            c->printed = cur->name;
        } else if (strcmp(trim(line), "-- expect") == 0) {
            c->header_len = (size_t)(next - text);
            c->expect = next;
            break;
        } else if (cur) {
            sb_append(&sql, s, n);
            sb_putc(&sql, '\n');
        }
        s = next;
    }
    if (ok && cur) cur->raw_sql = cur->sql = arena_strdup(&p->arena, sql.len ? sb_cstr(&sql) : "");
    sb_free(&sql);
    if (ok && !c->printed) {
        snprintf(err, errsize, "no -- model");
        ok = false;
    }
    if (ok && !c->expect) {
        snprintf(err, errsize, "no -- expect");
        ok = false;
    }
    if (ok) {
        qsort(p->sources, (size_t)p->nsources, sizeof(SourceDef), cmp_source);
        qsort(p->models, (size_t)p->nmodels, sizeof(ModelDef), cmp_model);
    }
    return ok;
}

/* ---- printing ------------------------------------------------------------------------ */

static void put_cols(StrBuf *out, const PlanColumn *cols, int n)
{
    char buf[96];
    sb_puts(out, "[");
    for (int i = 0; i < n; i++) {
        if (i) sb_puts(out, ", ");
        sb_printf(out, "%s:%s", cols[i].name, type_name(cols[i].type, buf, sizeof buf));
    }
    sb_puts(out, "]");
}

static void put_exprs(StrBuf *out, const char *label, Expr *const *es, int n, const PlanColumn *ic, int nic)
{
    sb_printf(out, " %s=[", label);
    for (int i = 0; i < n; i++) {
        if (i) sb_puts(out, ", ");
        plan_expr_sql(es[i], ic, nic, out);
    }
    sb_puts(out, "]");
}

static void put_order(StrBuf *out, const SortKey *o, int n, const PlanColumn *ic, int nic)
{
    sb_puts(out, " order=[");
    for (int i = 0; i < n; i++) {
        if (i) sb_puts(out, ", ");
        plan_expr_sql(o[i].expr, ic, nic, out);
        if (o[i].desc) sb_puts(out, " DESC");
        if (o[i].nulls_first != o[i].desc) sb_puts(out, o[i].nulls_first ? " NULLS FIRST" : " NULLS LAST");
    }
    sb_puts(out, "]");
}

/* Join details: type, keys (each side over its input), residual predicate over
 * left ++ right, interval bounds, NOT IN semantics. */
static void put_join(StrBuf *out, const PlanNode *n)
{
    const PlanNode *l = n->inputs[0], *r = n->inputs[1];
    sb_printf(out, " %s", join_type_name(n->join_type));
    if (n->null_aware) sb_puts(out, " null_aware");
    if (n->nkeys) {
        sb_puts(out, " keys=[");
        for (int i = 0; i < n->nkeys; i++) {
            if (i) sb_puts(out, ", ");
            plan_expr_sql(n->left_keys[i], l->cols, l->ncols, out);
            sb_puts(out, " = ");
            plan_expr_sql(n->right_keys[i], r->cols, r->ncols, out);
        }
        sb_puts(out, "]");
    }
    if (n->pred) {
        int nb = l->ncols + r->ncols;
        PlanColumn *both = xmalloc(sizeof(PlanColumn) * (size_t)(nb + 1));
        memcpy(both, l->cols, sizeof(PlanColumn) * (size_t)l->ncols);
        memcpy(both + l->ncols, r->cols, sizeof(PlanColumn) * (size_t)r->ncols);
        sb_puts(out, " pred=");
        plan_expr_sql(n->pred, both, nb, out);
        free(both);
    }
    if (n->interval_join)
        sb_printf(out, " interval(left.%s BETWEEN right.%s%+lldus AND right.%s%+lldus)", l->cols[n->left_time_col].name,
                  r->cols[n->right_time_col].name, (long long)n->lower_us, r->cols[n->right_time_col].name,
                  (long long)n->upper_us);
}

static void print_plan(StrBuf *out, const PlanNode *n, int depth)
{
    char buf[96];
    sb_indent(out, depth * 2);
    sb_puts(out, plan_kind_name(n->kind));
    const PlanNode *in = n->ninputs ? n->inputs[0] : NULL;
    const PlanColumn *ic = in ? in->cols : NULL;
    int nic = in ? in->ncols : 0;
    switch (n->kind) {
    case PL_SOURCE:
    case PL_REF: sb_printf(out, " %s", n->name ? n->name : "?"); break;
    case PL_FILTER:
        sb_puts(out, " pred=");
        plan_expr_sql(n->pred, ic, nic, out);
        break;
    case PL_VALUES:
        sb_printf(out, " rows=%d [", n->nrows);
        for (int i = 0; i < n->nexprs; i++) {
            if (i) sb_puts(out, i % n->ncols ? ", " : "; ");
            plan_expr_sql(n->exprs[i], NULL, 0, out);
        }
        sb_puts(out, "]");
        break;
    case PL_PROJECT:
        sb_puts(out, " exprs=[");
        for (int i = 0; i < n->nexprs; i++) {
            if (i) sb_puts(out, ", ");
            plan_expr_sql(n->exprs[i], ic, nic, out);
        }
        sb_puts(out, "]");
        break;
    case PL_AGGREGATE:
        sb_puts(out, " keys=[");
        for (int i = 0; i < n->ngroup; i++) {
            if (i) sb_puts(out, ", ");
            plan_expr_sql(n->group[i], ic, nic, out);
        }
        sb_puts(out, "] aggs=[");
        for (int i = 0; i < n->naggs; i++) {
            if (i) sb_puts(out, ", ");
            plan_agg_sql(&n->aggs[i], ic, nic, out);
            sb_printf(out, ":%s", type_name(n->aggs[i].type, buf, sizeof buf));
        }
        sb_puts(out, "]");
        if (n->window_start_key >= 0) sb_printf(out, " window_start_key=%d", n->window_start_key);
        if (n->window_end_key >= 0) sb_printf(out, " window_end_key=%d", n->window_end_key);
        break;
    case PL_JOIN: put_join(out, n); break;
    case PL_WINDOW_TVF:
        if (n->wtvf == WTVF_TUMBLE)
            sb_printf(out, " TUMBLE time=%s size_us=%lld", ic[n->time_col].name, (long long)n->size_us);
        else if (n->wtvf == WTVF_HOP)
            sb_printf(out, " HOP time=%s slide_us=%lld size_us=%lld", ic[n->time_col].name, (long long)n->slide_us,
                      (long long)n->size_us);
        else
            sb_printf(out, " SESSION time=%s gap_us=%lld", ic[n->time_col].name, (long long)n->gap_us);
        break;
    case PL_TOPN:
        if (n->npartition) put_exprs(out, "partition", n->partition, n->npartition, ic, nic);
        put_order(out, n->order, n->norder, ic, nic);
        sb_printf(out, " limit=%lld %s%s", (long long)n->limit,
                  n->rank_kind == 0 ? "row_number" : n->rank_kind == 1 ? "rank" : "dense_rank",
                  n->emit_rank ? " emit_rank" : "");
        break;
    case PL_OVER_AGG:
        if (n->npartition) put_exprs(out, "partition", n->partition, n->npartition, ic, nic);
        put_order(out, n->order, n->norder, ic, nic);
        sb_puts(out, " aggs=[");
        for (int i = 0; i < n->naggs; i++) {
            if (i) sb_puts(out, ", ");
            plan_agg_sql(&n->aggs[i], ic, nic, out);
            sb_printf(out, ":%s", type_name(n->aggs[i].type, buf, sizeof buf));
        }
        sb_printf(out, "] frame=%s", n->frame_rows ? "rows" : "range");
        if (n->frame_offset >= 0) sb_printf(out, " frame_offset=%lld", (long long)n->frame_offset);
        break;
    case PL_SETOP:
        sb_printf(out, " %s%s", n->setop == SETOP_UNION ? "UNION" : n->setop == SETOP_EXCEPT ? "EXCEPT" : "INTERSECT",
                  n->all ? " ALL" : "");
        break;
    default: break;
    }
    if (n->kind != PL_FILTER && n->kind != PL_DISTINCT) {
        sb_puts(out, " cols=");
        put_cols(out, n->cols, n->ncols);
    }
    sb_putc(out, '\n');
    for (int i = 0; i < n->ninputs; i++) print_plan(out, n->inputs[i], depth + 1);
}

static void put_names(StrBuf *out, const char *const *v, int n)
{
    sb_putc(out, '[');
    for (int i = 0; i < n; i++) sb_printf(out, "%s%s", i ? ", " : "", v[i]);
    sb_putc(out, ']');
}

static char *run_case(Case *c)
{
    Arena arena;
    arena_init(&arena, 64 * 1024);
    DiagList dl;
    diag_init(&dl);
    BoundProject *bp = sql_bind_project(&c->p, &arena, &dl);
    StrBuf out = STRBUF_INIT;
    int idx = bound_model_index(bp, c->printed);
    const BoundModel *bm = idx >= 0 ? &bp->models[idx] : NULL;
    sb_printf(&out, "model %s sources=", c->printed);
    if (bm) put_names(&out, bm->dep_sources, bm->ndep_sources);
    sb_puts(&out, " models=");
    if (bm) put_names(&out, bm->dep_models, bm->ndep_models);
    sb_putc(&out, '\n');
    if (bm && bm->root) print_plan(&out, bm->root, 0);
    else sb_puts(&out, "(not bound)\n");
    if (dl.count) {
        diag_sort(&dl);
        diag_render_text(&dl, &out, false);
    }
    diag_fini(&dl);
    arena_fini(&arena);
    char *s = xstrdup(out.len ? sb_cstr(&out) : "");
    sb_free(&out);
    return s;
}

/* ---- comparison ------------------------------------------------------------------------ */

static int split_lines(char *s, char ***out)
{
    int n = 0, cap = 16;
    char **v = xmalloc(sizeof(char *) * (size_t)cap);
    while (*s) {
        char *e = strchr(s, '\n');
        if (n == cap) {
            cap *= 2;
            v = xrealloc(v, sizeof(char *) * (size_t)cap);
        }
        v[n++] = s;
        if (!e) break;
        *e = '\0';
        s = e + 1;
    }
    *out = v;
    return n;
}

static void print_diff(const char *expected, const char *actual)
{
    char *ea = xstrdup(expected), *aa = xstrdup(actual);
    char **a, **b;
    int n = split_lines(ea, &a), m = split_lines(aa, &b);
    /* LCS table, then walk it */
    int *t = xcalloc((size_t)(n + 1) * (size_t)(m + 1), sizeof(int));
#define T(i, j) t[(size_t)(i) * (size_t)(m + 1) + (size_t)(j)]
    for (int i = n - 1; i >= 0; i--)
        for (int j = m - 1; j >= 0; j--)
            T(i, j) = strcmp(a[i], b[j]) == 0 ? T(i + 1, j + 1) + 1 : (T(i + 1, j) > T(i, j + 1) ? T(i + 1, j) : T(i, j + 1));
    int i = 0, j = 0;
    printf("  --- expected\n  +++ actual\n");
    while (i < n || j < m) {
        if (i < n && j < m && strcmp(a[i], b[j]) == 0) {
            printf("   %s\n", a[i]);
            i++, j++;
        } else if (j < m && (i == n || T(i, j + 1) >= T(i + 1, j))) {
            printf("  +%s\n", b[j++]);
        } else {
            printf("  -%s\n", a[i++]);
        }
    }
#undef T
    free(t);
    free(a);
    free(b);
    free(ea);
    free(aa);
}

static char *rstrip_dup(const char *s)
{
    char *d = xstrdup(s);
    size_t n = strlen(d);
    while (n && (d[n - 1] == '\n' || d[n - 1] == ' ' || d[n - 1] == '\r')) d[--n] = '\0';
    return d;
}

static int run_file(const char *path, bool update)
{
    size_t len;
    char *text = read_file(path, &len);
    if (!text) {
        printf("FAIL %s: cannot read\n", path);
        return 1;
    }
    Case c;
    char err[256] = "";
    int rc = 0;
    if (!parse_case(&c, text, err, sizeof err)) {
        printf("FAIL %s: %s\n", path, err);
        rc = 1;
    } else {
        char *actual = run_case(&c);
        char *want = rstrip_dup(c.expect), *got = rstrip_dup(actual);
        if (update) {
            if (strcmp(want, got) != 0) {
                FILE *f = fopen(path, "wb");
                if (!f || fwrite(text, 1, c.header_len, f) != c.header_len || fprintf(f, "%s\n", got) < 0) {
                    printf("FAIL %s: cannot write\n", path);
                    rc = 1;
                } else {
                    printf("updated %s\n", path);
                }
                if (f) fclose(f);
            }
        } else if (strcmp(want, got) == 0) {
            printf("ok %s\n", path);
        } else {
            printf("FAIL %s\n", path);
            print_diff(want, got);
            rc = 1;
        }
        free(want);
        free(got);
        free(actual);
    }
    arena_fini(&c.p.arena);
    free(text);
    return rc;
}

static int cmp_cstr(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int run_dir(const char *dir, bool update, int *ncases)
{
    DIR *d = opendir(dir);
    if (!d) {
        printf("FAIL %s: cannot open\n", dir);
        return 1;
    }
    char **names = NULL;
    int n = 0, cap = 0;
    struct dirent *de;
    while ((de = readdir(d))) {
        size_t l = strlen(de->d_name);
        if (l < 6 || strcmp(de->d_name + l - 5, ".case") != 0) continue;
        if (n == cap) {
            cap = cap ? cap * 2 : 64;
            names = xrealloc(names, sizeof(char *) * (size_t)cap);
        }
        size_t pl = strlen(dir) + l + 2;
        names[n] = xmalloc(pl);
        snprintf(names[n], pl, "%s/%s", dir, de->d_name);
        n++;
    }
    closedir(d);
    qsort(names, (size_t)n, sizeof(char *), cmp_cstr);
    int fails = 0;
    for (int i = 0; i < n; i++) {
        fails += run_file(names[i], update);
        free(names[i]);
    }
    free(names);
    *ncases += n;
    return fails;
}

int main(int argc, char **argv)
{
    bool update = false;
    int fails = 0, ncases = 0, nargs = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--update") == 0) {
            update = true;
            continue;
        }
        nargs++;
        struct stat st;
        if (stat(argv[i], &st) == 0 && S_ISDIR(st.st_mode)) {
            fails += run_dir(argv[i], update, &ncases);
        } else {
            fails += run_file(argv[i], update);
            ncases++;
        }
    }
    if (!nargs) fails += run_dir("tests/golden/bind", update, &ncases);
    printf("%d passed, %d failed\n", ncases - fails, fails);
    return fails ? 1 : 0;
}
