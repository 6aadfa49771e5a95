#!/usr/bin/env bash
# Cost of an incremental checkpoint: a GROUP BY with one group per key over N Kafka
# events (BENCH_INC_GROUPS, default 1000000; N groups) read by a durable
# `weir run --until-caught-up`, which ends with a full checkpoint (the run's first);
# then N/100 more events (1% of the groups, spread over the key space) read by a
# second run, which restores the first checkpoint and ends with an incremental one.
# Prints the bytes each checkpoint wrote (the run's checkpoint_bytes: names, contents
# and checksums put into the store) and their ratio, and the restore time.
# BENCH_INC_MODEL=distinct measures a SELECT DISTINCT of the same rows instead (one
# distinct row per key: its rows are saved in chunks by hash as the groups are).
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
N=${BENCH_INC_GROUPS:-1000000}
DIR=$(mktemp -d /tmp/weir-ckpt-inc.XXXXXX)
eval "$(BUILD=$BUILD scripts/kafka-start ev:32)"
trap 'scripts/kafka-stop; rm -rf "$DIR"' EXIT
export KAFKA_BOOTSTRAP
mkdir -p "$DIR/p/sources" "$DIR/p/models"
cat > "$DIR/p/weir.yml" <<'YAML'
name: ckpt_inc_bench
default_target: dev
targets:
  dev: {runtime: native, kafka: {bootstrap_servers: "${ENV:KAFKA_BOOTSTRAP}"}}
YAML
cat > "$DIR/p/sources/ev.yml" <<'YAML'
sources:
  ev:
    connector: kafka
    topic: ev
    format: json
    columns: {k: bigint, v: bigint, name: text}
YAML
if [ "${BENCH_INC_MODEL:-groupby}" = distinct ]; then
  echo "SELECT DISTINCT k, name FROM source('ev')" > "$DIR/p/models/per_key.sql"
else
  echo "SELECT k, count(*) AS n, sum(v) AS s, max(name) AS name FROM source('ev') GROUP BY k" > "$DIR/p/models/per_key.sql"
fi
gen() {  # gen FIRST STEP COUNT: keys FIRST, FIRST+STEP, ...
  python3 -c "
import sys
w = sys.stdout.write
for j in range($3):
    i = $1 + j * $2
    w('{\"k\":%d,\"v\":%d,\"name\":\"customer-%d\"}\n' % (i, i % 1000, i))
"
}
# waits (up to 5 minutes) until topic ev holds $1 records: the producer's last batches
# may still be on their way when kcat returns (32 partitions: the local cluster keeps a
# bounded number of records per partition)
settle() {
  local i
  for i in $(seq 600); do
    [ "$(kcat -C -b "$KAFKA_BOOTSTRAP" -t ev -e -q | wc -l)" -ge "$1" ] && return 0
    sleep 0.5
  done
  echo "topic ev never got $1 records" >&2; exit 1
}
run() { "$BUILD/weir" --project-dir "$DIR/p" run --until-caught-up --no-progress --checkpoint-interval 1h --format json "$@"; }
gen 0 1 "$N" > "$DIR/ev1.jsonl"
kcat -P -b "$KAFKA_BOOTSTRAP" -t ev -X batch.num.messages=5000 -l "$DIR/ev1.jsonl"
settle "$N"
run --fresh > "$DIR/run1.json"
gen 7 100 $((N / 100)) > "$DIR/ev2.jsonl"
kcat -P -b "$KAFKA_BOOTSTRAP" -t ev -X batch.num.messages=5000 -l "$DIR/ev2.jsonl"
settle $((N + N / 100))
run > "$DIR/run2.json"
python3 - "$DIR/run1.json" "$DIR/run2.json" <<'PY'
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
full, inc = a["checkpoint_bytes"], b["checkpoint_bytes"]
print("state:                   %d events into %d %s entries, then %d events on as many of them" % (a["events_in"], a["state"][0]["entries"], a["state"][0]["id"], b["events_in"]))
print("full checkpoint:         %d bytes (%.1f MiB) in %.3fs" % (full, full / 2**20, a["checkpoint_s"]))
print("incremental checkpoint:  %d bytes (%.2f MiB) in %.3fs" % (inc, inc / 2**20, b["checkpoint_s"]))
print("ratio:                   %.2f%% of the full checkpoint" % (100.0 * inc / full))
print("restore (second run):    %.3fs" % b["restore_s"])
PY
