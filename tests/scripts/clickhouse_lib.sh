# Helpers of the ClickHouse checks (sourced after scripts/clickhouse-start set $CH):
# chq SQL runs one statement over HTTP; wait_for SQL WANT polls, with a deadline of
# 90 s, until the statement's result is WANT.
chq() { curl -sS "$CH/" --data-binary "$1"; }
wait_for() {
  local deadline=$((SECONDS + 90)) got
  while :; do
    got=$(chq "$1" 2>&1)
    [ "$got" = "$2" ] && return 0
    [ $SECONDS -ge $deadline ] && { echo "timed out: $1 -> '$got', want '$2'" >&2; return 1; }
    sleep 0.1
  done
}
