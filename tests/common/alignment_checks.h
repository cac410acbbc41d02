// Whether the SM catches misaligned accesses in this build (device_sim/src/sm_signals.h): only on
// x86-64, and not under AddressSanitizer or ThreadSanitizer, whose instrumentation is not
// alignment-clean. Tests of cudaErrorMisalignedAddress skip themselves where it does not.
#pragma once

namespace minicuda::testing {
#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define MINICUDA_TESTS_SANITIZED 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__) || defined(MINICUDA_TESTS_SANITIZED) || \
    !defined(__x86_64__)
inline constexpr bool kAlignmentChecks = false;
#else
inline constexpr bool kAlignmentChecks = true;
#endif
}  // namespace minicuda::testing
