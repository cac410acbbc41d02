// article_memory: the memory-management example of the seed article (part 2.1).
//
// The article's program keeps four input ints and four results on the GPU, copies the inputs in
// with cudaMemcpy, runs a kernel and copies the results back. The copies here are real: the
// copy engine of the simulated GPU moves the data (through the pinned staging buffer for the
// pageable array, straight from the device for the pinned one), and so is the kernel, which the
// simulated GPU's SMs run between the two copies.
//
// Every call's error code is checked; the program exits with status 1 at the first failure.
// MINICUDA_TRACE=1 shows each call's way down to the kernel module.
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>

__global__ void double_each(const int* in, int* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = 2 * in[i];
}

namespace {

constexpr int kCount = 4;

// Stops the program if a CUDA call failed, naming the call and the error.
void check(cudaError_t err, const char* what) {
  if (err == cudaSuccess) return;
  std::fprintf(stderr, "FAILED: %s returned %s: %s\n", what, cudaGetErrorName(err), cudaGetErrorString(err));
  std::exit(EXIT_FAILURE);
}

const char* memory_type_name(cudaMemoryType type) {
  switch (type) {
    case cudaMemoryTypeUnregistered: return "cudaMemoryTypeUnregistered";
    case cudaMemoryTypeHost: return "cudaMemoryTypeHost";
    case cudaMemoryTypeDevice: return "cudaMemoryTypeDevice";
    case cudaMemoryTypeManaged: return "cudaMemoryTypeManaged";
  }
  return "unknown";
}

// Asks the runtime what kind of memory ptr is, prints it and checks it is the expected kind.
void describe(const char* name, const void* ptr, cudaMemoryType expected) {
  cudaPointerAttributes attr{};
  check(cudaPointerGetAttributes(&attr, ptr), "cudaPointerGetAttributes");
  std::printf("  %-9s %p  type=%s device=%d\n", name, ptr, memory_type_name(attr.type), attr.device);
  if (attr.type != expected) {
    std::fprintf(stderr, "FAILED: %s is %s, expected %s\n", name, memory_type_name(attr.type),
                 memory_type_name(expected));
    std::exit(EXIT_FAILURE);
  }
}

}  // namespace

int main() {
  std::setvbuf(stdout, nullptr, _IOLBF, 0);  // keep stdout in order with the trace on stderr
  // Host side: an ordinary (pageable) array of inputs, as the article's h_data.
  int host_input[kCount] = {10, 20, 30, 40};

  // 1. Device buffers for the inputs and the results, and a pinned host buffer for the results.
  int* dev_input = nullptr;
  int* dev_output = nullptr;
  int* pinned_output = nullptr;
  check(cudaMalloc(&dev_input, kCount * sizeof(int)), "cudaMalloc(dev_input)");
  check(cudaMalloc(&dev_output, kCount * sizeof(int)), "cudaMalloc(dev_output)");
  check(cudaHostAlloc(&pinned_output, kCount * sizeof(int), cudaHostAllocDefault), "cudaHostAlloc(pinned_output)");
  std::printf("allocated %zu bytes twice on the device and once in pinned host memory\n", kCount * sizeof(int));

  // 2. What kind of memory is each pointer? The runtime knows the ones it handed out.
  std::printf("cudaPointerGetAttributes:\n");
  describe("input", host_input, cudaMemoryTypeUnregistered);
  describe("d_input", dev_input, cudaMemoryTypeDevice);
  describe("d_output", dev_output, cudaMemoryTypeDevice);
  describe("h_pinned", pinned_output, cudaMemoryTypeHost);

  // 3. Inputs to the GPU: pageable memory, so the driver stages it through its pinned buffer.
  check(cudaMemcpy(dev_input, host_input, kCount * sizeof(int), cudaMemcpyHostToDevice), "cudaMemcpy(H2D)");

  // 4. The kernel: one thread per element, d_out[i] = 2 * d_in[i].
  double_each<<<1, kCount>>>(dev_input, dev_output, kCount);
  check(cudaGetLastError(), "double_each<<<1, 4>>>");
  check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");

  // 5. Results back into pinned memory: the copy engine writes it directly.
  check(cudaMemcpy(pinned_output, dev_output, kCount * sizeof(int), cudaMemcpyDeviceToHost), "cudaMemcpy(D2H)");

  std::printf("results read back through the pinned buffer:");
  for (int i = 0; i < kCount; ++i) {
    std::printf(" %d", pinned_output[i]);
    if (pinned_output[i] != 2 * host_input[i]) {
      std::fprintf(stderr, "\nFAILED: result[%d] = %d, expected %d\n", i, pinned_output[i], 2 * host_input[i]);
      return EXIT_FAILURE;
    }
  }
  std::printf("\n");

  // 6. Free everything: device memory with cudaFree, pinned memory with cudaFreeHost.
  check(cudaFree(dev_input), "cudaFree(dev_input)");
  check(cudaFree(dev_output), "cudaFree(dev_output)");
  check(cudaFreeHost(pinned_output), "cudaFreeHost(pinned_output)");
  check(cudaGetLastError(), "cudaGetLastError");

  std::printf("article_memory: PASS\n");
  return EXIT_SUCCESS;
}
