#!/usr/bin/env bash
# Coalesced sinks: between two flushes an upsert or table model's sink receives one
# change per key (docs/run.md, "Sinks"), and what it ends with does not depend on the
# batch size or the flush interval. Input shaped like bench/agg_vs_clickhouse.sh
# (transactions over accounts, COUNT/SUM/MAX/COUNT(DISTINCT) per account), plus a model
# with HAVING whose groups appear and disappear (deletes), and an append model whose
# changelog must stay one line per row. Expected results are computed here from the
# input.
source "$(dirname "$0")/lib.sh"

P="$TMP/p"
mkdir -p "$P/sources" "$P/models" "$P/data"
echo "name: coalesce" > "$P/weir.yml"
python3 "$ROOT/bench/agg_gen.py" 30000 3000 "$P/data/tx.jsonl" 7
cat > "$P/sources/tx.yml" <<'YAML'
sources:
  bank.tx:
    connector: file
    path: data/tx.jsonl
    format: json
    columns:
      account_id: bigint
      merchant: text
      amount: bigint
YAML
cat > "$P/models/per_account.sql" <<'SQL'
SELECT account_id, COUNT(*) AS n, SUM(amount) AS total, MAX(amount) AS max_amount,
       COUNT(DISTINCT merchant) AS merchants
FROM source('bank.tx') GROUP BY account_id
SQL
cat > "$P/models/few.sql" <<'SQL'
SELECT account_id, COUNT(*) AS n FROM source('bank.tx') GROUP BY account_id HAVING COUNT(*) <= 8
SQL
cat > "$P/models/big_tx.sql" <<'SQL'
SELECT account_id, amount FROM source('bank.tx') WHERE amount > 99000
SQL
schema() {  # schema FLUSH-YAML (e.g. "flush_interval: 1h", or empty)
  cat > "$P/models/schema.yml" <<YAML
models:
  per_account:
    materialized: upsert
    key: [account_id]
    sink: {connector: file, path: out/per_account.jsonl, format: changelog-json${1:+, $1}}
  few:
    materialized: table
    key: [account_id]
    sink: {connector: sqlite, path: out/few.db, table: few${1:+, $1}}
  big_tx:
    materialized: append
    sink: {connector: file, path: out/big_tx.jsonl, format: json${1:+, $1}}
YAML
}

# the expected rows, from the input
python3 - "$P/data/tx.jsonl" "$TMP" <<'PY'
import json, sys
acc = {}
big = 0
for line in open(sys.argv[1]):
    r = json.loads(line)
    a = acc.setdefault(r["account_id"], [0, 0, 0, set()])
    a[0] += 1; a[1] += r["amount"]; a[2] = max(a[2], r["amount"]); a[3].add(r["merchant"])
    big += r["amount"] > 99000
with open(sys.argv[2] + "/want_per_account", "w") as f:
    for k in sorted(acc):
        n, t, m, d = acc[k]
        f.write("%d %d %d %d %d\n" % (k, n, t, m, len(d)))
with open(sys.argv[2] + "/want_few", "w") as f:
    for k in sorted(acc):
        if acc[k][0] <= 8: f.write("%d %d\n" % (k, acc[k][0]))
open(sys.argv[2] + "/want_big", "w").write("%d\n" % big)
PY

# replay FILE: the rows a changelog-json file ends with, sorted; fails on a change
# that does not fit what the file held (an insert of a present key, an update or
# delete of an absent one, a delete or update whose old row is not the one held)
replay() {
  python3 - "$1" <<'PY'
import json, sys
rows = {}
for i, line in enumerate(open(sys.argv[1]), 1):
    c = json.loads(line); op = c.pop("op"); k = c["account_id"]
    if op == "insert":
        assert k not in rows, "line %d: insert of a present key %d" % (i, k)
        rows[k] = c
    elif op == "update":
        assert k in rows, "line %d: update of an absent key %d" % (i, k)
        rows[k] = c
    else:
        assert rows.get(k) == c, "line %d: delete of %d does not match the row held" % (i, k)
        del rows[k]
for k in sorted(rows):
    r = rows[k]
    print(k, r["n"], r["total"], r["max_amount"], r["merchants"])
PY
}
summary() {  # summary FILE MODEL FIELD
  python3 -c 'import json,sys; s=json.load(open(sys.argv[1])); print([m for m in s["models"] if m["name"]==sys.argv[2]][0][sys.argv[3]])' "$@"
}
run() {  # run LABEL BATCH
  rm -rf "$P/out"
  "$WEIR" --project-dir "$P" run --no-progress --format json --batch-size "$2" > "$TMP/$1.json" 2> "$TMP/$1.err" ||
    { cat "$TMP/$1.err" >&2; fail "$1: weir run failed"; }
  replay "$P/out/per_account.jsonl" > "$TMP/$1.per_account" || fail "$1: the changelog does not replay"
  sqlite3 "$P/out/few.db" 'SELECT account_id, n FROM few ORDER BY account_id' | tr '|' ' ' > "$TMP/$1.few"
  cmp -s "$TMP/$1.per_account" "$TMP/want_per_account" || fail "$1: per_account differs from the input's sums"
  cmp -s "$TMP/$1.few" "$TMP/want_few" || fail "$1: the sqlite table few differs from the input's counts"
  assert_eq "$(wc -l < "$P/out/big_tx.jsonl")" "$(cat "$TMP/want_big")" "$1: append sink lines (one per row)"
}
KEYS=$(wc -l < "$TMP/want_per_account")
FEW=$(wc -l < "$TMP/want_few")

# one flush, at the end: exactly one line per key, whatever the batch size
schema "flush_interval: 1h"
for b in 1 4096; do
  run "end$b" "$b"
  assert_eq "$(wc -l < "$P/out/per_account.jsonl")" "$KEYS" "batch $b, one flush: lines of per_account (one per key)"
  assert_eq "$(grep -c '"op":"insert"' "$P/out/per_account.jsonl")" "$KEYS" "batch $b, one flush: all inserts"
  assert_eq "$(summary "$TMP/end$b.json" per_account sink_flushes)" 1 "batch $b: one flush"
  assert_eq "$(summary "$TMP/end$b.json" per_account sink_changes)" "$KEYS" "batch $b: changes the sink received"
  # few: groups that came and went between flushes never reach the table
  assert_eq "$(summary "$TMP/end$b.json" few sink_changes)" "$FEW" "batch $b: few's sink changes (its final rows)"
  assert_eq "$(summary "$TMP/end$b.json" big_tx sink_coalesced)" False "batch $b: an append sink is not coalesced"
done
echo "ok: one flush at the end: $KEYS lines for $KEYS keys at batch sizes 1 and 4096"

# a flush after every step: one line per key per step, the same final rows
schema "flush_interval: 0s"
for b in 1 4096; do
  run "step$b" "$b"
  steps=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["steps"])' "$TMP/step$b.json")
  assert_eq "$(summary "$TMP/step$b.json" per_account sink_flushes)" "$steps" "batch $b: a flush per step"
  lines=$(wc -l < "$P/out/per_account.jsonl")
  assert_eq "$(summary "$TMP/step$b.json" per_account sink_changes)" "$lines" "batch $b: sink changes = lines"
  [ "$lines" -le "$(summary "$TMP/step$b.json" per_account updates | awk -v k="$KEYS" '{print $1 + k}')" ] ||
    fail "batch $b: more lines than the model's changes"
done
echo "ok: a flush per step: the same rows at batch sizes 1 and 4096"

# the default interval: at most one line per key per flush
schema ""
run default 1
flushes=$(summary "$TMP/default.json" per_account sink_flushes)
python3 - "$P/out/per_account.jsonl" "$KEYS" "$flushes" <<'PY' || fail "default interval: more than one line per key per flush"
import json, sys
seen = {}
for line in open(sys.argv[1]):
    k = json.loads(line)["account_id"]; seen[k] = seen.get(k, 0) + 1
assert len(seen) == int(sys.argv[2]), "keys"
assert max(seen.values()) <= int(sys.argv[3]), "a key in more lines than there were flushes"
PY
echo "ok: the default flush interval ($flushes flushes)"

# configuration errors
schema "flush_interval: soon"
"$WEIR" --project-dir "$P" check > "$TMP/bad.out" 2>&1 && fail "a bad flush_interval passed weir check"
assert_contains "$TMP/bad.out" "invalid duration 'soon' for \`flush_interval\`" "bad flush_interval"
echo "ok: a bad flush_interval is an error"
echo "4 passed, 0 failed"
