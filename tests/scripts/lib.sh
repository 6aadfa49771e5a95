# Helpers for scripted checks: a fresh copy of a project, assertions with messages.
set -euo pipefail
ROOT=${ROOT:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
BUILD=${BUILD:-build}
WEIR=${WEIR:-$ROOT/$BUILD/weir}
export NO_COLOR=1
TMP=$(mktemp -d /tmp/weir-script.XXXXXX)
trap 'rm -rf "$TMP"' EXIT

# copy_project SRC NAME: copies a project without its target/ into $TMP/NAME
copy_project() {
  mkdir -p "$TMP/$2"
  (cd "$1" && tar --exclude=./target --exclude=./.weir -cf - .) | (cd "$TMP/$2" && tar -xf -)
  echo "$TMP/$2"
}
fail() { echo "FAIL: $*" >&2; exit 1; }
assert_eq() { [ "$1" = "$2" ] || fail "$3: expected '$2', got '$1'"; }
assert_contains() { grep -qF -- "$2" "$1" || { echo "--- $1:" >&2; cat "$1" >&2; fail "$3: '$2' not found in $1"; }; }
# holds_flock PID FILE: process PID holds a flock on FILE, as /proc/locks shows it (a
# probe that takes the lock itself would, for that moment, make a run starting then
# refuse the state directory)
holds_flock() {
  local ino
  ino=$(stat -c %i "$2" 2>/dev/null) || return 1
  awk -v pid="$1" -v ino="$ino" '$2 == "FLOCK" && $5 == pid { n = split($6, f, ":"); if (f[n] == ino) found = 1 }
    END { exit !found }' /proc/locks
}
# start_pg: a throwaway PostgreSQL (scripts/pg-start: its PG* variables exported here),
# stopped and $TMP removed when the script exits. pg-start picks a random port; another
# test's server may hold it, so it is tried three times.
start_pg() {
  local env="" attempt
  for attempt in 1 2 3; do
    env=$("$ROOT/scripts/pg-start") && break
    env=""
  done
  [ -n "$env" ] || fail "could not start PostgreSQL"
  eval "$env"
  trap '"$ROOT/scripts/pg-stop"; rm -rf "$TMP"' EXIT
}
