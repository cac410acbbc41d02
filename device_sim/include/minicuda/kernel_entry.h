// minicuda/kernel_entry.h: how the simulated SM calls compiled kernel code - the entry points a
// kernel's code record holds (nv_kernel_code.h's NvMinicudaKernelCode, in place of SASS). The
// compiler side builds them (crt/kernel_image.h), the module format carries them (fatbinary.h),
// libcuda copies them into the code record, the SM calls them. Part of the kernel language
// (minicuda::device_code).
#pragma once

namespace minicuda::gpu {

// Runs one CUDA thread of a kernel: `params` is the kernel's constant bank 0, its parameters by
// value at the offsets of the CUDA parameter ABI (each aligned to its own alignment).
using KernelEntry = void (*)(const void* params);
// Runs the threads of the calling SM's current block one after another, from thread 0 (setting
// threadIdx), with the kernel inlined into the loop; stops early once *stop is set (a thread
// reached a barrier: the rest of the block runs as fibers). Returns how many threads it ran.
using KernelBlockEntry = unsigned (*)(const void* params, const bool* stop);
// Runs the whole of the calling SM's current block through the kernel's *block function*, the
// copy of its body that cu2cxx split at its barriers into regions, each a loop over the block's
// threads (docs/tools/cu2cxx.md, "Region fission"): no fiber, no switch per barrier. Returns
// false, having run nothing, when the block function cannot run the kernel (a replicated local
// of a type it cannot keep per thread); the SM then runs the block through block_entry.
using KernelRegionEntry = bool (*)(const void* params);

}  // namespace minicuda::gpu
