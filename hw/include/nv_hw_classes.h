// nv_hw_classes.h: the classes the simulated GPU implements, one class header each: the
// channel (class/clc86f.h, which includes its Ampere base class/clc56f.h), the copy engine
// (class/clc8b5.h), compute (class/clcbc0.h and its QMD, class/clcbc0qmd.h) and the usermode
// doorbell page (class/clc661.h, which includes class/clc361.h).
#pragma once

#include "class/clc661.h"
#include "class/clc86f.h"
#include "class/clc8b5.h"
#include "class/clcbc0.h"
#include "class/clcbc0qmd.h"

#define NV_HW_CLASSES(X)       \
    X(VOLTA_USERMODE_A)        \
    X(AMPERE_CHANNEL_GPFIFO_A) \
    X(HOPPER_USERMODE_A)       \
    X(HOPPER_CHANNEL_GPFIFO_A) \
    X(HOPPER_DMA_COPY_A)       \
    X(HOPPER_COMPUTE_A)

// "HOPPER_DMA_COPY_A" for 0xC8B5; nullptr for a class this GPU does not implement.
constexpr const char* nv_hw_class_name(NvU32 nvclass) {
    switch (nvclass) {
#define NV_HW_X(name) case name: return #name;
        NV_HW_CLASSES(NV_HW_X)
#undef NV_HW_X
        default: return nullptr;
    }
}
