#!/usr/bin/env bash
# Event time over Kafka (build/kafka-mock on 127.0.0.1, started and stopped here):
# which rows are late and what every window holds depend only on each partition's
# rows, never on the batch size, on how partitions interleave or on restarts. Each
# check counts as one test.
source "$(dirname "$0")/lib.sh"
set +e
passed=0
failed=0
check() {  # check NAME FUNCTION
  local out
  if out=$("$2" 2>&1); then passed=$((passed + 1)); else
    failed=$((failed + 1)); echo "FAIL: $1" >&2; echo "$out" | sed 's/^/    /' | tail -40 >&2; fi
}
eval "$(BUILD=$BUILD "$ROOT/scripts/kafka-start" bs:3 idle_ref:2 idle_run:2 dl_ref:1 dl_run:1)" \
  || { echo "0 passed, 1 failed"; exit 1; }
trap '"$ROOT/scripts/kafka-stop"; rm -rf "$TMP"' EXIT
B=$KAFKA_BOOTSTRAP
export KAFKA_BOOTSTRAP

# project DIR TOPIC: TUMBLE, HOP and SESSION windows (sessions per k: one partition
# holds each k) into files
project() {
  mkdir -p "$1/sources" "$1/models"
  cat > "$1/weir.yml" <<'EOF'
name: evk
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
    columns: {id: bigint, k: bigint, ts: timestamp}
    event_time: ts
    watermark_delay: 2s
EOF
  echo "SELECT window_start, k, count(*) AS n FROM TUMBLE(source('ev'), ts, INTERVAL '1' MINUTE) GROUP BY window_start, window_end, k" \
    > "$1/models/win.sql"
  echo "SELECT window_start, count(*) AS n FROM HOP(source('ev'), ts, INTERVAL '20' SECOND, INTERVAL '1' MINUTE) GROUP BY window_start, window_end" \
    > "$1/models/hop.sql"
  echo "SELECT k, window_start, window_end, count(*) AS n FROM SESSION(source('ev'), ts, INTERVAL '30' SECOND) GROUP BY k, window_start, window_end" \
    > "$1/models/ses.sql"
  {
    echo "models:"
    for m in win hop ses; do echo "  $m: {materialized: append, sink: {connector: file, path: out/$m.jsonl, format: json}}"; done
  } > "$1/models/models.yml"
}
# gen SEED PARTITION FROM TO: events FROM..TO-1 (one per second of event time from
# 10:00 plus jitter, one in 25 minutes late) with k = PARTITION + 2 * (id % 3)
gen() {
  python3 - "$@" <<'PY'
import datetime, random, sys
seed, part, lo, hi = map(int, sys.argv[1:5])
rnd = random.Random(seed * 1000 + part)
base = datetime.datetime(2026, 1, 1, 10, 0, 0)
for i in range(lo, hi):
    s = i + rnd.uniform(-1.5, 0)
    if rnd.random() < 0.04:
        s -= rnd.uniform(60, 240)
    t = base + datetime.timedelta(seconds=max(s, 0))
    print('{"id":%d,"k":%d,"ts":"%s"}' % (part * 100000 + i, part + 2 * (i % 3), t.strftime('%Y-%m-%d %H:%M:%S.%f')[:-3]))
PY
}
# outputs DIR: sinks and dead letters as sorted canonical JSON (partitions interleave
# differently from run to run), without the topic's name
outputs() {
  python3 - "$1" <<'PY'
import glob, json, sys
d = sys.argv[1]
def canon(x):
    x.pop("topic", None)   # the reference reads another topic
    return json.dumps(x, sort_keys=True)
out = {m: sorted(canon(json.loads(l)) for l in open(f"{d}/out/{m}.jsonl")) for m in ("win", "hop", "ses")}
for f in sorted(glob.glob(f"{d}/target/dead_letter/*.jsonl")):
    out[f.split("/")[-1]] = sorted(canon(json.loads(l)) for l in open(f))
print(json.dumps(out, indent=0, sort_keys=True))
PY
}
late_count() { cat "$1"/target/dead_letter/*.jsonl 2>/dev/null | grep -c '"reason":"late"'; }

# ---- batch sizes: two partitions with late rows and an idle one ----
gen 1 0 0 1500 | kcat -P -b "$B" -t bs -p 0
gen 1 1 0 1500 | kcat -P -b "$B" -t bs -p 1
t_batch_sizes() {
  local b
  for b in 1 7 97 4096; do
    project "$TMP/bs$b" bs
    "$WEIR" --project-dir "$TMP/bs$b" run --until-caught-up --no-progress --batch-size $b > "$TMP/bs$b.txt" 2>&1 \
      || { cat "$TMP/bs$b.txt"; return 1; }
    outputs "$TMP/bs$b" > "$TMP/bs$b.json"
  done
  [ "$(late_count "$TMP/bs4096")" -gt 20 ] || { echo "too few late rows: $(late_count "$TMP/bs4096")"; return 1; }
  [ "$(wc -l < "$TMP/bs4096/out/win.jsonl")" -gt 100 ] || { echo "too few windows"; return 1; }
  for b in 1 7 97; do
    cmp -s "$TMP/bs$b.json" "$TMP/bs4096.json" || { diff "$TMP/bs$b.json" "$TMP/bs4096.json" | head; echo "batch size $b"; return 1; }
  done
}
check "batch sizes 1, 7, 97, 4096 over 3 partitions (one idle): the same windows and late rows" t_batch_sizes

# ---- a restart while a partition is idle: it still holds the watermark back ----
t_idle_restart() {
  gen 2 0 0 600 | kcat -P -b "$B" -t idle_ref -p 0
  gen 2 1 0 600 | kcat -P -b "$B" -t idle_ref -p 1
  gen 2 0 600 1200 | kcat -P -b "$B" -t idle_ref -p 0
  gen 2 1 600 1200 | kcat -P -b "$B" -t idle_ref -p 1
  project "$TMP/iref" idle_ref
  "$WEIR" --project-dir "$TMP/iref" run --until-caught-up --no-progress > /dev/null 2>&1 || return 1
  project "$TMP/irun" idle_run
  gen 2 0 0 600 | kcat -P -b "$B" -t idle_run -p 0
  gen 2 1 0 600 | kcat -P -b "$B" -t idle_run -p 1
  "$WEIR" --project-dir "$TMP/irun" run --until-caught-up --no-progress > /dev/null 2>&1 || return 1
  # partition 1 is idle at this restart: its watermark stays where its rows left it
  gen 2 0 600 1200 | kcat -P -b "$B" -t idle_run -p 0
  "$WEIR" --project-dir "$TMP/irun" run --until-caught-up --no-progress > /dev/null 2>&1 || return 1
  gen 2 1 600 1200 | kcat -P -b "$B" -t idle_run -p 1
  "$WEIR" --project-dir "$TMP/irun" run --until-caught-up --no-progress > /dev/null 2>&1 || return 1
  outputs "$TMP/iref" > "$TMP/iref.json"
  outputs "$TMP/irun" > "$TMP/irun.json"
  [ "$(wc -l < "$TMP/iref/out/win.jsonl")" -gt 50 ] || { echo "too few windows"; return 1; }
  cmp -s "$TMP/iref.json" "$TMP/irun.json" || {
    echo "reference: $(wc -l < "$TMP/iref/out/win.jsonl") windows, $(late_count "$TMP/iref") late;" \
         "three runs: $(wc -l < "$TMP/irun/out/win.jsonl") windows, $(late_count "$TMP/irun") late"; return 1; }
}
check "a partition idle at a restart holds the watermark back as in one run" t_idle_restart

# ---- model dead letters survive runs that write none ----
t_model_dead_letters() {
  local i
  project "$TMP/dref" dl_ref
  project "$TMP/drun" dl_run
  # runs 1 and 3 get late rows, run 2 none
  python3 - "$TMP" <<'PY'
import sys
d = sys.argv[1]
def rows(lo, hi, late):
    out = []
    for i in range(lo, hi):
        out.append('{"id":%d,"k":0,"ts":"2026-01-01 10:%02d:%02d"}' % (i, i // 60, i % 60))
        if late and i % 100 == 50 and i >= 300:
            out.append('{"id":%d,"k":0,"ts":"2026-01-01 10:%02d:00"}' % (100000 + i, i // 60 - 3))
    return "\n".join(out) + "\n"
for n, (lo, hi, late) in enumerate([(0, 1200, True), (1200, 1800, False), (1800, 3000, True)]):
    open(f"{d}/dl{n}.jsonl", "w").write(rows(lo, hi, late))
PY
  for i in 0 1 2; do
    kcat -P -b "$B" -t dl_ref -p 0 < "$TMP/dl$i.jsonl"
    kcat -P -b "$B" -t dl_run -p 0 < "$TMP/dl$i.jsonl"
    "$WEIR" --project-dir "$TMP/drun" run --until-caught-up --no-progress > /dev/null 2>&1 || return 1
  done
  "$WEIR" --project-dir "$TMP/dref" run --until-caught-up --no-progress > /dev/null 2>&1 || return 1
  [ "$(late_count "$TMP/dref")" -ge 40 ] || { echo "reference: $(late_count "$TMP/dref") late rows"; return 1; }
  outputs "$TMP/dref" > "$TMP/dref.json"
  outputs "$TMP/drun" > "$TMP/drun.json"
  cmp -s "$TMP/dref.json" "$TMP/drun.json" || {
    for m in win hop ses; do
      echo "target/dead_letter/$m.jsonl: $(cat "$TMP/drun/target/dead_letter/$m.jsonl" 2>/dev/null | wc -l) lines," \
           "one run: $(cat "$TMP/dref/target/dead_letter/$m.jsonl" 2>/dev/null | wc -l)"
    done; return 1; }
}
check "three --until-caught-up runs, the second without late rows: every model's dead letters kept" t_model_dead_letters

echo "$passed passed, $failed failed"
[ $failed -eq 0 ]
