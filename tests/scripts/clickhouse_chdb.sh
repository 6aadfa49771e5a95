#!/usr/bin/env bash
# The SQL weir writes for current ClickHouse servers (target/clickhouse/current/), run by
# chdb, a current ClickHouse engine from PyPI (scripts/install-deps installs it); see
# tests/scripts/clickhouse_chdb.py. The 18.16 SQL runs against a real server in
# tests/scripts/clickhouse.sh.
source "$(dirname "$0")/lib.sh"
P=$(copy_project "$ROOT/tests/clickhouse/shop" shop)
# a model reading the replay lineage (current servers: the Kafka engine's virtual columns)
cat > "$P/models/order_positions.sql" <<'SQL'
SELECT order_id, _replay_partition AS part, _replay_offset AS pos, _replay_landed_at IS NOT NULL AS landed
FROM source('shop.orders')
SQL
"$WEIR" --project-dir "$P" compile > "$TMP/compile" 2>&1 || { cat "$TMP/compile"; echo "0 passed, 1 failed"; exit 1; }
"$WEIR" --project-dir "$P" compile > /dev/null 2>&1
cp -r "$P/target/clickhouse" "$TMP/first"
"$WEIR" --project-dir "$P" compile > /dev/null 2>&1
if ! diff -r "$TMP/first" "$P/target/clickhouse" > "$TMP/d"; then cat "$TMP/d"; echo "0 passed, 1 failed"; exit 1; fi
# 18.16 has no virtual columns: the model is refused there with the reason
grep -q "model order_positions: refused (_replay_partition of source shop.orders needs the Kafka engine's virtual columns" \
  "$P/target/clickhouse/18.16/deployment.sql" || { echo "FAIL: 18.16 refuses _replay_partition"; echo "0 passed, 1 failed"; exit 1; }
"$ROOT/scripts/chdb-python" "$ROOT/tests/scripts/clickhouse_chdb.py" "$P/target/clickhouse/current/deployment.sql"
