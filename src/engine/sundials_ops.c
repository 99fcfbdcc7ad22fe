// sundials_ops.c: the arithmetic of the integrator's SUNDIALS objects, compiled with the
// library's optimisation.
//
// CVODE does all its per-state work (predictor, corrector updates, error norms) through the
// operations of an N_Vector, and BDF's Newton iteration
// through those of a matrix and a linear solver. Debian's libsundials-dev 6.4.1 is built
// without optimisation (-O0: every element loaded from and stored to the stack), so its serial
// vector spends about 20 instructions an element where 2-5 do, and its dense LU about ten an
// operation; on chain_64 the vector loops were a third of the run, on a stiff block the LU a
// fifth. These objects' operation tables are public and meant to be replaced (SUNDIALS'
// documented way to supply one's own implementation), so cs_vectorUseFastOps and
// cs_denseUseFastOps point the hot operations at the functions below (cs_denseSolver is a dense
// linear solver on them); vectors and matrices the solvers clone from them inherit them.
//
// Each function computes exactly what SUNDIALS' does, in the same order and with the same
// special cases (src/nvector/serial/nvector_serial.c, src/sunmatrix/dense,
// src/sundials/sundials_dense.c), so that results are the same to the bit: addition and
// multiplication commute exactly, but a*(x + y) is not a*x + a*y, and sums are accumulated in
// index order. The fused and vector-array operations are left unset, as in the serial vector,
// so the solvers keep calling the ones below in the same sequence.
#include <math.h>
#include <stdlib.h>

#include <nvector/nvector_serial.h>
#include <sunmatrix/sunmatrix_dense.h>

#include "engine/sundials_ops.h"

#define LEN(v) NV_LENGTH_S(v)
#define DATA(v) NV_DATA_S(v)


// y <- a x + y, with the serial vector's special cases a = 1 and a = -1
static void axpy(sunrealtype a, N_Vector x, N_Vector y) {
  sunindextype n = LEN(x);
  const sunrealtype* xd = DATA(x);
  sunrealtype* yd = DATA(y);
  if (a == 1.0) {
    for (sunindextype i = 0; i < n; i++) {
      yd[i] += xd[i];
    }
  } else if (a == -1.0) {
    for (sunindextype i = 0; i < n; i++) {
      yd[i] -= xd[i];
    }
  } else {
    for (sunindextype i = 0; i < n; i++) {
      yd[i] += a * xd[i];
    }
  }
}


// z <- a x + b y, by the same case analysis as N_VLinearSum_Serial
static void linearSum(sunrealtype a, N_Vector x, sunrealtype b, N_Vector y, N_Vector z) {
  if (b == 1.0 && z == y) {
    axpy(a, x, y);
    return;
  }
  if (a == 1.0 && z == x) {
    axpy(b, y, x);
    return;
  }
  sunindextype n = LEN(x);
  const sunrealtype* xd = DATA(x);
  const sunrealtype* yd = DATA(y);
  sunrealtype* zd = DATA(z);
  if (a == 1.0 && b == 1.0) {
    for (sunindextype i = 0; i < n; i++) {
      zd[i] = xd[i] + yd[i];
    }
  } else if (a == 1.0 && b == -1.0) {
    for (sunindextype i = 0; i < n; i++) {
      zd[i] = xd[i] - yd[i];
    }
  } else if (a == -1.0 && b == 1.0) {
    for (sunindextype i = 0; i < n; i++) {
      zd[i] = yd[i] - xd[i];
    }
  } else if (a == 1.0) {
    for (sunindextype i = 0; i < n; i++) {
      zd[i] = b * yd[i] + xd[i];
    }
  } else if (b == 1.0) {
    for (sunindextype i = 0; i < n; i++) {
      zd[i] = a * xd[i] + yd[i];
    }
  } else if (a == -1.0) {
    for (sunindextype i = 0; i < n; i++) {
      zd[i] = b * yd[i] - xd[i];
    }
  } else if (b == -1.0) {
    for (sunindextype i = 0; i < n; i++) {
      zd[i] = a * xd[i] - yd[i];
    }
  } else if (a == b) {
    for (sunindextype i = 0; i < n; i++) {
      zd[i] = a * (xd[i] + yd[i]);
    }
  } else if (a == -b) {
    for (sunindextype i = 0; i < n; i++) {
      zd[i] = a * (xd[i] - yd[i]);
    }
  } else {
    for (sunindextype i = 0; i < n; i++) {
      zd[i] = a * xd[i] + b * yd[i];
    }
  }
}


static void constant(sunrealtype c, N_Vector z) {
  sunindextype n = LEN(z);
  sunrealtype* zd = DATA(z);
  for (sunindextype i = 0; i < n; i++) {
    zd[i] = c;
  }
}


static void prod(N_Vector x, N_Vector y, N_Vector z) {
  sunindextype n = LEN(x);
  const sunrealtype* xd = DATA(x);
  const sunrealtype* yd = DATA(y);
  sunrealtype* zd = DATA(z);
  for (sunindextype i = 0; i < n; i++) {
    zd[i] = xd[i] * yd[i];
  }
}


static void divide(N_Vector x, N_Vector y, N_Vector z) {
  sunindextype n = LEN(x);
  const sunrealtype* xd = DATA(x);
  const sunrealtype* yd = DATA(y);
  sunrealtype* zd = DATA(z);
  for (sunindextype i = 0; i < n; i++) {
    zd[i] = xd[i] / yd[i];
  }
}


// z <- c x (in place, a copy or a negation when c is 1 or -1: the same values)
static void scale(sunrealtype c, N_Vector x, N_Vector z) {
  sunindextype n = LEN(x);
  const sunrealtype* xd = DATA(x);
  sunrealtype* zd = DATA(z);
  if (c == 1.0) {
    for (sunindextype i = 0; i < n; i++) {
      zd[i] = xd[i];
    }
  } else if (c == -1.0) {
    for (sunindextype i = 0; i < n; i++) {
      zd[i] = -xd[i];
    }
  } else {
    for (sunindextype i = 0; i < n; i++) {
      zd[i] = c * xd[i];
    }
  }
}


static void absolute(N_Vector x, N_Vector z) {
  sunindextype n = LEN(x);
  const sunrealtype* xd = DATA(x);
  sunrealtype* zd = DATA(z);
  for (sunindextype i = 0; i < n; i++) {
    zd[i] = fabs(xd[i]);
  }
}


static void inverse(N_Vector x, N_Vector z) {
  sunindextype n = LEN(x);
  const sunrealtype* xd = DATA(x);
  sunrealtype* zd = DATA(z);
  for (sunindextype i = 0; i < n; i++) {
    zd[i] = 1.0 / xd[i];
  }
}


static void addConst(N_Vector x, sunrealtype b, N_Vector z) {
  sunindextype n = LEN(x);
  const sunrealtype* xd = DATA(x);
  sunrealtype* zd = DATA(z);
  for (sunindextype i = 0; i < n; i++) {
    zd[i] = xd[i] + b;
  }
}


static sunrealtype dotProd(N_Vector x, N_Vector y) {
  sunindextype n = LEN(x);
  const sunrealtype* xd = DATA(x);
  const sunrealtype* yd = DATA(y);
  sunrealtype sum = 0.0;
  for (sunindextype i = 0; i < n; i++) {
    sum += xd[i] * yd[i];
  }
  return sum;
}


static sunrealtype maxNorm(N_Vector x) {
  sunindextype n = LEN(x);
  const sunrealtype* xd = DATA(x);
  sunrealtype max = 0.0;
  for (sunindextype i = 0; i < n; i++) {
    if (fabs(xd[i]) > max) {
      max = fabs(xd[i]);
    }
  }
  return max;
}


// the weighted sum of squares, in index order
static sunrealtype wSqrSum(N_Vector x, N_Vector w) {
  sunindextype n = LEN(x);
  const sunrealtype* xd = DATA(x);
  const sunrealtype* wd = DATA(w);
  sunrealtype sum = 0.0;
  for (sunindextype i = 0; i < n; i++) {
    sunrealtype p = xd[i] * wd[i];
    sum += p * p;
  }
  return sum;
}


static sunrealtype wrmsNorm(N_Vector x, N_Vector w) {
  return sqrt(wSqrSum(x, w) / (sunrealtype)LEN(x));
}


static sunrealtype wSqrSumMask(N_Vector x, N_Vector w, N_Vector id) {
  sunindextype n = LEN(x);
  const sunrealtype* xd = DATA(x);
  const sunrealtype* wd = DATA(w);
  const sunrealtype* idd = DATA(id);
  sunrealtype sum = 0.0;
  for (sunindextype i = 0; i < n; i++) {
    if (idd[i] > 0.0) {
      sunrealtype p = xd[i] * wd[i];
      sum += p * p;
    }
  }
  return sum;
}


static sunrealtype wrmsNormMask(N_Vector x, N_Vector w, N_Vector id) {
  return sqrt(wSqrSumMask(x, w, id) / (sunrealtype)LEN(x));
}


static sunrealtype minimum(N_Vector x) {
  sunindextype n = LEN(x);
  const sunrealtype* xd = DATA(x);
  sunrealtype min = xd[0];
  for (sunindextype i = 1; i < n; i++) {
    if (xd[i] < min) {
      min = xd[i];
    }
  }
  return min;
}


static void compare(sunrealtype c, N_Vector x, N_Vector z) {
  sunindextype n = LEN(x);
  const sunrealtype* xd = DATA(x);
  sunrealtype* zd = DATA(z);
  for (sunindextype i = 0; i < n; i++) {
    zd[i] = fabs(xd[i]) >= c ? 1.0 : 0.0;
  }
}


static sunbooleantype invTest(N_Vector x, N_Vector z) {
  sunindextype n = LEN(x);
  const sunrealtype* xd = DATA(x);
  sunrealtype* zd = DATA(z);
  sunbooleantype no_zero = SUNTRUE;
  for (sunindextype i = 0; i < n; i++) {
    if (xd[i] == 0.0) {
      no_zero = SUNFALSE;
    } else {
      zd[i] = 1.0 / xd[i];
    }
  }
  return no_zero;
}


void cs_vectorUseFastOps(N_Vector v) {
  if (!v || N_VGetVectorID(v) != SUNDIALS_NVEC_SERIAL) {
    return;
  }
  N_Vector_Ops ops = v->ops;
  ops->nvlinearsum = linearSum;
  ops->nvconst = constant;
  ops->nvprod = prod;
  ops->nvdiv = divide;
  ops->nvscale = scale;
  ops->nvabs = absolute;
  ops->nvinv = inverse;
  ops->nvaddconst = addConst;
  ops->nvdotprod = dotProd;
  ops->nvmaxnorm = maxNorm;
  ops->nvwrmsnorm = wrmsNorm;
  ops->nvwrmsnormmask = wrmsNormMask;
  ops->nvmin = minimum;
  ops->nvcompare = compare;
  ops->nvinvtest = invTest;
  // the local kernels the serial vector also offers (same arithmetic)
  ops->nvdotprodlocal = dotProd;
  ops->nvmaxnormlocal = maxNorm;
  ops->nvminlocal = minimum;
  ops->nvinvtestlocal = invTest;
  ops->nvwsqrsumlocal = wSqrSum;
  ops->nvwsqrsummasklocal = wSqrSumMask;
}


// ---------------------------------------------------------------------------------------------
// dense LU: SUNDIALS' denseGETRF and denseGETRS, operation for operation

int cs_luFactor(double* a, int n, sunindextype* piv, int (*stop)(void*), void* ctx) {
  for (int k = 0; k < n; k++) {
    // a large factorisation takes seconds: a stop request ends it
    if (stop && k % 16 == 0 && stop(ctx)) {
      return -1;
    }
    double* ck = a + (size_t)k * n;
    int p = k;
    double big = fabs(ck[k]);
    for (int i = k + 1; i < n; i++) {
      if (fabs(ck[i]) > big) {
        big = fabs(ck[i]);
        p = i;
      }
    }
    piv[k] = p;
    if (!(big > 0)) {
      return k + 1;
    }
    if (p != k) {
      for (int j = 0; j < n; j++) {
        double* cj = a + (size_t)j * n;
        double t = cj[k];
        cj[k] = cj[p];
        cj[p] = t;
      }
    }
    double inv = 1.0 / ck[k];
    for (int i = k + 1; i < n; i++) {
      ck[i] *= inv;
    }
    for (int j = k + 1; j < n; j++) {
      double* cj = a + (size_t)j * n;
      double f = cj[k];
      if (f != 0) {
        for (int i = k + 1; i < n; i++) {
          cj[i] -= f * ck[i];
        }
      }
    }
  }
  return 0;
}


void cs_luSolve(const double* restrict a, int n, const sunindextype* restrict piv,
                double* restrict b) {
  for (int k = 0; k < n; k++) {
    int p = (int)piv[k];
    if (p != k) {
      double t = b[k];
      b[k] = b[p];
      b[p] = t;
    }
  }
  // L y = b, two columns of L at a time: each b[i] takes the same two updates in the same
  // order as column by column, with half the passes over b
  int k = 0;
  for (; k + 1 < n; k += 2) {
    const double* ck = a + (size_t)k * n;
    const double* ck1 = ck + n;
    double bk = b[k];
    double bk1 = b[k + 1] - ck[k + 1] * bk;
    b[k + 1] = bk1;
    for (int i = k + 2; i < n; i++) {
      b[i] = (b[i] - ck[i] * bk) - ck1[i] * bk1;
    }
  }
  // (the last column of L has nothing below the diagonal)
  // U x = y, two columns at a time from the last
  k = n - 1;
  for (; k >= 1; k -= 2) {
    const double* ck = a + (size_t)k * n;
    const double* ck1 = ck - n;
    b[k] /= ck[k];
    double bk = b[k];
    b[k - 1] = (b[k - 1] - ck[k - 1] * bk) / ck1[k - 1];
    double bk1 = b[k - 1];
    for (int i = 0; i < k - 1; i++) {
      b[i] = (b[i] - ck[i] * bk) - ck1[i] * bk1;
    }
  }
  if (k == 0) {
    b[0] /= a[0];
  }
}


// the dense matrix operations CVODE's linear-solver interface calls at every Jacobian update
static int matZero(SUNMatrix A) {
  sunrealtype* a = SM_DATA_D(A);
  sunindextype n = SM_LDATA_D(A);
  for (sunindextype i = 0; i < n; i++) {
    a[i] = 0.0;
  }
  return SUNMAT_SUCCESS;
}


static int matCopy(SUNMatrix A, SUNMatrix B) {
  if (SUNMatGetID(B) != SUNMATRIX_DENSE || SM_ROWS_D(A) != SM_ROWS_D(B) ||
      SM_COLUMNS_D(A) != SM_COLUMNS_D(B)) {
    return SUNMAT_ILL_INPUT;
  }
  const sunrealtype* a = SM_DATA_D(A);
  sunrealtype* b = SM_DATA_D(B);
  sunindextype n = SM_LDATA_D(A);
  for (sunindextype i = 0; i < n; i++) {
    b[i] = a[i];
  }
  return SUNMAT_SUCCESS;
}


// A <- c A + I
static int matScaleAddI(sunrealtype c, SUNMatrix A) {
  sunindextype rows = SM_ROWS_D(A), cols = SM_COLUMNS_D(A);
  sunrealtype* a = SM_DATA_D(A);
  for (sunindextype j = 0; j < cols; j++) {
    sunrealtype* col = a + j * rows;
    for (sunindextype i = 0; i < rows; i++) {
      col[i] *= c;
    }
    if (j < rows) {
      col[j] += 1.0;
    }
  }
  return SUNMAT_SUCCESS;
}


static void denseFastOps(SUNMatrix A);

// A clone with the same operations: SUNDIALS' dense clone makes a matrix with its own default
// table, and CVODE's saved Jacobian is such a clone whose copy runs at every setup
static SUNMatrix matClone(SUNMatrix A) {
  SUNMatrix B = SUNDenseMatrix(SM_ROWS_D(A), SM_COLUMNS_D(A), A->sunctx);
  if (B) {
    denseFastOps(B);
  }
  return B;
}


static void denseFastOps(SUNMatrix A) {
  A->ops->zero = matZero;
  A->ops->copy = matCopy;
  A->ops->scaleaddi = matScaleAddI;
  A->ops->clone = matClone;
}


void cs_denseUseFastOps(SUNMatrix A) {
  if (A && SUNMatGetID(A) == SUNMATRIX_DENSE) {
    denseFastOps(A);
  }
}


// ---------------------------------------------------------------------------------------------
// the dense direct solver of the integrator: cs_luFactor and cs_luSolve, with a stop callback
// polled while it factors (SUNDIALS' dense solver has no place for one)

typedef struct DenseSolver {
  sunindextype* piv;
  sunindextype last_flag;
  int (*stop)(void*);
  void* ctx;
} DenseSolver;


static SUNLinearSolver_Type denseType(SUNLinearSolver LS) {
  (void)LS;
  return SUNLINEARSOLVER_DIRECT;
}


static SUNLinearSolver_ID denseId(SUNLinearSolver LS) {
  (void)LS;
  return SUNLINEARSOLVER_DENSE;
}


static int denseInitialize(SUNLinearSolver LS) {
  ((DenseSolver*)LS->content)->last_flag = SUNLS_SUCCESS;
  return SUNLS_SUCCESS;
}


// singular: recoverable (CVODE retries with a shorter step); stopped: unrecoverable
static int denseSetup(SUNLinearSolver LS, SUNMatrix A) {
  DenseSolver* c = LS->content;
  int r = cs_luFactor(SM_DATA_D(A), (int)SM_COLUMNS_D(A), c->piv, c->stop, c->ctx);
  c->last_flag = r < 0 ? SUNLS_MEM_FAIL : r > 0 ? SUNLS_LUFACT_FAIL : SUNLS_SUCCESS;
  return (int)c->last_flag;
}


static int denseSolve(SUNLinearSolver LS, SUNMatrix A, N_Vector x, N_Vector b, sunrealtype tol) {
  (void)tol;
  DenseSolver* c = LS->content;
  N_VScale(1.0, b, x);
  cs_luSolve(SM_DATA_D(A), (int)SM_COLUMNS_D(A), c->piv, N_VGetArrayPointer(x));
  c->last_flag = SUNLS_SUCCESS;
  return SUNLS_SUCCESS;
}


static sunindextype denseLastFlag(SUNLinearSolver LS) {
  return ((DenseSolver*)LS->content)->last_flag;
}


static int denseFree(SUNLinearSolver LS) {
  if (!LS) {
    return SUNLS_SUCCESS;
  }
  DenseSolver* c = LS->content;
  if (c) {
    free(c->piv);
    free(c);
  }
  LS->content = NULL;
  SUNLinSolFreeEmpty(LS);
  return SUNLS_SUCCESS;
}


SUNLinearSolver cs_denseSolver(SUNMatrix A, SUNContext sunctx, int (*stop)(void*), void* ctx) {
  SUNLinearSolver LS = SUNLinSolNewEmpty(sunctx);
  if (!LS) {
    return NULL;
  }
  DenseSolver* c = calloc(1, sizeof(DenseSolver));
  sunindextype n = SM_COLUMNS_D(A);
  if (c) {
    c->piv = malloc(sizeof(sunindextype) * (size_t)(n > 0 ? n : 1));
  }
  LS->content = c;
  LS->ops->gettype = denseType;
  LS->ops->getid = denseId;
  LS->ops->initialize = denseInitialize;
  LS->ops->setup = denseSetup;
  LS->ops->solve = denseSolve;
  LS->ops->lastflag = denseLastFlag;
  LS->ops->free = denseFree;
  if (!c || !c->piv) {
    denseFree(LS);
    return NULL;
  }
  c->stop = stop;
  c->ctx = ctx;
  return LS;
}
