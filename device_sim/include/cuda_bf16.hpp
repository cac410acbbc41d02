// cuda_bf16.hpp: the operations on __nv_bfloat16 and __nv_bfloat162 - __hadd ... __hfma2, the
// comparisons, the h-math functions, the operators and atomicAdd - as the toolkit's cuda_bf16.hpp
// defines them. cuda_bf16.h includes it after the types; the operations are shared with __half
// (minicuda/narrow_float_ops.h), as the toolkit overloads each name for both.
#ifndef __CUDA_BF16_HPP__
#define __CUDA_BF16_HPP__

#include "cuda_bf16.h"
#include "minicuda/narrow_float_ops.h"

#endif /* __CUDA_BF16_HPP__ */
