/* cudaTypedefs.h -- function-pointer types for the driver API functions minicuda's cuda.h
 * declares, named as the toolkit names them: PFN_<function>_v<version>, where the version is the
 * CUDA version (1000 * major + 10 * minor) that introduced that form of the function. A program
 * uses them for the pointers cuGetProcAddress / cudaGetDriverEntryPoint return. */
#ifndef CUDATYPEDEFS_H
#define CUDATYPEDEFS_H

#include <cuda.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef CUresult(CUDAAPI* PFN_cuGetErrorString_v6000)(CUresult error, const char **pStr);
typedef CUresult(CUDAAPI* PFN_cuGetErrorName_v6000)(CUresult error, const char **pStr);
typedef CUresult(CUDAAPI* PFN_cuInit_v2000)(unsigned int Flags);
typedef CUresult(CUDAAPI* PFN_cuDriverGetVersion_v2020)(int *driverVersion);
typedef CUresult(CUDAAPI* PFN_cuDeviceGet_v2000)(CUdevice_v1 *device, int ordinal);
typedef CUresult(CUDAAPI* PFN_cuDeviceGetCount_v2000)(int *count);
typedef CUresult(CUDAAPI* PFN_cuDeviceGetName_v2000)(char *name, int len, CUdevice_v1 dev);
typedef CUresult(CUDAAPI* PFN_cuDeviceGetUuid_v9020)(CUuuid *uuid, CUdevice_v1 dev);
typedef CUresult(CUDAAPI* PFN_cuDeviceGetUuid_v11040)(CUuuid *uuid, CUdevice_v1 dev);
typedef CUresult(CUDAAPI* PFN_cuDeviceTotalMem_v3020)(size_t *bytes, CUdevice_v1 dev);
typedef CUresult(CUDAAPI* PFN_cuDeviceGetAttribute_v2000)(int *pi, CUdevice_attribute attrib, CUdevice_v1 dev);
typedef CUresult(CUDAAPI* PFN_cuDevicePrimaryCtxRetain_v7000)(CUcontext *pctx, CUdevice_v1 dev);
typedef CUresult(CUDAAPI* PFN_cuDevicePrimaryCtxRelease_v11000)(CUdevice_v1 dev);
typedef CUresult(CUDAAPI* PFN_cuDevicePrimaryCtxGetState_v7000)(CUdevice_v1 dev, unsigned int *flags, int *active);
typedef CUresult(CUDAAPI* PFN_cuDevicePrimaryCtxReset_v11000)(CUdevice_v1 dev);
typedef CUresult(CUDAAPI* PFN_cuCtxCreate_v3020)(CUcontext *pctx, unsigned int flags, CUdevice_v1 dev);
typedef CUresult(CUDAAPI* PFN_cuCtxCreate_v12050)(CUcontext *pctx, CUctxCreateParams *ctxCreateParams, unsigned int flags, CUdevice dev);
typedef CUresult(CUDAAPI* PFN_cuCtxDestroy_v4000)(CUcontext ctx);
typedef CUresult(CUDAAPI* PFN_cuCtxPushCurrent_v4000)(CUcontext ctx);
typedef CUresult(CUDAAPI* PFN_cuCtxPopCurrent_v4000)(CUcontext *pctx);
typedef CUresult(CUDAAPI* PFN_cuCtxSetCurrent_v4000)(CUcontext ctx);
typedef CUresult(CUDAAPI* PFN_cuCtxGetCurrent_v4000)(CUcontext *pctx);
typedef CUresult(CUDAAPI* PFN_cuCtxGetDevice_v2000)(CUdevice_v1 *device);
typedef CUresult(CUDAAPI* PFN_cuCtxGetDevice_v13000)(CUdevice *device, CUcontext ctx);
typedef CUresult(CUDAAPI* PFN_cuCtxSynchronize_v2000)(void);
typedef CUresult(CUDAAPI* PFN_cuCtxSynchronize_v13000)(CUcontext ctx);
typedef CUresult(CUDAAPI* PFN_cuCtxGetApiVersion_v3020)(CUcontext ctx, unsigned int *version);
typedef CUresult(CUDAAPI* PFN_cuCtxGetStreamPriorityRange_v5050)(int *leastPriority, int *greatestPriority);
typedef CUresult(CUDAAPI* PFN_cuMemGetInfo_v3020)(size_t *free, size_t *total);
typedef CUresult(CUDAAPI* PFN_cuMemAlloc_v3020)(CUdeviceptr_v2 *dptr, size_t bytesize);
typedef CUresult(CUDAAPI* PFN_cuMemFree_v3020)(CUdeviceptr_v2 dptr);
typedef CUresult(CUDAAPI* PFN_cuMemGetAddressRange_v3020)(CUdeviceptr_v2 *pbase, size_t *psize, CUdeviceptr_v2 dptr);
typedef CUresult(CUDAAPI* PFN_cuMemAllocHost_v3020)(void **pp, size_t bytesize);
typedef CUresult(CUDAAPI* PFN_cuMemFreeHost_v2000)(void *p);
typedef CUresult(CUDAAPI* PFN_cuMemHostAlloc_v2020)(void **pp, size_t bytesize, unsigned int Flags);
typedef CUresult(CUDAAPI* PFN_cuMemcpy_v7000_ptds)(CUdeviceptr_v2 dst, CUdeviceptr_v2 src, size_t ByteCount);
typedef CUresult(CUDAAPI* PFN_cuMemcpyHtoD_v7000_ptds)(CUdeviceptr_v2 dstDevice, const void *srcHost, size_t ByteCount);
typedef CUresult(CUDAAPI* PFN_cuMemcpyDtoH_v7000_ptds)(void *dstHost, CUdeviceptr_v2 srcDevice, size_t ByteCount);
typedef CUresult(CUDAAPI* PFN_cuMemcpyDtoD_v7000_ptds)(CUdeviceptr_v2 dstDevice, CUdeviceptr_v2 srcDevice, size_t ByteCount);
typedef CUresult(CUDAAPI* PFN_cuMemcpyAsync_v7000_ptsz)(CUdeviceptr_v2 dst, CUdeviceptr_v2 src, size_t ByteCount, CUstream hStream);
typedef CUresult(CUDAAPI* PFN_cuMemcpyHtoDAsync_v7000_ptsz)(CUdeviceptr_v2 dstDevice, const void *srcHost, size_t ByteCount, CUstream hStream);
typedef CUresult(CUDAAPI* PFN_cuMemcpyDtoHAsync_v7000_ptsz)(void *dstHost, CUdeviceptr_v2 srcDevice, size_t ByteCount, CUstream hStream);
typedef CUresult(CUDAAPI* PFN_cuMemcpyDtoDAsync_v7000_ptsz)(CUdeviceptr_v2 dstDevice, CUdeviceptr_v2 srcDevice, size_t ByteCount, CUstream hStream);
typedef CUresult(CUDAAPI* PFN_cuMemsetD8_v7000_ptds)(CUdeviceptr_v2 dstDevice, unsigned char uc, size_t N);
typedef CUresult(CUDAAPI* PFN_cuMemsetD16_v7000_ptds)(CUdeviceptr_v2 dstDevice, unsigned short us, size_t N);
typedef CUresult(CUDAAPI* PFN_cuMemsetD32_v7000_ptds)(CUdeviceptr_v2 dstDevice, unsigned int ui, size_t N);
typedef CUresult(CUDAAPI* PFN_cuMemsetD8Async_v7000_ptsz)(CUdeviceptr_v2 dstDevice, unsigned char uc, size_t N, CUstream hStream);
typedef CUresult(CUDAAPI* PFN_cuPointerGetAttribute_v4000)(void *data, CUpointer_attribute attribute, CUdeviceptr_v2 ptr);
typedef CUresult(CUDAAPI* PFN_cuPointerGetAttributes_v7000)(unsigned int numAttributes, CUpointer_attribute *attributes, void **data, CUdeviceptr_v2 ptr);
typedef CUresult(CUDAAPI* PFN_cuStreamCreate_v2000)(CUstream *phStream, unsigned int Flags);
typedef CUresult(CUDAAPI* PFN_cuStreamCreateWithPriority_v5050)(CUstream *phStream, unsigned int flags, int priority);
typedef CUresult(CUDAAPI* PFN_cuStreamGetPriority_v7000_ptsz)(CUstream hStream, int *priority);
typedef CUresult(CUDAAPI* PFN_cuStreamGetFlags_v7000_ptsz)(CUstream hStream, unsigned int *flags);
typedef CUresult(CUDAAPI* PFN_cuStreamWaitEvent_v7000_ptsz)(CUstream hStream, CUevent hEvent, unsigned int Flags);
typedef CUresult(CUDAAPI* PFN_cuStreamAddCallback_v7000_ptsz)(CUstream hStream, CUstreamCallback callback, void *userData, unsigned int flags);
typedef CUresult(CUDAAPI* PFN_cuStreamQuery_v7000_ptsz)(CUstream hStream);
typedef CUresult(CUDAAPI* PFN_cuStreamSynchronize_v7000_ptsz)(CUstream hStream);
typedef CUresult(CUDAAPI* PFN_cuStreamDestroy_v4000)(CUstream hStream);
typedef CUresult(CUDAAPI* PFN_cuEventCreate_v2000)(CUevent *phEvent, unsigned int Flags);
typedef CUresult(CUDAAPI* PFN_cuEventRecord_v7000_ptsz)(CUevent hEvent, CUstream hStream);
typedef CUresult(CUDAAPI* PFN_cuEventQuery_v2000)(CUevent hEvent);
typedef CUresult(CUDAAPI* PFN_cuEventSynchronize_v2000)(CUevent hEvent);
typedef CUresult(CUDAAPI* PFN_cuEventDestroy_v4000)(CUevent hEvent);
typedef CUresult(CUDAAPI* PFN_cuEventElapsedTime_v2000)(float *pMilliseconds, CUevent hStart, CUevent hEnd);
typedef CUresult(CUDAAPI* PFN_cuEventElapsedTime_v12080)(float *pMilliseconds, CUevent hStart, CUevent hEnd);
typedef CUresult(CUDAAPI* PFN_cuFuncGetAttribute_v2020)(int *pi, CUfunction_attribute attrib, CUfunction hfunc);
typedef CUresult(CUDAAPI* PFN_cuFuncSetAttribute_v9000)(CUfunction hfunc, CUfunction_attribute attrib, int value);
typedef CUresult(CUDAAPI* PFN_cuLaunchKernel_v7000_ptsz)(CUfunction f, unsigned int gridDimX, unsigned int gridDimY, unsigned int gridDimZ, unsigned int blockDimX, unsigned int blockDimY, unsigned int blockDimZ, unsigned int sharedMemBytes, CUstream hStream, void **kernelParams, void **extra);
typedef CUresult(CUDAAPI* PFN_cuLaunchHostFunc_v10000_ptsz)(CUstream hStream, CUhostFn fn, void *userData);
typedef CUresult(CUDAAPI* PFN_cuOccupancyMaxActiveBlocksPerMultiprocessor_v6050)(int *numBlocks, CUfunction func, int blockSize, size_t dynamicSMemSize);
typedef CUresult(CUDAAPI* PFN_cuGetExportTable_v3000)(const void **ppExportTable, const CUuuid *pExportTableId);
typedef CUresult(CUDAAPI* PFN_cuMemcpyHtoD_v3020)(CUdeviceptr_v2 dstDevice, const void *srcHost, size_t ByteCount);
typedef CUresult(CUDAAPI* PFN_cuMemcpyDtoH_v3020)(void *dstHost, CUdeviceptr_v2 srcDevice, size_t ByteCount);
typedef CUresult(CUDAAPI* PFN_cuMemcpyDtoD_v3020)(CUdeviceptr_v2 dstDevice, CUdeviceptr_v2 srcDevice, size_t ByteCount);
typedef CUresult(CUDAAPI* PFN_cuMemcpyHtoDAsync_v3020)(CUdeviceptr_v2 dstDevice, const void *srcHost, size_t ByteCount, CUstream hStream);
typedef CUresult(CUDAAPI* PFN_cuMemcpyDtoHAsync_v3020)(void *dstHost, CUdeviceptr_v2 srcDevice, size_t ByteCount, CUstream hStream);
typedef CUresult(CUDAAPI* PFN_cuMemcpyDtoDAsync_v3020)(CUdeviceptr_v2 dstDevice, CUdeviceptr_v2 srcDevice, size_t ByteCount, CUstream hStream);
typedef CUresult(CUDAAPI* PFN_cuMemsetD8_v3020)(CUdeviceptr_v2 dstDevice, unsigned char uc, size_t N);
typedef CUresult(CUDAAPI* PFN_cuMemsetD16_v3020)(CUdeviceptr_v2 dstDevice, unsigned short us, size_t N);
typedef CUresult(CUDAAPI* PFN_cuMemsetD32_v3020)(CUdeviceptr_v2 dstDevice, unsigned int ui, size_t N);
typedef CUresult(CUDAAPI* PFN_cuMemcpy_v4000)(CUdeviceptr_v2 dst, CUdeviceptr_v2 src, size_t ByteCount);
typedef CUresult(CUDAAPI* PFN_cuMemcpyAsync_v4000)(CUdeviceptr_v2 dst, CUdeviceptr_v2 src, size_t ByteCount, CUstream hStream);
typedef CUresult(CUDAAPI* PFN_cuMemsetD8Async_v3020)(CUdeviceptr_v2 dstDevice, unsigned char uc, size_t N, CUstream hStream);
typedef CUresult(CUDAAPI* PFN_cuStreamGetPriority_v5050)(CUstream hStream, int *priority);
typedef CUresult(CUDAAPI* PFN_cuStreamGetFlags_v5050)(CUstream hStream, unsigned int *flags);
typedef CUresult(CUDAAPI* PFN_cuStreamWaitEvent_v3020)(CUstream hStream, CUevent hEvent, unsigned int Flags);
typedef CUresult(CUDAAPI* PFN_cuStreamAddCallback_v5000)(CUstream hStream, CUstreamCallback callback, void *userData, unsigned int flags);
typedef CUresult(CUDAAPI* PFN_cuStreamQuery_v2000)(CUstream hStream);
typedef CUresult(CUDAAPI* PFN_cuStreamSynchronize_v2000)(CUstream hStream);
typedef CUresult(CUDAAPI* PFN_cuEventRecord_v2000)(CUevent hEvent, CUstream hStream);
typedef CUresult(CUDAAPI* PFN_cuLaunchKernel_v4000)(CUfunction f, unsigned int gridDimX, unsigned int gridDimY, unsigned int gridDimZ, unsigned int blockDimX, unsigned int blockDimY, unsigned int blockDimZ, unsigned int sharedMemBytes, CUstream hStream, void **kernelParams, void **extra);
typedef CUresult(CUDAAPI* PFN_cuLaunchHostFunc_v10000)(CUstream hStream, CUhostFn fn, void *userData);
typedef CUresult(CUDAAPI* PFN_cuModuleGetLoadingMode_v11070)(CUmoduleLoadingMode *mode);
typedef CUresult(CUDAAPI* PFN_cuLibraryLoadData_v12000)(CUlibrary *library, const void *code, CUjit_option *jitOptions, void **jitOptionsValues, unsigned int numJitOptions, CUlibraryOption *libraryOptions, void** libraryOptionValues, unsigned int numLibraryOptions);
typedef CUresult(CUDAAPI* PFN_cuLibraryUnload_v12000)(CUlibrary library);
typedef CUresult(CUDAAPI* PFN_cuLibraryGetKernel_v12000)(CUkernel *pKernel, CUlibrary library, const char *name);
typedef CUresult(CUDAAPI* PFN_cuKernelGetFunction_v12000)(CUfunction *pFunc, CUkernel kernel);
typedef CUresult(CUDAAPI* PFN_cuKernelGetName_v12030)(const char **name, CUkernel hfunc);
typedef CUresult(CUDAAPI* PFN_cuDeviceTotalMem_v2000)(unsigned int *bytes, CUdevice_v1 dev);
typedef CUresult(CUDAAPI* PFN_cuCtxCreate_v2000)(CUcontext *pctx, unsigned int flags, CUdevice_v1 dev);
typedef CUresult(CUDAAPI* PFN_cuMemGetInfo_v2000)(unsigned int *free, unsigned int *total);
typedef CUresult(CUDAAPI* PFN_cuMemAllocHost_v2000)(void **pp, unsigned int bytesize);
typedef CUresult(CUDAAPI* PFN_cuCtxDestroy_v2000)(CUcontext ctx);
typedef CUresult(CUDAAPI* PFN_cuCtxPopCurrent_v2000)(CUcontext *pctx);
typedef CUresult(CUDAAPI* PFN_cuCtxPushCurrent_v2000)(CUcontext ctx);
typedef CUresult(CUDAAPI* PFN_cuStreamDestroy_v2000)(CUstream hStream);
typedef CUresult(CUDAAPI* PFN_cuEventDestroy_v2000)(CUevent hEvent);
typedef CUresult(CUDAAPI* PFN_cuDevicePrimaryCtxRelease_v7000)(CUdevice_v1 dev);
typedef CUresult(CUDAAPI* PFN_cuDevicePrimaryCtxReset_v7000)(CUdevice_v1 dev);

#ifdef __cplusplus
}
#endif

#endif /* CUDATYPEDEFS_H */
