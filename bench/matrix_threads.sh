#!/usr/bin/env bash
# bench/matrix_threads.sh [LOWERSIM] [PAIRS] [MATRIX ARGS...]: how much faster
# `lowersim matrix` runs on two threads than on one (issue 15's goal: at
# least 1.8x).  Runs --jobs 1 and --jobs 2 one after the other PAIRS times
# (default 3) over the whole default matrix (or MATRIX ARGS, e.g. --limit
# 500000) and prints each pair's wall seconds and ratio, then the median
# ratio.  Wall time is what the goal is about, so run it on an otherwise idle
# machine; the pairs alternate so that a load which comes and goes touches
# both sides.
set -euo pipefail
LOWERSIM=${1:-build/lowersim}
PAIRS=${2:-3}
shift $(( $# > 2 ? 2 : $# ))
ratios=()
for ((p = 1; p <= PAIRS; p++)); do
  line=()
  for jobs in 1 2; do
    start=$(date +%s.%N)
    "$LOWERSIM" matrix --jobs "$jobs" "$@" >/dev/null
    line+=("$(awk -v a="$(date +%s.%N)" -v b="$start" 'BEGIN {print a - b}')")
  done
  ratio=$(awk -v a="${line[0]}" -v b="${line[1]}" 'BEGIN {print a / b}')
  ratios+=("$ratio")
  printf 'pair %d: 1 thread %.1f s, 2 threads %.1f s, ratio %.2f\n' "$p" "${line[0]}" "${line[1]}" "$ratio"
done
printf 'median ratio: %.2f\n' "$(printf '%s\n' "${ratios[@]}" | sort -g | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}')"
