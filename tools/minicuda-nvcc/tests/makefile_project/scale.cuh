// scale.cuh: the interface of scale.cu (the Makefile project of check_nvcc.sh).
#pragma once

// Multiplies n floats in host memory by `factor` on the GPU; returns a cudaError_t as an int.
int scale_on_gpu(float* values, int n, float factor);
