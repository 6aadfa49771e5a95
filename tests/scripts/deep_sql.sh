#!/usr/bin/env bash
# Deeply nested SQL never crashes weir. A model just within SQL_MAX_DEPTH (1000
# levels: here two chains of 990 operators, in the SELECT list and in WHERE) passes
# check, explain, compile, test (also checkpointed after every step) and run with the
# right result; chains of 25,000 and 60,000 terms (which crashed run and check) and
# 1,000 nested subqueries are refused by check and by run with "too-deep" (exit 1).
source "$(dirname "$0")/lib.sh"
P="$TMP/p"
mkdir -p "$P/models" "$P/sources" "$P/data" "$P/tests"
echo "name: deep" > "$P/weir.yml"
printf '{"id": 1}\n{"id": 2}\n' > "$P/data/e.jsonl"
cat > "$P/sources/s.yml" <<'YAML'
sources:
  e: {connector: file, path: data/e.jsonl, columns: {id: bigint}}
YAML
cat > "$P/models/m.yml" <<'YAML'
models:
  m: {materialized: append, sink: {connector: file, path: out/m.jsonl}}
YAML
python3 -c "print('SELECT id' + ' + 1' * 990 + ' AS x FROM source(\'e\') WHERE id' + ' - 1' * 990 + ' > -989')" \
  > "$P/models/m.sql"
cat > "$P/tests/t.yml" <<'YAML'
tests:
  - name: deep
    model: m
    given: [{id: 1}, {id: 2}]
    expect_final: [{x: 992}]
YAML
for cmd in check explain compile test "test --checkpoint-each-step" "run --no-progress"; do
  rc=0
  "$WEIR" --project-dir "$P" $cmd > "$TMP/out.txt" 2>&1 || rc=$?
  assert_eq "$rc" 0 "weir $cmd at 990 levels: $(tail -3 "$TMP/out.txt")"
done
assert_eq "$(cat "$P/out/m.jsonl")" '{"x":992}' "the run's result"

for n in 25000 60000; do
  python3 -c "import sys; print('SELECT id' + ' + 1' * int(sys.argv[1]) + ' AS x FROM source(\'e\')')" "$n" \
    > "$P/models/m.sql"
  rc=0
  "$WEIR" --project-dir "$P" check > "$TMP/check.txt" 2>&1 || rc=$?
  assert_eq "$rc" 1 "check of $n terms"
  grep -q "error: the query nests more than 1000 levels deep" "$TMP/check.txt" || fail "check of $n terms: no too-deep error"
  rc=0
  "$WEIR" --project-dir "$P" run --no-progress > "$TMP/run.txt" 2>&1 || rc=$?
  assert_eq "$rc" 1 "run of $n terms"
  grep -q "error: the query nests more than 1000 levels deep" "$TMP/run.txt" || fail "run of $n terms: no too-deep error"
done
python3 -c "n = 1000; print('SELECT id FROM ' + '(SELECT id FROM ' * n + 'source(\'e\')' + ') s' * n)" > "$P/models/m.sql"
rc=0
"$WEIR" --project-dir "$P" check > "$TMP/check.txt" 2>&1 || rc=$?
assert_eq "$rc" 1 "check of 1000 nested subqueries"
grep -q "error: the query nests more than 1000 levels deep" "$TMP/check.txt" || fail "nested subqueries: no too-deep error"
echo ok
