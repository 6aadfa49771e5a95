#!/usr/bin/env bash
# weir plan --against a manifest: verdicts per model and per state, with reasons, for
# the kinds of change DESIGN.md names (section 3): a projection above an aggregate is
# safe; a new aggregate column or a changed upstream filter is a backfill; a changed
# grouping key, a column type or a source that reads another file is a rebuild; new and
# removed models. Exit 0 when the running state can be reused, 1 when blocked, 2 for a
# bad --against file. Each check counts as one test.
source "$(dirname "$0")/lib.sh"
set +e
passed=0
failed=0
check() {  # check NAME FUNCTION
  local out
  if out=$("$2" 2>&1); then passed=$((passed + 1)); else
    failed=$((failed + 1)); echo "FAIL: $1" >&2; echo "$out" | sed 's/^/    /' | tail -40 >&2; fi
}
BASE=$(copy_project "$ROOT/examples/commerce" base)
"$WEIR" --project-dir "$BASE" compile > /dev/null || { echo "0 passed, 1 failed"; exit 1; }
OLD=$TMP/old.json
cp "$BASE/target/manifest.json" "$OLD"

# variant NAME SED_FILE SED_EXPR...: a copy of the project with edits applied
variant() {
  local d
  d=$(copy_project "$BASE" "$1")
  shift
  while [ $# -ge 2 ]; do sed -i "$2" "$d/$1"; shift 2; done
  echo "$d"
}
# plan DIR: weir plan --against the base manifest, JSON in $TMP/plan.json, text in
# $TMP/plan.txt; returns weir's exit code
plan() {
  local rc=0
  "$WEIR" --project-dir "$1" plan --against "$OLD" --format json > "$TMP/plan.json" 2> "$TMP/plan.err" || rc=$?
  "$WEIR" --project-dir "$1" plan --against "$OLD" > "$TMP/plan.txt" 2>&1
  return $rc
}
# verdicts EXPECTED: "model=verdict ..." must equal the plan's models
verdicts() {
  python3 - "$TMP/plan.json" "$1" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
got = {m["name"]: m["verdict"] for m in d["models"]}
want = dict(x.split("=") for x in sys.argv[2].split())
assert got == want, (got, want)
PY
}

t_unchanged() {
  plan "$BASE" || { cat "$TMP/plan.txt"; return 1; }
  verdicts "customer_metrics=unchanged customers_by_country=unchanged large_orders=unchanged orders_clean=unchanged status_counts=unchanged" \
    && grep -q "the running state can be reused" "$TMP/plan.txt"
}
check "nothing changed: every model unchanged, exit 0" t_unchanged

t_safe_projection() {
  local d
  d=$(variant safe models/marts/status_counts.sql 's/AVG(amount)              AS avg_amount/ROUND(AVG(amount), 1) AS avg_amount/' \
        models/marts/customer_metrics.sql 's/COUNT(\*)    AS order_count/COUNT(*) * 2 AS order_count/')
  plan "$d" || { cat "$TMP/plan.txt"; return 1; }
  verdicts "customer_metrics=safe customers_by_country=unchanged large_orders=unchanged orders_clean=unchanged status_counts=safe" \
    && grep -q "Project added: Project status, orders, round(" "$TMP/plan.txt" || { cat "$TMP/plan.txt"; return 1; }
}
check "an expression above an aggregate: safe (its state is kept as is), exit 0" t_safe_projection

t_rebuild_key() {
  local d rc=0
  d=$(variant key models/marts/customer_metrics.sql 's/GROUP BY customer_id/GROUP BY customer_id, status/' \
        models/marts/customer_metrics.sql 's/^    customer_id,$/    customer_id, status,/' \
        models/schema.yml 's/    key: \[customer_id\]/    key: [customer_id, status]/')
  plan "$d" || rc=$?
  [ $rc -eq 1 ] || { echo "exit $rc"; cat "$TMP/plan.txt" "$TMP/plan.err"; return 1; }
  verdicts "customer_metrics=rebuild customers_by_country=unchanged large_orders=unchanged orders_clean=unchanged status_counts=unchanged" \
    || return 1
  python3 - "$TMP/plan.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
m = [x for x in d["models"] if x["name"] == "customer_metrics"][0]
st = m["state"][0]
assert st["id"] == "customer_metrics/aggregate0" and st["verdict"] == "rebuild", st
assert st["reason"] == "grouping key changed:\n  - customer_id\n  + customer_id, status", st["reason"]
assert "key [customer_id] -> [customer_id, status]" in m["reasons"], m["reasons"]
assert d["blocked"] and d["summary"]["rebuild"] == 1, d
PY
}
check "a changed grouping key: rebuild, with the old and new key; exit 1" t_rebuild_key

t_backfill_new_column() {
  local d
  d=$(variant col models/marts/customer_metrics.sql 's/MAX(amount) AS largest_order/MAX(amount) AS largest_order, MIN(amount) AS smallest_order/')
  plan "$d"
  verdicts "customer_metrics=backfill customers_by_country=unchanged large_orders=unchanged orders_clean=unchanged status_counts=unchanged" \
    && grep -q "+ min(amount).multiset numeric(12,2)" "$TMP/plan.txt" || { cat "$TMP/plan.txt"; return 1; }
}
check "a new aggregate column: backfill (same keys, one more accumulator)" t_backfill_new_column

t_backfill_upstream() {
  local d
  d=$(variant filter models/staging/orders_clean.sql "s/'cancelled'/'void'/")
  plan "$d"
  verdicts "customer_metrics=backfill customers_by_country=unchanged large_orders=safe orders_clean=safe status_counts=backfill" \
    || { cat "$TMP/plan.txt"; return 1; }
  grep -q "reads model orders_clean, which changes" "$TMP/plan.txt" && grep -q "+ Filter (status <> 'void'::text)" "$TMP/plan.txt" \
    || { cat "$TMP/plan.txt"; return 1; }
}
check "a changed upstream filter: the stateless model is safe, the aggregates reading it backfill" t_backfill_upstream

t_rebuild_type() {
  local d
  d=$(variant type sources/commerce.yml 's/amount: numeric(12,2)/amount: "numeric(14,2)"/')
  grep -q 'numeric(14,2)' "$d/sources/commerce.yml" || { echo "edit did not apply"; grep amount "$d/sources/commerce.yml"; return 1; }
  plan "$d"
  python3 - "$TMP/plan.json" <<'PY' || { cat "$TMP/plan.txt"; return 1; }
import json, sys
d = json.load(open(sys.argv[1]))
v = {m["name"]: m["verdict"] for m in d["models"]}
assert v["customer_metrics"] == "rebuild" and v["status_counts"] == "rebuild", v
PY
  grep -q "total_spend\|sum(amount).sum numeric(14,2)" "$TMP/plan.txt" || { cat "$TMP/plan.txt"; return 1; }
}
check "a source column's type changed: the states holding it rebuild" t_rebuild_type

t_rebuild_other_file() {
  local d
  d=$(variant file sources/commerce.yml 's#path: data/orders.jsonl#path: data/orders_2027.jsonl#')
  touch "$d/data/orders_2027.jsonl"
  plan "$d"
  python3 - "$TMP/plan.json" <<'PY' || { cat "$TMP/plan.txt"; return 1; }
import json, sys
d = json.load(open(sys.argv[1]))
v = {m["name"]: m["verdict"] for m in d["models"]}
assert v["customer_metrics"] == "rebuild" and v["status_counts"] == "rebuild" and v["orders_clean"] == "safe", v
PY
  grep -q "reads file data/orders_2027.jsonl instead of file data/orders.jsonl" "$TMP/plan.txt" || { cat "$TMP/plan.txt"; return 1; }
}
check "a source reads another file: rebuild" t_rebuild_other_file

t_new_and_removed() {
  local d rc=0
  d=$(copy_project "$BASE" newrm)
  rm "$d/models/marts/large_orders.sql" "$d/tests/large_orders.yml"
  python3 - "$d/models/schema.yml" <<'PY'
import re, sys
p = sys.argv[1]
s = open(p).read()
s = re.sub(r"  large_orders:\n(    .*\n)*", "", s)
open(p, "w").write(s)
PY
  echo "SELECT customer_id, count(*) AS n FROM ref('orders_clean') GROUP BY customer_id" > "$d/models/marts/order_counts.sql"
  plan "$d" || rc=$?
  [ $rc -eq 1 ] || { echo "exit $rc"; cat "$TMP/plan.txt" "$TMP/plan.err"; return 1; }
  verdicts "customer_metrics=unchanged customers_by_country=unchanged order_counts=new orders_clean=unchanged status_counts=unchanged large_orders=removed"
}
check "a new model (blocked: it needs the history) and a removed one" t_new_and_removed

t_bad_against() {
  local rc=0
  "$WEIR" --project-dir "$BASE" plan --against "$TMP/nope.json" > "$TMP/b1.txt" 2>&1 || rc=$?
  [ $rc -eq 2 ] && grep -q "cannot read" "$TMP/b1.txt" || { echo "exit $rc"; cat "$TMP/b1.txt"; return 1; }
  printf '{"manifest_version": 1,\n  "models": [1, }\n' > "$TMP/bad.json"
  rc=0
  "$WEIR" --project-dir "$BASE" plan --against "$TMP/bad.json" > "$TMP/b2.txt" 2>&1 || rc=$?
  [ $rc -eq 2 ] && grep -q "bad.json:2:[0-9]*: not valid JSON" "$TMP/b2.txt" || { echo "exit $rc"; cat "$TMP/b2.txt"; return 1; }
  echo '{"manifest_version": 7}' > "$TMP/v7.json"
  rc=0
  "$WEIR" --project-dir "$BASE" plan --against "$TMP/v7.json" > "$TMP/b3.txt" 2>&1 || rc=$?
  [ $rc -eq 2 ] && grep -q "not a manifest of version 1" "$TMP/b3.txt" || { echo "exit $rc"; cat "$TMP/b3.txt"; return 1; }
}
check "an unreadable, malformed or foreign --against file: exit 2 with the position" t_bad_against

t_nothing_runs() {
  "$WEIR" --project-dir "$BASE" plan > "$TMP/n.txt" || { cat "$TMP/n.txt"; return 1; }
  grep -q "where nothing runs yet" "$TMP/n.txt" && grep -q "5 new" "$TMP/n.txt" || { cat "$TMP/n.txt"; return 1; }
}
check "no checkpoint on the target: every model new, not blocked" t_nothing_runs

echo "$passed passed, $failed failed"
[ $failed -eq 0 ]
