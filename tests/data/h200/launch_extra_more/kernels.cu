// Kernels whose parameter buffers probe_launch_extra.cu lays out by hand.
// probe_k: out @0 (8), c @8 (1), d @16 (8), s @24 (2): the parameters end at 26 B.
extern "C" __global__ void probe_k(long long* out, char c, double d, short s) {
  out[0] = c;
  out[1] = static_cast<long long>(d * 10);
  out[2] = s;
  out[3] = 0x600d;
}
// aligned_k: a @0 (4), v @16 (16, int4), out @32 (8): 40 B.
extern "C" __global__ void aligned_k(int a, int4 v, long long* out) {
  out[0] = a;
  out[1] = v.x + v.y + v.z + v.w;
  out[2] = v.w;
  out[3] = 0x600d;
}
__device__ long long g_flag;
extern "C" __global__ void noparams_k() { g_flag = 0x600d; }
