#!/usr/bin/env bash
# The layers of src/ flow one way (docs/architecture.md): a file includes only headers
# of its own layer and of the layers below it, and each third-party header is included
# by exactly one adapter file. Fails with every include that breaks either rule.
set -euo pipefail
cd "$(dirname "$0")/../.."
# lowest first; layers on one line are peers that never include each other
LAYERS=(base project sql ir lifecycle engine "connectors testing" runtime backends cli)
rank_of() {
  local i=0 l
  for l in "${LAYERS[@]}"; do
    for x in $l; do [ "$x" = "$1" ] && { echo $i; return; }; done
    i=$((i + 1))
  done
  echo -1
}
bad=0
while IFS= read -r -d '' f; do
  layer=$(echo "$f" | cut -d/ -f2)
  r=$(rank_of "$layer")
  if [ "$r" -lt 0 ]; then echo "$f: directory src/$layer is not a known layer"; bad=1; continue; fi
  while IFS= read -r inc; do
    dep=${inc%%/*}
    [ "$dep" = "$layer" ] && continue
    d=$(rank_of "$dep")
    if [ "$d" -lt 0 ] || [ "$d" -ge "$r" ]; then
      echo "$f: includes $inc (layer $dep is not below $layer)"
      bad=1
    fi
  done < <(sed -n 's/^#include "\([a-z_]*\/[^"]*\)".*/\1/p' "$f")
done < <(find src -name '*.[ch]' -print0)
# third-party headers (<...> with a directory or a known library name): one file each
declare -A owner
while IFS= read -r line; do
  f=${line%%:*}
  h=${line#*:}
  if [ -n "${owner[$h]:-}" ] && [ "${owner[$h]}" != "$f" ]; then
    echo "$h is included by ${owner[$h]} and $f (one adapter file per third-party header)"
    bad=1
  fi
  owner[$h]=$f
done < <(grep -Ho '^#include <[^>]*>' -r src | sed 's/#include <\(.*\)>/\1/' |
         grep -E ':(pg_query|yaml|sqlite3|xxhash|zlib|pcre2|librdkafka/|lmdb|jansson|curl/|cmocka)' || true)
if [ $bad -ne 0 ]; then echo "0 passed, 1 failed"; exit 1; fi
echo "1 passed, 0 failed"
