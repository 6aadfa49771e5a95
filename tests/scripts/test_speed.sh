#!/usr/bin/env bash
# `weir test` is in-process and fast: 100+ tests (the example's tests repeated) finish
# well under a second, even in the sanitizer build.
source "$(dirname "$0")/lib.sh"
P=$(copy_project "$ROOT/examples/commerce" t100)
python3 - "$P/tests/customer_metrics.yml" <<'PY'
import sys
path = sys.argv[1]
body = open(path).read().split('tests:\n', 1)[1]
open(path, 'w').write('tests:\n' + ''.join(body.replace('name: ', 'name: r%d_' % i) for i in range(34)))
PY
start=$(date +%s%N)
"$WEIR" --project-dir "$P" test > "$TMP/out.txt" || fail "tests failed: $(tail -5 "$TMP/out.txt")"
end=$(date +%s%N)
ms=$(( (end - start) / 1000000 ))
assert_contains "$TMP/out.txt" "105 passed, 0 failed" "all 105 tests ran"
[ "$ms" -lt 1000 ] || fail "105 tests took ${ms} ms"
echo "105 tests in ${ms} ms"
