/* The deployments of a native target on disk (see deployments.h). */
#include "runtime/deployments.h"

#include "base/fsutil.h"
#include "runtime/run_internal.h"
#include "runtime/state_store.h"

#include "base/bytes.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *state_file(Project *p, const char *name)
{
    return arena_printf(&p->arena, "%s/%s", run_state_dir(p), name);
}

/* A small file's first line (NUL-terminated, without the newline) into buf. */
static bool read_line(const char *path, char *buf, size_t size)
{
    FILE *f = fopen(path, "r");
    if (!f) return false;
    bool ok = fgets(buf, (int)size, f) != NULL;
    fclose(f);
    if (ok) buf[strcspn(buf, "\n")] = '\0';
    return ok;
}

/* A store name this weir writes: "." or "deployments/<digits>". */
static bool valid_name(const char *s)
{
    if (strcmp(s, ".") == 0) return true;
    if (strncmp(s, "deployments/", 12) != 0 || !s[12]) return false;
    for (const char *c = s + 12; *c; c++)
        if (*c < '0' || *c > '9') return false;
    return true;
}

const char *deploy_active_name(Project *p)
{
    char buf[256];
    if (read_line(state_file(p, "ACTIVE"), buf, sizeof buf) && valid_name(buf)) return arena_strdup(&p->arena, buf);
    return ".";
}

const char *deploy_dir(Project *p, const char *name)
{
    if (strcmp(name, ".") == 0) return run_state_dir(p);
    return state_file(p, name);
}

const char *deploy_active_dir(Project *p) { return deploy_dir(p, deploy_active_name(p)); }

bool deploy_set_active(Project *p, const char *name, char *err, size_t errsize)
{
    char line[300];
    int n = snprintf(line, sizeof line, "%s\n", name);
    return fs_write_atomic(state_file(p, "ACTIVE"), line, (size_t)n, err, errsize);
}

const char *deploy_previous_name(Project *p)
{
    char buf[256];
    if (read_line(state_file(p, "PREVIOUS"), buf, sizeof buf) && valid_name(buf)) return arena_strdup(&p->arena, buf);
    return NULL;
}

bool deploy_set_previous(Project *p, const char *name, char *err, size_t errsize)
{
    if (!name) {
        unlink(state_file(p, "PREVIOUS"));
        return true;
    }
    char line[300];
    int n = snprintf(line, sizeof line, "%s\n", name);
    return fs_write_atomic(state_file(p, "PREVIOUS"), line, (size_t)n, err, errsize);
}

static int cmp_names(const void *a, const void *b)
{
    long long x = atoll(*(char *const *)a + 12), y = atoll(*(char *const *)b + 12);
    return (x > y) - (x < y);
}

char **deploy_list(Project *p, int *n)
{
    *n = 0;
    DIR *d = opendir(state_file(p, "deployments"));
    if (!d) return NULL;
    char **out = NULL;
    int cap = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        char name[300];
        snprintf(name, sizeof name, "deployments/%s", e->d_name);
        if (e->d_name[0] == '.' || !valid_name(name)) continue;
        if (*n == cap) {
            cap = cap ? cap * 2 : 8;
            out = xrealloc(out, sizeof(char *) * (size_t)cap);
        }
        out[(*n)++] = xstrdup(name);
    }
    closedir(d);
    if (*n > 1) qsort(out, (size_t)*n, sizeof(char *), cmp_names);
    return out;
}

const char *deploy_new_name(Project *p, int64_t min_id, int64_t *id)
{
    int n;
    char **names = deploy_list(p, &n);
    int64_t next = min_id;
    for (int i = 0; i < n; i++) {
        int64_t k = atoll(names[i] + 12);
        if (k >= next) next = k + 1;
        free(names[i]);
    }
    free(names);
    *id = next;
    return arena_printf(&p->arena, "deployments/%lld", (long long)next);
}

const char *deploy_shadow_name(Project *p, const char *name, int64_t id)
{
    const char *slash = strrchr(name, '/');
    const char *dot = strrchr(slash ? slash : name, '.');
    if (!dot || dot == (slash ? slash + 1 : name)) return arena_printf(&p->arena, "%s__v%lld", name, (long long)id);
    return arena_printf(&p->arena, "%.*s__v%lld%s", (int)(dot - name), name, (long long)id, dot);
}

bool deploy_intent_write(Project *p, const DeployIntent *in, char *err, size_t errsize)
{
    char text[700];
    int n = snprintf(text, sizeof text, "%s\n%s\n%lld\n%s\n", in->from, in->to, (long long)in->id,
                     in->rollback ? "rollback" : "publish");
    return fs_write_atomic(state_file(p, "PUBLISH"), text, (size_t)n, err, errsize);
}

bool deploy_intent_read(Project *p, DeployIntent *out)
{
    memset(out, 0, sizeof *out);
    FILE *f = fopen(state_file(p, "PUBLISH"), "r");
    if (!f) return false;
    char id[64] = "", kind[64] = "";
    bool ok = fgets(out->from, sizeof out->from, f) && fgets(out->to, sizeof out->to, f) && fgets(id, sizeof id, f) &&
              fgets(kind, sizeof kind, f);
    fclose(f);
    if (!ok) return false;
    out->from[strcspn(out->from, "\n")] = '\0';
    out->to[strcspn(out->to, "\n")] = '\0';
    out->id = atoll(id);
    out->rollback = strncmp(kind, "rollback", 8) == 0;
    return valid_name(out->from) && valid_name(out->to);
}

void deploy_intent_clear(Project *p) { unlink(state_file(p, "PUBLISH")); }

/* ---- reading and changing a store ---- */

bool deploy_store_manifest(Project *p, const char *name, char **manifest, size_t *len, uint64_t *ckpt,
                           int64_t *written_at, char *err, size_t errsize)
{
    *manifest = NULL;
    StateStore *st = store_open(deploy_dir(p, name), false, false, err, errsize);
    if (!st) {
        if (!err[0]) snprintf(err, errsize, "deployment store %s has no checkpoint", name);
        return false;
    }
    const void *data;
    size_t n;
    bool ok = store_read_begin(st, err, errsize);
    if (ok && store_get(st, "meta", &data, &n)) {
        ByteReader r = bytes_reader(data, n);
        bytes_get_u32(&r);
        bytes_get_u32(&r);
        *ckpt = bytes_get_u64(&r);
        *written_at = (int64_t)bytes_get_u64(&r);
    }
    if (ok && store_get(st, "manifest", &data, &n)) {
        *manifest = xstrndup(data, n);
        *len = n;
    } else if (ok) {
        snprintf(err, errsize, "deployment store %s keeps no manifest", name);
        ok = false;
    }
    store_close(st);
    return ok;
}

typedef struct Positions {
    StateStore *other;
    bool same;
} Positions;

static void compare_position(void *ctx, const char *name, const void *data, size_t len)
{
    Positions *ps = ctx;
    const void *d2;
    size_t l2;
    if (!store_get(ps->other, name, &d2, &l2) || l2 != len || memcmp(d2, data, len) != 0) ps->same = false;
}

bool deploy_same_positions(Project *p, const char *a, const char *b, char *err, size_t errsize)
{
    StateStore *sa = store_open(deploy_dir(p, a), false, false, err, errsize);
    StateStore *sb = sa ? store_open(deploy_dir(p, b), false, false, err, errsize) : NULL;
    bool same = false;
    if (sa && sb && store_read_begin(sa, err, errsize) && store_read_begin(sb, err, errsize)) {
        Positions ab = {sb, true}, ba = {sa, true};
        store_foreach(sa, "source/", compare_position, &ab);
        store_foreach(sb, "source/", compare_position, &ba);
        same = ab.same && ba.same;
    }
    store_close(sa);
    store_close(sb);
    return same;
}

EngPipeline *deploy_restore(Project *p, const IrGraph *g, const char *name, char *err, size_t errsize)
{
    StateStore *st = store_open(deploy_dir(p, name), false, false, err, errsize);
    if (!st) {
        if (!err[0]) snprintf(err, errsize, "deployment store %s has no checkpoint", name);
        return NULL;
    }
    EngOptions eo = {0};
    bool read = store_read_begin(st, err, errsize);
    EngPipeline *pipe = read ? eng_pipeline_new(g, &eo, err, errsize) : NULL;
    char e2[512];
    /* the state of several engine replicas is merged into one pipeline */
    if (pipe && !run_ckpt_restore(st, pipe, true, NULL, 0, 1, true, e2, sizeof e2)) {
        snprintf(err, errsize, "store %s: %s", name, e2);
        eng_pipeline_free(pipe);
        pipe = NULL;
    }
    store_close(st);
    return pipe;
}

char *deploy_output(Project *p, const char *name, const char *model)
{
    char err[256];
    StateStore *st = store_open(deploy_dir(p, name), false, false, err, sizeof err);
    if (!st) return NULL;
    char key[512];
    snprintf(key, sizeof key, "outputs/%s", model);
    const void *data;
    size_t n;
    char *out = store_read_begin(st, err, sizeof err) && store_get(st, key, &data, &n) ? xstrndup(data, n) : NULL;
    store_close(st);
    return out;
}

bool deploy_set_output(Project *p, const char *name, const char *model, const char *physical, char *err,
                       size_t errsize)
{
    StateStore *st = store_open(deploy_dir(p, name), true, false, err, errsize);
    if (!st) return false;
    char key[512];
    snprintf(key, sizeof key, "outputs/%s", model);
    bool ok = store_write_begin(st, false, err, errsize) && store_put(st, key, physical, strlen(physical), err, errsize) &&
              store_write_commit(st, err, errsize);
    if (!ok) store_write_abort(st);
    store_close(st);
    return ok;
}

static void last_id(void *ctx, const char *name, const void *data, size_t len)
{
    (void)name;
    ByteReader r = bytes_reader(data, len);
    if (bytes_get_u32(&r) != RUN_DEPLOYMENT_MAGIC) return;
    int64_t id = (int64_t)bytes_get_u64(&r);
    if (!r.bad && id > *(int64_t *)ctx) *(int64_t *)ctx = id;
}

int64_t deploy_last_id(Project *p, const char *name)
{
    char err[256];
    int64_t id = 1;
    StateStore *st = store_open(deploy_dir(p, name), false, false, err, sizeof err);
    if (st && store_read_begin(st, err, sizeof err)) store_foreach(st, STORE_JOURNAL_PREFIX "deployment/", last_id, &id);
    store_close(st);
    return id;
}

bool deploy_set_status(Project *p, const char *name, int64_t id, const char *status, char *err, size_t errsize)
{
    StateStore *st = store_open(deploy_dir(p, name), true, false, err, errsize);
    if (!st) return false;
    char key[128];
    snprintf(key, sizeof key, STORE_JOURNAL_PREFIX "deployment/%012lld", (long long)id);
    const void *data;
    size_t len;
    bool ok = store_write_begin(st, false, err, errsize);
    if (ok && store_get(st, key, &data, &len)) {
        /* u32 magic, u64 id, u64 at, str mode, u64 checkpoint, str status, str plan */
        ByteReader r = bytes_reader(data, len);
        uint32_t magic = bytes_get_u32(&r);
        uint64_t rid = bytes_get_u64(&r), at = bytes_get_u64(&r);
        size_t ml, sl, pl;
        const char *mode = bytes_get_str(&r, &ml);
        uint64_t ckpt = bytes_get_u64(&r);
        bytes_get_str(&r, &sl);
        const char *plan = bytes_get_str(&r, &pl);
        if (!r.bad && magic == RUN_DEPLOYMENT_MAGIC) {
            StrBuf v = STRBUF_INIT;
            bytes_put_u32(&v, magic);
            bytes_put_u64(&v, rid);
            bytes_put_u64(&v, at);
            bytes_put_str(&v, mode, ml);
            bytes_put_u64(&v, ckpt);
            bytes_put_str(&v, status, strlen(status));
            bytes_put_str(&v, plan, pl);
            ok = store_put(st, key, v.data, v.len, err, errsize);
            sb_free(&v);
        }
    }
    ok = ok && store_write_commit(st, err, errsize);
    if (!ok) store_write_abort(st);
    store_close(st);
    return ok;
}
