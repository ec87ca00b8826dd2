#!/usr/bin/env bash
# tests/readme_commands_test.sh: every command of the README's `sh` blocks
# runs as written, from a scratch folder where build/ is the build under test
# and testdata/ the repository's.  A trailing `# exit N` (two spaces before
# the #) is the exit code expected (else 0); `# -> TEXT`, text that the
# output (stdout and stderr) contains.  The commands write under build/ only:
# a file they leave beside build/ and testdata/, or an untracked file in the
# checkout (`git status`) that was not there before, fails.  The counts README.md and oracle/README.md
# state ("the N bundled scenarios") are testdata's.
set -u
BUILD=${BUILD_DIR:?} SRC=${SOURCE_DIR:?}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/work" && ln -s "$BUILD" "$tmp/work/build" && ln -s "$SRC/testdata" "$tmp/work/testdata"
# The checkout's untracked files (none when it is not a git work tree).
status() { git -C "$SRC" status --porcelain --untracked-files=all 2>/dev/null | grep '^??'; }
status >"$tmp/status.before"
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
left=$(cd "$tmp/work" && ls -A | grep -vxE 'build|testdata')
if [ -n "$left" ]; then
  echo "FAIL the commands leave files outside build/:" $left; fail=$((fail+1))
else
  pass=$((pass+1))
fi
status >"$tmp/status.after"
if ! diff -u "$tmp/status.before" "$tmp/status.after" >"$tmp/status.diff"; then
  echo "FAIL the commands leave untracked files in the checkout:"; cat "$tmp/status.diff"; fail=$((fail+1))
else
  pass=$((pass+1))
fi
bundled=$(ls "$SRC"/testdata/scenarios/*.xml | wc -l)
for doc in README.md oracle/README.md; do
  for n in $(tr '\n' ' ' <"$SRC/$doc" | grep -oE '[0-9]+ +bundled +scenarios' | cut -d' ' -f1); do
    if [ "$n" -ne "$bundled" ]; then
      echo "FAIL $doc says $n bundled scenarios; testdata/scenarios has $bundled"; fail=$((fail+1))
    else
      pass=$((pass+1))
    fi
  done
done
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
