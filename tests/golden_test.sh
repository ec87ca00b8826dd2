#!/usr/bin/env bash
# tests/golden_test.sh: every bundled scenario against its expected output.
#   testdata/expected/NAME.mlir  the module `lowersim lower` prints (exit 0), which
#                                must also round-trip through mlir-opt unchanged
#   testdata/expected/NAME.err   the one-line error on stderr (exit 1 or 2)
# With --update, the expected files are rewritten from what lowersim prints now.
set -u
L=${LOWERSIM:?} SRC=${SOURCE_DIR:?} OPT=${MLIR_OPT:-mlir-opt-19}
update=false; [ "${1:-}" = "--update" ] && update=true
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
for scenario in "$SRC"/testdata/scenarios/*.xml; do
  name=$(basename "$scenario" .xml)
  "$L" lower "$scenario" >"$tmp/out" 2>"$tmp/err"; code=$?
  if $update; then
    rm -f "$SRC/testdata/expected/$name".{mlir,err}
    if [ $code -eq 0 ]; then cp "$tmp/out" "$SRC/testdata/expected/$name.mlir"
    else cp "$tmp/err" "$SRC/testdata/expected/$name.err"; fi
    continue
  fi
  if [ -f "$SRC/testdata/expected/$name.mlir" ]; then
    if [ $code -ne 0 ] || ! diff -u "$SRC/testdata/expected/$name.mlir" "$tmp/out" >"$tmp/diff"; then
      echo "FAIL $name: exit $code"; cat "$tmp/err" "$tmp/diff"; fail=$((fail+1)); continue
    fi
    if ! "$OPT" --allow-unregistered-dialect "$tmp/out" >"$tmp/rt" 2>"$tmp/rterr" ||
       ! diff -u "$tmp/out" "$tmp/rt" >"$tmp/diff"; then
      echo "FAIL $name: does not round-trip through $OPT"; cat "$tmp/rterr" "$tmp/diff"
      fail=$((fail+1)); continue
    fi
  elif [ -f "$SRC/testdata/expected/$name.err" ]; then
    if [ $code -eq 0 ] || ! diff -u "$SRC/testdata/expected/$name.err" "$tmp/err"; then
      echo "FAIL $name: exit $code"; fail=$((fail+1)); continue
    fi
  else
    echo "FAIL $name: no expected output (run with --update)"; fail=$((fail+1)); continue
  fi
  pass=$((pass+1))
done
$update && { echo "expected outputs updated"; exit 0; }
echo "$pass passed, $fail failed"
[ $fail -eq 0 ] && [ $pass -gt 0 ]
