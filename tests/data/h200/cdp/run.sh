#!/bin/bash
# Builds and runs probe_cdp.cu (CDP2) on the H200; output into $1.
set -u
out=$1
nvcc -arch=sm_90 -rdc=true -lcudadevrt -o probe_cdp probe_cdp.cu > "$out/build.txt" 2>&1 || { cat "$out/build.txt"; exit 1; }
timeout 50 ./probe_cdp > "$out/probe_cdp.txt" 2>&1
echo "rc=$?" >> "$out/probe_cdp.txt"
