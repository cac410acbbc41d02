// main.cu: the Makefile project's program: scales 300 ones by SCALE_FACTOR (a -D of the Makefile).
#include <cstdio>

#include "scale.cuh"

int report(const float* values, int n, float expected);

int main() {
  float values[300];
  for (float& v : values) v = 1.0f;
  if (int status = scale_on_gpu(values, 300, SCALE_FACTOR)) {
    std::printf("scale_on_gpu failed: %d\n", status);
    return 1;
  }
  if (report(values, 300, SCALE_FACTOR) != 0) return 1;
  std::printf("Test passed\n");
  return 0;
}
