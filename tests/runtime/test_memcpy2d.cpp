// Pitched and 3-D memory through the runtime (runtime/src/memcpy2d.cpp over libcuda's
// copy2d.cpp): the H200's pitch (512), results of every kind of 2-D / 3-D copy and memset, and
// the errors (tests/data/h200/probe_api_families.txt rt.mallocPitch.*, rt.memcpy2D.*, ...).
#include <cstring>
#include <numeric>
#include <string>
#include <vector>

#include "runtime_fixtures.h"

namespace minicuda::testing {
namespace {

using Memcpy2DTest = FreshProcess;

TEST_F(Memcpy2DTest, MallocPitchPadsRowsTo512Bytes) {
  const std::pair<size_t, size_t> widths[] = {{1, 512},    {100, 512},   {512, 512},      {513, 1024},
                                              {1000, 1024}, {4096, 4096}, {100000, 100352}};
  for (auto [width, expected] : widths) {
    void* p = nullptr;
    size_t pitch = 0;
    ASSERT_EQ(cudaMallocPitch(&p, &pitch, width, 10), cudaSuccess) << width;
    EXPECT_EQ(pitch, expected) << width;  // rt.mallocPitch.wN.pitch
    EXPECT_NE(p, nullptr);
    EXPECT_EQ(cudaFree(p), cudaSuccess);
  }
  void* p = reinterpret_cast<void*>(1);
  size_t pitch = 0xdead;
  ASSERT_EQ(cudaMallocPitch(&p, &pitch, 0, 10), cudaSuccess);  // rt.mallocPitch.w0: ptr=null pitch=0
  EXPECT_EQ(p, nullptr);
  EXPECT_EQ(pitch, 0u);
  ASSERT_EQ(cudaMallocPitch(&p, &pitch, 100, 0), cudaSuccess);
  EXPECT_EQ(p, nullptr);
  EXPECT_EQ(cudaMallocPitch(nullptr, &pitch, 100, 10), cudaErrorInvalidValue);
  EXPECT_EQ(cudaMallocPitch(&p, nullptr, 100, 10), cudaErrorInvalidValue);

  cudaPitchedPtr pp{};
  ASSERT_EQ(cudaMalloc3D(&pp, make_cudaExtent(100, 10, 5)), cudaSuccess);
  EXPECT_EQ(pp.pitch, 512u);  // rt.malloc3D.value = pitch=512 xsize=100 ysize=10
  EXPECT_EQ(pp.xsize, 100u);
  EXPECT_EQ(pp.ysize, 10u);
  EXPECT_EQ(cudaFree(pp.ptr), cudaSuccess);
  ASSERT_EQ(cudaMalloc3D(&pp, make_cudaExtent(0, 10, 5)), cudaSuccess);
  EXPECT_EQ(pp.ptr, nullptr);
  EXPECT_EQ(pp.pitch, 0u);
  EXPECT_EQ(cudaMalloc3D(nullptr, make_cudaExtent(1, 1, 1)), cudaErrorInvalidValue);
}

TEST_F(Memcpy2DTest, TwoDimensionalCopiesOfEveryKind) {
  constexpr size_t W = 100, H = 8;
  void* d = nullptr;
  size_t dpitch = 0;
  ASSERT_EQ(cudaMallocPitch(&d, &dpitch, W, H), cudaSuccess);
  std::vector<char> host(W * H), back(W * H, 0);
  std::iota(host.begin(), host.end(), static_cast<char>(0));
  ASSERT_EQ(cudaMemcpy2D(d, dpitch, host.data(), W, W, H, cudaMemcpyHostToDevice), cudaSuccess);
  ASSERT_EQ(cudaMemcpy2D(back.data(), W, d, dpitch, W, H, cudaMemcpyDeviceToHost), cudaSuccess);
  EXPECT_EQ(host, back);
  // The padding between rows is untouched: row 1 starts dpitch bytes in.
  char row1 = 0;
  ASSERT_EQ(cudaMemcpy(&row1, static_cast<char*>(d) + dpitch, 1, cudaMemcpyDeviceToHost), cudaSuccess);
  EXPECT_EQ(row1, host[W]);
  void* d2 = nullptr;
  size_t pitch2 = 0;
  ASSERT_EQ(cudaMallocPitch(&d2, &pitch2, W, H), cudaSuccess);
  ASSERT_EQ(cudaMemcpy2D(d2, pitch2, d, dpitch, W, H, cudaMemcpyDeviceToDevice), cudaSuccess);
  std::fill(back.begin(), back.end(), 0);
  ASSERT_EQ(cudaMemcpy2D(back.data(), W, d2, pitch2, W, H, cudaMemcpyDefault), cudaSuccess);
  EXPECT_EQ(host, back);
  std::vector<char> copy(W * H);
  ASSERT_EQ(cudaMemcpy2D(copy.data(), W, host.data(), W, W, H, cudaMemcpyHostToHost), cudaSuccess);
  EXPECT_EQ(copy, host);
  ASSERT_EQ(cudaMemcpy2DAsync(d, dpitch, host.data(), W, W, H, cudaMemcpyHostToDevice, nullptr), cudaSuccess);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
}

TEST_F(Memcpy2DTest, TwoDimensionalCopyErrors) {
  constexpr size_t W = 100, H = 8;
  void* d = nullptr;
  size_t dpitch = 0;
  ASSERT_EQ(cudaMallocPitch(&d, &dpitch, W, H), cudaSuccess);
  std::vector<char> host(W * H), back(W * H);
  EXPECT_EQ(cudaMemcpy2D(d, 50, host.data(), W, W, H, cudaMemcpyHostToDevice), cudaErrorInvalidPitchValue);
  EXPECT_EQ(cudaGetLastError(), cudaErrorInvalidPitchValue);
  EXPECT_EQ(cudaMemcpy2D(d, dpitch, host.data(), 50, W, H, cudaMemcpyHostToDevice), cudaErrorInvalidPitchValue);
  EXPECT_EQ(cudaMemcpy2D(d, size_t{1} << 31, host.data(), W, W, 1, cudaMemcpyHostToDevice), cudaSuccess);  // .pitch_huge
  EXPECT_EQ(cudaMemcpy2D(d, dpitch, host.data(), W, 0, H, cudaMemcpyHostToDevice), cudaSuccess);
  EXPECT_EQ(cudaMemcpy2D(d, dpitch, host.data(), W, W, 0, cudaMemcpyHostToDevice), cudaSuccess);
  EXPECT_EQ(cudaMemcpy2D(d, dpitch, host.data(), W, W, H, static_cast<cudaMemcpyKind>(7)),
            cudaErrorInvalidMemcpyDirection);
  // Unlike cudaMemcpy, the kind is held to: a host buffer where it says device is refused.
  EXPECT_EQ(cudaMemcpy2D(back.data(), W, d, dpitch, W, H, cudaMemcpyHostToDevice), cudaErrorInvalidValue);
  EXPECT_EQ(cudaMemcpy2D(nullptr, dpitch, host.data(), W, W, H, cudaMemcpyHostToDevice), cudaErrorInvalidValue);
  EXPECT_EQ(cudaMemcpy2DAsync(d, 50, host.data(), W, W, H, cudaMemcpyHostToDevice, nullptr), cudaErrorInvalidPitchValue);
  // A rectangle that runs past the allocation.
  EXPECT_EQ(cudaMemcpy2D(d, dpitch, host.data(), W, W, H + 1, cudaMemcpyHostToDevice), cudaErrorInvalidValue);
}

// Device-to-device and pinned rectangles are one multi-line LAUNCH_DMA of the copy engine.
TEST_F(Memcpy2DTest, DeviceRectangleIsOneCopyEngineLaunch) {
  void *a = nullptr, *b = nullptr;
  size_t pa = 0, pb = 0;
  ASSERT_EQ(cudaMallocPitch(&a, &pa, 64, 16), cudaSuccess);
  ASSERT_EQ(cudaMallocPitch(&b, &pb, 1000, 16), cudaSuccess);
  trace::Recorder recorder;
  ASSERT_EQ(cudaMemcpy2D(b, pb, a, pa, 64, 16, cudaMemcpyDeviceToDevice), cudaSuccess);
  std::vector<std::string> libcuda = recorder.texts(trace::Layer::Libcuda);
  ASSERT_GE(libcuda.size(), 2u);
  EXPECT_EQ(libcuda[0].rfind("cuMemcpy2D_v2(pCopy=", 0), 0u) << libcuda[0];
  EXPECT_EQ(libcuda[1], "copy 2-D: 16 lines of 64 B by the copy engine, pitch 512 -> 1024");
}

TEST_F(Memcpy2DTest, ThreeDimensionalCopies) {
  cudaPitchedPtr p3{};
  const cudaExtent ext = make_cudaExtent(64, 4, 3);
  ASSERT_EQ(cudaMalloc3D(&p3, ext), cudaSuccess);
  std::vector<char> h(64 * 4 * 3), b(64 * 4 * 3, 0);
  for (size_t i = 0; i < h.size(); ++i) h[i] = static_cast<char>(i * 7);
  cudaMemcpy3DParms m{};
  m.srcPtr = make_cudaPitchedPtr(h.data(), 64, 64, 4);
  m.dstPtr = p3;
  m.extent = ext;
  m.kind = cudaMemcpyHostToDevice;
  ASSERT_EQ(cudaMemcpy3D(&m), cudaSuccess);
  cudaMemcpy3DParms r{};
  r.srcPtr = p3;
  r.dstPtr = make_cudaPitchedPtr(b.data(), 64, 64, 4);
  r.extent = ext;
  r.kind = cudaMemcpyDeviceToHost;
  ASSERT_EQ(cudaMemcpy3D(&r), cudaSuccess);
  EXPECT_EQ(h, b);  // rt.memcpy3D.roundtrip
  // A sub-box: 16 bytes x 2 rows of slice 1, from x 8, y 1.
  cudaMemcpy3DParms q = r;
  q.srcPos = make_cudaPos(8, 1, 1);
  q.extent = make_cudaExtent(16, 2, 1);
  std::fill(b.begin(), b.end(), 0);
  ASSERT_EQ(cudaMemcpy3D(&q), cudaSuccess);
  EXPECT_EQ(b[0], h[64 * 4 + 64 + 8]);
  EXPECT_EQ(b[64 + 15], h[64 * 4 + 128 + 8 + 15]);  // slice 1, row 2, x 23
  EXPECT_EQ(b[16], 0);

  EXPECT_EQ(cudaMemcpy3D(nullptr), cudaErrorInvalidValue);
  cudaMemcpy3DParms bad = m;
  bad.extent = make_cudaExtent(0, 4, 3);
  EXPECT_EQ(cudaMemcpy3D(&bad), cudaSuccess);  // rt.memcpy3D.extent0
  bad = m;
  bad.srcPtr.pitch = 32;
  EXPECT_EQ(cudaMemcpy3D(&bad), cudaErrorInvalidPitchValue);
  bad = m;
  bad.dstPtr.pitch = 32;
  EXPECT_EQ(cudaMemcpy3D(&bad), cudaErrorInvalidPitchValue);
  bad = m;
  bad.kind = static_cast<cudaMemcpyKind>(9);
  EXPECT_EQ(cudaMemcpy3D(&bad), cudaErrorInvalidMemcpyDirection);
  bad = m;
  bad.srcPtr.ysize = 2;
  EXPECT_EQ(cudaMemcpy3D(&bad), cudaErrorInvalidPitchValue);  // rt.memcpy3D.src_ysize_lt_height
  bad = m;
  bad.kind = cudaMemcpyDefault;
  EXPECT_EQ(cudaMemcpy3D(&bad), cudaSuccess);
  EXPECT_EQ(cudaMemcpy3DAsync(&m, nullptr), cudaSuccess);
  EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
}

TEST_F(Memcpy2DTest, TwoAndThreeDimensionalMemsets) {
  constexpr size_t W = 100, H = 8;
  void* d = nullptr;
  size_t pitch = 0;
  ASSERT_EQ(cudaMallocPitch(&d, &pitch, 2 * W, H), cudaSuccess);
  ASSERT_EQ(cudaMemset(d, 0, pitch * H), cudaSuccess);
  ASSERT_EQ(cudaMemset2D(d, pitch, 0x5a, W, H), cudaSuccess);
  std::vector<char> back(pitch * H);
  ASSERT_EQ(cudaMemcpy(back.data(), d, back.size(), cudaMemcpyDeviceToHost), cudaSuccess);
  for (size_t y = 0; y < H; ++y) {
    EXPECT_EQ(back[y * pitch], 0x5a);
    EXPECT_EQ(back[y * pitch + W - 1], 0x5a);
    EXPECT_EQ(back[y * pitch + W], 0);  // only width bytes of each row
  }
  EXPECT_EQ(cudaMemset2D(d, 50, 0, W, H), cudaErrorInvalidValue);  // rt.memset2D.pitch_lt_width
  EXPECT_EQ(cudaMemset2D(d, pitch, 0, 0, H), cudaSuccess);
  ASSERT_EQ(cudaMemset2DAsync(d, pitch, 1, W, H, nullptr), cudaSuccess);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);

  cudaPitchedPtr p3{};
  const cudaExtent ext = make_cudaExtent(64, 4, 3);
  ASSERT_EQ(cudaMalloc3D(&p3, ext), cudaSuccess);
  ASSERT_EQ(cudaMemset3D(p3, 0x33, ext), cudaSuccess);
  std::vector<char> all(p3.pitch * 4 * 3);
  ASSERT_EQ(cudaMemcpy(all.data(), p3.ptr, all.size(), cudaMemcpyDeviceToHost), cudaSuccess);
  EXPECT_EQ(all[0], 0x33);
  EXPECT_EQ(all[(2 * 4 + 3) * p3.pitch + 63], 0x33);
  cudaPitchedPtr narrow = p3;
  narrow.pitch = 32;
  EXPECT_EQ(cudaMemset3D(narrow, 0, ext), cudaErrorInvalidValue);
  EXPECT_EQ(cudaMemset3D(p3, 0, make_cudaExtent(0, 0, 0)), cudaSuccess);
  // Two rows of each slice only: one 2-D memset per slice.
  ASSERT_EQ(cudaMemset3D(p3, 0x44, make_cudaExtent(64, 2, 3)), cudaSuccess);
  ASSERT_EQ(cudaMemcpy(all.data(), p3.ptr, all.size(), cudaMemcpyDeviceToHost), cudaSuccess);
  EXPECT_EQ(all[(4 + 1) * p3.pitch], 0x44);
  EXPECT_EQ(all[(4 + 2) * p3.pitch], 0x33);
  ASSERT_EQ(cudaMemset3DAsync(p3, 0x55, ext, nullptr), cudaSuccess);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
}

}  // namespace
}  // namespace minicuda::testing
