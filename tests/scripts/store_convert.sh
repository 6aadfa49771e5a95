#!/usr/bin/env bash
# A checkpoint store of format 1 (written by weir before per-record checksums, the
# fixture tests/fixtures/store_format1: see its regenerate.sh) is converted in place by
# the next `weir run`, which says so and continues exactly from the old checkpoint: the
# sinks of the old run continued over more files equal one uninterrupted run over all
# of them (GROUP BY, DISTINCT, a stream join, a window, INTERSECT, a TopN, an OVER
# running count, a GROUP BY over an updating source). A kill
# after the converted file is written and before it replaces data.mdb leaves the old
# store byte for byte (the next run converts it); a kill right after the rename leaves
# the converted store; either way the next run ends as the uninterrupted one. A read-only
# command (inspect) on a format-1 store says a run converts it. Each check counts as one
# test.
source "$(dirname "$0")/lib.sh"
set +e
FIX=$ROOT/tests/fixtures/store_format1
source "$FIX/project.sh"
passed=0
failed=0
check() {  # check NAME FUNCTION
  local out
  if out=$("$2" 2>&1); then passed=$((passed + 1)); else
    failed=$((failed + 1)); echo "FAIL: $1" >&2; echo "$out" | sed 's/^/    /' | tail -30 >&2; fi
}
DB=.weir/dev/checkpoint/data.mdb
# old DIR: the project as the old weir left it (its first files, sinks and store) plus
# the files that arrived since
old() {
  project "$1"
  events "$1/ev/a.jsonl" 0 3000
  dims "$1/dim/a.jsonl" 0 120
  accounts "$1/acct/a.jsonl" 0 400
  tar -C "$1" -xzf "$FIX/state.tar.gz"
  events "$1/ev/b.jsonl" 3000 4500
  dims "$1/dim/b.jsonl" 120 211
  accounts "$1/acct/b.jsonl" 400 700
}
run() { (cd "$1" && "$WEIR" run --until-caught-up --no-progress --batch-size 97 "${@:2}"); }
# results DIR: the final row of every key of the upsert sink, the net multiset of every
# other sink's rows
results() {
  python3 - "$1" <<'PY'
import collections, json, sys
d = sys.argv[1]
for f, key in (("agg", "k"), ("tiers", "tier")):
    final = {}
    for l in open("%s/out/%s.jsonl" % (d, f)):
        r = json.loads(l)
        op, k = r.pop("op"), r[key]
        if op == "delete": final.pop(k, None)
        else: final[k] = r
    print(f, len(final), json.dumps(sorted(final.items())))
for f in ("dst", "joined", "win", "both", "top", "running"):
    c = collections.Counter()
    for l in open("%s/out/%s.jsonl" % (d, f)):
        r = json.loads(l)
        op = r.pop("op")
        assert op in ("insert", "delete"), (f, op)
        c[json.dumps(r, sort_keys=True)] += 1 if op == "insert" else -1
    rows = sorted(k for k, n in c.items() for _ in range(n))
    assert all(n >= 0 for n in c.values()), f
    print(f, len(rows), json.dumps(rows))
PY
}

REF=$TMP/ref
project "$REF"
events "$REF/ev/a.jsonl" 0 3000; events "$REF/ev/b.jsonl" 3000 4500
dims "$REF/dim/a.jsonl" 0 120; dims "$REF/dim/b.jsonl" 120 211
accounts "$REF/acct/a.jsonl" 0 400; accounts "$REF/acct/b.jsonl" 400 700
run "$REF" > "$TMP/ref.out" 2>&1 || { cat "$TMP/ref.out"; echo "0 passed, 1 failed"; exit 1; }
results "$REF" > "$TMP/want"
cut -c1-40 "$TMP/want" >&2

t_converted() {
  local D=$TMP/conv
  old "$D"
  run "$D" > "$TMP/conv.out" 2>&1 || { cat "$TMP/conv.out"; return 1; }
  grep -q "converted the checkpoint store $DB from format 1 (written by an older weir) to format 2" "$TMP/conv.out" \
    || { cat "$TMP/conv.out"; return 1; }
  results "$D" > "$TMP/got" || return 1
  diff <(cut -c1-60 "$TMP/got") <(cut -c1-60 "$TMP/want") && cmp -s "$TMP/got" "$TMP/want" || return 1
  # the converted store is of the current format: inspect reads it, a run converts nothing
  "$WEIR" --project-dir "$D" inspect > "$TMP/conv.inspect" 2>&1 || { cat "$TMP/conv.inspect"; return 1; }
  run "$D" > "$TMP/conv2.out" 2>&1 || { cat "$TMP/conv2.out"; return 1; }
  ! grep -q "converted" "$TMP/conv2.out" || return 1
  results "$D" | cmp -s - "$TMP/want"
}

t_inspect_old() {
  local D=$TMP/insp rc=0
  old "$D"
  "$WEIR" --project-dir "$D" inspect > "$TMP/insp.out" 2>&1 || rc=$?
  [ $rc -eq 3 ] && grep -q "the checkpoint store $D/$DB was written by an older weir (format 1): the next \`weir run\` converts it in place" "$TMP/insp.out" \
    || { echo "exit $rc"; cat "$TMP/insp.out"; return 1; }
  tar -xzOf "$FIX/state.tar.gz" $DB | cmp -s - "$D/$DB"
}

# killed POINT: a run killed at POINT, then a run that ends as the uninterrupted one
killed() {
  local D=$TMP/k-$1 rc=0
  old "$D"
  (cd "$D" && WEIR_CRASH_AT=$1 "$WEIR" run --until-caught-up --no-progress --batch-size 97) > "$TMP/k.out" 2>&1 || rc=$?
  [ $rc -eq 137 ] || { echo "the run at $1 was not killed: exit $rc"; cat "$TMP/k.out"; return 1; }
  if [ "$1" = store-convert-written ]; then
    tar -xzOf "$FIX/state.tar.gz" $DB | cmp -s - "$D/$DB" || { echo "the old store changed"; return 1; }
  else
    tar -xzOf "$FIX/state.tar.gz" $DB | cmp -s - "$D/$DB" && { echo "the store was not replaced"; return 1; }
    "$WEIR" --project-dir "$D" inspect > "$TMP/k.inspect" 2>&1 || { cat "$TMP/k.inspect"; return 1; }
  fi
  run "$D" > "$TMP/k2.out" 2>&1 || { cat "$TMP/k2.out"; return 1; }
  if [ "$1" = store-convert-written ]; then grep -q "converted the checkpoint store" "$TMP/k2.out" || return 1
  else ! grep -q "converted" "$TMP/k2.out" || return 1; fi
  results "$D" | cmp -s - "$TMP/want"
}
t_killed_written() { killed store-convert-written; }
t_killed_renamed() { killed store-convert-renamed; }

# a conversion file left behind (a kill during the copy) is replaced
t_leftover() {
  local D=$TMP/left
  old "$D"
  head -c 12345 /dev/urandom > "$D/.weir/dev/checkpoint/convert.mdb"
  run "$D" > "$TMP/left.out" 2>&1 || { cat "$TMP/left.out"; return 1; }
  [ ! -e "$D/.weir/dev/checkpoint/convert.mdb" ] || return 1
  results "$D" | cmp -s - "$TMP/want"
}

# a damaged format-1 store is refused (exit 3), not converted
t_damaged() {
  local D=$TMP/dmg rc=0
  old "$D"
  python3 - "$D/$DB" <<'PY'
import sys
p = sys.argv[1]
b = bytearray(open(p, "rb").read())
# every leaf node of the record "pipeline" (the live one among them): a byte of its data
i, hit = 0, 0
while (i := b.find(b"pipeline", i + 1)) > 0:
    if b[i - 2] | b[i - 1] << 8 == 8 and b[i - 4] | b[i - 3] << 8 == 0:
        b[i + 8 + 10] ^= 0x20
        hit += 1
assert hit, "no pipeline record found"
open(p, "wb").write(bytes(b))
PY
  run "$D" > "$TMP/dmg.out" 2>&1 || rc=$?
  [ $rc -eq 3 ] && grep -q "is corrupt" "$TMP/dmg.out" || { echo "exit $rc"; cat "$TMP/dmg.out"; return 1; }
}

check "a format-1 store is converted and the run continues exactly" t_converted
check "inspect of a format-1 store says a run converts it" t_inspect_old
check "killed after the converted file is written: the old store stays" t_killed_written
check "killed after the rename: the converted store is used" t_killed_renamed
check "a conversion file left behind is replaced" t_leftover
check "a damaged format-1 store is refused" t_damaged
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
