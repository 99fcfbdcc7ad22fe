// constant.c: a constant force (at a station) and torque on one body, both fixed in
// Ground. Their work is tracked as negative dissipation, so KE + PE + dissipated stays constant.
//
// Why work rather than a potential: a torque fixed in Ground has no potential in 3D (the angular
// velocity is not the rate of any set of angles), so the work put in, F . v(station) + T . w, is
// integrated instead; the force is treated the same way so that one number covers the load.
#include "contactsim/contactsim.h"
#include "engine/error.h"
#include "forces/kinds.h"

// ref: the body; param slots: station, force, torque (3 each)
enum { REF_BODY = 0 };
enum { SLOT_STATION = 0, SLOT_FORCE = 3, SLOT_TORQUE = 6 };

static const csParamInfo g_params[] = {
    {"body", CS_PARAM_BODY, REF_BODY, 0, CS_PARAM_REQUIRED, "body the load acts on"},
    {"station", CS_PARAM_VEC3, SLOT_STATION, 0, 0, "point of application in the body frame, m"},
    {"force", CS_PARAM_VEC3, SLOT_FORCE, 0, 0, "force in Ground, N"},
    {"torque", CS_PARAM_VEC3, SLOT_TORQUE, 0, 0, "torque in Ground, N m"},
};


// ground cannot be loaded: cs_applyForceAtPoint would drop the force without a word
static int constantValidate(const csModel* m, const csForce* f, csError* err) {
  if (f->ref[REF_BODY] <= 0 || f->ref[REF_BODY] >= m->nbody) {
    cs_setError(err, CS_ERR_INPUT, "body", "force '%s' must act on a body other than ground",
                f->name);
    return -1;
  }
  return 0;
}


static void constantApply(const csModel* m, csData* d, int e) {
  const csForce* f = &m->force[e];
  int b = f->ref[REF_BODY];
  csVec3 p = cs_stationPosition(m, d, b, csu_vec3FromArray(f->param + SLOT_STATION));
  csVec3 force = csu_vec3FromArray(f->param + SLOT_FORCE);
  csVec3 torque = csu_vec3FromArray(f->param + SLOT_TORQUE);
  // the force at the station (which adds its moment about the origin), then the free torque
  cs_applyForceAtPoint(m, d, b, p, force);
  cs_applyTorque(m, d, b, torque);
  // power put in; recorded as negative dissipation
  double input = csu_dot(force, cs_pointVelocity(m, d, b, p)) + csu_dot(torque, d->body_vel[b].w);
  d->force_power[e] = -input;
}


const csForceKind cs_kindConstant = {
    .name = "constant",
    .doc = "constant force at a station and constant torque on one body, fixed in Ground",
    .params = g_params,
    .nparams = sizeof(g_params) / sizeof(g_params[0]),
    .dissipative = 1,
    .validate = constantValidate,
    .apply = constantApply,
};
