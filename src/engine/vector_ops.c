// vector_ops.c: the integrator's vector arithmetic, compiled with the library's optimisation.
//
// CVODE and ARKODE do all their per-state work (predictor, corrector updates, error norms,
// Runge-Kutta stage sums) through the operations of an N_Vector. Debian's libsundials-dev
// 6.4.1 is built without optimisation (-O0: every element loaded from and stored to the stack),
// so its serial vector spends about 20 instructions an element where 2-5 do; on chain_64 those
// loops were a third of the run. The serial vector's operation table is public and meant to be
// replaced, so cs_vectorUseFastOps points the element-wise and reduction operations of a serial
// vector at the functions below; vectors the solvers clone from it inherit them.
//
// Each function computes exactly what the serial one does, in the same order and with the same
// special cases (SUNDIALS' src/nvector/serial/nvector_serial.c), so that results are the same
// to the bit: addition and multiplication commute exactly, but a*(x + y) is not a*x + a*y, and
// sums are accumulated in index order. The fused and vector-array operations are left unset,
// as in the serial vector, so the solvers keep calling the ones below in the same sequence.
#include <math.h>

#include <nvector/nvector_serial.h>

#include "engine/vector_ops.h"

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
