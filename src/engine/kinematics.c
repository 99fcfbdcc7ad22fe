// kinematics.c: the position and velocity stages. Poses and velocities of bodies and planes in
// Ground, the mobilizers' motion subspaces in body coordinates and qdot.
//
// Each body B hangs from its parent P through a mobilizer: frame F fixed on P, frame M fixed on
// B, and X_FM(q). The body's pose is X_GB = X_GP * X_PF * X_FM(q) * X_MB.
//
// Velocities serve two readers with one representation: force elements want the angular
// velocity and the velocity of the body origin in Ground, and the articulated-body algorithm
// works with spatial vectors in Ground's axes about each body's origin (v_B = the parent's
// velocity carried to B's origin + S u, with S the mobilizer's motion subspace, RBDA eq. 4.1),
// which is the same pair of vectors. They come out of one pass from the root outward.
#include <string.h>

#include "contactsim/contactsim.h"
#include "engine/dynamics.h"
#include "engine/kinematics.h"

// X_FM(q) of a mobilizer: the rotation about z (pin), translation along x (slider), the
// quaternion's rotation (ball), or rotation and translation (free). Quaternions are normalised
// here rather than in the state so that the state's norm error stays visible to the projection.
static csTransform jointTransform(csJointType type, const double* q) {
  csTransform X = csu_transformIdentity();
  switch (type) {
    case CS_JOINT_WELD:
      break;
    case CS_JOINT_PIN: {
      double c = cos(q[0]), s = sin(q[0]);
      csMat33 R = {{{c, -s, 0}, {s, c, 0}, {0, 0, 1}}};
      X.R = R;
      break;
    }
    case CS_JOINT_SLIDER:
      X.p = csu_vec3(q[0], 0, 0);
      break;
    case CS_JOINT_BALL:
      X.R = csu_quatToMat(csu_quatNormalize(csu_quat(q[0], q[1], q[2], q[3])));
      break;
    case CS_JOINT_FREE:
      X.R = csu_quatToMat(csu_quatNormalize(csu_quat(q[0], q[1], q[2], q[3])));
      X.p = csu_vec3(q[4], q[5], q[6]);
      break;
    default:
      break;
  }
  return X;
}


// The stage marker: every realize call returns at once when its stage is already done for the
// current state; anything that writes the state must call this.
void cs_invalidate(csData* d) {
  d->stage = CS_STAGE_NONE;
  d->planar_rates = 0;
}


void cs_realizePosition(const csModel* m, csData* d) {
  if (d->stage >= CS_STAGE_POSITION) {
    return;
  }
  d->stat.nstage[0]++;
  // ground is the fixed root
  d->body_pose[0] = csu_transformIdentity();
  d->joint_XFM[0] = csu_transformIdentity();
  d->body_com[0] = csu_vec3(0, 0, 0);
  for (int ib = 0; ib < d->nact_body; ib++) {
    int b = d->act_body[ib];
    const csBody* body = &m->body[b];
    if (body->joint == CS_JOINT_PIN && d->aba_plainMB[b] && d->aba_plainPF[b]) {
      // the common link of a chain: F parallel to the parent frame and B = M, so
      // R_GB = R_GP Rz(q) mixes only the first two columns of R_GP, and p_GB = p_GP + R_GP p_PF
      // (the same operations, in the same order, as the general path below with its identity
      // factors)
      double c = cos(d->q[body->qadr]), s = sin(d->q[body->qadr]);
      const csTransform* XP = &d->body_pose[body->parent];
      csTransform* XB = &d->body_pose[b];
      for (int i = 0; i < 3; i++) {
        XB->R.m[i][0] = c * XP->R.m[i][0] + s * XP->R.m[i][1];
        XB->R.m[i][1] = c * XP->R.m[i][1] - s * XP->R.m[i][0];
        XB->R.m[i][2] = XP->R.m[i][2];
      }
      XB->p = csu_add(XP->p, csu_mulMV(&XP->R, body->X_PF.p));
      csTransform XFM = csu_transformIdentity();
      XFM.R.m[0][0] = c;
      XFM.R.m[0][1] = -s;
      XFM.R.m[1][0] = s;
      XFM.R.m[1][1] = c;
      d->joint_XFM[b] = XFM;
      d->body_com[b] = csu_transformPoint(XB, body->com);
      continue;
    }
    // pose relative to the parent, then in Ground (parents come first in the list)
    // X_PB = X_PF * X_FM * X_MB
    csTransform XFM = jointTransform(body->joint, d->q + body->qadr);
    csTransform XPM;
    if (body->joint == CS_JOINT_PIN) {
      // R_PF Rz(q): only the first two columns of R_PF mix
      double c = XFM.R.m[0][0], s = XFM.R.m[1][0];
      const csMat33* F = &body->X_PF.R;
      for (int i = 0; i < 3; i++) {
        XPM.R.m[i][0] = c * F->m[i][0] + s * F->m[i][1];
        XPM.R.m[i][1] = c * F->m[i][1] - s * F->m[i][0];
        XPM.R.m[i][2] = F->m[i][2];
      }
      XPM.p = body->X_PF.p;
    } else {
      XPM = csu_transformMul(&body->X_PF, &XFM);
    }
    csTransform XPB = d->aba_plainMB[b] ? XPM : csu_transformMul(&XPM, &body->X_MB);
    d->joint_XFM[b] = XFM;
    // Ground's pose is the identity: a body hanging from it has X_GB = X_PB (a free body on
    // the floor, every block of a pile)
    d->body_pose[b] =
        body->parent == 0 ? XPB : csu_transformMul(&d->body_pose[body->parent], &XPB);
    d->body_com[b] = csu_transformPoint(&d->body_pose[b], body->com);
  }
  // planes ride on their bodies (those on Ground stand where the model puts them)
  for (int i = 0; i < d->nact_plane; i++) {
    int p = d->act_plane[i];
    int pb = m->plane[p].body;
    d->plane_pose[p] = pb == 0 ? m->plane[p].X_BP
                               : csu_transformMul(&d->body_pose[pb], &m->plane[p].X_BP);
  }
  d->stage = CS_STAGE_POSITION;
}


// spatial motion vector helpers on double[6] = (angular, linear)

// the spatial cross product of two motion vectors (Featherstone, RBDA eq. 2.31)
static void motionCross(double* out, const double* v, const double* mv) {
  // v x mv = (w x mw, w x mv_lin + v_lin x mw)
  csVec3 w = csu_vec3FromArray(v), vl = csu_vec3FromArray(v + 3);
  csVec3 mw = csu_vec3FromArray(mv), ml = csu_vec3FromArray(mv + 3);
  csu_vec3ToArray(out, csu_cross(w, mw));
  csu_vec3ToArray(out + 3, csu_add(csu_cross(w, ml), csu_cross(vl, mw)));
}


// shift a motion vector given in M coordinates at M's origin to B coordinates at B's origin;
// M is fixed on B, so this is a constant change of frame and reference point
static void motionMtoB(double* out, const csTransform* X_BM, const csTransform* X_MB, csVec3 w_M,
                       csVec3 v_M) {
  csVec3 vB = csu_add(v_M, csu_cross(w_M, X_MB->p));
  csu_vec3ToArray(out, csu_mulMV(&X_BM->R, w_M));
  csu_vec3ToArray(out + 3, csu_mulMV(&X_BM->R, vB));
}


void cs_realizeVelocity(const csModel* m, csData* d) {
  if (d->stage >= CS_STAGE_VELOCITY) {
    return;
  }
  d->stat.nstage[1]++;
  cs_realizePosition(m, d);
  // ground does not move
  memset(d->aba_c, 0, 6 * sizeof(double));
  memset(&d->body_vel[0], 0, sizeof(csSpatialVec));
  for (int ib = 0; ib < d->nact_body; ib++) {
    int b = d->act_body[ib];
    const csBody* body = &m->body[b];
    const double* q = d->q + body->qadr;
    const double* u = d->u + body->uadr;
    double* qdot = d->qdot + body->qadr;
    double* S = d->aba_S + 6 * body->uadr;
    const csTransform* XMB = &body->X_MB;
    const csMat33* R_FM = &d->joint_XFM[b].R;
    csVec3 cM_w = csu_vec3(0, 0, 0), cM_v = csu_vec3(0, 0, 0);  // Sdot*u in M at M's origin

    // A free body on ground with nothing hanging from it takes the articulated-body
    // algorithm's fast path (dynamics.c), which needs neither S nor c: its velocity follows
    // from u directly (w and the velocity of M's origin, both in F, F fixed in Ground).
    if (d->aba_freeLeaf[b]) {
      csVec3 w_F = csu_vec3FromArray(u);
      csQuat qq = csu_quat(q[0], q[1], q[2], q[3]);
      csQuat dq = csu_quatMul(csu_quat(0, w_F.x, w_F.y, w_F.z), qq);
      double pull = CS_QUAT_STABILIZATION * (qq.w * qq.w + qq.x * qq.x + qq.y * qq.y +
                                             qq.z * qq.z - 1.0);
      qdot[0] = 0.5 * dq.w - pull * qq.w;
      qdot[1] = 0.5 * dq.x - pull * qq.x;
      qdot[2] = 0.5 * dq.y - pull * qq.y;
      qdot[3] = 0.5 * dq.z - pull * qq.z;
      qdot[4] = u[3];
      qdot[5] = u[4];
      qdot[6] = u[5];
      const csMat33* R_GF = &body->X_PF.R;
      csVec3 w = csu_mulMV(R_GF, w_F);
      csVec3 vM = csu_mulMV(R_GF, csu_vec3FromArray(u + 3));
      // B's origin is X_MB.p from M's origin, turned into Ground by R_GM = R_GB R_BM
      csVec3 rMB = csu_mulMV(&d->body_pose[b].R, csu_mulMV(&body->X_BM.R, XMB->p));
      d->body_vel[b].w = w;
      d->body_vel[b].v = csu_add(vM, csu_cross(w, rMB));
      continue;
    }

    const double* Sb = d->aba_Sbody + 6 * body->uadr;
    if (body->joint == CS_JOINT_PIN && Sb[3] == 0 && Sb[4] == 0 && Sb[5] == 0) {
      // a pin whose axis passes through the body origin: S = (s, 0) with s the axis in Ground,
      // and every product with the zero half is left out (the general path below computes the
      // same numbers with those zeros). A link of a planar tree has its axis along the plane's
      // normal, and its S and c are the planar path's own (dynamics.c).
      const double* pl = d->aba_plane + CS_PL_SIZE * b;
      csVec3 s = d->aba_planar[b]
                     ? csu_scale(pl[CS_PL_SIGMA], csu_vec3FromArray(pl + CS_PL_N))
                     : csu_mulMV(&d->body_pose[b].R, csu_vec3FromArray(Sb));
      qdot[0] = u[0];
      csVec3 vJ = csu_scale(u[0], s);
      const csSpatialVec* VP = &d->body_vel[body->parent];
      csVec3 r = csu_sub(d->body_pose[b].p, d->body_pose[body->parent].p);
      csVec3 w = csu_add(VP->w, vJ);
      csVec3 vo = csu_add(VP->v, csu_cross(VP->w, r));
      d->body_vel[b].w = w;
      d->body_vel[b].v = vo;
      if (d->aba_planar[b]) {
        continue;
      }
      csu_vec3ToArray(S, s);
      S[3] = S[4] = S[5] = 0;
      // c = v x vJ = (w x vJ, vo x vJ)
      double* c = d->aba_c + 6 * b;
      csu_vec3ToArray(c, csu_cross(w, vJ));
      csu_vec3ToArray(c + 3, csu_cross(vo, vJ));
      continue;
    }

    // Motion subspace columns (first in B at B's origin) and qdot, per mobilizer. The
    // velocity-product term c = Sdot u + v x vJ (RBDA table 7.1) needs Sdot u, the rate of the
    // columns themselves as seen in B: zero for pin and slider (fixed axes) and ball
    // (w x w = 0); for the free mobilizer, whose linear speeds are along F's axes while M turns,
    // it is (0, -w_M x v_M).
    switch (body->joint) {
      case CS_JOINT_WELD:
        break;
      case CS_JOINT_PIN:
      case CS_JOINT_SLIDER:
        // rotation about, or translation along, the common z (pin) or x (slider) axis: the
        // column in B is constant (src/engine/dynamics.c, cs_spatialInertias)
        memcpy(S, d->aba_Sbody + 6 * body->uadr, 6 * sizeof(double));
        qdot[0] = u[0];
        break;
      case CS_JOINT_BALL:
      case CS_JOINT_FREE: {
        // u = w_FM in F (then v_FM in F): columns are F's axes seen from M
        for (int k = 0; k < 3; k++) {
          csVec3 axis_M = csu_vec3(R_FM->m[k][0], R_FM->m[k][1], R_FM->m[k][2]);
          motionMtoB(S + 6 * k, &body->X_BM, XMB, axis_M, csu_vec3(0, 0, 0));
          if (body->joint == CS_JOINT_FREE) {
            motionMtoB(S + 6 * (k + 3), &body->X_BM, XMB, csu_vec3(0, 0, 0), axis_M);
          }
        }
        // quaternion rate qdot = 1/2 (0, w_F) * q, plus a pull toward unit length
        csVec3 w_F = csu_vec3FromArray(u);
        csQuat qq = csu_quat(q[0], q[1], q[2], q[3]);
        csQuat dq = csu_quatMul(csu_quat(0, w_F.x, w_F.y, w_F.z), qq);
        double pull = CS_QUAT_STABILIZATION * (qq.w * qq.w + qq.x * qq.x + qq.y * qq.y +
                                               qq.z * qq.z - 1.0);
        qdot[0] = 0.5 * dq.w - pull * qq.w;
        qdot[1] = 0.5 * dq.x - pull * qq.x;
        qdot[2] = 0.5 * dq.y - pull * qq.y;
        qdot[3] = 0.5 * dq.z - pull * qq.z;
        if (body->joint == CS_JOINT_FREE) {
          qdot[4] = u[3];
          qdot[5] = u[4];
          qdot[6] = u[5];
          // the M-fixed basis turns under u, so Sdot*u = (0, -w_M x v_M)
          csVec3 w_M = csu_mulMtV(R_FM, w_F);
          csVec3 v_M = csu_mulMtV(R_FM, csu_vec3FromArray(u + 3));
          cM_v = csu_neg(csu_cross(w_M, v_M));
        }
        break;
      }
      default:
        break;
    }

    // the articulated-body algorithm works in Ground's axes about each body's origin
    // (src/engine/dynamics.c): turn the columns into Ground, and sum vJ = S u
    const csMat33* R_GB = &d->body_pose[b].R;
    double vJ[6] = {0, 0, 0, 0, 0, 0};
    for (int k = 0; k < body->unum; k++) {
      double* col = S + 6 * k;
      csVec3 sw = csu_mulMV(R_GB, csu_vec3FromArray(col));
      csVec3 sv = csu_mulMV(R_GB, csu_vec3FromArray(col + 3));
      csu_vec3ToArray(col, sw);
      csu_vec3ToArray(col + 3, sv);
      for (int i = 0; i < 6; i++) {
        vJ[i] += col[i] * u[k];
      }
    }

    // body velocity: the parent's carried to this origin, plus the mobilizer's (RBDA eq. 4.1):
    // angular velocity and velocity of the body origin, both in Ground
    const csSpatialVec* VP = &d->body_vel[body->parent];
    csVec3 r = csu_sub(d->body_pose[b].p, d->body_pose[body->parent].p);
    csVec3 w = csu_add(VP->w, csu_vec3FromArray(vJ));
    csVec3 vo = csu_add(csu_add(VP->v, csu_cross(VP->w, r)), csu_vec3FromArray(vJ + 3));
    d->body_vel[b].w = w;
    d->body_vel[b].v = vo;

    // velocity-product acceleration c = Sdot u + v x vJ
    double* c = d->aba_c + 6 * b;
    if (body->joint == CS_JOINT_FREE) {
      double cB[6];
      motionMtoB(cB, &body->X_BM, XMB, cM_w, cM_v);
      csu_vec3ToArray(c, csu_mulMV(R_GB, csu_vec3FromArray(cB)));
      csu_vec3ToArray(c + 3, csu_mulMV(R_GB, csu_vec3FromArray(cB + 3)));
    } else {
      memset(c, 0, 6 * sizeof(double));
    }
    double v[6] = {w.x, w.y, w.z, vo.x, vo.y, vo.z};
    double vxvJ[6];
    motionCross(vxvJ, v, vJ);
    for (int i = 0; i < 6; i++) {
      c[i] += vxvJ[i];
    }
  }
  d->stage = CS_STAGE_VELOCITY;
}


// The planar right-hand side's kinematics (engine/dynamics.h, CS_K2_*), parents first: a link turns
// by theta = theta_P + sigma q; F's origin turns with the parent and the body origin about M's
// (F's) origin with the link, and with n x (x, y) = (-y, x) in the plane, v_M = v_P + w_P x (M - P)
// and v_B = v_M + w x (B - M). Also what the planar articulated-body algorithm takes from the
// velocity stage on the general path (dynamics.c, planarStart): S = sigma (1, n x (B - M)), c = v x
// S u and the offset from the parent; and qdot = u.
void cs_planarKinematics(const csModel* m, csData* d) {
  for (int ib = 0; ib < d->nact_body; ib++) {
    int b = d->act_body[ib];
    const csBody* body = &m->body[b];
    const double* kp = d->aba_k2 + CS_K2_SIZE * body->parent;
    double* k = d->aba_k2 + CS_K2_SIZE * b;
    double sigma = d->aba_plane[CS_PL_SIZE * b + CS_PL_SIGMA];
    double u = d->u[body->uadr];
    double th = kp[CS_K2_TH] + sigma * d->q[body->qadr];
    double c = cos(th), s = sin(th);
    double cp = kp[CS_K2_COS], sp = kp[CS_K2_SIN];
    double fx = cp * k[CS_K2_PF] - sp * k[CS_K2_PF + 1];
    double fy = sp * k[CS_K2_PF] + cp * k[CS_K2_PF + 1];
    double dx = c * k[CS_K2_MB] - s * k[CS_K2_MB + 1];
    double dy = s * k[CS_K2_MB] + c * k[CS_K2_MB + 1];
    double wp = kp[CS_K2_W], w = wp + sigma * u;
    double vx = kp[CS_K2_V] - wp * fy - w * dy;
    double vy = kp[CS_K2_V + 1] + wp * fx + w * dx;
    k[CS_K2_TH] = th;
    k[CS_K2_COS] = c;
    k[CS_K2_SIN] = s;
    k[CS_K2_O] = kp[CS_K2_O] + (fx + dx);
    k[CS_K2_O + 1] = kp[CS_K2_O + 1] + (fy + dy);
    k[CS_K2_W] = w;
    k[CS_K2_V] = vx;
    k[CS_K2_V + 1] = vy;
    k[CS_K2_C] = c * k[CS_K2_COM] - s * k[CS_K2_COM + 1];
    k[CS_K2_C + 1] = s * k[CS_K2_COM] + c * k[CS_K2_COM + 1];
    double* S = d->aba_S + 6 * body->uadr;
    S[0] = sigma;
    S[1] = -sigma * dy;
    S[2] = sigma * dx;
    cs_planarVelocityProduct(d->aba_c + 6 * b, S, u, w, vx, vy);
    d->aba_r2[2 * b] = fx + dx;
    d->aba_r2[2 * b + 1] = fy + dy;
    d->qdot[body->qadr] = u;
  }
}


// Helpers for force elements: where a station is, and how fast a body-fixed point moves (the
// code is in engine/kinematics.h, inline for the library's own force kinds).

csVec3 cs_stationPosition(const csModel* m, const csData* d, int body, csVec3 station_B) {
  return csu_stationPosition(m, d, body, station_B);
}


csVec3 cs_pointVelocity(const csModel* m, const csData* d, int body, csVec3 point_G) {
  return csu_pointVelocity(m, d, body, point_G);
}


// KE = sum over bodies of (m |v_com|^2 + w . Ic w) / 2, w in body coordinates
double cs_kineticEnergy(const csModel* m, const csData* d) {
  double ke = 0;
  for (int b = 1; b < m->nbody; b++) {
    const csBody* body = &m->body[b];
    csVec3 w_B = csu_mulMtV(&d->body_pose[b].R, d->body_vel[b].w);
    csVec3 vcom = csu_pointVelocity(m, d, b, d->body_com[b]);
    ke += 0.5 * (body->mass * csu_dot(vcom, vcom) + csu_dot(w_B, csu_mulMV(&body->inertia, w_B)));
  }
  return ke;
}


// H_O = sum over bodies of (R I_c R^T w + m c x v_c), each about its COM, moved to the origin
csVec3 cs_angularMomentum(const csModel* m, const csData* d) {
  csVec3 h = csu_vec3(0, 0, 0);
  for (int b = 1; b < m->nbody; b++) {
    const csBody* body = &m->body[b];
    const csMat33* R = &d->body_pose[b].R;
    csVec3 w_B = csu_mulMtV(R, d->body_vel[b].w);
    csVec3 spin = csu_mulMV(R, csu_mulMV(&body->inertia, w_B));
    csVec3 vcom = csu_pointVelocity(m, d, b, d->body_com[b]);
    h = csu_add(h, csu_add(spin, csu_scale(body->mass, csu_cross(d->body_com[b], vcom))));
  }
  return h;
}
