#!/usr/bin/env bash
# The randomized kill test of durable runs (build/kafka-mock on 127.0.0.1, started and
# stopped here). Per seed: a generated input over a 4-partition topic (partition 2
# delivers at the start, is idle for most of the run and delivers again at the end;
# partition 3 never delivers), with out-of-order rows, rows minutes late and malformed
# records; a project with a TUMBLE window into a file, an aggregate into SQLite and a
# filter into a Kafka topic. A producer writes the input chunk by chunk while runs
# (random batch sizes and checkpoint intervals) are stopped at random moments: SIGKILL
# after a random delay or right after new output, SIGTERM, and the runtime's fault
# points (WEIR_CRASH_AT, docs/run.md): SIGKILL or SIGTERM in the middle of a delivery,
# SIGKILL before and right after a checkpoint's commit. A last run reads the rest.
# Then every sink and dead-letter file must equal one uninterrupted run over the same
# input, and both must agree with an oracle computed from the generated rows (a
# window's count plus its late rows is its rows; which rows are late follows from each
# partition's own rows).
#
# KILL_SEEDS (default "1 2") lists the seeds; KILL_ROUNDS (default 10) the stops per
# seed. A failing seed is reproduced with KILL_SEEDS=<seed> (the input and the schedule
# of stops come from it; where a delay lands in the run does not change the result).
# Random delays only choose when a signal comes; every wait for an outcome polls with
# a deadline.
source "$(dirname "$0")/lib.sh"
set +e
SEEDS=${KILL_SEEDS:-1 2}
ROUNDS=${KILL_ROUNDS:-10}
passed=0
failed=0
topics=""
for s in $SEEDS; do topics="$topics in$s:4 ref$s:4 out$s:2 refout$s:2"; done
eval "$(BUILD=$BUILD "$ROOT/scripts/kafka-start" $topics)" || { echo "0 passed, 1 failed"; exit 1; }
trap '[ -n "${PRODUCER:-}" ] && kill $PRODUCER 2>/dev/null; "$ROOT/scripts/kafka-stop"; rm -rf "$TMP"' EXIT
B=$KAFKA_BOOTSTRAP
export KAFKA_BOOTSTRAP

# project DIR TOPIC OUT
project() {
  mkdir -p "$1/sources" "$1/models"
  cat > "$1/weir.yml" <<'EOF'
name: kill
default_target: dev
targets:
  dev: {runtime: native, kafka: {bootstrap_servers: "${ENV:KAFKA_BOOTSTRAP}"}}
EOF
  cat > "$1/sources/ev.yml" <<EOF
sources:
  ev:
    connector: kafka
    topic: $2
    format: json
    columns: {id: bigint, k: bigint, v: bigint, ts: timestamp}
    event_time: ts
    watermark_delay: 5s
EOF
  echo "SELECT window_start, k, count(*) AS n, sum(v) AS s FROM TUMBLE(source('ev'), ts, INTERVAL '1' MINUTE) GROUP BY window_start, window_end, k" \
    > "$1/models/win.sql"
  echo "SELECT k, count(*) AS n, sum(v) AS s FROM source('ev') GROUP BY k" > "$1/models/agg.sql"
  echo "SELECT id, k, v FROM source('ev') WHERE v % 5 = 0" > "$1/models/sel.sql"
  cat > "$1/models/models.yml" <<EOF
models:
  win: {materialized: append, sink: {connector: file, path: out/win.jsonl, format: json}}
  agg: {materialized: upsert, key: [k], sink: {connector: sqlite, path: out/db.sqlite, table: agg}}
  sel: {materialized: append, sink: {connector: kafka, topic: $3, format: json}}
EOF
}

# the input of seed $1 in $2: chunk<i>.p<j> (lines for partition j), rows.json (every
# row with its partition, for the oracle), and the schedule of stops (schedule.txt)
generate() {
  python3 - "$1" "$2" "$ROUNDS" <<'PY'
import datetime, json, random, sys
seed, d, rounds = int(sys.argv[1]), sys.argv[2], int(sys.argv[3])
rnd = random.Random(seed)
base = datetime.datetime(2026, 3, 1, 8, 0, 0)
N = 1400                      # events per busy partition, about one per second
nchunks = rounds + 1          # one before the first run, one during each
rows = []                     # (partition, position, text or None for malformed)
def emit(p, t, i):
    if rnd.random() < 0.005:
        rows.append((p, "not json %d" % i, None))
        return
    ts = (base + datetime.timedelta(seconds=t)).strftime('%Y-%m-%d %H:%M:%S.%f')[:-3]
    r = {"id": p * 100000 + i, "k": rnd.randrange(4), "v": rnd.randrange(100), "ts": ts}
    rows.append((p, json.dumps(r), r))
chunks = [[] for _ in range(nchunks)]
for p in (0, 1):
    for i in range(N):
        t = i + rnd.uniform(0, 3)
        if rnd.random() < 0.03:
            t -= rnd.uniform(90, 240)
        emit(p, max(t, 0), i)
        chunks[min(i * nchunks // N, nchunks - 1)].append(rows[-1])
# partition 2: the first 5% of the time in chunk 0, then nothing until the last chunk
# brings the rest (the watermark waits for it meanwhile)
for i in range(N):
    if N // 20 <= i < N // 20 + 10 or (N // 20 < i and i % 3):
        continue
    t = i + rnd.uniform(0, 3)
    emit(2, t, i)
    chunks[0 if i < N // 20 else nchunks - 1].append(rows[-1])
for c, rs in enumerate(chunks):
    for p in (0, 1, 2):
        with open(f"{d}/chunk{c}.p{p}", "w") as f:
            for q, text, _ in rs:
                if q == p:
                    f.write(text + "\n")
json.dump([(p, r) for p, _, r in rows if r], open(f"{d}/rows.json", "w"))
modes = ["kill_delay", "kill_output", "fault_delivery", "fault_delivery_term", "fault_commit", "fault_committed",
         "term_delay"]
with open(f"{d}/schedule.txt", "w") as f:
    for r in range(rounds):
        mode = modes[r % len(modes)] if r < len(modes) else rnd.choice(modes)
        f.write("%s %d %d %.3f %d\n" % (mode, rnd.choice([1, 7, 97, 4096]), rnd.choice([10, 20, 50, 200]),
                                        rnd.uniform(0.05, 1.5), rnd.randint(1, 4)))
PY
}

# produce DIR TOPIC FIRST LAST [RATE]: writes chunks FIRST..LAST, the partitions
# interleaved, at RATE lines per second (default: at once)
produce() {
  python3 - "$B" "$@" <<'PY'
import subprocess, sys, time
boot, d, topic, first, last = sys.argv[1:6]
rate = float(sys.argv[6]) if len(sys.argv) > 6 else 0
parts = {}
for p in (0, 1, 2):
    lines = [l for c in range(int(first), int(last) + 1) for l in open(f"{d}/chunk{c}.p{p}").read().splitlines(True)]
    if lines:
        parts[p] = (lines, subprocess.Popen(["kcat", "-P", "-b", boot, "-t", topic, "-p", str(p)],
                                            stdin=subprocess.PIPE, text=True))
i = 0
while any(i < len(l) for l, _ in parts.values()):
    for lines, proc in parts.values():
        if i < len(lines):
            proc.stdin.write(lines[i])
            if rate:
                proc.stdin.flush()
    i += 1
    if rate:
        time.sleep(1 / rate)
ok = True
for _, proc in parts.values():
    proc.stdin.close()
    ok = proc.wait() == 0 and ok
sys.exit(0 if ok else 1)
PY
}

# outsize DIR: bytes of the run's outputs (grows with every delivery)
outsize() { du -cb "$1/out" "$1/target" 2>/dev/null | tail -n 1 | cut -f1; }

# wait_exit PID SECONDS: polls until the process is gone; false on the deadline
wait_exit() {
  local deadline=$((SECONDS + $2))
  while kill -0 "$1" 2>/dev/null; do
    [ $SECONDS -ge $deadline ] && return 1
    sleep 0.02
  done
}

# same REF RUN REFTOPIC RUNTOPIC: sinks and dead letters of RUN equal REF's
same() {
  python3 - "$1" "$2" <<'PY' || return 1
import glob, json, os, sys
a, b = sys.argv[1:3]
def lines(f):
    if not os.path.exists(f):
        return []
    out = []
    for l in open(f):
        x = json.loads(l)
        x.pop("topic", None)
        out.append(json.dumps(x, sort_keys=True))
    return sorted(out)
names = {os.path.relpath(f, a) for f in glob.glob(f"{a}/target/dead_letter/*.jsonl") + glob.glob(f"{b}/target/dead_letter/*.jsonl")}
names.add("out/win.jsonl")
bad = [n for n in sorted(names) if lines(f"{a}/{n}") != lines(f"{b}/{n}")]
assert not bad, "differ: %s" % ", ".join("%s (%d lines, one run %d)" % (n, len(lines(f"{b}/{n}")), len(lines(f"{a}/{n}"))) for n in bad)
PY
  [ "$(sqlite3 "$1/out/db.sqlite" 'SELECT * FROM agg ORDER BY k')" = "$(sqlite3 "$2/out/db.sqlite" 'SELECT * FROM agg ORDER BY k')" ] \
    || { echo "table agg differs"; return 1; }
  # the local cluster keeps the messages of transactions a killed run left open visible
  # (a real broker hides them): compare as sets
  [ "$(kcat -C -b "$B" -t "$3" -e -q -X isolation.level=read_committed | sort -u | md5sum)" = \
    "$(kcat -C -b "$B" -t "$4" -e -q -X isolation.level=read_committed | sort -u | md5sum)" ] \
    || { echo "topic $4 differs from $3"; return 1; }
}

# oracle DIR ROWS: the windows and late rows that follow from the rows themselves
oracle() {
  python3 - "$1" "$2" <<'PY'
import datetime, json, sys
d, rows = sys.argv[1], json.load(open(sys.argv[2]))
US = 1000000
def us(ts):
    return int((datetime.datetime.strptime(ts, '%Y-%m-%d %H:%M:%S.%f') - datetime.datetime(1970, 1, 1)).total_seconds() * US)
delay, size = 5 * US, 60 * US
seen, late, count, total = {}, {}, {}, {}
for p, r in rows:
    t = us(r["ts"])
    start = t // size * size
    key = (start, r["k"])
    total[key] = total.get(key, 0) + 1
    front = seen.get(p, None)
    if front is not None and start + size <= front - delay:
        late[key] = late.get(key, 0) + 1
    else:
        n, v = count.get(key, (0, 0))
        count[key] = (n + 1, v + r["v"])
    seen[p] = max(seen.get(p, t), t)
wm = min(seen[p] for p in (0, 1, 2)) - delay          # partition 3 is idle and empty
fmt = lambda s: datetime.datetime.utcfromtimestamp(s / US).strftime('%Y-%m-%d %H:%M:%S')
expect = sorted((fmt(s), k, n, v) for (s, k), (n, v) in count.items() if s + size <= wm)
got = sorted((x["window_start"], x["k"], x["n"], int(x["s"])) for x in map(json.loads, open(f"{d}/out/win.jsonl")))
assert got == expect, ("windows", len(got), len(expect), sorted(set(got) ^ set(expect))[:5])
dl = {}
for x in map(json.loads, open(f"{d}/target/dead_letter/win.jsonl")):
    assert x["reason"] == "late", x
    key = (us(x["row"]["window_start"] + ".000"), x["row"]["k"])
    dl[key] = dl.get(key, 0) + 1
assert dl == late, ("late rows", sum(dl.values()), sum(late.values()))
for key, n in total.items():
    assert count.get(key, (0, 0))[0] + late.get(key, 0) == n, key
assert sum(late.values()) > 10 and len(expect) > 50, (sum(late.values()), len(expect))
PY
}

run_seed() {
  local s=$1 D=$TMP/seed$s R=$TMP/ref$s P=$TMP/run$s mode batch iv delay nth pid rc round=0 next=1 n t0
  mkdir -p "$D"
  generate "$s" "$D" || return 1
  # one uninterrupted run over everything
  project "$R" ref$s refout$s
  produce "$D" ref$s 0 "$ROUNDS" || return 1
  "$WEIR" --project-dir "$R" run --until-caught-up --no-progress > "$D/ref.txt" 2>&1 || { cat "$D/ref.txt"; return 1; }
  oracle "$R" "$D/rows.json" || { echo "the uninterrupted run disagrees with the oracle"; return 1; }
  # the same input, written while runs are stopped again and again
  project "$P" in$s out$s
  produce "$D" in$s 0 0 || return 1
  while read -r mode batch iv delay nth; do
    round=$((round + 1))
    PRODUCER=
    if [ $next -le "$ROUNDS" ]; then produce "$D" in$s $next $next 500 & PRODUCER=$!; next=$((next + 1)); fi
    fault=
    case $mode in
      fault_delivery) fault=delivery:$nth ;;
      fault_delivery_term) fault=delivery:$nth:TERM ;;
      fault_commit) fault=checkpoint-commit:$nth ;;
      fault_committed) fault=checkpoint-committed:$nth ;;
    esac
    n=$(outsize "$P")
    t0=$SECONDS
    WEIR_CRASH_AT=$fault "$WEIR" --project-dir "$P" run --no-progress --batch-size "$batch" \
      --checkpoint-interval "${iv}ms" >> "$D/runs.txt" 2>&1 &
    pid=$!
    case $mode in
      kill_delay) sleep "$delay"; kill -9 $pid 2>/dev/null ;;
      term_delay)
        # the delay counts from the moment the run holds its state directory (its SIGTERM
        # handler is in place before; a signal during start-up ends it by the default action)
        local deadline=$((SECONDS + 120))
        until holds_flock $pid "$P/.weir/dev/run.lock" || ! kill -0 $pid 2>/dev/null || [ $SECONDS -ge $deadline ]; do
          sleep 0.01
        done
        sleep "$delay"; kill -TERM $pid 2>/dev/null ;;
      kill_output)
        local deadline=$((SECONDS + 10))
        until [ "$(outsize "$P")" -gt "$n" ] || [ $SECONDS -ge $deadline ]; do sleep 0.01; done
        kill -9 $pid 2>/dev/null ;;
    esac
    # a fault point stops the run by itself; one that is not reached (no new input)
    # leaves the run to a SIGKILL
    wait_exit $pid 15 || kill -9 $pid
    wait $pid; rc=$?
    echo "round $round: $mode batch $batch interval ${iv}ms: exit $rc after $((SECONDS - t0))s" >> "$D/runs.txt"
    case $mode in
      fault_delivery_term|term_delay) [ $rc -eq 0 ] || { echo "round $round ($mode): exit $rc after SIGTERM"; tail -5 "$D/runs.txt"; return 1; } ;;
      *) [ $rc -eq 0 ] || [ $rc -eq 137 ] || { echo "round $round ($mode): exit $rc"; tail -5 "$D/runs.txt"; return 1; } ;;
    esac
    [ -n "$PRODUCER" ] && { wait $PRODUCER || return 1; }
  done < "$D/schedule.txt"
  PRODUCER=
  if [ $next -le "$ROUNDS" ]; then produce "$D" in$s $next "$ROUNDS" || return 1; fi
  "$WEIR" --project-dir "$P" run --until-caught-up --no-progress > "$D/last.txt" 2>&1 || { cat "$D/last.txt"; return 1; }
  same "$R" "$P" refout$s out$s || return 1
  oracle "$P" "$D/rows.json" || return 1
  # KILL_VERBOSE=1: the schedule and what every run said
  [ -z "${KILL_VERBOSE:-}" ] || cat "$D/schedule.txt" "$D/runs.txt"
}

for s in $SEEDS; do
  if out=$(run_seed "$s" 2>&1); then passed=$((passed + 1)); [ -z "${KILL_VERBOSE:-}" ] || echo "$out"; else
    failed=$((failed + 1)); echo "FAIL: seed $s (reproduce: KILL_SEEDS=$s bash $0)" >&2
    echo "$out" | sed 's/^/    /' | tail -40 >&2
  fi
done
echo "$passed passed, $failed failed"
[ $failed -eq 0 ]
