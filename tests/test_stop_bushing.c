// test_stop_bushing.c: the mobility linear stop (seed 002) and the linear bushing (seed 003)
// against formulas recomputed here, analytic motions and conservation laws. Models are built with
// the C API so that these tests depend only on the core.
#include <stdio.h>
#include <string.h>

#include "helpers.h"

#define PI 3.14159265358979323846
#define G 9.81

// discrete variables of a linear stop, in the order the kind documents
enum { STOP_LOWER = 0, STOP_UPPER = 1, STOP_K = 2, STOP_D = 3 };


// ---------------------------------------------------------------------------------------------
// model-building helpers

// param slot of a kind's key (so the tests do not hard-code the layout)
static int slotOf(int kind, const char* key) {
  const csForceKind* k = cs_forceKind(kind);
  for (int i = 0; i < k->nparams; i++) {
    if (strcmp(k->params[i].key, key) == 0) {
      return k->params[i].slot;
    }
  }
  print_error("kind %s has no key %s\n", k->name, key);
  fail();
  return -1;
}


static void setVec3(csModel* m, int e, const char* key, double x, double y, double z) {
  int s = slotOf(m->force[e].kind, key);
  m->force[e].param[s] = x;
  m->force[e].param[s + 1] = y;
  m->force[e].param[s + 2] = z;
}


static void setFrame(csModel* m, int e, const char* key, const csTransform* X) {
  int s = slotOf(m->force[e].kind, key);
  csQuat q = csu_matToQuat(&X->R);
  double v[7] = {X->p.x, X->p.y, X->p.z, q.w, q.x, q.y, q.z};
  memcpy(m->force[e].param + s, v, sizeof(v));
}


// pose and velocity of a free body hanging from ground with identity joint frames
static void setFreeState(const csModel* m, double* q, double* u, int b, const csTransform* X_GB,
                         csVec3 w_G, csVec3 v_G) {
  th_setFreeState(m, q, u, b, csu_matToQuat(&X_GB->R), X_GB->p, w_G, v_G);
}


static csMat33 rotAxis(csVec3 axis, double angle) {
  return csu_quatToMat(csu_quatFromAxisAngle(axis, angle));
}


static csTransform transform(csMat33 R, csVec3 p) {
  csTransform X = {R, p};
  return X;
}


// R = Rx(a) Ry(b) Rz(c), composed from axis-angle rotations
static csMat33 eulerMatrix(double a, double b, double c) {
  csMat33 Rx = rotAxis(csu_vec3(1, 0, 0), a), Ry = rotAxis(csu_vec3(0, 1, 0), b);
  csMat33 Rz = rotAxis(csu_vec3(0, 0, 1), c);
  csMat33 Rxy = csu_mulMM(&Rx, &Ry);
  return csu_mulMM(&Rxy, &Rz);
}


// x-y-z body-fixed angles of R (|b| < 90 degrees): R[0][2] = sin b, R[1][2] = -sin a cos b,
// R[2][2] = cos a cos b, R[0][1] = -cos b sin c, R[0][0] = cos b cos c
static void eulerAngles(const csMat33* R, double* out) {
  out[0] = atan2(-R->m[1][2], R->m[2][2]);
  out[1] = asin(fmax(-1.0, fmin(1.0, R->m[0][2])));
  out[2] = atan2(-R->m[0][1], R->m[0][0]);
}


static int allFinite(const csModel* m, const csData* d) {
  for (int b = 0; b < m->nbody; b++) {
    if (!csu_isFiniteVec3(d->body_force[b].w) || !csu_isFiniteVec3(d->body_force[b].v)) {
      return 0;
    }
  }
  for (int e = 0; e < m->nforce; e++) {
    if (!isfinite(d->force_pe[e]) || !isfinite(d->force_power[e])) {
      return 0;
    }
  }
  return 1;
}


// power delivered to the bodies by the accumulated body forces (moments about body origins)
static double bodyPower(const csModel* m, const csData* d) {
  double p = 0;
  for (int b = 1; b < m->nbody; b++) {
    p += csu_dot(d->body_force[b].w, d->body_vel[b].w) +
         csu_dot(d->body_force[b].v, d->body_vel[b].v);
  }
  return p;
}


// ---------------------------------------------------------------------------------------------
// linear stop

// a slider of mass `mass` along Ground x with a stop on its coordinate; no gravity
static csModel* sliderWithStop(double mass, double lower, double upper, double k, double dcoef,
                               int* body, int* stop) {
  csModel* m = cs_newModel("slider_stop");
  *body =
      th_addBody(m, "slider", 0, CS_JOINT_SLIDER, csu_transformIdentity(), csu_transformIdentity(),
                 mass, csu_vec3(0, 0, 0), csu_inertiaSphere(mass, 0.1));
  *stop = th_addForce(m, CS_FORCE_LINEAR_STOP, "stop");
  th_setParam(m, *stop, "body", *body);
  th_setParam(m, *stop, "coordinate", 0);
  th_setParam(m, *stop, "lower_bound", lower);
  th_setParam(m, *stop, "upper_bound", upper);
  th_setParam(m, *stop, "stiffness", k);
  th_setParam(m, *stop, "dissipation", dcoef);
  return m;
}


// the seed's force recomputed: spring -k x, plus a dissipation term k |x| d qdot opposing the
// motion into the stop; the sum never points toward the bound
static double stopForceReference(double q, double qdot, double lo, double hi, double k,
                                 double dcoef) {
  if (q >= lo && q <= hi) {
    return 0;
  }
  double bound = (q > hi) ? hi : lo;
  double x = q - bound;
  double direction = (x > 0) ? -1.0 : 1.0;  // the stop pushes back toward the free range
  double magnitude = k * fabs(x) + k * fabs(x) * dcoef * qdot * (x > 0 ? 1.0 : -1.0);
  return direction * fmax(0.0, magnitude);
}


// force, energy and power at a grid of states, against the reference
static void test_stop_piecewise_force(void** state) {
  (void)state;
  const double lo = -0.1, hi = 0.2, k = 1000, dcoef = 0.5;
  int b, e;
  csModel* m = sliderWithStop(1.0, lo, hi, k, dcoef, &b, &e);
  th_finalize(m);
  csData* d = cs_makeData(m);
  const csBody* body = &m->body[b];
  const double qs[] = {-0.3, -0.1001, -0.1, 0.0, 0.05, 0.2, 0.2001, 0.25, 0.6};
  const double us[] = {-7.0, -2.5, -0.3, 0.0, 0.4, 1.9, 3.0};
  for (size_t i = 0; i < sizeof(qs) / sizeof(qs[0]); i++) {
    for (size_t j = 0; j < sizeof(us) / sizeof(us[0]); j++) {
      d->q[body->qadr] = qs[i];
      d->u[body->uadr] = us[j];
      cs_invalidate(d);
      cs_realizeDynamics(m, d);
      double f = d->mobility_force[body->uadr];
      double fref = stopForceReference(qs[i], us[j], lo, hi, k, dcoef);
      char what[96];
      snprintf(what, sizeof(what), "stop force at q=%g qdot=%g", qs[i], us[j]);
      th_assertClose(f, fref, 1e-12, 1e-12, what);
      // inside the bounds: exactly nothing
      if (qs[i] >= lo && qs[i] <= hi) {
        assert_true(f == 0.0 && d->force_pe[e] == 0.0 && d->force_power[e] == 0.0);
        continue;
      }
      // outside: pushes back (never toward the bound), pe = k x^2 / 2, power = -(f + k x) qdot
      double x = qs[i] - (qs[i] > hi ? hi : lo);
      assert_true(x > 0 ? f <= 0 : f >= 0);
      th_assertClose(d->force_pe[e], 0.5 * k * x * x, 1e-12, 1e-15, "stop pe");
      th_assertClose(d->force_power[e], -(fref + k * x) * us[j], 1e-12, 1e-12, "stop power");
      assert_true(d->force_power[e] >= 0);
    }
  }
  cs_deleteData(d);
  cs_deleteModel(m);
}


// The derivatives a stop, a mobility spring and a mobility damper give the implicit integrator
// (csForceKind.mobilityJacobian) against central differences of the generalized force they
// apply, in every branch of the stop (within, beyond either bound moving in or out, and where
// the no-pull clamp holds the force at zero), away from the kinks between branches
static void test_mobility_jacobians_match_differences(void** state) {
  (void)state;
  const double lo = -0.1, hi = 0.2, k = 1000, dcoef = 0.5;
  int b, e;
  csModel* m = sliderWithStop(1.0, lo, hi, k, dcoef, &b, &e);
  int sp = th_addForce(m, CS_FORCE_MOBILITY_SPRING, "spring");
  th_setParam(m, sp, "body", b);
  th_setParam(m, sp, "stiffness", 37.0);
  th_setParam(m, sp, "q0", 0.05);
  int dp = th_addForce(m, CS_FORCE_MOBILITY_DAMPER, "damper");
  th_setParam(m, dp, "body", b);
  th_setParam(m, dp, "damping", 1.5);
  th_finalize(m);
  csData* d = cs_makeData(m);
  const csBody* body = &m->body[b];
  int iq = body->qadr, iu = body->uadr;
  // the clamp engages at qdot = -1/d beyond the upper bound and +1/d beyond the lower one
  const double qs[] = {-0.3, -0.15, 0.0, 0.1, 0.25, 0.6};
  const double us[] = {-5.0, -1.0, -0.2, 0.0, 0.3, 1.0, 5.0};
  double worst = 0;
  int clamped = 0;
  for (size_t i = 0; i < sizeof(qs) / sizeof(qs[0]); i++) {
    for (size_t j = 0; j < sizeof(us) / sizeof(us[0]); j++) {
      double dfdq = 0, dfdu = 0;
      d->q[iq] = qs[i];
      d->u[iu] = us[j];
      cs_invalidate(d);
      cs_realizeVelocity(m, d);
      for (int f = 0; f < m->nforce; f++) {
        cs_forceKind(m->force[f].kind)->mobilityJacobian(m, d, f, &dfdq, &dfdu);
      }
      // central differences of the total generalized force on the coordinate
      double hq = 1e-7, hu = 1e-6, fd[2];
      for (int which = 0; which < 2; which++) {
        double* x = which == 0 ? &d->q[iq] : &d->u[iu];
        double h = which == 0 ? hq : hu, x0 = *x;
        *x = x0 + h;
        cs_invalidate(d);
        cs_realizeDynamics(m, d);
        double fp = d->mobility_force[iu];
        *x = x0 - h;
        cs_invalidate(d);
        cs_realizeDynamics(m, d);
        double fm = d->mobility_force[iu];
        *x = x0;
        fd[which] = (fp - fm) / (2 * h);
      }
      double scale = k * (1 + dcoef * 5) + 37;
      worst = fmax(worst, fmax(fabs(dfdq - fd[0]), fabs(dfdu - fd[1])) / scale);
      clamped += (qs[i] > hi && us[j] < -1 / dcoef) || (qs[i] < lo && us[j] > 1 / dcoef);
    }
  }
  print_message("stop + spring + damper: largest difference of the given derivatives from "
                "central differences %.3g (relative to k (1 + 5 d)), %d clamped states\n",
                worst, clamped);
  assert_true(clamped >= 2);
  assert_true(worst < 1e-7);
  cs_deleteData(d);
  cs_deleteModel(m);
}


// index of a kind's report value by name, -1 if it has none
static int extraIndex(int kind, const char* name) {
  const csForceKind* k = cs_forceKind(kind);
  for (int i = 0; i < k->nextra; i++) {
    if (strcmp(k->extranames[i], name) == 0) {
      return i;
    }
  }
  return -1;
}


// the value of report column `name` of element e at the realized state
static double reportValue(const csModel* m, csData* d, int e, const char* name) {
  int i = extraIndex(m->force[e].kind, name);
  if (i < 0) {
    print_error("kind %s reports no %s\n", cs_forceKind(m->force[e].kind)->name, name);
    fail();
  }
  csContactReport r;
  cs_contactReport(m, d, e, &r);
  return d->force_extra[m->force[e].repadr + i];
}


// the header row of m with --forces, into buf
static void csvHeaderOf(const csModel* m, char* buf, size_t size) {
  FILE* f = tmpfile();
  assert_non_null(f);
  csCsvOptions opt = {.forces = 1};
  assert_int_equal(cs_csvHeader(f, m, &opt), 0);
  rewind(f);
  assert_non_null(fgets(buf, (int)size, f));
  fclose(f);
}


// --forces columns of a stop: the generalized force it applies (the seed's formula, recomputed),
// how far the coordinate is beyond the bound it violates and the rate of that, pe and power;
// no contact columns (a stop has no contact point)
static void test_stop_report_columns(void** state) {
  (void)state;
  const double lo = -0.1, hi = 0.2, k = 1000, dcoef = 0.5;
  int b, e;
  csModel* m = sliderWithStop(1.0, lo, hi, k, dcoef, &b, &e);
  th_finalize(m);
  csData* d = cs_makeData(m);
  const csBody* body = &m->body[b];
  // beyond the upper bound moving in, below the lower bound moving in, inside
  const double qs[] = {0.25, -0.13, 0.05}, us[] = {0.8, -1.5, 2.0};
  const double pen[] = {0.05, 0.03, 0.0}, rate[] = {0.8, 1.5, 0.0};
  for (int i = 0; i < 3; i++) {
    d->q[body->qadr] = qs[i];
    d->u[body->uadr] = us[i];
    cs_invalidate(d);
    double fref = stopForceReference(qs[i], us[i], lo, hi, k, dcoef);
    th_assertClose(reportValue(m, d, e, "generalized_force"), fref, 1e-12, 1e-12, "stop force");
    th_assertClose(reportValue(m, d, e, "generalized_force"), d->mobility_force[body->uadr],
                   1e-12, 1e-12, "reported = applied force");
    th_assertClose(reportValue(m, d, e, "penetration"), pen[i], 1e-12, 1e-15, "penetration");
    th_assertClose(reportValue(m, d, e, "penetration_rate"), rate[i], 1e-12, 1e-15, "rate");
    th_assertClose(reportValue(m, d, e, "pe"), 0.5 * k * pen[i] * pen[i], 1e-12, 1e-15, "pe");
    double x = pen[i] * (qs[i] > hi ? 1 : -1);
    th_assertClose(reportValue(m, d, e, "power"), -(fref + k * x) * us[i], 1e-12, 1e-12,
                   "power");
  }
  char header[4096];
  csvHeaderOf(m, header, sizeof(header));
  assert_non_null(strstr(header, ",stop.generalized_force,stop.penetration,"
                                 "stop.penetration_rate,stop.pe,stop.power,"));
  assert_null(strstr(header, "stop.fx"));
  cs_deleteData(d);
  cs_deleteModel(m);
}


// leaving the stop faster than 1/d: the dissipation term would pull; the force must be zero
static void test_stop_never_pulls(void** state) {
  (void)state;
  const double k = 500, dcoef = 2.0;
  int b, e;
  csModel* m = sliderWithStop(1.0, -1.0, 1.0, k, dcoef, &b, &e);
  th_finalize(m);
  csData* d = cs_makeData(m);
  const csBody* body = &m->body[b];
  // beyond the upper bound, moving back (down) at 3/d: 1 + d qdot = -2 < 0
  d->q[body->qadr] = 1.05;
  d->u[body->uadr] = -3.0 / dcoef;
  cs_invalidate(d);
  cs_realizeDynamics(m, d);
  assert_true(d->mobility_force[body->uadr] == 0.0);
  th_assertClose(d->force_power[e], k * 0.05 * 3.0 / dcoef, 1e-12, 0, "power while clamped");
  // beyond the lower bound, moving back (up) fast
  d->q[body->qadr] = -1.05;
  d->u[body->uadr] = 3.0 / dcoef;
  cs_invalidate(d);
  cs_realizeDynamics(m, d);
  assert_true(d->mobility_force[body->uadr] == 0.0);
  // just below the clamping speed it still pushes (a little)
  d->u[body->uadr] = 0.9 / dcoef;
  cs_invalidate(d);
  cs_realizeDynamics(m, d);
  th_assertClose(d->mobility_force[body->uadr], k * 0.05 * 0.1, 1e-12, 0, "weak push");
  cs_deleteData(d);
  cs_deleteModel(m);
}


// elastic bounce (d = 0) of a slider: in contact it is a spring-mass system, so it leaves with the
// opposite velocity after half a period pi sqrt(m/k), having gone v0 sqrt(m/k) past the bound
static void test_stop_slider_bounce(void** state) {
  (void)state;
  const double mass = 2.0, k = 800.0, v0 = 1.0, hi = 0.5, tend = 1.5;
  const double w = sqrt(k / mass);
  int b, e;
  csModel* m = sliderWithStop(mass, -10.0, hi, k, 0.0, &b, &e);
  th_finalize(m);
  m->u0[m->body[b].uadr] = v0;
  csSimOptions o = th_simOptions(tend, 1e-10, 1e-12, 1e-3);
  thTrace tr = {0};
  csData* d = th_run(m, &o, &tr);
  double tleave = hi / v0 + PI / w;
  th_assertClose(d->u[m->body[b].uadr], -v0, 1e-7, 1e-9, "exit velocity");
  th_assertClose(d->q[m->body[b].qadr], hi - v0 * (tend - tleave), 1e-7, 1e-8, "final position");
  double qmax = -1e300, e0 = tr.ke[0] + tr.pe[0];
  for (int i = 0; i < tr.n; i++) {
    qmax = fmax(qmax, tr.q[i]);
    th_assertClose(tr.ke[i] + tr.pe[i], e0, 1e-7, 1e-9, "energy during the elastic bounce");
  }
  th_assertClose(qmax, hi + v0 / w, 0, 1e-5, "largest penetration");
  print_message("slider bounce: exit u %.10f (expected %.1f), max penetration %.7f (expected "
                "%.7f)\n",
                d->u[m->body[b].uadr], -v0, qmax - hi, v0 / w);
  th_traceFree(&tr);
  cs_deleteData(d);
  cs_deleteModel(m);
}


// a pendulum on a pin swinging into a stop, with gravity: KE + PE conserved when d = 0, and
// KE + PE + dissipated conserved when d > 0 (also when the no-pull clamp is active)
static void pendulum(double dcoef, double* drift, double* dissipated, double* qmin_out) {
  const double L = 1.0, mass = 1.0;
  csModel* m = cs_newModel("pendulum_stop");
  // pin axis = F's z, turned horizontal (Ground -y); the arm hangs along -y of its body frame
  csTransform XPF = transform(rotAxis(csu_vec3(1, 0, 0), PI / 2), csu_vec3(0, 0, 2));
  int b = th_addBody(m, "arm", 0, CS_JOINT_PIN, XPF, csu_transformIdentity(), mass,
                     csu_vec3(0, -L, 0), csu_inertiaSphere(mass, 0.05));
  th_addForce(m, CS_FORCE_GRAVITY, "gravity");
  int e = th_addForce(m, CS_FORCE_LINEAR_STOP, "stop");
  th_setParam(m, e, "body", b);
  th_setParam(m, e, "lower_bound", -0.5);
  th_setParam(m, e, "upper_bound", 2.0);
  th_setParam(m, e, "stiffness", 300.0);
  th_setParam(m, e, "dissipation", dcoef);
  th_finalize(m);
  m->q0[m->body[b].qadr] = 1.0;
  csSimOptions o = th_simOptions(4.0, 1e-10, 1e-12, 2e-3);
  thTrace tr = {0};
  csData* d = th_run(m, &o, &tr);
  double e0 = tr.ke[0] + tr.pe[0] + tr.diss[0], worst = 0, qmin = 1e300;
  for (int i = 0; i < tr.n; i++) {
    worst = fmax(worst, fabs(tr.ke[i] + tr.pe[i] + tr.diss[i] - e0));
    qmin = fmin(qmin, tr.q[i]);
  }
  *drift = worst / fabs(e0);
  *dissipated = tr.diss[tr.n - 1];
  *qmin_out = qmin;
  th_traceFree(&tr);
  cs_deleteData(d);
  cs_deleteModel(m);
}


static void test_stop_pendulum_energy(void** state) {
  (void)state;
  double drift, diss, qmin;
  // elastic: nothing dissipated, the arm went past the stop and came back
  pendulum(0.0, &drift, &diss, &qmin);
  print_message("pendulum d=0: relative energy drift %.3g, lowest q %.4f\n", drift, qmin);
  assert_true(drift < 1e-7);
  assert_true(diss == 0.0);
  assert_true(qmin < -0.5);
  // dissipative; with d = 3 s/rad the arm leaves the stop faster than 1/d, where the clamp acts
  const double ds[] = {0.3, 3.0};
  for (int i = 0; i < 2; i++) {
    pendulum(ds[i], &drift, &diss, &qmin);
    print_message("pendulum d=%g: relative drift of KE+PE+dissipated %.3g, dissipated %.4f J\n",
                  ds[i], drift, diss);
    assert_true(drift < 1e-7);
    assert_true(diss > 0.01);
  }
}


// cs_setDiscrete takes effect at once and keeps the variables sane
static void test_stop_set_discrete(void** state) {
  (void)state;
  const double k = 100;
  int b, e;
  csModel* m = sliderWithStop(1.0, -1.0, 1.0, k, 0.0, &b, &e);
  th_finalize(m);
  const csForceKind* kind = cs_forceKind(CS_FORCE_LINEAR_STOP);
  assert_int_equal(kind->discnum, 4);
  assert_string_equal(kind->discnames[STOP_LOWER], "lower_bound");
  assert_string_equal(kind->discnames[STOP_UPPER], "upper_bound");
  assert_string_equal(kind->discnames[STOP_K], "stiffness");
  assert_string_equal(kind->discnames[STOP_D], "dissipation");
  csData* d = cs_makeData(m);
  const double* v = d->disc + m->force[e].discadr;
  const csBody* body = &m->body[b];
  // initial values copy the parameters
  assert_true(v[STOP_LOWER] == -1.0 && v[STOP_UPPER] == 1.0 && v[STOP_K] == k && v[STOP_D] == 0);
  // at rest at q = 0: no force until the upper bound moves below it
  cs_realizeDynamics(m, d);
  assert_true(d->mobility_force[body->uadr] == 0.0);
  cs_setDiscrete(m, d, e, STOP_UPPER, -0.1);
  cs_realizeDynamics(m, d);
  th_assertClose(d->mobility_force[body->uadr], -k * 0.1, 1e-14, 0, "force after moving bound");
  assert_true(v[STOP_LOWER] == -1.0);
  cs_setDiscrete(m, d, e, STOP_K, 2 * k);
  cs_realizeDynamics(m, d);
  th_assertClose(d->mobility_force[body->uadr], -2 * k * 0.1, 1e-14, 0, "force after new k");
  // the bound being set wins, the other follows: the order of two changes does not matter
  cs_setDiscrete(m, d, e, STOP_LOWER, 2.0);
  assert_true(v[STOP_LOWER] == 2.0 && v[STOP_UPPER] == 2.0);
  cs_setDiscrete(m, d, e, STOP_UPPER, 3.0);
  assert_true(v[STOP_LOWER] == 2.0 && v[STOP_UPPER] == 3.0);
  cs_setDiscrete(m, d, e, STOP_UPPER, 0.5);
  assert_true(v[STOP_LOWER] == 0.5 && v[STOP_UPPER] == 0.5);
  // NaN bound: no stop on that side; negative or NaN material properties become 0
  cs_setDiscrete(m, d, e, STOP_LOWER, NAN);
  assert_true(isinf(v[STOP_LOWER]) && v[STOP_LOWER] < 0 && v[STOP_UPPER] == 0.5);
  cs_setDiscrete(m, d, e, STOP_K, -5.0);
  cs_setDiscrete(m, d, e, STOP_D, NAN);
  assert_true(v[STOP_K] == 0.0 && v[STOP_D] == 0.0);
  cs_realizeDynamics(m, d);
  assert_true(allFinite(m, d));
  cs_deleteData(d);
  cs_deleteModel(m);
}


// a scheduled change raises the lower bound under a slider at rest at q = 0, at t0 = 0.5: it is
// pushed as by a spring, q = a (1 - cos w (t - t0)), until q = a, and leaves with speed a w
static void test_stop_scheduled_change(void** state) {
  (void)state;
  const double mass = 1.0, k = 100.0, a = 0.1, t0 = 0.5, tend = 1.2;
  const double w = sqrt(k / mass);
  int b, e;
  csModel* m = sliderWithStop(mass, -1.0, 1.0, k, 0.0, &b, &e);
  csChange c = {.time = t0, .force = e, .index = STOP_LOWER, .value = a};
  csError err = {0};
  assert_true(cs_addChange(m, &c, &err) >= 0);
  th_finalize(m);
  csSimOptions o = th_simOptions(tend, 1e-10, 1e-12, 1e-2);
  thTrace tr = {0};
  csData* d = th_run(m, &o, &tr);
  double t1 = t0 + 0.5 * PI / w;
  for (int i = 0; i < tr.n; i++) {
    double t = tr.t[i], q;
    if (t <= t0) {
      q = 0;
    } else if (t <= t1) {
      q = a * (1 - cos(w * (t - t0)));
    } else {
      q = a + a * w * (t - t1);
    }
    th_assertClose(tr.q[i], q, 0, 1e-7, "slider pushed by the raised stop");
  }
  th_assertClose(d->disc[m->force[e].discadr + STOP_LOWER], a, 0, 0, "lower bound after change");
  th_assertClose(d->u[m->body[b].uadr], a * w, 1e-7, 0, "speed when leaving the stop");
  th_traceFree(&tr);
  cs_deleteData(d);
  cs_deleteModel(m);
}


// bad parameters are refused, naming the offending key
static void expectStopError(double lower, double upper, double k, int coord, csJointType joint,
                            const char* path) {
  csModel* m = cs_newModel("bad");
  int b = th_addBody(m, "b", 0, joint, csu_transformIdentity(), csu_transformIdentity(), 1,
                     csu_vec3(0, 0, 0), th_diag(1, 1, 1));
  int e = th_addForce(m, CS_FORCE_LINEAR_STOP, "stop");
  th_setParam(m, e, "body", b);
  th_setParam(m, e, "coordinate", coord);
  th_setParam(m, e, "lower_bound", lower);
  th_setParam(m, e, "upper_bound", upper);
  th_setParam(m, e, "stiffness", k);
  th_setParam(m, e, "dissipation", 0);
  csError err = {0};
  assert_int_not_equal(cs_finalizeModel(m, &err), 0);
  assert_int_equal(err.code, CS_ERR_INPUT);
  assert_string_equal(err.path, path);
  assert_true(strlen(err.message) > 0);
  cs_deleteModel(m);
}


static void test_stop_validate(void** state) {
  (void)state;
  expectStopError(1.0, 0.0, 10, 0, CS_JOINT_PIN, "upper_bound");
  expectStopError(0.0, 1.0, -1, 0, CS_JOINT_PIN, "stiffness");
  expectStopError(0.0, 1.0, 10, 1, CS_JOINT_SLIDER, "coordinate");
  expectStopError(0.0, 1.0, 10, 0, CS_JOINT_BALL, "body");
  expectStopError(-INFINITY, 1.0, 10, 0, CS_JOINT_PIN, "lower_bound");
}


// ---------------------------------------------------------------------------------------------
// linear bushing

static int addBushing(csModel* m, int b1, const csTransform* X1, int b2, const csTransform* X2) {
  int e = th_addForce(m, CS_FORCE_LINEAR_BUSHING, "bushing");
  th_setParam(m, e, "body1", b1);
  th_setParam(m, e, "body2", b2);
  setFrame(m, e, "frame1", X1);
  setFrame(m, e, "frame2", X2);
  return e;
}


// a body of mass m on a bushing to ground, no gravity: each translational axis of F oscillates
// on its own with p_i(t) = A_i cos(sqrt(k_i / m) t)
static void test_bushing_translational_frequency(void** state) {
  (void)state;
  const double mass = 2.0, kt[3] = {50, 200, 800}, A[3] = {0.01, -0.02, 0.005};
  csModel* m = cs_newModel("bushing_translation");
  m->gravity = csu_vec3(0, 0, 0);
  int b = th_addFreeBody(m, "block", mass, csu_vec3(0, 0, 0),
                         csu_inertiaBox(mass, csu_vec3(0.1, 0.15, 0.2)));
  csTransform XF = transform(rotAxis(csu_vec3(1, 1, 0), 0.6), csu_vec3(0.3, -0.2, 1.0));
  csTransform XM = csu_transformIdentity();
  int e = addBushing(m, 0, &XF, b, &XM);
  setVec3(m, e, "translational_stiffness", kt[0], kt[1], kt[2]);
  setVec3(m, e, "rotational_stiffness", 5, 5, 5);
  th_finalize(m);
  csTransform X0 = transform(XF.R, csu_transformPoint(&XF, csu_vec3(A[0], A[1], A[2])));
  setFreeState(m, m->q0, m->u0, b, &X0, csu_vec3(0, 0, 0), csu_vec3(0, 0, 0));
  csSimOptions o = th_simOptions(3.0, 1e-10, 1e-13, 1e-3);
  thTrace tr = {0};
  csData* d = th_run(m, &o, &tr);
  // compare with the analytic motion and time the zero crossings of each axis
  double first[3] = {-1, -1, -1}, last[3] = {0}, prev[3] = {0};
  int ncross[3] = {0};
  for (int i = 0; i < tr.n; i++) {
    const double* q = tr.q + (size_t)i * (size_t)tr.nq + m->body[b].qadr;
    csVec3 p_F = csu_mulMtV(&XF.R, csu_sub(csu_vec3(q[4], q[5], q[6]), XF.p));
    double p[3] = {p_F.x, p_F.y, p_F.z};
    for (int j = 0; j < 3; j++) {
      double expect = A[j] * cos(sqrt(kt[j] / mass) * tr.t[i]);
      th_assertClose(p[j], expect, 0, 1e-8, "translational oscillation");
      if (i > 0 && prev[j] * p[j] < 0) {
        double tc = tr.t[i - 1] + (tr.t[i] - tr.t[i - 1]) * prev[j] / (prev[j] - p[j]);
        if (first[j] < 0) {
          first[j] = tc;
        }
        last[j] = tc;
        ncross[j]++;
      }
      prev[j] = p[j];
    }
  }
  for (int j = 0; j < 3; j++) {
    double period = 2 * (last[j] - first[j]) / (ncross[j] - 1);
    double expect = 2 * PI * sqrt(mass / kt[j]);
    print_message("translation axis %d: period %.7f s, sqrt(k/m) predicts %.7f s\n", j, period,
                  expect);
    th_assertClose(period, expect, 1e-5, 0, "translational period");
  }
  th_traceFree(&tr);
  cs_deleteData(d);
  cs_deleteModel(m);
}


// a body turned about one principal axis of the bushing: theta(t) = theta0 cos(sqrt(k/I) t),
// exactly (a single-axis rotation keeps the other two Euler angles at zero)
static void test_bushing_rotational_frequency(void** state) {
  (void)state;
  const double I[3] = {1.0, 1.5, 2.0}, kr[3] = {3, 6, 16}, theta0 = 0.3;
  for (int axis = 0; axis < 3; axis++) {
    csModel* m = cs_newModel("bushing_rotation");
    m->gravity = csu_vec3(0, 0, 0);
    int b = th_addFreeBody(m, "wheel", 3.0, csu_vec3(0, 0, 0), th_diag(I[0], I[1], I[2]));
    csTransform XF = transform(rotAxis(csu_vec3(-1, 2, 0.5), 1.1), csu_vec3(0.5, 0.5, 0.5));
    csTransform XM = csu_transformIdentity();
    int e = addBushing(m, 0, &XF, b, &XM);
    setVec3(m, e, "rotational_stiffness", kr[0], kr[1], kr[2]);
    setVec3(m, e, "translational_stiffness", 100, 100, 100);
    th_finalize(m);
    csVec3 ax = csu_vec3(axis == 0, axis == 1, axis == 2);
    csMat33 R_FB = rotAxis(ax, theta0);
    csTransform X0 = transform(csu_mulMM(&XF.R, &R_FB), XF.p);
    setFreeState(m, m->q0, m->u0, b, &X0, csu_vec3(0, 0, 0), csu_vec3(0, 0, 0));
    csSimOptions o = th_simOptions(6.0, 1e-10, 1e-13, 1e-3);
    thTrace tr = {0};
    csData* d = th_run(m, &o, &tr);
    // rotation of the body in F from the quaternion: theta about the axis, nothing else
    csQuat qF = csu_matToQuat(&XF.R);
    const double w = sqrt(kr[axis] / I[axis]);
    double first = -1, last = 0, prev = 0;
    int ncross = 0;
    for (int i = 0; i < tr.n; i++) {
      const double* q = tr.q + (size_t)i * (size_t)tr.nq + m->body[b].qadr;
      csQuat qB = csu_quatMul(csu_quatConj(qF), csu_quat(q[0], q[1], q[2], q[3]));
      double comp[3] = {qB.x, qB.y, qB.z};
      double theta = 2 * atan2(comp[axis], qB.w);
      th_assertClose(theta, theta0 * cos(w * tr.t[i]), 0, 1e-7, "rotational oscillation");
      for (int j = 0; j < 3; j++) {
        if (j != axis) {
          assert_true(fabs(comp[j]) < 1e-9);
        }
      }
      if (i > 0 && prev * theta < 0) {
        double tc = tr.t[i - 1] + (tr.t[i] - tr.t[i - 1]) * prev / (prev - theta);
        first = (first < 0) ? tc : first;
        last = tc;
        ncross++;
      }
      prev = theta;
    }
    double period = 2 * (last - first) / (ncross - 1);
    print_message("rotation axis %d (amplitude %.1f rad): period %.7f s, sqrt(k/I) predicts "
                  "%.7f s\n",
                  axis, theta0, period, 2 * PI / w);
    th_assertClose(period, 2 * PI / w, 1e-5, 0, "rotational period");
    th_traceFree(&tr);
    cs_deleteData(d);
    cs_deleteModel(m);
  }
}


// two free bodies: A hangs from ground by one bushing, B from A by another; gravity, large
// deflections and damping on every axis. KE + PE + dissipated must stay constant.
typedef struct twoBodies {
  csModel* m;
  int a, b;           // body ids
  int e1, e2;         // bushing ground-A and bushing A-B
  csTransform XF1, XM1, XF2, XM2;
} twoBodies;


static twoBodies makeTwoBodies(int gravity, int ground_bushing) {
  twoBodies s;
  s.m = cs_newModel("bushing_pair");
  if (!gravity) {
    s.m->gravity = csu_vec3(0, 0, 0);
  }
  s.a = th_addFreeBody(s.m, "a", 1.5, csu_vec3(0.05, 0, 0),
                       csu_inertiaBox(1.5, csu_vec3(0.1, 0.2, 0.05)));
  s.b = th_addFreeBody(s.m, "b", 0.8, csu_vec3(0, 0.02, -0.03),
                       csu_inertiaCylinder(0.8, 0.05, 0.15));
  if (gravity) {
    th_addForce(s.m, CS_FORCE_GRAVITY, "gravity");
  }
  s.XF1 = transform(rotAxis(csu_vec3(0, 1, 1), 0.4), csu_vec3(0, 0, 1));
  s.XM1 = transform(rotAxis(csu_vec3(1, 0, 0), -0.3), csu_vec3(0.1, 0.05, -0.02));
  s.XF2 = transform(rotAxis(csu_vec3(1, 1, 1), 0.5), csu_vec3(0, 0, -0.2));
  s.XM2 = transform(rotAxis(csu_vec3(0, 0, 1), 0.7), csu_vec3(0.02, 0.03, 0.1));
  s.e1 = -1;
  if (ground_bushing) {
    s.e1 = addBushing(s.m, 0, &s.XF1, s.a, &s.XM1);
    setVec3(s.m, s.e1, "rotational_stiffness", 20, 30, 40);
    setVec3(s.m, s.e1, "translational_stiffness", 500, 600, 700);
    setVec3(s.m, s.e1, "rotational_damping", 0.3, 0.2, 0.1);
    setVec3(s.m, s.e1, "translational_damping", 2, 3, 4);
  }
  s.e2 = addBushing(s.m, s.a, &s.XF2, s.b, &s.XM2);
  setVec3(s.m, s.e2, "rotational_stiffness", 8, 6, 4);
  setVec3(s.m, s.e2, "translational_stiffness", 300, 200, 400);
  setVec3(s.m, s.e2, "rotational_damping", 0.05, 0.1, 0.02);
  setVec3(s.m, s.e2, "translational_damping", 1, 0.5, 2);
  th_finalize(s.m);
  return s;
}


// place A so that X_GF1 = X_GM1 moved by (euler1, offset1), and B so that X_FM2 is given by the
// Euler angles euler2 and the offset p2 (in F2)
static void placeTwoBodies(const twoBodies* s, double* q, double* u, const double* euler1,
                           csVec3 offset1, const double* euler2, csVec3 p2, int with_velocity) {
  // A: X_GA = X_GF1 X_FM1 X_M1A
  csTransform XFM1 = transform(eulerMatrix(euler1[0], euler1[1], euler1[2]), offset1);
  csTransform XGM1 = csu_transformMul(&s->XF1, &XFM1);
  csTransform XMA = csu_transformInverse(&s->XM1);
  csTransform XGA = csu_transformMul(&XGM1, &XMA);
  // B: X_GB = X_GA X_AF2 X_FM2 X_M2B
  csTransform XFM2 = transform(eulerMatrix(euler2[0], euler2[1], euler2[2]), p2);
  csTransform XGF2 = csu_transformMul(&XGA, &s->XF2);
  csTransform XGM2 = csu_transformMul(&XGF2, &XFM2);
  csTransform XMB = csu_transformInverse(&s->XM2);
  csTransform XGB = csu_transformMul(&XGM2, &XMB);
  csVec3 z = csu_vec3(0, 0, 0);
  setFreeState(s->m, q, u, s->a, &XGA, with_velocity ? csu_vec3(0.5, -0.3, 0.8) : z,
               with_velocity ? csu_vec3(0.1, 0.2, -0.1) : z);
  setFreeState(s->m, q, u, s->b, &XGB, with_velocity ? csu_vec3(-0.7, 0.4, 1.2) : z,
               with_velocity ? csu_vec3(-0.2, 0.3, 0.25) : z);
}


static void test_bushing_energy_balance(void** state) {
  (void)state;
  twoBodies s = makeTwoBodies(1, 1);
  const double eu1[3] = {0.3, -0.25, 0.4}, eu2[3] = {-0.5, 0.6, 0.35};
  placeTwoBodies(&s, s.m->q0, s.m->u0, eu1, csu_vec3(0.02, -0.03, 0.01), eu2,
                 csu_vec3(0.05, 0.04, -0.06), 1);
  csSimOptions o = th_simOptions(3.0, 1e-10, 1e-12, 1e-2);
  thTrace tr = {0};
  csData* d = th_run(s.m, &o, &tr);
  double e0 = tr.ke[0] + tr.pe[0] + tr.diss[0], worst = 0, scale = 0;
  for (int i = 0; i < tr.n; i++) {
    worst = fmax(worst, fabs(tr.ke[i] + tr.pe[i] + tr.diss[i] - e0));
    scale = fmax(scale, fmax(tr.ke[i], fabs(tr.pe[i])));
  }
  print_message("bushing pair: KE+PE+dissipated drift %.3g J over energies of %.3g J; "
                "dissipated %.4f J; gimbal warnings %ld\n",
                worst, scale, tr.diss[tr.n - 1], d->stat.warnings_bushing);
  assert_true(worst < 1e-7 * scale);
  assert_true(tr.diss[tr.n - 1] > 0.05 * scale);
  assert_int_equal(d->stat.warnings_bushing, 0);
  th_traceFree(&tr);
  cs_deleteData(d);
  cs_deleteModel(s.m);
}


// a bushing between two free bodies applies equal and opposite spatial forces; with R_FM = I and
// no motion the force on body 2 is -R_GF th_diag(k) p_FM at OM
static void test_bushing_equal_opposite(void** state) {
  (void)state;
  twoBodies s = makeTwoBodies(0, 0);
  const csModel* m = s.m;
  csData* d = cs_makeData(m);
  const double zero[3] = {0, 0, 0}, eu2[3] = {-0.5, 0.6, 0.35};
  const double eu1[3] = {0.2, 0.1, -0.3};

  // general pose and motion: net force and net moment about the Ground origin vanish
  placeTwoBodies(&s, d->q, d->u, eu1, csu_vec3(0, 0, 0), eu2, csu_vec3(0.05, 0.04, -0.06), 1);
  cs_invalidate(d);
  cs_realizeDynamics(m, d);
  csVec3 fsum = csu_add(d->body_force[s.a].v, d->body_force[s.b].v);
  csVec3 msum = csu_vec3(0, 0, 0);
  for (int b = 1; b < m->nbody; b++) {
    msum = csu_add(msum, csu_add(d->body_force[b].w,
                                 csu_cross(d->body_pose[b].p, d->body_force[b].v)));
  }
  assert_true(csu_norm(d->body_force[s.b].v) > 1.0 && csu_norm(d->body_force[s.b].w) > 0.1);
  assert_true(csu_norm(fsum) < 1e-12 && csu_norm(msum) < 1e-12);

  // pure translation in F: the force is the spring vector, applied at OM
  csVec3 p = csu_vec3(0.01, -0.02, 0.03);
  placeTwoBodies(&s, d->q, d->u, eu1, csu_vec3(0, 0, 0), zero, p, 0);
  cs_invalidate(d);
  cs_realizeDynamics(m, d);
  int ks = slotOf(CS_FORCE_LINEAR_BUSHING, "translational_stiffness");
  const double* k = m->force[s.e2].param + ks;
  csTransform XGF = csu_transformMul(&d->body_pose[s.a], &s.XF2);
  csTransform XGM = csu_transformMul(&d->body_pose[s.b], &s.XM2);
  csVec3 force = csu_mulMV(&XGF.R, csu_vec3(-k[0] * p.x, -k[1] * p.y, -k[2] * p.z));
  csVec3 m2 = csu_cross(csu_sub(XGM.p, d->body_pose[s.b].p), force);
  csVec3 m1 = csu_cross(csu_sub(XGM.p, d->body_pose[s.a].p), csu_neg(force));
  assert_true(csu_norm(csu_sub(d->body_force[s.b].v, force)) < 1e-12);
  assert_true(csu_norm(csu_add(d->body_force[s.a].v, force)) < 1e-12);
  assert_true(csu_norm(csu_sub(d->body_force[s.b].w, m2)) < 1e-12);
  assert_true(csu_norm(csu_sub(d->body_force[s.a].w, m1)) < 1e-12);
  th_assertClose(d->force_pe[s.e2], 0.5 * (k[0] * p.x * p.x + k[1] * p.y * p.y + k[2] * p.z * p.z),
                 1e-12, 0, "bushing pe, pure translation");
  cs_deleteData(d);
  cs_deleteModel(s.m);
}


// --forces columns of a bushing: the six coordinates are those the bodies were placed with, the
// generalized forces are -(k q + c qdot), and the spatial forces on the two bodies (Simbody's
// F_GF at F's origin, F_GM at M's origin) are what the bodies receive, shifted to their origins
static void test_bushing_report_columns(void** state) {
  (void)state;
  twoBodies s = makeTwoBodies(0, 0);
  const csModel* m = s.m;
  csData* d = cs_makeData(m);
  const double eu1[3] = {0.2, 0.1, -0.3}, eu2[3] = {-0.5, 0.6, 0.35};
  const csVec3 p = csu_vec3(0.05, 0.04, -0.06);
  placeTwoBodies(&s, d->q, d->u, eu1, csu_vec3(0, 0, 0), eu2, p, 1);
  cs_invalidate(d);
  cs_realizeDynamics(m, d);
  const double qref[6] = {eu2[0], eu2[1], eu2[2], p.x, p.y, p.z};
  const double* kr = m->force[s.e2].param + slotOf(CS_FORCE_LINEAR_BUSHING,
                                                   "rotational_stiffness");
  const double* kt = m->force[s.e2].param + slotOf(CS_FORCE_LINEAR_BUSHING,
                                                   "translational_stiffness");
  const double* cr = m->force[s.e2].param + slotOf(CS_FORCE_LINEAR_BUSHING, "rotational_damping");
  const double* ct = m->force[s.e2].param + slotOf(CS_FORCE_LINEAR_BUSHING,
                                                   "translational_damping");
  double power = 0;
  for (int i = 0; i < 6; i++) {
    char name[16];
    snprintf(name, sizeof(name), "q%d", i);
    double q = reportValue(m, d, s.e2, name);
    th_assertClose(q, qref[i], 1e-12, 1e-12, name);
    snprintf(name, sizeof(name), "qdot%d", i);
    double qdot = reportValue(m, d, s.e2, name);
    snprintf(name, sizeof(name), "f%d", i);
    double k = i < 3 ? kr[i] : kt[i - 3], c = i < 3 ? cr[i] : ct[i - 3];
    th_assertClose(reportValue(m, d, s.e2, name), -(k * qref[i] + c * qdot), 1e-12, 1e-12, name);
    power += c * qdot * qdot;
  }
  th_assertClose(reportValue(m, d, s.e2, "power"), power, 1e-12, 1e-15, "bushing power");
  th_assertClose(reportValue(m, d, s.e2, "pe"), d->force_pe[s.e2], 1e-12, 1e-15, "bushing pe");

  // spatial forces: moved from F's origin (body 1) and M's origin (body 2) to the body origins
  // they equal what the bodies receive (the bushing is the only force in this model)
  csTransform XGF = csu_transformMul(&d->body_pose[s.a], &s.XF2);
  csTransform XGM = csu_transformMul(&d->body_pose[s.b], &s.XM2);
  const char* axes[6] = {"mx", "my", "mz", "fx", "fy", "fz"};
  double F1[6], F2[6];
  for (int i = 0; i < 6; i++) {
    char name[16];
    snprintf(name, sizeof(name), "body1_%s", axes[i]);
    F1[i] = reportValue(m, d, s.e2, name);
    snprintf(name, sizeof(name), "body2_%s", axes[i]);
    F2[i] = reportValue(m, d, s.e2, name);
  }
  csVec3 m1 = csu_vec3(F1[0], F1[1], F1[2]), f1 = csu_vec3(F1[3], F1[4], F1[5]);
  csVec3 m2 = csu_vec3(F2[0], F2[1], F2[2]), f2 = csu_vec3(F2[3], F2[4], F2[5]);
  csVec3 m1o = csu_add(m1, csu_cross(csu_sub(XGF.p, d->body_pose[s.a].p), f1));
  csVec3 m2o = csu_add(m2, csu_cross(csu_sub(XGM.p, d->body_pose[s.b].p), f2));
  assert_true(csu_norm(f2) > 1.0 && csu_norm(m2) > 0.1);
  th_assertVecClose(f1, d->body_force[s.a].v, 1e-12, 1e-12, "F_GF force");
  th_assertVecClose(f2, d->body_force[s.b].v, 1e-12, 1e-12, "F_GM force");
  th_assertVecClose(m1o, d->body_force[s.a].w, 1e-12, 1e-12, "F_GF moment");
  th_assertVecClose(m2o, d->body_force[s.b].w, 1e-12, 1e-12, "F_GM moment");
  // translation only, no rotation: the force on body 2 is -R_GF diag(k) p_FM (the seed's law)
  const double zero[3] = {0, 0, 0};
  placeTwoBodies(&s, d->q, d->u, eu1, csu_vec3(0, 0, 0), zero, p, 0);
  cs_invalidate(d);
  XGF = csu_transformMul(&d->body_pose[s.a], &s.XF2);
  csVec3 fref = csu_mulMV(&XGF.R, csu_vec3(-kt[0] * p.x, -kt[1] * p.y, -kt[2] * p.z));
  csVec3 f2b = csu_vec3(reportValue(m, d, s.e2, "body2_fx"), reportValue(m, d, s.e2, "body2_fy"),
                        reportValue(m, d, s.e2, "body2_fz"));
  th_assertVecClose(f2b, fref, 1e-12, 1e-12, "translation-only force");

  char header[8192];
  csvHeaderOf(m, header, sizeof(header));
  assert_non_null(strstr(header, ",bushing.q0,bushing.q1,bushing.q2,bushing.q3,bushing.q4,"
                                 "bushing.q5,bushing.qdot0,"));
  assert_non_null(strstr(header, ",bushing.body2_fz,bushing.pe,bushing.power,"));
  assert_null(strstr(header, "bushing.fx"));
  cs_deleteData(d);
  cs_deleteModel(s.m);
}


// The Euler-angle rates the bushing uses, against central differences of Euler angles extracted
// here along the motion. With only k_i = 1 the bushing delivers power -q_i qdot_i to the bodies;
// with only c_i = 1 it dissipates qdot_i^2. Both bodies move, so F turns as well.
static void test_bushing_euler_rates(void** state) {
  (void)state;
  twoBodies s = makeTwoBodies(0, 0);
  csModel* m = s.m;
  csForce* f = &m->force[s.e2];
  int kr = slotOf(CS_FORCE_LINEAR_BUSHING, "rotational_stiffness");
  int kt = slotOf(CS_FORCE_LINEAR_BUSHING, "translational_stiffness");
  int cr = slotOf(CS_FORCE_LINEAR_BUSHING, "rotational_damping");
  int ct = slotOf(CS_FORCE_LINEAR_BUSHING, "translational_damping");
  csData* d = cs_makeData(m);
  const double eu[3] = {0.4, -0.7, 1.1};
  const csVec3 p = csu_vec3(0.05, 0.04, -0.06);
  placeTwoBodies(&s, d->q, d->u, (double[3]){0.1, 0.2, 0.3}, csu_vec3(0, 0, 0), eu, p, 1);
  cs_invalidate(d);
  cs_realizeVelocity(m, d);

  // the test's own decomposition inverts Rx Ry Rz
  double back[3];
  csMat33 R = eulerMatrix(eu[0], eu[1], eu[2]);
  eulerAngles(&R, back);
  for (int i = 0; i < 3; i++) {
    th_assertClose(back[i], eu[i], 0, 1e-14, "euler decomposition");
  }

  // coordinates at time offset h along the rigid motions of both bodies
  const double h = 1e-6;
  double qc[2][6];
  for (int side = 0; side < 2; side++) {
    double dt = side ? h : -h;
    csTransform X[2];
    int ids[2] = {s.a, s.b};
    for (int j = 0; j < 2; j++) {
      const csSpatialVec* V = &d->body_vel[ids[j]];
      csTransform X0 = d->body_pose[ids[j]];
      double wn = csu_norm(V->w);
      csMat33 dR = rotAxis(V->w, wn * dt);
      X[j] = transform(csu_mulMM(&dR, &X0.R), csu_addScaled(X0.p, dt, V->v));
    }
    csTransform XGF = csu_transformMul(&X[0], &s.XF2), XGM = csu_transformMul(&X[1], &s.XM2);
    csMat33 R_FM = csu_mulMtM(&XGF.R, &XGM.R);
    csVec3 p_FM = csu_mulMtV(&XGF.R, csu_sub(XGM.p, XGF.p));
    eulerAngles(&R_FM, qc[side]);
    qc[side][3] = p_FM.x;
    qc[side][4] = p_FM.y;
    qc[side][5] = p_FM.z;
  }
  const double qnow[6] = {eu[0], eu[1], eu[2], p.x, p.y, p.z};

  for (int i = 0; i < 6; i++) {
    double fd = (qc[1][i] - qc[0][i]) / (2 * h);
    // stiffness 1 on axis i only: power delivered = -q_i qdot_i
    memset(f->param + kr, 0, 3 * sizeof(double));
    memset(f->param + kt, 0, 3 * sizeof(double));
    memset(f->param + cr, 0, 3 * sizeof(double));
    memset(f->param + ct, 0, 3 * sizeof(double));
    f->param[(i < 3 ? kr : kt) + i % 3] = 1.0;
    cs_invalidate(d);
    cs_realizeDynamics(m, d);
    double rate_k = -bodyPower(m, d) / qnow[i];
    th_assertClose(d->force_pe[s.e2], 0.5 * qnow[i] * qnow[i], 1e-12, 0, "pe of one axis");
    // damping 1 on axis i only: dissipated power = qdot_i^2, delivered power = -qdot_i^2
    f->param[(i < 3 ? kr : kt) + i % 3] = 0.0;
    f->param[(i < 3 ? cr : ct) + i % 3] = 1.0;
    cs_invalidate(d);
    cs_realizeDynamics(m, d);
    double rate_c2 = d->force_power[s.e2];
    th_assertClose(bodyPower(m, d), -rate_c2, 1e-10, 1e-14, "damper power balance");
    print_message("coordinate %d: finite difference %.9f, from stiffness %.9f, from damping "
                  "|%.9f|\n",
                  i, fd, rate_k, sqrt(rate_c2));
    th_assertClose(rate_k, fd, 1e-7, 1e-9, "rate through the stiffness power");
    th_assertClose(rate_c2, fd * fd, 1e-7, 1e-9, "squared rate through the damping power");
  }
  cs_deleteData(d);
  cs_deleteModel(s.m);
}


// near q1 = 90 degrees the rates blow up: warnings are counted and the forces stay finite
static void test_bushing_singularity(void** state) {
  (void)state;
  twoBodies s = makeTwoBodies(0, 0);
  csModel* m = s.m;
  csData* d = cs_makeData(m);
  const double angles[] = {80.0, 89.0, 89.9, 89.99, 90.0, -90.0, -89.9999};
  const int warns[] = {0, 0, 1, 1, 1, 1, 1};
  for (size_t i = 0; i < sizeof(angles) / sizeof(angles[0]); i++) {
    double eu[3] = {0.3, angles[i] * PI / 180, -0.2};
    placeTwoBodies(&s, d->q, d->u, (double[3]){0, 0, 0}, csu_vec3(0, 0, 0), eu,
                   csu_vec3(0.01, 0, 0), 1);
    long before = d->stat.warnings_bushing;
    cs_invalidate(d);
    cs_realizeDynamics(m, d);
    long counted = d->stat.warnings_bushing - before;
    print_message("middle angle %.4f deg: %ld warning(s), |torque on b| %.3g\n", angles[i],
                  counted, csu_norm(d->body_force[s.b].w));
    assert_int_equal(counted, warns[i]);
    assert_true(allFinite(m, d));
    assert_int_equal(cs_forward(m, d), 0);
  }
  // with no rotational stiffness nor damping the rotational forces are zero at any angle: no
  // warning (the translational ones do not depend on the angles' rates)
  csForce* f = &m->force[s.e2];
  memset(f->param + slotOf(CS_FORCE_LINEAR_BUSHING, "rotational_stiffness"), 0,
         3 * sizeof(double));
  memset(f->param + slotOf(CS_FORCE_LINEAR_BUSHING, "rotational_damping"), 0, 3 * sizeof(double));
  double eu[3] = {0.3, 90.0 * PI / 180, -0.2};
  placeTwoBodies(&s, d->q, d->u, (double[3]){0, 0, 0}, csu_vec3(0, 0, 0), eu,
                 csu_vec3(0.01, 0, 0), 1);
  long before = d->stat.warnings_bushing;
  cs_invalidate(d);
  cs_realizeDynamics(m, d);
  assert_int_equal(d->stat.warnings_bushing, before);
  assert_true(allFinite(m, d));
  cs_deleteData(d);
  cs_deleteModel(s.m);
}


static void test_bushing_validate(void** state) {
  (void)state;
  csModel* m = cs_newModel("bad");
  int b = th_addFreeBody(m, "b", 1, csu_vec3(0, 0, 0), th_diag(1, 1, 1));
  csTransform I = csu_transformIdentity();
  int e = addBushing(m, b, &I, b, &I);
  setVec3(m, e, "rotational_stiffness", 1, 1, 1);
  setVec3(m, e, "translational_stiffness", 1, 1, 1);
  csError err = {0};
  assert_int_not_equal(cs_finalizeModel(m, &err), 0);
  assert_string_equal(err.path, "body2");
  // a negative coefficient names its key
  m->force[e].ref[slotOf(CS_FORCE_LINEAR_BUSHING, "body1")] = 0;
  setVec3(m, e, "rotational_damping", 0, -1, 0);
  memset(&err, 0, sizeof(err));
  assert_int_not_equal(cs_finalizeModel(m, &err), 0);
  assert_string_equal(err.path, "rotational_damping");
  // a zero quaternion is not a frame
  setVec3(m, e, "rotational_damping", 0, 0, 0);
  int s1 = slotOf(CS_FORCE_LINEAR_BUSHING, "frame1");
  memset(m->force[e].param + s1 + 3, 0, 4 * sizeof(double));
  memset(&err, 0, sizeof(err));
  assert_int_not_equal(cs_finalizeModel(m, &err), 0);
  assert_string_equal(err.path, "frame1");
  cs_deleteModel(m);
}


// ---------------------------------------------------------------------------------------------
// bundled scenes

// the pendulum scene: KE + PE + dissipated constant between changes; the change at t = 3 s moves
// the lower stop to -0.2 rad, and the arm then bounces off the new bound
static void test_scene_pendulum_stop(void** state) {
  (void)state;
  csModel* m = th_loadFile("scenes/pendulum_stop.json");
  int e = cs_forceId(m, "stop");
  assert_true(e >= 0);
  thTrace tr = {0};
  csData* d = th_run(m, NULL, &tr);
  const double tchange = 3.0;
  double ref[2] = {NAN, NAN}, worst = 0, qmin_after = 1e300;
  for (int i = 0; i < tr.n; i++) {
    if (fabs(tr.t[i] - tchange) < 1e-9) {
      continue;  // the row at the change itself may belong to either side
    }
    int seg = tr.t[i] > tchange;
    double etot = tr.ke[i] + tr.pe[i] + tr.diss[i];
    if (isnan(ref[seg])) {
      ref[seg] = etot;
    }
    worst = fmax(worst, fabs(etot - ref[seg]));
    if (seg) {
      qmin_after = fmin(qmin_after, tr.q[(size_t)i * (size_t)tr.nq]);
    }
  }
  print_message("pendulum_stop.json: energy drift %.3g J per segment, lowest angle after the "
                "change %.4f rad, dissipated %.4f J\n",
                worst, qmin_after, tr.diss[tr.n - 1]);
  assert_true(worst < 1e-5);
  const double* v = d->disc + m->force[e].discadr;
  assert_true(v[STOP_LOWER] == -0.2 && v[STOP_K] == 600 && v[STOP_UPPER] == 1.2);
  assert_true(qmin_after < -0.2 && qmin_after > -0.5);
  th_traceFree(&tr);
  cs_deleteData(d);
  cs_deleteModel(m);
}


// the hanging block settles to the static sag m g / k_z with no rotation, and KE + PE +
// dissipated stays constant on the way
static void test_scene_bushing_hang(void** state) {
  (void)state;
  csModel* m = th_loadFile("scenes/bushing_hang.json");
  int b = cs_bodyId(m, "block");
  int e = cs_forceId(m, "mount");
  assert_true(b > 0 && e >= 0);
  thTrace tr = {0};
  csData* d = th_run(m, NULL, &tr);
  double e0 = tr.ke[0] + tr.pe[0] + tr.diss[0], worst = 0;
  for (int i = 0; i < tr.n; i++) {
    worst = fmax(worst, fabs(tr.ke[i] + tr.pe[i] + tr.diss[i] - e0));
  }
  int kslot = slotOf(CS_FORCE_LINEAR_BUSHING, "translational_stiffness");
  const double kz = m->force[e].param[kslot + 2];
  double sag = m->body[b].mass * 9.81 / kz;
  const csTransform* X = &d->body_pose[b];
  print_message("bushing_hang.json: energy drift %.3g J, final centre z %.7f (static sag "
                "predicts %.7f), final KE %.3g J, dissipated %.4f J\n",
                worst, X->p.z, 0.9 - sag, tr.ke[tr.n - 1], tr.diss[tr.n - 1]);
  assert_true(worst < 1e-5);
  th_assertClose(X->p.z, 0.9 - sag, 0, 1e-7, "static sag");
  assert_true(fabs(X->p.x) < 1e-7 && fabs(X->p.y) < 1e-7);
  for (int i = 0; i < 3; i++) {
    th_assertClose(X->R.m[i][i], 1.0, 0, 1e-9, "upright at rest");
  }
  assert_true(tr.ke[tr.n - 1] < 1e-10);
  assert_int_equal(d->stat.warnings_bushing, 0);
  th_traceFree(&tr);
  cs_deleteData(d);
  cs_deleteModel(m);
}


// scenes/leg_knee_stop.json: after the landing the leg stands on its heel with the knee resting
// on its stop. Statics, from the final state: the floor carries the whole weight (the slider is
// vertical and frictionless), and the moments about the knee axis on the shank balance: stop,
// extensor spring, damper, the ground reaction at the contact point and the shank's weight.
static void test_scene_leg_knee_stop(void** state) {
  (void)state;
  csModel* m = th_loadFile("scenes/leg_knee_stop.json");
  csData* d = th_run(m, NULL, NULL);
  cs_realizeDynamics(m, d);
  int shank = cs_bodyId(m, "shank"), heel = cs_forceId(m, "heel.0");
  int stop = cs_forceId(m, "knee_stop");
  const csBody* sb = &m->body[shank];
  double q = d->q[sb->qadr], u = d->u[sb->uadr];
  double mass = 0;
  for (int b = 1; b < m->nbody; b++) {
    mass += m->body[b].mass;
  }
  csContactReport rep;
  cs_contactReport(m, d, heel, &rep);
  th_assertClose(rep.force.v.z, mass * G, 1e-6, 0, "the floor carries the weight");
  // generalized forces on the knee (about Ground +y): recomputed from the scene's values
  cs_contactReport(m, d, stop, &rep);
  double stopForce = d->force_extra[m->force[stop].repadr];
  double spring = -100.0 * (q - (-0.3)), damper = -3.0 * u;
  // the external moments about the knee axis, from the contact and the shank's weight
  cs_contactReport(m, d, heel, &rep);
  csVec3 knee = d->body_pose[shank].p;
  csVec3 grf = csu_cross(csu_sub(rep.point, knee), rep.force.v);
  csVec3 weight = csu_cross(csu_sub(d->body_com[shank], knee), csu_vec3(0, 0, -sb->mass * G));
  double sum = stopForce + spring + damper + grf.y + weight.y;
  print_message("standing: knee %.4f rad (stop at 0), stop %.3f N m, extensor %.3f N m, ground "
                "reaction %.3f N m, shank weight %.3f N m; sum %.2e N m; floor %.3f N for %.3f N "
                "of weight\n",
                q, stopForce, spring, grf.y, weight.y, sum, rep.force.v.z, mass * G);
  assert_true(q < 0 && q > -0.05);   // resting past the bound by the stop's compliance
  assert_true(stopForce > 0);        // the stop pushes back into flexion
  th_assertClose(stopForce, -2000.0 * q, 1e-4, 0, "stop stiffness at rest (the heel creeps)");
  assert_true(fabs(sum) < 1e-3 * fabs(stopForce));
  cs_deleteData(d);
  cs_deleteModel(m);
}


int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_stop_piecewise_force),
      cmocka_unit_test(test_mobility_jacobians_match_differences),
      cmocka_unit_test(test_stop_never_pulls),
      cmocka_unit_test(test_stop_report_columns),
      cmocka_unit_test(test_stop_slider_bounce),
      cmocka_unit_test(test_stop_pendulum_energy),
      cmocka_unit_test(test_stop_set_discrete),
      cmocka_unit_test(test_stop_scheduled_change),
      cmocka_unit_test(test_stop_validate),
      cmocka_unit_test(test_bushing_translational_frequency),
      cmocka_unit_test(test_bushing_rotational_frequency),
      cmocka_unit_test(test_bushing_energy_balance),
      cmocka_unit_test(test_bushing_equal_opposite),
      cmocka_unit_test(test_bushing_report_columns),
      cmocka_unit_test(test_bushing_euler_rates),
      cmocka_unit_test(test_bushing_singularity),
      cmocka_unit_test(test_bushing_validate),
      cmocka_unit_test(test_scene_pendulum_stop),
      cmocka_unit_test(test_scene_bushing_hang),
      cmocka_unit_test(test_scene_leg_knee_stop),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
