// Stream attributes (runtime/src/stream_attributes.cpp over driver/user/src/stream_attributes.cpp):
// the access policy window is checked, stored and returned per stream; the synchronisation policy
// and the priority likewise; the driver twins answer the same; the device's persisting-L2 figures
// are the H200's (probe_extra.txt prop.persistingL2CacheMaxSize, prop.accessPolicyMaxWindowSize).
#include <cmath>
#include <cstring>

#include "runtime_fixtures.h"

namespace minicuda::testing {
namespace {

using StreamAttributeTest = FreshProcess;

constexpr size_t kMaxWindow = 134217728;  // prop.accessPolicyMaxWindowSize

cudaAccessPolicyWindow window(void* base, size_t bytes, float ratio, cudaAccessProperty hit, cudaAccessProperty miss) {
  cudaAccessPolicyWindow w{};
  w.base_ptr = base;
  w.num_bytes = bytes;
  w.hitRatio = ratio;
  w.hitProp = hit;
  w.missProp = miss;
  return w;
}

TEST_F(StreamAttributeTest, RealNamesAndValues) {
  EXPECT_EQ(static_cast<int>(cudaStreamAttributeAccessPolicyWindow), 1);
  EXPECT_EQ(static_cast<int>(cudaStreamAttributeSynchronizationPolicy), 3);
  EXPECT_EQ(static_cast<int>(cudaStreamAttributePriority), 8);
  EXPECT_EQ(static_cast<int>(cudaAccessPropertyPersisting), 2);
  EXPECT_EQ(static_cast<int>(cudaSyncPolicyBlockingSync), 4);
  EXPECT_EQ(sizeof(cudaStreamAttrValue), 64u);
  EXPECT_EQ(static_cast<int>(CU_STREAM_ATTRIBUTE_ACCESS_POLICY_WINDOW), 1);
  EXPECT_EQ(sizeof(CUstreamAttrValue), 64u);
}

TEST_F(StreamAttributeTest, DeviceReportsTheH200PersistingL2Figures) {
  int v = 0;
  ASSERT_EQ(cudaDeviceGetAttribute(&v, cudaDevAttrMaxPersistingL2CacheSize, 0), cudaSuccess);
  EXPECT_EQ(v, 39321600);
  ASSERT_EQ(cudaDeviceGetAttribute(&v, cudaDevAttrMaxAccessPolicyWindowSize, 0), cudaSuccess);
  EXPECT_EQ(v, static_cast<int>(kMaxWindow));
  cudaDeviceProp prop{};
  ASSERT_EQ(cudaGetDeviceProperties(&prop, 0), cudaSuccess);
  EXPECT_EQ(prop.persistingL2CacheMaxSize, 39321600);
  EXPECT_EQ(prop.accessPolicyMaxWindowSize, static_cast<int>(kMaxWindow));
  // The sample's sequence: the whole set-aside is granted (the limit's twelfth steps hold it).
  ASSERT_EQ(cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, prop.persistingL2CacheMaxSize), cudaSuccess);
  size_t limit = 0;
  ASSERT_EQ(cudaDeviceGetLimit(&limit, cudaLimitPersistingL2CacheSize), cudaSuccess);
  EXPECT_EQ(limit, 39321600u);
  EXPECT_EQ(cudaCtxResetPersistingL2Cache(), cudaSuccess);
}

TEST_F(StreamAttributeTest, WindowIsStoredPerStreamAndReturned) {
  cudaStream_t s = nullptr, other = nullptr;
  ASSERT_EQ(cudaStreamCreate(&s), cudaSuccess);
  ASSERT_EQ(cudaStreamCreate(&other), cudaSuccess);
  int* d = nullptr;
  ASSERT_EQ(cudaMalloc(&d, 1 << 20), cudaSuccess);

  cudaStreamAttrValue got;
  std::memset(&got, 0x5a, sizeof got);
  ASSERT_EQ(cudaStreamGetAttribute(s, cudaStreamAttributeAccessPolicyWindow, &got), cudaSuccess);
  EXPECT_EQ(got.accessPolicyWindow.base_ptr, nullptr);  // a new stream: no window
  EXPECT_EQ(got.accessPolicyWindow.num_bytes, 0u);
  EXPECT_EQ(got.accessPolicyWindow.hitRatio, 0.0f);
  EXPECT_EQ(got.accessPolicyWindow.hitProp, cudaAccessPropertyNormal);
  EXPECT_EQ(got.accessPolicyWindow.missProp, cudaAccessPropertyNormal);

  cudaStreamAttrValue set{};
  set.accessPolicyWindow = window(d, 1 << 20, 0.75f, cudaAccessPropertyPersisting, cudaAccessPropertyStreaming);
  ASSERT_EQ(cudaStreamSetAttribute(s, cudaStreamAttributeAccessPolicyWindow, &set), cudaSuccess);
  ASSERT_EQ(cudaStreamGetAttribute(s, cudaStreamAttributeAccessPolicyWindow, &got), cudaSuccess);
  EXPECT_EQ(got.accessPolicyWindow.base_ptr, d);
  EXPECT_EQ(got.accessPolicyWindow.num_bytes, 1u << 20);
  EXPECT_EQ(got.accessPolicyWindow.hitRatio, 0.75f);
  EXPECT_EQ(got.accessPolicyWindow.hitProp, cudaAccessPropertyPersisting);
  EXPECT_EQ(got.accessPolicyWindow.missProp, cudaAccessPropertyStreaming);
  // Another stream keeps its own (empty) window; the driver twin reads the same one.
  ASSERT_EQ(cudaStreamGetAttribute(other, cudaStreamAttributeAccessPolicyWindow, &got), cudaSuccess);
  EXPECT_EQ(got.accessPolicyWindow.num_bytes, 0u);
  CUstreamAttrValue cu{};
  ASSERT_EQ(cuStreamGetAttribute(reinterpret_cast<CUstream>(s), CU_STREAM_ATTRIBUTE_ACCESS_POLICY_WINDOW, &cu),
            CUDA_SUCCESS);
  EXPECT_EQ(cu.accessPolicyWindow.base_ptr, d);
  EXPECT_EQ(cu.accessPolicyWindow.hitProp, CU_ACCESS_PROPERTY_PERSISTING);
  // The largest window is accepted; a window of 0 bytes clears it.
  set.accessPolicyWindow = window(d, kMaxWindow, 1.0f, cudaAccessPropertyNormal, cudaAccessPropertyNormal);
  EXPECT_EQ(cudaStreamSetAttribute(s, cudaStreamAttributeAccessPolicyWindow, &set), cudaSuccess);
  set.accessPolicyWindow = window(nullptr, 0, 0.0f, cudaAccessPropertyNormal, cudaAccessPropertyStreaming);
  EXPECT_EQ(cudaStreamSetAttribute(s, cudaStreamAttributeAccessPolicyWindow, &set), cudaSuccess);
  ASSERT_EQ(cudaStreamGetAttribute(s, cudaStreamAttributeAccessPolicyWindow, &got), cudaSuccess);
  EXPECT_EQ(got.accessPolicyWindow.num_bytes, 0u);
  EXPECT_EQ(got.accessPolicyWindow.missProp, cudaAccessPropertyStreaming);
  // The NULL stream keeps one of its own.
  set.accessPolicyWindow = window(d, 4096, 0.5f, cudaAccessPropertyPersisting, cudaAccessPropertyNormal);
  EXPECT_EQ(cudaStreamSetAttribute(nullptr, cudaStreamAttributeAccessPolicyWindow, &set), cudaSuccess);
  ASSERT_EQ(cudaStreamGetAttribute(nullptr, cudaStreamAttributeAccessPolicyWindow, &got), cudaSuccess);
  EXPECT_EQ(got.accessPolicyWindow.num_bytes, 4096u);
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
  cudaFree(d);
  cudaStreamDestroy(s);
  cudaStreamDestroy(other);
}

TEST_F(StreamAttributeTest, BadWindowsAreRefusedAndLeaveTheOldOne) {
  cudaStream_t s = nullptr;
  ASSERT_EQ(cudaStreamCreate(&s), cudaSuccess);
  int word = 0;
  void* base = &word;
  cudaStreamAttrValue good{};
  good.accessPolicyWindow = window(base, 256, 0.5f, cudaAccessPropertyPersisting, cudaAccessPropertyNormal);
  ASSERT_EQ(cudaStreamSetAttribute(s, cudaStreamAttributeAccessPolicyWindow, &good), cudaSuccess);
  const cudaAccessPolicyWindow bad[] = {
      window(base, kMaxWindow + 1, 0.5f, cudaAccessPropertyNormal, cudaAccessPropertyNormal),  // too large
      window(base, 256, 1.5f, cudaAccessPropertyNormal, cudaAccessPropertyNormal),             // ratio > 1
      window(base, 256, -0.1f, cudaAccessPropertyNormal, cudaAccessPropertyNormal),            // ratio < 0
      window(base, 256, NAN, cudaAccessPropertyNormal, cudaAccessPropertyNormal),
      window(base, 256, 0.5f, static_cast<cudaAccessProperty>(3), cudaAccessPropertyNormal),
      window(base, 256, 0.5f, cudaAccessPropertyNormal, cudaAccessPropertyPersisting),  // persisting misses
  };
  for (const cudaAccessPolicyWindow& w : bad) {
    cudaStreamAttrValue v{};
    v.accessPolicyWindow = w;
    EXPECT_EQ(cudaStreamSetAttribute(s, cudaStreamAttributeAccessPolicyWindow, &v), cudaErrorInvalidValue);
    EXPECT_EQ(cudaGetLastError(), cudaErrorInvalidValue);
  }
  cudaStreamAttrValue got{};
  ASSERT_EQ(cudaStreamGetAttribute(s, cudaStreamAttributeAccessPolicyWindow, &got), cudaSuccess);
  EXPECT_EQ(got.accessPolicyWindow.num_bytes, 256u);
  EXPECT_EQ(got.accessPolicyWindow.hitRatio, 0.5f);
  EXPECT_EQ(cudaStreamSetAttribute(s, cudaStreamAttributeAccessPolicyWindow, nullptr), cudaErrorInvalidValue);
  EXPECT_EQ(cudaStreamGetAttribute(s, cudaStreamAttributeAccessPolicyWindow, nullptr), cudaErrorInvalidValue);
  // Launch-only ids are no stream attribute; the memory-sync domains are not built.
  EXPECT_EQ(cudaStreamGetAttribute(s, cudaLaunchAttributeCooperative, &got), cudaErrorInvalidValue);
  EXPECT_EQ(cudaStreamSetAttribute(s, cudaLaunchAttributeClusterDimension, &got), cudaErrorInvalidValue);
  EXPECT_EQ(cudaStreamGetAttribute(s, cudaStreamAttributeMemSyncDomain, &got), cudaErrorNotSupported);
  EXPECT_EQ(cudaStreamSetAttribute(s, cudaStreamAttributeMemSyncDomainMap, &got), cudaErrorNotSupported);
  // A destroyed stream is an unknown handle.
  ASSERT_EQ(cudaStreamDestroy(s), cudaSuccess);
  EXPECT_EQ(cudaStreamSetAttribute(s, cudaStreamAttributeAccessPolicyWindow, &good), cudaErrorInvalidResourceHandle);
  EXPECT_EQ(cuStreamSetAttribute(reinterpret_cast<CUstream>(s), CU_STREAM_ATTRIBUTE_ACCESS_POLICY_WINDOW,
                                 reinterpret_cast<const CUstreamAttrValue*>(&good)),
            CUDA_ERROR_INVALID_HANDLE);
}

TEST_F(StreamAttributeTest, SynchronizationPolicyAndPriority) {
  cudaStream_t s = nullptr;
  ASSERT_EQ(cudaStreamCreateWithPriority(&s, cudaStreamNonBlocking, -3), cudaSuccess);
  cudaStreamAttrValue v{};
  ASSERT_EQ(cudaStreamGetAttribute(s, cudaStreamAttributeSynchronizationPolicy, &v), cudaSuccess);
  EXPECT_EQ(v.syncPolicy, cudaSyncPolicyAuto);
  v.syncPolicy = cudaSyncPolicyBlockingSync;
  ASSERT_EQ(cudaStreamSetAttribute(s, cudaStreamAttributeSynchronizationPolicy, &v), cudaSuccess);
  v.syncPolicy = cudaSyncPolicySpin;
  ASSERT_EQ(cudaStreamGetAttribute(s, cudaStreamAttributeSynchronizationPolicy, &v), cudaSuccess);
  EXPECT_EQ(v.syncPolicy, cudaSyncPolicyBlockingSync);
  v.syncPolicy = static_cast<cudaSynchronizationPolicy>(5);
  EXPECT_EQ(cudaStreamSetAttribute(s, cudaStreamAttributeSynchronizationPolicy, &v), cudaErrorInvalidValue);
  v.syncPolicy = static_cast<cudaSynchronizationPolicy>(0);
  EXPECT_EQ(cudaStreamSetAttribute(s, cudaStreamAttributeSynchronizationPolicy, &v), cudaErrorInvalidValue);

  // The priority attribute is the stream's priority, clamped into [-5, 0] as at creation.
  ASSERT_EQ(cudaStreamGetAttribute(s, cudaStreamAttributePriority, &v), cudaSuccess);
  EXPECT_EQ(v.priority, -3);
  v.priority = -9;
  ASSERT_EQ(cudaStreamSetAttribute(s, cudaStreamAttributePriority, &v), cudaSuccess);
  int priority = 1;
  ASSERT_EQ(cudaStreamGetPriority(s, &priority), cudaSuccess);
  EXPECT_EQ(priority, -5);
  v.priority = 4;
  ASSERT_EQ(cuStreamSetAttribute(reinterpret_cast<CUstream>(s), CU_STREAM_ATTRIBUTE_PRIORITY,
                                 reinterpret_cast<const CUstreamAttrValue*>(&v)),
            CUDA_SUCCESS);
  ASSERT_EQ(cudaStreamGetAttribute(s, cudaStreamAttributePriority, &v), cudaSuccess);
  EXPECT_EQ(v.priority, 0);
  ASSERT_EQ(cudaStreamGetAttribute(nullptr, cudaStreamAttributePriority, &v), cudaSuccess);
  EXPECT_EQ(v.priority, 0);
  cudaStreamDestroy(s);
}

TEST_F(StreamAttributeTest, TheTraceShowsTheWindow) {
  trace::Recorder recorder;
  cudaStream_t s = nullptr;
  ASSERT_EQ(cudaStreamCreate(&s), cudaSuccess);
  cudaStreamAttrValue v{};
  v.accessPolicyWindow = window(nullptr, 4096, 1.0f, cudaAccessPropertyPersisting, cudaAccessPropertyStreaming);
  ASSERT_EQ(cudaStreamSetAttribute(s, cudaStreamAttributeAccessPolicyWindow, &v), cudaSuccess);
  const std::string text = recorder.tree();
  EXPECT_NE(text.find("cuStreamSetAttribute("), std::string::npos) << text;
  EXPECT_NE(text.find("attr=CU_LAUNCH_ATTRIBUTE_ACCESS_POLICY_WINDOW"), std::string::npos) << text;
  EXPECT_NE(text.find("+4096 B) hitRatio=1 hitProp=CU_ACCESS_PROPERTY_PERSISTING missProp=CU_ACCESS_PROPERTY_STREAMING"),
            std::string::npos)
      << text;
  cudaStreamDestroy(s);
}

}  // namespace
}  // namespace minicuda::testing
