// util.c: pieces shared by force kinds: table-driven parameter checks, the report of contact
// elements, friction variables and materials (util.h; the plane geometry and force application
// that every evaluation calls are defined there, inline).
#include <math.h>
#include <stdio.h>

#include "contactsim/contactsim.h"
#include "engine/error.h"
#include "forces/util.h"
#include "forces/kinds.h"

// report extras of the contact kinds, in the order of csContactEval's fields x .. slip
const char* const cs_contactExtraNames[CS_CONTACT_NEXTRA] = {
    "penetration", "penetration_rate", "normal_force", "friction_force", "slip_speed"};


int csu_checkParams(const csForce* f, const csParamInfo* params, int nparams, const char* what,
                    csError* err) {
  for (int i = 0; i < nparams; i++) {
    const csParamInfo* p = &params[i];
    int n = p->type == CS_PARAM_VEC3 ? 3 : (p->type == CS_PARAM_REAL ? 1 : 0);
    for (int j = 0; j < n; j++) {
      // an optional value that was not given stays NaN
      double v = f->param[p->slot + j];
      if ((p->flags & CS_PARAM_OPTIONAL) && isnan(v)) {
        continue;
      }
      // finite, with the sign the flags demand
      if (!isfinite(v) || ((p->flags & CS_PARAM_POSITIVE) && !(v > 0)) ||
          ((p->flags & CS_PARAM_NONNEG) && !(v >= 0))) {
        const char* sign = (p->flags & CS_PARAM_POSITIVE) ? " > 0"
                           : (p->flags & CS_PARAM_NONNEG) ? " >= 0"
                                                          : "";
        cs_setError(err, CS_ERR_INPUT, p->key, "%s '%s': %s must %s%s", what, f->name, p->key,
                    n == 3 ? "hold three finite numbers" : "be a finite number", sign);
        return -1;
      }
    }
  }
  return 0;
}


// the body that b is welded to through welds only (b itself when its joint moves; 0 for bodies
// welded to ground)
static int rigidRoot(const csModel* m, int b) {
  while (b > 0 && m->body[b].joint == CS_JOINT_WELD) {
    b = m->body[b].parent;
  }
  return b;
}


int cs_checkContactRefs(const csModel* m, const csForce* f, const char* what, csError* err) {
  // the touching body and the plane exist
  int body = f->ref[CS_REF_BODY], plane = f->ref[CS_REF_PLANE];
  if (body < 0 || body >= m->nbody) {
    cs_setError(err, CS_ERR_INPUT, "body", "contact '%s' needs the body carrying the %s", f->name,
                what);
    return -1;
  }
  if (plane < 0 || plane >= m->nplane) {
    cs_setError(err, CS_ERR_INPUT, "plane", "contact '%s' needs a plane", f->name);
    return -1;
  }
  // a body cannot touch a plane it carries, nor one on a body welded to it: the force would
  // act within one rigid body, for ever, and move nothing
  if (m->plane[plane].body == body) {
    cs_setError(err, CS_ERR_INPUT, "plane",
                "contact '%s': the %s and the plane '%s' are on the same body", f->name, what,
                m->plane[plane].name);
    return -1;
  }
  if (rigidRoot(m, m->plane[plane].body) == rigidRoot(m, body)) {
    cs_setError(err, CS_ERR_INPUT, "plane",
                "contact '%s': the %s's body '%s' and the plane '%s' (on body '%s') are welded "
                "together into one rigid body", f->name, what, m->body[body].name,
                m->plane[plane].name, m->body[m->plane[plane].body].name);
    return -1;
  }
  return 0;
}


int cs_validateSphereContact(const csModel* m, const csForce* f, csError* err) {
  // the kind's own table, then the body and the plane
  const csForceKind* k = cs_forceKind(f->kind);
  if (csu_checkParams(f, k->params, k->nparams, "contact", err) ||
      cs_checkContactRefs(m, f, "sphere", err)) {
    return -1;
  }
  return 0;
}


// [a]x, the matrix of a x .
static csMat33 crossMatrix(csVec3 a) {
  csMat33 r = {{{0, -a.z, a.y}, {a.z, 0, -a.x}, {-a.y, a.x, 0}}};
  return r;
}


void csu_planeHeightRates(const csModel* m, const csData* d, int body, int plane, csVec3 p_G,
                          double* g) {
  // height h = n . (p - o) of the body's material point p over the plane (origin o, outward
  // normal n, both fixed in the plane's body P turning at wP). With w the velocity of p
  // relative to P's material point there, hdot = n . w, and
  //   hddot = (wP x n) . w + n . (a_B(p) - a_P(p) - wP x w),
  // the last term because P's point under p changes as p moves over it; on Ground
  // hdot = n . v_B(p) and hddot = n . a_B(p)
  csVec3 n;
  g[0] = cs_planeHeight(d, plane, p_G, &n);
  int pb = m->plane[plane].body;
  csVec3 w = csu_relativePointVelocity(m, d, body, pb, p_G);
  csVec3 a = csu_pointAcceleration(m, d, body, p_G);
  g[1] = csu_dot(n, w);
  if (pb == 0) {
    g[2] = csu_dot(n, a);
  } else {
    csVec3 wP = d->body_vel[pb].w;
    a = csu_sub(a, csu_add(csu_pointAcceleration(m, d, pb, p_G), csu_cross(wP, w)));
    g[2] = csu_dot(csu_cross(wP, n), w) + csu_dot(n, a);
  }
}


void csu_planeGap(const csModel* m, const csData* d, int body, int plane, csVec3 p_G,
                  double clearance, double* g) {
  csu_planeHeightRates(m, d, body, plane, p_G, g);
  g[0] -= clearance;
}


void csu_contactBodyJacobian(const csData* d, int body, const csContactEval* c,
                             const csContactSlope* s, double* dQdX, double* dQdV) {
  if (!c->active || !(c->fn > 0)) {
    return;  // no force (apart, or a normal force clamped at zero): nothing changes it
  }
  const double n[3] = {s->nout.x, s->nout.y, s->nout.z};
  double t[3] = {0, 0, 0};
  if (s->slip > 0) {
    t[0] = s->vtan.x / s->slip;
    t[1] = s->vtan.y / s->slip;
    t[2] = s->vtan.z / s->slip;
  }
  // the force is fn g, g = nout - mu t. Its derivative in the station's position (the
  // penetration x = -nout . station + const) is Ap, in the point's velocity (the rate
  // xdot = -nout . v, the slip velocity P v with P = 1 - nout nout^T) Av: the friction
  // fn mu(s) vt / s, s = |vt| (or sqrt(|vt|^2 + eps), smoothed), changes by
  // fn [(mu / s) (P - t t^T) + mu' t t^T] with t = vt / s (at no slip, fn mu' in every
  // tangential direction)
  double g[3];
  csMat33 Ap, Av;
  double across = s->slip > 0 ? s->mu / s->slip : s->dmu_dslip;
  for (int i = 0; i < 3; i++) {
    g[i] = n[i] - s->mu * t[i];
  }
  for (int i = 0; i < 3; i++) {
    for (int j = 0; j < 3; j++) {
      double P = (i == j) - n[i] * n[j];
      double tt = t[i] * t[j];
      Ap.m[i][j] = -s->dfn_dx * g[i] * n[j];
      Av.m[i][j] = -s->dfn_dxdot * g[i] * n[j] -
                   c->fn * (s->slip > 0 ? across * (P - tt) + s->dmu_dslip * tt : across * P);
    }
  }
  csu_pointForceBodyJacobian(d, body, c->point, s->station, s->nout, s->share, c->force, &Ap,
                             &Av, dQdX, dQdV);
}


void csu_pointForceBodyJacobian(const csData* d, int body, csVec3 point, csVec3 station,
                                csVec3 nout, double share, csVec3 force, const csMat33* Ap,
                                const csMat33* Av, double* dQdX, double* dQdV) {
  const double n[3] = {nout.x, nout.y, nout.z};
  // the body's motion (dtheta, dp_O): the station moves by ds = -[rs]x dtheta + dp_O, and the
  // point with it, less the share of the penetration's change the point takes along the normal
  // (a sphere's contact point stays below its centre as the body turns about it; a station's
  // slides along the normal with the penetration): the point's offset from the origin changes
  // by dr = Pm ds - dp_O, Pm = 1 - share nout nout^T. Its velocity v_O + w x rp changes by
  // -[rp]x dw + dv_O and, with the pose, by [w]x dr; the moment rp x F by [rp]x dF - [F]x dr.
  const csTransform* X = &d->body_pose[body];
  csVec3 rp = csu_sub(point, X->p), rs = csu_sub(station, X->p);
  csMat33 Rp = crossMatrix(rp), Rs = crossMatrix(rs), Fx = crossMatrix(force);
  csMat33 W = crossMatrix(d->body_vel[body].w), Pm;
  for (int i = 0; i < 3; i++) {
    for (int j = 0; j < 3; j++) {
      Pm.m[i][j] = (i == j) - share * n[i] * n[j];
    }
  }
  // Js = ds/d(theta, p_O) and Jr = dr/d(theta, p_O) (3 x 6)
  double Js[3][6], Jr[3][6];
  csMat33 PmRs = csu_mulMM(&Pm, &Rs);
  for (int i = 0; i < 3; i++) {
    for (int j = 0; j < 3; j++) {
      Js[i][j] = -Rs.m[i][j];
      Js[i][3 + j] = (i == j);
      Jr[i][j] = -PmRs.m[i][j];
      Jr[i][3 + j] = Pm.m[i][j] - (i == j);
    }
  }
  // the force's rows, dF/d(w, v_O) = Av [-[rp]x, 1] and dF/d(theta, p_O) = Ap Js + Av [w]x Jr
  double FV[3][6], FX[3][6];
  csMat33 AvW = csu_mulMM(Av, &W);
  for (int i = 0; i < 3; i++) {
    for (int j = 0; j < 6; j++) {
      double fv = 0, fx = 0;
      for (int k = 0; k < 3; k++) {
        fv += Av->m[i][k] * (j < 3 ? -Rp.m[k][j] : (k == j - 3));
        fx += Ap->m[i][k] * Js[k][j] + AvW.m[i][k] * Jr[k][j];
      }
      FV[i][j] = fv;
      FX[i][j] = fx;
    }
  }
  // the moment's rows, then the force's
  for (int i = 0; i < 3; i++) {
    for (int j = 0; j < 6; j++) {
      double mv = 0, mx = 0;
      for (int k = 0; k < 3; k++) {
        mv += Rp.m[i][k] * FV[k][j];
        mx += Rp.m[i][k] * FX[k][j] - Fx.m[i][k] * Jr[k][j];
      }
      dQdV[6 * i + j] += mv;
      dQdX[6 * i + j] += mx;
      dQdV[6 * (3 + i) + j] += FV[i][j];
      dQdX[6 * (3 + i) + j] += FX[i][j];
    }
  }
}


void csu_fillContactReport(const csContactEval* c, csContactReport* r, double* extra) {
  // the force acts at the contact point: no moment about it
  r->point = c->point;
  r->force.w = csu_vec3(0, 0, 0);
  r->force.v = c->force;
  r->pe = c->pe;
  r->power = c->power;
  // the extras in the order of cs_contactExtraNames
  extra[0] = c->x;
  extra[1] = c->xdot;
  extra[2] = c->fn;
  extra[3] = c->ff;
  extra[4] = c->slip;
}


// ---------------------------------------------------------------------------------------------
// friction variables and materials

const char* const cs_frictionNames[3] = {"mu_static", "mu_dynamic", "mu_viscous"};


void csu_setFriction(double* mu, int nmu, int index, double value) {
  // never negative (NaN fails the comparison too)
  if (!(value >= 0)) {
    value = 0;
  }
  // the coefficient being set wins; the other of the pair follows it
  if (index == CS_FRICTION_STATIC) {
    mu[CS_FRICTION_STATIC] = value;
    if (mu[CS_FRICTION_DYNAMIC] > value) {
      mu[CS_FRICTION_DYNAMIC] = value;
    }
  } else if (index == CS_FRICTION_DYNAMIC) {
    mu[CS_FRICTION_DYNAMIC] = value;
    if (mu[CS_FRICTION_STATIC] < value) {
      mu[CS_FRICTION_STATIC] = value;
    }
  } else if (index == CS_FRICTION_VISCOUS && nmu > CS_FRICTION_VISCOUS) {
    mu[CS_FRICTION_VISCOUS] = value;
  }
}


double csu_harmonicMean(double a, double b) {
  return (a + b > 0) ? 2 * a * b / (a + b) : 0;
}


int csu_materialGiven(const double* P, int slot) {
  for (int i = 0; i < CS_MAT_COUNT; i++) {
    if (!isnan(P[slot + i])) {
      return 1;
    }
  }
  return 0;
}


// an absent (NaN) optional value counts as 0
static double orZero(double v) {
  return isnan(v) ? 0 : v;
}


void csu_storePairMaterial(csForce* f, csPairMaterial mat) {
  f->derived[CS_DERIVED_K] = mat.k;
  f->derived[CS_DERIVED_C] = mat.c;
  f->derived[CS_DERIVED_S] = mat.s;
}


csPairMaterial csu_combineMaterials(const double* m1, const double* m2, double k1, double k2) {
  csPairMaterial r;
  r.s = k2 / (k1 + k2);
  r.k = k1 * r.s;
  r.c = orZero(m1[CS_MAT_C]) * r.s + orZero(m2[CS_MAT_C]) * (1 - r.s);
  r.us = csu_harmonicMean(orZero(m1[CS_MAT_US]), orZero(m2[CS_MAT_US]));
  r.ud = csu_harmonicMean(orZero(m1[CS_MAT_UD]), orZero(m2[CS_MAT_UD]));
  r.uv = csu_harmonicMean(orZero(m1[CS_MAT_UV]), orZero(m2[CS_MAT_UV]));
  return r;
}


int csu_checkFrictionOrder(const csForce* f, double us, double ud, const char* prefix,
                           csError* err) {
  if (!(ud > us)) {
    return 0;
  }
  char path[64];
  snprintf(path, sizeof(path), "%smu_dynamic", prefix);
  cs_setError(err, CS_ERR_INPUT, path,
              "contact '%s': %s (%g) must not exceed %smu_static (%g%s): friction does not rise "
              "as a contact starts to slide",
              f->name, path, ud, prefix, us, us == 0 ? ", or not given" : "");
  return -1;
}


int csu_checkMaterials(const csForce* f, const double* P, int slotEff, int slotBody, int slotPlane,
                       const char* kkey, csError* err) {
  // each set of coefficients in order: mu_dynamic <= mu_static (absent ones are 0)
  const int slots[3] = {slotEff, slotBody, slotPlane};
  const char* const prefixes[3] = {"", "body_material.", "plane_material."};
  for (int i = 0; i < 3; i++) {
    if (csu_checkFrictionOrder(f, orZero(P[slots[i] + CS_MAT_US]),
                               orZero(P[slots[i] + CS_MAT_UD]), prefixes[i], err)) {
      return -1;
    }
  }
  static const char* const names[CS_MAT_COUNT] = {NULL, "dissipation", "mu_static",
                                                  "mu_dynamic", "mu_viscous"};
  int pair = csu_materialGiven(P, slotBody) || csu_materialGiven(P, slotPlane);
  if (pair) {
    // no effective value beside the surfaces'
    for (int i = 0; i < CS_MAT_COUNT; i++) {
      if (!isnan(P[slotEff + i])) {
        const char* key = i == CS_MAT_K ? kkey : names[i];
        cs_setError(err, CS_ERR_INPUT, key,
                    "contact '%s': give either the effective %s or body_material and "
                    "plane_material, not both",
                    f->name, key);
        return -1;
      }
    }
    // both surfaces with their stiffness
    char path[64];
    if (isnan(P[slotBody + CS_MAT_K])) {
      snprintf(path, sizeof(path), "body_material.%s", kkey);
      cs_setError(err, CS_ERR_INPUT, path, "contact '%s': body_material needs a %s", f->name,
                  kkey);
      return -1;
    }
    if (isnan(P[slotPlane + CS_MAT_K])) {
      snprintf(path, sizeof(path), "plane_material.%s", kkey);
      cs_setError(err, CS_ERR_INPUT, path, "contact '%s': plane_material needs a %s", f->name,
                  kkey);
      return -1;
    }
  } else if (isnan(P[slotEff + CS_MAT_K])) {
    cs_setError(err, CS_ERR_INPUT, kkey,
                "contact '%s' needs a %s (or body_material and plane_material)", f->name, kkey);
    return -1;
  }
  return 0;
}
