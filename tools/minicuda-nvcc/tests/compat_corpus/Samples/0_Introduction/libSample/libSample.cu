// libSample.cu: a sample of compat.sh's test corpus (check_nvcc.sh compat_script) that needs cuBLAS: excluded, never built.
#include <cublas_v2.h>
int main() { return 0; }
