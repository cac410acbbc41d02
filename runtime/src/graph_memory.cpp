// Graph memory nodes (graph.h): cudaGraphAddMemAllocNode / cudaGraphAddMemFreeNode, their capture
// from cudaMallocAsync / cudaFreeAsync, and the graph allocator behind them.
//
// An allocation node gets its address when it is made, and keeps it in every launch of every
// instantiation (the CUDA contract): the node reserves a range of GPU VA (cuMemAddressReserve),
// mapped to nothing. Physical memory arrives at launch: the allocation step maps a piece of
// physical memory (cuMemCreate of a multiple of 32 MiB, cuMemMap of the range's size) at that range, and the free step makes that piece
// reusable after the work queued before it. The graph allocator keeps the pieces after the free:
//   - a relaunch finds its piece still mapped at its range and uses it again, with no driver call;
//   - another range takes a piece that no live allocation holds, when the free that released it is
//     earlier in the same stream, or the GPU has passed it; the piece moves (cuMemUnmap, cuMemMap);
//   - otherwise the allocator asks the driver for a new piece (cuMemCreate).
// So graphs that run one after the other in a stream share physical memory, and graphs that may
// run at the same time in different streams do not. cudaDeviceGraphMemTrim returns to the driver
// every piece that holds no live allocation (cuMemRelease).
//
// An allocation node made after the free node of another allocation of the same graph (that free
// among its ancestors) reuses that allocation's range: the two never live at the same time.
// cudaGraphMemAttrUsedMemCurrent counts the pieces mapped at some range, ReservedMemCurrent all
// the pieces the allocator holds. All state is guarded by graph::mutex().
#include <algorithm>
#include <list>
#include <map>
#include <set>

#include "graph.h"
#include "minicuda/syscall.h"

using namespace minicuda;
using namespace minicuda::cudart;
using namespace minicuda::cudart::graph;

namespace minicuda::cudart::graph {

struct VaRange;

// One piece of physical memory of the graph allocator.
struct Chunk {
  CUmemGenericAllocationHandle handle = 0;
  size_t bytes = 0;
  int device = 0;
  VaRange* at = nullptr;        // the range it is mapped at, or null
  cudaStream_t stream = nullptr;  // the stream of its last free
  CUevent released = nullptr;     // recorded in that stream at the free (null: never freed in a stream)
};

// A range of GPU VA that one or more allocations of a graph use, one after the other.
struct VaRange {
  int pid = 0;  // the process whose VA it is
  CUdeviceptr va = 0;
  size_t bytes = 0;  // a multiple of the granularity
  int device = 0;
  Chunk* chunk = nullptr;              // the physical memory mapped there, or null
  GraphAllocation* live = nullptr;     // the allocation using it now
  GraphAllocation* last_user = nullptr;  // the allocation node that took it last
  ~VaRange();
};

struct GraphAllocation : std::enable_shared_from_this<GraphAllocation> {
  std::shared_ptr<VaRange> range;
  cudaMemAllocNodeParams params{};
  const CUgraph_st* owner = nullptr;       // the graph of the allocation node
  const CUgraphNode_st* owner_free = nullptr;  // the owner's free node, if any
  const CUgraph_st* freed_elsewhere = nullptr;  // another graph with a free node for it
  ~GraphAllocation();
};

}  // namespace minicuda::cudart::graph

namespace {

// Ranges are reserved in the VMM granularity of the H200; physical memory comes in 32 MiB pieces
// (a 1 MiB captured allocation leaves ReservedMemCurrent at 32 MiB: probe_mempool.txt
// capture.graphmem_reserved), of which a range maps its own size.
constexpr size_t kGranularity = 2u << 20;
constexpr size_t kPieceBytes = 32u << 20;

struct DeviceTotals {
  unsigned long long used = 0, used_high = 0, reserved = 0, reserved_high = 0;
};

// The graph allocator of one process (libcudart is per process; pids are never reused).
struct ProcessState {
  std::list<std::unique_ptr<Chunk>> chunks;
  std::map<CUdeviceptr, VaRange*> ranges;  // every range by address
  // Live allocations whose nodes and executable graphs may all be gone: they stay until freed.
  std::map<GraphAllocation*, std::shared_ptr<GraphAllocation>> pinned;
  std::map<int, DeviceTotals> totals;  // by device
};
ProcessState& state(int pid = kernel::vdso_getpid()) {
  static auto* m = new std::map<int, ProcessState>;
  return (*m)[pid];
}
std::list<std::unique_ptr<Chunk>>& chunks() { return state().chunks; }
std::map<CUdeviceptr, VaRange*>& ranges() { return state().ranges; }
std::map<GraphAllocation*, std::shared_ptr<GraphAllocation>>& pinned() { return state().pinned; }
std::map<int, DeviceTotals>& totals() { return state().totals; }

void recount(int device) {
  DeviceTotals& t = totals()[device];
  t.used = t.reserved = 0;
  for (auto& c : chunks()) {
    if (c->device != device) continue;
    t.reserved += c->bytes;
    if (c->at != nullptr) t.used += c->bytes;
  }
  t.used_high = std::max(t.used_high, t.used);
  t.reserved_high = std::max(t.reserved_high, t.reserved);
}

void unmap(Chunk& c) {
  if (c.at == nullptr) return;
  (void)cuMemUnmap(c.at->va, c.at->bytes);
  c.at->chunk = nullptr;
  c.at = nullptr;
}

CUresult map(Chunk& c, VaRange& r) {
  if (CUresult e = cuMemMap(r.va, r.bytes, 0, c.handle, 0); e != CUDA_SUCCESS) return e;
  CUmemAccessDesc access{};
  access.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  access.location.id = r.device;
  access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
  if (CUresult e = cuMemSetAccess(r.va, r.bytes, &access, 1); e != CUDA_SUCCESS) {
    (void)cuMemUnmap(r.va, r.bytes);
    return e;
  }
  c.at = &r;
  r.chunk = &c;
  return CUDA_SUCCESS;
}

// Whether work in `stream` may use c now: nothing holds it, and its last free is earlier in
// stream or already passed by the GPU.
bool reusable(const Chunk& c, cudaStream_t stream) {
  if (c.at != nullptr && c.at->live != nullptr) return false;
  return c.released == nullptr || c.stream == stream || cuEventQuery(c.released) == CUDA_SUCCESS;
}

// When a free takes effect: at once (the device was synchronized), or after the work queued on
// its stream so far (the legacy stream included).
enum class FreeAt { Now, InStreamOrder };

// Marks a's range free at `when`.
void release(GraphAllocation& a, cudaStream_t stream, FreeAt when) {
  VaRange& r = *a.range;
  r.live = nullptr;
  if (Chunk* c = r.chunk) {
    c->stream = stream;
    if (when == FreeAt::Now) {
      if (c->released != nullptr) (void)cuEventDestroy_v2(c->released);
      c->released = nullptr;
    } else {
      if (c->released == nullptr) (void)cuEventCreate(&c->released, CU_EVENT_DISABLE_TIMING);
      (void)cuEventRecord(c->released, reinterpret_cast<CUstream>(stream));
    }
  }
  pinned().erase(&a);  // may destroy a
}

VaRange* range_at(CUdeviceptr va) {
  auto it = ranges().find(va);
  return it == ranges().end() ? nullptr : it->second;
}

void ancestors(const CUgraphNode_st* n, std::set<const CUgraphNode_st*>* seen) {
  if (!seen->insert(n).second) return;
  for (auto* d : n->deps) ancestors(d, seen);
}

}  // namespace

namespace minicuda::cudart::graph {

VaRange::~VaRange() {
  if (va == 0) return;  // the reservation failed
  if (chunk != nullptr) unmap(*chunk);
  state(pid).ranges.erase(va);
  if (pid != kernel::vdso_getpid()) return;  // that process is gone, and its VA space with it
  (void)cuMemAddressFree(va, bytes);
  recount(device);
}

GraphAllocation::~GraphAllocation() {
  if (range && range->last_user == this) range->last_user = nullptr;
}

// Pinned memory of one device, with no export handles: cudaErrorInvalidValue otherwise, as for
// bytesize 0 and a NULL p.
cudaError_t alloc_payload(CUgraph_st* graph, const cudaGraphNode_t* deps, size_t ndeps, cudaMemAllocNodeParams* p,
                          Payload* out) {
  if (p == nullptr || p->bytesize == 0) return cudaErrorInvalidValue;
  int count = 0;
  (void)cudaGetDeviceCount(&count);
  if (p->poolProps.allocType != cudaMemAllocationTypePinned || p->poolProps.location.type != cudaMemLocationTypeDevice ||
      p->poolProps.location.id < 0 || p->poolProps.location.id >= count || p->poolProps.handleTypes != cudaMemHandleTypeNone)
    return cudaErrorInvalidValue;
  if (p->accessDescCount != 0 && p->accessDescs == nullptr) return cudaErrorInvalidValue;
  auto a = std::make_shared<GraphAllocation>();
  a->owner = graph;
  const size_t bytes = (p->bytesize + kGranularity - 1) / kGranularity * kGranularity;
  // A range freed before this node in the same graph, by a free node among its ancestors.
  std::set<const CUgraphNode_st*> before;
  for (size_t i = 0; deps != nullptr && i < ndeps; ++i)
    if (live_node(deps[i]) && deps[i]->graph == graph) ancestors(deps[i], &before);
  for (const CUgraphNode_st* n : before) {
    if (n->payload.type != cudaGraphNodeTypeMemFree) continue;
    GraphAllocation* freed = n->payload.allocation.get();
    VaRange& r = *freed->range;
    if (freed->owner == graph && freed->owner_free == n && r.last_user == freed && r.bytes == bytes &&
        r.device == p->poolProps.location.id) {
      a->range = freed->range;
      trace::note(trace::Layer::Cudart, "graph {}: allocation of {} B reuses the address {:#x}, freed before it",
                  graph->id, p->bytesize, r.va);
      break;
    }
  }
  if (!a->range) {
    auto r = std::make_shared<VaRange>();
    r->bytes = bytes, r->device = p->poolProps.location.id, r->pid = kernel::vdso_getpid();
    if (CUresult e = cuMemAddressReserve(&r->va, bytes, kGranularity, 0, 0); e != CUDA_SUCCESS) {
      r->bytes = 0;
      return to_cuda_error(e);
    }
    ranges()[r->va] = r.get();
    a->range = std::move(r);
  }
  a->range->last_user = a.get();
  p->dptr = reinterpret_cast<void*>(a->range->va);
  a->params = *p;
  a->params.accessDescs = nullptr;  // not kept: the caller's array
  a->params.accessDescCount = 0;
  *out = Payload{};
  out->type = cudaGraphNodeTypeMemAlloc;
  out->allocation = std::move(a);
  return cudaSuccess;
}

cudaError_t free_payload(CUgraph_st* graph, void* dptr, Payload* out) {
  VaRange* r = dptr == nullptr ? nullptr : range_at(reinterpret_cast<CUdeviceptr>(dptr));
  if (r == nullptr || r->last_user == nullptr) return cudaErrorInvalidValue;  // no allocation node's address
  GraphAllocation& a = *r->last_user;
  // Freed once: in the owner graph, or else in other graphs, each once (CUDA 13 header).
  if (a.owner_free != nullptr) return cudaErrorInvalidValue;
  if (a.freed_elsewhere != nullptr && (graph == a.owner || graph == a.freed_elsewhere)) return cudaErrorInvalidValue;
  *out = Payload{};
  out->type = cudaGraphNodeTypeMemFree;
  out->allocation = a.shared_from_this();  // the node keeps the allocation (and its address) alive
  return cudaSuccess;
}

CUdeviceptr allocation_address(const GraphAllocation& a) { return a.range->va; }
size_t allocation_bytes(const GraphAllocation& a) { return a.params.bytesize; }

void free_node_added(const CUgraphNode_st* n) {
  GraphAllocation& a = *n->payload.allocation;
  if (n->graph == a.owner) a.owner_free = n;
  else a.freed_elsewhere = n->graph;
}

cudaError_t launch_alloc(GraphAllocation& a, cudaStream_t stream, bool auto_free) {
  VaRange& r = *a.range;
  if (r.live == &a) {
    if (!auto_free) {
      trace::note(trace::Layer::Cudart,
                  "graph memory: the allocation at {:#x} from the last launch is not freed, and the graph was not "
                  "instantiated with cudaGraphInstantiateFlagAutoFreeOnLaunch", r.va);
      return cudaErrorInvalidValue;
    }
    trace::note(trace::Layer::Cudart, "graph memory: auto-free of {:#x} before the relaunch", r.va);
    release(a, stream, FreeAt::InStreamOrder);
  }
  if (r.live != nullptr) return cudaErrorInvalidValue;  // the range's other allocation is still live
  auto s = reinterpret_cast<CUstream>(stream);
  if (Chunk* c = r.chunk) {
    if (c->released != nullptr && c->stream != stream) (void)cuStreamWaitEvent(s, c->released, 0);
    trace::note(trace::Layer::Cudart, "graph memory: {:#x} keeps its {} B of physical memory, no driver call", r.va,
                c->bytes);
  } else {
    Chunk* found = nullptr;
    for (auto& c : chunks())
      if (c->device == r.device && c->bytes >= r.bytes && reusable(*c, stream)) {
        found = c.get();
        break;
      }
    if (found != nullptr) {
      trace::note(trace::Layer::Cudart, "graph memory: {:#x} reuses {} B of physical memory freed {}", r.va,
                  found->bytes, found->at ? fmt::format("at {:#x}", found->at->va) : std::string("earlier"));
      unmap(*found);
    } else {
      auto c = std::make_unique<Chunk>();
      c->bytes = (r.bytes + kPieceBytes - 1) / kPieceBytes * kPieceBytes, c->device = r.device;
      CUmemAllocationProp prop{};
      prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
      prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
      prop.location.id = r.device;
      trace::note(trace::Layer::Cudart, "graph memory: no free physical memory fits {:#x}: ask the driver for {} B",
                  r.va, c->bytes);
      if (CUresult e = cuMemCreate(&c->handle, c->bytes, &prop, 0); e != CUDA_SUCCESS) return to_cuda_error(e);
      found = c.get();
      chunks().push_back(std::move(c));
    }
    if (CUresult e = map(*found, r); e != CUDA_SUCCESS) return to_cuda_error(e);
  }
  r.live = &a;
  pinned()[&a] = a.shared_from_this();
  recount(r.device);
  return cudaSuccess;
}

cudaError_t launch_free(GraphAllocation& a, cudaStream_t stream) {
  if (a.range->live != &a) {
    trace::note(trace::Layer::Cudart, "graph memory: free of {:#x}, which is not allocated", a.range->va);
    return cudaErrorInvalidValue;
  }
  release(a, stream, FreeAt::InStreamOrder);
  return cudaSuccess;
}

void release_exec_allocations(const std::vector<std::shared_ptr<GraphAllocation>>& allocations) {
  std::set<int> devices;
  for (auto& a : allocations) {
    VaRange& r = *a->range;
    if (r.live != nullptr || r.chunk == nullptr) continue;
    trace::note(trace::Layer::Cudart, "graph memory: {} B of physical memory leave {:#x} for the graph allocator",
                r.chunk->bytes, r.va);
    unmap(*r.chunk);
    devices.insert(r.device);
  }
  for (int d : devices) recount(d);
}

std::optional<cudaError_t> free_graph_allocation(void* ptr, cudaStream_t stream, bool sync) {
  std::lock_guard lock(mutex());
  VaRange* r = ptr == nullptr ? nullptr : range_at(reinterpret_cast<CUdeviceptr>(ptr));
  if (r == nullptr) return std::nullopt;
  if (r->live == nullptr) {
    trace::note(trace::Layer::Cudart, "graph memory: {} is a graph allocation's address, not allocated now", ptr);
    return cudaErrorInvalidValue;
  }
  if (sync) {
    if (CUresult e = cuCtxSynchronize(); e != CUDA_SUCCESS) return to_cuda_error(e);
    release(*r->live, nullptr, FreeAt::Now);
  } else {
    release(*r->live, stream, FreeAt::InStreamOrder);
  }
  return cudaSuccess;
}

std::optional<cudaError_t> capture_malloc(cudaStream_t stream, size_t size, void** out) {
  CUgraph_st* graph = nullptr;
  std::vector<CUgraphNode_st*> frontier;
  if (!capture_frontier(stream, &graph, &frontier))
    return capture_frontier_active(stream) ? std::optional(cudaErrorStreamCaptureInvalidated) : std::nullopt;
  std::lock_guard lock(mutex());
  cudaMemAllocNodeParams p{};
  p.bytesize = size;
  p.poolProps.allocType = cudaMemAllocationTypePinned;
  p.poolProps.location = {cudaMemLocationTypeDevice, current_device()};
  Payload payload;
  if (cudaError_t e = alloc_payload(graph, frontier.data(), frontier.size(), &p, &payload); e != cudaSuccess) return e;
  auto r = capture_node(stream, std::move(payload));
  if (r && *r == cudaSuccess) *out = p.dptr;
  return r;
}

std::optional<cudaError_t> capture_free(cudaStream_t stream, void* ptr) {
  CUgraph_st* graph = nullptr;
  std::vector<CUgraphNode_st*> frontier;
  if (!capture_frontier(stream, &graph, &frontier))
    return capture_frontier_active(stream) ? std::optional(cudaErrorStreamCaptureInvalidated) : std::nullopt;
  std::lock_guard lock(mutex());
  Payload payload;
  if (cudaError_t e = free_payload(graph, ptr, &payload); e != cudaSuccess) return e;
  CUgraphNode_st* added = nullptr;
  auto r = capture_node(stream, std::move(payload), &added);
  if (added != nullptr) free_node_added(added);
  return r;
}

}  // namespace minicuda::cudart::graph

// Contract: a node that allocates nodeParams->bytesize bytes of device memory at each launch, at
// the address it writes to nodeParams->dptr. NULL outputs or params, bytesize 0, memory that is
// not pinned device memory of an existing device: cudaErrorInvalidValue.
cudaError_t cudaGraphAddMemAllocNode(cudaGraphNode_t* pGraphNode, cudaGraph_t graph, const cudaGraphNode_t* pDependencies,
                                     size_t numDependencies, cudaMemAllocNodeParams* nodeParams) {
  trace::Scope scope(trace::Layer::Cudart, "cudaGraphAddMemAllocNode(pGraphNode={}, graph={}, numDependencies={}, bytesize={})",
                     static_cast<void*>(pGraphNode), static_cast<void*>(graph), numDependencies,
                     nodeParams ? nodeParams->bytesize : 0);
  if (cudaError_t e = ensure_context(); e != cudaSuccess) return done(scope, e);
  std::lock_guard lock(mutex());
  Payload p;
  cudaError_t e = live_graph(graph) ? alloc_payload(graph, pDependencies, numDependencies, nodeParams, &p)
                                    : cudaErrorInvalidValue;
  e = add_node(scope, pGraphNode, graph, pDependencies, numDependencies, e, std::move(p));
  if (e == cudaSuccess && scope.active()) scope.result("cudaSuccess, dptr={}", nodeParams->dptr);
  return e;
}

cudaError_t cudaGraphMemAllocNodeGetParams(cudaGraphNode_t node, cudaMemAllocNodeParams* params_out) {
  trace::Scope scope(trace::Layer::Cudart, "cudaGraphMemAllocNodeGetParams(node={})", static_cast<void*>(node));
  std::lock_guard lock(mutex());
  if (!live_node(node) || params_out == nullptr || node->payload.type != cudaGraphNodeTypeMemAlloc)
    return done(scope, cudaErrorInvalidValue);
  *params_out = node->payload.allocation->params;
  return done(scope, cudaSuccess);
}

// Contract: a node that frees dptr, the address of an allocation node of this graph or another.
// An address no allocation node returned (an interior one, cudaMalloc's), NULL, an allocation
// already freed by a node of its own graph, a second free in the same graph, or a free in the
// owner graph after another graph's: cudaErrorInvalidValue.
cudaError_t cudaGraphAddMemFreeNode(cudaGraphNode_t* pGraphNode, cudaGraph_t graph, const cudaGraphNode_t* pDependencies,
                                    size_t numDependencies, void* dptr) {
  trace::Scope scope(trace::Layer::Cudart, "cudaGraphAddMemFreeNode(pGraphNode={}, graph={}, numDependencies={}, dptr={})",
                     static_cast<void*>(pGraphNode), static_cast<void*>(graph), numDependencies, dptr);
  if (cudaError_t e = ensure_context(); e != cudaSuccess) return done(scope, e);
  std::lock_guard lock(mutex());
  Payload p;
  cudaError_t e = live_graph(graph) ? free_payload(graph, dptr, &p) : cudaErrorInvalidValue;
  e = add_node(scope, pGraphNode, graph, pDependencies, numDependencies, e, std::move(p));
  if (e == cudaSuccess) free_node_added(*pGraphNode);
  return e;
}

cudaError_t cudaGraphMemFreeNodeGetParams(cudaGraphNode_t node, void* dptr_out) {
  trace::Scope scope(trace::Layer::Cudart, "cudaGraphMemFreeNodeGetParams(node={})", static_cast<void*>(node));
  std::lock_guard lock(mutex());
  if (!live_node(node) || dptr_out == nullptr || node->payload.type != cudaGraphNodeTypeMemFree)
    return done(scope, cudaErrorInvalidValue);
  *static_cast<void**>(dptr_out) = reinterpret_cast<void*>(node->payload.allocation->range->va);
  return done(scope, cudaSuccess);
}

namespace {
cudaError_t check_device(int device) {
  int count = 0;
  if (cudaError_t e = cudaGetDeviceCount(&count); e != cudaSuccess) return e;
  return device < 0 || device >= count ? cudaErrorInvalidDevice : cudaSuccess;
}
}  // namespace

// Contract: gives the driver back every piece of physical memory of device's graph allocator that
// holds no live allocation and whose last free the GPU has passed (cuMemUnmap, cuMemRelease).
// A device that does not exist: cudaErrorInvalidDevice.
cudaError_t cudaDeviceGraphMemTrim(int device) {
  trace::Scope scope(trace::Layer::Cudart, "cudaDeviceGraphMemTrim(device={})", device);
  if (cudaError_t e = ensure_context(); e != cudaSuccess) return done(scope, e);
  if (cudaError_t e = check_device(device); e != cudaSuccess) return done(scope, e);
  std::lock_guard lock(mutex());
  size_t released = 0;
  for (auto it = chunks().begin(); it != chunks().end();) {
    Chunk& c = **it;
    if (c.device != device || !reusable(c, nullptr) || (c.released && cuEventQuery(c.released) != CUDA_SUCCESS)) {
      ++it;
      continue;
    }
    unmap(c);
    (void)cuMemRelease(c.handle);
    if (c.released != nullptr) (void)cuEventDestroy_v2(c.released);
    released += c.bytes;
    it = chunks().erase(it);
  }
  trace::note(trace::Layer::Cudart, "graph memory: {} B of physical memory back to the driver", released);
  recount(device);
  return done(scope, cudaSuccess);
}

// Contract: *(unsigned long long*)value = the attribute. A device that does not exist:
// cudaErrorInvalidDevice; NULL value or an unknown attribute: cudaErrorInvalidValue.
cudaError_t cudaDeviceGetGraphMemAttribute(int device, cudaGraphMemAttributeType attr, void* value) {
  trace::Scope scope(trace::Layer::Cudart, "cudaDeviceGetGraphMemAttribute(device={}, attr={}, value={})", device,
                     static_cast<int>(attr), value);
  if (cudaError_t e = ensure_context(); e != cudaSuccess) return done(scope, e);
  if (cudaError_t e = check_device(device); e != cudaSuccess) return done(scope, e);
  if (value == nullptr) return done(scope, cudaErrorInvalidValue);
  std::lock_guard lock(mutex());
  const DeviceTotals& t = totals()[device];
  auto* out = static_cast<unsigned long long*>(value);
  switch (attr) {
    case cudaGraphMemAttrUsedMemCurrent: *out = t.used; break;
    case cudaGraphMemAttrUsedMemHigh: *out = t.used_high; break;
    case cudaGraphMemAttrReservedMemCurrent: *out = t.reserved; break;
    case cudaGraphMemAttrReservedMemHigh: *out = t.reserved_high; break;
    default: return done(scope, cudaErrorInvalidValue);
  }
  return done(scope, cudaSuccess);
}

// Contract: resets a high watermark; only the two watermarks and only to 0 (the current value
// then becomes the mark): cudaErrorInvalidValue otherwise.
cudaError_t cudaDeviceSetGraphMemAttribute(int device, cudaGraphMemAttributeType attr, void* value) {
  trace::Scope scope(trace::Layer::Cudart, "cudaDeviceSetGraphMemAttribute(device={}, attr={}, value={})", device,
                     static_cast<int>(attr), value);
  if (cudaError_t e = ensure_context(); e != cudaSuccess) return done(scope, e);
  if (cudaError_t e = check_device(device); e != cudaSuccess) return done(scope, e);
  if (value == nullptr || *static_cast<unsigned long long*>(value) != 0) return done(scope, cudaErrorInvalidValue);
  std::lock_guard lock(mutex());
  DeviceTotals& t = totals()[device];
  if (attr == cudaGraphMemAttrUsedMemHigh) t.used_high = t.used;
  else if (attr == cudaGraphMemAttrReservedMemHigh) t.reserved_high = t.reserved;
  else return done(scope, cudaErrorInvalidValue);
  return done(scope, cudaSuccess);
}
