// test_chain.c: chains of pins with stops, the case the integrator's reduced Newton system
// (src/engine/integrator.c, "the reduced Newton system of a chain") is for. The checks are
// physical or independent of that solver: the energy balance KE + PE + dissipated, and the
// trajectory of Adams (no Newton system at all) and of the full dense solver.
#include <math.h>
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


// BDF on a chain conserves KE + PE + dissipated, strikes the stops (energy is dissipated), and
// follows the Adams and the full dense-solver trajectories
static void test_chain_bdf_energy_and_agreement(void** state) {
  (void)state;
  csModel* m = th_loadFile("scenes/bench/chain_16.json");
  thTrace bdf = {0}, adams = {0}, dense = {0};
  csData* d1 = runChain(m, CS_INTEGRATOR_BDF, CS_LINSOL_AUTO, 1e-9, &bdf);
  csData* d2 = runChain(m, CS_INTEGRATOR_ADAMS, CS_LINSOL_AUTO, 1e-9, &adams);
  csData* d3 = runChain(m, CS_INTEGRATOR_BDF, CS_LINSOL_DENSE, 1e-9, &dense);
  double e0 = bdf.ke[0] + bdf.pe[0] + bdf.diss[0], drift = 0;
  for (int i = 0; i < bdf.n; i++) {
    drift = fmax(drift, fabs(bdf.ke[i] + bdf.pe[i] + bdf.diss[i] - e0));
  }
  double vs_adams = maxDiff(&bdf, &adams), vs_dense = maxDiff(&bdf, &dense);
  print_message("chain_16, BDF at 1e-9: energy drift %.3g J of %.3g J, dissipated %.4g J; "
                "largest coordinate difference from Adams %.3g rad, from the dense solver "
                "%.3g rad\n",
                drift, fabs(e0), bdf.diss[bdf.n - 1], vs_adams, vs_dense);
  assert_true(bdf.diss[bdf.n - 1] > 1e-3);
  assert_true(drift < 1e-6 * fabs(e0) + 1e-9);
  assert_true(vs_adams < 1e-5);
  assert_true(vs_dense < 1e-5);
  th_traceFree(&bdf);
  th_traceFree(&adams);
  th_traceFree(&dense);
  cs_deleteData(d1);
  cs_deleteData(d2);
  cs_deleteData(d3);
  cs_deleteModel(m);
}


int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_chain_bdf_energy_and_agreement),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
