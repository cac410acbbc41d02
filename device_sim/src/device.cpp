// device: one simulated GPU, made of its fixed properties, its VRAM and its MMU.
//
// Who talks to it: nvidia.ko creates one Device per GPU it "probes" (MINICUDA_DEVICE picks the
// preset) and from then on programs it through vram() and mmu(), as the real driver programs a
// GPU through its BARs; user space's stores to the usermode page arrive as usermode_write32()
// over the bus (minicuda/bus.h).
#include "minicuda/device.h"

#include "minicuda/trace.h"
#include "class/clc361.h"

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

void Device::start_worker() { host_.start(); }

void Device::stop_worker() { host_.stop(); }

// BAR0's usermode page (clc361.h): the only register it models is the doorbell.
void Device::usermode_write32(uint64_t offset, uint32_t value) {
  if (offset == NVC361_NOTIFY_CHANNEL_PENDING) {
    host_.doorbell(value);
    return;
  }
  trace::note(trace::Layer::Gpu, "usermode: write of {:#x} at +{:#x}: not a register minicuda models, dropped", value,
              offset);
}

}  // namespace minicuda::gpu
