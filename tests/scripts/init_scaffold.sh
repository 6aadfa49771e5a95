#!/usr/bin/env bash
# `weir init DIR` scaffolds a project that passes check, test and run, and refuses to
# overwrite an existing project.
source "$(dirname "$0")/lib.sh"
"$WEIR" init "$TMP/shop" > "$TMP/init.txt" || fail "init failed"
"$WEIR" --project-dir "$TMP/shop" check > "$TMP/check.txt" 2>&1 || fail "check failed: $(cat "$TMP/check.txt")"
"$WEIR" --project-dir "$TMP/shop" test > "$TMP/test.txt" 2>&1 || fail "test failed: $(cat "$TMP/test.txt")"
assert_contains "$TMP/test.txt" "1 passed, 0 failed" "scaffolded test passes"
"$WEIR" --project-dir "$TMP/shop" run --no-progress > "$TMP/run.txt" 2>&1 || fail "run failed: $(cat "$TMP/run.txt")"
assert_contains "$TMP/shop/target/out/customer_spend.jsonl" '"customer_id":42,"order_count":2,"total_spend":28.00' "run output"
set +e
"$WEIR" init "$TMP/shop" > "$TMP/again.txt" 2>&1
rc=$?
set -e
assert_eq "$rc" "2" "init over an existing project"
assert_contains "$TMP/again.txt" "already exists" "init refuses to overwrite"
echo ok
