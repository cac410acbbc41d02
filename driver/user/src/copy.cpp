// Copies and memsets: cuMemcpy{HtoD,DtoH,DtoD}_v2, cuMemcpy and cuMemsetD{8,16,32}_v2.
//
// Every one becomes copy-engine methods in the context's channel (channel.h): OFFSET_IN/OUT,
// LINE_LENGTH_IN and LAUNCH_DMA, or SET_REMAP_CONST_A/COMPONENTS for a memset, then a submit.
// None makes a system call. Where the data is:
//   - device memory and pinned host memory: the copy engine reads and writes it directly (UVA);
//   - pageable host memory: the CPU copies it through the context's pinned staging buffer, in
//     pieces of the buffer's size, and the copy engine moves each piece (real-stack.md §2.6).
// The host waits (polling the channel's semaphore) where the real stack does: after every
// piece that goes through the staging buffer, after a copy to the host, and after a copy from
// pinned memory; copies between device allocations and memsets of device memory do not wait.
#include <sys/uio.h>
#include <unistd.h>

#include <cstring>

#include "channel.h"
#include "prebuilt.h"
#include "copy.h"
#include "host_clock.h"
#include "class/clc86f.h"
#include "class/clc8b5.h"
#include "pool.h"
#include "vmm.h"

namespace minicuda::libcuda {

constexpr uint64_t kMaxLine = 1ull << 31;  // LINE_LENGTH_IN is 32-bit: copies go in pieces

// Where [addr, addr+n) lives, as far as the copy engine is concerned. Device and pinned ranges
// must stay inside one allocation.
bool classify(CUctx_st& ctx, uint64_t addr, uint64_t n, Where* where) {
  uint64_t start = 0, size = 0, chunk = 0, chunk_size = 0;
  if (ctx.pool->find(addr, &start, &size, &chunk, &chunk_size)) {
    *where = Where::Device;
    return n <= start + size - addr;
  }
  if (vmm_covers(ctx, addr, n)) {  // mappings of cuMemMap with access (vmm.h)
    *where = Where::Device;
    return true;
  }
  auto it = ctx.host_allocs.upper_bound(addr);
  if (it != ctx.host_allocs.begin()) {
    --it;
    if (addr < it->first + it->second.size) {
      *where = Where::Pinned;
      return n <= it->first + it->second.size - addr;
    }
  }
  *where = Where::Pageable;
  // The context's device VA window holds no host memory: a range touching it outside a live
  // allocation (a freed or never-allocated device pointer) is not pageable memory to copy.
  uint64_t window_end = ctx.va_base + ctx.va_size;
  if (addr < window_end && (n > UINT64_MAX - addr || addr + n > ctx.va_base)) return false;
  return addr != 0;
}

namespace {
// The CPU side of staging: copies that may touch a bad user pointer go through
// process_vm_readv/writev on this process, which fail with EFAULT instead of crashing.
bool safe_copy(void* dst, const void* src, size_t n) {
  iovec local{dst, n}, remote{const_cast<void*>(src), n};
  return process_vm_readv(getpid(), &local, 1, &remote, 1, 0) == static_cast<ssize_t>(n);
}
bool safe_store(void* dst, const void* src, size_t n) {
  iovec local{const_cast<void*>(src), n}, remote{dst, n};
  return process_vm_writev(getpid(), &local, 1, &remote, 1, 0) == static_cast<ssize_t>(n);
}
}  // namespace

// Pushes one copy-engine copy of n bytes (any size; split into lines the engine accepts).
void push_copy(Channel& ch, uint64_t dst, uint64_t src, uint64_t n) {
  while (n > 0) {
    uint64_t piece = n < kMaxLine ? n : kMaxLine;
    ch.method(NV_SUBCHANNEL_COPY, NVC8B5_OFFSET_IN_UPPER,
              {static_cast<uint32_t>(src >> 32), static_cast<uint32_t>(src), static_cast<uint32_t>(dst >> 32),
               static_cast<uint32_t>(dst)});
    ch.method(NV_SUBCHANNEL_COPY, NVC8B5_LINE_LENGTH_IN, {static_cast<uint32_t>(piece)});
    ch.method(NV_SUBCHANNEL_COPY, NVC8B5_LAUNCH_DMA, {nv_launch_dma_copy()});
    src += piece;
    dst += piece;
    n -= piece;
  }
}

// The copy, whatever the two sides are. Validates both ranges first.
// stream: where the work goes (null: the NULL stream); its last fence is updated. async (the
// *Async calls): a copy the engine does alone (device or pinned memory on both sides) is not
// waited for; pageable memory is staged, and so waited for, either way (as on the real stack).
CUresult copy(CUctx_st& ctx, uint64_t dst, uint64_t src, uint64_t n, CUstream_st* stream, bool async) {
  if (n == 0) return CUDA_SUCCESS;
  Channel& ch = channel_of(ctx, stream);
  if (is_managed(dst, n) || is_managed(src, n)) {
    if (CUresult r = prebuilt::refuse_if_recording(ch, "a copy of managed memory"); r != CUDA_SUCCESS) return r;
    return managed_copy(ctx, dst, src, n);
  }
  Where to, from;
  if (!classify(ctx, dst, n, &to) || !classify(ctx, src, n, &from)) return CUDA_ERROR_INVALID_VALUE;
  if (from == Where::Pageable || to == Where::Pageable) {
    if (CUresult r = prebuilt::refuse_if_recording(ch, "a copy through the staging buffer"); r != CUDA_SUCCESS)
      return r;
  }
  host_clock::spend(prebuilt::host_cost(ch, host_clock::kCopyNs));
  order_with_null_stream(ctx, stream);
  if (from != Where::Pageable && to != Where::Pageable) {
    trace::note(trace::Layer::Libcuda, "copy: {} B by the copy engine, {:#x} -> {:#x}", n, src, dst);
    push_copy(ch, dst, src, n);
    uint64_t fence = ch.submit();
    submitted(stream, fence);
    // Device to device runs on while the host goes on; anything touching host memory is waited for.
    return (async || (from == Where::Device && to == Where::Device)) ? CUDA_SUCCESS : ch.wait(fence);
  }
  auto* staging = static_cast<uint8_t*>(ctx.staging);
  uint64_t staging_va = reinterpret_cast<uint64_t>(staging);
  trace::note(trace::Layer::Libcuda, "copy: {} B of pageable memory through the pinned staging buffer {:#x}", n, staging_va);
  for (uint64_t done_bytes = 0; done_bytes < n;) {
    uint64_t piece = std::min(kStagingBytes, n - done_bytes);
    // The CPU's memcpy into and out of the staging buffer costs host time (host_clock.h); the
    // copy engine's piece starts after it, and the memcpy out after the piece's wait.
    if (from == Where::Pageable && to == Where::Pageable) {
      if (!safe_copy(staging, reinterpret_cast<void*>(src + done_bytes), piece) ||
          !safe_store(reinterpret_cast<void*>(dst + done_bytes), staging, piece)) {
        return CUDA_ERROR_INVALID_VALUE;
      }
      host_clock::spend(host_clock::staging_ns(piece, true) + host_clock::staging_ns(piece, false));
    } else if (from == Where::Pageable) {
      if (!safe_copy(staging, reinterpret_cast<void*>(src + done_bytes), piece)) return CUDA_ERROR_INVALID_VALUE;
      host_clock::spend(host_clock::staging_ns(piece, true));
      push_copy(ch, dst + done_bytes, staging_va, piece);
      if (CUresult r = ch.wait(ch.submit()); r != CUDA_SUCCESS) return r;
    } else {
      push_copy(ch, staging_va, src + done_bytes, piece);
      if (CUresult r = ch.wait(ch.submit()); r != CUDA_SUCCESS) return r;
      if (!safe_store(reinterpret_cast<void*>(dst + done_bytes), staging, piece)) return CUDA_ERROR_INVALID_VALUE;
      host_clock::spend(host_clock::staging_ns(piece, false));
    }
    done_bytes += piece;
  }
  submitted(stream, ch.last_fence());
  return CUDA_SUCCESS;
}

// cuMemsetD*: N elements of `bytes` each, by the copy engine's remap-constant memset.
CUresult memset(CUctx_st& ctx, uint64_t dst, uint32_t value, uint32_t bytes, uint64_t n, CUstream_st* stream,
                bool async) {
  if (n == 0) return CUDA_SUCCESS;
  if (dst % bytes != 0 || n > UINT64_MAX / bytes) return CUDA_ERROR_INVALID_VALUE;
  Channel& ch = channel_of(ctx, stream);
  if (is_managed(dst, n * bytes)) {
    if (CUresult r = prebuilt::refuse_if_recording(ch, "a memset of managed memory"); r != CUDA_SUCCESS) return r;
    return managed_memset(ctx, dst, value, bytes, n);
  }
  Where to;
  if (!classify(ctx, dst, n * bytes, &to) || to == Where::Pageable) return CUDA_ERROR_INVALID_VALUE;
  host_clock::spend(prebuilt::host_cost(ch, host_clock::kCopyNs));  // submitted as a copy is
  order_with_null_stream(ctx, stream);
  for (uint64_t done_elems = 0; done_elems < n;) {
    uint64_t piece = std::min<uint64_t>(n - done_elems, kMaxLine / bytes);
    uint64_t va = dst + done_elems * bytes;
    ch.method(NV_SUBCHANNEL_COPY, NVC8B5_SET_REMAP_CONST_A, {value});
    ch.method(NV_SUBCHANNEL_COPY, NVC8B5_SET_REMAP_COMPONENTS, {nv_remap_memset(bytes)});
    ch.method(NV_SUBCHANNEL_COPY, NVC8B5_OFFSET_OUT_UPPER, {static_cast<uint32_t>(va >> 32), static_cast<uint32_t>(va)});
    ch.method(NV_SUBCHANNEL_COPY, NVC8B5_LINE_LENGTH_IN, {static_cast<uint32_t>(piece)});
    ch.method(NV_SUBCHANNEL_COPY, NVC8B5_LAUNCH_DMA,
              {nv_launch_dma_copy(NVC8B5_LAUNCH_DMA_SEMAPHORE_TYPE_NONE, false, /*remap=*/true)});
    done_elems += piece;
  }
  uint64_t fence = ch.submit();
  submitted(stream, fence);
  return to == Where::Pinned && !async ? ch.wait(fence) : CUDA_SUCCESS;
}

// Both ranges must be of the kinds named (Device, or host: Pinned or Pageable).
bool is_device(CUctx_st& ctx, uint64_t p, uint64_t n) {
  Where where;
  return is_managed(p, n) || (classify(ctx, p, n, &where) && where == Where::Device);
}

namespace {

// Each entry point and its _ptds/_ptsz twin share one of these: api is the name the trace shows,
// mode what stream 0 is (and, for the synchronous calls, the stream they use: the legacy stream
// or the per-thread stream; they wait as copy() says). Each starts as every entry point that
// needs the context does (libcuda.h), then finds its stream; a failure of the copy that a GPU
// fault explains is returned as the context's sticky error (done(scope, ctx, r)).
CUresult memcpy_htod(const char* api, DefaultStream mode, CUdeviceptr dstDevice, const void* srcHost,
                     size_t ByteCount) {
  trace::Scope scope(trace::Layer::Libcuda, "{}(dstDevice={:#x}, srcHost={}, ByteCount={})", api, dstDevice, srcHost,
                     ByteCount);
  std::lock_guard lock(driver_mutex());
  CUcontext ctx = nullptr;
  if (CUresult r = require_context(&ctx); r != CUDA_SUCCESS) return done(scope, r);
  CUstream_st* stream = nullptr;
  if (CUresult r = resolve_stream(*ctx, nullptr, &stream, mode); r != CUDA_SUCCESS) return done(scope, r);
  CUctx_st* owner = device_owner(*ctx, dstDevice, ByteCount);
  if (owner == nullptr) return done(scope, *ctx, CUDA_ERROR_INVALID_VALUE);
  return done(scope, *ctx,
              copy_uva(*ctx, dstDevice, owner, reinterpret_cast<uint64_t>(srcHost), nullptr, ByteCount, stream, false));
}
CUresult memcpy_dtoh(const char* api, DefaultStream mode, void* dstHost, CUdeviceptr srcDevice, size_t ByteCount) {
  trace::Scope scope(trace::Layer::Libcuda, "{}(dstHost={}, srcDevice={:#x}, ByteCount={})", api, dstHost, srcDevice,
                     ByteCount);
  std::lock_guard lock(driver_mutex());
  CUcontext ctx = nullptr;
  if (CUresult r = require_context(&ctx); r != CUDA_SUCCESS) return done(scope, r);
  CUstream_st* stream = nullptr;
  if (CUresult r = resolve_stream(*ctx, nullptr, &stream, mode); r != CUDA_SUCCESS) return done(scope, r);
  CUctx_st* owner = device_owner(*ctx, srcDevice, ByteCount);
  if (owner == nullptr) return done(scope, *ctx, CUDA_ERROR_INVALID_VALUE);
  return done(scope, *ctx,
              copy_uva(*ctx, reinterpret_cast<uint64_t>(dstHost), nullptr, srcDevice, owner, ByteCount, stream, false));
}
CUresult memcpy_dtod(const char* api, DefaultStream mode, CUdeviceptr dstDevice, CUdeviceptr srcDevice,
                     size_t ByteCount) {
  trace::Scope scope(trace::Layer::Libcuda, "{}(dstDevice={:#x}, srcDevice={:#x}, ByteCount={})", api, dstDevice,
                     srcDevice, ByteCount);
  std::lock_guard lock(driver_mutex());
  CUcontext ctx = nullptr;
  if (CUresult r = require_context(&ctx); r != CUDA_SUCCESS) return done(scope, r);
  CUstream_st* stream = nullptr;
  if (CUresult r = resolve_stream(*ctx, nullptr, &stream, mode); r != CUDA_SUCCESS) return done(scope, r);
  CUctx_st* dst_owner = device_owner(*ctx, dstDevice, ByteCount);
  CUctx_st* src_owner = device_owner(*ctx, srcDevice, ByteCount);
  if (dst_owner == nullptr || src_owner == nullptr) return done(scope, *ctx, CUDA_ERROR_INVALID_VALUE);
  return done(scope, *ctx, copy_uva(*ctx, dstDevice, dst_owner, srcDevice, src_owner, ByteCount, stream, false));
}
CUresult memcpy_any(const char* api, DefaultStream mode, CUdeviceptr dst, CUdeviceptr src, size_t ByteCount) {
  trace::Scope scope(trace::Layer::Libcuda, "{}(dst={:#x}, src={:#x}, ByteCount={})", api, dst, src, ByteCount);
  std::lock_guard lock(driver_mutex());
  CUcontext ctx = nullptr;
  if (CUresult r = require_context(&ctx); r != CUDA_SUCCESS) return done(scope, r);
  CUstream_st* stream = nullptr;
  if (CUresult r = resolve_stream(*ctx, nullptr, &stream, mode); r != CUDA_SUCCESS) return done(scope, r);
  if (CUresult r; copy_across_devices(*ctx, dst, src, ByteCount, stream, &r)) return done(scope, *ctx, r);
  return done(scope, *ctx, copy(*ctx, dst, src, ByteCount, stream));
}
// The three memsets print their value as the real names do: uc, us, ui.
template <uint32_t Bytes>
CUresult memset_d(const char* api, DefaultStream mode, CUdeviceptr dstDevice, uint32_t value, size_t N) {
  constexpr const char* kValue = Bytes == 1 ? "uc" : Bytes == 2 ? "us" : "ui";
  trace::Scope scope(trace::Layer::Libcuda, "{}(dstDevice={:#x}, {}={:#x}, N={})", api, dstDevice, kValue, value, N);
  std::lock_guard lock(driver_mutex());
  CUcontext ctx = nullptr;
  if (CUresult r = require_context(&ctx); r != CUDA_SUCCESS) return done(scope, r);
  CUstream_st* stream = nullptr;
  if (CUresult r = resolve_stream(*ctx, nullptr, &stream, mode); r != CUDA_SUCCESS) return done(scope, r);
  return done(scope, *ctx, memset(*ctx, dstDevice, value, Bytes, N, stream));
}
CUresult memcpy_htod_async(const char* api, DefaultStream mode, CUdeviceptr dstDevice, const void* srcHost,
                           size_t ByteCount, CUstream hStream) {
  trace::Scope scope(trace::Layer::Libcuda, "{}(dstDevice={:#x}, srcHost={}, ByteCount={}, hStream={})", api,
                     dstDevice, srcHost, ByteCount, static_cast<void*>(hStream));
  std::lock_guard lock(driver_mutex());
  CUcontext ctx = nullptr;
  if (CUresult r = require_context(&ctx); r != CUDA_SUCCESS) return done(scope, r);
  CUstream_st* stream = nullptr;
  if (CUresult r = resolve_stream(*ctx, hStream, &stream, mode); r != CUDA_SUCCESS) return done(scope, r);
  CUctx_st* owner = device_owner(*ctx, dstDevice, ByteCount);
  if (owner == nullptr) return done(scope, *ctx, CUDA_ERROR_INVALID_VALUE);
  return done(scope, *ctx,
              copy_uva(*ctx, dstDevice, owner, reinterpret_cast<uint64_t>(srcHost), nullptr, ByteCount, stream, true));
}
CUresult memcpy_dtoh_async(const char* api, DefaultStream mode, void* dstHost, CUdeviceptr srcDevice,
                           size_t ByteCount, CUstream hStream) {
  trace::Scope scope(trace::Layer::Libcuda, "{}(dstHost={}, srcDevice={:#x}, ByteCount={}, hStream={})", api, dstHost,
                     srcDevice, ByteCount, static_cast<void*>(hStream));
  std::lock_guard lock(driver_mutex());
  CUcontext ctx = nullptr;
  if (CUresult r = require_context(&ctx); r != CUDA_SUCCESS) return done(scope, r);
  CUstream_st* stream = nullptr;
  if (CUresult r = resolve_stream(*ctx, hStream, &stream, mode); r != CUDA_SUCCESS) return done(scope, r);
  CUctx_st* owner = device_owner(*ctx, srcDevice, ByteCount);
  if (owner == nullptr) return done(scope, *ctx, CUDA_ERROR_INVALID_VALUE);
  return done(scope, *ctx,
              copy_uva(*ctx, reinterpret_cast<uint64_t>(dstHost), nullptr, srcDevice, owner, ByteCount, stream, true));
}
CUresult memcpy_dtod_async(const char* api, DefaultStream mode, CUdeviceptr dstDevice, CUdeviceptr srcDevice,
                           size_t ByteCount, CUstream hStream) {
  trace::Scope scope(trace::Layer::Libcuda, "{}(dstDevice={:#x}, srcDevice={:#x}, ByteCount={}, hStream={})", api,
                     dstDevice, srcDevice, ByteCount, static_cast<void*>(hStream));
  std::lock_guard lock(driver_mutex());
  CUcontext ctx = nullptr;
  if (CUresult r = require_context(&ctx); r != CUDA_SUCCESS) return done(scope, r);
  CUstream_st* stream = nullptr;
  if (CUresult r = resolve_stream(*ctx, hStream, &stream, mode); r != CUDA_SUCCESS) return done(scope, r);
  CUctx_st* dst_owner = device_owner(*ctx, dstDevice, ByteCount);
  CUctx_st* src_owner = device_owner(*ctx, srcDevice, ByteCount);
  if (dst_owner == nullptr || src_owner == nullptr) return done(scope, *ctx, CUDA_ERROR_INVALID_VALUE);
  return done(scope, *ctx, copy_uva(*ctx, dstDevice, dst_owner, srcDevice, src_owner, ByteCount, stream, true));
}
CUresult memcpy_any_async(const char* api, DefaultStream mode, CUdeviceptr dst, CUdeviceptr src, size_t ByteCount,
                          CUstream hStream) {
  trace::Scope scope(trace::Layer::Libcuda, "{}(dst={:#x}, src={:#x}, ByteCount={}, hStream={})", api, dst, src,
                     ByteCount, static_cast<void*>(hStream));
  std::lock_guard lock(driver_mutex());
  CUcontext ctx = nullptr;
  if (CUresult r = require_context(&ctx); r != CUDA_SUCCESS) return done(scope, r);
  CUstream_st* stream = nullptr;
  if (CUresult r = resolve_stream(*ctx, hStream, &stream, mode); r != CUDA_SUCCESS) return done(scope, r);
  if (CUresult r; copy_across_devices(*ctx, dst, src, ByteCount, stream, &r)) return done(scope, *ctx, r);
  return done(scope, *ctx, copy(*ctx, dst, src, ByteCount, stream, true));
}
CUresult memset_d8_async(const char* api, DefaultStream mode, CUdeviceptr dstDevice, unsigned char uc, size_t N,
                         CUstream hStream) {
  trace::Scope scope(trace::Layer::Libcuda, "{}(dstDevice={:#x}, uc={:#x}, N={}, hStream={})", api, dstDevice, uc, N,
                     static_cast<void*>(hStream));
  std::lock_guard lock(driver_mutex());
  CUcontext ctx = nullptr;
  if (CUresult r = require_context(&ctx); r != CUDA_SUCCESS) return done(scope, r);
  CUstream_st* stream = nullptr;
  if (CUresult r = resolve_stream(*ctx, hStream, &stream, mode); r != CUDA_SUCCESS) return done(scope, r);
  return done(scope, *ctx, memset(*ctx, dstDevice, uc, 1, N, stream, true));
}

}  // namespace

}  // namespace minicuda::libcuda

using namespace minicuda;
using namespace minicuda::libcuda;

// Contracts: see cuda.h. Each call that copies or sets bytes costs this thread 2.3 us of
// simulated host time, plus the CPU's staging of pageable memory (host_clock.h); a wait moves
// the clock on to when the work completed. All return CUDA_ERROR_INVALID_CONTEXT without a
// current context, CUDA_ERROR_INVALID_VALUE for a device range that leaves its allocation, a
// NULL or unknown device pointer, or an unreadable/unwritable host range, and
// CUDA_ERROR_ILLEGAL_ADDRESS if the GPU faulted on the work. The _ptds twins do the same on the
// calling thread's per-thread stream instead of the legacy stream (so they are not ordered with
// other threads' blocking streams), with the same waits. A device pointer of another context
// (another GPU's memory, UVA) is copied by its owning context, after the stream's work so far,
// and complete on return (copy_uva).
CUresult cuMemcpyHtoD_v2(CUdeviceptr dstDevice, const void* srcHost, size_t ByteCount) {
  return memcpy_htod("cuMemcpyHtoD_v2", DefaultStream::Legacy, dstDevice, srcHost, ByteCount);
}
CUresult cuMemcpyHtoD_v2_ptds(CUdeviceptr dstDevice, const void* srcHost, size_t ByteCount) {
  return memcpy_htod("cuMemcpyHtoD_v2_ptds", DefaultStream::PerThread, dstDevice, srcHost, ByteCount);
}

CUresult cuMemcpyDtoH_v2(void* dstHost, CUdeviceptr srcDevice, size_t ByteCount) {
  return memcpy_dtoh("cuMemcpyDtoH_v2", DefaultStream::Legacy, dstHost, srcDevice, ByteCount);
}
CUresult cuMemcpyDtoH_v2_ptds(void* dstHost, CUdeviceptr srcDevice, size_t ByteCount) {
  return memcpy_dtoh("cuMemcpyDtoH_v2_ptds", DefaultStream::PerThread, dstHost, srcDevice, ByteCount);
}

CUresult cuMemcpyDtoD_v2(CUdeviceptr dstDevice, CUdeviceptr srcDevice, size_t ByteCount) {
  return memcpy_dtod("cuMemcpyDtoD_v2", DefaultStream::Legacy, dstDevice, srcDevice, ByteCount);
}
CUresult cuMemcpyDtoD_v2_ptds(CUdeviceptr dstDevice, CUdeviceptr srcDevice, size_t ByteCount) {
  return memcpy_dtod("cuMemcpyDtoD_v2_ptds", DefaultStream::PerThread, dstDevice, srcDevice, ByteCount);
}

CUresult cuMemcpy(CUdeviceptr dst, CUdeviceptr src, size_t ByteCount) {
  return memcpy_any("cuMemcpy", DefaultStream::Legacy, dst, src, ByteCount);
}
CUresult cuMemcpy_ptds(CUdeviceptr dst, CUdeviceptr src, size_t ByteCount) {
  return memcpy_any("cuMemcpy_ptds", DefaultStream::PerThread, dst, src, ByteCount);
}

CUresult cuMemsetD8_v2(CUdeviceptr dstDevice, unsigned char uc, size_t N) {
  return memset_d<1>("cuMemsetD8_v2", DefaultStream::Legacy, dstDevice, uc, N);
}
CUresult cuMemsetD8_v2_ptds(CUdeviceptr dstDevice, unsigned char uc, size_t N) {
  return memset_d<1>("cuMemsetD8_v2_ptds", DefaultStream::PerThread, dstDevice, uc, N);
}

CUresult cuMemsetD16_v2(CUdeviceptr dstDevice, unsigned short us, size_t N) {
  return memset_d<2>("cuMemsetD16_v2", DefaultStream::Legacy, dstDevice, us, N);
}
CUresult cuMemsetD16_v2_ptds(CUdeviceptr dstDevice, unsigned short us, size_t N) {
  return memset_d<2>("cuMemsetD16_v2_ptds", DefaultStream::PerThread, dstDevice, us, N);
}

CUresult cuMemsetD32_v2(CUdeviceptr dstDevice, unsigned int ui, size_t N) {
  return memset_d<4>("cuMemsetD32_v2", DefaultStream::Legacy, dstDevice, ui, N);
}
CUresult cuMemsetD32_v2_ptds(CUdeviceptr dstDevice, unsigned int ui, size_t N) {
  return memset_d<4>("cuMemsetD32_v2_ptds", DefaultStream::PerThread, dstDevice, ui, N);
}

// Contracts: see cuda.h. As the calls above, with the work queued on hStream; they return once
// it is queued, except that pageable host memory is staged (and so waited for). The _ptsz twins
// take hStream 0 as the calling thread's per-thread stream.
CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr dstDevice, const void* srcHost, size_t ByteCount, CUstream hStream) {
  return memcpy_htod_async("cuMemcpyHtoDAsync_v2", DefaultStream::Legacy, dstDevice, srcHost, ByteCount, hStream);
}
CUresult cuMemcpyHtoDAsync_v2_ptsz(CUdeviceptr dstDevice, const void* srcHost, size_t ByteCount, CUstream hStream) {
  return memcpy_htod_async("cuMemcpyHtoDAsync_v2_ptsz", DefaultStream::PerThread, dstDevice, srcHost, ByteCount,
                           hStream);
}

CUresult cuMemcpyDtoHAsync_v2(void* dstHost, CUdeviceptr srcDevice, size_t ByteCount, CUstream hStream) {
  return memcpy_dtoh_async("cuMemcpyDtoHAsync_v2", DefaultStream::Legacy, dstHost, srcDevice, ByteCount, hStream);
}
CUresult cuMemcpyDtoHAsync_v2_ptsz(void* dstHost, CUdeviceptr srcDevice, size_t ByteCount, CUstream hStream) {
  return memcpy_dtoh_async("cuMemcpyDtoHAsync_v2_ptsz", DefaultStream::PerThread, dstHost, srcDevice, ByteCount,
                           hStream);
}

CUresult cuMemcpyDtoDAsync_v2(CUdeviceptr dstDevice, CUdeviceptr srcDevice, size_t ByteCount, CUstream hStream) {
  return memcpy_dtod_async("cuMemcpyDtoDAsync_v2", DefaultStream::Legacy, dstDevice, srcDevice, ByteCount, hStream);
}
CUresult cuMemcpyDtoDAsync_v2_ptsz(CUdeviceptr dstDevice, CUdeviceptr srcDevice, size_t ByteCount, CUstream hStream) {
  return memcpy_dtod_async("cuMemcpyDtoDAsync_v2_ptsz", DefaultStream::PerThread, dstDevice, srcDevice, ByteCount,
                           hStream);
}

CUresult cuMemcpyAsync(CUdeviceptr dst, CUdeviceptr src, size_t ByteCount, CUstream hStream) {
  return memcpy_any_async("cuMemcpyAsync", DefaultStream::Legacy, dst, src, ByteCount, hStream);
}
CUresult cuMemcpyAsync_ptsz(CUdeviceptr dst, CUdeviceptr src, size_t ByteCount, CUstream hStream) {
  return memcpy_any_async("cuMemcpyAsync_ptsz", DefaultStream::PerThread, dst, src, ByteCount, hStream);
}

CUresult cuMemsetD8Async(CUdeviceptr dstDevice, unsigned char uc, size_t N, CUstream hStream) {
  return memset_d8_async("cuMemsetD8Async", DefaultStream::Legacy, dstDevice, uc, N, hStream);
}
CUresult cuMemsetD8Async_ptsz(CUdeviceptr dstDevice, unsigned char uc, size_t N, CUstream hStream) {
  return memset_d8_async("cuMemsetD8Async_ptsz", DefaultStream::PerThread, dstDevice, uc, N, hStream);
}
