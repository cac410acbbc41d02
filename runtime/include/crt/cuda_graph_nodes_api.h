/*
 * crt/cuda_graph_nodes_api.h -- graph memory nodes, conditional nodes and the generic node call
 * (included by cuda_runtime_api.h after crt/cuda_graph_api.h and crt/cuda_mempool_api.h, whose
 * types it uses): the parameter structs of CUDA 13.0's driver_types.h, cudaGraphNodeParams, and
 * the entry points minicuda builds. Names, values and layouts are the toolkit's; the comments are
 * minicuda's own. How they work: docs/graphs.md.
 */
#ifndef MINICUDA_CRT_CUDA_GRAPH_NODES_API_H
#define MINICUDA_CRT_CUDA_GRAPH_NODES_API_H

/* A memory allocation node: bytesize bytes of device memory with the pool's properties. dptr is
 * an output: the address the allocation has in every launch of every instantiation. */
struct cudaMemAllocNodeParams {
  struct cudaMemPoolProps poolProps;       /* allocType Pinned, location a device, handleTypes None */
  const struct cudaMemAccessDesc* accessDescs;
  size_t accessDescCount;
  size_t bytesize;
  void* dptr;
};
struct cudaMemAllocNodeParamsV2 {
  struct cudaMemPoolProps poolProps;
  const struct cudaMemAccessDesc* accessDescs;
  size_t accessDescCount;
  size_t bytesize;
  void* dptr;
};
struct cudaMemFreeNodeParams {
  void* dptr;
};

/* cudaDeviceGetGraphMemAttribute / cudaDeviceSetGraphMemAttribute (values: unsigned long long). */
enum cudaGraphMemAttributeType MINICUDA_ENUM_INT {
  cudaGraphMemAttrUsedMemCurrent = 0x0,     /* physical memory mapped for graph allocations now */
  cudaGraphMemAttrUsedMemHigh = 0x1,        /* its high watermark; may be set to 0 */
  cudaGraphMemAttrReservedMemCurrent = 0x2, /* physical memory the graph allocator holds */
  cudaGraphMemAttrReservedMemHigh = 0x3     /* its high watermark; may be set to 0 */
};

/* Conditional nodes (CUDA 12.3+; If with an else body and Switch, 12.8+). */
enum cudaGraphConditionalHandleFlags MINICUDA_ENUM_INT {
  cudaGraphCondAssignDefault = 1 /* the handle takes its default value at each launch */
};
enum cudaGraphConditionalNodeType MINICUDA_ENUM_INT {
  cudaGraphCondTypeIf = 0,     /* body 0 if the value is nonzero; with size 2, body 1 otherwise */
  cudaGraphCondTypeWhile = 1,  /* body 0 again and again while the value is nonzero */
  cudaGraphCondTypeSwitch = 2  /* body n for the value n; none when n >= size */
};
struct cudaConditionalNodeParams {
  cudaGraphConditionalHandle handle;
  enum cudaGraphConditionalNodeType type;
  unsigned int size;        /* how many bodies */
  cudaGraph_t* phGraph_out; /* output: the bodies, owned by the node */
};

/* The V2 parameter structs that cudaGraphNodeParams holds. */
struct cudaKernelNodeParamsV2 {
  void* func;
  dim3 gridDim;
  dim3 blockDim;
  unsigned int sharedMemBytes;
  void** kernelParams;
  void** extra;
};
struct cudaMemcpyNodeParams {
  int flags;       /* must be 0 */
  int reserved[3]; /* must be 0 */
  struct cudaMemcpy3DParms copyParams;
};
struct cudaMemsetParamsV2 {
  void* dst;
  size_t pitch;
  unsigned int value;
  unsigned int elementSize;
  size_t width;
  size_t height;
};
struct cudaHostNodeParamsV2 {
  cudaHostFn_t fn;
  void* userData;
};
enum cudaGraphChildGraphNodeOwnership MINICUDA_ENUM_INT {
  cudaGraphChildGraphOwnershipClone = 0,
  cudaGraphChildGraphOwnershipMove = 1
};
struct cudaChildGraphNodeParams {
  cudaGraph_t graph;
  enum cudaGraphChildGraphNodeOwnership ownership;
};
struct cudaEventRecordNodeParams {
  cudaEvent_t event;
};
struct cudaEventWaitNodeParams {
  cudaEvent_t event;
};

/* cudaGraphAddNode's parameters: type selects the union member. The union is 232 bytes whatever
 * members a header lists (the external-semaphore members are not declared here). */
struct cudaGraphNodeParams {
  enum cudaGraphNodeType type;
  int reserved0[3]; /* must be 0 */
  union {
    long long reserved1[29];
    struct cudaKernelNodeParamsV2 kernel;
    struct cudaMemcpyNodeParams memcpy;
    struct cudaMemsetParamsV2 memset;
    struct cudaHostNodeParamsV2 host;
    struct cudaChildGraphNodeParams graph;
    struct cudaEventWaitNodeParams eventWait;
    struct cudaEventRecordNodeParams eventRecord;
    struct cudaMemAllocNodeParamsV2 alloc;
    struct cudaMemFreeNodeParams free;
    struct cudaConditionalNodeParams conditional;
  };
  long long reserved2; /* must be 0 */
};

#ifdef __cplusplus
extern "C" {
#endif

cudaError_t CUDARTAPI cudaGraphAddMemAllocNode(cudaGraphNode_t* pGraphNode, cudaGraph_t graph,
                                               const cudaGraphNode_t* pDependencies, size_t numDependencies,
                                               struct cudaMemAllocNodeParams* nodeParams);
cudaError_t CUDARTAPI cudaGraphMemAllocNodeGetParams(cudaGraphNode_t node, struct cudaMemAllocNodeParams* params_out);
cudaError_t CUDARTAPI cudaGraphAddMemFreeNode(cudaGraphNode_t* pGraphNode, cudaGraph_t graph,
                                              const cudaGraphNode_t* pDependencies, size_t numDependencies,
                                              void* dptr);
cudaError_t CUDARTAPI cudaGraphMemFreeNodeGetParams(cudaGraphNode_t node, void* dptr_out);
cudaError_t CUDARTAPI cudaDeviceGraphMemTrim(int device);
cudaError_t CUDARTAPI cudaDeviceGetGraphMemAttribute(int device, enum cudaGraphMemAttributeType attr, void* value);
cudaError_t CUDARTAPI cudaDeviceSetGraphMemAttribute(int device, enum cudaGraphMemAttributeType attr, void* value);

cudaError_t CUDARTAPI cudaGraphConditionalHandleCreate(cudaGraphConditionalHandle* pHandle_out, cudaGraph_t graph,
                                                       unsigned int defaultLaunchValue MINICUDA_DV(0),
                                                       unsigned int flags MINICUDA_DV(0));
cudaError_t CUDARTAPI cudaGraphAddNode(cudaGraphNode_t* pGraphNode, cudaGraph_t graph,
                                       const cudaGraphNode_t* pDependencies, const cudaGraphEdgeData* dependencyData,
                                       size_t numDependencies, struct cudaGraphNodeParams* nodeParams);
/* CUDA 12's name of the same call (12.3 - 12.9 headers map cudaGraphAddNode to it with edge data). */
cudaError_t CUDARTAPI cudaGraphAddNode_v2(cudaGraphNode_t* pGraphNode, cudaGraph_t graph,
                                          const cudaGraphNode_t* pDependencies, const cudaGraphEdgeData* dependencyData,
                                          size_t numDependencies, struct cudaGraphNodeParams* nodeParams);

/* Capture into an existing graph after the given nodes, and changing a capturing stream's
 * dependencies (docs/graphs.md). */
cudaError_t CUDARTAPI cudaStreamBeginCaptureToGraph(cudaStream_t stream, cudaGraph_t graph,
                                                    const cudaGraphNode_t* dependencies,
                                                    const cudaGraphEdgeData* dependencyData, size_t numDependencies,
                                                    enum cudaStreamCaptureMode mode);
cudaError_t CUDARTAPI cudaStreamUpdateCaptureDependencies(cudaStream_t stream, cudaGraphNode_t* dependencies,
                                                          const cudaGraphEdgeData* dependencyData,
                                                          size_t numDependencies, unsigned int flags MINICUDA_DV(0));

#ifdef __cplusplus
}
#endif

#endif /* MINICUDA_CRT_CUDA_GRAPH_NODES_API_H */
