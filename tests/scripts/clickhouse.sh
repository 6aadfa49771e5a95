#!/usr/bin/env bash
# The ClickHouse backend against a real server: Debian 12's clickhouse-server (18.16,
# started here with its own config on 127.0.0.1, stopped at the end) fed by the Kafka
# cluster of the tests. One scenario, in order: a greenfield apply with messages
# produced before the source exists, secrets and connection precedence, the native
# runtime giving the same rows, a staged cut-over under continuous sequence-numbered
# ingestion (0 duplicates, 0 gaps), a change of only a WHERE clause and of only a
# downstream model, rollback, a crash after every workflow step then a rerun, the lock,
# an interrupted publish finished by doctor, a deleted view repaired, a source change
# planned and applied, the janitor. Each check counts as one test. The Kafka cluster is
# the real broker (scripts/kafka-broker-start): the engine's consumer groups and their
# committed offsets behave there as in production.
source "$(dirname "$0")/lib.sh"
set +e
passed=0
failed=0
START=$SECONDS
ok() { passed=$((passed + 1)); echo "ok: $1"; }
bad() { failed=$((failed + 1)); echo "FAIL: $1" >&2; [ -n "${2:-}" ] && sed 's/^/    /' "$2" | tail -30 >&2; }

# the real broker: ClickHouse's Kafka engine joins consumer groups and commits offsets
eval "$(BUILD=$BUILD "$ROOT/scripts/kafka-broker-start" orders:1 orders2:1)" || { echo "0 passed, 1 failed"; exit 1; }
eval "$("$ROOT/scripts/clickhouse-start")" || { "$ROOT/scripts/kafka-stop"; echo "0 passed, 1 failed"; exit 1; }
PRODUCER=""
cleanup() {
  [ -n "$PRODUCER" ] && kill "$PRODUCER" 2>/dev/null
  "$ROOT/scripts/kafka-stop"; "$ROOT/scripts/clickhouse-stop"; rm -rf "$TMP"
}
trap cleanup EXIT
export KAFKA_BOOTSTRAP
CH=$WEIR_CLICKHOUSE_URL
# the project reads its url from the target; the environment variable would win
export WEIR_TEST_CLICKHOUSE_URL=$CH
unset WEIR_CLICKHOUSE_URL WEIR_CLICKHOUSE_USER
P=$(copy_project "$ROOT/tests/clickhouse/shop" shop)
weir() { "$WEIR" --project-dir "$P" "$@"; }
source "$ROOT/tests/scripts/clickhouse_lib.sh"

# order N: customer N % 5, amount N + 0.25, every 7th cancelled, one second apart
order_line() {
  local n=$1 st=new
  [ $((n % 7)) -eq 0 ] && st=cancelled
  printf '{"order_id":%d,"customer_id":%d,"amount":%d.25,"status":"%s","created_at":"%s"}\n' \
    "$n" $((n % 5)) "$n" "$st" "$(date -u -d "@$((1704067200 + n))" '+%Y-%m-%d %H:%M:%S')"
}
produce() {  # produce FROM TO [TOPIC]
  local i
  # idempotent: a retried batch is not written twice
  for ((i = $1; i <= $2; i++)); do order_line "$i"; done |
    kcat -P -b "$KAFKA_BOOTSTRAP" -t "${3:-orders}" -X enable.idempotence=true
}
# A producer that never stops until told: batches of 25 sequence-numbered orders;
# $TMP/produced holds the last number sent.
start_producer() {
  local from=$1
  rm -f "$TMP/stop"
  ( n=$from
    while [ ! -f "$TMP/stop" ]; do produce "$n" $((n + 24)); echo $((n + 24)) > "$TMP/produced.tmp"
      mv "$TMP/produced.tmp" "$TMP/produced"; n=$((n + 25)); done ) &
  PRODUCER=$!
}
# stop_producer: sets N to the last number sent (not in a subshell: it waits for the producer)
stop_producer() { touch "$TMP/stop"; wait "$PRODUCER"; PRODUCER=""; N=$(cat "$TMP/produced"); }
# wait_for SQL EXPECTED: polls until the query answers EXPECTED (deadline 90 s)
# expected ROWS of orders_clean for orders 1..N with min_amount M
expect_clean() { python3 -c "import sys; n,m=int(sys.argv[1]),int(sys.argv[2]); print(sum(1 for i in range(1,n+1) if i%7 and i+0.25>=m))" "$1" "$2"; }
# check_clean NAME N M: orders_clean holds exactly the orders 1..N that pass (no duplicate, no gap)
check_clean() {
  local want got
  want=$(expect_clean "$2" "$3")
  if wait_for "SELECT count(), uniqExact(order_id) FROM shop.orders_clean WHERE order_id <= $2" "$want	$want" &&
     wait_for "SELECT sum(orders) FROM shop.customer_totals" "$(expect_clean "$4" "$3")"; then ok "$1"
  else bad "$1: want $want rows"; chq "SELECT count(), uniqExact(order_id), min(order_id), max(order_id) FROM shop.orders_clean" >&2; fi
}
landed() { chq "SELECT count() FROM shop.$(chq "SELECT name FROM system.tables WHERE database = 'shop' AND startsWith(name, 'raw__') ORDER BY name DESC LIMIT 1")"; }
wait_landed() { wait_for "SELECT count() FROM shop.$(chq "SELECT name FROM system.tables WHERE database = 'shop' AND startsWith(name, 'raw__') ORDER BY name DESC LIMIT 1")" "$1"; }

# ---- greenfield: messages produced before any object exists ----
produce 1 30
weir plan > "$TMP/plan0" 2>&1
if grep -q "nothing is deployed yet" "$TMP/plan0" && grep -q "source shop.orders *new" "$TMP/plan0"; then ok "plan: greenfield"; else bad "plan: greenfield" "$TMP/plan0"; fi
if chq "EXISTS DATABASE shop" | grep -qx 0 || ! chq "SHOW DATABASES" | grep -qx shop; then ok "plan is read-only"; else bad "plan created the database"; fi
weir plan --format json > "$TMP/plan0.json" 2>&1
if python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); o = d["clickhouse"]["objects"]; assert d["clickhouse"]["deployed"] is None and [x["action"] for x in o] == ["new"] * 4 and d["models"]' "$TMP/plan0.json"; then
  ok "plan --format json: the lifecycle plan with what ClickHouse does"; else bad "plan json" "$TMP/plan0.json"; fi
weir apply --yes --allow-rebuild > "$TMP/apply1" 2>&1
rc=$?
if [ $rc -eq 0 ] && grep -q "published deployment" "$TMP/apply1"; then ok "apply: greenfield build and publish"; else bad "apply greenfield (rc $rc)" "$TMP/apply1"; fi
check_clean "greenfield: every message produced before the source existed, exactly once" 30 0 30
if wait_for "SELECT customer_id, orders, total, biggest FROM shop.customer_totals WHERE customer_id = 1" "1	5	61.25	26.25"; then ok "aggregate view shows weir's upsert result"; else bad "aggregate view"; fi

# ---- connection precedence and secrets ----
WEIR_CLICKHOUSE_PASSWORD=s3cret-XYZ-42 weir plan > "$TMP/pw" 2>&1
if [ $? -eq 3 ] && ! grep -q "s3cret-XYZ-42" "$TMP/pw" && grep -qi "password\|Authentication\|Code: 19[0-9]\|Code: 516" "$TMP/pw"; then ok "a wrong password is refused and never printed"; else bad "password handling" "$TMP/pw"; fi
weir --clickhouse-url http://127.0.0.1:9 plan > "$TMP/prec" 2>&1
if [ $? -eq 3 ] && grep -q "127.0.0.1:9 (from --clickhouse-url)" "$TMP/prec"; then ok "--clickhouse-url wins over the target"; else bad "flag precedence" "$TMP/prec"; fi
WEIR_CLICKHOUSE_URL=http://127.0.0.1:9 weir plan > "$TMP/prec2" 2>&1
if [ $? -eq 3 ] && grep -q "from WEIR_CLICKHOUSE_URL" "$TMP/prec2"; then ok "WEIR_CLICKHOUSE_URL wins over the target"; else bad "env precedence" "$TMP/prec2"; fi

# ---- the same models on the native runtime give the same rows ----
weir --target native run --until-caught-up --no-progress > "$TMP/native" 2>&1 || bad "native run" "$TMP/native"
sqlite3 -separator '	' "$P/target/native.db" "SELECT customer_id, orders, total, biggest FROM customer_totals ORDER BY customer_id" > "$TMP/n1"
chq "SELECT customer_id, orders, total, biggest FROM shop.customer_totals ORDER BY customer_id" > "$TMP/c1"
sqlite3 -separator '	' "$P/target/native.db" "SELECT window_start, window_end, orders, total FROM per_window ORDER BY window_start" > "$TMP/n2"
# each view reads the topic with its own consumer group: wait until this one has too
wait_for "SELECT window_start, window_end, orders, total FROM shop.per_window ORDER BY window_start" "$(cat "$TMP/n2")"
chq "SELECT window_start, window_end, orders, total FROM shop.per_window ORDER BY window_start" > "$TMP/c2"
if [ -s "$TMP/n1" ] && diff "$TMP/n1" "$TMP/c1" > "$TMP/d1" && [ -s "$TMP/n2" ] && diff "$TMP/n2" "$TMP/c2" > "$TMP/d2"; then
  ok "native runtime and ClickHouse give the same rows (aggregate and tumbling window)"
else bad "native vs ClickHouse"; cat "$TMP/d1" "$TMP/d2" >&2; fi


# ---- staged cut-over under continuous ingestion; only a WHERE clause changes ----
V10='{"min_amount": 10}'
start_producer 31
until [ -f "$TMP/produced" ] && [ "$(cat "$TMP/produced")" -ge 200 ]; do sleep 0.05; done
weir --vars "$V10" plan > "$TMP/plan1" 2>&1
if grep -q "model  orders_clean *rebuild" "$TMP/plan1" && grep -q "model  customer_totals *rebuild" "$TMP/plan1" &&
   grep -q "model  per_window *unchanged" "$TMP/plan1" && grep -q "BACKFILL *customer_totals" "$TMP/plan1"; then
  ok "plan: a changed WHERE rebuilds the model and the one reading it, and nothing else"
else bad "plan of a WHERE change" "$TMP/plan1"; fi
weir --vars "$V10" apply --yes --allow-rebuild --staged > "$TMP/staged1" 2>&1
rc=$?
D2=$(sed -n 's/^deployment \([0-9TZ_a-f]*\)$/\1/p' "$TMP/staged1" | head -1)
if [ $rc -eq 0 ] && [ -n "$D2" ]; then ok "apply --staged"; else bad "apply --staged (rc $rc)" "$TMP/staged1"; fi
if [ "$(chq "SELECT count() FROM shop.orders_clean WHERE order_id < 10")" = 8 ]; then ok "readers see the published version while it is staged"
else bad "readers were switched before publish"; fi
n0=$(chq "SELECT count() FROM shop.orders_clean__$D2")
if wait_for "SELECT count() > $n0 FROM shop.orders_clean__$D2" 1; then ok "the staged path stays live before publish"
else bad "staged path not live (had $n0 rows)"; chq "SELECT _weir_replay, count(), max(orders_clean__order_id) FROM shop.orders_clean__$D2 GROUP BY _weir_replay" >&2; grep -i kafka "$WEIR_CH_DIR/log/error.log" | grep -v '^[0-9]*\. ' | tail -5 >&2; fi
weir --vars "$V10" audit > "$TMP/audit1" 2>&1
if [ $? -eq 0 ] && grep -q "ready" "$TMP/audit1"; then ok "audit: ready"; else bad "audit" "$TMP/audit1"; fi
weir --vars "$V10" publish > "$TMP/pub1" 2>&1
if [ $? -eq 0 ] && grep -q "switched in one statement" "$TMP/pub1"; then ok "publish"; else bad "publish" "$TMP/pub1"; fi
stop_producer
wait_landed "$N" || bad "landing did not catch up with $N"
check_clean "cut-over under continuous ingestion: 0 duplicates, 0 gaps ($N orders)" "$N" 10 "$N"
weir --vars "$V10" apply --yes --allow-rebuild > "$TMP/again" 2>&1
if [ $? -eq 0 ] && grep -q "nothing to apply" "$TMP/again"; then ok "apply of the published version does nothing"; else bad "apply is not idempotent" "$TMP/again"; fi

# ---- a change of only a downstream model of a published chain ----
cat > "$P/models/customer_totals.sql" <<'SQL'
SELECT customer_id, COUNT(*) AS orders, SUM(amount) AS total, MAX(amount) AS biggest, MIN(amount) AS smallest
FROM ref('orders_clean')
GROUP BY customer_id
SQL
weir --vars "$V10" plan > "$TMP/plan2" 2>&1
if grep -q "model  orders_clean *unchanged" "$TMP/plan2" && grep -q "model  customer_totals *rebuild" "$TMP/plan2"; then
  ok "plan: a downstream-only change rebuilds only that model"; else bad "plan of a downstream change" "$TMP/plan2"; fi
produce $((N + 1)) $((N + 20))
N=$((N + 20))
weir --vars "$V10" apply --yes --allow-rebuild > "$TMP/apply3" 2>&1 || bad "apply downstream change" "$TMP/apply3"
wait_landed "$N"
if wait_for "SELECT sum(orders), min(smallest) FROM shop.customer_totals" "$(expect_clean $N 10)	10.25"; then
  ok "the changed downstream model holds every row, new ones included"; else bad "downstream change"; fi

# ---- rollback of that subtree-only deployment ----
weir --vars "$V10" rollback > "$TMP/rb" 2>&1
if [ $? -eq 0 ] && [ "$(chq "SELECT count() FROM system.columns WHERE database = 'shop' AND table = 'customer_totals'")" = 4 ] &&
   wait_for "SELECT sum(orders) FROM shop.customer_totals" "$(expect_clean $N 10)"; then
  ok "rollback restores the previous view of the changed model only, and it is current"
else bad "rollback" "$TMP/rb"; fi
git -C "$ROOT" show HEAD:tests/clickhouse/shop/models/customer_totals.sql > "$P/models/customer_totals.sql" 2>/dev/null ||
  cp "$ROOT/tests/clickhouse/shop/models/customer_totals.sql" "$P/models/customer_totals.sql"

# ---- a crash after every workflow step, then a rerun, while orders keep arriving ----
start_producer $((N + 1))
k=0
for step in planned prepared captured live replayed staged publish-intent publish-renamed; do
  k=$((k + 1))
  V="{\"min_amount\": $k}"
  WEIR_CLICKHOUSE_CRASH_AFTER=$step weir --vars "$V" apply --yes --allow-rebuild > "$TMP/crash-$step" 2>&1
  rc1=$?
  weir --vars "$V" apply --yes --allow-rebuild > "$TMP/rerun-$step" 2>&1
  rc2=$?
  got=$(chq "SELECT count() = uniqExact(order_id) FROM shop.orders_clean")
  if [ $rc1 -eq 9 ] && [ $rc2 -eq 0 ] && grep -q "resuming deployment" "$TMP/rerun-$step" && [ "$got" = 1 ]; then
    ok "crash after step $step, then a rerun resumes it"
  else bad "crash after $step (rc $rc1, rerun rc $rc2, distinct $got)" "$TMP/rerun-$step"; fi
done
stop_producer
wait_landed "$N"
check_clean "after a crash at every step and a rerun: 0 duplicates, 0 gaps ($N orders)" "$N" "$k" "$N"

# ---- the lock: a second mutating command is refused ----
sleep 300 &
SLEEPER=$!
chq "CREATE TABLE shop._weir_lock (host String, pid UInt32, command String, at_ms UInt64) ENGINE = Log"
chq "INSERT INTO shop._weir_lock VALUES ('$(hostname)', $SLEEPER, 'apply', 0)"
weir --vars '{"min_amount": 2}' apply --yes --allow-rebuild > "$TMP/locked" 2>&1
rc=$?
if [ $rc -eq 1 ] && grep -q "locked by weir apply (pid $SLEEPER" "$TMP/locked"; then ok "a second mutating command is refused by the lock"
else bad "lock (rc $rc)" "$TMP/locked"; fi
kill "$SLEEPER"; wait "$SLEEPER" 2>/dev/null
weir --vars '{"min_amount": 2}' apply --yes --allow-rebuild --staged > "$TMP/stale" 2>&1
if [ $? -eq 0 ]; then ok "a lock left by a process that is gone is taken over"; else bad "stale lock" "$TMP/stale"; fi

# ---- an interrupted publish, finished by doctor ----
WEIR_CLICKHOUSE_CRASH_AFTER=publish-intent weir --vars '{"min_amount": 2}' publish > "$TMP/pubcrash" 2>&1
rc=$?
weir doctor > "$TMP/doctor1" 2>&1
rc2=$?
if [ $rc -eq 9 ] && [ $rc2 -eq 0 ] && grep -q "was interrupted: finished" "$TMP/doctor1" &&
   wait_for "SELECT count() FROM shop.orders_clean WHERE order_id < 3" 1; then
  ok "an interrupted publish is finished by doctor"
else bad "doctor after an interrupted publish (rc $rc, $rc2)" "$TMP/doctor1"; fi

# ---- a deleted stable view is reported and repaired ----
chq "DROP TABLE shop.customer_totals"
weir doctor > "$TMP/doctor2" 2>&1
rc=$?
weir repair > "$TMP/repair" 2>&1
rc2=$?
if [ $rc -eq 1 ] && grep -q "stable view customer_totals is missing" "$TMP/doctor2" && [ $rc2 -eq 0 ] &&
   [ "$(chq "SELECT sum(orders) FROM shop.customer_totals")" = "$(expect_clean $N 2)" ]; then
  ok "a deleted view is reported by doctor and restored by repair"
else bad "repair (rc $rc, $rc2)" "$TMP/doctor2"; cat "$TMP/repair" >&2; fi

# ---- a source change is detected, planned and applied ----
sed -i 's/topic: orders$/topic: orders2/' "$P/sources/shop.yml"
produce 1 40 orders2
weir --vars '{"min_amount": 2}' plan > "$TMP/plan3" 2>&1
if grep -q "source shop.orders *rebuild" "$TMP/plan3" && grep -q "model  per_window *rebuild" "$TMP/plan3" &&
   grep -q "reads kafka orders2 instead of kafka orders" "$TMP/plan3"; then ok "plan: a changed topic plans a new landing and rebuilds its models"
else bad "plan of a source change" "$TMP/plan3"; fi
weir --vars '{"min_amount": 2}' apply --yes --allow-rebuild > "$TMP/apply4" 2>&1 || bad "apply source change" "$TMP/apply4"
check_clean "a new landing reads the new topic from its earliest offset" 40 2 40

# ---- janitor ----
D1=$(sed -n 's/^deployment \([0-9TZ_a-f]*\)$/\1/p' "$TMP/apply1" | head -1)
weir janitor --retain 0s > "$TMP/jan" 2>&1
if [ $? -eq 0 ] && [ "$(chq "SELECT count() FROM system.tables WHERE database = 'shop' AND position(name, '$D1') > 0")" = 0 ] &&
   [ "$(chq "SELECT count() FROM shop.orders_clean")" = "$(expect_clean 40 2)" ]; then
  ok "janitor drops superseded deployments and keeps what readers use"
else bad "janitor" "$TMP/jan"; fi
weir doctor > "$TMP/doctor3" 2>&1
if [ $? -eq 0 ]; then ok "doctor: healthy at the end"; else bad "doctor at the end" "$TMP/doctor3"; fi

echo "elapsed ${SECONDS}s"
echo "$passed passed, $failed failed"
[ $failed -eq 0 ]
