// test_exp_spring.c: the exponential spring contact (seed 000) against closed-form answers:
// the normal-force law and its bounds, the static equilibrium of a block on a floor, Coulomb
// friction bounds while sliding and spinning, sticking on a shallow incline and sliding with
// g (sin - muk cos) on a steep one, the friction-coefficient rules and scheduled changes, action
// and reaction with a moving plane, energy conservation without friction, parameter checks.
// Models are built with the C API; one test runs the bundled scenes through the loader.
#include <stdio.h>
#include <string.h>

#include "engine/forces.h"
#include "helpers.h"

#define PI 3.14159265358979323846
#define G 9.81

// the seed's default parameters, restated here so the tests do not read them from the code
#define D0 0.0065905
#define D1 0.5336
#define D2 1150.0
#define CZ 0.5
#define MAXFZ 100000.0
#define KXY 20000.0
#define MUS 0.7
#define MUK 0.5

// the test block: 10 kg cube of half-size 0.1 m with a spring at each bottom corner.
//
// The sliding tests use a slab of the same footprint and mass, 4 cm thick. With the default
// normal damping (cz = 0.5 s/m, a damping ratio of about 2% on this block) a sliding cube
// develops friction-induced flutter: friction at the bottom corners couples pitch to the normal
// springs (a non-symmetric stiffness) and the pitch/bounce oscillation grows until the cube
// hops, so its mean deceleration is below muk g (10% on the 40 degree incline). That is the
// model's behaviour, not an error (cz = 2 s/m or a centre of mass at the contact level removes
// it), but it would hide the friction law these tests measure; the slab's low centre of mass
// keeps the coupling small.
#define MASS 10.0
#define HALF 0.1
#define SLAB 0.02


// ---------------------------------------------------------------------------------------------
// building models

// a free box of half-size `half` with its centre of mass at the body origin
static int addBox(csModel* m, const char* name, double mass, csVec3 half) {
  return th_addFreeBody(m, name, mass, csu_vec3(0, 0, 0), csu_inertiaBox(mass, half));
}


// one exponential spring with default parameters at a station of body on plane
static int addSpring(csModel* m, const char* name, int body, int plane, csVec3 station) {
  int e = th_addForce(m, CS_FORCE_EXP_SPRING, name);
  m->force[e].ref[CS_REF_BODY] = body;
  m->force[e].ref[CS_REF_PLANE] = plane;
  csu_vec3ToArray(m->force[e].param + CS_SLOT_STATION, station);
  return e;
}


// springs at the four bottom corners of a box of half-size (HALF, HALF, hz); returns the first
// element (the others follow)
static int addCornerSprings(csModel* m, int body, int plane, double hz) {
  int first = -1;
  for (int i = 0; i < 4; i++) {
    char name[16];
    snprintf(name, sizeof(name), "corner%d", i);
    csVec3 c = csu_vec3((i & 1) ? HALF : -HALF, (i & 2) ? HALF : -HALF, -hz);
    int e = addSpring(m, name, body, plane, c);
    if (i == 0) {
      first = e;
    }
  }
  return first;
}


static csSimOptions options(double duration, double report_interval) {
  csSimOptions o = cs_defaultSimOptions();
  o.duration = duration;
  o.report_interval = report_interval;
  return o;
}


// column of a model-specific report value, by name
static int extraIndex(const char* name) {
  const csForceKind* k = cs_forceKind(CS_FORCE_EXP_SPRING);
  for (int i = 0; i < k->nextra; i++) {
    if (strcmp(k->extranames[i], name) == 0) {
      return i;
    }
  }
  print_error("no report value named %s\n", name);
  fail();
  return -1;
}


static double extra(const csModel* m, const csData* d, int e, const char* name) {
  return d->force_extra[m->force[e].repadr + extraIndex(name)];
}


static int discIndex(const char* name) {
  const csForceKind* k = cs_forceKind(CS_FORCE_EXP_SPRING);
  for (int i = 0; i < k->discnum; i++) {
    if (strcmp(k->discnames[i], name) == 0) {
      return i;
    }
  }
  print_error("no discrete variable named %s\n", name);
  fail();
  return -1;
}


// the seed's normal force with its clamps, recomputed here
static double normalForce(double pz, double vz) {
  double fe = D1 * exp(-D2 * (pz - D0));
  double fz = fe * (1 - CZ * vz);
  return fz < 0 ? 0 : (fz > MAXFZ ? MAXFZ : fz);
}


// height of each corner of a block carrying m g cos(theta) on four springs at rest:
// D1 exp(-D2 (pz - D0)) = m g cos(theta) / 4
static double equilibriumHeight(double theta) {
  return D0 - log(MASS * G * cos(theta) / (4 * D1)) / D2;
}


// a 10 kg block on a floor tilted by theta about the Ground y axis, its bottom face parallel to
// the floor at height pz0, with the given velocity (in Ground); gravity on
typedef struct blockModel {
  csModel* m;
  int body, plane, first;
  double hz;        // half-height, m
  csQuat tilt;
  csVec3 downhill;  // plane x axis in Ground
} blockModel;


// the model without its initial state; add elements or changes, then call placeBlock
static blockModel buildBlock(double theta, double hz) {
  blockModel bm;
  bm.m = cs_newModel("block");
  bm.hz = hz;
  bm.body = addBox(bm.m, "block", MASS, csu_vec3(HALF, HALF, hz));
  bm.tilt = csu_quatFromAxisAngle(csu_vec3(0, 1, 0), theta);
  bm.plane = th_addPlane(bm.m, "floor", 0, csu_transformFromPosQuat(csu_vec3(0, 0, 0), bm.tilt));
  bm.first = addCornerSprings(bm.m, bm.body, bm.plane, hz);
  th_addForce(bm.m, CS_FORCE_GRAVITY, "gravity");
  bm.downhill = csu_quatRotate(bm.tilt, csu_vec3(1, 0, 0));
  return bm;
}


// finalize, then put the block's bottom face at height pz0 over the floor with the given
// angular and linear velocity (in Ground)
static void placeBlock(blockModel* bm, double pz0, csVec3 w, csVec3 v) {
  th_finalize(bm->m);
  csVec3 p = csu_quatRotate(bm->tilt, csu_vec3(0, 0, pz0 + bm->hz));
  th_setFreeState(bm->m, bm->m->q0, bm->m->u0, bm->body, bm->tilt, p, w, v);
}


static blockModel makeBlock(double theta, double pz0, csVec3 w, csVec3 v) {
  blockModel bm = buildBlock(theta, HALF);
  placeBlock(&bm, pz0, w, v);
  return bm;
}


// position and velocity of the block origin from a trace row
static csVec3 tracePos(const thTrace* tr, int row) {
  return csu_vec3FromArray(tr->q + (size_t)row * (size_t)tr->nq + 4);
}


static csVec3 traceVel(const thTrace* tr, int row) {
  return csu_vec3FromArray(tr->u + (size_t)row * (size_t)tr->nu + 3);
}


static int traceRow(const thTrace* tr, double t) {
  for (int i = 0; i < tr->n; i++) {
    if (fabs(tr->t[i] - t) < 1e-9) {
      return i;
    }
  }
  print_error("no report at t = %g\n", t);
  fail();
  return -1;
}


static void printStats(const char* what, const csData* d) {
  print_message("%s: %ld steps, %ld RHS (+%ld for Jacobians), %ld commits\n", what,
                d->stat.nsteps, d->stat.nrhs, d->stat.nrhs_jac, d->stat.ncommit);
}


// ---------------------------------------------------------------------------------------------
// tests

// the normal force at a constructed state: the seed's bounds at 1 cm and 2 cm, its damping,
// the clamp at zero and the cap; no friction when the station is at rest over its anchor
static void test_normal_force(void** state) {
  (void)state;
  csModel* m = cs_newModel("point");
  int b = addBox(m, "ball", 1.0, csu_vec3(0.1, 0.1, 0.1));
  int p = th_addPlane(m, "floor", 0, csu_transformIdentity());
  int e = addSpring(m, "spring", b, p, csu_vec3(0, 0, 0));
  th_finalize(m);
  th_setFreeState(m, m->q0, m->u0, b, csu_quatIdentity(), csu_vec3(0.3, -0.2, 0.01),
                  csu_vec3(0, 0, 0), csu_vec3(0, 0, 0));
  csData* d = cs_makeData(m);
  double* pz = d->q + m->body[b].qadr + 6;
  double* vz = d->u + m->body[b].uadr + 5;

  // above the plane. The seed says the force falls below 0.01 N "as soon as" the station is
  // more than 1 cm up; with the default d0, d1, d2 it is 0.0106 N at exactly 1 cm and crosses
  // 0.01 N at 1.005 cm, so the claim is checked from 1.01 cm; below 1e-6 N from 2 cm
  cs_realizeDynamics(m, d);
  double f1 = d->body_force[b].v.z;
  th_assertClose(f1, normalForce(0.01, 0), 1e-12, 0, "fz at 1 cm");
  assert_true(f1 > 0 && f1 < 0.011);
  double heights[] = {0.0101, 0.012, 0.015, 0.02, 0.03};
  for (int i = 0; i < 5; i++) {
    *pz = heights[i];
    cs_invalidate(d);
    cs_realizeDynamics(m, d);
    double f = d->body_force[b].v.z;
    th_assertClose(f, normalForce(heights[i], 0), 1e-12, 0, "fz above the plane");
    assert_true(f > 0 && f < (heights[i] >= 0.02 ? 1e-6 : 0.01));
  }
  *pz = 0.02;
  cs_invalidate(d);
  cs_realizeDynamics(m, d);
  double f2 = d->body_force[b].v.z;
  print_message("fz at 1 cm = %.4g N, at 2 cm = %.4g N\n", f1, f2);

  // approaching at 0.5 m/s: fz = fe (1 + cz 0.5); no friction at rest over the anchor
  *pz = 0.002;
  *vz = -0.5;
  cs_invalidate(d);
  csContactReport r;
  assert_int_equal(cs_contactReport(m, d, e, &r), 0);
  th_assertClose(r.force.v.z, normalForce(0.002, -0.5), 1e-12, 0, "fz approaching");
  assert_true(fabs(r.force.v.x) < 1e-12 && fabs(r.force.v.y) < 1e-12);
  assert_true(csu_norm(r.force.w) == 0);
  th_assertClose(r.point.x, 0.3, 0, 1e-15, "point x");
  th_assertClose(r.point.z, 0.002, 0, 1e-15, "point z");
  double fe = D1 * exp(-D2 * (0.002 - D0));
  th_assertClose(extra(m, d, e, "fz_elastic"), fe, 1e-12, 0, "fz_elastic");
  th_assertClose(extra(m, d, e, "fz_damping"), fe * CZ * 0.5, 1e-12, 0, "fz_damping");
  th_assertClose(r.pe, fe / D2, 1e-12, 0, "pe");
  th_assertClose(r.power, CZ * 0.25 * fe, 1e-12, 0, "power");

  // leaving faster than 1/cz: the plane does not pull, the damping part cancels the elastic one
  *vz = 3.0;
  cs_invalidate(d);
  cs_contactReport(m, d, e, &r);
  assert_true(r.force.v.z == 0);
  th_assertClose(extra(m, d, e, "fz_damping"), -extra(m, d, e, "fz_elastic"), 1e-15, 0,
                 "clipped damping");
  assert_true(r.power >= 0);

  // deep inside: capped at max_fz; the elastic part is reported as what remains
  *pz = -0.01;
  *vz = 0;
  cs_invalidate(d);
  cs_contactReport(m, d, e, &r);
  th_assertClose(r.force.v.z, MAXFZ, 1e-15, 0, "capped fz");
  th_assertClose(extra(m, d, e, "fz_elastic") + extra(m, d, e, "fz_damping"), MAXFZ, 1e-15, 0,
                 "capped parts");
  cs_deleteData(d);
  cs_deleteModel(m);
}


// a block dropped from 1 cm on a flat floor comes to rest where each corner carries m g / 4
// (the normal damping ratio is about 2%, so the bounce takes several seconds to die out)
static void test_resting_block(void** state) {
  (void)state;
  blockModel bm = makeBlock(0, 0.01, csu_vec3(0, 0, 0), csu_vec3(0, 0, 0));
  csSimOptions o = options(8.0, 0.5);
  o.rtol = 1e-9;  // the default tolerances leave a 1e-8 m ripple on the 3 mm height
  o.atol = 1e-12;
  csData* d = th_run(bm.m, &o, NULL);
  double pzEq = equilibriumHeight(0);
  double total = 0;
  for (int e = bm.first; e < bm.first + 4; e++) {
    csContactReport r;
    cs_contactReport(bm.m, d, e, &r);
    double pz = extra(bm.m, d, e, "station_z");
    th_assertClose(pz, pzEq, 0, 1e-10, "corner height at rest");
    total += r.force.v.z;
  }
  th_assertClose(total, MASS * G, 1e-6, 0, "total normal force");
  th_assertClose(d->body_pose[bm.body].p.z - HALF, pzEq, 0, 1e-10, "block height");
  print_message("resting block: corner height %.12f m (analytic %.12f m)\n",
                d->body_pose[bm.body].p.z - HALF, pzEq);
  printStats("resting block", d);
  cs_deleteData(d);
  cs_deleteModel(bm.m);
}


// invariants checked at every report of a run
typedef struct checkCtx {
  int first, n;
  double worstRatio;   // max |friction| / limit
  double worstPlane;   // max |p0_z|
  long rows;
} checkCtx;


static int checkInvariants(void* ctx, const csModel* m, csData* d) {
  checkCtx* c = ctx;
  for (int e = c->first; e < c->first + c->n; e++) {
    csContactReport r;
    assert_int_equal(cs_contactReport(m, d, e, &r), 0);
    double fx = extra(m, d, e, "fxy_elastic_x") + extra(m, d, e, "fxy_damping_x");
    double fy = extra(m, d, e, "fxy_elastic_y") + extra(m, d, e, "fxy_damping_y");
    double fz = extra(m, d, e, "fz_elastic") + extra(m, d, e, "fz_damping");
    double mu = extra(m, d, e, "mu");
    double sliding = extra(m, d, e, "sliding");
    double friction = hypot(fx, fy);
    // the reported parts add up to the applied force, whose normal part is >= 0
    th_assertClose(csu_norm(r.force.v), sqrt(friction * friction + fz * fz), 1e-12, 1e-12,
                   "force magnitude");
    assert_true(fz >= 0);
    assert_true(sliding >= 0 && sliding <= 1);
    assert_true(mu >= MUK - 1e-15 && mu <= MUS + 1e-15);
    if (friction > mu * fz * (1 + 1e-12) + 1e-12) {
      print_error("t = %g, element %d: friction %.12g exceeds mu fz = %.12g\n", d->t, e,
                  friction, mu * fz);
      fail();
    }
    if (mu * fz > 1e-9 && friction / (mu * fz) > c->worstRatio) {
      c->worstRatio = friction / (mu * fz);
    }
    // the anchor is never farther from the station than the friction limit allows
    double stretch = hypot(extra(m, d, e, "station_x") - extra(m, d, e, "p0_x"),
                           extra(m, d, e, "station_y") - extra(m, d, e, "p0_y"));
    assert_true(KXY * stretch <= mu * fz * (1 + 1e-12) + 1e-12);
    if (fabs(extra(m, d, e, "p0_z")) > c->worstPlane) {
      c->worstPlane = fabs(extra(m, d, e, "p0_z"));
    }
    assert_true(r.power >= 0);
  }
  c->rows++;
  return 0;
}


// a block thrown sliding and spinning: |friction| <= mu fz, 0 <= Sliding <= 1 and the anchor
// in the plane at every report; it comes to rest
static void test_slide_and_spin(void** state) {
  (void)state;
  blockModel bm = makeBlock(0, equilibriumHeight(0), csu_vec3(0, 0, 12), csu_vec3(3, 0, 0));
  csSimOptions o = options(3.0, 0.002);
  checkCtx c = {.first = bm.first, .n = 4};
  csData* d = cs_makeData(bm.m);
  csReporter rep = {.report = checkInvariants, .ctx = &c};
  csError err = {0};
  assert_int_equal(cs_simulate(bm.m, d, &o, &rep, &err), CS_OK);
  assert_true(c.rows >= 1500);
  assert_true(c.worstPlane == 0);
  // at rest at the end
  assert_true(csu_norm(d->body_vel[bm.body].v) < 1e-3);
  assert_true(csu_norm(d->body_vel[bm.body].w) < 1e-2);
  print_message("slide and spin: max |friction|/(mu fz) = %.15f over %ld rows\n", c.worstRatio,
                c.rows);
  printStats("slide and spin", d);
  cs_deleteData(d);
  cs_deleteModel(bm.m);
}


// sliding at 3 m/s the block stops after v^2 / (2 muk g) (Coulomb friction, kinetic)
static void test_stopping_distance(void** state) {
  (void)state;
  double v0 = 3.0;
  blockModel bm = buildBlock(0, SLAB);
  placeBlock(&bm, equilibriumHeight(0), csu_vec3(0, 0, 0), csu_vec3(v0, 0, 0));
  csSimOptions o = options(2.0, 0.1);
  csData* d = th_run(bm.m, &o, NULL);
  double expected = v0 * v0 / (2 * MUK * G);
  double got = d->body_pose[bm.body].p.x;
  print_message("stopping distance %.6f m, Coulomb %.6f m (error %.3f%%)\n", got, expected,
                100 * (got - expected) / expected);
  th_assertClose(got, expected, 0.01, 0, "stopping distance");
  printStats("stopping distance", d);
  cs_deleteData(d);
  cs_deleteModel(bm.m);
}


// on a 20 degree incline (tan 20 = 0.36 < mus) the block started at its equilibrium height
// stays put once settled: the anchors hold it without creep. It starts "sliding" (Sliding = 1,
// pure damping) and slips about a millimetre before the anchors catch it.
static void test_incline_sticks(void** state) {
  (void)state;
  double theta = 20 * PI / 180;
  blockModel bm = makeBlock(theta, equilibriumHeight(theta), csu_vec3(0, 0, 0),
                            csu_vec3(0, 0, 0));
  csSimOptions o = options(12.0, 0.5);
  thTrace tr = {0};
  csData* d = th_run(bm.m, &o, &tr);
  csVec3 p0 = tracePos(&tr, 0);
  csVec3 p1 = tracePos(&tr, traceRow(&tr, 2.0));
  csVec3 p11 = tracePos(&tr, traceRow(&tr, 12.0));
  double drift = csu_norm(csu_sub(p11, p1));
  double settle = csu_dot(csu_sub(p1, p0), bm.downhill);
  print_message("20 deg incline: slip while settling %.3g m (first 2 s), then drift %.3g m over "
                "10 s\n", settle, drift);
  for (int e = bm.first; e < bm.first + 4; e++) {
    csContactReport r;
    cs_contactReport(bm.m, d, e, &r);
    print_message("  corner %d: sliding %.3g, mu %.4g\n", e - bm.first,
                  extra(bm.m, d, e, "sliding"), extra(bm.m, d, e, "mu"));
  }
  assert_true(drift < 1e-5);
  assert_true(fabs(settle) < 5e-3);
  printStats("20 deg incline", d);
  th_traceFree(&tr);
  cs_deleteData(d);
  cs_deleteModel(bm.m);
}


// on a 40 degree incline (tan 40 = 0.84 > mus) the slab slides with g (sin - muk cos)
static void test_incline_slides(void** state) {
  (void)state;
  double theta = 40 * PI / 180;
  blockModel bm = buildBlock(theta, SLAB);
  placeBlock(&bm, equilibriumHeight(theta), csu_vec3(0, 0, 0), csu_vec3(0, 0, 0));
  csSimOptions o = options(2.0, 0.1);
  thTrace tr = {0};
  csData* d = th_run(bm.m, &o, &tr);
  double v1 = csu_dot(traceVel(&tr, traceRow(&tr, 1.0)), bm.downhill);
  double v2 = csu_dot(traceVel(&tr, traceRow(&tr, 2.0)), bm.downhill);
  double a = (v2 - v1) / 1.0;
  double expected = G * (sin(theta) - MUK * cos(theta));
  print_message("40 deg incline: a = %.6f m/s^2, g(sin - muk cos) = %.6f (error %.4f%%)\n", a,
                expected, 100 * (a - expected) / expected);
  th_assertClose(a, expected, 0.01, 0, "acceleration along the slope");
  printStats("40 deg incline", d);
  th_traceFree(&tr);
  cs_deleteData(d);
  cs_deleteModel(bm.m);
}


// the coefficient rules: 0 <= muk <= mus is kept by moving the other coefficient
static void test_mu_rules(void** state) {
  (void)state;
  blockModel bm = makeBlock(0, 0.01, csu_vec3(0, 0, 0), csu_vec3(0, 0, 0));
  csData* d = cs_makeData(bm.m);
  int e = bm.first, s = discIndex("mu_static"), k = discIndex("mu_dynamic");
  const double* disc = d->disc + bm.m->force[e].discadr;
  assert_true(disc[s] == MUS && disc[k] == MUK);
  cs_setDiscrete(bm.m, d, e, s, 0.3);  // below muk: muk follows
  assert_true(disc[s] == 0.3 && disc[k] == 0.3);
  cs_setDiscrete(bm.m, d, e, k, 0.9);  // above mus: mus follows
  assert_true(disc[s] == 0.9 && disc[k] == 0.9);
  cs_setDiscrete(bm.m, d, e, k, 0.4);  // below mus: mus stays
  assert_true(disc[s] == 0.9 && disc[k] == 0.4);
  cs_setDiscrete(bm.m, d, e, s, 1.5);  // above muk: muk stays
  assert_true(disc[s] == 1.5 && disc[k] == 0.4);
  cs_setDiscrete(bm.m, d, e, k, -2);   // negative becomes zero
  assert_true(disc[s] == 1.5 && disc[k] == 0);
  cs_setDiscrete(bm.m, d, e, s, -1);   // negative becomes zero, muk follows
  assert_true(disc[s] == 0 && disc[k] == 0);
  // other elements are untouched
  const double* other = d->disc + bm.m->force[e + 1].discadr;
  assert_true(other[s] == MUS && other[k] == MUK);
  cs_deleteData(d);
  cs_deleteModel(bm.m);
}


// a scheduled change lowering mus to 0.2 at t = 2 s on the 20 degree incline: the block holds
// until then and slides afterwards with g (sin - 0.2 cos) (muk follows mus down to 0.2)
static void test_mu_change_starts_sliding(void** state) {
  (void)state;
  double theta = 20 * PI / 180, tchange = 2.0, mu = 0.2;
  blockModel bm = buildBlock(theta, HALF);
  for (int e = bm.first; e < bm.first + 4; e++) {
    csChange c = {.time = tchange, .force = e, .index = discIndex("mu_static"), .value = mu};
    csError err = {0};
    assert_true(cs_addChange(bm.m, &c, &err) >= 0);
  }
  placeBlock(&bm, equilibriumHeight(theta), csu_vec3(0, 0, 0), csu_vec3(0, 0, 0));
  csSimOptions o = options(4.0, 0.05);
  thTrace tr = {0};
  csData* d = th_run(bm.m, &o, &tr);
  // at rest between settling and the change
  double vmaxBefore = 0;
  for (int i = 0; i < tr.n; i++) {
    if (tr.t[i] >= 1.0 && tr.t[i] <= tchange) {
      vmaxBefore = fmax(vmaxBefore, csu_norm(traceVel(&tr, i)));
    }
  }
  csVec3 pa = tracePos(&tr, traceRow(&tr, 1.0)), pb = tracePos(&tr, traceRow(&tr, tchange));
  double driftBefore = csu_norm(csu_sub(pb, pa));
  // sliding afterwards with the new coefficient
  double v3 = csu_dot(traceVel(&tr, traceRow(&tr, 3.0)), bm.downhill);
  double v4 = csu_dot(traceVel(&tr, traceRow(&tr, 4.0)), bm.downhill);
  double expected = G * (sin(theta) - mu * cos(theta));
  print_message("mu change: before t = 2 s max speed %.3g m/s, drift %.3g m; after: a = %.5f "
                "(expected %.5f)\n", vmaxBefore, driftBefore, v4 - v3, expected);
  assert_true(vmaxBefore < 1e-4);
  assert_true(driftBefore < 1e-5);
  th_assertClose(v4 - v3, expected, 0.01, 0, "acceleration after the change");
  for (int e = bm.first; e < bm.first + 4; e++) {
    const double* disc = d->disc + bm.m->force[e].discadr;
    assert_true(disc[discIndex("mu_static")] == mu && disc[discIndex("mu_dynamic")] == mu);
  }
  printStats("mu change", d);
  th_traceFree(&tr);
  cs_deleteData(d);
  cs_deleteModel(bm.m);
}


// a plane carried by a moving, spinning platform: the forces on the block and on the platform
// are equal and opposite with zero net moment about a common point; a block moving rigidly with
// the platform feels no damping
static void test_moving_plane(void** state) {
  (void)state;
  csModel* m = cs_newModel("platform");
  int plat = addBox(m, "platform", 5.0, csu_vec3(0.5, 0.5, 0.05));
  int blk = addBox(m, "block", 1.0, csu_vec3(0.1, 0.1, 0.1));
  csQuat qPlane = csu_quatFromAxisAngle(csu_vec3(1, 0, 0), 0.1);
  int pl = th_addPlane(m, "deck", plat, csu_transformFromPosQuat(csu_vec3(0.05, 0, 0.05), qPlane));
  int e = addSpring(m, "spring", blk, pl, csu_vec3(0.02, -0.03, -0.1));
  th_finalize(m);
  csQuat qp = csu_quatFromAxisAngle(csu_vec3(1, 2, 3), 0.4);
  csVec3 pp = csu_vec3(0.3, -0.1, 0.7);
  csVec3 wp = csu_vec3(0.5, -1.0, 2.0), vp = csu_vec3(0.2, 0.1, -0.3);
  th_setFreeState(m, m->q0, m->u0, plat, qp, pp, wp, vp);
  // the block sits 3 mm above the deck with its own orientation and velocity
  csTransform X_GPlat = csu_transformFromPosQuat(pp, qp);
  csTransform X_GD = csu_transformMul(&X_GPlat, &m->plane[pl].X_BP);
  csQuat qb = csu_quatFromAxisAngle(csu_vec3(0, 1, 1), 0.3);
  csVec3 stationB = csu_vec3(0.02, -0.03, -0.1);
  csVec3 target = csu_transformPoint(&X_GD, csu_vec3(0.1, 0.2, 0.003));
  csVec3 pb = csu_sub(target, csu_quatRotate(qb, stationB));
  th_setFreeState(m, m->q0, m->u0, blk, qb, pb, csu_vec3(1, 0.5, -2), csu_vec3(-0.4, 0.3, 0.2));
  csData* d = cs_makeData(m);
  // move the anchor off the station so the friction spring is loaded too
  d->autoval[m->force[e].autoadr] -= 0.0004;
  d->autoval[m->force[e].autoadr + 2] = 0.5;
  cs_invalidate(d);
  cs_realizeDynamics(m, d);
  const csSpatialVec* Fp = &d->body_force[plat];
  const csSpatialVec* Fb = &d->body_force[blk];
  csVec3 force = csu_add(Fp->v, Fb->v);
  csVec3 moment = csu_add(csu_add(Fp->w, csu_cross(d->body_pose[plat].p, Fp->v)),
                          csu_add(Fb->w, csu_cross(d->body_pose[blk].p, Fb->v)));
  assert_true(csu_norm(Fb->v) > 1);
  assert_true(csu_norm(force) < 1e-12 * csu_norm(Fb->v));
  assert_true(csu_norm(moment) < 1e-12 * csu_norm(Fb->v));
  // the force on the block is the reported one, applied at the station
  csContactReport r;
  cs_contactReport(m, d, e, &r);
  assert_true(csu_norm(csu_sub(r.force.v, Fb->v)) < 1e-12 * csu_norm(Fb->v));
  csVec3 rb = csu_sub(r.point, d->body_pose[blk].p);
  assert_true(csu_norm(csu_sub(csu_cross(rb, r.force.v), Fb->w)) < 1e-12 * csu_norm(Fb->v));
  th_assertClose(extra(m, d, e, "station_z"), 0.003, 0, 1e-12, "height above the deck");

  // block moving rigidly with the platform: no relative velocity, no damping, no dissipation
  double* ub = d->u + m->body[blk].uadr;
  csVec3 vOrigin = cs_pointVelocity(m, d, plat, d->body_pose[blk].p);
  csu_vec3ToArray(ub, wp);
  csu_vec3ToArray(ub + 3, vOrigin);
  cs_invalidate(d);
  cs_contactReport(m, d, e, &r);
  assert_true(fabs(extra(m, d, e, "station_vx")) < 1e-12);
  assert_true(fabs(extra(m, d, e, "station_vz")) < 1e-12);
  assert_true(fabs(extra(m, d, e, "fz_damping")) < 1e-9);
  assert_true(fabs(extra(m, d, e, "fxy_damping_x")) < 1e-9);
  th_assertClose(extra(m, d, e, "fz_elastic"), normalForce(0.003, 0), 1e-12, 0, "elastic fz");
  // the elastic friction pulls the station back to the anchor with kxy (1 - Sliding) stretch
  th_assertClose(extra(m, d, e, "fxy_elastic_x"), -KXY * 0.0004 * 0.5, 1e-9, 0, "elastic fx");
  assert_true(fabs(r.power) < 1e-9);
  cs_deleteData(d);
  cs_deleteModel(m);
}


// without friction the contact is conservative apart from its normal damping, which the
// dissipated-energy state accounts for: KE + PE + dissipated stays at its initial value while
// the block bounces; its horizontal velocity never changes
static void test_frictionless_energy(void** state) {
  (void)state;
  blockModel bm = buildBlock(0, HALF);
  for (int e = bm.first; e < bm.first + 4; e++) {
    assert_int_equal(cs_setForceParam(bm.m, e, "mu_dynamic", 0), 0);
    assert_int_equal(cs_setForceParam(bm.m, e, "mu_static", 0), 0);
  }
  placeBlock(&bm, 0.05, csu_vec3(0, 0, 0), csu_vec3(1.0, 0, -0.5));
  csSimOptions o = options(1.0, 0.01);
  o.rtol = 1e-9;
  o.atol = 1e-11;
  thTrace tr = {0};
  csData* d = th_run(bm.m, &o, &tr);
  double e0 = tr.ke[0] + tr.pe[0] + tr.diss[0], worst = 0;
  for (int i = 0; i < tr.n; i++) {
    worst = fmax(worst, fabs(tr.ke[i] + tr.pe[i] + tr.diss[i] - e0));
    th_assertClose(traceVel(&tr, i).x, 1.0, 1e-9, 0, "horizontal velocity");
  }
  print_message("frictionless: energy error %.3g J of %.4g J, dissipated %.4g J\n", worst, e0,
                tr.diss[tr.n - 1]);
  assert_true(tr.diss[tr.n - 1] > 0.01);
  assert_true(worst < 1e-5 * fabs(e0));
  printStats("frictionless", d);
  th_traceFree(&tr);
  cs_deleteData(d);
  cs_deleteModel(bm.m);
}


// mass_for_damping sets the friction damping to 2 sqrt(kxy m); bad parameters name their key
static void test_parameters(void** state) {
  (void)state;
  // friction damping at a small sliding speed (below the limit, Sliding = 1 at the start)
  double mass = 4.0, vx = 0.005;
  for (int pass = 0; pass < 2; pass++) {
    csModel* m = cs_newModel("damping");
    int b = addBox(m, "ball", 1.0, csu_vec3(0.1, 0.1, 0.1));
    int p = th_addPlane(m, "floor", 0, csu_transformIdentity());
    int e = addSpring(m, "spring", b, p, csu_vec3(0, 0, 0));
    if (pass == 1) {
      assert_int_equal(cs_setForceParam(m, e, "mass_for_damping", mass), 0);
    }
    th_finalize(m);
    th_setFreeState(m, m->q0, m->u0, b, csu_quatIdentity(), csu_vec3(0, 0, 0), csu_vec3(0, 0, 0),
                    csu_vec3(vx, 0, 0));
    csData* d = cs_makeData(m);
    cs_realizeDynamics(m, d);
    double cxy = pass ? 2 * sqrt(KXY * mass) : 2 * sqrt(KXY * 1.0);
    th_assertClose(d->body_force[b].v.x, -cxy * vx, 1e-12, 0, "friction damping");
    cs_deleteData(d);
    cs_deleteModel(m);
  }

  // each bad value is refused with its key in the error path
  const struct {
    const char* key;
    double value;
  } bad[] = {{"d1", 0}, {"d2", -1}, {"cz", -0.1}, {"max_fz", 0}, {"kxy", 0}, {"cxy", -1},
             {"v_settle", 0}, {"mu_static", -0.1}, {"mu_dynamic", 0.8}, {"d0", NAN},
             {"mass_for_damping", -2}};
  for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
    csModel* m = cs_newModel("bad");
    int b = addBox(m, "ball", 1.0, csu_vec3(0.1, 0.1, 0.1));
    int p = th_addPlane(m, "floor", 0, csu_transformIdentity());
    int e = addSpring(m, "spring", b, p, csu_vec3(0, 0, 0));
    assert_int_equal(cs_setForceParam(m, e, bad[i].key, bad[i].value), 0);
    csError err = {0};
    assert_int_not_equal(cs_finalizeModel(m, &err), 0);
    assert_int_equal(err.code, CS_ERR_INPUT);
    if (strcmp(err.path, bad[i].key) != 0 || strstr(err.message, bad[i].key) == NULL) {
      print_error("%s = %g: path '%s', message '%s'\n", bad[i].key, bad[i].value, err.path,
                  err.message);
      fail();
    }
    cs_deleteModel(m);
  }

  // the body must not be ground, and must not carry its own plane
  csModel* m = cs_newModel("bad");
  int b = addBox(m, "ball", 1.0, csu_vec3(0.1, 0.1, 0.1));
  int p = th_addPlane(m, "deck", b, csu_transformIdentity());
  addSpring(m, "spring", b, p, csu_vec3(0, 0, 0));
  csError err = {0};
  assert_int_not_equal(cs_finalizeModel(m, &err), 0);
  assert_string_equal(err.path, "plane");
  cs_deleteModel(m);
}


// the bundled scenes: the incline holds the cube until its scheduled change at 2 s, then it
// slides with g (sin 20 - 0.2 cos 20); the thrown cube ends at rest
static void test_scenes(void** state) {
  (void)state;
  csModel* m = th_loadFile("scenes/exp_spring_incline.json");
  int b = cs_bodyId(m, "block");
  assert_true(b > 0);
  thTrace tr = {0};
  csData* d = th_run(m, NULL, &tr);
  double theta = 20 * PI / 180;
  csVec3 downhill = csu_vec3(cos(theta), 0, -sin(theta));
  double vmax = 0;
  for (int i = 0; i < tr.n; i++) {
    if (tr.t[i] >= 1.0 && tr.t[i] <= 2.0) {
      vmax = fmax(vmax, csu_norm(traceVel(&tr, i)));
    }
  }
  double a = csu_dot(csu_sub(traceVel(&tr, traceRow(&tr, 4.0)), traceVel(&tr, traceRow(&tr, 3.0))),
                     downhill);
  print_message("incline scene: max speed in [1, 2] s %.3g m/s, then a = %.5f m/s^2\n", vmax, a);
  assert_true(vmax < 1e-4);
  th_assertClose(a, G * (sin(theta) - 0.2 * cos(theta)), 0.01, 0, "scene acceleration");
  th_traceFree(&tr);
  cs_deleteData(d);
  cs_deleteModel(m);

  m = th_loadFile("scenes/exp_spring_block.json");
  b = cs_bodyId(m, "block");
  d = th_run(m, NULL, NULL);
  assert_true(csu_norm(d->body_vel[b].v) < 1e-3 && csu_norm(d->body_vel[b].w) < 1e-2);
  cs_deleteData(d);
  cs_deleteModel(m);
}


// the right-hand side allocates nothing
static void test_no_allocation(void** state) {
  (void)state;
  blockModel bm = makeBlock(0.3, 0.002, csu_vec3(1, 2, 3), csu_vec3(0.5, -0.2, -0.1));
  csData* d = cs_makeData(bm.m);
  long before = csu_allocationCount();
  for (int i = 0; i < 10; i++) {
    cs_invalidate(d);
    assert_int_equal(cs_forward(bm.m, d), 0);
    cs_commitAutoUpdates(bm.m, d);
  }
  assert_int_equal(csu_allocationCount(), before);
  cs_deleteData(d);
  cs_deleteModel(bm.m);
}


// a ball of the given mass on one exponential spring at its centre (the spring's parameters and
// the simulation block given as JSON members), released at rest at height z0 over a floor
static csModel* capBall(double mass, double z0, const char* spring, const char* simulation) {
  char json[1024];
  snprintf(json, sizeof(json),
           "{\"bodies\": [{\"name\": \"ball\", \"mass\": %g, \"inertia\": {\"sphere\": 0.1},"
           "   \"joint\": {\"type\": \"free\", \"initial\": {\"position\": [0, 0, %g]}}}],"
           " \"planes\": [{\"name\": \"floor\"}],"
           " \"contacts\": [{\"name\": \"foot\", \"body\": \"ball\", \"plane\": \"floor\","
           "   \"points\": [[0, 0, 0]]}],"
           " \"contact_models\": {\"exponential_spring\": {%s}},"
           " \"simulation\": {%s}}",
           mass, z0, spring, simulation);
  return th_loadString(json);
}


// The cap: a 100 kg ball on one spring capped at max_fz = 100 N sinks through the plane with the
// constant acceleration g - max_fz / m from the start (the exponential exceeds 100 N at the
// plane), down to 4.4 m below it, where the exponential itself is far beyond the range of
// doubles. Its height is z0 - (g - max_fz / m) t^2 / 2, and the capped spring is a conservative
// element (its force a function of the depth alone): KE + PE + dissipated keeps its start value,
// nothing is dissipated, and every report is finite.
static void test_cap_sinks_conservatively(void** state) {
  (void)state;
  csModel* m =
      capBall(100, 0, "\"max_fz\": 100", "\"duration\": 1, \"rtol\": 1e-8, \"atol\": 1e-10");
  thTrace tr = {0};
  csData* d = th_run(m, NULL, &tr);
  double a = 9.81 - 100.0 / 100.0;
  const csBody* b = &m->body[1];
  for (int i = 0; i < tr.n; i++) {
    double t = tr.t[i];
    th_assertClose(tr.q[i * tr.nq + b->qadr + 6], -0.5 * a * t * t, 0, 1e-8, "z(t)");
    assert_true(isfinite(tr.pe[i]) && isfinite(tr.ke[i]) && isfinite(tr.diss[i]));
    // to the integration error: a height 1e-9 m off moves the net weight's energy by 9e-7 J
    // (KE grows to 3,900 J; before the cap was part of the elastic curve, PE reached 1e14 J at
    // 3 cm and overflowed at 0.6 m)
    th_assertClose(tr.ke[i] + tr.pe[i] + tr.diss[i], tr.ke[0] + tr.pe[0] + tr.diss[0], 0,
                   1e-6 + 1e-9 * tr.ke[i], "KE + PE + dissipated");
    assert_true(fabs(tr.diss[i]) < 1e-9);
  }
  // the last report is 4.4 m deep: the force is still the cap, its energy max_fz per metre
  assert_true(d->body_pose[1].p.z < -4.4);
  csContactReport r;
  int e = cs_forceId(m, "foot.0");
  cs_contactReport(m, d, e, &r);
  th_assertClose(r.force.v.z, 100.0, 1e-15, 0, "capped force deep down");
  assert_true(r.power >= 0 && isfinite(r.pe));
  print_message("sunk %.3f m at t = 1 s; KE %.6g J, PE %.6g J\n", -d->body_pose[1].p.z,
                tr.ke[tr.n - 1], tr.pe[tr.n - 1]);
  th_traceFree(&tr);
  cs_deleteData(d);
  cs_deleteModel(m);
}


// Through the cap and back: an undamped spring (cz = 0) capped at 30 N under a 1 kg ball
// dropped from 5 cm. The ball sinks past the depth z_max where the exponential reaches the cap
// (there the force stays 30 N and the potential energy grows by 30 J per metre), is pushed back
// by the net 20 N, crosses z_max again and leaves the plane: a conservative bounce, so KE + PE
// keeps its start value throughout (a step in PE at z_max, or a rate that disagreed with it,
// would show) and the ball climbs back to 5 cm.
static void test_cap_crossed_and_rebound(void** state) {
  (void)state;
  csModel* m = capBall(1, 0.05, "\"max_fz\": 30, \"cz\": 0",
                       "\"duration\": 0.35, \"report_interval\": 0.001, \"rtol\": 1e-10, "
                       "\"atol\": 1e-12");
  thTrace tr = {0};
  csData* d = th_run(m, NULL, &tr);
  const csBody* b = &m->body[1];
  double zmax = D0 - log(30.0 / D1) / D2, lowest = INFINITY, highest_after = -INFINITY;
  int bottom = 0;
  for (int i = 0; i < tr.n; i++) {
    double z = tr.q[i * tr.nq + b->qadr + 6];
    if (z < lowest) {
      lowest = z;
      bottom = i;
    }
    th_assertClose(tr.ke[i] + tr.pe[i] + tr.diss[i], tr.ke[0] + tr.pe[0] + tr.diss[0], 0, 1e-6,
                   "KE + PE through the cap");
    // nothing damps or rubs: no energy is booked as dissipated (the cap once booked the
    // exponential's excess as negative dissipation, 1e9 J at this depth)
    assert_true(fabs(tr.diss[i]) < 1e-9);
  }
  for (int i = bottom; i < tr.n; i++) {
    highest_after = fmax(highest_after, tr.q[i * tr.nq + b->qadr + 6]);
  }
  print_message("cap at z_max = %.5f m; lowest %.5f m; back up to %.6f m\n", zmax, lowest,
                highest_after);
  assert_true(lowest < zmax - 0.005);
  th_assertClose(highest_after, 0.05, 0, 1e-4, "rebound height");
  th_traceFree(&tr);
  cs_deleteData(d);
  cs_deleteModel(m);
}


int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_normal_force),
      cmocka_unit_test(test_resting_block),
      cmocka_unit_test(test_cap_sinks_conservatively),
      cmocka_unit_test(test_cap_crossed_and_rebound),
      cmocka_unit_test(test_slide_and_spin),
      cmocka_unit_test(test_stopping_distance),
      cmocka_unit_test(test_incline_sticks),
      cmocka_unit_test(test_incline_slides),
      cmocka_unit_test(test_mu_rules),
      cmocka_unit_test(test_mu_change_starts_sliding),
      cmocka_unit_test(test_moving_plane),
      cmocka_unit_test(test_frictionless_energy),
      cmocka_unit_test(test_parameters),
      cmocka_unit_test(test_scenes),
      cmocka_unit_test(test_no_allocation),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
