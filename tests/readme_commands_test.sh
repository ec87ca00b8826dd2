#!/usr/bin/env bash
# tests/readme_commands_test.sh: every command of the README's `sh` blocks
# runs as written, from a scratch folder where build/ is the build under test
# and testdata/ the repository's (what they write stays there).  A trailing
# `# exit N` (two spaces before the #) is the exit code expected (else 0);
# `# -> TEXT`, text that the output (stdout and stderr) contains.
set -u
BUILD=${BUILD_DIR:?} SRC=${SOURCE_DIR:?}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/work" && ln -s "$BUILD" "$tmp/work/build" && ln -s "$SRC/testdata" "$tmp/work/testdata"
awk '/^```sh$/ {on = 1; next} /^```/ {on = 0} on && NF' "$SRC/README.md" >"$tmp/commands"
pass=0 fail=0
[ -s "$tmp/commands" ] || { echo "FAIL the README has no sh block"; exit 1; }
while IFS= read -r line; do
  command=${line%%  #*} want=0 prints=
  comment=${line#"$command"}
  [[ $comment =~ \#\ exit\ ([0-9]+) ]] && want=${BASH_REMATCH[1]}
  [[ $comment =~ \#\ -\>\ (.*)$ ]] && prints=${BASH_REMATCH[1]}
  (cd "$tmp/work" && bash -c "$command") >"$tmp/out" 2>&1 </dev/null
  code=$?
  if [ "$code" -ne "$want" ]; then
    echo "FAIL exit $code (expected $want): $command"; tail -5 "$tmp/out"; fail=$((fail+1))
  elif [ -n "$prints" ] && ! grep -qF -- "$prints" "$tmp/out"; then
    echo "FAIL no line ending in '$prints': $command"; tail -5 "$tmp/out"; fail=$((fail+1))
  else
    pass=$((pass+1))
  fi
done <"$tmp/commands"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
