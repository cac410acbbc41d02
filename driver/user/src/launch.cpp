// Kernel launches: cuLaunchKernel and the function attributes and occupancy it obeys.
//
// A launch writes, into the channel's launch-data ring, a QMD (V03_00: grid, block, dynamic
// shared memory, register count, program address = the kernel's code record, constant bank 0 =
// the parameters copied by value, constant bank 1 = the printf FIFO, constant bank 3 = the device
// runtime's settings, NvMinicudaDeviceRuntime) and then two methods on
// the compute subchannel - SEND_PCAS_A (the QMD address >> 8) and SEND_SIGNALING_PCAS2_B
// (schedule) - followed by the channel's fence release, all published with one GPFIFO entry
// and the doorbell: no system call. With CUDA_LAUNCH_BLOCKING=1 it then waits for the kernel.
#include <algorithm>
#include <cstdint>
#include <cstring>

#include "channel.h"
#include "prebuilt.h"
#include "host_clock.h"
#include "jit.h"
#include "libcuda.h"
#include "minicuda/round_up.h"
#include "nv_device_heap.h"
#include "minicuda/trace.h"

using namespace minicuda;
using namespace minicuda::libcuda;

namespace {

int attribute(CUctx_st& ctx, CUdevice_attribute a) {
  int v = 0;
  (void)device_attribute(*device_info(ctx.device), a, &v);
  return v;
}

NvSmLimits sm_limits(CUctx_st& ctx) {
  return NvSmLimits{static_cast<NvU32>(attribute(ctx, CU_DEVICE_ATTRIBUTE_WARP_SIZE)),
                    static_cast<NvU32>(attribute(ctx, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR)),
                    static_cast<NvU32>(attribute(ctx, CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR)),
                    static_cast<NvU32>(attribute(ctx, CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR)),
                    static_cast<NvU64>(attribute(ctx, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR)),
                    static_cast<NvU64>(attribute(ctx, CU_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK))};
}

// cuFuncGetAttribute of a PTX kernel: what the JIT measured of it.
CUresult ptx_attribute(const CUfunc_st& f, CUfunction_attribute attrib, int* pi) {
  const ptx::CompiledKernel& k = *f.ptx;
  const ptx::CompileResult& m = f.library->jit->result;
  switch (attrib) {
    case CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK: {
      // The most threads whose registers fit: each of the SM's four partitions holds a quarter of
      // its registers, a warp's rounded up to 256 (nv_occupancy.h); 110 registers -> 512 threads,
      // as on the H200 (jit_options/).
      const uint64_t per_warp = (uint64_t{std::max<uint32_t>(k.num_regs, 1)} * 32 + 255) / 256 * 256;
      const uint64_t fit = 4 * (65536 / 4 / per_warp) * 32;
      *pi = static_cast<int>(std::min<uint64_t>(k.max_ntid != 0 ? k.max_ntid : 1024, fit));
      break;
    }
    case CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES: *pi = static_cast<int>(k.static_shared_bytes); break;
    case CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES: {
      uint64_t bytes = 0;
      for (const ptx::CompiledGlobal& g : m.globals) bytes += g.constant ? g.size : 0;
      *pi = static_cast<int>(bytes);
      break;
    }
    case CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES: *pi = static_cast<int>(k.local_bytes); break;
    case CU_FUNC_ATTRIBUTE_NUM_REGS: *pi = static_cast<int>(k.num_regs); break;
    case CU_FUNC_ATTRIBUTE_PTX_VERSION: *pi = m.ptx_version_major * 10 + m.ptx_version_minor; break;
    case CU_FUNC_ATTRIBUTE_BINARY_VERSION: *pi = f.library->jit->target_sm; break;
    case CU_FUNC_ATTRIBUTE_CACHE_MODE_CA: *pi = 0; break;
    case CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES: *pi = f.max_dynamic_shared; break;
    case CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT: *pi = f.carveout; break;
    default: return CUDA_ERROR_INVALID_VALUE;
  }
  return CUDA_SUCCESS;
}

// The launch-configuration checks of CUDA 13 (probe.txt launch.*): every failure is
// CUDA_ERROR_INVALID_VALUE, with the reason in the trace.
CUresult check_config(CUctx_st& ctx, const CUfunc_st& f, const unsigned grid[3], const unsigned block[3],
                      unsigned shared) {
  static constexpr CUdevice_attribute kGrid[3] = {CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X, CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y,
                                                  CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z};
  static constexpr CUdevice_attribute kBlock[3] = {CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X, CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y,
                                                   CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z};
  auto refuse = [](std::string why) {
    trace::note(trace::Layer::Libcuda, "launch refused: {}", why);
    return CUDA_ERROR_INVALID_VALUE;
  };
  const char* axis = "xyz";
  for (int i = 0; i < 3; ++i) {
    if (grid[i] == 0 || block[i] == 0) return refuse(fmt::format("a zero {} dimension", axis[i]));
    if (grid[i] > static_cast<unsigned>(attribute(ctx, kGrid[i])))
      return refuse(fmt::format("grid {} = {} > {}", axis[i], grid[i], attribute(ctx, kGrid[i])));
    if (block[i] > static_cast<unsigned>(attribute(ctx, kBlock[i])))
      return refuse(fmt::format("block {} = {} > {}", axis[i], block[i], attribute(ctx, kBlock[i])));
  }
  uint64_t threads = uint64_t{block[0]} * block[1] * block[2];
  int max_threads = attribute(ctx, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK);
  if (threads > static_cast<uint64_t>(max_threads))
    return refuse(fmt::format("{} threads per block > {}", threads, max_threads));
  if (shared > static_cast<unsigned>(f.max_dynamic_shared))
    return refuse(fmt::format("{} B of dynamic shared memory > {} (raise it with cudaFuncSetAttribute("
                              "MaxDynamicSharedMemorySize))",
                              shared, f.max_dynamic_shared));
  if (nv_occupancy(sm_limits(ctx), static_cast<NvU32>(threads), f.image->num_regs, block_shared_bytes(f, shared))
          .blocks_per_sm == 0)
    return refuse("a block does not fit on an SM");
  return CUDA_SUCCESS;
}


// The parameter buffer an `extra` array names: named is false when it has no key before its end.
struct ExtraBuffer {
  bool named = false;
  const void* data = nullptr;
  size_t bytes = 0;
};

// Reads cuLaunchKernel's `extra` array up to CU_LAUNCH_PARAM_END (a later pair of one key replaces
// an earlier one) and checks the buffer it names against k's parameters, whose size is the end of
// the last one (cuFuncGetParamInfo's offset plus size). As on the H200 (probe_launch_extra.txt and
// probe_launch_extra_more.txt): a key that is none of the three, or a buffer named beside
// kernelParams (with_params): CUDA_ERROR_INVALID_VALUE. For a kernel with parameters, no pointer
// (or NULL), no size, or a size of 0: CUDA_ERROR_INVALID_VALUE; a size over the parameters' size:
// CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES; a shorter one passes that many bytes, and the rest of the
// parameters reads 0 (on the H200, 0 or what an earlier launch left). For a kernel without
// parameters, a size over 0 is CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES and anything else launches (a
// missing or NULL pointer, a missing size). A NULL size pointer, which crashes the real driver, is
// CUDA_ERROR_INVALID_VALUE.
CUresult read_extra(void** extra, const fatbin::KernelImage& k, bool with_params, ExtraBuffer* out) {
  auto refuse = [](CUresult r, std::string why) {
    trace::note(trace::Layer::Libcuda, "launch refused: extra{}", why);
    return r;
  };
  const void* data = nullptr;
  const size_t* size = nullptr;
  bool has_data = false, has_size = false;
  for (size_t i = 0; extra[i] != CU_LAUNCH_PARAM_END; i += 2) {
    if (extra[i] == CU_LAUNCH_PARAM_BUFFER_POINTER) {
      data = extra[i + 1], has_data = true;
    } else if (extra[i] == CU_LAUNCH_PARAM_BUFFER_SIZE) {
      size = static_cast<const size_t*>(extra[i + 1]), has_size = true;
    } else {
      return refuse(CUDA_ERROR_INVALID_VALUE, fmt::format("[{}] = {} is not a CU_LAUNCH_PARAM_ key", i, extra[i]));
    }
  }
  out->named = has_data || has_size;
  if (!out->named) return CUDA_SUCCESS;  // an `extra` with no key: kernelParams (or nothing) passes them
  if (with_params) return refuse(CUDA_ERROR_INVALID_VALUE, " names a buffer and kernelParams is given too");
  if (has_size && size == nullptr) return refuse(CUDA_ERROR_INVALID_VALUE, " has a NULL CU_LAUNCH_PARAM_BUFFER_SIZE");
  if (k.param_bytes == 0) {
    if (has_size && *size > 0)
      return refuse(CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES,
                    fmt::format(" buffer of {} B for {}, which has no parameters", *size, k.name));
    out->named = false;  // nothing to pass
    return CUDA_SUCCESS;
  }
  if (!has_data || data == nullptr) return refuse(CUDA_ERROR_INVALID_VALUE, " has no CU_LAUNCH_PARAM_BUFFER_POINTER");
  if (!has_size || size == nullptr) return refuse(CUDA_ERROR_INVALID_VALUE, " has no CU_LAUNCH_PARAM_BUFFER_SIZE");
  if (*size == 0 && k.param_bytes != 0)
    return refuse(CUDA_ERROR_INVALID_VALUE, fmt::format(" buffer of 0 B for {}'s {} B of parameters", k.name,
                                                        k.param_bytes));
  if (*size > k.param_bytes)
    return refuse(CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES,
                  fmt::format(" buffer of {} B is larger than {}'s {} B of parameters", *size, k.name, k.param_bytes));
  trace::note(trace::Layer::Libcuda, "extra: {} B of parameters from {} ({} has {} B)", *size, data, k.name,
              k.param_bytes);
  out->data = data;
  out->bytes = *size;
  return CUDA_SUCCESS;
}

// Writes the QMD and constant bank, pushes the launch, submits. Returns the fence.
// The parameters come from params (one pointer each) or, when it is null, from the first
// buffer.bytes of buffer.data (laid out by the caller); the rest of the bank is 0.
uint64_t push_launch(Channel& ch, const CUfunc_st& f, uint64_t code_va, const unsigned grid[3],
                     const unsigned block[3], unsigned shared, void** params, const ExtraBuffer& buffer,
                     bool cooperative, size_t stack_bytes, uint64_t pending_launch_limit, uint64_t heap_va,
                     const unsigned cluster[3], bool explicit_cluster) {
  const fatbin::KernelImage& k = *f.image;
  uint64_t cbank_bytes = round_up(k.param_bytes, 16);
  // The QMD, constant bank 0, the device runtime's bank (3), then a cooperative launch's grid
  // workspace (bank 2; nv_kernel_code.h).
  const uint64_t devrt_offset = NVCBC0_QMD_BYTES + cbank_bytes;
  const uint64_t workspace_offset = devrt_offset + sizeof(NvMinicudaDeviceRuntime);
  const uint64_t workspace_bytes = cooperative ? sizeof(NvMinicudaGridWorkspace) : 0;
  Channel::LaunchData data = ch.launch_data(workspace_offset + workspace_bytes);
  uint8_t* cbank = data.cpu + NVCBC0_QMD_BYTES;
  std::memset(cbank, 0, cbank_bytes);
  NvMinicudaDeviceRuntime devrt{};
  devrt.pending_launch_limit = static_cast<NvU32>(std::min<uint64_t>(pending_launch_limit, UINT32_MAX));
  std::memcpy(cbank + cbank_bytes, &devrt, sizeof devrt);
  if (params != nullptr) {
    for (uint32_t i = 0; i < k.param_count; ++i) std::memcpy(cbank + k.param_offsets[i], params[i], k.param_sizes[i]);
  } else if (buffer.bytes != 0) {
    std::memcpy(cbank, buffer.data, buffer.bytes);
  }

  NvU32 qmd[NVCBC0_QMD_BYTES / 4] = {};
  nv_qmd_set(qmd, NVCBC0_QMDV03_00_QMD_MAJOR_VERSION, NVCBC0_QMDV03_00_QMD_MAJOR_VERSION_3);
  nv_qmd_set(qmd, NVCBC0_QMDV03_00_CTA_RASTER_WIDTH, grid[0]);
  nv_qmd_set(qmd, NVCBC0_QMDV03_00_CTA_RASTER_HEIGHT, grid[1]);
  nv_qmd_set(qmd, NVCBC0_QMDV03_00_CTA_RASTER_DEPTH, grid[2]);
  nv_qmd_set(qmd, NVCBC0_QMDV03_00_CTA_THREAD_DIMENSION0, block[0]);
  nv_qmd_set(qmd, NVCBC0_QMDV03_00_CTA_THREAD_DIMENSION1, block[1]);
  nv_qmd_set(qmd, NVCBC0_QMDV03_00_CTA_THREAD_DIMENSION2, block[2]);
  nv_qmd_set(qmd, NVCBC0_QMDV03_00_SHARED_MEMORY_SIZE, shared);
  nv_qmd_set(qmd, NVCBC0_QMDV03_00_REGISTER_COUNT_V, k.num_regs);
  nv_qmd_set(qmd, NVCBC0_QMDV03_00_PROGRAM_ADDRESS_LOWER, static_cast<NvU32>(code_va));
  nv_qmd_set(qmd, NVCBC0_QMDV03_00_PROGRAM_ADDRESS_UPPER, static_cast<NvU32>(code_va >> 32));
  nv_qmd_set(qmd, NVCBC0_QMDV03_00_SHADER_LOCAL_MEMORY_HIGH_SIZE, static_cast<NvU32>(stack_bytes));
  if (explicit_cluster) {  // thread block clusters (cluster.cpp checked the shape)
    nv_qmd_set(qmd, NVCBC0_QMDV03_00_MINICUDA_CLUSTER_WIDTH, cluster[0]);
    nv_qmd_set(qmd, NVCBC0_QMDV03_00_MINICUDA_CLUSTER_HEIGHT, cluster[1]);
    nv_qmd_set(qmd, NVCBC0_QMDV03_00_MINICUDA_CLUSTER_DEPTH, cluster[2]);
    nv_qmd_set(qmd, NVCBC0_QMDV03_00_MINICUDA_CLUSTER_EXPLICIT, 1);
  }
  auto bank = [&qmd](NvU32 i, uint64_t va, uint64_t bytes) {
    nv_qmd_set(qmd, NVCBC0_QMDV03_00_CONSTANT_BUFFER_VALID(i), 1);
    nv_qmd_set(qmd, NVCBC0_QMDV03_00_CONSTANT_BUFFER_ADDR_LOWER(i), static_cast<NvU32>(va));
    nv_qmd_set(qmd, NVCBC0_QMDV03_00_CONSTANT_BUFFER_ADDR_UPPER(i), static_cast<NvU32>(va >> 32));
    nv_qmd_set(qmd, NVCBC0_QMDV03_00_CONSTANT_BUFFER_SIZE_SHIFTED4(i), static_cast<NvU32>(bytes >> 4));
  };
  if (cbank_bytes != 0) bank(NV_QMD_CBANK_PARAMS, data.va + NVCBC0_QMD_BYTES, cbank_bytes);
  bank(NV_QMD_CBANK_PRINTF, ch.printf_va(), Channel::kPrintfBytes);
  bank(NV_QMD_CBANK_DEVRT, data.va + devrt_offset, sizeof(NvMinicudaDeviceRuntime));
  // The device malloc heap (device_heap.cpp): the bank is its header, which holds its size (a
  // constant bank's size field has 13 bits of 16-byte units).
  if (heap_va != 0) bank(NV_QMD_CBANK_HEAP, heap_va, sizeof(NvMinicudaDeviceHeap));
  if (cooperative) {
    NvMinicudaGridWorkspace ws{};
    ws.size = sizeof ws;
    std::memcpy(data.cpu + workspace_offset, &ws, sizeof ws);
    bank(NV_QMD_CBANK_COOPERATIVE, data.va + workspace_offset, sizeof ws);
  }
  std::memcpy(data.cpu, qmd, sizeof qmd);

  trace::note(trace::Layer::Libcuda, "launch: {} grid ({},{},{}) block ({},{},{}), QMD at {:#x}, {} B of parameters",
              k.name, grid[0], grid[1], grid[2], block[0], block[1], block[2], data.va, k.param_bytes);
  ch.method(NV_SUBCHANNEL_COMPUTE, NVCBC0_MINICUDA_SET_PCAS_ADDRESS_UPPER, {static_cast<uint32_t>(data.va >> 40)});
  ch.method(NV_SUBCHANNEL_COMPUTE, NVCBC0_SEND_PCAS_A, {static_cast<uint32_t>(data.va >> 8)});
  ch.method(NV_SUBCHANNEL_COMPUTE, NVCBC0_SEND_SIGNALING_PCAS2_B,
            {nv_drf_num(NVCBC0_SEND_SIGNALING_PCAS2_B_PCAS_ACTION,
                        NVCBC0_SEND_SIGNALING_PCAS2_B_PCAS_ACTION_PREFETCH_SCHEDULE)});
  return ch.submit();
}

// cuLaunchKernel and cuLaunchKernel_ptsz: api names the entry point in the trace, mode what
// hStream 0 means.
CUresult launch_kernel(const char* api, DefaultStream mode, CUfunction f, const unsigned (&grid)[3],
                       const unsigned (&block)[3], unsigned int sharedMemBytes, CUstream hStream, void** kernelParams,
                       void** extra, bool cooperative = false, const unsigned* cluster_request = nullptr) {
  trace::Scope scope(trace::Layer::Libcuda, "{}(f={}, grid=({},{},{}), block=({},{},{}), sharedMemBytes={}, hStream={})",
                     api, static_cast<void*>(f), grid[0], grid[1], grid[2], block[0], block[1], block[2],
                     sharedMemBytes, static_cast<void*>(hStream));
  std::lock_guard lock(driver_mutex());
  CUcontext ctx = nullptr;
  if (CUresult r = require_context(&ctx); r != CUDA_SUCCESS) return done(scope, r);
  CUfunc_st* fn = find_function(f);
  if (fn == nullptr) return done(scope, CUDA_ERROR_INVALID_HANDLE);
  ExtraBuffer buffer;
  if (extra != nullptr) {
    if (CUresult r = read_extra(extra, *fn->image, kernelParams != nullptr, &buffer); r != CUDA_SUCCESS)
      return done(scope, r);
  }
  if (CUresult r = check_config(*ctx, *fn, grid, block, sharedMemBytes); r != CUDA_SUCCESS) return done(scope, r);
  unsigned cluster[3] = {1, 1, 1};
  bool explicit_cluster = false;
  if (CUresult r = cluster_for_launch(*ctx, *fn, grid, block, sharedMemBytes, cluster_request, cluster, &explicit_cluster);
      r != CUDA_SUCCESS)
    return done(scope, r);
  if (cooperative) {  // every block must be resident at once: the occupancy of one SM times the SMs
    const uint64_t blocks = uint64_t{grid[0]} * grid[1] * grid[2];
    const NvU32 threads = block[0] * block[1] * block[2];
    const NvOccupancy per_sm =
        nv_occupancy(sm_limits(*ctx), threads, fn->image->num_regs, block_shared_bytes(*fn, sharedMemBytes));
    const uint64_t resident = uint64_t{per_sm.blocks_per_sm} *
                              static_cast<uint64_t>(attribute(*ctx, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT));
    if (blocks > resident) {
      trace::note(trace::Layer::Libcuda, "cooperative launch refused: {} blocks > {} resident at once", blocks, resident);
      return done(scope, CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE);
    }
  }
  if (kernelParams == nullptr && !buffer.named && fn->image->param_count != 0) {
    trace::note(trace::Layer::Libcuda, "launch refused: {} has {} parameters and neither kernelParams nor extra gives them",
                fn->image->name, fn->image->param_count);
    return done(scope, CUDA_ERROR_INVALID_VALUE);
  }
  CUstream_st* stream = nullptr;
  if (CUresult r = resolve_stream(*ctx, hStream, &stream, mode); r != CUDA_SUCCESS) return done(scope, r);
  uint64_t code_va = 0, heap_va = 0, heap_bytes = 0;
  if (CUresult r = function_code(*ctx, *fn, &code_va); r != CUDA_SUCCESS) return done(scope, r);
  if (CUresult r = device_heap_for_launch(*ctx, *fn, &heap_va, &heap_bytes); r != CUDA_SUCCESS) return done(scope, r);
  Channel& ch = channel_of(*ctx, stream);
  if (cooperative) {  // its grid workspace is written by the GPU: fresh for every launch
    if (CUresult r = prebuilt::refuse_if_recording(ch, "a cooperative launch"); r != CUDA_SUCCESS) return done(scope, r);
  }
  // What the call costs the host; the launch is stamped after it.
  host_clock::spend(prebuilt::host_cost(ch, host_clock::kLaunchNs));
  order_with_null_stream(*ctx, stream);
  uint64_t fence = push_launch(ch, *fn, code_va, grid, block, sharedMemBytes, kernelParams, buffer, cooperative,
                               ctx->limits[CU_LIMIT_STACK_SIZE], ctx->limits[CU_LIMIT_DEV_RUNTIME_PENDING_LAUNCH_COUNT],
                               heap_va, cluster, explicit_cluster);
  submitted(stream, fence);
  if (driver().launch_blocking && prebuilt::recording_for(ch) == nullptr) {
    if (CUresult r = ch.wait(fence); r != CUDA_SUCCESS) return done(scope, *ctx, r);
  }
  return done(scope, CUDA_SUCCESS);
}

}  // namespace

// Contract: see cuda.h. The launch is queued (returns before the kernel runs) unless
// CUDA_LAUNCH_BLOCKING=1, when it returns the kernel's error, if any (sticky). It costs this
// thread 4.3 us of simulated host time, and the kernel cannot start before then (host_clock.h).
CUresult cuLaunchKernel(CUfunction f, unsigned int gridDimX, unsigned int gridDimY, unsigned int gridDimZ,
                        unsigned int blockDimX, unsigned int blockDimY, unsigned int blockDimZ,
                        unsigned int sharedMemBytes, CUstream hStream, void** kernelParams, void** extra) {
  return launch_kernel("cuLaunchKernel", DefaultStream::Legacy, f, {gridDimX, gridDimY, gridDimZ},
                       {blockDimX, blockDimY, blockDimZ}, sharedMemBytes, hStream, kernelParams, extra);
}

// Contract: as cuLaunchKernel; hStream 0 is this thread's per-thread stream.
CUresult cuLaunchKernel_ptsz(CUfunction f, unsigned int gridDimX, unsigned int gridDimY, unsigned int gridDimZ,
                             unsigned int blockDimX, unsigned int blockDimY, unsigned int blockDimZ,
                             unsigned int sharedMemBytes, CUstream hStream, void** kernelParams, void** extra) {
  return launch_kernel("cuLaunchKernel_ptsz", DefaultStream::PerThread, f, {gridDimX, gridDimY, gridDimZ},
                       {blockDimX, blockDimY, blockDimZ}, sharedMemBytes, hStream, kernelParams, extra);
}

// Contract: see cuda.h. As cuLaunchKernel (no `extra`), and every block must be resident at once.
CUresult cuLaunchCooperativeKernel(CUfunction f, unsigned int gridDimX, unsigned int gridDimY, unsigned int gridDimZ,
                                   unsigned int blockDimX, unsigned int blockDimY, unsigned int blockDimZ,
                                   unsigned int sharedMemBytes, CUstream hStream, void** kernelParams) {
  return launch_kernel("cuLaunchCooperativeKernel", DefaultStream::Legacy, f, {gridDimX, gridDimY, gridDimZ},
                       {blockDimX, blockDimY, blockDimZ}, sharedMemBytes, hStream, kernelParams, nullptr, true);
}

namespace {
// cuLaunchKernelEx and its _ptsz twin: the attributes decide between a plain and a cooperative launch.
CUresult launch_kernel_ex(const char* api, DefaultStream mode, const CUlaunchConfig* config, CUfunction f,
                          void** kernelParams, void** extra) {
  auto refuse = [&](CUresult r, std::string why) {
    trace::Scope scope(trace::Layer::Libcuda, "{}(config={}, f={})", api, static_cast<const void*>(config),
                       static_cast<void*>(f));
    trace::note(trace::Layer::Libcuda, "{}: {}", api, why);
    return done(scope, r);
  };
  if (config == nullptr) return refuse(CUDA_ERROR_INVALID_VALUE, "config is NULL");
  if (config->numAttrs != 0 && config->attrs == nullptr)
    return refuse(CUDA_ERROR_INVALID_VALUE, fmt::format("{} attributes at NULL", config->numAttrs));
  bool cooperative = false;
  unsigned cluster[3] = {0, 0, 0};
  bool has_cluster = false;
  for (unsigned i = 0; i < config->numAttrs; ++i) {
    const CUlaunchAttribute& a = config->attrs[i];
    const auto& v = a.value;
    if (a.id == CU_LAUNCH_ATTRIBUTE_IGNORE) continue;
    if (a.id == CU_LAUNCH_ATTRIBUTE_COOPERATIVE) {
      cooperative = v.cooperative != 0;
      continue;
    }
    if (a.id == CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION) {  // checked with the launch (cluster.cpp)
      cluster[0] = v.clusterDim.x, cluster[1] = v.clusterDim.y, cluster[2] = v.clusterDim.z;
      has_cluster = true;
      continue;
    }
    const int id = static_cast<int>(a.id);
    if (id < 0 || id > CU_LAUNCH_ATTRIBUTE_NVLINK_UTIL_CENTRIC_SCHEDULING || id == 15)
      return refuse(CUDA_ERROR_INVALID_VALUE, fmt::format("attrs[{}].id = {} is not a launch attribute", i, id));
    return refuse(CUDA_ERROR_NOT_SUPPORTED,
                  fmt::format("launch attribute {} (attrs[{}]) is not supported by minicuda", id, i));
  }
  return launch_kernel(api, mode, f, {config->gridDimX, config->gridDimY, config->gridDimZ},
                       {config->blockDimX, config->blockDimY, config->blockDimZ}, config->sharedMemBytes,
                       config->hStream, kernelParams, extra, cooperative, has_cluster ? cluster : nullptr);
}
}  // namespace

// Contract: see cuda_launch.h.
CUresult cuLaunchKernelEx(const CUlaunchConfig* config, CUfunction f, void** kernelParams, void** extra) {
  return launch_kernel_ex("cuLaunchKernelEx", DefaultStream::Legacy, config, f, kernelParams, extra);
}

// Contract: as cuLaunchKernelEx; hStream 0 is this thread's per-thread stream.
CUresult cuLaunchKernelEx_ptsz(const CUlaunchConfig* config, CUfunction f, void** kernelParams, void** extra) {
  return launch_kernel_ex("cuLaunchKernelEx_ptsz", DefaultStream::PerThread, config, f, kernelParams, extra);
}

// Contract: *pi = the attribute of hfunc. NULL pi: CUDA_ERROR_INVALID_VALUE; unknown function:
// CUDA_ERROR_INVALID_HANDLE; an attribute minicuda does not know: CUDA_ERROR_INVALID_VALUE.
CUresult cuFuncGetAttribute(int* pi, CUfunction_attribute attrib, CUfunction hfunc) {
  trace::Scope scope(trace::Layer::Libcuda, "cuFuncGetAttribute(attrib={}, hfunc={})", static_cast<int>(attrib),
                     static_cast<void*>(hfunc));
  std::lock_guard lock(driver_mutex());
  if (pi == nullptr) return done(scope, CUDA_ERROR_INVALID_VALUE);
  CUfunc_st* f = find_function(hfunc);
  if (f == nullptr) return done(scope, CUDA_ERROR_INVALID_HANDLE);
  if (cluster_attribute(*f, attrib, pi)) return done(scope, CUDA_SUCCESS);
  if (f->ptx != nullptr) return done(scope, ptx_attribute(*f, attrib, pi));
  switch (attrib) {
    case CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK: *pi = 1024; break;
    case CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES: *pi = 0; break;  // static __shared__ is not measured
    case CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES: *pi = 0; break;
    case CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES: *pi = 0; break;
    case CU_FUNC_ATTRIBUTE_NUM_REGS: *pi = static_cast<int>(f->image->num_regs); break;
    case CU_FUNC_ATTRIBUTE_PTX_VERSION:
    case CU_FUNC_ATTRIBUTE_BINARY_VERSION: *pi = 90; break;
    case CU_FUNC_ATTRIBUTE_CACHE_MODE_CA: *pi = 0; break;
    case CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES: *pi = f->max_dynamic_shared; break;
    case CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT: *pi = f->carveout; break;
    default: return done(scope, CUDA_ERROR_INVALID_VALUE);
  }
  return done(scope, CUDA_SUCCESS);
}

// Contract: *name = the function's name. NULL name or an unknown (or NULL) function:
// CUDA_ERROR_INVALID_VALUE, as on the H200 (probe_module.txt func_get_name).
CUresult cuFuncGetName(const char** name, CUfunction hfunc) {
  trace::Scope scope(trace::Layer::Libcuda, "cuFuncGetName(hfunc={})", static_cast<void*>(hfunc));
  std::lock_guard lock(driver_mutex());
  if (name == nullptr) return done(scope, CUDA_ERROR_INVALID_VALUE);
  CUfunc_st* f = find_function(hfunc);
  if (f == nullptr) return done(scope, CUDA_ERROR_INVALID_VALUE);
  *name = f->image->name;
  return done(scope, CUDA_SUCCESS);
}

// Contract: sets MAX_DYNAMIC_SHARED_SIZE_BYTES (0 .. sharedMemPerBlockOptin less the function's
// static __shared__), the preferred carveout (-1 .. 100), or a cluster attribute (cluster.cpp:
// NON_PORTABLE_CLUSTER_SIZE_ALLOWED 0 or 1, the scheduling policy 0 .. 2, REQUIRED_CLUSTER_* >= 0,
// which a kernel compiled with its cluster shape refuses with CUDA_ERROR_NOT_PERMITTED). Out of
// range or another attribute: CUDA_ERROR_INVALID_VALUE; unknown function: CUDA_ERROR_INVALID_HANDLE.
CUresult cuFuncSetAttribute(CUfunction hfunc, CUfunction_attribute attrib, int value) {
  trace::Scope scope(trace::Layer::Libcuda, "cuFuncSetAttribute(hfunc={}, attrib={}, value={})",
                     static_cast<void*>(hfunc), static_cast<int>(attrib), value);
  std::lock_guard lock(driver_mutex());
  if (CUresult r = check_initialized(); r != CUDA_SUCCESS) return done(scope, r);
  CUfunc_st* f = find_function(hfunc);
  if (f == nullptr) return done(scope, CUDA_ERROR_INVALID_HANDLE);
  int optin = 0;
  (void)device_attribute(*device_info(0), CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, &optin);
  const auto static_shared = static_cast<int64_t>(block_shared_bytes(*f, 0));
  if (attrib == CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES && value >= 0 && value + static_shared <= optin) {
    f->max_dynamic_shared = value;
  } else if (attrib == CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT && value >= -1 && value <= 100) {
    f->carveout = value;
  } else if (CUresult r = CUDA_SUCCESS; set_cluster_attribute(*f, attrib, value, &r)) {
    return done(scope, r);
  } else {
    return done(scope, CUDA_ERROR_INVALID_VALUE);
  }
  return done(scope, CUDA_SUCCESS);
}
