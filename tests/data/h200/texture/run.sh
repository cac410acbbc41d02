#!/usr/bin/env bash
# Builds probe_texture.cu for sm_90 and records its output into $1 (texture.txt, surface_trap.txt).
set -u
out=${1:?output directory}
nvcc=/usr/local/cuda/bin/nvcc
tmp=$(mktemp -d)
$nvcc -arch=sm_90 -O2 -o "$tmp/probe_texture" probe_texture.cu 2> "$out/build.txt" || { cat "$out/build.txt"; exit 1; }
timeout 20 "$tmp/probe_texture" > "$out/texture.txt" 2>&1
{ timeout 10 "$tmp/probe_texture" trap; timeout 10 "$tmp/probe_texture" trapunaligned; } > "$out/surface_trap.txt" 2>&1
rm -f "$out/build.txt"
rm -rf "$tmp"
