// test_sphere_models.c: smooth_sphere_half_space and hunt_crossley against their equations,
// recomputed here from the seed (seeds/001) and the classic Hunt-Crossley formulas, and against
// conservation laws and the first-order Hunt-Crossley restitution law in drop tests.
// Models are built with the C API; states are written by hand and realized to dynamics.
#include <stdio.h>
#include <string.h>

#include "helpers.h"

#define G 9.81
#define RADIUS 0.1

// smooth sphere defaults (seeds/001, setParameters)
#define CF 1e-5
#define BD 300.0
#define BV 50.0


// ---------------------------------------------------------------------------------------------
// fixtures

// a model with a free sphere over a plane (on ground, or on a free slab) and one contact element
typedef struct rig {
  csModel* m;
  int sphere;   // body carrying the sphere
  int slab;     // body carrying the plane (0: ground)
  int plane;
  int e;        // the contact element
} rig;


static int addFree(csModel* m, const char* name, double mass, csMat33 inertia) {
  csBody b;
  memset(&b, 0, sizeof(b));
  snprintf(b.name, sizeof(b.name), "%s", name);
  b.parent = 0;
  b.joint = CS_JOINT_FREE;
  b.X_PF = csu_transformIdentity();
  b.X_BM = csu_transformIdentity();
  b.mass = mass;
  b.inertia = inertia;
  csError err = {0};
  int id = cs_addBody(m, &b, &err);
  assert_true(id > 0);
  return id;
}


static void setParam(csModel* m, int e, const char* key, double value) {
  if (cs_setForceParam(m, e, key, value) != 0) {
    print_error("no parameter '%s'\n", key);
    fail();
  }
}


static rig makeRig(int kind, int gravity, int onSlab, csTransform X_BP) {
  rig r;
  csError err = {0};
  r.m = cs_newModel("rig");
  r.slab = onSlab ? addFree(r.m, "slab", 5.0, csu_inertiaBox(5.0, csu_vec3(0.5, 0.5, 0.05))) : 0;
  r.sphere = addFree(r.m, "ball", 1.0, csu_inertiaSphere(1.0, RADIUS));
  csPlane pl;
  memset(&pl, 0, sizeof(pl));
  snprintf(pl.name, sizeof(pl.name), "floor");
  pl.body = r.slab;
  pl.X_BP = X_BP;
  r.plane = cs_addPlane(r.m, &pl, &err);
  assert_true(r.plane >= 0);
  if (gravity) {
    assert_true(cs_addForce(r.m, CS_FORCE_GRAVITY, "gravity", &err) >= 0);
  }
  r.e = cs_addForce(r.m, kind, "contact", &err);
  assert_true(r.e >= 0);
  setParam(r.m, r.e, "body", r.sphere);
  setParam(r.m, r.e, "plane", r.plane);
  setParam(r.m, r.e, "radius", RADIUS);
  return r;
}


static void finalize(csModel* m) {
  csError err = {0};
  if (cs_finalizeModel(m, &err) != 0) {
    print_error("finalize: %s: %s\n", err.path, err.message);
    fail();
  }
}


// write the free-joint state of body b: orientation, origin, angular and linear velocity (Ground)
static void setBody(const csModel* m, csData* d, int b, csQuat q, csVec3 p, csVec3 w, csVec3 v) {
  double* Q = d->q + m->body[b].qadr;
  double* U = d->u + m->body[b].uadr;
  Q[0] = q.w;
  Q[1] = q.x;
  Q[2] = q.y;
  Q[3] = q.z;
  csu_vec3ToArray(Q + 4, p);
  csu_vec3ToArray(U, w);
  csu_vec3ToArray(U + 3, v);
}


// the sphere (centre at its body origin, identity orientation) at height z with velocity v,
// over the ground floor; realized to dynamics
static void placeSphere(const rig* r, csData* d, double z, csVec3 v) {
  setBody(r->m, d, r->sphere, csu_quatIdentity(), csu_vec3(0, 0, z), csu_vec3(0, 0, 0), v);
  cs_invalidate(d);
  cs_realizeDynamics(r->m, d);
}


static void assertVecClose(csVec3 a, csVec3 b, double rtol, double atol, const char* what) {
  char buf[128];
  double scale = csu_norm(b);
  snprintf(buf, sizeof(buf), "%s.x", what);
  th_assertClose(a.x, b.x, 0, atol + rtol * scale, buf);
  snprintf(buf, sizeof(buf), "%s.y", what);
  th_assertClose(a.y, b.y, 0, atol + rtol * scale, buf);
  snprintf(buf, sizeof(buf), "%s.z", what);
  th_assertClose(a.z, b.z, 0, atol + rtol * scale, buf);
}


// ---------------------------------------------------------------------------------------------
// the seed's equations, written out independently of the library

// smoothed Hertz force (seeds/001, "Normal Force Components")
static double seedHertz(double E, double R, double x) {
  double k = 0.5 * pow(E, 2.0 / 3.0);
  double fhPos = (4.0 / 3.0) * k * pow(R * k, 0.5) * pow(pow(x * x + CF, 0.5), 1.5);
  return fhPos * (0.5 + 0.5 * tanh(BD * x));
}


// smoothed Hunt-Crossley force for penetration rate v
static double seedHuntCrossley(double E, double R, double c, double x, double v) {
  double fh = seedHertz(E, R, x);
  if (c == 0) {
    return fh;
  }
  return fh * (1 + 1.5 * c * v) * (0.5 + 0.5 * tanh(BV * (v + 2 / (3 * c))));
}


// friction magnitude for tangential speed |vt| (seeds/001, "Friction Force")
static double seedFriction(double fhc, double tangentialSpeed, double us, double ud, double uv,
                           double vtrans) {
  double vs = sqrt(tangentialSpeed * tangentialSpeed + CF);
  double r = vs / vtrans;
  double m = r < 1 ? r : 1;
  return fhc * (m * (ud + 2 * (us - ud) / (1 + r * r)) + uv * vs);
}


// ---------------------------------------------------------------------------------------------
// smooth sphere / half space

// normal force and potential energy versus penetration, at rest
static void test_smooth_force_and_energy(void** state) {
  (void)state;
  const double E = 1e6;
  rig r = makeRig(CS_FORCE_SMOOTH_SPHERE, 0, 0, csu_transformIdentity());
  setParam(r.m, r.e, "stiffness", E);
  finalize(r.m);
  csData* d = cs_makeData(r.m);
  const double xs[] = {-0.05, -0.01, -0.002, 0, 0.001, 0.004, 0.01, 0.03};
  for (size_t i = 0; i < sizeof(xs) / sizeof(xs[0]); i++) {
    double x = xs[i];
    placeSphere(&r, d, RADIUS - x, csu_vec3(0, 0, 0));
    double fh = seedHertz(E, RADIUS, x);
    char what[64];
    snprintf(what, sizeof(what), "fz at x=%g", x);
    th_assertClose(d->body_force[r.sphere].v.z, fh, 1e-12, 1e-300, what);
    th_assertClose(d->body_force[r.sphere].v.x, 0, 0, 1e-12, "fx");
    // the force acts on the vertical through the centre: no moment about the centre
    th_assertClose(csu_norm(d->body_force[r.sphere].w), 0, 0, 1e-12, "moment");
    snprintf(what, sizeof(what), "pe at x=%g", x);
    th_assertClose(d->force_pe[r.e], 0.4 * fh * x, 1e-12, 1e-300, what);
    th_assertClose(d->force_power[r.e], 0, 0, 1e-12, "power at rest");
  }
  // far from the plane the tanh switch has turned the force fully off
  placeSphere(&r, d, 1.0, csu_vec3(0, 0, 0));
  assert_true(d->body_force[r.sphere].v.z == 0.0);
  cs_deleteData(d);
  cs_deleteModel(r.m);
}


// Hunt-Crossley dissipation versus penetration rate; power = -(F . v) - d(pe)/dt
static void test_smooth_dissipation(void** state) {
  (void)state;
  const double E = 1e6, c = 2.0, x = 0.005;
  rig r = makeRig(CS_FORCE_SMOOTH_SPHERE, 0, 0, csu_transformIdentity());
  setParam(r.m, r.e, "stiffness", E);
  setParam(r.m, r.e, "dissipation", c);
  finalize(r.m);
  csData* d = cs_makeData(r.m);
  // slope of the seed's pe by central differences, for the energy balance
  const double h = 1e-7;
  double dpe = (0.4 * seedHertz(E, RADIUS, x + h) * (x + h) -
                0.4 * seedHertz(E, RADIUS, x - h) * (x - h)) / (2 * h);
  const double rates[] = {-1.0, -0.34, -0.2, 0, 0.1, 0.5, 2.0};
  for (size_t i = 0; i < sizeof(rates) / sizeof(rates[0]); i++) {
    double v = rates[i];
    placeSphere(&r, d, RADIUS - x, csu_vec3(0, 0, -v));
    double fhc = seedHuntCrossley(E, RADIUS, c, x, v);
    char what[64];
    snprintf(what, sizeof(what), "fz at xdot=%g", v);
    th_assertClose(d->body_force[r.sphere].v.z, fhc, 1e-12, 1e-12, what);
    snprintf(what, sizeof(what), "power at xdot=%g", v);
    th_assertClose(d->force_power[r.e], (fhc - dpe) * v, 1e-6, 1e-9, what);
  }
  cs_deleteData(d);
  cs_deleteModel(r.m);
}


// friction versus slip speed and direction; moment of the friction about the centre
static void test_smooth_friction(void** state) {
  (void)state;
  const double E = 1e6, x = 0.004, us = 0.8, ud = 0.5, uv = 0.1, vt = 0.05;
  rig r = makeRig(CS_FORCE_SMOOTH_SPHERE, 0, 0, csu_transformIdentity());
  setParam(r.m, r.e, "stiffness", E);
  setParam(r.m, r.e, "static_friction", us);
  setParam(r.m, r.e, "dynamic_friction", ud);
  setParam(r.m, r.e, "viscous_friction", uv);
  setParam(r.m, r.e, "transition_velocity", vt);
  finalize(r.m);
  csData* d = cs_makeData(r.m);
  const double speeds[] = {0, 0.001, 0.02, 0.05, 0.1, 0.5, 2.0};
  double fh = seedHertz(E, RADIUS, x);
  for (size_t i = 0; i < sizeof(speeds) / sizeof(speeds[0]); i++) {
    double s = speeds[i];
    csVec3 slip = csu_vec3(0.6 * s, -0.8 * s, 0);   // |slip| = s
    placeSphere(&r, d, RADIUS - x, slip);
    double ff = seedFriction(fh, s, us, ud, uv, vt);
    double vs = sqrt(s * s + CF);
    csVec3 expected = csu_vec3(-ff * slip.x / vs, -ff * slip.y / vs, fh);
    char what[64];
    snprintf(what, sizeof(what), "force at slip %g", s);
    assertVecClose(d->body_force[r.sphere].v, expected, 1e-12, 1e-12, what);
    // applied at depth R - x/2 below the centre (the body origin)
    csVec3 arm = csu_vec3(0, 0, -(RADIUS - 0.5 * x));
    snprintf(what, sizeof(what), "moment at slip %g", s);
    assertVecClose(d->body_force[r.sphere].w, csu_cross(arm, expected), 1e-12, 1e-12, what);
    // the report's friction and slip columns
    csContactReport rep;
    assert_int_equal(cs_contactReport(r.m, d, r.e, &rep), 0);
    const double* extra = d->force_extra + r.m->force[r.e].repadr;
    th_assertClose(extra[3], ff, 1e-12, 1e-300, "friction_force column");
    th_assertClose(extra[4], s, 1e-12, 1e-300, "slip_speed column");
    th_assertClose(rep.power, ff * s * s / vs, 1e-9, 1e-12, "friction power");
  }
  cs_deleteData(d);
  cs_deleteModel(r.m);
}


// point of application, report and reaction for a tilted plane on a moving slab, a rotated
// sphere body with an offset centre, and relative velocities on both sides
static void test_smooth_point_and_reaction(void** state) {
  (void)state;
  const double E = 1e6, c = 1.0, us = 0.7, ud = 0.4, uv = 0.2, vt = 0.1, x = 0.006;
  csTransform X_BP = csu_transformFromPosQuat(csu_vec3(0.01, 0.02, 0.03),
                                              csu_quatFromAxisAngle(csu_vec3(0, 1, 0), 0.2));
  rig r = makeRig(CS_FORCE_SMOOTH_SPHERE, 0, 1, X_BP);
  csVec3 centerB = csu_vec3(0.02, -0.01, 0.03);
  setParam(r.m, r.e, "stiffness", E);
  setParam(r.m, r.e, "dissipation", c);
  setParam(r.m, r.e, "static_friction", us);
  setParam(r.m, r.e, "dynamic_friction", ud);
  setParam(r.m, r.e, "viscous_friction", uv);
  setParam(r.m, r.e, "transition_velocity", vt);
  csu_vec3ToArray(r.m->force[r.e].param, centerB);
  finalize(r.m);
  csData* d = cs_makeData(r.m);

  // slab pose and motion; the plane's frame in Ground from it
  csQuat qs = csu_quatFromAxisAngle(csu_vec3(1, 0, 0), 0.3);
  csVec3 ps = csu_vec3(0.2, -0.1, 0.05), ws = csu_vec3(0.3, -0.2, 0.5), vsl = csu_vec3(0.1, 0, 0.2);
  csTransform X_GS = csu_transformFromPosQuat(ps, qs);
  csTransform X_GP = csu_transformMul(&X_GS, &X_BP);
  csVec3 nout = csu_vec3(X_GP.R.m[0][2], X_GP.R.m[1][2], X_GP.R.m[2][2]);
  csVec3 tangent = csu_vec3(X_GP.R.m[0][0], X_GP.R.m[1][0], X_GP.R.m[2][0]);

  // sphere: centre at depth x below the plane surface, off the plane origin
  csQuat qb = csu_quatFromAxisAngle(csu_vec3(1, 2, 3), 0.7);
  csMat33 R_GB = csu_quatToMat(qb);
  csVec3 center = csu_add(X_GP.p, csu_add(csu_scale(RADIUS - x, nout), csu_scale(0.05, tangent)));
  csVec3 pb = csu_sub(center, csu_mulMV(&R_GB, centerB));
  csVec3 wb = csu_vec3(2.0, -1.0, 3.0), vb = csu_vec3(0.4, 0.3, -0.2);
  setBody(r.m, d, r.slab, qs, ps, ws, vsl);
  setBody(r.m, d, r.sphere, qb, pb, wb, vb);
  cs_invalidate(d);
  cs_realizeDynamics(r.m, d);

  // expected: point, relative velocity, force (seed, "Contact Force")
  csVec3 n = csu_neg(nout);
  csVec3 point = csu_addScaled(center, RADIUS - 0.5 * x, n);
  csVec3 vrel = csu_sub(csu_add(vb, csu_cross(wb, csu_sub(point, pb))),
                        csu_add(vsl, csu_cross(ws, csu_sub(point, ps))));
  double xdot = csu_dot(vrel, n);
  csVec3 vtan = csu_sub(vrel, csu_scale(xdot, n));
  double s = csu_norm(vtan);
  double fhc = seedHuntCrossley(E, RADIUS, c, x, xdot);
  double ff = seedFriction(fhc, s, us, ud, uv, vt);
  double vs = sqrt(s * s + CF);
  csVec3 F = csu_sub(csu_scale(-fhc, n), csu_scale(ff / vs, vtan));

  // on the sphere's body (about its origin) and the opposite on the slab (about its origin)
  assertVecClose(d->body_force[r.sphere].v, F, 1e-10, 1e-12, "force on sphere");
  assertVecClose(d->body_force[r.sphere].w, csu_cross(csu_sub(point, pb), F), 1e-10, 1e-12,
                 "moment on sphere");
  assertVecClose(d->body_force[r.slab].v, csu_neg(F), 1e-10, 1e-12, "force on slab");
  assertVecClose(d->body_force[r.slab].w, csu_cross(csu_sub(point, ps), csu_neg(F)), 1e-10, 1e-12,
                 "moment on slab");

  // the report: point, force on the second surface (the sphere) with no moment about the point
  csContactReport rep;
  assert_int_equal(cs_contactReport(r.m, d, r.e, &rep), 0);
  assertVecClose(rep.point, point, 1e-12, 1e-12, "report point");
  assertVecClose(rep.force.v, F, 1e-10, 1e-12, "report force");
  assertVecClose(rep.force.w, csu_vec3(0, 0, 0), 0, 1e-15, "report moment");
  th_assertClose(rep.pe, 0.4 * seedHertz(E, RADIUS, x) * x, 1e-12, 0, "report pe");
  const double* extra = d->force_extra + r.m->force[r.e].repadr;
  th_assertClose(extra[0], x, 1e-9, 1e-15, "penetration column");
  th_assertClose(extra[1], xdot, 1e-9, 1e-12, "penetration_rate column");
  th_assertClose(extra[2], fhc, 1e-10, 1e-12, "normal_force column");
  cs_deleteData(d);
  cs_deleteModel(r.m);
}


// the porting rule of force_smooth_sphere.c: Simbody's y-up ground half space X_GH =
// Rotation(-pi/2, Z) becomes the plane X_GP = X_GH * R_y(-90 deg), whose outward normal is +y
static void test_smooth_simbody_frame(void** state) {
  (void)state;
  const double E = 1e6, x = 0.004, PI = 3.14159265358979323846;
  csTransform X_GH = csu_transformFromPosQuat(csu_vec3(0, 0, 0),
                                              csu_quatFromAxisAngle(csu_vec3(0, 0, 1), -PI / 2));
  csTransform X_HP = csu_transformFromPosQuat(csu_vec3(0, 0, 0),
                                              csu_quatFromAxisAngle(csu_vec3(0, 1, 0), -PI / 2));
  rig r = makeRig(CS_FORCE_SMOOTH_SPHERE, 0, 0, csu_transformMul(&X_GH, &X_HP));
  setParam(r.m, r.e, "stiffness", E);
  finalize(r.m);
  csData* d = cs_makeData(r.m);
  // in Simbody's frame H the sphere centre sits at x_H = x - R, i.e. at y = R - x in Ground
  setBody(r.m, d, r.sphere, csu_quatIdentity(), csu_vec3(0, RADIUS - x, 0), csu_vec3(0, 0, 0),
          csu_vec3(0, 0, 0));
  cs_invalidate(d);
  cs_realizeDynamics(r.m, d);
  assertVecClose(d->body_force[r.sphere].v, csu_vec3(0, seedHertz(E, RADIUS, x), 0), 1e-12,
                 1e-12, "force in a y-up world");
  cs_deleteData(d);
  cs_deleteModel(r.m);
}


static void test_smooth_validation(void** state) {
  (void)state;
  rig r = makeRig(CS_FORCE_SMOOTH_SPHERE, 0, 0, csu_transformIdentity());
  setParam(r.m, r.e, "radius", -0.1);
  csError err = {0};
  assert_int_not_equal(cs_finalizeModel(r.m, &err), 0);
  assert_int_equal(err.code, CS_ERR_INPUT);
  assert_string_equal(err.path, "radius");
  cs_deleteModel(r.m);

  r = makeRig(CS_FORCE_SMOOTH_SPHERE, 0, 0, csu_transformIdentity());
  setParam(r.m, r.e, "hunt_crossley_smoothing", 0);
  memset(&err, 0, sizeof(err));
  assert_int_not_equal(cs_finalizeModel(r.m, &err), 0);
  assert_string_equal(err.path, "hunt_crossley_smoothing");
  cs_deleteModel(r.m);

  r = makeRig(CS_FORCE_SMOOTH_SPHERE, 0, 0, csu_transformIdentity());
  r.m->force[r.e].ref[0] = -1;   // no body
  memset(&err, 0, sizeof(err));
  assert_int_not_equal(cs_finalizeModel(r.m, &err), 0);
  assert_string_equal(err.path, "body");
  cs_deleteModel(r.m);
}


// ---------------------------------------------------------------------------------------------
// classic Hunt-Crossley

// the Hertz force written as the model states it: fH = (4/3) k x sqrt(R k x), k = E^(2/3)
static double hertz(double E, double R, double x) {
  if (x <= 0) {
    return 0;
  }
  double k = pow(E, 2.0 / 3.0);
  return (4.0 / 3.0) * k * x * sqrt(R * k * x);
}


static void test_hc_force_and_energy(void** state) {
  (void)state;
  const double E = 1e7;
  rig r = makeRig(CS_FORCE_HUNT_CROSSLEY, 0, 0, csu_transformIdentity());
  setParam(r.m, r.e, "stiffness", E);
  finalize(r.m);
  csData* d = cs_makeData(r.m);
  const double xs[] = {-0.01, 0, 1e-5, 0.001, 0.004, 0.02};
  for (size_t i = 0; i < sizeof(xs) / sizeof(xs[0]); i++) {
    double x = xs[i];
    placeSphere(&r, d, RADIUS - x, csu_vec3(0, 0, 0));
    char what[64];
    snprintf(what, sizeof(what), "fz at x=%g", x);
    th_assertClose(d->body_force[r.sphere].v.z, hertz(E, RADIUS, x), 1e-12, 1e-300, what);
    // the integral of the Hertz force: (8/15) E sqrt(R) x^(5/2)
    double pe = x > 0 ? (8.0 / 15.0) * E * sqrt(RADIUS) * pow(x, 2.5) : 0;
    snprintf(what, sizeof(what), "pe at x=%g", x);
    th_assertClose(d->force_pe[r.e], pe, 1e-12, 1e-300, what);
  }
  cs_deleteData(d);
  cs_deleteModel(r.m);
}


// f = fH (1 + 1.5 c xdot), never pulling; power = (f - fH) xdot
static void test_hc_dissipation_and_clamp(void** state) {
  (void)state;
  const double E = 1e7, c = 0.5, x = 0.003;
  rig r = makeRig(CS_FORCE_HUNT_CROSSLEY, 0, 0, csu_transformIdentity());
  setParam(r.m, r.e, "stiffness", E);
  setParam(r.m, r.e, "dissipation", c);
  finalize(r.m);
  csData* d = cs_makeData(r.m);
  const double rates[] = {-3.0, -1.0, -0.5, 0, 0.4, 2.0};
  double fH = hertz(E, RADIUS, x);
  for (size_t i = 0; i < sizeof(rates) / sizeof(rates[0]); i++) {
    double v = rates[i];
    placeSphere(&r, d, RADIUS - x, csu_vec3(0, 0, -v));
    double f = fH * (1 + 1.5 * c * v);
    if (f < 0) {
      f = 0;
    }
    char what[64];
    snprintf(what, sizeof(what), "fz at xdot=%g", v);
    th_assertClose(d->body_force[r.sphere].v.z, f, 1e-12, 1e-12, what);
    snprintf(what, sizeof(what), "power at xdot=%g", v);
    th_assertClose(d->force_power[r.e], (f - fH) * v, 1e-12, 1e-12, what);
    assert_true(d->force_power[r.e] >= 0);
  }
  cs_deleteData(d);
  cs_deleteModel(r.m);
}


static void test_hc_friction(void** state) {
  (void)state;
  const double E = 1e7, x = 0.002, c = 0.3, us = 0.9, ud = 0.6, uv = 0.05, vt = 0.02;
  rig r = makeRig(CS_FORCE_HUNT_CROSSLEY, 0, 0, csu_transformIdentity());
  setParam(r.m, r.e, "stiffness", E);
  setParam(r.m, r.e, "dissipation", c);
  setParam(r.m, r.e, "mu_static", us);
  setParam(r.m, r.e, "mu_dynamic", ud);
  setParam(r.m, r.e, "mu_viscous", uv);
  setParam(r.m, r.e, "transition_velocity", vt);
  finalize(r.m);
  csData* d = cs_makeData(r.m);
  const double speeds[] = {0, 0.005, 0.02, 0.03, 0.3, 3.0};
  const double xdot = 0.2;
  double f = hertz(E, RADIUS, x) * (1 + 1.5 * c * xdot);
  for (size_t i = 0; i < sizeof(speeds) / sizeof(speeds[0]); i++) {
    double s = speeds[i];
    csVec3 v = csu_vec3(-0.8 * s, 0.6 * s, -xdot);
    placeSphere(&r, d, RADIUS - x, v);
    double rr = s / vt;
    double ff = f * ((rr < 1 ? rr : 1) * (ud + 2 * (us - ud) / (1 + rr * rr)) + uv * s);
    csVec3 expected = csu_vec3(s > 0 ? -ff * v.x / s : 0, s > 0 ? -ff * v.y / s : 0, f);
    char what[64];
    snprintf(what, sizeof(what), "force at slip %g", s);
    assertVecClose(d->body_force[r.sphere].v, expected, 1e-12, 1e-12, what);
    double fH = hertz(E, RADIUS, x);
    th_assertClose(d->force_power[r.e], (f - fH) * xdot + ff * s, 1e-12, 1e-12, "power");
  }
  cs_deleteData(d);
  cs_deleteModel(r.m);
}


// ---------------------------------------------------------------------------------------------
// drops: rebound, energy balance, restitution

#define Z0 0.6   // initial height of the centre; contact starts at z = RADIUS

typedef struct dropResult {
  double apex;      // height of the centre at the apex after the first bounce (free flight)
  double cor;       // rebound speed / impact speed, both at z = RADIUS
  double drift;     // max |KE + PE + dissipated - initial| / (m g (Z0 - RADIUS))
  double lost;      // dissipated energy after the bounce / (m g (Z0 - RADIUS))
} dropResult;


// drop the sphere from Z0 onto the ground floor; `clear` is the height above contact beyond
// which the model exerts no force
static dropResult drop(int kind, double stiffness, double dissipation, double clear) {
  rig r = makeRig(kind, 1, 0, csu_transformIdentity());
  setParam(r.m, r.e, "stiffness", stiffness);
  setParam(r.m, r.e, "dissipation", dissipation);
  finalize(r.m);
  r.m->q0[r.m->body[r.sphere].qadr + 6] = Z0;
  csSimOptions o = cs_defaultSimOptions();
  o.duration = 0.75;
  o.rtol = 1e-10;
  o.atol = 1e-12;
  o.report_interval = 1e-3;
  thTrace tr = {0};
  csData* d = th_run(r.m, &o, &tr);

  dropResult res = {0};
  double scale = G * (Z0 - RADIUS);
  double e0 = tr.ke[0] + tr.pe[0] + tr.diss[0];
  for (int i = 0; i < tr.n; i++) {
    double drift = fabs(tr.ke[i] + tr.pe[i] + tr.diss[i] - e0) / scale;
    res.drift = drift > res.drift ? drift : res.drift;
  }
  // first sample rising again, then the first one in free flight after it
  int i = 0;
  while (i < tr.n && tr.u[i * tr.nu + 5] <= 0) {
    i++;
  }
  while (i < tr.n && !(tr.q[i * tr.nq + 6] > RADIUS + clear && tr.u[i * tr.nu + 5] > 0)) {
    i++;
  }
  assert_true(i < tr.n);
  double z = tr.q[i * tr.nq + 6], vz = tr.u[i * tr.nu + 5];
  // free flight: vz^2 + 2 g z is constant
  res.apex = z + vz * vz / (2 * G);
  double vout = sqrt(vz * vz + 2 * G * (z - RADIUS));
  double vin = sqrt(2 * G * (Z0 - RADIUS));
  res.cor = vout / vin;
  res.lost = tr.diss[i] / scale;
  th_traceFree(&tr);
  cs_deleteData(d);
  cs_deleteModel(r.m);
  return res;
}


static void checkDrops(int kind, double stiffness, double clear, const double* cs, int ncs,
                       double firstOrderTol) {
  const char* name = cs_forceKind(kind)->name;
  // no dissipation: back to the initial height, nothing lost
  dropResult el = drop(kind, stiffness, 0, clear);
  printf("%s c=0: apex %.9f (from %.3f), energy drift %.2e, lost %.2e\n", name, el.apex, Z0,
         el.drift, el.lost);
  th_assertClose(el.apex, Z0, 0, 1e-6, "elastic rebound height");
  assert_true(el.drift < 1e-6);
  assert_true(fabs(el.lost) < 1e-6);
  // dissipation: restitution falls as c grows; the energy balance still holds
  double vin = sqrt(2 * G * (Z0 - RADIUS));
  double prev = 1.0;
  for (int j = 0; j < ncs; j++) {
    dropResult dr = drop(kind, stiffness, cs[j], clear);
    printf("%s c=%g: e = %.5f (first order 1 - c v = %.5f), energy drift %.2e\n", name, cs[j],
           dr.cor, 1 - cs[j] * vin, dr.drift);
    assert_true(dr.cor < prev);
    assert_true(dr.drift < 1e-6);
    th_assertClose(dr.lost, 1 - dr.cor * dr.cor, 1e-6, 1e-6, "lost energy = 1 - e^2");
    prev = dr.cor;
  }
  // small damping: Hunt and Crossley's first-order law 1 - e = (2/3) alpha v, alpha = 1.5 c
  dropResult small = drop(kind, stiffness, cs[0], clear);
  th_assertClose(1 - small.cor, cs[0] * vin, firstOrderTol, 0, "1 - e against c v");
}


static void test_smooth_drop(void** state) {
  (void)state;
  const double cs[] = {0.02, 0.08, 0.2};
  checkDrops(CS_FORCE_SMOOTH_SPHERE, 1e7, 0.04, cs, 3, 0.1);
}


static void test_hc_drop(void** state) {
  (void)state;
  const double cs[] = {0.02, 0.08, 0.2};
  checkDrops(CS_FORCE_HUNT_CROSSLEY, 1e7, 0, cs, 3, 0.1);
}


// ---------------------------------------------------------------------------------------------
// the right-hand side allocates nothing

static void test_sphere_rhs_allocates_nothing(void** state) {
  (void)state;
  const int kinds[] = {CS_FORCE_SMOOTH_SPHERE, CS_FORCE_HUNT_CROSSLEY};
  for (int k = 0; k < 2; k++) {
    rig r = makeRig(kinds[k], 1, 0, csu_transformIdentity());
    setParam(r.m, r.e, "dissipation", 0.5);
    finalize(r.m);
    csData* d = cs_makeData(r.m);
    long before = csu_allocationCount();
    placeSphere(&r, d, RADIUS - 0.001, csu_vec3(0.1, 0.2, -0.3));
    cs_forward(r.m, d);
    csContactReport rep;
    cs_contactReport(r.m, d, r.e, &rep);
    assert_int_equal(csu_allocationCount(), before);
    cs_deleteData(d);
    cs_deleteModel(r.m);
  }
}


int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_smooth_force_and_energy),
      cmocka_unit_test(test_smooth_dissipation),
      cmocka_unit_test(test_smooth_friction),
      cmocka_unit_test(test_smooth_point_and_reaction),
      cmocka_unit_test(test_smooth_simbody_frame),
      cmocka_unit_test(test_smooth_validation),
      cmocka_unit_test(test_hc_force_and_energy),
      cmocka_unit_test(test_hc_dissipation_and_clamp),
      cmocka_unit_test(test_hc_friction),
      cmocka_unit_test(test_smooth_drop),
      cmocka_unit_test(test_hc_drop),
      cmocka_unit_test(test_sphere_rhs_allocates_nothing),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
