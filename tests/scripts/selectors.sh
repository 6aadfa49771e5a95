#!/usr/bin/env bash
# One selector grammar for every command: each selector below, on a project with a
# diamond DAG, tags and paths (tests/projects/select_diamond), selects the same models
# through `weir ls`, `compile` (the per-model files it writes), `explain` (the models it
# shows), `test` (the models of the tests it runs) and `run` (the models it reports),
# and that set is the one stated here. Bad selectors exit 2 with a did-you-mean.
source "$(dirname "$0")/lib.sh"
P=$(copy_project "$ROOT/tests/projects/select_diamond" diamond)
W() { "$WEIR" --project-dir "$P" "$@"; }

# selector | --exclude | expected models (sorted, space-separated)
CASES=(
  "summary||summary"
  "+summary||customer_orders order_totals stg_customers stg_orders summary"
  "stg_orders+||customer_orders order_totals stg_orders summary"
  "+summary+||customer_orders order_totals stg_customers stg_orders summary"
  "1+summary||customer_orders order_totals summary"
  "stg_orders+1||customer_orders order_totals stg_orders"
  "@stg_customers||customer_orders order_totals stg_customers stg_orders summary"
  "tag:nightly||click_counts stg_orders summary"
  "tag:nightly,tag:finance||summary"
  "tag:staging tag:finance||order_totals stg_customers stg_orders summary"
  "path:models/marts||customer_orders order_totals summary"
  "path:models/staging/stg_orders.sql||stg_orders"
  "path:models/marts,tag:finance||order_totals summary"
  "source:shop||stg_customers stg_orders"
  "source:shop.customers+||customer_orders stg_customers summary"
  "source:web.clicks||click_counts"
  "stg_orders+|summary|customer_orders order_totals stg_orders"
  "path:models|tag:staging|click_counts customer_orders order_totals summary"
  "|tag:nightly|customer_orders order_totals stg_customers"
  "stg_*||stg_customers stg_orders"
  "summary,click_counts||"
)

sorted() { tr ' ' '\n' | sed '/^$/d' | sort -u | tr '\n' ' ' | sed 's/ $//'; }

for c in "${CASES[@]}"; do
  IFS='|' read -r sel exc want <<<"$c"
  args=()
  [ -n "$sel" ] && args+=(--select "$sel")
  [ -n "$exc" ] && args+=(--exclude "$exc")
  label="--select '$sel' --exclude '$exc'"

  ls_models=$(W ls "${args[@]}" --resource-type model --format json |
    python3 -c 'import json,sys; print(" ".join(n["name"] for n in json.load(sys.stdin)["nodes"]))' | sorted)
  assert_eq "$ls_models" "$want" "ls $label"

  rm -rf "$P/target"
  W compile "${args[@]}" > /dev/null || fail "compile $label"
  compiled=$(ls "$P/target/ir" 2>/dev/null | sed 's/\.json$//' | sorted)
  assert_eq "$compiled" "$want" "compile $label"
  [ -f "$P/target/manifest.json" ] || fail "compile $label wrote no manifest"

  explained=$(W explain "${args[@]}" --format json 2>/dev/null |
    python3 -c 'import json,sys; print(" ".join(m["name"] for m in json.load(sys.stdin)["models"]))' | sorted)
  assert_eq "$explained" "$want" "explain $label"

  # tests follow their models: the models of the tests that ran are the selected
  # models that have tests
  tested=$(W test "${args[@]}" --format json |
    python3 -c 'import json,sys; print(" ".join(t["model"] for t in json.load(sys.stdin)["tests"]))' | sorted)
  want_tested=$(for m in $want; do case $m in stg_orders|order_totals|summary|click_counts) echo "$m";; esac; done | sorted)
  assert_eq "$tested" "$want_tested" "test $label"
  ls_tested=$(W ls "${args[@]}" --resource-type test --format json |
    python3 -c 'import json,sys; print(" ".join(n["model"] for n in json.load(sys.stdin)["nodes"]))' | sorted)
  assert_eq "$ls_tested" "$want_tested" "ls --resource-type test $label"
done

# explain MODEL takes a selector too
n=$(W explain +order_totals --format json | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["models"]))')
assert_eq "$n" 2 "explain +order_totals"

# a test selected by its name
t=$(W test --select totals_add_up --format json | python3 -c 'import json,sys; print(" ".join(t["name"] for t in json.load(sys.stdin)["tests"]))')
assert_eq "$t" "totals_add_up" "a test by name"

# run: the selected models' sinks only (summary has the only sink)
rm -rf "$P/out" "$P/.weir"
W run --no-progress --select "tag:staging" > /dev/null 2>&1 || fail "run tag:staging"
[ ! -e "$P/out/summary.jsonl" ] || fail "run tag:staging wrote summary's sink"
W run --no-progress --select "+summary" > /dev/null 2>&1 || fail "run +summary"
[ -s "$P/out/summary.jsonl" ] || fail "run +summary did not write summary's sink"

# bad selectors: exit 2, a did-you-mean, and the same message from every command
for cmd in ls compile explain test run; do
  rc=0; W $cmd --select summry > "$TMP/err" 2>&1 || rc=$?
  assert_eq "$rc" 2 "$cmd --select summry exit code"
  assert_contains "$TMP/err" "no model or test named 'summry'; did you mean 'summary'?" "$cmd did-you-mean"
done
rc=0; W ls --exclude tag:finanse > "$TMP/err" 2>&1 || rc=$?
assert_eq "$rc" 2 "--exclude tag:finanse exit code"
assert_contains "$TMP/err" "--exclude: no model has tag 'finanse'; did you mean 'finance'?" "exclude did-you-mean"
echo "selectors: ${#CASES[@]} selectors agree across ls, compile, explain, test and run"
