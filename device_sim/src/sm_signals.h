// sm_signals: how kernel code that misbehaves leaves its block. Private to the SM (sm.cpp).
//
// Kernel code runs as plain host code, so the GPU's errors arrive as host signals on the SM's
// worker thread: SIGSEGV for an address the page tables do not map, SIGBUS (BUS_ADRALN) for a
// misaligned access while EFLAGS.AC is set (x86-64's alignment check, which the SM turns on for
// kernel code), SIGILL, SIGFPE. The handler, armed only while kernel code runs
// (t_fault_jump != null), records what happened and siglongjmps to the faulting fiber's entry -
// except for an integer division by zero or MIN / -1 (SIGFPE), which an H200 answers and goes
// on: the handler emulates the div/idiv with the H200's results and returns (x86-64 only).
// Alignment traps that are not the kernel's own access are let through: the C library's
// routines, the SM's code between threads, and the vector and 8-byte moves g++ makes of
// naturally aligned 4-byte accesses (it merges adjacent stores, and copies a uint3 eight bytes
// at a time) - the handler decodes the instruction's memory operand to tell them apart.
#pragma once

#include <csetjmp>
#include <cstdint>

#include "sm.h"

namespace minicuda::gpu {

// --- EFLAGS.AC: the alignment check, on while kernel code runs (x86-64 only) -----------------
// The asm steps over the red zone: the code around it may keep data below the stack pointer.
// Off under AddressSanitizer and ThreadSanitizer: their instrumentation of kernel code (shadow-
// memory accesses) is not alignment-clean, so every instrumented function would trap. g++ says
// so with __SANITIZE_*__, clang with __has_feature.
#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define MINICUDA_SANITIZED_BUILD 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__) || defined(MINICUDA_SANITIZED_BUILD)
#define MINICUDA_ALIGNMENT_CHECKS 0
#elif defined(__x86_64__)
#define MINICUDA_ALIGNMENT_CHECKS 1
#else
#define MINICUDA_ALIGNMENT_CHECKS 0
#endif

#if MINICUDA_ALIGNMENT_CHECKS
// Whether EFLAGS.AC is on in this host thread, as the SM last set it (the signal handler keeps it
// true to the flag it leaves behind): a switch to the state already set costs nothing, a change
// is a popf (~50 ns).
extern thread_local constinit bool t_alignment_check_on MINICUDA_TLS;
inline void set_alignment_flag(bool on) {
  if (on) {
    asm volatile("sub $128, %%rsp\n\tpushfq\n\torq $0x40000, (%%rsp)\n\tpopfq\n\tadd $128, %%rsp" ::: "memory", "cc");
  } else {
    asm volatile("sub $128, %%rsp\n\tpushfq\n\tandq $-262145, (%%rsp)\n\tpopfq\n\tadd $128, %%rsp" ::: "memory", "cc");
  }
}
inline void alignment_check(bool on) {
  if (t_alignment_check_on == on) return;
  set_alignment_flag(on);
  t_alignment_check_on = on;
}
inline bool alignment_check_is_on() { return t_alignment_check_on; }
#else
inline void alignment_check(bool) {}
inline bool alignment_check_is_on() { return false; }
#endif

// What the handler saw when it left kernel code.
struct SavedFault {
  int signo = 0, code = 0;
  uint64_t address = 0;  // the faulting address (decoded from the instruction for alignment traps)
  bool write = false;
  const char* detail = nullptr;  // SIGFPE: why the division was not emulated (a static string)
};

// constinit and initial-exec: a barrier reads some of these at every switch, and a plain
// extern thread_local would cost a call to its TLS wrapper each time.
extern thread_local constinit sigjmp_buf* t_fault_jump MINICUDA_TLS;  // armed while kernel code runs
extern thread_local constinit SavedFault t_fault MINICUDA_TLS;
extern thread_local constinit bool t_kernel_error_pending MINICUDA_TLS;  // set with t_kernel_error by assert/trap
extern thread_local KernelError t_kernel_error;

// Installs the handlers (once per process) and the calling thread's alternate signal stack (so
// that a stack overflow can still run the handler).
void install_signal_handlers();
// Leaves the running thread's block with e (assert, trap): siglongjmp to its fiber's entry.
[[noreturn]] void raise_kernel_error(KernelError e);

}  // namespace minicuda::gpu
