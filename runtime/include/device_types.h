/* device_types.h -- the rounding modes of the CUDA math API, as the toolkit's device_types.h
 * names them. Included by builtin_types.h. */
#ifndef __DEVICE_TYPES_H__
#define __DEVICE_TYPES_H__

/* Which way a result that is not representable is rounded (the _rn, _rz, _ru, _rd intrinsics). */
enum cudaRoundMode {
  cudaRoundNearest, /* to nearest, ties to even */
  cudaRoundZero,    /* toward zero */
  cudaRoundPosInf,  /* toward +infinity */
  cudaRoundMinInf   /* toward -infinity */
};

#endif /* __DEVICE_TYPES_H__ */
