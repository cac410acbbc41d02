// The other translation unit of rdc_main.cu's program: the device function it calls.
__device__ int add_ten(int x) { return x + 10; }
