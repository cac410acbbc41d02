#!/bin/bash
# Records probe_clusters.cu on the H200. Usage: run.sh OUTDIR (builds in a temporary directory;
# writes build.txt and probe_clusters.txt).
set -u
out=$(realpath -m "${1:-out}")
mkdir -p "$out"
here=$PWD
tmp=$(mktemp -d)
cd "$tmp"
/usr/local/cuda/bin/nvcc -O2 -arch=sm_90 -o probe_clusters "$here/probe_clusters.cu" -lcuda > "$out/build.txt" 2>&1
timeout 50 ./probe_clusters > "$out/probe_clusters.txt" 2>&1
echo "rc=$?" >> "$out/probe_clusters.txt"
rm -rf "$tmp"
