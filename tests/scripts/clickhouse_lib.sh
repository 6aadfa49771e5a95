# Helpers of the ClickHouse checks: chq and wait_for read $CH (clickhouse_suite_start or
# scripts/clickhouse-start sets it).
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

# clickhouse_suite_start: the checks' counters (ok NAME, bad NAME [LOG]) and a server of
# the suite's own (scripts/clickhouse-start on 127.0.0.1), stopped and $TMP removed at
# exit; CH is its url, also as WEIR_TEST_CLICKHOUSE_URL; the connection variables weir
# would read are unset, so every command names its server itself.
clickhouse_suite_start() {
  set +e
  passed=0
  failed=0
  ok() { passed=$((passed + 1)); echo "ok: $1"; }
  bad() { failed=$((failed + 1)); echo "FAIL: $1" >&2; [ -n "${2:-}" ] && sed 's/^/    /' "$2" | tail -30 >&2; }
  eval "$("$ROOT/scripts/clickhouse-start")" || { echo "0 passed, 1 failed"; exit 1; }
  cleanup() { "$ROOT/scripts/clickhouse-stop"; rm -rf "$TMP"; }
  trap cleanup EXIT
  CH=$WEIR_CLICKHOUSE_URL
  export WEIR_TEST_CLICKHOUSE_URL=$CH
  unset WEIR_CLICKHOUSE_URL WEIR_CLICKHOUSE_USER
}
