// Included by sample.cu as "sample_helpers.cuh": only found if the translated file is compiled
// with sample.cu's directory on its quoted-include path.
#pragma once

__device__ inline int twice(int x) { return 2 * x; }
