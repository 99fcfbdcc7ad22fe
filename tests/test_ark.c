// test_ark.c: the linearly implicit additive Runge-Kutta integrator "ark" (ark.c): its order
// (explicit, implicit and split), its accuracy on a stiff problem with a slow solution, and a
// ball rolling on Hunt-Crossley friction after bouncing, against the conservation law that
// fixes its final speed. The integration loop (commits, checkpoints, stops, scheduled changes)
// and a stiff damper at rest are tested with ark in test_rk.c.
#include "helpers.h"

#include "engine/rk.h"

#include <stdio.h>
#include <string.h>


// ---------------------------------------------------------------------------------------------
// the integrator alone, on y = (x, u) with x' = u and u' = -k x - c u; u is the speed

typedef struct Oscillator {
  double k, c;
  long calls;
} Oscillator;


static int oscillator(double t, const double* y, double* ydot, void* ctx) {
  (void)t;
  Oscillator* o = ctx;
  o->calls++;
  ydot[0] = y[1];
  ydot[1] = -o->k * y[0] - o->c * y[1];
  return 0;
}


// x(t) from x(0) = 1, u(0) = 0 when the two roots s1, s2 of s^2 + c s + k are real and distinct
static double overdamped(double s1, double s2, double t) {
  return (s2 * exp(s1 * t) - s1 * exp(s2 * t)) / (s2 - s1);
}


// an ark instance on the oscillator, implicit in the first ni of the states (x, u), or in u
// alone when ni is -1
static csRk* newArk(Oscillator* o, double* y, int ni, double rtol, double atol, double hmax,
                    double h0) {
  csRk* rk = cs_rkNew(2, oscillator, o, 0, y, rtol, atol, hmax, h0);
  assert_non_null(rk);
  int all[2] = {0, 1}, speed[1] = {1};
  csArkTable tab;
  assert_int_equal(cs_arkTableLoad(&tab), 0);
  assert_int_equal(ni < 0 ? cs_rkArkInit(rk, &tab, 1, speed) : cs_rkArkInit(rk, &tab, ni, all),
                   CS_OK);
  return rk;
}


// the largest error at the step ends and at three points inside every step over [0, 5], with
// steps of exactly h (tolerances so loose that every step passes, hmax = h), on the lightly
// damped oscillator x'' + 0.5 x' + x = 0
static void fixedStepErrors(int ni, double h, double* at_steps, double* inside) {
  double wd = sqrt(1 - 0.0625);
  double y[2] = {1, 0}, yi[2];
  Oscillator o = {.k = 1, .c = 0.5};
  csRk* rk = newArk(&o, y, ni, 1e6, 1e6, h, h);
  *at_steps = *inside = 0;
  while (rk->t < 5 - 1e-12) {
    assert_int_equal(cs_rkStep(rk, 5), CS_RK_OK);
    for (int k = 0; k <= 4; k++) {
      double t = rk->told + 0.25 * k * (rk->t - rk->told);
      cs_rkInterpolate(rk, t, yi);
      double x = exp(-0.25 * t) * (cos(wd * t) + 0.25 / wd * sin(wd * t));
      double e = fabs(yi[0] - x);
      if (k == 0 || k == 4) {
        *at_steps = fmax(*at_steps, e);
      } else {
        *inside = fmax(*inside, e);
      }
    }
  }
  // one Jacobian per step, one evaluation per implicit state
  int cols = ni < 0 ? 1 : ni;
  assert_int_equal(rk->njac, cols > 0 ? rk->nsteps : 0);
  assert_int_equal(rk->nrhs_jac, cols * rk->nsteps);
  cs_rkFree(rk);
}


// ARK4(3)6L[2]SA is of order 4 whichever part of the right-hand side is implicit: all of it
// (the implicit table alone: the explicit part is then zero on this linear problem), none (the
// explicit table alone), or the speed alone (both tables, coupled). The global error falls
// 16-fold when h halves. The dense output (the cubic Hermite interpolant of the step's ends)
// stays within a small multiple of the error at the ends.
static void test_order_four(void** state) {
  (void)state;
  const char* names[3] = {"explicit", "speed implicit", "implicit"};
  int nis[3] = {0, -1, 2};
  for (int k = 0; k < 3; k++) {
    double s1, i1, s2, i2;
    fixedStepErrors(nis[k], 0.1, &s1, &i1);
    fixedStepErrors(nis[k], 0.05, &s2, &i2);
    print_message(
        "%s: fixed steps 0.1 / 0.05, error at the steps %.3g / %.3g (ratio %.1f), "
        "inside %.3g / %.3g (ratio %.1f)\n",
        names[k], s1, s2, s1 / s2, i1, i2, i1 / i2);
    assert_true(s1 / s2 > 13 && s1 / s2 < 20);
    assert_true(i1 / i2 > 7);
    assert_true(i2 < 20 * s2);
  }
}


// x'' + 10001 x' + 1e4 x = 0: eigenvalues -1 and -1e4, the stiff one in the speed's damping.
// Dormand-Prince is held at h |lambda| <= 3.3, some 30,000 steps over 10 s whatever the
// tolerance; ark integrates the damping implicitly and follows the slow solution e^-t with
// steps set by the tolerance alone, as accurately as the tolerance asks
static void test_stiff_damping(void** state) {
  (void)state;
  double T = 10;
  for (double tol = 1e-4; tol >= 1e-8; tol *= 1e-2) {
    double y[2] = {1, 0};
    Oscillator o = {.k = 1e4, .c = 10001};
    csRk* rk = newArk(&o, y, 2, tol, tol, 0, 0);
    double worst = 0;
    while (rk->t < T) {
      assert_int_equal(cs_rkStep(rk, T), CS_RK_OK);
      worst = fmax(worst, fabs(y[0] - overdamped(-1, -1e4, rk->t)));
    }
    print_message("ark, rtol = atol = %g: %ld steps, %ld rejected, largest error %.3g\n", tol,
                  rk->nsteps, rk->netf, worst);
    assert_true(worst < 10 * tol);
    assert_true(rk->nsteps < 400);
    cs_rkFree(rk);
  }
  // the same with Dormand-Prince, for contrast
  double y[2] = {1, 0};
  Oscillator o = {.k = 1e4, .c = 10001};
  csRk* rk = cs_rkNew(2, oscillator, &o, 0, y, 1e-4, 1e-4, 0, 0);
  while (rk->t < T) {
    assert_int_equal(cs_rkStep(rk, T), CS_RK_OK);
  }
  print_message("rk, rtol = atol = 1e-4: %ld steps\n", rk->nsteps);
  assert_true(rk->nsteps > 25000);
  cs_rkFree(rk);
}


// ---------------------------------------------------------------------------------------------
// through the engine

// A 1 kg ball (radius 0.1 m) dropped from 0.2 m moving at 1 m/s with 20 rad/s of backspin onto
// stiff Hunt-Crossley contact with velocity-regularized friction. The normal force passes
// through the centre and the friction acts below it, so v_x + (2/5) r w_y is conserved through
// every bounce (= 0.2 m/s), and the ball ends rolling (v_x = r w_y) at 0.2 / (7/5) = 0.142857
// m/s. Conserved up to the model's geometry: the contact point sits a share of the penetration
// x above the lowest point, which changes that sum by at most (x_max / 2r) times the friction's
// impulse per unit mass (about 1 m/s here), 6e-4 m/s with x_max = 1.2e-4 m, or 4e-4 m/s of
// the final speed. KE + PE + dissipated stays at its start.
static void test_ball_ends_rolling(void** state) {
  (void)state;
  csModel* m = th_loadString(
      "{\"gravity\": [0, 0, -9.81],"
      " \"bodies\": [{\"name\": \"ball\", \"mass\": 1, \"inertia\": {\"sphere\": 0.1},"
      "   \"joint\": {\"type\": \"free\", \"initial\": {\"position\": [0, 0, 0.3],"
      "     \"velocity\": [1, 0, 0], \"angular_velocity\": [0, -20, 0]}}}],"
      " \"planes\": [{\"name\": \"floor\"}],"
      " \"contacts\": [{\"name\": \"c\", \"body\": \"ball\", \"plane\": \"floor\","
      "   \"points\": [[0, 0, 0]], \"radius\": 0.1}],"
      " \"contact_models\": {\"default\": \"hunt_crossley\", \"hunt_crossley\": {"
      "   \"plane_strain_modulus\": 1e11, \"dissipation\": 0.5, \"mu_static\": 0.8,"
      "   \"mu_dynamic\": 0.6, \"transition_velocity\": 0.01}},"
      " \"simulation\": {\"duration\": 2, \"integrator\": \"ark\", \"rtol\": 1e-5,"
      "   \"atol\": 1e-5}}");
  csSimOptions o = cs_modelOptions(m);
  assert_int_equal(o.integrator, CS_INTEGRATOR_ARK);
  thTrace tr = {0};
  csData* d = th_run(m, &o, &tr);
  double r = 0.1, vx = d->u[m->body[1].uadr + 3], wy = d->u[m->body[1].uadr + 1];
  double expect = 0.2 / 1.4;
  print_message("v_x %.6f m/s (expected %.6f), r w_y %.6f, %ld steps, %ld + %ld evaluations\n", vx,
                expect, r * wy, d->stat.nsteps, d->stat.nrhs, d->stat.nrhs_jac);
  th_assertClose(vx, expect, 0, 4e-4, "final rolling speed");
  th_assertClose(r * wy, vx, 0, 1e-5, "rolling without slip");
  double e0 = tr.ke[0] + tr.pe[0];
  for (int i = 0; i < tr.n; i++) {
    th_assertClose(tr.ke[i] + tr.pe[i] + tr.diss[i], e0, 2e-3, 0, "KE + PE + dissipated");
  }
  th_traceFree(&tr);
  cs_deleteData(d);
  cs_deleteModel(m);
}


// The bench's ball (scenes/bench/sphere_bounce_roll.json, which names ark): rolling, the
// friction's regularization holds rk at its stability limit, and ark takes far fewer
// evaluations at the same tolerance, Jacobians included (both end within 1e-4 m/s of each other)
static void test_rolling_not_held_by_stability(void** state) {
  (void)state;
  csModel* m = th_loadFile("scenes/bench/sphere_bounce_roll.json");
  csSimOptions o = cs_modelOptions(m);
  assert_int_equal(o.integrator, CS_INTEGRATOR_ARK);
  csData* d = th_run(m, &o, NULL);
  long ark = d->stat.nrhs + d->stat.nrhs_jac;
  double vx = d->u[m->body[1].uadr + 3];
  cs_deleteData(d);
  o.integrator = CS_INTEGRATOR_RK;
  d = th_run(m, &o, NULL);
  long rk = d->stat.nrhs;
  print_message("ark %ld evaluations, rk %ld; final v_x %.6f and %.6f m/s\n", ark, rk, vx,
                d->u[m->body[1].uadr + 3]);
  th_assertClose(vx, d->u[m->body[1].uadr + 3], 0, 1e-4, "the two runs' final speeds");
  assert_true(3 * ark < 2 * rk);
  cs_deleteData(d);
  cs_deleteModel(m);
}


// ark's dense Jacobian is for small groups: a chain of 29 ball joints (203 positions and
// speeds) is refused before the run, naming the integrator key, bdf and rk; 28 (196) run
static csModel* ballChain(int links) {
  csModel* m = cs_newModel("chain");
  int parent = 0;
  csTransform XPF = csu_transformIdentity();
  for (int i = 0; i < links; i++) {
    char name[16];
    snprintf(name, sizeof(name), "link%d", i);
    parent = th_addBody(m, name, parent, CS_JOINT_BALL, XPF, csu_transformIdentity(), 0.1,
                        csu_vec3(0, 0, -0.05), th_diag(1e-4, 1e-4, 1e-5));
    XPF = csu_transformFromPosQuat(csu_vec3(0, 0, -0.1), csu_quatIdentity());
  }
  th_addForce(m, CS_FORCE_GRAVITY, "gravity");
  th_finalize(m);
  return m;
}

static void test_large_group_refused(void** state) {
  (void)state;
  for (int links = 28; links <= 29; links++) {
    csModel* m = ballChain(links);
    csSimOptions o = th_simOptions(0.01, 1e-6, 1e-6, 0.01);
    o.integrator = CS_INTEGRATOR_ARK;
    csError err = {0};
    csSimulation* s = cs_newSimulation(m, &o, &err);
    if (links == 28) {
      assert_non_null(s);
      assert_int_equal(cs_simAdvanceTo(s, 0.01, &err), CS_OK);
      cs_deleteSimulation(s);
    } else {
      print_message("%s: %s\n", err.path, err.message);
      assert_null(s);
      assert_int_equal(err.code, CS_ERR_INPUT);
      assert_string_equal(err.path, "simulation.integrator");
      assert_non_null(strstr(err.message, "203"));
      assert_non_null(strstr(err.message, "use bdf"));
    }
    cs_deleteModel(m);
  }
}


int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_order_four),
      cmocka_unit_test(test_stiff_damping),
      cmocka_unit_test(test_ball_ends_rolling),
      cmocka_unit_test(test_rolling_not_held_by_stability),
      cmocka_unit_test(test_large_group_refused),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
