#!/usr/bin/env bash
# Data is not needed before `weir run`: on a project whose data files do not exist yet
# (CI has none; data lands later), check (which notes each missing file), compile,
# explain and test all succeed; run reports the missing input with exit 3 and prints
# no summary.
source "$(dirname "$0")/lib.sh"
P=$(copy_project "$ROOT/examples/commerce" nodata)
rm -rf "$P/data"
cd "$P"
"$WEIR" check > check.out 2>&1 || { cat check.out; fail "check without data"; }
assert_contains check.out "note: data file data/orders.jsonl does not exist yet" "check notes the missing file"
assert_contains check.out "checked 2 sources, 5 models, 6 tests: ok" "check passes"
"$WEIR" compile > compile.out 2>&1 || { cat compile.out; fail "compile without data"; }
[ -f target/manifest.json ] || fail "compile wrote no manifest"
"$WEIR" explain > explain.out 2>&1 || { cat explain.out; fail "explain without data"; }
assert_contains explain.out "model customer_metrics" "explain shows the models"
"$WEIR" test > test.out 2>&1 || { cat test.out; fail "test without data"; }
assert_contains test.out "6 passed, 0 failed" "the tests pass"
set +e
"$WEIR" run > run.out 2>&1
rc=$?
set -e
assert_eq "$rc" 3 "run without its input exits 3"
assert_contains run.out "cannot open: No such file or directory" "run names the missing input"
assert_contains run.out "source commerce." "run names the source"
if grep -q "^done:" run.out; then cat run.out; fail "a run that failed at start-up prints no summary"; fi
echo "no_data: ok"
