#!/usr/bin/env bash
# Usage: check_step.sh TARGET START FUNCTION...
# Runs TARGET under gdb in batch mode, stops at the first call of START, then steps (gdb's
# `step`, nothing else) until it reaches the last FUNCTION, and checks that the functions it
# stepped through are exactly START, FUNCTION... in that order. The steps skip what a student
# would tell gdb to skip: the trace library, the C++ and fmt libraries, and the runtime's lazy
# initialisation check (`skip` commands; docs/debugging.md). This pins that a runtime entry point
# calls its driver function by name: `step` from cudaMemcpy lands in cuMemcpyHtoD_v2.
# Exit 77 (skipped) when gdb is not installed.
set -euo pipefail
target="$1"
start="$2"
shift 2
expected=$(printf '%s -> ' "$start" "$@" | sed 's/ -> $//')
last="${!#}"
command -v gdb >/dev/null 2>&1 || { echo "gdb not installed: skipping"; exit 77; }
out=$(mktemp)
script=$(mktemp)
trap 'rm -f "$out" "$script"' EXIT
cat >"$script" <<GDB
set breakpoint pending on
set pagination off
skip -rfu ^minicuda::trace::
skip -rfu ^std::
skip -rfu ^fmt::
skip -gfi /usr/include/*
skip -rfu ^minicuda::cudart::ensure_context
skip -rfu ^minicuda::cudart::memcpy_kind_name
skip -rfu ^minicuda::cudart::graph::
break ${start}
run
python
seen = []
for _ in range(60):
    name = gdb.selected_frame().name()
    if not seen or seen[-1] != name:
        seen.append(name)
    if name == "${last}":
        break
    gdb.execute("step", to_string=True)
print("STEPPED: " + " -> ".join(str(n) for n in seen))
end
bt
kill
GDB
gdb -batch -nx -x "$script" --args "$target" >"$out" 2>&1 || true
cat "$out"
stepped=$(grep -m1 '^STEPPED: ' "$out" | sed 's/^STEPPED: //' | sed 's/(anonymous namespace):://g')
if [[ "$stepped" != "$expected" ]]; then
  echo "FAIL: stepped through '${stepped}', expected '${expected}'"
  exit 1
fi
echo "PASS: ${expected}"
