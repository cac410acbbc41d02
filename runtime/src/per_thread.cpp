// The two driver tables of cudart.h: what a runtime call ends in for the legacy default stream
// and for the per-thread one (CUDA_API_PER_THREAD_DEFAULT_STREAM, nvcc --default-stream
// per-thread). The runtime's _ptds/_ptsz entry points are beside their plain twins (memcpy.cpp,
// stream.cpp, launch.cpp); each pair shares one body, which takes one of these tables. Both are
// made from cudart.h's one list, MINICUDA_DRIVER_CALLS.
#include "cudart.h"

namespace minicuda::cudart {

#define MINICUDA_LEGACY_CALL(field, call, twin) .field = call,
#define MINICUDA_PER_THREAD_CALL(field, call, twin) .field = call##twin,
const DriverCalls kLegacyDriver{MINICUDA_DRIVER_CALLS(MINICUDA_LEGACY_CALL)};
const DriverCalls kPerThreadDriver{MINICUDA_DRIVER_CALLS(MINICUDA_PER_THREAD_CALL)};
#undef MINICUDA_LEGACY_CALL
#undef MINICUDA_PER_THREAD_CALL

}  // namespace minicuda::cudart
