#!/usr/bin/env bash
# iolab::io as a user gets it: the library alone configured (-DIOLAB_LIBRARY_ONLY=ON, which needs
# nothing but a C++ compiler), installed into a temporary prefix, then the examples built
# against that prefix both with find_package(iolab) and with pkg-config, and run.
# Usage: run.sh SOURCE_DIR
set -uo pipefail
src=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failed=0
fail() { echo "FAIL: $*"; failed=1; }
prefix="$work/prefix"

cmake -S "$src" -B "$work/lib" -DIOLAB_LIBRARY_ONLY=ON -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX="$prefix" \
  >"$work/configure.log" 2>&1 || { cat "$work/configure.log"; exit 1; }
cmake --build "$work/lib" -j2 >"$work/build.log" 2>&1 || { tail -30 "$work/build.log"; exit 1; }
cmake --install "$work/lib" >"$work/install.log" 2>&1 || { cat "$work/install.log"; exit 1; }
echo "installed:"
(cd "$prefix" && find . -type f -o -type l | sort)

for f in lib/libiolab-io.a lib/libiolab-io.so lib/libiolab-io.so.0.1 include/iolab/io.hpp include/iolab/io/buffered.hpp \
  lib/cmake/iolab/iolabConfig.cmake lib/cmake/iolab/iolabConfigVersion.cmake lib/pkgconfig/iolab-io.pc; do
  [ -e "$prefix/$f" ] || fail "not installed: $f"
done
objdump -p "$prefix/lib/libiolab-io.so" | grep -q "SONAME *libiolab-io.so.0.1$" || fail "the shared library's SONAME"
# It exports its public API (the declarations marked IOLAB_IO_API) and nothing of its insides.
exports=$(nm -D --defined-only "$prefix/lib/libiolab-io.so" | c++filt)
for want in 'iolab::copy_file(' 'iolab::BufferedReader::refill()' 'iolab::sys::pread_full(' 'typeinfo for iolab::IoError'; do
  grep -qF "$want" <<<"$exports" || fail "the shared library does not export $want"
done
inside=$(grep -E 'iolab::sys::detail|fault|throttle|stop|temporary_beside|folder_of' <<<"$exports")
[ -z "$inside" ] || fail "the shared library exports its insides: $inside"
# It needs nothing but the C and C++ runtimes.
extra=$(ldd "$prefix/lib/libiolab-io.so" | grep -vE 'linux-vdso|libstdc\+\+|libgcc_s|libc\.so|libm\.so|ld-linux')
[ -z "$extra" ] || fail "the shared library needs more than the C and C++ runtimes: $extra"
# No header of the lab leaks into the public ones.
grep -rn '#include "iolab/' "$prefix/include" | grep -v '"iolab/io' && fail "a public header includes a private one"

# 1. find_package(iolab): count_lines on the shared library, copy_tree on the static one.
cmake -S "$src/examples" -B "$work/ex" -DCMAKE_PREFIX_PATH="$prefix" >"$work/ex.log" 2>&1 &&
  cmake --build "$work/ex" >>"$work/ex.log" 2>&1 || { tail -30 "$work/ex.log"; fail "examples with find_package"; }
# 2. pkg-config
export PKG_CONFIG_PATH="$prefix/lib/pkgconfig"
# shellcheck disable=SC2046
c++ -std=c++20 -O2 -o "$work/count_lines_pc" "$src/examples/count_lines.cpp" $(pkg-config --cflags --libs iolab-io) \
  2>"$work/pc.log" || { cat "$work/pc.log"; fail "examples with pkg-config"; }

# Run them.
seq 1 300000 >"$work/lines.txt"
printf 'no newline at the end' >>"$work/lines.txt"
want=$(wc -l <"$work/lines.txt")
for bin in "$work/ex/count_lines" "$work/count_lines_pc"; do
  got=$(LD_LIBRARY_PATH="$prefix/lib" "$bin" "$work/lines.txt") || fail "$bin failed"
  [ "$got" = "$want" ] || fail "$bin counted $got lines, wc -l $want"
done
# An IoError thrown inside the shared library is caught by the program's catch (IoError&).
LD_LIBRARY_PATH="$prefix/lib" "$work/ex/count_lines" "$work/missing" 2>"$work/missing.err"
rc=$?
[ $rc -eq 1 ] && grep -q '^count_lines: .*missing' "$work/missing.err" ||
  fail "an IoError from the shared library was not caught (exit $rc): $(cat "$work/missing.err")"
mkdir -p "$work/tree/a/b"
head -c 3000000 /dev/urandom >"$work/tree/a/big"
printf 'x' >"$work/tree/a/b/one"
: >"$work/tree/empty"
truncate -s 10M "$work/tree/sparse"
"$work/ex/copy_tree" "$work/tree" "$work/copy" >"$work/copy.out" || fail "copy_tree: $(cat "$work/copy.out")"
diff -r "$work/tree" "$work/copy" || fail "copy_tree: the copy differs"
grep -q "^4 files" "$work/copy.out" || fail "copy_tree said: $(cat "$work/copy.out")"
# The sparse file's holes are kept.
[ "$(du -k "$work/copy/sparse" | cut -f1)" -lt 1024 ] || fail "copy_tree filled the holes of a sparse file"
"$work/ex/copy_tree" "$work/tree" "$work/copy" 2>/dev/null && fail "copy_tree wrote over an existing folder"

# An installed tree can be moved: the CMake package and the .pc find their prefix from their place.
mv "$prefix" "$work/moved"
PKG_CONFIG_PATH="$work/moved/lib/pkgconfig" c++ -std=c++20 -O2 -o "$work/count_lines_moved" "$src/examples/count_lines.cpp" \
  $(PKG_CONFIG_PATH="$work/moved/lib/pkgconfig" pkg-config --cflags --libs iolab-io) 2>"$work/moved.log" ||
  { cat "$work/moved.log"; fail "pkg-config from a moved prefix"; }
cmake -S "$src/examples" -B "$work/ex-moved" -DCMAKE_PREFIX_PATH="$work/moved" >"$work/ex-moved.log" 2>&1 &&
  cmake --build "$work/ex-moved" >>"$work/ex-moved.log" 2>&1 || { tail -20 "$work/ex-moved.log"; fail "find_package from a moved prefix"; }
got=$(LD_LIBRARY_PATH="$work/moved/lib" "$work/count_lines_moved" "$work/lines.txt") || fail "moved: count_lines failed"
[ "$got" = "$want" ] || fail "moved: count_lines counted $got lines, wc -l $want"

[ $failed -eq 0 ] && echo "install: all checks passed"
exit $failed
