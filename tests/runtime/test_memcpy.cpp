// cudaMemcpy and cudaMemset (runtime/src/memcpy.cpp): every memcpy.* and memset.* key of
// probe.txt with its last-error effect, the article's round trip, the system calls of the first
// copy after lazy initialisation, and cudaMemcpyDefault with pinned memory.
#include <cstring>
#include <memory>
#include <vector>

#include "runtime_fixtures.h"

namespace minicuda::testing {
namespace {

using MemcpyTest = FreshProcess;

// System calls (Layer::Kernel calls) a recording saw.
size_t syscalls(const trace::Recorder& recorder) {
  size_t n = 0;
  for (const trace::Event& e : recorder.events()) {
    if (e.layer == trace::Layer::Kernel && e.kind == trace::Kind::Call) ++n;
  }
  return n;
}

// The probe's sequence (probe.cu "memcpy edge cases"), in its order, on one 4 KiB allocation.
TEST_F(MemcpyTest, ProbeKeys) {
  int* d = nullptr;
  ASSERT_EQ(cudaMalloc(reinterpret_cast<void**>(&d), 4096), cudaSuccess);
  std::vector<int> h(1024, 7);
  EXPECT_EQ(cudaMemcpy(d, h.data(), 0, cudaMemcpyHostToDevice), cudaSuccess);  // memcpy.zero_bytes
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
  EXPECT_EQ(cudaMemcpy(d, h.data(), 16, static_cast<cudaMemcpyKind>(42)),
            cudaErrorInvalidMemcpyDirection);                                   // memcpy.bad_kind
  EXPECT_EQ(cudaGetLastError(), cudaErrorInvalidMemcpyDirection);               // memcpy.bad_kind.getlast
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
  EXPECT_EQ(cudaMemcpy(d, d, 16, cudaMemcpyHostToDevice), cudaSuccess);  // memcpy.wrong_direction_h2d_with_dev_src
  EXPECT_EQ(cudaMemcpy(d, h.data(), 16, cudaMemcpyDefault), cudaSuccess);  // memcpy.default_kind
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
  EXPECT_EQ(cudaMemcpy(d, h.data(), 8192, cudaMemcpyHostToDevice), cudaErrorInvalidValue);  // memcpy.oob_dev_dst
  EXPECT_EQ(cudaGetLastError(), cudaErrorInvalidValue);                                     // memcpy.oob.getlast
  EXPECT_EQ(cudaMemcpy(nullptr, h.data(), 16, cudaMemcpyHostToDevice), cudaErrorInvalidValue);  // memcpy.null_dst
  EXPECT_EQ(cudaGetLastError(), cudaErrorInvalidValue);  // memcpy.null_dst.getlast
  EXPECT_EQ(cudaMemcpy(h.data(), reinterpret_cast<void*>(0x1000), 16, cudaMemcpyDeviceToHost),
            cudaErrorInvalidValue);                      // memcpy.dev_to_host_into_freed
  EXPECT_EQ(cudaGetLastError(), cudaErrorInvalidValue);  // memcpy.bad.getlast
  EXPECT_EQ(h, std::vector<int>(1024, 7));               // the failed copy wrote nothing
  EXPECT_EQ(cudaMemset(d, 0xab, 4096), cudaSuccess);     // memset.ok
  unsigned char hb[4] = {0};
  EXPECT_EQ(cudaMemcpy(hb, d, 4, cudaMemcpyDeviceToHost), cudaSuccess);
  EXPECT_EQ(hb[0], 0xab);  // memset.byte = abababab
  EXPECT_EQ(hb[1], 0xab);
  EXPECT_EQ(hb[2], 0xab);
  EXPECT_EQ(hb[3], 0xab);
  EXPECT_EQ(cudaMemset(d, 0, 8192), cudaErrorInvalidValue);  // memset.oob
  EXPECT_EQ(cudaGetLastError(), cudaErrorInvalidValue);      // memset.oob.getlast
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
  std::vector<unsigned char> all(4096, 0);
  EXPECT_EQ(cudaMemcpy(all.data(), d, 4096, cudaMemcpyDeviceToHost), cudaSuccess);
  EXPECT_EQ(all, std::vector<unsigned char>(4096, 0xab));  // the refused memset wrote nothing
  EXPECT_EQ(cudaFree(d), cudaSuccess);
}

// What the probe's data looks like after its copies: the default-kind copy of 16 bytes of 7s.
TEST_F(MemcpyTest, ProbeCopiesMoveTheData) {
  int* d = nullptr;
  ASSERT_EQ(cudaMalloc(reinterpret_cast<void**>(&d), 4096), cudaSuccess);
  ASSERT_EQ(cudaMemset(d, 0, 4096), cudaSuccess);
  std::vector<int> h(1024, 7);
  ASSERT_EQ(cudaMemcpy(d, h.data(), 16, cudaMemcpyDefault), cudaSuccess);
  ASSERT_EQ(cudaMemcpy(d + 4, d, 16, cudaMemcpyHostToDevice), cudaSuccess);  // device source, "H2D"
  ASSERT_EQ(cudaMemcpy(d + 8, d, 32, cudaMemcpyDeviceToDevice), cudaSuccess);
  std::vector<int> got(1024, -1);
  ASSERT_EQ(cudaMemcpy(got.data(), d, 4096, cudaMemcpyDeviceToHost), cudaSuccess);
  for (int i = 0; i < 1024; ++i) EXPECT_EQ(got[i], i < 16 ? 7 : 0) << i;
  EXPECT_EQ(cudaFree(d), cudaSuccess);
}

TEST_F(MemcpyTest, EveryKindIsAccepted) {
  int* d = nullptr;
  ASSERT_EQ(cudaMalloc(reinterpret_cast<void**>(&d), 64), cudaSuccess);
  int a[4] = {1, 2, 3, 4}, b[4] = {};
  EXPECT_EQ(cudaMemcpy(b, a, sizeof a, cudaMemcpyHostToHost), cudaSuccess);
  EXPECT_EQ(b[3], 4);
  EXPECT_EQ(cudaMemcpy(d, a, sizeof a, cudaMemcpyHostToDevice), cudaSuccess);
  EXPECT_EQ(cudaMemcpy(d + 4, d, sizeof a, cudaMemcpyDeviceToDevice), cudaSuccess);
  int c[4] = {};
  EXPECT_EQ(cudaMemcpy(c, d + 4, sizeof c, cudaMemcpyDeviceToHost), cudaSuccess);
  EXPECT_EQ(std::memcmp(a, c, sizeof a), 0);
  for (int kind : {-1, 5, 42}) {
    EXPECT_EQ(cudaMemcpy(d, a, sizeof a, static_cast<cudaMemcpyKind>(kind)), cudaErrorInvalidMemcpyDirection);
    EXPECT_EQ(cudaGetLastError(), cudaErrorInvalidMemcpyDirection);
  }
  EXPECT_EQ(cudaMemcpy(d, d + 14, 16, cudaMemcpyDeviceToDevice), cudaErrorInvalidValue);  // source leaves it
  EXPECT_EQ(cudaGetLastError(), cudaErrorInvalidValue);
  EXPECT_EQ(cudaMemset(nullptr, 0, 4), cudaErrorInvalidValue);
  EXPECT_EQ(cudaGetLastError(), cudaErrorInvalidValue);
  EXPECT_EQ(cudaMemset(d, 0, 0), cudaSuccess);
  EXPECT_EQ(cudaFree(d), cudaSuccess);
}

// The program of the article: the classic round trip through two device buffers.
TEST_F(MemcpyTest, ArticleProgram) {
  std::unique_ptr<int[]> host(new int[4]{1, 2, 3, 4});
  int* a = nullptr;
  int* b = nullptr;
  ASSERT_EQ(cudaMalloc(reinterpret_cast<void**>(&a), 4 * sizeof(int)), cudaSuccess);
  ASSERT_EQ(cudaMalloc(reinterpret_cast<void**>(&b), 4 * sizeof(int)), cudaSuccess);
  ASSERT_EQ(cudaMemcpy(a, host.get(), 4 * sizeof(int), cudaMemcpyHostToDevice), cudaSuccess);
  ASSERT_EQ(cudaMemcpy(b, a, 4 * sizeof(int), cudaMemcpyDeviceToDevice), cudaSuccess);
  std::unique_ptr<int[]> back(new int[4]{0, 0, 0, 0});
  ASSERT_EQ(cudaMemcpy(back.get(), b, 4 * sizeof(int), cudaMemcpyDeviceToHost), cudaSuccess);
  for (int i = 0; i < 4; ++i) EXPECT_EQ(back[i], i + 1);
  EXPECT_EQ(cudaFree(a), cudaSuccess);
  EXPECT_EQ(cudaFree(b), cudaSuccess);
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
}

// After lazy initialisation, copies reach the GPU without a system call.
TEST_F(MemcpyTest, FirstCopyAfterLazyInitMakesNoSystemCall) {
  void* d = nullptr;
  ASSERT_EQ(cudaMalloc(&d, 1 << 20), cudaSuccess);  // lazy init and the pool's first chunk
  std::vector<unsigned char> src(1 << 20), dst(1 << 20, 0);
  for (size_t i = 0; i < src.size(); ++i) src[i] = static_cast<unsigned char>(i * 31);
  trace::Recorder recorder;
  ASSERT_EQ(cudaMemcpy(d, src.data(), src.size(), cudaMemcpyHostToDevice), cudaSuccess);
  EXPECT_EQ(syscalls(recorder), 0u) << recorder.tree().substr(0, 4000);
  ASSERT_EQ(cudaMemset(d, 0x5a, 16), cudaSuccess);
  ASSERT_EQ(cudaMemcpy(dst.data(), d, dst.size(), cudaMemcpyDeviceToHost), cudaSuccess);
  EXPECT_EQ(syscalls(recorder), 0u);
  for (size_t i = 0; i < 16; ++i) src[i] = 0x5a;
  EXPECT_EQ(dst, src);
}

// A cudaMemcpy as the process's first CUDA call costs the lazy initialisation and nothing more:
// the same system calls as a first cudaFree(NULL) in another fresh process.
TEST_F(MemcpyTest, FirstCallCopyCostsOnlyTheLazyInit) {
  size_t init_only = 0;
  {
    auto other = kernel::spawn_process();
    kernel::ProcessScope as_other(*other);
    trace::Recorder recorder;
    ASSERT_EQ(cudaFree(nullptr), cudaSuccess);
    init_only = syscalls(recorder);
  }
  ASSERT_GT(init_only, 0u);
  int a[4] = {1, 2, 3, 4}, b[4] = {};
  trace::Recorder recorder;
  ASSERT_EQ(cudaMemcpy(b, a, sizeof a, cudaMemcpyDefault), cudaSuccess);
  EXPECT_EQ(syscalls(recorder), init_only);
  EXPECT_EQ(std::memcmp(a, b, sizeof a), 0);
  recorder.clear();
  ASSERT_EQ(cudaMemcpy(a, b, sizeof a, cudaMemcpyHostToHost), cudaSuccess);
  EXPECT_EQ(syscalls(recorder), 0u);
}

TEST_F(MemcpyTest, DefaultKindWithPinnedMemory) {
  constexpr size_t n = (3 << 20) + 7;  // more than the staging buffer: pinned memory needs none
  unsigned char* pin = nullptr;
  unsigned char* back = nullptr;
  ASSERT_EQ(cudaHostAlloc(reinterpret_cast<void**>(&pin), n, 0), cudaSuccess);
  ASSERT_EQ(cudaMallocHost(reinterpret_cast<void**>(&back), n), cudaSuccess);
  void* d = nullptr;
  ASSERT_EQ(cudaMalloc(&d, n), cudaSuccess);
  for (size_t i = 0; i < n; ++i) pin[i] = static_cast<unsigned char>(i ^ (i >> 8));
  std::memset(back, 0, n);
  trace::Recorder recorder;
  ASSERT_EQ(cudaMemcpy(d, pin, n, cudaMemcpyDefault), cudaSuccess);
  ASSERT_EQ(cudaMemcpy(back, d, n, cudaMemcpyDefault), cudaSuccess);
  EXPECT_EQ(syscalls(recorder), 0u);
  EXPECT_EQ(std::memcmp(pin, back, n), 0);
  // Pinned to pinned, and a memset seen through a pinned copy.
  ASSERT_EQ(cudaMemset(d, 0xc3, n), cudaSuccess);
  ASSERT_EQ(cudaMemcpy(pin, d, n, cudaMemcpyDefault), cudaSuccess);
  ASSERT_EQ(cudaMemcpy(back, pin, n, cudaMemcpyDefault), cudaSuccess);
  EXPECT_EQ(back[0], 0xc3);
  EXPECT_EQ(back[n - 1], 0xc3);
  EXPECT_EQ(std::memcmp(pin, back, n), 0);
  EXPECT_EQ(cudaFree(d), cudaSuccess);
  EXPECT_EQ(cudaFreeHost(pin), cudaSuccess);
  EXPECT_EQ(cudaFreeHost(back), cudaSuccess);
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
}

}  // namespace
}  // namespace minicuda::testing
