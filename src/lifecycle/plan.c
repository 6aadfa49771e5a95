/* Plan verdicts (see plan.h): a comparison of two manifests, model by model and state
 * by state, with the reasons in words. States are matched by their stable ids; the
 * reason for a changed logic fingerprint is found by walking the plan tree below the
 * state's operator down to the operators that changed themselves (their inputs did
 * not), which may be a source or an upstream model. Whether a model's output can be
 * re-derived from state is read off its plan tree: every path from its root must reach
 * an operator whose state holds its current result before it reaches a source. */
#include "lifecycle/plan.h"

#include "base/jsonw.h"

#include <stdio.h>
#include <string.h>

#define MAX_CAUSES 4
#define MAX_DEPTH 64

const char *verdict_name(Verdict v)
{
    static const char *const names[] = {"unchanged", "safe", "new", "backfill", "rebuild", "removed"};
    return names[v];
}

bool verdict_parse(const char *s, Verdict *out)
{
    for (int v = 0; v <= VERDICT_REMOVED; v++)
        if (s && strcmp(s, verdict_name((Verdict)v)) == 0) {
            *out = (Verdict)v;
            return true;
        }
    return false;
}

const char *state_action_name(StateAction a)
{
    static const char *const names[] = {"keep", "map", "replay", "drop"};
    return names[a];
}

const char *output_action_name(OutputAction a)
{
    static const char *const names[] = {"keep", "from_state", "replay", "left"};
    return names[a];
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

/* Does state id `sid` belong to operator id `op` ("q/join0" owns "q/join0/left")? */
static bool owned_by(const char *sid, const char *op)
{
    size_t n = op ? strlen(op) : 0;
    return n && strncmp(sid, op, n) == 0 && (sid[n] == '\0' || sid[n] == '/');
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

/* The operator that owns a state: the node whose id is the longest prefix of it. */
static const MfNode *owner(const NodeMap *m, const char *state_id)
{
    const MfNode *best = NULL;
    size_t bl = 0;
    for (int i = 0; i < m->n; i++) {
        const char *id = m->nodes[i]->id;
        size_t n = id ? strlen(id) : 0;
        if (n > bl && owned_by(state_id, id)) {
            best = m->nodes[i];
            bl = n;
        }
    }
    return best;
}

static bool owns_state(const Manifest *m, const MfNode *n)
{
    for (int i = 0; n->id && i < m->nstates; i++)
        if (owned_by(m->states[i].id, n->id)) return true;
    return false;
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

/* Two state value names for one accumulator: equal, or a MIN/MAX accumulator labelled by
 * how the engine holds it (`.extreme` for insert-only input, `.multiset`) in one version
 * and the other way (or by an older weir, which said `.multiset` for both) in the other. */
static bool same_value_name(const char *a, const char *b)
{
    if (same_str(a, b)) return true;
    if (!a || !b) return false;
    size_t la = strlen(a), lb = strlen(b);
    const char *ea = ".extreme", *mu = ".multiset";
    size_t le = strlen(ea), lm = strlen(mu);
    if (la > le && strcmp(a + la - le, ea) == 0) la -= le;
    else if (la > lm && strcmp(a + la - lm, mu) == 0) la -= lm;
    else return false;
    if (lb > le && strcmp(b + lb - le, ea) == 0) lb -= le;
    else if (lb > lm && strcmp(b + lb - lm, mu) == 0) lb -= lm;
    else return false;
    return la == lb && memcmp(a, b, la) == 0;
}

static bool has_column(const MfColumn *c, int n, const MfColumn *x)
{
    for (int i = 0; i < n; i++)
        if (same_value_name(c[i].name, x->name) && same_str(c[i].type, x->type)) return true;
    return false;
}

static bool same_values(const MfColumn *a, int na, const MfColumn *b, int nb)
{
    if (na != nb) return false;
    for (int i = 0; i < na; i++)
        if (!same_value_name(a[i].name, b[i].name) || !same_str(a[i].type, b[i].type)) return false;
    return true;
}

/* Do the operators feeding node n compute the same as before (inputs by id and logic)? */
static bool inputs_unchanged(const NodeMap *om, const MfNode *n)
{
    const MfNode *o = map_find(om, n->id);
    if (!o || o->ninputs != n->ninputs) return false;
    for (int i = 0; i < n->ninputs; i++) {
        const MfNode *oi = map_find(om, n->inputs[i]->id);
        if (!oi || !same_str(oi->logic_fp, n->inputs[i]->logic_fp)) return false;
    }
    return true;
}

/* A changed layout: incompatible (rebuild) when the kind, the key or the type of a kept
 * column changed; reusable without the dropped accumulators (safe) when columns were only
 * removed and everything feeding the operator is as before; else key-compatible with
 * other accumulators (backfill). */
static Verdict schema_verdict(const MfState *o, const MfState *n, const NodeMap *om, const MfNode *own)
{
    if (!same_str(o->kind, n->kind) || !same_columns(o->key, o->nkey, n->key, n->nkey, true)) return VERDICT_REBUILD;
    bool added = false;
    for (int j = 0; j < n->nvalues; j++) {
        for (int i = 0; i < o->nvalues; i++)
            if (same_value_name(o->values[i].name, n->values[j].name) && !same_str(o->values[i].type, n->values[j].type))
                return VERDICT_REBUILD;
        if (!has_column(o->values, o->nvalues, &n->values[j])) added = true;
    }
    /* only a plain aggregate's accumulators can be dropped one by one (DISTINCT calls
     * share their value sets: those are rebuilt) */
    bool distinct = false;
    for (int i = 0; i < o->nvalues; i++) distinct |= strstr(o->values[i].name, ".distinct_values") != NULL;
    if (!added && !distinct && same_str(n->kind, "aggregate") && own && inputs_unchanged(om, own)) return VERDICT_SAFE;
    return VERDICT_BACKFILL;
}

static const char *schema_reason(Ctx *c, const MfState *o, const MfState *n, Verdict v)
{
    StrBuf b = STRBUF_INIT;
    if (!same_str(o->kind, n->kind)) sb_printf(&b, "kind changed: %s -> %s", o->kind, n->kind);
    if (!same_columns(o->key, o->nkey, n->key, n->nkey, true)) {
        if (b.len) sb_putc(&b, '\n');
        sb_printf(&b, "%s changed:", key_label(n->kind));
        columns_diff(&b, "  ", o->key, o->nkey, n->key, n->nkey);
    }
    if (!same_values(o->values, o->nvalues, n->values, n->nvalues)) {
        if (b.len) sb_putc(&b, '\n');
        sb_puts(&b, v == VERDICT_SAFE ? "accumulators no longer read are dropped:" : "state columns changed:");
        for (int i = 0; i < o->nvalues; i++)
            if (!has_column(n->values, n->nvalues, &o->values[i]))
                sb_printf(&b, "\n  - %s %s", o->values[i].name, o->values[i].type ? o->values[i].type : "");
        for (int j = 0; j < n->nvalues; j++)
            if (!has_column(o->values, o->nvalues, &n->values[j]))
                sb_printf(&b, "\n  + %s %s", n->values[j].name, n->values[j].type ? n->values[j].type : "");
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

/* Appends what changed in source n since o; false when nothing that decides its rows or
 * their event times did ("source X changed" is appended then). */
static bool source_diff(StrBuf *b, const MfSource *o, const MfSource *n)
{
    if (!o) {
        sb_printf(b, "source %s is new", n->name);
        return true;
    }
    size_t start = b->len;
    sb_printf(b, "source %s changed:", n->name);
    size_t head = b->len;
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
    if (b->len == head) {
        b->len = start;
        sb_printf(b, "source %s changed", n->name);
        return false;
    }
    return true;
}

static const MfSource *scanned_source(const Manifest *m, const MfNode *n)
{
    return n->source ? mf_find_source(m, n->source) : NULL;
}

typedef struct Causes {
    const char *text[MAX_CAUSES];
    int n;
    bool other_stream;           /* a source now reads another stream: state built from the
                                    old one cannot be continued (rebuild) */
} Causes;

static void add_cause(Ctx *c, Causes *out, StrBuf *b)
{
    for (int i = 0; i < out->n; i++)
        if (strcmp(out->text[i], sb_cstr(b)) == 0) {
            sb_clear(b);
            return;
        }
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
    if (!o) {
        sb_printf(&b, "%s added: %s", n->op ? n->op : "operator", n->detail ? n->detail : n->id);
        add_cause(c, out, &b);
    } else if (!inputs_unchanged(om, n)) {
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
        if (un && uo && un->plan && c->depth < MAX_DEPTH) {
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
        /* the same operator over the same inputs: what moved is the configuration of the
         * sources it reads in event time (watermark delay, event_time column) */
        for (int i = 0; i < c->next->nsources; i++) {
            const MfSource *ns = &c->next->sources[i], *os = mf_find_source(c->old, ns->name);
            if (os && (os->watermark_delay_ms != ns->watermark_delay_ms || !same_str(os->event_time, ns->event_time))) {
                source_diff(&b, os, ns);
                add_cause(c, out, &b);
            }
        }
        if (out->n == 0) {
            sb_printf(&b, "%s %s changed (types or configuration)", n->op ? n->op : "operator", n->id);
            add_cause(c, out, &b);
        }
    }
    sb_free(&b);
}

static const char *join_causes(Ctx *c, const Causes *cs, const char *none)
{
    StrBuf b = STRBUF_INIT;
    for (int i = 0; i < cs->n; i++) {
        if (i) sb_putc(&b, '\n');
        sb_puts(&b, cs->text[i]);
    }
    if (!b.len) sb_puts(&b, none);
    const char *r = arena_strndup(c->a, b.data, b.len);
    sb_free(&b);
    return r;
}

/* ---- models ---- */

static void add_reason(Arena *a, PlanModel *pm, const char *text)
{
    for (int i = 0; i < pm->nreasons; i++)
        if (strcmp(pm->reasons[i], text) == 0) return;
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

static const char *sink_text(Arena *a, const MfSink *s)
{
    if (!s->connector) return NULL;
    return arena_printf(a, "%s %s%s%s%s", s->connector, s->where ? s->where : "", s->format ? " (" : "",
                        s->format ? s->format : "", s->format ? ")" : "");
}

static bool same_sink(const MfSink *a, const MfSink *b)
{
    return same_str(a->connector, b->connector) && same_str(a->where, b->where) && same_str(a->format, b->format);
}

static void ttl_text(StrBuf *b, int64_t s)
{
    if (s <= 0) sb_puts(b, "none");
    else if (s % 86400 == 0) sb_printf(b, "%lldd", (long long)(s / 86400));
    else if (s % 3600 == 0) sb_printf(b, "%lldh", (long long)(s / 3600));
    else if (s % 60 == 0) sb_printf(b, "%lldm", (long long)(s / 60));
    else sb_printf(b, "%llds", (long long)s);
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
    if (o->ttl_s != n->ttl_s) {
        sb_clear(&b);
        sb_puts(&b, "state_ttl ");
        ttl_text(&b, o->ttl_s);
        sb_puts(&b, " -> ");
        ttl_text(&b, n->ttl_s);
        add_reason(c->a, pm, sb_cstr(&b));
    }
    if (!same_sink(&o->sink, &n->sink)) {
        sb_clear(&b);
        const char *os = sink_text(c->a, &o->sink), *ns = sink_text(c->a, &n->sink);
        sb_printf(&b, "sink changed:\n  - %s\n  + %s", os ? os : "(none)", ns ? ns : "(none)");
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
    if (pm->nreasons == 0 && pm->verdict == VERDICT_SAFE) add_reason(c->a, pm, "its configuration changed");
    sb_free(&b);
}

static int count_states(const Manifest *m, const char *model)
{
    int k = 0;
    for (int i = 0; m && i < m->nstates; i++) k += state_of_model(m->states[i].id, model);
    return k;
}

/* Does node n's state hold its current result (so its output rows can be listed from
 * it)? A regular aggregate, DISTINCT, TopN, set operation or join does; a window
 * aggregate, an interval or window join and an OVER aggregate emit rows and let them go. */
static bool state_holds_result(const Manifest *m, const MfNode *n)
{
    if (!owns_state(m, n) || same_str(n->op, "OverAggregate")) return false;
    /* joins: inner (also cross) and semi; an outer or anti join emits rows with a NULL
     * key that it never stores */
    if (same_str(n->op, "Join") && n->detail && strncmp(n->detail, "Join inner", 10) != 0 &&
        strncmp(n->detail, "Join cross", 10) != 0 && strncmp(n->detail, "Join semi", 9) != 0)
        return false;
    for (int i = 0; i < m->nstates; i++)
        if (owned_by(m->states[i].id, n->id) &&
            (same_str(m->states[i].bound, "watermark") || same_str(m->states[i].kind, "window_aggregate")))
            return false;
    return true;
}

/* Can node n's current output be derived from state (kept or rebuilt)? */
static bool derivable(Ctx *c, const MfNode *n, int depth)
{
    if (depth > 10000) return false;
    if (state_holds_result(c->next, n)) return true;
    if (n->ref) {
        const MfModel *up = mf_find_model(c->next, n->ref);
        return up && up->plan && depth < 10000 && derivable(c, up->plan, depth + 1);
    }
    if (n->ninputs == 0) return false;  /* an insert-only source scan */
    for (int i = 0; i < n->ninputs; i++)
        if (!derivable(c, n->inputs[i], depth + 1)) return false;
    return true;
}

/* ---- sources a replay reads ---- */

static void add_replay_source(Ctx *c, Plan *p, const char *name)
{
    for (int i = 0; i < p->nreplay_sources; i++)
        if (strcmp(p->replay_sources[i], name) == 0) return;
    const char **r = ARENA_ARRAY(c->a, const char *, p->nreplay_sources + 1);
    if (p->nreplay_sources) memcpy(r, p->replay_sources, sizeof(*r) * (size_t)p->nreplay_sources);
    r[p->nreplay_sources++] = arena_strdup(c->a, name);
    p->replay_sources = r;
}

/* Every source upstream of node n (through upstream models). */
static void sources_below(Ctx *c, Plan *p, const MfNode *n, int depth)
{
    if (!n || depth > 10000) return;
    if (n->source) add_replay_source(c, p, n->source);
    if (n->ref) {
        const MfModel *up = mf_find_model(c->next, n->ref);
        if (up) sources_below(c, p, up->plan, depth + 1);
    }
    for (int i = 0; i < n->ninputs; i++) sources_below(c, p, n->inputs[i], depth + 1);
}

/* The sources below n (also through the models it reads) whose definition changed, when the
 * operators above them did not (a column's encoding, say, moves the values the same plan
 * reads). `time_only`: only a changed event time or watermark delay counts, which moves
 * the watermarks a TTL state expires by. */
static void source_causes(Ctx *c, const MfNode *n, Causes *out, bool time_only, int depth)
{
    if (!n || depth > 10000) return;
    const MfSource *ns = scanned_source(c->next, n), *os = ns ? mf_find_source(c->old, ns->name) : NULL;
    if (os) {
        StrBuf b = STRBUF_INIT;
        bool moved = time_only ? os->watermark_delay_ms != ns->watermark_delay_ms || !same_str(os->event_time, ns->event_time)
                               : source_diff(&b, os, ns);
        if (moved) {
            if (time_only) {
                source_diff(&b, os, ns);
                sb_puts(&b, "\n  its keys would have expired at other times (state_ttl expires by the watermark)");
            }
            if (other_stream(os, ns)) out->other_stream = true;
            add_cause(c, out, &b);
        }
        sb_free(&b);
    }
    for (int i = 0; i < n->ninputs; i++) source_causes(c, n->inputs[i], out, time_only, depth + 1);
    const MfModel *up = n->ref ? mf_find_model(c->next, n->ref) : NULL;
    if (up && up->plan) source_causes(c, up->plan, out, time_only, depth + 1);
}

static void plan_model(Ctx *c, Plan *p, const MfModel *n)
{
    PlanModel *pm = &p->models[p->nmodels++];
    pm->name = n->name;
    pm->sink = sink_text(c->a, &n->sink);
    const MfModel *o = c->old ? mf_find_model(c->old, n->name) : NULL;
    NodeMap om = {0}, nm = {0};
    if (o) map_nodes(c->a, &om, o->plan);
    map_nodes(c->a, &nm, n->plan);
    int ns = count_states(c->next, n->name), nold = count_states(c->old, n->name);
    pm->states = ARENA_ARRAY(c->a, PlanState, ns + nold + 1);
    pm->verdict = o ? VERDICT_UNCHANGED : VERDICT_NEW;
    bool replays = false;
    for (int i = 0; i < c->next->nstates; i++) {
        const MfState *s = &c->next->states[i];
        if (!state_of_model(s->id, n->name)) continue;
        PlanState *ps = &pm->states[pm->nstates++];
        ps->id = s->id;
        ps->kind = s->kind;
        ps->action = STATE_KEEP;
        const MfState *os = o ? mf_find_state(c->old, s->id) : NULL;
        const MfNode *own = owner(&nm, s->id);
        if (!o) {
            ps->verdict = VERDICT_NEW;
            ps->action = STATE_REPLAY;
        } else if (!os) {
            ps->verdict = VERDICT_BACKFILL;
            ps->action = STATE_REPLAY;
            ps->reason = "new state: built from the sources' retained history";
        } else if (!same_str(os->schema_fp, s->schema_fp)) {
            ps->verdict = schema_verdict(os, s, &om, own);
            ps->action = ps->verdict == VERDICT_SAFE ? STATE_MAP : STATE_REPLAY;
            ps->reason = schema_reason(c, os, s, ps->verdict);
        } else if (!same_str(os->logic_fp, s->logic_fp)) {
            Causes cs = {{0}, 0, false};
            if (own) causes(c, &om, own, &cs);
            /* a TTL state expires by the watermarks of the sources below it */
            if (cs.n == 0 && s->ttl_s > 0 && own) source_causes(c, own, &cs, true, 0);
            /* only a shorter TTL: every entry keeps its update time, so the state is what
             * the shorter TTL holds once the watermark moves (safe); a longer TTL (or a
             * TTL added or removed) cannot bring back what expired (backfill) */
            bool shorter = cs.n == 0 && os->ttl_s > 0 && s->ttl_s > 0 && s->ttl_s < os->ttl_s;
            if (cs.n == 0 && os->ttl_s != s->ttl_s) {
                StrBuf b = STRBUF_INIT;
                sb_puts(&b, "state_ttl ");
                ttl_text(&b, os->ttl_s);
                sb_puts(&b, " -> ");
                ttl_text(&b, s->ttl_s);
                if (shorter) {
                    sb_puts(&b, ": kept with its update times; entries idle longer than ");
                    ttl_text(&b, s->ttl_s);
                    sb_puts(&b, " expire at the next watermark");
                } else {
                    sb_puts(&b, ": other keys would have expired");
                }
                cs.text[cs.n++] = arena_strdup(c->a, sb_cstr(&b));
                sb_free(&b);
            }
            if (cs.n == 0 && own && os->ttl_s == s->ttl_s) source_causes(c, own, &cs, false, 0);
            ps->reason = join_causes(c, &cs, "what feeds the state changed");
            ps->verdict = shorter ? VERDICT_SAFE : cs.other_stream ? VERDICT_REBUILD : VERDICT_BACKFILL;
            ps->action = shorter ? STATE_KEEP : STATE_REPLAY;
        } else {
            ps->verdict = VERDICT_UNCHANGED;
        }
        if (ps->action == STATE_REPLAY) replays = true;
        pm->verdict = worse(pm->verdict, ps->verdict);
    }
    for (int i = 0; o && i < c->old->nstates; i++) {
        const MfState *os = &c->old->states[i];
        if (!state_of_model(os->id, n->name) || mf_find_state(c->next, os->id)) continue;
        PlanState *ps = &pm->states[pm->nstates++];
        ps->id = os->id;
        ps->kind = os->kind;
        ps->verdict = VERDICT_REMOVED;
        ps->action = STATE_DROP;
        ps->reason = "no longer needed: dropped";
        pm->verdict = worse(pm->verdict, VERDICT_SAFE);
    }
    /* the output: unchanged, re-derived from state, or recomputed by a replay */
    /* the output changes when its lineage does (an unread upstream change does not
     * count), or when it goes somewhere else */
    bool changed = !o || !same_str(o->output_fp ? o->output_fp : o->fingerprint, n->output_fp ? n->output_fp : n->fingerprint) ||
                   !same_sink(&o->sink, &n->sink);
    if (o && changed) pm->verdict = worse(pm->verdict, VERDICT_SAFE);
    if (changed && n->sink.connector && c->old) {
        if (n->plan && derivable(c, n->plan, 0)) {
            pm->output = OUTPUT_FROM_STATE;
        } else {
            pm->output = OUTPUT_REPLAY;
            replays = true;
            if (o) {
                pm->verdict = worse(pm->verdict, VERDICT_BACKFILL);
                add_reason(c->a, pm, "its output is not kept in state: the sink's rows are recomputed from the "
                                     "sources' retained history");
            }
        }
    }
    if (o && changed) model_reasons(c, pm, o, n, &om, &nm);
    if (!o) add_reason(c->a, pm, c->old ? "new model: its state and output are built from the sources' retained history"
                                        : "nothing runs yet: built from the sources on the first run");
    if (replays && c->old) sources_below(c, p, n->plan, 0);
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
        ps->action = STATE_KEEP;
        const MfState *os = c->old ? mf_find_state(c->old, s->id) : NULL;
        if (!c->old) {
            ps->verdict = VERDICT_NEW;
            ps->action = STATE_REPLAY;
        } else if (!os) {
            ps->verdict = VERDICT_BACKFILL;
            ps->reason = "new state: built from the source's retained history";
        } else if (!same_str(os->schema_fp, s->schema_fp)) {
            ps->verdict = schema_verdict(os, s, NULL, NULL);
            ps->reason = schema_reason(c, os, s, ps->verdict);
        } else if (!same_str(os->logic_fp, s->logic_fp)) {
            ps->verdict = VERDICT_BACKFILL;
            ps->reason = "the source's definition changed";
        }
        if (c->old && ps->verdict != VERDICT_UNCHANGED) {
            ps->action = STATE_REPLAY;
            /* "source:<name>/changelog_normalize" */
            const char *slash = strrchr(s->id, '/');
            if (slash) add_replay_source(c, p, arena_strndup(c->a, s->id + 7, (size_t)(slash - s->id - 7)));
        }
    }
}

void plan_compute(const Manifest *running, const Manifest *next, Plan *out)
{
    memset(out, 0, sizeof *out);
    arena_init(&out->arena, 16384);
    out->deployed = running != NULL;
    Ctx c = {&out->arena, running, next, 0};
    int nold = running ? running->nmodels : 0;
    out->models = ARENA_ARRAY(&out->arena, PlanModel, next->nmodels + nold + 1);
    for (int i = 0; i < next->nmodels; i++) plan_model(&c, out, &next->models[i]);
    for (int i = 0; i < nold; i++) {
        if (mf_find_model(next, running->models[i].name)) continue;
        PlanModel *pm = &out->models[out->nmodels++];
        pm->name = arena_strdup(&out->arena, running->models[i].name);
        pm->verdict = VERDICT_REMOVED;
        pm->sink = sink_text(&out->arena, &running->models[i].sink);
        pm->output = pm->sink ? OUTPUT_LEFT : OUTPUT_KEEP;
        add_reason(&out->arena, pm, pm->sink ? "the model is gone: its state is dropped, its sink left as it is"
                                             : "the model is gone: its state is dropped");
    }
    plan_source_states(&c, out);
    for (int i = 0; i < out->nmodels; i++) out->counts[out->models[i].verdict]++;
}

void plan_add_blocker(Plan *p, const char *text)
{
    const char **b = ARENA_ARRAY(&p->arena, const char *, p->nblockers + 1);
    if (p->nblockers) memcpy(b, p->blockers, sizeof(*b) * (size_t)p->nblockers);
    b[p->nblockers++] = arena_strdup(&p->arena, text);
    p->blockers = b;
}

void plan_add_replay(Plan *p, const PlanReplay *r)
{
    PlanReplay *rs = ARENA_ARRAY(&p->arena, PlanReplay, p->nreplay + 1);
    if (p->nreplay) memcpy(rs, p->replay, sizeof(*rs) * (size_t)p->nreplay);
    PlanReplay *x = &rs[p->nreplay++];
    *x = *r;
    x->source = arena_strdup(&p->arena, r->source);
    x->connector = r->connector ? arena_strdup(&p->arena, r->connector) : NULL;
    x->note = r->note ? arena_strdup(&p->arena, r->note) : NULL;
    x->parts = ARENA_ARRAY(&p->arena, PlanPartition, r->nparts + 1);
    if (r->nparts) memcpy(x->parts, r->parts, sizeof(PlanPartition) * (size_t)r->nparts);
    p->replay = rs;
    if (r->lost) {
        char buf[512];
        snprintf(buf, sizeof buf, "the history of source %s is no longer retained%s%s", r->source,
                 r->note ? ": " : "", r->note ? r->note : "");
        plan_add_blocker(p, buf);
    }
}

bool plan_reaches(const Plan *p, Verdict level)
{
    for (int i = 0; i < p->nmodels; i++)
        if (p->models[i].verdict != VERDICT_REMOVED && rank(p->models[i].verdict) >= rank(level)) return true;
    for (int i = 0; i < p->nsource_states; i++)
        if (rank(p->source_states[i].verdict) >= rank(level) && p->deployed) return true;
    return false;
}

StateAction plan_op_action(const Plan *p, const char *op_id)
{
    StateAction a = STATE_KEEP;
    for (int i = 0; i < p->nmodels; i++)
        for (int k = 0; k < p->models[i].nstates; k++) {
            const PlanState *s = &p->models[i].states[k];
            if (!owned_by(s->id, op_id)) continue;
            if (s->action == STATE_REPLAY) return STATE_REPLAY;
            if (s->action == STATE_MAP) a = STATE_MAP;
        }
    for (int k = 0; k < p->nsource_states; k++)
        if (owned_by(p->source_states[k].id, op_id) && p->source_states[k].action == STATE_REPLAY) return STATE_REPLAY;
    return a;
}

const PlanModel *plan_find_model(const Plan *p, const char *name)
{
    for (int i = 0; i < p->nmodels; i++)
        if (strcmp(p->models[i].name, name) == 0) return &p->models[i];
    return NULL;
}

const PlanState *plan_find_state(const Plan *p, const char *id)
{
    for (int i = 0; i < p->nmodels; i++)
        for (int k = 0; k < p->models[i].nstates; k++)
            if (strcmp(p->models[i].states[k].id, id) == 0) return &p->models[i].states[k];
    for (int k = 0; k < p->nsource_states; k++)
        if (strcmp(p->source_states[k].id, id) == 0) return &p->source_states[k];
    return NULL;
}

void plan_free(Plan *p)
{
    arena_fini(&p->arena);
    memset(p, 0, sizeof *p);
}

/* ---- rendering ---- */

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

static const char *state_action_text(StateAction a)
{
    switch (a) {
    case STATE_KEEP: return "kept";
    case STATE_MAP: return "kept without the dropped accumulators";
    case STATE_REPLAY: return "rebuilt from retained history";
    case STATE_DROP: return "dropped";
    }
    return "";
}

static void render_state(StrBuf *out, const PlanState *s, const char *ind)
{
    sb_printf(out, "%sstate %s (%s): %s, %s", ind, s->id, s->kind ? s->kind : "?", verdict_name(s->verdict),
              state_action_text(s->action));
    if (s->reason) {
        char deeper[64];
        snprintf(deeper, sizeof deeper, "%s  ", ind);
        sb_printf(out, "\n%s", deeper);
        indented(out, s->reason, deeper);
    }
    sb_putc(out, '\n');
}

static void render_replay(StrBuf *out, const PlanReplay *r)
{
    sb_printf(out, "  %s (%s): ", r->source, r->connector ? r->connector : "?");
    if (!r->known) {
        sb_printf(out, "all of its retained history%s%s\n", r->note ? "; " : "", r->note ? r->note : "");
        return;
    }
    if (r->nparts) {
        int64_t total = 0;
        for (int i = 0; i < r->nparts; i++) total += r->parts[i].to - r->parts[i].from;
        sb_printf(out, "%lld records over %d partitions%s\n", (long long)total, r->nparts,
                  r->lost ? "; NOT all retained" : "");
        for (int i = 0; i < r->nparts; i++) {
            const PlanPartition *pp = &r->parts[i];
            sb_printf(out, "    partition %d: offsets %lld..%lld", pp->partition, (long long)pp->from, (long long)pp->to);
            if (pp->earliest < 0) sb_puts(out, " (retention unknown)");
            else if (pp->earliest > pp->from) sb_printf(out, " (lost: the cluster holds %lld.. only)", (long long)pp->earliest);
            sb_putc(out, '\n');
        }
    } else {
        if (r->bytes >= 0) sb_printf(out, "%lld bytes", (long long)r->bytes);
        else sb_puts(out, "its whole input");
        sb_puts(out, r->lost ? "; NOT all retained" : "");
        sb_putc(out, '\n');
    }
    if (r->note) sb_printf(out, "    %s\n", r->note);
}

void plan_render_text(const Plan *p, const char *against, StrBuf *out)
{
    sb_printf(out, "plan against %s\n", against);
    char v[16];
    const char *ind = "               ";
    for (int i = 0; i < p->nmodels; i++) {
        const PlanModel *m = &p->models[i];
        upper(v, verdict_name(m->verdict), sizeof v);
        sb_printf(out, "  %-10s %s\n", v, m->name);
        for (int k = 0; k < m->nreasons; k++) {
            sb_puts(out, ind);
            indented(out, m->reasons[k], ind);
            sb_putc(out, '\n');
        }
        for (int k = 0; k < m->nstates; k++)
            if (m->states[k].verdict != VERDICT_UNCHANGED && m->states[k].verdict != VERDICT_NEW)
                render_state(out, &m->states[k], "             ");
        if (m->sink && m->output == OUTPUT_FROM_STATE)
            sb_printf(out, "%ssink %s: receives the rows that change, derived from the state\n", ind, m->sink);
        else if (m->sink && m->output == OUTPUT_REPLAY)
            sb_printf(out, "%ssink %s: rewritten with its rows recomputed from history\n", ind, m->sink);
    }
    for (int k = 0; k < p->nsource_states; k++) {
        const PlanState *s = &p->source_states[k];
        if (s->verdict != VERDICT_UNCHANGED && s->verdict != VERDICT_NEW) render_state(out, s, "  ");
    }
    if (p->nreplay_sources) {
        sb_puts(out, "replay: the history read again\n");
        for (int i = 0; i < p->nreplay_sources; i++) {
            const PlanReplay *r = NULL;
            for (int k = 0; k < p->nreplay && !r; k++)
                if (strcmp(p->replay[k].source, p->replay_sources[i]) == 0) r = &p->replay[k];
            if (r) render_replay(out, r);
            else sb_printf(out, "  %s: all of its retained history\n", p->replay_sources[i]);
        }
    }
    sb_puts(out, "summary:");
    bool first = true;
    for (int vv = VERDICT_REMOVED; vv >= 0; vv--) {
        if (!p->counts[vv]) continue;
        sb_printf(out, "%s %d %s", first ? "" : ",", p->counts[vv], verdict_name((Verdict)vv));
        first = false;
    }
    if (first) sb_puts(out, " no models");
    if (p->nblockers) {
        sb_puts(out, "; cannot be applied:\n");
        for (int i = 0; i < p->nblockers; i++) sb_printf(out, "  %s\n", p->blockers[i]);
    } else if (!p->deployed) {
        sb_puts(out, "; nothing runs yet\n");
    } else if (plan_reaches(p, VERDICT_NEW)) {
        sb_printf(out, "; weir apply replays the history of %d source%s\n", p->nreplay_sources,
                  p->nreplay_sources == 1 ? "" : "s");
    } else {
        sb_puts(out, "; the running state is reused as it is\n");
    }
}

static void state_json(JsonW *w, const PlanState *s)
{
    jw_obj(w);
    jw_kstr(w, "id", s->id);
    jw_kstr(w, "kind", s->kind);
    jw_kstr(w, "verdict", verdict_name(s->verdict));
    jw_kstr(w, "action", state_action_name(s->action));
    jw_kstr(w, "reason", s->reason);
    jw_end_obj(w);
}

static void replay_json(JsonW *w, const Plan *p, const char *source)
{
    const PlanReplay *r = NULL;
    for (int k = 0; k < p->nreplay && !r; k++)
        if (strcmp(p->replay[k].source, source) == 0) r = &p->replay[k];
    jw_obj(w);
    jw_kstr(w, "source", source);
    jw_kstr(w, "connector", r ? r->connector : NULL);
    jw_kbool(w, "known", r && r->known);
    jw_kbool(w, "lost", r && r->lost);
    if (r && r->nparts) {
        jw_key(w, "partitions");
        jw_arr(w);
        for (int i = 0; i < r->nparts; i++) {
            jw_obj(w);
            jw_kint(w, "partition", r->parts[i].partition);
            jw_kint(w, "from", r->parts[i].from);
            jw_kint(w, "to", r->parts[i].to);
            jw_key(w, "earliest");
            if (r->parts[i].earliest >= 0) jw_int(w, r->parts[i].earliest);
            else jw_null(w);
            jw_end_obj(w);
        }
        jw_end_arr(w);
    }
    if (r && !r->nparts && r->bytes >= 0) jw_kint(w, "bytes", r->bytes);
    jw_kstr(w, "note", r ? r->note : NULL);
    jw_end_obj(w);
}

void plan_render_json(const Plan *p, const char *against, StrBuf *out)
{
    JsonW w;
    jw_init(&w, out, true);
    jw_obj(&w);
    jw_kint(&w, "plan_version", 1);
    jw_kstr(&w, "against", against);
    jw_kbool(&w, "deployed", p->deployed);
    jw_kbool(&w, "blocked", p->nblockers > 0);
    jw_key(&w, "blockers");
    jw_arr(&w);
    for (int i = 0; i < p->nblockers; i++) jw_str(&w, p->blockers[i]);
    jw_end_arr(&w);
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
        jw_kstr(&w, "sink", m->sink);
        jw_kstr(&w, "output", output_action_name(m->output));
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
    jw_key(&w, "replay");
    jw_arr(&w);
    for (int i = 0; i < p->nreplay_sources; i++) replay_json(&w, p, p->replay_sources[i]);
    jw_end_arr(&w);
    jw_end_obj(&w);
    sb_putc(out, '\n');
}
