// The SIMD-in-a-word intrinsics (__vadd2 ... __vsubus4) in a kernel, against what the H200
// computed for the same operands (tests/data/h200/probe_simd.txt, recorded with probe_simd.cu:
// 82 intrinsics x 48 operand pairs, edge values in every lane first). Every result must match.
#include <cuda_runtime.h>

#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "kernel_test.h"
#include "probe_simd_list.h"

using minicuda::kernels_test::DeviceArray;
using minicuda::kernels_test::FreshProcess;

namespace {

#define COUNT(f) +1
constexpr int kIntrinsics = 0 SIMD_UNARY(COUNT) SIMD_BINARY(COUNT);
const char* const kNames[] = {
#define NAME(f) #f,
    SIMD_UNARY(NAME) SIMD_BINARY(NAME)};

struct Recording {
  std::vector<unsigned> a, b;                  // the operand pairs, in the recording's order
  std::map<std::string, std::vector<unsigned>> results;  // per intrinsic, per pair
};

Recording read_recording() {
  Recording r;
  std::FILE* f = std::fopen(MINICUDA_PROBE_SIMD, "r");
  if (f == nullptr) return r;
  char line[256], name[64];
  unsigned a = 0, b = 0, result = 0;
  while (std::fgets(line, sizeof line, f)) {
    if (line[0] == '#' || std::sscanf(line, "%63s %x %x %x", name, &a, &b, &result) != 4) continue;
    auto& list = r.results[name];
    if (std::string(name) == "__vabsdiffs2") {  // the first binary intrinsic: one line per pair
      r.a.push_back(a);
      r.b.push_back(b);
    }
    list.push_back(result);
  }
  std::fclose(f);
  return r;
}

}  // namespace

__global__ void all_simd(const unsigned* a, const unsigned* b, unsigned* out, int pairs) {
  int i = threadIdx.x;
  if (i >= pairs) return;
  unsigned* o = out + i * kIntrinsics;
  int k = 0;
#define U(f) o[k++] = f(a[i]);
#define B(f) o[k++] = f(a[i], b[i]);
  SIMD_UNARY(U)
  SIMD_BINARY(B)
}

TEST_F(FreshProcess, SimdIntrinsicsInAKernelMatchTheH200) {
  const Recording rec = read_recording();
  ASSERT_EQ(rec.a.size(), 48u) << "cannot read " << MINICUDA_PROBE_SIMD;
  ASSERT_EQ(rec.results.size(), static_cast<size_t>(kIntrinsics));
  const int pairs = static_cast<int>(rec.a.size());
  DeviceArray<unsigned> a(rec.a), b(rec.b), out(static_cast<size_t>(pairs) * kIntrinsics);
  all_simd<<<1, pairs>>>(a.get(), b.get(), out.get(), pairs);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  const std::vector<unsigned> got = out.read();
  int differ = 0;
  for (int k = 0; k < kIntrinsics; ++k) {
    const std::vector<unsigned>& want = rec.results.at(kNames[k]);
    ASSERT_EQ(want.size(), static_cast<size_t>(pairs)) << kNames[k];
    for (int i = 0; i < pairs; ++i) {
      if (got[static_cast<size_t>(i) * kIntrinsics + k] == want[i]) continue;
      if (++differ <= 10)
        ADD_FAILURE() << kNames[k] << "(" << std::hex << rec.a[i] << ", " << rec.b[i] << "): H200 " << want[i]
                      << ", minicuda " << got[static_cast<size_t>(i) * kIntrinsics + k];
    }
  }
  EXPECT_EQ(differ, 0);
}
