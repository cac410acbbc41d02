// CUresult names and messages, from the one table in cuda.h (MINICUDA_CU_RESULTS), and the one
// place where the kernel module's NV_STATUS becomes a CUresult.
#include <fmt/format.h>

#include "libcuda.h"
#include "minicuda/trace.h"

namespace minicuda::libcuda {

namespace {
struct ResultRow {
  CUresult value;
  const char* name;
  const char* message;
};
constexpr ResultRow kResults[] = {
#define MINICUDA_ROW(name, value, message) {name, #name, message},
    MINICUDA_CU_RESULTS(MINICUDA_ROW)
#undef MINICUDA_ROW
};

const ResultRow* find(CUresult r) {
  for (const ResultRow& row : kResults) {
    if (row.value == r) return &row;
  }
  return nullptr;
}
}  // namespace

namespace {
struct NamedValue {
  int value;
  const char* name;
};
constexpr NamedValue kDeviceAttributes[] = {
#define MINICUDA_ROW(name, value) {value, #name},
    MINICUDA_CU_DEVICE_ATTRIBUTES(MINICUDA_ROW)
#undef MINICUDA_ROW
};
constexpr NamedValue kPointerAttributes[] = {
#define MINICUDA_ROW(name, value) {value, #name},
    MINICUDA_CU_POINTER_ATTRIBUTES(MINICUDA_ROW)
#undef MINICUDA_ROW
};
template <size_t N>
std::string name_in(const NamedValue (&table)[N], int value) {
  for (const NamedValue& row : table) {
    if (row.value == value) return row.name;  // the first name of a value is the current one
  }
  return std::to_string(value);
}
}  // namespace

std::string attribute_name(CUdevice_attribute attribute) { return name_in(kDeviceAttributes, attribute); }
std::string pointer_attribute_name(CUpointer_attribute attribute) { return name_in(kPointerAttributes, attribute); }

std::string result_name(CUresult r) {
  const ResultRow* row = find(r);
  return row ? row->name : fmt::format("CUresult({})", static_cast<int>(r));
}

// How each RM status reaches the application. Most RM failures that a well-formed libcuda can
// meet are resource shortages (out of memory) or a GPU that went away; the rest mean libcuda
// and the kernel module disagree, which CUDA reports as CUDA_ERROR_UNKNOWN (999).
CUresult to_cu_result(NV_STATUS status) {
  switch (status) {
    case NV_OK: return CUDA_SUCCESS;
    case NV_ERR_NO_MEMORY:
    case NV_ERR_INSUFFICIENT_RESOURCES: return CUDA_ERROR_OUT_OF_MEMORY;
    case NV_ERR_INVALID_ARGUMENT:
    case NV_ERR_INVALID_ADDRESS:
    case NV_ERR_INVALID_LIMIT: return CUDA_ERROR_INVALID_VALUE;
    case NV_ERR_GPU_IS_LOST: return CUDA_ERROR_DEVICE_UNAVAILABLE;
    case NV_ERR_NOT_SUPPORTED: return CUDA_ERROR_NOT_SUPPORTED;
    case NV_ERR_INSUFFICIENT_PERMISSIONS: return CUDA_ERROR_NOT_PERMITTED;
    case NV_ERR_OPERATING_SYSTEM: return CUDA_ERROR_OPERATING_SYSTEM;  // a failed ioctl (rm_ioctl)
    default: return CUDA_ERROR_UNKNOWN;
  }
}

}  // namespace minicuda::libcuda

using namespace minicuda;
using libcuda::find;

// Contract: *pStr = the name of error ("CUDA_ERROR_INVALID_VALUE"). An unknown code or a NULL
// pStr: CUDA_ERROR_INVALID_VALUE, with *pStr = NULL where pStr is not NULL (as measured).
CUresult cuGetErrorName(CUresult error, const char** pStr) {
  if (pStr == nullptr) return CUDA_ERROR_INVALID_VALUE;
  const auto* row = find(error);
  *pStr = row ? row->name : nullptr;
  return row ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

// Contract: *pStr = the description of error ("invalid argument"); unknown or NULL as above.
CUresult cuGetErrorString(CUresult error, const char** pStr) {
  if (pStr == nullptr) return CUDA_ERROR_INVALID_VALUE;
  const auto* row = find(error);
  *pStr = row ? row->message : nullptr;
  return row ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}
