#!/usr/bin/env bash
# Kafka sources and sinks against a real Apache Kafka broker (scripts/kafka-broker-start
# on 127.0.0.1, one for all checks, started and stopped here); kcat is the independent
# client that writes the input topics and reads what weir produced. Each check counts
# as one test.
source "$(dirname "$0")/lib.sh"
set +e
passed=0
failed=0
check() {  # check NAME FUNCTION
  local out
  if out=$("$2" 2>&1); then passed=$((passed + 1)); else
    failed=$((failed + 1)); echo "FAIL: $1" >&2; echo "$out" | sed 's/^/    /' | tail -40 >&2; fi
}
finish() { "$ROOT/scripts/kafka-stop"; echo "$passed passed, $failed failed"; [ $failed -eq 0 ]; }

eval "$(BUILD=$BUILD "$ROOT/scripts/kafka-broker-start" orders:3 totals:2 live:2 live_out:1 wm:3 bad:1 \
        accounts:1 upd_out:1)" || { echo "0 passed, 1 failed"; exit 1; }
trap '"$ROOT/scripts/kafka-stop"; rm -rf "$TMP"' EXIT
B=$KAFKA_BOOTSTRAP
export KAFKA_BOOTSTRAP

# produce TOPIC PARTITION: one message per stdin line; "key|value" lines when KEYED=1
produce() {
  if [ "${KEYED:-0}" = 1 ]; then kcat -P -b "$B" -t "$1" -p "$2" -K '|' -Z; else kcat -P -b "$B" -t "$1" -p "$2" -Z; fi
}
# consume TOPIC: every message as "partition|key|value" (NULL for a missing key/value)
consume() { kcat -C -b "$B" -t "$1" -e -q -Z -f '%p|%k|%s\n'; }

# project DIR: a project whose target reads the cluster from ${ENV:KAFKA_BOOTSTRAP}
project() {
  mkdir -p "$1/sources" "$1/models"
  cat > "$1/weir.yml" <<'EOF'
name: kafka_test
default_target: dev
targets:
  dev: {runtime: native, kafka: {bootstrap_servers: "${ENV:KAFKA_BOOTSTRAP}"}}
EOF
}

# ---- json source -> upsert sink on Kafka and an append file sink ----
P1=$TMP/p1
project "$P1"
cat > "$P1/sources/orders.yml" <<'EOF'
sources:
  orders:
    connector: kafka
    topic: orders
    format: json
    columns: {id: bigint, cust: bigint, amount: "numeric(10,2)", ts: timestamp}
    event_time: ts
EOF
cat > "$P1/models/totals.sql" <<'EOF'
SELECT cust, count(*) AS n, sum(amount) AS total FROM source('orders') GROUP BY cust
EOF
cat > "$P1/models/big.sql" <<'EOF'
SELECT id, cust, amount FROM source('orders') WHERE amount >= 10
EOF
cat > "$P1/models/models.yml" <<'EOF'
models:
  totals:
    materialized: upsert
    key: [cust]
    sink: {connector: kafka, topic: totals, format: upsert}
  big:
    materialized: append
    sink: {connector: file, path: out/big.jsonl, format: json}
EOF
for p in 0 1 2; do
  for i in 1 2 3 4; do
    id=$((p * 10 + i))
    echo "{\"id\":$id,\"cust\":$((id % 3)),\"amount\":$((id * 2)).50,\"ts\":\"2026-01-01 10:00:$((10 + id))\"}"
  done | produce orders $p
done

t_upsert_sink() {
  "$WEIR" --project-dir "$P1" run --until-caught-up --no-progress --format json > "$TMP/p1.json" || return 1
  python3 - "$TMP/p1.json" <<'PY' || return 1
import json, sys
d = json.load(open(sys.argv[1]))
assert d["events_in"] == 12 and d["dead_letters"] == 0 and not d["interrupted"], d
m = {x["name"]: x for x in d["models"]}
assert m["totals"]["sink"] == "kafka:totals" and m["totals"]["inserts"] == 3, m
PY
  consume totals > "$TMP/totals.txt"
  python3 - "$TMP/totals.txt" <<'PY'
import json, sys
from decimal import Decimal
final, part = {}, {}
for line in open(sys.argv[1]).read().splitlines():
    p, k, v = line.split("|", 2)
    key = json.loads(k)["cust"]
    assert part.setdefault(key, p) == p, "a key's messages are all in one partition"
    final[key] = json.loads(v, parse_float=Decimal)
ids = [p * 10 + i for p in range(3) for i in range(1, 5)]
want = {}
for c in range(3):
    mine = [i for i in ids if i % 3 == c]
    want[c] = {"cust": c, "n": len(mine), "total": sum(Decimal(f"{i * 2}.50") for i in mine)}
assert final == want, (final, want)
PY
}
check "json source -> upsert kafka sink (keys, partitions, final rows)" t_upsert_sink

t_file_sink_from_kafka() {
  python3 - "$P1/out/big.jsonl" <<'PY'
import json, sys
rows = sorted(json.loads(l)["id"] for l in open(sys.argv[1]))
want = sorted(p * 10 + i for p in range(3) for i in range(1, 5) if (p * 10 + i) * 2 + 0.5 >= 10)
assert rows == want, (rows, want)
PY
}
check "kafka source -> file sink holds exactly the filtered rows" t_file_sink_from_kafka

# a second run continues from the checkpoint: nothing new, nothing changes; with
# --fresh it reads the topic again from its earliest offset to the same result
t_rerun() {
  cp "$P1/out/big.jsonl" "$TMP/big1.jsonl"
  "$WEIR" --project-dir "$P1" run --until-caught-up --no-progress --format json > "$TMP/r2.json" 2>/dev/null || return 1
  python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["events_in"] == 0 and d["resumed_from"] >= 1, d'     "$TMP/r2.json" || return 1
  cmp "$TMP/big1.jsonl" "$P1/out/big.jsonl" || return 1
  "$WEIR" --project-dir "$P1" run --until-caught-up --no-progress --fresh > /dev/null 2>&1 || return 1
  cmp "$TMP/big1.jsonl" "$P1/out/big.jsonl"
}
check "a rerun continues (nothing new); --fresh reads the same records again" t_rerun

# ---- the watermark of a partitioned source is the minimum over its partitions ----
P2=$TMP/p2
project "$P2"
cat > "$P2/sources/wm.yml" <<'EOF'
sources:
  wm:
    connector: kafka
    topic: wm
    format: json
    columns: {k: text, ts: timestamp}
    event_time: ts
EOF
cat > "$P2/models/per_minute.sql" <<'EOF'
SELECT window_start, count(*) AS n FROM TUMBLE(source('wm'), ts, INTERVAL '1' MINUTE) GROUP BY window_start, window_end
EOF
cat > "$P2/models/models.yml" <<'EOF'
models:
  per_minute:
    materialized: append
    sink: {connector: file, path: out/per_minute.jsonl, format: json}
EOF
printf '%s\n' '{"k":"a","ts":"2026-01-01 10:00:10"}' '{"k":"b","ts":"2026-01-01 10:03:00"}' | produce wm 0
printf '%s\n' '{"k":"c","ts":"2026-01-01 10:00:50"}' '{"k":"d","ts":"2026-01-01 10:01:30"}' | produce wm 1
# partition 2 stays empty: an idle partition does not hold the watermark back

t_partition_watermark() {
  "$WEIR" --project-dir "$P2" run --until-caught-up --no-progress > /dev/null 2>&1 || return 1
  # min(10:03:00, 10:01:30) closes [10:00, 10:01) only; a source-wide maximum would
  # also have closed [10:01, 10:02). A Kafka source's windows stay open at the end.
  local got
  got=$(cat "$P2/out/per_minute.jsonl")
  [ "$got" = '{"window_start":"2026-01-01 10:00:00","n":2}' ] || { echo "got: $got"; return 1; }
}
check "watermark = min over partitions; idle partitions do not hold it" t_partition_watermark

# ---- bad records: dead letters carry topic, partition and offset ----
P3=$TMP/p3
project "$P3"
cat > "$P3/sources/bad.yml" <<'EOF'
sources:
  bad:
    connector: kafka
    topic: bad
    format: json
    columns: {id: bigint}
EOF
echo "SELECT id FROM source('bad')" > "$P3/models/ids.sql"
cat > "$P3/models/models.yml" <<'EOF'
models:
  ids:
    materialized: append
    sink: {connector: file, path: out/ids.jsonl, format: json}
EOF
printf '%s\n' 'a|{"id":1}' 'b|not json' 'c|' 'd|{"id":"x"}' 'e|{"id":5}' | KEYED=1 produce bad 0

t_dead_letters() {
  "$WEIR" --project-dir "$P3" run --until-caught-up --no-progress --format json > "$TMP/p3.json" 2>/dev/null || return 1
  python3 - "$TMP/p3.json" "$P3/target/dead_letter/bad.jsonl" "$P3/out/ids.jsonl" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
# "c|" is a tombstone (a key without a value): skipped, not a record
assert d["events_in"] == 4 and d["dead_letters"] == 2, d
dl = [json.loads(l) for l in open(sys.argv[2])]
assert [(x["topic"], x["partition"], x["offset"], x["raw"]) for x in dl] == \
    [("bad", 0, 1, "not json"), ("bad", 0, 3, '{"id":"x"}')], dl
assert all("file" not in x and x["reason"] for x in dl), dl
assert [json.loads(l)["id"] for l in open(sys.argv[3])] == [1, 5]
PY
}
check "dead letters from kafka carry topic/partition/offset and the raw bytes" t_dead_letters

t_on_error_fail() {
  sed -i 's/columns: {id: bigint}/columns: {id: bigint}\n    on_error: fail/' "$P3/sources/bad.yml"
  local rc=0
  "$WEIR" --project-dir "$P3" run --until-caught-up --no-progress --fresh > "$TMP/fail.txt" 2>&1 || rc=$?
  sed -i '/on_error: fail/d' "$P3/sources/bad.yml"
  [ $rc -eq 3 ] || { echo "exit $rc"; cat "$TMP/fail.txt"; return 1; }
  grep -q "topic bad partition 0 offset 1: " "$TMP/fail.txt" || { cat "$TMP/fail.txt"; return 1; }
}
check "on_error: fail names the topic, partition and offset (exit 3)" t_on_error_fail

# ---- an updating source from Kafka (changelog-json with a primary key) ----
P4=$TMP/p4
project "$P4"
cat > "$P4/sources/accounts.yml" <<'EOF'
sources:
  accounts:
    connector: kafka
    topic: accounts
    format: changelog-json
    primary_key: [id]
    columns: {id: bigint, region: text, balance: bigint}
EOF
echo "SELECT region, sum(balance) AS balance, count(*) AS n FROM source('accounts') GROUP BY region" \
  > "$P4/models/by_region.sql"
cat > "$P4/models/models.yml" <<'EOF'
models:
  by_region:
    materialized: upsert
    key: [region]
    sink: {connector: kafka, topic: upd_out, format: debezium-json}
EOF
printf '%s\n' '{"op":"insert","id":1,"region":"eu","balance":10}' '{"op":"insert","id":2,"region":"eu","balance":5}' \
  '{"op":"insert","id":3,"region":"us","balance":7}' '{"op":"update","id":2,"region":"us","balance":6}' \
  '{"op":"delete","id":1}' | produce accounts 0

t_changelog_source() {
  "$WEIR" --project-dir "$P4" run --until-caught-up --no-progress > /dev/null 2>&1 || return 1
  consume upd_out > "$TMP/upd.txt"
  python3 - "$TMP/upd.txt" <<'PY'
import json, sys
final = {}
for line in open(sys.argv[1]).read().splitlines():
    p, k, v = line.split("|", 2)
    m = json.loads(v)
    key = json.loads(k)["region"]
    if m["op"] == "d":
        assert m["after"] is None and m["before"]["region"] == key
        final.pop(key, None)
    else:
        assert m["after"]["region"] == key
        final[key] = m["after"]
assert final == {"us": {"region": "us", "balance": 13, "n": 2}}, final
PY
}
check "changelog-json source from kafka -> debezium-json kafka sink" t_changelog_source

# ---- without --until-caught-up the run follows the topic until SIGTERM ----
P5=$TMP/p5
project "$P5"
cat > "$P5/sources/live.yml" <<'EOF'
sources:
  live:
    connector: kafka
    topic: live
    format: json
    columns: {id: bigint, v: text}
EOF
echo "SELECT id, upper(v) AS v FROM source('live')" > "$P5/models/shout.sql"
cat > "$P5/models/models.yml" <<'EOF'
models:
  shout:
    materialized: append
    sink: {connector: kafka, topic: live_out, format: json}
EOF

t_follow_until_sigterm() {
  echo '{"id":1,"v":"a"}' | produce live 0
  "$WEIR" --project-dir "$P5" run --no-progress --checkpoint-interval 100ms --format json > "$TMP/live.json" 2>"$TMP/live.err" &
  local pid=$! deadline=$((SECONDS + 30)) n=0
  # records written while the run is going are picked up
  until [ "$(consume live_out | wc -l)" -ge 1 ]; do
    [ $SECONDS -ge $deadline ] && { kill $pid; echo "no output for the first record"; return 1; }
    sleep 0.05
  done
  printf '%s\n' '{"id":2,"v":"b"}' '{"id":3,"v":"c"}' | produce live 1
  until [ "$(consume live_out | wc -l)" -ge 3 ]; do
    [ $SECONDS -ge $deadline ] && { kill $pid; echo "later records not picked up"; return 1; }
    sleep 0.05
  done
  kill -TERM $pid
  wait $pid || { echo "exit $?"; cat "$TMP/live.err"; return 1; }
  python3 - "$TMP/live.json" <<'PY' || return 1
import json, sys
d = json.load(open(sys.argv[1]))
assert d["interrupted"] and d["events_in"] == 3, d
PY
  [ "$(consume live_out | cut -d'|' -f3 | sort)" = "$(printf '%s\n' '{"id":1,"v":"A"}' '{"id":2,"v":"B"}' '{"id":3,"v":"C"}')" ]
}
check "a run follows the topic and stops gracefully on SIGTERM" t_follow_until_sigterm

# ---- configuration and infrastructure errors ----
t_missing_topic() {
  local rc=0
  sed 's/topic: orders/topic: no_such_topic/' "$P1/sources/orders.yml" > "$TMP/o.yml"
  cp "$P1/sources/orders.yml" "$TMP/orders.keep"; cp "$TMP/o.yml" "$P1/sources/orders.yml"
  "$WEIR" --project-dir "$P1" run --until-caught-up --no-progress --fresh > "$TMP/mt.txt" 2>&1 || rc=$?
  cp "$TMP/orders.keep" "$P1/sources/orders.yml"
  [ $rc -eq 3 ] && grep -q "source orders: topic no_such_topic does not exist" "$TMP/mt.txt" || { echo "exit $rc"; cat "$TMP/mt.txt"; return 1; }
}
check "a topic that does not exist: exit 3 with its name" t_missing_topic
t_not_created() { ! kcat -L -b "$B" | grep -q no_such_topic; }
check "opening a missing topic does not create it" t_not_created

t_no_bootstrap() {
  local rc=0
  env -u KAFKA_BOOTSTRAP "$WEIR" --project-dir "$P1" run --until-caught-up --no-progress > "$TMP/nb.txt" 2>&1 || rc=$?
  [ $rc -eq 2 ] && grep -q "KAFKA_BOOTSTRAP" "$TMP/nb.txt" || { echo "exit $rc"; cat "$TMP/nb.txt"; return 1; }
}
check "an unset \${ENV:KAFKA_BOOTSTRAP}: exit 2 naming the variable" t_no_bootstrap

t_bad_property() {
  local rc=0
  sed -i 's/bootstrap_servers: "${ENV:KAFKA_BOOTSTRAP}"}/bootstrap_servers: "${ENV:KAFKA_BOOTSTRAP}", properties: {no.such.setting: "1"}}/' "$P1/weir.yml"
  "$WEIR" --project-dir "$P1" run --until-caught-up --no-progress > "$TMP/bp.txt" 2>&1 || rc=$?
  sed -i 's/, properties: {no.such.setting: "1"}//' "$P1/weir.yml"
  [ $rc -eq 2 ] && grep -q "no.such.setting" "$TMP/bp.txt" || { echo "exit $rc"; cat "$TMP/bp.txt"; return 1; }
}
check "an unknown kafka property: exit 2 naming it" t_bad_property

t_unreachable() {
  local rc=0
  KAFKA_BOOTSTRAP=127.0.0.1:1 timeout 60 "$WEIR" --project-dir "$P1" run --until-caught-up --no-progress \
    > "$TMP/ur.txt" 2>&1 || rc=$?
  [ $rc -eq 3 ] && grep -q "cannot reach kafka" "$TMP/ur.txt" || { echo "exit $rc"; cat "$TMP/ur.txt"; return 1; }
}
check "an unreachable cluster: exit 3" t_unreachable

finish
