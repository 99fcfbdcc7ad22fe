// forces.c: the dynamics stage. Zero the accumulators, let every force element add its forces,
// and the services force elements share (applying forces, energies, reports, discrete and
// auto-update variables).
#include <string.h>

#include "assert.h"
#include "contactsim/contactsim.h"
#include "forces.h"

// indexed by csForceKindId
static const csForceKind* const g_kinds[CS_FORCE_KIND_COUNT] = {
    [CS_FORCE_GRAVITY] = &cs_kindGravity,
    [CS_FORCE_SPRING] = &cs_kindSpring,
    [CS_FORCE_MOBILITY_SPRING] = &cs_kindMobilitySpring,
    [CS_FORCE_MOBILITY_DAMPER] = &cs_kindMobilityDamper,
    [CS_FORCE_CONSTANT] = &cs_kindConstant,
    [CS_FORCE_EXP_SPRING] = &cs_kindExpSpring,
    [CS_FORCE_SMOOTH_SPHERE] = &cs_kindSmoothSphere,
    [CS_FORCE_HUNT_CROSSLEY] = &cs_kindHuntCrossley,
    [CS_FORCE_COMPLIANT_POINT] = &cs_kindCompliantPoint,
    [CS_FORCE_LINEAR_STOP] = &cs_kindLinearStop,
    [CS_FORCE_LINEAR_BUSHING] = &cs_kindLinearBushing,
    [CS_FORCE_COUNTER] = &cs_kindCounter,
};


const csForceKind* cs_forceKind(int id) {
  return (id >= 0 && id < CS_FORCE_KIND_COUNT) ? g_kinds[id] : NULL;
}


int cs_forceKindByName(const char* name) {
  for (int i = 0; i < CS_FORCE_KIND_COUNT; i++) {
    if (strcmp(g_kinds[i]->name, name) == 0) {
      return i;
    }
  }
  return -1;
}


void cs_realizeDynamics(const csModel* m, csData* d) {
  if (d->stage >= CS_STAGE_DYNAMICS) {
    return;
  }
  d->stat.nstage[2]++;
  cs_realizeVelocity(m, d);
  // zero the accumulators of what is active
  for (int i = 0; i < d->nact_body; i++) {
    const csBody* body = &m->body[d->act_body[i]];
    memset(&d->body_force[d->act_body[i]], 0, sizeof(csSpatialVec));
    memset(d->mobility_force + body->uadr, 0, sizeof(double) * (size_t)body->unum);
  }
  for (int i = 0; i < d->nact_force; i++) {
    const csForce* f = &m->force[d->act_force[i]];
    if (f->dissadr >= 0) {
      d->zdot[f->dissadr] = 0;
    }
    memset(d->zdot + f->zadr, 0, sizeof(double) * (size_t)f->znum);
  }
  for (int i = 0; i < d->nact_force; i++) {
    int e = d->act_force[i];
    const csForce* f = &m->force[e];
    d->force_pe[e] = 0;
    d->force_power[e] = 0;
    cs_forceKind(f->kind)->apply(m, d, e);
    if (f->dissadr >= 0) {
      d->zdot[f->dissadr] = d->force_power[e];
    }
  }
  d->stage = CS_STAGE_DYNAMICS;
}


int cs_forward(const csModel* m, csData* d) {
  cs_realizeAcceleration(m, d);
  // a non-finite acceleration or dissipation rate anywhere active
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
  if (!finite) {
    d->stat.warnings_nonfinite++;
    return 1;
  }
  return 0;
}


void cs_applyForceAtPoint(const csModel* m, csData* d, int body, csVec3 point_G, csVec3 force_G) {
  CS_ASSERT(body >= 0 && body < m->nbody, "cs_applyForceAtPoint was given a body id that does "
                                          "not exist in the model");
  if (body <= 0) {
    return;
  }
  csSpatialVec* F = &d->body_force[body];
  csVec3 r = csu_sub(point_G, d->body_pose[body].p);
  F->w = csu_add(F->w, csu_cross(r, force_G));
  F->v = csu_add(F->v, force_G);
}


void cs_applyTorque(const csModel* m, csData* d, int body, csVec3 torque_G) {
  CS_ASSERT(body >= 0 && body < m->nbody, "cs_applyTorque was given a body id that does not "
                                          "exist in the model");
  if (body <= 0) {
    return;
  }
  d->body_force[body].w = csu_add(d->body_force[body].w, torque_G);
}


double cs_potentialEnergy(const csModel* m, const csData* d) {
  double pe = 0;
  for (int e = 0; e < m->nforce; e++) {
    pe += d->force_pe[e];
  }
  return pe;
}


double cs_dissipatedEnergy(const csModel* m, const csData* d) {
  double w = 0;
  for (int e = 0; e < m->nforce; e++) {
    if (m->force[e].dissadr >= 0) {
      w += d->z[m->force[e].dissadr];
    }
  }
  return w;
}


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


void cs_commitAutoUpdates(const csModel* m, csData* d) {
  if (m->nauto == 0) {
    d->t_commit = d->t;
    return;
  }
  cs_realizeDynamics(m, d);
  d->auto_dt = d->t - d->t_commit;
  // the cache starts as the current values, each active element writes its new ones, and the
  // cache is committed; only active elements' ranges are touched (one group's step costs the
  // same however many other groups there are)
  for (int i = 0; i < d->nact_force; i++) {
    const csForce* f = &m->force[d->act_force[i]];
    memcpy(d->auto_cache + f->autoadr, d->autoval + f->autoadr,
           sizeof(double) * (size_t)f->autonum);
  }
  for (int i = 0; i < d->nact_force; i++) {
    int e = d->act_force[i];
    const csForceKind* k = cs_forceKind(m->force[e].kind);
    if (k->update) {
      k->update(m, d, e);
    }
  }
  for (int i = 0; i < d->nact_force; i++) {
    const csForce* f = &m->force[d->act_force[i]];
    memcpy(d->autoval + f->autoadr, d->auto_cache + f->autoadr,
           sizeof(double) * (size_t)f->autonum);
  }
  d->t_commit = d->t;
  d->stat.ncommit++;
  cs_invalidate(d);
}
