// test_rk.c: the one-step integrators, "rk" (Dormand-Prince 5(4), rk.c), "rk23" (Bogacki-Shampine
// 3(2), rk.c) and "ark" (additive Runge-Kutta, ark.c), against analytic answers and conservation
// laws, with auto-update commits, scheduled changes, checkpoints, interrupted runs and their
// statistics. The tests of the integration loop run once per integrator (the groups at the
// end); those of the explicit pairs themselves run once per pair, and ark's own are in
// test_ark.c.
#include "helpers.h"

#include "engine/rk.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PI 3.14159265358979323846
#define G 9.81


// the integrator of the group running (main)
static csIntegratorType g_integ = CS_INTEGRATOR_RK;

static int useRk(void** state) {
  (void)state;
  g_integ = CS_INTEGRATOR_RK;
  return 0;
}

static int useRk23(void** state) {
  (void)state;
  g_integ = CS_INTEGRATOR_RK23;
  return 0;
}

static int useArk(void** state) {
  (void)state;
  g_integ = CS_INTEGRATOR_ARK;
  return 0;
}


static const char* integName(void) {
  static const char* const names[] = CS_INTEGRATOR_NAMES;
  return names[g_integ];
}


static csSimOptions rkOptions(double duration, double rtol, double atol, double report_interval) {
  csSimOptions o = th_simOptions(duration, rtol, atol, report_interval);
  o.integrator = g_integ;
  return o;
}


// complete elliptic integral of the first kind K(k) by the arithmetic-geometric mean
static double ellipticK(double k) {
  double a = 1, b = sqrt(1 - k * k);
  for (int i = 0; i < 30; i++) {
    double an = 0.5 * (a + b);
    b = sqrt(a * b);
    a = an;
  }
  return PI / (2 * a);
}


// a pendulum on a pin whose axis is Ground's y, COM at distance L below the pivot at q = 0
static csModel* pendulum(double L, double mass, double icom, double theta0) {
  csModel* m = cs_newModel("pendulum");
  csTransform XPF = csu_transformFromPosQuat(csu_vec3(0, 0, 1),
                                             csu_quatFromAxisAngle(csu_vec3(1, 0, 0), -PI / 2));
  th_addBody(m, "arm", 0, CS_JOINT_PIN, XPF, csu_transformIdentity(), mass, csu_vec3(0, L, 0),
             th_diag(icom, icom, icom));
  th_addForce(m, CS_FORCE_GRAVITY, "gravity");
  th_finalize(m);
  m->q0[0] = theta0;
  return m;
}


// released from 1.5 rad the period is 4 sqrt(I_O / (m g L)) K(sin(theta0 / 2)), 17 % longer
// than the small-angle one; measured from the downward zero crossings of the reports
static void test_pendulum_period_large_amplitude(void** state) {
  (void)state;
  double L = 0.8, mass = 1.5, icom = 2e-3, theta0 = 1.5;
  csModel* m = pendulum(L, mass, icom, theta0);
  double io = icom + mass * L * L;
  double period = 4 * sqrt(io / (mass * G * L)) * ellipticK(sin(theta0 / 2));
  csSimOptions o = rkOptions(3.2 * period, 1e-10, 1e-12, period / 500);
  thTrace tr = {0};
  csData* d = th_run(m, &o, &tr);
  double first = -1, last = -1;
  int crossings = 0;
  for (int i = 1; i < tr.n; i++) {
    double a = tr.q[i - 1], b = tr.q[i];
    if (a > 0 && b <= 0) {
      double tc = tr.t[i - 1] + (tr.t[i] - tr.t[i - 1]) * a / (a - b);
      crossings += first >= 0;
      first = first < 0 ? tc : first;
      last = tc;
    }
  }
  assert_true(crossings >= 2);
  th_assertClose((last - first) / crossings, period, 1e-7, 0, "large-amplitude period");
  // no damping: the energy stays where it started, to about ten times rtol over the 3.2
  // periods (the reports come from the dense output: of order 4 with rk, 3 with rk23 and ark)
  for (int i = 0; i < tr.n; i++) {
    th_assertClose(tr.ke[i] + tr.pe[i], tr.ke[0] + tr.pe[0], 2e-9, 0, "pendulum energy");
  }
  assert_int_equal(d->stat.njac, g_integ == CS_INTEGRATOR_ARK ? d->stat.nsteps : 0);
  th_traceFree(&tr);
  cs_deleteData(d);
  cs_deleteModel(m);
}


// a box thrown spinning about its principal z axis flies a parabola and keeps spinning at the
// same rate: z = z0 + vz t - g t^2 / 2, orientation a rotation by w t about z; its quaternion is
// put back on the unit sphere whenever |q| drifts from 1 by more than 1e-9 (explicit
// Runge-Kutta has no projection)
static void test_projectile_spinning(void** state) {
  (void)state;
  csModel* m = cs_newModel("throw");
  int b = th_addFreeBody(m, "box", 2.0, csu_vec3(0, 0, 0),
                         csu_inertiaBox(2.0, csu_vec3(0.1, 0.2, 0.3)));
  th_addForce(m, CS_FORCE_GRAVITY, "gravity");
  th_finalize(m);
  const csBody* body = &m->body[b];
  double w = 7.0;
  m->q0[body->qadr + 6] = 10.0;
  m->u0[body->uadr + 2] = w;
  m->u0[body->uadr + 3] = 1.5;
  m->u0[body->uadr + 5] = 4.0;
  csSimOptions o = rkOptions(2.0, 1e-10, 1e-12, 0.02);
  csData* d = th_run(m, &o, NULL);
  double t = 2.0;
  th_assertClose(d->body_pose[b].p.z, 10.0 + 4.0 * t - 0.5 * G * t * t, 1e-9, 1e-9, "z");
  th_assertClose(d->body_pose[b].p.x, 1.5 * t, 1e-9, 1e-9, "x");
  th_assertClose(d->body_vel[b].v.z, 4.0 - G * t, 1e-9, 1e-9, "vz");
  th_assertClose(d->body_vel[b].w.z, w, 1e-9, 0, "spin rate");
  // the orientation: q = (cos(w t / 2), 0, 0, sin(w t / 2)), up to sign
  const double* q = d->q + body->qadr;
  double c = cos(w * t / 2), s = sin(w * t / 2), sign = q[0] * c + q[3] * s < 0 ? -1 : 1;
  th_assertClose(sign * q[0], c, 0, 1e-8, "qw");
  th_assertClose(sign * q[3], s, 0, 1e-8, "qz");
  th_assertClose(sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]), 1, 0, 1e-9, "|q|");
  cs_deleteData(d);
  cs_deleteModel(m);
}


// the largest | |q| - 1 | a step hook sees (before the step's commit puts q back)
static void quatDrift(void* ctx, const csModel* m, csData* d) {
  double* drift = ctx;
  const double* q = d->q + m->body[1].qadr;
  double n = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
  *drift = fmax(*drift, fabs(n - 1));
}


// a body tumbling about its intermediate axis at loose tolerances: Dormand and Prince's steps
// change |q| by far more than rounding, and rk puts the quaternion back whenever it has drifted
// by more than 1e-9, so no step starts further from the unit sphere than that
static void test_quaternion_kept_on_sphere(void** state) {
  (void)state;
  csModel* m = cs_newModel("tumble");
  m->gravity = csu_vec3(0, 0, 0);
  int b = th_addFreeBody(m, "body", 1.0, csu_vec3(0, 0, 0),
                         csu_inertiaBox(1.0, csu_vec3(0.1, 0.2, 0.3)));
  th_finalize(m);
  const csBody* body = &m->body[b];
  m->u0[body->uadr] = 0.1;
  m->u0[body->uadr + 1] = 20.0;
  m->u0[body->uadr + 2] = 0.1;
  csSimOptions o = rkOptions(20.0, 1e-3, 1e-3, 0.1);
  double drift = 0;
  csReporter rep = {.step = quatDrift, .ctx = &drift};
  csData* d = cs_makeData(m);
  csError err = {0};
  assert_int_equal(cs_simulate(m, d, &o, &rep, &err), CS_OK);
  const double* q = d->q + body->qadr;
  double n = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
  print_message("%s tumbling at rtol 1e-3: |q| - 1 up to %.3g at step ends, %.3g at the end, "
                "%ld steps\n", integName(), drift, n - 1, d->stat.nsteps);
  // the steps do drift (up to 6e-4 in one step here; 2e-3 by the end if never put back)
  assert_true(drift > 1e-9);
  assert_true(fabs(n - 1) <= 1e-9);
  cs_deleteData(d);
  cs_deleteModel(m);
}


// stepped one integrator step at a time (cs_simStep), switched from BDF to rk half way
// (cs_simSetOptions), a box in free flight still follows z = z0 + vz t - g t^2 / 2 exactly at
// every step's end
static void test_step_by_step_and_switch(void** state) {
  (void)state;
  csModel* m = cs_newModel("throw");
  int b = th_addFreeBody(m, "box", 2.0, csu_vec3(0, 0, 0),
                         csu_inertiaBox(2.0, csu_vec3(0.1, 0.2, 0.3)));
  th_addForce(m, CS_FORCE_GRAVITY, "gravity");
  th_finalize(m);
  m->q0[m->body[b].qadr + 6] = 10.0;
  m->u0[m->body[b].uadr + 5] = 4.0;
  m->u0[m->body[b].uadr + 1] = 3.0;
  csSimOptions o = th_simOptions(1.0, 1e-10, 1e-12, 0.1);
  csError err = {0};
  csSimulation* s = cs_newSimulation(m, &o, &err);
  assert_non_null(s);
  assert_int_equal(cs_simAdvanceTo(s, 0.3, &err), CS_OK);
  o.integrator = g_integ;
  assert_int_equal(cs_simSetOptions(s, &o, &err), CS_OK);
  int steps = 0;
  while (cs_simTime(s) < 0.8) {
    double before = cs_simTime(s);
    assert_int_equal(cs_simStep(s, &err), CS_OK);
    assert_true(cs_simTime(s) > before);
    double t = cs_simTime(s), p[3], q[4];
    cs_simBodyPose(s, b, p, q);
    th_assertClose(p[2], 10.0 + 4.0 * t - 0.5 * G * t * t, 0, 1e-9, "z after each rk step");
    th_assertClose(sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]), 1, 0, 1e-9, "|q|");
    steps++;
  }
  assert_true(steps > 3);
  assert_int_equal(cs_simOptions(s).integrator, g_integ);
  cs_deleteSimulation(s);
  cs_deleteModel(m);
}


// checks at every report: KE + PE against the start, and the quaternions' unit length
typedef struct Conservation {
  double e0;
  int started;
  double max_de, max_qnorm_err;
} Conservation;


static int checkConservation(void* ctx, const csModel* m, csData* d) {
  Conservation* c = ctx;
  double e = cs_kineticEnergy(m, d) + cs_potentialEnergy(m, d);
  if (!c->started) {
    c->e0 = e;
    c->started = 1;
  }
  c->max_de = fmax(c->max_de, fabs(e - c->e0) / fmax(fabs(c->e0), 1e-12));
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


// a chain of three bodies on ball joints, tumbling for 10 s without friction: KE + PE is
// conserved, every quaternion stays on the unit sphere (also between commits, at interpolated
// reports), and gravity exerts no moment about the vertical through the fixed pivot
static void test_ball_chain_conserves_energy(void** state) {
  (void)state;
  csModel* m = cs_newModel("chain");
  int parent = 0;
  csTransform XPF = csu_transformIdentity();
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
    csQuat r = csu_quatFromAxisAngle(csu_vec3(1, 0.3 * b, 0), 0.4 + 0.2 * b);
    m->q0[body->qadr] = r.w;
    m->q0[body->qadr + 1] = r.x;
    m->q0[body->qadr + 2] = r.y;
    m->q0[body->qadr + 3] = r.z;
    m->u0[body->uadr] = 1.0;
    m->u0[body->uadr + 2] = 2.0 - b;
  }
  csData* d = cs_makeData(m);
  csVec3 h0 = cs_angularMomentum(m, d);
  Conservation c = {0};
  csReporter rep = {.report = checkConservation, .ctx = &c};
  csSimOptions o = rkOptions(10.0, 1e-10, 1e-12, 0.01);
  csError err = {0};
  assert_int_equal(cs_simulate(m, d, &o, &rep, &err), CS_OK);
  print_message("ball chain, %s: energy drift %.3g, |q| - 1 up to %.3g, %ld steps, %ld RHS\n",
                integName(), c.max_de, c.max_qnorm_err, d->stat.nsteps, d->stat.nrhs);
  assert_true(c.max_de < 1e-7);
  // at the step ends within the renormalisation's 1e-9; between them rk's interpolant is of
  // order 4, ark's and rk23's the cubic Hermite one
  assert_true(c.max_qnorm_err < (g_integ == CS_INTEGRATOR_RK ? 1e-10 : 1e-9));
  th_assertClose(cs_angularMomentum(m, d).z, h0.z, 1e-6, 1e-9, "vertical angular momentum");
  cs_deleteData(d);
  cs_deleteModel(m);
}


// the commit counter (an auto-update variable counting commits) advances once per successful
// step, never on rejected trials, and the statistics are a one-step method's: at least six
// right-hand sides per step (Dormand-Prince, first same as last; ark's five stages and the
// step's end; three for Bogacki-Shampine), no Newton iteration; Jacobians none with rk and
// rk23, one per step with ark, of one evaluation per position and speed
static void test_commits_and_statistics(void** state) {
  (void)state;
  csModel* m = cs_newModel("pendulum");
  csTransform XPF = csu_transformFromPosQuat(csu_vec3(0, 0, 1),
                                             csu_quatFromAxisAngle(csu_vec3(1, 0, 0), -PI / 2));
  th_addBody(m, "arm", 0, CS_JOINT_PIN, XPF, csu_transformIdentity(), 1, csu_vec3(0, 1, 0),
             th_diag(1e-3, 1e-3, 1e-3));
  th_addForce(m, CS_FORCE_GRAVITY, "gravity");
  csError err = {0};
  int e = cs_addForce(m, CS_FORCE_COUNTER, "counter", &err);
  assert_true(e >= 0);
  th_finalize(m);
  m->q0[0] = 1.0;
  csSimOptions o = rkOptions(5.0, 1e-8, 1e-10, 0.05);
  csData* d = th_run(m, &o, NULL);
  const csStats* st = &d->stat;
  print_message("%s pendulum: %ld steps, %ld RHS, %ld error-test failures\n", integName(),
                st->nsteps, st->nrhs, st->netf);
  assert_true(st->nsteps > 100);
  assert_int_equal((long)d->autoval[m->force[e].autoadr], st->nsteps);
  assert_int_equal(st->ncommit, st->nsteps);
  long per = g_integ == CS_INTEGRATOR_RK23 ? 3 : 6;
  assert_true(st->nrhs >= per * st->nsteps);
  // at most one more per attempt (the stages and a fresh first stage after a commit) and one
  // per interpolated report
  assert_true(st->nrhs <= (per + 1) * (st->nsteps + st->netf) + 2 * st->nreport + 10);
  long jac = g_integ == CS_INTEGRATOR_ARK ? st->nsteps : 0;
  assert_int_equal(st->njac, jac);
  assert_int_equal(st->nrhs_jac, jac * (m->nq + m->nu));
  assert_int_equal(st->nncf, 0);
  assert_true(st->last_step > 0 && st->last_step < 1);
  assert_int_equal(st->ngroup, 1);
  cs_deleteData(d);
  cs_deleteModel(m);
}


// the cube of scenes/exp_spring_incline.json on a 20 degree ramp: the friction anchors (auto-
// update variables committed after every step) hold it, the four springs carrying exactly its
// weight, m g straight up; the scheduled change at 2 s lowers mu_static to 0.2 and it slides with
// g (sin 20 - 0.2 cos 20)
static void test_incline_holds_then_slides(void** state) {
  (void)state;
  csModel* m = th_loadFile("scenes/exp_spring_incline.json");
  csSimOptions o = cs_modelOptions(m);
  o.integrator = g_integ;
  csError err = {0};
  csSimulation* s = cs_newSimulation(m, &o, &err);
  assert_non_null(s);
  assert_int_equal(cs_simAdvanceTo(s, 1.0, &err), CS_OK);
  double p1[3], p19[3];
  cs_simBodyPose(s, 1, p1, NULL);
  assert_int_equal(cs_simAdvanceTo(s, 1.9, &err), CS_OK);
  cs_simBodyPose(s, 1, p19, NULL);
  double total[3] = {0, 0, 0};
  for (int e = 0; e < cs_modelCount(m, CS_COUNT_FORCE); e++) {
    if (cs_modelForceIsContact(m, e)) {
      csContactReport r;
      assert_int_equal(cs_simContact(s, e, &r), 0);
      total[0] += r.force.v.x;
      total[1] += r.force.v.y;
      total[2] += r.force.v.z;
    }
  }
  double mg = cs_modelBodyMass(m, 1) * G;
  print_message(
      "%s incline: contact force (%.9g, %.9g, %.9g) N, m g = %.9g N; drift from 1 to "
      "1.9 s %.3g m\n",
      integName(), total[0], total[1], total[2], mg,
      sqrt((p19[0] - p1[0]) * (p19[0] - p1[0]) + (p19[2] - p1[2]) * (p19[2] - p1[2])));
  th_assertClose(total[0], 0, 0, 1e-6 * mg, "resting force, x");
  th_assertClose(total[1], 0, 0, 1e-6 * mg, "resting force, y");
  th_assertClose(total[2], mg, 1e-6, 0, "resting force, z");
  for (int i = 0; i < 3; i++) {
    th_assertClose(p19[i], p1[i], 0, 1e-6, "block held by its anchors");
  }
  // sliding after the change: the acceleration along the ramp from the velocities at 3 and 4 s
  double v3[3], v4[3];
  assert_int_equal(cs_simAdvanceTo(s, 3.0, &err), CS_OK);
  cs_simBodyVelocity(s, 1, NULL, v3);
  assert_int_equal(cs_simAdvanceTo(s, 4.0, &err), CS_OK);
  cs_simBodyVelocity(s, 1, NULL, v4);
  double th = 20 * PI / 180;
  double a = (v4[0] - v3[0]) * cos(th) - (v4[2] - v3[2]) * sin(th);
  th_assertClose(a, G * (sin(th) - 0.2 * cos(th)), 0.01, 0, "acceleration down the ramp");
  cs_deleteSimulation(s);
  cs_deleteModel(m);
}


static void scratch(char* out, size_t n, const char* name) {
  const char* dir = getenv("TMPDIR");
  snprintf(out, n, "%s/test_rk_%ld_%s", dir && dir[0] ? dir : "/tmp", (long)getpid(), name);
}


// a run continued from a checkpoint taken while the cube slides matches the uninterrupted one
// to the integration tolerance (docs/c-api.md: checkpoints hold the state, not the integrator's
// step size, which the continued run estimates afresh)
static void test_checkpoint_continues(void** state) {
  (void)state;
  csModel* m = th_loadFile("scenes/exp_spring_incline.json");
  csSimOptions o = cs_modelOptions(m);
  o.integrator = g_integ;
  char path[1024];
  scratch(path, sizeof(path), "incline.state");
  csError err = {0};
  csSimulation* a = cs_newSimulation(m, &o, &err);
  assert_non_null(a);
  assert_int_equal(cs_simAdvanceTo(a, 2.5, &err), CS_OK);
  assert_int_equal(cs_simSaveState(a, path, &err), CS_OK);
  assert_int_equal(cs_simAdvanceTo(a, 4.0, &err), CS_OK);
  csSimulation* b = cs_newSimulation(m, &o, &err);
  assert_non_null(b);
  assert_int_equal(cs_simLoadState(b, path, &err), CS_OK);
  assert_true(cs_simTime(b) == 2.5);
  assert_int_equal(cs_simAdvanceTo(b, 4.0, &err), CS_OK);
  double pa[3], pb[3], va[3], vb[3];
  cs_simBodyPose(a, 1, pa, NULL);
  cs_simBodyPose(b, 1, pb, NULL);
  cs_simBodyVelocity(a, 1, NULL, va);
  cs_simBodyVelocity(b, 1, NULL, vb);
  for (int i = 0; i < 3; i++) {
    th_assertClose(pb[i], pa[i], 0, 1e-5, "continued run's block position");
    th_assertClose(vb[i], va[i], 0, 1e-5, "continued run's block velocity");
  }
  // and it really slid in between: 1.5 s at about 1.5 m/s^2
  assert_true(fabs(pa[0]) > 1.0);
  cs_deleteSimulation(a);
  cs_deleteSimulation(b);
  cs_deleteModel(m);
  remove(path);
}


// a run stopped on request (after some report) returns to that report and, continued, ends
// where an uninterrupted run does; two balls bounce on their own, each group with its own steps
typedef struct StopAfter {
  int after, reports;
  volatile int flag;
  double last;
} StopAfter;


static int countReport(void* ctx, const csModel* m, csData* d) {
  (void)m;
  StopAfter* c = ctx;
  c->last = d->t;
  if (++c->reports == c->after) {
    c->flag = 1;
  }
  return 0;
}


static void test_stopped_run_continues(void** state) {
  (void)state;
  csModel* m = th_loadString(
      "{\"name\": \"two\", \"gravity\": [0, 0, -9.81],\n"
      " \"bodies\": [{\"name\": \"a\", \"mass\": 1, \"inertia\": {\"sphere\": 0.1},\n"
      "   \"joint\": {\"type\": \"free\", \"initial\": {\"position\": [0, 0, 0.3],\n"
      "                                        \"velocity\": [0.3, 0, 0]}}},\n"
      "  {\"name\": \"b\", \"mass\": 2, \"inertia\": {\"sphere\": 0.1},\n"
      "   \"joint\": {\"type\": \"free\", \"initial\": {\"position\": [1, 0, 0.45]}}}],\n"
      " \"planes\": [{\"name\": \"floor\"}],\n"
      " \"contacts\": [{\"name\": \"ca\", \"body\": \"a\", \"plane\": \"floor\",\n"
      "                 \"points\": [[0, 0, 0]], \"radius\": 0.1},\n"
      "                {\"name\": \"cb\", \"body\": \"b\", \"plane\": \"floor\",\n"
      "                 \"points\": [[0, 0, 0]], \"radius\": 0.1}],\n"
      " \"contact_models\": {\"hunt_crossley\": {\"plane_strain_modulus\": 3e6,\n"
      "   \"dissipation\": 0.3, \"mu_static\": 0.5, \"mu_dynamic\": 0.4}},\n"
      " \"simulation\": {\"duration\": 1, \"integrator\": \"rk\", \"rtol\": 1e-9,\n"
      "                \"atol\": 1e-11, \"report_interval\": 0.01}}\n");
  assert_int_equal(cs_modelOptions(m).integrator, CS_INTEGRATOR_RK);
  csSimOptions o = cs_modelOptions(m);
  o.integrator = g_integ;
  csError err = {0};
  csSimulation* a = cs_newSimulation(m, &o, &err);
  assert_non_null(a);
  assert_int_equal(cs_simRun(a, 1.0, NULL, &err), CS_OK);
  csRunStatistics st;
  cs_simStatistics(a, &st);
  assert_int_equal(st.ngroup, 2);
  assert_true(st.nsteps > 0 && st.nrhs >= (g_integ == CS_INTEGRATOR_RK23 ? 3 : 6) * st.nsteps);
  for (int after = 15; after <= 45; after += 15) {
    csSimulation* b = cs_newSimulation(m, &o, &err);
    StopAfter c = {.after = after};
    csReporter rep = {.report = countReport, .ctx = &c, .stop = &c.flag};
    assert_int_equal(cs_simRun(b, 1.0, &rep, &err), CS_STOPPED);
    assert_true(cs_simTime(b) == c.last);
    c.flag = 0;
    assert_int_equal(cs_simRun(b, 1.0, &rep, &err), CS_OK);
    assert_true(cs_simTime(b) == 1.0);
    for (int body = 1; body <= 2; body++) {
      double pa[3], pb[3];
      cs_simBodyPose(a, body, pa, NULL);
      cs_simBodyPose(b, body, pb, NULL);
      for (int i = 0; i < 3; i++) {
        th_assertClose(pb[i], pa[i], 0, 1e-6, "stopped and continued run's body position");
      }
    }
    cs_deleteSimulation(b);
  }
  cs_deleteSimulation(a);
  cs_deleteModel(m);
}


// a cart on a spring between stops at +-0.05 m; a scheduled change moves its upper stop away
// at 0.35 s: after it the cart swings out to the amplitude the spring allows, x = v / w
static void test_scheduled_change(void** state) {
  (void)state;
  csModel* m = cs_newModel("stop");
  m->gravity = csu_vec3(0, 0, 0);
  int id = th_addBody(m, "cart", 0, CS_JOINT_SLIDER, csu_transformIdentity(),
                      csu_transformIdentity(), 1.0, csu_vec3(0, 0, 0), csu_identity33());
  int s = th_addForce(m, CS_FORCE_LINEAR_STOP, "stop");
  th_setParam(m, s, "body", id);
  th_setParam(m, s, "lower_bound", -0.05);
  th_setParam(m, s, "upper_bound", 0.05);
  th_setParam(m, s, "stiffness", 1e4);
  th_setParam(m, s, "dissipation", 0.0);
  const csForceKind* k = cs_forceKind(CS_FORCE_LINEAR_STOP);
  int upper = -1;
  for (int i = 0; i < k->discnum; i++) {
    upper = strcmp(k->discnames[i], "upper_bound") == 0 ? i : upper;
  }
  assert_true(upper >= 0);
  csError err = {0};
  csChange c = {.time = 0.35, .force = s, .index = upper, .value = 10.0};
  assert_true(cs_addChange(m, &c, &err) >= 0);
  th_finalize(m);
  m->u0[0] = 0.3;
  csSimOptions o = rkOptions(1.5, 1e-9, 1e-12, 0.05);
  thTrace tr = {0};
  csData* d = th_run(m, &o, &tr);
  // free flight at 0.3 m/s (no spring) after the stop went away: it leaves the old stops behind
  // at constant speed, the elastic stops having returned all their energy
  assert_true(d->disc[m->force[s].discadr + upper] == 10.0);
  th_assertClose(fabs(d->u[0]), 0.3, 3e-7, 0, "speed after elastic bounces");
  assert_true(d->q[0] > 0.06);
  th_assertClose(tr.ke[tr.n - 1] + tr.pe[tr.n - 1], 0.5 * 0.3 * 0.3, 1e-6, 0, "energy");
  assert_int_equal(d->stat.ncommit, d->stat.nsteps);
  th_traceFree(&tr);
  cs_deleteData(d);
  cs_deleteModel(m);
}


// forces that stop being finite (a spring so stiff that one step overflows it) make rk's step be
// retried a quarter as long, ten times, as CVODE does, before the run fails saying why. ark
// takes the spring (1e153 rad/s) into its linearization, so its stages stay finite: its
// steps shrink to 1e-154 s, and the run fails on the step limit between reports, saying that
// the step collapsed
static void test_nonfinite_forces_are_retried_then_fail(void** state) {
  (void)state;
  csModel* m = th_loadString(
      "{\"name\": \"stiff\", \"gravity\": [0, 0, 0],\n"
      " \"bodies\": [{\"name\": \"cart\", \"mass\": 1, \"inertia\": {\"diag\": [1, 1, 1]},\n"
      "   \"joint\": {\"type\": \"slider\", \"parent\": \"ground\", \"q\": [0.5]}}],\n"
      " \"forces\": [{\"type\": \"mobility_spring\", \"body\": \"cart\", \"stiffness\": 1e306}],\n"
      " \"simulation\": {\"duration\": 1, \"integrator\": \"rk\", \"initial_step\": 0.01,\n"
      "                \"report_interval\": 0.5}}\n");
  csSimOptions o = cs_modelOptions(m);
  o.integrator = g_integ;
  csData* d = cs_makeData(m);
  csError err = {0};
  assert_int_equal(cs_simulate(m, d, &o, NULL, &err), CS_ERR_SOLVER);
  print_message("%s\n", err.message);
  if (g_integ == CS_INTEGRATOR_ARK) {
    assert_non_null(strstr(err.message, "collapsed"));
  } else {
    assert_non_null(strstr(err.message, "CS_RK_RHS_REPEATED"));
    assert_int_equal(d->stat.warnings_nonfinite, 11);
  }
  assert_true(err.time >= 0 && err.time < 1e-6);
  cs_deleteData(d);
  cs_deleteModel(m);
}


// ---------------------------------------------------------------------------------------------
// the integrator itself (rk.c) on y'' = -y, whose solution is (cos t, -sin t) from (1, 0)

static int oscillator(double t, const double* y, double* ydot, void* ctx) {
  (void)t;
  (*(long*)ctx)++;
  ydot[0] = y[1];
  ydot[1] = -y[0];
  return 0;
}


// the largest error at the step ends and at three points inside every step (dense output) over
// [0, 2 pi], with steps of exactly h (tolerances so loose that every step passes, hmax = h)
static void fixedStepErrors(csRkMethod method, double h, double* at_steps, double* inside) {
  double y[2] = {1, 0}, yi[2];
  long calls = 0;
  csRk* rk = cs_rkNew(2, oscillator, &calls, 0, y, 1e6, 1e6, h, h);
  assert_non_null(rk);
  rk->method = method;
  *at_steps = *inside = 0;
  double T = 2 * PI;
  while (rk->t < T) {
    assert_int_equal(cs_rkStep(rk, T), CS_RK_OK);
    *at_steps = fmax(*at_steps, hypot(y[0] - cos(rk->t), y[1] + sin(rk->t)));
    for (int k = 1; k <= 3; k++) {
      double t = rk->told + 0.25 * k * (rk->t - rk->told);
      cs_rkInterpolate(rk, t, yi);
      *inside = fmax(*inside, hypot(yi[0] - cos(t), yi[1] + sin(t)));
    }
  }
  // the last step ends exactly at the stop time; seven stages a step (Bogacki-Shampine: four),
  // the first shared
  assert_true(rk->t == T);
  assert_int_equal(calls, rk->nrhs);
  assert_int_equal(rk->nrhs, (method == CS_RK_BS32 ? 3 : 6) * rk->nsteps + 1);
  cs_rkFree(rk);
}


// the oscillator over 20 s (about three periods) with error control at rtol = atol = tol: the
// largest error at the step ends and at three points inside every step, and the evaluations
static long adaptiveRun(csRkMethod method, double tol, double* worst) {
  double y[2] = {1, 0}, yi[2];
  long calls = 0;
  csRk* rk = cs_rkNew(2, oscillator, &calls, 0, y, tol, tol, 0, 0);
  assert_non_null(rk);
  rk->method = method;
  double T = 20;
  *worst = 0;
  while (rk->t < T) {
    assert_int_equal(cs_rkStep(rk, T), CS_RK_OK);
    for (int k = 0; k <= 4; k++) {
      double t = rk->told + 0.25 * k * (rk->t - rk->told);
      cs_rkInterpolate(rk, t, yi);
      *worst = fmax(*worst, hypot(yi[0] - cos(t), yi[1] + sin(t)));
    }
  }
  long n = rk->nrhs;
  cs_rkFree(rk);
  return n;
}

// Dormand-Prince is of order 5 (the global error falls 32-fold when h halves) and its dense
// output of order 4 (the error inside the steps, local O(h^5), falls as much, and stays within a
// few times the error at the step ends); with error control the global error follows the
// tolerance, and reports inside the steps are as good as the steps
static void test_rk_order_and_dense_output(void** state) {
  (void)state;
  double s1, i1, s2, i2;
  fixedStepErrors(CS_RK_DOPRI54, 0.1, &s1, &i1);
  fixedStepErrors(CS_RK_DOPRI54, 0.05, &s2, &i2);
  print_message("fixed steps 0.1 / 0.05: error at the steps %.3g / %.3g (ratio %.1f), inside "
                "the steps %.3g / %.3g (ratio %.1f)\n",
                s1, s2, s1 / s2, i1, i2, i1 / i2);
  assert_true(s1 / s2 > 25 && s1 / s2 < 40);
  assert_true(i1 / i2 > 16);
  assert_true(i2 < 3 * s2 + 1e-12);

  for (double tol = 1e-4; tol >= 1e-10; tol *= 1e-3) {
    double worst;
    long n = adaptiveRun(CS_RK_DOPRI54, tol, &worst);
    print_message("rtol = atol = %g: %ld evaluations, largest error over 20 s (about 3 periods) "
                  "%.3g\n", tol, n, worst);
    assert_true(worst < 30 * tol);
  }

  // the largest step holds even where stretching the step by 1 % would reach the stop time, and
  // the stop time is then reached by one more step, exactly
  double y[2] = {1, 0};
  long calls = 0;
  csRk* rk = cs_rkNew(2, oscillator, &calls, 0, y, 1e6, 1e6, 0.1, 0.1);
  assert_int_equal(cs_rkStep(rk, 0.1005), CS_RK_OK);
  assert_true(rk->t <= 0.1 && rk->hlast <= 0.1);
  assert_int_equal(cs_rkStep(rk, 0.1005), CS_RK_OK);
  assert_true(rk->t == 0.1005);
  cs_rkFree(rk);
}


// Bogacki-Shampine is of order 3 (the global error falls 8-fold when h halves), and so is its
// dense output (Hermite's cubic from the step's ends and their derivatives, local O(h^4)); with
// error control the global error follows the tolerance (over three periods, within 60 times
// it: the error per step is controlled), inside the steps as at their ends. At 1e-2 it
// takes fewer evaluations than Dormand-Prince; from 1e-5 on, more, and ever more
static void test_rk23_order_and_dense_output(void** state) {
  (void)state;
  double s1, i1, s2, i2;
  fixedStepErrors(CS_RK_BS32, 0.1, &s1, &i1);
  fixedStepErrors(CS_RK_BS32, 0.05, &s2, &i2);
  print_message("fixed steps 0.1 / 0.05: error at the steps %.3g / %.3g (ratio %.1f), inside "
                "the steps %.3g / %.3g (ratio %.1f)\n",
                s1, s2, s1 / s2, i1, i2, i1 / i2);
  assert_true(s1 / s2 > 7 && s1 / s2 < 9.5);
  assert_true(i1 / i2 > 7);
  assert_true(i2 < 1.5 * s2);
  double ratio = 0;
  for (double tol = 1e-2; tol >= 1e-11; tol *= 1e-3) {
    double worst, worst5;
    long n = adaptiveRun(CS_RK_BS32, tol, &worst);
    long n5 = adaptiveRun(CS_RK_DOPRI54, tol, &worst5);
    print_message("rtol = atol = %g: %ld evaluations (Dormand-Prince %ld), largest error over "
                  "20 s %.3g (%.3g)\n", tol, n, n5, worst, worst5);
    assert_true(worst < 60 * tol);
    if (tol > 1e-3) {
      assert_true(n < n5);
    } else {
      assert_true(n > n5 && (double)n / (double)n5 > ratio);
      ratio = (double)n / (double)n5;
    }
  }
}


// Stiffness: a slider of 1 kg on a damper of 1e4 N s/m, set moving at 1 m/s, has one eigenvalue
// lambda = -1e4 1/s and comes to rest at x = u0 m / c = 1e-4 m within a millisecond. After that
// the tolerance asks for almost nothing, so rk's step is held by stability alone: near
// 3.3 / |lambda| (the boundary of Dormand-Prince on the negative real axis; rk23's: 2.51).
// Such steps are counted as stiff and the run gets a diagnostic pointing to bdf and ark; with a
// damper of 1 N s/m (lambda = -1 1/s) no step is stiff and there is no diagnostic. ark
// integrates the damping implicitly: its steps grow as the tolerance allows, whatever the
// damping (1e4 or 1e8 N s/m).
static void stiffRun(const char* integrator, double damping, long* steps, long* stiff, int* note,
                     double* x) {
  char json[512];
  snprintf(json, sizeof(json),
           "{\"gravity\": [0, 0, 0],"
           " \"bodies\": [{\"name\": \"s\", \"mass\": 1, \"inertia\": {\"diag\": [1, 1, 1]},"
           "   \"joint\": {\"type\": \"slider\", \"u\": [1]}}],"
           " \"forces\": [{\"type\": \"mobility_damper\", \"body\": \"s\", \"damping\": %g}],"
           " \"simulation\": {\"integrator\": \"%s\", \"rtol\": 1e-6, \"atol\": 1e-8,"
           "   \"duration\": 1}}",
           damping, integrator);
  csModel* m = th_loadString(json);
  csSimOptions o = cs_modelOptions(m);
  csError err = {0};
  csSimulation* s = cs_newSimulation(m, &o, &err);
  assert_non_null(s);
  assert_int_equal(cs_simAdvanceTo(s, 1.0, &err), CS_OK);
  csRunStatistics st;
  cs_simStatistics(s, &st);
  *steps = st.nsteps;
  *stiff = cs_simData(s)->stat.nstiff;
  *note = 0;
  for (int i = 0; i < st.nnotes; i++) {
    *note |= strstr(cs_simNote(s, i), "stability limit") != NULL;
  }
  *x = cs_simState(s, CS_STATE_Q)[0];
  cs_deleteSimulation(s);
  cs_deleteModel(m);
}

static void test_stiffness_detected(void** state) {
  (void)state;
  long steps, stiff;
  int note;
  double x;
  stiffRun("rk", 1e4, &steps, &stiff, &note, &x);
  print_message("lambda = -1e4 1/s: %ld steps over 1 s (mean h |lambda| = %.2f), %ld of them "
                "stiff\n", steps, 1e4 / (double)steps, stiff);
  th_assertClose(x, 1e-4, 1e-5, 0, "rest position u0 m / c");
  // the mean step is the stability-limited one: h |lambda| between 2 and 3.4
  assert_true(steps > 1e4 / 3.4 && steps < 1e4 / 2.0);
  assert_true(stiff > 0.8 * (double)steps);
  assert_true(note);
  stiffRun("rk23", 1e4, &steps, &stiff, &note, &x);
  print_message("rk23, lambda = -1e4 1/s: %ld steps over 1 s (mean h |lambda| = %.2f), %ld of "
                "them stiff\n", steps, 1e4 / (double)steps, stiff);
  th_assertClose(x, 1e-4, 1e-5, 0, "rest position u0 m / c");
  assert_true(steps > 1e4 / 2.6 && steps < 1e4 / 1.5);
  assert_true(stiff > 0.8 * (double)steps);
  assert_true(note);
  for (int i = 0; i < 2; i++) {
    const char* integ = i ? "rk23" : "rk";
    stiffRun(integ, 1.0, &steps, &stiff, &note, &x);
    print_message("%s, lambda = -1 1/s: %ld steps, %ld stiff\n", integ, steps, stiff);
    th_assertClose(x, 1.0 - exp(-1.0), 1e-5, 0, "x(1) = u0 (1 - e^-1) / |lambda|");
    assert_true(stiff == 0);
    assert_false(note);
  }
  for (double c = 1e4; c <= 1e8; c *= 1e4) {
    stiffRun("ark", c, &steps, &stiff, &note, &x);
    print_message("ark, lambda = -%g 1/s: %ld steps\n", c, steps);
    th_assertClose(x, 1 / c, 1e-5, 1e-12, "rest position u0 m / c");
    assert_true(steps < 100);
    assert_true(stiff == 0);
    assert_false(note);
  }
}


// The step hook sees the data realized at the step's end; rk evaluates its last stage there
// (ark the derivative at the step's end),
// and the hook and the commit reuse that realization while nothing has used the data since.
// Two balls bouncing on Hunt-Crossley contacts (two groups, reports every 10 ms, so that
// reports and the other group's steps come between a step and its hook): in every hook the
// forces in the data are bit for bit those of a fresh realization of the same state, and a
// dynamics realization per step is saved.
typedef struct HookCheck {
  long calls, mismatches;
} HookCheck;

static void checkRealization(void* ctx, const csModel* m, csData* d) {
  HookCheck* hc = ctx;
  hc->calls++;
  double before[2][6];
  for (int i = 0; i < d->nact_body && i < 2; i++) {
    memcpy(before[i], &d->body_force[d->act_body[i]], sizeof(before[i]));
  }
  cs_invalidate(d);
  cs_realizeDynamics(m, d);
  for (int i = 0; i < d->nact_body && i < 2; i++) {
    if (memcmp(before[i], &d->body_force[d->act_body[i]], sizeof(before[i])) != 0) {
      hc->mismatches++;
    }
  }
}

static int noReport(void* ctx, const csModel* m, csData* d) {
  (void)ctx;
  (void)m;
  (void)d;
  return 0;
}

static void test_step_end_realization_reused(void** state) {
  (void)state;
  csModel* m = th_loadString(
      "{\"bodies\": ["
      " {\"name\": \"a\", \"mass\": 1, \"inertia\": {\"sphere\": 0.1}, \"joint\": {\"type\": \"free\","
      "  \"initial\": {\"position\": [0, 0, 0.5], \"velocity\": [1, 0, 0],"
      "  \"angular_velocity\": [0, -20, 0]}}},"
      " {\"name\": \"b\", \"mass\": 2, \"inertia\": {\"sphere\": 0.1}, \"joint\": {\"type\": \"free\","
      "  \"initial\": {\"position\": [1, 0, 0.3]}}}],"
      " \"planes\": [{\"name\": \"floor\"}],"
      " \"contacts\": [{\"name\": \"ca\", \"body\": \"a\", \"plane\": \"floor\", \"points\": [[0, 0, 0]],"
      "  \"radius\": 0.1}, {\"name\": \"cb\", \"body\": \"b\", \"plane\": \"floor\","
      "  \"points\": [[0, 0, 0]], \"radius\": 0.1}],"
      " \"contact_models\": {\"default\": \"hunt_crossley\", \"hunt_crossley\": {"
      "  \"plane_strain_modulus\": 2.8e7, \"dissipation\": 0.2, \"mu_static\": 0.8,"
      "  \"mu_dynamic\": 0.6, \"transition_velocity\": 0.01}},"
      " \"simulation\": {\"duration\": 1.0, \"report_interval\": 0.01, \"integrator\": \"rk\","
      "  \"rtol\": 1e-6, \"atol\": 1e-6}}");
  csData* d = cs_makeData(m);
  HookCheck hc = {0};
  csReporter rep = {.report = noReport, .step = checkRealization, .ctx = &hc};
  csError err = {0};
  csSimOptions o = m->opt;
  o.integrator = g_integ;
  assert_int_equal(cs_simulate(m, d, &o, &rep, &err), CS_OK);
  const csStats* st = &d->stat;
  print_message("%ld hooks, %ld steps in %d groups, %ld RHS, %ld dynamics realizations\n",
                hc.calls, st->nsteps, st->ngroup, st->nrhs, st->nstage[2]);
  assert_int_equal(st->ngroup, 2);
  assert_int_equal(hc.calls, st->nsteps);
  assert_int_equal(hc.mismatches, 0);
  // each hook realizes once more on purpose (above); the integrator realizes once per
  // evaluation (ark's difference-quotient Jacobians included), per report, and once more for
  // the commit of a step that ended at a report; without the reuse it would add one per step
  long own = st->nstage[2] - hc.calls;
  assert_true(own <= st->nrhs + st->nrhs_jac + 2 * st->nreport);
  cs_deleteData(d);
  cs_deleteModel(m);
}


int main(void) {
  // the integration loop, with each one-step integrator
  const struct CMUnitTest loop[] = {
      cmocka_unit_test(test_pendulum_period_large_amplitude),
      cmocka_unit_test(test_projectile_spinning),
      cmocka_unit_test(test_quaternion_kept_on_sphere),
      cmocka_unit_test(test_step_by_step_and_switch),
      cmocka_unit_test(test_ball_chain_conserves_energy),
      cmocka_unit_test(test_commits_and_statistics),
      cmocka_unit_test(test_incline_holds_then_slides),
      cmocka_unit_test(test_checkpoint_continues),
      cmocka_unit_test(test_stopped_run_continues),
      cmocka_unit_test(test_scheduled_change),
      cmocka_unit_test(test_nonfinite_forces_are_retried_then_fail),
      cmocka_unit_test(test_step_end_realization_reused),
  };
  // the explicit pairs themselves
  const struct CMUnitTest pairs[] = {
      cmocka_unit_test(test_rk_order_and_dense_output),
      cmocka_unit_test(test_rk23_order_and_dense_output),
      cmocka_unit_test(test_stiffness_detected),
  };
  int failed = cmocka_run_group_tests_name("rk", loop, useRk, NULL);
  failed += cmocka_run_group_tests_name("rk23", loop, useRk23, NULL);
  failed += cmocka_run_group_tests_name("ark", loop, useArk, NULL);
  failed += cmocka_run_group_tests_name("explicit pairs", pairs, useRk, NULL);
  return failed;
}
