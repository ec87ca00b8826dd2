#!/usr/bin/env bash
# tests/outputs_test.sh: machine outputs own standard output.  Every output
# a command writes to `-` (check --junit, matrix --csv and --junit, lower -o,
# matrix --case --scenario) and every --json is the whole of stdout, valid
# (the junit-10 schema, matrix --merge reading the CSV back, the JSON
# schema), the human summary on stderr then; and for every pair of outputs
# of every command, two naming one file (one path, two names of it, standard
# output twice) are refused with exit 2 before anything is written.
set -u
L=${LOWERSIM:?}
SRC=${SOURCE_DIR:?}
S=$SRC/testdata/scenarios
XSD=$SRC/testdata/schema/junit-10.xsd
SCHEMA=$SRC/testdata/schema/output.schema.json
PY=${PYTHON:-python3}
fail=0 pass=0
check() { # check NAME STATUS DETAIL
  if [ "$2" -ne 0 ]; then echo "FAIL $1: $3"; fail=$((fail+1)); else pass=$((pass+1)); fi
}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
M=(--platforms cpu,cuda --max-len 1 --features rules)

# --- Outputs to "-": stdout holds them alone -------------------------------------
"$L" check "$SRC/testdata/conformance" --junit - >junit.xml 2>summary.txt; code=$?
check check-junit-exit $code "exit $code: $(tail -3 summary.txt)"
out=$(xmllint --noout --schema "$XSD" junit.xml 2>&1); check check-junit-stdout-valid $? "$out"
grep -qE '^[0-9]+ passed, 0 failed, [0-9]+ skipped$' summary.txt; check check-junit-summary-on-stderr $? "$(tail -3 summary.txt)"

"$L" matrix "${M[@]}" --csv - >run.csv 2>summary.txt; code=$?
check matrix-csv-exit $code "exit $code"
grep -q '^matrix: cases 0\.\.' summary.txt; check matrix-csv-summary-on-stderr $? "$(cat summary.txt)"
"$L" matrix --merge run.csv --csv merged.csv >/dev/null 2>err.txt; code=$?
check matrix-csv-stdout-reads-back $code "$(cat err.txt)"
cmp -s run.csv merged.csv; check matrix-csv-stdout-whole $? "the merged CSV differs from stdout's"

"$L" matrix "${M[@]}" --junit - >mjunit.xml 2>/dev/null
out=$(xmllint --noout --schema "$XSD" mjunit.xml 2>&1); check matrix-junit-stdout-valid $? "$out"

"$L" matrix --merge run.csv --csv - >merged2.csv 2>summary.txt
cmp -s run.csv merged2.csv; check matrix-merge-csv-stdout $? "$(head -3 merged2.csv)"
grep -q '^matrix: merged 1 of 1 shards' summary.txt; check matrix-merge-summary-on-stderr $? "$(cat summary.txt)"

"$L" matrix "${M[@]}" --case 0 --scenario - >case.xml 2>summary.txt
grep -q '^case 0: ' summary.txt && grep -q '^wrote -: ' summary.txt; check matrix-case-text-on-stderr $? "$(cat summary.txt)"
"$L" lower case.xml >/dev/null; check matrix-case-scenario-stdout $? "$(head -3 case.xml)"

"$L" lower "$S/single-platform.xml" -o - >module.mlir 2>/dev/null
cmp -s module.mlir "$SRC/testdata/expected/single-platform.mlir"; check lower-o-stdout $? "$(head -3 module.mlir)"

# --json with a file output besides: stdout is one JSON object, valid.
: >all.jsonl
json() { # json NAME ARGS...: stdout is one line of JSON
  local name=$1; shift
  "$L" "$@" >out.json 2>err.txt
  [ "$(wc -l <out.json)" -eq 1 ]; check "$name" $? "$(head -c 300 out.json) $(cat err.txt)"
  cat out.json >>all.jsonl
}
json check-json-junit check "$S" --json --junit j.xml
out=$(xmllint --noout --schema "$XSD" j.xml 2>&1); check check-json-junit-file $? "$out"
json matrix-json-csv-junit matrix "${M[@]}" --json --csv m.csv --junit mj.xml
json matrix-merge-json matrix --merge m.csv --json --csv m2.csv
json lower-json-o lower "$S/single-platform.xml" --json -o l.mlir
cmp -s l.mlir "$SRC/testdata/expected/single-platform.mlir"; check lower-json-o-file $? "-o differs"
out=$("$PY" "$SRC/tests/json_schema_check.py" "$SCHEMA" all.jsonl); check json-schema $? "$out"

# --- Two outputs naming one file: refused, nothing written ------------------------
# refused NAME OPTION1 OPTION2 PATH-SHOWN -- ARGS...: exit 2, the one line, stdout
# empty, and no file made or changed.
refused() {
  local name=$1 a=$2 b=$3 shown=$4; shift 5
  rm -rf w && mkdir w && echo old >w/old.txt && ln -s old.txt w/link.txt && ln -s made.txt w/dangling.txt
  (cd w && "$L" "$@" >../stdout.txt 2>../stderr.txt); local code=$?
  local want="lowersim $cmd: $a and $b both write $shown: give each its own file" # in the table's order
  local other="lowersim $cmd: $b and $a both write $shown: give each its own file"
  [ "$code" -eq 2 ] && { [ "$(cat stderr.txt)" = "$want" ] || [ "$(cat stderr.txt)" = "$other" ]; } && [ ! -s stdout.txt ] &&
    [ "$(ls w)" = "$(printf 'dangling.txt\nlink.txt\nold.txt')" ] && [ "$(cat w/old.txt)" = old ]
  check "$name" $? "exit $code, stderr '$(cat stderr.txt)' (want '$want'), stdout $(wc -c <stdout.txt) bytes, files: $(ls w)"
}
# Each command's file outputs (the rows its option table marks CLI_OUTPUT; each
# command also has --json).
declare -A outputs=([check]="--junit --last-failed" [matrix]="--csv --junit --scenario"
                    [lower]="--output" [explain]="--html")
declare -A operands=([check]="$S/single-platform.xml" [matrix]="${M[*]}" [lower]="$S/single-platform.xml"
                     [explain]="$S/single-platform.xml")
for cmd in check matrix lower explain; do
  read -ra ops <<<"${operands[$cmd]}"
  read -ra outs <<<"${outputs[$cmd]}"
  for a in "${outs[@]}"; do
    # standard output twice: with --json
    refused "$cmd-$a-json-stdout" "$a" --json "standard output" -- $cmd "${ops[@]}" "$a" - --json
    # /dev/stdout (a file here) and --json: one file by device and inode
    (cd "$tmp" && "$L" $cmd "${ops[@]}" "$a" /dev/stdout --json >dev.txt 2>err.txt); code=$?
    [ "$code" -eq 2 ] && [ ! -s dev.txt ] && grep -Eq "both write (standard output|/dev/stdout)" err.txt
    check "$cmd-$a-dev-stdout-json" $? "exit $code: $(cat err.txt)"
    for b in "${outs[@]}"; do
      [[ "$a" < "$b" ]] || continue
      refused "$cmd-$a-$b-same" "$a" "$b" new.txt -- $cmd "${ops[@]}" "$a" new.txt "$b" new.txt
      refused "$cmd-$a-$b-two-names" "$a" "$b" ../w/new.txt -- $cmd "${ops[@]}" "$a" new.txt "$b" ../w/new.txt
      refused "$cmd-$a-$b-existing" "$a" "$b" ./old.txt -- $cmd "${ops[@]}" "$a" old.txt "$b" ./old.txt
      refused "$cmd-$a-$b-link" "$a" "$b" link.txt -- $cmd "${ops[@]}" "$a" old.txt "$b" link.txt
      # a link to nothing and the file it makes (the CSV was lost)
      refused "$cmd-$a-$b-dangling" "$a" "$b" made.txt -- $cmd "${ops[@]}" "$a" dangling.txt "$b" made.txt
      refused "$cmd-$a-$b-dev-fd" "$a" "$b" /dev/fd/1 -- $cmd "${ops[@]}" "$a" - "$b" /dev/fd/1
      refused "$cmd-$a-$b-stdout" "$a" "$b" "standard output" -- $cmd "${ops[@]}" "$a" - "$b" -
    done
  done
done
cmd=lower refused lower-short-o-json --output --json "standard output" -- lower "$S/single-platform.xml" -o - --json
# Character devices may be shared: /dev/null twice is no conflict.
"$L" matrix "${M[@]}" --csv /dev/null --junit /dev/null >/dev/null; check dev-null-shared $? "refused"

# --- Standard streams and descriptors are written in place ---------------------------
# -o /dev/stdout, /dev/stderr, /dev/fd/N (and --csv, --junit) with the stream
# appending to a log: the log keeps what it held (it was replaced by a rename).
want=$(cat "$SRC/testdata/expected/single-platform.mlir")
for target in /dev/stdout /dev/stderr /dev/fd/3 /proc/self/fd/3; do
  echo pre >log.txt
  case $target in
    /dev/stdout) "$L" lower "$S/single-platform.xml" -o $target >>log.txt 2>err.txt ;;
    /dev/stderr) "$L" lower "$S/single-platform.xml" -o $target 2>>log.txt ;;
    *) "$L" lower "$S/single-platform.xml" -o $target 3>>log.txt 2>err.txt ;;
  esac
  code=$?
  [ $code -eq 0 ] && [ "$(cat log.txt)" = "$(printf 'pre\n%s' "$want")" ]
  check "lower-o-$target-appends" $? "exit $code, log: $(head -c 200 log.txt)"
done
echo pre >log.txt
"$L" matrix "${M[@]}" --csv /dev/fd/3 --junit /dev/stdout 3>>log.txt >>log.txt 2>err.txt; code=$?
[ $code -eq 2 ] && grep -q "both write /dev/stdout" err.txt && [ "$(cat log.txt)" = pre ]
check matrix-csv-fd-junit-stdout-one-log $? "exit $code: $(cat err.txt)"
echo pre >log.txt
"$L" check "$S/missing-rule.xml" --junit /dev/stdout >>log.txt 2>err.txt; code=$?
[ $code -eq 0 ] && [ "$(head -n 1 log.txt)" = pre ] && tail -n +2 log.txt | xmllint --noout --schema "$XSD" - 2>/dev/null &&
  grep -q '^1 passed, 0 failed, 0 skipped$' err.txt
check check-junit-dev-stdout-appends $? "exit $code: $(head -c 200 log.txt) / $(cat err.txt)"
# Standard input is an input: never the output.
cp "$S/single-platform.xml" in.xml
"$L" lower - -o in.xml <in.xml 2>err.txt; code=$?
[ $code -eq 2 ] && [ "$(cat err.txt)" = "lowersim lower: cannot write in.xml: it is also an input of this command" ] &&
  cmp -s in.xml "$S/single-platform.xml"
check lower-stdin-o-itself $? "exit $code: $(cat err.txt)"

echo "outputs_test: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
