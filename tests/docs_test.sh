#!/usr/bin/env bash
# tests/docs_test.sh: the generated man page and bash completion.  The man
# page renders without a groff warning and has every command's usage line;
# the completion completes commands, and each command's options as its
# --help names them.
set -u
LOWERSIM=${LOWERSIM:?} MAN=${MAN_PAGE:?} COMPLETION=${COMPLETION:?}
pass=0 fail=0
ok() { if [ "$1" -eq 0 ]; then pass=$((pass+1)); else echo "FAIL $2"; fail=$((fail+1)); fi; }

commands=$("$LOWERSIM" --help | awk '/^commands:$/ {on = 1; next} on && !NF {exit} on {print $1}')
[ -n "$commands" ]; ok $? "lowersim --help lists no commands"

if command -v groff >/dev/null; then
  warnings=$(groff -man -Tutf8 -ww -z "$MAN" 2>&1)
  [ -z "$warnings" ]; ok $? "groff warns about lowersim.1: $warnings"
  page=$(groff -man -Tascii -P-cbou "$MAN" 2>/dev/null)
  for c in $commands; do
    usage=$("$LOWERSIM" "$c" --help | head -1)
    grep -qF -- "$usage" <<<"$page"; ok $? "the man page lacks '$usage'"
  done
  grep -qF "$("$LOWERSIM" --version)" <<<"$page"; ok $? "the man page does not name the version"
else
  echo "groff is not installed: the man page is not rendered"
fi

# complete WORD...: what the completion offers for the last word.
complete_words() {
  bash -c 'source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _lowersim
           printf "%s\n" "${COMPREPLY[@]}"' _ "$COMPLETION" "$@"
}
[ "$(complete_words lowersim pla)" = platforms ]; ok $? "lowersim pla<TAB>: $(complete_words lowersim pla)"
[ "$(complete_words lowersim platforms --jax)" = --jax-platforms ]
ok $? "lowersim platforms --jax<TAB>: $(complete_words lowersim platforms --jax)"
[ -z "$(complete_words lowersim lower some)" ]; ok $? "file names are left to bash"
for c in $commands; do
  [ "$(complete_words lowersim "$c" --he)" = --help ]; ok $? "lowersim $c --he<TAB>: $(complete_words lowersim "$c" --he)"
  for option in $("$LOWERSIM" "$c" --help | grep -oE '(^|[][ ])--[a-z][a-z-]*' | tr -d '[] '); do
    complete_words lowersim "$c" -- | grep -qx -- "$option"; ok $? "lowersim $c --<TAB> lacks $option"
  done
done
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
