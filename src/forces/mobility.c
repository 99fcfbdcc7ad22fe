// mobility.c: a linear spring and a linear damper acting on one generalized coordinate.
// The two kinds share this file because they share their parameter checks and are three lines
// each.
//
// Both write a generalized force straight into d->mobility_force at the coordinate's speed index,
// with no spatial force. For pin and slider mobilizers q and u are the same coordinate, so the
// spring's -k (q - q0) is a torque about the pin axis or a force along the slider. The damper acts
// on a speed, so it also works on ball and free mobilizers, on a component of the angular or
// linear velocity of M in F as u defines them.
#include <stdio.h>

#include "contactsim/contactsim.h"
#include "engine/error.h"
#include "forces/kinds.h"

enum { REF_BODY = 0, REF_COORD = 1 };
// slots: the spring's stiffness and zero-force value; the damper's coefficient is in slot 0 of
// its own table
enum { SLOT_K = 0, SLOT_Q0 = 1, SLOT_C = 0 };

static const csParamInfo g_springParams[] = {
    {"body", CS_PARAM_BODY, REF_BODY, 0, CS_PARAM_REQUIRED, "body whose mobilizer is acted on"},
    {"coordinate", CS_PARAM_INT, REF_COORD, 0, 0, "index of the coordinate within the mobilizer"},
    {"stiffness", CS_PARAM_REAL, SLOT_K, 0, CS_PARAM_REQUIRED | CS_PARAM_NONNEG, "N/m or N m/rad"},
    {"q0", CS_PARAM_REAL, SLOT_Q0, 0, 0, "coordinate value at which the force is zero"},
};

static const csParamInfo g_damperParams[] = {
    {"body", CS_PARAM_BODY, REF_BODY, 0, CS_PARAM_REQUIRED, "body whose mobilizer is acted on"},
    {"coordinate", CS_PARAM_INT, REF_COORD, 0, 0, "index of the speed within the mobilizer"},
    {"damping", CS_PARAM_REAL, SLOT_C, 0, CS_PARAM_REQUIRED | CS_PARAM_NONNEG,
     "N s/m or N m s/rad"},
};


// the coordinate must exist; a spring also needs q and u to match (pin and slider joints)
static int checkCoordinate(const csModel* m, const csForce* f, int needq, csError* err) {
  int b = f->ref[REF_BODY], c = f->ref[REF_COORD];
  // ground has no mobilizer
  if (b <= 0 || b >= m->nbody) {
    cs_setError(err, CS_ERR_INPUT, "body", "force '%s' must act on a body other than ground",
                f->name);
    return -1;
  }
  const csBody* body = &m->body[b];
  // an index into the mobilizer's speeds, which also indexes q when the two match
  if (c < 0 || c >= body->unum) {
    cs_setError(err, CS_ERR_INPUT, "coordinate",
                "force '%s': coordinate %d does not exist; the mobilizer of '%s' has %d", f->name,
                c, body->name, body->unum);
    return -1;
  }
  // ball and free: q holds a quaternion, so no single q pairs with a u
  if (needq && body->qnum != body->unum) {
    cs_setError(err, CS_ERR_INPUT, "body",
                "force '%s': a mobility spring needs a pin or slider mobilizer", f->name);
    return -1;
  }
  return 0;
}


static int springValidate(const csModel* m, const csForce* f, csError* err) {
  return checkCoordinate(m, f, 1, err);
}


static int damperValidate(const csModel* m, const csForce* f, csError* err) {
  return checkCoordinate(m, f, 0, err);
}


// f = -k (q - q0) on the matching speed; conservative, energy 1/2 k (q - q0)^2
static void springApply(const csModel* m, csData* d, int e) {
  const csForce* f = &m->force[e];
  const csBody* body = &m->body[f->ref[REF_BODY]];
  double x = d->q[body->qadr + f->ref[REF_COORD]] - f->param[SLOT_Q0];
  d->mobility_force[body->uadr + f->ref[REF_COORD]] -= f->param[SLOT_K] * x;
  d->force_pe[e] = 0.5 * f->param[SLOT_K] * x * x;
}


// f = -c u; dissipates c u^2 >= 0
static void damperApply(const csModel* m, csData* d, int e) {
  const csForce* f = &m->force[e];
  const csBody* body = &m->body[f->ref[REF_BODY]];
  double u = d->u[body->uadr + f->ref[REF_COORD]];
  d->mobility_force[body->uadr + f->ref[REF_COORD]] -= f->param[SLOT_C] * u;
  d->force_power[e] = f->param[SLOT_C] * u * u;
}


// d f / d q = -k on its own coordinate
static void springJacobian(const csModel* m, const csData* d, int e, double* dfdq, double* dfdu) {
  (void)d;
  (void)dfdu;
  const csForce* f = &m->force[e];
  dfdq[m->body[f->ref[REF_BODY]].uadr + f->ref[REF_COORD]] -= f->param[SLOT_K];
}


// d f / d u = -c on its own speed
static void damperJacobian(const csModel* m, const csData* d, int e, double* dfdq, double* dfdu) {
  (void)d;
  (void)dfdq;
  const csForce* f = &m->force[e];
  dfdu[m->body[f->ref[REF_BODY]].uadr + f->ref[REF_COORD]] -= f->param[SLOT_C];
}


const csForceKind cs_kindMobilitySpring = {
    .name = "mobility_spring",
    .doc = "linear spring on one coordinate of a pin or slider mobilizer: f = -k (q - q0)",
    .params = g_springParams,
    .nparams = sizeof(g_springParams) / sizeof(g_springParams[0]),
    .validate = springValidate,
    .apply = springApply,
    .planarApply = springApply,  // it touches only q and generalized forces
    .mobilityJacobian = springJacobian,
};

const csForceKind cs_kindMobilityDamper = {
    .name = "mobility_damper",
    .doc = "linear damper on one generalized speed: f = -c u",
    .params = g_damperParams,
    .nparams = sizeof(g_damperParams) / sizeof(g_damperParams[0]),
    .dissipative = 1,
    .validate = damperValidate,
    .apply = damperApply,
    .planarApply = damperApply,  // it touches only u and generalized forces
    .mobilityJacobian = damperJacobian,
};
