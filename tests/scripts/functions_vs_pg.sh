#!/usr/bin/env bash
# The scalar functions (strings, math, date/time, to_char/to_timestamp, regular
# expressions) through `weir run` against PostgreSQL over the same rows, value by value
# as text, and their runtime errors against PostgreSQL's (tests/scripts/functions_vs_pg.py).
# Starts a throwaway PostgreSQL and always stops it.
source "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null || fail "python3 not found (scripts/install-deps)"
[ -x "$WEIR" ] || fail "$WEIR is not built"
start_pg
python3 "$ROOT/tests/scripts/functions_vs_pg.py" --weir "$WEIR" --tmp "$TMP"
