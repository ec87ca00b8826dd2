#!/usr/bin/env bash
# tests/readme_test.sh: the README's library example compiles and runs.  Its
# #include lines go first, its statements into main.
set -u
SRC=${SOURCE_DIR:?} CC=${CC:-cc}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
awk '/^## Using the library/ {on=1} on && /^```c$/ {code=1; next} code && /^```$/ {exit} code {print}' \
  "$SRC/README.md" >"$tmp/block.c"
{ grep '^#include' "$tmp/block.c"; echo '#include <stdlib.h>'; echo 'int main(void) {'
  grep -v '^#include' "$tmp/block.c"; echo 'return 0; }'; } >"$tmp/example.c"
if ! $CC -std=c11 -Wall -Werror -o "$tmp/example" "$tmp/example.c" -I"$SRC/include" -isystem "$MLIR_INCLUDE" \
     $LOWERSIM_LIBS >"$tmp/log" 2>&1; then
  echo "FAIL the README example does not compile:"; cat "$tmp/log"; cat -n "$tmp/example.c"; exit 1
fi
out=$("$tmp/example" 2>&1); code=$?
if [ $code -ne 0 ] || [[ "$out" != *"jax.uses_shape_polymorphism = true"* ]] ||
   [[ "$out" != *'"stablehlo.sine"'* ]]; then
  echo "FAIL the README example exits $code:"; echo "$out"; exit 1
fi
echo "1 passed, 0 failed"
