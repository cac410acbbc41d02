// compute_engine: HOPPER_COMPUTE_A launches, the block scheduler and the SM worker threads
// (see compute_engine.h).
#include "compute_engine.h"

#include "coop_threads.h"

#include <pthread.h>
#include <signal.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <deque>
#include <string_view>
#include <system_error>

#include <fmt/format.h>

#include "fission_check.h"
#include "minicuda/replayable_faults.h"
#include "minicuda/trace.h"
#include "cost_model.h"
#include "device_heap.h"
#include "simt_counters.h"
#include "class/clcbc0.h"
#include "class/clcbc0qmd.h"
#include "nv_kernel_code.h"
#include "nv_occupancy.h"
#include "nv_sm_exception.h"
#include "sm.h"
#include "sm_cluster.h"

namespace minicuda::gpu {
namespace {

// The cost model (docs/timing.md), fitted to what an H200 did (docs/data/h200_timing.txt): a
// fixed cost per grid, then each wave of blocks over the SMs in proportion to the threads it
// keeps resident on an SM - 0.8 us for a full SM (2048 threads), what a wave of a simple
// memory-bound kernel took (1 wave 7.1 us, 8 waves 11.9 us, 62 waves 57.4 us; an empty kernel
// between two events 5.9 us). The model does not see what the threads do. Those figures include
// the 4.3 us the host took to launch, which the host timeline charges to the host, so the
// front end costs the fitted 5.5 us less 4.3 us here.
constexpr uint64_t kLaunchNs = 1200;        // front end: fetch the QMD, set up the grid, drain
constexpr uint64_t kFullWaveNs = 800;       // one wave with every SM full

// MINICUDA_COST_MODEL=0: SASS grids keep the wave model (and are not counted).
bool work_aware_model() {
  static const bool on = [] {
    const char* env = std::getenv("MINICUDA_COST_MODEL");
    return env == nullptr || std::string_view(env) != "0";
  }();
  return on;
}

// The work-aware duration of a SASS grid that ran. `args` gets its counters, which its span
// carries as structured args (the Chrome trace's, the HTML viewer's) and as key=value pairs in
// its note (the text trace's `gpu` line, which `minicuda profile` also reads); waves_model_ns is
// what the wave model would give.
uint64_t work_aware_duration(const GridCounters& counters, const KernelShape& shape, uint64_t waves_ns,
                             std::vector<trace::DeviceSpan::Arg>* args) {
  const KernelCounters c = counters.finish(H200Figures::kL2Bytes);
  const KernelTiming t = kernel_timing(c, shape);
  const uint64_t warp_inst = c.total_warp_instructions();
  const uint64_t requests = c.global_load_requests + c.global_store_requests;
  auto ratio = [](double a, double b) { return b == 0 ? 0.0 : a / b; };
  auto percent = [&](double a, double b) { return fmt::format("{:.1f}", 100.0 * ratio(a, b)); };
  *args = {
      {"inst_executed", std::to_string(warp_inst)},
      {"warp_efficiency_pct", percent(static_cast<double>(c.thread_instructions), 32.0 * warp_inst)},
      {"global_requests", std::to_string(requests)},
      {"sectors_per_request",
       fmt::format("{:.2f}", ratio(static_cast<double>(c.global_load_sectors + c.global_store_sectors), requests))},
      {"l1_hit_pct", percent(static_cast<double>(c.l1_hit_sectors), c.global_load_sectors)},
      {"l2_hit_pct", percent(static_cast<double>(c.l2_hit_sectors), c.l2_sectors)},
      {"dram_read_bytes", std::to_string(c.dram_read_bytes)},
      {"dram_write_bytes", std::to_string(c.dram_write_bytes)},
      {"shared_bank_conflicts", std::to_string(c.bank_conflicts())},
      {"achieved_occupancy_pct", fmt::format("{:.1f}", 100.0 * t.achieved_occupancy)},
      {"limiter", kernel_limiter_name(t.limiter), false},
      {"waves_model_ns", std::to_string(waves_ns)},
  };
  return t.ns;
}

// The args as the note's "; key=value key=value ...".
std::string args_text(const std::vector<trace::DeviceSpan::Arg>& args) {
  std::string out;
  for (const trace::DeviceSpan::Arg& a : args) out += fmt::format("{}{}={}", out.empty() ? "; " : " ", a.key, a.value);
  return out;
}

unsigned worker_threads() {
  if (const char* env = std::getenv("MINICUDA_SM_THREADS"); env != nullptr && *env != '\0') {
    long n = std::strtol(env, nullptr, 10);
    if (n >= 1 && n <= 256) return static_cast<unsigned>(n);
  }
  return std::max(1u, std::thread::hardware_concurrency());
}

// How kernels that have a block function (cu2cxx's region fission, docs/tools/cu2cxx.md) run:
// as regions (the default); with fibers (MINICUDA_FISSION=0: ignores the block functions, to
// rule fission out); or both ways, compared (MINICUDA_FISSION=check, fission_check.h).
enum class FissionMode { Regions, Fibers, Check };

FissionMode fission_mode() {
  static const FissionMode mode = [] {
    const char* env = std::getenv("MINICUDA_FISSION");
    if (env == nullptr) return FissionMode::Regions;
    if (std::string_view(env) == "0") return FissionMode::Fibers;
    if (std::string_view(env) == "check") return FissionMode::Check;
    return FissionMode::Regions;
  }();
  return mode;
}

const char* fission_mode_text(FissionMode mode) {
  switch (mode) {
    case FissionMode::Regions: return "regions (its block function: no fibers)";
    case FissionMode::Fibers: return "fibers (MINICUDA_FISSION=0)";
    case FissionMode::Check: return "both (fibers, then regions, compared: MINICUDA_FISSION=check)";
  }
  return "";
}

ChannelFault engine_fault(uint32_t chid, FaultKind kind, uint64_t va, uint32_t method, std::string what) {
  return ChannelFault{chid, kind, Engine::Compute, Access::Read, va, method, std::move(what)};
}

uint16_t sm_exception_of(KernelErrorKind kind) {
  switch (kind) {
    case KernelErrorKind::MisalignedAddress: return NV_SM_EXCEPTION_MISALIGNED_ADDR;
    case KernelErrorKind::Assert: return NV_SM_EXCEPTION_ASSERT;
    case KernelErrorKind::Trap: return NV_SM_EXCEPTION_TRAP;
    case KernelErrorKind::IllegalInstruction: return NV_SM_EXCEPTION_ILLEGAL_INSTR;
    case KernelErrorKind::StackOverflow: return NV_SM_EXCEPTION_STACK_OVERFLOW;
    case KernelErrorKind::IllegalAddress: break;
  }
  return NV_SM_EXCEPTION_NONE;
}

}  // namespace

// What the grid holds on the SMs while it runs (docs/timing.md, "Concurrent kernels"): its
// blocks go round-robin over the SMs (block b to SM b mod SMs), so it spreads over
// min(SMs, blocks) of them with min(blocks_per_sm, ceil(blocks / SMs)) blocks on each. A block
// holds what nv_occupancy charges it: its warps, its warps rounded up to the 4 sub-partitions
// times 256-register granules of each, its shared memory and the driver's reserve in 128-byte
// units. Alone on an SM these give nv_occupancy's blocks_per_sm.
GridFootprint grid_footprint(const DeviceProperties& props, uint64_t blocks, uint64_t threads, uint32_t registers,
                             uint32_t shared, uint32_t blocks_per_sm) {
  auto round_up = [](uint64_t v, uint64_t unit) { return (v + unit - 1) / unit * unit; };
  const auto sm_count = static_cast<uint64_t>(props.multiprocessor_count);
  const uint64_t warp = static_cast<uint64_t>(props.warp_size);
  const uint64_t warps = (threads + warp - 1) / warp;
  const auto on_each = static_cast<uint32_t>(std::min<uint64_t>(blocks_per_sm, (blocks + sm_count - 1) / sm_count));
  GridFootprint f;
  f.sm_count = static_cast<uint32_t>(sm_count);
  f.sms = static_cast<uint32_t>(std::min(sm_count, blocks));
  f.per_sm.blocks = on_each;
  f.per_sm.warps = static_cast<uint32_t>(on_each * warps);
  f.per_sm.partition_registers = static_cast<uint32_t>(on_each * ((warps + 3) / 4) * round_up(uint64_t{registers} * warp, 256));
  f.per_sm.shared = static_cast<uint32_t>(on_each * round_up(uint64_t{shared} + props.reserved_shared_mem_per_block, 128));
  f.capacity = SmResources{static_cast<uint32_t>(props.max_blocks_per_sm),
                           static_cast<uint32_t>(props.max_threads_per_sm / props.warp_size),
                           static_cast<uint32_t>(props.regs_per_sm / 4), static_cast<uint32_t>(props.shared_mem_per_sm)};
  return f;
}

uint64_t wave_model_ns(const DeviceProperties& props, uint32_t blocks_per_sm, uint64_t threads, uint64_t blocks) {
  const uint64_t per_wave = uint64_t{blocks_per_sm} * static_cast<uint64_t>(props.multiprocessor_count);
  const uint64_t waves = (blocks + per_wave - 1) / per_wave;
  const uint64_t resident = std::min<uint64_t>(uint64_t{blocks_per_sm} * threads, props.max_threads_per_sm);
  const uint64_t wave_ns = std::max<uint64_t>(1, kFullWaveNs * resident / props.max_threads_per_sm);
  return kLaunchNs + waves * wave_ns;
}

ChannelFault kernel_fault(uint32_t chid, const char* kernel_name, const BlockError& error) {
  const KernelError& e = error.error;
  std::string what = fmt::format("kernel {} block ({},{},{}) thread ({},{},{}): {}", kernel_name, e.block.x,
                                 e.block.y, e.block.z, e.thread.x, e.thread.y, e.thread.z, e.message);
  // A stack overflow runs into unmapped local memory on the GPU: an MMU fault there too (700).
  if (e.kind == KernelErrorKind::IllegalAddress || e.kind == KernelErrorKind::StackOverflow) {
    return ChannelFault{chid, FaultKind::MmuUnmapped, Engine::Compute, e.write ? Access::Write : Access::Read,
                        e.address, NVCBC0_SEND_SIGNALING_PCAS2_B, "MMU fault: " + what};
  }
  // A failed assert carries CUDA's own message (printed as is by the driver).
  ChannelFault fault = engine_fault(chid, FaultKind::SmException, e.address, NVCBC0_SEND_SIGNALING_PCAS2_B,
                                    e.kind == KernelErrorKind::Assert ? e.message : "SM exception: " + what);
  fault.sm_exception = sm_exception_of(e.kind);
  return fault;
}

NvSmLimits sm_limits(const DeviceProperties& props) {
  return NvSmLimits{static_cast<NvU32>(props.warp_size), static_cast<NvU32>(props.max_threads_per_sm),
                    static_cast<NvU32>(props.max_blocks_per_sm), static_cast<NvU32>(props.regs_per_sm),
                    props.shared_mem_per_sm, props.reserved_shared_mem_per_block};
}

ComputeEngine::ComputeEngine(Device& device, const GpuMemory& memory)
    : device_(device), memory_(memory), threads_(worker_threads()) {}

ComputeEngine::~ComputeEngine() {
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  for (std::thread& t : workers_) t.join();
}

std::optional<ChannelFault> ComputeEngine::method(uint32_t chid, ComputeState& state, uint32_t method, uint32_t data,
                                                  bool inline_run) {
  switch (method) {
    case NVCBC0_SEND_PCAS_A:
      state.qmd_address_shifted8 = data;
      return std::nullopt;
    case NVCBC0_MINICUDA_SET_PCAS_ADDRESS_UPPER:
      state.qmd_address_upper = data;
      return std::nullopt;
    case NVCBC0_SEND_SIGNALING_PCAS2_B: {
      uint32_t action = nv_drf_val(NVCBC0_SEND_SIGNALING_PCAS2_B_PCAS_ACTION, data);
      if (action != NVCBC0_SEND_SIGNALING_PCAS2_B_PCAS_ACTION_PREFETCH_SCHEDULE) {
        return engine_fault(chid, FaultKind::BadArgument, 0, method,
                            fmt::format("SEND_SIGNALING_PCAS2_B: PCAS action {} is not modelled", action));
      }
      return launch(chid, (uint64_t{state.qmd_address_upper} << 40) | (uint64_t{state.qmd_address_shifted8} << 8),
                    inline_run);
    }
    default:
      return engine_fault(chid, FaultKind::IllegalMethod, 0, method,
                          fmt::format("compute method {:#x} is not modelled", method));
  }
}

std::optional<ChannelFault> ComputeEngine::launch(uint32_t chid, uint64_t qmd_va, bool inline_run) {
  auto mmu_fault = [&](const MemoryFault& f, const char* what) {
    return ChannelFault{chid, f.kind, Engine::Compute, f.access, f.va, NVCBC0_SEND_SIGNALING_PCAS2_B,
                        fmt::format("MMU fault: compute read of {} {:#x}", what, f.va)};
  };
  NvU32 qmd[NVCBC0_QMD_BYTES / 4];
  if (auto f = memory_.read(qmd_va, qmd, sizeof qmd)) return mmu_fault(*f, "QMD");
  auto bad = [&](std::string what) {
    return engine_fault(chid, FaultKind::BadArgument, qmd_va, NVCBC0_SEND_SIGNALING_PCAS2_B, std::move(what));
  };
  if (nv_qmd_get(qmd, NVCBC0_QMDV03_00_QMD_MAJOR_VERSION) != NVCBC0_QMDV03_00_QMD_MAJOR_VERSION_3)
    return bad("QMD is not version 3");

  uint64_t program = nv_qmd_get(qmd, NVCBC0_QMDV03_00_PROGRAM_ADDRESS_LOWER) |
                     (uint64_t{nv_qmd_get(qmd, NVCBC0_QMDV03_00_PROGRAM_ADDRESS_UPPER)} << 32);
  NvMinicudaKernelCode code{};
  if (auto f = memory_.read(program, &code, sizeof code)) return mmu_fault(*f, "program");
  if (code.magic != NV_MINICUDA_KERNEL_CODE_MAGIC || (code.entry == 0 && code.sass == 0))
    return bad("no kernel code at the program address");

  GridLaunch grid;
  grid.kernel_name = reinterpret_cast<const char*>(code.name);
  grid.entry = reinterpret_cast<KernelEntry>(code.entry);
  grid.block_entry = reinterpret_cast<KernelBlockEntry>(code.block_entry);
  if (fission_mode() != FissionMode::Fibers) grid.region_entry = reinterpret_cast<KernelRegionEntry>(code.region_entry);
  if (code.sass != 0) {  // a kernel compiled from PTX (nv_sass.h): the SIMT executor runs it
    grid.sass = nv_p64_to_ptr<const NvSassProgram>(code.sass);
    if (grid.sass->magic != NV_SASS_PROGRAM_MAGIC || grid.sass->version != NV_SASS_VERSION ||
        grid.sass->instruction_count == 0)
      return bad("the SASS program at the code record is not valid");
    grid.entry = nullptr, grid.block_entry = nullptr, grid.region_entry = nullptr;
  }
  grid.grid = dim3(nv_qmd_get(qmd, NVCBC0_QMDV03_00_CTA_RASTER_WIDTH), nv_qmd_get(qmd, NVCBC0_QMDV03_00_CTA_RASTER_HEIGHT),
                   nv_qmd_get(qmd, NVCBC0_QMDV03_00_CTA_RASTER_DEPTH));
  grid.block = dim3(nv_qmd_get(qmd, NVCBC0_QMDV03_00_CTA_THREAD_DIMENSION0),
                    nv_qmd_get(qmd, NVCBC0_QMDV03_00_CTA_THREAD_DIMENSION1),
                    nv_qmd_get(qmd, NVCBC0_QMDV03_00_CTA_THREAD_DIMENSION2));
  grid.dynamic_shared = nv_qmd_get(qmd, NVCBC0_QMDV03_00_SHARED_MEMORY_SIZE);
  const DeviceProperties& props = device_.properties();
  uint64_t threads = uint64_t{grid.block.x} * grid.block.y * grid.block.z;
  uint64_t blocks = uint64_t{grid.grid.x} * grid.grid.y * grid.grid.z;
  if (blocks == 0 || threads == 0 || threads > static_cast<uint64_t>(props.max_threads_per_block))
    return bad(fmt::format("grid {}x{}x{} of blocks {}x{}x{} cannot run", grid.grid.x, grid.grid.y, grid.grid.z,
                           grid.block.x, grid.block.y, grid.block.z));

  // Constant bank 0: the parameters, copied out of GPU memory as the SM's constant cache would.
  std::vector<uint64_t> params;
  if (nv_qmd_get(qmd, NVCBC0_QMDV03_00_CONSTANT_BUFFER_VALID(NV_QMD_CBANK_PARAMS))) {
    uint64_t va = nv_qmd_get(qmd, NVCBC0_QMDV03_00_CONSTANT_BUFFER_ADDR_LOWER(NV_QMD_CBANK_PARAMS)) |
                  (uint64_t{nv_qmd_get(qmd, NVCBC0_QMDV03_00_CONSTANT_BUFFER_ADDR_UPPER(NV_QMD_CBANK_PARAMS))} << 32);
    uint64_t bytes = uint64_t{nv_qmd_get(qmd, NVCBC0_QMDV03_00_CONSTANT_BUFFER_SIZE_SHIFTED4(NV_QMD_CBANK_PARAMS))} << 4;
    if (bytes < code.param_bytes) return bad("constant bank 0 is smaller than the kernel's parameters");
    params.resize((bytes + 7) / 8);
    if (auto f = memory_.read(va, params.data(), bytes)) return mmu_fault(*f, "constant bank 0");
  } else if (code.param_bytes != 0) {
    return bad("the kernel takes parameters and constant bank 0 is not valid");
  }
  grid.params = params.data();
  // Constant bank 1: the printf FIFO, written by kernels in place (it must be mapped).
  if (nv_qmd_get(qmd, NVCBC0_QMDV03_00_CONSTANT_BUFFER_VALID(NV_QMD_CBANK_PRINTF))) {
    uint64_t va = nv_qmd_get(qmd, NVCBC0_QMDV03_00_CONSTANT_BUFFER_ADDR_LOWER(NV_QMD_CBANK_PRINTF)) |
                  (uint64_t{nv_qmd_get(qmd, NVCBC0_QMDV03_00_CONSTANT_BUFFER_ADDR_UPPER(NV_QMD_CBANK_PRINTF))} << 32);
    uint64_t bytes = uint64_t{nv_qmd_get(qmd, NVCBC0_QMDV03_00_CONSTANT_BUFFER_SIZE_SHIFTED4(NV_QMD_CBANK_PRINTF))} << 4;
    if (auto f = memory_.check(va, bytes, Access::Write)) return mmu_fault(*f, "printf buffer");
    if (bytes > sizeof(NvMinicudaPrintfFifo)) {
      grid.printf_buffer = reinterpret_cast<uint8_t*>(va);
      grid.printf_bytes = static_cast<uint32_t>(bytes);
    }
  }

  // Constant bank 4: the header of the context's device malloc heap, which kernels use in place
  // (nv_device_heap.h); the header gives the heap's size, all of which must be mapped.
  if (nv_qmd_get(qmd, NVCBC0_QMDV03_00_CONSTANT_BUFFER_VALID(NV_QMD_CBANK_HEAP))) {
    uint64_t va = nv_qmd_get(qmd, NVCBC0_QMDV03_00_CONSTANT_BUFFER_ADDR_LOWER(NV_QMD_CBANK_HEAP)) |
                  (uint64_t{nv_qmd_get(qmd, NVCBC0_QMDV03_00_CONSTANT_BUFFER_ADDR_UPPER(NV_QMD_CBANK_HEAP))} << 32);
    NvMinicudaDeviceHeap header{};
    if (auto f = memory_.read(va, &header, sizeof header)) return mmu_fault(*f, "device heap");
    if (header.magic != NV_MINICUDA_DEVICE_HEAP_MAGIC) return bad("constant bank 4 is not a device heap");
    if (auto f = memory_.check(va, header.size, Access::Write)) return mmu_fault(*f, "device heap");
    grid.heap = reinterpret_cast<uint8_t*>(va);
  }

  // Constant bank 3: the device runtime's settings (the pending-launch limit is the device's).
  if (nv_qmd_get(qmd, NVCBC0_QMDV03_00_CONSTANT_BUFFER_VALID(NV_QMD_CBANK_DEVRT))) {
    uint64_t va = nv_qmd_get(qmd, NVCBC0_QMDV03_00_CONSTANT_BUFFER_ADDR_LOWER(NV_QMD_CBANK_DEVRT)) |
                  (uint64_t{nv_qmd_get(qmd, NVCBC0_QMDV03_00_CONSTANT_BUFFER_ADDR_UPPER(NV_QMD_CBANK_DEVRT))} << 32);
    NvMinicudaDeviceRuntime devrt{};
    if (auto f = memory_.read(va, &devrt, sizeof devrt)) return mmu_fault(*f, "constant bank 3");
    devrt_limits_.pending_limit.store(devrt.pending_launch_limit, std::memory_order_relaxed);
  }
  // The cluster shape: every dimension of the grid is a multiple of it (libcuda checked it).
  grid.cluster = dim3(std::max<NvU32>(1, nv_qmd_get(qmd, NVCBC0_QMDV03_00_MINICUDA_CLUSTER_WIDTH)),
                      std::max<NvU32>(1, nv_qmd_get(qmd, NVCBC0_QMDV03_00_MINICUDA_CLUSTER_HEIGHT)),
                      std::max<NvU32>(1, nv_qmd_get(qmd, NVCBC0_QMDV03_00_MINICUDA_CLUSTER_DEPTH)));
  grid.cluster_explicit = nv_qmd_get(qmd, NVCBC0_QMDV03_00_MINICUDA_CLUSTER_EXPLICIT) != 0;
  if (grid.grid.x % grid.cluster.x != 0 || grid.grid.y % grid.cluster.y != 0 || grid.grid.z % grid.cluster.z != 0)
    return bad(fmt::format("grid {}x{}x{} is not a whole number of clusters of {}x{}x{}", grid.grid.x, grid.grid.y,
                           grid.grid.z, grid.cluster.x, grid.cluster.y, grid.cluster.z));
  const uint64_t cluster_size = uint64_t{grid.cluster.x} * grid.cluster.y * grid.cluster.z;
  uint32_t registers = std::max<uint32_t>(1, nv_qmd_get(qmd, NVCBC0_QMDV03_00_REGISTER_COUNT_V));
  NvOccupancy occ = nv_occupancy(sm_limits(props), static_cast<uint32_t>(threads), registers, grid.dynamic_shared);
  if (occ.blocks_per_sm == 0) return bad(fmt::format("a block does not fit on an SM ({})", occ.limit));
  uint64_t per_wave = uint64_t{occ.blocks_per_sm} * static_cast<uint64_t>(props.multiprocessor_count);
  uint64_t waves = (blocks + per_wave - 1) / per_wave;
  grid.stack_bytes = nv_qmd_get(qmd, NVCBC0_QMDV03_00_SHADER_LOCAL_MEMORY_HIGH_SIZE);
  const bool cooperative = nv_qmd_get(qmd, NVCBC0_QMDV03_00_CONSTANT_BUFFER_VALID(NV_QMD_CBANK_COOPERATIVE)) != 0;
  if (cooperative) {
    const uint64_t va = nv_qmd_get(qmd, NVCBC0_QMDV03_00_CONSTANT_BUFFER_ADDR_LOWER(NV_QMD_CBANK_COOPERATIVE)) |
                        (uint64_t{nv_qmd_get(qmd, NVCBC0_QMDV03_00_CONSTANT_BUFFER_ADDR_UPPER(NV_QMD_CBANK_COOPERATIVE))} << 32);
    if (va != 0) {
      if (auto f = memory_.check(va, sizeof(NvMinicudaGridWorkspace), Access::Write)) return mmu_fault(*f, "grid workspace");
      grid.grid_workspace = va;
    }
  }
  if (cooperative && blocks > per_wave)
    return bad(fmt::format("a cooperative grid of {} blocks cannot be resident at once ({} per SM, {} SMs)", blocks,
                           occ.blocks_per_sm, props.multiprocessor_count));
  trace::note(trace::Layer::Gpu,
              "compute: ch {} launch {} grid ({},{},{}) block ({},{},{}), {} B dynamic shared: {} blocks/SM "
              "(limit: {}), {} wave(s) over {} SMs",
              chid, grid.kernel_name, grid.grid.x, grid.grid.y, grid.grid.z, grid.block.x, grid.block.y, grid.block.z,
              grid.dynamic_shared, occ.blocks_per_sm, occ.limit, waves, props.multiprocessor_count);
  if (code.region_entry != 0)  // how the barriers run: docs/layers/device_sim.md, "Region fission"
    trace::note(trace::Layer::Gpu, "compute: ch {} {} runs as {}", chid, grid.kernel_name,
                fission_mode_text(fission_mode()));

  const unsigned helpers = inline_run ? 1u : static_cast<unsigned>(std::min<uint64_t>(blocks, threads_));
  if (cooperative)
    trace::note(trace::Layer::Gpu, "compute: ch {} {} is cooperative: {} blocks resident together, one host thread each",
                chid, grid.kernel_name, blocks);
  if (cluster_size > 1)
    trace::note(trace::Layer::Gpu,
                "compute: ch {} {} runs in {} cluster(s) of {}x{}x{} blocks, each cluster's blocks started together "
                "(one host thread each)",
                chid, grid.kernel_name, blocks / cluster_size, grid.cluster.x, grid.cluster.y, grid.cluster.z);
  // A SASS grid is counted and timed by the work-aware model (cost_model.h) unless
  // MINICUDA_COST_MODEL=0 keeps the wave model for it too.
  std::optional<GridCounters> counters;  // built only for a grid that counts (its line table allocates)
  if (grid.sass != nullptr && work_aware_model()) grid.counters = &counters.emplace();
  DeviceLaunchQueue children(devrt_limits_, props, 0, grid.kernel_name);
  grid.children = &children;
  grid_activity(true);  // nvidia-uvm shows managed memory as the GPU's page table maps it
  device_.activity().begin(TimelineUnit::Compute, chid, grid.kernel_name);
  std::optional<BlockError> first_error = cooperative        ? run_cooperative(grid, blocks)
                                          : cluster_size > 1 ? run_clusters(grid, helpers)
                                          : fission_mode() == FissionMode::Check && grid.region_entry != nullptr
                                              ? run_grid_checked(chid, grid)
                                              : run_grid(grid, helpers);
  device_.activity().end(TimelineUnit::Compute);
  grid_activity(false);
  uint64_t duration = wave_model_ns(props, occ.blocks_per_sm, threads, blocks);
  std::vector<trace::DeviceSpan::Arg> counted;  // a SASS grid's counters, for its span
  if (grid.counters != nullptr && !first_error)
    duration = work_aware_duration(*counters,
                                   KernelShape{blocks, static_cast<uint32_t>(threads), occ.blocks_per_sm,
                                               static_cast<uint32_t>(props.multiprocessor_count),
                                               static_cast<uint32_t>(props.max_threads_per_sm / 32)},
                                   duration, &counted);
  const TimeSpan span =
      device_.timeline().run_grid(chid, grid_footprint(props, blocks, threads, registers, grid.dynamic_shared,
                                                       occ.blocks_per_sm),
                                  duration);
  const std::string counted_text = args_text(counted);
  trace::device_span({timeline_unit_name(TimelineUnit::Compute), grid.kernel_name, chid, span.start, span.end,
                      device_.timeline().origin(chid), std::move(counted)},
                     "compute: ch {} {} ran t={}..{} ns{}", chid, grid.kernel_name, span.start, span.end, counted_text);

  if (first_error) return kernel_fault(chid, grid.kernel_name, *first_error);
  return run_children(chid, children, grid, inline_run);
}

std::optional<BlockError> ComputeEngine::run_grid(const GridLaunch& grid, unsigned helpers) {
  // A shared queue hands the blocks out in order, a few per claim (enough claims per host thread
  // to even out the load); the first error stops the grid.
  const uint64_t blocks = uint64_t{grid.grid.x} * grid.grid.y * grid.grid.z;
  BlockQueue queue(grid.grid, std::clamp<uint64_t>(blocks / (uint64_t{helpers} * 16), 1, 64));
  // With a device heap, its calls go in block order (device_heap.h).
  std::optional<HeapTurn> turn;
  GridLaunch launch = grid;
  if (grid.heap != nullptr && helpers > 1) {
    turn.emplace(queue, helpers);
    queue.set_heap_turn(&*turn);
    launch.heap_turn = &*turn;
  }
  std::mutex error_mutex;
  std::optional<BlockError> first_error;
  std::function<void()> job = [&] {
    if (std::optional<BlockError> e = run_blocks(launch, queue)) {
      std::lock_guard lock(error_mutex);
      if (!first_error || e->block < first_error->block) first_error = std::move(e);
    }
  };
  run_parallel(helpers, job);
  return first_error;
}

std::optional<BlockError> ComputeEngine::run_cooperative(GridLaunch grid, uint64_t blocks) {
  GridBarrier barrier(blocks);
  grid.grid_barrier = &barrier;
  // A cooperative grid of clusters: host thread i runs rank i % size of cluster i / size, so a
  // cluster's blocks are resident together as every block of the grid is.
  const ClusterShape shape{grid.grid, grid.cluster};
  const unsigned size = shape.size();
  std::deque<ClusterRun> clusters;
  if (size > 1)
    for (uint64_t c = 0; c < blocks / size; ++c) clusters.emplace_back(size);
  std::mutex error_mutex;
  std::optional<BlockError> first_error;
  auto run_one = [&](uint64_t thread) {
    GridLaunch mine = grid;
    uint64_t block = thread;
    if (size > 1) {
      mine.cluster_run = &clusters[thread / size];
      mine.cluster_rank = static_cast<unsigned>(thread % size);
      block = shape.block_of(thread / size, mine.cluster_rank);
    }
    BlockQueue queue(grid.grid, block, true);
    if (std::optional<BlockError> e = run_blocks(mine, queue)) {
      std::lock_guard lock(error_mutex);
      // The error that stopped the grid, not a block that only left a barrier because of it.
      auto before = [](const BlockError& a, const BlockError& b) {
        return a.stopped != b.stopped ? !a.stopped : a.block < b.block;
      };
      if (!first_error || before(*e, *first_error)) first_error = std::move(e);
    }
  };
  auto short_of_threads = [&](uint64_t started) {
    // The host has no thread left for block `started` (EAGAIN): the grid stops as at a kernel
    // error, the blocks that run leave the grid barrier at once, and the launch fails with the
    // reason (the simulator's limit, not the GPU's: the co-residency check passed).
    KernelError e;
    e.kind = KernelErrorKind::StackOverflow;
    e.message = fmt::format("out of host threads for a cooperative grid: block {} of {} could not start", started,
                            blocks);
    first_error = BlockError{size > 1 ? shape.block_of(started / size, static_cast<unsigned>(started % size)) : started,
                             std::move(e), false};
    barrier.stop();
    for (ClusterRun& run : clusters) run.stop();
  };
  CoopThreads::run(blocks, run_one, short_of_threads);
  return first_error;
}

std::optional<BlockError> ComputeEngine::run_clusters(const GridLaunch& grid, unsigned helpers) {
  const ClusterShape shape{grid.grid, grid.cluster};
  const unsigned size = shape.size();
  const uint64_t clusters = uint64_t{grid.grid.x} * grid.grid.y * grid.grid.z / size;
  std::atomic<uint64_t> next{0};
  std::atomic<bool> stopped{false};
  std::mutex error_mutex;
  std::optional<BlockError> first_error;
  auto record = [&](std::optional<BlockError> e) {
    std::lock_guard lock(error_mutex);
    // The error that stopped the grid, not a block that only left a barrier because of it.
    auto before = [](const BlockError& a, const BlockError& b) {
      return a.stopped != b.stopped ? !a.stopped : a.block < b.block;
    };
    if (!first_error || before(*e, *first_error)) first_error = std::move(e);
    stopped.store(true, std::memory_order_relaxed);
  };
  std::function<void()> job = [&] {
    for (uint64_t c = next.fetch_add(1); c < clusters && !stopped.load(std::memory_order_relaxed);
         c = next.fetch_add(1)) {
      ClusterRun run(size);
      GridLaunch launch = grid;
      launch.cluster_run = &run;
      auto run_one = [&](uint64_t rank) {
        GridLaunch mine = launch;
        mine.cluster_rank = static_cast<unsigned>(rank);
        BlockQueue queue(grid.grid, shape.block_of(c, mine.cluster_rank), true);
        if (std::optional<BlockError> e = run_blocks(mine, queue)) record(std::move(e));
      };
      auto short_of_threads = [&](uint64_t started) {
        // The host has no thread left for every block of the cluster (EAGAIN): the grid stops as
        // at a kernel error (the simulator's limit, not the GPU's).
        KernelError e;
        e.kind = KernelErrorKind::StackOverflow;
        e.message = fmt::format("out of host threads for a cluster: block {} of {} could not start", started, size);
        record(BlockError{shape.block_of(c, static_cast<unsigned>(started)), std::move(e), false});
        run.stop();
      };
      CoopThreads::run(size, run_one, short_of_threads);
    }
  };
  run_parallel(static_cast<unsigned>(std::min<uint64_t>(helpers, clusters)), job);
  return first_error;
}

std::optional<BlockError> ComputeEngine::run_grid_checked(uint32_t chid, const GridLaunch& grid) {
  // One host thread for both runs, so that the blocks run in the same order each time (atomics
  // of different blocks then add up in the same order too).
  FissionCheck check(device_.mmu(), grid.printf_buffer, grid.printf_bytes);
  GridLaunch with_fibers = grid;
  with_fibers.region_entry = nullptr;
  const std::optional<BlockError> fibers_error = run_grid(with_fibers, 1);
  check.rewind();
  if (grid.children != nullptr) grid.children->discard();  // the second run launches them again
  std::optional<BlockError> error = run_grid(grid, 1);
  std::optional<std::string> difference;
  if (fibers_error || error) {
    // A kernel error: each run stopped where it was raised, so only the errors are compared.
    auto text = [](const std::optional<BlockError>& e) {
      if (!e) return std::string("no error");
      return fmt::format("error kind {} at {:#x} in block ({},{},{}) thread ({},{},{})", static_cast<int>(e->error.kind),
                         e->error.address, e->error.block.x, e->error.block.y, e->error.block.z, e->error.thread.x,
                         e->error.thread.y, e->error.thread.z);
    };
    if (text(fibers_error) != text(error))
      difference = fmt::format("the fibers ended with {}, the regions with {}", text(fibers_error), text(error));
  } else {
    difference = check.first_difference();
  }
  record_fission_check(grid.kernel_name, !difference);
  if (!difference) {
    trace::note(trace::Layer::Gpu, "compute: ch {} {} checked: fibers and regions {}", chid, grid.kernel_name,
                error ? "raised the same error" : fmt::format("left the same {} bytes", check.bytes()));
    return error;
  }
  trace::note(trace::Layer::Gpu, "compute: ch {} {} checked: {}", chid, grid.kernel_name, *difference);
  KernelError e;
  e.kind = KernelErrorKind::Trap;
  e.message = fmt::format("region fission changed the result of kernel {}: {} (MINICUDA_FISSION=check)",
                          grid.kernel_name, *difference);
  return BlockError{0, std::move(e)};
}

void ComputeEngine::run_parallel(unsigned threads, const std::function<void()>& job) {
  if (threads <= 1) {
    job();
    return;
  }
  {
    std::unique_lock lock(mutex_);
    while (workers_.size() + 1 < threads_) workers_.emplace_back([this] { worker_loop(); });
    job_ = &job;
    wanted_ = threads - 1;
    running_ = 0;
    ++generation_;
  }
  wake_.notify_all();
  job();
  std::unique_lock lock(mutex_);
  wanted_ = 0;  // helpers that have not started yet need not
  done_.wait(lock, [this] { return running_ == 0; });
  job_ = nullptr;
}

void ComputeEngine::worker_loop() {
  pthread_setname_np(pthread_self(), "gpu-sm");  // runs blocks beside the compute engine's thread
  uint64_t seen = 0;
  std::unique_lock lock(mutex_);
  for (;;) {
    wake_.wait(lock, [&] { return stop_ || (generation_ != seen && wanted_ > 0); });
    if (stop_) return;
    seen = generation_;
    --wanted_;
    ++running_;
    const std::function<void()>* job = job_;
    lock.unlock();
    (*job)();
    lock.lock();
    if (--running_ == 0) done_.notify_all();
  }
}

}  // namespace minicuda::gpu
