#!/usr/bin/env bash
# tests/junit_test.sh: the JUnit reports of check and matrix are valid against
# the junit-10 schema Jenkins' xunit plugin and GitLab read
# (testdata/schema/junit-10.xsd, from the jenkinsci/xunit-plugin repository),
# with <error> for invalid input, dotted class names, a timestamp, and the
# difference in <system-out>.
set -u
L=${LOWERSIM:?}
SRC=${SOURCE_DIR:?}
S=$SRC/testdata/scenarios
XSD=$SRC/testdata/schema/junit-10.xsd
fail=0 pass=0
check() { # check NAME STATUS DETAIL
  if [ "$2" -ne 0 ]; then echo "FAIL $1: $3"; fail=$((fail+1)); else pass=$((pass+1)); fi
}
valid() { # valid NAME FILE
  local out; out=$(xmllint --noout --schema "$XSD" "$2" 2>&1); check "$1" $? "$out"
}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cd "$tmp" && mkdir -p cases && cp "$S/single-platform.xml" "$S/missing-rule.xml" cases/ && echo '<x/>' >cases/bad.xml

"$L" check "$S" --junit all.xml >/dev/null; valid check-corpus all.xml
"$L" check cases --junit mixed.xml >/dev/null; code=$?
check check-invalid-exit $(( code != 2 )) "exit $code"
valid check-invalid mixed.xml
grep -q '<testsuite name="lowersim check" tests="3" failures="0" errors="1" skipped="1" time="[0-9.]*" timestamp="[0-9]\{4\}-[0-9][0-9]-[0-9][0-9]T[0-9][0-9]:[0-9][0-9]:[0-9][0-9]" hostname="' mixed.xml
check suite-attributes $? "$(grep '<testsuite' mixed.xml)"
grep -q '<error message="cases/bad.xml:1: unknown root element &lt;x&gt;; a scenario file'"'"'s root is &lt;scenario&gt;" type="invalid input">' mixed.xml
check error-element $? "$(grep -A2 'bad.xml' mixed.xml)"
grep -q '<testcase classname="lowersim.check.cases" name="missing-rule" time=' mixed.xml
check dotted-classname $? "$(grep '<testcase' mixed.xml)"
"$L" lower cases/single-platform.xml | sed 's/stablehlo.add/stablehlo.multiply/' >wrong.mlir
"$L" check cases/single-platform.xml --impl "cat wrong.mlir" --junit diff.xml >/dev/null
valid check-impl diff.xml
first='first difference: line 5, stablehlo.add: lowersim &quot;... &quot;stablehlo.add&quot;(%0, %1) : (tensor&lt;4xf32...&quot; port &quot;... &quot;stablehlo.multiply&quot;(%0, %1) : (tensor&lt;...&quot;'
grep -qF "<failure message=\"$first\" type=\"difference\">$first" diff.xml &&
  grep -q '^-    %2 = &quot;stablehlo.\[-add-\]&quot;' diff.xml &&
  grep -A3 '<system-out>file: cases/single-platform.xml' diff.xml | grep -q '^first difference: line 5, stablehlo.add: '
check failure-and-system-out $? "$(cat diff.xml)"

M=(--platforms cpu,cuda --max-len 1 --features rules)
"$L" matrix "${M[@]}" --junit matrix.xml --csv m.csv >/dev/null; valid matrix matrix.xml
grep -q '<testcase classname="lowersim.matrix.rules" name="rules/default"' matrix.xml
check matrix-classname $? "$(grep -m2 '<testcase' matrix.xml)"
grep -q '<testcase classname="lowersim.matrix.rules.platforms" name="cpu"' matrix.xml &&
  [ "$(grep -c 'classname="lowersim.matrix.rules.platforms"' matrix.xml)" -eq 2 ]
check matrix-row-cases $? "$(grep 'platforms"' matrix.xml)"
"$L" matrix --merge m.csv --junit merged.xml >/dev/null; valid matrix-merge merged.xml

# The schema is not vacuous: a suite without errors= is refused.
sed 's/ errors="1"//' mixed.xml >broken.xml
xmllint --noout --schema "$XSD" broken.xml 2>/dev/null; check schema-rejects $(( $? == 0 )) "a suite without errors= validates"

echo "junit_test: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
