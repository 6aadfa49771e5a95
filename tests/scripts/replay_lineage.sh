#!/usr/bin/env bash
# The replay lineage columns on weir run over a file: partition 0, the record's line
# number as the offset (a blank line counts), no message or landing time; a model that
# never names them beside one that does still sees only the declared columns.
source "$(dirname "$0")/lib.sh"
P=$(copy_project "$ROOT/tests/projects/ops_replay_lineage" lineage)
cat > "$P/models/schema.yml" <<'YML'
models:
  lin_positions:
    materialized: append
    sink: {connector: file, path: out/positions.jsonl}
  lin_plain:
    materialized: append
  lin_untouched:
    materialized: append
    sink: {connector: file, path: out/untouched.jsonl}
  lin_last:
    materialized: upsert
    key: [kind]
YML
"$WEIR" --project-dir "$P" run --no-progress > "$TMP/run.txt" 2>&1 || { cat "$TMP/run.txt"; fail "run failed"; }
python3 - "$P/out/positions.jsonl" "$P/out/untouched.jsonl" <<'PY' || fail "lineage of file rows"
import json, sys
pos = [json.loads(l) for l in open(sys.argv[1])]
got = sorted((r["id"], r["part"], r["pos"], r["no_timestamp"], r["no_landed_at"]) for r in pos)
assert got == [(1, 0, 1, True, True), (3, 0, 4, True, True), (4, 0, 5, True, True)], got
unt = [json.loads(l) for l in open(sys.argv[2])]
assert len(unt) == 4 and all(sorted(r) == ["id", "kind", "ts"] for r in unt), unt
PY
# the names are reserved in a source's columns
sed -i 's/      kind: text/      kind: text\n      _replay_offset: bigint/' "$P/sources/lin.yml"
"$WEIR" --project-dir "$P" check > "$TMP/check.txt" 2>&1 && fail "a declared _replay_offset was accepted"
assert_contains "$TMP/check.txt" "column name '_replay_offset' is reserved for the replay lineage" "reserved name"
assert_contains "$TMP/check.txt" "sources/lin.yml:" "reserved name position"
echo ok
