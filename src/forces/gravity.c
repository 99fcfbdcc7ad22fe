// gravity.c: uniform gravity, m*g at every body's centre of mass.
//
// One element for all bodies rather than one per body: a scene adds gravity once, and as it acts
// on no body in particular it belongs to every integrator group, where it loops over that group's
// active bodies only.
#include "contactsim/contactsim.h"
#include "engine/dynamics.h"
#include "forces/kinds.h"


static void gravityApply(const csModel* m, csData* d, int e) {
  double pe = 0;
  // the bodies being worked on (all of them, or one coupled group)
  for (int i = 0; i < d->nact_body; i++) {
    int b = d->act_body[i];
    double mass = m->body[b].mass;
    // cs_applyForceAtPoint written out (the body is never ground here): m g at the COM
    csVec3 F = csu_scale(mass, m->gravity);
    csSpatialVec* acc = &d->body_force[b];
    csVec3 r = csu_sub(d->body_com[b], d->body_pose[b].p);
    acc->w = csu_add(acc->w, csu_cross(r, F));
    acc->v = csu_add(acc->v, F);
    // potential energy relative to the Ground origin: -m g . r_com
    pe -= mass * csu_dot(m->gravity, d->body_com[b]);
  }
  // the energy of the active bodies; reports activate everything, so there it is the whole model's
  d->force_pe[e] = pe;
}


// The weights the planar right-hand side's gravity reads, kept with each link's record
// (engine/dynamics.h, CS_K2_MG), from the realized initial state: a link's height along the
// plane's normal stays what it is there as it moves in its plane
static void gravityInit(const csModel* m, csData* d, int e) {
  (void)e;
  if (!d->planar_model) {
    return;
  }
  for (int b = 1; b < m->nbody; b++) {
    csVec3 e1 = csu_vec3FromArray(d->aba_plane + CS_PL_SIZE * b + CS_PL_E1);
    csVec3 e2 = csu_vec3FromArray(d->aba_plane + CS_PL_SIZE * b + CS_PL_E2);
    csVec3 n = csu_vec3FromArray(d->aba_plane + CS_PL_SIZE * b + CS_PL_N);
    double* k = d->aba_k2 + CS_K2_SIZE * b;
    double mass = m->body[b].mass;
    k[CS_K2_MG] = mass * csu_dot(e1, m->gravity);
    k[CS_K2_MG + 1] = mass * csu_dot(e2, m->gravity);
    k[CS_K2_MG + 2] = mass * csu_dot(n, m->gravity) * csu_dot(n, d->body_com[b]);
  }
}


// The same on the planar right-hand side (engine/dynamics.h): only the force's components in the
// plane act on a planar link (the pins absorb the rest), m g at the centre of mass c from the
// origin, a moment c x m g about n; the energy takes the centre of mass's height along n as well.
// The weights in the plane come with the link's record (gravityInit).
static void gravityPlanarApply(const csModel* m, csData* d, int e) {
  (void)m;
  double pe = 0;
  for (int i = 0; i < d->nact_body; i++) {
    double* k = d->aba_k2 + CS_K2_SIZE * d->act_body[i];
    double f1 = k[CS_K2_MG], f2 = k[CS_K2_MG + 1];
    k[CS_K2_F] += k[CS_K2_C] * f2 - k[CS_K2_C + 1] * f1;
    k[CS_K2_F + 1] += f1;
    k[CS_K2_F + 2] += f2;
    pe -= (k[CS_K2_O] + k[CS_K2_C]) * f1 + (k[CS_K2_O + 1] + k[CS_K2_C + 1]) * f2 +
          k[CS_K2_MG + 2];
  }
  d->force_pe[e] = pe;
}


// Gravity's generalized forces change with the pose only as fast as the pose itself (a
// pendulum's sqrt(g / l), not a contact's stiffness): an implicit integrator may leave them out
// of its Jacobian, so there is nothing to add.
static void gravityJacobian(const csModel* m, const csData* d, int e, double* dfdq,
                            double* dfdu) {
  (void)m;
  (void)d;
  (void)e;
  (void)dfdq;
  (void)dfdu;
}


// The same for a free body's Jacobian: m g at the centre of mass has a moment about the origin
// that turns with the body, dQ/dtheta = [F]x [c]x, but the body's inverse inertia about the
// origin turns with it so that M^-1 Q is (0, g) in every pose; the integrator leaves the pose's
// effect on M^-1 out, and leaving this out as well is exact.
static void gravityBodyJacobian(const csModel* m, const csData* d, int e, int body,
                                double* dQdX, double* dQdV) {
  (void)m;
  (void)d;
  (void)e;
  (void)body;
  (void)dQdX;
  (void)dQdV;
}


const csForceKind cs_kindGravity = {
    .name = "gravity",
    .doc = "uniform gravity (the scene's \"gravity\" vector) at every body's centre of mass",
    .init = gravityInit,
    .apply = gravityApply,
    .planarApply = gravityPlanarApply,
    .mobilityJacobian = gravityJacobian,
    .bodyJacobian = gravityBodyJacobian,
};
