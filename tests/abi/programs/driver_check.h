// check(): the nvcc-built Driver API programs' way of counting failed calls (driver_host.cpp,
// driver_ptx.cpp). A call that fails prints "error WHAT CODE NAME" and adds to `failures`.
#pragma once

#include <cstdio>

#include <cuda.h>

static int failures = 0;
static void check(const char* what, CUresult r) {
  if (r != CUDA_SUCCESS) {
    const char* name = nullptr;
    cuGetErrorName(r, &name);
    std::printf("error %s %d %s\n", what, static_cast<int>(r), name != nullptr ? name : "?");
    ++failures;
  }
}
