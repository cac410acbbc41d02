// saxpy: y = a * x + y on the GPU, the library this example project tests without a GPU.
#pragma once

#include <cuda_runtime.h>

// Host arrays in, host array out: allocates device memory, copies x and y over, runs the kernel,
// copies y back and frees everything, also on every error path. Returns the first error.
cudaError_t saxpy(int n, float a, const float* x, float* y);

// Device arrays: launches <<<ceil(n / threads_per_block), threads_per_block>>> and waits for it.
// Returns the launch's error, else the synchronisation's.
cudaError_t saxpy_on_device(int n, float a, const float* d_x, float* d_y, int threads_per_block);

// The same kernel without its bounds check (the bug this project's memcheck test finds): the
// last block's threads past n read and write beyond the arrays.
cudaError_t saxpy_on_device_unchecked(int n, float a, const float* d_x, float* d_y, int threads_per_block);
