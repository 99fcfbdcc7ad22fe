// rk.c: the explicit Runge-Kutta integrators "rk", Dormand-Prince 5(4) (Dormand and Prince 1980;
// MATLAB's ode45, SciPy's RK45), 7 stages of which the last is the first of the next step, and
// "rk23", Bogacki-Shampine 3(2) (Bogacki and Shampine 1989; MATLAB's ode23, SciPy's RK23), 4
// stages of which the last is the first of the next.
//
// Why the second pair: where a loose tolerance is enough (a millimetre over a run) or the steps
// are held by stability (stops on light links), the error asked for does not need 5th order,
// and a step of three evaluations goes further per evaluation than one of six: the pair's
// stability boundary on the negative real axis is 2.51 for 3 evaluations against 3.3 for 6.
// chain_4 within 1 mm takes 2,921 evaluations with it against 4,490 with Dormand-Prince
// (docs/performance.md, "rk23"). At tight tolerances its 3rd order costs more steps.
//
// Why our own rather than SUNDIALS' ARKODE (ERKStep, the same method): the integrator's
// arithmetic is a few hundred lines of textbook code, while Debian's libsundials is built
// without optimisation, and on the models contactsim integrates (tens of states) ERKStep's
// per-step bookkeeping cost several times the right-hand sides themselves: on
// sphere_bounce_roll 109 of the run's 177 million instructions were ERKStep's, for 68 in the
// forces and dynamics. Everything here is allocated once, in cs_rkNew.
//
// The methods (Hairer, Norsett and Wanner, "Solving ODEs I", II.4-5 and the code DOPRI5):
// - error: the difference of the 5th- and 4th-order solutions (Bogacki-Shampine: 3rd and 2nd),
//   in the weighted RMS norm CVODE uses, weights 1 / (rtol max(|y_old|, |y_new|) + atol); a
//   step passes at norm <= 1;
// - step size: Hairer's PI controller (exponents 0.2 - 0.75 beta, Bogacki-Shampine 1/3 - 0.75
//   beta, and beta = 0.04, safety 0.9, growth at most 10x, shrink at most 5x), no growth right
//   after a rejection;
// - first step: from f at the start and one Euler step (one evaluation), the step whose Euler
//   error is half the tolerance, as CVODE and ARKODE begin;
// - dense output: Shampine's continuous extension of order 4 (Dormand-Prince), the cubic
//   Hermite interpolant of the step's ends and their derivatives (Bogacki-Shampine), from the
//   stages (no evaluation);
// - onsets (shared with ark.c): where the caller predicts that a force element starts to act
//   (rk->tonset: a contact's surfaces touch, a stop engages; csForceKind.onset), the force's
//   derivatives jump and a step across it has an error estimate of the wrong order: the
//   controller, seeing an exact flight, grows the step tenfold into the contact and shrinks it
//   fivefold per rejection. A step that would cross the onset ends there instead, and the first
//   step after it is no longer than the controller proposed after the last onset's first step
//   (docs/performance.md, "Steps that end where a contact begins").
#include <float.h>
#include <math.h>
#include <string.h>

#include "contactsim/contactsim.h"
#include "engine/rk.h"

// Butcher tableau (c, a) and the 5th-order weights b (the last row of a: first same as last)
static const double C2 = 1.0 / 5, C3 = 3.0 / 10, C4 = 4.0 / 5, C5 = 8.0 / 9;
static const double A21 = 1.0 / 5;
static const double A31 = 3.0 / 40, A32 = 9.0 / 40;
static const double A41 = 44.0 / 45, A42 = -56.0 / 15, A43 = 32.0 / 9;
static const double A51 = 19372.0 / 6561, A52 = -25360.0 / 2187, A53 = 64448.0 / 6561,
                    A54 = -212.0 / 729;
static const double A61 = 9017.0 / 3168, A62 = -355.0 / 33, A63 = 46732.0 / 5247,
                    A64 = 49.0 / 176, A65 = -5103.0 / 18656;
static const double A71 = 35.0 / 384, A73 = 500.0 / 1113, A74 = 125.0 / 192,
                    A75 = -2187.0 / 6784, A76 = 11.0 / 84;
// b - b* (5th minus 4th order), the error estimate
static const double E1 = 71.0 / 57600, E3 = -71.0 / 16695, E4 = 71.0 / 1920,
                    E5 = -17253.0 / 339200, E6 = 22.0 / 525, E7 = -1.0 / 40;
// Shampine's dense output (DOPRI5's CONTD5)
static const double D1 = -12715105075.0 / 11282082432.0, D3 = 87487479700.0 / 32700410799.0,
                    D4 = -10690763975.0 / 1880347072.0, D5 = 701980252875.0 / 199316789632.0,
                    D6 = -1453857185.0 / 822651844.0, D7 = 69997945.0 / 29380423.0;

// Bogacki-Shampine: nodes, the 3rd-order solution (the last row: first same as last), and b - b*
// (3rd minus 2nd order), the error estimate
static const double BS_C2 = 1.0 / 2, BS_C3 = 3.0 / 4;
static const double BS_A21 = 1.0 / 2, BS_A32 = 3.0 / 4;
static const double BS_A41 = 2.0 / 9, BS_A42 = 1.0 / 3, BS_A43 = 4.0 / 9;
static const double BS_E1 = -5.0 / 72, BS_E2 = 1.0 / 12, BS_E3 = 1.0 / 9, BS_E4 = -1.0 / 8;

// the controller (DOPRI5's defaults)
static const double BETA = 0.04, SAFE = 0.9, FAC_GROW = 10.0, FAC_SHRINK = 0.2;
// h |lambda| above which a step counts as held by stability (DOPRI5's stiffness test), just
// inside each method's stability boundary on the negative real axis (3.31 and 2.51: the real
// roots of |R(z)| = 1 for the two stability polynomials)
static const double STIFF_BOUND = 3.25, STIFF_BOUND_BS = 2.45;
// no try cut at an onset or within a graze is shorter than this many roundings of t (cs_rkTry
// calls one of 16 lost in rounding)
static const double GRAZE_ROUNDINGS = 64;
// a right-hand side that cannot be evaluated: the step is cut by this, at most this many times
static const double RHS_CUT = 0.25;
enum { RHS_TRIES = 10 };


csRk* cs_rkNew(int n, csRkRhs f, void* ctx, double t0, double* y, double rtol, double atol,
               double hmax, double h0) {
  csRk* rk = csu_malloc(sizeof(csRk));
  if (!rk) {
    return NULL;
  }
  memset(rk, 0, sizeof(*rk));
  size_t m = (size_t)(n > 0 ? n : 1);
  rk->k = csu_malloc(sizeof(double) * 7 * m);
  rk->ynew = csu_malloc(sizeof(double) * m);
  rk->dense = csu_malloc(sizeof(double) * 5 * m);
  if (!rk->k || !rk->ynew || !rk->dense) {
    cs_rkFree(rk);
    return NULL;
  }
  rk->n = n;
  rk->f = f;
  rk->ctx = ctx;
  rk->rtol = rtol;
  rk->atol = atol;
  rk->hmax = hmax;
  rk->t = rk->told = t0;
  rk->y = y;
  rk->h = h0 > 0 ? h0 : 0;
  rk->facold = 1e-4;
  rk->tonset = NAN;
  rk->tgraze_end = -INFINITY;
  return rk;
}


void cs_rkFree(csRk* rk) {
  if (!rk) {
    return;
  }
  csu_free(rk->k, 0);
  csu_free(rk->ynew, 0);
  csu_free(rk->dense, 0);
  cs_rkArkFree(rk->ark);
  csu_free(rk, 0);
}


void cs_rkReset(csRk* rk, double t) {
  rk->t = t;
  rk->fsal = 0;
}


void cs_rkRestart(csRk* rk, double t, double h0) {
  cs_rkReset(rk, t);
  rk->told = t;
  rk->hlast = 0;
  rk->h = h0 > 0 ? h0 : 0;
  rk->facold = 1e-4;
  rk->reject = 0;
  rk->tonset = NAN;
  rk->capped = rk->entering = rk->regraze = rk->ingraze = rk->grazed = 0;
  rk->tgraze_end = -INFINITY;
  rk->hentry = 0;
}


// one stage: f, counted
static int stage(csRk* rk, double t, const double* y, double* ydot) {
  rk->nrhs++;
  return rk->f(t, y, ydot, rk->ctx);
}


// weighted RMS norm of v with weights from y
static double wrms(const csRk* rk, const double* v, const double* y) {
  double s = 0;
  for (int i = 0; i < rk->n; i++) {
    double w = v[i] / (rk->rtol * fabs(y[i]) + rk->atol);
    s += w * w;
  }
  return rk->n > 0 ? sqrt(s / rk->n) : 0.0;
}


// The first step: a probe h0 from |y| / |f| (Hairer's HINIT), then from the change of f over an
// Euler step of h0 the step whose Euler error is half the tolerance; uses k[1] and ynew as
// scratch
int cs_rkInitialStep(csRk* rk, double hlimit, double* h) {
  int n = rk->n;
  const double* f0 = rk->k;
  double d0 = wrms(rk, rk->y, rk->y), d1 = wrms(rk, f0, rk->y);
  double h0 = (d0 < 1e-5 || d1 < 1e-5) ? 1e-6 : 0.01 * d0 / d1;
  h0 = fmin(h0, hlimit);
  for (int i = 0; i < n; i++) {
    rk->ynew[i] = rk->y[i] + h0 * f0[i];
  }
  int r = stage(rk, rk->t + h0, rk->ynew, rk->k + n);
  if (r != 0) {
    // no estimate: a small step, which the controller will grow
    *h = fmin(h0 * 1e-3, hlimit);
    return r < 0 ? r : 0;
  }
  for (int i = 0; i < n; i++) {
    rk->ynew[i] = rk->k[n + i] - f0[i];
  }
  double d2 = wrms(rk, rk->ynew, rk->y) / h0;
  // the step whose Euler error d2 h^2 / 2 is half the tolerance, as CVODE and ARKODE start:
  // Hairer's (0.01 / max(d1, d2))^(1/5), the 5th-order method's own, can be a hundred times
  // longer, and a first step that long lets auto-update variables (an exponential spring's
  // anchor) see a whole transient at once; the controller grows the step tenfold a step
  double h1 = d2 <= 1e-15 ? fmax(1e-6, h0 * 1e-3) : 0.5 * sqrt(2.0 / d2);
  *h = fmin(fmin(100 * h0, h1), hlimit);
  return 0;
}


// ---------------------------------------------------------------------------------------------
// the step's frame, shared with ark.c

csRkStatus cs_rkBegin(csRk* rk, double tstop, double* h) {
  double hcap = rk->hmax > 0 ? rk->hmax : INFINITY;
  double hlimit = fmin(hcap, tstop - rk->t);
  if (!(hlimit > 0)) {
    return CS_RK_STEP_TOO_SMALL;
  }
  rk->hprop = rk->h;
  // the first stage: the last step's last one unless the state changed since
  if (!rk->fsal) {
    int r = stage(rk, rk->t, rk->y, rk->k);
    if (r < 0) {
      return CS_RK_RHS_FAIL;
    }
    if (r > 0) {
      return CS_RK_RHS_REPEATED;  // nothing to shorten: the start itself cannot be evaluated
    }
    rk->fsal = 1;
  }
  *h = rk->h;
  if (!(*h > 0) && cs_rkInitialStep(rk, hlimit, h) < 0) {
    return CS_RK_RHS_FAIL;
  }
  return CS_RK_OK;
}


int cs_rkTry(csRk* rk, double tstop, double* h, int* last) {
  // end exactly at tstop when within reach (a step of 1% more would pass it) and the largest
  // step allows it
  double hcap = rk->hmax > 0 ? rk->hmax : INFINITY;
  *last = 0;
  *h = fmin(*h, fmin(hcap, tstop - rk->t));
  // within a graze, but for the step taken again to end where it begins (capped at it below)
  if (rk->ingraze || (rk->t < rk->tgraze_end && !rk->regraze)) {
    *h = fmin(*h, rk->hgraze);
  }
  // a force element predicted to start acting within the step (a contact's onset, a stop's):
  // the step ends there, so that no step's error estimate spans the jump in the force's
  // derivatives, unless the onset is within the step's first fifth (then the step is as long as
  // the controller would make it after one rejection anyway: a contact step)
  // (nor when the onset is within a few roundings of t: a step that short could not be taken)
  double ton = rk->tonset - rk->t;
  rk->capped = ton < *h && (ton >= FAC_SHRINK * *h || rk->regraze) &&
               ton > GRAZE_ROUNDINGS * DBL_EPSILON * fabs(rk->t);
  if (rk->capped) {
    *h = ton;
  }
  // (not a step taken again to end where a graze begins: stretched, it would cross the graze)
  if (rk->t + 1.01 * *h >= tstop && tstop - rk->t <= hcap && !(rk->regraze && rk->capped)) {
    *h = tstop - rk->t;
    *last = 1;
    rk->capped = 0;  // it ends at tstop (within 1 % past the onset, or short of it)
  }
  rk->last = *last;
  rk->h = *h;  // what a failure reports as the step being tried
  // a step below 16 roundings of t is one that has collapsed, unless it ends at tstop within
  // hslip: then t + h is tstop exactly (h = tstop - t, exact for two times that close), so no
  // time is lost, and an advance that short is made (as CVODE, once started, takes a stop time
  // within 100 roundings as reached). Far from 0 (an advance of one double at 1e14 s, 0.0156 s)
  // it fails as every step there does.
  rk->rounding = !(*h > 16 * DBL_EPSILON * fmax(fabs(rk->t), 1e-300));
  return !rk->rounding || (*last && *h <= rk->hslip) ? 0 : -1;
}


double cs_rkController(const csRk* rk, double err, double expo, double* fac11) {
  // Hairer's PI controller: hnew = h / fac
  *fac11 = pow(err, expo - BETA * 0.75);
  double fac = *fac11 / pow(rk->facold, BETA);
  return fmax(1.0 / FAC_GROW, fmin(1.0 / FAC_SHRINK, fac / SAFE));
}


void cs_rkAccept(csRk* rk, double tnew, double err, double fac) {
  double h = rk->h;
  rk->facold = fmax(err, 1e-4);
  double hnew = h / fac;
  if (rk->reject) {
    hnew = fmin(hnew, h);
  }
  // a step that ended at an onset says nothing of the step the contact (or the stop) will
  // allow, which the controller would find by rejections, each at most 5x shorter: the first
  // step past the last onset tells it (what the controller proposed after it), unless that
  // step too ended at an onset or was cut short by tstop (then the next one tells)
  if (rk->entering && !rk->capped && !rk->last) {
    rk->hentry = hnew;
    rk->entering = 0;
  }
  if (rk->capped) {
    rk->entering = 1;
    if (rk->hentry > 0) {
      hnew = fmin(hnew, rk->hentry);
    }
  }
  rk->grazed = rk->ingraze;
  rk->ingraze = rk->regraze;
  rk->reject = rk->regraze = 0;
  rk->told = rk->t;
  rk->t = tnew;
  rk->hlast = h;
  rk->h = rk->hmax > 0 ? fmin(hnew, rk->hmax) : hnew;
  if (rk->rounding) {
    // after an advance of a few roundings, the step proposed before it (grown from the tiny
    // one, the next steps would collapse)
    rk->h = rk->hprop;
    rk->rounding = 0;
  }
  rk->nsteps++;
}


csRkStatus cs_rkRetryShorter(csRk* rk, int r, int* fails, double* h) {
  if (r < 0) {
    return CS_RK_RHS_FAIL;
  }
  // forces not finite inside the step: a shorter one, up to RHS_TRIES times
  if (++*fails > RHS_TRIES) {
    return CS_RK_RHS_REPEATED;
  }
  *h *= RHS_CUT;
  rk->reject = 1;
  return CS_RK_OK;
}


void cs_rkHermite(csRk* rk, const double* yn, const double* f0, const double* f1, double h) {
  int n = rk->n;
  const double* y = rk->y;
  double* c = rk->dense;
  for (int i = 0; i < n; i++) {
    double ydiff = yn[i] - y[i];
    double bspl = h * f0[i] - ydiff;
    c[i] = y[i];
    c[n + i] = ydiff;
    c[2 * n + i] = bspl;
    c[3 * n + i] = ydiff - h * f1[i] - bspl;
    c[4 * n + i] = 0;
  }
}


double cs_rkReject(csRk* rk, double h, double fac11) {
  // shrink (no more than 5x), and no growth on the next accepted step
  rk->netf++;
  rk->reject = 1;
  return h / fmin(1.0 / FAC_SHRINK, fac11 / SAFE);
}


int cs_rkGrazed(csRk* rk, double tnew) {
  if (!rk->graze || rk->regraze || rk->ingraze) {
    return 0;
  }
  double width = 0;
  double tg = rk->graze(rk->ctx, rk->t, tnew, &width);
  if (!(tg < tnew)) {
    return 0;
  }
  // (no step within a few roundings of t, which cs_rkTry would call lost in rounding)
  double slip = GRAZE_ROUNDINGS * DBL_EPSILON * fabs(tg);
  // the longest try that passed over a graze since the last step taken in full
  rk->hgrazed = rk->t < rk->tgraze_end ? fmax(rk->hgrazed, rk->h) : rk->h;
  // the steps within the touch are a quarter of its length, which the interpolant (to a 64th of
  // the step) or the prediction gives roughly: a step over both its beginning and its end is
  // one whose error estimate can pass with the touch unresolved (a box brushing a floor for 5 ms
  // dissipated 0.2 to 2.2 times the converged energy at 1e-3 with one step as long as the touch)
  rk->hgraze = fmax(fmax(0.25 * width, rk->h / 64), slip);
  rk->tgraze_end = fmax(tg, rk->t) + width;
  if (tg > rk->t + slip) {
    rk->tonset = tg;  // taken again to end where the touch begins; the next step is within it
    rk->regraze = 1;
  } else {
    rk->ingraze = 1;  // the touch begins where the step does: taken again as the step within it
  }
  return 1;
}


void cs_rkGrazeNotFelt(csRk* rk) {
  rk->h = fmax(rk->h, rk->hgrazed);
  rk->tgraze_end = -INFINITY;
}


// A try of an explicit pair passed (its dense output already formed from the old state): the
// new state, its derivative (the last stage) as the next step's first, and the controller
static csRkStatus acceptFsal(csRk* rk, const double* klast, double tnew, double err, double fac) {
  memcpy(rk->y, rk->ynew, sizeof(double) * (size_t)rk->n);
  memcpy(rk->k, klast, sizeof(double) * (size_t)rk->n);
  cs_rkAccept(rk, tnew, err, fac);
  return CS_RK_OK;
}


// ---------------------------------------------------------------------------------------------
// Dormand-Prince

static csRkStatus dopriStep(csRk* rk, double tstop) {
  int n = rk->n;
  double* y = rk->y;
  double* k1 = rk->k;
  double* k2 = k1 + n;
  double* k3 = k2 + n;
  double* k4 = k3 + n;
  double* k5 = k4 + n;
  double* k6 = k5 + n;
  double* k7 = k6 + n;
  double* yn = rk->ynew;
  double h;
  csRkStatus begun = cs_rkBegin(rk, tstop, &h);
  if (begun != CS_RK_OK) {
    return begun;
  }
  int rhs_fails = 0;
  for (;;) {
    int last = 0;
    if (cs_rkTry(rk, tstop, &h, &last) != 0) {
      return CS_RK_STEP_TOO_SMALL;
    }
    double t = rk->t;
    // stages 2..7 (k7 = f at the 5th-order solution: the next step's first stage)
    int r = 0;
    for (int i = 0; i < n; i++) {
      yn[i] = y[i] + h * A21 * k1[i];
    }
    r = stage(rk, t + C2 * h, yn, k2);
    for (int i = 0; r == 0 && i < n; i++) {
      yn[i] = y[i] + h * (A31 * k1[i] + A32 * k2[i]);
    }
    r = r ? r : stage(rk, t + C3 * h, yn, k3);
    for (int i = 0; r == 0 && i < n; i++) {
      yn[i] = y[i] + h * (A41 * k1[i] + A42 * k2[i] + A43 * k3[i]);
    }
    r = r ? r : stage(rk, t + C4 * h, yn, k4);
    for (int i = 0; r == 0 && i < n; i++) {
      yn[i] = y[i] + h * (A51 * k1[i] + A52 * k2[i] + A53 * k3[i] + A54 * k4[i]);
    }
    r = r ? r : stage(rk, t + C5 * h, yn, k5);
    for (int i = 0; r == 0 && i < n; i++) {
      yn[i] = y[i] + h * (A61 * k1[i] + A62 * k2[i] + A63 * k3[i] + A64 * k4[i] + A65 * k5[i]);
    }
    r = r ? r : stage(rk, t + h, yn, k6);
    for (int i = 0; r == 0 && i < n; i++) {
      yn[i] = y[i] + h * (A71 * k1[i] + A73 * k3[i] + A74 * k4[i] + A75 * k5[i] + A76 * k6[i]);
    }
    double tnew = last ? tstop : t + h;
    r = r ? r : stage(rk, tnew, yn, k7);
    if (r != 0) {
      csRkStatus st = cs_rkRetryShorter(rk, r, &rhs_fails, &h);
      if (st != CS_RK_OK) {
        return st;
      }
      continue;
    }
    // error norm, weights from the larger of |y| and |y_new|
    double s = 0;
    for (int i = 0; i < n; i++) {
      double e = h * (E1 * k1[i] + E3 * k3[i] + E4 * k4[i] + E5 * k5[i] + E6 * k6[i] +
                      E7 * k7[i]);
      double w = rk->rtol * csu_max(fabs(y[i]), fabs(yn[i])) + rk->atol;
      s += (e / w) * (e / w);
    }
    double err = n > 0 ? sqrt(s / n) : 0.0;
    if (!isfinite(err)) {
      err = 1e10;
    }
    double fac11, fac = cs_rkController(rk, err, 0.2, &fac11);
    if (err <= 1.0 && cs_rkGrazed(rk, tnew)) {
      continue;  // taken again, ending where the graze begins
    }
    if (err <= 1.0) {
      // accepted. Stiffness (DOPRI5's test): stages 6 and 7 are both at t + h, so
      // |k7 - k6| / |y7 - y6| estimates the largest |lambda| the step met; h |lambda| beyond
      // 3.25 (the method's stability boundary on the negative real axis is 3.3) means the
      // step was held by stability, not by accuracy
      double num = 0, den = 0;
      for (int i = 0; i < n; i++) {
        double dk = k7[i] - k6[i];
        double dy = (A71 - A61) * k1[i] - A62 * k2[i] + (A73 - A63) * k3[i] +
                    (A74 - A64) * k4[i] + (A75 - A65) * k5[i] + A76 * k6[i];
        num += dk * dk;
        den += dy * dy;
      }
      // h |lambda| = h |k7 - k6| / (h |dy|)
      if (den > 0 && num > STIFF_BOUND * STIFF_BOUND * den) {
        rk->nstiff++;
      }
      // the dense output from the stages (Hermite's cubic and Shampine's correction), then
      // the new state
      cs_rkHermite(rk, yn, k1, k7, h);
      double* c4 = rk->dense + 4 * n;
      for (int i = 0; i < n; i++) {
        c4[i] = h * (D1 * k1[i] + D3 * k3[i] + D4 * k4[i] + D5 * k5[i] + D6 * k6[i] + D7 * k7[i]);
      }
      return acceptFsal(rk, k7, tnew, err, fac);
    }
    h = cs_rkReject(rk, h, fac11);
  }
}


// ---------------------------------------------------------------------------------------------
// Bogacki-Shampine

static csRkStatus bsStep(csRk* rk, double tstop) {
  int n = rk->n;
  double* y = rk->y;
  double* k1 = rk->k;
  double* k2 = k1 + n;
  double* k3 = k2 + n;
  double* k4 = k3 + n;
  double* yn = rk->ynew;
  double h;
  csRkStatus begun = cs_rkBegin(rk, tstop, &h);
  if (begun != CS_RK_OK) {
    return begun;
  }
  int rhs_fails = 0;
  for (;;) {
    int last = 0;
    if (cs_rkTry(rk, tstop, &h, &last) != 0) {
      return CS_RK_STEP_TOO_SMALL;
    }
    double t = rk->t;
    // stages 2..4 (k4 = f at the 3rd-order solution: the next step's first stage)
    int r = 0;
    for (int i = 0; i < n; i++) {
      yn[i] = y[i] + h * BS_A21 * k1[i];
    }
    r = stage(rk, t + BS_C2 * h, yn, k2);
    for (int i = 0; r == 0 && i < n; i++) {
      yn[i] = y[i] + h * BS_A32 * k2[i];
    }
    r = r ? r : stage(rk, t + BS_C3 * h, yn, k3);
    for (int i = 0; r == 0 && i < n; i++) {
      yn[i] = y[i] + h * (BS_A41 * k1[i] + BS_A42 * k2[i] + BS_A43 * k3[i]);
    }
    double tnew = last ? tstop : t + h;
    r = r ? r : stage(rk, tnew, yn, k4);
    if (r != 0) {
      csRkStatus st = cs_rkRetryShorter(rk, r, &rhs_fails, &h);
      if (st != CS_RK_OK) {
        return st;
      }
      continue;
    }
    double s = 0;
    for (int i = 0; i < n; i++) {
      double e = h * (BS_E1 * k1[i] + BS_E2 * k2[i] + BS_E3 * k3[i] + BS_E4 * k4[i]);
      double w = rk->rtol * csu_max(fabs(y[i]), fabs(yn[i])) + rk->atol;
      s += (e / w) * (e / w);
    }
    double err = n > 0 ? sqrt(s / n) : 0.0;
    if (!isfinite(err)) {
      err = 1e10;
    }
    double fac11, fac = cs_rkController(rk, err, 1.0 / 3, &fac11);
    if (err <= 1.0 && cs_rkGrazed(rk, tnew)) {
      continue;  // taken again, ending where the graze begins
    }
    if (err <= 1.0) {
      // accepted. Stiffness, as DOPRI5 tests it but from stages a quarter step apart (no two
      // stages of this pair share a node): h |lambda| ~ h |k4 - k3| / |y4 - y3|, y3 the third
      // stage's state; a smooth component's |k4 - k3| is of order h, a stiff one's is
      // |lambda| |y4 - y3|
      double num = 0, den = 0;
      for (int i = 0; i < n; i++) {
        double dk = k4[i] - k3[i];
        double dy = BS_A41 * k1[i] + (BS_A42 - BS_A32) * k2[i] + BS_A43 * k3[i];
        num += dk * dk;
        den += dy * dy;
      }
      if (den > 0 && num > STIFF_BOUND_BS * STIFF_BOUND_BS * den) {
        rk->nstiff++;
      }
      cs_rkHermite(rk, yn, k1, k4, h);
      return acceptFsal(rk, k4, tnew, err, fac);
    }
    h = cs_rkReject(rk, h, fac11);
  }
}


csRkStatus cs_rkStep(csRk* rk, double tstop) {
  if (rk->ark) {
    return cs_rkArkStep(rk, tstop);
  }
  return rk->method == CS_RK_BS32 ? bsStep(rk, tstop) : dopriStep(rk, tstop);
}


void cs_rkInterpolate(const csRk* rk, double t, double* out) {
  int n = rk->n;
  const double* c = rk->dense;
  double h = rk->t - rk->told;
  double th = h > 0 ? (t - rk->told) / h : 1.0;
  double th1 = 1.0 - th;
  for (int i = 0; i < n; i++) {
    out[i] = c[i] + th * (c[n + i] + th1 * (c[2 * n + i] + th * (c[3 * n + i] +
                                                                 th1 * c[4 * n + i])));
  }
}


// ---------------------------------------------------------------------------------------------
// gaps

double cs_gapRoot(double g, double gdot, double gddot) {
  if (!(g > 0)) {
    return 0;
  }
  if (!isfinite(g) || !isfinite(gdot) || !isfinite(gddot)) {
    return INFINITY;  // an absent bound, or nothing to predict from
  }
  // a t^2 + b t + c = 0 with c > 0; the roots as c / q and q / a, q = -(b + sign(b) sqrt(D)) / 2,
  // which loses no digits when b^2 >> |4 a c|; without acceleration (or with one too small to
  // square against), c / -b
  double a = 0.5 * gddot, b = gdot, c = g;
  double disc = b * b - 4 * a * c;
  if (a == 0 || !isfinite(disc)) {
    return b < 0 ? c / -b : INFINITY;
  }
  if (!(disc >= 0)) {
    return INFINITY;  // turns back before it gets there
  }
  double q = -0.5 * (b + copysign(sqrt(disc), b));
  double t1 = q != 0 ? c / q : INFINITY;
  double t2 = a != 0 ? q / a : INFINITY;
  double t = INFINITY;
  if (t1 > 0) {
    t = t1;
  }
  if (t2 > 0 && t2 < t) {
    t = t2;
  }
  return t;
}


// p(s) on [0, 1] from its Bernstein coefficients (de Casteljau)
static double bernstein5(const double* b, double s) {
  double c[6];
  memcpy(c, b, sizeof(c));
  for (int r = 5; r > 0; r--) {
    for (int i = 0; i < r; i++) {
      c[i] += s * (c[i + 1] - c[i]);
    }
  }
  return c[0];
}


// where the quintic with Bernstein coefficients b first reaches 0, as a fraction of the step
// (INFINITY: it does not), and *width how long it stays there (to a DIP_GRID-th of the step)
static double bernsteinDip(const double* b, double* width) {
  // the first sign change on a grid of DIP_GRID intervals, bisection to the rounding of s, and
  // the first grid point past it where the quintic is positive again
  enum { DIP_GRID = 64 };
  double s0 = 0;
  for (int k = 1; k <= DIP_GRID; k++) {
    double s1 = (double)k / DIP_GRID;
    if (bernstein5(b, s1) <= 0) {
      for (int it = 0; it < 60 && s1 - s0 > 4 * DBL_EPSILON; it++) {
        double sm = 0.5 * (s0 + s1);
        if (bernstein5(b, sm) <= 0) {
          s1 = sm;
        } else {
          s0 = sm;
        }
      }
      int j = k + 1;
      while (j < DIP_GRID && bernstein5(b, (double)j / DIP_GRID) <= 0) {
        j++;
      }
      *width = fmin((double)j / DIP_GRID, 1.0) - s0;
      return s0;
    }
    s0 = s1;
  }
  return INFINITY;
}


double cs_gapDipFound(const double* g0, const double* g1, double h, double* width) {
  double d0 = h * g0[1], d1 = h * g1[1], a0 = h * h * g0[2], a1 = h * h * g1[2];
  double b[6] = {g0[0], g0[0] + 0.2 * d0, g0[0] + 0.4 * d0 + 0.05 * a0,
                 g1[0] - 0.4 * d1 + 0.05 * a1, g1[0] - 0.2 * d1, g1[0]};
  for (int i = 0; i < 6; i++) {
    if (!isfinite(b[i])) {
      return INFINITY;
    }
  }
  double s = bernsteinDip(b, width);
  // the start's own prediction (cs_gapRoot), which a step may cross when it is within the
  // step's first fifth (cs_rkTry): from its first root to its second (or the step's end)
  double sq = cs_gapRoot(g0[0], g0[1], g0[2]) / h;
  if (sq < s && sq < 1) {
    s = sq;
    double s2 = g0[2] > 0 ? -2 * g0[1] / g0[2] / h - sq : 1.0;
    *width = fmin(s2, 1.0) - sq;
  }
  return s;
}
