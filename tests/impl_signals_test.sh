#!/usr/bin/env bash
# tests/impl_signals_test.sh: `check --impl`'s ports end with the command.
# For SIGINT, SIGTERM and SIGHUP, in both ways of running ports (one process
# per scenario, and --batch), with two jobs: the ports (a shell that starts a
# grandchild and waits) write their PIDs, `check --impl` is signalled once
# they all have, and then it has ended with status 128 + the signal, every
# port and grandchild is gone, and no report or temporary file is left.
# Then a stubborn port (it traps SIGTERM, and its child ignores it) on a
# time-out, on -x and on the command's SIGTERM and SIGINT: SIGTERM comes
# first (the port's trap runs), SIGKILL after the grace (the child is gone).
set -u
set -m # background jobs keep SIGINT (a non-interactive shell ignores it in them)
L=${LOWERSIM:?}
SRC=${SOURCE_DIR:?}
fail=0 pass=0
check() { # check NAME STATUS DETAIL
  if [ "$2" -ne 0 ]; then echo "FAIL $1: $3"; fail=$((fail+1)); else pass=$((pass+1)); fi
}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/cases"
for i in 1 2 3 4; do cp "$SRC/testdata/scenarios/single-platform.xml" "$tmp/cases/s$i.xml"; done
# The port: its own PID, then a grandchild's, then it waits (never answers).
cat >"$tmp/port.sh" <<'EOF'
sleep 300 &
echo "$$ $!" >>"$PIDS"
wait
EOF

# alive PID: the process exists and is not a zombie waiting for its parent.
alive() {
  kill -0 "$1" 2>/dev/null || return 1
  [ "$(awk '/^State:/ {print $2}' "/proc/$1/status" 2>/dev/null)" != Z ]
}

for mode in each batch; do
  for sig in INT TERM HUP; do
    name=$mode-$sig
    export PIDS=$tmp/$name.pids
    : >"$PIDS"
    if [ $mode = batch ]; then impl=(--impl "sh $tmp/port.sh" --batch)
    else impl=(--impl "sh $tmp/port.sh {scenario}"); fi
    (cd "$tmp" && exec "$L" check "$tmp/cases" "${impl[@]}" --jobs 2 --junit "$tmp/$name.xml" \
       >"$tmp/$name.out" 2>"$tmp/$name.err") &
    pid=$!
    for _ in $(seq 100); do [ "$(wc -l <"$PIDS")" -ge 2 ] && break; sleep 0.1; done
    [ "$(wc -l <"$PIDS")" -ge 2 ]; check "$name-ports-started" $? "$(cat "$PIDS")"
    kill -s "$sig" "$pid"
    # At most 10 s to end (a port left running would keep it waiting forever).
    for _ in $(seq 100); do alive "$pid" || break; sleep 0.1; done
    alive "$pid" && kill -9 "$pid"
    wait "$pid" 2>/dev/null; code=$?
    want=$((128 + $(kill -l "$sig")))
    [ "$code" -eq "$want" ]; check "$name-exit" $? "exit $code, want $want: $(cat "$tmp/$name.err")"
    sleep 0.2 # init reaps the grandchildren it inherited
    left=
    for p in $(cat "$PIDS"); do alive "$p" && left="$left $p"; done
    [ -z "$left" ]; check "$name-nothing-survives" $? "still running:$left ($(ps -o pid,ppid,pgid,stat,args -p "${left# }" 2>/dev/null | tail -n +2))"
    for p in $left; do kill -9 "$p" 2>/dev/null; done
    [ ! -e "$tmp/$name.xml" ] && [ -z "$(ls -A "$tmp" | grep '^\.lowersim-')" ]
    check "$name-no-output" $? "$(ls -A "$tmp")"
  done
done

# The stubborn port: its trap records SIGTERM; its child ignores SIGTERM and
# is found by its marker (`sleep 86399.MARK`).
cat >"$tmp/stubborn.sh" <<'EOF'
trap 'echo term >>"$TERMS"; exit 143' TERM
(trap '' TERM; exec sleep "86399.$MARK") &
echo started >>"$TERMS"
sleep 300 &
wait
EOF
cat >"$tmp/first-fails.sh" <<'EOF'
case $1 in *s1.xml) sleep 0.5; echo 'ValueError: no' >&2; exit 1 ;; esac
exec sh "$STUBBORN"
EOF
export STUBBORN=$tmp/stubborn.sh
stubborn() { # stubborn NAME MARK WANT-EXIT SIGNAL -- CHECK-ARGS...: one run, then its checks
  local name=$1 mark=$2 want=$3 sig=$4; shift 5
  export TERMS=$tmp/$name.terms MARK=$mark
  : >"$TERMS"
  (cd "$tmp" && exec timeout -s KILL 30 "$L" check "$@" >"$tmp/$name.out" 2>&1) &
  local pid=$!
  if [ -n "$sig" ]; then
    for _ in $(seq 100); do grep -q started "$TERMS" && break; sleep 0.1; done
    kill -s "$sig" "$pid"
  fi
  wait "$pid"; local code=$?
  [ "$code" -eq "$want" ]; check "$name-exit" $? "exit $code, want $want: $(cat "$tmp/$name.out")"
  grep -q term "$TERMS"; check "$name-term-first" $? "no SIGTERM seen by the port: $(cat "$TERMS")"
  sleep 0.2
  local left; left=$(pgrep -f "sleep 86399.$mark")
  [ -z "$left" ]; check "$name-nothing-survives" $? "still running: $left"
  [ -n "$left" ] && kill -9 $left
}
stubborn timeout 7101 1 "" -- "$tmp/cases/s2.xml" --timeout 1 --impl "sh $tmp/stubborn.sh"
stubborn exitfirst 7102 1 "" -- "$tmp/cases/s1.xml" "$tmp/cases/s2.xml" -x -j 2 \
  --impl "sh $tmp/first-fails.sh {scenario}"
stubborn signal 7103 143 TERM -- "$tmp/cases/s2.xml" --batch --impl "sh $tmp/stubborn.sh"
stubborn signal-each 7104 130 INT -- "$tmp/cases/s2.xml" --impl "sh $tmp/stubborn.sh"

echo "impl_signals_test: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
