// nv_uapi.h: the whole ioctl ABI between the simulated user-mode driver (driver/, libcuda) and
// the simulated kernel modules (driver/kernel/os, driver/kernel/nvidia_ko: nvidia.ko, nvidia-uvm.ko), and
// nothing else. One include for the layers that speak it; each header below holds one part and
// is named after the real header it re-declares from NVIDIA/open-gpu-kernel-modules (OGKM):
//
//   nvlimits.h            table sizes (NV_MAX_DEVICES)
//   nv-ioctl-numbers.h    the _IOWR request encoding and nvidia.ko's own escapes; nv_escape.h the RM
//                         escapes (NV_ESC_RM_ALLOC, ...)
//   nv-ioctl.h            the params of nvidia.ko's escapes; nv-ioctl-numa.h NV_ESC_NUMA_INFO's
//   nvos.h                the params of the RM escapes (NVOS00 ... NVOS64) and their flags,
//                         the memory / VA space / channel group alloc params, NvNotification
//   g_allclasses.h        the RM class ids; resserv.h the handle ranges
//   class/cl0000.h, class/cl0080.h, class/cl2080.h   client, device, subdevice alloc params
//   alloc/alloc_channel.h the alloc params of a channel and the engine objects in it
//   ctrl/ctrlxxxx.h       RM_CONTROL command ids; ctrl/ctrl0000.h, ctrl0080.h, ctrl2080.h,
//                         ctrlc36f.h their params per object class
//   nvstatus.h            NV_STATUS, from the table in nvstatuscodes.h
//   nverror.h             the Xids RM writes into an error notifier, minicuda's fault record
//   uvm_ioctl.h           /dev/nvidia-uvm's requests and params
//
// Names, numbers and layouts are the real x86-64 ones, checked against the H200 / CUDA 13.0 trace
// in shared/reference/h200-cuda13/chain_full.txt ("measured"); every known size is pinned with
// static_assert. The types (nvtypes.h, nvmisc.h) and the classes the GPU implements (class/clc86f.h,
// ...) come from the hardware interface below it (hw/, minicuda::hw).
#pragma once

#include "alloc/alloc_channel.h"
#include "class/cl0000.h"
#include "class/cl0080.h"
#include "class/cl2080.h"
#include "ctrl/ctrl0000.h"
#include "ctrl/ctrl0080.h"
#include "ctrl/ctrl2080.h"
#include "ctrl/ctrlc36f.h"
#include "ctrl/ctrlxxxx.h"
#include "g_allclasses.h"
#include "nv-ioctl-numa.h"
#include "nv-ioctl-numbers.h"
#include "nv-ioctl.h"
#include "nv_escape.h"
#include "nverror.h"
#include "nvlimits.h"
#include "nvos.h"
#include "nvstatus.h"
#include "resserv.h"
#include "uvm_ioctl.h"
