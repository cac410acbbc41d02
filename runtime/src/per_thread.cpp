// The two driver tables of cudart.h: what a runtime call ends in for the legacy default stream
// and for the per-thread one (CUDA_API_PER_THREAD_DEFAULT_STREAM, nvcc --default-stream
// per-thread). The runtime's _ptds/_ptsz entry points are beside their plain twins (memcpy.cpp,
// stream.cpp, launch.cpp); each pair shares one body, which takes one of these tables.
#include "cudart.h"

namespace minicuda::cudart {

const DriverCalls kLegacyDriver{
    .memcpy_htod = cuMemcpyHtoD_v2,
    .memcpy_dtoh = cuMemcpyDtoH_v2,
    .memcpy_dtod = cuMemcpyDtoD_v2,
    .memcpy_any = cuMemcpy,
    .memset_d8 = cuMemsetD8_v2,
    .memcpy_htod_async = cuMemcpyHtoDAsync_v2,
    .memcpy_dtoh_async = cuMemcpyDtoHAsync_v2,
    .memcpy_dtod_async = cuMemcpyDtoDAsync_v2,
    .memcpy_any_async = cuMemcpyAsync,
    .memset_d8_async = cuMemsetD8Async,
    .stream_get_priority = cuStreamGetPriority,
    .stream_get_flags = cuStreamGetFlags,
    .stream_synchronize = cuStreamSynchronize,
    .stream_query = cuStreamQuery,
    .stream_wait_event = cuStreamWaitEvent,
    .stream_add_callback = cuStreamAddCallback,
    .launch_host_func = cuLaunchHostFunc,
    .event_record = cuEventRecord,
    .launch_kernel = cuLaunchKernel,
};

const DriverCalls kPerThreadDriver{
    .memcpy_htod = cuMemcpyHtoD_v2_ptds,
    .memcpy_dtoh = cuMemcpyDtoH_v2_ptds,
    .memcpy_dtod = cuMemcpyDtoD_v2_ptds,
    .memcpy_any = cuMemcpy_ptds,
    .memset_d8 = cuMemsetD8_v2_ptds,
    .memcpy_htod_async = cuMemcpyHtoDAsync_v2_ptsz,
    .memcpy_dtoh_async = cuMemcpyDtoHAsync_v2_ptsz,
    .memcpy_dtod_async = cuMemcpyDtoDAsync_v2_ptsz,
    .memcpy_any_async = cuMemcpyAsync_ptsz,
    .memset_d8_async = cuMemsetD8Async_ptsz,
    .stream_get_priority = cuStreamGetPriority_ptsz,
    .stream_get_flags = cuStreamGetFlags_ptsz,
    .stream_synchronize = cuStreamSynchronize_ptsz,
    .stream_query = cuStreamQuery_ptsz,
    .stream_wait_event = cuStreamWaitEvent_ptsz,
    .stream_add_callback = cuStreamAddCallback_ptsz,
    .launch_host_func = cuLaunchHostFunc_ptsz,
    .event_record = cuEventRecord_ptsz,
    .launch_kernel = cuLaunchKernel_ptsz,
};

}  // namespace minicuda::cudart
