#!/usr/bin/env bash
# Lateness is a property of the input: the same rows through `weir run` at batch sizes
# 1, 7, 97 and 4096 and through `weir test` (one row per step, the sources interleaved
# otherwise, also with a checkpoint after every step) give the same sinks and the same
# dead letters. The project has late rows and out-of-order rows in three file
# sources, TUMBLE / HOP / SESSION windows, an interval LEFT JOIN of two sources, a
# window over that join, a window over the UNION ALL of all three sources, an OVER
# window and a keyed aggregate into SQLite. EVENT_TIME_SEED picks another input
# (default 1). Then the regression case of a batch size that changed which rows were
# late (five rows ten minutes late with a 1 s delay: dead letters at batch size 100,
# counted at 4096).
source "$(dirname "$0")/lib.sh"
SEED=${EVENT_TIME_SEED:-1}
P=$TMP/proj
mkdir -p "$P/sources" "$P/models" "$P/data" "$P/tests"
echo "name: event_time" > "$P/weir.yml"
cat > "$P/sources/s.yml" <<'EOF'
sources:
  orders:
    connector: file
    path: data/orders.jsonl
    format: json
    columns: {id: bigint, cust: bigint, amount: bigint, ts: timestamp}
    event_time: ts
    watermark_delay: 5s
  payments:
    connector: file
    path: data/payments.jsonl
    format: json
    columns: {id: bigint, order_id: bigint, ts: timestamp}
    event_time: ts
    watermark_delay: 2s
  clicks:
    connector: file
    path: data/clicks.jsonl
    format: json
    columns: {id: bigint, cust: bigint, ts: timestamp}
    event_time: ts
    watermark_delay: 0s
EOF
m() { echo "$2" > "$P/models/$1.sql"; }
m orders_per_min "SELECT window_start, cust, count(*) AS n, sum(amount) AS total
FROM TUMBLE(source('orders'), ts, INTERVAL '1' MINUTE) GROUP BY window_start, window_end, cust"
m orders_hop "SELECT window_start, window_end, count(*) AS n
FROM HOP(source('orders'), ts, INTERVAL '30' SECOND, INTERVAL '2' MINUTE) GROUP BY window_start, window_end"
m sessions "SELECT cust, window_start, window_end, count(*) AS n
FROM SESSION(source('orders'), ts, INTERVAL '45' SECOND) GROUP BY cust, window_start, window_end"
m paid "SELECT o.id, o.cust, o.ts, p.id AS payment, p.ts AS paid_at
FROM source('orders') o LEFT JOIN source('payments') p
  ON p.order_id = o.id AND p.ts BETWEEN o.ts AND o.ts + INTERVAL '3' MINUTE"
m paid_per_min "SELECT window_start, count(*) AS n, count(payment) AS paid
FROM TUMBLE(ref('paid'), ts, INTERVAL '1' MINUTE) GROUP BY window_start, window_end"
m activity_per_min "WITH ev AS (SELECT ts FROM source('orders') UNION ALL SELECT ts FROM source('payments')
  UNION ALL SELECT ts FROM source('clicks'))
SELECT window_start, count(*) AS n FROM TUMBLE(ev, ts, INTERVAL '1' MINUTE) GROUP BY window_start, window_end"
m running "SELECT id, cust, ts, sum(amount) OVER (PARTITION BY cust ORDER BY ts) AS running FROM source('orders')"
m cust_totals "SELECT cust, count(*) AS n, sum(amount) AS total FROM source('orders') GROUP BY cust"
APPEND="orders_per_min orders_hop sessions paid paid_per_min activity_per_min running"
{
  echo "models:"
  for x in $APPEND; do
    # (the IR counts a bounded LEFT JOIN as updating, though its padded rows come once, at expiry)
    if [ $x = paid ]; then echo "  $x: {materialized: retract, sink: {connector: file, path: out/$x.jsonl, format: changelog-json}}"
    else echo "  $x: {materialized: append, sink: {connector: file, path: out/$x.jsonl, format: json}}"; fi
  done
  echo "  cust_totals: {materialized: upsert, key: [cust], sink: {connector: sqlite, path: out/db.sqlite}}"
} > "$P/models/models.yml"

# the input: three sources roughly in event-time order with jitter, a few rows minutes
# late, payments for most orders (some too late for the join's 3 minutes); and the
# same rows as one `weir test` per model, the sources interleaved at random (their own
# order kept) and every watermark moved to the end at the end, as a run's end does
python3 - "$P" "$SEED" $APPEND cust_totals <<'PY'
import datetime, json, random, sys
d, seed, models = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
rnd = random.Random(seed)
base = datetime.datetime(2024, 1, 1, 10, 0, 0)
ts = lambda s: (base + datetime.timedelta(seconds=s)).strftime('%Y-%m-%d %H:%M:%S.%f')[:-3]
def stream(n, step, late_every):
    t, out = 0.0, []
    for i in range(n):
        t += rnd.uniform(0, step)
        s = t - rnd.uniform(0, 4)              # out of order within the delay
        if rnd.random() < late_every:
            s = t - rnd.uniform(60, 360)       # minutes late
        out.append(max(s, 0))
    return out
orders = [{"id": i, "cust": rnd.randrange(5), "amount": rnd.randrange(1, 100), "ts": ts(s)}
          for i, s in enumerate(stream(400, 3.0, 0.04))]
pays = []
for o in orders:
    if rnd.random() < 0.7:
        s = (datetime.datetime.strptime(o["ts"], '%Y-%m-%d %H:%M:%S.%f') - base).total_seconds()
        pays.append((s + rnd.uniform(0, 240), o["id"]))
pays.sort()
payments = []
for i, (s, oid) in enumerate(pays):
    if rnd.random() < 0.04:
        s -= rnd.uniform(60, 300)
    payments.append({"id": i, "order_id": oid, "ts": ts(max(s, 0))})
clicks = [{"id": i, "cust": rnd.randrange(5), "ts": ts(s)} for i, s in enumerate(stream(300, 4.0, 0.05))]
srcs = {"orders": orders, "payments": payments, "clicks": clicks}
for name, rows in srcs.items():
    with open(f"{d}/data/{name}.jsonl", "w") as f:
        for r in rows:
            f.write(json.dumps(r) + "\n")
order, left = [], {k: len(v) for k, v in srcs.items()}
while any(left.values()):
    k = rnd.choice([k for k in left if left[k]])
    for _ in range(rnd.randint(1, 30)):
        if left[k]:
            order.append((k, srcs[k][len(srcs[k]) - left[k]]))
            left[k] -= 1
reads = {"paid": ["orders", "payments"], "paid_per_min": ["orders", "payments"],
         "activity_per_min": ["orders", "payments", "clicks"]}
with open(f"{d}/tests/all.yml", "w") as f:
    f.write("tests:\n")
    for m in models:
        srcs = reads.get(m, ["orders"])
        f.write(f"  - name: {m}\n    model: {m}\n    given:\n")
        for k, r in order:
            if k in srcs:
                f.write(f"      - source: {k}\n        rows: [{json.dumps(r)}]\n")
        f.write("      - watermark: {%s}\n" % ", ".join(f"{k}: '9999-12-31 00:00:00'" for k in srcs))
        f.write("    expect_final: []\n")   # fails: the report carries the results
PY

# results DIR: every sink and dead-letter file of a run, as sorted canonical JSON
results() {
  python3 - "$1" $APPEND <<'PY'
import glob, json, os, sqlite3, sys
d, models = sys.argv[1], sys.argv[2:]
canon = lambda o: json.dumps(o, sort_keys=True)
out = {}
def row(line):
    x = json.loads(line)
    assert x.pop("op", "insert") == "insert", line
    return canon(x)
for m in models:
    out[m] = sorted(row(l) for l in open(f"{d}/out/{m}.jsonl"))
db = sqlite3.connect(f"{d}/out/db.sqlite")
out["cust_totals"] = sorted(canon({"cust": c, "n": n, "total": t}) for c, n, t in db.execute("SELECT cust, n, CAST(total AS INTEGER) FROM cust_totals"))
dl = []
for f in glob.glob(f"{d}/target/dead_letter/*.jsonl"):
    for l in open(f):
        x = json.loads(l)
        dl.append(canon({"at": x["source"], "reason": x["reason"], "row": x["row"]}))
out["dead_letters"] = sorted(dl)
print(json.dumps(out, indent=0, sort_keys=True))
PY
}

for b in 1 7 97 4096; do
  R=$TMP/run$b
  cp -r "$P" "$R"
  "$WEIR" --project-dir "$R" run --no-progress --batch-size "$b" > "$TMP/run$b.txt" 2>&1 \
    || { cat "$TMP/run$b.txt"; fail "run at batch size $b"; }
  results "$R" > "$TMP/res$b.json"
done
python3 - "$TMP/res4096.json" <<'PY' || fail "the input has no late rows or an empty output"
import json, sys
r = json.load(open(sys.argv[1]))
late = {}
for x in r["dead_letters"]:
    x = json.loads(x)
    late[x["at"]] = late.get(x["at"], 0) + (x["reason"] == "late")
for m in ("orders_per_min", "orders_hop", "sessions", "paid", "paid_per_min", "activity_per_min", "running"):
    assert r[m], m
for m in ("orders_per_min", "orders_hop", "paid", "activity_per_min", "running"):
    assert late.get(m, 0) > 0, (m, late)
assert any(json.loads(x)["payment"] is None for x in r["paid"]) and r["paid_per_min"], "no unmatched order"
PY
for b in 1 7 97; do
  cmp -s "$TMP/res$b.json" "$TMP/res4096.json" || {
    diff "$TMP/res$b.json" "$TMP/res4096.json" | head -20; fail "batch size $b differs from 4096"; }
done

# weir test: the changelog of every model, its final rows and its dead letters
for mode in plain --checkpoint-each-step; do
  flag=$mode; [ "$mode" = plain ] && flag=
  rc=0
  "$WEIR" --project-dir "$P" test --format json $flag > "$TMP/test.json" 2>/dev/null || rc=$?
  assert_eq "$rc" 1 "weir test exit code (every test fails by design: its report carries the results)"
  python3 - "$TMP/test.json" "$TMP/res4096.json" "$mode" <<'PY' || fail "weir test ($mode) differs from weir run"
import json, sys
t, r, mode = json.load(open(sys.argv[1])), json.load(open(sys.argv[2])), sys.argv[3]
canon = lambda o: json.dumps(o, sort_keys=True)
dl = {}
for x in r["dead_letters"]:
    x = json.loads(x)
    dl.setdefault(x["at"], []).append(canon(x))
bad = []
for case in t["tests"]:
    m = case["model"]
    assert case["status"] == "fail", case
    if m == "cust_totals":
        got = sorted(canon(x) for x in case["actual_final"])
    else:
        assert all(x.pop("op") == "insert" for x in case["actual"]), m
        got = sorted(canon(x) for x in case["actual"])
    if got != r[m]:
        only = sorted(set(got) ^ set(r[m]))[:4]
        bad.append(f"{m}: {len(got)} rows in weir test, {len(r[m])} in weir run; differing: {only}")
    dead = sorted(canon(x) for x in case["dead_letters"] if x["at"] == m)
    if dead != sorted(dl.get(m, [])):
        bad.append(f"{m}: {len(dead)} dead letters in weir test, {len(dl.get(m, []))} in weir run")
assert not bad, (mode, bad)
PY
done

# ---- regression: the batch size decided which rows were late ----
Q=$TMP/late
mkdir -p "$Q/sources" "$Q/models" "$Q/data"
echo "name: late" > "$Q/weir.yml"
cat > "$Q/sources/s.yml" <<'EOF'
sources:
  ev:
    connector: file
    path: data/ev.jsonl
    format: json
    columns: {id: bigint, k: bigint, ts: timestamp}
    event_time: ts
    watermark_delay: 1s
EOF
echo "SELECT window_start, k, count(*) AS n FROM TUMBLE(source('ev'), ts, INTERVAL '1' MINUTE) GROUP BY window_start, window_end, k" \
  > "$Q/models/win.sql"
echo "models: {win: {materialized: append, sink: {connector: file, path: out/win.jsonl, format: json}}}" > "$Q/models/m.yml"
python3 - "$Q/data/ev.jsonl" <<'PY'
import datetime, sys
base = datetime.datetime(2024, 1, 1)
with open(sys.argv[1], "w") as f:
    for i in range(3000):
        t = base + datetime.timedelta(seconds=i)
        f.write('{"id":%d,"k":%d,"ts":"%s"}\n' % (i, i % 3, t))
        if i == 1500:   # five rows ten minutes late
            for j in range(5):
                f.write('{"id":%d,"k":%d,"ts":"%s"}\n' % (10000 + j, j % 3, t - datetime.timedelta(minutes=10)))
PY
for b in 100 4096; do
  "$WEIR" --project-dir "$Q" run --no-progress --batch-size "$b" --format json > "$TMP/late$b.json" 2>/dev/null \
    || fail "run at batch size $b"
  python3 - "$TMP/late$b.json" "$Q" <<'PY' || fail "batch size $b: the five late rows are not exactly the dead letters"
import json, sys
s = json.load(open(sys.argv[1]))
assert s["dead_letters"] == 5, s["dead_letters"]
lines = sorted(json.loads(l)["line"] for l in open(sys.argv[2] + "/target/dead_letter/win.jsonl"))
assert lines == [1502, 1503, 1504, 1505, 1506], lines
assert sum(json.loads(l)["n"] for l in open(sys.argv[2] + "/out/win.jsonl")) == 3000
PY
done
echo ok
