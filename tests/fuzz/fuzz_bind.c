/* Fuzz target for the binder and the IR: the input is the SQL of a model in a fixed
 * in-memory project (one wide source with every column type, one updating source and an
 * upstream model), bound, analysed and explained. Nothing may crash or leak, whatever
 * the SQL. */
#include "base/diag.h"
#include "ir/explain.h"
#include "ir/ir.h"
#include "project/project.h"
#include "sql/binder.h"

#include <stdint.h>
#include <string.h>

static void add_column(Project *p, SourceDef *s, const char *name, const char *type)
{
    ColumnDef *c = &s->columns[s->ncolumns++];
    memset(c, 0, sizeof *c);
    c->name = name;
    type_parse(type, &c->type);
    (void)p;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    Project p;
    memset(&p, 0, sizeof p);
    arena_init(&p.arena, 16 * 1024);
    p.name = "fuzz";
    p.nsources = 2;
    p.sources = ARENA_ARRAY(&p.arena, SourceDef, 2);
    SourceDef *t = &p.sources[0];
    t->name = "s.t";
    t->format = FMT_JSON;
    t->event_time_col = 7;
    t->columns = ARENA_ARRAY(&p.arena, ColumnDef, 14);
    add_column(&p, t, "id", "bigint");
    add_column(&p, t, "i", "integer");
    add_column(&p, t, "si", "smallint");
    add_column(&p, t, "n", "numeric(12,2)");
    add_column(&p, t, "f", "double precision");
    add_column(&p, t, "s", "text");
    add_column(&p, t, "b", "boolean");
    add_column(&p, t, "ts", "timestamp");
    add_column(&p, t, "d", "date");
    add_column(&p, t, "iv", "interval");
    add_column(&p, t, "tz", "timestamptz");
    add_column(&p, t, "r", "real");
    add_column(&p, t, "tags", "text[]");
    add_column(&p, t, "doc", "json");
    SourceDef *u = &p.sources[1];
    u->name = "s.u";
    u->format = FMT_CHANGELOG_JSON;
    u->event_time_col = -1;
    u->columns = ARENA_ARRAY(&p.arena, ColumnDef, 3);
    add_column(&p, u, "id", "bigint");
    add_column(&p, u, "k", "text");
    add_column(&p, u, "v", "numeric");
    u->npk = 1;
    u->pk_cols = ARENA_ARRAY(&p.arena, int, 1);

    p.nmodels = 2;
    p.models = ARENA_ARRAY(&p.arena, ModelDef, 2);
    ModelDef *base = &p.models[0], *m = &p.models[1];
    base->name = "base";
    base->sql_file = "models/base.sql";
    base->sql = base->raw_sql = "SELECT id, s, n, ts FROM source('s.t') WHERE b";
    m->name = "m";
    m->sql_file = "models/m.sql";
    m->sql = m->raw_sql = arena_strndup(&p.arena, (const char *)data, size);
    m->materialized = (size % 3 == 0) ? MAT_APPEND : MAT_VIEW;

    Arena arena;
    arena_init(&arena, 64 * 1024);
    DiagList dl;
    diag_init(&dl);
    BoundProject *bp = sql_bind_project(&p, &arena, &dl);
    IrGraph *g = ir_build(bp, &arena, &dl);
    StrBuf out = STRBUF_INIT;
    ir_explain_text(g, NULL, &out);
    ir_explain_json(g, NULL, &out);
    diag_sort(&dl);
    diag_render_text(&dl, &out, false);
    sb_free(&out);
    diag_fini(&dl);
    arena_fini(&arena);
    arena_fini(&p.arena);
    return 0;
}
