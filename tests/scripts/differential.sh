#!/usr/bin/env bash
# Differential correctness check: weir's incremental results against PostgreSQL's batch
# results for a fixed set of random sources, event streams and queries
# (tests/differential/difftest.py; both `weir run` and `weir test` are checked per seed).
# The family of a seed is seed % 20 (tests/differential/README.md), so the sets below
# cover classic single-source queries, joins, subqueries, event-time windows, interval
# joins, TopN, set operations and running aggregates in fixed proportions.
# Starts a throwaway PostgreSQL and always stops it. Sized to finish within 5 minutes on
# 2 cores with the ASan build (about 4.5 minutes when nothing fails, the subq and
# strings sets about a minute of it; a failure adds up to 30 s of minimising). DIFFTEST_SEEDS / DIFFTEST_SQLEXT_SEEDS / DIFFTEST_SUBQ_SEEDS / DIFFTEST_STRINGS_SEEDS / DIFFTEST_BIG_SEEDS override
# the sets.
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
# processes it one row per step (with watermark steps for event time).
python3 tests/differential/difftest.py --seeds "${DIFFTEST_SEEDS:-1-1200}" --workers 1 \
  --max-shrink 1 --shrink-time 30 || status=1
# The seeds above run with one worker (today's single thread, on any machine); a subset
# of them, every family, runs again with two (weir run --workers 2; docs/run.md,
# "Workers"), and the longer streams with three.
python3 tests/differential/difftest.py --seeds "${DIFFTEST_WORKER_SEEDS:-1-200}" --workers 2 --mode run \
  --max-shrink 1 --shrink-time 30 || status=1
# SQL forms outside the family cycle (tests/differential/families_sql.py): comma joins of
# 3-8 sources, correlated subqueries (scalar, EXISTS, ANY/ALL, in grouped queries),
# variance/stddev. DIFFTEST_SQLEXT_SEEDS overrides the set.
python3 tests/differential/difftest.py --seeds "${DIFFTEST_SQLEXT_SEEDS:-20001-20090}" \
  --max-shrink 1 --shrink-time 30 || status=1
# Subquery expressions with DISTINCT, GROUP BY, HAVING, ORDER BY ... LIMIT bodies,
# uncorrelated non-aggregate and boolean scalar subqueries, subqueries in VALUES (the
# sqlext `subq` shape, seeds 22000-22999). DIFFTEST_SUBQ_SEEDS overrides the set.
python3 tests/differential/difftest.py --seeds "${DIFFTEST_SUBQ_SEEDS:-22001-22150}" \
  --max-shrink 1 --shrink-time 30 || status=1
# string_agg OVER an event-time order, string_agg(DISTINCT x, delimiter per row) with
# every ORDER BY and NULLS placement (the sqlext `strings` shape, seeds 23000-23999).
python3 tests/differential/difftest.py --seeds "${DIFFTEST_STRINGS_SEEDS:-23000-23099}" \
  --max-shrink 1 --shrink-time 30 || status=1
# Longer streams: `weir run` crosses batch boundaries (4096 records per source and step),
# so watermarks move between batches and windows close mid-run.
python3 tests/differential/difftest.py --seeds "${DIFFTEST_BIG_SEEDS:-9001-9024}" --rows 10000 \
  --no-shrink --workers 3 || status=1
exit $status
