/* Plan verdicts (see plan.h): a comparison of two manifests, model by model and state
 * by state, with the reasons in words. States are matched by their stable ids; the
 * reason for a changed logic fingerprint is found by walking the plan tree below the
 * state's operator down to the operators that changed themselves (their inputs did
 * not), which may be a source or an upstream model. */
#include "lifecycle/plan.h"

#include "base/jsonw.h"

#include <stdio.h>
#include <string.h>

#define MAX_CAUSES 4

const char *verdict_name(Verdict v)
{
    static const char *const names[] = {"unchanged", "safe", "new", "backfill", "rebuild", "removed"};
    return names[v];
}

/* How bad a verdict is for reuse (removed models block nothing). */
static int rank(Verdict v)
{
    static const int r[] = {0, 1, 2, 3, 4, 0};
    return r[v];
}

static Verdict worse(Verdict a, Verdict b) { return rank(b) > rank(a) ? b : a; }

static bool same_str(const char *a, const char *b)
{
    if (!a || !b) return a == b;
    return strcmp(a, b) == 0;
}

/* The model a state belongs to: the part of its id before the first '/'. */
static bool state_of_model(const char *state_id, const char *model)
{
    size_t n = strlen(model);
    return strncmp(state_id, model, n) == 0 && state_id[n] == '/';
}

/* ---- plan trees ---- */

typedef struct NodeMap {
    const MfNode **nodes;
    int n, cap;
} NodeMap;

static void map_nodes(Arena *a, NodeMap *m, const MfNode *n)
{
    if (!n) return;
    if (m->n == m->cap) {
        int cap = m->cap ? m->cap * 2 : 32;
        const MfNode **nn = ARENA_ARRAY(a, const MfNode *, cap);
        if (m->n) memcpy(nn, m->nodes, sizeof(*nn) * (size_t)m->n);
        m->nodes = nn;
        m->cap = cap;
    }
    m->nodes[m->n++] = n;
    for (int i = 0; i < n->ninputs; i++) map_nodes(a, m, n->inputs[i]);
}

static const MfNode *map_find(const NodeMap *m, const char *id)
{
    for (int i = 0; id && i < m->n; i++)
        if (same_str(m->nodes[i]->id, id)) return m->nodes[i];
    return NULL;
}

/* The operator that owns a state: the node whose id is the longest prefix of the
 * state's id ("q/join0" owns "q/join0/left"). */
static const MfNode *owner(const NodeMap *m, const char *state_id)
{
    const MfNode *best = NULL;
    size_t bl = 0;
    for (int i = 0; i < m->n; i++) {
        const char *id = m->nodes[i]->id;
        size_t n = id ? strlen(id) : 0;
        if (n > bl && strncmp(state_id, id, n) == 0 && (state_id[n] == '\0' || state_id[n] == '/')) {
            best = m->nodes[i];
            bl = n;
        }
    }
    return best;
}

typedef struct Ctx {
    Arena *a;
    const Manifest *old, *next;
    int depth;                   /* models followed through Ref nodes */
} Ctx;

static void columns_text(StrBuf *b, const MfColumn *c, int n, bool types)
{
    for (int i = 0; i < n; i++) {
        if (i) sb_puts(b, ", ");
        sb_puts(b, c[i].name);
        if (types && c[i].type) sb_printf(b, " %s", c[i].type);
    }
    if (n == 0) sb_puts(b, "(none)");
}

static bool same_columns(const MfColumn *a, int na, const MfColumn *b, int nb, bool types)
{
    if (na != nb) return false;
    for (int i = 0; i < na; i++)
        if (!same_str(a[i].name, b[i].name) || (types && !same_str(a[i].type, b[i].type))) return false;
    return true;
}

/* "- old\n+ new" lines of a changed column list, each indented by `ind`. */
static void columns_diff(StrBuf *b, const char *ind, const MfColumn *o, int no, const MfColumn *n, int nn)
{
    bool types = same_columns(o, no, n, nn, false);  /* same names: the types differ */
    sb_printf(b, "\n%s- ", ind);
    columns_text(b, o, no, types);
    sb_printf(b, "\n%s+ ", ind);
    columns_text(b, n, nn, types);
}

static const char *key_label(const char *kind)
{
    if (!kind) return "key";
    if (strstr(kind, "aggregate")) return "grouping key";
    if (strncmp(kind, "join", 4) == 0) return "join key";
    if (strstr(kind, "topn") || strstr(kind, "over")) return "partition key";
    if (strcmp(kind, "changelog_normalize") == 0) return "primary key";
    if (strstr(kind, "distinct")) return "distinct key";
    return "key";
}

/* A changed layout: incompatible (rebuild) when the kind, the key or the type of a
 * kept column changed; key-compatible (backfill: the same keys, more or fewer
 * accumulators) when columns were only added or removed. */
static Verdict schema_verdict(const MfState *o, const MfState *n)
{
    if (!same_str(o->kind, n->kind) || !same_columns(o->key, o->nkey, n->key, n->nkey, true)) return VERDICT_REBUILD;
    for (int i = 0; i < o->nvalues; i++)
        for (int j = 0; j < n->nvalues; j++)
            if (same_str(o->values[i].name, n->values[j].name) && !same_str(o->values[i].type, n->values[j].type))
                return VERDICT_REBUILD;
    return VERDICT_BACKFILL;
}

static const char *schema_reason(Ctx *c, const MfState *o, const MfState *n)
{
    StrBuf b = STRBUF_INIT;
    if (!same_str(o->kind, n->kind)) sb_printf(&b, "kind changed: %s -> %s", o->kind, n->kind);
    if (!same_columns(o->key, o->nkey, n->key, n->nkey, true)) {
        if (b.len) sb_putc(&b, '\n');
        sb_printf(&b, "%s changed:", key_label(n->kind));
        columns_diff(&b, "  ", o->key, o->nkey, n->key, n->nkey);
    }
    if (!same_columns(o->values, o->nvalues, n->values, n->nvalues, true)) {
        if (b.len) sb_putc(&b, '\n');
        sb_puts(&b, "state columns changed:");
        for (int i = 0; i < o->nvalues; i++) {
            bool kept = false;
            for (int j = 0; j < n->nvalues && !kept; j++)
                kept = same_str(o->values[i].name, n->values[j].name) && same_str(o->values[i].type, n->values[j].type);
            if (!kept) sb_printf(&b, "\n  - %s %s", o->values[i].name, o->values[i].type ? o->values[i].type : "");
        }
        for (int j = 0; j < n->nvalues; j++) {
            bool old = false;
            for (int i = 0; i < o->nvalues && !old; i++)
                old = same_str(o->values[i].name, n->values[j].name) && same_str(o->values[i].type, n->values[j].type);
            if (!old) sb_printf(&b, "\n  + %s %s", n->values[j].name, n->values[j].type ? n->values[j].type : "");
        }
    }
    if (!b.len) sb_puts(&b, "the state's layout changed");
    const char *r = arena_strndup(c->a, b.data, b.len);
    sb_free(&b);
    return r;
}

/* Does the source now read another stream (connector, file/topic or format)? */
static bool other_stream(const MfSource *o, const MfSource *n)
{
    return !o || !same_str(o->connector, n->connector) || !same_str(o->where, n->where) ||
           !same_str(o->format, n->format);
}

static void source_diff(StrBuf *b, const MfSource *o, const MfSource *n)
{
    if (!o) {
        sb_printf(b, "source %s is new", n->name);
        return;
    }
    sb_printf(b, "source %s changed:", n->name);
    if (!same_str(o->connector, n->connector) || !same_str(o->where, n->where))
        sb_printf(b, "\n  reads %s %s instead of %s %s", n->connector, n->where ? n->where : "", o->connector,
                  o->where ? o->where : "");
    if (!same_str(o->format, n->format)) sb_printf(b, "\n  format %s -> %s", o->format, n->format);
    if (!same_columns(o->cols, o->ncols, n->cols, n->ncols, true)) {
        sb_puts(b, "\n  columns:");
        columns_diff(b, "    ", o->cols, o->ncols, n->cols, n->ncols);
    }
    if (!same_str(o->event_time, n->event_time))
        sb_printf(b, "\n  event_time %s -> %s", o->event_time ? o->event_time : "(none)",
                  n->event_time ? n->event_time : "(none)");
    if (o->watermark_delay_ms != n->watermark_delay_ms)
        sb_printf(b, "\n  watermark_delay %lldms -> %lldms", (long long)o->watermark_delay_ms,
                  (long long)n->watermark_delay_ms);
    bool pk = o->npk == n->npk;
    for (int i = 0; pk && i < o->npk; i++) pk = same_str(o->pk[i], n->pk[i]);
    if (!pk) sb_puts(b, "\n  primary_key changed");
}

/* The source a Source node scans: its detail is "Source <name> (<format>)". */
static const MfSource *scanned_source(const Manifest *m, const MfNode *n)
{
    if (!n->detail || strncmp(n->detail, "Source ", 7) != 0) return NULL;
    const char *name = n->detail + 7;
    for (int i = 0; i < m->nsources; i++) {
        size_t k = strlen(m->sources[i].name);
        if (strncmp(name, m->sources[i].name, k) == 0 && (name[k] == '\0' || name[k] == ' '))
            return &m->sources[i];
    }
    return NULL;
}

typedef struct Causes {
    const char *text[MAX_CAUSES];
    int n;
    bool other_stream;           /* a source now reads another stream: state built from the
                                    old one cannot be continued (rebuild) */
} Causes;

static void add_cause(Ctx *c, Causes *out, StrBuf *b)
{
    if (out->n < MAX_CAUSES) out->text[out->n++] = arena_strndup(c->a, b->data, b->len);
    sb_clear(b);
}

/* Why node n (its old counterpart looked up by id) computes something else: the
 * operators at or below it that changed themselves, i.e. whose inputs did not. */
static void causes(Ctx *c, const NodeMap *om, const MfNode *n, Causes *out)
{
    if (out->n >= MAX_CAUSES) return;
    const MfNode *o = map_find(om, n->id);
    if (o && same_str(o->logic_fp, n->logic_fp)) return;
    StrBuf b = STRBUF_INIT;
    bool inputs_same = o && o->ninputs == n->ninputs;
    for (int i = 0; inputs_same && i < n->ninputs; i++) {
        const MfNode *oi = map_find(om, n->inputs[i]->id);
        inputs_same = oi && same_str(oi->logic_fp, n->inputs[i]->logic_fp);
    }
    if (!o) {
        sb_printf(&b, "%s added: %s", n->op ? n->op : "operator", n->detail ? n->detail : n->id);
        add_cause(c, out, &b);
    } else if (!inputs_same) {
        int before = out->n;
        for (int i = 0; i < n->ninputs; i++) causes(c, om, n->inputs[i], out);
        if (out->n == before) {
            sb_printf(&b, "the inputs of %s changed", n->id);
            add_cause(c, out, &b);
        }
    } else if (n->ref) {
        /* follow the change into the upstream model: a source there that now reads
         * another stream makes this a rebuild too */
        sb_printf(&b, "reads model %s, which changes", n->ref);
        const MfModel *un = mf_find_model(c->next, n->ref), *uo = c->old ? mf_find_model(c->old, n->ref) : NULL;
        if (un && uo && un->plan && c->depth < 32) {
            NodeMap uom = {0};
            map_nodes(c->a, &uom, uo->plan);
            Causes up = {{0}, 0, false};
            c->depth++;
            causes(c, &uom, un->plan, &up);
            c->depth--;
            if (up.other_stream) out->other_stream = true;
            for (int i = 0; i < up.n; i++) {
                sb_puts(&b, i ? "\n  " : ":\n  ");
                for (const char *t = up.text[i]; *t; t++) {
                    sb_putc(&b, *t);
                    if (*t == '\n') sb_puts(&b, "  ");
                }
            }
        }
        add_cause(c, out, &b);
    } else if (scanned_source(c->next, n)) {
        const MfSource *ns = scanned_source(c->next, n), *os = mf_find_source(c->old, ns->name);
        source_diff(&b, os, ns);
        if (other_stream(os, ns)) out->other_stream = true;
        add_cause(c, out, &b);
    } else if (!same_str(o->detail, n->detail)) {
        sb_printf(&b, "%s changed:\n  - %s\n  + %s", n->op ? n->op : "operator", o->detail ? o->detail : "",
                  n->detail ? n->detail : "");
        add_cause(c, out, &b);
    } else {
        sb_printf(&b, "%s %s changed (types or configuration)", n->op ? n->op : "operator", n->id);
        add_cause(c, out, &b);
    }
    sb_free(&b);
}

static const char *logic_reason(Ctx *c, const NodeMap *om, const NodeMap *nm, const char *state_id,
                                bool *other)
{
    const MfNode *n = owner(nm, state_id);
    Causes cs = {{0}, 0, false};
    if (n) causes(c, om, n, &cs);
    *other = cs.other_stream;
    StrBuf b = STRBUF_INIT;
    for (int i = 0; i < cs.n; i++) {
        if (i) sb_putc(&b, '\n');
        sb_puts(&b, cs.text[i]);
    }
    if (!b.len) sb_puts(&b, "what feeds the state changed");
    const char *r = arena_strndup(c->a, b.data, b.len);
    sb_free(&b);
    return r;
}

/* ---- models ---- */

static void add_reason(Arena *a, PlanModel *pm, const char *text)
{
    const char **r = ARENA_ARRAY(a, const char *, pm->nreasons + 1);
    if (pm->nreasons) memcpy(r, pm->reasons, sizeof(*r) * (size_t)pm->nreasons);
    r[pm->nreasons++] = arena_strdup(a, text);
    pm->reasons = r;
}

static bool same_strs(const char **a, int na, const char **b, int nb)
{
    if (na != nb) return false;
    for (int i = 0; i < na; i++)
        if (!same_str(a[i], b[i])) return false;
    return true;
}

static void keys_text(StrBuf *b, const char **k, int n)
{
    sb_putc(b, '[');
    for (int i = 0; i < n; i++) sb_printf(b, i ? ", %s" : "%s", k[i]);
    sb_putc(b, ']');
}

static bool owns_state(const Manifest *m, const MfNode *n)
{
    for (int i = 0; n->id && i < m->nstates; i++) {
        size_t k = strlen(n->id);
        if (strncmp(m->states[i].id, n->id, k) == 0 && (m->states[i].id[k] == '\0' || m->states[i].id[k] == '/'))
            return true;
    }
    return false;
}

/* What changed in the model itself; the changes of its state have their own reasons. */
static void model_reasons(Ctx *c, PlanModel *pm, const MfModel *o, const MfModel *n, const NodeMap *om,
                          const NodeMap *nm)
{
    StrBuf b = STRBUF_INIT;
    if (!same_str(o->materialized, n->materialized)) {
        sb_printf(&b, "materialized %s -> %s", o->materialized, n->materialized);
        add_reason(c->a, pm, sb_cstr(&b));
    }
    if (!same_strs(o->key, o->nkey, n->key, n->nkey)) {
        sb_clear(&b);
        sb_puts(&b, "key ");
        keys_text(&b, o->key, o->nkey);
        sb_puts(&b, " -> ");
        keys_text(&b, n->key, n->nkey);
        add_reason(c->a, pm, sb_cstr(&b));
    }
    if (!same_columns(o->cols, o->ncols, n->cols, n->ncols, true)) {
        sb_clear(&b);
        sb_puts(&b, "output columns changed:");
        columns_diff(&b, "  ", o->cols, o->ncols, n->cols, n->ncols);
        add_reason(c->a, pm, sb_cstr(&b));
    }
    /* operators without state that changed themselves, and changed inputs (upstream
     * models, sources) */
    for (int i = 0; i < nm->n; i++) {
        const MfNode *x = nm->nodes[i], *y = map_find(om, x->id);
        sb_clear(&b);
        if (x->ref && y && !same_str(x->logic_fp, y->logic_fp)) {
            sb_printf(&b, "reads model %s, which changes", x->ref);
        } else if (scanned_source(c->next, x) && y && !same_str(x->logic_fp, y->logic_fp)) {
            const MfSource *ns = scanned_source(c->next, x);
            source_diff(&b, mf_find_source(c->old, ns->name), ns);
        } else if (owns_state(c->next, x) || (y && same_str(x->detail, y->detail))) {
            continue;
        } else if (!y) {
            sb_printf(&b, "%s added: %s", x->op ? x->op : "operator", x->detail ? x->detail : x->id);
        } else {
            sb_printf(&b, "%s changed:\n  - %s\n  + %s", x->op ? x->op : "operator", y->detail, x->detail);
        }
        add_reason(c->a, pm, sb_cstr(&b));
    }
    if (pm->nreasons == 0 && pm->verdict == VERDICT_SAFE)
        add_reason(c->a, pm, "its configuration changed (sink or state_ttl)");
    sb_free(&b);
}

static int count_states(const Manifest *m, const char *model)
{
    int k = 0;
    for (int i = 0; m && i < m->nstates; i++) k += state_of_model(m->states[i].id, model);
    return k;
}

static void plan_model(Ctx *c, Plan *p, const MfModel *n)
{
    PlanModel *pm = &p->models[p->nmodels++];
    pm->name = n->name;
    const MfModel *o = c->old ? mf_find_model(c->old, n->name) : NULL;
    NodeMap om = {0}, nm = {0};
    if (o) map_nodes(c->a, &om, o->plan);
    map_nodes(c->a, &nm, n->plan);
    int ns = count_states(c->next, n->name), nold = count_states(c->old, n->name);
    pm->states = ARENA_ARRAY(c->a, PlanState, ns + nold + 1);
    pm->verdict = o ? (same_str(o->fingerprint, n->fingerprint) ? VERDICT_UNCHANGED : VERDICT_SAFE) : VERDICT_NEW;
    for (int i = 0; i < c->next->nstates; i++) {
        const MfState *s = &c->next->states[i];
        if (!state_of_model(s->id, n->name)) continue;
        PlanState *ps = &pm->states[pm->nstates++];
        ps->id = s->id;
        ps->kind = s->kind;
        const MfState *os = o ? mf_find_state(c->old, s->id) : NULL;
        if (!o) {
            ps->verdict = VERDICT_NEW;
        } else if (!os) {
            ps->verdict = VERDICT_BACKFILL;
            ps->reason = "new state: built from the sources' retained history";
        } else if (!same_str(os->schema_fp, s->schema_fp)) {
            ps->verdict = schema_verdict(os, s);
            ps->reason = schema_reason(c, os, s);
        } else if (!same_str(os->logic_fp, s->logic_fp)) {
            bool other_stream = false;
            ps->reason = logic_reason(c, &om, &nm, s->id, &other_stream);
            ps->verdict = other_stream ? VERDICT_REBUILD : VERDICT_BACKFILL;
        } else {
            ps->verdict = VERDICT_UNCHANGED;
        }
        pm->verdict = worse(pm->verdict, ps->verdict);
    }
    for (int i = 0; o && i < c->old->nstates; i++) {
        const MfState *os = &c->old->states[i];
        if (!state_of_model(os->id, n->name) || mf_find_state(c->next, os->id)) continue;
        PlanState *ps = &pm->states[pm->nstates++];
        ps->id = os->id;
        ps->kind = os->kind;
        ps->verdict = VERDICT_REMOVED;
        ps->reason = "no longer needed: dropped";
        pm->verdict = worse(pm->verdict, VERDICT_SAFE);
    }
    if (o && !same_str(o->fingerprint, n->fingerprint)) model_reasons(c, pm, o, n, &om, &nm);
    if (!o) add_reason(c->a, pm, c->old ? "new model: its state and output are built from the sources' retained history"
                                        : "nothing runs yet: built from the sources on the first run");
}

static void plan_source_states(Ctx *c, Plan *p)
{
    int n = 0;
    for (int i = 0; i < c->next->nstates; i++) n += strncmp(c->next->states[i].id, "source:", 7) == 0;
    p->source_states = ARENA_ARRAY(c->a, PlanState, n + 1);
    for (int i = 0; i < c->next->nstates; i++) {
        const MfState *s = &c->next->states[i];
        if (strncmp(s->id, "source:", 7) != 0) continue;
        PlanState *ps = &p->source_states[p->nsource_states++];
        ps->id = s->id;
        ps->kind = s->kind;
        const MfState *os = c->old ? mf_find_state(c->old, s->id) : NULL;
        if (!c->old) ps->verdict = VERDICT_NEW;
        else if (!os) {
            ps->verdict = VERDICT_BACKFILL;
            ps->reason = "new state: built from the source's retained history";
        } else if (!same_str(os->schema_fp, s->schema_fp)) {
            ps->verdict = schema_verdict(os, s);
            ps->reason = schema_reason(c, os, s);
        } else if (!same_str(os->logic_fp, s->logic_fp)) {
            ps->verdict = VERDICT_BACKFILL;
            ps->reason = "the source's definition changed";
        }
    }
}

void plan_compute(const Manifest *running, const Manifest *next, Plan *out)
{
    memset(out, 0, sizeof *out);
    arena_init(&out->arena, 16384);
    Ctx c = {&out->arena, running, next, 0};
    int nold = running ? running->nmodels : 0;
    out->models = ARENA_ARRAY(&out->arena, PlanModel, next->nmodels + nold + 1);
    for (int i = 0; i < next->nmodels; i++) plan_model(&c, out, &next->models[i]);
    for (int i = 0; i < nold; i++) {
        if (mf_find_model(next, running->models[i].name)) continue;
        PlanModel *pm = &out->models[out->nmodels++];
        pm->name = arena_strdup(&out->arena, running->models[i].name);
        pm->verdict = VERDICT_REMOVED;
        add_reason(&out->arena, pm, "the model is gone: its state is dropped");
    }
    plan_source_states(&c, out);
    for (int i = 0; i < out->nmodels; i++) {
        Verdict v = out->models[i].verdict;
        out->counts[v]++;
        if (v == VERDICT_BACKFILL || v == VERDICT_REBUILD || (v == VERDICT_NEW && running)) out->blocked = true;
    }
    for (int i = 0; i < out->nsource_states; i++) {
        Verdict v = out->source_states[i].verdict;
        if (v == VERDICT_BACKFILL || v == VERDICT_REBUILD) out->blocked = true;
    }
}

void plan_free(Plan *p)
{
    arena_fini(&p->arena);
    memset(p, 0, sizeof *p);
}

/* Appends text with every line after the first indented by ind. */
static void indented(StrBuf *out, const char *text, const char *ind)
{
    for (const char *s = text; *s; s++) {
        sb_putc(out, *s);
        if (*s == '\n') sb_puts(out, ind);
    }
}

static void upper(char *dst, const char *s, size_t n)
{
    size_t i = 0;
    for (; s[i] && i + 1 < n; i++) dst[i] = (char)(s[i] >= 'a' && s[i] <= 'z' ? s[i] - 32 : s[i]);
    dst[i] = '\0';
}

void plan_render_text(const Plan *p, const char *against, StrBuf *out)
{
    sb_printf(out, "plan against %s\n", against);
    char v[16];
    for (int i = 0; i < p->nmodels; i++) {
        const PlanModel *m = &p->models[i];
        upper(v, verdict_name(m->verdict), sizeof v);
        sb_printf(out, "  %-10s %s\n", v, m->name);
        for (int k = 0; k < m->nreasons; k++) {
            sb_puts(out, "               ");
            indented(out, m->reasons[k], "               ");
            sb_putc(out, '\n');
        }
        for (int k = 0; k < m->nstates; k++) {
            const PlanState *s = &m->states[k];
            if (s->verdict == VERDICT_UNCHANGED || s->verdict == VERDICT_NEW) continue;
            sb_printf(out, "             state %s (%s): %s", s->id, s->kind ? s->kind : "?", verdict_name(s->verdict));
            if (s->reason) {
                sb_puts(out, "\n               ");
                indented(out, s->reason, "               ");
            }
            sb_putc(out, '\n');
        }
    }
    for (int k = 0; k < p->nsource_states; k++) {
        const PlanState *s = &p->source_states[k];
        if (s->verdict == VERDICT_UNCHANGED || s->verdict == VERDICT_NEW) continue;
        sb_printf(out, "  state %s (%s): %s", s->id, s->kind ? s->kind : "?", verdict_name(s->verdict));
        if (s->reason) {
            sb_puts(out, "\n      ");
            indented(out, s->reason, "      ");
        }
        sb_putc(out, '\n');
    }
    sb_puts(out, "summary:");
    bool first = true;
    for (int vv = VERDICT_REMOVED; vv >= 0; vv--) {
        if (!p->counts[vv]) continue;
        sb_printf(out, "%s %d %s", first ? "" : ",", p->counts[vv], verdict_name((Verdict)vv));
        first = false;
    }
    if (first) sb_puts(out, " no models");
    sb_puts(out, p->blocked ? "; blocked: the running state cannot be reused as it is\n"
                            : "; the running state can be reused\n");
}

static void state_json(JsonW *w, const PlanState *s)
{
    jw_obj(w);
    jw_kstr(w, "id", s->id);
    jw_kstr(w, "kind", s->kind);
    jw_kstr(w, "verdict", verdict_name(s->verdict));
    jw_kstr(w, "reason", s->reason);
    jw_end_obj(w);
}

void plan_render_json(const Plan *p, const char *against, StrBuf *out)
{
    JsonW w;
    jw_init(&w, out, true);
    jw_obj(&w);
    jw_kstr(&w, "against", against);
    jw_kbool(&w, "blocked", p->blocked);
    jw_key(&w, "summary");
    jw_obj(&w);
    for (int v = 0; v <= VERDICT_REMOVED; v++) jw_kint(&w, verdict_name((Verdict)v), p->counts[v]);
    jw_end_obj(&w);
    jw_key(&w, "models");
    jw_arr(&w);
    for (int i = 0; i < p->nmodels; i++) {
        const PlanModel *m = &p->models[i];
        jw_obj(&w);
        jw_kstr(&w, "name", m->name);
        jw_kstr(&w, "verdict", verdict_name(m->verdict));
        jw_key(&w, "reasons");
        jw_arr(&w);
        for (int k = 0; k < m->nreasons; k++) jw_str(&w, m->reasons[k]);
        jw_end_arr(&w);
        jw_key(&w, "state");
        jw_arr(&w);
        for (int k = 0; k < m->nstates; k++) state_json(&w, &m->states[k]);
        jw_end_arr(&w);
        jw_end_obj(&w);
    }
    jw_end_arr(&w);
    jw_key(&w, "source_state");
    jw_arr(&w);
    for (int k = 0; k < p->nsource_states; k++) state_json(&w, &p->source_states[k]);
    jw_end_arr(&w);
    jw_end_obj(&w);
    sb_putc(out, '\n');
}
