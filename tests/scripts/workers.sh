#!/usr/bin/env bash
# `weir run --workers N` gives the results of one worker (docs/run.md, "Workers"):
#  - tests/scripts/workers.py: every example and test project with data, and a
#    generated Nexmark project with malformed and late bids, with --workers 1, 2, 3 and
#    --batch-size 1, 7, 4096: sinks and dead letters byte for byte for equal batch sizes,
#    final tables and dead letters (sorted) across batch sizes; tests/projects/par_keyed
#    and each keyed Nexmark query alone must say they ran on one replica per worker
#    (WORKERS_ONLY=name,... narrows the projects, WORKERS_BATCHES the batch sizes);
#  - a durable run of a directory of CSV files (a header per file, bad records among
#    them) with 2 workers, killed with SIGKILL at several points of its checkpoints and
#    deliveries and continued with --workers 3 (on the checkpoint's 2 replicas, or on
#    the 3 asked for when it was killed before its first checkpoint), ends with what an
#    uninterrupted run with one worker writes: the appended rows byte for byte, the
#    aggregate's table, the dead letters (more in workers_durable.sh).
source "$(dirname "$0")/lib.sh"
GEN=$ROOT/$BUILD/nexmark_gen
if [ ! -x "$GEN" ] || [ "$ROOT/bench/nexmark_gen.c" -nt "$GEN" ]; then
  GEN=$TMP/nexmark_gen
  ${CC:-cc} -O2 -std=c11 -Wall -Wextra -Werror "$ROOT/bench/nexmark_gen.c" -o "$GEN"
fi
mkdir -p "$TMP/projects"
WORKERS_BATCHES=${WORKERS_BATCHES:-1,7,4096} python3 "$ROOT/tests/scripts/workers.py" "$WEIR" "$ROOT" "$TMP/projects" "$GEN" || fail "results depend on --workers"

# --- durable: killed with 2 workers, continued with 3, equals one worker never stopped
project() {
  mkdir -p "$1/sources" "$1/models" "$1/landing"
  echo "name: workers" > "$1/weir.yml"
  cat > "$1/sources/s.yml" <<'YAML'
sources:
  shop.orders:
    connector: file
    path: landing
    format: csv
    columns:
      order_id: bigint
      customer_id: bigint
      amount: numeric(12,2)
YAML
  echo "SELECT order_id, customer_id, amount FROM source('shop.orders')" > "$1/models/copied.sql"
  echo "SELECT customer_id, count(*) AS n, sum(amount) AS total FROM source('shop.orders') GROUP BY customer_id" \
    > "$1/models/per_customer.sql"
  cat > "$1/models/schema.yml" <<'YAML'
models:
  copied: {materialized: append, sink: {connector: file, path: out/copied.jsonl, format: json}}
  per_customer: {materialized: upsert, key: [customer_id], sink: {connector: sqlite, path: out/agg.db}}
YAML
  for f in 1 2 3; do
    { echo "customer_id,amount,order_id"
      for i in $(seq $((f * 1000)) $((f * 1000 + 299))); do
        if [ $((i % 53)) = 0 ]; then echo "$((i % 11)),not-a-number,$i"; else echo "$((i % 11)),$i.25,$i"; fi
      done; } > "$1/landing/$f.csv"
  done
}
final() {
  sqlite3 "$1/out/agg.db" "SELECT * FROM per_customer ORDER BY customer_id"
}
REF=$TMP/ref
project "$REF"
(cd "$REF" && "$WEIR" run --no-progress --until-caught-up --batch-size 16 --workers 1 > run.out 2>&1) \
  || { cat "$REF/run.out"; fail "the reference run"; }
assert_eq "$(wc -l < "$REF/out/copied.jsonl")" 882 "rows of the reference run (900 records, 18 bad)"
[ -s "$REF/target/dead_letter/shop.orders.jsonl" ] || fail "the reference run wrote no dead letters"
# per_customer's aggregate emits only at the checkpoints (its sink's flush points), so
# the kills below also test that no deferred change is lost across a resume
assert_contains "$REF/run.out" "coalesced per key, deferred" "per_customer's output is deferred"
for point in checkpoint-committed:3 checkpoint-commit:9 delivery:14 checkpoint-committed:40; do
  K=$TMP/kill-${point//:/-}
  project "$K"
  rc=0
  (cd "$K" && WEIR_CRASH_AT=$point "$WEIR" run --no-progress --until-caught-up --batch-size 16 --workers 2 \
     --checkpoint-interval 0 > run1.out 2>&1) || rc=$?
  [ "$rc" -ne 0 ] || fail "$point: the crash point was not reached"
  (cd "$K" && "$WEIR" run --no-progress --until-caught-up --batch-size 16 --workers 3 > run2.out 2>&1) \
    || { cat "$K/run2.out"; fail "$point: continue with 3 workers"; }
  assert_contains "$K/run2.out" "continued from checkpoint" "$point: the second run continues"
  cmp "$REF/out/copied.jsonl" "$K/out/copied.jsonl" || fail "$point: the appended rows differ from an uninterrupted run"
  assert_eq "$(final "$K")" "$(final "$REF")" "$point: the aggregate's table"
  cmp "$REF/target/dead_letter/shop.orders.jsonl" "$K/target/dead_letter/shop.orders.jsonl" \
    || fail "$point: the dead letters differ from an uninterrupted run"
done

rc=0
"$WEIR" --project-dir "$REF" run --workers 0 > "$TMP/bad.txt" 2>&1 || rc=$?
assert_eq "$rc" 2 "exit code of --workers 0"
assert_contains "$TMP/bad.txt" "--workers must be an integer between 1 and 256" "the message"
echo ok
