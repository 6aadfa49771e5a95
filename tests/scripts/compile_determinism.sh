#!/usr/bin/env bash
# `weir compile` twice on an unchanged project writes byte-identical artifacts, and
# changing one model moves only its own fingerprints and those downstream of it.
source "$(dirname "$0")/lib.sh"
P=$(copy_project "$ROOT/examples/commerce" commerce)
"$WEIR" --project-dir "$P" compile >/dev/null
cp -r "$P/target" "$TMP/first"
"$WEIR" --project-dir "$P" compile >/dev/null
diff -r "$TMP/first" "$P/target" || fail "second compile changed the artifacts"

fingerprints() {  # model=fingerprint lines, plus state ids with their fingerprints
  python3 - "$1" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
for x in m["models"]:
    print("model", x["name"], x["fingerprint"])
for s in m["state"]:
    print("state", s["id"], s["schema_fingerprint"], s["logic_fingerprint"])
PY
}
fingerprints "$P/target/manifest.json" > "$TMP/fp0"

# 1. change the upstream model orders_clean: it and its three consumers move
sed -i 's/WHERE status <> .cancelled./WHERE status <> '\''cancelled'\'' AND amount > 0/' "$P/models/staging/orders_clean.sql"
"$WEIR" --project-dir "$P" compile >/dev/null
fingerprints "$P/target/manifest.json" > "$TMP/fp1"
changed=$(diff "$TMP/fp0" "$TMP/fp1" | grep '^>' | awk '{print $3}' | sort -u | tr "\n" " " || true)
assert_eq "$changed" "customer_metrics customer_metrics/aggregate0 large_orders orders_clean status_counts status_counts/aggregate0 " "models changed by editing orders_clean"

# 2. change only customers_by_country: nothing else moves
sed -i 's/COUNT(\*) AS customers/COUNT(*) AS customers, MAX(name) AS some_name/' "$P/models/marts/customers_by_country.sql"
"$WEIR" --project-dir "$P" compile >/dev/null
fingerprints "$P/target/manifest.json" > "$TMP/fp2"
changed=$(diff "$TMP/fp1" "$TMP/fp2" | grep '^>' | awk '{print $3}' | sort -u | tr "\n" " " || true)
assert_eq "$changed" "customers_by_country customers_by_country/aggregate0 " "models changed by editing customers_by_country"

# 3. an unrelated test file or a sink path does not move any fingerprint
sed -i 's#target/out/large_orders.jsonl#target/out/large.jsonl#' "$P/models/schema.yml"
"$WEIR" --project-dir "$P" compile >/dev/null
fingerprints "$P/target/manifest.json" > "$TMP/fp3"
diff "$TMP/fp2" "$TMP/fp3" || fail "a sink path change moved fingerprints"
echo ok
