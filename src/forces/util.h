// util.h: pieces shared by force kinds (private): parameter checks driven by a kind's
// parameter table, and the plane geometry, force application and report of the contact kinds
// that follow the slot convention of forces.h (ref[CS_REF_BODY] touches ref[CS_REF_PLANE]).
// What a contact kind calls in every evaluation is defined here, inline (see engine/kinematics.h
// for why).
#ifndef CONTACTSIM_FORCE_UTIL_H
#define CONTACTSIM_FORCE_UTIL_H

#include "contactsim/contactsim.h"
#include "engine/forces.h"
#include "engine/kinematics.h"

// ---------------------------------------------------------------------------------------------
// validation

// Check every CS_PARAM_REAL and CS_PARAM_VEC3 entry of the table params (nparams entries) against
// f->param: each number must be finite, > 0 when the entry has CS_PARAM_POSITIVE and >= 0 when it
// has CS_PARAM_NONNEG; a NaN in a CS_PARAM_OPTIONAL entry means "not given" and passes. Entries
// are checked in table order; other types (bodies, planes, frames, integers) are skipped. On the
// first failure fills err (nullable) with CS_ERR_INPUT, path = the entry's key and a sentence
// starting "<what> '<element name>': ", and returns -1; returns 0 when all pass.
int csu_checkParams(const csForce* f, const csParamInfo* params, int nparams, const char* what,
                    csError* err);

// Check the references of a contact element: the touching body ref[CS_REF_BODY] exists (ground
// allowed), the plane ref[CS_REF_PLANE] exists, and the plane is not carried by that body.
// `what` names the touching feature in messages ("sphere", "station"). On failure fills err
// (nullable) with CS_ERR_INPUT and path "body" or "plane", and returns -1; otherwise 0.
int cs_checkContactRefs(const csModel* m, const csForce* f, const char* what, csError* err);


// Validate callback for sphere contact kinds whose only rules are the flags of their parameter
// table (found through f->kind) and the contact references: csu_checkParams with "contact",
// then cs_checkContactRefs with "sphere". Returns 0, or -1 with err (nullable) filled.
int cs_validateSphereContact(const csModel* m, const csForce* f, csError* err);


// ---------------------------------------------------------------------------------------------
// geometry against a plane (data realized to velocity)

// Height of the point p_G (in Ground, m) above plane `plane`, measured along the plane's outward
// normal (its +z axis), which is written to nout_G (unit, in Ground). Negative below the plane.
static inline double cs_planeHeight(const csData* d, int plane, csVec3 p_G, csVec3* nout_G) {
  // the outward normal is the plane's +z axis (third column of R_GP)
  const csTransform* X_GP = &d->plane_pose[plane];
  *nout_G = csu_vec3(X_GP->R.m[0][2], X_GP->R.m[1][2], X_GP->R.m[2][2]);
  return csu_dot(csu_sub(p_G, X_GP->p), *nout_G);
}


// Penetration of the sphere of a sphere contact element (centre param[CS_SLOT_STATION..+2] in
// the body frame, radius param[CS_SLOT_RADIUS]) into its plane, m: the radius minus the height of
// the centre, positive when they overlap. Writes the centre (in Ground, m) and the plane's inward
// normal n_G, pointing from the sphere into the plane (unit, in Ground).
static inline double cs_spherePenetration(const csModel* m, const csData* d, const csForce* f,
                                          csVec3* center_G, csVec3* n_G) {
  // the centre in Ground, then the radius minus its height; R - h equals R + (c - p) . n
  // exactly, so either form gives the same bits
  *center_G = csu_stationPosition(m, d, f->ref[CS_REF_BODY],
                                  csu_vec3FromArray(f->param + CS_SLOT_STATION));
  csVec3 nout;
  double h = cs_planeHeight(d, f->ref[CS_REF_PLANE], *center_G, &nout);
  *n_G = csu_neg(nout);
  return f->param[CS_SLOT_RADIUS] - h;
}


// Velocity of the material point of `body` at point_G relative to the point of the plane's body
// coinciding with it, split along the unit vector u_G (all in Ground, m/s): returns the component
// along u_G and writes the rest (the tangential slip velocity) to vtan_G.
static inline double cs_contactVelocity(const csModel* m, const csData* d, int body, int plane,
                                        csVec3 point_G, csVec3 u_G, csVec3* vtan_G) {
  // the body's material point relative to the plane's, then split along u
  csVec3 v = csu_relativePointVelocity(m, d, body, m->plane[plane].body, point_G);
  double vu = csu_dot(v, u_G);
  *vtan_G = csu_addScaled(v, -vu, u_G);
  return vu;
}


// ---------------------------------------------------------------------------------------------
// evaluated contact

// Number and names of the report extras of the contact kinds that use csContactEval, in the
// order csu_fillContactReport writes them.
enum { CS_CONTACT_NEXTRA = 5 };
extern const char* const cs_contactExtraNames[CS_CONTACT_NEXTRA];

// What one evaluation of a contact element produces; its apply and report callbacks share it.
// The five values from x to slip are the report extras (cs_contactExtraNames), in that order.
typedef struct csContactEval {
  csVec3 point;            // contact point, in Ground, m
  csVec3 force;            // force on the touching body at point, in Ground, N
  int active;              // 1 when the force acts; 0 leaves the bodies alone
  double pe;               // potential energy stored, J
  double power;            // power dissipated, W
  double x;                // penetration, m
  double xdot;             // penetration rate, m/s
  double fn;               // normal force pushing the body out, N
  double ff;               // friction force magnitude, N
  double slip;             // tangential speed of the body relative to the plane at point, m/s
} csContactEval;

// Start an evaluation: set the point (in Ground, m), penetration x (m), its rate xdot (m/s) and
// the slip speed (m/s); active = (x > 0); force, pe, power, fn and ff zero (the state of a contact
// that does not touch).
static inline void csu_contactStart(csContactEval* c, csVec3 point_G, double x, double xdot,
                                    double slip) {
  // kinematics of the contact; no force until the kind computes one
  c->point = point_G;
  c->active = x > 0;
  c->x = x;
  c->xdot = xdot;
  c->slip = slip;
  c->force = csu_vec3(0, 0, 0);
  c->pe = c->power = c->fn = c->ff = 0;
}


// Finish an evaluation that csu_contactStart began, for a contact whose normal force fn pushes
// the body out along nout_G (the plane's outward unit normal, in Ground) and is clamped at 0 (the
// surfaces never pull), and whose friction fn mu (N) opposes the slip velocity vtan_G (in Ground,
// m/s; no friction when the slip speed is 0). felastic is the conservative part of the normal
// force (N): the dissipated power is (fn - felastic) xdot + ff slip. Sets force, fn, ff, power.
static inline void csu_contactFinish(csContactEval* c, csVec3 nout_G, csVec3 vtan_G, double fn,
                                     double felastic, double mu) {
  // the surfaces never pull
  if (fn < 0) {
    fn = 0;
  }

  // normal force out of the plane, friction opposite the slip
  double ff = 0;
  csVec3 force = csu_scale(fn, nout_G);
  if (c->slip > 0) {
    ff = fn * mu;
    force = csu_addScaled(force, -ff / c->slip, vtan_G);
  }

  // what is not elastic in the normal force, and all the friction, dissipate
  c->force = force;
  c->fn = fn;
  c->ff = ff;
  c->power = (fn - felastic) * c->xdot + ff * c->slip;
}


// Apply an evaluated contact of element e: when c->active, c->force on the touching body and its
// opposite on the plane's body, both at c->point (ground ignores its share); always sets
// d->force_pe[e], d->force_power[e], d->contact_point[e] and the element's report extras (as
// csu_fillContactReport does). Allocates nothing.
static inline void cs_applyContact(const csModel* m, csData* d, int e, const csContactEval* c) {
  // equal and opposite forces at the same point
  const csForce* f = &m->force[e];
  if (c->active) {
    csu_applyForceAtPoint(m, d, f->ref[CS_REF_BODY], c->point, c->force);
    csu_applyForceAtPoint(m, d, m->plane[f->ref[CS_REF_PLANE]].body, c->point, csu_neg(c->force));
  }
  d->force_pe[e] = c->pe;
  d->force_power[e] = c->power;
  d->contact_point[e] = c->point;
  // the report extras as well, so that per-step statistics read the normal force without
  // evaluating the contact again (a kind may leave the rate and slip at 0 while the surfaces do
  // not touch; the report callbacks compute every column)
  double* extra = d->force_extra + f->repadr;
  extra[0] = c->x;
  extra[1] = c->xdot;
  extra[2] = c->fn;
  extra[3] = c->ff;
  extra[4] = c->slip;
}


// How an evaluated contact's force changes (bodyJacobian): the kind's slopes of its normal force
// and friction coefficient, and the geometry they act along.
typedef struct csContactSlope {
  csVec3 station;          // the body point whose height sets the penetration (the station, a
                           // sphere's centre), in Ground, m
  csVec3 nout;             // the plane's outward unit normal, in Ground
  csVec3 vtan;             // the slip velocity at the contact point, in Ground, m/s
  double slip;             // the speed the friction's direction divides it by (|vtan|, or a
                           // smoothed one), m/s
  double mu;               // friction coefficient at that speed
  double dfn_dx;           // d(normal force)/d(penetration), N/m
  double dfn_dxdot;        // d(normal force)/d(penetration rate), N s/m
  double dmu_dslip;        // d(friction coefficient)/d(slip speed), s/m
  double share;            // d(contact point)/d(penetration) along nout: the share of the
                           // deformation the body's surface takes
} csContactSlope;

// Add to dQdX and dQdV (csForceKind.bodyJacobian) the derivatives of the spatial force that an
// evaluated contact c applies to `body` (its touching body): the force fn (nout - mu t) at
// c->point, t = vtan / slip, with fn depending on the penetration (the station's height)
// and its rate (the normal component of the point's velocity), the friction on the slip velocity
// (the tangential component). Nothing when c exerts no force. The point moves with the station
// and along the normal by share times the penetration's change (a sphere's contact point stays
// below its centre as the body turns about it); the moment's lever and the point's velocity
// follow it. The plane's motion is not included.
void csu_contactBodyJacobian(const csData* d, int body, const csContactEval* c,
                             const csContactSlope* s, double* dQdX, double* dQdV);

// The part of csu_contactBodyJacobian after the force law: add to dQdX and dQdV the derivatives
// of the spatial force on `body` (moment about its origin, force; Ground) of a force `force`
// applied at `point`, given its slopes Ap = dF/d(station position) and Av = dF/d(point
// velocity) (3 x 3, Ground). The point moves with the body station `station`, less `share`
// times the station's motion along the unit normal nout (0 for a point fixed in the body, where
// point and station are one; nout is then not read). The plane's motion is not included.
void csu_pointForceBodyJacobian(const csData* d, int body, csVec3 point, csVec3 station,
                                csVec3 nout, double share, csVec3 force, const csMat33* Ap,
                                const csMat33* Av, double* dQdX, double* dQdV);

// Height above plane `plane` of `body`'s material point now at p_G, and its first and second
// time derivatives (g[0..2]; m, m/s, m/s^2), at the realized state (acceleration stage), the
// plane's body's motion included.
void csu_planeHeightRates(const csModel* m, const csData* d, int body, int plane, csVec3 p_G,
                          double* g);

// The gap (csForceKind.gaps) of a contact between `body`'s station, now at p_G, and plane
// `plane`: the station's height above the plane less clearance (a sphere's radius; 0 for a
// point) and its rates (g[0..2]), from csu_planeHeightRates.
void csu_planeGap(const csModel* m, const csData* d, int body, int plane, csVec3 p_G,
                  double clearance, double* g);

// Fill a contact report from an evaluated contact: point, force on the touching body with zero
// moment about the point, pe and power; and extra[0..4] = x, xdot, fn, ff, slip.
void csu_fillContactReport(const csContactEval* c, csContactReport* r, double* extra);

// ---------------------------------------------------------------------------------------------
// friction coefficients as discrete variables, and surface materials

// The discrete variables every contact kind with Coulomb-type friction owns, in this order, so
// that a scheduled change {"mu_static": 0.2} means the same under every model.
enum { CS_FRICTION_STATIC = 0, CS_FRICTION_DYNAMIC = 1, CS_FRICTION_VISCOUS = 2 };
extern const char* const cs_frictionNames[3];

// Set friction variable `index` (CS_FRICTION_*) of the block mu (mu[0] static, mu[1] dynamic,
// mu[2] viscous when nmu = 3) to value, keeping 0 <= mu_dynamic <= mu_static: a negative or NaN
// value becomes 0; a static coefficient set below the dynamic one pulls it down, a dynamic one
// set above the static one pushes it up.
void csu_setFriction(double* mu, int nmu, int index, double value);

// 2ab/(a+b), the combination Simbody uses for friction coefficients; 0 when a + b = 0.
double csu_harmonicMean(double a, double b);

// The slope in the slip speed v (s/m) of Simbody's friction coefficient, which Hunt-Crossley and
// the smooth sphere use: min(v/vt, 1) (ud + 2 (us - ud) / (1 + (v/vt)^2)) + uv v, mu holding
// the current static, dynamic and viscous coefficients (CS_FRICTION_*).
static inline double csu_simbodyFrictionSlope(const double* mu, double v, double vt) {
  double us = mu[CS_FRICTION_STATIC], ud = mu[CS_FRICTION_DYNAMIC];
  double vr = v / vt, q = (1 + vr * vr) * (1 + vr * vr);
  double dcoef = vr < 1 ? ud + 2 * (us - ud) * (1 - vr * vr) / q : -4 * (us - ud) * vr / q;
  return dcoef / vt + mu[CS_FRICTION_VISCOUS];
}

// Offsets within a material block of parameters: a stiffness-like value (penalty stiffness or
// plane-strain modulus), the dissipation, then the three friction coefficients.
enum { CS_MAT_K = 0, CS_MAT_C, CS_MAT_US, CS_MAT_UD, CS_MAT_UV, CS_MAT_COUNT };

// 1 if any value of the material block at P[slot .. slot + CS_MAT_COUNT - 1] was given (not NaN).
int csu_materialGiven(const double* P, int slot);

// The pair of surface materials a contact combines, as Simbody combines contact materials
// (HuntCrossleyForce, CompliantContactSubsystem): with k1, k2 the two surfaces' stiffnesses,
//   s = k2 / (k1 + k2)  (the fraction of the deformation taken by surface 1),  k = k1 s,
//   c = c1 s + c2 (1 - s),  and each friction coefficient 2 a b / (a + b).
typedef struct csPairMaterial {
  double k;        // effective stiffness of the pair (k1 k2 / (k1 + k2))
  double c;        // effective dissipation, s/m
  double us, ud, uv;  // friction coefficients (uv in s/m)
  double s;        // fraction of the deformation taken by surface 1 (the body's)
} csPairMaterial;

// Where the contact kinds keep their pair's constants in csForce.derived (their prepare
// callbacks fill them from the parameters when the model is finalized): stiffness, dissipation
// and the body's share of the deformation, as in csPairMaterial.
enum { CS_DERIVED_K = 0, CS_DERIVED_C = 1, CS_DERIVED_S = 2 };

// Store a pair's stiffness, dissipation and share in f->derived (the slots above); the friction
// coefficients are the element's discrete variables instead.
void csu_storePairMaterial(csForce* f, csPairMaterial mat);

// Combine the material blocks m1 (the body's surface) and m2 (the plane's), each CS_MAT_COUNT
// values with NaN for absent ones (absent dissipation and friction count as 0); k1 and k2 are
// the stiffnesses to combine (the caller converts moduli first).
csPairMaterial csu_combineMaterials(const double* m1, const double* m2, double k1, double k2);

// Validate the material keys of a contact kind with an effective block at slotEff and surface
// blocks at slotBody and slotPlane (keys named "<kkey>", "body_material.<kkey>", ...): either
// the effective stiffness or both surfaces' stiffnesses, never an effective value beside a
// surface block. Fills err (nullable) naming the key and returns -1, or returns 0.
// A contact's friction coefficients in order, mu_dynamic <= mu_static, as every contact model
// and every change require; the error names prefix + "mu_dynamic". Returns 0 or -1 (err set).
int csu_checkFrictionOrder(const csForce* f, double us, double ud, const char* prefix,
                           csError* err);

int csu_checkMaterials(const csForce* f, const double* P, int slotEff, int slotBody, int slotPlane,
                       const char* kkey, csError* err);

#endif  // CONTACTSIM_FORCE_UTIL_H
