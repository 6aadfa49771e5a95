#!/usr/bin/env bash
# A lookup model (`clickhouse: {lookup: true}`) on a real ClickHouse server (Debian 12's
# 18.16, started here on 127.0.0.1) and on weir's native runtime, which reads the same
# ClickHouse tables (source_clickhouse.c): the same rows. The stream is an adopted
# table of 500 events over 7 kinds, the lookup table labels 5 of them (two kinds twice:
# every match; a label of no kind). Then the table changes and more events arrive:
# ClickHouse keeps every earlier row as it was (only the stream triggers) and joins the
# new events with the table as it is now, as a fresh native run does. Also: batch sizes
# 1 and 7 give the same rows (the table is read before any event), no url is a
# configuration error that says how to give one, and a password never shows in a
# message. Each check counts as one test.
source "$(dirname "$0")/lib.sh"
source "$ROOT/tests/scripts/clickhouse_lib.sh"
clickhouse_suite_start
P=$(copy_project "$ROOT/tests/clickhouse/lookup_native" lkn)
weir() { "$WEIR" --project-dir "$P" "$@"; }
# the native run: target local, the server named by WEIR_CLICKHOUSE_URL
native() { WEIR_CLICKHOUSE_URL=$CH "$WEIR" --project-dir "$P" --target local run --fresh --no-progress "$@"; }
# the native sink's rows as "id<TAB>kind<TAB>label", sorted (ids <= / > $2 with $3)
rows_of() {
  python3 - "$1" "${2:-0}" "${3:-all}" <<'PY'
import json, sys
path, cut, which = sys.argv[1], int(sys.argv[2]), sys.argv[3]
rows = [json.loads(l) for l in open(path) if l.strip()]
rows = [r for r in rows if which == "all" or (which == "old") == (r["id"] <= cut)]
for r in sorted(rows, key=lambda r: (r["id"], r["kind"], r["label"] or "")):
    print("%d\t%s\t%s" % (r["id"], r["kind"], "\\N" if r["label"] is None else r["label"]))
PY
}
ch_rows() { chq "SELECT id, kind, label FROM lkn.labelled $1 ORDER BY id, kind, label FORMAT TabSeparated"; }
# the join of every event with the table as it is now
ch_now() {
  chq "SELECT id, kind, label FROM lkn_src.events ALL INNER JOIN lkn_src.kinds USING (kind) $1
       ORDER BY id, kind, label FORMAT TabSeparated"
}

chq "CREATE DATABASE lkn_src"
chq "CREATE TABLE lkn_src.events (id Int64, kind String, ts DateTime) ENGINE = MergeTree() ORDER BY id"
chq "INSERT INTO lkn_src.events SELECT number + 1, concat('k', toString(number % 7)), now() - 3600 FROM system.numbers LIMIT 500"
chq "CREATE TABLE lkn_src.kinds (kind String, label String) ENGINE = MergeTree() ORDER BY kind"
chq "INSERT INTO lkn_src.kinds VALUES ('k0', 'zero'), ('k0', 'nil'), ('k1', 'one'), ('k2', 'two'), ('k3', 'three'),
     ('k3', 'drei'), ('k4', 'four'), ('k9', 'nine')"
want=$(chq "SELECT count() FROM lkn_src.events ALL INNER JOIN lkn_src.kinds USING (kind)")

weir apply --yes > "$TMP/apply" 2>&1 || { bad "apply" "$TMP/apply"; echo "$passed passed, $failed failed"; exit 1; }
wait_for "SELECT count() FROM lkn.labelled" "$want" && ok "ClickHouse: the history joined through the lookup ($want rows)" ||
  bad "ClickHouse history" "$TMP/apply"

native > "$TMP/run1" 2>&1 || bad "native run" "$TMP/run1"
cp "$P/target/out/labelled.jsonl" "$TMP/native1.jsonl"
rows_of "$TMP/native1.jsonl" > "$TMP/n1"
ch_rows "" > "$TMP/c1"
if [ -s "$TMP/n1" ] && [ "$(wc -l < "$TMP/n1")" -eq "$want" ] && cmp -s "$TMP/n1" "$TMP/c1"; then
  ok "native run reading the ClickHouse tables: the same $want rows as ClickHouse"
else
  bad "native rows differ from ClickHouse's ($(wc -l < "$TMP/n1") vs $(wc -l < "$TMP/c1"))" "$TMP/run1"
  diff "$TMP/n1" "$TMP/c1" | head -10 >&2
fi

# a LEFT lookup: PostgreSQL's NULLs for the kinds without a label. Natively on the local
# target, and on the ClickHouse target, where a model ClickHouse does not maintain runs
# natively (native_fallback) and is written back into ClickHouse
left_want() {
  chq "SELECT id, kind, label FROM lkn_src.events ALL LEFT JOIN (SELECT kind, toNullable(label) AS label
       FROM lkn_src.kinds) USING (kind) ORDER BY id, kind, label FORMAT TabSeparated"
}
left_want > "$TMP/lw"
if rows_of "$P/target/out/left_labelled.jsonl" | cmp -s - "$TMP/lw" && grep -q '\\N' "$TMP/lw"; then
  ok "native LEFT lookup: NULLs for the unmatched events ($(wc -l < "$TMP/lw") rows)"
else bad "native LEFT lookup" "$TMP/run1"; fi
weir run --no-progress > "$TMP/runch" 2>&1 || bad "weir run on the ClickHouse target" "$TMP/runch"
wait_for "SELECT count() FROM lkn.left_labelled" "$(wc -l < "$TMP/lw")" &&
  chq "SELECT id, kind, label FROM lkn.left_labelled ORDER BY id, kind, label FORMAT TabSeparated" | cmp -s - "$TMP/lw" &&
  ok "LEFT lookup on the ClickHouse target: the same rows in ClickHouse" || bad "LEFT lookup on ClickHouse" "$TMP/runch"

same_batches=0
for b in 1 7; do
  native --batch-size $b > "$TMP/runb" 2>&1 && rows_of "$P/target/out/labelled.jsonl" | cmp -s - "$TMP/n1" &&
    same_batches=$((same_batches + 1))
done
[ $same_batches -eq 2 ] && ok "native run at batch sizes 1 and 7: the same rows (the table is read before the events)" ||
  bad "native run at small batch sizes" "$TMP/runb"

# the table changes after the stream rows, then more events arrive
chq "INSERT INTO lkn_src.kinds VALUES ('k5', 'five'), ('k1', 'uno')"
chq "INSERT INTO lkn_src.events SELECT number + 501, concat('k', toString(number % 7)), now() FROM system.numbers LIMIT 70"
want_new=$(chq "SELECT count() FROM lkn_src.events ALL INNER JOIN lkn_src.kinds USING (kind) WHERE id > 500")
wait_for "SELECT count() FROM lkn.labelled WHERE id > 500" "$want_new" &&
  ch_rows "WHERE id <= 500" | cmp -s - "$TMP/c1" &&
  ok "ClickHouse after the table changed: the earlier rows unchanged, $want_new rows for the new events" ||
  bad "ClickHouse after the table changed"

native > "$TMP/run2" 2>&1 || bad "second native run" "$TMP/run2"
if rows_of "$P/target/out/labelled.jsonl" 0 all | cmp -s - <(ch_now ""); then
  ok "a fresh native run joins every event with the table as it is now (as a replay on ClickHouse does)"
else bad "second native run: not the join with the current table" "$TMP/run2"; fi
if rows_of "$P/target/out/labelled.jsonl" 500 new | cmp -s - <(ch_rows "WHERE id > 500"); then
  ok "the new events: the same rows natively and on ClickHouse"
else bad "the new events differ"; fi
# what the first native run gave the earlier events is what ClickHouse still shows
ch_rows "WHERE id <= 500" | cmp -s - <(rows_of "$TMP/native1.jsonl" 500 old) &&
  ok "the earlier events: ClickHouse still shows the rows the first native run gave" || bad "earlier events"

# no server to read from: a configuration error that says how to give one
"$WEIR" --project-dir "$P" --target local run --fresh --no-progress > "$TMP/nourl" 2>&1
rc=$?
[ $rc -eq 2 ] && grep -q "source .*no ClickHouse server to read table .* WEIR_CLICKHOUSE_URL" "$TMP/nourl" &&
  ok "no url: exit 2 with how to give one" || bad "no url (rc $rc)" "$TMP/nourl"
# a wrong password: the run fails naming the source; the password is never printed
WEIR_CLICKHOUSE_PASSWORD=not-the-pass-7431 native > "$TMP/badpw" 2>&1
rc=$?
[ $rc -ne 0 ] && grep -q "source " "$TMP/badpw" && ! grep -q "not-the-pass-7431" "$TMP/badpw" &&
  ok "a refused password: the run fails, the password is not printed" || bad "bad password (rc $rc)" "$TMP/badpw"

# a durable native run (its events come from a directory of files) continues from its
# checkpoint: the table is not read again, the state keeps the table as first read, so
# new events after a change of the table join the old labels (restart with --fresh to
# read it anew)
D="$TMP/durable"
mkdir -p "$D/models" "$D/sources" "$D/data/ev"
cat > "$D/weir.yml" <<'YML'
name: lookup_durable
YML
cat > "$D/sources/s.yml" <<'YML'
sources:
  evf:
    connector: file
    path: data/ev
    columns: {id: bigint, kind: text}
  kinds:
    connector: clickhouse
    kind: stream_table
    table: lkn_src.kinds
    columns: {kind: text, label: text}
YML
cat > "$D/models/lab.sql" <<'SQL'
SELECT e.id, k.label FROM source('evf') AS e JOIN source('kinds') AS k ON e.kind = k.kind
SQL
cat > "$D/models/schema.yml" <<'YML'
models:
  lab:
    materialized: append
    clickhouse: {lookup: true}
    sink: {connector: file, path: out/lab.jsonl, format: json}
YML
echo '{"id": 1, "kind": "k6"}' > "$D/data/ev/a.jsonl"
echo '{"id": 2, "kind": "k4"}' >> "$D/data/ev/a.jsonl"
durable() { WEIR_CLICKHOUSE_URL=$CH "$WEIR" --project-dir "$D" run --until-caught-up --no-progress "$@"; }
durable > "$TMP/d1" 2>&1 || bad "durable run" "$TMP/d1"
chq "INSERT INTO lkn_src.kinds VALUES ('k6', 'six'), ('k4', 'vier')"
echo '{"id": 3, "kind": "k6"}' > "$D/data/ev/b.jsonl"
echo '{"id": 4, "kind": "k4"}' >> "$D/data/ev/b.jsonl"
durable > "$TMP/d2" 2>&1 || bad "continued durable run" "$TMP/d2"
got=$(python3 -c 'import json,sys; print(" ".join("%d:%s" % (r["id"], r["label"]) for r in sorted((json.loads(l) for l in open(sys.argv[1])), key=lambda r: (r["id"], r["label"]))))' "$D/out/lab.jsonl")
if [ "$got" = "2:four 4:four" ] && grep -q "continu\|resum" "$TMP/d2"; then
  ok "a continued durable run keeps the table it first read (not read again)"
else bad "continued durable run: '$got'" "$TMP/d2"; fi
durable --fresh > "$TMP/d3" 2>&1 || bad "fresh durable run" "$TMP/d3"
got=$(python3 -c 'import json,sys; print(" ".join("%d:%s" % (r["id"], r["label"]) for r in sorted((json.loads(l) for l in open(sys.argv[1])), key=lambda r: (r["id"], r["label"]))))' "$D/out/lab.jsonl")
[ "$got" = "1:six 2:four 2:vier 3:six 4:four 4:vier" ] && ok "--fresh reads the table anew" ||
  bad "fresh durable run: '$got'" "$TMP/d3"

# values decoded with the declared types: 64-bit integers, numerics, dates and times
# (18.16 writes the day 1970-01-01 as 0000-00-00: read back as 1970-01-01, in date and
# timestamp columns only), NULLs, escapes, UInt8 as boolean
T="$TMP/typed"
mkdir -p "$T/models" "$T/sources"
echo "name: typed" > "$T/weir.yml"
cat > "$T/sources/s.yml" <<'YML'
sources:
  typed:
    connector: clickhouse
    kind: stream_table
    table: lkn_src.typed
    columns:
      i: bigint
      n: integer
      f: double precision
      d: numeric(10,2)
      day: date
      at: timestamp
      s: text
      b: boolean
      nb: boolean
YML
echo "SELECT * FROM source('typed')" > "$T/models/rows.sql"
printf 'models:\n  rows:\n    materialized: append\n    sink: {connector: file, path: out/rows.jsonl, format: json}\n' \
  > "$T/models/schema.yml"
chq "CREATE TABLE lkn_src.typed (i Int64, n Int32, f Float64, d Decimal(10,2), day Date, at DateTime,
     s Nullable(String), b UInt8, nb Nullable(UInt8)) ENGINE = MergeTree() ORDER BY i"
chq "INSERT INTO lkn_src.typed VALUES (9007199254740993, -5, 1.5, 12.34, '2026-01-02', '2026-01-02 03:04:05',
     'tab	and \"quote\" \\\\ back', 1, NULL), (2, 0, -0.25, -0.5, '1970-01-01', '1970-01-01 00:00:00', '0000-00-00', 0, 1)"
WEIR_CLICKHOUSE_URL=$CH "$WEIR" --project-dir "$T" run --no-progress > "$TMP/typed.log" 2>&1 || bad "typed run" "$TMP/typed.log"
cat > "$TMP/typed.want" <<'JSON'
{"i":2,"n":0,"f":-0.25,"d":-0.50,"day":"1970-01-01","at":"1970-01-01 00:00:00","s":"0000-00-00","b":false,"nb":true}
{"i":9007199254740993,"n":-5,"f":1.5,"d":12.34,"day":"2026-01-02","at":"2026-01-02 03:04:05","s":"tab\tand \"quote\" \\ back","b":true,"nb":null}
JSON
if sort "$T/out/rows.jsonl" | cmp -s - "$TMP/typed.want" && ! [ -s "$T/target/dead_letter/typed.jsonl" ]; then
  ok "a ClickHouse table's values decoded with the declared types (no dead letters)"
else bad "typed values" "$T/out/rows.jsonl"; cat "$TMP/typed.log" >&2; fi

echo "$passed passed, $failed failed"
[ $failed -eq 0 ]
