// metrics.c: per-step contact statistics of a run (penetration, normal forces, sliding, drift
// while stuck, energy balance) and diagnostics in plain words about parameters that make a
// contact model misbehave.
//
// Every contact element is described by the slot convention of forces.h (touching body, plane,
// station or sphere centre, sphere radius); every other parameter is read by its scene key
// through the kind's parameter table, so this file knows no kind's private layout.
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "engine/forces.h"
#include "engine/metrics.h"


// look the key up in the kind's table instead of hard-coding slots: this file then serves every
// contact kind, including ones added later, and a kind without the key yields NAN, never a
// value read from an unrelated slot
double cs_metricsParam(const csForce* f, const char* key) {
  const csForceKind* k = cs_forceKind(f->kind);
  for (int i = 0; k && i < k->nparams; i++) {
    if (k->params[i].type == CS_PARAM_REAL && strcmp(k->params[i].key, key) == 0) {
      return f->param[k->params[i].slot];
    }
  }
  return NAN;
}


// append one diagnostic; past CS_METRICS_MAX_NOTES the rest are dropped, since a run with that
// many problems is already plainly misconfigured and the first notes are the useful ones
void cs_metricsNote(csMetrics* mt, const char* fmt, ...) {
  if (mt->nnotes >= CS_METRICS_MAX_NOTES) {
    return;
  }
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(mt->notes[mt->nnotes++], CS_METRICS_NOTE_LEN, fmt, ap);
  va_end(ap);
}


// the name a contact goes by in messages: its set, or the element itself
static const char* contactName(const csModel* m, int e) {
  int g = m->force[e].group;
  return g >= 0 ? m->group_name[g] : m->force[e].name;
}


// What one contact element looks like at the realized state: normal force along the plane's
// +z, height h of the station (sphere centre) above the plane, penetration, the station in the
// plane frame and the slip velocity of the material point at the contact, in the plane frame.
typedef struct contactSample {
  double fn;               // N
  double penetration;      // m
  double xy[2];            // station in the plane frame, m
  double slip[2];          // tangential slip velocity in the plane frame, m/s
} contactSample;


// fill s for contact c from the data (realized to dynamics, which the contact report needs);
// reads only, allocates nothing, so it is safe inside the per-step callback
static void sampleContact(const csModel* m, csData* d, const csMetricsContact* c,
                          contactSample* s) {
  const csForce* f = &m->force[c->force];
  const csTransform* X_GP = &d->plane_pose[c->plane];
  // the plane's +z axis in Ground is the contact normal for point and sphere kinds alike
  csVec3 n_G = csu_column(&X_GP->R, 2);

  // normal force: the contact report's force on the touching body along the plane normal
  csContactReport r;
  cs_contactReport(m, d, c->force, &r);
  s->fn = csu_dot(r.force.v, n_G);

  // height of the station (or sphere centre) in the plane frame
  csVec3 station_B = csu_vec3FromArray(f->param + CS_SLOT_STATION);
  csVec3 station_G = cs_stationPosition(m, d, c->body, station_B);
  csVec3 p_P = csu_mulMtV(&X_GP->R, csu_sub(station_G, X_GP->p));
  double h = p_P.z;
  // penetration is never negative: a contact that has lifted off counts as zero
  s->penetration = c->sphere ? fmax(0.0, c->radius - h) : fmax(0.0, -h);
  s->xy[0] = p_P.x;
  s->xy[1] = p_P.y;

  // slip: velocity of the body's material point at the contact relative to the plane's point
  // there (the lowest point of a sphere; the station itself for point kinds)
  csVec3 point_G = c->sphere ? csu_addScaled(station_G, -c->radius, n_G) : station_G;
  csVec3 v_G = csu_sub(cs_pointVelocity(m, d, c->body, point_G),
                       cs_pointVelocity(m, d, m->plane[c->plane].body, point_G));
  csVec3 v_P = csu_mulMtV(&X_GP->R, v_G);
  s->slip[0] = v_P.x;
  s->slip[1] = v_P.y;
}


// Exponential springs: with Sliding = 1 the friction is a pure damper, so a block on a slope
// slides at the speed where n cxy v balances m g sin(theta). If that speed exceeds v_settle the
// anchors never settle (Sliding stays 1) and the block creeps instead of sticking; this happens
// when cxy is low, below the critical damping of the body's share of mass on the friction
// spring (seeds/000, "Friction Force" and "Coefficients of Friction and the Sliding State").
static void checkExpSprings(csMetrics* mt, const csModel* m, const csData* d) {
  // without gravity there is no slope, so no creep to predict
  double g = csu_norm(m->gravity);
  if (!(g > 0)) {
    return;
  }
  // "up" points against gravity; the slope of a plane is measured from it
  csVec3 up = csu_scale(-1.0 / g, m->gravity);
  for (int e = 0; e < m->nforce; e++) {
    const csForce* f = &m->force[e];
    if (f->kind != CS_FORCE_EXP_SPRING) {
      continue;
    }
    int body = f->ref[CS_REF_BODY], plane = f->ref[CS_REF_PLANE];
    // one message per body and plane: skip pairs already checked; count the body's springs
    int seen = 0, n = 0;
    for (int o = 0; o < m->nforce; o++) {
      const csForce* fo = &m->force[o];
      if (fo->kind == CS_FORCE_EXP_SPRING && fo->ref[CS_REF_BODY] == body) {
        n++;
        seen |= o < e && fo->ref[CS_REF_PLANE] == plane;
      }
    }
    if (seen || body <= 0 || body >= m->nbody) {
      continue;
    }
    // the body's mass shared evenly by its n springs, and the damping the scene really gives
    // (mass_for_damping replaces cxy by critical damping of that mass, as the kind itself does)
    double mass = m->body[body].mass;
    double kxy = cs_metricsParam(f, "kxy"), cxy = cs_metricsParam(f, "cxy");
    double massForDamping = cs_metricsParam(f, "mass_for_damping");
    if (!isnan(massForDamping)) {
      cxy = 2.0 * sqrt(kxy * massForDamping);
    }
    double vsettle = cs_metricsParam(f, "v_settle");
    double muk = cs_metricsParam(f, "mu_dynamic");
    double share = mass / n;
    double critical = 2.0 * sqrt(kxy * share);
    // slope of the plane at the start: the angle between its normal and "up"
    double cosTheta = csu_dot(csu_column(&d->plane_pose[plane].R, 2), up);
    if (!(cosTheta > 0) || !(cxy >= 0) || !(kxy > 0)) {
      continue;
    }
    // creep speed: n purely viscous friction dampers balancing the downhill pull of gravity
    double sinTheta = sqrt(fmax(0.0, 1.0 - cosTheta * cosTheta));
    double creep = cxy > 0 ? mass * g * sinTheta / (n * cxy) : INFINITY;
    // a slope steeper than the kinetic friction angle slides for real: nothing to report
    if (!(cxy < critical) || !(creep > vsettle) || !(sinTheta < muk * cosTheta)) {
      continue;
    }
    // the cure: damping at least critical and high enough to keep the creep below v_settle
    mt->creep_speed = fmax(mt->creep_speed, creep);
    double needed = fmax(critical, mass * g * sinTheta / (n * vsettle));
    cs_metricsNote(mt,
            "exponential springs '%s' on body '%s': friction damping cxy = %.3g N s/m is below "
            "critical, 2 sqrt(kxy m/n) = %.3g N s/m for the body's share of mass (%.3g kg over %d "
            "springs); on the %.1f degree slope of plane '%s' once it slides the block creeps "
            "downhill at about m g sin(theta) / (n cxy) = %.3g m/s, faster than v_settle = "
            "%.3g m/s, so it never settles into static friction; raise cxy to at least %.3g "
            "N s/m (or give mass_for_damping = %.3g kg)",
            contactName(m, e), m->body[body].name, cxy, critical, mass, n,
            acos(fmin(1.0, cosTheta)) * 180.0 / acos(-1.0), m->plane[plane].name, creep, vsettle,
            needed, needed * needed / (4.0 * kxy));
  }
}


int cs_metricsInit(csMetrics* mt, const csModel* m, csData* d) {
  // zero everything first, so that cs_metricsFree works whatever fails below
  memset(mt, 0, sizeof(*mt));
  // the contact elements and their sets
  int n = 0;
  for (int e = 0; e < m->nforce; e++) {
    const csForceKind* k = cs_forceKind(m->force[e].kind);
    n += k->contact != CS_CONTACT_NONE && k->report != NULL;
  }
  mt->ncontact = n;
  mt->nset = m->ngroup;
  // one block per array, sized +1 so that a model without contacts or sets still gets valid
  // pointers; set_peak shares the block of set_fn
  mt->contact = csu_malloc(sizeof(csMetricsContact) * (size_t)(n + 1));
  mt->set_fn = csu_malloc(sizeof(double) * (size_t)(2 * mt->nset + 1));
  mt->nforce = m->nforce;
  mt->contact_of = csu_malloc(sizeof(int) * (size_t)(m->nforce + 1));
  if (!mt->contact || !mt->set_fn || !mt->contact_of) {
    cs_metricsFree(mt);
    return -1;
  }
  mt->set_peak = mt->set_fn + mt->nset;
  for (int s = 0; s < mt->nset; s++) {
    mt->set_fn[s] = mt->set_peak[s] = 0;
  }
  // one record per contact element: geometry from the slot convention of forces.h
  double g = csu_norm(m->gravity);
  mt->stick_speed = CS_METRICS_STICK_SPEED;
  int hasExp = 0;
  int i = 0;
  for (int e = 0; e < m->nforce; e++) {
    const csForce* f = &m->force[e];
    const csForceKind* k = cs_forceKind(f->kind);
    if (k->contact == CS_CONTACT_NONE || !k->report) {
      continue;
    }
    csMetricsContact* c = &mt->contact[i++];
    memset(c, 0, sizeof(*c));
    c->force = e;
    c->body = f->ref[CS_REF_BODY];
    c->plane = f->ref[CS_REF_PLANE];
    c->set = f->group;
    c->sphere = k->contact == CS_CONTACT_SPHERE;
    c->radius = c->sphere ? f->param[CS_SLOT_RADIUS] : 0.0;
    // a contact counts as loaded above a thousandth of its body's weight (at least 1 micronewton),
    // so that a grazing touch of a soft model is not taken for sliding under load
    double mass = c->body > 0 && c->body < m->nbody ? m->body[c->body].mass : 0.0;
    c->loaded_above = fmax(1e-3 * mass * g, 1e-6);
    // exponential springs settle below v_settle: that is their notion of stuck
    if (f->kind == CS_FORCE_EXP_SPRING) {
      double vs = cs_metricsParam(f, "v_settle");
      if (vs > 0) {
        mt->stick_speed = hasExp ? fmin(mt->stick_speed, vs) : vs;
        hasExp = 1;
      }
    }
  }

  // the initial energy and contact positions
  cs_realizeDynamics(m, d);
  double ke = cs_kineticEnergy(m, d), pe = cs_potentialEnergy(m, d);
  mt->e0 = ke + pe + cs_dissipatedEnergy(m, d);
  mt->escale = fmax(fmax(fabs(mt->e0), ke + fabs(pe)), 1e-12);
  for (int j = 0; j < mt->ncontact; j++) {
    csMetricsContact* c = &mt->contact[j];
    contactSample s;
    sampleContact(m, d, c, &s);
    c->prev_xy[0] = s.xy[0];
    c->prev_xy[1] = s.xy[1];
    c->prev_slip[0] = s.slip[0];
    c->prev_slip[1] = s.slip[1];
    c->t_prev = d->t;
  }
  // map force element -> contact record, so that a step's active elements find their records
  for (int e = 0; e < m->nforce; e++) {
    mt->contact_of[e] = -1;
  }
  for (int j = 0; j < mt->ncontact; j++) {
    mt->contact_of[mt->contact[j].force] = j;
  }
  // parameter checks that depend only on the model and the initial pose
  checkExpSprings(mt, m, d);
  return 0;
}


// Peaks of the normal force (per element and per set) and of the penetration at one instant;
// with step = 1 also the sliding since the previous step's end.
//
// Sliding: per step, the mean over the loaded contacts of how far each contact point moved
// along the plane since the previous step's end. For a point kind that is the station's
// tangential displacement in the plane frame; for a sphere it is the slip of the material point
// at the contact (trapezoidal rule on the slip velocity), so that rolling without slipping
// counts as no sliding. A step counts as stuck when the mean slip speed of the loaded contacts
// at its end is below the stick speed.
static void sampleAll(csMetrics* mt, const csModel* m, csData* d, int step) {
  double distance = 0, speed = 0;
  int loaded = 0;
  // after a step, the contacts of the group that took it (the active force elements); at a
  // report, every contact. Only the sets these contacts belong to are touched, so that a step of
  // one block among a thousand costs that block's contacts and not every set of the scene.
  int n = step ? d->nact_force : mt->ncontact;
  // the totals of the sets concerned are summed afresh at every sample
  for (int k = 0; k < n; k++) {
    int i = step ? mt->contact_of[d->act_force[k]] : k;
    if (i >= 0 && mt->contact[i].set >= 0) {
      mt->set_fn[mt->contact[i].set] = 0;
    }
  }
  for (int k = 0; k < n; k++) {
    int i = step ? mt->contact_of[d->act_force[k]] : k;
    if (i < 0) {
      continue;
    }
    csMetricsContact* c = &mt->contact[i];
    contactSample s;
    sampleContact(m, d, c, &s);
    c->peak_fn = fmax(c->peak_fn, s.fn);
    c->max_penetration = fmax(c->max_penetration, s.penetration);
    mt->max_penetration = fmax(mt->max_penetration, s.penetration);
    if (c->set >= 0) {
      mt->set_fn[c->set] += s.fn;
    } else {
      mt->peak_normal_force = fmax(mt->peak_normal_force, s.fn);
    }
    if (!step) {
      continue;
    }
    // tangential displacement of the contact point since the previous step
    double dt = d->t - c->t_prev;
    double dx, dy;
    if (c->sphere) {
      dx = 0.5 * (c->prev_slip[0] + s.slip[0]) * dt;
      dy = 0.5 * (c->prev_slip[1] + s.slip[1]) * dt;
    } else {
      dx = s.xy[0] - c->prev_xy[0];
      dy = s.xy[1] - c->prev_xy[1];
    }
    // only loaded contacts count: a station in the air moves freely and slides on nothing
    if (s.fn > c->loaded_above) {
      distance += hypot(dx, dy);
      speed += hypot(s.slip[0], s.slip[1]);
      loaded++;
    }
    // this sample is the reference for the next step of the contact's group
    c->prev_xy[0] = s.xy[0];
    c->prev_xy[1] = s.xy[1];
    c->prev_slip[0] = s.slip[0];
    c->prev_slip[1] = s.slip[1];
    c->t_prev = d->t;
  }
  // peaks of the set totals just formed; a set counts as one contact for peak_normal_force
  for (int k = 0; k < n; k++) {
    int i = step ? mt->contact_of[d->act_force[k]] : k;
    int set = i >= 0 ? mt->contact[i].set : -1;
    if (set >= 0) {
      mt->set_peak[set] = fmax(mt->set_peak[set], mt->set_fn[set]);
      mt->peak_normal_force = fmax(mt->peak_normal_force, mt->set_peak[set]);
    }
  }
  // a step slides by the mean over loaded contacts, so a four-point foot does not count four
  // times the distance one point would
  if (step && loaded > 0) {
    double mean = distance / loaded;
    mt->sliding_distance += mean;
    if (speed / loaded < mt->stick_speed) {
      mt->stuck_drift += mean;
      mt->nstuck++;
    }
  }
}


// this runs inside the integration's step callback, which the integrator times itself
// (csStats.cpu_step_hook) and leaves out of the integration's CPU time
void cs_metricsStep(csMetrics* mt, const csModel* m, csData* d) {
  sampleAll(mt, m, d, 1);
  mt->nsteps++;
}


void cs_metricsReport(csMetrics* mt, const csModel* m, csData* d) {
  sampleAll(mt, m, d, 0);
  // energy balance
  double e = cs_kineticEnergy(m, d) + cs_potentialEnergy(m, d) + cs_dissipatedEnergy(m, d);
  double err = fabs(e - mt->e0) / mt->escale;
  // a NaN energy must show up as the error, not be skipped by the comparison
  if (err > mt->energy_error || isnan(err)) {
    mt->energy_error = err;
  }
}


void cs_metricsFinish(csMetrics* mt, const csModel* m, const csData* d) {
  // penetration deeper than a sphere's radius, or than 1 cm for a point, per set
  for (int i = 0; i < mt->ncontact; i++) {
    const csMetricsContact* c = &mt->contact[i];
    // report a set once, at its deepest element
    int first = 1;
    for (int j = 0; j < mt->ncontact && c->set >= 0; j++) {
      const csMetricsContact* o = &mt->contact[j];
      if (j != i && o->set == c->set &&
          (o->max_penetration > c->max_penetration ||
           (o->max_penetration == c->max_penetration && j < i))) {
        first = 0;
      }
    }
    if (!first) {
      continue;
    }
    const char* kind = cs_forceKind(m->force[c->force].kind)->name;
    if (c->sphere && c->max_penetration > c->radius) {
      cs_metricsNote(mt,
              "contact '%s' (%s) penetrated %.3g m into plane '%s', deeper than the sphere's "
              "radius %.3g m: the sphere went through the plane; the contact is far too soft "
              "for this load or impact (raise the stiffness)",
              contactName(m, c->force), kind, c->max_penetration, m->plane[c->plane].name,
              c->radius);
    } else if (!c->sphere && c->max_penetration > 0.01) {
      cs_metricsNote(mt,
              "contact '%s' (%s) penetrated %.3g m into plane '%s', deeper than 1 cm: the "
              "contact is too soft for this load or impact (raise the stiffness)",
              contactName(m, c->force), kind, c->max_penetration, m->plane[c->plane].name);
    }
  }
  // a transition velocity so small that the run needs tens of thousands of steps
  if (d->stat.nsteps > 20000) {
    double vt = INFINITY;
    int at = -1;
    for (int i = 0; i < mt->ncontact; i++) {
      // kinds without a transition velocity give NAN, which never compares below vt
      double v = cs_metricsParam(&m->force[mt->contact[i].force], "transition_velocity");
      if (v < vt) {
        vt = v;
        at = mt->contact[i].force;
      }
    }
    if (at >= 0 && vt < 0.005) {
      cs_metricsNote(mt,
              "the run took %ld steps, and contact '%s' (%s) uses transition_velocity = %.3g "
              "m/s: friction that rises to its static peak within so small a slip speed makes "
              "the equations stiff and is a common cause of short steps; try a transition "
              "velocity near 0.01 m/s (a stuck contact then creeps at up to about that speed)",
              d->stat.nsteps, contactName(m, at), cs_forceKind(m->force[at].kind)->name, vt);
    }
  }
}


void cs_metricsFree(csMetrics* mt) {
  // the sizes must match those given to csu_malloc, which counts bytes
  if (mt->contact) {
    csu_free(mt->contact, sizeof(csMetricsContact) * (size_t)(mt->ncontact + 1));
  }
  if (mt->set_fn) {
    csu_free(mt->set_fn, sizeof(double) * (size_t)(2 * mt->nset + 1));
  }
  csu_free(mt->contact_of, sizeof(int) * (size_t)(mt->nforce + 1));
  // leave mt as zeroed, so that freeing twice is harmless
  mt->contact_of = NULL;
  mt->contact = NULL;
  mt->set_fn = mt->set_peak = NULL;
  mt->ncontact = mt->nset = 0;
}
