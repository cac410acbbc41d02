// Tests of minicuda::libc (runtime/libc): glibc's malloc model on the simulated kernel.
//
// The key test replays shared/reference/host/host_malloc.c and checks that minicuda makes the
// system calls strace measured under glibc 2.36 (shared/reference/host/strace.txt), with the
// same sizes relative to the first program break B:
//   brk(NULL) = B; brk(B+0x21000); mmap(200704); munmap(200704); brk(B+0x6a000); brk(B+0x21000)
//
// All tests of this binary share the simulated process 1000 unless they run in a fresh one
// (FreshProcess below), so only those may assume an empty heap.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "host_malloc.h"

#include "minicuda/kernel.h"
#include "minicuda/libc.h"
#include "minicuda/trace.h"

namespace minicuda {
namespace {

namespace kernel = minicuda::kernel;
using libc::malloc_stats;
using trace::Layer;

uintptr_t addr(const void* p) { return reinterpret_cast<uintptr_t>(p); }
size_t chunk_size_field(void* mem) { return reinterpret_cast<size_t*>(mem)[-1]; }
constexpr size_t request2size(size_t n) { return n + 8 + 15 < 32 ? 32 : (n + 8 + 15) & ~size_t{15}; }

// Runs the test as a new simulated process with its own address space and arena.
class FreshProcess : public ::testing::Test {
 protected:
  std::unique_ptr<kernel::Process> process_ = kernel::spawn_process();
  kernel::ProcessScope scope_{*process_};
  uint64_t brk() { return kernel::current().mm().brk(); }
};

// The system calls a recorder saw, as call text (the kernel prints them like strace).
std::vector<trace::Event> kernel_calls(const trace::Recorder& recorder) {
  std::vector<trace::Event> calls;
  for (const trace::Event& e : recorder.events()) {
    if (e.layer == Layer::Kernel && e.kind == trace::Kind::Call) calls.push_back(e);
  }
  return calls;
}

std::vector<std::string> libc_notes(const trace::Recorder& recorder) {
  std::vector<std::string> notes;
  for (const trace::Event& e : recorder.events()) {
    if (e.layer == Layer::Libc && e.kind == trace::Kind::Note) notes.push_back(e.text);
  }
  return notes;
}

// --- host_malloc.c, step by step ------------------------------------------------------------

// The state after each step, asserted through malloc_stats() and the kernel's break alone.
TEST_F(FreshProcess, HostMallocSequenceMovesTheBreakLikeGlibc) {
  void* a = libc::malloc(64);
  const uintptr_t B = malloc_stats().heap_start;
  ASSERT_NE(B, 0u);
  EXPECT_EQ(brk(), B + 0x21000);  // 656 (tcache struct) + 131072 (top_pad) + 32, page-rounded
  EXPECT_EQ(addr(a), B + 656 + 16);  // after the tcache_perthread_struct chunk, as in glibc
  EXPECT_EQ(chunk_size_field(a), 80u | 1u);  // 80 B chunk, PREV_INUSE
  EXPECT_EQ(malloc_stats().top_size, 0x21000u - 656 - 80);

  void* b = libc::malloc(64);
  EXPECT_EQ(addr(b), addr(a) + 80);
  EXPECT_EQ(brk(), B + 0x21000);
  EXPECT_EQ(malloc_stats().top_size, 0x21000u - 656 - 160);

  void* c = libc::malloc(200000);
  EXPECT_EQ(malloc_stats().mmapped_chunks, 1u);
  EXPECT_EQ(malloc_stats().mmapped_bytes, 200704u);  // ALIGN_UP(200016 + 8, 4096): 49 pages
  EXPECT_EQ(chunk_size_field(c), 200704u | 2u);      // IS_MMAPPED
  EXPECT_EQ(libc::malloc_usable_size(c), 200704u - 16);
  EXPECT_EQ(addr(c) % 4096, 16u);
  EXPECT_EQ(brk(), B + 0x21000);

  void* d = libc::malloc(100000);
  EXPECT_EQ(addr(d), addr(b) + 80);  // fits in the 132 KiB top: no syscall
  EXPECT_EQ(brk(), B + 0x21000);
  EXPECT_EQ(malloc_stats().top_size, 0x21000u - 656 - 160 - 100016);

  libc::free(c);
  EXPECT_EQ(malloc_stats().mmapped_chunks, 0u);
  EXPECT_EQ(malloc_stats().mmap_threshold, 200704u);  // raised to the freed chunk's size
  EXPECT_EQ(malloc_stats().trim_threshold, 401408u);

  c = libc::malloc(200000);  // 200016 < 200704: now from the heap
  EXPECT_EQ(malloc_stats().mmapped_chunks, 0u);
  EXPECT_EQ(addr(c), addr(d) + 100016);
  EXPECT_EQ(brk(), B + 0x6a000);  // + ALIGN_UP(200016 + 131072 + 32 - 34336, 4096) = 0x49000
  EXPECT_EQ(malloc_stats().heap_bytes, 0x6a000u);

  libc::free(a);
  libc::free(b);
  libc::free(c);
  EXPECT_EQ(brk(), B + 0x6a000);  // top 333344 B < trim_threshold 401408: no trim yet
  libc::free(d);
  EXPECT_EQ(brk(), B + 0x21000);  // top 433520 B: trim 0x49000 back to the first break
  libc::MallocStats s = malloc_stats();
  EXPECT_EQ(s.heap_bytes, 0x21000u);
  EXPECT_EQ(s.top_size, 0x21000u - 656);
  EXPECT_EQ(s.in_use_bytes, 656u);  // only the tcache_perthread_struct chunk is left
  EXPECT_EQ(s.free_chunks, 0u);
  EXPECT_TRUE(libc::malloc_check_heap());
}

// The same program, asserted as the exact system-call trace (strace's text).
TEST_F(FreshProcess, HostMallocSequenceMakesTheStraceSyscalls) {
  trace::Recorder recorder;
  void* d = minicuda::testing::run_host_malloc_c().d;

  const uintptr_t B = malloc_stats().heap_start;
  std::vector<trace::Event> calls = kernel_calls(recorder);
  ASSERT_EQ(calls.size(), 6u) << recorder.tree();
  const std::string mapping = calls[2].result;
  std::vector<std::string> expected = {
      "brk(NULL)",
      fmt::format("brk({:#x})", B + 0x21000),
      "mmap(NULL, 200704, PROT_READ|PROT_WRITE, MAP_PRIVATE|MAP_ANONYMOUS, -1, 0)",
      fmt::format("munmap({}, 200704)", mapping),
      fmt::format("brk({:#x})", B + 0x6a000),
      fmt::format("brk({:#x})", B + 0x21000),
  };
  for (size_t i = 0; i < expected.size(); ++i) EXPECT_EQ(calls[i].text, expected[i]) << recorder.tree();
  EXPECT_EQ(calls[0].result, fmt::format("{:#x}", B));
  EXPECT_EQ(calls[1].result, fmt::format("{:#x}", B + 0x21000));
  EXPECT_EQ(calls[3].result, "0");

  // Each syscall is nested in the libc call that made it.
  std::vector<std::string> parents;
  for (const trace::Event& call : calls) {
    for (const trace::Event& e : recorder.events())
      if (e.seq == call.parent) parents.push_back(e.text);
  }
  EXPECT_EQ(parents, (std::vector<std::string>{"malloc(64)", "malloc(64)", "malloc(200000)",
                                               fmt::format("free({:#x})", std::stoull(mapping, nullptr, 16) + 16),
                                               "malloc(200000)", fmt::format("free({:#x})", addr(d))}));

  // The notes that explain each decision.
  std::vector<std::string> notes = libc_notes(recorder);
  for (const char* want : {"656 B > top: grow heap by brk(+0x21000) (top_pad 128 KiB)",
                           "top has 134512 B: carve 80 B chunk, no syscall",
                           "200016 B >= mmap_threshold 131072: mmap",
                           "free mmapped chunk: threshold -> 200704, trim -> 401408",
                           "200016 B > top: grow heap by brk(+0x49000) (top_pad 128 KiB)",
                           "top 433520 B >= trim_threshold: trim 0x49000 B"}) {
    EXPECT_NE(std::find(notes.begin(), notes.end(), want), notes.end()) << want << "\n" << recorder.tree();
  }
}

TEST_F(FreshProcess, MallocCallIsTracedInCallSyntax) {
  trace::Recorder recorder;
  void* p = libc::malloc(64);
  std::vector<trace::Event> events = recorder.events();
  ASSERT_FALSE(events.empty());
  EXPECT_EQ(events[0].layer, Layer::Libc);
  EXPECT_EQ(events[0].text, "malloc(64)");
  EXPECT_EQ(events[0].result, fmt::format("{:#x}", addr(p)));
  libc::free(p);
}

// --- chunks ----------------------------------------------------------------------------------

TEST_F(FreshProcess, PointersAre16AlignedWithGlibcChunkSizes) {
  std::vector<void*> blocks;
  for (size_t n = 0; n <= 600; n += 7) {
    void* p = libc::malloc(n);
    ASSERT_NE(p, nullptr);
    EXPECT_EQ(addr(p) % 16, 0u) << n;
    EXPECT_EQ(chunk_size_field(p) & ~size_t{7}, request2size(n)) << n;
    EXPECT_EQ(libc::malloc_usable_size(p), request2size(n) - 8) << n;  // 8 B in-use overhead
    std::memset(p, 0x5a, libc::malloc_usable_size(p));  // the whole usable size is ours
    blocks.push_back(p);
  }
  EXPECT_EQ(libc::malloc_usable_size(libc::malloc(0)), 24u);  // malloc(0): a 32 B chunk
  EXPECT_TRUE(libc::malloc_check_heap());
  for (void* p : blocks) libc::free(p);
  EXPECT_TRUE(libc::malloc_check_heap());
  EXPECT_EQ(libc::malloc_usable_size(nullptr), 0u);
}

TEST_F(FreshProcess, SecondSmallMallocMakesNoSyscall) {
  void* first = libc::malloc(64);
  trace::Recorder recorder;
  void* second = libc::malloc(64);
  EXPECT_TRUE(kernel_calls(recorder).empty()) << recorder.tree();
  EXPECT_EQ(addr(second), addr(first) + 80);
}

TEST_F(FreshProcess, FreeCoalescesNeighboursAndTop) {
  void* a = libc::malloc(100);  // 112 B chunks
  void* b = libc::malloc(100);
  void* c = libc::malloc(100);
  void* guard = libc::malloc(100);
  libc::free(a);
  libc::free(c);
  EXPECT_EQ(malloc_stats().free_chunks, 2u);
  EXPECT_EQ(chunk_size_field(b) & 1, 0u);  // a is free: b's PREV_INUSE is clear
  libc::free(b);                           // merges with a before and c after
  EXPECT_EQ(malloc_stats().free_chunks, 1u);
  EXPECT_EQ(malloc_stats().free_bytes, 336u);
  EXPECT_TRUE(libc::malloc_check_heap());
  void* big = libc::malloc(300);  // a 320 B chunk: the merged chunk, whole (16 B left is too few)
  EXPECT_EQ(big, a);
  EXPECT_EQ(malloc_stats().free_chunks, 0u);

  size_t top_before = malloc_stats().top_size;
  libc::free(guard);  // the last chunk before top merges into top
  EXPECT_EQ(malloc_stats().top_size, top_before + 112);
  EXPECT_EQ(malloc_stats().free_chunks, 0u);
  libc::free(big);
  EXPECT_TRUE(libc::malloc_check_heap());
}

TEST_F(FreshProcess, FreedChunkIsSplitForSmallerRequests) {
  void* a = libc::malloc(1000);  // 1008 B chunk
  void* guard = libc::malloc(16);
  libc::free(a);
  void* p = libc::malloc(100);  // 112 B from the front of the free chunk, 896 B stay free
  EXPECT_EQ(p, a);
  EXPECT_EQ(malloc_stats().free_bytes, 896u);
  EXPECT_TRUE(libc::malloc_check_heap());
  libc::free(p);
  libc::free(guard);
}

// --- calloc / realloc ------------------------------------------------------------------------

TEST_F(FreshProcess, CallocZeroesReusedMemory) {
  void* p = libc::malloc(256);
  void* guard = libc::malloc(16);
  std::memset(p, 0xab, 256);
  libc::free(p);
  char* q = static_cast<char*>(libc::calloc(16, 16));
  EXPECT_EQ(static_cast<void*>(q), p);
  for (size_t i = 0; i < libc::malloc_usable_size(q); ++i) ASSERT_EQ(q[i], 0) << i;
  char* big = static_cast<char*>(libc::calloc(1, 1 << 20));  // mmapped: zero from the kernel
  ASSERT_NE(big, nullptr);
  for (size_t i = 0; i < (1 << 20); i += 4096) ASSERT_EQ(big[i], 0);
  libc::free(big);
  libc::free(q);
  libc::free(guard);
}

TEST(Calloc, OverflowReturnsNullWithEnomem) {
  errno = 0;
  EXPECT_EQ(libc::calloc(SIZE_MAX / 2 + 1, 2), nullptr);
  EXPECT_EQ(errno, ENOMEM);
  errno = 0;
  EXPECT_EQ(libc::malloc(SIZE_MAX - 8), nullptr);
  EXPECT_EQ(errno, ENOMEM);
}

TEST_F(FreshProcess, ReallocGrowsShrinksAndMoves) {
  char* p = static_cast<char*>(libc::realloc(nullptr, 40));  // realloc(NULL, n) = malloc(n)
  ASSERT_NE(p, nullptr);
  for (int i = 0; i < 40; ++i) p[i] = static_cast<char>(i);
  char* grown = static_cast<char*>(libc::realloc(p, 400));  // next chunk is top: in place
  EXPECT_EQ(grown, p);
  EXPECT_EQ(libc::malloc_usable_size(grown), 408u);
  void* neighbour = libc::malloc(16);
  char* moved = static_cast<char*>(libc::realloc(grown, 4000));  // blocked: malloc+copy+free
  EXPECT_NE(moved, grown);
  for (int i = 0; i < 40; ++i) ASSERT_EQ(moved[i], static_cast<char>(i));
  EXPECT_EQ(malloc_stats().free_chunks, 1u);  // the old 416 B chunk
  char* shrunk = static_cast<char*>(libc::realloc(moved, 100));  // in place, tail freed to top
  EXPECT_EQ(shrunk, moved);
  EXPECT_EQ(libc::malloc_usable_size(shrunk), 104u);
  for (int i = 0; i < 40; ++i) ASSERT_EQ(shrunk[i], static_cast<char>(i));
  EXPECT_TRUE(libc::malloc_check_heap());
  size_t in_use = malloc_stats().in_use_bytes;
  EXPECT_EQ(libc::realloc(shrunk, 0), nullptr);  // realloc(p, 0) frees p
  EXPECT_EQ(malloc_stats().in_use_bytes, in_use - 112);
  libc::free(neighbour);
  EXPECT_TRUE(libc::malloc_check_heap());
}

TEST_F(FreshProcess, ReallocOfMmappedChunkCopies) {
  char* p = static_cast<char*>(libc::malloc(300000));
  EXPECT_EQ(malloc_stats().mmapped_chunks, 1u);
  std::memset(p, 7, 300000);
  char* q = static_cast<char*>(libc::realloc(p, 600000));
  ASSERT_NE(q, nullptr);
  for (size_t i = 0; i < 300000; i += 997) ASSERT_EQ(q[i], 7);
  EXPECT_EQ(malloc_stats().mmapped_chunks, 1u);
  EXPECT_EQ(libc::realloc(q, 1000), q);  // big enough already: kept
  libc::free(q);
  EXPECT_EQ(malloc_stats().mmapped_chunks, 0u);
}

// --- the dynamic mmap threshold ----------------------------------------------------------------

TEST_F(FreshProcess, ThresholdRisesOnlyUpTo32MiB) {
  constexpr size_t kMiB = 1 << 20;
  void* p = libc::malloc(32 * kMiB - 24);  // chunk exactly 32 MiB = DEFAULT_MMAP_THRESHOLD_MAX
  EXPECT_EQ(malloc_stats().mmapped_bytes, 32 * kMiB);
  libc::free(p);
  EXPECT_EQ(malloc_stats().mmap_threshold, 32 * kMiB);
  EXPECT_EQ(malloc_stats().trim_threshold, 64 * kMiB);

  p = libc::malloc(40 * kMiB);
  EXPECT_EQ(malloc_stats().mmapped_chunks, 1u);
  libc::free(p);  // larger than the maximum: threshold stays
  EXPECT_EQ(malloc_stats().mmap_threshold, 32 * kMiB);
  EXPECT_EQ(malloc_stats().trim_threshold, 64 * kMiB);
}

TEST_F(FreshProcess, ThresholdDoesNotMoveForSmallerMmappedChunks) {
  void* big = libc::malloc(400000);
  libc::free(big);
  size_t raised = malloc_stats().mmap_threshold;
  EXPECT_EQ(raised, 401408u);
  void* heap = libc::malloc(300000);  // below the new threshold: heap, not mmap
  EXPECT_EQ(malloc_stats().mmapped_chunks, 0u);
  libc::free(heap);
  EXPECT_EQ(malloc_stats().mmap_threshold, raised);
}

// --- bad pointers ------------------------------------------------------------------------------

// Frees p and returns what the simulated libc printed on stderr.
std::string free_and_capture(void* p) {
  ::testing::internal::CaptureStderr();
  libc::free(p);
  return ::testing::internal::GetCapturedStderr();
}

TEST_F(FreshProcess, BadFreesAreReportedAndLeaveTheHeapIntact) {
  char* p = static_cast<char*>(libc::malloc(64));
  char* q = static_cast<char*>(libc::malloc(64));
  char* big = static_cast<char*>(libc::malloc(1 << 20));
  std::memset(p, 0, 64);
  std::memset(q, 0x11, 64);

  EXPECT_EQ(free_and_capture(p + 1), "free(): invalid pointer\n");  // misaligned
  EXPECT_EQ(free_and_capture(p + 16), "free(): invalid size\n");    // interior: zeros as header
  // An interior pointer whose bytes pass glibc's header checks (a 32 B in-use chunk followed by
  // one more): only minicuda's in-use set tells it apart.
  const size_t fake_size = 32 | 1;
  std::memcpy(p + 24, &fake_size, sizeof fake_size);
  std::memcpy(p + 56, &fake_size, sizeof fake_size);
  EXPECT_EQ(free_and_capture(p + 32), "free(): invalid pointer\n");
  alignas(16) char stack[64];
  EXPECT_EQ(free_and_capture(stack + 16), "free(): invalid pointer\n");
  EXPECT_EQ(free_and_capture(reinterpret_cast<void*>(0x123456789abcdef0)), "free(): invalid pointer\n");
  EXPECT_EQ(free_and_capture(big + 4096), "munmap_chunk(): invalid pointer\n");
  EXPECT_EQ(free_and_capture(p), "");
  EXPECT_EQ(free_and_capture(p), "double free or corruption (!prev)\n");
  ::testing::internal::CaptureStderr();
  EXPECT_EQ(libc::realloc(q + 16, 100), nullptr);
  EXPECT_EQ(::testing::internal::GetCapturedStderr(), "realloc(): invalid pointer\n");
  EXPECT_EQ(libc::malloc_usable_size(q + 16), 0u);
  EXPECT_EQ(malloc_stats().bad_frees, 8u);

  EXPECT_TRUE(libc::malloc_check_heap());
  for (int i = 0; i < 64; ++i) ASSERT_EQ(q[i], 0x11);
  char* again = static_cast<char*>(libc::malloc(64));
  EXPECT_EQ(again, p);  // the chunk freed once is reused
  std::memset(again, 0x22, 64);
  libc::free(again);
  libc::free(q);
  libc::free(big);
  EXPECT_EQ(malloc_stats().mmapped_chunks, 0u);
  EXPECT_EQ(malloc_stats().in_use_bytes, 656u);
  EXPECT_TRUE(libc::malloc_check_heap());
}

TEST(BadFree, DoubleFreeInTheSharedProcessIsCounted) {
  void* p = libc::malloc(48);
  void* guard = libc::malloc(48);
  size_t before = malloc_stats().bad_frees;
  libc::free(p);
  ::testing::internal::CaptureStderr();
  libc::free(p);
  EXPECT_EQ(::testing::internal::GetCapturedStderr(), "double free or corruption (!prev)\n");
  EXPECT_EQ(malloc_stats().bad_frees, before + 1);
  libc::free(guard);
  EXPECT_TRUE(libc::malloc_check_heap());
}

// --- processes and threads ---------------------------------------------------------------------

TEST(Processes, EachProcessHasItsOwnArena) {
  auto one = kernel::spawn_process();
  auto two = kernel::spawn_process();
  void* p1;
  {
    kernel::ProcessScope scope(*one);
    p1 = libc::malloc(1000);
    EXPECT_EQ(malloc_stats().in_use_bytes, 656u + 1008);
  }
  {
    kernel::ProcessScope scope(*two);
    EXPECT_EQ(malloc_stats().in_use_bytes, 0u);  // nothing allocated here yet
    void* p2 = libc::malloc(1000);
    EXPECT_NE(p1, p2);
    libc::free(p2);
  }
  kernel::ProcessScope scope(*one);
  libc::free(p1);
  EXPECT_EQ(malloc_stats().in_use_bytes, 656u);
}

TEST(Threads, FourThreadsStressTheArena) {
  constexpr int kThreads = 4, kOps = 10000, kSlots = 64;
  libc::free(libc::malloc(1));  // the first malloc of the process leaves the tcache struct chunk
  size_t in_use_before = malloc_stats().in_use_bytes;
  std::vector<std::thread> threads;
  std::atomic<int> failures{0};
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([t, &failures] {
      std::mt19937 rng(1234 + t);
      struct Block {
        unsigned char* p = nullptr;
        size_t n = 0;
        unsigned char pattern = 0;
      };
      std::vector<Block> slots(kSlots);
      auto check_and_free = [&](Block& b) {
        for (size_t i = 0; i < b.n; ++i) {
          if (b.p[i] != static_cast<unsigned char>(b.pattern + i)) {
            ++failures;
            break;
          }
        }
        libc::free(b.p);
        b = Block{};
      };
      for (int op = 0; op < kOps; ++op) {
        Block& b = slots[rng() % kSlots];
        if (b.p) {
          check_and_free(b);
          continue;
        }
        b.n = rng() % 100 == 0 ? 150000 + rng() % 100000 : 1 + rng() % 2000;
        b.p = static_cast<unsigned char*>(libc::malloc(b.n));
        if (b.p == nullptr || addr(b.p) % 16 != 0) {
          ++failures;
          b = Block{};
          continue;
        }
        b.pattern = static_cast<unsigned char>(rng());
        for (size_t i = 0; i < b.n; ++i) b.p[i] = static_cast<unsigned char>(b.pattern + i);
      }
      for (Block& b : slots)
        if (b.p) check_and_free(b);
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(failures.load(), 0);
  EXPECT_TRUE(libc::malloc_check_heap());
  EXPECT_EQ(malloc_stats().in_use_bytes, in_use_before);
}

}  // namespace
}  // namespace minicuda
