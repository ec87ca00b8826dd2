#!/usr/bin/env bash
# tests/cli_test.sh: the command line's exit codes and one-line errors.
set -u
L=${LOWERSIM:?}
fail=0 pass=0
expect() { # expect NAME WANT_EXIT WANT_STDERR_SUBSTRING -- ARGS...
  local name=$1 want=$2 needle=$3; shift 4
  local err; err=$("$L" "$@" 2>&1 >/dev/null); local got=$?
  if [ "$got" -ne "$want" ] || [[ "$err" != *"$needle"* ]]; then
    echo "FAIL $name: exit $got (want $want), stderr: $err"; fail=$((fail+1))
  else pass=$((pass+1)); fi
}
expect no-args 2 "usage: lowersim" --
expect unknown-command 2 "unknown command 'frobnicate'" -- frobnicate
expect platforms-ok 0 "" -- platforms
expect platforms-bad-option 2 "unknown option '--nope'" -- platforms --nope
expect platforms-missing-value 2 "--jax-platforms needs a value" -- platforms --jax-platforms
expect platforms-init-error 1 "LSIM_E_BACKEND_INIT: RuntimeError: Unable to initialize backend 'tpu': no TPU chips found (set JAX_PLATFORMS='' to automatically choose an available backend)" -- platforms --backend cpu --fail "tpu=no TPU chips found" --jax-platforms tpu
expect platforms-bad-name 2 "LSIM_E_INVALID_ARGUMENT: InvalidArgument: JAX_PLATFORMS='cpu,,x': platform name is empty" -- platforms --jax-platforms cpu,,x
expect platforms-alias-error 1 "LSIM_E_UNKNOWN_ALIAS_PLATFORM: RuntimeError: Unknown backend: 'gpu' requested, but no platforms that are instances of gpu are present. Platforms present are: cpu" -- platforms --lower-for gpu
expect errors-ok 0 "" -- errors
expect platforms-bad-devices 2 "lowersim platforms: --backend takes PLATFORM=DEVICES, DEVICES an integer from 0 to 1048576, not 'cuda=many'" -- platforms --backend cuda=many
expect matrix-unknown-feature 2 "lowersim matrix: --features takes features among rules,buffer_callback,python_callback,pallas,ffi_call,compute_on,lowering_cache,effects,export,export_call,session,pallas_kernels, not 'nope'" -- matrix --features nope
expect matrix-bad-jobs 2 "lowersim matrix: --jobs takes an integer from 1 to 256, not '0'" -- matrix --jobs 0
expect bench-unknown-option 2 "unknown option '--nope'" -- bench --nope
expect triton-tensor-limit 2 "testdata/oracle-findings/triton-tensor-limit.xml:7: a Triton kernel's block of 268435456 elements is over Triton's limit of 1048576, whose verifier error lowersim does not model" -- lower "$SOURCE_DIR/testdata/oracle-findings/triton-tensor-limit.xml"
expect check-impl-missing 2 "lowersim check: --impl needs a value (see --help)" -- check . --impl
# JAX versions: `versions`, and --jax on every command that lowers.
expect versions-ok 0 "" -- versions
expect versions-two 0 "" -- versions 0.10.2 2d666224
expect versions-unknown 2 "lowersim versions: '0.9' is not a JAX version lowersim models (it models 0.10.2, 0.11.0, 0.11.1, 0.11.2, 0.12.0.1; see \`lowersim versions\`)" -- versions 0.9
expect versions-three 2 "at most two versions" -- versions 0.10.2 0.10.2 0.10.2
for cmd in lower explain check matrix fuzz bench; do
  expect "$cmd-jax-unknown" 2 "lowersim $cmd: --jax '0.9' is not a JAX version lowersim models" -- $cmd --jax 0.9
  expect "$cmd-jax-missing" 2 "lowersim $cmd: --jax needs a" -- $cmd --jax
done
out=$("$L" platforms --jax-platforms cuda,cpu --lower-for cuda --pin cpu)
if [[ "$out" != *"cuda        1 device   priority    2  <- default backend"* ]] ||
   [[ "$out" != *"get_backend(optional=False)  raises ValueError: the platform for the specified backend cpu is different from the lowering platform cuda"* ]]; then
  echo "FAIL platforms-output:"; echo "$out"; fail=$((fail+1))
else pass=$((pass+1)); fi
# `lower --help` lists the equation elements from the table of kinds.
help=$("$L" lower --help)
if [[ "$help" != *"  <op>  "*"lax's elementwise ops"* ]] || [[ "$help" != *"  <pallas_call>  "*"pl.pallas_call"* ]]; then
  echo "FAIL lower-help: $help"; fail=$((fail+1))
else pass=$((pass+1)); fi
# `errors` lists every code of the header, each once, with its value.
listed=$("$L" errors | awk '/^LSIM_E_/ {print $1, $2}')
declared=$(sed -n 's/^  \(LSIM_E_[A-Z0-9_]*\) = \(-[0-9]*\),.*/\1 \2/p' "$SOURCE_DIR/include/lowersim/error.h")
if [ -z "$declared" ] || [ "$listed" != "$declared" ]; then
  echo "FAIL errors: the listed codes are not the header's:"; diff <(echo "$declared") <(echo "$listed")
  fail=$((fail+1))
else pass=$((pass+1)); fi
check() { # check NAME CONDITION-EXIT-CODE (0 = pass) MESSAGE
  if [ "$2" -eq 0 ]; then pass=$((pass+1)); else echo "FAIL $1: $3"; fail=$((fail+1)); fi
}
"$L" versions 0.10.2 2d66622 --json | python3 -c 'import json, sys; d = json.load(sys.stdin); assert len(d["versions"]) == 2 and any(f["differs"] for f in d["facts"])'
check versions-json $? "versions --json is not the JSON it should be"
out=$("$L" versions 0.10.2 0.12.0)
[[ "$out" == *"environment.python_requires"*"changed in 0.11.0 by 5ab345f1b4"* && "$out" == *"JAX 0.12.0.1 (dc4af68444)"* && "$out" == *" facts differ."* ]]
check versions-changelog $? "$out"
SRC=${SOURCE_DIR:?}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

# check: the bundled scenarios pass; --impl against lowersim itself agrees; a wrong
# implementation is caught with the difference.
out=$("$L" check "$SRC/testdata/scenarios" --junit "$tmp/j.xml"); code=$?
check check-scenarios $(( code != 0 )) "exit $code: $out"
[[ "$(tail -1 <<<"$out")" =~ ^[0-9]+\ passed,\ 0\ failed ]]; check check-last-line $? "$(tail -1 <<<"$out")"
xmllint --noout "$tmp/j.xml" 2>/dev/null; check check-junit $? "invalid JUnit XML"
out=$("$L" check "$SRC/testdata/scenarios" --impl "$L lower {scenario}"); code=$?
check check-impl-self $(( code != 0 )) "$out"
out=$("$L" check "$SRC/testdata/scenarios/missing-rule.xml" --impl "echo 'X: NotImplementedError: other' >&2; exit 1"); code=$?
[[ $code -eq 1 && "$out" == *"expected the error \"NotImplementedError: MLIR translation rule for primitive 'my_op' not found for platforms ['tpu', 'rocm']\""* ]]
check check-impl-wrong $? "exit $code: $out"
mkdir "$tmp/empty"
expect check-no-files 2 "no scenario found" -- check "$tmp/empty"

# matrix: two shards merge into the whole; one and two threads give the same rows.
"$L" matrix --limit 3000 --csv "$tmp/whole.csv" >/dev/null; check matrix-run $? "exit"
"$L" matrix --limit 3000 --jobs 2 --csv "$tmp/two.csv" >/dev/null
cmp -s "$tmp/whole.csv" "$tmp/two.csv"; check matrix-jobs-deterministic $? "--jobs 2 rows differ"
# Three threads over a range of chunks (1,372 cases each, claimed as they go)
# that does not start at 0 or end on a chunk's end: the rows in case order.
"$L" matrix --shard 7/400 --csv "$tmp/one.csv" >/dev/null
"$L" matrix --shard 7/400 --jobs 3 --csv "$tmp/three.csv" >/dev/null
cmp -s "$tmp/one.csv" "$tmp/three.csv"; check matrix-jobs-chunks $? "--jobs 3 rows differ"
total=$("$L" matrix --limit 1 | head -1 | sed 's/.* of \([0-9]*\) .*/\1/')
[ "${total:-0}" -ge 1000000 ]; check matrix-size $? "default matrix has $total cases"
"$L" matrix --features rules --max-len 1 --shard 0/2 --csv "$tmp/s0.csv" >/dev/null
"$L" matrix --features rules --max-len 1 --shard 1/2 --csv "$tmp/s1.csv" >/dev/null
"$L" matrix --features rules --max-len 1 --csv "$tmp/all.csv" >"$tmp/all.txt"
"$L" matrix --merge "$tmp/s1.csv" "$tmp/s0.csv" --csv "$tmp/merged.csv" --junit "$tmp/m.xml" >"$tmp/merged.txt"
cmp -s "$tmp/all.csv" "$tmp/merged.csv"; check matrix-merge-rows $? "merged rows differ"
diff <(sed -n '2,/cases/p' "$tmp/all.txt" | head -n -1) <(sed -n '2,/cases/p' "$tmp/merged.txt" | head -n -1)
check matrix-merge-summary $? "merged summary differs"
xmllint --noout "$tmp/m.xml" 2>/dev/null; check matrix-junit $? "invalid JUnit XML"
expect matrix-bad-shard 2 "lowersim matrix: --shard takes I/N with 0 <= I < N, not '2/2'" -- matrix --shard 2/2
expect matrix-merge-overlap 2 "shard 0/2 again" -- matrix --merge "$tmp/s0.csv" "$tmp/s0.csv"

# lower -o: written whole on success; never created or touched on failure.
"$L" lower "$SRC/testdata/scenarios/single-platform.xml" -o "$tmp/out.mlir"
cmp -s "$tmp/out.mlir" "$SRC/testdata/expected/single-platform.mlir"; check lower-o-written $? "-o content differs"
echo previous >"$tmp/keep.mlir"
"$L" lower "$SRC/testdata/scenarios/missing-rule.xml" -o "$tmp/keep.mlir" 2>/dev/null
[ "$(cat "$tmp/keep.mlir")" = previous ]; check lower-o-untouched-on-error $? "-o was overwritten"
"$L" lower "$SRC/testdata/scenarios/buffer-callback-returns-value.xml" -o "$tmp/none.mlir" 2>/dev/null
[ ! -e "$tmp/none.mlir" ]; check lower-o-absent-on-execute-error $? "-o exists after a failed execution"
[ -z "$(ls "$tmp" | grep '\.tmp\.')" ]; check lower-o-no-temporaries $? "temporary files left"
expect lower-missing-file 2 "nope.xml: No such file or directory" -- lower "$tmp/nope.xml"
expect lower-unwritable 2 "cannot write" -- lower "$SRC/testdata/scenarios/single-platform.xml" -o /proc/nope/x.mlir

# explain: the narration names JAX's steps; a typed error exits 1 with its line.
out=$("$L" explain "$SRC/testdata/scenarios/platform-dependent.xml"); code=$?
[[ $code -eq 0 && "$out" == *"platform_index(platforms=(('tpu',), ('cuda', 'rocm'), None))"* &&
   "$out" == *"cond keeps branch 2 (neg) as 0, first selected by cpu"* &&
   "$out" == *"kept rule 2: the default rule for cpu"* && "$out" == *"module (verified)"* ]]
check explain-platform-dependent $? "exit $code: $out"
out=$("$L" explain "$SRC/testdata/scenarios/pallas-tpu.xml"); code=$?
[[ $code -eq 0 && "$out" == *"kernel module:"* && "$out" == *"\"stable_mosaic.func.func\"()"* && "$out" == *"sym_name = \"add_one\""* ]]
check explain-pallas-kernel $? "exit $code"
# row_sum's blocks are whole rows (lowersim's kernel; the row count is JAX's to judge)
sed 's/block="4,256"/block="4,128"/' "$SRC/testdata/conformance/pallas/tpu-block-row-sum-x64.xml" >"$tmp/rows.xml"
expect row-sum-whole-rows 2 "rows.xml:7: Pallas kernel 'row_sum': block=\"4,128\" must be whole rows (ROWS,256), ROWS dividing 16" -- lower "$tmp/rows.xml"
# a blocked kernel's grid is its block's: not grid=1 on the equation's line
out=$("$L" explain "$SRC/testdata/conformance/pallas/mosaic-gpu-tiled-grid-3x3.xml")
[[ "$out" == *"pallas_call[kernel=tiled_add_one interpret=False compiler_params=plgpu.CompilerParams block=(8, 128)](f32[24,384])"* &&
   "$out" == *"> grid: (3, 3), the f32[24,384] in (8, 128) blocks"* ]]; check explain-pallas-2d-grid $? "no (3, 3) grid"
out=$("$L" explain "$SRC/testdata/conformance/pallas/interpret-gather-rows.xml")
[[ "$out" == *"> grid: (4,), the output f32[32,128] in (8, 128) blocks"* ]]; check explain-pallas-prefetch-grid $? "no (4,) grid"
out=$("$L" explain "$SRC/testdata/scenarios/buffer-callback-cuda.xml")
[[ "$out" == *"add_host_callback(buffer_callback) -> index 2"* ]]; check explain-host-callbacks $? "no host callback narration"
out=$("$L" explain "$SRC/testdata/scenarios/python-callbacks-tpu.xml")
[[ "$out" == *"new_channel() -> 7"* && "$out" == *"channels         6"* ]]; check explain-channels $? "no channel narration"
expect explain-typed-error 1 "LSIM_E_NO_LOWERING_RULE: NotImplementedError: MLIR translation rule for primitive 'my_op' not found for platforms ['tpu', 'rocm']" -- explain "$SRC/testdata/scenarios/missing-rule.xml"
[[ "$("$L" explain "$SRC/testdata/scenarios/single-platform.xml")" != *$'\033'* ]]; check explain-no-colour-off-terminal $? "colour codes in a pipe"

# Colour: one decision for every command (cli_colour_decide): --color=always|
# never|auto; auto colours a terminal only, not when NO_COLOR is set and not
# empty (no-color.org: an empty NO_COLOR does not count), not when TERM=dumb.
# `script` gives the command a terminal.
colour() { # colour WANT(yes|no) NAME tty|pipe [VAR=VALUE...] -- ARGS...: colour codes or not
  local want=$1 name=$2 how=$3 vars=() out got; shift 3
  while [ "$1" != -- ]; do vars+=("$1"); shift; done; shift
  local run=(env -u NO_COLOR TERM=xterm "${vars[@]}" "$L" "$@")
  if [ "$how" = tty ]; then out=$(script -qec "$(printf '%q ' "${run[@]}")" /dev/null 2>&1)
  else out=$("${run[@]}" 2>&1); fi
  if [[ "$out" == *$'\033['* ]]; then got=yes; else got=no; fi
  [ "$got" = "$want" ]; check "colour-$name" $? "colour $got, want $want: $how ${vars[*]} $*"
}
sp="$SRC/testdata/scenarios/single-platform.xml"
if command -v script >/dev/null; then
  colour yes tty tty -- explain "$sp"
  colour no tty-no-color tty NO_COLOR=1 -- explain "$sp"
  colour yes tty-empty-no-color tty NO_COLOR= -- explain "$sp"
  colour no tty-dumb tty TERM=dumb -- explain "$sp"
  colour no tty-never tty -- explain --color=never "$sp"
  colour yes tty-auto tty -- explain --color auto "$sp"
  colour yes tty-always-no-color tty NO_COLOR=1 TERM=dumb -- explain --color=always "$sp"
else
  echo "script is not installed: colour on a terminal is not tested"
fi
colour no pipe pipe -- explain "$sp"
colour yes pipe-always pipe -- explain --color=always "$sp"
colour no pipe-auto pipe -- explain --color=auto "$sp"
expect colour-bad 2 "lowersim explain: --color takes always, never or auto, not 'alway' (did you mean 'always'?)" -- explain --color=alway "$sp"
expect colour-missing 2 "lowersim lower: --color needs a value: always, never or auto" -- lower --color

# Typos: one line naming the nearest name, then where the help is; exit 2.
exact() { # exact NAME WANT_EXIT WANT_STDERR -- ARGS...: the whole of stderr
  local name=$1 want=$2 text=$3; shift 4
  local err; err=$("$L" "$@" 2>&1 >/dev/null); local got=$?
  [ "$got" -eq "$want" ] && [ "$err" = "$text" ]
  check "$name" $? "exit $got (want $want), stderr: $err"
}
exact typo-command 2 "lowersim: unknown command 'lowr' (did you mean 'lower'?)
Try 'lowersim --help'." -- lowr
exact typo-command-transposed 2 "lowersim: unknown command 'chekc' (did you mean 'check'?)
Try 'lowersim --help'." -- chekc
exact typo-command-far 2 "lowersim: unknown command 'frobnicate'
Try 'lowersim --help'." -- frobnicate
exact typo-top-option 2 "lowersim: unknown option '--hlep' (did you mean '--help'?)
Try 'lowersim --help'." -- --hlep
for c in lower explain check matrix fuzz bench versions platforms errors; do
  typo=--jsno near=--json
  case $c in fuzz|bench) typo=--jxa near=--jax ;; esac
  exact "typo-option-$c" 2 "lowersim $c: unknown option '$typo' (did you mean '$near'?)
Try 'lowersim $c --help'." -- $c $typo
  exact "typo-option-far-$c" 2 "lowersim $c: unknown option '--frobnicate'
Try 'lowersim $c --help'." -- $c --frobnicate
done 2>/dev/null
exact typo-option-value 2 "lowersim lower: unknown option '--jsn=1' (did you mean '--json'?)
Try 'lowersim lower --help'." -- lower --jsn=1
exact typo-short 2 "lowersim lower: unknown option '-q'
Try 'lowersim lower --help'." -- lower -q x.xml
exact typo-feature 2 "lowersim matrix: --features takes features among rules,buffer_callback,python_callback,pallas,ffi_call,compute_on,lowering_cache,effects,export,export_call,session,pallas_kernels, not 'rules,palas' (did you mean 'pallas'?)" -- matrix --features rules,palas
exact typo-focus 2 "lowersim fuzz: --focus needs an equation element (see lowersim lower --help), not 'palas_call' (did you mean 'pallas_call'?)" -- fuzz --focus palas_call
exact typo-jax 2 "lowersim lower: --jax '0.10.3' is not a JAX version lowersim models (it models 0.10.2, 0.11.0, 0.11.1, 0.11.2, 0.12.0.1; see \`lowersim versions\`) (did you mean '0.10.2'?)" -- lower --jax 0.10.3 x.xml
exact typo-jax-ambiguous 2 "lowersim lower: --jax '0.11.3' is not a JAX version lowersim models (it models 0.10.2, 0.11.0, 0.11.1, 0.11.2, 0.12.0.1; see \`lowersim versions\`)" -- lower --jax 0.11.3 x.xml
exact typo-normalize 2 "lowersim check: --normalize knows one way, jax, not 'jx' (did you mean 'jax'?)" -- check --impl x --normalize jx x.xml
exact typo-workload 2 "lowersim bench: --workload takes buffer_callback, platform_dependent or pallas_call, not 'palas_call' (did you mean 'pallas_call'?)" -- bench --workload palas_call

# lower --help's op kinds are the reader's: each lowers as <op kind=>, and
# they are the schema's list.
kinds=$("$L" lower --help | sed -n '/^The op kinds of/{n;p}' | tr -d ' ' | tr , '\n')
[ "$(echo $kinds)" = "sine cosine negate exponential add multiply subtract" ]; check help-op-kinds $? "lower --help lists '$(echo $kinds)'"
schema_kinds=$(sed -n '/<define name="op_kind">/,/<\/define>/p' "$SRC/testdata/schema/scenario.rng" | grep -o '<value>[a-z_]*</value>' | sed 's/<[^>]*>//g')
[ "$kinds" = "$schema_kinds" ]; check help-op-kinds-schema $? "the schema's op kinds: $(echo $schema_kinds)"
for k in $kinds; do
  arity=1; case $k in add|multiply|subtract) arity=2 ;; esac
  args=0; [ $arity -eq 2 ] && args=0,0
  printf '<scenario name="k"><lower function="f"><arg dtype="f32" shape="4"/><op kind="%s" args="%s"/></lower></scenario>\n' "$k" "$args" >"$tmp/kind.xml"
  "$L" lower "$tmp/kind.xml" >/dev/null; check "help-op-kind-$k" $? "<op kind=\"$k\"> does not lower"
done

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
