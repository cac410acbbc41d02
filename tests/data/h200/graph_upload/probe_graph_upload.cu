// cudaGraphUpload and NVTX without a tool, on CUDA 13: what the real stack answers. Recorded on
// an H200 into probe_graph_upload.txt; tests/conformance builds it unchanged against minicuda and
// compares every answer.
//
// Build: nvcc -arch=sm_90 -o probe_graph_upload probe_graph_upload.cu
// Each line: key = value; error codes print as "<int> <name>".
#include <cuda_runtime.h>
#include <nvtx3/nvToolsExt.h>

#include <cstdio>
#include <string>

#define RT(key, expr) do { cudaError_t e_ = (expr); printf("%s = %d %s\n", std::string(key).c_str(), (int)e_, cudaGetErrorName(e_)); fflush(stdout); } while (0)
#define VAL(key, fmt, v) do { printf("%s = " fmt "\n", std::string(key).c_str(), v); fflush(stdout); } while (0)

__global__ void add_one(int* p) { p[threadIdx.x] += 1; }

int main() {
  // NVTX with no tool attached (no NVTX_INJECTION64_PATH): the "no tool" answers.
  VAL("nvtx.push", "%d", nvtxRangePushA("outer"));
  VAL("nvtx.push.nested", "%d", nvtxRangePushA("inner"));
  VAL("nvtx.pop", "%d", nvtxRangePop());
  VAL("nvtx.pop.second", "%d", nvtxRangePop());
  VAL("nvtx.pop.extra", "%d", nvtxRangePop());
  VAL("nvtx.start", "%llu", (unsigned long long)nvtxRangeStartA("span"));
  VAL("nvtx.domain", "%d", nvtxDomainCreateA("lib") == nullptr ? 0 : 1);
  VAL("nvtx.attrsize", "%d", (int)NVTX_EVENT_ATTRIB_STRUCT_SIZE);

  int* d = nullptr;
  RT("init", cudaMalloc(&d, 32 * sizeof(int)));
  RT("memset", cudaMemset(d, 0, 32 * sizeof(int)));
  cudaStream_t s, other;
  RT("stream", cudaStreamCreate(&s));
  RT("stream.other", cudaStreamCreate(&other));

  // A graph of one kernel node, captured.
  cudaGraph_t g;
  RT("capture.begin", cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
  add_one<<<1, 32, 0, s>>>(d);
  RT("capture.end", cudaStreamEndCapture(s, &g));
  cudaGraphExec_t e;
  RT("instantiate", cudaGraphInstantiate(&e, g, 0));

  RT("upload.null", cudaGraphUpload(nullptr, s));
  RT("upload", cudaGraphUpload(e, s));
  RT("upload.again", cudaGraphUpload(e, s));
  RT("upload.legacy", cudaGraphUpload(e, 0));
  RT("upload.perthread", cudaGraphUpload(e, cudaStreamPerThread));
  RT("upload.otherstream", cudaGraphUpload(e, other));
  RT("launch", cudaGraphLaunch(e, s));
  RT("upload.after.launch", cudaGraphUpload(e, s));
  RT("launch.again", cudaGraphLaunch(e, other));
  RT("sync", cudaDeviceSynchronize());
  int h[32];
  RT("copy", cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
  VAL("value", "%d", h[31]);  // two launches; uploads run nothing

  // Upload into a capturing stream.
  cudaGraph_t g2;
  RT("capture2.begin", cudaStreamBeginCapture(other, cudaStreamCaptureModeGlobal));
  RT("upload.capturing", cudaGraphUpload(e, other));
  cudaStreamCaptureStatus st;
  RT("capture2.status", cudaStreamIsCapturing(other, &st));
  VAL("capture2.status.value", "%d", (int)st);
  RT("capture2.end", cudaStreamEndCapture(other, &g2));
  RT("capture2.getlast", cudaGetLastError());

  // Instantiation with the upload flag, and with params naming an upload stream.
  cudaGraphExec_t e2 = nullptr;
  RT("instantiate.flagupload", cudaGraphInstantiateWithFlags(&e2, g, cudaGraphInstantiateFlagUpload));
  if (e2 != nullptr) RT("instantiate.flagupload.destroy", cudaGraphExecDestroy(e2));
  e2 = nullptr;
  RT("instantiate.flagupload.plain", cudaGraphInstantiate(&e2, g, cudaGraphInstantiateFlagUpload));
  if (e2 != nullptr) RT("instantiate.flagupload.plain.destroy", cudaGraphExecDestroy(e2));
  e2 = nullptr;
  cudaGraphInstantiateParams ip{};
  ip.flags = cudaGraphInstantiateFlagUpload;
  ip.uploadStream = s;
  RT("instantiate.params.upload", cudaGraphInstantiateWithParams(&e2, g, &ip));
  VAL("instantiate.params.result", "%d", (int)ip.result_out);
  RT("launch.e2", cudaGraphLaunch(e2, s));
  RT("sync2", cudaDeviceSynchronize());
  RT("copy2", cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
  VAL("value2", "%d", h[0]);

  RT("exec.destroy", cudaGraphExecDestroy(e));
  RT("final.getlast", cudaGetLastError());
  return 0;
}
