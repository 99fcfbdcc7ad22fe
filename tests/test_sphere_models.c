// test_sphere_models.c: smooth_sphere_half_space and hunt_crossley against their equations,
// recomputed here from the seed (seed 001) and the classic Hunt-Crossley formulas, and against
// conservation laws and the first-order Hunt-Crossley restitution law in drop tests.
// Models are built with the C API; states are written by hand and realized to dynamics.
#include <stdio.h>
#include <string.h>

#include "helpers.h"

#define G 9.81
#define RADIUS 0.1

// smooth sphere defaults (seed 001, setParameters)
#define CF 1e-5
#define BD 300.0
#define BV 50.0

// hunt_crossley's plane_strain_modulus is that of each of two equal surfaces: with k = E_s^(2/3)
// for each, the pair's k is E_s^(2/3) / 2, i.e. an effective Hertz modulus E = E_s / 2^1.5. The
// tests below are written for the effective modulus E and give the surfaces E 2^1.5.
#define HC_MODULUS(E) ((E) * 2.0 * sqrt(2.0))


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


static rig makeRig(int kind, int gravity, int onSlab, csTransform X_BP) {
  rig r;
  csVec3 origin = csu_vec3(0, 0, 0);
  r.m = cs_newModel("rig");
  r.slab = 0;
  if (onSlab) {
    csMat33 slabInertia = csu_inertiaBox(5.0, csu_vec3(0.5, 0.5, 0.05));
    r.slab = th_addFreeBody(r.m, "slab", 5.0, origin, slabInertia);
  }
  r.sphere = th_addFreeBody(r.m, "ball", 1.0, origin, csu_inertiaSphere(1.0, RADIUS));
  r.plane = th_addPlane(r.m, "floor", r.slab, X_BP);
  if (gravity) {
    th_addForce(r.m, CS_FORCE_GRAVITY, "gravity");
  }
  r.e = th_addForce(r.m, kind, "contact");
  th_setParam(r.m, r.e, "body", r.sphere);
  th_setParam(r.m, r.e, "plane", r.plane);
  th_setParam(r.m, r.e, "radius", RADIUS);
  return r;
}


// the sphere (centre at its body origin, identity orientation) at height z with velocity v,
// over the ground floor; realized to dynamics
static void placeSphere(const rig* r, csData* d, double z, csVec3 v) {
  th_setFreeState(r->m, d->q, d->u, r->sphere, csu_quatIdentity(), csu_vec3(0, 0, z),
                  csu_vec3(0, 0, 0), v);
  cs_invalidate(d);
  cs_realizeDynamics(r->m, d);
}


// ---------------------------------------------------------------------------------------------
// the seed's equations, written out independently of the library

// smoothed Hertz force (seed 001, "Normal Force Components")
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


// friction magnitude for tangential speed |vt| (seed 001, "Friction Force")
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
  th_setParam(r.m, r.e, "plane_strain_modulus", E);
  th_finalize(r.m);
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
  th_setParam(r.m, r.e, "plane_strain_modulus", E);
  th_setParam(r.m, r.e, "dissipation", c);
  th_finalize(r.m);
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
  th_setParam(r.m, r.e, "plane_strain_modulus", E);
  th_setParam(r.m, r.e, "mu_static", us);
  th_setParam(r.m, r.e, "mu_dynamic", ud);
  th_setParam(r.m, r.e, "mu_viscous", uv);
  th_setParam(r.m, r.e, "transition_velocity", vt);
  th_finalize(r.m);
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
    th_assertVecClose(d->body_force[r.sphere].v, expected, 1e-12, 1e-12, what);
    // applied at depth R - x/2 below the centre (the body origin)
    csVec3 arm = csu_vec3(0, 0, -(RADIUS - 0.5 * x));
    snprintf(what, sizeof(what), "moment at slip %g", s);
    th_assertVecClose(d->body_force[r.sphere].w, csu_cross(arm, expected), 1e-12, 1e-12, what);
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
  th_setParam(r.m, r.e, "plane_strain_modulus", E);
  th_setParam(r.m, r.e, "dissipation", c);
  th_setParam(r.m, r.e, "mu_static", us);
  th_setParam(r.m, r.e, "mu_dynamic", ud);
  th_setParam(r.m, r.e, "mu_viscous", uv);
  th_setParam(r.m, r.e, "transition_velocity", vt);
  csu_vec3ToArray(r.m->force[r.e].param, centerB);
  th_finalize(r.m);
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
  th_setFreeState(r.m, d->q, d->u, r.slab, qs, ps, ws, vsl);
  th_setFreeState(r.m, d->q, d->u, r.sphere, qb, pb, wb, vb);
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
  th_assertVecClose(d->body_force[r.sphere].v, F, 1e-10, 1e-12, "force on sphere");
  th_assertVecClose(d->body_force[r.sphere].w, csu_cross(csu_sub(point, pb), F), 1e-10, 1e-12,
                    "moment on sphere");
  th_assertVecClose(d->body_force[r.slab].v, csu_neg(F), 1e-10, 1e-12, "force on slab");
  th_assertVecClose(d->body_force[r.slab].w, csu_cross(csu_sub(point, ps), csu_neg(F)), 1e-10,
                    1e-12, "moment on slab");

  // the report: point, force on the second surface (the sphere) with no moment about the point
  csContactReport rep;
  assert_int_equal(cs_contactReport(r.m, d, r.e, &rep), 0);
  th_assertVecClose(rep.point, point, 1e-12, 1e-12, "report point");
  th_assertVecClose(rep.force.v, F, 1e-10, 1e-12, "report force");
  th_assertVecClose(rep.force.w, csu_vec3(0, 0, 0), 0, 1e-15, "report moment");
  th_assertClose(rep.pe, 0.4 * seedHertz(E, RADIUS, x) * x, 1e-12, 0, "report pe");
  const double* extra = d->force_extra + r.m->force[r.e].repadr;
  th_assertClose(extra[0], x, 1e-9, 1e-15, "penetration column");
  th_assertClose(extra[1], xdot, 1e-9, 1e-12, "penetration_rate column");
  th_assertClose(extra[2], fhc, 1e-10, 1e-12, "normal_force column");
  cs_deleteData(d);
  cs_deleteModel(r.m);
}


// the porting rule of src/forces/smooth_sphere.c: Simbody's y-up ground half space X_GH =
// Rotation(-pi/2, Z) becomes the plane X_GP = X_GH * R_y(-90 deg), whose outward normal is +y
static void test_smooth_simbody_frame(void** state) {
  (void)state;
  const double E = 1e6, x = 0.004, PI = 3.14159265358979323846;
  csTransform X_GH = csu_transformFromPosQuat(csu_vec3(0, 0, 0),
                                              csu_quatFromAxisAngle(csu_vec3(0, 0, 1), -PI / 2));
  csTransform X_HP = csu_transformFromPosQuat(csu_vec3(0, 0, 0),
                                              csu_quatFromAxisAngle(csu_vec3(0, 1, 0), -PI / 2));
  rig r = makeRig(CS_FORCE_SMOOTH_SPHERE, 0, 0, csu_transformMul(&X_GH, &X_HP));
  th_setParam(r.m, r.e, "plane_strain_modulus", E);
  th_finalize(r.m);
  csData* d = cs_makeData(r.m);
  // in Simbody's frame H the sphere centre sits at x_H = x - R, i.e. at y = R - x in Ground
  th_setFreeState(r.m, d->q, d->u, r.sphere, csu_quatIdentity(), csu_vec3(0, RADIUS - x, 0),
                  csu_vec3(0, 0, 0), csu_vec3(0, 0, 0));
  cs_invalidate(d);
  cs_realizeDynamics(r.m, d);
  th_assertVecClose(d->body_force[r.sphere].v, csu_vec3(0, seedHertz(E, RADIUS, x), 0), 1e-12,
                    1e-12, "force in a y-up world");
  cs_deleteData(d);
  cs_deleteModel(r.m);
}


static void test_smooth_validation(void** state) {
  (void)state;
  rig r = makeRig(CS_FORCE_SMOOTH_SPHERE, 0, 0, csu_transformIdentity());
  th_setParam(r.m, r.e, "radius", -0.1);
  csError err = {0};
  assert_int_not_equal(cs_finalizeModel(r.m, &err), 0);
  assert_int_equal(err.code, CS_ERR_INPUT);
  assert_string_equal(err.path, "radius");
  cs_deleteModel(r.m);

  r = makeRig(CS_FORCE_SMOOTH_SPHERE, 0, 0, csu_transformIdentity());
  th_setParam(r.m, r.e, "hunt_crossley_smoothing", 0);
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
  th_setParam(r.m, r.e, "plane_strain_modulus", HC_MODULUS(E));
  th_finalize(r.m);
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
  th_setParam(r.m, r.e, "plane_strain_modulus", HC_MODULUS(E));
  th_setParam(r.m, r.e, "dissipation", c);
  th_finalize(r.m);
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
  th_setParam(r.m, r.e, "plane_strain_modulus", HC_MODULUS(E));
  th_setParam(r.m, r.e, "dissipation", c);
  th_setParam(r.m, r.e, "mu_static", us);
  th_setParam(r.m, r.e, "mu_dynamic", ud);
  th_setParam(r.m, r.e, "mu_viscous", uv);
  th_setParam(r.m, r.e, "transition_velocity", vt);
  th_finalize(r.m);
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
    th_assertVecClose(d->body_force[r.sphere].v, expected, 1e-12, 1e-12, what);
    double fH = hertz(E, RADIUS, x);
    th_assertClose(d->force_power[r.e], (f - fH) * xdot + ff * s, 1e-12, 1e-12, "power");
  }
  cs_deleteData(d);
  cs_deleteModel(r.m);
}


// Two surfaces of different materials, against Simbody's HuntCrossleyForce written out here:
// k_i = E_i^(2/3), s1 = k2 / (k1 + k2), k = k1 s1, c = c1 s1 + c2 (1 - s1), mu = 2 a b / (a + b),
// fH = (4/3) k x sqrt(R k x), f = fH (1 + 1.5 c v), and the contact point s1 x above the
// sphere's undeformed lowest point (the sphere's surface gives way by s1 x, the plane's by
// (1 - s1) x). The sphere spins, so the slip at the contact point and the moment of the
// friction about the centre both depend on where the point is.
static void test_hc_materials_as_simbody(void** state) {
  (void)state;
  const double x = 0.004, xdot = 0.2, vt = 0.05;
  const double E1 = 2e7, c1 = 0.5, us1 = 0.9, ud1 = 0.6, uv1 = 0.1;   // the sphere's surface
  const double E2 = 3e6, c2 = 1.5, us2 = 0.5, ud2 = 0.3, uv2 = 0.05;  // the plane's surface
  rig r = makeRig(CS_FORCE_HUNT_CROSSLEY, 0, 0, csu_transformIdentity());
  th_setParam(r.m, r.e, "body_material.plane_strain_modulus", E1);
  th_setParam(r.m, r.e, "body_material.dissipation", c1);
  th_setParam(r.m, r.e, "body_material.mu_static", us1);
  th_setParam(r.m, r.e, "body_material.mu_dynamic", ud1);
  th_setParam(r.m, r.e, "body_material.mu_viscous", uv1);
  th_setParam(r.m, r.e, "plane_material.plane_strain_modulus", E2);
  th_setParam(r.m, r.e, "plane_material.dissipation", c2);
  th_setParam(r.m, r.e, "plane_material.mu_static", us2);
  th_setParam(r.m, r.e, "plane_material.mu_dynamic", ud2);
  th_setParam(r.m, r.e, "plane_material.mu_viscous", uv2);
  th_setParam(r.m, r.e, "transition_velocity", vt);
  th_finalize(r.m);
  csData* d = cs_makeData(r.m);

  // Simbody's combination
  double k1 = pow(E1, 2.0 / 3.0), k2 = pow(E2, 2.0 / 3.0);
  double s1 = k2 / (k1 + k2), k = k1 * s1, c = c1 * s1 + c2 * (1 - s1);
  double us = 2 * us1 * us2 / (us1 + us2), ud = 2 * ud1 * ud2 / (ud1 + ud2);
  double uv = 2 * uv1 * uv2 / (uv1 + uv2);
  double fH = (4.0 / 3.0) * k * x * sqrt(RADIUS * k * x);
  double f = fH * (1 + 1.5 * c * xdot);

  // the ball sinks at xdot, moves along x at 0.5 m/s and spins about y at 3 rad/s
  csVec3 v = csu_vec3(0.5, 0, -xdot), w = csu_vec3(0, 3.0, 0);
  th_setFreeState(r.m, d->q, d->u, r.sphere, csu_quatIdentity(), csu_vec3(0, 0, RADIUS - x), w, v);
  cs_invalidate(d);
  cs_realizeDynamics(r.m, d);

  // the point: s1 x above the sphere's lowest point, i.e. (1 - s1) x below the plane
  double arm = RADIUS - s1 * x;  // from the centre down to the point
  csVec3 point = csu_vec3(0, 0, (RADIUS - x) - arm);
  double slip = v.x + w.y * (-arm);  // x velocity of the material point there (w x r)
  double sl = fabs(slip), vr = sl / vt;
  double ff = f * (fmin(vr, 1.0) * (ud + 2 * (us - ud) / (1 + vr * vr)) + uv * sl);
  csVec3 F = csu_vec3(slip > 0 ? -ff : ff, 0, f);
  csVec3 M = csu_cross(csu_vec3(0, 0, -arm), F);
  print_message("materials: s1 = %.4f, point %.3f mm below the plane (half-way: %.3f mm), "
                "friction %.4f N, moment about the centre %.6f N m (half-way: %.6f N m)\n",
                s1, 1e3 * (1 - s1) * x, 1e3 * 0.5 * x, ff, M.y, -(RADIUS - 0.5 * x) * F.x);

  th_assertVecClose(d->body_force[r.sphere].v, F, 1e-12, 1e-12, "force on the sphere");
  th_assertVecClose(d->body_force[r.sphere].w, M, 1e-12, 1e-12, "moment about the centre");
  csContactReport rep;
  assert_int_equal(cs_contactReport(r.m, d, r.e, &rep), 0);
  th_assertVecClose(rep.point, point, 1e-12, 1e-15, "contact point");
  th_assertClose(rep.pe, 0.4 * fH * x, 1e-12, 0, "pe");
  th_assertClose(rep.power, (f - fH) * xdot + ff * sl, 1e-12, 1e-12, "power");
  // the pair's friction coefficients are the discrete variables a change would set
  const double* mu = d->disc + r.m->force[r.e].discadr;
  th_assertClose(mu[0], us, 1e-15, 0, "combined mu_static");
  th_assertClose(mu[1], ud, 1e-15, 0, "combined mu_dynamic");
  th_assertClose(mu[2], uv, 1e-15, 0, "combined mu_viscous");
  cs_deleteData(d);
  cs_deleteModel(r.m);
}


// equal materials given per surface are the effective keys: the same force at the same point
static void test_hc_equal_materials_are_effective(void** state) {
  (void)state;
  const double E = 5e6, c = 0.4, x = 0.003;
  rig a = makeRig(CS_FORCE_HUNT_CROSSLEY, 0, 0, csu_transformIdentity());
  th_setParam(a.m, a.e, "plane_strain_modulus", E);
  th_setParam(a.m, a.e, "dissipation", c);
  th_setParam(a.m, a.e, "mu_dynamic", 0.5);
  th_setParam(a.m, a.e, "mu_static", 0.5);
  th_finalize(a.m);
  rig b = makeRig(CS_FORCE_HUNT_CROSSLEY, 0, 0, csu_transformIdentity());
  const char* sides[2] = {"body_material.", "plane_material."};
  for (int i = 0; i < 2; i++) {
    char key[64];
    snprintf(key, sizeof(key), "%splane_strain_modulus", sides[i]);
    th_setParam(b.m, b.e, key, E);
    snprintf(key, sizeof(key), "%sdissipation", sides[i]);
    th_setParam(b.m, b.e, key, c);
    snprintf(key, sizeof(key), "%smu_static", sides[i]);
    th_setParam(b.m, b.e, key, 0.5);
    snprintf(key, sizeof(key), "%smu_dynamic", sides[i]);
    th_setParam(b.m, b.e, key, 0.5);
  }
  th_finalize(b.m);
  csData* da = cs_makeData(a.m);
  csData* db = cs_makeData(b.m);
  placeSphere(&a, da, RADIUS - x, csu_vec3(0.3, 0, -0.1));
  placeSphere(&b, db, RADIUS - x, csu_vec3(0.3, 0, -0.1));
  // k = E^(2/3) / 2 for two equal surfaces: the Hertz force of an effective modulus E / 2^1.5
  double Eeff = E / (2.0 * sqrt(2.0));
  th_assertClose(da->body_force[a.sphere].v.z,
                 hertz(Eeff, RADIUS, x) * (1 + 1.5 * c * 0.1), 1e-12, 0, "effective keys");
  th_assertVecClose(db->body_force[b.sphere].v, da->body_force[a.sphere].v, 1e-13, 0, "force");
  th_assertVecClose(db->body_force[b.sphere].w, da->body_force[a.sphere].w, 1e-13, 0, "moment");
  cs_deleteData(da);
  cs_deleteData(db);
  cs_deleteModel(a.m);
  cs_deleteModel(b.m);
}


// ---------------------------------------------------------------------------------------------
// drops: rebound, energy balance, restitution

#define Z0 0.6   // initial height of the centre; contact starts at z = RADIUS

// drop the sphere from rest at Z0 onto the ground floor and measure its first bounce; `clear`
// is the height above contact beyond which the model exerts no force
static thBounce drop(int kind, double stiffness, double dissipation, double clear) {
  rig r = makeRig(kind, 1, 0, csu_transformIdentity());
  // the effective Hertz modulus E of hunt_crossley comes from equal surfaces of modulus E 2^1.5
  th_setParam(r.m, r.e, "plane_strain_modulus",
              kind == CS_FORCE_HUNT_CROSSLEY ? HC_MODULUS(stiffness) : stiffness);
  th_setParam(r.m, r.e, "dissipation", dissipation);
  th_finalize(r.m);
  r.m->q0[r.m->body[r.sphere].qadr + 6] = Z0;
  csSimOptions o = th_simOptions(0.75, 1e-10, 1e-12, 1e-3);
  thTrace tr = {0};
  csData* d = th_run(r.m, &o, &tr);
  thBounce res = th_measureBounce(r.m, &tr, r.sphere, G, Z0, RADIUS, clear);
  th_traceFree(&tr);
  cs_deleteData(d);
  cs_deleteModel(r.m);
  return res;
}


static void checkDrops(int kind, double stiffness, double clear, const double* cs, int ncs,
                       double firstOrderTol) {
  const char* name = cs_forceKind(kind)->name;
  // no dissipation: back to the initial height, nothing lost
  thBounce el = drop(kind, stiffness, 0, clear);
  printf("%s c=0: apex %.9f (from %.3f), energy drift %.2e, lost %.2e\n", name, el.apex, Z0,
         el.drift, el.lost);
  th_assertClose(el.apex, Z0, 0, 1e-6, "elastic rebound height");
  assert_true(el.drift < 1e-6);
  assert_true(fabs(el.lost) < 1e-6);
  // dissipation: restitution falls as c grows; the energy balance still holds
  double vin = sqrt(2 * G * (Z0 - RADIUS));
  double prev = 1.0;
  for (int j = 0; j < ncs; j++) {
    thBounce dr = drop(kind, stiffness, cs[j], clear);
    printf("%s c=%g: e = %.5f (first order 1 - c v = %.5f), energy drift %.2e\n", name, cs[j],
           dr.cor, 1 - cs[j] * vin, dr.drift);
    assert_true(dr.cor < prev);
    assert_true(dr.drift < 1e-6);
    th_assertClose(dr.lost, 1 - dr.cor * dr.cor, 1e-6, 1e-6, "lost energy = 1 - e^2");
    prev = dr.cor;
  }
  // small damping: Hunt and Crossley's first-order law 1 - e = (2/3) alpha v, alpha = 1.5 c
  thBounce small = drop(kind, stiffness, cs[0], clear);
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
    th_setParam(r.m, r.e, "dissipation", 0.5);
    th_setParam(r.m, r.e, "plane_strain_modulus", 1e7);
    th_finalize(r.m);
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


// ---------------------------------------------------------------------------------------------
// bundled example scenes for biomechanists (docs/examples.md)

// the value of trace column j (a generalized speed) at time t, NAN when no report falls there
static double traceU(const thTrace* tr, double t, int j) {
  for (int r = 0; r < tr->n; r++) {
    if (fabs(tr->t[r] - t) < 1e-9) {
      return tr->u[(size_t)r * (size_t)tr->nu + (size_t)j];
    }
  }
  return NAN;
}


// scenes/ball_roll_slope.json: rolling without slipping down a slope, a = (5/7) g sin(theta),
// and w = v / r, under both sphere models
static void test_scene_ball_roll_slope(void** state) {
  (void)state;
  const char* models[2] = {"hunt_crossley", "smooth_sphere_half_space"};
  const double th = 15.0 * 3.14159265358979323846 / 180.0, r = 0.1;
  const double a = 5.0 / 7.0 * G * sin(th);
  for (int k = 0; k < 2; k++) {
    char path[512];
    snprintf(path, sizeof(path), "%s/scenes/ball_roll_slope.json", CS_SOURCE_ROOT);
    csLoadOptions opt = {.contact_model = models[k]};
    csError err = {0};
    csModel* m = cs_loadScene(path, &opt, &err);
    assert_non_null(m);
    thTrace tr = {0};
    csData* d = th_run(m, NULL, &tr);
    int u0 = m->body[cs_bodyId(m, "ball")].uadr;
    // speed down the slope (+x of the plane: (cos, 0, -sin) in Ground) and spin about y
    double v[2], w[2];
    const double ts[2] = {0.5, 2.0};
    for (int i = 0; i < 2; i++) {
      v[i] = traceU(&tr, ts[i], u0 + 3) * cos(th) - traceU(&tr, ts[i], u0 + 5) * sin(th);
      w[i] = traceU(&tr, ts[i], u0 + 1);
    }
    double am = (v[1] - v[0]) / (ts[1] - ts[0]);
    print_message("%-24s a = %.5f m/s^2 (5/7 g sin = %.5f; sliding would be %.5f), "
                  "w r / v = %.5f\n",
                  models[k], am, a, G * sin(th), w[1] * r / v[1]);
    th_assertClose(am, a, 2e-3, 0, "rolling acceleration");
    th_assertClose(w[1] * r, v[1], 2e-3, 0, "rolling without slipping");
    th_assertClose(v[1], a * 2.0, 2e-3, 0, "speed at 2 s");
    th_traceFree(&tr);
    cs_deleteData(d);
    cs_deleteModel(m);
  }
}


// scenes/foot_landing_push.json: after landing each sphere carries a quarter of the weight at
// the Hertz penetration, the centre of pressure is under the foot's origin; a push below
// mu_static m g holds (creep below the transition velocity), one above slides with
// F/m - mu_dynamic g
static void test_scene_foot_landing_push(void** state) {
  (void)state;
  csModel* m = th_loadFile("scenes/foot_landing_push.json");
  const double mass = 1.2, R = 0.02, k = 0.5 * pow(1e6, 2.0 / 3.0);
  // the landing and the rest before the push
  csSimOptions o = m->opt;
  o.duration = 1.0;
  csData* d = th_run(m, &o, NULL);
  double x = pow(mass * G / 4 / ((4.0 / 3.0) * pow(k, 1.5) * sqrt(R)), 2.0 / 3.0);
  double total = 0;
  for (int i = 0; i < 4; i++) {
    char name[16];
    snprintf(name, sizeof(name), "sole.%d", i);
    int e = cs_forceId(m, name);
    csContactReport rep;
    cs_contactReport(m, d, e, &rep);
    const double* extra = d->force_extra + m->force[e].repadr;
    th_assertClose(extra[0], x, 0.01, 0, "penetration at rest");
    total += extra[2];
  }
  th_assertClose(total, mass * G, 1e-4, 0, "the floor carries the weight");
  csVec3 force, cop;
  cs_centreOfPressure(m, d, 0, &force, &cop);
  int b = cs_bodyId(m, "foot");
  print_message("foot at rest: penetration %.4f mm (Hertz %.4f mm), total %.4f N, CoP x %.5f m "
                "under origin x %.5f m\n",
                1e3 * d->force_extra[m->force[cs_forceId(m, "sole.0")].repadr], 1e3 * x, total,
                cop.x, d->body_pose[b].p.x);
  th_assertClose(cop.x, d->body_pose[b].p.x, 0, 1e-5, "centre of pressure");
  cs_deleteData(d);

  // the pushes
  thTrace tr = {0};
  d = th_run(m, NULL, &tr);
  int u0 = m->body[b].uadr;
  double creep = traceU(&tr, 1.9, u0 + 3);
  double v1 = traceU(&tr, 2.2, u0 + 3), v2 = traceU(&tr, 2.45, u0 + 3);
  double vz1 = traceU(&tr, 2.2, u0 + 5), vz2 = traceU(&tr, 2.45, u0 + 5);
  // friction impulse over normal impulse (momentum, so rocking does not matter)
  double mu = (15.0 * 0.25 / mass - (v2 - v1)) / (G * 0.25 + vz2 - vz1);
  print_message("5 N push: creeps at %.4f m/s; 15 N push: a = %.4f m/s^2 (F/m - mu_d g = %.4f), "
                "friction / normal impulse %.4f (mu_dynamic 0.6)\n",
                creep, (v2 - v1) / 0.25, 15.0 / mass - 0.6 * G, mu);
  assert_true(creep > 0 && creep < 0.01);
  th_assertClose(mu, 0.6, 5e-3, 0, "sliding friction");
  th_assertClose((v2 - v1) / 0.25, 15.0 / mass - 0.6 * G, 0.01, 0, "sliding acceleration");
  th_traceFree(&tr);
  cs_deleteData(d);
  cs_deleteModel(m);
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
      cmocka_unit_test(test_hc_materials_as_simbody),
      cmocka_unit_test(test_hc_equal_materials_are_effective),
      cmocka_unit_test(test_smooth_drop),
      cmocka_unit_test(test_hc_drop),
      cmocka_unit_test(test_sphere_rhs_allocates_nothing),
      cmocka_unit_test(test_scene_ball_roll_slope),
      cmocka_unit_test(test_scene_foot_landing_push),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
