#!/usr/bin/env bash
# Incremental checkpoints (docs/run.md#incremental-checkpoints): a durable run over a
# GROUP BY of 20000 groups writes a full checkpoint; runs that continue it after events
# on 1% of the groups write only the chunks that changed (a small fraction of the full
# checkpoint's bytes), and their sink ends exactly as one run over all events does.
# The same for a SELECT DISTINCT of 20000 rows over a directory source, an EXCEPT of
# two directory sources, a top-2 per key, a running SUM OVER per key, a day's
# tumbling window per key that stays open, and sessions per key (gap 1 day: none
# closes before the last run).
source "$(dirname "$0")/lib.sh"
eval "$(BUILD=$BUILD "$ROOT/scripts/kafka-start" ev:4 ref:4)" || fail "kafka-start"
trap '"$ROOT/scripts/kafka-stop"; rm -rf "$TMP"' EXIT
export KAFKA_BOOTSTRAP
project() {  # project DIR TOPIC
  mkdir -p "$1/sources" "$1/models"
  cat > "$1/weir.yml" <<'YAML'
name: inc
default_target: dev
targets:
  dev: {runtime: native, kafka: {bootstrap_servers: "${ENV:KAFKA_BOOTSTRAP}"}}
YAML
  cat > "$1/sources/ev.yml" <<YAML
sources:
  ev: {connector: kafka, topic: $2, format: json, columns: {k: bigint, v: bigint, name: text}}
YAML
  echo "SELECT k, count(*) AS n, sum(v) AS s, max(name) AS name FROM source('ev') GROUP BY k" > "$1/models/agg.sql"
  cat > "$1/models/models.yml" <<'YAML'
models:
  agg:
    materialized: upsert
    key: [k]
    sink: {connector: sqlite, path: out/db.sqlite, table: agg}
YAML
}
events() {  # events FIRST STEP COUNT SALT
  python3 -c "
for j in range($3):
    i = $1 + j * $2
    print('{\"k\":%d,\"v\":%d,\"name\":\"n-%d-$4\"}' % (i, (i * 7 + $4) % 1000, i))"
}
produce() { kcat -P -b "$KAFKA_BOOTSTRAP" -t "$1" -l "$2"; }
run() { "$WEIR" --project-dir "$1" run --until-caught-up --no-progress --checkpoint-interval 1h --format json "${@:2}"; }
bytes() { python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['checkpoint_bytes'])" "$1"; }
rows() { python3 -c "
import sqlite3, sys
for r in sqlite3.connect(sys.argv[1]).execute('SELECT k, n, s, name FROM agg ORDER BY k'): print(*r)" "$1"; }

P=$TMP/p; R=$TMP/r
project "$P" ev; project "$R" ref
events 0 1 20000 0 > "$TMP/e1"; events 3 100 200 1 > "$TMP/e2"; events 51 100 200 2 > "$TMP/e3"
produce ev "$TMP/e1"
run "$P" --fresh > "$TMP/run1.json" || fail "first run"
produce ev "$TMP/e2"
run "$P" > "$TMP/run2.json" || fail "second run"
produce ev "$TMP/e3"
run "$P" > "$TMP/run3.json" || fail "third run"
full=$(bytes "$TMP/run1.json"); inc2=$(bytes "$TMP/run2.json"); inc3=$(bytes "$TMP/run3.json")
echo "full checkpoint $full bytes; incremental: $inc2, $inc3 bytes"
[ "$full" -gt 500000 ] || fail "the full checkpoint wrote only $full bytes"
for b in $inc2 $inc3; do
  [ $((b * 100)) -le $((full * 10)) ] || fail "an incremental checkpoint wrote $b bytes, more than 10% of $full"
done
# the reference: one run over every event
cat "$TMP/e1" "$TMP/e2" "$TMP/e3" > "$TMP/all"
produce ref "$TMP/all"
run "$R" --fresh > "$TMP/ref.json" || fail "reference run"
rows "$P/out/db.sqlite" > "$TMP/got"; rows "$R/out/db.sqlite" > "$TMP/want"
[ "$(wc -l < "$TMP/want")" -eq 20000 ] || fail "the reference has $(wc -l < "$TMP/want") groups"
cmp -s "$TMP/got" "$TMP/want" || fail "the continued runs' sink differs from one run's: $(diff "$TMP/got" "$TMP/want" | head -5)"
# and a fourth run restores the incremental checkpoints' state exactly: nothing new, nothing changes
run "$P" > "$TMP/run4.json" || fail "fourth run"
rows "$P/out/db.sqlite" > "$TMP/got4"
cmp -s "$TMP/got4" "$TMP/want" || fail "the state restored from incremental checkpoints differs"
# DISTINCT: a directory source of 20000 distinct rows, then files that add 1% new rows
# and repeat 1% of the old ones
dproject() {  # dproject DIR
  mkdir -p "$1/sources" "$1/models" "$1/in"
  echo "name: dinc" > "$1/weir.yml"
  cat > "$1/sources/ev.yml" <<'YAML'
sources:
  ev: {connector: file, path: in, format: json, columns: {k: bigint, v: bigint, name: text}}
YAML
  echo "SELECT DISTINCT k, name FROM source('ev')" > "$1/models/dst.sql"
  cat > "$1/models/models.yml" <<'YAML'
models:
  dst: {materialized: append, sink: {connector: file, path: out/dst.jsonl, format: json}}
YAML
}
# check_incremental WHAT FULL_JSON INC_JSON: the second run's checkpoint wrote at most
# 10% of the first's full one (and that one was large)
check_incremental() {
  local full inc
  full=$(bytes "$2"); inc=$(bytes "$3")
  echo "$1: full checkpoint $full bytes; incremental: $inc bytes"
  [ "$full" -gt 500000 ] || fail "the $1 full checkpoint wrote only $full bytes"
  [ $((inc * 100)) -le $((full * 10)) ] || fail "the $1 incremental checkpoint wrote $inc bytes, more than 10% of $full"
}
drun() { (cd "$1" && "$WEIR" run --until-caught-up --no-progress --checkpoint-interval 1h --format json "${@:2}"); }
D=$TMP/d; DR=$TMP/dr
dproject "$D"; dproject "$DR"
events 0 1 20000 0 > "$D/in/1.jsonl"
drun "$D" > "$TMP/d1.json" || fail "DISTINCT: first run"
{ events 20000 1 200 0; events 5 100 200 0; } > "$D/in/2.jsonl"
drun "$D" > "$TMP/d2.json" || fail "DISTINCT: second run"
check_incremental DISTINCT "$TMP/d1.json" "$TMP/d2.json"
cp "$D/in/1.jsonl" "$D/in/2.jsonl" "$DR/in/"
drun "$DR" > /dev/null || fail "DISTINCT: reference run"
[ "$(wc -l < "$DR/out/dst.jsonl")" -eq 20200 ] || fail "the DISTINCT reference has $(wc -l < "$DR/out/dst.jsonl") rows"
cmp -s <(sort "$D/out/dst.jsonl") <(sort "$DR/out/dst.jsonl") || fail "the continued DISTINCT runs' sink differs from one run's"
{ events 30000 1 10 0; } > "$D/in/3.jsonl"
cp "$D/in/3.jsonl" "$DR/in/"
drun "$D" > /dev/null || fail "DISTINCT: third run"
drun "$DR" > /dev/null || fail "DISTINCT: reference, third"
cmp -s <(sort "$D/out/dst.jsonl") <(sort "$DR/out/dst.jsonl") || fail "the state restored from incremental DISTINCT checkpoints differs"
# EXCEPT: 20000 rows less 1000 of them; then 1% new rows and 100 more taken away
sproject() {  # sproject DIR
  mkdir -p "$1/sources" "$1/models" "$1/in" "$1/gone"
  echo "name: sinc" > "$1/weir.yml"
  cat > "$1/sources/ev.yml" <<'YAML'
sources:
  ev: {connector: file, path: in, format: json, columns: {k: bigint, v: bigint, name: text}}
  gone: {connector: file, path: gone, format: json, columns: {k: bigint, v: bigint, name: text}}
YAML
  echo "SELECT k, name FROM source('ev') EXCEPT SELECT k, name FROM source('gone')" > "$1/models/left.sql"
  cat > "$1/models/models.yml" <<'YAML'
models:
  left: {materialized: table, key: [k, name], sink: {connector: sqlite, path: out/db.sqlite, table: left_rows}}
YAML
}
srows() { python3 -c "
import sqlite3, sys
for r in sqlite3.connect(sys.argv[1]).execute('SELECT k, name FROM left_rows ORDER BY k'): print(*r)" "$1"; }
S=$TMP/s; SR=$TMP/sr
sproject "$S"; sproject "$SR"
events 0 1 20000 0 > "$S/in/1.jsonl"; events 7 20 1000 0 > "$S/gone/1.jsonl"
drun "$S" > "$TMP/s1.json" || fail "EXCEPT: first run"
events 20000 1 200 0 > "$S/in/2.jsonl"; events 11 200 100 0 > "$S/gone/2.jsonl"
drun "$S" > "$TMP/s2.json" || fail "EXCEPT: second run"
check_incremental EXCEPT "$TMP/s1.json" "$TMP/s2.json"
events 30000 1 10 0 > "$S/in/3.jsonl"
drun "$S" > /dev/null || fail "EXCEPT: third run"
cp "$S"/in/*.jsonl "$SR/in/"; cp "$S"/gone/*.jsonl "$SR/gone/"
drun "$SR" > /dev/null || fail "EXCEPT: reference run"
[ "$(srows "$SR/out/db.sqlite" | wc -l)" -eq 19110 ] || fail "the EXCEPT reference has $(srows "$SR/out/db.sqlite" | wc -l) rows"
cmp -s <(srows "$S/out/db.sqlite") <(srows "$SR/out/db.sqlite") || fail "the state restored from incremental EXCEPT checkpoints differs"
# TopN: the two largest v of each of 20000 keys; then 1% of the keys get a new row and
# 1% are new
tproject() {  # tproject DIR
  mkdir -p "$1/sources" "$1/models" "$1/in"
  echo "name: tinc" > "$1/weir.yml"
  cat > "$1/sources/ev.yml" <<'YAML'
sources:
  ev: {connector: file, path: in, format: json, columns: {k: bigint, v: bigint, name: text}}
YAML
  echo "SELECT k, v, name, rn FROM (SELECT k, v, name, row_number() OVER (PARTITION BY k ORDER BY v DESC) AS rn FROM source('ev')) t WHERE rn <= 2" > "$1/models/top.sql"
  cat > "$1/models/models.yml" <<'YAML'
models:
  top: {materialized: table, key: [k, rn], sink: {connector: sqlite, path: out/db.sqlite, table: top_rows}}
YAML
}
trows() { python3 -c "
import sqlite3, sys
for r in sqlite3.connect(sys.argv[1]).execute('SELECT k, rn, v, name FROM top_rows ORDER BY k, rn'): print(*r)" "$1"; }
T=$TMP/t; TR=$TMP/tr
tproject "$T"; tproject "$TR"
{ events 0 1 20000 0; events 0 1 20000 5; } > "$T/in/1.jsonl"
drun "$T" > "$TMP/t1.json" || fail "TopN: first run"
{ events 20000 1 200 0; events 5 100 200 9; } > "$T/in/2.jsonl"
drun "$T" > "$TMP/t2.json" || fail "TopN: second run"
check_incremental TopN "$TMP/t1.json" "$TMP/t2.json"
events 7 1000 20 3 > "$T/in/3.jsonl"
drun "$T" > /dev/null || fail "TopN: third run"
cp "$T"/in/*.jsonl "$TR/in/"
drun "$TR" > /dev/null || fail "TopN: reference run"
[ "$(trows "$TR/out/db.sqlite" | wc -l)" -eq 40200 ] || fail "the TopN reference has $(trows "$TR/out/db.sqlite" | wc -l) rows"
cmp -s <(trows "$T/out/db.sqlite") <(trows "$TR/out/db.sqlite") || fail "the state restored from incremental TopN checkpoints differs"
# OVER: a running sum per key over 20000 keys; then rows for 1% of the keys
tsevents() {  # tsevents FIRST STEP COUNT T0: events with ts = T0 + j seconds
  python3 -c "
import datetime
t0 = datetime.datetime(2026, 1, 1) + datetime.timedelta(seconds=$4)
for j in range($3):
    i = $1 + j * $2
    print('{\"k\":%d,\"v\":%d,\"ts\":\"%s\"}' % (i, (i * 7) % 1000, (t0 + datetime.timedelta(seconds=j)).isoformat(' ')))"
}
oproject() {  # oproject DIR
  mkdir -p "$1/sources" "$1/models" "$1/in"
  echo "name: oinc" > "$1/weir.yml"
  cat > "$1/sources/ev.yml" <<'YAML'
sources:
  ev: {connector: file, path: in, format: json, columns: {k: bigint, v: bigint, ts: timestamp}, event_time: ts}
YAML
  echo "SELECT k, ts, sum(v) OVER (PARTITION BY k ORDER BY ts) AS running FROM source('ev')" > "$1/models/run.sql"
  cat > "$1/models/models.yml" <<'YAML'
models:
  run: {materialized: append, sink: {connector: file, path: out/run.jsonl, format: json}}
YAML
}
O=$TMP/o; OR=$TMP/or
oproject "$O"; oproject "$OR"
tsevents 0 1 20000 0 > "$O/in/1.jsonl"
drun "$O" > "$TMP/o1.json" || fail "OVER: first run"
tsevents 3 100 200 20000 > "$O/in/2.jsonl"
drun "$O" > "$TMP/o2.json" || fail "OVER: second run"
check_incremental OVER "$TMP/o1.json" "$TMP/o2.json"
tsevents 5 100 200 30000 > "$O/in/3.jsonl"
drun "$O" > /dev/null || fail "OVER: third run"
cp "$O"/in/*.jsonl "$OR/in/"
drun "$OR" > /dev/null || fail "OVER: reference run"
[ "$(wc -l < "$OR/out/run.jsonl")" -ge 20000 ] || fail "the OVER reference has $(wc -l < "$OR/out/run.jsonl") rows"
cmp -s <(sort "$O/out/run.jsonl") <(sort "$OR/out/run.jsonl") || fail "the state restored from incremental OVER checkpoints differs"
# TUMBLE: 20000 keys in one open day-long window; then rows for 1% of the keys
wproject() {  # wproject DIR
  oproject "$1"
  echo "SELECT k, window_start, count(*) AS n, sum(v) AS s FROM TABLE(TUMBLE(TABLE source('ev'), DESCRIPTOR(ts), INTERVAL '1' DAY)) GROUP BY k, window_start, window_end" > "$1/models/run.sql"
}
W=$TMP/w; WR=$TMP/wr
wproject "$W"; wproject "$WR"
tsevents 0 1 20000 0 > "$W/in/1.jsonl"
drun "$W" > "$TMP/w1.json" || fail "TUMBLE: first run"
tsevents 3 100 200 20000 > "$W/in/2.jsonl"
drun "$W" > "$TMP/w2.json" || fail "TUMBLE: second run"
check_incremental TUMBLE "$TMP/w1.json" "$TMP/w2.json"
# the next day's rows close the first window
tsevents 5 100 200 90000 > "$W/in/3.jsonl"; tsevents 0 1 10 200000 > "$W/in/4.jsonl"
drun "$W" > /dev/null || fail "TUMBLE: third run"
cp "$W"/in/*.jsonl "$WR/in/"
drun "$WR" > /dev/null || fail "TUMBLE: reference run"
[ "$(wc -l < "$WR/out/run.jsonl")" -ge 20000 ] || fail "the TUMBLE reference has $(wc -l < "$WR/out/run.jsonl") rows"
cmp -s <(sort "$W/out/run.jsonl") <(sort "$WR/out/run.jsonl") || fail "the state restored from incremental TUMBLE checkpoints differs"
# SESSION: 20000 keys with open sessions (gap 1 day); then rows for 1% of the keys
sesproject() {  # sesproject DIR
  oproject "$1"
  echo "SELECT k, window_start, window_end, count(*) AS n, sum(v) AS s FROM SESSION(source('ev'), ts, INTERVAL '1' DAY) GROUP BY k, window_start, window_end" > "$1/models/run.sql"
}
X=$TMP/x; XR=$TMP/xr
sesproject "$X"; sesproject "$XR"
tsevents 0 1 20000 0 > "$X/in/1.jsonl"
drun "$X" > "$TMP/x1.json" || fail "SESSION: first run"
tsevents 3 100 200 20000 > "$X/in/2.jsonl"
drun "$X" > "$TMP/x2.json" || fail "SESSION: second run"
check_incremental SESSION "$TMP/x1.json" "$TMP/x2.json"
tsevents 5 100 200 24000 > "$X/in/3.jsonl"; tsevents 0 1 10 300000 > "$X/in/4.jsonl"
drun "$X" > /dev/null || fail "SESSION: third run"
cp "$X"/in/*.jsonl "$XR/in/"
drun "$XR" > /dev/null || fail "SESSION: reference run"
[ "$(wc -l < "$XR/out/run.jsonl")" -ge 20000 ] || fail "the SESSION reference has $(wc -l < "$XR/out/run.jsonl") rows"
cmp -s <(sort "$X/out/run.jsonl") <(sort "$XR/out/run.jsonl") || fail "the state restored from incremental SESSION checkpoints differs"
echo "7 passed, 0 failed"
