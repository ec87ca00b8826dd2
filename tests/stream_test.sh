#!/usr/bin/env bash
# tests/stream_test.sh: `lower --stream-eqns 1` (main's body printed by
# lowersim's own printer as it is lowered, lower/spill.c) gives what
# `--stream-eqns 0` (the whole module, MLIR's printer) gives, byte for byte:
# stdout, stderr and the exit code, on every scenario of testdata/ (every
# EVERY-th under sanitizers); then, on 5,000 platform_dependent equations,
# the default streams (-o FILE and stdout) and gives the same module,
# without a temporary directory it still does, holding the whole module, and
# a temporary file that cannot grow is an error, OUT not made.
set -euo pipefail
: "${LOWERSIM:?}" "${SOURCE_DIR:?}"
every=${EVERY:-1}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

outcome() { # FILE ARGS...: stdout, stderr and exit code in one text
  local f=$1 rc=0
  shift
  "$LOWERSIM" lower "$@" "$f" >"$work/out" 2>"$work/err" || rc=$?
  cat "$work/out" "$work/err"
  echo "rc=$rc"
}

n=0 checked=0 modules=0 failed=0
while IFS= read -r f; do
  n=$((n + 1))
  [ $(((n - 1) % every)) -eq 0 ] || continue
  checked=$((checked + 1))
  whole=$(outcome "$f" --stream-eqns 0)
  streamed=$(outcome "$f" --stream-eqns 1)
  if [ "$whole" != "$streamed" ]; then
    echo "FAIL: $f: --stream-eqns 1 differs from 0:"
    diff <(echo "$whole") <(echo "$streamed") | head -20 || true
    failed=$((failed + 1))
  fi
  case $whole in module*) modules=$((modules + 1)) ;; esac
done < <(find "$SOURCE_DIR/testdata" -name '*.xml' | LC_ALL=C sort)
echo "corpus: $checked scenarios compared ($modules modules), $failed differ"
[ "$failed" -eq 0 ]
[ "$modules" -gt $((400 / every)) ] # the comparison saw modules, not only errors

# 5,000 platform_dependent equations over four platforms, chained.
big=$work/big.xml
{
  echo '<?xml version="1.0"?><scenario name="big"><runtime><backend platform="cpu"/></runtime>'
  echo '<lower function="f" platforms="cpu,cuda,rocm,tpu"><arg dtype="f32" shape="8"/>'
  for ((i = 0; i < 5000; i++)); do
    echo "<platform_dependent args=\"$i\"><branch platforms=\"tpu\" op=\"sine\"/>" \
      '<default op="negate"/></platform_dependent>'
  done
  echo '</lower></scenario>'
} >"$big"
"$LOWERSIM" lower --stream-eqns 0 "$big" >"$work/whole.mlir"
"$LOWERSIM" lower "$big" >"$work/default.mlir"
"$LOWERSIM" lower "$big" -o "$work/file.mlir"
cmp "$work/whole.mlir" "$work/default.mlir"
cmp "$work/whole.mlir" "$work/file.mlir"
grep -q '^    return %19999 : tensor<8xf32>$' "$work/whole.mlir"
grep -q '^      %20000 = "stablehlo.sine"(%19995)' "$work/whole.mlir"
TMPDIR=/nonexistent/lowersim "$LOWERSIM" lower "$big" >"$work/notmp.mlir"
cmp "$work/whole.mlir" "$work/notmp.mlir"
# A temporary file that cannot grow (RLIMIT_FSIZE, 100 KiB): exit 2, the
# error line, OUT not made.
rc=0
bash -c 'trap "" XFSZ; ulimit -f 100; exec "$0" lower "$1" -o "$2"' "$LOWERSIM" "$big" \
  "$work/never.mlir" 2>"$work/full.err" || rc=$?
[ "$rc" -eq 2 ]
full="LSIM_E_IO: OSError: main's body could not be written to its temporary file"
grep -qx "$full: File too large" "$work/full.err"
[ ! -e "$work/never.mlir" ]
echo "5,000 equations: streamed to stdout and to a file, and without a temporary directory:" \
  "the same module"
