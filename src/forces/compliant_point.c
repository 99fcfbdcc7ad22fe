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
// with effective values s = 1/2.
#include <math.h>

#include "contactsim/contactsim.h"
#include "engine/error.h"
#include "forces/util.h"
#include "forces/kinds.h"

enum {
  SLOT_STATION = CS_SLOT_STATION,
  SLOT_STIFFNESS = 4,     // effective values: stiffness, dissipation, mu_static, mu_dynamic,
  SLOT_VT = 9,            // mu_viscous at 4..8
  SLOT_BODY_MAT = 10,     // body_material.* at 10..14, in the same order
  SLOT_PLANE_MAT = 15,    // plane_material.* at 15..19
};

// offsets within a material block (and within the effective values)
enum { MAT_K = 0, MAT_C, MAT_US, MAT_UD, MAT_UV, MAT_COUNT };

static const csParamInfo g_params[] = {
    {"body", CS_PARAM_BODY, CS_REF_BODY, -1, CS_PARAM_REQUIRED,
     "body carrying the station (second surface)"},
    {"plane", CS_PARAM_PLANE, CS_REF_PLANE, -1, CS_PARAM_REQUIRED,
     "plane touched, +z outward (first surface)"},
    {"station", CS_PARAM_VEC3, SLOT_STATION, 0, 0, "contact station in the body frame, m"},
    {"stiffness", CS_PARAM_REAL, SLOT_STIFFNESS + MAT_K, 0,
     CS_PARAM_OPTIONAL | CS_PARAM_POSITIVE,
     "effective stiffness k, N/m; required unless both materials are given"},
    {"dissipation", CS_PARAM_REAL, SLOT_STIFFNESS + MAT_C, 0, CS_PARAM_OPTIONAL | CS_PARAM_NONNEG,
     "effective dissipation c, s/m"},
    {"mu_static", CS_PARAM_REAL, SLOT_STIFFNESS + MAT_US, 0, CS_PARAM_OPTIONAL | CS_PARAM_NONNEG,
     "effective coefficient of static friction"},
    {"mu_dynamic", CS_PARAM_REAL, SLOT_STIFFNESS + MAT_UD, 0, CS_PARAM_OPTIONAL | CS_PARAM_NONNEG,
     "effective coefficient of dynamic friction"},
    {"mu_viscous", CS_PARAM_REAL, SLOT_STIFFNESS + MAT_UV, 0, CS_PARAM_OPTIONAL | CS_PARAM_NONNEG,
     "effective coefficient of viscous friction, s/m"},
    {"transition_velocity", CS_PARAM_REAL, SLOT_VT, 0.01, CS_PARAM_POSITIVE,
     "slip speed at which friction reaches its static peak, m/s"},
    {"body_material.stiffness", CS_PARAM_REAL, SLOT_BODY_MAT + MAT_K, 0,
     CS_PARAM_OPTIONAL | CS_PARAM_POSITIVE, "stiffness of the body's surface, N/m"},
    {"body_material.dissipation", CS_PARAM_REAL, SLOT_BODY_MAT + MAT_C, 0,
     CS_PARAM_OPTIONAL | CS_PARAM_NONNEG, "dissipation of the body's surface, s/m"},
    {"body_material.mu_static", CS_PARAM_REAL, SLOT_BODY_MAT + MAT_US, 0,
     CS_PARAM_OPTIONAL | CS_PARAM_NONNEG, "static friction of the body's surface"},
    {"body_material.mu_dynamic", CS_PARAM_REAL, SLOT_BODY_MAT + MAT_UD, 0,
     CS_PARAM_OPTIONAL | CS_PARAM_NONNEG, "dynamic friction of the body's surface"},
    {"body_material.mu_viscous", CS_PARAM_REAL, SLOT_BODY_MAT + MAT_UV, 0,
     CS_PARAM_OPTIONAL | CS_PARAM_NONNEG, "viscous friction of the body's surface, s/m"},
    {"plane_material.stiffness", CS_PARAM_REAL, SLOT_PLANE_MAT + MAT_K, 0,
     CS_PARAM_OPTIONAL | CS_PARAM_POSITIVE, "stiffness of the plane's surface, N/m"},
    {"plane_material.dissipation", CS_PARAM_REAL, SLOT_PLANE_MAT + MAT_C, 0,
     CS_PARAM_OPTIONAL | CS_PARAM_NONNEG, "dissipation of the plane's surface, s/m"},
    {"plane_material.mu_static", CS_PARAM_REAL, SLOT_PLANE_MAT + MAT_US, 0,
     CS_PARAM_OPTIONAL | CS_PARAM_NONNEG, "static friction of the plane's surface"},
    {"plane_material.mu_dynamic", CS_PARAM_REAL, SLOT_PLANE_MAT + MAT_UD, 0,
     CS_PARAM_OPTIONAL | CS_PARAM_NONNEG, "dynamic friction of the plane's surface"},
    {"plane_material.mu_viscous", CS_PARAM_REAL, SLOT_PLANE_MAT + MAT_UV, 0,
     CS_PARAM_OPTIONAL | CS_PARAM_NONNEG, "viscous friction of the plane's surface, s/m"},
};

enum { NPARAMS = sizeof(g_params) / sizeof(g_params[0]) };

// the effective material of the pair
typedef struct pairMaterial {
  double k, c, us, ud, uv;
  double s;        // fraction of the deformation taken by the body's surface
} pairMaterial;

// value of an optional parameter, or fallback when it was not given
static double orDefault(double v, double fallback) {
  return isnan(v) ? fallback : v;
}


// 2ab/(a+b), 0 when both are 0
static double harmonic(double a, double b) {
  return (a + b > 0) ? 2 * a * b / (a + b) : 0;
}


// 1 if any key of the material block at slot was given
static int materialGiven(const double* P, int slot) {
  for (int i = 0; i < MAT_COUNT; i++) {
    if (!isnan(P[slot + i])) {
      return 1;
    }
  }
  return 0;
}


// the effective material: from the two surfaces when given, otherwise the effective keys
static pairMaterial resolveMaterial(const double* P) {
  pairMaterial r;
  if (materialGiven(P, SLOT_BODY_MAT) || materialGiven(P, SLOT_PLANE_MAT)) {
    const double* b = P + SLOT_BODY_MAT;
    const double* p = P + SLOT_PLANE_MAT;
    double k1 = b[MAT_K], k2 = p[MAT_K];
    r.s = k2 / (k1 + k2);
    r.k = k1 * r.s;
    r.c = orDefault(b[MAT_C], 0) * r.s + orDefault(p[MAT_C], 0) * (1 - r.s);
    r.us = harmonic(orDefault(b[MAT_US], 0), orDefault(p[MAT_US], 0));
    r.ud = harmonic(orDefault(b[MAT_UD], 0), orDefault(p[MAT_UD], 0));
    r.uv = harmonic(orDefault(b[MAT_UV], 0), orDefault(p[MAT_UV], 0));
    return r;
  }
  const double* e = P + SLOT_STIFFNESS;
  r.s = 0.5;
  r.k = e[MAT_K];
  r.c = orDefault(e[MAT_C], 0);
  r.us = orDefault(e[MAT_US], 0);
  r.ud = orDefault(e[MAT_UD], 0);
  r.uv = orDefault(e[MAT_UV], 0);
  return r;
}


// Stribeck friction coefficient at slip speed v (file header)
static double frictionCoefficient(const pairMaterial* mat, double v, double vt) {
  double r = v / vt;
  double mu;
  if (r < 1) {
    mu = mat->us * csu_step5(r);
  } else if (r < 3) {
    mu = mat->us - (mat->us - mat->ud) * csu_step5(0.5 * (r - 1));
  } else {
    mu = mat->ud;
  }
  return mu + mat->uv * v;
}


// the station against the plane at the realized state
static void evaluate(const csModel* m, const csData* d, const csForce* f, csContactEval* out) {
  const double* P = f->param;
  int body = f->ref[CS_REF_BODY];
  int plane = f->ref[CS_REF_PLANE];
  pairMaterial mat = resolveMaterial(P);

  // geometry: depth below the plane along the outward normal nout
  csVec3 nout;
  csVec3 station = cs_stationPosition(m, d, body, csu_vec3FromArray(P + SLOT_STATION));
  double x = -cs_planeHeight(d, plane, station, &nout);
  csVec3 point = csu_addScaled(station, mat.s * (x > 0 ? x : 0), nout);

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
  double fel = mat.k * x;
  out->pe = 0.5 * fel * x;
  double fn = fel * (1 + mat.c * xdot);
  double mu = frictionCoefficient(&mat, slip, P[SLOT_VT]);

  // normal force out of the plane (never pulling), friction opposite the slip
  csu_contactFinish(out, nout, vtan, fn, fel, mu);
}


static void compliantApply(const csModel* m, csData* d, int e) {
  csContactEval c;
  evaluate(m, d, &m->force[e], &c);
  cs_applyContact(m, d, e, &c);
}


static void compliantReport(const csModel* m, const csData* d, int e, csContactReport* r,
                            double* extra) {
  csContactEval c;
  evaluate(m, d, &m->force[e], &c);
  csu_fillContactReport(&c, r, extra);
}


static int compliantValidate(const csModel* m, const csForce* f, csError* err) {
  const double* P = f->param;
  // real parameters: finite (or absent when optional), with the sign their flags demand
  if (csu_checkParams(f, g_params, NPARAMS, "contact", err)) {
    return -1;
  }
  // materials: both surfaces with a stiffness, and no effective value besides them
  int pair = materialGiven(P, SLOT_BODY_MAT) || materialGiven(P, SLOT_PLANE_MAT);
  if (pair) {
    for (int i = 0; i < MAT_COUNT; i++) {
      if (!isnan(P[SLOT_STIFFNESS + i])) {
        const char* key = g_params[3 + i].key;
        cs_setError(err, CS_ERR_INPUT, key,
                    "contact '%s': give either the effective %s or body_material and "
                    "plane_material, not both",
                    f->name, key);
        return -1;
      }
    }
    if (isnan(P[SLOT_BODY_MAT + MAT_K])) {
      cs_setError(err, CS_ERR_INPUT, "body_material.stiffness",
                  "contact '%s': body_material needs a stiffness", f->name);
      return -1;
    }
    if (isnan(P[SLOT_PLANE_MAT + MAT_K])) {
      cs_setError(err, CS_ERR_INPUT, "plane_material.stiffness",
                  "contact '%s': plane_material needs a stiffness", f->name);
      return -1;
    }
  } else if (isnan(P[SLOT_STIFFNESS + MAT_K])) {
    cs_setError(err, CS_ERR_INPUT, "stiffness",
                "contact '%s' needs a stiffness (or body_material and plane_material)",
                f->name);
    return -1;
  }
  // the body and the plane exist, and the body does not carry the plane
  return cs_checkContactRefs(m, f, "station", err);
}


const csForceKind cs_kindCompliantPoint = {
    .name = "compliant_point",
    .doc = "linear penalty point / plane with damping and Stribeck friction",
    .params = g_params,
    .nparams = NPARAMS,
    .contact = CS_CONTACT_POINT,
    .dissipative = 1,
    .nextra = CS_CONTACT_NEXTRA,
    .extranames = cs_contactExtraNames,
    .validate = compliantValidate,
    .apply = compliantApply,
    .report = compliantReport,
};
