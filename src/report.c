// report.c: CSV rows of the realized state, and contact columns with --forces.
//
// Columns: t; per body its origin, orientation, origin velocity and angular velocity in Ground;
// per non-free joint its q and u; with --forces, per contact element its force on the touching
// body, contact point, potential energy, dissipated power and model-specific values, and per
// contact set the total force and the centre of pressure; then ke, pe, dissipated, e_total.
#include <stdio.h>

#include "contactsim/contactsim.h"


static int isContact(const csModel* m, int e) {
  return cs_forceKind(m->force[e].kind)->report != NULL;
}


static void contactHeader(FILE* f, const csModel* m) {
  for (int e = 0; e < m->nforce; e++) {
    if (!isContact(m, e)) {
      continue;
    }
    const char* n = m->force[e].name;
    const csForceKind* k = cs_forceKind(m->force[e].kind);
    fprintf(f, ",%s.fx,%s.fy,%s.fz,%s.mx,%s.my,%s.mz,%s.px,%s.py,%s.pz,%s.pe,%s.power", n, n, n,
            n, n, n, n, n, n, n, n);
    for (int i = 0; i < k->nextra; i++) {
      fprintf(f, ",%s.%s", n, k->extranames[i]);
    }
  }
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
  *force = sum;
  *cop = wsum > 0 ? csu_scale(1.0 / wsum, weighted) : csu_vec3(NAN, NAN, NAN);
}


int cs_csvHeader(FILE* f, const csModel* m, const csCsvOptions* opt) {
  fprintf(f, "t");
  for (int b = 1; b < m->nbody; b++) {
    const char* n = m->body[b].name;
    fprintf(f, ",%s.px,%s.py,%s.pz,%s.qw,%s.qx,%s.qy,%s.qz", n, n, n, n, n, n, n);
    fprintf(f, ",%s.vx,%s.vy,%s.vz,%s.wx,%s.wy,%s.wz", n, n, n, n, n, n);
  }
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
  fprintf(f, ",ke,pe,dissipated,e_total\n");
  return ferror(f) ? -1 : 0;
}


static void contactRow(FILE* f, const csModel* m, csData* d) {
  for (int e = 0; e < m->nforce; e++) {
    if (!isContact(m, e)) {
      continue;
    }
    csContactReport r;
    cs_contactReport(m, d, e, &r);
    fprintf(f, ",%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g", r.force.v.x,
            r.force.v.y, r.force.v.z, r.force.w.x, r.force.w.y, r.force.w.z, r.point.x,
            r.point.y, r.point.z, r.pe, r.power);
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


int cs_csvRow(FILE* f, const csModel* m, csData* d, const csCsvOptions* opt) {
  cs_realizeDynamics(m, d);
  fprintf(f, "%.17g", d->t);
  for (int b = 1; b < m->nbody; b++) {
    const csTransform* X = &d->body_pose[b];
    csQuat q = csu_matToQuat(&X->R);
    const csSpatialVec* V = &d->body_vel[b];
    fprintf(f, ",%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g", X->p.x, X->p.y, X->p.z, q.w, q.x,
            q.y, q.z);
    fprintf(f, ",%.17g,%.17g,%.17g,%.17g,%.17g,%.17g", V->v.x, V->v.y, V->v.z, V->w.x, V->w.y,
            V->w.z);
  }
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
  double ke = cs_kineticEnergy(m, d), pe = cs_potentialEnergy(m, d);
  double w = cs_dissipatedEnergy(m, d);
  fprintf(f, ",%.17g,%.17g,%.17g,%.17g\n", ke, pe, w, ke + pe + w);
  return ferror(f) ? -1 : 0;
}
