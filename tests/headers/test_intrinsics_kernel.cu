// The intrinsics and math functions called from a kernel, as CUDA programs call them: the same
// headers serve host and device, so a kernel must see exactly the values the host tests pin
// (test_*_intrinsics.cpp), directed rounding included (the kernel runs on an SM worker thread,
// whose rounding mode is switched and restored like any other thread's).
#include <cuda_runtime.h>
#include <math_constants.h>

#include <vector>

#include "kernel_test.h"

using minicuda::kernels_test::DeviceArray;
using minicuda::kernels_test::FreshProcess;

__global__ void intrinsics_kernel(unsigned int* out) {
  const unsigned t = threadIdx.x;
  unsigned r = 0;
  switch (t) {
    case 0: r = __float_as_uint(__fdiv_rd(1.0f, 3.0f)); break;
    case 1: r = __float_as_uint(__fdiv_ru(1.0f, 3.0f)); break;
    case 2: r = __float_as_uint(__fadd_rd(1.0f, -1.0f)); break;
    case 3: r = static_cast<unsigned>(__clz(0)); break;
    case 4: r = static_cast<unsigned>(__ffs(0)); break;
    case 5: r = __byte_perm(0x33221100u, 0x77665544u, 0x5140u); break;
    case 6: r = __funnelshift_lc(0x89ABCDEFu, 0x01234567u, 40u); break;
    case 7: r = static_cast<unsigned>(__dp4a(static_cast<int>(0x800302FFu), static_cast<int>(0x017F80FFu), 0)); break;
    case 8: r = static_cast<unsigned>(__float2int_rn(NAN)); break;
    case 9: r = __float_as_uint(__saturatef(NAN)); break;
    case 10: r = __float_as_uint(sinpif(0.5f)); break;
    case 11: r = __float_as_uint(rsqrtf(4.0f)); break;
    case 12: r = __float_as_uint(__int2float_ru(16777217)); break;
    case 13: r = static_cast<unsigned>(min(-1, 1u)); break;
    case 14: r = __float_as_uint(CUDART_PI_F); break;
    case 15: r = static_cast<unsigned>(__double2hiint(__dsqrt_rd(2.0))); break;
  }
  out[t] = r;
}

TEST_F(FreshProcess, IntrinsicsInAKernelGiveTheHostsValues) {
  DeviceArray<unsigned int> out(16);
  intrinsics_kernel<<<1, 16>>>(out.get());
  ASSERT_EQ(cudaGetLastError(), cudaSuccess);
  const std::vector<unsigned int> got = out.read();
  const std::vector<unsigned int> want = {0x3EAAAAAAu, 0x3EAAAAABu, 0x80000000u, 32u,         0u,
                                          0x55114400u, 0x89ABCDEFu, static_cast<unsigned>(-2),  0u,
                                          0u,          0x3F800000u, 0x3F000000u, 0x4B800001u, 1u,
                                          0x40490FDBu, 0x3FF6A09Eu};
  EXPECT_EQ(got, want);
}
