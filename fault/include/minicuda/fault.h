// minicuda fault injection: the one public header of the fault layer.
//
// A test (or a student) can make the stack fail where real stacks fail rarely and at the worst
// moment: an allocation that runs out of memory, an ioctl that the kernel refuses, a GPU that
// reports an uncorrectable ECC error. Each layer asks this plan at its own boundary and, when a
// rule says so, fails there the way the real layer does; the error then travels up through the
// layers above exactly as a real one would (translated to a CUresult, then a cudaError_t), and
// the trace says which rule fired. Like Linux's fault-injection framework, the plan is set from
// outside the program:
//
//   MINICUDA_FAULT   a comma-separated list of rules, read once at the first question:
//
//     alloc@N                 the N-th cuMemAlloc of the host process fails with
//                             CUDA_ERROR_OUT_OF_MEMORY (cudaMalloc: cudaErrorMemoryAllocation)
//     ioctl:NAME@N=ERRNO      the N-th ioctl NAME (NV_ESC_RM_ALLOC, NV_ESC_RM_CONTROL,
//                             UVM_MAP_EXTERNAL_ALLOCATION, ...) fails in the kernel's ioctl entry
//                             with -ERRNO (ENOMEM, EINVAL, EFAULT, EIO, ...)
//     ioctl:NAME@N=NV_ERR_X   ... or reaches its kernel module, which answers with RM status
//                             NV_ERR_X (NV_ERR_NO_MEMORY, NV_ERR_INVALID_ARGUMENT, ...) in the
//                             argument, as RM reports its failures
//     gpu@N=ecc               the GPU raises an uncorrectable ECC error (Xid 94, contained) on
//                             the N-th pushbuffer segment it fetches; the next synchronisation
//                             returns CUDA_ERROR_ECC_UNCORRECTABLE (214), sticky
//     gpu@N=illegal_address   ... an MMU fault there instead (Xid 31): 700, sticky
//
//   "@N" may be left out (N = 1: the next one). "@N+" fires on the N-th and every later one.
//   Counting is per host process and per rule, from when the plan was set.
//
// Asking costs one relaxed atomic load when no plan is set (the common case).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace minicuda::fault {

// Replaces the plan (and its counters) with `spec`, in the MINICUDA_FAULT syntax; "" clears it.
// A spec that does not parse leaves no plan and returns false, with the reason in *error.
bool set_plan(std::string_view spec, std::string* error = nullptr);

// The plan as set (normalised: one rule per line), for the trace and error messages.
std::string describe_plan();

// --- the questions each layer asks at its boundary; each call counts one event ---------------

// libcuda's cuMemAlloc: true when this allocation must fail with out-of-memory.
bool fail_mem_alloc();

// The kernel's ioctl entry: the errno (positive) this ioctl must fail with, if any.
std::optional<int> ioctl_errno(std::string_view ioctl_name);

// A kernel module's ioctl handler: the RM status (NV_STATUS) this ioctl must answer, if any.
std::optional<uint32_t> ioctl_status(std::string_view ioctl_name);

// The GPU's host interface, at each pushbuffer segment it fetches: the error to raise, if any.
enum class GpuError : uint8_t { None, Ecc, IllegalAddress };
GpuError gpu_error();

// The rule behind the last failure injected on this host thread ("alloc@3"), for trace notes.
std::string last_rule();

}  // namespace minicuda::fault
