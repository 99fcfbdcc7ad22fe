// jacobian.c: the Jacobian of a free body's right-hand side from its force elements alone, for
// the linearly implicit integrator ark (ark.c).
//
// A free body hanging from ground with nothing hanging from it (a block, a ball, a foot) and
// frames that need no turning (F parallel to Ground, M = B) has the state q = (quaternion of
// R_GB, origin position), u = (w, v_O) in Ground, and the right-hand side
//   qdot = (1/2 (0, w) * q - s (|q|^2 - 1) q,  v_O),     udot = M^-1 (Q(q, u) - velocity products)
// with M the spatial inertia about the origin and Q the elements' spatial force (moment about
// the origin, force). What makes it stiff is Q: contact stiffness and damping, and the friction
// regularized in the slip speed. So L is formed from
//   - the rows of qdot exactly (they are linear in u and in q);
//   - M^-1 dQ/du and M^-1 dQ/dq, with dQ in the six directions of the body's spatial velocity
//     and of its pose (a turn about a Ground axis through the origin, a move along one) from
//     each element's bodyJacobian (the contact kinds' slopes, src/forces/util.c), or, for a
//     kind without one, by forward differences of those elements alone: each direction
//     perturbs the realized kinematics and they are applied again. A quaternion's column follows
//     from the turn its change makes, dtheta = 2 vec(dq * conj(q)) / |q|^2 (its component along
//     q turns nothing).
// Left out: the pose's effect on M^-1 and the velocity products (gyroscopic moment, the
// origin's centripetal acceleration), which vary as slowly as the motion itself. (Gravity's
// moment about the origin turns with the body exactly as M^-1 does, so that M^-1 Q_gravity =
// (0, g) in every pose: its bodyJacobian adds nothing, and leaving out both is exact.) ark's
// split f = [f - L (y - y_n)] + L (y - y_n) is exact for any L, so they stay in its explicit
// part, as the elements' own states do.
//
// A few evaluations of the contact laws replace thirteen whole evaluations (kinematics, every
// element, the body's dynamics).
#include <float.h>
#include <math.h>
#include <string.h>

#include "contactsim/contactsim.h"
#include "engine/jacobian.h"
#include "engine/kinematics.h"

int cs_freeJacobianUsable(const csModel* m, const csData* d, int b, const int* forces, int nf,
                          const int* planes, int np) {
  if (b <= 0 || b >= m->nbody || !d->aba_freeLeaf[b] || !d->aba_plainPF[b] ||
      !d->aba_plainMB[b]) {
    return 0;
  }
  // planes that move (with this body or another) would need their poses perturbed too; those
  // on ground or on bodies welded to it stand still
  for (int i = 0; i < np; i++) {
    if (!m->body[m->plane[planes[i]].body].fixed) {
      return 0;
    }
  }
  // elements whose forces depend on the state only through the bodies' poses and velocities
  // (what the quotients perturb), not on the coordinates themselves (stops, mobility springs
  // and dampers); a kind not listed here keeps the difference quotients of the whole
  // right-hand side
  for (int i = 0; i < nf; i++) {
    switch (m->force[forces[i]].kind) {
      case CS_FORCE_GRAVITY:
      case CS_FORCE_SPRING:
      case CS_FORCE_CONSTANT:
      case CS_FORCE_EXP_SPRING:
      case CS_FORCE_SMOOTH_SPHERE:
      case CS_FORCE_HUNT_CROSSLEY:
      case CS_FORCE_COMPLIANT_POINT:
      case CS_FORCE_LINEAR_BUSHING:
      case CS_FORCE_COUNTER:
        break;
      default:
        return 0;
    }
  }
  return 1;
}


// every active element that the quotients cover (those without a bodyJacobian, or all of them
// when `all`) applied at the data's kinematics; the spatial force on body b into Q (moment about
// the origin, then force; Ground)
static void elementForce(const csModel* m, csData* d, int b, int all, double* Q) {
  d->body_force[b].w = csu_vec3(0, 0, 0);
  d->body_force[b].v = csu_vec3(0, 0, 0);
  for (int i = 0; i < d->nact_force; i++) {
    int e = d->act_force[i];
    const csForceKind* k = cs_forceKind(m->force[e].kind);
    if (all || !k->bodyJacobian) {
      k->apply(m, d, e);
    }
  }
  csu_vec3ToArray(Q, d->body_force[b].w);
  csu_vec3ToArray(Q + 3, d->body_force[b].v);
}


void cs_bodyForceJacobian(const csModel* m, csData* d, int b, double scale, int quotients,
                          double* dQdX, double* dQdV) {
  memset(dQdX, 0, 36 * sizeof(double));
  memset(dQdV, 0, 36 * sizeof(double));
  int nquot = 0;
  for (int i = 0; i < d->nact_force; i++) {
    int e = d->act_force[i];
    const csForceKind* k = cs_forceKind(m->force[e].kind);
    if (!quotients && k->bodyJacobian) {
      k->bodyJacobian(m, d, e, b, dQdX, dQdV);
    } else {
      nquot++;
    }
  }
  if (nquot == 0) {
    return;
  }
  // the rest by forward differences: the body's velocity, then its pose, perturbed in each
  // direction and the elements applied again
  const csBody* body = &m->body[b];
  csTransform pose = d->body_pose[b];
  csVec3 com = d->body_com[b];
  csSpatialVec vel = d->body_vel[b];
  double Q0[6], Q[6];
  elementForce(m, d, b, quotients, Q0);
  for (int k = 0; k < 12; k++) {
    double inc;
    if (k < 6) {
      // a speed: w_k, then v_O,k
      double* v = (double*)&d->body_vel[b];
      double vk = v[k];
      inc = sqrt(DBL_EPSILON) * fmax(fabs(vk), scale);
      v[k] = vk + inc;
      inc = v[k] - vk;
    } else if (k < 9) {
      // a turn about Ground's axis k - 6 through the origin: R' = (1 + inc [e]x) R
      int a = k - 6;
      inc = sqrt(DBL_EPSILON) * fmax(1.0, scale);
      csVec3 e = csu_vec3(a == 0, a == 1, a == 2);
      csMat33* R = &d->body_pose[b].R;
      for (int j = 0; j < 3; j++) {
        csVec3 cj = csu_vec3(pose.R.m[0][j], pose.R.m[1][j], pose.R.m[2][j]);
        csVec3 nj = csu_addScaled(cj, inc, csu_cross(e, cj));
        R->m[0][j] = nj.x;
        R->m[1][j] = nj.y;
        R->m[2][j] = nj.z;
      }
      d->body_com[b] = csu_transformPoint(&d->body_pose[b], body->com);
    } else {
      // a move of the origin along Ground's axis k - 9
      int a = k - 9;
      double* p = (double*)&d->body_pose[b].p;
      double pk = p[a];
      inc = sqrt(DBL_EPSILON) * fmax(fabs(pk), scale);
      p[a] = pk + inc;
      inc = p[a] - pk;
      double* c = (double*)&d->body_com[b];
      c[a] = ((const double*)&com)[a] + inc;
    }
    elementForce(m, d, b, quotients, Q);
    d->body_pose[b] = pose;
    d->body_com[b] = com;
    d->body_vel[b] = vel;
    double* out = k < 6 ? dQdV : dQdX;
    int j = k < 6 ? k : k - 6;
    for (int i = 0; i < 6; i++) {
      double q = (Q[i] - Q0[i]) / inc;
      out[6 * i + j] += isfinite(q) ? q : 0;  // a failed quotient: that direction explicit
    }
  }
  // the elements wrote forces, energies and report values for perturbed states
  cs_invalidate(d);
}


struct csFreeSystem {
  int iq[7], iu[6];        // the layout of ark's block (jacobian.h)
  double hg;
  double Ai[16];           // (1 - hg L[quaternion, quaternion])^-1 (column-major)
  double X[12];            // Ai L[quaternion, w] (4 x 3)
  double Lq[24], Lt[18];   // L[u, quaternion] (6 x 4) and L[u, origin] (6 x 3)
  double Si[36];           // the speeds' system, inverted
};


csFreeSystem* cs_freeSystemNew(const int* iq, const int* iu) {
  csFreeSystem* fs = csu_malloc(sizeof(csFreeSystem));
  if (fs) {
    memset(fs, 0, sizeof(*fs));
    memcpy(fs->iq, iq, sizeof(fs->iq));
    memcpy(fs->iu, iu, sizeof(fs->iu));
  }
  return fs;
}


void cs_freeSystemDelete(csFreeSystem* fs) {
  csu_free(fs, sizeof(csFreeSystem));
}


// (alpha, a_O) = M^-1 (tau_O, F) for the rigid body at rest: a_com = F / m,
// alpha = Ic^-1 (tau_O - c x F) with Ic the central inertia in Ground, a_O = a_com + c x alpha
static void massSolve(const csModel* m, const csData* d, int b, const double* Q, double* out) {
  const csBody* body = &m->body[b];
  const csMat33* R = &d->body_pose[b].R;
  const double* inv = d->aba_Iinv + 9 * b;
  csVec3 c = csu_sub(d->body_com[b], d->body_pose[b].p);
  csVec3 F = csu_vec3FromArray(Q + 3);
  csVec3 tau_B = csu_mulMtV(R, csu_sub(csu_vec3FromArray(Q), csu_cross(c, F)));
  csVec3 alpha_B = csu_vec3(inv[0] * tau_B.x + inv[1] * tau_B.y + inv[2] * tau_B.z,
                            inv[3] * tau_B.x + inv[4] * tau_B.y + inv[5] * tau_B.z,
                            inv[6] * tau_B.x + inv[7] * tau_B.y + inv[8] * tau_B.z);
  csVec3 alpha = csu_mulMV(R, alpha_B);
  csVec3 a = csu_add(csu_scale(1.0 / body->mass, F), csu_cross(c, alpha));
  csu_vec3ToArray(out, alpha);
  csu_vec3ToArray(out + 3, a);
}


void cs_freeJacobian(const csModel* m, csData* d, int b, const csFreeSystem* fs, double scale,
                     double* L, int ni) {
  const int* iq = fs->iq;
  const int* iu = fs->iu;
  const csBody* body = &m->body[b];
  const double* q = d->q + body->qadr;
  const double* u = d->u + body->uadr;
  memset(L, 0, sizeof(double) * (size_t)ni * (size_t)ni);
#define LL(row, col) L[(size_t)(col) * (size_t)ni + (size_t)(row)]

  // the rows of qdot: 1/2 (0, w) * q - s (|q|^2 - 1) q and v_O
  double qq = q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3];
  const double wx = u[0], wy = u[1], wz = u[2];
  const double Lw[4][4] = {{0, -wx, -wy, -wz}, {wx, 0, -wz, wy}, {wy, wz, 0, -wx},
                           {wz, -wy, wx, 0}};
  for (int i = 0; i < 4; i++) {
    for (int j = 0; j < 4; j++) {
      LL(iq[i], iq[j]) =
          0.5 * Lw[i][j] - CS_QUAT_STABILIZATION * ((i == j) * (qq - 1) + 2 * q[i] * q[j]);
    }
  }
  // d/dw_k of 1/2 (0, w) * q: 1/2 (0, e_k) * q = 1/2 (-e_k . v, s e_k + e_k x v), q = (s, v)
  const double Eq[4][3] = {{-q[1], -q[2], -q[3]},
                           {q[0], q[3], -q[2]},
                           {-q[3], q[0], q[1]},
                           {q[2], -q[1], q[0]}};
  for (int i = 0; i < 4; i++) {
    for (int k = 0; k < 3; k++) {
      LL(iq[i], iu[k]) = 0.5 * Eq[i][k];
    }
  }
  for (int k = 0; k < 3; k++) {
    LL(iq[4 + k], iu[3 + k]) = 1;
  }

  // the elements' derivatives, each column through M^-1
  double dQdX[36], dQdV[36], Q[6], col[6];
  cs_bodyForceJacobian(m, d, b, scale, 0, dQdX, dQdV);
  double dtheta[3][6];  // M^-1 dQ / dtheta_k, the body turned about Ground's axis k
  for (int k = 0; k < 12; k++) {
    const double* dQ = k < 6 ? dQdV : dQdX;
    int j = k < 6 ? k : k - 6;
    for (int i = 0; i < 6; i++) {
      Q[i] = dQ[6 * i + j];
    }
    massSolve(m, d, b, Q, col);
    int finite = 1;
    for (int i = 0; i < 6; i++) {
      finite = finite && isfinite(col[i]);
    }
    if (!finite) {
      memset(col, 0, sizeof(col));  // that direction integrated explicitly, as ark does
    }
    if (k < 6) {
      for (int i = 0; i < 6; i++) {
        LL(iu[i], iu[k]) = col[i];
      }
    } else if (k < 9) {
      memcpy(dtheta[k - 6], col, sizeof(col));
    } else {
      for (int i = 0; i < 6; i++) {
        LL(iu[i], iq[4 + k - 9]) = col[i];
      }
    }
  }
  // a quaternion's columns through the turn its change makes:
  // dtheta = (2 / |q|^2) (-v ds + s dv + v x dv) for dq = (ds, dv), q = (s, v)
  const double G[3][4] = {{-q[1], q[0], -q[3], q[2]},
                          {-q[2], q[3], q[0], -q[1]},
                          {-q[3], -q[2], q[1], q[0]}};
  double g = qq > 0 ? 2.0 / qq : 0;
  for (int j = 0; j < 4; j++) {
    for (int i = 0; i < 6; i++) {
      LL(iu[i], iq[j]) =
          g * (dtheta[0][i] * G[0][j] + dtheta[1][i] * G[1][j] + dtheta[2][i] * G[2][j]);
    }
  }
#undef LL
}


// a (n x n, column-major, n <= 6) inverted in place by Gauss-Jordan elimination with partial
// pivoting; -1 when singular. The systems here are a handful of unknowns solved several times
// per factorization, where a product with the inverse costs less than the two triangular solves.
static int invertSmall(double* a, int n) {
  int perm[6];
  for (int k = 0; k < n; k++) {
    // the pivot: the largest entry of column k on or below the diagonal
    int p = k;
    for (int i = k + 1; i < n; i++) {
      p = fabs(a[n * k + i]) > fabs(a[n * k + p]) ? i : p;
    }
    perm[k] = p;
    if (!(a[n * k + p] != 0) || !isfinite(a[n * k + p])) {
      return -1;
    }
    if (p != k) {
      for (int j = 0; j < n; j++) {
        double t = a[n * j + k];
        a[n * j + k] = a[n * j + p];
        a[n * j + p] = t;
      }
    }
    // row k scaled to a unit pivot, then removed from every other row; column k of the
    // inverse takes the place of column k of a
    double inv = 1.0 / a[n * k + k];
    a[n * k + k] = 1;
    for (int j = 0; j < n; j++) {
      a[n * j + k] *= inv;
    }
    for (int i = 0; i < n; i++) {
      if (i == k) {
        continue;
      }
      double f = a[n * k + i];
      a[n * k + i] = 0;
      for (int j = 0; j < n; j++) {
        a[n * j + i] -= f * a[n * j + k];
      }
    }
  }
  // the row swaps undone on the inverse's columns, last first
  for (int k = n - 1; k >= 0; k--) {
    if (perm[k] != k) {
      for (int i = 0; i < n; i++) {
        double t = a[n * k + i];
        a[n * k + i] = a[n * perm[k] + i];
        a[n * perm[k] + i] = t;
      }
    }
  }
  return 0;
}


// With A = 1 - hg L[Q,Q] (Q the quaternion, T the origin, W and V the angular and linear
// speeds, U both), the rows of Q and T read
//   x_Q = A^-1 (r_Q + hg L[Q,W] x_W),   x_T = r_T + hg x_V,
// and put into the speeds' rows
//   S x_U = r_U + hg (L[U,Q] A^-1 r_Q + L[U,T] r_T),
//   S = 1 - hg L[U,U] - hg^2 [L[U,Q] A^-1 L[Q,W] | L[U,T]]   (the W and V columns)
int cs_freeFactor(csFreeSystem* fs, const double* L, int ni, double hg) {
#define LL(row, col) L[(size_t)(col) * (size_t)ni + (size_t)(row)]
  const int* iq = fs->iq;
  const int* iu = fs->iu;
  fs->hg = hg;
  for (int j = 0; j < 4; j++) {
    for (int i = 0; i < 4; i++) {
      fs->Ai[4 * j + i] = (i == j) - hg * LL(iq[i], iq[j]);
    }
  }
  if (invertSmall(fs->Ai, 4) != 0) {
    return -1;
  }
  for (int k = 0; k < 3; k++) {
    for (int i = 0; i < 4; i++) {
      double c = 0;
      for (int j = 0; j < 4; j++) {
        c += fs->Ai[4 * j + i] * LL(iq[j], iu[k]);
      }
      fs->X[4 * k + i] = c;
    }
  }
  for (int i = 0; i < 6; i++) {
    for (int j = 0; j < 4; j++) {
      fs->Lq[6 * j + i] = LL(iu[i], iq[j]);
    }
    for (int j = 0; j < 3; j++) {
      fs->Lt[6 * j + i] = LL(iu[i], iq[4 + j]);
    }
  }
  double hg2 = hg * hg;
  for (int j = 0; j < 6; j++) {
    for (int i = 0; i < 6; i++) {
      double c = 0;
      if (j < 3) {
        for (int k = 0; k < 4; k++) {
          c += fs->Lq[6 * k + i] * fs->X[4 * j + k];
        }
      } else {
        c = fs->Lt[6 * (j - 3) + i];
      }
      fs->Si[6 * j + i] = (i == j) - hg * LL(iu[i], iu[j]) - hg2 * c;
    }
  }
#undef LL
  return invertSmall(fs->Si, 6);
}


void cs_freeSolve(const csFreeSystem* fs, double* x) {
  const int* iq = fs->iq;
  const int* iu = fs->iu;
  double hg = fs->hg;
  double rq[4], t[4], r[6], xu[6];
  for (int i = 0; i < 4; i++) {
    rq[i] = x[iq[i]];
  }
  for (int i = 0; i < 4; i++) {
    t[i] = fs->Ai[i] * rq[0] + fs->Ai[4 + i] * rq[1] + fs->Ai[8 + i] * rq[2] +
           fs->Ai[12 + i] * rq[3];
  }
  for (int i = 0; i < 6; i++) {
    double c = 0;
    for (int k = 0; k < 4; k++) {
      c += fs->Lq[6 * k + i] * t[k];
    }
    for (int k = 0; k < 3; k++) {
      c += fs->Lt[6 * k + i] * x[iq[4 + k]];
    }
    r[i] = x[iu[i]] + hg * c;
  }
  for (int i = 0; i < 6; i++) {
    double c = 0;
    for (int k = 0; k < 6; k++) {
      c += fs->Si[6 * k + i] * r[k];
    }
    xu[i] = c;
    x[iu[i]] = c;
  }
  for (int i = 0; i < 4; i++) {
    x[iq[i]] = t[i] + hg * (fs->X[i] * xu[0] + fs->X[4 + i] * xu[1] + fs->X[8 + i] * xu[2]);
  }
  for (int k = 0; k < 3; k++) {
    x[iq[4 + k]] += hg * xu[3 + k];
  }
}
