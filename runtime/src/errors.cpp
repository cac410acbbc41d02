// Runtime error names and messages, from the one table in cuda_runtime.h (MINICUDA_CUDA_ERRORS),
// the per-thread last-error slot, and the one mapping from driver results to runtime errors.
#include "cudart.h"

namespace minicuda::cudart {

namespace {
struct ErrorRow {
  cudaError_t value;
  const char* name;
  const char* message;
};
constexpr ErrorRow kErrors[] = {
#define MINICUDA_ROW(name, value, message) {name, #name, message},
    MINICUDA_CUDA_ERRORS(MINICUDA_ROW)
#undef MINICUDA_ROW
};

const ErrorRow* find(int value) {
  for (const ErrorRow& row : kErrors) {
    if (static_cast<int>(row.value) == value) return &row;
  }
  return nullptr;
}

// The last error of a runtime call on this host thread (cudaGetLastError resets it).
thread_local cudaError_t t_last_error = cudaSuccess;
}  // namespace

const char* error_name(cudaError_t e) {
  const ErrorRow* row = find(static_cast<int>(e));
  return row ? row->name : "unrecognized error code";
}

// Driver and runtime share the numbers of the errors they have in common (1 invalid value,
// 2 out of memory, 100 no device, 101 invalid device, 201 invalid context, 700 illegal address,
// ...); a driver result the runtime has no number for is cudaErrorUnknown.
cudaError_t to_cuda_error(CUresult r) {
  if (r == CUDA_ERROR_NOT_INITIALIZED) return cudaErrorInitializationError;
  const ErrorRow* row = find(static_cast<int>(r));
  return row ? row->value : cudaErrorUnknown;
}

cudaError_t done(trace::Scope& scope, cudaError_t e) {
  // cudaErrorNotReady is a status, not an error: it is never recorded (measured, probe.txt).
  if (e != cudaSuccess && e != cudaErrorNotReady) t_last_error = e;
  if (scope.active()) scope.result("{}", error_name(e));
  return e;
}

cudaError_t done_clearing_on_success(trace::Scope& scope, cudaError_t e) {
  if (e == cudaSuccess) t_last_error = cudaSuccess;
  return done(scope, e);
}

cudaError_t exchange_last_error(cudaError_t e) {
  cudaError_t old = t_last_error;
  t_last_error = e;
  return old;
}

}  // namespace minicuda::cudart

using namespace minicuda;
using namespace minicuda::cudart;

// Contract: returns the last error a runtime call made on this thread and resets it to
// cudaSuccess.
cudaError_t cudaGetLastError(void) {
  trace::Scope scope(trace::Layer::Cudart, "cudaGetLastError()");
  cudaError_t e = t_last_error;
  t_last_error = cudaSuccess;
  if (scope.active()) scope.result("{}", error_name(e));
  return e;
}

// Contract: returns the last error without resetting it.
cudaError_t cudaPeekAtLastError(void) {
  trace::Scope scope(trace::Layer::Cudart, "cudaPeekAtLastError()");
  if (scope.active()) scope.result("{}", error_name(t_last_error));
  return t_last_error;
}

// Contract: "cudaErrorInvalidValue" for 1; "unrecognized error code" for a value CUDA does not
// define (measured). Never NULL.
const char* cudaGetErrorName(cudaError_t error) { return error_name(error); }

// Contract: the message of error ("invalid argument"); "unrecognized error code" if unknown.
const char* cudaGetErrorString(cudaError_t error) {
  const ErrorRow* row = find(static_cast<int>(error));
  return row ? row->message : "unrecognized error code";
}

namespace minicuda::cudart {
// The answer of a CUDA 13 runtime function minicuda does not build (the weak definitions of
// lib/libcudart.so.13, abi/not_supported.cpp.in): the trace names it, the last-error slot keeps
// cudaErrorNotSupported.
int not_supported(const char* api) {
  trace::Scope scope(trace::Layer::Cudart, "{}(...)", api);
  trace::note(trace::Layer::Cudart, "{}: not supported by minicuda", api);
  return static_cast<int>(done(scope, cudaErrorNotSupported));
}
}  // namespace minicuda::cudart
