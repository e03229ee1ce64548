#!/usr/bin/env bash
# Fails on any include that runs up the layers: io < sys < core < chain < strategies < harness <
# suite < session < report < cli (io: the library's public headers, include/iolab/io, which include only
# each other); on a source file outside the layers; and on an include of iolab's own
# headers written any other way than "iolab/LAYER/...". Prints each offending line.
set -euo pipefail
cd "$(dirname "$0")/.."
layers=(io sys core chain strategies harness suite session report)
where() { [ "$1" = io ] && echo include/iolab/io || echo "src/iolab/$1"; }
rank() { local i; for i in "${!layers[@]}"; do [ "${layers[$i]}" = "$1" ] && { echo "$i"; return; }; done; echo -1; }
bad=0
while IFS= read -r f; do
  dir=$(cut -d/ -f3 <<<"$f")
  if [ "$(rank "$dir")" -lt 0 ]; then echo "outside the layers: $f"; bad=1; fi
done < <(git ls-files -co --exclude-standard 'src/iolab/*')
while IFS= read -r hit; do
  echo "include not written \"iolab/LAYER/...\": $hit"; bad=1
done < <(grep -rnE '#include\s*(<iolab/|"\.\./|"iolab/[a-z_]+\.)' src cli include || true)
for dir in "${layers[@]}"; do
  mine=$(rank "$dir")
  while IFS= read -r hit; do
    target=$(sed -E 's|.*#include "iolab/([a-z_]+)/.*|\1|' <<<"$hit")
    theirs=$(rank "$target")
    if [ "$theirs" -lt 0 ]; then echo "include of no layer: $hit"; bad=1; fi
    if [ "$theirs" -gt "$mine" ]; then echo "upward include: $hit"; bad=1; fi
  done < <(grep -rnE '#include "iolab/[a-z_]+/' "$(where "$dir")" || true)
done
[ "$bad" -eq 0 ] && echo "layers: no include runs up the layers"
exit "$bad"
