#!/usr/bin/env bash
# Usage: check_gdb_helpers.sh GDB_TARGET REGIONS_TARGET
# The gdb helpers (tools/gdb/minicuda_gdb.py), auto-loaded from the build tree: stops in the
# first cudaMalloc's page-table write and after it, runs mc-stack, mc-rm, mc-mem and the
# pretty-printers, then stops inside a kernel running on fibers (REGIONS_TARGET's tree_sum with
# MINICUDA_FISSION=0, where the thread keeps the alignment check on) and runs mc-block and the
# pointer printer there; checks what each prints. Exit 77 (skipped) when gdb is not installed.
set -euo pipefail
target="$1"
regions_target="$2"
command -v gdb >/dev/null 2>&1 || { echo "gdb not installed: skipping"; exit 77; }
out=$(mktemp)
trap 'rm -f "$out"' EXIT
run_gdb() {  # a program, then gdb commands; the helpers load through .debug_gdb_scripts
  local program="$1" args=()
  shift
  for command in "$@"; do args+=(-ex "$command"); done
  MINICUDA_TRACE=1 MINICUDA_TRACE_FILE=/dev/null gdb -batch -nx -iex 'set auto-load safe-path /' \
    -ex 'set pagination off' "${args[@]}" -ex 'kill' --args "$program" >>"$out" 2>&1 || true
}
run_gdb "$target" 'break minicuda::gpu::Mmu::map_vidmem' 'ignore 1 1' 'run' 'mc-stack' 'mc-rm' 'print (CUresult)1' 'print (cudaError_t)700'
run_gdb "$target" 'break gdb_target.cpp:10' 'run' 'mc-mem' 'print d_a' 'print d_a + 4' 'print (dim3){1, 2, 3}' \
  'print (NvHandle)0x5c000002'
CUDA_LAUNCH_BLOCKING=1 MINICUDA_FISSION=0 run_gdb "$regions_target" 'break gdb_regions_target.cu:14 if threadIdx.x == 5' \
  'run' 'mc-block' 'print in + 2'
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
expect '^   ├─ 0x5c00000d NV01_MEMORY_LOCAL_USER, 434110464 B$'  # the context's own local memory
expect '^   └─ 0x5c00000e NV01_MEMORY_LOCAL_USER, 2097152 B$'
# printers
expect '^\$[0-9]+ = CUDA_ERROR_INVALID_VALUE \(1\)$'
expect '^\$[0-9]+ = cudaErrorIllegalAddress \(700\)$'
expect '^  0x580000000000  1024 B  chunk 0x580000000000 \(2097152 B\)$'
expect '^\$[0-9]+ = \(int \*\) 0x580000000000 <device: \+0x0 in the 1024 B allocation at 0x580000000000>$'
expect '^\$[0-9]+ = \(int \*\) 0x580000000010 <device: \+0x10 in the 1024 B allocation at 0x580000000000>$'
expect '^\$[0-9]+ = \(1, 2, 3\)$'
expect '^\$[0-9]+ = 0x5c000002 NV20_SUBDEVICE_0, parent 0x5c000001, client 0xc1d00001$'
# mc-block in a block on fibers, and the printers' calls there (the alignment check is set)
expect 'hit Breakpoint 1(\.[0-9]+)?, tree_sum \(in=\(const int \*\) 0x580000000000 <device: \+0x0 in the 4096 B allocation at 0x580000000000>'
expect '^kernel tree_sum block \(0,0,0\) of grid \(4,1,1\), 256 threads, on fibers$'
expect '^  threads \(0,0,0\) \.\. \(4,0,0\): at a barrier$'
expect '^  thread \(5,0,0\): runnable \(running\)$'
expect '^  threads \(6,0,0\) \.\. \(255,0,0\): runnable$'
expect '^\$[0-9]+ = \(const int \*\) 0x580000000008 <device: \+0x8 in the 4096 B allocation at 0x580000000000>$'
if grep -q 'SIGBUS' "$out"; then echo "FAIL: a call the debugger made took SIGBUS"; exit 1; fi
echo "PASS: mc-stack, mc-rm, mc-mem, mc-block and the printers"
