#!/usr/bin/env bash
# bench/startup.sh [LOWERSIM] [RUNS]: what a one-op `lowersim lower` costs from
# the process's start to its exit (issue 15's goal: under 3 ms and 15 MiB):
# instructions (callgrind, where valgrind is installed: they repeat on a
# loaded machine), then the median CPU and wall milliseconds and the largest
# peak RSS of RUNS runs (default 20; wait4's accounting).  Whether the command
# loads libLLVM is printed first (LOWERSIM_STATIC_LLVM links LLVM's support
# libraries into the command).
set -euo pipefail
LOWERSIM=${1:-build-rel/lowersim}
RUNS=${2:-20}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat >"$tmp/one-op.xml" <<'XML'
<?xml version="1.0"?>
<scenario name="one-op">
  <lower function="f">
    <arg dtype="f32" shape="4"/>
    <op kind="sine" args="0"/>
  </lower>
</scenario>
XML
if ldd "$LOWERSIM" 2>/dev/null | grep -q libLLVM; then echo "libLLVM: shared"; else echo "libLLVM: linked in"; fi
if command -v valgrind >/dev/null; then
  valgrind --tool=callgrind --callgrind-out-file="$tmp/cg" "$LOWERSIM" lower "$tmp/one-op.xml" \
    >/dev/null 2>"$tmp/log"
  awk '/^summary:/ {printf "instructions: %d\n", $2}' "$tmp/cg"
fi
python3 - "$LOWERSIM" "$tmp/one-op.xml" "$RUNS" <<'PY'
import os, resource, statistics, subprocess, sys, time
cmd, runs = [sys.argv[1], 'lower', sys.argv[2]], int(sys.argv[3])
wall, cpu, peak = [], [], 0
for _ in range(runs):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    child = subprocess.Popen(cmd, stdout=subprocess.DEVNULL)
    _, status, use = os.wait4(child.pid, 0)
    child.returncode = os.waitstatus_to_exitcode(status)  # reaped here, not by Popen
    wall.append((time.perf_counter() - t) * 1e3)
    cpu.append((use.ru_utime + use.ru_stime) * 1e3)
    peak = max(peak, use.ru_maxrss)
print(f'median wall ms: {statistics.median(wall):.1f}  median cpu ms: {statistics.median(cpu):.1f}'
      f'  peak RSS MiB: {peak / 1024:.1f}  ({runs} runs)')
PY
