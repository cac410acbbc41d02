// hangSample.cu: a sample of compat.sh's test corpus (check_nvcc.sh compat_script) that never ends: the run timeout must stop it.
#include <unistd.h>
int main() { for (;;) sleep(1); }
