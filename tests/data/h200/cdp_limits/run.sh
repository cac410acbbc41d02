#!/bin/bash
# Builds probe_cdp_limits.cu (CDP2) and runs each experiment in its own process; output into $1.
set -u
out=$1
nvcc -arch=sm_90 -rdc=true -lcudadevrt -o probe probe_cdp_limits.cu > "$out/build.txt" 2>&1 || exit 1
for x in depth23 depth24 depth25 depth pending pending_ff pending100 order bad fault; do
  echo "== $x" >> "$out/probe.txt"
  timeout 8 ./probe $x >> "$out/probe.txt" 2>&1
  echo "rc=$?" >> "$out/probe.txt"
done
