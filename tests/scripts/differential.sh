#!/usr/bin/env bash
# Differential correctness check: weir's incremental results against PostgreSQL's batch
# results for a fixed set of random schemas, event streams and queries
# (tests/differential/difftest.py). Starts a throwaway PostgreSQL and always stops it.
# Sized to finish in about 3 minutes on 2 cores with the ASan build; DIFFTEST_SEEDS and
# DIFFTEST_ROWS override the seed set and stream length.
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$(pwd)
BUILD=${BUILD:-build}
export WEIR=${WEIR:-$ROOT/$BUILD/weir}
if [ ! -x "$WEIR" ]; then
  echo "differential: $WEIR is not built" >&2
  exit 1
fi
eval "$(scripts/pg-start)"
trap 'scripts/pg-stop' EXIT
python3 tests/differential/difftest.py \
  --seeds "${DIFFTEST_SEEDS:-1-100}" --rows "${DIFFTEST_ROWS:-300}" \
  --max-shrink 1 --shrink-time 30
