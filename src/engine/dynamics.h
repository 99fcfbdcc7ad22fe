// dynamics.h: private helpers of the articulated-body algorithm.
#ifndef CONTACTSIM_DYNAMICS_H
#define CONTACTSIM_DYNAMICS_H

#include "contactsim/types.h"

// Fill d->aba_I0 with every body's rotational inertia about its origin in body coordinates, and
// the other constants of the dynamics (done once when the data is made: they depend only on the
// model, which is fixed from then on). The planar right-hand side's records are read off the
// poses at q = 0, so this realizes the position stage there and leaves the state to
// cs_resetData, which cs_makeData calls next.
void cs_spatialInertias(const csModel* m, csData* d);

// The record of a link of a planar pin tree in d->aba_plane (dynamics.c, planarTrees): the
// plane's basis e1, e2 and normal n in Ground, the sign of the pin's axis along n, the central
// moment of inertia about n, and a flag used while the trees are found.
enum {
  CS_PL_E1 = 0,
  CS_PL_E2 = 3,
  CS_PL_N = 6,
  CS_PL_SIGMA = 9,
  CS_PL_ICN = 10,
  CS_PL_OK = 11,
  CS_PL_SIZE = 12
};

// The planar right-hand side's record of a link in d->aba_k2 (22 doubles): a model whose bodies are
// all links of planar pin trees, and whose elements all have planar forms
// (csForceKind.planarApply), finds its rates without realizing any pose or velocity in Ground. A
// link's turn about n is theta, the sum of sigma q along its path (sigma: its axis's sign along n),
// and every body-fixed vector turns with it in the plane: its plane components at theta are those
// at q = 0 turned by theta. First the constants, from the pose at q = 0 (cs_spatialInertias):
enum {
  CS_K2_PF = 0,    // F's origin from the parent's origin, along e1, e2 at the parent's theta = 0
  CS_K2_MB = 2,    // the body origin from M's (F's) origin, along e1, e2 at theta = 0
  CS_K2_COM = 4,   // the centre of mass from the body origin, along e1, e2 at theta = 0
  CS_K2_MG = 6,    // its weight m g along e1, e2, and m g . n times its height along n (the
                   // constant part of its potential energy, less the sign): gravity's, set by
                   // its init (forces/gravity.c)
  // then what each evaluation realizes (kinematics.c, cs_planarKinematics):
  CS_K2_TH = 9,    // theta
  CS_K2_COS = 10,  // cos and sin of theta
  CS_K2_SIN = 11,
  CS_K2_O = 12,    // the origin along e1, e2 (from Ground's origin)
  CS_K2_W = 14,    // the angular velocity about n
  CS_K2_V = 15,    // the origin's velocity along e1, e2
  CS_K2_C = 17,    // the centre of mass from the origin along e1, e2
  CS_K2_F = 19,    // the applied moment about n (at the origin) and force along e1, e2
  CS_K2_SIZE = 22
};

// A planar link's velocity-product acceleration c = v x vJ, vJ = S u, for the link moving at w
// about n and (vx, vy) in the plane: (0, -w vJy + vJw vy, w vJx - vJw vx)
static inline void cs_planarVelocityProduct(double* c, const double* S, double u, double w,
                                            double vx, double vy) {
  c[0] = 0;
  c[1] = u * (S[0] * vy - w * S[2]);
  c[2] = u * (w * S[1] - S[0] * vx);
}

// The planar right-hand side's stages: plane positions and velocities of the active bodies (also S,
// c and the parent offsets of the planar articulated-body algorithm, and qdot), then the elements'
// forces (forces.c).
void cs_planarKinematics(const csModel* m, csData* d);
void cs_planarForces(const csModel* m, csData* d);

// qdot, udot and the z rates at the current state, by the planar right-hand side when the model
// takes it (d->planar_model) and otherwise by the acceleration stage. Nothing when they are
// realized.
void cs_realizeRates(const csModel* m, csData* d);

// Let the stages work on every body, force element and plane (the default).
void cs_activateAll(const csModel* m, csData* d);

// A tree of bodies on pins or sliders (one speed each) frozen at one pose, for the mass matrix
// and linear solves with it: bodies[k] the body ids in increasing order, parent[k] the index in
// that list of body k's parent (-1 when the parent is ground or a body welded to it; every
// descendant of a listed body is listed). Everything in Ground axes about a reference point O,
// which should lie among the bodies (the mass matrix does not depend on it, round-off does).
typedef struct csChainBody {
  double s[6];             // motion subspace column (angular, linear at O), 1 or 1/m per unit u
  double A[9];             // rotational inertia about O (row-major), kg m^2
  double h[3];             // first moment of mass m c, kg m
  double mass;             // kg
  // When every listed body is a link of a planar pin tree (dynamics.c, planarTrees), the same
  // in the plane's coordinates (rotation about n; along e1, e2), and the functions below work
  // on those: the column, and the inertia's upper triangle (I00 I01 I02 I11 I12 I22) about O.
  int planar;
  double sp[3];
  double Ip[6];
} csChainBody;

// Each body's column and inertia at the data's pose (realized to the position stage), about the
// point `origin` (in Ground, m).
void cs_chainSnapshot(const csModel* m, const csData* d, const int* bodies, int nb, csVec3 origin,
                      csChainBody* out);

// out = M v in O(nb) (inverse dynamics at rest without gravity), M being the joint-space mass
// matrix (M_jk: the generalized force on speed j per unit acceleration of speed k, kg m^2, kg m
// or kg). scratch: 12 nb.
void cs_chainMassTimes(const csChainBody* cb, const int* parent, int nb, const double* v,
                       double* out, double* scratch);

// Factor M + diag(armature) in O(nb) (articulated inertias): IA (36 nb), U (6 nb) and D (nb)
// receive what cs_chainSolve needs. Returns 0, or -1 when a pivot D is not positive (an
// armature too negative for the inertia).
int cs_chainFactor(const csChainBody* cb, const int* parent, int nb, const double* armature,
                   double* IA, double* U, double* D);

// Solve (M + diag(armature)) x = r in O(nb) with cs_chainFactor's U and D: x holds r on entry
// and the solution on return. scratch: 12 nb.
void cs_chainSolve(const csChainBody* cb, const int* parent, int nb, const double* U,
                   const double* D, double* x, double* scratch);

#endif  // CONTACTSIM_DYNAMICS_H
