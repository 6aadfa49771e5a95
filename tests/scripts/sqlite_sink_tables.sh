#!/usr/bin/env bash
# A SQLite sink replaces only the tables weir created: a table of the sink's name that
# the user made (in any letter case) stops the run with exit 3 and is left as it was;
# `replace_existing: true` replaces it; from then on weir owns it (_weir_tables) and
# replaces it on every run without the option.
source "$(dirname "$0")/lib.sh"
P="$TMP/p"
mkdir -p "$P/sources" "$P/models" "$P/data" "$P/out"
echo "name: sq" > "$P/weir.yml"
printf '{"id": 1}\n{"id": 2}\n' > "$P/data/e.jsonl"
cat > "$P/sources/s.yml" <<'YAML'
sources:
  e: {connector: file, path: data/e.jsonl, columns: {id: bigint}}
YAML
echo "SELECT id FROM source('e')" > "$P/models/m.sql"
echo "SELECT id * 10 AS id FROM source('e')" > "$P/models/n.sql"
cat > "$P/models/m.yml" <<'YAML'
models:
  m: {materialized: append, sink: {connector: sqlite, path: out/db.sqlite, table: Orders}}
  n: {materialized: append, sink: {connector: sqlite, path: out/db.sqlite}}
YAML
sqlite3 "$P/out/db.sqlite" "CREATE TABLE orders (important TEXT); INSERT INTO orders VALUES ('keep me')"

rc=0
"$WEIR" --project-dir "$P" run --no-progress > "$TMP/run1.txt" 2>&1 || rc=$?
assert_eq "$rc" 3 "exit code when the sink's table is the user's"
assert_contains "$TMP/run1.txt" "model m: sqlite sink" "the sink is named"
assert_contains "$TMP/run1.txt" "table Orders exists and was not created by weir" "the reason"
assert_contains "$TMP/run1.txt" "replace_existing: true" "the way out"
assert_eq "$(sqlite3 "$P/out/db.sqlite" "SELECT important FROM orders")" "keep me" "the user's table is untouched"

sed -i 's/table: Orders}/table: Orders, replace_existing: true}/' "$P/models/m.yml"
"$WEIR" --project-dir "$P" run --no-progress > "$TMP/run2.txt" 2>&1 || fail "run with replace_existing: $(cat "$TMP/run2.txt")"
assert_eq "$(sqlite3 "$P/out/db.sqlite" "SELECT group_concat(id) FROM (SELECT id FROM orders ORDER BY id)")" "1,2" \
  "replace_existing replaced the table"
assert_eq "$(sqlite3 "$P/out/db.sqlite" "SELECT name || ':' || model FROM _weir_tables ORDER BY name")" \
  "$(printf 'n:n\nOrders:m')" "weir records the tables it created"

sed -i 's/, replace_existing: true//' "$P/models/m.yml"
echo "SELECT id + 100 AS id FROM source('e')" > "$P/models/m.sql"
"$WEIR" --project-dir "$P" run --no-progress > "$TMP/run3.txt" 2>&1 || fail "rerun: $(cat "$TMP/run3.txt")"
assert_eq "$(sqlite3 "$P/out/db.sqlite" "SELECT group_concat(id) FROM (SELECT id FROM orders ORDER BY id)")" \
  "101,102" "a table weir created is replaced without the option"
assert_eq "$(sqlite3 "$P/out/db.sqlite" "SELECT group_concat(id) FROM (SELECT id FROM n ORDER BY id)")" "10,20" \
  "the other model's table"
echo ok
