// Memcheck mode (MINICUDA_MEMCHECK=1, driver/user/src/memcheck.{h,cpp}), as a program sees it:
//   - in this process (the variable set before a fresh simulated process's cuInit): the guarded
//     layout and its alignment rule, the trace notes, and that frees, pointer attributes,
//     cuMemGetAddressRange, memsets, copies and in-bounds kernels work as without it;
//   - in a child process (memcheck_scenarios.cu), whose stderr is read: a one-byte overrun
//     write and read fault with 700 and are reported as compute-sanitizer reports them, with the
//     allocation's call site; leaks are reported at cudaDeviceReset and at exit; a use after
//     free of a small allocation faults only with memcheck (the H200 does not fault there);
//     without the variable nothing is reported.
#include <cuda.h>
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <unistd.h>

#include "kernel_test.h"

namespace {

constexpr uint64_t kMiB = 1ull << 20;

__global__ void add_vectors(const float* a, const float* b, float* c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}

__global__ void bump_bytes(unsigned char* p, int n) {
  int i = threadIdx.x;
  if (i < n) p[i] = static_cast<unsigned char>(p[i] + 1);
}

// A fresh simulated process whose cuInit sees MINICUDA_MEMCHECK=1.
class Memcheck : public minicuda::testing::FreshProcess {
 protected:
  void SetUp() override {
    setenv("MINICUDA_MEMCHECK", "1", 1);
    FreshProcess::SetUp();
    ASSERT_EQ(cudaFree(nullptr), cudaSuccess);  // cuInit now, with the variable set
  }
  void TearDown() override {
    unsetenv("MINICUDA_MEMCHECK");
    FreshProcess::TearDown();
  }
};

struct Range {
  CUdeviceptr start = 0;
  size_t size = 0;
  void* mapping_base = nullptr;
  size_t mapping_size = 0;
};
Range range_of(const void* p) {
  Range r;
  const auto ptr = reinterpret_cast<CUdeviceptr>(p);
  EXPECT_EQ(cuPointerGetAttribute(&r.start, CU_POINTER_ATTRIBUTE_RANGE_START_ADDR, ptr), CUDA_SUCCESS);
  EXPECT_EQ(cuPointerGetAttribute(&r.size, CU_POINTER_ATTRIBUTE_RANGE_SIZE, ptr), CUDA_SUCCESS);
  EXPECT_EQ(cuPointerGetAttribute(&r.mapping_base, CU_POINTER_ATTRIBUTE_MAPPING_BASE_ADDR, ptr), CUDA_SUCCESS);
  EXPECT_EQ(cuPointerGetAttribute(&r.mapping_size, CU_POINTER_ATTRIBUTE_MAPPING_SIZE, ptr), CUDA_SUCCESS);
  return r;
}

uint64_t lowest_bit(uint64_t v) { return v & (~v + 1); }

TEST_F(Memcheck, EachAllocationEndsAtTheEndOfItsOwnChunk) {
  struct Row {
    size_t size;
    uint64_t alignment;  // what memcheck mode promises: the largest power of two dividing size, <= 256
    uint64_t chunk;
  };
  for (const Row& row : {Row{1000, 8, 2 * kMiB}, Row{1024, 256, 2 * kMiB}, Row{4096 + 4, 4, 2 * kMiB},
                         Row{3, 1, 2 * kMiB}, Row{2 * kMiB, 256, 2 * kMiB}, Row{3 * kMiB, 256, 4 * kMiB}}) {
    void* p = nullptr;
    ASSERT_EQ(cudaMalloc(&p, row.size), cudaSuccess) << row.size;
    const auto start = reinterpret_cast<uint64_t>(p);
    const Range r = range_of(p);
    EXPECT_EQ(r.start, start) << row.size;
    EXPECT_EQ(r.size, row.size) << row.size;
    EXPECT_EQ(r.mapping_size, row.chunk) << row.size;
    EXPECT_EQ(reinterpret_cast<uint64_t>(r.mapping_base) + r.mapping_size, start + row.size)
        << row.size << ": the allocation ends where its chunk's mapping ends";
    EXPECT_EQ(reinterpret_cast<uint64_t>(r.mapping_base) % (2 * kMiB), 0u) << row.size;
    EXPECT_EQ(start % row.alignment, 0u) << row.size;
    // Exactly the size's own alignment (capped by the chunk's): 1000 = 8 x 125 is 8-aligned, not 16.
    EXPECT_EQ(std::min<uint64_t>(lowest_bit(start), 2 * kMiB), std::min<uint64_t>(lowest_bit(row.size), 2 * kMiB))
        << row.size;
    EXPECT_EQ(cudaFree(p), cudaSuccess) << row.size;
  }
}

TEST_F(Memcheck, ChunksAreSeparatedByAnUnmappedGuard) {
  void *a = nullptr, *b = nullptr;
  ASSERT_EQ(cudaMalloc(&a, 1000), cudaSuccess);
  ASSERT_EQ(cudaMalloc(&b, 1000), cudaSuccess);
  const Range ra = range_of(a), rb = range_of(b);
  const uint64_t a_end = reinterpret_cast<uint64_t>(ra.mapping_base) + ra.mapping_size;
  EXPECT_EQ(reinterpret_cast<uint64_t>(rb.mapping_base), a_end + 2 * kMiB) << "b's chunk starts after a's guard";
  // Nothing of the program lives in the guard.
  CUdeviceptr start = 0;
  EXPECT_EQ(cuPointerGetAttribute(&start, CU_POINTER_ATTRIBUTE_RANGE_START_ADDR, a_end), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cudaFree(a), cudaSuccess);
  EXPECT_EQ(cudaFree(b), cudaSuccess);
}

TEST_F(Memcheck, TheTraceNotesEachPlacement) {
  minicuda::trace::Recorder recorder;
  void* p = nullptr;
  ASSERT_EQ(cudaMalloc(&p, 1000), cudaSuccess);
  const Range r = range_of(p);
  const auto chunk = reinterpret_cast<uint64_t>(r.mapping_base);
  char expected[160];
  std::snprintf(expected, sizeof expected,
                "memcheck: 1000 bytes at %#llx (chunk %#llx+2 MiB, guard %#llx+2 MiB), aligned to 8",
                static_cast<unsigned long long>(reinterpret_cast<uint64_t>(p)), static_cast<unsigned long long>(chunk),
                static_cast<unsigned long long>(chunk + 2 * kMiB));
  std::vector<std::string> notes = recorder.texts(minicuda::trace::Layer::Libcuda);
  EXPECT_NE(std::find(notes.begin(), notes.end(), expected), notes.end()) << recorder.tree();
  EXPECT_EQ(cudaFree(p), cudaSuccess);
}

TEST_F(Memcheck, FreeAndPointerQueriesWorkAsWithoutIt) {
  void* p = nullptr;
  EXPECT_EQ(cudaMalloc(&p, 0), cudaSuccess);  // size 0: as without memcheck
  EXPECT_EQ(p, nullptr);
  CUdeviceptr d = 0;
  EXPECT_EQ(cuMemAlloc(&d, 0), CUDA_ERROR_INVALID_VALUE);

  ASSERT_EQ(cudaMalloc(&p, 1000), cudaSuccess);
  const auto start = reinterpret_cast<CUdeviceptr>(p);
  // Interior pointers: the allocation, not the chunk.
  CUdeviceptr base = 0;
  size_t size = 0;
  EXPECT_EQ(cuMemGetAddressRange(&base, &size, start + 999), CUDA_SUCCESS);
  EXPECT_EQ(base, start);
  EXPECT_EQ(size, 1000u);
  EXPECT_EQ(cuMemGetAddressRange(&base, &size, start + 1000), CUDA_ERROR_NOT_FOUND) << "one past the end";
  EXPECT_EQ(cuMemGetAddressRange(&base, &size, start - 1), CUDA_ERROR_NOT_FOUND) << "the chunk before it";
  unsigned type = 0;
  CUcontext ctx = nullptr;
  CUpointer_attribute attributes[] = {CU_POINTER_ATTRIBUTE_MEMORY_TYPE, CU_POINTER_ATTRIBUTE_CONTEXT,
                                      CU_POINTER_ATTRIBUTE_RANGE_START_ADDR};
  void* data[] = {&type, &ctx, &base};
  EXPECT_EQ(cuPointerGetAttributes(3, attributes, data, start + 500), CUDA_SUCCESS);
  EXPECT_EQ(type, CU_MEMORYTYPE_DEVICE);
  EXPECT_NE(ctx, nullptr);
  EXPECT_EQ(base, start);
  cudaPointerAttributes attr{};
  EXPECT_EQ(cudaPointerGetAttributes(&attr, static_cast<char*>(p) + 10), cudaSuccess);
  EXPECT_EQ(attr.type, cudaMemoryTypeDevice);

  EXPECT_EQ(cudaFree(static_cast<char*>(p) + 8), cudaErrorInvalidValue) << "interior";
  EXPECT_EQ(cudaFree(p), cudaSuccess);
  EXPECT_EQ(cudaFree(p), cudaErrorInvalidValue) << "twice";
  EXPECT_EQ(cuMemGetAddressRange(&base, &size, start), CUDA_ERROR_NOT_FOUND) << "freed";
}

TEST_F(Memcheck, MemsetsAndCopiesOfTheAllocationWork) {
  for (size_t n : {size_t{3}, size_t{1000}, size_t{4100}}) {
    void *a = nullptr, *b = nullptr;
    ASSERT_EQ(cudaMalloc(&a, n), cudaSuccess);
    ASSERT_EQ(cudaMalloc(&b, n), cudaSuccess);
    EXPECT_EQ(cudaMemset(a, 0x5a, n), cudaSuccess) << n;
    std::vector<unsigned char> host(n), back(n, 0);
    for (size_t i = 0; i < n; ++i) host[i] = static_cast<unsigned char>(i * 7);
    EXPECT_EQ(cudaMemcpy(host.data(), a, n, cudaMemcpyDeviceToHost), cudaSuccess) << n;
    EXPECT_EQ(host, std::vector<unsigned char>(n, 0x5a)) << n;
    for (size_t i = 0; i < n; ++i) host[i] = static_cast<unsigned char>(i * 7);
    EXPECT_EQ(cudaMemcpy(a, host.data(), n, cudaMemcpyHostToDevice), cudaSuccess) << n;
    EXPECT_EQ(cudaMemcpy(b, a, n, cudaMemcpyDeviceToDevice), cudaSuccess) << n;
    EXPECT_EQ(cudaMemcpy(back.data(), b, n, cudaMemcpyDeviceToHost), cudaSuccess) << n;
    EXPECT_EQ(back, host) << n;
    // One byte too many is refused before the copy, as without memcheck.
    EXPECT_EQ(cudaMemcpy(back.data(), b, n + 1, cudaMemcpyDeviceToHost), cudaErrorInvalidValue) << n;
    EXPECT_EQ(cudaFree(a), cudaSuccess);
    EXPECT_EQ(cudaFree(b), cudaSuccess);
  }
}

TEST_F(Memcheck, InBoundsKernelsGiveTheRightResults) {
  constexpr int n = 1000;  // 4000 bytes: 32-aligned
  std::vector<float> ha(n), hb(n);
  for (int i = 0; i < n; ++i) ha[i] = static_cast<float>(i), hb[i] = 0.5f * static_cast<float>(i);
  minicuda::kernels_test::DeviceArray<float> a(ha), b(hb), c(n);
  add_vectors<<<(n + 127) / 128, 128>>>(a.get(), b.get(), c.get(), n);
  ASSERT_EQ(cudaGetLastError(), cudaSuccess);
  std::vector<float> hc = c.read();
  for (int i = 0; i < n; ++i) ASSERT_EQ(hc[i], 1.5f * static_cast<float>(i)) << i;

  // Every byte of an odd-sized buffer, the last one at the very end of the mapping.
  minicuda::kernels_test::DeviceArray<unsigned char> bytes(3, 0x10);
  bump_bytes<<<1, 32>>>(bytes.get(), 3);
  EXPECT_EQ(bytes.read(), (std::vector<unsigned char>{0x11, 0x11, 0x11}));
  EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
}

// --- reports, read from a child process's stderr ------------------------------------------------

struct Output {
  int status = -1;
  std::string out, err;
};

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// Runs memcheck_scenarios with an environment prefix ("MINICUDA_MEMCHECK=1").
Output run(const std::string& env, const std::string& scenario) {
  // Named after the test and this process: ctest runs tests of the same scenario side by side.
  const std::string stem = ::testing::TempDir() + "memcheck_" +
                           ::testing::UnitTest::GetInstance()->current_test_info()->name() + "_" +
                           std::to_string(getpid()) + "_" + scenario;
  const std::string out = stem + ".out", err = stem + ".err";
  const std::string command = "env " + env + " MINICUDA_TRACE= MINICUDA_FAULT= '" MEMCHECK_SCENARIOS "' " + scenario +
                              " >'" + out + "' 2>'" + err + "'";
  Output o;
  o.status = std::system(command.c_str());
  o.out = slurp(out);
  o.err = slurp(err);
  std::remove(out.c_str());
  std::remove(err.c_str());
  return o;
}

bool has(const std::string& text, const std::string& needle) { return text.find(needle) != std::string::npos; }

size_t count(const std::string& text, const std::string& needle) {
  size_t n = 0;
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++n;
  return n;
}

TEST(MemcheckReport, AOneByteOverrunWriteFaultsAndIsReported) {
  Output o = run("MINICUDA_MEMCHECK=1", "overrun_write");
  ASSERT_EQ(o.status, 0) << o.out << o.err;
  EXPECT_TRUE(has(o.out, "cudaDeviceSynchronize: cudaErrorIllegalAddress")) << o.out;  // 700
  EXPECT_TRUE(has(o.err,
                  "========= Invalid __global__ write\n"
                  "=========     at store_ints\n"
                  "=========     by thread (122,0,0) in block (1,0,0)\n"
                  "=========     Address 0x"))
      << o.err;
  EXPECT_TRUE(has(o.err, " is out of bounds\n=========     and is 1 bytes after the nearest allocation at 0x")) << o.err;
  EXPECT_TRUE(has(o.err, " of size 1000 bytes\n")) << o.err;
  EXPECT_FALSE(has(o.err, "write of size")) << "the access size is not known, so it is not made up";
  EXPECT_TRUE(has(o.err, "=========     Host Frame: make_overrun_buffer()")) << o.err;
  EXPECT_FALSE(has(o.err, "Host Frame: cudaMalloc")) << "minicuda's own frames are left out";
  EXPECT_FALSE(has(o.err, "minicuda::")) << o.err;
  // The fault's address is the first byte past the allocation.
  const size_t at = o.err.find("Address 0x"), nearest = o.err.find("allocation at 0x");
  ASSERT_NE(at, std::string::npos);
  ASSERT_NE(nearest, std::string::npos);
  const uint64_t address = std::stoull(o.err.substr(at + 8), nullptr, 16);
  const uint64_t start = std::stoull(o.err.substr(nearest + 14), nullptr, 16);
  EXPECT_EQ(address, start + 1000);
  // cudaDeviceReset then frees the buffer the program could no longer free: a leak.
  EXPECT_TRUE(has(o.err, "========= LEAK SUMMARY: 1000 bytes leaked in 1 allocations\n")) << o.err;
  EXPECT_TRUE(has(o.err, "========= ERROR SUMMARY: 2 errors\n")) << o.err;
}

TEST(MemcheckReport, AOneByteOverrunReadFaultsAndIsReported) {
  Output o = run("MINICUDA_MEMCHECK=1", "overrun_read");
  ASSERT_EQ(o.status, 0) << o.out << o.err;
  EXPECT_TRUE(has(o.out, "cudaDeviceSynchronize: cudaErrorIllegalAddress")) << o.out;
  EXPECT_TRUE(has(o.err,
                  "========= Invalid __global__ read\n"
                  "=========     at sum_ints\n"
                  "=========     by thread (0,0,0) in block (0,0,0)\n"))
      << o.err;
  EXPECT_TRUE(has(o.err, "and is 1 bytes after the nearest allocation at 0x")) << o.err;
  EXPECT_TRUE(has(o.err, "of size 1000 bytes\n=========     Saved host backtrace up to the CUDA API call at allocation time\n"
                         "=========     Host Frame: make_input_buffer()"))
      << o.err;
}

TEST(MemcheckReport, AnUnderrunIsCaughtOnceItLeavesTheChunk) {
  Output o = run("MINICUDA_MEMCHECK=1", "underrun_write");
  ASSERT_EQ(o.status, 0) << o.out << o.err;
  EXPECT_TRUE(has(o.out, "cudaDeviceSynchronize: cudaErrorIllegalAddress")) << o.out;
  EXPECT_TRUE(has(o.err, "========= Invalid __global__ write\n=========     at store_at\n")) << o.err;
  EXPECT_TRUE(has(o.err, "and is 4 bytes before the nearest allocation at 0x")) << o.err;
  EXPECT_TRUE(has(o.err, " of size 2097152 bytes\n")) << o.err;
  EXPECT_TRUE(has(o.err, "Host Frame: underrun_write()")) << o.err;
}

TEST(MemcheckReport, AnAddressFarFromEveryAllocationHasNoNearestOne) {
  Output o = run("MINICUDA_MEMCHECK=1", "null_write");
  ASSERT_EQ(o.status, 0) << o.out << o.err;
  EXPECT_TRUE(has(o.err,
                  "========= Invalid __global__ write\n"
                  "=========     at store_at\n"
                  "=========     by thread (0,0,0) in block (0,0,0)\n"
                  "=========     Address 0x0 is out of bounds\n"
                  "=========\n"))
      << o.err;
  EXPECT_FALSE(has(o.err, "nearest allocation")) << o.err;
  EXPECT_TRUE(has(o.err, "========= ERROR SUMMARY: 1 error\n")) << o.err;
}

TEST(MemcheckReport, HostFramesNameTheSourceLineWithAddr2line) {
  if (std::system("command -v addr2line >/dev/null 2>&1") != 0) GTEST_SKIP() << "binutils' addr2line is not installed";
  Output o = run("MINICUDA_MEMCHECK=1", "leaks");
  EXPECT_TRUE(has(o.err, "Host Frame: leak_through_runtime() in " MEMCHECK_SCENARIOS_SOURCE ":")) << o.err;
  EXPECT_TRUE(has(o.err, "Host Frame: main in " MEMCHECK_SCENARIOS_SOURCE ":")) << o.err;
}

TEST(MemcheckReport, WithoutAddr2lineFramesKeepTheirNames) {
  Output o = run("PATH=/nonexistent MINICUDA_MEMCHECK=1", "leaks");
  ASSERT_EQ(o.status, 0) << o.err;
  // -rdynamic (minicuda_add_executable): the dynamic symbol table still names the function.
  EXPECT_TRUE(has(o.err, "=========     Host Frame: leak_through_runtime() [0x")) << o.err;
  EXPECT_FALSE(has(o.err, ".cu:")) << o.err;
}

TEST(MemcheckReport, TheLeakReportListsExactlyTheUnfreedAllocations) {
  Output o = run("MINICUDA_MEMCHECK=1", "leaks");
  ASSERT_EQ(o.status, 0) << o.err;
  EXPECT_EQ(count(o.err, "========= Leaked "), 2u) << o.err;
  EXPECT_TRUE(has(o.err, "========= Leaked 100 bytes at 0x")) << o.err;
  EXPECT_TRUE(has(o.err, "========= Leaked 2000 bytes at 0x")) << o.err;
  EXPECT_FALSE(has(o.err, "Leaked 300 bytes")) << "freed";
  EXPECT_FALSE(has(o.err, "allocate_and_free")) << o.err;
  // Each with its call site: cudaMalloc's caller, and cuMemAlloc's.
  const size_t runtime = o.err.find("Leaked 100 bytes"), driver = o.err.find("Leaked 2000 bytes");
  EXPECT_TRUE(has(o.err.substr(runtime, driver - runtime), "Host Frame: leak_through_runtime()")) << o.err;
  EXPECT_TRUE(has(o.err.substr(driver), "Host Frame: leak_through_driver()")) << o.err;
  EXPECT_TRUE(has(o.err, "========= LEAK SUMMARY: 2100 bytes leaked in 2 allocations\n"
                         "========= ERROR SUMMARY: 2 errors\n"))
      << o.err;
}

TEST(MemcheckReport, CudaDeviceResetReportsLeaksOnce) {
  Output o = run("MINICUDA_MEMCHECK=1", "reset_leak");
  ASSERT_EQ(o.status, 0) << o.err;
  const size_t leak = o.err.find("========= Leaked 64 bytes at 0x"), reset = o.err.find("after reset\n");
  ASSERT_NE(leak, std::string::npos) << o.err;
  ASSERT_NE(reset, std::string::npos) << o.err;
  EXPECT_LT(leak, reset) << "reported by cudaDeviceReset, not at exit";
  EXPECT_EQ(count(o.err, "Leaked"), 1u) << o.err;
  EXPECT_TRUE(has(o.err, "Host Frame: leak_before_reset()")) << o.err;
  EXPECT_TRUE(has(o.err.substr(reset), "after reset\n========= ERROR SUMMARY: 1 error\n")) << o.err;
}

TEST(MemcheckReport, ACleanProgramGetsOnlyTheErrorSummary) {
  Output o = run("MINICUDA_MEMCHECK=1", "clean");
  ASSERT_EQ(o.status, 0) << o.err;
  EXPECT_TRUE(has(o.out, "host[0]=7 host[249]=7")) << o.out;
  EXPECT_EQ(o.err, "========= ERROR SUMMARY: 0 errors\n");
}

// A use after free. Without memcheck, as on the H200 (probe_semantics.txt freed.256_write,
// freed.256_read): a small allocation's slots stay mapped while their chunk holds other
// allocations, so the write succeeds and the read gets the old bytes. Memcheck mode gives each
// allocation a chunk of its own and unmaps it at cudaFree, so the same write faults and is
// reported.
TEST(MemcheckReport, AUseAfterFreeOfASmallAllocationIsCaughtOnlyWithMemcheck) {
  Output o = run("MINICUDA_MEMCHECK=", "use_after_free");
  ASSERT_EQ(o.status, 0) << o.err;
  EXPECT_TRUE(has(o.out, "write: cudaDeviceSynchronize: cudaSuccess\n")) << o.out;
  EXPECT_TRUE(has(o.out, "read: cudaDeviceSynchronize: cudaSuccess\nread: 0x5a5a5a5a\n")) << o.out;
  EXPECT_EQ(o.err, "");

  o = run("MINICUDA_MEMCHECK=1", "use_after_free");
  ASSERT_EQ(o.status, 0) << o.err;
  EXPECT_TRUE(has(o.out, "write: cudaDeviceSynchronize: cudaErrorIllegalAddress\n")) << o.out;  // 700
  EXPECT_TRUE(has(o.out, "read: cudaDeviceSynchronize: cudaErrorIllegalAddress\n")) << o.out;  // sticky
  EXPECT_TRUE(has(o.err,
                  "========= Invalid __global__ write\n"
                  "=========     at store_at\n"
                  "=========     by thread (0,0,0) in block (0,0,0)\n"
                  "=========     Address 0x"))
      << o.err;
}

// Without memcheck too, a freed allocation is unmapped when its chunk goes back to the kernel:
// a dedicated one (>= 2 MiB: probe_semantics.txt freed.4194304_write = 700) at once, a small one
// when it was the last of its chunk (the real libcuda gives an emptied chunk back too:
// probe_extra.txt drv.pool.free_256K_d.free_delta = 2097152).
TEST(MemcheckReport, AUseAfterFreeOfAnUnmappedChunkFaultsWithoutMemcheck) {
  for (const char* scenario : {"use_after_free_dedicated", "use_after_free_last"}) {
    Output o = run("MINICUDA_MEMCHECK=", scenario);
    ASSERT_EQ(o.status, 0) << o.err;
    EXPECT_TRUE(has(o.out, "write: cudaDeviceSynchronize: cudaErrorIllegalAddress\n")) << scenario << o.out;
    EXPECT_TRUE(has(o.out, "read: 0x00000000\n")) << scenario << o.out;
    EXPECT_TRUE(has(o.err, "minicuda: CUDA_ERROR_ILLEGAL_ADDRESS: MMU fault: kernel store_at")) << scenario << o.err;
    EXPECT_FALSE(has(o.err, "=========")) << scenario << o.err;
  }
}

// Below the first allocation of a fresh context lies the driver's own memory (context_memory.h):
// without memcheck a kernel reads and writes it without a fault, as on the H200
// (tests/data/h200/va/probe_va_layout.txt: every read from 64 MiB below up succeeded, read 0).
// Memcheck mode leaves that part of the VA space unmapped, so the same read is reported.
TEST(MemcheckReport, AnAccessBelowTheFirstAllocationIsCaughtOnlyWithMemcheck) {
  Output o = run("MINICUDA_MEMCHECK=", "below_first_allocation");
  ASSERT_EQ(o.status, 0) << o.err;
  EXPECT_TRUE(has(o.out, "read: cudaDeviceSynchronize: cudaSuccess\nread: 0\n")) << o.out;
  EXPECT_TRUE(has(o.out, "write: cudaDeviceSynchronize: cudaSuccess\n")) << o.out;
  EXPECT_TRUE(has(o.out, "read back: cudaDeviceSynchronize: cudaSuccess\nread back: 42\n")) << o.out;
  EXPECT_EQ(o.err, "");

  o = run("MINICUDA_MEMCHECK=1", "below_first_allocation");
  ASSERT_EQ(o.status, 0) << o.err;
  EXPECT_TRUE(has(o.out, "read: cudaDeviceSynchronize: cudaErrorIllegalAddress\n")) << o.out;  // 700
  EXPECT_TRUE(has(o.err,
                  "========= Invalid __global__ read\n"
                  "=========     at read_at\n"
                  "=========     by thread (0,0,0) in block (0,0,0)\n"
                  "=========     Address 0x"))
      << o.err;
  EXPECT_TRUE(has(o.err, "is out of bounds\n=========     and is 2097152 bytes before the nearest allocation at 0x"))
      << o.err;
}

TEST(MemcheckReport, WithoutTheVariableNothingIsReported) {
  // The same overrun lands in the 512-byte slot's padding of a shared chunk: unnoticed, as on a
  // real GPU without compute-sanitizer.
  Output o = run("MINICUDA_MEMCHECK=", "overrun_write");
  ASSERT_EQ(o.status, 0) << o.err;
  EXPECT_TRUE(has(o.out, "cudaDeviceSynchronize: cudaSuccess")) << o.out;
  EXPECT_EQ(o.err, "");
  o = run("MINICUDA_MEMCHECK=", "leaks");
  EXPECT_EQ(o.err, "");
}

}  // namespace
