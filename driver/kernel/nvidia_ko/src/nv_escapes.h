// Private to nvidia.ko: the escape handlers the ioctl table (nv.cpp) dispatches to. Each runs
// under nv_lock() on a kernel copy of the argument (`arg`, `size` bytes) and returns 0 with the
// RM status written into the argument, or -errno for nv-level failures.
#pragma once

#include "nv_internal.h"

namespace minicuda::nvidia {

long escape_rm_alloc(NvFile& nvf, kernel::File& file, void* arg, uint32_t size);
long escape_rm_free(NvFile& nvf, kernel::File& file, void* arg, uint32_t size);
long escape_rm_control(NvFile& nvf, kernel::File& file, void* arg, uint32_t size);
long escape_rm_alloc_memory(NvFile& nvf, kernel::File& file, void* arg, uint32_t size);
long escape_rm_map_memory(NvFile& nvf, kernel::File& file, void* arg, uint32_t size);
long escape_rm_unmap_memory(NvFile& nvf, kernel::File& file, void* arg, uint32_t size);
long escape_card_info(NvFile& nvf, kernel::File& file, void* arg, uint32_t size);
long escape_sys_params(NvFile& nvf, kernel::File& file, void* arg, uint32_t size);
long escape_register_fd(NvFile& nvf, kernel::File& file, void* arg, uint32_t size);

// mmap() of a node after NV_ESC_RM_MAP_MEMORY prepared it: maps the object into vma.
long nv_mmap_context(NvFile& nvf, kernel::Vma& vma);

}  // namespace minicuda::nvidia
