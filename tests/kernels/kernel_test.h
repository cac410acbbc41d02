// Shared by the .cu tests of the simulated SM: the fresh-process fixture and a small owner of a
// device array (cudaMalloc, filled or read back with cudaMemcpy).
#pragma once

#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "runtime_fixtures.h"

namespace minicuda::kernels_test {

// Each test runs in a fresh simulated process (runtime_fixtures.h): its own context, so function
// attributes, sticky errors and the printf FIFO start clean.
using minicuda::testing::FreshProcess;

template <class T>
class DeviceArray {
 public:
  explicit DeviceArray(size_t n, int fill_byte = 0) : n_(n) {
    EXPECT_EQ(cudaMalloc(&ptr_, bytes()), cudaSuccess);
    EXPECT_EQ(cudaMemset(ptr_, fill_byte, bytes()), cudaSuccess);
  }
  explicit DeviceArray(const std::vector<T>& host) : n_(host.size()) {
    EXPECT_EQ(cudaMalloc(&ptr_, bytes()), cudaSuccess);
    EXPECT_EQ(cudaMemcpy(ptr_, host.data(), bytes(), cudaMemcpyHostToDevice), cudaSuccess);
  }
  ~DeviceArray() { (void)cudaFree(ptr_); }
  DeviceArray(const DeviceArray&) = delete;
  DeviceArray& operator=(const DeviceArray&) = delete;

  T* get() const { return ptr_; }
  size_t size() const { return n_; }
  size_t bytes() const { return n_ * sizeof(T); }
  // Synchronises (cudaMemcpy waits for the kernels before it) and returns the contents.
  std::vector<T> read() const {
    std::vector<T> host(n_);
    EXPECT_EQ(cudaMemcpy(host.data(), ptr_, bytes(), cudaMemcpyDeviceToHost), cudaSuccess);
    return host;
  }

 private:
  T* ptr_ = nullptr;
  size_t n_ = 0;
};

// The bits of a float or double, for exact comparisons.
template <class F>
auto bits_of(F value) {
  if constexpr (sizeof(F) == 4) {
    uint32_t b;
    std::memcpy(&b, &value, 4);
    return b;
  } else {
    uint64_t b;
    std::memcpy(&b, &value, 8);
    return b;
  }
}

}  // namespace minicuda::kernels_test
