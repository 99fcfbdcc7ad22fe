// data.c: one allocation holding every array of csData, sized from the model up front.
//
// One block rather than one allocation per array: cs_makeData either succeeds or fails whole (no
// half-built data to unwind), cs_deleteData is one free, and nothing is allocated afterwards,
// which is what lets a right-hand-side evaluation allocate nothing.
#include <string.h>

#include "engine/assert.h"
#include "contactsim/contactsim.h"
#include "engine/dynamics.h"

// The arrays of csData: (type, field, number of rows, columns). Used for size computation and
// pointer set-up, so that adding an array is a one-line change.
//
// X-macro: cs_makeData expands the list twice, once to add up the bytes and once to set the
// pointers, so size and layout cannot disagree. Order: the state, then what the position,
// velocity, dynamics and acceleration stages realize, then the articulated-body scratch (6x6
// matrices as 36 doubles, spatial vectors as 6), then the index lists the stages iterate over,
// then the CSV writer's scratch.
#define CS_DATA_ARRAYS(X)                                  \
  X(double, q, m->nq, 1)                                   \
  X(double, u, m->nu, 1)                                   \
  X(double, z, m->nz, 1)                                   \
  X(double, disc, m->ndisc, 1)                             \
  X(double, autoval, m->nauto, 1)                          \
  X(double, auto_cache, m->nauto, 1)                       \
  X(double, commit_t, m->nforce, 1)                        \
  X(csTransform, body_pose, m->nbody, 1)                   \
  X(csTransform, joint_XFM, m->nbody, 1)                   \
  X(csVec3, body_com, m->nbody, 1)                         \
  X(csTransform, plane_pose, m->nplane, 1)                 \
  X(csSpatialVec, body_vel, m->nbody, 1)                   \
  X(double, qdot, m->nq, 1)                                \
  X(csSpatialVec, body_force, m->nbody, 1)                 \
  X(double, mobility_force, m->nu, 1)                      \
  X(double, force_pe, m->nforce, 1)                        \
  X(long, felt_step, m->nforce, 1)                         \
  X(long, suspect_step, m->nforce, 1)                      \
  X(long, suspect_n, m->nforce, 1)                         \
  X(double, suspect_t, m->nforce, 1)                       \
  X(double, force_power, m->nforce, 1)                     \
  X(csVec3, contact_point, m->nforce, 1)                   \
  X(double, zdot, m->nz, 1)                                \
  X(double, udot, m->nu, 1)                                \
  X(csSpatialVec, body_acc, m->nbody, 1)                   \
  X(double, force_extra, m->nextra, 1)                     \
  X(double, aba_I0, m->nbody, 9)                           \
  X(double, aba_IA, m->nbody, 21)                          \
  X(double, aba_pA, m->nbody, 6)                           \
  X(double, aba_c, m->nbody, 6)                            \
  X(double, aba_S, m->nu, 6)                               \
  X(double, aba_U, m->nu, 6)                               \
  X(double, aba_Dinv, m->nu, 6)                            \
  X(double, aba_utau, m->nu, 1)                            \
  X(double, aba_Iinv, m->nbody, 9)                         \
  X(int, aba_freeLeaf, m->nbody, 1)                        \
  X(double, aba_pinLeaf, m->nbody, 1)                      \
  X(double, aba_Sbody, m->nu, 6)                           \
  X(int, aba_plainMB, m->nbody, 1)                         \
  X(int, aba_plainPF, m->nbody, 1)                         \
  X(int, aba_diagI0, m->nbody, 1)                          \
  X(int, aba_planar, m->nbody, 1)                          \
  X(double, aba_plane, m->nbody, 12)                       \
  X(double, aba_acc2, m->nbody, 3)                         \
  X(double, aba_r2, m->nbody, 2)                           \
  X(double, aba_k2, m->nbody, CS_K2_SIZE)                  \
  X(int, all_body, m->nbody, 1)                            \
  X(int, all_force, m->nforce, 1)                          \
  X(int, all_plane, m->nplane, 1)                          \
  X(double, set_sum, m->ngroup, 7)

// every array starts on a 16-byte boundary
// (what malloc guarantees), so every type in the list is aligned whatever precedes it
static size_t align16(size_t n) {
  return (n + 15) & ~(size_t)15;
}


// Size, allocate, carve, then fill what depends only on the model; NULL when out of memory.
csData* cs_makeData(const csModel* m) {
  CS_ASSERT(m->finalized, "cs_makeData needs a finalized model: call cs_finalizeModel after the "
                          "last cs_add* call");
  // first pass: the struct itself, then every array rounded up to the alignment
  size_t nbytes = align16(sizeof(csData));
#define CS_SIZE(type, name, rows, cols) nbytes += align16(sizeof(type) * (size_t)(rows) * (cols));
  CS_DATA_ARRAYS(CS_SIZE)
#undef CS_SIZE
  // one zeroed block for everything
  unsigned char* buf = csu_malloc(nbytes);
  if (!buf) {
    return NULL;
  }
  csData* d = (csData*)buf;
  d->nbytes = nbytes;
  // second pass: the struct at the start, each array at the next aligned offset, in list order
  size_t off = align16(sizeof(csData));
#define CS_POINTER(type, name, rows, cols)     \
  d->name = (type*)(buf + off);                \
  off += align16(sizeof(type) * (size_t)(rows) * (cols));
  CS_DATA_ARRAYS(CS_POINTER)
#undef CS_POINTER
  // sizes copied so that code given only the data can loop over its arrays
  d->nbody = m->nbody;
  d->nq = m->nq;
  d->nu = m->nu;
  d->nz = m->nz;
  d->ndisc = m->ndisc;
  d->nauto = m->nauto;
  // the identity lists cs_activateAll points the stages at (ground is never integrated)
  for (int b = 1; b < m->nbody; b++) {
    d->all_body[b - 1] = b;
  }
  for (int e = 0; e < m->nforce; e++) {
    d->all_force[e] = e;
  }
  for (int p = 0; p < m->nplane; p++) {
    d->all_plane[p] = p;
  }
  // everything active; spatial inertias depend only on the model, so they are computed once here
  // and never in the right-hand side; then the initial state
  cs_activateAll(m, d);
  cs_spatialInertias(m, d);
  cs_resetData(m, d);
  return d;
}


// The default activation: the stages work on the whole model. The integrator narrows it to one
// group while that group steps and restores it for reports; lists are pointed at, never copied.
void cs_activateAll(const csModel* m, csData* d) {
  d->act_body = d->all_body;
  d->nact_body = m->nbody - 1;
  d->act_force = d->all_force;
  d->nact_force = m->nforce;
  d->act_plane = d->all_plane;
  d->nact_plane = m->nplane;
  // values realized for another set of bodies cannot be reused
  cs_invalidate(d);
}


void cs_deleteData(csData* d) {
  if (d) {
    csu_free(d, d->nbytes);
  }
}


// The state only (t, q, u, z, discrete and auto-update values with their cache, commit time):
// what a checkpoint holds. dst's realized quantities are invalidated; statistics stay.
void cs_copyState(const csModel* m, csData* dst, const csData* src) {
  dst->t = src->t;
  dst->auto_dt = src->auto_dt;
  memcpy(dst->commit_t, src->commit_t, sizeof(double) * (size_t)m->nforce);
  memcpy(dst->q, src->q, sizeof(double) * (size_t)m->nq);
  memcpy(dst->u, src->u, sizeof(double) * (size_t)m->nu);
  memcpy(dst->z, src->z, sizeof(double) * (size_t)m->nz);
  memcpy(dst->disc, src->disc, sizeof(double) * (size_t)m->ndisc);
  memcpy(dst->autoval, src->autoval, sizeof(double) * (size_t)m->nauto);
  memcpy(dst->auto_cache, src->auto_cache, sizeof(double) * (size_t)m->nauto);
  cs_invalidate(dst);
}


// Back to the model's initial state at t = 0. Element variables start at zero and are then set
// by each element's init callback, which may read positions and velocities, so those are
// realized first.
void cs_resetData(const csModel* m, csData* d) {
  memset(&d->stat, 0, sizeof(d->stat));
  d->t = 0;
  d->auto_dt = 0;
  memset(d->commit_t, 0, sizeof(double) * (size_t)m->nforce);
  // the model's initial q and u; element variables zero until their init sets them
  memcpy(d->q, m->q0, sizeof(double) * (size_t)m->nq);
  memcpy(d->u, m->u0, sizeof(double) * (size_t)m->nu);
  memset(d->z, 0, sizeof(double) * (size_t)m->nz);
  memset(d->disc, 0, sizeof(double) * (size_t)m->ndisc);
  memset(d->autoval, 0, sizeof(double) * (size_t)m->nauto);
  memset(d->auto_cache, 0, sizeof(double) * (size_t)m->nauto);
  cs_invalidate(d);
  cs_realizePosition(m, d);
  cs_realizeVelocity(m, d);
  // each element sets its discrete and auto-update variables from the initial state
  for (int e = 0; e < m->nforce; e++) {
    const csForceKind* k = cs_forceKind(m->force[e].kind);
    if (k->init) {
      k->init(m, d, e);
    }
  }
  // the cache equals the values, so a commit before any update changes nothing
  for (int i = 0; i < m->nauto; i++) {
    d->auto_cache[i] = d->autoval[i];
  }
  // init may have changed discrete variables that realized values depended on
  cs_invalidate(d);
}
