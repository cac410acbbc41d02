#!/bin/bash
# Builds probe_ctxmem.cu and records (into $1):
#   ctxmem.txt        the limits, a fresh context's free memory, and the free-memory change of
#                     each limit value (one process per value)
#   ctxmem_ranges.txt under the argument-dumping sniffer: the step markers, the vidmem objects
#                     (RM_ALLOC class 0x40) and the UVM external ranges mapped, for `base`,
#                     `stack 2048`, `printf 16777216` and `heap 67108864`, and the GR_GET_INFO
#                     list libcuda reads (THREAD_STACK_SCALING_FACTOR, LITTER_*)
set -u
out=${1:?usage: run.sh OUTDIR}
cd "$(dirname "$0")"
nvcc -arch=sm_90 -o /tmp/probe_ctxmem probe_ctxmem.cu -lcuda || exit 1
gcc -shared -fPIC -O1 -o /tmp/ioctl_sniff_args.so ioctl_sniff_args.c -ldl || exit 1
{
  timeout 10 /tmp/probe_ctxmem base 2>/dev/null; echo "base.exit = $?"
  for s in 16 1024 1040 1472 2048 4096; do
    timeout 8 /tmp/probe_ctxmem stack $s 2>/dev/null; echo "stack.exit = $?"
  done
  for f in 1048576 16777216; do timeout 8 /tmp/probe_ctxmem printf $f 2>/dev/null; echo "printf.exit = $?"; done
  for h in 1048576 67108864; do timeout 8 /tmp/probe_ctxmem heap $h 2>/dev/null; echo "heap.exit = $?"; done
  for n in 32768; do timeout 8 /tmp/probe_ctxmem pending $n 2>/dev/null; echo "pending.exit = $?"; done
} > "$out/ctxmem.txt" 2>&1
{
  for m in "base" "stack 2048" "printf 16777216" "heap 67108864"; do
    echo "######## mode: $m"
    LD_PRELOAD=/tmp/ioctl_sniff_args.so timeout 10 /tmp/probe_ctxmem $m 2>&1 >/dev/null |
      grep -E '==== step|nr 0x49 |nr 0x21 |nr 0x2b .* 00000040 |nr 0x2b .* 0000003e |nr 0x22 |nr 0x29 |grinfo'
    echo "exit = ${PIPESTATUS[0]}"
  done
} > "$out/ctxmem_ranges.txt" 2>&1
