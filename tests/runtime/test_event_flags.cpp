// Event record and wait flags, and blocking-sync waits (runtime/src/stream.cpp over libcuda's
// stream.cpp): the answers of CUDA 13 on an H200 outside a stream capture
// (tests/data/h200/probe_api_families.txt rt.eventRecordWithFlags.*, rt.streamWaitEvent.*).
#include <chrono>
#include <string>
#include <thread>

#include "runtime_fixtures.h"

namespace minicuda::testing {
namespace {

using EventFlagsTest = FreshProcess;

TEST_F(EventFlagsTest, RecordFlags) {
  cudaEvent_t e = nullptr;
  cudaStream_t s = nullptr;
  ASSERT_EQ(cudaEventCreate(&e), cudaSuccess);
  ASSERT_EQ(cudaStreamCreate(&s), cudaSuccess);
  EXPECT_EQ(cudaEventRecordWithFlags(e, s, cudaEventRecordDefault), cudaSuccess);
  EXPECT_EQ(cudaEventRecordWithFlags(e, s, cudaEventRecordExternal), cudaErrorIllegalState);
  EXPECT_EQ(cudaGetLastError(), cudaErrorIllegalState);
  EXPECT_EQ(cudaEventRecordWithFlags(e, s, 2), cudaErrorInvalidValue);
  EXPECT_EQ(cudaEventRecordWithFlags(nullptr, s, 0), cudaErrorInvalidResourceHandle);
  EXPECT_EQ(cudaEventRecordWithFlags(e, nullptr, 0), cudaSuccess);
  EXPECT_EQ(cudaEventRecordWithFlags(e), cudaSuccess);
  EXPECT_EQ(cudaEventSynchronize(e), cudaSuccess);
  EXPECT_EQ(cuEventRecordWithFlags(e, s, CU_EVENT_RECORD_EXTERNAL), CUDA_ERROR_ILLEGAL_STATE);
  EXPECT_EQ(cuEventRecordWithFlags(e, s, 2), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuEventRecordWithFlags_ptsz(e, nullptr, CU_EVENT_RECORD_DEFAULT), CUDA_SUCCESS);
}

TEST_F(EventFlagsTest, WaitFlags) {
  cudaEvent_t e = nullptr;
  cudaStream_t s = nullptr;
  ASSERT_EQ(cudaEventCreate(&e), cudaSuccess);
  ASSERT_EQ(cudaStreamCreate(&s), cudaSuccess);
  ASSERT_EQ(cudaEventRecord(e, nullptr), cudaSuccess);
  EXPECT_EQ(cudaStreamWaitEvent(s, e, cudaEventWaitDefault), cudaSuccess);
  EXPECT_EQ(cudaStreamWaitEvent(s, e, cudaEventWaitExternal), cudaErrorIllegalState);
  EXPECT_EQ(cudaStreamWaitEvent(s, e, 2), cudaErrorInvalidValue);
  EXPECT_EQ(cuStreamWaitEvent(s, e, CU_EVENT_WAIT_EXTERNAL), CUDA_ERROR_ILLEGAL_STATE);
  EXPECT_EQ(cudaStreamSynchronize(s), cudaSuccess);
}

// A blocking-sync event is waited for asleep in poll() on the control device, not spinning:
// the wait shows in the trace as a poll system call. A host function that sleeps holds the
// record back, so there is a wait.
void CUDART_CB sleep_20ms(void*) { std::this_thread::sleep_for(std::chrono::milliseconds(20)); }

TEST_F(EventFlagsTest, BlockingSyncEventSleepsInPoll) {
  cudaEvent_t blocking = nullptr, spinning = nullptr;
  ASSERT_EQ(cudaEventCreateWithFlags(&blocking, cudaEventBlockingSync), cudaSuccess);
  ASSERT_EQ(cudaEventCreateWithFlags(&spinning, cudaEventDefault), cudaSuccess);
  trace::Recorder recorder;
  ASSERT_EQ(cudaLaunchHostFunc(nullptr, sleep_20ms, nullptr), cudaSuccess);
  ASSERT_EQ(cudaEventRecord(blocking, nullptr), cudaSuccess);
  ASSERT_EQ(cudaEventSynchronize(blocking), cudaSuccess);
  std::string tree = recorder.tree();
  const size_t sync = tree.find("cuEventSynchronize(");
  ASSERT_NE(sync, std::string::npos) << tree;
  EXPECT_NE(tree.find("blocking sync: sleep in poll()", sync), std::string::npos) << tree;
  EXPECT_NE(tree.find("poll(", tree.find("blocking sync", sync)), std::string::npos) << tree;
  recorder.clear();
  ASSERT_EQ(cudaLaunchHostFunc(nullptr, sleep_20ms, nullptr), cudaSuccess);
  ASSERT_EQ(cudaEventRecord(spinning, nullptr), cudaSuccess);
  ASSERT_EQ(cudaEventSynchronize(spinning), cudaSuccess);
  tree = recorder.tree();
  EXPECT_EQ(tree.find("blocking sync"), std::string::npos) << tree;
}

}  // namespace
}  // namespace minicuda::testing
