// dynamics.c: the acceleration stage. The articulated-body algorithm (Featherstone, Rigid Body
// Dynamics Algorithms, table 7.1) in body coordinates about each body's origin: one outward pass
// (done by the velocity stage: velocities and velocity-product terms), one inward pass
// (articulated inertias and bias forces), one outward pass (accelerations). Cost is linear in the
// number of bodies.
//
// Spatial 6x6 matrices are row-major double[36]; spatial vectors are double[6] (angular, linear).
#include <string.h>

#include "contactsim/contactsim.h"
#include "engine/dynamics.h"


// Model-derived constants of the dynamics, computed once per data: which bodies take the
// free-leaf fast path, each body's inverse central inertia (for that path) and its spatial
// inertia about its origin (for the general path).
void cs_spatialInertias(const csModel* m, csData* d) {
  memset(d->aba_I0, 0, sizeof(double) * 36 * (size_t)m->nbody);
  memset(d->aba_Iinv, 0, sizeof(double) * 9 * (size_t)m->nbody);
  // free bodies hanging from ground with nothing hanging from them take the fast path
  for (int b = 0; b < m->nbody; b++) {
    d->aba_freeLeaf[b] = b > 0 && m->body[b].joint == CS_JOINT_FREE && m->body[b].parent == 0;
  }
  for (int b = 1; b < m->nbody; b++) {
    d->aba_freeLeaf[m->body[b].parent] = 0;
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
    double* I = d->aba_I0 + 36 * b;
    double mass = body->mass;
    csVec3 c = body->com;
    // spatial inertia about the origin (RBDA eq. 2.63):
    // [Ic - m cx cx, m cx; -m cx, m 1] with cx the cross-product matrix of the com
    double cx[3][3] = {{0, -c.z, c.y}, {c.z, 0, -c.x}, {-c.y, c.x, 0}};
    for (int i = 0; i < 3; i++) {
      for (int j = 0; j < 3; j++) {
        double cxcx = cx[i][0] * cx[0][j] + cx[i][1] * cx[1][j] + cx[i][2] * cx[2][j];
        I[6 * i + j] = body->inertia.m[i][j] - mass * cxcx;
        I[6 * i + 3 + j] = mass * cx[i][j];
        I[6 * (3 + i) + j] = -mass * cx[i][j];
        I[6 * (3 + i) + 3 + j] = (i == j) ? mass : 0;
      }
    }
  }
}


// out = A * v for a 6x6 matrix
static void mulMat6Vec(double* out, const double* A, const double* v) {
  for (int i = 0; i < 6; i++) {
    const double* a = A + 6 * i;
    out[i] = a[0] * v[0] + a[1] * v[1] + a[2] * v[2] + a[3] * v[3] + a[4] * v[4] + a[5] * v[5];
  }
}


// f_P = X^T f_B for a force: (E^T n + r x E^T f, E^T f)
static void forceToParent(double* out, const double* X, const double* f) {
  csVec3 n = csu_vec3(X[0] * f[0] + X[3] * f[1] + X[6] * f[2], X[1] * f[0] + X[4] * f[1] + X[7] * f[2],
                      X[2] * f[0] + X[5] * f[1] + X[8] * f[2]);
  csVec3 fl = csu_vec3(X[0] * f[3] + X[3] * f[4] + X[6] * f[5],
                       X[1] * f[3] + X[4] * f[4] + X[7] * f[5],
                       X[2] * f[3] + X[5] * f[4] + X[8] * f[5]);
  csVec3 r = csu_vec3FromArray(X + 9);
  csu_vec3ToArray(out, csu_add(n, csu_cross(r, fl)));
  csu_vec3ToArray(out + 3, fl);
}


// a_B = X a_P: (E w, E (v - r x w))
static void motionToChild(double* out, const double* X, const double* a) {
  csVec3 w = csu_vec3FromArray(a);
  csVec3 lin = csu_sub(csu_vec3FromArray(a + 3), csu_cross(csu_vec3FromArray(X + 9), w));
  for (int i = 0; i < 3; i++) {
    out[i] = X[3 * i] * w.x + X[3 * i + 1] * w.y + X[3 * i + 2] * w.z;
    out[3 + i] = X[3 * i] * lin.x + X[3 * i + 1] * lin.y + X[3 * i + 2] * lin.z;
  }
}


// IA_P += X^T Ia X, using the block form of X = [E 0; -E rx E]:
// with Ia = [A B; B^T C] (A, C symmetric) in body coordinates, and A' = E^T A E, B' = E^T B E,
// C' = E^T C E, the result about P's origin is
// [A' + rx B'^T - B' rx - rx C' rx,  B' + rx C';  B'^T - C' rx,  C'].
static void addInertiaToParent(double* IP, const double* X, const double* Ia) {
  double E[3][3], A[3][3], B[3][3], C[3][3];
  for (int i = 0; i < 3; i++) {
    for (int j = 0; j < 3; j++) {
      E[i][j] = X[3 * i + j];
      A[i][j] = Ia[6 * i + j];
      B[i][j] = Ia[6 * i + 3 + j];
      C[i][j] = Ia[6 * (3 + i) + 3 + j];
    }
  }
  // rotate: M' = E^T M E
  double Ap[3][3], Bp[3][3], Cp[3][3], T[3][3];
  double(*src[3])[3] = {A, B, C};
  double(*dst[3])[3] = {Ap, Bp, Cp};
  for (int s = 0; s < 3; s++) {
    for (int i = 0; i < 3; i++) {
      for (int j = 0; j < 3; j++) {
        T[i][j] = src[s][i][0] * E[0][j] + src[s][i][1] * E[1][j] + src[s][i][2] * E[2][j];
      }
    }
    for (int i = 0; i < 3; i++) {
      for (int j = 0; j < 3; j++) {
        dst[s][i][j] = E[0][i] * T[0][j] + E[1][i] * T[1][j] + E[2][i] * T[2][j];
      }
    }
  }
  // shift by r
  double r0 = X[9], r1 = X[10], r2 = X[11];
  double rx[3][3] = {{0, -r2, r1}, {r2, 0, -r0}, {-r1, r0, 0}};
  double rxC[3][3], Crx[3][3], rxBt[3][3], Brx[3][3];
  for (int i = 0; i < 3; i++) {
    for (int j = 0; j < 3; j++) {
      rxC[i][j] = rx[i][0] * Cp[0][j] + rx[i][1] * Cp[1][j] + rx[i][2] * Cp[2][j];
      Crx[i][j] = Cp[i][0] * rx[0][j] + Cp[i][1] * rx[1][j] + Cp[i][2] * rx[2][j];
      rxBt[i][j] = rx[i][0] * Bp[j][0] + rx[i][1] * Bp[j][1] + rx[i][2] * Bp[j][2];
      Brx[i][j] = Bp[i][0] * rx[0][j] + Bp[i][1] * rx[1][j] + Bp[i][2] * rx[2][j];
    }
  }
  for (int i = 0; i < 3; i++) {
    for (int j = 0; j < 3; j++) {
      double rxCrx = rxC[i][0] * rx[0][j] + rxC[i][1] * rx[1][j] + rxC[i][2] * rx[2][j];
      IP[6 * i + j] += Ap[i][j] + rxBt[i][j] - Brx[i][j] - rxCrx;
      IP[6 * i + 3 + j] += Bp[i][j] + rxC[i][j];
      IP[6 * (3 + i) + j] += Bp[j][i] - Crx[i][j];
      IP[6 * (3 + i) + 3 + j] += Cp[i][j];
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
  const double* inv = d->aba_Iinv + 9 * b;
  // force and moment about the COM, body coordinates
  csVec3 F_B = csu_mulMtV(R_GB, d->body_force[b].v);
  csVec3 n_B = csu_mulMtV(R_GB, d->body_force[b].w);
  csVec3 tau = csu_sub(n_B, csu_cross(body->com, F_B));
  csVec3 w = csu_vec3FromArray(d->aba_v + 6 * b);
  csVec3 Iw = csu_mulMV(&body->inertia, w);
  csVec3 rhs = csu_sub(tau, csu_cross(w, Iw));
  csVec3 alpha = csu_vec3(inv[0] * rhs.x + inv[1] * rhs.y + inv[2] * rhs.z,
                          inv[3] * rhs.x + inv[4] * rhs.y + inv[5] * rhs.z,
                          inv[6] * rhs.x + inv[7] * rhs.y + inv[8] * rhs.z);
  csVec3 acom = csu_scale(1.0 / body->mass, F_B);
  // acceleration of M's origin: a_com + alpha x r + w x (w x r), r from the COM to M's origin
  csVec3 r = csu_sub(body->X_BM.p, body->com);
  csVec3 aM = csu_add(acom, csu_add(csu_cross(alpha, r), csu_cross(w, csu_cross(w, r))));
  // into F: R_FB = R_FG R_GB with F fixed in Ground
  const csMat33* R_GF = &body->X_PF.R;
  csVec3 alpha_F = csu_mulMtV(R_GF, csu_mulMV(R_GB, alpha));
  csVec3 aM_F = csu_mulMtV(R_GF, csu_mulMV(R_GB, aM));
  double* udot = d->udot + body->uadr;
  csu_vec3ToArray(udot, alpha_F);
  csu_vec3ToArray(udot + 3, aM_F);
  // spatial acceleration at the body origin: (alpha, a_origin - w x v_origin)
  csVec3 aO = csu_add(acom, csu_add(csu_cross(alpha, csu_neg(body->com)),
                                    csu_cross(w, csu_cross(w, csu_neg(body->com)))));
  csVec3 vO = csu_vec3FromArray(d->aba_v + 6 * b + 3);
  d->body_acc[b].w = alpha;
  d->body_acc[b].v = csu_sub(aO, csu_cross(w, vO));
}


void cs_realizeAcceleration(const csModel* m, csData* d) {
  if (d->stage >= CS_STAGE_ACCELERATION) {
    return;
  }
  d->stat.nstage[3]++;
  cs_realizeDynamics(m, d);

  // 1. articulated inertias start as rigid ones; bias forces v x* I v - f_ext
  for (int ib = 0; ib < d->nact_body; ib++) {
    int b = d->act_body[ib];
    if (d->aba_freeLeaf[b]) {
      continue;
    }
    double* IA = d->aba_IA + 36 * b;
    double* pA = d->aba_pA + 6 * b;
    const double* v = d->aba_v + 6 * b;
    memcpy(IA, d->aba_I0 + 36 * b, 36 * sizeof(double));
    double h[6];
    mulMat6Vec(h, IA, v);
    // v x* h = (w x h_ang + v_lin x h_lin, w x h_lin)
    csVec3 w = csu_vec3FromArray(v), vl = csu_vec3FromArray(v + 3);
    csVec3 ha = csu_vec3FromArray(h), hl = csu_vec3FromArray(h + 3);
    csVec3 bias_n = csu_add(csu_cross(w, ha), csu_cross(vl, hl));
    csVec3 bias_f = csu_cross(w, hl);
    // external force, Ground -> body coordinates (both about the body origin)
    const csMat33* R_GB = &d->body_pose[b].R;
    csVec3 n_B = csu_mulMtV(R_GB, d->body_force[b].w);
    csVec3 f_B = csu_mulMtV(R_GB, d->body_force[b].v);
    csu_vec3ToArray(pA, csu_sub(bias_n, n_B));
    csu_vec3ToArray(pA + 3, csu_sub(bias_f, f_B));
  }

  // 2. inward pass (RBDA table 7.1): U = IA S, D = S^T U, u = tau - S^T pA; a body passes its
  // articulated inertia and bias force, reduced by what its mobilizer can absorb, to its parent
  for (int ib = d->nact_body - 1; ib >= 0; ib--) {
    int b = d->act_body[ib];
    if (d->aba_freeLeaf[b]) {
      continue;
    }
    const csBody* body = &m->body[b];
    int n = body->unum;
    double* IA = d->aba_IA + 36 * b;
    double* pA = d->aba_pA + 6 * b;
    const double* c = d->aba_c + 6 * b;
    const double* S = d->aba_S + 6 * body->uadr;
    double* U = d->aba_U + 6 * body->uadr;
    double* Dinv = d->aba_Dinv + 36 * b;
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
      continue;
    }
    // Ia = IA - U Dinv U^T, pa = pA + Ia c + U Dinv utau
    double Ia[36], pa[6];
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
    // both carried into the parent's coordinates and added to its articulated body
    const double* X = d->aba_X + 12 * b;
    addInertiaToParent(d->aba_IA + 36 * body->parent, X, Ia);
    double fp[6];
    forceToParent(fp, X, pa);
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
    const csBody* body = &m->body[b];
    int n = body->unum;
    // a' = X a_parent + c, udot = D^-1 (u - U^T a'), a = a' + S udot
    double a[6];
    motionToChild(a, d->aba_X + 12 * b, (const double*)&d->body_acc[body->parent]);
    const double* c = d->aba_c + 6 * b;
    for (int i = 0; i < 6; i++) {
      a[i] += c[i];
    }
    const double* S = d->aba_S + 6 * body->uadr;
    const double* U = d->aba_U + 6 * body->uadr;
    const double* Dinv = d->aba_Dinv + 36 * b;
    const double* utau = d->aba_utau + body->uadr;
    double rhs[6];
    for (int k = 0; k < n; k++) {
      double s = utau[k];
      for (int r = 0; r < 6; r++) {
        s -= U[6 * k + r] * a[r];
      }
      rhs[k] = s;
    }
    double* udot = d->udot + body->uadr;
    for (int k = 0; k < n; k++) {
      double s = 0;
      for (int j = 0; j < n; j++) {
        s += Dinv[6 * k + j] * rhs[j];
      }
      udot[k] = s;
    }
    for (int k = 0; k < n; k++) {
      for (int r = 0; r < 6; r++) {
        a[r] += S[6 * k + r] * udot[k];
      }
    }
    memcpy(&d->body_acc[b], a, 6 * sizeof(double));
  }
  d->stage = CS_STAGE_ACCELERATION;
}
