// The names of CUDA 13's runtime API (cuda_runtime_api.h, every function that returns cudaError_t,
// and the _ptds/_ptsz twins its per-thread-default-stream mode maps calls to) that minicuda does
// not build. A program built by nvcc that calls one of them still loads and links
// (lib/libcudart.so.13, docs/nvcc-programs.md); the call answers cudaErrorNotSupported (801),
// records it in the last-error slot and names itself in the trace (not_supported(), errors.cpp).
//
// Each is a weak definition taking any arguments, which it does not read: a real definition of
// the same name elsewhere in libcudart replaces it. This file includes no runtime header, so a
// header that later declares one of these names with its real parameters does not collide.
namespace minicuda::cudart {
int not_supported(const char* api);
}

#define MINICUDA_CUDART_NOT_SUPPORTED(X) \
  X(cudaArrayGetInfo) X(cudaArrayGetMemoryRequirements) X(cudaArrayGetPlane) X(cudaArrayGetSparseProperties) \
  X(cudaCreateSurfaceObject) X(cudaCreateTextureObject) X(cudaDestroyExternalMemory) X(cudaDestroyExternalSemaphore) \
  X(cudaDestroySurfaceObject) X(cudaDestroyTextureObject) X(cudaDeviceFlushGPUDirectRDMAWrites) \
  X(cudaDeviceGetGraphMemAttribute) X(cudaDeviceGetHostAtomicCapabilities) \
  X(cudaDeviceGetNvSciSyncAttributes) X(cudaDeviceGetP2PAtomicCapabilities) \
  X(cudaDeviceGetTexture1DLinearMaxWidth) X(cudaDeviceGraphMemTrim) X(cudaDeviceRegisterAsyncNotification) \
  X(cudaDeviceSetGraphMemAttribute) X(cudaDeviceUnregisterAsyncNotification) \
  X(cudaExternalMemoryGetMappedBuffer) X(cudaExternalMemoryGetMappedMipmappedArray) X(cudaFreeArray) \
  X(cudaFreeMipmappedArray) X(cudaFuncGetName) X(cudaFuncGetParamInfo) X(cudaGetChannelDesc) \
  X(cudaGetDriverEntryPoint) X(cudaGetDriverEntryPointByVersion) X(cudaGetDriverEntryPointByVersion_ptsz) \
  X(cudaGetDriverEntryPoint_ptsz) X(cudaGetExportTable) X(cudaGetFuncBySymbol) X(cudaGetKernel) \
  X(cudaGetMipmappedArrayLevel) X(cudaGetSurfaceObjectResourceDesc) X(cudaGetTextureObjectResourceDesc) \
  X(cudaGetTextureObjectResourceViewDesc) X(cudaGetTextureObjectTextureDesc) \
  X(cudaGraphAddExternalSemaphoresSignalNode) X(cudaGraphAddExternalSemaphoresWaitNode) \
  X(cudaGraphAddMemAllocNode) X(cudaGraphAddMemFreeNode) \
  X(cudaGraphAddMemcpyNodeFromSymbol) X(cudaGraphAddMemcpyNodeToSymbol) \
  X(cudaGraphAddNode) X(cudaGraphChildGraphNodeGetGraph) \
  X(cudaGraphConditionalHandleCreate) \
  X(cudaGraphDestroyNode) X(cudaGraphEventRecordNodeGetEvent) X(cudaGraphEventRecordNodeSetEvent) \
  X(cudaGraphEventWaitNodeGetEvent) X(cudaGraphEventWaitNodeSetEvent) X(cudaGraphExecChildGraphNodeSetParams) \
  X(cudaGraphExecEventRecordNodeSetEvent) X(cudaGraphExecEventWaitNodeSetEvent) \
  X(cudaGraphExecExternalSemaphoresSignalNodeSetParams) X(cudaGraphExecExternalSemaphoresWaitNodeSetParams) \
  X(cudaGraphExecGetFlags) \
  X(cudaGraphExecMemcpyNodeSetParams1D) \
  X(cudaGraphExecMemcpyNodeSetParamsFromSymbol) X(cudaGraphExecMemcpyNodeSetParamsToSymbol) \
  X(cudaGraphExecNodeSetParams) \
  X(cudaGraphExternalSemaphoresSignalNodeGetParams) X(cudaGraphExternalSemaphoresSignalNodeSetParams) \
  X(cudaGraphExternalSemaphoresWaitNodeGetParams) X(cudaGraphExternalSemaphoresWaitNodeSetParams) \
  X(cudaGraphHostNodeGetParams) \
  X(cudaGraphHostNodeSetParams) \
  X(cudaGraphInstantiateWithParams) X(cudaGraphInstantiateWithParams_ptsz) X(cudaGraphKernelNodeCopyAttributes) \
  X(cudaGraphKernelNodeGetAttribute) X(cudaGraphKernelNodeSetAttribute) \
  X(cudaGraphLaunch_ptsz) X(cudaGraphMemAllocNodeGetParams) \
  X(cudaGraphMemFreeNodeGetParams) X(cudaGraphMemcpyNodeGetParams) X(cudaGraphMemcpyNodeSetParams) \
  X(cudaGraphMemcpyNodeSetParams1D) X(cudaGraphMemcpyNodeSetParamsFromSymbol) X(cudaGraphMemcpyNodeSetParamsToSymbol) \
  X(cudaGraphMemsetNodeGetParams) X(cudaGraphMemsetNodeSetParams) X(cudaGraphNodeFindInClone) \
  X(cudaGraphNodeGetDependencies) X(cudaGraphNodeGetDependentNodes) X(cudaGraphNodeGetEnabled) \
  X(cudaGraphNodeSetEnabled) X(cudaGraphNodeSetParams) X(cudaGraphReleaseUserObject) \
  X(cudaGraphRetainUserObject) X(cudaGraphUpload) X(cudaGraphUpload_ptsz) \
  X(cudaGraphicsMapResources) X(cudaGraphicsResourceGetMappedMipmappedArray) X(cudaGraphicsResourceGetMappedPointer) \
  X(cudaGraphicsResourceSetMapFlags) X(cudaGraphicsSubResourceGetMappedArray) X(cudaGraphicsUnmapResources) \
  X(cudaGraphicsUnregisterResource) X(cudaImportExternalMemory) X(cudaImportExternalSemaphore) \
  X(cudaIpcCloseMemHandle) X(cudaIpcGetEventHandle) X(cudaIpcGetMemHandle) X(cudaIpcOpenEventHandle) \
  X(cudaIpcOpenMemHandle) X(cudaKernelSetAttributeForDevice) X(cudaLaunchCooperativeKernel_ptsz) \
  X(cudaLaunchKernelExC_ptsz) X(cudaLibraryEnumerateKernels) X(cudaLibraryGetGlobal) X(cudaLibraryGetKernel) \
  X(cudaLibraryGetKernelCount) X(cudaLibraryGetManaged) X(cudaLibraryGetUnifiedFunction) X(cudaLibraryLoadData) \
  X(cudaLibraryLoadFromFile) X(cudaLibraryUnload) X(cudaLogsCurrent) X(cudaLogsDumpToFile) X(cudaLogsDumpToMemory) \
  X(cudaLogsRegisterCallback) X(cudaLogsUnregisterCallback) X(cudaMalloc3DArray) X(cudaMallocArray) \
  \
  X(cudaMallocMipmappedArray) X(cudaMemDiscardAndPrefetchBatchAsync) X(cudaMemDiscardAndPrefetchBatchAsync_ptsz) \
  X(cudaMemDiscardBatchAsync) X(cudaMemDiscardBatchAsync_ptsz) X(cudaMemGetDefaultMemPool) X(cudaMemGetMemPool) \
  X(cudaMemPoolExportPointer) X(cudaMemPoolExportToShareableHandle) \
  X(cudaMemPoolImportFromShareableHandle) \
  X(cudaMemPoolImportPointer) \
  X(cudaMemPrefetchAsync_ptsz) X(cudaMemPrefetchBatchAsync) X(cudaMemPrefetchBatchAsync_ptsz) \
  X(cudaMemRangeGetAttribute) X(cudaMemRangeGetAttributes) X(cudaMemSetMemPool) X(cudaMemcpy2DArrayToArray) \
  X(cudaMemcpy2DArrayToArray_ptds) X(cudaMemcpy2DAsync_ptsz) X(cudaMemcpy2DFromArray) X(cudaMemcpy2DFromArrayAsync) \
  X(cudaMemcpy2DFromArrayAsync_ptsz) X(cudaMemcpy2DFromArray_ptds) X(cudaMemcpy2DToArray) X(cudaMemcpy2DToArrayAsync) \
  X(cudaMemcpy2DToArrayAsync_ptsz) X(cudaMemcpy2DToArray_ptds) X(cudaMemcpy2D_ptds) X(cudaMemcpy3DAsync_ptsz) \
  X(cudaMemcpy3DBatchAsync) X(cudaMemcpy3DBatchAsync_ptsz) X(cudaMemcpy3DPeer) X(cudaMemcpy3DPeerAsync) \
  X(cudaMemcpy3DPeerAsync_ptsz) X(cudaMemcpy3DPeer_ptds) X(cudaMemcpy3D_ptds) X(cudaMemcpyArrayToArray) \
  X(cudaMemcpyArrayToArray_ptds) X(cudaMemcpyBatchAsync) X(cudaMemcpyBatchAsync_ptsz) X(cudaMemcpyFromArray) \
  X(cudaMemcpyFromArrayAsync) X(cudaMemcpyFromArrayAsync_ptsz) X(cudaMemcpyFromArray_ptds) \
  X(cudaMemcpyFromSymbolAsync_ptsz) X(cudaMemcpyFromSymbol_ptds) X(cudaMemcpyToArray) X(cudaMemcpyToArrayAsync) \
  X(cudaMemcpyToArrayAsync_ptsz) X(cudaMemcpyToArray_ptds) X(cudaMemcpyToSymbolAsync_ptsz) X(cudaMemcpyToSymbol_ptds) \
  X(cudaMemset2DAsync_ptsz) X(cudaMemset2D_ptds) X(cudaMemset3DAsync_ptsz) X(cudaMemset3D_ptds) \
  X(cudaMipmappedArrayGetMemoryRequirements) X(cudaMipmappedArrayGetSparseProperties) \
  X(cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags) X(cudaOccupancyMaxActiveClusters) \
  X(cudaOccupancyMaxPotentialClusterSize) X(cudaSetValidDevices) X(cudaSignalExternalSemaphoresAsync) \
  X(cudaSignalExternalSemaphoresAsync_ptsz) X(cudaStreamAttachMemAsync_ptsz) \
  X(cudaStreamBeginCaptureToGraph) X(cudaStreamBeginCaptureToGraph_ptsz) X(cudaStreamBeginCapture_ptsz) \
  X(cudaStreamCopyAttributes) X(cudaStreamCopyAttributes_ptsz) X(cudaStreamEndCapture_ptsz) \
  X(cudaStreamGetAttribute_ptsz) X(cudaStreamGetCaptureInfo_ptsz) X(cudaStreamGetDevice) \
  X(cudaStreamGetDevice_ptsz) X(cudaStreamGetId) X(cudaStreamGetId_ptsz) \
  X(cudaStreamIsCapturing_ptsz) X(cudaStreamSetAttribute_ptsz) X(cudaStreamUpdateCaptureDependencies) \
  X(cudaStreamUpdateCaptureDependencies_ptsz) X(cudaUserObjectCreate) \
  X(cudaUserObjectRelease) X(cudaUserObjectRetain) X(cudaWaitExternalSemaphoresAsync) \
  X(cudaWaitExternalSemaphoresAsync_ptsz)

#define X(name) \
  extern "C" __attribute__((weak)) int name(...) { return minicuda::cudart::not_supported(#name); }
MINICUDA_CUDART_NOT_SUPPORTED(X)
#undef X
