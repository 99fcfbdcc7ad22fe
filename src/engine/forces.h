// forces.h: the slot convention every contact kind follows, and the inline forms of
// cs_applyForceAtPoint and cs_applyTorque that the library's force kinds call (see
// engine/kinematics.h for why inline; private to the library).
//
// Every contact kind follows one slot convention, so that the loader can turn a model-free
// "contacts" entry into elements of any contact kind:
//   ref[CS_REF_BODY]   the body that touches (second surface)
//   ref[CS_REF_PLANE]  the plane it touches (first surface; on any body)
//   param[CS_SLOT_STATION .. +2]  the station (point models) or sphere centre, in the body frame
//   param[CS_SLOT_RADIUS]         the sphere radius (sphere models; unused by point models)
#ifndef CONTACTSIM_FORCES_H
#define CONTACTSIM_FORCES_H

#include "engine/assert.h"

#include "contactsim/contactsim.h"

enum {
  CS_REF_BODY = 0,
  CS_REF_PLANE = 1,
  CS_SLOT_STATION = 0,
  CS_SLOT_RADIUS = 3,
};

enum {
  CS_CONTACT_NONE = 0,
  CS_CONTACT_POINT = 1,
  CS_CONTACT_SPHERE = 2,
};


// The parameter of kind k whose key is `name` (a real one): the parameter that gives the
// discrete variable of that name its initial value. NULL: none.
const csParamInfo* cs_paramOfVariable(const csForceKind* k, const char* name);

// Whether `value` may be auto-update variable `index` of element e: finite and within its kind's
// range, with rounding's slack at the range's ends (the engine's own smooth steps can end an ulp
// past them: an exponential spring's sliding at 1 + 1.3e-15). 0, or -1 with why filled.
int cs_autoProblem(const csModel* m, int e, int index, double value, char* why, size_t size);
// cs_elementStateProblem, with the variable at fault in *at (nullable): its discrete variable's
// index, or the element's discnum plus its auto-update value's (for values that contradict each
// other, the one whose setting would move the other)
int cs_elementStateProblemAt(const csModel* m, double* disc, const double* autoval, int e,
                             char* why, size_t size, int* at);

// The first body whose orientation in q (ball and free joints) is a zero quaternion, which
// cannot be normalized; 0: none.
int cs_zeroQuaternionBody(const csModel* m, const double* q);
// The norm of the quaternion e[0..3], computed without underflow (inf when it overflows).
double cs_quaternionNorm(const double* e);
// e[0..3] scaled to unit length without overflow or underflow; 0, or -1 (e unchanged) when it
// is zero or not finite.
int cs_quaternionNormalize(double* e);
// The first body (1, 2, ...) of a ball or free joint whose quaternion in q has a norm further
// than tol from 1 (that norm in *norm), or 0 when there is none.
int cs_nonUnitQuaternionBody(const csModel* m, const double* q, double tol, double* norm);
// Whether the state d holds (realized to velocities) has an energy that is not finite though
// its coordinates and speeds are (1e300 m/s, 1e307 m up: every row would carry inf or NaN):
// 'k' when the kinetic energy is not, 'p' when gravity's potential energy is not, else 0.
// *body: the first body whose own share is not finite (0 when none is alone).
int cs_infiniteEnergy(const csModel* m, const csData* d, int* body);
// The same for the coordinates q and speeds u (nq and nu values), realized in data of its own;
// -1 when that data cannot be made (out of memory).
int cs_infiniteEnergyOf(const csModel* m, const double* q, const double* u, int* body);


// Add a force at a point, both in Ground, to a body's accumulator as a spatial force about the
// body's origin: moment r x F (r from the origin to the point) and force F. Anything applied to
// ground (body 0) is dropped, so contact code can apply the reaction to a plane's body without
// asking whether that body is ground.
static inline void csu_applyForceAtPoint(const csModel* m, csData* d, int body, csVec3 point_G,
                                         csVec3 force_G) {
  CS_ASSERT(body >= 0 && body < m->nbody, "a force was applied to a body id that does not exist "
                                          "in the model");
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
  CS_ASSERT(body >= 0 && body < m->nbody, "a torque was applied to a body id that does not "
                                          "exist in the model");
  (void)m;
  if (body <= 0) {
    return;
  }
  d->body_force[body].w = csu_add(d->body_force[body].w, torque_G);
}

#endif  // CONTACTSIM_FORCES_H
