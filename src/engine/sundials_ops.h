// sundials_ops.h: the integrator's SUNDIALS operations, compiled here (sundials_ops.c).
#ifndef CS_ENGINE_SUNDIALS_OPS_H
#define CS_ENGINE_SUNDIALS_OPS_H

#include <sundials/sundials_linearsolver.h>
#include <sundials/sundials_matrix.h>
#include <sundials/sundials_nvector.h>

// Point the arithmetic of serial vector v at the library's own kernels (the same results, bit
// for bit); vectors cloned from v afterwards inherit them. Other vectors are left alone.
void cs_vectorUseFastOps(N_Vector v);

// The same for a dense matrix (zero, copy, c A + I, and its clones); NULL or other kinds are
// left alone. Its LU is cs_denseSolver's, below.
void cs_denseUseFastOps(SUNMatrix A);

// LU factorisation with partial pivoting of the n x n column-major matrix a, in place (the unit
// lower factor below the diagonal), as SUNDIALS' denseGETRF; returns 0, k + 1 when the k-th
// pivot is zero, or -1 when stop (nullable) returned nonzero for ctx (polled every 16 columns).
int cs_luFactor(double* a, int n, sunindextype* piv, int (*stop)(void*), void* ctx);

// The integrator's dense direct linear solver for the dense matrix A: cs_luFactor and
// cs_luSolve, with stop(ctx) (nullable) polled while it factors; a stop makes its setup fail
// unrecoverably, so that CVODE returns at once. NULL when out of memory.
SUNLinearSolver cs_denseSolver(SUNMatrix A, SUNContext sunctx, int (*stop)(void*), void* ctx);
// Solve with cs_luFactor's factors (as denseGETRS); b is overwritten by the solution. b must
// not overlap a or piv.
void cs_luSolve(const double* restrict a, int n, const sunindextype* restrict piv,
                double* restrict b);

#endif
