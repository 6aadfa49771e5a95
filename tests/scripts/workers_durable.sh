#!/usr/bin/env bash
# Durable runs on several engine replicas (docs/run.md, "Workers" and "Durable runs"):
# a directory of CSV files (a header per file, malformed amounts, rows whose expression
# divides by zero) read by keyed aggregates partitioned by customer_id, an
# aggregate by merchant that runs on one pipeline next to them, and stateless copies. Each case
# runs with one worker count and batch size, is stopped (SIGTERM, or SIGKILL at a
# random moment, or a crash at a fault point of its checkpoints and deliveries), gets
# another file, and is continued with another worker count and batch size, several
# times; at the end every sink and dead-letter file equals what one uninterrupted run
# with one worker writes (appended rows and dead letters byte for byte, tables row for
# row). A run continued with another worker count re-partitions the checkpoint's state
# (the replicas' entries merged and split by the routing key's hash). (A run resumed
# inside a file with a smaller batch that checkpoints while still passing over what the
# checkpoint had read used to record a position short of it, so the next run read those
# records again: the fourth and fifth cases.) Also: the summary says when the state was
# re-partitioned, weir apply continues a checkpoint of several replicas (merged), and a
# durable run without --workers partitions over the machine's cores. SEED=n replays the
# random moments.
source "$(dirname "$0")/lib.sh"
SEED=${SEED:-$(( $(date +%s) % 100000 ))}
echo "seed $SEED"
RANDOM=$SEED
NFILES=5

project() {
  mkdir -p "$1/sources" "$1/models" "$1/landing"
  echo "name: workers_durable" > "$1/weir.yml"
  cat > "$1/sources/s.yml" <<'YAML'
sources:
  shop.orders:
    connector: file
    path: landing
    format: csv
    columns:
      order_id: bigint
      customer_id: bigint
      merchant: text
      amount: numeric(12,2)
YAML
  echo "SELECT order_id, customer_id, merchant, amount FROM source('shop.orders')" > "$1/models/copied.sql"
  echo "SELECT order_id, customer_id, 1000 / (order_id % 13) AS r FROM source('shop.orders')" > "$1/models/ratios.sql"
  cat > "$1/models/per_customer.sql" <<'SQL'
SELECT customer_id, count(*) AS n, sum(amount) AS total, max(amount) AS top,
       count(DISTINCT merchant) AS merchants
FROM source('shop.orders') GROUP BY customer_id
SQL
  cat > "$1/models/per_pair.sql" <<'SQL'
SELECT customer_id, merchant, count(*) AS n, min(amount) AS low
FROM source('shop.orders') GROUP BY customer_id, merchant
SQL
  echo "SELECT merchant, count(*) AS n, sum(amount) AS total FROM source('shop.orders') GROUP BY merchant" \
    > "$1/models/per_merchant.sql"
  cat > "$1/models/schema.yml" <<'YAML'
models:
  copied: {materialized: append, sink: {connector: file, path: out/copied.jsonl, format: json}}
  ratios: {materialized: append, sink: {connector: file, path: out/ratios.jsonl, format: json}}
  per_customer: {materialized: upsert, key: [customer_id], sink: {connector: sqlite, path: out/agg.db}}
  per_pair: {materialized: upsert, key: [customer_id, merchant], sink: {connector: sqlite, path: out/agg.db}}
  per_merchant: {materialized: table, key: [merchant], sink: {connector: sqlite, path: out/agg.db}}
YAML
}
# add_file DIR F: the F-th file of input (the same in every project)
add_file() {
  local f=$2 i
  { echo "customer_id,amount,merchant,order_id"
    for i in $(seq $((f * 1000)) $((f * 1000 + 399))); do
      if [ $((i % 53)) = 0 ]; then echo "$((i % 17)),not-a-number,m$((i % 7)),$i"
      else echo "$((i % 17)),$((i % 500)).25,m$((i % 7)),$i"; fi
    done; } > "$1/landing/.tmp" && mv "$1/landing/.tmp" "$1/landing/$f.csv"
}
tables() {
  sqlite3 "$1/out/agg.db" "SELECT * FROM per_customer ORDER BY customer_id;
    SELECT * FROM per_pair ORDER BY customer_id, merchant; SELECT * FROM per_merchant ORDER BY merchant"
}
compare() {  # compare CASE DIR
  for f in out/copied.jsonl out/ratios.jsonl target/dead_letter/shop.orders.jsonl target/dead_letter/ratios.jsonl; do
    cmp "$REF/$f" "$2/$f" || fail "$1: $f differs from an uninterrupted run with one worker"
  done
  assert_eq "$(tables "$2")" "$(tables "$REF")" "$1: the aggregates' tables"
}

REF=$TMP/ref
project "$REF"
for f in $(seq 1 $NFILES); do add_file "$REF" "$f"; done
(cd "$REF" && "$WEIR" run --no-progress --until-caught-up --batch-size 16 --workers 1 > run.out 2>&1) \
  || { cat "$REF/run.out"; fail "the reference run"; }
bad=0
for f in $(seq 1 $NFILES); do for i in $(seq $((f * 1000)) $((f * 1000 + 399))); do [ $((i % 53)) = 0 ] && bad=$((bad + 1)); done; done
assert_eq "$(wc -l < "$REF/out/copied.jsonl")" $((NFILES * 400 - bad)) "rows of the reference run"
assert_eq "$(wc -l < "$REF/target/dead_letter/shop.orders.jsonl")" "$bad" "source dead letters of the reference run"
[ -s "$REF/target/dead_letter/shop.orders.jsonl" ] || fail "the reference run wrote no source dead letters"
[ -s "$REF/target/dead_letter/ratios.jsonl" ] || fail "the reference run wrote no model dead letters"

# one run of case K: workers N, batch B, stopped by STOP (term, kill, crash:<point>, end)
run_once() {
  local K=$1 N=$2 B=$3 STOP=$4 i=$5 rc=0
  case $STOP in
    end)
      (cd "$K" && "$WEIR" run --no-progress --until-caught-up --batch-size "$B" --workers "$N" \
         --checkpoint-interval 0 > "run$i.out" 2>&1) || { cat "$K/run$i.out"; fail "$K run $i (--workers $N)"; } ;;
    crash:*)
      (cd "$K" && WEIR_CRASH_AT=${STOP#crash:} "$WEIR" run --no-progress --until-caught-up --batch-size "$B" \
         --workers "$N" --checkpoint-interval 0 > "run$i.out" 2>&1) || rc=$?
      # the point may lie beyond the run's end (it then ends as usual)
      [ "$rc" -eq 0 ] || [ "$rc" -eq 137 ] || { cat "$K/run$i.out"; fail "$K run $i: exit $rc"; } ;;
    term|kill)
      # a run that watches the directory: stopped at a random moment
      (cd "$K" && exec "$WEIR" run --no-progress --batch-size "$B" --workers "$N" --checkpoint-interval 0 \
         > "run$i.out" 2>&1) &
      local pid=$! deadline=$((SECONDS + 120))
      # from the moment it holds its state directory (its SIGTERM handler is in place
      # before: a signal during start-up would end it by the default action)
      until holds_flock "$pid" "$K/.weir/dev/run.lock"; do
        kill -0 "$pid" 2>/dev/null || { cat "$K/run$i.out"; fail "$K run $i ended before taking its lock"; }
        [ $SECONDS -lt $deadline ] || { kill -KILL "$pid"; fail "$K run $i never took its lock"; }
        sleep 0.01
      done
      sleep "0.$(printf %02d $((RANDOM % 40)))"
      if [ "$STOP" = term ]; then kill -TERM "$pid"; else kill -KILL "$pid"; fi
      wait "$pid" 2>/dev/null || rc=$?
      if [ "$STOP" = term ] && [ "$rc" -ne 0 ]; then cat "$K/run$i.out"; fail "$K run $i: SIGTERM exit $rc"; fi ;;
  esac
}

# cases: per run "workers:batch:stop", a file added before each run after the first
CASES=(
  "2:16:kill 1:7:term 3:4096:kill 2:1:kill 1:16:end"
  "3:7:term 2:16:kill 1:4096:kill 3:16:end"
  "2:1:crash:checkpoint-commit:5 3:16:crash:checkpoint-committed:4 1:7:crash:delivery:9 2:16:end"
  "1:16:crash:delivered:6 2:7:crash:checkpoint-commit:3 3:1:kill 2:16:end"
  "1:16:crash:delivery:9 1:7:crash:checkpoint-committed:4 1:16:end"
  "1:16:kill 2:7:term 3:16:end"
  "2:4096:term 2:16:kill 2:7:end"
)
c=0
partitioned=0   # runs whose operators ran on replicas
for spec in "${CASES[@]}"; do
  c=$((c + 1))
  K=$TMP/case$c
  project "$K"
  read -ra runs <<< "$spec"
  nf=$(( NFILES - ${#runs[@]} + 1 ))   # files at the start; one more before each later run
  for f in $(seq 1 $nf); do add_file "$K" "$f"; done
  i=0
  for r in "${runs[@]}"; do
    i=$((i + 1))
    if [ "$i" -gt 1 ] && [ "$nf" -lt "$NFILES" ]; then nf=$((nf + 1)); add_file "$K" "$nf"; fi
    IFS=: read -r N B STOP REST <<< "$r"
    [ -n "$REST" ] && STOP="$STOP:$REST"
    run_once "$K" "$N" "$B" "$STOP" "$i"
  done
  compare "case $c ($spec)" "$K"
  partitioned=$((partitioned + $(cat "$K"/run*.out | grep -c "over [23] replicas" || true)))
  echo "case $c ok: $spec"
done

echo "$partitioned runs on replicas"
[ "$partitioned" -ge 3 ] || fail "only $partitioned of the runs above ran on replicas"
# the fourth case checkpointed on 3 replicas before its last run (2 workers): re-partitioned
assert_contains "$TMP/case4/run4.out" "its state of 3 replicas re-partitioned over 2" "case 4: the last run"
# the sixth went 1 -> 2 -> 3 workers
assert_contains "$TMP/case6/run2.out" "its state of 1 replica re-partitioned over 2" "case 6: run 2"

# incremental checkpoints on replicas: a resumed run that touches few of many groups
# rewrites only their chunks in each replica (and its table equals one worker's)
inc_project() {
  mkdir -p "$1/sources" "$1/models" "$1/landing"
  echo "name: workers_durable_inc" > "$1/weir.yml"
  printf 'sources:\n  ev:\n    connector: file\n    path: landing\n    format: csv\n    columns: {k: bigint, v: bigint}\n' \
    > "$1/sources/s.yml"
  echo "SELECT k, count(*) AS n, sum(v) AS s FROM source('ev') GROUP BY k" > "$1/models/per_k.sql"
  echo "models: {per_k: {materialized: upsert, key: [k], sink: {connector: sqlite, path: out/k.db}}}" > "$1/models/schema.yml"
  { echo "k,v"; seq 1 20000 | awk '{print $1 "," $1 % 97}'; } > "$1/landing/1.csv"
}
ckpt_bytes() { python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['checkpoint_bytes'])" "$1"; }
for w in 1 2; do
  I=$TMP/inc$w
  inc_project "$I"
  (cd "$I" && "$WEIR" run --no-progress --until-caught-up --workers $w --format json > run1.json 2> run1.err) \
    || { cat "$I/run1.err"; fail "incremental, $w workers: run 1"; }
  { echo "k,v"; seq 1 1000 20000 | awk '{print $1 ",1"}'; } > "$I/landing/2.csv"
  (cd "$I" && "$WEIR" run --no-progress --until-caught-up --workers $w --format json > run2.json 2> run2.err) \
    || { cat "$I/run2.err"; fail "incremental, $w workers: run 2"; }
  full=$(ckpt_bytes "$I/run1.json"); inc=$(ckpt_bytes "$I/run2.json")
  echo "incremental, $w workers: $full bytes, then $inc"
  [ $((inc * 10)) -lt "$full" ] || fail "incremental, $w workers: the second checkpoint wrote $inc bytes of a full $full"
done
assert_contains "$TMP/inc2/run2.json" '"replicas": 2' "incremental: the second run is on 2 replicas"
assert_eq "$(sqlite3 "$TMP/inc2/out/k.db" 'SELECT * FROM per_k ORDER BY k')" \
  "$(sqlite3 "$TMP/inc1/out/k.db" 'SELECT * FROM per_k ORDER BY k')" "incremental: the tables of 1 and 2 workers"

# a checkpoint's replicas are re-partitioned over another count, and said so; weir apply
# merges them into one pipeline
K=$TMP/keep
project "$K"
for f in 1 2; do add_file "$K" "$f"; done
(cd "$K" && "$WEIR" run --no-progress --until-caught-up --workers 2 > run1.out 2>&1) || { cat "$K/run1.out"; fail "keep: run 1"; }
assert_contains "$K/run1.out" "over 2 replicas" "keep: run 1 partitions"
(cd "$K" && "$WEIR" inspect > inspect.out 2>&1) || { cat "$K/inspect.out"; fail "keep: inspect"; }
assert_contains "$K/inspect.out" "the state of 2 engine replicas" "keep: inspect says how many replicas"
add_file "$K" 3
(cd "$K" && "$WEIR" run --no-progress --until-caught-up --workers 3 > run2.out 2>&1) || { cat "$K/run2.out"; fail "keep: run 2"; }
assert_contains "$K/run2.out" "continued from checkpoint" "keep: run 2 continues"
assert_contains "$K/run2.out" "over 3 replicas" "keep: run 2 runs on 3 replicas"
assert_contains "$K/run2.out" "its state of 2 replicas re-partitioned over 3" "keep: run 2 says so"
add_file "$K" 4
(cd "$K" && "$WEIR" run --no-progress --until-caught-up --workers 1 --format json > run3.out 2>&1) || { cat "$K/run3.out"; fail "keep: run 3"; }
assert_contains "$K/run3.out" '"replicas": 1' "keep: run 3 (--workers 1) runs on one pipeline"
assert_contains "$K/run3.out" '"repartitioned_from": 3' "keep: run 3 reports the checkpoint's 3 replicas"
R4=$TMP/ref4
project "$R4"
for f in 1 2 3 4; do add_file "$R4" "$f"; done
(cd "$R4" && "$WEIR" run --no-progress --until-caught-up --workers 1 > run.out 2>&1) || fail "keep: the reference of 4 files"
assert_eq "$(tables "$K")" "$(tables "$R4")" "keep: 2 -> 3 -> 1 replicas, the aggregates' tables"
# weir apply on a checkpoint of 2 replicas: merged into one pipeline, the change applied
(cd "$K" && "$WEIR" run --no-progress --until-caught-up --workers 2 > run4.out 2>&1) || { cat "$K/run4.out"; fail "keep: run 4"; }
assert_contains "$K/run4.out" "re-partitioned over 2" "keep: run 4 on 2 replicas"
echo "SELECT customer_id, count(*) AS n FROM source('shop.orders') GROUP BY customer_id" > "$K/models/per_customer.sql"
(cd "$K" && "$WEIR" apply --yes > apply.out 2>&1) || { cat "$K/apply.out"; fail "apply on a checkpoint of 2 replicas"; }
add_file "$K" 5
(cd "$K" && "$WEIR" run --no-progress --until-caught-up --workers 2 > run5.out 2>&1) || { cat "$K/run5.out"; fail "keep: run 5"; }
assert_contains "$K/run5.out" "its state of 1 replica re-partitioned over 2" "keep: run 5 splits apply's one pipeline"
echo "SELECT customer_id, count(*) AS n FROM source('shop.orders') GROUP BY customer_id" > "$REF/models/per_customer.sql"
(cd "$REF" && "$WEIR" run --no-progress --until-caught-up --fresh --workers 1 > run2.out 2>&1) || fail "the reference, changed"
assert_eq "$(tables "$K")" "$(tables "$REF")" "keep: after apply and 2 replicas, the aggregates' tables"
# without --workers a durable run partitions over the machine's cores
if [ "$(nproc)" -gt 1 ]; then
  (cd "$K" && "$WEIR" run --no-progress --until-caught-up --fresh > run6.out 2>&1) || { cat "$K/run6.out"; fail "keep: run 6"; }
  assert_contains "$K/run6.out" "over $(nproc) replicas" "keep: run 6 without --workers"
fi
echo ok
