#!/usr/bin/env bash
# Issue 15 done-when: `ptxmc explain` on every corpus/idioms test finishes
# within 10 s and prints at most 60 lines by default. Prints one line per
# test (seconds, lines, exit code) and the maxima; exits 1 when one is over.
# Usage: scripts/explain-idioms.sh [PTXMC_BINARY]
set -u
bin=${1:-target/release/ptxmc}
here=$(cd "$(dirname "$0")/.." && pwd)
maxt=0; maxl=0; over=0
for f in "$here"/corpus/idioms/*.litmus; do
  s=$(date +%s.%N)
  lines=$("$bin" explain "$f" 2>&1 | wc -l); rc=${PIPESTATUS[0]}
  e=$(date +%s.%N)
  t=$(echo "$e - $s" | bc)
  printf '%6.3f s %4d lines rc %s %s\n' "$t" "$lines" "$rc" "$(basename "$f")"
  if (( $(echo "$t > $maxt" | bc) )); then maxt=$t; fi
  if [ "$lines" -gt "$maxl" ]; then maxl=$lines; fi
  if (( $(echo "$t > 10" | bc) )) || [ "$lines" -gt 60 ]; then over=$((over+1)); fi
done
printf 'max %.3f s, max %d lines; %d over (10 s, 60 lines)\n' "$maxt" "$maxl" "$over"
[ "$over" -eq 0 ]
