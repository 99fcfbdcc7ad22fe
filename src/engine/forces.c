// forces.c: the dynamics stage. Zero the accumulators, let every force element add its forces,
// and the services force elements share (applying forces, energies, reports, discrete and
// auto-update variables).
//
// The stage and the commit of auto-updates run over the active lists (d->act_*), not the whole
// model: while the integrator advances one coupled group only that group's bodies and elements are
// touched, so a step of one group costs the same however many other groups there are. Elements
// that act on every body (gravity) are in every group's list and loop over the active bodies.
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "engine/assert.h"
#include "contactsim/contactsim.h"
#include "engine/dynamics.h"
#include "engine/forces.h"

// The active elements' forces, energies and powers, and the z rates: each element's apply, or on
// the planar right-hand side its planarApply
static void applyElements(const csModel* m, csData* d, int planar) {
  // the elements' z rates, including each dissipated-energy integral
  if (d->act_force == d->all_force && d->nact_force == m->nforce) {
    memset(d->zdot, 0, sizeof(double) * (size_t)m->nz);
  } else {
    for (int i = 0; i < d->nact_force; i++) {
      const csForce* f = &m->force[d->act_force[i]];
      if (f->dissadr >= 0) {
        d->zdot[f->dissadr] = 0;
      }
      memset(d->zdot + f->zadr, 0, sizeof(double) * (size_t)f->znum);
    }
  }
  // each element: energy and power start at zero so that a kind sets only what it has; the
  // dissipated-energy state integrates the power the element reports (>= 0 when it dissipates)
  for (int i = 0; i < d->nact_force; i++) {
    int e = d->act_force[i];
    const csForce* f = &m->force[e];
    d->force_pe[e] = 0;
    d->force_power[e] = 0;
    const csForceKind* k = cs_forceKind(f->kind);
    (planar ? k->planarApply : k->apply)(m, d, e);
    if (f->dissadr >= 0) {
      d->zdot[f->dissadr] += d->force_power[e];  // shared by the elements of one home body
    }
  }
}


// The dynamics stage. Accumulators are zeroed here rather than by each element so that elements
// only ever add: several elements on one body, or one element on two bodies, sum without knowing
// about each other.
void cs_realizeDynamics(const csModel* m, csData* d) {
  // already realized for this state (cs_invalidate resets the marker)
  if (d->stage >= CS_STAGE_DYNAMICS) {
    return;
  }
  // count real evaluations only, then make sure positions and velocities are realized
  d->stat.nstage[2]++;
  cs_realizeVelocity(m, d);
  // zero the accumulators of what is active: whole arrays at once when everything is
  if (d->act_body == d->all_body && d->nact_body == m->nbody - 1) {
    memset(d->body_force, 0, sizeof(csSpatialVec) * (size_t)m->nbody);
    memset(d->mobility_force, 0, sizeof(double) * (size_t)m->nu);
  } else {
    for (int i = 0; i < d->nact_body; i++) {
      const csBody* body = &m->body[d->act_body[i]];
      memset(&d->body_force[d->act_body[i]], 0, sizeof(csSpatialVec));
      memset(d->mobility_force + body->uadr, 0, sizeof(double) * (size_t)body->unum);
    }
  }
  applyElements(m, d, 0);
  d->stage = CS_STAGE_DYNAMICS;
}


// The planar right-hand side's dynamics stage (engine/dynamics.h): the active links' plane forces
// and generalized forces start at zero, then the elements add theirs
void cs_planarForces(const csModel* m, csData* d) {
  for (int i = 0; i < d->nact_body; i++) {
    int b = d->act_body[i];
    double* f = d->aba_k2 + CS_K2_SIZE * b + CS_K2_F;
    f[0] = f[1] = f[2] = 0;
    d->mobility_force[m->body[b].uadr] = 0;
  }
  applyElements(m, d, 1);
}


// 1, counted in the statistics, when an active acceleration or z rate is not finite, else 0
static int nonfinite(const csModel* m, csData* d) {
  // a non-finite acceleration or dissipation rate anywhere active; over whole arrays when
  // everything is active, as a sum of x * 0, which is NaN exactly when some x is not finite
  if (d->act_body == d->all_body && d->nact_body == m->nbody - 1 && d->act_force == d->all_force &&
      d->nact_force == m->nforce) {
    double probe = 0;
    for (int i = 0; i < m->nu; i++) {
      probe += d->udot[i] * 0.0;
    }
    for (int i = 0; i < m->nz; i++) {
      probe += d->zdot[i] * 0.0;
    }
    if (probe == 0) {
      return 0;
    }
    d->stat.warnings_nonfinite++;
    return 1;
  }
  int finite = 1;
  for (int i = 0; i < d->nact_body; i++) {
    const csBody* body = &m->body[d->act_body[i]];
    for (int k = 0; k < body->unum; k++) {
      finite &= isfinite(d->udot[body->uadr + k]);
    }
  }
  for (int i = 0; i < d->nact_force; i++) {
    const csForce* f = &m->force[d->act_force[i]];
    if (f->dissadr >= 0) {
      finite &= isfinite(d->zdot[f->dissadr]);
    }
    for (int k = 0; k < f->znum; k++) {
      finite &= isfinite(d->zdot[f->zadr + k]);
    }
  }
  // counted, so that a run's statistics show how often it happened
  if (!finite) {
    d->stat.warnings_nonfinite++;
    return 1;
  }
  return 0;
}


// The whole right-hand side at the current state: accelerations and z rates. 1 when a rate is not
// finite, which the integrator treats as a recoverable failure (CVODE retries with a smaller step)
// instead of letting a NaN into its history.
int cs_forward(const csModel* m, csData* d) {
  cs_realizeAcceleration(m, d);
  return nonfinite(m, d);
}


// The rates alone (the integrator's right-hand side): the planar right-hand side's when the model
// takes it, which realizes no stage (engine/dynamics.h); the same return
int cs_rates(const csModel* m, csData* d) {
  cs_realizeRates(m, d);
  return nonfinite(m, d);
}


// Forces at a point and pure moments into a body's accumulator; anything applied to ground is
// dropped (the code is in engine/forces.h, inline for the library's own force kinds).
void cs_applyForceAtPoint(const csModel* m, csData* d, int body, csVec3 point_G, csVec3 force_G) {
  csu_applyForceAtPoint(m, d, body, point_G, force_G);
}


void cs_applyTorque(const csModel* m, csData* d, int body, csVec3 torque_G) {
  csu_applyTorque(m, d, body, torque_G);
}


// Totals over all elements. Potential energies are those of the last dynamics stage; dissipated
// energies are state variables (z), so they are current without realizing anything. Their sum
// with the kinetic energy is conserved, which the tests use.
double cs_potentialEnergy(const csModel* m, const csData* d) {
  double pe = 0;
  for (int e = 0; e < m->nforce; e++) {
    pe += d->force_pe[e];
  }
  return pe;
}


double cs_dissipatedEnergy(const csModel* m, const csData* d) {
  // each dissipated-energy state once (several elements may add to one)
  double w = 0;
  for (int i = 0; i < m->ndiss; i++) {
    w += d->z[m->diss_z[i]];
  }
  return w;
}


// Set a discrete variable. A kind with a setDiscrete callback keeps related variables consistent
// (mu_k <= mu_s for friction, lower <= upper for a stop); otherwise the value is stored as is.
// Realized values depended on the old value, hence the invalidation.
void cs_setDiscrete(const csModel* m, csData* d, int e, int index, double value) {
  CS_ASSERT(e >= 0 && e < m->nforce, "cs_setDiscrete was given a force element id that does "
                                      "not exist in the model");
  const csForce* f = &m->force[e];
  const csForceKind* k = cs_forceKind(f->kind);
  CS_ASSERT(index >= 0 && index < f->discnum, "cs_setDiscrete was given a discrete variable "
                                              "index the element does not have");
  if (k->setDiscrete) {
    k->setDiscrete(m, d, e, index, value);
  } else {
    d->disc[f->discadr + index] = value;
  }
  cs_invalidate(d);
}


const csParamInfo* cs_paramOfVariable(const csForceKind* k, const char* name) {
  for (int i = 0; name && i < k->nparams; i++) {
    if (k->params[i].type == CS_PARAM_REAL && strcmp(k->params[i].key, name) == 0) {
      return &k->params[i];
    }
  }
  return NULL;
}


int cs_autoProblem(const csModel* m, int e, int index, double value, char* why, size_t size) {
  const csForce* f = &m->force[e];
  const csForceKind* k = cs_forceKind(f->kind);
  double lo = k->autorange ? k->autorange[index][0] : -INFINITY;
  double hi = k->autorange ? k->autorange[index][1] : INFINITY;
  if (isfinite(value) && value >= lo - 1e-9 * fmax(1.0, fabs(lo)) &&
      value <= hi + 1e-9 * fmax(1.0, fabs(hi))) {
    return 0;
  }
  char range[64] = "finite";
  if (isfinite(lo) || isfinite(hi)) {
    snprintf(range, sizeof(range), "in [%g, %g] (to within 1e-9)", lo, hi);
  }
  // every digit: a value just past the range (1 + 4e-9) read "not 1" with %g
  snprintf(why, size, "%s of '%s' must be %s, not %.17g",
           k->autonames ? k->autonames[index] : "an auto-update value", f->name, range, value);
  return -1;
}


int cs_infiniteEnergy(const csModel* m, const csData* d, int* body) {
  double ke = cs_kineticEnergy(m, d), pe = 0;
  for (int b = 1; b < m->nbody; b++) {
    pe += m->body[b].mass * fabs(csu_dot(d->body_com[b], m->gravity));
  }
  *body = 0;
  if (isfinite(ke) && isfinite(pe)) {
    return 0;
  }
  // the first body whose own share is out of range: speeds for the kinetic energy, height
  // along gravity for the potential
  for (int b = 1; b < m->nbody && !*body; b++) {
    const csSpatialVec* V = &d->body_vel[b];
    double v2 = csu_dot(V->v, V->v) + csu_dot(V->w, V->w);
    double share = !isfinite(ke) ? m->body[b].mass * v2
                                 : m->body[b].mass * csu_dot(d->body_com[b], m->gravity);
    *body = isfinite(share) ? 0 : b;
  }
  return isfinite(ke) ? 'p' : 'k';
}


// Whether bounds on the kinetic and gravitational potential energy of the state (q, u), found
// without realizing it, are finite with room to spare. Every body's centre of mass lies within
// R of Ground's origin, R the sum of every |q| (translations, and the angles and quaternions,
// which only add to it) and every body's fixed offsets (its mobilizer frames and its centre of
// mass); every angular speed is at most U, the sum of every |u|, and every point's speed at most
// U (1 + 2 R). So PE <= M |g| R and KE <= (M (U (1 + 2 R))^2 + the inertias' traces U^2) / 2.
static int energyBoundFinite(const csModel* m, const double* q, const double* u) {
  double Q = 0, U = 0, L = 0, M = 0, I = 0;
  for (int i = 0; i < m->nq; i++) {
    Q += fabs(q[i]);
  }
  for (int i = 0; i < m->nu; i++) {
    U += fabs(u[i]);
  }
  for (int b = 1; b < m->nbody; b++) {
    const csBody* body = &m->body[b];
    L += csu_norm(body->X_PF.p) + csu_norm(body->X_BM.p) + csu_norm(body->com);
    M += body->mass;
    I += body->inertia.m[0][0] + body->inertia.m[1][1] + body->inertia.m[2][2];
  }
  double R = Q + L, v = U * (1 + 2 * R);
  double pe = M * csu_norm(m->gravity) * R, ke = 0.5 * (M * v * v + I * U * U);
  return pe < 1e300 && ke < 1e300;  // false for inf and NaN too
}


int cs_infiniteEnergyOf(const csModel* m, const double* q, const double* u, int* body) {
  // the bound settles nearly every state: a large model edited at every step from Python made
  // data of its own to realize each edit, as long as a step
  *body = 0;
  if (energyBoundFinite(m, q, u)) {
    return 0;
  }
  csData* probe = cs_makeData(m);
  if (!probe) {
    return -1;
  }
  memcpy(probe->q, q, sizeof(double) * (size_t)m->nq);
  memcpy(probe->u, u, sizeof(double) * (size_t)m->nu);
  cs_invalidate(probe);
  cs_realizeVelocity(m, probe);
  int which = cs_infiniteEnergy(m, probe, body);
  cs_deleteData(probe);
  return which;
}


int cs_zeroQuaternionBody(const csModel* m, const double* q) {
  for (int b = 1; b < m->nbody; b++) {
    const csBody* body = &m->body[b];
    const double* e = q + body->qadr;
    // each entry, not the sum of squares, which underflows for (1e-170, 1e-170, 0, 0)
    if ((body->joint == CS_JOINT_BALL || body->joint == CS_JOINT_FREE) && e[0] == 0 &&
        e[1] == 0 && e[2] == 0 && e[3] == 0) {
      return b;
    }
  }
  return 0;
}


// The length of e[0..3] / big, with big its largest entry in magnitude (returned in *big): the
// scaling keeps the squares from overflowing (1e200, 1.7e308) or underflowing (1e-170). NAN
// when e is zero or not finite.
static double scaledLength(const double* e, double* big) {
  *big = fmax(fmax(fabs(e[0]), fabs(e[1])), fmax(fabs(e[2]), fabs(e[3])));
  if (!(*big > 0) || !isfinite(*big)) {
    return NAN;
  }
  double s = 0;
  for (int i = 0; i < 4; i++) {
    s += (e[i] / *big) * (e[i] / *big);
  }
  return sqrt(s);
}


double cs_quaternionNorm(const double* e) {
  double big;
  double r = scaledLength(e, &big);
  return isnan(r) ? big : big * r;
}


int cs_quaternionNormalize(double* e) {
  double big;
  double r = scaledLength(e, &big);
  if (isnan(r)) {
    return -1;
  }
  // by the largest entry, then by the scaled length: big * r overflows for 1.7e308 twice
  for (int i = 0; i < 4; i++) {
    e[i] = (e[i] / big) / r;
  }
  return 0;
}


int cs_nonUnitQuaternionBody(const csModel* m, const double* q, double tol, double* norm) {
  for (int b = 1; b < m->nbody; b++) {
    const csBody* body = &m->body[b];
    if (body->joint == CS_JOINT_BALL || body->joint == CS_JOINT_FREE) {
      double n = cs_quaternionNorm(q + body->qadr);
      if (!(fabs(n - 1) <= tol)) {
        *norm = n;
        return b;
      }
    }
  }
  return 0;
}


int cs_discreteProblem(const csModel* m, int e, int index, double value, char* why,
                       size_t size) {
  const csForce* f = &m->force[e];
  const csForceKind* k = cs_forceKind(f->kind);
  const char* name = k->discnames ? k->discnames[index] : "?";
  const csParamInfo* p = k->discnames ? cs_paramOfVariable(k, k->discnames[index]) : NULL;
  int sign = p ? p->flags & (CS_PARAM_POSITIVE | CS_PARAM_NONNEG) : 0;
  if (isnan(value)) {
    snprintf(why, size, "%s of '%s' is not a number", name, f->name);
    return -1;
  }
  if (sign && (!isfinite(value) || value < 0 || ((sign & CS_PARAM_POSITIVE) && value == 0))) {
    snprintf(why, size, "%s of '%s' must be finite and %s, not %g", name, f->name,
             (sign & CS_PARAM_POSITIVE) ? "> 0" : ">= 0", value);
    return -1;
  }
  // an infinite value only where it stands for a value left out (a linear stop's bound: -inf
  // below, +inf above), as the kind's rules make of one; the other infinity no scene can give
  // (a lower bound at +inf held the stop against every q and the run failed at once). Rare
  // enough to ask the rules on scratch values.
  if (isinf(value) && !sign && k->setDiscrete) {
    size_t n = (size_t)f->discadr + (size_t)f->discnum;
    double* scratch = csu_malloc(sizeof(double) * n);
    if (scratch) {
      for (size_t i = 0; i < n; i++) {
        scratch[i] = NAN;
      }
      csData d;
      memset(&d, 0, sizeof(d));
      d.disc = scratch;
      k->setDiscrete(m, &d, e, index, NAN);
      double absent = scratch[f->discadr + index];
      csu_free(scratch, sizeof(double) * n);
      if (value != absent) {
        snprintf(why, size, "%s of '%s' must be finite (or %g, for none), not %g", name,
                 f->name, absent, value);
        return -1;
      }
    }
  }
  return 0;
}


int cs_elementStateProblem(const csModel* m, double* disc, const double* autoval, int e,
                           char* why, size_t size) {
  return cs_elementStateProblemAt(m, disc, autoval, e, why, size, NULL);
}


int cs_elementStateProblemAt(const csModel* m, double* disc, const double* autoval, int e,
                             char* why, size_t size, int* at) {
  const csForce* f = &m->force[e];
  const csForceKind* k = cs_forceKind(f->kind);
  double* v = disc + f->discadr;
  int where = 0;
  if (!at) {
    at = &where;
  }
  for (int i = 0; i < f->discnum; i++) {
    if (cs_discreteProblem(m, e, i, v[i], why, size) != 0) {
      *at = i;
      return -1;
    }
  }
  // together: setting each value in turn by the kind's rules leaves them all as they are
  if (k->setDiscrete && f->discnum <= CS_MAX_PARAM) {
    double saved[CS_MAX_PARAM];
    memcpy(saved, v, sizeof(double) * (size_t)f->discnum);
    csData scratch;
    memset(&scratch, 0, sizeof(scratch));
    scratch.disc = disc;
    int moved = -1, by = -1;
    for (int i = 0; i < f->discnum && moved < 0; i++) {
      k->setDiscrete(m, &scratch, e, i, saved[i]);
      for (int j = 0; j < f->discnum && moved < 0; j++) {
        // beyond rounding: materials combined by a harmonic mean can leave mu_dynamic an ulp
        // above mu_static, which the kind's rules would move by as much
        // (only between finite values: an infinite bound moved is moved)
        double scale = fmax(1.0, fmax(fabs(v[j]), fabs(saved[j])));
        int rounding = isfinite(v[j]) && isfinite(saved[j]) &&
                       fabs(v[j] - saved[j]) <= 1e-12 * scale;
        if (!rounding && v[j] != saved[j] && !(isnan(v[j]) && isnan(saved[j]))) {
          moved = j;
          by = i;
        }
      }
    }
    memcpy(v, saved, sizeof(double) * (size_t)f->discnum);
    if (moved >= 0) {
      *at = by;
      snprintf(why, size, "%s = %g and %s = %g of '%s' contradict each other (the rules of "
               "%s would change %s)", k->discnames[by], saved[by], k->discnames[moved],
               saved[moved], f->name, k->name, k->discnames[moved]);
      return -1;
    }
  }
  for (int i = 0; i < f->autonum; i++) {
    if (cs_autoProblem(m, e, i, autoval[f->autoadr + i], why, size) != 0) {
      *at = f->discnum + i;
      return -1;
    }
  }
  return 0;
}


// The report of a contact element; -1 for kinds without a report callback. Realized to dynamics
// first so that the report sees the same state the element's apply saw.
int cs_contactReport(const csModel* m, csData* d, int e, csContactReport* r) {
  const csForceKind* k = cs_forceKind(m->force[e].kind);
  memset(r, 0, sizeof(*r));
  if (!k->report) {
    return -1;
  }
  cs_realizeDynamics(m, d);
  k->report(m, d, e, r, d->force_extra + m->force[e].repadr);
  return 0;
}


// Commit auto-update variables at the end of a successful step (seed 000, auto-update discrete
// states: changes go to an update cache, and the integrator moves the cache into the state after a
// successful step). The right-hand side therefore sees values that stay fixed through a step, and
// rejected trial steps leave no trace.
void cs_commitAutoUpdates(const csModel* m, csData* d) {
  // no auto-update variables: nothing to commit
  if (m->nauto == 0) {
    d->stat.ncommit++;  // a commit point all the same: the count stays one per step
    return;
  }
  // updates read the realized state at the end of the step
  cs_realizeDynamics(m, d);
  // the cache starts as the current values, each active element writes its new ones, and the
  // cache is committed; only active elements' ranges are touched (one group's step costs the
  // same however many other groups there are)
  for (int i = 0; i < d->nact_force; i++) {
    const csForce* f = &m->force[d->act_force[i]];
    memcpy(d->auto_cache + f->autoadr, d->autoval + f->autoadr,
           sizeof(double) * (size_t)f->autonum);
  }
  // each element writes its new values into the cache, still reading the old ones from autoval;
  // auto_dt is the time since the element's own last commit, the length of the step just taken
  // (its group's: groups step apart, and a checkpoint keeps each element's time)
  for (int i = 0; i < d->nact_force; i++) {
    int e = d->act_force[i];
    const csForceKind* k = cs_forceKind(m->force[e].kind);
    if (k->update) {
      d->auto_dt = d->t - d->commit_t[e];
      k->update(m, d, e);
    }
    d->commit_t[e] = d->t;
  }
  // commit: the cache becomes the values used from now on
  for (int i = 0; i < d->nact_force; i++) {
    const csForce* f = &m->force[d->act_force[i]];
    memcpy(d->autoval + f->autoadr, d->auto_cache + f->autoadr,
           sizeof(double) * (size_t)f->autonum);
  }
  d->stat.ncommit++;
  // the right-hand side depends on the committed values
  cs_invalidate(d);
}
