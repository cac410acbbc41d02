/* minicuda's cuda_profiler_api.h: the markers that bound the region a profiler collects.
 * In minicuda each is a line in the trace (and a cuProfilerStart / cuProfilerStop call into
 * libcuda); both succeed in a context, also when repeated, as on the H200. */
#ifndef __CUDA_PROFILER_API_H__
#define __CUDA_PROFILER_API_H__

#include "cuda_runtime.h"

#ifdef __cplusplus
extern "C" {
#endif

cudaError_t CUDARTAPI cudaProfilerStart(void);
cudaError_t CUDARTAPI cudaProfilerStop(void);

#ifdef __cplusplus
}
#endif

#endif /* __CUDA_PROFILER_API_H__ */
