#!/bin/bash
# Builds and runs probe_graph_memory.cu on the H200; its answers go to $1/probe_graph_memory.txt.
set -u
out=${1:-out}
mkdir -p "$out"
/usr/local/cuda/bin/nvcc -arch=sm_90 -o probe_graph_memory probe_graph_memory.cu > "$out/build.log" 2>&1 || exit 1
timeout 50 ./probe_graph_memory > "$out/probe_graph_memory.txt" 2>&1
echo "exit = $?" >> "$out/probe_graph_memory.txt"
