// kinematics.h: the force elements' point kinematics, inline (private to the library).
//
// A force element calls cs_stationPosition and cs_pointVelocity (contactsim.h), and
// cs_applyForceAtPoint and cs_applyTorque (engine/forces.h has their inline forms), for each of
// its points in every evaluation. Out of line, every such call passes and returns its 24-byte
// vectors through memory (the x86-64 calling convention returns structs larger than 16 bytes
// that way): on a block resting on four Hunt-Crossley spheres the calls were 9 % of a run's
// instructions. The library's own force kinds call these inline forms; the public functions
// (kinematics.c, forces.c) are the same code, for elements written outside the library. The
// inline forms take the model and data as cs_ functions do, but are spelled csu_ because the
// cs_ names belong to the exported functions.
#ifndef CONTACTSIM_KINEMATICS_H
#define CONTACTSIM_KINEMATICS_H

#include "engine/assert.h"

#include "contactsim/contactsim.h"

// Pull of the quaternion kinematics back toward unit length, 1/s (kinematics.c's rates, and
// jacobian.c's derivatives of them). The BDF integrator projects quaternions onto the unit
// sphere after every step, so this only matters for Adams, where it turns the slow random walk
// of |q| into a decay with a time constant of 1/(2*rate).
#define CS_QUAT_STABILIZATION 1.0

// Position in Ground of a station given in the body frame (the data realized to position).
static inline csVec3 csu_stationPosition(const csModel* m, const csData* d, int body,
                                         csVec3 station_B) {
  CS_ASSERT(body >= 0 && body < m->nbody, "the position of a station was asked for on a body id "
                                          "that does not exist in the model");
  (void)m;
  return csu_transformPoint(&d->body_pose[body], station_B);
}


// Velocity in Ground of the body-fixed point currently at point_G (realized to velocity).
static inline csVec3 csu_pointVelocity(const csModel* m, const csData* d, int body,
                                       csVec3 point_G) {
  CS_ASSERT(body >= 0 && body < m->nbody, "the velocity of a point was asked for on a body id "
                                          "that does not exist in the model");
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


// Acceleration of a rigid body's point at r (from a point of the body whose acceleration is a),
// the body turning at w and accelerating its turn at alpha: a + alpha x r + w x (w x r).
static inline csVec3 csu_rigidAcceleration(csVec3 a, csVec3 alpha, csVec3 w, csVec3 r) {
  return csu_add(a, csu_add(csu_cross(alpha, r), csu_cross(w, csu_cross(w, r))));
}


// Acceleration in Ground of body's material point currently at point_G (realized to
// acceleration). body_acc holds spatial accelerations: the origin's own acceleration is their
// linear part plus w x v.
static inline csVec3 csu_pointAcceleration(const csModel* m, const csData* d, int body,
                                           csVec3 point_G) {
  (void)m;
  const csSpatialVec* V = &d->body_vel[body];
  const csSpatialVec* A = &d->body_acc[body];
  return csu_rigidAcceleration(csu_add(A->v, csu_cross(V->w, V->v)), A->w, V->w,
                               csu_sub(point_G, d->body_pose[body].p));
}


#endif  // CONTACTSIM_KINEMATICS_H
