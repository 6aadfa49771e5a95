#!/usr/bin/env bash
# weir against ClickHouse on one aggregation: BENCH_AGG_EVENTS (default 1,000,000) JSON
# transactions over BENCH_AGG_ACCOUNTS (default 100,000) accounts (bench/agg_gen.py,
# fixed seed), COUNT(*), SUM(amount), MAX(amount), COUNT(DISTINCT merchant) per account.
#   weir:       `weir run` of a project generated into a temp dir, the model an upsert
#               keyed by account, once with a changelog-json file sink and once with a
#               SQLite sink;
#   ClickHouse: the Debian package's clickhouse-server (scripts/clickhouse-start: its
#               own config in a temp dir, 127.0.0.1), a Null table with an
#               AggregatingMergeTree materialized view (countState, sumState,
#               maxState, uniqExactState), the same file POSTed over HTTP as
#               JSONEachRow.
# Wall times are whole processes (weir: load, compile, run, teardown; ClickHouse: the
# INSERT's HTTP request), best of BENCH_REPEAT (default 3), next to the CPU time of the
# same run (weir's process; the ClickHouse server's, from /proc, during the INSERT),
# which a loaded machine disturbs less. Prints both, their ratio,
# weir's state bytes per group (the run summary's aggregate state / groups) and the
# number of lines the file sink wrote. Both results are checked against each other.
# BENCH_AGG_WORKERS=N runs weir with --workers N.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
BUILD=${BUILD:-build}
WEIR=${WEIR:-$ROOT/$BUILD/weir}  # WEIR=path/to/weir measures another build
EVENTS=${BENCH_AGG_EVENTS:-1000000}
ACCOUNTS=${BENCH_AGG_ACCOUNTS:-100000}
REPEAT=${BENCH_REPEAT:-3}
WORKERS=${BENCH_AGG_WORKERS:-}  # weir's --workers (default: the machine's cores)
DIR=${BENCH_DIR:-/tmp/weir-bench}/agg
mkdir -p "$DIR"
IN="$DIR/tx-$EVENTS-$ACCOUNTS.jsonl"
[ -f "$IN" ] || { echo "generating $EVENTS transactions over $ACCOUNTS accounts ..."; python3 bench/agg_gen.py "$EVENTS" "$ACCOUNTS" "$IN.tmp"; mv "$IN.tmp" "$IN"; }
TMP=$(mktemp -d /tmp/weir-agg.XXXXXX)
CH_STARTED=""
cleanup() { [ -n "$CH_STARTED" ] && "$ROOT/scripts/clickhouse-stop"; rm -rf "$TMP"; }
trap cleanup EXIT

# ---- weir ----
P="$TMP/project"
mkdir -p "$P/sources" "$P/models"
echo "name: aggbench" > "$P/weir.yml"
cat > "$P/sources/tx.yml" <<YAML
sources:
  bank.tx:
    connector: file
    path: $IN
    format: json
    columns:
      account_id: bigint
      merchant: text
      amount: bigint
YAML
cat > "$P/models/per_account.sql" <<'SQL'
SELECT account_id, COUNT(*) AS n, SUM(amount) AS total, MAX(amount) AS max_amount,
       COUNT(DISTINCT merchant) AS merchants
FROM source('bank.tx')
GROUP BY account_id
SQL
sink_yml() {  # sink_yml CONNECTOR-YAML
  cat > "$P/models/schema.yml" <<YAML
models:
  per_account:
    materialized: upsert
    key: [account_id]
    sink: $1
YAML
}
now() { date +%s.%N; }
best_weir() {  # best_weir LABEL: best wall time of REPEAT runs; summary of the best in $TMP/LABEL.json,
  local best="" el cpu  # its CPU seconds (user + system) in $TMP/LABEL.cpu
  for _ in $(seq "$REPEAT"); do
    rm -rf "$P/target" "$P/out"
    /usr/bin/time -f "%e %U %S" -o "$TMP/time" "$WEIR" --project-dir "$P" run --no-progress --format json ${WORKERS:+--workers "$WORKERS"} > "$TMP/run.json"
    read -r el u sy < "$TMP/time"
    cpu=$(python3 -c "print(f'{$u + $sy:.3f}')")
    if [ -z "$best" ] || python3 -c "import sys; sys.exit(0 if $el < $best else 1)"; then
      best=$el; cp "$TMP/run.json" "$TMP/$1.json"; echo "$cpu" > "$TMP/$1.cpu"
      # the file sink's lines of this (the best) run
      [ -f "$P/out/per_account.jsonl" ] && wc -l < "$P/out/per_account.jsonl" > "$TMP/$1.lines"
    fi
  done
  echo "$best"
}
sink_yml '{connector: file, path: out/per_account.jsonl, format: changelog-json}'
W_FILE=$(best_weir file)
LINES=$(cat "$TMP/file.lines")
# the final state of the file sink: the last line of each key
python3 - "$P/out/per_account.jsonl" > "$TMP/weir.tsv" <<'PY'
import json, sys
rows = {}
for line in open(sys.argv[1]):
    c = json.loads(line)
    if c["op"] == "delete": rows.pop(c["account_id"], None)
    else: rows[c["account_id"]] = c
for k in sorted(rows):
    r = rows[k]
    print("%d\t%d\t%d\t%d\t%d" % (k, r["n"], r["total"], r["max_amount"], r["merchants"]))
PY
sink_yml '{connector: sqlite, path: out/bench.db, table: per_account}'
W_SQLITE=$(best_weir sqlite)
sqlite3 -separator $'\t' "$P/out/bench.db" \
  'SELECT account_id, n, total, max_amount, merchants FROM per_account ORDER BY account_id' > "$TMP/weir-sqlite.tsv"

# ---- ClickHouse ----
eval "$("$ROOT/scripts/clickhouse-start")"
CH_STARTED=1
CH=$WEIR_CLICKHOUSE_URL
chq() { curl -sS --fail-with-body "$CH/" --data-binary "$1"; }
CH_PID=$(cat "$WEIR_CH_DIR/pid")
ch_cpu() { awk '{print $14 + $15}' "/proc/$CH_PID/stat"; }  # the server's CPU ticks (user + system)
TICK=$(getconf CLK_TCK)
CH_BEST=""
for _ in $(seq "$REPEAT"); do
  chq "DROP TABLE IF EXISTS per_account" >/dev/null
  chq "DROP TABLE IF EXISTS tx" >/dev/null
  chq "CREATE TABLE tx (account_id UInt64, merchant String, amount Int64) ENGINE = Null" >/dev/null
  chq "CREATE MATERIALIZED VIEW per_account ENGINE = AggregatingMergeTree() ORDER BY account_id AS
       SELECT account_id, countState() AS n, sumState(amount) AS total, maxState(amount) AS max_amount,
              uniqExactState(merchant) AS merchants FROM tx GROUP BY account_id" >/dev/null
  c0=$(ch_cpu)
  t0=$(now)
  curl -sS --fail-with-body "$CH/?query=INSERT%20INTO%20tx%20FORMAT%20JSONEachRow" --data-binary "@$IN" >/dev/null
  t1=$(now)
  c1=$(ch_cpu)
  el=$(python3 -c "print(f'{$t1 - $t0:.3f}')")
  if [ -z "$CH_BEST" ] || python3 -c "import sys; sys.exit(0 if $el < $CH_BEST else 1)"; then
    CH_BEST=$el; CH_CPU=$(python3 -c "print(f'{($c1 - $c0) / $TICK:.3f}')")
  fi
done
chq "SELECT account_id, countMerge(n), sumMerge(total), maxMerge(max_amount), uniqExactMerge(merchants)
     FROM per_account GROUP BY account_id ORDER BY account_id FORMAT TabSeparated" > "$TMP/ch.tsv"
CH_VERSION=$(chq "SELECT version()")

same=yes
cmp -s "$TMP/weir.tsv" "$TMP/ch.tsv" || same="NO (file sink differs from ClickHouse)"
cmp -s "$TMP/weir-sqlite.tsv" "$TMP/ch.tsv" || same="NO (sqlite sink differs from ClickHouse)"

python3 - "$TMP/file.json" "$TMP/sqlite.json" "$W_FILE" "$W_SQLITE" "$CH_BEST" "$LINES" "$EVENTS" "$ACCOUNTS" \
  "$CH_VERSION" "$same" "$REPEAT" "$(cat "$TMP/file.cpu")" "$(cat "$TMP/sqlite.cpu")" "$CH_CPU" "$(cut -d' ' -f1 /proc/loadavg)" <<'PY'
import json, sys
fj, sj = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
w_file, w_sqlite, ch, lines = float(sys.argv[3]), float(sys.argv[4]), float(sys.argv[5]), int(sys.argv[6])
events, accounts, version, same, repeat = int(sys.argv[7]), int(sys.argv[8]), sys.argv[9], sys.argv[10], sys.argv[11]
c_file, c_sqlite, c_ch, load = float(sys.argv[12]), float(sys.argv[13]), float(sys.argv[14]), sys.argv[15]
agg = [s for s in fj["state"] if "aggregate" in s["id"]]
groups = sum(s["entries"] for s in agg)
nbytes = sum(s["bytes"] for s in agg)
print(f"input: {events:,} transactions over {accounts:,} accounts; best of {repeat} (load average {load}); "
      f"weir on {fj.get('workers', 1)} worker{'s' if fj.get('workers', 1) != 1 else ''}")
print(f"weir (file sink):     {w_file:6.3f} s wall, {c_file:6.3f} s CPU  (run {fj['elapsed_s']:.3f} s inside)  "
      f"ratio to ClickHouse {w_file / ch:.2f} wall, {c_file / c_ch:.2f} CPU")
print(f"weir (sqlite sink):   {w_sqlite:6.3f} s wall, {c_sqlite:6.3f} s CPU  (run {sj['elapsed_s']:.3f} s inside)  "
      f"ratio to ClickHouse {w_sqlite / ch:.2f} wall, {c_sqlite / c_ch:.2f} CPU")
print(f"ClickHouse {version}:  {ch:6.3f} s wall, {c_ch:6.3f} s CPU of the server (Null table + AggregatingMergeTree view, HTTP JSONEachRow)")
for s in agg:
    print(f"weir state {s['id']}: {s['entries']:,} groups, {s['bytes'] / 2**20:.1f} MiB")
print(f"weir state bytes per group: {nbytes / max(groups, 1):,.0f}")
m = fj["models"][0]
fl = f", {m['sink_flushes']} flush{'es' if m['sink_flushes'] != 1 else ''}" if "sink_flushes" in m else ""
print(f"file sink lines: {lines:,} ({lines / max(groups, 1):.2f} per key); steps {fj['steps']}{fl}")
print(f"results equal (weir file, weir sqlite, ClickHouse): {same}")
PY
