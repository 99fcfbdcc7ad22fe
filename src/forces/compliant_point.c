// compliant_point.c: a station on a body against a plane, with a linear penalty normal
// force, Hunt-Crossley-style damping and Stribeck friction.
//
// With x the depth of the station below the plane and xdot its rate:
//   fN = max(0, k x (1 + c xdot)),   pe = k x^2 / 2
// Friction opposes the slip velocity v_s at the contact point with magnitude mu(v) fN, v = |v_s|:
//   mu(v) = us step5(v/vt)                              v < vt
//         = us - (us - ud) step5((v/vt - 1) / 2)        vt <= v < 3 vt
//         = ud                                          v >= 3 vt
//   plus uv v (viscous), step5 the quintic 10s^3 - 15s^4 + 6s^5.
// The dissipated power is (fN - k x) xdot + ff v, so KE + PE + dissipated is conserved.
//
// Materials. Either the effective values are given, or one material per surface, combined as
// Simbody combines contact materials: s = k2 / (k1 + k2), k = k1 s (the two springs in series),
// c = c1 s + c2 (1 - s), and each friction coefficient mu = 2 a b / (a + b) (0 when a + b = 0);
// 1 is the body, 2 the plane. The body's surface then takes the fraction s of the deformation,
// so the contact point (the deformed interface) lies s x from the station towards the plane;
// with effective values s = 1/2. The stiffness is a linear penalty stiffness (N/m), named
// penalty_stiffness to keep it apart from the plane-strain modulus of the Hertz models. The
// pair's friction coefficients are discrete variables (mu_static, mu_dynamic, mu_viscous) set
// from the materials at the start, so that scheduled changes can set them.
#include <math.h>

#include "contactsim/contactsim.h"
#include "engine/error.h"
#include "engine/kinematics.h"
#include "forces/util.h"
#include "forces/kinds.h"

enum {
  SLOT_STATION = CS_SLOT_STATION,
  SLOT_EFFECTIVE = 4,     // effective values: penalty_stiffness, dissipation, mu_static,
                          // mu_dynamic, mu_viscous at 4..8
  SLOT_VT = 9,
  SLOT_BODY_MAT = 10,     // body_material.* at 10..14, in the same order
  SLOT_PLANE_MAT = 15,    // plane_material.* at 15..19
};

static const csParamInfo g_params[] = {
    {"body", CS_PARAM_BODY, CS_REF_BODY, -1, CS_PARAM_REQUIRED,
     "body carrying the station (second surface)"},
    {"plane", CS_PARAM_PLANE, CS_REF_PLANE, -1, CS_PARAM_REQUIRED,
     "plane touched, +z outward (first surface); not on the point's rigid body"},
    {"station", CS_PARAM_VEC3, SLOT_STATION, 0, 0, "contact station in the body frame, m"},
    {"penalty_stiffness", CS_PARAM_REAL, SLOT_EFFECTIVE + CS_MAT_K, 0,
     CS_PARAM_OPTIONAL | CS_PARAM_POSITIVE,
     "effective penalty stiffness k, N/m; required unless both materials are given"},
    {"dissipation", CS_PARAM_REAL, SLOT_EFFECTIVE + CS_MAT_C, 0,
     CS_PARAM_OPTIONAL | CS_PARAM_NONNEG, "effective dissipation c, s/m"},
    {"mu_static", CS_PARAM_REAL, SLOT_EFFECTIVE + CS_MAT_US, 0,
     CS_PARAM_OPTIONAL | CS_PARAM_NONNEG,
     "effective coefficient of static friction (discrete variable \"mu_static\")"},
    {"mu_dynamic", CS_PARAM_REAL, SLOT_EFFECTIVE + CS_MAT_UD, 0,
     CS_PARAM_OPTIONAL | CS_PARAM_NONNEG,
     "effective coefficient of dynamic friction (discrete variable \"mu_dynamic\")"},
    {"mu_viscous", CS_PARAM_REAL, SLOT_EFFECTIVE + CS_MAT_UV, 0,
     CS_PARAM_OPTIONAL | CS_PARAM_NONNEG,
     "effective coefficient of viscous friction, s/m (discrete variable \"mu_viscous\")"},
    {"transition_velocity", CS_PARAM_REAL, SLOT_VT, 0.01, CS_PARAM_POSITIVE,
     "slip speed at which friction reaches its static peak, m/s"},
    {"body_material.penalty_stiffness", CS_PARAM_REAL, SLOT_BODY_MAT + CS_MAT_K, 0,
     CS_PARAM_OPTIONAL | CS_PARAM_POSITIVE, "penalty stiffness of the body's surface, N/m"},
    {"body_material.dissipation", CS_PARAM_REAL, SLOT_BODY_MAT + CS_MAT_C, 0,
     CS_PARAM_OPTIONAL | CS_PARAM_NONNEG, "dissipation of the body's surface, s/m"},
    {"body_material.mu_static", CS_PARAM_REAL, SLOT_BODY_MAT + CS_MAT_US, 0,
     CS_PARAM_OPTIONAL | CS_PARAM_NONNEG, "static friction of the body's surface"},
    {"body_material.mu_dynamic", CS_PARAM_REAL, SLOT_BODY_MAT + CS_MAT_UD, 0,
     CS_PARAM_OPTIONAL | CS_PARAM_NONNEG, "dynamic friction of the body's surface"},
    {"body_material.mu_viscous", CS_PARAM_REAL, SLOT_BODY_MAT + CS_MAT_UV, 0,
     CS_PARAM_OPTIONAL | CS_PARAM_NONNEG, "viscous friction of the body's surface, s/m"},
    {"plane_material.penalty_stiffness", CS_PARAM_REAL, SLOT_PLANE_MAT + CS_MAT_K, 0,
     CS_PARAM_OPTIONAL | CS_PARAM_POSITIVE, "penalty stiffness of the plane's surface, N/m"},
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


// the effective material: from the two surfaces when given, otherwise the effective keys (the
// body's surface then takes half the deformation)
static csPairMaterial resolveMaterial(const double* P) {
  if (csu_materialGiven(P, SLOT_BODY_MAT) || csu_materialGiven(P, SLOT_PLANE_MAT)) {
    const double* b = P + SLOT_BODY_MAT;
    const double* p = P + SLOT_PLANE_MAT;
    return csu_combineMaterials(b, p, b[CS_MAT_K], p[CS_MAT_K]);
  }
  const double* e = P + SLOT_EFFECTIVE;
  csPairMaterial r = csu_combineMaterials(e, e, e[CS_MAT_K], e[CS_MAT_K]);
  r.k = e[CS_MAT_K];
  return r;
}


// Stribeck friction coefficient at slip speed v (file header)
// (mu holds the current static, dynamic and viscous coefficients)
static double frictionCoefficient(const double* mu, double v, double vt) {
  double us = mu[CS_FRICTION_STATIC], ud = mu[CS_FRICTION_DYNAMIC];
  double r = v / vt;
  double coef;
  if (r < 1) {
    coef = us * csu_step5(r);
  } else if (r < 3) {
    coef = us - (us - ud) * csu_step5(0.5 * (r - 1));
  } else {
    coef = ud;
  }
  return coef + mu[CS_FRICTION_VISCOUS] * v;
}


// its slope in v, s/m (step5' = 30 s^2 (1 - s)^2)
static double frictionSlope(const double* mu, double v, double vt) {
  double us = mu[CS_FRICTION_STATIC], ud = mu[CS_FRICTION_DYNAMIC];
  double r = v / vt, s = r < 1 ? r : 0.5 * (r - 1);
  double d5 = r < 3 ? 30 * s * s * (1 - s) * (1 - s) / vt : 0;
  return (r < 1 ? us * d5 : -(us - ud) * 0.5 * d5) + mu[CS_FRICTION_VISCOUS];
}


// the station against the plane at the realized state; `apart` 0 skips the velocities when the
// surfaces do not touch (apply: no force, and the statistics read only the normal force), 1
// computes them for the report's columns
static void evaluate(const csModel* m, const csData* d, const csForce* f, int apart,
                     csContactEval* out) {
  const double* P = f->param;
  int body = f->ref[CS_REF_BODY];
  int plane = f->ref[CS_REF_PLANE];
  // the pair's stiffness, dissipation and share of the deformation (compliantPrepare)
  double k = f->derived[CS_DERIVED_K], c = f->derived[CS_DERIVED_C];
  double share = f->derived[CS_DERIVED_S];

  // geometry: depth below the plane along the outward normal nout
  csVec3 nout;
  csVec3 station = csu_stationPosition(m, d, body, csu_vec3FromArray(P + SLOT_STATION));
  double x = -cs_planeHeight(d, plane, station, &nout);
  csVec3 point = csu_addScaled(station, share * (x > 0 ? x : 0), nout);
  if (!(x > 0) && !apart) {
    csu_contactStart(out, point, x, 0, 0);
    return;
  }

  // velocity of the body's material point relative to the plane's, split along the normal
  csVec3 vtan;
  double xdot = -cs_contactVelocity(m, d, body, plane, point, nout, &vtan);
  double slip = csu_norm(vtan);

  // no force until the surfaces overlap
  csu_contactStart(out, point, x, xdot, slip);
  if (!(x > 0)) {
    return;
  }

  // penalty force with damping, and the friction coefficient at this slip speed
  double fel = k * x;
  out->pe = 0.5 * fel * x;
  double fn = fel * (1 + c * xdot);
  double mu = frictionCoefficient(d->disc + f->discadr, slip, P[SLOT_VT]);

  // normal force out of the plane (never pulling), friction opposite the slip
  csu_contactFinish(out, nout, vtan, fn, fel, mu);
}


// The slopes of the force that evaluate computed into ev (bodyJacobian): its geometry again,
// then fn = k x (1 + c xdot) and the friction coefficient's slope
static void slopes(const csModel* m, const csData* d, const csForce* f, const csContactEval* ev,
                   csContactSlope* out) {
  int body = f->ref[CS_REF_BODY], plane = f->ref[CS_REF_PLANE];
  double k = f->derived[CS_DERIVED_K], c = f->derived[CS_DERIVED_C];
  csVec3 nout, vtan;
  csVec3 station = csu_stationPosition(m, d, body, csu_vec3FromArray(f->param + SLOT_STATION));
  cs_planeHeight(d, plane, station, &nout);
  cs_contactVelocity(m, d, body, plane, ev->point, nout, &vtan);
  *out = (csContactSlope){.station = station, .nout = nout, .vtan = vtan, .slip = ev->slip,
                          .mu = ev->fn > 0 ? ev->ff / ev->fn : 0,
                          .dfn_dx = k * (1 + c * ev->xdot), .dfn_dxdot = k * c * ev->x,
                          .dmu_dslip = frictionSlope(d->disc + f->discadr, ev->slip,
                                                     f->param[SLOT_VT]),
                          .share = f->derived[CS_DERIVED_S]};
}


static void compliantApply(const csModel* m, csData* d, int e) {
  csContactEval c;
  evaluate(m, d, &m->force[e], 0, &c);
  cs_applyContact(m, d, e, &c);
}


static void compliantBodyJacobian(const csModel* m, const csData* d, int e, int body,
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


static void compliantReport(const csModel* m, const csData* d, int e, csContactReport* r,
                            double* extra) {
  csContactEval c;
  evaluate(m, d, &m->force[e], 1, &c);
  csu_fillContactReport(&c, r, extra);
}


static int compliantValidate(const csModel* m, const csForce* f, csError* err) {
  // real parameters finite (or absent when optional) with the sign their flags demand; one way
  // of giving the materials; the body and the plane exist and the body does not carry the plane
  if (csu_checkParams(f, g_params, NPARAMS, "contact", err) ||
      csu_checkMaterials(f, f->param, SLOT_EFFECTIVE, SLOT_BODY_MAT, SLOT_PLANE_MAT,
                         "penalty_stiffness", err)) {
    return -1;
  }
  return cs_checkContactRefs(m, f, "station", err);
}


// the pair's constants, once per model
static void compliantPrepare(const csModel* m, csForce* f) {
  (void)m;
  csu_storePairMaterial(f, resolveMaterial(f->param));
}


// the friction coefficients of the pair start as the materials give them
static void compliantInit(const csModel* m, csData* d, int e) {
  const csForce* f = &m->force[e];
  csPairMaterial mat = resolveMaterial(f->param);
  double* mu = d->disc + f->discadr;
  mu[CS_FRICTION_STATIC] = mat.us;
  mu[CS_FRICTION_DYNAMIC] = mat.ud;
  mu[CS_FRICTION_VISCOUS] = mat.uv;
}


static void compliantSetDiscrete(const csModel* m, csData* d, int e, int index, double value) {
  csu_setFriction(d->disc + m->force[e].discadr, 3, index, value);
}


// the station's height above the plane (where the penalty force sets in, its slope jumping
// to k)
static int compliantGaps(const csModel* m, const csData* d, int e, double* g) {
  const csForce* f = &m->force[e];
  int body = f->ref[CS_REF_BODY];
  csVec3 station = csu_stationPosition(m, d, body, csu_vec3FromArray(f->param + SLOT_STATION));
  csu_planeGap(m, d, body, f->ref[CS_REF_PLANE], station, 0.0, g);
  return 1;
}


const csForceKind cs_kindCompliantPoint = {
    .name = "compliant_point",
    .doc = "linear penalty point / plane with damping and Stribeck friction",
    .params = g_params,
    .nparams = NPARAMS,
    .contact = CS_CONTACT_POINT,
    .dissipative = 1,
    .discnum = 3,
    .discnames = cs_frictionNames,
    .nextra = CS_CONTACT_NEXTRA,
    .extranames = cs_contactExtraNames,
    .validate = compliantValidate,
    .init = compliantInit,
    .apply = compliantApply,
    .report = compliantReport,
    .setDiscrete = compliantSetDiscrete,
    .prepare = compliantPrepare,
    .bodyJacobian = compliantBodyJacobian,
    .gaps = compliantGaps,
};
