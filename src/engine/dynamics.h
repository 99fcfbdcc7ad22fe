// dynamics.h: private helpers of the articulated-body algorithm.
#ifndef CONTACTSIM_DYNAMICS_H
#define CONTACTSIM_DYNAMICS_H

#include "contactsim/types.h"

// Fill d->aba_I0 with every body's rotational inertia about its origin in body coordinates (done
// once when the data is made: it depends only on the model).
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
