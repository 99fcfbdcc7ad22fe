// test_point_models.c: compliant_point against its equations (linear penalty, damping, Stribeck
// friction, material pairs), recomputed here; drops against energy conservation and the
// first-order restitution law; a block on four corners against statics (centre of pressure).
// Models are built with the C API; states are written by hand and realized to dynamics.
#include <stdio.h>
#include <string.h>

#include "helpers.h"

#define G 9.81
#define RADIUS 0.1     // the dropped ball; its contact station is its lowest point


// ---------------------------------------------------------------------------------------------
// fixtures

typedef struct rig {
  csModel* m;
  int ball;     // body carrying the station
  int plane;    // floor on ground
  int e;        // the contact element
} rig;


// a compliant point on `body` at `station` against plane p; no parameters beyond geometry
static int addPoint(csModel* m, const char* name, int body, int p, csVec3 station) {
  int e = th_addForce(m, CS_FORCE_COMPLIANT_POINT, name);
  th_setParam(m, e, "body", body);
  th_setParam(m, e, "plane", p);
  csu_vec3ToArray(m->force[e].param, station);
  return e;
}


// a ball of mass 1 whose lowest point carries the station
static rig makeRig(int gravity) {
  rig r;
  r.m = cs_newModel("rig");
  r.ball = th_addFreeBody(r.m, "ball", 1.0, csu_vec3(0, 0, 0), csu_inertiaSphere(1.0, RADIUS));
  r.plane = th_addPlane(r.m, "floor", 0, csu_transformIdentity());
  if (gravity) {
    th_addForce(r.m, CS_FORCE_GRAVITY, "gravity");
  }
  r.e = addPoint(r.m, "contact", r.ball, r.plane, csu_vec3(0, 0, -RADIUS));
  return r;
}


// the ball upright with its station at depth x below the floor, moving with v; realized
static void placeBall(const rig* r, csData* d, double x, csVec3 v) {
  th_setFreeState(r->m, d->q, d->u, r->ball, csu_quatIdentity(), csu_vec3(0, 0, RADIUS - x),
                  csu_vec3(0, 0, 0), v);
  cs_invalidate(d);
  cs_realizeDynamics(r->m, d);
}


// ---------------------------------------------------------------------------------------------
// the model's equations, written out independently of the library

static double quintic(double s) {
  s = s < 0 ? 0 : (s > 1 ? 1 : s);
  return s * s * s * (10 - 15 * s + 6 * s * s);
}


// Stribeck friction coefficient at slip speed v
static double stribeck(double v, double vt, double us, double ud, double uv) {
  double mu;
  if (v < vt) {
    mu = us * quintic(v / vt);
  } else if (v < 3 * vt) {
    mu = us - (us - ud) * quintic((v / vt - 1) / 2);
  } else {
    mu = ud;
  }
  return mu + uv * v;
}


// ---------------------------------------------------------------------------------------------
// formulas

static void test_point_force_and_energy(void** state) {
  (void)state;
  const double k = 2e5;
  rig r = makeRig(0);
  th_setParam(r.m, r.e, "penalty_stiffness", k);
  th_finalize(r.m);
  csData* d = cs_makeData(r.m);
  const double xs[] = {-0.01, 0, 1e-6, 0.001, 0.01};
  for (size_t i = 0; i < sizeof(xs) / sizeof(xs[0]); i++) {
    double x = xs[i];
    placeBall(&r, d, x, csu_vec3(0, 0, 0));
    double f = x > 0 ? k * x : 0;
    char what[64];
    snprintf(what, sizeof(what), "fz at x=%g", x);
    // x is recovered from a height near 0.1 m: allow its rounding error
    th_assertClose(d->body_force[r.ball].v.z, f, 1e-12, 1e-9, what);
    snprintf(what, sizeof(what), "pe at x=%g", x);
    th_assertClose(d->force_pe[r.e], x > 0 ? 0.5 * k * x * x : 0, 1e-9, 1e-15, what);
    // straight below the centre: no moment
    th_assertClose(csu_norm(d->body_force[r.ball].w), 0, 0, 1e-12, "moment");
  }
  cs_deleteData(d);
  cs_deleteModel(r.m);
}


// fN = k x (1 + c xdot), never pulling; power = (fN - k x) xdot
static void test_point_damping_and_clamp(void** state) {
  (void)state;
  const double k = 2e5, c = 2.0, x = 0.004;
  rig r = makeRig(0);
  th_setParam(r.m, r.e, "penalty_stiffness", k);
  th_setParam(r.m, r.e, "dissipation", c);
  th_finalize(r.m);
  csData* d = cs_makeData(r.m);
  const double rates[] = {-1.0, -0.5, -0.2, 0, 0.3, 1.5};
  for (size_t i = 0; i < sizeof(rates) / sizeof(rates[0]); i++) {
    double v = rates[i];
    placeBall(&r, d, x, csu_vec3(0, 0, -v));
    double f = k * x * (1 + c * v);
    f = f < 0 ? 0 : f;
    char what[64];
    snprintf(what, sizeof(what), "fz at xdot=%g", v);
    th_assertClose(d->body_force[r.ball].v.z, f, 1e-12, 1e-12, what);
    snprintf(what, sizeof(what), "power at xdot=%g", v);
    th_assertClose(d->force_power[r.e], (f - k * x) * v, 1e-12, 1e-12, what);
  }
  cs_deleteData(d);
  cs_deleteModel(r.m);
}


// friction through the three Stribeck regions, opposite the slip, with its moment arm
static void test_point_stribeck(void** state) {
  (void)state;
  const double k = 2e5, x = 0.003, us = 0.9, ud = 0.5, uv = 0.05, vt = 0.02;
  rig r = makeRig(0);
  th_setParam(r.m, r.e, "penalty_stiffness", k);
  th_setParam(r.m, r.e, "mu_static", us);
  th_setParam(r.m, r.e, "mu_dynamic", ud);
  th_setParam(r.m, r.e, "mu_viscous", uv);
  th_setParam(r.m, r.e, "transition_velocity", vt);
  th_finalize(r.m);
  csData* d = cs_makeData(r.m);
  const double speeds[] = {0, 0.004, 0.01, 0.02, 0.03, 0.05, 0.06, 0.5};
  for (size_t i = 0; i < sizeof(speeds) / sizeof(speeds[0]); i++) {
    double s = speeds[i];
    csVec3 v = csu_vec3(0.28 * s, 0.96 * s, 0);   // |v| = s
    placeBall(&r, d, x, v);
    double fn = k * x;
    double ff = fn * stribeck(s, vt, us, ud, uv);
    csVec3 F = csu_vec3(s > 0 ? -ff * v.x / s : 0, s > 0 ? -ff * v.y / s : 0, fn);
    char what[64];
    snprintf(what, sizeof(what), "force at slip %g", s);
    th_assertVecClose(d->body_force[r.ball].v, F, 1e-12, 1e-12, what);
    // applied midway through the overlap: x/2 above the station
    csVec3 arm = csu_vec3(0, 0, -RADIUS + 0.5 * x);
    snprintf(what, sizeof(what), "moment at slip %g", s);
    th_assertVecClose(d->body_force[r.ball].w, csu_cross(arm, F), 1e-12, 1e-12, what);
    th_assertClose(d->force_power[r.e], ff * s, 1e-12, 1e-12, "friction power");
    const double* extra = d->force_extra + r.m->force[r.e].repadr;
    csContactReport rep;
    assert_int_equal(cs_contactReport(r.m, d, r.e, &rep), 0);
    th_assertClose(extra[3], ff, 1e-12, 1e-300, "friction_force column");
    th_assertClose(extra[4], s, 1e-12, 1e-300, "slip_speed column");
  }
  // the coefficient is continuous at vt and 3 vt and equals us at vt, ud at 3 vt
  th_assertClose(stribeck(vt, vt, us, ud, 0), us, 1e-15, 0, "mu(vt)");
  th_assertClose(stribeck(3 * vt, vt, us, ud, 0), ud, 1e-15, 0, "mu(3vt)");
  cs_deleteData(d);
  cs_deleteModel(r.m);
}


// two materials: s = k2/(k1+k2), k = k1 s, c = c1 s + c2 (1-s), mu = 2ab/(a+b)
static void test_point_material_pair(void** state) {
  (void)state;
  const double k1 = 2e5, c1 = 1.0, us1 = 0.8, ud1 = 0.6, uv1 = 0.0;
  const double k2 = 6e5, c2 = 3.0, us2 = 0.4, ud2 = 0.2, uv2 = 0.1;
  const double x = 0.002, xdot = 0.3, slip = 0.5, vt = 0.01;
  rig r = makeRig(0);
  th_setParam(r.m, r.e, "body_material.penalty_stiffness", k1);
  th_setParam(r.m, r.e, "body_material.dissipation", c1);
  th_setParam(r.m, r.e, "body_material.mu_static", us1);
  th_setParam(r.m, r.e, "body_material.mu_dynamic", ud1);
  th_setParam(r.m, r.e, "body_material.mu_viscous", uv1);
  th_setParam(r.m, r.e, "plane_material.penalty_stiffness", k2);
  th_setParam(r.m, r.e, "plane_material.dissipation", c2);
  th_setParam(r.m, r.e, "plane_material.mu_static", us2);
  th_setParam(r.m, r.e, "plane_material.mu_dynamic", ud2);
  th_setParam(r.m, r.e, "plane_material.mu_viscous", uv2);
  th_finalize(r.m);
  csData* d = cs_makeData(r.m);
  placeBall(&r, d, x, csu_vec3(slip, 0, -xdot));

  // the pair by hand: s = 0.75, k = 1.5e5, c = 1.5, us = 0.5333, ud = 0.3, uv = 0
  double s = k2 / (k1 + k2);
  double k = k1 * s;
  double c = c1 * s + c2 * (1 - s);
  double us = 2 * us1 * us2 / (us1 + us2), ud = 2 * ud1 * ud2 / (ud1 + ud2);
  double uv = 0;   // one surface has none: 2ab/(a+b) = 0
  th_assertClose(k, 1.5e5, 1e-15, 0, "combined k");
  th_assertClose(c, 1.5, 1e-15, 0, "combined c");
  double fn = k * x * (1 + c * xdot);
  double ff = fn * stribeck(slip, vt, us, ud, uv);
  th_assertVecClose(d->body_force[r.ball].v, csu_vec3(-ff, 0, fn), 1e-12, 1e-12, "pair force");

  // the body's surface takes s of the deformation: the point is s x above the station
  csContactReport rep;
  assert_int_equal(cs_contactReport(r.m, d, r.e, &rep), 0);
  th_assertVecClose(rep.point, csu_vec3(0, 0, -x + s * x), 0, 1e-15, "pair contact point");
  th_assertClose(rep.pe, 0.5 * k * x * x, 1e-12, 0, "pair pe");
  cs_deleteData(d);
  cs_deleteModel(r.m);
}


// the two forms of material input, and what happens when they are mixed or incomplete
static void test_point_validation(void** state) {
  (void)state;
  struct {
    const char* keys[3];
    double values[3];
    const char* path;   // NULL: valid
  } cases[] = {
      {{"penalty_stiffness", NULL, NULL}, {1e5, 0, 0}, NULL},
      {{"body_material.penalty_stiffness", "plane_material.penalty_stiffness", NULL}, {1e5, 2e5, 0}, NULL},
      {{NULL, NULL, NULL}, {0, 0, 0}, "penalty_stiffness"},
      {{"dissipation", NULL, NULL}, {1, 0, 0}, "penalty_stiffness"},
      {{"body_material.penalty_stiffness", "plane_material.penalty_stiffness", "mu_static"}, {1e5, 2e5, 0.5},
       "mu_static"},
      {{"body_material.penalty_stiffness", "body_material.mu_static", NULL}, {1e5, 0.5, 0},
       "plane_material.penalty_stiffness"},
      {{"plane_material.penalty_stiffness", "plane_material.dissipation", NULL}, {1e5, 2, 0},
       "body_material.penalty_stiffness"},
      {{"body_material.penalty_stiffness", "plane_material.penalty_stiffness", NULL}, {-1e5, 2e5, 0},
       "body_material.penalty_stiffness"},
      {{"penalty_stiffness", "transition_velocity", NULL}, {1e5, 0, 0}, "transition_velocity"},
  };
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
    rig r = makeRig(0);
    for (int j = 0; j < 3 && cases[i].keys[j]; j++) {
      th_setParam(r.m, r.e, cases[i].keys[j], cases[i].values[j]);
    }
    csError err = {0};
    int status = cs_finalizeModel(r.m, &err);
    if (!cases[i].path) {
      if (status != 0) {
        print_error("case %zu: %s: %s\n", i, err.path, err.message);
        fail();
      }
    } else {
      assert_int_not_equal(status, 0);
      assert_int_equal(err.code, CS_ERR_INPUT);
      assert_string_equal(err.path, cases[i].path);
    }
    cs_deleteModel(r.m);
  }
}


// ---------------------------------------------------------------------------------------------
// drops

#define Z0 0.6   // initial height of the centre; contact starts at z = RADIUS

// drop the ball from rest at Z0 onto the floor and measure its first bounce
static thBounce drop(double k, double c) {
  rig r = makeRig(1);
  th_setParam(r.m, r.e, "penalty_stiffness", k);
  th_setParam(r.m, r.e, "dissipation", c);
  th_finalize(r.m);
  r.m->q0[r.m->body[r.ball].qadr + 6] = Z0;
  csSimOptions o = th_simOptions(0.75, 1e-10, 1e-12, 1e-3);
  thTrace tr = {0};
  csData* d = th_run(r.m, &o, &tr);
  // the model exerts no force once the station is above the floor
  thBounce res = th_measureBounce(r.m, &tr, r.ball, G, Z0, RADIUS, 0);
  th_traceFree(&tr);
  cs_deleteData(d);
  cs_deleteModel(r.m);
  return res;
}


// no damping: back to the drop height; damping: restitution falls as c grows, and for small c
// matches the first-order law of a linear spring with Hunt-Crossley damping, 1 - e = (2/3) c v
static void test_point_drop(void** state) {
  (void)state;
  const double k = 1e5;
  thBounce el = drop(k, 0);
  printf("compliant_point c=0: apex %.9f (from %.3f), energy drift %.2e, lost %.2e\n", el.apex,
         Z0, el.drift, el.lost);
  th_assertClose(el.apex, Z0, 0, 1e-6, "elastic rebound height");
  assert_true(el.drift < 1e-6);
  assert_true(fabs(el.lost) < 1e-9);

  const double cs[] = {0.02, 0.1, 0.4};
  double vin = sqrt(2 * G * (Z0 - RADIUS));
  double prev = 1.0, first = 0;
  for (int j = 0; j < 3; j++) {
    thBounce dr = drop(k, cs[j]);
    printf("compliant_point c=%g: e = %.5f (first order 1 - 2cv/3 = %.5f), energy drift %.2e\n",
           cs[j], dr.cor, 1 - 2 * cs[j] * vin / 3, dr.drift);
    assert_true(dr.cor < prev);
    assert_true(dr.drift < 1e-6);
    th_assertClose(dr.lost, 1 - dr.cor * dr.cor, 1e-6, 1e-6, "lost energy = 1 - e^2");
    prev = dr.cor;
    if (j == 0) {
      first = dr.cor;
    }
  }
  th_assertClose(1 - first, 2 * cs[0] * vin / 3, 0.1, 0, "1 - e against 2 c v / 3");
}


// ---------------------------------------------------------------------------------------------
// a block resting on four corners: the centre of pressure lies under the centre of mass

// Drop a block with an off-centre mass 2 mm onto four compliant corners, let it settle, and
// return the largest horizontal distance between the group's centre of pressure
// (sum point * fz / sum fz over the four reports) and the centre of mass.
static double blockCopOffset(double mu) {
  const double mass = 2.0, hx = 0.2, hy = 0.1, hz = 0.05;
  const csVec3 com = csu_vec3(0.06, -0.04, 0.01);   // off the geometric centre
  csModel* m = cs_newModel("block");
  int b = th_addFreeBody(m, "block", mass, com, csu_inertiaBox(mass, csu_vec3(hx, hy, hz)));
  int p = th_addPlane(m, "floor", 0, csu_transformIdentity());
  th_addForce(m, CS_FORCE_GRAVITY, "gravity");
  int corners[4];
  for (int i = 0; i < 4; i++) {
    char name[16];
    snprintf(name, sizeof(name), "corner%d", i);
    csVec3 st = csu_vec3((i & 1) ? hx : -hx, (i & 2) ? hy : -hy, -hz);
    corners[i] = addPoint(m, name, b, p, st);
    th_setParam(m, corners[i], "penalty_stiffness", 1e5);
    th_setParam(m, corners[i], "dissipation", 20);
    th_setParam(m, corners[i], "mu_static", mu);
    th_setParam(m, corners[i], "mu_dynamic", 0.75 * mu);
  }
  th_finalize(m);
  m->q0[m->body[b].qadr + 6] = hz + 0.002;
  csSimOptions o = th_simOptions(3.0, 1e-9, 1e-12, 0.1);
  csData* d = th_run(m, &o, NULL);

  double fz = 0, cx = 0, cy = 0;
  for (int i = 0; i < 4; i++) {
    csContactReport rep;
    assert_int_equal(cs_contactReport(m, d, corners[i], &rep), 0);
    assert_true(rep.force.v.z > 0);
    fz += rep.force.v.z;
    cx += rep.point.x * rep.force.v.z;
    cy += rep.point.y * rep.force.v.z;
  }
  cx /= fz;
  cy /= fz;
  csVec3 c = d->body_com[b];
  printf("block mu=%g: sum fz %.9f (m g %.9f), CoP (%.9f, %.9f), com (%.9f, %.9f)\n", mu, fz,
         mass * G, cx, cy, c.x, c.y);
  th_assertClose(fz, mass * G, 1e-6, 0, "sum of normal forces");
  cs_deleteData(d);
  cs_deleteModel(m);
  return fmax(fabs(cx - c.x), fabs(cy - c.y));
}


// Without friction nothing horizontal acts and statics gives CoP = com exactly. With friction
// the Stribeck law has no stiction and is flat at zero slip (mu ~ v^3), so the slip left from
// landing decays slowly and the small friction forces, acting below the centre of mass, shift
// the centre of pressure by (height of com) * ft / fz: a few 1e-8 m after 3 s.
static void test_block_center_of_pressure(void** state) {
  (void)state;
  assert_true(blockCopOffset(0) < 1e-9);
  assert_true(blockCopOffset(0.8) < 1e-6);
}


static void test_point_rhs_allocates_nothing(void** state) {
  (void)state;
  rig r = makeRig(1);
  th_setParam(r.m, r.e, "body_material.penalty_stiffness", 1e5);
  th_setParam(r.m, r.e, "plane_material.penalty_stiffness", 3e5);
  th_setParam(r.m, r.e, "plane_material.mu_static", 0.5);
  th_finalize(r.m);
  csData* d = cs_makeData(r.m);
  long before = csu_allocationCount();
  placeBall(&r, d, 0.001, csu_vec3(0.1, 0.2, -0.3));
  cs_forward(r.m, d);
  csContactReport rep;
  cs_contactReport(r.m, d, r.e, &rep);
  assert_int_equal(csu_allocationCount(), before);
  cs_deleteData(d);
  cs_deleteModel(r.m);
}


// ---------------------------------------------------------------------------------------------
// one friction vocabulary across the contact kinds

// a 2 kg block dropped 1 cm onto four corner contacts, sliding at 3 m/s; friction 0.8 until a
// scheduled change
// at t = 0.2 s lowers it to mu_static 0.3, mu_dynamic 0.2 (the documented change, under every
// model). Sphere centres sit one radius above the corners, so every model touches at z = -0.1.
static const char* g_slideScene =
    "{\"gravity\": [0, 0, -9.81],"
    " \"bodies\": [{\"name\": \"block\", \"mass\": 2, \"inertia\": {\"box\": [0.1, 0.1, 0.1]},"
    "   \"joint\": {\"type\": \"free\", \"initial\": {\"position\": [0, 0, 0.11],"
    "     \"velocity\": [3, 0, 0]}}}],"
    " \"planes\": [{\"name\": \"floor\"}],"
    " \"contacts\": [{\"name\": \"block\", \"body\": \"block\", \"plane\": \"floor\","
    "   \"radius\": 0.01, \"points\": [[-0.1, -0.1, -0.1], [0.1, -0.1, -0.1], [-0.1, 0.1, -0.1],"
    "   [0.1, 0.1, -0.1]]}],"
    " \"contact_models\": {"
    "   \"exponential_spring\": {\"mu_static\": 0.8, \"mu_dynamic\": 0.8},"
    "   \"compliant_point\": {\"penalty_stiffness\": 1e5, \"dissipation\": 2, \"mu_static\": 0.8,"
    "     \"mu_dynamic\": 0.8},"
    "   \"hunt_crossley\": {\"plane_strain_modulus\": 1e8, \"dissipation\": 2,"
    "     \"mu_static\": 0.8, \"mu_dynamic\": 0.8},"
    "   \"smooth_sphere_half_space\": {\"plane_strain_modulus\": 1e8, \"dissipation\": 2,"
    "     \"mu_static\": 0.8, \"mu_dynamic\": 0.8}},"
    " \"changes\": [{\"time\": 0.2, \"force\": \"block\", \"mu_static\": 0.3,"
    "   \"mu_dynamic\": 0.2}],"
    " \"simulation\": {\"duration\": 0.7, \"rtol\": 1e-7, \"atol\": 1e-9,"
    "   \"report_interval\": 0.01}}";


// Coulomb friction of a sliding block: the friction impulse is mu_dynamic times the normal
// impulse, and the normal impulse over [t1, t2] is m (g (t2 - t1) + vz(t2) - vz(t1)) (momentum,
// whatever the bouncing), so mu = (vx(t1) - vx(t2)) / (g (t2 - t1) + vz(t2) - vz(t1)) must be
// the new mu_dynamic = 0.2 under every model (the Stribeck laws give mu_dynamic far above the
// transition velocity, the exponential spring with Sliding = 1)
static void test_friction_change_every_model(void** state) {
  (void)state;
  const char* models[4] = {"exponential_spring", "compliant_point", "hunt_crossley",
                           "smooth_sphere_half_space"};
  for (int i = 0; i < 4; i++) {
    csLoadOptions opt = {.contact_model = models[i]};
    csError err = {0};
    char scene[4096];
    snprintf(scene, sizeof(scene), "%s", g_slideScene);
    csModel* m = cs_loadSceneString(scene, "slide.json", &opt, &err);
    if (!m) {
      fail_msg("%s: %s: %s", models[i], err.path, err.message);
    }
    thTrace tr = {0};
    csData* d = th_run(m, NULL, &tr);
    int b = cs_bodyId(m, "block");
    size_t vx = (size_t)m->body[b].uadr + 3, vz = vx + 2;
    // the velocity at 0.3 s and 0.6 s, after the change at 0.2 s
    double v[2][2] = {{NAN, NAN}, {NAN, NAN}};
    for (int r = 0; r < tr.n; r++) {
      for (int j = 0; j < 2; j++) {
        if (fabs(tr.t[r] - 0.3 * (j + 1)) < 1e-9) {
          v[j][0] = tr.u[(size_t)r * (size_t)tr.nu + vx];
          v[j][1] = tr.u[(size_t)r * (size_t)tr.nu + vz];
        }
      }
    }
    double mu = (v[0][0] - v[1][0]) / (9.81 * 0.3 + v[1][1] - v[0][1]);
    print_message("%-26s friction / normal impulse after the change %.4f (mu_dynamic 0.2); "
                  "still sliding at %.3f m/s\n",
                  models[i], mu, v[1][0]);
    assert_true(v[1][0] > 0.1);
    th_assertClose(mu, 0.2, 0.01, 0, models[i]);
    // every element of the set took the new coefficients
    for (int e = 0; e < m->nforce; e++) {
      if (m->force[e].group == 0) {
        const double* coef = d->disc + m->force[e].discadr;
        assert_true(coef[0] == 0.3 && coef[1] == 0.2);
      }
    }
    th_traceFree(&tr);
    cs_deleteData(d);
    cs_deleteModel(m);
  }
}


// keys of the old vocabulary are refused with a message naming the new key
static void test_old_keys_name_the_new_ones(void** state) {
  (void)state;
  struct {
    const char* model;
    const char* block;
    const char* change;
    const char* path;
    const char* now;
  } cases[] = {
      {"exponential_spring", "{\"mu_kinetic\": 0.5}", "", "mu_kinetic", "'mu_dynamic'"},
      {"exponential_spring", "{}", ", \"mu_kinetic\": 0.1", "mu_kinetic", "'mu_dynamic'"},
      {"hunt_crossley", "{\"stiffness\": 1e7}", "", "stiffness", "'plane_strain_modulus'"},
      {"smooth_sphere_half_space", "{\"static_friction\": 0.5}", "", "static_friction",
       "'mu_static'"},
      {"smooth_sphere_half_space", "{\"stiffness\": 1e7}", "", "stiffness",
       "'plane_strain_modulus'"},
      {"compliant_point", "{\"stiffness\": 1e5}", "", "stiffness", "'penalty_stiffness'"},
      {"compliant_point", "{\"body_material\": {\"stiffness\": 1e5}}", "", "stiffness",
       "'body_material.penalty_stiffness'"},
  };
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
    char scene[2048];
    snprintf(scene, sizeof(scene),
             "{\"bodies\": [{\"name\": \"b\", \"mass\": 1, \"inertia\": {\"box\": [0.1, 0.1, "
             "0.1]}, \"joint\": {\"type\": \"free\"}}], \"planes\": [{\"name\": \"p\"}],"
             " \"contacts\": [{\"name\": \"c\", \"body\": \"b\", \"plane\": \"p\","
             " \"radius\": 0.01, \"points\": [[0, 0, 0]]}],"
             " \"contact_models\": {\"%s\": %s},"
             " \"changes\": [{\"time\": 1, \"force\": \"c\", \"mu_static\": 0.5%s}]}",
             cases[i].model, cases[i].block, cases[i].change);
    csError err = {0};
    csModel* m = cs_loadSceneString(scene, "old.json", NULL, &err);
    print_message("%s: %s\n", err.path, err.message);
    assert_null(m);
    assert_int_equal(err.code, CS_ERR_INPUT);
    assert_non_null(strstr(err.path, cases[i].path));
    assert_non_null(strstr(err.message, cases[i].now));
  }
}


int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_point_force_and_energy),
      cmocka_unit_test(test_point_damping_and_clamp),
      cmocka_unit_test(test_point_stribeck),
      cmocka_unit_test(test_point_material_pair),
      cmocka_unit_test(test_point_validation),
      cmocka_unit_test(test_point_drop),
      cmocka_unit_test(test_block_center_of_pressure),
      cmocka_unit_test(test_point_rhs_allocates_nothing),
      cmocka_unit_test(test_friction_change_every_model),
      cmocka_unit_test(test_old_keys_name_the_new_ones),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
