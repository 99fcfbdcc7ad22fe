// csv.c: CSV rows of the realized state, and contact columns with --forces.
//
// Columns: t; per body its origin, orientation, origin velocity and angular velocity in Ground;
// per non-free joint its q and u; with --forces, per contact element its force on the touching
// body, contact point, potential energy, dissipated power and model-specific values, per other
// element whose kind reports values (linear stops, bushings) those values, both in element
// order, then per contact set the total force and the centre of pressure; then ke, pe,
// dissipated, e_total.
//
// Values are printed with %.17g, which reads back as the same double, so that comparing two CSVs
// shows differences of the runs and not of the printing. Header and row are written by parallel
// functions that must list the columns in the same order. Stream errors are returned, not printed:
// the caller decides what a failed write means.
#include <stdio.h>

#include "contactsim/contactsim.h"


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


// the contact columns, per element then per contact set, in the order contactRow writes them
static void contactHeader(FILE* f, const csModel* m) {
  for (int e = 0; e < m->nforce; e++) {
    if (!isContact(m, e) && !hasExtras(m, e)) {
      continue;
    }
    const char* n = m->force[e].name;
    const csForceKind* k = cs_forceKind(m->force[e].kind);
    if (isContact(m, e)) {
      fprintf(f, ",%s.fx,%s.fy,%s.fz,%s.mx,%s.my,%s.mz,%s.px,%s.py,%s.pz,%s.pe,%s.power", n, n,
              n, n, n, n, n, n, n, n, n);
    }
    // the kind's own values, named by its extranames
    for (int i = 0; i < k->nextra; i++) {
      fprintf(f, ",%s.%s", n, k->extranames[i]);
    }
  }
  // per contact set: its total force and centre of pressure
  for (int g = 0; g < m->ngroup; g++) {
    const char* n = m->group_name[g];
    fprintf(f, ",%s.fx,%s.fy,%s.fz,%s.copx,%s.copy,%s.copz", n, n, n, n, n, n);
  }
}


// The centre of pressure of a contact set. seeds/004_contact_force.txt defines it as the point
// that minimises the net moment of the normal forces; its printed formula weights each point by
// |r_i x Fn_i|, which depends on where the origin is. For normal forces along one direction (a
// flat patch on a plane, the case of every contact set here) the point that makes that moment
// zero is the normal-force-weighted mean of the contact points, which is what is computed: it
// lies under the centre of mass of a body resting flat, wherever the body is.
void cs_centreOfPressure(const csModel* m, csData* d, int group, csVec3* force, csVec3* cop) {
  csVec3 sum = csu_vec3(0, 0, 0), weighted = csu_vec3(0, 0, 0);
  double wsum = 0;
  // the elements of this set that report contacts
  for (int e = 0; e < m->nforce; e++) {
    if (m->force[e].group != group || !isContact(m, e)) {
      continue;
    }
    csContactReport r;
    cs_contactReport(m, d, e, &r);
    sum = csu_add(sum, r.force.v);
    // normal component along the plane's normal
    int plane = m->force[e].ref[1];
    double fn = plane >= 0 ? fabs(csu_dot(r.force.v, csu_column(&d->plane_pose[plane].R, 2)))
                           : csu_norm(r.force.v);
    weighted = csu_addScaled(weighted, fn, r.point);
    wsum += fn;
  }
  // no normal force at all (the set is off the ground): the centre of pressure is undefined, and
  // NaN says so in the CSV
  *force = sum;
  *cop = wsum > 0 ? csu_scale(1.0 / wsum, weighted) : csu_vec3(NAN, NAN, NAN);
}


// The header row, matching cs_csvRow column for column; -1 on a stream error.
int cs_csvHeader(FILE* f, const csModel* m, const csCsvOptions* opt) {
  fprintf(f, "t");
  // every body but ground: position and quaternion, then velocity and angular velocity
  for (int b = 1; b < m->nbody; b++) {
    const char* n = m->body[b].name;
    fprintf(f, ",%s.px,%s.py,%s.pz,%s.qw,%s.qx,%s.qy,%s.qz", n, n, n, n, n, n, n);
    fprintf(f, ",%s.vx,%s.vy,%s.vz,%s.wx,%s.wy,%s.wz", n, n, n, n, n, n);
  }
  // q and u of every non-free joint; a free joint's would only repeat its body's pose and velocity
  for (int b = 1; b < m->nbody; b++) {
    const csBody* body = &m->body[b];
    if (body->joint == CS_JOINT_FREE) {
      continue;
    }
    for (int i = 0; i < body->qnum; i++) {
      fprintf(f, ",%s.q%d", body->name, i);
    }
    for (int i = 0; i < body->unum; i++) {
      fprintf(f, ",%s.u%d", body->name, i);
    }
  }
  if (opt && opt->forces) {
    contactHeader(f, m);
  }
  // energies last, with their sum: the conservation check at a glance
  fprintf(f, ",ke,pe,dissipated,e_total\n");
  return ferror(f) ? -1 : 0;
}


// the values of contactHeader's columns, in the same order
static void contactRow(FILE* f, const csModel* m, csData* d) {
  for (int e = 0; e < m->nforce; e++) {
    if (!isContact(m, e) && !hasExtras(m, e)) {
      continue;
    }
    // the report fills the extras of any kind; the contact columns only for contacts
    csContactReport r;
    cs_contactReport(m, d, e, &r);
    if (isContact(m, e)) {
      fprintf(f, ",%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g",
              r.force.v.x, r.force.v.y, r.force.v.z, r.force.w.x, r.force.w.y, r.force.w.z,
              r.point.x, r.point.y, r.point.z, r.pe, r.power);
    }
    const double* extra = d->force_extra + m->force[e].repadr;
    for (int i = 0; i < cs_forceKind(m->force[e].kind)->nextra; i++) {
      fprintf(f, ",%.17g", extra[i]);
    }
  }
  for (int g = 0; g < m->ngroup; g++) {
    csVec3 force, cop;
    cs_centreOfPressure(m, d, g, &force, &cop);
    fprintf(f, ",%.17g,%.17g,%.17g,%.17g,%.17g,%.17g", force.x, force.y, force.z, cop.x, cop.y,
            cop.z);
  }
}


// One row for the current state. Realized to dynamics first: the contact columns and the potential
// energy need it. -1 on a stream error.
int cs_csvRow(FILE* f, const csModel* m, csData* d, const csCsvOptions* opt) {
  cs_realizeDynamics(m, d);
  fprintf(f, "%.17g", d->t);
  // pose as position and quaternion (w >= 0, from the rotation matrix), then velocities, in Ground
  for (int b = 1; b < m->nbody; b++) {
    const csTransform* X = &d->body_pose[b];
    csQuat q = csu_matToQuat(&X->R);
    const csSpatialVec* V = &d->body_vel[b];
    fprintf(f, ",%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g", X->p.x, X->p.y, X->p.z, q.w, q.x,
            q.y, q.z);
    fprintf(f, ",%.17g,%.17g,%.17g,%.17g,%.17g,%.17g", V->v.x, V->v.y, V->v.z, V->w.x, V->w.y,
            V->w.z);
  }
  // q and u of non-free joints, as in the header
  for (int b = 1; b < m->nbody; b++) {
    const csBody* body = &m->body[b];
    if (body->joint == CS_JOINT_FREE) {
      continue;
    }
    for (int i = 0; i < body->qnum; i++) {
      fprintf(f, ",%.17g", d->q[body->qadr + i]);
    }
    for (int i = 0; i < body->unum; i++) {
      fprintf(f, ",%.17g", d->u[body->uadr + i]);
    }
  }
  if (opt && opt->forces) {
    contactRow(f, m, d);
  }
  // e_total is constant up to integration error when every element's energy is accounted for
  double ke = cs_kineticEnergy(m, d), pe = cs_potentialEnergy(m, d);
  double w = cs_dissipatedEnergy(m, d);
  fprintf(f, ",%.17g,%.17g,%.17g,%.17g\n", ke, pe, w, ke + pe + w);
  return ferror(f) ? -1 : 0;
}
