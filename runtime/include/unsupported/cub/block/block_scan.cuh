/* cub/block/block_scan.cuh -- a header of CUB, which minicuda does not provide (see cub/config.cuh). */
#include "../config.cuh"
