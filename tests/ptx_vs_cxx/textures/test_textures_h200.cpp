// The PTX path against the H200 directly: the 1-D lines of the recording (every address mode,
// both filters, normalised and not: 1d.*) and the pitched 2-D linear lines (2d.pitch.norm.linear.*)
// of tests/data/h200/texture/out/texture.txt, made by tests/data/h200/texture/probe_texture.cu,
// replayed through textures.ptx with the probe's texels and descriptors; every result must have
// the H200's bits (tests/textures/test_texture_h200.cu does the same for the C++ path, with the
// rest of the recording). Skipped while the recording is absent.
#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include "texture_gate.h"

namespace {

using namespace texture_gate;

struct Line {
  float x = 0, y = 0;
  uint32_t bits = 0;
};

// tag -> samples of the families replayed here.
std::map<std::string, std::vector<Line>> recording(bool* found) {
  std::map<std::string, std::vector<Line>> out;
  std::ifstream in(std::string(MINICUDA_TEXTURE_RECORDING) + "/texture.txt");
  *found = in.good();
  std::string text;
  while (std::getline(in, text)) {
    const bool one_d = text.rfind("1d.", 0) == 0;
    const bool pitch = text.rfind("2d.pitch.norm.linear.", 0) == 0;
    const size_t eq = text.find(" = ");
    if ((!one_d && !pitch) || eq == std::string::npos) continue;
    std::istringstream left(text.substr(0, eq)), right(text.substr(eq + 3));
    std::string tag, word;
    Line l;
    left >> tag >> l.x;
    if (pitch) left >> l.y;
    right >> word;
    l.bits = static_cast<uint32_t>(std::stoul(word, nullptr, 16));
    out[tag].push_back(l);
  }
  return out;
}

cudaTextureAddressMode mode_of(const std::string& tag) {
  if (tag.find(".wrap") != std::string::npos) return cudaAddressModeWrap;
  if (tag.find(".mirror") != std::string::npos) return cudaAddressModeMirror;
  if (tag.find(".border") != std::string::npos) return cudaAddressModeBorder;
  return cudaAddressModeClamp;
}

// The probe's objects: an 8-texel float array for 1d.*, a 5x4 pitched float image for 2d.pitch.*.
cudaTextureObject_t probe_object(const std::string& tag, std::vector<void*>& keep) {
  cudaResourceDesc r{};
  cudaTextureDesc t{};
  t.addressMode[0] = t.addressMode[1] = t.addressMode[2] = mode_of(tag);
  t.filterMode = tag.find(".linear") != std::string::npos ? cudaFilterModeLinear : cudaFilterModePoint;
  t.normalizedCoords = tag.find(".norm.") != std::string::npos ? 1 : 0;
  t.readMode = cudaReadModeElementType;
  t.borderColor[0] = 0.25f;
  if (tag.rfind("1d.", 0) == 0) {
    const float texels[8] = {1.0f, 3.0f, -2.0f, 10.0f, 0.5f, 100.0f, -50.0f, 7.25f};
    cudaChannelFormatDesc d = cudaCreateChannelDesc<float>();
    cudaArray_t a = nullptr;
    EXPECT_EQ(cudaMallocArray(&a, &d, 8, 0), cudaSuccess);
    EXPECT_EQ(cudaMemcpy2DToArray(a, 0, 0, texels, 32, 32, 1, cudaMemcpyHostToDevice), cudaSuccess);
    keep.push_back(a);
    r.resType = cudaResourceTypeArray;
    r.res.array.array = a;
  } else {
    std::vector<float> texels(20);
    for (int i = 0; i < 20; ++i) texels[i] = static_cast<float>(i * i % 13) - 3.5f;
    void* p = nullptr;
    size_t pitch = 0;
    EXPECT_EQ(cudaMallocPitch(&p, &pitch, 20, 4), cudaSuccess);
    EXPECT_EQ(cudaMemcpy2D(p, pitch, texels.data(), 20, 20, 4, cudaMemcpyHostToDevice), cudaSuccess);
    keep.push_back(p);
    r.resType = cudaResourceTypePitch2D;
    r.res.pitch2D.devPtr = p;
    r.res.pitch2D.desc = cudaCreateChannelDesc<float>();
    r.res.pitch2D.width = 5;
    r.res.pitch2D.height = 4;
    r.res.pitch2D.pitchInBytes = pitch;
    t.borderColor[0] = 9.0f;
  }
  cudaTextureObject_t o = 0;
  EXPECT_EQ(cudaCreateTextureObject(&o, &r, &t, nullptr), cudaSuccess);
  return o;
}

using TexturesPtxH200 = TexturesPtxVsCxx;

TEST_F(TexturesPtxH200, OneDimensionalAndPitchedLinearLinesHaveTheH200sBits) {
  bool found = false;
  const auto lines = recording(&found);
  if (!found) GTEST_SKIP() << "no H200 recording at " << MINICUDA_TEXTURE_RECORDING;
  size_t compared = 0;
  for (const auto& [tag, samples] : lines) {
    std::vector<void*> keep;
    cudaTextureObject_t t = probe_object(tag, keep);
    std::vector<float> xs, ys;
    for (const Line& l : samples) xs.push_back(l.x), ys.push_back(l.y);
    const int n = static_cast<int>(samples.size());
    Buffer<float> x(xs), y(ys);
    Buffer<float4> out(n);
    int shape = tag.rfind("1d.", 0) == 0 ? 0 : 1, count = n;
    float* none = nullptr;
    int* no_layer = nullptr;
    void* args[] = {&t, &shape, &x.ptr, &y.ptr, &none, &no_layer, &out.ptr, &count};
    ASSERT_EQ(launch("xc_tex", (n + 127) / 128, 128, args), CUDA_SUCCESS) << tag;
    const std::vector<float4> got = out.get();
    int wrong = 0;
    for (int i = 0; i < n; ++i) {
      uint32_t bits;
      std::memcpy(&bits, &got[i].x, 4);
      if (bits != samples[i].bits && wrong++ < 3)
        ADD_FAILURE() << tag << " " << xs[i] << ": PTX " << std::hex << bits << ", H200 " << samples[i].bits;
    }
    EXPECT_EQ(wrong, 0) << tag;
    compared += samples.size();
    EXPECT_EQ(cudaDestroyTextureObject(t), cudaSuccess);
    if (tag.rfind("1d.", 0) == 0) EXPECT_EQ(cudaFreeArray(static_cast<cudaArray_t>(keep[0])), cudaSuccess);
    else EXPECT_EQ(cudaFree(keep[0]), cudaSuccess);
  }
  // 1-D: 4 unnormalised families of 1024 lines (clamp and border) and 8 normalised ones of 320;
  // pitched 2-D: 4 families of 200.
  EXPECT_EQ(compared, 4u * 1024 + 8u * 320 + 4u * 200);
}

}  // namespace
