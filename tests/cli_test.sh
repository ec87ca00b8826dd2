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
out=$("$L" platforms --jax-platforms cuda,cpu --lower-for cuda --pin cpu)
if [[ "$out" != *"cuda        1 device   priority    2  <- default backend"* ]] ||
   [[ "$out" != *"get_backend(optional=False)  raises ValueError: the platform for the specified backend cpu is different from the lowering platform cuda"* ]]; then
  echo "FAIL platforms-output:"; echo "$out"; fail=$((fail+1))
else pass=$((pass+1)); fi
n=$("$L" errors | grep -c '^LSIM_E_')
if [ "$n" -lt 31 ]; then echo "FAIL errors: only $n codes"; fail=$((fail+1)); else pass=$((pass+1)); fi
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
