#!/usr/bin/env bash
# tests/matrix_test.sh: the matrix's features of issue 13's items 3-8 (ffi_call,
# compute_on, lowering_cache, effects, export, export_call, session,
# pallas_kernels), each
# pinned by its rows' outcome counts for JAX 0.10.2 over cpu, cuda, tpu and
# their pairs (feature, row: cases: OK, then each error with its count).
set -u
L=${LOWERSIM:?}
fail=0 pass=0
rows() { # rows FEATURE [ARGS...]: the summary's rows of FEATURE, one per line
  local f=$1; shift
  "$L" matrix --features "$f" "$@" |
    awk -v f="$f" 'NR > 2 && $1 == f {line=$2":"$3":"$4; for (i=5;i<=NF;i++) line=line" "$i; print line}'
}
expect_rows() { # expect_rows FEATURE EXPECTED [ARGS...]
  local f=$1 want=$2; shift 2
  local got; got=$(rows "$f" "$@")
  if [ "$got" != "$want" ]; then
    echo "FAIL $f: rows differ"; diff <(echo "$want") <(echo "$got"); fail=$((fail+1))
  else pass=$((pass+1)); fi
}
M=(--jax 0.10.2 --platforms cpu,cuda,tpu --max-len 2)
expect_rows ffi_call "\
cpu:1792:1152 UNKNOWN_BACKEND 640
cuda:1792:1152 UNKNOWN_BACKEND 640
tpu:1792:1152 UNKNOWN_BACKEND 640
cpu+gpu:3584:2304 UNKNOWN_BACKEND 1280
cpu+tpu:3584:2304 UNKNOWN_BACKEND 1280
gpu+tpu:3584:2304 UNKNOWN_BACKEND 1280" "${M[@]}"
expect_rows compute_on "\
cpu:2240:708 UNKNOWN_BACKEND 800 BACKEND_PLATFORM_MISMATCH 444 INVALID_COMPUTE_TYPE 288
cuda:2240:704 UNKNOWN_BACKEND 800 BACKEND_PLATFORM_MISMATCH 448 INVALID_COMPUTE_TYPE 288
tpu:2240:644 UNKNOWN_BACKEND 800 BACKEND_PLATFORM_MISMATCH 508 INVALID_COMPUTE_TYPE 288
cpu+gpu:4480:1152 UNKNOWN_BACKEND 1600 PYTHON_CALLBACK_MULTI_PLATFORM 1152 INVALID_COMPUTE_TYPE 576
cpu+tpu:4480:1152 UNKNOWN_BACKEND 1600 PYTHON_CALLBACK_MULTI_PLATFORM 1152 INVALID_COMPUTE_TYPE 576
gpu+tpu:4480:1152 UNKNOWN_BACKEND 1600 PYTHON_CALLBACK_MULTI_PLATFORM 1152 INVALID_COMPUTE_TYPE 576" "${M[@]}"
expect_rows lowering_cache "\
cpu:896:576 UNKNOWN_BACKEND 320
cuda:896:288 UNKNOWN_BACKEND 320 NO_LOWERING_RULE 288
tpu:896:576 UNKNOWN_BACKEND 320
cpu+gpu:1792:576 UNKNOWN_BACKEND 640 NO_LOWERING_RULE 576
cpu+tpu:1792:1152 UNKNOWN_BACKEND 640
gpu+tpu:1792:576 UNKNOWN_BACKEND 640 NO_LOWERING_RULE 576" "${M[@]}"
expect_rows effects "\
cpu:896:132 BACKEND_PLATFORM_MISMATCH 444 UNKNOWN_BACKEND 320
cuda:896:128 BACKEND_PLATFORM_MISMATCH 448 UNKNOWN_BACKEND 320
tpu:896:68 BACKEND_PLATFORM_MISMATCH 508 UNKNOWN_BACKEND 320
cpu+gpu:1792:0 PYTHON_CALLBACK_MULTI_PLATFORM 864 UNKNOWN_BACKEND 640 UNCACHED_MULTI_PLATFORM 288
cpu+tpu:1792:0 PYTHON_CALLBACK_MULTI_PLATFORM 864 UNKNOWN_BACKEND 640 UNCACHED_MULTI_PLATFORM 288
gpu+tpu:1792:0 PYTHON_CALLBACK_MULTI_PLATFORM 864 UNKNOWN_BACKEND 640 UNCACHED_MULTI_PLATFORM 288" "${M[@]}"
expect_rows export "\
cpu:1344:432 UNKNOWN_BACKEND 480 BACKEND_PLATFORM_MISMATCH 222 EXPORT_CUSTOM_CALL 144 +1 more (66 cases)
cuda:1344:432 UNKNOWN_BACKEND 480 BACKEND_PLATFORM_MISMATCH 224 EXPORT_CUSTOM_CALL 144 +1 more (64 cases)
tpu:1344:432 UNKNOWN_BACKEND 480 BACKEND_PLATFORM_MISMATCH 254 EXPORT_CUSTOM_CALL 144 +1 more (34 cases)
cpu+gpu:2688:864 UNKNOWN_BACKEND 960 PYTHON_CALLBACK_MULTI_PLATFORM 576 EXPORT_CUSTOM_CALL 288
cpu+tpu:2688:864 UNKNOWN_BACKEND 960 PYTHON_CALLBACK_MULTI_PLATFORM 576 EXPORT_CUSTOM_CALL 288
gpu+tpu:2688:864 UNKNOWN_BACKEND 960 PYTHON_CALLBACK_MULTI_PLATFORM 576 EXPORT_CUSTOM_CALL 288" "${M[@]}"
expect_rows export_call "\
cpu:896:432 UNKNOWN_BACKEND 320 EXPORT_CALL_PLATFORMS 144
cuda:896:432 UNKNOWN_BACKEND 320 EXPORT_CALL_PLATFORMS 144
tpu:896:432 UNKNOWN_BACKEND 320 EXPORT_CALL_PLATFORMS 144
cpu+gpu:1792:288 UNKNOWN_BACKEND 640 EXPORT_CALL_PLATFORMS 576 EXPORT_CALL_ASSERTION 288
cpu+tpu:1792:576 UNKNOWN_BACKEND 640 EXPORT_CALL_PLATFORMS 288 EXPORT_CALL_ASSERTION 288
gpu+tpu:1792:288 UNKNOWN_BACKEND 640 EXPORT_CALL_PLATFORMS 576 EXPORT_CALL_ASSERTION 288" "${M[@]}"
expect_rows session "\
cpu:448:288 UNKNOWN_BACKEND 160
cuda:448:288 UNKNOWN_BACKEND 160
tpu:448:288 UNKNOWN_BACKEND 160
cpu+gpu:896:576 UNKNOWN_BACKEND 320
cpu+tpu:896:576 UNKNOWN_BACKEND 320
gpu+tpu:896:576 UNKNOWN_BACKEND 320" "${M[@]}"
expect_rows pallas_kernels "\
cpu:5376:1728 UNKNOWN_BACKEND 1920 PALLAS_CPU_NOT_INTERPRET 1728
cuda:5376:2204 UNKNOWN_BACKEND 1920 PALLAS_UNSUPPORTED_PLATFORM 432 PALLAS_TRITON_SCALAR_PREFETCH 288 +5 more (532 cases)
tpu:5376:2592 UNKNOWN_BACKEND 1920 PALLAS_FOREIGN_PARAMS 864
cpu+gpu:10752:3456 UNKNOWN_BACKEND 3840 PALLAS_CPU_NOT_INTERPRET 3456
cpu+tpu:10752:3456 UNKNOWN_BACKEND 3840 PALLAS_CPU_NOT_INTERPRET 3456
gpu+tpu:10752:3824 UNKNOWN_BACKEND 3840 PALLAS_FOREIGN_PARAMS 1728 PALLAS_PARAMS_PLATFORM 864 +3 more (496 cases)" "${M[@]}"
# Mosaic GPU refuses row_sum's reduction (JAX's NotImplementedError), where it
# lowers tiled_add_one, and both GPU backends gather_rows's scalar prefetch:
# the cuda row's rarer errors by variant (from the CSV).
got=$("$L" matrix --features pallas_kernels --jax 0.10.2 --platforms cuda --max-len 1 --csv - 2>/dev/null |
  awk -F, 'NR > 2 && NF == 8 && $7 ~ /MOSAIC_GPU|SCALAR_PREFETCH/ {n[$3" "$7]++} END {for (k in n) print n[k], k}' | sort -k2)
want="144 pallas_kernels/gather_rows/mosaic_gpu LSIM_E_PALLAS_MOSAIC_GPU_SCALAR_PREFETCH
144 pallas_kernels/gather_rows/none LSIM_E_PALLAS_TRITON_SCALAR_PREFETCH
144 pallas_kernels/gather_rows/triton LSIM_E_PALLAS_TRITON_SCALAR_PREFETCH
36 pallas_kernels/row_sum/mosaic_gpu LSIM_E_PALLAS_MOSAIC_GPU_ARCH
108 pallas_kernels/row_sum/mosaic_gpu LSIM_E_PALLAS_MOSAIC_GPU_REDUCE_AXES
36 pallas_kernels/tiled_add_one/mosaic_gpu LSIM_E_PALLAS_MOSAIC_GPU_ARCH"
[ "$got" = "$want" ] && pass=$((pass+1)) || { echo "FAIL pallas_kernels cuda: $got"; fail=$((fail+1)); }
# The newest JAX has no compute_on context manager (3a440c764b): JAX's TypeError
# for every case a backend does not refuse first.
expect_rows compute_on "cpu:2240:0 COMPUTE_ON_NOT_CONTEXT_MANAGER 1440 UNKNOWN_BACKEND 800" --platforms cpu --max-len 1
# Each feature alone is a matrix of its own size: variants x 32 runtimes x 7 pins x tuples.
out=$("$L" matrix --features ffi_call,compute_on,lowering_cache,effects,export,export_call,session --platforms cpu --max-len 1 --limit 1 | head -1)
[ "$out" = "matrix: cases 0..1 of 8512 (shard 0/1)" ] && pass=$((pass+1)) || { echo "FAIL sizes: $out"; fail=$((fail+1)); }

# --case N: the case's line; --scenario OUT.xml: the scenario that reproduces it,
# written only after it lowered to the case's outcome.
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
check_case() { # check_case NAME STATUS DETAIL
  if [ "$2" -ne 0 ]; then echo "FAIL $1: $3"; fail=$((fail+1)); else pass=$((pass+1)); fi
}
out=$("$L" matrix --case 1900000 --scenario "$tmp/export.xml"); code=$?
want="case 1900000: export/sin/checks=none for (oneapi, cpu), pinned to cuda: OK, module 051a2f3f0a4c6218"
[ $code -eq 0 ] && [[ "$out" == "$want"* ]] && [[ "$out" == *"wrote $tmp/export.xml"* ]]
check_case case-ok $? "exit $code: $out"
hash=$("$L" lower "$tmp/export.xml" 2>/dev/null | python3 -c 'import sys
h=1469598103934665603
for b in sys.stdin.buffer.read(): h=((h^b)*1099511628211)&(2**64-1)
print("%016x"%h)')
[ "$hash" = "051a2f3f0a4c6218" ]; check_case case-module $? "lower gives $hash"
grep -q 'export="true"' "$tmp/export.xml"; check_case case-export $? "$(cat "$tmp/export.xml")"
out=$("$L" matrix --case 2030000 --scenario "$tmp/session.xml"); code=$?
"$L" lower "$tmp/session.xml" >/dev/null 2>"$tmp/err"; lcode=$?
[ $code -eq 0 ] && [ $lcode -eq 1 ] && grep -q "^LSIM_E_UNKNOWN_BACKEND: " "$tmp/err" &&
  [ "$(grep -c '<lower' "$tmp/session.xml")" -eq 2 ]
check_case case-session $? "exit $code/$lcode: $out $(cat "$tmp/err")"
# A case the scenario cannot reproduce (the matrix's runtime lacks JAX's tpu factory).
out=$("$L" matrix --case 49997 --scenario "$tmp/no.xml" 2>&1); code=$?
[ $code -eq 1 ] && [ ! -e "$tmp/no.xml" ] &&
  [[ "$out" == *"the scenario lowers to LSIM_E_BACKEND_FAILED where the case gives LSIM_E_UNKNOWN_BACKEND; not written (the case's runtime has no tpu factory"* ]]
check_case case-not-reproduced $? "exit $code: $out"
out=$("$L" matrix --scenario "$tmp/x.xml" 2>&1); code=$?
[ $code -eq 2 ] && [[ "$out" == *"--scenario needs --case N"* ]]; check_case case-usage $? "exit $code: $out"
out=$("$L" matrix --case 99999999 2>&1); code=$?
[ $code -eq 2 ] && [[ "$out" == *"--case 99999999: the matrix has cases 0 to 2293983"* ]]
check_case case-range $? "exit $code: $out"

# --merge opens one shard at a time: 2,000 shards of one run under `ulimit -n 256`
# (each kept open, 1,024 descriptors were not enough) join into the whole run's CSV.
mkdir -p "$tmp/shards"
"$L" matrix --features rules --max-len 1 --csv "$tmp/whole.csv" >/dev/null
awk -v dir="$tmp/shards" -v n=2000 '
  NR == 1 { meta = $0; next }
  NR == 2 { header = $0; next }
  { rows[NR - 3] = $0 }
  END {
    total = NR - 2
    for (s = 0; s < n; s++) {
      lo = int(total * s / n); hi = int(total * (s + 1) / n)
      m = meta; sub(/ shard=0\/1 /, " shard=" s "/" n " ", m); sub(/ cases=0\.\.[0-9]+ /, " cases=" lo ".." hi " ", m)
      f = sprintf("%s/s%04d.csv", dir, s)
      print m > f; print header > f
      for (i = lo; i < hi; i++) print rows[i] > f
      close(f)
    }
  }' "$tmp/whole.csv"
out=$(ulimit -n 256; "$L" matrix --merge "$tmp"/shards/s*.csv --csv "$tmp/merged2000.csv" 2>&1); code=$?
[ $code -eq 0 ] && [[ "$out" == "matrix: merged 2000 of 2000 shards"* ]] && cmp -s "$tmp/whole.csv" "$tmp/merged2000.csv"
check_case merge-2000-shards-ulimit $? "exit $code: $(echo "$out" | head -3)"

# The progress line (cli/progress.c, as fuzz's and check --impl's), on a
# terminal only, erased before the report.
if command -v script >/dev/null; then
  ts=$(mktemp); script -qec "$L matrix --features rules,pallas --max-len 2 --limit 20000" "$ts" >/dev/null 2>&1
  if grep -aq $'\r\e\[Kmatrix: 0/20000 cases (0.0%), 0 cases/s, ETA ?\r' "$ts" &&
     grep -aq $'\r\e\[Kmatrix: cases 0..20000 of ' "$ts"; then pass=$((pass+1))
  else echo "FAIL progress line:"; cat -v "$ts"; fail=$((fail+1)); fi
  "$L" matrix --features rules --max-len 1 2>"$ts" >/dev/null
  if [ -s "$ts" ]; then echo "FAIL progress off a terminal:"; cat "$ts"; fail=$((fail+1))
  else pass=$((pass+1)); fi
  rm -f "$ts"
fi
echo "matrix_test: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
