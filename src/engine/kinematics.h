// kinematics.h: the force elements' point helpers, inline (private to the library).
//
// A force element calls cs_stationPosition, cs_pointVelocity, cs_applyForceAtPoint and
// cs_applyTorque (contactsim.h) for each of its points in every evaluation. Out of line, every
// such call passes and returns its 24-byte vectors through memory (the x86-64 calling convention
// returns structs larger than 16 bytes that way): on a block resting on four Hunt-Crossley
// spheres the calls were 9 % of a run's instructions. The library's own force kinds call these
// inline forms; the public functions (kinematics.c, forces.c) are the same code, for elements
// written outside the library.
#ifndef CONTACTSIM_KINEMATICS_H
#define CONTACTSIM_KINEMATICS_H

#include "contactsim/contactsim.h"
#include "engine/assert.h"

// Position in Ground of a station given in the body frame (the data realized to position).
static inline csVec3 csu_stationPosition(const csModel* m, const csData* d, int body,
                                         csVec3 station_B) {
  CS_ASSERT(body >= 0 && body < m->nbody, "cs_stationPosition was given a body id that does "
                                          "not exist in the model");
  (void)m;
  return csu_transformPoint(&d->body_pose[body], station_B);
}


// Velocity in Ground of the body-fixed point currently at point_G (realized to velocity).
static inline csVec3 csu_pointVelocity(const csModel* m, const csData* d, int body,
                                       csVec3 point_G) {
  CS_ASSERT(body >= 0 && body < m->nbody, "cs_pointVelocity was given a body id that does "
                                          "not exist in the model");
  (void)m;
  const csSpatialVec* V = &d->body_vel[body];
  return csu_add(V->v, csu_cross(V->w, csu_sub(point_G, d->body_pose[body].p)));
}


// Velocity in Ground of body's material point at point_G relative to the material point of body
// other there (a contact's slip against a plane's body). Ground does not move: its point's
// velocity is zero and is not computed (v - 0 is v, bit for bit).
static inline csVec3 csu_relativePointVelocity(const csModel* m, const csData* d, int body,
                                               int other, csVec3 point_G) {
  csVec3 v = csu_pointVelocity(m, d, body, point_G);
  return other == 0 ? v : csu_sub(v, csu_pointVelocity(m, d, other, point_G));
}


// Add a force at a point, both in Ground, to a body's accumulator as a spatial force about the
// body's origin: moment r x F (r from the origin to the point) and force F. Anything applied to
// ground (body 0) is dropped, so contact code can apply the reaction to a plane's body without
// asking whether that body is ground.
static inline void csu_applyForceAtPoint(const csModel* m, csData* d, int body, csVec3 point_G,
                                         csVec3 force_G) {
  CS_ASSERT(body >= 0 && body < m->nbody, "cs_applyForceAtPoint was given a body id that does "
                                          "not exist in the model");
  (void)m;
  if (body <= 0) {
    return;
  }
  csSpatialVec* F = &d->body_force[body];
  csVec3 r = csu_sub(point_G, d->body_pose[body].p);
  F->w = csu_add(F->w, csu_cross(r, force_G));
  F->v = csu_add(F->v, force_G);
}


// a pure moment: the same about every point, so no point is needed
static inline void csu_applyTorque(const csModel* m, csData* d, int body, csVec3 torque_G) {
  CS_ASSERT(body >= 0 && body < m->nbody, "cs_applyTorque was given a body id that does not "
                                          "exist in the model");
  (void)m;
  if (body <= 0) {
    return;
  }
  d->body_force[body].w = csu_add(d->body_force[body].w, torque_G);
}

#endif  // CONTACTSIM_KINEMATICS_H
