#!/usr/bin/env bash
# tests/docs_test.sh: the generated man page and bash completion.  The man
# page renders without a groff warning and has every command's usage line;
# the completion completes commands, each command's options as its --help
# names them, and exactly the values each option accepts; --help lists every
# option of the table with its text and values.
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
# Values: the completion offers exactly what the command accepts, the
# expected lists taken from the command's own outputs.
same() { # same NAME WANT GOT
  [ "$2" = "$3" ]; ok $? "$1: the completion offers '$(echo $3)', the command takes '$(echo $2)'"
}
releases=$("$LOWERSIM" versions --json | python3 -c 'import json, sys
d = json.load(sys.stdin)
print("\n".join([v["name"] for v in d["versions"]] + [a["name"] for a in d["aliases"]]))')
for c in lower explain check matrix fuzz bench; do
  same "$c --jax <TAB>" "$releases" "$(complete_words lowersim "$c" --jax "")"
  same "$c --jax=<TAB>" "$releases" "$(complete_words lowersim "$c" --jax = "")"
  same "$c --jax=0.1<TAB>" "$releases" "$(complete_words lowersim "$c" --jax=0.1)"
done
elements=$("$LOWERSIM" lower --help | awk '/^The equations of <lower>/ {on = 1; next} on' |
  sed -n 's/^  <\([a-z_]*\)> .*/\1/p')
same "fuzz --focus <TAB>" "$elements" "$(complete_words lowersim fuzz --focus "")"
# The features: the matrix's message for an unknown one lists them.
features=$("$LOWERSIM" matrix --features nope 2>&1 | sed -n "s/.*takes features among \([a-z_,]*\), not.*/\1/p" | tr , '\n')
[ -n "$features" ]; ok $? "matrix --features nope lists no features"
same "matrix --features <TAB>" "$features" "$(complete_words lowersim matrix --features "")"
same "matrix --features rules,pa<TAB>" "$(printf 'rules,%s\n' $(grep '^pa' <<<"$features"))" \
  "$(complete_words lowersim matrix --features rules,pa)"
same "--color <TAB>" "$(printf '%s\n' auto always never)" "$(complete_words lowersim lower --color "")"
same "check --normalize <TAB>" jax "$(complete_words lowersim check --normalize "")"
# Every listed value is accepted: a usage error names none of them.
for v in $releases; do
  "$LOWERSIM" versions "$v" >/dev/null 2>&1; ok $? "versions $v is refused"
done
for v in $features; do
  "$LOWERSIM" matrix --features "$v" --limit 1 >/dev/null 2>&1; ok $? "matrix --features $v is refused"
done
for v in $elements; do
  "$LOWERSIM" fuzz --focus "$v" --iterations 0 --out "$(mktemp -d)" >/dev/null 2>&1
  ok $? "fuzz --focus $v is refused"
done
# --help's options come from the same table: every option the table has is
# listed with its help text, and an option with values lists exactly those.
for c in $commands; do
  out=$(python3 - "$LOWERSIM" "$c" <<'PY'
import re, subprocess, sys
lowersim, command = sys.argv[1], sys.argv[2]
help_text = subprocess.run([lowersim, command, "--help"], capture_output=True, text=True).stdout
table = subprocess.run([lowersim, "--options", command], capture_output=True, text=True).stdout
section = help_text.split("\noptions:\n", 1)[1] if "\noptions:\n" in help_text else ""
entries = {}  # --name: its text, continuation lines joined
name = None
for line in section.splitlines():
    m = re.match(r"^  (?:-., |    )(--[a-z-]+)(?: \S+)?(?: +(.*))?$", line)
    if m:
        name = m.group(1)
        entries[name] = (m.group(2) or "").strip()
    elif name and line.startswith(" " * 26):
        entries[name] = (entries[name] + " " + line.strip()).strip()
problems = []
for row in table.splitlines():
    option, *values = row.split(" ")
    option = option.rstrip("=")
    text = entries.get(option)
    if not text:
        problems.append("%s has no help text" % option)
    elif values and not text.endswith("(one of: %s)" % ", ".join(values)):
        problems.append("%s lists other values than %s: %s" % (option, values, text))
print("; ".join(problems))
PY
)
  [ -z "$out" ]; ok $? "lowersim $c --help: $out"
done
# An option that takes a file or a number is left to bash's file names.
[ -z "$(complete_words lowersim lower --output "")" ]; ok $? "lower --output <TAB> offers words"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
