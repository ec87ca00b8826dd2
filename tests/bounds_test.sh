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
. "$(dirname "${BASH_SOURCE[0]}")/harness.sh"
cd "$tmp" || exit 1
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
# An expected file is judged as bytes, as a port's answer is: junk after a
# NUL byte in a module or an error line fails.
{ cat "$SRC/testdata/expected/single-platform.mlir"; printf '\0junk'; } >d/expected/single-platform.mlir
expect check-expected-nul-module 1 "single-platform.mlir (\"the implementation\"): the implementation's stdout holds a NUL byte at offset" -- check d/s
rm d/expected/single-platform.mlir d/s/single-platform.xml
# (its <expect> dropped: a scenario with one is judged by it, not by a file)
sed '/<expect/,/\/>/d' "$S/missing-rule.xml" >d/s/missing-rule.xml
{ cat "$SRC/testdata/expected/missing-rule.err"; printf '\0junk'; } >d/expected/missing-rule.err
expect check-expected-nul-error 1 "missing-rule.err (\"the implementation\"): the implementation's stderr holds a NUL byte at offset" -- check d/s
cp "$SRC/testdata/expected/missing-rule.err" d/expected/
expect check-expected-error 0 "1 passed, 0 failed" -- check d/s
rm -r d/s/missing-rule.xml d/expected/missing-rule.err
cp "$S/single-platform.xml" d/s/

# check --impl: the port's module (its kernels: python/tests/test_bindings.py).
cat >port.sh <<'PORT'
#!/bin/sh
awk 'BEGIN { s = "module {"; for (i = 0; i < 50000; i++) s = s "module {"; for (i = 0; i <= 50000; i++) s = s "}"; print s }'
PORT
chmod +x port.sh
expect impl-deep 1 "the implementation's output does not parse as MLIR: $deep" -- check --impl ./port.sh "$S/single-platform.xml"
expect impl-deep-batch 1 "the implementation's output does not parse as MLIR: $deep" -- check --impl ./port.sh --jobs 2 "$S/single-platform.xml" "$S/missing-rule.xml"

# Scenarios in every encoding: converted to UTF-8 before the reader's limits
# (UTF-16, UTF-32, EBCDIC and UTF-7 hid every `<` from them: 430 KB of
# attributes took libxml2 18.8 s), the same module as in UTF-8.
if command -v iconv >/dev/null; then
  sed 1d "$S/single-platform.xml" >body.xml
  { printf '<scenario name="x"><lower'; for i in $(seq 0 20000); do printf ' a%d="1"' "$i"; done
    printf '/></scenario>\n'; } >hostile.xml
  "$L" lower "$S/single-platform.xml" >want.mlir
  for e in UTF-16LE UTF-16BE UTF-16 UTF-32LE UTF-32BE UTF-32 UTF-7 IBM037 ISO-8859-1; do
    for doc in body hostile; do
      { printf '<?xml version="1.0" encoding="%s"?>\n' "${e%[LB]E}"; cat $doc.xml; } | iconv -f UTF-8 -t $e >$doc-$e.xml
    done
    timeout 20 "$L" lower body-$e.xml >got.mlir && cmp -s got.mlir want.mlir && ok || ko "lower in $e"
    expect "limits-$e" 2 "hostile-$e.xml:2: <lower> has more than 64 attributes, the limit for an element of a scenario" -- lower hostile-$e.xml
  done
  # UTF-7 as a port might write it: every `<` as +ADw-.
  { printf '<?xml version="1.0" encoding="UTF-7"?>\n+ADw-scenario name="x"+AD4APA-lower'
    for i in $(seq 0 20000); do printf ' a%d="1"' "$i"; done; printf '/+AD4-\n'; } >utf7.xml
  expect limits-utf7-escaped 2 "utf7.xml:2: <lower> has more than 64 attributes" -- lower utf7.xml
else
  echo "note: no iconv command; the encodings are skipped"
fi
printf '<?xml version="1.0" encoding="X-NO-SUCH"?>\n<scenario/>\n' >unknown.xml
expect encoding-unknown 2 "unknown.xml:1: the encoding 'X-NO-SUCH' is not supported (lowersim reads a scenario in any encoding iconv knows; see \`iconv -l\`)" -- lower unknown.xml
printf '\xff\xfe<\x00s\x00\n\x00\x00\xd8<\x00' >surrogate.xml
expect encoding-invalid 2 "surrogate.xml:2: the bytes at byte offset 6 are not valid UTF-16LE" -- lower surrogate.xml

# A byte order mark and nothing after it (libFuzzer: "out of memory").
printf '\xff\xfe' >bom.xml
expect encoding-bom-only 2 "bom.xml:1: the file is empty; a scenario is a <scenario> element" -- lower bom.xml

finish
