#!/usr/bin/env bash
# Nexmark correctness: every model of bench/nexmark (q0..q22 in weir's dialect) runs
# through `weir run` over small deterministic nexmark_gen inputs, and its final state (the
# replayed changelog) must equal PostgreSQL's result of bench/nexmark/pg/<model>.sql
# over the same rows (bench/nexmark/pgcheck.py). One line per query, then
# "N passed, N failed". Starts a throwaway PostgreSQL and always stops it.
# NEXMARK_SELECT=q5,q7 runs some models only; NEXMARK_DATASETS='SEED,EVENTS,RATE,BASE;...'
# replaces the default inputs (e.g. '7,20000,50,2015-07-15 00:00:00').
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$(pwd)
BUILD=${BUILD:-build}
WEIR=${WEIR:-$ROOT/$BUILD/weir}
if [ ! -x "$WEIR" ]; then
  echo "nexmark: $WEIR is not built" >&2
  exit 1
fi
TMP=$(mktemp -d /tmp/weir-nexmark.XXXXXX)
cleanup() { scripts/pg-stop; rm -rf "$TMP"; }
trap cleanup EXIT

# The generator is one C file; `make test` does not build it, so build a private copy
# unless this build has one that is up to date.
GEN=$ROOT/$BUILD/nexmark_gen
if [ ! -x "$GEN" ] || [ bench/nexmark_gen.c -nt "$GEN" ]; then
  GEN=$TMP/nexmark_gen
  ${CC:-cc} -O2 -std=c11 -Wall -Wextra -Werror bench/nexmark_gen.c -o "$GEN"
fi

# pg-start picks a random port; another test's server may hold it, so try again
PGENV=
for attempt in 1 2 3; do
  PGENV=$(scripts/pg-start) && break
  PGENV=
done
[ -n "$PGENV" ] || { echo "nexmark: could not start PostgreSQL" >&2; exit 1; }
eval "$PGENV"

args=(--weir "$WEIR" --gen "$GEN" --tmp "$TMP" --project "$ROOT/bench/nexmark")
[ -n "${NEXMARK_SELECT:-}" ] && args+=(--select "$NEXMARK_SELECT")
if [ -n "${NEXMARK_DATASETS:-}" ]; then
  IFS=';' read -r -a sets <<<"$NEXMARK_DATASETS"
  for d in "${sets[@]}"; do args+=(--dataset "$d"); done
fi
python3 bench/nexmark/pgcheck.py "${args[@]}"
