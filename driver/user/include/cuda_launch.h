/* cuda_launch.h -- part of minicuda's cuda.h (included by it, inside its extern "C" block, after
 * the launch attributes of cuda_attributes.h): the keys of cuLaunchKernel's `extra` array and
 * cuLaunchKernelEx with its launch configuration. Names and values are CUDA 13.0's; the comments
 * are minicuda's. Include cuda.h, not this file. */
#ifndef MINICUDA_CUDA_LAUNCH_H
#define MINICUDA_CUDA_LAUNCH_H

#ifndef __cuda_cuda_h__
#error "include cuda.h"
#endif

/* --- The `extra` array ---
 * Instead of kernelParams (one pointer per parameter), a launch may pass the parameters as one
 * buffer the caller laid out: `extra` is a list of key, value pairs that ends with
 * CU_LAUNCH_PARAM_END (or NULL, the same value):
 *   CU_LAUNCH_PARAM_BUFFER_POINTER, buffer   the parameters, each at its offset and alignment
 *                                            (cuFuncGetParamInfo gives them)
 *   CU_LAUNCH_PARAM_BUFFER_SIZE, &size       a size_t*: how many bytes the buffer holds
 * The _AS_INT forms are the same keys as integer constants, for switch labels and templates. */
#define CU_LAUNCH_PARAM_END_AS_INT            0x00
#define CU_LAUNCH_PARAM_END                   ((void*)CU_LAUNCH_PARAM_END_AS_INT)
#define CU_LAUNCH_PARAM_BUFFER_POINTER_AS_INT 0x01
#define CU_LAUNCH_PARAM_BUFFER_POINTER        ((void*)CU_LAUNCH_PARAM_BUFFER_POINTER_AS_INT)
#define CU_LAUNCH_PARAM_BUFFER_SIZE_AS_INT    0x02
#define CU_LAUNCH_PARAM_BUFFER_SIZE           ((void*)CU_LAUNCH_PARAM_BUFFER_SIZE_AS_INT)

/* --- cuLaunchKernelEx --- */
/* One launch attribute: which (id) and its value; the padding keeps value 8-byte aligned. */
typedef struct CUlaunchAttribute_st {
  CUlaunchAttributeID id;
  char pad[8 - sizeof(CUlaunchAttributeID)];
  CUlaunchAttributeValue value;
} CUlaunchAttribute;
/* The shape of a launch, its stream and numAttrs attributes at attrs. */
typedef struct CUlaunchConfig_st {
  unsigned int gridDimX, gridDimY, gridDimZ;
  unsigned int blockDimX, blockDimY, blockDimZ;
  unsigned int sharedMemBytes;
  CUstream hStream;
  CUlaunchAttribute* attrs;
  unsigned int numAttrs;
} CUlaunchConfig_v1;
typedef CUlaunchConfig_v1 CUlaunchConfig;

/* How the blocks of clusters are spread over the GPCs (CU_FUNC_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE). */
typedef enum CUclusterSchedulingPolicy_enum MINICUDA_ENUM_INT {
  CU_CLUSTER_SCHEDULING_POLICY_DEFAULT = 0,
  CU_CLUSTER_SCHEDULING_POLICY_SPREAD = 1,
  CU_CLUSTER_SCHEDULING_POLICY_LOAD_BALANCING = 2
} CUclusterSchedulingPolicy;

/* cuLaunchKernel with its shape in *config, and the attributes: IGNORE; COOPERATIVE (non-zero: as
 * cuLaunchCooperativeKernel); CLUSTER_DIMENSION (thread block clusters, docs/clusters.md: the grid
 * must be a whole number of clusters of at most 8 blocks, 16 with
 * CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED, whose blocks fit on one GPC at once, and the
 * shape must be the kernel's own if it was compiled with one). Any other attribute of the list:
 * CUDA_ERROR_NOT_SUPPORTED, named in the trace; an id that is no attribute, config NULL, or attrs
 * NULL with numAttrs > 0: CUDA_ERROR_INVALID_VALUE. Parameters and their errors as
 * cuLaunchKernel's, `extra` included. */
CUresult CUDAAPI cuLaunchKernelEx(const CUlaunchConfig* config, CUfunction f, void** kernelParams, void** extra);
/* As cuLaunchKernelEx; hStream 0 is the calling thread's per-thread stream. */
CUresult CUDAAPI cuLaunchKernelEx_ptsz(const CUlaunchConfig* config, CUfunction f, void** kernelParams, void** extra);
/* *clusterSize = the largest cluster (up to 8 blocks, 16 with NON_PORTABLE_CLUSTER_SIZE_ALLOWED) of
 * func whose blocks, of config's block size and dynamic shared memory, fit on one GPC at once; 0 if
 * none. NULL clusterSize or config: CUDA_ERROR_INVALID_VALUE; unknown func: CUDA_ERROR_INVALID_HANDLE. */
CUresult CUDAAPI cuOccupancyMaxPotentialClusterSize(int* clusterSize, CUfunction func, const CUlaunchConfig* config);
/* *numClusters = how many clusters of config's cluster shape (its CLUSTER_DIMENSION attribute, else
 * func's compiled shape, else 1 block) can be resident at once over every GPC (0 when no GPC holds
 * one). Errors as above; a cluster of more than 8 blocks without NON_PORTABLE_CLUSTER_SIZE_ALLOWED:
 * CUDA_ERROR_INVALID_CLUSTER_SIZE. */
CUresult CUDAAPI cuOccupancyMaxActiveClusters(int* numClusters, CUfunction func, const CUlaunchConfig* config);

#endif /* MINICUDA_CUDA_LAUNCH_H */
