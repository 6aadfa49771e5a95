#!/usr/bin/env bash
# Coalesced sinks: between two flushes an upsert or table model's sink receives one
# change per key (docs/run.md, "Sinks"), and what it ends with does not depend on the
# batch size or the flush interval. Input shaped like bench/agg_vs_clickhouse.sh
# (transactions over accounts, COUNT/SUM/MAX/COUNT(DISTINCT) per account), plus a model
# with HAVING whose groups appear and disappear (deletes), and an append model whose
# changelog must stay one line per row. Expected results are computed here from the
# input. Then deferred aggregates (below): their sinks must get what per-step
# presentation gives.
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

# --- deferred output: an aggregate whose model only a coalescing sink reads emits at
# the flushes alone (engine.h, "deferred output"). Over an updating source (rows move
# between accounts and are deleted, so groups come, go and come back), a deferred model
# (`moves`; `moves_proj`, a plain projection of the same aggregate) must give its sink
# exactly what the same aggregate presented every step gives (`twin`, not deferred
# because `twin_reader` reads it): byte for byte with a flush per step, the same final
# rows with one flush, for every batch size and number of workers.
D="$TMP/d"
mkdir -p "$D/sources" "$D/models" "$D/data"
echo "name: deferred" > "$D/weir.yml"
python3 - "$D/data/moves.jsonl" "$TMP/want_moves" <<'PY'
import json, random, sys
rnd = random.Random(12)
live = {}
with open(sys.argv[1], "w") as f:
    for i in range(6000):
        k = rnd.randrange(500)
        r = rnd.random()
        if k in live and r < 0.25:
            f.write(json.dumps({"op": "delete", "id": k}) + "\n")
            del live[k]
            continue
        row = {"id": k, "account_id": rnd.randrange(40), "amount": rnd.randrange(-50, 1000)}
        f.write(json.dumps(dict(op="update" if k in live else "insert", **row)) + "\n")
        live[k] = row
acc = {}
for row in live.values():
    a = acc.setdefault(row["account_id"], [0, 0, 0])
    a[0] += 1; a[1] += row["amount"]; a[2] = max(a[2], row["amount"]) if a[0] > 1 else row["amount"]
with open(sys.argv[2], "w") as f:
    for k in sorted(acc):
        f.write(json.dumps({"account_id": k, "n": acc[k][0], "total": acc[k][1], "top": acc[k][2]}, sort_keys=True) + "\n")
PY
cat > "$D/sources/moves.yml" <<'YAML'
sources:
  bank.moves:
    connector: file
    path: data/moves.jsonl
    format: changelog-json
    columns:
      id: bigint
      account_id: bigint
      amount: bigint
    primary_key: [id]
YAML
AGG="SELECT account_id, COUNT(*) AS n, SUM(amount) AS total, MAX(amount) AS top FROM source('bank.moves') GROUP BY account_id"
echo "$AGG" > "$D/models/moves.sql"
echo "$AGG" > "$D/models/twin.sql"
echo "SELECT top, account_id, total, n FROM ($AGG) a" > "$D/models/moves_proj.sql"
echo "SELECT account_id, n FROM ref('twin') WHERE n > 1" > "$D/models/twin_reader.sql"
dschema() {  # dschema FLUSH-INTERVAL
  cat > "$D/models/schema.yml" <<YAML
models:
  moves: {materialized: upsert, key: [account_id], sink: {connector: file, path: out/moves.jsonl, format: changelog-json, flush_interval: $1}}
  twin: {materialized: upsert, key: [account_id], sink: {connector: file, path: out/twin.jsonl, format: changelog-json, flush_interval: $1}}
  moves_proj: {materialized: table, key: [account_id], sink: {connector: sqlite, path: out/proj.db, table: moves_proj, flush_interval: $1}}
  twin_reader: {materialized: upsert, key: [account_id]}
YAML
}
# final FILE: the rows a changelog-json file ends with (sorted JSON lines); fails on a
# change that does not fit what the file held
final() {
  python3 - "$1" <<'PY'
import json, sys
rows = {}
for i, line in enumerate(open(sys.argv[1]), 1):
    c = json.loads(line); op = c.pop("op"); k = c["account_id"]
    if op == "insert": assert k not in rows, "line %d: insert of a present key" % i
    elif op == "update": assert k in rows, "line %d: update of an absent key" % i
    else: assert rows.get(k) == c, "line %d: delete of a row not held" % i
    if op == "delete": del rows[k]
    else: rows[k] = c
for k in sorted(rows): print(json.dumps(rows[k], sort_keys=True))
PY
}
drun() {  # drun LABEL WORKERS BATCH
  rm -rf "$D/out"
  "$WEIR" --project-dir "$D" run --no-progress --format json --workers "$2" --batch-size "$3" > "$TMP/$1.json" 2> "$TMP/$1.err" ||
    { cat "$TMP/$1.err" >&2; fail "$1: weir run failed"; }
  assert_eq "$(summary "$TMP/$1.json" moves sink_deferred)" True "$1: moves is deferred"
  assert_eq "$(summary "$TMP/$1.json" moves_proj sink_deferred)" True "$1: moves_proj (a projection of it) is deferred"
  assert_eq "$(summary "$TMP/$1.json" twin sink_deferred)" False "$1: twin (read by another model) is not deferred"
  final "$D/out/moves.jsonl" > "$TMP/$1.moves" || fail "$1: moves' changelog does not replay"
  final "$D/out/twin.jsonl" > "$TMP/$1.twin" || fail "$1: twin's changelog does not replay"
  cmp -s "$TMP/$1.moves" "$TMP/want_moves" || fail "$1: moves' final rows differ from the input's"
  cmp -s "$TMP/$1.twin" "$TMP/want_moves" || fail "$1: twin's final rows differ from the input's"
  sqlite3 -json "$D/out/proj.db" 'SELECT account_id, n, CAST(total AS INTEGER) AS total, top FROM moves_proj ORDER BY account_id' |
    python3 -c 'import json,sys; [print(json.dumps(r, sort_keys=True)) for r in json.load(sys.stdin)]' > "$TMP/$1.proj"
  cmp -s "$TMP/$1.proj" "$TMP/want_moves" || { diff "$TMP/$1.proj" "$TMP/want_moves" | head -5; fail "$1: the sqlite table moves_proj differs from the input's"; }
}
for w in 1 2 3; do
  for b in 1 7 4096; do
    dschema 0s
    drun "step-w$w-b$b" "$w" "$b"
    cmp -s "$D/out/moves.jsonl" "$D/out/twin.jsonl" || fail "workers $w, batch $b, a flush per step: deferred and presented changelogs differ"
    [ "$w" = 1 ] || cmp -s "$D/out/moves.jsonl" "$TMP/step-w1-b$b.changelog" || fail "workers $w, batch $b: changelog differs from 1 worker's"
    [ "$w" = 1 ] && cp "$D/out/moves.jsonl" "$TMP/step-w1-b$b.changelog"
    assert_eq "$(summary "$TMP/step-w$w-b$b.json" moves sink_changes)" "$(summary "$TMP/step-w$w-b$b.json" twin sink_changes)" \
      "workers $w, batch $b: changes of the deferred and the presented sink"
    dschema 1h
    drun "end-w$w-b$b" "$w" "$b"
    assert_eq "$(wc -l < "$D/out/moves.jsonl")" "$(wc -l < "$TMP/want_moves")" "workers $w, batch $b, one flush: one line per final key"
    cmp -s <(sort "$D/out/moves.jsonl") <(sort "$D/out/twin.jsonl") || fail "workers $w, batch $b, one flush: deferred and presented changelogs differ"
  done
done
echo "ok: deferred aggregates: the sink gets what per-step presentation gives, workers 1-3, batch sizes 1, 7, 4096"
echo "5 passed, 0 failed"
