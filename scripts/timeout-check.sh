#!/usr/bin/env bash
# Issue 15 done-when: `--timeout 1` on every file of ../shared/repro/ and on
# the families readers-22, cas-lock-6 and ticket-lock-7, in `run` and
# `explain`, with -j 1 and -j 2, must stop within 1.15 s. Prints one line per
# case (wall seconds, exit code; explain's threads set by RAYON_NUM_THREADS) and the maximum; exits 1 when a case is over.
# Usage: scripts/timeout-check.sh [PTXMC_BINARY] [BAR_SECONDS]
set -u
bin=${1:-target/release/ptxmc}
bar=${2:-1.15}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
"$bin" family readers 22 > "$dir/readers-22.litmus"
"$bin" family cas-lock 6 > "$dir/cas-lock-6.litmus"
"$bin" family ticket-lock 7 > "$dir/ticket-lock-7.litmus"
here=$(cd "$(dirname "$0")/.." && pwd)
files=("$here"/../shared/repro/*.litmus "$dir"/*.litmus)
max=0; over=0
for f in "${files[@]}"; do
  for cmd in run explain; do
    for j in 1 2; do
      s=$(date +%s.%N)
      if [ "$cmd" = run ]; then
        "$bin" run "$f" --timeout 1 -j "$j" -q --no-progress >/dev/null 2>&1; rc=$?
      else
        # explain has no -j: its verdict check runs on rayon's pool.
        RAYON_NUM_THREADS=$j "$bin" explain "$f" --timeout 1 >/dev/null 2>&1; rc=$?
      fi
      e=$(date +%s.%N)
      t=$(echo "$e - $s" | bc)
      printf '%6.3f s  rc %-3s %s %s -j %s\n' "$t" "$rc" "$cmd" "$(basename "$f")" "$j"
      if (( $(echo "$t > $max" | bc) )); then max=$t; fi
      if (( $(echo "$t > $bar" | bc) )); then over=$((over+1)); fi
    done
  done
done
printf 'max %.3f s over %d cases; %d over the %s s bar\n' "$max" $(( ${#files[@]} * 4 )) "$over" "$bar"
[ "$over" -eq 0 ]
