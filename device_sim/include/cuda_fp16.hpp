// cuda_fp16.hpp: the operations on __half and __half2 - __hadd ... __hfma2, the comparisons, the
// h-math functions, the operators and atomicAdd - as the toolkit's cuda_fp16.hpp defines them.
// cuda_fp16.h includes it after the types; the operations themselves are shared with
// __nv_bfloat16 (minicuda/narrow_float_ops.h), as the toolkit overloads each name for both.
#ifndef __CUDA_FP16_HPP__
#define __CUDA_FP16_HPP__

#include "cuda_fp16.h"
#include "minicuda/narrow_float_ops.h"

#endif /* __CUDA_FP16_HPP__ */
