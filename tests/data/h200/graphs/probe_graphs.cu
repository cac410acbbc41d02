// CUDA graphs probe for CUDA 13: how the real stack answers bad input and illegal calls in the
// graph API and in stream capture. Recorded on an H200 into probe_graphs.txt; tests/conformance
// builds it unchanged against minicuda and compares every answer.
//
// Build: nvcc -arch=sm_90 -o probe_graphs probe_graphs.cu -lcuda
// Each line: key = value; error codes print as "<int> <name>". Handles never print (they differ
// from run to run); a node is named by its creation index in its graph. A question that could
// crash the driver (a destroyed handle) runs in a child process of its own (`probe_graphs iso
// <id>`), so a crash prints "iso.<id>.child = crashed signal=N" instead of ending the probe.
#include <cuda.h>
#include <cuda_runtime.h>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>

#define RT(key, expr) do { cudaError_t e_ = (expr); printf("%s = %d %s\n", std::string(key).c_str(), (int)e_, cudaGetErrorName(e_)); fflush(stdout); } while (0)
#define LAST(key) RT(std::string(key) + ".getlast", cudaGetLastError())
#define VAL(key, fmt, v) do { printf("%s = " fmt "\n", std::string(key).c_str(), v); fflush(stdout); } while (0)

__global__ void add_one(int* p) { p[threadIdx.x] += 1; }
__global__ void times_two(int* p) { p[threadIdx.x] *= 2; }
static void host_fn(void*) {}

static int* g_dev = nullptr;

static cudaKernelNodeParams kparams(void* func, void** args) {
  cudaKernelNodeParams p{};
  p.func = func;
  p.gridDim = dim3(1);
  p.blockDim = dim3(32);
  p.kernelParams = args;
  return p;
}
static cudaMemsetParams msparams(unsigned elem) {
  cudaMemsetParams p{};
  p.dst = g_dev;
  p.value = 7;
  p.elementSize = elem;
  p.width = 8;
  p.height = 1;
  p.pitch = 0;
  return p;
}
// The creation index of n among g's nodes (cudaGraphGetNodes keeps creation order), -1 if absent.
static int index_of(cudaGraph_t g, cudaGraphNode_t n) {
  if (!n) return -1;
  size_t count = 0;
  cudaGraphGetNodes(g, nullptr, &count);
  cudaGraphNode_t nodes[64];
  cudaGraphGetNodes(g, nodes, &count);
  for (size_t i = 0; i < count; ++i) if (nodes[i] == n) return (int)i;
  return -2;
}

// --- questions that run in a child process of their own ----------------------------------------

struct Iso { const char* id; void (*fn)(); };
static Iso g_iso[32];
static int g_iso_count = 0;
struct IsoReg { IsoReg(const char* id, void (*fn)()) { g_iso[g_iso_count++] = Iso{id, fn}; } };
#define ISO(id) static void iso_##id(); static IsoReg iso_reg_##id(#id, iso_##id); static void iso_##id()

static cudaGraphExec_t one_kernel_exec(cudaGraph_t* g_out) {
  cudaGraph_t g; cudaGraphCreate(&g, 0);
  void* args[] = {&g_dev};
  cudaKernelNodeParams kp = kparams((void*)add_one, args);
  cudaGraphNode_t n; cudaGraphAddKernelNode(&n, g, nullptr, 0, &kp);
  cudaGraphExec_t e; cudaGraphInstantiate(&e, g, 0);
  if (g_out) *g_out = g;
  return e;
}
ISO(launch_destroyed_exec) {
  cudaGraphExec_t e = one_kernel_exec(nullptr);
  RT("iso.launch_destroyed_exec.destroy", cudaGraphExecDestroy(e));
  RT("iso.launch_destroyed_exec.launch", cudaGraphLaunch(e, 0)); LAST("iso.launch_destroyed_exec.launch");
  RT("iso.launch_destroyed_exec.sync", cudaDeviceSynchronize());
}
ISO(destroy_exec_twice) {
  cudaGraphExec_t e = one_kernel_exec(nullptr);
  RT("iso.destroy_exec_twice.first", cudaGraphExecDestroy(e));
  RT("iso.destroy_exec_twice.second", cudaGraphExecDestroy(e)); LAST("iso.destroy_exec_twice.second");
}
ISO(destroy_graph_twice) {
  cudaGraph_t g; cudaGraphCreate(&g, 0);
  RT("iso.destroy_graph_twice.first", cudaGraphDestroy(g));
  RT("iso.destroy_graph_twice.second", cudaGraphDestroy(g)); LAST("iso.destroy_graph_twice.second");
}
ISO(add_node_to_destroyed_graph) {
  cudaGraph_t g; cudaGraphCreate(&g, 0);
  cudaGraphDestroy(g);
  cudaGraphNode_t n;
  RT("iso.add_node_to_destroyed_graph", cudaGraphAddEmptyNode(&n, g, nullptr, 0));
}
ISO(launch_exec_of_destroyed_graph) {
  cudaGraph_t g;
  cudaGraphExec_t e = one_kernel_exec(&g);
  cudaMemset(g_dev, 0, 128);
  RT("iso.launch_exec_of_destroyed_graph.destroy_graph", cudaGraphDestroy(g));
  RT("iso.launch_exec_of_destroyed_graph.launch", cudaGraphLaunch(e, 0));
  RT("iso.launch_exec_of_destroyed_graph.sync", cudaDeviceSynchronize());
  int h = -1; cudaMemcpy(&h, g_dev, 4, cudaMemcpyDeviceToHost);
  VAL("iso.launch_exec_of_destroyed_graph.value", "%d", h);
}

// An exec of kernel -> memset -> host, for the parameter calls' NULL arguments.
struct Kmh { cudaGraph_t g; cudaGraphNode_t k, ms, h; cudaGraphExec_t e; };
static Kmh kmh() {
  static void* args[] = {&g_dev};
  cudaKernelNodeParams kp = kparams((void*)add_one, args);
  cudaMemsetParams mp = msparams(4);
  cudaHostNodeParams hp{host_fn, nullptr};
  Kmh r;
  cudaGraphCreate(&r.g, 0);
  cudaGraphAddKernelNode(&r.k, r.g, nullptr, 0, &kp);
  cudaGraphAddMemsetNode(&r.ms, r.g, &r.k, 1, &mp);
  cudaGraphAddHostNode(&r.h, r.g, &r.ms, 1, &hp);
  cudaGraphInstantiate(&r.e, r.g, 0);
  return r;
}
ISO(execKernelSetParams_null_params) {
  Kmh x = kmh();
  RT("iso.execKernelSetParams.null_params", cudaGraphExecKernelNodeSetParams(x.e, x.k, nullptr));
}
ISO(execKernelSetParams_null_exec) {
  Kmh x = kmh();
  static void* args[] = {&g_dev};
  cudaKernelNodeParams kp = kparams((void*)add_one, args);
  RT("iso.execKernelSetParams.null_exec", cudaGraphExecKernelNodeSetParams(nullptr, x.k, &kp));
}
ISO(execKernelSetParams_null_node) {
  Kmh x = kmh();
  static void* args[] = {&g_dev};
  cudaKernelNodeParams kp = kparams((void*)add_one, args);
  RT("iso.execKernelSetParams.null_node", cudaGraphExecKernelNodeSetParams(x.e, nullptr, &kp));
}
ISO(execMemsetSetParams_null_params) {
  Kmh x = kmh();
  RT("iso.execMemsetSetParams.null_params", cudaGraphExecMemsetNodeSetParams(x.e, x.ms, nullptr));
}
ISO(execHostSetParams_null_params) {
  Kmh x = kmh();
  RT("iso.execHostSetParams.null_params", cudaGraphExecHostNodeSetParams(x.e, x.h, nullptr));
}
ISO(kernelSetParams_null_params) {
  Kmh x = kmh();
  RT("iso.kernelSetParams.null_params", cudaGraphKernelNodeSetParams(x.k, nullptr));
}
ISO(update_null_info) {
  Kmh x = kmh();
  RT("iso.update.null_info", cudaGraphExecUpdate(x.e, x.g, nullptr));
}
ISO(update_null_exec) {
  Kmh x = kmh();
  cudaGraphExecUpdateResultInfo info;
  RT("iso.update.null_exec", cudaGraphExecUpdate(nullptr, x.g, &info));
}
ISO(update_null_graph) {
  Kmh x = kmh();
  cudaGraphExecUpdateResultInfo info;
  RT("iso.update.null_graph", cudaGraphExecUpdate(x.e, nullptr, &info));
}
ISO(captureInfo_null_status) {
  cudaStream_t s; cudaStreamCreate(&s);
  unsigned long long id = 0;
  RT("iso.captureInfo.null_status", cudaStreamGetCaptureInfo(s, nullptr, &id));
}
ISO(dot_null_path) {
  Kmh x = kmh();
  RT("iso.dot.null_path", cudaGraphDebugDotPrint(x.g, nullptr, 0));
}

ISO(isCapturing_null) {
  cudaStream_t s; cudaStreamCreate(&s);
  RT("iso.isCapturing.null", cudaStreamIsCapturing(s, nullptr));
}
ISO(endCapture_null_graph) {
  cudaStream_t s; cudaStreamCreate(&s);
  cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal);
  RT("iso.endCapture.null_graph", cudaStreamEndCapture(s, nullptr));
  cudaStreamCaptureStatus st = cudaStreamCaptureStatusNone; cudaStreamIsCapturing(s, &st);
  VAL("iso.endCapture.null_graph.status", "%d", (int)st);
}

static void run_isolated(const char* self) {
  for (int i = 0; i < g_iso_count; ++i) {
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
      execl(self, self, "iso", g_iso[i].id, (char*)nullptr);
      _exit(127);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    if (WIFSIGNALED(status)) printf("iso.%s.child = crashed signal=%d\n", g_iso[i].id, WTERMSIG(status));
    else if (WEXITSTATUS(status) != 0) printf("iso.%s.child = exited %d\n", g_iso[i].id, WEXITSTATUS(status));
  }
}
static int iso_child(const char* id) {
  alarm(20);
  cudaMalloc(&g_dev, 4096);
  for (int i = 0; i < g_iso_count; ++i) {
    if (strcmp(g_iso[i].id, id) == 0) { g_iso[i].fn(); fflush(stdout); return 0; }
  }
  printf("iso.unknown = %s\n", id);
  return 0;
}

// --- the explicit API: NULL arguments, bad edges, wrong node types -----------------------------

static void explicit_api() {
  void* args[] = {&g_dev};
  cudaKernelNodeParams kp = kparams((void*)add_one, args);
  cudaMemsetParams mp = msparams(4);
  cudaHostNodeParams hp{host_fn, nullptr};
  cudaGraph_t g; cudaGraphNode_t n = nullptr;

  RT("graph.create.null", cudaGraphCreate(nullptr, 0));
  RT("graph.create.flags1", cudaGraphCreate(&g, 1));
  RT("graph.create", cudaGraphCreate(&g, 0));
  RT("graph.addEmpty.null_out", cudaGraphAddEmptyNode(nullptr, g, nullptr, 0));
  RT("graph.addEmpty.null_graph", cudaGraphAddEmptyNode(&n, nullptr, nullptr, 0));
  RT("graph.addEmpty.null_deps_n1", cudaGraphAddEmptyNode(&n, g, nullptr, 1));
  RT("graph.addKernel.null_params", cudaGraphAddKernelNode(&n, g, nullptr, 0, nullptr));
  cudaKernelNodeParams bad = kp; bad.func = nullptr;
  RT("graph.addKernel.null_func", cudaGraphAddKernelNode(&n, g, nullptr, 0, &bad));
  bad = kp; bad.blockDim = dim3(2048);
  RT("graph.addKernel.block2048", cudaGraphAddKernelNode(&n, g, nullptr, 0, &bad));
  bad = kp; bad.blockDim = dim3(0);
  RT("graph.addKernel.block0", cudaGraphAddKernelNode(&n, g, nullptr, 0, &bad));
  bad = kp; bad.func = (void*)host_fn;
  RT("graph.addKernel.host_function", cudaGraphAddKernelNode(&n, g, nullptr, 0, &bad));
  RT("graph.addMemset.null_params", cudaGraphAddMemsetNode(&n, g, nullptr, 0, nullptr));
  cudaMemsetParams m3 = msparams(3);
  RT("graph.addMemset.elem3", cudaGraphAddMemsetNode(&n, g, nullptr, 0, &m3));
  cudaMemsetParams m2 = msparams(2);
  RT("graph.addMemset.elem2", cudaGraphAddMemsetNode(&n, g, nullptr, 0, &m2));
  cudaMemsetParams m0 = msparams(4); m0.dst = nullptr;
  RT("graph.addMemset.null_dst", cudaGraphAddMemsetNode(&n, g, nullptr, 0, &m0));
  RT("graph.addHost.null_params", cudaGraphAddHostNode(&n, g, nullptr, 0, nullptr));
  cudaHostNodeParams h0{nullptr, nullptr};
  RT("graph.addHost.null_fn", cudaGraphAddHostNode(&n, g, nullptr, 0, &h0));
  RT("graph.addMemcpy1D.null_dst", cudaGraphAddMemcpyNode1D(&n, g, nullptr, 0, nullptr, g_dev, 16, cudaMemcpyDeviceToDevice));
  RT("graph.addEventRecord.null_event", cudaGraphAddEventRecordNode(&n, g, nullptr, 0, nullptr));
  RT("graph.addChild.null_child", cudaGraphAddChildGraphNode(&n, g, nullptr, 0, nullptr));
  cudaGraphDestroy(g);

  // Edges: duplicates, self, a cycle, nodes of another graph, missing edges.
  cudaGraphCreate(&g, 0);
  cudaGraphNode_t a, b, c;
  cudaGraphAddKernelNode(&a, g, nullptr, 0, &kp);
  cudaGraphAddKernelNode(&b, g, &a, 1, &kp);
  cudaGraphAddEmptyNode(&c, g, &b, 1);
  RT("graph.addDeps.duplicate", cudaGraphAddDependencies(g, &a, &b, nullptr, 1));
  RT("graph.addDeps.self", cudaGraphAddDependencies(g, &a, &a, nullptr, 1));
  RT("graph.addDeps.null_from", cudaGraphAddDependencies(g, nullptr, &a, nullptr, 1));
  RT("graph.addDeps.zero", cudaGraphAddDependencies(g, nullptr, nullptr, nullptr, 0));
  RT("graph.addDeps.null_graph", cudaGraphAddDependencies(nullptr, &a, &c, nullptr, 1));
  cudaGraph_t other; cudaGraphCreate(&other, 0);
  cudaGraphNode_t o; cudaGraphAddEmptyNode(&o, other, nullptr, 0);
  RT("graph.addDeps.other_graph", cudaGraphAddDependencies(g, &a, &o, nullptr, 1));
  RT("graph.addEmpty.dep_of_other_graph", cudaGraphAddEmptyNode(&n, g, &o, 1));
  RT("graph.removeDeps.missing", cudaGraphRemoveDependencies(g, &a, &c, nullptr, 1));
  RT("graph.addDeps.cycle", cudaGraphAddDependencies(g, &c, &a, nullptr, 1)); LAST("graph.addDeps.cycle");
  size_t edges = 0; cudaGraphGetEdges(g, nullptr, nullptr, nullptr, &edges);
  VAL("graph.addDeps.cycle.edges", "%zu", edges);
  cudaGraphExec_t e = nullptr;
  RT("graph.instantiate.cycle", cudaGraphInstantiate(&e, g, 0)); LAST("graph.instantiate.cycle");
  VAL("graph.instantiate.cycle.exec_is_null", "%d", (int)(e == nullptr));
  cudaGraphDestroy(g); cudaGraphDestroy(other);

  // Instantiate and launch with bad arguments.
  cudaGraphCreate(&g, 0);
  cudaGraphNode_t k, ms, h;
  cudaGraphAddKernelNode(&k, g, nullptr, 0, &kp);
  cudaGraphAddMemsetNode(&ms, g, &k, 1, &mp);
  cudaGraphAddHostNode(&h, g, &ms, 1, &hp);
  RT("graph.instantiate.null_out", cudaGraphInstantiate(nullptr, g, 0));
  RT("graph.instantiate.null_graph", cudaGraphInstantiate(&e, nullptr, 0));
  RT("graph.instantiate.flags_bad", cudaGraphInstantiate(&e, g, 1ull << 10));
  RT("graph.instantiateWithFlags.flags_bad", cudaGraphInstantiateWithFlags(&e, g, 1ull << 10));
  RT("graph.instantiate", cudaGraphInstantiate(&e, g, 0));
  RT("graph.launch.null_exec", cudaGraphLaunch(nullptr, 0)); LAST("graph.launch.null_exec");
  RT("graph.launch", cudaGraphLaunch(e, 0));
  RT("graph.launch.sync", cudaDeviceSynchronize());
  RT("graph.destroy.null", cudaGraphDestroy(nullptr));
  RT("graph.execDestroy.null", cudaGraphExecDestroy(nullptr));

  // Nodes of the wrong type for the parameter calls.
  cudaKernelNodeParams got{};
  RT("graph.kernelGetParams.memset_node", cudaGraphKernelNodeGetParams(ms, &got));
  RT("graph.kernelGetParams.null_out", cudaGraphKernelNodeGetParams(k, nullptr));
  RT("graph.kernelSetParams.memset_node", cudaGraphKernelNodeSetParams(ms, &kp));
  RT("graph.execKernelSetParams.memset_node", cudaGraphExecKernelNodeSetParams(e, ms, &kp));
  RT("graph.execKernelSetParams.host_node", cudaGraphExecKernelNodeSetParams(e, h, &kp));
  cudaKernelNodeParams kp2 = kparams((void*)times_two, args);
  RT("graph.execKernelSetParams.other_function", cudaGraphExecKernelNodeSetParams(e, k, &kp2));
  cudaKernelNodeParams kp3 = kp; kp3.gridDim = dim3(2);
  RT("graph.execKernelSetParams.other_grid", cudaGraphExecKernelNodeSetParams(e, k, &kp3));
  RT("graph.execMemsetSetParams.kernel_node", cudaGraphExecMemsetNodeSetParams(e, k, &mp));
  RT("graph.execMemsetSetParams.elem2", cudaGraphExecMemsetNodeSetParams(e, ms, &m2));
  RT("graph.execHostSetParams.kernel_node", cudaGraphExecHostNodeSetParams(e, k, &hp));
  RT("graph.execHostSetParams.null_fn", cudaGraphExecHostNodeSetParams(e, h, &h0));
  RT("graph.execMemcpy1DSetParams.kernel_node", cudaGraphExecMemcpyNodeSetParams1D(e, k, g_dev, g_dev + 64, 16, cudaMemcpyDeviceToDevice));
  cudaGraph_t g2; cudaGraphCreate(&g2, 0);
  cudaGraphNode_t k2; cudaGraphAddKernelNode(&k2, g2, nullptr, 0, &kp);
  RT("graph.execKernelSetParams.node_not_in_exec", cudaGraphExecKernelNodeSetParams(e, k2, &kp));
  cudaGraphExecDestroy(e);
  cudaGraphDestroy(g2);
  cudaGraphDestroy(g);
}

// --- cudaGraphExecUpdate: which changes it refuses, and the result info ------------------------

static void update_case(const char* name, cudaGraphExec_t e, cudaGraph_t g) {
  cudaGraphExecUpdateResultInfo info;
  memset(&info, 0xab, sizeof info);
  std::string key = std::string("update.") + name;
  RT(key, cudaGraphExecUpdate(e, g, &info)); LAST(key);
  VAL(key + ".result", "%d", (int)info.result);
  VAL(key + ".errorNode", "%d", index_of(g, info.errorNode));
  VAL(key + ".errorFromNode", "%d", index_of(g, info.errorFromNode));
}

// A chain kernel(add_one) -> memset -> kernel(add_one); variant changes one thing.
static cudaGraph_t chain(const char* variant) {
  void* args[] = {&g_dev};
  cudaKernelNodeParams kp = kparams((void*)add_one, args);
  cudaKernelNodeParams kt = kparams((void*)times_two, args);
  cudaMemsetParams mp = msparams(4);
  cudaGraph_t g; cudaGraphCreate(&g, 0);
  cudaGraphNode_t a, b, c;
  auto is = [&](const char* s) { return strcmp(variant, s) == 0; };
  if (is("params")) kp.gridDim = dim3(1), mp.value = 9;
  cudaGraphAddKernelNode(&a, g, nullptr, 0, &kp);
  if (is("type")) cudaGraphAddEmptyNode(&b, g, &a, 1);
  else cudaGraphAddMemsetNode(&b, g, is("nodep") ? nullptr : &a, is("nodep") ? 0 : 1, &mp);
  if (is("function")) cudaGraphAddKernelNode(&c, g, &b, 1, &kt);
  else if (is("fewer")) return g;
  else cudaGraphAddKernelNode(&c, g, &b, 1, &kp);
  if (is("more")) { cudaGraphNode_t d; cudaGraphAddEmptyNode(&d, g, &c, 1); }
  if (is("extra_edge")) cudaGraphAddDependencies(g, &a, &c, nullptr, 1);
  return g;
}

static void exec_update() {
  cudaGraph_t base = chain("");
  cudaGraphExec_t e; cudaGraphInstantiate(&e, base, 0);
  const char* variants[] = {"params", "type", "function", "fewer", "more", "extra_edge", "nodep"};
  for (const char* v : variants) {
    cudaGraph_t g = chain(v);
    update_case(v, e, g);
    cudaGraphDestroy(g);
  }
  // After a failed update the exec still runs what it held.
  cudaMemset(g_dev, 0, 128);
  RT("update.after_failure.launch", cudaGraphLaunch(e, 0));
  cudaDeviceSynchronize();
  int hv[2] = {0, 0}; cudaMemcpy(hv, g_dev, 8, cudaMemcpyDeviceToHost);
  VAL("update.after_failure.value", "%d", hv[0]);
  cudaGraphExecDestroy(e);
  cudaGraphDestroy(base);
}

// --- stream capture: the calls each mode forbids, and what they do to the capture --------------

enum Op { kMalloc, kFree, kMallocHost, kMemcpySync, kMemsetSync, kDeviceSync, kStreamSync, kStreamQuery,
          kEventSync, kEventQuery, kLegacyLaunch, kOtherStreamSync, kOtherThreadMallocGlobal,
          kOtherThreadMallocRelaxed, kMemGetInfo, kOpCount };
static const char* kOpName[] = {"malloc", "free", "mallocHost", "memcpySync", "memsetSync", "deviceSync",
                                "streamSync", "streamQuery", "eventSync", "eventQuery", "legacyLaunch",
                                "otherStreamSync", "otherThreadMallocGlobal", "otherThreadMallocRelaxed",
                                "memGetInfo"};
static const char* kModeName[] = {"global", "threadLocal", "relaxed"};

static cudaError_t do_op(Op op, cudaStream_t s, cudaStream_t other, cudaEvent_t ev, void* freeable) {
  void* p = nullptr;
  static int host[16];
  switch (op) {
    case kMalloc: return cudaMalloc(&p, 256);
    case kFree: return cudaFree(freeable);
    case kMallocHost: return cudaMallocHost(&p, 256);
    case kMemcpySync: return cudaMemcpy(g_dev, host, 16, cudaMemcpyHostToDevice);
    case kMemsetSync: return cudaMemset(g_dev, 0, 16);
    case kDeviceSync: return cudaDeviceSynchronize();
    case kStreamSync: return cudaStreamSynchronize(s);
    case kStreamQuery: return cudaStreamQuery(s);
    case kEventSync: return cudaEventSynchronize(ev);
    case kEventQuery: return cudaEventQuery(ev);
    case kLegacyLaunch: add_one<<<1, 32>>>(g_dev); return cudaGetLastError();
    case kOtherStreamSync: return cudaStreamSynchronize(other);
    case kOtherThreadMallocGlobal:
    case kOtherThreadMallocRelaxed: {
      cudaError_t r = cudaSuccess;
      std::thread t([&] {
        cudaStreamCaptureMode m = op == kOtherThreadMallocRelaxed ? cudaStreamCaptureModeRelaxed
                                                                  : cudaStreamCaptureModeGlobal;
        cudaThreadExchangeStreamCaptureMode(&m);
        r = cudaMalloc(&p, 256);
      });
      t.join();
      return r;
    }
    case kMemGetInfo: { size_t f, t; return cudaMemGetInfo(&f, &t); }
    default: return cudaErrorUnknown;
  }
}

static void capture_modes() {
  cudaStream_t other; cudaStreamCreateWithFlags(&other, cudaStreamNonBlocking);
  for (int mode = 0; mode < 3; ++mode) {
    for (int op = 0; op < kOpCount; ++op) {
      std::string key = std::string("capture.") + kModeName[mode] + "." + kOpName[op];
      cudaStream_t s; cudaStreamCreate(&s);  // a blocking stream: it syncs with the legacy stream
      cudaEvent_t ev; cudaEventCreate(&ev);
      void* freeable = nullptr; cudaMalloc(&freeable, 256);
      cudaDeviceSynchronize();
      cudaGetLastError();
      RT(key + ".begin", cudaStreamBeginCapture(s, (cudaStreamCaptureMode)mode));
      add_one<<<1, 32, 0, s>>>(g_dev);
      cudaEventRecord(ev, s);
      RT(key + ".call", do_op((Op)op, s, other, ev, freeable)); LAST(key + ".call");
      cudaStreamCaptureStatus st = cudaStreamCaptureStatusNone;
      RT(key + ".isCapturing", cudaStreamIsCapturing(s, &st));
      VAL(key + ".status", "%d", (int)st);
      add_one<<<1, 32, 0, s>>>(g_dev);
      RT(key + ".launchAfter", cudaGetLastError());
      cudaGraph_t graph = (cudaGraph_t)0x1;
      RT(key + ".end", cudaStreamEndCapture(s, &graph)); LAST(key + ".end");
      VAL(key + ".graph_is_null", "%d", (int)(graph == nullptr));
      size_t nodes = 0;
      if (graph && graph != (cudaGraph_t)0x1) { cudaGraphGetNodes(graph, nullptr, &nodes); cudaGraphDestroy(graph); }
      VAL(key + ".nodes", "%zu", nodes);
      st = cudaStreamCaptureStatusActive;
      cudaStreamIsCapturing(s, &st);
      VAL(key + ".statusAfterEnd", "%d", (int)st);
      RT(key + ".deviceSyncAfter", cudaDeviceSynchronize()); LAST(key + ".deviceSyncAfter");
      if (op != kFree) cudaFree(freeable);
      cudaEventDestroy(ev);
      cudaStreamDestroy(s);
    }
  }
  cudaStreamDestroy(other);
}

// --- capture state: begin/end errors, fork/join, the legacy stream -----------------------------

static void capture_state() {
  cudaStream_t s, s2; cudaStreamCreate(&s); cudaStreamCreate(&s2);
  cudaEvent_t ev; cudaEventCreate(&ev);
  cudaGraph_t g = nullptr;
  cudaStreamCaptureStatus st;

  RT("state.begin.legacy", cudaStreamBeginCapture(0, cudaStreamCaptureModeGlobal)); LAST("state.begin.legacy");
  RT("state.begin.perThread", cudaStreamBeginCapture(cudaStreamPerThread, cudaStreamCaptureModeGlobal));
  st = cudaStreamCaptureStatusNone; cudaStreamIsCapturing(cudaStreamPerThread, &st);
  VAL("state.begin.perThread.status", "%d", (int)st);
  g = nullptr;
  RT("state.begin.perThread.end", cudaStreamEndCapture(cudaStreamPerThread, &g));
  if (g) cudaGraphDestroy(g);
  RT("state.begin.badMode", cudaStreamBeginCapture(s, (cudaStreamCaptureMode)7));
  RT("state.end.notCapturing", cudaStreamEndCapture(s, &g)); LAST("state.end.notCapturing");

  cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal);
  RT("state.begin.twice", cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal)); LAST("state.begin.twice");
  st = cudaStreamCaptureStatusNone; cudaStreamIsCapturing(s, &st);
  VAL("state.begin.twice.status", "%d", (int)st);
  g = nullptr;
  RT("state.begin.twice.end", cudaStreamEndCapture(s, &g));
  VAL("state.begin.twice.graph_is_null", "%d", (int)(g == nullptr));
  if (g) cudaGraphDestroy(g);

  // The legacy stream while a blocking stream captures.
  cudaStreamBeginCapture(s, cudaStreamCaptureModeRelaxed);
  st = cudaStreamCaptureStatusNone;
  RT("state.legacy.isCapturing", cudaStreamIsCapturing(0, &st));
  VAL("state.legacy.isCapturing.status", "%d", (int)st);
  RT("state.legacy.query", cudaStreamQuery(0));
  st = cudaStreamCaptureStatusNone; cudaStreamIsCapturing(s, &st);
  VAL("state.legacy.query.captureStatus", "%d", (int)st);
  g = nullptr;
  RT("state.legacy.end", cudaStreamEndCapture(s, &g));
  if (g) cudaGraphDestroy(g);
  cudaGetLastError();

  // Fork to s2, end in s2 (unmatched), then end in s with s2 unjoined.
  cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal);
  add_one<<<1, 32, 0, s>>>(g_dev);
  cudaEventRecord(ev, s);
  RT("state.fork.wait", cudaStreamWaitEvent(s2, ev, 0));
  add_one<<<1, 32, 0, s2>>>(g_dev);
  g = nullptr;
  RT("state.fork.end_in_joined", cudaStreamEndCapture(s2, &g)); LAST("state.fork.end_in_joined");
  st = cudaStreamCaptureStatusNone; cudaStreamIsCapturing(s, &st);
  VAL("state.fork.end_in_joined.origin_status", "%d", (int)st);
  st = cudaStreamCaptureStatusNone; cudaStreamIsCapturing(s2, &st);
  VAL("state.fork.end_in_joined.joined_status", "%d", (int)st);
  g = nullptr;
  RT("state.fork.end_unjoined", cudaStreamEndCapture(s, &g)); LAST("state.fork.end_unjoined");
  VAL("state.fork.end_unjoined.graph_is_null", "%d", (int)(g == nullptr));
  st = cudaStreamCaptureStatusNone; cudaStreamIsCapturing(s2, &st);
  VAL("state.fork.end_unjoined.joined_status", "%d", (int)st);
  if (g) cudaGraphDestroy(g);
  cudaDeviceSynchronize(); cudaGetLastError();

  // Waiting on an event recorded outside the capture.
  cudaEventRecord(ev, s2);
  cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal);
  RT("state.wait.outside_event", cudaStreamWaitEvent(s, ev, 0)); LAST("state.wait.outside_event");
  st = cudaStreamCaptureStatusNone; cudaStreamIsCapturing(s, &st);
  VAL("state.wait.outside_event.status", "%d", (int)st);
  g = nullptr;
  RT("state.wait.outside_event.end", cudaStreamEndCapture(s, &g));
  if (g) cudaGraphDestroy(g);
  cudaDeviceSynchronize(); cudaGetLastError();

  // An event recorded in a capture, then used outside it.
  cudaStreamBeginCapture(s, cudaStreamCaptureModeRelaxed);
  add_one<<<1, 32, 0, s>>>(g_dev);
  cudaEventRecord(ev, s);
  g = nullptr; cudaStreamEndCapture(s, &g);
  RT("state.capturedEvent.query", cudaEventQuery(ev));
  RT("state.capturedEvent.sync", cudaEventSynchronize(ev));
  RT("state.capturedEvent.wait", cudaStreamWaitEvent(s2, ev, 0)); LAST("state.capturedEvent.wait");
  if (g) cudaGraphDestroy(g);
  cudaDeviceSynchronize(); cudaGetLastError();

  // A graph launched into a capturing stream.
  cudaGraph_t inner; cudaGraphExec_t ie = one_kernel_exec(&inner);
  cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal);
  RT("state.launchInCapture", cudaGraphLaunch(ie, s));
  g = nullptr;
  RT("state.launchInCapture.end", cudaStreamEndCapture(s, &g));
  size_t n = 0;
  if (g) { cudaGraphGetNodes(g, nullptr, &n); }
  VAL("state.launchInCapture.nodes", "%zu", n);
  if (n == 1) {
    cudaGraphNode_t node; cudaGraphGetNodes(g, &node, &n);
    cudaGraphNodeType t; cudaGraphNodeGetType(node, &t);
    VAL("state.launchInCapture.type", "%d", (int)t);
  }
  if (g) cudaGraphDestroy(g);
  cudaGraphExecDestroy(ie); cudaGraphDestroy(inner);

  cudaEventDestroy(ev);
  cudaStreamDestroy(s2); cudaStreamDestroy(s);
}

// --- cudaStreamGetCaptureInfo ------------------------------------------------------------------

static void capture_info() {
  cudaStream_t s, s2; cudaStreamCreate(&s); cudaStreamCreate(&s2);
  cudaStreamCaptureStatus st = (cudaStreamCaptureStatus)9;
  unsigned long long id = 77, id2 = 0;
  cudaGraph_t g = (cudaGraph_t)0x1;
  const cudaGraphNode_t* deps = (const cudaGraphNode_t*)0x1;
  const cudaGraphEdgeData* edata = (const cudaGraphEdgeData*)0x1;
  size_t nd = 99;
  RT("info.idle", cudaStreamGetCaptureInfo(s, &st, &id, &g, &deps, &edata, &nd));
  VAL("info.idle.status", "%d", (int)st);
  VAL("info.idle.id", "%llu", id);
  VAL("info.idle.graph_untouched", "%d", (int)(g == (cudaGraph_t)0x1));
  VAL("info.idle.graph_is_null", "%d", (int)(g == nullptr));
  VAL("info.idle.deps_untouched", "%d", (int)(deps == (const cudaGraphNode_t*)0x1));
  VAL("info.idle.numDeps", "%zu", nd);
  RT("info.legacy", cudaStreamGetCaptureInfo(0, &st));
  VAL("info.legacy.status", "%d", (int)st);

  cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal);
  RT("info.empty", cudaStreamGetCaptureInfo(s, &st, &id, &g, &deps, &edata, &nd));
  VAL("info.empty.status", "%d", (int)st);
  VAL("info.empty.id_nonzero", "%d", (int)(id != 0 && id != 77));
  VAL("info.empty.numDeps", "%zu", nd);
  VAL("info.empty.graph_is_null", "%d", (int)(g == nullptr));
  add_one<<<1, 32, 0, s>>>(g_dev);
  add_one<<<1, 32, 0, s>>>(g_dev);
  cudaGraph_t g1 = nullptr;
  RT("info.chain", cudaStreamGetCaptureInfo(s, &st, &id2, &g1, &deps, &edata, &nd));
  VAL("info.chain.same_id", "%d", (int)(id2 == id));
  VAL("info.chain.numDeps", "%zu", nd);
  VAL("info.chain.edgeData_is_null", "%d", (int)(edata == nullptr));
  size_t count = 0;
  if (g1) cudaGraphGetNodes(g1, nullptr, &count);
  VAL("info.chain.graph_nodes", "%zu", count);
  VAL("info.chain.dep_index", "%d", (g1 && nd == 1) ? index_of(g1, deps[0]) : -9);
  cudaEvent_t ev; cudaEventCreate(&ev);
  cudaEventRecord(ev, s);
  cudaStreamWaitEvent(s2, ev, 0);
  unsigned long long id3 = 0;
  RT("info.joined", cudaStreamGetCaptureInfo(s2, &st, &id3, nullptr, nullptr, nullptr, &nd));
  VAL("info.joined.status", "%d", (int)st);
  VAL("info.joined.same_id", "%d", (int)(id3 == id));
  VAL("info.joined.numDeps", "%zu", nd);
  cudaEventRecord(ev, s2);
  cudaStreamWaitEvent(s, ev, 0);
  cudaGraph_t out = nullptr;
  RT("info.end", cudaStreamEndCapture(s, &out));
  VAL("info.end.same_graph", "%d", (int)(out == g1));
  if (out) cudaGraphDestroy(out);
  cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal);
  unsigned long long id4 = 0;
  cudaStreamGetCaptureInfo(s, &st, &id4);
  VAL("info.next.id_increases", "%d", (int)(id4 > id));
  void* p = nullptr;
  cudaMalloc(&p, 16);  // invalidates a Global capture
  RT("info.invalidated", cudaStreamGetCaptureInfo(s, &st, &id3, &g, nullptr, nullptr, &nd));
  VAL("info.invalidated.status", "%d", (int)st);
  VAL("info.invalidated.same_id", "%d", (int)(id3 == id4));
  out = nullptr;
  cudaStreamEndCapture(s, &out);
  cudaGetLastError();
  cudaEventDestroy(ev);
  cudaStreamDestroy(s2); cudaStreamDestroy(s);
}

// --- cudaGraphDebugDotPrint --------------------------------------------------------------------

static void dot_print() {
  void* args[] = {&g_dev};
  cudaKernelNodeParams kp = kparams((void*)add_one, args);
  cudaMemsetParams mp = msparams(4);
  cudaGraph_t g; cudaGraphCreate(&g, 0);
  cudaGraphNode_t k, ms;
  cudaGraphAddKernelNode(&k, g, nullptr, 0, &kp);
  cudaGraphAddMemsetNode(&ms, g, &k, 1, &mp);
  const char* path = "/tmp/probe_graphs.dot";
  RT("dot.null_graph", cudaGraphDebugDotPrint(nullptr, path, 0));
  RT("dot.unwritable", cudaGraphDebugDotPrint(g, "/nonexistent_dir/x.dot", 0)); LAST("dot.unwritable");
  RT("dot.unknown_flag", cudaGraphDebugDotPrint(g, path, 1u << 20));
  unsigned flags[] = {0, cudaGraphDebugDotFlagsVerbose, cudaGraphDebugDotFlagsKernelNodeParams,
                      cudaGraphDebugDotFlagsMemsetNodeParams, cudaGraphDebugDotFlagsHandles};
  for (unsigned f : flags) {
    std::string key = "dot.flags" + std::to_string(f);
    RT(key, cudaGraphDebugDotPrint(g, path, f));
    FILE* fp = fopen(path, "r");
    if (!fp) { VAL(key + ".file", "%s", "missing"); continue; }
    char line[4096];
    int i = 0;
    while (fgets(line, sizeof line, fp)) {
      line[strcspn(line, "\n")] = 0;
      printf("%s.line%03d = %s\n", key.c_str(), i++, line);
    }
    fclose(fp);
    VAL(key + ".lines", "%d", i);
  }
  cudaGraphDestroy(g);
}

int main(int argc, char** argv) {
  if (argc > 2 && strcmp(argv[1], "iso") == 0) return iso_child(argv[2]);
  RT("init", cudaMalloc(&g_dev, 4096));
  explicit_api();
  exec_update();
  capture_modes();
  capture_state();
  capture_info();
  dot_print();
  fflush(stdout);
  run_isolated(argv[0]);
  return 0;
}
