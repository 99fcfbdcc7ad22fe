// jacobian.h: the Jacobian the integrator ark uses for a group that is one free body, and its
// linear systems (jacobian.c; private to the library).
#ifndef CONTACTSIM_JACOBIAN_H
#define CONTACTSIM_JACOBIAN_H

#include "contactsim/types.h"

// 1 when body b's group, with the elements forces[0..nf) and the planes planes[0..np), can have
// its Jacobian formed by cs_freeJacobian: b is a free body on ground with nothing hanging from
// it, its frames need no turning (F parallel to Ground, M = B), every plane is on ground (or a
// body welded to it) and
// every element is of a kind whose forces depend on the poses and velocities of bodies alone
// (not stops, mobility springs and dampers, which read the coordinates); else 0.
int cs_freeJacobianUsable(const csModel* m, const csData* d, int b, const int* forces, int nf,
                          const int* planes, int np);

// The derivatives of the spatial force the active elements apply to body b (moment about its
// origin, then force; Ground) with respect to its pose (a turn about each Ground axis through
// the origin, then a move of the origin along each) and its spatial velocity (angular velocity,
// then the origin's velocity), row-major 6 x 6, at the data's state realized to velocity: from
// the elements' bodyJacobian where they have one, otherwise (or for all of them when
// `quotients`) by forward differences of their apply, increments relative to no less than
// `scale` (the data is then invalidated: its forces are a perturbed state's). Allocates
// nothing.
void cs_bodyForceJacobian(const csModel* m, csData* d, int b, double scale, int quotients,
                          double* dQdX, double* dQdV);

// (I - hg L) x = r for cs_freeJacobian's L, by its structure: the rates of the quaternion
// depend on it and on w only, the origin's rate is v_O, so the system reduces to the six
// speeds (the Schur complement): a 4 x 4 and a 6 x 6 system in place of a 13 x 13 one. The
// system also holds the layout of ark's implicit block: where body b's q (iq[0..7):
// quaternion, then origin) and u (iu[0..6)) sit in it.
typedef struct csFreeSystem csFreeSystem;

// A system for the block layout iq, iu; NULL when out of memory.
csFreeSystem* cs_freeSystemNew(const int* iq, const int* iu);
void cs_freeSystemDelete(csFreeSystem* fs);

// L (ni x ni, column-major), the Jacobian of the rates of body b's positions and speeds in the
// rows and columns fs lays out, zero elsewhere, at the data's state realized to velocity with
// the group active. scale is the smallest magnitude a difference quotient's increment is taken
// relative to (atol / rtol). A column that comes out not finite is left zero. Allocates
// nothing.
void cs_freeJacobian(const csModel* m, csData* d, int b, const csFreeSystem* fs, double scale,
                     double* L, int ni);

// Factor for L (ni x ni, column-major, cs_freeJacobian's) and hg. Returns 0, or -1 when
// singular.
int cs_freeFactor(csFreeSystem* fs, const double* L, int ni, double hg);

// Solve in place: x holds r (the block's order) on entry and the solution on return.
void cs_freeSolve(const csFreeSystem* fs, double* x);

#endif  // CONTACTSIM_JACOBIAN_H
