// sm_32_intrinsics.h: __ldg, the read-only data cache load (a plain load here), as the toolkit's
// sm_32_intrinsics.h. Part of the kernel language
// (minicuda::device_code); the functions are only valid inside a kernel.
#ifndef __SM_32_INTRINSICS_H__
#define __SM_32_INTRINSICS_H__

template <class T>
inline T __ldg(const T* p) { return *p; }

#endif /* __SM_32_INTRINSICS_H__ */
