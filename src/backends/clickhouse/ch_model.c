/* Realization of sources and models on ClickHouse and their DDL (see ch_model.h). */
#include "backends/clickhouse/ch_model.h"

#include "backends/clickhouse/ch_sql.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *ch_kind_name(ChKind k)
{
    switch (k) {
    case CHK_EPHEMERAL: return "ephemeral";
    case CHK_STREAM: return "stream";
    case CHK_AGGREGATE: return "aggregate";
    case CHK_WINDOW: return "window";
    case CHK_DISTINCT: return "distinct";
    case CHK_NATIVE: return "native";
    case CHK_REFUSED: return "refused";
    }
    return "?";
}

static const char *q(Arena *a, const char *name)
{
    StrBuf b = STRBUF_INIT;
    ch_ident(&b, name);
    char *s = arena_strdup(a, sb_cstr(&b));
    sb_free(&b);
    return s;
}

static const char *phys_col(Arena *a, const char *model, const char *col)
{
    return q(a, arena_printf(a, "%s__%s", model, col));
}

const char *ch_fill(Arena *a, const char *sql, const char *in, const char *phys, const char *flag)
{
    return ch_fill_fence(a, sql, in, phys, flag, "1");
}

const char *ch_fill_fence(Arena *a, const char *sql, const char *in, const char *phys, const char *flag,
                          const char *fence)
{
    StrBuf b = STRBUF_INIT;
    for (const char *s = sql; *s;) {
        if (fence && strncmp(s, CH_FENCE, sizeof CH_FENCE - 1) == 0) {
            sb_printf(&b, "(%s)", fence);
            s += sizeof CH_FENCE - 1;
            continue;
        }
        if (*s == '\x02' && flag) {
            /* a lineage column: the live form, or the replay's (flag 1) */
            const char *mid = strchr(s, '\x03'), *end = mid ? strchr(mid, '\x04') : NULL;
            if (end) {
                if (strcmp(flag, "1") == 0) sb_append(&b, mid + 1, (size_t)(end - mid - 1));
                else sb_append(&b, s + 1, (size_t)(mid - s - 1));
                s = end + 1;
                continue;
            }
        }
        if (in && strncmp(s, CH_IN, sizeof CH_IN - 1) == 0) {
            sb_puts(&b, in);
            s += sizeof CH_IN - 1;
        } else if (phys && strncmp(s, CH_PHYS, sizeof CH_PHYS - 1) == 0) {
            sb_puts(&b, phys);
            s += sizeof CH_PHYS - 1;
        } else if (flag && strncmp(s, CH_FLAG, sizeof CH_FLAG - 1) == 0) {
            sb_puts(&b, flag);
            s += sizeof CH_FLAG - 1;
        } else {
            sb_putc(&b, *s++);
        }
    }
    char *r = arena_strdup(a, b.data ? sb_cstr(&b) : "");
    sb_free(&b);
    return r;
}

/* ---- sources ---- */

static const char *yget_str(YNode *map, const char *key)
{
    if (!map || map->kind != YNODE_MAP) return NULL;
    YNode *n = yaml_get(map, key);
    return n && n->kind == YNODE_SCALAR ? n->str : NULL;
}

static void init_source(ChProject *cp, ChSource *cs, const SourceDef *s, int index)
{
    Arena *a = &cp->arena;
    cs->name = s->name;
    cs->index = index;
    char *obj = arena_strdup(a, s->name);
    for (char *p = obj; *p; p++)
        if (*p == '.' || *p == '-') *p = '_';
    cs->object = obj;
    const char *why = NULL;
    StrBuf cols = STRBUF_INIT;
    for (int i = 0; i < s->ncolumns; i++) {
        const char *ty = chx_type(s->columns[i].type, &cp->caps, false, a, &why);
        if (!ty) {
            cs->why = arena_printf(a, "column %s: %s", s->columns[i].name, why);
            sb_free(&cols);
            return;
        }
        if (i) sb_puts(&cols, ", ");
        ch_ident(&cols, s->columns[i].name);
        sb_printf(&cols, " %s", ty);
    }
    const char *colsdef = arena_strdup(a, cols.data ? sb_cstr(&cols) : "");
    sb_free(&cols);
    if (s->connector == SRC_KAFKA) {
        if (data_format_is_updating(s->format)) {
            cs->why = arena_printf(a, "format %s carries updates and deletes; a Kafka engine table lands inserts only",
                                   data_format_name(s->format));
            return;
        }
        for (int i = 0; i < s->ncolumns; i++)
            if (s->columns[i].encoding != COL_ENC_TEXT) {
                /* the Kafka engine's JSONEachRow would read the number in its own unit */
                cs->why = arena_printf(a, "column %s is written as %s; a Kafka engine table reads temporal columns "
                                          "as text only", s->columns[i].name,
                                       column_encoding_name(s->columns[i].encoding));
                return;
            }
        cs->managed = true;
        cs->topic = s->topic;
        cs->max_block_size = 65536;
        YNode *landing = s->node ? yaml_get(s->node, "landing") : NULL;
        const char *mb = yget_str(landing, "max_block_size");
        if (mb && atoi(mb) > 0) cs->max_block_size = atoi(mb);
        cs->format = "JSONEachRow";
        cs->boundary_mode = cp->caps.kafka_virtual ? "offsets" : "landed_at";
        cs->kafka_columns = colsdef;
        const char *ts = cp->caps.datetime64 ? "DateTime64(3, 'UTC')" : "DateTime('UTC')";
        cs->raw_columns = arena_printf(a, "%s%s`_replay_partition` Int32, `_replay_offset` Int64, "
                                          "`_replay_timestamp` %s, `_replay_landed_at` %s",
                                       colsdef, *colsdef ? ", " : "", ts, ts);
        StrBuf sel = STRBUF_INIT;
        sb_puts(&sel, "SELECT ");
        for (int i = 0; i < s->ncolumns; i++) {
            ch_ident(&sel, s->columns[i].name);
            sb_puts(&sel, ", ");
        }
        if (cp->caps.kafka_virtual)
            sb_printf(&sel, "toInt32(_partition) AS `_replay_partition`, toInt64(_offset) AS `_replay_offset`, "
                            "CAST(_timestamp AS %s) AS `_replay_timestamp`, now64(3, 'UTC') AS `_replay_landed_at`",
                      ts);
        else
            sb_puts(&sel, "toInt32(-1) AS `_replay_partition`, toInt64(-1) AS `_replay_offset`, "
                          "now() AS `_replay_timestamp`, now() AS `_replay_landed_at`");
        sb_puts(&sel, " FROM " CH_IN);
        cs->landing_select = arena_strdup(a, sb_cstr(&sel));
        sb_free(&sel);
    } else if (s->connector == SRC_CLICKHOUSE) {
        cs->adopted = true;
        const char *t = s->table ? s->table : "";
        const char *dot = strchr(t, '.');
        StrBuf b = STRBUF_INIT;
        if (dot) {
            ch_ident(&b, arena_strndup(a, t, (size_t)(dot - t)));
            sb_putc(&b, '.');
            ch_ident(&b, dot + 1);
        } else if (cp->database) {
            ch_qual(&b, cp->database, t);  /* in the target's database */
        } else {
            ch_ident(&b, t);
        }
        cs->table = arena_strdup(a, sb_cstr(&b));
        sb_free(&b);
        YNode *rb = s->node ? yaml_get(s->node, "replay_boundary") : NULL;
        const char *mode = yget_str(rb, "mode");
        cs->boundary_mode = mode ? mode : "none";
        YNode *cols_n = rb ? yaml_get(rb, "columns") : NULL;
        if (cols_n && cols_n->kind == YNODE_MAP) {
            cs->boundary_cols[0] = yget_str(cols_n, "partition");
            cs->boundary_cols[1] = yget_str(cols_n, "offset");
        }
        const char *col = yget_str(rb, "column");
        if (col) cs->boundary_cols[0] = col;
    } else {
        cs->why = arena_printf(a, "%s sources are read by the native runtime; a ClickHouse target reads Kafka topics "
                                  "and ClickHouse tables",
                               s->connector == SRC_FILE ? "file" : "stdin");
    }
}

/* ---- models ---- */

typedef struct Rel {
    const char **env;
    int n;
    StrBuf where;
    int in_source;
    bool window;
    const char *time_sql;      /* the TUMBLE's time column */
    int64_t size_us;
    const char *replay_time_env; /* the source's replay time as the view reads it */
    const char *join;          /* a lookup join after FROM CH_IN, or NULL */
} Rel;

typedef struct Ctx {
    ChProject *cp;
    const char *why;
    bool lookup;               /* `clickhouse: {lookup: true}`: joins are lookups */
} Ctx;

static bool lookup_join(Ctx *c, const IrNode *n, Rel *r);

static bool refuse(Ctx *c, const char *why)
{
    if (!c->why) c->why = why;
    return false;
}

static const char *plan_why(Ctx *c, const PlanNode *p)
{
    Arena *a = &c->cp->arena;
    switch (p->kind) {
    case PL_JOIN:
        return "a join: a materialized view fires only on inserts into the table in its FROM, so rows arriving on "
               "the other side would never update the result";
    case PL_TOPN:
        return "TopN: a row leaves the top when a better one arrives, a retraction ClickHouse tables cannot apply";
    case PL_WINDOW_TVF:
        return p->wtvf == WTVF_SESSION ? "session windows: sessions merge as rows arrive, which needs retractions"
                                       : "HOP windows are not translated yet";
    case PL_OVER_AGG: return "a running aggregate over a window (OVER): rows are emitted by watermark";
    case PL_SETOP: return "UNION/EXCEPT/INTERSECT keep counts per row that ClickHouse cannot retract";
    case PL_UNION_ALL: return "UNION ALL (several inputs into one table) is not translated yet";
    case PL_AGGREGATE:
    case PL_DISTINCT: return "an aggregate or DISTINCT over the updates of another aggregate";
    default: return arena_printf(a, "operator %s", plan_kind_name(p->kind));
    }
}

/* A replay lineage column of source s (project.h SourceLineage) as SQL. A managed
 * landing's live view reads its Kafka table (the virtual columns, the time of the
 * insert), a replay reads the raw table (its _replay_ columns): the SQL carries both
 * as \x02live\x03replay\x04 and ch_fill picks one by the flag (1: replay). An adopted table
 * has the columns its replay_boundary maps. NULL with the reason when there is none. */
#define CH_LIN_BEGIN "\x02"
#define CH_LIN_MID "\x03"
#define CH_LIN_END "\x04"
static const char *lineage_sql(ChProject *cp, const ChSource *s, int k, const char **why)
{
    Arena *a = &cp->arena;
    const char *name = source_lineage_name(k);
    const char *ty = chx_type(source_lineage_type(k), &cp->caps, false, a, why);
    if (s->adopted) {
        const char *col = NULL, *m = s->boundary_mode;
        if (k == LINEAGE_PARTITION && strcmp(m, "offsets") == 0) col = s->boundary_cols[0];
        if (k == LINEAGE_OFFSET && strcmp(m, "offsets") == 0) col = s->boundary_cols[1];
        if (k == LINEAGE_TIMESTAMP && strcmp(m, "timestamp") == 0) col = s->boundary_cols[0];
        if (k == LINEAGE_LANDED_AT && strcmp(m, "landed_at") == 0) col = s->boundary_cols[0];
        if (!col) {
            *why = arena_printf(a, "%s of source %s: its replay_boundary (mode %s) maps no column to it", name,
                                s->name, m);
            return NULL;
        }
        return arena_printf(a, "CAST(%s AS %s)", q(a, col), ty);
    }
    const char *live;
    if (k == LINEAGE_LANDED_AT) {
        live = cp->caps.datetime64 ? "now64(3, 'UTC')" : "now()";
    } else if (!cp->caps.kafka_virtual) {
        *why = arena_printf(a, "%s of source %s needs the Kafka engine's virtual columns, which this server does not "
                               "have (18.16 lands only _replay_landed_at)",
                            name, s->name);
        return NULL;
    } else {
        live = k == LINEAGE_PARTITION ? "_partition" : k == LINEAGE_OFFSET ? "_offset" : "_timestamp";
    }
    return arena_printf(a, CH_LIN_BEGIN "CAST(%s AS %s)" CH_LIN_MID "CAST(%s AS %s)" CH_LIN_END, live, ty, q(a, name),
                        ty);
}

static bool rel_of(Ctx *c, const IrNode *n, Rel *r)
{
    ChProject *cp = c->cp;
    Arena *a = &cp->arena;
    const PlanNode *p = n->plan;
    switch (p->kind) {
    case PL_SOURCE: {
        const ChSource *s = &cp->sources[n->source];
        if (!s->managed && !s->adopted) return refuse(c, arena_printf(a, "source %s: %s", s->name, s->why));
        if (n->mode != CL_INSERT_ONLY)
            return refuse(c, arena_printf(a, "source %s carries updates and deletes", s->name));
        r->env = ARENA_ARRAY(a, const char *, p->ncols);
        r->n = p->ncols;
        for (int i = 0; i < p->ncols; i++) {
            if (p->cols[i].lineage) {
                /* a lineage column this source lacks refuses the model only if it is
                 * read: its SQL then carries the reason (realize_model looks) */
                const char *why = NULL;
                r->env[i] = lineage_sql(cp, s, p->cols[i].lineage, &why);
                if (!r->env[i]) r->env[i] = arena_printf(a, "\x05%s\x06", why);
            } else {
                r->env[i] = q(a, p->cols[i].name);
            }
        }
        /* the time a bounded replay bounds: managed landings stamp _replay_landed_at,
         * adopted tables map a timestamp or landed_at column */
        if (s->managed) {
            cp->models_replay_time = "`_replay_landed_at`";
            for (int i = 0; i < p->ncols; i++)
                if (p->cols[i].lineage == LINEAGE_LANDED_AT) r->replay_time_env = r->env[i];
        } else if (s->adopted && s->boundary_cols[0] &&
                   (strcmp(s->boundary_mode, "timestamp") == 0 || strcmp(s->boundary_mode, "landed_at") == 0)) {
            cp->models_replay_time = q(a, s->boundary_cols[0]);
            int k = strcmp(s->boundary_mode, "timestamp") == 0 ? LINEAGE_TIMESTAMP : LINEAGE_LANDED_AT;
            for (int i = 0; i < p->ncols; i++)
                if (p->cols[i].lineage == k) r->replay_time_env = r->env[i];
        } else {
            cp->models_replay_time = NULL;
        }
        r->in_source = n->source;
        return true;
    }
    case PL_REF: {
        int up = bound_model_index(cp->g->bound, p->name);
        if (up < 0 || !n->ninputs) return refuse(c, "an unknown model");
        const ChModel *um = &cp->models[up];
        /* a filter/projection model upstream is computed again in this model's view,
         * which reads the source itself: views fed by the Kafka engine do not trigger
         * the views of their target tables on 18.16 */
        if (um->kind == CHK_EPHEMERAL || um->kind == CHK_STREAM) return rel_of(c, n->inputs[0], r);
        return refuse(c, arena_printf(a, "it reads model %s, which ClickHouse keeps as %s: a materialized view "
                                         "sees inserted rows, not the updates of that result",
                                      p->name, ch_kind_name(um->kind)));
    }
    case PL_FILTER: {
        if (!rel_of(c, n->inputs[0], r)) return false;
        const char *why = NULL;
        const char *s = chx_expr_str(p->pred, r->env, r->n, &cp->caps, a, &why);
        if (!s) return refuse(c, why);
        if (r->where.len) sb_puts(&r->where, " AND ");
        sb_printf(&r->where, "ifNull(%s, 0) = 1", s);
        return true;
    }
    case PL_PROJECT: {
        if (!rel_of(c, n->inputs[0], r)) return false;
        const char **env = ARENA_ARRAY(a, const char *, p->nexprs);
        for (int i = 0; i < p->nexprs; i++) {
            const char *why = NULL;
            env[i] = chx_expr_str(p->exprs[i], r->env, r->n, &cp->caps, a, &why);
            if (!env[i]) return refuse(c, why);
        }
        r->env = env;
        r->n = p->nexprs;
        return true;
    }
    case PL_WINDOW_TVF: {
        if (p->wtvf != WTVF_TUMBLE) return refuse(c, plan_why(c, p));
        if (!rel_of(c, n->inputs[0], r)) return false;
        if (r->window) return refuse(c, "a window over a window");
        const char *t = r->env[p->time_col];
        int64_t us = p->size_us;
        const char *ws, *we;
        if (cp->caps.datetime64) {
            ws = arena_printf(a, "fromUnixTimestamp64Micro(intDiv(toUnixTimestamp64Micro(%s), %lld) * %lld, 'UTC')", t,
                              (long long)us, (long long)us);
            we = arena_printf(a,
                              "fromUnixTimestamp64Micro(intDiv(toUnixTimestamp64Micro(%s), %lld) * %lld + %lld, 'UTC')",
                              t, (long long)us, (long long)us, (long long)us);
        } else {
            if (us % 1000000 != 0)
                return refuse(c, "a window size below a second needs a current server (18.16 keeps seconds)");
            long long s = us / 1000000;
            ws = arena_printf(a, "toDateTime(intDiv(toUInt32(%s), %lld) * %lld, 'UTC')", t, s, s);
            we = arena_printf(a, "toDateTime(intDiv(toUInt32(%s), %lld) * %lld + %lld, 'UTC')", t, s, s, s);
        }
        const char **env = ARENA_ARRAY(a, const char *, r->n + 2);
        memcpy(env, r->env, sizeof *env * (size_t)r->n);
        env[r->n] = ws;
        env[r->n + 1] = we;
        r->env = env;
        r->n += 2;
        r->window = true;
        r->time_sql = t;
        r->size_us = us;
        return true;
    }
    case PL_JOIN:
        if (c->lookup) return lookup_join(c, n, r);
        return refuse(c, arena_printf(a, "%s (or, when the right side is a slowly changing ClickHouse table that "
                                         "only the stream side should trigger, `clickhouse: {lookup: true}`)",
                                      plan_why(c, p)));
    default: return refuse(c, plan_why(c, p));
    }
}

/* A lookup join (`clickhouse: {lookup: true}`): the left input is the stream whose
 * inserts fire the view, the right input an adopted ClickHouse table read as it is when
 * each block arrives (rows added to it later do not update earlier results). Inner and
 * left equi-joins on plain columns: the MV joins ALL (every match, as PostgreSQL) USING
 * the left's key names, the right side a subquery whose columns get names of their own
 * (`_weir_r<i>`) and whose NULL keys are dropped (NULL never matches). An inner join
 * drops the stream's NULL keys too; a left join keeps every stream row, and its right
 * columns are made Nullable in the subquery: ClickHouse fills the columns of an
 * unmatched row with their type's default, which for a Nullable column is NULL (as
 * PostgreSQL), on 18.16 and current servers alike, whatever `join_use_nulls` says. */
static bool lookup_join(Ctx *c, const IrNode *n, Rel *r)
{
    ChProject *cp = c->cp;
    Arena *a = &cp->arena;
    const PlanNode *p = n->plan;
    if (p->join_type != JOIN_INNER && p->join_type != JOIN_LEFT)
        return refuse(c, "a lookup join must be an inner or a left join (the table side never triggers)");
    bool left = p->join_type == JOIN_LEFT;
    if (p->nkeys == 0 || p->pred) return refuse(c, "a lookup join needs equality keys and no other condition");
    const IrNode *rn = n->inputs[1];
    const Expr *const *rmap = NULL;  /* a projection over the table (column pruning) */
    int nrmap = 0;
    if (rn->plan->kind == PL_PROJECT && rn->inputs[0]->plan->kind == PL_SOURCE) {
        rmap = (const Expr *const *)rn->plan->exprs;
        nrmap = rn->plan->nexprs;
        rn = rn->inputs[0];
    }
    if (rn->plan->kind != PL_SOURCE || !cp->sources[rn->source].adopted)
        return refuse(c, "the right side of a lookup join must be a ClickHouse table source (connector: clickhouse)");
    const ChSource *ts = &cp->sources[rn->source];
    if (!rel_of(c, n->inputs[0], r)) return false;
    if (r->window) return refuse(c, "a lookup join over a window");
    if (r->in_source >= 0 && cp->sources[r->in_source].managed && !cp->caps.kafka_virtual)
        return refuse(c, "a lookup join over a Kafka landing needs a current server: 18.16's Kafka engine fails the "
                         "views it feeds that join (\"There is no query\"); adopted stream tables work");
    int nl = r->n, nr = nrmap ? nrmap : rn->plan->ncols;
    /* the right input's columns as the table's (through the projection) */
    const char **tcols = ARENA_ARRAY(a, const char *, nr + 1);
    for (int i = 0; i < nr; i++) {
        int col = i;
        if (rmap) {
            if (rmap[i]->kind != EX_COLUMN) return refuse(c, "a lookup join over computed columns of the table");
            col = rmap[i]->col;
        }
        if (rn->plan->cols[col].lineage) return refuse(c, "the replay lineage of a lookup table");
        tcols[i] = q(a, rn->plan->cols[col].name);
    }
    StrBuf sub = STRBUF_INIT, using = STRBUF_INIT, notnull = STRBUF_INIT;
    sb_puts(&sub, "(SELECT ");
    const char **env = ARENA_ARRAY(a, const char *, nl + nr + 1);
    memcpy(env, r->env, sizeof *env * (size_t)nl);
    for (int i = 0; i < nr; i++) {
        env[nl + i] = arena_printf(a, "`_weir_r%d`", i);
        sb_printf(&sub, left ? "%stoNullable(%s) AS `_weir_r%d`" : "%s%s AS `_weir_r%d`", i ? ", " : "", tcols[i], i);
    }
    for (int k = 0; k < p->nkeys; k++) {
        const Expr *lk = p->left_keys[k], *rk = p->right_keys[k];
        if (lk->kind != EX_COLUMN || rk->kind != EX_COLUMN || lk->col >= nl || rk->col >= nr)
            return refuse(c, "a lookup join's keys must be plain columns");
        const char *le = r->env[lk->col];
        if (le[0] != '`') return refuse(c, "a lookup join's stream key must be a column of the stream as it lands");
        if (p->left_keys[k]->type.id != p->right_keys[k]->type.id)
            return refuse(c, "a lookup join's keys must have the same type");
        sb_printf(&sub, ", %s AS %s", tcols[rk->col], le);
        sb_printf(&using, "%s%s", k ? ", " : "", le);
        sb_printf(&notnull, "%sisNotNull(%s)", k ? " AND " : "", tcols[rk->col]);
        if (left) continue;
        if (r->where.len) sb_puts(&r->where, " AND ");
        sb_printf(&r->where, "isNotNull(%s)", le);
    }
    sb_printf(&sub, " FROM %s WHERE %s)", ts->table, sb_cstr(&notnull));
    r->join = arena_printf(a, " ALL %s JOIN %s AS `_weir_lookup` USING (%s)", left ? "LEFT" : "INNER", sb_cstr(&sub),
                           sb_cstr(&using));
    sb_free(&sub);
    sb_free(&using);
    sb_free(&notnull);
    r->env = env;
    r->n = nl + nr;
    return true;
}

/* storage settings from the model's `clickhouse:` config */
static const char *ident_rewrite(Arena *a, const char *expr, const ChModel *m, const PlanColumn *cols, int ncols,
                                 bool *ok)
{
    /* identifiers that name a model column become its physical column; strings and
     * everything else are kept */
    StrBuf b = STRBUF_INIT;
    for (const char *s = expr; *s;) {
        if (*s == '\'') {
            const char *e = s + 1;
            while (*e && *e != '\'') e += (*e == '\\' && e[1]) ? 2 : 1;
            if (*e) e++;
            sb_append(&b, s, (size_t)(e - s));
            s = e;
        } else if (*s == '_' || (*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z')) {
            const char *e = s;
            while (*e == '_' || (*e >= 'a' && *e <= 'z') || (*e >= 'A' && *e <= 'Z') || (*e >= '0' && *e <= '9')) e++;
            char *w = arena_strndup(a, s, (size_t)(e - s));
            bool col = false;
            for (int i = 0; i < ncols; i++)
                if (strcmp(cols[i].name, w) == 0) col = true;
            /* keys cannot be Nullable columns: a NULL sorts as the type's default */
            if (col) sb_printf(&b, "assumeNotNull(%s)", phys_col(a, m->name, w));
            else sb_puts(&b, w);
            s = e;
        } else if (*s == ';') {
            *ok = false;
            s++;
        } else {
            sb_putc(&b, *s++);
        }
    }
    char *r = arena_strdup(a, b.data ? sb_cstr(&b) : "");
    sb_free(&b);
    return r;
}

static void storage(ChProject *cp, ChModel *m, const ModelDef *def, const PlanColumn *cols, int ncols)
{
    Arena *a = &cp->arena;
    YNode *c = def->clickhouse;
    m->replay_policy = "full";
    if (!c) return;
    bool ok = true;
    const char *v;
    if ((v = yget_str(c, "engine")) && m->kind == CHK_STREAM) {
        static const char *const engines[] = {"MergeTree", "ReplacingMergeTree", "SummingMergeTree"};
        bool known = false;
        for (int i = 0; i < 3; i++)
            if (strncmp(v, engines[i], strlen(engines[i])) == 0) known = true;
        if (!known) {
            m->kind = CHK_REFUSED;
            m->why = arena_printf(a, "engine %s: a stream model is a MergeTree, ReplacingMergeTree or "
                                     "SummingMergeTree table", v);
            return;
        }
        m->engine = strchr(v, '(') ? v : arena_printf(a, "%s()", v);
    }
    YNode *ob = yaml_get(c, "order_by");
    if (ob && m->kind == CHK_STREAM) {
        StrBuf b = STRBUF_INIT;
        if (ob->kind == YNODE_SEQ) {
            for (int i = 0; i < ob->nitems; i++) {
                if (i) sb_puts(&b, ", ");
                sb_puts(&b, ob->items[i]->kind == YNODE_SCALAR
                                ? ident_rewrite(a, ob->items[i]->str, m, cols, ncols, &ok)
                                : "");
            }
        } else if (ob->kind == YNODE_SCALAR) {
            sb_puts(&b, ident_rewrite(a, ob->str, m, cols, ncols, &ok));
        }
        m->order_by = arena_printf(a, "(%s)", sb_cstr(&b));
        sb_free(&b);
    }
    if ((v = yget_str(c, "partition_by")))
        m->partition_by = arena_printf(a, "(`_weir_replay`, %s)", ident_rewrite(a, v, m, cols, ncols, &ok));
    if ((v = yget_str(c, "ttl"))) {
        if (!cp->caps.ttl) {
            m->kind = CHK_REFUSED;
            m->why = "`ttl` needs a server with TTL (19.6 or later); 18.16 has none";
            return;
        }
        m->ttl = ident_rewrite(a, v, m, cols, ncols, &ok);
    }
    YNode *st = yaml_get(c, "settings");
    if (st && st->kind == YNODE_MAP) {
        StrBuf b = STRBUF_INIT;
        for (int i = 0; i < st->npairs; i++) {
            const YNode *k = st->pairs[i].key, *val = st->pairs[i].value;
            if (k->kind != YNODE_SCALAR || val->kind != YNODE_SCALAR) continue;
            bool word = *k->str != '\0';
            for (const char *s = k->str; *s; s++)
                if (!(*s == '_' || (*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9'))) word = false;
            if (!word) {
                ok = false;
                continue;
            }
            if (b.len) sb_puts(&b, ", ");
            sb_printf(&b, "%s = ", k->str);
            char *end;
            strtod(val->str, &end);
            if (!val->quoted && *val->str && !*end) sb_puts(&b, val->str);
            else ch_strz(&b, val->str);
        }
        if (b.len) m->settings = arena_strdup(a, sb_cstr(&b));
        sb_free(&b);
    }
    if ((v = yget_str(c, "replay_on_change"))) {
        m->replay_policy = v;
        int64_t us;
        if (strncmp(v, "bounded-", 8) == 0 && project_parse_duration(v + 8, &us) && us > 0) m->bounded_us = us;
        else if (strcmp(v, "full") != 0) {
            m->kind = CHK_REFUSED;
            m->why = arena_printf(a, "replay_on_change: %s is neither `full` nor `bounded-<n><d|h|m|s>`", v);
            return;
        }
    }
    if ((v = yget_str(c, "bounded_replay_fallback"))) {
        if (strcmp(v, "bounded_without_history") == 0) m->bounded_without_history = true;
        else if (strcmp(v, "full") != 0) {
            m->kind = CHK_REFUSED;
            m->why = arena_printf(a, "bounded_replay_fallback: %s is neither `full` nor `bounded_without_history`", v);
            return;
        }
    }
    if (!ok) {
        m->kind = CHK_REFUSED;
        m->why = "a `clickhouse:` setting holds a `;` or a setting name that is not a plain word";
    }
}

static const char *cond_of(Arena *a, const char *arg, const char *filter)
{
    if (arg && filter) return arena_printf(a, "toUInt8(isNotNull(%s) AND ifNull(%s, 0) = 1)", arg, filter);
    if (arg) return arena_printf(a, "toUInt8(isNotNull(%s))", arg);
    if (filter) return arena_printf(a, "toUInt8(ifNull(%s, 0) = 1)", filter);
    return "toUInt8(1)";
}

/* The type an aggregate's value is kept in, and its result type. */
static bool agg_types(ChProject *cp, const AggCall *ac, const char **fn, const char **st, Type *rt, const char **why)
{
    Arena *a = &cp->arena;
    Type at = ac->arg ? ac->arg->type : type_make(T_INT8);
    *rt = ac->type;
    switch (ac->kind) {
    case AGG_SUM_SQUARES: return (*why = "variance(DISTINCT ...) and stddev(DISTINCT ...) are not translated yet"), false;
    case AGG_SUM:
        if (ac->distinct) return (*why = "sum(DISTINCT ...) is not translated yet"), false;
        *fn = "sum";
        if (at.id == T_INT2 || at.id == T_INT4) *st = "Int64";
        else if (at.id == T_INT8) *st = "Decimal(38, 0)";
        else if (at.id == T_NUMERIC) *st = arena_printf(a, "Decimal(38, %d)", at.scale >= 0 ? at.scale : 10);
        else if (type_is_float(at)) *st = "Float64";
        else return (*why = "sum of this type"), false;
        if (rt->id == T_NUMERIC && rt->scale < 0)
            *rt = type_numeric(38, at.id == T_NUMERIC ? (at.scale >= 0 ? at.scale : 10) : 0);
        return true;
    case AGG_MIN:
    case AGG_MAX:
    case AGG_BOOL_AND:
    case AGG_BOOL_OR:
        if (ac->distinct && ac->kind != AGG_MIN && ac->kind != AGG_MAX) return (*why = "DISTINCT here"), false;
        *fn = (ac->kind == AGG_MIN || ac->kind == AGG_BOOL_AND) ? "min" : "max";
        *st = chx_type(at, &cp->caps, true, a, why);
        if (rt->id == T_NUMERIC && rt->scale < 0 && at.id == T_NUMERIC) *rt = at;
        return *st != NULL;
    case AGG_AVG:
        if (!type_is_float(at))
            return (*why = "avg of integers and numerics: PostgreSQL's numeric scale has no ClickHouse equivalent; "
                           "use sum() and count()"),
                   false;
        *fn = "avg";
        *st = "Float64";
        return true;
    case AGG_COUNT:
    case AGG_COUNT_STAR:
        if (ac->distinct) {
            *fn = "uniqExact";
            *st = chx_type(at, &cp->caps, true, a, why);
            return *st != NULL;
        }
        *fn = "count";
        *st = NULL;
        return true;
    default: return (*why = arena_printf(a, "aggregate %s", agg_kind_name(ac->kind))), false;
    }
}

static bool realize_aggregate(Ctx *c, ChModel *m, const IrNode *agg, const IrNode **above, int nabove,
                              const PlanColumn *outcols, int noutcols)
{
    ChProject *cp = c->cp;
    Arena *a = &cp->arena;
    const PlanNode *p = agg->plan;
    if (agg->inputs[0]->mode != CL_INSERT_ONLY)
        return refuse(c, "its input carries updates or deletes (an aggregate's -State columns only add)");
    Rel r = {0};
    r.in_source = -1;
    if (!rel_of(c, agg->inputs[0], &r)) {
        sb_free(&r.where);
        return false;
    }
    m->replay_time = cp->models_replay_time;
    bool window = p->window_start_key >= 0 || p->window_end_key >= 0;
    if (window && r.in_source < 0) {
        sb_free(&r.where);
        return refuse(c, "a window aggregate over another model is not translated yet");
    }
    m->in_source = r.in_source;
    StrBuf cols = STRBUF_INIT, sel = STRBUF_INIT, grp = STRBUF_INIT, inner = STRBUF_INIT;
    const char **env = ARENA_ARRAY(a, const char *, p->ngroup + p->naggs);
    bool ok = true;
    sb_puts(&sel, "SELECT ");
    sb_puts(&inner, "SELECT ");
    for (int i = 0; i < p->ngroup && ok; i++) {
        const char *why = NULL;
        const char *k = chx_expr_str(p->group[i], r.env, r.n, &cp->caps, a, &why);
        const char *nt = k ? chx_type(p->group[i]->type, &cp->caps, true, a, &why) : NULL;
        const char *t = nt ? chx_type(p->group[i]->type, &cp->caps, false, a, &why) : NULL;
        if (!t) {
            ok = refuse(c, why);
            break;
        }
        const char *kc = q(a, arena_printf(a, "%s__k%d", m->name, i));
        const char *kn = q(a, arena_printf(a, "%s__k%d__null", m->name, i));
        sb_printf(&cols, "%s%s %s, %s UInt8", i ? ", " : "", kc, nt, kn);
        sb_printf(&sel, "%sassumeNotNull(CAST(%s AS %s)) AS %s, toUInt8(isNull(%s)) AS %s", i ? ", " : "", k, t, kc,
                  k, kn);
        sb_printf(&grp, "%s%s, %s", i ? ", " : "", kc, kn);
        sb_printf(&inner, "%sif(%s = 1, CAST(NULL AS %s), CAST(%s AS %s)) AS `__k%d`", i ? ", " : "", kn, t, kc, t, i);
        env[i] = arena_printf(a, "`__k%d`", i);
    }
    for (int j = 0; j < p->naggs && ok; j++) {
        const AggCall *ac = &p->aggs[j];
        const char *fn = NULL, *st = NULL, *why = NULL;
        Type rt;
        if (!agg_types(cp, ac, &fn, &st, &rt, &why)) {
            ok = refuse(c, why);
            break;
        }
        const char *arg = NULL, *filter = NULL;
        if (ac->arg && !(arg = chx_expr_str(ac->arg, r.env, r.n, &cp->caps, a, &why))) {
            ok = refuse(c, why);
            break;
        }
        if (ac->filter && !(filter = chx_expr_str(ac->filter, r.env, r.n, &cp->caps, a, &why))) {
            ok = refuse(c, why);
            break;
        }
        const char *rty = chx_type(rt, &cp->caps, false, a, &why);
        if (!rty) {
            ok = refuse(c, why);
            break;
        }
        const char *cond = cond_of(a, arg, filter);
        const char *nc = q(a, arena_printf(a, "%s__a%d_n", m->name, j));
        sb_printf(&cols, "%s%s AggregateFunction(countIf, UInt8)", cols.len ? ", " : "", nc);
        sb_printf(&sel, "%scountIfState(%s) AS %s", (p->ngroup || j) ? ", " : "", cond, nc);
        if (st) {
            const char *vc = q(a, arena_printf(a, "%s__a%d", m->name, j));
            sb_printf(&cols, ", %s AggregateFunction(%sIf, %s, UInt8)", vc, fn, st);
            sb_printf(&sel, ", %sIfState(CAST(assumeNotNull(%s) AS %s), %s) AS %s", fn, arg, st, cond, vc);
            if (strcmp(fn, "uniqExact") == 0)
                sb_printf(&inner, "%sCAST(uniqExactIfMerge(%s) AS %s) AS `__a%d`", (p->ngroup || j) ? ", " : "", vc, rty,
                          j);
            else
                sb_printf(&inner, "%sif(countIfMerge(%s) = 0, CAST(NULL AS %s), CAST(%sIfMerge(%s) AS %s)) AS `__a%d`",
                          (p->ngroup || j) ? ", " : "", nc, rty, fn, vc, rty, j);
        } else {
            sb_printf(&inner, "%sCAST(countIfMerge(%s) AS %s) AS `__a%d`", (p->ngroup || j) ? ", " : "", nc, rty, j);
        }
        env[p->ngroup + j] = arena_printf(a, "`__a%d`", j);
    }
    if (ok && window) {
        /* the newest event time seen, for the watermark that closes windows */
        const char *ts = cp->caps.datetime64 ? "DateTime64(6, 'UTC')" : "DateTime('UTC')";
        sb_printf(&cols, ", `%s__wm` AggregateFunction(max, %s)", m->name, ts);
        sb_printf(&sel, ", maxState(CAST(assumeNotNull(%s) AS %s)) AS `%s__wm`", r.time_sql, ts, m->name);
    }
    if (ok) {
        sb_printf(&sel, ", toUInt8(" CH_FLAG ") AS `_weir_replay` FROM " CH_IN);
        if (r.join) sb_puts(&sel, r.join);
        sb_printf(&sel, " WHERE %s%s" CH_FENCE, sb_cstr(&r.where), r.where.len ? " AND " : "");
        if (grp.len) sb_printf(&sel, " GROUP BY %s, `_weir_replay`", sb_cstr(&grp));
        else sb_puts(&sel, " GROUP BY `_weir_replay`");
        sb_puts(&cols, ", `_weir_replay` UInt8");
        sb_printf(&inner, " FROM " CH_PHYS);
        if (grp.len) sb_printf(&inner, " GROUP BY %s", sb_cstr(&grp));
        /* the view: what is above the aggregate (HAVING, the projection) over the merged rows */
        int n = p->ngroup + p->naggs;
        StrBuf where = STRBUF_INIT;
        if (window) {
            const SourceDef *sd = &cp->g->project->sources[r.in_source];
            int we = p->window_end_key;
            const char *wend = we >= 0 ? env[we] : NULL;
            if (!wend) {
                /* only window_start is grouped: its end is start + size */
                wend = cp->caps.datetime64
                           ? arena_printf(a, "(%s + toIntervalMicrosecond(%lld))", env[p->window_start_key],
                                          (long long)r.size_us)
                           : arena_printf(a, "(%s + %lld)", env[p->window_start_key], (long long)(r.size_us / 1000000));
            }
            const char *wm = cp->caps.datetime64
                                 ? arena_printf(a, "(SELECT maxMerge(`%s__wm`) - toIntervalMicrosecond(%lld) FROM " CH_PHYS ")",
                                                m->name, (long long)sd->watermark_delay_us)
                                 : arena_printf(a, "(SELECT maxMerge(`%s__wm`) - %lld FROM " CH_PHYS ")", m->name,
                                                (long long)(sd->watermark_delay_us / 1000000));
            sb_printf(&where, "ifNull(%s <= %s, 0) = 1", wend, wm);
        }
        for (int i = nabove - 1; i >= 0 && ok; i--) {
            const PlanNode *up = above[i]->plan;
            const char *why = NULL;
            if (up->kind == PL_FILTER) {
                const char *s = chx_expr_str(up->pred, env, n, &cp->caps, a, &why);
                if (!s) ok = refuse(c, why);
                else sb_printf(&where, "%sifNull(%s, 0) = 1", where.len ? " AND " : "", s);
            } else {
                const char **e2 = ARENA_ARRAY(a, const char *, up->nexprs);
                for (int k = 0; k < up->nexprs && ok; k++)
                    if (!(e2[k] = chx_expr_str(up->exprs[k], env, n, &cp->caps, a, &why))) ok = refuse(c, why);
                env = e2;
                n = up->nexprs;
                if (where.len && i > 0) ok = refuse(c, "a filter between two projections above an aggregate");
            }
        }
        if (ok) {
            StrBuf v = STRBUF_INIT;
            sb_puts(&v, "SELECT ");
            for (int i = 0; i < noutcols; i++) {
                /* an unconstrained numeric keeps the scale of what computes it */
                Type t = outcols[i].type;
                const char *e = t.id == T_NUMERIC && t.scale < 0 ? env[i] : chx_cast(env[i], t, &cp->caps, a);
                sb_printf(&v, "%s%s AS %s", i ? ", " : "", e, q(a, outcols[i].name));
            }
            sb_printf(&v, " FROM (%s)", sb_cstr(&inner));
            if (where.len) sb_printf(&v, " WHERE %s", sb_cstr(&where));
            m->view_select = arena_strdup(a, sb_cstr(&v));
            sb_free(&v);
            m->columns = arena_strdup(a, sb_cstr(&cols));
            m->mv_select = arena_strdup(a, sb_cstr(&sel));
            m->engine = "AggregatingMergeTree()";
            m->order_by = grp.len ? arena_printf(a, "(%s)", sb_cstr(&grp)) : "tuple()";
            m->kind = window ? CHK_WINDOW : CHK_AGGREGATE;
            m->how = window ? "an AggregatingMergeTree of -State columns per window, fed by a materialized view, "
                              "behind a view that shows the windows the watermark has closed"
                            : "an AggregatingMergeTree of -State columns fed by a materialized view, behind a view "
                              "that merges them into weir's upsert result";
        }
        sb_free(&where);
    }
    sb_free(&cols);
    sb_free(&sel);
    sb_free(&grp);
    sb_free(&inner);
    sb_free(&r.where);
    return ok;
}

static bool realize_stream(Ctx *c, ChModel *m, const IrNode *root, const PlanColumn *outcols, int noutcols,
                           bool distinct)
{
    ChProject *cp = c->cp;
    Arena *a = &cp->arena;
    Rel r = {0};
    r.in_source = -1;
    bool ok = rel_of(c, root, &r);
    if (ok && r.window) ok = refuse(c, "a window without an aggregate over it is not translated yet");
    m->replay_time = cp->models_replay_time;
    if (ok) {
        m->in_source = r.in_source;
            StrBuf cols = STRBUF_INIT, sel = STRBUF_INIT, view = STRBUF_INIT, ord = STRBUF_INIT;
        sb_puts(&sel, "SELECT ");
        sb_puts(&view, distinct ? "SELECT DISTINCT " : "SELECT ");
        for (int i = 0; i < noutcols && ok; i++) {
            const char *why = NULL;
            const char *t = chx_type(outcols[i].type, &cp->caps, false, a, &why);
            if (!t) {
                ok = refuse(c, arena_printf(a, "column %s: %s", outcols[i].name, why));
                break;
            }
            const char *pc = phys_col(a, m->name, outcols[i].name);
            sb_printf(&cols, "%s %s, ", pc, t);
            sb_printf(&sel, "CAST(%s AS %s) AS %s, ", r.env[i], t, pc);
            if (!distinct && r.replay_time_env && strcmp(r.env[i], r.replay_time_env) == 0 && !m->seed_col)
                m->seed_col = arena_printf(a, "%s__%s", m->name, outcols[i].name);
            sb_printf(&view, "%s%s AS %s", i ? ", " : "", pc, q(a, outcols[i].name));
            sb_printf(&ord, "%sassumeNotNull(%s), isNull(%s)", i ? ", " : "", pc, pc);
        }
        if (ok) {
            sb_puts(&cols, "`_weir_replay` UInt8");
            sb_puts(&sel, "toUInt8(" CH_FLAG ") AS `_weir_replay` FROM " CH_IN);
            if (r.join) sb_puts(&sel, r.join);
            sb_printf(&sel, " WHERE %s%s" CH_FENCE, sb_cstr(&r.where), r.where.len ? " AND " : "");
            sb_puts(&view, " FROM " CH_PHYS);
            m->columns = arena_strdup(a, sb_cstr(&cols));
            m->mv_select = arena_strdup(a, sb_cstr(&sel));
            m->view_select = arena_strdup(a, sb_cstr(&view));
            m->kind = distinct ? CHK_DISTINCT : CHK_STREAM;
            m->engine = distinct ? "ReplacingMergeTree()" : "MergeTree()";
            m->order_by = distinct ? arena_printf(a, "(%s)", sb_cstr(&ord)) : "tuple()";
            m->how = distinct ? "a ReplacingMergeTree fed by a materialized view, behind a view with SELECT DISTINCT"
                              : "a MergeTree table fed by a materialized view";
        }
        sb_free(&cols);
        sb_free(&sel);
        sb_free(&view);
        sb_free(&ord);
    }
    sb_free(&r.where);
    return ok;
}

/* A native model's table and view (ChModel.native_*). False (with m->why) when a
 * column has no ClickHouse type. */
static bool realize_native(ChProject *cp, ChModel *m, const IrModel *im, const PlanColumn *cols, int ncols)
{
    Arena *a = &cp->arena;
    StrBuf d = STRBUF_INIT, v = STRBUF_INIT, k = STRBUF_INIT;
    sb_puts(&v, "SELECT ");
    m->native_col_names = ARENA_ARRAY(a, const char *, ncols + 1);
    m->native_col_types = ARENA_ARRAY(a, const char *, ncols + 1);
    m->native_ncols = ncols;
    for (int i = 0; i < ncols; i++) {
        const char *why = NULL;
        const char *t = chx_type(cols[i].type, &cp->caps, false, a, &why);
        if (!t) {
            m->why = arena_printf(a, "%s; and its column %s cannot be written to ClickHouse: %s", m->why,
                                  cols[i].name, why);
            sb_free(&d);
            sb_free(&v);
            sb_free(&k);
            return false;
        }
        m->native_col_names[i] = arena_strdup(a, cols[i].name);
        m->native_col_types[i] = arena_strdup(a, t);
        sb_printf(&d, "%s %s, ", q(a, cols[i].name), t);
        sb_printf(&v, "%s%s", i ? ", " : "", q(a, cols[i].name));
    }
    sb_puts(&d, "`_weir_version` UInt64, `_weir_delivery` UInt64, `_weir_deleted` UInt8");
    bool keyed = im->nout_key > 0;
    for (int i = 0; keyed && i < im->nout_key; i++) {
        const char *c = q(a, cols[im->out_key[i]].name);
        /* keys cannot be Nullable columns: a NULL sorts apart as isNull */
        sb_printf(&k, "%sassumeNotNull(%s), isNull(%s)", i ? ", " : "", c, c);
    }
    m->native_order_by_key = keyed;
    m->native_ddl_tail = keyed ? arena_printf(a, "(%s) ENGINE = ReplacingMergeTree(`_weir_version`) ORDER BY (%s)",
                                              sb_cstr(&d), sb_cstr(&k))
                               : arena_printf(a, "(%s) ENGINE = MergeTree() ORDER BY tuple()", sb_cstr(&d));
    m->native_view_select = arena_printf(a, "%s FROM %s%s", sb_cstr(&v), CH_PHYS,
                                         keyed ? " FINAL WHERE `_weir_deleted` = 0" : "");
    sb_free(&d);
    sb_free(&v);
    sb_free(&k);
    return true;
}

const char *ch_native_table_ddl(const ChProject *cp, const ChModel *m, const char *db, const char *table)
{
    Arena *a = (Arena *)&cp->arena;
    StrBuf b = STRBUF_INIT;
    sb_puts(&b, "CREATE TABLE IF NOT EXISTS ");
    ch_qual(&b, db, table);
    sb_printf(&b, " %s", m->native_ddl_tail);
    char *s = arena_strdup(a, sb_cstr(&b));
    sb_free(&b);
    return s;
}

const char *ch_native_view_ddl(const ChProject *cp, const ChModel *m, const char *db, const char *table)
{
    Arena *a = (Arena *)&cp->arena;
    StrBuf b = STRBUF_INIT, t = STRBUF_INIT;
    ch_qual(&t, db, table);
    sb_puts(&b, "CREATE VIEW IF NOT EXISTS ");
    ch_qual(&b, db, m->name);
    sb_printf(&b, " AS %s", ch_fill(a, m->native_view_select, NULL, sb_cstr(&t), NULL));
    char *s = arena_strdup(a, sb_cstr(&b));
    sb_free(&b);
    sb_free(&t);
    return s;
}

static void realize_model(ChProject *cp, int mi)
{
    Arena *a = &cp->arena;
    const IrModel *im = &cp->g->models[mi];
    const ModelDef *def = im->def;
    ChModel *m = &cp->models[mi];
    m->name = def->name;
    m->index = mi;
    m->in_source = -1;
    if (def->materialized == MAT_EPHEMERAL) {
        m->kind = CHK_EPHEMERAL;
        m->how = "inlined into the models that read it";
        return;
    }
    if (!im->root) {
        m->kind = CHK_REFUSED;
        m->why = "the model does not compile";
        return;
    }
    if (strstr(def->name, "__") || strncmp(def->name, "_weir", 5) == 0) {
        m->kind = CHK_REFUSED;
        m->why = "a model name with `__` or starting with `_weir` collides with weir's ClickHouse object names";
        return;
    }
    YNode *lk = def->clickhouse ? yaml_get(def->clickhouse, "lookup") : NULL;
    Ctx c = {cp, NULL, lk && lk->kind == YNODE_SCALAR && (strcmp(lk->str, "true") == 0 || strcmp(lk->str, "yes") == 0)};
    const IrNode *above[64];
    int nabove = 0;
    const IrNode *n = im->root;
    while ((n->plan->kind == PL_PROJECT || n->plan->kind == PL_FILTER) && nabove < 64 &&
           n->inputs[0]->model == n->model) {
        const IrNode *in = n->inputs[0];
        const IrNode *k = in;
        while ((k->plan->kind == PL_PROJECT || k->plan->kind == PL_FILTER) && k->inputs[0]->model == n->model)
            k = k->inputs[0];
        if (k->plan->kind != PL_AGGREGATE && k->plan->kind != PL_DISTINCT) break;
        above[nabove++] = n;
        n = in;
    }
    const PlanColumn *outcols = im->root->plan->cols;
    int noutcols = im->root->plan->ncols;
    bool ok;
    if (n->plan->kind == PL_AGGREGATE) {
        ok = realize_aggregate(&c, m, n, above, nabove, outcols, noutcols);
    } else if (n->plan->kind == PL_DISTINCT && nabove == 0) {
        ok = realize_stream(&c, m, n->inputs[0], outcols, noutcols, true);
    } else {
        ok = realize_stream(&c, m, n, outcols, noutcols, false);
    }
    const char *unread = ok && m->mv_select ? strchr(m->mv_select, '\x05') : NULL;
    if (!unread && ok && m->view_select) unread = strchr(m->view_select, '\x05');
    if (unread) {
        /* it reads a lineage column the source does not have */
        const char *end = strchr(unread, '\x06');
        c.why = arena_strndup(a, unread + 1, end ? (size_t)(end - unread - 1) : strlen(unread + 1));
        m->how = m->mv_select = m->view_select = m->columns = NULL;
        ok = false;
    }
    if (ok) {
        storage(cp, m, def, outcols, noutcols);
        return;
    }
    m->why = c.why ? c.why : "not translated";
    m->kind = cp->native_fallback ? CHK_NATIVE : CHK_REFUSED;
    m->how = m->mv_select = m->view_select = m->columns = NULL;
    if (m->kind == CHK_NATIVE && !realize_native(cp, m, im, outcols, noutcols)) {
        m->kind = CHK_REFUSED;
    }
    if (m->kind == CHK_NATIVE)
        m->how = m->native_order_by_key
                     ? "computed by weir's native runtime (weir run on this target) and written by a ClickHouse sink "
                       "into a ReplacingMergeTree versioned by the delivery sequence, read through a FINAL view"
                     : "computed by weir's native runtime (weir run on this target) and appended by a ClickHouse sink "
                       "into a MergeTree";
    else cp->nrefused++;
    (void)a;
}

void ch_project_init(ChProject *cp, const IrGraph *g, const ChCaps *caps) { ch_project_init_in(cp, g, caps, NULL); }

void ch_project_init_in(ChProject *cp, const IrGraph *g, const ChCaps *caps, const char *database)
{
    memset(cp, 0, sizeof *cp);
    arena_init(&cp->arena, 1 << 16);
    cp->g = g;
    cp->caps = *caps;
    cp->database = database ? arena_strdup(&cp->arena, database) : NULL;
    const Project *p = g->project;
    const char *nf = p->target ? yget_str(p->target->node, "native_fallback") : NULL;
    cp->native_fallback = nf && (strcmp(nf, "true") == 0 || strcmp(nf, "yes") == 0);
    cp->nsources = p->nsources;
    cp->sources = ARENA_ARRAY(&cp->arena, ChSource, p->nsources ? p->nsources : 1);
    for (int i = 0; i < p->nsources; i++) init_source(cp, &cp->sources[i], &p->sources[i], i);
    cp->nmodels = g->nmodels;
    cp->models = ARENA_ARRAY(&cp->arena, ChModel, g->nmodels ? g->nmodels : 1);
    /* upstream first: a model's realization depends on its inputs' */
    const BoundProject *bp = g->bound;
    for (int t = 0; t < bp->ntopo; t++) realize_model(cp, bp->topo[t]);
    for (int i = 0; i < g->nmodels; i++)
        if (!cp->models[i].name) {
            cp->models[i].name = g->models[i].def->name;
            cp->models[i].index = i;
            cp->models[i].kind = CHK_REFUSED;
            cp->models[i].why = "the model is part of a ref() cycle";
            cp->models[i].in_source = -1;
            cp->nrefused++;
        }
}

void ch_project_fini(ChProject *cp) { arena_fini(&cp->arena); }

/* ---- DDL ---- */

const char *ch_table_ddl(const ChProject *cp, const ChModel *m, const char *db, const char *table)
{
    Arena *a = (Arena *)&cp->arena;
    StrBuf b = STRBUF_INIT;
    sb_puts(&b, "CREATE TABLE IF NOT EXISTS ");
    ch_qual(&b, db, table);
    sb_printf(&b, " (%s) ENGINE = %s PARTITION BY %s ORDER BY %s", m->columns, m->engine ? m->engine : "MergeTree()",
              m->partition_by ? m->partition_by : "`_weir_replay`", m->order_by ? m->order_by : "tuple()");
    if (m->ttl) sb_printf(&b, " TTL %s", m->ttl);
    if (m->settings) sb_printf(&b, " SETTINGS %s", m->settings);
    char *s = arena_strdup(a, sb_cstr(&b));
    sb_free(&b);
    return s;
}

const char *ch_mv_ddl(const ChProject *cp, const ChModel *m, const char *db, const char *mv, const char *table,
                      const char *in)
{
    return ch_mv_ddl_fenced(cp, m, db, mv, table, in, "1");
}

const char *ch_mv_ddl_fenced(const ChProject *cp, const ChModel *m, const char *db, const char *mv, const char *table,
                             const char *in, const char *fence)
{
    Arena *a = (Arena *)&cp->arena;
    StrBuf b = STRBUF_INIT;
    sb_puts(&b, "CREATE MATERIALIZED VIEW IF NOT EXISTS ");
    ch_qual(&b, db, mv);
    sb_puts(&b, " TO ");
    ch_qual(&b, db, table);
    sb_printf(&b, " AS %s", ch_fill_fence(a, m->mv_select, in, NULL, "0", fence));
    char *s = arena_strdup(a, sb_cstr(&b));
    sb_free(&b);
    return s;
}

const char *ch_view_select(const ChProject *cp, const ChModel *m, const char *phys, const char *in)
{
    return ch_fill((Arena *)&cp->arena, m->view_select, in, phys, "0");
}

const char *ch_kafka_ddl(const ChProject *cp, const ChSource *s, const char *db, const char *name,
                         const char *brokers, const char *group)
{
    Arena *a = (Arena *)&cp->arena;
    StrBuf b = STRBUF_INIT;
    sb_puts(&b, "CREATE TABLE IF NOT EXISTS ");
    ch_qual(&b, db, name);
    sb_printf(&b, " (%s) ENGINE = Kafka SETTINGS kafka_broker_list = ", s->kafka_columns);
    ch_strz(&b, brokers);
    sb_puts(&b, ", kafka_topic_list = ");
    ch_strz(&b, s->topic ? s->topic : "");
    sb_puts(&b, ", kafka_group_name = ");
    ch_strz(&b, group);
    sb_puts(&b, ", kafka_format = ");
    ch_strz(&b, s->format);
    /* a block of messages is inserted and its offsets committed at once: bigger blocks
     * mean fewer parts, smaller ones fresher rows (18.16 flushes a block when it is full
     * or the topic is idle) */
    sb_printf(&b, ", kafka_max_block_size = %d", s->max_block_size);
    char *r = arena_strdup(a, sb_cstr(&b));
    sb_free(&b);
    return r;
}

const char *ch_raw_ddl(const ChProject *cp, const ChSource *s, const char *db, const char *name)
{
    Arena *a = (Arena *)&cp->arena;
    StrBuf b = STRBUF_INIT;
    sb_puts(&b, "CREATE TABLE IF NOT EXISTS ");
    ch_qual(&b, db, name);
    sb_printf(&b, " (%s) ENGINE = MergeTree() PARTITION BY toYYYYMMDD(`_replay_landed_at`) ORDER BY %s",
              s->raw_columns,
              cp->caps.kafka_virtual ? "(`_replay_partition`, `_replay_offset`)" : "`_replay_landed_at`");
    char *r = arena_strdup(a, sb_cstr(&b));
    sb_free(&b);
    return r;
}

const char *ch_landing_mv_ddl(const ChProject *cp, const ChSource *s, const char *db, const char *mv,
                              const char *raw, const char *kafka)
{
    Arena *a = (Arena *)&cp->arena;
    StrBuf b = STRBUF_INIT, k = STRBUF_INIT;
    ch_qual(&k, db, kafka);
    sb_puts(&b, "CREATE MATERIALIZED VIEW IF NOT EXISTS ");
    ch_qual(&b, db, mv);
    sb_puts(&b, " TO ");
    ch_qual(&b, db, raw);
    sb_printf(&b, " AS %s", ch_fill(a, s->landing_select, sb_cstr(&k), NULL, NULL));
    char *r = arena_strdup(a, sb_cstr(&b));
    sb_free(&b);
    sb_free(&k);
    return r;
}

void ch_explain(const ChProject *cp, StrBuf *out)
{
    sb_printf(out, "ClickHouse realization (server %s)\n", cp->caps.version);
    for (int i = 0; i < cp->nsources; i++) {
        const ChSource *s = &cp->sources[i];
        if (s->managed)
            sb_printf(out, "  source %-24s managed Kafka landing: kafka__%s__D -> mv__%s__D -> raw__%s__D "
                           "(replay lineage: %s)\n",
                      s->name, s->object, s->object, s->object, s->boundary_mode);
        else if (s->adopted)
            sb_printf(out, "  source %-24s adopted table %s (replay boundary: %s)\n", s->name, s->table,
                      s->boundary_mode);
        else sb_printf(out, "  source %-24s not available: %s\n", s->name, s->why);
    }
    for (int t = 0; t < cp->g->bound->ntopo; t++) {
        const ChModel *m = &cp->models[cp->g->bound->topo[t]];
        sb_printf(out, "  model  %-24s %s", m->name, ch_kind_name(m->kind));
        if (m->how) sb_printf(out, ": %s", m->how);
        if (m->why) sb_printf(out, "%s%s", m->how ? "\n         because ClickHouse cannot maintain " : ": ", m->why);
        sb_putc(out, '\n');
        if (m->bounded_us > 0 && (m->kind == CHK_STREAM || m->kind == CHK_AGGREGATE || m->kind == CHK_WINDOW ||
                                  m->kind == CHK_DISTINCT))
            sb_printf(out, "         replay on change: %s of %s; %s\n", m->replay_policy,
                      m->replay_time ? m->replay_time : "(no replay time: full)",
                      m->seed_col ? arena_printf((Arena *)&cp->arena, "older rows seeded from the active table by %s",
                                                 m->seed_col)
                                  : m->bounded_without_history ? "older history dropped"
                                                               : "no replay time kept in the table: full replay");
    }
}
