// constant.c: a constant force (at a station) and torque on one body, both fixed in
// Ground. Their work is tracked as negative dissipation, so KE + PE + dissipated stays constant.
//
// The force and torque components are discrete variables (force_x .. torque_z), initialised from
// the keys, so that a scheduled change can switch a push on, change it or take it away during a
// run (a push on a foot at t = 1 s: {"time": 1, "force": "push", "force_x": 20}).
//
// Why work rather than a potential: a torque fixed in Ground has no potential in 3D (the angular
// velocity is not the rate of any set of angles), so the work put in, F . v(station) + T . w, is
// integrated instead; the force is treated the same way so that one number covers the load.
#include "contactsim/contactsim.h"
#include "engine/error.h"
#include "engine/kinematics.h"
#include "forces/kinds.h"
#include "forces/util.h"

// ref: the body; param slots: station, force, torque (3 each)
enum { REF_BODY = 0 };
enum { SLOT_STATION = 0, SLOT_FORCE = 3, SLOT_TORQUE = 6 };

// discrete variables: the force (in Ground, N), then the torque (in Ground, N m)
enum { DISC_FORCE = 0, DISC_TORQUE = 3, DISC_COUNT = 6 };
static const char* const g_discNames[DISC_COUNT] = {"force_x",  "force_y",  "force_z",
                                                     "torque_x", "torque_y", "torque_z"};

static const csParamInfo g_params[] = {
    {"body", CS_PARAM_BODY, REF_BODY, 0, CS_PARAM_REQUIRED, "body the load acts on"},
    {"station", CS_PARAM_VEC3, SLOT_STATION, 0, 0, "point of application in the body frame, m"},
    {"force", CS_PARAM_VEC3, SLOT_FORCE, 0, 0,
     "force in Ground, N (discrete variables force_x, force_y, force_z)"},
    {"torque", CS_PARAM_VEC3, SLOT_TORQUE, 0, 0,
     "torque in Ground, N m (discrete variables torque_x, torque_y, torque_z)"},
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


// the load starts as the keys give it
static void constantInit(const csModel* m, csData* d, int e) {
  const csForce* f = &m->force[e];
  double* v = d->disc + f->discadr;
  for (int i = 0; i < 3; i++) {
    v[DISC_FORCE + i] = f->param[SLOT_FORCE + i];
    v[DISC_TORQUE + i] = f->param[SLOT_TORQUE + i];
  }
}


static void constantApply(const csModel* m, csData* d, int e) {
  const csForce* f = &m->force[e];
  int b = f->ref[REF_BODY];
  const double* v = d->disc + f->discadr;
  csVec3 p = csu_stationPosition(m, d, b, csu_vec3FromArray(f->param + SLOT_STATION));
  csVec3 force = csu_vec3FromArray(v + DISC_FORCE);
  csVec3 torque = csu_vec3FromArray(v + DISC_TORQUE);
  // the force at the station (which adds its moment about the origin), then the free torque
  csu_applyForceAtPoint(m, d, b, p, force);
  csu_applyTorque(m, d, b, torque);
  // power put in; recorded as negative dissipation
  double input = csu_dot(force, csu_pointVelocity(m, d, b, p)) + csu_dot(torque, d->body_vel[b].w);
  d->force_power[e] = -input;
}


// The element's part of ark's Jacobian of a free body (csForceKind.bodyJacobian): the force is
// fixed in Ground and the torque too, so their only change with the state is the force's moment
// about the body's origin as the station turns with the body, [F]x [R s]x per radian.
static void constantBodyJacobian(const csModel* m, const csData* d, int e, int body, double* dQdX,
                                 double* dQdV) {
  const csForce* f = &m->force[e];
  if (body != f->ref[REF_BODY]) {
    return;
  }
  const double* v = d->disc + f->discadr;
  csVec3 p = csu_stationPosition(m, d, body, csu_vec3FromArray(f->param + SLOT_STATION));
  csMat33 zero = {{{0}}};
  csu_pointForceBodyJacobian(d, body, p, p, csu_vec3(0, 0, 0), 0,
                             csu_vec3FromArray(v + DISC_FORCE), &zero, &zero, dQdX, dQdV);
}


const csForceKind cs_kindConstant = {
    .name = "constant",
    .doc = "constant force at a station and constant torque on one body, fixed in Ground",
    .params = g_params,
    .nparams = sizeof(g_params) / sizeof(g_params[0]),
    .dissipative = 1,
    .discnum = DISC_COUNT,
    .discnames = g_discNames,
    .validate = constantValidate,
    .init = constantInit,
    .apply = constantApply,
    .bodyJacobian = constantBodyJacobian,
};
