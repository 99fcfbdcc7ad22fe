// ark.c: the integrator "ark", a linearly implicit additive Runge-Kutta method. It is rk.c's
// csRk with the part below added (cs_rkArkInit); reports, commits and resets work as for rk.
//
// Why: a body held by velocity-regularized friction (Hunt-Crossley, compliant points, smooth
// spheres: a friction force mu N v / v_t below the transition speed v_t) has real eigenvalues
// of order mu N / (m v_t) in its right-hand side, thousands per second, and an explicit
// method's steps are then held by its stability limit (Dormand-Prince: h |lambda| <= 3.3), not
// by the accuracy asked for. BDF is not bound by stability, but its steps are short and costly
// where contacts come and go, and its multistep history is restarted by auto-update commits.
//
// The method splits the right-hand side exactly, at each step's start y_n,
//   f(y) = [f(y) - L (y - y_n)] + L (y - y_n),
// with L the Jacobian of f in the group's positions and speeds (difference quotients, one
// evaluation per state, a speed's column keeping the position stage; or the caller's own: for
// a group that is one free body, jacobian.c forms it from the force elements' derivatives and
// solves its linear systems by their structure), and integrates the first
// part, the nonlinear remainder, with the explicit table and the second, linear part with the
// implicit (ESDIRK) table of Kennedy and Carpenter's additive pair ARK4(3)6L[2]SA ("Additive
// Runge-Kutta schemes for convection-diffusion-reaction equations", Appl. Numer. Math. 44,
// 2003), whose coefficients come from SUNDIALS' ARKODE. The split is exact, so the method keeps
// its order 4; with L the Jacobian the explicit part is not stiff. The implicit part being
// linear, a stage costs one evaluation and one solve with I - h gamma L, factored once per step
// try: no Newton iteration. The elements' own states (dissipated energies), on which nothing
// depends, stay explicit.
//
// With the two tables sharing their weights, the solution is y_n + h sum b_i F_i and the error
// estimate h sum (b_i - d_i) F_i over the stages' full derivatives F_i, filtered through
// (I - h gamma L)^-1 as RADAU5 filters its estimate, so that a stiff direction's fast decay
// does not count as error. The derivative at the step's end is evaluated once the step passes
// (it is the next step's first stage, and the integrator's step-end statistics and commits read
// that realization); the dense output is the cubic Hermite interpolant of the step's ends. Step
// control as in rk.c (weighted RMS norm, Hairer's PI controller with the embedded order).
//
// Measured choices (docs/performance.md, "ark"): L is formed afresh every step. L of the
// speeds alone (6 of a free body's 13 columns) leaves the positions' stiff coupling to the
// damping explicit, and the error estimate then misses the order reduction: x'' + 10001 x' +
// 1e4 x = 0 ended 180 times the tolerance off. L kept for several steps saves little and lets
// errors through the same way. ARK5(4)8L[2]SA took more
// evaluations at equal error, ARK4(3)7L[2]SA was no better; the error filter saves a third of
// the evaluations.
//
// The right-hand sides of the engine do not depend on time explicitly, so L has no time
// column: a problem forced in time through a stiff term (Prothero and Robinson's) would be
// integrated with its forcing explicit.
#include <float.h>
#include <math.h>
#include <string.h>

#include "contactsim/contactsim.h"
#include "engine/rk.h"
#include "engine/sundials_ops.h"

// a stage state further than this times (|y| + 1) from the step's start: a diverging step
static const double DIVERGED = 1e6;


struct csArk {
  csArkTable tab;     // the pair (its implicit table's diagonal, gamma, is ai[1][1])
  int ni;             // the implicit block: the group's positions and speeds
  int* idx;           // (ni) their indices in y
  double* L;          // (ni x ni, column-major) the Jacobian of f on the block
  double* W;          // (ni x ni) LU of I - h gamma L
  sunindextype* piv;  // (ni)
  double* F;          // (s x n) stage derivatives
  double* FI;         // (s x ni) the implicit part at the stages, L (z - y_n)
  double* z;          // (n) stage state
  double* fold;       // (n) f at the step's start, kept for the dense output
  double* work;       // (n) scratch: a quotient's evaluation, a stage's solve, the error's filter
  double hw;          // h gamma that W was factored for (0: none)
};


int cs_rkArkInit(csRk* rk, const csArkTable* tab, int ni, const int* idx) {
  int n = rk->n;
  csArk* a = csu_malloc(sizeof(csArk));
  if (!a) {
    return CS_ERR_MEMORY;
  }
  memset(a, 0, sizeof(*a));
  rk->ark = a;
  // a pair sharing its nodes and weights, the implicit table an ESDIRK (first stage explicit,
  // one diagonal coefficient)
  int s = tab->s;
  int bad = s < 2 || s > CS_ARK_MAX_STAGES || tab->ai[0][0] != 0;
  for (int i = 1; !bad && i < s; i++) {
    bad = tab->ai[i][i] != tab->ai[1][1];
  }
  if (bad) {
    return CS_ERR_SOLVER;
  }
  a->tab = *tab;
  size_t m = (size_t)(n > 0 ? n : 1), mi = (size_t)(ni > 0 ? ni : 1);
  a->ni = ni;
  a->idx = csu_malloc(sizeof(int) * mi);
  // the dense Jacobian and its LU, unless the caller's solver keeps its own
  size_t ml = rk->matrix_free ? 1 : mi;
  a->L = csu_malloc(sizeof(double) * ml * ml);
  a->W = csu_malloc(sizeof(double) * ml * ml);
  a->piv = csu_malloc(sizeof(sunindextype) * ml);
  a->F = csu_malloc(sizeof(double) * (size_t)s * m);
  a->FI = csu_malloc(sizeof(double) * (size_t)s * mi);
  a->z = csu_malloc(sizeof(double) * m);
  a->fold = csu_malloc(sizeof(double) * m);
  a->work = csu_malloc(sizeof(double) * m);
  if (!a->idx || !a->L || !a->W || !a->piv || !a->F || !a->FI || !a->z || !a->fold || !a->work) {
    return CS_ERR_MEMORY;
  }
  if (ni > 0) {
    memcpy(a->idx, idx, sizeof(int) * (size_t)ni);
  }
  return CS_OK;
}


void cs_rkArkFree(csArk* a) {
  if (!a) {
    return;
  }
  csu_free(a->idx, 0);
  csu_free(a->L, 0);
  csu_free(a->W, 0);
  csu_free(a->piv, 0);
  csu_free(a->F, 0);
  csu_free(a->FI, 0);
  csu_free(a->z, 0);
  csu_free(a->fold, 0);
  csu_free(a->work, 0);
  csu_free(a, 0);
}


// whether z is a diverging step's state: some entry further than DIVERGED (|y| + 1) from y
static int diverges(const double* z, const double* y, int n) {
  for (int i = 0; i < n; i++) {
    if (!(fabs(z[i] - y[i]) <= DIVERGED * (fabs(y[i]) + 1))) {
      return 1;
    }
  }
  return 0;
}


// one evaluation, counted
static int eval(csRk* rk, double t, const double* y, double* ydot) {
  rk->nrhs++;
  return rk->f(t, y, ydot, rk->ctx);
}


// L at (t, y) by forward differences from f0 = f(t, y), the last evaluation; < 0 when an
// evaluation asked to stop. A column whose evaluation cannot be made (forces not finite) or
// whose quotients are not finite is left zero: that state's direction is then integrated
// explicitly, the split staying exact.
static int jacobian(csRk* rk, double t, const double* f0) {
  csArk* a = rk->ark;
  int ni = a->ni;
  double* y = rk->y;
  double* fp = a->work;
  if (rk->fjac) {
    int r = rk->fjac(t, y, a->L, rk->ctx);
    if (r < 0) {
      return r;
    }
    rk->njac++;
    a->hw = 0;
    return 0;
  }
  csRkRhs f = rk->fcolumn ? rk->fcolumn : rk->f;
  for (int j = 0; j < ni; j++) {
    int ij = a->idx[j];
    double yj = y[ij];
    // the increment: sqrt(eps) relative, and no smaller than sqrt(eps) of the tolerance's scale
    double inc = sqrt(DBL_EPSILON) * fmax(fabs(yj), rk->atol / fmax(rk->rtol, DBL_EPSILON));
    y[ij] = yj + inc;
    inc = y[ij] - yj;
    rk->nrhs_jac++;
    int r = f(t, y, fp, rk->ctx);
    y[ij] = yj;
    if (r < 0) {
      return r;
    }
    double* col = a->L + (size_t)j * ni;
    int finite = r == 0;
    for (int i = 0; finite && i < ni; i++) {
      col[i] = (fp[a->idx[i]] - f0[a->idx[i]]) / inc;
      finite = isfinite(col[i]);
    }
    if (!finite) {
      memset(col, 0, sizeof(double) * (size_t)ni);
    }
  }
  rk->njac++;
  a->hw = 0;
  return 0;
}


// W = I - hg L, factored (by the caller's solver when it has one); < 0 when singular
static int factor(csRk* rk, double hg) {
  csArk* a = rk->ark;
  int ni = a->ni;
  if (rk->wfactor) {
    int ok = rk->wfactor(rk->ctx, a->L, hg) == 0;
    a->hw = ok ? hg : 0;
    return ok ? 0 : -1;
  }
  for (int j = 0; j < ni; j++) {
    for (int i = 0; i < ni; i++) {
      a->W[(size_t)j * ni + i] = (i == j) - hg * a->L[(size_t)j * ni + i];
    }
  }
  int ok = cs_luFactor(a->W, ni, a->piv, NULL, NULL) == 0;
  a->hw = ok ? hg : 0;
  return ok ? 0 : -1;
}


// x = W^-1 x
static void solve(csRk* rk, double* x) {
  if (rk->wsolve) {
    rk->wsolve(rk->ctx, x);
  } else {
    cs_luSolve(rk->ark->W, rk->ark->ni, rk->ark->piv, x);
  }
}


csRkStatus cs_rkArkStep(csRk* rk, double tstop) {
  csArk* a = rk->ark;
  int n = rk->n, ni = a->ni, s = a->tab.s;
  double* y = rk->y;
  double* f0 = rk->k;  // f(t, y): the first stage
  double* yn = rk->ynew;
  double* z = a->z;
  double h;
  csRkStatus begun = cs_rkBegin(rk, tstop, &h);
  if (begun != CS_RK_OK) {
    return begun;
  }
  // L at the step's start
  if (ni > 0 && jacobian(rk, rk->t, f0) < 0) {
    return CS_RK_RHS_FAIL;
  }
  int rhs_fails = 0;
  const double expo = 1.0 / (fmin(a->tab.q, a->tab.p) + 1);
  const double gamma = a->tab.ai[1][1];
  for (;;) {
    int last = 0;
    if (cs_rkTry(rk, tstop, &h, &last) != 0) {
      return CS_RK_STEP_TOO_SMALL;
    }
    double t = rk->t;
    if (ni > 0 && a->hw != h * gamma && factor(rk, h * gamma) != 0) {
      // I - h gamma L singular at this step (h gamma is an inverse eigenvalue of L): a
      // shorter one, as after a failed error test
      h = cs_rkReject(rk, h, INFINITY);
      continue;
    }
    int r = 0, diverged = 0;
    memcpy(a->F, f0, sizeof(double) * (size_t)n);
    for (int i = 0; i < ni; i++) {
      a->FI[i] = 0;
    }
    for (int st = 1; r == 0 && st < s; st++) {
      // z = y + h sum_{j<st} (ae F_j + (ai - ae) FI_j), then the implicit solve on the block
      memcpy(z, y, sizeof(double) * (size_t)n);
      for (int j = 0; j < st; j++) {
        const double* restrict Fj = a->F + (size_t)j * n;
        double coef = h * a->tab.ae[st][j];
        for (int i = 0; i < n; i++) {
          z[i] += coef * Fj[i];
        }
      }
      double* fi = a->FI + (size_t)st * ni;
      for (int k = 0; k < ni; k++) {
        fi[k] = z[a->idx[k]] - y[a->idx[k]];  // becomes delta = z_u - u_n after the solve
      }
      for (int j = 1; j < st; j++) {
        const double* restrict FIj = a->FI + (size_t)j * ni;
        double coef = h * (a->tab.ai[st][j] - a->tab.ae[st][j]);
        for (int k = 0; k < ni; k++) {
          fi[k] += coef * FIj[k];
        }
      }
      // (I - hg L) delta = rhs, so the implicit part at the stage, L delta, is
      // (delta - rhs) / hg
      double* rhs = a->work;
      memcpy(rhs, fi, sizeof(double) * (size_t)ni);
      if (ni > 0) {
        solve(rk, fi);
      }
      double hg_inv = 1.0 / (h * gamma);
      for (int k = 0; k < ni; k++) {
        z[a->idx[k]] = y[a->idx[k]] + fi[k];
        fi[k] = (fi[k] - rhs[k]) * hg_inv;
      }
      // a stage state millions of times its own scale away from the step's start: the step
      // diverges (a long step in free flight that meets a stiff contact, where L knew none),
      // rejected as a failed error test before the forces overflow
      diverged = diverges(z, y, n);
      if (diverged) {
        break;
      }
      r = eval(rk, t + a->tab.c[st] * h, z, a->F + (size_t)st * n);
    }
    double tnew = last ? tstop : t + h;
    double err = diverged ? 1e10 : 0;
    if (r == 0 && !diverged) {
      double sum = 0;
      double* ev = z;  // the stages are done: z holds the error estimate
      memcpy(yn, y, sizeof(double) * (size_t)n);
      memset(ev, 0, sizeof(double) * (size_t)n);
      for (int j = 0; j < s; j++) {
        const double* restrict Fj = a->F + (size_t)j * n;
        double cb = h * a->tab.b[j], ce = h * (a->tab.b[j] - a->tab.d[j]);
        for (int i = 0; i < n; i++) {
          yn[i] += cb * Fj[i];
          ev[i] += ce * Fj[i];
        }
      }
      // the solution held to the stages' bound too: with derivatives so large that their sum
      // is all rounding, the filtered estimate can look small
      diverged = diverges(yn, y, n);
      if (ni > 0) {
        // the estimate's stiff part filtered, as in RADAU5: (I - h gamma L)^-1 e on the block
        double* eu = a->work;
        for (int k = 0; k < ni; k++) {
          eu[k] = ev[a->idx[k]];
        }
        solve(rk, eu);
        for (int k = 0; k < ni; k++) {
          ev[a->idx[k]] = eu[k];
        }
      }
      for (int i = 0; i < n; i++) {
        double w = rk->rtol * csu_max(fabs(y[i]), fabs(yn[i])) + rk->atol;
        sum += (ev[i] / w) * (ev[i] / w);
      }
      err = n > 0 ? sqrt(sum / n) : 0.0;
      if (!isfinite(err) || diverged) {
        err = 1e10;
      }
      if (err <= 1.0) {
        // the derivative at the end: the next step's first stage
        memcpy(a->fold, f0, sizeof(double) * (size_t)n);
        r = eval(rk, tnew, yn, f0);
        if (r != 0) {
          memcpy(f0, a->fold, sizeof(double) * (size_t)n);
        }
      }
    }
    if (r != 0) {
      csRkStatus st = cs_rkRetryShorter(rk, r, &rhs_fails, &h);
      if (st != CS_RK_OK) {
        return st;
      }
      continue;
    }
    if (err <= 1.0 && cs_rkGrazed(rk, tnew)) {
      // taken again, ending where the graze begins: from the start's derivative
      memcpy(f0, a->fold, sizeof(double) * (size_t)n);
      continue;
    }
    double fac11, fac = cs_rkController(rk, err, expo, &fac11);
    if (err <= 1.0) {
      // dense output: the cubic Hermite interpolant of the step's ends
      cs_rkHermite(rk, yn, a->fold, f0, h);
      memcpy(y, yn, sizeof(double) * (size_t)n);
      cs_rkAccept(rk, tnew, err, fac);
      return CS_RK_OK;
    }
    h = cs_rkReject(rk, h, fac11);
  }
}
