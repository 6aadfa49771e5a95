#!/usr/bin/env bash
# Adopted `stream_table` sources on a real ClickHouse server (Debian 12's 18.16, started
# here on 127.0.0.1, stopped at the end): an existing table written by another client
# while weir deploys, adopted once per replay boundary mode (cursor, offsets,
# landed_at). A greenfield apply while the writer pauses, and a staged change of the
# models' WHERE clause while rows keep arriving, must leave each view with every row
# exactly once: with rows arriving only the landed_at boundary (stamped by the server)
# is exact; a cursor or offsets boundary misses the rows written between the capture
# and the view's creation (docs/clickhouse.md). A boundary column that the live table
# lacks is refused before anything is created. Models read the replay lineage columns
# the boundary maps.
source "$(dirname "$0")/lib.sh"
set +e
passed=0
failed=0
ok() { passed=$((passed + 1)); echo "ok: $1"; }
bad() { failed=$((failed + 1)); echo "FAIL: $1" >&2; [ -n "${2:-}" ] && sed 's/^/    /' "$2" | tail -30 >&2; }
eval "$("$ROOT/scripts/clickhouse-start")" || { echo "0 passed, 1 failed"; exit 1; }
WRITER=""
cleanup() { [ -n "$WRITER" ] && kill "$WRITER" 2>/dev/null; "$ROOT/scripts/clickhouse-stop"; rm -rf "$TMP"; }
trap cleanup EXIT
CH=$WEIR_CLICKHOUSE_URL
export WEIR_TEST_CLICKHOUSE_URL=$CH
unset WEIR_CLICKHOUSE_URL WEIR_CLICKHOUSE_USER
P=$(copy_project "$ROOT/tests/clickhouse/adopted" adopted)
weir() { "$WEIR" --project-dir "$P" "$@"; }
source "$ROOT/tests/scripts/clickhouse_lib.sh"
chq "CREATE DATABASE app_src"
chq "CREATE TABLE app_src.events (id Int64, kind String, p Int32, o Int64, landed_at DateTime DEFAULT now()) ENGINE = MergeTree() ORDER BY id"
# write ROWS: ids FROM..TO, kind by id % 3, partition id % 2, offset id / 2
# (18.16 fails an insert that runs while a view of the table is being created; the
# writer retries it, as any client would)
write() {
  local out
  until out=$(chq "INSERT INTO app_src.events (id, kind, p, o) SELECT number, ['a','b','c'][number % 3 + 1], toInt32(number % 2), intDiv(number, 2) FROM system.numbers WHERE number >= $1 LIMIT $(($2 - $1 + 1))" 2>&1) && [ -z "$out" ]; do
    echo "$out" >> "$TMP/write-errors"
  done
}
start_writer() {
  rm -f "$TMP/stop"
  ( n=$1; while [ ! -f "$TMP/stop" ]; do write "$n" $((n + 49)); echo $((n + 49)) > "$TMP/w.tmp"; mv "$TMP/w.tmp" "$TMP/written"; n=$((n + 50)); done ) &
  WRITER=$!
}
stop_writer() { touch "$TMP/stop"; wait "$WRITER"; WRITER=""; N=$(cat "$TMP/written"); }
# check NAME MIN MODES: the views of each mode hold exactly the ids MIN..N once
check_all() {
  local want=$(( N - $2 + 1 )) m good=1
  for m in $3; do
    wait_for "SELECT count(), uniqExact(id), min(id), max(id) FROM app.ids_$m" "$want	$want	$2	$N" || good=0
    wait_for "SELECT sum(n) FROM app.kinds_$m" "$want" || good=0
  done
  if [ $good = 1 ]; then ok "$1"; else bad "$1"; chq "SELECT count(), uniqExact(id) FROM app_src.events" >&2; fi
}

write 0 999
N=999
weir apply --yes > "$TMP/apply1" 2>&1
rc=$?
if [ $rc -eq 0 ]; then ok "apply: adopted sources (cursor, offsets, landed_at)"; else bad "apply (rc $rc)" "$TMP/apply1"; fi
start_writer 1000
until [ -f "$TMP/written" ] && [ "$(cat "$TMP/written")" -ge 1500 ]; do sleep 0.05; done
stop_writer
check_all "history replayed and rows written since seen live, each once, in each boundary mode" 0 "cursor offsets landed"
# the replay lineage columns read the columns each replay_boundary maps
if wait_for "SELECT count(), countIf(part = id % 2 AND off = intDiv(id, 2)) FROM app.pos_offsets" "$((N + 1))	$((N + 1))" &&
   wait_for "SELECT count(), toString(min(landed)), toString(max(landed)) FROM app.pos_landed" \
     "$(chq "SELECT count(), toString(min(landed_at)), toString(max(landed_at)) FROM app_src.events")"; then
  ok "replay lineage columns of adopted tables (offsets: partition and offset, landed_at)"
else bad "replay lineage columns of adopted tables"; fi

start_writer $((N + 1))
until [ "$(cat "$TMP/written")" -ge $((N + 500)) ]; do sleep 0.05; done
weir --vars '{"min_id": 100}' apply --yes --staged > "$TMP/staged" 2>&1 || bad "apply --staged" "$TMP/staged"
weir --vars '{"min_id": 100}' publish > "$TMP/pub" 2>&1 || bad "publish" "$TMP/pub"
stop_writer
check_all "a staged WHERE change while rows arrive: 0 duplicates, 0 gaps with a landed_at boundary" 100 landed

sed -i 's/column: landed_at}/column: arrived_at}/' "$P/sources/events.yml"
before=$(chq "SELECT count() FROM system.tables WHERE database = 'app'")
weir --vars '{"min_id": 200}' apply --yes --allow-rebuild > "$TMP/badcol" 2>&1
rc=$?
if [ $rc -eq 2 ] && grep -q "has no column arrived_at" "$TMP/badcol" &&
   [ "$(chq "SELECT count() FROM system.tables WHERE database = 'app'")" = "$before" ]; then
  ok "a boundary column the live table lacks is refused before anything is created"
else bad "boundary validation (rc $rc)" "$TMP/badcol"; fi

echo "$passed passed, $failed failed"
[ $failed -eq 0 ]
