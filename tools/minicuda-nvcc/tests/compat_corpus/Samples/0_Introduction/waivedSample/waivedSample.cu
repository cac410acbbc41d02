// waivedSample.cu: a sample of compat.sh's test corpus (check_nvcc.sh compat_script) that waives itself (exit 2, Waiving).
#include <cstdio>

#include "helper.h"
int main() { printf("Waiving: needs two GPUs\n"); return EXIT_WAIVED; }
