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

# the inputs repaired: the next run writes no dead letters and leaves none of the
# previous run's behind (its summary says none)
cp -a "$P" "$TMP/clean"
C=$TMP/clean
echo '{"id":1,"amount":1.5,"kind":"a","at":"2024-01-01 00:00:00"}' > "$C/data/events.jsonl"
echo '{"user_id":1,"name":"x"}' > "$C/data/users.jsonl"
printf 'a,b\n1,x\n' > "$C/data/rows.csv"
[ -n "$(ls "$C/target/dead_letter")" ] || fail "the first run wrote dead letters"
"$WEIR" --project-dir "$C" run --format json > "$TMP/clean.json" 2>&1 || fail "clean run failed: $(cat "$TMP/clean.json")"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["dead_letters"] == 0, d' "$TMP/clean.json" \
  || fail "the clean run counted dead letters"
[ -z "$(ls "$C/target/dead_letter")" ] || fail "stale dead-letter files: $(ls "$C/target/dead_letter")"

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
