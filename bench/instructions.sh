#!/usr/bin/env bash
# Instructions executed by two weir binaries on the same Nexmark queries (valgrind's
# callgrind, user space): a measure of a change's cost that does not move with the
# machine's load, unlike events/s on a shared VM.
#   bench/instructions.sh OLD_WEIR NEW_WEIR [QUERY...]     (default: q0 q5 q7 q8 q11 q12_eventtime)
# BENCH_EVENTS (default 300000) sets the generated input; one run per binary and query.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
OLD=$1 NEW=$2
shift 2
QUERIES=${*:-q0 q5 q7 q8 q11 q12_eventtime}
EVENTS=${BENCH_EVENTS:-300000}
DIR=${BENCH_DIR:-/tmp/weir-bench-instr}
mkdir -p "$DIR"
if [ ! -f "$DIR/bid.jsonl" ] || [ "$(cat "$DIR/events" 2>/dev/null)" != "$EVENTS" ]; then
  build/nexmark_gen --events "$EVENTS" --out-dir "$DIR" > /dev/null
  echo "$EVENTS" > "$DIR/events"
fi
NP=$DIR/project
rm -rf "$NP" && mkdir -p "$NP/data"
cp -r bench/nexmark/weir.yml bench/nexmark/sources bench/nexmark/models "$NP/"
for f in person auction bid; do ln -s "$DIR/$f.jsonl" "$NP/data/$f.jsonl"; done
cp bench/nexmark/data/side_input.jsonl "$NP/data/"
instr() {
  valgrind --tool=callgrind --callgrind-out-file=/dev/null "$1" --project-dir "$NP" --select "$2" run --no-progress \
    2>&1 >/dev/null | sed -n 's/.*Collected : \([0-9]*\).*/\1/p'
}
printf '%-14s %16s %16s %8s\n' query "old" "new" change
for q in $QUERIES; do
  a=$(instr "$OLD" "$q")
  b=$(instr "$NEW" "$q")
  python3 -c 'import sys; q, a, b = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]); print(f"{q:<14} {a:>16,} {b:>16,} {(b - a) * 100 / a:>+7.2f}%")' "$q" "$a" "$b"
done
