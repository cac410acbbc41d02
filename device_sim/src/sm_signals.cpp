// sm_signals: faults in kernel code become kernel errors (see sm_signals.h).
#include "sm_signals.h"

#include "minicuda/replayable_faults.h"

#include <csignal>
#include <cstdio>
#include <cstring>
#include <link.h>
#include <mutex>
#include <sys/mman.h>
#include <ucontext.h>
#include <vector>

namespace minicuda::gpu {

thread_local constinit sigjmp_buf* t_fault_jump MINICUDA_TLS = nullptr;
#if MINICUDA_ALIGNMENT_CHECKS
thread_local constinit bool t_alignment_check_on MINICUDA_TLS = false;
#endif
thread_local constinit SavedFault t_fault MINICUDA_TLS;
thread_local constinit bool t_kernel_error_pending MINICUDA_TLS = false;
thread_local KernelError t_kernel_error;

namespace {

// --- signals ----------------------------------------------------------------------------------

struct sigaction g_previous[NSIG];
uint64_t g_main_text_begin = 0, g_main_text_end = 0;  // the executable's code (kernels live there)

void chain(int signo, siginfo_t* info, void* context) {
  const struct sigaction& old = g_previous[signo];
  if ((old.sa_flags & SA_SIGINFO) && old.sa_sigaction != nullptr) {
    old.sa_sigaction(signo, info, context);
  } else if (old.sa_handler == SIG_DFL || old.sa_handler == SIG_IGN) {
    sigaction(signo, &old, nullptr);  // returning re-runs the instruction under the old action
  } else {
    old.sa_handler(signo);
  }
}

#if defined(__x86_64__)
// The faulting instruction, decoded as far as the alignment rules need (x86-64: legacy
// prefixes, REX, a one- or two-byte opcode or a VEX/EVEX one, ModRM, SIB, displacement).
struct Instruction {
  bool sse = false;           // an SSE/AVX instruction
  bool scalar_float = false;  // movss/movsd and the scalar float arithmetic: one float or double
  bool aligned_move = false;  // movaps/movapd/movdqa/movntps/movntdq: declared 16/32-byte aligned
  unsigned size = 4;          // bytes of a general-purpose access (1, 2, 4 or 8)
  bool address_known = false;
  uint64_t address = 0;       // the memory operand's effective address
};

uint64_t reg(const greg_t* gregs, unsigned n) {
  static constexpr int kMap[16] = {REG_RAX, REG_RCX, REG_RDX, REG_RBX, REG_RSP, REG_RBP, REG_RSI, REG_RDI,
                                   REG_R8,  REG_R9,  REG_R10, REG_R11, REG_R12, REG_R13, REG_R14, REG_R15};
  return static_cast<uint64_t>(gregs[kMap[n & 15]]);
}

Instruction decode(const uint8_t* p, const greg_t* gregs) {
  Instruction in;
  bool operand_size = false, scalar_prefix = false, f2 = false, fs = false, gs = false;
  uint8_t rex = 0;
  for (int i = 0; i < 14; ++i, ++p) {
    uint8_t b = *p;
    if (b == 0x66) operand_size = true;
    else if (b == 0xF2 || b == 0xF3) scalar_prefix = true, f2 = b == 0xF2;
    else if (b == 0x64) fs = true;
    else if (b == 0x65) gs = true;
    else if (b >= 0x40 && b <= 0x4F) rex = b;
    else if (!(b == 0x67 || b == 0xF0 || b == 0x2E || b == 0x3E || b == 0x26 || b == 0x36)) break;
  }
  uint8_t opcode = 0;
  const uint8_t* modrm = nullptr;
  auto vex = [&](uint8_t pp, uint8_t r_x_b_inverted, const uint8_t* op) {
    in.sse = true;
    operand_size = pp == 1;
    scalar_prefix = pp >= 2;
    f2 = pp == 3;
    rex = static_cast<uint8_t>(0x40 | ((~r_x_b_inverted >> 5) & 7));  // R, X, B (stored inverted)
    opcode = *op;
    modrm = op + 1;
  };
  if (p[0] == 0xC5) {
    vex(p[1] & 3, static_cast<uint8_t>((p[1] & 0x80) | 0x60), p + 2);
  } else if (p[0] == 0xC4) {
    vex(p[2] & 3, p[1], p + 3);
    if ((p[1] & 0x1F) != 1) modrm = p + 4;  // 0F38 / 0F3A maps: one opcode byte more is not
  } else if (p[0] == 0x62) {                 // modelled; their memory operand follows the same way
    vex(p[2] & 3, p[1], p + 4);
  } else if (p[0] == 0x0F) {
    opcode = p[1];
    modrm = (opcode == 0x38 || opcode == 0x3A) ? p + 3 : p + 2;
    in.sse = (opcode >= 0x10 && opcode <= 0x17) || (opcode >= 0x28 && opcode <= 0x2F) ||
             (opcode >= 0x50 && opcode <= 0x7F) || (opcode >= 0xC2 && opcode <= 0xC6) || opcode >= 0xD0 ||
             opcode == 0x38 || opcode == 0x3A;
    if (opcode == 0xB6 || opcode == 0xBE) in.size = 1;  // movzx/movsx from a byte
    if (opcode == 0xB7 || opcode == 0xBF) in.size = 2;  // ... from a word
  } else {
    opcode = p[0];
    modrm = p + 1;
    bool byte_op = opcode == 0x88 || opcode == 0x8A || opcode == 0xC6 || opcode == 0x80 || opcode == 0xF6 ||
                   opcode == 0xFE || (opcode < 0x40 && (opcode & 7) <= 2 && !(opcode & 1));
    in.size = byte_op ? 1 : (rex & 8) ? 8 : operand_size ? 2 : 4;
  }
  if (in.sse) {
    in.scalar_float = scalar_prefix && (opcode == 0x10 || opcode == 0x11 || (opcode >= 0x2A && opcode <= 0x2D) ||
                                        (opcode >= 0x51 && opcode <= 0x5F));
    in.aligned_move = opcode == 0x28 || opcode == 0x29 || opcode == 0x2B || opcode == 0xE7 ||
                      (operand_size && (opcode == 0x6F || opcode == 0x7F));
    in.size = in.scalar_float ? (f2 ? 8 : 4) : 16;
  }
  // The memory operand: ModRM, then SIB and displacement. Register operands and RIP-relative
  // addresses (statics, which the compiler aligns) leave the address unknown.
  uint8_t m = *modrm, mod = m >> 6, rm = m & 7;
  if (mod == 3) return in;
  const uint8_t* at = modrm + 1;
  uint64_t address = 0;
  if (rm == 4) {
    uint8_t sib = *at++;
    unsigned index = ((sib >> 3) & 7) | ((rex & 2) << 2), base = (sib & 7) | ((rex & 1) << 3);
    if (index != 4) address += reg(gregs, index) << (sib >> 6);
    if ((base & 7) == 5 && mod == 0) {
      int32_t disp;
      std::memcpy(&disp, at, 4);
      at += 4;
      address += static_cast<uint64_t>(static_cast<int64_t>(disp));
    } else {
      address += reg(gregs, base);
    }
  } else if (rm == 5 && mod == 0) {
    return in;  // RIP-relative
  } else {
    address = reg(gregs, rm | ((rex & 1) << 3));
  }
  if (mod == 1) address += static_cast<uint64_t>(static_cast<int64_t>(static_cast<int8_t>(*at)));
  if (mod == 2) {
    int32_t disp;
    std::memcpy(&disp, at, 4);
    address += static_cast<uint64_t>(static_cast<int64_t>(disp));
  }
  if (fs) address += reinterpret_cast<uint64_t>(__builtin_thread_pointer());  // thread_local (__shared__)
  in.address_known = !gs;
  in.address = address;
  return in;
}

// Is an alignment trap the kernel's own misaligned access (the GPU's error)? Vector moves and
// 8-byte integer moves count only when not even 4-byte aligned (g++ makes them of 4-byte
// accesses); scalar floats and smaller integer accesses must be aligned to their size.
bool kernels_own_misalignment(const Instruction& in) {
  if (in.sse && !in.scalar_float) return in.address_known && in.address % 4 != 0;
  if (in.size == 8 && !in.sse) return in.address_known && in.address % 4 != 0;
  return true;
}

// --- integer division: what an H200 gives where x86 traps ----------------------------------
// x86's div and idiv raise #DE (SIGFPE, FPE_INTDIV) for a zero divisor and for a quotient that
// does not fit (INT_MIN / -1); an H200's integer division never stops a kernel. The handler
// emulates the trapping instruction with the answers recorded on an H200
// (tests/data/h200/probe_semantics.txt, div.*), writes them to the registers of the signal's
// context, steps past the instruction and returns, so the kernel goes on:
//   x / 0 and x % 0, 32-bit, signed or unsigned: 0xffffffff, whatever x;
//   x / 0 and x % 0, 64-bit, signed or unsigned: 0x00000000ffffffff if 0 <= x < 2^32 (what a
//   32-bit division gives), 0xffffffffffffffff otherwise (probe_semantics_more.txt, div.*64*);
//   MIN / -1 (signed, 32- or 64-bit): MIN, and MIN % -1 is 0;
//   8- and 16-bit divide instructions (g++ uses them for some unsigned char and unsigned short
//   divisions, which C++ performs in int): the low 8 or 16 bits of the 32-bit answers.
// A trap that C++ division cannot cause (a dividend wider than the operand, as hand-written asm
// may divide) or an instruction that is not div/idiv is not emulated: the block fails with 719.
// Everything here is async-signal-safe: it reads the instruction and its operand (both were just
// read by the CPU) and the saved registers, and writes the saved registers.

// The trapping division, decoded: legacy prefixes, REX, F6 (8-bit) or F7 (16/32/64-bit) with
// ModRM.reg 6 (div) or 7 (idiv), then ModRM, SIB and displacement.
struct Divide {
  unsigned length = 0;    // bytes of the whole instruction
  unsigned size = 0;      // operand size in bytes: 1, 2, 4 or 8
  bool is_signed = false; // idiv
  uint64_t divisor = 0;   // zero-extended from `size` bytes
};

// A fixed-size load (no call to memcpy from the handler).
template <class T>
uint64_t load(const uint8_t* p) {
  T v;
  __builtin_memcpy(&v, p, sizeof v);
  return v;
}

uint64_t operand_mask(unsigned size) { return size == 8 ? ~0ull : (1ull << (size * 8)) - 1; }

// Decodes the instruction at p. Null on success, else why it is not emulated.
const char* decode_divide(const uint8_t* p, const greg_t* gregs, Divide* out) {
  const uint8_t* const start = p;
  bool operand_size = false, address_size = false, fs = false, gs = false;
  uint8_t rex = 0;
  for (int i = 0; i < 14; ++i, ++p) {
    const uint8_t b = *p;
    if (b >= 0x40 && b <= 0x4F) {
      rex = b;  // counts only right before the opcode: a legacy prefix after it clears it
      continue;
    }
    if (b == 0x66) operand_size = true;
    else if (b == 0x67) address_size = true;
    else if (b == 0x64) fs = true;
    else if (b == 0x65) gs = true;
    else if (!(b == 0xF0 || b == 0xF2 || b == 0xF3 || b == 0x2E || b == 0x3E || b == 0x26 || b == 0x36)) break;
    rex = 0;
  }
  static constexpr const char* kNotADivide =
      "arithmetic exception at an instruction that is not div or idiv: not emulated";
  const uint8_t opcode = *p++;
  if (opcode != 0xF6 && opcode != 0xF7) return kNotADivide;
  const uint8_t modrm = *p++;
  const unsigned mod = modrm >> 6, op = (modrm >> 3) & 7, rm = modrm & 7;
  if (op != 6 && op != 7) return kNotADivide;
  out->is_signed = op == 7;
  out->size = opcode == 0xF6 ? 1 : (rex & 8) ? 8 : operand_size ? 2 : 4;
  const uint64_t mask = operand_mask(out->size);
  if (mod == 3) {
    const unsigned n = rm | ((rex & 1u) << 3);
    // Without REX, byte registers 4..7 are AH, CH, DH, BH: bits 15:8 of RAX, RCX, RDX, RBX.
    if (out->size == 1 && rex == 0 && rm >= 4) {
      out->divisor = (reg(gregs, rm - 4) >> 8) & 0xFF;
    } else {
      out->divisor = reg(gregs, n) & mask;
    }
    out->length = static_cast<unsigned>(p - start);
    return nullptr;
  }
  uint64_t address = 0;
  bool rip_relative = false;
  if (rm == 4) {
    const uint8_t sib = *p++;
    const unsigned index = ((sib >> 3) & 7) | ((rex & 2u) << 2), base = (sib & 7) | ((rex & 1u) << 3);
    if (index != 4) address += reg(gregs, index) << (sib >> 6);
    if ((base & 7) == 5 && mod == 0) {
      int32_t disp;
      __builtin_memcpy(&disp, p, 4);
      p += 4;
      address += static_cast<uint64_t>(static_cast<int64_t>(disp));
    } else {
      address += reg(gregs, base);
    }
  } else if (rm == 5 && mod == 0) {
    int32_t disp;
    __builtin_memcpy(&disp, p, 4);
    p += 4;
    address = static_cast<uint64_t>(static_cast<int64_t>(disp));
    rip_relative = true;
  } else {
    address = reg(gregs, rm | ((rex & 1u) << 3));
  }
  if (mod == 1) address += static_cast<uint64_t>(static_cast<int64_t>(static_cast<int8_t>(*p++)));
  if (mod == 2) {
    int32_t disp;
    __builtin_memcpy(&disp, p, 4);
    p += 4;
    address += static_cast<uint64_t>(static_cast<int64_t>(disp));
  }
  out->length = static_cast<unsigned>(p - start);
  if (rip_relative) address += reinterpret_cast<uint64_t>(start) + out->length;  // the next instruction
  if (address_size) address &= 0xFFFFFFFFull;
  if (gs) return "integer division by a %gs operand: not emulated";
  if (fs) address += reinterpret_cast<uint64_t>(__builtin_thread_pointer());  // thread_local (__shared__)
  const auto* operand = reinterpret_cast<const uint8_t*>(address);
  out->divisor = out->size == 1   ? load<uint8_t>(operand)
                 : out->size == 2 ? load<uint16_t>(operand)
                 : out->size == 4 ? load<uint32_t>(operand)
                                  : load<uint64_t>(operand);
  return nullptr;
}

// The H200's quotient and remainder for a division that traps on x86 (see above), from the
// dividend's high and low halves (each `size` bytes wide). False for a trap C++ cannot cause.
bool h200_division(const Divide& d, uint64_t high, uint64_t low, uint64_t* quotient, uint64_t* remainder) {
  const uint64_t mask = operand_mask(d.size);
  const uint64_t min = 1ull << (d.size * 8 - 1);  // the sign bit
  if (d.divisor == 0) {
    uint64_t v = 0xFFFFFFFFull & mask;
    if (d.size == 8 && (low >> 32) != 0) v = ~0ull;  // a 64-bit dividend outside [0, 2^32)
    *quotient = *remainder = v;
    return true;
  }
  // MIN / -1: the dividend is MIN sign-extended (cdq/cqo), the quotient MIN does not fit.
  if (d.is_signed && d.divisor == mask && low == min && high == mask) {
    *quotient = min;
    *remainder = 0;
    return true;
  }
  return false;
}

// Emulates the division that raised SIGFPE at the context's RIP. Null when it did (the context
// then holds the results and RIP is past the instruction), else why it did not.
const char* emulate_divide(ucontext_t* uc) {
  greg_t* gregs = uc->uc_mcontext.gregs;
  Divide d;
  if (const char* why = decode_divide(reinterpret_cast<const uint8_t*>(gregs[REG_RIP]), gregs, &d)) return why;
  const auto rax = static_cast<uint64_t>(gregs[REG_RAX]), rdx = static_cast<uint64_t>(gregs[REG_RDX]);
  const uint64_t mask = operand_mask(d.size);
  // The dividend: AX for a byte divisor (AH:AL), else DX:AX, EDX:EAX or RDX:RAX.
  const uint64_t high = d.size == 1 ? (rax >> 8) & 0xFF : rdx & mask;
  const uint64_t low = rax & mask;
  uint64_t q = 0, r = 0;
  if (!h200_division(d, high, low, &q, &r)) {
    return "integer division overflow that C++ division cannot cause (a dividend wider than its operand): not emulated";
  }
  switch (d.size) {
    case 1:  // AL = quotient, AH = remainder
      gregs[REG_RAX] = static_cast<greg_t>((rax & ~0xFFFFull) | (r << 8) | q);
      break;
    case 2:  // AX, DX; the rest of RAX and RDX is kept
      gregs[REG_RAX] = static_cast<greg_t>((rax & ~0xFFFFull) | q);
      gregs[REG_RDX] = static_cast<greg_t>((rdx & ~0xFFFFull) | r);
      break;
    default:  // EAX/EDX (a 32-bit write clears bits 63:32) or RAX/RDX
      gregs[REG_RAX] = static_cast<greg_t>(q);
      gregs[REG_RDX] = static_cast<greg_t>(r);
      break;
  }
  gregs[REG_RIP] += d.length;
  return nullptr;
}

#endif  // __x86_64__

void handle_signal(int signo, siginfo_t* info, void* context) {
  auto* uc = static_cast<ucontext_t*>(context);
  int code = info->si_code;
  uint64_t misaligned_address = 0;
#if defined(__x86_64__)
  if (signo == SIGBUS && code == BUS_ADRALN && t_fault_jump == nullptr) {
    uc->uc_mcontext.gregs[REG_EFL] &= ~0x40000LL;  // only the SM sets AC: its trap, not a crash
    return;
  }
#endif
  if (t_fault_jump == nullptr) {
    chain(signo, info, context);
    return;
  }
#if defined(__x86_64__)
  auto rip = static_cast<uint64_t>(uc->uc_mcontext.gregs[REG_RIP]);
  if (signo == SIGBUS && code == BUS_ADRALN) {
    // Not the kernel's own access - the C library (memcpy tails...), or a move g++ made of
    // aligned 4-byte accesses: run on without the check (it comes back on at the next block or
    // fiber) rather than report an error the GPU would not raise.
    if (rip < g_main_text_begin || rip >= g_main_text_end) {
      uc->uc_mcontext.gregs[REG_EFL] &= ~0x40000LL;
      return;
    }
    Instruction in = decode(reinterpret_cast<const uint8_t*>(rip), uc->uc_mcontext.gregs);
    if (!kernels_own_misalignment(in)) {
      uc->uc_mcontext.gregs[REG_EFL] &= ~0x40000LL;
      return;
    }
    misaligned_address = in.address_known ? in.address : 0;
  }
  // An integer division by zero, or MIN / -1: the H200's answer, and the kernel goes on.
  const char* detail = nullptr;
  if (signo == SIGFPE) {
    if (code != FPE_INTDIV) {
      detail = "arithmetic exception that is not an integer division";
    } else {
      detail = emulate_divide(uc);
      if (detail == nullptr) return;
    }
  }
  // A general-protection fault (SIGSEGV, SI_KERNEL, no address) from an aligned vector move is
  // a misaligned float4/int4/double2 access; any other is a non-canonical (garbage) pointer.
  if (signo == SIGSEGV && code == SI_KERNEL && rip >= g_main_text_begin && rip < g_main_text_end) {
    Instruction in = decode(reinterpret_cast<const uint8_t*>(rip), uc->uc_mcontext.gregs);
    if (in.aligned_move) {
      signo = SIGBUS;
      code = BUS_ADRALN;
      misaligned_address = in.address_known ? in.address : 0;
    }
  }
#endif
  // A page of a managed range that is not resident on the GPU: a replayable fault, which
  // nvidia-uvm services; then returning re-runs the access (the replay). See replayable_faults.h.
  if (signo == SIGSEGV && (code == SEGV_MAPERR || code == SEGV_ACCERR)) {
#if defined(__x86_64__)
    const bool write = (uc->uc_mcontext.gregs[REG_ERR] & 2) != 0;
#else
    const bool write = false;
#endif
    if (raise_replayable_fault(reinterpret_cast<uint64_t>(info->si_addr), write)) return;
  }
  alignment_check(false);
  t_fault.signo = signo;
  t_fault.code = code;
  // si_code values are per signal: BUS_ADRALN and SEGV_MAPERR are both 1.
  const bool misaligned = signo == SIGBUS && code == BUS_ADRALN;
  t_fault.address = misaligned ? misaligned_address : reinterpret_cast<uint64_t>(info->si_addr);
#if defined(__x86_64__)
  t_fault.write = (uc->uc_mcontext.gregs[REG_ERR] & 2) != 0;
  t_fault.detail = detail;
#else
  t_fault.detail = signo == SIGFPE ? "arithmetic exception (integer division by zero?)" : nullptr;
#endif
  siglongjmp(*t_fault_jump, 1);
}

int find_main_text(struct dl_phdr_info* info, size_t, void*) {
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const auto& ph = info->dlpi_phdr[i];
    if (ph.p_type == PT_LOAD && (ph.p_flags & PF_X)) {
      g_main_text_begin = info->dlpi_addr + ph.p_vaddr;
      g_main_text_end = g_main_text_begin + ph.p_memsz;
    }
  }
  return 1;  // the first object is the executable
}

// The handler proper: signal delivery keeps EFLAGS.AC, so the first thing is to turn it off -
// in a function the sanitizers leave alone, since their instrumentation in a prologue (stack
// redzones) may make misaligned stores that would trap again, and again.
__attribute__((no_sanitize("address", "undefined"), noinline)) void on_signal(int signo, siginfo_t* info,
                                                                               void* context) {
#if MINICUDA_ALIGNMENT_CHECKS
  set_alignment_flag(false);
  t_alignment_check_on = false;
  handle_signal(signo, info, context);
  // Back to the interrupted code: AC becomes what its saved flags say (the handler may have
  // cleared it there to let an access through).
  t_alignment_check_on = (static_cast<ucontext_t*>(context)->uc_mcontext.gregs[REG_EFL] & 0x40000) != 0;
#else
  handle_signal(signo, info, context);
#endif
}

thread_local bool t_signal_stack_set = false;

}  // namespace


void install_signal_handlers() {
  static std::once_flag once;
  std::call_once(once, [] {
    dl_iterate_phdr(find_main_text, nullptr);
    struct sigaction action {};
    action.sa_sigaction = on_signal;
    action.sa_flags = SA_SIGINFO | SA_NODEFER | SA_ONSTACK;
    sigemptyset(&action.sa_mask);
    for (int signo : {SIGSEGV, SIGBUS, SIGILL, SIGFPE}) sigaction(signo, &action, &g_previous[signo]);
  });
  if (!t_signal_stack_set) {
    // A stack overflow must still be able to run the handler. A thread that already has an
    // alternate stack (AddressSanitizer gives every thread one, and unmaps whatever stack is set
    // when the thread ends) keeps it; otherwise it gets 64 KiB of its own, mapped, never freed.
    t_signal_stack_set = true;
    stack_t old{};
    if (sigaltstack(nullptr, &old) == 0 && !(old.ss_flags & SS_DISABLE)) return;
    constexpr size_t kBytes = 64 << 10;
    void* stack = mmap(nullptr, kBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (stack == MAP_FAILED) return;
    stack_t ss{};
    ss.ss_sp = stack;
    ss.ss_size = kBytes;
    sigaltstack(&ss, nullptr);
  }
}

// Leaves the running thread's block with an error set by an intrinsic (assert, trap).
[[noreturn]] void raise_kernel_error(KernelError e) {
  {
    // Nothing that owns memory may stay on this stack: siglongjmp skips destructors (and a
    // string's move assignment hands the old buffer back to its source).
    KernelError previous = std::move(e);
    std::swap(t_kernel_error, previous);
  }
  t_kernel_error_pending = true;
  siglongjmp(*t_fault_jump, 1);
}


}  // namespace minicuda::gpu
