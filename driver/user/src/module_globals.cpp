// A module's variables in a context: its global segment (the __device__ variables) and its
// constant bank (the __constant__ ones) live in device memory, allocated from the context's pool
// when the module's globals first load there - at the first code record of one of its kernels
// (function_code) or at cuLibraryGetGlobal, whichever comes first. The static initializers are
// copied in by the copy engine (cuMemcpyHtoD), as the real loader uploads a module's
// .nv.global.init and .nv.constant sections. Kernel code is host C++ that reaches each variable
// through its slot (fatbinary.h, VariableImage): the loader stores the device address there,
// as a dynamic loader fills a global offset table entry.
#include <cstring>
#include <map>
#include <mutex>
#include <set>

#include "jit.h"
#include "libcuda.h"
#include "minicuda/trace.h"

using namespace minicuda;
using namespace minicuda::libcuda;

namespace {
constexpr uint64_t kVariableAlign = 16;  // enough for every fundamental and vector type

uint64_t align_up(uint64_t v, uint64_t a) { return (v + a - 1) / a * a; }

// The segments a module's variables live in: the global segment and the constant bank (device
// memory), and the managed segment (the PTX module's .attribute(.managed) variables, nvcc's
// __managed__ ones: managed memory, reached by host and device at one address).
enum class Segment { Global, Constant, Managed };

Segment segment_of(const CUlib_st& lib, uint32_t i) {
  if (lib.jit != nullptr && i < lib.jit->result.globals.size() && lib.jit->result.globals[i].managed)
    return Segment::Managed;
  return lib.module->variables[i].constant != 0 ? Segment::Constant : Segment::Global;
}

// Lays out the variables of one segment from `base`; returns the bytes used.
uint64_t lay_out(const CUlib_st& lib, Segment segment, CUdeviceptr base, std::vector<CUdeviceptr>& address) {
  const fatbin::ModuleImage& m = *lib.module;
  uint64_t at = 0;
  for (uint32_t i = 0; i < m.variable_count; ++i) {
    if (segment_of(lib, i) != segment) continue;
    at = align_up(at, kVariableAlign);
    address[i] = base + at;
    at += m.variables[i].size;
  }
  return at;
}

// Allocates one segment and places its variables in it.
CUresult allocate_segment(const CUlib_st& lib, Segment segment, std::vector<CUdeviceptr>& address) {
  const uint64_t bytes = lay_out(lib, segment, 0, address);
  if (bytes == 0) return CUDA_SUCCESS;
  CUdeviceptr base = 0;
  const CUresult r = segment == Segment::Managed ? cuMemAllocManaged(&base, bytes, CU_MEM_ATTACH_GLOBAL)
                                                 : cuMemAlloc_v2(&base, bytes);
  if (r != CUDA_SUCCESS) return r;
  lay_out(lib, segment, base, address);
  trace::note(trace::Layer::Libcuda, "module: {} of {} ({} bytes) at {:#x}",
              segment == Segment::Managed ? "managed segment" : segment == Segment::Constant ? "constant bank" : "global segment",
              lib.module->source, bytes, base);
  return CUDA_SUCCESS;
}
}  // namespace

namespace minicuda::libcuda {
namespace {

// Which context's storage each variable slot holds (its simulated process's driver and its
// epoch), and the epochs of the contexts alive now: the slots are the host program's, one per
// variable.
struct SlotOwner {
  const Driver* process = nullptr;
  uint64_t epoch = 0;
};
struct SlotOwners {
  std::mutex mutex;
  std::map<void**, SlotOwner> owner;
  std::set<uint64_t> live;
};
SlotOwners& slot_owners() {
  static SlotOwners owners;
  return owners;
}

}  // namespace

void globals_context_built(uint64_t epoch) {
  SlotOwners& o = slot_owners();
  std::lock_guard lock(o.mutex);
  o.live.insert(epoch);
}

void globals_context_torn_down(uint64_t epoch) {
  SlotOwners& o = slot_owners();
  std::lock_guard lock(o.mutex);
  o.live.erase(epoch);
}

CUresult load_globals(CUctx_st& ctx, CUlib_st& lib) {
  if (lib.module == nullptr || lib.module->variable_count == 0) return CUDA_SUCCESS;
  CUlib_st::Globals& g = lib.globals[&ctx];
  if (g.epoch == ctx.epoch && !g.address.empty()) return CUDA_SUCCESS;
  const fatbin::ModuleImage& m = *lib.module;
  {
    SlotOwners& o = slot_owners();
    std::lock_guard lock(o.mutex);
    for (uint32_t i = 0; i < m.variable_count; ++i) {
      auto it = m.variables[i].slot ? o.owner.find(m.variables[i].slot) : o.owner.end();
      if (it != o.owner.end() && it->second.process == &driver() && it->second.epoch != ctx.epoch &&
          o.live.count(it->second.epoch) != 0) {
        trace::note(trace::Layer::Libcuda,
                    "module: the variables of {} are live in another context of this process (another GPU's): "
                    "kernel code reaches each variable through one slot, so minicuda keeps them in one context "
                    "at a time: not supported",
                    m.source);
        return CUDA_ERROR_NOT_SUPPORTED;
      }
    }
  }
  std::vector<CUdeviceptr> address(m.variable_count, 0);
  for (Segment s : {Segment::Global, Segment::Constant, Segment::Managed})
    if (CUresult r = allocate_segment(lib, s, address); r != CUDA_SUCCESS) return r;
  for (uint32_t i = 0; i < m.variable_count; ++i) {
    const fatbin::VariableImage& v = m.variables[i];
    if (v.initializer != nullptr && v.size != 0) {
      if (CUresult r = cuMemcpyHtoD_v2(address[i], v.initializer, v.size); r != CUDA_SUCCESS) return r;
    }
    if (v.slot != nullptr) {
      *v.slot = reinterpret_cast<void*>(address[i]);
      SlotOwners& o = slot_owners();
      std::lock_guard lock(o.mutex);
      o.owner[v.slot] = SlotOwner{&driver(), ctx.epoch};
    }
  }
  g.address = std::move(address);
  g.epoch = ctx.epoch;
  return CUDA_SUCCESS;
}

}  // namespace minicuda::libcuda

// Contract: the device address (*dptr) and size (*bytes) of the variable `name` of library in the
// current context, its module's globals loaded there first. dptr and bytes may each be NULL.
// NULL library or name: CUDA_ERROR_INVALID_VALUE; unknown library: CUDA_ERROR_INVALID_HANDLE; a
// library whose image did not parse: that error; no such variable: CUDA_ERROR_NOT_FOUND.
CUresult cuLibraryGetGlobal(CUdeviceptr* dptr, size_t* bytes, CUlibrary library, const char* name) {
  trace::Scope scope(trace::Layer::Libcuda, "cuLibraryGetGlobal(name={})", name ? name : "(null)");
  std::lock_guard lock(driver_mutex());
  if (library == nullptr || name == nullptr) return done(scope, CUDA_ERROR_INVALID_VALUE);
  if (driver().libraries.count(library) == 0) return done(scope, CUDA_ERROR_INVALID_HANDLE);
  if (library->image_error != CUDA_SUCCESS) return done(scope, library->image_error);
  CUcontext ctx = nullptr;
  if (CUresult r = require_context(&ctx); r != CUDA_SUCCESS) return done(scope, r);
  const fatbin::ModuleImage& m = *library->module;
  for (uint32_t i = 0; i < m.variable_count; ++i) {
    if (std::strcmp(m.variables[i].name, name) != 0) continue;
    if (CUresult r = load_globals(*ctx, *library); r != CUDA_SUCCESS) return done(scope, r);
    if (dptr != nullptr) *dptr = library->globals[ctx].address[i];
    if (bytes != nullptr) *bytes = m.variables[i].size;
    if (scope.active()) scope.result("CUDA_SUCCESS, dptr={:#x}, bytes={}", library->globals[ctx].address[i],
                                     m.variables[i].size);
    return CUDA_SUCCESS;
  }
  return done(scope, CUDA_ERROR_NOT_FOUND);
}
