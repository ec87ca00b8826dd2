#!/usr/bin/env bash
# tests/json_test.sh: every command's --json output (lower, explain, check,
# matrix, fuzz, platforms, errors, versions; modules, errors, invalid input) is
# valid against testdata/schema/output.schema.json, carries the facts it
# should, and keeps the command's exit code; the checker rejects what breaks
# the schema.
set -u
L=${LOWERSIM:?}
SRC=${SOURCE_DIR:?}
S=$SRC/testdata/scenarios
SCHEMA=$SRC/testdata/schema/output.schema.json
PY=${PYTHON:-python3}
fail=0 pass=0
check() { # check NAME STATUS DETAIL
  if [ "$2" -ne 0 ]; then echo "FAIL $1: $3"; fail=$((fail+1)); else pass=$((pass+1)); fi
}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
all=$tmp/all.jsonl
run() { # run NAME WANT_EXIT ARGS...: one line of JSON, appended to $all
  local name=$1 want=$2; shift 2
  "$L" "$@" >"$tmp/out" 2>"$tmp/err"; local code=$?
  check "$name" $(( code != want || $(wc -l <"$tmp/out") != 1 )) \
    "exit $code (want $want), $(wc -l <"$tmp/out") lines: $(head -c 300 "$tmp/out") $(cat "$tmp/err")"
  cat "$tmp/out" >>"$all"
}
field() { "$PY" -c "import json,sys; d=json.load(open('$tmp/out')); print($1)"; }

echo '<x/>' >"$tmp/bad.xml"
run lower-module 0 lower --json "$S/single-platform.xml"
[ "$(field 'd["outcome"], d["jax"]["name"], d["module"].startswith("module @jit_f")')" = "module 0.12.0.1 True" ]
check lower-module-fields $? "$(cat "$tmp/out")"
run lower-error 1 lower --json --jax 0.10.2 "$S/missing-rule.xml"
[ "$(field 'd["outcome"], d["jax"]["name"], d["error"]["code"], d["error"]["class"]')" = "error 0.10.2 LSIM_E_NO_LOWERING_RULE NotImplementedError" ]
check lower-error-fields $? "$(cat "$tmp/out")"
run lower-warning 0 lower --json "$S/buffer-callback-oneapi.xml"
[ "$(field 'd["warnings"][0]["category"]')" = "jax._src.xla_bridge" ]; check lower-warning-fields $? "$(cat "$tmp/out")"
run lower-invalid 2 lower --json "$tmp/bad.xml"
[ "$(field 'd["outcome"], d["error"]["kind"], d["error"]["message"]')" = "invalid invalid_input $tmp/bad.xml:1: unknown root element <x>; a scenario file's root is <scenario>" ]
check lower-invalid-fields $? "$(cat "$tmp/out")"
run explain-module 0 explain --json "$S/platform-dependent.xml"
[ "$(field 'len(d["narration"]) > 3, d["narration"][0]["kind"]')" = "True step" ]
check explain-narration $? "$(head -c 300 "$tmp/out")"
run explain-error 1 explain --json "$S/missing-rule.xml"
run explain-invalid 2 explain --json "$tmp/bad.xml"
run check-pass 0 check --json "$S"
run check-invalid 2 check --json "$S/single-platform.xml" "$tmp/bad.xml"
[ "$(field 'd["summary"]["invalid"], [c["outcome"] for c in d["cases"] if c["file"].endswith("bad.xml")][0]')" = "1 invalid" ]
check check-invalid-fields $? "$(cat "$tmp/out")"
"$L" lower "$S/single-platform.xml" | sed 's/stablehlo.add/stablehlo.multiply/' >"$tmp/wrong.mlir"
run check-impl 1 check --json "$S/single-platform.xml" --impl "cat $tmp/wrong.mlir"
[ "$(field '"+++ the implementation" in d["cases"][0]["difference"]')" = "True" ]
check check-impl-diff $? "$(cat "$tmp/out")"
[ "$(field 'd["cases"][0]["first_difference"], d["cases"][0]["expected"], d["cases"][0]["actual"], d["cases"][0]["notes"]')" = "first difference: line 5, stablehlo.add: lowersim \"... \"stablehlo.add\"(%0, %1) : (tensor<4xf32...\" port \"... \"stablehlo.multiply\"(%0, %1) : (tensor<...\" {'class': None, 'message': None, 'module': '... \"stablehlo.add\"(%0, %1) : (tensor<4xf32...'} {'class': None, 'message': None, 'module': '... \"stablehlo.multiply\"(%0, %1) : (tensor<...'} None" ]
check check-impl-sides $? "$(cat "$tmp/out")"
run check-impl-error 1 check --json "$S/missing-rule.xml" --impl "echo 'NotImplementedError: no rule' >&2; exit 1"
[ "$(field 'd["cases"][0]["expected"]["class"], d["cases"][0]["actual"]')" = "NotImplementedError {'class': 'NotImplementedError', 'message': 'no rule', 'module': None}" ]
check check-impl-error-sides $? "$(cat "$tmp/out")"
M=(--platforms cpu,cuda --max-len 1 --features rules,python_callback)
run matrix 0 matrix --json "${M[@]}" --csv "$tmp/m0.csv" --shard 0/2
[ "$(field 'd["range"]["shards"], sum(r["cases"] for r in d["rows"]) == d["cases"], all(r["ok"] + sum(e["count"] for e in r["errors"]) == r["cases"] for r in d["rows"])')" = "2 True True" ]
check matrix-every-error-counted $? "$(head -c 600 "$tmp/out")"
"$L" matrix "${M[@]}" --csv "$tmp/m1.csv" --shard 1/2 >/dev/null
# The text summary names 3 errors per row and says how many more there are.
"$L" matrix "${M[@]}" >"$tmp/summary.txt"
grep -q '^rules  *cpu  *[0-9]*  *[0-9]*  [A-Z_]* [0-9]* [A-Z_]* [0-9]* [A-Z_]* [0-9]* +1 more ([0-9]* cases)$' "$tmp/summary.txt"
check matrix-more $? "$(cat "$tmp/summary.txt")"
run matrix-merge 0 matrix --json --merge "$tmp/m0.csv" "$tmp/m1.csv"
# One row per kind of multi-platform tuple: (cpu, cuda), (cuda, cpu), (cpu, rocm),
# (rocm, cpu) are cpu+gpu; (cuda, rocm), (rocm, cuda) gpu+gpu; 6 x 32 x 7 cases each.
run matrix-merge-refused 2 matrix --json --merge "$tmp/m0.csv"
[ "$(field 'd["error"]["code"], d["error"]["kind"], "incomplete shard set" in d["error"]["message"]')" = "LSIM_E_INVALID_INPUT invalid_input True" ] && [ ! -s "$tmp/err" ]
check matrix-merge-refusal-is-json $? "$(head -c 600 "$tmp/out") / $(cat "$tmp/err")"
run matrix-tuple-kinds 0 matrix --json --platforms cpu,cuda,rocm --max-len 2 --features rules
[ "$(field '[(r["platform"], r["cases"], r.get("families")) for r in d["rows"]]')" = "[('cpu', 1344, None), ('cuda', 1344, None), ('rocm', 1344, None), ('cpu+gpu', 5376, ['cpu', 'gpu']), ('gpu+gpu', 2688, ['gpu', 'gpu'])]" ]
check matrix-tuple-kind-rows $? "$(head -c 900 "$tmp/out")"
"$L" matrix --platforms cpu,tpu,metal,gpu --max-len 3 --features buffer_callback >"$tmp/kinds.txt"
[ "$(awk 'NR > 2 && $1 == "buffer_callback" {printf "%s:%s ", $2, $3}' "$tmp/kinds.txt")" = "cpu:896 tpu:896 metal:896 gpu:896 cpu+gpu:1792 cpu+tpu:1792 cpu+other:1792 gpu+tpu:1792 gpu+other:1792 tpu+other:1792 cpu+gpu+tpu:5376 cpu+gpu+other:5376 cpu+tpu+other:5376 gpu+tpu+other:5376 " ]
check matrix-tuple-kind-text $? "$(cat "$tmp/kinds.txt")"
run fuzz 0 fuzz --json --seed 1 --iterations 30 --out "$tmp/fuzz"
[ "$(field 'd["rows"][-1]["equation"], d["rows"][-1]["scenarios"], all(r["scenarios"] == r["modules"] + r["jax_errors"] + r["invalid"] + r["other"] for r in d["rows"]), d["findings"], d["pinned"], d["jax"]["name"]')" = "all 30 True [] False 0.12.0.1" ] && [ ! -s "$tmp/err" ] && [ ! -e "$tmp/fuzz" ]
check fuzz-fields $? "$(head -c 600 "$tmp/out") / $(cat "$tmp/err")"
run fuzz-focus 0 fuzz --json --seed 3 --iterations 20 --jax 0.10.2 --focus pallas_call -j 2 --out "$tmp/fuzz"
[ "$(field 'd["focus"], d["jobs"], d["pinned"], d["jax"]["name"], [r["equation"] for r in d["rows"]][-1], max(d["rows"][:-1], key=lambda r: r["scenarios"])["equation"], len(d["invariants"])')" = "pallas_call 2 True 0.10.2 all pallas_call 11" ]
check fuzz-focus-fields $? "$(head -c 600 "$tmp/out")"
run platforms 0 platforms --json
run platforms-context 0 platforms --json --backend cuda=2 --lower-for gpu --pin cuda
run platforms-error 1 platforms --json --lower-for gpu
[ "$(field 'd["outcome"], d["error"]["code"]')" = "error LSIM_E_UNKNOWN_ALIAS_PLATFORM" ]
check platforms-error-fields $? "$(cat "$tmp/out")"
run errors 0 errors --json
[ "$(field 'len(d["errors"]) > 50, d["errors"][0]["code"]')" = "True LSIM_E_BACKEND_PLATFORM_MISMATCH" ]
check errors-fields $? "$(head -c 300 "$tmp/out")"
run versions 0 versions --json
run versions-two 0 versions 0.10.2 2d666224 --json

out=$("$PY" "$SRC/tests/json_schema_check.py" "$SCHEMA" "$all"); check schema $? "$out"
# The checker is not vacuous: a wrong status and a module-less "module" outcome are caught.
"$L" lower --json "$S/missing-rule.xml" | sed 's/"status":-9/"status":9/; s/"outcome":"error"/"outcome":"module"/' >"$tmp/broken"
out=$("$PY" "$SRC/tests/json_schema_check.py" "$SCHEMA" "$tmp/broken"); code=$?
[[ $code -ne 0 && "$out" == *"9 > -1"* && "$out" == *"'module' is required"* ]]
check schema-rejects $? "exit $code: $out"

echo "json_test: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
