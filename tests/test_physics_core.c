// test_physics_core.c: the multibody core against analytic answers and conservation laws.
// Models are built with the C API so that these tests depend on nothing but the core.
#include <stdio.h>
#include <string.h>

#include "helpers.h"

#define PI 3.14159265358979323846


// options with a hundred reports over the run
static csSimOptions options(double duration, double rtol, double atol) {
  return th_simOptions(duration, rtol, atol, duration / 100);
}


// a free box falls with z = z0 + vz t - g t^2 / 2 and keeps its horizontal velocity
static void test_free_fall(void** state) {
  (void)state;
  csModel* m = cs_newModel("fall");
  int b = th_addFreeBody(m, "box", 2.0, csu_vec3(0, 0, 0),
                         csu_inertiaBox(2.0, csu_vec3(0.1, 0.2, 0.3)));
  th_addForce(m, CS_FORCE_GRAVITY, "gravity");
  th_finalize(m);
  const csBody* body = &m->body[b];
  m->q0[body->qadr + 6] = 10.0;
  m->u0[body->uadr + 3] = 1.5;
  m->u0[body->uadr + 5] = 4.0;
  csSimOptions o = options(2.0, 1e-9, 1e-12);
  csData* d = th_run(m, &o, NULL);
  double t = 2.0, g = 9.81;
  th_assertClose(d->body_pose[b].p.z, 10.0 + 4.0 * t - 0.5 * g * t * t, 1e-7, 1e-9, "z");
  th_assertClose(d->body_pose[b].p.x, 1.5 * t, 1e-7, 1e-9, "x");
  th_assertClose(d->body_vel[b].v.z, 4.0 - g * t, 1e-7, 1e-9, "vz");
  cs_deleteData(d);
  cs_deleteModel(m);
}


// checks every report against the initial energy and angular momentum
typedef struct Conservation {
  double ke0, e0;
  csVec3 h0;
  double max_de, max_dh;
  double max_qnorm_err;
  double min_align;  // smallest |cos| between body 1's y axis and the initial angular momentum
  int use_total;  // 1: compare KE+PE+dissipated, 0: KE only
} Conservation;


static int checkConservation(void* ctx, const csModel* m, csData* d) {
  Conservation* c = ctx;
  double e = c->use_total ? cs_kineticEnergy(m, d) + cs_potentialEnergy(m, d) +
                                cs_dissipatedEnergy(m, d)
                          : cs_kineticEnergy(m, d);
  csVec3 h = cs_angularMomentum(m, d);
  double de = fabs(e - c->e0) / fmax(fabs(c->e0), 1e-12);
  double dh = csu_norm(csu_sub(h, c->h0)) / fmax(csu_norm(c->h0), 1e-12);
  c->max_de = fmax(c->max_de, de);
  c->max_dh = fmax(c->max_dh, dh);
  csVec3 y_axis = csu_column(&d->body_pose[1].R, 1);
  c->min_align = fmin(c->min_align, fabs(csu_dot(y_axis, c->h0)) / fmax(csu_norm(c->h0), 1e-300));
  for (int b = 1; b < m->nbody; b++) {
    const csBody* body = &m->body[b];
    if (body->joint == CS_JOINT_BALL || body->joint == CS_JOINT_FREE) {
      const double* q = d->q + body->qadr;
      double n = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
      c->max_qnorm_err = fmax(c->max_qnorm_err, fabs(n - 1));
    }
  }
  return 0;
}


static void initConservation(Conservation* c, const csModel* m, int use_total) {
  memset(c, 0, sizeof(*c));
  csData* d = cs_makeData(m);
  cs_realizeDynamics(m, d);
  c->use_total = use_total;
  c->e0 = use_total ? cs_kineticEnergy(m, d) + cs_potentialEnergy(m, d) : cs_kineticEnergy(m, d);
  c->h0 = cs_angularMomentum(m, d);
  c->min_align = 1;
  cs_deleteData(d);
}


// run m from its initial state for `duration` s (rtol 1e-9, atol atol), checking every report
// against the initial energy (KE alone, or KE + PE + dissipated) and angular momentum
static csData* runConservingTol(const csModel* m, Conservation* c, int use_total,
                                double duration, double rtol, double atol) {
  initConservation(c, m, use_total);
  csData* d = cs_makeData(m);
  csSimOptions o = options(duration, rtol, atol);
  csReporter rep = {.report = checkConservation, .ctx = c};
  csError err = {0};
  assert_int_equal(cs_simulate(m, d, &o, &rep, &err), CS_OK);
  return d;
}


static csData* runConserving(const csModel* m, Conservation* c, int use_total, double duration,
                             double atol) {
  return runConservingTol(m, c, use_total, duration, 1e-9, atol);
}


static void setQuat(double* q, csQuat r) {
  q[0] = r.w;
  q[1] = r.x;
  q[2] = r.y;
  q[3] = r.z;
}


// torque-free rotation: energy and angular momentum (in Ground) are conserved. About a principal
// axis the angular velocity stays constant; about the intermediate axis the body tumbles, and the
// conservation laws still hold.
static csModel* spinningBody(csVec3 w_body) {
  csModel* m = cs_newModel("spin");
  m->gravity = csu_vec3(0, 0, 0);
  int b = th_addFreeBody(m, "body", 1.0, csu_vec3(0, 0, 0), th_diag(1.0, 2.0, 3.0));
  th_finalize(m);
  const csBody* body = &m->body[b];
  csQuat q = csu_quatFromAxisAngle(csu_vec3(1, 2, 3), 0.7);
  setQuat(m->q0 + body->qadr, q);
  csVec3 wG = csu_quatRotate(q, w_body);
  m->u0[body->uadr] = wG.x;
  m->u0[body->uadr + 1] = wG.y;
  m->u0[body->uadr + 2] = wG.z;
  m->u0[body->uadr + 3] = 0.3;  // drifting, too
  return m;
}


static void test_spin_principal(void** state) {
  (void)state;
  csModel* m = spinningBody(csu_vec3(0, 0, 5.0));
  Conservation c;
  csData* d = runConserving(m, &c, 0, 10.0, 1e-12);
  // the angular velocity in Ground is unchanged
  csVec3 w0 = csu_vec3(m->u0[0], m->u0[1], m->u0[2]);
  assert_true(csu_norm(csu_sub(d->body_vel[1].w, w0)) < 1e-6 * csu_norm(w0));
  assert_true(c.max_de < 1e-7);
  assert_true(c.max_dh < 1e-7);
  cs_deleteData(d);
  cs_deleteModel(m);
}


static void test_spin_intermediate(void** state) {
  (void)state;
  csModel* m = spinningBody(csu_vec3(0.01, 4.0, 0.01));
  Conservation c;
  csData* d = runConserving(m, &c, 0, 20.0, 1e-12);
  // it tumbled: the body's y axis no longer points where the angular momentum does
  assert_true(c.min_align < 0.5);
  assert_true(c.max_de < 1e-6);
  assert_true(c.max_dh < 1e-6);
  assert_true(c.max_qnorm_err < 1e-9);
  cs_deleteData(d);
  cs_deleteModel(m);
}


// pendulum on a pin whose axis is Ground's y: small-angle period 2 pi sqrt(I_O / (m g L))
static csModel* pendulum(double L, double mass, double icom, double theta0) {
  csModel* m = cs_newModel("pendulum");
  // F rotated so that its z axis is Ground's y (pin axis horizontal)
  csTransform XPF = csu_transformFromPosQuat(csu_vec3(0, 0, 1),
                                             csu_quatFromAxisAngle(csu_vec3(1, 0, 0), -PI / 2));
  // F's y axis is Ground's -z, so a COM on the body's +y hangs below the pivot at q = 0
  th_addBody(m, "arm", 0, CS_JOINT_PIN, XPF, csu_transformIdentity(), mass, csu_vec3(0, L, 0),
             th_diag(icom, icom, icom));
  th_addForce(m, CS_FORCE_GRAVITY, "gravity");
  th_finalize(m);
  m->q0[0] = theta0;
  return m;
}


static void test_pendulum_period(void** state) {
  (void)state;
  double L = 1.0, mass = 1.0, icom = 1e-3, g = 9.81, theta0 = 0.01;
  csModel* m = pendulum(L, mass, icom, theta0);
  // at rest the COM hangs straight down under the pivot
  csData* d0 = cs_makeData(m);
  d0->q[0] = 0;
  cs_invalidate(d0);
  cs_realizePosition(m, d0);
  th_assertClose(d0->body_com[1].z, 1.0 - L, 0, 1e-12, "hanging COM height");
  cs_deleteData(d0);

  double period = 2 * PI * sqrt((icom + mass * L * L) / (mass * g * L));
  csSimOptions o = options(3 * period, 1e-10, 1e-12);
  o.report_interval = period / 400;
  thTrace tr = {0};
  csData* d = th_run(m, &o, &tr);
  // the period from the zero crossings of q (downward, interpolated)
  double first = -1, last = -1;
  int crossings = 0;
  for (int i = 1; i < tr.n; i++) {
    double a = tr.q[i - 1], b = tr.q[i];
    if (a > 0 && b <= 0) {
      double tc = tr.t[i - 1] + (tr.t[i] - tr.t[i - 1]) * a / (a - b);
      if (first < 0) {
        first = tc;
      } else {
        crossings++;
      }
      last = tc;
    }
  }
  assert_true(crossings >= 2);
  double measured = (last - first) / crossings;
  // small-angle correction: T(theta0) ~ T0 (1 + theta0^2 / 16)
  th_assertClose(measured, period * (1 + theta0 * theta0 / 16), 1e-5, 0, "pendulum period");
  th_traceFree(&tr);
  cs_deleteData(d);
  cs_deleteModel(m);
}


// slider on a spring: x = A cos(w t); with a damper, the underdamped analytic decay
static void slider(double k, double c, double mass, double x0, double duration, thTrace* tr,
                   csModel** out) {
  csModel* m = cs_newModel("slider");
  m->gravity = csu_vec3(0, 0, 0);
  th_addBody(m, "cart", 0, CS_JOINT_SLIDER, csu_transformIdentity(), csu_transformIdentity(), mass,
             csu_vec3(0, 0, 0), th_diag(0.1, 0.1, 0.1));
  csError err = {0};
  int s = cs_addForce(m, CS_FORCE_MOBILITY_SPRING, "spring", &err);
  assert_int_equal(cs_setForceParam(m, s, "body", 1), 0);
  assert_int_equal(cs_setForceParam(m, s, "stiffness", k), 0);
  if (c > 0) {
    int dmp = cs_addForce(m, CS_FORCE_MOBILITY_DAMPER, "damper", &err);
    assert_int_equal(cs_setForceParam(m, dmp, "body", 1), 0);
    assert_int_equal(cs_setForceParam(m, dmp, "damping", c), 0);
  }
  th_finalize(m);
  m->q0[0] = x0;
  csSimOptions o = options(duration, 1e-10, 1e-12);
  csData* d = th_run(m, &o, tr);
  cs_deleteData(d);
  *out = m;
}


static void test_slider_spring(void** state) {
  (void)state;
  double k = 40, mass = 2, x0 = 0.1;
  double w = sqrt(k / mass);
  thTrace tr = {0};
  csModel* m;
  slider(k, 0, mass, x0, 5.0, &tr, &m);
  for (int i = 0; i < tr.n; i++) {
    th_assertClose(tr.q[i], x0 * cos(w * tr.t[i]), 0, 1e-7, "x(t)");
    th_assertClose(tr.ke[i] + tr.pe[i], 0.5 * k * x0 * x0, 1e-7, 0, "energy");
  }
  th_traceFree(&tr);
  cs_deleteModel(m);
}


static void test_slider_damped(void** state) {
  (void)state;
  double k = 40, c = 1.2, mass = 2, x0 = 0.1;
  double w0 = sqrt(k / mass), zeta = c / (2 * sqrt(k * mass));
  double wd = w0 * sqrt(1 - zeta * zeta);
  thTrace tr = {0};
  csModel* m;
  slider(k, c, mass, x0, 5.0, &tr, &m);
  for (int i = 0; i < tr.n; i++) {
    double t = tr.t[i];
    double x = x0 * exp(-zeta * w0 * t) * (cos(wd * t) + zeta * w0 / wd * sin(wd * t));
    th_assertClose(tr.q[i], x, 0, 1e-7, "damped x(t)");
    // what the damper took is what the oscillator lost
    th_assertClose(tr.ke[i] + tr.pe[i] + tr.diss[i], 0.5 * k * x0 * x0, 1e-6, 0, "energy balance");
  }
  th_traceFree(&tr);
  cs_deleteModel(m);
}


// A free body on ground without children takes a shortcut through the dynamics (its
// Newton-Euler equations about the centre of mass, not the articulated-body recursion); the
// generalized forces of its own mobilizer must reach it there as they reach any other body.
// One damper on one speed of a body spinning or drifting along a principal axis: that speed
// decays as exp(-c t / I) or exp(-c t / m), and the others stay zero.
static void test_free_body_mobility_dampers(void** state) {
  (void)state;
  const double inertia[3] = {0.02, 0.03, 0.04}, mass = 1.5, c = 0.5;
  for (int k = 0; k < 6; k++) {
    char json[1024];
    double u0[6] = {0, 0, 0, 0, 0, 0};
    u0[k] = 1;
    snprintf(json, sizeof(json),
             "{\"gravity\": [0, 0, 0], \"bodies\": [{\"name\": \"b\", \"mass\": %g,"
             " \"inertia\": {\"diag\": [%g, %g, %g]}, \"joint\": {\"type\": \"free\","
             " \"q\": [1, 0, 0, 0, 0, 0, 0], \"u\": [%g, %g, %g, %g, %g, %g]}}],"
             " \"forces\": [{\"type\": \"mobility_damper\", \"body\": \"b\", \"coordinate\": %d,"
             " \"damping\": %g}],"
             " \"simulation\": {\"duration\": 1, \"rtol\": 1e-10, \"atol\": 1e-12}}",
             mass, inertia[0], inertia[1], inertia[2], u0[0], u0[1], u0[2], u0[3], u0[4], u0[5],
             k, c);
    csModel* m = th_loadString(json);
    for (int integ = CS_INTEGRATOR_BDF; integ <= CS_INTEGRATOR_RK; integ++) {
      csSimOptions o = m->opt;
      o.integrator = (csIntegratorType)integ;
      csData* d = th_run(m, &o, NULL);
      double rate = c / (k < 3 ? inertia[k] : mass);
      for (int i = 0; i < 6; i++) {
        th_assertClose(d->u[i], i == k ? exp(-rate) : 0.0, 0, 1e-8, "u(1) of the damped speed");
      }
      cs_deleteData(d);
    }
    cs_deleteModel(m);
  }
}


// The same with everything at once: F tilted and off the origin, M away from the centre of
// mass, a damper on every speed, a general spin; and with F parallel to Ground, M = B, or both,
// where the dynamics skips the identities. What the dampers take is what the body loses:
// KE + dissipated stays at its start value.
static void test_free_body_mobility_forces_energy(void** state) {
  (void)state;
  // the four ways the dynamics' shortcut meets the frames: F turned or parallel to Ground, M
  // offset and turned from B or B itself
  const char* parents[2] = {
      "\"parent_frame\": {\"position\": [0.3, 0.1, -0.2],"
      " \"rotation\": {\"axis\": [1, 2, 3], \"angle_deg\": 40}},",
      "\"parent_frame\": {\"position\": [0.3, 0.1, -0.2]},"};
  const char* children[2] = {
      "\"child_frame\": {\"position\": [0.1, 0.2, -0.05],"
      " \"rotation\": {\"axis\": [0, 1, 1], \"angle_deg\": 25}},",
      ""};
  for (int variant = 0; variant < 4; variant++) {
    char json[4096];
    snprintf(json, sizeof(json),
             "{\"gravity\": [0, 0, 0], \"bodies\": [{\"name\": \"b\", \"mass\": 2,"
             " \"com\": [0.05, -0.02, 0.1], \"inertia\": {\"diag\": [0.02, 0.03, 0.04]},"
             " \"joint\": {\"type\": \"free\", %s %s"
             " \"q\": [1, 0, 0, 0, 0.1, 0, 0], \"u\": [1.5, -2, 0.7, 0.3, -0.4, 0.5]}}],"
             " \"forces\": [",
             parents[variant / 2], children[variant % 2]);
    for (int k = 0; k < 6; k++) {
      char e[256];
      snprintf(e, sizeof(e),
               "%s{\"type\": \"mobility_damper\", \"body\": \"b\", \"coordinate\": %d,"
               " \"damping\": %g}",
               k ? "," : "", k, 0.05 + 0.03 * k);
      strcat(json, e);
    }
    strcat(json, "], \"simulation\": {\"duration\": 3, \"report_interval\": 0.05,"
                 " \"rtol\": 1e-10, \"atol\": 1e-12}}");
    csModel* m = th_loadString(json);
    thTrace tr = {0};
    csData* d = th_run(m, NULL, &tr);
    double e0 = tr.ke[0] + tr.pe[0];
    // the dampers take a good part of the energy over the run
    assert_true(tr.diss[tr.n - 1] > 0.2 * e0);
    for (int i = 0; i < tr.n; i++) {
      th_assertClose(tr.ke[i] + tr.pe[i] + tr.diss[i], e0, 1e-7, 0, "KE + PE + dissipated");
    }
    th_traceFree(&tr);
    cs_deleteData(d);
    cs_deleteModel(m);
  }
}


// a double pendulum swinging wildly conserves KE + PE for 10 s
static void test_double_pendulum_energy(void** state) {
  (void)state;
  csModel* m = cs_newModel("double");
  csTransform XPF = csu_transformFromPosQuat(csu_vec3(0, 0, 2),
                                             csu_quatFromAxisAngle(csu_vec3(1, 0, 0), PI / 2));
  int a = th_addBody(m, "upper", 0, CS_JOINT_PIN, XPF, csu_transformIdentity(), 1.0,
                     csu_vec3(0.5, 0, 0), csu_inertiaCylinder(1.0, 0.02, 0.5));
  csTransform XPF2 = csu_transformFromPosQuat(csu_vec3(1, 0, 0), csu_quatIdentity());
  th_addBody(m, "lower", a, CS_JOINT_PIN, XPF2, csu_transformIdentity(), 0.7, csu_vec3(0.4, 0, 0),
             csu_inertiaBox(0.7, csu_vec3(0.4, 0.03, 0.03)));
  th_addForce(m, CS_FORCE_GRAVITY, "gravity");
  th_finalize(m);
  m->q0[0] = 1.2;
  m->q0[1] = -0.4;
  m->u0[1] = 3.0;
  Conservation c;
  csData* d = runConserving(m, &c, 1, 10.0, 1e-11);
  assert_true(c.max_de < 1e-6);
  cs_deleteData(d);
  cs_deleteModel(m);
}


// a chain of three bodies on ball joints with offsets in every direction conserves energy, and
// so, about the fixed pivot's vertical axis, the vertical component of angular momentum
static void test_ball_chain_energy(void** state) {
  (void)state;
  csModel* m = cs_newModel("chain");
  int parent = 0;
  csTransform XPF = csu_transformFromPosQuat(csu_vec3(0, 0, 0), csu_quatIdentity());
  for (int i = 0; i < 3; i++) {
    char name[16];
    snprintf(name, sizeof(name), "link%d", i);
    csTransform XBM = csu_transformFromPosQuat(csu_vec3(0.05 * i, 0.02, 0.3),
                                               csu_quatFromAxisAngle(csu_vec3(0, 1, 1), 0.3 * i));
    parent = th_addBody(m, name, parent, CS_JOINT_BALL, XPF, XBM, 1.0 + 0.5 * i,
                        csu_vec3(0.01, -0.02, 0.0),
                        csu_inertiaBox(1.0 + 0.5 * i, csu_vec3(0.05, 0.06, 0.3)));
    XPF = csu_transformFromPosQuat(csu_vec3(0.0, 0.03, -0.3), csu_quatIdentity());
  }
  th_addForce(m, CS_FORCE_GRAVITY, "gravity");
  th_finalize(m);
  for (int b = 1; b < m->nbody; b++) {
    const csBody* body = &m->body[b];
    setQuat(m->q0 + body->qadr, csu_quatFromAxisAngle(csu_vec3(1, 0.3 * b, 0), 0.4 + 0.2 * b));
    m->u0[body->uadr] = 1.0;
    m->u0[body->uadr + 2] = 2.0 - b;
  }
  // at rtol 1e-9 this chaotic chain's largest energy error over 10 s spreads from 0.8e-6 to
  // 2.1e-6 when one initial speed changes by a few parts in 1e15 (the step sequence changes), so
  // a 1e-6 bound there tested round-off luck; at rtol 1e-10 the same spread is 0.5e-7 to 1.2e-7
  Conservation c;
  csData* d = runConservingTol(m, &c, 1, 10.0, 1e-10, 1e-11);
  assert_true(c.max_de < 1e-6);
  assert_true(c.max_qnorm_err < 1e-9);
  // gravity exerts no moment about the vertical through the fixed pivot
  csVec3 h = cs_angularMomentum(m, d);
  th_assertClose(h.z, c.h0.z, 1e-5, 1e-9, "vertical angular momentum");
  cs_deleteData(d);
  cs_deleteModel(m);
}


// many steps of a tumbling body keep every quaternion at unit length (BDF projects them; Adams
// relies on the kinematic pull toward the unit sphere)
static void quaternionNorm(csIntegratorType integrator, long min_steps, double tol) {
  csModel* m = spinningBody(csu_vec3(0.3, 6.0, 0.2));
  csData* d = cs_makeData(m);
  csSimOptions o = options(1.0, 1e-10, 1e-12);
  o.integrator = integrator;
  o.max_step = 1e-5;
  o.report_interval = 0.01;
  Conservation c;
  initConservation(&c, m, 0);
  csReporter rep = {.report = checkConservation, .ctx = &c};
  csError err = {0};
  while (d->stat.nsteps < min_steps) {
    long before = d->stat.nsteps;
    d->stat.nsteps = 0;
    assert_int_equal(cs_simulate(m, d, &o, &rep, &err), CS_OK);
    d->stat.nsteps += before;
  }
  assert_true(c.max_qnorm_err < tol);
  assert_true(c.max_de < 1e-6);
  cs_deleteData(d);
  cs_deleteModel(m);
}


static void test_quaternion_norm_bdf(void** state) {
  (void)state;
  quaternionNorm(CS_INTEGRATOR_BDF, 1000000, 1e-12);
}


static void test_quaternion_norm_adams(void** state) {
  (void)state;
  quaternionNorm(CS_INTEGRATOR_ADAMS, 200000, 1e-8);
}


// the commit counter's auto-update variable advances once per successful step, never on trials
static void test_autoupdate_once_per_step(void** state) {
  (void)state;
  csModel* m = pendulum(1.0, 1.0, 1e-3, 1.0);
  csError err = {0};
  int e = cs_addForce(m, CS_FORCE_COUNTER, "counter", &err);
  assert_true(e < 0);  // the model is finalized: adding is refused
  cs_deleteModel(m);

  m = cs_newModel("pendulum");
  csTransform XPF = csu_transformFromPosQuat(csu_vec3(0, 0, 1),
                                             csu_quatFromAxisAngle(csu_vec3(1, 0, 0), -PI / 2));
  th_addBody(m, "arm", 0, CS_JOINT_PIN, XPF, csu_transformIdentity(), 1, csu_vec3(0, 1, 0),
             th_diag(1e-3, 1e-3, 1e-3));
  th_addForce(m, CS_FORCE_GRAVITY, "gravity");
  e = cs_addForce(m, CS_FORCE_COUNTER, "counter", &err);
  assert_true(e >= 0);
  th_finalize(m);
  m->q0[0] = 1.0;
  csSimOptions o = options(5.0, 1e-8, 1e-10);
  csData* d = th_run(m, &o, NULL);
  assert_true(d->stat.nsteps > 100);
  assert_true(d->stat.nrhs > d->stat.nsteps);  // trials happened
  assert_int_equal((long)d->autoval[m->force[e].autoadr], d->stat.nsteps);
  assert_int_equal(d->stat.ncommit, d->stat.nsteps);
  // the last step size seen by the element is a real step: positive and no longer than the run
  assert_true(d->disc[m->force[e].discadr] > 0);
  cs_deleteData(d);
  cs_deleteModel(m);
}


// a right-hand-side evaluation allocates nothing
static void test_rhs_allocates_nothing(void** state) {
  (void)state;
  csModel* m = spinningBody(csu_vec3(1, 2, 3));
  csData* d = cs_makeData(m);
  long before = csu_allocationCount();
  for (int i = 0; i < 100; i++) {
    d->u[0] += 1e-3;
    cs_invalidate(d);
    assert_int_equal(cs_forward(m, d), 0);
  }
  assert_int_equal(csu_allocationCount(), before);
  cs_deleteData(d);
  cs_deleteModel(m);
}


int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_free_fall),
      cmocka_unit_test(test_spin_principal),
      cmocka_unit_test(test_spin_intermediate),
      cmocka_unit_test(test_pendulum_period),
      cmocka_unit_test(test_slider_spring),
      cmocka_unit_test(test_slider_damped),
      cmocka_unit_test(test_free_body_mobility_dampers),
      cmocka_unit_test(test_free_body_mobility_forces_energy),
      cmocka_unit_test(test_double_pendulum_energy),
      cmocka_unit_test(test_ball_chain_energy),
      cmocka_unit_test(test_quaternion_norm_bdf),
      cmocka_unit_test(test_quaternion_norm_adams),
      cmocka_unit_test(test_autoupdate_once_per_step),
      cmocka_unit_test(test_rhs_allocates_nothing),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
