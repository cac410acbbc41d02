// Lazy initialisation, the current device and the primary context, as libcudart does them.
//
// The first runtime call that needs the GPU initialises the driver and reads every device's
// properties (the measured order, chain_cupti.txt: cuInit, cuDeviceGetCount, then per device
// cuDeviceGet, cuDeviceGetName, cuDeviceTotalMem_v2, cuDeviceGetAttribute for each property,
// cuDeviceGetUuid). The first call that needs a context then makes the thread's device's primary
// context current and retains it: cuCtxGetCurrent -> cuCtxSetCurrent -> cuDevicePrimaryCtxRetain.
#include <atomic>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>

#include "cudart.h"
#include "minicuda/syscall.h"

namespace minicuda::cudart {

namespace {

struct Runtime {
  bool initialized = false;
  cudaError_t init_error = cudaSuccess;
  const CUetblMinicudaRuntime* table = nullptr;  // libcuda's export table
  bool lazy_loading = true;                       // modules load at a kernel's first launch
  std::vector<cudaDeviceProp> props;
  std::vector<bool> context_ready;               // primary context retained by the runtime
};

std::recursive_mutex& runtime_mutex() {
  static auto* m = new std::recursive_mutex;
  return *m;
}

// One runtime per simulated process; guarded by runtime_mutex().
Runtime& runtime() {
  static auto* by_pid = new std::map<int, std::unique_ptr<Runtime>>;
  auto& slot = (*by_pid)[kernel::vdso_getpid()];
  if (!slot) slot = std::make_unique<Runtime>();
  return *slot;
}

thread_local int t_device = 0;
// Fast path: the device whose primary context this thread already made current, and the
// runtime generation it did so in (cudaDeviceReset starts a new generation). When they match, a
// call needs no driver call at all, as the measured second cudaMalloc shows (chain_cupti.txt).
thread_local int t_ready_device = -1;
thread_local uint64_t t_ready_generation = 0;
thread_local int t_ready_pid = 0;  // the runtime is per process (pids are never reused)
std::atomic<uint64_t> g_generation{1};

int attr(CUdevice dev, CUdevice_attribute a) {
  int v = 0;
  cuDeviceGetAttribute(&v, a, dev);
  return v;
}

// Fills a cudaDeviceProp from driver queries (what cudaGetDeviceProperties returns).
cudaError_t query_properties(int ordinal, cudaDeviceProp* p) {
  CUdevice dev = 0;
  if (CUresult r = cuDeviceGet(&dev, ordinal); r != CUDA_SUCCESS) return to_cuda_error(r);
  std::memset(p, 0, sizeof *p);
  cuDeviceGetName(p->name, sizeof p->name, dev);
  size_t total = 0;
  cuDeviceTotalMem_v2(&total, dev);
  p->totalGlobalMem = total;
  p->sharedMemPerBlock = static_cast<size_t>(attr(dev, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK));
  p->regsPerBlock = attr(dev, CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK);
  p->warpSize = attr(dev, CU_DEVICE_ATTRIBUTE_WARP_SIZE);
  p->memPitch = static_cast<size_t>(attr(dev, CU_DEVICE_ATTRIBUTE_MAX_PITCH));
  p->maxThreadsPerBlock = attr(dev, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK);
  p->maxThreadsDim[0] = attr(dev, CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X);
  p->maxThreadsDim[1] = attr(dev, CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y);
  p->maxThreadsDim[2] = attr(dev, CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z);
  p->maxGridSize[0] = attr(dev, CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X);
  p->maxGridSize[1] = attr(dev, CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y);
  p->maxGridSize[2] = attr(dev, CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z);
  p->totalConstMem = static_cast<size_t>(attr(dev, CU_DEVICE_ATTRIBUTE_TOTAL_CONSTANT_MEMORY));
  p->major = attr(dev, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
  p->minor = attr(dev, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
  p->textureAlignment = static_cast<size_t>(attr(dev, CU_DEVICE_ATTRIBUTE_TEXTURE_ALIGNMENT));
  p->texturePitchAlignment = static_cast<size_t>(attr(dev, CU_DEVICE_ATTRIBUTE_TEXTURE_PITCH_ALIGNMENT));
  p->multiProcessorCount = attr(dev, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
  p->integrated = attr(dev, CU_DEVICE_ATTRIBUTE_INTEGRATED);
  p->canMapHostMemory = attr(dev, CU_DEVICE_ATTRIBUTE_CAN_MAP_HOST_MEMORY);
  p->maxTexture1D = attr(dev, CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_WIDTH);
  p->maxTexture1DMipmap = attr(dev, CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_MIPMAPPED_WIDTH);
  p->maxTexture2D[0] = attr(dev, CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_WIDTH);
  p->maxTexture2D[1] = attr(dev, CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_HEIGHT);
  p->maxTexture2DMipmap[0] = attr(dev, CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_MIPMAPPED_WIDTH);
  p->maxTexture2DMipmap[1] = attr(dev, CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_MIPMAPPED_HEIGHT);
  p->maxTexture2DLinear[0] = attr(dev, CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LINEAR_WIDTH);
  p->maxTexture2DLinear[1] = attr(dev, CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LINEAR_HEIGHT);
  p->maxTexture2DLinear[2] = attr(dev, CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LINEAR_PITCH);
  p->maxTexture2DGather[0] = attr(dev, CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_GATHER_WIDTH);
  p->maxTexture2DGather[1] = attr(dev, CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_GATHER_HEIGHT);
  p->maxTexture3D[0] = attr(dev, CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_WIDTH);
  p->maxTexture3D[1] = attr(dev, CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_HEIGHT);
  p->maxTexture3D[2] = attr(dev, CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_DEPTH);
  p->maxTexture3DAlt[0] = attr(dev, CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_WIDTH_ALTERNATE);
  p->maxTexture3DAlt[1] = attr(dev, CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_HEIGHT_ALTERNATE);
  p->maxTexture3DAlt[2] = attr(dev, CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_DEPTH_ALTERNATE);
  p->maxTextureCubemap = attr(dev, CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURECUBEMAP_WIDTH);
  p->maxTexture1DLayered[0] = attr(dev, CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_LAYERED_WIDTH);
  p->maxTexture1DLayered[1] = attr(dev, CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_LAYERED_LAYERS);
  p->maxTexture2DLayered[0] = attr(dev, CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LAYERED_WIDTH);
  p->maxTexture2DLayered[1] = attr(dev, CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LAYERED_HEIGHT);
  p->maxTexture2DLayered[2] = attr(dev, CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LAYERED_LAYERS);
  p->maxTextureCubemapLayered[0] = attr(dev, CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURECUBEMAP_LAYERED_WIDTH);
  p->maxTextureCubemapLayered[1] = attr(dev, CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURECUBEMAP_LAYERED_LAYERS);
  p->maxSurface1D = attr(dev, CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE1D_WIDTH);
  p->maxSurface2D[0] = attr(dev, CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE2D_WIDTH);
  p->maxSurface2D[1] = attr(dev, CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE2D_HEIGHT);
  p->maxSurface3D[0] = attr(dev, CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE3D_WIDTH);
  p->maxSurface3D[1] = attr(dev, CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE3D_HEIGHT);
  p->maxSurface3D[2] = attr(dev, CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE3D_DEPTH);
  p->maxSurface1DLayered[0] = attr(dev, CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE1D_LAYERED_WIDTH);
  p->maxSurface1DLayered[1] = attr(dev, CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE1D_LAYERED_LAYERS);
  p->maxSurface2DLayered[0] = attr(dev, CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE2D_LAYERED_WIDTH);
  p->maxSurface2DLayered[1] = attr(dev, CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE2D_LAYERED_HEIGHT);
  p->maxSurface2DLayered[2] = attr(dev, CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE2D_LAYERED_LAYERS);
  p->maxSurfaceCubemap = attr(dev, CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACECUBEMAP_WIDTH);
  p->maxSurfaceCubemapLayered[0] = attr(dev, CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACECUBEMAP_LAYERED_WIDTH);
  p->maxSurfaceCubemapLayered[1] = attr(dev, CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACECUBEMAP_LAYERED_LAYERS);
  p->surfaceAlignment = static_cast<size_t>(attr(dev, CU_DEVICE_ATTRIBUTE_SURFACE_ALIGNMENT));
  p->concurrentKernels = attr(dev, CU_DEVICE_ATTRIBUTE_CONCURRENT_KERNELS);
  p->ECCEnabled = attr(dev, CU_DEVICE_ATTRIBUTE_ECC_ENABLED);
  p->pciBusID = attr(dev, CU_DEVICE_ATTRIBUTE_PCI_BUS_ID);
  p->pciDeviceID = attr(dev, CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID);
  p->pciDomainID = attr(dev, CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID);
  p->tccDriver = attr(dev, CU_DEVICE_ATTRIBUTE_TCC_DRIVER);
  p->asyncEngineCount = attr(dev, CU_DEVICE_ATTRIBUTE_ASYNC_ENGINE_COUNT);
  p->unifiedAddressing = attr(dev, CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING);
  p->memoryBusWidth = attr(dev, CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH);
  p->l2CacheSize = attr(dev, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE);
  p->persistingL2CacheMaxSize = attr(dev, CU_DEVICE_ATTRIBUTE_MAX_PERSISTING_L2_CACHE_SIZE);
  p->maxThreadsPerMultiProcessor = attr(dev, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR);
  p->streamPrioritiesSupported = attr(dev, CU_DEVICE_ATTRIBUTE_STREAM_PRIORITIES_SUPPORTED);
  p->globalL1CacheSupported = attr(dev, CU_DEVICE_ATTRIBUTE_GLOBAL_L1_CACHE_SUPPORTED);
  p->localL1CacheSupported = attr(dev, CU_DEVICE_ATTRIBUTE_LOCAL_L1_CACHE_SUPPORTED);
  p->sharedMemPerMultiprocessor = static_cast<size_t>(attr(dev, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR));
  p->regsPerMultiprocessor = attr(dev, CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR);
  p->managedMemory = attr(dev, CU_DEVICE_ATTRIBUTE_MANAGED_MEMORY);
  p->isMultiGpuBoard = attr(dev, CU_DEVICE_ATTRIBUTE_MULTI_GPU_BOARD);
  p->multiGpuBoardGroupID = attr(dev, CU_DEVICE_ATTRIBUTE_MULTI_GPU_BOARD_GROUP_ID);
  p->hostNativeAtomicSupported = attr(dev, CU_DEVICE_ATTRIBUTE_HOST_NATIVE_ATOMIC_SUPPORTED);
  p->pageableMemoryAccess = attr(dev, CU_DEVICE_ATTRIBUTE_PAGEABLE_MEMORY_ACCESS);
  p->concurrentManagedAccess = attr(dev, CU_DEVICE_ATTRIBUTE_CONCURRENT_MANAGED_ACCESS);
  p->computePreemptionSupported = attr(dev, CU_DEVICE_ATTRIBUTE_COMPUTE_PREEMPTION_SUPPORTED);
  p->canUseHostPointerForRegisteredMem = attr(dev, CU_DEVICE_ATTRIBUTE_CAN_USE_HOST_POINTER_FOR_REGISTERED_MEM);
  p->cooperativeLaunch = attr(dev, CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH);
  p->sharedMemPerBlockOptin = static_cast<size_t>(attr(dev, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN));
  p->pageableMemoryAccessUsesHostPageTables = attr(dev, CU_DEVICE_ATTRIBUTE_PAGEABLE_MEMORY_ACCESS_USES_HOST_PAGE_TABLES);
  p->directManagedMemAccessFromHost = attr(dev, CU_DEVICE_ATTRIBUTE_DIRECT_MANAGED_MEM_ACCESS_FROM_HOST);
  p->maxBlocksPerMultiProcessor = attr(dev, CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR);
  p->accessPolicyMaxWindowSize = attr(dev, CU_DEVICE_ATTRIBUTE_MAX_ACCESS_POLICY_WINDOW_SIZE);
  p->reservedSharedMemPerBlock = static_cast<size_t>(attr(dev, CU_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK));
  p->hostRegisterSupported = attr(dev, CU_DEVICE_ATTRIBUTE_HOST_REGISTER_SUPPORTED);
  p->sparseCudaArraySupported = attr(dev, CU_DEVICE_ATTRIBUTE_SPARSE_CUDA_ARRAY_SUPPORTED);
  p->hostRegisterReadOnlySupported = attr(dev, CU_DEVICE_ATTRIBUTE_READ_ONLY_HOST_REGISTER_SUPPORTED);
  p->timelineSemaphoreInteropSupported = attr(dev, CU_DEVICE_ATTRIBUTE_TIMELINE_SEMAPHORE_INTEROP_SUPPORTED);
  p->memoryPoolsSupported = attr(dev, CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED);
  p->gpuDirectRDMASupported = attr(dev, CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_SUPPORTED);
  p->gpuDirectRDMAFlushWritesOptions = static_cast<unsigned>(attr(dev, CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_FLUSH_WRITES_OPTIONS));
  p->gpuDirectRDMAWritesOrdering = attr(dev, CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_WRITES_ORDERING);
  p->memoryPoolSupportedHandleTypes = static_cast<unsigned>(attr(dev, CU_DEVICE_ATTRIBUTE_MEMPOOL_SUPPORTED_HANDLE_TYPES));
  p->deferredMappingCudaArraySupported = attr(dev, CU_DEVICE_ATTRIBUTE_DEFERRED_MAPPING_CUDA_ARRAY_SUPPORTED);
  p->ipcEventSupported = attr(dev, CU_DEVICE_ATTRIBUTE_IPC_EVENT_SUPPORTED);
  p->clusterLaunch = attr(dev, CU_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH);
  p->unifiedFunctionPointers = attr(dev, CU_DEVICE_ATTRIBUTE_UNIFIED_FUNCTION_POINTERS);
  p->deviceNumaConfig = attr(dev, CU_DEVICE_ATTRIBUTE_NUMA_CONFIG);
  p->deviceNumaId = attr(dev, CU_DEVICE_ATTRIBUTE_NUMA_ID);
  p->mpsEnabled = attr(dev, CU_DEVICE_ATTRIBUTE_MPS_ENABLED);
  p->hostNumaId = attr(dev, CU_DEVICE_ATTRIBUTE_HOST_NUMA_ID);
  p->gpuPciDeviceID = static_cast<unsigned>(attr(dev, CU_DEVICE_ATTRIBUTE_GPU_PCI_DEVICE_ID));
  p->gpuPciSubsystemID = static_cast<unsigned>(attr(dev, CU_DEVICE_ATTRIBUTE_GPU_PCI_SUBSYSTEM_ID));
  p->hostNumaMultinodeIpcSupported = attr(dev, CU_DEVICE_ATTRIBUTE_HOST_NUMA_MULTINODE_IPC_SUPPORTED);
  CUuuid uuid{};
  cuDeviceGetUuid_v2(&uuid, dev);
  std::memcpy(&p->uuid, &uuid, sizeof uuid);
  return cudaSuccess;
}

cudaError_t initialize(Runtime& rt) {
  trace::note(trace::Layer::Cudart, "lazy init: cuInit and the device queries");
  if (CUresult r = cuInit(0); r != CUDA_SUCCESS) return r == CUDA_ERROR_NO_DEVICE ? cudaErrorNoDevice : to_cuda_error(r);
  CUmoduleLoadingMode mode = CU_MODULE_LAZY_LOADING;
  cuModuleGetLoadingMode(&mode);  // the first driver call the measured runtime makes
  rt.lazy_loading = mode == CU_MODULE_LAZY_LOADING;
  const void* table = nullptr;
  if (cuGetExportTable(&table, &CU_ETID_MinicudaRuntime) != CUDA_SUCCESS) return cudaErrorInitializationError;
  rt.table = static_cast<const CUetblMinicudaRuntime*>(table);
  int count = 0;
  if (CUresult r = cuDeviceGetCount(&count); r != CUDA_SUCCESS) return to_cuda_error(r);
  if (count == 0) return cudaErrorNoDevice;
  rt.props.resize(static_cast<size_t>(count));
  for (int i = 0; i < count; ++i) {
    if (cudaError_t e = query_properties(i, &rt.props[static_cast<size_t>(i)]); e != cudaSuccess) return e;
  }
  rt.context_ready.assign(static_cast<size_t>(count), false);
  return cudaSuccess;
}

}  // namespace

// Kernel code runs on the simulated GPU (a device worker thread, inside the GPU's own locks): a
// runtime call from there would deadlock on them. nvcc would not compile it (without the device
// runtime); here it returns cudaErrorNotSupported.
cudaError_t refuse_in_kernel_code() {
  if (!minicuda::gpu::isa::in_kernel_code()) return cudaSuccess;
  trace::note(trace::Layer::Cudart, "a runtime call from kernel code: device code cannot call the host API");
  return cudaErrorNotSupported;
}

cudaError_t ensure_initialized() {
  if (cudaError_t e = refuse_in_kernel_code(); e != cudaSuccess) return e;
  std::lock_guard lock(runtime_mutex());
  Runtime& rt = runtime();
  if (!rt.initialized) {
    rt.init_error = initialize(rt);
    rt.initialized = true;
  }
  return rt.init_error;
}

cudaError_t ensure_context() {
  if (cudaError_t e = refuse_in_kernel_code(); e != cudaSuccess) return e;
  if (t_ready_device == t_device && t_ready_pid == kernel::vdso_getpid() &&
      t_ready_generation == g_generation.load(std::memory_order_acquire)) {
    return cudaSuccess;
  }
  if (cudaError_t e = ensure_initialized(); e != cudaSuccess) return e;
  std::lock_guard lock(runtime_mutex());
  Runtime& rt = runtime();
  CUdevice dev = t_device;
  CUcontext primary = nullptr;
  if (rt.table->PrimaryCtxGetHandle(&primary, dev) != CUDA_SUCCESS) return cudaErrorInvalidDevice;
  CUcontext current = nullptr;
  cuCtxGetCurrent(&current);
  if (current != primary) {
    if (CUresult r = cuCtxSetCurrent(primary); r != CUDA_SUCCESS) return to_cuda_error(r);
  }
  if (!rt.context_ready[static_cast<size_t>(dev)]) {
    CUcontext retained = nullptr;
    if (CUresult r = cuDevicePrimaryCtxRetain(&retained, dev); r != CUDA_SUCCESS) return to_cuda_error(r);
    // The measured runtime then checks which context is current and its device.
    CUcontext now = nullptr;
    CUdevice now_device = -1;
    cuCtxGetCurrent(&now);
    if (cuCtxGetDevice_v2(&now_device, now) != CUDA_SUCCESS || now_device != dev) return cudaErrorDeviceUninitialized;
    rt.context_ready[static_cast<size_t>(dev)] = true;
  }
  t_ready_device = dev;
  t_ready_pid = kernel::vdso_getpid();
  t_ready_generation = g_generation.load(std::memory_order_acquire);
  return cudaSuccess;
}

int current_device() { return t_device; }

int device_count() {
  std::lock_guard lock(runtime_mutex());
  return static_cast<int>(runtime().props.size());
}

const cudaDeviceProp* device_properties(int device) {
  std::lock_guard lock(runtime_mutex());
  Runtime& rt = runtime();
  if (device < 0 || static_cast<size_t>(device) >= rt.props.size()) return nullptr;
  return &rt.props[static_cast<size_t>(device)];
}

// Forgets the runtime's retain of a device's primary context (cudaDeviceReset).
void forget_context(int device) {
  std::lock_guard lock(runtime_mutex());
  Runtime& rt = runtime();
  if (device >= 0 && static_cast<size_t>(device) < rt.context_ready.size()) rt.context_ready[static_cast<size_t>(device)] = false;
  g_generation.fetch_add(1, std::memory_order_acq_rel);
}

void set_device(int device) { t_device = device; }

}  // namespace minicuda::cudart

using namespace minicuda;
using namespace minicuda::cudart;

// Contract: *count = the number of CUDA devices. NULL: cudaErrorInvalidValue; no driver or GPU:
// cudaErrorNoDevice.
cudaError_t cudaGetDeviceCount(int* count) {
  trace::Scope scope(trace::Layer::Cudart, "cudaGetDeviceCount(count={})", static_cast<void*>(count));
  if (count == nullptr) return done(scope, cudaErrorInvalidValue);
  if (cudaError_t e = ensure_initialized(); e != cudaSuccess) return done(scope, e);
  *count = device_count();
  return done(scope, cudaSuccess);
}

// Contract: makes `device` the calling thread's device and its primary context current,
// creating it if needed. A bad ordinal (99, -1): cudaErrorInvalidDevice.
cudaError_t cudaSetDevice(int device) {
  trace::Scope scope(trace::Layer::Cudart, "cudaSetDevice(device={})", device);
  if (cudaError_t e = ensure_initialized(); e != cudaSuccess) return done(scope, e);
  if (device < 0 || device >= device_count()) return done(scope, cudaErrorInvalidDevice);
  set_device(device);
  return done(scope, ensure_context());
}

// Contract: *device = the calling thread's device (0 unless cudaSetDevice chose another).
// NULL: cudaErrorInvalidValue.
cudaError_t cudaGetDevice(int* device) {
  trace::Scope scope(trace::Layer::Cudart, "cudaGetDevice(device={})", static_cast<void*>(device));
  if (device == nullptr) return done(scope, cudaErrorInvalidValue);
  if (cudaError_t e = ensure_initialized(); e != cudaSuccess) return done(scope, e);
  *device = current_device();
  return done(scope, cudaSuccess);
}

// Contract: initialises device's primary context without making it current. Bad ordinal:
// cudaErrorInvalidDevice; deviceFlags or flags other than 0: cudaErrorInvalidValue.
cudaError_t cudaInitDevice(int device, unsigned int deviceFlags, unsigned int flags) {
  trace::Scope scope(trace::Layer::Cudart, "cudaInitDevice(device={}, deviceFlags={:#x}, flags={:#x})", device, deviceFlags, flags);
  if (cudaError_t e = ensure_initialized(); e != cudaSuccess) return done(scope, e);
  if (device < 0 || device >= device_count()) return done(scope, cudaErrorInvalidDevice);
  if (deviceFlags != 0 || flags != 0) return done(scope, cudaErrorInvalidValue);
  CUcontext ctx = nullptr;
  return done(scope, to_cuda_error(cuDevicePrimaryCtxRetain(&ctx, device)));
}

// Contract: destroys the current device's primary context and everything in it (measured chain:
// cuCtxGetCurrent, cuCtxGetApiVersion, cuDevicePrimaryCtxReset); the next call that needs the
// device creates a new one.
cudaError_t cudaDeviceReset(void) {
  trace::Scope scope(trace::Layer::Cudart, "cudaDeviceReset()");
  if (cudaError_t e = ensure_initialized(); e != cudaSuccess) return done(scope, e);
  CUcontext ctx = nullptr;
  cuCtxGetCurrent(&ctx);
  unsigned version = 0;
  if (ctx) cuCtxGetApiVersion(ctx, &version);
  cudaError_t e = to_cuda_error(cuDevicePrimaryCtxReset_v2(current_device()));
  forget_context(current_device());
  return done(scope, e);
}

// Contract: *runtimeVersion = 13000. NULL: cudaErrorInvalidValue.
cudaError_t cudaRuntimeGetVersion(int* runtimeVersion) {
  trace::Scope scope(trace::Layer::Cudart, "cudaRuntimeGetVersion(runtimeVersion={})", static_cast<void*>(runtimeVersion));
  if (runtimeVersion == nullptr) return done(scope, cudaErrorInvalidValue);
  *runtimeVersion = CUDART_VERSION;
  return done(scope, cudaSuccess);
}

// Contract: *driverVersion = the driver's CUDA version (cuDriverGetVersion). NULL:
// cudaErrorInvalidValue.
cudaError_t cudaDriverGetVersion(int* driverVersion) {
  trace::Scope scope(trace::Layer::Cudart, "cudaDriverGetVersion(driverVersion={})", static_cast<void*>(driverVersion));
  if (driverVersion == nullptr) return done(scope, cudaErrorInvalidValue);
  return done(scope, to_cuda_error(cuDriverGetVersion(driverVersion)));
}
