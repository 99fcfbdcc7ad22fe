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
#include "engine/kinematics.h"
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


// the string chosen for a CS_PARAM_CHOICE parameter of f by its scene key, or NULL
static const char* choiceParam(const csForce* f, const char* key) {
  const csForceKind* k = cs_forceKind(f->kind);
  for (int i = 0; k && i < k->nparams; i++) {
    const csParamInfo* p = &k->params[i];
    if (p->type == CS_PARAM_CHOICE && strcmp(p->key, key) == 0 && k->choices && k->choices[i]) {
      int c = f->ref[p->slot];
      for (int j = 0; k->choices[i][j]; j++) {
        if (j == c) {
          return k->choices[i][j];
        }
      }
    }
  }
  return NULL;
}


int cs_metricsBlendedAnchors(const csModel* m, const int* forces, int n) {
  for (int i = 0; i < n; i++) {
    int e = forces[i];
    const char* rule = m->force[e].kind == CS_FORCE_EXP_SPRING
                           ? choiceParam(&m->force[e], "anchor_rule")
                           : NULL;
    if (rule && strcmp(rule, "blended") == 0) {
      return 1;
    }
  }
  return 0;
}


// Append one diagnostic. A run with more than CS_METRICS_MAX_NOTES problems is plainly
// misconfigured and its first notes are the useful ones; the rest are counted in the last place,
// so that a reader knows that there were more (and that one verdict may still follow them).
// A note formatted into its place, and cut where it is too long after its last whole word, with
// " ..." to say so: cut anywhere, a number could read as another ("1.2" of "1.25e-3") and a
// UTF-8 name could end in half a character.
static void formatNote(char* note, const char* fmt, va_list ap) {
  int n = vsnprintf(note, CS_METRICS_NOTE_LEN, fmt, ap);
  if (n < CS_METRICS_NOTE_LEN) {
    return;
  }
  const char more[] = " ...";
  size_t end = CS_METRICS_NOTE_LEN - sizeof(more);
  size_t at = end;
  while (at > 0 && note[at] != ' ') {
    at--;
  }
  if (at == 0) {
    // one word longer than the note: cut it, but not inside a UTF-8 character
    for (at = end; at > 0 && ((unsigned char)note[at] & 0xC0) == 0x80; at--) {
    }
  }
  memcpy(note + at, more, sizeof(more));
}


void cs_metricsNote(csMetrics* mt, const char* fmt, ...) {
  int last = CS_METRICS_MAX_NOTES - 1;
  if (mt->nnotes <= last && !mt->ndropped) {
    va_list ap;
    va_start(ap, fmt);
    formatNote(mt->notes[mt->nnotes++], fmt, ap);
    va_end(ap);
    return;
  }
  // the first note too many also takes the last listed one's place
  mt->ndropped += mt->ndropped ? 1 : 2;
  snprintf(mt->notes[last], CS_METRICS_NOTE_LEN,
           "%d more diagnostics of this run are not listed (the first %d are)", mt->ndropped, last);
}


void cs_metricsVerdict(csMetrics* mt, const char* fmt, ...) {
  int at = mt->nnotes <= CS_METRICS_MAX_NOTES ? mt->nnotes++ : CS_METRICS_MAX_NOTES;
  va_list ap;
  va_start(ap, fmt);
  formatNote(mt->notes[at], fmt, ap);
  va_end(ap);
}


void cs_metricsJoinNotes(const csMetrics* mt, char* buf, size_t size) {
  size_t len = 0;
  buf[0] = '\0';
  for (int k = 0; k < mt->nnotes && len < size; k++) {
    int n = snprintf(buf + len, size - len, "%s%s", k ? " | " : "", mt->notes[k]);
    len += n > 0 ? (size_t)n : 0;
  }
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
  double gap;              // height of the touching surface above the plane (< 0 inside), m
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

  // normal force: what the element's apply left in its report values at this dynamics stage,
  // or else the contact report's force on the touching body along the plane normal
  csContactReport r;
  int reported = c->fn_extra < 0;
  if (reported) {
    cs_contactReport(m, d, c->force, &r);
    s->fn = csu_dot(r.force.v, n_G);
  } else {
    cs_realizeDynamics(m, d);
    s->fn = d->force_extra[f->repadr + c->fn_extra];
  }

  // height of the station (or sphere centre) in the plane frame
  csVec3 station_B = csu_vec3FromArray(f->param + CS_SLOT_STATION);
  csVec3 station_G = csu_transformPoint(&d->body_pose[c->body], station_B);
  csVec3 p_P = csu_mulMtV(&X_GP->R, csu_sub(station_G, X_GP->p));
  double h = p_P.z;
  // penetration is never negative: a contact that has lifted off counts as zero
  s->gap = c->sphere ? h - c->radius : h;
  s->penetration = csu_max(0.0, -s->gap);
  s->xy[0] = p_P.x;
  s->xy[1] = p_P.y;

  // slip: velocity of the body's material point at the contact relative to the plane's point
  // there: the station itself for point kinds; for a sphere in contact, the contact point its
  // kind reports (inside the sphere by part of the penetration: taking the lowest point, a ball
  // rolling without slipping on a contact pressed in by delta slipped at omega times about
  // delta / 2), else its lowest point
  csVec3 point_G = station_G;
  if (c->sphere && s->penetration > 0) {
    // (the sphere kinds' apply keeps the point it reports: the data is realized at dynamics)
    point_G = reported ? r.point : d->contact_point[c->force];
  } else if (c->sphere) {
    point_G = csu_addScaled(station_G, -c->radius, n_G);
  }
  csVec3 v_G = csu_relativePointVelocity(m, d, c->body, m->plane[c->plane].body, point_G);
  csVec3 v_P = csu_mulMtV(&X_GP->R, v_G);
  s->slip[0] = v_P.x;
  s->slip[1] = v_P.y;
}


// Exponential springs: with Sliding = 1 the friction is a pure damper, so a block on a slope
// slides at the speed where n cxy v balances m g sin(theta). If that speed exceeds v_settle the
// anchors never settle (Sliding stays 1) and the block creeps instead of sticking; this happens
// when cxy is low, below the critical damping of the body's share of mass on the friction
// spring (seed 000, "Friction Force" and "Coefficients of Friction and the Sliding State").
static void checkExpSprings(csMetrics* mt, const csModel* m, const csData* d) {
  // without gravity there is no slope, so no creep to predict
  double g = csu_norm(m->gravity);
  if (!(g > 0)) {
    return;
  }
  // "up" points against gravity; the slope of a plane is measured from it
  csVec3 up = csu_scale(-1.0 / g, m->gravity);
  // the springs hold up a rigid whole: a body with everything welded to it (a foot with a load
  // welded on top creeps as one body of their summed mass). Each whole's springs counted, its
  // first one and whether they touch more than one plane, in one pass (a scan of every element
  // for each spring made 100,000 blocks take minutes)
  size_t countSize = sizeof(int) * (size_t)m->nbody * 4;
  size_t massSize = sizeof(double) * (size_t)m->nbody;
  int* count = csu_malloc(countSize);
  double* rigidMass = count ? csu_malloc(massSize) : NULL;
  if (!rigidMass) {
    csu_free(count, countSize);
    return;  // the diagnostic is left out, as with any other out-of-memory at set-up
  }
  int *first = count + m->nbody, *mixed = first + m->nbody, *rigid = mixed + m->nbody;
  for (int b = 0; b < m->nbody; b++) {
    // a parent comes before its children, so a welded body's whole is its parent's
    int parent = m->body[b].parent;
    rigid[b] = b > 0 && parent > 0 && m->body[b].joint == CS_JOINT_WELD ? rigid[parent] : b;
    rigidMass[b] = 0;
  }
  for (int b = 1; b < m->nbody; b++) {
    rigidMass[rigid[b]] += m->body[b].mass;
  }
  for (int e = 0; e < m->nforce; e++) {
    const csForce* f = &m->force[e];
    int b = f->ref[CS_REF_BODY];
    if (f->kind != CS_FORCE_EXP_SPRING || b <= 0 || b >= m->nbody) {
      continue;
    }
    b = rigid[b];
    if (count[b]++ == 0) {
      first[b] = e;
    } else if (f->ref[CS_REF_PLANE] != m->force[first[b]].ref[CS_REF_PLANE]) {
      mixed[b] = 1;
    }
  }
  for (int e = 0; e < m->nforce; e++) {
    const csForce* f = &m->force[e];
    if (f->kind != CS_FORCE_EXP_SPRING) {
      continue;
    }
    // the anchor rule "limit" has no pure-damper phase: its sliding friction is mu fz at any
    // speed, so it does not creep (docs/contact-models.md, "The anchor rule")
    const char* rule = choiceParam(f, "anchor_rule");
    if (rule && strcmp(rule, "limit") == 0) {
      continue;
    }
    int body = f->ref[CS_REF_BODY], plane = f->ref[CS_REF_PLANE];
    if (body <= 0 || body >= m->nbody) {
      continue;
    }
    int whole = rigid[body];
    // one message per rigid whole and plane: skip pairs already checked (a body on several
    // planes, rare, has its earlier springs looked through)
    int n = count[whole], seen = e != first[whole];
    if (seen && mixed[whole]) {
      seen = 0;
      for (int o = first[whole]; o < e && !seen; o++) {
        const csForce* fo = &m->force[o];
        int ob = fo->ref[CS_REF_BODY];
        seen = fo->kind == CS_FORCE_EXP_SPRING && ob > 0 && ob < m->nbody &&
               rigid[ob] == whole && fo->ref[CS_REF_PLANE] == plane;
      }
    }
    if (seen) {
      continue;
    }
    // the whole's mass shared evenly by its n springs, and the damping the scene really gives
    // (mass_for_damping replaces cxy by critical damping of that mass, as the kind itself does)
    double mass = rigidMass[whole];
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
            "critical, 2 sqrt(kxy m/n) = %.3g N s/m for the body's share of mass (%.3g kg%s "
            "over %d springs); on the %.1f degree slope of plane '%s' once it slides the block "
            "creeps "
            "downhill at about m g sin(theta) / (n cxy) = %.3g m/s, faster than v_settle = "
            "%.3g m/s, so it never settles into static friction; raise cxy to at least %.3g "
            "N s/m (or give mass_for_damping = %.3g kg)",
            contactName(m, e), m->body[body].name, cxy, critical, mass,
            mass != m->body[body].mass ? ", with what is welded to it" : "", n,
            acos(fmin(1.0, cosTheta)) * 180.0 / acos(-1.0), m->plane[plane].name, creep, vsettle,
            needed, needed * needed / (4.0 * kxy));
  }
  csu_free(count, countSize);
  csu_free(rigidMass, massSize);
}


// Mass of the bodies that share b's root, kg: what a contact on b holds up when the whole tree
// rests on it (a foot carries the leg and the pelvis above it). 0 for ground and for bodies
// welded to it, which no contact holds up. root and rootMass: each body's root (its ancestor
// whose parent is ground) and each root's tree mass (treeMasses).
static double treeMass(const csModel* m, const int* root, const double* rootMass, int b) {
  if (b <= 0 || b >= m->nbody || m->body[b].fixed) {
    return 0;
  }
  return rootMass[root[b]];
}


// every root's tree mass into rootMass (nbody), in one pass: a parent comes before its children,
// so a body's root is its parent's (a sum over every body for each contact made 100,000 blocks
// take minutes to set up)
static void treeMasses(const csModel* m, int* root, double* rootMass) {
  for (int b = 0; b < m->nbody; b++) {
    root[b] = b == 0 ? 0 : m->body[b].parent > 0 ? root[m->body[b].parent] : b;
    rootMass[b] = 0;
  }
  for (int b = 1; b < m->nbody; b++) {
    rootMass[root[b]] += m->body[b].mass;
  }
}


// what a contact set (or a lone element, set < 0) is called in messages, with its kind
static const char* unitKind(const csModel* m, const csMetricsContact* c) {
  return cs_forceKind(m->force[c->force].kind)->name;
}


// a force's ratio to a weight as a note writes it: to a tenth below 100 (2.4 times), whole
// below 1e7 (20162 times), else to three digits (4.81e+23: written whole, a ratio of 1e243 took
// 244 digits and cut the note's advice off)
static const char* timesText(double r, char* buf, size_t size) {
  if (r < 100) {
    snprintf(buf, size, "%.1f", r);
  } else if (r < 1e7) {
    snprintf(buf, size, "%.0f", r);
  } else {
    snprintf(buf, size, "%.3g", r);
  }
  return buf;
}


// A contact that starts inside its plane pushes hard at t = 0 and kicks the body away instead
// of letting it settle (a ball placed 2 mm into a stiff floor leaves it at several m/s). The
// force of each set (or lone element) at the start is compared with the weight it carries.
static void checkInitialKick(csMetrics* mt, const csModel* m) {
  double worst = 0;
  int at = -1, nkick = 0;  // the worst, and how many there are
  double fn = 0, depth = 0;
  // each set's total and deepest start, in one pass (set_fn and set_peak as scratch, zeroed
  // again below), and its first element
  for (int s = 0; s < mt->nset; s++) {
    mt->set_fn[s] = 0;
    mt->set_peak[s] = -INFINITY;
    mt->set_pick[s] = -1;
  }
  for (int i = 0; i < mt->ncontact; i++) {
    const csMetricsContact* c = &mt->contact[i];
    if (c->set >= 0) {
      mt->set_fn[c->set] += c->fn0;
      mt->set_peak[c->set] = fmax(mt->set_peak[c->set], c->penetration0);
      if (mt->set_pick[c->set] < 0) {
        mt->set_pick[c->set] = i;
      }
    }
  }
  for (int i = 0; i < mt->ncontact; i++) {
    const csMetricsContact* c = &mt->contact[i];
    // the set's total at the start, counted at its first element
    if ((c->set >= 0 && mt->set_pick[c->set] != i) || !(c->weight > 0)) {
      continue;
    }
    double total = c->set >= 0 ? mt->set_fn[c->set] : c->fn0;
    double ratio = total / c->weight;
    nkick += ratio > CS_METRICS_KICK_RATIO;
    if (ratio > CS_METRICS_KICK_RATIO && ratio > worst) {
      worst = ratio;
      at = i;
      fn = total;
      depth = c->set >= 0 ? mt->set_peak[c->set] : c->penetration0;
    }
  }
  for (int s = 0; s < mt->nset; s++) {
    mt->set_fn[s] = mt->set_peak[s] = 0;
  }
  if (at < 0) {
    return;
  }
  const csMetricsContact* c = &mt->contact[at];
  char where[192];
  if (depth > 0) {
    snprintf(where, sizeof(where), "starts %.3g mm inside plane '%s'", 1e3 * depth,
             m->plane[c->plane].name);
  } else {
    snprintf(where, sizeof(where), "starts %.3g mm above plane '%s' but within reach of its force",
             -1e3 * depth, m->plane[c->plane].name);
  }
  // one note for all of them (a pile of boxes each placed too deep), naming the worst
  char others[96] = "", times[32];
  if (nkick > 1) {
    snprintf(others, sizeof(others), " (the worst of %d contacts that start so)", nkick);
  }
  cs_metricsNote(mt,
                 "contact '%s' (%s) %s%s: it pushes with %.4g N at t = 0, %s times the %.4g N "
                 "weight it carries, so the body is kicked off instead of placed and the first "
                 "instants are an artefact; start it clear of the contact's reach (or at its "
                 "resting %s) and let it settle",
                 contactName(m, c->force), unitKind(m, c), where, others, fn,
                 timesText(worst, times, sizeof(times)), c->weight,
                 m->force[c->force].kind == CS_FORCE_EXP_SPRING ? "height, above the plane"
                                                                : "penetration");
}


// the balance's start: e0 and the scale it is read against, from the kinetic and potential
// energies and the balance there
static void startBalance(csMetrics* mt, double ke, double pe, double e) {
  mt->e0 = e;
  mt->escale = fmax(fmax(fabs(e), ke + fabs(pe)), 1e-12);
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
  mt->window = csu_malloc(sizeof(csMetricsWindow) * (size_t)(n + mt->nset + 1));
  mt->set_size = csu_malloc(sizeof(int) * (size_t)(2 * mt->nset + 1));
  if (!mt->contact || !mt->set_fn || !mt->contact_of || !mt->window || !mt->set_size) {
    cs_metricsFree(mt);
    return -1;
  }
  mt->set_peak = mt->set_fn + mt->nset;
  mt->set_pick = mt->set_size + mt->nset;
  for (int s = 0; s < mt->nset; s++) {
    mt->set_fn[s] = mt->set_peak[s] = 0;
    mt->set_size[s] = 0;
  }
  // the bodies' roots and their trees' masses, for the weight each contact carries
  int* root = csu_malloc(sizeof(int) * (size_t)m->nbody);
  double* rootMass = csu_malloc(sizeof(double) * (size_t)m->nbody);
  if (!root || !rootMass) {
    csu_free(root, sizeof(int) * (size_t)m->nbody);
    csu_free(rootMass, sizeof(double) * (size_t)m->nbody);
    cs_metricsFree(mt);
    return -1;
  }
  treeMasses(m, root, rootMass);
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
    if (c->set >= 0) {
      mt->set_size[c->set]++;
    }
    c->fn_extra = -1;
    for (int x = 0; x < k->nextra; x++) {
      if (strcmp(k->extranames[x], "normal_force") == 0) {
        c->fn_extra = x;
      }
    }
    c->sphere = k->contact == CS_CONTACT_SPHERE;
    c->radius = c->sphere ? f->param[CS_SLOT_RADIUS] : 0.0;
    // what the contact holds up: the touching body's tree, and the plane's if it moves
    int pb = c->plane >= 0 && c->plane < m->nplane ? m->plane[c->plane].body : 0;
    c->weight = g * treeMass(m, root, rootMass, c->body);
    if (pb >= 0 && pb < m->nbody && c->body >= 0 && c->body < m->nbody &&
        root[pb] != root[c->body]) {
      c->weight += g * treeMass(m, root, rootMass, pb);
    }
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
  csu_free(root, sizeof(int) * (size_t)m->nbody);
  csu_free(rootMass, sizeof(double) * (size_t)m->nbody);

  // the initial energy and contact positions
  cs_realizeDynamics(m, d);
  double ke = cs_kineticEnergy(m, d), pe = cs_potentialEnergy(m, d);
  startBalance(mt, ke, pe, ke + pe + cs_dissipatedEnergy(m, d));
  mt->t0 = d->t;
  mt->nreport = 0;
  mt->e_edit = mt->balance_last = 0;
  for (int j = 0; j < mt->ncontact + mt->nset; j++) {
    memset(&mt->window[j], 0, sizeof(csMetricsWindow));
    mt->window[j].t0 = d->t;
  }
  for (int j = 0; j < mt->ncontact; j++) {
    csMetricsContact* c = &mt->contact[j];
    contactSample s;
    sampleContact(m, d, c, &s);
    c->fn0 = c->fn = s.fn;
    c->penetration0 = -s.gap;
    c->gap = s.gap;
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
  // a state resumed from a checkpoint (t > 0; runs start at 0) is mid-motion: its contact forces
  // are what the motion made them, not a placement that kicks the body off
  if (d->t == 0) {
    checkInitialKick(mt, m);
  }
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
    c->peak_fn = csu_max(c->peak_fn, s.fn);
    c->max_penetration = csu_max(c->max_penetration, s.penetration);
    mt->max_penetration = csu_max(mt->max_penetration, s.penetration);
    if (c->set >= 0) {
      mt->set_fn[c->set] += s.fn;
    } else {
      mt->peak_normal_force = csu_max(mt->peak_normal_force, s.fn);
    }
    if (!step) {
      c->fn = s.fn;
      c->gap = s.gap;
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
      distance += sqrt(dx * dx + dy * dy);
      speed += sqrt(s.slip[0] * s.slip[0] + s.slip[1] * s.slip[1]);
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
      mt->set_peak[set] = csu_max(mt->set_peak[set], mt->set_fn[set]);
      mt->peak_normal_force = csu_max(mt->peak_normal_force, mt->set_peak[set]);
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


// this runs inside the integration's step callback, which the integrator times on a sample of
// steps (csStats.cpu_step_hook, an estimate) and leaves inside the integration's CPU time
void cs_metricsStep(csMetrics* mt, const csModel* m, csData* d) {
  sampleAll(mt, m, d, 1);
  mt->nsteps++;
}


int cs_metricsSamplesSteps(const csMetrics* mt) {
  return mt->ncontact > 0;
}


// add a normal force sample at time t to a window; a full window becomes the last complete one
static void windowAdd(csMetricsWindow* w, double t, double fn) {
  if (t - w->t0 >= CS_METRICS_WINDOW && w->n > 0) {
    w->pt0 = w->t0;
    w->pmin = w->min;
    w->pmax = w->max;
    w->psum = w->sum;
    w->pn = w->n;
    w->t0 = t;
    w->n = 0;
  }
  w->min = w->n ? fmin(w->min, fn) : fn;
  w->max = w->n ? fmax(w->max, fn) : fn;
  w->sum = w->n ? w->sum + fn : fn;
  w->n++;
}


// the first scheduled change between the reports at t0 and t1, or NULL: at or after t0 (a
// change at a report's time applies after that report's row) and before t1 (the changes are
// sorted by time)
static const csChange* changeBetween(const csModel* m, double t0, double t1) {
  int lo = 0, hi = m->nchange;
  while (lo < hi) {
    int mid = lo + (hi - lo) / 2;
    if (m->change[mid].time < t0) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return lo < m->nchange && m->change[lo].time < t1 ? &m->change[lo] : NULL;
}



void cs_metricsStartAfterChanges(csMetrics* mt, const csModel* m, csData* d) {
  if (mt->nreport != 0 || d->t != mt->t0) {
    return;
  }
  cs_realizeDynamics(m, d);  // (nothing to do at a report, where it is realized)
  double ke = cs_kineticEnergy(m, d), pe = cs_potentialEnergy(m, d);
  double e = ke + pe + cs_dissipatedEnergy(m, d) - mt->e_edit;
  if (isfinite(e)) {
    startBalance(mt, ke, pe, e);
  }
}


void cs_metricsReport(csMetrics* mt, const csModel* m, csData* d) {
  // a stop released at t = 0 read as its energy lost by the integration
  cs_metricsStartAfterChanges(mt, m, d);
  mt->nreport++;
  sampleAll(mt, m, d, 0);
  // the normal-force windows of every contact and every set
  for (int i = 0; i < mt->ncontact; i++) {
    windowAdd(&mt->window[i], d->t, mt->contact[i].fn);
  }
  for (int s = 0; s < mt->nset; s++) {
    windowAdd(&mt->window[mt->ncontact + s], d->t, mt->set_fn[s]);
  }
  // energy balance
  double ke = cs_kineticEnergy(m, d), pe = cs_potentialEnergy(m, d), w = cs_dissipatedEnergy(m, d);
  double e = ke + pe + w - mt->e_edit;
  mt->balance_last = e - mt->e0;
  mt->energy_seen = csu_max(mt->energy_seen, ke + fabs(pe) + fabs(w));
  double err = fabs(e - mt->e0) / cs_metricsEnergyScale(mt);
  // a NaN energy must show up as the error, not be skipped by the comparison
  if (err > mt->energy_error || isnan(err)) {
    mt->energy_error = err;
  }
  // what the balance moved between two reports that a scheduled change came between is the
  // change's (a stop moved into its coordinate stores energy, one backed off releases it): kept
  // apart, so that the checks of the integration see its own gains and losses alone
  if (mt->nreport > 1 && changeBetween(m, mt->last_t, d->t)) {
    double moved = e - mt->last_e;
    mt->e_change += moved;
    if (moved > mt->jump) {
      mt->jump = moved;
      mt->jump_t0 = mt->last_t;
      mt->jump_t1 = d->t;
    }
  }
  mt->energy_gain = csu_max(mt->energy_gain, e - mt->e_change - mt->e0);
  mt->energy_loss = csu_max(mt->energy_loss, mt->e0 - (e - mt->e_change));
  mt->last_e = e;
  mt->last_t = d->t;
}


// The scale of the energy balance: the largest of |E0|, KE0 + |PE0| and KE + |PE| + |dissipated|
// at the reports so far (1e-12 J at least). Scales taken at the start alone failed where the
// start holds no energy: a pendulum released level from rest (E0 = 0 with the potential's zero
// at the pivot) read an error of 6e6 for a drift of 6e-6 J.
double cs_metricsEnergyScale(const csMetrics* mt) {
  return fmax(mt->escale, mt->energy_seen);
}


// The normal damping a contact would need for a damping ratio of about 1/2 when resting with
// penetration x under its share of weight, and the key that sets it; NAN when unknown. Near rest
// a contact is a spring k_eff = dF/dx with a damper c_eff = dF/dxdot carrying m = F/g:
//   exponential spring  k = d2 F, c = cz F         zeta = cz sqrt(g / d2) / 2
//   linear penalty      k = F / x, c = c F          zeta = c sqrt(g x) / 2
//   Hertz               k = 1.5 F / x, c = 1.5 c F  zeta = c sqrt(1.5 g x) / 2
static double dampingForHalf(const csModel* m, const csMetricsContact* c, double x, double* now,
                             const char** key) {
  const csForce* f = &m->force[c->force];
  double g = csu_norm(m->gravity);
  *key = "dissipation";
  *now = cs_metricsParam(f, "dissipation");
  if (f->kind == CS_FORCE_EXP_SPRING) {
    *key = "cz";
    *now = cs_metricsParam(f, "cz");
    return sqrt(cs_metricsParam(f, "d2") / g);
  }
  if (!(x > 0)) {
    return NAN;
  }
  if (f->kind == CS_FORCE_COMPLIANT_POINT) {
    return 1.0 / sqrt(g * x);
  }
  return 1.0 / sqrt(1.5 * g * x);
}


// Whether contact c, or an element of its set, is an exponential spring whose normal force
// reached its cap max_fz during the run: 1 with the cap in *cap (the largest such), else 0. A
// capped force sets the peak and the depth whatever the spring's stiffness and damping.
static int heldAtCap(const csMetrics* mt, const csModel* m, const csMetricsContact* c,
                     double* cap) {
  int held = 0;
  *cap = 0;
  // a set's elements are consecutive (the loader makes them so, in force order): its run of
  // records around c, not every record (once per set of 10,000 blocks, that was quadratic)
  int lo = (int)(c - mt->contact), hi = lo;
  while (c->set >= 0 && lo > 0 && mt->contact[lo - 1].set == c->set) {
    lo--;
  }
  while (c->set >= 0 && hi + 1 < mt->ncontact && mt->contact[hi + 1].set == c->set) {
    hi++;
  }
  for (int j = lo; j <= hi; j++) {
    const csMetricsContact* o = &mt->contact[j];
    const csForce* f = &m->force[o->force];
    if (f->kind != CS_FORCE_EXP_SPRING) {
      continue;
    }
    double maxfz = cs_metricsParam(f, "max_fz");
    if (maxfz > 0 && o->peak_fn >= maxfz * (1 - 1e-6)) {
      held = 1;
      *cap = fmax(*cap, maxfz);
    }
  }
  return held;
}


// what makes contact c stiffer, in its kind's parameters (the depth note's advice)
static const char* stiffer(const csModel* m, const csMetricsContact* c) {
  switch (m->force[c->force].kind) {
    case CS_FORCE_EXP_SPRING: return "raise d1 or d2";
    case CS_FORCE_COMPLIANT_POINT: return "raise penalty_stiffness";
    case CS_FORCE_HUNT_CROSSLEY:
    case CS_FORCE_SMOOTH_SPHERE: return "raise plane_strain_modulus";
    default: return "raise the stiffness";
  }
}


// Normal-force checks at the end of a run: a contact that floats above its plane while loaded,
// a body still bouncing or rocking long after the start, and a peak force out of all proportion
// to the weight carried. Each is reported once, for the worst contact set.
static void checkNormalForces(csMetrics* mt, const csModel* m, const csData* d) {
  int floatAt = -1, bounceAt = -1, peakAt = -1;
  double floatGap = 0, bounceAmp = 0, peakRatio = CS_METRICS_PEAK_RATIO;
  for (int i = 0; i < mt->ncontact; i++) {
    const csMetricsContact* c = &mt->contact[i];
    if (!(c->weight > 0)) {
      continue;
    }
    int nset = c->set >= 0 ? mt->set_size[c->set] : 1;
    // floating: loaded with a gap between the surfaces (the exponential spring rests above its
    // plane by design, d0 and d1 setting how far, so it is not judged by this)
    if (m->force[c->force].kind != CS_FORCE_EXP_SPRING && c->fn > 0.05 * c->weight / nset &&
        c->gap > CS_METRICS_FLOAT_GAP && c->gap > floatGap) {
      floatGap = c->gap;
      floatAt = i;
    }
    // still bouncing or rocking: in the last complete window, long enough after the start, the
    // contact (its set, or the lone element) stays loaded throughout (a body in free flight
    // between bounces is not vibrating on its contacts) while its total normal force swings by
    // more than a quarter of the weight carried. The total is used rather than each element's
    // share, which moves with the load path (a spinning or sliding block shifts its load from
    // corner to corner without any vibration).
    const csMetricsWindow* w = c->set >= 0 ? &mt->window[mt->ncontact + c->set] : &mt->window[i];
    if (w->pn >= 5 && w->pt0 >= CS_METRICS_SETTLE && w->pmin > 0.05 * c->weight) {
      double amp = (w->pmax - w->pmin) / c->weight;
      if (amp > 0.25 && amp > bounceAmp) {
        bounceAmp = amp;
        bounceAt = i;
      }
    }
    // peak force of the set (or the lone element) against the weight carried
    double peak = c->set >= 0 ? mt->set_peak[c->set] : c->peak_fn;
    if (peak / c->weight > peakRatio) {
      peakRatio = peak / c->weight;
      peakAt = i;
    }
  }
  if (floatAt >= 0) {
    const csMetricsContact* c = &mt->contact[floatAt];
    const csForce* f = &m->force[c->force];
    double bd = cs_metricsParam(f, "hertz_smoothing"), cf = cs_metricsParam(f,
                                                                            "constant_contact_force");
    char remedy[200];
    if (!isnan(bd)) {
      snprintf(remedy, sizeof(remedy),
               "its force reaches beyond contact (constant_contact_force = %.3g, "
               "hertz_smoothing = %.4g 1/m): raise hertz_smoothing (e.g. %.4g) or lower "
               "constant_contact_force",
               cf, bd, 10 * bd);
    } else {
      snprintf(remedy, sizeof(remedy), "check the geometry (radius, points) and the plane");
    }
    // (at rest it holds the body up there; in a landing it pushes before the surfaces touch)
    cs_metricsNote(mt,
                   "contact '%s' (%s) pushes on body '%s' from %.3g mm above plane '%s' at the "
                   "end, with %.4g N of normal force and no penetration: heights and ground "
                   "clearance read from this run are off by up to that much; %s",
                   contactName(m, c->force), unitKind(m, c), m->body[c->body].name,
                   1e3 * c->gap, m->plane[c->plane].name, c->fn, remedy);
  }
  if (bounceAt >= 0) {
    const csMetricsContact* c = &mt->contact[bounceAt];
    const csMetricsWindow* w =
        c->set >= 0 ? &mt->window[mt->ncontact + c->set] : &mt->window[bounceAt];
    double now = NAN;
    const char* key = "dissipation";
    double x = fmax(-c->gap, 0.0);
    double need = dampingForHalf(m, c, x, &now, &key);
    char remedy[160];
    if (isfinite(need) && !(now >= need)) {
      snprintf(remedy, sizeof(remedy), "raise %s (now %.3g s/m) to about %.3g s/m", key, now,
               need);
    } else {
      snprintf(remedy, sizeof(remedy), "raise %s", key);
    }
    // on a slope the contact carries the weight's part across the plane (m g cos theta), which
    // the mean is to be read against (it was set beside the whole weight, a deficit that is none)
    // the plane's normal is its frame's z axis
    const csMat33* R = &d->plane_pose[c->plane].R;
    csVec3 n = csu_vec3(R->m[0][2], R->m[1][2], R->m[2][2]);
    double g = csu_norm(m->gravity);
    double across = g > 0 ? c->weight * fabs(csu_dot(n, m->gravity)) / g : c->weight;
    char carried[96];
    if (fabs(across - c->weight) > 1e-3 * c->weight) {
      snprintf(carried, sizeof(carried), "weight carried %.4g N, %.4g N of it across the plane",
               c->weight, across);
    } else {
      snprintf(carried, sizeof(carried), "weight carried %.4g N", c->weight);
    }
    cs_metricsNote(mt,
                   "contact '%s' (%s) is still bouncing or rocking on its plane at t = %.3g-%.3g "
                   "s: its normal force swings "
                   "between %.4g and %.4g N (mean %.4g N, %s); the normal "
                   "direction is under-damped and the vibration is the contact model's, not "
                   "the body's (unless a run at tighter rtol and atol does not show it: then it "
                   "is integration error); for a damping ratio of about 1/2 %s",
                   contactName(m, c->force), unitKind(m, c), w->pt0, w->pt0 + CS_METRICS_WINDOW,
                   w->pmin, w->pmax, w->psum / w->pn, carried, remedy);
  }
  if (peakAt >= 0) {
    const csMetricsContact* c = &mt->contact[peakAt];
    double peak = c->set >= 0 ? mt->set_peak[c->set] : c->peak_fn;
    // (a dissipation of the Hunt-Crossley kind, a force c v times the elastic one, stiffens an
    // impact when c v reaches 1: raised to damp a bounce, it can cause the peak)
    int hc = m->force[c->force].kind == CS_FORCE_HUNT_CROSSLEY ||
             m->force[c->force].kind == CS_FORCE_SMOOTH_SPHERE ||
             m->force[c->force].kind == CS_FORCE_COMPLIANT_POINT;
    double cap;
    char times[32];
    if (heldAtCap(mt, m, c, &cap)) {
      // a stiffer, softer or better damped spring leaves a capped peak where it is
      cs_metricsNote(mt,
                     "contact '%s' (%s) reached a peak normal force of %.4g N, %s times the "
                     "%.4g N weight it carries, with its springs' forces held at their cap, "
                     "max_fz = %.4g N: the cap set the peak, and the impact is that hard "
                     "(stiffness and dissipation do not move a capped peak; max_fz does)",
                     contactName(m, c->force), unitKind(m, c), peak,
                     timesText(peakRatio, times, sizeof(times)), c->weight, cap);
    } else {
      cs_metricsNote(mt,
                   "contact '%s' (%s) reached a peak normal force of %.4g N, %s times the "
                   "%.4g N weight it carries (a landing foot sees a few body weights, a rubber "
                   "ball dropped onto a hard floor under 200): check for an initial "
                   "penetration, a contact far stiffer than what it models, or %s, and look at "
                   "E.normal_force around the peak",
                   contactName(m, c->force), unitKind(m, c), peak,
                   timesText(peakRatio, times, sizeof(times)), c->weight,
                   hc ? "a dissipation too low or too high (c v of 1 or more at impact stiffens "
                        "it)"
                      : "too little dissipation");
    }
  }
  (void)d;
}


void cs_metricsFinish(csMetrics* mt, const csModel* m, const csData* d) {
  checkNormalForces(mt, m, d);
  // penetration deeper than a sphere's radius, or than 1 cm for a point, per set: reported
  // once, at the set's deepest element (the first of equals)
  for (int s = 0; s < mt->nset; s++) {
    mt->set_pick[s] = -1;
  }
  for (int i = 0; i < mt->ncontact; i++) {
    const csMetricsContact* c = &mt->contact[i];
    int* pick = c->set >= 0 ? &mt->set_pick[c->set] : NULL;
    if (pick && (*pick < 0 || c->max_penetration > mt->contact[*pick].max_penetration)) {
      *pick = i;
    }
  }
  for (int i = 0; i < mt->ncontact; i++) {
    const csMetricsContact* c = &mt->contact[i];
    if (c->set >= 0 && mt->set_pick[c->set] != i) {
      continue;
    }
    const char* kind = cs_forceKind(m->force[c->force].kind)->name;
    // deepest where the scene placed it, and well within the limit at the end (half of it):
    // the placement's depth, which says nothing of the contact's stiffness (at t = 0 only: a
    // run resumed from a checkpoint starts mid-motion; a contact still deep at the end is too
    // soft, and told so)
    double limit = c->sphere ? c->radius : 0.01;
    if (!(c->max_penetration > limit)) {
      continue;
    }
    int placed = mt->t0 == 0 && c->penetration0 > 0 && c->max_penetration <= c->penetration0 &&
                 -c->gap <= 0.5 * limit;
    if (c->sphere && placed) {
      cs_metricsNote(mt,
              "contact '%s' (%s) started %.3g m into plane '%s', deeper than the sphere's "
              "radius %.3g m, and went no deeper, ending %.3g m deep: the scene placed the "
              "sphere through the plane; start it clear of the plane",
              contactName(m, c->force), kind, c->max_penetration, m->plane[c->plane].name,
              c->radius, fmax(0.0, -c->gap));
    } else if (c->sphere) {
      cs_metricsNote(mt,
              "contact '%s' (%s) penetrated %.3g m into plane '%s', deeper than the sphere's "
              "radius %.3g m: the sphere went through the plane; the contact is far too soft "
              "for this load or impact (%s)",
              contactName(m, c->force), kind, c->max_penetration, m->plane[c->plane].name,
              c->radius, stiffer(m, c));
    } else {
      // exponential springs held at their cap sink whatever their stiffness
      double cap;
      char advice[160];
      if (placed) {
        snprintf(advice, sizeof(advice), "it started that deep and went no deeper, ending "
                 "%.3g m deep: start the body clear of the plane", fmax(0.0, -c->gap));
      } else if (heldAtCap(mt, m, c, &cap)) {
        snprintf(advice, sizeof(advice), "its springs' forces were held at their cap, max_fz "
                 "= %.4g N: raise max_fz", cap);
      } else {
        snprintf(advice, sizeof(advice), "the contact is too soft for this load or impact "
                 "(%s)", stiffer(m, c));
      }
      cs_metricsNote(mt,
              "contact '%s' (%s) penetrated %.3g m into plane '%s', deeper than 1 cm: %s",
              contactName(m, c->force), kind, c->max_penetration, m->plane[c->plane].name,
              advice);
    }
  }
  // energy from nowhere. Every element stores what it takes, dissipates it, or books the work
  // it puts in (a constant force's as negative dissipation), so KE + PE + dissipated keeps its
  // start value up to integration error, or falls short by what a mechanism does not book (an
  // exponential spring's anchor releasing its stretch). A rise of half the energy in play is
  // an integration that went unstable (a step long enough to drive a contact deep, whose
  // force then throws the body off), whatever the contact diagnostics above say about it.
  // The scale is the most energy the balance has held, |dissipated| included: thousands of
  // joules of work flowing through a long pushed run drift it at loose tolerances by what
  // would be much of its small kinetic energy
  double inPlay = csu_max(mt->energy_seen, fabs(mt->e0));
  // what the scheduled changes stored: the user's doing, which tolerances do not move
  const csChange* change = mt->jump > 0 ? changeBetween(m, mt->jump_t0, mt->jump_t1) : NULL;
  if (mt->e_change > 0.5 * inPlay && change) {
    cs_metricsNote(mt,
            "KE + PE + dissipated rose by %.3g J across the scheduled changes (%.3g J of it "
            "between the reports at %.6g and %.6g s, where the change of '%s' at t = %.6g s "
            "comes): a change that stores energy does that (a stop's bound moved into its "
            "coordinate, a spring stiffened while stretched), and tighter tolerances will not "
            "change it",
            mt->e_change, mt->jump, mt->jump_t0, mt->jump_t1, m->force[change->force].name,
            change->time);
  }
  if (mt->energy_gain > 0.5 * inPlay) {
    cs_metricsNote(mt,
            "KE + PE + dissipated rose by %.3g J above its start value of %.3g J: no element "
            "supplies that energy, so the integration went unstable; tighten rtol and atol (an "
            "explicit integrator, rk, rk23 or adams, may also be replaced by bdf), and read the "
            "contact diagnostics in that light",
            mt->energy_gain, mt->e0);
  }
  // and its fall: a damper or a contact that gave energy where it can only take it books it
  // as negative dissipation, so the balance falls (a foot on Hunt-Crossley contacts at rk's
  // tolerance 0.1 "dissipated" -13,708 J, thrown about, without a word). Not where exponential
  // springs are: the stretch their anchors release is not booked, and a block dragged on them
  // for 20 s (the limit rule) lets the balance fall by 1.5 times its motion's energy
  int exp = 0;
  for (int e = 0; e < m->nforce && !exp; e++) {
    exp = m->force[e].kind == CS_FORCE_EXP_SPRING;
  }
  if (!exp && mt->energy_loss > 0.5 * inPlay) {
    cs_metricsNote(mt,
            "KE + PE + dissipated fell by %.3g J below its start value of %.3g J, more than "
            "half the most energy it held (KE + |PE| + |dissipated|, %.3g J): an element gave "
            "energy where it can only take it (negative dissipation), so the integration went "
            "unstable; tighten rtol and atol (an explicit integrator, rk, rk23 or adams, may "
            "also be replaced by bdf or ark), and read the contact diagnostics in that light",
            mt->energy_loss, mt->e0, inPlay);
  }
  // what the integrator and the elements counted along the way (these were lines of the
  // command's summary alone; as diagnostics --stats, compare and Python have them too)
  if (d->stat.warnings_cvode) {
    cs_metricsNote(mt, "CVODE warned %ld time%s, first: %s", d->stat.warnings_cvode,
                   d->stat.warnings_cvode == 1 ? "" : "s", d->stat.cvode_warning);
  }
  if (d->stat.warnings_nonfinite) {
    cs_metricsNote(mt, "%ld right-hand-side evaluations produced non-finite values and were "
                   "retried with smaller steps", d->stat.warnings_nonfinite);
  }
  if (d->stat.warnings_bushing) {
    cs_metricsNote(mt, "a linear bushing's middle Euler angle came within reach of 90 degrees "
                   "%ld times: its rotational forces are unreliable there; align the bushing "
                   "frames so that the rotation stays away from that angle",
                   d->stat.warnings_bushing);
  }
  // a touch the steps passed over, seen only at reports (integrator.c, passedOver)
  if (d->stat.warnings_passed_over) {
    int e = d->stat.passed_over_force;
    long own = d->stat.warnings_passed_over - d->stat.passed_over_others;
    long others = d->stat.passed_over_others;
    char more[96] = "";
    if (others) {
      snprintf(more, sizeof(more), ", and other contacts or stops at %ld more,", others);
    }
    cs_metricsNote(mt, "'%s' (%s) acted at %ld report%s (the first at t = %.9g s)%s where no "
                   "evaluation of the integrator's steps around %s or after found it acting: the "
                   "steps passed over a touch shorter than a step, so the motion is the one "
                   "without it and the force the reports show was never applied; limit the "
                   "step (max_step, below the touch's duration)%s",
                   contactName(m, e), cs_forceKind(m->force[e].kind)->name, own,
                   own > 1 ? "s" : "", d->stat.passed_over_t, more,
                   d->stat.warnings_passed_over > 1 ? "them" : "it",
                   d->stat.one_step ? " or tighten the tolerances"
                                    : ", tighten the tolerances, or integrate with rk, rk23 or "
                                      "ark, which take a step that passed over a touch again");
  }
  // rk or rk23 held at its stability limit for most of a long run (only they count such steps)
  if (d->stat.nsteps >= 1000 && 2 * d->stat.nstiff >= d->stat.nsteps) {
    cs_metricsNote(mt,
            "the explicit integrator's step was held by its stability limit rather than by the "
            "tolerance on %ld of its %ld steps (h |lambda|, estimated as in Dormand and "
            "Prince's stiffness test, at the method's stability boundary: 3.25 for rk, 2.45 for "
            "rk23): the equations are stiff here "
            "(stiff contacts, the friction dampers of a body held still, stops on light links); "
            "bdf is not bound by stability and may need fewer steps, nor is ark, a linearly "
            "implicit one-step method (docs/scene-format.md, \"Choosing the integrator\")",
            d->stat.nstiff, d->stat.nsteps);
  }
  // a transition velocity so small that the run needs tens of thousands of steps: in one group
  // of bodies (a hundred blocks on a floor take as many steps between them)
  if (d->stat.nsteps_group > 20000) {
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
              "the run took %ld steps%s, and contact '%s' (%s) uses transition_velocity = "
              "%.3g m/s: friction that rises to its static peak within so small a slip speed makes "
              "the equations stiff and is a common cause of short steps; try a transition "
              "velocity near 0.01 m/s (a stuck contact then creeps at up to about that speed)",
              d->stat.nsteps_group, d->stat.ngroup > 1 ? " in its busiest group of bodies" : "",
              contactName(m, at), cs_forceKind(m->force[at].kind)->name, vt);
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
  if (mt->window) {
    csu_free(mt->window, sizeof(csMetricsWindow) * (size_t)(mt->ncontact + mt->nset + 1));
  }
  if (mt->set_size) {
    csu_free(mt->set_size, sizeof(int) * (size_t)(2 * mt->nset + 1));
  }
  mt->window = NULL;
  // leave mt as zeroed, so that freeing twice is harmless
  mt->contact_of = NULL;
  mt->contact = NULL;
  mt->set_fn = mt->set_peak = NULL;
  mt->set_size = mt->set_pick = NULL;
  mt->ncontact = mt->nset = 0;
}


// ---------------------------------------------------------------------------------------------
// saved results

void cs_metricsSavedFree(csMetricsSaved* sv) {
  if (sv->contact) {
    csu_free(sv->contact, sizeof(csMetricsContact) * (size_t)(sv->ncontact + 1));
  }
  if (sv->set_peak) {
    csu_free(sv->set_peak, sizeof(double) * (size_t)(sv->nset + 1));
  }
  if (sv->window) {
    csu_free(sv->window, sizeof(csMetricsWindow) * (size_t)(sv->ncontact + sv->nset + 1));
  }
  memset(sv, 0, sizeof(*sv));
}


int cs_metricsSave(csMetricsSaved* sv, const csMetrics* mt) {
  if (sv->contact && (sv->ncontact != mt->ncontact || sv->nset != mt->nset)) {
    cs_metricsSavedFree(sv);
  }
  if (!sv->contact) {
    sv->ncontact = mt->ncontact;
    sv->nset = mt->nset;
    sv->contact = csu_malloc(sizeof(csMetricsContact) * (size_t)(mt->ncontact + 1));
    sv->set_peak = csu_malloc(sizeof(double) * (size_t)(mt->nset + 1));
    sv->window = csu_malloc(sizeof(csMetricsWindow) * (size_t)(mt->ncontact + mt->nset + 1));
    if (!sv->contact || !sv->set_peak || !sv->window) {
      cs_metricsSavedFree(sv);
      return -1;
    }
  }
  memcpy(sv->contact, mt->contact, sizeof(csMetricsContact) * (size_t)mt->ncontact);
  memcpy(sv->set_peak, mt->set_peak, sizeof(double) * (size_t)mt->nset);
  memcpy(sv->window, mt->window, sizeof(csMetricsWindow) * (size_t)(mt->ncontact + mt->nset));
  sv->max_penetration = mt->max_penetration;
  sv->peak_normal_force = mt->peak_normal_force;
  sv->sliding_distance = mt->sliding_distance;
  sv->stuck_drift = mt->stuck_drift;
  sv->energy_error = mt->energy_error;
  sv->energy_gain = mt->energy_gain;
  sv->energy_loss = mt->energy_loss;
  sv->energy_seen = mt->energy_seen;
  sv->e_change = mt->e_change;
  sv->nreport = mt->nreport;
  sv->last_e = mt->last_e;
  sv->last_t = mt->last_t;
  sv->jump = mt->jump;
  sv->jump_t0 = mt->jump_t0;
  sv->jump_t1 = mt->jump_t1;
  sv->nsteps = mt->nsteps;
  sv->nstuck = mt->nstuck;
  sv->nnotes = mt->nnotes;
  sv->ndropped = mt->ndropped;
  return 0;
}


void cs_metricsRestore(csMetrics* mt, const csMetricsSaved* sv) {
  memcpy(mt->contact, sv->contact, sizeof(csMetricsContact) * (size_t)mt->ncontact);
  memcpy(mt->set_peak, sv->set_peak, sizeof(double) * (size_t)mt->nset);
  memcpy(mt->window, sv->window, sizeof(csMetricsWindow) * (size_t)(mt->ncontact + mt->nset));
  mt->max_penetration = sv->max_penetration;
  mt->peak_normal_force = sv->peak_normal_force;
  mt->sliding_distance = sv->sliding_distance;
  mt->stuck_drift = sv->stuck_drift;
  mt->energy_error = sv->energy_error;
  mt->energy_gain = sv->energy_gain;
  mt->energy_loss = sv->energy_loss;
  mt->energy_seen = sv->energy_seen;
  mt->e_change = sv->e_change;
  mt->nreport = sv->nreport;
  mt->last_e = sv->last_e;
  mt->last_t = sv->last_t;
  mt->jump = sv->jump;
  mt->jump_t0 = sv->jump_t0;
  mt->jump_t1 = sv->jump_t1;
  mt->nsteps = sv->nsteps;
  mt->nstuck = sv->nstuck;
  mt->nnotes = sv->nnotes;
  mt->ndropped = sv->ndropped;
}
