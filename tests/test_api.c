// test_api.c: the simulation API of contactsim/simulation.h: stepping and advancing against
// analytic motion, discrete variables changed between steps against the sliding law, checkpoints
// (exact round trip, continuation to the integration tolerance, refusals), statistics, and that
// advancing allocates nothing.
#include "helpers.h"

#include "contactsim/simulation.h"

#include <float.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define PATH_MAX_TEST 512

// a scratch file in the temporary directory, named for the test and the process
static void scratch(char* out, const char* name) {
  const char* dir = getenv("TMPDIR");
  snprintf(out, PATH_MAX_TEST, "%s/test_api_%ld_%s", dir && dir[0] ? dir : "/tmp", (long)getpid(),
           name);
}


static void writeText(const char* path, const char* text) {
  FILE* f = fopen(path, "w");
  assert_non_null(f);
  fputs(text, f);
  assert_int_equal(fclose(f), 0);
}


static char* readText(const char* relpath) {
  char path[PATH_MAX_TEST];
  snprintf(path, sizeof(path), "%s/%s", CS_SOURCE_ROOT, relpath);
  return th_readFile(path, NULL);
}


static csSimulation* newSim(const csModel* m) {
  csError err;
  csSimulation* s = cs_newSimulation(m, NULL, &err);
  if (!s) {
    fail_msg("cs_newSimulation: %s", err.message);
  }
  return s;
}


// ---------------------------------------------------------------------------------------------
// version

static void test_version(void** state) {
  (void)state;
  char v[32];
  snprintf(v, sizeof(v), "%d.%d.%d", CS_VERSION_MAJOR, CS_VERSION_MINOR, CS_VERSION_PATCH);
  assert_string_equal(v, CS_VERSION_STRING);
  assert_string_equal(cs_versionString(), CS_VERSION_STRING);
  assert_int_equal(cs_version(),
                   CS_VERSION_MAJOR * 10000 + CS_VERSION_MINOR * 100 + CS_VERSION_PATCH);
}


// ---------------------------------------------------------------------------------------------
// the model through functions

static void test_model_queries(void** state) {
  (void)state;
  csModel* m = th_loadFile("scenes/exp_spring_incline.json");
  assert_string_equal(cs_modelName(m), "exp_spring_incline");
  assert_int_equal(cs_modelCount(m, CS_COUNT_BODY), 2);
  assert_int_equal(cs_modelCount(m, CS_COUNT_Q), 7);
  assert_int_equal(cs_modelCount(m, CS_COUNT_U), 6);
  assert_int_equal(cs_modelCount(m, CS_COUNT_CONTACT_SET), 1);
  // the scene's one change names the contact set: one change per corner
  assert_int_equal(cs_modelCount(m, CS_COUNT_CHANGE), 4);
  assert_string_equal(cs_modelBodyName(m, 1), "block");
  assert_null(cs_modelBodyName(m, 2));
  assert_string_equal(cs_modelContactSetName(m, 0), "block");
  // four exponential springs, one per corner, each with two discrete and three auto variables
  int corners = 0;
  for (int e = 0; e < cs_modelCount(m, CS_COUNT_FORCE); e++) {
    if (cs_modelForceIsContact(m, e) == 1) {
      corners++;
      assert_string_equal(cs_modelForceKind(m, e), "exponential_spring");
      assert_int_equal(cs_modelForceContactSet(m, e), 0);
      int adr, num;
      assert_int_equal(cs_modelForceState(m, e, CS_STATE_AUTO, &adr, &num), 0);
      assert_int_equal(num, 3);
      assert_int_equal(cs_modelForceState(m, e, CS_STATE_DISCRETE, &adr, &num), 0);
      assert_int_equal(num, 2);
      assert_string_equal(cs_modelDiscreteName(m, e, 0), "mu_static");
      assert_string_equal(cs_modelAutoName(m, e, 2), "sliding");
      assert_null(cs_modelAutoName(m, e, 3));
      assert_int_equal(cs_modelDiscreteIndex(m, e, "mu_dynamic"), 1);
      assert_int_equal(cs_modelDiscreteIndex(m, e, "mu"), -1);
      int nv = cs_modelContactValueCount(m, e);
      int sliding = -1;
      for (int i = 0; i < nv; i++) {
        sliding = strcmp(cs_modelContactValueName(m, e, i), "sliding") == 0 ? i : sliding;
      }
      assert_true(sliding >= 0);
    }
  }
  assert_int_equal(corners, 4);
  int qadr, qnum, uadr, unum;
  assert_int_equal(cs_modelBodyState(m, 1, &qadr, &qnum, &uadr, &unum), 0);
  assert_int_equal(qnum, 7);
  assert_int_equal(unum, 6);
  assert_int_equal(cs_modelBodyState(m, 5, NULL, NULL, NULL, NULL), -1);
  assert_true(cs_modelBodyMass(m, 1) == 10.0);
  cs_deleteModel(m);
}


// ---------------------------------------------------------------------------------------------
// free flight: the centre of mass on its parabola, whatever way the time is advanced

// the box of scenes/free_fall.json: thrown from (0, 0, 10) at (1, 0, 5) m/s; integrated with
// rtol 1e-8 on heights near 10 m, so within 1e-6 m
static void checkParabola(csSimulation* s, const csModel* m, double tol) {
  double g[3], com[3];
  cs_modelGravity(m, g);
  double t = cs_simTime(s);
  cs_simBodyCom(s, 1, com);
  th_assertClose(com[0], 1.0 * t, 0, tol, "x of the centre of mass");
  th_assertClose(com[1], 0, 0, tol, "y of the centre of mass");
  th_assertClose(com[2], 10 + 5 * t + 0.5 * g[2] * t * t, 0, tol, "z of the centre of mass");
}


static void test_advance_and_step_follow_parabola(void** state) {
  (void)state;
  csModel* m = th_loadFile("scenes/free_fall.json");
  csSimulation* s = newSim(m);
  csError err;
  double ke0, pe0, diss0;
  cs_simEnergy(s, &ke0, &pe0, &diss0);
  // to fixed times: exactly there
  for (int k = 1; k <= 10; k++) {
    assert_int_equal(cs_simAdvanceTo(s, 0.05 * k, &err), CS_OK);
    assert_true(cs_simTime(s) == 0.05 * k);
    checkParabola(s, m, 1e-6);
  }
  // one step at a time: every step ends later than the last
  double tprev = cs_simTime(s);
  int nsteps = 0;
  while (cs_simTime(s) < 1.0) {
    assert_int_equal(cs_simStep(s, &err), CS_OK);
    assert_true(cs_simTime(s) > tprev);
    tprev = cs_simTime(s);
    checkParabola(s, m, 1e-6);
    nsteps++;
  }
  assert_true(nsteps > 5);
  // the right-hand side: a free body's translational u' is gravity, its q' the velocity
  double ud[6], qd[7], u[6], g[3];
  cs_modelGravity(m, g);
  assert_int_equal(cs_simStateDerivative(s, CS_STATE_U, ud, 6), 6);
  assert_int_equal(cs_simStateDerivative(s, CS_STATE_Q, qd, 7), 7);
  cs_simGetState(s, CS_STATE_U, u, 6);
  for (int i = 0; i < 3; i++) {
    th_assertClose(ud[3 + i], g[i], 0, 1e-12, "free body's u' is gravity");
    th_assertClose(qd[4 + i], u[3 + i], 0, 1e-12, "free body's position rate is its velocity");
  }
  assert_int_equal(cs_simStateDerivative(s, CS_STATE_AUTO, ud, 6), -1);
  // no force but gravity: KE + PE constant
  double ke, pe, diss;
  cs_simEnergy(s, &ke, &pe, &diss);
  th_assertClose(ke + pe + diss, ke0 + pe0 + diss0, 1e-8, 0, "KE + PE in free flight");
  // going back in time is refused
  assert_int_equal(cs_simAdvanceTo(s, 0.5, &err), CS_ERR_INPUT);
  assert_int_equal(cs_simAdvanceTo(s, NAN, &err), CS_ERR_INPUT);
  // so is an advance too short for any step (from t = 0, 1e-200 s is a number apart)
  csSimulation* fresh = cs_newSimulation(m, NULL, &err);
  assert_non_null(fresh);
  assert_int_equal(cs_simAdvanceTo(fresh, 1e-200, &err), CS_ERR_INPUT);
  assert_non_null(strstr(err.message, "too short"));
  assert_int_equal(cs_simAdvanceTo(fresh, 1e-9, &err), CS_OK);
  cs_deleteSimulation(fresh);
  csRunStatistics st;
  cs_simStatistics(s, &st);
  assert_true(st.nsteps >= nsteps);
  assert_int_equal(st.ngroup, 1);
  assert_true(st.t == cs_simTime(s));
  // other options mid-run: the integrator starts again, the counters carry on
  long before = st.nsteps;
  csSimOptions o = cs_simOptions(s);
  o.rtol = 1e-10;
  o.atol = 1e-12;
  assert_int_equal(cs_simSetOptions(s, &o, &err), CS_OK);
  assert_true(cs_simOptions(s).rtol == 1e-10);
  assert_int_equal(cs_simAdvanceTo(s, 1.5, &err), CS_OK);
  checkParabola(s, m, 1e-6);
  cs_simStatistics(s, &st);
  assert_true(st.nsteps > before);
  o.rtol = -1;
  assert_int_equal(cs_simSetOptions(s, &o, &err), CS_ERR_INPUT);
  assert_non_null(strstr(err.message, "rtol"));
  // reset: back to the initial state
  cs_simReset(s);
  assert_true(cs_simTime(s) == 0);
  checkParabola(s, m, 0);
  cs_simStatistics(s, &st);
  assert_int_equal(st.nsteps, 0);
  cs_deleteSimulation(s);
  cs_deleteModel(m);
}


// the velocity set between steps: the integrator restarts from it (a ball stopped at t = 1 then
// falls from rest)
static void test_set_state_restarts(void** state) {
  (void)state;
  csModel* m = th_loadFile("scenes/free_fall.json");
  csSimulation* s = newSim(m);
  csError err;
  assert_int_equal(cs_simAdvanceTo(s, 1.0, &err), CS_OK);
  int nu = cs_modelCount(m, CS_COUNT_U);
  double u[6] = {0};
  assert_int_equal(nu, 6);
  double com1[3];
  cs_simBodyCom(s, 1, com1);
  assert_int_equal(cs_simSetState(s, CS_STATE_U, u, 5, &err), CS_ERR_INPUT);  // wrong length
  assert_int_equal(cs_simSetState(s, CS_STATE_U, u, 6, &err), CS_OK);
  double v[3];
  cs_simBodyVelocity(s, 1, NULL, v);
  th_assertClose(v[2], 0, 0, 0, "vertical speed just after the edit");
  assert_int_equal(cs_simAdvanceTo(s, 1.5, &err), CS_OK);
  double com[3], g[3];
  cs_modelGravity(m, g);
  cs_simBodyCom(s, 1, com);
  // BDF restarts at order 1: its error is held to rtol |z| = 1e-7 per step, not below
  th_assertClose(com[2], com1[2] + 0.5 * g[2] * 0.25, 0, 1e-6, "fall from rest after the edit");
  th_assertClose(com[0], com1[0], 0, 1e-9, "no horizontal motion after the edit");
  u[0] = NAN;
  memset(&err, 0xab, sizeof(err));  // a caller's uninitialised error: no stale bytes come back
  assert_int_equal(cs_simSetState(s, CS_STATE_U, u, 6, &err), CS_ERR_INPUT);
  assert_string_equal(err.file, "");
  assert_string_equal(err.path, "");
  assert_int_equal(err.line, 0);
  assert_non_null(strstr(err.message, "u[0] is not finite"));
  cs_deleteSimulation(s);
  cs_deleteModel(m);
}


// cs_simRun over the report grid is cs_simulate: the same rows, bit for bit
typedef struct Rows {
  double v[4096];
  int n;
} Rows;


static int recordRow(void* ctx, const csModel* m, csData* d) {
  Rows* r = ctx;
  for (int i = 0; i < m->nq && r->n < 4096; i++) {
    r->v[r->n++] = d->q[i];
  }
  if (r->n < 4096) {
    r->v[r->n++] = d->t;
  }
  return 0;
}


static void test_run_matches_simulate(void** state) {
  (void)state;
  csModel* m = th_loadFile("scenes/sphere_drop.json");
  csSimOptions o = cs_modelOptions(m);
  o.duration = 0.8;
  o.report_interval = 0.02;
  static Rows a, b;
  memset(&a, 0, sizeof(a));
  memset(&b, 0, sizeof(b));
  csError err;
  csData* d = cs_makeData(m);
  csReporter ra = {.report = recordRow, .ctx = &a};
  assert_int_equal(cs_simulate(m, d, &o, &ra, &err), CS_OK);
  csSimulation* s = cs_newSimulation(m, &o, &err);
  assert_non_null(s);
  csReporter rb = {.report = recordRow, .ctx = &b};
  assert_int_equal(cs_simRun(s, 0.8, &rb, &err), CS_OK);
  assert_int_equal(a.n, b.n);
  assert_memory_equal(a.v, b.v, sizeof(double) * (size_t)a.n);
  csRunStatistics st;
  cs_simStatistics(s, &st);
  assert_int_equal(st.nsteps, d->stat.nsteps);
  assert_int_equal(st.nrhs, d->stat.nrhs);
  cs_deleteSimulation(s);
  cs_deleteData(d);
  cs_deleteModel(m);
}


// advancing and reading allocate nothing once the simulation exists
static void test_advance_allocates_nothing(void** state) {
  (void)state;
  csModel* m = th_loadFile("scenes/bench/pile_10.json");
  csSimulation* s = newSim(m);
  csError err;
  assert_int_equal(cs_simStep(s, &err), CS_OK);
  long before = csu_allocationCount();
  for (int k = 0; k < 50; k++) {
    assert_int_equal(cs_simStep(s, &err), CS_OK);
  }
  assert_int_equal(cs_simAdvanceTo(s, cs_simTime(s) + 0.1, &err), CS_OK);
  double p[3], q[4], ke;
  cs_simBodyPose(s, 1, p, q);
  cs_simEnergy(s, &ke, NULL, NULL);
  csRunStatistics st;
  cs_simStatistics(s, &st);
  assert_int_equal(csu_allocationCount(), before);
  assert_true(st.ngroup == 10);  // ten blocks, ten independent groups
  cs_deleteSimulation(s);
  cs_deleteModel(m);
}


// the diagnostic for energy from nowhere: a slider at rest at q = 0 with a stop whose upper
// bound a scheduled change moves to -0.1 m at t = 0.5 s stores k 0.1^2 / 2 = 5 J that no
// element supplied (the run's start energy is 0), and the run says so; the same slider without
// the change, and one pushed from rest by a constant force (whose work is booked), do not
static int energyNote(const char* extraForce, const char* changes) {
  char json[2048];
  snprintf(json, sizeof(json),
           "{\"gravity\": [0, 0, 0],"
           " \"bodies\": [{\"name\": \"s\", \"mass\": 1, \"inertia\": {\"diag\": [1, 1, 1]},"
           "   \"joint\": {\"type\": \"slider\"}}],"
           " \"forces\": [{\"type\": \"linear_stop\", \"name\": \"stop\", \"body\": \"s\","
           "   \"coordinate\": 0, \"lower_bound\": -1, \"upper_bound\": 1,"
           "   \"stiffness\": 1000, \"dissipation\": 0}%s],"
           " \"changes\": [%s],"
           " \"simulation\": {\"duration\": 1, \"report_interval\": 0.01}}",
           extraForce, changes);
  csModel* m = th_loadString(json);
  csSimOptions o = cs_modelOptions(m);
  csError err = {0};
  csSimulation* s = cs_newSimulation(m, &o, &err);
  assert_non_null(s);
  for (int k = 1; k <= 10; k++) {
    assert_int_equal(cs_simAdvanceTo(s, 0.1 * k, &err), CS_OK);
  }
  csRunStatistics st;
  cs_simStatistics(s, &st);
  int note = 0;
  for (int i = 0; i < st.nnotes; i++) {
    note |= strstr(cs_simNote(s, i), "rose by") != NULL;
  }
  cs_deleteSimulation(s);
  cs_deleteModel(m);
  return note;
}

static void test_energy_from_nowhere_noted(void** state) {
  (void)state;
  assert_true(energyNote("", "{\"time\": 0.5, \"force\": \"stop\", \"upper_bound\": -0.1}"));
  assert_false(energyNote("", ""));
  assert_false(energyNote(", {\"type\": \"constant\", \"body\": \"s\", \"force\": [0.5, 0, 0]}",
                          ""));
}


// the same for one group holding the whole model (the stages' whole-array paths) and contact
// kinds evaluated inline, under each integrator
static void test_advance_allocates_nothing_one_group(void** state) {
  (void)state;
  const char* scenes[] = {"scenes/bench/incline_stick.json", "scenes/bench/foot_push.json",
                          "scenes/bench/sphere_bounce_roll.json"};
  const csIntegratorType integrators[] = {CS_INTEGRATOR_BDF, CS_INTEGRATOR_ADAMS,
                                          CS_INTEGRATOR_RK};
  for (int i = 0; i < 3; i++) {
    for (int k = 0; k < 3; k++) {
      csModel* m = th_loadFile(scenes[i]);
      csSimOptions opt = cs_modelOptions(m);
      opt.integrator = integrators[k];
      csError err;
      csSimulation* s = cs_newSimulation(m, &opt, &err);
      assert_non_null(s);
      assert_int_equal(cs_simStep(s, &err), CS_OK);
      long before = csu_allocationCount();
      for (int n = 0; n < 50; n++) {
        assert_int_equal(cs_simStep(s, &err), CS_OK);
      }
      assert_int_equal(cs_simAdvanceTo(s, cs_simTime(s) + 0.2, &err), CS_OK);
      csRunStatistics st;
      cs_simStatistics(s, &st);
      assert_int_equal(csu_allocationCount(), before);
      assert_true(st.ngroup == 1);
      cs_deleteSimulation(s);
      cs_deleteModel(m);
    }
  }
}


// ---------------------------------------------------------------------------------------------
// discrete variables between steps: the block on the 20 degree incline sticks with mu_s = 0.7
// and slides with g (sin 20 - mu cos 20) once friction drops to 0.2 (scenes/exp_spring_incline)

// speed of the block along the slope, m/s
static double slopeSpeed(csSimulation* s) {
  double v[3];
  cs_simBodyVelocity(s, 1, NULL, v);
  return sqrt(v[0] * v[0] + v[2] * v[2]);
}


static void test_set_discrete_slides(void** state) {
  (void)state;
  csModel* m = th_loadFile("scenes/exp_spring_incline.json");
  csSimulation* s = newSim(m);
  csError err;
  assert_int_equal(cs_simAdvanceTo(s, 1.0, &err), CS_OK);
  th_assertClose(slopeSpeed(s), 0, 0, 1e-4, "stuck at mu_s = 0.7");
  // every corner's friction, by name, between steps (a second before the scene's own change)
  for (int e = 0; e < cs_modelCount(m, CS_COUNT_FORCE); e++) {
    if (cs_modelForceIsContact(m, e) == 1) {
      assert_int_equal(cs_simSetDiscrete(s, e, "mu_static", 0.2, &err), CS_OK);
      // mu_dynamic follows it down (mu_d <= mu_s)
      int adr;
      cs_modelForceState(m, e, CS_STATE_DISCRETE, &adr, NULL);
      assert_true(cs_simState(s, CS_STATE_DISCRETE)[adr + 1] <= 0.2);
    }
  }
  assert_int_equal(cs_simSetDiscrete(s, 0, "mu_static", 0.2, &err), CS_ERR_INPUT);  // gravity
  assert_non_null(strstr(err.message, "no discrete variable"));
  assert_int_equal(cs_simAdvanceTo(s, 1.4, &err), CS_OK);
  double v1 = slopeSpeed(s);
  assert_int_equal(cs_simAdvanceTo(s, 1.9, &err), CS_OK);
  double a = (slopeSpeed(s) - v1) / 0.5;
  double th = 20 * acos(-1.0) / 180;
  th_assertClose(a, 9.81 * (sin(th) - 0.2 * cos(th)), 0.02, 0, "sliding acceleration");
  // the contact set carries the weight's normal component; its total along Ground z balances
  // the weight minus m a sin(th)
  double f[3], cop[3];
  assert_int_equal(cs_simContactSet(s, 0, f, cop), 0);
  th_assertClose(f[2], 10 * 9.81 - 10 * a * sin(th), 0.01, 0, "vertical contact force");
  csRunStatistics st;
  cs_simStatistics(s, &st);
  assert_true(st.sliding_distance > 0.1);
  assert_true(st.nrestart >= 1);
  cs_deleteSimulation(s);
  cs_deleteModel(m);
}


// a run stopped on request (as a signal handler would) returns to its last report and goes on
// from there to the same end
typedef struct StopAfter {
  int reports, after;
  double last;
  volatile sig_atomic_t flag;
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
  // two balls bouncing on their own (two groups, each with its own steps), stopped while they
  // are in contact and in the air
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
      " \"simulation\": {\"duration\": 1, \"rtol\": 1e-9, \"atol\": 1e-11,\n"
      "                \"report_interval\": 0.01}}\n");
  csError err;
  csSimulation* a = newSim(m);
  assert_int_equal(cs_simRun(a, 1.0, NULL, &err), CS_OK);
  csRunStatistics st;
  cs_simStatistics(a, &st);
  assert_int_equal(st.ngroup, 2);
  // stopped before, at and after the landings (0.2 s and 0.27 s)
  for (int after = 15; after <= 45; after += 6) {
    csSimulation* b = newSim(m);
    StopAfter c = {.after = after};
    csReporter rep = {.report = countReport, .ctx = &c, .stop = &c.flag};
    assert_int_equal(cs_simRun(b, 1.0, &rep, &err), CS_STOPPED);
    // back at the last report, every body there, and the message says so (it named the time
    // of the step the run abandoned)
    assert_true(cs_simTime(b) == c.last);
    char said[96];
    snprintf(said, sizeof(said), "back at t = %.9g s, its last report", c.last);
    assert_non_null(strstr(err.message, said));
    assert_true(err.time == c.last);
    assert_true(c.last > 0 && c.last < 1.0);
    c.flag = 0;
    assert_int_equal(cs_simRun(b, 1.0, &rep, &err), CS_OK);
    assert_true(cs_simTime(b) == 1.0);
    for (int body = 1; body < cs_modelCount(m, CS_COUNT_BODY); body++) {
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


// each element's commits, as the step hook saw the steps (the hook runs at a step's end, right
// before its commit); the stop counter first, so that countReport reads the same context
typedef struct StopRecord {
  StopAfter stop;
  double t[3][2048];
  int n[3];
} StopRecord;


static void recordCommit(void* ctx, const csModel* m, csData* d) {
  (void)m;
  StopRecord* c = ctx;
  for (int i = 0; i < d->nact_force; i++) {
    int e = d->act_force[i];
    if (e < 3 && c->n[e] < 2048) {
      c->t[e][c->n[e]++] = d->t;
    }
  }
}


// the last commit of element e at or before t (a run stopped at a report drops the steps past it,
// which the hook may have seen)
static double lastCommitBy(const StopRecord* c, int e, double t) {
  double last = -1;
  for (int i = 0; i < c->n[e]; i++) {
    if (c->t[e][i] <= t) {
      last = fmax(last, c->t[e][i]);
    }
  }
  return last;
}


// the last-commit time of element e in a checkpoint's text (its "commit" section lists the
// elements with auto-update variables in order)
static double checkpointCommit(const char* text, int index) {
  const char* s = strstr(text, "\ncommit ");
  assert_non_null(s);
  s = strchr(s + 1, '\n') + 1;
  for (int i = 0; i < index; i++) {
    s = strchr(s, '\n') + 1;
  }
  return strtod(s, NULL);
}


// A run of two blocks on exponential springs (two groups, each with its own steps) stopped at a
// report, where each block stands interpolated between its last commit and a step it drops: the
// checkpoint keeps each element's last commit (the anchor update measures the anchor's speed over
// the time since then), where it kept one time for all, the group that committed last's; and a
// simulation that loads it holds those times
static void test_checkpoint_keeps_each_commit(void** state) {
  (void)state;
  csModel* m = th_loadString(
      "{\"bodies\": [{\"name\": \"a\", \"mass\": 1, \"inertia\": {\"box\": [0.1, 0.1, 0.1]},\n"
      "   \"joint\": {\"type\": \"free\", \"initial\": {\"position\": [0, 0, 0.1033],\n"
      "                                        \"velocity\": [1.5, 0, 0]}}},\n"
      "  {\"name\": \"b\", \"mass\": 2, \"inertia\": {\"box\": [0.1, 0.1, 0.1]},\n"
      "   \"joint\": {\"type\": \"free\", \"initial\": {\"position\": [2, 0, 0.2],\n"
      "                                        \"velocity\": [0, 0.5, 0]}}}],\n"
      " \"planes\": [{\"name\": \"floor\"}],\n"
      " \"contacts\": [{\"name\": \"ca\", \"body\": \"a\", \"plane\": \"floor\",\n"
      "                 \"points\": [[0, 0, -0.1]]},\n"
      "                {\"name\": \"cb\", \"body\": \"b\", \"plane\": \"floor\",\n"
      "                 \"points\": [[0, 0, -0.1]]}],\n"
      " \"contact_models\": {\"default\": \"exponential_spring\",\n"
      "                    \"exponential_spring\": {}},\n"
      " \"simulation\": {\"duration\": 1, \"integrator\": \"rk\", \"rtol\": 1e-6,\n"
      "                \"atol\": 1e-6, \"report_interval\": 0.01}}\n");
  assert_int_equal(cs_modelCount(m, CS_COUNT_FORCE), 3);  // gravity, ca's and cb's springs
  csError err;
  int differed = 0;
  for (int after = 5; after <= 60; after += 11) {
    csSimulation* s = newSim(m);
    static StopRecord c;
    memset(&c, 0, sizeof(c));
    c.stop.after = after;
    csReporter rep = {.report = countReport, .step = recordCommit, .ctx = &c,
                      .stop = &c.stop.flag};
    assert_int_equal(cs_simRun(s, 1.0, &rep, &err), CS_STOPPED);
    double t = cs_simTime(s);
    assert_true(t == c.stop.last);
    char* text = NULL;
    assert_int_equal(cs_simSaveStateText(s, &text, NULL, &err), CS_OK);
    double ta = checkpointCommit(text, 0), tb = checkpointCommit(text, 1);
    assert_true(c.n[1] < 2048 && c.n[2] < 2048);
    assert_true(ta == lastCommitBy(&c, 1, t) && tb == lastCommitBy(&c, 2, t));
    assert_true(ta <= t && tb <= t);
    differed += ta != tb;
    // loaded into another simulation, each element holds its own time
    csSimulation* r = newSim(m);
    assert_int_equal(cs_simLoadStateText(r, text, strlen(text), &err), CS_OK);
    assert_true(cs_simData(r)->commit_t[1] == ta && cs_simData(r)->commit_t[2] == tb);
    cs_freeStateText(text);
    cs_deleteSimulation(r);
    cs_deleteSimulation(s);
  }
  // the blocks' steps ended apart at every stop but by chance
  assert_true(differed >= 4);
  // a time set keeps each anchor's age: to itself, after a step that one block took past the
  // other (its commit pending), nothing moves (every last commit was set to the time, and that
  // block's next update divided its anchor's motion since its commit by a shorter interval)
  csSimulation* s = newSim(m);
  assert_int_equal(cs_simAdvanceTo(s, 0.05, &err), CS_OK);
  assert_int_equal(cs_simStep(s, &err), CS_OK);
  double before[3], t = cs_simTime(s);
  memcpy(before, cs_simData(s)->commit_t, sizeof(before));
  assert_int_equal(cs_simSetTime(s, t, &err), CS_OK);
  // (the block whose step ended now has committed it, as an edit settles such a step first; the
  // other's step, past now, waits, its last commit before now)
  int earlier = 0;
  for (int e = 1; e < 3; e++) {
    double c = cs_simData(s)->commit_t[e];
    assert_true(c == t || c == before[e]);
    earlier += c < t;
    before[e] = c;
  }
  assert_int_equal(earlier, 1);
  assert_int_equal(cs_simSetTime(s, t + 2, &err), CS_OK);
  for (int e = 1; e < 3; e++) {
    th_assertClose(cs_simData(s)->commit_t[e], before[e] + 2, 0, 1e-15, "a commit moved on");
  }
  cs_deleteSimulation(s);
  cs_deleteModel(m);
}


// cs_simSetStop: a stop flag that is set stops an advance, a step and a run (one without a
// reporter of its own) where they started; cleared, they go on as if never stopped
static void test_stop_flag(void** state) {
  (void)state;
  csModel* m = th_loadString(
      "{\"bodies\": [{\"name\": \"ball\", \"mass\": 1, \"inertia\": {\"sphere\": 0.1},\n"
      "   \"joint\": {\"type\": \"free\", \"initial\": {\"velocity\": [1, 0, 2]}}}],\n"
      " \"simulation\": {\"duration\": 1, \"rtol\": 1e-10, \"atol\": 1e-12}}\n");
  csError err;
  csSimulation* s = newSim(m);
  assert_int_equal(cs_simAdvanceTo(s, 0.25, &err), CS_OK);
  volatile sig_atomic_t flag = 1;
  cs_simSetStop(s, &flag);
  assert_int_equal(cs_simAdvanceTo(s, 0.5, &err), CS_STOPPED);
  assert_true(cs_simTime(s) == 0.25);
  // (the message says where the simulation stands: where the call started)
  assert_non_null(strstr(err.message, "back at t = 0.25 s, where the call started"));
  assert_true(err.time == 0.25);
  assert_int_equal(cs_simStep(s, &err), CS_STOPPED);
  assert_true(cs_simTime(s) == 0.25);
  assert_non_null(strstr(err.message, "back at t = 0.25 s, where the call started"));
  assert_int_equal(cs_simRun(s, 0.5, NULL, &err), CS_STOPPED);
  assert_true(cs_simTime(s) == 0.25);
  // a run's own stop flag takes the simulation's place
  StopAfter c = {.after = 1000};
  csReporter rep = {.report = countReport, .ctx = &c, .stop = &c.flag};
  assert_int_equal(cs_simRun(s, 0.5, &rep, &err), CS_OK);
  flag = 0;
  assert_int_equal(cs_simAdvanceTo(s, 0.75, &err), CS_OK);
  cs_simSetStop(s, NULL);
  // the parabola: z = 2 t - g t^2 / 2, x = t
  double p[3];
  cs_simBodyPose(s, 1, p, NULL);
  th_assertClose(p[0], 0.75, 0, 1e-9, "x(0.75)");
  th_assertClose(p[2], 2 * 0.75 - 0.5 * 9.81 * 0.75 * 0.75, 0, 1e-9, "z(0.75)");
  cs_deleteSimulation(s);
  cs_deleteModel(m);
}


// counts the steps of a run and those before each report; sets the stop flag at a step
typedef struct StepCount {
  long steps, stopAt;
  long atReport[64];
  int reports;
  volatile sig_atomic_t flag;
} StepCount;


static void countStep(void* ctx, const csModel* m, csData* d) {
  (void)m;
  (void)d;
  StepCount* c = ctx;
  if (++c->steps == c->stopAt) {
    c->flag = 1;
  }
}


static int markReport(void* ctx, const csModel* m, csData* d) {
  (void)m;
  (void)d;
  StepCount* c = ctx;
  if (c->reports < 64) {
    c->atReport[c->reports++] = c->steps;
  }
  return 0;
}


// A stopped call gives its steps back: the simulation returns to its last report, and the
// statistics with it. A ball sliding on Hunt-Crossley contact, stopped mid-way between two
// reports and run on: the steps counted are those up to the report it returned to and those
// of the run after it, as the step hooks counted them, not the discarded ones too.
static void test_stopped_statistics_go_back(void** state) {
  (void)state;
  csModel* m = th_loadString(
      "{\"gravity\": [0, 0, -9.81],\n"
      " \"bodies\": [{\"name\": \"ball\", \"mass\": 1, \"inertia\": {\"sphere\": 0.1},\n"
      "   \"joint\": {\"type\": \"free\", \"initial\": {\"position\": [0, 0, 0.099],\n"
      "                                        \"velocity\": [2, 0, 0]}}}],\n"
      " \"planes\": [{\"name\": \"floor\"}],\n"
      " \"contacts\": [{\"name\": \"c\", \"body\": \"ball\", \"plane\": \"floor\",\n"
      "                 \"points\": [[0, 0, 0]], \"radius\": 0.1}],\n"
      " \"contact_models\": {\"hunt_crossley\": {\"plane_strain_modulus\": 3e6,\n"
      "   \"dissipation\": 0.3, \"mu_static\": 0.5, \"mu_dynamic\": 0.4}},\n"
      " \"simulation\": {\"duration\": 0.5, \"rtol\": 1e-8, \"atol\": 1e-10,\n"
      "                \"report_interval\": 0.05}}\n");
  csError err;
  // the steps before each report of the whole run; the stop comes half way from the third
  // report to the fourth
  csSimulation* probe = newSim(m);
  StepCount p = {.stopAt = -1};
  csReporter prep = {.report = markReport, .step = countStep, .ctx = &p};
  assert_int_equal(cs_simRun(probe, 0.5, &prep, &err), CS_OK);
  // the step hooks see every step, the one that ends the run too (finished after the last
  // report, before cs_simRun returns)
  csRunStatistics pst;
  cs_simStatistics(probe, &pst);
  assert_int_equal(pst.nsteps, p.steps);
  cs_deleteSimulation(probe);
  assert_true(p.reports == 11 && p.atReport[3] - p.atReport[2] >= 4);

  csSimulation* s = newSim(m);
  StepCount c = {.stopAt = (p.atReport[2] + p.atReport[3]) / 2};
  csReporter rep = {.report = markReport, .step = countStep, .ctx = &c, .stop = &c.flag};
  assert_int_equal(cs_simRun(s, 0.5, &rep, &err), CS_STOPPED);
  assert_true(cs_simTime(s) == 0.1);
  long kept = c.atReport[2];
  assert_true(kept < c.steps);
  csRunStatistics st;
  cs_simStatistics(s, &st);
  assert_int_equal(st.nsteps, kept + 1);  // and the step that reached the report
  // run on: the hooks count the new run's steps, its last one too
  c.flag = 0;
  c.stopAt = -1;
  long before = c.steps;
  assert_int_equal(cs_simRun(s, 0.5, &rep, &err), CS_OK);
  cs_simStatistics(s, &st);
  assert_int_equal(st.nsteps, kept + 1 + (c.steps - before));
  cs_deleteSimulation(s);
  cs_deleteModel(m);
}


// Reading every contact's statistics settles the simulation once: the pile of ten blocks (40
// contacts) read contact by contact realizes no stage after the first read, where each read
// used to settle the whole model again (quadratic in the contacts: 5 s on pile_1000). The
// settled values stand only until the simulation changes: after each advance every contact
// reads as in a simulation taken straight there.
static void readPeaks(csSimulation* s, const csModel* m, double* peak) {
  for (int e = 0; e < m->nforce; e++) {
    peak[e] = -1;
    cs_simContactStatistics(s, e, &peak[e], NULL);
  }
}


static void test_statistics_settle_once(void** state) {
  (void)state;
  csModel* m = th_loadFile("scenes/bench/pile_10.json");
  assert_true(m->nforce >= 40 && m->nforce <= 64);
  csSimulation* s = newSim(m);
  csError err;
  double a[64], b[64];
  for (int k = 1; k <= 3; k++) {
    assert_int_equal(cs_simAdvanceTo(s, 0.1 * k, &err), CS_OK);
    csRunStatistics st;
    cs_simStatistics(s, &st);
    const csData* d = cs_simData(s);
    long stages[4];
    memcpy(stages, d->stat.nstage, sizeof(stages));
    readPeaks(s, m, a);
    assert_memory_equal(stages, d->stat.nstage, sizeof(stages));
    // a simulation advanced the same way whose statistics were never read before
    csSimulation* fresh = newSim(m);
    for (int j = 1; j <= k; j++) {
      assert_int_equal(cs_simAdvanceTo(fresh, 0.1 * j, &err), CS_OK);
    }
    csRunStatistics sf;
    cs_simStatistics(fresh, &sf);
    assert_true(st.t == sf.t && st.nsteps == sf.nsteps && st.nsteps > 0);
    assert_true(st.sliding_distance == sf.sliding_distance && st.ncommit == sf.ncommit);
    readPeaks(fresh, m, b);
    int contacts = 0;
    for (int e = 0; e < m->nforce; e++) {
      assert_true(a[e] == b[e]);
      contacts += a[e] > 0;
    }
    assert_true(contacts >= 40);
    cs_deleteSimulation(fresh);
  }
  cs_deleteSimulation(s);
  cs_deleteModel(m);
}


// A run stopped past a scheduled change returns to its last report, before the change; new
// options given then keep the change to come, and an edit made after the next change is not
// undone by old changes replayed (the foot of scenes/foot_landing_push.json, pushed with 5 N
// from t = 1 s and 15 N from t = 2 s).
static volatile sig_atomic_t g_pastChange;


static void stopPastChange(void* ctx, const csModel* m, csData* d) {
  (void)ctx;
  (void)m;
  if (d->t > 1.1) {
    g_pastChange = 1;
  }
}


static double pushX(csSimulation* s, int e) {
  const csModel* m = cs_simModel(s);
  int adr = 0;
  cs_modelForceState(m, e, CS_STATE_DISCRETE, &adr, NULL);
  return cs_simState(s, CS_STATE_DISCRETE)[adr + cs_modelDiscreteIndex(m, e, "force_x")];
}


static void test_options_after_a_stopped_run_keep_the_changes(void** state) {
  (void)state;
  csModel* m = th_loadFile("scenes/foot_landing_push.json");
  int e = cs_forceId(m, "push");
  csSimOptions o = cs_modelOptions(m);
  o.report_interval = 0.3;  // reports at 0.9 and 1.2 s
  csError err;
  csSimulation* s = cs_newSimulation(m, &o, &err);
  assert_non_null(s);
  assert_int_equal(cs_simAdvanceTo(s, 0.9, &err), CS_OK);
  g_pastChange = 0;
  csReporter rep = {.step = stopPastChange, .stop = &g_pastChange};
  assert_int_equal(cs_simRun(s, 1.5, &rep, &err), CS_STOPPED);
  assert_true(cs_simTime(s) == 0.9 && pushX(s, e) == 0);
  o.rtol = 1e-8;
  assert_int_equal(cs_simSetOptions(s, &o, &err), CS_OK);
  assert_int_equal(cs_simAdvanceTo(s, 1.5, &err), CS_OK);
  assert_true(pushX(s, e) == 5);
  assert_int_equal(cs_simAdvanceTo(s, 2.45, &err), CS_OK);
  assert_true(pushX(s, e) == 15);
  assert_int_equal(cs_simSetDiscrete(s, e, "force_x", 100, &err), CS_OK);
  assert_int_equal(cs_simAdvanceTo(s, 2.5, &err), CS_OK);
  assert_true(pushX(s, e) == 100);
  cs_deleteSimulation(s);
  cs_deleteModel(m);
}


// A CSV run that cannot start (to a time already past) leaves the file as it was: it was
// emptied before the run was refused
static void test_refused_csv_run_leaves_the_file(void** state) {
  (void)state;
  csModel* m = th_loadFile("scenes/sphere_drop.json");
  csSimulation* s = newSim(m);
  csError err;
  assert_int_equal(cs_simAdvanceTo(s, 0.1, &err), CS_OK);
  char path[PATH_MAX_TEST];
  scratch(path, "refused.csv");
  FILE* f = fopen(path, "w");
  assert_non_null(f);
  fputs("kept\n", f);
  fclose(f);
  int refused = cs_simRunCsv(s, 0.05, path, NULL, &err);
  char* text = th_readFile(path, NULL);
  remove(path);
  assert_int_equal(refused, CS_ERR_INPUT);
  assert_non_null(text);
  assert_string_equal(text, "kept\n");
  free(text);
  // a CSV that cannot be opened: the error says why (it said only "cannot write PATH")
  assert_int_equal(cs_simRunCsv(s, 0.2, "/nonexistent/dir/out.csv", NULL, &err), CS_ERR_IO);
  assert_non_null(strstr(err.message, "/nonexistent/dir/out.csv: No such file or directory"));
  assert_string_equal(err.file, "/nonexistent/dir/out.csv");
  cs_deleteSimulation(s);
  cs_deleteModel(m);
}


// The distance slid counts each stretch once, whatever steps are given back: a block gliding
// without friction at 1 m/s for 2 s slides 2 m, run straight, stopped mid-way and run on,
// stepped and then edited, or failed and run on. A second block dropped flat beside it makes
// the model two groups: an edit, and a failure in the dropped block's group (too many steps
// as it lands), take both back to where they stood together, and the steps since are given
// back. A step that reached a report was seen by the statistics before the report, then given
// back by the stop, and the stretch from the report to its end was counted twice (2.0053 m;
// 2.0028 m after the edit); after the failure the statistics kept the steps given back
// (2.002-2.026 m).
static void test_sliding_distance_counts_each_stretch_once(void** state) {
  (void)state;
  const char* block =
      "{\"name\": \"%s\", \"mass\": 2, \"inertia\": {\"box\": [0.2, 0.1, 0.05]},\n"
      " \"joint\": {\"type\": \"free\", \"initial\": {\"position\": [%g, 0, %g],\n"
      "                                        \"velocity\": [%g, 0, 0]}}}";
  const char* corners =
      "{\"name\": \"%s_corners\", \"body\": \"%s\", \"plane\": \"floor\", \"points\":\n"
      " [[-0.2, -0.1, -0.05], [0.2, -0.1, -0.05], [-0.2, 0.1, -0.05], [0.2, 0.1, -0.05]]}";
  char b1[512], b2[512], c1[512], c2[512], scene[4096];
  snprintf(b1, sizeof(b1), block, "glider", 0.0, 0.0499019, 1.0);
  snprintf(b2, sizeof(b2), block, "dropped", 5.0, 0.3, 0.0);
  snprintf(c1, sizeof(c1), corners, "glider", "glider");
  snprintf(c2, sizeof(c2), corners, "dropped", "dropped");
  snprintf(scene, sizeof(scene),
           "{\"gravity\": [0, 0, -9.81], \"bodies\": [%s,\n%s],\n"
           " \"planes\": [{\"name\": \"floor\"}], \"contacts\": [%s,\n%s],\n"
           " \"contact_models\": {\"default\": \"compliant_point\", \"compliant_point\": {\n"
           "   \"body_material\": {\"penalty_stiffness\": 2e5, \"dissipation\": 20,\n"
           "                     \"mu_static\": 0, \"mu_dynamic\": 0, \"mu_viscous\": 0},\n"
           "   \"plane_material\": {\"penalty_stiffness\": 2e5, \"dissipation\": 20,\n"
           "                      \"mu_static\": 0, \"mu_dynamic\": 0, \"mu_viscous\": 0}}},\n"
           " \"simulation\": {\"duration\": 2, \"report_interval\": 0.01, \"rtol\": 1e-6,\n"
           "                \"atol\": 1e-8}}\n",
           b1, b2, c1, c2);
  csModel* m = th_loadString(scene);
  csError err;
  csRunStatistics st;
  const char* names[] = CS_INTEGRATOR_NAMES;
  for (int k = 0; k < CS_INTEGRATOR_COUNT; k++) {
    csSimOptions opt = cs_modelOptions(m);
    opt.integrator = (csIntegratorType)k;
    // straight, then stopped a third and two thirds of the way through its steps (and twice
    // more, an eighth later each) and run on: three stops each
    long total = 0;
    for (int variant = 0; variant < 3; variant++) {
      csSimulation* s = cs_newSimulation(m, &opt, &err);
      assert_non_null(s);
      long stopAt = variant == 0 ? -1 : variant * total / 3;
      StepCount c = {.stopAt = stopAt};
      csReporter rep = {.step = countStep, .ctx = &c, .stop = &c.flag};
      int status = cs_simRun(s, 2, &rep, &err);
      int stops = 0;
      for (; status == CS_STOPPED; stops++) {
        c.flag = 0;
        c.stopAt = stops < 2 ? c.steps + total / 8 : -1;
        status = cs_simRun(s, 2, &rep, &err);
      }
      assert_int_equal(status, CS_OK);
      if (variant == 0) {
        total = c.steps;
      } else if (stops != 3) {
        fail_msg("%s, to be stopped at step %ld of %ld and twice more: stopped %d times",
                 names[k], stopAt, total, stops);
      }
      cs_simStatistics(s, &st);
      if (fabs(st.sliding_distance - 2) > 1e-6) {
        fail_msg("%s, stopped at step %ld and twice more: slid %.9f m, not 2", names[k],
                 stopAt, st.sliding_distance);
      }
      cs_deleteSimulation(s);
    }
    // stepped to 0.5 s or past it, then an edit that changes nothing, then on to the end
    csSimulation* s = cs_newSimulation(m, &opt, &err);
    assert_non_null(s);
    for (int i = 0; i < 100000 && cs_simTime(s) < 0.5; i++) {
      assert_int_equal(cs_simStep(s, &err), CS_OK);
    }
    assert_true(cs_simTime(s) >= 0.5 && cs_simTime(s) < 2);
    double q[14];
    assert_int_equal(cs_modelCount(m, CS_COUNT_Q), 14);
    cs_simGetState(s, CS_STATE_Q, q, 14);
    assert_int_equal(cs_simSetState(s, CS_STATE_Q, q, 14, &err), CS_OK);
    if (cs_simAdvanceTo(s, 2, &err) != CS_OK) {
      fail_msg("%s, stepped and edited: %s", names[k], err.message);
    }
    cs_simStatistics(s, &st);
    if (fabs(st.sliding_distance - 2) > 1e-6) {
      fail_msg("%s, stepped and edited: slid %.9f m, not 2", names[k], st.sliding_distance);
    }
    cs_deleteSimulation(s);
    // failed for too many steps (the dropped block landing), then run on with the default
    csSimOptions few = opt;
    few.max_steps = 8;
    s = cs_newSimulation(m, &few, &err);
    assert_non_null(s);
    int fails = 0, status;
    while ((status = cs_simRun(s, 2, NULL, &err)) == CS_ERR_SOLVER && fails < 10) {
      fails++;
      assert_int_equal(cs_simSetOptions(s, &opt, &err), CS_OK);
    }
    assert_int_equal(status, CS_OK);
    cs_simStatistics(s, &st);
    if (fails == 0 || fabs(st.sliding_distance - 2) > 1e-6) {
      fail_msg("%s, %d failures and run on: slid %.9f m, not 2", names[k], fails,
               st.sliding_distance);
    }
    cs_deleteSimulation(s);
  }
  cs_deleteModel(m);
}


// The linear solver a run is said to have used: the one its largest group used once a run set
// its groups up, and before that (no run yet, or a set-up that failed: a band matrix too large
// for memory was reported as "dense") the one the options ask for
static void test_linear_solver_named(void** state) {
  (void)state;
  csModel* m = th_loadFile("scenes/bench/chain_4.json");
  csData* d = cs_makeData(m);
  csSimOptions o = m->opt;
  o.duration = 0.01;
  o.integrator = CS_INTEGRATOR_BDF;
  const csLinearSolver asked[] = {CS_LINSOL_BAND, CS_LINSOL_GMRES, CS_LINSOL_DENSE,
                                  CS_LINSOL_AUTO};
  const char* named[] = {"band", "gmres", "dense", "dense"};
  for (int i = 0; i < 4; i++) {
    o.linsol = asked[i];
    memset(&d->stat, 0, sizeof(d->stat));
    assert_string_equal(cs_linearSolverUsed(&o, d), named[i]);
    assert_string_equal(cs_linearSolverUsed(&o, NULL), named[i]);
    // and after a run, the one used
    cs_resetData(m, d);
    csError err;
    assert_int_equal(cs_simulate(m, d, &o, NULL, &err), CS_OK);
    assert_string_equal(cs_linearSolverUsed(&o, d), named[i]);
  }
  o.integrator = CS_INTEGRATOR_ADAMS;
  assert_string_equal(cs_linearSolverUsed(&o, d), "none");
  o.integrator = CS_INTEGRATOR_ARK;
  assert_string_equal(cs_linearSolverUsed(&o, d), "dense");
  cs_deleteData(d);
  cs_deleteModel(m);
}


// A dense Jacobian too large for memory is refused at the set-up, saying what it needs and
// what solves such a group (SUNDIALS' matrix does not check its allocation: the run crashed at
// its first step). 400 free bodies in one group under "dense": 5,200 states, two matrices of
// 216 MB, in a child process whose address space is limited to one and a half of them. (Not
// under AddressSanitizer, which reserves more address space than that for itself.)
static void test_dense_jacobian_too_large(void** state) {
  (void)state;
#if defined(__SANITIZE_ADDRESS__)
  skip();
#else
  char json[65536] = "{\"bodies\": [";
  size_t len = strlen(json);
  for (int i = 0; i < 400; i++) {
    len += (size_t)snprintf(json + len, sizeof(json) - len,
                            "%s{\"name\": \"b%d\", \"mass\": 1, \"inertia\": {\"sphere\": 0.1},"
                            " \"joint\": {\"type\": \"free\"}}",
                            i ? ", " : "", i);
  }
  snprintf(json + len, sizeof(json) - len,
           "], \"simulation\": {\"duration\": 1e-4, \"linear_solver\": \"dense\"}}");
  csModel* m = th_loadString(json);
  fflush(NULL);
  pid_t pid = fork();
  assert_true(pid >= 0);
  if (pid == 0) {
    rlim_t one = (rlim_t)5200 * 5200 * sizeof(double);
    struct rlimit as = {one + one / 2, one + one / 2};
    setrlimit(RLIMIT_AS, &as);
    csData* d = cs_makeData(m);
    cs_resetData(m, d);
    csError err;
    int status = cs_simulate(m, d, &m->opt, NULL, &err);
    int said = strstr(err.message, "out of memory for the dense Jacobian of 5200 states") &&
               strstr(err.message, "linear_solver \"auto\"");
    if (!(status == CS_ERR_MEMORY && said)) {
      fprintf(stderr, "status %d: %s\n", status, err.message);
    }
    _exit(status == CS_ERR_MEMORY && said ? 0 : 1);
  }
  int code = 0;
  assert_int_equal(waitpid(pid, &code, 0), pid);
  if (!WIFEXITED(code) || WEXITSTATUS(code) != 0) {
    fail_msg("the child %s", WIFEXITED(code) ? "did not report the matrix" : "crashed");
  }
  cs_deleteModel(m);
#endif
}


// cs_reportCount against the reports runs make, from starts on and off the report grid, to
// ends on and off it
static void test_report_count(void** state) {
  (void)state;
  csModel* m = th_loadString(
      "{\"bodies\": [{\"name\": \"ball\", \"mass\": 1, \"inertia\": {\"sphere\": 0.1},\n"
      "   \"joint\": {\"type\": \"free\"}}], \"simulation\": {\"duration\": 1}}\n");
  const double starts[] = {0, 0.3, 0.305, 0.1 + 0.2};
  const double ends[] = {1.0, 0.97, 0.9 + 1e-14, 0.31};
  const double intervals[] = {0.01, 0.03, 0.1, 0.7};
  csError err;
  for (int i = 0; i < 4; i++) {
    for (int j = 0; j < 4; j++) {
      for (int k = 0; k < 4; k++) {
        csSimulation* s = newSim(m);
        csSimOptions o = cs_simOptions(s);
        o.report_interval = intervals[k];
        assert_int_equal(cs_simSetOptions(s, &o, &err), CS_OK);
        assert_int_equal(cs_simAdvanceTo(s, starts[i], &err), CS_OK);
        StopAfter c = {.after = -1};
        csReporter rep = {.report = countReport, .ctx = &c};
        assert_int_equal(cs_simRun(s, ends[j], &rep, &err), CS_OK);
        double n = cs_reportCount(starts[i], ends[j], intervals[k]);
        if (n != c.reports) {
          fail_msg("from %.17g to %.17g every %g: %d reports, cs_reportCount %g", starts[i],
                   ends[j], intervals[k], c.reports, n);
        }
        cs_deleteSimulation(s);
      }
    }
  }
  // far from t = 0, where 1e-12 of 1 + t spans many report intervals, every grid point is a
  // report (the ends' slack is at most a quarter interval: from 1e8 s, 100 reports of 1 us made
  // 2), and the count says so
  const double far[] = {1e5, 1e6, 1e8, 1e9};
  for (int i = 0; i < 4; i++) {
    for (double ri = 1e-6; ri < 2e-4; ri *= 100) {
      csSimulation* s = newSim(m);
      csSimOptions o = cs_simOptions(s);
      o.report_interval = ri;
      assert_int_equal(cs_simSetOptions(s, &o, &err), CS_OK);
      assert_int_equal(cs_simSetTime(s, far[i], &err), CS_OK);
      StopAfter c = {.after = -1};
      csReporter rep = {.report = countReport, .ctx = &c};
      assert_int_equal(cs_simRun(s, far[i] + 100 * ri, &rep, &err), CS_OK);
      double n = cs_reportCount(far[i], far[i] + 100 * ri, ri);
      if (c.reports != 101 || n != 101) {
        fail_msg("from %g s, 100 intervals of %g s: %d reports, cs_reportCount %g", far[i], ri,
                 c.reports, n);
      }
      cs_deleteSimulation(s);
    }
  }
  // and where the interval is a few units in the last place of the time, the run and the count
  // agree
  {
    csSimulation* s = newSim(m);
    csSimOptions o = cs_simOptions(s);
    o.report_interval = 1e-9;
    assert_int_equal(cs_simSetOptions(s, &o, &err), CS_OK);
    assert_int_equal(cs_simSetTime(s, 1e5, &err), CS_OK);
    StopAfter c = {.after = -1};
    csReporter rep = {.report = countReport, .ctx = &c};
    assert_int_equal(cs_simRun(s, 1e5 + 1e-6, &rep, &err), CS_OK);
    double n = cs_reportCount(1e5, 1e5 + 1e-6, 1e-9);
    if (n != c.reports) {
      fail_msg("from 1e5 s every 1e-9 s: %d reports, cs_reportCount %g", c.reports, n);
    }
    cs_deleteSimulation(s);
  }
  assert_true(cs_reportCount(0, 1, 0.01) == 101);
  assert_true(cs_reportCount(2, 2, 0.01) == 1);
  assert_true(cs_reportCount(1e300, 1e300, 0.01) == 1);
  th_assertClose(cs_reportCount(0, 1e9, 1e-9), 1e18, 1e-5, 0, "a count beyond 2^53");
  assert_true(cs_reportCount(0, 1, 0) == INFINITY);
  cs_deleteModel(m);
}


// cs_simRunCsv on a file that stops growing (a file-size limit fails the write that crosses it
// after taking what fits, as a full disk does): CS_ERR_IO, and the file ends with a complete row
static void test_csv_cut_at_a_full_disk(void** state) {
  (void)state;
  csModel* m = th_loadString(
      "{\"bodies\": [{\"name\": \"ball\", \"mass\": 1, \"inertia\": {\"sphere\": 0.1},\n"
      "   \"joint\": {\"type\": \"free\", \"initial\": {\"velocity\": [1, 0, 2]}}}],\n"
      " \"simulation\": {\"duration\": 10, \"report_interval\": 0.001}}\n");
  char path[PATH_MAX_TEST];
  scratch(path, "full.csv");
  struct rlimit old, small;
  assert_int_equal(getrlimit(RLIMIT_FSIZE, &old), 0);
  small = old;
  small.rlim_cur = 20000;
  void (*oldHandler)(int) = signal(SIGXFSZ, SIG_IGN);
  assert_int_equal(setrlimit(RLIMIT_FSIZE, &small), 0);
  csSimulation* s = newSim(m);
  csError err;
  int status = cs_simRunCsv(s, 10.0, path, NULL, &err);
  setrlimit(RLIMIT_FSIZE, &old);
  signal(SIGXFSZ, oldHandler);
  assert_int_equal(status, CS_ERR_IO);
  assert_string_equal(err.file, path);
  FILE* f = fopen(path, "rb");
  assert_non_null(f);
  char text[20001];
  size_t n = fread(text, 1, sizeof(text) - 1, f);
  fclose(f);
  text[n] = 0;
  assert_true(n > 1000 && n <= 20000);
  assert_true(text[n - 1] == '\n');
  // every line has the header's number of fields
  int fields = -1, lines = 0;
  for (char* line = strtok(text, "\n"); line; line = strtok(NULL, "\n"), lines++) {
    int k = 1;
    for (char* c = line; *c; c++) {
      k += *c == ',';
    }
    if (fields < 0) {
      fields = k;
    }
    assert_int_equal(k, fields);
  }
  assert_true(lines > 10);
  remove(path);
  cs_deleteSimulation(s);
  cs_deleteModel(m);
}


// options no run can use are refused, with their name
static void test_unusable_options(void** state) {
  (void)state;
  csModel* m = th_loadString(
      "{\"bodies\": [{\"name\": \"ball\", \"mass\": 1, \"inertia\": {\"sphere\": 0.1},\n"
      "   \"joint\": {\"type\": \"free\"}}]}\n");
  const char* names[] = {"duration", "rtol", "atol", "max_step", "initial_step",
                         "report_interval", "report_interval"};
  for (int i = 0; i < 7; i++) {
    csSimOptions o = cs_defaultSimOptions();
    double* field[] = {&o.duration, &o.rtol, &o.atol, &o.max_step, &o.initial_step,
                       &o.report_interval, &o.report_interval};
    *field[i] = i == 6 ? 1e-12 : INFINITY;
    csError err;
    assert_null(cs_newSimulation(m, &o, &err));
    assert_int_equal(err.code, CS_ERR_INPUT);
    if (!strstr(err.message, names[i])) {
      fail_msg("option %d: '%s' does not name %s", i, err.message, names[i]);
    }
  }
  // enumerations out of range, at creation and later: a linear solver of 9 had put the model
  // into one system, unchecked
  for (int i = 0; i < 4; i++) {
    csSimOptions o = cs_defaultSimOptions();
    if (i < 2) {
      o.linsol = (csLinearSolver)(i ? -1 : CS_LINSOL_COUNT);
    } else {
      o.integrator = (csIntegratorType)(i == 3 ? -1 : CS_INTEGRATOR_COUNT);
    }
    csError err;
    assert_null(cs_newSimulation(m, &o, &err));
    assert_non_null(strstr(err.message, i < 2 ? "linear_solver" : "integrator"));
    csSimulation* s = cs_newSimulation(m, NULL, &err);
    assert_non_null(s);
    assert_int_equal(cs_simSetOptions(s, &o, &err), CS_ERR_INPUT);
    cs_deleteSimulation(s);
  }
  // a negative row limit (0 is a zeroed struct's: the default)
  {
    csSimOptions o = cs_defaultSimOptions();
    o.max_rows = -5;
    csError err;
    assert_null(cs_newSimulation(m, &o, &err));
    assert_non_null(strstr(err.message, "max_rows"));
    csSimulation* s = cs_newSimulation(m, NULL, &err);
    assert_int_equal(cs_simSetOptions(s, &o, &err), CS_ERR_INPUT);
    o.max_rows = 0;
    assert_int_equal(cs_simSetOptions(s, &o, &err), CS_OK);
    cs_deleteSimulation(s);
  }
  cs_deleteModel(m);
}


// The discrete state set as a whole is checked as a whole, as the loaders check it: values the
// elements' rules would move (a stop's lower bound above its upper one, mu_dynamic above
// mu_static) are refused, and the state is left as it was; values that agree are taken as given
// The documented recovery from a failure: set a good state back and go on. The state before
// that edit is the failed try's, whose energy means nothing (here not finite): the balance goes
// on from where it stood at the last report, so an accurate run after the recovery reads a small
// energy_error (it read 1e235). The failure, of forces that are not finite, is not blamed on
// the exponential springs' anchor rule.
static void test_energy_error_after_a_recovery(void** state) {
  (void)state;
  csModel* m = th_loadFile("scenes/exp_spring_block.json");
  csSimOptions o = cs_modelOptions(m);
  csError err;
  csSimulation* s = cs_newSimulation(m, &o, &err);
  assert_non_null(s);
  assert_int_equal(cs_simAdvanceTo(s, 0.2, &err), CS_OK);
  double saved[5][64];
  int len[5];
  for (int k = 0; k < 5; k++) {
    len[k] = cs_simGetState(s, (csStateKind)k, saved[k], 64);
    assert_true(len[k] >= 0 && len[k] <= 64);
  }
  double u[64];
  for (int i = 0; i < len[CS_STATE_U]; i++) {
    u[i] = saved[CS_STATE_U][i] * 1e100 + 1e100;
  }
  assert_int_equal(cs_simSetState(s, CS_STATE_U, u, len[CS_STATE_U], &err), CS_OK);
  assert_int_equal(cs_simAdvanceTo(s, 0.3, &err), CS_ERR_SOLVER);
  assert_null(strstr(err.message, "blended anchor rule"));
  // every advance is refused from then on, the error at the failure's time
  double failedAt = err.time;
  assert_true(failedAt >= 0.2 && failedAt < 0.3);
  assert_int_equal(cs_simStep(s, &err), CS_ERR_SOLVER);
  assert_non_null(strstr(err.message, "the simulation failed at t = "));
  assert_true(err.time == cs_simTime(s) && fabs(err.time - failedAt) < 1e-9);
  for (int k = 0; k < 5; k++) {
    assert_int_equal(cs_simSetState(s, (csStateKind)k, saved[k], len[k], &err), CS_OK);
  }
  assert_int_equal(cs_simAdvanceTo(s, 0.5, &err), CS_OK);
  csRunStatistics st;
  cs_simStatistics(s, &st);
  print_message("energy_error after the recovery: %.3g\n", st.energy_error);
  assert_true(st.energy_error < 1e-3);
  cs_deleteSimulation(s);
  cs_deleteModel(m);
}


static void test_discrete_state_checked_together(void** state) {
  (void)state;
  csModel* m = th_loadFile("scenes/pendulum_stop.json");
  csSimulation* s = newSim(m);
  csError err;
  int n = cs_simGetState(s, CS_STATE_DISCRETE, NULL, 0);
  assert_true(n >= 2 && n <= 16);
  int adr = -1;
  for (int e = 0; e < cs_modelCount(m, CS_COUNT_FORCE) && adr < 0; e++) {
    int a, num;
    if (cs_modelForceState(m, e, CS_STATE_DISCRETE, &a, &num) == 0 && num == 4) {
      adr = a;  // the stop: lower, upper, stiffness, dissipation
    }
  }
  assert_true(adr >= 0);
  double before[16], d[16], after[16];
  cs_simGetState(s, CS_STATE_DISCRETE, before, n);
  memcpy(d, before, sizeof(double) * (size_t)n);
  d[adr] = 1.0;
  d[adr + 1] = 0.5;
  assert_int_equal(cs_simStateProblem(s, CS_STATE_DISCRETE, d, n, &err), CS_ERR_INPUT);
  assert_int_equal(cs_simSetState(s, CS_STATE_DISCRETE, d, n, &err), CS_ERR_INPUT);
  assert_non_null(strstr(err.message, "contradict"));
  cs_simGetState(s, CS_STATE_DISCRETE, after, n);
  assert_memory_equal(after, before, sizeof(double) * (size_t)n);
  d[adr] = -0.25;
  d[adr + 1] = 0.75;
  assert_int_equal(cs_simSetState(s, CS_STATE_DISCRETE, d, n, &err), CS_OK);
  cs_simGetState(s, CS_STATE_DISCRETE, after, n);
  assert_memory_equal(after, d, sizeof(double) * (size_t)n);
  // a bound left out is -inf below and +inf above; the other infinity is no bound a scene could
  // give (a lower bound at +inf held the stop against every angle), refused alone or both
  int stop = cs_forceId(m, "stop");
  assert_int_equal(cs_simSetDiscrete(s, stop, "lower_bound", INFINITY, &err), CS_ERR_INPUT);
  assert_non_null(strstr(err.message, "lower_bound of 'stop' must be finite (or -inf"));
  assert_int_equal(cs_simSetDiscrete(s, stop, "upper_bound", -INFINITY, &err), CS_ERR_INPUT);
  d[adr] = -INFINITY;
  d[adr + 1] = -INFINITY;
  assert_int_equal(cs_simSetState(s, CS_STATE_DISCRETE, d, n, &err), CS_ERR_INPUT);
  d[adr + 1] = INFINITY;
  assert_int_equal(cs_simSetState(s, CS_STATE_DISCRETE, d, n, &err), CS_OK);
  assert_int_equal(cs_simAdvanceTo(s, 0.1, &err), CS_OK);
  cs_deleteSimulation(s);
  cs_deleteModel(m);
}


// A speed set by hand puts energy into the system that no integration error made: the energy
// balance measures from the edited state on. The undamped pendulum at tight tolerances keeps
// KE + PE to 1e-6 of its scale before and after the edit, and energy_error says so, while
// energy_initial stays the energy at the start
static void test_energy_error_ignores_edits(void** state) {
  (void)state;
  csModel* m = th_loadFile("scenes/pendulum.json");
  csSimOptions o = cs_modelOptions(m);
  o.rtol = 1e-10;
  o.atol = 1e-12;
  csError err;
  csSimulation* s = cs_newSimulation(m, &o, &err);
  assert_non_null(s);
  assert_int_equal(cs_simAdvanceTo(s, 0.5, &err), CS_OK);
  double ke0, pe0;
  cs_simEnergy(s, &ke0, &pe0, NULL);
  double u = 2.0;
  assert_int_equal(cs_simSetState(s, CS_STATE_U, &u, 1, &err), CS_OK);
  double ke1, pe1;
  cs_simEnergy(s, &ke1, &pe1, NULL);
  assert_true(ke1 + pe1 > ke0 + pe0 + 0.1);
  assert_int_equal(cs_simAdvanceTo(s, 2.0, &err), CS_OK);
  double ke2, pe2;
  cs_simEnergy(s, &ke2, &pe2, NULL);
  th_assertClose(ke2 + pe2, ke1 + pe1, 0, 1e-6, "KE + PE after the edit");
  csRunStatistics st;
  cs_simStatistics(s, &st);
  assert_true(st.energy_error < 1e-6);
  assert_true(fabs(st.energy_initial - (ke0 + pe0)) < 1e-6);
  cs_deleteSimulation(s);
  cs_deleteModel(m);
}


// what a caller can get wrong, each refused with a message (or ignored where documented as
// nullable) rather than a crash, a hang or a wrong result
static void test_misuse_is_refused(void** state) {
  (void)state;
  static const char* const BALL =
      "{\"bodies\": [{\"name\": \"ball\", \"mass\": 1, \"inertia\": {\"sphere\": 0.1},\n"
      "   \"joint\": {\"type\": \"free\", \"initial\": {\"position\": [0, 0, 1],\n"
      "   \"velocity\": [0.5, 0, 0]}}}]}\n";
  csError err;
  // override lists: a negative count, a count without the array, a NULL key
  csOverride o = {"bodies.ball.mass", "2"};
  csLoadOptions lo = {.overrides = &o, .noverrides = -1};
  assert_null(cs_loadSceneString(BALL, "a.json", &lo, &err));
  assert_int_equal(err.code, CS_ERR_INPUT);
  lo = (csLoadOptions){.overrides = NULL, .noverrides = 2};
  assert_null(cs_loadSceneString(BALL, "a.json", &lo, &err));
  assert_int_equal(err.code, CS_ERR_INPUT);
  csOverride nokey = {NULL, "1"};
  lo = (csLoadOptions){.overrides = &nokey, .noverrides = 1};
  assert_null(cs_loadSceneString(BALL, "a.json", &lo, &err));
  assert_non_null(strstr(err.message, "needs a key path"));

  csModel* m = th_loadString(BALL);
  // lookups by no name, outputs that are not wanted
  assert_int_equal(cs_bodyId(m, NULL), -1);
  assert_int_equal(cs_forceId(m, NULL), -1);
  assert_int_equal(cs_planeId(m, NULL), -1);
  cs_modelGravity(m, NULL);
  // options the loader would refuse: a largest step too small to move the time
  csSimOptions opt = cs_defaultSimOptions();
  opt.max_step = 1e-300;
  assert_null(cs_newSimulation(m, &opt, &err));
  assert_non_null(strstr(err.message, "max_step"));
  csSimulation* s = newSim(m);
  assert_int_equal(cs_simSetOptions(s, NULL, &err), CS_ERR_INPUT);
  assert_int_equal(cs_simBodyCom(s, 1, NULL), 0);
  assert_int_equal(cs_simContact(s, 0, NULL), -1);
  // no values for a part of the state, of length 0 or not
  assert_int_equal(cs_simSetState(s, CS_STATE_AUTO, NULL, 0, &err), CS_OK);
  assert_int_equal(cs_simSetState(s, CS_STATE_Q, NULL, 7, &err), CS_ERR_INPUT);
  assert_non_null(strstr(err.message, "no values"));

  // quaternions of any length are normalized (header: "quaternions are normalized"); lengths
  // whose squares overflow or underflow too
  const double lengths[4] = {3.0, 1e200, 1e-170, 1.7e308};
  for (int k = 0; k < 4; k++) {
    double q[7] = {lengths[k], lengths[k], 0, 0, 0, 0, 1.1};
    assert_int_equal(cs_simSetState(s, CS_STATE_Q, q, 7, &err), CS_OK);
    const double* got = cs_simState(s, CS_STATE_Q);
    th_assertClose(got[0], sqrt(0.5), 1e-15, 0, "q0 normalized");
    th_assertClose(got[1], sqrt(0.5), 1e-15, 0, "q1 normalized");
  }
  // and the run goes on (a quaternion of length 3 made the next advance fail)
  assert_int_equal(cs_simAdvanceTo(s, 0.1, &err), CS_OK);
  cs_deleteSimulation(s);

  // a failed advance leaves its last accepted state, not its failed try: here the state set
  // before it, which is finite and saves (a state that is not finite does not)
  s = newSim(m);
  double u[6] = {0, 0, 0, 1e150, 0, 0};
  assert_int_equal(cs_simSetState(s, CS_STATE_U, u, 6, &err), CS_OK);
  assert_int_equal(cs_simAdvanceTo(s, 0.1, &err), CS_ERR_SOLVER);
  assert_true(cs_simTime(s) == 0 && cs_simState(s, CS_STATE_U)[3] == 1e150);
  char file[PATH_MAX_TEST];
  scratch(file, "failed.state");
  assert_int_equal(cs_simSaveState(s, file, &err), CS_OK);
  unlink(file);
  cs_simData(s)->u[3] = NAN;
  assert_int_equal(cs_saveState(m, cs_simData(s), file, &err), CS_ERR_INPUT);
  assert_non_null(strstr(err.message, "not finite"));
  assert_int_equal(access(file, F_OK), -1);
  char* text = (char*)"untouched";
  assert_int_equal(cs_simSaveStateText(s, &text, NULL, &err), CS_ERR_INPUT);
  assert_non_null(strstr(err.message, "not finite"));
  assert_null(text);
  cs_deleteSimulation(s);

  // times so large that the steps are lost in rounding: an error, not a run that stands still
  // or a report loop that never ends
  s = newSim(m);
  assert_int_equal(cs_simSetTime(s, 1e12, &err), CS_OK);
  assert_int_equal(cs_simStep(s, &err), CS_ERR_SOLVER);
  assert_non_null(strstr(err.message, "lost in rounding"));
  cs_deleteSimulation(s);
  // at 1e14 s CVODE took its stop time, 1 s on, as reached after one step of 5e-5 s (within its
  // rounding there, 2.2 s): the ball had moved 2.4e-5 m of its 0.5 m, and the advance said CS_OK
  s = newSim(m);
  assert_int_equal(cs_simSetTime(s, 1e14, &err), CS_OK);
  assert_int_equal(cs_simAdvanceTo(s, 1e14 + 1, &err), CS_ERR_SOLVER);
  assert_non_null(strstr(err.message, "lost in rounding"));
  cs_deleteSimulation(s);
  // while at 1e6 s (doubles 1.2e-10 s apart) the same second of flight is right
  s = newSim(m);
  assert_int_equal(cs_simSetTime(s, 1e6, &err), CS_OK);
  assert_int_equal(cs_simAdvanceTo(s, 1e6 + 1, &err), CS_OK);
  double p[3];
  cs_simBodyPose(s, 1, p, NULL);
  th_assertClose(p[0], 0.5, 1e-6, 0, "x after 1 s at 0.5 m/s");
  cs_deleteSimulation(s);
  opt = cs_defaultSimOptions();
  opt.report_interval = 1e-9;
  s = cs_newSimulation(m, &opt, &err);
  assert_non_null(s);
  assert_int_equal(cs_simSetTime(s, 1e7, &err), CS_OK);
  scratch(file, "far.csv");
  assert_int_not_equal(cs_simRunCsv(s, 1e7 + 1e-8, file, NULL, &err), CS_OK);
  assert_non_null(strstr(err.message, "2^52"));
  unlink(file);
  cs_deleteSimulation(s);
  cs_deleteModel(m);
}


// A run over no time is one report, whatever the time: at 1e14 s (1e16 report intervals of
// 0.01 s from 0, more than doubles count) the search for the first report time after the start
// never ended, and no stop flag reached it. The alarm ends the test should it hang again.
static void test_run_over_no_time_far_from_zero(void** state) {
  (void)state;
  csModel* m = th_loadFile("scenes/pendulum.json");
  csError err;
  const double times[] = {0, 1e12, 1e14, 1e15, 1e300};
  char file[PATH_MAX_TEST];
  scratch(file, "no_time.csv");
  alarm(60);
  for (int i = 0; i < 5; i++) {
    csSimulation* s = newSim(m);
    assert_int_equal(cs_simSetTime(s, times[i], &err), CS_OK);
    StopAfter c = {.after = -1};
    csReporter rep = {.report = countReport, .ctx = &c};
    assert_int_equal(cs_simRun(s, times[i], &rep, &err), CS_OK);
    assert_int_equal(c.reports, 1);
    assert_true(c.last == times[i] && cs_simTime(s) == times[i]);
    assert_true(cs_reportCount(times[i], times[i], 0.01) == 1);
    // the CSV: the header and that one row
    assert_int_equal(cs_simRunCsv(s, times[i], file, NULL, &err), CS_OK);
    FILE* f = fopen(file, "r");
    assert_non_null(f);
    int lines = 0;
    for (int ch = fgetc(f); ch != EOF; ch = fgetc(f)) {
      lines += ch == '\n';
    }
    fclose(f);
    assert_int_equal(lines, 2);
    cs_deleteSimulation(s);
  }
  alarm(0);
  unlink(file);
  cs_deleteModel(m);
}


// Far from 0 every integrator's step and advance end in the rounding message, not in one that
// blames the forces: at 1e14 s (doubles 0.0156 s apart) a step said "the step size collapsed
// to h = 0 s ... the forces probably jump" (CVODE refused the first step's hint, t + 0.002 s =
// t, as a stop time behind t), an advance by 0.01 s the same (CV_TOO_CLOSE), and rk, rk23 and
// ark said so for every call (their first step is below the round-off of t)
static void test_far_from_zero_steps_are_lost_in_rounding(void** state) {
  (void)state;
  csModel* m = th_loadFile("scenes/sphere_drop.json");
  const char* names[] = CS_INTEGRATOR_NAMES;
  const double far[] = {1e12, 1e14, 1e17};
  csError err;
  for (int k = 0; k < CS_INTEGRATOR_COUNT; k++) {
    csSimOptions opt = cs_modelOptions(m);
    opt.integrator = (csIntegratorType)k;
    for (int i = 0; i < 3; i++) {
      for (int call = 0; call < 3; call++) {
        csSimulation* s = cs_newSimulation(m, &opt, &err);
        assert_non_null(s);
        double t = far[i];
        assert_int_equal(cs_simSetTime(s, t, &err), CS_OK);
        double p0[3];
        cs_simBodyPose(s, 1, p0, NULL);
        int status = call == 0   ? cs_simStep(s, &err)
                     : call == 1 ? cs_simAdvanceTo(s, nextafter(t, INFINITY), &err)
                                 : cs_simAdvanceTo(s, t + fmax(1.0, 1e3 * DBL_EPSILON * t), &err);
        if (status != CS_ERR_SOLVER || !strstr(err.message, "lost in rounding") ||
            strstr(err.message, "forces")) {
          fail_msg("%s at t = %g, %s: status %d, %s", names[k], t,
                   call == 0   ? "a step"
                   : call == 1 ? "an advance by one double"
                               : "by 1 s or more",
                   status, err.message);
        }
        assert_true(err.time == t);
        // the step lost in rounding is not taken: time and state stand where they stood (CVODE
        // took a step of 5e-6 s as reaching its stop 1 s on, and the state it moved by that
        // step was left labelled with the stop's time)
        double p[3];
        cs_simBodyPose(s, 1, p, NULL);
        if (cs_simTime(s) != t || p[0] != p0[0] || p[1] != p0[1] || p[2] != p0[2]) {
          fail_msg("%s at t = %g: after the failure t = %.17g, the ball moved by (%g, %g, %g)",
                   names[k], t, cs_simTime(s), p[0] - p0[0], p[1] - p0[1], p[2] - p0[2]);
        }
        cs_deleteSimulation(s);
      }
    }
  }
  cs_deleteModel(m);
}


// Near 0 an advance by a few doubles is made by every integrator, as a loop over computed times
// asks for (advance_to(0.3), then to 3 * 0.1 = 0.30000000000000004): rk, rk23 and ark refused
// it as a step lost in rounding and left the simulation failed, and CVODE refused it before its
// first step (CV_TOO_CLOSE), while once started it took it. The box is thrown up and falls
// freely, so after it, and after an ordinary advance on from there, its centre stands where
// z0 + v0 t - g t^2 / 2 puts it.
static void test_advance_by_a_few_doubles(void** state) {
  (void)state;
  csModel* m = th_loadFile("scenes/free_fall.json");
  const char* names[] = CS_INTEGRATOR_NAMES;
  csError err;
  double z0[3], w0[3], v0[3];
  {
    csSimulation* s = cs_newSimulation(m, NULL, &err);
    cs_simBodyPose(s, 1, z0, NULL);
    cs_simBodyVelocity(s, 1, w0, v0);
    cs_deleteSimulation(s);
  }
  for (int k = 0; k < CS_INTEGRATOR_COUNT; k++) {
    csSimOptions opt = cs_modelOptions(m);
    opt.integrator = (csIntegratorType)k;
    opt.rtol = opt.atol = 1e-9;
    for (int fresh = 0; fresh < 2; fresh++) {
      for (int ulps = 1; ulps <= 40; ulps *= 3) {
        csSimulation* s = cs_newSimulation(m, &opt, &err);
        assert_non_null(s);
        if (fresh) {
          // from a time set, before any step; the state stays the one at t = 0
          assert_int_equal(cs_simSetTime(s, 0.3, &err), CS_OK);
        } else {
          assert_int_equal(cs_simAdvanceTo(s, 0.3, &err), CS_OK);
        }
        double t = 0.3;
        for (int i = 0; i < ulps; i++) {
          t = nextafter(t, 1);
        }
        double before[3], p[3];
        cs_simBodyPose(s, 1, before, NULL);
        int status = cs_simAdvanceTo(s, t, &err);
        if (status != CS_OK) {
          fail_msg("%s, %s, by %d doubles: %s", names[k], fresh ? "fresh" : "after steps", ulps,
                   err.message);
        }
        assert_true(cs_simTime(s) == t);
        // the time moved by at most 27 doubles (1.5e-15 s): the box by far less than a nanometre
        cs_simBodyPose(s, 1, p, NULL);
        assert_true(fabs(p[2] - before[2]) < 1e-12);
        // and on from there with ordinary steps
        assert_int_equal(cs_simAdvanceTo(s, 0.5, &err), CS_OK);
        cs_simBodyPose(s, 1, p, NULL);
        double tau = fresh ? 0.2 : 0.5;  // the time in flight (fresh: from 0.3 s)
        double z = z0[2] + v0[2] * tau - 9.81 * tau * tau / 2;
        if (fabs(p[2] - z) > 1e-6) {
          fail_msg("%s, %s, by %d doubles: z = %.9g at 0.5 s, %.9g expected", names[k],
                   fresh ? "fresh" : "after steps", ulps, p[2], z);
        }
        cs_deleteSimulation(s);
      }
    }
  }
  cs_deleteModel(m);
  // a block held by its exponential springs' friction on an incline: an advance of one double
  // committed the anchors over a step of 5.6e-17 s, read their rounding-sized moves as a huge
  // speed and set the springs sliding (rk and ark: the block slid 5 cm by 1.9 s; BDF, Adams
  // and rk23 0.6-0.8 mm). Short advances must change nothing beyond the tolerance's noise: the
  // block ends where a run without them does
  m = th_loadFile("scenes/exp_spring_incline.json");
  for (int k = 0; k < CS_INTEGRATOR_COUNT; k++) {
    csSimOptions opt = cs_modelOptions(m);
    opt.integrator = (csIntegratorType)k;
    csSimulation* a = cs_newSimulation(m, &opt, &err);
    csSimulation* b = cs_newSimulation(m, &opt, &err);
    assert_int_equal(cs_simAdvanceTo(a, 0.3, &err), CS_OK);
    assert_int_equal(cs_simAdvanceTo(b, 0.3, &err), CS_OK);
    // one double on, then 7e-15 s (126 doubles: a commit over it read the anchors' rounding as
    // sliding too), then 121 advances of one double each
    assert_int_equal(cs_simAdvanceTo(b, nextafter(0.3, 1), &err), CS_OK);
    assert_int_equal(cs_simAdvanceTo(b, cs_simTime(b) + 7e-15, &err), CS_OK);
    for (int i = 0; i < 121; i++) {
      assert_int_equal(cs_simAdvanceTo(b, nextafter(cs_simTime(b), 1), &err), CS_OK);
    }
    assert_int_equal(cs_simAdvanceTo(a, 1.9, &err), CS_OK);
    assert_int_equal(cs_simAdvanceTo(b, 1.9, &err), CS_OK);
    double pa[3], pb[3];
    cs_simBodyPose(a, 1, pa, NULL);
    cs_simBodyPose(b, 1, pb, NULL);
    double gap = sqrt((pa[0] - pb[0]) * (pa[0] - pb[0]) + (pa[1] - pb[1]) * (pa[1] - pb[1]) +
                      (pa[2] - pb[2]) * (pa[2] - pb[2]));
    if (!(gap < 1e-8)) {
      fail_msg("%s: the block ends %.3g m from where it ends without the short advances",
               names[k], gap);
    }
    cs_deleteSimulation(a);
    cs_deleteSimulation(b);
  }
  cs_deleteModel(m);
}


// a block at rest on exponential springs, stepped one step at a time with no end in sight:
// BDF's steps grow to minutes (138 s at t = 247 s), and the step after the longest failed its
// error test down to 1 ms, ending the run at t = 385 s, unless CVODE is restarted there
static void test_step_loop_after_a_long_rest(void** state) {
  (void)state;
  csModel* m = th_loadFile("scenes/exp_spring_block.json");
  csSimulation* s = newSim(m);
  csError err;
  assert_int_equal(cs_simAdvanceTo(s, 0.5, &err), CS_OK);
  while (cs_simTime(s) < 1000) {
    int status = cs_simStep(s, &err);
    if (status != CS_OK) {
      fail_msg("t = %g s: %s", cs_simTime(s), err.message);
    }
  }
  // at rest where a simulation advanced to t = 1000 s in one call rests (held by its anchors)
  double p[3], w[3], v[3], pref[3];
  cs_simBodyPose(s, 1, p, NULL);
  cs_simBodyVelocity(s, 1, w, v);
  csSimulation* ref = newSim(m);
  assert_int_equal(cs_simAdvanceTo(ref, 1000, &err), CS_OK);
  cs_simBodyPose(ref, 1, pref, NULL);
  for (int i = 0; i < 3; i++) {
    th_assertClose(p[i], pref[i], 0, 1e-6, "the resting position");
    assert_true(fabs(v[i]) < 1e-9 && fabs(w[i]) < 1e-9);
  }
  cs_deleteSimulation(ref);
  cs_deleteSimulation(s);
  cs_deleteModel(m);
}


// two simulations in two threads share nothing: each ends exactly where a run alone ends
typedef struct ThreadRun {
  const csModel* m;
  double q[7];
  int status;
} ThreadRun;


static void* runInThread(void* arg) {
  ThreadRun* r = arg;
  csError err;
  csSimulation* s = cs_newSimulation(r->m, NULL, &err);
  r->status = s ? cs_simAdvanceTo(s, 0.6, &err) : CS_ERR_MEMORY;
  if (s) {
    cs_simGetState(s, CS_STATE_Q, r->q, 7);
  }
  cs_deleteSimulation(s);
  return NULL;
}


static void test_threads_share_nothing(void** state) {
  (void)state;
  csModel* m = th_loadFile("scenes/sphere_drop.json");
  ThreadRun alone = {.m = m};
  runInThread(&alone);
  assert_int_equal(alone.status, CS_OK);
  ThreadRun r[2] = {{.m = m}, {.m = m}};
  pthread_t th[2];
  for (int i = 0; i < 2; i++) {
    assert_int_equal(pthread_create(&th[i], NULL, runInThread, &r[i]), 0);
  }
  for (int i = 0; i < 2; i++) {
    pthread_join(th[i], NULL);
    assert_int_equal(r[i].status, CS_OK);
    assert_memory_equal(r[i].q, alone.q, sizeof(alone.q));
  }
  cs_deleteModel(m);
}


// threads saving checkpoints to one path at once: each save whole (they shared one temporary
// file, named by the process alone: saves failed, and the file left could be no one's)
typedef struct ThreadSave {
  const csModel* m;
  const char* path;
  double t;  // where this thread's simulation stands when it saves
  int failures;
} ThreadSave;


static void* saveInThread(void* arg) {
  ThreadSave* r = arg;
  csError err;
  csSimulation* s = cs_newSimulation(r->m, NULL, &err);
  if (!s || cs_simAdvanceTo(s, r->t, &err) != CS_OK) {
    r->failures = -1;
  }
  for (int k = 0; s && r->failures >= 0 && k < 100; k++) {
    r->failures += cs_simSaveState(s, r->path, &err) != CS_OK;
  }
  cs_deleteSimulation(s);
  return NULL;
}


static void test_threads_save_to_one_path(void** state) {
  (void)state;
  csModel* m = th_loadFile("scenes/sphere_drop.json");
  char path[PATH_MAX_TEST];
  scratch(path, "shared.state");
  ThreadSave r[4];
  pthread_t th[4];
  for (int i = 0; i < 4; i++) {
    r[i] = (ThreadSave){.m = m, .path = path, .t = 0.1 * (i + 1)};
    assert_int_equal(pthread_create(&th[i], NULL, saveInThread, &r[i]), 0);
  }
  for (int i = 0; i < 4; i++) {
    pthread_join(th[i], NULL);
    assert_int_equal(r[i].failures, 0);
  }
  // the file is one thread's whole checkpoint
  csError err;
  csSimulation* s = newSim(m);
  assert_int_equal(cs_simLoadState(s, path, &err), CS_OK);
  double t = cs_simTime(s);
  assert_true(t == 0.1 || t == 0.2 || t == 0.1 * 3 || t == 0.4);
  cs_deleteSimulation(s);
  cs_deleteModel(m);
}


// ---------------------------------------------------------------------------------------------
// checkpoints

static void test_checkpoint_continues(void** state) {
  (void)state;
  csModel* m = th_loadFile("scenes/exp_spring_incline.json");
  char path[PATH_MAX_TEST];
  scratch(path, "incline.state");
  csError err;
  // the uninterrupted run, with a checkpoint at 2.5 s (sliding, after the scheduled change)
  csSimulation* a = newSim(m);
  assert_int_equal(cs_simAdvanceTo(a, 2.5, &err), CS_OK);
  assert_int_equal(cs_simSaveState(a, path, &err), CS_OK);
  int nd = cs_modelCount(m, CS_COUNT_DISCRETE), na = cs_modelCount(m, CS_COUNT_AUTO);
  int nq = cs_modelCount(m, CS_COUNT_Q), nz = cs_modelCount(m, CS_COUNT_Z);
  double disc[64], autov[64], q[64], z[64];
  assert_true(nd <= 64 && na <= 64 && nq <= 64 && nz <= 64);
  cs_simGetState(a, CS_STATE_DISCRETE, disc, 64);
  cs_simGetState(a, CS_STATE_AUTO, autov, 64);
  cs_simGetState(a, CS_STATE_Q, q, 64);
  cs_simGetState(a, CS_STATE_Z, z, 64);
  assert_int_equal(cs_simAdvanceTo(a, 4.0, &err), CS_OK);

  // the continued run: the state exactly as saved, the time too
  csSimulation* b = newSim(m);
  assert_int_equal(cs_simLoadState(b, path, &err), CS_OK);
  assert_true(cs_simTime(b) == 2.5);
  assert_memory_equal(cs_simState(b, CS_STATE_DISCRETE), disc, sizeof(double) * (size_t)nd);
  assert_memory_equal(cs_simState(b, CS_STATE_AUTO), autov, sizeof(double) * (size_t)na);
  assert_memory_equal(cs_simState(b, CS_STATE_Q), q, sizeof(double) * (size_t)nq);
  assert_memory_equal(cs_simState(b, CS_STATE_Z), z, sizeof(double) * (size_t)nz);
  // the anchors and Sliding are in the auto-update values; friction 0.2 after the change
  assert_true(disc[0] == 0.2);
  assert_int_equal(cs_simAdvanceTo(b, 4.0, &err), CS_OK);
  // the same end state to the integration tolerance (rtol 1e-6 over 1.5 s of sliding)
  double pa[3], pb[3];
  cs_simBodyPose(a, 1, pa, NULL);
  cs_simBodyPose(b, 1, pb, NULL);
  for (int i = 0; i < 3; i++) {
    th_assertClose(pb[i], pa[i], 0, 1e-5, "continued run's block position");
  }
  double va[3], vb[3];
  cs_simBodyVelocity(a, 1, NULL, va);
  cs_simBodyVelocity(b, 1, NULL, vb);
  for (int i = 0; i < 3; i++) {
    th_assertClose(vb[i], va[i], 0, 1e-5, "continued run's block velocity");
  }
  // the scheduled change at 2 s lies before the checkpoint: not replayed, still in effect
  assert_true(cs_simState(b, CS_STATE_DISCRETE)[0] == 0.2);
  // statistics of the continued run start at the checkpoint
  csRunStatistics st;
  cs_simStatistics(b, &st);
  assert_true(st.t_start == 2.5);
  cs_deleteSimulation(a);
  cs_deleteSimulation(b);
  cs_deleteModel(m);
  remove(path);
}


// a checkpoint of the same scene with another friction coefficient loads (parameters are not
// part of the fingerprint); one of another scene, of another version or malformed does not, and
// leaves the simulation as it was
// What a reporter's callbacks may do: read the simulation, not change it. Each call that
// would change the advance in progress (free or restart the integrator calling back, move the
// time it integrates from) is refused with CS_ERR_INPUT, cs_simReset does nothing, and the run
// ends where it was asked to, on the parabola.
typedef struct Reentry {
  csSimulation* s;
  const char* path;  // a scratch checkpoint
  const char* text;  // the same checkpoint as text
  int calls;         // callbacks made
  int refused;       // calls refused as they should be
  int wrong;         // calls that were not
  int reports;       // report callbacks
} Reentry;


static void tryEverything(Reentry* r) {
  csSimulation* s = r->s;
  csError err;
  double t = cs_simTime(s);
  double u[6];
  cs_simGetState(s, CS_STATE_U, u, 6);
  csSimOptions opt = cs_simOptions(s);
  char* text = NULL;
  int codes[] = {
      cs_simStep(s, &err),
      cs_simAdvanceTo(s, t + 0.1, &err),
      cs_simRun(s, t + 0.1, NULL, &err),
      cs_simRunCsv(s, t + 0.1, "/dev/null", NULL, &err),
      cs_simSetOptions(s, &opt, &err),
      cs_simSetState(s, CS_STATE_U, u, 6, &err),
      cs_simSetTime(s, 5.0, &err),
      cs_simSaveState(s, r->path, &err),
      cs_simLoadState(s, r->path, &err),
      cs_simSaveStateText(s, &text, NULL, &err),
      cs_simLoadStateText(s, r->text, strlen(r->text), &err),
  };
  assert_null(text);
  for (size_t i = 0; i < sizeof(codes) / sizeof(codes[0]); i++) {
    if (codes[i] == CS_ERR_INPUT) {
      r->refused++;
    } else {
      r->wrong++;
    }
  }
  assert_non_null(strstr(err.message, "while the simulation is advancing"));
  cs_simReset(s);
  // reading is allowed, and reads the report's state; the statistics too, without ending the
  // run's reports (they took the run's reporter away)
  double com[3], peak;
  cs_simBodyCom(s, 1, com);
  csRunStatistics st;
  cs_simStatistics(s, &st);
  assert_true(st.t == t);
  cs_simContactSetStatistics(s, 0, &peak);
  cs_simContactStatistics(s, 0, &peak, NULL);
  assert_true(cs_simTime(s) == t);
  r->calls++;
}


static int reentryReport(void* ctx, const csModel* m, csData* d) {
  (void)m;
  (void)d;
  tryEverything(ctx);
  ((Reentry*)ctx)->reports++;
  return 0;
}


static void reentryStep(void* ctx, const csModel* m, csData* d) {
  (void)m;
  (void)d;
  tryEverything(ctx);
}


static void test_callbacks_cannot_change_the_run(void** state) {
  (void)state;
  csModel* m = th_loadFile("scenes/free_fall.json");
  char path[PATH_MAX_TEST];
  scratch(path, "reentry.state");
  csError err;
  csSimulation* s = newSim(m);
  // a checkpoint to load (at t = 0.05), so that loading it would move the run back
  assert_int_equal(cs_simAdvanceTo(s, 0.05, &err), CS_OK);
  assert_int_equal(cs_simSaveState(s, path, &err), CS_OK);
  char* text = NULL;
  assert_int_equal(cs_simSaveStateText(s, &text, NULL, &err), CS_OK);
  Reentry r = {.s = s, .path = path, .text = text};
  csReporter rep = {.report = reentryReport, .step = reentryStep, .ctx = &r};
  assert_int_equal(cs_simRun(s, 0.5, &rep, &err), CS_OK);
  // a report at 0.05 and at every multiple of the scene's 0.01 s interval after it, to 0.5
  assert_int_equal(r.reports, 46);
  assert_true(r.calls > 10);
  assert_int_equal(r.wrong, 0);
  assert_int_equal(r.refused, 11 * r.calls);
  assert_true(cs_simTime(s) == 0.5);
  checkParabola(s, m, 1e-6);
  // and once the run is over, the same calls work again
  assert_int_equal(cs_simAdvanceTo(s, 0.6, &err), CS_OK);
  checkParabola(s, m, 1e-6);
  assert_int_equal(cs_simLoadState(s, path, &err), CS_OK);
  assert_true(cs_simTime(s) == 0.05);
  assert_int_equal(cs_simAdvanceTo(s, 0.6, &err), CS_OK);
  assert_int_equal(cs_simLoadStateText(s, text, strlen(text), &err), CS_OK);
  assert_true(cs_simTime(s) == 0.05);
  cs_simReset(s);
  assert_true(cs_simTime(s) == 0);
  cs_freeStateText(text);
  remove(path);
  cs_deleteSimulation(s);
  cs_deleteModel(m);
}


// cs_simRunCsv never writes over the scene its model was loaded from, however the path is
// spelled, as a checkpoint never does
static void test_csv_never_over_the_scene(void** state) {
  (void)state;
  char* text = readText("scenes/free_fall.json");
  char path[PATH_MAX_TEST], other[PATH_MAX_TEST + 8];
  scratch(path, "scene.json");
  FILE* f = fopen(path, "w");
  assert_non_null(f);
  fputs(text, f);
  fclose(f);
  csError err;
  csModel* m = cs_loadScene(path, NULL, &err);
  assert_non_null(m);
  csSimulation* s = newSim(m);
  const char* slash = strrchr(path, '/');
  snprintf(other, sizeof(other), "%.*s/./%s", (int)(slash - path), path, slash + 1);
  const char* spellings[] = {path, other};
  for (int i = 0; i < 2; i++) {
    assert_int_equal(cs_simRunCsv(s, 0.1, spellings[i], NULL, &err), CS_ERR_IO);
    assert_non_null(strstr(err.message, "over the scene file"));
    assert_true(cs_simTime(s) == 0);
  }
  char* after = NULL;
  f = fopen(path, "rb");
  assert_non_null(f);
  after = calloc(strlen(text) + 2, 1);
  assert_int_equal(fread(after, 1, strlen(text) + 1, f), strlen(text));
  fclose(f);
  assert_string_equal(after, text);
  free(after);
  free(text);
  remove(path);
  cs_deleteSimulation(s);
  cs_deleteModel(m);
}


// ... nor does either after the program changes directory: a model loaded by a relative name
// (and one derived from it with cs_modelWithParameter) knows its file by the identity and the
// absolute path it had at the load, so the scene reached by another name from elsewhere is
// refused, a file of the same relative name in the new directory is not the scene, and the file
// an editor saves in the scene's place is
static void test_outputs_never_over_the_scene_after_chdir(void** state) {
  (void)state;
  char* text = readText("scenes/free_fall.json");
  char a[PATH_MAX_TEST], b[PATH_MAX_TEST], scene[PATH_MAX_TEST + 16], cwd[PATH_MAX_TEST];
  scratch(a, "chdir_a");
  scratch(b, "chdir_b");
  snprintf(scene, sizeof(scene), "%s/scene.json", a);
  assert_int_equal(mkdir(a, 0700), 0);
  assert_int_equal(mkdir(b, 0700), 0);
  writeText(scene, text);
  assert_non_null(getcwd(cwd, sizeof(cwd)));
  csError err;
  assert_int_equal(chdir(a), 0);
  csModel* m = cs_loadScene("scene.json", NULL, &err);
  assert_non_null(m);
  // and a scene loaded through a link, the link then replaced by a regular file (sed -i); the
  // first scene file is kept (a hard link), so that no file made later can take its inode
  // number and pass for it
  assert_int_equal(link("scene.json", "keep.json"), 0);
  assert_int_equal(symlink("scene.json", "link.json"), 0);
  csModel* linked = cs_loadScene("link.json", NULL, &err);
  assert_non_null(linked);
  csModel* derived = cs_modelWithParameter(m, "simulation.rtol", "1e-7", &err);
  assert_non_null(derived);
  assert_int_equal(chdir(b), 0);
  writeText("scene.json", "not the scene");
  csModel* models[] = {m, derived};
  for (int i = 0; i < 2; i++) {
    csSimulation* s = newSim(models[i]);
    assert_int_equal(cs_simSaveState(s, scene, &err), CS_ERR_IO);
    assert_non_null(strstr(err.message, "over the scene file"));
    assert_int_equal(cs_simRunCsv(s, 0.1, scene, NULL, &err), CS_ERR_IO);
    assert_non_null(strstr(err.message, "over the scene file"));
    // b/scene.json is another file: written
    assert_int_equal(cs_simSaveState(s, "scene.json", &err), CS_OK);
    cs_deleteSimulation(s);
  }
  // an editor's save (a new file renamed over the scene's path, another identity): still the
  // scene, from anywhere
  char saved[PATH_MAX_TEST + 16];
  snprintf(saved, sizeof(saved), "%s/new.json", a);
  writeText(saved, text);
  assert_int_equal(rename(saved, scene), 0);
  for (int i = 0; i < 2; i++) {
    assert_true(cs_modelIsSceneFile(models[i], scene));
    assert_false(cs_modelIsSceneFile(models[i], "scene.json"));  // b's
    csSimulation* s = newSim(models[i]);
    assert_int_equal(cs_simSaveState(s, scene, &err), CS_ERR_IO);
    cs_deleteSimulation(s);
  }
  char link[PATH_MAX_TEST + 16];
  snprintf(link, sizeof(link), "%s/link.json", a);
  writeText(saved, text);
  assert_int_equal(rename(saved, link), 0);  // a regular file where the link was
  assert_true(cs_modelIsSceneFile(linked, link));
  csSimulation* sl = newSim(linked);
  assert_int_equal(cs_simSaveState(sl, link, &err), CS_ERR_IO);
  cs_deleteSimulation(sl);
  cs_deleteModel(linked);
  remove(link);
  snprintf(link, sizeof(link), "%s/keep.json", a);
  remove(link);
  assert_int_equal(chdir(cwd), 0);
  char* after = th_readFile(scene, NULL);
  assert_string_equal(after, text);
  free(after);
  free(text);
  char other[PATH_MAX_TEST + 16];
  snprintf(other, sizeof(other), "%s/scene.json", b);
  remove(other);
  remove(scene);
  rmdir(a);
  rmdir(b);
  cs_deleteModel(derived);
  cs_deleteModel(m);
}


// max_steps is a budget per report interval in an advance as in a run (an advance over many
// intervals failed where the run finished): for every integrator the two finish, or fail at the
// same time, alike; the advance's message names the interval, and steps still growing from the
// start are not called too short to be worth a larger budget
static void test_advance_budget_per_report_interval(void** state) {
  (void)state;
  const char* scenes[] = {"scenes/pendulum.json", "scenes/exp_spring_incline.json"};
  const long budgets[] = {2000, 5};
  int failures = 0;
  for (int sc = 0; sc < 2; sc++) {
    csModel* m = th_loadFile(scenes[sc]);
    for (int k = 0; k < CS_INTEGRATOR_COUNT; k++) {
      for (int b = 0; b < 2; b++) {
        csSimOptions o = cs_modelOptions(m);
        o.integrator = (csIntegratorType)k;
        o.max_steps = budgets[b];
        csError erun, eadv;
        csSimulation* run = cs_newSimulation(m, &o, &erun);
        csSimulation* adv = cs_newSimulation(m, &o, &eadv);
        assert_non_null(run);
        assert_non_null(adv);
        int rr = cs_simRun(run, 3, NULL, &erun);
        int ra = cs_simAdvanceTo(adv, 3, &eadv);
        if (rr != ra || (b == 0 && rr != CS_OK) ||
            (rr != CS_OK && !(erun.time == eadv.time))) {
          fail_msg("%s, integrator %d, max_steps %ld: run %d at %g (%s), advance %d at %g (%s)",
                   scenes[sc], k, budgets[b], rr, erun.time, erun.message, ra, eadv.time,
                   eadv.message);
        }
        if (ra == CS_OK) {
          assert_true(cs_simTime(adv) == 3);
        } else {
          failures++;
          char want[96];
          snprintf(want, sizeof(want), "more than %ld steps in one report interval (0.01 s)",
                   budgets[b]);
          if (!strstr(eadv.message, want) || !strstr(eadv.message, "raise max_steps") ||
              (eadv.time < 0.01 && strstr(eadv.message, "will not carry the run far"))) {
            fail_msg("%s, integrator %d: %s", scenes[sc], k, eadv.message);
          }
        }
        cs_deleteSimulation(run);
        cs_deleteSimulation(adv);
      }
    }
    cs_deleteModel(m);
  }
  assert_true(failures >= 6);  // the small budget runs out on most
}


// A change a rounding step before a run's end is not applied in that run (a change at the end
// is the continued run's) and the run continued from its checkpoint applies it before anything
// else: a constant push of +1 N on 2 kg, turned to -2 N at 0.5 - 1 ulp, reaches x(1) = 1/16 m
// and u(1) = -1/4 m/s (from x(0.5) = 1/16, u(0.5) = 1/4, a = -1); without the change, 1/4 and
// 1/2. A loaded checkpoint at a change's time (this one or 0.5 exactly) holds the values after
// it at once, as the command line's first row does.
static void test_change_at_a_checkpoint_s_time(void** state) {
  (void)state;
  const double at[] = {nextafter(0.5, 0), 0.5};
  for (int i = 0; i < 2; i++) {
    char json[1024];
    snprintf(json, sizeof(json),
             "{\"name\": \"sl\", \"gravity\": [0, 0, 0], \"bodies\": [{\"name\": \"b\", "
             "\"mass\": 2.0, \"inertia\": {\"box\": [0.1, 0.1, 0.1]}, \"joint\": {\"type\": "
             "\"slider\"}}], \"forces\": [{\"type\": \"constant\", \"name\": \"push\", "
             "\"body\": \"b\", \"force\": [1.0, 0, 0]}], \"changes\": [{\"time\": %.17g, "
             "\"force\": \"push\", \"force_x\": -2.0}], \"simulation\": {\"integrator\": "
             "\"rk\", \"rtol\": 1e-10, \"atol\": 1e-12}}",
             at[i]);
    csModel* m = th_loadString(json);
    int fx = m->force[0].discadr + cs_modelDiscreteIndex(m, 0, "force_x");
    csSimulation* first = newSim(m);
    csError err;
    assert_int_equal(cs_simAdvanceTo(first, 0.5, &err), CS_OK);
    assert_true(cs_simState(first, CS_STATE_DISCRETE)[fx] == 1.0);
    char* text = NULL;
    size_t len = 0;
    assert_int_equal(cs_simSaveStateText(first, &text, &len, &err), CS_OK);
    csSimulation* next = newSim(m);
    assert_int_equal(cs_simLoadStateText(next, text, len, &err), CS_OK);
    assert_true(cs_simState(next, CS_STATE_DISCRETE)[fx] == -2.0);
    assert_int_equal(cs_simAdvanceTo(next, 1.0, &err), CS_OK);
    const double* q = cs_simState(next, CS_STATE_Q);
    const double* u = cs_simState(next, CS_STATE_U);
    if (fabs(q[0] - 0.0625) > 1e-9 || fabs(u[0] + 0.25) > 1e-9) {
      fail_msg("change at %.17g: x(1) = %.17g, u(1) = %.17g", at[i], q[0], u[0]);
    }
    cs_freeStateText(text);
    cs_deleteSimulation(first);
    cs_deleteSimulation(next);
    cs_deleteModel(m);
  }
}


// A model built in code is held to the loader's rules for a body (a NaN or negative mass, a
// joint type that does not exist, a name given twice were taken: one ran on silently, one
// failed later as an integrator's error), and is simulated only once finalized (before, the
// process aborted)
static void test_built_bodies_checked(void** state) {
  (void)state;
  csModel* m = cs_newModel("built");
  assert_non_null(m);
  csBody good;
  memset(&good, 0, sizeof(good));
  snprintf(good.name, sizeof(good.name), "b");
  good.parent = 0;
  good.joint = CS_JOINT_SLIDER;
  good.X_PF = good.X_BM = csu_transformIdentity();
  good.mass = 1;
  good.inertia = csu_inertiaBox(1, csu_vec3(0.1, 0.1, 0.1));
  csError err;
  struct {
    const char* says;
    csBody b;
  } bad[9];
  for (int i = 0; i < 9; i++) {
    bad[i].b = good;
  }
  bad[0].says = "mass";
  bad[0].b.mass = NAN;
  bad[1].says = "mass";
  bad[1].b.mass = -1;
  bad[2].says = "joint type";
  bad[2].b.joint = (csJointType)42;
  bad[3].says = "inertia";
  bad[3].b.inertia.m[0][0] = NAN;
  bad[4].says = "inertia";
  bad[4].b.inertia.m[2][2] = 1;  // breaks the triangle inequality
  bad[5].says = "centre of mass";
  bad[5].b.com.x = INFINITY;
  bad[6].says = "joint frame";
  bad[6].b.X_PF.R.m[0][0] = 2;
  bad[7].says = "no name";
  bad[7].b.name[0] = '\0';
  bad[8].says = "joint frame";
  bad[8].b.X_BM.p.z = NAN;
  for (int i = 0; i < 9; i++) {
    if (cs_addBody(m, &bad[i].b, &err) != -1 || err.code != CS_ERR_INPUT ||
        !strstr(err.message, bad[i].says)) {
      fail_msg("case %d: %s", i, err.message);
    }
  }
  assert_int_equal(cs_addBody(m, &good, &err), 1);
  // massless (a frame between joints) is the C API's to build
  csBody frame = good;
  snprintf(frame.name, sizeof(frame.name), "frame");
  frame.mass = 0;
  memset(&frame.inertia, 0, sizeof(frame.inertia));
  assert_int_equal(cs_addBody(m, &frame, &err), 2);
  assert_null(cs_newSimulation(m, NULL, &err));
  assert_int_equal(err.code, CS_ERR_INPUT);
  assert_non_null(strstr(err.message, "cs_finalizeModel"));
  assert_int_equal(cs_finalizeModel(m, &err), 0);
  cs_deleteModel(m);
  // a name given twice: refused when the model is finalized
  m = cs_newModel("twice");
  assert_int_equal(cs_addBody(m, &good, &err), 1);
  assert_int_equal(cs_addBody(m, &good, &err), 2);
  assert_int_equal(cs_finalizeModel(m, &err), -1);
  assert_non_null(strstr(err.message, "two bodies are named 'b'"));
  cs_deleteModel(m);
}


static void test_checkpoint_refusals(void** state) {
  (void)state;
  csModel* m = th_loadFile("scenes/exp_spring_incline.json");
  csModel* other = th_loadFile("scenes/free_fall.json");
  char* text = readText("scenes/exp_spring_incline.json");
  char* at = strstr(text, "\"mu_static\": 0.7");
  assert_non_null(at);
  at[15] = '6';  // 0.7 -> 0.6
  csModel* m6 = th_loadString(text);
  free(text);
  assert_true(cs_modelFingerprint(m) == cs_modelFingerprint(m6));
  assert_true(cs_modelFingerprint(m) != cs_modelFingerprint(other));

  char path[PATH_MAX_TEST];
  scratch(path, "ff.state");
  csError err;
  csSimulation* sf = newSim(other);
  assert_int_equal(cs_simAdvanceTo(sf, 0.3, &err), CS_OK);
  assert_int_equal(cs_simSaveState(sf, path, &err), CS_OK);

  csSimulation* s = newSim(m);
  assert_int_equal(cs_simAdvanceTo(s, 0.1, &err), CS_OK);
  double q0[7];
  cs_simGetState(s, CS_STATE_Q, q0, 7);
  // another scene
  assert_int_equal(cs_simLoadState(s, path, &err), CS_ERR_INPUT);
  assert_non_null(strstr(err.message, "free_fall"));
  assert_non_null(strstr(err.file, "ff.state"));
  assert_true(err.line > 0);
  assert_true(cs_simTime(s) == 0.1);
  assert_memory_equal(cs_simState(s, CS_STATE_Q), q0, sizeof(q0));
  // the same scene with mu_s = 0.6: accepted
  char same[PATH_MAX_TEST];
  scratch(same, "same.state");
  csSimulation* s6 = newSim(m6);
  assert_int_equal(cs_simAdvanceTo(s6, 0.2, &err), CS_OK);
  assert_int_equal(cs_simSaveState(s6, same, &err), CS_OK);
  assert_int_equal(cs_simLoadState(s, same, &err), CS_OK);
  assert_true(cs_simTime(s) == 0.2);
  cs_deleteSimulation(s6);
  cs_deleteSimulation(sf);
  cs_deleteSimulation(s);
  cs_deleteModel(m6);
  cs_deleteModel(other);
  cs_deleteModel(m);
  remove(path);
  remove(same);
}


// the file edited by hand in the ways a user might break it
static void writeEdited(const char* from, const char* to, const char* find, const char* repl) {
  FILE* f = fopen(from, "rb");
  assert_non_null(f);
  static char buf[1 << 16];
  size_t n = fread(buf, 1, sizeof(buf) - 1, f);
  fclose(f);
  buf[n] = 0;
  FILE* g = fopen(to, "wb");
  assert_non_null(g);
  char* at = find ? strstr(buf, find) : NULL;
  if (find && !at) {
    fail_msg("'%s' is not in the checkpoint", find);
  }
  if (at) {
    fwrite(buf, 1, (size_t)(at - buf), g);
    fputs(repl, g);
    fputs(at + strlen(find), g);
  } else {
    fwrite(buf, 1, n / 2, g);  // no find: cut the file in half
  }
  fclose(g);
}


static void test_checkpoint_malformed(void** state) {
  (void)state;
  csModel* m = th_loadFile("scenes/exp_spring_incline.json");
  char path[PATH_MAX_TEST], bad[PATH_MAX_TEST];
  scratch(path, "good.state");
  scratch(bad, "broken.state");
  csError err;
  csSimulation* s = newSim(m);
  assert_int_equal(cs_simAdvanceTo(s, 0.25, &err), CS_OK);
  assert_int_equal(cs_simSaveState(s, path, &err), CS_OK);
  csSimulation* t = newSim(m);
  struct {
    const char* find;
    const char* repl;
    const char* expect;
  } cases[] = {
      {"contactsim-state 2", "contactsim-state 3", "version 3"},
      {"contactsim-state 2", "something else", "not a contactsim checkpoint"},
      {"\nq 7\n", "\nq 6\n", "6 q values"},
      {"\nq 7\n", "\nq 99999999999999999999\n", "99999999999999999999 q values"},
      {"\nu 6\n", "\nu 6\nzz", "not a number"},  // zz before the first speed, whatever its sign
      {"\nend", "\nend\nmore", "after 'end'"},
      // the checks of values together, at the line of the value (the element's first), not 0
      {"discrete 8\n0x1.6666666666666p-1", "discrete 8\n-0x1.6666666666666p-1",
       "mu_static of 'block.0' must be finite and >= 0"},
      // a negative time, said as such (it was blamed on t_commit being after it)
      {"\nt 0x1p-2", "\nt -0x1p-2", "t (-0.25 s) is before the start"},
      // each element's last commit, at or before t and not before the start
      {"\ncommit 4\n0x1p-2", "\ncommit 4\n0x1p-1",
       "the last commit of 'block.0' (0.5 s) is after t (0.25 s)"},
      {"\ncommit 4\n0x1p-2", "\ncommit 4\n-0x1p-2", "(-0.25 s) is before the start"},
      {"\ncommit 4\n", "\ncommit 3\n", "3 commit values"},
      {NULL, NULL, NULL},  // cut in half
  };
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
    writeEdited(path, bad, cases[i].find, cases[i].repl);
    memset(&err, 0, sizeof(err));
    assert_int_equal(cs_simLoadState(t, bad, &err), CS_ERR_INPUT);
    if (cases[i].expect && !strstr(err.message, cases[i].expect)) {
      fail_msg("case %zu: '%s' does not say '%s'", i, err.message, cases[i].expect);
    }
    assert_true(err.line > 0);
    assert_true(cs_simTime(t) == 0);
  }
  // a variable against its own rule is named at its own line, the element's second here
  {
    size_t n = 0;
    char* text = th_readFile(path, &n);
    const char* find = "\n0x1p-1  # 0.5 block.0.mu_dynamic";
    const char* at = strstr(text, find);
    assert_non_null(at);
    int line = 2;  // the line after the newline found
    for (const char* c = text; c < at; c++) {
      line += *c == '\n';
    }
    free(text);
    writeEdited(path, bad, find, "\n-0x1p-1  # 0.5 block.0.mu_dynamic");
    assert_int_equal(cs_simLoadState(t, bad, &err), CS_ERR_INPUT);
    assert_non_null(strstr(err.message, "mu_dynamic of 'block.0'"));
    assert_int_equal(err.line, line);
  }
  // version 1, which had one last-commit time for every element (after t), still loads: each
  // element takes that time
  {
    size_t n = 0;
    char* text = th_readFile(path, &n);
    char* v1 = malloc(n + 64);
    assert_non_null(v1);
    char* tline = strstr(text, "\nt 0x1p-2");
    char* commit = strstr(text, "\ncommit 4\n");
    assert_non_null(tline);
    assert_non_null(commit);
    char* tend = strchr(tline + 1, '\n');
    snprintf(v1, n + 64, "%.*s\nt_commit 0x1p-3%.*s\nend\n", (int)(tend - text), text,
             (int)(commit - tend), tend);
    memcpy(strstr(v1, "contactsim-state 2"), "contactsim-state 1", 18);
    csSimulation* old = newSim(m);
    assert_int_equal(cs_simLoadStateText(old, v1, strlen(v1), &err), CS_OK);
    for (int e = 0; e < cs_modelCount(m, CS_COUNT_FORCE); e++) {
      assert_true(cs_simData(old)->commit_t[e] == (e == 0 ? 0.25 : 0.125));
    }
    // and refuses its t_commit after t, at its line
    memcpy(strstr(v1, "t_commit 0x1p-3"), "t_commit 0x1p+3", 15);
    assert_int_equal(cs_simLoadStateText(old, v1, strlen(v1), &err), CS_ERR_INPUT);
    assert_non_null(strstr(err.message, "t_commit (8 s) is after t (0.25 s)"));
    assert_int_equal(err.line, 6);
    cs_deleteSimulation(old);
    free(v1);
    free(text);
  }
  assert_int_equal(cs_simLoadState(t, "no/such/file.state", &err), CS_ERR_IO);
  // the untouched file loads
  assert_int_equal(cs_simLoadState(t, path, &err), CS_OK);
  assert_true(cs_simTime(t) == 0.25);
  cs_deleteSimulation(t);
  cs_deleteSimulation(s);
  cs_deleteModel(m);
  remove(path);
  remove(bad);
}


// checkpoints in memory: the same bytes as the file, the same continuation, the same refusals

// the complete state (t and every part) of a and b are the same bits
static void assertSameState(csSimulation* a, csSimulation* b) {
  const csModel* m = cs_simModel(a);
  assert_memory_equal(&(double){cs_simTime(a)}, &(double){cs_simTime(b)}, sizeof(double));
  const csCount counts[] = {CS_COUNT_Q, CS_COUNT_U, CS_COUNT_Z, CS_COUNT_DISCRETE, CS_COUNT_AUTO};
  for (int k = 0; k < 5; k++) {
    size_t n = (size_t)cs_modelCount(m, counts[k]);
    if (n) {
      assert_memory_equal(cs_simState(a, (csStateKind)k), cs_simState(b, (csStateKind)k),
                          sizeof(double) * n);
    }
  }
}


static void test_checkpoint_text(void** state) {
  (void)state;
  csModel* m = th_loadFile("scenes/exp_spring_incline.json");
  char path[PATH_MAX_TEST];
  scratch(path, "text.state");
  csError err;
  // while the block sticks: the anchors are auto-update values
  csSimulation* a = newSim(m);
  assert_int_equal(cs_simAdvanceTo(a, 1.25, &err), CS_OK);
  assert_int_equal(cs_simSaveState(a, path, &err), CS_OK);
  char* text = NULL;
  size_t len = 0;
  assert_int_equal(cs_simSaveStateText(a, &text, &len, &err), CS_OK);
  assert_non_null(text);
  // the same bytes as the file, zero-terminated
  size_t flen = 0;
  char* file = th_readFile(path, &flen);
  assert_int_equal(len, flen);
  assert_int_equal(strlen(text), len);
  assert_memory_equal(text, file, len);
  // the length is optional
  char* again = NULL;
  assert_int_equal(cs_simSaveStateText(a, &again, NULL, &err), CS_OK);
  assert_string_equal(again, text);
  cs_freeStateText(again);
  cs_freeStateText(NULL);

  // loaded from text, the run continues bit for bit as loaded from the file; the text need
  // not be zero-terminated (a copy with other bytes after its length)
  char* unterminated = malloc(len + 8);
  assert_non_null(unterminated);
  memcpy(unterminated, text, len);
  memcpy(unterminated + len, "\nmore!!", 8);
  csSimulation* b = newSim(m);
  csSimulation* c = newSim(m);
  assert_int_equal(cs_simLoadState(b, path, &err), CS_OK);
  assert_int_equal(cs_simLoadStateText(c, unterminated, len, &err), CS_OK);
  assertSameState(b, c);
  assert_true(cs_simTime(c) == 1.25);
  assert_int_equal(cs_simAdvanceTo(b, 3.0, &err), CS_OK);
  assert_int_equal(cs_simAdvanceTo(c, 3.0, &err), CS_OK);
  assertSameState(b, c);
  csRunStatistics sb, sc;
  cs_simStatistics(b, &sb);
  cs_simStatistics(c, &sc);
  assert_int_equal(sb.nsteps, sc.nsteps);
  assert_int_equal(sb.nrhs, sc.nrhs);
  free(unterminated);

  // refusals leave the simulation as it was: c stands at 3 s
  double q[64];
  int nq = cs_modelCount(m, CS_COUNT_Q);
  assert_true(nq <= 64);
  cs_simGetState(c, CS_STATE_Q, q, 64);
  // a corrupted text: the line named, the file CS_STATE_TEXT_NAME
  char* bad = malloc(len + 16);
  assert_non_null(bad);
  char* at = strstr(text, "\nq 7\n");
  assert_non_null(at);
  size_t before = (size_t)(at - text);
  int qline = 1;
  for (size_t i = 0; i <= before; i++) {
    qline += text[i] == '\n';
  }
  memcpy(bad, text, len + 1);
  bad[before + 3] = '6';  // q 7 -> q 6
  memset(&err, 0, sizeof(err));
  assert_int_equal(cs_simLoadStateText(c, bad, len, &err), CS_ERR_INPUT);
  assert_non_null(strstr(err.message, "6 q values"));
  assert_string_equal(err.file, CS_STATE_TEXT_NAME);
  assert_string_equal(err.file, "<checkpoint text>");
  assert_int_equal(err.line, qline);
  // cut short: the text (not a file) ends
  assert_int_equal(cs_simLoadStateText(c, text, before + 8, &err), CS_ERR_INPUT);
  assert_non_null(strstr(err.message, "the text ends inside q"));
  assert_true(err.line > 0);
  // a zero byte
  memcpy(bad, text, len + 1);
  bad[before + 2] = '\0';
  assert_int_equal(cs_simLoadStateText(c, bad, len, &err), CS_ERR_INPUT);
  assert_non_null(strstr(err.message, "zero byte"));
  assert_string_equal(err.file, CS_STATE_TEXT_NAME);
  // the terminating zero counted in the length is a zero byte too
  assert_int_equal(cs_simLoadStateText(c, text, len + 1, &err), CS_ERR_INPUT);
  assert_non_null(strstr(err.message, "zero byte"));
  free(bad);
  // over the size limit (1 MiB + 4096 bytes per value): the good checkpoint followed by
  // comment lines, which load while under the limit
  size_t nvals = (size_t)(cs_modelCount(m, CS_COUNT_Q) + cs_modelCount(m, CS_COUNT_U) +
                          cs_modelCount(m, CS_COUNT_Z) + cs_modelCount(m, CS_COUNT_DISCRETE) +
                          cs_modelCount(m, CS_COUNT_AUTO)) + 1;
  // and the commit times of the elements with auto-update variables
  nvals += strtoul(strstr(text, "\ncommit ") + 8, NULL, 10);
  size_t limit = ((size_t)1 << 20) + 4096 * nvals;
  char* big = malloc(limit + 2);
  assert_non_null(big);
  memcpy(big, text, len);
  for (size_t i = len; i < limit + 1; i++) {
    big[i] = (i - len) % 64 == 0 ? '#' : (i - len) % 64 == 63 ? '\n' : 'x';
  }
  big[limit + 1] = '\0';
  csSimulation* d = newSim(m);
  assert_int_equal(cs_simLoadStateText(d, big, limit, &err), CS_OK);  // at the limit
  assert_true(cs_simTime(d) == 1.25);
  cs_deleteSimulation(d);
  assert_int_equal(cs_simLoadStateText(c, big, limit + 1, &err), CS_ERR_INPUT);
  assert_non_null(strstr(err.message, "the text is larger than a checkpoint"));
  // the same comments in front of the checkpoint: too large still, not "no checkpoint" (the
  // text read to the limit holds only comments)
  memmove(big + (limit + 1 - len), text, len);
  for (size_t i = 0; i < limit + 1 - len; i++) {
    big[i] = i % 64 == 0 ? '#' : i % 64 == 63 ? '\n' : 'x';
  }
  assert_int_equal(cs_simLoadStateText(c, big, limit + 1, &err), CS_ERR_INPUT);
  assert_non_null(strstr(err.message, "the text is larger than a checkpoint"));
  free(big);
  // no text, no place for one
  assert_int_equal(cs_simLoadStateText(c, NULL, 0, &err), CS_ERR_INPUT);
  assert_int_equal(cs_simLoadStateText(c, "", 0, &err), CS_ERR_INPUT);
  assert_non_null(strstr(err.message, "not a contactsim checkpoint"));
  assert_int_equal(cs_simSaveStateText(c, NULL, NULL, &err), CS_ERR_INPUT);
  // after every refusal: the time and the state as they were, and the run goes on with b's
  assert_true(cs_simTime(c) == 3.0);
  assert_memory_equal(cs_simState(c, CS_STATE_Q), q, sizeof(double) * (size_t)nq);
  assert_int_equal(cs_simAdvanceTo(b, 3.5, &err), CS_OK);
  assert_int_equal(cs_simAdvanceTo(c, 3.5, &err), CS_OK);
  assertSameState(b, c);

  // another scene's text: refused with its scene named, as its file is
  csModel* other = th_loadFile("scenes/free_fall.json");
  csSimulation* sf = newSim(other);
  char* fftext = NULL;
  assert_int_equal(cs_simSaveStateText(sf, &fftext, &len, &err), CS_OK);
  assert_int_equal(cs_simLoadStateText(c, fftext, len, &err), CS_ERR_INPUT);
  assert_non_null(strstr(err.message, "free_fall"));
  assert_true(cs_simTime(c) == 3.5);
  cs_freeStateText(fftext);
  cs_deleteSimulation(sf);
  cs_deleteModel(other);

  free(file);
  cs_freeStateText(text);
  remove(path);
  cs_deleteSimulation(c);
  cs_deleteSimulation(b);
  cs_deleteSimulation(a);
  cs_deleteModel(m);
}


// ---------------------------------------------------------------------------------------------
// models loaded again with parameters set

static void test_model_with_overrides(void** state) {
  (void)state;
  csModel* m = th_loadFile("scenes/free_fall.json");
  csError err;
  // no overrides: the same scene again
  csModel* same = cs_modelWithOverrides(m, NULL, 0, &err);
  assert_non_null(same);
  assert_true(cs_modelFingerprint(same) == cs_modelFingerprint(m));
  assert_memory_equal(same->q0, m->q0, sizeof(double) * (size_t)m->nq);
  assert_string_equal(cs_modelFile(same), cs_modelFile(m));
  // the Moon's gravity by key path: the parabola follows it
  csModel* moon = cs_modelWithParameter(m, "gravity", "[0, 0, -1.62]", &err);
  if (!moon) {
    fail_msg("%s: %s", err.path, err.message);
  }
  double g[3];
  cs_modelGravity(moon, g);
  assert_true(g[2] == -1.62);
  csSimulation* s = newSim(moon);
  assert_int_equal(cs_simAdvanceTo(s, 1.0, &err), CS_OK);
  checkParabola(s, moon, 1e-6);
  cs_deleteSimulation(s);
  // a second parameter on top keeps the first (the overrides accumulate, later ones win)
  csModel* heavy = cs_modelWithParameter(moon, "bodies.box.mass", "4", &err);
  assert_non_null(heavy);
  cs_modelGravity(heavy, g);
  assert_true(g[2] == -1.62);
  assert_true(cs_modelBodyMass(heavy, 1) == 4.0);
  assert_true(cs_modelBodyMass(moon, 1) == 2.0);  // the model it came from is unchanged
  csModel* back = cs_modelWithParameter(heavy, "gravity", "[0, 0, -9.81]", &err);
  assert_non_null(back);
  cs_modelGravity(back, g);
  assert_true(g[2] == -9.81);
  // a bad key path: NULL, and the error names it
  assert_null(cs_modelWithParameter(m, "bodies.nobody.mass", "1", &err));
  assert_int_equal(err.code, CS_ERR_INPUT);
  assert_non_null(strstr(err.message, "nobody"));
  cs_deleteModel(back);
  cs_deleteModel(heavy);
  cs_deleteModel(moon);
  // a model built with cs_add* has no scene to load again
  csModel* built = cs_newModel("built");
  assert_null(cs_modelWithParameter(built, "simulation.rtol", "1e-8", &err));
  assert_int_equal(err.code, CS_ERR_INPUT);
  cs_deleteModel(built);
  cs_deleteModel(same);
  cs_deleteModel(m);
}


int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_version),
      cmocka_unit_test(test_model_queries),
      cmocka_unit_test(test_advance_and_step_follow_parabola),
      cmocka_unit_test(test_set_state_restarts),
      cmocka_unit_test(test_run_matches_simulate),
      cmocka_unit_test(test_advance_allocates_nothing),
      cmocka_unit_test(test_advance_allocates_nothing_one_group),
      cmocka_unit_test(test_energy_from_nowhere_noted),
      cmocka_unit_test(test_set_discrete_slides),
      cmocka_unit_test(test_stopped_run_continues),
      cmocka_unit_test(test_stop_flag),
      cmocka_unit_test(test_checkpoint_keeps_each_commit),
      cmocka_unit_test(test_stopped_statistics_go_back),
      cmocka_unit_test(test_statistics_settle_once),
      cmocka_unit_test(test_options_after_a_stopped_run_keep_the_changes),
      cmocka_unit_test(test_refused_csv_run_leaves_the_file),
      cmocka_unit_test(test_sliding_distance_counts_each_stretch_once),
      cmocka_unit_test(test_report_count),
      cmocka_unit_test(test_linear_solver_named),
      cmocka_unit_test(test_dense_jacobian_too_large),
      cmocka_unit_test(test_unusable_options),
      cmocka_unit_test(test_discrete_state_checked_together),
      cmocka_unit_test(test_energy_error_ignores_edits),
      cmocka_unit_test(test_energy_error_after_a_recovery),
      cmocka_unit_test(test_misuse_is_refused),
      cmocka_unit_test(test_run_over_no_time_far_from_zero),
      cmocka_unit_test(test_far_from_zero_steps_are_lost_in_rounding),
      cmocka_unit_test(test_advance_by_a_few_doubles),
      cmocka_unit_test(test_step_loop_after_a_long_rest),
      cmocka_unit_test(test_csv_cut_at_a_full_disk),
      cmocka_unit_test(test_threads_share_nothing),
      cmocka_unit_test(test_threads_save_to_one_path),
      cmocka_unit_test(test_checkpoint_continues),
      cmocka_unit_test(test_callbacks_cannot_change_the_run),
      cmocka_unit_test(test_csv_never_over_the_scene),
      cmocka_unit_test(test_outputs_never_over_the_scene_after_chdir),
      cmocka_unit_test(test_advance_budget_per_report_interval),
      cmocka_unit_test(test_change_at_a_checkpoint_s_time),
      cmocka_unit_test(test_built_bodies_checked),
      cmocka_unit_test(test_checkpoint_refusals),
      cmocka_unit_test(test_checkpoint_malformed),
      cmocka_unit_test(test_checkpoint_text),
      cmocka_unit_test(test_model_with_overrides),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
