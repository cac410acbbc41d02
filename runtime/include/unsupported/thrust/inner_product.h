/* thrust/inner_product.h -- a header of Thrust, which minicuda does not provide (see thrust/detail/config.h). */
#include "detail/config.h"
