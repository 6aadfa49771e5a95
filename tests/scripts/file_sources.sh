#!/usr/bin/env bash
# File sources that name a directory or a glob: their files are read in name order
# (hidden files passed over, every CSV file with its own header); such a run is durable:
# a run killed in the middle of a file continues exactly there (its output equals that
# of a run never stopped), a later run reads only the files that appeared since, and a
# run left going picks up a file that lands while it runs.
source "$(dirname "$0")/lib.sh"

# project DIR PATH FORMAT: one source reading PATH, one append model copying it into a file
project() {
  mkdir -p "$1/sources" "$1/models" "$1/landing"
  echo "name: files" > "$1/weir.yml"
  cat > "$1/sources/s.yml" <<EOF
sources:
  shop.orders:
    connector: file
    path: $2
    format: $3
    columns:
      order_id: bigint
      customer_id: bigint
      amount: numeric(12,2)
EOF
  echo "SELECT order_id, customer_id, amount FROM source('shop.orders')" > "$1/models/copied.sql"
  cat > "$1/models/schema.yml" <<'EOF'
models:
  copied: {materialized: append, sink: {connector: file, path: out/copied.jsonl, format: json}}
EOF
}
# rows DIR NAME FROM TO: a JSON lines file of orders FROM..TO
rows() {
  for i in $(seq "$3" "$4"); do echo "{\"order_id\": $i, \"customer_id\": $((i % 7)), \"amount\": \"$i.25\"}"; done > "$1/landing/$2"
}
ids() { sed 's/.*"order_id":\([0-9]*\).*/\1/' "$1" | tr '\n' ' '; }

# --- a directory: name order, hidden files passed over; the reference output
REF=$TMP/ref
project "$REF" landing json
rows "$REF" b.jsonl 101 160
rows "$REF" a.jsonl 1 100
echo '{"order_id": 999999, "customer_id": 0, "amount": 1}' > "$REF/landing/.partial.jsonl"
(cd "$REF" && "$WEIR" check > check.out 2>&1) || fail "check of a directory source"
(cd "$REF" && "$WEIR" run --until-caught-up --batch-size 7 > run.out 2>&1) || { cat "$REF/run.out"; fail "run of a directory source"; }
assert_eq "$(wc -l < "$REF/out/copied.jsonl")" 160 "rows of a.jsonl and b.jsonl"
assert_eq "$(ids "$REF/out/copied.jsonl")" "$(echo $(seq 1 160)) " "a.jsonl before b.jsonl, .partial.jsonl not read"

# --- killed in the middle of a.jsonl, then continued: exactly the reference
K=$TMP/kill
project "$K" landing json
cp "$REF"/landing/a.jsonl "$REF"/landing/b.jsonl "$K/landing/"
set +e
(cd "$K" && WEIR_CRASH_AT=checkpoint-committed:4 "$WEIR" run --until-caught-up --batch-size 7 \
   --checkpoint-interval 0 > run1.out 2>&1)
rc=$?
set -e
[ "$rc" -ne 0 ] || fail "the crash point was not reached"
(cd "$K" && "$WEIR" inspect > inspect.out 2>&1) || { cat "$K/inspect.out"; fail "inspect after the crash"; }
assert_contains "$K/inspect.out" "28 records read" "the checkpoint is in the middle of a.jsonl (4 steps of 7)"
(cd "$K" && "$WEIR" run --until-caught-up --batch-size 7 > run2.out 2>&1) || { cat "$K/run2.out"; fail "continue"; }
assert_contains "$K/run2.out" "continued from checkpoint" "the second run continues"
cmp "$REF/out/copied.jsonl" "$K/out/copied.jsonl" || fail "a killed and continued run differs from one never stopped"

# --- a new file since the last run: only it is read
rows "$K" c.jsonl 161 170
(cd "$K" && "$WEIR" run --until-caught-up > run3.out 2>&1) || { cat "$K/run3.out"; fail "run after a new file"; }
assert_contains "$K/run3.out" "10 events" "only c.jsonl is read"
assert_eq "$(ids "$K/out/copied.jsonl")" "$(echo $(seq 1 170)) " "a, b, then c, each once"

# --- a glob: the same, and its files are named in messages as matched
G=$TMP/glob
project "$G" 'landing/*.jsonl' json
cp "$REF"/landing/a.jsonl "$REF"/landing/b.jsonl "$G/landing/"
echo '{"order_id": 1}' > "$G/landing/notes.txt"
(cd "$G" && "$WEIR" run --until-caught-up --batch-size 7 > run.out 2>&1) || { cat "$G/run.out"; fail "run of a glob"; }
cmp "$REF/out/copied.jsonl" "$G/out/copied.jsonl" || fail "a glob reads what the directory does"

# --- CSV: every file has its header
C=$TMP/csv
project "$C" landing csv
printf 'order_id,customer_id,amount\n1,1,1.50\n2,2,2.50\n' > "$C/landing/1.csv"
printf 'amount,order_id,customer_id\n3.50,3,3\n' > "$C/landing/2.csv"
(cd "$C" && "$WEIR" run --until-caught-up > run.out 2>&1) || { cat "$C/run.out"; fail "run of CSV files"; }
assert_eq "$(cat "$C/out/copied.jsonl" | tr '\n' ' ')" \
  '{"order_id":1,"customer_id":1,"amount":1.50} {"order_id":2,"customer_id":2,"amount":2.50} {"order_id":3,"customer_id":3,"amount":3.50} ' \
  "each CSV file's own header"

# --- a run left going picks up a file that lands while it runs
Wd=$TMP/watch
project "$Wd" landing json
rows "$Wd" a.jsonl 1 5
(cd "$Wd" && exec "$WEIR" run --checkpoint-interval 10ms > run.out 2>&1) &
pid=$!
deadline=$((SECONDS + 60))
until [ -f "$Wd/out/copied.jsonl" ] && [ "$(wc -l < "$Wd/out/copied.jsonl")" -ge 5 ]; do
  [ $SECONDS -lt $deadline ] || { kill $pid; fail "the first file was not delivered"; }
  kill -0 $pid 2>/dev/null || { cat "$Wd/run.out"; fail "the run ended by itself"; }
  sleep 0.1
done
rows "$Wd" .b.jsonl 6 8 && mv "$Wd/landing/.b.jsonl" "$Wd/landing/b.jsonl"
until [ "$(wc -l < "$Wd/out/copied.jsonl")" -ge 8 ]; do
  [ $SECONDS -lt $deadline ] || { kill $pid; fail "the file that landed was not picked up"; }
  sleep 0.1
done
kill -TERM $pid
wait $pid || { cat "$Wd/run.out"; fail "SIGTERM ends the run with exit 0"; }
assert_eq "$(ids "$Wd/out/copied.jsonl")" "1 2 3 4 5 6 7 8 " "the new file's rows, once"
# --- weir apply replays a directory source up to the checkpoint's position exactly: a
# file that landed after the checkpoint is not part of the replay, the next run reads it
A=$TMP/apply
project "$A" landing json
echo "  per_customer: {materialized: upsert, key: [customer_id], sink: {connector: file, path: out/per_customer.jsonl, format: changelog-json}}" \
  >> "$A/models/schema.yml"
echo "SELECT customer_id, count(*) AS orders FROM source('shop.orders') GROUP BY customer_id" > "$A/models/per_customer.sql"
cp "$REF"/landing/a.jsonl "$REF"/landing/b.jsonl "$A/landing/"
(cd "$A" && "$WEIR" apply --yes > apply1.out 2>&1) || { cat "$A/apply1.out"; fail "first apply"; }
(cd "$A" && "$WEIR" run --until-caught-up --batch-size 7 > run1.out 2>&1) || { cat "$A/run1.out"; fail "run before the change"; }
rows "$A" c.jsonl 161 170   # lands after the checkpoint: the deployed version has not read it
echo "SELECT customer_id, count(*) AS orders, max(amount) AS largest FROM source('shop.orders') GROUP BY customer_id" \
  > "$A/models/per_customer.sql"
# the plan's replay cost is the bytes of the files the directory holds (its hidden
# files left out), not the directory entry's size
echo "not read" > "$A/landing/.hidden"
(cd "$A" && "$WEIR" plan > plan2.out 2>&1) || { cat "$A/plan2.out"; fail "plan of the change"; }
bytes=$(cat "$A"/landing/*.jsonl | wc -c)
assert_contains "$A/plan2.out" "$bytes bytes" "plan: the replay reads every file of the directory"
(cd "$A" && "$WEIR" apply --yes > apply2.out 2>&1) || { cat "$A/apply2.out"; fail "apply of the change"; }
assert_contains "$A/apply2.out" "160 records replayed" "the replay reads a.jsonl and b.jsonl, not c.jsonl"
(cd "$A" && "$WEIR" run --until-caught-up > run2.out 2>&1) || { cat "$A/run2.out"; fail "run after the change"; }
assert_contains "$A/run2.out" "10 events" "the run after the apply reads c.jsonl"
total=$(python3 -c '
import json, sys
rows = {}
for line in open(sys.argv[1]):
    r = json.loads(line)
    if r["op"] == "delete": rows.pop(r["customer_id"], None)
    else: rows[r["customer_id"]] = r
print(sum(r["orders"] for r in rows.values()), max(float(r["largest"]) for r in rows.values()))
' "$A/out/per_customer.jsonl")
assert_eq "$total" "170 170.25" "every order counted once after the replay"

echo "file_sources: ok"
