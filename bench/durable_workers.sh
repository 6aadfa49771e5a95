#!/usr/bin/env bash
# A durable run on 1 vs 2 workers: BENCH_DW_EVENTS (default 1,000,000) JSON transactions
# over BENCH_DW_ACCOUNTS (default 100,000) accounts (bench/agg_gen.py, fixed seed) in
# BENCH_DW_FILES files of a directory source (durable: state, positions and deliveries in
# the state store), COUNT(*), SUM, MAX and COUNT(DISTINCT merchant) per account into a
# SQLite upsert sink, `weir run --until-caught-up` from a fresh store with a checkpoint
# BENCH_DW_INTERVAL (default 1s) and one at the end. For each worker count
# the best of BENCH_DW_REPEAT (default 3) runs: wall time, CPU time, checkpoints written,
# the seconds spent writing them and the last one's bytes; then the ratio, and whether
# both tables are equal.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
WEIR=$PWD/$BUILD/weir
EVENTS=${BENCH_DW_EVENTS:-1000000}
ACCOUNTS=${BENCH_DW_ACCOUNTS:-100000}
FILES=${BENCH_DW_FILES:-4}
INTERVAL=${BENCH_DW_INTERVAL:-1s}
REPEAT=${BENCH_DW_REPEAT:-3}
TMP=$(mktemp -d /tmp/weir-durable-workers.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
P=$TMP/p
mkdir -p "$P/sources" "$P/models" "$P/landing"
python3 bench/agg_gen.py "$EVENTS" "$ACCOUNTS" "$TMP/all.jsonl"
split -n "l/$FILES" -d -a 3 "$TMP/all.jsonl" "$P/landing/part-"
for f in "$P"/landing/part-*; do mv "$f" "$f.jsonl"; done
echo "name: durable_workers_bench" > "$P/weir.yml"
cat > "$P/sources/tx.yml" <<'YAML'
sources:
  tx:
    connector: file
    path: landing
    format: json
    columns: {account_id: bigint, merchant: text, amount: bigint, ts: timestamp}
YAML
cat > "$P/models/per_account.sql" <<'SQL'
SELECT account_id, count(*) AS n, sum(amount) AS total, max(amount) AS max_amount,
       count(DISTINCT merchant) AS merchants
FROM source('tx') GROUP BY account_id
SQL
cat > "$P/models/schema.yml" <<'YAML'
models:
  per_account: {materialized: upsert, key: [account_id], sink: {connector: sqlite, path: out/bench.db, table: per_account}}
YAML
best() {  # best WORKERS: prints "wall cpu checkpoints ckpt_s ckpt_bytes replicas" of the fastest run
  local w=$1 bestline="" bestwall=""
  for r in $(seq 1 "$REPEAT"); do
    rm -rf "$P/out" "$P/.weir" "$P/target"
    local t0 t1
    t0=$(date +%s.%N)
    (cd "$P" && "$WEIR" run --no-progress --until-caught-up --fresh --workers "$w" --checkpoint-interval "$INTERVAL" \
       --format json > "$TMP/run-$w.json" 2> "$TMP/run-$w.err") || { cat "$TMP/run-$w.err" >&2; exit 3; }
    t1=$(date +%s.%N)
    local line
    line=$(python3 - "$TMP/run-$w.json" "$t0" "$t1" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
wall = float(sys.argv[3]) - float(sys.argv[2])
print("%.3f %.3f %d %.3f %d %d" % (wall, s.get("cpu_s", 0), s["checkpoints"], s.get("checkpoint_s", 0),
                                   s.get("checkpoint_bytes", 0), s.get("replicas", 1)))
PY
)
    if [ -z "$bestwall" ] || python3 -c "import sys; sys.exit(0 if float('${line%% *}') < float('$bestwall') else 1)"; then
      bestwall=${line%% *}
      bestline=$line
      sqlite3 "$P/out/bench.db" "SELECT * FROM per_account ORDER BY account_id" > "$TMP/table-$w.txt"
    fi
  done
  echo "$bestline"
}
ONE=$(best 1)
TWO=$(best 2)
same=yes
cmp -s "$TMP/table-1.txt" "$TMP/table-2.txt" || same=NO
python3 - "$ONE" "$TWO" "$EVENTS" "$ACCOUNTS" "$FILES" "$INTERVAL" "$REPEAT" "$same" "$(cut -d' ' -f1 /proc/loadavg)" <<'PY'
import sys
one, two = sys.argv[1].split(), sys.argv[2].split()
print("durable run, %s events over %s accounts in %s files, checkpoint every %s, best of %s (load %s)"
      % (sys.argv[3], sys.argv[4], sys.argv[5], sys.argv[6], sys.argv[7], sys.argv[9]))
print("%-10s %8s %8s %8s %12s %14s %9s" % ("workers", "wall s", "cpu s", "ckpts", "ckpt write s", "last ckpt MiB", "replicas"))
for name, r in (("1", one), ("2", two)):
    print("%-10s %8s %8s %8s %12s %14.1f %9s" % (name, r[0], r[1], r[2], r[3], int(r[4]) / 1048576.0, r[5]))
print("speedup (wall, 1 / 2 workers): %.2fx; tables equal: %s" % (float(one[0]) / float(two[0]), sys.argv[8]))
PY
