#!/usr/bin/env bash
# reconcile adopting objects made outside weir (Debian 12's ClickHouse 18.16, started
# here on 127.0.0.1): the objects of two models over an existing table were made by
# hand from `weir compile`'s SQL under names of the user's own (a table, the
# materialized view feeding it, the view readers query under the model's name) and
# backfilled with replay.sql, before weir deployed anything. One table has a column the
# project lacks: reconcile refuses it with the difference, and since it adopts all or
# none records nothing. Once the table matches, reconcile --yes records both; plan then
# finds nothing to do, apply nothing to apply, doctor is healthy, and rows written later
# still flow through the adopted view. Each check counts as one test.
source "$(dirname "$0")/lib.sh"
source "$ROOT/tests/scripts/clickhouse_lib.sh"
clickhouse_suite_start
P=$(copy_project "$ROOT/tests/clickhouse/handmade" handmade)
weir() { "$WEIR" --project-dir "$P" "$@"; }
chq "CREATE DATABASE hm_src"
chq "CREATE TABLE hm_src.events (id Int64, kind String) ENGINE = MergeTree() ORDER BY id"
chq "INSERT INTO hm_src.events SELECT number + 1, ['a', 'b'][number % 2 + 1] FROM system.numbers LIMIT 50"
# the objects, by hand: compile's SQL in database hm, the tables and views renamed
weir compile > "$TMP/compile" 2>&1 || { bad "compile" "$TMP/compile"; echo "$passed passed, $failed failed"; exit 1; }
chq "CREATE DATABASE hm"
python3 - "$P/target/clickhouse/18.16" > "$TMP/handmade.sql" <<'PY'
import re, sys
d = sys.argv[1]
def rename(st):
    st = st.replace("`weir`.", "`hm`.")
    for m in ("ids", "kinds"):
        st = st.replace("`%s__00000000T000000Z_000000__mv`" % m, "`%s_feed`" % m)
        st = st.replace("`%s__00000000T000000Z_000000`" % m, "`%s_tbl`" % m)
    return st
for f in ("deployment.sql", "replay.sql"):
    for st in re.split(r";\n", open("%s/%s" % (d, f)).read()):
        st = re.sub(r"^(\s*--[^\n]*\n)+", "", st).strip()
        if st and not st.startswith("--"):
            print(rename(st).replace("\n", " "))
PY
n=0
while IFS= read -r st; do
  out=$(chq "$st")
  [ -z "$out" ] || { echo "$st: $out" >&2; bad "a statement of the objects made by hand"; }
  n=$((n + 1))
done < "$TMP/handmade.sql"
chq "ALTER TABLE hm.kinds_tbl ADD COLUMN note String"
if [ $n -eq 8 ] && [ "$(chq "SELECT count() FROM hm.ids")" = 50 ] && [ "$(chq "SELECT sum(n) FROM hm.kinds")" = 50 ]; then
  ok "the objects made by hand hold the history"
else bad "the objects made by hand ($n statements)"; fi

weir reconcile > "$TMP/rec1" 2>&1
rc=$?
if [ $rc -eq 0 ] && grep -q "model ids .*adopted: \`hm\`.\`ids_tbl\` (fed by \`hm\`.\`ids_feed\`, read through \`hm\`.\`ids\`) was made outside weir" "$TMP/rec1" &&
   grep -q "model kinds  *not adopted: its live table differs from the project's: \`hm\`.\`kinds_tbl\`: - note String" "$TMP/rec1" &&
   grep -q "reconcile adopts all or none" "$TMP/rec1"; then
  ok "reconcile adopts the matching objects made outside weir and refuses the table with a column the project lacks, naming it"
else bad "reconcile preview (rc $rc)" "$TMP/rec1"; fi
weir reconcile --yes > "$TMP/rec2" 2>&1
if ! grep -q "^reconciled" "$TMP/rec2" && [ "$(chq "SELECT count() FROM hm._weir_publications")" = 0 ]; then
  ok "reconcile --yes records nothing while a model does not qualify"
else bad "reconcile --yes with a refused model" "$TMP/rec2"; fi

chq "ALTER TABLE hm.kinds_tbl DROP COLUMN note"
weir reconcile --yes > "$TMP/rec3" 2>&1
rc=$?
weir plan > "$TMP/plan" 2>&1
prc=$?
weir apply --yes > "$TMP/apply" 2>&1
weir doctor > "$TMP/doctor" 2>&1
drc=$?
if [ $rc -eq 0 ] && grep -q "^reconciled: deployment" "$TMP/rec3" && [ $prc -eq 0 ] &&
   grep -q "model  ids  *unchanged" "$TMP/plan" && grep -q "model  kinds  *unchanged" "$TMP/plan" &&
   grep -q "nothing to apply: target ch runs this version" "$TMP/apply" && [ $drc -eq 0 ] &&
   [ "$(chq "SELECT count() FROM system.tables WHERE database = 'hm' AND match(name, '__[0-9]{8}T')")" = 0 ]; then
  ok "reconcile --yes records the objects made outside weir: plan unchanged, nothing to apply, doctor healthy"
else bad "reconcile --yes (rc $rc, plan $prc, doctor $drc)" "$TMP/rec3"; cat "$TMP/plan" "$TMP/apply" "$TMP/doctor" >&2; fi
chq "INSERT INTO hm_src.events SELECT number + 51, 'c' FROM system.numbers LIMIT 10"
if wait_for "SELECT count(), uniqExact(id) FROM hm.ids" "60	60" && wait_for "SELECT n FROM hm.kinds WHERE kind = 'c'" "10"; then
  ok "rows written later flow through the adopted objects"
else bad "live rows after the reconcile"; fi

echo "$passed passed, $failed failed"
[ $failed -eq 0 ]
