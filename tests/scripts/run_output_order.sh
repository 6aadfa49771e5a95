#!/usr/bin/env bash
# The changes of one `weir run` step reach the sink ordered by the output key (text in
# byte order, NULL last), also for many keys that share a long common prefix (the
# presentation sort refines such runs by later bytes) and for keys that are prefixes
# of each other; a keyless output is ordered by whole rows, column by column (runs of
# equal integers are refined by the next column; NULL sorts after the largest bigint).
source "$(dirname "$0")/lib.sh"
P="$TMP/order"
mkdir -p "$P/sources" "$P/models" "$P/data"
echo "name: order" > "$P/weir.yml"
cat > "$P/sources/s.yml" <<'YAML'
sources:
  s.events:
    connector: file
    path: data/events.jsonl
    format: json
    columns: {k: text, v: bigint}
YAML
cat > "$P/models/counts.sql" <<'SQL'
SELECT k, count(*) AS n FROM source('s.events') GROUP BY k
SQL
cat > "$P/models/rows.sql" <<'SQL'
SELECT v, k FROM source('s.events')
SQL
cat > "$P/models/schema.yml" <<'YAML'
models:
  counts:
    materialized: upsert
    key: [k]
    sink: {connector: file, path: out/counts.jsonl, format: changelog-json}
  rows:
    materialized: append
    sink: {connector: file, path: out/rows.jsonl, format: json}
YAML
python3 - "$P/data/events.jsonl" <<'PY'
import json, random, sys
random.seed(7)
keys = ["customer-account-%d" % i for i in range(300)]
keys += ["customer-account-", "customer-account", "customer-accounts", "c", "", "customer-account-\u00e9"]
rows = [{"k": k, "v": 1} for k in keys] + [{"v": 2}, {"k": None, "v": 3}]
big = [9223372036854775807, -9223372036854775808, 0, 5, None]
rows += [{"k": random.choice(["a", "b", None]), "v": random.choice(big)} for _ in range(200)]
random.shuffle(rows)
with open(sys.argv[1], "w") as f:
    for r in rows:
        f.write(json.dumps(r, ensure_ascii=False) + "\n")
PY
"$WEIR" --project-dir "$P" run --no-progress > "$TMP/run.txt" 2>&1 || { cat "$TMP/run.txt"; fail "run failed"; }
python3 - "$P/target/out/counts.jsonl" "$P/out/counts.jsonl" <<'PY' || fail "output is not in key order"
import json, os, sys
path = next(p for p in sys.argv[1:] if os.path.exists(p))
ks = [json.loads(l)["k"] for l in open(path, encoding="utf-8")]
assert len(ks) == 309, len(ks)
def key(k):
    return (1, b"") if k is None else (0, k.encode("utf-8"))
assert ks == sorted(ks, key=key), [k for k, s in zip(ks, sorted(ks, key=key)) if k != s][:5]
rows_path = path.replace("counts.jsonl", "rows.jsonl")
rows = [json.loads(l) for l in open(rows_path, encoding="utf-8")]
assert len(rows) == 508, len(rows)
def rkey(r):
    v, k = r.get("v"), r.get("k")
    return ((1, 0) if v is None else (0, v), key(k))
assert rows == sorted(rows, key=rkey), "rows out of order"
PY
echo ok
