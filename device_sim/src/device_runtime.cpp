// device_runtime: the device side of CUDA dynamic parallelism (minicuda/device_runtime.h) and the
// launch queue it writes (device_launch_queue.h). Kernel code calls these on the SM's host
// thread; each reaches the queue of the grid whose block is running there.
#include "device_launch_queue.h"

#include <algorithm>
#include <cstring>

#include <fmt/format.h>

#include "minicuda/trace.h"
#include "nv_occupancy.h"
#include "compute_engine.h"
#include "sm_block.h"

namespace minicuda::gpu {

// cudaError_t values this layer returns (driver_types.h's numbers).
namespace {
constexpr int kSuccess = 0;                       // cudaSuccess
constexpr int kInvalidValue = 1;                  // cudaErrorInvalidValue
constexpr int kInvalidConfiguration = 9;          // cudaErrorInvalidConfiguration
constexpr int kLaunchMaxDepthExceeded = 65;       // cudaErrorLaunchMaxDepthExceeded
constexpr int kLaunchPendingCountExceeded = 69;   // cudaErrorLaunchPendingCountExceeded
constexpr int kInvalidResourceHandle = 400;       // cudaErrorInvalidResourceHandle
constexpr int kNotSupported = 801;                // cudaErrorNotSupported
constexpr unsigned kStreamNonBlocking = 1;        // cudaStreamNonBlocking
}  // namespace

bool DeviceLaunchQueue::push(DeviceLaunchRecord record) {
  // Claim a pending slot first: the limit is the device's, over every queue.
  uint64_t pending = limits_.pending.load(std::memory_order_relaxed);
  do {
    if (pending >= limits_.pending_limit.load(std::memory_order_relaxed)) return false;
  } while (!limits_.pending.compare_exchange_weak(pending, pending + 1, std::memory_order_relaxed));
  std::lock_guard lock(mutex_);
  record.sequence = next_sequence_[record.block_linear]++;
  records_.push_back(std::move(record));
  return true;
}

std::vector<DeviceLaunchRecord> DeviceLaunchQueue::take() {
  std::vector<DeviceLaunchRecord> out;
  {
    std::lock_guard lock(mutex_);
    out.swap(records_);
  }
  auto tail = [](const DeviceLaunchRecord& r) { return r.stream == devrt::kTailLaunchStream; };
  std::sort(out.begin(), out.end(), [&](const DeviceLaunchRecord& a, const DeviceLaunchRecord& b) {
    if (tail(a) != tail(b)) return !tail(a);
    if (a.block_linear != b.block_linear) return a.block_linear < b.block_linear;
    return a.sequence < b.sequence;
  });
  return out;
}

void DeviceLaunchQueue::discard() {
  std::lock_guard lock(mutex_);
  limits_.pending.fetch_sub(records_.size(), std::memory_order_relaxed);
  records_.clear();
  next_sequence_.clear();
  errors_.clear();
  streams_.clear();
}

void DeviceLaunchQueue::set_error(uint64_t thread_key, int error) {
  std::lock_guard lock(mutex_);
  errors_[thread_key] = error;
}

int DeviceLaunchQueue::error(uint64_t thread_key, bool reset) {
  std::lock_guard lock(mutex_);
  auto it = errors_.find(thread_key);
  if (it == errors_.end()) return kSuccess;
  const int e = it->second;
  if (reset) errors_.erase(it);
  return e;
}

uintptr_t DeviceLaunchQueue::create_stream(uint64_t block_linear) {
  std::lock_guard lock(mutex_);
  const uintptr_t handle = next_stream_;
  next_stream_ += 0x10;
  streams_.emplace(block_linear, handle);
  return handle;
}

bool DeviceLaunchQueue::destroy_stream(uint64_t block_linear, uintptr_t stream) {
  std::lock_guard lock(mutex_);
  return streams_.erase({block_linear, stream}) != 0;
}

bool DeviceLaunchQueue::stream_usable(uint64_t block_linear, uintptr_t stream) {
  if (stream == 0 || stream == devrt::kTailLaunchStream || stream == devrt::kFireAndForgetStream) return true;
  std::lock_guard lock(mutex_);
  return streams_.count({block_linear, stream}) != 0;
}

namespace devrt {
namespace {

// The running grid's queue, or null outside a kernel (or for a grid run without one).
DeviceLaunchQueue* running_queue(const char* what) {
  sm::BlockRun* b = sm::current_block(what);
  return b == nullptr ? nullptr : b->launch().children;
}

uint64_t block_linear() {
  return blockIdx.x + uint64_t{gridDim.x} * (blockIdx.y + uint64_t{gridDim.y} * blockIdx.z);
}

// The calling CUDA thread's key for its last error: its block and its thread within the block.
uint64_t thread_key() {
  const uint64_t thread = threadIdx.x + uint64_t{blockDim.x} * (threadIdx.y + uint64_t{blockDim.y} * threadIdx.z);
  return (block_linear() << 16) ^ thread;
}

int fail(DeviceLaunchQueue& q, int error) {
  q.set_error(thread_key(), error);
  return error;
}

}  // namespace

int launch(const KernelCode& code, dim3 grid, dim3 block, size_t shared, void* stream, const void* params) {
  sm::SmCode sm_code;
  DeviceLaunchQueue* q = running_queue("a device-side launch");
  if (q == nullptr) return kNotSupported;
  const DeviceProperties& props = q->properties();
  const uint64_t threads = uint64_t{block.x} * block.y * block.z;
  const bool bad_shape =
      grid.x == 0 || grid.y == 0 || grid.z == 0 || threads == 0 ||
      threads > static_cast<uint64_t>(props.max_threads_per_block) ||
      block.x > static_cast<unsigned>(props.max_block_dim[0]) || block.y > static_cast<unsigned>(props.max_block_dim[1]) ||
      block.z > static_cast<unsigned>(props.max_block_dim[2]) || grid.x > static_cast<unsigned>(props.max_grid_dim[0]) ||
      grid.y > static_cast<unsigned>(props.max_grid_dim[1]) || grid.z > static_cast<unsigned>(props.max_grid_dim[2]);
  const auto stream_handle = reinterpret_cast<uintptr_t>(stream);
  int error = kSuccess;
  if (bad_shape) {
    error = kInvalidConfiguration;
  } else if (shared > props.shared_mem_per_block) {
    error = kInvalidValue;
  } else if (nv_occupancy(sm_limits(props), static_cast<uint32_t>(threads), 1, static_cast<uint32_t>(shared))
                 .blocks_per_sm == 0) {
    error = kInvalidConfiguration;
  } else if (!q->stream_usable(block_linear(), stream_handle)) {
    error = kInvalidResourceHandle;
  } else if (q->depth() + 1 > DeviceRuntimeLimits::kMaxDepth) {
    error = kLaunchMaxDepthExceeded;
  }
  if (error == kSuccess) {
    DeviceLaunchRecord r;
    r.code = code;
    r.grid = grid;
    r.block = block;
    r.shared = static_cast<uint32_t>(shared);
    r.params.resize((code.param_bytes + 7) / 8);
    if (code.param_bytes != 0) std::memcpy(r.params.data(), params, code.param_bytes);
    r.stream = stream_handle;
    r.block_linear = block_linear();
    r.from_block = blockIdx;
    r.from_thread = threadIdx;
    if (!q->push(std::move(r))) error = kLaunchPendingCountExceeded;
  }
  if (error != kSuccess) {
    trace::note(trace::Layer::Gpu,
                "devrt: {} block ({},{},{}) thread ({},{},{}) depth {}: launch of {} grid ({},{},{}) block ({},{},{}) "
                "failed with error {}",
                q->kernel_name(), blockIdx.x, blockIdx.y, blockIdx.z, threadIdx.x, threadIdx.y, threadIdx.z, q->depth(),
                code.name, grid.x, grid.y, grid.z, block.x, block.y, block.z, error);
    return fail(*q, error);
  }
  return kSuccess;
}

int last_error(bool reset) {
  sm::SmCode sm_code;
  DeviceLaunchQueue* q = running_queue(reset ? "cudaGetLastError" : "cudaPeekAtLastError");
  return q == nullptr ? kNotSupported : q->error(thread_key(), reset);
}

int stream_create(void** stream, unsigned flags) {
  sm::SmCode sm_code;
  DeviceLaunchQueue* q = running_queue("cudaStreamCreateWithFlags");
  if (q == nullptr) return kNotSupported;
  if (stream == nullptr || flags != kStreamNonBlocking) return fail(*q, kInvalidValue);
  *stream = reinterpret_cast<void*>(q->create_stream(block_linear()));
  return kSuccess;
}

int stream_destroy(void* stream) {
  sm::SmCode sm_code;
  DeviceLaunchQueue* q = running_queue("cudaStreamDestroy");
  if (q == nullptr) return kNotSupported;
  if (!q->destroy_stream(block_linear(), reinterpret_cast<uintptr_t>(stream))) return fail(*q, kInvalidResourceHandle);
  return kSuccess;
}

unsigned depth() {
  sm::SmCode sm_code;
  DeviceLaunchQueue* q = running_queue("the device runtime");
  return q == nullptr ? 0 : q->depth();
}

}  // namespace devrt
}  // namespace minicuda::gpu
