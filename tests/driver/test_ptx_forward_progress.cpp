// Forward progress within a warp (independent thread scheduling, sm_70+): lanes of one warp that
// spin until another lane of the same warp acts - a lock taken with atom.cas, a flag read with
// ld.volatile - finish, as they do on the H200. tests/data/h200/its holds the kernels (spin.cu,
// loops.cu), nvcc's PTX of them, ptxas' SASS (where it puts YIELD) and the probe's answers. The
// JIT marks such loops as yield points (driver/ptx/src/yield_points.h); a loop that waits on
// nothing gets none, and there the lanes of a diverged warp reconverge before any runs ahead.
#include <algorithm>
#include <fstream>
#include <numeric>
#include <sstream>
#include <string>
#include <vector>

#include "driver_fixtures.h"
#include "minicuda/ptx/ptx.h"
#include "module_probe.h"

namespace minicuda::testing {
namespace {

const std::string kDir = std::string(MINICUDA_H200_DATA) + "/its";

std::string text_of(const std::string& name) {
  std::ifstream in(kDir + "/" + name);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string recorded_its(const std::string& key) { return recorded_in(kDir + "/probe_its.txt", key); }

// "0 1 2 ..." of v's first n values.
std::string joined(const std::vector<int>& v, size_t n) {
  std::string out;
  for (size_t i = 0; i < n && i < v.size(); ++i) out += (i ? " " : "") + std::to_string(v[i]);
  return out;
}

class PtxForwardProgress : public Ready {
 protected:
  void SetUp() override {
    Ready::SetUp();
    ASSERT_EQ(cuModuleLoadData(&module_, text_of("spin.ptx").c_str()), CUDA_SUCCESS);
  }
  void TearDown() override {
    if (module_ != nullptr) {
      EXPECT_EQ(cuModuleUnload(module_), CUDA_SUCCESS);
    }
  }
  CUdeviceptr alloc(size_t bytes, int fill) {
    CUdeviceptr p = 0;
    EXPECT_EQ(cuMemAlloc_v2(&p, bytes), CUDA_SUCCESS);
    EXPECT_EQ(cuMemsetD8_v2(p, static_cast<unsigned char>(fill), bytes), CUDA_SUCCESS);
    return p;
  }
  template <typename T>
  std::vector<T> read(CUdeviceptr p, size_t n) {
    std::vector<T> h(n);
    EXPECT_EQ(cuMemcpyDtoH_v2(h.data(), p, n * sizeof(T)), CUDA_SUCCESS);
    return h;
  }
  void launch(const char* name, unsigned blocks, unsigned threads, std::vector<void*> args) {
    CUfunction f = nullptr;
    ASSERT_EQ(cuModuleGetFunction(&f, module_, name), CUDA_SUCCESS);
    ASSERT_EQ(cuLaunchKernel(f, blocks, 1, 1, threads, 1, 1, 0, nullptr, args.data(), nullptr), CUDA_SUCCESS);
    ASSERT_EQ(cuCtxSynchronize(), CUDA_SUCCESS);
  }
  // Runs a lock kernel as the probe does; the count and the order in which threads took the lock.
  std::pair<int, std::vector<int>> run_lock(const char* name, unsigned blocks, unsigned threads) {
    const size_t n = size_t{blocks} * threads;
    CUdeviceptr lock = alloc(4, 0), count = alloc(4, 0), order = alloc(4 * n, 0xff);
    launch(name, blocks, threads, {&lock, &count, &order});
    std::pair<int, std::vector<int>> out{read<int>(count, 1)[0], read<int>(order, n)};
    cuMemFree_v2(lock), cuMemFree_v2(count), cuMemFree_v2(order);
    return out;
  }
  CUmodule module_ = nullptr;
};

TEST_F(PtxForwardProgress, ALockTakenByEachLaneOfAWarpInTurnIsTakenInTheH200sOrder) {
  // One warp (or part of one): the H200 hands the lock from lane to lane in order, and so does
  // minicuda - the lanes that lose the atom.cas yield to the one that won.
  for (const char* name : {"spin_do_while", "spin_done_flag"}) {
    for (unsigned threads : {32u, 8u}) {
      const std::string key = std::string("ptx.") + name + ".1x" + std::to_string(threads);
      if (recorded_its(key).empty()) continue;  // spin_done_flag ran 1x32 only
      SCOPED_TRACE(key);
      auto [count, order] = run_lock(name, 1, threads);
      EXPECT_EQ("done count " + std::to_string(count) + " order " + joined(order, 64), recorded_its(key));
    }
  }
}

TEST_F(PtxForwardProgress, ALockSharedByTwoBlocksOfTwoWarpsIsTakenByEveryThreadOnce) {
  // Across warps and blocks the order is the schedulers' (the H200's differs from run to run);
  // every thread takes the lock exactly once.
  for (const char* name : {"spin_do_while", "spin_done_flag"}) {
    SCOPED_TRACE(name);
    const std::string recorded = recorded_its(std::string("ptx.") + name + ".2x64");
    ASSERT_EQ(recorded.rfind("done count 128 order", 0), 0u) << recorded;
    auto [count, order] = run_lock(name, 2, 64);
    EXPECT_EQ(count, 128);
    std::sort(order.begin(), order.end());
    std::vector<int> all(128);
    std::iota(all.begin(), all.end(), 0);
    EXPECT_EQ(order, all);
  }
}

TEST_F(PtxForwardProgress, ALaneThatWaitsForAnotherLanesFlagSeesIt) {
  // Whether lane 0 reads the flag before lane 31's store lands ("spun") depends on the memory's
  // latency, which the simulator does not model; that it sees the flag does not.
  CUdeviceptr flag = alloc(4, 0), out = alloc(8, 0);
  launch("lane_waits_for_lane", 1, 32, {&flag, &out});
  EXPECT_EQ(read<int>(out, 2)[0], 1);
  EXPECT_EQ(recorded_its("ptx.lane_waits_for_lane.1x32").rfind("done out 1 ", 0), 0u);
  cuMemFree_v2(flag), cuMemFree_v2(out);
}

TEST_F(PtxForwardProgress, ALaneSpinningBelowTheLaneItWaitsForYieldsToIt) {
  // Lane 0's loop comes first in the program, so the lowest-PC rule alone would run it forever;
  // its back edge is a yield point, so lanes 1-31 run, and lane 31 sets the flag.
  static const char* kWaitBelow = R"(
.version 8.0
.target sm_90
.address_size 64
.visible .entry wait_below(.param .u64 flag, .param .u64 out)
{
  .reg .pred %p<4>;
  .reg .b32 %r<4>;
  .reg .b64 %rd<3>;
  ld.param.u64 %rd1, [flag];
  ld.param.u64 %rd2, [out];
  mov.u32 %r1, %laneid;
  setp.ne.u32 %p1, %r1, 0;
  @%p1 bra NOT_LANE_0;
SPIN:
  ld.volatile.global.u32 %r2, [%rd1];
  setp.eq.u32 %p2, %r2, 0;
  @%p2 bra SPIN;
  st.global.u32 [%rd2], %r2;
  ret;
NOT_LANE_0:
  setp.ne.u32 %p3, %r1, 31;
  @%p3 bra DONE;
  mov.u32 %r3, 7;
  st.volatile.global.u32 [%rd1], %r3;
DONE:
  ret;
}
)";
  CUmodule m = nullptr;
  ASSERT_EQ(cuModuleLoadData(&m, kWaitBelow), CUDA_SUCCESS);
  CUfunction f = nullptr;
  ASSERT_EQ(cuModuleGetFunction(&f, m, "wait_below"), CUDA_SUCCESS);
  CUdeviceptr flag = alloc(4, 0), out = alloc(4, 0);
  void* args[] = {&flag, &out};
  ASSERT_EQ(cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 0, nullptr, args, nullptr), CUDA_SUCCESS);
  ASSERT_EQ(cuCtxSynchronize(), CUDA_SUCCESS);
  EXPECT_EQ(read<int>(out, 1)[0], 7);
  cuMemFree_v2(flag), cuMemFree_v2(out);
  EXPECT_EQ(cuModuleUnload(m), CUDA_SUCCESS);
}

TEST_F(PtxForwardProgress, TheShortLanesOfADivergentLoopWaitForTheLongOnes) {
  // Half the warp loops n times, half once. The loop waits on nothing, so it is no yield point:
  // every lane leaves it at the same clock, on the H200 (n = 100 and 100000) and here.
  for (int n : {100, 5000}) {
    SCOPED_TRACE(n);
    CUdeviceptr leave = alloc(256, 0), after = alloc(256, 0), sink = alloc(128, 0);
    launch("divergent_loop", 1, 32, {&leave, &after, &n, &sink});
    std::vector<long long> l = read<long long>(leave, 32), a = read<long long>(after, 32);
    EXPECT_EQ(std::count(l.begin(), l.end(), l[0]), 32) << "lane 16 left at " << l[16] << ", lane 0 at " << l[0];
    EXPECT_EQ(std::count(a.begin(), a.end(), a[0]), 32);
    EXPECT_GT(a[0], l[0]);
    cuMemFree_v2(leave), cuMemFree_v2(after), cuMemFree_v2(sink);
  }
  const std::string h200 = recorded_its("ptx.divergent_loop.n100000.leave_cycles");
  ASSERT_FALSE(h200.empty());
  std::istringstream cycles(h200);
  std::vector<long long> v{std::istream_iterator<long long>(cycles), std::istream_iterator<long long>()};
  ASSERT_EQ(v.size(), 32u);
  EXPECT_EQ(std::count(v.begin(), v.end(), v[0]), 32);
}

// Which loops are yield points: the JIT's answer beside ptxas' (spin_sass.txt and loops_sass.txt,
// where a loop with a YIELD is one ptxas marked).
TEST(PtxYieldPoints, TheLoopsThatWaitOnAnotherThreadAreTheOnesPtxasMarks) {
  struct Expect {
    const char* file;
    const char* kernel;
    bool yields;  // ptxas' answer, except where noted
  };
  const Expect expected[] = {
      {"spin.ptx", "spin_do_while", true},        {"spin.ptx", "spin_done_flag", true},
      {"spin.ptx", "lane_waits_for_lane", true},  {"spin.ptx", "divergent_loop", false},
      {"loops.ptx", "counted_atomic", false},     {"loops.ptx", "pointer_chase", false},
      {"loops.ptx", "counted_volatile", false},   {"loops.ptx", "shared_atomic", false},
      {"loops.ptx", "store_loop", false},
      // ptxas gives this ld.acquire spin no YIELD; minicuda does, so that a lane waiting this way
      // for a lane of its own warp cannot hang the simulator (a yield changes nothing else).
      {"loops.ptx", "acquire_spin", true},
  };
  for (const char* file : {"spin.ptx", "loops.ptx"}) {
    ptx::CompileResult r = ptx::compile(text_of(file), ptx::CompileOptions{});
    ASSERT_EQ(r.status, ptx::Status::Ok) << r.error_log;
    for (const ptx::CompiledKernel& k : r.kernels) {
      const std::string listing = ptx::disassemble(k);
      auto it = std::find_if(std::begin(expected), std::end(expected),
                             [&](const Expect& e) { return k.name == e.kernel; });
      ASSERT_NE(it, std::end(expected)) << k.name;
      EXPECT_EQ(listing.find("bra.yield") != std::string::npos, it->yields) << listing;
    }
  }
  const std::string sass = text_of("spin_sass.txt") + text_of("loops_sass.txt");
  for (const Expect& e : expected) {
    const size_t at = sass.find(std::string("Function : ") + e.kernel);
    ASSERT_NE(at, std::string::npos) << e.kernel;
    const size_t end = sass.find("Function : ", at + 1);
    const bool ptxas_yields = sass.substr(at, end - at).find("YIELD") != std::string::npos;
    EXPECT_EQ(ptxas_yields, std::string(e.kernel) == "acquire_spin" ? false : e.yields) << e.kernel;
  }
}

}  // namespace
}  // namespace minicuda::testing
