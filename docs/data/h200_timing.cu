// h200_timing.cu -- measure real GPU timing figures to calibrate minicuda's
// simulated-time model.  Prints one line per figure: `key = value unit`.
//
// Build & run:  nvcc -O2 -arch=sm_90 -o h200_timing h200_timing.cu && ./h200_timing
//
// Method: every GPU-side figure is the median of 20 repetitions (after 3
// warm-ups), each timed with cudaEventRecord / cudaEventElapsedTime.  Host-side
// API costs use std::chrono wall-clock averaged over 10000 calls.
#include <cuda_runtime.h>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

static int g_errors = 0;
#define CK(call)                                                              \
    do {                                                                      \
        cudaError_t e_ = (call);                                              \
        if (e_ != cudaSuccess) {                                              \
            ++g_errors;                                                       \
            std::fprintf(stderr, "CUDA error %s (%d) at %s:%d: %s\n",         \
                         cudaGetErrorName(e_), (int)e_, __FILE__, __LINE__,   \
                         #call);                                              \
        }                                                                     \
    } while (0)
#define CKFATAL(call)                                                         \
    do {                                                                      \
        cudaError_t e_ = (call);                                              \
        if (e_ != cudaSuccess) {                                              \
            std::fprintf(stderr, "FATAL CUDA error %s at %s:%d: %s\n",        \
                         cudaGetErrorName(e_), __FILE__, __LINE__, #call);    \
            std::exit(1);                                                     \
        }                                                                     \
    } while (0)
#define CKLAUNCH() CK(cudaGetLastError())

static const int kWarm = 3, kReps = 20;
static const size_t KiB = 1024, MiB = 1024 * 1024;

__global__ void empty_kernel() {}

__global__ void scale_kernel(const float* in, float* out, size_t n) {
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = in[i] * 2.0f + 1.0f;
}

__global__ void vector_add(const int* a, const int* b, int* c, size_t n) {
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}

__device__ __forceinline__ unsigned long long gtimer() {
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}
// Busy-waits for `ns` nanoseconds (per block) using the global timer.
__global__ void spin_kernel(unsigned long long ns, int* sink) {
    unsigned long long t0 = gtimer();
    int x = 0;
    while (gtimer() - t0 < ns) ++x;
    if (x == -1) *sink = x;
}

static cudaStream_t sA, sB;
static cudaEvent_t evStart, evStop, evJoin;

static double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    size_t n = v.size();
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// Time `f` issued on stream s (events recorded on s). Returns median in us.
template <class F>
static double timeOn(cudaStream_t s, F f) {
    std::vector<double> t;
    for (int r = 0; r < kWarm + kReps; ++r) {
        CK(cudaEventRecord(evStart, s));
        f();
        CK(cudaEventRecord(evStop, s));
        CK(cudaEventSynchronize(evStop));
        float ms = 0;
        CK(cudaEventElapsedTime(&ms, evStart, evStop));
        if (r >= kWarm) t.push_back(ms * 1000.0);
    }
    return median(t);
}

// Time work spread over sA and sB: fork sB from sA's start event, issue f,
// join sB back into sA, record stop on sA.  Returns median in us.
template <class F>
static double timeForkJoin(F f) {
    std::vector<double> t;
    for (int r = 0; r < kWarm + kReps; ++r) {
        CK(cudaEventRecord(evStart, sA));
        CK(cudaStreamWaitEvent(sB, evStart, 0));
        f();
        CK(cudaEventRecord(evJoin, sB));
        CK(cudaStreamWaitEvent(sA, evJoin, 0));
        CK(cudaEventRecord(evStop, sA));
        CK(cudaEventSynchronize(evStop));
        float ms = 0;
        CK(cudaEventElapsedTime(&ms, evStart, evStop));
        if (r >= kWarm) t.push_back(ms * 1000.0);
    }
    return median(t);
}

static double gbps(size_t bytes, double us) { return (double)bytes / (us * 1e-6) / 1e9; }
static void pr(const char* key, double v, const char* unit) {
    std::printf("%s = %.3f %s\n", key, v, unit);
}
static void prbw(const char* key, size_t bytes, double us) {
    char k[128];
    std::snprintf(k, sizeof k, "%s_bw", key);
    pr(k, gbps(bytes, us), "GB/s");
}
static const char* sizeName(size_t b) {
    static char buf[32];
    if (b >= MiB) std::snprintf(buf, sizeof buf, "%zuMiB", b / MiB);
    else std::snprintf(buf, sizeof buf, "%zuKiB", b / KiB);
    return buf;
}

int main() {
    int dev = 0;
    CKFATAL(cudaSetDevice(dev));
    cudaDeviceProp p;
    CKFATAL(cudaGetDeviceProperties(&p, dev));
    int drv = 0, rtv = 0;
    CK(cudaDriverGetVersion(&drv));
    CK(cudaRuntimeGetVersion(&rtv));
    std::printf("# device: %s (cc %d.%d), driver %d, runtime %d\n", p.name, p.major, p.minor, drv, rtv);
    std::printf("# GPU figures: median of %d reps after %d warm-ups, cudaEvent timing\n", kReps, kWarm);
    std::printf("prop_multiProcessorCount = %d SMs\n", p.multiProcessorCount);
    std::printf("prop_asyncEngineCount = %d engines\n", p.asyncEngineCount);
    std::printf("prop_concurrentKernels = %d bool\n", p.concurrentKernels);
    std::printf("prop_memoryBusWidth = %d bits\n", p.memoryBusWidth);
    int memClk = 0, smClk = 0;
    CK(cudaDeviceGetAttribute(&memClk, cudaDevAttrMemoryClockRate, dev));  // field removed from cudaDeviceProp in CUDA 13
    CK(cudaDeviceGetAttribute(&smClk, cudaDevAttrClockRate, dev));
    std::printf("prop_memoryClockRate = %d kHz\n", memClk);
    std::printf("prop_clockRate = %d kHz\n", smClk);
    std::printf("prop_totalGlobalMem = %zu bytes\n", p.totalGlobalMem);
    std::printf("prop_l2CacheSize = %d bytes\n", p.l2CacheSize);
    std::printf("prop_maxThreadsPerMultiProcessor = %d threads\n", p.maxThreadsPerMultiProcessor);
    std::printf("prop_maxBlocksPerMultiProcessor = %d blocks\n", p.maxBlocksPerMultiProcessor);
    std::printf("prop_pciBusID = %d id\n", p.pciBusID);
    std::printf("prop_unifiedAddressing = %d bool\n", p.unifiedAddressing);
    // (no pciGeneration field in cudaDeviceProp; query nvidia-smi for link gen)

    CKFATAL(cudaStreamCreateWithFlags(&sA, cudaStreamNonBlocking));
    CKFATAL(cudaStreamCreateWithFlags(&sB, cudaStreamNonBlocking));
    CKFATAL(cudaEventCreate(&evStart));
    CKFATAL(cudaEventCreate(&evStop));
    CKFATAL(cudaEventCreate(&evJoin));

    const size_t big = 64 * MiB, huge = 256 * MiB;
    void *hA, *hB, *dA, *dB, *dH1, *dH2;
    CKFATAL(cudaMallocHost(&hA, big));
    CKFATAL(cudaMallocHost(&hB, big));
    CKFATAL(cudaMalloc(&dA, big));
    CKFATAL(cudaMalloc(&dB, big));
    CKFATAL(cudaMalloc(&dH1, huge));
    CKFATAL(cudaMalloc(&dH2, huge));
    std::memset(hA, 1, big);
    std::memset(hB, 2, big);
    CK(cudaMemset(dA, 0, big));
    CK(cudaMemset(dB, 0, big));
    CK(cudaMemset(dH1, 0, huge));
    CK(cudaMemset(dH2, 0, huge));
    CK(cudaDeviceSynchronize());

    // ---- pinned H2D / D2H ----
    const size_t sizes[] = {4 * KiB, 1 * MiB, 64 * MiB};
    for (size_t sz : sizes) {
        char key[64];
        double t = timeOn(sA, [&] { CK(cudaMemcpyAsync(dA, hA, sz, cudaMemcpyHostToDevice, sA)); });
        std::snprintf(key, sizeof key, "h2d_pinned_%s", sizeName(sz));
        pr(key, t, "us");
        prbw(key, sz, t);
    }
    for (size_t sz : sizes) {
        char key[64];
        double t = timeOn(sA, [&] { CK(cudaMemcpyAsync(hA, dA, sz, cudaMemcpyDeviceToHost, sA)); });
        std::snprintf(key, sizeof key, "d2h_pinned_%s", sizeName(sz));
        pr(key, t, "us");
        prbw(key, sz, t);
    }

    // ---- pageable 64MiB (synchronous cudaMemcpy, events on legacy stream 0) ----
    {
        void* pg = std::malloc(big);
        std::memset(pg, 3, big);
        double t = timeOn(0, [&] { CK(cudaMemcpy(dA, pg, big, cudaMemcpyHostToDevice)); });
        pr("h2d_pageable_64MiB", t, "us");
        prbw("h2d_pageable_64MiB", big, t);
        t = timeOn(0, [&] { CK(cudaMemcpy(pg, dA, big, cudaMemcpyDeviceToHost)); });
        pr("d2h_pageable_64MiB", t, "us");
        prbw("d2h_pageable_64MiB", big, t);
        std::free(pg);
    }

    // ---- D2D and memset ----
    {
        double t = timeOn(sA, [&] { CK(cudaMemcpyAsync(dH2, dH1, 1 * MiB, cudaMemcpyDeviceToDevice, sA)); });
        pr("d2d_1MiB", t, "us");
        prbw("d2d_1MiB", 1 * MiB, t);
        t = timeOn(sA, [&] { CK(cudaMemcpyAsync(dH2, dH1, huge, cudaMemcpyDeviceToDevice, sA)); });
        pr("d2d_256MiB", t, "us");
        prbw("d2d_256MiB", huge, t);
        t = timeOn(sA, [&] { CK(cudaMemsetAsync(dH1, 0, huge, sA)); });
        pr("memset_256MiB", t, "us");
        prbw("memset_256MiB", huge, t);
    }

    // ---- kernels ----
    double tEmpty = timeOn(sA, [&] { empty_kernel<<<1, 1, 0, sA>>>(); CKLAUNCH(); });
    pr("empty_kernel_1x1", tEmpty, "us");
    {
        const int grids[] = {1, 132, 264, 1056, 8448, 65536};
        for (int g : grids) {
            size_t n = (size_t)g * 256;  // 65536*256*4 B = 64 MiB per array
            double t = timeOn(sA, [&] {
                scale_kernel<<<g, 256, 0, sA>>>((const float*)dA, (float*)dB, n);
                CKLAUNCH();
            });
            char key[64];
            std::snprintf(key, sizeof key, "scale_kernel_%dx256", g);
            pr(key, t, "us");
            if (g >= 1056) {
                std::snprintf(key, sizeof key, "scale_kernel_%dx256_bw", g);
                pr(key, gbps(n * 8, t), "GB/s(r+w)");
            }
        }
    }
    {
        const size_t n = (size_t)1 << 24;  // 64 MiB per int array
        int* a = (int*)dH1;
        int* b = (int*)dH2;
        int* c = (int*)dA;
        std::vector<int> ha(n), hb(n);
        for (size_t i = 0; i < n; ++i) { ha[i] = (int)i; hb[i] = 7; }
        CK(cudaMemcpy(a, ha.data(), n * 4, cudaMemcpyHostToDevice));
        CK(cudaMemcpy(b, hb.data(), n * 4, cudaMemcpyHostToDevice));
        double t = timeOn(sA, [&] { vector_add<<<65536, 256, 0, sA>>>(a, b, c, n); CKLAUNCH(); });
        pr("vector_add_16Mi_int_65536x256", t, "us");
        pr("vector_add_16Mi_int_65536x256_bw", gbps(n * 12, t), "GB/s(2r+1w)");
        CK(cudaMemcpy(ha.data(), c, n * 4, cudaMemcpyDeviceToHost));
        size_t bad = 0;
        for (size_t i = 0; i < n; ++i) bad += ha[i] != (int)i + 7;
        std::printf("vector_add_check = %zu mismatches\n", bad);
    }
    {
        const int N = 1000;
        double t = timeOn(sA, [&] {
            for (int i = 0; i < N; ++i) empty_kernel<<<1, 1, 0, sA>>>();
            CKLAUNCH();
        });
        pr("launch_throughput_1000_empty_total", t, "us");
        pr("launch_throughput_per_launch", t / N, "us");
    }

    // ---- concurrency: duplex, two H2D, copy/compute overlap ----
    {
        double tH = timeOn(sA, [&] { CK(cudaMemcpyAsync(dA, hA, big, cudaMemcpyHostToDevice, sA)); });
        double tD = timeOn(sA, [&] { CK(cudaMemcpyAsync(hB, dB, big, cudaMemcpyDeviceToHost, sA)); });
        double tBoth = timeForkJoin([&] {
            CK(cudaMemcpyAsync(dA, hA, big, cudaMemcpyHostToDevice, sA));
            CK(cudaMemcpyAsync(hB, dB, big, cudaMemcpyDeviceToHost, sB));
        });
        pr("duplex_h2d_64MiB_alone", tH, "us");
        pr("duplex_d2h_64MiB_alone", tD, "us");
        pr("duplex_h2d_d2h_64MiB_concurrent", tBoth, "us");
        pr("duplex_sum_alone", tH + tD, "us");
        pr("duplex_max_alone", std::max(tH, tD), "us");
        pr("duplex_aggregate_bw", gbps(2 * big, tBoth), "GB/s");

        double t2 = timeForkJoin([&] {
            CK(cudaMemcpyAsync(dA, hA, big, cudaMemcpyHostToDevice, sA));
            CK(cudaMemcpyAsync(dB, hB, big, cudaMemcpyHostToDevice, sB));
        });
        pr("two_h2d_64MiB_one_alone", tH, "us");
        pr("two_h2d_64MiB_concurrent", t2, "us");
        pr("two_h2d_aggregate_bw", gbps(2 * big, t2), "GB/s");

        const unsigned long long spinNs = 2000000ull;  // ~2 ms
        int* sink = (int*)dH2;
        double tK = timeOn(sB, [&] { spin_kernel<<<132, 256, 0, sB>>>(spinNs, sink); CKLAUNCH(); });
        double tO = timeForkJoin([&] {
            spin_kernel<<<132, 256, 0, sB>>>(spinNs, sink);
            CKLAUNCH();
            CK(cudaMemcpyAsync(dA, hA, big, cudaMemcpyHostToDevice, sA));
        });
        pr("overlap_h2d_64MiB_alone", tH, "us");
        pr("overlap_kernel_2ms_alone", tK, "us");
        pr("overlap_sum_alone", tH + tK, "us");
        pr("overlap_concurrent_total", tO, "us");
        pr("overlap_hidden_fraction", (tH + tK - tO) / std::min(tH, tK), "(1=full overlap)");
    }

    // ---- host-side API cost (wall clock) ----
    {
        using clk = std::chrono::steady_clock;
        const int N = 10000;
        void* noargs[1] = {nullptr};
        for (int i = 0; i < 200; ++i) CK(cudaLaunchKernel((const void*)empty_kernel, dim3(1), dim3(1), noargs, 0, sA));
        CK(cudaStreamSynchronize(sA));

        auto t0 = clk::now();
        for (int i = 0; i < N; ++i) CK(cudaLaunchKernel((const void*)empty_kernel, dim3(1), dim3(1), noargs, 0, sA));
        auto t1 = clk::now();
        CK(cudaStreamSynchronize(sA));
        auto t2 = clk::now();
        pr("host_cudaLaunchKernel_call", std::chrono::duration<double, std::micro>(t1 - t0).count() / N, "us");
        pr("host_cudaLaunchKernel_incl_drain", std::chrono::duration<double, std::micro>(t2 - t0).count() / N, "us");

        t0 = clk::now();
        for (int i = 0; i < N; ++i) CK(cudaEventRecord(evStart, sA));
        t1 = clk::now();
        CK(cudaStreamSynchronize(sA));
        pr("host_cudaEventRecord_call", std::chrono::duration<double, std::micro>(t1 - t0).count() / N, "us");

        for (int i = 0; i < 200; ++i) CK(cudaMemcpyAsync(dA, hA, 4, cudaMemcpyHostToDevice, sA));
        CK(cudaStreamSynchronize(sA));
        t0 = clk::now();
        for (int i = 0; i < N; ++i) CK(cudaMemcpyAsync(dA, hA, 4, cudaMemcpyHostToDevice, sA));
        t1 = clk::now();
        CK(cudaStreamSynchronize(sA));
        t2 = clk::now();
        pr("host_cudaMemcpyAsync_4B_pinned_call", std::chrono::duration<double, std::micro>(t1 - t0).count() / N, "us");
        pr("host_cudaMemcpyAsync_4B_pinned_incl_drain", std::chrono::duration<double, std::micro>(t2 - t0).count() / N, "us");

        // Round trip: launch empty kernel + cudaStreamSynchronize, as seen by the host.
        std::vector<double> rt;
        for (int i = 0; i < 1000; ++i) {
            auto a = clk::now();
            empty_kernel<<<1, 1, 0, sA>>>();
            CK(cudaStreamSynchronize(sA));
            auto b = clk::now();
            if (i >= 10) rt.push_back(std::chrono::duration<double, std::micro>(b - a).count());
        }
        pr("host_launch_plus_sync_roundtrip_median", median(rt), "us");
        // Round trip: 4-byte pinned H2D + sync.
        rt.clear();
        for (int i = 0; i < 1000; ++i) {
            auto a = clk::now();
            CK(cudaMemcpyAsync(dA, hA, 4, cudaMemcpyHostToDevice, sA));
            CK(cudaStreamSynchronize(sA));
            auto b = clk::now();
            if (i >= 10) rt.push_back(std::chrono::duration<double, std::micro>(b - a).count());
        }
        pr("host_memcpy4B_plus_sync_roundtrip_median", median(rt), "us");
    }

    CK(cudaDeviceSynchronize());
    CK(cudaFreeHost(hA)); CK(cudaFreeHost(hB));
    CK(cudaFree(dA)); CK(cudaFree(dB)); CK(cudaFree(dH1)); CK(cudaFree(dH2));
    std::printf("cuda_errors = %d count\n", g_errors);
    return g_errors ? 1 : 0;
}
