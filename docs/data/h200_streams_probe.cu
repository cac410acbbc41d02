// Records how CUDA 13 on an H200 answers the stream calls minicuda implements beyond probe.cu:
// priorities, flags, host functions and callbacks, their error codes. Output: key = value.
#include <cuda_runtime.h>

#include <atomic>
#include <cstdio>

static void report(const char* key, cudaError_t e) {
  std::printf("%s = %d %s\n", key, static_cast<int>(e), cudaGetErrorName(e));
}

static std::atomic<int> g_order{0};
static int g_hostfunc_saw = -1, g_callback_saw = -1;
static cudaError_t g_callback_status = cudaErrorUnknown;

static void CUDART_CB host_fn(void* data) { g_hostfunc_saw = *static_cast<volatile int*>(data); g_order++; }
static void CUDART_CB callback(cudaStream_t, cudaError_t status, void* data) {
  g_callback_status = status;
  g_callback_saw = *static_cast<volatile int*>(data);
}

__global__ void set_value(int* p, int v) { *p = v; }

int main() {
  int least = 99, greatest = 99;
  report("priority_range", cudaDeviceGetStreamPriorityRange(&least, &greatest));
  std::printf("priority_range.least = %d\npriority_range.greatest = %d\n", least, greatest);
  report("priority_range.null_args", cudaDeviceGetStreamPriorityRange(nullptr, nullptr));

  cudaStream_t s = nullptr;
  int prio = 99;
  unsigned flags = 99;
  report("create_with_priority.-100", cudaStreamCreateWithPriority(&s, cudaStreamDefault, -100));
  report("get_priority", cudaStreamGetPriority(s, &prio));
  std::printf("get_priority.value_for_-100 = %d\n", prio);
  cudaStreamDestroy(s);
  report("create_with_priority.+100", cudaStreamCreateWithPriority(&s, cudaStreamNonBlocking, 100));
  cudaStreamGetPriority(s, &prio);
  std::printf("get_priority.value_for_+100 = %d\n", prio);
  report("get_flags", cudaStreamGetFlags(s, &flags));
  std::printf("get_flags.value_nonblocking = %u\n", flags);
  cudaStreamDestroy(s);
  report("create_with_priority.bad_flags", cudaStreamCreateWithPriority(&s, 0x10, 0));
  cudaGetLastError();
  report("create_with_priority.null_out", cudaStreamCreateWithPriority(nullptr, 0, 0));
  cudaGetLastError();
  report("create_with_flags.bad_flags", cudaStreamCreateWithFlags(&s, 0x10));
  cudaGetLastError();
  prio = 99;
  report("get_priority.null_stream", cudaStreamGetPriority(nullptr, &prio));
  std::printf("get_priority.null_stream.value = %d\n", prio);
  flags = 99;
  report("get_flags.null_stream", cudaStreamGetFlags(nullptr, &flags));
  std::printf("get_flags.null_stream.value = %u\n", flags);
  flags = 99;
  report("get_flags.per_thread", cudaStreamGetFlags(cudaStreamPerThread, &flags));
  std::printf("get_flags.per_thread.value = %u\n", flags);
  report("get_priority.null_out", cudaStreamGetPriority(nullptr, nullptr));
  cudaGetLastError();

  // Host function and callback order: they see what the stream did before them.
  cudaStreamCreate(&s);
  int* d = nullptr;
  int* h = nullptr;
  cudaMalloc(&d, sizeof(int));
  cudaMallocHost(&h, sizeof(int));
  *h = 0;
  set_value<<<1, 1, 0, s>>>(d, 42);
  cudaMemcpyAsync(h, d, sizeof(int), cudaMemcpyDeviceToHost, s);
  report("launch_host_func", cudaLaunchHostFunc(s, host_fn, h));
  report("add_callback", cudaStreamAddCallback(s, callback, h, 0));
  report("stream_sync_after_host_func", cudaStreamSynchronize(s));
  std::printf("host_func.saw = %d\ncallback.saw = %d\n", g_hostfunc_saw, g_callback_saw);
  report("callback.status", g_callback_status);
  report("add_callback.flags_1", cudaStreamAddCallback(s, callback, h, 1));
  cudaGetLastError();
  report("launch_host_func.null_fn", cudaLaunchHostFunc(s, nullptr, h));
  cudaGetLastError();
  report("add_callback.null_fn", cudaStreamAddCallback(s, nullptr, h, 0));
  cudaGetLastError();
  report("launch_host_func.null_stream", cudaLaunchHostFunc(nullptr, host_fn, h));
  report("device_sync", cudaDeviceSynchronize());
  std::printf("host_func.calls = %d\n", g_order.load());
  // Query while a host function blocks the stream.
  static volatile int gate = 0;
  report("launch_host_func.spin",
         cudaLaunchHostFunc(s, [](void*) { while (gate == 0) {} }, nullptr));
  set_value<<<1, 1, 0, s>>>(d, 7);
  report("query_behind_host_func", cudaStreamQuery(s));
  report("query_behind_host_func.getlast", cudaGetLastError());
  gate = 1;
  report("sync_after_gate", cudaStreamSynchronize(s));
  cudaStreamDestroy(s);
  cudaFree(d);
  cudaFreeHost(h);
  return 0;
}
