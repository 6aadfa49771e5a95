#!/usr/bin/env bash
# Arrays and json leave weir in each sink's form: JSON file sinks write arrays as JSON
# arrays and embed json as JSON, a SQLite sink stores PostgreSQL's text of both; a
# durable run resumes array_agg / json_agg state from its checkpoint (the second run
# sees only the new changes, an update and a delete, and emits the groups' new values).
source "$(dirname "$0")/lib.sh"
P="$TMP/p"
mkdir -p "$P/sources" "$P/models" "$P/data"
printf 'name: arr\ndefault_target: dev\ntargets:\n  dev:\n    runtime: native\n    state_dir: .weir/dev\n' > "$P/weir.yml"
cat > "$P/sources/s.yml" <<'YAML'
sources:
  s.t:
    connector: file
    path: data
    format: changelog-json
    columns: {id: bigint, g: text, tags: "text[]", doc: json, n: "numeric(6,2)"}
    primary_key: [id]
YAML
cat > "$P/data/1.jsonl" <<'JSONL'
{"op":"insert","id":1,"g":"a","tags":["x y","",null],"doc":{"k":[1,2]},"n":1.5}
{"op":"insert","id":2,"g":"a","tags":[],"doc":"s","n":null}
{"op":"insert","id":3,"g":"b","tags":["q\"u"],"doc":null,"n":2}
JSONL
cat > "$P/models/rows.sql" <<'SQL'
SELECT id, tags, doc, tags[1] AS first_tag FROM source('s.t')
SQL
cat > "$P/models/groups.sql" <<'SQL'
SELECT g, array_agg(n ORDER BY id) AS ns, json_agg(tags ORDER BY id) AS tag_lists, json_object_agg(id, n ORDER BY id) AS by_id
FROM source('s.t') GROUP BY g
SQL
cat > "$P/models/m.yml" <<'YAML'
models:
  rows:
    materialized: upsert
    key: [id]
    sink: {connector: file, path: out/rows.jsonl, format: changelog-json}
  groups:
    materialized: upsert
    key: [g]
    sink: {connector: sqlite, path: out/db.sqlite}
YAML
"$WEIR" --project-dir "$P" run --no-progress --until-caught-up > "$TMP/run1.txt" 2>&1 || fail "run: $(cat "$TMP/run1.txt")"
assert_eq "$(cat "$P/out/rows.jsonl")" \
'{"op":"insert","id":1,"tags":["x y","",null],"doc":{"k":[1,2]},"first_tag":"x y"}
{"op":"insert","id":2,"tags":[],"doc":"s","first_tag":null}
{"op":"insert","id":3,"tags":["q\"u"],"doc":null,"first_tag":"q\"u"}' "JSON sink: arrays as JSON arrays, json embedded"
assert_eq "$(sqlite3 -separator ' | ' "$P/out/db.sqlite" "SELECT g, ns, tag_lists, by_id FROM groups ORDER BY g")" \
'a | {1.50,NULL} | [["x y","",null], 
 []] | { "1" : 1.50, "2" : null }
b | {2.00} | [["q\"u"]] | { "3" : 2.00 }' "SQLite sink: PostgreSQL's text of arrays and json"
assert_eq "$(sqlite3 "$P/out/db.sqlite" "SELECT type FROM pragma_table_info('groups') WHERE name = 'ns'")" "TEXT" \
  "an array column is TEXT"

# a second durable run (a directory source): the groups' state comes back from the
# checkpoint, and the run reads only the new file
cat > "$P/data/2.jsonl" <<'JSONL'
{"op":"update","id":2,"g":"a","tags":["z"],"doc":"s","n":3}
{"op":"delete","id":3}
JSONL
"$WEIR" --project-dir "$P" run --no-progress --until-caught-up > "$TMP/run2.txt" 2>&1 || fail "second run: $(cat "$TMP/run2.txt")"
assert_contains "$TMP/run2.txt" "2 events" "the second run reads only the new changes"
assert_eq "$(sqlite3 -separator ' | ' "$P/out/db.sqlite" "SELECT g, ns, tag_lists, by_id FROM groups ORDER BY g")" \
'a | {1.50,3.00} | [["x y","",null], 
 ["z"]] | { "1" : 1.50, "2" : 3.00 }' "the resumed aggregates"
echo ok
