// probe_vmm.cu: what the virtual memory management API (cuMemCreate, cuMemAddressReserve,
// cuMemMap, cuMemSetAccess, ...) does on a real H200, in three modes:
//   probe_vmm trace        the normal flow, one "==== step" marker per call, run under the ioctl
//                          sniffer so the RM/UVM calls of each step can be read off
//   probe_vmm errors       the CUresult of each bad input (printed as number and name)
//   probe_vmm fault CASE   one device access that may fault (one process per case, since a
//                          fault ends the context): noaccess, readonly_write, after_unmap,
//                          after_release_mapped, readonly_read, memcpy_noaccess
//   probe_vmm bogus CASE   a call given a dead or made-up handle: map, props, release,
//                          double_release, map_released
// Everything goes to stderr so it interleaves with the sniffer's lines in order.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <unistd.h>
#include <cuda.h>
#include <cuda_runtime.h>

__global__ void write_one(int* p, int v) { *p = v; }
__global__ void read_one(const int* p, int* out) { *out = *p; }

static void step(const char* s) { std::fprintf(stderr, "\n==== step: %s ====\n", s); }
static const char* nm(CUresult r) { const char* s = nullptr; cuGetErrorName(r, &s); return s ? s : "?"; }
#define SHOW(call) do { CUresult r_ = (call); std::fprintf(stderr, "%s -> %d %s\n", #call, (int)r_, nm(r_)); } while (0)
#define SHOWR(label, call) do { CUresult r_ = (call); std::fprintf(stderr, "%s -> %d %s\n", label, (int)r_, nm(r_)); } while (0)

static CUmemAllocationProp device_prop(int dev) {
  CUmemAllocationProp p;
  std::memset(&p, 0, sizeof p);
  p.type = CU_MEM_ALLOCATION_TYPE_PINNED;
  p.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  p.location.id = dev;
  return p;
}
static CUmemAccessDesc rw(int dev, CUmemAccess_flags f = CU_MEM_ACCESS_FLAGS_PROT_READWRITE) {
  CUmemAccessDesc d;
  d.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  d.location.id = dev;
  d.flags = f;
  return d;
}
static void print_prop(const char* label, const CUmemAllocationProp& p) {
  std::fprintf(stderr, "%s: type=%d handleTypes=%d loc.type=%d loc.id=%d win32=%p comp=%d rdma=%d usage=%d\n",
               label, (int)p.type, (int)p.requestedHandleTypes, (int)p.location.type, p.location.id,
               p.win32HandleMetaData, (int)p.allocFlags.compressionType, (int)p.allocFlags.gpuDirectRDMACapable,
               (int)p.allocFlags.usage);
}
static int device_read(CUdeviceptr p, int* result) {
  int* out = nullptr;
  cudaMalloc(&out, sizeof(int));
  read_one<<<1, 1>>>((const int*)p, out);
  cudaError_t e = cudaDeviceSynchronize();
  if (e == cudaSuccess) cudaMemcpy(result, out, sizeof(int), cudaMemcpyDeviceToHost);
  cudaFree(out);
  return (int)e;
}
static void ptr_attrs(const char* label, CUdeviceptr p) {
  static const CUpointer_attribute attrs[] = {
      CU_POINTER_ATTRIBUTE_MEMORY_TYPE, CU_POINTER_ATTRIBUTE_RANGE_START_ADDR, CU_POINTER_ATTRIBUTE_RANGE_SIZE,
      CU_POINTER_ATTRIBUTE_MAPPED, CU_POINTER_ATTRIBUTE_ALLOWED_HANDLE_TYPES,
      CU_POINTER_ATTRIBUTE_IS_GPU_DIRECT_RDMA_CAPABLE, CU_POINTER_ATTRIBUTE_ACCESS_FLAGS,
      CU_POINTER_ATTRIBUTE_MAPPING_SIZE, CU_POINTER_ATTRIBUTE_MAPPING_BASE_ADDR,
      CU_POINTER_ATTRIBUTE_IS_LEGACY_CUDA_IPC_CAPABLE, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL,
      CU_POINTER_ATTRIBUTE_IS_MANAGED};
  for (CUpointer_attribute a : attrs) {
    unsigned long long v = 0;
    CUresult r = cuPointerGetAttribute(&v, a, p);
    std::fprintf(stderr, "%s attr %d -> %d %s value=0x%llx\n", label, (int)a, (int)r, nm(r), v);
  }
  CUdeviceptr base = 0; size_t size = 0;
  CUresult r = cuMemGetAddressRange(&base, &size, p);
  std::fprintf(stderr, "%s cuMemGetAddressRange -> %d %s base-p=%lld size=%zu\n", label, (int)r, nm(r),
               (long long)(base - p), size);
}

static int trace() {
  step("init (cudaFree(0))");
  cudaFree(0);
  CUdevice dev; cuCtxGetDevice(&dev);
  step("attributes");
  const int attrs[] = {102, 103, 107, 110, 128, 141, 145};
  for (int a : attrs) { int v = -1; CUresult r = cuDeviceGetAttribute(&v, (CUdevice_attribute)a, dev);
    std::fprintf(stderr, "cuDeviceGetAttribute(%d) -> %d value=%d\n", a, (int)r, v); }
  for (int l : {0, 1, 2}) { size_t v = 0; cudaError_t e = cudaDeviceGetLimit(&v, (cudaLimit)l);
    std::fprintf(stderr, "cudaDeviceGetLimit(%d) -> %d value=%zu\n", l, (int)e, v); }
  step("granularity");
  CUmemAllocationProp prop = device_prop(dev);
  size_t g = 0;
  SHOW(cuMemGetAllocationGranularity(&g, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM)); std::fprintf(stderr, "min=%zu\n", g);
  SHOW(cuMemGetAllocationGranularity(&g, &prop, CU_MEM_ALLOC_GRANULARITY_RECOMMENDED)); std::fprintf(stderr, "rec=%zu\n", g);
  CUmemAllocationProp cprop = prop; cprop.allocFlags.compressionType = CU_MEM_ALLOCATION_COMP_GENERIC;
  SHOW(cuMemGetAllocationGranularity(&g, &cprop, CU_MEM_ALLOC_GRANULARITY_MINIMUM)); std::fprintf(stderr, "comp min=%zu\n", g);
  CUmemAllocationProp fprop = prop; fprop.requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
  SHOW(cuMemGetAllocationGranularity(&g, &fprop, CU_MEM_ALLOC_GRANULARITY_MINIMUM)); std::fprintf(stderr, "fd min=%zu\n", g);
  const size_t two = 2u << 20;

  char* plain = nullptr;
  step("cudaMalloc 2MiB (for comparison of VA)");
  cudaMalloc(&plain, two);
  std::fprintf(stderr, "plain=%p\n", (void*)plain);

  step("cuMemCreate 2MiB");
  CUmemGenericAllocationHandle h = 0;
  SHOW(cuMemCreate(&h, two, &prop, 0));
  std::fprintf(stderr, "handle=0x%llx\n", (unsigned long long)h);
  step("cuMemGetAllocationPropertiesFromHandle");
  CUmemAllocationProp got; std::memset(&got, 0xab, sizeof got);
  SHOW(cuMemGetAllocationPropertiesFromHandle(&got, h)); print_prop("props", got);

  step("cuMemAddressReserve 8MiB");
  CUdeviceptr va = 0;
  SHOW(cuMemAddressReserve(&va, 4 * two, 0, 0, 0));
  std::fprintf(stderr, "va=0x%llx va-plain=%lld va%%2M=%llu va%%512M=0x%llx\n", (unsigned long long)va,
               (long long)(va - (CUdeviceptr)plain), va % two, va % (512ull << 20));
  ptr_attrs("reserved-unmapped", va);
  step("cuMemGetAccess before map");
  CUmemLocation loc; loc.type = CU_MEM_LOCATION_TYPE_DEVICE; loc.id = dev;
  unsigned long long fl = 99;
  SHOW(cuMemGetAccess(&fl, &loc, va)); std::fprintf(stderr, "flags=%llu\n", fl);

  step("cuMemMap 2MiB at va");
  SHOW(cuMemMap(va, two, 0, h, 0));
  step("cuMemGetAccess after map before SetAccess");
  fl = 99; SHOW(cuMemGetAccess(&fl, &loc, va)); std::fprintf(stderr, "flags=%llu\n", fl);
  ptr_attrs("mapped-noaccess", va);
  step("cuMemSetAccess RW");
  CUmemAccessDesc d = rw(dev);
  SHOW(cuMemSetAccess(va, two, &d, 1));
  step("cuMemGetAccess after SetAccess");
  fl = 99; SHOW(cuMemGetAccess(&fl, &loc, va)); std::fprintf(stderr, "flags=%llu\n", fl);
  ptr_attrs("mapped-rw", va + 100);

  step("kernel write + read");
  write_one<<<1, 1>>>((int*)va, 1234);
  std::fprintf(stderr, "sync -> %d\n", (int)cudaDeviceSynchronize());
  int v = 0;
  std::fprintf(stderr, "read rc=%d", device_read(va, &v)); std::fprintf(stderr, " value=%d\n", v);
  step("cudaMemcpy DtoH from VMM");
  v = 0; std::fprintf(stderr, "memcpy -> %d value=%d\n", (int)cudaMemcpy(&v, (void*)va, 4, cudaMemcpyDeviceToHost), v);
  step("cuMemsetD32 on VMM");
  SHOW(cuMemsetD32(va, 7, two / 4));

  step("cuMemRetainAllocationHandle");
  CUmemGenericAllocationHandle h2 = 0;
  SHOW(cuMemRetainAllocationHandle(&h2, (void*)(va + 4096)));
  std::fprintf(stderr, "retained=0x%llx same=%d\n", (unsigned long long)h2, (int)(h2 == h));
  SHOW(cuMemRelease(h2));

  step("cuMemCreate 2MiB exportable (POSIX fd)");
  CUmemGenericAllocationHandle hx = 0;
  SHOW(cuMemCreate(&hx, two, &fprop, 0));
  step("cuMemMap exportable at va+2MiB + SetAccess");
  SHOW(cuMemMap(va + two, two, 0, hx, 0));
  SHOW(cuMemSetAccess(va + two, two, &d, 1));
  write_one<<<1, 1>>>((int*)(va + two), 4321);
  cudaDeviceSynchronize();
  step("cuMemExportToShareableHandle");
  int fd = -1;
  SHOW(cuMemExportToShareableHandle(&fd, hx, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0));
  char link[256] = {0}, path[64];
  std::snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
  ssize_t n = readlink(path, link, sizeof link - 1);
  std::fprintf(stderr, "fd=%d -> %s (n=%zd)\n", fd, link, n);
  step("cuMemImportFromShareableHandle");
  CUmemGenericAllocationHandle hi = 0;
  SHOW(cuMemImportFromShareableHandle(&hi, (void*)(long)fd, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR));
  std::fprintf(stderr, "imported=0x%llx same_as_exported=%d\n", (unsigned long long)hi, (int)(hi == hx));
  std::memset(&got, 0xab, sizeof got);
  SHOW(cuMemGetAllocationPropertiesFromHandle(&got, hi)); print_prop("imported props", got);
  step("map imported at va+4MiB");
  SHOW(cuMemMap(va + 2 * two, two, 0, hi, 0));
  SHOW(cuMemSetAccess(va + 2 * two, two, &d, 1));
  v = 0; std::fprintf(stderr, "read through import rc=%d", device_read(va + 2 * two, &v)); std::fprintf(stderr, " value=%d\n", v);
  step("close fd");
  close(fd);

  step("compressible cuMemCreate");
  CUmemGenericAllocationHandle hc = 0;
  SHOW(cuMemCreate(&hc, two, &cprop, 0));
  std::memset(&got, 0xab, sizeof got);
  SHOW(cuMemGetAllocationPropertiesFromHandle(&got, hc)); print_prop("comp props", got);
  step("compressible map + SetAccess");
  SHOW(cuMemMap(va + 3 * two, two, 0, hc, 0));
  SHOW(cuMemSetAccess(va + 3 * two, two, &d, 1));
  ptr_attrs("compressible", va + 3 * two);

  step("cuMemUnmap first 2MiB");
  SHOW(cuMemUnmap(va, two));
  step("cuMemRelease first handle");
  SHOW(cuMemRelease(h));
  step("cuMemUnmap rest (6MiB at once, three mappings)");
  SHOW(cuMemUnmap(va + two, 3 * two));
  step("cuMemRelease exported, imported, compressible");
  SHOW(cuMemRelease(hx));
  SHOW(cuMemRelease(hi));
  SHOW(cuMemRelease(hc));
  step("cuMemAddressFree");
  SHOW(cuMemAddressFree(va, 4 * two));
  step("second reservation (address reuse?)");
  CUdeviceptr va2 = 0;
  SHOW(cuMemAddressReserve(&va2, two, 0, 0, 0));
  std::fprintf(stderr, "va2-va=%lld\n", (long long)(va2 - va));
  SHOW(cuMemAddressFree(va2, two));
  step("big reservation 1 GiB with 1 GiB alignment");
  CUdeviceptr va3 = 0;
  SHOW(cuMemAddressReserve(&va3, 1ull << 30, 1ull << 30, 0, 0));
  std::fprintf(stderr, "va3=0x%llx va3-va=%lld\n", (unsigned long long)va3, (long long)(va3 - va));
  SHOW(cuMemAddressFree(va3, 1ull << 30));
  step("end");
  return 0;
}

static int errors() {
  cudaFree(0);
  CUdevice dev; cuCtxGetDevice(&dev);
  const size_t two = 2u << 20;
  CUmemAllocationProp prop = device_prop(dev);
  size_t g = 0;
  CUmemGenericAllocationHandle h = 0;
  std::fprintf(stderr, "-- granularity\n");
  SHOWR("gran(null out)", cuMemGetAllocationGranularity(nullptr, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
  SHOWR("gran(null prop)", cuMemGetAllocationGranularity(&g, nullptr, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
  SHOWR("gran(flag 2)", cuMemGetAllocationGranularity(&g, &prop, (CUmemAllocationGranularity_flags)2));
  { CUmemAllocationProp p = prop; p.location.id = 77; g = 0; SHOWR("gran(dev 77)", cuMemGetAllocationGranularity(&g, &p, CU_MEM_ALLOC_GRANULARITY_MINIMUM)); std::fprintf(stderr, "  g=%zu\n", g); }
  { CUmemAllocationProp p = prop; p.location.type = CU_MEM_LOCATION_TYPE_INVALID; g = 0; SHOWR("gran(loc invalid)", cuMemGetAllocationGranularity(&g, &p, CU_MEM_ALLOC_GRANULARITY_MINIMUM)); std::fprintf(stderr, "  g=%zu\n", g); }
  { CUmemAllocationProp p = prop; p.location.type = CU_MEM_LOCATION_TYPE_HOST; g = 0; SHOWR("gran(loc host)", cuMemGetAllocationGranularity(&g, &p, CU_MEM_ALLOC_GRANULARITY_MINIMUM)); std::fprintf(stderr, "  g=%zu\n", g); }
  { CUmemAllocationProp p = prop; p.type = CU_MEM_ALLOCATION_TYPE_INVALID; g = 0; SHOWR("gran(type invalid)", cuMemGetAllocationGranularity(&g, &p, CU_MEM_ALLOC_GRANULARITY_MINIMUM)); std::fprintf(stderr, "  g=%zu\n", g); }
  { CUmemAllocationProp p = prop; p.requestedHandleTypes = CU_MEM_HANDLE_TYPE_WIN32; g = 0; SHOWR("gran(win32)", cuMemGetAllocationGranularity(&g, &p, CU_MEM_ALLOC_GRANULARITY_MINIMUM)); std::fprintf(stderr, "  g=%zu\n", g); }
  { CUmemAllocationProp p = prop; p.requestedHandleTypes = CU_MEM_HANDLE_TYPE_FABRIC; g = 0; SHOWR("gran(fabric)", cuMemGetAllocationGranularity(&g, &p, CU_MEM_ALLOC_GRANULARITY_MINIMUM)); std::fprintf(stderr, "  g=%zu\n", g); }

  std::fprintf(stderr, "-- cuMemCreate\n");
  SHOWR("create(null handle)", cuMemCreate(nullptr, two, &prop, 0));
  SHOWR("create(null prop)", cuMemCreate(&h, two, nullptr, 0));
  SHOWR("create(size 0)", cuMemCreate(&h, 0, &prop, 0));
  h = 0; SHOWR("create(size 1MiB)", cuMemCreate(&h, 1u << 20, &prop, 0)); if (h) cuMemRelease(h);
  h = 0; SHOWR("create(size 2MiB+4096)", cuMemCreate(&h, two + 4096, &prop, 0)); if (h) cuMemRelease(h);
  h = 0; SHOWR("create(flags 1)", cuMemCreate(&h, two, &prop, 1)); if (h) cuMemRelease(h);
  { CUmemAllocationProp p = prop; p.location.id = 77; h = 0; SHOWR("create(dev 77)", cuMemCreate(&h, two, &p, 0)); if (h) cuMemRelease(h); }
  { CUmemAllocationProp p = prop; p.location.type = CU_MEM_LOCATION_TYPE_HOST; h = 0; SHOWR("create(loc host)", cuMemCreate(&h, two, &p, 0)); if (h) cuMemRelease(h); }
  { CUmemAllocationProp p = prop; p.location.type = CU_MEM_LOCATION_TYPE_INVALID; h = 0; SHOWR("create(loc invalid)", cuMemCreate(&h, two, &p, 0)); if (h) cuMemRelease(h); }
  { CUmemAllocationProp p = prop; p.type = CU_MEM_ALLOCATION_TYPE_INVALID; h = 0; SHOWR("create(type invalid)", cuMemCreate(&h, two, &p, 0)); if (h) cuMemRelease(h); }
  { CUmemAllocationProp p = prop; p.type = (CUmemAllocationType)7; h = 0; SHOWR("create(type 7)", cuMemCreate(&h, two, &p, 0)); if (h) cuMemRelease(h); }
  { CUmemAllocationProp p = prop; p.requestedHandleTypes = CU_MEM_HANDLE_TYPE_WIN32; h = 0; SHOWR("create(win32)", cuMemCreate(&h, two, &p, 0)); if (h) cuMemRelease(h); }
  { CUmemAllocationProp p = prop; p.requestedHandleTypes = CU_MEM_HANDLE_TYPE_FABRIC; h = 0; SHOWR("create(fabric)", cuMemCreate(&h, two, &p, 0)); if (h) cuMemRelease(h); }
  { CUmemAllocationProp p = prop; p.allocFlags.compressionType = 5; h = 0; SHOWR("create(comp 5)", cuMemCreate(&h, two, &p, 0)); if (h) cuMemRelease(h); }
  { CUmemAllocationProp p = prop; p.allocFlags.gpuDirectRDMACapable = 1; h = 0; SHOWR("create(rdma)", cuMemCreate(&h, two, &p, 0)); if (h) cuMemRelease(h); }
  { CUmemAllocationProp p = prop; p.win32HandleMetaData = (void*)0x10; h = 0; SHOWR("create(win32 meta)", cuMemCreate(&h, two, &p, 0)); if (h) cuMemRelease(h); }
  { h = 0; SHOWR("create(200 GiB)", cuMemCreate(&h, 200ull << 30, &prop, 0)); if (h) cuMemRelease(h); }

  std::fprintf(stderr, "-- cuMemAddressReserve/Free\n");
  CUdeviceptr va = 0;
  SHOWR("reserve(null ptr)", cuMemAddressReserve(nullptr, two, 0, 0, 0));
  SHOWR("reserve(size 0)", cuMemAddressReserve(&va, 0, 0, 0, 0));
  va = 0; SHOWR("reserve(size 1MiB)", cuMemAddressReserve(&va, 1u << 20, 0, 0, 0)); std::fprintf(stderr, "  va%%2M=%llu\n", va % two); if (va) SHOWR("  free it", cuMemAddressFree(va, 1u << 20));
  va = 0; SHOWR("reserve(size 4097)", cuMemAddressReserve(&va, 4097, 0, 0, 0)); if (va) SHOWR("  free it", cuMemAddressFree(va, 4097));
  va = 0; SHOWR("reserve(align 3MiB)", cuMemAddressReserve(&va, two, 3u << 20, 0, 0)); if (va) cuMemAddressFree(va, two);
  va = 0; SHOWR("reserve(align 4096)", cuMemAddressReserve(&va, two, 4096, 0, 0)); std::fprintf(stderr, "  va%%2M=%llu\n", va % two); if (va) cuMemAddressFree(va, two);
  va = 0; SHOWR("reserve(flags 1)", cuMemAddressReserve(&va, two, 0, 0, 1)); if (va) cuMemAddressFree(va, two);
  va = 0; SHOWR("reserve(flags 2)", cuMemAddressReserve(&va, two, 0, 0, 2)); if (va) cuMemAddressFree(va, two);
  va = 0; SHOWR("reserve(hint 0x7f0000000000)", cuMemAddressReserve(&va, two, 0, 0x7f0000000000ull, 0)); std::fprintf(stderr, "  va=0x%llx\n", va); if (va) cuMemAddressFree(va, two);
  va = 0; SHOWR("reserve(64 TiB)", cuMemAddressReserve(&va, 64ull << 40, 0, 0, 0)); if (va) cuMemAddressFree(va, 64ull << 40);
  va = 0; SHOWR("reserve 8MiB", cuMemAddressReserve(&va, 4 * two, 0, 0, 0));
  CUdeviceptr hinted = 0; SHOWR("reserve(hint = taken va)", cuMemAddressReserve(&hinted, two, 0, va, 0)); std::fprintf(stderr, "  hinted-va=%lld\n", (long long)(hinted - va)); if (hinted) cuMemAddressFree(hinted, two);
  SHOWR("free(0, size)", cuMemAddressFree(0, two));
  SHOWR("free(unreserved)", cuMemAddressFree(0x100000000000ull, two));
  SHOWR("free(va, wrong size 2MiB)", cuMemAddressFree(va, two));
  SHOWR("free(va+2MiB, 2MiB)", cuMemAddressFree(va + two, two));

  std::fprintf(stderr, "-- cuMemMap\n");
  CUmemGenericAllocationHandle h4 = 0; SHOWR("create 4MiB", cuMemCreate(&h4, 2 * two, &prop, 0));
  SHOWR("map(size 1MiB)", cuMemMap(va, 1u << 20, 0, h4, 0));
  SHOWR("map(offset 1MiB)", cuMemMap(va, two, 1u << 20, h4, 0));
  SHOWR("map(va+4096)", cuMemMap(va + 4096, two, 0, h4, 0));
  SHOWR("map(size 6MiB > handle 4MiB)", cuMemMap(va, 3 * two, 0, h4, 0));
  SHOWR("map(offset 4MiB = handle size)", cuMemMap(va, two, 2 * two, h4, 0));
  SHOWR("map(flags 1)", cuMemMap(va, two, 0, h4, 1));
  SHOWR("map(handle 0)", cuMemMap(va, two, 0, 0, 0));
  SHOWR("map(unreserved va)", cuMemMap(0x100000000000ull, two, 0, h4, 0));
  SHOWR("map(past reservation end: va+6MiB, 4MiB)", cuMemMap(va + 3 * two, 2 * two, 0, h4, 0));
  SHOWR("map(offset 2MiB, 2MiB at va+6MiB)", cuMemMap(va + 3 * two, two, two, h4, 0));
  SHOWR("map(4MiB at va)", cuMemMap(va, 2 * two, 0, h4, 0));
  SHOWR("map again same range", cuMemMap(va, 2 * two, 0, h4, 0));
  SHOWR("map overlapping (va+2MiB)", cuMemMap(va + two, two, 0, h4, 0));

  std::fprintf(stderr, "-- cuMemSetAccess / cuMemGetAccess\n");
  CUmemAccessDesc d = rw(dev);
  SHOWR("setaccess(count 0)", cuMemSetAccess(va, two, &d, 0));
  SHOWR("setaccess(null desc)", cuMemSetAccess(va, two, nullptr, 1));
  SHOWR("setaccess(size 1MiB)", cuMemSetAccess(va, 1u << 20, &d, 1));
  SHOWR("setaccess(unmapped part: va, 8MiB)", cuMemSetAccess(va, 4 * two, &d, 1));
  SHOWR("setaccess(unmapped range va+6MiB)", cuMemSetAccess(va + 3 * two, two, &d, 1));
  { CUmemAccessDesc b = rw(dev, (CUmemAccess_flags)2); SHOWR("setaccess(flags 2)", cuMemSetAccess(va, two, &b, 1)); }
  { CUmemAccessDesc b = rw(dev, (CUmemAccess_flags)7); SHOWR("setaccess(flags 7)", cuMemSetAccess(va, two, &b, 1)); }
  { CUmemAccessDesc b = rw(77); SHOWR("setaccess(dev 77)", cuMemSetAccess(va, two, &b, 1)); }
  { CUmemAccessDesc b = rw(dev); b.location.type = CU_MEM_LOCATION_TYPE_HOST; SHOWR("setaccess(loc host)", cuMemSetAccess(va, two, &b, 1)); }
  SHOWR("setaccess(va+2MiB, 2MiB: part of mapping)", cuMemSetAccess(va + two, two, &d, 1));
  CUmemLocation loc; loc.type = CU_MEM_LOCATION_TYPE_DEVICE; loc.id = dev;
  unsigned long long fl = 99;
  SHOWR("getaccess(va+2MiB)", cuMemGetAccess(&fl, &loc, va + two)); std::fprintf(stderr, "  flags=%llu\n", fl);
  fl = 99; SHOWR("getaccess(va)", cuMemGetAccess(&fl, &loc, va)); std::fprintf(stderr, "  flags=%llu\n", fl);
  { CUmemAccessDesc b = rw(dev, CU_MEM_ACCESS_FLAGS_PROT_NONE); SHOWR("setaccess(PROT_NONE on va+2MiB)", cuMemSetAccess(va + two, two, &b, 1)); }
  fl = 99; SHOWR("getaccess(va+2MiB after NONE)", cuMemGetAccess(&fl, &loc, va + two)); std::fprintf(stderr, "  flags=%llu\n", fl);
  { CUmemAccessDesc b = rw(dev, CU_MEM_ACCESS_FLAGS_PROT_READ); SHOWR("setaccess(READ on va)", cuMemSetAccess(va, two, &b, 1)); }
  fl = 99; SHOWR("getaccess(va after READ)", cuMemGetAccess(&fl, &loc, va)); std::fprintf(stderr, "  flags=%llu\n", fl);
  fl = 99; SHOWR("getaccess(unmapped va+6MiB)", cuMemGetAccess(&fl, &loc, va + 3 * two)); std::fprintf(stderr, "  flags=%llu\n", fl);
  fl = 99; SHOWR("getaccess(null flags)", cuMemGetAccess(nullptr, &loc, va));
  fl = 99; SHOWR("getaccess(null loc)", cuMemGetAccess(&fl, nullptr, va));
  { CUmemLocation l2 = loc; l2.id = 77; fl = 99; SHOWR("getaccess(dev 77)", cuMemGetAccess(&fl, &l2, va)); std::fprintf(stderr, "  flags=%llu\n", fl); }
  { CUmemLocation l2 = loc; l2.type = CU_MEM_LOCATION_TYPE_HOST; fl = 99; SHOWR("getaccess(loc host)", cuMemGetAccess(&fl, &l2, va)); std::fprintf(stderr, "  flags=%llu\n", fl); }

  std::fprintf(stderr, "-- retain / properties / export\n");
  CUmemGenericAllocationHandle hr = 0;
  SHOWR("retain(null out)", cuMemRetainAllocationHandle(nullptr, (void*)va));
  SHOWR("retain(unmapped va+6MiB)", cuMemRetainAllocationHandle(&hr, (void*)(va + 3 * two)));
  void* plain = nullptr; cudaMalloc(&plain, two);
  hr = 0; SHOWR("retain(cudaMalloc ptr)", cuMemRetainAllocationHandle(&hr, plain));
  hr = 0; SHOWR("retain(va+3MiB)", cuMemRetainAllocationHandle(&hr, (void*)(va + 3 * (1u << 20)))); std::fprintf(stderr, "  same=%d\n", (int)(hr == h4)); if (hr) cuMemRelease(hr);
  CUmemAllocationProp got;
  SHOWR("props(null out)", cuMemGetAllocationPropertiesFromHandle(nullptr, h4));
  SHOWR("props(handle 0)", cuMemGetAllocationPropertiesFromHandle(&got, 0));
  int fd = -1;
  SHOWR("export(not requested fd)", cuMemExportToShareableHandle(&fd, h4, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0)); std::fprintf(stderr, "  fd=%d\n", fd);
  SHOWR("export(type NONE)", cuMemExportToShareableHandle(&fd, h4, CU_MEM_HANDLE_TYPE_NONE, 0));
  { CUmemAllocationProp p = prop; p.requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
    CUmemGenericAllocationHandle hx = 0; SHOWR("create exportable", cuMemCreate(&hx, two, &p, 0));
    SHOWR("export(null out)", cuMemExportToShareableHandle(nullptr, hx, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0));
    SHOWR("export(flags 1)", cuMemExportToShareableHandle(&fd, hx, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 1));
    SHOWR("export(type fabric)", cuMemExportToShareableHandle(&fd, hx, CU_MEM_HANDLE_TYPE_FABRIC, 0));
    fd = -1; SHOWR("export ok", cuMemExportToShareableHandle(&fd, hx, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0));
    int fd2 = -1; SHOWR("export again", cuMemExportToShareableHandle(&fd2, hx, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0)); std::fprintf(stderr, "  fd=%d fd2=%d\n", fd, fd2);
    CUmemGenericAllocationHandle hi = 0, hi2 = 0;
    SHOWR("import(fd -1)", cuMemImportFromShareableHandle(&hi, (void*)(long)-1, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR));
    SHOWR("import(fd 0 stdin)", cuMemImportFromShareableHandle(&hi, (void*)(long)0, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR));
    SHOWR("import(null out)", cuMemImportFromShareableHandle(nullptr, (void*)(long)fd, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR));
    SHOWR("import(type fabric)", cuMemImportFromShareableHandle(&hi, (void*)(long)fd, CU_MEM_HANDLE_TYPE_FABRIC));
    SHOWR("import ok", cuMemImportFromShareableHandle(&hi, (void*)(long)fd, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR));
    SHOWR("import again (same fd)", cuMemImportFromShareableHandle(&hi2, (void*)(long)fd, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR));
    std::fprintf(stderr, "  hx=0x%llx hi=0x%llx hi2=0x%llx\n", (unsigned long long)hx, (unsigned long long)hi, (unsigned long long)hi2);
    close(fd); close(fd2);
    SHOWR("release hx", cuMemRelease(hx)); SHOWR("release hi", cuMemRelease(hi)); SHOWR("release hi2", cuMemRelease(hi2));
  }

  std::fprintf(stderr, "-- cuMemUnmap / cuMemAddressFree / cuMemRelease order\n");
  SHOWR("unmap(size 0)", cuMemUnmap(va, 0));
  SHOWR("unmap(1MiB)", cuMemUnmap(va, 1u << 20));
  SHOWR("unmap(first 2MiB of a 4MiB mapping)", cuMemUnmap(va, two));
  SHOWR("unmap(va+2MiB, 2MiB: tail of mapping)", cuMemUnmap(va + two, two));
  SHOWR("unmap(unmapped va+6MiB)", cuMemUnmap(va + 3 * two, two));
  SHOWR("unmap(va, 6MiB: mapping + unmapped tail)", cuMemUnmap(va, 3 * two));
  SHOWR("addressfree(while mapped)", cuMemAddressFree(va, 4 * two));
  SHOWR("release(while mapped)", cuMemRelease(h4));
  int v = 0;
  std::fprintf(stderr, "read after release, still mapped: rc=%d", device_read(va, &v)); std::fprintf(stderr, " value=%d\n", v);
  SHOWR("unmap(4MiB at va)", cuMemUnmap(va, 2 * two));
  SHOWR("unmap again", cuMemUnmap(va, 2 * two));
  SHOWR("release(0)", cuMemRelease(0));
  SHOWR("addressfree(va, 8MiB)", cuMemAddressFree(va, 4 * two));
  SHOWR("addressfree again", cuMemAddressFree(va, 4 * two));

  std::fprintf(stderr, "-- adjacent mappings, one unmap over two\n");
  va = 0; SHOWR("reserve 4MiB", cuMemAddressReserve(&va, 2 * two, 0, 0, 0));
  CUmemGenericAllocationHandle a = 0, b = 0;
  cuMemCreate(&a, two, &prop, 0); cuMemCreate(&b, two, &prop, 0);
  SHOWR("map a", cuMemMap(va, two, 0, a, 0)); SHOWR("map b", cuMemMap(va + two, two, 0, b, 0));
  SHOWR("setaccess over both (4MiB)", cuMemSetAccess(va, 2 * two, &d, 1));
  fl = 99; SHOWR("getaccess(b)", cuMemGetAccess(&fl, &loc, va + two)); std::fprintf(stderr, "  flags=%llu\n", fl);
  CUdeviceptr base = 0; size_t size = 0;
  SHOWR("addressrange(b)", cuMemGetAddressRange(&base, &size, va + two)); std::fprintf(stderr, "  base-va=%lld size=%zu\n", (long long)(base - va), size);
  SHOWR("cudaFree-like cuMemFree(va)", cuMemFree(va));
  std::fprintf(stderr, "cudaFree(va) -> %d\n", (int)cudaFree((void*)va)); cudaGetLastError();
  SHOWR("unmap both at once", cuMemUnmap(va, 2 * two));
  cuMemRelease(a); cuMemRelease(b);
  SHOWR("addressfree", cuMemAddressFree(va, 2 * two));
  std::fprintf(stderr, "-- sticky? a call after all this\n");
  std::fprintf(stderr, "cudaDeviceSynchronize -> %d\n", (int)cudaDeviceSynchronize());
  return 0;
}

static int fault(const char* mode) {
  cudaFree(0);
  CUdevice dev; cuCtxGetDevice(&dev);
  const size_t two = 2u << 20;
  CUmemAllocationProp prop = device_prop(dev);
  CUmemGenericAllocationHandle h = 0;
  CUdeviceptr va = 0;
  cuMemCreate(&h, two, &prop, 0);
  cuMemAddressReserve(&va, two, 0, 0, 0);
  cuMemMap(va, two, 0, h, 0);
  int* out = nullptr; cudaMalloc(&out, 4);
  CUmemAccessDesc d = rw(dev);
  if (!std::strcmp(mode, "noaccess")) {
    read_one<<<1, 1>>>((const int*)va, out);
  } else if (!std::strcmp(mode, "readonly_write")) {
    CUmemAccessDesc r = rw(dev, CU_MEM_ACCESS_FLAGS_PROT_READ);
    SHOW(cuMemSetAccess(va, two, &r, 1));
    write_one<<<1, 1>>>((int*)va, 5);
  } else if (!std::strcmp(mode, "readonly_read")) {
    SHOW(cuMemSetAccess(va, two, &d, 1));
    cuMemsetD32(va, 77, 1);
    CUmemAccessDesc r = rw(dev, CU_MEM_ACCESS_FLAGS_PROT_READ);
    SHOW(cuMemSetAccess(va, two, &r, 1));
    read_one<<<1, 1>>>((const int*)va, out);
  } else if (!std::strcmp(mode, "after_unmap")) {
    SHOW(cuMemSetAccess(va, two, &d, 1));
    SHOW(cuMemUnmap(va, two));
    read_one<<<1, 1>>>((const int*)va, out);
  } else if (!std::strcmp(mode, "after_release_mapped")) {
    SHOW(cuMemSetAccess(va, two, &d, 1));
    cuMemsetD32(va, 88, 1);
    SHOW(cuMemRelease(h));
    read_one<<<1, 1>>>((const int*)va, out);
  } else if (!std::strcmp(mode, "memcpy_noaccess")) {
    int v = 0;
    cudaError_t e = cudaMemcpy(&v, (void*)va, 4, cudaMemcpyDeviceToHost);
    std::fprintf(stderr, "cudaMemcpy DtoH before SetAccess -> %d %s\n", (int)e, cudaGetErrorName(e));
    SHOW(cuMemcpyDtoH(&v, va, 4));
    SHOW(cuMemsetD32(va, 1, 1));
  } else {
    std::fprintf(stderr, "unknown mode\n"); return 2;
  }
  cudaError_t e = cudaDeviceSynchronize();
  int v = -1; cudaError_t e2 = cudaMemcpy(&v, out, 4, cudaMemcpyDeviceToHost);
  std::fprintf(stderr, "fault %s: sync -> %d %s; out=%d (memcpy %d)\n", mode, (int)e, cudaGetErrorName(e), v, (int)e2);
  return 0;
}

// Calls given a handle that is not (or no longer) a live allocation; each in its own process in
// case the driver dereferences it.
static int bogus(const char* mode) {
  cudaFree(0);
  CUdevice dev; cuCtxGetDevice(&dev);
  const size_t two = 2u << 20;
  CUmemAllocationProp prop = device_prop(dev);
  CUmemGenericAllocationHandle h = 0;
  CUdeviceptr va = 0;
  cuMemAddressReserve(&va, two, 0, 0, 0);
  CUmemAllocationProp got;
  if (!std::strcmp(mode, "map")) SHOWR("map(bogus handle)", cuMemMap(va, two, 0, 0xdeadbeef000ull, 0));
  else if (!std::strcmp(mode, "props")) SHOWR("props(bogus)", cuMemGetAllocationPropertiesFromHandle(&got, 0xdeadbeef000ull));
  else if (!std::strcmp(mode, "release")) SHOWR("release(bogus)", cuMemRelease(0xdeadbeef000ull));
  else if (!std::strcmp(mode, "double_release")) {
    SHOWR("create", cuMemCreate(&h, two, &prop, 0));
    SHOWR("release", cuMemRelease(h));
    SHOWR("release again", cuMemRelease(h));
  } else if (!std::strcmp(mode, "map_released")) {
    SHOWR("create", cuMemCreate(&h, two, &prop, 0));
    SHOWR("release", cuMemRelease(h));
    SHOWR("map released handle", cuMemMap(va, two, 0, h, 0));
  } else { std::fprintf(stderr, "unknown mode\n"); return 2; }
  std::fprintf(stderr, "after: cudaDeviceSynchronize -> %d\n", (int)cudaDeviceSynchronize());
  return 0;
}

int main(int argc, char** argv) {
  if (argc >= 2 && !std::strcmp(argv[1], "trace")) return trace();
  if (argc >= 2 && !std::strcmp(argv[1], "errors")) return errors();
  if (argc >= 3 && !std::strcmp(argv[1], "fault")) return fault(argv[2]);
  if (argc >= 3 && !std::strcmp(argv[1], "bogus")) return bogus(argv[2]);
  std::fprintf(stderr, "usage: %s trace | errors | fault CASE | bogus CASE\n", argv[0]);
  return 2;
}
