// Linked against lib/libcudart.so.13 and lib/libcuda.so.1 (tests/abi/CMakeLists.txt), as a
// program built by nvcc is: calls a runtime and a driver function minicuda does not build and
// prints what they answered, then the runtime's last error twice ("key value" lines).
#include <cstdio>

extern "C" int cudaMemPoolExportPointer(void* exportData, void* ptr);
extern "C" int cudaGetLastError();
extern "C" int cuGraphCreate(void** graph, unsigned flags);

int main() {
  void* pool = nullptr;
  void* graph = nullptr;
  std::printf("cudaMemPoolExportPointer %d\n", cudaMemPoolExportPointer(&pool, nullptr));
  std::printf("lastError %d\n", cudaGetLastError());
  std::printf("lastErrorAgain %d\n", cudaGetLastError());
  std::printf("cuGraphCreate %d\n", cuGraphCreate(&graph, 0));
  std::printf("pool %s\n", pool == nullptr ? "null" : "set");
  std::printf("graph %s\n", graph == nullptr ? "null" : "set");
  return 0;
}
