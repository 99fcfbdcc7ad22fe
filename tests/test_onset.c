// test_onset.c: where force elements start to act (csForceKind.onset) and the one-step
// integrators' steps that end there (rk.c, cs_rkTry): the quadratic's root, the height of a
// point over a plane and its rates against difference quotients along the motion, and steps
// that end exactly where a dropped ball touches, a point touches and a slider reaches its stop.
#include "helpers.h"

#include "engine/rk.h"
#include "forces/util.h"

#include <stdio.h>
#include <string.h>

static const double G = 9.81;


static void test_gap_root(void** state) {
  (void)state;
  // free fall from 1 m: sqrt(2 / g)
  th_assertClose(cs_gapRoot(1.0, 0.0, -G), sqrt(2.0 / G), 1e-15, 0, "fall from rest");
  // thrown down at 2 m/s: (-2 + sqrt(4 + 2 g)) / g
  th_assertClose(cs_gapRoot(1.0, -2.0, -G), (-2.0 + sqrt(4.0 + 2.0 * G)) / G, 1e-15, 0,
                 "thrown down");
  // thrown up at 3 m/s: it comes back down, (3 + sqrt(9 + 2 g)) / g
  th_assertClose(cs_gapRoot(1.0, 3.0, -G), (3.0 + sqrt(9.0 + 2.0 * G)) / G, 1e-15, 0,
                 "thrown up");
  // no acceleration: gap / speed
  th_assertClose(cs_gapRoot(0.5, -2.0, 0.0), 0.25, 1e-15, 0, "coasting");
  // braked before it gets there (1 - t + 5 t^2 > 0 always), moving away, standing still
  assert_true(isinf(cs_gapRoot(1.0, -1.0, 10.0)));
  assert_true(isinf(cs_gapRoot(1.0, 1.0, 0.0)));
  assert_true(isinf(cs_gapRoot(1.0, 0.0, 0.0)));
  // braked, but not enough: the first of the two roots, (1 - sqrt(1 - 0.8)) / 0.4
  th_assertClose(cs_gapRoot(0.1, -1.0, 4.0), (1.0 - sqrt(1.0 - 0.8)) / 4.0, 1e-14, 0,
                 "braked approach");
  // touching or through: now
  assert_true(cs_gapRoot(0.0, -1.0, -G) == 0.0);
  assert_true(cs_gapRoot(-1e-3, 1.0, 0.0) == 0.0);
  // a gap far below the speed's scale keeps its digits (the naive formula gives 0 or 2e-12)
  th_assertClose(cs_gapRoot(1e-12, -1.0, -G), 1e-12, 1e-11, 0, "tiny gap");
  // a speed whose square underflows, with no acceleration: still gap / speed
  th_assertClose(cs_gapRoot(1e-300, -1e-300, 0.0), 1.0, 1e-15, 0, "tiny speed");
  // an absent bound (infinitely far), or rates that are not numbers: never
  assert_true(isinf(cs_gapRoot(INFINITY, -1.0, -G)));
  assert_true(isinf(cs_gapRoot(1.0, NAN, -G)));
  assert_true(isinf(cs_gapRoot(1.0, -1.0, NAN)));
}


// A gap apart at both ends of a step that closes in between (cs_gapDip): found from the ends'
// gaps, rates and accelerations, where the start's own prediction turns back before touching.
// The quartic 1.6 s^4 - 2 s^3 + 0.5 s^2 + 0.02 over a step of 2 s (s = t / 2), which the quintic
// interpolant reproduces: its roots in (0, 1) are 0.47458176167008326 and 0.873478449888925
// (numpy's roots).
static void test_gap_dip(void** state) {
  (void)state;
  double h = 2.0, width = 0;
  const double g0[3] = {0.02, 0.0, 1.0 / (h * h)};
  const double g1[3] = {0.12, 1.4 / h, 8.2 / (h * h)};
  assert_true(isinf(cs_gapRoot(g0[0], g0[1], g0[2])));  // the start alone sees no touch
  th_assertClose(cs_gapDip(g0, g1, h, &width), 0.47458176167008326, 1e-12, 0, "quartic dip");
  // how long it stays closed, to the next 64th of the step
  assert_true(width >= 0.873478449888925 - 0.47458176167008326 &&
              width <= 0.873478449888925 - 0.47458176167008326 + 1.0 / 64);
  // a step whose start predicts a touch that the ends' interpolant misses (a graze of 20 um
  // over a step of 0.38 s): the start's prediction, from its first root to its second
  const double p0[3] = {0.00128, -0.078, 2.35}, p1[3] = {0.095, 0.311, -1.29};
  double hp = 0.381, disc = sqrt(0.078 * 0.078 - 2 * 2.35 * 0.00128);
  double r1 = (0.078 - disc) / 2.35, r2 = (0.078 + disc) / 2.35;
  th_assertClose(cs_gapDip(p0, p1, hp, &width), r1 / hp, 1e-12, 0, "predicted graze");
  th_assertClose(width, (r2 - r1) / hp, 1e-12, 0, "predicted graze's length");
  // apart throughout, touching at either end, an absent bound: none
  const double far[3] = {1.0, 0.0, 0.0}, in[3] = {-1e-6, 0.1, 0.0}, absent[3] = {INFINITY, 0, 0};
  assert_true(isinf(cs_gapDip(far, far, h, &width)));
  assert_true(isinf(cs_gapDip(g0, in, h, &width)));
  assert_true(isinf(cs_gapDip(in, g1, h, &width)));
  assert_true(isinf(cs_gapDip(absent, absent, h, &width)));
}


// two free bodies, the carrier pushed off its centre of mass and turning: a tilted plane on
// it (offset from its origin, its centre of mass off the origin too) and a ball over it; a
// ground plane as well. Planes 0 and 1.
static csModel* twoBodies(void) {
  return th_loadString(
      "{\"gravity\": [0, 0, -9.81],"
      " \"bodies\": [{\"name\": \"carrier\", \"mass\": 3, \"com\": [0.05, -0.02, 0.01],"
      "   \"inertia\": {\"box\": [0.3, 0.2, 0.05]}, \"joint\": {\"type\": \"free\"}},"
      "  {\"name\": \"ball\", \"mass\": 1, \"inertia\": {\"sphere\": 0.05},"
      "   \"joint\": {\"type\": \"free\"}}],"
      " \"planes\": [{\"name\": \"tilted\", \"body\": \"carrier\", \"frame\": {"
      "   \"position\": [0.1, 0.05, 0.02], \"rotation\": {\"axis\": [1, 2, 0],"
      "   \"angle_deg\": 23}}}, {\"name\": \"floor\"}],"
      " \"forces\": [{\"type\": \"constant\", \"name\": \"push\", \"body\": \"carrier\","
      "   \"station\": [0.1, -0.1, 0], \"force\": [4, -7, 30], \"torque\": [0, 0, 0.5]},"
      "  {\"type\": \"constant\", \"name\": \"shove\", \"body\": \"ball\","
      "   \"station\": [0, 0.03, 0], \"force\": [-2, 1, 3]}],"
      " \"simulation\": {\"duration\": 1}}");
}


// height and its rates of the ball's station over plane p at the data's state (realized here)
static void heightRates(const csModel* m, csData* d, int plane, csVec3 station, double* g) {
  cs_invalidate(d);
  assert_int_equal(cs_forward(m, d), 0);
  csVec3 p_G = csu_stationPosition(m, d, 2, station);
  csu_planeHeightRates(m, d, 2, plane, p_G, g);
}


// The height's rate and second derivative against central differences along the motion: at
// y +- eps f(y), the height and its rate change by +- eps times their derivatives, to
// O(eps^2). The carrier turns fast (8 rad/s) and accelerates, so that the plane's own motion
// (its normal turning, its point under the station changing) is a large part of both.
static void test_height_rates(void** state) {
  (void)state;
  const int on_carrier = 0, on_ground = 1;
  csModel* m = twoBodies();
  csData* d = cs_makeData(m);
  csVec3 station = csu_vec3(0.02, -0.01, 0.03);
  th_setFreeState(m, d->q, d->u, 1, csu_quatFromAxisAngle(csu_vec3(0, sqrt(0.5), sqrt(0.5)), 0.3),
                  csu_vec3(0.1, 0.2, 0.0), csu_vec3(1.5, -3.0, 8.0), csu_vec3(0.4, 0.1, -0.3));
  th_setFreeState(m, d->q, d->u, 2, csu_quatFromAxisAngle(csu_vec3(sqrt(0.5), 0, sqrt(0.5)), 1.1),
                  csu_vec3(0.3, 0.1, 0.4), csu_vec3(-2.0, 1.0, 4.0), csu_vec3(0.5, -1.0, -2.0));
  int nq = m->nq, nu = m->nu;
  double* q0 = malloc(sizeof(double) * (size_t)(nq + nu));
  double* f = malloc(sizeof(double) * (size_t)(nq + nu));
  memcpy(q0, d->q, sizeof(double) * (size_t)nq);
  memcpy(q0 + nq, d->u, sizeof(double) * (size_t)nu);
  for (int which = 0; which < 2; which++) {
    int plane = which ? on_ground : on_carrier;
    memcpy(d->q, q0, sizeof(double) * (size_t)nq);
    memcpy(d->u, q0 + nq, sizeof(double) * (size_t)nu);
    double g[3], gp[3], gm[3];
    heightRates(m, d, plane, station, g);
    memcpy(f, d->qdot, sizeof(double) * (size_t)nq);
    memcpy(f + nq, d->udot, sizeof(double) * (size_t)nu);
    const double eps = 1e-6;
    for (int s = -1; s <= 1; s += 2) {
      for (int i = 0; i < nq + nu; i++) {
        double y = q0[i] + s * eps * f[i];
        if (i < nq) {
          d->q[i] = y;
        } else {
          d->u[i - nq] = y;
        }
      }
      heightRates(m, d, plane, station, s > 0 ? gp : gm);
    }
    double hdot = (gp[0] - gm[0]) / (2 * eps), hddot = (gp[1] - gm[1]) / (2 * eps);
    print_message("plane on %s: h %.6f m, hdot %.9f (quotient %.9f), hddot %.9f (quotient "
                  "%.9f)\n", which ? "ground" : "the carrier", g[0], g[1], hdot, g[2], hddot);
    th_assertClose(g[1], hdot, 1e-7, 1e-9, "height's rate");
    th_assertClose(g[2], hddot, 1e-7, 1e-8, "height's second derivative");
  }
  free(q0);
  free(f);
  cs_deleteData(d);
  cs_deleteModel(m);
}


// ---------------------------------------------------------------------------------------------
// steps that end at an onset

typedef struct stepEnds {
  double t[20000];
  int n;
} stepEnds;

static void recordStep(void* ctx, const csModel* m, csData* d) {
  (void)m;
  stepEnds* s = ctx;
  if (s->n < 20000) {
    s->t[s->n++] = d->t;
  }
}


// the step end nearest to t, and the run's statistics
static double nearestStepEnd(const char* json, const char* integrator, double t, csStats* st) {
  csModel* m = th_loadString(json);
  csSimOptions o = cs_modelOptions(m);
  o.integrator = !strcmp(integrator, "rk") ? CS_INTEGRATOR_RK : CS_INTEGRATOR_ARK;
  static stepEnds ends;
  ends.n = 0;
  csReporter rep = {.step = recordStep, .ctx = &ends};
  csData* d = cs_makeData(m);
  csError err = {0};
  assert_int_equal(cs_simulate(m, d, &o, &rep, &err), CS_OK);
  double best = INFINITY;
  for (int i = 0; i < ends.n; i++) {
    if (fabs(ends.t[i] - t) < fabs(best - t)) {
      best = ends.t[i];
    }
  }
  *st = d->stat;
  cs_deleteData(d);
  cs_deleteModel(m);
  return best;
}


// A ball dropped from rest (a Hunt-Crossley sphere, and a compliant point at its bottom), a
// slider falling onto its stop: in free fall the onset's quadratic is exact, so a step ends
// where the contact begins, to rounding, with either one-step integrator. The drop takes
// 0.4 s; a step of the loose tolerance's would cross it.
static void test_steps_end_at_onsets(void** state) {
  (void)state;
  const char* ball =
      "{\"gravity\": [0, 0, -9.81],"
      " \"bodies\": [{\"name\": \"ball\", \"mass\": 1, \"inertia\": {\"sphere\": 0.05},"
      "   \"joint\": {\"type\": \"free\", \"initial\": {\"position\": [0, 0, 0.85]}}}],"
      " \"planes\": [{\"name\": \"floor\"}],"
      " \"contacts\": [{\"name\": \"c\", \"body\": \"ball\", \"plane\": \"floor\","
      "   \"points\": [[0, 0, %s]], \"radius\": 0.05}],"
      " \"contact_models\": {\"default\": \"%s\", \"hunt_crossley\": {"
      "   \"plane_strain_modulus\": 1e8, \"dissipation\": 0.5, \"mu_static\": 0.8,"
      "   \"mu_dynamic\": 0.6, \"transition_velocity\": 0.01},"
      "   \"compliant_point\": {\"penalty_stiffness\": 1e5, \"dissipation\": 0.5,"
      "   \"mu_static\": 0.8, \"mu_dynamic\": 0.6, \"transition_velocity\": 0.01}},"
      " \"simulation\": {\"duration\": 0.6, \"rtol\": 1e-4, \"atol\": 1e-4}}";
  const char* slider =
      "{\"gravity\": [-9.81, 0, 0],"
      " \"bodies\": [{\"name\": \"block\", \"mass\": 1, \"inertia\": {\"box\": [0.05, 0.05, 0.05]},"
      "   \"joint\": {\"type\": \"slider\", \"q\": [0.8], \"u\": [0]}}],"
      " \"forces\": [{\"type\": \"linear_stop\", \"name\": \"stop\", \"body\": \"block\","
      "   \"coordinate\": 0, \"lower_bound\": 0.0, \"stiffness\": 1e4, \"dissipation\": 0.1}],"
      " \"simulation\": {\"duration\": 0.6, \"rtol\": 1e-4, \"atol\": 1e-4}}";
  char json[4096];
  const char* integrators[2] = {"rk", "ark"};
  for (int c = 0; c < 3; c++) {
    if (c == 2) {
      snprintf(json, sizeof(json), "%s", slider);
    } else {
      snprintf(json, sizeof(json), ball, c == 0 ? "0" : "-0.05",
               c == 0 ? "hunt_crossley" : "compliant_point");
    }
    double t_touch = sqrt(2 * 0.8 / G);
    for (int k = 0; k < 2; k++) {
      csStats st;
      double t = nearestStepEnd(json, integrators[k], t_touch, &st);
      print_message("%s with %s: a step ends at %.15f s, the contact begins at %.15f s (%ld "
                    "steps, %ld failed error tests)\n",
                    c == 0 ? "Hunt-Crossley ball" : c == 1 ? "compliant point" : "slider stop",
                    integrators[k], t, t_touch, st.nsteps, st.netf);
      th_assertClose(t, t_touch, 0, 1e-12, "a step's end at the onset");
    }
  }
}


// A slider thrown up its guide (gravity along -x) reaches its upper stop at
// 0.2 = 3 t - g t^2 / 2; and one falling toward its lower stop at 0, which a scheduled change
// moves to -1 m before it gets there: no step ends where the old stop would have begun (the
// prediction made before the change is dropped) and one ends where the new one begins.
static void test_upper_stop_and_changed_bound(void** state) {
  (void)state;
  const char* up =
      "{\"gravity\": [-9.81, 0, 0],"
      " \"bodies\": [{\"name\": \"block\", \"mass\": 1, \"inertia\": {\"box\": [0.05, 0.05, 0.05]},"
      "   \"joint\": {\"type\": \"slider\", \"q\": [0], \"u\": [3]}}],"
      " \"forces\": [{\"type\": \"linear_stop\", \"name\": \"stop\", \"body\": \"block\","
      "   \"coordinate\": 0, \"upper_bound\": 0.2, \"stiffness\": 1e4, \"dissipation\": 0.1}],"
      " \"simulation\": {\"duration\": 0.3, \"rtol\": 1e-4, \"atol\": 1e-4}}";
  const char* moved =
      "{\"gravity\": [-9.81, 0, 0],"
      " \"bodies\": [{\"name\": \"block\", \"mass\": 1, \"inertia\": {\"box\": [0.05, 0.05, 0.05]},"
      "   \"joint\": {\"type\": \"slider\", \"q\": [0.8], \"u\": [0]}}],"
      " \"forces\": [{\"type\": \"linear_stop\", \"name\": \"stop\", \"body\": \"block\","
      "   \"coordinate\": 0, \"lower_bound\": 0.0, \"stiffness\": 1e4, \"dissipation\": 0.1}],"
      " \"changes\": [{\"time\": 0.2, \"force\": \"stop\", \"lower_bound\": -1.0}],"
      " \"simulation\": {\"duration\": 0.8, \"rtol\": 1e-4, \"atol\": 1e-4}}";
  const char* integrators[2] = {"rk", "ark"};
  for (int k = 0; k < 2; k++) {
    csStats st;
    double t_up = (3.0 - sqrt(9.0 - 2.0 * G * 0.2)) / G;
    double t = nearestStepEnd(up, integrators[k], t_up, &st);
    print_message("upper stop with %s: a step ends at %.15f s, the stop engages at %.15f s\n",
                  integrators[k], t, t_up);
    th_assertClose(t, t_up, 0, 1e-12, "a step's end at the upper stop");
    double t_old = sqrt(2 * 0.8 / G), t_new = sqrt(2 * 1.8 / G);
    double near_old = nearestStepEnd(moved, integrators[k], t_old, &st);
    double near_new = nearestStepEnd(moved, integrators[k], t_new, &st);
    print_message("stop moved with %s: nearest step ends %.3g s from the old onset, %.3g s from "
                  "the new one\n", integrators[k], fabs(near_old - t_old), fabs(near_new - t_new));
    assert_true(fabs(near_old - t_old) > 1e-6);
    th_assertClose(near_new, t_new, 0, 1e-12, "a step's end at the moved stop");
  }
}


int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_gap_root),
      cmocka_unit_test(test_gap_dip),
      cmocka_unit_test(test_height_rates),
      cmocka_unit_test(test_steps_end_at_onsets),
      cmocka_unit_test(test_upper_stop_and_changed_bound),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
