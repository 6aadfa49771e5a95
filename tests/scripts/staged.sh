#!/usr/bin/env bash
# The staged rollout on the native runtime over Kafka (build/kafka-mock on 127.0.0.1,
# started and stopped here), SQLite and file sinks (tests/lifecycle/shop): v2 is built
# with `weir apply --staged` beside v1 while v1 keeps running and events keep arriving;
# `weir audit` says ready once it has caught up; `weir publish` is refused while v1 runs,
# then switches the SQLite readers (views) and files in one step; v2 goes on as a fresh
# v2 run would; `weir rollback` returns the readers to v1; `weir janitor` removes what
# is superseded; a publish killed after its intent is finished by the next command; a
# failing data audit makes audit say not ready. Each check counts as one test.
source "$(dirname "$0")/lib.sh"
set +e
passed=0
failed=0
check() {  # check NAME FUNCTION
  local out
  if out=$("$2" 2>&1); then passed=$((passed + 1)); else
    failed=$((failed + 1)); echo "FAIL: $1" >&2; echo "$out" | sed 's/^/    /' | tail -40 >&2; fi
}
eval "$(BUILD=$BUILD "$ROOT/scripts/kafka-start" orders:1)" || { echo "0 passed, 1 failed"; exit 1; }
LIVE_PID=
trap '[ -n "$LIVE_PID" ] && kill -TERM $LIVE_PID 2>/dev/null; "$ROOT/scripts/kafka-stop"; rm -rf "$TMP"' EXIT
B=$KAFKA_BOOTSTRAP
export KAFKA_BOOTSTRAP
SHOP=$ROOT/tests/lifecycle/shop

# events FROM TO: as in apply.sh, on one partition: the running version and the staged
# one read them in other batches, and no row is ever late whatever the batches
events() {
  python3 - "$1" "$2" <<'PY' > "$TMP/ev.jsonl"
import json, sys
for i in range(int(sys.argv[1]), int(sys.argv[2])):
    print(json.dumps({"order_id": i, "customer_id": i % 10, "amount": "%d.50" % (5 + (i * 7) % 200),
                      "status": ["new", "cancelled", "paid"][i % 3],
                      "created_at": "2026-01-01 %02d:%02d:%02d" % (i // 3600 % 24, i // 60 % 60, i % 60)}))
PY
  kcat -P -b "$B" -t orders -p 0 < "$TMP/ev.jsonl"
}
run() { "$WEIR" --project-dir "$1" run --until-caught-up --no-progress > "$TMP/run.txt" 2>&1 || { cat "$TMP/run.txt"; return 1; }; }
to_v2() { sed -i 's/SUM(amount) AS total$/SUM(amount) AS total, MAX(amount) AS largest/' "$1/models/customer_totals.sql"; }
# wait_caught_up DIR N: poll (with a deadline) until the running version has read N records
wait_caught_up() {
  local deadline=$((SECONDS + 120)) n
  while :; do
    n=$("$WEIR" --project-dir "$1" inspect --format json 2>/dev/null | python3 -c 'import json,sys
try:
    d=json.load(sys.stdin); print(sum(p["offset"] for s in d["sources"] for p in s.get("partitions", [])))
except Exception: print(-1)')
    [ "$n" = "$2" ] && return 0
    [ $SECONDS -lt $deadline ] || { echo "the running version read $n of $2 records"; cat "$TMP/live.txt" 2>/dev/null | tail -5; return 1; }
    sleep 0.1
  done
}
table() { sqlite3 "$1/out/shop.db" "SELECT * FROM $2 ORDER BY 1"; }

events 0 2000
P=$TMP/live
copy_project "$SHOP" live > /dev/null

t_stage_audit_publish() {
  run "$P" || return 1
  # v1 keeps running (a checkpoint every 200 ms) while v2 is built beside it
  "$WEIR" --project-dir "$P" run --no-progress --checkpoint-interval 200ms > "$TMP/live.txt" 2>&1 &
  LIVE_PID=$!
  local deadline=$((SECONDS + 60))
  until holds_flock $LIVE_PID "$P/.weir/dev/run.lock"; do
    kill -0 $LIVE_PID 2>/dev/null || { echo "v1 ended before taking its lock:"; cat "$TMP/live.txt"; return 1; }
    [ $SECONDS -lt $deadline ] || { echo "v1 never started"; cat "$TMP/live.txt"; return 1; }
    sleep 0.05
  done
  to_v2 "$P"
  "$WEIR" --project-dir "$P" apply --staged --yes > "$TMP/stage.txt" 2>&1 || { cat "$TMP/stage.txt"; return 1; }
  grep -q "staged: deployment 2 built in deployments/2" "$TMP/stage.txt" || { cat "$TMP/stage.txt"; return 1; }
  # the readers still see v1: no new column, the shadow table beside it
  sqlite3 "$P/out/shop.db" "PRAGMA table_info(customer_totals)" | grep -q largest && { echo "v1's table changed"; return 1; }
  [ "$(sqlite3 "$P/out/shop.db" "SELECT count(*) FROM customer_totals__v2")" = 10 ] || return 1
  [ -s "$P/out/big_orders__v2.jsonl" ] || return 1
  events 2000 2600
  wait_caught_up "$P" 2600 || return 1
  "$WEIR" --project-dir "$P" audit > "$TMP/audit.txt" 2>&1 || { cat "$TMP/audit.txt"; return 1; }
  grep -q "^ready" "$TMP/audit.txt" && grep -q "caught up: both have read the same records" "$TMP/audit.txt" \
    && grep -q "active_customers .*unchanged .*rows: the same" "$TMP/audit.txt" || { cat "$TMP/audit.txt"; return 1; }
  # publishing needs v1 stopped
  local rc=0
  "$WEIR" --project-dir "$P" publish > "$TMP/pub.txt" 2>&1 || rc=$?
  [ $rc -eq 2 ] && grep -q "stop the running version" "$TMP/pub.txt" || { echo "exit $rc"; cat "$TMP/pub.txt"; return 1; }
  kill -TERM $LIVE_PID
  wait $LIVE_PID
  LIVE_PID=
  events 2600 3000                   # arriving before the publish, after v1 stopped
  "$WEIR" --project-dir "$P" publish > "$TMP/pub.txt" 2>&1 || { cat "$TMP/pub.txt"; return 1; }
  grep -q "published: deployment 2" "$TMP/pub.txt" || { cat "$TMP/pub.txt"; return 1; }
  [ "$(sqlite3 "$P/out/shop.db" "SELECT type FROM sqlite_master WHERE name = 'customer_totals'")" = view ] || return 1
  events 3000 3300
  run "$P" || return 1
  # the readers' names now hold what a fresh v2 run over every event holds
  local F=$TMP/fresh
  copy_project "$SHOP" fresh > /dev/null
  to_v2 "$F"
  run "$F" || return 1
  for t in customer_totals active_customers; do
    diff <(table "$P" $t) <(table "$F" $t) > "$TMP/d.txt" || { echo "$t differs"; head "$TMP/d.txt"; return 1; }
  done
  diff <(sort "$P/out/big_orders.jsonl") <(sort "$F/out/big_orders.jsonl") > /dev/null || { echo "big_orders differs"; return 1; }
  "$WEIR" --project-dir "$P" inspect > "$TMP/i.txt" 2>&1 && grep -q "deployment 2 .*published" "$TMP/i.txt" \
    || { cat "$TMP/i.txt"; return 1; }
}
check "apply --staged beside a running v1, audit ready, publish refused while v1 runs, then switched; v2 equals a fresh run" \
  t_stage_audit_publish

t_rollback_janitor() {
  local v1_rows
  v1_rows=$(sqlite3 "$P/out/shop.db" "SELECT count(*) FROM customer_totals__v1")
  "$WEIR" --project-dir "$P" rollback > "$TMP/rb.txt" 2>&1 || { cat "$TMP/rb.txt"; return 1; }
  grep -q "rolled back: deployment 1" "$TMP/rb.txt" || { cat "$TMP/rb.txt"; return 1; }
  # the readers see v1's table again (without v2's column)
  sqlite3 "$P/out/shop.db" "PRAGMA table_info(customer_totals)" | grep -q largest && { echo "still v2"; return 1; }
  [ "$(sqlite3 "$P/out/shop.db" "SELECT count(*) FROM customer_totals")" = "$v1_rows" ] || return 1
  # v2 is kept for a roll forward: the janitor keeps both
  "$WEIR" --project-dir "$P" janitor --retain 0s > "$TMP/j.txt" 2>&1 || { cat "$TMP/j.txt"; return 1; }
  grep -q "0 superseded deployments removed" "$TMP/j.txt" || { cat "$TMP/j.txt"; return 1; }
  # roll forward, then stage and publish v3: v1 is superseded and removed by the janitor
  "$WEIR" --project-dir "$P" rollback > /dev/null 2>&1 || return 1
  sed -i 's/amount > 100/amount > 120/' "$P/models/big_orders.sql"
  "$WEIR" --project-dir "$P" apply --staged --yes > "$TMP/s3.txt" 2>&1 || { cat "$TMP/s3.txt"; return 1; }
  "$WEIR" --project-dir "$P" publish > "$TMP/p3.txt" 2>&1 || { cat "$TMP/p3.txt"; return 1; }
  "$WEIR" --project-dir "$P" janitor --retain 0s > "$TMP/j.txt" 2>&1 || { cat "$TMP/j.txt"; return 1; }
  grep -q "removed deployment \." "$TMP/j.txt" && grep -q "dropped table customer_totals__v1" "$TMP/j.txt" \
    || { cat "$TMP/j.txt"; return 1; }
  [ -z "$(sqlite3 "$P/out/shop.db" "SELECT name FROM sqlite_master WHERE name = 'customer_totals__v1'")" ] || return 1
  [ -e "$P/out/big_orders__v1.jsonl" ] && { echo "v1's file is still there"; return 1; }
  run "$P"
}
check "rollback returns the readers to v1 and back; the janitor removes only what is superseded" t_rollback_janitor

t_publish_crash() {
  local Q=$TMP/crash rc=0
  copy_project "$SHOP" crash > /dev/null
  run "$Q" || return 1
  to_v2 "$Q"
  "$WEIR" --project-dir "$Q" apply --staged --yes > /dev/null 2>&1 || return 1
  WEIR_CRASH_AT=publish-intent "$WEIR" --project-dir "$Q" publish > "$TMP/pc.txt" 2>&1 || rc=$?
  [ $rc -eq 137 ] || { echo "publish was not killed (exit $rc)"; cat "$TMP/pc.txt"; return 1; }
  # the next command finishes the publish first
  "$WEIR" --project-dir "$Q" audit > /dev/null 2>&1
  [ "$(sqlite3 "$Q/out/shop.db" "SELECT type FROM sqlite_master WHERE name = 'customer_totals'")" = view ] || return 1
  run "$Q" && sqlite3 "$Q/out/shop.db" "PRAGMA table_info(customer_totals)" | grep -q largest
}
check "a publish killed after its intent is finished by the next command" t_publish_crash

t_audit_fails() {
  local Q=$TMP/audits
  copy_project "$SHOP" audits > /dev/null
  run "$Q" || return 1
  python3 - "$Q/models/schema.yml" <<'PY'
import sys
p = sys.argv[1]; s = open(p).read()
s = s.replace("    key: [customer_id]\n    sink: {connector: sqlite, path: out/shop.db}\n  orders_enriched:",
              "    key: [customer_id]\n    sink: {connector: sqlite, path: out/shop.db}\n"
              "    audits:\n      - not_null: [customer_id]\n      - accepted_values: {column: orders, values: [1, 2]}\n"
              "  orders_enriched:")
open(p, 'w').write(s)
PY
  grep -q accepted_values "$Q/models/schema.yml" || { echo "edit did not apply"; return 1; }
  to_v2 "$Q"
  "$WEIR" --project-dir "$Q" apply --staged --yes > "$TMP/st.txt" 2>&1 || { cat "$TMP/st.txt"; return 1; }
  local rc=0
  "$WEIR" --project-dir "$Q" audit --format json > "$TMP/a.json" 2>&1 || rc=$?
  [ $rc -eq 1 ] || { echo "exit $rc"; cat "$TMP/a.json"; return 1; }
  python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); a={x["audit"]: x for x in d["audits"]}
assert not d["ready"] and a["not_null"]["status"] == "pass" and a["accepted_values"]["status"] == "fail", d' "$TMP/a.json" \
    || { cat "$TMP/a.json"; return 1; }
}
check "a failing data audit: audit says not ready (exit 1)" t_audit_fails

echo "$passed passed, $failed failed"
[ $failed -eq 0 ]
