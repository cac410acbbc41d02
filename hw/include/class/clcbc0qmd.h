// class/clcbc0qmd.h: the QMD ("queue meta data") of HOPPER_COMPUTE_A, version 03_00: the
// 256-byte launch descriptor that SEND_PCAS_A points at (grid and block size, shared memory,
// constant banks, the program address). Field positions from NVIDIA/open-gpu-doc
// classes/compute/clcbc0qmd.h, where a field is written "MW(hi:lo)": bit positions in the
// 2048-bit QMD. libcuda fills a QMD in; the compute engine decodes it through the MMU.
#pragma once

#include "nvtypes.h"

inline constexpr NvU32 NVCBC0_QMD_BYTES = 256;  // 0x40 dwords
inline constexpr NvU32 NVCBC0_QMD_ALIGNMENT = 256;  // SEND_PCAS_A takes the address >> 8

struct NvQmdField {  // MW(hi:lo)
  NvU32 hi, lo;
};
inline constexpr NvQmdField NVCBC0_QMDV03_00_CTA_RASTER_WIDTH{415, 384};
inline constexpr NvQmdField NVCBC0_QMDV03_00_CTA_RASTER_HEIGHT{431, 416};
inline constexpr NvQmdField NVCBC0_QMDV03_00_CTA_RASTER_DEPTH{463, 448};
inline constexpr NvQmdField NVCBC0_QMDV03_00_SHARED_MEMORY_SIZE{561, 544};
inline constexpr NvQmdField NVCBC0_QMDV03_00_QMD_MAJOR_VERSION{583, 580};
inline constexpr NvQmdField NVCBC0_QMDV03_00_CTA_THREAD_DIMENSION0{607, 592};
inline constexpr NvQmdField NVCBC0_QMDV03_00_CTA_THREAD_DIMENSION1{623, 608};
inline constexpr NvQmdField NVCBC0_QMDV03_00_CTA_THREAD_DIMENSION2{639, 624};
constexpr NvQmdField NVCBC0_QMDV03_00_CONSTANT_BUFFER_VALID(NvU32 i) { return {640 + i, 640 + i}; }
inline constexpr NvQmdField NVCBC0_QMDV03_00_REGISTER_COUNT_V{656, 648};
inline constexpr NvQmdField NVCBC0_QMDV03_00_BARRIER_COUNT{767, 763};
constexpr NvQmdField NVCBC0_QMDV03_00_CONSTANT_BUFFER_ADDR_LOWER(NvU32 i) { return {1055 + i * 64, 1024 + i * 64}; }
constexpr NvQmdField NVCBC0_QMDV03_00_CONSTANT_BUFFER_ADDR_UPPER(NvU32 i) { return {1072 + i * 64, 1056 + i * 64}; }
constexpr NvQmdField NVCBC0_QMDV03_00_CONSTANT_BUFFER_SIZE_SHIFTED4(NvU32 i) { return {1087 + i * 64, 1075 + i * 64}; }
inline constexpr NvQmdField NVCBC0_QMDV03_00_PROGRAM_ADDRESS_LOWER{1567, 1536};
inline constexpr NvQmdField NVCBC0_QMDV03_00_PROGRAM_ADDRESS_UPPER{1584, 1568};
// Local memory per thread for the call stack (cudaLimitStackSize): the kernel's local variables
// and the frames of its recursive calls must fit in it (or in the local variables' own size).
inline constexpr NvQmdField NVCBC0_QMDV03_00_SHADER_LOCAL_MEMORY_HIGH_SIZE{1623, 1600};
inline constexpr NvU32 NVCBC0_QMDV03_00_QMD_MAJOR_VERSION_3 = 3;
// Thread block clusters (sm_90): minicuda's own fields, in bits the fields above leave free (the
// real V03_00 layout of the cluster shape is not published in open-gpu-doc's copy minicuda
// follows). The blocks per cluster in each dimension (0 or 1: none), and whether the launch named
// a cluster shape (%is_explicit_cluster).
inline constexpr NvQmdField NVCBC0_QMDV03_00_MINICUDA_CLUSTER_WIDTH{1671, 1664};
inline constexpr NvQmdField NVCBC0_QMDV03_00_MINICUDA_CLUSTER_HEIGHT{1679, 1672};
inline constexpr NvQmdField NVCBC0_QMDV03_00_MINICUDA_CLUSTER_DEPTH{1687, 1680};
inline constexpr NvQmdField NVCBC0_QMDV03_00_MINICUDA_CLUSTER_EXPLICIT{1688, 1688};

// No field crosses a 32-bit word (true of every field above).
constexpr void nv_qmd_set(NvU32* qmd, NvQmdField f, NvU32 value) {
  NvU32 word = f.lo / 32, shift = f.lo % 32, width = f.hi - f.lo + 1;
  NvU32 mask = width >= 32 ? 0xFFFFFFFFu : ((1u << width) - 1u);
  qmd[word] = (qmd[word] & ~(mask << shift)) | ((value & mask) << shift);
}
constexpr NvU32 nv_qmd_get(const NvU32* qmd, NvQmdField f) {
  NvU32 width = f.hi - f.lo + 1;
  NvU32 mask = width >= 32 ? 0xFFFFFFFFu : ((1u << width) - 1u);
  return (qmd[f.lo / 32] >> (f.lo % 32)) & mask;
}
static_assert(NVCBC0_QMDV03_00_PROGRAM_ADDRESS_UPPER.hi / 32 == NVCBC0_QMDV03_00_PROGRAM_ADDRESS_UPPER.lo / 32);
static_assert(NVCBC0_QMDV03_00_CONSTANT_BUFFER_SIZE_SHIFTED4(1).hi / 32 ==
              NVCBC0_QMDV03_00_CONSTANT_BUFFER_SIZE_SHIFTED4(1).lo / 32);
