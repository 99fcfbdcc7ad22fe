// test_jacobian.c: the Jacobian ark forms for a free body from its force elements
// (src/engine/jacobian.c): the contact kinds' own derivatives (bodyJacobian) against difference
// quotients of their forces, the whole Jacobian against difference quotients of the right-hand
// side, and runs that use it against the physics they must show.
#include "helpers.h"

#include "engine/jacobian.h"
#include "engine/kinematics.h"
#include "forces/util.h"

#include <stdio.h>
#include <string.h>

// a 2 kg slab (0.4 x 0.4 x 0.1 m) touching a floor at its four lower corners, with the contact
// model given (the corners as stations, or as 5 mm spheres centred on them; exponential springs
// with the anchor rule `rule`), the floor turned by `floor` (a rotation's JSON, or "" for none);
// its centre of mass at the body origin, or (`offset`) away from it
static csModel* slabWith(const char* model, double vt, int offset, const char* rule,
                         const char* floor) {
  char json[2048];
  snprintf(json, sizeof(json),
           "{\"gravity\": [0, 0, -9.81],"
           " \"bodies\": [{\"name\": \"slab\", \"mass\": 2, \"com\": %s,"
           "   \"inertia\": {\"box\": [0.2, 0.2, 0.05]}, \"joint\": {\"type\": \"free\"}}],"
           " \"planes\": [{\"name\": \"floor\"%s%s%s}],"
           " \"contacts\": [{\"name\": \"c\", \"body\": \"slab\", \"plane\": \"floor\","
           "   \"points\": [[-0.2, -0.2, -0.05], [0.2, -0.2, -0.05], [-0.2, 0.2, -0.05],"
           "     [0.2, 0.2, -0.05]], \"radius\": 0.005}],"
           " \"contact_models\": {\"default\": \"%s\","
           "   \"compliant_point\": {\"penalty_stiffness\": 1e5, \"dissipation\": 0.5,"
           "     \"mu_static\": 0.7, \"mu_dynamic\": 0.5, \"mu_viscous\": 0.1,"
           "     \"transition_velocity\": %g},"
           "   \"hunt_crossley\": {\"plane_strain_modulus\": 1e9, \"dissipation\": 0.5,"
           "     \"mu_static\": 0.7, \"mu_dynamic\": 0.5, \"mu_viscous\": 0.1,"
           "     \"transition_velocity\": %g},"
           "   \"smooth_sphere_half_space\": {\"plane_strain_modulus\": 1e9, \"dissipation\": 0.5,"
           "     \"mu_static\": 0.7, \"mu_dynamic\": 0.5, \"mu_viscous\": 0.1,"
           "     \"transition_velocity\": %g},"
           "   \"exponential_spring\": {\"mu_static\": 0.7, \"mu_dynamic\": 0.5,"
           "     \"anchor_rule\": \"%s\"}},"
           " \"forces\": [{\"type\": \"constant\", \"name\": \"push\", \"body\": \"slab\","
           "   \"station\": [0.1, 0.05, 0.05], \"force\": [3, -2, 1], \"torque\": [0.1, 0, 0.2]}],"
           " \"simulation\": {\"duration\": 1}}",
           offset ? "[0.05, -0.03, 0.02]" : "[0, 0, 0]",
           *floor ? ", \"frame\": {\"rotation\": " : "", floor, *floor ? "}" : "", model, vt, vt,
           vt, rule);
  return th_loadString(json);
}

static csModel* slab(const char* model, double vt, int offset) {
  return slabWith(model, vt, offset, "blended", "");
}


// the slab's state: tilted by `tilt` rad about x and y, its lower face `depth` into the floor
// at the centre, moving at v (and turning at w)
static void place(const csModel* m, csData* d, double depth, double tilt, csVec3 v, csVec3 w,
                  double radius) {
  csQuat R = csu_quatFromAxisAngle(csu_vec3(sqrt(0.5), sqrt(0.5), 0), tilt);
  th_setFreeState(m, d->q, d->u, 1, R, csu_vec3(0.1, -0.2, 0.05 + radius - depth), w, v);
  cs_invalidate(d);
  cs_realizeVelocity(m, d);
}


// the largest entry of |A - B| over the largest of |B|, 6 x 6
static double relDiff(const double* A, const double* B) {
  double diff = 0, scale = 0;
  for (int i = 0; i < 36; i++) {
    diff = fmax(diff, fabs(A[i] - B[i]));
    scale = fmax(scale, fabs(B[i]));
  }
  assert_true(scale > 0);
  return diff / scale;
}


// The kinds' derivatives against difference quotients of their forces, in each friction regime
// (no slip, slip below the transition speed, in the Stribeck blend, beyond it), still and
// turning: on a slab touching at four corners, tilted so that they press unequally (points, and
// small Hunt-Crossley and smooth spheres on the corners), and on the bench's ball (a sphere as
// large as its body, whose contact point stays below its centre as it turns and rides up a share of
// the penetration). They agree to the quotients' own accuracy (at most 7.4e-6 of the largest entry:
// the Hertz law's curvature over an increment); leaving out the contact point's ride with the
// penetration read 1.7e-3 on the ball.
static void test_contact_derivatives(void** state) {
  (void)state;
  const char* models[4] = {"compliant_point", "hunt_crossley", "smooth_sphere_half_space",
                           "ball"};
  double vt = 0.01;
  double slips[4] = {0, 0.3 * vt, 2 * vt, 10 * vt};
  for (int k = 0; k < 4; k++) {
    csModel* m =
        k < 3 ? slab(models[k], vt, 0) : th_loadFile("scenes/bench/sphere_bounce_roll.json");
    csData* d = cs_makeData(m);
    for (int turning = 0; turning <= 1; turning++) {
      for (int i = 0; i < 4; i++) {
        if (k < 3) {
          csVec3 v = csu_vec3(slips[i] * 0.8, slips[i] * 0.6, -0.002);
          csVec3 w = turning ? csu_vec3(0.3, -0.5, 2.0) : csu_vec3(0, 0, 0);
          place(m, d, 2e-4, 0.002, v, w, k > 0 ? 0.005 : 0);
        } else {
          // rolling along x at 0.13 m/s (w_y r) plus the slip, 50 um deep
          csVec3 w = csu_vec3(turning ? 0.5 : 0, 1.3, turning ? 2.0 : 0);
          th_setFreeState(m, d->q, d->u, 1, csu_quatFromAxisAngle(csu_vec3(0, 1, 0), 0.3),
                          csu_vec3(0, 0, 0.1 - 5e-5), w,
                          csu_vec3(0.13 + slips[i], 0.01, -0.05));
          cs_invalidate(d);
          cs_realizeVelocity(m, d);
        }
        double X1[36], V1[36], X2[36], V2[36];
        cs_bodyForceJacobian(m, d, 1, 1e-2, 0, X1, V1);
        cs_realizeVelocity(m, d);
        cs_bodyForceJacobian(m, d, 1, 1e-2, 1, X2, V2);
        double ex = relDiff(X1, X2), ev = relDiff(V1, V2);
        print_message("%s, %s, slip %.3g m/s: pose %.2g, velocity %.2g\n", models[k],
                      turning ? "turning" : "not turning", slips[i], ex, ev);
        assert_true(ex < 3e-5);
        assert_true(ev < 3e-5);
      }
    }
    cs_deleteData(d);
    cs_deleteModel(m);
  }
}


// The exponential spring's derivatives against difference quotients of its force, with the
// committed anchor and Sliding it holds during a step: the slab 4 mm up (normal forces of 8 to
// 15 N at the four corners, tilted), its anchors 0.1 mm from the corners (the friction spring
// below the limit) or 2 mm away (capped at it), Sliding 0, 0.4 and 1, the corners still, slipping
// at 1 cm/s or at 10 cm/s (where the pure damper of the blend is capped too), sinking at 2 mm/s,
// still and turning, with either anchor rule, on a floor level with Ground's axes and on one
// turned by 40 degrees about an axis 0.3 degrees off the vertical; and the force's other
// branches: the slab on the floor with the cap at 50 N (the exponential past it), pitching at
// 15 rad/s (the corners on one side rising at 3 m/s, their force clipped at 0), and with no
// friction (mu 0). They agree to the quotients' accuracy (2.1e-6 of the largest entry: the
// exponential's curvature over an increment). Left out, the limit's slope in the height reads
// 0.56 where the spring is capped, and the normal damping's slope 0.021; the pure damper's cap
// taken for the spring's, 0.8.

// the element's derivatives against the quotients at the data's state, every corner's anchor
// `offset` from it along (-0.6, 0.8) in the floor's frame and its Sliding `sliding`; returns the
// larger relative difference
static double expSpringAgrees(const csModel* m, csData* d, double offset, double sliding,
                              const char* what) {
  const csTransform* X = &d->plane_pose[0];
  for (int e = 0; e < m->nforce; e++) {
    const csForce* f = &m->force[e];
    if (f->kind != CS_FORCE_EXP_SPRING) {
      continue;
    }
    csVec3 p = csu_stationPosition(m, d, 1, csu_vec3FromArray(f->param));
    csVec3 pP = csu_mulMtV(&X->R, csu_sub(p, X->p));
    d->autoval[f->autoadr] = pP.x - 0.6 * offset;
    d->autoval[f->autoadr + 1] = pP.y + 0.8 * offset;
    d->autoval[f->autoadr + 2] = sliding;
  }
  double X1[36], V1[36], X2[36], V2[36];
  cs_bodyForceJacobian(m, d, 1, 1e-2, 0, X1, V1);
  cs_realizeVelocity(m, d);
  cs_bodyForceJacobian(m, d, 1, 1e-2, 1, X2, V2);
  double ex = relDiff(X1, X2), ev = relDiff(V1, V2);
  if (ex > 3e-5 || ev > 3e-5) {
    print_message("%s, anchor %.3g m off, Sliding %.1f: pose %.2g, velocity %.2g\n", what, offset,
                  sliding, ex, ev);
  }
  assert_true(ex < 3e-5);
  assert_true(ev < 3e-5);
  return fmax(ex, ev);
}

static void test_exp_spring_derivatives(void** state) {
  (void)state;
  const char* rules[2] = {"blended", "limit"};
  const char* floors[2] = {"", "{\"axis\": [0.005, 0, 1], \"angle_deg\": 40}"};
  double offsets[2] = {1e-4, 2e-3}, slidings[3] = {0, 0.4, 1}, slips[3] = {0, 0.01, 0.1};
  double worst = 0;
  char what[128];
  for (int fl = 0; fl < 2; fl++) {
    for (int r = 0; r < 2; r++) {
      csModel* m = slabWith("exponential_spring", 0.01, 0, rules[r], floors[fl]);
      csData* d = cs_makeData(m);
      for (int turning = 0; turning <= 1; turning++) {
        for (int i = 0; i < 3; i++) {
          csVec3 v = csu_vec3(slips[i] * 0.8, slips[i] * 0.6, -0.002);
          csVec3 w = turning ? csu_vec3(0.3, -0.5, 2.0) : csu_vec3(0, 0, 0);
          place(m, d, -0.004, 0.002, v, w, 0);
          snprintf(what, sizeof(what), "%s floor, %s, %s, slip %.3g m/s", fl ? "turned" : "level",
                   rules[r], turning ? "turning" : "not turning", slips[i]);
          for (int o = 0; o < 2; o++) {
            // The limit rule caps a spring stretched past the limit at the limit, and then caps
            // the spring and damper's sum: with no slip at all (no turning, no in-plane speed)
            // that sum lies exactly on the cap's edge, where the force has no derivative in the
            // velocity (the quotients average its two sides). Not a point to compare at.
            if (r == 1 && o == 1 && i == 0 && !turning) {
              continue;
            }
            for (int k = 0; k < 3; k++) {
              worst = fmax(worst, expSpringAgrees(m, d, offsets[o], slidings[k], what));
            }
          }
        }
      }
      cs_deleteData(d);
      cs_deleteModel(m);
    }
  }
  csModel* m = slabWith("exponential_spring", 0.01, 0, "blended", "");
  csData* d = cs_makeData(m);
  // the cap lowered to 50 N (the exponential gives 1 kN at the floor): with the default 100 kN
  // the quotients' rounding of the normal force swamps the friction's slopes
  for (int e = 0; e < m->nforce; e++) {
    if (m->force[e].kind == CS_FORCE_EXP_SPRING) {
      th_setParam(m, e, "max_fz", 50);
    }
  }
  place(m, d, 0, 0.002, csu_vec3(0.01, 0, 0), csu_vec3(0, 0, 0.5), 0);
  worst = fmax(worst, expSpringAgrees(m, d, 2e-3, 0.4, "at the cap"));
  for (int e = 0; e < m->nforce; e++) {
    if (m->force[e].kind == CS_FORCE_EXP_SPRING) {
      th_setParam(m, e, "max_fz", 1e5);
    }
  }
  place(m, d, -0.004, 0.002, csu_vec3(0.01, 0, 0), csu_vec3(0, 15, 0), 0);
  worst = fmax(worst, expSpringAgrees(m, d, 1e-4, 0.4, "half clipped"));
  for (int e = 0; e < m->nforce; e++) {
    if (m->force[e].kind == CS_FORCE_EXP_SPRING) {
      cs_setDiscrete(m, d, e, CS_FRICTION_STATIC, 0);
      cs_setDiscrete(m, d, e, CS_FRICTION_DYNAMIC, 0);
    }
  }
  place(m, d, -0.004, 0.002, csu_vec3(0.01, 0, 0), csu_vec3(0, 0, 0.5), 0);
  worst = fmax(worst, expSpringAgrees(m, d, 1e-4, 0.4, "no friction"));
  cs_deleteData(d);
  cs_deleteModel(m);
  print_message("exponential springs: largest difference %.2g of the largest entry\n", worst);
}


// The whole Jacobian of the slab's right-hand side (positions and speeds, 13 x 13) against
// central differences of the right-hand side itself, the slab turning at 2 rad/s with its centre
// of mass off the origin and its quaternion 5 % off the unit sphere: the rows of the quaternion's
// and the origin's rates exactly (the pull back to the sphere included), the speeds' rows but
// for the terms left out, small beside the contacts': within 2e-3 of the largest entry. The
// largest of those terms here is the turn of the inverse inertia under the net moment of the
// slab tilted onto two corners (7.4e-4 of the largest entry on compliant points, 1.1e-3 on
// exponential springs); the centre of mass's lever taken the wrong way round reads 8e-2, a
// sign wrong in the contacts' part or the pull of the order of the entries. The constant force,
// pushing at a point of the slab, has no bodyJacobian: its part comes from difference quotients
// of its apply alone.

// (qdot, udot) of the slab at the data's state
// The constant push's derivatives (a force and a torque fixed in Ground; the force at a
// station off the origin) against difference quotients of its force: the slab 1 m above the
// floor without gravity, so that the push is the only element with a force (gravity's moment
// about the origin is left out on purpose, jacobian.c), tilted, turning and moving, its
// centre of mass at the origin and away from it. Only the force's moment turns with the
// station; leaving that out reads 1.0.
static void test_constant_derivatives(void** state) {
  (void)state;
  for (int offset = 0; offset <= 1; offset++) {
    csModel* m = slab("exponential_spring", 0.01, offset);
    m->gravity = csu_vec3(0, 0, 0);
    csData* d = cs_makeData(m);
    place(m, d, -1.0, 0.4, csu_vec3(0.3, -0.2, 0.1), csu_vec3(1.5, -0.7, 2.0), 0);
    double X1[36], V1[36], X2[36], V2[36];
    cs_bodyForceJacobian(m, d, 1, 1e-2, 0, X1, V1);
    cs_realizeVelocity(m, d);
    cs_bodyForceJacobian(m, d, 1, 1e-2, 1, X2, V2);
    double ex = relDiff(X1, X2), vmax = 0;
    for (int i = 0; i < 36; i++) {
      vmax = fmax(vmax, fabs(V1[i]) + fabs(V2[i]));
    }
    print_message("constant push, centre of mass %s: pose %.2g, velocity entries up to %.2g\n",
                  offset ? "off the origin" : "at the origin", ex, vmax);
    assert_true(ex < 3e-6);
    assert_true(vmax < 1e-6);
    cs_deleteData(d);
    cs_deleteModel(m);
  }
}


static void rates(const csModel* m, csData* d, double* f) {
  cs_invalidate(d);
  assert_int_equal(cs_forward(m, d), 0);
  memcpy(f, d->qdot, 7 * sizeof(double));
  memcpy(f + 7, d->udot, 6 * sizeof(double));
}

static void wholeJacobian(const char* model) {
  csModel* m = slab(model, 0.01, 1);
  csData* d = cs_makeData(m);
  place(m, d, 2e-4, 0.002, csu_vec3(0.004, 0.003, -0.002), csu_vec3(0.3, -0.5, 2.0), 0);
  // a quaternion 5 % off the unit sphere: its pull back is in the rates too
  for (int i = 0; i < 4; i++) {
    d->q[i] *= 1.05;
  }
  cs_invalidate(d);
  cs_realizeVelocity(m, d);
  int n = 13, iq[7], iu[6];
  for (int i = 0; i < 7; i++) {
    iq[i] = i;
  }
  for (int i = 0; i < 6; i++) {
    iu[i] = 7 + i;
  }
  double L[169], Q[169];
  csFreeSystem* fs = cs_freeSystemNew(iq, iu);
  assert_non_null(fs);
  cs_freeJacobian(m, d, 1, fs, 1.0, L, n);
  cs_freeSystemDelete(fs);
  // central differences of (qdot, udot) in each of q and u
  double y[13], f0[13], f1[13];
  memcpy(y, d->q, 7 * sizeof(double));
  memcpy(y + 7, d->u, 6 * sizeof(double));
  for (int j = 0; j < n; j++) {
    double inc = 1e-7 * fmax(1.0, fabs(y[j]));
    double* s = j < 7 ? &d->q[j] : &d->u[j - 7];
    *s = y[j] + inc;
    rates(m, d, f1);
    *s = y[j] - inc;
    rates(m, d, f0);
    *s = y[j];
    for (int i = 0; i < n; i++) {
      Q[j * n + i] = (f1[i] - f0[i]) / (2 * inc);
    }
  }
  double diff = 0, scale = 0, qrows = 0;
  for (int j = 0; j < n; j++) {
    for (int i = 0; i < n; i++) {
      double e = fabs(L[j * n + i] - Q[j * n + i]);
      diff = fmax(diff, e);
      scale = fmax(scale, fabs(Q[j * n + i]));
      if (i < 7) {
        qrows = fmax(qrows, e);
      }
    }
  }
  print_message("%s: largest entry %.3g; largest difference %.3g (%.2g of it), in the position "
                "rows %.3g\n", model, scale, diff, diff / scale, qrows);
  assert_true(diff < 2e-3 * scale);
  assert_true(qrows < 1e-6);
  cs_deleteData(d);
  cs_deleteModel(m);
}

static void test_whole_jacobian(void** state) {
  (void)state;
  wholeJacobian("compliant_point");
  wholeJacobian("exponential_spring");
}


// A slab sliding on compliant points at 1 m/s (well above the transition speed, mu_dynamic
// 0.5, no viscous friction) stops after v0^2 / (2 mu_d g) = 0.10194 m (give or take its last
// millimetre per second, where the regularized friction fades), with ark
// forming its Jacobian from the contacts' derivatives: no right-hand side spent on it.
static void test_slab_stops(void** state) {
  (void)state;
  csModel* m = th_loadString(
      "{\"gravity\": [0, 0, -9.81],"
      " \"bodies\": [{\"name\": \"slab\", \"mass\": 2, \"inertia\": {\"box\": [0.2, 0.2, "
      "0.05]}, \"joint\": {\"type\": \"free\", \"initial\": {\"position\": [0, 0, 0.0499],"
      "   \"velocity\": [1, 0, 0]}}}],"
      " \"planes\": [{\"name\": \"floor\"}],"
      " \"contacts\": [{\"name\": \"c\", \"body\": \"slab\", \"plane\": \"floor\","
      "   \"points\": [[-0.2, -0.2, -0.05], [0.2, -0.2, -0.05], [-0.2, 0.2, -0.05],"
      "     [0.2, 0.2, -0.05]]}],"
      " \"contact_models\": {\"default\": \"compliant_point\","
      "   \"compliant_point\": {\"penalty_stiffness\": 1e6, \"dissipation\": 1,"
      "     \"mu_static\": 0.5, \"mu_dynamic\": 0.5, \"mu_viscous\": 0,"
      "     \"transition_velocity\": 0.001}},"
      " \"simulation\": {\"duration\": 1, \"integrator\": \"ark\", \"rtol\": 1e-6,"
      "   \"atol\": 1e-6}}");
  csSimOptions o = cs_modelOptions(m);
  double expect = 1.0 / (2 * 0.5 * 9.81);
  thTrace tr = {0};
  csData* d = th_run(m, &o, &tr);
  double x = d->q[m->body[1].qadr + 4], v = d->u[m->body[1].uadr + 3];
  print_message("ark: stopped at %.5f m (expected %.5f), v %.2g m/s, %ld steps, %ld evaluations, "
                "%ld for Jacobians\n", x, expect, v, d->stat.nsteps, d->stat.nrhs,
                d->stat.nrhs_jac);
  th_assertClose(x, expect, 2e-3, 0, "sliding distance");
  assert_true(fabs(v) < 1e-3);
  assert_int_equal(d->stat.nrhs_jac, 0);
  double e0 = tr.ke[0] + tr.pe[0];
  for (int i = 0; i < tr.n; i++) {
    th_assertClose(tr.ke[i] + tr.pe[i] + tr.diss[i], e0, 1e-3, 0, "KE + PE + dissipated");
  }
  th_traceFree(&tr);
  cs_deleteData(d);
  cs_deleteModel(m);
}


// A ball rolling down a 20 degree ramp (a plane on a body welded to ground, which stands still,
// so the free body's Jacobian still applies): rolling, it covers (1/2) (5/7) g sin(20) t^2 =
// 1.1982 m in 1 s, and its contact point hardly slips (the regularized friction lets it creep
// at a fraction of the transition speed, about 1 mm/s, what holds it at the friction's
// (2/7) m g sin(20) needs).
static void test_ball_rolls_down_ramp(void** state) {
  (void)state;
  csModel* m = th_loadString(
      "{\"gravity\": [0, 0, -9.81],"
      " \"bodies\": [{\"name\": \"ramp\", \"mass\": 10, \"inertia\": {\"box\": [1, 1, 0.1]},"
      "   \"joint\": {\"type\": \"weld\", \"parent_frame\": {\"rotation\": {\"axis\": [0, 1, 0],"
      "   \"angle_deg\": 20}}}},"
      "  {\"name\": \"ball\", \"mass\": 1, \"inertia\": {\"sphere\": 0.1},"
      "   \"joint\": {\"type\": \"free\", \"initial\": {\"position\": [0.0342020143, 0,"
      "   0.0939692621]}}}],"
      " \"planes\": [{\"name\": \"slope\", \"body\": \"ramp\"}],"
      " \"contacts\": [{\"name\": \"c\", \"body\": \"ball\", \"plane\": \"slope\","
      "   \"points\": [[0, 0, 0]], \"radius\": 0.1}],"
      " \"contact_models\": {\"default\": \"hunt_crossley\", \"hunt_crossley\": {"
      "   \"plane_strain_modulus\": 1e10, \"dissipation\": 0.5, \"mu_static\": 0.8,"
      "   \"mu_dynamic\": 0.6, \"transition_velocity\": 0.01}},"
      " \"simulation\": {\"duration\": 1, \"integrator\": \"ark\", \"rtol\": 1e-6,"
      "   \"atol\": 1e-6}}");
  csSimOptions o = cs_modelOptions(m);
  csData* d = th_run(m, &o, NULL);
  const csBody* ball = &m->body[2];
  double th = 20 * acos(-1.0) / 180, sn = sin(th), cs = cos(th);
  // the centre's travel down the slope (the ramp's x axis in Ground, (cos, 0, -sin)), and the
  // speed of the contact point along it: v - w x (r n) with n the slope's normal (sin, 0, cos)
  const double* q = d->q + ball->qadr;
  const double* u = d->u + ball->uadr;
  double travel = (q[4] - 0.0342020143) * cs - (q[6] - 0.0939692621) * sn;
  double v = u[3] * cs - u[5] * sn;
  double w = u[1];  // about y: rolling down +x_ramp turns the ball about +y
  double expect = 0.5 * (5.0 / 7.0) * 9.81 * sn;
  print_message("travel %.5f m (rolling: %.5f), speed %.5f, slip %.2g m/s, %ld steps, %ld "
                "evaluations, %ld for Jacobians\n", travel, expect, v, v - 0.1 * w,
                d->stat.nsteps, d->stat.nrhs, d->stat.nrhs_jac);
  th_assertClose(travel, expect, 3e-3, 0, "distance rolled");
  assert_true(fabs(v - 0.1 * w) < 3e-3);
  assert_int_equal(d->stat.nrhs_jac, 0);
  cs_deleteData(d);
  cs_deleteModel(m);
}


// The free body's linear systems (I - hg L) x = r by the speeds' Schur complement, against
// Gaussian elimination of the whole 13 x 13 system, for the slab's L in contact, for steps
// from 1 us to 1 s (hg L up to 1e6), in a shuffled state order
static void test_free_system(void** state) {
  (void)state;
  csModel* m = slab("hunt_crossley", 0.01, 1);
  csData* d = cs_makeData(m);
  place(m, d, 2e-4, 0.002, csu_vec3(0.004, 0.003, -0.002), csu_vec3(0.3, -0.5, 2.0), 0.005);
  int n = 13, order[13] = {12, 3, 7, 0, 9, 5, 11, 1, 8, 4, 10, 2, 6};
  csFreeSystem* fs = cs_freeSystemNew(order, order + 7);
  assert_non_null(fs);
  double L[169];
  cs_freeJacobian(m, d, 1, fs, 1.0, L, n);
  for (double hg = 1e-6; hg <= 1.0; hg *= 10) {
    // W = I - hg L and r, solved by elimination with partial pivoting
    double W[13][14], r[13], x[13];
    for (int i = 0; i < n; i++) {
      r[i] = sin(1.0 + i) + 0.1 * i;
      for (int j = 0; j < n; j++) {
        W[i][j] = (i == j) - hg * L[j * n + i];
      }
      W[i][n] = r[i];
    }
    for (int k = 0; k < n; k++) {
      int p = k;
      for (int i = k + 1; i < n; i++) {
        p = fabs(W[i][k]) > fabs(W[p][k]) ? i : p;
      }
      for (int j = 0; j <= n; j++) {
        double tmp = W[k][j];
        W[k][j] = W[p][j];
        W[p][j] = tmp;
      }
      for (int i = k + 1; i < n; i++) {
        double f = W[i][k] / W[k][k];
        for (int j = k; j <= n; j++) {
          W[i][j] -= f * W[k][j];
        }
      }
    }
    for (int i = n - 1; i >= 0; i--) {
      double acc = W[i][n];
      for (int j = i + 1; j < n; j++) {
        acc -= W[i][j] * x[j];
      }
      x[i] = acc / W[i][i];
    }
    assert_int_equal(cs_freeFactor(fs, L, n, hg), 0);
    double y[13], worst = 0, scale = 0;
    memcpy(y, r, sizeof(r));
    cs_freeSolve(fs, y);
    for (int i = 0; i < n; i++) {
      worst = fmax(worst, fabs(y[i] - x[i]));
      scale = fmax(scale, fabs(x[i]));
    }
    print_message("hg %g: largest difference %.3g of %.3g\n", hg, worst, scale);
    assert_true(worst <= 1e-10 * scale);
  }
  cs_freeSystemDelete(fs);
  cs_deleteData(d);
  cs_deleteModel(m);
}


int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_contact_derivatives),
      cmocka_unit_test(test_exp_spring_derivatives),
      cmocka_unit_test(test_constant_derivatives),
      cmocka_unit_test(test_whole_jacobian),
      cmocka_unit_test(test_free_system),
      cmocka_unit_test(test_slab_stops),
      cmocka_unit_test(test_ball_rolls_down_ramp),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
