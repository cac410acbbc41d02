// A launch without its argument list: cu2cxx leaves it and warns at line 4.
__global__ void k() {}
void f() {
  k<<<1, 1>>>;
}
