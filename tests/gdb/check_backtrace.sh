#!/usr/bin/env bash
# Runs gdb in batch mode on gdb_target, stops where the simulated GPU's MMU maps the first
# cudaMalloc's memory (minicuda::gpu::Mmu::map_vidmem), and checks that the backtrace holds, from
# the innermost frame out: the device allocation, the nvidia-uvm.ko handler, the ioctl syscall
# entry, cuMemAlloc_v2 and cudaMalloc - the real call chain, frame by frame.
# Exit 77 (skipped) when gdb is not installed.
set -euo pipefail
target="$1"
command -v gdb >/dev/null 2>&1 || { echo "gdb not installed: skipping"; exit 77; }
out=$(mktemp)
trap 'rm -f "$out"' EXIT
gdb -batch -nx \
  -ex 'set breakpoint pending on' \
  -ex 'set pagination off' \
  -ex 'break minicuda::gpu::Mmu::map_vidmem' \
  -ex 'run' \
  -ex 'bt' \
  -ex 'kill' \
  --args "$target" >"$out" 2>&1 || true
cat "$out"
# The frames that must appear, innermost first (gdb prints the innermost frame first).
expected=(
  'minicuda::gpu::Mmu::map_vidmem'
  'map_external_allocation'
  'uvm_ioctl'
  'minicuda::kernel::sys_ioctl'
  'cuMemAlloc_v2'
  'cudaMalloc'
)
line=0
for frame in "${expected[@]}"; do
  found=$(grep -n -E "^#[0-9]+ .*${frame}[ (]" "$out" | awk -F: -v after="$line" '$1 > after {print $1; exit}')
  if [[ -z "$found" ]]; then
    echo "FAIL: frame '${frame}' not found after line ${line} of the backtrace"
    exit 1
  fi
  line=$found
done
echo "PASS: cudaMalloc -> cuMemAlloc_v2 -> sys_ioctl -> uvm_ioctl -> map_external_allocation -> Mmu::map_vidmem"
