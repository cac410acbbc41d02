// The texture gate's shared pieces: device buffers, byte-for-byte comparison, the fixture that
// loads textures.ptx into a fresh simulated process, and the C++ launchers of textures.cu.
#pragma once

#include <cuda.h>
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <memory>
#include <sstream>
#include <vector>

#include "minicuda/kernel.h"

void xc_tex_cxx(cudaTextureObject_t t, int shape, const float* x, const float* y, const float* z, const int* layer,
                float4* out, int n);
void xc_tex_int_cxx(cudaTextureObject_t t, int shape, const float* x, const float* y, const int* index, uint4* out,
                    int n);
void xc_surf2d_cxx(cudaSurfaceObject_t src, cudaSurfaceObject_t dst, const int* x, const int* y, int mode, float* seen,
                   int n);
void xc_surf_shapes_cxx(cudaSurfaceObject_t a, cudaSurfaceObject_t b, cudaSurfaceObject_t c, cudaSurfaceObject_t d,
                        cudaSurfaceObject_t e, cudaSurfaceObject_t f, int n);
void xc_surf_trap_cxx(cudaSurfaceObject_t s, int x, int y, int write, float* out);

namespace texture_gate {

template <class T>
struct Buffer {
  T* ptr = nullptr;
  size_t count;
  explicit Buffer(const std::vector<T>& host) : count(host.size()) {
    EXPECT_EQ(cudaMalloc(&ptr, count * sizeof(T) + 1), cudaSuccess);
    EXPECT_EQ(cudaMemcpy(ptr, host.data(), count * sizeof(T), cudaMemcpyHostToDevice), cudaSuccess);
  }
  explicit Buffer(size_t n) : Buffer(std::vector<T>(n)) {}
  ~Buffer() { cudaFree(ptr); }
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
  void zero() { EXPECT_EQ(cudaMemset(ptr, 0, count * sizeof(T)), cudaSuccess); }
  std::vector<T> get() const {
    std::vector<T> host(count);
    EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    EXPECT_EQ(cudaMemcpy(host.data(), ptr, count * sizeof(T), cudaMemcpyDeviceToHost), cudaSuccess);
    return host;
  }
};

template <class T>
inline ::testing::AssertionResult same_bytes(const std::vector<T>& cxx, const std::vector<T>& ptx) {
  if (cxx.size() != ptx.size()) return ::testing::AssertionFailure() << "sizes differ";
  for (size_t i = 0; i < cxx.size(); ++i)
    if (std::memcmp(&cxx[i], &ptx[i], sizeof(T)) != 0) {
      uint32_t a[sizeof(T) / 4 + 1] = {}, b[sizeof(T) / 4 + 1] = {};
      std::memcpy(a, &cxx[i], sizeof(T));
      std::memcpy(b, &ptx[i], sizeof(T));
      return ::testing::AssertionFailure() << "element " << i << ": C++ word0 " << std::hex << a[0] << ", PTX word0 "
                                           << b[0];
    }
  return ::testing::AssertionSuccess();
}

// Each test in a fresh simulated process: the trap tests poison their context.
class TexturesPtxVsCxx : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(cudaFree(nullptr), cudaSuccess);
    std::ifstream f(MINICUDA_XCHECK_TEXTURE_PTX);
    std::stringstream ss;
    ss << f.rdbuf();
    ASSERT_FALSE(ss.str().empty());
    ASSERT_EQ(cuModuleLoadData(&module_, ss.str().c_str()), CUDA_SUCCESS);
  }
  void TearDown() override { (void)cudaGetLastError(); }
  CUfunction function(const char* name) {
    CUfunction fn = nullptr;
    EXPECT_EQ(cuModuleGetFunction(&fn, module_, name), CUDA_SUCCESS) << name;
    return fn;
  }
  CUresult launch(const char* name, unsigned blocks, unsigned threads, void** args) {
    CUresult r = cuLaunchKernel(function(name), blocks, 1, 1, threads, 1, 1, 0, nullptr, args, nullptr);
    return r != CUDA_SUCCESS ? r : cuCtxSynchronize();
  }

  std::unique_ptr<minicuda::kernel::Process> process_ = minicuda::kernel::spawn_process();
  minicuda::kernel::ProcessScope scope_{*process_};
  CUmodule module_ = nullptr;
};

}  // namespace texture_gate
