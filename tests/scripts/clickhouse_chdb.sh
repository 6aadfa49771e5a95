#!/usr/bin/env bash
# The SQL weir writes for current ClickHouse servers (target/clickhouse/current/), run by
# chdb, a current ClickHouse engine from PyPI (scripts/install-deps installs it); see
# tests/scripts/clickhouse_chdb.py: the deployment's statements, the rows of its views
# (a LEFT JOIN lookup among them), and the history replay of every model (replay.sql)
# over raw landing rows the test writes. The 18.16 SQL runs against a real server in
# tests/scripts/clickhouse.sh.
source "$(dirname "$0")/lib.sh"
P=$(copy_project "$ROOT/tests/clickhouse/shop" shop)
# a model reading the replay lineage (current servers: the Kafka engine's virtual columns)
cat > "$P/models/order_positions.sql" <<'SQL'
SELECT order_id, _replay_partition AS part, _replay_offset AS pos, _replay_timestamp AS ts,
       _replay_landed_at IS NOT NULL AS landed
FROM source('shop.orders')
SQL
# a LEFT JOIN lookup over the managed landing (current servers; 18.16 refuses it): the
# customers table is created by clickhouse_chdb.py
cat > "$P/sources/customers.yml" <<'YML'
sources:
  shop.customers:
    connector: clickhouse
    kind: stream_table
    table: customers   # in the target database
    columns: {customer_id: bigint, name: text}
YML
cat > "$P/models/order_names.sql" <<'SQL'
SELECT o.order_id, c.name
FROM source('shop.orders') AS o
LEFT JOIN source('shop.customers') AS c ON o.customer_id = c.customer_id
SQL
cat >> "$P/models/schema.yml" <<'YML'
  order_names:
    materialized: retract
    clickhouse: {lookup: true}
YML
"$WEIR" --project-dir "$P" compile > "$TMP/compile" 2>&1 || { cat "$TMP/compile"; echo "0 passed, 1 failed"; exit 1; }
"$WEIR" --project-dir "$P" compile > /dev/null 2>&1
cp -r "$P/target/clickhouse" "$TMP/first"
"$WEIR" --project-dir "$P" compile > /dev/null 2>&1
if ! diff -r "$TMP/first" "$P/target/clickhouse" > "$TMP/d"; then cat "$TMP/d"; echo "0 passed, 1 failed"; exit 1; fi
# 18.16 has no virtual columns: the model is refused there with the reason
grep -q "model order_positions: refused (_replay_partition of source shop.orders needs the Kafka engine's virtual columns" \
  "$P/target/clickhouse/18.16/deployment.sql" || { echo "FAIL: 18.16 refuses _replay_partition"; echo "0 passed, 1 failed"; exit 1; }
grep -q "model order_names: refused (a lookup join over a Kafka landing needs a current server" \
  "$P/target/clickhouse/18.16/deployment.sql" || { echo "FAIL: 18.16 refuses a lookup over a Kafka landing"; echo "0 passed, 1 failed"; exit 1; }
"$ROOT/scripts/chdb-python" "$ROOT/tests/scripts/clickhouse_chdb.py" "$P/target/clickhouse/current/deployment.sql" \
  "$P/target/clickhouse/current/replay.sql"
