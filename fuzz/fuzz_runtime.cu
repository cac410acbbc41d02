// libFuzzer target: random sequences of CUDA runtime calls with random arguments, through the
// whole stack (libcudart -> libcuda -> syscalls -> nvidia.ko -> the simulated GPU).
//
// Each input is decoded into up to 48 calls: allocations and frees (device, pinned), copies and
// memsets with any kind and pointers that are live, freed, interior, made up or NULL, and sizes
// from 0 to 2^63; streams, events and host functions, with live, destroyed and made-up handles;
// launches with any configuration; synchronisation, error queries and resets. Pointers into the
// fuzzer's own host memory are only ever given with sizes that fit (a real program that passes
// cudaMemcpy a too-small host buffer corrupts itself; that is not the stack's fault to catch).
// At the end of each input the fuzzer frees what the input left behind, so inputs do not pile up
// state; a device left poisoned by a sticky error is reset. Every call must return an error code
// (never crash, hang or leak), and the process must stay usable for the next input.
#include <fuzzer/FuzzedDataProvider.h>

#include <cuda_runtime.h>

#include <cstdint>
#include <cstring>
#include <vector>

__global__ void fuzz_fill(int* p, int value, unsigned n) {
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] = value;
}

// Unsigned sums: the input's ints may be anything, and signed overflow would be the kernel's
// own undefined behaviour (UBSan reports it in kernel code too).
__global__ void fuzz_block_sum(const unsigned* in, unsigned* out, unsigned n) {
  __shared__ unsigned partial[256];
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (threadIdx.x < 256) partial[threadIdx.x] = i < n ? in[i] : 0;
  __syncthreads();
  if (threadIdx.x == 0 && blockIdx.x < n) {
    unsigned sum = 0;
    for (unsigned t = 0; t < blockDim.x && t < 256; ++t) sum += partial[t];
    out[blockIdx.x] = sum;
  }
}

namespace {

// One of `v` (which must not be empty), chosen by the input.
template <class T>
T pick(FuzzedDataProvider& in, const std::vector<T>& v) {
  return v[in.ConsumeIntegralInRange<size_t>(0, v.size() - 1)];
}

struct Allocation {
  char* p;
  size_t size;
};

// What the current input made, to use and then to clean up.
struct World {
  std::vector<Allocation> device, pinned;
  std::vector<void*> freed;  // pointers already given back: use-after-free candidates
  std::vector<cudaStream_t> streams, destroyed_streams;
  std::vector<cudaEvent_t> events, destroyed_events;
  char host[1 << 16];  // the fuzzer's own pageable memory
};

int g_host_calls = 0;
void CUDART_CB count_call(void*) { ++g_host_calls; }

// Sizes: mostly small (inside one 2 MiB pool chunk), sometimes past a chunk (an allocation of
// its own), 0, and 2^63. Large sizes are rare: each costs the host real page work.
size_t pick_size(FuzzedDataProvider& in) {
  switch (in.ConsumeIntegralInRange(0, 15)) {
    case 0: return 0;
    case 1: return size_t{1} << 63;
    case 2: return in.ConsumeIntegralInRange<size_t>((1 << 20) + 1, 3 << 20);
    default: return in.ConsumeIntegralInRange<size_t>(1, 1 << 14);
  }
}

// A pointer and how many bytes from it the fuzzer may let the stack touch in its own memory.
struct Target {
  void* p;
  size_t host_room;  // SIZE_MAX: not the fuzzer's own memory (device, pinned, freed, made up)
};

Target pick_pointer(FuzzedDataProvider& in, World& w) {
  switch (in.ConsumeIntegralInRange(0, 9)) {
    case 0: return {nullptr, SIZE_MAX};
    case 1: {
      // Made up, and certainly mapped nowhere: below every mapping, or in the kernel's half.
      const uint64_t x = in.ConsumeIntegral<uint64_t>();
      return {reinterpret_cast<void*>(in.ConsumeBool() ? 0x1000 + x % 0xfff000 : 0xffff800000000000ull | x), SIZE_MAX};
    }
    case 2:
      if (!w.freed.empty()) return {pick(in, w.freed), SIZE_MAX};
      [[fallthrough]];
    case 3: {
      const size_t off = in.ConsumeIntegralInRange<size_t>(0, sizeof w.host - 1);
      return {w.host + off, sizeof w.host - off};
    }
    case 4:
      if (!w.pinned.empty()) {
        const Allocation& a = w.pinned[in.ConsumeIntegralInRange<size_t>(0, w.pinned.size() - 1)];
        return {a.p + in.ConsumeIntegralInRange<size_t>(0, a.size + 64), SIZE_MAX};
      }
      [[fallthrough]];
    default:
      if (!w.device.empty()) {
        const Allocation& a = w.device[in.ConsumeIntegralInRange<size_t>(0, w.device.size() - 1)];
        return {a.p + in.ConsumeIntegralInRange<size_t>(0, a.size + 64), SIZE_MAX};
      }
      return {w.host, sizeof w.host};
  }
}

// A size for a copy between two targets that never overruns the fuzzer's own host memory.
// (Device and pinned memory are the stack's to check: sizes past their end must be refused.)
size_t copy_size(FuzzedDataProvider& in, const Target& a, const Target& b) {
  size_t n = pick_size(in);
  const size_t room = a.host_room < b.host_room ? a.host_room : b.host_room;
  if (room != SIZE_MAX && n > room) n = room;
  return n;
}

cudaStream_t pick_stream(FuzzedDataProvider& in, World& w) {
  switch (in.ConsumeIntegralInRange(0, 7)) {
    case 0: return nullptr;
    case 1: return cudaStreamPerThread;
    case 2: return cudaStreamLegacy;
    case 3:
      if (!w.destroyed_streams.empty()) return pick(in, w.destroyed_streams);
      return reinterpret_cast<cudaStream_t>(in.ConsumeIntegral<uintptr_t>());
    default:
      if (!w.streams.empty()) return pick(in, w.streams);
      return nullptr;
  }
}

cudaEvent_t pick_event(FuzzedDataProvider& in, World& w) {
  switch (in.ConsumeIntegralInRange(0, 5)) {
    case 0: return nullptr;
    case 1:
      if (!w.destroyed_events.empty()) return pick(in, w.destroyed_events);
      return reinterpret_cast<cudaEvent_t>(in.ConsumeIntegral<uintptr_t>());
    default:
      if (!w.events.empty()) return pick(in, w.events);
      return nullptr;
  }
}

void one_call(FuzzedDataProvider& in, World& w) {
  switch (in.ConsumeIntegralInRange(0, 21)) {
    case 0: {
      void* p = nullptr;
      const size_t n = pick_size(in);
      if (cudaMalloc(&p, n) == cudaSuccess && p != nullptr) w.device.push_back({static_cast<char*>(p), n});
      break;
    }
    case 1: {
      if (!w.device.empty() && in.ConsumeBool()) {
        const size_t i = in.ConsumeIntegralInRange<size_t>(0, w.device.size() - 1);
        if (cudaFree(w.device[i].p) == cudaSuccess) {
          w.freed.push_back(w.device[i].p);
          w.device.erase(w.device.begin() + static_cast<long>(i));
        }
      } else {
        (void)cudaFree(pick_pointer(in, w).p);  // NULL, freed, interior, host, made up
      }
      break;
    }
    case 2:
    case 3: {
      const Target dst = pick_pointer(in, w), src = pick_pointer(in, w);
      const size_t n = copy_size(in, dst, src);
      (void)cudaMemcpy(dst.p, src.p, n, static_cast<cudaMemcpyKind>(in.ConsumeIntegralInRange(-1, 6)));
      break;
    }
    case 4: {
      const Target dst = pick_pointer(in, w);
      const size_t n = copy_size(in, dst, dst);
      (void)cudaMemset(dst.p, in.ConsumeIntegral<int>(), n);
      break;
    }
    case 5: {
      const Target dst = pick_pointer(in, w), src = pick_pointer(in, w);
      const size_t n = copy_size(in, dst, src);
      (void)cudaMemcpyAsync(dst.p, src.p, n, static_cast<cudaMemcpyKind>(in.ConsumeIntegralInRange(-1, 6)),
                            pick_stream(in, w));
      break;
    }
    case 6: {
      const Target dst = pick_pointer(in, w);
      const size_t n = copy_size(in, dst, dst);
      (void)cudaMemsetAsync(dst.p, in.ConsumeIntegral<int>(), n, pick_stream(in, w));
      break;
    }
    case 7: {
      cudaStream_t s = nullptr;
      const cudaError_t e = in.ConsumeBool() ? cudaStreamCreateWithFlags(&s, in.ConsumeIntegral<uint8_t>())
                                             : cudaStreamCreateWithPriority(&s, 0, in.ConsumeIntegralInRange(-9, 9));
      if (e == cudaSuccess && w.streams.size() < 24) w.streams.push_back(s);
      else if (e == cudaSuccess) (void)cudaStreamDestroy(s);
      break;
    }
    case 8: {
      if (w.streams.empty()) break;
      const size_t i = in.ConsumeIntegralInRange<size_t>(0, w.streams.size() - 1);
      (void)cudaStreamDestroy(w.streams[i]);
      w.destroyed_streams.push_back(w.streams[i]);
      w.streams.erase(w.streams.begin() + static_cast<long>(i));
      break;
    }
    case 9: (void)cudaStreamSynchronize(pick_stream(in, w)); break;
    case 10: (void)cudaStreamQuery(pick_stream(in, w)); break;
    case 11: (void)cudaStreamWaitEvent(pick_stream(in, w), pick_event(in, w), in.ConsumeIntegralInRange(0, 2)); break;
    case 12: {
      cudaEvent_t e = nullptr;
      if (cudaEventCreateWithFlags(&e, in.ConsumeIntegralInRange(0, 7)) == cudaSuccess) {
        if (w.events.size() < 32) w.events.push_back(e);
        else (void)cudaEventDestroy(e);
      }
      break;
    }
    case 13: (void)cudaEventRecord(pick_event(in, w), pick_stream(in, w)); break;
    case 14: {
      float ms = 0;
      (void)cudaEventQuery(pick_event(in, w));
      (void)cudaEventSynchronize(pick_event(in, w));
      (void)cudaEventElapsedTime(in.ConsumeBool() ? &ms : nullptr, pick_event(in, w), pick_event(in, w));
      break;
    }
    case 15: {
      if (w.events.empty()) break;
      const size_t i = in.ConsumeIntegralInRange<size_t>(0, w.events.size() - 1);
      (void)cudaEventDestroy(w.events[i]);
      w.destroyed_events.push_back(w.events[i]);
      w.events.erase(w.events.begin() + static_cast<long>(i));
      break;
    }
    case 16: {
      void* p = nullptr;
      const size_t n = in.ConsumeIntegralInRange<size_t>(0, 1 << 16);
      const cudaError_t e = in.ConsumeBool() ? cudaMallocHost(&p, n) : cudaHostAlloc(&p, n, in.ConsumeIntegral<uint8_t>());
      if (e == cudaSuccess && p != nullptr) w.pinned.push_back({static_cast<char*>(p), n});
      break;
    }
    case 17: {
      if (!w.pinned.empty() && in.ConsumeBool()) {
        const size_t i = in.ConsumeIntegralInRange<size_t>(0, w.pinned.size() - 1);
        (void)cudaFreeHost(w.pinned[i].p);
        w.freed.push_back(w.pinned[i].p);
        w.pinned.erase(w.pinned.begin() + static_cast<long>(i));
      } else {
        (void)cudaFreeHost(pick_pointer(in, w).p);
      }
      break;
    }
    case 18: {
      // A launch whose kernel writes only inside the allocation it is given (the bound n is the
      // allocation's size), with any configuration.
      if (w.device.empty()) break;
      const Allocation& a = w.device[in.ConsumeIntegralInRange<size_t>(0, w.device.size() - 1)];
      // Small grids (every block shape is still possible, and sizes past the limits are
      // refused before anything runs): a block of threads that meet at a barrier costs real
      // fiber switches, which the sanitizers make slower still.
      const dim3 grid(in.ConsumeIntegralInRange(0, 6), in.ConsumeIntegralInRange(0, 2), 1);
      const dim3 block(in.ConsumeIntegralInRange(0, 1100), in.ConsumeIntegralInRange(1, 2), in.ConsumeIntegralInRange(1, 65));
      const size_t shared = in.ConsumeBool() ? 0 : in.ConsumeIntegralInRange<size_t>(0, 64 << 10);
      const unsigned n = static_cast<unsigned>(a.size / sizeof(int));
      if (in.ConsumeBool()) {
        fuzz_fill<<<grid, block, shared, pick_stream(in, w)>>>(reinterpret_cast<int*>(a.p), in.ConsumeIntegral<int>(), n);
      } else {
        fuzz_block_sum<<<grid, block, shared, pick_stream(in, w)>>>(reinterpret_cast<unsigned*>(a.p),
                                                                    reinterpret_cast<unsigned*>(a.p), n);
      }
      break;
    }
    case 19: (void)cudaLaunchHostFunc(pick_stream(in, w), in.ConsumeBool() ? count_call : nullptr, nullptr); break;
    case 20: {
      cudaPointerAttributes attributes;
      (void)cudaPointerGetAttributes(in.ConsumeBool() ? &attributes : nullptr, pick_pointer(in, w).p);
      break;
    }
    default:
      (void)cudaDeviceSynchronize();
      (void)(in.ConsumeBool() ? cudaGetLastError() : cudaPeekAtLastError());
      break;
  }
}

// Gives back what the input left; a sticky error (the context is poisoned) needs a reset.
void clean_up(World& w) {
  (void)cudaDeviceSynchronize();
  for (cudaStream_t s : w.streams) (void)cudaStreamDestroy(s);
  for (cudaEvent_t e : w.events) (void)cudaEventDestroy(e);
  for (const Allocation& a : w.device) (void)cudaFree(a.p);
  for (const Allocation& a : w.pinned) (void)cudaFreeHost(a.p);
  void* probe = nullptr;
  if (cudaMalloc(&probe, 1) != cudaSuccess) {
    (void)cudaDeviceReset();
  } else {
    (void)cudaFree(probe);
  }
  (void)cudaGetLastError();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  FuzzedDataProvider in(data, size);
  auto* w = new World;  // 64 KiB: not on the stack
  for (int calls = 0; calls < 48 && in.remaining_bytes() > 0; ++calls) one_call(in, *w);
  clean_up(*w);
  delete w;
  return 0;
}
