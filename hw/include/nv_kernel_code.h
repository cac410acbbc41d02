// nv_kernel_code.h: minicuda's stand-in for SASS, and the constant bank layout a launch uses.
// A real QMD's PROGRAM_ADDRESS points at machine code for the SM; minicuda's kernels are host
// machine code, so the loader (libcuda) copies a code record there instead, and the SM fetches
// it through the GPU's page tables and calls its entries. No real GPU has these; libcuda writes
// them and device_sim reads them, like the rest of this hardware interface.
#pragma once

#include "nvtypes.h"

// The code record: what PROGRAM_ADDRESS points at. The SM calls `entry` per thread (or
// `block_entry` / `region_entry` per block; their types are in minicuda/kernel_entry.h), or
// executes `sass` when it is set.
struct NvMinicudaKernelCode {
  NvU32 magic;        // NV_MINICUDA_KERNEL_CODE_MAGIC
  NvU32 param_bytes;  // the size of constant bank 0 the kernel expects
  NvU64 entry;        // minicuda::gpu::KernelEntry
  NvU64 name;         // const char*, for fault reports
  NvU64 block_entry;  // minicuda::gpu::KernelBlockEntry (0: run threads through `entry`)
  NvU64 region_entry; // minicuda::gpu::KernelRegionEntry (0: the kernel has no block function)
  NvU64 sass;         // const NvSassProgram* (nv_sass.h): a kernel compiled from PTX, which the
                      // SM's SIMT executor runs; 0 for a C++ kernel (entry is then required)
};
static_assert(sizeof(NvMinicudaKernelCode) == 48);
inline constexpr NvU32 NV_MINICUDA_KERNEL_CODE_MAGIC = 0x4D53434Du;  // "MCSM"

// Constant banks of a minicuda launch: 0 holds the kernel's parameters (as on the real GPU),
// 1 the driver's printf FIFO (the real driver keeps its printf buffer address in a driver bank).
inline constexpr NvU32 NV_QMD_CBANK_PARAMS = 0;
inline constexpr NvU32 NV_QMD_CBANK_PRINTF = 1;
// Bank 2 valid: a cooperative launch. The driver has checked that every block fits on the GPU at
// once; the SMs run them all together and grid_group::sync may be used. Its address, when not 0,
// is the launch's grid workspace (NvMinicudaGridWorkspace, 16 bytes), which kernels compiled from
// PTX find through %envreg1 (high half) and %envreg2 (low half), as cooperative groups expect.
struct NvMinicudaGridWorkspace {
  NvU32 size;     // the workspace's size in bytes (cooperative groups' wsSize)
  NvU32 barrier;  // grid_group::sync's arrival counter, 0 at the launch's start
  NvU32 reserved[2];
};
static_assert(sizeof(NvMinicudaGridWorkspace) == 16);
inline constexpr NvU32 NV_QMD_CBANK_COOPERATIVE = 2;
// Bank 3: the device runtime's settings for the grid and the child grids it launches (CUDA dynamic
// parallelism, docs/dynamic-parallelism.md), an NvMinicudaDeviceRuntime. Not valid: the defaults.
inline constexpr NvU32 NV_QMD_CBANK_DEVRT = 3;
struct NvMinicudaDeviceRuntime {
  NvU32 pending_launch_limit;  // cudaLimitDevRuntimePendingLaunchCount of the launching context
  NvU32 reserved[3];
};
static_assert(sizeof(NvMinicudaDeviceRuntime) == 16);

// --- the printf FIFO ------------------------------------------------------------------------
// Constant bank 1 of a launch: the header, then the text of device printf calls, appended by
// the SM (write advanced atomically; a record that does not fit is counted in dropped), read
// and reset by libcuda once the channel is idle.
struct NvMinicudaPrintfFifo {
  NvU32 write;    // bytes reserved after the header (may pass the end: a record that did not fit)
  NvU32 dropped;  // records that did not fit
  NvU32 end;      // end of the last record written: the text to print is [0, end)
  NvU32 reserved;
};
