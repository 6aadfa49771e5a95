#!/usr/bin/env bash
# weir apply end to end over Kafka (build/kafka-mock on 127.0.0.1, started and stopped
# here) with SQLite and file sinks (tests/lifecycle/shop): v1 runs, versions are applied
# while more events arrive, and every sink ends as a fresh run of the last version over
# the same events would leave it -- state kept, re-derived, mapped and rebuilt by replay;
# the same with the apply killed (SIGKILL) at each of its crash points and at random
# moments; the refusals (a rebuild without permission, history lost to retention, a
# state directory in use, no terminal, a Kafka topic that would be rewritten). Each
# check counts as one test. APPLY_SEED picks the random kill moments.
source "$(dirname "$0")/lib.sh"
set +e
passed=0
failed=0
check() {  # check NAME FUNCTION
  local out
  if out=$("$2" 2>&1); then passed=$((passed + 1)); else
    failed=$((failed + 1)); echo "FAIL: $1" >&2; echo "$out" | sed 's/^/    /' | tail -40 >&2; fi
}
eval "$(BUILD=$BUILD "$ROOT/scripts/kafka-start" orders:2 small:1 out_k:1)" || { echo "0 passed, 1 failed"; exit 1; }
trap '"$ROOT/scripts/kafka-stop"; rm -rf "$TMP"' EXIT
B=$KAFKA_BOOTSTRAP
export KAFKA_BOOTSTRAP
SHOP=$ROOT/tests/lifecycle/shop
SEED=${APPLY_SEED:-7}

# events FROM TO [TOPIC]: orders FROM..TO-1 split over the topic's partitions by parity;
# event time grows with the id on both partitions alike, so no row is ever late
events() {
  local topic=${3:-orders}
  python3 - "$1" "$2" <<'PY' > "$TMP/ev.jsonl"
import json, sys
for i in range(int(sys.argv[1]), int(sys.argv[2])):
    print(json.dumps({"order_id": i, "customer_id": i % 10, "amount": "%d.50" % (5 + (i * 7) % 200),
                      "status": ["new", "cancelled", "paid"][i % 3],
                      "created_at": "2026-01-01 %02d:%02d:%02d" % (i // 3600 % 24, i // 60 % 60, i % 60)}))
PY
  if [ "$topic" = orders ]; then
    awk 'NR % 2 == 1' "$TMP/ev.jsonl" | kcat -P -b "$B" -t orders -p 0
    awk 'NR % 2 == 0' "$TMP/ev.jsonl" | kcat -P -b "$B" -t orders -p 1
  else
    kcat -P -b "$B" -t "$topic" -p 0 < "$TMP/ev.jsonl"
  fi
}
run() { "$WEIR" --project-dir "$1" run --until-caught-up --no-progress > "$TMP/run.txt" 2>&1 || { cat "$TMP/run.txt"; return 1; }; }
apply() { "$WEIR" --project-dir "$1" apply --yes "${@:2}" > "$TMP/apply.txt" 2>&1; }

# the versions: v2 adds an aggregate column (a backfill by replay) and multiplies a
# count above an aggregate (safe: re-derived from the kept state); v3 changes an
# upstream filter (backfills, and a stateless model's file recomputed) and the window
# size (an append output recomputed)
to_v2() {
  sed -i 's/SUM(amount) AS total$/SUM(amount) AS total, MAX(amount) AS largest/' "$1/models/customer_totals.sql"
  sed -i 's/COUNT(\*) AS orders, SUM(amount) AS total$/COUNT(*) * 10 AS orders, SUM(amount) AS total/' "$1/models/country_totals.sql"
}
to_v3() {
  sed -i "s/status <> 'cancelled'/status <> 'new'/" "$1/models/orders_clean.sql"
  sed -i "s/INTERVAL '1' MINUTE/INTERVAL '2' MINUTE/" "$1/models/orders_per_minute.sql"
}
# fresh DIR VERSION...: a copy of the shop at the given versions, run once from scratch
fresh() {
  local d=$TMP/$1
  rm -rf "$d"
  copy_project "$SHOP" "$1" > /dev/null
  shift
  for v in "$@"; do "$v" "$d"; done
  run "$d" || return 1
}
# same A B: the sinks of project A equal those of project B (tables row for row, the
# changelog file as the rows it leaves, append files as multisets of lines)
same() {
  local t
  for t in customer_totals active_customers; do
    diff <(sqlite3 "$1/out/shop.db" "SELECT * FROM $t ORDER BY 1") <(sqlite3 "$2/out/shop.db" "SELECT * FROM $t ORDER BY 1") \
      > "$TMP/diff.txt" || { echo "table $t differs:"; head -20 "$TMP/diff.txt"; return 1; }
    diff <(sqlite3 "$1/out/shop.db" "PRAGMA table_info($t)") <(sqlite3 "$2/out/shop.db" "PRAGMA table_info($t)") \
      > /dev/null || { echo "table $t has other columns"; return 1; }
  done
  python3 - "$1/out/country_totals.jsonl" "$2/out/country_totals.jsonl" <<'PY' || return 1
import json, sys
def rows(path):
    r = {}
    for line in open(path):
        d = json.loads(line)
        op = d.pop('op')
        if op == 'delete': r.pop(d['country'], None)
        else: r[d['country']] = d
    return r
a, b = rows(sys.argv[1]), rows(sys.argv[2])
assert a == b, (a, b)
PY
  for f in big_orders orders_per_minute; do
    diff <(sort "$1/out/$f.jsonl") <(sort "$2/out/$f.jsonl") > "$TMP/diff.txt" \
      || { echo "$f differs:"; head -10 "$TMP/diff.txt"; return 1; }
  done
}

events 0 3000

t_apply_versions() {
  local P=$TMP/live
  copy_project "$SHOP" live > /dev/null
  run "$P" || return 1
  local before
  before=$(wc -l < "$P/out/country_totals.jsonl")
  to_v2 "$P"
  events 3000 3600                   # arriving while v2 is applied
  apply "$P" || { cat "$TMP/apply.txt"; return 1; }
  grep -q "applied: deployment 2" "$TMP/apply.txt" && grep -q "records replayed" "$TMP/apply.txt" \
    || { cat "$TMP/apply.txt"; return 1; }
  # the projection above the aggregate sent one update per country, nothing else
  [ $(( $(wc -l < "$P/out/country_totals.jsonl") - before )) -eq 3 ] \
    || { echo "country_totals got $(( $(wc -l < "$P/out/country_totals.jsonl") - before )) lines"; return 1; }
  [ "$(tail -1 "$P/out/country_totals.jsonl" | python3 -c 'import json,sys; print(json.load(sys.stdin)["op"])')" = update ] || return 1
  "$WEIR" --project-dir "$P" plan > "$TMP/p.txt" 2>&1 && grep -q "7 unchanged" "$TMP/p.txt" || { cat "$TMP/p.txt"; return 1; }
  run "$P" || return 1
  fresh f2 to_v2 && same "$P" "$TMP/f2" || return 1
  to_v3 "$P"
  events 3600 4200
  apply "$P" || { cat "$TMP/apply.txt"; return 1; }
  events 4200 4500
  run "$P" || return 1
  fresh f3 to_v2 to_v3 && same "$P" "$TMP/f3" || return 1
  # the deployments are recorded
  "$WEIR" --project-dir "$P" inspect --format json > "$TMP/i.json" || return 1
  python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); ds=d["deployments"]
assert [x["id"] for x in ds] == [1, 2, 3] and [x["mode"] for x in ds] == ["run", "direct", "direct"], ds' "$TMP/i.json" \
    || { cat "$TMP/i.json"; return 1; }
}
check "v1 runs, v2 and v3 applied while events arrive: every sink equals a fresh run of v3" t_apply_versions

# crash DIR POINT: v1 ran in DIR; apply v2 killed at POINT; whatever the next command
# finds, a run (and an apply, for the old version) leads to the sinks of a fresh v2
crash_at() {
  local P=$TMP/crash_$1 rc=0
  copy_project "$SHOP" "crash_$1" > /dev/null
  run "$P" || return 1
  to_v2 "$P"
  WEIR_CRASH_AT=$1 "$WEIR" --project-dir "$P" apply --yes > "$TMP/apply.txt" 2>&1 || rc=$?
  [ $rc -eq 137 ] || { echo "apply was not killed at $1 (exit $rc)"; cat "$TMP/apply.txt"; return 1; }
  if "$WEIR" --project-dir "$P" plan --fail-on safe > "$TMP/p.txt" 2>&1; then
    : # the new version runs: its deliveries are made again by the next run
  else
    apply "$P" || { cat "$TMP/apply.txt"; return 1; }  # the old one still runs
  fi
  run "$P" && same "$P" "$TMP/fcrash"
}
t_crash_before_commit() { crash_at apply-before-commit; }
t_crash_after_commit() { crash_at apply-after-commit; }
t_crash_delivering() { crash_at apply-delivering; }
fresh fcrash to_v2 > /dev/null   # v2 over every event so far: what each crash test must end with
check "apply killed before its commit: the old version runs; apply again" t_crash_before_commit
check "apply killed after its commit: the new version runs; the run delivers" t_crash_after_commit
check "apply killed between two sinks' deliveries: the run delivers them all once" t_crash_delivering

t_crash_random() {
  local i rc P
  RANDOM=$SEED
  for i in 1 2 3; do
    P=$TMP/rand_$i
    copy_project "$SHOP" "rand_$i" > /dev/null
    run "$P" || return 1
    to_v2 "$P"
    "$WEIR" --project-dir "$P" apply --yes > "$TMP/apply.txt" 2>&1 &
    local pid=$! wait_ms=$(( RANDOM % 400 ))
    python3 -c "import time; time.sleep($wait_ms / 1000)"  # a random moment, not a wait for something
    kill -9 $pid 2>/dev/null
    wait $pid 2>/dev/null
    if ! "$WEIR" --project-dir "$P" plan --fail-on safe > "$TMP/p.txt" 2>&1; then
      apply "$P" || { cat "$TMP/apply.txt"; return 1; }
    fi
    run "$P" && same "$P" "$TMP/fcrash" || { echo "seed $SEED, kill after ${wait_ms} ms"; return 1; }
  done
}
check "apply killed at random moments: old or new version, never a mixture" t_crash_random

t_refusals() {
  local P=$TMP/refuse rc=0
  copy_project "$SHOP" refuse > /dev/null
  run "$P" || return 1
  # a grouping key changed: a rebuild needs permission
  sed -i 's/SELECT customer_id, COUNT/SELECT customer_id, status, COUNT/; s/GROUP BY customer_id/GROUP BY customer_id, status/' \
    "$P/models/customer_totals.sql"
  sed -i 's/key: \[customer_id\]\n    sink: {connector: sqlite, path: out\/shop.db}/X/' "$P/models/schema.yml"
  python3 - "$P/models/schema.yml" <<'PY'
import sys
p = sys.argv[1]; s = open(p).read()
s = s.replace("  customer_totals:\n    materialized: upsert\n    key: [customer_id]", "  customer_totals:\n    materialized: upsert\n    key: [customer_id, status]")
open(p, 'w').write(s)
PY
  apply "$P" || rc=$?
  [ $rc -eq 1 ] && grep -q -- "--allow-rebuild" "$TMP/apply.txt" || { echo "exit $rc"; cat "$TMP/apply.txt"; return 1; }
  # no terminal, no --yes
  rc=0
  "$WEIR" --project-dir "$P" apply --allow-rebuild < /dev/null > "$TMP/a.txt" 2>&1 || rc=$?
  [ $rc -eq 2 ] && grep -q -- "--yes" "$TMP/a.txt" || { echo "exit $rc"; cat "$TMP/a.txt"; return 1; }
  apply "$P" --allow-rebuild || { cat "$TMP/apply.txt"; return 1; }
  [ "$(sqlite3 "$P/out/shop.db" "SELECT count(*) FROM customer_totals WHERE status = 'paid'")" = 10 ] || return 1
  # a state directory in use
  "$WEIR" --project-dir "$P" run --no-progress > "$TMP/bg.txt" 2>&1 &
  local pid=$! deadline=$((SECONDS + 60))
  until holds_flock $pid "$P/.weir/dev/run.lock"; do
    kill -0 $pid 2>/dev/null || { echo "the run ended before taking its lock:"; cat "$TMP/bg.txt"; return 1; }
    [ $SECONDS -lt $deadline ] || { kill $pid; echo "the run never took its lock"; return 1; }
    sleep 0.05
  done
  sed -i 's/MAX(created_at) AS last_order/MAX(created_at) AS last_order, COUNT(*) AS n/' "$P/models/active_customers.sql"
  rc=0
  apply "$P" || rc=$?
  kill -TERM $pid
  wait $pid
  [ $rc -eq 2 ] && grep -q "in use" "$TMP/apply.txt" || { echo "exit $rc"; cat "$TMP/apply.txt"; return 1; }
}
check "refused: a rebuild without --allow-rebuild, no terminal without --yes, a state directory in use" t_refusals

t_history_lost() {
  local P=$TMP/lost rc=0
  copy_project "$SHOP" lost > /dev/null
  sed -i 's/topic: orders$/topic: small/' "$P/sources/shop.yml"
  events 0 100 small
  run "$P" || return 1
  # the cluster keeps a few MiB per partition: push the deployment's first offsets out,
  # in steps the run follows (so its own position stays retained)
  local k
  for k in 1 2 3 4 5 6 7 8 9 10; do
    python3 -c 'import sys
for i in range(20000): sys.stdout.write("{\"order_id\":%d,\"status\":\"%s\"}\n" % (i, "x" * 40))' | kcat -P -b "$B" -t small -p 0
    run "$P" || return 1
  done
  to_v2 "$P"
  "$WEIR" --project-dir "$P" plan > "$TMP/p.txt" 2>&1 || rc=$?
  [ $rc -eq 1 ] && grep -q "NOT all retained" "$TMP/p.txt" && grep -q "no longer retained" "$TMP/p.txt" \
    || { echo "plan exit $rc"; cat "$TMP/p.txt"; return 1; }
  rc=0
  apply "$P" || rc=$?
  [ $rc -eq 1 ] && grep -q "no longer retained" "$TMP/apply.txt" && grep -q "nothing was applied" "$TMP/apply.txt" \
    || { echo "exit $rc"; cat "$TMP/apply.txt"; return 1; }
}
check "refused: the history a replay needs is no longer retained" t_history_lost

t_kafka_sink_rewrite() {
  local P=$TMP/ksink rc=0
  copy_project "$SHOP" ksink > /dev/null
  python3 - "$P/models/schema.yml" <<'PY'
import sys
p = sys.argv[1]; s = open(p).read()
s = s.replace("sink: {connector: file, path: out/big_orders.jsonl, format: json}", "sink: {connector: kafka, topic: out_k, format: json}")
open(p, 'w').write(s)
PY
  run "$P" || return 1
  sed -i 's/amount > 100/amount > 150/' "$P/models/big_orders.sql"
  apply "$P" || rc=$?
  [ $rc -eq 2 ] && grep -q "topic would have to be rewritten" "$TMP/apply.txt" || { echo "exit $rc"; cat "$TMP/apply.txt"; return 1; }
  "$WEIR" --project-dir "$P" plan --fail-on safe > /dev/null 2>&1 && { echo "the refused apply changed the target"; return 1; }
  return 0
}
check "refused: an append output on a Kafka topic whose history would change" t_kafka_sink_rewrite

echo "$passed passed, $failed failed"
[ $failed -eq 0 ]
