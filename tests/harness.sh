# tests/harness.sh: what the shell tests share, sourced after `set -u`: a
# scratch folder $tmp (made writable, then removed, at exit: a test that
# mounts in it adds its own trap), the counts, `ok`, `ko MESSAGE` and
# `finish`, which prints the counts and is the test's status.
tmp=$(mktemp -d)
trap 'chmod -R u+rwx "$tmp" 2>/dev/null; rm -rf "$tmp"' EXIT
pass=0 fail=0
ok() { pass=$((pass+1)); }
ko() { echo "FAIL $*"; fail=$((fail+1)); }
finish() {
  echo "$pass passed, $fail failed"
  [ "$fail" -eq 0 ]
}
