#!/usr/bin/env bash
# AT TIME ZONE over every zone of the installed time zone database against PostgreSQL
# (tests/scripts/time_zones_vs_pg.py): weir's own TZif reader and PostgreSQL's must give
# the same wall-clock times and instants for timestamps from 1850 to 2400, many of them
# in the weeks where clocks change. Starts a throwaway PostgreSQL and always stops it.
source "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null || fail "python3 not found (scripts/install-deps)"
[ -x "$WEIR" ] || fail "$WEIR is not built"
[ -d /usr/share/zoneinfo ] || fail "/usr/share/zoneinfo not found (the tzdata package, scripts/install-deps)"
start_pg
python3 "$ROOT/tests/scripts/time_zones_vs_pg.py" --weir "$WEIR" --tmp "$TMP"
