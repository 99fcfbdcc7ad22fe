// test_exp_spring_anchor.c: the exponential spring's two anchor rules (scene key anchor_rule).
//
// "blended" is the reference's rule (seed 000, "Moving the Elastic Anchor Point" and
// "Coefficients of Friction and the Sliding State"): after every step the anchor is made
// consistent with the blended elastic force, so it moves by Sliding (p - p0) whatever the step's
// length, and the anchor speed |dp0| / dt that sets the next Sliding grows as 1/dt. The first
// test checks that claim on one commit. "limit" moves the anchor only as far as the friction
// limit demands; the others check its physics against closed-form answers: a block held below
// the friction limit stays put (on an incline and under a sideways push), one loaded above it
// slides with mu_k N of friction, and a block landing under load stops where Coulomb friction
// says, whatever the step lengths.
#include <stdio.h>
#include <string.h>

#include "engine/forces.h"
#include "helpers.h"

#define PI 3.14159265358979323846
#define G 9.81

// the seed's defaults, restated
#define D0 0.0065905
#define D1 0.5336
#define D2 1150.0
#define KXY 20000.0
#define VSETTLE 0.01
#define MUS 0.7
#define MUK 0.5

// the test slab: 10 kg, 0.2 x 0.2 x 0.04 m, a spring at each bottom corner (a low centre of
// mass keeps the friction moment from rocking it; see test_exp_spring.c)
#define MASS 10.0
#define HZ 0.02


// quintic step 10x^3 - 15x^4 + 6x^5, restated
static double step5(double x) {
  return x * x * x * (10 - 15 * x + 6 * x * x);
}


// height of each corner of the slab resting on a floor tilted by theta: D1 exp(-D2 (pz - D0))
// = m g cos(theta) / 4
static double restHeight(double theta) {
  return D0 - log(MASS * G * cos(theta) / (4 * D1)) / D2;
}


// The slab on a floor tilted by theta (degrees) about y, its bottom face at height pz over the
// floor, moving along the floor's x axis at vx, pushed along the floor's x axis by push (N), with
// the given anchor rule; normal damping cz (s/m). Loaded through the scene loader.
static csModel* slabScene(double theta_deg, double pz, double vx, double push, const char* rule,
                          double cz, double duration, double rtol, double max_step) {
  double th = theta_deg * PI / 180;
  // the slab's centre, and the push and velocity directions, in Ground
  double cx = sin(th) * (pz + HZ), cz0 = cos(th) * (pz + HZ);
  double ux = cos(th), uz = -sin(th);
  char text[4096];
  snprintf(text, sizeof(text),
           "{\"name\": \"slab\", \"gravity\": [0, 0, -9.81],"
           " \"bodies\": [{\"name\": \"slab\", \"mass\": %.17g,"
           "  \"inertia\": {\"box\": [0.1, 0.1, %.17g]},"
           "  \"joint\": {\"type\": \"free\", \"parent\": \"ground\", \"initial\": {"
           "   \"position\": [%.17g, 0, %.17g], \"velocity\": [%.17g, 0, %.17g],"
           "   \"orientation\": {\"axis\": [0, 1, 0], \"angle_deg\": %.17g}}}}],"
           " \"planes\": [{\"name\": \"floor\", \"frame\": {\"rotation\": {\"axis\": [0, 1, 0],"
           "  \"angle_deg\": %.17g}}}],"
           " \"contacts\": [{\"name\": \"sole\", \"body\": \"slab\", \"plane\": \"floor\","
           "  \"points\": [[-0.1, -0.1, -%g], [0.1, -0.1, -%g], [-0.1, 0.1, -%g],"
           "   [0.1, 0.1, -%g]]}],"
           " \"contact_models\": {\"default\": \"exponential_spring\","
           "  \"exponential_spring\": {\"anchor_rule\": \"%s\", \"cz\": %.17g,"
           "   \"mass_for_damping\": %.17g}},"
           " \"forces\": [{\"type\": \"constant\", \"name\": \"push\", \"body\": \"slab\","
           "  \"force\": [%.17g, 0, %.17g]}],"
           " \"simulation\": {\"duration\": %.17g, \"report_interval\": 0.05, \"rtol\": %.17g,"
           "  \"max_step\": %.17g, \"max_steps\": 1000000}}",
           MASS, HZ, cx, cz0, vx * ux, vx * uz, theta_deg, theta_deg, HZ, HZ, HZ, HZ, rule, cz,
           MASS / 4, push * ux, push * uz, duration, rtol, max_step);
  return th_loadString(text);
}


// position of the slab along the floor's x axis in a trace row (theta in degrees)
static double alongSlope(const thTrace* tr, int row, double theta_deg) {
  double th = theta_deg * PI / 180;
  const double* q = tr->q + (size_t)row * (size_t)tr->nq;
  return q[4] * cos(th) - q[6] * sin(th);
}


static double speedAlongSlope(const thTrace* tr, int row, double theta_deg) {
  double th = theta_deg * PI / 180;
  const double* u = tr->u + (size_t)row * (size_t)tr->nu;
  return u[3] * cos(th) - u[5] * sin(th);
}


static int rowAt(const thTrace* tr, double t) {
  for (int i = 0; i < tr->n; i++) {
    if (fabs(tr->t[i] - t) < 1e-9) {
      return i;
    }
  }
  print_error("no report at t = %g\n", t);
  fail();
  return -1;
}


// ---------------------------------------------------------------------------------------------
// one commit, by hand

// A station resting on the plane with its anchor 2 micrometres behind it (a spring force of
// 0.04 N, far below the limit) and Sliding 0.5: the blended rule moves the anchor half-way to
// the station on every commit, whatever the step, so a step of 1 ms reads an anchor speed of
// 1 mm/s (Sliding 0.0086) and one of 1 us reads 1 m/s (Sliding 1). The limit rule leaves the
// anchor where it is (Sliding 0) for both. Past the limit, the limit rule puts the anchor where
// the spring pulls with exactly the limit, again for any step.
static void commitOnce(const char* rule, double dt, double stretch, double sliding,
                       double* p0_after, double* sliding_after, double* limit, double* px) {
  csModel* m = cs_newModel("point");
  int b = th_addFreeBody(m, "ball", 1.0, csu_vec3(0, 0, 0), th_diag(1e-3, 1e-3, 1e-3));
  int p = th_addPlane(m, "floor", 0, csu_transformIdentity());
  int e = th_addForce(m, CS_FORCE_EXP_SPRING, "spring");
  m->force[e].ref[CS_REF_BODY] = b;
  m->force[e].ref[CS_REF_PLANE] = p;
  m->force[e].param[CS_SLOT_STATION + 0] = 0;
  m->force[e].param[CS_SLOT_STATION + 1] = 0;
  m->force[e].param[CS_SLOT_STATION + 2] = 0;
  th_setParam(m, e, "anchor_rule", strcmp(rule, "limit") == 0 ? 1 : 0);
  th_finalize(m);
  // the station at rest 5 mm above the plane (about 1.8 N of normal force)
  th_setFreeState(m, m->q0, m->u0, b, csu_quatIdentity(), csu_vec3(0.3, 0, 0.005),
                  csu_vec3(0, 0, 0), csu_vec3(0, 0, 0));
  csData* d = cs_makeData(m);
  int autoadr = 0, autonum = 0;
  assert_int_equal(cs_modelForceState(m, e, CS_STATE_AUTO, &autoadr, &autonum), 0);
  assert_int_equal(autonum, 3);
  d->autoval[autoadr + 0] = 0.3 - stretch;  // p0_x
  d->autoval[autoadr + 1] = 0;
  d->autoval[autoadr + 2] = sliding;
  cs_invalidate(d);
  // the friction limit during the step (with the Sliding committed before it)
  csContactReport r;
  cs_contactReport(m, d, e, &r);
  assert_string_equal(cs_modelContactValueName(m, e, 7), "limit");
  *limit = d->force_extra[m->force[e].repadr + 7];
  d->commit_t[e] = 0;
  d->t = dt;
  cs_commitAutoUpdates(m, d);
  *p0_after = d->autoval[autoadr + 0];
  *sliding_after = d->autoval[autoadr + 2];
  *px = 0.3;
  cs_deleteData(d);
  cs_deleteModel(m);
}


static void test_blended_rule_depends_on_step(void** state) {
  (void)state;
  double stretch = 2e-6, p0, sl, limit, px;
  double dts[2] = {1e-3, 1e-6};
  for (int i = 0; i < 2; i++) {
    commitOnce("blended", dts[i], stretch, 0.5, &p0, &sl, &limit, &px);
    double moved = p0 - (px - stretch);
    double speed = moved / dts[i];
    double ratio = speed / VSETTLE;
    double want = step5(ratio > 1 ? 1 : ratio);
    print_message("blended, dt %g s: anchor moved %.3g m (half the stretch), speed %.3g m/s, "
                  "Sliding %.4g (expected %.4g)\n",
                  dts[i], moved, speed, sl, want);
    th_assertClose(moved, 0.5 * stretch, 1e-9, 0, "blended anchor move, independent of dt");
    th_assertClose(sl, want, 1e-9, 1e-15, "blended Sliding");
  }
  // the same state, two step lengths, two answers: 0.0086 and 1
  commitOnce("blended", 1e-3, stretch, 0.5, &p0, &sl, &limit, &px);
  assert_true(sl < 0.01);
  commitOnce("blended", 1e-6, stretch, 0.5, &p0, &sl, &limit, &px);
  assert_true(sl == 1.0);

  // the limit rule: held below the limit for either step
  for (int i = 0; i < 2; i++) {
    commitOnce("limit", dts[i], stretch, 0.5, &p0, &sl, &limit, &px);
    print_message("limit, dt %g s: anchor moved %.3g m, Sliding %.3g\n", dts[i],
                  p0 - (px - stretch), sl);
    assert_true(p0 == px - stretch);
    assert_true(sl == 0.0);
  }
  // stretched to ten times the limit: dragged to exactly limit / kxy behind the station
  for (int i = 0; i < 2; i++) {
    commitOnce("limit", dts[i], 1e-3, 0.0, &p0, &sl, &limit, &px);
    double behind = px - p0;
    print_message("limit, dt %g s, stretched 1 mm: anchor %.6g m behind (limit / kxy = %.6g m)\n",
                  dts[i], behind, limit / KXY);
    th_assertClose(behind, limit / KXY, 1e-12, 0, "anchor at the limit");
  }
}


// ---------------------------------------------------------------------------------------------
// the limit rule against Coulomb friction

// on a 20 degree incline (tan 20 = 0.36 < mu_s) the slab, set down at rest, stays put
static void test_limit_incline_holds(void** state) {
  (void)state;
  csModel* m = slabScene(20, restHeight(20 * PI / 180), 0, 0, "limit", 0.5, 10, 1e-6, 0);
  thTrace tr = {0};
  csData* d = th_run(m, NULL, &tr);
  double x1 = alongSlope(&tr, rowAt(&tr, 1.0), 20), x10 = alongSlope(&tr, rowAt(&tr, 10.0), 20);
  double x0 = alongSlope(&tr, 0, 20);
  print_message("20 deg, limit rule: %.3g m of slip while settling, then %.3g m over 9 s "
                "(%ld steps)\n",
                x1 - x0, x10 - x1, d->stat.nsteps);
  assert_true(fabs(x10 - x1) < 1e-7);
  assert_true(fabs(x1 - x0) < 1e-3);
  th_traceFree(&tr);
  cs_deleteData(d);
  cs_deleteModel(m);
}


// on a 40 degree incline (tan 40 = 0.84 > mu_s) it slides with g (sin - mu_k cos)
static void test_limit_incline_slides(void** state) {
  (void)state;
  double theta = 40 * PI / 180;
  csModel* m = slabScene(40, restHeight(theta), 0, 0, "limit", 0.5, 2, 1e-6, 0);
  thTrace tr = {0};
  csData* d = th_run(m, NULL, &tr);
  double v1 = speedAlongSlope(&tr, rowAt(&tr, 1.0), 40);
  double v2 = speedAlongSlope(&tr, rowAt(&tr, 2.0), 40);
  double expected = G * (sin(theta) - MUK * cos(theta));
  print_message("40 deg, limit rule: a = %.6f m/s^2, g (sin - mu_k cos) = %.6f (%.3f%%)\n",
                v2 - v1, expected, 100 * (v2 - v1 - expected) / expected);
  th_assertClose(v2 - v1, expected, 0.01, 0, "acceleration down the slope");
  th_traceFree(&tr);
  cs_deleteData(d);
  cs_deleteModel(m);
}


// On a flat floor: a push of 0.6 m g (between mu_k m g and mu_s m g) on the slab set down at
// rest is held; one of 0.8 m g (above mu_s m g) accelerates it at (F - mu_k m g) / m.
static void test_limit_push(void** state) {
  (void)state;
  double h = restHeight(0);
  csModel* m = slabScene(0, h, 0, 0.6 * MASS * G, "limit", 0.5, 5, 1e-6, 0);
  thTrace tr = {0};
  csData* d = th_run(m, NULL, &tr);
  double x0 = alongSlope(&tr, 0, 0), x1 = alongSlope(&tr, rowAt(&tr, 1.0), 0);
  double x5 = alongSlope(&tr, rowAt(&tr, 5.0), 0);
  print_message("push 0.6 m g, limit rule: %.3g m while settling (the friction springs' "
                "stretch 0.6 m g / (4 kxy) = %.3g m), then %.3g m over 4 s (%ld steps)\n",
                x1 - x0, 0.6 * MASS * G / (4 * KXY), x5 - x1, d->stat.nsteps);
  assert_true(fabs(x5 - x1) < 1e-7);
  // it starts sliding (Sliding 1) and is caught within the first steps: the settling slip is
  // the springs' stretch and a little more
  assert_true(x1 - x0 > 0.95 * 0.6 * MASS * G / (4 * KXY) && x1 - x0 < 2e-3);
  th_traceFree(&tr);
  cs_deleteData(d);
  cs_deleteModel(m);

  m = slabScene(0, h, 0, 0.8 * MASS * G, "limit", 0.5, 2, 1e-6, 0);
  tr = (thTrace){0};
  d = th_run(m, NULL, &tr);
  double v1 = speedAlongSlope(&tr, rowAt(&tr, 1.0), 0);
  double v2 = speedAlongSlope(&tr, rowAt(&tr, 2.0), 0);
  double expected = (0.8 - MUK) * G;
  print_message("push 0.8 m g, limit rule: a = %.6f m/s^2, (F - mu_k m g) / m = %.6f (%.3f%%)\n",
                v2 - v1, expected, 100 * (v2 - v1 - expected) / expected);
  th_assertClose(v2 - v1, expected, 0.01, 0, "acceleration under the push");
  th_traceFree(&tr);
  cs_deleteData(d);
  cs_deleteModel(m);
}


// The slab sliding at 1 m/s, pushed forward with 0.3 m g, stops after v^2 / (2 (mu_k - 0.3) g)
// (Coulomb, with mu_k while it slides) and is then held. With the limit rule the stopping point
// does not depend on the steps: the same at rtol 1e-5, 1e-8 and with steps of at most 0.1 ms.
// The springs add about 1.5 mm to the rigid answer's 255 mm: when friction sets in, the slab
// pitches on its springs and the normal forces sum to more than m g for a few milliseconds
// (3.5 mm/s of speed lost), and when it stops the friction springs relax from mu_k N to the
// push (0.24 mm back); 2 % covers both.
static void test_limit_stop_converges(void** state) {
  (void)state;
  double v0 = 1.0, a = (MUK - 0.3) * G;
  double want = v0 * v0 / (2 * a);
  // cz 5 s/m: a slab that does not pitch on its springs while it decelerates
  double rtols[3] = {1e-5, 1e-8, 1e-5}, maxsteps[3] = {0, 0, 1e-4};
  double stops[3];
  for (int i = 0; i < 3; i++) {
    csModel* m = slabScene(0, restHeight(0), v0, 0.3 * MASS * G, "limit", 5, 1.5, rtols[i],
                           maxsteps[i]);
    thTrace tr = {0};
    csData* d = th_run(m, NULL, &tr);
    double x0 = alongSlope(&tr, 0, 0);
    double x1 = alongSlope(&tr, rowAt(&tr, 1.0), 0), x15 = alongSlope(&tr, rowAt(&tr, 1.5), 0);
    stops[i] = x15 - x0;
    print_message("rtol %g, max step %g: stopped after %.6f m (Coulomb %.6f m), then moved %.3g "
                  "m in 0.5 s (%ld steps)\n",
                  rtols[i], maxsteps[i], stops[i], want, x15 - x1, d->stat.nsteps);
    th_assertClose(stops[i], want, 0.02, 0, "stopping distance");
    assert_true(fabs(x15 - x1) < 1e-7);
    if (i == 0) {
      // The energy balance: the springs start unstretched and held (mu_s) and load up until the
      // slab drags its anchors; Sliding then turns 1 and the anchors jump back to the kinetic
      // limit, releasing (mu_s^2 - mu_k^2) (m g / 4)^2 / (2 kxy) per station, which no power
      // counts. The rest of the slide balances: KE + PE + dissipated drops by that release.
      int last = tr.n - 1;
      double e0 = tr.ke[0] + tr.pe[0] + tr.diss[0];
      double e1 = tr.ke[last] + tr.pe[last] + tr.diss[last];
      double n = MASS * G / 4;
      double release = 4 * 0.5 * (MUS * MUS - MUK * MUK) * n * n / KXY;
      print_message("energy balance: KE + PE + dissipated changed by %.5f J; the release at the "
                    "onset of sliding is %.5f J\n",
                    e1 - e0, release);
      th_assertClose(e0 - e1, release, 0.1, 0, "energy lost to the release");
    }
    th_traceFree(&tr);
    cs_deleteData(d);
    cs_deleteModel(m);
  }
  th_assertClose(stops[1], stops[0], 0, 5e-5, "the same stop at rtol 1e-8");
  th_assertClose(stops[2], stops[0], 0, 5e-5, "the same stop with steps of 0.1 ms at most");

  // The blended rule in the same scene never stops: once Sliding is 1 its friction is the damper
  // alone, which balances the push per station (0.3 m g / 4) at a speed of push / cxy, above
  // v_settle, so the anchors never catch the slab (docs/contact-models.md, "Creep")
  csModel* m = slabScene(0, restHeight(0), v0, 0.3 * MASS * G, "blended", 5, 1.5, 1e-5, 0);
  thTrace tr = {0};
  csData* d = th_run(m, NULL, &tr);
  double creep = (alongSlope(&tr, rowAt(&tr, 1.5), 0) - alongSlope(&tr, rowAt(&tr, 1.0), 0)) / 0.5;
  double cxy = 2 * sqrt(KXY * MASS / 4);
  print_message("blended: creeps at %.5f m/s (push / cxy per station = %.5f m/s)\n", creep,
                0.3 * MASS * G / 4 / cxy);
  th_assertClose(creep, 0.3 * MASS * G / 4 / cxy, 0.02, 0, "blended creep speed");
  th_traceFree(&tr);
  cs_deleteData(d);
  cs_deleteModel(m);
}


// A 2 kg point (one station) thrown across a 20 degree slope at (2, 1) m/s in the plane, at
// tight tolerances: it slides on a curve (friction along -v, gravity downhill) and stops. A
// sliding station's dragged anchor is committed exactly at the limit, so each step starts at
// the limit; the dissipated power must take the dragged branch there as it does inside the
// step, or the one-step methods see a jump of limit |v| in it at every step (ark and rk23 then
// stalled at steps of 5e-10 s, rk took 57,524 steps). Every integrator now runs it in a few
// thousand steps, on Coulomb's path: a point of mass m on the slope under mu_k m g cos along
// -v and m g sin downhill, integrated here with RK4. And whatever its steps (rk's are the
// longest, BDF's the shortest), on the same path: the spring to a dragged anchor is capped at
// the limit within a step as the commit will leave it, so its pull does not grow with the
// step (it did: rk then ended 0.3 mm from the others, and BDF, whose history each commit
// broke, took 11,496 steps).
static void coulombSlide(double theta, double t_end, double xy[2]) {
  double y[4] = {0, 0, 2.0, 1.0};
  double dt = 1e-6;
  int n = (int)(t_end / dt + 0.5);
  for (int k = 0; k < n; k++) {
    double ks[4][4], z[4];
    for (int st = 0; st < 4; st++) {
      double c = st == 0 ? 0 : (st == 3 ? 1.0 : 0.5);
      for (int i = 0; i < 4; i++) {
        z[i] = y[i] + (st == 0 ? 0 : c * dt * ks[st - 1][i]);
      }
      double sp = hypot(z[2], z[3]);
      ks[st][0] = z[2];
      ks[st][1] = z[3];
      ks[st][2] = -MUK * G * cos(theta) * z[2] / sp;
      ks[st][3] = -G * sin(theta) - MUK * G * cos(theta) * z[3] / sp;
    }
    for (int i = 0; i < 4; i++) {
      y[i] += dt / 6 * (ks[0][i] + 2 * ks[1][i] + 2 * ks[2][i] + ks[3][i]);
    }
  }
  xy[0] = y[0];
  xy[1] = y[1];
}


static void test_limit_curved_slide_steps(void** state) {
  (void)state;
  double th = 20 * PI / 180;
  double m = 2.0;
  double pz = D0 - log(m * G * cos(th) / D1) / D2;  // at rest on its one spring
  // the plane is turned about x: its y axis (cos, sin) and normal (-sin, cos) in Ground's y, z
  double ey[2] = {cos(th), sin(th)}, nz[2] = {-sin(th), cos(th)};
  char text[2048];
  snprintf(text, sizeof(text),
           "{\"name\": \"thrown\", \"gravity\": [0, 0, -9.81],"
           " \"bodies\": [{\"name\": \"b\", \"mass\": 2, \"inertia\": {\"diag\": [0.01, 0.02, 0.03]},"
           "  \"joint\": {\"type\": \"free\", \"initial\": {\"position\": [0, %.17g, %.17g],"
           "   \"velocity\": [2, %.17g, %.17g]}}}],"
           " \"planes\": [{\"name\": \"slope\", \"frame\": {\"rotation\": {\"axis\": [1, 0, 0],"
           "  \"angle_deg\": 20}}}],"
           " \"forces\": [{\"type\": \"exponential_spring\", \"name\": \"es\", \"body\": \"b\","
           "  \"plane\": \"slope\", \"station\": [0, 0, 0], \"anchor_rule\": \"limit\"}],"
           " \"simulation\": {\"duration\": 0.6, \"rtol\": 1e-9, \"atol\": 1e-11,"
           "  \"report_interval\": 0.6}}",
           pz * nz[0], pz * nz[1], ey[0], ey[1]);
  csModel* model = th_loadString(text);
  double want[2];
  coulombSlide(th, 0.6, want);
  const char* names[] = {"rk", "ark", "rk23", "bdf"};
  csIntegratorType its[] = {CS_INTEGRATOR_RK, CS_INTEGRATOR_ARK, CS_INTEGRATOR_RK23,
                            CS_INTEGRATOR_BDF};
  double ends[4][2];
  for (size_t i = 0; i < sizeof(its) / sizeof(its[0]); i++) {
    csSimOptions opt = model->opt;
    opt.integrator = its[i];
    thTrace tr = {0};
    csData* d = th_run(model, &opt, &tr);
    const double* q = tr.q + (size_t)(tr.n - 1) * (size_t)tr.nq;
    // the station's position in the plane (its origin is on Ground's x axis)
    double x = q[4], y = q[5] * ey[0] + q[6] * ey[1];
    print_message("%s: %ld steps, at (%.6f, %.6f) m, Coulomb (%.6f, %.6f)\n",
                  names[i], d->stat.nsteps, x, y, want[0], want[1]);
    assert_true(d->stat.nsteps < 5000);
    th_assertClose(hypot(x - want[0], y - want[1]), 0, 0, 5e-4, "distance from Coulomb's path");
    ends[i][0] = x;
    ends[i][1] = y;
    th_traceFree(&tr);
    cs_deleteData(d);
  }
  for (int i = 1; i < 4; i++) {
    th_assertClose(hypot(ends[i][0] - ends[0][0], ends[i][1] - ends[0][1]), 0, 0, 1e-4,
                   "distance between two integrators' ends");
  }
  cs_deleteModel(model);
}


// The bench's foot (four springs) dropped from 8 cm with the limit rule, by every integrator:
// far above the floor a spring's friction limit is a few 1e-12 N, below the rounding with which
// a commit puts a dragged anchor at the limit, and an idle spring (no stretch) must still be
// held, not dragged (a division by its zero stretch made the forces NaN at the landing).
static void test_limit_drop_lands(void** state) {
  (void)state;
  char path[1024];
  snprintf(path, sizeof(path), "%s/scenes/bench/foot_drop.json", CS_SOURCE_ROOT);
  csOverride rule = {"contact_models.exponential_spring.anchor_rule", "\"limit\""};
  csLoadOptions lo = {.overrides = &rule, .noverrides = 1};
  csError err;
  csModel* m = cs_loadScene(path, &lo, &err);
  assert_non_null(m);
  csIntegratorType its[] = {CS_INTEGRATOR_BDF, CS_INTEGRATOR_RK, CS_INTEGRATOR_ARK,
                            CS_INTEGRATOR_RK23};
  for (size_t i = 0; i < sizeof(its) / sizeof(its[0]); i++) {
    csSimOptions opt = m->opt;
    opt.integrator = its[i];
    thTrace tr = {0};
    csData* d = th_run(m, &opt, &tr);  // fails the test on a failed run or a non-finite force
    // landed and standing on its four springs: its origin half its height (2 cm) above the
    // height at which a spring carries a quarter of its 1.2 kg
    const double* q = tr.q + (size_t)(tr.n - 1) * (size_t)tr.nq;
    double rest = D0 - log(1.2 * G / (4 * D1)) / D2;
    th_assertClose(q[6], 0.02 + rest, 0, 5e-4, "the foot's height after landing");
    th_traceFree(&tr);
    cs_deleteData(d);
  }
  cs_deleteModel(m);
}


// a bad rule is refused by the loader with the accepted names, and by validation through the
// C API
static void test_rule_errors(void** state) {
  (void)state;
  const char* text =
      "{\"bodies\": [{\"name\": \"b\", \"mass\": 1, \"inertia\": {\"box\": [0.1, 0.1, 0.1]},"
      " \"joint\": {\"type\": \"free\"}}], \"planes\": [{\"name\": \"floor\"}],"
      " \"forces\": [{\"type\": \"exponential_spring\", \"name\": \"s\", \"body\": \"b\","
      " \"plane\": \"floor\", \"station\": [0, 0, 0], \"anchor_rule\": \"slip\"}]}";
  csError err;
  csModel* m = cs_loadSceneString(text, "bad.json", NULL, &err);
  assert_null(m);
  print_message("%s: %s\n", err.path, err.message);
  assert_string_equal(err.path, "forces[0].anchor_rule");
  assert_non_null(strstr(err.message, "\"blended\", \"limit\""));
  assert_non_null(strstr(err.message, "slip"));

  m = cs_newModel("point");
  int b = th_addFreeBody(m, "ball", 1.0, csu_vec3(0, 0, 0), th_diag(1e-3, 1e-3, 1e-3));
  int p = th_addPlane(m, "floor", 0, csu_transformIdentity());
  int e = th_addForce(m, CS_FORCE_EXP_SPRING, "spring");
  m->force[e].ref[CS_REF_BODY] = b;
  m->force[e].ref[CS_REF_PLANE] = p;
  for (int i = 0; i < 3; i++) {
    m->force[e].param[CS_SLOT_STATION + i] = 0;
  }
  th_setParam(m, e, "anchor_rule", 2);
  assert_int_not_equal(cs_finalizeModel(m, &err), 0);
  print_message("%s\n", err.message);
  assert_non_null(strstr(err.message, "anchor_rule"));
  cs_deleteModel(m);
}


int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_blended_rule_depends_on_step),
      cmocka_unit_test(test_limit_incline_holds),
      cmocka_unit_test(test_limit_incline_slides),
      cmocka_unit_test(test_limit_push),
      cmocka_unit_test(test_limit_stop_converges),
      cmocka_unit_test(test_limit_curved_slide_steps),
      cmocka_unit_test(test_limit_drop_lands),
      cmocka_unit_test(test_rule_errors),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
