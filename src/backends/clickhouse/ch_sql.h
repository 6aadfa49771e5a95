/* weir's typed expressions and types as ClickHouse SQL. Every identifier is quoted,
 * every literal escaped. The translation keeps PostgreSQL's meaning where ClickHouse
 * differs (three-valued AND/OR, NULL-safe comparisons, integer division, SUM over no
 * rows) and refuses, with the reason, what it cannot reproduce exactly. Column
 * references are replaced by the SQL of the input column (`env`), so a chain of
 * projections and filters becomes one flat SELECT: 18.16's materialized views read
 * only a table in FROM, never a subquery. */
#ifndef WEIR_BACKENDS_CLICKHOUSE_CH_SQL_H
#define WEIR_BACKENDS_CLICKHOUSE_CH_SQL_H

#include "backends/clickhouse/ch_client.h"
#include "sql/plan.h"

#include <stdbool.h>

/* The ClickHouse type of a weir column, Nullable unless `not_null`. Returns NULL with
 * *why set for a type ClickHouse cannot store exactly (interval, numeric beyond 38
 * digits). The string lives in a. */
const char *chx_type(Type t, const ChCaps *caps, bool not_null, Arena *a, const char **why);

/* Translate e, whose column i is the SQL env[i]. Returns false with *why (an arena
 * string) when e cannot be translated exactly. */
bool chx_expr(const Expr *e, const char *const *env, int nenv, const ChCaps *caps, Arena *a, StrBuf *out,
              const char **why);
/* e as an arena string, or NULL with *why. */
const char *chx_expr_str(const Expr *e, const char *const *env, int nenv, const ChCaps *caps, Arena *a,
                         const char **why);
/* A CAST of sql to the ClickHouse type of t (Nullable). */
const char *chx_cast(const char *sql, Type t, const ChCaps *caps, Arena *a);

#endif
