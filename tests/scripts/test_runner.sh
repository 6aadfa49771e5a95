#!/usr/bin/env bash
# weir test's comparison switches and its reports (tests/fixtures/test_features):
# `compare: subset` compares only the columns an expected row names (and a mismatch is
# still a failure); without it an omitted column is NULL; `float_tolerance` per test or
# per column makes 0.1 + 0.2 equal 0.3, a tighter one does not; a malformed test is an
# ERROR of its own at its file:line:col while the tests around it run and pass;
# --format junit is valid XML with one testcase per test and failures with messages.
source "$(dirname "$0")/lib.sh"
P=$(copy_project "$ROOT/tests/fixtures/test_features" tf)
rc=0
"$WEIR" --project-dir "$P" test > "$TMP/out.txt" 2>&1 || rc=$?
assert_eq "$rc" 1 "exit code with failures"
for t in subset_passes tolerance_passes tolerance_per_column good_before good_after; do
  assert_contains "$TMP/out.txt" "PASS   $t (" "$t passes"
done
for t in subset_mismatch exact_needs_every_column without_tolerance_fails tolerance_too_tight; do
  assert_contains "$TMP/out.txt" "FAIL   $t (" "$t fails"
done
assert_contains "$TMP/out.txt" "    - {sensor: 's1', n: 5}" "a subset row shows only its columns"
assert_contains "$TMP/out.txt" "    - {sensor: 's1', n: 1, total: null, mean: null, note: null}" "an exact row: omitted columns are NULL"
assert_contains "$TMP/out.txt" "ERROR  malformed_key (sensor_stats)  tests/b_malformed.yml:9:5" "the malformed test is an error"
assert_contains "$TMP/out.txt" "tests/b_malformed.yml:13:5: error: unknown key 'expect_finl' in a test" "at the bad key"
assert_contains "$TMP/out.txt" "did you mean 'expect_final'?" "with a did-you-mean"
assert_contains "$TMP/out.txt" "tests/b_malformed.yml:17:23: float_tolerance: 'totl' is not a column of model 'sensor_stats'; did you mean 'total'?" "a tolerance of an unknown column"
assert_contains "$TMP/out.txt" "tests/b_malformed.yml:24:14: error: unknown comparison 'subst'" "a bad compare value"
assert_contains "$TMP/out.txt" "5 passed, 7 failed" "the summary"

# weir check reports the malformed tests as errors of the project
rc=0; "$WEIR" --project-dir "$P" check > "$TMP/check.txt" 2>&1 || rc=$?
assert_eq "$rc" 1 "check exit code"
assert_contains "$TMP/check.txt" "unknown key 'expect_finl'" "check sees the malformed test"

# a selection runs only the selected tests, the good one passes alone
"$WEIR" --project-dir "$P" test --select good_after > "$TMP/one.txt" || fail "good_after alone"
assert_contains "$TMP/one.txt" "1 passed, 0 failed" "one test selected"

# junit
rc=0
"$WEIR" --project-dir "$P" test --format junit > "$TMP/junit.xml" || rc=$?
assert_eq "$rc" 1 "junit exit code"
python3 - "$TMP/junit.xml" <<'PY' || fail "junit output"
import sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
assert root.tag == "testsuites", root.tag
cases = root.findall("./testsuite/testcase")
names = [c.get("name") for c in cases]
assert names == ["subset_passes", "subset_mismatch", "exact_needs_every_column", "tolerance_passes",
                 "tolerance_per_column", "without_tolerance_fails", "tolerance_too_tight", "good_before",
                 "malformed_key", "tolerance_unknown_column", "bad_compare", "good_after"], names
by = {c.get("name"): c for c in cases}
for n in ["subset_passes", "tolerance_passes", "good_after"]:
    assert not list(by[n]), n
f = by["subset_mismatch"].find("failure")
assert f is not None and "final rows differ" in f.get("message"), f
assert "{sensor: 's1', n: 5}" in f.text, f.text
e = by["malformed_key"].find("error")
assert e is not None and "tests/b_malformed.yml:13:5" in e.text, e.text
assert by["subset_mismatch"].get("classname") == "sensor_stats"
assert by["good_after"].get("file") == "tests/b_malformed.yml"
suite = root.find("testsuite")
assert (suite.get("tests"), suite.get("failures"), suite.get("errors")) == ("12", "4", "3"), suite.attrib
PY

# all good: exit 0 and a junit file without failures
rm "$P/tests/b_malformed.yml"
sed -i '/name: subset_mismatch/,$d' "$P/tests/a_features.yml"
"$WEIR" --project-dir "$P" test --format junit > "$TMP/ok.xml" || fail "all-pass junit exit code"
python3 -c 'import sys, xml.etree.ElementTree as ET; r = ET.parse(sys.argv[1]).getroot(); s = r.find("testsuite"); assert (s.get("tests"), s.get("failures"), s.get("errors")) == ("1", "0", "0"), s.attrib' "$TMP/ok.xml" || fail "all-pass junit"
echo "test runner: subset, tolerance, malformed tests and junit as documented"
