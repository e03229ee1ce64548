#!/usr/bin/env bash
# Fails on any include that runs up the layers: sys < core < chain < strategies < harness <
# suite < report (cli may include them all). Prints each offending line.
set -euo pipefail
cd "$(dirname "$0")/.."
layers=(sys core chain strategies harness suite report)
rank() { local i; for i in "${!layers[@]}"; do [ "${layers[$i]}" = "$1" ] && { echo "$i"; return; }; done; echo -1; }
bad=0
for dir in "${layers[@]}"; do
  mine=$(rank "$dir")
  while IFS= read -r hit; do
    target=$(sed -E 's|.*#include "iolab/([a-z_]+)/.*|\1|' <<<"$hit")
    theirs=$(rank "$target")
    if [ "$theirs" -gt "$mine" ]; then echo "upward include: $hit"; bad=1; fi
  done < <(grep -rnE '#include "iolab/[a-z_]+/' "src/iolab/$dir" || true)
done
[ "$bad" -eq 0 ] && echo "layers: no include runs up the layers"
exit "$bad"
