/* dbt's selector grammar over the project DAG (see select.h). The DAG's nodes are the
 * models, then the sources, then the tests; a model's parents are the models it ref()s
 * and the sources it reads, a test's parent is its model. Linear in the size of the DAG
 * per atom. */
#include "ir/select.h"
#include "base/arena.h"
#include "base/strbuf.h"

#include <ctype.h>
#include <fnmatch.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct Dag {
    const Project *p;
    int nm, ns, nt, n;     /* models, sources, tests; n = all */
    int **parents;         /* [n] node indexes */
    int *nparents;
    int **children;
    int *nchildren;
    int *queue, *dist;     /* BFS scratch [n] */
    const char *what;      /* "--select" or "--exclude", for messages */
    char *err;
    size_t errsize;
} Dag;

static int src_node(const Dag *d, int s) { return d->nm + s; }
static int test_node(const Dag *d, int t) { return d->nm + d->ns + t; }

static bool fail(Dag *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static bool fail(Dag *d, const char *fmt, ...)
{
    int k = snprintf(d->err, d->errsize, "%s: ", d->what);
    if (k < 0 || (size_t)k >= d->errsize) return false;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(d->err + k, d->errsize - (size_t)k, fmt, ap);
    va_end(ap);
    return false;
}

static void add_edge(Dag *d, int parent, int child, int *cap_p, int *cap_c)
{
    if (d->nparents[child] == cap_p[child]) {
        cap_p[child] = cap_p[child] ? cap_p[child] * 2 : 4;
        d->parents[child] = realloc(d->parents[child], sizeof(int) * (size_t)cap_p[child]);
        if (!d->parents[child]) abort();
    }
    d->parents[child][d->nparents[child]++] = parent;
    if (d->nchildren[parent] == cap_c[parent]) {
        cap_c[parent] = cap_c[parent] ? cap_c[parent] * 2 : 4;
        d->children[parent] = realloc(d->children[parent], sizeof(int) * (size_t)cap_c[parent]);
        if (!d->children[parent]) abort();
    }
    d->children[parent][d->nchildren[parent]++] = child;
}

static void dag_init(Dag *d, const BoundProject *bp)
{
    const Project *p = bp->project;
    d->p = p;
    d->nm = p->nmodels;
    d->ns = p->nsources;
    d->nt = p->ntests;
    d->n = d->nm + d->ns + d->nt;
    size_t n1 = (size_t)d->n + 1;
    d->parents = xcalloc(n1, sizeof *d->parents);
    d->children = xcalloc(n1, sizeof *d->children);
    d->nparents = xcalloc(n1, sizeof(int));
    d->nchildren = xcalloc(n1, sizeof(int));
    d->queue = xcalloc(n1, sizeof(int));
    d->dist = xcalloc(n1, sizeof(int));
    int *cap_p = xcalloc(n1, sizeof(int)), *cap_c = xcalloc(n1, sizeof(int));
    for (int i = 0; i < bp->nmodels && i < d->nm; i++) {
        const BoundModel *bm = &bp->models[i];
        for (int k = 0; k < bm->ndep_models; k++) {
            const ModelDef *m = project_find_model(p, bm->dep_models[k]);
            if (m) add_edge(d, (int)(m - p->models), i, cap_p, cap_c);
        }
        for (int k = 0; k < bm->ndep_sources; k++) {
            const SourceDef *s = project_find_source(p, bm->dep_sources[k]);
            if (s) add_edge(d, src_node(d, (int)(s - p->sources)), i, cap_p, cap_c);
        }
    }
    for (int t = 0; t < d->nt; t++) {
        const ModelDef *m = p->tests[t].model ? project_find_model(p, p->tests[t].model) : NULL;
        if (m) add_edge(d, (int)(m - p->models), test_node(d, t), cap_p, cap_c);
    }
    free(cap_p);
    free(cap_c);
}

static void dag_fini(Dag *d)
{
    for (int i = 0; i < d->n; i++) {
        free(d->parents[i]);
        free(d->children[i]);
    }
    free(d->parents);
    free(d->children);
    free(d->nparents);
    free(d->nchildren);
    free(d->queue);
    free(d->dist);
}

/* Adds to set every node reachable from the nodes of seed through parents (up) or
 * children, at most depth steps away (depth < 0: any distance). */
static void expand(Dag *d, const bool *seed, bool *set, bool up, int depth)
{
    int head = 0, tail = 0;
    for (int i = 0; i < d->n; i++) {
        d->dist[i] = -1;
        if (seed[i]) {
            d->dist[i] = 0;
            d->queue[tail++] = i;
        }
    }
    while (head < tail) {
        int v = d->queue[head++];
        set[v] = true;
        if (depth >= 0 && d->dist[v] >= depth) continue;
        int nn = up ? d->nparents[v] : d->nchildren[v];
        const int *next = up ? d->parents[v] : d->children[v];
        for (int k = 0; k < nn; k++)
            if (d->dist[next[k]] < 0) {
                d->dist[next[k]] = d->dist[v] + 1;
                d->queue[tail++] = next[k];
            }
    }
}

static bool has_glob(const char *s) { return strpbrk(s, "*?[") != NULL; }

static bool name_matches(const char *pattern, bool glob, const char *name)
{
    return glob ? fnmatch(pattern, name, 0) == 0 : strcmp(pattern, name) == 0;
}

/* "did you mean 'x'?" appended to a message, or nothing. */
static const char *closest_hint(const char *word, const char *const *names, int n, char *buf, size_t size)
{
    const char *c = diag_closest(word, names, n);
    if (!c) return "";
    snprintf(buf, size, "; did you mean '%s'?", c);
    return buf;
}

static bool seed_name(Dag *d, const char *v, bool *seed)
{
    const Project *p = d->p;
    bool glob = has_glob(v), any = false;
    for (int i = 0; i < d->nm; i++)
        if (name_matches(v, glob, p->models[i].name)) seed[i] = any = true;
    for (int t = 0; t < d->nt; t++)
        if (name_matches(v, glob, p->tests[t].name)) seed[test_node(d, t)] = any = true;
    if (any) return true;
    if (glob) return fail(d, "no model or test matches '%s'", v);
    const char **names = xcalloc((size_t)(d->nm + d->nt) + 1, sizeof *names);
    for (int i = 0; i < d->nm; i++) names[i] = p->models[i].name;
    for (int t = 0; t < d->nt; t++) names[d->nm + t] = p->tests[t].name;
    char hint[300];
    fail(d, "no model or test named '%s'%s", v, closest_hint(v, names, d->nm + d->nt, hint, sizeof hint));
    free(names);
    return false;
}

static bool seed_tag(Dag *d, const char *v, bool *seed)
{
    const Project *p = d->p;
    bool glob = has_glob(v), any = false;
    int ntags = 0;
    for (int i = 0; i < d->nm; i++) {
        ntags += p->models[i].ntags;
        for (int k = 0; k < p->models[i].ntags; k++)
            if (name_matches(v, glob, p->models[i].tags[k])) seed[i] = any = true;
    }
    if (any) return true;
    if (ntags == 0) return fail(d, "no model has tag '%s' (no model has tags; add `tags:` to a model's config)", v);
    const char **names = xcalloc((size_t)ntags + 1, sizeof *names);
    int n = 0;
    for (int i = 0; i < d->nm; i++)
        for (int k = 0; k < p->models[i].ntags; k++) names[n++] = p->models[i].tags[k];
    char hint[300];
    fail(d, "no model has tag '%s'%s", v, closest_hint(v, names, n, hint, sizeof hint));
    free(names);
    return false;
}

/* path:P selects the models whose .sql file is P or lies under the directory P (both
 * relative to the project directory); P may be a glob over the file's path. */
static bool seed_path(Dag *d, const char *v, bool *seed)
{
    const Project *p = d->p;
    while (v[0] == '.' && v[1] == '/') v += 2;
    size_t len = strlen(v);
    while (len > 1 && v[len - 1] == '/') len--;
    char *want = xmalloc(len + 1);
    memcpy(want, v, len);
    want[len] = '\0';
    bool glob = has_glob(want), any = false;
    bool all = strcmp(want, ".") == 0 || len == 0;
    for (int i = 0; i < d->nm; i++) {
        const char *f = p->models[i].sql_file;
        if (!f) continue;
        bool hit = all || (glob ? fnmatch(want, f, FNM_PATHNAME) == 0 || fnmatch(want, f, FNM_LEADING_DIR) == 0
                                : strcmp(f, want) == 0 || (strncmp(f, want, len) == 0 && f[len] == '/'));
        if (hit) seed[i] = any = true;
    }
    if (!any) {
        /* candidates: every model file and every directory above one */
        int cap = 16, n = 0;
        const char **names = xcalloc((size_t)cap, sizeof *names);
        char **owned = xcalloc((size_t)cap, sizeof *owned);
        for (int i = 0; i < d->nm; i++) {
            const char *f = p->models[i].sql_file;
            if (!f) continue;
            for (const char *s = f + strlen(f); s > f; s--) {
                if (*s && *s != '/') continue;
                if (n == cap) {
                    cap *= 2;
                    names = realloc(names, sizeof *names * (size_t)cap);
                    owned = realloc(owned, sizeof *owned * (size_t)cap);
                    if (!names || !owned) abort();
                }
                owned[n] = strndup(f, (size_t)(s - f));
                if (!owned[n]) abort();
                names[n] = owned[n];
                n++;
            }
        }
        char hint[600];
        fail(d, "no model under path '%s'%s", want, closest_hint(want, names, n, hint, sizeof hint));
        for (int i = 0; i < n; i++) free(owned[i]);
        free(owned);
        free(names);
    }
    free(want);
    return any;
}

/* source:X selects the source X (or every source named X.*) and the models that read
 * them. */
static bool seed_source(Dag *d, const char *v, bool *seed)
{
    const Project *p = d->p;
    bool glob = has_glob(v), any = false;
    size_t len = strlen(v);
    for (int s = 0; s < d->ns; s++) {
        const char *name = p->sources[s].name;
        bool hit = glob ? fnmatch(v, name, 0) == 0
                        : strcmp(name, v) == 0 || (strncmp(name, v, len) == 0 && name[len] == '.');
        if (!hit) continue;
        any = true;
        int node = src_node(d, s);
        seed[node] = true;
        for (int k = 0; k < d->nchildren[node]; k++) seed[d->children[node][k]] = true;
    }
    if (any) return true;
    const char **names = xcalloc((size_t)d->ns + 1, sizeof *names);
    for (int s = 0; s < d->ns; s++) names[s] = p->sources[s].name;
    char hint[300];
    fail(d, "no source named '%s'%s", v, closest_hint(v, names, d->ns, hint, sizeof hint));
    free(names);
    return false;
}

/* Parses "N" (digits only, may be empty) into *depth: empty -> -1 (any distance). */
static bool parse_depth(const char *s, size_t n, int *depth)
{
    if (n == 0) {
        *depth = -1;
        return true;
    }
    long v = 0;
    for (size_t i = 0; i < n; i++) {
        if (!isdigit((unsigned char)s[i])) return false;
        v = v * 10 + (s[i] - '0');
        if (v > 1000000) v = 1000000;
    }
    *depth = (int)v;
    return true;
}

/* One atom (a NUL-terminated copy) into set (zeroed by the caller). */
static bool eval_atom(Dag *d, char *atom, bool *set)
{
    char *body = atom, *end = atom + strlen(atom);
    bool at = false;
    int up = 0, down = 0; /* 0: none; -1: any distance; n: at most n steps */
    bool has_up = false, has_down = false;
    if (*body == '@') {
        at = true;
        body++;
    } else {
        char *q = body;
        while (isdigit((unsigned char)*q)) q++;
        if (*q == '+') {
            has_up = parse_depth(body, (size_t)(q - body), &up);
            body = q + 1;
        }
    }
    char *q = end;
    while (q > body && isdigit((unsigned char)q[-1])) q--;
    if (q > body && q[-1] == '+') {
        has_down = parse_depth(q, (size_t)(end - q), &down);
        end = q - 1;
        *end = '\0';
    }
    if (body == end || *body == '\0')
        return fail(d, "'%s' names nothing (expected e.g. orders, +orders, orders+2, tag:nightly)", atom);
    if (at && has_down)
        return fail(d, "'%s': '@' already takes every descendant; drop the trailing '+'", atom);
    bool *seed = xcalloc((size_t)d->n + 1, sizeof(bool));
    bool ok;
    char *colon = strchr(body, ':');
    if (!colon) ok = seed_name(d, body, seed);
    else {
        *colon = '\0';
        const char *v = colon + 1;
        if (!*v) ok = fail(d, "'%s:' needs a value", body);
        else if (strcmp(body, "tag") == 0) ok = seed_tag(d, v, seed);
        else if (strcmp(body, "path") == 0) ok = seed_path(d, v, seed);
        else if (strcmp(body, "source") == 0) ok = seed_source(d, v, seed);
        else {
            static const char *const methods[] = {"tag", "path", "source"};
            /* the hint names the method with its colon */
            char hint[100];
            const char *close = diag_closest(body, methods, 3);
            if (close) snprintf(hint, sizeof hint, "; did you mean '%s:'?", close);
            else hint[0] = '\0';
            ok = fail(d, "unknown selector method '%s:' (expected tag:, path: or source:)%s", body, hint);
        }
    }
    if (ok) {
        for (int i = 0; i < d->n; i++) set[i] = seed[i];
        if (at) {
            bool *desc = xcalloc((size_t)d->n + 1, sizeof(bool));
            expand(d, seed, desc, false, -1);
            expand(d, desc, set, true, -1);
            free(desc);
        } else {
            if (has_up) expand(d, seed, set, true, up);
            if (has_down) expand(d, seed, set, false, down);
        }
        /* a test follows its model */
        for (int t = 0; t < d->nt; t++) {
            int tn = test_node(d, t);
            if (d->nparents[tn] && set[d->parents[tn][0]]) set[tn] = true;
        }
    }
    free(seed);
    return ok;
}

/* A whole selection into set: the union of its space-separated sets, each the
 * intersection of its comma-separated atoms. Returns false on the first bad atom. */
static bool eval_selection(Dag *d, const char *text, bool *set)
{
    bool *inter = xcalloc((size_t)d->n + 1, sizeof(bool));
    bool *atom = xcalloc((size_t)d->n + 1, sizeof(bool));
    char *buf = strdup(text);
    if (!buf) abort();
    bool ok = true;
    char *save = NULL;
    for (char *word = strtok_r(buf, " \t\n", &save); ok && word; word = strtok_r(NULL, " \t\n", &save)) {
        bool first = true;
        char *p = word;
        for (;;) {
            char *comma = strchr(p, ',');
            if (comma) *comma = '\0';
            if (!*p) {
                ok = fail(d, "an empty selector in '%s' (a comma intersects two selectors: tag:a,tag:b)", text);
                break;
            }
            memset(atom, 0, sizeof(bool) * (size_t)d->n);
            if (!eval_atom(d, p, atom)) {
                ok = false;
                break;
            }
            for (int i = 0; i < d->n; i++) inter[i] = first ? atom[i] : inter[i] && atom[i];
            first = false;
            if (!comma) break;
            p = comma + 1;
        }
        if (ok)
            for (int i = 0; i < d->n; i++) set[i] = set[i] || inter[i];
    }
    free(buf);
    free(atom);
    free(inter);
    return ok;
}

static bool is_blank(const char *s)
{
    if (!s) return true;
    for (; *s; s++)
        if (!isspace((unsigned char)*s)) return false;
    return true;
}

bool select_nodes(const BoundProject *bp, const char *select, const char *exclude, Selection *out, char *err,
                  size_t errsize)
{
    memset(out, 0, sizeof *out);
    if (errsize) err[0] = '\0';
    Dag d = {0};
    dag_init(&d, bp);
    d.err = err;
    d.errsize = errsize;
    bool *in = xcalloc((size_t)d.n + 1, sizeof(bool));
    bool *ex = xcalloc((size_t)d.n + 1, sizeof(bool));
    bool ok = true;
    if (is_blank(select)) {
        for (int i = 0; i < d.n; i++) in[i] = true;
    } else {
        d.what = "--select";
        ok = eval_selection(&d, select, in);
    }
    if (ok && !is_blank(exclude)) {
        d.what = "--exclude";
        ok = eval_selection(&d, exclude, ex);
    }
    if (ok) {
        out->models = xcalloc((size_t)d.nm + 1, sizeof(bool));
        out->sources = xcalloc((size_t)d.ns + 1, sizeof(bool));
        out->tests = xcalloc((size_t)d.nt + 1, sizeof(bool));
        for (int i = 0; i < d.n; i++) {
            bool v = in[i] && !ex[i];
            if (!v) continue;
            if (i < d.nm) out->models[i] = true, out->nmodels++;
            else if (i < d.nm + d.ns) out->sources[i - d.nm] = true, out->nsources++;
            else out->tests[i - d.nm - d.ns] = true, out->ntests++;
        }
    }
    free(in);
    free(ex);
    dag_fini(&d);
    return ok;
}

void selection_free(Selection *s)
{
    free(s->models);
    free(s->sources);
    free(s->tests);
    memset(s, 0, sizeof *s);
}
