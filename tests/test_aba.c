// test_aba.c: the articulated-body algorithm against an independent answer. At random states of
// trees mixing pin, slider, ball and free mobilizers, the accelerations udot must solve the
// equations of motion written in Kane's form (the principle of virtual power),
//   M(q) udot = Q - sum_b [ J_c^T m a_c0 + J_w^T (I alpha_0 + w x I w) ] + J^T (applied forces),
// where J_c and J_w are the partial velocities of each body's centre of mass and its angular
// velocity with respect to u (the velocity stage at unit speeds), a_c0 and alpha_0 the
// accelerations at udot = 0 (central differences of the velocity stage along the motion), and
// M_jk = sum_b m J_c,j . J_c,k + J_w,j . I J_w,k. The system is solved by dense Gaussian
// elimination. Nothing of the articulated-body algorithm (inertias, bias forces, recursions) is
// used; only positions, velocities and the applied forces come from the library.
#include "helpers.h"

#include "engine/dynamics.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MAXU 32


static csTransform frame(double x, double y, double z, double ax, double ay, double az,
                         double ang) {
  return csu_transformFromPosQuat(csu_vec3(x, y, z),
                                  csu_quatFromAxisAngle(csu_vec3(ax, ay, az), ang));
}


// deterministic uniform numbers in [-1, 1]
static double uniform(unsigned* s) {
  *s = *s * 1103515245u + 12345u;
  return ((double)((*s >> 8) & 0xffffff) / (double)0xffffff) * 2.0 - 1.0;
}


// a general inertia: a box's, turned by an arbitrary rotation (not aligned with the body axes)
static csMat33 tiltedInertia(double mass, double a, double b, double c, double angle) {
  csMat33 I0 = csu_inertiaBox(mass, csu_vec3(a, b, c));
  csMat33 R = csu_quatToMat(csu_quatFromAxisAngle(csu_vec3(1, 2, 3), angle));
  csMat33 RI = csu_mulMM(&R, &I0);
  csMat33 Rt = csu_transpose(&R);
  return csu_mulMM(&RI, &Rt);
}


// The loads of the trees below: gravity, a mobility spring and damper on each of the n bodies
// listed, and a constant force and moment on body `pushed` (its station off the origin).
static void addLoads(csModel* m, const int* bodies, int n, int pushed) {
  th_addForce(m, CS_FORCE_GRAVITY, "gravity");
  for (int i = 0; i < n; i++) {
    char name[32];
    snprintf(name, sizeof(name), "spring%d", i);
    int e = th_addForce(m, CS_FORCE_MOBILITY_SPRING, name);
    th_setParam(m, e, "body", bodies[i]);
    th_setParam(m, e, "stiffness", 0.5 + i);
    th_setParam(m, e, "q0", 0.1);
    snprintf(name, sizeof(name), "damper%d", i);
    e = th_addForce(m, CS_FORCE_MOBILITY_DAMPER, name);
    th_setParam(m, e, "body", bodies[i]);
    th_setParam(m, e, "damping", 0.02 * (i + 1));
  }
  if (pushed < 0) {
    return;  // no constant force: every load has a planar form (the planar right-hand side)
  }
  int f = th_addForce(m, CS_FORCE_CONSTANT, "push");
  th_setParam(m, f, "body", pushed);
  double cparam[9] = {0.02, 0.01, -0.03, 0.3, -0.2, 0.1, 0.01, 0.02, -0.03};
  for (int i = 0; i < 9; i++) {
    m->force[f].param[i] = cparam[i];
  }
}


// A tree of every moving joint type: a pin chain with a slider, a ball and a free body in it, a
// branch, a welded body, and a free body on ground (the articulated-body algorithm's fast path).
// Frames are neither identity nor aligned unless `plain`, which gives the pins and sliders
// identity child frames and the chain identity parent rotations (the layout of the bench chains).
// Gravity, mobility springs and dampers and a constant force load the bodies.
static csModel* mixedTree(int plain) {
  csModel* m = cs_newModel(plain ? "plain_tree" : "mixed_tree");
  m->gravity = csu_vec3(0.3, -0.2, -9.81);
  csTransform id = csu_transformIdentity();
  csTransform XPF0 = frame(0.1, 0.2, 1.0, 1, 0, 0, 1.2);
  csTransform XPF = plain ? frame(0.1, 0, 0, 1, 0, 0, 0) : frame(0.1, 0.02, -0.01, 0, 1, 1, 0.3);
  csTransform XBM = plain ? id : frame(-0.02, 0.01, 0.03, 1, 1, 0, 0.4);
  int ids[8];
  ids[0] = th_addBody(m, NULL, 0, CS_JOINT_PIN, XPF0, XBM, 0.1, csu_vec3(0.05, 0.01, 0),
                      tiltedInertia(0.1, 0.05, 0.01, 0.02, 0.3));
  ids[1] = th_addBody(m, NULL, ids[0], CS_JOINT_PIN, XPF, XBM, 0.2, csu_vec3(0.05, 0, 0.01),
                      tiltedInertia(0.2, 0.05, 0.02, 0.01, 0.7));
  ids[2] = th_addBody(m, NULL, ids[1], CS_JOINT_SLIDER, XPF, XBM, 0.3, csu_vec3(0.02, -0.01, 0),
                      tiltedInertia(0.3, 0.03, 0.02, 0.04, 1.1));
  ids[3] = th_addBody(m, NULL, ids[2], CS_JOINT_BALL, XPF, frame(0.03, 0, -0.02, 0, 0, 1, 0.5),
                      0.15, csu_vec3(0.04, 0.01, 0.02), tiltedInertia(0.15, 0.02, 0.05, 0.03, 0.2));
  ids[4] = th_addBody(m, NULL, ids[3], CS_JOINT_PIN, XPF, XBM, 0.1, csu_vec3(0.05, 0, 0),
                      tiltedInertia(0.1, 0.05, 0.01, 0.01, 0.9));
  ids[5] = th_addBody(m, NULL, ids[1], CS_JOINT_FREE, frame(0, 0.1, 0, 1, 0, 1, 0.6),
                      frame(0.01, 0.02, 0.03, 1, 2, 0, 0.8), 0.25, csu_vec3(0.01, 0.02, -0.01),
                      tiltedInertia(0.25, 0.04, 0.03, 0.02, 1.4));
  ids[6] = th_addBody(m, NULL, ids[5], CS_JOINT_WELD, frame(0.05, 0, 0, 0, 1, 0, 0.3), id, 0.05,
                      csu_vec3(0.01, 0, 0), tiltedInertia(0.05, 0.01, 0.01, 0.01, 0.1));
  ids[7] = th_addBody(m, NULL, 0, CS_JOINT_FREE, frame(1, 0, 0, 0, 0, 1, 0.2),
                      frame(0.02, 0, 0.01, 1, 0, 0, 0.3), 0.4, csu_vec3(0.01, -0.02, 0.03),
                      tiltedInertia(0.4, 0.05, 0.06, 0.07, 0.5));
  const int sprung[3] = {ids[0], ids[1], ids[4]};
  addLoads(m, sprung, 3, ids[4]);
  th_finalize(m);
  return m;
}


// a random state: angles and slides of order one, unit quaternions, speeds of order one
static void randomState(const csModel* m, csData* d, unsigned* seed) {
  for (int b = 1; b < m->nbody; b++) {
    const csBody* body = &m->body[b];
    double* q = d->q + body->qadr;
    if (body->joint == CS_JOINT_BALL || body->joint == CS_JOINT_FREE) {
      csQuat r =
          csu_quatNormalize(csu_quat(uniform(seed), uniform(seed), uniform(seed), uniform(seed)));
      q[0] = r.w;
      q[1] = r.x;
      q[2] = r.y;
      q[3] = r.z;
      for (int k = 4; k < body->qnum; k++) {
        q[k] = 0.2 * uniform(seed);
      }
    } else {
      for (int k = 0; k < body->qnum; k++) {
        q[k] = 1.5 * uniform(seed);
      }
    }
  }
  for (int i = 0; i < m->nu; i++) {
    d->u[i] = 2.0 * uniform(seed);
  }
  cs_invalidate(d);
}


// the velocities of every body's centre of mass and its angular velocity at q and speeds u
static void bodyVelocities(const csModel* m, csData* w, const double* q, const double* u,
                           csVec3* vc, csVec3* om) {
  memcpy(w->q, q, sizeof(double) * (size_t)m->nq);
  memcpy(w->u, u, sizeof(double) * (size_t)m->nu);
  cs_invalidate(w);
  cs_realizeVelocity(m, w);
  for (int b = 0; b < m->nbody; b++) {
    vc[b] = cs_pointVelocity(m, w, b, w->body_com[b]);
    om[b] = w->body_vel[b].w;
  }
}


// solve A x = r (n x n, row stride MAXU) by Gaussian elimination with partial pivoting
static void solveDense(double* A, double* r, int n) {
  for (int k = 0; k < n; k++) {
    int p = k;
    for (int i = k + 1; i < n; i++) {
      if (fabs(A[i * MAXU + k]) > fabs(A[p * MAXU + k])) {
        p = i;
      }
    }
    for (int j = 0; j < n; j++) {
      double t = A[k * MAXU + j];
      A[k * MAXU + j] = A[p * MAXU + j];
      A[p * MAXU + j] = t;
    }
    double t = r[k];
    r[k] = r[p];
    r[p] = t;
    for (int i = k + 1; i < n; i++) {
      double f = A[i * MAXU + k] / A[k * MAXU + k];
      for (int j = k; j < n; j++) {
        A[i * MAXU + j] -= f * A[k * MAXU + j];
      }
      r[i] -= f * r[k];
    }
  }
  for (int i = n - 1; i >= 0; i--) {
    double s = r[i];
    for (int j = i + 1; j < n; j++) {
      s -= A[i * MAXU + j] * r[j];
    }
    r[i] = s / A[i * MAXU + i];
  }
}


// udot from Kane's equations at the state of d (forces realized by the library's force stage);
// returns the largest |udot_aba - udot_kane| relative to the largest |udot_kane|
static double kaneDifference(const csModel* m, csData* d, csData* w) {
  int nb = m->nbody, nu = m->nu, nq = m->nq;
  assert_true(nu <= MAXU);
  assert_int_equal(cs_rates(m, d), 0);
  // Kane's side reads the poses, velocities and forces in Ground, which the planar right-hand side
  // does not realize; d->udot keeps the rates cs_rates found
  cs_realizeDynamics(m, d);
  double q[64], u[MAXU], unit[MAXU], qp[64], qm[64];
  memcpy(q, d->q, sizeof(double) * (size_t)nq);
  memcpy(u, d->u, sizeof(double) * (size_t)nu);
  // partial velocities: the velocity stage is linear in u
  csVec3 Jc[MAXU][24], Jw[MAXU][24];
  assert_true(nb <= 24 && nq <= 64);
  for (int k = 0; k < nu; k++) {
    memset(unit, 0, sizeof(unit));
    unit[k] = 1;
    bodyVelocities(m, w, q, unit, Jc[k], Jw[k]);
  }
  // accelerations at udot = 0: the rate of the velocities along the motion at fixed u, by a
  // fourth-order central difference
  csVec3 v1p[24], w1p[24], v1m[24], w1m[24], v2p[24], w2p[24], v2m[24], w2m[24];
  double h = 1e-4;
  for (int s = 1; s <= 2; s++) {
    for (int i = 0; i < nq; i++) {
      qp[i] = q[i] + s * h * d->qdot[i];
      qm[i] = q[i] - s * h * d->qdot[i];
    }
    bodyVelocities(m, w, qp, u, s == 1 ? v1p : v2p, s == 1 ? w1p : w2p);
    bodyVelocities(m, w, qm, u, s == 1 ? v1m : v2m, s == 1 ? w1m : w2m);
  }
  double M[MAXU * MAXU], r[MAXU];
  memset(M, 0, sizeof(M));
  for (int j = 0; j < nu; j++) {
    r[j] = d->mobility_force[j];
  }
  for (int b = 1; b < nb; b++) {
    const csBody* body = &m->body[b];
    csVec3 ac0 = csu_scale(1 / (12 * h),
                           csu_add(csu_sub(v2m[b], v2p[b]), csu_scale(8, csu_sub(v1p[b], v1m[b]))));
    csVec3 al0 = csu_scale(1 / (12 * h),
                           csu_add(csu_sub(w2m[b], w2p[b]), csu_scale(8, csu_sub(w1p[b], w1m[b]))));
    // central inertia in Ground, the angular velocity, applied force and moment about the COM
    const csMat33* R = &d->body_pose[b].R;
    csMat33 RI = csu_mulMM(R, &body->inertia);
    csMat33 Rt = csu_transpose(R);
    csMat33 IG = csu_mulMM(&RI, &Rt);
    csVec3 om = d->body_vel[b].w;
    csVec3 F = d->body_force[b].v;
    csVec3 N =
        csu_sub(d->body_force[b].w, csu_cross(csu_sub(d->body_com[b], d->body_pose[b].p), F));
    csVec3 fres = csu_sub(F, csu_scale(body->mass, ac0));
    csVec3 nres = csu_sub(N, csu_add(csu_mulMV(&IG, al0), csu_cross(om, csu_mulMV(&IG, om))));
    for (int j = 0; j < nu; j++) {
      r[j] += csu_dot(Jc[j][b], fres) + csu_dot(Jw[j][b], nres);
      for (int k = 0; k < nu; k++) {
        M[j * MAXU + k] +=
            body->mass * csu_dot(Jc[j][b], Jc[k][b]) + csu_dot(Jw[j][b], csu_mulMV(&IG, Jw[k][b]));
      }
    }
  }
  solveDense(M, r, nu);
  double worst = 0, scale = 0;
  for (int j = 0; j < nu; j++) {
    worst = fmax(worst, fabs(d->udot[j] - r[j]));
    scale = fmax(scale, fabs(r[j]));
  }
  return worst / scale;
}


// the largest kaneDifference over `trials` random states of m
static double kaneWorst(const csModel* m, unsigned seed, int trials) {
  csData* d = cs_makeData(m);
  csData* w = cs_makeData(m);
  double worst = 0;
  for (int trial = 0; trial < trials; trial++) {
    randomState(m, d, &seed);
    worst = fmax(worst, kaneDifference(m, d, w));
  }
  cs_deleteData(d);
  cs_deleteData(w);
  return worst;
}


static void checkTree(int plain) {
  csModel* m = mixedTree(plain);
  csData* d = cs_makeData(m);
  csData* w = cs_makeData(m);
  unsigned seed = plain ? 7u : 2024u;
  double worst = 0;
  for (int trial = 0; trial < 20; trial++) {
    randomState(m, d, &seed);
    worst = fmax(worst, kaneDifference(m, d, w));
  }
  print_message(
      "%s: largest difference of udot from Kane's equations over 20 random states, "
      "relative to the largest udot: %.3g\n",
      plain ? "aligned frames" : "general frames", worst);
  assert_true(worst < 1e-7);
  cs_deleteData(d);
  cs_deleteData(w);
  cs_deleteModel(m);
}


static void test_aba_matches_kane_general_frames(void** state) {
  (void)state;
  checkTree(0);
}


static void test_aba_matches_kane_aligned_frames(void** state) {
  (void)state;
  checkTree(1);
}


// three balls in a chain, each body origin away from its joint (the general path on every body)
static void test_aba_matches_kane_ball_chain(void** state) {
  (void)state;
  csModel* m = cs_newModel("balls");
  m->gravity = csu_vec3(0, 0, -9.81);
  int parent = 0;
  csTransform XPF = csu_transformIdentity();
  for (int i = 0; i < 3; i++) {
    csTransform XBM = frame(0.05 * i, 0.02, 0.3, 0, 1, 1, 0.3 * i);
    parent = th_addBody(m, NULL, parent, CS_JOINT_BALL, XPF, XBM, 1.0 + 0.5 * i,
                        csu_vec3(0.01, -0.02, 0.0),
                        csu_inertiaBox(1.0 + 0.5 * i, csu_vec3(0.05, 0.06, 0.3)));
    XPF = frame(0.0, 0.03, -0.3, 1, 0, 0, 0);
  }
  th_addForce(m, CS_FORCE_GRAVITY, "gravity");
  th_finalize(m);
  csData* d = cs_makeData(m);
  csData* w = cs_makeData(m);
  unsigned seed = 5u;
  double worst = 0;
  for (int trial = 0; trial < 20; trial++) {
    randomState(m, d, &seed);
    worst = fmax(worst, kaneDifference(m, d, w));
  }
  print_message("ball chain: largest relative difference of udot from Kane's equations: %.3g\n",
                worst);
  assert_true(worst < 1e-7);
  cs_deleteData(d);
  cs_deleteData(w);
  cs_deleteModel(m);
}


// Pins on ground with nothing hanging from them (pendulums): with the axis through the body
// origin (tilted, and with the origin offset along the axis) they take the fast path, udot =
// (tau + s . n_O) / (s^T A s); with the origin off the axis, the general one. Loaded by gravity,
// mobility springs and dampers and a constant force, all against Kane's equations; and the
// bench's chain_1 (a pin with a stop)
static void test_aba_matches_kane_pin_leaves(void** state) {
  (void)state;
  csModel* m = cs_newModel("pendulums");
  m->gravity = csu_vec3(0.3, -0.2, -9.81);
  csTransform XBM[3] = {csu_transformIdentity(), frame(0, 0, 0.05, 0, 0, 1, 0.7),
                        frame(0.03, 0.01, 0, 0, 0, 1, 0.2)};
  int ids[3];
  for (int i = 0; i < 3; i++) {
    ids[i] = th_addBody(m, NULL, 0, CS_JOINT_PIN, frame(0.1 * i, 0.2, 1.0, 1, 1, 0, 1.2 + i),
                        XBM[i], 0.1 + 0.1 * i, csu_vec3(0.05, 0.01, 0.02 * i),
                        tiltedInertia(0.1 + 0.1 * i, 0.05, 0.01, 0.02, 0.3 + i));
  }
  addLoads(m, ids, 3, ids[0]);
  th_finalize(m);
  csData* d = cs_makeData(m);
  assert_true(d->aba_pinLeaf[ids[0]] > 0 && d->aba_pinLeaf[ids[1]] > 0);
  assert_true(d->aba_pinLeaf[ids[2]] == 0);
  cs_deleteData(d);
  double worst = kaneWorst(m, 11u, 20);
  cs_deleteModel(m);
  m = th_loadFile("scenes/bench/chain_1.json");
  d = cs_makeData(m);
  assert_true(d->aba_pinLeaf[1] > 0);
  cs_deleteData(d);
  worst = fmax(worst, kaneWorst(m, 12u, 10));
  print_message("pins on ground: largest relative difference of udot from Kane's equations: %.3g\n",
                worst);
  assert_true(worst < 1e-7);
  cs_deleteModel(m);
}


// A planar pin tree (all axes parallel) takes the planar path. General frames: the plane tilted
// in Ground, a pin whose F frame flips the axis (rotation by pi about x), body frames turned about
// the axis and offset from it (origins off the axis) and along it, centres of mass out of the
// plane, tilted inertias (products of inertia coupling the plane to the other axes), a branch,
// and forces with components out of the plane (tilted gravity, a constant force and moment),
// all against Kane's equations. `tilt` turns the last pin's axis by that angle out of parallel
// (and `ball` hangs a ball joint from the branch), which must send the whole tree down the
// general path; `massless` takes the mass and inertia from the second link (the C API allows
// it, and the links beyond it keep the tree's mass matrix positive definite). Without `push`
// (the constant force) every load has a planar form and the rates take the planar right-hand side.
static csModel* planarTree(double tilt, int ball, int massless, int push) {
  csModel* m = cs_newModel("planar_tree");
  m->gravity = csu_vec3(0.3, -0.2, -9.81);
  csTransform XPF0 = frame(0.1, 0.2, 1.0, 1, 1, 0, 1.2);
  csTransform turnZ = frame(0.1, 0.02, -0.01, 0, 0, 1, 0.3);
  csTransform flip = frame(0.12, -0.03, 0.02, 1, 0, 0, 3.14159265358979323846);
  csTransform offAxis = frame(-0.02, 0.01, 0.03, 0, 0, 1, 0.4);
  csTransform alongAxis = frame(0, 0, 0.04, 0, 0, 1, -0.6);
  int ids[6];
  ids[0] = th_addBody(m, NULL, 0, CS_JOINT_PIN, XPF0, offAxis, 0.1, csu_vec3(0.05, 0.01, 0.02),
                      tiltedInertia(0.1, 0.05, 0.01, 0.02, 0.3));
  double m1 = massless ? 0 : 0.2;
  ids[1] = th_addBody(m, NULL, ids[0], CS_JOINT_PIN, turnZ, alongAxis, m1,
                      csu_vec3(0.05, 0, 0.01), tiltedInertia(m1, 0.05, 0.02, 0.01, 0.7));
  ids[2] = th_addBody(m, NULL, ids[1], CS_JOINT_PIN, flip, offAxis, 0.3, csu_vec3(0.02, -0.01, 0),
                      tiltedInertia(0.3, 0.03, 0.02, 0.04, 1.1));
  ids[3] = th_addBody(m, NULL, ids[2], CS_JOINT_PIN, turnZ, csu_transformIdentity(), 0.15,
                      csu_vec3(0.04, 0.01, 0.02), tiltedInertia(0.15, 0.02, 0.05, 0.03, 0.2));
  // the branch, and the pin that the tilt turns
  ids[4] = th_addBody(m, NULL, ids[1], CS_JOINT_PIN, flip, alongAxis, 0.1, csu_vec3(0.05, 0, 0),
                      tiltedInertia(0.1, 0.05, 0.01, 0.01, 0.9));
  ids[5] = th_addBody(m, NULL, ids[4], CS_JOINT_PIN, frame(0.08, 0.01, 0, 1, 0.5, 0, tilt),
                      offAxis, 0.12, csu_vec3(0.03, 0.01, -0.01),
                      tiltedInertia(0.12, 0.04, 0.02, 0.01, 0.5));
  if (ball) {
    th_addBody(m, NULL, ids[4], CS_JOINT_BALL, turnZ, offAxis, 0.05, csu_vec3(0.01, 0, 0),
               tiltedInertia(0.05, 0.01, 0.02, 0.01, 0.4));
  }
  addLoads(m, ids, 6, push ? ids[3] : -1);
  th_finalize(m);
  return m;
}


// how many bodies of m take the planar path
static int planarBodies(const csModel* m) {
  csData* d = cs_makeData(m);
  int n = 0;
  for (int b = 1; b < m->nbody; b++) {
    n += d->aba_planar[b] != 0;
  }
  cs_deleteData(d);
  return n;
}


// whether m's rates take the planar right-hand side (every body a planar link, every load with a
// planar form)
static int planarModel(const csModel* m) {
  csData* d = cs_makeData(m);
  int planar = d->planar_model;
  cs_deleteData(d);
  return planar;
}


// The planar right-hand side's rates, forces, energies and powers against the general path's
// (the same data with it turned off) at random states, relative to the largest of each; the
// general path is held to Kane's equations above
static double planarAgainstGeneral(const csModel* m, unsigned seed, int trials) {
  csData* d = cs_makeData(m);
  assert_true(d->planar_model);
  double worst = 0;
  for (int trial = 0; trial < trials; trial++) {
    randomState(m, d, &seed);
    double* out[6] = {d->udot, d->qdot, d->mobility_force, d->zdot, d->force_pe, d->force_power};
    int len[6] = {m->nu, m->nq, m->nu, m->nz, m->nforce, m->nforce};
    double saved[6][64];
    assert_true(m->nu <= 64 && m->nq <= 64 && m->nz <= 64 && m->nforce <= 64);
    d->planar_model = 1;
    cs_invalidate(d);
    assert_int_equal(cs_rates(m, d), 0);
    assert_true(d->planar_rates && d->stage == CS_STAGE_NONE);
    for (int k = 0; k < 6; k++) {
      memcpy(saved[k], out[k], sizeof(double) * (size_t)len[k]);
    }
    d->planar_model = 0;
    cs_invalidate(d);
    assert_int_equal(cs_rates(m, d), 0);
    for (int k = 0; k < 6; k++) {
      double diff = 0, scale = 0;
      for (int i = 0; i < len[k]; i++) {
        diff = fmax(diff, fabs(saved[k][i] - out[k][i]));
        scale = fmax(scale, fabs(out[k][i]));
      }
      worst = fmax(worst, scale > 0 ? diff / scale : diff);
    }
    // cs_forward (the public call) realizes every stage whatever path the rates take
    d->planar_model = 1;
    cs_invalidate(d);
    assert_int_equal(cs_forward(m, d), 0);
    assert_true(d->stage == CS_STAGE_ACCELERATION && !d->planar_rates);
  }
  cs_deleteData(d);
  return worst;
}


// On a planar tree with planar loads (tilted gravity, mobility springs and dampers; the bench
// chains' stops, some engaged) the planar right-hand side finds what the general path does, to
// round-off: the rates and every element's generalized force, energy and power
static void test_planar_path_matches_general(void** state) {
  (void)state;
  csModel* m = planarTree(0, 0, 0, 0);
  double worst = planarAgainstGeneral(m, 41u, 20);
  cs_deleteModel(m);
  m = planarTree(0, 0, 1, 0);
  worst = fmax(worst, planarAgainstGeneral(m, 42u, 20));
  cs_deleteModel(m);
  m = th_loadFile("scenes/bench/chain_16.json");
  worst = fmax(worst, planarAgainstGeneral(m, 43u, 20));
  cs_deleteModel(m);
  // a constant force has no planar form, and a lone pendulum takes its own fast path
  m = planarTree(0, 0, 0, 1);
  assert_false(planarModel(m));
  cs_deleteModel(m);
  m = th_loadFile("scenes/bench/chain_1.json");
  assert_false(planarModel(m));
  cs_deleteModel(m);
  print_message("planar right-hand side against the general path: largest relative difference "
                "%.3g\n", worst);
  assert_true(worst < 1e-12);
}


static void test_aba_matches_kane_planar_tree(void** state) {
  (void)state;
  csModel* m = planarTree(0, 0, 0, 1);
  assert_int_equal(planarBodies(m), 6);
  double planar = kaneWorst(m, 31u, 20);
  cs_deleteModel(m);
  m = planarTree(0, 0, 1, 1);
  assert_int_equal(planarBodies(m), 6);
  planar = fmax(planar, kaneWorst(m, 34u, 20));
  cs_deleteModel(m);
  // without the constant force the rates take the planar right-hand side
  double path = 0;
  for (int massless = 0; massless <= 1; massless++) {
    m = planarTree(0, 0, massless, 0);
    assert_true(planarModel(m));
    path = fmax(path, kaneWorst(m, 35u + (unsigned)massless, 20));
    cs_deleteModel(m);
  }
  // out of parallel by 1e-6 rad, or with a ball joint in it: the general path, whole tree
  m = planarTree(1e-6, 0, 0, 1);
  assert_int_equal(planarBodies(m), 0);
  double tilted = kaneWorst(m, 32u, 20);
  cs_deleteModel(m);
  m = planarTree(0, 1, 0, 1);
  assert_int_equal(planarBodies(m), 0);
  double withBall = kaneWorst(m, 33u, 20);
  cs_deleteModel(m);
  // the bench chains are planar trees
  m = th_loadFile("scenes/bench/chain_4.json");
  assert_int_equal(planarBodies(m), 4);
  cs_deleteModel(m);
  print_message("planar tree: largest relative difference of udot from Kane's equations %.3g "
                "(planar links), %.3g (the planar right-hand side), %.3g (a pin tilted 1e-6 "
                "rad), %.3g (a ball joint added)\n",
                planar, path, tilted, withBall);
  assert_true(planar < 1e-7 && path < 1e-7 && tilted < 1e-7 && withBall < 1e-7);
}


// A chain whose pins each lean 3e-13 rad further out of parallel than their parent's: the
// leans add up along the chain, and the planar path takes the chain only while their sum is
// within 1e-12 rad (three links, two leaning: 6e-13), not when each link alone is (five links,
// 1.2e-12; a thousand links each 0.95e-12 off passed and gave udot 1.35e-9 off the general
// path's)
static void test_planar_tilts_add_up(void** state) {
  (void)state;
  for (int n = 3; n <= 5; n += 2) {
    csModel* m = cs_newModel("leaning_chain");
    m->gravity = csu_vec3(0, 0, -9.81);
    int parent = 0;
    for (int i = 0; i < n; i++) {
      parent = th_addBody(m, NULL, parent, CS_JOINT_PIN, frame(0, i ? 0.1 : 0, 0, 1, 0, 0,
                                                               i ? 3e-13 : 0.0),
                          csu_transformIdentity(), 0.1, csu_vec3(0, 0.05, 0),
                          tiltedInertia(0.1, 0.01, 0.05, 0.05, 0));
    }
    th_finalize(m);
    // the root's lean is the plane's normal; the other n - 1 lean 3e-13 each
    int expected = n == 3 ? 3 : 0;
    if (planarBodies(m) != expected) {
      fail_msg("%d links leaning 3e-13 rad each: %d on the planar path, not %d", n,
               planarBodies(m), expected);
    }
    cs_deleteModel(m);
  }
}


// the bench chain itself (pins with stops), at states where some stops are engaged
static void test_aba_matches_kane_chain(void** state) {
  (void)state;
  csModel* m = th_loadFile("scenes/bench/chain_16.json");
  csData* d = cs_makeData(m);
  assert_true(d->planar_model);  // the rates take the planar right-hand side
  csData* w = cs_makeData(m);
  unsigned seed = 99u;
  double worst = 0;
  for (int trial = 0; trial < 10; trial++) {
    randomState(m, d, &seed);
    worst = fmax(worst, kaneDifference(m, d, w));
  }
  print_message("chain_16: largest relative difference of udot from Kane's equations: %.3g\n",
                worst);
  assert_true(worst < 1e-7);
  cs_deleteData(d);
  cs_deleteData(w);
  cs_deleteModel(m);
}


// ---------------------------------------------------------------------------------------------
// the mass matrix of a tree of pins and sliders, and the O(n) products and solves with it that
// the implicit integrator uses (src/engine/dynamics.c), against Kane's mass matrix

// a branched tree of pins and sliders with general frames and tilted inertias (two roots)
static csModel* pinSliderTree(void) {
  csModel* m = cs_newModel("pin_slider_tree");
  m->gravity = csu_vec3(0, 0, -9.81);
  csTransform XPF = frame(0.1, 0.02, -0.01, 0, 1, 1, 0.3);
  csTransform XBM = frame(-0.02, 0.01, 0.03, 1, 1, 0, 0.4);
  int a = th_addBody(m, NULL, 0, CS_JOINT_PIN, frame(0.1, 0.2, 1.0, 1, 0, 0, 1.2), XBM, 0.1,
                     csu_vec3(0.05, 0.01, 0), tiltedInertia(0.1, 0.05, 0.01, 0.02, 0.3));
  int b = th_addBody(m, NULL, a, CS_JOINT_PIN, XPF, XBM, 0.2, csu_vec3(0.05, 0, 0.01),
                     tiltedInertia(0.2, 0.05, 0.02, 0.01, 0.7));
  th_addBody(m, NULL, b, CS_JOINT_SLIDER, XPF, XBM, 0.3, csu_vec3(0.02, -0.01, 0),
             tiltedInertia(0.3, 0.03, 0.02, 0.04, 1.1));
  int c = th_addBody(m, NULL, a, CS_JOINT_PIN, frame(0, 0.1, 0, 1, 0, 1, 0.6), XBM, 0.15,
                     csu_vec3(0.04, 0.01, 0.02), tiltedInertia(0.15, 0.02, 0.05, 0.03, 0.2));
  th_addBody(m, NULL, c, CS_JOINT_PIN, XPF, csu_transformIdentity(), 0.1, csu_vec3(0.05, 0, 0),
             tiltedInertia(0.1, 0.05, 0.01, 0.01, 0.9));
  int e = th_addBody(m, NULL, 0, CS_JOINT_SLIDER, frame(1, 0, 0, 0, 0, 1, 0.2), XBM, 0.4,
                     csu_vec3(0.01, -0.02, 0.03), tiltedInertia(0.4, 0.05, 0.06, 0.07, 0.5));
  th_addBody(m, NULL, e, CS_JOINT_PIN, XPF, XBM, 0.25, csu_vec3(0.01, 0.02, -0.01),
             tiltedInertia(0.25, 0.04, 0.03, 0.02, 1.4));
  th_addForce(m, CS_FORCE_GRAVITY, "gravity");
  th_finalize(m);
  return m;
}


// Kane's mass matrix M_jk = sum_b m J_c,j . J_c,k + J_w,j . I J_w,k (row stride MAXU) from the
// partial velocities at the pose of d
static void kaneMassMatrix(const csModel* m, const csData* d, csData* w, double* M) {
  int nu = m->nu;
  double unit[MAXU];
  csVec3 Jc[MAXU][24], Jw[MAXU][24];
  for (int k = 0; k < nu; k++) {
    memset(unit, 0, sizeof(unit));
    unit[k] = 1;
    bodyVelocities(m, w, d->q, unit, Jc[k], Jw[k]);
  }
  memset(M, 0, sizeof(double) * MAXU * MAXU);
  for (int b = 1; b < m->nbody; b++) {
    const csBody* body = &m->body[b];
    const csMat33* R = &w->body_pose[b].R;
    csMat33 RI = csu_mulMM(R, &body->inertia);
    csMat33 Rt = csu_transpose(R);
    csMat33 IG = csu_mulMM(&RI, &Rt);
    for (int j = 0; j < nu; j++) {
      for (int k = 0; k < nu; k++) {
        M[j * MAXU + k] +=
            body->mass * csu_dot(Jc[j][b], Jc[k][b]) + csu_dot(Jw[j][b], csu_mulMV(&IG, Jw[k][b]));
      }
    }
  }
}


// At random poses: the O(n) product M v, column by column (v a unit vector), gives Kane's mass
// matrix and, for any v, Kane's M times v; and the O(n) solve of (M + diag(a)) x = r (a > 0, an armature, as
// the integrator's Newton matrix adds) leaves a residual at round-off when checked with Kane's M
// (on a planar tree the products and solves run in the plane's coordinates, which `planar`
// asks to be checked)
static void checkChainSolves(csModel* m, const char* what, int planar) {
  csData* d = cs_makeData(m);
  csData* w = cs_makeData(m);
  int nb = m->nbody - 1;
  assert_int_equal(m->nu, nb);
  int bodies[MAXU], parent[MAXU];
  for (int k = 0; k < nb; k++) {
    bodies[k] = k + 1;
    int p = m->body[k + 1].parent;
    parent[k] = p == 0 ? -1 : p - 1;
  }
  csChainBody cb[MAXU];
  double M[MAXU * MAXU], K[MAXU * MAXU], scratch[36 * MAXU], IA[36 * MAXU], U[6 * MAXU];
  double D[MAXU], v[MAXU], Mv[MAXU], a[MAXU], r[MAXU], x[MAXU];
  unsigned seed = 31u;
  double worstM = 0, worstMv = 0, worstSolve = 0;
  for (int trial = 0; trial < 20; trial++) {
    randomState(m, d, &seed);
    cs_realizePosition(m, d);
    // about the first body's origin, as the integrator takes it, and on odd trials about a
    // point far away (the matrix is the same; only round-off grows with the distance)
    csVec3 origin = trial % 2 ? csu_vec3(3.0, -2.0, 1.0) : d->body_pose[bodies[0]].p;
    cs_chainSnapshot(m, d, bodies, nb, origin, cb);
    assert_int_equal(cb[0].planar, planar);
    for (int k = 0; k < nb; k++) {
      memset(v, 0, sizeof(v));
      v[k] = 1;
      cs_chainMassTimes(cb, parent, nb, v, M + (size_t)k * nb, scratch);
    }
    kaneMassMatrix(m, d, w, K);
    double scale = 0;
    for (int j = 0; j < nb; j++) {
      for (int k = 0; k < nb; k++) {
        scale = fmax(scale, fabs(K[j * MAXU + k]));
      }
    }
    for (int j = 0; j < nb; j++) {
      for (int k = 0; k < nb; k++) {
        worstM = fmax(worstM, fabs(M[(size_t)k * nb + j] - K[j * MAXU + k]) / scale);
      }
      v[j] = uniform(&seed);
      a[j] = scale * (0.01 + fabs(uniform(&seed)));
      r[j] = uniform(&seed);
    }
    cs_chainMassTimes(cb, parent, nb, v, Mv, scratch);
    for (int j = 0; j < nb; j++) {
      double kv = 0;
      for (int k = 0; k < nb; k++) {
        kv += K[j * MAXU + k] * v[k];
      }
      worstMv = fmax(worstMv, fabs(Mv[j] - kv) / scale);
    }
    assert_int_equal(cs_chainFactor(cb, parent, nb, a, IA, U, D), 0);
    memcpy(x, r, sizeof(double) * (size_t)nb);
    cs_chainSolve(cb, parent, nb, U, D, x, scratch);
    for (int j = 0; j < nb; j++) {
      double res = a[j] * x[j] - r[j];
      for (int k = 0; k < nb; k++) {
        res += K[j * MAXU + k] * x[k];
      }
      worstSolve = fmax(worstSolve, fabs(res));
    }
  }
  print_message("%s, 20 poses: mass matrix against Kane's %.3g, M v %.3g "
                "(relative to the largest entry), residual of the O(n) solve %.3g\n",
                what, worstM, worstMv, worstSolve);
  assert_true(worstM < 1e-12);
  assert_true(worstMv < 1e-12);
  assert_true(worstSolve < 1e-12);
  // an armature that makes a pivot non-positive is refused, not divided by
  for (int j = 0; j < nb; j++) {
    a[j] = -1e6;
  }
  assert_int_not_equal(cs_chainFactor(cb, parent, nb, a, IA, U, D), 0);
  cs_deleteData(d);
  cs_deleteData(w);
  cs_deleteModel(m);
}


static void test_chain_mass_matrix_and_solve(void** state) {
  (void)state;
  checkChainSolves(pinSliderTree(), "pin/slider tree", 0);
  checkChainSolves(planarTree(0, 0, 0, 1), "planar tree", 1);
  checkChainSolves(planarTree(0, 0, 1, 1), "planar tree with a massless link", 1);
}


int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_aba_matches_kane_general_frames),
      cmocka_unit_test(test_aba_matches_kane_aligned_frames),
      cmocka_unit_test(test_aba_matches_kane_ball_chain),
      cmocka_unit_test(test_aba_matches_kane_chain),
      cmocka_unit_test(test_aba_matches_kane_planar_tree),
      cmocka_unit_test(test_planar_tilts_add_up),
      cmocka_unit_test(test_planar_path_matches_general),
      cmocka_unit_test(test_aba_matches_kane_pin_leaves),
      cmocka_unit_test(test_chain_mass_matrix_and_solve),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
