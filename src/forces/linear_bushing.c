// linear_bushing.c: a massless linear spring-damper between a frame F fixed on body 1 and a
// frame M fixed on body 2, either of which may be ground (seed 003, Simbody's LinearBushing).
//
// The bushing reads six coordinates off the relative pose X_FM, as if a gimbal joined F to M
// (seed 003, "Theory"): q0..q2 = body-fixed x-y-z Euler angles of R_FM, so that
// R_FM = Rx(q0) Ry(q1) Rz(q2), and q3..q5 = p_FM, the origin of M from the origin of F, in F.
// Each coordinate carries f_i = -(k_i q_i + c_i qdot_i), stores k_i q_i^2 / 2 and dissipates
// c_i qdot_i^2.
//
// Euler-angle rates. With w = w_FM, the angular velocity of M in F expressed in F,
//   w = qdot0 x + qdot1 (Rx y) + qdot2 (Rx Ry z)
//     = [qdot0 + s1 qdot2,  c0 qdot1 - s0 c1 qdot2,  s0 qdot1 + c0 c1 qdot2]
// (ci = cos qi, si = sin qi), and inverting,
//   qdot2 = (-s0 w_y + c0 w_z) / c1
//   qdot1 =   c0 w_y + s0 w_z
//   qdot0 =   w_x - s1 qdot2
// i.e. qdot = N w. The three moments f0..f2 act about these rotated axes, so they are not a
// vector; the torque on M that delivers the same power (f . qdot = (N^T f) . w) is tau = N^T f,
// in F, and body 1 gets -tau.
//
// Translations: v_FM = d/dt p_FM taken in F. The translational forces (f3, f4, f5) along F's
// axes make the vector R_GF f_trans, applied to body 2 at M's origin; body 1 receives the
// opposite force at the same point (so the pair has no net moment, and their power is
// f_trans . v_FM, including the part due to F's rotation).
//
// Singularity: when q1 nears +-90 degrees, c1 -> 0 and qdot0, qdot2 are unbounded. Each
// evaluation with |cos q1| < CS_BUSHING_WARN_COS is counted in d->stat.warnings_bushing (unless
// every rotational stiffness and damping is zero, when the rotational forces are too), and the
// divisor is kept at least CS_BUSHING_MIN_COS in size so the forces stay finite (the caller then
// knows from the count that they are not to be trusted).
#include <math.h>

#include "contactsim/contactsim.h"
#include "engine/error.h"
#include "engine/kinematics.h"
#include "forces/util.h"
#include "forces/kinds.h"

// |cos q1| below this counts a gimbal-lock warning (q1 within about 0.57 degrees of +-90, where
// the Euler rates are amplified a hundredfold)
#define CS_BUSHING_WARN_COS 1e-2
// smallest |cos q1| used as a divisor, so that the rates stay finite at the singularity itself
#define CS_BUSHING_MIN_COS 1e-9

enum { REF_BODY1 = 0, REF_BODY2 = 1 };
enum {
  SLOT_FRAME1 = 0,        // p (3) then quaternion w,x,y,z (4) of F in body 1
  SLOT_FRAME2 = 7,        // same for M in body 2
  SLOT_KROT = 14,         // rotational stiffnesses about the three Euler axes
  SLOT_KTRANS = 17,       // translational stiffnesses along F's axes
  SLOT_CROT = 20,         // rotational damping
  SLOT_CTRANS = 23,       // translational damping
};

static const csParamInfo g_params[] = {
    {"body1", CS_PARAM_BODY, REF_BODY1, 0, CS_PARAM_REQUIRED,
     "body carrying frame F (may be ground)"},
    {"frame1", CS_PARAM_FRAME, SLOT_FRAME1, 0, 0, "frame F in body1's frame (default: body frame)"},
    {"body2", CS_PARAM_BODY, REF_BODY2, 0, CS_PARAM_REQUIRED,
     "body carrying frame M (may be ground)"},
    {"frame2", CS_PARAM_FRAME, SLOT_FRAME2, 0, 0, "frame M in body2's frame (default: body frame)"},
    {"rotational_stiffness", CS_PARAM_VEC3, SLOT_KROT, 0, CS_PARAM_REQUIRED | CS_PARAM_NONNEG,
     "stiffness of the x, y, z Euler angles, N m/rad"},
    {"translational_stiffness", CS_PARAM_VEC3, SLOT_KTRANS, 0,
     CS_PARAM_REQUIRED | CS_PARAM_NONNEG, "stiffness along F's x, y, z axes, N/m"},
    {"rotational_damping", CS_PARAM_VEC3, SLOT_CROT, 0, CS_PARAM_NONNEG,
     "damping of the x, y, z Euler angle rates, N m s/rad"},
    {"translational_damping", CS_PARAM_VEC3, SLOT_CTRANS, 0, CS_PARAM_NONNEG,
     "damping along F's x, y, z axes, N s/m"},
};


enum { NPARAMS = sizeof(g_params) / sizeof(g_params[0]) };

// pose of a frame given as param[slot..slot+6] on body b, in Ground
static csTransform framePose(const csData* d, const csForce* f, int b, int slot) {
  const double* p = f->param + slot;
  csQuat q = csu_quatNormalize(csu_quat(p[3], p[4], p[5], p[6]));
  csTransform X_BF = csu_transformFromPosQuat(csu_vec3(p[0], p[1], p[2]), q);
  return csu_transformMul(&d->body_pose[b], &X_BF);
}


static int checkFrame(const csForce* f, int slot, const char* key, csError* err) {
  const double* p = f->param + slot;
  double n2 = 0;
  for (int i = 0; i < 7; i++) {
    if (!isfinite(p[i])) {
      cs_setError(err, CS_ERR_INPUT, key, "linear bushing '%s': %s has a non-finite entry",
                  f->name, key);
      return -1;
    }
  }
  for (int i = 3; i < 7; i++) {
    n2 += p[i] * p[i];
  }
  if (!(n2 > 1e-12)) {
    cs_setError(err, CS_ERR_INPUT, key, "linear bushing '%s': %s has no valid rotation", f->name,
                key);
    return -1;
  }
  return 0;
}


static int bushingValidate(const csModel* m, const csForce* f, csError* err) {
  // two distinct existing bodies
  int b1 = f->ref[REF_BODY1], b2 = f->ref[REF_BODY2];
  if (b1 < 0 || b1 >= m->nbody) {
    cs_setError(err, CS_ERR_INPUT, "body1", "linear bushing '%s': body1 does not exist", f->name);
    return -1;
  }
  if (b2 < 0 || b2 >= m->nbody) {
    cs_setError(err, CS_ERR_INPUT, "body2", "linear bushing '%s': body2 does not exist", f->name);
    return -1;
  }
  if (b1 == b2) {
    cs_setError(err, CS_ERR_INPUT, "body2",
                "linear bushing '%s' joins body '%s' to itself; body1 and body2 must differ",
                f->name, m->body[b1].name);
    return -1;
  }
  // frames usable, coefficients finite and non-negative
  if (checkFrame(f, SLOT_FRAME1, "frame1", err) || checkFrame(f, SLOT_FRAME2, "frame2", err)) {
    return -1;
  }
  return csu_checkParams(f, g_params, NPARAMS, "linear bushing", err);
}


// What the bushing does at the realized state (seed 003: getQ, getQDot, getF, getF_GF,
// getF_GM, getPotentialEnergy, getPowerDissipation).
typedef struct bushingEval {
  double q[6];             // x-y-z Euler angles of R_FM (rad), then p_FM in F (m)
  double qdot[6];          // their rates, rad/s and m/s
  double f[6];             // generalized forces: moments about the Euler axes (N m), then
                           // forces along F's axes (N)
  csVec3 torque_G;         // torque on body 2 (its opposite on body 1), in Ground, N m
  csVec3 force_G;          // force on body 2 at OM (its opposite on body 1 at OM), in Ground, N
  csVec3 OF_G, OM_G;       // origins of F and M, in Ground, m
  double pe;               // J
  double power;            // W
} bushingEval;

// report values (CSV columns E.<name> with --forces): q, qdot, f as above, then the spatial
// forces on body 1 at F's origin and on body 2 at M's origin (moment, then force, in Ground),
// then the energy and power
enum { EXTRA_Q = 0, EXTRA_QDOT = 6, EXTRA_F = 12, EXTRA_F_GF = 18, EXTRA_F_GM = 24,
       EXTRA_PE = 30, EXTRA_POWER = 31, EXTRA_COUNT = 32 };
static const char* const g_extraNames[EXTRA_COUNT] = {
    "q0", "q1", "q2", "q3", "q4", "q5",
    "qdot0", "qdot1", "qdot2", "qdot3", "qdot4", "qdot5",
    "f0", "f1", "f2", "f3", "f4", "f5",
    "body1_mx", "body1_my", "body1_mz", "body1_fx", "body1_fy", "body1_fz",
    "body2_mx", "body2_my", "body2_mz", "body2_fx", "body2_fy", "body2_fz",
    "pe", "power",
};


static void evaluate(const csModel* m, const csData* d, int e, bushingEval* out,
                     int* nearLock) {
  const csForce* f = &m->force[e];
  int b1 = f->ref[REF_BODY1], b2 = f->ref[REF_BODY2];
  const double* kr = f->param + SLOT_KROT;
  const double* kt = f->param + SLOT_KTRANS;
  const double* cr = f->param + SLOT_CROT;
  const double* ct = f->param + SLOT_CTRANS;

  // frames in Ground and the relative pose X_FM
  csTransform X_GF = framePose(d, f, b1, SLOT_FRAME1);
  csTransform X_GM = framePose(d, f, b2, SLOT_FRAME2);
  csMat33 R_FM = csu_mulMtM(&X_GF.R, &X_GM.R);
  csVec3 r_G = csu_sub(X_GM.p, X_GF.p);  // OF to OM, in Ground
  csVec3 p_FM = csu_mulMtV(&X_GF.R, r_G);
  out->OF_G = X_GF.p;
  out->OM_G = X_GM.p;

  // body-fixed x-y-z Euler angles: R_FM = Rx(q0) Ry(q1) Rz(q2); its first row is
  // (c1 c2, -c1 s2, s1) and its last column (s1, -s0 c1, c0 c1)
  double* q = out->q;
  q[0] = atan2(-R_FM.m[1][2], R_FM.m[2][2]);
  q[1] = atan2(R_FM.m[0][2], sqrt(R_FM.m[1][2] * R_FM.m[1][2] + R_FM.m[2][2] * R_FM.m[2][2]));
  q[2] = atan2(-R_FM.m[0][1], R_FM.m[0][0]);
  q[3] = p_FM.x;
  q[4] = p_FM.y;
  q[5] = p_FM.z;
  double s0 = sin(q[0]), c0 = cos(q[0]), s1 = sin(q[1]), c1 = cos(q[1]);

  // near gimbal lock: tell the caller (unless the bushing has no rotational stiffness or
  // damping: its rotational forces are then zero at any angle) and keep the divisor away from
  // zero
  int rotational = kr[0] != 0 || kr[1] != 0 || kr[2] != 0 || cr[0] != 0 || cr[1] != 0 ||
                   cr[2] != 0;
  *nearLock = rotational && fabs(c1) < CS_BUSHING_WARN_COS;
  double c1safe = (fabs(c1) < CS_BUSHING_MIN_COS) ? CS_BUSHING_MIN_COS : c1;

  // relative velocities: w_FM and v_FM (derivative of p_FM taken in F), both in F
  const csSpatialVec* V1 = &d->body_vel[b1];
  csVec3 w_F = csu_mulMtV(&X_GF.R, csu_sub(d->body_vel[b2].w, V1->w));
  csVec3 vOM = csu_pointVelocity(m, d, b2, X_GM.p);
  csVec3 vOF = csu_pointVelocity(m, d, b1, X_GF.p);
  csVec3 v_FM = csu_mulMtV(&X_GF.R, csu_sub(csu_sub(vOM, vOF), csu_cross(V1->w, r_G)));

  // Euler angle rates qdot = N w (see the derivation at the top), then the translation rates
  double* qdot = out->qdot;
  qdot[2] = (-s0 * w_F.y + c0 * w_F.z) / c1safe;
  qdot[1] = c0 * w_F.y + s0 * w_F.z;
  qdot[0] = w_F.x - s1 * qdot[2];
  qdot[3] = v_FM.x;
  qdot[4] = v_FM.y;
  qdot[5] = v_FM.z;

  // generalized forces, energy and dissipated power (seed 003, Theory)
  out->pe = out->power = 0;
  for (int i = 0; i < 3; i++) {
    out->f[i] = -(kr[i] * q[i] + cr[i] * qdot[i]);
    out->f[3 + i] = -(kt[i] * q[3 + i] + ct[i] * qdot[3 + i]);
    out->pe += 0.5 * (kr[i] * q[i] * q[i] + kt[i] * q[3 + i] * q[3 + i]);
    out->power += cr[i] * qdot[i] * qdot[i] + ct[i] * qdot[3 + i] * qdot[3 + i];
  }
  const double* frot = out->f;

  // the moments about the Euler axes as a torque on M: tau = N^T f, in F
  double g2 = (-s0 * frot[2] + s1 * s0 * frot[0]) / c1safe;  // N^T's use of (f0, f2) along y
  double h2 = (c0 * frot[2] - s1 * c0 * frot[0]) / c1safe;   // ... along z
  csVec3 tau_F = csu_vec3(frot[0], c0 * frot[1] + g2, s0 * frot[1] + h2);
  out->torque_G = csu_mulMV(&X_GF.R, tau_F);

  // the translational force along F's axes, in Ground
  out->force_G = csu_mulMV(&X_GF.R, csu_vec3(out->f[3], out->f[4], out->f[5]));
}


static void bushingApply(const csModel* m, csData* d, int e) {
  const csForce* f = &m->force[e];
  int b1 = f->ref[REF_BODY1], b2 = f->ref[REF_BODY2];
  bushingEval s;
  int nearLock;
  evaluate(m, d, e, &s, &nearLock);
  // each evaluation near gimbal lock counts a warning
  if (nearLock) {
    d->stat.warnings_bushing++;
  }
  // the translational force at OM on body 2 and opposite at OM on body 1, and the torque pair
  csu_applyForceAtPoint(m, d, b2, s.OM_G, s.force_G);
  csu_applyForceAtPoint(m, d, b1, s.OM_G, csu_neg(s.force_G));
  csu_applyTorque(m, d, b2, s.torque_G);
  csu_applyTorque(m, d, b1, csu_neg(s.torque_G));
  d->force_pe[e] = s.pe;
  d->force_power[e] = s.power;
}


// A bushing is not a contact: the report's point and spatial force stay zero; its energy and
// dissipated power, and the extras. The spatial forces are those Simbody's getF_GF and getF_GM
// return: on body 1 about F's origin and on body 2 about M's origin, moment first, in Ground.
static void bushingReport(const csModel* m, const csData* d, int e, csContactReport* r,
                          double* extra) {
  bushingEval s;
  int nearLock;
  evaluate(m, d, e, &s, &nearLock);
  r->pe = s.pe;
  r->power = s.power;
  for (int i = 0; i < 6; i++) {
    extra[EXTRA_Q + i] = s.q[i];
    extra[EXTRA_QDOT + i] = s.qdot[i];
    extra[EXTRA_F + i] = s.f[i];
  }
  // body 1 receives -force at OM: about OF that is (OM - OF) x (-force) plus -torque
  csVec3 m1 = csu_sub(csu_cross(csu_sub(s.OM_G, s.OF_G), csu_neg(s.force_G)), s.torque_G);
  const csVec3 parts[4] = {m1, csu_neg(s.force_G), s.torque_G, s.force_G};
  for (int i = 0; i < 4; i++) {
    csu_vec3ToArray(extra + EXTRA_F_GF + 3 * i, parts[i]);
  }
  extra[EXTRA_PE] = s.pe;
  extra[EXTRA_POWER] = s.power;
}


const csForceKind cs_kindLinearBushing = {
    .name = "linear_bushing",
    .doc = "linear spring-damper on the x-y-z Euler angles and the offset between two body "
           "frames",
    .params = g_params,
    .nparams = NPARAMS,
    .dissipative = 1,
    .nextra = EXTRA_COUNT,
    .extranames = g_extraNames,
    .validate = bushingValidate,
    .apply = bushingApply,
    .report = bushingReport,
};
