/* cuda_attributes.h -- part of minicuda's cuda.h (included by it, inside its extern "C" block):
 * what links two devices (cuDeviceGetP2PAttribute) and the attributes a stream carries
 * (cuStreamSetAttribute / cuStreamGetAttribute: the L2 access policy window, the
 * synchronisation policy, the priority). Include cuda.h, not this file. */
#ifndef MINICUDA_CUDA_ATTRIBUTES_H
#define MINICUDA_CUDA_ATTRIBUTES_H

#ifndef __cuda_cuda_h__
#error "include cuda.h"
#endif

/* --- Device pairs --- */
typedef enum CUdevice_P2PAttribute_enum MINICUDA_ENUM_INT {
  CU_DEVICE_P2P_ATTRIBUTE_PERFORMANCE_RANK = 0x01,        /* relative speed of the link; 0 is the fastest */
  CU_DEVICE_P2P_ATTRIBUTE_ACCESS_SUPPORTED = 0x02,        /* 1: cuCtxEnablePeerAccess may link them */
  CU_DEVICE_P2P_ATTRIBUTE_NATIVE_ATOMIC_SUPPORTED = 0x03, /* 1: every atomic works over the link */
  CU_DEVICE_P2P_ATTRIBUTE_ACCESS_ACCESS_SUPPORTED = 0x04, /* the old name of the next one */
  CU_DEVICE_P2P_ATTRIBUTE_CUDA_ARRAY_ACCESS_SUPPORTED = 0x04,
  CU_DEVICE_P2P_ATTRIBUTE_ONLY_PARTIAL_NATIVE_ATOMIC_SUPPORTED = 0x05
} CUdevice_P2PAttribute;
/* *value = attrib of the link from srcDevice to dstDevice. value NULL or an unknown attrib:
 * CUDA_ERROR_INVALID_VALUE; a bad ordinal, or srcDevice == dstDevice: CUDA_ERROR_INVALID_DEVICE. */
CUresult CUDAAPI cuDeviceGetP2PAttribute(int* value, CUdevice_P2PAttribute attrib, CUdevice srcDevice,
                                         CUdevice dstDevice);

/* --- Stream attributes --- */
/* How lines of an access policy window are kept in L2. */
typedef enum CUaccessProperty_enum MINICUDA_ENUM_INT {
  CU_ACCESS_PROPERTY_NORMAL = 0,
  CU_ACCESS_PROPERTY_STREAMING = 1,  /* less likely to stay */
  CU_ACCESS_PROPERTY_PERSISTING = 2  /* kept in the set-aside of CU_LIMIT_PERSISTING_L2_CACHE_SIZE */
} CUaccessProperty;
/* A window of global memory [base_ptr, base_ptr + num_bytes): a fraction hitRatio of its lines
 * gets hitProp, the rest missProp (NORMAL or STREAMING). num_bytes is at most
 * CU_DEVICE_ATTRIBUTE_MAX_ACCESS_POLICY_WINDOW_SIZE. */
typedef struct CUaccessPolicyWindow_st {
  void* base_ptr;
  size_t num_bytes;
  float hitRatio;
  CUaccessProperty hitProp;
  CUaccessProperty missProp;
} CUaccessPolicyWindow_v1;
typedef CUaccessPolicyWindow_v1 CUaccessPolicyWindow;
/* How a host thread waits for a stream's work. */
typedef enum CUsynchronizationPolicy_enum MINICUDA_ENUM_INT {
  CU_SYNC_POLICY_AUTO = 1,
  CU_SYNC_POLICY_SPIN = 2,
  CU_SYNC_POLICY_YIELD = 3,
  CU_SYNC_POLICY_BLOCKING_SYNC = 4
} CUsynchronizationPolicy;
/* The ids of launch attributes; a stream takes those marked "stream". */
typedef enum CUlaunchAttributeID_enum MINICUDA_ENUM_INT {
  CU_LAUNCH_ATTRIBUTE_IGNORE = 0,
  CU_LAUNCH_ATTRIBUTE_ACCESS_POLICY_WINDOW = 1, /* stream */
  CU_LAUNCH_ATTRIBUTE_COOPERATIVE = 2,
  CU_LAUNCH_ATTRIBUTE_SYNCHRONIZATION_POLICY = 3, /* stream */
  CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION = 4,
  CU_LAUNCH_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE = 5,
  CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION = 6,
  CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_EVENT = 7,
  CU_LAUNCH_ATTRIBUTE_PRIORITY = 8,             /* stream */
  CU_LAUNCH_ATTRIBUTE_MEM_SYNC_DOMAIN_MAP = 9,  /* stream */
  CU_LAUNCH_ATTRIBUTE_MEM_SYNC_DOMAIN = 10,     /* stream */
  CU_LAUNCH_ATTRIBUTE_PREFERRED_CLUSTER_DIMENSION = 11,
  CU_LAUNCH_ATTRIBUTE_LAUNCH_COMPLETION_EVENT = 12,
  CU_LAUNCH_ATTRIBUTE_DEVICE_UPDATABLE_KERNEL_NODE = 13,
  CU_LAUNCH_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT = 14,
  CU_LAUNCH_ATTRIBUTE_NVLINK_UTIL_CENTRIC_SCHEDULING = 16 /* stream */
} CUlaunchAttributeID;
/* The value of an attribute: 64 bytes, of which minicuda reads the members below. */
typedef union CUlaunchAttributeValue_union {
  char pad[64];
  CUaccessPolicyWindow accessPolicyWindow;
  int cooperative;
  CUsynchronizationPolicy syncPolicy;
  struct {
    unsigned int x, y, z;
  } clusterDim;
  int priority;
  unsigned int sharedMemCarveout;
} CUlaunchAttributeValue;
typedef CUlaunchAttributeID CUstreamAttrID;
typedef CUlaunchAttributeValue CUstreamAttrValue_v1;
typedef CUstreamAttrValue_v1 CUstreamAttrValue;
#define CU_STREAM_ATTRIBUTE_ACCESS_POLICY_WINDOW   CU_LAUNCH_ATTRIBUTE_ACCESS_POLICY_WINDOW
#define CU_STREAM_ATTRIBUTE_SYNCHRONIZATION_POLICY CU_LAUNCH_ATTRIBUTE_SYNCHRONIZATION_POLICY
#define CU_STREAM_ATTRIBUTE_PRIORITY               CU_LAUNCH_ATTRIBUTE_PRIORITY
#define CU_STREAM_ATTRIBUTE_MEM_SYNC_DOMAIN_MAP    CU_LAUNCH_ATTRIBUTE_MEM_SYNC_DOMAIN_MAP
#define CU_STREAM_ATTRIBUTE_MEM_SYNC_DOMAIN        CU_LAUNCH_ATTRIBUTE_MEM_SYNC_DOMAIN

/* Stores one attribute of hStream (the NULL stream's are the context's). The window is a hint
 * the simulated L2 does not act on: it is checked, kept and returned. ACCESS_POLICY_WINDOW:
 * num_bytes over CU_DEVICE_ATTRIBUTE_MAX_ACCESS_POLICY_WINDOW_SIZE, hitRatio outside [0, 1], a
 * property that is not a CUaccessProperty or a PERSISTING missProp: CUDA_ERROR_INVALID_VALUE.
 * SYNCHRONIZATION_POLICY outside AUTO..BLOCKING_SYNC: CUDA_ERROR_INVALID_VALUE. PRIORITY: clamped
 * into cuCtxGetStreamPriorityRange. MEM_SYNC_DOMAIN(_MAP) and NVLINK_UTIL_CENTRIC_SCHEDULING:
 * CUDA_ERROR_NOT_SUPPORTED. An id not valid for streams, or value NULL: CUDA_ERROR_INVALID_VALUE;
 * an unknown stream: CUDA_ERROR_INVALID_HANDLE. */
CUresult CUDAAPI cuStreamSetAttribute(CUstream hStream, CUstreamAttrID attr, const CUstreamAttrValue* value);
/* *value_out = the attribute (a new stream: an empty window, CU_SYNC_POLICY_AUTO, its creation
 * priority). Errors as cuStreamSetAttribute. */
CUresult CUDAAPI cuStreamGetAttribute(CUstream hStream, CUstreamAttrID attr, CUstreamAttrValue* value_out);
/* Demotes every persisting L2 line of the context to normal. The simulated L2 keeps no lines
 * persisting, so there is nothing to demote: CUDA_SUCCESS. */
CUresult CUDAAPI cuCtxResetPersistingL2Cache(void);

#endif /* MINICUDA_CUDA_ATTRIBUTES_H */
