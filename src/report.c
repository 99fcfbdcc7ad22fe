// report.c: CSV rows of the realized state.
#include <stdio.h>

#include "contactsim/contactsim.h"


int cs_csvHeader(FILE* f, const csModel* m, const csCsvOptions* opt) {
  (void)opt;
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
  fprintf(f, ",ke,pe,dissipated,e_total\n");
  return ferror(f) ? -1 : 0;
}


int cs_csvRow(FILE* f, const csModel* m, csData* d, const csCsvOptions* opt) {
  (void)opt;
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
  double ke = cs_kineticEnergy(m, d), pe = cs_potentialEnergy(m, d);
  double w = cs_dissipatedEnergy(m, d);
  fprintf(f, ",%.17g,%.17g,%.17g,%.17g\n", ke, pe, w, ke + pe + w);
  return ferror(f) ? -1 : 0;
}
