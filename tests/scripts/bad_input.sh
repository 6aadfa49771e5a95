#!/usr/bin/env bash
# Bad input never crashes weir and never disappears: every malformed line, type error,
# missing key and runtime expression error lands in a dead-letter file with its reason
# and position, and the good rows' results are unaffected. on_error: skip counts only;
# on_error: fail stops with exit 3 and file:line.
source "$(dirname "$0")/lib.sh"
P=$(copy_project "$ROOT/tests/fixtures/bad_input" bad)
"$WEIR" --project-dir "$P" run > "$TMP/out.txt" 2>&1 || fail "run failed: $(cat "$TMP/out.txt")"
for f in "$P"/expected/*.jsonl; do
  name=$(basename "$f")
  case "$name" in
    out_*) actual="$P/out/${name#out_}" ;;
    *) actual="$P/target/dead_letter/$name" ;;
  esac
  diff -u "$f" "$actual" || fail "$name differs"
done
assert_contains "$TMP/out.txt" "12 dead letters" "summary counts dead letters"

# on_error: skip -> counted, nothing written for that source
sed -i '/path: data\/events.jsonl/a\    on_error: skip' "$P/sources/s.yml"
rm -rf "$P/target" "$P/out"
"$WEIR" --project-dir "$P" run > "$TMP/skip.txt" 2>&1 || fail "run with skip failed"
[ ! -f "$P/target/dead_letter/s.events.jsonl" ] || fail "skip wrote dead letters"
assert_contains "$TMP/skip.txt" "6 skipped" "skip is counted"
diff -u "$P/expected/out_totals.jsonl" "$P/out/totals.jsonl" || fail "skip changed good results"

# on_error: fail -> exit 3 with file:line and reason
sed -i 's/on_error: skip/on_error: fail/' "$P/sources/s.yml"
set +e
"$WEIR" --project-dir "$P" run > "$TMP/fail.txt" 2>&1
rc=$?
set -e
assert_eq "$rc" "3" "exit code with on_error: fail"
assert_contains "$TMP/fail.txt" "data/events.jsonl:2: invalid JSON" "fail names file:line and reason"
echo ok
