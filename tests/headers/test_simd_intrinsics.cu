// The SIMD-in-a-word intrinsics (__vadd2 ... __vsubus4) in a kernel, against what the H200
// computed for the same operands (tests/data/h200/probe_simd.txt, recorded with probe_simd.cu:
// 82 intrinsics x 48 operand pairs, edge values in every lane first). Every result must match.
#include <cuda_runtime.h>

#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "kernel_test.h"

using minicuda::kernels_test::DeviceArray;
using minicuda::kernels_test::FreshProcess;

namespace {

#define SIMD_UNARY(X) X(__vabs2) X(__vabs4) X(__vabsss2) X(__vabsss4) X(__vneg2) X(__vneg4) X(__vnegss2) X(__vnegss4)
#define SIMD_BINARY(X)                                                                                            \
  X(__vabsdiffs2) X(__vabsdiffs4) X(__vabsdiffu2) X(__vabsdiffu4) X(__vadd2) X(__vadd4) X(__vaddss2)            \
  X(__vaddss4) X(__vaddus2) X(__vaddus4) X(__vavgs2) X(__vavgs4) X(__vavgu2) X(__vavgu4) X(__vcmpeq2)            \
  X(__vcmpeq4) X(__vcmpges2) X(__vcmpges4) X(__vcmpgeu2) X(__vcmpgeu4) X(__vcmpgts2) X(__vcmpgts4)               \
  X(__vcmpgtu2) X(__vcmpgtu4) X(__vcmples2) X(__vcmples4) X(__vcmpleu2) X(__vcmpleu4) X(__vcmplts2)              \
  X(__vcmplts4) X(__vcmpltu2) X(__vcmpltu4) X(__vcmpne2) X(__vcmpne4) X(__vhaddu2) X(__vhaddu4) X(__vmaxs2)       \
  X(__vmaxs4) X(__vmaxu2) X(__vmaxu4) X(__vmins2) X(__vmins4) X(__vminu2) X(__vminu4) X(__vsads2) X(__vsads4)    \
  X(__vsadu2) X(__vsadu4) X(__vseteq2) X(__vseteq4) X(__vsetges2) X(__vsetges4) X(__vsetgeu2) X(__vsetgeu4)      \
  X(__vsetgts2) X(__vsetgts4) X(__vsetgtu2) X(__vsetgtu4) X(__vsetles2) X(__vsetles4) X(__vsetleu2)              \
  X(__vsetleu4) X(__vsetlts2) X(__vsetlts4) X(__vsetltu2) X(__vsetltu4) X(__vsetne2) X(__vsetne4) X(__vsub2)     \
  X(__vsub4) X(__vsubss2) X(__vsubss4) X(__vsubus2) X(__vsubus4)

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
