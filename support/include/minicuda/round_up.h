// minicuda/round_up.h: the one rounding helper every layer uses (pool sizes, PMA granules, page
// sizes, constant banks, occupancy granules). Part of minicuda::support, which, like trace/ and
// fault/, sits beside the layers and may be used by any of them.
#pragma once

#include <cstdint>

namespace minicuda {

// The smallest multiple of unit that is >= value; unit > 0 need not be a power of two.
constexpr uint64_t round_up(uint64_t value, uint64_t unit) {
  return (value + unit - 1) / unit * unit;
}

}  // namespace minicuda
