/* Shared command plumbing (see cli.h). */
#include "cli/cli.h"
#include "backends/native/native.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void cli_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("weir: error: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

void cli_write_stdout(const char *s, size_t n)
{
    if (n) fwrite(s, 1, n, stdout);
    fflush(stdout);
}

/* Mistakes of the command line found while loading (an unknown --target, a --vars name
 * weir.yml does not declare): printed as usage errors; true when there was one. */
static bool usage_errors(const CliOptions *o, CliProject *cp)
{
    bool found = false;
    for (int i = 0; i < cp->dl.count; i++) {
        const Diag *d = &cp->dl.items[i];
        bool cmdline = d->severity == DIAG_ERROR &&
                       ((d->pos.file && strcmp(d->pos.file, "--vars") == 0) ||
                        (!d->pos.file && o->target && strcmp(d->code, "unknown-target") == 0));
        if (!cmdline) continue;
        cli_error("%s%s", d->pos.file ? "--vars: " : "--target: ", d->message);
        if (d->hint) fprintf(stderr, "  hint: %s\n", d->hint);
        found = true;
    }
    const Project *p = cp->project;
    for (int i = 0; i < p->nvars; i++) {
        if (p->vars[i].declared) continue;
        const char **names = xcalloc((size_t)p->nvars + 1, sizeof *names);
        int n = 0;
        for (int j = 0; j < p->nvars; j++)
            if (p->vars[j].declared) names[n++] = p->vars[j].name;
        const char *close = diag_closest(p->vars[i].name, names, n);
        if (close) cli_error("--vars: unknown var '%s'; did you mean '%s'?", p->vars[i].name, close);
        else if (n) cli_error("--vars: unknown var '%s' (weir.yml declares %s%s)", p->vars[i].name, names[0],
                              n > 1 ? ", ..." : "");
        else cli_error("--vars: unknown var '%s' (weir.yml declares no vars)", p->vars[i].name);
        fprintf(stderr, "  hint: --vars overrides the vars declared under `vars:` in weir.yml; declare it there first\n");
        free(names);
        found = true;
    }
    return found;
}

bool cli_load(const CliOptions *o, CliProject *cp)
{
    memset(cp, 0, sizeof *cp);
    cp->opts = o;
    diag_init(&cp->dl);
    arena_init(&cp->arena, 64 * 1024);
    ProjectOptions po = {.dir = o->project_dir, .target = o->target, .vars_json = o->vars_json};
    cp->project = project_load(&po, &cp->dl);
    if (!cp->project) return false;
    if (usage_errors(o, cp)) {
        /* the command line is wrong, not the project: nothing else is reported */
        project_free(cp->project);
        cp->project = NULL;
        diag_fini(&cp->dl);
        diag_init(&cp->dl);
        return false;
    }
    cp->bound = sql_bind_project(cp->project, &cp->arena, &cp->dl);
    cp->graph = ir_build(cp->bound, &cp->arena, &cp->dl);
    return true;
}

void cli_project_free(CliProject *cp)
{
    if (cp->project) project_free(cp->project);
    arena_fini(&cp->arena);
    diag_fini(&cp->dl);
}

bool cli_load_project(const CliOptions *o, CliProject *cp)
{
    if (cli_load(o, cp)) return true;
    cli_print_diags(cp, o);
    cli_project_free(cp);
    return false;
}

bool cli_stop_on_errors(CliProject *cp, const CliOptions *o, const char *why)
{
    if (!cp->dl.errors) return false;
    cli_print_diags(cp, o);
    if (why) fprintf(stderr, "%s\n", why);
    cli_project_free(cp);
    return true;
}

void cli_print_diags(CliProject *cp, const CliOptions *o)
{
    /* Diagnostics are for the person: always text on stderr, so a command's JSON
     * output on stdout stays one document (`weir check --format json` renders its
     * diagnostics as data itself). */
    (void)o;
    diag_sort(&cp->dl);
    StrBuf sb = STRBUF_INIT;
    diag_render_text(&cp->dl, &sb, isatty(2) && !getenv("NO_COLOR"));
    fputs(sb_cstr(&sb), stderr);
    sb_free(&sb);
}

char *cli_read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    StrBuf b = STRBUF_INIT;
    char buf[65536];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0) sb_append(&b, buf, n);
    bool bad = ferror(f);
    fclose(f);
    if (bad) {
        sb_free(&b);
        return NULL;
    }
    *len = b.len;
    return b.data ? sb_take(&b) : xstrdup("");
}

LcBackend *cli_backend_open(CliProject *cp, char *err, size_t errsize)
{
    const TargetDef *t = cp->project->target;
    const char *rt = t && t->runtime ? t->runtime : "native";
    if (strcmp(rt, "native") == 0) return native_backend_open(cp->project, cp->graph);
    if (strcmp(rt, "clickhouse") == 0) return cli_clickhouse_backend_open(cp);
    snprintf(err, errsize, "target %s: weir cannot deploy to runtime '%s' yet", t ? t->name : "?", rt);
    return NULL;
}
