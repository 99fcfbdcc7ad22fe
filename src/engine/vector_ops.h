// vector_ops.h: optimised arithmetic for the integrator's SUNDIALS vectors (vector_ops.c).
#ifndef CS_ENGINE_VECTOR_OPS_H
#define CS_ENGINE_VECTOR_OPS_H

#include <sundials/sundials_nvector.h>

// Point the arithmetic of serial vector v at the library's own kernels (the same results, bit
// for bit); vectors cloned from v afterwards inherit them. Other vectors are left alone.
void cs_vectorUseFastOps(N_Vector v);

#endif
