// Whether the SM catches misaligned accesses in this build (device_sim/src/sm_signals.h): only on
// x86-64, and not under AddressSanitizer, whose instrumentation is not alignment-clean. Tests of
// cudaErrorMisalignedAddress skip themselves where it does not.
#pragma once

namespace minicuda::testing {
#if defined(__SANITIZE_ADDRESS__) || !defined(__x86_64__)
inline constexpr bool kAlignmentChecks = false;
#else
inline constexpr bool kAlignmentChecks = true;
#endif
}  // namespace minicuda::testing
