#!/usr/bin/env bash
# tests/install_test.sh: `cmake --install` into a temporary prefix, then a
# program outside the tree builds against it with find_package(lowersim) and
# with pkg-config, and runs.
set -u
BUILD=${BUILD_DIR:?} SRC=${SOURCE_DIR:?}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
ok() { if [ "$1" -eq 0 ]; then pass=$((pass+1)); else echo "FAIL $2"; fail=$((fail+1)); fi; }
cmake --install "$BUILD" --prefix "$tmp/prefix" >"$tmp/log" 2>&1; ok $? "cmake --install: $(tail -3 "$tmp/log")"
cmake -S "$SRC/tests/consumer" -B "$tmp/b" -DCMAKE_PREFIX_PATH="$tmp/prefix" >"$tmp/log" 2>&1 &&
  cmake --build "$tmp/b" >>"$tmp/log" 2>&1; ok $? "find_package consumer build: $(tail -5 "$tmp/log")"
"$tmp/b/consumer" >/dev/null; ok $? "find_package consumer run"
flags=$(PKG_CONFIG_PATH="$tmp/prefix/lib/pkgconfig" pkg-config --cflags --libs --static lowersim)
cc "$SRC/tests/consumer/main.c" -o "$tmp/pc" $flags >"$tmp/log" 2>&1; ok $? "pkg-config consumer build: $(tail -5 "$tmp/log")"
"$tmp/pc" >/dev/null; ok $? "pkg-config consumer run"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
