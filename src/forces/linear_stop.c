// linear_stop.c: a compliant stop that keeps one coordinate of a pin or slider mobilizer
// within [lower_bound, upper_bound] (seed 002, Simbody's MobilityLinearStop, "Theory").
//
// Outside the bounds the generalized force is a linear spring on the violation x whose stiffness
// grows with the rate, Hunt-Crossley fashion:
//   q > upper:  x = q - upper,  f = min(0, -k x (1 + d qdot))
//   q < lower:  x = q - lower,  f = max(0, -k x (1 - d qdot))
// The clamp means the stop pushes and never pulls: when the coordinate leaves the stop faster
// than 1/d the dissipation term would otherwise pull it back toward the bound.
//
// The bounds and the material properties (k, d) are discrete variables, so a scheduled change can
// move a stop or soften it during a run. The potential energy is the spring part k x^2 / 2; the
// rest of the force, (f + k x), is dissipative, and its power -(f + k x) qdot is >= 0 in every
// branch (including the clamped one), so KE + PE + dissipated energy is conserved.
#include <math.h>
#include <string.h>

#include "contactsim/contactsim.h"
#include "engine/error.h"
#include "forces/util.h"
#include "forces/kinds.h"

enum { REF_BODY = 0, REF_COORD = 1 };
enum { SLOT_LOWER = 0, SLOT_UPPER = 1, SLOT_K = 2, SLOT_D = 3 };

// discrete variables, in this order
enum { DISC_LOWER = 0, DISC_UPPER = 1, DISC_K = 2, DISC_D = 3, DISC_COUNT = 4 };

static const char* const g_discNames[DISC_COUNT] = {"lower_bound", "upper_bound", "stiffness",
                                                     "dissipation"};

static const csParamInfo g_params[] = {
    {"body", CS_PARAM_BODY, REF_BODY, 0, CS_PARAM_REQUIRED,
     "body whose mobilizer (pin or slider) carries the stopped coordinate"},
    {"coordinate", CS_PARAM_INT, REF_COORD, 0, 0, "index of the coordinate within the mobilizer"},
    {"lower_bound", CS_PARAM_REAL, SLOT_LOWER, 0, CS_PARAM_OPTIONAL,
     "lowest free value of the coordinate, m or rad (absent: no lower stop)"},
    {"upper_bound", CS_PARAM_REAL, SLOT_UPPER, 0, CS_PARAM_OPTIONAL,
     "highest free value of the coordinate, m or rad (absent: no upper stop)"},
    {"stiffness", CS_PARAM_REAL, SLOT_K, 0, CS_PARAM_REQUIRED | CS_PARAM_NONNEG,
     "stop stiffness k, N/m or N m/rad"},
    {"dissipation", CS_PARAM_REAL, SLOT_D, 0, CS_PARAM_NONNEG,
     "Hunt-Crossley dissipation coefficient d, s/m or s/rad"},
};


enum { NPARAMS = sizeof(g_params) / sizeof(g_params[0]) };

// absent (NaN) bounds mean no stop on that side
static double lowerOf(const csForce* f) {
  return isnan(f->param[SLOT_LOWER]) ? -INFINITY : f->param[SLOT_LOWER];
}


static double upperOf(const csForce* f) {
  return isnan(f->param[SLOT_UPPER]) ? INFINITY : f->param[SLOT_UPPER];
}


static int stopValidate(const csModel* m, const csForce* f, csError* err) {
  // the body must exist and move; the coordinate must be one whose qdot is its u
  int b = f->ref[REF_BODY], c = f->ref[REF_COORD];
  if (b <= 0 || b >= m->nbody) {
    cs_setError(err, CS_ERR_INPUT, "body", "linear stop '%s' must act on a body other than ground",
                f->name);
    return -1;
  }
  const csBody* body = &m->body[b];
  if (body->qnum != body->unum || body->qnum == 0) {
    cs_setError(err, CS_ERR_INPUT, "body",
                "linear stop '%s': the mobilizer of '%s' must be a pin or a slider (one "
                "coordinate whose rate is its speed)",
                f->name, body->name);
    return -1;
  }
  if (c < 0 || c >= body->qnum) {
    cs_setError(err, CS_ERR_INPUT, "coordinate",
                "linear stop '%s': coordinate %d does not exist; the mobilizer of '%s' has %d",
                f->name, c, body->name, body->qnum);
    return -1;
  }
  // bounds: finite when given (absent ones stay NaN), with a hint on leaving them out
  if (isinf(f->param[SLOT_LOWER])) {
    cs_setError(err, CS_ERR_INPUT, "lower_bound",
                "linear stop '%s': lower_bound must be finite (leave it out for no lower stop)",
                f->name);
    return -1;
  }
  if (isinf(f->param[SLOT_UPPER])) {
    cs_setError(err, CS_ERR_INPUT, "upper_bound",
                "linear stop '%s': upper_bound must be finite (leave it out for no upper stop)",
                f->name);
    return -1;
  }
  // material properties: finite and non-negative (the table's flags)
  if (csu_checkParams(f, g_params, NPARAMS, "linear stop", err)) {
    return -1;
  }
  // bounds ordered when both are given
  if (lowerOf(f) > upperOf(f)) {
    cs_setError(err, CS_ERR_INPUT, "upper_bound",
                "linear stop '%s': upper_bound %g is below lower_bound %g", f->name,
                f->param[SLOT_UPPER], f->param[SLOT_LOWER]);
    return -1;
  }
  return 0;
}


static void stopInit(const csModel* m, csData* d, int e) {
  const csForce* f = &m->force[e];
  double* v = d->disc + f->discadr;
  v[DISC_LOWER] = lowerOf(f);
  v[DISC_UPPER] = upperOf(f);
  v[DISC_K] = f->param[SLOT_K];
  v[DISC_D] = f->param[SLOT_D];
}


// Changes arrive one variable at a time, so a rule that rejected lower > upper would make the
// result of moving both bounds depend on the order of the two changes. Instead the bound being
// set wins and the other one follows it: [0,1] -> lower 2 -> [2,2] -> upper 3 -> [2,3], and the
// opposite order gives [2,3] too. NaN bounds mean "no stop"; negative or NaN k and d become 0.
static void stopSetDiscrete(const csModel* m, csData* d, int e, int index, double value) {
  double* v = d->disc + m->force[e].discadr;
  switch (index) {
    case DISC_LOWER:
      v[DISC_LOWER] = isnan(value) ? -INFINITY : value;
      if (v[DISC_UPPER] < v[DISC_LOWER]) {
        v[DISC_UPPER] = v[DISC_LOWER];
      }
      break;
    case DISC_UPPER:
      v[DISC_UPPER] = isnan(value) ? INFINITY : value;
      if (v[DISC_LOWER] > v[DISC_UPPER]) {
        v[DISC_LOWER] = v[DISC_UPPER];
      }
      break;
    case DISC_K:
    case DISC_D:
      v[index] = (value >= 0) ? value : 0.0;  // NaN fails the comparison too
      break;
    default:
      break;
  }
}


// What the stop does at the realized state: the generalized force on the coordinate, the
// penetration beyond the bound (>= 0), its rate, the stored energy and the dissipated power.
typedef struct stopEval {
  double force;            // generalized force, N or N m
  double penetration;      // how far q is beyond the bound it violates, m or rad (0 within)
  double rate;             // d(penetration)/dt, m/s or rad/s (0 within)
  double pe;               // J
  double power;            // W
} stopEval;

// report values (CSV columns E.<name> with --forces), in the order of stopEval
enum { EXTRA_COUNT = 5 };
static const char* const g_extraNames[EXTRA_COUNT] = {"generalized_force", "penetration",
                                                      "penetration_rate", "pe", "power"};


static void evaluate(const csModel* m, const csData* d, int e, stopEval* out) {
  const csForce* f = &m->force[e];
  const csBody* body = &m->body[f->ref[REF_BODY]];
  const double* v = d->disc + f->discadr;
  int c = f->ref[REF_COORD];
  double q = d->q[body->qadr + c];
  double qdot = d->u[body->uadr + c];  // pin and slider: qdot = u
  double k = v[DISC_K], diss = v[DISC_D];

  // violation of the bound on the side where q is (seed 002, Theory), split into the spring
  // part -k x and the dissipation part; the clamp (no pulling) cancels the spring part exactly
  double x, spring, damper;
  memset(out, 0, sizeof(*out));
  if (q > v[DISC_UPPER]) {
    x = q - v[DISC_UPPER];
    spring = -k * x;
    damper = -k * x * diss * qdot;
    if (spring + damper > 0) {
      damper = -spring;
    }
    out->rate = qdot;
  } else if (q < v[DISC_LOWER]) {
    x = q - v[DISC_LOWER];
    spring = -k * x;
    damper = k * x * diss * qdot;
    if (spring + damper < 0) {
      damper = -spring;
    }
    out->rate = -qdot;
  } else {
    return;  // in bounds: no force, no energy
  }

  // the spring part stores k x^2 / 2; the damper part takes power out of the system
  out->force = spring + damper;
  out->penetration = fabs(x);
  out->pe = 0.5 * k * x * x;
  out->power = -damper * qdot;
}


static void stopApply(const csModel* m, csData* d, int e) {
  const csForce* f = &m->force[e];
  const csBody* body = &m->body[f->ref[REF_BODY]];
  // within the bounds (the common case) the stop does nothing: no force, and the energy and
  // power the dynamics stage zeroed before calling it stay zero
  const double* v = d->disc + f->discadr;
  double q = d->q[body->qadr + f->ref[REF_COORD]];
  if (q <= v[DISC_UPPER] && q >= v[DISC_LOWER]) {
    return;
  }
  stopEval s;
  evaluate(m, d, e, &s);
  d->mobility_force[body->uadr + f->ref[REF_COORD]] += s.force;
  d->force_pe[e] = s.pe;
  d->force_power[e] = s.power;
}


// The derivatives of the force of evaluate() in the branch the state is in: within the bounds,
// or where the clamp holds the force at zero, there are none
static void stopJacobian(const csModel* m, const csData* d, int e, double* dfdq, double* dfdu) {
  const csForce* f = &m->force[e];
  const csBody* body = &m->body[f->ref[REF_BODY]];
  const double* v = d->disc + f->discadr;
  int iu = body->uadr + f->ref[REF_COORD];
  double q = d->q[body->qadr + f->ref[REF_COORD]];
  double qdot = d->u[iu];
  double k = v[DISC_K], diss = v[DISC_D];
  if (q > v[DISC_UPPER]) {
    // f = -k x (1 + d qdot) while that is <= 0
    double x = q - v[DISC_UPPER];
    if (1 + diss * qdot > 0) {
      dfdq[iu] -= k * (1 + diss * qdot);
      dfdu[iu] -= k * x * diss;
    }
  } else if (q < v[DISC_LOWER]) {
    // f = -k x (1 - d qdot) while that is >= 0 (x < 0)
    double x = q - v[DISC_LOWER];
    if (1 - diss * qdot > 0) {
      dfdq[iu] -= k * (1 - diss * qdot);
      dfdu[iu] += k * x * diss;
    }
  }
}


// A stop is not a contact between surfaces: the report has no point or spatial force (they
// stay zero); its energy and dissipated power, and the extras.
static void stopReport(const csModel* m, const csData* d, int e, csContactReport* r,
                       double* extra) {
  stopEval s;
  evaluate(m, d, e, &s);
  r->pe = s.pe;
  r->power = s.power;
  extra[0] = s.force;
  extra[1] = s.penetration;
  extra[2] = s.rate;
  extra[3] = s.pe;
  extra[4] = s.power;
}


// the coordinate's distance from each bound (where the force sets in, its slope jumping to k);
// an absent bound's is infinite. A pin's or a slider's qdot is its u.
static int stopGaps(const csModel* m, const csData* d, int e, double* g) {
  const csForce* f = &m->force[e];
  const csBody* body = &m->body[f->ref[REF_BODY]];
  const double* v = d->disc + f->discadr;
  int iu = body->uadr + f->ref[REF_COORD];
  if (!(v[DISC_K] > 0)) {
    return 0;  // a stop without stiffness never acts
  }
  double q = d->q[body->qadr + f->ref[REF_COORD]], u = d->u[iu], udot = d->udot[iu];
  g[0] = v[DISC_UPPER] - q;
  g[1] = -u;
  g[2] = -udot;
  g[3] = q - v[DISC_LOWER];
  g[4] = u;
  g[5] = udot;
  return 2;
}


const csForceKind cs_kindLinearStop = {
    .name = "linear_stop",
    .doc = "compliant stop keeping one pin or slider coordinate within bounds (Hunt-Crossley "
           "dissipation, never sticking)",
    .params = g_params,
    .nparams = NPARAMS,
    .dissipative = 1,
    .discnum = DISC_COUNT,
    .discnames = g_discNames,
    .nextra = EXTRA_COUNT,
    .extranames = g_extraNames,
    .validate = stopValidate,
    .init = stopInit,
    .apply = stopApply,
    .planarApply = stopApply,  // it touches only q, u and generalized forces
    .report = stopReport,
    .setDiscrete = stopSetDiscrete,
    .mobilityJacobian = stopJacobian,
    .gaps = stopGaps,
};
