#!/usr/bin/env bash
# `weir test` and dead letters: a wrong expect_dead_letters fails with a diff of the
# dead letters; an unparsable value in it is an ERROR at its file:line:col; a passing
# test with unchecked dead letters says so; --format json lists them.
source "$(dirname "$0")/lib.sh"
P=$(copy_project "$ROOT/tests/projects/ops_dead_letters" dl)
cat > "$P/tests/wrong.yml" <<'YAML'
tests:
  - name: wrong_reason
    model: click_share
    given:
      - {user_id: 2, page: b, weight: 0, ts: '2024-01-01 00:00:02'}
    expect_dead_letters:
      - {reason: late, row: {user_id: 2}}
  - name: bad_value
    model: click_share
    given:
      - {user_id: 2, page: b, weight: 0, ts: '2024-01-01 00:00:02'}
    expect_dead_letters:
      - {reason: division by zero, row: {weight: lots}}
  - name: unchecked
    model: click_share
    given:
      - {user_id: 2, page: b, weight: 0, ts: '2024-01-01 00:00:02'}
    expect: []
YAML
rc=0
"$WEIR" --project-dir "$P" test --select "wrong_reason bad_value unchecked" > "$TMP/out.txt" 2>&1 || rc=$?
assert_eq "$rc" 1 "exit code"
assert_contains "$TMP/out.txt" "FAIL   wrong_reason" "the wrong reason fails"
assert_contains "$TMP/out.txt" "expect_dead_letters: dead letters differ" "the diff header"
assert_contains "$TMP/out.txt" "    - {reason: 'late', row: {user_id: 2}}" "the expected side"
assert_contains "$TMP/out.txt" "    + {reason: 'division by zero', at: click_share, row: {user_id: 2, page: 'b', weight: 0, ts: '2024-01-01 00:00:02'}}" "the actual side"
assert_contains "$TMP/out.txt" "ERROR  bad_value" "a bad value is an error in the test"
assert_contains "$TMP/out.txt" "tests/wrong.yml:13:" "at its position"
assert_contains "$TMP/out.txt" "(1 dead letter, not checked)" "unchecked dead letters are noted"
assert_contains "$TMP/out.txt" "1 passed, 2 failed" "the summary"
"$WEIR" --project-dir "$P" test --select unchecked --format json > "$TMP/out.json" || fail "json run"
python3 - "$TMP/out.json" <<'PY' || fail "dead letters in --format json"
import json, sys
t = json.load(open(sys.argv[1]))["tests"][0]
assert t["dead_letters"] == [{"reason": "division by zero", "at": "click_share",
                              "row": {"user_id": 2, "page": "b", "weight": 0, "ts": "2024-01-01 00:00:02"}}], t["dead_letters"]
PY
# a scalar subquery's "more than one row" dead letter shows the outer row's columns
# only, never the internal columns of the decorrelated subquery (__value, __rows ...)
"$WEIR" --project-dir "$ROOT/tests/projects/sql_subqueries" test --select uncorrelated_rows --format json \
  > "$TMP/sub.json" || fail "subquery dead letters test"
python3 - "$TMP/sub.json" <<'PY' || fail "subquery dead letters show the outer row only"
import json, sys
t = json.load(open(sys.argv[1]))["tests"][0]
rows = [d["row"] for d in t["dead_letters"]]
assert len(rows) == 4 and all(sorted(r) == ["id", "v"] for r in rows), rows
PY
echo ok
