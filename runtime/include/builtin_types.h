/* builtin_types.h -- the types nvcc knows without an #include, gathered as the toolkit's
 * builtin_types.h gathers them: the runtime's types (driver_types.h), the rounding modes
 * (device_types.h), the texture and surface types (texture_types.h, surface_types.h) and the
 * vector types (vector_types.h). */
#ifndef __BUILTIN_TYPES_H__
#define __BUILTIN_TYPES_H__

#include "device_types.h"
#include "driver_types.h"
#include "surface_types.h"
#include "texture_types.h"
#include "vector_types.h"

#endif /* __BUILTIN_TYPES_H__ */
