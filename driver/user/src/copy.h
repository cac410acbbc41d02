// Private to libcuda: the copy-engine work behind every copy and memset entry point (copy.cpp),
// shared with the pitched 2-D/3-D copies (copy2d.cpp).
#pragma once

#include <cstdint>

#include "channel.h"
#include "libcuda.h"

namespace minicuda::libcuda {

// Where a range lives, as far as the copy engine is concerned.
enum class Where { Device, Pinned, Pageable };
// Classifies [addr, addr+n): false if it is not copyable (NULL, outside a device or pinned
// allocation it starts in, or touching the device window outside an allocation).
bool classify(CUctx_st& ctx, uint64_t addr, uint64_t n, Where* where);
// Pushes one copy of n contiguous bytes (split into lines the engine accepts); no submit.
void push_copy(Channel& ch, uint64_t dst, uint64_t src, uint64_t n);
// A 1-D copy, any sides: the engine alone for device/pinned memory, staged for pageable memory.
// stream null: the NULL stream. Waits as the real stack does unless async (then only staging waits).
CUresult copy(CUctx_st& ctx, uint64_t dst, uint64_t src, uint64_t n, CUstream_st* stream = nullptr,
              bool async = false);
// N elements of `bytes` (1, 2, 4) each set to value, by the engine's remap memset.
CUresult memset(CUctx_st& ctx, uint64_t dst, uint32_t value, uint32_t bytes, uint64_t n,
                CUstream_st* stream = nullptr, bool async = false);
// Is [p, p+n) inside one device allocation?
bool is_device(CUctx_st& ctx, uint64_t p, uint64_t n);

}  // namespace minicuda::libcuda
