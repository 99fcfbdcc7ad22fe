// test_integrator.c: the integrator loop: exact report times, linear solvers that agree,
// failures that report time and reason, option checks.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/sundials_ops.h"
#include "helpers.h"


// a cart on a slider along ground x with unit rotational inertia, named "cart<i>"
static int addCart(csModel* m, int i, double mass) {
  char name[16];
  snprintf(name, sizeof(name), "cart%d", i);
  return th_addBody(m, name, 0, CS_JOINT_SLIDER, csu_transformIdentity(), csu_transformIdentity(),
                    mass, csu_vec3(0, 0, 0), csu_identity33());
}


// n independent sliders on springs of different stiffness (each its own coupled group), not
// yet finalized; the first cart is body 1
static csModel* sliderModel(const char* name, int n) {
  csModel* m = cs_newModel(name);
  m->gravity = csu_vec3(0, 0, 0);
  for (int i = 0; i < n; i++) {
    int id = addCart(m, i, 1.0 + 0.01 * i);
    int s = th_addForce(m, CS_FORCE_MOBILITY_SPRING, "spring");
    th_setParam(m, s, "body", id);
    th_setParam(m, s, "stiffness", 10.0 + i);
    int c = th_addForce(m, CS_FORCE_MOBILITY_DAMPER, "damper");
    th_setParam(m, c, "body", id);
    th_setParam(m, c, "damping", 0.1);
  }
  return m;
}


// finalized, every cart 0.1 m out
static csModel* slidersReady(csModel* m) {
  csError err = {0};
  assert_int_equal(cs_finalizeModel(m, &err), 0);
  for (int i = 0; i < m->nq; i++) {
    m->q0[i] = 0.1;
  }
  return m;
}


static csModel* sliders(int n) {
  return slidersReady(sliderModel("sliders", n));
}


// every report falls exactly on the grid k * interval, and the last one on the end time
static void test_report_times_exact(void** state) {
  (void)state;
  csModel* m = sliders(1);
  csSimOptions o = cs_defaultSimOptions();
  o.duration = 1.05;
  o.report_interval = 0.1;
  thTrace tr = {0};
  csData* d = th_run(m, &o, &tr);
  assert_int_equal(tr.n, 12);
  for (int i = 0; i < 11; i++) {
    assert_true(tr.t[i] == 0.1 * i);
  }
  assert_true(tr.t[11] == 1.05);
  assert_true(d->t == 1.05);
  th_traceFree(&tr);
  cs_deleteData(d);
  cs_deleteModel(m);
}


// the banded solver and the dense one, each integrating the sliders as one system, and the
// default (one CVODE instance per independent slider) all match the analytic damped oscillation
static void test_solvers_agree(void** state) {
  (void)state;
  int n = 120;
  csModel* m = sliders(n);
  csSimOptions o = th_simOptions(2.0, 1e-9, 1e-12, 1.0);
  o.linsol = CS_LINSOL_BAND;
  csData* band = th_run(m, &o, NULL);
  assert_int_equal(band->stat.linsol, CS_LINSOL_BAND);
  assert_int_equal(band->stat.ngroup, 1);
  assert_true(band->stat.bandwidth <= 5);
  o.linsol = CS_LINSOL_DENSE;
  csData* dense = th_run(m, &o, NULL);
  assert_int_equal(dense->stat.linsol, CS_LINSOL_DENSE);
  o.linsol = CS_LINSOL_AUTO;
  csData* split = th_run(m, &o, NULL);
  assert_int_equal(split->stat.ngroup, n);
  csData* runs[3] = {band, dense, split};
  const char* names[3] = {"banded solution", "dense solution", "per-group solution"};
  for (int i = 0; i < n; i++) {
    double k = 10.0 + i, mass = 1.0 + 0.01 * i, c = 0.1;
    double w0 = sqrt(k / mass), zeta = c / (2 * sqrt(k * mass)), wd = w0 * sqrt(1 - zeta * zeta);
    double t = 2.0;
    double x = 0.1 * exp(-zeta * w0 * t) * (cos(wd * t) + zeta * w0 / wd * sin(wd * t));
    for (int r = 0; r < 3; r++) {
      th_assertClose(runs[r]->q[i], x, 0, 1e-6, names[r]);
    }
  }
  // the banded Jacobian needs a handful of RHS evaluations, the dense one one per state
  assert_true(band->stat.nrhs_jac < dense->stat.nrhs_jac / 10);
  for (int r = 0; r < 3; r++) {
    cs_deleteData(runs[r]);
  }
  cs_deleteModel(m);
}


// independent groups take their own steps: a stiff slider next to a slow one does not make the
// slow one take small steps, so two copies of the pair cost twice one pair, not more
static void test_groups_step_independently(void** state) {
  (void)state;
  csError err = {0};
  long steps[2];
  for (int copies = 1; copies <= 2; copies++) {
    csModel* m = cs_newModel("pairs");
    m->gravity = csu_vec3(0, 0, 0);
    for (int i = 0; i < 2 * copies; i++) {
      int id = addCart(m, i, 1.0);
      int s = th_addForce(m, CS_FORCE_MOBILITY_SPRING, "spring");
      th_setParam(m, s, "body", id);
      // alternately slow and fast, each copy with a slightly different phase
      th_setParam(m, s, "stiffness", (i % 2 ? 1e4 : 1.0) * (1 + 0.1 * i));
    }
    assert_int_equal(cs_finalizeModel(m, &err), 0);
    for (int i = 0; i < 2 * copies; i++) {
      m->q0[i] = 0.1;
    }
    csSimOptions o = cs_defaultSimOptions();
    o.duration = 1.0;
    csData* d = th_run(m, &o, NULL);
    assert_int_equal(d->stat.ngroup, 2 * copies);
    steps[copies - 1] = d->stat.nsteps;
    cs_deleteData(d);
    cs_deleteModel(m);
  }
  // two pairs: about twice the steps of one pair (the fast sliders dominate)
  assert_true(steps[1] < 2.3 * steps[0]);
  assert_true(steps[1] > 1.7 * steps[0]);
}


// with too small a step budget the run stops, saying when and why
static void test_too_much_work(void** state) {
  (void)state;
  csModel* m = sliders(1);
  csSimOptions o = cs_defaultSimOptions();
  o.duration = 10;
  o.report_interval = 5;
  o.max_steps = 20;
  o.rtol = 1e-10;
  csData* d = cs_makeData(m);
  csError err = {0};
  assert_int_equal(cs_simulate(m, d, &o, NULL, &err), CS_ERR_SOLVER);
  assert_non_null(strstr(err.message, "too much work"));
  assert_true(err.time > 0 && err.time < 5);
  cs_deleteData(d);
  cs_deleteModel(m);
}


// ---------------------------------------------------------------------------------------------
// the state after a failure

// every step's end (the step hook) and every report, as the run saw them
typedef struct Seen {
  const csModel* m;
  double step_t, report_t;
  double step_q[8], step_u[8], step_z[8], step_disc[16];
  double report_q[8], report_u[8], report_z[8], report_disc[16];
} Seen;

static void keep(const csModel* m, const csData* d, double* q, double* u, double* z,
                 double* disc) {
  assert_true(m->nq <= 8 && m->nu <= 8 && m->nz <= 8 && m->ndisc <= 16);
  memcpy(q, d->q, sizeof(double) * (size_t)m->nq);
  memcpy(u, d->u, sizeof(double) * (size_t)m->nu);
  memcpy(z, d->z, sizeof(double) * (size_t)m->nz);
  memcpy(disc, d->disc, sizeof(double) * (size_t)m->ndisc);
}

static void seeStep(void* ctx, const csModel* m, csData* d) {
  Seen* s = ctx;
  s->step_t = d->t;
  keep(m, d, s->step_q, s->step_u, s->step_z, s->step_disc);
}

static int seeReport(void* ctx, const csModel* m, csData* d) {
  Seen* s = ctx;
  s->report_t = d->t;
  keep(m, d, s->report_q, s->report_u, s->report_z, s->report_disc);
  return 0;
}

// the data holds exactly the state kept (the same bits)
static void assertHolds(const csModel* m, const csData* d, double t, const double* q,
                        const double* u, const double* z, const double* disc, const char* what) {
  if (!(d->t == t) || memcmp(d->q, q, sizeof(double) * (size_t)m->nq) != 0 ||
      memcmp(d->u, u, sizeof(double) * (size_t)m->nu) != 0 ||
      memcmp(d->z, z, sizeof(double) * (size_t)m->nz) != 0 ||
      memcmp(d->disc, disc, sizeof(double) * (size_t)m->ndisc) != 0) {
    fail_msg("%s: the data at t = %.17g (q0 %.17g, u0 %.17g) is not the state kept at t = %.17g "
             "(q0 %.17g, u0 %.17g)", what, d->t, d->q[0], d->u[0], t, q[0], u[0]);
  }
}


static int discIndex(int kind, const char* name);

// n sliders as sliders(n), the first pushed by a constant force along its axis that a
// scheduled change makes infinite at t_bad (its forces are then never finite again)
static csModel* pushedSliders(int n, double t_bad) {
  csModel* m = sliderModel("pushed", n);
  csError err = {0};
  int push = th_addForce(m, CS_FORCE_CONSTANT, "push");
  th_setParam(m, push, "body", 1);
  csChange c = {.time = t_bad, .force = push, .index = discIndex(CS_FORCE_CONSTANT, "force_x"),
                .value = INFINITY};
  assert_true(cs_addChange(m, &c, &err) >= 0);
  return slidersReady(m);
}


// After a failed step the data holds the last accepted state, not the failed try (the last
// force evaluation): with one group its last step's end, bit for bit as the step hook saw it
// (and its time the run's), with several the last report, where they last stood together.
// Failures: forces that stop being finite at t = 0.37 s (a scheduled change), and a step budget
// run out mid-interval (the step that would exceed it is not taken: the hook saw the last one).
static void test_state_after_a_failure(void** state) {
  (void)state;
  const char* names[] = CS_INTEGRATOR_NAMES;
  for (int k = 0; k < CS_INTEGRATOR_COUNT; k++) {
    for (int groups = 1; groups <= 2; groups++) {
      for (int budget = 0; budget < 2; budget++) {
        csModel* m = pushedSliders(groups, budget ? 100 : 0.37);
        csSimOptions o = cs_defaultSimOptions();
        o.integrator = (csIntegratorType)k;
        o.duration = 1;
        o.report_interval = 0.1;
        if (budget) {
          o.max_steps = 5;
          o.rtol = 1e-10;
          o.atol = 1e-12;
        }
        Seen seen = {.m = m, .step_t = NAN, .report_t = NAN};
        csReporter rep = {.report = seeReport, .step = seeStep, .ctx = &seen};
        csData* d = cs_makeData(m);
        csError err = {0};
        assert_int_equal(cs_simulate(m, d, &o, &rep, &err), CS_ERR_SOLVER);
        print_message("%s, %d group%s, %s: failed at t = %.9g s (data at %.9g s, last step at "
                      "%.9g s, last report at %.9g s): %.80s...\n",
                      names[k], groups, groups > 1 ? "s" : "",
                      budget ? "max_steps" : "forces not finite", err.time, d->t, seen.step_t,
                      seen.report_t, err.message);
        assert_true(isfinite(d->u[0]));
        if (groups == 1) {
          if (!budget) {
            // the step hook saw the step that ended at the change, which holds from then on
            int push = cs_forceId(m, "push"), adr = -1;
            cs_modelForceState(m, push, CS_STATE_DISCRETE, &adr, NULL);
            int fx = adr + cs_modelDiscreteIndex(m, push, "force_x");
            assert_true(d->t == 0.37 && isinf(d->disc[fx]));
            seen.step_disc[fx] = INFINITY;
          }
          assertHolds(m, d, seen.step_t, seen.step_q, seen.step_u, seen.step_z, seen.step_disc,
                      names[k]);
          assert_true(d->t == err.time);
        } else {
          assertHolds(m, d, seen.report_t, seen.report_q, seen.report_u, seen.report_z,
                      seen.report_disc, names[k]);
          assert_true(d->t < err.time);
        }
        cs_deleteData(d);
        cs_deleteModel(m);
      }
    }
  }
}


// A step budget that runs out never leaves a report time the integration reached unreported:
// the run fails before the step that would exceed the budget, short of the next report (a step
// over it that passed the report was accepted, and the run failed there without the row, the
// state and a checkpoint past it). Steps of at most 0.01 s, reports every 0.1 s: budgets from 11
// to 24 steps (9 and 10 are refused before the run), every integrator.
static void test_budget_never_skips_a_report(void** state) {
  (void)state;
  const char* names[] = CS_INTEGRATOR_NAMES;
  int failures = 0;
  for (int k = 0; k < CS_INTEGRATOR_COUNT; k++) {
    for (long budget = 9; budget <= 24; budget++) {
      csModel* m = sliders(1);
      csSimOptions o = cs_defaultSimOptions();
      o.integrator = (csIntegratorType)k;
      o.duration = 0.5;
      o.report_interval = 0.1;
      o.max_step = 0.01;
      o.max_steps = budget;
      Seen seen = {.m = m, .step_t = NAN, .report_t = NAN};
      csReporter rep = {.report = seeReport, .step = seeStep, .ctx = &seen};
      csData* d = cs_makeData(m);
      csError err = {0};
      int status = cs_simulate(m, d, &o, &rep, &err);
      if (status == CS_ERR_INPUT) {
        // up to 10 steps to the first report: refused before the run (max_step's rule)
        assert_true(budget <= 10);
      } else if (status != CS_OK) {
        failures++;
        assert_int_equal(status, CS_ERR_SOLVER);
        if (!(err.time < seen.report_t + o.report_interval - 1e-12) || d->t != err.time ||
            seen.step_t != err.time) {
          fail_msg("%s, max_steps %ld: failed at t = %.17g, last report %.17g, last step %.17g, "
                   "data at %.17g", names[k], budget, err.time, seen.report_t, seen.step_t, d->t);
        }
      }
      cs_deleteData(d);
      cs_deleteModel(m);
    }
  }
  print_message("%d of %d runs failed\n", failures, CS_INTEGRATOR_COUNT * 16);
  assert_true(failures >= CS_INTEGRATOR_COUNT);  // the small budgets run out
}


// A run that only needs more than max_steps steps says so, with the option that raises it,
// wherever its time is counted from: from t = 1e6 s its steps of about 1e-4 s were called a
// collapse ("the forces probably jump"), being below 1e-9 of the time
static void test_step_budget_far_from_zero(void** state) {
  (void)state;
  const char* names[] = CS_INTEGRATOR_NAMES;
  csModel* m = sliders(1);
  for (int k = 0; k < CS_INTEGRATOR_COUNT; k++) {
    for (int far = 0; far < 2; far++) {
      csSimOptions o = cs_defaultSimOptions();
      o.integrator = (csIntegratorType)k;
      o.duration = 10;
      o.report_interval = 5;
      o.max_steps = 20;
      o.rtol = 1e-9;
      o.atol = 1e-12;
      csData* d = cs_makeData(m);
      d->t = far ? 1e6 : 0;
      for (int e = 0; e < cs_modelCount(m, CS_COUNT_FORCE); e++) {
        d->commit_t[e] = d->t;
      }
      csError err = {0};
      assert_int_equal(cs_simulate(m, d, &o, NULL, &err), CS_ERR_SOLVER);
      if (!strstr(err.message, "too much work: more than 20 steps since the last report") ||
          !strstr(err.message, "raise max_steps") || !strstr(err.message, "--max-steps") ||
          strstr(err.message, "collapsed")) {
        fail_msg("%s from t = %g: %s", names[k], d->t, err.message);
      }
      print_message("%s from t = %g: %s\n", names[k], far ? 1e6 : 0.0, err.message);
      cs_deleteData(d);
    }
  }
  cs_deleteModel(m);
}


// unusable options are refused before anything runs
static void test_bad_options(void** state) {
  (void)state;
  csModel* m = sliders(1);
  csData* d = cs_makeData(m);
  csSimOptions base = cs_defaultSimOptions();
  double* fields[] = {&base.duration, &base.rtol, &base.atol, &base.report_interval};
  for (int i = 0; i < 4; i++) {
    csSimOptions o = base;
    double* field = (double*)((char*)&o + ((char*)fields[i] - (char*)&base));
    *field = -1;
    csError err = {0};
    assert_int_equal(cs_simulate(m, d, &o, NULL, &err), CS_ERR_INPUT);
    assert_string_equal(err.path, "simulation");
  }
  cs_deleteData(d);
  cs_deleteModel(m);
}


// Adams with fixed-point iteration solves the same non-stiff problem
static void test_adams(void** state) {
  (void)state;
  csModel* m = sliders(1);
  csSimOptions o = cs_defaultSimOptions();
  o.integrator = CS_INTEGRATOR_ADAMS;
  o.duration = 3.0;
  o.rtol = 1e-10;
  o.atol = 1e-12;
  csData* d = th_run(m, &o, NULL);
  double k = 10, mass = 1, c = 0.1;
  double w0 = sqrt(k / mass), zeta = c / (2 * sqrt(k * mass)), wd = w0 * sqrt(1 - zeta * zeta);
  double x = 0.1 * exp(-zeta * w0 * 3) * (cos(wd * 3) + zeta * w0 / wd * sin(wd * 3));
  th_assertClose(d->q[0], x, 0, 1e-7, "Adams solution");
  assert_int_equal(d->stat.njac, 0);
  cs_deleteData(d);
  cs_deleteModel(m);
}


// a scheduled change in one of several independent groups re-initialises that group alone and
// leaves the others' trajectories exactly as they are without the change
static csModel* stopSliders(int with_change) {
  csModel* m = cs_newModel("stops");
  m->gravity = csu_vec3(0, 0, 0);
  csError err = {0};
  int stop0 = -1;
  for (int i = 0; i < 3; i++) {
    int id = addCart(m, i, 1.0);
    int s = th_addForce(m, CS_FORCE_LINEAR_STOP, "stop");
    th_setParam(m, s, "body", id);
    th_setParam(m, s, "lower_bound", -0.05);
    th_setParam(m, s, "upper_bound", 0.05);
    th_setParam(m, s, "stiffness", 1e4);
    th_setParam(m, s, "dissipation", 0.0);
    if (i == 0) {
      stop0 = s;
    }
  }
  if (with_change) {
    // widen cart 0's upper stop at t = 0.35
    const csForceKind* k = cs_forceKind(CS_FORCE_LINEAR_STOP);
    int index = -1;
    for (int i = 0; i < k->discnum; i++) {
      if (strcmp(k->discnames[i], "upper_bound") == 0) {
        index = i;
      }
    }
    assert_true(index >= 0);
    csChange c = {.time = 0.35, .force = stop0, .index = index, .value = 10.0};
    assert_true(cs_addChange(m, &c, &err) >= 0);
  }
  assert_int_equal(cs_finalizeModel(m, &err), 0);
  for (int i = 0; i < 3; i++) {
    m->u0[i] = 0.3 + 0.1 * i;  // each cart bounces between its stops
  }
  return m;
}


static void test_change_in_one_group(void** state) {
  (void)state;
  csSimOptions o = th_simOptions(2.0, 1e-9, 1e-12, 0.05);
  thTrace plain = {0}, changed = {0};
  csModel* m0 = stopSliders(0);
  csModel* m1 = stopSliders(1);
  csData* d0 = th_run(m0, &o, &plain);
  csData* d1 = th_run(m1, &o, &changed);
  assert_int_equal(d1->stat.ngroup, 3);
  assert_int_equal(plain.n, changed.n);
  int moved_past = 0;
  for (int r = 0; r < plain.n; r++) {
    // carts 1 and 2 are untouched by the change, to the last bit
    assert_true(plain.q[3 * r + 1] == changed.q[3 * r + 1]);
    assert_true(plain.q[3 * r + 2] == changed.q[3 * r + 2]);
    // cart 0 never leaves its stops without the change, and passes the old stop with it
    assert_true(plain.q[3 * r] < 0.06);
    moved_past |= changed.t[r] > 0.35 && changed.q[3 * r] > 0.1;
    if (changed.t[r] <= 0.35) {
      // the same up to the change (the step that ends exactly at it is shortened)
      th_assertClose(changed.q[3 * r], plain.q[3 * r], 0, 1e-9, "cart 0 before the change");
    }
  }
  assert_true(moved_past);
  th_traceFree(&plain);
  th_traceFree(&changed);
  cs_deleteData(d0);
  cs_deleteData(d1);
  cs_deleteModel(m0);
  cs_deleteModel(m1);
}


// discrete variable index of a kind by name
static int discIndex(int kind, const char* name) {
  const csForceKind* k = cs_forceKind(kind);
  for (int i = 0; i < k->discnum; i++) {
    if (strcmp(k->discnames[i], name) == 0) {
      return i;
    }
  }
  fail();
  return -1;
}


// one cart between stops at +-0.05 m, given changes to its upper bound
static csModel* oneStopCart(const csChange* changes, int nchange) {
  csModel* m = cs_newModel("stop");
  m->gravity = csu_vec3(0, 0, 0);
  int id = addCart(m, 0, 1.0);
  int s = th_addForce(m, CS_FORCE_LINEAR_STOP, "stop");
  th_setParam(m, s, "body", id);
  th_setParam(m, s, "lower_bound", -0.05);
  th_setParam(m, s, "upper_bound", 0.05);
  th_setParam(m, s, "stiffness", 1e4);
  csError err = {0};
  for (int i = 0; i < nchange; i++) {
    csChange c = changes[i];
    c.force = s;
    assert_true(cs_addChange(m, &c, &err) >= 0);
  }
  th_finalize(m);
  m->u0[0] = 0.3;
  return m;
}


// changes a rounding step apart (times built as k * dt) are applied together, not refused
static void test_changes_a_rounding_step_apart(void** state) {
  (void)state;
  int upper = discIndex(CS_FORCE_LINEAR_STOP, "upper_bound");
  csChange changes[2] = {{.time = 0.3, .index = upper, .value = 0.2},
                         {.time = 0.1 * 3, .index = upper, .value = 10.0}};
  assert_true(changes[0].time != changes[1].time);
  csModel* m = oneStopCart(changes, 2);
  csSimOptions o = th_simOptions(1.0, 1e-8, 1e-10, 0.1);
  csData* d = th_run(m, &o, NULL);
  // both applied (the later one last): the cart has left the old stops behind
  assert_true(d->disc[m->force[0].discadr + upper] == 10.0);
  assert_true(d->q[0] > 0.06);
  assert_int_equal(d->stat.ncommit, d->stat.nsteps);
  cs_deleteData(d);
  cs_deleteModel(m);
}


// a change scheduled at the start holds in the first report already
static void test_change_at_start(void** state) {
  (void)state;
  int upper = discIndex(CS_FORCE_LINEAR_STOP, "upper_bound");
  csChange change = {.time = 0.0, .index = upper, .value = 10.0};
  csModel* m = oneStopCart(&change, 1);
  csSimOptions o = th_simOptions(0.5, 1e-8, 1e-10, 0.1);
  csData* d = cs_makeData(m);
  assert_true(d->disc[m->force[0].discadr + upper] == 0.05);
  csError err = {0};
  assert_int_equal(cs_simulate(m, d, &o, NULL, &err), CS_OK);
  // free flight at 0.3 m/s: never stopped
  th_assertClose(d->q[0], 0.15, 1e-7, 0, "free flight after the change at t = 0");
  cs_deleteData(d);
  cs_deleteModel(m);
}


// carts tied by springs to a base welded to ground stay independent groups; the base is fixed
static void test_welded_base_does_not_couple(void** state) {
  (void)state;
  csModel* m = cs_newModel("base");
  m->gravity = csu_vec3(0, 0, -9.81);
  int base = th_addBody(m, "base", 0, CS_JOINT_WELD,
                        csu_transformFromPosQuat(csu_vec3(0, 0, 1), csu_quatIdentity()),
                        csu_transformIdentity(), 5.0, csu_vec3(0, 0, 0), csu_identity33());
  for (int i = 0; i < 3; i++) {
    int cart = addCart(m, i, 1.0);
    int s = th_addForce(m, CS_FORCE_SPRING, "spring");
    th_setParam(m, s, "body1", base);
    th_setParam(m, s, "body2", cart);
    th_setParam(m, s, "stiffness", 10.0 * (i + 1));
    th_setParam(m, s, "rest_length", 1.0);
  }
  th_finalize(m);
  for (int i = 0; i < 3; i++) {
    m->q0[i] = 0.1 * (i + 1);
  }
  csSimOptions o = th_simOptions(1.0, 1e-9, 1e-12, 0.25);
  thTrace tr = {0};
  csData* d = th_run(m, &o, &tr);
  assert_int_equal(d->stat.ngroup, 3);
  // and the answer is the whole-system one
  o.linsol = CS_LINSOL_DENSE;
  thTrace whole = {0};
  csData* dw = th_run(m, &o, &whole);
  assert_int_equal(dw->stat.ngroup, 1);
  for (int r = 0; r < tr.n; r++) {
    for (int i = 0; i < 3; i++) {
      th_assertClose(tr.q[3 * r + i], whole.q[3 * r + i], 0, 1e-7, "grouped vs whole");
      th_assertClose(tr.pe[r], whole.pe[r], 1e-9, 1e-9, "potential energy");
    }
  }
  th_traceFree(&tr);
  th_traceFree(&whole);
  cs_deleteData(d);
  cs_deleteData(dw);
  cs_deleteModel(m);
}


// a second run from where the first ended reports its own statistics
static void test_statistics_per_call(void** state) {
  (void)state;
  csModel* m = sliders(2);
  csSimOptions o = th_simOptions(0.5, 1e-8, 1e-10, 0.1);
  csData* d = cs_makeData(m);
  csError err = {0};
  assert_int_equal(cs_simulate(m, d, &o, NULL, &err), CS_OK);
  long first = d->stat.nsteps;
  assert_int_equal(cs_simulate(m, d, &o, NULL, &err), CS_OK);
  th_assertClose(d->t, 1.0, 1e-15, 0, "continued to 1 s");
  assert_int_equal(d->stat.ncommit, d->stat.nsteps);
  assert_true(d->stat.nsteps > 0 && d->stat.nsteps < 2 * first);
  assert_int_equal(d->stat.nreport, 6);
  cs_deleteData(d);
  cs_deleteModel(m);
}


// a chain of n ball joints (pendulum links 0.1 m apart, 1 kg spheres), swinging under gravity;
// box 1 or 2: a free box (a group of its own) listed before or after the chain
static csModel* ballChain(int n, int box) {
  static const char boxJson[] = "{\"name\": \"box\", \"mass\": 1, \"inertia\": {\"box\": "
                                "[0.1, 0.1, 0.1]}, \"joint\": {\"type\": \"free\"}}";
  size_t cap = 512 + 220 * (size_t)n;
  char* json = malloc(cap);
  assert_non_null(json);
  size_t len = (size_t)snprintf(json, cap, "{\"bodies\": [%s", box == 1 ? boxJson : "");
  for (int i = 0; i < n; i++) {
    char parent[16];
    snprintf(parent, sizeof(parent), i ? "b%d" : "ground", i - 1);
    len += (size_t)snprintf(json + len, cap - len,
                            "%s{\"name\": \"b%d\", \"mass\": 1, \"inertia\": {\"sphere\": 0.05},"
                            " \"joint\": {\"type\": \"ball\", \"parent\": \"%s\","
                            " \"parent_frame\": {\"position\": [0.1, 0, 0]}, \"u\": [0.3, 0, 0]}}",
                            i || box == 1 ? ", " : "", i, parent);
  }
  snprintf(json + len, cap - len, "%s%s]}", box == 2 ? ", " : "", box == 2 ? boxJson : "");
  csModel* m = th_loadString(json);
  free(json);
  return m;
}


// The automatic linear solver: a group of more than 100 states that is not a chain of pins and
// sliders is solved with GMRES rather than a dense Jacobian of one right-hand side per state
// and an O(n^3) LU. On a 40-link chain of ball joints (280 states, swinging from horizontal)
// the run conserves KE + PE as the dense one does, follows the same trajectory, and spends far
// fewer right-hand sides on Jacobian products than the dense solver on its columns; a 10-link
// chain (70 states) stays dense.
static void test_auto_solver_for_large_groups(void** state) {
  (void)state;
  csModel* big = ballChain(40, 0);
  csSimOptions o = th_simOptions(0.5, 1e-8, 1e-10, 0.05);
  thTrace tr = {0};
  csData* gm = th_run(big, &o, &tr);
  assert_int_equal(gm->stat.linsol, CS_LINSOL_GMRES);
  double e0 = tr.ke[0] + tr.pe[0], scale = fabs(tr.pe[0]) + tr.ke[tr.n - 1];
  for (int i = 0; i < tr.n; i++) {
    th_assertClose(tr.ke[i] + tr.pe[i], e0, 0, 1e-6 * scale, "KE + PE with GMRES");
  }
  o.linsol = CS_LINSOL_DENSE;
  csData* dn = th_run(big, &o, NULL);
  double worst = 0;
  for (int b = 1; b < big->nbody; b++) {
    worst = fmax(worst, csu_norm(csu_sub(gm->body_pose[b].p, dn->body_pose[b].p)));
  }
  print_message("40 ball links: GMRES %ld steps (+%ld RHS on Jacobian products), dense %ld "
                "steps (+%ld RHS on Jacobians); largest distance between their final positions "
                "%.3g m\n",
                gm->stat.nsteps, gm->stat.nrhs_jac, dn->stat.nsteps, dn->stat.nrhs_jac, worst);
  assert_true(worst < 1e-5);
  // the Krylov iterations' products cost a fraction of the dense Jacobians' columns
  assert_true(gm->stat.nrhs_jac < dn->stat.nrhs_jac / 3);
  th_traceFree(&tr);
  cs_deleteData(gm);
  cs_deleteData(dn);
  cs_deleteModel(big);
  csModel* small = ballChain(10, 0);
  o.linsol = CS_LINSOL_AUTO;
  csData* d = th_run(small, &o, NULL);
  assert_int_equal(d->stat.linsol, CS_LINSOL_DENSE);
  cs_deleteData(d);
  cs_deleteModel(small);
  // a box beside the long chain, before or after it: the statistics name the largest group's
  // solver either way
  o.duration = 0.05;
  for (int box = 1; box <= 2; box++) {
    csModel* mixed = ballChain(40, box);
    d = th_run(mixed, &o, NULL);
    assert_int_equal(d->stat.ngroup, 2);
    assert_int_equal(d->stat.linsol, CS_LINSOL_GMRES);
    cs_deleteData(d);
    cs_deleteModel(mixed);
  }
}


// the integrator's dense LU (cs_luFactor, cs_luSolve) on random matrices of every size from 1
// to 17 (odd and even: the solves work two columns at a time) that need row exchanges: the
// residual of the solution is at round-off, and the solution is that of textbook Gaussian
// elimination with partial pivoting, bit for bit (the same operations in the same order)
static void test_dense_lu(void** state) {
  (void)state;
  srand(7);
  for (int n = 1; n <= 17; n++) {
    double a[17 * 17], lu[17 * 17], g[17 * 17], b[17], x[17], y[17];
    sunindextype piv[17];
    for (int i = 0; i < n * n; i++) {
      a[i] = (double)rand() / RAND_MAX - 0.5;  // by columns; small pivots on the diagonal
    }
    for (int i = 0; i < n; i++) {
      a[i * n + i] *= 1e-3;
      b[i] = (double)rand() / RAND_MAX - 0.5;
    }
    memcpy(lu, a, sizeof(double) * (size_t)(n * n));
    memcpy(x, b, sizeof(double) * (size_t)n);
    assert_int_equal(cs_luFactor(lu, n, piv, NULL, NULL), 0);
    cs_luSolve(lu, n, piv, x);
    // the residual A x - b
    double worst = 0, scale = 0;
    for (int i = 0; i < n; i++) {
      double r = -b[i];
      for (int j = 0; j < n; j++) {
        r += a[j * n + i] * x[j];
        scale = fmax(scale, fabs(a[j * n + i] * x[j]));
      }
      worst = fmax(worst, fabs(r));
    }
    assert_true(worst <= 1e-13 * scale);
    // Gaussian elimination on [A | b], row exchanges on whole rows, then back substitution
    memcpy(g, a, sizeof(double) * (size_t)(n * n));
    memcpy(y, b, sizeof(double) * (size_t)n);
    for (int k = 0; k < n; k++) {
      int p = k;
      for (int i = k + 1; i < n; i++) {
        p = fabs(g[k * n + i]) > fabs(g[k * n + p]) ? i : p;
      }
      for (int j = 0; j < n; j++) {
        double t = g[j * n + k];
        g[j * n + k] = g[j * n + p];
        g[j * n + p] = t;
      }
      double t = y[k];
      y[k] = y[p];
      y[p] = t;
      double inv = 1.0 / g[k * n + k];
      for (int i = k + 1; i < n; i++) {
        double l = g[k * n + i] * inv;
        for (int j = k + 1; j < n; j++) {
          g[j * n + i] -= l * g[j * n + k];
        }
        y[i] -= l * y[k];
      }
    }
    for (int k = n - 1; k >= 0; k--) {
      y[k] /= g[k * n + k];
      for (int i = 0; i < k; i++) {
        y[i] -= g[k * n + i] * y[k];
      }
    }
    for (int i = 0; i < n; i++) {
      assert_true(x[i] == y[i]);
    }
  }
}


int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_report_times_exact),
      cmocka_unit_test(test_solvers_agree),
      cmocka_unit_test(test_auto_solver_for_large_groups),
      cmocka_unit_test(test_groups_step_independently),
      cmocka_unit_test(test_too_much_work),
      cmocka_unit_test(test_state_after_a_failure),
      cmocka_unit_test(test_budget_never_skips_a_report),
      cmocka_unit_test(test_step_budget_far_from_zero),
      cmocka_unit_test(test_bad_options),
      cmocka_unit_test(test_adams),
      cmocka_unit_test(test_change_in_one_group),
      cmocka_unit_test(test_changes_a_rounding_step_apart),
      cmocka_unit_test(test_change_at_start),
      cmocka_unit_test(test_welded_base_does_not_couple),
      cmocka_unit_test(test_statistics_per_call),
      cmocka_unit_test(test_dense_lu),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
