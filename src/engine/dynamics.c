// dynamics.c: the acceleration stage. The articulated-body algorithm (Featherstone, Rigid Body
// Dynamics Algorithms, table 7.1) in Ground-parallel coordinates about each body's origin (see
// below, above forceToParent, for why): one outward pass
// (done by the velocity stage: velocities and velocity-product terms), one inward pass
// (articulated inertias and bias forces), one outward pass (accelerations). Cost is linear in the
// number of bodies.
//
// Spatial 6x6 matrices are row-major double[36] (articulated inertias packed, see below);
// spatial vectors are double[6] (angular, linear).
#include <string.h>

#include "contactsim/contactsim.h"
#include "engine/dynamics.h"
#include "engine/kinematics.h"

// Articulated inertias are symmetric, so they are kept packed: [A B; B^T C] with A and C
// symmetric 3x3 blocks, as 21 numbers (the upper triangles of A and C row by row, B whole):
//   A00 A01 A02 A11 A12 A22 | B00 B01 B02 B10 B11 B12 B20 B21 B22 | C00 C01 C02 C11 C12 C22.
// Every product and update below touches each distinct entry once; the full 6x6 form is only
// unpacked for mobilizers of more than one degree of freedom.
enum { PK_A = 0, PK_B = 6, PK_C = 15, PK_SIZE = 21 };

// index of entry (i, j) of a packed symmetric 3x3 block
static const int g_sym3[3][3] = {{0, 1, 2}, {1, 3, 4}, {2, 4, 5}};


// Planar pin trees. A tree of pins hanging from Ground whose axes are all parallel (a planar
// arm, a leg in the sagittal plane, the bench's chains) moves in planes normal to one Ground
// direction n whatever the forces: every angular velocity is along n and every body point moves
// in its plane. The articulated-body algorithm then closes on the plane's three coordinates
// (the rotation about n; the motion along e1 and e2 of a reference point), as the restriction
// of the spatial algebra to that subspace is exact: the subspace is closed under the motion
// cross product, and the forces' other components (moments about axes in the plane, forces
// along n) are absorbed by the pins without doing work. A pin's 6x6 algebra becomes 3x3:
// an articulated inertia of 6 numbers instead of 21, and about a quarter of the arithmetic.
// Parallel means each axis's direction differs from the root's by at most 1e-12 rad, summed
// over the links on the way (a rotation typed in degrees leaves rounding of about 1e-16); any
// body of the tree that is not such a pin (a ball joint, a free body hung from a link, a tilted
// pin) sends the whole tree down the general path.
static void planarTrees(const csModel* m, csData* d) {
  // first the root under Ground of every body, then which roots lead planar trees
  int* root = d->aba_planar;
  for (int b = 1; b < m->nbody; b++) {
    const csBody* body = &m->body[b];
    double* pl = d->aba_plane + CS_PL_SIZE * b;
    memset(pl, 0, sizeof(double) * CS_PL_SIZE);
    root[b] = body->parent == 0 ? b : root[body->parent];
    double* rootPl = d->aba_plane + CS_PL_SIZE * root[b];
    // the pin's axis in its parent's frame (the z axis of F)
    csVec3 axisP = csu_column(&body->X_PF.R, 2);
    if (body->joint != CS_JOINT_PIN) {
      rootPl[CS_PL_OK] = 0;
      continue;
    }
    if (body->parent == 0) {
      // the root: its axis is the plane's normal; e1 from the Ground axis least along it
      csVec3 n = csu_scale(1.0 / csu_norm(axisP), axisP);
      csVec3 a = fabs(n.x) <= fabs(n.y) && fabs(n.x) <= fabs(n.z) ? csu_vec3(1, 0, 0)
                 : fabs(n.y) <= fabs(n.z)                          ? csu_vec3(0, 1, 0)
                                                                   : csu_vec3(0, 0, 1);
      csVec3 e1 = csu_sub(a, csu_scale(csu_dot(a, n), n));
      e1 = csu_scale(1.0 / csu_norm(e1), e1);
      csu_vec3ToArray(pl + CS_PL_E1, e1);
      csu_vec3ToArray(pl + CS_PL_E2, csu_cross(n, e1));
      csu_vec3ToArray(pl + CS_PL_N, n);
      pl[CS_PL_SIGMA] = 1;
      pl[CS_PL_OK] = 1;
    } else {
      // the parent's axis in the parent's frame: its motion subspace's angular part
      const csBody* parent = &m->body[body->parent];
      if (parent->joint != CS_JOINT_PIN) {
        rootPl[CS_PL_OK] = 0;
        continue;
      }
      csVec3 axisParent = csu_vec3FromArray(d->aba_Sbody + 6 * parent->uadr);
      double cosine = csu_dot(axisP, axisParent);
      // the tilts add up along the path from the root (1,000 links each 0.95e-12 rad off their
      // parent's would pass one by one): the sum is held to the bound, kept in the plane's
      // moment-of-inertia slot until the pass below sets that
      double tilt = d->aba_plane[CS_PL_SIZE * body->parent + CS_PL_ICN] +
                    csu_norm(csu_cross(axisP, axisParent));
      if (tilt > 1e-12) {
        rootPl[CS_PL_OK] = 0;
        continue;
      }
      pl[CS_PL_ICN] = tilt;
      double parentSigma = d->aba_plane[CS_PL_SIZE * body->parent + CS_PL_SIGMA];
      pl[CS_PL_SIGMA] = cosine > 0 ? parentSigma : -parentSigma;
    }
  }
  // then each link of a planar tree gets its root's plane, and the moment of inertia about its
  // axis (the axis in the body frame is constant: the motion subspace's angular part)
  for (int b = 1; b < m->nbody; b++) {
    const csBody* body = &m->body[b];
    const double* rootPl = d->aba_plane + CS_PL_SIZE * root[b];
    double* pl = d->aba_plane + CS_PL_SIZE * b;
    if (rootPl[CS_PL_OK] == 0 || d->aba_pinLeaf[b] > 0) {
      root[b] = 0;
      pl[CS_PL_ICN] = 0;
      continue;
    }
    if (root[b] != b) {
      memcpy(pl + CS_PL_E1, rootPl + CS_PL_E1, 9 * sizeof(double));
    }
    csVec3 s = csu_vec3FromArray(d->aba_Sbody + 6 * body->uadr);
    pl[CS_PL_ICN] = csu_dot(s, csu_mulMV(&body->inertia, s));
    root[b] = 1;
  }
}


static inline double dotArr3(const double* a, csVec3 v) {
  return a[0] * v.x + a[1] * v.y + a[2] * v.z;
}


// Whether the model takes the planar right-hand side (engine/dynamics.h, CS_K2_*), and if so
// each link's constants, read from the poses at q = 0 (the position stage, which the caller's
// reset then realizes again at the initial state): with R0 a body's rotation there, F's origin
// from the parent's origin is R0_P p_PF, the body origin from M's is R0_P R_PF p_MB, and the
// centre of mass from the origin R0_B c.
static void planarRecords(const csModel* m, csData* d) {
  d->planar_model = m->nbody > 1;
  for (int b = 1; b < m->nbody; b++) {
    d->planar_model = d->planar_model && d->aba_planar[b];
  }
  for (int e = 0; e < m->nforce; e++) {
    const csForceKind* k = cs_forceKind(m->force[e].kind);
    d->planar_model = d->planar_model && k->planarApply;
  }
  memset(d->aba_k2, 0, sizeof(double) * CS_K2_SIZE * (size_t)m->nbody);
  d->aba_k2[CS_K2_COS] = 1;  // Ground's record: no turn, at rest, at the origin
  if (!d->planar_model) {
    return;
  }
  memset(d->q, 0, sizeof(double) * (size_t)m->nq);
  cs_invalidate(d);
  cs_realizePosition(m, d);
  for (int b = 1; b < m->nbody; b++) {
    const csBody* body = &m->body[b];
    const double* pl = d->aba_plane + CS_PL_SIZE * b;
    double* k = d->aba_k2 + CS_K2_SIZE * b;
    const csMat33* RP = &d->body_pose[body->parent].R;
    csVec3 pf = csu_mulMV(RP, body->X_PF.p);
    csVec3 mb = csu_mulMV(RP, csu_mulMV(&body->X_PF.R, body->X_MB.p));
    csVec3 com = csu_mulMV(&d->body_pose[b].R, body->com);
    k[CS_K2_PF] = dotArr3(pl + CS_PL_E1, pf);
    k[CS_K2_PF + 1] = dotArr3(pl + CS_PL_E2, pf);
    k[CS_K2_MB] = dotArr3(pl + CS_PL_E1, mb);
    k[CS_K2_MB + 1] = dotArr3(pl + CS_PL_E2, mb);
    k[CS_K2_COM] = dotArr3(pl + CS_PL_E1, com);
    k[CS_K2_COM + 1] = dotArr3(pl + CS_PL_E2, com);
  }
  cs_invalidate(d);
}


// Model-derived constants of the dynamics, computed once per data: which bodies take the
// free-leaf fast path, each body's inverse central inertia (for that path) and its spatial
// inertia about its origin (for the general path).
void cs_spatialInertias(const csModel* m, csData* d) {
  memset(d->aba_I0, 0, sizeof(double) * 9 * (size_t)m->nbody);
  memset(d->aba_Iinv, 0, sizeof(double) * 9 * (size_t)m->nbody);
  // free bodies hanging from ground with nothing hanging from them take the fast path
  for (int b = 0; b < m->nbody; b++) {
    d->aba_freeLeaf[b] = b > 0 && m->body[b].joint == CS_JOINT_FREE && m->body[b].parent == 0;
  }
  for (int b = 1; b < m->nbody; b++) {
    d->aba_freeLeaf[m->body[b].parent] = 0;
  }
  // bodies whose frame is the mobilizer's M frame skip one transform product per evaluation,
  // and pins and sliders have a motion subspace fixed in the body: (z, z x p_MB) for a pin
  // (rotation about M's z axis through M's origin, seen at B's origin), (0, x) for a slider
  memset(d->aba_Sbody, 0, sizeof(double) * 6 * (size_t)m->nu);
  for (int b = 1; b < m->nbody; b++) {
    const csBody* body = &m->body[b];
    const csTransform* X = &body->X_MB;
    int plain = X->p.x == 0 && X->p.y == 0 && X->p.z == 0;
    for (int i = 0; i < 3; i++) {
      for (int j = 0; j < 3; j++) {
        plain = plain && X->R.m[i][j] == (i == j ? 1.0 : 0.0);
      }
    }
    d->aba_plainMB[b] = plain;
    int plainR = 1;
    for (int i = 0; i < 3; i++) {
      for (int j = 0; j < 3; j++) {
        plainR = plainR && body->X_PF.R.m[i][j] == (i == j ? 1.0 : 0.0);
      }
    }
    d->aba_plainPF[b] = plainR;
    double* S = d->aba_Sbody + 6 * body->uadr;
    csVec3 w_M = csu_vec3(0, 0, 0), v_M = csu_vec3(0, 0, 0);
    if (body->joint == CS_JOINT_PIN) {
      w_M = csu_vec3(0, 0, 1);
    } else if (body->joint == CS_JOINT_SLIDER) {
      v_M = csu_vec3(1, 0, 0);
    } else {
      continue;
    }
    // seen at B's origin: v_B = v_M + w_M x p_MB, both then turned into B (R_BM)
    csVec3 vB = csu_add(v_M, csu_cross(w_M, X->p));
    csu_vec3ToArray(S, csu_mulMV(&body->X_BM.R, w_M));
    csu_vec3ToArray(S + 3, csu_mulMV(&body->X_BM.R, vB));
  }
  // inverse central inertia by the adjugate (3x3; positive definite, checked at load)
  for (int b = 1; b < m->nbody; b++) {
    const double(*a)[3] = m->body[b].inertia.m;
    double c00 = a[1][1] * a[2][2] - a[1][2] * a[2][1];
    double c01 = a[1][2] * a[2][0] - a[1][0] * a[2][2];
    double c02 = a[1][0] * a[2][1] - a[1][1] * a[2][0];
    double det = a[0][0] * c00 + a[0][1] * c01 + a[0][2] * c02;
    double* inv = d->aba_Iinv + 9 * b;
    inv[0] = c00 / det;
    inv[1] = (a[0][2] * a[2][1] - a[0][1] * a[2][2]) / det;
    inv[2] = (a[0][1] * a[1][2] - a[0][2] * a[1][1]) / det;
    inv[3] = c01 / det;
    inv[4] = (a[0][0] * a[2][2] - a[0][2] * a[2][0]) / det;
    inv[5] = (a[0][2] * a[1][0] - a[0][0] * a[1][2]) / det;
    inv[6] = c02 / det;
    inv[7] = (a[0][1] * a[2][0] - a[0][0] * a[2][1]) / det;
    inv[8] = (a[0][0] * a[1][1] - a[0][1] * a[1][0]) / det;
  }
  for (int b = 1; b < m->nbody; b++) {
    const csBody* body = &m->body[b];
    double* I = d->aba_I0 + 9 * b;
    double mass = body->mass;
    csVec3 c = body->com;
    // the rotational block of the spatial inertia about the origin (RBDA eq. 2.63,
    // [Ic - m cx cx, m cx; -m cx, m 1] with cx the cross-product matrix of the com; the other
    // blocks are formed in Ground at every evaluation)
    double cx[3][3] = {{0, -c.z, c.y}, {c.z, 0, -c.x}, {-c.y, c.x, 0}};
    for (int i = 0; i < 3; i++) {
      for (int j = 0; j < 3; j++) {
        double cxcx = cx[i][0] * cx[0][j] + cx[i][1] * cx[1][j] + cx[i][2] * cx[2][j];
        I[3 * i + j] = body->inertia.m[i][j] - mass * cxcx;
      }
    }
    d->aba_diagI0[b] = I[1] == 0 && I[2] == 0 && I[3] == 0 && I[5] == 0 && I[6] == 0 && I[7] == 0;
  }
  // a pin on ground whose axis passes through the body origin, with nothing hanging from it (a
  // pendulum, a door): its moment of inertia about the axis is constant, and the fast path
  // divides by it
  for (int b = 1; b < m->nbody; b++) {
    const csBody* body = &m->body[b];
    const double* Sb = d->aba_Sbody + 6 * body->uadr;
    const double* I = d->aba_I0 + 9 * b;
    d->aba_pinLeaf[b] = 0;
    if (body->joint == CS_JOINT_PIN && body->parent == 0 && Sb[3] == 0 && Sb[4] == 0 &&
        Sb[5] == 0) {
      double Iaxis = 0;
      for (int i = 0; i < 3; i++) {
        for (int j = 0; j < 3; j++) {
          Iaxis += Sb[i] * I[3 * i + j] * Sb[j];
        }
      }
      d->aba_pinLeaf[b] = Iaxis > 0 ? 1.0 / Iaxis : 0;
    }
  }
  for (int b = 1; b < m->nbody; b++) {
    d->aba_pinLeaf[m->body[b].parent] = 0;
  }
  planarTrees(m, d);
  planarRecords(m, d);
}


// out = A * v for a 6x6 matrix
static void mulMat6Vec(double* out, const double* A, const double* v) {
  for (int i = 0; i < 6; i++) {
    const double* a = A + 6 * i;
    out[i] = a[0] * v[0] + a[1] * v[1] + a[2] * v[2] + a[3] * v[3] + a[4] * v[4] + a[5] * v[5];
  }
}


// The algorithm works in Ground-parallel coordinates at each body's origin: every spatial
// quantity of body B is expressed in Ground's axes about B's origin. Carrying a quantity from a
// body to its parent is then a shift by r = p_B - p_P alone, never a rotation: the rotation of
// an articulated inertia (three 3x3 congruences, about 300 flops) was the largest cost of a pin
// link in body coordinates. (Ground coordinates about Ground's origin would make the carry free,
// but the inertias of bodies far from the origin would then hold m |p|^2 terms that cancel in
// every joint's D, losing digits; about the body's own origin nothing large appears.)

// f_P = f_B carried to the parent's origin: (n + r x f, f)
static void forceToParent(double* out, const double* r, const double* f) {
  out[0] = f[0] + r[1] * f[5] - r[2] * f[4];
  out[1] = f[1] + r[2] * f[3] - r[0] * f[5];
  out[2] = f[2] + r[0] * f[4] - r[1] * f[3];
  out[3] = f[3];
  out[4] = f[4];
  out[5] = f[5];
}


// a_B = the parent's motion carried to the body's origin: (w, v - r x w)
static void motionToChild(double* out, const double* r, const double* a) {
  out[0] = a[0];
  out[1] = a[1];
  out[2] = a[2];
  out[3] = a[3] - (r[1] * a[2] - r[2] * a[1]);
  out[4] = a[4] - (r[2] * a[0] - r[0] * a[2]);
  out[5] = a[5] - (r[0] * a[1] - r[1] * a[0]);
}


// out = r x v
static inline void cross3(double* out, const double* r, const double* v) {
  out[0] = r[1] * v[2] - r[2] * v[1];
  out[1] = r[2] * v[0] - r[0] * v[2];
  out[2] = r[0] * v[1] - r[1] * v[0];
}


// IA_P += the articulated inertia Ia of a child carried to the parent's origin, r = p_B - p_P
// (RBDA eq. 2.66 with E = 1), both packed: with Ia = [A B; B^T C],
//   [A + rx B^T + (rx B^T)^T - rx C rx,  B + rx C;  (B + rx C)^T,  C].
// With P = rx C and H = B + P/2, the top-left block is A + G + G^T for G = rx H^T (because
// -rx C rx = rx P^T / 2 + P rx^T / 2), so the shift is six cross products: the columns of
// rx M are r x (the columns of M), and those of rx H^T are r x (the rows of H).
static void addInertiaToParent(double* restrict IP, const double* restrict r,
                               const double* restrict Ia) {
  const double* A = Ia + PK_A;
  const double* B = Ia + PK_B;
  const double* C = Ia + PK_C;
  double P[3][3], H[3][3], G[3][3];
  for (int j = 0; j < 3; j++) {
    double col[3] = {C[g_sym3[0][j]], C[g_sym3[1][j]], C[g_sym3[2][j]]};
    double a[3];
    cross3(a, r, col);
    P[0][j] = a[0];
    P[1][j] = a[1];
    P[2][j] = a[2];
  }
  for (int i = 0; i < 3; i++) {
    for (int j = 0; j < 3; j++) {
      IP[PK_B + 3 * i + j] += B[3 * i + j] + P[i][j];
      H[i][j] = B[3 * i + j] + 0.5 * P[i][j];
    }
  }
  for (int j = 0; j < 3; j++) {
    double a[3];
    cross3(a, r, H[j]);
    G[0][j] = a[0];
    G[1][j] = a[1];
    G[2][j] = a[2];
  }
  for (int i = 0; i < 3; i++) {
    for (int j = i; j < 3; j++) {
      int k = g_sym3[i][j];
      IP[PK_A + k] += A[k] + (G[i][j] + G[j][i]);
      IP[PK_C + k] += C[k];
    }
  }
}


// invert the n x n symmetric positive definite matrix D (row-major, stride 6) into Dinv by
// Cholesky factorisation; returns 0, or -1 if D is not positive definite
static int invertSPD(double* Dinv, const double* D, int n) {
  double L[36];
  memset(L, 0, sizeof(L));
  for (int j = 0; j < n; j++) {
    double s = D[6 * j + j];
    for (int k = 0; k < j; k++) {
      s -= L[6 * j + k] * L[6 * j + k];
    }
    if (!(s > 0)) {
      return -1;
    }
    L[6 * j + j] = sqrt(s);
    for (int i = j + 1; i < n; i++) {
      double t = D[6 * i + j];
      for (int k = 0; k < j; k++) {
        t -= L[6 * i + k] * L[6 * j + k];
      }
      L[6 * i + j] = t / L[6 * j + j];
    }
  }
  // columns of the inverse: solve L L^T x = e_c
  for (int c = 0; c < n; c++) {
    double y[6];
    for (int i = 0; i < n; i++) {
      double t = (i == c) ? 1.0 : 0.0;
      for (int k = 0; k < i; k++) {
        t -= L[6 * i + k] * y[k];
      }
      y[i] = t / L[6 * i + i];
    }
    for (int i = n - 1; i >= 0; i--) {
      double t = y[i];
      for (int k = i + 1; k < n; k++) {
        t -= L[6 * k + i] * Dinv[6 * k + c];
      }
      Dinv[6 * i + c] = t / L[6 * i + i];
    }
  }
  return 0;
}


// A free body on ground with no children (a block, a ball) decouples from the rest of the tree:
// its articulated inertia is its own rigid inertia, so instead of inverting the 6x6 joint
// matrix the Newton-Euler equations are solved about the centre of mass, in body coordinates:
//   m a_com = F,   I alpha + w x I w = tau_com,
// and the result is expressed as the free mobilizer's udot: the rate of w_FM in F and the
// acceleration of M's origin in F (F is fixed in Ground).
static void freeLeafAcceleration(const csModel* m, csData* d, int b) {
  const csBody* body = &m->body[b];
  const csMat33* R_GB = &d->body_pose[b].R;
  const csMat33* R_GF = &body->X_PF.R;
  const double* inv = d->aba_Iinv + 9 * b;
  // F parallel to Ground (R_GF = 1) and M = B are the usual free body: the rotations by R_GF
  // and the carry from B's origin to M's are then skipped
  int plainPF = d->aba_plainPF[b], plainMB = d->aba_plainMB[b];
  // the body force (moment about the body origin, force; Ground), plus the mobilizer's own
  // generalized forces (mobility springs, dampers and stops on its coordinates): a moment tau_w
  // and a force tau_v in F at M's origin, the spatial force whose power on u = (w_FM, v_FM) is
  // tau . u. F is fixed in Ground, so in Ground the force is R_GF tau_v and the moment about
  // the body origin R_GF tau_w + (p_M - p_B) x R_GF tau_v.
  csVec3 force = d->body_force[b].v;
  csVec3 moment = d->body_force[b].w;
  const double* gf = d->mobility_force + body->uadr;
  if (gf[0] != 0 || gf[1] != 0 || gf[2] != 0 || gf[3] != 0 || gf[4] != 0 || gf[5] != 0) {
    csVec3 Fm = csu_vec3(gf[3], gf[4], gf[5]);
    csVec3 Mm = csu_vec3(gf[0], gf[1], gf[2]);
    if (!plainPF) {
      Fm = csu_mulMV(R_GF, Fm);
      Mm = csu_mulMV(R_GF, Mm);
    }
    force = csu_add(force, Fm);
    moment = csu_add(moment, plainMB ? Mm : csu_add(Mm, csu_cross(csu_mulMV(R_GB, body->X_BM.p),
                                                                  Fm)));
  }
  // force and moment about the COM, body coordinates
  csVec3 F_B = csu_mulMtV(R_GB, force);
  csVec3 n_B = csu_mulMtV(R_GB, moment);
  csVec3 tau = csu_sub(n_B, csu_cross(body->com, F_B));
  csVec3 w = csu_mulMtV(R_GB, d->body_vel[b].w);
  csVec3 Iw = csu_mulMV(&body->inertia, w);
  csVec3 rhs = csu_sub(tau, csu_cross(w, Iw));
  csVec3 alpha = csu_vec3(inv[0] * rhs.x + inv[1] * rhs.y + inv[2] * rhs.z,
                          inv[3] * rhs.x + inv[4] * rhs.y + inv[5] * rhs.z,
                          inv[6] * rhs.x + inv[7] * rhs.y + inv[8] * rhs.z);
  csVec3 acom = csu_scale(1.0 / body->mass, F_B);
  // acceleration of the body origin and of M's origin (body coordinates), then in Ground
  csVec3 aO = csu_rigidAcceleration(acom, alpha, w, csu_neg(body->com));
  csVec3 alpha_G = csu_mulMV(R_GB, alpha);
  csVec3 aO_G = csu_mulMV(R_GB, aO);
  csVec3 aM_G = aO_G;
  if (!plainMB) {
    aM_G = csu_mulMV(R_GB, csu_rigidAcceleration(acom, alpha, w, csu_sub(body->X_BM.p, body->com)));
  }
  // udot: the rate of w_FM and the acceleration of M's origin, both in F (F fixed in Ground)
  double* udot = d->udot + body->uadr;
  csu_vec3ToArray(udot, plainPF ? alpha_G : csu_mulMtV(R_GF, alpha_G));
  csu_vec3ToArray(udot + 3, plainPF ? aM_G : csu_mulMtV(R_GF, aM_G));
  // spatial acceleration at the body origin, in Ground: (alpha, a_origin - w x v_origin)
  d->body_acc[b].w = alpha_G;
  d->body_acc[b].v = csu_sub(aO_G, csu_cross(d->body_vel[b].w, d->body_vel[b].v));
}


// A pin on ground whose axis s passes through the body origin, with no children: the origin
// is fixed and w = s u, so the gyroscopic moment w x (A w) has no component along s and
//   udot = (tau + s . n_O) / (s^T A s),
// n_O the elements' moment about the origin, A the rigid inertia about it (s^T A s is the same
// in every pose: cs_spatialInertias); the spatial acceleration is (s udot, 0).
static void pinLeafAcceleration(const csModel* m, csData* d, int b) {
  const csBody* body = &m->body[b];
  const double* S = d->aba_S + 6 * body->uadr;  // (s, 0) in Ground (the velocity stage)
  const csVec3 n = d->body_force[b].w;
  double udot = (d->mobility_force[body->uadr] + S[0] * n.x + S[1] * n.y + S[2] * n.z) *
                d->aba_pinLeaf[b];
  d->udot[body->uadr] = udot;
  d->body_acc[b].w = csu_vec3(S[0] * udot, S[1] * udot, S[2] * udot);
  d->body_acc[b].v = csu_vec3(0, 0, 0);
}


// unpack a packed spatial inertia into a full row-major 6x6 matrix
static void unpackInertia(double* F, const double* P) {
  for (int i = 0; i < 3; i++) {
    for (int j = 0; j < 3; j++) {
      F[6 * i + j] = P[PK_A + g_sym3[i][j]];
      F[6 * i + 3 + j] = P[PK_B + 3 * i + j];
      F[6 * (3 + j) + i] = P[PK_B + 3 * i + j];
      F[6 * (3 + i) + 3 + j] = P[PK_C + g_sym3[i][j]];
    }
  }
}


// pack a full symmetric 6x6 matrix (its upper triangle is read)
static void packInertia(double* P, const double* F) {
  for (int i = 0; i < 3; i++) {
    for (int j = i; j < 3; j++) {
      P[PK_A + g_sym3[i][j]] = F[6 * i + j];
      P[PK_C + g_sym3[i][j]] = F[6 * (3 + i) + 3 + j];
    }
    for (int j = 0; j < 3; j++) {
      P[PK_B + 3 * i + j] = F[6 * i + 3 + j];
    }
  }
}


// The rigid inertia of body b about its origin in Ground-parallel coordinates (RBDA eq. 2.63
// with the centre of mass c and the inertia rotated into Ground), packed:
// [R Ic R^T - m cx cx, m cx; -m cx, m 1]. The constant part I0 - its top-left block, about the
// origin in body coordinates - is rotated as R A R^T (A symmetric: six entries computed; when A
// is diagonal, as for a body whose centre of mass lies on a principal axis through its origin,
// R A is R with its columns scaled).
static void groundInertia(const csModel* m, const csData* d, int b, double* restrict I) {
  const csBody* body = &m->body[b];
  const double* I0 = d->aba_I0 + 9 * b;
  const double(*R)[3] = d->body_pose[b].R.m;
  double mass = body->mass;
  // T = R A, then the upper triangle of T R^T
  double T[3][3];
  if (d->aba_diagI0[b]) {
    for (int i = 0; i < 3; i++) {
      T[i][0] = R[i][0] * I0[0];
      T[i][1] = R[i][1] * I0[4];
      T[i][2] = R[i][2] * I0[8];
    }
  } else {
    for (int i = 0; i < 3; i++) {
      for (int j = 0; j < 3; j++) {
        T[i][j] = R[i][0] * I0[j] + R[i][1] * I0[3 + j] + R[i][2] * I0[6 + j];
      }
    }
  }
  for (int i = 0; i < 3; i++) {
    for (int j = i; j < 3; j++) {
      I[PK_A + g_sym3[i][j]] = T[i][0] * R[j][0] + T[i][1] * R[j][1] + T[i][2] * R[j][2];
    }
  }
  // m cx with c the centre of mass from the origin, in Ground; m times the identity
  csVec3 c = csu_sub(d->body_com[b], d->body_pose[b].p);
  double* B = I + PK_B;
  double mx = mass * c.x, my = mass * c.y, mz = mass * c.z;
  B[0] = 0;
  B[1] = -mz;
  B[2] = my;
  B[3] = mz;
  B[4] = 0;
  B[5] = -mx;
  B[6] = -my;
  B[7] = mx;
  B[8] = 0;
  double* C = I + PK_C;
  C[0] = mass;
  C[1] = 0;
  C[2] = 0;
  C[3] = mass;
  C[4] = 0;
  C[5] = mass;
}


// Inward-pass step of a one-degree-of-freedom mobilizer (pin, slider): U = IA S is one column,
// D a number, and Ia = IA - U U^T / D is symmetric, so its 21 distinct entries are computed.
// Writes U, Dinv, utau; fills Ia and pa (the inertia and bias force the parent feels, Ia
// packed) unless the parent is ground. A general 6x6 path costs about three times as much.
static void inwardOneDof(const csModel* m, csData* d, int b, double* restrict Ia,
                         double* restrict pa) {
  const csBody* body = &m->body[b];
  const double* restrict IA = d->aba_IA + PK_SIZE * b;
  const double* restrict A = IA + PK_A;
  const double* restrict B = IA + PK_B;
  const double* restrict C = IA + PK_C;
  const double* restrict pA = d->aba_pA + 6 * b;
  const double* restrict S = d->aba_S + 6 * body->uadr;
  double* restrict U = d->aba_U + 6 * body->uadr;
  // U = [A B; B^T C] (s, l)
  U[0] = A[0] * S[0] + A[1] * S[1] + A[2] * S[2];
  U[1] = A[1] * S[0] + A[3] * S[1] + A[4] * S[2];
  U[2] = A[2] * S[0] + A[4] * S[1] + A[5] * S[2];
  U[3] = B[0] * S[0] + B[3] * S[1] + B[6] * S[2];
  U[4] = B[1] * S[0] + B[4] * S[1] + B[7] * S[2];
  U[5] = B[2] * S[0] + B[5] * S[1] + B[8] * S[2];
  double D, sp;
  if (S[3] != 0 || S[4] != 0 || S[5] != 0) {
    // a slider, or a pin whose axis does not pass through the body origin
    U[0] += B[0] * S[3] + B[1] * S[4] + B[2] * S[5];
    U[1] += B[3] * S[3] + B[4] * S[4] + B[5] * S[5];
    U[2] += B[6] * S[3] + B[7] * S[4] + B[8] * S[5];
    U[3] += C[0] * S[3] + C[1] * S[4] + C[2] * S[5];
    U[4] += C[1] * S[3] + C[3] * S[4] + C[4] * S[5];
    U[5] += C[2] * S[3] + C[4] * S[4] + C[5] * S[5];
    D = S[0] * U[0] + S[1] * U[1] + S[2] * U[2] + S[3] * U[3] + S[4] * U[4] + S[5] * U[5];
    sp = S[0] * pA[0] + S[1] * pA[1] + S[2] * pA[2] + S[3] * pA[3] + S[4] * pA[4] + S[5] * pA[5];
  } else {
    // S = (s, 0): D = s . (A s) and S^T pA = s . (the moment of pA)
    D = S[0] * U[0] + S[1] * U[1] + S[2] * U[2];
    sp = S[0] * pA[0] + S[1] * pA[1] + S[2] * pA[2];
  }
  double utau = d->mobility_force[body->uadr] - sp;
  // a massless or degenerate subtree gives NaN, which makes the step be retried
  double Dinv = (D > 0) ? 1.0 / D : NAN;
  d->aba_Dinv[6 * body->uadr] = Dinv;
  d->aba_utau[body->uadr] = utau;
  if (body->parent == 0) {
    return;
  }
  // Ia = IA - (U / D) U^T, entry by distinct entry
  double W[6];
  for (int i = 0; i < 6; i++) {
    W[i] = U[i] * Dinv;
  }
  for (int i = 0; i < 3; i++) {
    for (int j = i; j < 3; j++) {
      int k = g_sym3[i][j];
      Ia[PK_A + k] = A[k] - W[i] * U[j];
      Ia[PK_C + k] = C[k] - W[3 + i] * U[3 + j];
    }
    for (int j = 0; j < 3; j++) {
      Ia[PK_B + 3 * i + j] = B[3 * i + j] - W[i] * U[3 + j];
    }
  }
  // pa = pA + Ia c + U Dinv utau
  const double* restrict c = d->aba_c + 6 * b;
  const double* a = Ia + PK_A;
  const double* bb = Ia + PK_B;
  const double* cc = Ia + PK_C;
  double k = Dinv * utau;
  pa[0] = a[0] * c[0] + a[1] * c[1] + a[2] * c[2] + bb[0] * c[3] + bb[1] * c[4] + bb[2] * c[5];
  pa[1] = a[1] * c[0] + a[3] * c[1] + a[4] * c[2] + bb[3] * c[3] + bb[4] * c[4] + bb[5] * c[5];
  pa[2] = a[2] * c[0] + a[4] * c[1] + a[5] * c[2] + bb[6] * c[3] + bb[7] * c[4] + bb[8] * c[5];
  pa[3] = bb[0] * c[0] + bb[3] * c[1] + bb[6] * c[2] + cc[0] * c[3] + cc[1] * c[4] + cc[2] * c[5];
  pa[4] = bb[1] * c[0] + bb[4] * c[1] + bb[7] * c[2] + cc[1] * c[3] + cc[3] * c[4] + cc[4] * c[5];
  pa[5] = bb[2] * c[0] + bb[5] * c[1] + bb[8] * c[2] + cc[2] * c[3] + cc[4] * c[4] + cc[5] * c[5];
  for (int i = 0; i < 6; i++) {
    pa[i] += pA[i] + U[i] * k;
  }
}


// Inward-pass step of any mobilizer (RBDA table 7.1): U = IA S, D = S^T U, u = tau - S^T pA,
// then Ia = IA - U Dinv U^T and pa = pA + Ia c + U Dinv u (unless the parent is ground). Works
// on the unpacked 6x6 matrices; Ia is packed again at the end.
static void inwardGeneral(const csModel* m, csData* d, int b, double* IaPacked, double* pa) {
  const csBody* body = &m->body[b];
  int n = body->unum;
  double IA[36], Ia[36];
  unpackInertia(IA, d->aba_IA + PK_SIZE * b);
  const double* pA = d->aba_pA + 6 * b;
  const double* c = d->aba_c + 6 * b;
  const double* S = d->aba_S + 6 * body->uadr;
  double* U = d->aba_U + 6 * body->uadr;
  double* Dinv = d->aba_Dinv + 6 * body->uadr;
  double* utau = d->aba_utau + body->uadr;
  double D[36];
  // U = IA S, column by column
  for (int k = 0; k < n; k++) {
    mulMat6Vec(U + 6 * k, IA, S + 6 * k);
  }
  // D = S^T U and u = tau - S^T pA
  for (int i = 0; i < n; i++) {
    for (int k = 0; k < n; k++) {
      double s = 0;
      for (int r = 0; r < 6; r++) {
        s += S[6 * i + r] * U[6 * k + r];
      }
      D[6 * i + k] = s;
    }
    double sp = 0;
    for (int r = 0; r < 6; r++) {
      sp += S[6 * i + r] * pA[r];
    }
    utau[i] = d->mobility_force[body->uadr + i] - sp;
  }
  if (n > 0 && invertSPD(Dinv, D, n) != 0) {
    // a massless or degenerate subtree: flagged as non-finite so the step is retried
    for (int i = 0; i < n; i++) {
      Dinv[6 * i + i] = NAN;
    }
  }
  // ground absorbs whatever reaches it
  if (body->parent == 0) {
    return;
  }
  double UD[36];  // U Dinv: 6 x n, stored column k at UD[6k]
  double Dutau[6];
  for (int k = 0; k < n; k++) {
    Dutau[k] = 0;
    for (int j = 0; j < n; j++) {
      Dutau[k] += Dinv[6 * k + j] * utau[j];
    }
    for (int r = 0; r < 6; r++) {
      double s = 0;
      for (int j = 0; j < n; j++) {
        s += U[6 * j + r] * Dinv[6 * j + k];
      }
      UD[6 * k + r] = s;
    }
  }
  // the inertia the parent feels through the mobilizer
  for (int i = 0; i < 6; i++) {
    for (int j = 0; j < 6; j++) {
      double s = IA[6 * i + j];
      for (int k = 0; k < n; k++) {
        s -= UD[6 * k + i] * U[6 * k + j];
      }
      Ia[6 * i + j] = s;
    }
  }
  // and the bias force, including what the velocity-product acceleration c costs
  mulMat6Vec(pa, Ia, c);
  for (int i = 0; i < 6; i++) {
    pa[i] += pA[i];
    for (int k = 0; k < n; k++) {
      pa[i] += U[6 * k + i] * Dutau[k];
    }
  }
  packInertia(IaPacked, Ia);
}


// The planar path (see planarTrees above). Planar motion vectors are (rotation rate about n,
// velocity along e1 and e2 of the body origin), force vectors (moment about n at the body
// origin, force along e1 and e2), all in Ground; a planar articulated inertia is symmetric 3x3,
// kept as its upper triangle (I00 I01 I02 I11 I12 I22) in the first six entries of aba_IA, the
// bias force in the first three of aba_pA, c in aba_c, S in aba_S, and what the outward step
// takes from the inward one in aba_U and aba_utau (planarInward).

// a link's planar rigid inertia and bias force (v x* I v minus the applied forces), from its
// centre of mass (cx, cy) and velocity (w; vx, vy) and the applied moment fn and force (f1, f2),
// all in the plane's coordinates about its origin
static void planarRigid(double* restrict I, double* restrict pA, double mass, double Icn,
                        double cx, double cy, double w, double vx, double vy, double fn,
                        double f1, double f2) {
  double mcx = mass * cx, mcy = mass * cy;
  // [Ic + m |c|^2, -m cy, m cx; -m cy, m, 0; m cx, 0, m] (the plane's part of RBDA eq. 2.63)
  I[0] = Icn + (mcx * cx + mcy * cy);
  I[1] = -mcy;
  I[2] = mcx;
  I[3] = mass;
  I[4] = 0;
  I[5] = mass;
  // momentum h = I v, then v x* h = (vx h2 - vy h1, -w h2, w h1)
  double h1 = mass * vx - mcy * w, h2 = mass * vy + mcx * w;
  pA[0] = vx * h2 - vy * h1 - fn;
  pA[1] = -w * h2 - f1;
  pA[2] = w * h1 - f2;
}


// a link's planar rigid inertia and bias force from the realized stages, its motion subspace S,
// velocity-product acceleration c = v x S u and offset from its parent
static void planarStart(const csModel* m, csData* d, int b) {
  const csBody* body = &m->body[b];
  const double* pl = d->aba_plane + CS_PL_SIZE * b;
  const double* e1 = pl + CS_PL_E1;
  const double* e2 = pl + CS_PL_E2;
  const double* n = pl + CS_PL_N;
  const csSpatialVec* V = &d->body_vel[b];
  double w = dotArr3(n, V->w), vx = dotArr3(e1, V->v), vy = dotArr3(e2, V->v);
  csVec3 c3 = csu_sub(d->body_com[b], d->body_pose[b].p);
  const csSpatialVec* F = &d->body_force[b];
  planarRigid(d->aba_IA + PK_SIZE * b, d->aba_pA + 6 * b, body->mass, pl[CS_PL_ICN],
              dotArr3(e1, c3), dotArr3(e2, c3), w, vx, vy, dotArr3(n, F->w), dotArr3(e1, F->v),
              dotArr3(e2, F->v));
  // S = sigma (1, 0, 0) for an axis through the body origin; otherwise the origin's velocity
  // about the axis, the body-fixed column turned into Ground
  double* S = d->aba_S + 6 * body->uadr;
  const double* Sb = d->aba_Sbody + 6 * body->uadr;
  S[0] = pl[CS_PL_SIGMA];
  S[1] = S[2] = 0;
  if (Sb[3] != 0 || Sb[4] != 0 || Sb[5] != 0) {
    csVec3 lin = csu_mulMV(&d->body_pose[b].R, csu_vec3FromArray(Sb + 3));
    S[1] = dotArr3(e1, lin);
    S[2] = dotArr3(e2, lin);
  }
  cs_planarVelocityProduct(d->aba_c + 6 * b, S, d->u[body->uadr], w, vx, vy);
  // the plane's components of the origin from the parent's, for both passes
  if (body->parent != 0) {
    csVec3 r = csu_sub(d->body_pose[b].p, d->body_pose[body->parent].p);
    double* r2 = d->aba_r2 + 2 * b;
    r2[0] = dotArr3(e1, r);
    r2[1] = dotArr3(e2, r);
  }
}


// inward step: U = IA S, D = S . U, u = tau - S . pA; then, unless the parent is Ground,
// Ia = IA - U U^T / D and pa = pA + Ia c + U u / D, carried to the parent's origin (with r
// the offset, motion carries as (w, v - r x w) and force as (tau + r x f, f)) and added there.
// What the outward step needs is kept in the link's rows of aba_U and aba_utau: V / D and
// (u - U . c) / D (below).
static void planarInward(const csModel* m, csData* d, int b) {
  const csBody* body = &m->body[b];
  const double* IA = d->aba_IA + PK_SIZE * b;
  const double* pA = d->aba_pA + 6 * b;
  const double* S = d->aba_S + 6 * body->uadr;
  const double* c = d->aba_c + 6 * b;  // c[0] is 0
  double U0 = IA[0] * S[0] + IA[1] * S[1] + IA[2] * S[2];
  double U1 = IA[1] * S[0] + IA[3] * S[1] + IA[4] * S[2];
  double U2 = IA[2] * S[0] + IA[4] * S[1] + IA[5] * S[2];
  double D = S[0] * U0 + S[1] * U1 + S[2] * U2;
  double utau = d->mobility_force[body->uadr] - (S[0] * pA[0] + S[1] * pA[1] + S[2] * pA[2]);
  // a massless or degenerate subtree gives NaN, which makes the step be retried
  double Dinv = (D > 0) ? 1.0 / D : NAN;
  double e = (utau - (U1 * c[1] + U2 * c[2])) * Dinv;
  d->aba_utau[body->uadr] = e;
  if (body->parent == 0) {
    return;
  }
  // Carried to the parent's origin by T = [1 0 0; -ry 1 0; rx 0 1] (the carry of motion from
  // parent to child): T^T Ia T = T^T IA T - V V^T / D with V = T^T U, and T^T pa = T^T (pA +
  // IA c) + V e, so that the chain from the tip to the root waits on the division for one
  // product only
  double rx = d->aba_r2[2 * b], ry = d->aba_r2[2 * b + 1];
  double V0 = U0 - ry * U1 + rx * U2, V1 = U1, V2 = U2;
  double m00 = IA[0] - ry * IA[1] + rx * IA[2];
  double m01 = IA[1] - ry * IA[3] + rx * IA[4];
  double m02 = IA[2] - ry * IA[4] + rx * IA[5];
  double q0 = pA[0] + IA[1] * c[1] + IA[2] * c[2];
  double q1 = pA[1] + IA[3] * c[1] + IA[4] * c[2];
  double q2 = pA[2] + IA[4] * c[1] + IA[5] * c[2];
  double X0 = V0 * Dinv, X1 = V1 * Dinv, X2 = V2 * Dinv;
  double* X = d->aba_U + 6 * body->uadr;
  X[0] = X0;
  X[1] = X1;
  X[2] = X2;
  double* IP = d->aba_IA + PK_SIZE * body->parent;
  IP[0] += (m00 - ry * m01 + rx * m02) - X0 * V0;
  IP[1] += m01 - X0 * V1;
  IP[2] += m02 - X0 * V2;
  IP[3] += IA[3] - X1 * V1;
  IP[4] += IA[4] - X1 * V2;
  IP[5] += IA[5] - X2 * V2;
  double* pP = d->aba_pA + 6 * body->parent;
  pP[0] += (q0 - ry * q1 + rx * q2) + V0 * e;
  pP[1] += q1 + V1 * e;
  pP[2] += q2 + V2 * e;
}


// outward step: a' = the parent's acceleration carried to this origin + c, udot = (u - U . a')
// / D, a = a' + S udot, written also as the spatial acceleration in Ground when `spatial`. As
// U . a' = V . a_P + U . c (the inward step's V = T^T U), udot = (u - U . c) / D - (V / D) . a_P,
// both kept by the inward step: one product from the parent's acceleration to this one's.
static void planarOutward(const csModel* m, csData* d, int b, int spatial) {
  const csBody* body = &m->body[b];
  const double* c = d->aba_c + 6 * b;
  double udot = d->aba_utau[body->uadr];
  double a0 = 0, a1 = c[1], a2 = c[2];
  if (body->parent != 0) {
    const double* ap = d->aba_acc2 + 3 * body->parent;
    const double* X = d->aba_U + 6 * body->uadr;
    double rx = d->aba_r2[2 * b], ry = d->aba_r2[2 * b + 1];
    udot -= X[0] * ap[0] + X[1] * ap[1] + X[2] * ap[2];
    a0 = ap[0];
    a1 += ap[1] - ap[0] * ry;
    a2 += ap[2] + ap[0] * rx;
  }
  const double* S = d->aba_S + 6 * body->uadr;
  double s0 = S[0], s1 = S[1], s2 = S[2];  // read before the store below
  d->udot[body->uadr] = udot;
  a0 += s0 * udot;
  a1 += s1 * udot;
  a2 += s2 * udot;
  double* acc = d->aba_acc2 + 3 * b;
  acc[0] = a0;
  acc[1] = a1;
  acc[2] = a2;
  if (!spatial) {
    return;
  }
  const double* pl = d->aba_plane + CS_PL_SIZE * b;
  d->body_acc[b].w = csu_vec3(a0 * pl[CS_PL_N], a0 * pl[CS_PL_N + 1], a0 * pl[CS_PL_N + 2]);
  d->body_acc[b].v = csu_vec3(a1 * pl[CS_PL_E1] + a2 * pl[CS_PL_E2],
                              a1 * pl[CS_PL_E1 + 1] + a2 * pl[CS_PL_E2 + 1],
                              a1 * pl[CS_PL_E1 + 2] + a2 * pl[CS_PL_E2 + 2]);
}


void cs_realizeAcceleration(const csModel* m, csData* d) {
  if (d->stage >= CS_STAGE_ACCELERATION) {
    return;
  }
  d->stat.nstage[3]++;
  cs_realizeDynamics(m, d);

  // 1. articulated inertias start as rigid ones; bias forces v x* I v - f_ext, all in Ground
  // axes about each body's origin (body_vel and body_force are already expressed that way)
  for (int ib = 0; ib < d->nact_body; ib++) {
    int b = d->act_body[ib];
    if (d->aba_freeLeaf[b] || d->aba_pinLeaf[b] > 0) {
      continue;
    }
    if (d->aba_planar[b]) {
      planarStart(m, d, b);
      continue;
    }
    double* IA = d->aba_IA + PK_SIZE * b;
    double* pA = d->aba_pA + 6 * b;
    const double* v = (const double*)&d->body_vel[b];
    groundInertia(m, d, b, IA);
    // momentum h = I v from the blocks of the rigid inertia: (A w + m c x v, m v - m c x w)
    csVec3 w = csu_vec3FromArray(v), vl = csu_vec3FromArray(v + 3);
    csVec3 mc = csu_scale(m->body[b].mass, csu_sub(d->body_com[b], d->body_pose[b].p));
    const double* A = IA + PK_A;
    csVec3 Aw = csu_vec3(A[0] * w.x + A[1] * w.y + A[2] * w.z, A[1] * w.x + A[3] * w.y + A[4] * w.z,
                         A[2] * w.x + A[4] * w.y + A[5] * w.z);
    csVec3 ha = csu_add(Aw, csu_cross(mc, vl));
    csVec3 hl = csu_sub(csu_scale(m->body[b].mass, vl), csu_cross(mc, w));
    csVec3 bias_n = csu_add(csu_cross(w, ha), csu_cross(vl, hl));
    csVec3 bias_f = csu_cross(w, hl);
    csu_vec3ToArray(pA, csu_sub(bias_n, d->body_force[b].w));
    csu_vec3ToArray(pA + 3, csu_sub(bias_f, d->body_force[b].v));
  }

  // 2. inward pass: a body passes its articulated inertia and bias force, reduced by what its
  // mobilizer can absorb, to its parent
  for (int ib = d->nact_body - 1; ib >= 0; ib--) {
    int b = d->act_body[ib];
    if (d->aba_freeLeaf[b] || d->aba_pinLeaf[b] > 0) {
      continue;
    }
    if (d->aba_planar[b]) {
      planarInward(m, d, b);
      continue;
    }
    const csBody* body = &m->body[b];
    double Ia[PK_SIZE], pa[6];
    if (body->unum == 1) {
      inwardOneDof(m, d, b, Ia, pa);
    } else {
      inwardGeneral(m, d, b, Ia, pa);
    }
    if (body->parent == 0) {
      continue;
    }
    // both carried to the parent's origin and added to its articulated body
    csVec3 rv = csu_sub(d->body_pose[b].p, d->body_pose[body->parent].p);
    double r[3] = {rv.x, rv.y, rv.z};
    addInertiaToParent(d->aba_IA + PK_SIZE * body->parent, r, Ia);
    double fp[6];
    forceToParent(fp, r, pa);
    double* pAp = d->aba_pA + 6 * body->parent;
    for (int i = 0; i < 6; i++) {
      pAp[i] += fp[i];
    }
  }

  // 3. outward pass: accelerations (ground does not accelerate; gravity is a force element)
  double* a0 = (double*)&d->body_acc[0];
  memset(a0, 0, 6 * sizeof(double));
  for (int ib = 0; ib < d->nact_body; ib++) {
    int b = d->act_body[ib];
    if (d->aba_freeLeaf[b]) {
      freeLeafAcceleration(m, d, b);
      continue;
    }
    if (d->aba_pinLeaf[b] > 0) {
      pinLeafAcceleration(m, d, b);
      continue;
    }
    if (d->aba_planar[b]) {
      planarOutward(m, d, b, 1);
      continue;
    }
    const csBody* body = &m->body[b];
    int n = body->unum;
    // a' = the parent's acceleration at this origin + c, udot = D^-1 (u - U^T a'),
    // a = a' + S udot
    double a[6];
    csVec3 rv = csu_sub(d->body_pose[b].p, d->body_pose[body->parent].p);
    double r[3] = {rv.x, rv.y, rv.z};
    motionToChild(a, r, (const double*)&d->body_acc[body->parent]);
    const double* c = d->aba_c + 6 * b;
    for (int i = 0; i < 6; i++) {
      a[i] += c[i];
    }
    const double* S = d->aba_S + 6 * body->uadr;
    const double* U = d->aba_U + 6 * body->uadr;
    const double* Dinv = d->aba_Dinv + 6 * body->uadr;
    const double* utau = d->aba_utau + body->uadr;
    double* udot = d->udot + body->uadr;
    if (n == 1) {
      double s = utau[0] - (U[0] * a[0] + U[1] * a[1] + U[2] * a[2] + U[3] * a[3] +
                            U[4] * a[4] + U[5] * a[5]);
      udot[0] = Dinv[0] * s;
    } else {
      double rhs[6];
      for (int k = 0; k < n; k++) {
        double s = utau[k];
        for (int i = 0; i < 6; i++) {
          s -= U[6 * k + i] * a[i];
        }
        rhs[k] = s;
      }
      for (int k = 0; k < n; k++) {
        double s = 0;
        for (int j = 0; j < n; j++) {
          s += Dinv[6 * k + j] * rhs[j];
        }
        udot[k] = s;
      }
    }
    for (int k = 0; k < n; k++) {
      for (int i = 0; i < 6; i++) {
        a[i] += S[6 * k + i] * udot[k];
      }
    }
    memcpy(&d->body_acc[b], a, 6 * sizeof(double));
  }
  d->stage = CS_STAGE_ACCELERATION;
}


// The planar right-hand side (engine/dynamics.h): the plane's kinematics and forces, then the
// planar articulated-body algorithm on every active link, as the acceleration stage runs it on
// planar links, without the poses, velocities and accelerations in Ground.
void cs_realizeRates(const csModel* m, csData* d) {
  if (!d->planar_model) {
    cs_realizeAcceleration(m, d);
    return;
  }
  if (d->planar_rates || d->stage >= CS_STAGE_ACCELERATION) {
    return;
  }
  for (int i = 0; i < 4; i++) {
    d->stat.nstage[i]++;
  }
  cs_planarKinematics(m, d);
  cs_planarForces(m, d);
  for (int ib = 0; ib < d->nact_body; ib++) {
    int b = d->act_body[ib];
    const double* k = d->aba_k2 + CS_K2_SIZE * b;
    planarRigid(d->aba_IA + PK_SIZE * b, d->aba_pA + 6 * b, m->body[b].mass,
                d->aba_plane[CS_PL_SIZE * b + CS_PL_ICN], k[CS_K2_C], k[CS_K2_C + 1],
                k[CS_K2_W], k[CS_K2_V], k[CS_K2_V + 1], k[CS_K2_F], k[CS_K2_F + 1],
                k[CS_K2_F + 2]);
  }
  for (int ib = d->nact_body - 1; ib >= 0; ib--) {
    planarInward(m, d, d->act_body[ib]);
  }
  for (int ib = 0; ib < d->nact_body; ib++) {
    planarOutward(m, d, d->act_body[ib], 0);
  }
  d->planar_rates = 1;
}


// ---------------------------------------------------------------------------------------------
// trees of pins and sliders frozen at one pose: the mass matrix and linear solves with it
//
// Every spatial quantity here is in Ground axes about one reference point O, so that the
// bodies' momenta and articulated inertias add without shifts. The mass matrix does not depend
// on O, but the arithmetic does: about a point far from the bodies the m |c|^2 terms of the
// inertias cancel in every pivot, so the caller picks O among the bodies (the integrator: the
// first body's origin; about Ground's origin a chain 1e6 m away failed to converge). A body of
// mass m with centre of mass c (from O) and central inertia I_c, both in Ground, has, for a
// spatial velocity (w, v_O) (v_O: the velocity of the body point at O), angular momentum about O
// A w + h x v_O and linear momentum m v_O - h x w, with h = m c and A = I_c - m [c]x[c]x (RBDA
// 2.62 in these axes). Its motion subspace column is (w, p x w + v) for the body-frame column
// (w, v) at the body origin p.

void cs_chainSnapshot(const csModel* m, const csData* d, const int* bodies, int nb, csVec3 origin,
                      csChainBody* out) {
  for (int k = 0; k < nb; k++) {
    int b = bodies[k];
    const csBody* body = &m->body[b];
    csChainBody* cb = &out[k];
    const csMat33* R = &d->body_pose[b].R;
    csMat33 IR = csu_mulMM(R, &body->inertia);
    csMat33 RT = csu_transpose(R);
    csMat33 Ic = csu_mulMM(&IR, &RT);
    csVec3 c = csu_sub(d->body_com[b], origin);
    double mb = body->mass;
    // A = I_c - m [c]x[c]x = I_c + m (|c|^2 I - c c^T)
    double cc = csu_dot(c, c);
    double cv[3] = {c.x, c.y, c.z};
    for (int i = 0; i < 3; i++) {
      for (int j = 0; j < 3; j++) {
        cb->A[3 * i + j] = Ic.m[i][j] + mb * ((i == j ? cc : 0.0) - cv[i] * cv[j]);
      }
      cb->h[i] = mb * cv[i];
    }
    cb->mass = mb;
    const double* Sb = d->aba_Sbody + 6 * body->uadr;
    csVec3 w = csu_mulMV(R, csu_vec3FromArray(Sb));
    csVec3 v = csu_add(csu_mulMV(R, csu_vec3FromArray(Sb + 3)),
                       csu_cross(csu_sub(d->body_pose[b].p, origin), w));
    csu_vec3ToArray(cb->s, w);
    csu_vec3ToArray(cb->s + 3, v);
  }
  // planar trees: the same in the plane's coordinates (the planar part of the momentum
  // (A w + h x v, m v - h x w) for w = omega n and v in the plane, with n x e1 = e2)
  int planar = 1;
  for (int k = 0; k < nb && planar; k++) {
    planar = d->aba_planar[bodies[k]] != 0;
  }
  for (int k = 0; k < nb; k++) {
    csChainBody* cb = &out[k];
    cb->planar = planar;
    if (!planar) {
      continue;
    }
    const double* pl = d->aba_plane + CS_PL_SIZE * bodies[k];
    csVec3 n = csu_vec3FromArray(pl + CS_PL_N);
    csVec3 e1 = csu_vec3FromArray(pl + CS_PL_E1);
    csVec3 e2 = csu_vec3FromArray(pl + CS_PL_E2);
    csVec3 An = csu_vec3(cb->A[0] * n.x + cb->A[1] * n.y + cb->A[2] * n.z,
                         cb->A[3] * n.x + cb->A[4] * n.y + cb->A[5] * n.z,
                         cb->A[6] * n.x + cb->A[7] * n.y + cb->A[8] * n.z);
    csVec3 h = csu_vec3FromArray(cb->h);
    double h1 = csu_dot(h, e1), h2 = csu_dot(h, e2);
    cb->Ip[0] = csu_dot(n, An);
    cb->Ip[1] = -h2;
    cb->Ip[2] = h1;
    cb->Ip[3] = cb->mass;
    cb->Ip[4] = 0;
    cb->Ip[5] = cb->mass;
    cb->sp[0] = csu_dot(csu_vec3FromArray(cb->s), n);
    cb->sp[1] = csu_dot(csu_vec3FromArray(cb->s + 3), e1);
    cb->sp[2] = csu_dot(csu_vec3FromArray(cb->s + 3), e2);
  }
}


// out = I v for a planar inertia's upper triangle I
static inline void planarMul(double* out, const double* I, const double* v) {
  out[0] = I[0] * v[0] + I[1] * v[1] + I[2] * v[2];
  out[1] = I[1] * v[0] + I[3] * v[1] + I[4] * v[2];
  out[2] = I[2] * v[0] + I[4] * v[1] + I[5] * v[2];
}


static inline double dot3(const double* a, const double* b) {
  return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}


// cs_chainMassTimes, cs_chainFactor and cs_chainSolve on planar trees (cs_chainSnapshot's sp
// and Ip): the same recursions with 3-vectors and 3x3 inertias (6 of IA's 36 entries per body
// and 3 of U's 6 are used)
static void planarMassTimes(const csChainBody* cb, const int* parent, int nb, const double* v,
                            double* out, double* scratch) {
  double* acc = scratch;
  double* F = scratch + 6 * nb;
  for (int k = 0; k < nb; k++) {
    double* a = acc + 6 * k;
    const double* ap = parent[k] >= 0 ? acc + 6 * parent[k] : NULL;
    for (int i = 0; i < 3; i++) {
      a[i] = (ap ? ap[i] : 0.0) + cb[k].sp[i] * v[k];
    }
    planarMul(F + 6 * k, cb[k].Ip, a);
  }
  for (int k = nb - 1; k >= 0; k--) {
    out[k] = dot3(cb[k].sp, F + 6 * k);
    if (parent[k] >= 0) {
      double* Fp = F + 6 * parent[k];
      for (int i = 0; i < 3; i++) {
        Fp[i] += F[6 * k + i];
      }
    }
  }
}


static int planarFactor(const csChainBody* cb, const int* parent, int nb, const double* armature,
                        double* IA, double* U, double* D) {
  for (int k = 0; k < nb; k++) {
    memcpy(IA + 36 * k, cb[k].Ip, 6 * sizeof(double));
  }
  for (int k = nb - 1; k >= 0; k--) {
    const double* I = IA + 36 * k;
    double* Uk = U + 6 * k;
    planarMul(Uk, I, cb[k].sp);
    D[k] = dot3(cb[k].sp, Uk) + armature[k];
    if (!(D[k] > 0) || !isfinite(D[k])) {
      return -1;
    }
    if (parent[k] >= 0) {
      double* Ip = IA + 36 * parent[k];
      double inv = 1.0 / D[k];
      for (int i = 0; i < 3; i++) {
        for (int j = i; j < 3; j++) {
          int e = g_sym3[i][j];
          Ip[e] += I[e] - Uk[i] * Uk[j] * inv;
        }
      }
    }
  }
  return 0;
}


static void planarSolve(const csChainBody* cb, const int* parent, int nb, const double* U,
                        const double* D, double* x, double* scratch) {
  double* pA = scratch;
  double* acc = scratch + 6 * nb;
  memset(pA, 0, sizeof(double) * 6 * (size_t)nb);
  for (int k = nb - 1; k >= 0; k--) {
    const double* p = pA + 6 * k;
    x[k] -= dot3(cb[k].sp, p);
    if (parent[k] >= 0) {
      double* pp = pA + 6 * parent[k];
      double f = x[k] / D[k];
      for (int i = 0; i < 3; i++) {
        pp[i] += p[i] + U[6 * k + i] * f;
      }
    }
  }
  for (int k = 0; k < nb; k++) {
    double* a = acc + 6 * k;
    const double* ap = parent[k] >= 0 ? acc + 6 * parent[k] : NULL;
    double xk = (x[k] - (ap ? dot3(U + 6 * k, ap) : 0.0)) / D[k];
    x[k] = xk;
    for (int i = 0; i < 3; i++) {
      a[i] = (ap ? ap[i] : 0.0) + cb[k].sp[i] * xk;
    }
  }
}


// the momentum (A w + h x v, m v - h x w) of a body of inertia (A, h, m) moving at (w, v)
static void chainMomentum(double* out, const double* A, const double* h, double mass,
                          const double* V) {
  const double* w = V;
  const double* v = V + 3;
  out[0] = A[0] * w[0] + A[1] * w[1] + A[2] * w[2] + h[1] * v[2] - h[2] * v[1];
  out[1] = A[3] * w[0] + A[4] * w[1] + A[5] * w[2] + h[2] * v[0] - h[0] * v[2];
  out[2] = A[6] * w[0] + A[7] * w[1] + A[8] * w[2] + h[0] * v[1] - h[1] * v[0];
  out[3] = mass * v[0] - (h[1] * w[2] - h[2] * w[1]);
  out[4] = mass * v[1] - (h[2] * w[0] - h[0] * w[2]);
  out[5] = mass * v[2] - (h[0] * w[1] - h[1] * w[0]);
}


static double dot6(const double* a, const double* b) {
  return a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3] + a[4] * b[4] + a[5] * b[5];
}


// M v by inverse dynamics at rest without gravity (RBDA 5.3): accelerations outward (a sum,
// about O), the bodies' momentum rates, and their sums inward projected on each column
void cs_chainMassTimes(const csChainBody* cb, const int* parent, int nb, const double* v,
                       double* out, double* scratch) {
  if (nb > 0 && cb[0].planar) {
    planarMassTimes(cb, parent, nb, v, out, scratch);
    return;
  }
  double* acc = scratch;          // (nb x 6)
  double* F = scratch + 6 * nb;   // (nb x 6)
  for (int k = 0; k < nb; k++) {
    double* a = acc + 6 * k;
    const double* ap = parent[k] >= 0 ? acc + 6 * parent[k] : NULL;
    for (int i = 0; i < 6; i++) {
      a[i] = (ap ? ap[i] : 0.0) + cb[k].s[i] * v[k];
    }
    chainMomentum(F + 6 * k, cb[k].A, cb[k].h, cb[k].mass, a);
  }
  for (int k = nb - 1; k >= 0; k--) {
    out[k] = dot6(cb[k].s, F + 6 * k);
    if (parent[k] >= 0) {
      double* Fp = F + 6 * parent[k];
      for (int i = 0; i < 6; i++) {
        Fp[i] += F[6 * k + i];
      }
    }
  }
}


// Articulated inertias of M + diag(armature) (RBDA 7.3 at rest; an armature adds to D as a
// rotor's inertia does): IA_k = I_k + sum over children c of (IA_c - U_c U_c^T / D_c),
// U = IA s, D = s . U + armature
int cs_chainFactor(const csChainBody* cb, const int* parent, int nb, const double* armature,
                   double* IA, double* U, double* D) {
  if (nb > 0 && cb[0].planar) {
    return planarFactor(cb, parent, nb, armature, IA, U, D);
  }
  // every body's own inertia as a full symmetric 6x6 (row-major)
  for (int k = 0; k < nb; k++) {
    double* I = IA + 36 * k;
    const double* A = cb[k].A;
    const double* h = cb[k].h;
    double mb = cb[k].mass;
    // [A, [h]x; -[h]x, m 1]
    const double hx[9] = {0, -h[2], h[1], h[2], 0, -h[0], -h[1], h[0], 0};
    for (int i = 0; i < 3; i++) {
      for (int j = 0; j < 3; j++) {
        I[6 * i + j] = A[3 * i + j];
        I[6 * i + j + 3] = hx[3 * i + j];
        I[6 * (i + 3) + j] = -hx[3 * i + j];
        I[6 * (i + 3) + j + 3] = i == j ? mb : 0.0;
      }
    }
  }
  for (int k = nb - 1; k >= 0; k--) {
    const double* I = IA + 36 * k;
    const double* s = cb[k].s;
    double* Uk = U + 6 * k;
    for (int i = 0; i < 6; i++) {
      Uk[i] = dot6(I + 6 * i, s);
    }
    D[k] = dot6(s, Uk) + armature[k];
    if (!(D[k] > 0) || !isfinite(D[k])) {
      return -1;
    }
    if (parent[k] >= 0) {
      double* Ip = IA + 36 * parent[k];
      double inv = 1.0 / D[k];
      for (int i = 0; i < 6; i++) {
        for (int j = 0; j < 6; j++) {
          Ip[6 * i + j] += I[6 * i + j] - Uk[i] * Uk[j] * inv;
        }
      }
    }
  }
  return 0;
}


// (M + diag(armature)) x = r with cs_chainFactor's U and D (RBDA 7.3 at rest: bias forces
// inward, accelerations outward)
void cs_chainSolve(const csChainBody* cb, const int* parent, int nb, const double* U,
                   const double* D, double* x, double* scratch) {
  if (nb > 0 && cb[0].planar) {
    planarSolve(cb, parent, nb, U, D, x, scratch);
    return;
  }
  double* pA = scratch;           // (nb x 6) articulated bias forces
  double* acc = scratch + 6 * nb; // (nb x 6)
  memset(pA, 0, sizeof(double) * 6 * (size_t)nb);
  for (int k = nb - 1; k >= 0; k--) {
    const double* p = pA + 6 * k;
    x[k] -= dot6(cb[k].s, p);   // x holds u_k = r_k - s . pA_k from here on
    if (parent[k] >= 0) {
      double* pp = pA + 6 * parent[k];
      double f = x[k] / D[k];
      for (int i = 0; i < 6; i++) {
        pp[i] += p[i] + U[6 * k + i] * f;
      }
    }
  }
  for (int k = 0; k < nb; k++) {
    double* a = acc + 6 * k;
    const double* ap = parent[k] >= 0 ? acc + 6 * parent[k] : NULL;
    double xk = (x[k] - (ap ? dot6(U + 6 * k, ap) : 0.0)) / D[k];
    x[k] = xk;
    for (int i = 0; i < 6; i++) {
      a[i] = (ap ? ap[i] : 0.0) + cb[k].s[i] * xk;
    }
  }
}
