// minicuda/replayable_faults.h: the GPU's replayable page faults, the hardware half of managed
// memory (cudaMallocManaged).
//
// On a real GPU an access to a page without a valid PTE in a managed range does not kill the
// channel: the GMMU writes a fault packet into the replayable fault buffer, raises an interrupt
// and stalls the warp. nvidia-uvm reads the buffer in batches, makes the pages resident and
// mapped, and tells the GPU to replay: the warps retry their accesses and go on.
//
// In minicuda, kernel code is host code, so the GPU's "access to an unmapped page" is a host
// SIGSEGV on an SM's worker thread (sm_signals.cpp). Before treating it as the fatal illegal
// address (700), the SM hands it here: raise_replayable_fault() writes the fault into the buffer
// and calls the interrupt handler that the kernel module registered. If the handler serviced the
// fault, the signal handler returns and the faulting instruction runs again (the replay).
//
// The GPU reaches nothing above it: nvidia-uvm registers plain function pointers here at load
// time (the interrupt line), and the GPU calls them. Thread safety: all functions may be called
// from any thread, including from the SM's signal handler (they take one mutex and never
// allocate while the caller's code could hold the allocator: kernel code never does).
#pragma once

#include <cstdint>
#include <vector>

namespace minicuda::gpu {

// One packet of the replayable fault buffer.
struct ReplayableFault {
  uint64_t va = 0;   // the faulting address
  bool write = false;
  uint64_t serial = 0;  // the buffer's sequence number of this packet
};

// The interrupt handler of the replayable fault buffer (nvidia-uvm's ISR + bottom half). Runs on
// the faulting thread. It drains the buffer (fetch_replayable_faults), services what it can
// (mark_serviced for each fault made accessible), and returns.
using ReplayableFaultIsr = void (*)();
// Called when the GPU starts a grid (running = true) and when it has finished one (false), on the
// engine's thread: nvidia-uvm switches the host view of managed pages between the GPU's page
// table and the CPU's (docs/layers/nvidia_ko.md, "Managed memory").
using GridActivityHook = void (*)(bool running);

void set_replayable_fault_isr(ReplayableFaultIsr isr);
void set_grid_activity_hook(GridActivityHook hook);

// The GMMU side: writes the fault into the buffer, raises the interrupt and waits for the
// answer. True if the fault was serviced (replay the access), false if it was not (the access
// is an illegal address: the SM reports 700 as before).
bool raise_replayable_fault(uint64_t va, bool write);
// The driver side: takes every packet written so far (one batch), oldest first.
std::vector<ReplayableFault> fetch_replayable_faults();
// The driver side: the packet with this serial was serviced (its access may be replayed).
void mark_serviced(uint64_t serial);
// The compute engine's side: a grid begins or ends (calls the GridActivityHook).
void grid_activity(bool running);
// Is the calling host thread running kernel code now (an SM's thread inside a block)? nvidia-uvm
// tells the GPU's faults from the CPU's with it.
bool in_kernel_code();

}  // namespace minicuda::gpu
