// resserv.h: the handle ranges of RM's resource server (OGKM g_resserv_nvoc.h,
// g_rs_client_nvoc.h), and the range libcuda picks its own handles from. Part of the ioctl ABI
// (minicuda::uapi).
#pragma once

#include "nvtypes.h"

// A userspace alloc of class 0x0/0x1 is rewritten to NV01_ROOT_CLIENT; client handles are
// 0xC1D000xx.
inline constexpr NvHandle RS_CLIENT_HANDLE_BASE = 0xC1D00000;
inline constexpr NvHandle RS_UNIQUE_HANDLE_BASE = 0xCAF00000;  // when hObjectNew == 0
inline constexpr NvHandle LIBCUDA_HANDLE_BASE = 0x5C000001;    // measured libcuda choice
