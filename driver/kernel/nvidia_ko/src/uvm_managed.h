// uvm_managed: nvidia-uvm's managed ranges (cudaMallocManaged), private to the module.
//
// uvm.cpp owns the file and the ioctl table; this part owns what a managed range is: its pages,
// where each one is resident (nowhere, the CPU, the GPU), how pages migrate, and the two fault
// paths that move them: the GPU's replayable faults (serviced in batches) and the CPU's page
// faults. See uvm_managed.cpp for the mechanism.
#pragma once

#include <cstdint>

#include "nv_internal.h"

namespace minicuda::nvidia {

// mmap() of a uvm fd: [vma.start, +vma.length) becomes a managed range of owner (the UvmFile)
// with no page resident anywhere. Returns 0, -EINVAL for a read-only or write-only mapping,
// -ENOMEM when VRAM cannot back the range. Caller holds nv_lock().
long uvm_managed_mmap(const void* owner, kernel::Vma& vma);
// UVM_FREE of a managed range's base: releases its pages wherever they are. False if base is
// not the start of a managed range of owner. Caller holds nv_lock().
bool uvm_managed_free(const void* owner, uint64_t base);
// The file is closing: every managed range of owner goes.
void uvm_managed_release(const void* owner);
// UVM_MIGRATE on a managed range. NV_ERR_INVALID_ADDRESS if [base, base+length) is not inside
// one managed range of owner, NV_ERR_INVALID_DEVICE for an unknown destination.
NV_STATUS uvm_managed_migrate(const void* owner, const UVM_MIGRATE_PARAMS& params);
// The policy ioctls (UVM_SET_PREFERRED_LOCATION ... UVM_UNSET_ACCESSED_BY): records the policy
// on the range. NV_ERR_INVALID_ADDRESS outside one managed range, NV_ERR_INVALID_DEVICE for an
// unknown processor.
NV_STATUS uvm_managed_policy(const void* owner, uint64_t request, const void* arg);
// Module init: wires the GPU's replayable-fault interrupt and grid hook to this module, and
// installs the CPU page-fault path for managed ranges.
void uvm_managed_init();

}  // namespace minicuda::nvidia
