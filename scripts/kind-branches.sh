#!/bin/sh
# Lists the lines outside the kinds' own modules (core/family.hpp's rows, strategies/kinds.cpp,
# strategies/files_kind.cpp, strategies/stream_kinds.cpp, strategies/replace/) that branch on the kind of work: family, shape,
# tree, records, patterned. `scripts/kind-branches.sh | wc -l` counts them (docs/design.md, "The
# kind of work"). An argument names another checkout to count in.
cd "${1:-$(dirname "$0")/..}"
grep -rnE "Family::[a-z_]+|Shape::[a-z]+|is_tree\(|writes_records\(|shape_of\(|\.patterned\b|\bpatterned\(\)" src cli --include=*.cpp --include=*.hpp \
 | grep -vE "^src/iolab/core/family.hpp|^src/iolab/strategies/(files_kind|stream_kinds|kinds)\.cpp|^src/iolab/strategies/replace/" \
 | grep -E "(\bif\b|\?|\bcase\b|\bswitch\b|&&|\|\||==|!=)" | grep -vE "^[^:]+:[0-9]+:\s*//"
