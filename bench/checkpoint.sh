#!/usr/bin/env bash
# Cost of durable state: a GROUP BY with one group per key over N Kafka events
# (BENCH_CKPT_EVENTS, default 1000000; N groups) read from a local Kafka cluster
# (build/kafka-mock, 32 partitions) by a durable `weir run --until-caught-up`, which
# ends with one checkpoint of the whole state into LMDB. Prints the run's events/s,
# the checkpoint's size, the time to write it (serialise + one LMDB transaction with
# fsync) and the time a second run takes to restore it.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
BUILD=${BUILD:-build}
N=${BENCH_CKPT_EVENTS:-1000000}
DIR=$(mktemp -d /tmp/weir-ckpt-bench.XXXXXX)
eval "$(BUILD=$BUILD scripts/kafka-start ev:32)"
trap 'scripts/kafka-stop; rm -rf "$DIR"' EXIT
export KAFKA_BOOTSTRAP
mkdir -p "$DIR/p/sources" "$DIR/p/models"
cat > "$DIR/p/weir.yml" <<'YAML'
name: ckpt_bench
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
echo "SELECT k, count(*) AS n, sum(v) AS s, max(name) AS name FROM source('ev') GROUP BY k" > "$DIR/p/models/per_key.sql"
python3 -c "
import sys
w = sys.stdout.write
for i in range($N):
    w('{\"k\":%d,\"v\":%d,\"name\":\"customer-%d\"}\n' % (i, i % 1000, i))
" > "$DIR/ev.jsonl"
kcat -P -b "$KAFKA_BOOTSTRAP" -t ev -X batch.num.messages=5000 -l "$DIR/ev.jsonl"
"$BUILD/weir" --project-dir "$DIR/p" run --until-caught-up --no-progress --fresh --checkpoint-interval 1h \
  --format json > "$DIR/run1.json"
"$BUILD/weir" --project-dir "$DIR/p" run --until-caught-up --no-progress --format json > "$DIR/run2.json"
python3 - "$DIR/run1.json" "$DIR/run2.json" <<'PY'
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
mib = a["checkpoint_bytes"] / 2**20
print("events read from Kafka:   %d in %.2fs (%.0f events/s, checkpoint included)" % (a["events_in"], a["elapsed_s"], a["events_per_s"]))
print("state:                    %d groups" % a["state"][0]["entries"])
print("checkpoint:               %.1f MiB written in %.3fs (%.0f MiB/s)" % (mib, a["checkpoint_s"], mib / max(a["checkpoint_s"], 1e-9)))
print("restore at the next run:  %.3fs (%.0f MiB/s)" % (b["restore_s"], mib / max(b["restore_s"], 1e-9)))
PY
