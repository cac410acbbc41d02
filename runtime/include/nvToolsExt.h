/* minicuda's nvToolsExt.h: the older include path of the NVIDIA Tools Extension (version 2,
 * linked with -lnvToolsExt); version 3 keeps the same calls header-only, which minicuda serves
 * for both paths (nvtx3/nvToolsExt.h says what the calls do here). */
#ifndef MINICUDA_NVTOOLSEXT_H
#define MINICUDA_NVTOOLSEXT_H
#include "nvtx3/nvToolsExt.h"
#endif /* MINICUDA_NVTOOLSEXT_H */
