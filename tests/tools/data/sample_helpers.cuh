// Included by sample.cu as "sample_helpers.cuh": device code in a header next to the .cu, so
// cu2cxx translates it into sample.cu's output in place of the #include.
#pragma once

__device__ inline int twice(int x) { return 2 * x; }
