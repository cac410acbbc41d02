// compute_engine: the GPU's compute engine (class HOPPER_COMPUTE_A, 0xCBC0) - the front end that
// takes a launch, the work distributor that places thread blocks on SMs, and the SMs' host
// worker threads.
//
// A launch is two methods on a subchannel bound to the compute class: SEND_PCAS_A latches the
// address of a QMD (>> 8), SEND_SIGNALING_PCAS2_B with a schedule action starts it. The engine
// then reads, all through the MMU: the QMD (grid, block, dynamic shared memory, register
// count, constant banks, program address), the code record at the program address and
// constant bank 0 (the kernel's parameters). A QMD, record or bank it cannot read or does not
// accept is a channel error, like an MMU fault in the front end.
//
// Block scheduler: blocks are numbered x fastest and issued in that order; block b goes to SM
// (b mod SMs), and an SM holds at most blocks_per_sm blocks at once - the occupancy rules of
// real-stack.md §4.3 (threads, blocks, registers, shared memory per SM) - so the grid runs in
// ceil(blocks / (SMs x blocks_per_sm)) waves. The simulated time of a launch is
// kLaunchNs + waves x a wave's cost, on the compute engine's timeline (compute_engine.cpp,
// docs/timing.md), where grids of other channels run beside it if the SMs have room for both
// (Timeline::run_grid, "Concurrent kernels" in docs/timing.md). On the host, blocks are taken from a shared
// counter by the engine's worker threads (MINICUDA_SM_THREADS, default: the host's cores) and
// the calling thread; each block runs start to finish on one of them (sm.h), so results do not
// depend on the thread count. The first kernel error stops the grid: blocks not yet started
// never start, and the error becomes the channel's fault.
//
// Who talks to it: the PBDMA hands it the methods of compute subchannels.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "device_launch_queue.h"
#include "gpu_memory.h"
#include "minicuda/device.h"
#include "class/clcbc0.h"
#include "class/clcbc0qmd.h"
#include "nv_occupancy.h"

namespace minicuda::gpu {

struct BlockError;  // sm.h
struct GridLaunch;

// The compute class's method registers of one channel.
struct ComputeState {
  uint32_t qmd_address_shifted8 = 0;  // SEND_PCAS_A
  uint32_t qmd_address_upper = 0;     // MINICUDA_SET_PCAS_ADDRESS_UPPER (bits 63:40)
};

// The SM limits of props, for nv_occupancy (nv_occupancy.h).
NvSmLimits sm_limits(const DeviceProperties& props);

// What a grid holds on the SMs while it runs (docs/timing.md, "Concurrent kernels").
GridFootprint grid_footprint(const DeviceProperties& props, uint64_t blocks, uint64_t threads, uint32_t registers,
                             uint32_t shared, uint32_t blocks_per_sm);
// The wave model's duration of a grid of `blocks` blocks of `threads` threads (docs/timing.md).
uint64_t wave_model_ns(const DeviceProperties& props, uint32_t blocks_per_sm, uint64_t threads, uint64_t blocks);
// The channel error a grid's first kernel error becomes.
ChannelFault kernel_fault(uint32_t chid, const char* kernel_name, const BlockError& error);

class ComputeEngine {
 public:
  ComputeEngine(Device& device, const GpuMemory& memory);
  ~ComputeEngine();
  ComputeEngine(const ComputeEngine&) = delete;
  ComputeEngine& operator=(const ComputeEngine&) = delete;

  // Executes one HOPPER_COMPUTE_A method of channel chid. A schedule action runs the grid to
  // completion before returning (one grid at a time). Returns the fault that stops the channel:
  //   IllegalMethod   a method this model does not have
  //   BadArgument     an unknown PCAS action, a QMD that is not version 3, a code record
  //                   without its magic, a zero or oversized dimension, a short constant bank
  //   MmuUnmapped     the QMD, code record or constant bank is not mapped
  //   KernelFault     the kernel raised an error (an MMU fault of the SM for a bad address)
  // inline_run: the channel is an inline one (ChannelConfig::inline_only): every block runs on
  // the calling thread, so that a debugger steps from the wait into the kernel body.
  std::optional<ChannelFault> method(uint32_t chid, ComputeState& state, uint32_t method, uint32_t data,
                                     bool inline_run = false);

 private:
  std::optional<ChannelFault> launch(uint32_t chid, uint64_t qmd_va, bool inline_run);
  // Runs every block of grid on `helpers` host threads; returns the error of the lowest block
  // that raised one.
  std::optional<BlockError> run_grid(const GridLaunch& grid, unsigned helpers);
  // A cooperative grid: every block at once, each on a host thread of its own, with a grid barrier
  // (and, for a grid of clusters, each cluster's barrier and shared-memory windows).
  static std::optional<BlockError> run_cooperative(GridLaunch grid, uint64_t blocks);
  // A grid of clusters of more than one block (sm_cluster.h): `helpers` host threads take whole
  // clusters in turn, and each runs its cluster's blocks at once, one host thread per block.
  std::optional<BlockError> run_clusters(const GridLaunch& grid, unsigned helpers);
  // MINICUDA_FISSION=check: runs grid with fibers, then as regions over the same memory, and
  // returns a kernel error if the two left different bytes (fission_check.h).
  std::optional<BlockError> run_grid_checked(uint32_t chid, const GridLaunch& grid);
  // Runs job on the worker threads and the calling thread (at most `threads` in all); returns
  // when every one has returned.
  void run_parallel(unsigned threads, const std::function<void()>& job);
  void worker_loop();
  // Runs the child grids `parent` launched from device code (CUDA dynamic parallelism), each to
  // completion with its own children, in the queue's order (device_launch_queue.h). The first
  // child's error stops the rest and is returned: the parent grid then fails with it.
  // Defined in device_launch.cpp.
  std::optional<ChannelFault> run_children(uint32_t chid, DeviceLaunchQueue& parent, const GridLaunch& parent_grid,
                                           bool inline_run);

  Device& device_;
  const GpuMemory& memory_;
  unsigned threads_;  // host threads that run SMs, the caller included

  std::mutex mutex_;
  std::condition_variable wake_, done_;
  std::vector<std::thread> workers_;  // started at the first launch that needs them
  const std::function<void()>* job_ = nullptr;
  uint64_t generation_ = 0;
  unsigned wanted_ = 0, running_ = 0;
  bool stop_ = false;
  DeviceRuntimeLimits devrt_limits_;  // the device runtime's pending launches and their limit
};

}  // namespace minicuda::gpu
