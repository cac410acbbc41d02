// Device printf (buffered in the launch's printf FIFO, written to stdout only when the host
// synchronises) and kernel errors (sm.h: faults, assert, __trap), each with its CUDA error code,
// sticky until cudaDeviceReset (probe_sticky.txt).
#undef NDEBUG  // device assert must stay in, whatever the build type
#include "alignment_checks.h"
#include <cassert>
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "kernel_test.h"

// --- kernels --------------------------------------------------------------------------------

__global__ void hello(int value) {
  printf("hello from block %u thread %u: %d\n", blockIdx.x, threadIdx.x, value + static_cast<int>(threadIdx.x));
}

__global__ void formats(const char* unused) {
  printf("%d|%u|%lld|%x|%08X|%.3f|%e|%s|%c|%%|%5d|%-5d|\n", -42, 4000000000u, -1234567890123LL, 0xbeefu, 0xabcu,
         3.14159, 12345.678, "text", 'Z', 7, 7);
}

__global__ void print_tag(char tag) { printf("%c\n", tag); }

__global__ void print_and_store(int* out) {
  printf("stored\n");
  *out = 1;
}

__global__ void poke(int* p, long long index) { p[index] = 1; }
__global__ void peek(const int* p, long long index, int* out) { *out = p[index]; }
__global__ void misaligned_int_store(char* base) { *reinterpret_cast<volatile int*>(base + 2) = 7; }
// At base + 1, not + 4: an 8-byte integer access that is 4-byte aligned is let through, because
// g++ makes such accesses of aligned 4-byte data too (it copies a uint3 eight bytes at a time);
// a long long at + 4 faults on the GPU but not here (docs/kernels.md, known gaps).
__global__ void misaligned_long_load(const char* base, long long* out) {
  *out = *reinterpret_cast<const volatile long long*>(base + 1);
}
__global__ void misaligned_double_load(const char* base, double* out) {
  *out = *reinterpret_cast<const volatile double*>(base + 4);
}
__global__ void misaligned_atomic(char* base) { atomicAdd(reinterpret_cast<int*>(base + 2), 1); }
// 16-byte vector loads must be 16-byte aligned on the GPU; base + 8 is only 8-byte aligned.
__global__ void misaligned_float4_load(const char* base, float* out) {
  const float4 v = *reinterpret_cast<const float4*>(base + 8);
  *out = v.x + v.y + v.z + v.w;
}
__device__ int recurse(int depth) {
  volatile char frame[1024];
  frame[0] = static_cast<char>(depth);
  return depth == 0 ? frame[0] : recurse(depth - 1) + frame[0];
}
__global__ void deep_recursion(int depth, int* out) { *out = recurse(depth); }
__global__ void trap_always() { __trap(); }
__global__ void print_lines(int per_thread) {
  for (int i = 0; i < per_thread; ++i)
    printf("thread %4u line %2d: ..................................................\n", threadIdx.x, i);
}
__global__ void trap_in_block(int which) {
  if (static_cast<int>(blockIdx.x) == which && threadIdx.x == 3) __trap();
}

constexpr int kAssertLine = __LINE__ + 2;
__global__ void assert_in_block() {
  assert(blockIdx.x != 1 || threadIdx.x != 2);
}

// A long assertion: its message is longer than the 239 characters of the fault record.
__global__ void assert_long(int a) {
  assert(a == 1 && "this assertion carries a deliberately long explanation so that the whole message of CUDA's form goes past two hundred and forty characters");
}

namespace minicuda::kernels_test {
namespace {

using namespace std::chrono_literals;

class KernelPrintf : public FreshProcess {};

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// minicuda's model is the Programming Guide's: the FIFO is printed only at the synchronising
// calls (cudaDeviceSynchronize, blocking cudaMemcpy, ...). NOTE: the H200 with CUDA 13.0 (driver
// 580) was seen to print a finished kernel's output within 100 ms of the launch with no
// synchronising call at all; this test checks minicuda's documented behaviour, not that.
TEST_F(KernelPrintf, NothingBeforeSynchronizeThenAllOfIt) {
  ::testing::internal::CaptureStdout();
  hello<<<1, 4>>>(100);
  const cudaError_t launched = cudaGetLastError();
  std::this_thread::sleep_for(100ms);  // time for the GPU to run the kernel: still nothing
  const std::string before = ::testing::internal::GetCapturedStdout();
  ASSERT_EQ(launched, cudaSuccess);
  EXPECT_EQ(before, "");

  ::testing::internal::CaptureStdout();
  const cudaError_t synced = cudaDeviceSynchronize();
  const std::string after = ::testing::internal::GetCapturedStdout();
  ASSERT_EQ(synced, cudaSuccess);
  // One block runs its threads in order (sm.h, loop mode), so the lines are in thread order.
  EXPECT_EQ(after,
            "hello from block 0 thread 0: 100\n"
            "hello from block 0 thread 1: 101\n"
            "hello from block 0 thread 2: 102\n"
            "hello from block 0 thread 3: 103\n");

  // The FIFO starts over empty: a second synchronise prints nothing more.
  ::testing::internal::CaptureStdout();
  const cudaError_t again = cudaDeviceSynchronize();
  EXPECT_EQ(::testing::internal::GetCapturedStdout(), "");
  EXPECT_EQ(again, cudaSuccess);
}

TEST_F(KernelPrintf, FormatsAsTheCLibrary) {
  ::testing::internal::CaptureStdout();
  formats<<<1, 1>>>(nullptr);
  const cudaError_t synced = cudaDeviceSynchronize();
  const std::string out = ::testing::internal::GetCapturedStdout();
  ASSERT_EQ(synced, cudaSuccess);
  EXPECT_EQ(out, "-42|4000000000|-1234567890123|beef|00000ABC|3.142|1.234568e+04|text|Z|%|    7|7    |\n");
}

TEST_F(KernelPrintf, ManyBlocksEveryLineOnce) {
  constexpr int blocks = 32, threads = 32;
  ::testing::internal::CaptureStdout();
  hello<<<blocks, threads>>>(0);
  const cudaError_t synced = cudaDeviceSynchronize();
  const std::string out = ::testing::internal::GetCapturedStdout();
  ASSERT_EQ(synced, cudaSuccess);
  std::vector<std::string> got = lines_of(out), want;
  for (int b = 0; b < blocks; ++b)
    for (int t = 0; t < threads; ++t)
      want.push_back("hello from block " + std::to_string(b) + " thread " + std::to_string(t) + ": " +
                     std::to_string(t));
  std::sort(got.begin(), got.end());
  std::sort(want.begin(), want.end());
  EXPECT_EQ(got, want);  // blocks run in any order on the SM threads; each line whole and once
}

TEST_F(KernelPrintf, SeveralLaunchesFlushInLaunchOrder) {
  ::testing::internal::CaptureStdout();
  print_tag<<<1, 1>>>('A');
  print_tag<<<1, 1>>>('B');
  print_tag<<<1, 1>>>('C');
  const cudaError_t synced = cudaDeviceSynchronize();
  const std::string out = ::testing::internal::GetCapturedStdout();
  ASSERT_EQ(synced, cudaSuccess);
  EXPECT_EQ(out, "A\nB\nC\n");
}

TEST_F(KernelPrintf, BlockingMemcpySynchronisesToo) {
  int* d = nullptr;
  ASSERT_EQ(cudaMalloc(&d, sizeof(int)), cudaSuccess);
  ::testing::internal::CaptureStdout();
  print_and_store<<<1, 1>>>(d);
  int h = 0;
  const cudaError_t copied = cudaMemcpy(&h, d, sizeof h, cudaMemcpyDeviceToHost);
  const std::string out = ::testing::internal::GetCapturedStdout();
  ASSERT_EQ(copied, cudaSuccess);
  EXPECT_EQ(h, 1);
  EXPECT_EQ(out, "stored\n");
  cudaFree(d);
}

// SIMULATOR LIMITATION (reported, not fixed here): CUDA's printf FIFO is large (the H200 with
// CUDA 13.0 reports cudaLimitPrintfFifoSize = 8650752 and printed all 2048 lines of this test;
// cudaDeviceSetLimit can raise it; minicuda has no cudaDeviceGetLimit/SetLimit). minicuda's holds
// 64 KiB (driver/user/src/channel.h kPrintfBytes), so 144 KiB of output from one launch loses records
// and prints "[minicuda: N device printf record(s) dropped...]" instead.
TEST_F(KernelPrintf, DISABLED_HundredKilobytesOfOutputArriveWhole) {
  constexpr int threads = 1024, per_thread = 2;  // 2048 lines of 70 bytes
  ::testing::internal::CaptureStdout();
  print_lines<<<1, threads>>>(per_thread);
  const cudaError_t synced = cudaDeviceSynchronize();
  const std::string out = ::testing::internal::GetCapturedStdout();
  ASSERT_EQ(synced, cudaSuccess);
  const std::vector<std::string> lines = lines_of(out);
  EXPECT_EQ(lines.size(), static_cast<size_t>(threads * per_thread));
  EXPECT_EQ(out.find("dropped"), std::string::npos);
}

// Was a simulator bug (fixed: the test pins it): when the FIFO overflows, the SM advances the write
// offset also for the records it drops (sm.cpp vprintf_device), and libcuda then prints
// min(write, capacity) bytes (channel.cpp flush_printf): the bytes between the end of the last
// record that fit and the end of the FIFO, which no record wrote (zeros, or stale text of an
// earlier flush), are printed before the "[minicuda: ... dropped]" notice. Only whole records
// should be printed.
TEST_F(KernelPrintf, OverflowPrintsOnlyWholeRecords) {
  constexpr int threads = 1024, per_thread = 2;  // each line is 72 bytes; 65528 is not a multiple
  ::testing::internal::CaptureStdout();
  print_lines<<<1, threads>>>(per_thread);
  const cudaError_t synced = cudaDeviceSynchronize();
  const std::string out = ::testing::internal::GetCapturedStdout();
  ASSERT_EQ(synced, cudaSuccess);
  const size_t notice = out.find("[minicuda:");
  ASSERT_NE(notice, std::string::npos);
  const std::string records = out.substr(0, notice);
  EXPECT_EQ(records.find('\0'), std::string::npos) << "NUL bytes printed";
  EXPECT_EQ(records.size() % 72, 0u) << "a partial record: ..."
                                     << ::testing::PrintToString(records.substr(records.size() - 80));
}

class KernelErrors : public FreshProcess {};

// Outside the UVA window nothing is mapped at all (SIGSEGV with SEGV_MAPERR, whose si_code equals
// SIGBUS's BUS_ADRALN): the report still names the address, as probe.cu's oob_write makes it.
TEST_F(KernelErrors, IllegalAddressOutsideTheUvaWindowNamesTheAddress) {
  int* d = nullptr;
  ASSERT_EQ(cudaMalloc(&d, 1024), cudaSuccess);
  constexpr long long kBeyondWindow = 1LL << 40;  // 4 TiB past it: past the 512 GiB window
  ::testing::internal::CaptureStderr();
  poke<<<1, 1>>>(d, kBeyondWindow);
  EXPECT_EQ(cudaDeviceSynchronize(), cudaErrorIllegalAddress);
  const std::string err = ::testing::internal::GetCapturedStderr();
  std::ostringstream address;
  address << "illegal write of address 0x" << std::hex << reinterpret_cast<uintptr_t>(d + kBeyondWindow);
  EXPECT_NE(err.find(address.str()), std::string::npos) << err;
  EXPECT_EQ(cudaDeviceReset(), cudaSuccess);
}

TEST_F(KernelErrors, IllegalAddressFarFromAnyAllocationIsSticky) {
  int* d = nullptr;
  ASSERT_EQ(cudaMalloc(&d, 256), cudaSuccess);
  constexpr long long kFar = 1LL << 28;  // 1 GiB past the allocation: no page there
  ::testing::internal::CaptureStderr();
  poke<<<1, 1>>>(d, kFar);
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);  // the launch itself is fine
  EXPECT_EQ(cudaDeviceSynchronize(), cudaErrorIllegalAddress);
  const std::string err = ::testing::internal::GetCapturedStderr();
  std::ostringstream address;
  address << "illegal write of address 0x" << std::hex << reinterpret_cast<uintptr_t>(d + kFar);
  EXPECT_NE(err.find(address.str()), std::string::npos) << err;
  EXPECT_EQ(cudaGetLastError(), cudaErrorIllegalAddress);
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
  // Sticky: every later call fails the same way, launches included.
  EXPECT_EQ(cudaDeviceSynchronize(), cudaErrorIllegalAddress);
  int* e = nullptr;
  EXPECT_EQ(cudaMalloc(&e, 4), cudaErrorIllegalAddress);
  EXPECT_EQ(cudaMemset(d, 0, 4), cudaErrorIllegalAddress);
  poke<<<1, 1>>>(d, 0);
  EXPECT_EQ(cudaGetLastError(), cudaErrorIllegalAddress);
  EXPECT_EQ(cudaDeviceReset(), cudaSuccess);
  // A fresh context after the reset. (The H200 answers this first cudaMalloc after the reset with
  // 46, cudaErrorDevicesUnavailable - probe_sticky.txt, and again in a check with CUDA 13.0;
  // minicuda returns success: docs/layers/libcuda.md.)
  ASSERT_EQ(cudaMalloc(&e, 4), cudaSuccess);
  poke<<<1, 1>>>(e, 0);
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
  EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  int h = 0;
  ASSERT_EQ(cudaMemcpy(&h, e, 4, cudaMemcpyDeviceToHost), cudaSuccess);
  EXPECT_EQ(h, 1);
  cudaFree(e);
}

// A stream whose work waits for the faulted NULL stream's (the legacy rule: its channel acquires
// a fence that will never come) ends with the error too, and the reset does not wait for it.
TEST_F(KernelErrors, FaultReachesStreamsWaitingOnTheFaultedChannel) {
  int* d = nullptr;
  ASSERT_EQ(cudaMalloc(&d, 256), cudaSuccess);
  cudaStream_t s = nullptr;
  ASSERT_EQ(cudaStreamCreate(&s), cudaSuccess);
  ::testing::internal::CaptureStderr();
  poke<<<1, 1>>>(d, 1LL << 28);
  (void)cudaMemsetAsync(d, 0, 256, s);  // 700 already, or queued behind the kernel
  EXPECT_EQ(cudaStreamSynchronize(s), cudaErrorIllegalAddress);
  EXPECT_EQ(cudaStreamQuery(s), cudaErrorIllegalAddress);
  (void)::testing::internal::GetCapturedStderr();
  EXPECT_EQ(cudaDeviceReset(), cudaSuccess);
  ASSERT_EQ(cudaMalloc(&d, 256), cudaSuccess);  // a fresh context
  ASSERT_EQ(cudaStreamCreate(&s), cudaSuccess);
  EXPECT_EQ(cudaMemsetAsync(d, 0, 256, s), cudaSuccess);
  EXPECT_EQ(cudaStreamSynchronize(s), cudaSuccess);
  cudaStreamDestroy(s);
  cudaFree(d);
}

TEST_F(KernelErrors, IllegalReadAndNullWrite) {
  int *d = nullptr, *out = nullptr;
  ASSERT_EQ(cudaMalloc(&d, 256), cudaSuccess);
  ASSERT_EQ(cudaMalloc(&out, 4), cudaSuccess);
  ::testing::internal::CaptureStderr();
  peek<<<1, 1>>>(d, 1LL << 28, out);
  EXPECT_EQ(cudaDeviceSynchronize(), cudaErrorIllegalAddress);
  std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("illegal read of address"), std::string::npos) << err;
  ASSERT_EQ(cudaDeviceReset(), cudaSuccess);
  ::testing::internal::CaptureStderr();
  poke<<<4, 32>>>(nullptr, 0);
  EXPECT_EQ(cudaDeviceSynchronize(), cudaErrorIllegalAddress);
  err = ::testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("illegal write of address 0x0"), std::string::npos) << err;
  ASSERT_EQ(cudaDeviceReset(), cudaSuccess);
}

// The GPU's page tables map whole pages: cudaMalloc(64) takes 64 bytes of a 2 MiB pool chunk that
// is mapped as a whole, so a kernel that overruns its allocation by 1000 bytes writes into the
// chunk (as on a real GPU, where such a bug goes unnoticed unless compute-sanitizer runs) and
// does not fault. Only an address on no mapped page is an illegal address.
TEST_F(KernelErrors, OverrunInsideAPoolChunkDoesNotFault) {
  int* d = nullptr;
  ASSERT_EQ(cudaMalloc(&d, 64), cudaSuccess);
  poke<<<1, 1>>>(d, 1000 / sizeof(int));
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
  EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  int h[16] = {};
  EXPECT_EQ(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost), cudaSuccess);
  cudaFree(d);
}

TEST_F(KernelErrors, MisalignedAccessesAreError716) {
  if (!minicuda::testing::kAlignmentChecks) GTEST_SKIP() << "no alignment checks in this build";
  char* d = nullptr;
  long long* out = nullptr;
  ASSERT_EQ(cudaMalloc(&d, 64), cudaSuccess);
  ::testing::internal::CaptureStderr();
  misaligned_int_store<<<1, 1>>>(d);
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
  EXPECT_EQ(cudaDeviceSynchronize(), cudaErrorMisalignedAddress);
  EXPECT_EQ(static_cast<int>(cudaErrorMisalignedAddress), 716);
  EXPECT_EQ(cudaGetLastError(), cudaErrorMisalignedAddress);
  EXPECT_EQ(cudaMalloc(&out, 8), cudaErrorMisalignedAddress);  // sticky
  ASSERT_EQ(cudaDeviceReset(), cudaSuccess);
  ASSERT_EQ(cudaMalloc(&d, 64), cudaSuccess);
  ASSERT_EQ(cudaMalloc(&out, 8), cudaSuccess);
  misaligned_long_load<<<1, 1>>>(d, out);
  EXPECT_EQ(cudaDeviceSynchronize(), cudaErrorMisalignedAddress);
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("misaligned address"), std::string::npos) << err;
  ASSERT_EQ(cudaDeviceReset(), cudaSuccess);
}

TEST_F(KernelErrors, MisalignedDoubleLoadAndAtomic) {
  if (!minicuda::testing::kAlignmentChecks) GTEST_SKIP() << "no alignment checks in this build";
  char* d = nullptr;
  double* out = nullptr;
  ASSERT_EQ(cudaMalloc(&d, 64), cudaSuccess);
  ASSERT_EQ(cudaMalloc(&out, 8), cudaSuccess);
  ::testing::internal::CaptureStderr();
  misaligned_double_load<<<1, 1>>>(d, out);
  EXPECT_EQ(cudaDeviceSynchronize(), cudaErrorMisalignedAddress);
  ASSERT_EQ(cudaDeviceReset(), cudaSuccess);
  ASSERT_EQ(cudaMalloc(&d, 64), cudaSuccess);
  misaligned_atomic<<<1, 32>>>(d);
  EXPECT_EQ(cudaDeviceSynchronize(), cudaErrorMisalignedAddress);
  (void)::testing::internal::GetCapturedStderr();
  ASSERT_EQ(cudaDeviceReset(), cudaSuccess);
}

// SIMULATOR BUG (reported, not fixed here): a float4 load is one 16-byte access on the GPU
// (LDG.E.128) and faults with cudaErrorMisalignedAddress (716) unless the address is 16-byte
// aligned (measured on the H200: float4 and double2 at base + 8 -> 716). Here a float4 is a
// struct of four floats that g++ reads with 4- or 8-byte accesses (even now that it is
// alignas(16)), and the alignment check only sees those: a float4 at an 8-byte-aligned address
// reads fine and the launch succeeds (Debug and -O2 builds alike).
TEST_F(KernelErrors, DISABLED_MisalignedFloat4LoadIsError716) {
  char* d = nullptr;
  float* out = nullptr;
  ASSERT_EQ(cudaMalloc(&d, 64), cudaSuccess);
  ASSERT_EQ(cudaMalloc(&out, 4), cudaSuccess);
  ::testing::internal::CaptureStderr();
  misaligned_float4_load<<<1, 1>>>(d, out);
  const cudaError_t synced = cudaDeviceSynchronize();
  (void)::testing::internal::GetCapturedStderr();
  EXPECT_EQ(synced, cudaErrorMisalignedAddress);
  ASSERT_EQ(cudaDeviceReset(), cudaSuccess);
}

// A thread that runs off its stack (256 KiB per thread here, sm.cpp) stops the grid with a
// sticky error.
TEST_F(KernelErrors, StackOverflowIsAStickyError) {
  int* out = nullptr;
  ASSERT_EQ(cudaMalloc(&out, 4), cudaSuccess);
  deep_recursion<<<1, 1>>>(10, out);  // 11 KiB of frames: fine (on the H200 too)
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  ::testing::internal::CaptureStderr();
  deep_recursion<<<1, 1>>>(1000, out);  // about 1 MiB of frames
  const cudaError_t synced = cudaDeviceSynchronize();
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_NE(synced, cudaSuccess);
  EXPECT_EQ(cudaMalloc(&out, 4), synced);
  EXPECT_NE(err.find("stack overflow"), std::string::npos) << err;
  ASSERT_EQ(cudaDeviceReset(), cudaSuccess);
}

// Was a simulator divergence (fixed: the test pins it): on the H200 (CUDA 13.0, cudaLimitStackSize
// 1024) the same recursion fails with cudaErrorIllegalAddress (700) from depth 100 on; the SM
// reports a stack overflow as cudaErrorLaunchFailure (719, sm.h KernelErrorKind::StackOverflow).
TEST_F(KernelErrors, StackOverflowIsError700) {
  int* out = nullptr;
  ASSERT_EQ(cudaMalloc(&out, 4), cudaSuccess);
  ::testing::internal::CaptureStderr();
  deep_recursion<<<1, 1>>>(1000, out);
  const cudaError_t synced = cudaDeviceSynchronize();
  (void)::testing::internal::GetCapturedStderr();
  EXPECT_EQ(synced, cudaErrorIllegalAddress);
  ASSERT_EQ(cudaDeviceReset(), cudaSuccess);
}

// The first error stops the grid: blocks not yet started never start. A grid of the largest x
// dimension (2^31 - 1 blocks) is accepted and ends at once when its blocks trap.
TEST_F(KernelErrors, ErrorStopsTheLargestGrid) {
  ::testing::internal::CaptureStderr();
  trap_always<<<0x7fffffffu, 1>>>();
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
  EXPECT_EQ(cudaDeviceSynchronize(), cudaErrorLaunchFailure);
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("block (0,0,0) thread (0,0,0)"), std::string::npos) << err;  // the lowest block
  ASSERT_EQ(cudaDeviceReset(), cudaSuccess);
}

TEST_F(KernelErrors, AssertIsError710WithCudasMessage) {
  ::testing::internal::CaptureStderr();
  assert_in_block<<<4, 4>>>();
  const cudaError_t launched = cudaGetLastError();
  const cudaError_t synced = cudaDeviceSynchronize();
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(launched, cudaSuccess);
  EXPECT_EQ(synced, cudaErrorAssert);
  EXPECT_EQ(static_cast<int>(cudaErrorAssert), 710);
  // CUDA's form: "file:line: function: block: [x,y,z], thread: [x,y,z] Assertion `expr` failed."
  const std::string want = std::string(__FILE__) + ":" + std::to_string(kAssertLine) +
                           ": void assert_in_block(): block: [1,0,0], thread: [2,0,0] Assertion "
                           "`blockIdx.x != 1 || threadIdx.x != 2` failed.\n";
  EXPECT_EQ(err, want);
  EXPECT_EQ(cudaGetLastError(), cudaErrorAssert);
  EXPECT_EQ(cudaDeviceSynchronize(), cudaErrorAssert);  // sticky
  ASSERT_EQ(cudaDeviceReset(), cudaSuccess);
  assert_in_block<<<1, 4>>>();  // block 0 never fails
  EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
}

// The assert message travels from the SM to libcuda in the fault record's `what`
// (nverror.h); CUDA prints the whole line however long (the H200 printed this one whole).
TEST_F(KernelErrors, LongAssertMessageIsPrintedWhole) {
  ::testing::internal::CaptureStderr();
  assert_long<<<1, 1>>>(0);
  const cudaError_t synced = cudaDeviceSynchronize();
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(synced, cudaErrorAssert);
  EXPECT_NE(err.find("two hundred and forty characters\"` failed.\n"), std::string::npos) << err;
  ASSERT_EQ(cudaDeviceReset(), cudaSuccess);
}

TEST_F(KernelErrors, TrapIsError719) {
  ::testing::internal::CaptureStderr();
  trap_in_block<<<8, 8>>>(5);
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
  EXPECT_EQ(cudaDeviceSynchronize(), cudaErrorLaunchFailure);
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(static_cast<int>(cudaErrorLaunchFailure), 719);
  EXPECT_NE(err.find("block (5,0,0) thread (3,0,0)"), std::string::npos) << err;
  EXPECT_NE(err.find("__trap()"), std::string::npos) << err;
  EXPECT_EQ(cudaGetLastError(), cudaErrorLaunchFailure);
  int* e = nullptr;
  EXPECT_EQ(cudaMalloc(&e, 4), cudaErrorLaunchFailure);  // sticky
  ASSERT_EQ(cudaDeviceReset(), cudaSuccess);
  trap_in_block<<<8, 8>>>(-1);
  EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
}

TEST_F(KernelErrors, PrintfBeforeAFaultStillAppears) {
  int* d = nullptr;
  ASSERT_EQ(cudaMalloc(&d, 4), cudaSuccess);
  ::testing::internal::CaptureStdout();
  ::testing::internal::CaptureStderr();
  print_and_store<<<1, 1>>>(nullptr);  // prints, then writes through a null pointer
  const cudaError_t synced = cudaDeviceSynchronize();
  (void)::testing::internal::GetCapturedStderr();
  const std::string out = ::testing::internal::GetCapturedStdout();
  EXPECT_EQ(synced, cudaErrorIllegalAddress);
  EXPECT_EQ(out, "stored\n");
  ASSERT_EQ(cudaDeviceReset(), cudaSuccess);
}

}  // namespace
}  // namespace minicuda::kernels_test
