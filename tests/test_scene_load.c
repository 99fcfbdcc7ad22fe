// test_scene_load.c: the JSON scene loader. Every key of the format lands in the right model
// field (values recomputed here from their definitions), every kind of bad input gives an input
// error naming the JSON path, the bad-input corpus of tests/data/bad, the defaults documented in
// docs/scene-format.md against the code, and the bundled scenes.
#include "engine/forces.h"
#include "helpers.h"
#include "io/study_load.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PI 3.14159265358979323846

// a body whose inertia passes every check, for scenes that are about something else
#define BODY_INERTIA "\"inertia\": {\"diag\": [0.01, 0.01, 0.01]}"

// ---------------------------------------------------------------------------------------------
// helpers

static void assertVec3(csVec3 a, double x, double y, double z, double tol, const char* what) {
  th_assertClose(a.x, x, 0, tol, what);
  th_assertClose(a.y, y, 0, tol, what);
  th_assertClose(a.z, z, 0, tol, what);
}


static void assertMat(const csMat33* A, const double B[3][3], double tol, const char* what) {
  for (int i = 0; i < 3; i++) {
    for (int j = 0; j < 3; j++) {
      th_assertClose(A->m[i][j], B[i][j], 0, tol, what);
    }
  }
}


// rotation matrix of angle about the unit axis n (Rodrigues), written out independently
static void rodrigues(const double n_in[3], double angle, double R[3][3]) {
  double len = sqrt(n_in[0] * n_in[0] + n_in[1] * n_in[1] + n_in[2] * n_in[2]);
  double n[3] = {n_in[0] / len, n_in[1] / len, n_in[2] / len};
  double c = cos(angle), s = sin(angle);
  double K[3][3] = {{0, -n[2], n[1]}, {n[2], 0, -n[0]}, {-n[1], n[0], 0}};
  for (int i = 0; i < 3; i++) {
    for (int j = 0; j < 3; j++) {
      R[i][j] = (i == j ? c : 0) + (1 - c) * n[i] * n[j] + s * K[i][j];
    }
  }
}


// load text expecting an input error whose path contains `path` (or, for "-", no path)
static void expectError(const char* json, const char* path) {
  csError err;
  memset(&err, 0, sizeof(err));
  csModel* m = cs_loadSceneString(json, "bad.json", NULL, &err);
  if (m) {
    cs_deleteModel(m);
    print_error("scene loaded but should fail at '%s':\n%s\n", path, json);
    fail();
  }
  if (err.code != CS_ERR_INPUT || strcmp(err.file, "bad.json") != 0 ||
      (strcmp(path, "-") == 0 ? err.path[0] != '\0' : strstr(err.path, path) == NULL)) {
    print_error("expected an input error at '%s', got code %d at '%s' (file '%s'): %s\n", path,
                err.code, err.path, err.file, err.message);
    fail();
  }
  assert_true(strlen(err.message) > 0);
}


// a one-body scene with the given joint and body keys spliced in
static char* oneBody(const char* bodyExtra, const char* joint) {
  static char buf[4096];
  snprintf(buf, sizeof(buf), "{\"bodies\": [{\"name\": \"b\", \"mass\": 2.0, %s, \"joint\": %s}]}",
           bodyExtra, joint);
  return buf;
}


// ---------------------------------------------------------------------------------------------
// the top level and defaults

static void test_empty_scene_defaults(void** state) {
  (void)state;
  csError err = {0};
  csModel* m = cs_loadSceneString("{}", "some/dir/my_scene.json", NULL, &err);
  assert_non_null(m);
  assert_string_equal(m->name, "my_scene");
  assert_string_equal(m->file, "some/dir/my_scene.json");
  // a name from a file name is a valid name: a control character as '_', and a long name cut
  // to 63 bytes between characters (40 two-byte characters: 31 of them)
  const char* odd[] = {"d/a\tb\x7f.json", "d/\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9"
                       "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9"
                       "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9"
                       "\xc3\xa9\xc3\xa9.json"};
  // a name given that is too long is refused saying its limit is in bytes (it said 63
  // characters, beside 32 two-byte ones)
  {
    char named[160] = "{\"name\": \"";
    for (int k = 0; k < 32; k++) {
      strcat(named, "\xc3\xa9");
    }
    strcat(named, "\"}");
    assert_null(cs_loadSceneString(named, "n.json", NULL, &err));
    assert_non_null(strstr(err.message, "1 to 63 bytes"));
    assert_non_null(strstr(err.message, "got 64 bytes"));
  }
  for (int i = 0; i < 2; i++) {
    csModel* o = cs_loadSceneString("{}", odd[i], NULL, &err);
    assert_non_null(o);
    if (i == 0) {
      assert_string_equal(o->name, "a_b_");
    } else {
      assert_int_equal(strlen(o->name), 62);
      assert_memory_equal(o->name, odd[i] + 2, 62);
    }
    cs_deleteModel(o);
  }
  assert_int_equal(m->nbody, 1);
  assertVec3(m->gravity, 0, 0, -9.81, 0, "default gravity");
  // the gravity element is added because gravity is not zero
  assert_int_equal(m->nforce, 1);
  assert_int_equal(m->force[0].kind, CS_FORCE_GRAVITY);
  assert_string_equal(m->force[0].name, "gravity");
  csSimOptions d = cs_defaultSimOptions();
  assert_memory_equal(&m->opt, &d, sizeof(d));
  assert_int_equal(m->finalized, 1);
  cs_deleteModel(m);
}


static void test_name_and_gravity(void** state) {
  (void)state;
  csModel* m = th_loadString(
      "{\"name\": \"my model\", \"description\": \"anything\","
      " \"gravity\": [0, 0, 0]}");
  assert_string_equal(m->name, "my model");
  assertVec3(m->gravity, 0, 0, 0, 0, "gravity");
  assert_int_equal(m->nforce, 0);  // no gravity element for zero gravity
  cs_deleteModel(m);

  m = th_loadString("{\"gravity\": [1.5, -2, 3]}");
  assertVec3(m->gravity, 1.5, -2, 3, 0, "gravity");
  assert_int_equal(cs_forceId(m, "gravity"), 0);
  cs_deleteModel(m);

  // any text names a scene, in UTF-8 up to 63 bytes, but C0 control characters and DEL, which
  // would break the one-line messages (other bytes are escaped where messages print them)
  m = th_loadString("{\"name\": \"r\\u00e9sum\\u00e9 \\u20ac\"}");
  assert_string_equal(m->name, "r\xc3\xa9sum\xc3\xa9 \xe2\x82\xac");
  cs_deleteModel(m);
  expectError("{\"name\": \"a\\u007fb\"}", "name");
  expectError("{\"name\": \"a\\u001bb\"}", "name");
}


static void test_simulation_options(void** state) {
  (void)state;
  csModel* m = th_loadString(
      "{\"simulation\": {\"duration\": 3.5, \"integrator\": \"adams\", \"linear_solver\": \"band\","
      " \"rtol\": 1e-7, \"atol\": 1e-9, \"max_step\": 0.02, \"initial_step\": 1e-4,"
      " \"max_steps\": 5000, \"report_interval\": 0.05}}");
  assert_true(m->opt.duration == 3.5);
  assert_int_equal(m->opt.integrator, CS_INTEGRATOR_ADAMS);
  assert_int_equal(m->opt.linsol, CS_LINSOL_BAND);
  assert_true(m->opt.rtol == 1e-7);
  assert_true(m->opt.atol == 1e-9);
  assert_true(m->opt.max_step == 0.02);
  assert_true(m->opt.initial_step == 1e-4);
  assert_int_equal(m->opt.max_steps, 5000);
  assert_true(m->opt.report_interval == 0.05);
  cs_deleteModel(m);

  // the other solver names; unspecified keys keep their defaults
  const char* solvers[] = {"auto", "dense", "band", "gmres"};
  for (int i = 0; i < 4; i++) {
    char json[256];
    snprintf(json, sizeof(json), "{\"simulation\": {\"linear_solver\": \"%s\"}}", solvers[i]);
    m = th_loadString(json);
    assert_int_equal(m->opt.linsol, i);
    assert_int_equal(m->opt.integrator, CS_INTEGRATOR_BDF);
    assert_true(m->opt.rtol == cs_defaultSimOptions().rtol);
    cs_deleteModel(m);
  }
  // the integrators by name
  const char* integrators[] = {"bdf", "adams", "rk", "ark", "rk23"};
  for (int i = 0; i < 5; i++) {
    char json[256];
    snprintf(json, sizeof(json), "{\"simulation\": {\"integrator\": \"%s\"}}", integrators[i]);
    m = th_loadString(json);
    assert_int_equal(m->opt.integrator, i);
    cs_deleteModel(m);
  }
  // the values of the public enum stay where they were as integrators are added
  assert_int_equal(CS_INTEGRATOR_RK, 2);
  assert_int_equal(CS_INTEGRATOR_ARK, 3);
  assert_int_equal(CS_INTEGRATOR_RK23, 4);
}


// ---------------------------------------------------------------------------------------------
// bodies and joints

static void test_body_fields(void** state) {
  (void)state;
  csModel* m = th_loadString(
      "{\"bodies\": ["
      " {\"name\": \"a\", \"mass\": 2.5, \"com\": [0.1, -0.2, 0.3],"
      "  \"inertia\": {\"matrix\": [2, 3, 4, 0.1, -0.2, 0.3]},"
      "  \"joint\": {\"type\": \"slider\", \"q\": [0.25], \"u\": [-1.5]}},"
      " {\"name\": \"b\", \"mass\": 1, " BODY_INERTIA
      ","
      "  \"joint\": {\"type\": \"weld\", \"parent\": \"a\", \"q\": [], \"u\": []}},"
      " {\"name\": \"c\", \"mass\": 1, " BODY_INERTIA
      ","
      "  \"joint\": {\"type\": \"ball\", \"parent\": \"b\", \"q\": [2, 0, 0, 0], \"u\": [1, 2, "
      "3]}},"
      " {\"name\": \"d\", \"mass\": 1, " BODY_INERTIA
      ","
      "  \"joint\": {\"type\": \"free\", \"parent\": \"a\","
      "   \"q\": [0, 3, 0, 4, 1, 2, 3], \"u\": [1, 2, 3, 4, 5, 6]}},"
      " {\"name\": \"e\", \"mass\": 1, " BODY_INERTIA
      ", \"joint\": {\"type\": \"pin\"}}"
      "]}");
  assert_int_equal(m->nbody, 6);
  const csBody* a = &m->body[cs_bodyId(m, "a")];
  assert_int_equal(cs_bodyId(m, "a"), 1);
  assert_true(a->mass == 2.5);
  assertVec3(a->com, 0.1, -0.2, 0.3, 0, "com");
  const double I[3][3] = {{2, 0.1, -0.2}, {0.1, 3, 0.3}, {-0.2, 0.3, 4}};
  assertMat(&a->inertia, I, 0, "inertia matrix");
  assert_int_equal(a->joint, CS_JOINT_SLIDER);
  assert_int_equal(a->parent, 0);
  assert_int_equal(m->body[2].joint, CS_JOINT_WELD);
  assert_int_equal(m->body[2].parent, 1);
  assert_int_equal(m->body[3].joint, CS_JOINT_BALL);
  assert_int_equal(m->body[3].parent, 2);
  assert_int_equal(m->body[4].joint, CS_JOINT_FREE);
  assert_int_equal(m->body[4].parent, 1);
  assert_int_equal(m->body[5].joint, CS_JOINT_PIN);
  assert_int_equal(m->body[5].parent, 0);  // parent defaults to ground
  // initial coordinates: quaternions normalised, the rest as given
  assert_int_equal(m->nq, 1 + 0 + 4 + 7 + 1);
  assert_int_equal(m->nu, 1 + 0 + 3 + 6 + 1);
  assert_true(m->q0[a->qadr] == 0.25);
  assert_true(m->u0[a->uadr] == -1.5);
  const csBody* c = &m->body[3];
  const double qc[4] = {1, 0, 0, 0}, uc[3] = {1, 2, 3};
  for (int i = 0; i < 4; i++) {
    th_assertClose(m->q0[c->qadr + i], qc[i], 0, 1e-15, "ball q normalised");
  }
  for (int i = 0; i < 3; i++) {
    th_assertClose(m->u0[c->uadr + i], uc[i], 0, 0, "ball u");
  }
  const csBody* dd = &m->body[4];
  const double qd[7] = {0, 0.6, 0, 0.8, 1, 2, 3};
  for (int i = 0; i < 7; i++) {
    th_assertClose(m->q0[dd->qadr + i], qd[i], 0, 1e-15, "free q");
    th_assertClose(m->u0[dd->uadr + (i < 6 ? i : 0)], i < 6 ? i + 1 : 1, 0, 0, "free u");
  }
  // a pin without q starts at zero
  assert_true(m->q0[m->body[5].qadr] == 0 && m->u0[m->body[5].uadr] == 0);
  cs_deleteModel(m);
}


// a pin whose F is turned -90 degrees about x and lifted 2 m: the pin axis is Ground's y
static void test_pin_parent_frame_pose(void** state) {
  (void)state;
  const double q = 0.3;
  csModel* m = th_loadString(
      "{\"bodies\": [{\"name\": \"arm\", \"mass\": 1, \"com\": [1, 0, 0], " BODY_INERTIA
      ","
      " \"joint\": {\"type\": \"pin\", \"parent_frame\": {\"position\": [0, 0, 2],"
      " \"rotation\": {\"axis\": [1, 0, 0], \"angle_deg\": -90}}, \"q\": [0.3]}}]}");
  csData* d = cs_makeData(m);
  // R_GB = Rx(-90) Rz(q): Rx(-90) maps (x, y, z) to (x, z, -y)
  const double c = cos(q), s = sin(q);
  const double R[3][3] = {{c, -s, 0}, {0, 0, 1}, {-s, -c, 0}};
  assertMat(&d->body_pose[1].R, R, 1e-14, "pin body orientation");
  assertVec3(d->body_pose[1].p, 0, 0, 2, 1e-14, "pin body origin");
  assertVec3(d->body_com[1], c, 0, 2 - s, 1e-14, "pin body com");
  cs_deleteData(d);
  cs_deleteModel(m);

  // with M offset on the body: the body origin sits at -X_BM.p from the pin, in the body frame
  m = th_loadString("{\"bodies\": [{\"name\": \"arm\", \"mass\": 1, " BODY_INERTIA
                    ","
                    " \"joint\": {\"type\": \"pin\", \"parent_frame\": {\"position\": [0, 0, 2],"
                    " \"rotation\": {\"axis\": [1, 0, 0], \"angle\": -1.5707963267948966}},"
                    " \"child_frame\": {\"position\": [0.5, 0, 0]}, \"q\": [0.3]}}]}");
  d = cs_makeData(m);
  assertVec3(d->body_pose[1].p, -0.5 * c, 0, 2 + 0.5 * s, 1e-14, "offset pin body origin");
  cs_deleteData(d);
  cs_deleteModel(m);
}


static void test_rotation_forms(void** state) {
  (void)state;
  // the same rotation three ways: 120 degrees about (1, 1, 1)
  const double n[3] = {1, 1, 1};
  double R[3][3];
  rodrigues(n, 2 * PI / 3, R);
  const char* forms[] = {
      "{\"axis\": [1, 1, 1], \"angle\": 2.0943951023931957}",
      "{\"axis\": [2, 2, 2], \"angle_deg\": 120}",
      "{\"quaternion\": [1, 1, 1, 1]}",  // normalised to (1/2)(1, 1, 1, 1)
      // any non-zero length, however large or small (its square would overflow or underflow)
      "{\"axis\": [1e160, 1e160, 1e160], \"angle_deg\": 120}",
      "{\"axis\": [1e-160, 1e-160, 1e-160], \"angle_deg\": 120}",
      "{\"quaternion\": [1e200, 1e200, 1e200, 1e200]}",
      "{\"quaternion\": [3e-170, 3e-170, 3e-170, 3e-170]}",
  };
  for (int i = 0; i < 7; i++) {
    char json[512];
    snprintf(json, sizeof(json),
             "{\"bodies\": [{\"name\": \"b\", \"mass\": 1, " BODY_INERTIA
             ","
             " \"joint\": {\"type\": \"weld\", \"parent_frame\": {\"rotation\": %s}}}]}",
             forms[i]);
    csModel* m = th_loadString(json);
    assertMat(&m->body[1].X_PF.R, R, 1e-12, forms[i]);
    cs_deleteModel(m);
  }
}


static void test_inertia_shapes(void** state) {
  (void)state;
  const double mass = 3.0;
  csModel* m = th_loadString(
      "{\"bodies\": ["
      " {\"name\": \"box\", \"mass\": 3, \"inertia\": {\"box\": [0.1, 0.2, 0.3]},"
      "  \"joint\": {\"type\": \"weld\"}},"
      " {\"name\": \"sphere\", \"mass\": 3, \"inertia\": {\"sphere\": 0.4},"
      "  \"joint\": {\"type\": \"weld\"}},"
      " {\"name\": \"cyl\", \"mass\": 3,"
      "  \"inertia\": {\"cylinder\": {\"radius\": 0.2, \"half_length\": 0.5}},"
      "  \"joint\": {\"type\": \"weld\"}},"
      " {\"name\": \"diag\", \"mass\": 3, \"inertia\": {\"diag\": [1, 2, 2.5]},"
      "  \"joint\": {\"type\": \"weld\"}}"
      "]}");
  // solid box of full sizes a, b, c: m (b^2 + c^2) / 12, ...
  double a = 0.2, b = 0.4, c = 0.6;
  const double Ibox[3][3] = {{mass * (b * b + c * c) / 12, 0, 0},
                             {0, mass * (a * a + c * c) / 12, 0},
                             {0, 0, mass * (a * a + b * b) / 12}};
  assertMat(&m->body[1].inertia, Ibox, 1e-14, "box inertia");
  double is = 0.4 * mass * 0.4 * 0.4;
  const double Isph[3][3] = {{is, 0, 0}, {0, is, 0}, {0, 0, is}};
  assertMat(&m->body[2].inertia, Isph, 1e-14, "sphere inertia");
  // solid cylinder of radius r, length L along z: m (3 r^2 + L^2) / 12 across, m r^2 / 2 along
  double r = 0.2, L = 1.0;
  double ix = mass * (3 * r * r + L * L) / 12;
  const double Icyl[3][3] = {{ix, 0, 0}, {0, ix, 0}, {0, 0, mass * r * r / 2}};
  assertMat(&m->body[3].inertia, Icyl, 1e-14, "cylinder inertia");
  const double Idiag[3][3] = {{1, 0, 0}, {0, 2, 0}, {0, 0, 2.5}};
  assertMat(&m->body[4].inertia, Idiag, 0, "diag inertia");
  cs_deleteModel(m);
}


// check that the realized body b has the pose and velocity an "initial" block asked for
static void assertFreeInitial(const csModel* m, int b, const double pos[3], const double axis[3],
                              double angle, const double vel[3], const double w[3]) {
  csData* d = cs_makeData(m);
  assert_non_null(d);
  double R[3][3];
  rodrigues(axis, angle, R);
  assertMat(&d->body_pose[b].R, R, 1e-12, "initial orientation");
  assertVec3(d->body_pose[b].p, pos[0], pos[1], pos[2], 1e-12, "initial position");
  assertVec3(d->body_vel[b].w, w[0], w[1], w[2], 1e-12, "initial angular velocity");
  assertVec3(d->body_vel[b].v, vel[0], vel[1], vel[2], 1e-12, "initial velocity");
  cs_deleteData(d);
}


static void test_free_initial_in_ground(void** state) {
  (void)state;
  csModel* m =
      th_loadString("{\"bodies\": [{\"name\": \"box\", \"mass\": 1, " BODY_INERTIA
                    ","
                    " \"joint\": {\"type\": \"free\", \"initial\": {\"position\": [1, -2, 3],"
                    "  \"orientation\": {\"axis\": [0, 0, 1], \"angle_deg\": 30},"
                    "  \"velocity\": [0.5, 0.25, -1], \"angular_velocity\": [0.1, -0.2, 0.3]}}}]}");
  const double pos[3] = {1, -2, 3}, axis[3] = {0, 0, 1}, vel[3] = {0.5, 0.25, -1};
  const double w[3] = {0.1, -0.2, 0.3};
  assertFreeInitial(m, 1, pos, axis, PI / 6, vel, w);
  // ground parent with identity frames: q is the pose itself, u the velocities (in Ground)
  const csBody* b = &m->body[1];
  th_assertClose(fabs(m->q0[b->qadr]), cos(PI / 12), 0, 1e-14, "q w");
  th_assertClose(m->q0[b->qadr + 4], 1, 0, 1e-14, "q x");
  th_assertClose(m->u0[b->uadr + 3], 0.5, 0, 1e-14, "u vx");
  cs_deleteModel(m);

  // all keys left out: at the origin, at rest
  m = th_loadString("{\"bodies\": [{\"name\": \"box\", \"mass\": 1, " BODY_INERTIA
                    ","
                    " \"joint\": {\"type\": \"free\", \"initial\": {}}}]}");
  const double zero[3] = {0, 0, 0}, z[3] = {0, 0, 1};
  assertFreeInitial(m, 1, zero, z, 0, zero, zero);
  cs_deleteModel(m);
}


// the "initial" of a free body is in Ground even when its parent moves and its joint frames
// are turned and offset
static void test_free_initial_moving_parent(void** state) {
  (void)state;
  csModel* m = th_loadString(
      "{\"bodies\": ["
      " {\"name\": \"carrier\", \"mass\": 2, \"com\": [0.3, 0, 0], " BODY_INERTIA
      ","
      "  \"joint\": {\"type\": \"pin\", \"parent_frame\": {\"position\": [0, 0, 1],"
      "   \"rotation\": {\"axis\": [1, 0, 0], \"angle_deg\": -90}}, \"q\": [0.4], \"u\": [2.0]}},"
      " {\"name\": \"rider\", \"mass\": 1, " BODY_INERTIA
      ","
      "  \"joint\": {\"type\": \"free\", \"parent\": \"carrier\","
      "   \"parent_frame\": {\"position\": [0.3, 0.2, 0.1],"
      "    \"rotation\": {\"axis\": [0, 0, 1], \"angle\": 0.7}},"
      "   \"child_frame\": {\"position\": [0.1, 0, 0], \"rotation\": {\"axis\": [1, 0, 0],"
      "    \"angle\": 0.4}},"
      "   \"initial\": {\"position\": [1, 2, 3], \"orientation\": {\"axis\": [1, 2, 3],"
      "    \"angle\": 1.1}, \"velocity\": [0.5, -0.4, 0.3],"
      "    \"angular_velocity\": [0.2, 0.1, -0.3]}}}"
      "]}");
  const double pos[3] = {1, 2, 3}, axis[3] = {1, 2, 3}, vel[3] = {0.5, -0.4, 0.3};
  const double w[3] = {0.2, 0.1, -0.3};
  assertFreeInitial(m, 2, pos, axis, 1.1, vel, w);
  cs_deleteModel(m);
}


// ---------------------------------------------------------------------------------------------
// planes, forces, contacts, changes

static void test_planes(void** state) {
  (void)state;
  csModel* m = th_loadString(
      "{\"bodies\": [{\"name\": \"table\", \"mass\": 1, " BODY_INERTIA
      ","
      "  \"joint\": {\"type\": \"slider\"}}],"
      " \"planes\": [{\"name\": \"floor\"},"
      "  {\"name\": \"top\", \"body\": \"table\", \"frame\": {\"position\": [0, 0, 0.5],"
      "   \"rotation\": {\"axis\": [0, 1, 0], \"angle_deg\": 90}}}]}");
  assert_int_equal(m->nplane, 2);
  assert_int_equal(cs_planeId(m, "floor"), 0);
  assert_int_equal(m->plane[0].body, 0);
  const double I[3][3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
  assertMat(&m->plane[0].X_BP.R, I, 0, "floor frame");
  assert_int_equal(m->plane[1].body, 1);
  assertVec3(m->plane[1].X_BP.p, 0, 0, 0.5, 0, "plane origin");
  // the plane's normal (its z axis) is the body's x axis
  assertVec3(csu_column(&m->plane[1].X_BP.R, 2), 1, 0, 0, 1e-15, "plane normal");
  cs_deleteModel(m);
}


static void test_forces_generic(void** state) {
  (void)state;
  csModel* m = th_loadString(
      "{\"gravity\": [0, 0, 0],"
      " \"bodies\": [{\"name\": \"s\", \"mass\": 1, " BODY_INERTIA
      ","
      "  \"joint\": {\"type\": \"slider\"}},"
      "  {\"name\": \"f\", \"mass\": 1, " BODY_INERTIA
      ", \"joint\": {\"type\": \"free\"}}],"
      " \"forces\": ["
      "  {\"type\": \"mobility_spring\", \"body\": \"s\", \"stiffness\": 100, \"q0\": 0.2},"
      "  {\"type\": \"mobility_damper\", \"name\": \"damp\", \"body\": \"s\", \"coordinate\": 0,"
      "   \"damping\": 3},"
      "  {\"type\": \"spring\", \"body1\": \"ground\", \"station1\": [0, 0, 1], \"body2\": \"f\","
      "   \"stiffness\": 50, \"rest_length\": 0.5},"
      "  {\"type\": \"linear_bushing\", \"body1\": \"ground\", \"body2\": \"f\","
      "   \"frame2\": {\"position\": [1, 2, 3], \"rotation\": {\"quaternion\": [0, 0, 0, 2]}},"
      "   \"rotational_stiffness\": [1, 2, 3], \"translational_stiffness\": [4, 5, 6]}"
      " ]}");
  assert_int_equal(m->nforce, 4);
  // default name "<type><index>"; keys into param/ref slots
  const csForce* f = &m->force[cs_forceId(m, "mobility_spring0")];
  assert_int_equal(f->kind, CS_FORCE_MOBILITY_SPRING);
  assert_int_equal(f->ref[0], 1);
  assert_int_equal(f->ref[1], 0);
  assert_true(f->param[0] == 100 && f->param[1] == 0.2);
  f = &m->force[cs_forceId(m, "damp")];
  assert_int_equal(f->kind, CS_FORCE_MOBILITY_DAMPER);
  assert_true(f->param[0] == 3);
  f = &m->force[cs_forceId(m, "spring2")];
  assert_int_equal(f->ref[0], 0);
  assert_int_equal(f->ref[1], 2);
  assert_true(f->param[0] == 0 && f->param[1] == 0 && f->param[2] == 1);  // station1
  assert_true(f->param[3] == 0 && f->param[4] == 0 && f->param[5] == 0);  // station2 default
  assert_true(f->param[6] == 50 && f->param[7] == 0.5 && f->param[8] == 0);
  // a FRAME parameter: position then the normalised quaternion; VEC3s in their slots
  f = &m->force[cs_forceId(m, "linear_bushing3")];
  const csForceKind* k = cs_forceKind(CS_FORCE_LINEAR_BUSHING);
  for (int i = 0; i < k->nparams; i++) {
    const csParamInfo* p = &k->params[i];
    if (strcmp(p->key, "frame2") == 0) {
      const double want[7] = {1, 2, 3, 0, 0, 0, 1};
      for (int j = 0; j < 7; j++) {
        th_assertClose(f->param[p->slot + j], want[j], 0, 1e-15, "frame2");
      }
    } else if (strcmp(p->key, "frame1") == 0) {
      const double want[7] = {0, 0, 0, 1, 0, 0, 0};
      for (int j = 0; j < 7; j++) {
        th_assertClose(f->param[p->slot + j], want[j], 0, 0, "frame1 default");
      }
    } else if (strcmp(p->key, "translational_stiffness") == 0) {
      assert_true(f->param[p->slot] == 4 && f->param[p->slot + 2] == 6);
    }
  }
  cs_deleteModel(m);
}


// a scene with a box touching a floor at four corners, with the model blocks given
static const char* g_contactScene =
    "{\"bodies\": [{\"name\": \"block\", \"mass\": 1, \"inertia\": {\"box\": [0.1, 0.1, 0.1]},"
    "   \"joint\": {\"type\": \"free\"}}],"
    " \"planes\": [{\"name\": \"floor\"}],"
    " \"contacts\": [{\"name\": \"feet\", \"body\": \"block\", \"plane\": \"floor\","
    "   \"points\": [[-0.1, -0.1, -0.1], [0.1, -0.1, -0.1], [0.1, 0.1, -0.1]], \"radius\": 0.02},"
    "  {\"body\": \"block\", \"plane\": \"floor\", \"points\": [[0, 0, 0.1]], \"radius\": 0.03}],"
    " \"contact_models\": {\"default\": \"exponential_spring\","
    "   \"exponential_spring\": {\"mu_static\": 0.9, \"mu_dynamic\": 0.4, \"d1\": 0.6},"
    "   \"hunt_crossley\": {\"plane_strain_modulus\": 2e6, \"dissipation\": 0.5},"
    "   \"compliant_point\": {\"body_material\": {\"penalty_stiffness\": 1e5},"
    "                         \"plane_material\": {\"penalty_stiffness\": 2e5}}},"
    " \"changes\": [{\"time\": 1.5, \"force\": \"feet\", \"mu_static\": 0.3},"
    "   {\"time\": 0.5, \"force\": \"contact1.0\", \"mu_dynamic\": 0.2}]}";

// value of the kind's REAL parameter `key` in element f
static double paramOf(const csForce* f, const char* key) {
  const csForceKind* k = cs_forceKind(f->kind);
  for (int i = 0; i < k->nparams; i++) {
    if (strcmp(k->params[i].key, key) == 0) {
      return f->param[k->params[i].slot];
    }
  }
  fail_msg("no key %s", key);
  return NAN;
}


static void test_contacts_point_model(void** state) {
  (void)state;
  csModel* m = th_loadString(g_contactScene);
  // gravity, then 3 + 1 exponential springs in two sets
  assert_int_equal(m->nforce, 5);
  assert_int_equal(m->ngroup, 2);
  assert_string_equal(m->group_name[0], "feet");
  assert_string_equal(m->group_name[1], "contact1");
  const double pts[3][3] = {{-0.1, -0.1, -0.1}, {0.1, -0.1, -0.1}, {0.1, 0.1, -0.1}};
  for (int i = 0; i < 3; i++) {
    char name[32];
    snprintf(name, sizeof(name), "feet.%d", i);
    int e = cs_forceId(m, name);
    assert_int_equal(e, 1 + i);
    const csForce* f = &m->force[e];
    assert_int_equal(f->kind, CS_FORCE_EXP_SPRING);
    assert_int_equal(f->group, 0);
    assert_int_equal(f->ref[CS_REF_BODY], 1);
    assert_int_equal(f->ref[CS_REF_PLANE], 0);
    for (int j = 0; j < 3; j++) {
      assert_true(f->param[CS_SLOT_STATION + j] == pts[i][j]);
    }
    // the block's keys; the others keep the kind's defaults
    assert_true(paramOf(f, "mu_static") == 0.9);
    assert_true(paramOf(f, "mu_dynamic") == 0.4);
    assert_true(paramOf(f, "d1") == 0.6);
    assert_true(paramOf(f, "d2") == 1150.0);
  }
  assert_int_equal(m->force[cs_forceId(m, "contact1.0")].group, 1);
  // changes: one per element of the set, sorted by time
  assert_int_equal(m->nchange, 4);
  assert_true(m->change[0].time == 0.5);
  assert_int_equal(m->change[0].force, cs_forceId(m, "contact1.0"));
  assert_int_equal(m->change[0].index, 1);  // mu_dynamic
  assert_true(m->change[0].value == 0.2);
  for (int c = 1; c < 4; c++) {
    assert_true(m->change[c].time == 1.5);
    assert_int_equal(m->change[c].force, c);
    assert_int_equal(m->change[c].index, 0);
    assert_true(m->change[c].value == 0.3);
  }
  cs_deleteModel(m);
}


static void test_contacts_model_override(void** state) {
  (void)state;
  // a sphere model: the radius goes to its slot
  csLoadOptions opt = {.contact_model = "hunt_crossley"};
  csError err = {0};
  char* scene = strdup(g_contactScene);
  // hunt_crossley has the same friction variables, so the changes load too
  csModel* m = cs_loadSceneString(scene, "c.json", &opt, &err);
  if (!m) {
    fail_msg("%s: %s", err.path, err.message);
  }
  const csForce* f = &m->force[cs_forceId(m, "feet.1")];
  assert_int_equal(f->kind, CS_FORCE_HUNT_CROSSLEY);
  assert_true(f->param[CS_SLOT_RADIUS] == 0.02);
  assert_true(f->param[CS_SLOT_STATION] == 0.1);
  assert_true(paramOf(f, "plane_strain_modulus") == 2e6);
  assert_true(paramOf(f, "dissipation") == 0.5);
  assert_true(m->force[cs_forceId(m, "contact1.0")].param[CS_SLOT_RADIUS] == 0.03);
  cs_deleteModel(m);

  // nested keys of a point model
  opt.contact_model = "compliant_point";
  m = cs_loadSceneString(scene, "c.json", &opt, &err);
  if (!m) {
    fail_msg("%s: %s", err.path, err.message);
  }
  f = &m->force[cs_forceId(m, "feet.0")];
  assert_true(paramOf(f, "body_material.penalty_stiffness") == 1e5);
  assert_true(paramOf(f, "plane_material.penalty_stiffness") == 2e5);
  cs_deleteModel(m);

  // a model with no block, and an unknown model: errors naming the choice
  opt.contact_model = "smooth_sphere_half_space";
  assert_null(cs_loadSceneString(scene, "c.json", &opt, &err));
  assert_int_equal(err.code, CS_ERR_INPUT);
  assert_non_null(strstr(err.message, "no parameter block"));
  assert_non_null(strstr(err.message, "hunt_crossley"));
  opt.contact_model = "velcro";
  assert_null(cs_loadSceneString(scene, "c.json", &opt, &err));
  assert_int_equal(err.code, CS_ERR_INPUT);
  assert_non_null(strstr(err.message, "velcro"));
  free(scene);
}


// a solid's inertia too small to be represented (m r^2 with a mass of 5e-324 kg is zero): said
// so, and not blamed on a matrix the scene did not give; small moments that are represented
// (1e-113, a body of 1e-110 kg) are a positive definite matrix (the minors underflowed)
static void test_inertia_of_a_tiny_solid(void** state) {
  (void)state;
  const char* json =
      "{\"bodies\": [{\"name\": \"speck\", \"mass\": 5e-324, \"inertia\": {\"sphere\": 0.1},"
      " \"joint\": {\"type\": \"free\"}}]}";
  expectError(json, "bodies[0].inertia");
  csError err;
  memset(&err, 0, sizeof(err));
  assert_null(cs_loadSceneString(json, "bad.json", NULL, &err));
  assert_non_null(strstr(err.message, "the inertia of this sphere of 4.94066e-324 kg is zero"));
  csMat33 small = {{{4e-113, 0, 0}, {0, 4e-113, 0}, {0, 0, 4e-113}}};
  assert_true(csu_isPositiveDefinite(&small) && csu_inertiaIsValid(&small));
  csMat33 flat = {{{4e-113, 0, 0}, {0, 4e-113, 0}, {0, 0, 0}}};
  assert_false(csu_isPositiveDefinite(&flat));
}


static void test_contacts_errors(void** state) {
  (void)state;
  const char* head = "{\"bodies\": [{\"name\": \"block\", \"mass\": 1, " BODY_INERTIA
                     ","
                     "   \"joint\": {\"type\": \"free\"}}], \"planes\": [{\"name\": \"floor\"}],";
  char json[2048];
  // a sphere model needs a radius
  snprintf(json, sizeof(json),
           "%s \"contacts\": [{\"body\": \"block\", \"plane\": \"floor\", \"points\": [[0,0,0]]}],"
           " \"contact_models\": {\"hunt_crossley\": {}}}",
           head);
  expectError(json, "contacts[0].radius");
  // geometry keys are not model parameters
  snprintf(json, sizeof(json),
           "%s \"contacts\": [{\"body\": \"block\", \"plane\": \"floor\", \"points\": [[0,0,0]]}],"
           " \"contact_models\": {\"exponential_spring\": {\"station\": [0, 0, 0]}}}",
           head);
  expectError(json, "contact_models.exponential_spring.station");
  // a misspelt key in a block that is not chosen is still an error
  snprintf(json, sizeof(json),
           "%s \"contacts\": [{\"body\": \"block\", \"plane\": \"floor\", \"points\": [[0,0,0]]}],"
           " \"contact_models\": {\"default\": \"exponential_spring\", \"exponential_spring\": {},"
           " \"hunt_crossley\": {\"stifness\": 1}}}",
           head);
  expectError(json, "contact_models.hunt_crossley.stifness");
  // a default without a block; several blocks and no default
  snprintf(json, sizeof(json),
           "%s \"contacts\": [{\"body\": \"block\", \"plane\": \"floor\", \"points\": [[0,0,0]]}],"
           " \"contact_models\": {\"default\": \"hunt_crossley\", \"exponential_spring\": {}}}",
           head);
  expectError(json, "contact_models.default");
  snprintf(json, sizeof(json),
           "%s \"contacts\": [{\"body\": \"block\", \"plane\": \"floor\", \"points\": [[0,0,0]]}],"
           " \"contact_models\": {\"exponential_spring\": {}, \"compliant_point\": {}}}",
           head);
  expectError(json, "contact_models");
  // contacts without any model
  snprintf(json, sizeof(json),
           "%s \"contacts\": [{\"body\": \"block\", \"plane\": \"floor\", \"points\": [[0,0,0]]}]}",
           head);
  expectError(json, "contacts");
  // an unknown force type lists the kinds a force entry takes, the contact kinds too (one
  // element each), and a contact kind there loads
  snprintf(json, sizeof(json), "%s \"forces\": [{\"type\": \"hunt_crosley\"}]}", head);
  csError err;
  memset(&err, 0, sizeof(err));
  csModel* bad = cs_loadSceneString(json, "s.json", NULL, &err);
  assert_null(bad);
  assert_string_equal(err.path, "forces[0].type");
  assert_non_null(strstr(err.message, "linear_stop"));
  assert_non_null(strstr(err.message, "hunt_crossley"));
  snprintf(json, sizeof(json),
           "%s \"forces\": [{\"type\": \"hunt_crossley\", \"name\": \"hc\", \"body\": \"block\","
           " \"plane\": \"floor\", \"radius\": 0.1, \"plane_strain_modulus\": 1e7}]}",
           head);
  csModel* one = th_loadString(json);
  int hc = -1;
  for (int e = 0; e < one->nforce; e++) {
    hc = strcmp(one->force[e].name, "hc") == 0 ? e : hc;
  }
  assert_true(hc >= 0);
  assert_int_equal(cs_modelForceIsContact(one, hc), 1);
  cs_deleteModel(one);
  // no points; a bad point; a name taken by a force element
  snprintf(json, sizeof(json),
           "%s \"contacts\": [{\"body\": \"block\", \"plane\": \"floor\", \"points\": []}],"
           " \"contact_models\": {\"exponential_spring\": {}}}",
           head);
  expectError(json, "contacts[0].points");
  snprintf(json, sizeof(json),
           "%s \"contacts\": [{\"body\": \"block\", \"plane\": \"floor\","
           " \"points\": [[0,0,0], [1, 2]]}], \"contact_models\": {\"exponential_spring\": {}}}",
           head);
  expectError(json, "contacts[0].points[1]");
  snprintf(json, sizeof(json),
           "%s \"contacts\": [{\"name\": \"gravity\", \"body\": \"block\", \"plane\": \"floor\","
           " \"points\": [[0,0,0]]}], \"contact_models\": {\"exponential_spring\": {}}}",
           head);
  expectError(json, "contacts[0].name");
  // a change of a variable the kind does not have, at a negative time, of an unknown target
  snprintf(json, sizeof(json),
           "%s \"contacts\": [{\"name\": \"c\", \"body\": \"block\", \"plane\": \"floor\","
           " \"points\": [[0,0,0]]}], \"contact_models\": {\"exponential_spring\": {}},"
           " \"changes\": [{\"time\": 1, \"force\": \"c\", \"mu_dynamic\": 0.1},"
           " {\"time\": 1, \"force\": \"c\", \"friction\": 0.1}]}",
           head);
  expectError(json, "changes[1].friction");
  snprintf(json, sizeof(json),
           "%s \"contacts\": [{\"name\": \"c\", \"body\": \"block\", \"plane\": \"floor\","
           " \"points\": [[0,0,0]]}], \"contact_models\": {\"exponential_spring\": {}},"
           " \"changes\": [{\"time\": -1, \"force\": \"c\", \"mu_dynamic\": 0.1}]}",
           head);
  expectError(json, "changes[0].time");
  snprintf(json, sizeof(json), "%s \"changes\": [{\"time\": 1, \"force\": \"nothing\", \"x\": 1}]}",
           head);
  expectError(json, "changes[0].force");
  snprintf(json, sizeof(json),
           "%s \"contacts\": [{\"name\": \"c\", \"body\": \"block\", \"plane\": \"floor\","
           " \"points\": [[0,0,0]]}], \"contact_models\": {\"exponential_spring\": {}},"
           " \"changes\": [{\"time\": 1, \"force\": \"c\"}]}",
           head);
  expectError(json, "changes[0]");
  // a Hunt-Crossley parameter's old name: the change was told to use the new one, which is a
  // parameter too, not a discrete variable, and refused in its turn
  snprintf(json, sizeof(json),
           "%s \"contacts\": [{\"name\": \"c\", \"body\": \"block\", \"plane\": \"floor\","
           " \"points\": [[0,0,0]], \"radius\": 0.1}],"
           " \"contact_models\": {\"hunt_crossley\": {\"plane_strain_modulus\": 1e6}},"
           " \"changes\": [{\"time\": 1, \"force\": \"c\", \"stiffness\": 5}]}",
           head);
  expectError(json, "changes[0].stiffness");
  assert_null(cs_loadSceneString(json, "bad.json", NULL, &err));
  assert_non_null(strstr(err.message, "has no discrete variable 'stiffness'"));
  // two changes at one time whose values cross (mu_static below mu_dynamic, each in a change of
  // its own): set in the order written the later moves the earlier, so the outcome depended on
  // the order; refused at the later one, either way round. Values that agree, or times apart,
  // load.
  const char* frictionPairs[][3] = {
      {"\"mu_static\": 0.2", "\"mu_dynamic\": 0.5", "changes[1].mu_dynamic"},
      {"\"mu_dynamic\": 0.5", "\"mu_static\": 0.2", "changes[1].mu_static"},
      {"\"mu_static\": 0.9", "\"mu_dynamic\": 0.5", NULL},
  };
  for (int i = 0; i < 3; i++) {
    for (int later = 1; later <= 2; later++) {
      snprintf(json, sizeof(json),
               "%s \"contacts\": [{\"name\": \"c\", \"body\": \"block\", \"plane\": \"floor\","
               " \"points\": [[0,0,0], [1,0,0]]}],"
               " \"contact_models\": {\"exponential_spring\": {}},"
               " \"changes\": [{\"time\": 1, \"force\": \"c\", %s},"
               " {\"time\": %d, \"force\": \"c\", %s}]}",
               head, frictionPairs[i][0], later, frictionPairs[i][1]);
      if (frictionPairs[i][2] && later == 1) {
        expectError(json, frictionPairs[i][2]);
        assert_null(cs_loadSceneString(json, "bad.json", NULL, &err));
        assert_non_null(strstr(err.message, "(set by changes[0]) at the same time, t = 1 s"));
      } else {
        csModel* ok = cs_loadSceneString(json, "ok.json", NULL, &err);
        assert_non_null(ok);
        cs_deleteModel(ok);
      }
    }
  }
  // one variable set twice at one time (the last written held), and a set against one of its
  // elements: refused as well, each in its own words
  snprintf(json, sizeof(json),
           "%s \"contacts\": [{\"name\": \"c\", \"body\": \"block\", \"plane\": \"floor\","
           " \"points\": [[0,0,0], [1,0,0]]}], \"contact_models\": {\"exponential_spring\": {}},"
           " \"changes\": [{\"time\": 1, \"force\": \"c\", \"mu_static\": 0.9},"
           " {\"time\": 1, \"force\": \"c\", \"mu_static\": 0.8}]}",
           head);
  expectError(json, "changes[1].mu_static");
  assert_null(cs_loadSceneString(json, "bad.json", NULL, &err));
  assert_non_null(strstr(err.message, "mu_static is set twice at t = 1 s, to 0.9 by changes[0] "
                                      "and to 0.8 here"));
  snprintf(json, sizeof(json),
           "%s \"contacts\": [{\"name\": \"c\", \"body\": \"block\", \"plane\": \"floor\","
           " \"points\": [[0,0,0], [1,0,0]]}], \"contact_models\": {\"exponential_spring\": {}},"
           " \"changes\": [{\"time\": 1, \"force\": \"c\", \"mu_static\": 0.2},"
           " {\"time\": 1, \"force\": \"c.1\", \"mu_dynamic\": 0.5}]}",
           head);
  expectError(json, "changes[1].mu_dynamic");
  assert_null(cs_loadSceneString(json, "bad.json", NULL, &err));
  assert_non_null(strstr(err.message, "mu_dynamic = 0.5 and mu_static = 0.2 (set by changes[0]) "
                                      "at the same time, t = 1 s, contradict each other"));
  assert_non_null(strstr(err.message, "give them values that agree"));
  // a clash with a name the file does not hold (an entry's default) says where it came from
  const char* clashes[] = {
      "{\"bodies\": [{\"name\": \"b\", \"mass\": 1, \"inertia\": {\"sphere\": 0.1},"
      " \"joint\": {\"type\": \"free\"}}], \"forces\": [{\"type\": \"constant\", \"body\": \"b\","
      " \"name\": \"constant1\"}, {\"type\": \"constant\", \"body\": \"b\"}]}",
      "{\"bodies\": [{\"name\": \"b\", \"mass\": 1, \"inertia\": {\"sphere\": 0.1},"
      " \"joint\": {\"type\": \"free\"}}], \"planes\": [{\"name\": \"floor\"}],"
      " \"contacts\": [{\"name\": \"contact1\", \"body\": \"b\", \"plane\": \"floor\","
      " \"points\": [[0,0,0]]}, {\"body\": \"b\", \"plane\": \"floor\", \"points\": [[0,0,0]]}],"
      " \"contact_models\": {\"exponential_spring\": {}}}"};
  for (int i = 0; i < 2; i++) {
    assert_null(cs_loadSceneString(clashes[i], "bad.json", NULL, &err));
    if (!strstr(err.message, "already exists (the name given by default to this entry")) {
      fail_msg("%s: %s", err.path, err.message);
    }
  }
  // and the other way round: the earlier entry's default name, and the gravity element's
  const char* earlier[] = {
      "{\"bodies\": [{\"name\": \"b\", \"mass\": 1, \"inertia\": {\"sphere\": 0.1},"
      " \"joint\": {\"type\": \"free\"}}], \"forces\": [{\"type\": \"constant\", \"body\": \"b\"},"
      " {\"type\": \"constant\", \"body\": \"b\", \"name\": \"constant0\"}]}",
      "{\"bodies\": [{\"name\": \"b\", \"mass\": 1, \"inertia\": {\"sphere\": 0.1},"
      " \"joint\": {\"type\": \"free\"}}], \"forces\": [{\"type\": \"constant\", \"body\": \"b\","
      " \"name\": \"gravity\"}]}"};
  const char* said[] = {"(the name given by default to an earlier entry",
                        "(the name of an element the loader makes: the gravity element"};
  for (int i = 0; i < 2; i++) {
    assert_null(cs_loadSceneString(earlier[i], "bad.json", NULL, &err));
    if (!strstr(err.message, said[i])) {
      fail_msg("%s: %s", err.path, err.message);
    }
  }
}


static void test_scene_contact_models(void** state) {
  (void)state;
  char path[] = "/tmp/cs_scene_models_XXXXXX";
  int fd = mkstemp(path);
  assert_true(fd >= 0);
  FILE* f = fdopen(fd, "w");
  fputs(g_contactScene, f);
  fclose(f);
  char names[8][CS_MAX_NAME];
  char def[CS_MAX_NAME];
  csError err = {0};
  int n = cs_sceneContactModels(path, names, 8, def, &err);
  assert_int_equal(n, 3);
  assert_string_equal(names[0], "exponential_spring");
  assert_string_equal(names[1], "hunt_crossley");
  assert_string_equal(names[2], "compliant_point");
  assert_string_equal(def, "exponential_spring");
  // fewer slots than blocks: the count is still the number of blocks
  assert_int_equal(cs_sceneContactModels(path, names, 1, def, &err), 3);
  // the text read once gives the same, and loads the same
  size_t len = 0;
  char* text = cs_readSceneText(path, &len, &err);
  assert_non_null(text);
  assert_int_equal(len, strlen(g_contactScene));
  assert_string_equal(text, g_contactScene);
  // (the changes are of exponential-spring variables, so they go for the other models)
  const csOverride set[] = {{"contact_models.default", "\"hunt_crossley\""}, {"changes", "[]"}};
  csLoadOptions lo = {.overrides = set, .noverrides = 2};
  assert_int_equal(cs_sceneContactModelsString(text, "t.json", &lo, names, 8, def, &err), 3);
  assert_string_equal(def, "hunt_crossley");
  cs_freeSceneText(text);
  remove(path);
  // a loaded model carries the same names, the default and the model it was loaded with
  csModel* m = th_loadString(g_contactScene);
  assert_int_equal(m->ncontact_model, 3);
  assert_string_equal(m->contact_model_names[0], "exponential_spring");
  assert_string_equal(m->contact_model_names[1], "hunt_crossley");
  assert_string_equal(m->contact_model_names[2], "compliant_point");
  assert_string_equal(m->contact_model_default, "exponential_spring");
  assert_string_equal(m->contact_model, "exponential_spring");
  cs_deleteModel(m);
  lo = (csLoadOptions){.contact_model = "compliant_point", .overrides = set, .noverrides = 2};
  m = cs_loadSceneString(g_contactScene, "t.json", &lo, &err);
  assert_non_null(m);
  assert_string_equal(m->contact_model, "compliant_point");
  assert_string_equal(m->contact_model_default, "hunt_crossley");
  cs_deleteModel(m);
  // a NUL byte in a file is refused where it is
  FILE* g = fopen(path, "wb");
  static const char withNul[] = "{\n  \"a\0\": 1}";
  fwrite(withNul, 1, sizeof(withNul) - 1, g);
  fclose(g);
  assert_null(cs_readSceneText(path, NULL, &err));
  assert_int_equal(err.code, CS_ERR_INPUT);
  assert_int_equal(err.line, 2);
  assert_int_equal(err.column, 5);
  remove(path);

  // a scene without contacts has neither; a missing file is an I/O error
  assert_int_equal(
      cs_sceneContactModels(CS_SOURCE_ROOT "/scenes/pendulum.json", names, 8, def, &err), 0);
  assert_string_equal(def, "");
  m = th_loadFile("scenes/pendulum.json");
  assert_int_equal(m->ncontact_model, 0);
  assert_string_equal(m->contact_model, "");
  assert_string_equal(m->contact_model_default, "");
  cs_deleteModel(m);
  assert_int_equal(cs_sceneContactModels("/nonexistent/scene.json", names, 8, def, &err), -1);
  assert_int_equal(err.code, CS_ERR_IO);
}


// ---------------------------------------------------------------------------------------------
// parameters set by key path

// 1 if the two models hold the same scene: bodies, forces, changes, options, initial state
static void assertSameModel(const csModel* a, const csModel* b) {
  assert_int_equal(a->nbody, b->nbody);
  assert_int_equal(a->nforce, b->nforce);
  assert_int_equal(a->nchange, b->nchange);
  assert_int_equal(a->nplane, b->nplane);
  assert_int_equal(a->nq, b->nq);
  assert_int_equal(a->nu, b->nu);
  for (int i = 0; i < a->nbody; i++) {
    const csBody *x = &a->body[i], *y = &b->body[i];
    assert_string_equal(x->name, y->name);
    assert_int_equal(x->parent, y->parent);
    assert_int_equal(x->joint, y->joint);
    assert_true(x->mass == y->mass);
    assert_memory_equal(&x->com, &y->com, sizeof(x->com));
    assert_memory_equal(&x->inertia, &y->inertia, sizeof(x->inertia));
    assert_memory_equal(&x->X_PF, &y->X_PF, sizeof(x->X_PF));
    assert_memory_equal(&x->X_BM, &y->X_BM, sizeof(x->X_BM));
  }
  for (int e = 0; e < a->nforce; e++) {
    const csForce *x = &a->force[e], *y = &b->force[e];
    assert_string_equal(x->name, y->name);
    assert_int_equal(x->kind, y->kind);
    assert_int_equal(x->group, y->group);
    assert_memory_equal(x->param, y->param, sizeof(x->param));
    assert_memory_equal(x->ref, y->ref, sizeof(x->ref));
  }
  for (int c = 0; c < a->nchange; c++) {
    assert_true(a->change[c].time == b->change[c].time);
    assert_int_equal(a->change[c].force, b->change[c].force);
    assert_int_equal(a->change[c].index, b->change[c].index);
    assert_true(a->change[c].value == b->change[c].value);
  }
  assert_memory_equal(&a->opt, &b->opt, sizeof(a->opt));
  assert_memory_equal(&a->gravity, &b->gravity, sizeof(a->gravity));
  assert_memory_equal(a->q0, b->q0, sizeof(double) * (size_t)a->nq);
  assert_memory_equal(a->u0, b->u0, sizeof(double) * (size_t)a->nu);
}


// replace the first occurrence of `from` in text (which must contain it) by `to`, in place
static void editText(char* text, size_t size, const char* from, const char* to) {
  char* at = strstr(text, from);
  assert_non_null(at);
  size_t nf = strlen(from), nt = strlen(to), len = strlen(text);
  assert_true(len - nf + nt < size);
  memmove(at + nt, at + nf, len - (size_t)(at - text) - nf + 1);
  memcpy(at, to, nt);
}


static void test_overrides_equal_edited_file(void** state) {
  (void)state;
  // the scene with overrides against the same scene edited by hand to those values
  const csOverride set[] = {
      {"bodies.block.mass", "2.5"},
      {"contact_models.exponential_spring.mu_static", "0.8"},
      {"contact_models.compliant_point.body_material.penalty_stiffness", "3e5"},
      {"simulation.rtol", "1e-9"},  // no "simulation" in the scene: created
      {"contacts.feet.radius", "0.05"},
      {"contacts.contact1.points[0]", "[0, 0, 0.2]"},  // an unnamed contact by its default name
      {"changes[1].mu_dynamic", "0.1"},
      {"bodies[0].joint.type", "\"free\""},
      {"contact_models.hunt_crossley", "{\"plane_strain_modulus\": 3e6}"},
      {"gravity", "[0, 0, -1.62]"},  // created at the top level
  };
  char edited[8192];
  snprintf(edited, sizeof(edited), "%s", g_contactScene);
  editText(edited, sizeof(edited), "\"mass\": 1", "\"mass\": 2.5");
  editText(edited, sizeof(edited), "\"mu_static\": 0.9", "\"mu_static\": 0.8");
  editText(edited, sizeof(edited), "{\"penalty_stiffness\": 1e5}", "{\"penalty_stiffness\": 3e5}");
  editText(edited, sizeof(edited), "\"radius\": 0.02", "\"radius\": 0.05");
  editText(edited, sizeof(edited), "[[0, 0, 0.1]]", "[[0, 0, 0.2]]");
  editText(edited, sizeof(edited), "\"mu_dynamic\": 0.2", "\"mu_dynamic\": 0.1");
  editText(edited, sizeof(edited), "{\"plane_strain_modulus\": 2e6, \"dissipation\": 0.5}",
           "{\"plane_strain_modulus\": 3e6}");
  editText(edited, sizeof(edited), "{\"bodies\"",
           "{\"simulation\": {\"rtol\": 1e-9}, \"gravity\": [0, 0, -1.62], \"bodies\"");
  csModel* want = th_loadString(edited);
  csLoadOptions opt = {.overrides = set, .noverrides = (int)(sizeof(set) / sizeof(set[0]))};
  csError err = {0};
  csModel* got = cs_loadSceneString(g_contactScene, "s.json", &opt, &err);
  if (!got) {
    fail_msg("%s: %s", err.path, err.message);
  }
  assertSameModel(got, want);
  // the values really changed (the comparison is not between two unchanged scenes)
  assert_true(got->body[1].mass == 2.5 && got->opt.rtol == 1e-9 && got->gravity.z == -1.62);
  cs_deleteModel(want);
  cs_deleteModel(got);
  // the same with another contact model chosen: its block was replaced whole (the changes,
  // which are of exponential-spring variables, replaced by none)
  csOverride withHunt[sizeof(set) / sizeof(set[0]) + 1];
  memcpy(withHunt, set, sizeof(set));
  withHunt[sizeof(set) / sizeof(set[0])] = (csOverride){"changes", "[]"};
  opt = (csLoadOptions){.contact_model = "hunt_crossley",
                        .overrides = withHunt,
                        .noverrides = (int)(sizeof(withHunt) / sizeof(withHunt[0]))};
  got = cs_loadSceneString(g_contactScene, "s.json", &opt, &err);
  if (!got) {
    fail_msg("%s: %s", err.path, err.message);
  }
  assert_int_equal(got->nchange, 0);
  assert_true(paramOf(&got->force[1], "plane_strain_modulus") == 3e6);
  assert_true(paramOf(&got->force[1], "radius") == 0.05);
  cs_deleteModel(got);
  // overrides apply in order: a renamed body is addressed by its new name
  const csOverride rename[] = {{"bodies.block.name", "\"brick\""}, {"bodies.brick.mass", "4"}};
  opt = (csLoadOptions){.overrides = rename, .noverrides = 2};
  const char* scene =
      "{\"bodies\": [{\"name\": \"block\", \"mass\": 1, " BODY_INERTIA
      ", \"joint\": {\"type\": \"free\"}}, {\"name\": \"a.b\", \"mass\": 1, " BODY_INERTIA
      ", \"joint\": {\"type\": \"pin\"}}]}";
  got = cs_loadSceneString(scene, "s.json", &opt, &err);
  assert_non_null(got);
  assert_string_equal(got->body[1].name, "brick");
  assert_true(got->body[1].mass == 4);
  cs_deleteModel(got);
  // a name with a dot in it is matched whole
  const csOverride dotted[] = {{"bodies.a.b.mass", "7"}};
  opt = (csLoadOptions){.overrides = dotted, .noverrides = 1};
  got = cs_loadSceneString(scene, "s.json", &opt, &err);
  assert_non_null(got);
  assert_true(got->body[2].mass == 7);
  cs_deleteModel(got);
}


// one override that must fail: as the override's error (overrideIndex > 0, path = its key) or as
// a normal error at a JSON path (overrideIndex 0); the message must contain `text`
static void expectOverrideError(const char* key, const char* value, int asOverride,
                                const char* path, const char* text) {
  const csOverride set[] = {{"simulation.duration", "1"}, {key, value}};
  csLoadOptions opt = {.overrides = set, .noverrides = 2};
  csError err;
  memset(&err, 0, sizeof(err));
  csModel* m = cs_loadSceneString(g_contactScene, "s.json", &opt, &err);
  if (m || err.code != CS_ERR_INPUT || err.override != (asOverride ? 2 : 0) ||
      strcmp(err.path, path) != 0 || !strstr(err.message, text) ||
      strcmp(err.file, "s.json") != 0) {
    cs_deleteModel(m);
    fail_msg("--set %s=%s: code %d, override %d, path '%s', message '%s'", key, value, err.code,
             err.override, err.path, err.message);
  }
}


static void test_override_errors(void** state) {
  (void)state;
  expectOverrideError("bodies.foo.mass", "2", 1, "bodies.foo.mass",
                      "the scene has no body named 'foo'");
  expectOverrideError("forces.left_foot.mu_static", "2", 1, "forces.left_foot.mu_static",
                      "the scene has no force element named 'left_foot'");
  expectOverrideError("simulation.rtool", "1e-6", 1, "simulation.rtool", "unknown key 'rtool'");
  expectOverrideError("simulaton.rtol", "1e-6", 1, "simulaton.rtol", "unknown key 'simulaton'");
  expectOverrideError("contact_models.exponential_spring.mu", "1", 1,
                      "contact_models.exponential_spring.mu", "unknown key 'mu'");
  expectOverrideError("bodies.block.mass.value", "1", 1, "bodies.block.mass.value",
                      "'bodies.block.mass' is a number");
  expectOverrideError("bodies[3].mass", "1", 1, "bodies[3].mass", "there is no [3]");
  expectOverrideError("bodies[x].mass", "1", 1, "bodies[x].mass", "malformed index");
  // [N] as the docs write it: no leading zero, space or sign (strtol took these as [0])
  expectOverrideError("bodies[00].mass", "1", 1, "bodies[00].mass", "malformed index");
  expectOverrideError("bodies[ 0].mass", "1", 1, "bodies[ 0].mass", "malformed index");
  expectOverrideError("bodies[+0].mass", "1", 1, "bodies[+0].mass", "malformed index");
  expectOverrideError("bodies..mass", "1", 1, "bodies..mass", "malformed key path");
  expectOverrideError("", "1", 1, "", "empty");
  expectOverrideError("changes.first.time", "1", 1, "changes.first.time", "by index");
  expectOverrideError("simulation.integrator", "bdf", 1, "simulation.integrator",
                      "not JSON text: at character 1 (a string needs double quotes");
  // the place and the reason of any other error, as in a file: a '+' anywhere
  expectOverrideError("gravity", "[0, +1, 0]", 1, "gravity",
                      "not JSON text: at character 5: a number has no '+' in front");
  expectOverrideError("gravity", "[0, 1,", 1, "gravity",
                      "not JSON text: at character 7 (unexpected end of the text)");
  expectOverrideError("simulation.rtol", "1e-6 2", 1, "simulation.rtol", "not JSON text");
  // nested past the parser's limit, said as such; a long value quoted to 200 bytes, saying so
  {
    static char deep[2 * 1001 + 1], word[301];
    memset(deep, '[', 1001);
    memset(deep + 1001, ']', 1001);
    memset(word, 'x', 300);
    expectOverrideError("gravity", deep, 1, "gravity", "nested more than 1000 levels deep");
    char quoted[240];
    snprintf(quoted, sizeof(quoted), "'%.200s...' is not JSON text", word);
    expectOverrideError("gravity", word, 1, "gravity", quoted);
  }
  // a value of the wrong kind is the scene's error at its JSON path, as in an edited file
  expectOverrideError("bodies.block.mass", "-1", 0, "bodies[0].mass", "must be > 0");
  expectOverrideError("simulation.rtol", "\"tight\"", 0, "simulation.rtol", "expected a number");
  expectOverrideError("contacts.feet.points[1]", "[1, 2]", 0, "contacts[0].points[1]",
                      "expected an array of 3 numbers");
}


// scheduled changes obey the rules of the parameters they replace, and the values of one change
// agree with each other
static void test_change_values_checked(void** state) {
  (void)state;
  char json[4096];
  const char* stop =
      "{\"bodies\": [{\"name\": \"arm\", \"mass\": 1, " BODY_INERTIA
      ", \"joint\": {\"type\": \"pin\"}}],"
      " \"forces\": [{\"type\": \"linear_stop\", \"name\": \"stop\", \"body\": \"arm\","
      "   \"lower_bound\": -0.5, \"upper_bound\": 1.2, \"stiffness\": 300}],"
      " \"changes\": [{\"time\": 0.5, \"force\": \"stop\", \"lower_bound\": -0.2}, %s]}";
  // values the stop's table refuses at load time are refused in a change too
  snprintf(json, sizeof(json), stop, "{\"time\": 1, \"force\": \"stop\", \"stiffness\": -1e12}");
  expectError(json, "changes[1].stiffness");
  snprintf(json, sizeof(json), stop, "{\"time\": 1, \"force\": \"stop\", \"dissipation\": -1}");
  expectError(json, "changes[1].dissipation");
  // bounds set together must not be inverted, whichever comes first
  snprintf(json, sizeof(json), stop,
           "{\"time\": 1, \"force\": \"stop\", \"lower_bound\": 2, \"upper_bound\": 1}");
  expectError(json, "changes[1].upper_bound");
  snprintf(json, sizeof(json), stop,
           "{\"time\": 1, \"force\": \"stop\", \"upper_bound\": 1, \"lower_bound\": 2}");
  expectError(json, "changes[1].lower_bound");
  // a bound moved past the other one alone is the stop's documented rule: the other follows
  snprintf(json, sizeof(json), stop, "{\"time\": 1, \"force\": \"stop\", \"lower_bound\": 2}");
  csModel* m = th_loadString(json);
  assert_int_equal(m->nchange, 2);
  cs_deleteModel(m);
  snprintf(json, sizeof(json), stop,
           "{\"time\": 1, \"force\": \"stop\", \"lower_bound\": 2, \"upper_bound\": 3,"
           " \"stiffness\": 0}");
  m = th_loadString(json);
  assert_int_equal(m->nchange, 4);
  cs_deleteModel(m);

  // friction of a contact set: mu >= 0, and mu_dynamic <= mu_static when both are set
  const char* exp = "{\"bodies\": [{\"name\": \"block\", \"mass\": 1, " BODY_INERTIA
                    ", \"joint\": {\"type\": \"free\"}}],"
                    " \"planes\": [{\"name\": \"floor\"}],"
                    " \"contacts\": [{\"name\": \"feet\", \"body\": \"block\", \"plane\": "
                    "\"floor\", \"points\": [[0, 0, 0], [1, 0, 0]]}],"
                    " \"contact_models\": {\"exponential_spring\": {}},"
                    " \"changes\": [%s]}";
  snprintf(json, sizeof(json), exp, "{\"time\": 1, \"force\": \"feet\", \"mu_static\": -5}");
  expectError(json, "changes[0].mu_static");
  snprintf(json, sizeof(json), exp, "{\"time\": 1, \"force\": \"feet.1\", \"mu_dynamic\": -0.1}");
  expectError(json, "changes[0].mu_dynamic");
  snprintf(json, sizeof(json), exp,
           "{\"time\": 1, \"force\": \"feet\", \"mu_static\": 0.3, \"mu_dynamic\": 0.5}");
  expectError(json, "changes[0].mu_dynamic");
  // a static coefficient set below the kinetic one alone pulls it down (the kind's rule)
  snprintf(json, sizeof(json), exp, "{\"time\": 1, \"force\": \"feet\", \"mu_static\": 0.1}");
  m = th_loadString(json);
  assert_int_equal(m->nchange, 2);
  cs_deleteModel(m);
  snprintf(json, sizeof(json), exp,
           "{\"time\": 1, \"force\": \"feet\", \"mu_dynamic\": 0.2, \"mu_static\": 0.3}");
  m = th_loadString(json);
  assert_int_equal(m->nchange, 4);
  cs_deleteModel(m);
}


// a large scene loads (in linear time: docs/performance.md measures 100,000 bodies): 20,000
// bodies each on the one before, a contact per body, one contact of 20,000 points, and changes
// listed backwards in time; every name resolves to the right id
static void test_large_scene(void** state) {
  (void)state;
  enum { N = 20000 };
  size_t cap = (size_t)N * 400 + 4096, len = 0;
  char* s = malloc(cap);
  assert_non_null(s);
#define APPEND(...) (len += (size_t)snprintf(s + len, cap - len, __VA_ARGS__))
  APPEND("{\"gravity\": [0, 0, -9.81], \"bodies\": [");
  for (int i = 0; i < N; i++) {
    // a slider on the previous body: a chain, so every parent is looked up by name
    APPEND("%s{\"name\": \"b%d\", \"mass\": %d, " BODY_INERTIA
           ", \"joint\": {\"type\": \"slider\", \"parent\": \"%s%d\"}}",
           i ? "," : "", i, 1 + i % 7, i ? "b" : "groun", i ? i - 1 : 0);
  }
  APPEND("], \"planes\": [{\"name\": \"floor\"}], \"contacts\": [");
  for (int i = 0; i < N; i++) {
    APPEND(
        "%s{\"name\": \"c%d\", \"body\": \"b%d\", \"plane\": \"floor\", \"points\": "
        "[[0, 0, 0]]}",
        i ? "," : "", i, N - 1 - i);
  }
  APPEND(", {\"name\": \"many\", \"body\": \"b0\", \"plane\": \"floor\", \"points\": [");
  for (int i = 0; i < N; i++) {
    APPEND("%s[%d, 0, 0]", i ? "," : "", i);
  }
  APPEND("]}], \"contact_models\": {\"exponential_spring\": {}}, \"changes\": [");
  for (int i = 0; i < N; i++) {
    APPEND("%s{\"time\": %d, \"force\": \"c%d\", \"mu_static\": 0.5}", i ? "," : "", N - i, i);
  }
  APPEND("]}");
#undef APPEND
  // "groun0" above is ground's name with a digit: patch the first parent back to "ground"
  char* g = strstr(s, "groun0");
  assert_non_null(g);
  g[5] = 'd';
  csModel* m = th_loadString(s);
  free(s);
  assert_int_equal(m->nbody, N + 1);
  assert_int_equal(m->nforce, 1 + 2 * N);
  assert_int_equal(m->ngroup, N + 1);
  for (int i = 1; i <= N; i += 997) {
    assert_int_equal(m->body[i].parent, i - 1);
    assert_true(m->body[i].mass == 1 + (i - 1) % 7);
  }
  // contact c_i is element 1 + i, on body N - i (body ids are one past the array index)
  for (int i = 0; i < N; i += 1009) {
    assert_int_equal(m->force[1 + i].ref[CS_REF_BODY], N - i);
  }
  assert_int_equal(m->force[m->nforce - 1].group, N);
  // the changes in time order: the last one listed (c_{N-1}, at t = 1) comes first
  assert_int_equal(m->nchange, N);
  for (int c = 0; c < N; c++) {
    assert_true(m->change[c].time == c + 1);
    assert_int_equal(m->change[c].force, 1 + (N - 1 - c));
  }
  cs_deleteModel(m);
}


// 1 if s holds no control character (C0, DEL, C1) and is valid UTF-8
static int isPrintableUtf8(const char* s) {
  const unsigned char* p = (const unsigned char*)s;
  while (*p) {
    if (*p < 0x20 || *p == 0x7f) {
      return 0;
    }
    int n = *p < 0x80 ? 1 : *p >= 0xf0 ? 4 : *p >= 0xe0 ? 3 : *p >= 0xc2 ? 2 : 0;
    if (n == 0 || (n == 2 && p[0] == 0xc2 && p[1] < 0xa0)) {
      return 0;
    }
    for (int i = 1; i < n; i++) {
      if ((p[i] & 0xc0) != 0x80) {
        return 0;
      }
    }
    p += n;
  }
  return 1;
}


// the messages: nesting past the parser's limit, a spring on one body, a largest step that
// cannot work, long paths and file names whole, and what the scene wrote made printable
static void test_messages(void** state) {
  (void)state;
  csError err;
  // nested deeper than cJSON's limit (1000): said so, with the place
  size_t depth = 1200, n = 0;
  char* deep = malloc(2 * depth + 64);
  n += (size_t)sprintf(deep, "{\"bodies\": ");
  for (size_t i = 0; i < depth; i++) {
    deep[n++] = '[';
  }
  for (size_t i = 0; i < depth; i++) {
    deep[n++] = ']';
  }
  strcpy(deep + n, "}");
  assert_null(cs_loadSceneString(deep, "deep.json", NULL, &err));
  assert_int_equal(err.code, CS_ERR_INPUT);
  assert_non_null(strstr(err.message, "nested more than 1000 levels"));
  assert_int_equal(err.line, 1);
  assert_int_equal(err.column, 1 + 11 + 1000 - 1);  // the bracket that opens level 1001
  // exactly at the limit, a bracket after a value is a missing comma, not more nesting
  n = (size_t)sprintf(deep, "{\"x\": ");
  for (size_t i = 0; i < 999; i++) {
    deep[n++] = '[';
  }
  n += (size_t)sprintf(deep + n, "1 [2]");
  for (size_t i = 0; i < 999; i++) {
    deep[n++] = ']';
  }
  strcpy(deep + n, "}");
  assert_null(cs_loadSceneString(deep, "comma.json", NULL, &err));
  assert_non_null(strstr(err.message, "malformed JSON"));
  assert_int_equal(err.column, 6 + 999 + 3);  // the bracket after "1 "
  free(deep);
  // a malformed text is still called malformed
  assert_null(cs_loadSceneString("{\"a\": [[[1,]]]}", "m.json", NULL, &err));
  assert_non_null(strstr(err.message, "malformed JSON"));

  // a spring from ground to ground, or from a body to itself, is refused as a bushing is
  expectError(
      "{\"forces\": [{\"type\": \"spring\", \"body1\": \"ground\", \"body2\": \"ground\","
      " \"stiffness\": 10}]}",
      "forces[0].body2");
  expectError("{\"bodies\": [{\"name\": \"b\", \"mass\": 1, " BODY_INERTIA
              ", \"joint\": {\"type\": \"free\"}}],"
              " \"forces\": [{\"type\": \"spring\", \"body1\": \"b\", \"body2\": \"b\","
              " \"station2\": [1, 0, 0], \"stiffness\": 10}]}",
              "forces[0].body2");

  // a largest step with which the scene's own run cannot reach its first report, or cannot
  // advance t: the scene loads (a run may be given another duration and report interval), and
  // a simulation with the scene's options is refused, naming the key
  static const char* const stepless[] = {
      "{\"simulation\": {\"max_step\": 1e-9}}",
      "{\"simulation\": {\"duration\": 1e6, \"report_interval\": 1e5, \"max_steps\": 1e15,"
      " \"max_step\": 1e-12}}",
  };
  for (int i = 0; i < 2; i++) {
    csModel* sm = th_loadString(stepless[i]);
    assert_null(cs_newSimulation(sm, NULL, &err));
    assert_string_equal(err.path, "simulation.max_step");
    csSimOptions shorter = sm->opt;
    shorter.duration = shorter.report_interval = 1e-6;
    csSimulation* sim = cs_newSimulation(sm, &shorter, &err);
    assert_non_null(sim);
    cs_deleteSimulation(sim);
    cs_deleteModel(sm);
  }
  // a first step below what the integrators' arithmetic takes (BDF's step of 1e-300 s
  // collapsed, blaming the forces); the smallest allowed one loads and runs
  expectError("{\"simulation\": {\"initial_step\": 1e-300}}", "simulation.initial_step");
  {
    csModel* tiny = th_loadString(
        "{\"bodies\": [{\"name\": \"b\", \"mass\": 1, " BODY_INERTIA
        ", \"joint\": {\"type\": \"free\"}}],"
        " \"simulation\": {\"initial_step\": 1e-150, \"duration\": 0.01}}");
    csData* d = cs_makeData(tiny);
    cs_resetData(tiny, d);
    assert_int_equal(cs_simulate(tiny, d, &tiny->opt, NULL, &err), CS_OK);
    cs_deleteData(d);
    cs_deleteModel(tiny);
  }
  // the same step with a budget that allows it, and a short run, load
  csModel* m = th_loadString("{\"simulation\": {\"max_step\": 1e-9, \"max_steps\": 20000000}}");
  cs_deleteModel(m);
  m = th_loadString("{\"simulation\": {\"max_step\": 1e-9, \"duration\": 1e-5}}");
  cs_deleteModel(m);
  csSimOptions o = cs_defaultSimOptions();
  char why[256];
  o.max_step = 1.0001e-7;  // 99,991 steps to the first report at 0.01 s: within the budget
  assert_int_equal(cs_maxStepProblem(&o, why, sizeof(why)), 0);
  // 1e5 steps, exactly the budget: rounding can leave them short of the report, refused
  o.max_step = 1e-7;
  assert_int_equal(cs_maxStepProblem(&o, why, sizeof(why)), 1);
  assert_non_null(strstr(why, "max_steps (100000)"));

  // a long file name and a long unknown key arrive whole
  char file[1200], key[700], json[2000];
  memset(file, 'f', sizeof(file) - 1);
  file[sizeof(file) - 1] = '\0';
  memcpy(file + sizeof(file) - 6, ".json", 6);
  memset(key, 'k', sizeof(key) - 1);
  key[sizeof(key) - 1] = '\0';
  snprintf(json, sizeof(json), "{\"simulation\": {\"%s\": 1}}", key);
  assert_null(cs_loadSceneString(json, file, NULL, &err));
  assert_string_equal(err.file, file);
  assert_int_equal(strlen(err.path), strlen("simulation.") + strlen(key));
  assert_memory_equal(err.path + strlen("simulation."), key, strlen(key));
  // and so does a long override key path
  const csOverride set[] = {{key, "1"}};
  csLoadOptions lo = {.overrides = set, .noverrides = 1};
  assert_null(cs_loadSceneString("{}", file, &lo, &err));
  assert_int_equal(err.override, 1);
  assert_string_equal(err.path, key);

  // names, keys and values with control characters or bytes that are not UTF-8 are escaped
  const char* bad[] = {
      "{\"bodies\": [{\"name\": \"a\\u0007b\\u001b[2J\", \"mass\": 1}]}",
      "{\"bodies\": [{\"name\": \"b\", \"mass\": 1, " BODY_INERTIA
      ", \"joint\": {\"type\": \"pin\", \"parent\": \"x\xff\\u0085y\"}}]}",
      "{\"bodies\": [{\"n\\u0001me\": 1}]}",
      "{\"name\": \"scene\\u0007\"}",
      "{\"simulation\": {\"integrator\": \"\\u001b[31mred\"}}",
  };
  const char* shown[] = {"a\\x07b\\x1b[2J", "x\\xff\\xc2\\x85y", "n\\x01me", "scene\\x07",
                         "\\x1b[31mred"};
  for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
    memset(&err, 0, sizeof(err));
    assert_null(cs_loadSceneString(bad[i], "esc.json", NULL, &err));
    if (!isPrintableUtf8(err.message) || !isPrintableUtf8(err.path) ||
        (!strstr(err.message, shown[i]) && !strstr(err.path, shown[i]))) {
      fail_msg("case %zu: path '%s', message '%s'", i, err.path, err.message);
    }
  }
  // valid UTF-8 is kept as it is (a name in another script is not an error to hide)
  assert_null(cs_loadSceneString("{\"planes\": [{\"name\": \"p\", \"body\": \"sol\xc3\xa9\"}]}",
                                 "u.json", NULL, &err));
  assert_non_null(strstr(err.message, "'sol\xc3\xa9'"));
}


// ---------------------------------------------------------------------------------------------
// bad input

static void test_parse_error_position(void** state) {
  (void)state;
  csError err = {0};
  // the second member lacks its comma: line 3, column 3 is the quote of "gravity"
  const char* json = "{\n  \"name\": \"x\"\n  \"gravity\": [0, 0, 0]\n}\n";
  assert_null(cs_loadSceneString(json, "p.json", NULL, &err));
  assert_int_equal(err.code, CS_ERR_INPUT);
  assert_int_equal(err.line, 3);
  assert_int_equal(err.column, 3);
  assert_string_equal(err.file, "p.json");
  assert_non_null(strstr(err.message, "line 3"));
  // truncated text, trailing garbage, empty text
  assert_null(cs_loadSceneString("{\"name\": ", "p.json", NULL, &err));
  assert_int_equal(err.code, CS_ERR_INPUT);
  assert_int_equal(err.line, 1);
  assert_null(cs_loadSceneString("{}\n\n  }", "p.json", NULL, &err));
  assert_int_equal(err.line, 3);
  assert_int_equal(err.column, 3);
  assert_null(cs_loadSceneString("", "p.json", NULL, &err));
  assert_int_equal(err.code, CS_ERR_INPUT);
  // the root must be an object
  expectError("[1, 2]", "-");
}


// a syntax error is reported at the character at fault: in an object, one where a key must
// stand (cJSON stopped one past it, and "{\"a\": 1,}" read as an unexpected end of the text),
// and a number with '+' in front says so, in a scene and as a --set value
static void test_json_syntax_positions(void** state) {
  (void)state;
  static const struct {
    const char* text;
    int line, column;
    const char* why;
  } cases[] = {
      {"{\"a\":1,}", 1, 8,
       ": a comma before the closing bracket (JSON allows none after the last item)"},
      {"{,}", 1, 2, ": expected a name in double quotes"},
      {"{\"a\":1,,\"b\":2}", 1, 8, ": expected a name in double quotes"},
      {"{\n  \"simulation\": {\"duration\": 1,}\n}", 2, 32,
       ": a comma before the closing bracket (JSON allows none after the last item)"},
      {"{\"a\": [1,]}", 1, 10,
       ": a comma before the closing bracket (JSON allows none after the last item)"},
      {"[1, [,]]", 1, 6, ": expected a value"},
      {"{\"a\": [,]}", 1, 8, ": expected a value"},
      {"{\"a\" 1}", 1, 6, ": expected ':' after the name"},
      {"{\"a\\\"b\" 1}", 1, 9, ": expected ':' after the name"},
      {"{\"a\": 1 \"b\": 2}", 1, 9, ": expected ',' or '}' after the value"},
      {"[1 2]", 1, 4, ": expected ',' or ']' after the value"},
      {"{\"a\": 1}x", 1, 9, ": text after the value (a JSON text is one value)"},
      {"{\"a\": bdf}", 1, 7, ": expected a value (a string needs double quotes)"},
      {"{\"a\": {", 1, 8, " (unexpected end of the text)"},
      {"{\"mass\": +1}", 1, 10, ": a number has no '+' in front (JSON allows only '-')"},
      // in strings: an escape JSON does not have (cJSON took \u12x4), a string never closed,
      // a control character not escaped (cJSON took a tab typed into a description)
      {"{\"a\": \"\\q\"}", 1, 8,
       ": an escape JSON does not have (\\\" \\\\ \\/ \\b \\f \\n \\r \\t, \\u and four "
       "hexadecimal digits)"},
      {"{\"a\": \"\\u12x4\"}", 1, 8,
       ": an escape JSON does not have (\\\" \\\\ \\/ \\b \\f \\n \\r \\t, \\u and four "
       "hexadecimal digits)"},
      {"{\"a\": \"abc", 1, 7, ": the string is not closed"},
      {"{\"name\": \"a\tb\"}", 1, 12,
       ": a string holds the control character U+0009, which JSON needs escaped (\\t, \\n, "
       "\\u0009)"},
      // after an empty object the '}' is no key's place; a '+' only where a value may stand
      {"{}x", 1, 3, ": text after the value (a JSON text is one value)"},
      {"{\"a\": {}x}", 1, 9, ": expected ',' or '}' after the value"},
      {"[1 +2]", 1, 4, ": expected ',' or ']' after the value"},
      {"{\"a\" +1}", 1, 6, ": expected ':' after the name"},
      // a string cut short, a backslash its last byte included, at its opening quote
      {"{\"a\": \"abc\\", 1, 7, ": the string is not closed"},
      {"\"", 1, 1, ": the string is not closed"},
      // a UTF-16 surrogate alone, which the parser refuses
      {"{\"a\": \"\\ud800\"}", 1, 8,
       ": a UTF-16 surrogate not in a pair (\\uD800 to \\uDBFF needs one of \\uDC00 to "
       "\\uDFFF after it; the parser takes no other)"},
      // columns count characters: two of two bytes each before the error
      {"{\"\xc3\xa9\xc3\xa9\": 1, x: 2}", 1, 11, ": expected a name in double quotes"},
  };
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
    csError err;
    memset(&err, 0, sizeof(err));
    csModel* m = cs_loadSceneString(cases[i].text, "s.json", NULL, &err);
    char want[160];
    snprintf(want, sizeof(want), "malformed JSON at line %d, column %d%s", cases[i].line,
             cases[i].column, cases[i].why);
    if (m || err.line != cases[i].line || err.column != cases[i].column ||
        strcmp(err.message, want) != 0) {
      cs_deleteModel(m);
      fail_msg("%s: at %d:%d: %s (expected %s)", cases[i].text, err.line, err.column,
               err.message, want);
    }
  }
  const csOverride set[] = {{"gravity", "+1"}};
  csLoadOptions lo = {.overrides = set, .noverrides = 1};
  csError err;
  assert_null(cs_loadSceneString("{}", "s.json", &lo, &err));
  assert_non_null(strstr(err.message, "a number has no '+' in front"));
  // what JSON allows still loads: the escapes, a surrogate pair, a backslash before the
  // closing quote, numbers such as -0 and 1E+5
  csModel* m = cs_loadSceneString(
      "{\"name\": \"a\\/b\\\\\\\"\\u00e9\\ud83d\\ude00\\\\\", \"gravity\": [-0, 1E+5, 0]}",
      "s.json", NULL, &err);
  if (!m) {
    fail_msg("%s", err.message);
  }
  cs_deleteModel(m);
}


// numbers JSON (RFC 8259) does not allow, though cJSON reads them (its strtod takes 010, 1. and
// -.5), are malformed JSON at their line and column, in a scene, a --set value and a study;
// the numbers JSON allows load
static void test_json_numbers(void** state) {
  (void)state;
  static const char* const bad[][2] = {
      {"010", "a number may not start with 0 followed by a digit"},
      {"-01", "a number may not start with 0 followed by a digit"},
      {"00", "a number may not start with 0 followed by a digit"},
      {"-00.5", "a number may not start with 0 followed by a digit"},
      {"1.", "a decimal point must be followed by a digit"},
      {"1.e1", "a decimal point must be followed by a digit"},
      {"-0.E-2", "a decimal point must be followed by a digit"},
      {"-.5", "a number needs a digit before its decimal point"},
  };
  char json[256], want[128];
  csError err;
  for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
    // line 2, column 18: where the number starts
    snprintf(json, sizeof(json), "{\n  \"gravity\": [0, %s, 0]\n}\n", bad[i][0]);
    memset(&err, 0, sizeof(err));
    csModel* m = cs_loadSceneString(json, "n.json", NULL, &err);
    snprintf(want, sizeof(want), "malformed JSON at line 2, column 18: the number %s: %s",
             bad[i][0], bad[i][1]);
    if (m || err.code != CS_ERR_INPUT || err.line != 2 || err.column != 18 ||
        strcmp(err.message, want) != 0 || strcmp(err.file, "n.json") != 0) {
      cs_deleteModel(m);
      fail_msg("%s: code %d at %d:%d in '%s': %s", bad[i][0], err.code, err.line, err.column,
               err.file, err.message);
    }
    // as a --set value, where cJSON reads it the same way
    snprintf(json, sizeof(json), "[0, %s, 0]", bad[i][0]);
    const csOverride set[] = {{"gravity", json}};
    csLoadOptions lo = {.overrides = set, .noverrides = 1};
    memset(&err, 0, sizeof(err));
    m = cs_loadSceneString("{}", "n.json", &lo, &err);
    snprintf(want, sizeof(want), "is not JSON text: at character 5, the number %s: %s", bad[i][0],
             bad[i][1]);
    if (m || err.code != CS_ERR_INPUT || err.override != 1 || !strstr(err.message, want)) {
      cs_deleteModel(m);
      fail_msg("--set gravity=%s: code %d, override %d: %s", json, err.code, err.override,
               err.message);
    }
  }
  // the numbers JSON allows, in the file and as --set values
  static const char* const good[] = {"0",    "-0",  "0.5",      "-0.5",    "10",     "1e5",
                                     "1E+5", "0e0", "-1.25e-3", "2.5E-01", "100.001"};
  for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
    snprintf(json, sizeof(json), "{\"gravity\": [0, %s, 0]}", good[i]);
    memset(&err, 0, sizeof(err));
    csModel* m = cs_loadSceneString(json, "n.json", NULL, &err);
    if (!m) {
      fail_msg("%s refused: %s", good[i], err.message);
    }
    th_assertClose(m->gravity.y, strtod(good[i], NULL), 0, 0, good[i]);
    cs_deleteModel(m);
    snprintf(json, sizeof(json), "[0, %s, 0]", good[i]);
    const csOverride set[] = {{"gravity", json}};
    csLoadOptions lo = {.overrides = set, .noverrides = 1};
    m = cs_loadSceneString("{}", "n.json", &lo, &err);
    if (!m) {
      fail_msg("--set gravity=%s refused: %s", json, err.message);
    }
    cs_deleteModel(m);
  }
  // digits in strings and keys are no numbers
  csModel* m = th_loadString("{\"name\": \"010 1. -.5 \\\"-01\", \"description\": \"x\\\\\"}");
  cs_deleteModel(m);
  // the first error is reported: a bad number before a syntax error, and a syntax error before
  // a bad number
  memset(&err, 0, sizeof(err));
  assert_null(cs_loadSceneString("{\"gravity\": [0, 01, 0] x}", "n.json", NULL, &err));
  assert_int_equal(err.column, 17);
  assert_non_null(strstr(err.message, "the number 01:"));
  assert_null(cs_loadSceneString("{\"gravity\": [0, 01x]}", "n.json", NULL, &err));
  assert_int_equal(err.column, 17);
  assert_non_null(strstr(err.message, "the number 01:"));
  assert_null(cs_loadSceneString("{\"gravity\" [0, 01, 0]}", "n.json", NULL, &err));
  assert_int_equal(err.column, 12);
  assert_null(strstr(err.message, "number"));

  // a study file is read as strictly
  char dir[] = "/tmp/test_scene_load_XXXXXX";
  assert_non_null(mkdtemp(dir));
  char path[512];
  snprintf(path, sizeof(path), "%s/study.json", dir);
  for (int broken = 0; broken < 2; broken++) {
    FILE* f = fopen(path, "w");
    assert_non_null(f);
    fprintf(f,
            "{\"scene\": \"%s/scenes/pendulum.json\",\n \"parameters\": [{\"key\": "
            "\"bodies.arm.mass\", \"values\": [1, %s]}]}\n",
            CS_SOURCE_ROOT, broken ? "2." : "2.5");
    fclose(f);
    memset(&err, 0, sizeof(err));
    csStudy* study = cs_loadStudy(path, &err);
    if (broken) {
      assert_null(study);
      assert_int_equal(err.code, CS_ERR_INPUT);
      assert_int_equal(err.line, 2);
      assert_int_equal(err.column, 58);
      assert_string_equal(err.message,
                          "malformed JSON at line 2, column 58: the number 2.: a "
                          "decimal point must be followed by a digit");
      assert_string_equal(err.file, path);
    } else if (!study) {
      fail_msg("the study does not load: %s", err.message);
    }
    cs_deleteStudy(study);
  }
  remove(path);
  rmdir(dir);
}


// A parameter with a dot in its table name is given nested only: the flat member
// "body_material.plane_strain_modulus" was read as well, so the same parameter could be given
// twice, nested and flat, with two values, the later silently winning
static void test_dotted_parameter_only_nested(void** state) {
  (void)state;
  const char* body = "{\"bodies\": [{\"name\": \"f\", \"mass\": 1, \"inertia\": {\"sphere\": 0.1}, "
                     "\"joint\": {\"type\": \"free\", \"q\": [1, 0, 0, 0, 0, 0, 0.099]}}], "
                     "\"planes\": [{\"name\": \"floor\"}], ";
  const char* tails[] = {
      "\"forces\": [{\"type\": \"hunt_crossley\", \"name\": \"h\", \"body\": \"f\", "
      "\"plane\": \"floor\", \"radius\": 0.1, \"body_material\": {\"plane_strain_modulus\": "
      "1e6}, \"body_material.plane_strain_modulus\": 2e6}]}",
      "\"forces\": [{\"type\": \"hunt_crossley\", \"name\": \"h\", \"body\": \"f\", "
      "\"plane\": \"floor\", \"radius\": 0.1, \"body_material.plane_strain_modulus\": 2e6}]}",
      "\"contacts\": [{\"body\": \"f\", \"plane\": \"floor\", \"points\": [[0, 0, -0.1]]}], "
      "\"contact_models\": {\"compliant_point\": {\"body_material.penalty_stiffness\": 1e5}}}"};
  const char* paths[] = {"forces[0].body_material.plane_strain_modulus",
                         "forces[0].body_material.plane_strain_modulus",
                         "contact_models.compliant_point.body_material.penalty_stiffness"};
  for (int i = 0; i < 3; i++) {
    char json[2048];
    snprintf(json, sizeof(json), "%s%s", body, tails[i]);
    csError err;
    csModel* m = cs_loadSceneString(json, "dotted.json", NULL, &err);
    if (m || strcmp(err.path, paths[i]) != 0 || !strstr(err.message, "written nested")) {
      fail_msg("case %d: %s", i, m ? "loaded" : err.message);
    }
  }
}


// A study's array and object values keep every number's last digit, in its parameters and its
// set (cJSON printed 0.30000000000000004 as 0.3 and 1.0000000000000002 as 1, and the runs got
// those values)
static void test_study_values_exact(void** state) {
  (void)state;
  char dir[] = "/tmp/test_scene_load_XXXXXX";
  assert_non_null(mkdtemp(dir));
  char path[512];
  snprintf(path, sizeof(path), "%s/study.json", dir);
  FILE* f = fopen(path, "w");
  assert_non_null(f);
  fprintf(f,
          "{\"scene\": \"%s/scenes/free_fall.json\",\n \"set\": {\"gravity\": [0, "
          "0.30000000000000004, -9.81], \"bodies.ball.joint.initial\": {\"position\": [0, 0, "
          "1.0000000000000002], \"speed\": 0.1}},\n \"parameters\": [{\"key\": "
          "\"bodies.ball.com\", \"values\": [[0, 0, 0.30000000000000004], [0, 0, 0.3], "
          "[5e-324, 1e300, -0]]}]}\n",
          CS_SOURCE_ROOT);
  fclose(f);
  csError err;
  csStudy* s = cs_loadStudy(path, &err);
  if (!s) {
    fail_msg("%s", err.message);
  }
  assert_int_equal(s->nset, 2);
  assert_string_equal(s->set_value[0], "[0,0.30000000000000004,-9.81]");
  assert_string_equal(s->set_value[1], "{\"position\":[0,0,1.0000000000000002],\"speed\":0.1}");
  double x;
  assert_string_equal(cs_studyValue(s, 0, 0, &x), "[0,0,0.30000000000000004]");
  assert_string_equal(cs_studyValue(s, 1, 0, &x), "[0,0,0.3]");
  assert_string_equal(cs_studyValue(s, 2, 0, &x), "[5e-324,1e+300,-0]");
  cs_deleteStudy(s);
  // a key given twice inside a value is the loader's to judge, kept as given (replacing the
  // numbers by key name looped for ever on it); a number that overflows is refused at its path
  const char* values[] = {"{\"a\": 1, \"a\": 0.30000000000000004}", "[0, 0, 1e999]"};
  for (int i = 0; i < 2; i++) {
    f = fopen(path, "w");
    assert_non_null(f);
    fprintf(f, "{\"scene\": \"%s/scenes/free_fall.json\", \"set\": {\"gravity\": %s}}\n",
            CS_SOURCE_ROOT, values[i]);
    fclose(f);
    s = cs_loadStudy(path, &err);
    if (i == 0) {
      if (!s) {
        fail_msg("%s", err.message);
      }
      assert_string_equal(s->set_value[0], "{\"a\":1,\"a\":0.30000000000000004}");
      cs_deleteStudy(s);
    } else {
      assert_null(s);
      assert_string_equal(err.path, "set.gravity");
      assert_non_null(strstr(err.message, "not finite"));
    }
  }
  remove(path);
  rmdir(dir);
}


// the kinds of bad input listed in docs/scene-format.md's rules, one of each
static void test_bad_inputs(void** state) {
  (void)state;
  const char* pin = "{\"type\": \"pin\"}";
  const char* I = BODY_INERTIA;
  // the same body loads when nothing is wrong with it
  csModel* m = th_loadString(oneBody(I, pin));
  cs_deleteModel(m);
  expectError("{\"bodies\": [{\"name\": \"b\", " BODY_INERTIA ", \"joint\": {\"type\": \"pin\"}}]}",
              "bodies[0].mass");  // missing field
  expectError(oneBody("\"com\": \"origin\", " BODY_INERTIA, pin), "bodies[0].com");  // wrong type
  expectError(oneBody(I, "{\"type\": \"pin\", \"axis\": 1}"),
              "bodies[0].joint.axis");  // unknown key
  expectError(oneBody(I, "{\"type\": \"pin\", \"type\": \"ball\"}"),
              "bodies[0].joint.type");  // dup
  expectError(oneBody(I, "{\"type\": \"pin\", \"parent\": \"base\"}"), "bodies[0].joint.parent");
  expectError("{\"bodies\": [{\"name\": \"b\", \"mass\": 0, " BODY_INERTIA
              ","
              " \"joint\": {\"type\": \"pin\"}}]}",
              "bodies[0].mass");  // non-positive mass
  expectError(oneBody("\"inertia\": {\"matrix\": [1, 1, 1, 0, 0, 1.5]}", pin), "bodies[0].inertia");
  expectError(oneBody("\"inertia\": {\"diag\": [1, 2, 3.5]}", pin), "bodies[0].inertia");
  expectError(oneBody(I,
                      "{\"type\": \"pin\", \"parent_frame\": {\"rotation\": {\"axis\": [0, 0, 0],"
                      " \"angle_deg\": 10}}}"),
              "bodies[0].joint.parent_frame.rotation.axis");  // zero axis
  expectError(oneBody(I, "{\"type\": \"ball\", \"q\": [0, 0, 0, 0]}"), "bodies[0].joint.q");
  expectError(oneBody(I, "{\"type\": \"ball\", \"q\": [1, 0, 0]}"), "bodies[0].joint.q");
  expectError(oneBody(I, "{\"type\": \"slider\", \"u\": [1, 0]}"), "bodies[0].joint.u");
  expectError("{\"simulation\": {\"atol\": -1e-8}}", "simulation.atol");  // negative tolerance
  expectError("{\"simulation\": {\"atol\": 1e-310}}", "simulation.atol");  // 1 / atol = inf
  expectError("{\"simulation\": {\"duration\": -1}}", "simulation.duration");
  expectError("{\"simulation\": {\"max_steps\": 10.25}}", "simulation.max_steps");
  expectError(oneBody(I, "{\"type\": \"slider\", \"q\": [-1e999]}"), "bodies[0].joint.q[0]");
  expectError("{\"forces\": [{\"type\": \"rocket\"}]}", "forces[0].type");
  expectError("{\"contact_models\": {\"sticky_tape\": {}}}", "contact_models.sticky_tape");
}


// the body variants that must fail, each with its path
static void test_bad_bodies(void** state) {
  (void)state;
  const char* pin = "{\"type\": \"pin\"}";
  const char* I = BODY_INERTIA;
  struct {
    const char* extra;
    const char* joint;
    const char* path;
  } cases[] = {
      // inertia problems
      {"\"inertia\": {\"diag\": [1, 1, -1]}", pin, "bodies[0].inertia"},
      {"\"inertia\": {\"diag\": [1, 1, 2.5]}", pin, "bodies[0].inertia"},
      {"\"inertia\": {\"matrix\": [1, 1, 1, 0.9, 0.9, 0.9]}", pin, "bodies[0].inertia"},
      {"\"inertia\": {}", pin, "bodies[0].inertia"},
      {"\"inertia\": {\"sphere\": 0.1, \"box\": [1, 1, 1]}", pin, "bodies[0].inertia.box"},
      {"\"inertia\": {\"sphere\": -0.1}", pin, "bodies[0].inertia.sphere"},
      {"\"inertia\": {\"box\": [0.1, 0, 0.1]}", pin, "bodies[0].inertia.box"},
      {"\"inertia\": {\"cylinder\": {\"radius\": 0.1}}", pin,
       "bodies[0].inertia.cylinder.half_length"},
      {"\"inertia\": {\"box\": [1e200, 1e200, 1e200]}", pin, "bodies[0].inertia"},
      {"\"inertia\": {\"diag\": [1, 1]}", pin, "bodies[0].inertia.diag"},
      {"\"inertia\": {\"diag\": [1, true, 1]}", pin, "bodies[0].inertia.diag[1]"},
      {"\"inertia\": [1, 1, 1]", pin, "bodies[0].inertia"},
      // body keys
      {"\"com\": [0, 0], \"inertia\": {\"sphere\": 1}", pin, "bodies[0].com"},
      {"\"colour\": 1, \"inertia\": {\"sphere\": 1}", pin, "bodies[0].colour"},
      // joints
      {I, "{\"type\": \"hinge\"}", "bodies[0].joint.type"},
      {I, "{}", "bodies[0].joint.type"},
      {I, "{\"type\": \"pin\", \"parent\": \"b\"}", "bodies[0].joint.parent"},
      {I, "{\"type\": \"pin\", \"parent\": 0}", "bodies[0].joint.parent"},
      {I, "{\"type\": \"pin\", \"q\": 0.1}", "bodies[0].joint.q"},
      {I, "{\"type\": \"pin\", \"q\": [\"0.1\"]}", "bodies[0].joint.q[0]"},
      {I, "{\"type\": \"weld\", \"u\": [0]}", "bodies[0].joint.u"},
      {I, "{\"type\": \"free\", \"q\": [1, 0, 0, 0, 0, 0]}", "bodies[0].joint.q"},
      {I, "{\"type\": \"free\", \"q\": [0, 0, 0, 0, 1, 2, 3]}", "bodies[0].joint.q"},
      {I, "{\"type\": \"pin\", \"initial\": {}}", "bodies[0].joint.initial"},
      {I, "{\"type\": \"free\", \"initial\": {}, \"u\": [0, 0, 0, 0, 0, 0]}",
       "bodies[0].joint.initial"},
      {I, "{\"type\": \"free\", \"initial\": {\"spin\": [0, 0, 1]}}",
       "bodies[0].joint.initial.spin"},
      {I, "{\"type\": \"free\", \"initial\": {\"orientation\": {\"quaternion\": [0, 0, 0, 0]}}}",
       "bodies[0].joint.initial.orientation.quaternion"},
      // frames and rotations
      {I, "{\"type\": \"pin\", \"child_frame\": {\"rotation\": {\"axis\": [1, 0, 0]}}}",
       "bodies[0].joint.child_frame.rotation.angle"},
      {I,
       "{\"type\": \"pin\", \"child_frame\": {\"rotation\": {\"axis\": [1, 0, 0], \"angle\": 1,"
       " \"angle_deg\": 2}}}",
       "bodies[0].joint.child_frame.rotation.angle_deg"},
      {I,
       "{\"type\": \"pin\", \"child_frame\": {\"rotation\": {\"quaternion\": [1, 0, 0, 0],"
       " \"axis\": [1, 0, 0]}}}",
       "bodies[0].joint.child_frame.rotation.quaternion"},
      {I, "{\"type\": \"pin\", \"child_frame\": {\"rotation\": {}}}",
       "bodies[0].joint.child_frame.rotation"},
      {I, "{\"type\": \"pin\", \"child_frame\": {\"origin\": [0, 0, 0]}}",
       "bodies[0].joint.child_frame.origin"},
      {I, "{\"type\": \"pin\", \"parent_frame\": {\"position\": [0, 0, 1e400]}}",
       "bodies[0].joint.parent_frame.position[2]"},
  };
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
    expectError(oneBody(cases[i].extra, cases[i].joint), cases[i].path);
  }
}


static void test_bad_scenes(void** state) {
  (void)state;
  struct {
    const char* json;
    const char* path;
  } cases[] = {
      // the top level
      {"{\"gravity\": [0, 0, -9.81], \"gravity\": [0, 0, 0]}", "gravity"},
      {"{\"Gravity\": [0, 0, 0]}", "Gravity"},
      {"{\"name\": 5}", "name"},
      {"{\"name\": \"\"}", "name"},
      {"{\"bodies\": {}}", "bodies"},
      {"{\"bodies\": [1]}", "bodies[0]"},
      {"{\"bodies\": [{\"mass\": 1}]}", "bodies[0].name"},
      {"{\"bodies\": [{\"name\": \"ground\", \"mass\": 1}]}", "bodies[0].name"},
      {"{\"bodies\": [{\"name\": \"a b\", \"mass\": 1}]}", "bodies[0].name"},
      {"{\"bodies\": [{\"name\": \"a\", \"mass\": -1}]}", "bodies[0].mass"},
      {"{\"bodies\": [{\"name\": \"a\", \"mass\": 1, " BODY_INERTIA "}]}", "bodies[0].joint"},
      {"{\"bodies\": [{\"name\": \"a\", \"mass\": 1}]}", "bodies[0].inertia"},
      {"{\"bodies\": [{\"name\": \"a\", \"mass\": 1, " BODY_INERTIA ", \"joint\": {\"type\":"
       " \"pin\"}}, {\"name\": \"a\", \"mass\": 1, " BODY_INERTIA ", \"joint\": {\"type\":"
       " \"pin\"}}]}",
       "bodies[1].name"},
      // planes
      {"{\"planes\": [{\"body\": \"ground\"}]}", "planes[0].name"},
      {"{\"planes\": [{\"name\": \"p\", \"body\": \"table\"}]}", "planes[0].body"},
      {"{\"planes\": [{\"name\": \"p\"}, {\"name\": \"p\"}]}", "planes[1].name"},
      {"{\"planes\": [{\"name\": \"p\", \"frame\": {\"rotation\": {\"axis\": [0, 0, 0],"
       " \"angle\": 1}}}]}",
       "planes[0].frame.rotation.axis"},
      // simulation
      {"{\"simulation\": {\"duration\": 0}}", "simulation.duration"},
      {"{\"simulation\": {\"atol\": 0}}", "simulation.atol"},
      {"{\"simulation\": {\"max_step\": -1}}", "simulation.max_step"},
      {"{\"simulation\": {\"initial_step\": -1}}", "simulation.initial_step"},
      {"{\"simulation\": {\"report_interval\": 0}}", "simulation.report_interval"},
      {"{\"simulation\": {\"max_steps\": 0}}", "simulation.max_steps"},
      {"{\"simulation\": {\"max_steps\": \"many\"}}", "simulation.max_steps"},
      {"{\"simulation\": {\"integrator\": \"rk4\"}}", "simulation.integrator"},
      {"{\"simulation\": {\"linear_solver\": \"lu\"}}", "simulation.linear_solver"},
      {"{\"simulation\": {\"rtol\": -1e999}}", "simulation.rtol"},
      {"{\"simulation\": {\"timestep\": 0.1}}", "simulation.timestep"},
      {"{\"simulation\": []}", "simulation"},
      // forces
      {"{\"forces\": [{\"type\": \"gravity\"}]}", "forces[0].type"},
      {"{\"forces\": [{\"name\": \"x\"}]}", "forces[0].type"},
      {"{\"forces\": [{\"type\": \"warp_drive\"}]}", "forces[0].type"},
  };
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
    expectError(cases[i].json, cases[i].path);
  }
}


static void test_bad_forces(void** state) {
  (void)state;
  const char* head = "{\"bodies\": [{\"name\": \"s\", \"mass\": 1, " BODY_INERTIA
                     ","
                     " \"joint\": {\"type\": \"slider\"}}], \"forces\": [";
  struct {
    const char* force;
    const char* path;
  } cases[] = {
      {"{\"type\": \"mobility_spring\", \"body\": \"s\"}", "forces[0].stiffness"},
      {"{\"type\": \"mobility_spring\", \"body\": \"s\", \"stiffness\": -1}",
       "forces[0].stiffness"},
      {"{\"type\": \"mobility_spring\", \"body\": \"s\", \"stiffness\": 1, \"stifness\": 1}",
       "forces[0].stifness"},
      {"{\"type\": \"mobility_spring\", \"body\": \"s\", \"stiffness\": 1, \"stiffness\": 2}",
       "forces[0].stiffness"},
      {"{\"type\": \"mobility_spring\", \"body\": \"t\", \"stiffness\": 1}", "forces[0].body"},
      {"{\"type\": \"mobility_spring\", \"body\": 1, \"stiffness\": 1}", "forces[0].body"},
      {"{\"type\": \"mobility_spring\", \"body\": \"s\", \"stiffness\": 1, \"coordinate\": 0.5}",
       "forces[0].coordinate"},
      {"{\"type\": \"mobility_spring\", \"body\": \"s\", \"stiffness\": 1, \"coordinate\": -1}",
       "forces[0].coordinate"},
      {"{\"type\": \"mobility_spring\", \"body\": \"s\", \"stiffness\": 1, \"coordinate\": 1}",
       "forces[0].coordinate"},  // the kind's validate callback
      {"{\"type\": \"mobility_spring\", \"body\": \"ground\", \"stiffness\": 1}", "forces[0].body"},
      {"{\"type\": \"spring\", \"body1\": \"s\", \"body2\": \"ground\", \"stiffness\": 1,"
       " \"station1\": [0, 0]}",
       "forces[0].station1"},
      {"{\"type\": \"linear_bushing\", \"body1\": \"s\", \"body2\": \"ground\","
       " \"rotational_stiffness\": [1, 1, 1], \"translational_stiffness\": [1, -1, 1]}",
       "forces[0].translational_stiffness[1]"},
      {"{\"type\": \"linear_bushing\", \"body1\": \"s\", \"body2\": \"ground\","
       " \"rotational_stiffness\": [1, 1, 1], \"translational_stiffness\": [1, 1, 1],"
       " \"frame1\": {\"rotation\": {\"quaternion\": [0, 0, 0, 0]}}}",
       "forces[0].frame1.rotation.quaternion"},
      {"{\"type\": \"mobility_damper\", \"name\": \"a b\", \"body\": \"s\", \"damping\": 1}",
       "forces[0].name"},
      {"{\"type\": \"mobility_damper\", \"name\": \"d\", \"body\": \"s\", \"damping\": 1}, "
       "{\"type\":"
       " \"mobility_damper\", \"name\": \"d\", \"body\": \"s\", \"damping\": 1}",
       "forces[1].name"},
      {"{\"type\": \"mobility_damper\", \"name\": \"gravity\", \"body\": \"s\", \"damping\": 1}",
       "forces[0].name"},
      {"{\"type\": \"mobility_damper\", \"body\": \"s\", \"damping\": 1, \"body_material\": {}}",
       "forces[0].body_material"},
      {"3", "forces[0]"},
  };
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
    char json[2048];
    snprintf(json, sizeof(json), "%s%s]}", head, cases[i].force);
    expectError(json, cases[i].path);
  }
  // nested keys: a dotted table key must be given as an object, and its members are checked
  const char* cp =
      "{\"bodies\": [{\"name\": \"s\", \"mass\": 1, " BODY_INERTIA
      ","
      " \"joint\": {\"type\": \"free\"}}], \"planes\": [{\"name\": \"p\"}],"
      " \"forces\": [{\"type\": \"compliant_point\", \"body\": \"s\", \"plane\": \"p\","
      " \"body_material\": %s}]}";
  char json[2048];
  snprintf(json, sizeof(json), cp, "5");
  expectError(json, "forces[0].body_material");
  snprintf(json, sizeof(json), cp, "{\"penalty_stiffness\": 1, \"hardness\": 2}");
  expectError(json, "forces[0].body_material.hardness");
  snprintf(json, sizeof(json), cp, "{\"penalty_stiffness\": 1, \"penalty_stiffness\": 2}");
  expectError(json, "forces[0].body_material.penalty_stiffness");
  snprintf(json, sizeof(json), cp, "{\"penalty_stiffness\": -1}");
  expectError(json, "forces[0].body_material.penalty_stiffness");
  // an unknown plane name in a PLANE parameter
  snprintf(json, sizeof(json),
           "{\"bodies\": [{\"name\": \"s\", \"mass\": 1, " BODY_INERTIA
           ","
           " \"joint\": {\"type\": \"free\"}}], \"forces\": [{\"type\": \"compliant_point\","
           " \"body\": \"s\", \"plane\": \"nowhere\", \"penalty_stiffness\": 1}]}");
  expectError(json, "forces[0].plane");
}


// the bad-input corpus shared with the command-line test
static void test_bad_corpus(void** state) {
  (void)state;
  FILE* f = fopen(CS_SOURCE_ROOT "/tests/data/bad/expected.txt", "r");
  assert_non_null(f);
  char line[512];
  int n = 0;
  while (fgets(line, sizeof(line), f)) {
    char file[256], sub[256];
    int code;
    if (line[0] == '#' || sscanf(line, "%255s %255s %d", file, sub, &code) != 3) {
      continue;
    }
    char path[1024];
    snprintf(path, sizeof(path), "%s/tests/data/bad/%s", CS_SOURCE_ROOT, file);
    csError err = {0};
    csModel* m = cs_loadScene(path, NULL, &err);
    // a scene whose own run cannot start (a max_step too small for its duration) loads, as
    // another duration may be given, and is refused as the run's simulation is made
    csSimulation* sim = m ? cs_newSimulation(m, NULL, &err) : NULL;
    if (sim || (int)err.code != code || (!m && strcmp(err.file, path) != 0) ||
        (!strstr(err.path, sub) && !strstr(err.message, sub))) {
      cs_deleteSimulation(sim);
      print_error("%s: expected code %d with '%s', got %d at '%s': %s\n", file, code, sub, err.code,
                  err.path, err.message);
      cs_deleteModel(m);
      fail();
    }
    cs_deleteModel(m);
    n++;
  }
  fclose(f);
  assert_true(n >= 18);
}


static void test_io_errors(void** state) {
  (void)state;
  csError err = {0};
  assert_null(cs_loadScene("/nonexistent/dir/scene.json", NULL, &err));
  assert_int_equal(err.code, CS_ERR_IO);
  assert_string_equal(err.file, "/nonexistent/dir/scene.json");
  // a directory cannot be read as a scene
  assert_null(cs_loadScene(CS_SOURCE_ROOT "/scenes", NULL, &err));
  assert_true(err.code == CS_ERR_IO || err.code == CS_ERR_INPUT);
  // err may be NULL
  assert_null(cs_loadScene("/nonexistent/dir/scene.json", NULL, NULL));
  assert_null(cs_loadSceneString("{", "x", NULL, NULL));
}


// truncations and byte flips of a valid scene never crash and always fill the error when they
// do not load (a quick stand-in for the fuzz target)
static void test_mutations_do_not_crash(void** state) {
  (void)state;
  size_t len = strlen(g_contactScene);
  char* buf = malloc(len + 1);
  unsigned long seed = 12345;
  const char alphabet[] = "{}[]\",:0123456789.-e truefalsn\\ab";
  for (int trial = 0; trial < 3000; trial++) {
    memcpy(buf, g_contactScene, len + 1);
    seed = seed * 6364136223846793005UL + 1442695040888963407UL;
    if (trial % 3 == 0) {
      buf[(seed >> 33) % len] = '\0';  // truncate
    } else {
      for (int k = 0; k < 1 + trial % 4; k++) {
        seed = seed * 6364136223846793005UL + 1442695040888963407UL;
        buf[(seed >> 33) % len] = alphabet[(seed >> 20) % (sizeof(alphabet) - 1)];
      }
    }
    csError err = {0};
    csModel* m = cs_loadSceneString(buf, "mut.json", NULL, &err);
    if (m) {
      cs_deleteModel(m);
    } else {
      assert_true(err.code == CS_ERR_INPUT);
      assert_true(err.message[0] != '\0');
    }
  }
  free(buf);
}


// ---------------------------------------------------------------------------------------------
// the documentation agrees with the code

// the rows "| key | type | default | ..." of the table under the heading `heading`
static int docRows(const char* heading, char keys[][64], char defaults[][64], int max) {
  FILE* f = fopen(CS_SOURCE_ROOT "/docs/scene-format.md", "r");
  assert_non_null(f);
  char line[1024];
  int in = 0, n = 0;
  while (fgets(line, sizeof(line), f)) {
    if (line[0] == '#') {
      char* h = line;
      while (*h == '#' || *h == ' ') {
        h++;
      }
      h[strcspn(h, "\r\n")] = '\0';
      in = strcmp(h, heading) == 0;
      continue;
    }
    if (!in || line[0] != '|' || strncmp(line, "| key", 5) == 0 || strncmp(line, "|---", 4) == 0) {
      continue;
    }
    // split into cells
    char* cells[8];
    int nc = 0;
    char* p = line + 1;
    while (nc < 8 && *p) {
      char* bar = strchr(p, '|');
      if (!bar) {
        break;
      }
      *bar = '\0';
      while (*p == ' ') {
        p++;
      }
      char* e = p + strlen(p);
      while (e > p && e[-1] == ' ') {
        *--e = '\0';
      }
      cells[nc++] = p;
      p = bar + 1;
    }
    if (nc >= 3 && n < max) {
      snprintf(keys[n], 64, "%s", cells[0]);
      snprintf(defaults[n], 64, "%s", cells[2]);
      n++;
    }
  }
  fclose(f);
  return n;
}


static void test_doc_simulation_defaults(void** state) {
  (void)state;
  char keys[32][64], defs[32][64];
  int n = docRows("simulation", keys, defs, 32);
  csSimOptions o = cs_defaultSimOptions();
  struct {
    const char* key;
    double value;
  } numbers[] = {
      {"duration", o.duration},
      {"rtol", o.rtol},
      {"atol", o.atol},
      {"max_step", o.max_step},
      {"initial_step", o.initial_step},
      {"max_steps", (double)o.max_steps},
      {"report_interval", o.report_interval},
      {"max_rows", (double)o.max_rows},
  };
  const char* integrators[] = {"bdf", "adams", "rk"};
  const char* solvers[] = {"auto", "dense", "band", "gmres"};
  int found = 0;
  for (int i = 0; i < n; i++) {
    for (size_t j = 0; j < sizeof(numbers) / sizeof(numbers[0]); j++) {
      if (strcmp(keys[i], numbers[j].key) == 0) {
        char* end;
        double v = strtod(defs[i], &end);
        assert_true(end != defs[i]);
        th_assertClose(v, numbers[j].value, 0, 0, numbers[j].key);
        found++;
      }
    }
    if (strcmp(keys[i], "integrator") == 0) {
      assert_string_equal(defs[i], integrators[o.integrator]);
      found++;
    }
    if (strcmp(keys[i], "linear_solver") == 0) {
      assert_string_equal(defs[i], solvers[o.linsol]);
      found++;
    }
  }
  assert_int_equal(found, 10);  // every option is documented exactly once
  assert_int_equal(n, 10);
  // and a scene that gives no "simulation" gets exactly these
  csModel* m = th_loadString("{}");
  assert_memory_equal(&m->opt, &o, sizeof(o));
  cs_deleteModel(m);
}


// every key of every force kind is documented with its default
static void test_doc_force_kinds(void** state) {
  (void)state;
  for (int id = 0; id < CS_FORCE_KIND_COUNT; id++) {
    const csForceKind* k = cs_forceKind(id);
    if (id == CS_FORCE_GRAVITY) {
      continue;
    }
    char keys[64][64], defs[64][64];
    int n = docRows(k->name, keys, defs, 64);
    if (n != k->nparams) {
      fail_msg("docs/scene-format.md documents %d keys of '%s'; its table has %d", n, k->name,
               k->nparams);
    }
    for (int i = 0; i < k->nparams; i++) {
      const csParamInfo* p = &k->params[i];
      assert_string_equal(keys[i], p->key);
      if (p->flags & CS_PARAM_REQUIRED) {
        assert_string_equal(defs[i], "required");
      } else if (p->flags & CS_PARAM_OPTIONAL) {
        assert_string_equal(defs[i], "unset");
      } else if (p->type == CS_PARAM_REAL || p->type == CS_PARAM_INT || p->type == CS_PARAM_VEC3) {
        double v = strtod(defs[i] + (defs[i][0] == '['), NULL);
        th_assertClose(v, p->value, 1e-5, 0, p->key);
      }
    }
  }
}


// ---------------------------------------------------------------------------------------------
// the bundled scenes

static void test_scene_pendulum(void** state) {
  (void)state;
  csModel* m = th_loadFile("scenes/pendulum.json");
  assert_int_equal(m->nbody, 2);
  assert_int_equal(m->body[1].joint, CS_JOINT_PIN);
  assert_true(m->body[1].mass == 1.0);
  assert_true(m->body[1].inertia.m[0][0] == 1e-3);
  csData* d = cs_makeData(m);
  // the pin axis (body z) is horizontal, the arm hangs 0.1 rad off the downward vertical
  csVec3 axis = csu_column(&d->body_pose[1].R, 2);
  th_assertClose(fabs(axis.z), 0, 0, 1e-15, "pin axis horizontal");
  csVec3 arm = csu_sub(d->body_com[1], d->body_pose[1].p);
  th_assertClose(csu_norm(arm), 1.0, 0, 1e-14, "arm length");
  th_assertClose(acos(-arm.z), 0.1, 0, 1e-12, "initial angle");
  th_assertClose(csu_dot(arm, axis), 0, 0, 1e-14, "arm across the axis");
  cs_deleteData(d);
  cs_deleteModel(m);
}


static void test_scenes_load(void** state) {
  (void)state;
  csModel* m = th_loadFile("scenes/double_pendulum.json");
  assert_int_equal(m->nbody, 3);
  assert_int_equal(m->body[2].parent, 1);
  cs_deleteModel(m);

  m = th_loadFile("scenes/free_fall.json");
  assert_int_equal(m->nbody, 2);
  assert_int_equal(m->body[1].joint, CS_JOINT_FREE);
  assert_int_equal(m->nforce, 1);  // gravity only: no contact
  cs_deleteModel(m);

  m = th_loadFile("scenes/spinning_top_free.json");
  assert_int_equal(m->nforce, 0);  // torque free
  const csMat33* I = &m->body[1].inertia;
  // spinning about the intermediate principal axis (body y, I = 2 between 1 and 2.5)
  assert_true(I->m[0][0] < I->m[1][1] && I->m[1][1] < I->m[2][2]);
  csData* d = cs_makeData(m);
  csVec3 w = d->body_vel[1].w;
  assert_true(fabs(w.y) > 100 * fabs(w.x) && fabs(w.y) > 100 * fabs(w.z));
  assert_true(w.x != 0 && w.z != 0);
  cs_deleteData(d);
  cs_deleteModel(m);

  m = th_loadFile("scenes/chain3d_ball.json");
  assert_int_equal(m->nbody, 4);
  for (int b = 1; b < 4; b++) {
    assert_int_equal(m->body[b].joint, CS_JOINT_BALL);
    assert_int_equal(m->body[b].parent, b - 1);
  }
  d = cs_makeData(m);
  assert_true(cs_kineticEnergy(m, d) > 0);
  cs_deleteData(d);
  cs_deleteModel(m);

  m = th_loadFile("scenes/slider_spring.json");
  assertVec3(m->gravity, 0, 0, 0, 0, "no gravity");
  assert_int_equal(m->nforce, 2);
  assert_true(m->force[cs_forceId(m, "spring")].param[0] == 100.0);
  assert_true(m->force[cs_forceId(m, "damper")].param[0] == 2.0);
  assert_true(m->q0[0] == 0.1);
  cs_deleteModel(m);
}


int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_empty_scene_defaults),
      cmocka_unit_test(test_name_and_gravity),
      cmocka_unit_test(test_simulation_options),
      cmocka_unit_test(test_body_fields),
      cmocka_unit_test(test_pin_parent_frame_pose),
      cmocka_unit_test(test_rotation_forms),
      cmocka_unit_test(test_inertia_shapes),
      cmocka_unit_test(test_free_initial_in_ground),
      cmocka_unit_test(test_free_initial_moving_parent),
      cmocka_unit_test(test_planes),
      cmocka_unit_test(test_forces_generic),
      cmocka_unit_test(test_contacts_point_model),
      cmocka_unit_test(test_contacts_model_override),
      cmocka_unit_test(test_inertia_of_a_tiny_solid),
      cmocka_unit_test(test_contacts_errors),
      cmocka_unit_test(test_scene_contact_models),
      cmocka_unit_test(test_overrides_equal_edited_file),
      cmocka_unit_test(test_override_errors),
      cmocka_unit_test(test_change_values_checked),
      cmocka_unit_test(test_large_scene),
      cmocka_unit_test(test_messages),
      cmocka_unit_test(test_parse_error_position),
      cmocka_unit_test(test_json_syntax_positions),
      cmocka_unit_test(test_json_numbers),
      cmocka_unit_test(test_bad_inputs),
      cmocka_unit_test(test_dotted_parameter_only_nested),
      cmocka_unit_test(test_study_values_exact),
      cmocka_unit_test(test_bad_bodies),
      cmocka_unit_test(test_bad_scenes),
      cmocka_unit_test(test_bad_forces),
      cmocka_unit_test(test_bad_corpus),
      cmocka_unit_test(test_io_errors),
      cmocka_unit_test(test_mutations_do_not_crash),
      cmocka_unit_test(test_doc_simulation_defaults),
      cmocka_unit_test(test_doc_force_kinds),
      cmocka_unit_test(test_scene_pendulum),
      cmocka_unit_test(test_scenes_load),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
