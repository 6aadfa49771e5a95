#!/usr/bin/env bash
# A damaged checkpoint store never crashes weir and never silently changes what a run
# continues from: a truncated, emptied or missing data.mdb and random bit flips are
# each either reported (exit 3 naming the file and --fresh, by `weir run` and `weir
# inspect`) or provably harmless (the resumed run's results equal those from the
# intact store); --fresh starts over from a damaged store; a full disk says "no space
# left on device" with the store's path and the store stays usable. Flips are random
# with a fixed seed (FLIP_SEED=N reproduces another series). Each check counts as one
# test.
source "$(dirname "$0")/lib.sh"
set +e
passed=0
failed=0
check() {  # check NAME FUNCTION
  local out
  if out=$("$2" 2>&1); then passed=$((passed + 1)); else
    failed=$((failed + 1)); echo "FAIL: $1" >&2; echo "$out" | sed 's/^/    /' | tail -40 >&2; fi
}
eval "$(BUILD=$BUILD "$ROOT/scripts/kafka-start" st:2)" || { echo "0 passed, 1 failed"; exit 1; }
trap '"$ROOT/scripts/kafka-stop"; rm -rf "$TMP"' EXIT
export KAFKA_BOOTSTRAP
B=$KAFKA_BOOTSTRAP
SEED=${FLIP_SEED:-8}

# project DIR: an aggregate with 3000 keys (its state spans many pages), a filter and a
# window, into files
project() {
  mkdir -p "$1/sources" "$1/models"
  cat > "$1/weir.yml" <<'EOF'
name: store
default_target: dev
targets:
  dev: {runtime: native, kafka: {bootstrap_servers: "${ENV:KAFKA_BOOTSTRAP}"}}
EOF
  cat > "$1/sources/ev.yml" <<'EOF'
sources:
  ev:
    connector: kafka
    topic: st
    format: json
    columns: {id: bigint, k: bigint, v: bigint, ts: timestamp}
    event_time: ts
EOF
  echo "SELECT k, count(*) AS n, sum(v) AS s, max(id) AS top FROM source('ev') GROUP BY k" > "$1/models/agg.sql"
  echo "SELECT id, v FROM source('ev') WHERE v % 3 = 0" > "$1/models/sel.sql"
  echo "SELECT window_start, k % 10 AS g, count(*) AS n, sum(v) AS s FROM TUMBLE(source('ev'), ts, INTERVAL '1' MINUTE) GROUP BY window_start, window_end, k % 10" \
    > "$1/models/win.sql"
  cat > "$1/models/models.yml" <<'EOF'
models:
  agg:
    materialized: upsert
    key: [k]
    sink: {connector: file, path: out/agg.jsonl, format: changelog-json}
  sel:
    materialized: append
    sink: {connector: file, path: out/sel.jsonl, format: json}
  win:
    materialized: append
    sink: {connector: file, path: out/win.jsonl, format: json}
EOF
}
events() {  # events FROM TO PARTITION
  python3 - "$1" "$2" <<'PY' | kcat -P -b "$B" -t st -p "$3"
import sys
for i in range(int(sys.argv[1]), int(sys.argv[2])):
    print('{"id":%d,"k":%d,"v":%d,"ts":"2026-01-01 %02d:%02d:%02d"}'
          % (i, (i * 7919) % 3000, i % 100, i // 60000, (i // 1000) % 60, (i // 20) % 60))
PY
}
# results DIR: what a run's sinks hold, independent of how the run was batched and
# checkpointed: the final row of every key of agg (its changes are coalesced per key
# per checkpoint, so which op brought a row there depends on the checkpoints), the
# lines of sel and win as multisets
results() {
  python3 - "$1" <<'PY'
import hashlib, json, sys
d = sys.argv[1]
final = {}
for l in open(d + "/out/agg.jsonl"):
    r = json.loads(l)
    op, k = r.pop("op"), r.pop("k")
    if op == "delete": final.pop(k, None)
    else: final[k] = r
out = [json.dumps(sorted(final.items()))]
for f in ("sel", "win"):
    out.append("".join(sorted(open("%s/out/%s.jsonl" % (d, f)))))
print(hashlib.md5("\n".join(out).encode()).hexdigest())
PY
}

# the snapshot: the store and sinks after a first run; then more records arrive and the
# reference continues from an intact copy
SNAP=$TMP/snap
project "$SNAP"
events 0 15000 0
events 15000 30000 1
"$WEIR" --project-dir "$SNAP" run --until-caught-up --no-progress > /dev/null 2>&1 || { echo "0 passed, 1 failed"; exit 1; }
events 30000 31000 0
events 31000 32000 1
cp -a "$SNAP" "$TMP/ref"
"$WEIR" --project-dir "$TMP/ref" run --until-caught-up --no-progress > /dev/null 2>&1 || { echo "0 passed, 1 failed"; exit 1; }
REF=$(results "$TMP/ref")
DB=.weir/dev/checkpoint/data.mdb

# trial NAME: a copy of the snapshot as $TMP/NAME
trial() {
  rm -rf "$TMP/$1"
  cp -a "$SNAP" "$TMP/$1"
  echo "$TMP/$1"
}
# refused DIR: run and inspect both report the damaged store and change nothing
refused() {
  local before rc=0 irc=0
  before=$(cat "$1"/out/*.jsonl | md5sum)
  "$WEIR" --project-dir "$1" inspect > "$TMP/inspect.txt" 2>&1 || irc=$?
  "$WEIR" --project-dir "$1" run --until-caught-up --no-progress > "$TMP/run.txt" 2>&1 || rc=$?
  [ $rc -eq 3 ] && grep -q "the checkpoint store $1/$DB is corrupt: " "$TMP/run.txt" && grep -q -- "--fresh" "$TMP/run.txt" \
    || { echo "run: exit $rc"; tail -3 "$TMP/run.txt"; return 1; }
  [ $irc -eq 3 ] && grep -q "the checkpoint store $1/$DB is corrupt: " "$TMP/inspect.txt" \
    || { echo "inspect: exit $irc"; tail -3 "$TMP/inspect.txt"; return 1; }
  [ "$(cat "$1"/out/*.jsonl | md5sum)" = "$before" ] || { echo "the refused run changed the sinks"; return 1; }
}

t_truncated() {
  local P
  P=$(trial truncated)
  truncate -s $(( $(stat -c %s "$P/$DB") / 2 )) "$P/$DB"
  refused "$P" || return 1
  grep -q "is shorter than the pages its meta page counts: truncated or damaged" "$TMP/run.txt" || { cat "$TMP/run.txt"; return 1; }
  # --fresh starts over: the whole topic again gives the reference's results
  "$WEIR" --project-dir "$P" run --until-caught-up --no-progress --fresh > /dev/null 2>&1 || { echo "--fresh failed"; return 1; }
  [ "$(results "$P")" = "$REF" ] || { echo "--fresh: results differ from the reference"; return 1; }
}
check "a truncated data.mdb: exit 3 naming it (run and inspect), --fresh starts over" t_truncated

t_emptied() {
  local P
  P=$(trial emptied)
  : > "$P/$DB"
  refused "$P" || return 1
  grep -q "the file is empty" "$TMP/run.txt" || { cat "$TMP/run.txt"; return 1; }
  P=$(trial missing)
  rm "$P/$DB"
  refused "$P" || return 1
  grep -q "the file is missing" "$TMP/run.txt" || { cat "$TMP/run.txt"; return 1; }
}
check "an emptied or deleted data.mdb is corrupt, never a fresh start" t_emptied

t_record_beyond_end() {
  local P
  P=$(trial beyond)
  # the length of every record holding the aggregate's state (its base and its chunks),
  # in every leaf page that has one, made to reach far beyond the end of the file
  # (reading it would fault)
  python3 - "$P/$DB" <<'PY'
import struct, sys
path = sys.argv[1]
d = bytearray(open(path, "rb").read())
ps, n = 4096, 0
for i in range(len(d) // ps):
    base = i * ps
    pgno, _, flags, lower, _ = struct.unpack_from("<QHHHH", d, base)
    if pgno != i or flags != 2:                      # a leaf page
        continue
    for j in range((lower - 16) // 2):
        node = base + struct.unpack_from("<H", d, base + 16 + 2 * j)[0]
        _, _, nflags, ksize = struct.unpack_from("<HHHH", d, node)
        if d[node + 8:node + 8 + ksize].startswith(b"state/agg/aggregate0"):
            struct.pack_into("<HH", d, node, 0xfff0, 0x7fff)
            n += 1
assert n > 0
open(path, "wb").write(d)
PY
  refused "$P" || return 1
  grep -Eq "is damaged \((an overflow page|a record beyond its page)\)" "$TMP/run.txt" || { cat "$TMP/run.txt"; return 1; }
}
check "a record whose length reaches beyond the file: exit 3, no crash" t_record_beyond_end

# flips N WHERE: N random (byte, bit) pairs, anywhere in the file (all) or in the bytes
# LMDB's newest meta page and the live pages of its two B-trees use (structure: page
# headers, node pointers and nodes, not the free space between them)
flips() {
  python3 - "$SNAP/$DB" "$1" "$2" "$SEED" <<'PY'
import random, struct, sys
path, n, where, seed = sys.argv[1], int(sys.argv[2]), sys.argv[3], int(sys.argv[4])
data = open(path, "rb").read()
ps = 4096
def meta(m):   # MDB_meta after the page header: magic, version, address, mapsize, 2 MDB_db, last_pg, txnid
    dbs = [struct.unpack_from("<IHHQQQQQ", data, ps * m + 16 + 24 + 48 * i)[7] for i in range(2)]
    return struct.unpack_from("<Q", data, ps * m + 16 + 24 + 96 + 8)[0], dbs
(txn0, roots0), (txn1, roots1) = meta(0), meta(1)
newest, roots = (0, roots0) if txn0 >= txn1 else (1, roots1)
used = [(newest * ps, newest * ps + 16 + 136)]
todo = [r for r in roots if r * ps < len(data)]
while todo:
    pg = todo.pop()
    base = pg * ps
    _, _, flags, lower, upper = struct.unpack_from("<QHHHH", data, base)
    used += [(base, base + lower), (base + upper, base + ps)]
    if flags & 1:   # a branch page: its nodes name the child pages
        for j in range((lower - 16) // 2):
            node = base + struct.unpack_from("<H", data, base + 16 + 2 * j)[0]
            lo, hi, fl = struct.unpack_from("<HHH", data, node)
            todo.append(lo | hi << 16 | fl << 32)
rng = random.Random(seed * 1000 + (where == "structure"))
for _ in range(n):
    if where == "all":
        off = rng.randrange(len(data))
    else:
        a, b = rng.choice([u for u in used if u[1] > u[0]])
        off = rng.randrange(a, b)
    print(off, rng.randrange(8))
PY
}
flip_series() {
  local where=$1 off bit P rc detected=0 harmless=0 n=0
  while read -r off bit; do
    P=$(trial flip)
    python3 -c 'import sys
f = open(sys.argv[1], "r+b"); o = int(sys.argv[2]); f.seek(o); b = f.read(1)[0]; f.seek(o); f.write(bytes([b ^ (1 << int(sys.argv[3]))]))' \
      "$P/$DB" "$off" "$bit"
    n=$((n + 1))
    rc=0
    "$WEIR" --project-dir "$P" inspect > "$TMP/inspect.txt" 2>&1 || rc=$?
    if [ $rc -ne 0 ] && ! { [ $rc -eq 3 ] && grep -q "is corrupt: " "$TMP/inspect.txt"; }; then
      echo "flip at byte $off bit $bit: inspect exit $rc"; tail -3 "$TMP/inspect.txt"; return 1
    fi
    rc=0
    "$WEIR" --project-dir "$P" run --until-caught-up --no-progress > "$TMP/run.txt" 2>&1 || rc=$?
    if [ $rc -eq 3 ] && grep -q "the checkpoint store $P/$DB is corrupt: " "$TMP/run.txt"; then
      detected=$((detected + 1))
    elif [ $rc -eq 0 ] && [ "$(results "$P")" = "$REF" ]; then
      harmless=$((harmless + 1))
    else
      echo "flip at byte $off bit $bit (FLIP_SEED=$SEED): run exit $rc"
      [ $rc -eq 0 ] && echo "the run went on, with results that differ from the intact store's"
      tail -3 "$TMP/run.txt"; return 1
    fi
  done < <(flips "$2" "$where")
  echo "$where: $n flips, $detected detected, $harmless harmless"
  [ $n -eq "$2" ] && [ $detected -gt 0 ]
}
t_flips_anywhere() { flip_series all 40; }
check "40 random bit flips anywhere in the store: each detected (exit 3) or harmless" t_flips_anywhere
t_flips_structure() { flip_series structure 40; }
check "40 random bit flips in LMDB's live meta and B-tree pages: each detected (exit 3) or harmless" t_flips_structure

t_fresh_killed() {
  local P pid deadline
  P=$(trial freshkill)
  # a run that starts over, killed before its first checkpoint once it has cut the
  # sinks back: the next run must not continue the old checkpoint on them
  "$WEIR" --project-dir "$P" run --no-progress --fresh --checkpoint-interval 1h > /dev/null 2>&1 &
  pid=$!
  deadline=$((SECONDS + 30))
  until [ -f "$P/out/sel.jsonl" ] && [ ! -s "$P/out/sel.jsonl" ]; do
    [ $SECONDS -ge $deadline ] && { kill -9 $pid; echo "the sinks were never cut back"; return 1; }
    sleep 0.01
  done
  kill -9 $pid
  wait $pid 2>/dev/null
  "$WEIR" --project-dir "$P" run --until-caught-up --no-progress > "$TMP/freshkill.txt" 2>&1 || { tail -3 "$TMP/freshkill.txt"; return 1; }
  [ "$(results "$P")" = "$REF" ] || { echo "results differ from one run over the whole topic"; return 1; }
}
check "--fresh killed before its first checkpoint: the next run starts over too" t_fresh_killed

# a store on a file system too small for the checkpoint (a tmpfs in a mount namespace
# of its own; as root, or through a user namespace)
t_disk_full() {
  local P ns=(unshare --mount) rc=0
  [ "$(id -u)" = 0 ] || ns=(unshare --mount --map-root-user)
  P=$(trial full)
  mkdir -p "$TMP/small"
  sed -i "s|runtime: native,|runtime: native, state_dir: $TMP/small/state,|" "$P/weir.yml"
  "${ns[@]}" bash -c '
    mount -t tmpfs -o size=256k tmpfs "$1" || exit 90
    "$2" --project-dir "$3" run --until-caught-up --no-progress --fresh > "$4/full1.txt" 2>&1; echo $? > "$4/full1.rc"
    mount -o remount,size=64m "$1" || exit 91
    "$2" --project-dir "$3" run --until-caught-up --no-progress > "$4/full2.txt" 2>&1; echo $? > "$4/full2.rc"
  ' _ "$TMP/small" "$WEIR" "$P" "$TMP" || rc=$?
  [ $rc -eq 0 ] || { echo "cannot make a small file system here (needs root or user namespaces): $rc"; return 1; }
  [ "$(cat "$TMP/full1.rc")" = 3 ] && grep -q "state store $TMP/small/state/checkpoint/data.mdb: cannot write the checkpoint: no space left on device" "$TMP/full1.txt" \
    || { echo "exit $(cat "$TMP/full1.rc")"; tail -3 "$TMP/full1.txt"; return 1; }
  # with room again, the next run continues (the failed checkpoint left the store as
  # it was) and ends with the results of one run over the whole topic
  [ "$(cat "$TMP/full2.rc")" = 0 ] || { tail -3 "$TMP/full2.txt"; return 1; }
  [ "$(results "$P")" = "$REF" ] || { echo "results differ from the reference"; return 1; }
}
check "a full disk: exit 3, no space left on device with the store's path; the store stays usable" t_disk_full

echo "$passed passed, $failed failed"
[ $failed -eq 0 ]
