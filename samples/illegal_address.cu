// illegal_address: what happens, step by step, when a kernel writes where no memory is.
//
// Teaches when and where a GPU fault is reported, and why it is called "sticky":
//   1. the launch itself succeeds - cudaGetLastError right after it returns cudaSuccess, because
//      the launch only queued the work;
//   2. the fault comes back at the next synchronization: cudaDeviceSynchronize returns
//      cudaErrorIllegalAddress (700);
//   3. cudaGetLastError returns 700 once and then cudaSuccess - but that does not heal anything:
//   4. the context is poisoned, so every later call that needs it fails with 700, even an
//      unrelated cudaMalloc (and cudaMemcpy), and each failure lands in the last-error slot
//      again (so it is read out before the next launch is checked);
//   5. cudaDeviceReset destroys the primary context (all its allocations go with it);
//   6. the next call makes a fresh context, so cudaMalloc and a correct kernel work again.
// On real GPUs NVIDIA's advice is stronger: after a sticky error, end the process (an H200 probe
// answered the cudaMalloc after the reset with cudaErrorDevicesUnavailable, 46). minicuda
// models the reset as a fresh start, so the sample can show the recovery.
//
// The bad pointer is NULL by default; `illegal_address far` writes 1 GiB past a 4 KiB
// allocation instead (inside the device address window, but mapped to nothing).
// minicuda prints one report of the fault on stderr ("minicuda: CUDA_ERROR_ILLEGAL_ADDRESS: ..."),
// which is expected. The program exits 0 when every step returned what is described above.
//
// Run it:  build/bin/illegal_address [null|far]
// Traced:  MINICUDA_TRACE=1 build/bin/illegal_address
//   look for the fault on the GPU thread ("pbdma: ch 1 stopped: MMU fault ..."), nvidia.ko's
//   "NVRM: Xid 31", cuCtxSynchronize_v2 finding the channel's error notifier and returning
//   CUDA_ERROR_ILLEGAL_ADDRESS, then cuDevicePrimaryCtxReset_v2 tearing the context down and the
//   next cudaMalloc building a new one (its launches go to a new channel, "ch 2").
#include <cuda_runtime.h>

#include <cstdio>
#include <cstring>

// Every thread writes its index through `out`; with a bad `out` the first store faults.
__global__ void write_through(int* out) {
  out[threadIdx.x] = static_cast<int>(threadIdx.x);
}

// A correct kernel, to show the device works again after the reset.
__global__ void fill(int* out, int value, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = value;
}

namespace {
int failures = 0;

// Prints one step and whether it returned what a student should expect.
void step(int number, const char* call, cudaError_t got, cudaError_t expected) {
  std::printf("[step %d] %-42s = %s (%d)%s\n", number, call, cudaGetErrorName(got), static_cast<int>(got),
              got == expected ? "" : "  <-- UNEXPECTED");
  if (got != expected) {
    std::printf("         expected %s (%d)\n", cudaGetErrorName(expected), static_cast<int>(expected));
    ++failures;
  }
}
}  // namespace

int main(int argc, char** argv) {
  // Line-buffered stdout, so the steps and minicuda's fault report on stderr appear in the order
  // they happen even when the output goes to a pipe or a file.
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  const bool far = argc > 1 && std::strcmp(argv[1], "far") == 0;
  if (argc > 1 && !far && std::strcmp(argv[1], "null") != 0) {
    std::printf("usage: %s [null|far]\n", argv[0]);
    return 2;
  }

  int* good = nullptr;
  step(0, "cudaMalloc(&good, 4096)", cudaMalloc(&good, 4096), cudaSuccess);
  int* bad = far ? good + (1u << 28) : nullptr;  // 1 GiB past `good`, or NULL
  std::printf("         the kernel will write through %p (%s)\n", static_cast<void*>(bad),
              far ? "1 GiB past a 4 KiB allocation" : "NULL");

  write_through<<<1, 32>>>(bad);
  step(1, "cudaGetLastError() after the launch", cudaGetLastError(), cudaSuccess);
  step(2, "cudaDeviceSynchronize()", cudaDeviceSynchronize(), cudaErrorIllegalAddress);
  step(3, "cudaGetLastError()", cudaGetLastError(), cudaErrorIllegalAddress);
  step(3, "cudaGetLastError() again", cudaGetLastError(), cudaSuccess);

  int* other = nullptr;
  step(4, "cudaMalloc(&other, 4096)", cudaMalloc(&other, 4096), cudaErrorIllegalAddress);
  int value = 0;
  step(4, "cudaMemcpy(&value, good, 4, D2H)", cudaMemcpy(&value, good, sizeof(int), cudaMemcpyDeviceToHost),
       cudaErrorIllegalAddress);
  step(4, "cudaDeviceSynchronize() again", cudaDeviceSynchronize(), cudaErrorIllegalAddress);
  // Each failed call also left its error in the last-error slot; read it (and clear it), or the
  // next cudaGetLastError would report this old 700 instead of the state of a new launch.
  step(4, "cudaGetLastError()", cudaGetLastError(), cudaErrorIllegalAddress);

  step(5, "cudaDeviceReset()", cudaDeviceReset(), cudaSuccess);
  // `good` belonged to the destroyed context: it must not be used (or freed) any more.

  int* fresh = nullptr;
  step(6, "cudaMalloc(&fresh, 4096)", cudaMalloc(&fresh, 4096), cudaSuccess);
  if (fresh != nullptr) {
    fill<<<4, 256>>>(fresh, 7, 1024);
    step(6, "cudaGetLastError() after fill<<<4, 256>>>", cudaGetLastError(), cudaSuccess);
    step(6, "cudaDeviceSynchronize()", cudaDeviceSynchronize(), cudaSuccess);
    int back[1024] = {};
    step(6, "cudaMemcpy(back, fresh, 4096, D2H)", cudaMemcpy(back, fresh, sizeof(back), cudaMemcpyDeviceToHost),
         cudaSuccess);
    int wrong = 0;
    for (int v : back) wrong += v != 7;
    std::printf("         fill wrote %d of 1024 values correctly\n", 1024 - wrong);
    if (wrong != 0) ++failures;
    step(6, "cudaFree(fresh)", cudaFree(fresh), cudaSuccess);
  }

  if (failures != 0) {
    std::printf("illegal_address: FAIL (%d steps returned something unexpected)\n", failures);
    return 1;
  }
  std::printf("illegal_address: PASS (fault at synchronize, sticky until cudaDeviceReset, then recovered)\n");
  return 0;
}
