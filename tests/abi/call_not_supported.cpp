// Linked against lib/libcudart.so.13 and lib/libcuda.so.1 (tests/abi/CMakeLists.txt), as a
// program built by nvcc is: calls a runtime and a driver function minicuda does not build and
// prints what they answered, then the runtime's last error twice ("key value" lines).
#include <cstdio>

extern "C" int cudaGraphicsMapResources(int count, void** resources, void* stream);
extern "C" int cudaGetLastError();
extern "C" int cuGraphicsMapResources(unsigned count, void** resources, void* stream);

int main() {
  void* runtime_resource = nullptr;
  void* driver_resource = nullptr;
  std::printf("cudaGraphicsMapResources %d\n", cudaGraphicsMapResources(1, &runtime_resource, nullptr));
  std::printf("lastError %d\n", cudaGetLastError());
  std::printf("lastErrorAgain %d\n", cudaGetLastError());
  std::printf("cuGraphicsMapResources %d\n", cuGraphicsMapResources(1, &driver_resource, nullptr));
  std::printf("runtimeResource %d\n", runtime_resource == nullptr ? 0 : 1);
  std::printf("driverResource %d\n", driver_resource == nullptr ? 0 : 1);
  return 0;
}
