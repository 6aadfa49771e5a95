#!/usr/bin/env bash
# How `weir check` scales with the number of models. Generates a project of N models
# (default 10000, 40000; BENCH_MODELS="1000 10000" to choose) in a temporary directory:
# one file source, every model configured in one models/schema.yml (a third of them
# upsert with a key, a tenth with a file sink), every tenth model reading the one
# before it with ref() and the others the source, a warning in every hundredth model
# (so diagnostics are rendered), and prints the wall-clock time of `weir check` for
# each size and the time per model, so a linear loader shows a flat last column.
# `bench/check_scale.sh --generate DIR N` only writes the project (tests/scripts/
# check_scale.sh uses it).
set -euo pipefail
cd "$(dirname "$0")/.."
WEIR=${WEIR:-$(pwd)/${BUILD:-build}/weir}
SIZES=${BENCH_MODELS:-10000 40000}
gen() { # gen DIR N
  local p=$1 n=$2
  mkdir -p "$p/sources" "$p/models" "$p/data"
  echo "name: scale" > "$p/weir.yml"
  echo '{"id": 1, "k": 2, "v": 3.5, "t": "2024-01-01 00:00:00"}' > "$p/data/e.jsonl"
  cat > "$p/sources/s.yml" <<YAML
sources:
  s:
    connector: file
    path: data/e.jsonl
    format: json
    columns: {id: bigint, k: bigint, v: "numeric(12,2)", t: timestamp}
    event_time: t
YAML
  python3 - "$p" "$n" <<'PY'
import os, sys
p, n = sys.argv[1], int(sys.argv[2])
cfg = ["models:"]
for i in range(n):
    name = "m%06d" % i
    src = "ref('m%06d')" % (i - 1) if i % 10 == 9 else "source('s')"
    if i % 10 == 9:
        sql = "SELECT * FROM %s WHERE k > 0\n" % src
    elif i % 100 == 50:
        sql = "SELECT id, k, v FROM %s WHERE v = NULL\n" % src
    elif i % 3 == 0:
        sql = "SELECT k, COUNT(*) AS c, SUM(v) AS total FROM %s GROUP BY k\n" % src
    else:
        sql = "SELECT id, k, v * 2 AS v2 FROM %s WHERE k > %d\n" % (src, i)
    sub = os.path.join(p, "models", "g%03d" % (i // 1000))
    os.makedirs(sub, exist_ok=True)
    with open(os.path.join(sub, name + ".sql"), "w") as f:
        f.write(sql)
    if i % 3 == 0 and i % 100 != 50 and i % 10 != 9:
        cfg.append("  %s:\n    materialized: upsert\n    key: [k]" % name)
        if i % 10 == 0:
            cfg.append("    sink: {connector: file, path: out/%s.jsonl, format: changelog-json}" % name)
    else:
        cfg.append("  %s:\n    materialized: view" % name)
with open(os.path.join(p, "models", "schema.yml"), "w") as f:
    f.write("\n".join(cfg) + "\n")
PY
}

if [ "${1:-}" = --generate ]; then
  gen "$2" "$3"
  exit 0
fi

DIR=$(mktemp -d /tmp/weir-check-scale.XXXXXX)
trap 'rm -rf "$DIR"' EXIT
printf '%8s %10s %14s\n' models "check s" "us per model"
for n in $SIZES; do
  gen "$DIR/p$n" "$n"
  start=$(date +%s.%N)
  rc=0
  "$WEIR" --project-dir "$DIR/p$n" check > "$DIR/out" 2>&1 || rc=$?
  end=$(date +%s.%N)
  if [ "$rc" -ne 0 ]; then echo "weir check failed (exit $rc):"; tail -5 "$DIR/out"; exit 1; fi
  python3 -c 'import sys; n=int(sys.argv[1]); s=float(sys.argv[3])-float(sys.argv[2]); print("%8d %10.2f %14.1f" % (n, s, s / n * 1e6))' "$n" "$start" "$end"
done
