// test_chain.c: chains of pins with stops, the case the integrator's reduced Newton system
// (src/engine/integrator.c, "the reduced Newton system of a chain") is for. The checks are
// physical or independent of that solver: the energy balance KE + PE + dissipated, and the
// trajectory of Adams (no Newton system at all) and of the full dense solver.
#include <math.h>
#include <stdio.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "contactsim/contactsim.h"
#include "helpers.h"


// run chain_16 (16 links of 0.1 kg, stops at +-0.5 rad) for 1 s and return the trace
static csData* runChain(const csModel* m, csIntegratorType integ, csLinearSolver ls, double tol,
                        thTrace* tr) {
  csSimOptions o = th_simOptions(1.0, tol, tol, 0.01);
  o.integrator = integ;
  o.linsol = ls;
  return th_run(m, &o, tr);
}


// largest difference of any coordinate over the reports
static double maxDiff(const thTrace* a, const thTrace* b) {
  assert_int_equal(a->n, b->n);
  double worst = 0;
  for (int i = 0; i < a->n * a->nq; i++) {
    worst = fmax(worst, fabs(a->q[i] - b->q[i]));
  }
  return worst;
}


// BDF on chain m (at tolerance tol over 1 s) conserves KE + PE + dissipated, strikes the stops
// (energy is dissipated), forms its Jacobian from the mass matrix (gravity, stops and dampers
// give their own derivatives: no right-hand side spent on difference quotients, which the dense
// solver spends) and follows Adams (no Newton system at all) and the full dense solver within
// `agree` rad
static void checkBdfChain(const csModel* m, const char* what, double tol, double agree) {
  thTrace bdf = {0}, adams = {0}, dense = {0};
  csData* d1 = runChain(m, CS_INTEGRATOR_BDF, CS_LINSOL_AUTO, tol, &bdf);
  csData* d2 = runChain(m, CS_INTEGRATOR_ADAMS, CS_LINSOL_AUTO, tol, &adams);
  csData* d3 = runChain(m, CS_INTEGRATOR_BDF, CS_LINSOL_DENSE, tol, &dense);
  double e0 = bdf.ke[0] + bdf.pe[0] + bdf.diss[0], drift = 0;
  for (int i = 0; i < bdf.n; i++) {
    drift = fmax(drift, fabs(bdf.ke[i] + bdf.pe[i] + bdf.diss[i] - e0));
  }
  double vs_adams = maxDiff(&bdf, &adams), vs_dense = maxDiff(&bdf, &dense);
  print_message("%s, BDF at %g: %ld steps (Adams %ld), energy drift %.3g J of %.3g J, "
                "dissipated %.4g J; largest coordinate difference from Adams %.3g rad, from the "
                "dense solver %.3g rad\n",
                what, tol, d1->stat.nsteps, d2->stat.nsteps, drift, fabs(e0), bdf.diss[bdf.n - 1],
                vs_adams, vs_dense);
  assert_true(bdf.diss[bdf.n - 1] > 1e-3);
  assert_true(drift < 1e-6 * fabs(e0) + 1e-9);
  assert_true(d1->stat.njac > 0);
  assert_int_equal(d1->stat.nrhs_jac, 0);
  assert_true(d3->stat.nrhs_jac > 0);
  assert_true(vs_adams < agree);
  assert_true(vs_dense < agree);
  th_traceFree(&bdf);
  th_traceFree(&adams);
  th_traceFree(&dense);
  cs_deleteData(d1);
  cs_deleteData(d2);
  cs_deleteData(d3);
}


static void test_chain_bdf_energy_and_agreement(void** state) {
  (void)state;
  csModel* m = th_loadFile("scenes/bench/chain_16.json");
  checkBdfChain(m, "chain_16", 1e-9, 1e-5);
  cs_deleteModel(m);
}


// chain_16's links and stops as a scene text, its root pin at (x0, 0, 1), with stops of stiffness
// k, a mobility damper of coefficient c on every pin when c > 0, and a two-point spring between
// links 2 and 5 when `spring`; the text is written into buf
static const char* chainScene(char* buf, size_t size, double x0, double k, double c, int spring) {
  size_t n = 0;
  n += (size_t)snprintf(buf + n, size - n, "{\"gravity\": [0, 0, -9.81], \"bodies\": [");
  char root[128];
  snprintf(root, sizeof(root),
           "{\"position\": [%.17g, 0, 1], \"rotation\": {\"axis\": [1, 0, 0], "
           "\"angle_deg\": 90}}",
           x0);
  for (int i = 0; i < 16; i++) {
    char parent[16];
    snprintf(parent, sizeof(parent), i ? "link%d" : "ground", i - 1);
    n += (size_t)snprintf(
        buf + n, size - n,
        "%s{\"name\": \"link%d\", \"mass\": 0.1, \"com\": [0.05, 0, 0], "
        "\"inertia\": {\"diag\": [1e-5, 1e-4, 1e-4]}, \"joint\": {\"type\": \"pin\", "
        "\"parent\": \"%s\", \"parent_frame\": %s}}",
        i ? ", " : "", i, parent,
        i ? "{\"position\": [0.1, 0, 0]}" : root);
  }
  n += (size_t)snprintf(buf + n, size - n, "], \"forces\": [");
  for (int i = 0; i < 16; i++) {
    n += (size_t)snprintf(buf + n, size - n,
                          "%s{\"type\": \"linear_stop\", \"name\": \"stop%d\", \"body\": "
                          "\"link%d\", \"lower_bound\": -0.5, \"upper_bound\": 0.5, "
                          "\"stiffness\": %g, \"dissipation\": 0.2}",
                          i ? ", " : "", i, i, k);
    if (c > 0) {
      n += (size_t)snprintf(buf + n, size - n,
                            ", {\"type\": \"mobility_damper\", \"name\": \"damper%d\", "
                            "\"body\": \"link%d\", \"damping\": %g}",
                            i, i, c);
    }
  }
  if (spring) {
    n += (size_t)snprintf(buf + n, size - n,
                          ", {\"type\": \"spring\", \"name\": \"link_spring\", \"body1\": "
                          "\"link2\", \"body2\": \"link5\", \"stiffness\": 3, "
                          "\"rest_length\": 0.2}");
  }
  snprintf(buf + n, size - n, "]}");
  assert_true(n + 3 < size);
  return buf;
}


// A stiff chain: chain_16 with stops 100 times stiffer and dampers on every pin, so that an
// explicit method would be held to steps of the stops' period. With BDF the implicit Jacobian
// from the mass matrix and the elements' own derivatives (stiffness k, damping c) keeps the
// energy balance and follows Adams (no Newton system) and the dense difference-quotient solver;
// a two-point spring in the group (no derivatives of its own) makes the group fall back to
// difference quotients, with the same trajectory.
static void test_chain_stiff_stops_and_dampers(void** state) {
  (void)state;
  static char text[16384];
  csModel* m = th_loadString(chainScene(text, sizeof(text), 0, 5000, 0.002, 0));
  csModel* ms = th_loadString(chainScene(text, sizeof(text), 0, 50, 0, 1));
  // The stiff stops make the motion sensitive: at 1e-8 and 1e-9 BDF, Adams and rk part by up to
  // 1e-3 rad, depending on the last bits of the right-hand side's arithmetic; from 1e-10 on all
  // three agree within 1e-5 rad
  checkBdfChain(m, "stiff chain_16 with dampers", 1e-10, 5e-5);

  // the same chain (scene stops) with a two-point spring between two links: difference quotients
  thTrace sb = {0}, sa = {0};
  csData* d4 = runChain(ms, CS_INTEGRATOR_BDF, CS_LINSOL_AUTO, 1e-9, &sb);
  csData* d5 = runChain(ms, CS_INTEGRATOR_ADAMS, CS_LINSOL_AUTO, 1e-9, &sa);
  print_message("chain_16 with a two-point spring, BDF: %ld right-hand sides on Jacobians; from "
                "Adams %.3g rad\n",
                d4->stat.nrhs_jac, maxDiff(&sb, &sa));
  assert_true(d4->stat.nrhs_jac > 0);
  assert_true(maxDiff(&sb, &sa) < 1e-5);
  th_traceFree(&sb);
  th_traceFree(&sa);
  cs_deleteData(d4);
  cs_deleteData(d5);
  cs_deleteModel(m);
  cs_deleteModel(ms);
}



// The same chain a million metres from Ground's origin moves the same way (only its position
// differs): the implicit integrator's mass matrix is formed about the chain itself, so that the
// m |c|^2 terms of inertias taken about a far origin do not cancel the pivots away (about
// Ground's origin this run failed to converge)
static void test_chain_far_from_origin(void** state) {
  (void)state;
  static char text[16384];
  csModel* near = th_loadString(chainScene(text, sizeof(text), 0, 50, 0, 0));
  csModel* far = th_loadString(chainScene(text, sizeof(text), 1e6, 50, 0, 0));
  thTrace a = {0}, b = {0};
  csData* d1 = runChain(near, CS_INTEGRATOR_BDF, CS_LINSOL_AUTO, 1e-8, &a);
  csData* d2 = runChain(far, CS_INTEGRATOR_BDF, CS_LINSOL_AUTO, 1e-8, &b);
  double diff = maxDiff(&a, &b);
  print_message("chain_16 at x = 1e6 m against x = 0, BDF at 1e-8: %ld and %ld steps, largest "
                "joint-angle difference %.3g rad\n",
                d2->stat.nsteps, d1->stat.nsteps, diff);
  assert_int_equal(d2->stat.nrhs_jac, 0);
  assert_true(diff < 1e-5);
  assert_true(d2->stat.nsteps < 2 * d1->stat.nsteps);
  th_traceFree(&a);
  th_traceFree(&b);
  cs_deleteData(d1);
  cs_deleteData(d2);
  cs_deleteModel(near);
  cs_deleteModel(far);
}


// ark on chains of pins: from eight bodies its Jacobian comes from the mass matrix and the
// elements' own derivatives (no right-hand side spent on difference quotients) and its systems
// are solved through the tree. On chain_16 at 1e-8 over 1 s it follows Adams at 1e-9 within
// 2e-6 rad, as ark with the dense difference-quotient Jacobian does, keeps KE + PE + dissipated
// within 1e-5 of the energy, and spends less than half the dense run's right-hand sides (rk, of
// order five, takes half ark's steps there: the chain is not stiff). Where the solve matters:
// with dampers of 2 N m s/rad on every pin (eigenvalues of some -6e4 1/s, which hold rk to
// steps of 50 us) it takes a fiftieth of rk's steps, and with stops 100 times stiffer fewer
// than 0.85 of rk's (at 1e-5, where ark, rk and the dense ark are 0.7-2e-3 rad from Adams at
// 1e-9: the stiff stops make the motion sensitive). A wrong sign on the solve's stiffness term
// read 0.10 and 1.34 of rk's steps, hg for hg^2 in the armature 0.17, the coordinates' share of
// the solution left out 0.95 on the stiff stops.
static void checkArkChain(const csModel* m, const char* what, double tol, double agree,
                          double steps_rk) {
  thTrace tree = {0}, dense = {0}, rk = {0}, ref = {0};
  csData* d1 = runChain(m, CS_INTEGRATOR_ARK, CS_LINSOL_AUTO, tol, &tree);
  csData* d2 = runChain(m, CS_INTEGRATOR_ARK, CS_LINSOL_DENSE, tol, &dense);
  csData* d3 = runChain(m, CS_INTEGRATOR_RK, CS_LINSOL_AUTO, tol, &rk);
  csData* d4 = runChain(m, CS_INTEGRATOR_ADAMS, CS_LINSOL_AUTO, 1e-9, &ref);
  double e0 = tree.ke[0] + tree.pe[0] + tree.diss[0], drift = 0, scale = 0;
  for (int i = 0; i < tree.n; i++) {
    drift = fmax(drift, fabs(tree.ke[i] + tree.pe[i] + tree.diss[i] - e0));
    scale = fmax(scale, tree.ke[i] + tree.diss[i]);
  }
  double vs_ref = maxDiff(&tree, &ref), vs_dense = maxDiff(&dense, &ref);
  double vs_rk = maxDiff(&rk, &ref);
  print_message("%s, ark at %g: %ld steps, %ld right-hand sides (%ld on Jacobians); dense: %ld "
                "steps, %ld + %ld; rk %ld steps. From Adams at 1e-9 %.3g rad (dense %.3g, rk "
                "%.3g); energy drift %.3g J of %.3g J\n",
                what, tol, d1->stat.nsteps, d1->stat.nrhs, d1->stat.nrhs_jac, d2->stat.nsteps,
                d2->stat.nrhs, d2->stat.nrhs_jac, d3->stat.nsteps, vs_ref, vs_dense, vs_rk, drift,
                scale);
  assert_int_equal(d1->stat.nrhs_jac, 0);
  assert_true(d1->stat.njac > 0);
  assert_true(d2->stat.nrhs_jac > 0);
  assert_true(vs_ref < agree);
  assert_true(vs_dense < agree);
  assert_true(drift < 1e-5 * scale);
  assert_true(2 * d1->stat.nrhs < d2->stat.nrhs + d2->stat.nrhs_jac);
  assert_true(steps_rk == 0 || d1->stat.nsteps < steps_rk * d3->stat.nsteps);
  th_traceFree(&tree);
  th_traceFree(&dense);
  th_traceFree(&rk);
  th_traceFree(&ref);
  cs_deleteData(d1);
  cs_deleteData(d2);
  cs_deleteData(d3);
  cs_deleteData(d4);
}

static void test_ark_chain(void** state) {
  (void)state;
  static char text[16384];
  csModel* m = th_loadFile("scenes/bench/chain_16.json");
  checkArkChain(m, "chain_16", 1e-8, 2e-6, 0);
  cs_deleteModel(m);
  m = th_loadString(chainScene(text, sizeof(text), 0, 50, 2, 0));
  checkArkChain(m, "chain_16 with dampers", 1e-5, 1e-4, 0.02);
  cs_deleteModel(m);
  m = th_loadString(chainScene(text, sizeof(text), 0, 5000, 0.002, 0));
  checkArkChain(m, "chain_16 with stiff stops", 1e-5, 5e-3, 0.85);
  cs_deleteModel(m);
}


// ark is not held to its dense limit of 200 positions and speeds on a chain of pins: the
// bench's 256 links (512) run, and end 0.1 s later where Adams at 1e-10 does
static void test_ark_long_chain(void** state) {
  (void)state;
  csModel* m = th_loadFile("scenes/bench/chain_256.json");
  csSimOptions o = th_simOptions(0.1, 1e-7, 1e-7, 0.05);
  o.integrator = CS_INTEGRATOR_ARK;
  thTrace a = {0}, r = {0};
  csData* d1 = th_run(m, &o, &a);
  o.integrator = CS_INTEGRATOR_ADAMS;
  o.rtol = o.atol = 1e-10;
  csData* d2 = th_run(m, &o, &r);
  double diff = maxDiff(&a, &r);
  print_message("chain_256, ark at 1e-7 over 0.1 s: %ld steps, %ld right-hand sides (%ld on "
                "Jacobians); from Adams at 1e-10 %.3g rad\n",
                d1->stat.nsteps, d1->stat.nrhs, d1->stat.nrhs_jac, diff);
  assert_int_equal(d1->stat.nrhs_jac, 0);
  assert_true(diff < 1e-6);
  th_traceFree(&a);
  th_traceFree(&r);
  cs_deleteData(d1);
  cs_deleteData(d2);
  cs_deleteModel(m);
}


// The planar right-hand side (src/engine/dynamics.c, cs_realizeRates) in whole runs: chain_4
// (its stops struck) with every integrator, once as the model takes it and once with the general
// path, follows the same trajectory to well within the integrators' tolerance: what the
// integrator reads of the rates between steps (a stop's onset from udot, the step end held for
// a report) is the same either way
static void test_planar_rhs_follows_general_path(void** state) {
  (void)state;
  csModel* m = th_loadFile("scenes/bench/chain_4.json");
  const csIntegratorType integ[] = {CS_INTEGRATOR_RK, CS_INTEGRATOR_RK23, CS_INTEGRATOR_ARK,
                                    CS_INTEGRATOR_ADAMS, CS_INTEGRATOR_BDF};
  const char* const names[] = {"rk", "rk23", "ark", "adams", "bdf"};
  for (int i = 0; i < 5; i++) {
    csSimOptions o = th_simOptions(1.0, 1e-10, 1e-10, 0.01);
    o.integrator = integ[i];
    thTrace planar = {0}, general = {0};
    csData* d1 = cs_makeData(m);
    csData* d2 = cs_makeData(m);
    assert_true(d1->planar_model);
    d2->planar_model = 0;
    th_runData(m, d1, &o, &planar);
    th_runData(m, d2, &o, &general);
    double diff = maxDiff(&planar, &general);
    print_message("chain_4, %s at 1e-10 over 1 s: %ld and %ld steps (planar right-hand side, "
                  "general path), largest coordinate difference %.3g rad, dissipated %.4g J\n",
                  names[i], d1->stat.nsteps, d2->stat.nsteps, diff,
                  planar.diss[planar.n - 1]);
    assert_true(planar.diss[planar.n - 1] > 1e-3);  // the stops were struck
    assert_true(diff < 1e-6);
    th_traceFree(&planar);
    th_traceFree(&general);
    cs_deleteData(d1);
    cs_deleteData(d2);
  }
  cs_deleteModel(m);
}


int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_chain_bdf_energy_and_agreement),
      cmocka_unit_test(test_chain_stiff_stops_and_dampers),
      cmocka_unit_test(test_chain_far_from_origin),
      cmocka_unit_test(test_ark_chain),
      cmocka_unit_test(test_ark_long_chain),
      cmocka_unit_test(test_planar_rhs_follows_general_path),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
