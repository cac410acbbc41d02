// Shared by the VMM tests: a fresh simulated process with the primary context current, and the
// property structs the tests ask for.
#pragma once

#include <cuda.h>
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cstring>

#include "runtime_fixtures.h"

namespace minicuda::vmm_test {

inline constexpr size_t kTwoMiB = 2u << 20;

class Vmm : public minicuda::testing::FreshProcess {
 protected:
  void SetUp() override {
    FreshProcess::SetUp();
    ASSERT_EQ(cudaFree(nullptr), cudaSuccess);  // the runtime makes the primary context current
    ASSERT_EQ(cuCtxGetDevice(&dev_), CUDA_SUCCESS);
  }

 public:
  CUmemAllocationProp prop(CUmemAllocationHandleType types = CU_MEM_HANDLE_TYPE_NONE) const {
    CUmemAllocationProp p;
    std::memset(&p, 0, sizeof p);
    p.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    p.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    p.location.id = dev_;
    p.requestedHandleTypes = types;
    return p;
  }
  CUmemAccessDesc access(CUmemAccess_flags flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE) const {
    CUmemAccessDesc d;
    d.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    d.location.id = dev_;
    d.flags = flags;
    return d;
  }
  CUmemLocation here() const {
    CUmemLocation l;
    l.type = CU_MEM_LOCATION_TYPE_DEVICE;
    l.id = dev_;
    return l;
  }
  CUdevice dev_ = 0;
};

}  // namespace minicuda::vmm_test
