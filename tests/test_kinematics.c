// test_kinematics.c: the position, velocity and acceleration stages against independent
// answers: velocities against finite differences of poses, accelerations of a free body against
// the Newton-Euler equations written out in Ground.
#include <string.h>

#include "helpers.h"


static csTransform frame(double x, double y, double z, double ax, double ay, double az, double ang) {
  return csu_transformFromPosQuat(csu_vec3(x, y, z),
                                  csu_quatFromAxisAngle(csu_vec3(ax, ay, az), ang));
}


// a tree with every joint type and frames that are neither identity nor aligned
static csModel* mixedTree(void) {
  csModel* m = cs_newModel("tree");
  csMat33 I = csu_inertiaBox(1, csu_vec3(0.1, 0.2, 0.3));
  int a = th_addBody(m, NULL, 0, CS_JOINT_PIN, frame(0.1, 0.2, 0.3, 1, 0, 0, 0.4),
                     frame(0.05, 0, 0, 0, 1, 0, 0.2), 1.0, csu_vec3(0.1, 0, 0), I);
  int b = th_addBody(m, NULL, a, CS_JOINT_SLIDER, frame(0.3, 0, 0.1, 0, 0, 1, 0.7),
                     frame(0, 0.1, 0, 1, 1, 0, 0.3), 2.0, csu_vec3(0, 0.1, 0), I);
  int c = th_addBody(m, NULL, b, CS_JOINT_BALL, frame(0, 0, -0.2, 0, 1, 1, 0.5),
                     frame(0.02, 0.03, 0.04, 1, 0, 1, 0.6), 1.5, csu_vec3(0, 0, -0.1), I);
  th_addBody(m, NULL, c, CS_JOINT_WELD, frame(0.1, 0.1, 0.1, 1, 2, 3, 0.4),
             frame(0, 0, 0, 1, 0, 0, 0), 0.5, csu_vec3(0, 0, 0), I);
  th_addBody(m, NULL, a, CS_JOINT_FREE, frame(0.2, -0.1, 0, 3, 2, 1, 0.8),
             frame(0.05, 0.02, -0.03, 0, 0, 1, 1.0), 0.8, csu_vec3(0.01, 0.02, 0.03), I);
  csError err = {0};
  assert_int_equal(cs_finalizeModel(m, &err), 0);
  return m;
}


static void setState(const csModel* m, csData* d) {
  for (int i = 0; i < m->nq; i++) {
    d->q[i] = 0.3 + 0.1 * i;
  }
  for (int i = 0; i < m->nu; i++) {
    d->u[i] = 0.5 - 0.2 * i;
  }
  cs_invalidate(d);
}


// angular velocity from dR/dt R^T (a skew matrix)
static csVec3 omegaFromRates(const csMat33* Rp, const csMat33* Rm, const csMat33* R, double h) {
  csMat33 dR;
  for (int i = 0; i < 3; i++) {
    for (int j = 0; j < 3; j++) {
      dR.m[i][j] = (Rp->m[i][j] - Rm->m[i][j]) / (2 * h);
    }
  }
  csMat33 Rt = csu_transpose(R);
  csMat33 W = csu_mulMM(&dR, &Rt);
  return csu_vec3(0.5 * (W.m[2][1] - W.m[1][2]), 0.5 * (W.m[0][2] - W.m[2][0]),
                  0.5 * (W.m[1][0] - W.m[0][1]));
}


static void test_velocity_matches_finite_differences(void** state) {
  (void)state;
  csModel* m = mixedTree();
  csData* d = cs_makeData(m);
  csData* dp = cs_makeData(m);
  csData* dm = cs_makeData(m);
  setState(m, d);
  cs_realizeVelocity(m, d);
  double h = 1e-6;
  for (int i = 0; i < m->nq; i++) {
    dp->q[i] = d->q[i] + h * d->qdot[i];
    dm->q[i] = d->q[i] - h * d->qdot[i];
  }
  cs_invalidate(dp);
  cs_invalidate(dm);
  cs_realizePosition(m, dp);
  cs_realizePosition(m, dm);
  for (int b = 1; b < m->nbody; b++) {
    csVec3 v = csu_scale(1 / (2 * h), csu_sub(dp->body_pose[b].p, dm->body_pose[b].p));
    csVec3 w = omegaFromRates(&dp->body_pose[b].R, &dm->body_pose[b].R, &d->body_pose[b].R, h);
    assert_true(csu_norm(csu_sub(v, d->body_vel[b].v)) < 1e-7);
    assert_true(csu_norm(csu_sub(w, d->body_vel[b].w)) < 1e-7);
  }
  cs_deleteData(d);
  cs_deleteData(dp);
  cs_deleteData(dm);
  cs_deleteModel(m);
}


// a free body (M frame away from the body origin and the COM) with a force at a point and a
// torque: the COM accelerates at F/m + g, and the rotation obeys I alpha + w x I w = tau
// welded: hang the free body from a body welded to ground (the general articulated-body path)
// instead of from ground itself (the free-leaf fast path); F ends up at the same place in Ground
static void newtonEuler(int welded) {
  csModel* m = cs_newModel("free");
  csMat33 I = {{{2.0, 0.1, 0.05}, {0.1, 3.0, -0.2}, {0.05, -0.2, 2.5}}};
  csTransform XGF = frame(0.3, -0.2, 0.1, 0, 1, 1, 0.4);
  int parent = 0;
  if (welded) {
    csTransform XGW = frame(1, 2, 3, 1, 0, 0, 0.9);
    parent = th_addBody(m, NULL, 0, CS_JOINT_WELD, XGW, csu_transformIdentity(), 5.0,
                        csu_vec3(0, 0, 0), I);
    csTransform XWG = csu_transformInverse(&XGW);
    XGF = csu_transformMul(&XWG, &XGF);
  }
  int b = th_addBody(m, NULL, parent, CS_JOINT_FREE, XGF, frame(0.1, -0.3, 0.2, 1, 1, 0, 0.7), 3.0,
                     csu_vec3(0.05, 0.1, -0.05), I);
  csError err = {0};
  cs_addForce(m, CS_FORCE_GRAVITY, "gravity", &err);
  int f = cs_addForce(m, CS_FORCE_CONSTANT, "push", &err);
  cs_setForceParam(m, f, "body", b);
  double station[3] = {0.2, 0.1, -0.3}, force[3] = {1.0, -2.0, 3.0}, torque[3] = {0.3, 0.2, -0.1};
  for (int i = 0; i < 3; i++) {
    m->force[f].param[i] = station[i];
    m->force[f].param[3 + i] = force[i];
    m->force[f].param[6 + i] = torque[i];
  }
  assert_int_equal(cs_finalizeModel(m, &err), 0);
  csData* d = cs_makeData(m);
  setState(m, d);
  assert_int_equal(cs_forward(m, d), 0);

  // independent Newton-Euler in Ground
  const csTransform* X = &d->body_pose[b];
  csVec3 w = d->body_vel[b].w;
  csVec3 com = d->body_com[b];
  csVec3 F = csu_vec3FromArray(force);
  csVec3 P = csu_transformPoint(X, csu_vec3FromArray(station));
  csVec3 tau = csu_add(csu_vec3FromArray(torque), csu_cross(csu_sub(P, com), F));
  csMat33 RI = csu_mulMM(&X->R, &I);
  csMat33 Rt = csu_transpose(&X->R);
  csMat33 IG = csu_mulMM(&RI, &Rt);
  csVec3 rhs = csu_sub(tau, csu_cross(w, csu_mulMV(&IG, w)));
  // alpha = IG^-1 rhs by Cramer's rule
  double(*a)[3] = IG.m;
  double det = a[0][0] * (a[1][1] * a[2][2] - a[1][2] * a[2][1]) -
               a[0][1] * (a[1][0] * a[2][2] - a[1][2] * a[2][0]) +
               a[0][2] * (a[1][0] * a[2][1] - a[1][1] * a[2][0]);
  csVec3 c0 = csu_vec3(a[0][0], a[1][0], a[2][0]), c1 = csu_vec3(a[0][1], a[1][1], a[2][1]),
         c2 = csu_vec3(a[0][2], a[1][2], a[2][2]);
  csVec3 alpha = csu_vec3(csu_dot(rhs, csu_cross(c1, c2)) / det,
                          csu_dot(c0, csu_cross(rhs, c2)) / det,
                          csu_dot(c0, csu_cross(c1, rhs)) / det);
  csVec3 acom = csu_add(csu_scale(1 / 3.0, F), m->gravity);

  // what the free joint reports: u = (w_FM in F, v of M's origin in F), F fixed in Ground
  csTransform XGF_now = csu_transformMul(&d->body_pose[m->body[b].parent], &m->body[b].X_PF);
  const csMat33* RF = &XGF_now.R;
  csVec3 alpha_G = csu_mulMV(RF, csu_vec3FromArray(d->udot + m->body[b].uadr));
  assert_true(csu_norm(csu_sub(alpha_G, alpha)) < 1e-10 * (1 + csu_norm(alpha)));
  // acceleration of M's origin: a_com + alpha x r + w x (w x r), r from COM to M's origin
  csVec3 pM = csu_transformPoint(X, m->body[b].X_BM.p);
  csVec3 r = csu_sub(pM, com);
  csVec3 aM = csu_add(acom, csu_add(csu_cross(alpha, r), csu_cross(w, csu_cross(w, r))));
  // d/dt of v expressed in F (F does not move) is the acceleration itself
  csVec3 aM_G = csu_mulMV(RF, csu_vec3FromArray(d->udot + m->body[b].uadr + 3));
  assert_true(csu_norm(csu_sub(aM_G, aM)) < 1e-10 * (1 + csu_norm(aM)));
  cs_deleteData(d);
  cs_deleteModel(m);
}


static void test_free_body_newton_euler(void** state) {
  (void)state;
  newtonEuler(0);
}


static void test_free_body_general_path(void** state) {
  (void)state;
  newtonEuler(1);
}


// each stage runs once for a state however often it is asked for, and again after the state
// changes
static void test_stage_caching(void** state) {
  (void)state;
  csModel* m = mixedTree();
  csData* d = cs_makeData(m);
  setState(m, d);
  memset(d->stat.nstage, 0, sizeof(d->stat.nstage));
  for (int i = 0; i < 3; i++) {
    assert_int_equal(cs_forward(m, d), 0);
    cs_realizePosition(m, d);
  }
  for (int k = 0; k < 4; k++) {
    assert_int_equal(d->stat.nstage[k], 1);
  }
  d->u[0] += 0.1;
  cs_invalidate(d);
  cs_realizeVelocity(m, d);
  assert_int_equal(d->stat.nstage[1], 2);
  assert_int_equal(d->stat.nstage[3], 1);
  cs_deleteData(d);
  cs_deleteModel(m);
}


int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_velocity_matches_finite_differences),
      cmocka_unit_test(test_free_body_newton_euler),
      cmocka_unit_test(test_free_body_general_path),
      cmocka_unit_test(test_stage_caching),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
