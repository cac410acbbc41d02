// Linked against lib/libcudart.so.13 and lib/libcuda.so.1 (tests/abi/CMakeLists.txt), as a
// program built by nvcc is: calls a runtime and a driver function minicuda does not build and
// prints what they answered, then the runtime's last error twice ("key value" lines).
#include <cstdio>

extern "C" int cudaCreateSurfaceObject(unsigned long long* surface, const void* resource);
extern "C" int cudaGetLastError();
extern "C" int cuSurfObjectCreate(unsigned long long* surface, const void* resource);

int main() {
  unsigned long long runtime_surface = 0, driver_surface = 0;
  std::printf("cudaCreateSurfaceObject %d\n", cudaCreateSurfaceObject(&runtime_surface, nullptr));
  std::printf("lastError %d\n", cudaGetLastError());
  std::printf("lastErrorAgain %d\n", cudaGetLastError());
  std::printf("cuSurfObjectCreate %d\n", cuSurfObjectCreate(&driver_surface, nullptr));
  std::printf("runtimeSurface %llu\n", runtime_surface);
  std::printf("driverSurface %llu\n", driver_surface);
  return 0;
}
