// csv.c: CSV rows of the realized state, and contact columns with --forces.
//
// Columns: t; per body its origin, orientation, origin velocity and angular velocity in Ground;
// per non-free joint its q and u; with --forces, per contact element its force on the touching
// body, contact point, potential energy, dissipated power and model-specific values, per other
// element whose kind reports values (linear stops, bushings) those values, both in element
// order, then per contact set the total force and the centre of pressure; then ke, pe,
// dissipated, e_total.
//
// Values are printed as the shortest text that reads back as the same double (shortest.cc), so
// that comparing two CSVs shows differences of the runs and not of the printing. Header and row are formatted by parallel
// functions that must list the columns in the same order. They format into a caller's buffer,
// not a stream, so that the caller can hand whole rows to write(2): a stdio stream flushes at its
// buffer's boundary, in the middle of a row, and a run killed there leaves a torn last line.
// Stream errors are returned, not printed: the caller decides what a failed write means.
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "contactsim/contactsim.h"
#include "io/shortest.h"


// a contact element is one whose kind is a contact (point or sphere against a plane) and
// reports it (point, force on the touching body)
static int isContact(const csModel* m, int e) {
  const csForceKind* k = cs_forceKind(m->force[e].kind);
  return k->contact != 0 && k->report != NULL;
}


// Any other element whose kind reports values of its own (a stop's generalized force, a
// bushing's coordinates and forces) gets those columns only: it has no contact point.
static int hasExtras(const csModel* m, int e) {
  const csForceKind* k = cs_forceKind(m->force[e].kind);
  return k->report != NULL && k->nextra > 0;
}


// text being formatted: buf holds size bytes; len counts what the text needs, also past size,
// so that the caller learns how large a buffer to offer (as snprintf does)
typedef struct Text {
  char* buf;
  size_t size, len;
} Text;


// append printf-formatted text; what does not fit is counted but not written
__attribute__((format(printf, 2, 3))) static void put(Text* t, const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(t->len < t->size ? t->buf + t->len : NULL,
                    t->len < t->size ? t->size - t->len : 0, fmt, ap);
  va_end(ap);
  t->len += n > 0 ? (size_t)n : 0;
}


// a number in full precision (the hot path of a row), formatted straight into the buffer when
// it has room for any number
static void bare(Text* t, double x) {
  if (t->len + CS_SHORTEST_MAX <= t->size) {
    t->len += cs_formatShortest(t->buf + t->len, CS_SHORTEST_MAX, x);
    return;
  }
  char one[CS_SHORTEST_MAX];
  size_t n = cs_formatShortest(one, sizeof(one), x);
  if (t->len < t->size) {
    memcpy(t->buf + t->len, one, n < t->size - t->len ? n : t->size - t->len);
  }
  t->len += n;
}


// a separator and a number in full precision (the row ends with put, which adds the NUL)
static void num(Text* t, double x) {
  if (t->len < t->size) {
    t->buf[t->len] = ',';
  }
  t->len++;
  bare(t, x);
}


// a header field "NAME.suffix" after a separator, quoted as RFC 4180 asks when the name holds a
// comma, a quote or a line break (scene names are free text), its quotes doubled
static void field(Text* t, const char* name, const char* suffix) {
  if (!strpbrk(name, ",\"\r\n")) {
    put(t, ",%s.%s", name, suffix);
    return;
  }
  put(t, ",\"");
  for (const char* p = name; *p; p++) {
    if (*p == '"') {
      put(t, "\"\"");
    } else {
      put(t, "%c", *p);
    }
  }
  put(t, ".%s\"", suffix);
}


// the fields NAME.s for each suffix s of a space-separated list
static void fields(Text* t, const char* name, const char* suffixes) {
  char one[32];
  for (const char* p = suffixes; *p;) {
    size_t n = strcspn(p, " ");
    snprintf(one, sizeof(one), "%.*s", (int)n, p);
    field(t, name, one);
    p += n + (p[n] == ' ');
  }
}


// the contact columns, per element then per contact set, in the order contactRow writes them
static void contactHeader(Text* t, const csModel* m) {
  for (int e = 0; e < m->nforce; e++) {
    if (!isContact(m, e) && !hasExtras(m, e)) {
      continue;
    }
    const char* n = m->force[e].name;
    const csForceKind* k = cs_forceKind(m->force[e].kind);
    if (isContact(m, e)) {
      fields(t, n, "fx fy fz mx my mz px py pz pe power");
    }
    // the kind's own values, named by its extranames
    for (int i = 0; i < k->nextra; i++) {
      field(t, n, k->extranames[i]);
    }
  }
  // per contact set: its total force and centre of pressure
  for (int g = 0; g < m->ngroup; g++) {
    fields(t, m->group_name[g], "fx fy fz copx copy copz");
  }
}


// The centre of pressure of a contact set. seed 004, Simbody's ContactForce, defines it as the
// point that minimises the net moment of the normal forces; its printed formula weights each point
// by |r_i x Fn_i|, which depends on where the origin is. For normal forces along one direction (a
// flat patch on a plane, the case of every contact set here) the point that makes that moment
// zero is the normal-force-weighted mean of the contact points, which is what is computed: it
// lies under the centre of mass of a body resting flat, wherever the body is.
// One contact element's part of its set's sums s: the force (0-2), the contact point weighted
// by the normal force (3-5) and the normal force (6).
static void addToSet(const csModel* m, const csData* d, int e, const csContactReport* r,
                     double* s) {
  // normal component along the plane's normal
  int plane = m->force[e].ref[1];
  double fn = plane >= 0 ? fabs(csu_dot(r->force.v, csu_column(&d->plane_pose[plane].R, 2)))
                         : csu_norm(r->force.v);
  double v[7] = {r->force.v.x, r->force.v.y, r->force.v.z, fn * r->point.x,
                 fn * r->point.y, fn * r->point.z, fn};
  for (int i = 0; i < 7; i++) {
    s[i] += v[i];
  }
}


// A set's total force and centre of pressure from its sums. With no normal force at all (the
// set is off the ground) the centre of pressure is undefined, and NaN says so in the CSV.
static void setFromSums(const double* s, csVec3* force, csVec3* cop) {
  *force = csu_vec3(s[0], s[1], s[2]);
  *cop = s[6] > 0 ? csu_scale(1.0 / s[6], csu_vec3(s[3], s[4], s[5])) : csu_vec3(NAN, NAN, NAN);
}


void cs_centreOfPressure(const csModel* m, csData* d, int group, csVec3* force, csVec3* cop) {
  double s[7] = {0};
  // the elements of this set that report contacts
  for (int e = 0; e < m->nforce; e++) {
    if (m->force[e].group == group && isContact(m, e)) {
      csContactReport r;
      cs_contactReport(m, d, e, &r);
      addToSet(m, d, e, &r, s);
    }
  }
  setFromSums(s, force, cop);
}



size_t cs_csvFormatHeader(char* buf, size_t size, const csModel* m, const csCsvOptions* opt) {
  Text t = {buf, size, 0};
  put(&t, "t");
  // every body but ground: position and quaternion, then velocity and angular velocity
  for (int b = 1; b < m->nbody; b++) {
    fields(&t, m->body[b].name, "px py pz qw qx qy qz vx vy vz wx wy wz");
  }
  // q and u of every non-free joint; a free joint's would only repeat its body's pose and velocity
  for (int b = 1; b < m->nbody; b++) {
    const csBody* body = &m->body[b];
    if (body->joint == CS_JOINT_FREE) {
      continue;
    }
    char suffix[16];
    for (int i = 0; i < body->qnum; i++) {
      snprintf(suffix, sizeof(suffix), "q%d", i);
      field(&t, body->name, suffix);
    }
    for (int i = 0; i < body->unum; i++) {
      snprintf(suffix, sizeof(suffix), "u%d", i);
      field(&t, body->name, suffix);
    }
  }
  if (opt && opt->forces) {
    contactHeader(&t, m);
  }
  // energies last, with their sum: the conservation check at a glance
  put(&t, ",ke,pe,dissipated,e_total\n");
  return t.len;
}


// the values of contactHeader's columns, in the same order
static void contactRow(Text* t, const csModel* m, csData* d) {
  // the sets' sums are gathered in the same pass (one scan per set would cost sets x elements)
  memset(d->set_sum, 0, sizeof(double) * 7 * (size_t)m->ngroup);
  for (int e = 0; e < m->nforce; e++) {
    if (!isContact(m, e) && !hasExtras(m, e)) {
      continue;
    }
    // the report fills the extras of any kind; the contact columns only for contacts
    csContactReport r;
    cs_contactReport(m, d, e, &r);
    if (isContact(m, e)) {
      double v[11] = {r.force.v.x, r.force.v.y, r.force.v.z, r.force.w.x, r.force.w.y,
                      r.force.w.z, r.point.x,   r.point.y,   r.point.z,   r.pe,        r.power};
      for (int i = 0; i < 11; i++) {
        num(t, v[i]);
      }
      if (m->force[e].group >= 0) {
        addToSet(m, d, e, &r, d->set_sum + 7 * m->force[e].group);
      }
    }
    const double* extra = d->force_extra + m->force[e].repadr;
    for (int i = 0; i < cs_forceKind(m->force[e].kind)->nextra; i++) {
      num(t, extra[i]);
    }
  }
  for (int g = 0; g < m->ngroup; g++) {
    csVec3 force, cop;
    setFromSums(d->set_sum + 7 * g, &force, &cop);
    double v[6] = {force.x, force.y, force.z, cop.x, cop.y, cop.z};
    for (int i = 0; i < 6; i++) {
      num(t, v[i]);
    }
  }
}


// Realized to dynamics first: the contact columns and the potential energy need it.
size_t cs_csvFormatRow(char* buf, size_t size, const csModel* m, csData* d,
                       const csCsvOptions* opt) {
  Text t = {buf, size, 0};
  cs_realizeDynamics(m, d);
  bare(&t, d->t);
  // pose as position and quaternion (w >= 0, from the rotation matrix), then velocities, in Ground
  for (int b = 1; b < m->nbody; b++) {
    const csTransform* X = &d->body_pose[b];
    csQuat q = csu_matToQuat(&X->R);
    const csSpatialVec* V = &d->body_vel[b];
    double v[13] = {X->p.x, X->p.y, X->p.z, q.w,    q.x,    q.y,   q.z,
                    V->v.x, V->v.y, V->v.z, V->w.x, V->w.y, V->w.z};
    for (int i = 0; i < 13; i++) {
      num(&t, v[i]);
    }
  }
  // q and u of non-free joints, as in the header
  for (int b = 1; b < m->nbody; b++) {
    const csBody* body = &m->body[b];
    if (body->joint == CS_JOINT_FREE) {
      continue;
    }
    for (int i = 0; i < body->qnum; i++) {
      num(&t, d->q[body->qadr + i]);
    }
    for (int i = 0; i < body->unum; i++) {
      num(&t, d->u[body->uadr + i]);
    }
  }
  if (opt && opt->forces) {
    contactRow(&t, m, d);
  }
  // e_total is constant up to integration error when every element's energy is accounted for
  double ke = cs_kineticEnergy(m, d), pe = cs_potentialEnergy(m, d);
  double w = cs_dissipatedEnergy(m, d);
  num(&t, ke);
  num(&t, pe);
  num(&t, w);
  num(&t, ke + pe + w);
  put(&t, "\n");
  // zero-terminated also when cut, as snprintf would leave it (numbers are copied, not printed)
  if (size > 0) {
    buf[t.len < size ? t.len : size - 1] = '\0';
  }
  return t.len;
}


// a formatted line written with one fwrite; a line longer than the stack buffer is formatted
// again into one from the heap
static int writeLine(FILE* f, const csModel* m, csData* d, const csCsvOptions* opt) {
  char small[4096];
  size_t n = d ? cs_csvFormatRow(small, sizeof(small), m, d, opt)
               : cs_csvFormatHeader(small, sizeof(small), m, opt);
  char* buf = small;
  if (n >= sizeof(small)) {
    buf = malloc(n + 1);
    if (!buf) {
      return -1;
    }
    if (d) {
      cs_csvFormatRow(buf, n + 1, m, d, opt);
    } else {
      cs_csvFormatHeader(buf, n + 1, m, opt);
    }
  }
  size_t written = fwrite(buf, 1, n, f);
  if (buf != small) {
    free(buf);
  }
  return written == n && !ferror(f) ? 0 : -1;
}


// The header row, matching cs_csvRow column for column; -1 on a stream error.
int cs_csvHeader(FILE* f, const csModel* m, const csCsvOptions* opt) {
  return writeLine(f, m, NULL, opt);
}


// One row for the current state (realized to dynamics here). -1 on a stream error.
int cs_csvRow(FILE* f, const csModel* m, csData* d, const csCsvOptions* opt) {
  return writeLine(f, m, d, opt);
}
