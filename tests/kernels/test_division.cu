// Integer division where x86 traps and an H200 does not: by zero, and MIN / -1
// (device_sim/src/sm_signals.cpp, "integer division"). The kernel goes on with the values an H200
// gave (tests/data/h200/probe_semantics.txt, div.*), for every operand size, signed and
// unsigned, with divisors the compiler cannot see (kernel parameters, device memory). Inline
// asm runs each encoding of div/idiv the SM's handler decodes, and the traps C++ division
// cannot cause still end the kernel with 719. CMakeLists.txt runs the tests again in inline mode
// (CUDA_LAUNCH_BLOCKING=1) and with four SM threads.
#include <cuda_runtime.h>

#include <cfloat>
#include <climits>
#include <cmath>
#include <csignal>
#include <cstdint>
#include <iterator>
#include <string>
#include <type_traits>
#include <vector>

#include <sys/mman.h>

#include "kernel_test.h"

// --- C++ division ----------------------------------------------------------------------------

// Each thread divides one dividend by the kernel's divisor: a parameter, so the compiler cannot
// see that it is zero.
template <class T>
__global__ void divide_by(const T* dividends, int n, T divisor, T* quotients, T* remainders) {
  const int i = static_cast<int>(threadIdx.x);
  if (i < n) {
    quotients[i] = static_cast<T>(dividends[i] / divisor);
    remainders[i] = static_cast<T>(dividends[i] % divisor);
  }
}

// The probe's shape: the divisor comes from device memory.
__global__ void divide_by_stored(const long long* dividends, const long long* divisor, long long* quotients,
                                 int* quotients32) {
  const int i = static_cast<int>(threadIdx.x);
  quotients[i] = dividends[i] / *divisor;
  quotients32[i] = static_cast<int>(dividends[i]) / static_cast<int>(*divisor);
}

// Threads that wait at a barrier (fibers, or regions) divide by zero before and after it.
__global__ void divide_around_barrier(const int* divisors, int* out) {
  __shared__ int quotient[64];
  const int t = static_cast<int>(threadIdx.x);
  quotient[t] = 1000 / divisors[t];
  __syncthreads();
  out[blockIdx.x * 64 + t] = quotient[63 - t] + 1000 % divisors[t];
}

// An unsigned char quotient kept as an int: the H200 gives 65535 (div.uchar_as_int.*), but g++
// divides two unsigned chars with one 8-bit divb, whose result is the low 8 bits (255).
__global__ void uchar_quotient_as_int(const unsigned char* a, unsigned char zero, int* out) {
  out[0] = a[0] / zero;
  out[1] = a[0] % zero;
}

// The same for unsigned short: g++'s 16-bit divw leaves 65535, the H200's answer
// (div.ushort_as_int.*).
__global__ void ushort_quotient_as_int(const unsigned short* a, unsigned short zero, int* out) {
  out[0] = a[0] / zero;
  out[1] = a[0] % zero;
}

__global__ void divide_floats(const float* f, const double* d, float* fout, double* dout) {
  fout[0] = f[0] / f[1];  // 1 / 0
  fout[1] = f[2] / f[1];  // -1 / 0
  fout[2] = f[1] / f[1];  // 0 / 0
  dout[0] = d[0] / d[1];
  dout[1] = d[1] / d[1];
}

namespace {

using minicuda::kernels_test::DeviceArray;
using minicuda::kernels_test::FreshProcess;

class Division : public FreshProcess {};

// What the H200 gives for x / 0 and x % 0 (div.*_div_0, div.*_rem_0 of probe_semantics.txt and
// probe_semantics_more.txt): all ones in 32 bits for every 32-bit division; for a 64-bit one,
// 0x00000000ffffffff when 0 <= x < 2^32 and all ones otherwise, signed or not. Narrower types
// are divided in int (C++ promotes them), so they get the low bits of the 32-bit answer.
template <class T>
T h200_by_zero(T dividend) {
  if constexpr (sizeof(T) == 8) {
    const bool in_32_bits = !(dividend < 0) && static_cast<unsigned long long>(dividend) < (1ull << 32);
    return in_32_bits ? static_cast<T>(0xFFFFFFFFull) : static_cast<T>(-1);
  } else {
    return static_cast<T>(~0ull);
  }
}

template <class T>
void expect_divisions_by_zero(const std::vector<T>& dividends, const char* type) {
  DeviceArray<T> in(dividends), q(dividends.size(), 0xee), r(dividends.size(), 0xee);
  divide_by<T><<<1, 32>>>(in.get(), static_cast<int>(dividends.size()), T{0}, q.get(), r.get());
  EXPECT_EQ(cudaGetLastError(), cudaSuccess) << type;
  EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess) << type;
  const std::vector<T> qs = q.read(), rs = r.read();
  for (size_t i = 0; i < dividends.size(); ++i) {
    EXPECT_EQ(qs[i], h200_by_zero(dividends[i])) << type << " " << +dividends[i] << " / 0";
    EXPECT_EQ(rs[i], h200_by_zero(dividends[i])) << type << " " << +dividends[i] << " % 0";
  }
}

TEST_F(Division, ByZeroGivesTheH200sValuesForEveryType) {
  expect_divisions_by_zero<int>({7, -7, 0, INT_MIN, INT_MAX}, "int");  // div.s32.*
  expect_divisions_by_zero<unsigned>({7u, 0u, UINT_MAX, 0x80000000u}, "unsigned");  // div.u32.*
  expect_divisions_by_zero<long long>({7, -7, 0, LLONG_MIN, LLONG_MAX, -(1ll << 40), 1ll << 40, -(1ll << 32),
                                       (1ll << 32) - 1, 1ll << 32},
                                      "long long");  // div.s64.*
  expect_divisions_by_zero<unsigned long long>({7, 0, ULLONG_MAX, 1ull << 40, 1ull << 32, (1ull << 32) - 1},
                                               "unsigned long long");  // div.u64.*
  expect_divisions_by_zero<short>({7, -7, 0, SHRT_MIN}, "short");
  expect_divisions_by_zero<unsigned short>({7, 0, USHRT_MAX}, "unsigned short");
  expect_divisions_by_zero<signed char>({7, -7, 0, SCHAR_MIN}, "signed char");
  expect_divisions_by_zero<unsigned char>({7, 0, UCHAR_MAX}, "unsigned char");
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);  // nothing was an error
}

// div.s32.INT_MIN_div_-1 = 0x80000000, _rem_-1 = 0; div.s64.LLONG_MIN_div_-1 likewise. The other
// dividends divide by -1 without a trap, as always.
TEST_F(Division, MinByMinusOneIsMinWithRemainderZero) {
  {
    DeviceArray<int> in(std::vector<int>{INT_MIN, 7, -7, INT_MAX}), q(4, 0xee), r(4, 0xee);
    divide_by<int><<<1, 4>>>(in.get(), 4, -1, q.get(), r.get());
    EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    EXPECT_EQ(q.read(), (std::vector<int>{INT_MIN, -7, 7, -INT_MAX}));
    EXPECT_EQ(r.read(), (std::vector<int>{0, 0, 0, 0}));
  }
  {
    DeviceArray<long long> in(std::vector<long long>{LLONG_MIN, 7}), q(2, 0xee), r(2, 0xee);
    divide_by<long long><<<1, 2>>>(in.get(), 2, -1, q.get(), r.get());
    EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    EXPECT_EQ(q.read(), (std::vector<long long>{LLONG_MIN, -7}));
    EXPECT_EQ(r.read(), (std::vector<long long>{0, 0}));
  }
}

// The probe's own shape: operands in device memory.
TEST_F(Division, ADivisorReadFromDeviceMemory) {
  DeviceArray<long long> in(std::vector<long long>{7, -7, LLONG_MIN}), zero(1, 0), q(3, 0xee);
  DeviceArray<int> q32(3, 0xee);
  divide_by_stored<<<1, 3>>>(in.get(), zero.get(), q.get(), q32.get());
  EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  EXPECT_EQ(q.read(), (std::vector<long long>{0xFFFFFFFFll, -1, -1}));
  EXPECT_EQ(q32.read(), (std::vector<int>{-1, -1, -1}));
}

// Many blocks on the SM threads, each thread's division on its own stack (fibers, or a region's
// loop), half of them by zero.
TEST_F(Division, ThreadsOfManyBlocksAroundABarrier) {
  constexpr int kBlocks = 64;
  std::vector<int> divisors(64);
  for (int t = 0; t < 64; ++t) divisors[t] = t % 2 == 0 ? 0 : t;
  DeviceArray<int> d(divisors), out(kBlocks * 64, 0);
  divide_around_barrier<<<kBlocks, 64>>>(d.get(), out.get());
  EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  const std::vector<int> got = out.read();
  for (int b = 0; b < kBlocks; ++b) {
    for (int t = 0; t < 64; ++t) {
      const int other = 63 - t;
      const int q = divisors[other] == 0 ? -1 : 1000 / divisors[other];
      const int r = divisors[t] == 0 ? -1 : 1000 % divisors[t];
      ASSERT_EQ(got[b * 64 + t], q + r) << "block " << b << " thread " << t;
    }
  }
}

// The known difference of docs/kernels.md: g++'s 8-bit divide gives 255 where the H200 gives
// 65535. (Another compiler may divide in 32 bits and give -1.)
TEST_F(Division, AnUnsignedCharQuotientKeptAsAnIntIsTheLowEightBits) {
  DeviceArray<unsigned char> a(std::vector<unsigned char>{7});
  DeviceArray<int> out(2, 0xee);
  uchar_quotient_as_int<<<1, 1>>>(a.get(), 0, out.get());
  EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  const std::vector<int> got = out.read();
#if defined(__clang__)
  for (int v : got) EXPECT_TRUE(v == 255 || v == -1) << v;
#else
  EXPECT_EQ(got, (std::vector<int>{255, 255}));
#endif
}

TEST_F(Division, AnUnsignedShortQuotientKeptAsAnIntIsTheH200s) {
  DeviceArray<unsigned short> a(std::vector<unsigned short>{7});
  DeviceArray<int> out(2, 0xee);
  ushort_quotient_as_int<<<1, 1>>>(a.get(), 0, out.get());
  EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
#if defined(__clang__)
  for (int v : out.read()) EXPECT_TRUE(v == 65535 || v == -1) << v;
#else
  EXPECT_EQ(out.read(), (std::vector<int>{65535, 65535}));
#endif
}

// Floating-point division never trapped: IEEE infinities and NaN, as on the GPU.
TEST_F(Division, FloatingPointDivisionIsIeee) {
  DeviceArray<float> f(std::vector<float>{1.0f, 0.0f, -1.0f}), fout(3);
  DeviceArray<double> d(std::vector<double>{1.0, 0.0}), dout(2);
  divide_floats<<<1, 1>>>(f.get(), d.get(), fout.get(), dout.get());
  EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  const std::vector<float> fs = fout.read();
  const std::vector<double> ds = dout.read();
  EXPECT_EQ(fs[0], INFINITY);
  EXPECT_EQ(fs[1], -INFINITY);
  EXPECT_TRUE(std::isnan(fs[2]));
  EXPECT_EQ(ds[0], static_cast<double>(INFINITY));
  EXPECT_TRUE(std::isnan(ds[1]));
}

}  // namespace

#if defined(__x86_64__)
// --- each encoding of div and idiv, as the handler decodes it ---------------------------------
// A form sets RAX and RDX (the dividend's halves), divides, and returns both registers whole,
// so the test sees the quotient, the remainder and which upper bits were kept or cleared.

struct Regs {
  uint64_t rax = 0, rdx = 0;
};

enum Form : int {
  kDivbCl,          // F6 F1: 8-bit register
  kDivbCh,          // F6 F5: CH (rm 5 without REX is bits 15:8 of RCX)
  kIdivbSil,        // 40 F6 FE: SIL needs REX
  kIdivbSilMin,     // -128 / -1
  kDivbR9b,         // 41 F6 F1: REX.B
  kDivwCx,          // 66 F7 F1: 16-bit
  kDivwR9w,         // 66 41 F7 F1: legacy prefix, then REX
  kIdivlR10d,       // 41 F7 FA
  kIdivlMinR10d,    // INT_MIN / -1
  kDivlMem,         // F7 33: (%rbx)
  kDivlDisp8,       // F7 73 08: 8(%rbx)
  kIdivlDisp32,     // F7 BB 00 01 00 00: 0x100(%rbx)
  kDivqSib,         // 4A F7 34 E3: (%rbx,%r12,8), REX.W + REX.X
  kIdivqNoBase,     // 48 F7 3C 8D 00 00 00 00: 0(,%rcx,4)
  kIdivqMinR11,     // 49 F7 FB: LLONG_MIN / -1
  kDivlRip,         // F7 35 disp32: RIP-relative
  kDivlFs,          // 64 F7 33: %fs:(%rbx), a thread_local
  kDivlAddr32,      // 67 F7 33: (%ebx)
  kDivlCsPrefix,    // 2E F7 F1: an ignored segment prefix
  kFormCount,
};

extern "C" {
// The RIP-relative operand (extern "C": the asm names it).
__attribute__((used)) uint32_t minicuda_test_div_zero32 = 0;
}
thread_local uint32_t t_zero32 = 0;
uint32_t* g_low_zero = nullptr;  // below 4 GiB (MAP_32BIT), for the 0x67 form
uint64_t g_zeros[64] = {};        // memory operands (read-only here)

__attribute__((noinline)) Regs run_form(int form) {
  Regs r;
  uint64_t rax = 0, rdx = 0;
  switch (form) {
    case kDivbCl:
      rax = 0x1122334455660007, rdx = 0x99;
      asm volatile("divb %%cl" : "+a"(rax), "+d"(rdx) : "c"(0x1100ull) : "cc");
      break;
    case kDivbCh:  // CL is not zero: reading CL instead of CH would not emulate (719)
      rax = 0x1122334455660007, rdx = 0x99;
      asm volatile("divb %%ch" : "+a"(rax), "+d"(rdx) : "c"(0x00FFull) : "cc");
      break;
    case kIdivbSil:
      rax = 0xAAAAAAAAAAAAFFF9, rdx = 0x99;  // AX = -7
      asm volatile("idivb %%sil" : "+a"(rax), "+d"(rdx) : "S"(0xFF00ull) : "cc");
      break;
    case kIdivbSilMin:
      rax = 0xAAAAAAAAAAAAFF80, rdx = 0x99;  // AX = -128
      asm volatile("idivb %%sil" : "+a"(rax), "+d"(rdx) : "S"(0xFFull) : "cc");
      break;
    case kDivbR9b: {
      register uint64_t r9 asm("r9") = 0x100;
      rax = 0x0000000000000007, rdx = 0x99;
      asm volatile("divb %%r9b" : "+a"(rax), "+d"(rdx) : "r"(r9) : "cc");
      break;
    }
    case kDivwCx:
      rax = 0x1111222233330007, rdx = 0x4444555566660000;
      asm volatile("divw %%cx" : "+a"(rax), "+d"(rdx) : "c"(0x10000ull) : "cc");
      break;
    case kDivwR9w: {
      register uint64_t r9 asm("r9") = 0x10000;
      rax = 0x1111222233330007, rdx = 0x4444555566660000;
      asm volatile("divw %%r9w" : "+a"(rax), "+d"(rdx) : "r"(r9) : "cc");
      break;
    }
    case kIdivlR10d: {
      register uint64_t r10 asm("r10") = 0x100000000ull;  // R10D = 0
      rax = 0xFFFFFFFFFFFFFFF9, rdx = 0xFFFFFFFFFFFFFFFF;   // EDX:EAX = -7
      asm volatile("idivl %%r10d" : "+a"(rax), "+d"(rdx) : "r"(r10) : "cc");
      break;
    }
    case kIdivlMinR10d: {
      register uint64_t r10 asm("r10") = 0xFFFFFFFFull;  // -1
      rax = 0x0000000080000000, rdx = 0x00000000FFFFFFFF;  // EDX:EAX = INT_MIN
      asm volatile("idivl %%r10d" : "+a"(rax), "+d"(rdx) : "r"(r10) : "cc");
      break;
    }
    case kDivlMem:
      rax = 7, rdx = 0;
      asm volatile("divl (%%rbx)" : "+a"(rax), "+d"(rdx) : "b"(g_zeros) : "cc", "memory");
      break;
    case kDivlDisp8:
      rax = 7, rdx = 0;
      asm volatile("divl 8(%%rbx)" : "+a"(rax), "+d"(rdx) : "b"(g_zeros) : "cc", "memory");
      break;
    case kIdivlDisp32:
      rax = 0xFFFFFFF9, rdx = 0xFFFFFFFF;  // -7
      asm volatile("idivl 0x100(%%rbx)" : "+a"(rax), "+d"(rdx) : "b"(g_zeros) : "cc", "memory");
      break;
    case kDivqSib: {
      register uint64_t r12 asm("r12") = 3;
      rax = 0x123456789ABCDEF0, rdx = 0;
      asm volatile("divq (%%rbx,%%r12,8)" : "+a"(rax), "+d"(rdx) : "b"(g_zeros), "r"(r12) : "cc", "memory");
      break;
    }
    case kIdivqNoBase:
      rax = 0xFFFFFFFFFFFFFFF9, rdx = 0xFFFFFFFFFFFFFFFF;  // -7
      asm volatile("idivq 0(,%%rcx,4)" : "+a"(rax), "+d"(rdx) : "c"(reinterpret_cast<uint64_t>(g_zeros) / 4)
                   : "cc", "memory");
      break;
    case kIdivqMinR11: {
      register uint64_t r11 asm("r11") = ~0ull;
      rax = 0x8000000000000000, rdx = ~0ull;
      asm volatile("idivq %%r11" : "+a"(rax), "+d"(rdx) : "r"(r11) : "cc");
      break;
    }
    case kDivlRip:
      rax = 7, rdx = 0;
      asm volatile("divl minicuda_test_div_zero32(%%rip)" : "+a"(rax), "+d"(rdx) : : "cc", "memory");
      break;
    case kDivlFs: {
      const uint64_t offset =
          reinterpret_cast<uint64_t>(&t_zero32) - reinterpret_cast<uint64_t>(__builtin_thread_pointer());
      rax = 7, rdx = 0;
      asm volatile("divl %%fs:(%%rbx)" : "+a"(rax), "+d"(rdx) : "b"(offset) : "cc", "memory");
      break;
    }
    case kDivlAddr32:
      rax = 7, rdx = 0;
      asm volatile("divl (%%ebx)"
                   : "+a"(rax), "+d"(rdx)
                   : "b"(reinterpret_cast<uint64_t>(g_low_zero))
                   : "cc", "memory");
      break;
    case kDivlCsPrefix:
      rax = 7, rdx = 0;
      asm volatile(".byte 0x2e\n\tdivl %%ecx" : "+a"(rax), "+d"(rdx) : "c"(0ull) : "cc");
      break;
    default:
      break;
  }
  r.rax = rax;
  r.rdx = rdx;
  return r;
}

__global__ void asm_form(int form, unsigned long long* out) {
  const Regs r = run_form(form);
  out[0] = r.rax;
  out[1] = r.rdx;
}

// Traps that C++ division cannot cause: not emulated.
__global__ void asm_unsigned_overflow() {
  uint64_t rax = 0, rdx = 1;  // EDX:EAX = 2^32, / 1: the quotient does not fit
  asm volatile("divl %%ecx" : "+a"(rax), "+d"(rdx) : "c"(1ull) : "cc");
}
__global__ void asm_signed_overflow() {
  uint64_t rax = 0, rdx = 1;  // EDX:EAX = 2^32 (not a sign-extended int), / -1
  asm volatile("idivl %%ecx" : "+a"(rax), "+d"(rdx) : "c"(0xFFFFFFFFull) : "cc");
}
__global__ void raise_sigfpe() { raise(SIGFPE); }

namespace {

struct FormCase {
  Form form;
  const char* name;
  uint64_t rax, rdx;
};
constexpr FormCase kForms[] = {
    {kDivbCl, "divb %cl", 0x112233445566FFFF, 0x99},      // AL = AH = 0xff, the rest kept
    {kDivbCh, "divb %ch", 0x112233445566FFFF, 0x99},
    {kIdivbSil, "idivb %sil", 0xAAAAAAAAAAAAFFFF, 0x99},
    {kIdivbSilMin, "idivb %sil, -128 / -1", 0xAAAAAAAAAAAA0080, 0x99},  // AL = -128, AH = 0
    {kDivbR9b, "divb %r9b", 0xFFFF, 0x99},
    {kDivwCx, "divw %cx", 0x111122223333FFFF, 0x444455556666FFFF},  // AX, DX; the rest kept
    {kDivwR9w, "divw %r9w", 0x111122223333FFFF, 0x444455556666FFFF},
    {kIdivlR10d, "idivl %r10d", 0xFFFFFFFF, 0xFFFFFFFF},  // a 32-bit write clears bits 63:32
    {kIdivlMinR10d, "idivl %r10d, INT_MIN / -1", 0x80000000, 0},
    {kDivlMem, "divl (%rbx)", 0xFFFFFFFF, 0xFFFFFFFF},
    {kDivlDisp8, "divl 8(%rbx)", 0xFFFFFFFF, 0xFFFFFFFF},
    {kIdivlDisp32, "idivl 0x100(%rbx)", 0xFFFFFFFF, 0xFFFFFFFF},
    {kDivqSib, "divq (%rbx,%r12,8)", ~0ull, ~0ull},  // a 64-bit dividend of 2^32 or more
    {kIdivqNoBase, "idivq 0(,%rcx,4)", ~0ull, ~0ull},  // a negative 64-bit dividend
    {kIdivqMinR11, "idivq %r11, LLONG_MIN / -1", 0x8000000000000000, 0},
    {kDivlRip, "divl sym(%rip)", 0xFFFFFFFF, 0xFFFFFFFF},
    {kDivlFs, "divl %fs:(%rbx)", 0xFFFFFFFF, 0xFFFFFFFF},
    {kDivlAddr32, "divl (%ebx)", 0xFFFFFFFF, 0xFFFFFFFF},
    {kDivlCsPrefix, "cs divl %ecx", 0xFFFFFFFF, 0xFFFFFFFF},
};
static_assert(std::size(kForms) == kFormCount);

TEST_F(Division, EachEncodingOfDivAndIdivIsEmulated) {
  void* low = mmap(nullptr, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_32BIT, -1, 0);
  ASSERT_NE(low, MAP_FAILED);
  g_low_zero = static_cast<uint32_t*>(low);
  DeviceArray<unsigned long long> out(2);
  for (const FormCase& c : kForms) {
    asm_form<<<1, 1>>>(c.form, out.get());
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess) << c.name;
    const std::vector<unsigned long long> regs = out.read();
    EXPECT_EQ(regs[0], c.rax) << c.name << ": RAX " << std::hex << regs[0];
    EXPECT_EQ(regs[1], c.rdx) << c.name << ": RDX " << std::hex << regs[1];
  }
  munmap(low, 4096);
}

template <void (*kKernel)()>
void expect_launch_failure(const char* why) {
  ::testing::internal::CaptureStderr();
  kKernel<<<1, 1>>>();
  const cudaError_t synced = cudaDeviceSynchronize();
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(synced, cudaErrorLaunchFailure) << why;  // 719
  EXPECT_NE(err.find(why), std::string::npos) << err;
  EXPECT_EQ(cudaGetLastError(), cudaErrorLaunchFailure);  // sticky
  ASSERT_EQ(cudaDeviceReset(), cudaSuccess);
}

TEST_F(Division, TrapsThatCppDivisionCannotCauseStayError719) {
  expect_launch_failure<asm_unsigned_overflow>("integer division overflow that C++ division cannot cause");
  expect_launch_failure<asm_signed_overflow>("integer division overflow that C++ division cannot cause");
  expect_launch_failure<raise_sigfpe>("arithmetic exception that is not an integer division");
}

}  // namespace
#endif  // __x86_64__
