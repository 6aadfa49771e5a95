/* Validation helpers shared by the project loader's files: type checks of YAML
 * nodes, unknown-key detection with "did you mean" hints, enums, string lists and
 * durations. Each helper reports its own diagnostic at the offending node. */
#include "project/project_internal.h"

#include <string.h>

YNode *project_parse_yaml(ProjectLoader *L, const char *file, const char *text, size_t len)
{
    diag_add_source(L->dl, file, text);
    return yaml_parse(&L->p->arena, file, text, len, L->dl);
}

static void type_error(ProjectLoader *L, const YNode *n, const char *expected, const char *what)
{
    diag_error(L->dl, n->pos, "bad-type", NULL, "expected %s, found %s for %s", expected,
               yaml_kind_name(n), what);
}

bool project_expect_map(ProjectLoader *L, const YNode *n, const char *what)
{
    if (n && n->kind == YNODE_MAP) return true;
    if (n) type_error(L, n, "a mapping", what);
    return false;
}

const char *project_expect_str(ProjectLoader *L, const YNode *n, const char *what)
{
    if (!n) return NULL;
    if (n->kind == YNODE_SCALAR && !yaml_is_null(n)) return n->str;
    type_error(L, n, "a string", what);
    return NULL;
}

const char *project_join_names(ProjectLoader *L, const char *const *names, int count)
{
    StrBuf sb = STRBUF_INIT;
    for (int i = 0; i < count; i++) {
        if (i) sb_puts(&sb, ", ");
        sb_puts(&sb, names[i]);
    }
    const char *s = arena_strdup(&L->dl->arena, sb_cstr(&sb));
    sb_free(&sb);
    return s;
}

bool project_check_keys(ProjectLoader *L, const YNode *map, const char *const *known, int n,
                        const char *where)
{
    bool ok = true;
    if (!map || map->kind != YNODE_MAP) return false;
    for (int i = 0; i < map->npairs; i++) {
        const YNode *k = map->pairs[i].key;
        if (k->kind != YNODE_SCALAR) {
            diag_error(L->dl, k->pos, "bad-type", NULL, "expected a string key, found %s in %s",
                       yaml_kind_name(k), where);
            ok = false;
            continue;
        }
        bool found = false;
        for (int j = 0; j < n && !found; j++) found = strcmp(k->str, known[j]) == 0;
        if (found) continue;
        const char *hint = diag_did_you_mean(L->dl, k->str, known, n);
        if (!hint)
            hint = arena_printf(&L->dl->arena, "known keys: %s", project_join_names(L, known, n));
        diag_error(L->dl, k->pos, "unknown-key", hint, "unknown key '%s' in %s", k->str, where);
        ok = false;
    }
    return ok;
}

int project_expect_enum(ProjectLoader *L, const YNode *n, const char *const *names, int count,
                        const char *what)
{
    const char *s = project_expect_str(L, n, what);
    if (!s) return -1;
    for (int i = 0; i < count; i++)
        if (strcmp(s, names[i]) == 0) return i;
    const char *hint = diag_did_you_mean(L->dl, s, names, count);
    if (!hint)
        hint = arena_printf(&L->dl->arena, "expected one of: %s", project_join_names(L, names, count));
    diag_error(L->dl, n->pos, "unknown-value", hint, "unknown %s '%s'", what, s);
    return -1;
}

bool project_expect_str_list(ProjectLoader *L, const YNode *n, const char *what,
                             const char ***out, int *count)
{
    *out = NULL;
    *count = 0;
    if (!n) return false;
    if (n->kind == YNODE_SCALAR) {
        const char *s = project_expect_str(L, n, what);
        if (!s) return false;
        *out = ARENA_ARRAY(&L->p->arena, const char *, 1);
        (*out)[0] = s;
        *count = 1;
        return true;
    }
    if (n->kind != YNODE_SEQ) {
        type_error(L, n, "a list of strings", what);
        return false;
    }
    if (n->nitems == 0) {
        diag_error(L->dl, n->pos, "bad-value", NULL, "%s is an empty list", what);
        return false;
    }
    const char **v = ARENA_ARRAY(&L->p->arena, const char *, n->nitems);
    bool ok = true;
    for (int i = 0; i < n->nitems; i++) {
        v[i] = project_expect_str(L, n->items[i], what);
        if (!v[i]) ok = false;
    }
    if (!ok) return false;
    *out = v;
    *count = n->nitems;
    return true;
}

bool project_expect_duration(ProjectLoader *L, const YNode *n, const char *what, int64_t *us)
{
    const char *s = project_expect_str(L, n, what);
    if (!s) return false;
    if (project_parse_duration(s, us)) return true;
    diag_error(L->dl, n->pos, "bad-duration",
               "write a number and a unit: 250us, 500ms, 5s, 10m, 2h, 30d, 1w (or '5 seconds')",
               "invalid duration '%s' for %s", s, what);
    return false;
}
