#!/usr/bin/env bash
# tests/cli_robust_test.sh: the command against hostile input and output (issue 11).
# Each check is a behaviour the command did not have: the matrix's CSV reader and
# options, bounded work, `check`'s walk, the one output path (atomic, mode kept,
# non-regular files in place, inputs never overwritten, signals, long names, write
# errors), JUnit for any file name, strict numbers and the option grammar.
#   LOWERSIM=the command  SOURCE_DIR=the tree  CC=a C compiler (for the signal shim)
set -u
L=${LOWERSIM:?} SRC=${SOURCE_DIR:?} CC=${CC:-cc}
S=$SRC/testdata/scenarios
. "$(dirname "${BASH_SOURCE[0]}")/harness.sh"
cd "$tmp" || exit 1
# expect NAME WANT_EXIT WANT_STDERR_SUBSTRING -- ARGS...
expect() {
  local name=$1 want=$2 needle=$3; shift 4
  local err; err=$(timeout 120 "$L" "$@" 2>&1 >/dev/null); local got=$? # 124: it hung
  if [ "$got" -ne "$want" ] || [[ "$err" != *"$needle"* ]]; then
    ko "$name: exit $got (want $want), stderr: $err"
  else ok; fi
}

# --- matrix --merge: every field checked, FILE:LINE: errors, exit 2 ------------------
"$L" matrix --features rules --max-len 1 --limit 10 --csv s.csv >/dev/null || ko "matrix --csv"
bad() { # NAME SED-EXPRESSION WANT-STDERR
  sed "$2" s.csv >"$1.csv"
  expect "merge-$1" 2 "$3" -- matrix --merge "$1.csv"
}
bad empty-platforms '3s/,cpu,/,,/' "empty-platforms.csv:3: platform '' is not a platform name"
bad plus-platforms '3s/,cpu,/,+,/' "plus-platforms.csv:3: platform '' is not a platform name"
bad unknown-variant '3s|rules/default|rules/zzz|' "unknown-variant.csv:3: variant 'rules/zzz' is not a variant of rules"
bad other-features-variant '3s|rules/default|pure|' "other-features-variant.csv:3: variant 'pure' is not a variant of rules"
bad unknown-outcome '3s/,OK,/,LSIM_E_BOGUS,/' "unknown-outcome.csv:3: outcome 'LSIM_E_BOGUS' is not OK or a lowersim status name"
bad bad-hash '4s/,[0-9a-f]*$/,XYZ/' "bad-hash.csv:4: module_hash 'XYZ' is not 16 lowercase hexadecimal digits"
bad error-with-hash '3s/,OK,/,LSIM_E_NO_LOWERING_RULE,/' "error-with-hash.csv:3: module_hash"
bad gap '4s/^1,/5,/' "gap.csv:4: case 5 follows case 0"
bad leading-zero '3s/^0,/00,/' "leading-zero.csv:3: index '00' is not a case number"
bad fields '3s/,-,/,/' "fields.csv:3: a row has 8 fields"
bad header '2s/index/idx/' "header.csv:2: the second line must be the header index,feature"
bad no-metadata '1d' "no-metadata.csv:1: a matrix CSV of format 1 (the header first, no shard metadata), written by an older lowersim"
bad not-csv '1s/.*/hello/' "not-csv.csv:1: not a matrix CSV: the first line must be its metadata"
bad format '1s/CSV 2:/CSV 3:/' "format.csv:1: metadata: format '3' is not 2"
bad meta-order '1s/ jax=/ jx=/' "meta-order.csv:1: metadata: expected jax=... at 'jx="
bad meta-jax '1s/ jax=[^ ]*/ jax=0.0.1/' "meta-jax.csv:1: metadata: jax='0.0.1' is not a JAX version profile"
bad meta-lowersim '1s/lowersim=[^ ]*/lowersim=9.9.9/' "meta-lowersim.csv:1: written by lowersim 9.9.9; this is lowersim"
bad meta-features '1s/features=rules/features=pallas+rules/' "meta-features.csv:1: metadata: feature 'rules' is not the next of"
bad meta-total '1s/total=[0-9]*/total=7/' "meta-total.csv:1: metadata: total=7 is not the size of the matrix its fields describe"
bad meta-cases '1s/cases=0\.\.10/cases=0..9/' "meta-cases.csv:1: metadata: cases=0..9 is not shard 0/1 of"
bad meta-shard '1s|shard=0/1|shard=1/1|' "meta-shard.csv:1: metadata: shard=1/1 is not I/N"
bad meta-trailing '1s/$/ x=1/' "meta-trailing.csv:1: metadata: ' x=1' after total=, the last field"
bad not-the-case '3s/,-,cpu,OK/,cpu,cpu,OK/' "not-the-case.csv:3: the row is not case 0 of the matrix of line 1, which is rules/default on cpu, backend -, runtime mask 0"
bad missing-rows '$d' "missing-rows.csv:12: the shard ends after case 8 but its metadata says cases 0..10 (cut short?)"
bad first-case '3d' "first-case.csv:3: the first case is 1, but the shard's cases are 0..10"
bad backend '3s/,-,cpu,/,gpu,cpu,/' "backend.csv:3: backend 'gpu' is not"
bad runtime '3s/,cpu,OK/,cpu+cpu,OK/' "runtime.csv:3: runtime 'cpu+cpu' is not cpu followed by"
bad twice '3s/,cpu,-,/,cpu+cpu,-,/' "twice.csv:3: platform 'cpu' appears twice"
bad control '3s/,cpu,-,/,c\x01u,-,/' "control.csv:3: platform 'c\\x01u' is not a platform name"
head -c -1 s.csv >cut.csv
expect merge-cut-short 2 "cut.csv:12: the last line has no newline (a shard cut short?)" -- matrix --merge cut.csv
{ head -2 s.csv; printf '0,rules,%03000d\n' 0; } >long.csv
expect merge-long-line 2 "long.csv:3: the line is longer than 2048 bytes" -- matrix --merge long.csv
{ head -2 s.csv; printf '0,ru\0les\n'; } >nul.csv
expect merge-nul 2 "nul.csv:3: a NUL byte" -- matrix --merge nul.csv
"$L" matrix --merge - --csv m.csv <s.csv >/dev/null && cmp -s m.csv s.csv || ko "merge from standard input"
ok

# --- matrix --merge: only every shard of one run, each once --------------------------
R=(--features rules --platforms cpu,tpu --max-len 1)
for i in 0 1 2 3; do "$L" matrix "${R[@]}" --shard $i/4 --csv q$i.csv >/dev/null; done
"$L" matrix "${R[@]}" --csv q.csv >/dev/null
"$L" matrix --merge q3.csv q1.csv q0.csv q2.csv --csv qm.csv >qm.txt && cmp -s q.csv qm.csv && ok || ko "4 of 4 shards do not merge into the whole run"
grep -q '^matrix: merged 4 of 4 shards (jax .*), cases 0\.\.2688 of 2688$' qm.txt && ok || ko "merge summary line: $(head -1 qm.txt)"
expect merge-2-of-4 2 "lowersim matrix: an incomplete shard set: 2 of 4 shards of the run of q0.csv (missing 1/4, 3/4); --merge joins every shard of one run" -- matrix --merge q0.csv q2.csv
expect merge-duplicate 2 "q0.csv:1: shard 0/4 again (q0.csv is that shard too)" -- matrix --merge q0.csv q1.csv q0.csv q3.csv
cp q2.csv q2-copy.csv
expect merge-duplicate-other-name 2 "shard 2/4 again" -- matrix --merge q0.csv q1.csv q2.csv q2-copy.csv q3.csv
"$L" matrix "${R[@]}" --shard 1/2 --csv h1.csv >/dev/null
expect merge-mixed-shards 2 "h1.csv:1: not a shard of the run of q0.csv: shards=2 here, shards=4 there" -- matrix --merge q0.csv h1.csv q2.csv q3.csv
"$L" matrix "${R[@]}" --jax 0.10.2 --shard 1/4 --csv j1.csv >/dev/null
expect merge-mixed-jax 2 "j1.csv:1: not a shard of the run of q0.csv: jax=0.10.2 here, jax=" -- matrix --merge q0.csv j1.csv q2.csv q3.csv
"$L" matrix --features rules --platforms cpu,cuda --max-len 1 --shard 1/4 --csv p1.csv >/dev/null
expect merge-mixed-platforms 2 "p1.csv:1: not a shard of the run of q0.csv: platforms=cpu+cuda here, platforms=cpu+tpu there" -- matrix --merge q0.csv p1.csv q2.csv q3.csv
"$L" matrix "${R[@]}" --features rules,pallas --shard 1/4 --csv f1.csv >/dev/null
expect merge-mixed-features 2 "f1.csv:1: not a shard of the run of q0.csv: features=rules+pallas here, features=rules there" -- matrix --merge q0.csv f1.csv q2.csv q3.csv
for i in 0 1; do "$L" matrix "${R[@]}" --shard $i/2 --limit 5 --csv l$i.csv >/dev/null; done
expect merge-limited 2 "l0.csv:1: shard 0/2 was cut short by limit=5 (cases 0..5 of its 0..1344): only whole shards merge, or a single --shard 0/1 run" -- matrix --merge l0.csv l1.csv
expect merge-jax-option 2 "lowersim matrix: q0.csv:1: the shard models jax" -- matrix --merge --jax 0.10.2 q0.csv q1.csv q2.csv q3.csv
head -n -3 q1.csv >q1-cut.csv
expect merge-shard-cut 2 "q1-cut.csv:" -- matrix --merge q0.csv q1-cut.csv q2.csv q3.csv
"$L" matrix --merge qm.csv >/dev/null && ok || ko "a merged CSV is not a valid shard set of one"

# The output is never an input: --csv onto a shard is refused and the shard kept.
cp s.csv a.csv
expect merge-csv-onto-input 2 "cannot write a.csv: it is also an input of this command" -- matrix --merge a.csv --csv a.csv
cmp -s a.csv s.csv && ok || ko "merge --csv wiped its input"

# Long platform names are written whole (a 32-byte buffer overflowed: exit 139).
A=$(printf 'a%.0s' $(seq 60)) B=$(printf 'b%.0s' $(seq 60))
"$L" matrix --platforms "$A,$B" --max-len 2 --features rules --csv long-names.csv >/dev/null; code=$?
[ $code -eq 0 ] && grep -q ",$B+$A,-," long-names.csv && ok || ko "long platform names: exit $code"
"$L" matrix --platforms "$A,$B" --max-len 2 >/dev/null; code=$?
[ $code -eq 0 ] && ok || ko "long platform names without --csv: exit $code"
expect matrix-platform-too-long 2 "--platforms takes platform names" -- matrix --platforms "$A$B"
expect matrix-platforms-twice 2 "--platforms takes distinct platforms" -- matrix --platforms cpu,cpu
# --platforms and --features do not share storage (a static strtok buffer did).
"$L" matrix --platforms cpu,tpu --features rules --csv pf.csv >/dev/null
[ "$(cut -d, -f4 pf.csv | tail -n +3 | sort -u | tr '\n' ' ')" = "cpu cpu+tpu tpu tpu+cpu " ] && ok ||
  ko "--platforms cpu,tpu --features rules lowers for: $(cut -d, -f4 pf.csv | sort -u | tr '\n' ' ')"

# --- Strict numbers and the option grammar --------------------------------------------
expect max-len-wraps 2 "--max-len takes an integer from 1 to 4, not '4294967297'" -- matrix --max-len 4294967297
expect shard-trailing 2 "--shard takes I/N with 0 <= I < N, not '1/2x'" -- matrix --shard 1/2x
expect shard-negative 2 "--shard takes I/N with 0 <= I < N, not '0/-1'" -- matrix --shard 0/-1
expect limit-zero 2 "--limit takes an integer from 1 to" -- matrix --limit 0
expect jobs-plus 2 "--jobs takes an integer from 1 to 256, not '+2'" -- matrix --jobs +2
expect bench-inf 2 "--seconds takes a number from 0.001 to 3600, not 'inf'" -- bench --seconds inf
expect bench-nan 2 "--seconds takes a number from 0.001 to 3600, not 'nan'" -- bench --seconds nan
expect bench-hex 2 "not '0x10'" -- bench --seconds 0x10
expect fuzz-seed-sign 2 "--seed takes an integer from 0 to" -- fuzz --seed -1
"$L" fuzz --seed 010 --iterations 1 --emit emit >/dev/null
[ -f emit/fuzz-10-0.xml ] && ok || ko "--seed 010 is not 10: $(ls emit)"
expect devices-trailing 2 "not 'cuda=2x'" -- platforms --backend cuda=2x
expect ambiguous 2 "ambiguous option '--m'" -- matrix --m 2
expect unknown-short 2 "unknown option '-q'" -- lower -q x.xml
"$L" lower --output=eq.mlir "$S/single-platform.xml" && cmp -s eq.mlir "$SRC/testdata/expected/single-platform.mlir" &&
  ok || ko "--output=FILE"
cp "$S/single-platform.xml" ./-dash.xml
"$L" lower -o dd.mlir -- -dash.xml && cmp -s dd.mlir eq.mlir && ok || ko "-- before an operand starting with -"
"$L" lower - <"$S/single-platform.xml" | cmp -s - eq.mlir && ok || ko "lower - (standard input)"
"$L" lower -o - "$S/single-platform.xml" | cmp -s - eq.mlir && ok || ko "lower -o - (standard output)"
"$L" explain - <"$S/single-platform.xml" | grep -q "^lowersim explain - " && ok || ko "explain -"
[ "$("$L" check - <"$S/missing-rule.xml" | tail -n 1)" = "1 passed, 0 failed, 0 skipped" ] && ok || ko "check -"
for c in lower explain check matrix fuzz bench platforms errors; do
  out=$("$L" $c --help) && [[ "$out" == "usage: lowersim $c"* ]] || ko "$c --help"
  [ "$("$L" $c --version)" = "$("$L" --version)" ] || ko "$c --version"
done
ok

# --- Run-time invalid input: the offending element's FILE:LINE:, nothing else ---------
cat >kernel.xml <<'XML'
<?xml version="1.0"?>
<scenario name="k">
  <runtime>
    <backend platform="cpu"/>
    <backend platform="tpu"/>
  </runtime>
  <lower function="f" platforms="tpu">
    <arg dtype="f32" shape="8"/>
    <arg dtype="f32" shape="8,2"/>
    <pallas_call args="1" kernel="add_one" grid="4">
      <result dtype="f32" shape="8"/>
    </pallas_call>
  </lower>
</scenario>
XML
err=$("$L" lower kernel.xml 2>&1 >/dev/null); code=$?
[ $code -eq 2 ] && [ "$err" = "kernel.xml:10: Pallas kernel 'add_one' takes one non-empty 1-D numeric array and returns one of the same shape and dtype" ] &&
  ok || ko "run-time invalid input: exit $code: $err"
printf '<scenario name="t">\n<lower/>\n</scenario>\n\0<junk/>' >nul.xml
expect nul-after-root 2 "nul.xml:4: a NUL byte" -- lower nul.xml

# --- Bounded work: thousands of distinct platforms lower at once ----------------------
{ echo '<scenario name="p"><lower platforms="'"$(seq -f 'p%g' -s, 1 4000)"'">'
  echo '<arg dtype="f32" shape="8"/><platform_dependent args="0">'
  seq -f '<branch platforms="p%g" op="sine"/>' 1 4000
  echo '</platform_dependent></lower></scenario>'; } >platforms.xml
timeout 60 "$L" lower platforms.xml >/dev/null; code=$?
[ $code -eq 0 ] && ok || ko "4000 lowering platforms: exit $code (124: over 60 s)"

# --- check: loops, non-regular files, each file once ---------------------------------
mkdir walk && cp "$S/missing-rule.xml" walk/x.xml
(cd walk && ln -s . a && ln -s . b && ln -s x.xml y.xml && ln -s nowhere z.xml && mkfifo f.xml)
out=$(timeout 20 "$L" check walk 2>err.txt); code=$?
[ $code -eq 0 ] && [ "$(tail -n 1 <<<"$out")" = "1 passed, 0 failed, 0 skipped" ] && ok ||
  ko "check on self-links, a FIFO, a dangling link: exit $code: $out"
grep -q "skipping walk/f.xml: a FIFO, not a regular file" err.txt && ok || ko "no note for the FIFO: $(cat err.txt)"
grep -q "skipping walk/a: a folder searched already" err.txt && ok || ko "no note for the loop: $(cat err.txt)"
grep -q "skipping walk/z.xml: a symbolic link to nothing" err.txt && ok || ko "no note for the dangling link"
# A path past PATH_MAX is said and fails the run (it was dropped, silently).
deep=deep; mkdir "$deep"
for i in $(seq 42); do deep=$deep/$(printf 'd%.0s' $(seq 100)); done
mkdir -p "$deep" 2>/dev/null || (cd deep && for i in $(seq 42); do mkdir "$(printf 'd%.0s' $(seq 100))" && cd "$(printf 'd%.0s' $(seq 100))" || exit 1; done)
(cd deep && for i in $(seq 42); do cd "$(printf 'd%.0s' $(seq 100))" || exit 1; done; cp "$S/missing-rule.xml" x.xml)
err=$(timeout 60 "$L" check deep 2>&1 >/dev/null); code=$?
[ $code -eq 2 ] && [[ "$err" == "lowersim check: cannot read deep/ddd"*": File name too long (the system names no path longer than 4096 bytes)" ]] &&
  ok || ko "check of a path past PATH_MAX: exit $code: ${err:0:120}...${err: -120}"
rm -rf deep
# Nothing found (a sorted empty list passed NULL to qsort: found by lowersim_libfuzzer_cli).
expect check-missing-path 2 "lowersim check: cannot read 'nowhere': No such file or directory" -- check nowhere

# --- JUnit is well-formed whatever the file names hold ---------------------------------
mkdir names && cp "$S/missing-rule.xml" names/$'ctl\x01\x1b.xml' && cp "$S/missing-rule.xml" names/$'\xff\xfe.xml'
"$L" check names --junit names.xml >/dev/null && xmllint --noout names.xml 2>/dev/null && ok ||
  ko "JUnit for odd file names is not well-formed: $(head -c 600 names.xml)"
grep -q 'file: names/ctl\\x01\\x1B.xml' names.xml && ok || ko "control characters not written as \\xNN"

# --- The one output path -------------------------------------------------------------
M=eq.mlir
# A FIFO is written in place (it was replaced by a regular file, and its reader
# waited for a writer that never came).
mkfifo pipe.mlir; timeout 60 cat pipe.mlir >from-pipe.mlir & reader=$!
timeout 60 "$L" lower "$S/single-platform.xml" -o pipe.mlir; code=$?
wait $reader
[ $code -eq 0 ] && [ -p pipe.mlir ] && cmp -s from-pipe.mlir $M && ok || ko "-o FIFO: exit $code"
# A symbolic link stays one; its target gets the module.
echo old >target.mlir; ln -s target.mlir link.mlir
"$L" lower "$S/single-platform.xml" -o link.mlir && [ -L link.mlir ] && cmp -s target.mlir $M && ok || ko "-o symlink"
# A new file gets 0666 less the umask; an old one keeps its mode.
(umask 027; "$L" lower "$S/single-platform.xml" -o new.mlir)
[ "$(stat -c %a new.mlir)" = 640 ] && ok || ko "new file mode $(stat -c %a new.mlir), want 640"
echo old >kept.mlir; chmod 604 kept.mlir
"$L" lower "$S/single-platform.xml" -o kept.mlir
[ "$(stat -c %a kept.mlir)" = 604 ] && cmp -s kept.mlir $M && ok || ko "old mode $(stat -c %a kept.mlir), want 604"
# A 250-character name (the temporary's name went past 255).
long=$(printf 'n%.0s' $(seq 246)).mlir
"$L" lower "$S/single-platform.xml" -o "$long" && cmp -s "$long" $M && ok || ko "-o with a 250-character name"
# A folder is refused; the input is never the output.
mkdir folder
expect output-folder 2 "cannot write folder: it is a folder" -- lower "$S/single-platform.xml" -o folder
cp "$S/single-platform.xml" self.xml
expect output-is-input 2 "cannot write self.xml: it is also an input of this command" -- lower self.xml -o self.xml
cmp -s self.xml "$S/single-platform.xml" && ok || ko "the input was overwritten"
# A signal between writing and renaming leaves the old file and no temporary.
if "$CC" -shared -fPIC -o stop.so "$SRC/tests/stop_before_rename.c" -ldl 2>/dev/null; then
  echo old >old.mlir; cp s.csv old.csv
  ASAN_OPTIONS=verify_asan_link_order=0 LD_PRELOAD=$PWD/stop.so "$L" lower "$S/single-platform.xml" -o old.mlir 2>/dev/null
  code=$?
  [ $code -eq 143 ] && [ "$(cat old.mlir)" = old ] && ok || ko "SIGTERM before rename: exit $code, old.mlir: $(head -c 40 old.mlir)"
  ASAN_OPTIONS=verify_asan_link_order=0 STOP_SIGNAL=2 LD_PRELOAD=$PWD/stop.so "$L" matrix --merge s.csv --csv old.csv >/dev/null 2>&1
  code=$?
  [ $code -eq 130 ] && cmp -s old.csv s.csv && ok || ko "SIGINT before the CSV's rename: exit $code"
  [ -z "$(ls -A | grep '^\.lowersim-')" ] && ok || ko "temporaries left: $(ls -A | grep '^\.lowersim-')"
else
  echo "note: no C compiler for the signal shim; skipped"
fi
[ -z "$(ls -A | grep -E '^\.lowersim-|\.tmp\.')" ] && ok || ko "temporaries left behind"

# Write errors: never exit 0.
for c in "lower $S/single-platform.xml" "explain $S/single-platform.xml" "check $S/missing-rule.xml" \
         "matrix --limit 5" "platforms" "errors" "fuzz --iterations 1 --out fz" "matrix --merge s.csv"; do
  err=$("$L" $c 2>&1 >/dev/full); code=$?
  [ $code -eq 2 ] && [[ "$err" == *"cannot write standard output: No space left on device"* ]] || ko "$c >/dev/full: exit $code: $err"
done
ok
# Outputs that fill up: a device like /dev/full of our own when root (a lowersim
# that replaced devices would replace the system's: the old one turned /dev/null
# and /dev/full into regular files), the system's otherwise (/dev is not writable).
full=/dev/full
if [ "$(id -u)" -eq 0 ]; then
  mknod "$tmp/full" c 1 7 2>/dev/null && full=$tmp/full || full=
fi
if [ -n "$full" ]; then
  expect junit-full 2 "cannot write $full: No space left on device" -- check "$S/missing-rule.xml" --junit "$full"
  expect matrix-junit-full 2 "cannot write $full: No space left on device" -- matrix --limit 5 --junit "$full"
  expect matrix-csv-full 2 "cannot write $full: No space left on device" -- matrix --limit 5 --csv "$full"
  expect lower-o-full 2 "cannot write $full: No space left on device" -- lower "$S/single-platform.xml" -o "$full"
  [ -c "$full" ] && ok || ko "$full is no longer a character device"
else
  echo "note: root without mknod: the tests writing to a full device are skipped"
fi

# --- The signal-and-filesystem fault matrix (issue 26) ---------------------------------
# Each command that writes (lower -o, explain on standard output, explain --html,
# check --junit, matrix --csv, fuzz --out) x each fault: the exit code, the
# message, what is left (the old output kept, no temporary, no in-progress file,
# no scratch folder) and no process of the command left running.  fm_args is
# the table of commands (IN: its input, OUT: its output); each fm_FAULT
# function is one column, run for every row.
FM=$tmp/faults; mkdir -p "$FM/scratch" "$FM/ro"
cp "$S/single-platform.xml" "$FM/in.xml"; cp "$S/missing-rule.xml" "$FM/check.xml"; cp s.csv "$FM/in.csv"
FM_COMMANDS="lower explain html check matrix fuzz"
fm_args() { # COMMAND IN OUT: the argument vector A
  case $1 in
    lower) A=(lower "$2" -o "$3") ;;
    explain) A=(explain "$2") ;; # its output is standard output
    html) A=(explain --html "$3" "$2") ;;
    check) A=(check "$2" --junit "$3") ;;
    matrix) A=(matrix --merge "$2" --csv "$3") ;;
    fuzz) A=(fuzz --iterations 3 --out "$3") ;; # OUT a folder
  esac
}
fm_in() { case $1 in check) echo "$FM/check.xml" ;; matrix) echo "$FM/in.csv" ;; *) echo "$FM/in.xml" ;; esac; }
# fm_run COMMAND IN OUT [ENV...]: $code, $err (stderr); explain's standard output
# goes to OUT, the others' to $FM_STDOUT (default /dev/null); PRE runs before it.
PRE=() FM_STDOUT=/dev/null
fm_run() {
  local c=$1 in=$2 out=$3; shift 3
  fm_args "$c" "$in" "$out"
  local to=$FM_STDOUT; [ "$c" = explain ] && to=$out
  err=$(cd "$FM" && timeout 60 env TMPDIR="$FM/scratch" ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0 "$@" "${PRE[@]}" "$L" "${A[@]}" 2>&1 >>"$to"); code=$?
}
# fm_check NAME WANT_CODE NEEDLE DIR...: the code, the message, nothing left in
# DIR... or the scratch folder, no process naming the folder of the matrix.
fm_check() {
  local name=$1 want=$2 needle=$3; shift 3
  local left; left=$(find "$@" "$FM/scratch" -mindepth 1 \( -name '.lowersim-*' -o -name 'in-progress*' -o -name 'lowersim-fuzz-*' \) 2>/dev/null)
  if [ "$code" -ne "$want" ] || [[ "$err" != *"$needle"* ]]; then ko "$name: exit $code (want $want), stderr: ${err:0:300}"
  elif [ -n "$left" ]; then ko "$name: left behind: $left"
  elif pgrep -f -- "$FM/" >/dev/null; then ko "$name: still running: $(pgrep -af -- "$FM/")"
  else ok; fi
}
fm_old() { # COMMAND PATH: an old output at PATH (a folder for fuzz)
  rm -rf "$2"; if [ "$1" = fuzz ]; then mkdir "$2"; else echo old >"$2"; fi
}
fm_kept() { # NAME COMMAND PATH: the old output is as it was
  if [ "$2" = fuzz ]; then [ -z "$(ls -A "$3")" ] || ko "$1: $3 holds $(ls -A "$3")"
  elif [ "$2" != explain ]; then [ "$(cat "$3")" = old ] || ko "$1: the old $3 is gone: $(head -c 60 "$3")"; fi
}
for c in $FM_COMMANDS; do # what each writes when nothing goes wrong
  fm_run $c "$(fm_in $c)" "$FM/ref-$c"
done
# SIGINT, SIGTERM, SIGHUP: raised by the shim as the output is renamed into place
# (explain: as it first writes standard output; fuzz: as its in-progress file is).
fm_signal() {
  local c=$1 sig out=$FM/sig-$1
  for sig in 2 15 1; do
    fm_old $c "$out"
    fm_run $c "$(fm_in $c)" "$out" LD_PRELOAD="$FM/stop.so" STOP_SIGNAL=$sig ${2:+STOP_AT_WRITE=1}
    fm_check "$c signal $sig" $((128 + sig)) "" "$FM"
    fm_kept "$c signal $sig" $c "$out"
  done
}
# SIGXFSZ: past `ulimit -f 0` the write fails with EFBIG, named, instead of the
# signal ending the command (exit 153) with its temporary left.
fm_sigxfsz() {
  local c=$1 out=$FM/big-$1
  fm_old $c "$out"
  PRE=(bash -c 'ulimit -f 0; exec "$@"' _)
  fm_run $c "$(fm_in $c)" "$out"
  PRE=()
  fm_check "$c ulimit -f" 2 "File too large" "$FM"
  fm_kept "$c ulimit -f" $c "$out"
}
# EFBIG through a link to nothing: its target is made by a rename or not at all
# (it was opened in place and left truncated).
fm_efbig() {
  local c=$1 out=$FM/dangling-$1
  [ $c = explain ] && return # its output is the shell's
  rm -rf "$out" "$FM/made-$c"; ln -s "made-$c" "$out"
  PRE=(bash -c 'ulimit -f 0; exec "$@"' _)
  fm_run $c "$(fm_in $c)" "$out"
  PRE=()
  if [ $c = fuzz ]; then fm_check "$c EFBIG" 2 "" "$FM"
  else fm_check "$c EFBIG through a dangling link" 2 "File too large" "$FM"; fi
  [ ! -e "$FM/made-$c" ] || ko "$c EFBIG: the link's target was made: $(head -c 60 "$FM/made-$c")"
}
# ENOSPC on a full tmpfs (the loop fills it after writing an old output there),
# or a full device when no tmpfs can be mounted.
fm_enospc() {
  local c=$1 out=/dev/full
  if [ -n "$FM_TMPFS" ]; then out=$FM_TMPFS/$c/out; [ $c = fuzz ] && out=$FM_TMPFS/$c/fz; fi
  fm_run $c "$(fm_in $c)" "$out"
  fm_check "$c ENOSPC" 2 "No space left on device" "$FM" ${FM_TMPFS:+"$FM_TMPFS"}
  if [ -n "$FM_TMPFS" ] && [ $c != fuzz ] && [ $c != explain ]; then
    [ "$(cat "$out")" = old ] || ko "$c ENOSPC: the old file is gone: $(head -c 60 "$out")"
  fi
}
# EACCES: an output in a folder the command may not write (as nobody when root).
fm_eacces() {
  local c=$1
  [ -n "$FM_USER" ] || return
  [ $c = explain ] && return # its output is the shell's
  PRE=("${FM_USER[@]}")
  fm_run $c "$(fm_in $c)" "$FM/ro/out-$c"
  PRE=()
  fm_check "$c EACCES" 2 "Permission denied" "$FM"
  [ ! -e "$FM/ro/out-$c" ] || ko "$c EACCES: something was made"
}
# A FIFO as the input (as the output folder for fuzz): refused at once, never waited on.
fm_fifo() {
  local c=$1 f=$FM/fifo-$1
  rm -f "$f"; mkfifo "$f"
  if [ $c = fuzz ]; then fm_run $c "" "$f"; fm_check "fuzz --out FIFO" 2 "" "$FM"
  elif [ $c = check ]; then fm_run $c "$f" "$FM/j-$c"; fm_check "check FIFO" 2 "" "$FM"
    grep -q 'a FIFO, not a regular file' "$FM/j-$c" || ko "check FIFO: the report does not say why"
  else fm_run $c "$f" "$FM/o-$c"; fm_check "$c FIFO" 2 "$f: a FIFO, not a regular file" "$FM"; fi
}
# A device as the input (a link to /dev/zero, read until memory ran out).
fm_device() {
  local c=$1 z=$FM/zero-$1
  [ $c = fuzz ] && { fm_run $c "" /dev/null; fm_check "fuzz --out /dev/null" 2 "" "$FM"
                     [ -c /dev/null ] || ko "/dev/null is no longer a device"; return; }
  rm -f "$z"; ln -s /dev/zero "$z"
  if [ $c = check ]; then fm_run $c "$z" "$FM/j-$c"; fm_check "check /dev/zero" 2 "" "$FM"
    grep -q 'a character device, not a regular file' "$FM/j-$c" || ko "check /dev/zero: the report does not say why"
  else fm_run $c "$z" "$FM/o-$c"; fm_check "$c /dev/zero" 2 "$z: a character device, not a regular file" "$FM"; fi
}
# A link to nothing as the output: its target made whole, the link kept.
fm_dangling() {
  local c=$1 out=$FM/link-$1
  [ $c = explain ] || [ $c = fuzz ] && return
  rm -rf "$out" "$FM/target-$c"; ln -s "target-$c" "$out"
  fm_run $c "$(fm_in $c)" "$out"
  fm_check "$c dangling link" 0 "" "$FM"
  [ -L "$out" ] || ko "$c dangling link: the link was replaced"
  [ $c = html ] || [ $c = check ] || cmp -s "$FM/target-$c" "$FM/ref-$c" || ko "$c dangling link: the target differs"
}
# Standard streams as files: standard output appends to a log; OUT is /dev/stdout
# (explain and fuzz: standard output itself): the log keeps what it held, the
# output follows it, and nothing else (the summary goes to stderr).
fm_streams() {
  local c=$1 log=$FM/log-$c
  echo pre >"$log"
  case $c in
    explain) fm_run $c "$(fm_in $c)" "$log" ;;
    fuzz) FM_STDOUT=$log fm_run $c "" "$FM/fz-streams" ;;
    *) FM_STDOUT=$log fm_run $c "$(fm_in $c)" /dev/stdout ;;
  esac
  fm_check "$c standard output as a file" 0 "" "$FM"
  [ "$(head -n 1 "$log")" = pre ] || ko "$c: the log standard output appends to was replaced"
  case $c in lower|matrix) cmp -s <(tail -n +2 "$log") "$FM/ref-$c" || ko "$c: the log does not hold pre then the output" ;; esac
}
if "$CC" -shared -fPIC -o "$FM/stop.so" "$SRC/tests/stop_before_rename.c" -ldl 2>/dev/null; then
  FM_TMPFS=
  if [ "$(id -u)" -eq 0 ] && mkdir -p "$FM/tmpfs" && mount -t tmpfs -o size=256k,nr_inodes=64 tmpfs "$FM/tmpfs" 2>/dev/null; then
    FM_TMPFS=$FM/tmpfs; trap 'umount "$FM/tmpfs" 2>/dev/null; chmod -R u+rwx "$tmp" 2>/dev/null; rm -rf "$tmp"' EXIT
  else echo "note: no tmpfs can be mounted: ENOSPC is /dev/full's"; fi
  FM_USER=
  if [ "$(id -u)" -ne 0 ]; then chmod 555 "$FM/ro"; FM_USER=(env)
  elif command -v setpriv >/dev/null; then chmod 711 "$tmp"; chmod 755 "$FM" "$FM/ro"; chmod 777 "$FM/scratch"
    chmod 644 "$FM"/*.xml "$FM"/*.csv; FM_USER=(setpriv --reuid=65534 --regid=65534 --clear-groups)
  else echo "note: root without setpriv: EACCES is not tried"; fi
  for c in $FM_COMMANDS; do
    [ $c = fuzz ] || [ -s "$FM/ref-$c" ] || ko "$c wrote nothing without a fault"
    fm_signal $c $([ $c = explain ] && echo write)
    fm_sigxfsz $c; fm_efbig $c
    if [ -n "$FM_TMPFS" ]; then
      mkdir -p "$FM_TMPFS/$c"; echo old >"$FM_TMPFS/$c/out"
      dd if=/dev/zero of="$FM_TMPFS/fill" bs=4k 2>/dev/null; dd if=/dev/zero of="$FM_TMPFS/fill2" bs=1 2>/dev/null
    fi
    fm_enospc $c
    [ -n "$FM_TMPFS" ] && rm -rf "$FM_TMPFS"/*
    fm_eacces $c; fm_fifo $c; fm_device $c; fm_dangling $c; fm_streams $c
  done
  [ -n "$FM_TMPFS" ] && umount "$FM_TMPFS"
else
  echo "note: no C compiler for the signal shim; the fault matrix is skipped"
fi

finish
