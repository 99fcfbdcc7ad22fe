// hunt_crossley.c: the classic Hunt-Crossley contact between a sphere on one body and a
// plane, with the Simbody friction law; the non-smooth reference for smooth_sphere_half_space.
//
// Normal force (Hertz, with Hunt-Crossley dissipation), x the penetration, R the radius:
//   fH = (4/3) k x sqrt(R k x),  k = E^(2/3)   i.e.  fH = (4/3) E sqrt(R) x^(3/2)
//   f  = max(0, fH (1 + 3/2 c xdot))            (no pulling force)
// E is the effective plain-strain modulus of the pair. To reproduce a Simbody HuntCrossleyForce
// pair with stiffnesses E1, E2, use E = (k1 k2 / (k1 + k2))^(3/2) with ki = Ei^(2/3); a
// smooth_sphere_half_space "stiffness" S corresponds to E = (S^(2/3) / 2)^(3/2) = S / 2^(3/2).
// Friction opposes the slip velocity v_s at the contact point, with magnitude
//   ff = f [min(v/vt, 1) (ud + 2 (us - ud) / (1 + (v/vt)^2)) + uv v],   v = |v_s|
// The potential energy is the integral of fH, (8/15) E sqrt(R) x^(5/2) = (2/5) fH x; the
// dissipated power is (f - fH) xdot + ff v, so KE + PE + dissipated is conserved.
#include <math.h>

#include "contactsim/contactsim.h"
#include "forces/util.h"
#include "forces/kinds.h"

enum {
  SLOT_CENTER = CS_SLOT_STATION,
  SLOT_RADIUS = CS_SLOT_RADIUS,
  SLOT_STIFFNESS = 4,
  SLOT_DISSIPATION = 5,
  SLOT_MU_STATIC = 6,
  SLOT_MU_DYNAMIC = 7,
  SLOT_MU_VISCOUS = 8,
  SLOT_VT = 9,
};

static const csParamInfo g_params[] = {
    {"body", CS_PARAM_BODY, CS_REF_BODY, -1, CS_PARAM_REQUIRED,
     "body carrying the sphere (second surface)"},
    {"plane", CS_PARAM_PLANE, CS_REF_PLANE, -1, CS_PARAM_REQUIRED,
     "plane touched, +z outward (first surface)"},
    {"center", CS_PARAM_VEC3, SLOT_CENTER, 0, 0, "sphere centre in the body frame, m"},
    {"radius", CS_PARAM_REAL, SLOT_RADIUS, 0, CS_PARAM_REQUIRED | CS_PARAM_POSITIVE,
     "sphere radius, m"},
    {"stiffness", CS_PARAM_REAL, SLOT_STIFFNESS, 1e6, CS_PARAM_POSITIVE,
     "effective plain-strain modulus E of the pair, N/m^2"},
    {"dissipation", CS_PARAM_REAL, SLOT_DISSIPATION, 0, CS_PARAM_NONNEG,
     "Hunt-Crossley dissipation c, s/m"},
    {"mu_static", CS_PARAM_REAL, SLOT_MU_STATIC, 0, CS_PARAM_NONNEG,
     "coefficient of static friction"},
    {"mu_dynamic", CS_PARAM_REAL, SLOT_MU_DYNAMIC, 0, CS_PARAM_NONNEG,
     "coefficient of dynamic friction"},
    {"mu_viscous", CS_PARAM_REAL, SLOT_MU_VISCOUS, 0, CS_PARAM_NONNEG,
     "coefficient of viscous friction, s/m"},
    {"transition_velocity", CS_PARAM_REAL, SLOT_VT, 0.01, CS_PARAM_POSITIVE,
     "slip speed at which friction reaches its static peak, m/s"},
};

enum { NPARAMS = sizeof(g_params) / sizeof(g_params[0]) };

// the sphere against the plane at the realized state
static void evaluate(const csModel* m, const csData* d, const csForce* f, csContactEval* out) {
  const double* P = f->param;
  double R = P[SLOT_RADIUS];

  // geometry: n is the inward normal; the point sits midway through the overlap
  csVec3 n, center;
  double x = cs_spherePenetration(m, d, f, &center, &n);
  csVec3 point = csu_addScaled(center, R - 0.5 * (x > 0 ? x : 0), n);

  // velocity of the sphere's material point relative to the plane's, split along n
  csVec3 vtan;
  double xdot =
      cs_contactVelocity(m, d, f->ref[CS_REF_BODY], f->ref[CS_REF_PLANE], point, n, &vtan);
  double slip = csu_norm(vtan);

  // no force until the surfaces overlap
  csu_contactStart(out, point, x, xdot, slip);
  if (!(x > 0)) {
    return;
  }

  // Hertz force and its potential energy
  double E = P[SLOT_STIFFNESS];
  double fH = (4.0 / 3.0) * E * sqrt(R) * x * sqrt(x);
  out->pe = 0.4 * fH * x;

  // Hunt-Crossley dissipation, and the friction coefficient at this slip speed
  double fn = fH * (1 + 1.5 * P[SLOT_DISSIPATION] * xdot);
  double vr = slip / P[SLOT_VT];
  double us = P[SLOT_MU_STATIC], ud = P[SLOT_MU_DYNAMIC], uv = P[SLOT_MU_VISCOUS];
  double mu = fmin(vr, 1.0) * (ud + 2 * (us - ud) / (1 + vr * vr)) + uv * slip;

  // normal force out of the plane (never pulling), friction opposite the slip
  csu_contactFinish(out, csu_neg(n), vtan, fn, fH, mu);
}


static void huntCrossleyApply(const csModel* m, csData* d, int e) {
  csContactEval c;
  evaluate(m, d, &m->force[e], &c);
  cs_applyContact(m, d, e, &c);
}


static void huntCrossleyReport(const csModel* m, const csData* d, int e, csContactReport* r,
                               double* extra) {
  csContactEval c;
  evaluate(m, d, &m->force[e], &c);
  csu_fillContactReport(&c, r, extra);
}


const csForceKind cs_kindHuntCrossley = {
    .name = "hunt_crossley",
    .doc = "classic Hunt-Crossley (Hertz + dissipation) sphere / plane with Simbody friction",
    .params = g_params,
    .nparams = NPARAMS,
    .contact = CS_CONTACT_SPHERE,
    .dissipative = 1,
    .nextra = CS_CONTACT_NEXTRA,
    .extranames = cs_contactExtraNames,
    .validate = cs_validateSphereContact,
    .apply = huntCrossleyApply,
    .report = huntCrossleyReport,
};
