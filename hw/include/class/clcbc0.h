// class/clcbc0.h: HOPPER_COMPUTE_A (0xCBC0), the compute class: the methods that launch a grid.
// A launch is a QMD ("queue meta data", class/clcbc0qmd.h) in GPU memory; SEND_PCAS_A passes its
// address and SEND_SIGNALING_PCAS2_B schedules it. libcuda pushes these methods on the compute
// subchannel; device_sim's compute engine executes them.
//
// Values from NVIDIA/open-gpu-doc classes/compute/clcbc0.h (the same SEND_PCAS_A 0x2B4 and
// SEND_SIGNALING_PCAS2_B 0x2C0 as OGKM's clc6c0.h); tinygrad's ops_nv.py launches Hopper kernels
// with exactly these two methods (shared/reference/real-stack.md §1.6).
#pragma once

#include "nvmisc.h"

inline constexpr NvU32 HOPPER_COMPUTE_A = 0x0000CBC0;


inline constexpr NvU32 NVCBC0_SEND_PCAS_A = 0x02B4;  // QMD address >> 8 (bits 39:8)
// minicuda's one addition to the class: bits 63:40 of the QMD address, for the next SEND_PCAS_A.
// The real driver keeps QMDs below 1 TiB of GPU VA, which SEND_PCAS_A reaches alone; minicuda's
// GPU VAs are the host's (UVA), far above, so the upper bits need a method of their own.
inline constexpr NvU32 NVCBC0_MINICUDA_SET_PCAS_ADDRESS_UPPER = 0x0FF0;
inline constexpr NvU32 NVCBC0_SEND_SIGNALING_PCAS2_B = 0x02C0;
inline constexpr NvBitField NVCBC0_SEND_SIGNALING_PCAS2_B_PCAS_ACTION{3, 0};
inline constexpr NvU32 NVCBC0_SEND_SIGNALING_PCAS2_B_PCAS_ACTION_PREFETCH_SCHEDULE = 9;
