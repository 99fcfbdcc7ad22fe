// rk.h: the explicit Runge-Kutta integrators "rk" and "rk23" (private to the library):
// Dormand-Prince 5(4) and Bogacki-Shampine 3(2), both with first-same-as-last stages, error
// control in the weighted RMS norm CVODE uses, Hairer's PI step-size controller, and dense
// output of order 4 (Shampine's) and 3 (Hermite's) (rk.c).
#ifndef CONTACTSIM_ENGINE_RK_H
#define CONTACTSIM_ENGINE_RK_H

// The right-hand side: ydot = f(t, y) for n states. Returns 0, > 0 when f cannot be evaluated
// at this y (the step is retried four times shorter, as CVODE does), < 0 to stop.
typedef int (*csRkRhs)(double t, const double* y, double* ydot, void* ctx);

// ark's Jacobian by other means than difference quotients of f: L (ni x ni, column-major) of
// f's implicit block (the ni states cs_rkArkInit was given, in that order) at (t, y). Returns
// 0, or < 0 to stop. Its evaluations of the elements are not counted as f's.
typedef int (*csRkJac)(double t, const double* y, double* L, void* ctx);

typedef enum csRkStatus {
  CS_RK_OK = 0,
  CS_RK_RHS_FAIL,          // f returned < 0
  CS_RK_RHS_REPEATED,      // f returned > 0 on ten tries in a row, the step cut each time
  CS_RK_STEP_TOO_SMALL,    // the step fell below round-off of t (error tests kept failing)
} csRkStatus;

// the additive method's part (ark.c), when the integrator is "ark"
typedef struct csArk csArk;
enum { CS_ARK_MAX_STAGES = 8 };

// An additive Runge-Kutta pair: an explicit and an implicit (ESDIRK) table sharing their nodes
// c, weights b and embedded weights d (integrator.c loads ARK4(3)6L[2]SA from ARKODE)
typedef struct csArkTable {
  int s, q, p;             // stages, order, embedded order
  double c[CS_ARK_MAX_STAGES];
  double ae[CS_ARK_MAX_STAGES][CS_ARK_MAX_STAGES];  // explicit, strictly lower triangular
  double ai[CS_ARK_MAX_STAGES][CS_ARK_MAX_STAGES];  // implicit, ai[0][0] = 0, ai[i][i] = gamma
  double b[CS_ARK_MAX_STAGES], d[CS_ARK_MAX_STAGES];
} csArkTable;

// the explicit pair of cs_rkStep
typedef enum csRkMethod {
  CS_RK_DOPRI54 = 0,       // Dormand-Prince 5(4), 6 evaluations a step ("rk")
  CS_RK_BS32,              // Bogacki-Shampine 3(2), 3 evaluations a step ("rk23")
} csRkMethod;

typedef struct csRk {
  int n;                   // states
  csRkMethod method;       // the explicit pair (CS_RK_DOPRI54 unless set after cs_rkNew)
  csRkRhs f;
  void* ctx;
  double rtol, atol;       // weights 1 / (rtol |y| + atol)
  double hmax;             // largest step, s (0: none)
  double t;                // time of y, s
  double* y;               // (n) the state; the caller's storage, which the caller may edit
                           // between steps (then cs_rkReset)
  double h;                // step to try next, s (0: choose one)
  double hlast;            // last successful step, s
  double told;             // start of the last successful step, s
  double facold;           // the controller's memory: last accepted error norm
  int fsal;                // 1: k[0] holds f(t, y) (the last step's last stage)
  int reject;              // 1: the last try was rejected (no growth on the next)
  double tonset;           // when a force element is next predicted to start acting (the
                           // caller's csForceKind.onset; INFINITY: none; NaN: not known since
                           // the start, a restart or a change): a step that would cross it ends
                           // there instead (cs_rkTry)
  int capped;              // 1: the step being tried was cut to end at tonset
  // (nullable) the caller's check of a try that passed its error test, the data realized at
  // its end (its last stage): the time within (t0, t1) where a force element's gap, apart at
  // both ends, closes (a graze shorter than the step, cs_gapDip), or NaN, and *width how long
  // it stays closed (s). The step is then taken again, ending there (or, where the graze
  // begins at the step's start, as the first step within it), and the steps within the graze
  // are a quarter of its length (hgraze, up to tgraze_end); the first two are not checked
  double (*graze)(void* ctx, double t0, double t1, double* width);
  int regraze;             // 1: the step being tried was cut to end where a graze begins
  int ingraze;             // 1: the step being tried begins there: at most hgraze long (a
                           // quarter of the graze's length)
  double hgraze;
  double tgraze_end;       // as is every step up to where the graze ends, s
  double hgrazed;          // the try that passed over the graze: the step the motion allows
                           // without it (cs_rkGrazeNotFelt)
  int grazed;              // 1: the step last accepted was that step within the graze
  int last;                // 1: the step being tried was stretched or cut to end at tstop
  int rounding;            // 1: it is within the rounding of t (an advance that short): it
                           // says nothing of the steps the motion allows, and hprop is kept
  double hprop;            // the step proposed before the one being tried (0: none, estimate)
  double hslip;            // the longest step within the rounding of t that may end at tstop
                           // (the caller's: how far its time may move with no motion noticed)
  int entering;            // 1: the last accepted step ended at an onset
  double hentry;           // the step proposed after the first step past the last onset
                           // (0: none yet), tried first after the next one
  long nsteps, nrhs, netf; // successful steps, right-hand sides, error-test failures
  long nstiff;             // successful steps held by stability: h |lambda| beyond the
                           // method's stability boundary on the negative real axis (rk.c)
  long njac, nrhs_jac;     // ark: Jacobians, and the evaluations they took
  csRkRhs fcolumn;         // ark (nullable): f for the Jacobian's difference quotients, which
                           // change one entry of the state last evaluated at a time
  csRkJac fjac;            // ark (nullable): the Jacobian formed by the caller instead
  // ark (nullable, both or neither): (I - hg L) x = r solved by the caller instead of a dense
  // LU; wfactor returns 0, or -1 when singular; wsolve overwrites r with x
  int (*wfactor)(void* ctx, const double* L, double hg);
  void (*wsolve)(void* ctx, double* x);
  int matrix_free;         // ark: fjac, wfactor and wsolve keep the Jacobian their own way, so
                           // that ark allocates no dense L (set before cs_rkArkInit)
  double* k;               // (7 n) stages
  double* ynew;            // (n)
  double* dense;           // (5 n) the last step's interpolation coefficients
  csArk* ark;              // NULL: the explicit pair of method; otherwise the additive
                           // method of ark.c
} csRk;

// An integrator for n states at (t0, y), y being the caller's n-array that the steps update in
// place; h0 the first step (0: Hairer's estimate). NULL when out of memory.
csRk* cs_rkNew(int n, csRkRhs f, void* ctx, double t0, double* y, double rtol, double atol,
               double hmax, double h0);

// Free everything cs_rkNew allocated (not y). Accepts NULL.
void cs_rkFree(csRk* rk);

// One successful step from rk->t, ending at tstop at the latest (exactly there when it is
// within reach): y and t advance. Returns CS_RK_OK or a csRkStatus (then y and t are those of
// the last successful step).
csRkStatus cs_rkStep(csRk* rk, double tstop);

// The smallest t > 0 at which g + gdot t + gddot t^2 / 2 = 0, for a gap g > 0 (0 when g <= 0,
// INFINITY when there is none): where a force element is predicted to start acting
// (csForceKind.gaps).
double cs_gapRoot(double g, double gdot, double gddot);

// cs_gapDip past its test of the Bernstein coefficients, some of which are <= 0
double cs_gapDipFound(const double* g0, const double* g1, double h, double* width);

// A gap (csForceKind.gaps: g[0] the distance, g[1] and g[2] its rates) at both ends of a step of
// h, apart at both: where, as a fraction s of the step in [0, 1), it closes within the step
// before it opens again, by the quintic Hermite interpolant of the two ends or by the start's own
// prediction (cs_gapRoot: a touch the step crossed, predicted within its first fifth), whichever
// begins first, *width the fraction of the step it stays closed (to 1/64); INFINITY when neither
// closes, when either end's gap is not apart (the element acts there) or not finite.
static inline double cs_gapDip(const double* g0, const double* g1, double h, double* width) {
  if (!(g0[0] > 0 && g1[0] > 0)) {
    return INFINITY;  // touching at an end (an onset the step crossed, or a touch it ends in)
  }
  // in s = (t - t0) / h, the quintic's Bernstein coefficients (the ends' gaps, then b1..b4) and
  // the start's quadratic's (g0, q1, q2): all positive, and so are both on [0, 1] (their convex
  // hull). An absent bound's infinite gap makes them infinite or NaN, never <= 0.
  double d0 = h * g0[1], d1 = h * g1[1], a0 = h * h * g0[2], a1 = h * h * g1[2];
  double b1 = g0[0] + 0.2 * d0, b2 = g0[0] + 0.4 * d0 + 0.05 * a0;
  double b3 = g1[0] - 0.4 * d1 + 0.05 * a1, b4 = g1[0] - 0.2 * d1;
  double q1 = g0[0] + 0.5 * d0, q2 = g0[0] + d0 + 0.5 * a0;
  if (!(b1 <= 0 || b2 <= 0 || b3 <= 0 || b4 <= 0 || q1 <= 0 || q2 <= 0)) {
    return INFINITY;
  }
  return cs_gapDipFound(g0, g1, h, width);
}

// y(t) for t within the last successful step [told, t], from its dense output, into out (n).
void cs_rkInterpolate(const csRk* rk, double t, double* out);

// The state was changed from outside (an auto-update commit, a renormalisation, an edit) at
// time t: the next step evaluates its first stage afresh. The step size and the controller's
// memory are kept.
void cs_rkReset(csRk* rk, double t);

// Start again at time t as if new (the state was edited): the first step h0 (0: estimated),
// the controller's memory cleared; the counters are kept.
void cs_rkRestart(csRk* rk, double t, double h0);

// ark.c: make rk the additive method "ark" with the pair tab, linearly implicit in the ni states
// at indices idx of y (the others explicit). CS_OK, CS_ERR_MEMORY, or CS_ERR_SOLVER when tab is
// not an explicit / ESDIRK pair. cs_rkStep then takes ark's steps.
int cs_rkArkInit(csRk* rk, const csArkTable* tab, int ni, const int* idx);

void cs_rkArkFree(csArk* ark);
csRkStatus cs_rkArkStep(csRk* rk, double tstop);

// integrator.c: ARK4(3)6L[2]SA (Kennedy and Carpenter 2003) from SUNDIALS' ARKODE; 0, or -1
// when the library lacks it or its two tables do not share nodes and weights
int cs_arkTableLoad(csArkTable* tab);

// The frame of a step, shared by the two methods (rk.c):
// - the first stage f(t, y) into k[0] unless the last step left it there (fsal), and the step to
//   try, *h (estimated when rk->h is 0: cs_rkInitialStep, which uses k[1] and ynew as scratch);
csRkStatus cs_rkBegin(csRk* rk, double tstop, double* h);
int cs_rkInitialStep(csRk* rk, double hlimit, double* h);
// - *h cut to the largest step, to tstop and to the next onset (rk->tonset; not when that is
//   within the step's first fifth), stretched to end exactly at tstop when within 1 %
//   (*last then 1), and recorded in rk->h; -1 when it fell below round-off of t;
int cs_rkTry(csRk* rk, double tstop, double* h, int* last);
// - Hairer's PI controller for an error norm err of a method whose error goes as h^(1 / expo):
//   the factor h / hnew, *fac11 its proportional part for cs_rkReject;
double cs_rkController(const csRk* rk, double err, double expo, double* fac11);
// - the try of rk->h from rk->t passed, ending at tnew (the state already advanced): the next
//   step's size, the counters;
void cs_rkAccept(csRk* rk, double tnew, double err, double fac);
// - the try passed its error test, ending at tnew: 1 when it is to be taken again, ending where a
//   graze begins (rk->graze; rk->tonset then holds that time, and cs_rkTry cuts the next try
//   there), 0 when it stands;
int cs_rkGrazed(csRk* rk, double tnew);
// - the step just accepted was the first within a graze (rk->grazed) and the caller found that
//   no evaluation felt the touch (the interpolant's dip was its own error, or the prediction
//   came early): the next step is the one the motion allowed before, not one grown from the
//   short step, and the graze's window ends (a touch still ahead is found again);
void cs_rkGrazeNotFelt(csRk* rk);
// - the try of h failed its error test: the next, shorter one;
double cs_rkReject(csRk* rk, double h, double fac11);
// - the try's evaluations returned r != 0: r < 0 (asked to stop) ends the step with
//   CS_RK_RHS_FAIL; r > 0 (forces not finite inside the try) makes *h a quarter as long, the
//   *fails-th time, and returns CS_RK_OK for the shorter try (CS_RK_RHS_REPEATED after ten);
csRkStatus cs_rkRetryShorter(csRk* rk, int r, int* fails, double* h);
// - the dense output of the passed try of h from rk->y to yn, the cubic Hermite interpolant of
//   the derivatives f0 and f1 at its ends (rk.c adds Shampine's fifth coefficient).
void cs_rkHermite(csRk* rk, const double* yn, const double* f0, const double* f1, double h);

#endif  // CONTACTSIM_ENGINE_RK_H
