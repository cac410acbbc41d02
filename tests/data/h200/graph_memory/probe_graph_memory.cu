// Records what CUDA 13 on an H200 answers for graph memory nodes and conditional nodes
// (docs/graphs.md): error codes of misuse, addresses across launches, the graph-memory attributes.
// Each line is "key = value"; error codes are printed as numbers.
#include <cstdint>
#include <cstdio>
#include <cuda_runtime.h>

#define P(key, expr) printf("%s = %d\n", key, static_cast<int>(expr))
#define U(key, val) printf("%s = %llu\n", key, static_cast<unsigned long long>(val))

static void attrs(const char* when) {
  const char* names[4] = {"used", "used_high", "reserved", "reserved_high"};
  for (int a = 0; a < 4; ++a) {
    unsigned long long v = 0;
    cudaError_t e = cudaDeviceGetGraphMemAttribute(0, (cudaGraphMemAttributeType)a, &v);
    printf("attr.%s.%s = %llu (err %d)\n", when, names[a], v, (int)e);
  }
}

static cudaMemAllocNodeParams alloc_params(size_t bytes) {
  cudaMemAllocNodeParams p = {};
  p.bytesize = bytes;
  p.poolProps.allocType = cudaMemAllocationTypePinned;
  p.poolProps.location.type = cudaMemLocationTypeDevice;
  p.poolProps.location.id = 0;
  return p;
}

__global__ void set_cond(cudaGraphConditionalHandle h, unsigned v) { cudaGraphSetConditional(h, v); }
__global__ void bump(int* p) { atomicAdd(p, 1); }

static void host_fn(void*) {}

int main() {
  cudaFree(0);
  cudaStream_t s;
  cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  attrs("start");

  // An allocation never freed: relaunch without AutoFreeOnLaunch.
  {
    cudaGraph_t g; cudaGraphCreate(&g, 0);
    cudaGraphNode_t a; cudaMemAllocNodeParams p = alloc_params(1);
    P("unfreed.add", cudaGraphAddMemAllocNode(&a, g, nullptr, 0, &p));
    printf("unfreed.dptr_mod_2m = %llu\n", (unsigned long long)((uintptr_t)p.dptr % (2u << 20)));
    cudaGraphExec_t e, e2;
    P("unfreed.inst", cudaGraphInstantiate(&e, g, 0));
    P("unfreed.inst_second", cudaGraphInstantiate(&e2, g, 0));
    cudaGraph_t c; P("unfreed.clone", cudaGraphClone(&c, g));
    attrs("unfreed.before_launch");
    P("unfreed.launch1", cudaGraphLaunch(e, s));
    P("unfreed.sync1", cudaStreamSynchronize(s));
    attrs("unfreed.after_launch");
    P("unfreed.launch2", cudaGraphLaunch(e, s));
    P("unfreed.sync2", cudaStreamSynchronize(s));
    P("unfreed.lasterr", cudaGetLastError());
    P("unfreed.free", cudaFree(p.dptr));
    P("unfreed.free_again", cudaFree(p.dptr));
    P("unfreed.lasterr2", cudaGetLastError());
    P("unfreed.launch3", cudaGraphLaunch(e, s));
    P("unfreed.sync3", cudaStreamSynchronize(s));
    P("unfreed.freeasync", cudaFreeAsync(p.dptr, s));
    P("unfreed.freeasync_again", cudaFreeAsync(p.dptr, s));
    P("unfreed.sync4", cudaStreamSynchronize(s));
    P("unfreed.lasterr3", cudaGetLastError());
    attrs("unfreed.after_free");
    P("unfreed.trim", cudaDeviceGraphMemTrim(0));
    attrs("unfreed.after_trim");
    P("unfreed.destroy_exec", cudaGraphExecDestroy(e));
    P("unfreed.inst_after_destroy", cudaGraphInstantiate(&e2, g, 0));
    cudaGraphExecDestroy(e2);
    cudaGraphDestroy(g);
  }
  // AutoFreeOnLaunch: same address each launch.
  {
    cudaGraph_t g; cudaGraphCreate(&g, 0);
    cudaGraphNode_t a; cudaMemAllocNodeParams p = alloc_params(3u << 20);
    cudaGraphAddMemAllocNode(&a, g, nullptr, 0, &p);
    cudaGraphExec_t e;
    P("autofree.inst_devlaunch", cudaGraphInstantiate(&e, g, cudaGraphInstantiateFlagAutoFreeOnLaunch | cudaGraphInstantiateFlagDeviceLaunch));
    P("autofree.inst", cudaGraphInstantiate(&e, g, cudaGraphInstantiateFlagAutoFreeOnLaunch));
    P("autofree.launch1", cudaGraphLaunch(e, s));
    P("autofree.launch2", cudaGraphLaunch(e, s));
    P("autofree.sync", cudaStreamSynchronize(s));
    attrs("autofree.after_launches");
    cudaMemAllocNodeParams q = {};
    P("autofree.getparams", cudaGraphMemAllocNodeGetParams(a, &q));
    printf("autofree.getparams_same = %d %llu\n", (int)(q.dptr == p.dptr), (unsigned long long)q.bytesize);
    P("autofree.destroy_exec", cudaGraphExecDestroy(e));
    attrs("autofree.after_destroy");
    P("autofree.trim", cudaDeviceGraphMemTrim(0));
    attrs("autofree.after_trim");
    cudaGraphDestroy(g);
  }
  // Free nodes: twice in the same graph, an address no allocation node returned, NULL, another graph.
  {
    cudaGraph_t g; cudaGraphCreate(&g, 0);
    cudaGraphNode_t a, f, f2, a2;
    cudaMemAllocNodeParams p = alloc_params(1024);
    cudaGraphAddMemAllocNode(&a, g, nullptr, 0, &p);
    void* d = p.dptr;
    P("free.first", cudaGraphAddMemFreeNode(&f, g, &a, 1, d));
    P("free.twice", cudaGraphAddMemFreeNode(&f2, g, &f, 1, d));
    P("free.interior", cudaGraphAddMemFreeNode(&f2, g, &f, 1, (char*)d + 512));
    void* plain; cudaMalloc(&plain, 1024);
    P("free.cudamalloc_ptr", cudaGraphAddMemFreeNode(&f2, g, &f, 1, plain));
    P("free.null", cudaGraphAddMemFreeNode(&f2, g, &f, 1, nullptr));
    cudaGraph_t other; cudaGraphCreate(&other, 0);
    P("free.other_graph_after_owner_freed", cudaGraphAddMemFreeNode(&f2, other, nullptr, 0, d));
    void* out = nullptr;
    P("free.getparams", cudaGraphMemFreeNodeGetParams(f, &out));
    printf("free.getparams_same = %d\n", (int)(out == d));
    P("free.getparams_wrongtype", cudaGraphMemFreeNodeGetParams(a, &out));
    P("free.alloc_getparams_wrongtype", cudaGraphMemAllocNodeGetParams(f, &p));
    // VA reuse: an allocation after the free of another of the same size.
    cudaMemAllocNodeParams p2 = alloc_params(1024);
    P("free.alloc_after_free", cudaGraphAddMemAllocNode(&a2, g, &f, 1, &p2));
    printf("free.va_reused = %d\n", (int)(p2.dptr == d));
    cudaMemAllocNodeParams p3 = alloc_params(1024);
    cudaGraphNode_t a3;
    cudaGraphAddMemAllocNode(&a3, g, nullptr, 0, &p3);
    printf("free.parallel_offset = %lld\n", (long long)((char*)p3.dptr - (char*)d));
    cudaMemAllocNodeParams bad = alloc_params(0);
    P("alloc.zero_bytes", cudaGraphAddMemAllocNode(&a3, g, nullptr, 0, &bad));
    bad = alloc_params(1024); bad.poolProps.allocType = cudaMemAllocationTypeInvalid;
    P("alloc.bad_type", cudaGraphAddMemAllocNode(&a3, g, nullptr, 0, &bad));
    bad = alloc_params(1024); bad.poolProps.location.id = 7;
    P("alloc.bad_device", cudaGraphAddMemAllocNode(&a3, g, nullptr, 0, &bad));
    P("alloc.null_params", cudaGraphAddMemAllocNode(&a3, g, nullptr, 0, nullptr));
    cudaGraphDestroy(other);
    cudaGraphDestroy(g);
    cudaFree(plain);
  }
  // A free in a second graph of an allocation the first graph did not free.
  {
    cudaGraph_t g, h; cudaGraphCreate(&g, 0); cudaGraphCreate(&h, 0);
    cudaGraphNode_t a, f, f2;
    cudaMemAllocNodeParams p = alloc_params(4096);
    cudaGraphAddMemAllocNode(&a, g, nullptr, 0, &p);
    P("xfree.add", cudaGraphAddMemFreeNode(&f, h, nullptr, 0, p.dptr));
    P("xfree.owner_after_other", cudaGraphAddMemFreeNode(&f2, g, &a, 1, p.dptr));
    cudaGraphExec_t ge, he;
    cudaGraphInstantiate(&ge, g, 0); cudaGraphInstantiate(&he, h, 0);
    P("xfree.free_before_alloc_launch", cudaGraphLaunch(he, s));
    P("xfree.sync0", cudaStreamSynchronize(s));
    P("xfree.lasterr0", cudaGetLastError());
    P("xfree.alloc", cudaGraphLaunch(ge, s));
    P("xfree.free", cudaGraphLaunch(he, s));
    P("xfree.alloc2", cudaGraphLaunch(ge, s));
    P("xfree.sync", cudaStreamSynchronize(s));
    P("xfree.free2", cudaGraphLaunch(he, s));
    P("xfree.sync2", cudaStreamSynchronize(s));
    cudaGraphExecDestroy(he); cudaGraphExecDestroy(ge);
    cudaGraphDestroy(g); cudaGraphDestroy(h);
    cudaDeviceGraphMemTrim(0);
  }
  // Capture of cudaMallocAsync / cudaFreeAsync.
  {
    cudaGraph_t g; void* d = nullptr;
    cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal);
    P("capture.malloc", cudaMallocAsync(&d, 1000, s));
    P("capture.free", cudaFreeAsync(d, s));
    P("capture.free_twice", cudaFreeAsync(d, s));
    P("capture.end", cudaStreamEndCapture(s, &g));
    cudaGraphNode_t nodes[8]; size_t n = 8;
    cudaGraphGetNodes(g, nodes, &n);
    printf("capture.nodes = %zu\n", n);
    for (size_t i = 0; i < n; ++i) { cudaGraphNodeType t; cudaGraphNodeGetType(nodes[i], &t); printf("capture.type%zu = %d\n", i, (int)t); }
    if (g) cudaGraphDestroy(g);
    cudaGetLastError();
  }
  // Attributes: set.
  {
    unsigned long long zero = 0, one = 1;
    P("attr.set_used_high_0", cudaDeviceSetGraphMemAttribute(0, cudaGraphMemAttrUsedMemHigh, &zero));
    P("attr.set_used_high_1", cudaDeviceSetGraphMemAttribute(0, cudaGraphMemAttrUsedMemHigh, &one));
    P("attr.set_reserved_high_0", cudaDeviceSetGraphMemAttribute(0, cudaGraphMemAttrReservedMemHigh, &zero));
    P("attr.set_used_current", cudaDeviceSetGraphMemAttribute(0, cudaGraphMemAttrUsedMemCurrent, &zero));
    P("attr.get_bad", cudaDeviceGetGraphMemAttribute(0, (cudaGraphMemAttributeType)9, &one));
    P("attr.get_baddev", cudaDeviceGetGraphMemAttribute(5, cudaGraphMemAttrUsedMemCurrent, &one));
    P("attr.get_null", cudaDeviceGetGraphMemAttribute(0, cudaGraphMemAttrUsedMemCurrent, nullptr));
    P("attr.trim_baddev", cudaDeviceGraphMemTrim(5));
    cudaGetLastError();
    attrs("end");
  }
  // Conditional nodes: handle and node parameter errors, bodies with illegal nodes.
  {
    cudaGraph_t g; cudaGraphCreate(&g, 0);
    cudaGraphConditionalHandle h;
    P("cond.handle", cudaGraphConditionalHandleCreate(&h, g, 0, 0));
    printf("cond.handle_value = %llu\n", h);
    cudaGraphConditionalHandle h2;
    P("cond.handle2", cudaGraphConditionalHandleCreate(&h2, g, 5, cudaGraphCondAssignDefault));
    printf("cond.handle2_value = %llu\n", h2);
    P("cond.handle_badflags", cudaGraphConditionalHandleCreate(&h2, g, 0, 2));
    P("cond.handle_nullgraph", cudaGraphConditionalHandleCreate(&h2, nullptr, 0, 0));
    P("cond.handle_nullout", cudaGraphConditionalHandleCreate(nullptr, g, 0, 0));
    cudaGraphNode_t n;
    const char* names[] = {"if0", "if1", "if2", "if3", "while0", "while1", "while2", "switch0", "switch1", "switch5"};
    int types[] = {0, 0, 0, 0, 1, 1, 1, 2, 2, 2};
    unsigned sizes[] = {0, 1, 2, 3, 0, 1, 2, 0, 1, 5};
    for (int i = 0; i < 10; ++i) {
      cudaGraph_t gg; cudaGraphCreate(&gg, 0);
      cudaGraphConditionalHandle hh; cudaGraphConditionalHandleCreate(&hh, gg, 0, 0);
      cudaGraphNodeParams c = {cudaGraphNodeTypeConditional};
      c.conditional.handle = hh; c.conditional.type = (cudaGraphConditionalNodeType)types[i]; c.conditional.size = sizes[i];
      char key[64]; snprintf(key, sizeof key, "cond.size.%s", names[i]);
      P(key, cudaGraphAddNode(&n, gg, nullptr, nullptr, 0, &c));
      cudaGraphDestroy(gg);
    }
    // A handle of another graph.
    cudaGraph_t other; cudaGraphCreate(&other, 0);
    cudaGraphNodeParams c = {cudaGraphNodeTypeConditional};
    c.conditional.handle = h; c.conditional.type = cudaGraphCondTypeIf; c.conditional.size = 1;
    P("cond.foreign_handle", cudaGraphAddNode(&n, other, nullptr, nullptr, 0, &c));
    P("cond.bad_type", (c.conditional.type = (cudaGraphConditionalNodeType)7, cudaGraphAddNode(&n, g, nullptr, nullptr, 0, &c)));
    c.conditional.type = cudaGraphCondTypeIf;
    P("cond.add", cudaGraphAddNode(&n, g, nullptr, nullptr, 0, &c));
    cudaGraph_t body = c.conditional.phGraph_out[0];
    cudaGraphNodeType t; cudaGraphNodeGetType(n, &t); printf("cond.type = %d\n", (int)t);
    cudaGraphNode_t bn;
    cudaHostNodeParams hp = {host_fn, nullptr};
    P("cond.body_host", cudaGraphAddHostNode(&bn, body, nullptr, 0, &hp));
    cudaGraphExec_t e;
    P("cond.inst_with_host", cudaGraphInstantiate(&e, g, 0));
    cudaGraphDestroy(other); cudaGraphDestroy(g);
    // Event record in a body; alloc node in a body.
    cudaGraphCreate(&g, 0);
    cudaGraphConditionalHandleCreate(&h, g, 1, cudaGraphCondAssignDefault);
    c = cudaGraphNodeParams{cudaGraphNodeTypeConditional};
    c.conditional.handle = h; c.conditional.type = cudaGraphCondTypeIf; c.conditional.size = 1;
    cudaGraphAddNode(&n, g, nullptr, nullptr, 0, &c);
    body = c.conditional.phGraph_out[0];
    cudaEvent_t ev; cudaEventCreate(&ev);
    P("cond.body_event_record", cudaGraphAddEventRecordNode(&bn, body, nullptr, 0, ev));
    cudaMemAllocNodeParams ap = alloc_params(1024);
    P("cond.body_alloc", cudaGraphAddMemAllocNode(&bn, body, nullptr, 0, &ap));
    P("cond.inst_with_event", cudaGraphInstantiate(&e, g, 0));
    P("cond.clone", cudaGraphClone(&other, g));
    cudaGraphDestroy(g);
    // Values: IF with a default, WHILE counting, SWITCH out of range, set from a kernel.
    int* cnt; cudaMallocManaged(&cnt, sizeof(int)); *cnt = 0;
    cudaGraphCreate(&g, 0);
    cudaGraphConditionalHandleCreate(&h, g, 3, cudaGraphCondAssignDefault);
    c = cudaGraphNodeParams{cudaGraphNodeTypeConditional};
    c.conditional.handle = h; c.conditional.type = cudaGraphCondTypeSwitch; c.conditional.size = 2;
    cudaGraphNode_t sw; cudaGraphAddNode(&sw, g, nullptr, nullptr, 0, &c);
    cudaGraphNodeParams k = {cudaGraphNodeTypeKernel};
    void* args[1] = {&cnt};
    k.kernel.func = (void*)bump; k.kernel.gridDim = dim3(1); k.kernel.blockDim = dim3(1); k.kernel.kernelParams = args;
    cudaGraphAddNode(&bn, c.conditional.phGraph_out[0], nullptr, nullptr, 0, &k);
    cudaGraphAddNode(&bn, c.conditional.phGraph_out[1], nullptr, nullptr, 0, &k);
    P("cond.switch_inst", cudaGraphInstantiate(&e, g, 0));
    P("cond.switch_launch", cudaGraphLaunch(e, s));
    cudaStreamSynchronize(s);
    printf("cond.switch_default3_count = %d\n", *cnt);
    cudaGraphExecDestroy(e); cudaGraphDestroy(g);
    // Without AssignDefault: a handle's value at launch with no kernel setting it.
    cudaGraphCreate(&g, 0);
    cudaGraphConditionalHandleCreate(&h, g, 1, 0);
    c = cudaGraphNodeParams{cudaGraphNodeTypeConditional};
    c.conditional.handle = h; c.conditional.type = cudaGraphCondTypeIf; c.conditional.size = 1;
    cudaGraphAddNode(&sw, g, nullptr, nullptr, 0, &c);
    cudaGraphAddNode(&bn, c.conditional.phGraph_out[0], nullptr, nullptr, 0, &k);
    *cnt = 0;
    cudaGraphInstantiate(&e, g, 0);
    cudaGraphLaunch(e, s); cudaStreamSynchronize(s);
    printf("cond.no_assign_default_count = %d\n", *cnt);
    cudaGraphExecDestroy(e); cudaGraphDestroy(g);
    // Set from a kernel before the node.
    cudaGraphCreate(&g, 0);
    cudaGraphConditionalHandleCreate(&h, g, 0, cudaGraphCondAssignDefault);
    unsigned v = 1;
    void* sargs[2] = {&h, &v};
    cudaGraphNodeParams sk = {cudaGraphNodeTypeKernel};
    sk.kernel.func = (void*)set_cond; sk.kernel.gridDim = dim3(1); sk.kernel.blockDim = dim3(1); sk.kernel.kernelParams = sargs;
    cudaGraphNode_t setter; cudaGraphAddNode(&setter, g, nullptr, nullptr, 0, &sk);
    c = cudaGraphNodeParams{cudaGraphNodeTypeConditional};
    c.conditional.handle = h; c.conditional.type = cudaGraphCondTypeIf; c.conditional.size = 1;
    cudaGraphAddNode(&sw, g, &setter, nullptr, 1, &c);
    cudaGraphAddNode(&bn, c.conditional.phGraph_out[0], nullptr, nullptr, 0, &k);
    *cnt = 0;
    cudaGraphInstantiate(&e, g, 0);
    cudaGraphLaunch(e, s); cudaGraphLaunch(e, s); cudaStreamSynchronize(s);
    printf("cond.kernel_set_count = %d\n", *cnt);
    // cudaGraphSetConditional outside a graph.
    set_cond<<<1, 1, 0, s>>>(h, 1);
    P("cond.set_outside_graph_sync", cudaStreamSynchronize(s));
    P("cond.set_outside_graph_lasterr", cudaGetLastError());
    cudaGraphExecDestroy(e); cudaGraphDestroy(g);
    cudaFree(cnt);
  }
  cudaStreamDestroy(s);
  return 0;
}
