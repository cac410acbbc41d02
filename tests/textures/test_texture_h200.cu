// The texture unit against the H200: every sampling line of the recording that
// tests/data/h200/texture/probe_texture.cu made on the device (out/texture.txt) is replayed here
// with the same texels, the same descriptors and the coordinates read back from the line, and
// the result must have the same bits. Skipped while the recording is absent.
#include <cuda_runtime.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "kernel_test.h"

namespace minicuda::kernels_test {
namespace {

// One recorded sample: its coordinates and the four result registers (one for scalar cases).
struct Sample {
  std::vector<double> coords;
  std::vector<uint32_t> bits;
};

// tag -> samples, from "tag c1 c2 ... = b1 [b2 b3 b4] (value)" lines.
std::map<std::string, std::vector<Sample>> read_recording(bool* found) {
  std::map<std::string, std::vector<Sample>> out;
  std::ifstream in(std::string(MINICUDA_TEXTURE_RECORDING) + "/texture.txt");
  *found = in.good();
  std::string line;
  while (std::getline(in, line)) {
    const size_t eq = line.find(" = ");
    if (eq == std::string::npos || line.rfind("call ", 0) == 0 || line.rfind("ERR", 0) == 0) continue;
    std::istringstream left(line.substr(0, eq)), right(line.substr(eq + 3));
    std::string tag;
    left >> tag;
    Sample s;
    double c;
    while (left >> c) s.coords.push_back(c);
    std::string word;
    while (right >> word && word[0] != '(') s.bits.push_back(static_cast<uint32_t>(std::stoul(word, nullptr, 16)));
    out[tag].push_back(s);
  }
  return out;
}

__global__ void sample_kernel(cudaTextureObject_t t, int kind, const float* xs, const float* ys, const float* zs,
                              const int* layers, float4* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float4 v = make_float4(0, 0, 0, 0);
  switch (kind) {
    case 1: v.x = tex1D<float>(t, xs[i]); break;
    case 2: v = tex2D<float4>(t, xs[i], ys[i]); break;
    case 3: v.x = tex3D<float>(t, xs[i], ys[i], zs[i]); break;
    case 4: v.x = tex1DLayered<float>(t, xs[i], layers[i]); break;
    case 5: v.x = tex2DLayered<float>(t, xs[i], ys[i], layers[i]); break;
    case 6: v.x = texCubemap<float>(t, xs[i], ys[i], zs[i]); break;
    case 7: v.x = tex1Dfetch<float>(t, layers[i]); break;
    case 8: v.x = tex2D<float>(t, xs[i], ys[i]); break;
    case 9:
      v.x = tex2DLod<float>(t, xs[i], ys[i], 0.0f) +
            1000.0f * tex2DGrad<float>(t, xs[i], ys[i], make_float2(0.1f, 0), make_float2(0, 0.1f));
      break;
  }
  out[i] = v;
}

struct Texture {
  cudaTextureObject_t object = 0;
  int kind = 0;            // sample_kernel's
  int layer_coord = -1;    // which coordinate is an integer layer/index (-1: none)
};

cudaTextureObject_t make_object(const cudaResourceDesc& r, int addr, int filter, int normalized, int read_norm,
                                float border0 = 0.25f) {
  cudaTextureDesc t;
  std::memset(&t, 0, sizeof t);
  for (int i = 0; i < 3; ++i) t.addressMode[i] = static_cast<cudaTextureAddressMode>(addr);
  t.filterMode = static_cast<cudaTextureFilterMode>(filter);
  t.normalizedCoords = normalized;
  t.readMode = read_norm ? cudaReadModeNormalizedFloat : cudaReadModeElementType;
  t.borderColor[0] = border0;
  t.borderColor[1] = border0 == 0.25f ? 0.5f : 0.0f;
  t.borderColor[2] = border0 == 0.25f ? 0.75f : 0.0f;
  t.borderColor[3] = border0 == 0.25f ? 1.0f : 0.0f;
  cudaTextureObject_t o = 0;
  EXPECT_EQ(cudaCreateTextureObject(&o, &r, &t, nullptr), cudaSuccess);
  return o;
}

cudaResourceDesc of_array(cudaArray_t a) {
  cudaResourceDesc r;
  std::memset(&r, 0, sizeof r);
  r.resType = cudaResourceTypeArray;
  r.res.array.array = a;
  return r;
}

cudaArray_t array_3d(const std::vector<float>& h, size_t w, size_t hgt, size_t d, unsigned flags) {
  cudaChannelFormatDesc cd = cudaCreateChannelDesc<float>();
  cudaArray_t a = nullptr;
  EXPECT_EQ(cudaMalloc3DArray(&a, &cd, make_cudaExtent(w, hgt, d), flags), cudaSuccess);
  cudaMemcpy3DParms m{};
  m.srcPtr = make_cudaPitchedPtr(const_cast<float*>(h.data()), w * 4, w, hgt == 0 ? 1 : hgt);
  m.dstArray = a;
  m.extent = make_cudaExtent(w, hgt == 0 ? 1 : hgt, d == 0 ? 1 : d);
  m.kind = cudaMemcpyHostToDevice;
  EXPECT_EQ(cudaMemcpy3D(&m), cudaSuccess);
  return a;
}

int mode_of(const std::string& name) {
  if (name == "wrap") return 0;
  if (name == "clamp") return 1;
  if (name == "mirror") return 2;
  return 3;
}

// The probe's textures, by tag; false: a tag this replay does not know.
bool texture_for(const std::string& tag, Texture* t) {
  std::vector<std::string> part;
  std::stringstream ss(tag);
  for (std::string p; std::getline(ss, p, '.');) part.push_back(p);
  const int filter = tag.find(".linear") != std::string::npos ? 1 : 0;
  if (part[0] == "1d") {
    static cudaArray_t a = nullptr;
    const std::vector<float> h = {1.0f, 3.0f, -2.0f, 10.0f, 0.5f, 100.0f, -50.0f, 7.25f};
    a = array_3d(h, 8, 0, 0, 0);
    t->object = make_object(of_array(a), mode_of(part[3]), filter, part[1] == "norm", 0);
    t->kind = 1;
    return true;
  }
  if (part[0] == "2d" && part[1] == "uchar4") {
    std::vector<uchar4> h(12);
    for (int i = 0; i < 12; ++i)
      h[i] = make_uchar4(i * 20 + 3, 255 - i * 17, (i * 77) & 255, (i & 1) ? 255 : 0);
    cudaChannelFormatDesc cd = cudaCreateChannelDesc<uchar4>();
    cudaArray_t a = nullptr;
    EXPECT_EQ(cudaMallocArray(&a, &cd, 4, 3), cudaSuccess);
    EXPECT_EQ(cudaMemcpy2DToArray(a, 0, 0, h.data(), 16, 16, 3, cudaMemcpyHostToDevice), cudaSuccess);
    t->object = make_object(of_array(a), mode_of(part[4]), filter, 0, 1);
    t->kind = 2;
    return true;
  }
  if (part[0] == "2d" && part[1] == "pitch") {
    std::vector<float> hp(20);
    for (int i = 0; i < 20; ++i) hp[i] = static_cast<float>(i * i % 13) - 3.5f;
    void* p = nullptr;
    size_t pitch = 0;
    EXPECT_EQ(cudaMallocPitch(&p, &pitch, 20, 4), cudaSuccess);
    EXPECT_EQ(cudaMemcpy2D(p, pitch, hp.data(), 20, 20, 4, cudaMemcpyHostToDevice), cudaSuccess);
    cudaResourceDesc r;
    std::memset(&r, 0, sizeof r);
    r.resType = cudaResourceTypePitch2D;
    r.res.pitch2D.devPtr = p;
    r.res.pitch2D.desc = cudaCreateChannelDesc<float>();
    r.res.pitch2D.width = 5;
    r.res.pitch2D.height = 4;
    r.res.pitch2D.pitchInBytes = pitch;
    const bool lodgrad = part[2] == "lodgrad";
    t->object = make_object(r, lodgrad ? 1 : mode_of(part[4]), 1, 1, 0, 9.0f);
    t->kind = lodgrad ? 9 : 8;
    return true;
  }
  if (part[0] == "3d") {
    std::vector<float> h(18);
    for (int i = 0; i < 18; ++i) h[i] = static_cast<float>((i * 5) % 11) * 1.5f;
    t->object = make_object(of_array(array_3d(h, 3, 3, 2, 0)), 1, filter, 0, 0);
    t->kind = 3;
    return true;
  }
  if (part[0] == "1dlayered") {
    std::vector<float> h(12);
    for (int i = 0; i < 12; ++i) h[i] = static_cast<float>(i * 3 % 7);
    t->object = make_object(of_array(array_3d(h, 4, 0, 3, cudaArrayLayered)), 1, 1, 0, 0);
    t->kind = 4;
    t->layer_coord = 1;
    return true;
  }
  if (part[0] == "2dlayered") {
    std::vector<float> h(12);
    for (int i = 0; i < 12; ++i) h[i] = static_cast<float>(i * i % 9) - 1.0f;
    t->object = make_object(of_array(array_3d(h, 3, 2, 2, cudaArrayLayered)), 1, 1, 0, 0);
    t->kind = 5;
    t->layer_coord = 2;
    return true;
  }
  if (part[0] == "cube") {
    std::vector<float> h(96);
    for (int f = 0; f < 6; ++f)
      for (int y = 0; y < 4; ++y)
        for (int x = 0; x < 4; ++x) h[(f * 4 + y) * 4 + x] = f * 100 + y * 10 + x;
    t->object = make_object(of_array(array_3d(h, 4, 4, 6, cudaArrayCubemap)), 1, filter, 1, 0);
    t->kind = 6;
    return true;
  }
  if (part[0] == "fetch") {
    const std::string& type = part[1];
    void* d = nullptr;
    cudaResourceDesc r;
    std::memset(&r, 0, sizeof r);
    r.resType = cudaResourceTypeLinear;
    if (type == "float") {
      std::vector<float> h(10);
      for (int i = 0; i < 10; ++i) h[i] = i * 1.25f;
      EXPECT_EQ(cudaMalloc(&d, 40), cudaSuccess);
      EXPECT_EQ(cudaMemcpy(d, h.data(), 40, cudaMemcpyHostToDevice), cudaSuccess);
      r.res.linear.desc = cudaCreateChannelDesc<float>();
      r.res.linear.sizeInBytes = 40;
    } else {
      const signed char c[10] = {-128, -127, -1, 0, 1, 64, 127, -64, 100, -100};
      const short s[10] = {-32768, -32767, -1, 0, 1, 16384, 32767, -16384, 1000, -1000};
      const bool eight = type[1] == '8';
      EXPECT_EQ(cudaMalloc(&d, 20), cudaSuccess);
      EXPECT_EQ(cudaMemcpy(d, eight ? static_cast<const void*>(c) : static_cast<const void*>(s), eight ? 10 : 20,
                           cudaMemcpyHostToDevice),
                cudaSuccess);
      r.res.linear.desc = cudaCreateChannelDesc(eight ? 8 : 16, 0, 0, 0,
                                                type[0] == 'u' ? cudaChannelFormatKindUnsigned : cudaChannelFormatKindSigned);
      r.res.linear.sizeInBytes = eight ? 10 : 20;
    }
    r.res.linear.devPtr = d;
    t->object = make_object(r, 0, 0, 0, type != "float");
    t->kind = 7;
    t->layer_coord = 0;
    return true;
  }
  return false;
}

// Where minicuda's texture unit is not yet bit-exact: the largest difference allowed, and why.
// Normalised 8-bit texels filtered linearly differ from the H200 by a few units in the last
// place (the H200 filters them in a fixed-point form minicuda does not reproduce); a 3-D linear
// fetch blends its planes with weights that differ by one step of 1/256 in 17 of 216 samples.
double tolerance_of(const std::string& tag) {
  if (tag.rfind("2d.uchar4.normfloat.linear", 0) == 0) return 2e-5;
  if (tag == "3d.linear.clamp") return 15.0 / 256;  // texels span 0..15: one weight step
  return 0;
}

using TextureH200 = FreshProcess;

TEST_F(TextureH200, EverySampleHasTheRecordedBits) {
  bool found = false;
  const auto recording = read_recording(&found);
  if (!found) GTEST_SKIP() << "no recording at " << MINICUDA_TEXTURE_RECORDING;
  size_t compared = 0, mismatched = 0, approximate = 0;
  for (const auto& [tag, samples] : recording) {
    Texture t;
    if (tag.rfind("surf", 0) == 0 || tag.rfind("arrayinfo", 0) == 0 || tag == "pitch" || tag == "3d.readback") continue;
    if (!texture_for(tag, &t)) {
      ADD_FAILURE() << "unknown tag " << tag;
      continue;
    }
    const int n = static_cast<int>(samples.size());
    std::vector<float> xs(n), ys(n), zs(n);
    std::vector<int> layers(n);
    for (int i = 0; i < n; ++i) {
      const auto& c = samples[i].coords;
      float* axes[3] = {&xs[i], &ys[i], &zs[i]};
      for (size_t k = 0; k < c.size() && k < 3; ++k) {
        if (static_cast<int>(k) == t.layer_coord) layers[i] = static_cast<int>(c[k]);
        else *axes[k] = static_cast<float>(c[k]);
      }
    }
    DeviceArray<float> dx(xs), dy(ys), dz(zs);
    DeviceArray<int> dl(layers);
    DeviceArray<float4> out(n);
    sample_kernel<<<(n + 127) / 128, 128>>>(t.object, t.kind, dx.get(), dy.get(), dz.get(), dl.get(), out.get(), n);
    const std::vector<float4> got = out.read();
    const size_t mismatched_before = mismatched;
    for (int i = 0; i < n; ++i) {
      const float v[4] = {got[i].x, got[i].y, got[i].z, got[i].w};
      for (size_t k = 0; k < samples[i].bits.size(); ++k) {
        ++compared;
        if (bits_of(v[k]) == samples[i].bits[k]) continue;
        float want;
        std::memcpy(&want, &samples[i].bits[k], 4);
        if (std::abs(static_cast<double>(v[k]) - want) <= tolerance_of(tag)) {
          ++approximate;
          continue;
        }
        if (++mismatched <= 20) {
          ADD_FAILURE() << tag << " sample " << i << " component " << k << ": got " << v[k] << " ("
                        << std::hex << bits_of(v[k]) << "), H200 " << want << " (" << samples[i].bits[k] << ")"
                        << std::dec;
        }
      }
    }
    if (mismatched != mismatched_before) std::printf("  %s: %zu differ\n", tag.c_str(), mismatched - mismatched_before);
  }
  std::printf("texture H200 replay: %zu values compared, %zu within the documented tolerance, %zu differ\n",
              compared, approximate, mismatched);
  EXPECT_EQ(mismatched, 0u);
  EXPECT_GT(compared, 5000u);
}

}  // namespace
}  // namespace minicuda::kernels_test
