// The names of CUDA 13's Driver API (cuda.h: every function that returns CUresult, under the
// names its macros map calls to, cuMemAlloc -> cuMemAlloc_v2, and the _ptds/_ptsz twins of its
// per-thread-default-stream mode) that minicuda's libcuda does not build. Linked into
// lib/libcuda.so.1 only (abi/CMakeLists.txt), so that a Driver API program built by nvcc loads
// and links whatever it calls (docs/nvcc-programs.md); such a call answers
// CUDA_ERROR_NOT_SUPPORTED (801) and names itself in the trace.
//
// Each is a weak definition taking any arguments, which it does not read: libcuda's real
// definition of the same name, when there is one, replaces it. This file includes no cuda.h, so
// a later declaration of one of these names with its real parameters does not collide.
#include "minicuda/trace.h"

namespace {
constexpr int kCudaErrorNotSupported = 801;  // CUDA_ERROR_NOT_SUPPORTED

int not_supported(const char* api) {
  minicuda::trace::Scope scope(minicuda::trace::Layer::Libcuda, "{}(...)", api);
  minicuda::trace::note(minicuda::trace::Layer::Libcuda, "{}: not supported by minicuda", api);
  if (scope.active()) scope.result("CUDA_ERROR_NOT_SUPPORTED");
  return kCudaErrorNotSupported;
}
}  // namespace

#define MINICUDA_LIBCUDA_NOT_SUPPORTED(X) \
  X(cuArray3DCreate_v2) X(cuArray3DGetDescriptor_v2) X(cuArrayCreate_v2) X(cuArrayDestroy) X(cuArrayGetDescriptor_v2) \
  X(cuArrayGetMemoryRequirements) X(cuArrayGetPlane) X(cuArrayGetSparseProperties) X(cuCheckpointProcessCheckpoint) \
  X(cuCheckpointProcessGetRestoreThreadId) X(cuCheckpointProcessGetState) X(cuCheckpointProcessLock) \
  X(cuCheckpointProcessRestore) X(cuCheckpointProcessUnlock) X(cuCoredumpGetAttribute) \
  X(cuCoredumpGetAttributeGlobal) X(cuCoredumpSetAttribute) X(cuCoredumpSetAttributeGlobal) X(cuCtxAttach) \
  X(cuCtxDetach) X(cuCtxFromGreenCtx) X(cuCtxGetDevResource) X(cuCtxGetExecAffinity) X(cuCtxGetId) \
  X(cuCtxRecordEvent) X(cuCtxSetFlags) X(cuCtxWaitEvent) X(cuDestroyExternalMemory) X(cuDestroyExternalSemaphore) \
  X(cuDevResourceGenerateDesc) X(cuDevSmResourceSplitByCount) X(cuDeviceComputeCapability) \
  X(cuDeviceGetDevResource) X(cuDeviceGetExecAffinitySupport) \
  X(cuDeviceGetGraphMemAttribute) X(cuDeviceGetHostAtomicCapabilities) X(cuDeviceGetLuid) \
  X(cuDeviceGetNvSciSyncAttributes) X(cuDeviceGetP2PAtomicCapabilities) X(cuDeviceGetProperties) \
  X(cuDeviceGetTexture1DLinearMaxWidth) X(cuDeviceGraphMemTrim) X(cuDeviceRegisterAsyncNotification) \
  X(cuDeviceSetGraphMemAttribute) X(cuDeviceUnregisterAsyncNotification) \
  X(cuExternalMemoryGetMappedBuffer) X(cuExternalMemoryGetMappedMipmappedArray) X(cuFlushGPUDirectRDMAWrites) \
  X(cuFuncGetModule) X(cuFuncGetName) X(cuFuncIsLoaded) X(cuFuncLoad) X(cuFuncSetBlockShape) \
  X(cuFuncSetSharedSize) X(cuGetProcAddress_v2) X(cuGetProcAddress_v2_ptsz) X(cuGraphAddBatchMemOpNode) \
  X(cuGraphAddChildGraphNode) X(cuGraphAddDependencies_v2) X(cuGraphAddEmptyNode) X(cuGraphAddEventRecordNode) \
  X(cuGraphAddEventWaitNode) X(cuGraphAddExternalSemaphoresSignalNode) X(cuGraphAddExternalSemaphoresWaitNode) \
  X(cuGraphAddHostNode) X(cuGraphAddKernelNode_v2) X(cuGraphAddMemAllocNode) X(cuGraphAddMemFreeNode) \
  X(cuGraphAddMemcpyNode) X(cuGraphAddMemsetNode) X(cuGraphAddNode_v2) X(cuGraphBatchMemOpNodeGetParams) \
  X(cuGraphBatchMemOpNodeSetParams) X(cuGraphChildGraphNodeGetGraph) X(cuGraphClone) \
  X(cuGraphConditionalHandleCreate) X(cuGraphCreate) X(cuGraphDebugDotPrint) X(cuGraphDestroy) X(cuGraphDestroyNode) \
  X(cuGraphEventRecordNodeGetEvent) X(cuGraphEventRecordNodeSetEvent) X(cuGraphEventWaitNodeGetEvent) \
  X(cuGraphEventWaitNodeSetEvent) X(cuGraphExecBatchMemOpNodeSetParams) X(cuGraphExecChildGraphNodeSetParams) \
  X(cuGraphExecDestroy) X(cuGraphExecEventRecordNodeSetEvent) X(cuGraphExecEventWaitNodeSetEvent) \
  X(cuGraphExecExternalSemaphoresSignalNodeSetParams) X(cuGraphExecExternalSemaphoresWaitNodeSetParams) \
  X(cuGraphExecGetFlags) X(cuGraphExecHostNodeSetParams) X(cuGraphExecKernelNodeSetParams_v2) \
  X(cuGraphExecMemcpyNodeSetParams) X(cuGraphExecMemsetNodeSetParams) X(cuGraphExecNodeSetParams) \
  X(cuGraphExecUpdate_v2) X(cuGraphExternalSemaphoresSignalNodeGetParams) \
  X(cuGraphExternalSemaphoresSignalNodeSetParams) X(cuGraphExternalSemaphoresWaitNodeGetParams) \
  X(cuGraphExternalSemaphoresWaitNodeSetParams) X(cuGraphGetEdges_v2) X(cuGraphGetNodes) X(cuGraphGetRootNodes) \
  X(cuGraphHostNodeGetParams) X(cuGraphHostNodeSetParams) X(cuGraphInstantiateWithFlags) \
  X(cuGraphInstantiateWithParams) X(cuGraphInstantiateWithParams_ptsz) X(cuGraphKernelNodeCopyAttributes) \
  X(cuGraphKernelNodeGetAttribute) X(cuGraphKernelNodeGetParams_v2) X(cuGraphKernelNodeSetAttribute) \
  X(cuGraphKernelNodeSetParams_v2) X(cuGraphLaunch) X(cuGraphLaunch_ptsz) X(cuGraphMemAllocNodeGetParams) \
  X(cuGraphMemFreeNodeGetParams) X(cuGraphMemcpyNodeGetParams) X(cuGraphMemcpyNodeSetParams) \
  X(cuGraphMemsetNodeGetParams) X(cuGraphMemsetNodeSetParams) X(cuGraphNodeFindInClone) \
  X(cuGraphNodeGetDependencies_v2) X(cuGraphNodeGetDependentNodes_v2) X(cuGraphNodeGetEnabled) X(cuGraphNodeGetType) \
  X(cuGraphNodeSetEnabled) X(cuGraphNodeSetParams) X(cuGraphReleaseUserObject) X(cuGraphRemoveDependencies_v2) \
  X(cuGraphRetainUserObject) X(cuGraphUpload) X(cuGraphUpload_ptsz) X(cuGraphicsMapResources) \
  X(cuGraphicsMapResources_ptsz) X(cuGraphicsResourceGetMappedMipmappedArray) \
  X(cuGraphicsResourceGetMappedPointer_v2) X(cuGraphicsResourceSetMapFlags_v2) X(cuGraphicsSubResourceGetMappedArray) \
  X(cuGraphicsUnmapResources) X(cuGraphicsUnmapResources_ptsz) X(cuGraphicsUnregisterResource) X(cuGreenCtxCreate) \
  X(cuGreenCtxDestroy) X(cuGreenCtxGetDevResource) X(cuGreenCtxGetId) X(cuGreenCtxRecordEvent) \
  X(cuGreenCtxStreamCreate) X(cuGreenCtxWaitEvent) X(cuImportExternalMemory) X(cuImportExternalSemaphore) \
  X(cuIpcCloseMemHandle) X(cuIpcGetEventHandle) X(cuIpcGetMemHandle) X(cuIpcOpenEventHandle) X(cuIpcOpenMemHandle_v2) \
  X(cuKernelGetAttribute) X(cuKernelGetLibrary) X(cuKernelSetAttribute) \
  X(cuKernelSetCacheConfig) X(cuLaunch) X(cuLaunchCooperativeKernelMultiDevice) X(cuLaunchCooperativeKernel_ptsz) \
  X(cuLaunchGrid) X(cuLaunchGridAsync) X(cuLaunchKernelEx) X(cuLaunchKernelEx_ptsz) X(cuLibraryEnumerateKernels) \
  X(cuLibraryGetKernelCount) X(cuLibraryGetManaged) X(cuLibraryGetModule) X(cuLibraryGetUnifiedFunction) \
  X(cuLibraryLoadFromFile) X(cuLinkAddData_v2) X(cuLinkAddFile_v2) X(cuLinkComplete) X(cuLinkCreate_v2) \
  X(cuLinkDestroy) X(cuLogsCurrent) X(cuLogsDumpToFile) X(cuLogsDumpToMemory) X(cuLogsRegisterCallback) \
  X(cuLogsUnregisterCallback) X(cuMemAddressFree) X(cuMemAddressReserve) \
  X(cuMemBatchDecompressAsync) \
  X(cuMemBatchDecompressAsync_ptsz) X(cuMemCreate) X(cuMemDiscardAndPrefetchBatchAsync) \
  X(cuMemDiscardAndPrefetchBatchAsync_ptsz) X(cuMemDiscardBatchAsync) X(cuMemDiscardBatchAsync_ptsz) \
  X(cuMemExportToShareableHandle) X(cuMemGetAccess) \
  X(cuMemGetAllocationGranularity) X(cuMemGetAllocationPropertiesFromHandle) X(cuMemGetDefaultMemPool) \
  X(cuMemGetHandleForAddressRange) X(cuMemGetMemPool) X(cuMemImportFromShareableHandle) X(cuMemMap) \
  X(cuMemMapArrayAsync) X(cuMemMapArrayAsync_ptsz) X(cuMemPoolExportPointer) \
  X(cuMemPoolExportToShareableHandle) \
  X(cuMemPoolImportFromShareableHandle) X(cuMemPoolImportPointer) \
  X(cuMemPrefetchAsync_v2_ptsz) X(cuMemPrefetchBatchAsync) X(cuMemPrefetchBatchAsync_ptsz) \
  X(cuMemRangeGetAttribute) X(cuMemRangeGetAttributes) X(cuMemRelease) X(cuMemRetainAllocationHandle) \
  X(cuMemSetAccess) X(cuMemSetMemPool) X(cuMemUnmap) X(cuMemcpy2DAsync_v2_ptsz) X(cuMemcpy2DUnaligned_v2_ptds) \
  X(cuMemcpy2D_v2_ptds) X(cuMemcpy3DAsync_v2_ptsz) X(cuMemcpy3DBatchAsync_v2) X(cuMemcpy3DBatchAsync_v2_ptsz) \
  X(cuMemcpy3DPeer) X(cuMemcpy3DPeerAsync) X(cuMemcpy3DPeerAsync_ptsz) X(cuMemcpy3DPeer_ptds) X(cuMemcpy3D_v2_ptds) \
  X(cuMemcpyAtoA_v2) X(cuMemcpyAtoA_v2_ptds) X(cuMemcpyAtoD_v2) X(cuMemcpyAtoD_v2_ptds) X(cuMemcpyAtoHAsync_v2) \
  X(cuMemcpyAtoHAsync_v2_ptsz) X(cuMemcpyAtoH_v2) X(cuMemcpyAtoH_v2_ptds) X(cuMemcpyBatchAsync_v2) \
  X(cuMemcpyBatchAsync_v2_ptsz) X(cuMemcpyDtoA_v2) X(cuMemcpyDtoA_v2_ptds) X(cuMemcpyHtoAAsync_v2) \
  X(cuMemcpyHtoAAsync_v2_ptsz) X(cuMemcpyHtoA_v2) X(cuMemcpyHtoA_v2_ptds) X(cuMemcpyPeerAsync_ptsz) \
  X(cuMemcpyPeer_ptds) X(cuMemsetD16Async) X(cuMemsetD16Async_ptsz) X(cuMemsetD2D16Async) X(cuMemsetD2D16Async_ptsz) \
  X(cuMemsetD2D16_v2_ptds) X(cuMemsetD2D32Async_ptsz) X(cuMemsetD2D32_v2_ptds) X(cuMemsetD2D8Async_ptsz) \
  X(cuMemsetD2D8_v2_ptds) X(cuMemsetD32Async) X(cuMemsetD32Async_ptsz) X(cuMipmappedArrayCreate) \
  X(cuMipmappedArrayDestroy) X(cuMipmappedArrayGetLevel) X(cuMipmappedArrayGetMemoryRequirements) \
  X(cuMipmappedArrayGetSparseProperties) X(cuModuleEnumerateFunctions) X(cuModuleGetFunction) \
  X(cuModuleGetFunctionCount) X(cuModuleGetGlobal_v2) X(cuModuleGetSurfRef) X(cuModuleGetTexRef) X(cuModuleLoad) \
  X(cuModuleLoadData) X(cuModuleLoadDataEx) X(cuModuleLoadFatBinary) X(cuModuleUnload) X(cuMulticastAddDevice) \
  X(cuMulticastBindAddr) X(cuMulticastBindMem) X(cuMulticastCreate) X(cuMulticastGetGranularity) X(cuMulticastUnbind) \
  X(cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags) X(cuOccupancyMaxActiveClusters) \
  X(cuOccupancyMaxPotentialClusterSize) X(cuParamSetSize) X(cuParamSetTexRef) X(cuParamSetf) X(cuParamSeti) \
  X(cuParamSetv) X(cuPointerSetAttribute) X(cuSignalExternalSemaphoresAsync) X(cuSignalExternalSemaphoresAsync_ptsz) \
  X(cuStreamAttachMemAsync_ptsz) X(cuStreamBatchMemOp_v2) X(cuStreamBatchMemOp_v2_ptsz) \
  X(cuStreamBeginCaptureToGraph) X(cuStreamBeginCaptureToGraph_ptsz) X(cuStreamBeginCapture_v2) \
  X(cuStreamBeginCapture_v2_ptsz) X(cuStreamCopyAttributes) X(cuStreamCopyAttributes_ptsz) X(cuStreamEndCapture) \
  X(cuStreamEndCapture_ptsz) X(cuStreamGetAttribute_ptsz) X(cuStreamGetCaptureInfo_v3) \
  X(cuStreamGetCaptureInfo_v3_ptsz) X(cuStreamGetCtx) X(cuStreamGetCtx_ptsz) X(cuStreamGetCtx_v2) \
  X(cuStreamGetCtx_v2_ptsz) X(cuStreamGetDevice) X(cuStreamGetDevice_ptsz) X(cuStreamGetGreenCtx) X(cuStreamGetId) \
  X(cuStreamGetId_ptsz) X(cuStreamIsCapturing) X(cuStreamIsCapturing_ptsz) X(cuStreamSetAttribute_ptsz) \
  X(cuStreamUpdateCaptureDependencies_v2) X(cuStreamUpdateCaptureDependencies_v2_ptsz) X(cuStreamWaitValue32_v2) \
  X(cuStreamWaitValue32_v2_ptsz) X(cuStreamWaitValue64_v2) X(cuStreamWaitValue64_v2_ptsz) X(cuStreamWriteValue32_v2) \
  X(cuStreamWriteValue32_v2_ptsz) X(cuStreamWriteValue64_v2) X(cuStreamWriteValue64_v2_ptsz) X(cuSurfObjectCreate) \
  X(cuSurfObjectDestroy) X(cuSurfObjectGetResourceDesc) X(cuSurfRefGetArray) X(cuSurfRefSetArray) \
  X(cuTensorMapEncodeIm2col) X(cuTensorMapEncodeIm2colWide) X(cuTensorMapEncodeTiled) X(cuTensorMapReplaceAddress) \
  X(cuTexObjectCreate) X(cuTexObjectDestroy) X(cuTexObjectGetResourceDesc) X(cuTexObjectGetResourceViewDesc) \
  X(cuTexObjectGetTextureDesc) X(cuTexRefCreate) X(cuTexRefDestroy) X(cuTexRefGetAddressMode) \
  X(cuTexRefGetAddress_v2) X(cuTexRefGetArray) X(cuTexRefGetBorderColor) X(cuTexRefGetFilterMode) X(cuTexRefGetFlags) \
  X(cuTexRefGetFormat) X(cuTexRefGetMaxAnisotropy) X(cuTexRefGetMipmapFilterMode) X(cuTexRefGetMipmapLevelBias) \
  X(cuTexRefGetMipmapLevelClamp) X(cuTexRefGetMipmappedArray) X(cuTexRefSetAddress2D_v3) X(cuTexRefSetAddressMode) \
  X(cuTexRefSetAddress_v2) X(cuTexRefSetArray) X(cuTexRefSetBorderColor) X(cuTexRefSetFilterMode) X(cuTexRefSetFlags) \
  X(cuTexRefSetFormat) X(cuTexRefSetMaxAnisotropy) X(cuTexRefSetMipmapFilterMode) X(cuTexRefSetMipmapLevelBias) \
  X(cuTexRefSetMipmapLevelClamp) X(cuTexRefSetMipmappedArray) X(cuThreadExchangeStreamCaptureMode) \
  X(cuUserObjectCreate) X(cuUserObjectRelease) X(cuUserObjectRetain) X(cuWaitExternalSemaphoresAsync) \
  X(cuWaitExternalSemaphoresAsync_ptsz)

#define X(name) \
  extern "C" __attribute__((weak)) int name(...) { return not_supported(#name); }
MINICUDA_LIBCUDA_NOT_SUPPORTED(X)
#undef X
