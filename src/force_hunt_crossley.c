// force_hunt_crossley.c: the classic Hunt-Crossley contact between a sphere on one body and a
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
#include "error.h"
#include "forces.h"

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

static const char* const g_extraNames[] = {"penetration", "penetration_rate", "normal_force",
                                           "friction_force", "slip_speed"};

// everything one evaluation produces; apply and report share it
typedef struct sphereContact {
  csVec3 point;    // contact point, in Ground
  csVec3 force;    // force on the sphere's body at point, in Ground
  double pe;       // J
  double power;    // W
  double x;        // penetration, m
  double xdot;     // penetration rate, m/s
  double fn;       // normal force pushing the sphere out, N
  double ff;       // friction force magnitude, N
  double slip;     // tangential speed of the sphere relative to the plane at point, m/s
} sphereContact;


// the sphere against the plane at the realized state
static void evaluate(const csModel* m, const csData* d, const csForce* f, sphereContact* out) {
  const double* P = f->param;
  int body = f->ref[CS_REF_BODY];
  int plane = f->ref[CS_REF_PLANE];
  const csTransform* X_GP = &d->plane_pose[plane];
  double R = P[SLOT_RADIUS];

  // geometry: n is the inward normal; the point sits midway through the overlap
  csVec3 n = csu_vec3(-X_GP->R.m[0][2], -X_GP->R.m[1][2], -X_GP->R.m[2][2]);
  csVec3 center = cs_stationPosition(m, d, body, csu_vec3FromArray(P + SLOT_CENTER));
  double x = R + csu_dot(csu_sub(center, X_GP->p), n);
  csVec3 point = csu_addScaled(center, R - 0.5 * (x > 0 ? x : 0), n);

  // velocity of the sphere's material point relative to the plane's, split along n
  csVec3 v = csu_sub(cs_pointVelocity(m, d, body, point),
                     cs_pointVelocity(m, d, m->plane[plane].body, point));
  double xdot = csu_dot(v, n);
  csVec3 vtan = csu_addScaled(v, -xdot, n);
  double slip = csu_norm(vtan);

  out->point = point;
  out->x = x;
  out->xdot = xdot;
  out->slip = slip;
  out->force = csu_vec3(0, 0, 0);
  out->pe = out->power = out->fn = out->ff = 0;
  if (!(x > 0)) {
    return;
  }

  // Hertz force and its potential energy
  double E = P[SLOT_STIFFNESS];
  double fH = (4.0 / 3.0) * E * sqrt(R) * x * sqrt(x);
  out->pe = 0.4 * fH * x;

  // Hunt-Crossley dissipation; the surfaces never pull
  double fn = fH * (1 + 1.5 * P[SLOT_DISSIPATION] * xdot);
  if (fn < 0) {
    fn = 0;
  }

  // friction opposite the slip
  double ff = 0;
  csVec3 force = csu_scale(-fn, n);
  if (slip > 0) {
    double vr = slip / P[SLOT_VT];
    double us = P[SLOT_MU_STATIC], ud = P[SLOT_MU_DYNAMIC], uv = P[SLOT_MU_VISCOUS];
    ff = fn * (fmin(vr, 1.0) * (ud + 2 * (us - ud) / (1 + vr * vr)) + uv * slip);
    force = csu_addScaled(force, -ff / slip, vtan);
  }

  out->force = force;
  out->fn = fn;
  out->ff = ff;
  out->power = (fn - fH) * xdot + ff * slip;
}


static void huntCrossleyApply(const csModel* m, csData* d, int e) {
  const csForce* f = &m->force[e];
  sphereContact sc;
  evaluate(m, d, f, &sc);
  if (sc.x > 0) {
    cs_applyForceAtPoint(m, d, f->ref[CS_REF_BODY], sc.point, sc.force);
    cs_applyForceAtPoint(m, d, m->plane[f->ref[CS_REF_PLANE]].body, sc.point,
                         csu_neg(sc.force));
  }
  d->force_pe[e] = sc.pe;
  d->force_power[e] = sc.power;
}


static void huntCrossleyReport(const csModel* m, const csData* d, int e, csContactReport* r,
                               double* extra) {
  sphereContact sc;
  evaluate(m, d, &m->force[e], &sc);
  r->point = sc.point;
  r->force.w = csu_vec3(0, 0, 0);
  r->force.v = sc.force;
  r->pe = sc.pe;
  r->power = sc.power;
  extra[0] = sc.x;
  extra[1] = sc.xdot;
  extra[2] = sc.fn;
  extra[3] = sc.ff;
  extra[4] = sc.slip;
}


static int huntCrossleyValidate(const csModel* m, const csForce* f, csError* err) {
  // real parameters: finite, with the sign their flags demand
  for (int i = 0; i < NPARAMS; i++) {
    const csParamInfo* p = &g_params[i];
    int n = p->type == CS_PARAM_VEC3 ? 3 : (p->type == CS_PARAM_REAL ? 1 : 0);
    for (int j = 0; j < n; j++) {
      double v = f->param[p->slot + j];
      if (!isfinite(v) || ((p->flags & CS_PARAM_POSITIVE) && !(v > 0)) ||
          ((p->flags & CS_PARAM_NONNEG) && !(v >= 0))) {
        cs_setError(err, CS_ERR_INPUT, p->key, "contact '%s': %s must be a finite number%s",
                    f->name, p->key,
                    (p->flags & CS_PARAM_POSITIVE)  ? " > 0"
                    : (p->flags & CS_PARAM_NONNEG) ? " >= 0"
                                                   : "");
        return -1;
      }
    }
  }
  // the sphere's body and the plane exist, and the body does not carry the plane
  int body = f->ref[CS_REF_BODY], plane = f->ref[CS_REF_PLANE];
  if (body < 0 || body >= m->nbody) {
    cs_setError(err, CS_ERR_INPUT, "body", "contact '%s' needs the body carrying the sphere",
                f->name);
    return -1;
  }
  if (plane < 0 || plane >= m->nplane) {
    cs_setError(err, CS_ERR_INPUT, "plane", "contact '%s' needs a plane", f->name);
    return -1;
  }
  if (m->plane[plane].body == body) {
    cs_setError(err, CS_ERR_INPUT, "plane",
                "contact '%s': the sphere and the plane '%s' are on the same body", f->name,
                m->plane[plane].name);
    return -1;
  }
  return 0;
}


const csForceKind cs_kindHuntCrossley = {
    .name = "hunt_crossley",
    .doc = "classic Hunt-Crossley (Hertz + dissipation) sphere / plane with Simbody friction",
    .params = g_params,
    .nparams = NPARAMS,
    .contact = CS_CONTACT_SPHERE,
    .dissipative = 1,
    .nextra = sizeof(g_extraNames) / sizeof(g_extraNames[0]),
    .extranames = g_extraNames,
    .validate = huntCrossleyValidate,
    .apply = huntCrossleyApply,
    .report = huntCrossleyReport,
};
