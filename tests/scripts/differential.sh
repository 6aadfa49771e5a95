#!/usr/bin/env bash
# Differential correctness check: weir's incremental results against PostgreSQL's batch
# results for a fixed set of random schemas, event streams and queries
# (tests/differential/difftest.py; both `weir run` and `weir test` are checked per seed).
# Starts a throwaway PostgreSQL and always stops it. Sized to finish well within 3
# minutes on 2 cores with the ASan build (about 1 minute when nothing fails; a failure
# adds up to 30 s of minimising). DIFFTEST_SEEDS / DIFFTEST_BIG_SEEDS override the sets.
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$(pwd)
BUILD=${BUILD:-build}
export WEIR=${WEIR:-$ROOT/$BUILD/weir}
if [ ! -x "$WEIR" ]; then
  echo "differential: $WEIR is not built" >&2
  exit 1
fi
command -v python3 >/dev/null || { echo "differential: python3 not found (scripts/install-deps)" >&2; exit 1; }
eval "$(scripts/pg-start)"
trap 'scripts/pg-stop' EXIT
status=0
# 300 events per seed: every seed's stream fits in one batch of `weir run`; `weir test`
# processes it one row per step.
python3 tests/differential/difftest.py --seeds "${DIFFTEST_SEEDS:-1-600}" \
  --max-shrink 1 --shrink-time 30 || status=1
# Longer streams, so that `weir run` also crosses batch boundaries (4096 records).
python3 tests/differential/difftest.py --seeds "${DIFFTEST_BIG_SEEDS:-9001-9016}" --rows 5000 \
  --no-shrink || status=1
exit $status
