// drv_check.h: CHECK(call) for the Driver API samples - a failing cu* call prints its text and
// its error name, and main returns 1.
#pragma once

#include <cstdio>

#include <cuda.h>

#define CHECK(call)                                                                   \
  do {                                                                                \
    CUresult r_ = (call);                                                             \
    if (r_ != CUDA_SUCCESS) {                                                         \
      const char* name_ = nullptr;                                                    \
      cuGetErrorName(r_, &name_);                                                     \
      std::fprintf(stderr, "%s failed: %s (%d)\n", #call, name_ ? name_ : "?", r_);   \
      return 1;                                                                       \
    }                                                                                 \
  } while (0)
