#!/usr/bin/env bash
# bench/instructions.sh [LOWERSIM] [N]: instructions per module of each side
# of `lowersim bench`, counted by callgrind (for machines whose kernel has no
# hardware counter, where the bench prints '-').  Each side of each workload
# runs twice, N and 2N modules (`lowersim bench --modules`), and the figure is
# the difference over N: start-up cancels out.  N defaults to 200.
set -euo pipefail
LOWERSIM=${1:-build-rel/lowersim}
N=${2:-200}
command -v valgrind >/dev/null || { echo "bench/instructions.sh: needs valgrind" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
ir() { # ir WORKLOAD SIDE COUNT: the process's total Ir
  valgrind --tool=callgrind --callgrind-out-file="$tmp/cg" "$LOWERSIM" bench --workload "$1" \
    --side "$2" --modules "$3" >/dev/null 2>"$tmp/log"
  awk '/^summary:/ {print $2}' "$tmp/cg"
}
printf '%-20s %14s %14s %8s\n' workload "lowersim Ir" "floor Ir" "floor/lowersim"
for w in buffer_callback platform_dependent pallas_call; do
  o1=$(ir "$w" lowersim "$N"); o2=$(ir "$w" lowersim $((2 * N)))
  f1=$(ir "$w" floor "$N"); f2=$(ir "$w" floor $((2 * N)))
  awk -v w="$w" -v o1="$o1" -v o2="$o2" -v f1="$f1" -v f2="$f2" -v n="$N" 'BEGIN {
    o = (o2 - o1) / n; f = (f2 - f1) / n
    printf "%-20s %14.0f %14.0f %8.3f\n", w, o, f, f / o }'
done
