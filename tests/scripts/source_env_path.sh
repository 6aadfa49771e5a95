#!/usr/bin/env bash
# ${ENV:NAME} in a file source's path is read by `weir run` when it opens the file:
# the run reads the file the variable points at; an unset variable stops the run with
# exit 2 naming the variable; the value never appears in messages or dead letters
# (they name the path as written); `weir check` does not read the environment.
source "$(dirname "$0")/lib.sh"
P="$TMP/p"
mkdir -p "$P/sources" "$P/models" "$P/secret-dir-4711"
echo "name: envp" > "$P/weir.yml"
cat > "$P/sources/s.yml" <<'YAML'
sources:
  orders:
    connector: file
    path: "${ENV:WEIR_TEST_DATA}/orders.jsonl"
    format: json
    columns: {id: bigint, amount: "numeric(10,2)"}
YAML
echo "SELECT id, amount FROM source('orders')" > "$P/models/o.sql"
cat > "$P/models/o.yml" <<'YAML'
models:
  o:
    materialized: append
    sink: {connector: file, path: out/o.jsonl}
YAML
printf '{"id": 1, "amount": 2.5}\n{"id": "x"}\n' > "$P/secret-dir-4711/orders.jsonl"

unset WEIR_TEST_DATA
"$WEIR" --project-dir "$P" check > "$TMP/check.txt" 2>&1 || fail "check failed: $(cat "$TMP/check.txt")"

rc=0
"$WEIR" --project-dir "$P" run --no-progress > "$TMP/unset.txt" 2>&1 || rc=$?
assert_eq "$rc" 2 "exit code of a run whose source path names an unset variable"
assert_contains "$TMP/unset.txt" \
  'source orders: path ${ENV:WEIR_TEST_DATA}/orders.jsonl: environment variable WEIR_TEST_DATA is not set' \
  "the unset variable is named"
[ ! -e "$P/out/o.jsonl" ] || fail "a run that could not open its source wrote its sink"

rc=0
WEIR_TEST_DATA=secret-dir-4711 "$WEIR" --project-dir "$P" run --no-progress > "$TMP/run.txt" 2>&1 || rc=$?
assert_eq "$rc" 0 "exit code of a run with the variable set: $(cat "$TMP/run.txt")"
assert_eq "$(cat "$P/out/o.jsonl")" '{"id":1,"amount":2.50}' "the sink holds the file's row"
assert_contains "$P/target/dead_letter/orders.jsonl" '"file":"${ENV:WEIR_TEST_DATA}/orders.jsonl","line":2' \
  "the dead letter names the path as written"
if grep -rq "secret-dir-4711" "$TMP/run.txt" "$P/target"; then fail "the variable's value was printed"; fi

rc=0
WEIR_TEST_DATA="$TMP/nowhere" "$WEIR" --project-dir "$P" run --no-progress > "$TMP/missing.txt" 2>&1 || rc=$?
assert_eq "$rc" 3 "exit code when the expanded path does not exist"
assert_contains "$TMP/missing.txt" '${ENV:WEIR_TEST_DATA}/orders.jsonl: cannot open: No such file or directory' \
  "a missing file is named by the path as written"
echo "ok"
