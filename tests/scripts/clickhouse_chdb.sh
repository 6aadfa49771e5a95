#!/usr/bin/env bash
# The SQL weir writes for current ClickHouse servers (target/clickhouse/current/), run by
# chdb, a current ClickHouse engine from PyPI (scripts/install-deps installs it); see
# tests/scripts/clickhouse_chdb.py. The 18.16 SQL runs against a real server in
# tests/scripts/clickhouse.sh.
source "$(dirname "$0")/lib.sh"
P=$(copy_project "$ROOT/tests/clickhouse/shop" shop)
"$WEIR" --project-dir "$P" compile > "$TMP/compile" 2>&1 || { cat "$TMP/compile"; echo "0 passed, 1 failed"; exit 1; }
"$WEIR" --project-dir "$P" compile > /dev/null 2>&1
cp -r "$P/target/clickhouse" "$TMP/first"
"$WEIR" --project-dir "$P" compile > /dev/null 2>&1
if ! diff -r "$TMP/first" "$P/target/clickhouse" > "$TMP/d"; then cat "$TMP/d"; echo "0 passed, 1 failed"; exit 1; fi
"$ROOT/scripts/chdb-python" "$ROOT/tests/scripts/clickhouse_chdb.py" "$P/target/clickhouse/current/deployment.sql"
