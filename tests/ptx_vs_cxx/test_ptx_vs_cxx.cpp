// The differential gate of the PTX path: each kernel runs twice on the simulated GPU with the same
// inputs, once as C++ (the .cu translated by cu2cxx and compiled into this binary) and once as
// nvcc's PTX of the same .cu (loaded with cuModuleLoadData, compiled by libcuda's JIT, launched
// with cuLaunchKernel, run by the SIMT executor). The gate's own kernels are kernels/NAME.cu with
// their PTX in ptx/NAME.ptx; the kernels the PTX corpus shares are tests/data/ptx/src/NAME.cu, one
// source for both suites, with their PTX in tests/data/ptx/corpus/NAME.ptx. The outputs
// must be equal bit for bit, floats included (the kernels fix their order of operations). The
// same binary runs again with MINICUDA_SM_THREADS=1 and =4 (tests/CMakeLists.txt), so the PTX
// results are also the same at every SM worker-thread count.
#include <cuda.h>
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

// The host launchers of kernels/*.cu and launchers/*.cu (the C++ path).
void xc_reduce_cxx(unsigned blocks, unsigned threads, const int* in, int* out, int n);
void xc_scan_cxx(unsigned blocks, unsigned threads, const float* in, float* out, int n);
void xc_histogram_cxx(unsigned blocks, unsigned threads, const unsigned char* data, unsigned* bins, int n);
void xc_transpose_cxx(int rows, int cols, const float* in, float* out);
void xc_divergence_cxx(unsigned blocks, unsigned threads, const int* in, int* out, unsigned* votes, int n);
void xc_matmul_cxx(int n, const float* A, const float* B, float* C);
void xc_vector_add_cxx(unsigned blocks, unsigned threads, const float* a, const float* b, float* c, int n);
void xc_alu_cxx(unsigned blocks, unsigned threads, float* out, int iters);

namespace {

// A device buffer of T, filled from and read back to host vectors.
template <class T>
struct DeviceBuffer {
  T* ptr = nullptr;
  size_t count = 0;
  explicit DeviceBuffer(size_t n) : count(n) {
    EXPECT_EQ(cudaMalloc(&ptr, n * sizeof(T)), cudaSuccess);
    EXPECT_EQ(cudaMemset(ptr, 0, n * sizeof(T)), cudaSuccess);
  }
  explicit DeviceBuffer(const std::vector<T>& host) : DeviceBuffer(host.size()) { put(host); }
  ~DeviceBuffer() { cudaFree(ptr); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  void put(const std::vector<T>& host) {
    EXPECT_EQ(cudaMemcpy(ptr, host.data(), count * sizeof(T), cudaMemcpyHostToDevice), cudaSuccess);
  }
  void zero() { EXPECT_EQ(cudaMemset(ptr, 0, count * sizeof(T)), cudaSuccess); }
  std::vector<T> get() const {
    std::vector<T> host(count);
    EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    EXPECT_EQ(cudaMemcpy(host.data(), ptr, count * sizeof(T), cudaMemcpyDeviceToHost), cudaSuccess);
    return host;
  }
  CUdeviceptr dev() const { return reinterpret_cast<CUdeviceptr>(ptr); }
};

// Bit-for-bit equality, naming the first differing element.
template <class T>
::testing::AssertionResult same_bits(const std::vector<T>& cxx, const std::vector<T>& ptx) {
  if (cxx.size() != ptx.size()) return ::testing::AssertionFailure() << "sizes differ";
  for (size_t i = 0; i < cxx.size(); ++i)
    if (std::memcmp(&cxx[i], &ptx[i], sizeof(T)) != 0)
      return ::testing::AssertionFailure() << "element " << i << ": C++ " << +cxx[i] << ", PTX " << +ptx[i];
  return ::testing::AssertionSuccess();
}

class PtxVsCxx : public ::testing::Test {
 protected:
  void SetUp() override {
    // The runtime's first call makes the primary context current; the PTX module loads into it.
    ASSERT_EQ(cudaFree(nullptr), cudaSuccess);
  }
  void TearDown() override {
    if (module_ != nullptr) {
      EXPECT_EQ(cuModuleUnload(module_), CUDA_SUCCESS);
    }
  }

  // The kernel `entry` of ptx/NAME.ptx (the gate's own kernels), through cuModuleLoadData and
  // cuModuleGetFunction.
  // MINICUDA_XCHECK_PTX_DIR in the environment names another folder with the same files (another
  // compiler's PTX of the same sources: scripts/clang-ptx.sh).
  CUfunction load(const std::string& name, const char* entry) {
    return load_file(folder("MINICUDA_XCHECK_PTX_DIR", MINICUDA_XCHECK_PTX_DIR), name, entry);
  }
  // The kernel `entry` of the PTX corpus (tests/data/ptx/corpus/NAME.ptx): kernels whose one source
  // is tests/data/ptx/src/NAME.cu, which launchers/NAME.cu translates for the C++ path. The
  // environment's MINICUDA_XCHECK_CORPUS_DIR replaces the folder, as above.
  CUfunction load_corpus(const std::string& name, const char* entry) {
    return load_file(folder("MINICUDA_XCHECK_CORPUS_DIR", MINICUDA_XCHECK_CORPUS_DIR), name, entry);
  }
  static std::string folder(const char* variable, const char* built_in) {
    const char* dir = std::getenv(variable);
    return dir != nullptr && *dir != '\0' ? dir : built_in;
  }
  CUfunction load_file(const std::string& dir, const std::string& name, const char* entry) {
    std::ifstream f(dir + "/" + name + ".ptx");
    std::stringstream ss;
    ss << f.rdbuf();
    std::string text = ss.str();
    EXPECT_FALSE(text.empty()) << name;
    EXPECT_EQ(cuModuleLoadData(&module_, text.c_str()), CUDA_SUCCESS) << name;
    CUfunction fn = nullptr;
    EXPECT_EQ(cuModuleGetFunction(&fn, module_, entry), CUDA_SUCCESS) << entry;
    return fn;
  }

  static void launch(CUfunction fn, dim3 grid, dim3 block, unsigned shared, void** args) {
    ASSERT_EQ(cuLaunchKernel(fn, grid.x, grid.y, grid.z, block.x, block.y, block.z, shared, nullptr, args, nullptr),
              CUDA_SUCCESS);
    ASSERT_EQ(cuCtxSynchronize(), CUDA_SUCCESS);
  }

  std::mt19937 rng{20260512};
  CUmodule module_ = nullptr;
};

std::vector<float> random_floats(std::mt19937& rng, size_t n) {
  std::uniform_real_distribution<float> d(-100.0f, 100.0f);
  std::vector<float> v(n);
  for (float& x : v) x = d(rng);
  return v;
}

std::vector<int> random_ints(std::mt19937& rng, size_t n, int lo, int hi) {
  std::uniform_int_distribution<int> d(lo, hi);
  std::vector<int> v(n);
  for (int& x : v) x = d(rng);
  return v;
}

TEST_F(PtxVsCxx, ReductionSharedTreeShufflesAtomics) {
  CUfunction fn = load_corpus("reduction", "reduce_sum");
  const unsigned threads = 256;
  for (int n : {1, 255, 512, 1000, 4097, 100003}) {
    DeviceBuffer<int> in(random_ints(rng, n, -1000000, 1000000)), out(1);
    const unsigned blocks = (n + 2 * threads - 1) / (2 * threads);
    xc_reduce_cxx(blocks, threads, in.ptr, out.ptr, n);
    std::vector<int> cxx = out.get();
    out.zero();
    CUdeviceptr a = in.dev(), b = out.dev();
    void* args[] = {&a, &b, &n};
    launch(fn, dim3(blocks), dim3(threads), threads * sizeof(int), args);
    EXPECT_TRUE(same_bits(cxx, out.get())) << "n=" << n;
  }
}

TEST_F(PtxVsCxx, BlockScanWithBarriers) {
  CUfunction fn = load("scan", "xc_scan");
  for (unsigned threads : {64u, 256u, 1024u})
    for (int n : {1, 63, 1000, 3000}) {
      DeviceBuffer<float> in(random_floats(rng, n)), out(n);
      const unsigned blocks = (n + threads - 1) / threads;
      xc_scan_cxx(blocks, threads, in.ptr, out.ptr, n);
      std::vector<float> cxx = out.get();
      out.zero();
      CUdeviceptr a = in.dev(), b = out.dev();
      void* args[] = {&a, &b, &n};
      launch(fn, dim3(blocks), dim3(threads), 2 * threads * sizeof(float), args);
      EXPECT_TRUE(same_bits(cxx, out.get())) << "threads=" << threads << " n=" << n;
    }
}

TEST_F(PtxVsCxx, HistogramWithSharedAtomics) {
  CUfunction fn = load_corpus("histogram", "histogram256");
  for (int n : {1, 777, 65536, 200001}) {
    std::vector<unsigned char> bytes(n);
    // Skewed data: many collisions on a few bins, as well as a spread.
    for (int i = 0; i < n; ++i) bytes[i] = static_cast<unsigned char>(i % 3 == 0 ? 7 : rng() & 0xff);
    DeviceBuffer<unsigned char> data(bytes);
    DeviceBuffer<unsigned> bins(256);
    const unsigned blocks = 13, threads = 192;
    xc_histogram_cxx(blocks, threads, data.ptr, bins.ptr, n);
    std::vector<unsigned> cxx = bins.get();
    bins.zero();
    CUdeviceptr a = data.dev(), b = bins.dev();
    void* args[] = {&a, &b, &n};
    launch(fn, dim3(blocks), dim3(threads), 0, args);
    EXPECT_TRUE(same_bits(cxx, bins.get())) << "n=" << n;
  }
}

TEST_F(PtxVsCxx, TransposeThroughPaddedSharedTiles) {
  CUfunction fn = load_corpus("transpose", "transpose");
  for (auto [rows, cols] : {std::pair{32, 32}, {1, 77}, {45, 19}, {100, 257}}) {
    DeviceBuffer<float> in(random_floats(rng, static_cast<size_t>(rows) * cols)), out(static_cast<size_t>(rows) * cols);
    xc_transpose_cxx(rows, cols, in.ptr, out.ptr);
    std::vector<float> cxx = out.get();
    out.zero();
    CUdeviceptr a = in.dev(), b = out.dev();
    void* args[] = {&a, &b, &rows, &cols};
    launch(fn, dim3((cols + 31) / 32, (rows + 31) / 32), dim3(32, 8), 0, args);
    EXPECT_TRUE(same_bits(cxx, out.get())) << rows << "x" << cols;
  }
}

TEST_F(PtxVsCxx, DivergenceNestedBranchesPerLaneLoopsEarlyReturn) {
  CUfunction fn = load("divergence", "xc_divergence");
  const unsigned threads = 96;
  for (int n : {1, 31, 96, 1000, 5003}) {
    const unsigned blocks = (n + threads - 1) / threads;
    DeviceBuffer<int> in(random_ints(rng, n, -5000, 100000)), out(n);
    DeviceBuffer<unsigned> votes(blocks * threads / 32);
    xc_divergence_cxx(blocks, threads, in.ptr, out.ptr, votes.ptr, n);
    std::vector<int> cxx = out.get();
    std::vector<unsigned> cxx_votes = votes.get();
    out.zero(), votes.zero();
    CUdeviceptr a = in.dev(), b = out.dev(), c = votes.dev();
    void* args[] = {&a, &b, &c, &n};
    launch(fn, dim3(blocks), dim3(threads), 0, args);
    EXPECT_TRUE(same_bits(cxx, out.get())) << "n=" << n;
    EXPECT_TRUE(same_bits(cxx_votes, votes.get())) << "n=" << n;
  }
}

TEST_F(PtxVsCxx, TiledMatmulWithFma) {
  CUfunction fn = load("matmul", "xc_matmul");
  for (int n : {1, 16, 40, 67}) {
    DeviceBuffer<float> A(random_floats(rng, n * n)), B(random_floats(rng, n * n)), C(n * n);
    xc_matmul_cxx(n, A.ptr, B.ptr, C.ptr);
    std::vector<float> cxx = C.get();
    C.zero();
    CUdeviceptr a = A.dev(), b = B.dev(), c = C.dev();
    void* args[] = {&a, &b, &c, &n};
    launch(fn, dim3((n + 15) / 16, (n + 15) / 16), dim3(16, 16), 0, args);
    EXPECT_TRUE(same_bits(cxx, C.get())) << "n=" << n;
  }
}

TEST_F(PtxVsCxx, VectorAdd) {
  CUfunction fn = load_corpus("vector_add", "vector_add");
  const unsigned threads = 128;
  for (int n : {1, 127, 128, 1000, 65537}) {
    DeviceBuffer<float> a(random_floats(rng, n)), b(random_floats(rng, n)), c(n);
    const unsigned blocks = (n + threads - 1) / threads;
    xc_vector_add_cxx(blocks, threads, a.ptr, b.ptr, c.ptr, n);
    std::vector<float> cxx = c.get();
    c.zero();
    CUdeviceptr pa = a.dev(), pb = b.dev(), pc = c.dev();
    void* args[] = {&pa, &pb, &pc, &n};
    launch(fn, dim3(blocks), dim3(threads), 0, args);
    EXPECT_TRUE(same_bits(cxx, c.get())) << "n=" << n;
  }
}

TEST_F(PtxVsCxx, AluLoopOfFma) {
  CUfunction fn = load("alu", "xc_alu");
  for (int iters : {0, 1, 100}) {
    const unsigned blocks = 5, threads = 96;
    DeviceBuffer<float> out(blocks * threads);
    xc_alu_cxx(blocks, threads, out.ptr, iters);
    std::vector<float> cxx = out.get();
    out.zero();
    CUdeviceptr o = out.dev();
    void* args[] = {&o, &iters};
    launch(fn, dim3(blocks), dim3(threads), 0, args);
    EXPECT_TRUE(same_bits(cxx, out.get())) << "iters=" << iters;
  }
}

}  // namespace
