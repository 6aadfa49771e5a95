#!/usr/bin/env bash
# The scalar functions (strings, math, date/time, to_char/to_timestamp, regular
# expressions) through `weir run` against PostgreSQL over the same rows, value by value
# as text, and their runtime errors against PostgreSQL's (tests/scripts/functions_vs_pg.py).
# Starts a throwaway PostgreSQL and always stops it.
source "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null || fail "python3 not found (scripts/install-deps)"
[ -x "$WEIR" ] || fail "$WEIR is not built"
# pg-start picks a random port; another test's server may hold it, so try again
PGENV=
for attempt in 1 2 3; do
  PGENV=$("$ROOT/scripts/pg-start") && break
  PGENV=
done
[ -n "$PGENV" ] || fail "could not start PostgreSQL"
eval "$PGENV"
trap '"$ROOT/scripts/pg-stop"; rm -rf "$TMP"' EXIT
python3 "$ROOT/tests/scripts/functions_vs_pg.py" --weir "$WEIR" --tmp "$TMP"
