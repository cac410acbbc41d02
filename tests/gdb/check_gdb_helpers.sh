#!/usr/bin/env bash
# Usage: check_gdb_helpers.sh GDB_TARGET
# The gdb helpers (tools/gdb/minicuda_gdb.py), auto-loaded from the build tree: stops in the
# first cudaMalloc's page-table write and after it, runs mc-stack, mc-rm, mc-mem and the
# pretty-printers, and checks what each prints. Exit 77 (skipped) when gdb is not installed.
set -euo pipefail
target="$1"
command -v gdb >/dev/null 2>&1 || { echo "gdb not installed: skipping"; exit 77; }
out=$(mktemp)
trap 'rm -f "$out"' EXIT
run_gdb() {  # gdb commands as arguments; the helpers load through .debug_gdb_scripts
  local args=()
  for command in "$@"; do args+=(-ex "$command"); done
  MINICUDA_TRACE=1 MINICUDA_TRACE_FILE=/dev/null gdb -batch -nx -iex 'set auto-load safe-path /' \
    -ex 'set pagination off' "${args[@]}" -ex 'kill' --args "$target" >>"$out" 2>&1 || true
}
run_gdb 'break minicuda::gpu::Mmu::map_vidmem' 'run' 'mc-stack' 'mc-rm' 'print (CUresult)1' 'print (cudaError_t)700'
run_gdb 'break gdb_target.cpp:10' 'run' 'mc-mem' 'print d_a' 'print d_a + 4' 'print (dim3){1, 2, 3}' \
  'print (NvHandle)0x5c000002'
cat "$out"
expect() {  # an extended regex that a line of the output must match
  grep -q -E -- "$1" "$out" || { echo "FAIL: no line matches: $1"; exit 1; }
}
# mc-stack: the chain by layer, outermost first, down to nvidia-uvm.ko's handler
expect '^#1 +cudart +cudaMalloc\(devPtr=0x[0-9a-f]+, size=1024\)$'
expect '^#1 +libcuda +  cuMemAlloc_v2\(dptr=0x[0-9a-f]+, bytesize=1024\)$'
expect '^#1 +kernel +    ioctl\(5</dev/nvidia-uvm>, UVM_MAP_EXTERNAL_ALLOCATION, 0x[0-9a-f]+\)$'
expect '^#1 +uvm +      UVM_MAP_EXTERNAL_ALLOCATION\(base=0x580000000000, length=0x200000,'
# mc-rm: the client's tree, with classes, sizes and the channel
expect '^client 0xc1d00001 \(NV01_ROOT_CLIENT\)$'
expect '^└─ 0x5c000001 NV01_DEVICE_0$'
expect '^   │  └─ 0x5c000009 HOPPER_CHANNEL_GPFIFO_A, channel 1$'
expect '^   └─ 0x5c00000d NV01_MEMORY_LOCAL_USER, 2097152 B$'
# printers
expect '^\$[0-9]+ = CUDA_ERROR_INVALID_VALUE \(1\)$'
expect '^\$[0-9]+ = cudaErrorIllegalAddress \(700\)$'
expect '^  0x580000000000  1024 B  chunk 0x580000000000 \(2097152 B\)$'
expect '^\$[0-9]+ = \(int \*\) 0x580000000000 <device: \+0x0 in the 1024 B allocation at 0x580000000000>$'
expect '^\$[0-9]+ = \(int \*\) 0x580000000010 <device: \+0x10 in the 1024 B allocation at 0x580000000000>$'
expect '^\$[0-9]+ = \(1, 2, 3\)$'
expect '^\$[0-9]+ = 0x5c000002 NV20_SUBDEVICE_0, parent 0x5c000001, client 0xc1d00001$'
echo "PASS: mc-stack, mc-rm, mc-mem and the printers"
