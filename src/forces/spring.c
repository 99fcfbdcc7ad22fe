// spring.c: a linear spring-damper between a station on each of two bodies.
//
// Along the line from station 1 to station 2, of length L: tension k (L - L0) + c dL/dt, pulling
// the stations together when positive. The two forces are equal and opposite on that line, so
// they conserve linear and angular momentum. Potential energy 1/2 k (L - L0)^2; only the damper
// dissipates, at the rate c (dL/dt)^2.
#include "engine/error.h"
#include "engine/kinematics.h"
#include "forces/kinds.h"
#include "forces/util.h"

#include "contactsim/contactsim.h"

// param slots: the two stations (3 each), stiffness, rest length, damping; refs: the two bodies
enum { SLOT_STATION1 = 0, SLOT_STATION2 = 3, SLOT_K = 6, SLOT_L0 = 7, SLOT_C = 8 };
enum { REF_BODY1 = 0, REF_BODY2 = 1 };

// rest length and damping default to 0 (the value column): a plain spring
static const csParamInfo g_params[] = {
    {"body1", CS_PARAM_BODY, REF_BODY1, 0, CS_PARAM_REQUIRED, "first body (may be ground)"},
    {"station1", CS_PARAM_VEC3, SLOT_STATION1, 0, 0, "station on body1, in its frame, m"},
    {"body2", CS_PARAM_BODY, REF_BODY2, 0, CS_PARAM_REQUIRED, "second body (may be ground)"},
    {"station2", CS_PARAM_VEC3, SLOT_STATION2, 0, 0, "station on body2, in its frame, m"},
    {"stiffness", CS_PARAM_REAL, SLOT_K, 0, CS_PARAM_REQUIRED | CS_PARAM_NONNEG, "N/m"},
    {"rest_length", CS_PARAM_REAL, SLOT_L0, 0, CS_PARAM_NONNEG, "m"},
    {"damping", CS_PARAM_REAL, SLOT_C, 0, CS_PARAM_NONNEG, "N s/m"},
};


static void springApply(const csModel* m, csData* d, int e) {
  const csForce* f = &m->force[e];
  int b1 = f->ref[REF_BODY1], b2 = f->ref[REF_BODY2];
  // both stations in Ground; r points from station 1 to station 2
  csVec3 p1 = csu_stationPosition(m, d, b1, csu_vec3FromArray(f->param + SLOT_STATION1));
  csVec3 p2 = csu_stationPosition(m, d, b2, csu_vec3FromArray(f->param + SLOT_STATION2));
  csVec3 r = csu_sub(p2, p1);
  double len = csu_norm(r);
  // energy first: it is defined even where the direction is not
  double stretch = len - f->param[SLOT_L0];
  d->force_pe[e] = 0.5 * f->param[SLOT_K] * stretch * stretch;
  if (len < 1e-12) {
    return;  // direction undefined: no force
  }
  // unit direction, and the stretch rate dL/dt = (v2 - v1) . dir
  csVec3 dir = csu_scale(1.0 / len, r);
  csVec3 vrel = csu_sub(csu_pointVelocity(m, d, b2, p2), csu_pointVelocity(m, d, b1, p1));
  double rate = csu_dot(vrel, dir);
  // a positive tension pulls station 1 toward station 2 and station 2 toward station 1
  double tension = f->param[SLOT_K] * stretch + f->param[SLOT_C] * rate;
  csu_applyForceAtPoint(m, d, b1, p1, csu_scale(tension, dir));
  csu_applyForceAtPoint(m, d, b2, p2, csu_scale(-tension, dir));
  // the damper's power, >= 0
  d->force_power[e] = f->param[SLOT_C] * rate * rate;
}


// two distinct existing bodies, as a bushing insists: a spring from a body to itself (ground to
// ground included) applies equal and opposite forces to one body and so does nothing
static int springValidate(const csModel* m, const csForce* f, csError* err) {
  int b1 = f->ref[REF_BODY1], b2 = f->ref[REF_BODY2];
  if (b1 < 0 || b1 >= m->nbody || b2 < 0 || b2 >= m->nbody) {
    cs_setError(err, CS_ERR_INPUT, b1 < 0 || b1 >= m->nbody ? "body1" : "body2",
                "spring '%s': the body does not exist", f->name);
    return -1;
  }
  if (b1 == b2) {
    cs_setError(err, CS_ERR_INPUT, "body2",
                "spring '%s' joins body '%s' to itself; body1 and body2 must differ", f->name,
                m->body[b1].name);
    return -1;
  }
  return csu_checkParams(f, g_params, sizeof(g_params) / sizeof(g_params[0]), "spring", err);
}


const csForceKind cs_kindSpring = {
    .name = "spring",
    .doc = "linear spring-damper between a station on each of two bodies",
    .params = g_params,
    .nparams = sizeof(g_params) / sizeof(g_params[0]),
    .dissipative = 1,
    .validate = springValidate,
    .apply = springApply,
};
