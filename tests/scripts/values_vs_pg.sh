#!/usr/bin/env bash
# Reading values follows PostgreSQL's input rules for every column type: JSON strings,
# JSON numbers and other JSON values, and CSV fields through `weir run`, against what a
# real PostgreSQL reads from the same text (tests/scripts/values_vs_pg.py). Starts a
# throwaway PostgreSQL and always stops it.
source "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null || fail "python3 not found (scripts/install-deps)"
[ -x "$WEIR" ] || fail "$WEIR is not built"
start_pg
python3 "$ROOT/tests/scripts/values_vs_pg.py" --weir "$WEIR" --tmp "$TMP"
