#!/usr/bin/env bash
# A model's state_ttl expires idle keys by event time, the same at any batching: the
# ops_state_ttl project's file input through `weir run` at --batch-size 1, 7, 97 and
# 4096 gives the same sinks, and they equal what a reference computation of the rules
# in docs/semantics.md (State TTL) gives: a row's update time is the watermark before it
# in its source (its own event time minus watermark_delay for a source's first row), a
# group restarts when its last update is older than the row's time minus the TTL, and
# a click and a profile pair up only when their times are within the TTL of each other.
# Also a global aggregate (its one group restarts), a deduplication (TopN: a user's
# first click since it was last idle) and a running count (OVER: its partition's update
# time is its rows' own event time, as they are processed in time order), and the
# expired-entry counts of the run summary: the same at every batch size, and every
# restart plus every entry left (a bounded input's watermark ends at the end of time).
source "$(dirname "$0")/lib.sh"
P="$ROOT/tests/projects/ops_state_ttl"
for n in 1 7 97 4096; do
  D=$(copy_project "$P" "b$n")
  "$WEIR" --project-dir "$D" run --no-progress --batch-size "$n" --format json > "$TMP/run$n.json" 2> "$TMP/run$n.err" \
    || { cat "$TMP/run$n.err" >&2; fail "weir run --batch-size $n"; }
done
python3 - "$TMP" "$P" <<'PY' || fail "the sinks differ (see above)"
import json, sys, datetime
tmp, proj = sys.argv[1], sys.argv[2]
TTL = 3600 * 10**6
DELAY = 60 * 10**6
def us(ts):
    d = datetime.datetime.strptime(ts, "%Y-%m-%d %H:%M:%S")
    return int((d - datetime.datetime(1970, 1, 1)).total_seconds()) * 10**6
def stamped(path):
    """rows with the watermark before them in their source"""
    rows, high = [], None
    for line in open(path):
        r = json.loads(line)
        t = us(r["ts"])
        r["_j"] = (t - DELAY) if high is None else high - DELAY
        high = t if high is None else max(high, t)
        rows.append(r)
    return rows
clicks = stamped(f"{proj}/data/clicks.jsonl")
profiles = stamped(f"{proj}/data/profiles.jsonl")
# clicks_per_user: count(*) and max(page) per user, restarting after an idle hour
state, final = {}, {}
for r in clicks:
    u, j = r["user_id"], r["_j"]
    g = state.get(u)
    if g is None or g["touch"] < j - TTL:
        g = state[u] = {"n": 0, "page": None, "touch": j}
    g["n"] += 1
    g["page"] = r["page"] if g["page"] is None else max(g["page"], r["page"])
    g["touch"] = max(g["touch"], j)
    final[u] = {"user_id": u, "clicks": g["n"], "last_page": g["page"]}
expect_agg = sorted(final.values(), key=lambda r: r["user_id"])
restarts = sum(1 for r in expect_agg if r["clicks"] < sum(1 for c in clicks if c["user_id"] == r["user_id"]))
assert restarts > 0, "the input must make some group expire"
# named_clicks: pairs whose update times are within the TTL of each other
expect_join = sorted(
    json.dumps({"user_id": c["user_id"], "name": p["name"], "page": c["page"], "ts": c["ts"]}, sort_keys=True)
    for c in clicks for p in profiles if c["user_id"] == p["user_id"] and abs(c["_j"] - p["_j"]) <= TTL)
unbounded = sum(1 for c in clicks for p in profiles if c["user_id"] == p["user_id"])
assert 0 < len(expect_join) < unbounded, (len(expect_join), unbounded)
# user15_totals: count(*) and max(page) of user 15's clicks, one group that restarts
g, g_restarts = None, 0
for r in clicks:
    if r["user_id"] != 15: continue
    if g is not None and g["touch"] < r["_j"] - TTL:
        g, g_restarts = None, g_restarts + 1
    if g is None: g = {"n": 0, "page": None, "touch": r["_j"]}
    g["n"] += 1
    g["page"] = r["page"] if g["page"] is None else max(g["page"], r["page"])
    g["touch"] = max(g["touch"], r["_j"])
expect_global = {"clicks": g["n"], "last_page": g["page"]}
assert g_restarts > 0
# first_click: per user the first click by (ts, then the row) since the partition restarted
parts, p_restarts = {}, 0
for r in clicks:
    u, j = r["user_id"], r["_j"]
    p = parts.get(u)
    if p is not None and p["touch"] < j - TTL:
        p, p_restarts = None, p_restarts + 1
    if p is None: p = parts[u] = {"first": r, "touch": j}
    if (r["ts"], r["page"]) < (p["first"]["ts"], p["first"]["page"]): p["first"] = r
    p["touch"] = max(p["touch"], j)
expect_first = sorted(({"user_id": u, "page": p["first"]["page"], "ts": p["first"]["ts"]} for u, p in parts.items()),
                      key=lambda r: r["user_id"])
# running_clicks: rows not late (ts >= the watermark before them), in (ts, arrival)
# order; a partition restarts when its last row's time is older than the row's minus
# the TTL; peers (equal ts) count together
ontime = sorted((i, r) for i, r in enumerate(clicks) if us(r["ts"]) >= r["_j"])
ontime.sort(key=lambda x: (us(x[1]["ts"]), x[0]))
run, o_restarts, expect_over = {}, 0, []
by_user_t = {}
for i, r in ontime:
    u, t = r["user_id"], us(r["ts"])
    s = run.get(u)
    if s is not None and s["last"] < t - TTL:
        s, o_restarts = None, o_restarts + 1
    if s is None: s = run[u] = {"n": 0, "last": t, "gen": len(by_user_t)}
    s["n"] += 1
    s["last"] = t
    by_user_t[(u, s["gen"], t)] = s["n"]
    r["_key"] = (u, s["gen"], t)
expect_over = sorted(json.dumps({"user_id": r["user_id"], "page": r["page"], "ts": r["ts"], "n": by_user_t[r["_key"]]},
                                sort_keys=True) for i, r in ontime)
assert o_restarts > 0 and len(expect_over) < len(clicks)
# a_and_b (INTERSECT) and a_not_b (EXCEPT ALL) of a user's clicks on page a and on
# page b: one entry per user with both counts, restarting (silently) after an idle
# hour; INTERSECT emits a user once per generation in which both pages were clicked,
# EXCEPT ALL leaves each generation's final max(a - b, 0) rows in the sink
sets, s_restarts, gens = {}, 0, []
for r in clicks:
    if r["page"] not in ("a", "b"): continue
    u, j = r["user_id"], r["_j"]
    e = sets.get(u)
    if e is not None and e["touch"] < j - TTL:
        gens.append((u, e)); e, s_restarts = None, s_restarts + 1
    if e is None: e = sets[u] = {"l": 0, "r": 0, "touch": j}
    e["l" if r["page"] == "a" else "r"] += 1
    e["touch"] = max(e["touch"], j)
gens += list(sets.items())
expect_intersect = sorted(json.dumps({"user_id": u}) for u, e in gens if e["l"] > 0 and e["r"] > 0)
expect_except = sorted(json.dumps({"user_id": u}) for u, e in gens for _ in range(max(e["l"] - e["r"], 0)))
assert s_restarts > 0 and expect_intersect and expect_except
# without expiry INTERSECT would emit each user once
assert len(expect_intersect) > len(set(expect_intersect)), "the input must make an INTERSECT entry restart"
# expired entries: every restart, then every entry still held when the input ends
expect_expired = {
    "clicks_per_user/aggregate0": restarts_total + len(expect_agg) if False else None,
    "user15_totals/aggregate0": g_restarts + 1,
    "first_click/topn0": p_restarts + len(parts),
    "running_clicks/over_agg0": o_restarts + len(run),
    "a_and_b/setop0": s_restarts + len(sets),
    "a_not_b/setop0": s_restarts + len(sets),
}
def final_rows(d):
    rows = {}
    for line in open(f"{d}/target/out/clicks_per_user.jsonl"):
        r = json.loads(line)
        op = r.pop("op")
        if op == "delete": rows.pop(r["user_id"], None)
        else: rows[r["user_id"]] = r
    return sorted(rows.values(), key=lambda r: r["user_id"])
def pairs(d):
    return sorted(json.dumps(json.loads(l), sort_keys=True) for l in open(f"{d}/target/out/named_clicks.jsonl"))
def last_row(d, name):
    row = None
    for line in open(f"{d}/target/out/{name}.jsonl"):
        r = json.loads(line)
        row = None if r.pop("op") == "delete" else r
    return row
def keyed_final(d, name, key):
    rows = {}
    for line in open(f"{d}/target/out/{name}.jsonl"):
        r = json.loads(line)
        if r.pop("op") == "delete": rows.pop(r[key], None)
        else: rows[r[key]] = r
    return sorted(rows.values(), key=lambda r: r[key])
def appended(d, name):
    return sorted(json.dumps(json.loads(l), sort_keys=True) for l in open(f"{d}/target/out/{name}.jsonl"))
def net_rows(d, name):
    import collections
    c = collections.Counter()
    for l in open(f"{d}/target/out/{name}.jsonl"):
        r = json.loads(l)
        op = r.pop("op")
        c[json.dumps(r, sort_keys=True)] += -1 if op == "delete" else 1
    assert all(n >= 0 for n in c.values()), name
    return sorted(k for k, n in c.items() for _ in range(n))
ok = True
expired = {}
for n in (1, 7, 97, 4096):
    d = f"{tmp}/b{n}"
    st = {s["id"]: s["expired"] for s in json.load(open(f"{tmp}/run{n}.json"))["state"]}
    expired[n] = st
    for sid, want in expect_expired.items():
        if want is not None and st.get(sid) != want:
            ok = False
            print(f"batch {n}: {sid} expired {st.get(sid)} entries, expected {want}", file=sys.stderr)
    if last_row(d, "user15_totals") != expect_global:
        ok = False
        print(f"batch {n}: user15_totals is {last_row(d, 'user15_totals')}, expected {expect_global}", file=sys.stderr)
    f = keyed_final(d, "first_click", "user_id")
    if f != expect_first:
        ok = False
        print(f"batch {n}: first_click differs from the reference", file=sys.stderr)
        for x, y in zip(f, expect_first):
            if x != y: print("  got", x, "expected", y, file=sys.stderr)
    o = appended(d, "running_clicks")
    if o != expect_over:
        ok = False
        print(f"batch {n}: running_clicks differs: {len(o)} rows, expected {len(expect_over)}", file=sys.stderr)
        print("  only got:", sorted(set(o) - set(expect_over))[:3], file=sys.stderr)
        print("  only expected:", sorted(set(expect_over) - set(o))[:3], file=sys.stderr)
    for name, want, got in (("a_and_b", expect_intersect, appended(d, "a_and_b")),
                            ("a_not_b", expect_except, net_rows(d, "a_not_b"))):
        if got != want:
            ok = False
            print(f"batch {n}: {name} differs: {len(got)} rows, expected {len(want)}", file=sys.stderr)
    a, j = final_rows(d), pairs(d)
    if a != expect_agg:
        ok = False
        print(f"batch {n}: clicks_per_user differs from the reference", file=sys.stderr)
        for x, y in zip(a, expect_agg):
            if x != y: print("  got", x, "expected", y, file=sys.stderr)
    if j != expect_join:
        ok = False
        print(f"batch {n}: named_clicks differs: {len(j)} pairs, expected {len(expect_join)}", file=sys.stderr)
        print("  only got:", sorted(set(j) - set(expect_join))[:3], file=sys.stderr)
        print("  only expected:", sorted(set(expect_join) - set(j))[:3], file=sys.stderr)
if any(expired[n] != expired[1] for n in expired):
    ok = False
    print("the expired counts differ between batch sizes:", expired, file=sys.stderr)
sys.exit(0 if ok else 1)
PY

# Every model with a SQLite sink (keyed and keyless): the tables are the same at every
# batch size, and a keyless one holds what one row per step leaves: a key that expires
# keeps its last row in the sink and its next generation adds a row, so user15_totals
# (a global aggregate, no key columns) holds every generation's last row, also where
# generations pass within one step; a keyed table (pages_seen, by its rows) holds one
# row per key, its last generation's.
for n in 1 7 97 4096; do
  D=$(copy_project "$P" "sq$n")
  python3 - "$D" <<'PY'
import glob, sys, yaml
f = f"{sys.argv[1]}/models/schema.yml"
doc = yaml.safe_load(open(f))
for cfg in doc["models"].values():
    cfg["sink"] = {"connector": "sqlite", "path": "target/ttl.db"}
yaml.safe_dump(doc, open(f, "w"), sort_keys=False)
PY
  "$WEIR" --project-dir "$D" run --no-progress --batch-size "$n" > "$TMP/sq$n.out" 2>&1 \
    || { cat "$TMP/sq$n.out" >&2; fail "weir run --batch-size $n with SQLite sinks"; }
done
python3 - "$TMP" "$P" <<'PY' || fail "the SQLite sinks differ (see above)"
import datetime, json, sqlite3, sys
tmp, proj = sys.argv[1], sys.argv[2]
TTL, DELAY = 3600 * 10**6, 60 * 10**6
def us(ts):
    d = datetime.datetime.strptime(ts, "%Y-%m-%d %H:%M:%S")
    return int((d - datetime.datetime(1970, 1, 1)).total_seconds()) * 10**6
clicks, high = [], None
for line in open(f"{proj}/data/clicks.jsonl"):
    r = json.loads(line)
    t = us(r["ts"])
    r["_j"] = (t - DELAY) if high is None else high - DELAY
    high = t if high is None else max(high, t)
    clicks.append(r)
def generations(key, value, init, add):
    """the last value of every generation of every key (a key restarts when its last
    update is older than the row's watermark minus the TTL)"""
    state, done = {}, []
    for r in clicks:
        k = key(r)
        if k is None: continue
        g = state.get(k)
        if g is not None and g["touch"] < r["_j"] - TTL:
            done.append(value(k, g["v"]))
            g = None
        if g is None: g = state[k] = {"v": init(), "touch": r["_j"]}
        g["v"] = add(g["v"], r)
        g["touch"] = max(g["touch"], r["_j"])
    return sorted(done + [value(k, g["v"]) for k, g in state.items()])
def maxs(a, b): return b if a is None else max(a, b)
want = {
    "user15_totals": generations(lambda r: 15 if r["user_id"] == 15 else None,
                                 lambda k, v: (repr(v[0]), repr(v[1])), lambda: (0, None),
                                 lambda v, r: (v[0] + 1, maxs(v[1], r["page"]))),
    "pages_seen": sorted({(repr(r["user_id"]), repr(r["page"])) for r in clicks}),
}
assert len(want["user15_totals"]) > 2, want["user15_totals"]
tables = {}
for n in (1, 7, 97, 4096):
    c = sqlite3.connect(f"{tmp}/sq{n}/target/ttl.db")
    names = [r[0] for r in c.execute("SELECT name FROM sqlite_master WHERE type='table' AND name NOT LIKE '\\_weir\\_%' ESCAPE '\\'")]
    tables[n] = {t: sorted(tuple(repr(v) for v in r) for r in c.execute(f'SELECT * FROM "{t}"')) for t in names}
ok = len(tables[1]) == 9
if not ok: print("expected 9 tables, got", sorted(tables[1]), file=sys.stderr)
for n in (7, 97, 4096):
    for t in sorted(set(tables[1]) | set(tables[n])):
        if tables[n].get(t) != tables[1].get(t):
            ok = False
            print(f"{t}: --batch-size {n} has {len(tables[n].get(t, []))} rows, --batch-size 1 {len(tables[1].get(t, []))}",
                  file=sys.stderr)
for n in tables:
    for t, rows in want.items():
        if tables[n].get(t) != rows:
            ok = False
            print(f"batch {n}: {t} has {len(tables[n].get(t, []))} rows, the reference {len(rows)}", file=sys.stderr)
sys.exit(0 if ok else 1)
PY

# weir inspect shows the expired counts of a durable run (a directory source), and a
# resumed run counts on from them: two runs over two files count what one run over
# both counts
durable() {  # durable DIR: the clicks model reading DIR/landing
  D=$(copy_project "$P" "$1")
  mkdir -p "$D/landing"
  sed -i 's|path: data/clicks.jsonl|path: landing|' "$D/sources/ttl.yml"
  echo "$D"
}
ONE=$(durable once)
TWO=$(durable twice)
head -300 "$P/data/clicks.jsonl" > "$TWO/landing/a.jsonl"
tail -n +301 "$P/data/clicks.jsonl" > "$TMP/b.jsonl"
cp "$TWO/landing/a.jsonl" "$TMP/b.jsonl" "$ONE/landing/"
(cd "$ONE" && "$WEIR" run --no-progress --until-caught-up > run.out 2>&1) || { cat "$ONE/run.out" >&2; fail "durable run"; }
(cd "$TWO" && "$WEIR" run --no-progress --until-caught-up > run1.out 2>&1) || { cat "$TWO/run1.out" >&2; fail "first durable run"; }
cp "$TMP/b.jsonl" "$TWO/landing/"
(cd "$TWO" && "$WEIR" run --no-progress --until-caught-up > run2.out 2>&1) || { cat "$TWO/run2.out" >&2; fail "resumed run"; }
assert_contains "$TWO/run2.out" "continued from checkpoint" "the second run continues"
for d in "$ONE" "$TWO"; do
  (cd "$d" && "$WEIR" inspect > inspect.txt 2>&1 && "$WEIR" inspect --format json > inspect.json 2>&1) \
    || { cat "$d/inspect.txt" >&2; fail "inspect"; }
done
assert_contains "$ONE/inspect.txt" "expired" "inspect shows the expired counts"
python3 - "$ONE/inspect.json" "$TWO/inspect.json" <<'PY' || fail "the expired counts of a resumed run differ"
import json, sys
one, two = ({s["id"]: s["expired"] for s in json.load(open(f))["state"]} for f in sys.argv[1:])
assert one["clicks_per_user/aggregate0"] > 0 and one["first_click/topn0"] > 0 and one["running_clicks/over_agg0"] > 0, one
assert one["a_and_b/setop0"] > 0 and one["a_not_b/setop0"] > 0, one
assert one == two, (one, two)
PY
# the set operations' TTL state (with its update times) carried through the checkpoint:
# the resumed run's sinks hold what one run's do
for m in a_and_b a_not_b; do
  cmp -s <(sort "$ONE/target/out/$m.jsonl") <(sort "$TWO/target/out/$m.jsonl") \
    || fail "$m of the resumed run differs from one run's"
done
echo ok
