// fuzz_pushbuffer's clamp of LINE_COUNT: a segment the fuzzer writes may hand the copy engine a
// LINE_COUNT of up to 2^32 lines, all at one address - real work, not a bug - so the harness
// decodes each segment as the PBDMA will and clamps every dword that would reach LINE_COUNT
// (fuzz_pushbuffer.cpp's header comment says why, and what is cut).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "class/clc56f.h"
#include "class/clc8b5.h"

namespace fuzz_pushbuffer {

inline constexpr uint32_t kMaxLineCount = 16;

// The PBDMA's expansion of a method header: where its next data dword goes.
struct Expansion {
  uint32_t method = 0, remaining = 0, sec_op = 0;
};

// Can the rest of the header send a dword to LINE_COUNT?
inline bool reaches_line_count(const Expansion& e) {
  if (e.remaining == 0) return false;
  if (e.sec_op == NVC56F_DMA_SEC_OP_INC_METHOD)
    return e.method <= NVC8B5_LINE_COUNT && NVC8B5_LINE_COUNT < e.method + 4 * e.remaining;
  if (e.sec_op == NVC56F_DMA_SEC_OP_ONE_INC) return e.method == NVC8B5_LINE_COUNT || e.method + 4 == NVC8B5_LINE_COUNT;
  return e.method == NVC8B5_LINE_COUNT;
}

// Decodes the segment as the PBDMA will, from expansion state e, and clamps what would go to
// LINE_COUNT (see the header comment). A header of the segment that would go on past its end into
// LINE_COUNT is cut short there: the bytes after a segment are another segment's, or padding.
inline void clamp_pass(std::vector<uint32_t>& pb, Expansion& e) {
  size_t header_at = pb.size();  // the header being expanded, if it is in this segment
  for (size_t i = 0; i < pb.size(); ++i) {
    uint32_t& dword = pb[i];
    if (e.remaining != 0) {
      if (e.method == NVC8B5_LINE_COUNT && dword > kMaxLineCount) dword = kMaxLineCount;
      --e.remaining;
      if (e.sec_op == NVC56F_DMA_SEC_OP_INC_METHOD) e.method += 4;
      if (e.sec_op == NVC56F_DMA_SEC_OP_ONE_INC) {
        e.method += 4;
        e.sec_op = NVC56F_DMA_SEC_OP_NON_INC_METHOD;
      }
      continue;
    }
    const uint32_t sec_op = nv_method_sec_op(dword);
    if (sec_op == NVC56F_DMA_SEC_OP_INC_METHOD || sec_op == NVC56F_DMA_SEC_OP_NON_INC_METHOD ||
        sec_op == NVC56F_DMA_SEC_OP_ONE_INC) {
      e = Expansion{nv_method_address(dword), nv_method_count(dword), sec_op};
      header_at = i;
    } else if (sec_op == NVC56F_DMA_SEC_OP_IMMD_DATA_METHOD && nv_method_address(dword) == NVC8B5_LINE_COUNT &&
               nv_method_immd_data(dword) > kMaxLineCount) {
      dword = nv_method_immd(nv_method_subchannel(dword), NVC8B5_LINE_COUNT, kMaxLineCount);
    } else if (sec_op == NVC56F_DMA_SEC_OP_GRP0_USE_TERT && dword != NVC56F_DMA_NOP &&
               nv_method_tert_op(dword) == NVC56F_DMA_TERT_OP_GRP0_INC_METHOD) {
      return;  // the PBDMA faults here: nothing after it runs
    } else if (sec_op == NVC56F_DMA_SEC_OP_END_PB_SEGMENT) {
      return;
    }
  }
  if (reaches_line_count(e) && header_at < pb.size()) {
    const uint32_t header = pb[header_at];
    pb[header_at] = nv_method_header(nv_method_sec_op(header), nv_method_subchannel(header), nv_method_address(header),
                                     nv_method_count(header) - e.remaining);
    e.remaining = 0;
  }
}

}  // namespace fuzz_pushbuffer
