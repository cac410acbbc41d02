// Half-precision arithmetic: nvcc's PTX of tests/data/ptx/src/half_arith.cu (cuda_fp16.h and
// cuda_bf16.h's add, sub, mul, fma, neg, abs, min, max, <, == on one half and on pairs) on the
// SIMT executor, bit for bit against references computed on the host: _Float16 arithmetic and
// __float128 (exact for every f16 operation) for f16; for bf16, double arithmetic rounded by an
// independent nearest-even routine, on operands for which double is exact (fma) or for which one
// rounding to double cannot change the bf16 result (add, sub, mul: 53 >= 2 * 8 + 2 bits).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "minicuda/ptx/ptx.h"
#include "ptx_module.h"
#include "sass_builder.h"

namespace ptx = minicuda::ptx;
using minicuda::gpu::testing::address_of;
using minicuda::gpu::testing::SassGrid;

namespace {

constexpr uint16_t kNaN = 0x7FFF;  // the canonical NaN of half arithmetic

uint16_t f16_bits(_Float16 h) {
  uint16_t b;
  std::memcpy(&b, &h, 2);
  return b;
}
_Float16 f16(uint16_t b) {
  _Float16 h;
  std::memcpy(&h, &b, 2);
  return h;
}
bool f16_nan(uint16_t b) { return (b & 0x7C00) == 0x7C00 && (b & 0x3FF) != 0; }
bool bf16_nan(uint16_t b) { return (b & 0x7F80) == 0x7F80 && (b & 0x7F) != 0; }
double bf16(uint16_t b) {
  const uint32_t f = uint32_t{b} << 16;
  float v;
  std::memcpy(&v, &f, 4);
  return v;
}
// A double rounded to bf16, nearest-even, with bf16's subnormals and overflow to infinity.
uint16_t bf16_round(double d) {
  if (std::isnan(d)) return kNaN;
  if (std::isinf(d)) return d > 0 ? 0x7F80 : 0xFF80;
  int e = 0;
  std::frexp(d, &e);                          // |d| = m * 2^e, m in [0.5, 1)
  const int quantum = std::max(e - 8, -133);  // 8 significant bits, subnormals at 2^-133
  const double r = std::ldexp(std::nearbyint(std::ldexp(d, -quantum)), quantum);
  if (std::fabs(r) > 3.3895313892515355e38) return d > 0 ? 0x7F80 : 0xFF80;  // past (2 - 2^-7) * 2^127
  const float f = static_cast<float>(r);  // exact
  uint32_t bits;
  std::memcpy(&bits, &f, 4);
  if (r == 0) bits = std::signbit(d) ? 0x80000000u : 0;
  return static_cast<uint16_t>(bits >> 16);
}

uint16_t f16_expect(int op, uint16_t a, uint16_t b, uint16_t c) {
  const _Float16 x = f16(a), y = f16(b), z = f16(c);
  auto arith = [&](_Float16 r) { return f16_nan(f16_bits(r)) ? kNaN : f16_bits(r); };
  switch (op) {
    case 0: return f16_nan(a) || f16_nan(b) ? kNaN : arith(x + y);
    case 1: return f16_nan(a) || f16_nan(b) ? kNaN : arith(x - y);
    case 2: return f16_nan(a) || f16_nan(b) ? kNaN : arith(x * y);
    case 3: {
      if (f16_nan(a) || f16_nan(b) || f16_nan(c)) return kNaN;
      const __float128 exact = static_cast<__float128>(x) * static_cast<__float128>(y) + static_cast<__float128>(z);
      return arith(static_cast<_Float16>(exact));
    }
    case 4: return static_cast<uint16_t>(a ^ 0x8000);
    case 5: return static_cast<uint16_t>(a & 0x7FFF);
    case 6: case 7: {
      if (f16_nan(a) && f16_nan(b)) return kNaN;
      if (f16_nan(a)) return b;
      if (f16_nan(b)) return a;
      const bool a_less = x < y || (x == y && (a & 0x8000) != 0);
      return (op == 6) == a_less ? a : b;
    }
    case 8: return x < y;
    default: return x == y;
  }
}

uint16_t bf16_expect(int op, uint16_t a, uint16_t b, uint16_t c) {
  const double x = bf16(a), y = bf16(b), z = bf16(c);
  const bool nan = bf16_nan(a) || bf16_nan(b) || (op == 3 && bf16_nan(c));
  switch (op) {
    case 0: return nan ? kNaN : bf16_round(x + y);
    case 1: return nan ? kNaN : bf16_round(x - y);
    case 2: return nan ? kNaN : bf16_round(x * y);
    case 3: return nan ? kNaN : bf16_round(std::fma(x, y, z));
    case 4: return static_cast<uint16_t>(a ^ 0x8000);
    case 5: return static_cast<uint16_t>(a & 0x7FFF);
    case 6: case 7: {
      if (bf16_nan(a) && bf16_nan(b)) return kNaN;
      if (bf16_nan(a)) return b;
      if (bf16_nan(b)) return a;
      const bool a_less = x < y || (x == y && (a & 0x8000) != 0);
      return (op == 6) == a_less ? a : b;
    }
    case 8: return x < y;
    default: return x == y;
  }
}

// Operands: the special values, then random patterns. The bf16 fma's operands keep exponents
// within 2^-20 .. 2^20 (specials excepted), where double holds its exact result.
constexpr uint16_t kSpecial[] = {0x0000, 0x8000, 0x7C00, 0xFC00, 0x7E00, 0x0001, 0x8001, 0x03FF, 0x0400,
                                 0x3C00, 0xBC00, 0x7BFF, 0xFBFF, 0x3555, 0x3C01, 0x7F80, 0xFF80, 0x3F80};

TEST(PtxHalf, ArithmeticMatchesTheHostsCorrectlyRoundedResultsBitForBit) {
  ptx::CompileResult r = minicuda::gpu::testing::compile_ptx_file(std::string(MINICUDA_PTX_DATA_DIR) + "/corpus/half_arith.ptx");
  ASSERT_EQ(r.status, ptx::Status::Ok) << r.error_log;
  const ptx::CompiledKernel& k = r.kernels.at(0);

  const int n = 4096;
  std::vector<uint16_t> a(n), b(n), c(n);
  std::mt19937 rng(1234);
  const int specials = sizeof kSpecial / sizeof kSpecial[0];
  for (int i = 0; i < n; ++i) {
    auto pick = [&](int salt) -> uint16_t {
      if ((i + salt) % 7 == 0) return kSpecial[(i / 7 + salt) % specials];
      return static_cast<uint16_t>(rng());
    };
    a[i] = pick(0), b[i] = pick(3), c[i] = pick(5);
  }
  // Moderate bf16 exponents for the second half (so the bf16 fma can be checked there).
  auto moderate = [](uint16_t v) {
    const uint16_t exp = static_cast<uint16_t>(127 - 20 + ((v >> 7) & 0xFF) % 41);
    return static_cast<uint16_t>((v & 0x807F) | (exp << 7));
  };
  for (int i = n / 2; i < n; ++i) a[i] = moderate(a[i]), b[i] = moderate(b[i]), c[i] = moderate(c[i]);

  std::vector<uint16_t> of16(10 * n, 0xDEAD), obf16(10 * n, 0xDEAD);
  std::vector<uint32_t> pairs(6 * n, 0xDEADBEEF);
  SassGrid g;
  g.grid = dim3(n / 128), g.block = dim3(128);
  g.params.assign((k.param_bytes + 7) / 8 + 1, 0);
  const uint64_t values[] = {address_of(a), address_of(b), address_of(c), address_of(of16), address_of(obf16),
                             address_of(pairs), static_cast<uint64_t>(n)};
  for (size_t p = 0; p < 7; ++p)
    std::memcpy(reinterpret_cast<char*>(g.params.data()) + k.param_offsets[p], &values[p], k.param_sizes[p]);
  auto error = g.run(*static_cast<const NvSassProgram*>(k.sass.get()), 2);
  ASSERT_FALSE(error.has_value()) << error->error.message;

  int failures = 0;
  for (int i = 0; i < n && failures < 20; ++i) {
    for (int op = 0; op < 10; ++op) {
      const uint16_t want = f16_expect(op, a[i], b[i], c[i]);
      if (of16[10 * i + op] != want) ++failures;
      EXPECT_EQ(of16[10 * i + op], want) << "f16 op " << op << " of " << std::hex << a[i] << ", " << b[i] << ", " << c[i];
      if (op == 3 && i < n / 2 && !bf16_nan(c[i])) continue;  // bf16 fma: only where double is exact
      const uint16_t want_bf = bf16_expect(op, a[i], b[i], c[i]);
      if (obf16[10 * i + op] != want_bf) ++failures;
      EXPECT_EQ(obf16[10 * i + op], want_bf) << "bf16 op " << op << " of " << std::hex << a[i] << ", " << b[i] << ", " << c[i];
    }
    // The pairs: element-wise on (a, c) and (b, a).
    auto pair = [](uint16_t lo, uint16_t hi) { return uint32_t{lo} | uint32_t{hi} << 16; };
    EXPECT_EQ(pairs[6 * i + 0], pair(f16_expect(0, a[i], b[i], 0), f16_expect(0, c[i], a[i], 0))) << i;
    EXPECT_EQ(pairs[6 * i + 1], pair(f16_expect(2, a[i], b[i], 0), f16_expect(2, c[i], a[i], 0))) << i;
    EXPECT_EQ(pairs[6 * i + 2], pair(f16_expect(3, a[i], b[i], a[i]), f16_expect(3, c[i], a[i], c[i]))) << i;
    EXPECT_EQ(pairs[6 * i + 3], pair(bf16_expect(0, a[i], b[i], 0), bf16_expect(0, c[i], a[i], 0))) << i;
    EXPECT_EQ(pairs[6 * i + 4], pair(bf16_expect(2, a[i], b[i], 0), bf16_expect(2, c[i], a[i], 0))) << i;
    if (i >= n / 2) {
      EXPECT_EQ(pairs[6 * i + 5], pair(bf16_expect(3, a[i], b[i], a[i]), bf16_expect(3, c[i], a[i], c[i]))) << i;
    }
  }
}

}  // namespace
