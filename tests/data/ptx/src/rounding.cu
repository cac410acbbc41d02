// The rounding-mode intrinsics (.rn/.rz/.rm/.rp on add, sub, mul, fma, div, rcp, sqrt and cvt),
// f32 and f64: each thread writes every operation in every mode for its pair of operands.
// o gets 28 floats and 14 ints per thread, p 28 doubles and 6 long longs.
#define MODES(X) X(_rn) X(_rz) X(_ru) X(_rd)

extern "C" __global__ void rounding(const float* a, const float* b, const double* c, const double* d,
                                    float* o, int* oi, double* p, long long* pl, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float x = a[i], y = b[i];
  double u = c[i], v = d[i];
  float* f = o + 28 * i;
  double* g = p + 28 * i;
  int k = 0;
#define F(m)                                   \
  f[k] = __fadd##m(x, y);                      \
  f[k + 1] = __fsub##m(x, y);                  \
  f[k + 2] = __fmul##m(x, y);                  \
  f[k + 3] = __fmaf##m(x, y, 0.1f);            \
  f[k + 4] = __fdiv##m(x, y);                  \
  f[k + 5] = __frcp##m(y);                     \
  f[k + 6] = __fsqrt##m(x);                    \
  g[k] = __dadd##m(u, v);                      \
  g[k + 1] = __dsub##m(u, v);                  \
  g[k + 2] = __dmul##m(u, v);                  \
  g[k + 3] = __fma##m(u, v, 0.1);              \
  g[k + 4] = __ddiv##m(u, v);                  \
  g[k + 5] = __drcp##m(v);                     \
  g[k + 6] = __dsqrt##m(u);                    \
  k += 7;
  MODES(F)
#undef F
  int* q = oi + 14 * i;
  long long* r = pl + 6 * i;
  k = 0;
#define C(m)                                    \
  q[k] = __float_as_int(__double2float##m(u));  \
  q[k + 1] = __float_as_int(__int2float##m(__float_as_int(x))); \
  q[k + 2] = __float2int##m(x * 1.0e6f);        \
  k += 3;
  MODES(C)
#undef C
  q[12] = __float_as_int(__ull2float_rz(__double_as_longlong(u)));
  q[13] = __double2int_rd(v * 1.0e9);
  r[0] = __double_as_longlong(__ll2double_rz(__double_as_longlong(u) ^ 0x1234567ll));
  r[1] = __double_as_longlong(__ll2double_ru(__double_as_longlong(v)));
  r[2] = __double2ll_rd(u * 1.0e12);
  r[3] = __double2ll_ru(v * 1.0e12);
  r[4] = __float2ll_rz(x * 1.0e10f);
  r[5] = __double_as_longlong(__uint2double_rn(__float_as_uint(y)));
}
