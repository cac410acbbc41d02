/*
 * cuda_graphs.h -- included by cuda.h after the kernel handles: the driver calls libcudart's CUDA
 * graphs use (docs/graphs.md). Declarations as CUDA 13.0's cuda.h spells them; comments minicuda's.
 */
#ifndef MINICUDA_CUDA_GRAPHS_H
#define MINICUDA_CUDA_GRAPHS_H

#ifdef __cplusplus
extern "C" {
#endif

/* Where argument paramIndex of a kernel sits in its parameter buffer and its size in bytes: what a
 * graph node needs to copy a launch's argument values. CUDA_ERROR_INVALID_VALUE for NULL outputs
 * or an index past the last parameter, CUDA_ERROR_INVALID_HANDLE for an unknown kernel. */
CUresult CUDAAPI cuKernelGetParamInfo(CUkernel kernel, size_t paramIndex, size_t* paramOffset, size_t* paramSize);
CUresult CUDAAPI cuFuncGetParamInfo(CUfunction func, size_t paramIndex, size_t* paramOffset, size_t* paramSize);

#ifdef __cplusplus
}
#endif

#endif /* MINICUDA_CUDA_GRAPHS_H */
