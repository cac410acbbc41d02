#!/bin/bash
# Builds probe_vmm.cu and the argument-dumping ioctl sniffer, then records (into $1):
#   vmm_trace.txt   the normal VMM flow under the sniffer (step markers + ioctls)
#   vmm_errors.txt  CUresults of bad input, and one process per possibly-faulting access or
#                   call given a dead handle
set -u
out=${1:?usage: run.sh OUTDIR}
cd "$(dirname "$0")"
nvcc -arch=sm_90 -o /tmp/probe_vmm probe_vmm.cu -lcuda || exit 1
# The sniffer is ctxmem's (this recording was made before it learnt the GR_GET_INFO list).
gcc -shared -fPIC -O1 -o /tmp/ioctl_sniff_args.so ../ctxmem/ioctl_sniff_args.c -ldl || exit 1
LD_PRELOAD=/tmp/ioctl_sniff_args.so timeout 20 /tmp/probe_vmm trace > "$out/vmm_trace.txt" 2>&1
echo "exit=$?" >> "$out/vmm_trace.txt"
{
  timeout 15 /tmp/probe_vmm errors 2>&1; echo "errors exit=$?"
  for c in noaccess readonly_write readonly_read after_unmap after_release_mapped memcpy_noaccess; do
    echo "== fault $c"; timeout 5 /tmp/probe_vmm fault "$c" 2>&1; echo "exit=$?"
  done
  for c in map props release double_release map_released; do
    echo "== bogus $c"; timeout 5 /tmp/probe_vmm bogus "$c" 2>&1; echo "exit=$?"
  done
  echo "== fault noaccess under the sniffer (tail)"
  LD_PRELOAD=/tmp/ioctl_sniff_args.so timeout 5 /tmp/probe_vmm fault noaccess 2>&1 | tail -40
} > "$out/vmm_errors.txt"
