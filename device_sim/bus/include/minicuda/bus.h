// minicuda::bus: the simulated machine's I/O bus (PCIe): how a CPU's store to a device register
// reaches the device.
//
// On a real machine, nvidia.ko's mmap of a BAR page (the usermode page whose NOTIFY_CHANNEL_PENDING
// register is the doorbell) puts the BAR's bus address into the process's page table. A plain
// 32-bit store to that page then leaves the CPU as a posted write on PCIe, and the GPU decodes it
// by its offset in the BAR: no system call, no kernel. In this simulator the page is ordinary host
// memory, and a store to ordinary memory is seen by nobody. So a device page is an array of
// bus::Reg32: assigning one stores the value into the page, as before, and then delivers the same
// write to the device that the kernel routed that address to (write32). To the code that stores,
// `regs[0x90 / 4] = token;` is one plain 32-bit store; the delivery is the part the CPU's memory
// system does on real hardware.
//
// Who talks to it: nvidia.ko routes a mapping when it mmaps the usermode page (map) and drops the
// route when the page's RM object is freed (unmap_owner); libcuda stores to the page's Reg32s.
//
// Thread safety: every function may be called from any thread. The routes are guarded by a
// reader-writer lock; a write holds it (shared) while the device handles the write, so a route is
// never removed under a write in flight.
#pragma once

#include <cstdint>

namespace minicuda::bus {

// The device side of a route: handles a 32-bit write at offset bytes into the routed range.
// Called on the storing thread (a posted write is handled before the next store of that thread
// leaves the CPU, which is what program order gives here).
using WriteHandler = void (*)(void* device, uint64_t offset, uint32_t value);

// Kernel side: CPU stores to [base, base + length) now go to handler(device, offset, value).
// A route that overlaps an older one replaces it (the older mapping was unmapped; its address is
// reused). owner names the route for unmap_owner (nvidia.ko passes the RM object).
void map(void* base, uint64_t length, WriteHandler handler, void* device, const void* owner);
// Drops every route of owner. Unknown owner: nothing happens.
void unmap_owner(const void* owner);
// How many routes exist (tests).
uint64_t routes();

// CPU side: the 32-bit store of value to address. The bytes land in the page, and if a route
// covers the address, the device handles the write before this returns. A store to an address
// without a route is only a store, as to any memory.
void write32(volatile uint32_t* address, uint32_t value);

// One 32-bit register of a mapped device page. Assigning is a store (write32); reading is a
// plain load of the page (the usermode registers minicuda models are write-only: reading one
// gives back the last value stored).
struct Reg32 {
  volatile uint32_t bits;
  Reg32& operator=(uint32_t value) {
    write32(&bits, value);
    return *this;
  }
  Reg32& operator=(const Reg32&) = delete;
  operator uint32_t() const { return bits; }
};
static_assert(sizeof(Reg32) == 4, "a register is one 32-bit word of the page");

}  // namespace minicuda::bus
