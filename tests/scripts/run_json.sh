#!/usr/bin/env bash
# `weir run --format json` prints exactly one JSON document on stdout, even when the
# project has warnings (they go to stderr as text).
source "$(dirname "$0")/lib.sh"
P=$(copy_project "$ROOT/examples/commerce" commerce)
echo "SELECT order_id FROM ref('orders_clean') ORDER BY order_id" > "$P/models/ordered.sql"
"$WEIR" --project-dir "$P" run --no-progress --format json > "$TMP/out.json" 2> "$TMP/err.txt" || fail "run failed"
assert_contains "$TMP/err.txt" "warning" "the ORDER BY warning is reported on stderr"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["events_in"] == 2178, d' "$TMP/out.json" \
  || fail "stdout is not one JSON document: $(head -c 300 "$TMP/out.json")"
# the summary lists every piece of state with its size: the per-customer aggregate holds
# one entry per row of the customer_metrics table it maintains
rows=$(sqlite3 "$P/target/commerce.db" "SELECT count(*) FROM customer_metrics")
python3 - "$TMP/out.json" "$rows" <<'PY' || fail "state sizes in the run summary"
import json, sys
d = json.load(open(sys.argv[1]))
st = {s["id"]: s for s in d["state"]}
agg = st["customer_metrics/aggregate0"]
assert agg["entries"] == int(sys.argv[2]) and agg["bytes"] > agg["entries"] * 48, agg
assert "source:commerce.customers/changelog_normalize" in st, sorted(st)
PY
echo ok
