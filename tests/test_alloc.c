// test_alloc.c: an integration step allocates nothing once the integrator is set up, whatever
// the integrator and the linear solver, SUNDIALS' own code included. This program defines
// malloc, calloc, realloc and free itself (forwarding to glibc's), so the libraries' calls come
// here, and counts the calls made while counting is on. (CVODE's dense difference-quotient
// Jacobian created and freed a vector on every call: three allocations per Jacobian, which the
// library's own allocation counter, csu_malloc's, could not see.) Not built with a sanitizer,
// which brings its own allocator.
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

#include <cmocka.h>

#include "contactsim/contactsim.h"
#include "helpers.h"

extern void* __libc_malloc(size_t n);
extern void* __libc_calloc(size_t count, size_t n);
extern void* __libc_realloc(void* p, size_t n);
extern void __libc_free(void* p);

static volatile int g_counting;
static volatile long g_calls;

void* malloc(size_t n) {
  g_calls += g_counting;
  return __libc_malloc(n);
}


void* calloc(size_t count, size_t n) {
  g_calls += g_counting;
  return __libc_calloc(count, n);
}


void* realloc(void* p, size_t n) {
  g_calls += g_counting;
  return __libc_realloc(p, n);
}


void free(void* p) {
  g_calls += g_counting && p;
  __libc_free(p);
}


// the allocator's calls over `steps` steps of the scene (and contact model), after `warm`
// steps of setting up
static long callsWhileStepping(const char* scene, const char* model, csIntegratorType integrator,
                               csLinearSolver linsol, int warm, int steps) {
  csModel* m = model ? th_loadFileWith(scene, model) : th_loadFile(scene);
  csSimOptions o = cs_modelOptions(m);
  o.integrator = integrator;
  o.linsol = linsol;
  o.duration = 1e6;   // nothing stops the stepping
  o.max_step = 0.01;  // and a body at rest does not let BDF's steps grow without end
  csError err;
  csSimulation* s = cs_newSimulation(m, &o, &err);
  assert_non_null(s);
  for (int i = 0; i < warm; i++) {
    assert_int_equal(cs_simStep(s, &err), CS_OK);
  }
  g_calls = 0;
  g_counting = 1;
  int status = CS_OK;
  for (int i = 0; i < steps && status == CS_OK; i++) {
    status = cs_simStep(s, &err);
  }
  g_counting = 0;
  assert_int_equal(status, CS_OK);
  long calls = g_calls;
  cs_deleteSimulation(s);
  cs_deleteModel(m);
  return calls;
}


static void test_steps_allocate_nothing(void** state) {
  (void)state;
  static const struct {
    const char* scene;
    const char* model;
    csIntegratorType integrator;
    csLinearSolver linsol;
  } cases[] = {
      {"scenes/bench/block_spin_slide.json", NULL, CS_INTEGRATOR_BDF, CS_LINSOL_AUTO},
      {"scenes/bench/block_spin_slide.json", NULL, CS_INTEGRATOR_BDF, CS_LINSOL_DENSE},
      {"scenes/bench/block_spin_slide.json", NULL, CS_INTEGRATOR_BDF, CS_LINSOL_BAND},
      {"scenes/bench/block_spin_slide.json", NULL, CS_INTEGRATOR_BDF, CS_LINSOL_GMRES},
      {"scenes/bench/block_spin_slide.json", NULL, CS_INTEGRATOR_ADAMS, CS_LINSOL_AUTO},
      {"scenes/bench/block_spin_slide.json", NULL, CS_INTEGRATOR_RK, CS_LINSOL_AUTO},
      {"scenes/bench/block_spin_slide.json", NULL, CS_INTEGRATOR_RK23, CS_LINSOL_AUTO},
      {"scenes/bench/block_spin_slide.json", NULL, CS_INTEGRATOR_ARK, CS_LINSOL_AUTO},
      {"scenes/bench/incline_stick.json", "hunt_crossley", CS_INTEGRATOR_BDF, CS_LINSOL_AUTO},
      {"scenes/bench/incline_stick.json", "hunt_crossley", CS_INTEGRATOR_ARK, CS_LINSOL_AUTO},
      {"scenes/bench/pile_10.json", NULL, CS_INTEGRATOR_BDF, CS_LINSOL_AUTO},
      {"scenes/bench/chain_16.json", NULL, CS_INTEGRATOR_BDF, CS_LINSOL_AUTO},
      {"scenes/bench/chain_16.json", NULL, CS_INTEGRATOR_BDF, CS_LINSOL_DENSE},
      {"scenes/bench/chain_16.json", NULL, CS_INTEGRATOR_ARK, CS_LINSOL_AUTO},
      {"scenes/bench/bushing_hang.json", NULL, CS_INTEGRATOR_BDF, CS_LINSOL_AUTO},
  };
  static const char* const integrators[] = CS_INTEGRATOR_NAMES;
  static const char* const solvers[] = CS_LINSOL_NAMES;
  int failed = 0;
  for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
    long calls = callsWhileStepping(cases[k].scene, cases[k].model, cases[k].integrator,
                                    cases[k].linsol, 200, 600);
    print_message("%s%s%s, %s, %s: %ld allocator calls in 600 steps\n", cases[k].scene,
                  cases[k].model ? " with " : "", cases[k].model ? cases[k].model : "",
                  integrators[cases[k].integrator], solvers[cases[k].linsol], calls);
    failed += calls != 0;
  }
  assert_int_equal(failed, 0);
}


int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_steps_allocate_nothing),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
