#!/usr/bin/env bash
# native_fallback on a real ClickHouse server (Debian 12's 18.16, started here on
# 127.0.0.1) with the real Kafka broker: a join of two streams, which ClickHouse cannot
# maintain, is marked native by plan and apply, computed by `weir run --target ch` and
# written by the ClickHouse sink into a ReplacingMergeTree read through a FINAL view,
# beside a model ClickHouse maintains itself. A run killed right after a delivery's
# insert, before the checkpoint is marked delivered (WEIR_CRASH_AT=delivered), and one
# killed half-way through a delivery, then rerun: every row once in the view and in the
# table. A change of the native model's columns: plan reports the rebuild with the
# column diff, apply --staged makes a new table that the native runtime fills from the
# start of the sources while readers keep the old one, publish switches the view, the
# next run continues the new table, a rollback returns to the old one (whose run
# continues from its own state). A second native model (an aggregate over the join) has
# a run of its own beside it and is kept as it is; a continuous run of both stops on one
# SIGTERM. Each check counts as one test.
source "$(dirname "$0")/lib.sh"
set +e
passed=0
failed=0
ok() { passed=$((passed + 1)); echo "ok: $1"; }
bad() { failed=$((failed + 1)); echo "FAIL: $1" >&2; [ -n "${2:-}" ] && sed 's/^/    /' "$2" | tail -30 >&2; }
eval "$(BUILD=$BUILD "$ROOT/scripts/kafka-broker-start" j_orders:1 j_payments:2)" || { echo "0 passed, 1 failed"; exit 1; }
eval "$("$ROOT/scripts/clickhouse-start")" || { "$ROOT/scripts/kafka-stop"; echo "0 passed, 1 failed"; exit 1; }
cleanup() { "$ROOT/scripts/kafka-stop"; "$ROOT/scripts/clickhouse-stop"; rm -rf "$TMP"; }
trap cleanup EXIT
export KAFKA_BOOTSTRAP
CH=$WEIR_CLICKHOUSE_URL
export WEIR_TEST_CLICKHOUSE_URL=$CH
unset WEIR_CLICKHOUSE_URL WEIR_CLICKHOUSE_USER
P=$(copy_project "$ROOT/tests/clickhouse/joined" joined)
weir() { "$WEIR" --project-dir "$P" "$@"; }
source "$ROOT/tests/scripts/clickhouse_lib.sh"
# order N: amount N.50, a note with a tab, a backslash and a newline; a payment for
# every order but each 4th, on partition N % 2
produce() {  # produce FROM TO
  local i
  for ((i = $1; i <= $2; i++)); do
    printf '{"order_id":%d,"amount":%d.50,"note":"t\\tb\\\\n\\nx%d"}\n' "$i" "$i" "$i"
  done | kcat -P -b "$KAFKA_BOOTSTRAP" -t j_orders -X enable.idempotence=true
  for part in 0 1; do
    for ((i = $1; i <= $2; i++)); do
      [ $((i % 4)) -eq 0 ] || [ $((i % 2)) -ne $part ] || printf '{"order_id":%d,"method":"card"}\n' "$i"
    done | kcat -P -b "$KAFKA_BOOTSTRAP" -t j_payments -p $part -X enable.idempotence=true
  done
}
# expected rows of paid_orders for orders 1..N: count, sum(amount)
expect() { python3 -c "import sys; n=int(sys.argv[1]); r=[i for i in range(1,n+1) if i%4]; print('%d\t%d\t%s' % (len(r), len(r), '%.2f' % sum(i+0.5 for i in r)))" "$1"; }
# bound NAME: the table the stable view NAME reads
bound() { chq "SELECT extract(create_table_query, '$1__[0-9]{8}T[0-9]{6}Z_[0-9a-f]{6}') FROM system.tables WHERE database = 'joined' AND name = '$1'"; }
check_view() {  # NAME N: the view and the table hold every joined order once
  local want nt
  want=$(expect "$2")
  nt=$(bound paid_orders)
  if [ -n "$nt" ] && wait_for "SELECT count(), uniqExact(order_id), toString(sum(amount)) FROM joined.paid_orders" "$want" &&
     wait_for "SELECT count() FROM joined.$nt FINAL WHERE _weir_deleted = 0" "$(echo "$want" | cut -f1)" &&
     wait_for "SELECT method, orders FROM joined.paid_by_method" "card	$(echo "$want" | cut -f1)" &&
     wait_for "SELECT countIf(payment_partition = order_id % 2 AND method = 'card' AND note = concat('t\tb\\\\n\nx', toString(order_id))) FROM joined.paid_orders" "$(echo "$want" | cut -f1)"; then
    ok "$1"
  else
    bad "$1"
    chq "SELECT _weir_delivery, count() FROM joined.$nt GROUP BY _weir_delivery ORDER BY 1" >&2
  fi
}

produce 1 200
weir plan > "$TMP/plan" 2>&1
rc=$?
if [ $rc -eq 0 ] && grep -q "paid_orders  *new -> paid_orders__" "$TMP/plan" && grep -q "native: a new table" "$TMP/plan" &&
   grep -q "\`weir run --target ch\` keeps it current" "$TMP/plan"; then
  ok "plan marks the stream-stream join native and says how to run it"
else bad "plan (rc $rc)" "$TMP/plan"; fi
# a broker just started may answer "not coordinator" for a while: apply stops with exit 3
# and resumes where it stopped when rerun
for try in 1 2 3 4 5; do
  weir apply --yes > "$TMP/apply" 2>&1
  rc=$?
  [ $rc -eq 3 ] && grep -q "Not coordinator\|Coordinator load" "$TMP/apply" || break
done
T1=$(bound paid_orders)
M1=$(bound paid_by_method)
if [ $rc -eq 0 ] && grep -q "native model paid_orders: \`joined\`.\`$T1\`" "$TMP/apply" && [ -n "$T1" ] && [ -n "$M1" ] &&
   [ "$(chq "SELECT count() FROM joined.paid_orders")" = "$(expect 200 | cut -f1)" ]; then
  ok "apply deploys the ClickHouse models, makes the native models' tables and fills them natively before publishing"
else bad "apply (rc $rc)" "$TMP/apply"; echo "$passed passed, $failed failed"; exit 1; fi
wait_for "SELECT count() FROM joined.big_orders" "101" && ok "the ClickHouse-maintained model beside it" || bad "big_orders"

weir run --target ch --until-caught-up --no-progress > "$TMP/run1" 2>&1
rc=$?
[ $rc -eq 0 ] || bad "weir run --target ch (rc $rc)" "$TMP/run1"
check_view "weir run --target ch writes the join into ClickHouse" 200

# killed after the insert of a delivery, before its checkpoint is marked delivered
produce 201 400
WEIR_CRASH_AT=delivered:1 "$WEIR" --project-dir "$P" run --target ch --until-caught-up --no-progress > "$TMP/run2" 2>&1
rc=$?
inserted=$(chq "SELECT count() FROM joined.$T1")
if [ $rc -eq 137 ] && [ "$inserted" = "$(expect 400 | cut -f1)" ]; then ok "the crash came after the insert"
else bad "crash at delivered (rc $rc, $inserted rows)" "$TMP/run2"; fi
weir run --target ch --until-caught-up --no-progress > "$TMP/run3" 2>&1 || bad "rerun after the crash" "$TMP/run3"
check_view "after a crash between insert and checkpoint and a rerun: no duplicates" 400

# killed half-way through a delivery (nothing of it was inserted: one insert per delivery)
produce 401 600
WEIR_CRASH_AT=delivery:1 "$WEIR" --project-dir "$P" run --target ch --until-caught-up --no-progress > "$TMP/run4" 2>&1
rc=$?
[ $rc -eq 137 ] || bad "crash at delivery (rc $rc)" "$TMP/run4"
weir run --target ch --until-caught-up --no-progress > "$TMP/run5" 2>&1 || bad "rerun after the second crash" "$TMP/run5"
check_view "after a crash during a delivery and a rerun: every row once" 600

# a change of the native model's columns
cp "$P/models/paid_orders.sql" "$TMP/paid_orders.v1"
cat > "$P/models/paid_orders.sql" <<'SQL'
SELECT o.order_id, o.amount, o.note, p.method, p._replay_partition AS payment_partition, o.order_id + 1000 AS ref
FROM source('j.orders') AS o
JOIN source('j.payments') AS p ON o.order_id = p.order_id
SQL
weir plan > "$TMP/plan2" 2>&1
if grep -q "paid_orders  *rebuild -> paid_orders__" "$TMP/plan2" && grep -qF "its columns changed (+ ref Nullable(Int64))" "$TMP/plan2" &&
   grep -q "paid_by_method  *unchanged" "$TMP/plan2" && grep -q "big_orders  *unchanged" "$TMP/plan2"; then
  ok "plan reports the native model's rebuild with the column diff, the other models unchanged"
else bad "plan of a native column change" "$TMP/plan2"; fi
weir apply --staged --yes > "$TMP/apply2" 2>&1
rc=$?
T2=$(sed -n 's/.*paid_orders  *rebuild -> \(paid_orders__[0-9A-Za-z_]*\).*/\1/p' "$TMP/apply2" | head -1)
n450=$(expect 600 | cut -f1)
if [ $rc -eq 0 ] && [ -n "$T2" ] && [ "$T2" != "$T1" ] && [ "$(bound paid_orders)" = "$T1" ] &&
   [ "$(chq "SELECT count() FROM system.columns WHERE database = 'joined' AND table = 'paid_orders' AND name = 'ref'")" = 0 ] &&
   [ "$(chq "SELECT count() FROM joined.paid_orders")" = "$n450" ] &&
   [ "$(chq "SELECT count(), countIf(ref = order_id + 1000), uniqExact(order_id) FROM joined.$T2 FINAL WHERE _weir_deleted = 0")" = "$n450	$n450	$n450" ]; then
  ok "apply --staged fills a new table natively from the start of the sources; readers keep the old one"
else bad "apply --staged of the native change (rc $rc, $T1 -> $T2)" "$TMP/apply2"; fi
produce 601 800
weir publish > "$TMP/pub2" 2>&1
rc=$?
if [ $rc -eq 0 ] && [ "$(bound paid_orders)" = "$T2" ] && [ "$(bound paid_by_method)" = "$M1" ] &&
   [ "$(chq "SELECT count(), countIf(ref = order_id + 1000) FROM joined.paid_orders")" = "$n450	$n450" ]; then
  ok "publish switches the native model's view to the new table"
else bad "publish of the native change (rc $rc)" "$TMP/pub2"; fi
weir run --target ch --until-caught-up --no-progress > "$TMP/run6" 2>&1 || bad "run after the publish" "$TMP/run6"
check_view "the next run continues the new table from its own state: every row once" 800
n600=$(expect 800 | cut -f1)
[ "$(chq "SELECT countIf(ref = order_id + 1000) FROM joined.paid_orders")" = "$n600" ] && ok "the new column for every row" || bad "ref after the run"
weir rollback > "$TMP/rb" 2>&1
rc=$?
if [ $rc -eq 0 ] && [ "$(bound paid_orders)" = "$T1" ] &&
   [ "$(chq "SELECT count() FROM system.columns WHERE database = 'joined' AND table = 'paid_orders' AND name = 'ref'")" = 0 ] &&
   [ "$(chq "SELECT count() FROM joined.paid_orders")" = "$n450" ]; then
  ok "rollback returns the view to the old table"
else bad "rollback of the native change (rc $rc)" "$TMP/rb"; fi
cp "$TMP/paid_orders.v1" "$P/models/paid_orders.sql"
weir run --target ch --until-caught-up --no-progress > "$TMP/run7" 2>&1 || bad "run of the old version after the rollback" "$TMP/run7"
check_view "the old table's run continues from its own state after the rollback" 800
# a continuous run (no --until-caught-up) of the two native models: a child process each,
# both stopped by one SIGTERM to weir run
"$WEIR" --project-dir "$P" run --target ch --no-progress > "$TMP/run8" 2>&1 &
RUNPID=$!
produce 801 900
check_view "a continuous run of both native models keeps the views current" 900
kidpids=$(ps -o pid= --ppid $RUNPID)
kids=$(echo $kidpids | wc -w)
kill -TERM $RUNPID
deadline=$((SECONDS + 60))
while kill -0 $RUNPID 2>/dev/null && [ $SECONDS -lt $deadline ]; do sleep 0.1; done
kill -0 $RUNPID 2>/dev/null && kill -9 $RUNPID $kidpids
wait $RUNPID
rc=$?
left=0
for k in $kidpids; do kill -0 "$k" 2>/dev/null && left=$((left + 1)); done
if [ "$kids" = 2 ] && [ $rc -eq 0 ] && [ "$left" = 0 ]; then
  ok "SIGTERM to weir run stops the run of every native model"
else bad "SIGTERM to the continuous run (children $kids, rc $rc, $left left)" "$TMP/run8"; fi

echo "$passed passed, $failed failed"
[ $failed -eq 0 ]
