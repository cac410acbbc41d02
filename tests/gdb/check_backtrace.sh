#!/usr/bin/env bash
# Usage: check_backtrace.sh TARGET BREAKPOINT FRAME...
# Runs TARGET under gdb in batch mode, stops at the first hit of BREAKPOINT (after skipping
# GDB_IGNORE_HITS hits, default 0), prints the
# backtrace of every thread, and checks that the FRAMEs appear in that order (gdb prints the
# innermost frame of each thread first, and the threads from the newest to the main one).
# This is how the tests pin the real call chains a student sees in the debugger
# (docs/debugging.md shows the sessions). Exit 77 (skipped) when gdb is not installed.
set -euo pipefail
target="$1"
breakpoint="$2"
shift 2
command -v gdb >/dev/null 2>&1 || { echo "gdb not installed: skipping"; exit 77; }
out=$(mktemp)
trap 'rm -f "$out"' EXIT
gdb -batch -nx \
  -ex 'set breakpoint pending on' \
  -ex 'set pagination off' \
  -ex "break ${breakpoint}" \
  -ex "ignore 1 ${GDB_IGNORE_HITS:-0}" \
  -ex 'run' \
  -ex 'thread apply all bt' \
  -ex 'kill' \
  --args "$target" >"$out" 2>&1 || true
cat "$out"
line=0
for frame in "$@"; do
  found=$(grep -n -E "^#[0-9]+ .*${frame}[ (]" "$out" | awk -F: -v after="$line" '$1 > after {print $1; exit}')
  if [[ -z "$found" ]]; then
    echo "FAIL: frame '${frame}' not found after line ${line} of the backtraces"
    exit 1
  fi
  line=$found
done
echo "PASS: $(printf '%s <- ' "$@" | sed 's/ <- $//')"
