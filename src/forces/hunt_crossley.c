// hunt_crossley.c: the classic Hunt-Crossley contact between a sphere on one body and a
// plane, with the Simbody friction law; the non-smooth reference for smooth_sphere_half_space.
//
// Materials, combined as Simbody's HuntCrossleyForce combines the parameters of the two surfaces
// (one material per surface, 1 the sphere's, 2 the plane's): each surface has a plane-strain
// modulus E_i, a dissipation c_i and friction coefficients, and with k_i = E_i^(2/3)
//   s = k2 / (k1 + k2),   k = k1 s = k1 k2 / (k1 + k2),   c = c1 s + c2 (1 - s),
//   mu = 2 mu1 mu2 / (mu1 + mu2) for each of the static, dynamic and viscous coefficients.
// The effective keys (no material blocks) give both surfaces the same material, so that
// plane_strain_modulus means the same here as in smooth_sphere_half_space: k = E^(2/3) / 2.
//
// Normal force (Hertz, with Hunt-Crossley dissipation), x the penetration, R the radius:
//   fH = (4/3) k x sqrt(R k x),   f = max(0, fH (1 + 3/2 c xdot))   (no pulling force)
// The sphere's surface takes the fraction s of the overlap, so the contact point (the deformed
// interface) lies s x from the sphere's undeformed lowest point towards its centre: with equal
// materials half-way through the overlap, on a much stiffer plane at the plane itself.
// Friction opposes the slip velocity v_s of the sphere's material point at the contact point,
// with magnitude
//   ff = f [min(v/vt, 1) (ud + 2 (us - ud) / (1 + (v/vt)^2)) + uv v],   v = |v_s|
// The potential energy is the integral of fH, (8/15) k^(3/2) sqrt(R) x^(5/2) = (2/5) fH x; the
// dissipated power is (f - fH) xdot + ff v, so KE + PE + dissipated is conserved.
//
// The three friction coefficients of the pair are discrete variables (mu_static, mu_dynamic,
// mu_viscous), set from the materials at the start, so that a scheduled change can make a spot
// slippery under this model as under every other.
#include <math.h>

#include "contactsim/contactsim.h"
#include "forces/util.h"
#include "forces/kinds.h"

enum {
  SLOT_CENTER = CS_SLOT_STATION,
  SLOT_RADIUS = CS_SLOT_RADIUS,
  SLOT_EFFECTIVE = 4,     // plane_strain_modulus, dissipation, mu_static, mu_dynamic, mu_viscous
  SLOT_VT = 9,
  SLOT_BODY_MAT = 10,     // body_material.* at 10..14, in the same order
  SLOT_PLANE_MAT = 15,    // plane_material.* at 15..19
};

static const csParamInfo g_params[] = {
    {"body", CS_PARAM_BODY, CS_REF_BODY, -1, CS_PARAM_REQUIRED,
     "body carrying the sphere (second surface)"},
    {"plane", CS_PARAM_PLANE, CS_REF_PLANE, -1, CS_PARAM_REQUIRED,
     "plane touched, +z outward (first surface); not on the sphere's rigid body"},
    {"center", CS_PARAM_VEC3, SLOT_CENTER, 0, 0, "sphere centre in the body frame, m"},
    {"radius", CS_PARAM_REAL, SLOT_RADIUS, 0, CS_PARAM_REQUIRED | CS_PARAM_POSITIVE,
     "sphere radius, m"},
    {"plane_strain_modulus", CS_PARAM_REAL, SLOT_EFFECTIVE + CS_MAT_K, 0,
     CS_PARAM_OPTIONAL | CS_PARAM_POSITIVE,
     "plane-strain modulus E of both surfaces, N/m^2 (k = E^(2/3) / 2); required unless both "
     "materials are given"},
    {"dissipation", CS_PARAM_REAL, SLOT_EFFECTIVE + CS_MAT_C, 0,
     CS_PARAM_OPTIONAL | CS_PARAM_NONNEG, "Hunt-Crossley dissipation c of both surfaces, s/m"},
    {"mu_static", CS_PARAM_REAL, SLOT_EFFECTIVE + CS_MAT_US, 0,
     CS_PARAM_OPTIONAL | CS_PARAM_NONNEG,
     "coefficient of static friction (discrete variable \"mu_static\")"},
    {"mu_dynamic", CS_PARAM_REAL, SLOT_EFFECTIVE + CS_MAT_UD, 0,
     CS_PARAM_OPTIONAL | CS_PARAM_NONNEG,
     "coefficient of dynamic friction (discrete variable \"mu_dynamic\")"},
    {"mu_viscous", CS_PARAM_REAL, SLOT_EFFECTIVE + CS_MAT_UV, 0,
     CS_PARAM_OPTIONAL | CS_PARAM_NONNEG,
     "coefficient of viscous friction, s/m (discrete variable \"mu_viscous\")"},
    {"transition_velocity", CS_PARAM_REAL, SLOT_VT, 0.01, CS_PARAM_POSITIVE,
     "slip speed at which friction reaches its static peak, m/s"},
    {"body_material.plane_strain_modulus", CS_PARAM_REAL, SLOT_BODY_MAT + CS_MAT_K, 0,
     CS_PARAM_OPTIONAL | CS_PARAM_POSITIVE, "plane-strain modulus of the sphere's surface, N/m^2"},
    {"body_material.dissipation", CS_PARAM_REAL, SLOT_BODY_MAT + CS_MAT_C, 0,
     CS_PARAM_OPTIONAL | CS_PARAM_NONNEG, "dissipation of the sphere's surface, s/m"},
    {"body_material.mu_static", CS_PARAM_REAL, SLOT_BODY_MAT + CS_MAT_US, 0,
     CS_PARAM_OPTIONAL | CS_PARAM_NONNEG, "static friction of the sphere's surface"},
    {"body_material.mu_dynamic", CS_PARAM_REAL, SLOT_BODY_MAT + CS_MAT_UD, 0,
     CS_PARAM_OPTIONAL | CS_PARAM_NONNEG, "dynamic friction of the sphere's surface"},
    {"body_material.mu_viscous", CS_PARAM_REAL, SLOT_BODY_MAT + CS_MAT_UV, 0,
     CS_PARAM_OPTIONAL | CS_PARAM_NONNEG, "viscous friction of the sphere's surface, s/m"},
    {"plane_material.plane_strain_modulus", CS_PARAM_REAL, SLOT_PLANE_MAT + CS_MAT_K, 0,
     CS_PARAM_OPTIONAL | CS_PARAM_POSITIVE, "plane-strain modulus of the plane's surface, N/m^2"},
    {"plane_material.dissipation", CS_PARAM_REAL, SLOT_PLANE_MAT + CS_MAT_C, 0,
     CS_PARAM_OPTIONAL | CS_PARAM_NONNEG, "dissipation of the plane's surface, s/m"},
    {"plane_material.mu_static", CS_PARAM_REAL, SLOT_PLANE_MAT + CS_MAT_US, 0,
     CS_PARAM_OPTIONAL | CS_PARAM_NONNEG, "static friction of the plane's surface"},
    {"plane_material.mu_dynamic", CS_PARAM_REAL, SLOT_PLANE_MAT + CS_MAT_UD, 0,
     CS_PARAM_OPTIONAL | CS_PARAM_NONNEG, "dynamic friction of the plane's surface"},
    {"plane_material.mu_viscous", CS_PARAM_REAL, SLOT_PLANE_MAT + CS_MAT_UV, 0,
     CS_PARAM_OPTIONAL | CS_PARAM_NONNEG, "viscous friction of the plane's surface, s/m"},
};

enum { NPARAMS = sizeof(g_params) / sizeof(g_params[0]) };


// the pair's material: the two surfaces' when given, otherwise the effective keys for both
static csPairMaterial resolveMaterial(const double* P) {
  const double* m1 = P + SLOT_EFFECTIVE;
  const double* m2 = P + SLOT_EFFECTIVE;
  if (csu_materialGiven(P, SLOT_BODY_MAT) || csu_materialGiven(P, SLOT_PLANE_MAT)) {
    m1 = P + SLOT_BODY_MAT;
    m2 = P + SLOT_PLANE_MAT;
  }
  // Simbody's stiffness of a surface is its modulus to the power 2/3
  return csu_combineMaterials(m1, m2, pow(m1[CS_MAT_K], 2.0 / 3.0), pow(m2[CS_MAT_K], 2.0 / 3.0));
}


// the sphere against the plane at the realized state; `apart` 0 skips the velocities when the
// surfaces do not touch (apply: no force, and the statistics read only the normal force), 1
// computes them for the report's columns
static void evaluate(const csModel* m, const csData* d, const csForce* f, int apart,
                     csContactEval* out) {
  const double* P = f->param;
  double R = P[SLOT_RADIUS];
  // the pair's stiffness, dissipation and share of the deformation (huntCrossleyPrepare)
  double k = f->derived[CS_DERIVED_K], c = f->derived[CS_DERIVED_C];
  double share = f->derived[CS_DERIVED_S];

  // geometry: n is the inward normal; the point sits where the deformed surfaces meet, the
  // sphere's surface having given way by s x
  csVec3 n, center;
  double x = cs_spherePenetration(m, d, f, &center, &n);
  csVec3 point = csu_addScaled(center, R - share * (x > 0 ? x : 0), n);
  if (!(x > 0) && !apart) {
    csu_contactStart(out, point, x, 0, 0);
    return;
  }

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
  double fH = (4.0 / 3.0) * k * x * sqrt(R * k * x);
  out->pe = 0.4 * fH * x;

  // Hunt-Crossley dissipation, and the friction coefficient at this slip speed from the
  // current (discrete) coefficients
  double fn = fH * (1 + 1.5 * c * xdot);
  const double* mu = d->disc + f->discadr;
  double us = mu[CS_FRICTION_STATIC], ud = mu[CS_FRICTION_DYNAMIC];
  double uv = mu[CS_FRICTION_VISCOUS];
  double vr = slip / P[SLOT_VT];
  double coef = csu_min(vr, 1.0) * (ud + 2 * (us - ud) / (1 + vr * vr)) + uv * slip;

  // normal force out of the plane (never pulling), friction opposite the slip
  csu_contactFinish(out, csu_neg(n), vtan, fn, fH, coef);
}


// The slopes of the force that evaluate computed into c (bodyJacobian): its geometry again,
// then fn = fH (1 + 3/2 c xdot) with fH ~ x^(3/2), and the coefficient's slope in the slip
// speed (the law above, differentiated)
static void slopes(const csModel* m, const csData* d, const csForce* f, const csContactEval* ev,
                   csContactSlope* out) {
  const double* P = f->param;
  double c = f->derived[CS_DERIVED_C];
  csVec3 n, center, vtan;
  cs_spherePenetration(m, d, f, &center, &n);
  cs_contactVelocity(m, d, f->ref[CS_REF_BODY], f->ref[CS_REF_PLANE], ev->point, n, &vtan);
  double fH = ev->x > 0 ? ev->fn / (1 + 1.5 * c * ev->xdot) : 0;
  *out = (csContactSlope){
      .station = center, .nout = csu_neg(n), .vtan = vtan, .slip = ev->slip,
      .mu = ev->fn > 0 ? ev->ff / ev->fn : 0, .dfn_dx = ev->x > 0 ? 1.5 * ev->fn / ev->x : 0,
      .dfn_dxdot = 1.5 * c * fH,
      .dmu_dslip = csu_simbodyFrictionSlope(d->disc + f->discadr, ev->slip, P[SLOT_VT]),
      .share = f->derived[CS_DERIVED_S]};
}


static void huntCrossleyApply(const csModel* m, csData* d, int e) {
  csContactEval c;
  evaluate(m, d, &m->force[e], 0, &c);
  cs_applyContact(m, d, e, &c);
}


static void huntCrossleyBodyJacobian(const csModel* m, const csData* d, int e, int body,
                                     double* dQdX, double* dQdV) {
  const csForce* f = &m->force[e];
  if (f->ref[CS_REF_BODY] != body) {
    return;
  }
  csContactEval c;
  csContactSlope s;
  evaluate(m, d, f, 0, &c);
  if (!c.active || !(c.fn > 0)) {
    return;  // no force: nothing changes it
  }
  slopes(m, d, f, &c, &s);
  csu_contactBodyJacobian(d, body, &c, &s, dQdX, dQdV);
}


static void huntCrossleyReport(const csModel* m, const csData* d, int e, csContactReport* r,
                               double* extra) {
  csContactEval c;
  evaluate(m, d, &m->force[e], 1, &c);
  csu_fillContactReport(&c, r, extra);
}


// the pair's constants, once per model
static void huntCrossleyPrepare(const csModel* m, csForce* f) {
  (void)m;
  csu_storePairMaterial(f, resolveMaterial(f->param));
}


// the friction coefficients of the pair start as the materials give them
static void huntCrossleyInit(const csModel* m, csData* d, int e) {
  const csForce* f = &m->force[e];
  csPairMaterial mat = resolveMaterial(f->param);
  double* mu = d->disc + f->discadr;
  mu[CS_FRICTION_STATIC] = mat.us;
  mu[CS_FRICTION_DYNAMIC] = mat.ud;
  mu[CS_FRICTION_VISCOUS] = mat.uv;
}


static void huntCrossleySetDiscrete(const csModel* m, csData* d, int e, int index, double value) {
  csu_setFriction(d->disc + m->force[e].discadr, 3, index, value);
}


static int huntCrossleyValidate(const csModel* m, const csForce* f, csError* err) {
  // numbers finite with their signs, one way of giving the materials, then body and plane
  if (csu_checkParams(f, g_params, NPARAMS, "contact", err) ||
      csu_checkMaterials(f, f->param, SLOT_EFFECTIVE, SLOT_BODY_MAT, SLOT_PLANE_MAT,
                         "plane_strain_modulus", err)) {
    return -1;
  }
  return cs_checkContactRefs(m, f, "sphere", err);
}


// the sphere's distance from the plane (the Hertz force's onset: its slope in the penetration
// grows as the square root)
static int huntCrossleyGaps(const csModel* m, const csData* d, int e, double* g) {
  const csForce* f = &m->force[e];
  int body = f->ref[CS_REF_BODY];
  csVec3 center = csu_stationPosition(m, d, body, csu_vec3FromArray(f->param + CS_SLOT_STATION));
  csu_planeGap(m, d, body, f->ref[CS_REF_PLANE], center, f->param[CS_SLOT_RADIUS], g);
  return 1;
}


const csForceKind cs_kindHuntCrossley = {
    .name = "hunt_crossley",
    .doc = "classic Hunt-Crossley (Hertz + dissipation) sphere / plane with Simbody friction",
    .params = g_params,
    .nparams = NPARAMS,
    .contact = CS_CONTACT_SPHERE,
    .dissipative = 1,
    .discnum = 3,
    .discnames = cs_frictionNames,
    .nextra = CS_CONTACT_NEXTRA,
    .extranames = cs_contactExtraNames,
    .validate = huntCrossleyValidate,
    .init = huntCrossleyInit,
    .apply = huntCrossleyApply,
    .report = huntCrossleyReport,
    .setDiscrete = huntCrossleySetDiscrete,
    .prepare = huntCrossleyPrepare,
    .bodyJacobian = huntCrossleyBodyJacobian,
    .gaps = huntCrossleyGaps,
};
