#!/usr/bin/env bash
# Loading and checking a project is linear in its size: a 40,000-model project (the
# project of bench/check_scale.sh) and a project whose 10,000 models each carry a
# warning and a misnamed config entry (so 30,000 diagnostics with hints are rendered)
# check within a generous CPU-time bound. Before loading became linear they took
# over a minute (name lookups, duplicate-key checks, diagnostic sorting and rendering and
# did-you-mean hints compared everything with everything); linear, they take seconds
# even in the sanitizer build. The bounds are on CPU time, not wall-clock time, and
# four to five times what the sanitizer build needs, so a loaded machine does not fail
# them, while the quadratic loader exceeded them even without sanitizers (about 70 s
# and 25 s).
source "$(dirname "$0")/lib.sh"

# cpu_seconds CMD...: runs CMD (output into $TMP/out, exit code into $TMP/rc) and
# prints the CPU time it used.
cpu_seconds() {
  python3 - "$TMP" "$@" <<'PY'
import resource, subprocess, sys
tmp, cmd = sys.argv[1], sys.argv[2:]
with open(tmp + "/out", "w") as out:
    rc = subprocess.call(cmd, stdout=out, stderr=subprocess.STDOUT)
open(tmp + "/rc", "w").write(str(rc))
r = resource.getrusage(resource.RUSAGE_CHILDREN)
print("%.1f" % (r.ru_utime + r.ru_stime))
PY
}

bash "$ROOT/bench/check_scale.sh" --generate "$TMP/big" 40000
cpu=$(cpu_seconds "$WEIR" --project-dir "$TMP/big" check)
assert_eq "$(cat "$TMP/rc")" 0 "check of 40000 models"
assert_eq "$(tail -n 1 "$TMP/out")" "checked 1 source, 40000 models, 0 tests: ok, 400 warnings" "summary"
python3 -c 'import sys; sys.exit(0 if float(sys.argv[1]) < 40 else 1)' "$cpu" ||
  fail "checking 40000 models took $cpu s of CPU time (bound 40 s)"
echo "40000 models checked in $cpu s of CPU time"

P="$TMP/diags"
mkdir -p "$P/models" "$P/sources" "$P/data"
cp "$TMP/big/weir.yml" "$P/"
cp "$TMP/big/sources/s.yml" "$P/sources/"
cp "$TMP/big/data/e.jsonl" "$P/data/"
python3 - "$P" <<'PY'
import sys
p = sys.argv[1]
cfg = ["models:"]
for i in range(10000):
    open("%s/models/m%05d.sql" % (p, i), "w").write("SELECT id FROM source('s') WHERE v = NULL\n")
    cfg.append("  x%05d: {materialized: view}" % i)
    cfg.append("  m%05d: {materialized: view, bogus: 1}" % i)
open(p + "/models/schema.yml", "w").write("\n".join(cfg) + "\n")
PY
cpu=$(cpu_seconds "$WEIR" --project-dir "$P" check)
assert_eq "$(cat "$TMP/rc")" 1 "check with errors"
assert_eq "$(tail -n 1 "$TMP/out")" "checked 1 source, 10000 models, 0 tests: 20000 errors, 10000 warnings" \
  "summary"
assert_eq "$(grep -c '^models/schema.yml:[0-9]*:[0-9]*: error: unknown key' "$TMP/out")" 10000 "unknown keys"
assert_eq "$(grep -c '^ [0-9]* |   m[0-9]*: {materialized: view, bogus: 1}' "$TMP/out")" 10000 \
  "every unknown key shows its line"
grep -qF "models/schema.yml:20000:3: error: model 'x09999' is configured but has no .sql file" "$TMP/out" ||
  fail "the last misnamed config is not reported"
python3 -c 'import sys; sys.exit(0 if float(sys.argv[1]) < 15 else 1)' "$cpu" ||
  fail "checking 10000 models with 30000 diagnostics took $cpu s of CPU time (bound 15 s)"
echo "30000 diagnostics in $cpu s of CPU time"
