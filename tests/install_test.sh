#!/usr/bin/env bash
# tests/install_test.sh: the installed package, used from outside the tree by
# C programs (tests/consumer, a project with only C enabled):
#   - `cmake --install` into a temporary prefix;
#   - find_package(lowersim): the shared libraries and the archives;
#   - pkg-config: the shared libraries, and `--static` where only the
#     archives are installed;
#   - a tree configured with CMAKE_INSTALL_LIBDIR=lib/x86_64-linux-gnu (Debian's
#     multiarch libdir): the .pc files find the prefix three levels up, and
#     both consumers build against it;
#   - the schema, the man page and the bash completion are installed.
# `install_test.sh default` runs all but the multiarch tree, `install_test.sh
# multiarch` that one (two CTest tests, so that they run side by side).
set -u
BUILD=${BUILD_DIR:?} SRC=${SOURCE_DIR:?} CC=${CC:-cc}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
ok() { if [ "$1" -eq 0 ]; then pass=$((pass+1)); else echo "FAIL $2"; fail=$((fail+1)); fi; }
needs() { readelf -d "$1" | grep -q "NEEDED.*\[$2"; }

# consumers PREFIX LIBDIR NAME: find_package and pkg-config consumers against PREFIX.
consumers() {
  local prefix=$1 libdir=$2 name=$3 b=$tmp/$3-cmake
  cmake -S "$SRC/tests/consumer" -B "$b" -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_C_FLAGS="-Wall -Werror" \
    -DCMAKE_BUILD_RPATH="$prefix/$libdir" >"$tmp/log" 2>&1 && cmake --build "$b" >>"$tmp/log" 2>&1
  ok $? "$name: find_package consumers do not build: $(tail -5 "$tmp/log")"
  "$b/consumer_shared" >"$tmp/out" 2>&1; ok $? "$name: find_package shared consumer: $(tail -3 "$tmp/out")"
  needs "$b/consumer_shared" liblowersim.so; ok $? "$name: the shared consumer does not need liblowersim.so"
  "$b/consumer_static" >"$tmp/out" 2>&1; ok $? "$name: find_package static consumer: $(tail -3 "$tmp/out")"
  ! needs "$b/consumer_static" liblowersim; ok $? "$name: the static consumer needs liblowersim"
  local flags
  flags=$(PKG_CONFIG_PATH="$prefix/$libdir/pkgconfig" pkg-config --cflags --libs lowersim_scenario) &&
    $CC -std=c11 -Wall -Werror "$SRC/tests/consumer/main.c" -o "$tmp/$name-pc" $flags \
      -Wl,-rpath,"$prefix/$libdir" >"$tmp/log" 2>&1
  ok $? "$name: pkg-config shared consumer does not build ($flags): $(tail -5 "$tmp/log")"
  "$tmp/$name-pc" >"$tmp/out" 2>&1; ok $? "$name: pkg-config shared consumer: $(tail -3 "$tmp/out")"
}

if [ "${1:-default}" = default ]; then
prefix=$tmp/prefix
cmake --install "$BUILD" --prefix "$prefix" >"$tmp/log" 2>&1; ok $? "cmake --install: $(tail -3 "$tmp/log")"
consumers "$prefix" lib default

# pkg-config --static where only the archives are installed.
cp -a "$prefix" "$tmp/static" && rm -f "$tmp/static"/lib/*.so*
flags=$(PKG_CONFIG_PATH="$tmp/static/lib/pkgconfig" pkg-config --cflags --libs --static lowersim_scenario) &&
  $CC -std=c11 -Wall -Werror "$SRC/tests/consumer/main.c" -o "$tmp/pc-static" $flags >"$tmp/log" 2>&1
ok $? "pkg-config --static consumer does not build ($flags): $(tail -5 "$tmp/log")"
"$tmp/pc-static" >"$tmp/out" 2>&1; ok $? "pkg-config --static consumer: $(tail -3 "$tmp/out")"
! needs "$tmp/pc-static" liblowersim; ok $? "the pkg-config --static consumer needs liblowersim"

# Installed data: the schema (also named by the .pc file and the CMake package).
schema=$(PKG_CONFIG_PATH="$prefix/lib/pkgconfig" pkg-config --variable=schema lowersim)
cmp -s "$schema" "$SRC/testdata/schema/scenario.rng"; ok $? "the .pc file's schema '$schema' is not the schema"
grep -q 'lowersim_SCHEMA' "$prefix/lib/cmake/lowersim/lowersimConfig.cmake"; ok $? "lowersimConfig.cmake has no lowersim_SCHEMA"
[ -s "$prefix/share/man/man1/lowersim.1" ]; ok $? "no man page in share/man/man1"
bash -c 'source "$1" && complete -p lowersim' _ "$prefix/share/bash-completion/completions/lowersim" >/dev/null
ok $? "no bash completion for lowersim in share/bash-completion/completions"

else
# Debian's multiarch libdir.
multi=$tmp/multiarch
cmake -S "$SRC" -B "$tmp/multi-build" -DBUILD_TESTING=OFF -DCMAKE_INSTALL_LIBDIR=lib/x86_64-linux-gnu \
  >"$tmp/log" 2>&1 && cmake --build "$tmp/multi-build" -j2 >>"$tmp/log" 2>&1 &&
  cmake --install "$tmp/multi-build" --prefix "$multi" >>"$tmp/log" 2>&1
ok $? "multiarch build and install: $(tail -5 "$tmp/log")"
for pc in lowersim lowersim_scenario; do
  got=$(PKG_CONFIG_PATH="$multi/lib/x86_64-linux-gnu/pkgconfig" pkg-config --variable=prefix $pc)
  [ "$(realpath -m "$got")" = "$(realpath "$multi")" ]; ok $? "multiarch $pc.pc: prefix $got is not $multi"
  got=$(PKG_CONFIG_PATH="$multi/lib/x86_64-linux-gnu/pkgconfig" pkg-config --variable=libdir $pc)
  [ -e "$got/lib$pc.so" ] && [ -e "$got/lib$pc.a" ]; ok $? "multiarch $pc.pc: libdir $got has no lib$pc"
done
consumers "$multi" lib/x86_64-linux-gnu multiarch
fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
