#!/usr/bin/env bash
# Kafka clusters that fail under a run (build/kafka-mock on 127.0.0.1, started and
# killed here): a cluster killed under a durable run that follows its topic, under an
# --until-caught-up run and under a sink ends the run with exit 3 and a message naming
# the cluster once no broker has answered for the target's kafka unreachable_timeout
# (2 s here), never a run that goes on forever; a topic recreated with more records
# than the checkpoint had read is refused (exit 3, --fresh), and --fresh starts over on
# it. Each check counts as one test.
source "$(dirname "$0")/lib.sh"
set +e
passed=0
failed=0
clusters=()
check() {  # check NAME FUNCTION
  local out
  if out=$("$2" 2>&1); then passed=$((passed + 1)); else
    failed=$((failed + 1)); echo "FAIL: $1" >&2; echo "$out" | sed 's/^/    /' | tail -40 >&2; fi
}
stop_all() {
  local p
  for p in "${clusters[@]}"; do WEIR_KAFKA_PID=$p "$ROOT/scripts/kafka-stop"; done
}
trap 'stop_all; rm -rf "$TMP"' EXIT

# cluster TOPIC...: starts a cluster of its own (this script kills them) and exports
# KAFKA_BOOTSTRAP and WEIR_KAFKA_PID for it
cluster() {
  eval "$(BUILD=$BUILD "$ROOT/scripts/kafka-start" "$@")" || return 1
  clusters+=("$WEIR_KAFKA_PID")
  export KAFKA_BOOTSTRAP
}

# project DIR TOPIC: an aggregate and a filter into files; no broker for 2 s fails the run
project() {
  mkdir -p "$1/sources" "$1/models"
  cat > "$1/weir.yml" <<'EOF'
name: faults
default_target: dev
targets:
  dev: {runtime: native, kafka: {bootstrap_servers: "${ENV:KAFKA_BOOTSTRAP}", unreachable_timeout: 2s}}
EOF
  cat > "$1/sources/ev.yml" <<EOF
sources:
  ev:
    connector: kafka
    topic: $2
    format: json
    columns: {id: bigint, k: bigint, v: bigint}
EOF
  echo "SELECT k, count(*) AS n, sum(v) AS s FROM source('ev') GROUP BY k" > "$1/models/agg.sql"
  echo "SELECT id, k, v FROM source('ev') WHERE v % 3 = 0" > "$1/models/sel.sql"
  cat > "$1/models/models.yml" <<'EOF'
models:
  agg:
    materialized: upsert
    key: [k]
    sink: {connector: file, path: out/agg.jsonl, format: changelog-json}
  sel:
    materialized: append
    sink: {connector: file, path: out/sel.jsonl, format: json}
EOF
}
# events FROM TO [SALT]: JSON lines id FROM..TO-1 (SALT changes every value)
events() {
  python3 - "$1" "$2" "${3:-0}" <<'PY'
import sys
a, b, salt = (int(x) for x in sys.argv[1:4])
for i in range(a, b):
    print('{"id":%d,"k":%d,"v":%d}' % (i, i % 7, (i + salt) % 100))
PY
}
lines() { cat "$@" 2>/dev/null | wc -l; }
# wait_exit PID SECONDS: waits for the run to end (its exit code in $rc); fails when it
# is still running after SECONDS (the cluster's death never reached it)
wait_exit() {
  local deadline=$((SECONDS + $2))
  while kill -0 "$1" 2>/dev/null; do
    if [ $SECONDS -ge $deadline ]; then kill -9 "$1"; wait "$1" 2>/dev/null; echo "the run still runs $2 s after the cluster died"; return 1; fi
    sleep 0.05
  done
  wait "$1"
  rc=$?
}
# names_cluster FILE: the run failed with exit 3 and said which cluster is gone
names_cluster() {
  [ "$rc" = 3 ] || { echo "exit $rc"; cat "$1"; return 1; }
  grep -q "no broker of the kafka cluster $KAFKA_BOOTSTRAP has answered for 2 s" "$1" || { cat "$1"; return 1; }
}

t_dying_follow() {
  local P=$TMP/follow pid deadline
  cluster dy:2 || return 1
  project "$P" dy
  events 0 1000 | kcat -P -b "$KAFKA_BOOTSTRAP" -t dy -p 0
  "$WEIR" --project-dir "$P" run --no-progress --checkpoint-interval 50ms > "$TMP/follow.txt" 2>&1 &
  pid=$!
  deadline=$((SECONDS + 30))
  until [ "$(lines "$P/out/sel.jsonl")" -ge 340 ]; do   # everything delivered: the run follows an idle topic
    [ $SECONDS -ge $deadline ] && { kill -9 $pid; echo "no delivery"; return 1; }
    sleep 0.02
  done
  "$ROOT/scripts/kafka-stop"
  wait_exit $pid 60 || return 1
  names_cluster "$TMP/follow.txt" || return 1
  # the checkpoint it had written is intact
  "$WEIR" --project-dir "$P" inspect > "$TMP/follow-inspect.txt" 2>&1 || { cat "$TMP/follow-inspect.txt"; return 1; }
  grep -q "next offset 1000" "$TMP/follow-inspect.txt" || { cat "$TMP/follow-inspect.txt"; return 1; }
}
check "a cluster killed under a run that follows its topic: exit 3 naming the cluster" t_dying_follow

t_dying_caught_up() {
  local P=$TMP/caught pid deadline n
  cluster dc:2 || return 1
  project "$P" dc
  # the client must not have fetched everything when the cluster dies: small fetches
  # of small batches, little read ahead
  sed -i 's/unreachable_timeout: 2s}/unreachable_timeout: 2s, properties: {queued.max.messages.kbytes: "1", fetch.message.max.bytes: "1024"}}/' \
    "$P/weir.yml"
  events 0 20000 | kcat -P -b "$KAFKA_BOOTSTRAP" -t dc -p 0 -X batch.num.messages=10
  events 20000 40000 | kcat -P -b "$KAFKA_BOOTSTRAP" -t dc -p 1 -X batch.num.messages=10
  "$WEIR" --project-dir "$P" run --until-caught-up --no-progress --batch-size 1 --checkpoint-interval 20ms \
    > "$TMP/caught.txt" 2>&1 &
  pid=$!
  deadline=$((SECONDS + 30))
  until [ "$(lines "$P/out/sel.jsonl")" -gt 0 ]; do
    [ $SECONDS -ge $deadline ] && { kill -9 $pid; echo "no delivery"; return 1; }
    sleep 0.01
  done
  # hold the run still while the cluster goes away, so it cannot have caught up first
  kill -STOP $pid || { echo "the run ended before the cluster was killed"; return 1; }
  n=$(lines "$P/out/sel.jsonl")
  [ "$n" -lt 13600 ] || { kill -9 $pid; echo "the run had caught up already"; return 1; }
  "$ROOT/scripts/kafka-stop"
  kill -CONT $pid
  wait_exit $pid 60 || return 1
  names_cluster "$TMP/caught.txt"
}
check "a cluster killed under --until-caught-up: exit 3 naming the cluster" t_dying_caught_up

t_dying_sink() {
  local P=$TMP/sink pid deadline
  cluster sk:1 || return 1
  mkdir -p "$P/sources" "$P/models"
  cat > "$P/weir.yml" <<'EOF'
name: faults
default_target: dev
targets:
  dev: {runtime: native, kafka: {bootstrap_servers: "${ENV:KAFKA_BOOTSTRAP}", unreachable_timeout: 2s}}
EOF
  printf 'sources:\n  ev: {connector: stdin, format: json, columns: {id: bigint}}\n' > "$P/sources/ev.yml"
  echo "SELECT id FROM source('ev')" > "$P/models/ids.sql"
  printf 'models:\n  ids:\n    materialized: append\n    sink: {connector: kafka, topic: sk, format: json}\n' \
    > "$P/models/models.yml"
  mkfifo "$TMP/in"
  "$WEIR" --project-dir "$P" run --no-progress < "$TMP/in" > "$TMP/sink.txt" 2>&1 &
  pid=$!
  exec 3> "$TMP/in"
  for i in 1 2 3; do echo "{\"id\":$i}" >&3; done
  deadline=$((SECONDS + 30))
  until [ "$(kcat -C -b "$KAFKA_BOOTSTRAP" -t sk -e -q 2>/dev/null | wc -l)" -ge 3 ]; do
    [ $SECONDS -ge $deadline ] && { exec 3>&-; kill -9 $pid; echo "nothing reached the topic"; return 1; }
    sleep 0.02
  done
  "$ROOT/scripts/kafka-stop"
  for i in 4 5 6; do echo "{\"id\":$i}" >&3; done
  wait_exit $pid 45
  local w=$?
  exec 3>&-
  [ $w -eq 0 ] || return 1
  grep -q "model ids: sink: " "$TMP/sink.txt" || { cat "$TMP/sink.txt"; return 1; }
  names_cluster "$TMP/sink.txt"
}
check "a cluster killed under a Kafka sink: exit 3 naming the cluster" t_dying_sink

t_dying_durable_sink() {
  local P=$TMP/dsink pid deadline
  cluster ds:1 dsout:1 || return 1
  project "$P" ds
  cat >> "$P/models/models.yml" <<'EOF'
  ids:
    materialized: append
    sink: {connector: kafka, topic: dsout, format: json}
EOF
  echo "SELECT id FROM source('ev')" > "$P/models/ids.sql"
  events 0 1000 | kcat -P -b "$KAFKA_BOOTSTRAP" -t ds -p 0
  "$WEIR" --project-dir "$P" run --no-progress --checkpoint-interval 50ms > "$TMP/dsink.txt" 2>&1 &
  pid=$!
  deadline=$((SECONDS + 30))
  until [ "$(lines "$P/out/sel.jsonl")" -ge 340 ]; do
    [ $SECONDS -ge $deadline ] && { kill -9 $pid; echo "no delivery"; return 1; }
    sleep 0.02
  done
  "$ROOT/scripts/kafka-stop"
  wait_exit $pid 45 || return 1
  names_cluster "$TMP/dsink.txt"
}
check "a cluster killed under a durable run with a transactional Kafka sink: exit 3 naming the cluster" t_dying_durable_sink

t_recreated() {
  local P=$TMP/recreated before want
  cluster rt:2 || return 1
  project "$P" rt
  events 0 1000 | kcat -P -b "$KAFKA_BOOTSTRAP" -t rt -p 0
  events 1000 2000 | kcat -P -b "$KAFKA_BOOTSTRAP" -t rt -p 1
  "$WEIR" --project-dir "$P" run --until-caught-up --no-progress > /dev/null 2>&1 || { echo "first run failed"; return 1; }
  before=$(cat "$P"/out/*.jsonl | md5sum)
  # the topic is created again (here: on a cluster rebuilt under the same address
  # variable) and holds more records than the checkpoint had read
  "$ROOT/scripts/kafka-stop"
  cluster rt:2 || return 1
  events 0 3000 7 | kcat -P -b "$KAFKA_BOOTSTRAP" -t rt -p 0
  events 3000 6000 7 | kcat -P -b "$KAFKA_BOOTSTRAP" -t rt -p 1
  rc=0
  "$WEIR" --project-dir "$P" run --until-caught-up --no-progress > "$TMP/recreated.txt" 2>&1 || rc=$?
  [ $rc -eq 3 ] && grep -q "topic rt partition [01]: the record at offset 999 is not the one the checkpoint read" \
    "$TMP/recreated.txt" && grep -q "recreated" "$TMP/recreated.txt" && grep -q -- "--fresh" "$TMP/recreated.txt" \
    || { echo "exit $rc"; cat "$TMP/recreated.txt"; return 1; }
  [ "$(cat "$P"/out/*.jsonl | md5sum)" = "$before" ] || { echo "the refused run changed the sinks"; return 1; }
  # --fresh reads the new topic from its start
  "$WEIR" --project-dir "$P" run --until-caught-up --no-progress --fresh > /dev/null 2>&1 || { echo "--fresh failed"; return 1; }
  want=$(python3 -c 'print(sum(1 for i in range(6000) if (i + 7) % 100 % 3 == 0))')
  [ "$(lines "$P/out/sel.jsonl")" = "$want" ] || { echo "sel after --fresh: $(lines "$P/out/sel.jsonl") lines, not $want"; return 1; }
  # and later runs continue on it (their check of the checkpointed records passes)
  events 6000 6100 7 | kcat -P -b "$KAFKA_BOOTSTRAP" -t rt -p 1
  "$WEIR" --project-dir "$P" run --until-caught-up --no-progress --format json > "$TMP/recreated2.json" 2>/dev/null \
    || { echo "the run after --fresh failed"; return 1; }
  python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["resumed_from"] > 0 and d["events_in"] == 100, d' \
    "$TMP/recreated2.json"
}
check "a recreated topic with more records than the checkpoint read: exit 3 with --fresh as the way out" t_recreated

echo "$passed passed, $failed failed"
[ $failed -eq 0 ]
