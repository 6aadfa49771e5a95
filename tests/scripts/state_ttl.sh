#!/usr/bin/env bash
# A model's state_ttl expires idle keys by event time, the same at any batching: the
# ops_state_ttl project's file input through `weir run` at --batch-size 1, 7, 97 and
# 4096 gives the same sinks, and they equal what a reference computation of the rules
# in docs/semantics.md (State TTL) gives: a row's update time is the watermark before it
# in its source (its own event time minus watermark_delay for a source's first row), a
# group restarts when its last update is older than the row's time minus the TTL, and
# a click and a profile pair up only when their times are within the TTL of each other.
source "$(dirname "$0")/lib.sh"
P="$ROOT/tests/projects/ops_state_ttl"
for n in 1 7 97 4096; do
  D=$(copy_project "$P" "b$n")
  "$WEIR" --project-dir "$D" run --no-progress --batch-size "$n" > "$TMP/run$n.txt" 2>&1 \
    || { cat "$TMP/run$n.txt" >&2; fail "weir run --batch-size $n"; }
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
ok = True
for n in (1, 7, 97, 4096):
    d = f"{tmp}/b{n}"
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
sys.exit(0 if ok else 1)
PY
echo ok
