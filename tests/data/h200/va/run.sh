#!/bin/sh
# Builds probe_va_layout.cu and probes offsets around a 15 MiB first allocation (simpleAttributes'
# data buffer on an H200) and a 1 MiB one.
set -u
cd "$(dirname "$0")"
nvcc -arch=sm_90 -o /tmp/probe_va_layout probe_va_layout.cu -lcuda || exit 1
for size in 15 1; do
  for off in -67108864 -33554432 -16777216 -8388608 -4194304 -2097152 -1048576 -65536 -4 0 \
             $((size * 1048576)) $((size * 1048576 + 2097152)); do
    printf 'size=%sMiB off=%s ' "$size" "$off"; /tmp/probe_va_layout "$size" "$off"
  done
done
