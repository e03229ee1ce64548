#!/usr/bin/env bash
# Fails when a C++ file differs from .clang-format; `scripts/check-format.sh --fix` rewrites them.
set -euo pipefail
cd "$(dirname "$0")/.."
files=$(git ls-files -co --exclude-standard -- 'src/*.[ch]pp' 'cli/*.[ch]pp' 'tests/*.[ch]pp' 'fuzz/*.[ch]pp' 'bench/*.[ch]pp')
if [ "${1:-}" = "--fix" ]; then
  clang-format-14 -i $files
  exit 0
fi
if ! out=$(clang-format-14 --dry-run --Werror $files 2>&1); then
  grep -E '^[^ ].*: error' <<<"$out" | cut -d: -f1 | sort -u | sed 's/^/not formatted: /'
  echo "format: run scripts/check-format.sh --fix"
  exit 1
fi
echo "format: every file follows .clang-format"
