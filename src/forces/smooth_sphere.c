// smooth_sphere.c: smooth Hunt-Crossley contact between a sphere on one body and a half
// space bounded by a plane (seed 001, Simbody's SmoothSphereHalfSpaceForce).
//
// Every switch of the classic model (in contact or not, pushing or not) is replaced by a tanh
// blend, so the force is twice continuously differentiable in the state; the price is a small
// force before contact (x < 0) and no exact potential energy. The equations, parameter names
// and defaults are those of the seed.
//
// Porting a Simbody/OpenSim model. In the seed the half space is the region x > 0 of its frame
// H ("all coordinates with positive x are in contact"), so +x_H is the inward normal and -x_H the
// outward one. A contactsim plane frame P uses +z_P as the outward normal. Give the plane the
// frame X_BP = X_BH * R_y(-90 deg) (quaternion w = cos 45deg, y = -sin 45deg; in a scene
// "rotation": {"axis": [0, 1, 0], "angle_deg": -90} after H's own rotation): R_y(-90 deg) maps
// z_P onto -x_H (and x_P onto z_H), so the inside of both is the same. The usual OpenSim
// ground half space, X_GH = Rotation(-pi/2, Z) in a y-up world, becomes a plane whose outward
// normal is +y_G; in a z-up contactsim scene the floor is simply the identity frame. The sphere
// (body, centre, radius) and all nine parameters carry over unchanged, under the names of
// docs/contact-models.md ("stiffness" is plane_strain_modulus, staticFriction mu_static, ...).
//
// Energy. The seed's potential energy (2/5) fh_smooth x is not the integral of fh_smooth, so the
// element reports as dissipated power the part of the contact power that this potential does not
// account for: power = -(F . v_rel) - d(pe)/dt, i.e. the Hunt-Crossley damping and friction
// losses plus the rate at which the approximate pe departs from the work of the smoothed Hertz
// force. KE + PE + dissipated is then conserved exactly; the second part integrates to zero over
// any excursion that starts and ends out of contact, so after a bounce the dissipated energy is
// the true loss.
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
  SLOT_CF = 10,
  SLOT_BD = 11,
  SLOT_BV = 12,
};

static const csParamInfo g_params[] = {
    {"body", CS_PARAM_BODY, CS_REF_BODY, -1, CS_PARAM_REQUIRED,
     "body carrying the sphere (second surface)"},
    {"plane", CS_PARAM_PLANE, CS_REF_PLANE, -1, CS_PARAM_REQUIRED,
     "plane bounding the half space, +z outward (first surface); not on the sphere's rigid body"},
    {"center", CS_PARAM_VEC3, SLOT_CENTER, 0, 0, "sphere centre in the body frame, m"},
    {"radius", CS_PARAM_REAL, SLOT_RADIUS, 0, CS_PARAM_REQUIRED | CS_PARAM_POSITIVE,
     "sphere radius, m"},
    {"plane_strain_modulus", CS_PARAM_REAL, SLOT_STIFFNESS, 1, CS_PARAM_NONNEG,
     "plane-strain modulus E of both surfaces, N/m^2 (k = E^(2/3) / 2); the seed's stiffness"},
    {"dissipation", CS_PARAM_REAL, SLOT_DISSIPATION, 0, CS_PARAM_NONNEG,
     "Hunt-Crossley dissipation c, s/m"},
    {"mu_static", CS_PARAM_REAL, SLOT_MU_STATIC, 0, CS_PARAM_NONNEG,
     "coefficient of static friction (discrete variable \"mu_static\"); the seed's "
     "staticFriction"},
    {"mu_dynamic", CS_PARAM_REAL, SLOT_MU_DYNAMIC, 0, CS_PARAM_NONNEG,
     "coefficient of dynamic friction (discrete variable \"mu_dynamic\"); the seed's "
     "dynamicFriction"},
    {"mu_viscous", CS_PARAM_REAL, SLOT_MU_VISCOUS, 0, CS_PARAM_NONNEG,
     "coefficient of viscous friction, s/m (discrete variable \"mu_viscous\"); the seed's "
     "viscousFriction"},
    {"transition_velocity", CS_PARAM_REAL, SLOT_VT, 0.01, CS_PARAM_POSITIVE,
     "slip speed at which friction reaches its static peak, m/s"},
    {"constant_contact_force", CS_PARAM_REAL, SLOT_CF, 1e-5, CS_PARAM_POSITIVE,
     "cf, added to x^2 (m^2) and to the squared slip speed (m^2/s^2) to keep derivatives"},
    {"hertz_smoothing", CS_PARAM_REAL, SLOT_BD, 300, CS_PARAM_POSITIVE,
     "bd, steepness of the tanh switching the Hertz force on, 1/m"},
    {"hunt_crossley_smoothing", CS_PARAM_REAL, SLOT_BV, 50, CS_PARAM_POSITIVE,
     "bv, steepness of the tanh switching the Hunt-Crossley force off, s/m"},
};

enum { NPARAMS = sizeof(g_params) / sizeof(g_params[0]) };

// the sphere against the plane at the realized state
static void evaluate(const csModel* m, const csData* d, const csForce* f, csContactEval* out) {
  const double* P = f->param;
  double R = P[SLOT_RADIUS];

  // geometry: n is the inward normal (the seed's "normal pointing in the direction of contact")
  csVec3 n, center;
  double x = cs_spherePenetration(m, d, f, &center, &n);
  // both materials equally stiff: the point sits midway through the overlap (seed, normal force)
  csVec3 point = csu_addScaled(center, R - 0.5 * x, n);

  // velocity of the sphere's material point relative to the plane's, split along n
  csVec3 vtan;
  double xdot =
      cs_contactVelocity(m, d, f->ref[CS_REF_BODY], f->ref[CS_REF_PLANE], point, n, &vtan);
  double vtan2 = csu_dot(vtan, vtan);

  // smoothed Hertz force (seed, "Normal Force Components")
  double cf = P[SLOT_CF], bd = P[SLOT_BD];
  double A = f->derived[0];  // (4/3) k sqrt(R k), k = E^(2/3) / 2 (smoothSpherePrepare)
  double s2 = x * x + cf;
  double s2q = sqrt(sqrt(s2));  // s2^(1/4): s2^(3/4) = s2 / s2q, s2^(-1/4) = 1 / s2q
  double fhPos = A * s2 / s2q;
  double th = tanh(bd * x);
  double S = 0.5 + 0.5 * th;
  double fh = fhPos * S;

  // potential energy as the seed defines it, and its slope for the energy balance
  double pe = 0.4 * fh * x;
  double dfh = 1.5 * A * x / s2q * S + fhPos * 0.5 * bd * (1 - th * th);
  double dpe = 0.4 * (dfh * x + fh);

  // Hunt-Crossley dissipation, switched off smoothly below xdot = -2/(3c); c = 0 leaves fh
  double c = P[SLOT_DISSIPATION];
  double fhc = fh;
  if (c > 0) {
    fhc = fh * (1 + 1.5 * c * xdot) * (0.5 + 0.5 * tanh(P[SLOT_BV] * (xdot + 2.0 / (3.0 * c))));
  }

  // friction against the smoothed slip speed (seed, "Friction Force")
  double vs = sqrt(vtan2 + cf);
  double vr = vs / P[SLOT_VT];
  const double* mu = d->disc + f->discadr;
  double us = mu[CS_FRICTION_STATIC], ud = mu[CS_FRICTION_DYNAMIC];
  double uv = mu[CS_FRICTION_VISCOUS];
  double ff = fhc * (csu_min(vr, 1.0) * (ud + 2 * (us - ud) / (1 + vr * vr)) + uv * vs);

  // force on the sphere: out along -n and against the slip (seed, "Contact Force"); the blended
  // force never switches off, so it always acts
  out->force = csu_addScaled(csu_scale(-fhc, n), -ff / vs, vtan);
  out->point = point;
  out->active = 1;
  out->pe = pe;
  out->power = (fhc - dpe) * xdot + ff * vtan2 / vs;
  out->x = x;
  out->xdot = xdot;
  out->fn = fhc;
  out->ff = ff;
  out->slip = sqrt(vtan2);
}


static void smoothApply(const csModel* m, csData* d, int e) {
  csContactEval c;
  evaluate(m, d, &m->force[e], &c);
  cs_applyContact(m, d, e, &c);
}


// The slopes of the force evaluate computed into ev (bodyJacobian): the smoothed Hertz force
// and its Hunt-Crossley factor differentiated in x and xdot, the friction coefficient in the
// smoothed slip speed sqrt(|vt|^2 + cf), along which the friction is directed
static void slopes(const csModel* m, const csData* d, const csForce* f, const csContactEval* ev,
                   csContactSlope* out) {
  const double* P = f->param;
  csVec3 n, center, vtan;
  double x = cs_spherePenetration(m, d, f, &center, &n);
  double xdot =
      cs_contactVelocity(m, d, f->ref[CS_REF_BODY], f->ref[CS_REF_PLANE], ev->point, n, &vtan);
  double cf = P[SLOT_CF], bd = P[SLOT_BD];
  double A = f->derived[0];
  double s2 = x * x + cf;
  double s2q = sqrt(sqrt(s2));
  double fhPos = A * s2 / s2q;
  double th = tanh(bd * x);
  double S = 0.5 + 0.5 * th;
  double fh = fhPos * S;
  double dfh = 1.5 * A * x / s2q * S + fhPos * 0.5 * bd * (1 - th * th);
  // fhc = fh (1 + 3/2 c xdot) B(xdot), B = 1/2 + 1/2 tanh(bv (xdot + 2 / (3 c)))
  double c = P[SLOT_DISSIPATION];
  double dfn_dx = dfh, dfn_dxdot = 0;
  if (c > 0) {
    double tb = tanh(P[SLOT_BV] * (xdot + 2.0 / (3.0 * c)));
    double B = 0.5 + 0.5 * tb, H = 1 + 1.5 * c * xdot;
    dfn_dx = dfh * H * B;
    dfn_dxdot = fh * (1.5 * c * B + H * 0.5 * P[SLOT_BV] * (1 - tb * tb));
  }
  double vs = sqrt(csu_dot(vtan, vtan) + cf);
  *out = (csContactSlope){
      .station = center, .nout = csu_neg(n), .vtan = vtan, .slip = vs,
      .mu = ev->fn > 0 ? ev->ff / ev->fn : 0, .dfn_dx = dfn_dx, .dfn_dxdot = dfn_dxdot,
      .dmu_dslip = csu_simbodyFrictionSlope(d->disc + f->discadr, vs, P[SLOT_VT]),
      .share = 0.5};
}


static void smoothBodyJacobian(const csModel* m, const csData* d, int e, int body,
                               double* dQdX, double* dQdV) {
  const csForce* f = &m->force[e];
  if (f->ref[CS_REF_BODY] != body) {
    return;
  }
  csContactEval c;
  csContactSlope s;
  evaluate(m, d, f, &c);
  if (!(c.fn > 0)) {
    return;  // no force: nothing changes it
  }
  slopes(m, d, f, &c, &s);
  csu_contactBodyJacobian(d, body, &c, &s, dQdX, dQdV);
}


static void smoothReport(const csModel* m, const csData* d, int e, csContactReport* r,
                         double* extra) {
  csContactEval c;
  evaluate(m, d, &m->force[e], &c);
  csu_fillContactReport(&c, r, extra);
}


// the friction coefficients start as the parameters give them; changes may set them later
static void smoothInit(const csModel* m, csData* d, int e) {
  const csForce* f = &m->force[e];
  double* mu = d->disc + f->discadr;
  mu[CS_FRICTION_STATIC] = f->param[SLOT_MU_STATIC];
  mu[CS_FRICTION_DYNAMIC] = f->param[SLOT_MU_DYNAMIC];
  mu[CS_FRICTION_VISCOUS] = f->param[SLOT_MU_VISCOUS];
}


static void smoothSetDiscrete(const csModel* m, csData* d, int e, int index, double value) {
  csu_setFriction(d->disc + m->force[e].discadr, 3, index, value);
}


// the Hertz constant of the pair, once per model: both surfaces of modulus E, so the pair's
// stiffness is half of E^(2/3) (seed 001, "Normal Force Components")
static void smoothSpherePrepare(const csModel* m, csForce* f) {
  (void)m;
  double k = 0.5 * pow(f->param[SLOT_STIFFNESS], 2.0 / 3.0);
  f->derived[0] = (4.0 / 3.0) * k * sqrt(f->param[SLOT_RADIUS] * k);
}


// the sphere and the plane (cs_validateSphereContact), and the friction coefficients in order
static int smoothValidate(const csModel* m, const csForce* f, csError* err) {
  if (cs_validateSphereContact(m, f, err)) {
    return -1;
  }
  return csu_checkFrictionOrder(f, f->param[SLOT_MU_STATIC], f->param[SLOT_MU_DYNAMIC], "", err);
}


const csForceKind cs_kindSmoothSphere = {
    .name = "smooth_sphere_half_space",
    .doc = "smooth Hunt-Crossley sphere / half space with tanh-blended contact and friction",
    .params = g_params,
    .nparams = NPARAMS,
    .contact = CS_CONTACT_SPHERE,
    .dissipative = 1,
    .discnum = 3,
    .discnames = cs_frictionNames,
    .nextra = CS_CONTACT_NEXTRA,
    .extranames = cs_contactExtraNames,
    .validate = smoothValidate,
    .init = smoothInit,
    .apply = smoothApply,
    .bodyJacobian = smoothBodyJacobian,
    .report = smoothReport,
    .setDiscrete = smoothSetDiscrete,
    .prepare = smoothSpherePrepare,
};
