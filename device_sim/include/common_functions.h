// common_functions.h: device-side printf, as the toolkit's crt/common_functions.h declares it.
// Part of the kernel language (minicuda::device_code).
#ifndef __COMMON_FUNCTIONS_H__
#define __COMMON_FUNCTIONS_H__

// <cstdio> first: the printf macro below must not rename the C library's own declarations.
#include <cstdio>

// Device-side printf: in a .cu file (MINICUDA_CU_SOURCE, set by minicuda_add_executable) printf
// goes through the SM, which buffers kernel output until the host synchronises, as the real
// printf FIFO does; outside a kernel it is the C library's printf.
extern "C" int minicuda_printf(const char* format, ...) __attribute__((format(printf, 1, 2)));
#ifdef MINICUDA_CU_SOURCE
namespace std {
using ::minicuda_printf;
}
#define printf minicuda_printf
#endif

#endif /* __COMMON_FUNCTIONS_H__ */
