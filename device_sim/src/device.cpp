// device: one simulated GPU, made of its fixed properties, its VRAM and its MMU.
//
// Who talks to it: nvidia.ko creates one Device per GPU it "probes" (MINICUDA_DEVICE picks the
// preset) and from then on programs it through vram() and mmu(), as the real driver programs a
// GPU through its BARs.
#include "minicuda/device.h"

#include <pthread.h>

#include <algorithm>
#include <chrono>

namespace minicuda::gpu {

namespace {

// The size of the UVA window for a GPU with vram_bytes of VRAM: twice the VRAM rounded up to a
// power of two, and at least 4 GiB, so that the allocator never runs out of virtual addresses
// before it runs out of memory. (H200: 140.4 GiB -> 256 GiB -> 512 GiB.)
uint64_t uva_window_size(uint64_t vram_bytes) {
  uint64_t pow2 = 1;
  while (pow2 < vram_bytes) pow2 <<= 1;
  uint64_t size = 2 * pow2;
  constexpr uint64_t kMinimum = 4ull << 30;
  return size < kMinimum ? kMinimum : size;
}

}  // namespace

// Builds the GPU of the preset: a VRAM arena of properties().vram_bytes (sparse, so free until
// touched) and an MMU whose UVA window is reserved in the host. Aborts only if the host refuses
// the memfd or the address space (see Vram and Mmu).
Device::Device(Preset preset)
    : props_(&preset_properties(preset)),
      vram_(props_->vram_bytes),
      mmu_(vram_, uva_window_size(props_->vram_bytes)) {}

Device::~Device() { stop_worker(); }

void Device::start_worker() {
  if (worker_.joinable()) return;
  stop_.store(false);
  worker_ = std::thread([this] { worker_loop(); });
}

void Device::stop_worker() {
  if (!worker_.joinable()) return;
  stop_.store(true);
  worker_.join();
}

// The host interface's thread. After a poll that found work it polls again at once for a while
// (work tends to come in bursts: a memcpy is followed by its wait), then sleeps 1 us, 2 us, ...
// up to 1 ms between polls. An engine finishing its work wakes it at once (wait_for_engine), so
// that the channel goes on with its next method without waiting for the back-off.
void Device::worker_loop() {
  constexpr int kSpinPolls = 2000;
  constexpr auto kMaxSleep = std::chrono::microseconds(1000);
  pthread_setname_np(pthread_self(), "gpu-host");  // the host interface: doorbells, the PBDMA
  int idle = 0;
  auto sleep = std::chrono::microseconds(1);
  while (!stop_.load(std::memory_order_relaxed)) {
    const uint64_t completions = host_.engine_completions();
    if (host_.poll(/*include_inline=*/false) > 0 || host_.engine_completions() != completions) {
      idle = 0;
      sleep = std::chrono::microseconds(1);
      continue;
    }
    if (++idle < kSpinPolls) {
      std::this_thread::yield();
      continue;
    }
    host_.wait_for_engine(completions, sleep);
    if (host_.engine_completions() != completions) {
      idle = 0;
      sleep = std::chrono::microseconds(1);
      continue;
    }
    sleep = std::min(sleep * 2, kMaxSleep);
  }
}

}  // namespace minicuda::gpu
