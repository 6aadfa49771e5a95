#!/usr/bin/env bash
# Bounded replay policies on a real ClickHouse server (Debian 12's 18.16, started here on
# 127.0.0.1): an adopted table whose rows carry their own time (replay boundary
# `timestamp`), rows 30 days old and 1 day old, a model with `replay_on_change:
# bounded-7d`. Each rebuild replays only the last 7 days: seeded (the model keeps its
# source's replay time, the types stay: the older rows are copied from the active table
# as they were), unseeded (a column's type changed: the older history is dropped), and
# full when the model no longer keeps the replay time (the default fallback). Each check
# counts as one test. A lookup join against a second table of the server rides along
# (inner, and left with PostgreSQL's NULLs, compared with the native runtime's rows),
# and reconcile adopts a WHERE change whose table stays the same.
source "$(dirname "$0")/lib.sh"
source "$ROOT/tests/scripts/clickhouse_lib.sh"
clickhouse_suite_start
P=$(copy_project "$ROOT/tests/clickhouse/bounded" bounded)
weir() { "$WEIR" --project-dir "$P" "$@"; }
chq "CREATE DATABASE bnd_src"
chq "CREATE TABLE bnd_src.events (id Int64, kind String, ts DateTime) ENGINE = MergeTree() ORDER BY id"
# ids 1..100 landed 30 days ago, 101..200 one day ago (by the server's clock); the
# lookup join's table
chq "INSERT INTO bnd_src.events SELECT number + 1, 'k', now() - 30 * 86400 FROM system.numbers LIMIT 100"
chq "INSERT INTO bnd_src.events SELECT number + 101, 'k', now() - 86400 FROM system.numbers LIMIT 100"
chq "CREATE TABLE bnd_src.kinds (kind String, label String) ENGINE = MergeTree() ORDER BY kind"
chq "INSERT INTO bnd_src.kinds VALUES ('k', 'Kay')"
# the left lookup's events: a kind with a label, one without, a NULL kind
chq "CREATE TABLE bnd_src.events2 (id Int64, kind Nullable(String)) ENGINE = MergeTree() ORDER BY id"
chq "INSERT INTO bnd_src.events2 VALUES (1, 'k'), (2, 'z'), (3, NULL), (4, 'k')"
# check NAME COUNT MIN_OLD MIN_RECENT: the view holds COUNT rows, old ones from MIN_OLD, recent from MIN_RECENT
check() {
  if wait_for "SELECT count(), uniqExact(id), minIf(id, id <= 100), minIf(id, id > 100) FROM bnd.recent" "$2	$2	$3	$4"; then
    ok "$1"
  else bad "$1" "$TMP/apply"; fi
}
weir apply --yes > "$TMP/apply" 2>&1 || { bad "first apply" "$TMP/apply"; echo "$passed passed, $failed failed"; exit 1; }
check "greenfield: the whole history" 200 1 101
# a lookup join (clickhouse: {lookup: true}): history replayed through the join, then
# only new events trigger it: a label added later changes no earlier row
wait_for "SELECT count(), countIf(label = 'Kay') FROM bnd.labelled" "200	200" &&
  ok "lookup join: the history joined with the table" || bad "lookup join history"
# a LEFT JOIN lookup: an event without a match keeps its row with NULLs (PostgreSQL's
# semantics; ClickHouse's defaults would be ''), the same rows as weir's native runtime
# computes for the same data: the rows ClickHouse holds become the expected result of a
# `weir test` that feeds the table's rows, then the events, to the native engine
if wait_for "SELECT count(), countIf(label IS NULL), countIf(label = ''), countIf(kind IS NULL AND label IS NULL) FROM bnd.labelled_all" "4	2	0	1"; then
  ok "left lookup: unmatched events get NULLs, not defaults"
else bad "left lookup NULLs"; chq "SELECT * FROM bnd.labelled_all ORDER BY id" >&2; fi
mkdir -p "$P/tests"
chq "SELECT id, kind, label FROM bnd.labelled_all ORDER BY id FORMAT TabSeparated" > "$TMP/left.tsv"
python3 - "$TMP/left.tsv" > "$P/tests/left_lookup.yml" <<'PY'
import json, sys
def v(x): return None if x == "\\N" else x
rows = [l.rstrip("\n").split("\t") for l in open(sys.argv[1]) if l.strip()]
print("tests:\n  - name: left_lookup_as_clickhouse\n    model: labelled_all\n    given:")
print("      - source: kinds\n        rows:\n          - {kind: k, label: Kay}")
print("      - source: ev2\n        rows:")
for e in [(1, "k"), (2, "z"), (3, None), (4, "k")]:
    print("          - " + json.dumps({"id": e[0], "kind": e[1]}))
print("    expect_final:")
for r in rows:
    print("      - " + json.dumps({"id": int(r[0]), "kind": v(r[1]), "label": v(r[2])}))
PY
weir test > "$TMP/test_left" 2>&1
if grep -q "PASS   left_lookup_as_clickhouse" "$TMP/test_left" && [ "$(grep -c '"label": null' "$P/tests/left_lookup.yml")" = 2 ]; then
  ok "left lookup: the native runtime computes the rows ClickHouse holds"
else bad "left lookup against the native runtime" "$TMP/test_left"; cat "$P/tests/left_lookup.yml" >&2; fi
rm -rf "$P/tests"
chq "INSERT INTO bnd_src.kinds VALUES ('k', 'Kay again')"
chq "INSERT INTO bnd_src.events VALUES (201, 'k', now()), (202, 'z', now())"
wait_for "SELECT count(), countIf(label = 'Kay'), countIf(label = 'Kay again'), countIf(id = 202) FROM bnd.labelled" "202	201	1	0" &&
  ok "lookup join: a new event joins every label the table has now, older rows stay" || bad "lookup join live"
chq "INSERT INTO bnd_src.events2 VALUES (5, 'k'), (6, 'q'), (7, NULL)"
wait_for "SELECT count(), countIf(id = 5), countIf(id = 5 AND label = 'Kay again'), countIf(id > 5 AND label IS NULL), countIf(id < 5 AND label = 'Kay again') FROM bnd.labelled_all" "8	2	1	2	0" &&
  ok "left lookup live: a new event joins every label the table has now or gets NULLs, older rows stay" || bad "left lookup live"

# a WHERE change: only the window is computed again, the older rows are the active ones
weir --vars '{"min_id": 150}' apply --yes --allow-rebuild > "$TMP/apply" 2>&1 || bad "seeded apply" "$TMP/apply"
grep -q "model recent: bounded-7d replay (seeded)" "$TMP/apply" || bad "the apply reports a seeded replay" "$TMP/apply"
check "bounded-7d, seeded: rows older than 7 days kept from the active table, the window replayed" 153 1 150

# a type change: the older history cannot be copied
weir --vars '{"min_id": 150, "kind_expr": "length(kind)"}' apply --yes --allow-rebuild > "$TMP/apply" 2>&1 ||
  bad "unseeded apply" "$TMP/apply"
grep -q "model recent: bounded-7d replay (unseeded)" "$TMP/apply" || bad "the apply reports an unseeded replay" "$TMP/apply"
check "bounded-7d, unseeded (a type changed): only the window" 53 0 150

# the model no longer keeps its replay time: the fallback (full) replays everything
weir --vars '{"min_id": 90, "kind_expr": "length(kind)", "at": ""}' apply --yes --allow-rebuild > "$TMP/apply" 2>&1 ||
  bad "fallback apply" "$TMP/apply"
grep -q "model recent: bounded-7d replay (full)" "$TMP/apply" || bad "the apply reports the full fallback" "$TMP/apply"
check "bounded-7d without a replay time in the table: the whole history (fallback full)" 113 90 101

# reconcile: a changed WHERE clause whose table stays the same is adopted as it runs
V='{"min_id": 95, "kind_expr": "length(kind)", "at": ""}'
before=$(chq "SELECT count() FROM bnd.recent")
weir --vars "$V" reconcile > "$TMP/rec1" 2>&1
rc=$?
if [ $rc -eq 0 ] && grep -q "model recent .*adopted" "$TMP/rec1" && grep -q "preview: rerun with --yes" "$TMP/rec1" &&
   weir --vars "$V" plan > "$TMP/plan1" 2>&1 && grep -q "model  recent  *rebuild" "$TMP/plan1"; then
  ok "reconcile previews the adoption and records nothing"
else bad "reconcile preview (rc $rc)" "$TMP/rec1"; fi
# reconcile --yes, then plan must show the adopted model unchanged in its ClickHouse
# section and apply find nothing to do. Repeated with another WHERE clause each time:
# the commands follow each other within the same second, which is when metadata rows
# stamped by a clock of second resolution used to tie (plan then read the publication
# reconcile superseded and said `rebuild`).
rec_ok=0
for min_id in 95 96 97 98 99 100; do
  V="{\"min_id\": $min_id, \"kind_expr\": \"length(kind)\", \"at\": \"\"}"
  weir --vars "$V" reconcile --yes > "$TMP/rec2" 2>&1
  rc=$?
  weir --vars "$V" plan > "$TMP/plan2" 2>&1
  weir --vars "$V" apply --yes > "$TMP/apply2" 2>&1
  weir doctor > "$TMP/doctor" 2>&1
  drc=$?
  if [ $rc -eq 0 ] && grep -q "^reconciled: deployment" "$TMP/rec2" && grep -q "UNCHANGED  recent" "$TMP/plan2" &&
     grep -q "model  recent  *unchanged" "$TMP/plan2" && ! grep -q "rebuild" "$TMP/plan2" &&
     grep -q "nothing to apply: target ch runs this version" "$TMP/apply2" &&
     [ $drc -eq 0 ] && [ "$(chq "SELECT count() FROM bnd.recent")" = "$before" ]; then
    rec_ok=$((rec_ok + 1))
  else
    bad "reconcile --yes with min_id $min_id (rc $rc, doctor $drc)" "$TMP/rec2"; cat "$TMP/plan2" "$TMP/apply2" "$TMP/doctor" >&2
    break
  fi
done
[ $rec_ok -eq 6 ] &&
  ok "reconcile --yes (6 times in a row): plan's ClickHouse section shows the adopted model unchanged, nothing rebuilt, doctor healthy"
weir --vars '{"min_id": 95, "at": ""}' reconcile --yes > "$TMP/rec3" 2>&1
if grep -q "model recent .*not adopted: its live table differs" "$TMP/rec3" && ! grep -q "^reconciled" "$TMP/rec3"; then
  ok "reconcile refuses a model whose live table differs (a type changed)"
else bad "reconcile of a changed table" "$TMP/rec3"; fi

echo "$passed passed, $failed failed"
[ $failed -eq 0 ]
