#!/usr/bin/env bash
# Durable runs over a real Apache Kafka broker (scripts/kafka-broker-start on 127.0.0.1,
# one for all checks, started and stopped here): a run continues from its checkpoint; a
# run killed with SIGKILL at any moment and then resumed leaves every sink (file,
# SQLite, Kafka as read_committed consumers see it) and dead-letter file exactly as one
# uninterrupted run does, and so does a run whose broker is killed and restarted; a
# checkpoint that no longer fits the project, a state directory in use, records lost to
# the broker's retention and a source topic deleted and recreated are refused with a
# message; the same kills on engine replicas (--workers 2) resumed with other worker
# counts and batch sizes give the same sinks. Each check counts as one test.
source "$(dirname "$0")/lib.sh"
set +e
passed=0
failed=0
check() {  # check NAME FUNCTION
  local out
  if out=$("$2" 2>&1); then passed=$((passed + 1)); else
    failed=$((failed + 1)); echo "FAIL: $1" >&2; echo "$out" | sed 's/^/    /' | tail -40 >&2; fi
}
eval "$(BUILD=$BUILD "$ROOT/scripts/kafka-broker-start" ev:2 ev2:2 bad:1 small:1 out_ref:2 out_cont:2 out_crash:2 out_crashw:2 out_term:2 \
        out_dl:2 out_lost:2 recr:1 out_recr:1 out_bounce:2)" || { echo "0 passed, 1 failed"; exit 1; }
trap '"$ROOT/scripts/kafka-stop"; rm -rf "$TMP"' EXIT
B=$KAFKA_BOOTSTRAP
export KAFKA_BOOTSTRAP
ADMIN=$ROOT/$BUILD/kafka-admin
# committed TOPIC: every message a read_committed consumer sees
committed() { kcat -C -b "$B" -t "$1" -e -q -X isolation.level=read_committed; }

# project DIR TOPIC OUT: an aggregate into SQLite, a filter and a window into files,
# another filter into the Kafka topic OUT
project() {
  mkdir -p "$1/sources" "$1/models"
  cat > "$1/weir.yml" <<'EOF'
name: durable
default_target: dev
targets:
  dev: {runtime: native, kafka: {bootstrap_servers: "${ENV:KAFKA_BOOTSTRAP}"}}
EOF
  cat > "$1/sources/ev.yml" <<EOF
sources:
  ev:
    connector: kafka
    topic: $2
    format: json
    columns: {id: bigint, k: bigint, v: bigint, ts: timestamp}
    event_time: ts
EOF
  echo "SELECT k, count(*) AS n, sum(v) AS s FROM source('ev') GROUP BY k" > "$1/models/agg.sql"
  echo "SELECT id, k, v FROM source('ev') WHERE v % 7 = 1" > "$1/models/to_kafka.sql"
  echo "SELECT id, k, v FROM source('ev') WHERE v % 3 = 0" > "$1/models/sel.sql"
  echo "SELECT window_start, k, count(*) AS n FROM TUMBLE(source('ev'), ts, INTERVAL '1' MINUTE) GROUP BY window_start, window_end, k" \
    > "$1/models/win.sql"
  cat > "$1/models/models.yml" <<'EOF'
models:
  agg:
    materialized: upsert
    key: [k]
    sink: {connector: sqlite, path: out/db.sqlite, table: agg}
  sel:
    materialized: append
    sink: {connector: file, path: out/sel.jsonl, format: json}
  win:
    materialized: append
    sink: {connector: file, path: out/win.jsonl, format: json}
EOF
  cat >> "$1/models/models.yml" <<EOF
  to_kafka:
    materialized: append
    sink: {connector: kafka, topic: $3, format: json}
EOF
}
# events FROM TO: JSON lines id FROM..TO-1, one minute of event time per 1000 ids
events() {
  python3 - "$1" "$2" <<'PY'
import sys
for i in range(int(sys.argv[1]), int(sys.argv[2])):
    print('{"id":%d,"k":%d,"v":%d,"ts":"2026-01-01 %02d:%02d:%02d"}' % (i, i % 7, i % 100, i // 60000, (i // 1000) % 60, (i // 20) % 60))
PY
}
# same DIR_A DIR_B [TOPIC_A TOPIC_B]: equal sinks (file lines and topic messages as
# multisets: partitions interleave differently); topics as read_committed consumers
# see them, so a transaction a killed run left open or aborted shows nothing
same() {
  local f
  if [ -n "${3:-}" ]; then
    [ "$(committed "$3" | sort | md5sum)" = "$(committed "$4" | sort | md5sum)" ] \
      || { echo "topic $3 differs from $4"; return 1; }
  fi
  for f in sel win; do
    [ "$(sort "$1/out/$f.jsonl" | md5sum)" = "$(sort "$2/out/$f.jsonl" | md5sum)" ] || {
      echo "out/$f.jsonl differs ($(wc -l < "$1/out/$f.jsonl") vs $(wc -l < "$2/out/$f.jsonl") lines; < $1, > $2):"
      diff <(sort "$1/out/$f.jsonl") <(sort "$2/out/$f.jsonl") | head -n 12
      wc -l "$1"/target/dead_letter/* "$2"/target/dead_letter/* 2>/dev/null
      return 1; }
  done
  [ "$(sqlite3 "$1/out/db.sqlite" 'SELECT * FROM agg ORDER BY k')" = "$(sqlite3 "$2/out/db.sqlite" 'SELECT * FROM agg ORDER BY k')" ] \
    || { echo "table agg differs"; return 1; }
  [ -s "$1/out/sel.jsonl" ] || { echo "empty output"; return 1; }
}

events 0 20000 | kcat -P -b "$B" -t ev -p 0
events 20000 40000 | kcat -P -b "$B" -t ev -p 1
REF=$TMP/ref
project "$REF" ev out_ref
"$WEIR" --project-dir "$REF" run --until-caught-up --no-progress > "$TMP/ref.txt" 2>&1 \
  || { echo "the reference run failed:"; cat "$TMP/ref.txt"; echo "0 passed, 1 failed"; exit 1; }

# ---- a run continues where the last one stopped ----
t_continue() {
  local P=$TMP/cont
  project "$P" ev2 out_cont
  events 0 10000 | kcat -P -b "$B" -t ev2 -p 0
  events 20000 30000 | kcat -P -b "$B" -t ev2 -p 1
  "$WEIR" --project-dir "$P" run --until-caught-up --no-progress --format json > "$TMP/c1.json" 2>/dev/null || return 1
  events 10000 20000 | kcat -P -b "$B" -t ev2 -p 0
  events 30000 40000 | kcat -P -b "$B" -t ev2 -p 1
  "$WEIR" --project-dir "$P" run --until-caught-up --no-progress --format json > "$TMP/c2.json" 2>/dev/null || return 1
  python3 - "$TMP/c1.json" "$TMP/c2.json" <<'PY' || return 1
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
assert a["durable"] and a["resumed_from"] == 0 and a["events_in"] == 20000, a
assert b["resumed_from"] == a["checkpoint"] and b["events_in"] == 20000, b
PY
  same "$P" "$REF" out_cont out_ref || return 1
  # the broker keeps the delivery marker: the last checkpoint as the sink group's offset
  [ "$("$ADMIN" -b "$B" committed weir.durable.dev.to_kafka out_cont | head -n 1)" = \
    "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["checkpoint"])' "$TMP/c2.json")" ] \
    || { echo "marker: $("$ADMIN" -b "$B" committed weir.durable.dev.to_kafka out_cont)"; return 1; }
}
check "a second run continues from the checkpoint: together they equal one run; the broker keeps the delivery marker" t_continue

t_inspect() {
  local P=$TMP/cont
  "$WEIR" --project-dir "$P" inspect --format json > "$TMP/i1.json" || return 1
  events 40000 40005 | kcat -P -b "$B" -t ev2 -p 1
  "$WEIR" --project-dir "$P" inspect --format json > "$TMP/i2.json" || return 1
  "$WEIR" --project-dir "$P" inspect > "$TMP/i2.txt" || return 1
  python3 - "$TMP/c2.json" "$TMP/i1.json" "$TMP/i2.json" <<'PY' || return 1
import json, sys
run, a, b = (json.load(open(f)) for f in sys.argv[1:4])
assert a["exists"] and a["checkpoint"] == run["checkpoint"] and a["project"] == "durable", a
src = a["sources"][0]
assert src["name"] == "ev" and [(p["offset"], p["lag"]) for p in src["partitions"]] == [(20000, 0), (20000, 0)], src
assert {s["id"]: s["entries"] for s in a["state"]}["agg/aggregate0"] == 7, a["state"]
assert sorted(s["model"] for s in a["sinks"]) == ["agg", "sel", "to_kafka", "win"], a["sinks"]
assert [p["lag"] for p in b["sources"][0]["partitions"]] == [0, 5], b["sources"]
PY
  grep -q "partition 1    next offset 20000, end 20005, lag 5" "$TMP/i2.txt" || { cat "$TMP/i2.txt"; return 1; }
  # without a cluster the offsets are still shown, the lag is unknown
  KAFKA_BOOTSTRAP=127.0.0.1:1 "$WEIR" --project-dir "$P" inspect > "$TMP/i3.txt" || return 1
  grep -q "lag unknown" "$TMP/i3.txt" && grep -q "next offset 20000" "$TMP/i3.txt" || { cat "$TMP/i3.txt"; return 1; }
}
check "weir inspect: checkpoint, offsets, lag, state sizes" t_inspect

# ---- SIGKILL at any moment, then resume: exactly-once sinks ----
# kill_after_delivery FILE LOG COMMAND...: COMMAND in the background (output to LOG),
# SIGKILLed right after FILE gained lines
kill_after_delivery() {
  local f=$1 log=$2 n pid deadline=$((SECONDS + 30))
  shift 2
  n=$(cat "$f" 2>/dev/null | wc -l)
  "$@" > "$log" 2>&1 &
  pid=$!
  until [ "$(cat "$f" 2>/dev/null | wc -l)" -gt "$n" ]; do
    [ $SECONDS -ge $deadline ] && { kill -9 $pid; echo "no delivery"; return 1; }
    sleep 0.01
  done
  kill -9 $pid
  wait $pid 2>/dev/null
  return 0
}
t_crash() {
  local P=$TMP/crash i first="" total
  project "$P" ev out_crash
  total=$(wc -l < "$REF/out/sel.jsonl")
  for i in 1 2 3; do
    # killed right after it delivered something new (mid-run: 40000 records, 5 per step)
    kill_after_delivery "$P/out/sel.jsonl" /dev/null \
      "$WEIR" --project-dir "$P" run --no-progress --batch-size 5 --checkpoint-interval 20ms || return 1
    [ -n "$first" ] || first=$(wc -l < "$P/out/sel.jsonl")
  done
  [ "$first" -lt "$total" ] || { echo "the first run was not interrupted mid-way"; return 1; }
  "$WEIR" --project-dir "$P" run --until-caught-up --no-progress > /dev/null 2>&1 || return 1
  same "$P" "$REF" out_crash out_ref
}
check "killed three times mid-run (SIGKILL) and resumed: file, SQLite and Kafka sinks equal one uninterrupted run" t_crash

# ---- the same on engine replicas (--workers), resumed with other counts and batches:
# each resume re-partitions the checkpoint's state ----
t_crash_workers() {
  local P=$TMP/crashw i total w b
  project "$P" ev out_crashw
  total=$(wc -l < "$REF/out/sel.jsonl")
  for i in 1 2 3; do
    w=$((i + 1)); b=$((3 + 2 * i))   # --workers 2, 3, 4 asked; batches 5, 7, 9
    kill_after_delivery "$P/out/sel.jsonl" "$TMP/crashw$i.txt" \
      "$WEIR" --project-dir "$P" run --no-progress --workers $w --batch-size $b --checkpoint-interval 20ms || return 1
  done
  [ "$(wc -l < "$P/out/sel.jsonl")" -lt "$total" ] || { echo "the runs were not interrupted mid-way"; return 1; }
  "$WEIR" --project-dir "$P" run --until-caught-up --no-progress --workers 1 > "$TMP/crashw.txt" 2>&1 \
    || { cat "$TMP/crashw.txt"; return 1; }
  grep -q "re-partitioned over 1" "$TMP/crashw.txt" \
    || { echo "the last run did not merge the checkpoint's replicas into one pipeline:"; cat "$TMP/crashw.txt"; return 1; }
  same "$P" "$REF" out_crashw out_ref
}
check "on 2, 3 and 4 replicas, killed three times (SIGKILL) and resumed with other --workers and batch sizes (the state re-partitioned each time): every sink equals one uninterrupted run" t_crash_workers

t_sigterm() {
  local P=$TMP/term pid deadline
  project "$P" ev out_term
  "$WEIR" --project-dir "$P" run --no-progress --format json > "$TMP/t.json" 2>/dev/null &
  pid=$!
  deadline=$((SECONDS + 30))
  until [ "$(cat "$P/out/sel.jsonl" 2>/dev/null | wc -l)" -ge "$(wc -l < "$REF/out/sel.jsonl")" ]; do
    [ $SECONDS -ge $deadline ] && { kill -9 $pid; echo "output incomplete"; return 1; }
    sleep 0.05
  done
  kill -TERM $pid
  wait $pid || { echo "exit $?"; return 1; }
  python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["interrupted"] and d["checkpoint"] >= 1, d' "$TMP/t.json" \
    || return 1
  same "$P" "$REF" out_term out_ref || return 1
  # nothing new: the next run reads nothing and changes nothing
  "$WEIR" --project-dir "$P" run --until-caught-up --no-progress --format json > "$TMP/t2.json" 2>/dev/null || return 1
  python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["events_in"] == 0 and d["changes_out"] == 0, d' \
    "$TMP/t2.json" || return 1
  same "$P" "$REF" out_term out_ref
}
check "SIGTERM: a final checkpoint, exit 0; the next run has nothing to redo" t_sigterm

# ---- dead letters are exactly-once too ----
t_dead_letters() {
  local P=$TMP/dl pid deadline
  project "$P" bad out_dl
  python3 - <<'PY' | kcat -P -b "$B" -t bad -p 0
for i in range(20000):
    print('{"id":%d,"k":1,"v":3,"ts":"2026-01-01 00:00:00"}' % i if i % 10 else 'bad %d' % i)
PY
  "$WEIR" --project-dir "$P" run --no-progress --batch-size 5 --checkpoint-interval 20ms > /dev/null 2>&1 &
  pid=$!
  deadline=$((SECONDS + 30))
  until [ -s "$P/target/dead_letter/ev.jsonl" ] && [ -s "$P/out/sel.jsonl" ]; do
    [ $SECONDS -ge $deadline ] && { kill -9 $pid; echo "no dead letters"; return 1; }
    sleep 0.01
  done
  kill -9 $pid
  wait $pid 2>/dev/null
  "$WEIR" --project-dir "$P" run --until-caught-up --no-progress > /dev/null 2>&1 || return 1
  python3 - "$P/target/dead_letter/ev.jsonl" "$P/out/sel.jsonl" <<'PY'
import json, sys
offsets = [json.loads(l)["offset"] for l in open(sys.argv[1])]
assert offsets == list(range(0, 20000, 10)), (len(offsets), offsets[:5])
ids = sorted(json.loads(l)["id"] for l in open(sys.argv[2]))
assert ids == [i for i in range(20000) if i % 10], len(ids)
PY
}
check "dead letters after a crash: each bad record once" t_dead_letters

# ---- the broker dies (SIGKILL) mid-run and comes back on the same port and data ----
# broker_up: waits until the broker answers again
broker_up() {
  local deadline=$((SECONDS + 90))
  until kcat -L -b "$B" -m 2 -q 2>/dev/null | grep -q "^ 1 brokers"; do
    [ $SECONDS -ge $deadline ] && { echo "the broker did not come back"; return 1; }
    sleep 0.1
  done
}
t_broker_restart() {
  local P=$TMP/bounce pid deadline want
  project "$P" ev out_bounce
  want=$(committed out_ref | wc -l)
  "$WEIR" --project-dir "$P" run --no-progress --batch-size 5 --checkpoint-interval 20ms > /dev/null 2>"$TMP/bounce.err" &
  pid=$!
  deadline=$((SECONDS + 60))
  until [ -s "$P/out/sel.jsonl" ]; do
    [ $SECONDS -ge $deadline ] && { kill -9 $pid; echo "no delivery"; return 1; }
    sleep 0.01
  done
  # frozen wherever it is (perhaps inside a transaction) while the broker dies and restarts
  kill -STOP $pid
  [ "$(wc -l < "$P/out/sel.jsonl")" -lt "$(wc -l < "$REF/out/sel.jsonl")" ] || { kill -9 $pid; echo "not mid-run"; return 1; }
  kill -USR1 "$WEIR_KAFKA_PID"
  broker_up || { kill -9 $pid; return 1; }
  kill -CONT $pid
  deadline=$((SECONDS + 120))
  until [ "$(committed out_bounce 2>/dev/null | wc -l)" -ge "$want" ] && \
        [ "$(wc -l < "$P/out/sel.jsonl")" -ge "$(wc -l < "$REF/out/sel.jsonl")" ]; do
    kill -0 $pid 2>/dev/null || { echo "the run ended"; cat "$TMP/bounce.err"; return 1; }
    [ $SECONDS -ge $deadline ] && { kill -9 $pid; echo "output incomplete"; return 1; }
    sleep 0.1
  done
  kill -TERM $pid
  wait $pid || { echo "exit $?"; cat "$TMP/bounce.err"; return 1; }
  same "$P" "$REF" out_bounce out_ref
}
check "the broker is killed and restarted mid-run: the run goes on, every sink exactly once" t_broker_restart

# ---- refusals ----
t_plan_and_changes() {
  local P=$TMP/cont rc=0 n_ref
  # what runs: the checkpoint's manifest; nothing changed
  "$WEIR" --project-dir "$P" plan > "$TMP/p0.txt" || { cat "$TMP/p0.txt"; return 1; }
  grep -q "plan against checkpoint [0-9]* of target dev" "$TMP/p0.txt" && grep -q "4 unchanged" "$TMP/p0.txt" \
    || { cat "$TMP/p0.txt"; return 1; }
  # a projection above the aggregate: safe; the run refuses a version that is not the
  # deployed one; weir apply deploys it (the rows re-derived from the kept state), and
  # the run continues on the kept state
  sed -i 's/count(\*) AS n/count(*) * 10 AS n/' "$P/models/agg.sql"
  "$WEIR" --project-dir "$P" plan --format json > "$TMP/p1.json" || { cat "$TMP/p1.json"; return 1; }
  python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); m={x["name"]: x["verdict"] for x in d["models"]}
assert m["agg"] == "safe" and not d["blocked"], d' "$TMP/p1.json" || return 1
  events 40005 40012 | kcat -P -b "$B" -t ev2 -p 0
  "$WEIR" --project-dir "$P" run --until-caught-up --no-progress > "$TMP/r0.txt" 2>&1 && { cat "$TMP/r0.txt"; return 1; }
  grep -q "differs from the version that runs" "$TMP/r0.txt" && grep -q "weir apply" "$TMP/r0.txt" || { cat "$TMP/r0.txt"; return 1; }
  "$WEIR" --project-dir "$P" apply --yes > "$TMP/a1.txt" 2>&1 || { cat "$TMP/a1.txt"; return 1; }
  n_ref=$(sqlite3 "$REF/out/db.sqlite" 'SELECT n FROM agg WHERE k = 0')
  [ "$(sqlite3 "$P/out/db.sqlite" 'SELECT n FROM agg WHERE k = 0')" = "$(( n_ref * 10 ))" ] \
    || { echo "after apply: n = $(sqlite3 "$P/out/db.sqlite" 'SELECT n FROM agg WHERE k = 0'), ref $n_ref"; cat "$TMP/a1.txt"; return 1; }
  "$WEIR" --project-dir "$P" run --until-caught-up --no-progress --format json > "$TMP/r1.json" 2>/dev/null || return 1
  python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["resumed_from"] > 0, d' "$TMP/r1.json" || return 1
  # k = 0 gets one of these 7 events (40005 % 7 = 0; none of the 5 of t_inspect)
  [ "$(sqlite3 "$P/out/db.sqlite" 'SELECT n FROM agg WHERE k = 0')" = "$(( (n_ref + 1) * 10 ))" ] \
    || { echo "n = $(sqlite3 "$P/out/db.sqlite" 'SELECT n FROM agg WHERE k = 0'), ref $n_ref"; return 1; }
  # an expression feeding the aggregate: backfill from the retained history (where the
  # deployment began reading: offset 0 of both partitions); --fail-on backfill exits 1;
  # the run refuses
  sed -i 's/sum(v) AS s/sum(v * 2) AS s/' "$P/models/agg.sql"
  "$WEIR" --project-dir "$P" plan --fail-on backfill > "$TMP/p2.txt" || rc=$?
  [ $rc -eq 1 ] && grep -q "BACKFILL   agg" "$TMP/p2.txt" && grep -q "partition 0: offsets 0\.\." "$TMP/p2.txt" \
    && grep -q "partition 1: offsets 0\.\." "$TMP/p2.txt" || { echo "exit $rc"; cat "$TMP/p2.txt"; return 1; }
  rc=0
  "$WEIR" --project-dir "$P" run --until-caught-up --no-progress > "$TMP/cm.txt" 2>&1 || rc=$?
  [ $rc -eq 2 ] && grep -q "differs from the version that runs" "$TMP/cm.txt" && grep -q "weir plan" "$TMP/cm.txt" \
    && grep -q -- "--fresh" "$TMP/cm.txt" || { echo "exit $rc"; cat "$TMP/cm.txt"; return 1; }
  # --fresh starts over with the new model
  "$WEIR" --project-dir "$P" run --until-caught-up --no-progress --fresh > /dev/null 2>&1 || return 1
  [ "$(sqlite3 "$P/out/db.sqlite" 'SELECT n FROM agg WHERE k = 0')" = "$(( (n_ref + 1) * 10 ))" ]
}
check "weir plan against the checkpoint; a changed project is refused by run and deployed by apply; --fresh starts over" t_plan_and_changes

t_select_refused() {
  local rc=0
  "$WEIR" --project-dir "$REF" run --until-caught-up --no-progress --select agg > "$TMP/sel.txt" 2>&1 || rc=$?
  [ $rc -eq 2 ] && grep -q "without --select" "$TMP/sel.txt" || { echo "exit $rc"; cat "$TMP/sel.txt"; return 1; }
}
check "--select on a durable run: exit 2" t_select_refused

t_locked() {
  local P=$TMP/term pid rc=0 deadline
  "$WEIR" --project-dir "$P" run --no-progress > /dev/null 2>&1 &
  pid=$!
  deadline=$((SECONDS + 120))
  # wait until the first run holds the state directory's lock
  until holds_flock $pid "$P/.weir/dev/run.lock"; do
    kill -0 $pid 2>/dev/null || { wait $pid; echo "the first run ended (exit $?) before taking the lock"; return 1; }
    [ $SECONDS -ge $deadline ] && { kill $pid; echo "the first run never took the lock"; return 1; }
    sleep 0.02
  done
  "$WEIR" --project-dir "$P" run --until-caught-up --no-progress > "$TMP/lock.txt" 2>&1 || rc=$?
  kill -TERM $pid
  wait $pid
  [ $rc -eq 3 ] && grep -q "is in use by another weir run" "$TMP/lock.txt" || { echo "exit $rc"; cat "$TMP/lock.txt"; return 1; }
}
check "a state directory in use by another run: exit 3" t_locked

t_retention_lost() {
  local P=$TMP/lost rc=0 deadline
  project "$P" small out_lost
  events 0 100 | kcat -P -b "$B" -t small -p 0
  "$WEIR" --project-dir "$P" run --until-caught-up --no-progress > /dev/null 2>&1 || return 1
  # keep at most 1 MiB (1 MiB segments): the broker deletes the oldest segments
  "$ADMIN" -b "$B" config small retention.bytes=1048576 || return 1
  python3 -c 'import sys
for i in range(200000): sys.stdout.write("{\"id\":%d,\"pad\":\"%s\"}\n" % (i, "x" * 40))' | kcat -P -b "$B" -t small -p 0
  # retention runs every second: wait until the next offsets are gone
  deadline=$((SECONDS + 60))
  until [ "$("$ADMIN" -b "$B" start-offsets small)" -gt 100 ]; do
    [ $SECONDS -ge $deadline ] && { echo "retention deleted nothing"; return 1; }
    sleep 0.1
  done
  "$WEIR" --project-dir "$P" run --until-caught-up --no-progress > "$TMP/lost.txt" 2>&1 || rc=$?
  [ $rc -eq 3 ] && grep -q "records were lost" "$TMP/lost.txt" || { echo "exit $rc"; cat "$TMP/lost.txt"; return 1; }
}
check "offsets no longer retained by the cluster: exit 3, records were lost" t_retention_lost

# ---- a source topic deleted and created again ----
t_topic_recreated() {
  local P=$TMP/recr rc=0
  project "$P" recr out_recr
  events 0 100 | kcat -P -b "$B" -t recr -p 0
  "$WEIR" --project-dir "$P" run --until-caught-up --no-progress > /dev/null 2>&1 || return 1
  # more records than the checkpoint read: its offsets exist but hold other records
  "$ADMIN" -b "$B" delete recr && "$ADMIN" -b "$B" create recr:1 || return 1
  events 1000 1300 | kcat -P -b "$B" -t recr -p 0
  "$WEIR" --project-dir "$P" run --until-caught-up --no-progress > "$TMP/recr.txt" 2>&1 || rc=$?
  [ $rc -eq 3 ] && grep -q "partition 0: the record at offset 99 is not the one the checkpoint read" "$TMP/recr.txt" \
    && grep -q -- "--fresh" "$TMP/recr.txt" || { echo "exit $rc"; cat "$TMP/recr.txt"; return 1; }
  [ "$(wc -l < "$P/out/sel.jsonl")" = 34 ] || { echo "records of the new topic were delivered"; return 1; }
  # fewer: the checkpoint's offset lies beyond the end
  "$ADMIN" -b "$B" delete recr && "$ADMIN" -b "$B" create recr:1 || return 1
  events 0 10 | kcat -P -b "$B" -t recr -p 0
  rc=0
  "$WEIR" --project-dir "$P" run --until-caught-up --no-progress > "$TMP/recr.txt" 2>&1 || rc=$?
  [ $rc -eq 3 ] && grep -q "beyond its end (10): was the topic recreated" "$TMP/recr.txt" || { echo "exit $rc"; cat "$TMP/recr.txt"; return 1; }
  # --fresh reads the new topic
  "$WEIR" --project-dir "$P" run --until-caught-up --no-progress --fresh > /dev/null 2>&1 || return 1
  [ "$(wc -l < "$P/out/sel.jsonl")" = 4 ]
}
check "a source topic deleted and recreated: exit 3 whether it holds fewer or more records" t_topic_recreated

echo "$passed passed, $failed failed"
[ $failed -eq 0 ]
