// test_warnings.c: the run diagnostics of src/engine/metrics.c that catch what a user would
// otherwise publish by mistake. Each has a scene in tests/data/warn/ that triggers it; the
// quantity it reports is checked against an answer worked out here from the force law (the
// equilibrium gap of a floating sphere, the force of a sphere placed inside the floor, the peak of
// an undamped landing), the suggested remedy is applied and must silence it, and the bundled
// scenes must run without any of them under every model they define.
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/metrics.h"
#include "helpers.h"

#define G 9.81


// ---------------------------------------------------------------------------------------------
// running a scene with the statistics, as the command line does

static int reportRow(void* ctx, const csModel* m, csData* d) {
  cs_metricsReport(ctx, m, d);
  return 0;
}


static void stepRow(void* ctx, const csModel* m, csData* d) {
  cs_metricsStep(ctx, m, d);
}


// run m from its initial state with its own options; mt holds the statistics and notes (the
// caller frees them with cs_metricsFree)
static double runWithMetrics(const csModel* m, csMetrics* mt) {
  csData* d = cs_makeData(m);
  assert_non_null(d);
  assert_int_equal(cs_metricsInit(mt, m, d), 0);
  csReporter rep = {.report = reportRow, .step = stepRow, .ctx = mt};
  csError err = {0};
  int status = cs_simulate(m, d, &m->opt, &rep, &err);
  if (status != CS_OK) {
    fail_msg("%s: run failed: %s", m->name, err.message);
  }
  cs_realizeDynamics(m, d);
  double dissipated = cs_dissipatedEnergy(m, d);
  cs_metricsFinish(mt, m, d);
  cs_deleteData(d);
  // every note whole: none of the library's own texts is long enough to be cut (names as short
  // as the tests' do not make them so)
  for (int i = 0; i < mt->nnotes; i++) {
    size_t n = strlen(mt->notes[i]);
    if (n >= 4 && strcmp(mt->notes[i] + n - 4, " ...") == 0) {
      fail_msg("%s: a note was cut: %s", m->name, mt->notes[i]);
    }
  }
  return dissipated;
}


// a 1 kg ball of radius 0.1 m, free, its centre at height z above a floor of Hunt-Crossley
// spheres of the given modulus and dissipation; simulation: the members of its block
static csModel* ballOnFloor(double z, double modulus, double dissipation,
                            const char* simulation) {
  char json[1024];
  snprintf(json, sizeof(json),
           "{\"gravity\": [0, 0, -9.81], \"bodies\": [{\"name\": \"ball\", \"mass\": 1,"
           " \"inertia\": {\"sphere\": 0.1}, \"joint\": {\"type\": \"free\","
           " \"initial\": {\"position\": [0, 0, %.17g]}}}], \"planes\": [{\"name\": \"floor\"}],"
           " \"contacts\": [{\"name\": \"ball_floor\", \"body\": \"ball\", \"plane\": \"floor\","
           "  \"radius\": 0.1, \"points\": [[0, 0, 0]]}],"
           " \"contact_models\": {\"hunt_crossley\": {\"plane_strain_modulus\": %.17g,"
           "  \"dissipation\": %.17g}}, \"simulation\": {%s}}",
           z, modulus, dissipation, simulation);
  return th_loadString(json);
}


// the note containing `what`, or NULL
static const char* noteWith(const csMetrics* mt, const char* what) {
  for (int i = 0; i < mt->nnotes; i++) {
    if (strstr(mt->notes[i], what)) {
      return mt->notes[i];
    }
  }
  return NULL;
}


// load a scene file with the text `from` replaced by `to` (both NULL: as it is); the variants
// of a scene differ by one value
static csModel* loadWith(const char* rel, const char* from, const char* to) {
  char path[512];
  snprintf(path, sizeof(path), "%s/%s", CS_SOURCE_ROOT, rel);
  FILE* f = fopen(path, "rb");
  assert_non_null(f);
  static char text[16384], edited[16384];
  size_t n = fread(text, 1, sizeof(text) - 1, f);
  fclose(f);
  text[n] = '\0';
  snprintf(edited, sizeof(edited), "%s", text);
  if (from) {
    char* at = strstr(text, from);
    assert_non_null(at);
    snprintf(edited, sizeof(edited), "%.*s%s%s", (int)(at - text), text, to, at + strlen(from));
  }
  csError err = {0};
  csModel* m = cs_loadSceneString(edited, rel, NULL, &err);
  if (!m) {
    fail_msg("%s: %s: %s", rel, err.path, err.message);
  }
  return m;
}


// ---------------------------------------------------------------------------------------------
// a smooth sphere that holds its body up above the plane

// the smoothed Hertz force of seed 001 at penetration x (negative: a gap), with its defaults
static double smoothHertz(double E, double R, double x) {
  double k = 0.5 * pow(E, 2.0 / 3.0);
  return (4.0 / 3.0) * k * sqrt(R * k) * pow(x * x + 1e-5, 0.75) * (0.5 + 0.5 * tanh(300 * x));
}


static void test_float_above_plane(void** state) {
  (void)state;
  csModel* m = loadWith("tests/data/warn/float.json", NULL, NULL);
  csMetrics mt;
  runWithMetrics(m, &mt);
  // each of the two spheres carries half of 2 kg; the force law alone says where it rests
  double lo = -0.05, hi = 0.0, share = 0.5 * 2.0 * G;
  for (int i = 0; i < 100; i++) {
    double mid = 0.5 * (lo + hi);
    if (smoothHertz(2e7, 0.03, mid) < share) {
      lo = mid;
    } else {
      hi = mid;
    }
  }
  double gap = -0.5 * (lo + hi);
  const char* note = noteWith(&mt, "above plane");
  print_message("equilibrium gap %.3f mm from the force law; the run: %.3f mm; %s\n", 1e3 * gap,
                1e3 * mt.contact[0].gap, note ? note : "(no note)");
  assert_non_null(note);
  assert_true(gap > 0.007 && gap < 0.009);  // the 8 mm of the scene's description
  th_assertClose(mt.contact[0].gap, gap, 0.01, 0, "resting gap");
  assert_non_null(strstr(note, "hertz_smoothing"));
  cs_metricsFree(&mt);
  cs_deleteModel(m);

  // the remedy the note suggests: a steeper switch-on puts the foot on the floor
  m = loadWith("tests/data/warn/float.json", "\"mu_dynamic\": 0.6}",
               "\"mu_dynamic\": 0.6, \"hertz_smoothing\": 3000}");
  runWithMetrics(m, &mt);
  assert_null(noteWith(&mt, "above plane"));
  print_message("with hertz_smoothing 3000: gap %.3f mm\n", 1e3 * mt.contact[0].gap);
  assert_true(mt.contact[0].gap < 1e-3);
  cs_metricsFree(&mt);
  cs_deleteModel(m);
}


// ---------------------------------------------------------------------------------------------
// a start inside the contact

static void test_initial_kick(void** state) {
  (void)state;
  csModel* m = loadWith("tests/data/warn/kick.json", NULL, NULL);
  csMetrics mt;
  runWithMetrics(m, &mt);
  // Hertz: two equal surfaces of E give k = E^(2/3) / 2; 2 mm into a 5 cm ball
  double k = 0.5 * pow(8.28e6, 2.0 / 3.0), x = 0.002, R = 0.05;
  double f0 = (4.0 / 3.0) * k * x * sqrt(R * k * x);
  const char* note = noteWith(&mt, "kicked off");
  print_message("force at t = 0: %.3f N (Hertz: %.3f N) on a %.3f N ball; %s\n",
                mt.contact[0].fn0, f0, mt.contact[0].weight, note ? note : "(no note)");
  th_assertClose(mt.contact[0].fn0, f0, 1e-9, 0, "initial force");
  th_assertClose(f0, 78.0, 0.01, 0, "the scene's 78 N");
  th_assertClose(mt.contact[0].weight, 0.5 * G, 1e-12, 0, "weight carried");
  assert_non_null(note);
  assert_non_null(strstr(note, "starts 2 mm inside"));
  cs_metricsFree(&mt);
  cs_deleteModel(m);

  // placed just clear of the floor: no kick
  m = loadWith("tests/data/warn/kick.json", "[0, 0, 0.048]", "[0, 0, 0.051]");
  runWithMetrics(m, &mt);
  assert_null(noteWith(&mt, "kicked off"));
  cs_metricsFree(&mt);
  cs_deleteModel(m);

  // two balls placed inside, the second deeper: one note, naming the worst and how many start
  // so (it named the worst alone, and a pile of 10,000 boxes read as one kicked box)
  m = th_loadString(
      "{\"gravity\": [0, 0, -9.81], \"bodies\": ["
      " {\"name\": \"ball\", \"mass\": 0.5, \"inertia\": {\"sphere\": 0.05},"
      "  \"joint\": {\"type\": \"free\", \"initial\": {\"position\": [0, 0, 0.048]}}},"
      " {\"name\": \"deep\", \"mass\": 0.5, \"inertia\": {\"sphere\": 0.05},"
      "  \"joint\": {\"type\": \"free\", \"initial\": {\"position\": [1, 0, 0.047]}}}],"
      " \"planes\": [{\"name\": \"floor\"}],"
      " \"contacts\": [{\"name\": \"ball_floor\", \"body\": \"ball\", \"plane\": \"floor\","
      "  \"radius\": 0.05, \"points\": [[0, 0, 0]]},"
      "  {\"name\": \"deep_floor\", \"body\": \"deep\", \"plane\": \"floor\","
      "  \"radius\": 0.05, \"points\": [[0, 0, 0]]}],"
      " \"contact_models\": {\"hunt_crossley\": {\"plane_strain_modulus\": 8.28e6,"
      "  \"dissipation\": 0.5}},"
      " \"simulation\": {\"duration\": 0.05, \"report_interval\": 0.005}}");
  runWithMetrics(m, &mt);
  note = noteWith(&mt, "kicked off");
  assert_non_null(note);
  assert_non_null(strstr(note, "contact 'deep_floor'"));
  assert_non_null(strstr(note, "(the worst of 2 contacts that start so)"));
  cs_metricsFree(&mt);
  cs_deleteModel(m);
}


// A contact set of four corners started deep in a soft floor (k = 300 N/m per corner, tilted so
// that the second corner is the deepest): the kick is judged on the set's total (no corner alone
// pushes twice the weight), with the force k x of each corner at rest, and the depth is
// reported once, at the deepest corner.
static void test_contact_set_notes(void** state) {
  (void)state;
  csModel* m = loadWith("tests/data/warn/sink_set.json", NULL, NULL);
  csMetrics mt;
  runWithMetrics(m, &mt);
  assert_int_equal(mt.ncontact, 4);
  // the corners' depths from the pose: centre 15 mm below the floor, turned 1 degree about y
  double a = CS_PI / 180, total = 0, deepest = 0, maxpen = 0;
  for (int i = 0; i < 4; i++) {
    double x = (i % 2) ? 0.2 : -0.2, z = -0.025;
    double depth = -(-0.015 - sin(a) * x + cos(a) * z);
    th_assertClose(mt.contact[i].penetration0, depth, 1e-12, 1e-15, "start depth");
    th_assertClose(mt.contact[i].fn0, 300 * depth, 1e-9, 0, "k x at rest");
    assert_true(mt.contact[i].fn0 < 2 * mt.contact[i].weight);
    total += 300 * depth;
    deepest = fmax(deepest, depth);
    maxpen = fmax(maxpen, mt.contact[i].max_penetration);
  }
  assert_true(mt.contact[1].max_penetration == maxpen);
  const char* kick = noteWith(&mt, "kicked off");
  const char* deep = noteWith(&mt, "deeper than 1 cm");
  print_message("%s\n%s\n", kick ? kick : "(no kick note)", deep ? deep : "(no depth note)");
  assert_non_null(kick);
  char expect[96];
  snprintf(expect, sizeof(expect), "starts %.3g mm inside plane 'floor': it pushes with %.4g N",
           1e3 * deepest, total);
  assert_non_null(strstr(kick, expect));
  assert_non_null(deep);
  snprintf(expect, sizeof(expect), "penetrated %.3g m", maxpen);
  assert_non_null(strstr(deep, expect));
  // deepest at the start, but still 2 kg g / (4 x 300 N/m) = 16 mm deep at rest: too soft
  assert_non_null(strstr(deep, "too soft"));
  // one note per set
  int n = 0;
  for (int i = 0; i < mt.nnotes; i++) {
    n += strstr(mt.notes[i], "deeper than 1 cm") != NULL;
  }
  assert_int_equal(n, 1);
  cs_metricsFree(&mt);
  cs_deleteModel(m);
}


// A 1 g arm pinned to a 105 kg cart (a slider on a spring) starts with its tip point 22.7 mm
// into the floor (sin 0.55 - 0.5 m) and is pushed out, coming to rest on the tip at
// m g / 2 / k = 4.9 um: the depth note blamed the contact's stiffness, where the placement
// made the depth.
static void test_depth_of_a_placement(void** state) {
  (void)state;
  csModel* m = th_loadString(
      "{\"gravity\": [0, 0, -9.81], \"bodies\": ["
      " {\"name\": \"cart\", \"mass\": 100, \"inertia\": {\"box\": [0.3, 0.2, 0.1]},"
      "  \"joint\": {\"type\": \"slider\", \"parent_frame\": {\"position\": [0, 0, 0.3]}}},"
      " {\"name\": \"mount\", \"mass\": 5, \"inertia\": {\"diag\": [0.01, 0.01, 0.01]},"
      "  \"joint\": {\"type\": \"weld\", \"parent\": \"cart\","
      "   \"parent_frame\": {\"position\": [0.2, 0, 0.2]}}},"
      " {\"name\": \"arm\", \"mass\": 0.001, \"com\": [0.5, 0, 0],"
      "  \"inertia\": {\"diag\": [1e-7, 8.4e-5, 8.4e-5]},"
      "  \"joint\": {\"type\": \"pin\", \"parent\": \"mount\", \"q\": [0.55],"
      "   \"parent_frame\": {\"rotation\": {\"axis\": [1, 0, 0], \"angle_deg\": -90}}}}],"
      " \"planes\": [{\"name\": \"floor\"}],"
      " \"contacts\": [{\"name\": \"tip\", \"body\": \"arm\", \"plane\": \"floor\","
      "  \"points\": [[1, 0, 0]]}],"
      " \"contact_models\": {\"compliant_point\": {\"penalty_stiffness\": 1000,"
      "  \"dissipation\": 5}},"
      " \"forces\": [{\"type\": \"mobility_damper\", \"body\": \"arm\", \"damping\": 0.001},"
      "  {\"type\": \"mobility_spring\", \"body\": \"cart\", \"stiffness\": 1000},"
      "  {\"type\": \"mobility_damper\", \"body\": \"cart\", \"damping\": 500}],"
      " \"simulation\": {\"duration\": 5, \"report_interval\": 1, \"rtol\": 1e-9,"
      "  \"atol\": 1e-12}}");
  csMetrics mt;
  runWithMetrics(m, &mt);
  th_assertClose(mt.contact[0].penetration0, sin(0.55) - 0.5, 1e-12, 0, "start depth");
  th_assertClose(mt.contact[0].max_penetration, sin(0.55) - 0.5, 1e-12, 0, "no deeper");
  th_assertClose(-mt.contact[0].gap, 0.001 * G / 2 / 1000, 1e-3, 0, "depth at rest");
  const char* deep = noteWith(&mt, "deeper than 1 cm");
  print_message("%s\n", deep ? deep : "(no depth note)");
  assert_non_null(deep);
  assert_non_null(strstr(deep, "it started that deep and went no deeper"));
  assert_null(strstr(deep, "soft"));
  cs_metricsFree(&mt);
  cs_deleteModel(m);

  // a ball placed 160 mm into a soft floor that still holds it 78 mm deep at rest (0.78 of its
  // radius): too soft, whatever the placement (the placement alone was blamed)
  m = ballOnFloor(-0.06, 3e3, 5, "\"duration\": 4, \"report_interval\": 0.01");
  runWithMetrics(m, &mt);
  deep = noteWith(&mt, "deeper than the sphere's radius");
  print_message("end depth %.4f m: %s\n", -mt.contact[0].gap, deep ? deep : "(no depth note)");
  assert_true(-mt.contact[0].gap > 0.05 && -mt.contact[0].gap < 0.1);
  assert_non_null(deep);
  assert_non_null(strstr(deep, "far too soft"));
  cs_metricsFree(&mt);
  cs_deleteModel(m);
}


// ---------------------------------------------------------------------------------------------
// an under-damped normal direction

static void test_underdamped_bounce(void** state) {
  (void)state;
  csModel* m = loadWith("tests/data/warn/bounce.json", NULL, NULL);
  csMetrics mt;
  runWithMetrics(m, &mt);
  const char* note = noteWith(&mt, "still bouncing");
  print_message("%s\n", note ? note : "(no note)");
  assert_non_null(note);
  // the exponential spring near rest: k = d2 F, c = cz F, m = F / g, so the damping ratio is
  // cz sqrt(g / d2) / 2, and 1/2 needs cz = sqrt(d2 / g) (d2 = 1150 1/m, the default)
  double cz = sqrt(1150.0 / G);
  char expect[64];
  snprintf(expect, sizeof(expect), "to about %.3g s/m", cz);
  assert_non_null(strstr(note, expect));
  assert_non_null(strstr(note, "raise cz (now 0.02 s/m)"));
  cs_metricsFree(&mt);
  cs_deleteModel(m);

  // with that cz the foot has settled long before 2 s
  char value[32];
  snprintf(value, sizeof(value), "%.3g", cz);
  char cz_json[48];
  snprintf(cz_json, sizeof(cz_json), "\"cz\": %s,", value);
  m = loadWith("tests/data/warn/bounce.json", "\"cz\": 0.02,", cz_json);
  runWithMetrics(m, &mt);
  assert_null(noteWith(&mt, "still bouncing"));
  const csMetricsWindow* w = &mt.window[mt.ncontact];
  print_message("cz = %s: set force over the last window %.4f..%.4f N\n", value, w->pmin, w->pmax);
  assert_true(w->pmax - w->pmin < 0.01 * G);
  cs_metricsFree(&mt);
  cs_deleteModel(m);

  // on a 10-degree slope the springs carry m g cos 10 across the plane, and the note says so
  // beside the weight (the mean was set beside the whole weight, a deficit that is none)
  m = loadWith("tests/data/warn/bounce.json", "\"planes\": [{\"name\": \"floor\"}]",
               "\"planes\": [{\"name\": \"floor\", \"frame\": {\"rotation\": "
               "{\"axis\": [0, 1, 0], \"angle_deg\": 10}}}]");
  runWithMetrics(m, &mt);
  note = noteWith(&mt, "still bouncing");
  print_message("%s\n", note ? note : "(no note)");
  assert_non_null(note);
  snprintf(expect, sizeof(expect), "weight carried %.4g N, %.4g N of it across the plane", G,
           G * cos(10 * CS_PI / 180));
  assert_non_null(strstr(note, expect));
  cs_metricsFree(&mt);
  cs_deleteModel(m);
}


// ---------------------------------------------------------------------------------------------
// a peak force out of all proportion to the weight

static void test_peak_force(void** state) {
  (void)state;
  csModel* m = loadWith("tests/data/warn/peak.json", NULL, NULL);
  csMetrics mt;
  runWithMetrics(m, &mt);
  // an undamped flat landing from h on four springs K = 4k: m g (h + x) = K x^2 / 2, peak K x
  double K = 4e9, mass = 1.0, h = 0.05;
  double x = (mass * G + sqrt(mass * G * mass * G + 2 * K * mass * G * h)) / K;
  double peak = K * x;
  const char* note = noteWith(&mt, "peak normal force of");
  print_message("peak %.1f N (energy balance: %.1f N), %.0f body weights; %s\n",
                mt.peak_normal_force, peak, mt.peak_normal_force / (mass * G),
                note ? note : "(no note)");
  th_assertClose(mt.peak_normal_force, peak, 0.01, 0, "peak force");
  assert_non_null(note);
  // whole, not cut at its place's length (a longer advice cut its last words), and with the
  // advice of its kind (a compliant point's dissipation may be too low or too high)
  size_t n = strlen(note);
  assert_true(n > 30 && strcmp(note + n - 30, "E.normal_force around the peak") == 0);
  assert_non_null(strstr(note, "too low or too high"));
  cs_metricsFree(&mt);
  cs_deleteModel(m);

  // a sole of 1e5 N/m per corner with damping peaks at a few body weights: no note
  m = loadWith("tests/data/warn/peak.json", "\"penalty_stiffness\": 1e9, \"dissipation\": 0",
               "\"penalty_stiffness\": 1e5, \"dissipation\": 2");
  runWithMetrics(m, &mt);
  print_message("softer sole: peak %.1f N\n", mt.peak_normal_force);
  assert_null(noteWith(&mt, "peak normal force of"));
  cs_metricsFree(&mt);
  cs_deleteModel(m);

  // a ball placed 1 mm into a floor of modulus 1e30 pushes 4.7e24 N: the ratios to its weight
  // were written in full (24 digits; at a modulus of 1e250, 244 digits cut both notes' advice
  // off), and are given to three
  m = ballOnFloor(0.099, 1e30, 0.1, "\"duration\": 0.01, \"report_interval\": 0.001, "
                   "\"rtol\": 1e-8, \"atol\": 1e-10");
  runWithMetrics(m, &mt);
  note = noteWith(&mt, "peak normal force of");
  const char* kick = noteWith(&mt, "kicked off");
  print_message("%s\n%s\n", note ? note : "(no peak note)", kick ? kick : "(no kick note)");
  assert_non_null(note);
  assert_non_null(kick);
  n = strlen(note);
  assert_true(n > 30 && strcmp(note + n - 30, "E.normal_force around the peak") == 0);
  assert_non_null(strstr(kick, "and let it settle"));
  // the ratio itself, to three digits: Hertz's force over the 9.81 N weight
  double k = 0.5 * pow(1e30, 2.0 / 3.0), f0 = (4.0 / 3.0) * k * 1e-3 * sqrt(0.1 * k * 1e-3);
  char expect[64];
  snprintf(expect, sizeof(expect), "%.3g times the 9.81 N weight", f0 / G);
  assert_non_null(strstr(kick, expect));
  cs_metricsFree(&mt);
  cs_deleteModel(m);
}


// ---------------------------------------------------------------------------------------------
// the bundled scenes raise none of these, under any model they define

// A block sliding at 0.5 m/s on four exponential springs (defaults, the blended anchor rule) at
// rtol 1e-8: bdf's steps collapse as the anchor's commits make the friction force jump, and
// raising max_steps does not help. The failure says so and what runs the scene; rk runs it, and
// the block stops near where Coulomb friction stops it, v^2 / (2 mu_dynamic g)
static void test_blended_anchor_failure_explained(void** state) {
  (void)state;
  const char* json =
      "{\"bodies\": [{\"name\": \"blk\", \"mass\": 1, \"inertia\": {\"box\": [0.05, 0.05, 0.05]},"
      "  \"joint\": {\"type\": \"free\", \"initial\": {\"position\": [0, 0, 0.055264],"
      "  \"velocity\": [0.5, 0, 0]}}}],"
      " \"planes\": [{\"name\": \"floor\"}],"
      " \"contacts\": [{\"name\": \"c\", \"body\": \"blk\", \"plane\": \"floor\", \"points\":"
      "  [[-0.05, -0.05, -0.05], [-0.05, 0.05, -0.05], [0.05, -0.05, -0.05], [0.05, 0.05, -0.05]]}],"
      " \"contact_models\": {\"exponential_spring\": {}},"
      " \"simulation\": {\"duration\": 1, \"rtol\": 1e-8, \"atol\": 1e-10, \"max_steps\": 20000}}";
  csModel* m = th_loadString(json);
  csData* d = cs_makeData(m);
  csError err = {0};
  csSimOptions o = m->opt;
  assert_int_equal(cs_simulate(m, d, &o, NULL, &err), CS_ERR_SOLVER);
  print_message("bdf: %s\n", err.message);
  assert_non_null(strstr(err.message, "blended anchor rule"));
  assert_non_null(strstr(err.message, "anchor_rule \"limit\""));
  cs_deleteData(d);
  d = cs_makeData(m);
  o.integrator = CS_INTEGRATOR_RK;
  assert_int_equal(cs_simulate(m, d, &o, NULL, &err), CS_OK);
  double coulomb = 0.5 * 0.5 / (2 * 0.5 * G);
  double x = d->q[m->body[1].qadr + 4];  // free joint: quaternion, then position
  print_message("rk: the block stops after %.4f m (Coulomb: %.4f m)\n", x, coulomb);
  th_assertClose(x, coulomb, 0.1, 0, "sliding distance");
  cs_deleteData(d);
  cs_deleteModel(m);
}


// A diagnostic too long for its place is cut after its last whole word and says so: cut
// anywhere, "1.25e-3" could end as "1.2" and a UTF-8 name in half a character
static void test_long_note_cut_at_a_word(void** state) {
  (void)state;
  csMetrics* mt = calloc(1, sizeof(*mt));
  assert_non_null(mt);
  char text[2 * CS_METRICS_NOTE_LEN];
  size_t len = 0;
  for (int i = 0; len + 16 < sizeof(text); i++) {
    len += (size_t)snprintf(text + len, sizeof(text) - len, "%s%.3g", i ? " " : "",
                            1.25e-3 * (i + 1));
  }
  cs_metricsNote(mt, "%s", text);
  cs_metricsVerdict(mt, "%s", text);
  // one word with no space, of two-byte characters (é): cut between characters
  char word[CS_METRICS_NOTE_LEN + 64] = "";
  for (size_t i = 0; i + 2 < sizeof(word); i += 2) {
    memcpy(word + i, "\xc3\xa9", 2);
  }
  cs_metricsNote(mt, "x%s", word);
  for (int k = 0; k < 2; k++) {
    const char* note = mt->notes[k];
    size_t n = strlen(note);
    assert_true(n < CS_METRICS_NOTE_LEN && n > CS_METRICS_NOTE_LEN - 32);
    assert_string_equal(note + n - 4, " ...");
    // every word before the cut whole: the note is the text up to a space
    assert_memory_equal(note, text, n - 4);
    assert_int_equal(text[n - 4], ' ');
  }
  const char* cut = mt->notes[2];
  size_t n = strlen(cut);
  assert_string_equal(cut + n - 4, " ...");
  assert_int_equal((n - 4 - 1) % 2, 0);  // after "x", whole characters only
  free(mt);
}


// a foot with a load welded on top creeps as one body of their summed mass: the note, which
// took the foot's own 1 kg, said nothing of the 51 kg whole creeping at 0.16 m/s
static void test_creep_of_a_welded_load(void** state) {
  (void)state;
  csModel* m = loadWith("tests/data/warn/creep_welded.json", NULL, NULL);
  csMetrics mt;
  runWithMetrics(m, &mt);
  const char* note = noteWith(&mt, "creeps downhill");
  double cxy = NAN;
  for (int e = 0; e < m->nforce; e++) {
    if (m->force[e].kind == CS_FORCE_EXP_SPRING) {
      cxy = cs_metricsParam(&m->force[e], "cxy");
    }
  }
  // n viscous dampers balancing the whole's downhill weight (the seed's creep speed)
  double creep = 51.0 * G * sin(20.0 * acos(-1.0) / 180.0) / (4.0 * cxy);
  print_message("creep %.3f m/s expected, %.3f in the note; slid %.3f m; %s\n", creep,
                mt.creep_speed, mt.sliding_distance, note ? note : "(no note)");
  assert_non_null(note);
  assert_non_null(strstr(note, "51 kg, with what is welded to it"));
  th_assertClose(mt.creep_speed, creep, 1e-9, 0, "creep speed");
  // and it does creep rather than stick: over 10 cm in the 1 s (held, it would slip a mm)
  assert_true(mt.sliding_distance > 0.1);
  cs_metricsFree(&mt);
  cs_deleteModel(m);
}


// exponential springs held at max_fz sink whatever their stiffness: the depth note said to
// raise a stiffness they do not have, and the peak note blamed stiffness and damping
static void test_capped_springs_name_their_cap(void** state) {
  (void)state;
  csModel* m = loadWith("tests/data/warn/capped.json", NULL, NULL);
  csMetrics mt;
  runWithMetrics(m, &mt);
  const char* note = noteWith(&mt, "deeper than 1 cm");
  print_message("%s\n", note ? note : "(no note)");
  assert_non_null(note);
  assert_non_null(strstr(note, "held at their cap, max_fz = 100 N: raise max_fz"));
  assert_null(strstr(note, "stiffness"));
  // the sinking is the cap's: (g - 400 N / 100 kg) t^2 / 2 = 2.9 m in the 1 s, from about 3 mm
  th_assertClose(mt.max_penetration, 0.5 * (G - 4.0) + 0.0033, 0.02, 0, "depth");
  cs_metricsFree(&mt);
  cs_deleteModel(m);
}


// a foot on Hunt-Crossley contacts integrated by rk at tolerance 0.1: its contacts gave energy
// they can only take, booked as negative dissipation (thousands of J against the motion's few),
// and the balance fell, which no note said. Independent of the note: the run's own dissipated
// energy goes far below zero, which no passive element can make it
static void test_energy_given_by_dampers_is_told(void** state) {
  (void)state;
  csModel* m = loadWith("scenes/foot_landing_push.json", NULL, NULL);
  m->opt.integrator = CS_INTEGRATOR_RK;
  m->opt.rtol = m->opt.atol = 0.1;
  m->opt.duration = 0.9;  // before the push, which books its own work as negative dissipation
  csMetrics mt;
  double dissipated = runWithMetrics(m, &mt);
  const char* note = noteWith(&mt, "fell by");
  print_message("dissipated %.4g J at 0.9 s; %s\n", dissipated, note ? note : "(no note)");
  assert_true(dissipated < -100);
  assert_non_null(note);
  assert_non_null(strstr(note, "negative dissipation"));
  cs_metricsFree(&mt);
  // the same scene at its own tolerances: no such note
  cs_deleteModel(m);
  m = loadWith("scenes/foot_landing_push.json", NULL, NULL);
  runWithMetrics(m, &mt);
  assert_null(noteWith(&mt, "fell by"));
  cs_metricsFree(&mt);
  cs_deleteModel(m);
  // nor on exponential springs, whose anchors' released stretch is not booked: dragged for
  // 20 s, a block's balance falls by more than its motion's energy, with no instability
  m = loadWith("tests/data/warn/drag_limit.json", NULL, NULL);
  runWithMetrics(m, &mt);
  print_message("drag: fell %.3g J, in play %.3g J\n", mt.energy_loss, mt.energy_seen);
  assert_true(mt.energy_loss > 10);  // (34 J, more than the block's kinetic energy)
  assert_null(noteWith(&mt, "fell by"));
  cs_metricsFree(&mt);
  cs_deleteModel(m);
}


// a foot thrown along the floor on exponential springs, by rk23 at loose tolerances: its steps
// are held by the friction dampers' stability, which a note says, pointing to the section of the
// docs that tells what to do. The note was longer than its place and was always cut before that
// reference. The run itself: the foot slides v0^2 / (2 mu g) = 0.4077 m before it is held
static void test_stability_note_is_whole(void** state) {
  (void)state;
  csModel* m = loadWith("tests/data/warn/stiff_slide.json", NULL, NULL);
  csMetrics mt;
  runWithMetrics(m, &mt);
  const char* note = noteWith(&mt, "held by its stability limit");
  print_message("%s\n", note ? note : "(no note)");
  assert_non_null(note);
  const char end[] = "(docs/scene-format.md, \"Choosing the integrator\")";
  size_t n = strlen(note);
  assert_true(n > sizeof(end));
  assert_string_equal(note + n - (sizeof(end) - 1), end);
  double slid = mt.sliding_distance;
  print_message("slid %.4f m\n", slid);
  assert_true(fabs(slid - 4.0 / (2 * 0.5 * 9.81)) < 0.005);
  cs_metricsFree(&mt);
  cs_deleteModel(m);
}


// The same pendulum, and a spinning box whose corner brushes a floor for 5 ms, by the one-step
// integrators at loose tolerances, whose steps (up to 0.4 s) are far longer than a touch: each
// step whose ends' gaps, rates and accelerations (or whose start's prediction) say a point
// dipped below the floor in between is taken again, ending where the touch begins, and the
// steps within the touch are a quarter of its length, so every touch is felt and resolved
// (the dissipated energy against the answers below). Before, the
// pendulum by rk at 1e-5 and by ark at every tolerance, and the box by every integrator at
// 1e-3 and 1e-5, dissipated nothing (rk at 1e-5 with no note); with the step after the touch's
// beginning as long as the touch, the box dissipated 0.2 to 2.2 times its energy at 1e-3. The
// pendulum's answer is independent, 8.945e-3 J (tests/data/warn/graze.json); the box's is
// its converged run's, 3.6126e-3 J (tests/data/warn/brush.json).
static void test_grazes_felt_by_one_step_methods(void** state) {
  (void)state;
  const struct {
    const char* scene;
    double dissipated;
  } cases[] = {{"tests/data/warn/graze.json", 8.945e-3}, {"tests/data/warn/brush.json", 3.6126e-3}};
  const csIntegratorType integrators[] = {CS_INTEGRATOR_RK, CS_INTEGRATOR_RK23,
                                          CS_INTEGRATOR_ARK};
  const double tols[] = {1e-3, 1e-5, 1e-7}, within[] = {0.15, 0.03, 0.005};
  for (int c = 0; c < 2; c++) {
    for (int k = 0; k < 3; k++) {
      for (int j = 0; j < 3; j++) {
        csModel* m = loadWith(cases[c].scene, NULL, NULL);
        m->opt.integrator = integrators[k];
        m->opt.rtol = m->opt.atol = tols[j];
        csMetrics mt;
        double dissipated = runWithMetrics(m, &mt);
        const char* note = noteWith(&mt, "passed over");
        print_message("%s, integrator %d at %g: dissipated %.6g J; %s\n", cases[c].scene,
                      (int)integrators[k], tols[j], dissipated, note ? note : "(no note)");
        assert_true(fabs(dissipated - cases[c].dissipated) < within[j] * cases[c].dissipated);
        assert_null(note);
        cs_metricsFree(&mt);
        cs_deleteModel(m);
      }
    }
  }
}


// A pendulum whose tip grazes the floor for about 6 ms three times, each touch shorter than
// BDF's and Adams' steps at rtol 1e-9: they step over every touch (no evaluation finds the
// tip below the floor) and the run is the pendulum's without the floor, while the reports,
// made on the steps' interpolants, show the tip pressed in with a force that was never
// applied. A note says so. rk, whose steps end where a contact begins, feels each touch: its
// dissipated energy is the independent integration's 8.945e-3 J (tests/data/warn/graze.json),
// and no note. The bench ball bouncing, by Adams at 1e-2 (a report between a step and the touch it
// reaches, which the next step feels), and the bench's scenes at their own settings: no note.
static void test_touch_passed_over_is_told(void** state) {
  (void)state;
  const csIntegratorType integrators[] = {CS_INTEGRATOR_BDF, CS_INTEGRATOR_ADAMS,
                                          CS_INTEGRATOR_RK};
  for (int k = 0; k < 3; k++) {
    csModel* m = loadWith("tests/data/warn/graze.json", NULL, NULL);
    m->opt.integrator = integrators[k];
    csMetrics mt;
    double dissipated = runWithMetrics(m, &mt);
    const char* note = noteWith(&mt, "passed over");
    print_message("integrator %d: dissipated %.6g J, peak force %.4g N; %s\n", (int)integrators[k],
                  dissipated, mt.peak_normal_force, note ? note : "(no note)");
    if (integrators[k] == CS_INTEGRATOR_RK) {
      assert_true(fabs(dissipated - 8.945e-3) < 1e-5);
      assert_null(note);
    } else {
      // the touches never applied, yet a force in the statistics (from the reports); Adams's
      // tries probe the second touch within a few steps of its report, which then goes untold
      assert_true(fabs(dissipated) < 1e-12);
      assert_true(mt.peak_normal_force > 0.5);
      assert_non_null(note);
      assert_non_null(strstr(note, integrators[k] == CS_INTEGRATOR_BDF
                                       ? "'tip' (compliant_point) acted at 3 reports (the first "
                                         "at t = 0.51 s) where"
                                       : "(the first at t = 0.51 s) where"));
    }
    cs_metricsFree(&mt);
    cs_deleteModel(m);
  }
  // two arms, two groups: the note counts each one's touches as its own
  {
    csModel* m = loadWith("tests/data/warn/graze_two.json", NULL, NULL);
    m->opt.integrator = CS_INTEGRATOR_BDF;
    csMetrics mt;
    runWithMetrics(m, &mt);
    const char* note = noteWith(&mt, "passed over");
    assert_non_null(note);
    assert_non_null(strstr(note, "'tipA' (compliant_point) acted at 3 reports (the first at "
                                 "t = 0.51 s), and other contacts or stops at 3 more, where"));
    cs_metricsFree(&mt);
    cs_deleteModel(m);
  }
  // the tails of long contacts by BDF and Adams at loose tolerances, still pressed in at a
  // report two steps after the last evaluation that felt them, were told as passed over
  const struct {
    const char* scene;
    csIntegratorType integrator;
    double tol;
  } tails[] = {{"scenes/bench/chain_1.json", CS_INTEGRATOR_BDF, 1e-2},
               {"scenes/bench/pendulum_stop.json", CS_INTEGRATOR_BDF, 3e-2},
               {"scenes/foot_landing_push.json", CS_INTEGRATOR_BDF, 3e-2},
               {"scenes/ball_roll_slope.json", CS_INTEGRATOR_ADAMS, 1e-2}};
  for (size_t i = 0; i < sizeof(tails) / sizeof(tails[0]); i++) {
    csModel* m = loadWith(tails[i].scene, NULL, NULL);
    m->opt.integrator = tails[i].integrator;
    m->opt.rtol = m->opt.atol = tails[i].tol;
    csMetrics mt;
    runWithMetrics(m, &mt);
    const char* note = noteWith(&mt, "passed over");
    if (note) {
      fail_msg("%s: %s", tails[i].scene, note);
    }
    cs_metricsFree(&mt);
    cs_deleteModel(m);
  }
  const char* clean[] = {"scenes/bench/sphere_bounce_roll.json", "scenes/bench/incline_stick.json",
                         "scenes/bench/foot_drop.json", "scenes/bench/pendulum_stop.json",
                         "scenes/bench/chain_16.json", "scenes/bench/pile_10.json"};
  for (size_t i = 0; i <= sizeof(clean) / sizeof(clean[0]); i++) {
    csModel* m = loadWith(i ? clean[i - 1] : clean[0], NULL, NULL);
    if (i == 0) {
      // the ball by Adams at 1e-2: a report at 1.57 s shows it 0.17 mm into the floor, where
      // the step's interpolant reaches before any evaluation has; the next step feels it
      m->opt.integrator = CS_INTEGRATOR_ADAMS;
      m->opt.rtol = m->opt.atol = 1e-2;
    }
    csMetrics mt;
    runWithMetrics(m, &mt);
    const char* note = noteWith(&mt, "passed over");
    if (note) {
      fail_msg("%s: %s", i ? clean[i - 1] : "the ball by Adams", note);
    }
    cs_metricsFree(&mt);
    cs_deleteModel(m);
  }
}


// a rise of the balance across a scheduled change that stores energy is the change's: the note
// advised tighter tolerances, which leave it as it is
static void test_energy_stored_by_a_change_is_told(void** state) {
  (void)state;
  csModel* m = loadWith("tests/data/warn/stop_moved.json", NULL, NULL);
  csMetrics mt;
  runWithMetrics(m, &mt);
  const char* note = noteWith(&mt, "rose by");
  print_message("%s\n", note ? note : "(no note)");
  assert_non_null(note);
  assert_non_null(strstr(note, "across the scheduled changes (54 J of it between the reports at "
                               "1 and 1.01 s, where the change of 'stop' at t = 1 s comes)"));
  // the jump is the stop's stored energy, 300 x 0.6^2 / 2 = 54 J, within what the pendulum
  // moves in the hundredth of a second after the change
  th_assertClose(mt.jump, 54.0, 0.05, 0, "the jump");
  // and it is not taken for an instability
  assert_null(noteWith(&mt, "went unstable"));
  cs_metricsFree(&mt);
  cs_deleteModel(m);
  // nor is the energy a change releases (a stop backed off, 0.5 J): "fell by ... unstable" at
  // every tolerance, while the carriage settled where it should. Independent of the note: the
  // balance is the push's work and the stop's energy, 1 cm further on
  m = loadWith("tests/data/warn/stop_backed_off.json", NULL, NULL);
  runWithMetrics(m, &mt);
  th_assertClose(mt.e_change, -0.5, 0.02, 0, "released by the change");
  assert_null(noteWith(&mt, "fell by"));
  assert_null(noteWith(&mt, "went unstable"));
  cs_metricsFree(&mt);
  cs_deleteModel(m);
}


static void test_bundled_scenes_quiet(void** state) {
  (void)state;
  static const char* const models[5] = {NULL, "exponential_spring", "compliant_point",
                                        "hunt_crossley", "smooth_sphere_half_space"};
  DIR* dir = opendir(CS_SOURCE_ROOT "/scenes");
  assert_non_null(dir);
  int runs = 0;
  for (struct dirent* ent; (ent = readdir(dir)) != NULL;) {
    size_t n = strlen(ent->d_name);
    if (n < 6 || strcmp(ent->d_name + n - 5, ".json") != 0) {
      continue;
    }
    char path[512];
    snprintf(path, sizeof(path), "%s/scenes/%s", CS_SOURCE_ROOT, ent->d_name);
    for (int k = 0; k < 5; k++) {
      // the scene's default, then each model it has a block for
      csLoadOptions opt = {.contact_model = models[k]};
      csError err = {0};
      csModel* m = cs_loadScene(path, &opt, &err);
      if (!m) {
        assert_true(k > 0);  // the default must load
        continue;
      }
      csMetrics mt;
      runWithMetrics(m, &mt);
      runs++;
      // no diagnostic of any kind (docs/cli.md, "Diagnostics"): the contact ones of this file,
      // the parameter checks, the integrator's. One is expected: exp_spring_incline's cube has
      // the default friction damping, with which it would creep if it slid at mu_static 0.7
      // (it is held, and slides only once a change lowers mu_static to 0.2)
      for (int i = 0; i < mt.nnotes; i++) {
        int expected = strcmp(ent->d_name, "exp_spring_incline.json") == 0 &&
                       strstr(mt.notes[i], "creeps downhill") != NULL;
        if (!expected) {
          fail_msg("%s (%s): %s", ent->d_name, models[k] ? models[k] : "default", mt.notes[i]);
        }
      }
      cs_metricsFree(&mt);
      cs_deleteModel(m);
    }
  }
  closedir(dir);
  print_message("%d runs of bundled scenes, none warned\n", runs);
  assert_true(runs >= 12);
}


int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_float_above_plane),
      cmocka_unit_test(test_creep_of_a_welded_load),
      cmocka_unit_test(test_capped_springs_name_their_cap),
      cmocka_unit_test(test_energy_given_by_dampers_is_told),
      cmocka_unit_test(test_stability_note_is_whole),
      cmocka_unit_test(test_touch_passed_over_is_told),
      cmocka_unit_test(test_grazes_felt_by_one_step_methods),
      cmocka_unit_test(test_energy_stored_by_a_change_is_told),
      cmocka_unit_test(test_initial_kick),
      cmocka_unit_test(test_contact_set_notes),
      cmocka_unit_test(test_depth_of_a_placement),
      cmocka_unit_test(test_underdamped_bounce),
      cmocka_unit_test(test_peak_force),
      cmocka_unit_test(test_long_note_cut_at_a_word),
      cmocka_unit_test(test_bundled_scenes_quiet),
      cmocka_unit_test(test_blended_anchor_failure_explained),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
