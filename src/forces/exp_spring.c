// exp_spring.c: the exponential spring contact between a body station and a plane
// (seed 000, Simbody's ExponentialSpringForce, "Computations and Coordinate Frames").
//
// The normal force is an exponential of the station's height above the plane with Hunt-Crossley
// style damping; it never switches off, so there is no contact detection and no event. Friction
// blends a pure damper (model 1, "Sliding" = 1) with a damped linear spring tied to an anchor
// point p0 in the plane (model 2, "Sliding" = 0); the anchor removes the drift a pure damper
// would allow on a slope. p0 and Sliding are auto-update discrete variables: each RHS evaluation
// uses the values committed at the end of the previous successful step, and the update callback
// computes the next ones from the state at the end of the step. The friction coefficients are
// discrete variables that scene changes may set during a run.
//
// That is the reference's rule, anchor_rule "blended" (the default). Its anchor moves by
// Sliding (p - p0) per step whatever the step's length, so Sliding, read from the anchor's
// speed, depends on the step lengths. anchor_rule "limit" keeps the damped spring alone (capped
// at the limit) as the friction and drags the anchor only as far as the limit demands, so the
// anchor's speed is the slip speed and the motion converges as steps shrink
// (docs/contact-models.md, "The anchor rule").
//
// The plane may sit on any body: positions and velocities are taken relative to the plane's
// frame (the velocity of the station minus that of the plane-fixed point coinciding with it),
// and the equal and opposite force is applied to the plane's body at the same point.
#include <float.h>
#include <math.h>

#include "contactsim/contactsim.h"
#include "engine/error.h"
#include "engine/kinematics.h"
#include "forces/util.h"
#include "forces/kinds.h"

// param slots (station first, per the contact slot convention in forces.h)
enum {
  SLOT_D0 = 4,
  SLOT_D1,
  SLOT_D2,
  SLOT_CZ,
  SLOT_MAXFZ,
  SLOT_KXY,
  SLOT_CXY,
  SLOT_MASS,
  SLOT_VSETTLE,
  SLOT_MUS,
  SLOT_MUK,
};

// ref slot of the anchor rule (after the body and the plane)
enum { REF_ANCHOR_RULE = 2 };

// How the anchor moves (scene key "anchor_rule"). BLENDED is the reference's rule: after every
// step the anchor is made consistent with the blended elastic force, which moves it by
// Sliding (p - p0) per step whatever the step's length. LIMIT moves it only as far as the
// friction limit demands, so its motion, and Sliding computed from it, converge as steps shrink.
enum { ANCHOR_BLENDED = 0, ANCHOR_LIMIT = 1 };
static const char* const g_anchorRules[] = {"blended", "limit", NULL};

// discrete variables, auto-update variables and report values of one element
enum { DISC_MUS = CS_FRICTION_STATIC, DISC_MUK = CS_FRICTION_DYNAMIC };
enum { AUTO_P0X = 0, AUTO_P0Y = 1, AUTO_SLIDING = 2 };
// the anchor in the plane frame (m) and Sliding (0 stuck .. 1 sliding), in that order
static const char* const g_autoNames[] = {"p0_x", "p0_y", "sliding"};
static const double g_autoRange[][2] = {{-INFINITY, INFINITY}, {-INFINITY, INFINITY}, {0, 1}};
enum {
  EXTRA_FZ_ELASTIC = 0,
  EXTRA_FZ_DAMPING,
  EXTRA_FXY_ELASTIC_X,
  EXTRA_FXY_ELASTIC_Y,
  EXTRA_FXY_DAMPING_X,
  EXTRA_FXY_DAMPING_Y,
  EXTRA_MU,
  EXTRA_LIMIT,
  EXTRA_SLIDING,
  EXTRA_P0_X,
  EXTRA_P0_Y,
  EXTRA_P0_Z,
  EXTRA_STATION_X,   // station position and velocity relative to the plane, in its frame;
  EXTRA_STATION_Y,   // station_z is the height above the plane (the report's px, py, pz
  EXTRA_STATION_Z,   // columns are the point of application in Ground)
  EXTRA_STATION_VX,
  EXTRA_STATION_VY,
  EXTRA_STATION_VZ,
  EXTRA_NORMAL_FORCE,  // fz, the name every contact kind gives its normal force
  EXTRA_COUNT
};

// below this a friction limit (N) or an elapsed time (s) is treated as zero, as the reference
// treats values under its "significant real" (about 1.5e-14 in double precision)
#define NEGLIGIBLE 1e-14

// friction damping that is critical for a 1 kg mass on the default friction spring:
// 2 sqrt(kxy * 1 kg) with kxy = 20000 N/m
#define DEFAULT_KXY 20000.0
#define DEFAULT_CXY 282.84271247461900976

static const csParamInfo g_params[] = {
    {"body", CS_PARAM_BODY, CS_REF_BODY, 0, CS_PARAM_REQUIRED,
     "body whose station touches the plane (not ground)"},
    {"plane", CS_PARAM_PLANE, CS_REF_PLANE, 0, CS_PARAM_REQUIRED,
     "contact plane (on any body but the contact's own rigid body, as for `contacts`); its +z "
     "axis is the normal"},
    {"station", CS_PARAM_VEC3, CS_SLOT_STATION, 0, CS_PARAM_REQUIRED,
     "point of the body that interacts with the plane, in the body frame, m"},
    {"d0", CS_PARAM_REAL, SLOT_D0, 0.0065905, 0,
     "shift of the normal-force exponential d1 exp(-d2 (pz - d0)), m"},
    {"d1", CS_PARAM_REAL, SLOT_D1, 0.5336, CS_PARAM_POSITIVE,
     "scale of the normal-force exponential, N"},
    {"d2", CS_PARAM_REAL, SLOT_D2, 1150.0, CS_PARAM_POSITIVE,
     "rate of the normal-force exponential, 1/m"},
    {"cz", CS_PARAM_REAL, SLOT_CZ, 0.5, CS_PARAM_NONNEG,
     "normal damping: fz = fzElastic (1 - cz vz), s/m"},
    {"max_fz", CS_PARAM_REAL, SLOT_MAXFZ, 100000.0, CS_PARAM_POSITIVE,
     "cap on the normal force, N"},
    {"kxy", CS_PARAM_REAL, SLOT_KXY, DEFAULT_KXY, CS_PARAM_POSITIVE,
     "stiffness of the friction spring, N/m"},
    {"cxy", CS_PARAM_REAL, SLOT_CXY, DEFAULT_CXY, CS_PARAM_NONNEG,
     "friction damping, N s/m (default 2 sqrt(kxy 1 kg) for the default kxy)"},
    {"mass_for_damping", CS_PARAM_REAL, SLOT_MASS, 0, CS_PARAM_OPTIONAL | CS_PARAM_POSITIVE,
     "if given, cxy = 2 sqrt(kxy mass) (critical damping of that mass), kg; overrides cxy"},
    {"v_settle", CS_PARAM_REAL, SLOT_VSETTLE, 0.01, CS_PARAM_POSITIVE,
     "anchor speed below which the station settles into static friction, m/s"},
    {"mu_static", CS_PARAM_REAL, SLOT_MUS, 0.7, CS_PARAM_NONNEG,
     "initial static friction coefficient (discrete variable \"mu_static\"), 1"},
    {"mu_dynamic", CS_PARAM_REAL, SLOT_MUK, 0.5, CS_PARAM_NONNEG,
     "initial dynamic (kinetic) friction coefficient (discrete variable \"mu_dynamic\"), <= "
     "mu_static, 1"},
    {"anchor_rule", CS_PARAM_CHOICE, REF_ANCHOR_RULE, ANCHOR_BLENDED, 0,
     "how the friction anchor moves: \"blended\" (the reference's: made consistent with the "
     "blended elastic force after every step) or \"limit\" (only as far as the friction limit "
     "demands; independent of step lengths)"},
};

enum { NPARAMS = sizeof(g_params) / sizeof(g_params[0]) };

// the strings of the one choice, anchor_rule (the last entry of g_params)
static const char* const* const g_choices[NPARAMS] = {[NPARAMS - 1] = g_anchorRules};


// report values, all in the plane frame: the normal and friction parts of the force on the
// body (N), the instantaneous mu and friction limit (N), the Sliding value in use during the
// step, the anchor p0 made consistent with the applied elastic friction (what the next commit
// stores; p0_z is always 0), and the station's position and velocity relative to the plane
static const char* const g_extraNames[EXTRA_COUNT] = {
    "fz_elastic", "fz_damping", "fxy_elastic_x", "fxy_elastic_y", "fxy_damping_x",
    "fxy_damping_y", "mu", "limit", "sliding", "p0_x", "p0_y", "p0_z",
    "station_x", "station_y", "station_z", "station_vx", "station_vy", "station_vz",
    "normal_force",
};

// Everything the element computes for one realized state. Vectors with _P are in the plane
// frame, _G in Ground; the friction parts are in-plane (x, y of P).
typedef struct expSpringEval {
  csVec3 p_G;         // station, in Ground, m
  csVec3 p_P;         // station in the plane frame: pz = p_P.z is its height, m
  csVec3 v_P;         // station velocity relative to the plane, in P, m/s
  double fzExp;       // the exponential d1 exp(-d2 (pz - d0)) capped at max_fz: the elastic
                      // force, a function of pz alone (the cap is part of the curve), N
  int yielded;        // 1: the exponential exceeds max_fz here (fzExp = max_fz)
  double fzElastic;   // elastic part of the normal force as reported, N
  double fzDamping;   // damping part of the normal force, N
  double fz;          // normal force, 0 <= fz <= max_fz, N
  double mu;          // instantaneous friction coefficient
  double limit;       // friction limit mu fz, N
  double sliding;     // Sliding state in use (committed value)
  double elastic[2];  // blended elastic friction, N
  double damping[2];  // blended damping friction, N
  double p0[2];       // committed anchor, m
  double p0new[2];    // anchor made consistent with the blended elastic force, m
  int limitRule;      // anchor rule "limit"
  int dragged;        // anchor rule "limit" and the spring at the limit: the anchor is dragged
  double spring[2];   // anchor rule "limit": the spring force -kxy (pxy - p0), uncapped, N
  csVec3 f_G;         // total force on the body, in Ground, N
} expSpringEval;


// friction damping: cxy, or critical damping of mass_for_damping on the friction spring
static double frictionDamping(const double* param) {
  double mass = param[SLOT_MASS];
  return isnan(mass) ? param[SLOT_CXY] : 2.0 * sqrt(param[SLOT_KXY] * mass);
}


// Evaluate the element at the realized state (velocity stage) with the committed auto-update
// values. Follows seed 000 "Normal Force", "Friction Force", "Blending the Friction Models" and
// "Moving the Elastic Anchor Point".
static void evaluate(const csModel* m, const csData* d, int e, expSpringEval* s) {
  const csForce* f = &m->force[e];
  const double* prm = f->param;
  int body = f->ref[CS_REF_BODY];
  int plane = f->ref[CS_REF_PLANE];
  const csTransform* X_GP = &d->plane_pose[plane];

  // station position and its velocity relative to the plane, both in the plane frame
  s->p_G = csu_stationPosition(m, d, body, csu_vec3FromArray(prm + CS_SLOT_STATION));
  s->p_P = csu_mulMtV(&X_GP->R, csu_sub(s->p_G, X_GP->p));
  csVec3 v_G = csu_relativePointVelocity(m, d, body, m->plane[plane].body, s->p_G);
  s->v_P = csu_mulMtV(&X_GP->R, v_G);
  double pz = s->p_P.z, vz = s->v_P.z;
  double pxy[2] = {s->p_P.x, s->p_P.y};
  double vxy[2] = {s->v_P.x, s->v_P.y};

  // normal force: exponential spring with damping scaled by it (Hunt-Crossley form),
  // d1 exp(-d2 (pz - d0)) (1 - cz vz); it may not pull (fz >= 0) and is capped at max_fz. The
  // product is formed as such, so that an exponential beyond the range of doubles (a station
  // sunk far past the cap) still gives max_fz or 0, never inf - inf; below the cap it is the
  // seed's sum fzElastic + fzDamping, as before. The reported elastic part
  // is the exponential capped at max_fz (a function of pz alone, whose energy the bookkeeping
  // below counts), the damping part what the force adds to it or takes from it.
  double maxfz = prm[SLOT_MAXFZ];
  double fzRaw = prm[SLOT_D1] * exp(-prm[SLOT_D2] * (pz - prm[SLOT_D0]));
  double factor = 1.0 - prm[SLOT_CZ] * vz;
  s->yielded = !(fzRaw < maxfz);
  if (!s->yielded) {
    // the seed's sum, as Simbody forms it
    s->fzExp = fzRaw;
    s->fz = csu_max(fzRaw + (-prm[SLOT_CZ] * vz * fzRaw), 0.0);
  } else {
    s->fzExp = maxfz;
    s->fz = factor > 0 ? fzRaw * factor : 0.0;
  }
  s->fz = csu_min(s->fz, maxfz);
  s->fzElastic = s->fzExp;
  s->fzDamping = s->fz - s->fzExp;

  // friction limit from the instantaneous coefficient mu = mus - Sliding (mus - muk)
  const double* disc = d->disc + f->discadr;
  const double* autoval = d->autoval + f->autoadr;
  double mus = disc[DISC_MUS], muk = disc[DISC_MUK];
  s->sliding = autoval[AUTO_SLIDING];
  s->p0[0] = autoval[AUTO_P0X];
  s->p0[1] = autoval[AUTO_P0Y];
  s->mu = mus - s->sliding * (mus - muk);
  s->limit = s->mu * s->fz;
  s->limitRule = f->ref[REF_ANCHOR_RULE] == ANCHOR_LIMIT;
  s->dragged = 0;
  s->spring[0] = s->spring[1] = 0;

  if (s->limit < NEGLIGIBLE) {
    // no friction can be transmitted: no force, and the anchor follows the station
    for (int i = 0; i < 2; i++) {
      s->elastic[i] = s->damping[i] = 0;
      s->p0new[i] = pxy[i];
    }
  } else {
    double kxy = prm[SLOT_KXY], cxy = frictionDamping(prm);
    double limit2 = s->limit * s->limit;
    // model 1, pure damping, capped at the limit along -vxy
    double damp1[2] = {-cxy * vxy[0], -cxy * vxy[1]};
    double n1 = damp1[0] * damp1[0] + damp1[1] * damp1[1];
    if (n1 > limit2) {
      double scale = s->limit / sqrt(n1);
      damp1[0] *= scale;
      damp1[1] *= scale;
    }
    // model 2, damped linear spring to the anchor, both parts scaled down together
    double elas2[2], damp2[2];
    for (int i = 0; i < 2; i++) {
      elas2[i] = -kxy * (pxy[i] - s->p0[i]);
      damp2[i] = -cxy * vxy[i];
    }
    double sx = elas2[0] + damp2[0], sy = elas2[1] + damp2[1];
    double n2 = sx * sx + sy * sy;
    if (n2 > limit2) {
      double scale = s->limit / sqrt(n2);
      for (int i = 0; i < 2; i++) {
        elas2[i] *= scale;
        damp2[i] *= scale;
      }
    }
    // blend by Sliding and move the anchor to where the blended spring force is consistent
    double k = s->sliding;
    for (int i = 0; i < 2; i++) {
      s->elastic[i] = elas2[i] * (1.0 - k);
      s->damping[i] = damp2[i] + (damp1[i] - damp2[i]) * k;
      s->p0new[i] = pxy[i] + s->elastic[i] / kxy;
    }
    if (f->ref[REF_ANCHOR_RULE] == ANCHOR_LIMIT) {
      // The friction is the damped spring to the anchor (model 2), the spring capped at the
      // limit first, then the sum capped at it, and Sliding only sets mu. The anchor stays
      // unless the spring alone pulls harder than the limit; then it is dragged along the
      // spring to where the spring pulls with exactly the limit, which is the pull the capped
      // spring already had: a commit while sliding leaves the force as it was, and the pull
      // does not grow with the step's length. So below the limit nothing moves it and a held
      // station stays held (Sliding decays to 0); at the limit it trails the station at
      // limit / kxy and moves over a step as far as the station slips in it, so its speed is
      // the slip speed whatever the step's length; and while sliding the friction is mu fz at
      // any slip speed (the blend's damper alone gives cxy |v| below mu fz / cxy, and lets a
      // body under a load L creep at L / cxy). The damping does not drag the anchor: it acts
      // on the station's velocity, which vibrates while the station is held.
      s->spring[0] = -kxy * (pxy[0] - s->p0[0]);
      s->spring[1] = -kxy * (pxy[1] - s->p0[1]);
      double n = hypot(s->spring[0], s->spring[1]);
      // A commit leaves a dragged anchor exactly limit / kxy behind the station, up to the
      // rounding of the positions it is computed from: a spring that short of the limit is
      // still at it, for the energy bookkeeping (the anchor moves only past the limit).
      // Otherwise a sliding station's every step would begin on the held branch of the
      // dissipated power (the friction power less the spring's, a jump of limit |v|) and go
      // on dragged, and the error test on the dissipated energy, seeing that jump within the
      // step, cut the steps of the one-step methods to nothing at tight tolerances.
      double slack = 8 * DBL_EPSILON * kxy *
                     (fabs(pxy[0]) + fabs(pxy[1]) + fabs(s->p0[0]) + fabs(s->p0[1]));
      int over = n > s->limit;
      s->dragged = over || (n > 0 && n > s->limit - slack);
      double scale = over ? s->limit / n : 1.0;
      double es[2] = {scale * s->spring[0], scale * s->spring[1]};
      double ds[2] = {-cxy * vxy[0], -cxy * vxy[1]};
      double tx = es[0] + ds[0], ty = es[1] + ds[1];
      double nt2 = tx * tx + ty * ty;
      double sc = nt2 > limit2 ? s->limit / sqrt(nt2) : 1.0;
      for (int i = 0; i < 2; i++) {
        s->elastic[i] = sc * es[i];
        s->damping[i] = sc * ds[i];
        s->p0new[i] = over ? pxy[i] + scale * s->spring[i] / kxy : s->p0[i];
      }
    }
  }

  // total force on the body: friction in x, y of the plane, normal along its z
  csVec3 f_P = csu_vec3(s->elastic[0] + s->damping[0], s->elastic[1] + s->damping[1], s->fz);
  s->f_G = csu_mulMV(&X_GP->R, f_P);
}


// Energy bookkeeping. The potential energy is that of the normal elastic force fzExp, the
// exponential capped at max_fz: fzExp / d2 above the height z_max where the exponential reaches
// max_fz (an antiderivative of the exponential over pz), and below it max_fz / d2 + max_fz
// (z_max - pz), the work of the constant capped force; plus that of the friction spring at the
// anchor consistent with the applied elastic force, |fxy_elastic|^2 / (2 kxy). The dissipated
// power is the power drawn by the damping parts: (fzExp - fz) vz for the normal direction,
// which is cz vz^2 fzExp in the ordinary case, fzExp vz when the force is clipped at zero
// (vz > 1/cz), max_fz - fz times vz > 0 when a station below z_max rises fast enough to bring
// the force under the cap, and 0 while the cap holds it, so never negative; and -fxy_damping .
// vxy for friction (the blended damping is a non-negative multiple of -vxy, so this is >= 0).
//
// Not accounted: the anchor p0 moves (within a step, because the consistent anchor depends on
// the state; between steps, when the committed anchor jumps to it). That motion is how
// sliding friction turns spring energy into heat, but it has no rate the RHS can integrate
// without differentiating the friction limit, which needs accelerations. So KE + PE +
// dissipated is conserved exactly only while the friction spring is idle (no friction, or a
// stuck anchor), and drifts by the energy lost to anchor slip otherwise. The cap is part of
// the elastic curve (a spring whose force saturates at max_fz), so it keeps the balance exact
// and every term finite however deep a station sinks.
//
// With anchor rule "limit" the friction spring is an elastic-plastic element and is booked as
// one. Its energy is that of the spring to the committed anchor, capped where the anchor is
// dragged: min(|spring|, limit)^2 / (2 kxy). While the anchor holds, the friction power not
// stored in it is dissipated, -(fxy - spring) . vxy (the damping part's power when the force is
// below the limit, and what the cap takes when the damping pushes it over); while the anchor is
// dragged, the stretch stays at the limit and the whole friction power -fxy . vxy is heat, less
// the change of the stored limit^2 / (2 kxy) as the normal force changes. So the balance holds
// within a step, up to the rate of the normal damping part (which needs accelerations), and
// across commits where a held anchor does not move and a dragged one keeps its stretch; it
// drifts by the spring energy released when a commit raises Sliding under a stretched spring
// (mu falls from mu_static towards mu_dynamic, and the anchor jumps to the lower limit). Counting
// only the damping part while dragged would also make the power jump at every commit, when the
// dragged anchor catches up and the shares of the capped force change, and the error test on
// the dissipated energy would cut the steps.
static double potentialEnergy(const double* prm, const expSpringEval* s) {
  double normal = s->fzExp / prm[SLOT_D2];
  if (s->yielded) {
    // below z_max = d0 - ln(max_fz / d1) / d2 the capped force is constant
    double maxfz = prm[SLOT_MAXFZ], d2 = prm[SLOT_D2];
    double zmax = prm[SLOT_D0] - (log(maxfz) - log(prm[SLOT_D1])) / d2;  // no ratio overflow
    normal = maxfz / d2 + maxfz * csu_max(zmax - s->p_P.z, 0.0);
  }
  if (s->limitRule) {
    double n = hypot(s->spring[0], s->spring[1]);
    double e = s->dragged ? s->limit : n;
    return normal + 0.5 * e * e / prm[SLOT_KXY];
  }
  double e2 = s->elastic[0] * s->elastic[0] + s->elastic[1] * s->elastic[1];
  return normal + 0.5 * e2 / prm[SLOT_KXY];
}


static double dissipatedPower(const double* prm, const expSpringEval* s) {
  double normal = (s->fzExp - s->fz) * s->v_P.z;
  double fx = s->elastic[0] + s->damping[0], fy = s->elastic[1] + s->damping[1];
  double friction = -(s->damping[0] * s->v_P.x + s->damping[1] * s->v_P.y);
  if (s->limitRule) {
    friction = s->dragged ? -(fx * s->v_P.x + fy * s->v_P.y)
                          : -((fx - s->spring[0]) * s->v_P.x + (fy - s->spring[1]) * s->v_P.y);
    if (s->dragged && s->fz < prm[SLOT_MAXFZ]) {
      // the stored limit^2 / (2 kxy) changes with the limit; its rate from that of the elastic
      // normal force, d fzExp / dt = -d2 vz fzExp (the damping part's rate needs accelerations);
      // below the cap's depth, where fz = d1 exp(..) (1 - cz vz) is under the cap only while the
      // station rises fast, from that of the exponential in fz, -d2 vz fz
      double rate = s->mu * (-prm[SLOT_D2] * s->v_P.z * (s->yielded ? s->fz : s->fzExp));
      friction -= s->limit * rate / prm[SLOT_KXY];
    }
    // a station moving back towards its anchor while the cap still acts, or a limit rising
    // faster than a dragged spring stretches, would make this negative for an instant; the
    // power is a dissipation and stays >= 0 (the balance then gains that instant's energy)
    friction = friction > 0 ? friction : 0;
  }
  return normal + friction;
}


static void fillExtras(const expSpringEval* s, double* extra);


static void expSpringApply(const csModel* m, csData* d, int e) {
  const csForce* f = &m->force[e];
  expSpringEval s;
  evaluate(m, d, e, &s);
  // the force on the body, and the reaction on the plane's body at the same point
  csu_applyForceAtPoint(m, d, f->ref[CS_REF_BODY], s.p_G, s.f_G);
  csu_applyForceAtPoint(m, d, m->plane[f->ref[CS_REF_PLANE]].body, s.p_G, csu_neg(s.f_G));
  d->force_pe[e] = potentialEnergy(f->param, &s);
  d->force_power[e] = dissipatedPower(f->param, &s);
  // the report values, among them the anchor consistent with this state and the friction
  // limit, kept for the update at the end of the step: the update then needs no second
  // evaluation, as Simbody computes its update cache at the dynamics stage, and per-step
  // statistics read the normal force without one either
  fillExtras(&s, d->force_extra + f->repadr);
}


// d sat(x)/dx and d sat(x)/dL of the friction's cap sat(x) = x if |x| <= L, else L x / |x|
// (in-plane, 2 x 2 and 2), as evaluate caps model 1 and model 2
static void capSlopes(const double x[2], double limit, double D[2][2], double dL[2]) {
  double n2 = x[0] * x[0] + x[1] * x[1];
  if (!(n2 > limit * limit)) {
    D[0][0] = D[1][1] = 1;
    D[0][1] = D[1][0] = 0;
    dL[0] = dL[1] = 0;
    return;
  }
  double n = sqrt(n2), u[2] = {x[0] / n, x[1] / n}, r = limit / n;
  for (int i = 0; i < 2; i++) {
    for (int j = 0; j < 2; j++) {
      D[i][j] = r * ((i == j) - u[i] * u[j]);
    }
    dL[i] = u[i];
  }
}


// The element's part of ark's Jacobian of a free body (csForceKind.bodyJacobian), from the
// force law of evaluate differentiated in the plane frame, with the committed anchor and
// Sliding held (they change only between steps). The normal force d1 exp(-d2 (pz - d0))
// (1 - cz vz), where it is neither clipped at 0 nor capped at max_fz, has the slopes -d2 fz in
// the height and -cz d1 exp(...) in its rate. The friction is (1 - k) sat(x2) + k sat(x1) with
// x1 = -cxy vxy, x2 = -kxy (pxy - p0) - cxy vxy, k = Sliding and sat the cap at the limit
// mu fz (anchor rule "limit": sat(x2) alone, with the spring term of x2 capped first), so it
// changes with the station's in-plane motion
// through the caps and with its height and rate through the limit. The plane is on Ground (ark
// forms this Jacobian only then: cs_freeJacobianUsable), so the station's velocity relative to
// it is its velocity.
static void expSpringBodyJacobian(const csModel* m, const csData* d, int e, int body,
                                  double* dQdX, double* dQdV) {
  const csForce* f = &m->force[e];
  if (f->ref[CS_REF_BODY] != body) {
    return;
  }
  const double* prm = f->param;
  expSpringEval s;
  evaluate(m, d, e, &s);
  // slopes in the plane frame: K = df_P/dp_P, C = df_P/dv_P
  csMat33 K = {{{0}}}, C = {{{0}}};
  double dfz_dz = 0, dfz_dvz = 0;
  if (s.fz > 0 && s.fz < prm[SLOT_MAXFZ]) {
    double fzRaw = prm[SLOT_D1] * exp(-prm[SLOT_D2] * (s.p_P.z - prm[SLOT_D0]));
    dfz_dz = -prm[SLOT_D2] * s.fz;
    dfz_dvz = -prm[SLOT_CZ] * fzRaw;
  }
  K.m[2][2] = dfz_dz;
  C.m[2][2] = dfz_dvz;
  if (!(s.limit < NEGLIGIBLE)) {
    double kxy = prm[SLOT_KXY], cxy = frictionDamping(prm);
    double k = s.limitRule ? 0.0 : s.sliding;
    double x1[2] = {-cxy * s.v_P.x, -cxy * s.v_P.y};
    double x2[2] = {-kxy * (s.p_P.x - s.p0[0]) - cxy * s.v_P.x,
                    -kxy * (s.p_P.y - s.p0[1]) - cxy * s.v_P.y};
    // the spring to the anchor, capped at the limit first under the limit rule (Ds, dLs its
    // slopes; 1 and 0 under the blended rule, whose spring is capped only with the damping)
    double Ds[2][2] = {{1, 0}, {0, 1}}, dLs[2] = {0, 0};
    if (s.limitRule) {
      double spring[2] = {s.spring[0], s.spring[1]};
      capSlopes(spring, s.limit, Ds, dLs);
      double n = hypot(spring[0], spring[1]);
      double scale = n > s.limit ? s.limit / n : 1.0;
      x2[0] = scale * spring[0] - cxy * s.v_P.x;
      x2[1] = scale * spring[1] - cxy * s.v_P.y;
    }
    double D1[2][2], D2[2][2], dL1[2], dL2[2];
    capSlopes(x1, s.limit, D1, dL1);
    capSlopes(x2, s.limit, D2, dL2);
    for (int i = 0; i < 2; i++) {
      for (int j = 0; j < 2; j++) {
        double D2Ds = D2[i][0] * Ds[0][j] + D2[i][1] * Ds[1][j];
        K.m[i][j] = -(1 - k) * kxy * D2Ds;
        C.m[i][j] = -cxy * ((1 - k) * D2[i][j] + k * D1[i][j]);
      }
      // the limit mu fz moves with the height and its rate
      double dF_dL = (1 - k) * (dL2[i] + D2[i][0] * dLs[0] + D2[i][1] * dLs[1]) + k * dL1[i];
      K.m[i][2] = dF_dL * s.mu * dfz_dz;
      C.m[i][2] = dF_dL * s.mu * dfz_dvz;
    }
  }
  // into Ground: R K R^T, R C R^T
  const csMat33* R = &d->plane_pose[f->ref[CS_REF_PLANE]].R;
  csMat33 RT = csu_transpose(R), RK = csu_mulMM(R, &K), RC = csu_mulMM(R, &C);
  csMat33 Ap = csu_mulMM(&RK, &RT), Av = csu_mulMM(&RC, &RT);
  csu_pointForceBodyJacobian(d, body, s.p_G, s.p_G, csu_vec3(0, 0, 1), 0.0, s.f_G, &Ap, &Av,
                             dQdX, dQdV);
}


// Next anchor and Sliding state from the state at the end of a successful step (seed 000
// "Coefficients of Friction and the Sliding State"): the anchor speed over the step, scaled by
// v_settle, through the quintic step-up. A zero-length interval or a negligible friction limit
// means fully sliding.
static void expSpringUpdate(const csModel* m, csData* d, int e) {
  const csForce* f = &m->force[e];
  // apply has just run at this state (the commit realizes the dynamics stage first)
  const double* extra = d->force_extra + f->repadr;
  const double* autoval = d->autoval + f->autoadr;
  double p0new[2] = {extra[EXTRA_P0_X], extra[EXTRA_P0_Y]};
  double sliding = 1.0;
  double dt = d->auto_dt;
  // a move within the rounding of the anchor's coordinates over a step so short that it would
  // read as v_settle or more (steps of 1e-14 s: an advance of a few doubles) tells nothing of
  // the speed: Sliding stays (a held block's rounding-sized moves set it sliding). Steps a
  // motion takes are far longer: the rounding of metres over 1e-9 s is 1e-7 m/s.
  double move = hypot(p0new[0] - autoval[AUTO_P0X], p0new[1] - autoval[AUTO_P0Y]);
  double rounding = 8 * DBL_EPSILON * fmax(1.0, fmax(fabs(p0new[0]), fabs(p0new[1])));
  if (move <= rounding && dt * f->param[SLOT_VSETTLE] < rounding) {
    sliding = autoval[AUTO_SLIDING];
  } else if (dt > NEGLIGIBLE && extra[EXTRA_LIMIT] > NEGLIGIBLE) {
    double ratio = move / dt / f->param[SLOT_VSETTLE];
    sliding = csu_step5(ratio < 0 ? 0 : (ratio > 1 ? 1 : ratio));
  }
  double* cache = d->auto_cache + f->autoadr;
  cache[AUTO_P0X] = p0new[0];
  cache[AUTO_P0Y] = p0new[1];
  cache[AUTO_SLIDING] = sliding;
}


// At the start of a run the anchor is the station's projection onto the plane (no elastic
// friction) and the station is taken as sliding; the coefficients come from the parameters.
static void expSpringInit(const csModel* m, csData* d, int e) {
  const csForce* f = &m->force[e];
  const csTransform* X_GP = &d->plane_pose[f->ref[CS_REF_PLANE]];
  csVec3 p_G = csu_stationPosition(m, d, f->ref[CS_REF_BODY],
                                   csu_vec3FromArray(f->param + CS_SLOT_STATION));
  csVec3 p_P = csu_mulMtV(&X_GP->R, csu_sub(p_G, X_GP->p));
  double* autoval = d->autoval + f->autoadr;
  autoval[AUTO_P0X] = p_P.x;
  autoval[AUTO_P0Y] = p_P.y;
  autoval[AUTO_SLIDING] = 1.0;
  double* disc = d->disc + f->discadr;
  disc[DISC_MUS] = f->param[SLOT_MUS];
  disc[DISC_MUK] = f->param[SLOT_MUK];
}


// Keep 0 <= mu_dynamic <= mu_static: a negative (or NaN) value becomes 0, a static coefficient
// set below the dynamic one pulls it down, a dynamic one set above the static one pushes it up.
static void expSpringSetDiscrete(const csModel* m, csData* d, int e, int index, double value) {
  csu_setFriction(d->disc + m->force[e].discadr, 2, index, value);
}


static void expSpringReport(const csModel* m, const csData* d, int e, csContactReport* r,
                            double* extra) {
  const csForce* f = &m->force[e];
  expSpringEval s;
  evaluate(m, d, e, &s);
  // the force acts at the station; the moment about it is zero
  r->point = s.p_G;
  r->force.w = csu_vec3(0, 0, 0);
  r->force.v = s.f_G;
  r->pe = potentialEnergy(f->param, &s);
  r->power = dissipatedPower(f->param, &s);
  fillExtras(&s, extra);
}


// the report values of an evaluation, in the order of g_extraNames
static void fillExtras(const expSpringEval* s, double* extra) {
  extra[EXTRA_FZ_ELASTIC] = s->fzElastic;
  extra[EXTRA_FZ_DAMPING] = s->fzDamping;
  extra[EXTRA_FXY_ELASTIC_X] = s->elastic[0];
  extra[EXTRA_FXY_ELASTIC_Y] = s->elastic[1];
  extra[EXTRA_FXY_DAMPING_X] = s->damping[0];
  extra[EXTRA_FXY_DAMPING_Y] = s->damping[1];
  extra[EXTRA_MU] = s->mu;
  extra[EXTRA_LIMIT] = s->limit;
  extra[EXTRA_SLIDING] = s->sliding;
  extra[EXTRA_P0_X] = s->p0new[0];
  extra[EXTRA_P0_Y] = s->p0new[1];
  extra[EXTRA_P0_Z] = 0.0;
  extra[EXTRA_STATION_X] = s->p_P.x;
  extra[EXTRA_STATION_Y] = s->p_P.y;
  extra[EXTRA_STATION_Z] = s->p_P.z;
  extra[EXTRA_STATION_VX] = s->v_P.x;
  extra[EXTRA_STATION_VY] = s->v_P.y;
  extra[EXTRA_STATION_VZ] = s->v_P.z;
  extra[EXTRA_NORMAL_FORCE] = s->fz;
}


static int expSpringValidate(const csModel* m, const csForce* f, csError* err) {
  // a body other than ground touches a plane it does not carry
  int body = f->ref[CS_REF_BODY], plane = f->ref[CS_REF_PLANE];
  if (body <= 0 || body >= m->nbody) {
    cs_setError(err, CS_ERR_INPUT, "body",
                "exponential spring '%s' must act on a body other than ground", f->name);
    return -1;
  }
  if (plane < 0 || plane >= m->nplane) {
    cs_setError(err, CS_ERR_INPUT, "plane", "exponential spring '%s' needs a contact plane",
                f->name);
    return -1;
  }
  // nor one carried by a body welded to it (one rigid body)
  if (cs_checkContactRefs(m, f, "station", err)) {
    return -1;
  }
  // the station and the real parameters: finite, with the sign their flags demand (an absent
  // mass_for_damping stays NaN and passes)
  if (csu_checkParams(f, g_params, NPARAMS, "exponential spring", err)) {
    return -1;
  }
  // a rule the table knows (a C caller may set any index through cs_setForceParam)
  int rule = f->ref[REF_ANCHOR_RULE];
  if (rule != ANCHOR_BLENDED && rule != ANCHOR_LIMIT) {
    cs_setError(err, CS_ERR_INPUT, "anchor_rule",
                "exponential spring '%s': anchor_rule %d is not a rule (0 \"blended\" or 1 "
                "\"limit\")",
                f->name, rule);
    return -1;
  }
  // dynamic friction never exceeds static friction
  if (f->param[SLOT_MUK] > f->param[SLOT_MUS]) {
    cs_setError(err, CS_ERR_INPUT, "mu_dynamic",
                "exponential spring '%s': mu_dynamic (%g) must not exceed mu_static (%g)",
                f->name, f->param[SLOT_MUK], f->param[SLOT_MUS]);
    return -1;
  }
  return 0;
}


const csForceKind cs_kindExpSpring = {
    .name = "exponential_spring",
    .doc = "exponential spring contact of a body station with a plane, with static and dynamic "
           "(kinetic) friction (seed 000)",
    .params = g_params,
    .nparams = NPARAMS,
    .choices = g_choices,
    .contact = CS_CONTACT_POINT,
    .dissipative = 1,
    .discnum = 2,
    .discnames = cs_frictionNames,
    .autonum = 3,
    .autonames = g_autoNames,
    .autorange = g_autoRange,
    .nextra = EXTRA_COUNT,
    .extranames = g_extraNames,
    .validate = expSpringValidate,
    .init = expSpringInit,
    .apply = expSpringApply,
    .bodyJacobian = expSpringBodyJacobian,
    .update = expSpringUpdate,
    .report = expSpringReport,
    .setDiscrete = expSpringSetDiscrete,
};
