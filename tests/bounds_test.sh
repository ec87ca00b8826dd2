#!/usr/bin/env bash
# tests/bounds_test.sh: every text lowersim did not write is parsed within
# bounds (issue 26): MLIR text nested past the limit of MLIR's recursive
# parser, whether an expected module of `check DIR`, a port's output under
# `check --impl` or a kernel inside it, is refused with its reason, never a
# crash (each of these was exit 139).
#   LOWERSIM=the command  SOURCE_DIR=the tree
set -u
L=${LOWERSIM:?} SRC=${SOURCE_DIR:?}
S=$SRC/testdata/scenarios
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
pass=0 fail=0
ok() { pass=$((pass+1)); }
ko() { echo "FAIL $*"; fail=$((fail+1)); }
# expect NAME WANT_EXIT WANT_STDOUT_SUBSTRING -- ARGS...
expect() {
  local name=$1 want=$2 needle=$3; shift 4
  local out; out=$(timeout 120 "$L" "$@" 2>&1); local got=$? # 124: it hung, 139: it crashed
  if [ "$got" -ne "$want" ] || [[ "$out" != *"$needle"* ]]; then
    ko "$name: exit $got (want $want), output: ${out:0:600}"
  else ok; fi
}
# nest OPEN MIDDLE CLOSE N: OPEN N times, MIDDLE, CLOSE N times.
nest() { awk -v o="$1" -v m="$2" -v c="$3" -v n="$4" 'BEGIN {
  s = ""; for (i = 0; i < n; i++) s = s o; s = s m; for (i = 0; i < n; i++) s = s c; print s }'; }
deep="it is nested deeper than 256 levels at line 1, the limit lowersim gives MLIR's parser and printer (their recursion would overflow the stack)"

# check DIR: ../expected/NAME.mlir of every kind of nesting.
mkdir -p d/s d/expected
cp "$S/single-platform.xml" d/s/
i=0
for kind in '|module {||}|' 'module attributes {x.a = [|[|1|]|]} {}' \
            'module attributes {x.a = {|a = {|1|}|}} {}' 'module attributes {x.a = tuple<|tuple<|i32|>|>} {}' \
            'module attributes {x.a = affine_map<(d0) -> (d0| + d0|||)>} {}'; do
  IFS='|' read -r head open mid close tail <<<"$kind"
  { printf '%s' "$head"; nest "$open" "$mid" "$close" 20000 | tr -d '\n'; printf '%s\n' "$tail"; } \
    >d/expected/single-platform.mlir
  expect "check-expected-$i" 1 "against d/s/../expected/single-platform.mlir (\"the implementation\"): the implementation's output does not parse as MLIR: $deep" -- check d/s
  i=$((i+1))
done
# An alias chain: 40 aliases of 10 levels each, 400 deep where used.
{ for i in $(seq 0 39); do
    printf '#a%d = [[[[[[[[[[%s]]]]]]]]]]\n' "$i" "$([ "$i" -gt 0 ] && echo "#a$((i-1))")"
  done; echo 'module attributes {x.a = #a39} {}'; } >d/expected/single-platform.mlir
expect check-expected-aliases 1 "it is nested deeper than 256 levels through the alias #a24 at line 26" -- check d/s

# check --impl: the port's module (its kernels: python/tests/test_bindings.py).
cat >port.sh <<'PORT'
#!/bin/sh
awk 'BEGIN { s = "module {"; for (i = 0; i < 50000; i++) s = s "module {"; for (i = 0; i <= 50000; i++) s = s "}"; print s }'
PORT
chmod +x port.sh
expect impl-deep 1 "the implementation's output does not parse as MLIR: $deep" -- check --impl ./port.sh "$S/single-platform.xml"
expect impl-deep-batch 1 "the implementation's output does not parse as MLIR: $deep" -- check --impl ./port.sh --jobs 2 "$S/single-platform.xml" "$S/missing-rule.xml"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
