#!/usr/bin/env bash
# tests/impl_signals_test.sh: `check --impl`'s ports end with the command.
# For SIGINT, SIGTERM and SIGHUP, in both ways of running ports (one process
# per scenario, and --batch), with two jobs: the ports (a shell that starts a
# grandchild and waits) write their PIDs, `check --impl` is signalled once
# they all have, and then it has ended with status 128 + the signal, every
# port and grandchild is gone, and no report or temporary file is left.
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

echo "impl_signals_test: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
