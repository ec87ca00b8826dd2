#!/usr/bin/env bash
# tests/cli_impl_test.sh: `check --impl` with real ports: one process per
# scenario and the batch protocol, --jobs, --timeout, the progress line, and
# an honest verdict for each way a port can go wrong.
set -u
L=${LOWERSIM:?}
SRC=${SOURCE_DIR:?}
S=$SRC/testdata/scenarios
fail=0 pass=0
check() { # check NAME STATUS DETAIL
  if [ "$2" -ne 0 ]; then echo "FAIL $1: $3"; fail=$((fail+1)); else pass=$((pass+1)); fi
}
has() { [[ "$1" == *"$2"* ]]; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
export XDG_CACHE_HOME=$tmp/cache  # check's record of failures (--rerun-failed) goes here
n=$(ls "$S"/*.xml | wc -l)

# lowersim itself as the port: every scenario agrees, with one job or two.
out=$("$L" check "$S" --impl "$L lower {scenario}" 2>"$tmp/err"); code=$?
check self $(( code != 0 )) "exit $code: $out"
check self-count $(( $(tail -1 <<<"$out" | cut -d' ' -f1) != n )) "$(tail -1 <<<"$out")"
check no-progress-off-a-terminal $(( $(wc -c <"$tmp/err") != 0 )) "$(cat "$tmp/err")"
out=$("$L" check "$S" -j 2 --impl "$L lower {scenario}"); code=$?
check self-jobs $(( code != 0 )) "exit $code: $out"

# The progress line, on a terminal only.
if command -v script >/dev/null; then
  script -qec "$L check $S/single-platform.xml $S/missing-rule.xml --impl 'sleep 0.4; $L lower {scenario}'" \
    "$tmp/typescript" >/dev/null 2>&1
  # cli/progress.c's line: the one of matrix and fuzz too (matrix_test.sh, fuzz_test.sh)
  grep -q $'\r\e\[Kcheck --impl: 1/2 scenarios (50.0%), [0-9]* scenarios/s, ETA 0:0[0-9]\r\e\[K' "$tmp/typescript"
  check progress $? "$(cat -v "$tmp/typescript")"
fi

# The batch protocol, from a shell port: one request line, one framed answer.
cat >"$tmp/batch.sh" <<EOS
#!/usr/bin/env bash
while IFS= read -r p; do
  "$L" lower "\$p" >"$tmp/o" 2>"$tmp/e"; c=\$?
  printf '%d %d %d\n' \$c \$(wc -c <"$tmp/o") \$(wc -c <"$tmp/e"); cat "$tmp/o" "$tmp/e"
done
EOS
out=$("$L" check "$S" --batch --impl "bash $tmp/batch.sh"); code=$?
check batch-shell $(( code != 0 )) "exit $code: $out"
check batch-count $(( $(tail -1 <<<"$out" | cut -d' ' -f1) != n )) "$(tail -1 <<<"$out")"

# The Python helper (python/lowersim/port.py), over lowersim's bindings as the port.
if [ -z "${LOWERSIM_SANITIZE:-}" ] && command -v python3 >/dev/null; then
  cat >"$tmp/port.py" <<EOS
import sys
sys.path.insert(0, "$SRC/python")
import lowersim
from lowersim import port

def lower(path):  # lowersim's errors are JAX's class, str() JAX's message
  return lowersim.lower_file(path)

port.main(lower)
EOS
  export LOWERSIM_LIBRARY_DIR=${BUILD_DIR:-$(dirname "$L")}
  out=$("$L" check "$S" --batch -j 2 --impl "python3 $tmp/port.py --batch"); code=$?
  check python-batch $(( code != 0 )) "exit $code: $out"
  out=$("$L" check "$S/missing-rule.xml" "$S/single-platform.xml" --impl "python3 $tmp/port.py {scenario}"); code=$?
  check python-one-shot $(( code != 0 )) "exit $code: $out"
fi

# A difference is one line naming the first differing op, then a unified
# diff of the two modules as MLIR prints them, the differing words marked.
"$L" lower "$S/single-platform.xml" | sed 's/stablehlo.add/stablehlo.multiply/' >"$tmp/wrong.mlir"
out=$("$L" check "$S/single-platform.xml" --impl "cat $tmp/wrong.mlir"); code=$?
want="FAIL $S/single-platform.xml: first difference: line 5, stablehlo.add: lowersim \"... \"stablehlo.add\"(%0, %1) : (tensor<4xf32...\" port \"... \"stablehlo.multiply\"(%0, %1) : (tensor<...\"
--- lowersim
+++ the implementation
@@ -2,7 +2,7 @@
$(sed -n 2,4p "$tmp/wrong.mlir" | sed 's/^/ /')
-    %2 = \"stablehlo.[-add-]\"(%0, %1) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
+    %2 = \"stablehlo.{+multiply+}\"(%0, %1) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
     return %2 : tensor<4xf32>
   }
 }
  unpinned, as 0.12.0.1: 0 passed, 1 failed, 0 skipped
0 passed, 1 failed, 0 skipped"
[ "$out" = "$want" ]; check diff $(( $? != 0 || code != 1 )) "exit $code: $(diff <(echo "$want") <(echo "$out"))"
# On a terminal the differing words are red and green (NO_COLOR: marks).
if command -v script >/dev/null; then
  script -qec "$L check $S/single-platform.xml --impl 'cat $tmp/wrong.mlir'" "$tmp/tty" >/dev/null 2>&1
  grep -qF $'"stablehlo.\033[1;31madd\033[0m"(%0, %1)' "$tmp/tty" && grep -qF $'"stablehlo.\033[1;32mmultiply\033[0m"' "$tmp/tty"
  check colour-words $? "$(cat -v "$tmp/tty")"
  NO_COLOR=1 script -qec "$L check $S/single-platform.xml --impl 'cat $tmp/wrong.mlir'" "$tmp/tty" >/dev/null 2>&1
  grep -qF '"stablehlo.[-add-]"' "$tmp/tty" && ! grep -q $'\033\[1;3' "$tmp/tty"
  check no-colour-words $? "$(cat -v "$tmp/tty")"
fi
# The JUnit failure's message is that first line.
"$L" check "$S/single-platform.xml" --junit "$tmp/diff.xml" --impl "cat $tmp/wrong.mlir" >/dev/null
grep -qF '<failure message="first difference: line 5, stablehlo.add: lowersim &quot;... &quot;stablehlo.add&quot;(%0, %1) : (tensor&lt;4xf32...&quot; port &quot;... &quot;stablehlo.multiply&quot;(%0, %1) : (tensor&lt;...&quot;"' "$tmp/diff.xml"
check junit-first-line $? "$(grep -o '<failure[^>]*>' "$tmp/diff.xml")"
# An attribute named, a custom call by its target.
"$L" lower "$S/single-platform.xml" | sed 's/operand_layouts = \[dense<0>/operand_layouts = [dense<1>/' >"$tmp/attr.mlir"
out=$("$L" check "$S/single-platform.xml" --impl "cat $tmp/attr.mlir" | head -1)
[ "$out" = "FAIL $S/single-platform.xml: first difference: line 4, stablehlo.custom_call @my_cpu_kernel, attribute operand_layouts: lowersim \"...ts = [dense<0> : tensor<1xindex>], resul...\" port \"...ts = [dense<1> : tensor<1xindex>], resul...\"" ]
check first-attribute $? "$out"

# Honest verdicts: nothing printed, a signal, a time-out, no error line.
verdict() { # verdict NAME SCENARIO COMMAND WANT [OPTIONS...]
  local name=$1 scenario=$2 command=$3 want=$4; shift 4
  local out; out=$("$L" check "$S/$scenario" "$@" --impl "$command"); local code=$?
  has "$out" "$want"; check "$name" $(( $? != 0 || code != 1 )) "exit $code: $out"
}
verdict empty single-platform.xml "true" \
  "lowersim gives a module, the implementation exits 0 and prints nothing on stdout"
verdict signal single-platform.xml 'echo dying >&2; kill -SEGV $$' \
  "the implementation was killed by signal 11 (Segmentation fault); its stderr: dying"
verdict timeout single-platform.xml "sleep 30" "the implementation did not finish within 0.3 s and was killed" --timeout 0.3
verdict timeout-batch single-platform.xml "sleep 30" "the implementation did not finish within 0.3 s and was killed" --timeout 0.3 --batch
verdict error-for-module missing-rule.xml "cat $tmp/wrong.mlir" \
  "the implementation exits 0 with a module"
verdict no-error-line missing-rule.xml "echo 'Traceback (most recent call last):' >&2; exit 1" \
  "the implementation exits 1 and no line of its stderr is \`ErrorClass: message\`: Traceback (most recent call last):"
# A port that cannot express a scenario (exit 3, `not expressible ...`, as the
# oracle says it): skipped with its reason, in the output and the JUnit report.
out=$("$L" check "$S/single-platform.xml" "$S/missing-rule.xml" --junit "$tmp/skip.xml" \
      --impl "echo 'not expressible in JAX 0.10.2: version: later JAX' >&2; exit 3"); code=$?
has "$out" "SKIP $S/single-platform.xml: not expressible in JAX 0.10.2: version: later JAX" &&
  has "$out" "0 passed, 0 failed, 2 skipped" &&
  grep -q '<skipped message="not expressible in JAX 0.10.2: version: later JAX"/>' "$tmp/skip.xml"
check not-expressible $(( $? != 0 || code != 0 )) "exit $code: $out"
# The address in a Python default repr is a process's own: not compared.
C=$SRC/testdata/conformance/sharding/devices-ordered-debug-refused.xml
msg=$("$L" lower "$C" 2>&1 | tail -1 | sed 's/^LSIM_E_[A-Z_]*: //; s/ object at 0x[0-9a-f]*>/ object at 0x7fd3a1b2c3d0>/')
out=$("$L" check "$C" --impl "echo '$msg' >&2; exit 1"); code=$?
check repr-address $code "$out"
out=$("$L" check "$C" --impl "echo '${msg/OrderedDebugEffect/OrderedIOEffect}' >&2; exit 1"); code=$?
has "$out" "expected the error"; check repr-address-rest $(( $? != 0 || code != 1 )) "exit $code: $out"
# The order of lax's accepted dtypes is a process's own (a set of numpy
# types, hashed by address): not compared; the dtypes themselves are.
D=$SRC/testdata/conformance/lax/sub-bool.xml
msg="TypeError: sub does not accept dtype bool at position 0. Accepted dtypes at position 0 are subtypes of integer, complexfloating, floating."
out=$("$L" check "$D" --jax 0.11.0 --impl "echo '$msg' >&2; exit 1"); code=$?
check dtype-order $code "$out"
out=$("$L" check "$D" --jax 0.11.0 --impl "echo '${msg/floating./bool.}' >&2; exit 1" | head -1); code=$?
[ "$out" = "FAIL $D: first difference: the error's message: lowersim \"...of integer, floating, complexfloating.\" port \"...of integer, complexfloating, bool.\"" ]
check dtype-order-rest $? "$out"
# exit 3 without that line is a failure like any other exit.
verdict exit-3 single-platform.xml "echo 'oops' >&2; exit 3" \
  "lowersim gives a module, the implementation exits 3: oops"
# The last line of the form `[CODE: ]ErrorClass: message` is the error, not the first.
want="NotImplementedError: MLIR translation rule for primitive 'my_op' not found for platforms ['tpu', 'rocm']"
out=$("$L" check "$S/missing-rule.xml" --impl "echo 'UserWarning: first' >&2; echo 'warning: UserWarning: x' >&2; echo \"LSIM_E_MISSING_RULE: $want\" >&2; exit 1"); code=$?
check last-error-line $code "$out"
verdict wrong-error-line missing-rule.xml "echo \"$want\" >&2; echo 'ValueError: later' >&2; exit 1" \
  "the implementation exits 1: ValueError: later"

# The pretty form: MLIR's diagnostic, and how to print the generic form.
cat >"$tmp/pretty.mlir" <<'EOS'
module @jit_f attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4xf32>) -> (tensor<4xf32> {jax.result_info = "result"}) {
    %0 = stablehlo.sine %arg0 : tensor<4xf32>
    %1 = stablehlo.custom_call @my_cpu_kernel(%0) {api_version = 1 : i32, backend_config = "", mhlo.backend_config = {}, operand_layouts = [dense<0> : tensor<1xindex>], result_layouts = [dense<0> : tensor<1xindex>]} : (tensor<4xf32>) -> tensor<4xf32>
    %2 = stablehlo.add %0, %1 : tensor<4xf32>
    return %2 : tensor<4xf32>
  }
}
EOS
verdict pretty single-platform.xml "cat $tmp/pretty.mlir" \
  "the implementation's output does not parse as MLIR (MLIR 19: the module does not parse: Dialect \`stablehlo' not found for custom op 'stablehlo.sine' ); it looks like StableHLO's pretty form, which lowersim's MLIR (no stablehlo dialect) cannot read: print the generic form (Python: module.operation.get_asm(print_generic_op_form=True)"
LOWERSIM_JAX_PYTHON=$tmp/none verdict normalize-absent single-platform.xml "cat $tmp/pretty.mlir" \
  "--normalize jax: no build/oracle-venv/bin/python" --normalize jax
if [ -x "$SRC/build/oracle-venv/bin/python" ] && [ -z "${LOWERSIM_SANITIZE:-}" ]; then
  out=$(LOWERSIM_JAX_PYTHON=$SRC/build/oracle-venv/bin/python "$L" check "$S/single-platform.xml" --normalize jax --impl "cat $tmp/pretty.mlir"); code=$?
  check normalize-jax $code "$out"
  sed -i 's/stablehlo.add/stablehlo.addx/' "$tmp/pretty.mlir"
  LOWERSIM_JAX_PYTHON=$SRC/build/oracle-venv/bin/python verdict normalize-jax-bad single-platform.xml "cat $tmp/pretty.mlir" \
    "; jaxlib's MLIR cannot read it either: " --normalize jax
fi

# A port printing JAX's pretty form (get_asm()'s default), real JAX lowering:
# --normalize jax reads it, Pallas kernels (JAX 0.12's bytecode) included.
J=$SRC/build/oracle-venvs/0.12.0.1/bin/python
if [ -x "$J" ] && [ -z "${LOWERSIM_SANITIZE:-}" ]; then
  out=$(cd "$SRC" && "$L" check testdata/scenarios/single-platform.xml testdata/conformance/pallas/abstract-mesh-ffi.xml \
        --jax 0.12.0.1 --normalize jax --impl "$J tests/pretty_port.py {scenario}"); code=$?
  check pretty-port-normalized $(( code != 0 )) "exit $code: $out"
  check pretty-port-count $([ "$(tail -1 <<<"$out")" = "2 passed, 0 failed, 0 skipped" ]; echo $?) "$out"
fi

# The batch protocol broken: a malformed answer, a port that dies (and is
# started again for the next scenario).
verdict batch-garbage single-platform.xml "echo hello" \
  'the implementation broke the batch protocol (an answer is `EXIT OUT_BYTES ERR_BYTES` and the bytes): it wrote "hello' --batch
cat >"$tmp/dies.sh" <<EOS
read -r p; case "\$p" in *missing-rule*) echo 'oops' >&2; exit 3;; esac
"$L" lower "\$p" >"$tmp/o2" 2>/dev/null
printf '0 %d 0\n' \$(wc -c <"$tmp/o2"); cat "$tmp/o2"; sleep 30
EOS
out=$("$L" check "$S/missing-rule.xml" "$S/single-platform.xml" --batch --impl "bash $tmp/dies.sh"); code=$?
has "$out" "FAIL $S/missing-rule.xml: the implementation exited with status 3 before answering; its stderr: oops" &&
  has "$out" "1 passed, 1 failed"
check batch-dies $(( $? != 0 || code != 1 )) "exit $code: $out"

# check without --impl: a scenario without <expect> is checked against
# ../expected/NAME.mlir or NAME.err beside its folder, with the same verdicts.
mkdir -p "$tmp/ex/scenarios" "$tmp/ex/expected"
python3 - "$S/missing-rule.xml" "$tmp/ex/scenarios/missing-rule.xml" <<'EOS'
import re, sys
text = open(sys.argv[1]).read()
open(sys.argv[2], "w").write(re.sub(r"\s*<expect[^>]*/>", "", text, flags=re.S))
EOS
cp "$S/single-platform.xml" "$tmp/ex/scenarios/"
"$L" lower "$S/missing-rule.xml" 2>"$tmp/ex/expected/missing-rule.err"
"$L" lower "$S/single-platform.xml" >"$tmp/ex/expected/single-platform.mlir"
out=$("$L" check "$tmp/ex/scenarios"); code=$?
check expected-pass $(( code != 0 )) "exit $code: $out"
check expected-counted $([ "$(tail -1 <<<"$out")" = "2 passed, 0 failed, 0 skipped" ]; echo $?) "$out"
sed -i 's/stablehlo.add/stablehlo.multiply/' "$tmp/ex/expected/single-platform.mlir"
sed -i "s/'rocm'/'cuda'/" "$tmp/ex/expected/missing-rule.err"
out=$("$L" check "$tmp/ex/scenarios"); code=$?
has "$out" "FAIL $tmp/ex/scenarios/single-platform.xml: against $tmp/ex/scenarios/../expected/single-platform.mlir (\"the implementation\"): first difference: line 5, stablehlo.add: " &&
  has "$out" $'\n+    %2 = "stablehlo.{+multiply+}"' &&
  has "$out" "FAIL $tmp/ex/scenarios/missing-rule.xml: against $tmp/ex/scenarios/../expected/missing-rule.err (\"the implementation\"): first difference: the error's message: lowersim \"...ms ['tpu', 'rocm']\" port \"...ms ['tpu', 'cuda']\"
expected the error \"NotImplementedError: MLIR translation rule for primitive 'my_op' not found for platforms ['tpu', 'rocm']\"; the implementation exits 1: NotImplementedError: MLIR translation rule for primitive 'my_op' not found for platforms ['tpu', 'cuda']"
check expected-fail $(( $? != 0 || code != 1 )) "exit $code: $out"
rm "$tmp/ex/expected/"*
out=$("$L" check "$tmp/ex/scenarios"); check expected-none $([ "$(tail -1 <<<"$out")" = "0 passed, 0 failed, 2 skipped" ]; echo $?) "$out"

# The port workflow: -k, -x, --xfail, --rerun-failed.  a.xml fails (the port
# multiplies where lowersim adds), b.xml and c.xml pass.
W=$tmp/wf; mkdir -p "$W"
cp "$S/single-platform.xml" "$W/a.xml"; cp "$S/missing-rule.xml" "$W/b.xml"; cp "$S/single-platform.xml" "$W/c.xml"
cat >"$tmp/wfport.sh" <<EOS
case "\$1" in */a.xml) cat "$tmp/wrong.mlir" ;; */c.xml) [ -n "\${SLOW_C:-}" ] && sleep 30; "$L" lower "\$1" ;; *) "$L" lower "\$1" ;; esac
EOS
P="bash $tmp/wfport.sh {scenario}"
out=$("$L" check "$W" -k b.x --impl "$P"); code=$?
[ "$out" = $'  unpinned, as 0.12.0.1: 1 passed, 0 failed, 0 skipped\n1 passed, 0 failed, 0 skipped, 2 deselected' ]
check select-path $(( $? != 0 || code != 0 )) "exit $code: $out"
out=$("$L" check "$W" -k missing --impl "$P" | tail -1)  # b.xml's name, missing-rule
[ "$out" = "1 passed, 0 failed, 0 skipped, 2 deselected" ]; check select-name $? "$out"
out=$("$L" check "$W" -k my_op --impl "$P" | tail -1)  # no path holds it; no name either
[ "$out" = "0 passed, 0 failed, 0 skipped, 3 deselected" ]; check select-none $? "$out"
out=$("$L" check "$W" -x --impl "$P"); code=$?
[ "$(grep -c '^FAIL' <<<"$out")" = 1 ] && [ "$(tail -3 <<<"$out")" = "stopped at the first failure (-x): 2 scenarios not run
  unpinned, as 0.12.0.1: 0 passed, 1 failed, 0 skipped
0 passed, 1 failed, 0 skipped" ]
check exitfirst $(( $? != 0 || code != 1 )) "exit $code: $out"
# -x kills the ports still running: c.xml's sleeps 30 s.
start=$(date +%s)
out=$(SLOW_C=1 "$L" check "$W" -x -j 3 --impl "$P"); code=$?
[ $(( $(date +%s) - start )) -lt 20 ] && has "$out" "stopped at the first failure (-x): "
check exitfirst-kills $(( $? != 0 || code != 1 )) "exit $code: $out"
out=$("$L" check "$W" -x)  # without --impl: a.xml and c.xml against their <expect>
check exitfirst-alone $([ "$(tail -1 <<<"$out")" = "1 passed, 0 failed, 2 skipped" ]; echo $?) "$out"
printf '# ports known to differ\n\na.xml   # multiplies instead of adding\n' >"$tmp/xfail.txt"
out=$("$L" check "$W" --xfail "$tmp/xfail.txt" --impl "$P"); code=$?
[ "$(head -1 <<<"$out")" = "XFAIL $W/a.xml: multiplies instead of adding" ] &&
  [ "$(tail -1 <<<"$out")" = "2 passed, 0 failed, 0 skipped, 1 xfailed, 0 xpassed" ]
check xfail $(( $? != 0 || code != 0 )) "exit $code: $out"
printf '*/a.xml # wrong\n%s/c.xml\n' "$W" >"$tmp/xfail.txt"
out=$("$L" check "$W" --xfail "$tmp/xfail.txt" --impl "$P"); code=$?
[ "$out" = "XFAIL $W/a.xml: wrong
XPASS $W/c.xml: (no reason given)
  unpinned, as 0.12.0.1: 1 passed, 1 failed, 1 skipped
1 passed, 0 failed, 0 skipped, 1 xfailed, 1 xpassed" ]
check xpass-fails $(( $? != 0 || code != 1 )) "exit $code: $out"
"$L" check "$W" --xfail "$tmp/xfail.txt" --impl "$P" --junit "$tmp/x.xml" >/dev/null
grep -q '<skipped message="xfail: wrong"/>' "$tmp/x.xml" && grep -q '<failure message="XPASS (strict): (no reason given)"' "$tmp/x.xml"
check xfail-junit $? "$(cat "$tmp/x.xml")"
expect_usage_xfail=$("$L" check "$W" --xfail "$tmp/none.txt" --impl "$P" 2>&1); code=$?
[ "$expect_usage_xfail" = "lowersim check: cannot read the xfail file $tmp/none.txt: No such file or directory" ]
check xfail-missing $(( $? != 0 || code != 2 )) "exit $code: $expect_usage_xfail"
# --rerun-failed: the record in $XDG_CACHE_HOME, or --last-failed FILE.
"$L" check "$W" --impl "$P" >/dev/null
# (earlier runs' failures elsewhere are kept: only what a run judges is updated)
grep -qx "$W/a.xml" "$XDG_CACHE_HOME"/lowersim/last-failed/* && ! grep -q "$W/[bc].xml" "$XDG_CACHE_HOME"/lowersim/last-failed/*
check record-xdg $? "$(ls -R "$XDG_CACHE_HOME"; cat "$XDG_CACHE_HOME"/lowersim/last-failed/*)"
out=$("$L" check "$W" --rerun-failed --impl "$P" | tail -1)
[ "$out" = "0 passed, 1 failed, 0 skipped, 2 deselected" ]; check rerun-failed $? "$out"
"$L" check "$W" --last-failed "$tmp/lf" --impl "$P" >/dev/null
out=$("$L" check "$W" --last-failed "$tmp/lf" --rerun-failed --impl "$L lower {scenario}" | tail -1)
[ "$out" = "1 passed, 0 failed, 0 skipped, 2 deselected" ] && [ ! -s "$tmp/lf" ]; check rerun-fixed $? "$out"
out=$("$L" check "$W" --last-failed "$tmp/lf" --rerun-failed --impl "$L lower {scenario}" 2>&1 | sed -n '1p;$p')
[ "$out" = "lowersim check: --rerun-failed: no failure recorded for these scenarios: running every one
3 passed, 0 failed, 0 skipped, 0 deselected" ]; check rerun-none $? "$out"

# --- Hostile ports (issue 26): each class a port can bring, and its verdict.
# Every run here is bounded in time (`timeout`): a hang is a failure, not a
# stuck test.
H=$tmp/hostile; mkdir -p "$H/cwd"
SP=$S/single-platform.xml MR=$S/missing-rule.xml
"$L" lower "$SP" >"$H/sp.mlir"
bounded() { # bounded SECONDS CHECK-ARGS...: lowersim check, killed after SECONDS
  local s=$1; shift
  (cd "$H/cwd" && exec timeout -s KILL "$s" "$L" check "$@")
}
# A batch port that answers without reading its requests: the request pipe
# fills (300 paths of 250 bytes, more than a pipe holds) and lowersim must
# neither block in write() nor lose the time-out.
mkdir -p "$H/many"
long=$(printf 'p%.0s' $(seq 240))
for i in $(seq 300); do cp "$SP" "$H/many/$long-$i.xml"; done
start=$(date +%s.%N)
out=$(bounded 120 "$H/many" --batch --timeout 5 --impl "yes '1 0 0'" 2>&1); code=$?
secs=$(echo "$(date +%s.%N) - $start" | bc)
[ "$code" -eq 1 ] && [ "$(tail -1 <<<"$out")" = "0 passed, 300 failed, 0 skipped" ]
check hostile-batch-unread $? "exit $code: $(tail -3 <<<"$out")"
echo "hostile batch (300 requests never read, answers written anyway): ${secs} s"
# The same port one process per scenario, and one that writes forever with
# no time-out: bounded by --max-output (default 64 MiB), the port ended.
out=$(bounded 60 "$SP" --impl "head -c 3000000 /dev/zero | tr '\\0' y" --max-output 1000000); code=$?
has "$out" "FAIL $SP: the implementation's output exceeds 1000000 bytes (--max-output) and it was killed"
check hostile-bound $(( $? != 0 || code != 1 )) "exit $code: $out"
out=$(bounded 60 "$SP" --batch --impl "printf '0 99999999999 0\\n'; yes"); code=$?
has "$out" "FAIL $SP: the implementation's output exceeds 67108864 bytes (--max-output) and it was killed"
check hostile-bound-frame $(( $? != 0 || code != 1 )) "exit $code: $out"
if [ -x /usr/bin/time ] && [ -z "${LOWERSIM_SANITIZE:-}" ]; then # (sanitizers' memory aside)
  out=$( (cd "$H/cwd" && exec timeout -s KILL 60 /usr/bin/time -f 'rss %M' "$L" check "$SP" --impl yes) 2>&1); code=$?
  rss=$(grep -o 'rss [0-9]*' <<<"$out" | cut -d' ' -f2)
  has "$out" "the implementation's output exceeds 67108864 bytes" && [ "${rss:-999999999}" -lt $((600 * 1024)) ]
  check hostile-forever $(( $? != 0 || code != 1 )) "exit $code, peak RSS ${rss:-?} KiB: $out"
  echo "a port writing forever: peak RSS ${rss:-?} KiB"
  # Answers are judged as they arrive and let go of, and a verdict keeps at
  # most 1 MiB of each text: twelve answers of 40 MB do not add up (3.1 GB
  # before).
  mkdir -p "$H/twelve"; for i in $(seq 12); do cp "$SP" "$H/twelve/s$i.xml"; done
  out=$( (cd "$H/cwd" && exec timeout -s KILL 120 /usr/bin/time -f 'rss %M' "$L" check "$H/twelve" \
          --impl "head -c 40000000 /dev/zero | tr '\\0' x") 2>&1); code=$?
  rss=$(grep -o 'rss [0-9]*' <<<"$out" | cut -d' ' -f2)
  [ "$(grep -c '^FAIL' <<<"$out")" -eq 12 ] && [ "${rss:-999999999}" -lt $((1024 * 1024)) ]
  check hostile-many-large $(( $? != 0 || code != 1 )) "exit $code, peak RSS ${rss:-?} KiB: $(tail -2 <<<"$out")"
  echo "twelve answers of 40 MB: peak RSS ${rss:-?} KiB"
fi
# A NUL byte hides nothing: a module followed by NUL and junk, an error line
# followed by one, in both ways of running a port.
out=$(bounded 60 "$SP" --impl "cat $H/sp.mlir; printf '\\000junk'"); code=$?
has "$out" "the implementation's stdout holds a NUL byte at offset $(wc -c <"$H/sp.mlir") (after \"..." &&
  has "$out" '\x0a"); no module or error line holds one'
check hostile-nul-stdout $(( $? != 0 || code != 1 )) "exit $code: $out"
errline=$("$L" lower "$MR" 2>&1 >/dev/null | tail -1)
printf '%s\n\000junk' "$errline" >"$H/nul.err"
out=$(bounded 60 "$MR" --impl "cat $H/nul.err >&2; exit 1"); code=$?
has "$out" "the implementation's stderr holds a NUL byte at offset $((${#errline} + 1))"
check hostile-nul-stderr $(( $? != 0 || code != 1 )) "exit $code: $out"
{ printf '0 %d 0\n' $(( $(wc -c <"$H/sp.mlir") + 5 )); cat "$H/sp.mlir"; printf '\000junk'; } >"$H/nul.frame"
out=$(bounded 60 "$SP" --batch --impl "read p; cat $H/nul.frame; read p"); code=$?
has "$out" "the implementation's stdout holds a NUL byte at offset"
check hostile-nul-batch $(( $? != 0 || code != 1 )) "exit $code: $out"
# Messages of any length: lowersim against itself on errors of 9,000 and
# 100,000 bytes (a primitive's long name), both ways.
mkdir -p "$H/long"
for n in 9000 100000; do
  name=$(head -c "$n" /dev/zero | tr '\0' m)
  awk -v n="$name" '/<expect/ {skip=1} !skip {gsub("my_op", n); print} skip && />/ {skip=0}' "$MR" >"$H/long/m$n.xml"
done
"$L" lower "$H/long/m100000.xml" 2>&1 | tail -1 | wc -c >"$H/long.len"
out=$(bounded 120 "$H/long" --impl "$L lower {scenario}"); code=$?
[ "$code" -eq 0 ] && [ "$(tail -1 <<<"$out")" = "2 passed, 0 failed, 0 skipped" ] && [ "$(cat "$H/long.len")" -gt 100000 ]
check hostile-long-message $? "exit $code: $out"
out=$(bounded 120 "$H/long" --batch --impl "bash $tmp/batch.sh"); code=$?
[ "$code" -eq 0 ] && [ "$(tail -1 <<<"$out")" = "2 passed, 0 failed, 0 skipped" ]
check hostile-long-message-batch $? "exit $code: $out"
# The placeholder is one argument and nothing in a file name runs, whatever
# quotes surround it: bare, in double quotes, in single quotes, mid-word.
mkdir -p "$H/names"
for f in 'a $(touch pwned1) b.xml' 'c `touch pwned2` d.xml' "e'f\"g \$HOME.xml" $'h\ni;touch pwned3.xml' 'j\\" $(touch pwned4).xml'; do
  cp "$SP" "$H/names/$f"
done
cat >"$H/args.sh" <<'EOS'
# args.sh PREFIX ARG...: exactly one argument, PREFIX then a path; lowers the path
[ $# -eq 2 ] || { echo "ValueError: $# arguments" >&2; exit 1; }
exec "$LOWERSIM_BIN" lower "${2#"$1"}"
EOS
export LOWERSIM_BIN=$L
for cmd in "sh $H/args.sh '' {scenario}" "sh $H/args.sh '' \"{scenario}\"" "sh $H/args.sh '' '{scenario}'" \
           "sh $H/args.sh X X{scenario}" "sh $H/args.sh 'X' \"X\"{scenario}" "sh $H/args.sh X 'X{scenario}'"; do
  out=$(bounded 60 "$H/names" --impl "$cmd"); code=$?
  [ "$code" -eq 0 ] && [ "$(tail -1 <<<"$out")" = "5 passed, 0 failed, 0 skipped" ] && [ -z "$(ls "$H/cwd")" ]
  check "hostile-placeholder $cmd" $? "exit $code: $out; made: $(ls "$H/cwd")"
  rm -f "$H/cwd"/*
done
# A port's escape sequences and control characters are shown as \xNN, never
# written raw to the terminal; --json stays valid UTF-8 (U+FFFD for bytes
# that are not UTF-8), for a file name and a port's output alike.
out=$(bounded 60 "$SP" --impl "printf '\\033]0;pwned\\007\\033[2J\\233 ValueError: x\\r\\n' >&2; exit 1"); code=$?
has "$out" 'the implementation exits 1: \x1b]0;pwned\x07\x1b[2J\x9b ValueError: x\x0d' && ! grep -q $'\033\|\007\|\r' <<<"$out"
check hostile-escapes $(( $? != 0 || code != 1 )) "exit $code: $(cat -v <<<"$out")"
mkdir -p "$H/utf8"; cp "$MR" "$H/utf8/"$'\xff\xfe-\xc3\xa9.xml'
out=$(bounded 60 "$H/utf8" --json --impl "printf 'ValueError: \\377\\300\\200 \\355\\240\\200 \\303\\251\\n' >&2; exit 1" |
      PYTHONIOENCODING=utf-8 python3 -c 'import json, sys; d = json.loads(sys.stdin.buffer.read().decode("utf-8")); c = d["cases"][0]; print(c["file"].rsplit("/", 1)[1]); print(c["actual"]["message"])')
r=$'\xef\xbf\xbd' e=$'\xc3\xa9'
[ "$out" = "$r$r-$e.xml
$r$r$r $r$r$r $e" ]
check hostile-json-utf8 $? "$out"

# Usage errors.
expect_usage() { # expect_usage NAME WANT ARGS...
  local name=$1 want=$2; shift 2
  local err; err=$("$L" check "$@" 2>&1 >/dev/null); local code=$?
  has "$err" "$want"; check "$name" $(( $? != 0 || code != 2 )) "exit $code: $err"
}
expect_usage batch-scenario "--batch: the command is started once and reads the paths on its stdin, so it takes no {scenario}" \
  "$S" --batch --impl "x {scenario}"
expect_usage jobs-alone "--batch, --jobs, --timeout, --normalize and --max-output need --impl" "$S" -j 2
expect_usage normalize-other "--normalize knows one way, jax, not 'pretty'" "$S" --normalize pretty --impl x
expect_usage jobs-zero "--jobs takes an integer from 1 to 256, not '0'" "$S" --jobs 0 --impl x
expect_usage select-empty "-k needs a pattern (a part of a path or a scenario's name)" "$S" -k ""

echo "cli_impl_test: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
