// integrator.c: the integrator loop, and the only file that includes SUNDIALS (CVODE, and ARKODE
// for the tables of ark.c).
//
// CVODE is driven one step at a time (CV_ONE_STEP) so that, after each successful step, reports
// due within the step are interpolated (CVodeGetDky) and then every force element's auto-update
// discrete variables are computed from the state at the end of the step and committed, exactly
// once per successful step and never on rejected trials. Scheduled discrete changes are applied
// at their exact times (CVODE's stop time), followed by a re-initialisation because the
// right-hand side jumps there.
//
// Bodies that neither share a tree below ground nor a force element cannot influence each
// other: a pile of blocks on a floor is that many independent problems. Integrating them as one
// system would make every block take the small steps any one of them needs at its impacts, so
// that the number of steps grows with the number of blocks and the work with its square. Each
// coupled group therefore gets its own CVODE instance (its own step sizes, order and dense
// Jacobian, which is the block-diagonal structure exploited exactly); the groups are advanced in
// turn to each report time, where their interpolants give one consistent state. Requesting a
// particular linear solver (dense, band, gmres) integrates the whole system as one group
// instead, ordered body by body so that decoupled bodies give a banded Jacobian.
//
// The third integrator, "rk", is the explicit Dormand-Prince 5(4) pair of rk.c (and "rk23" its
// Bogacki-Shampine 3(2) pair) with the same loop: one step at a time, reports from its dense
// output, the same commit after each step. A one-step method keeps no history that a commit
// could invalidate, but it keeps the derivative at the end of the step for the first stage of
// the next one; when the commit (or the quaternions' renormalisation, for which an explicit
// method has no projection) changes the right-hand side, the group is reset at its current
// state (the step size and the controller's memory are kept), so that the next step starts
// from a fresh derivative. The fourth, "ark", is the same object with ark.c's linearly implicit
// additive pair in place of the explicit one (its tables loaded here from ARKODE,
// cs_arkTableLoad).
#include <float.h>
#include <stdarg.h>
#include <stdio.h>  // also for arkode_butcher.h, which uses FILE without including it
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <arkode/arkode_butcher_dirk.h>
#include <arkode/arkode_butcher_erk.h>
#include <cvode/cvode.h>
#include <cvode/cvode_proj.h>
#include <nvector/nvector_serial.h>
#include <sundials/sundials_types.h>
#include <sunlinsol/sunlinsol_band.h>
#include <sunlinsol/sunlinsol_spgmr.h>
#include <sunmatrix/sunmatrix_band.h>
#include <sunmatrix/sunmatrix_dense.h>
#include <sunnonlinsol/sunnonlinsol_fixedpoint.h>

#include "contactsim/contactsim.h"
#include "engine/dynamics.h"
#include "engine/error.h"
#include "engine/integrator.h"
#include "engine/jacobian.h"
#include "engine/metrics.h"
#include "engine/rk.h"
#include "engine/sundials_ops.h"

// SUNDIALS 6.x / 7.x differences: context creation takes a communicator in 7.x, the real type
// is sunrealtype in both (realtype was removed in 7.x), and 7.x replaced the per-solver error
// handler by the context's error handler stack.
#if SUNDIALS_VERSION_MAJOR >= 7
#define CS_SUN_CONTEXT_CREATE(ctx) SUNContext_Create(SUN_COMM_NULL, (ctx))
#else
#define CS_SUN_CONTEXT_CREATE(ctx) SUNContext_Create(NULL, (ctx))
#endif


typedef struct csIntegrator Sim;

// a free body's positions and speeds: quaternion and origin, angular and linear velocity
enum { FREE_BLOCK = 13 };

// one coupled group of bodies with its own CVODE instance; CVODE's user_data
typedef struct Group {
  Sim* sim;
  int nused;               // states of the group in the data
  int nstate;              // length of the CVODE vector (nused, at least 1)
  double** slot;           // (nused) where CVODE's state i lives in the data (q, u or z)
  double** rate;           // (nused) where its time derivative lives (qdot, udot or zdot)
  int* quat;               // (nquat) CVODE index of the first entry of each quaternion
  int nquat;
  int* bodies;             // (nbodies) the group's bodies, increasing ids
  int* forces;             // (nforces) its force elements (and those that act on every body)
  int* planes;             // (nplanes) planes on its bodies or on ground
  int nbodies, nforces, nplanes;
  int upper, lower;        // Jacobian half-bandwidths in the group's state order
  int linsol;              // csLinearSolver in use
  void* mem;               // CVODE's
  csRk* rk;                // rk's (rk.c), on y's array
  // ytmp is scratch: an interpolated state for a report; within tryStep, the state before a
  // CVODE step
  N_Vector y, ytmp, atolv;
  SUNMatrix A;
  SUNLinearSolver LS;
  SUNNonlinearSolver NLS;
  sunrealtype t;           // time CVODE has reached
  int pending;             // its last step ended at or after a report: commit after reporting
  int onset_seen;          // rk: holdStep found the next onset from the pending step's end
  int changed;             // a scheduled change touched it: re-initialise
  int* onset;              // (nonset) its elements whose force has an onset (contacts, stops)
  int nonset;
  // rk: their gaps (csForceKind.gaps: ngap triples, element after element) at the step's start,
  // gap_t, found with its next onset (nextOnset); gap_end the same at the end of the last try
  // checked (grazeWithin), gap_end_t. NaN: not known
  double* gap;
  double* gap_end;
  int ngap, ngap_end;
  double gap_t, gap_end_t;
  long stepno;             // its steps, counted from 1: the one being taken or held (pending)
  long felt_from;          // stepno at its last (re)start, which no evaluation had seen before
  int fresh;               // no step taken since CVodeInit or CVodeReInit: nothing to restart
  double t_retried;        // when a failing step was last restarted (stepGroup); -inf: never
  long steps_since_report;
  double budget_tw;        // the time the budget's last window of steps began at
  double budget_end;       // cs_integratorAdvance: the report-grid time the budget runs to
  csStats banked;          // CVODE counters from before re-initialisations
  // the reduced Newton system of a chain (schurLayout): per body the CVODE index of its
  // coordinate and speed, and the indices of the dissipated energies
  int schur;               // 1: a chain of pins and sliders (schurLayout), whose reduced system
                           // BDF solves (and ark, through ArkChain, when it has 8+ bodies)
  int* iq;                 // (nbodies)
  int* iu;                 // (nbodies)
  int* iz;                 // (nz_schur)
  int nz_schur;
  long schur_rhs;          // right-hand sides spent on its difference-quotient Jacobians
  long dense_rhs;          // the same for its dense Jacobians (denseJac)
  // the chain's Jacobian from its mass matrix (schurModelJac), when every element of the group
  // gives its own derivatives (csForceKind.mobilityJacobian)
  int schur_model;         // 1: in use
  int* parent_idx;         // (nbodies) index of each body's parent in bodies, -1: ground
  // ark's Jacobian of a group that is one free body, from its elements, and its linear systems
  // (jacobian.c); NULL: ark's own difference quotients and dense LU (or not ark)
  csFreeSystem* free;
  // ark's Jacobian of a chain of pins and sliders, from its mass matrix (arkChainSystem); NULL:
  // not such a chain, or not ark
  struct ArkChain* arkchain;
} Group;

// everything the loop needs (no globals); it lives from one call to the next, so that a
// simulation can be advanced repeatedly with the same CVODE instances
struct csIntegrator {
  const csModel* m;
  csData* d;
  csSimOptions opt;
  const csReporter* rep;   // of the call in progress (nullable)
  SUNContext ctx;
  Group* group;            // (ngroup)
  int ngroup;
  int* force_group;        // (nforce) group of each element, -1: acts in every group
  double cpu_reporting;    // CPU time spent in reports (not integration)
  long nhook;              // step hooks called (one in HOOK_SAMPLE is timed)
  double hook_sampled;     // CPU time of the timed step hooks, s
  long nhook_sampled;      // step hooks timed
  double clock_cost;       // CPU time of one read of the CPU clock (cpuClockCost)
  char cvmsg[CS_MAX_ERROR];// CVODE's last error message
  double tcur;             // time the data stands at: every group's integrator is at or past it
  int nchange_done;        // scheduled changes applied so far (m->change is sorted by time)
  double cpu_integration;  // CPU time of the integration in this integrator's calls, s
  long nrestart;           // re-initialisations after changes and state edits
  int rk;                  // 1: the explicit Runge-Kutta pair of rk.c instead of CVODE
  double* dfdq;            // (nu) the elements' d(generalized force)/dq, for the group whose
                           // Jacobian is being formed (schurModelJac); one pair for all groups
  double* dfdu;            // (nu) and d/du
  double* auto_before;     // (nauto) rk: auto-update values before a commit, to see a change
  // with several groups, the state at the last time they stood together (the data as the last
  // gather left it: a report, a step's end, the start or a restart), which a failure returns to
  // (backToAccepted); NULL with one group, whose failure returns to its own last step
  csData* together;
  int together_nchange;    // scheduled changes applied by then
  int budget_grid;         // in cs_integratorAdvance: step budgets by the report grid (no reports)
};

// One step hook in this many is timed with the CPU clock and the total estimated from them: a
// read of that clock is a system call (0.6 us measured on the reference machine, a sixth of a
// step), too dear to pay twice per step, while the monotonic clock, cheap as it is, counts the
// time the process spends preempted and made the integration time read 16x low under load.
#define HOOK_SAMPLE 16


// ---------------------------------------------------------------------------------------------
// grouping and state layout
//
// Within a group the states are ordered body by body: q and u of a body, then the z states of
// the force elements whose highest-numbered body it is.

// union-find over body ids: the root of i's component, pointing each node visited at its
// grandparent on the way (path halving) so that later finds are short
static int findRoot(int* parent, int i) {
  while (parent[i] != i) {
    parent[i] = parent[parent[i]];
    i = parent[i];
  }
  return i;
}


// merge the components of a and b. Ground (0) is never merged: it does not move, so two bodies
// that only both touch ground cannot influence each other.
static void unite(int* parent, int a, int b) {
  if (a > 0 && b > 0) {
    parent[findRoot(parent, a)] = findRoot(parent, b);
  }
}


// unite every moving body an element refers to (through body or plane parameters): they push
// on each other through it. Bodies welded to ground count as ground: a floor on a welded base
// must not tie together every block that touches it.
static void uniteThrough(const csModel* m, const csForce* f, int* parent) {
  const csForceKind* k = cs_forceKind(f->kind);
  for (int i = 0; i < k->nparams; i++) {
    const csParamInfo* p = &k->params[i];
    int b = -1;
    if (p->type == CS_PARAM_BODY) {
      b = f->ref[p->slot];
    } else if (p->type == CS_PARAM_PLANE && f->ref[p->slot] >= 0) {
      b = m->plane[f->ref[p->slot]].body;
    }
    if (b > 0 && !m->body[b].fixed && f->home > 0) {
      unite(parent, f->home, b);
    }
  }
}


// never a zero-size request, whose NULL would read as out of memory
static void* allocArray(size_t n, size_t size) {
  return csu_malloc((n ? n : 1) * size);
}


static void freeGroupLayout(Group* g) {
  csu_free(g->slot, 0);
  csu_free(g->rate, 0);
  csu_free(g->quat, 0);
  csu_free(g->bodies, 0);
  csu_free(g->forces, 0);
  csu_free(g->onset, 0);
  csu_free(g->gap, 0);
  csu_free(g->gap_end, 0);
  csu_free(g->planes, 0);
  csu_free(g->iq, 0);
  csu_free(g->iu, 0);
  csu_free(g->iz, 0);
  csu_free(g->parent_idx, 0);
}


// split the model into groups (one when `single`) and lay out each group's states; 0 or -1
//
// Groups are the connected components of a graph whose nodes are the moving bodies and whose
// edges are joints between moving bodies and force elements that refer to two or more of them.
// They are formed once, before the first step, from what could ever interact (an element exists)
// rather than from what is in contact now: regrouping as contacts open and close would restart
// integrators in the middle of the run and throw away their step-size and order history.
// layoutGroups' buckets: an element's group, ng for one in every group (gravity); a plane's,
// ng for one on a body that never moves (in every group)
static int forceKey(const Sim* sim, int ng, int e) {
  return sim->force_group[e] >= 0 ? sim->force_group[e] : ng;
}


static int planeKey(const csModel* m, const int* gid, int ng, int p) {
  int pb = m->plane[p].body;
  return m->body[pb].fixed || gid[pb] < 0 ? ng : gid[pb];
}


// the ids of two increasing lists merged into out, increasing; their count
static int mergeIds(const int* a, int na, const int* b, int nb, int* out) {
  int i = 0, j = 0, n = 0;
  while (i < na || j < nb) {
    out[n++] = j >= nb || (i < na && a[i] < b[j]) ? a[i++] : b[j++];
  }
  return n;
}


// ids 0..n-1 bucketed by key[id] (0..nkey-1; -1: in no bucket), each bucket in increasing ids
// (a counting sort): bucket k is list[start[k] .. start[k + 1]); start has nkey + 1 entries
static void bucketIds(const int* key, int n, int nkey, int* start, int* list) {
  memset(start, 0, sizeof(int) * ((size_t)nkey + 1));
  for (int i = 0; i < n; i++) {
    start[key[i] + 1] += key[i] >= 0;
  }
  for (int k = 0; k < nkey; k++) {
    start[k + 1] += start[k];
  }
  // placing moves each start to its bucket's end; moved back after
  for (int i = 0; i < n; i++) {
    if (key[i] >= 0) {
      list[start[key[i]]++] = i;
    }
  }
  for (int k = nkey; k > 0; k--) {
    start[k] = start[k - 1];
  }
  start[0] = 0;
}


static int layoutGroups(Sim* sim, int single) {
  const csModel* m = sim->m;
  csData* d = sim->d;
  int nb = m->nbody;
  int* parent = allocArray((size_t)nb, sizeof(int));
  int* gid = allocArray((size_t)nb, sizeof(int));       // group of each body (by root)
  int* lo = allocArray((size_t)nb, sizeof(int));           // first and last state of each
  int* hi = allocArray((size_t)nb, sizeof(int));           // coupled component (by root)
  int* placed = allocArray((size_t)m->nz, sizeof(int));    // z state already laid out
  sim->force_group = allocArray((size_t)m->nforce, sizeof(int));
  int ok = parent && gid && lo && hi && placed && sim->force_group;
  if (ok) {
    // each body its own component, then joined along the tree and through the elements
    for (int b = 0; b < nb; b++) {
      parent[b] = b;
    }
    // fixed bodies never move: their poses come from the first (whole-model) realization, and
    // they belong to no group
    for (int b = 1; b < nb; b++) {
      if (!m->body[b].fixed && !m->body[m->body[b].parent].fixed) {
        unite(parent, b, m->body[b].parent);
      }
    }
    for (int e = 0; e < m->nforce; e++) {
      uniteThrough(m, &m->force[e], parent);
    }
    // groups numbered in the order of their first body
    sim->ngroup = 0;
    for (int b = 0; b < nb; b++) {
      gid[b] = -1;
    }
    for (int b = 1; b < nb; b++) {
      int r = findRoot(parent, b);
      if (m->body[b].fixed) {
        continue;
      }
      if (single) {
        gid[b] = 0;
        sim->ngroup = 1;
      } else {
        if (gid[r] < 0) {
          gid[r] = sim->ngroup++;
        }
        gid[b] = gid[r];
      }
    }
    if (sim->ngroup == 0) {
      sim->ngroup = 1;  // nothing moves: one group with a placeholder state
    }
    // an element that refers to no moving body (gravity) gets -1: it is in every group
    for (int e = 0; e < m->nforce; e++) {
      sim->force_group[e] = m->force[e].home > 0 ? gid[m->force[e].home] : -1;
    }
    sim->group = allocArray((size_t)sim->ngroup, sizeof(Group));
    ok = sim->group != NULL;
  }
  // Each group's bodies, elements and planes, and each body's elements, in increasing ids, listed
  // once (counting sorts): a group then visits its own alone. (Every group visited every body
  // and element: 20,000 free bodies took 3 s to set up, 100,000 a minute and more.) An element in
  // every group (force_group -1: gravity) and a plane on a body that never moves are shared:
  // their bucket is ng.
  int ng = sim->ngroup;
  int nkey = nb > m->nforce ? nb : m->nforce;
  nkey = nkey > m->nplane ? nkey : m->nplane;
  int* key = ok ? allocArray((size_t)nkey, sizeof(int)) : NULL;
  int* bodyStart = ok ? allocArray((size_t)ng + 1, sizeof(int)) : NULL;
  int* bodyList = ok ? allocArray((size_t)nb, sizeof(int)) : NULL;
  int* forceStart = ok ? allocArray((size_t)ng + 2, sizeof(int)) : NULL;
  int* forceList = ok ? allocArray((size_t)m->nforce, sizeof(int)) : NULL;
  int* planeStart = ok ? allocArray((size_t)ng + 2, sizeof(int)) : NULL;
  int* planeList = ok ? allocArray((size_t)m->nplane, sizeof(int)) : NULL;
  int* homeStart = ok ? allocArray((size_t)nb + 1, sizeof(int)) : NULL;
  int* homeList = ok ? allocArray((size_t)m->nforce, sizeof(int)) : NULL;
  ok = ok && key && bodyStart && bodyList && forceStart && forceList && planeStart && planeList &&
       homeStart && homeList;
  if (ok) {
    for (int b = 0; b < nb; b++) {
      key[b] = b > 0 ? gid[b] : -1;
    }
    bucketIds(key, nb, ng, bodyStart, bodyList);
    for (int e = 0; e < m->nforce; e++) {
      key[e] = forceKey(sim, ng, e);
    }
    bucketIds(key, m->nforce, ng + 1, forceStart, forceList);
    for (int e = 0; e < m->nforce; e++) {
      key[e] = m->force[e].home;
    }
    bucketIds(key, m->nforce, nb, homeStart, homeList);
    for (int p = 0; p < m->nplane; p++) {
      key[p] = planeKey(m, gid, ng, p);
    }
    bucketIds(key, m->nplane, ng + 1, planeStart, planeList);
  }
  for (int gi = 0; ok && gi < ng; gi++) {
    Group* g = &sim->group[gi];
    memset(g, 0, sizeof(*g));
    g->t_retried = -INFINITY;
    g->sim = sim;
    const int* bodies = bodyList + bodyStart[gi];
    int nbod = bodyStart[gi + 1] - bodyStart[gi];
    const int* own = forceList + forceStart[gi];
    int nown = forceStart[gi + 1] - forceStart[gi];
    const int* shared = forceList + forceStart[ng];
    int nshared = forceStart[ng + 1] - forceStart[ng];
    const int* ownPl = planeList + planeStart[gi];
    int nownPl = planeStart[gi + 1] - planeStart[gi];
    const int* sharedPl = planeList + planeStart[ng];
    int nsharedPl = planeStart[ng + 1] - planeStart[ng];
    // sizes
    int nst = 0, nq = 0;
    for (int k = 0; k < nbod; k++) {
      const csBody* body = &m->body[bodies[k]];
      nst += body->qnum + body->unum;
      nq += (body->joint == CS_JOINT_BALL || body->joint == CS_JOINT_FREE);
    }
    // the group's own elements and those in every group; the latter's z states are integrated
    // once, in group 0, while every group evaluates their forces on its own bodies
    for (int k = 0; k < nown; k++) {
      const csForce* f = &m->force[own[k]];
      nst += f->znum + (f->dissadr >= 0 ? 1 : 0);
    }
    for (int k = 0; k < nshared && gi == 0; k++) {
      const csForce* f = &m->force[shared[k]];
      nst += f->znum + (f->dissadr >= 0 ? 1 : 0);
    }
    int nfor = nown + nshared, npl = nownPl + nsharedPl;
    // nst counts shared dissipated-energy states once per element: an upper bound
    g->slot = allocArray((size_t)nst, sizeof(double*));
    g->rate = allocArray((size_t)nst, sizeof(double*));
    g->quat = allocArray((size_t)nq, sizeof(int));
    g->bodies = allocArray((size_t)nbod, sizeof(int));
    g->forces = allocArray((size_t)nfor, sizeof(int));
    g->planes = allocArray((size_t)npl, sizeof(int));
    // owner: the body each state belongs to, for the bandwidth below
    int* owner = allocArray((size_t)nst, sizeof(int));
    ok = g->slot && g->rate && g->quat && g->bodies && g->forces && g->planes && owner;
    if (!ok) {
      csu_free(owner, 0);
      break;
    }
    // the elements and planes in increasing ids, as the stages expect
    g->nforces = mergeIds(own, nown, shared, nshared, g->forces);
    // the elements with an onset, whose touches a step may pass over (report)
    g->onset = allocArray((size_t)g->nforces, sizeof(int));
    g->gap = allocArray((size_t)g->nforces * CS_MAX_GAPS * 3, sizeof(double));
    g->gap_end = allocArray((size_t)g->nforces * CS_MAX_GAPS * 3, sizeof(double));
    g->gap_t = g->gap_end_t = NAN;
    if (!g->onset || !g->gap || !g->gap_end) {
      csu_free(owner, 0);
      ok = 0;
      break;
    }
    for (int k = 0; k < g->nforces; k++) {
      int e = g->forces[k];
      if (cs_forceKind(m->force[e].kind)->gaps) {
        g->onset[g->nonset++] = e;
        // the counts are this integrator's: an earlier one's (before a reset, new options or
        // a checkpoint) would read as steps of this one
        d->felt_step[e] = 0;
        d->suspect_n[e] = 0;
      }
    }
    g->stepno = 1;
    g->nplanes = mergeIds(ownPl, nownPl, sharedPl, nsharedPl, g->planes);
    // states: elements homed on ground first (group 0 only), then body by body
    int i = 0;
    for (int k = gi == 0 ? -1 : 0; k < nbod; k++) {
      int b = k < 0 ? 0 : bodies[k];
      const csBody* body = &m->body[b];
      if (b > 0) {
        g->bodies[g->nbodies++] = b;
        if (body->joint == CS_JOINT_BALL || body->joint == CS_JOINT_FREE) {
          g->quat[g->nquat++] = i;  // the quaternion's four entries come first, consecutive
        }
      }
      for (int j = 0; j < body->qnum; j++, i++) {
        g->slot[i] = d->q + body->qadr + j;
        g->rate[i] = d->qdot + body->qadr + j;
        owner[i] = b;
      }
      for (int j = 0; j < body->unum; j++, i++) {
        g->slot[i] = d->u + body->uadr + j;
        g->rate[i] = d->udot + body->uadr + j;
        owner[i] = b;
      }
      for (int h = homeStart[b]; h < homeStart[b + 1]; h++) {
        const csForce* f = &m->force[homeList[h]];
        // its dissipated energy (once, however many elements share it), then its own states;
        // elements that refer to no moving body act in every group but are integrated in
        // group 0 (their rates come from fixed bodies only, so they are zero)
        if (f->dissadr >= 0 && !placed[f->dissadr]) {
          placed[f->dissadr] = 1;
          g->slot[i] = d->z + f->dissadr;
          g->rate[i] = d->zdot + f->dissadr;
          owner[i++] = b;
        }
        for (int j = 0; j < f->znum; j++, i++) {
          g->slot[i] = d->z + f->zadr + j;
          g->rate[i] = d->zdot + f->zadr + j;
          owner[i] = b;
        }
      }
    }
    g->nused = i;
    g->nstate = i > 0 ? i : 1;
    // half-bandwidths: how far apart two states of one coupled component can be
    // (states of different components never interact, so the Jacobian's nonzeros lie within
    // each component's span of states; a half-bandwidth is the farthest reach from a state to
    // the ends of its own span). Only the components of this group's states are reset.
    for (int j = 0; j < g->nused; j++) {
      int r = owner[j] > 0 ? findRoot(parent, owner[j]) : 0;
      lo[r] = g->nused;
      hi[r] = -1;
    }
    for (int j = 0; j < g->nused; j++) {
      int r = owner[j] > 0 ? findRoot(parent, owner[j]) : 0;
      lo[r] = j < lo[r] ? j : lo[r];
      hi[r] = j > hi[r] ? j : hi[r];
    }
    g->upper = g->lower = 0;
    for (int j = 0; j < g->nused; j++) {
      int r = owner[j] > 0 ? findRoot(parent, owner[j]) : 0;
      g->upper = hi[r] - j > g->upper ? hi[r] - j : g->upper;
      g->lower = j - lo[r] > g->lower ? j - lo[r] : g->lower;
    }
    csu_free(owner, 0);
  }
  csu_free(key, 0);
  csu_free(bodyStart, 0);
  csu_free(bodyList, 0);
  csu_free(forceStart, 0);
  csu_free(forceList, 0);
  csu_free(planeStart, 0);
  csu_free(planeList, 0);
  csu_free(homeStart, 0);
  csu_free(homeList, 0);
  csu_free(parent, 0);
  csu_free(gid, 0);
  csu_free(lo, 0);
  csu_free(hi, 0);
  csu_free(placed, 0);
  return ok ? 0 : -1;
}


// The lists the stages work on while group g is active: its own, or, when it holds the whole
// model (the lists are in increasing ids, so a full count is the whole list), the data's lists
// of everything, for which the stages take their whole-array paths (accumulators zeroed at once,
// the finiteness check as one sum).
static const int* groupBodies(const Group* g) {
  return g->nbodies == g->sim->m->nbody - 1 ? g->sim->d->all_body : g->bodies;
}


// let the stages work on group g only
static void activate(Group* g) {
  csData* d = g->sim->d;
  const csModel* m = g->sim->m;
  d->act_body = groupBodies(g);
  d->nact_body = g->nbodies;
  d->act_force = g->nforces == m->nforce ? d->all_force : g->forces;
  d->nact_force = g->nforces;
  d->act_plane = g->nplanes == m->nplane ? d->all_plane : g->planes;
  d->nact_plane = g->nplanes;
  cs_invalidate(d);
}


// CVODE's vector into the data: only this group's slots, other groups' states are untouched
static void loadState(Group* g, sunrealtype t, const sunrealtype* y) {
  csData* d = g->sim->d;
  d->t = t;
  for (int i = 0; i < g->nused; i++) {
    *g->slot[i] = y[i];
  }
  cs_invalidate(d);
}


// the data into CVODE's vector; a placeholder entry is 0
static void storeState(const Group* g, sunrealtype* y) {
  for (int i = 0; i < g->nused; i++) {
    y[i] = *g->slot[i];
  }
  for (int i = g->nused; i < g->nstate; i++) {
    y[i] = 0;
  }
}


// ---------------------------------------------------------------------------------------------
// CVODE callbacks

// a stop was asked for (csReporter.stop, set by a signal handler)
static int stopRequested(const Sim* sim) {
  return sim->rep && sim->rep->stop && *sim->rep->stop;
}


// the same, for the linear solvers' factorisations (sundials_ops.c)
static int stopCallback(void* sim) {
  return stopRequested(sim);
}


// the rates of group g's states into f, the data holding its state: kinematics, forces,
// articulated-body dynamics of its bodies (the group is active while the integrator works on
// it); 1 when the forces are not finite, else 0; allocates nothing
static int groupRates(Group* g, double* f) {
  csData* d = g->sim->d;
  if (cs_rates(g->sim->m, d) != 0) {
    return 1;  // recoverable: CVODE retries with a smaller step
  }
  for (int i = 0; i < g->nonset; i++) {
    if (d->force_pe[g->onset[i]] > 0) {
      d->felt_step[g->onset[i]] = g->stepno;
    }
  }
  for (int i = 0; i < g->nused; i++) {
    f[i] = *g->rate[i];
  }
  for (int i = g->nused; i < g->nstate; i++) {
    f[i] = 0;  // placeholder state of a model with nothing to integrate
  }
  return 0;
}


// the right-hand side of one group at (t, y)
static int groupRhs(double t, const double* y, double* f, void* user_data) {
  Group* g = user_data;
  // a stop request ends a long step (a Jacobian of thousands of right-hand sides) at once:
  // unrecoverable, which stepGroup turns into CS_STOPPED at the last completed step
  if (stopRequested(g->sim)) {
    return -1;
  }
  loadState(g, t, y);
  return groupRates(g, f);
}


// The same for ark's difference quotients, which change one state at a time: when the data
// still holds this group's positions at y, realized, the position stage is kept (a column of
// a speed or an element's state); otherwise a full evaluation
static int groupRhsColumn(double t, const double* y, double* f, void* user_data) {
  Group* g = user_data;
  csData* d = g->sim->d;
  int nq = g->sim->m->nq;
  int same = d->stage >= CS_STAGE_POSITION && d->t == t && d->act_body == groupBodies(g);
  for (int i = 0; same && nq > 0 && i < g->nused; i++) {
    same = g->slot[i] < d->q || g->slot[i] >= d->q + nq || *g->slot[i] == y[i];
  }
  if (!same) {
    return groupRhs(t, y, f, user_data);
  }
  if (stopRequested(g->sim)) {
    return -1;
  }
  for (int i = 0; i < g->nused; i++) {
    *g->slot[i] = y[i];
  }
  d->stage = CS_STAGE_POSITION;
  d->planar_rates = 0;
  return groupRates(g, f);
}


// ark's Jacobian of a group that is one free body (arkFreeSystem set it up): the data
// loaded with y and realized to velocity, then the elements' derivatives (jacobian.c)
static int groupFreeJacobian(double t, const double* y, double* L, void* user_data) {
  Group* g = user_data;
  if (stopRequested(g->sim)) {
    return -1;
  }
  const csModel* m = g->sim->m;
  csData* d = g->sim->d;
  loadState(g, t, y);
  cs_realizeVelocity(m, d);
  cs_freeJacobian(m, d, g->bodies[0], g->free, g->rk->atol / fmax(g->rk->rtol, DBL_EPSILON), L,
                  FREE_BLOCK);
  return 0;
}


static int groupFreeFactor(void* user_data, const double* L, double hg) {
  Group* g = user_data;
  return cs_freeFactor(g->free, L, FREE_BLOCK, hg);
}


static void groupFreeSolve(void* user_data, double* x) {
  Group* g = user_data;
  cs_freeSolve(g->free, x);
}


// the same for CVODE's vectors
static int rhs(sunrealtype t, N_Vector y, N_Vector ydot, void* user_data) {
  return groupRhs(t, N_VGetArrayPointer(y), N_VGetArrayPointer(ydot), user_data);
}


// put quaternions back on the unit sphere; corr receives the change, err loses its radial part
// (CVodeSetProjFn, BDF only). The constraint is |q| = 1 for each quaternion: the state moves
// radially onto the sphere, and the error estimate loses its component along the quaternion,
// the direction the projection removes, so that it does not limit the step size.
static int project(sunrealtype t, N_Vector ycur, N_Vector corr, sunrealtype eps, N_Vector err,
                   void* user_data) {
  (void)t;
  (void)eps;
  Group* g = user_data;
  sunrealtype* y = N_VGetArrayPointer(ycur);
  sunrealtype* c = N_VGetArrayPointer(corr);
  sunrealtype* e = err ? N_VGetArrayPointer(err) : NULL;
  N_VConst(0, corr);
  for (int k = 0; k < g->nquat; k++) {
    int i0 = g->quat[k];
    sunrealtype* q = y + i0;
    double n = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    if (!(n > 0.5 && n < 2)) {
      return 1;  // far off the sphere: retry with a smaller step
    }
    for (int i = 0; i < 4; i++) {
      double qi = q[i] / n;
      c[i0 + i] = qi - q[i];
      q[i] = qi;
    }
    if (e) {
      sunrealtype* eq = e + i0;
      double radial = eq[0] * q[0] + eq[1] * q[1] + eq[2] * q[2] + eq[3] * q[3];
      for (int i = 0; i < 4; i++) {
        eq[i] -= radial * q[i];
      }
    }
  }
  return 0;
}


// CVODE's messages are kept for check() to append to the failing call's error; the library never
// writes to stderr
// CVODE's messages are kept for the error report instead of being printed (the library never
// prints); 7.x replaced the per-solver handler by a handler stack on the context
#if SUNDIALS_VERSION_MAJOR >= 7
static void errorHandler(int line, const char* function, const char* file, const char* msg,
                         SUNErrCode code, void* user_data, SUNContext ctx) {
  (void)line;
  (void)file;
  (void)code;
  (void)ctx;
  Sim* sim = user_data;
  snprintf(sim->cvmsg, sizeof(sim->cvmsg), "%s: %s", function, msg);
}
#else
static void errorHandler(int code, const char* module, const char* function, char* msg,
                         void* user_data) {
  (void)module;
  Sim* sim = user_data;
  snprintf(sim->cvmsg, sizeof(sim->cvmsg), "%s: %s", function, msg);
  // warnings (t + h = t: the step size has collapsed) are kept for the whole run, on one line
  if (code == CV_WARNING && sim->d->stat.warnings_cvode++ == 0) {
    char* w = sim->d->stat.cvode_warning;
    snprintf(w, sizeof(sim->d->stat.cvode_warning), "%s", msg);
    for (; *w; w++) {
      *w = *w == '\n' ? ' ' : *w;
    }
  }
}
#endif


// ---------------------------------------------------------------------------------------------
// flag checking

// our own names for CVODE's flags (CVodeGetReturnFlagName returns heap memory in 6.x)
static const char* flagName(int flag) {
  switch (flag) {
    case CV_TOO_MUCH_WORK: return "CV_TOO_MUCH_WORK";
    case CV_TOO_MUCH_ACC: return "CV_TOO_MUCH_ACC";
    case CV_ERR_FAILURE: return "CV_ERR_FAILURE";
    case CV_CONV_FAILURE: return "CV_CONV_FAILURE";
    case CV_LINIT_FAIL: return "CV_LINIT_FAIL";
    case CV_LSETUP_FAIL: return "CV_LSETUP_FAIL";
    case CV_LSOLVE_FAIL: return "CV_LSOLVE_FAIL";
    case CV_RHSFUNC_FAIL: return "CV_RHSFUNC_FAIL";
    case CV_FIRST_RHSFUNC_ERR: return "CV_FIRST_RHSFUNC_ERR";
    case CV_REPTD_RHSFUNC_ERR: return "CV_REPTD_RHSFUNC_ERR";
    case CV_UNREC_RHSFUNC_ERR: return "CV_UNREC_RHSFUNC_ERR";
    case CV_MEM_FAIL: return "CV_MEM_FAIL";
    case CV_MEM_NULL: return "CV_MEM_NULL";
    case CV_ILL_INPUT: return "CV_ILL_INPUT";
    case CV_NO_MALLOC: return "CV_NO_MALLOC";
    case CV_TOO_CLOSE: return "CV_TOO_CLOSE";
    case CV_PROJFUNC_FAIL: return "CV_PROJFUNC_FAIL";
    case CV_REPTD_PROJFUNC_ERR: return "CV_REPTD_PROJFUNC_ERR";
    default: return "CV_UNKNOWN_FLAG";
  }
}


// convert a failed SUNDIALS call into err; returns 0 if flag is a success
static int check(int flag, const char* function, const Sim* sim, double t, csError* err) {
  if (flag >= 0) {
    return 0;
  }
  cs_setError(err, CS_ERR_SOLVER, "", "%s failed with %s at t = %.9g s%s%s", function,
              flagName(flag), t, sim->cvmsg[0] ? ": " : "", sim->cvmsg);
  err->time = t;
  return -1;
}


// the calling thread's CPU time: neither other processes on a shared machine nor other threads
// of this one (simulations run side by side from Python threads) count; in a one-threaded
// program it is the process's
static double cpuSeconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}


// The cost of one read of the CPU clock: the smallest gap between two back-to-back reads. A
// window timed with two reads leaves about this much of their cost outside the window (the part
// of the first read after its sample and of the second before), counted as integration unless
// it is added to the window.
static double cpuClockCost(void) {
  double best = INFINITY;
  for (int i = 0; i < 5; i++) {
    double a = cpuSeconds(), b = cpuSeconds();
    best = fmin(best, b - a);
  }
  return best;
}


// (contactsim.h) the scene's max_step is checked with this one rule at load time, the command
// line's before a run, the C API's when a simulation is made or given new options
int cs_maxStepProblem(const csSimOptions* o, char* why, size_t size) {
  char local[8];
  if (!why) {
    why = local;
    size = sizeof(local);
  }
  if (!(o->max_step > 0)) {
    return 0;  // unlimited
  }
  // the spacing of doubles at the end time: a smaller step leaves t where it is
  double tend = fabs(o->duration);
  double ulp = nextafter(tend, INFINITY) - tend;
  if (o->max_step < CS_MIN_STEP_ULPS * ulp) {
    snprintf(why, size,
             "max_step %g s is too small to advance the time at the run's end time, t = %g s "
             "(the duration, counted from t = 0; steps below %g s leave t unchanged there)",
             o->max_step, tend, CS_MIN_STEP_ULPS * ulp);
    return 1;
  }
  // steps of at most max_step to the first report; max_steps allows only so many, and one more
  // is needed whenever rounding leaves the last of them short of the report (the sum of
  // 100000 steps of 1e-8 s falls short of 1e-3 s), so as many as max_steps is too many
  double first = fmin(o->report_interval, o->duration);
  double steps = ceil(first / o->max_step);
  if (steps >= (double)o->max_steps) {
    snprintf(why, size,
             "max_step %g s needs at least %.0f step%s to reach the first report at t = %g s, "
             "and max_steps (%ld) must allow more (rounding can add one); raise max_step or "
             "max_steps",
             o->max_step, steps, steps == 1 ? "" : "s", first, o->max_steps);
    return 1;
  }
  return 0;
}


const char* cs_linearSolverUsed(const csSimOptions* opt, const csData* d) {
  if (opt->integrator == CS_INTEGRATOR_ADAMS || opt->integrator == CS_INTEGRATOR_RK ||
      opt->integrator == CS_INTEGRATOR_RK23) {
    return "none";
  }
  if (opt->integrator == CS_INTEGRATOR_ARK) {
    return "dense";
  }
  // the solver the run's largest group used; before any group was set up (no run yet, or a
  // set-up that failed, such as a band matrix too large for memory), the one asked for
  switch (d && d->stat.ngroup > 0 ? d->stat.linsol : (int)opt->linsol) {
    case CS_LINSOL_BAND: return "band";
    case CS_LINSOL_GMRES: return "gmres";
    default: return "dense";
  }
}


// options checked up front and explained in the user's terms, with the limits the scene loader
// and the command line apply; !(x > 0) also rejects NaN, and no option means anything when
// infinite (atol = inf would switch the error test off, an infinite duration never ends)
int cs_validateSimOptions(const csSimOptions* o, csError* err) {
  const char* bad = NULL;
  char why[256];
  if (!(o->duration > 0) || !isfinite(o->duration)) {
    bad = "duration must be positive and finite";
  } else if (o->duration < CS_MIN_DURATION) {
    bad = "duration must be at least 1e-9 s (CS_MIN_DURATION)";
  } else if (!(o->rtol > 0) || !isfinite(o->rtol)) {
    bad = "rtol must be positive and finite";
  } else if (!(o->atol > 0) || !isfinite(o->atol)) {
    bad = "atol must be positive and finite";
  } else if (o->atol < CS_MIN_ATOL) {
    snprintf(why, sizeof(why), "atol must be at least 1e-300 (CS_MIN_ATOL), not %g: the error "
             "test weighs a component near zero by 1 / atol", o->atol);
    bad = why;
  } else if (!(o->max_step >= 0) || !isfinite(o->max_step)) {
    bad = "max_step must be zero (unlimited) or positive and finite";
  } else if (!(o->initial_step >= 0) || !isfinite(o->initial_step)) {
    bad = "initial_step must be zero (automatic) or positive and finite";
  } else if (o->initial_step > 0 && o->initial_step < CS_MIN_INITIAL_STEP) {
    bad = "initial_step must be zero (automatic) or at least 1e-150 s (CS_MIN_INITIAL_STEP)";
  } else if (!(o->max_steps > 0)) {
    bad = "max_steps must be positive";
  } else if (!(o->report_interval > 0) || !isfinite(o->report_interval)) {
    bad = "report_interval must be positive and finite";
  } else if (o->report_interval < CS_MIN_REPORT_INTERVAL) {
    bad = "report_interval must be at least 1e-9 s (CS_MIN_REPORT_INTERVAL)";
  } else if (o->integrator < 0 || o->integrator >= CS_INTEGRATOR_COUNT) {
    bad = "integrator must be bdf, adams, rk, ark or rk23";
  } else if (o->linsol < 0 || o->linsol >= CS_LINSOL_COUNT) {
    bad = "linear_solver must be auto, dense, band or gmres";
  } else if (o->max_rows < 0) {
    bad = "max_rows must be positive (0: the default, CS_DEFAULT_MAX_ROWS)";
  }
  const char* path = "simulation";
  if (!bad && cs_maxStepProblem(o, why, sizeof(why))) {
    bad = why;
    path = "simulation.max_step";
  }
  if (bad) {
    cs_setError(err, CS_ERR_INPUT, path, "%s", bad);
    return -1;
  }
  return 0;
}


// add group g's counters to *sum (the Jacobian counters exist only when there is a linear
// solver, that is with BDF; rk has steps, right-hand sides and error-test failures only, and
// keeps them through its resets)
static void addCounters(const Group* g, csStats* sum) {
  void* mem = g->mem;
  long v;
  if (g->sim->rk) {
    sum->nsteps += g->rk->nsteps;
    sum->nrhs += g->rk->nrhs;
    sum->netf += g->rk->netf;
    sum->nstiff += g->rk->nstiff;
    sum->njac += g->rk->njac;
    sum->nrhs_jac += g->rk->nrhs_jac;
    return;
  }
  int linear_solver = g->LS != NULL;
  if (CVodeGetNumSteps(mem, &v) == CV_SUCCESS) sum->nsteps += v;
  if (CVodeGetNumRhsEvals(mem, &v) == CV_SUCCESS) sum->nrhs += v;
  if (CVodeGetNumErrTestFails(mem, &v) == CV_SUCCESS) sum->netf += v;
  if (CVodeGetNumNonlinSolvConvFails(mem, &v) == CV_SUCCESS) sum->nncf += v;
  if (linear_solver) {
    if (CVodeGetNumJacEvals(mem, &v) == CV_SUCCESS) sum->njac += v;
    if (CVodeGetNumLinRhsEvals(mem, &v) == CV_SUCCESS) sum->nrhs_jac += v;
  }
}


// the first time of the report grid k * dt after t; none (infinity: one budget for the whole
// advance) where the grid's times cannot be told apart there (k beyond 2^52, which a run refuses:
// every step would begin a new interval, and the budget would never run out)
static double nextGridTime(double t, double dt) {
  double k = floor(t / dt) + 1;
  double next = k * dt;
  return k < 0x1p52 && next > t ? next : INFINITY;
}


// the last successful step of group g (0 before the first), and the step it will try next
static double lastStep(const Group* g) {
  sunrealtype h = 0;
  if (g->sim->rk) {
    return g->rk->hlast;
  }
  if (CVodeGetLastStep(g->mem, &h) != CV_SUCCESS) {
    return 0;
  }
  return (double)h;
}


static double currentStep(const Group* g) {
  sunrealtype h = 0;
  if (g->sim->rk) {
    return g->rk->h;
  }
  if (CVodeGetCurrentStep(g->mem, &h) != CV_SUCCESS) {
    return 0;
  }
  return (double)h;
}


// ---------------------------------------------------------------------------------------------
// the reduced Newton system of a chain (BDF)
//
// CVODE's Newton matrix is M = I - gamma J. For a group whose mobilizers are all pins and
// sliders (qdot = u exactly) and whose only other states are dissipated energies z (no rate
// depends on z), J has the structure
//   J = [0 I 0; Jq Ju 0; Zq Zu 0]   (rows and columns q, u, z),
// so M x = b reduces to one system in the speeds alone (a Schur complement):
//   (I - gamma Ju - gamma^2 Jq) x_u = b_u + gamma Jq b_q,   x_q = b_q + gamma x_u,
//   x_z = b_z + gamma (Zq x_q + Zu x_u).
// With n links the dense solver factors a 3n x 3n matrix (9 n^3 flops) at every setup and
// back-solves it (18 n^2) at every Newton iteration; the reduced one factors n x n (n^3 / 1.5)
// and solves in about 4 n^2 plus the few nonzeros of the energy rows. The matrix CVODE copies
// and scales at every setup holds only the blocks that are not known in advance (the u and z
// rows of the q and u columns), and the Jacobian is formed by difference quotients over the q
// and u columns only, with the increments CVODE's own dense difference quotients would use.
// chain_64 with BDF: 15.3e9 -> 4.6e9 instructions for the run (the dense solver spent 68 % in
// factorisations and back-solves).

// the compact matrix, in one of two forms:
// - difference quotients: rows u (nb) then z (nz), columns q (nb) then u (nb), column-major;
//   the q-q and z-z blocks are 0 in J and I in M, the q-u block is qu times the identity;
// - from the mass matrix (schurModelJac): the pose it was formed at and the diagonal df/dq and
//   df/du, so that the u rows are M^-1 df/dq and M^-1 df/du; the z rows are 0. Scaling scales
//   the diagonals; the pose stays.
typedef struct ChainMatrix {
  int nb, nz, rows;
  double* a;            // (rows x 2 nb) difference quotients; NULL in the other form
  csChainBody* body;    // (nb) mass-matrix form: the bodies at the Jacobian's pose; else NULL
  double* fq;           // (nb) mass-matrix form: df/dq of each speed's force, times the scale
  double* fu;           // (nb) and df/du
  double qu;            // the q-u diagonal: 1 in J, -gamma in M
  int shifted;          // 1 once the identity has been added (M rather than J)
} ChainMatrix;


static SUNMatrix_ID chainMatGetID(SUNMatrix A) {
  (void)A;
  return SUNMATRIX_CUSTOM;
}


static void chainMatDestroy(SUNMatrix A) {
  if (!A) {
    return;
  }
  ChainMatrix* c = A->content;
  if (c) {
    csu_free(c->a, 0);
    csu_free(c->body, 0);
    csu_free(c->fq, 0);
    csu_free(c->fu, 0);
    csu_free(c, 0);
  }
  A->content = NULL;
  SUNMatFreeEmpty(A);
}


static int chainMatZero(SUNMatrix A) {
  ChainMatrix* c = A->content;
  if (c->a) {
    memset(c->a, 0, sizeof(double) * (size_t)c->rows * 2 * (size_t)c->nb);
  } else {
    memset(c->fq, 0, sizeof(double) * (size_t)c->nb);
    memset(c->fu, 0, sizeof(double) * (size_t)c->nb);
  }
  c->qu = 0;
  c->shifted = 0;
  return 0;
}


static int chainMatCopy(SUNMatrix A, SUNMatrix B) {
  const ChainMatrix* a = A->content;
  ChainMatrix* b = B->content;
  if (a->a) {
    memcpy(b->a, a->a, sizeof(double) * (size_t)a->rows * 2 * (size_t)a->nb);
  } else {
    memcpy(b->body, a->body, sizeof(csChainBody) * (size_t)a->nb);
    memcpy(b->fq, a->fq, sizeof(double) * (size_t)a->nb);
    memcpy(b->fu, a->fu, sizeof(double) * (size_t)a->nb);
  }
  b->qu = a->qu;
  b->shifted = a->shifted;
  return 0;
}


// A = c A + I
static int chainMatScaleAddI(sunrealtype s, SUNMatrix A) {
  ChainMatrix* c = A->content;
  if (c->a) {
    size_t n = (size_t)c->rows * 2 * (size_t)c->nb;
    for (size_t i = 0; i < n; i++) {
      c->a[i] *= s;
    }
    for (int k = 0; k < c->nb; k++) {
      c->a[(size_t)(c->nb + k) * c->rows + k] += 1.0;
    }
  } else {
    // the identity is implicit in this form
    for (int k = 0; k < c->nb; k++) {
      c->fq[k] *= s;
      c->fu[k] *= s;
    }
  }
  c->qu *= s;
  c->shifted = 1;
  return 0;
}


static SUNMatrix chainMatNew(SUNContext ctx, int nb, int nz, int model);

static SUNMatrix chainMatClone(SUNMatrix A) {
  const ChainMatrix* c = A->content;
  return chainMatNew(A->sunctx, c->nb, c->nz, c->a == NULL);
}


// a compact matrix for nb bodies and nz energies (model: the mass-matrix form), or NULL when
// out of memory
static SUNMatrix chainMatNew(SUNContext ctx, int nb, int nz, int model) {
  SUNMatrix A = SUNMatNewEmpty(ctx);
  if (!A) {
    return NULL;
  }
  A->ops->getid = chainMatGetID;
  A->ops->clone = chainMatClone;
  A->ops->destroy = chainMatDestroy;
  A->ops->zero = chainMatZero;
  A->ops->copy = chainMatCopy;
  A->ops->scaleaddi = chainMatScaleAddI;
  ChainMatrix* c = csu_malloc(sizeof(ChainMatrix));
  A->content = c;
  if (!c) {
    chainMatDestroy(A);
    return NULL;
  }
  memset(c, 0, sizeof(*c));
  c->nb = nb;
  c->nz = nz;
  c->rows = nb + nz;
  if (model) {
    c->body = csu_malloc(sizeof(csChainBody) * (size_t)nb);
    c->fq = csu_malloc(sizeof(double) * (size_t)nb);
    c->fu = csu_malloc(sizeof(double) * (size_t)nb);
  } else {
    c->a = csu_malloc(sizeof(double) * (size_t)c->rows * 2 * (size_t)nb);
  }
  if (model ? !c->body || !c->fq || !c->fu : !c->a) {
    chainMatDestroy(A);
    return NULL;
  }
  return A;
}


// Group g's Jacobian from its mass matrix, when every one of its elements gives its own
// derivatives: sets g->schur_model and allocates what schurModelJac needs (when that fails,
// the difference quotients stay in use)
static void schurModelLayout(Group* g) {
  const csModel* m = g->sim->m;
  for (int i = 0; i < g->nforces; i++) {
    if (!cs_forceKind(m->force[g->forces[i]].kind)->mobilityJacobian) {
      return;
    }
  }
  Sim* sim = g->sim;
  if (!sim->dfdq) {
    sim->dfdq = allocArray((size_t)m->nu, sizeof(double));
    sim->dfdu = allocArray((size_t)m->nu, sizeof(double));
  }
  g->parent_idx = allocArray((size_t)g->nbodies, sizeof(int));
  if (!g->parent_idx || !sim->dfdq || !sim->dfdu) {
    return;
  }
  // the group's bodies are in increasing order and every parent precedes its children
  for (int k = 0; k < g->nbodies; k++) {
    int parent = m->body[g->bodies[k]].parent;
    g->parent_idx[k] = -1;
    for (int j = k - 1; j >= 0; j--) {
      if (g->bodies[j] == parent) {
        g->parent_idx[k] = j;
        break;
      }
    }
  }
  g->schur_model = 1;
}


// 1 if group g qualifies (see above): every body a pin or slider, no element state beyond the
// dissipated energy; fills g->iq, g->iu (per body) and g->iz
static int schurLayout(Group* g) {
  const csModel* m = g->sim->m;
  csData* d = g->sim->d;
  if (g->nbodies == 0 || g->nused < 2 * g->nbodies) {
    return 0;
  }
  for (int i = 0; i < g->nbodies; i++) {
    csJointType j = m->body[g->bodies[i]].joint;
    if (j != CS_JOINT_PIN && j != CS_JOINT_SLIDER) {
      return 0;
    }
  }
  for (int i = 0; i < g->nforces; i++) {
    if (m->force[g->forces[i]].znum > 0) {
      return 0;
    }
  }
  int nz = g->nused - 2 * g->nbodies;
  g->iq = allocArray((size_t)g->nbodies, sizeof(int));
  g->iu = allocArray((size_t)g->nbodies, sizeof(int));
  g->iz = allocArray((size_t)(nz > 0 ? nz : 1), sizeof(int));
  if (!g->iq || !g->iu || !g->iz) {
    return 0;
  }
  // every state is a coordinate, a speed or an energy
  int nzz = 0;
  for (int i = 0; i < g->nused; i++) {
    int isq = g->slot[i] >= d->q && g->slot[i] < d->q + m->nq;
    int isu = g->slot[i] >= d->u && g->slot[i] < d->u + m->nu;
    if (!isq && !isu) {
      if (nzz == nz) {
        return 0;
      }
      g->iz[nzz++] = i;
    }
  }
  if (nzz != nz) {
    return 0;
  }
  // each body's coordinate and speed, through the slot of every q and u (one pass over the
  // slots: a search of them per body was quadratic, 10 billion instructions for a chain of
  // 20,000 links)
  size_t nqu = (size_t)(m->nq + m->nu);
  int* at = allocArray(nqu, sizeof(int));
  if (!at) {
    return 0;
  }
  for (size_t i = 0; i < nqu; i++) {
    at[i] = -1;
  }
  for (int i = 0; i < g->nused; i++) {
    if (g->slot[i] >= d->q && g->slot[i] < d->q + m->nq) {
      at[g->slot[i] - d->q] = i;
    } else if (g->slot[i] >= d->u && g->slot[i] < d->u + m->nu) {
      at[m->nq + (g->slot[i] - d->u)] = i;
    }
  }
  int found = 1;
  for (int k = 0; k < g->nbodies; k++) {
    const csBody* body = &m->body[g->bodies[k]];
    g->iq[k] = at[body->qadr];
    g->iu[k] = at[m->nq + body->uadr];
    found &= g->iq[k] >= 0 && g->iu[k] >= 0;
  }
  csu_free(at, nqu ? nqu * sizeof(int) : sizeof(int));
  if (!found) {
    return 0;
  }
  g->nz_schur = nz;
  schurModelLayout(g);
  return 1;
}


// the chain's bodies at the pose of y (t) and the diagonal derivatives of its elements'
// generalized forces, df/dq into fq and df/du into fu (per body of the group): 0, or 1 when one
// is not finite
static int chainModelJac(Group* g, double t, const double* y, csChainBody* body, double* fq,
                         double* fu) {
  Sim* sim = g->sim;
  const csModel* m = sim->m;
  csData* d = sim->d;
  int nb = g->nbodies;
  loadState(g, t, y);
  cs_realizeVelocity(m, d);
  // about the first body's origin: among the bodies, wherever they are (cs_chainSnapshot)
  cs_chainSnapshot(m, d, g->bodies, nb, d->body_pose[g->bodies[0]].p, body);
  for (int k = 0; k < nb; k++) {
    int iu = m->body[g->bodies[k]].uadr;
    sim->dfdq[iu] = sim->dfdu[iu] = 0;
  }
  for (int i = 0; i < g->nforces; i++) {
    int e = g->forces[i];
    cs_forceKind(m->force[e].kind)->mobilityJacobian(m, d, e, sim->dfdq, sim->dfdu);
  }
  int finite = 1;
  for (int k = 0; k < nb; k++) {
    int iu = m->body[g->bodies[k]].uadr;
    fq[k] = sim->dfdq[iu];
    fu[k] = sim->dfdu[iu];
    finite = finite && isfinite(fq[k]) && isfinite(fu[k]);
  }
  return finite ? 0 : 1;
}


// The Jacobian of a chain from its mass matrix (CVodeSetJacFn, when g->schur_model): with the
// generalized forces f(q, u) of the elements, udot = M^-1 (f - bias), and its stiff part is
//   Jq = M^-1 df/dq,   Ju = M^-1 df/du,
// with df/dq and df/du from the elements themselves (a stop's k, a damper's c: diagonal). The
// pose dependence of M and of gravity, and the velocity products, are left out: they change as
// fast as the motion does, which the step already resolves, so Newton's iteration converges with
// or without them (at a rate of about h times the motion's frequency). MuJoCo's implicit
// integrator makes the same choice (M + h D with the dampers' D). The energy rows are left at
// zero: no rate depends on an energy, so the iteration carries them along with q and u.
// Nothing is multiplied out here: the matrix keeps the pose (each body's column and inertia) and
// the two diagonals, and the reduced solver works with M through the tree (schurSetup), in
// O(n) per factorisation and per solve, against 2 n right-hand sides (about 1,700 instructions
// per link each) for difference quotients and O(n^3) for a dense factorisation.
static int schurModelJac(Group* g, sunrealtype t, N_Vector y, ChainMatrix* c) {
  if (chainModelJac(g, t, N_VGetArrayPointer(y), c->body, c->fq, c->fu) != 0) {
    return 1;  // recoverable: CVODE retries with a smaller step
  }
  c->qu = 1.0;
  c->shifted = 0;
  return 0;
}


// The scale of difference quotients as CVODE's dense ones choose it (cvLsDenseDQJac): the
// error weights into ewt (returned, NULL when CVODE cannot give them) and the least increment;
// state j's increment is then max(sqrt(eps) |y_j|, min_inc / ewt_j)
static const sunrealtype* dqScale(Group* g, N_Vector fy, N_Vector ewt, double* min_inc) {
  if (CVodeGetErrWeights(g->mem, ewt) != CV_SUCCESS) {
    return NULL;
  }
  sunrealtype h = 0;
  CVodeGetCurrentStep(g->mem, &h);
  double fnorm = N_VWrmsNorm(fy, ewt);
  *min_inc = fnorm != 0 ? 1000 * fabs(h) * DBL_EPSILON * g->nstate * fnorm : 1.0;
  return N_VGetArrayPointer(ewt);
}


// f at y with state j moved by its increment (max(sqrt(eps) |y_j|, least), returned in *inc),
// into f; y as it was after. A column of a speed or an element's state keeps the position stage
// already realized (groupRhsColumn).
static int dqColumn(Group* g, double t, sunrealtype* y, int j, double least, sunrealtype* f,
                    double* inc) {
  double yj = y[j];
  *inc = fmax(sqrt(DBL_EPSILON) * fabs(yj), least);
  y[j] = yj + *inc;
  int r = groupRhsColumn(t, y, f, g);
  y[j] = yj;
  return r;
}


// The dense Jacobian by difference quotients (CVodeSetJacFn), column by column, with the
// increments CVODE's own chooses (cvLsDenseDQJac): that one creates and frees a vector on every
// call, three allocations a Jacobian in the middle of the integration, where this allocates
// nothing.
static int denseJac(sunrealtype t, N_Vector y, N_Vector fy, SUNMatrix J, void* user_data,
                    N_Vector tmp1, N_Vector tmp2, N_Vector tmp3) {
  (void)tmp3;
  Group* g = user_data;
  sunrealtype* yd = N_VGetArrayPointer(y);
  const sunrealtype* f0 = N_VGetArrayPointer(fy);
  sunrealtype* f1 = N_VGetArrayPointer(tmp2);
  double min_inc;
  const sunrealtype* ew = dqScale(g, fy, tmp1, &min_inc);
  if (!ew) {
    return -1;
  }
  int n = g->nstate;
  for (int j = 0; j < n; j++) {
    double inc;
    int r = dqColumn(g, t, yd, j, min_inc / ew[j], f1, &inc);
    g->dense_rhs++;
    if (r != 0) {
      return r;
    }
    sunrealtype* col = SUNDenseMatrix_Column(J, j);
    double inv = 1.0 / inc;
    for (int i = 0; i < n; i++) {
      col[i] = inv * (f1[i] - f0[i]);
    }
  }
  return 0;
}


// the Jacobian by difference quotients over the q and u columns (CVodeSetJacFn), into the
// compact matrix
static int schurJac(sunrealtype t, N_Vector y, N_Vector fy, SUNMatrix J, void* user_data,
                    N_Vector tmp1, N_Vector tmp2, N_Vector tmp3) {
  (void)tmp3;
  Group* g = user_data;
  ChainMatrix* c = J->content;
  if (g->schur_model) {
    return schurModelJac(g, t, y, c);
  }
  int nb = g->nbodies;
  sunrealtype* yd = N_VGetArrayPointer(y);
  const sunrealtype* f0 = N_VGetArrayPointer(fy);
  const sunrealtype* f1 = N_VGetArrayPointer(tmp2);
  double min_inc;
  const sunrealtype* ew = dqScale(g, fy, tmp1, &min_inc);
  if (!ew) {
    return -1;
  }
  for (int col = 0; col < 2 * nb; col++) {
    int j = col < nb ? g->iq[col] : g->iu[col - nb];
    double inc;
    int r = dqColumn(g, t, yd, j, min_inc / ew[j], N_VGetArrayPointer(tmp2), &inc);
    g->schur_rhs++;
    if (r != 0) {
      return r;
    }
    // the u and z rows (the q rows are known: dqdot/du = I)
    double* a = c->a + (size_t)col * c->rows;
    double inv = 1.0 / inc;
    for (int i = 0; i < nb; i++) {
      a[i] = (f1[g->iu[i]] - f0[g->iu[i]]) * inv;
    }
    for (int i = 0; i < g->nz_schur; i++) {
      a[nb + i] = (f1[g->iz[i]] - f0[g->iz[i]]) * inv;
    }
  }
  c->qu = 1.0;
  c->shifted = 0;
  return 0;
}


// The reduced system of 1 - gamma J for a chain whose J is [0 1; M^-1 Fq, M^-1 Fu] (rows and
// columns q, u; Fq and Fu diagonal), given the matrix's own diagonals mq = -gamma Fq and
// mu = -gamma Fu: (M + diag(mu + gamma mq)) x_u = M b_u - mq b_q, x_q = b_q + gamma x_u,
// factored and solved through the tree (cs_chainFactor, cs_chainSolve) in O(n). BDF's Newton
// matrix (schurSetup) and ark's 1 - hg L (groupChainFactor) both solve with it.
typedef struct ChainSolve {
  double* IA;           // (36 nb) articulated inertias
  double* U;            // (6 nb)
  double* D;            // (nb)
  double* armature;     // (nb) mu + gamma mq
  double* w;            // (nb) b_u
  double* r;            // (nb) the reduced right-hand side, then x_u
  double* scratch;      // (12 nb)
  double gamma;
} ChainSolve;


// CS_OK or CS_ERR_MEMORY (what was allocated is freed by chainSolveFree)
static int chainSolveAlloc(ChainSolve* s, size_t nb) {
  s->IA = csu_malloc(sizeof(double) * 36 * nb);
  s->U = csu_malloc(sizeof(double) * 6 * nb);
  s->D = csu_malloc(sizeof(double) * nb);
  s->armature = csu_malloc(sizeof(double) * nb);
  s->w = csu_malloc(sizeof(double) * nb);
  s->r = csu_malloc(sizeof(double) * nb);
  s->scratch = csu_malloc(sizeof(double) * 12 * nb);
  return s->IA && s->U && s->D && s->armature && s->w && s->r && s->scratch ? CS_OK
                                                                            : CS_ERR_MEMORY;
}


static void chainSolveFree(ChainSolve* s) {
  csu_free(s->IA, 0);
  csu_free(s->U, 0);
  csu_free(s->D, 0);
  csu_free(s->armature, 0);
  csu_free(s->w, 0);
  csu_free(s->r, 0);
  csu_free(s->scratch, 0);
}


// 0, or -1 when a pivot is not positive
static int chainSolveFactor(ChainSolve* s, const csChainBody* body, const int* parent, int nb,
                            const double* mq, const double* mu, double gamma) {
  for (int k = 0; k < nb; k++) {
    s->armature[k] = mu[k] + gamma * mq[k];
  }
  s->gamma = gamma;
  return cs_chainFactor(body, parent, nb, s->armature, s->IA, s->U, s->D) ? -1 : 0;
}


// x = (1 - gamma J)^-1 b on the coordinates and speeds, body k's at iq[k] and iu[k] of b and x
// (which may be one array)
static void chainSolveSolve(ChainSolve* s, const csChainBody* body, const int* parent, int nb,
                            const double* mq, const int* iq, const int* iu, const double* b,
                            double* x) {
  for (int k = 0; k < nb; k++) {
    s->w[k] = b[iu[k]];
  }
  cs_chainMassTimes(body, parent, nb, s->w, s->r, s->scratch);
  for (int k = 0; k < nb; k++) {
    s->r[k] -= mq[k] * b[iq[k]];
  }
  cs_chainSolve(body, parent, nb, s->U, s->D, s->r, s->scratch);
  for (int k = 0; k < nb; k++) {
    x[iq[k]] = b[iq[k]] + s->gamma * s->r[k];
    x[iu[k]] = s->r[k];
  }
}


// content of the reduced linear solver
typedef struct SchurSolver {
  Group* g;
  // difference-quotient form
  double* S;            // (nb x nb) column-major: I - gamma Ju - gamma^2 Jq, then its LU factors
  sunindextype* piv;    // (nb) pivots
  double* w;            // (nb) reduced right-hand side and solution
  int* zcol;            // (nz x 2 nb) nonzero q/u columns of each energy row, from setup
  double* zval;         // (nz x 2 nb) their entries of M
  int* znnz;            // (nz) how many
  // mass-matrix form: M - gamma df/du - gamma^2 df/dq factored through the tree
  ChainSolve chain;
  double gamma;
  int last_flag;
} SchurSolver;


static SUNLinearSolver_Type schurGetType(SUNLinearSolver LS) {
  (void)LS;
  return SUNLINEARSOLVER_DIRECT;
}


static SUNLinearSolver_ID schurGetID(SUNLinearSolver LS) {
  (void)LS;
  return SUNLINEARSOLVER_CUSTOM;
}


static int schurInitialize(SUNLinearSolver LS) {
  ((SchurSolver*)LS->content)->last_flag = SUNLS_SUCCESS;
  return SUNLS_SUCCESS;
}


// factor the reduced matrix of M = I - gamma J (M's q-u block is -gamma I)
static int schurSetup(SUNLinearSolver LS, SUNMatrix A) {
  SchurSolver* s = LS->content;
  const Group* g = s->g;
  const ChainMatrix* M = A->content;
  int nb = g->nbodies;
  double gamma = -M->qu;
  s->gamma = gamma;
  if (!M->a) {
    // the matrix's diagonals are -gamma df/dq and -gamma df/du by now
    int fail = chainSolveFactor(&s->chain, M->body, g->parent_idx, nb, M->fq, M->fu, gamma);
    s->last_flag = fail ? SUNLS_LUFACT_FAIL : SUNLS_SUCCESS;
    return s->last_flag;
  }
  // S = M_uu + gamma M_uq, column by column
  for (int c = 0; c < nb; c++) {
    const double* mq = M->a + (size_t)c * M->rows;
    const double* mu = M->a + (size_t)(nb + c) * M->rows;
    double* sc = s->S + (size_t)c * nb;
    for (int r = 0; r < nb; r++) {
      sc[r] = mu[r] + gamma * mq[r];
    }
  }
  // the energy rows are sparse (a stop's dissipation depends on its own coordinate and speed
  // only): keep their nonzero entries for the solves
  for (int i = 0; i < g->nz_schur; i++) {
    int n = 0;
    int* col = s->zcol + (size_t)i * 2 * nb;
    double* val = s->zval + (size_t)i * 2 * nb;
    for (int j = 0; j < 2 * nb; j++) {
      double a = M->a[(size_t)j * M->rows + nb + i];
      if (a != 0) {
        col[n] = j < nb ? g->iq[j] : g->iu[j - nb];
        val[n++] = a;
      }
    }
    s->znnz[i] = n;
  }
  int r = cs_luFactor(s->S, nb, s->piv, stopCallback, s->g->sim);
  s->last_flag = r < 0 ? SUNLS_MEM_FAIL : r > 0 ? SUNLS_LUFACT_FAIL : SUNLS_SUCCESS;
  return s->last_flag;
}


// x = M^-1 b through the reduced system
static int schurSolve(SUNLinearSolver LS, SUNMatrix A, N_Vector x, N_Vector b, sunrealtype tol) {
  (void)tol;
  SchurSolver* s = LS->content;
  const Group* g = s->g;
  const ChainMatrix* M = A->content;
  int nb = g->nbodies;
  const sunrealtype* bb = N_VGetArrayPointer(b);
  sunrealtype* xx = N_VGetArrayPointer(x);
  if (!M->a) {
    // x_z = b_z (the energy rows are 0)
    chainSolveSolve(&s->chain, M->body, g->parent_idx, nb, M->fq, g->iq, g->iu, bb, xx);
    for (int i = 0; i < g->nz_schur; i++) {
      xx[g->iz[i]] = bb[g->iz[i]];
    }
    s->last_flag = SUNLS_SUCCESS;
    return SUNLS_SUCCESS;
  }
  // reduced right-hand side b_u - M_uq b_q
  for (int r = 0; r < nb; r++) {
    s->w[r] = bb[g->iu[r]];
  }
  for (int c = 0; c < nb; c++) {
    const double* mq = M->a + (size_t)c * M->rows;
    double bq = bb[g->iq[c]];
    for (int r = 0; r < nb; r++) {
      s->w[r] -= mq[r] * bq;
    }
  }
  cs_luSolve(s->S, nb, s->piv, s->w);
  for (int k = 0; k < nb; k++) {
    xx[g->iu[k]] = s->w[k];
    xx[g->iq[k]] = bb[g->iq[k]] + s->gamma * s->w[k];
  }
  // the energies: x_z = b_z - M_zq x_q - M_zu x_u
  for (int i = 0; i < g->nz_schur; i++) {
    const int* col = s->zcol + (size_t)i * 2 * nb;
    const double* val = s->zval + (size_t)i * 2 * nb;
    double v = bb[g->iz[i]];
    for (int k = 0; k < s->znnz[i]; k++) {
      v -= val[k] * xx[col[k]];
    }
    xx[g->iz[i]] = v;
  }
  s->last_flag = SUNLS_SUCCESS;
  return SUNLS_SUCCESS;
}


static sunindextype schurLastFlag(SUNLinearSolver LS) {
  return ((SchurSolver*)LS->content)->last_flag;
}


static int schurFree(SUNLinearSolver LS) {
  if (!LS) {
    return SUNLS_SUCCESS;
  }
  SchurSolver* s = LS->content;
  if (s) {
    csu_free(s->S, 0);
    csu_free(s->piv, 0);
    csu_free(s->w, 0);
    csu_free(s->zcol, 0);
    csu_free(s->zval, 0);
    csu_free(s->znnz, 0);
    chainSolveFree(&s->chain);
    csu_free(s, 0);
  }
  LS->content = NULL;
  SUNLinSolFreeEmpty(LS);
  return SUNLS_SUCCESS;
}


// the reduced solver of group g, or NULL when out of memory
static SUNLinearSolver schurNew(Group* g) {
  SUNLinearSolver LS = SUNLinSolNewEmpty(g->sim->ctx);
  if (!LS) {
    return NULL;
  }
  LS->ops->gettype = schurGetType;
  LS->ops->getid = schurGetID;
  LS->ops->initialize = schurInitialize;
  LS->ops->setup = schurSetup;
  LS->ops->solve = schurSolve;
  LS->ops->lastflag = schurLastFlag;
  LS->ops->free = schurFree;
  size_t nb = (size_t)g->nbodies;
  size_t nz = (size_t)(g->nz_schur > 0 ? g->nz_schur : 1);
  SchurSolver* s = csu_malloc(sizeof(SchurSolver));
  LS->content = s;
  if (!s) {
    schurFree(LS);
    return NULL;
  }
  memset(s, 0, sizeof(*s));
  s->g = g;
  if (g->schur_model) {
    if (chainSolveAlloc(&s->chain, nb) != CS_OK) {
      schurFree(LS);
      return NULL;
    }
    return LS;
  }
  s->w = csu_malloc(sizeof(double) * nb);
  s->S = csu_malloc(sizeof(double) * nb * nb);
  s->piv = csu_malloc(sizeof(sunindextype) * nb);
  s->zcol = csu_malloc(sizeof(int) * nz * 2 * nb);
  s->zval = csu_malloc(sizeof(double) * nz * 2 * nb);
  s->znnz = csu_malloc(sizeof(int) * nz);
  if (!s->S || !s->piv || !s->w || !s->zcol || !s->zval || !s->znnz) {
    schurFree(LS);
    return NULL;
  }
  return LS;
}


// ---------------------------------------------------------------------------------------------
// one group's CVODE instance

// one of ARKODE's tables into dense arrays; 0 when it has s stages and an embedding
static int copyTable(ARKodeButcherTable T, int s, double a[][CS_ARK_MAX_STAGES], double* c,
                     double* b, double* d) {
  if (!T || T->stages != s || !T->d) {
    return -1;
  }
  for (int i = 0; i < s; i++) {
    for (int j = 0; j < s; j++) {
      a[i][j] = T->A[i][j];
    }
    c[i] = T->c[i];
    b[i] = T->b[i];
    d[i] = T->d[i];
  }
  return 0;
}


int cs_arkTableLoad(csArkTable* tab) {
  memset(tab, 0, sizeof(*tab));
  ARKodeButcherTable te = ARKodeButcherTable_LoadERK(ARKODE_ARK436L2SA_ERK_6_3_4);
  ARKodeButcherTable ti = ARKodeButcherTable_LoadDIRK(ARKODE_ARK436L2SA_DIRK_6_3_4);
  int s = te ? te->stages : 0;
  double ci[CS_ARK_MAX_STAGES], bi[CS_ARK_MAX_STAGES], di[CS_ARK_MAX_STAGES];
  int bad = s < 2 || s > CS_ARK_MAX_STAGES ||
            copyTable(te, s, tab->ae, tab->c, tab->b, tab->d) ||
            copyTable(ti, s, tab->ai, ci, bi, di);
  for (int i = 0; !bad && i < s; i++) {
    bad = ci[i] != tab->c[i] || bi[i] != tab->b[i] || di[i] != tab->d[i];
  }
  if (!bad) {
    tab->s = s;
    tab->q = te->q;
    tab->p = te->p;
  }
  ARKodeButcherTable_Free(te);
  ARKodeButcherTable_Free(ti);
  return bad ? -1 : 0;
}


// whether group g's state i is a force element's own (a dissipated energy or an element's
// state), rather than a position or a speed
static int isElementState(const Group* g, int i) {
  const csData* d = g->sim->d;
  int nz = g->sim->m->nz;
  return nz > 0 && g->slot[i] >= d->z && g->slot[i] < d->z + nz;
}


// When group g (ark's implicit block: the ni states idx[0..ni) of the group's vector) is one
// free body whose Jacobian jacobian.c can form from its elements, g->free for where its q and
// u sit in the block; CS_OK (g->free NULL for any other group) or CS_ERR_MEMORY
static int arkFreeSystem(Group* g, int ni, const int* idx) {
  const csModel* m = g->sim->m;
  const csData* d = g->sim->d;
  if (ni != FREE_BLOCK || g->nbodies != 1 ||
      !cs_freeJacobianUsable(m, d, g->bodies[0], g->forces, g->nforces, g->planes, g->nplanes)) {
    return CS_OK;
  }
  const csBody* body = &m->body[g->bodies[0]];
  int iq[7], iu[6], found = 0;
  for (int k = 0; k < ni; k++) {
    const double* slot = g->slot[idx[k]];
    if (slot >= d->q + body->qadr && slot < d->q + body->qadr + 7) {
      iq[slot - (d->q + body->qadr)] = k;
      found++;
    } else if (slot >= d->u + body->uadr && slot < d->u + body->uadr + 6) {
      iu[slot - (d->u + body->uadr)] = k;
      found++;
    }
  }
  if (found != FREE_BLOCK) {
    return CS_OK;
  }
  g->free = cs_freeSystemNew(iq, iu);
  return g->free ? CS_OK : CS_ERR_MEMORY;
}


// the most positions and speeds of one group that ark takes with its dense Jacobian and LU
// (each step): a 15-body walker has 111
enum { ARK_MAX_BLOCK = 200 };


// ark on a chain of pins and sliders whose elements all give their own derivatives (the
// groups whose BDF Newton matrix comes from the mass matrix, schurModelLayout): its Jacobian
//   L = [0 1; M^-1 df/dq  M^-1 df/du]   (rows and columns q, u)
// kept as the chain's pose and the two diagonals, as BDF keeps it (schurModelJac: the pose
// dependence of M and gravity and the velocity products left out, which ark's exact split
// integrates explicitly), and (1 - hg L) x = b solved through the tree in O(n):
//   (M - hg df/du - hg^2 df/dq) x_u = M b_u + hg df/dq b_q,   x_q = b_q + hg x_u,
// where difference quotients would cost 2 n right-hand sides a step and a dense LU (2 n)^3 / 3.
// The terms left out cost steps where they matter: a chain creeping under heavy joint damping
// (its slow motion set by gravity's pose dependence) took 4.7-5.8x the steps of the
// quotients' Jacobian at 1e-7, 1.6-1.9x the CPU (docs/performance.md, "ark on chains"). From
// eight bodies the quotients cost more than those steps everywhere else measured; below eight,
// where the damped chain took 4.7x the CPU, they are kept.
enum { ARK_CHAIN_MIN = 8 };

typedef struct ArkChain {
  int nb;
  csChainBody* body;    // (nb) the bodies at the Jacobian's pose
  double* fq;           // (nb) df/dq of each speed's force
  double* fu;           // (nb) df/du
  double* mq;           // (nb) -hg df/dq, the diagonals of 1 - hg L
  double* mu;           // (nb) -hg df/du
  int* bq;              // (nb) position of each body's coordinate in ark's implicit block
  int* bu;              // (nb) and of its speed
  ChainSolve solve;
} ArkChain;


static void arkChainDelete(ArkChain* c) {
  if (!c) {
    return;
  }
  csu_free(c->body, 0);
  csu_free(c->fq, 0);
  csu_free(c->fu, 0);
  csu_free(c->mq, 0);
  csu_free(c->mu, 0);
  csu_free(c->bq, 0);
  csu_free(c->bu, 0);
  chainSolveFree(&c->solve);
  csu_free(c, 0);
}


// Group g's ArkChain for ark's implicit block idx[0..ni) when g is such a chain (g->arkchain
// stays NULL otherwise): CS_OK or CS_ERR_MEMORY
static int arkChainSystem(Group* g, int ni, const int* idx) {
  if (g->sim->opt.linsol != CS_LINSOL_AUTO || g->free) {
    return CS_OK;
  }
  if (!g->iq) {
    g->schur = schurLayout(g);
  }
  int nb = g->nbodies;
  if (!g->schur || !g->schur_model || ni != 2 * nb || (nb < ARK_CHAIN_MIN && ni <= ARK_MAX_BLOCK)) {
    return CS_OK;
  }
  ArkChain* c = csu_malloc(sizeof(ArkChain));
  if (!c) {
    return CS_ERR_MEMORY;
  }
  memset(c, 0, sizeof(*c));
  size_t n = (size_t)nb;
  c->nb = nb;
  c->body = csu_malloc(sizeof(csChainBody) * n);
  c->fq = allocArray(n, sizeof(double));
  c->fu = allocArray(n, sizeof(double));
  c->mq = allocArray(n, sizeof(double));
  c->mu = allocArray(n, sizeof(double));
  c->bq = allocArray(n, sizeof(int));
  c->bu = allocArray(n, sizeof(int));
  if (chainSolveAlloc(&c->solve, n) != CS_OK || !c->body || !c->fq || !c->fu || !c->mq ||
      !c->mu || !c->bq || !c->bu) {
    arkChainDelete(c);
    return CS_ERR_MEMORY;
  }
  // each body's coordinate and speed in the block (every one is there: ni = 2 nb), through the
  // block position of each of the group's states
  int* pos = allocArray((size_t)g->nused, sizeof(int));
  if (!pos) {
    arkChainDelete(c);
    return CS_ERR_MEMORY;
  }
  for (int i = 0; i < g->nused; i++) {
    pos[i] = -1;
  }
  for (int p = 0; p < ni; p++) {
    pos[idx[p]] = p;
  }
  int complete = 1;
  for (int k = 0; k < nb; k++) {
    c->bq[k] = pos[g->iq[k]];
    c->bu[k] = pos[g->iu[k]];
    complete = complete && c->bq[k] >= 0 && c->bu[k] >= 0;
  }
  csu_free(pos, 0);
  if (!complete) {
    arkChainDelete(c);
    return CS_OK;
  }
  g->arkchain = c;
  return CS_OK;
}


// ark's Jacobian of a chain (arkChainSystem): the pose and the elements' derivatives at (t, y);
// L is not used. A derivative that is not finite leaves its speed's force explicit.
static int groupChainJacobian(double t, const double* y, double* L, void* user_data) {
  (void)L;
  Group* g = user_data;
  if (stopRequested(g->sim)) {
    return -1;
  }
  ArkChain* c = g->arkchain;
  if (chainModelJac(g, t, y, c->body, c->fq, c->fu) != 0) {
    for (int k = 0; k < c->nb; k++) {
      if (!isfinite(c->fq[k]) || !isfinite(c->fu[k])) {
        c->fq[k] = c->fu[k] = 0;
      }
    }
  }
  return 0;
}


static int groupChainFactor(void* user_data, const double* L, double hg) {
  (void)L;
  const Group* g = user_data;
  ArkChain* c = g->arkchain;
  for (int k = 0; k < c->nb; k++) {
    c->mq[k] = -hg * c->fq[k];
    c->mu[k] = -hg * c->fu[k];
  }
  return chainSolveFactor(&c->solve, c->body, g->parent_idx, c->nb, c->mq, c->mu, hg);
}


static void groupChainSolve(void* user_data, double* x) {
  const Group* g = user_data;
  ArkChain* c = g->arkchain;
  chainSolveSolve(&c->solve, c->body, g->parent_idx, c->nb, c->mq, c->bq, c->bu, x, x);
}


// No element of group g last committed after t (the time it starts from): a state loaded or
// edited there carries each element's commit time, and a group that had stepped past t drops
// that step's commit
static void commitsNotAfter(Group* g, double t) {
  double* ct = g->sim->d->commit_t;
  for (int i = 0; i < g->nforces; i++) {
    ct[g->forces[i]] = fmin(ct[g->forces[i]], t);
  }
}


static double grazeWithin(void* ctx, double t0, double t1, double* width);  // (with the onsets)

// Group g's rk instance at t0 (rk.c: Dormand-Prince 5(4)), from the data's current state, on
// the array of g->y (its vectors are allocated): no linear solver (linsol -1 records that), no
// projection.
static int createRk(Group* g, double t0, csError* err) {
  Sim* sim = g->sim;
  const csSimOptions* opt = &sim->opt;
  g->linsol = -1;
  if (!g->y || !g->ytmp || !g->atolv) {
    cs_setError(err, CS_ERR_MEMORY, "", "out of memory creating the integrator");
    return CS_ERR_MEMORY;
  }
  storeState(g, N_VGetArrayPointer(g->y));
  g->t = t0;
  g->fresh = 1;
  g->felt_from = g->stepno;
  commitsNotAfter(g, t0);
  g->rk = cs_rkNew(g->nstate, groupRhs, g, t0, N_VGetArrayPointer(g->y), opt->rtol, opt->atol,
                   opt->max_step, opt->initial_step);
  if (!g->rk) {
    cs_setError(err, CS_ERR_MEMORY, "", "out of memory creating the integrator");
    return CS_ERR_MEMORY;
  }
  if (opt->integrator == CS_INTEGRATOR_RK23) {
    g->rk->method = CS_RK_BS32;
  }
  g->rk->graze = grazeWithin;
  if (opt->integrator == CS_INTEGRATOR_ARK) {
    // the implicit block: the group's positions and speeds (the elements' own states, such as
    // dissipated energies, which nothing depends on, stay explicit)
    int* idx = csu_malloc(sizeof(int) * (size_t)(g->nused > 0 ? g->nused : 1));
    int ni = 0;
    for (int i = 0; idx && i < g->nused; i++) {
      if (!isElementState(g, i)) {
        idx[ni++] = i;
      }
    }
    // a free body forms its Jacobian from its elements; a chain of pins and sliders from its
    // mass matrix, solving its systems through the tree at any size
    if (!idx || arkFreeSystem(g, ni, idx) != CS_OK || arkChainSystem(g, ni, idx) != CS_OK) {
      csu_free(idx, 0);
      cs_setError(err, CS_ERR_MEMORY, "", "out of memory creating the integrator");
      return CS_ERR_MEMORY;
    }
    if (ni > ARK_MAX_BLOCK && !g->arkchain) {
      csu_free(idx, 0);
      cs_setError(err, CS_ERR_INPUT, "simulation.integrator",
                  "ark forms a dense Jacobian of a group's positions and speeds at every step "
                  "(one evaluation per state and an LU of their number cubed), and %s has %d "
                  "of them, more than %d (with the automatic linear_solver a chain of pins and "
                  "sliders whose elements all give their own derivatives has no such limit): "
                  "use bdf (a chain's Newton matrix in O(n), GMRES for other large groups) or "
                  "rk%s",
                  opt->linsol == CS_LINSOL_AUTO ? "a group of this model" : "this model, as one "
                  "group with the linear_solver given,", ni, ARK_MAX_BLOCK,
                  opt->linsol == CS_LINSOL_AUTO ? "" : ", or the automatic linear_solver, with "
                  "which bodies that cannot influence each other form groups of their own");
      return CS_ERR_INPUT;
    }
    g->rk->fcolumn = groupRhsColumn;
    if (g->free) {
      g->rk->fjac = groupFreeJacobian;
      g->rk->wfactor = groupFreeFactor;
      g->rk->wsolve = groupFreeSolve;
    } else if (g->arkchain) {
      g->rk->fjac = groupChainJacobian;
      g->rk->wfactor = groupChainFactor;
      g->rk->wsolve = groupChainSolve;
      g->rk->matrix_free = 1;
    }
    csArkTable tab;
    int r = cs_arkTableLoad(&tab) != 0 ? CS_ERR_SOLVER : cs_rkArkInit(g->rk, &tab, ni, idx);
    csu_free(idx, 0);
    if (r == CS_ERR_MEMORY) {
      cs_setError(err, CS_ERR_MEMORY, "", "out of memory creating the integrator");
      return CS_ERR_MEMORY;
    }
    if (r != CS_OK) {
      cs_setError(err, CS_ERR_SOLVER, "",
                  "the SUNDIALS library lacks ARKODE's ARK4(3)6L[2]SA tables");
      return CS_ERR_SOLVER;
    }
  }
  return CS_OK;
}


// with the automatic linear solver, the most states of a group solved with a dense Jacobian;
// larger ones (that are not chains of pins and sliders) use GMRES
enum { AUTO_DENSE_MAX = 100 };

// Group g's CVODE instance at t0, from the data's current state: BDF with Newton iteration and a
// dense, band or GMRES linear solver, or Adams with fixed-point iteration (non-stiff, no
// Jacobian). The quaternion projection exists for BDF only; Adams relies on the stabilisation
// term of the quaternion kinematics (kinematics.c).
static int createSolver(Group* g, double t0, csError* err) {
  Sim* sim = g->sim;
  const csSimOptions* opt = &sim->opt;
  g->y = N_VNew_Serial(g->nstate, sim->ctx);
  g->ytmp = N_VNew_Serial(g->nstate, sim->ctx);
  g->atolv = N_VNew_Serial(g->nstate, sim->ctx);
  // the solvers clone their work vectors from y: they get the optimised arithmetic too
  cs_vectorUseFastOps(g->y);
  cs_vectorUseFastOps(g->ytmp);
  cs_vectorUseFastOps(g->atolv);
  if (sim->rk) {
    return createRk(g, t0, err);
  }
  int bdf = opt->integrator == CS_INTEGRATOR_BDF;
  g->mem = CVodeCreate(bdf ? CV_BDF : CV_ADAMS, sim->ctx);
  if (!g->y || !g->ytmp || !g->atolv || !g->mem) {
    cs_setError(err, CS_ERR_MEMORY, "", "out of memory creating the integrator");
    return CS_ERR_MEMORY;
  }
  // initial state, and absolute tolerances as a vector (the same for every state)
  storeState(g, N_VGetArrayPointer(g->y));
  N_VConst(opt->atol, g->atolv);

  g->t = t0;
  g->fresh = 1;
  g->felt_from = g->stepno;
  // a state loaded from a checkpoint carries its elements' last commits; never later than t0
  commitsNotAfter(g, t0);
  // messages go to our buffer from here on, before anything can fail
#if SUNDIALS_VERSION_MAJOR < 7
  CVodeSetErrHandlerFn(g->mem, errorHandler, sim);
#endif
  if (check(CVodeInit(g->mem, rhs, t0, g->y), "CVodeInit", sim, t0, err) ||
      check(CVodeSetUserData(g->mem, g), "CVodeSetUserData", sim, t0, err) ||
      check(CVodeSVtolerances(g->mem, opt->rtol, g->atolv), "CVodeSVtolerances", sim, t0, err) ||
      (opt->max_step > 0 &&
       check(CVodeSetMaxStep(g->mem, opt->max_step), "CVodeSetMaxStep", sim, t0, err)) ||
      (opt->initial_step > 0 &&
       check(CVodeSetInitStep(g->mem, opt->initial_step), "CVodeSetInitStep", sim, t0, err))) {
    return CS_ERR_SOLVER;
  }
  // Adams: no linear solver, which linsol -1 records
  if (!bdf) {
    g->linsol = -1;
    // Anderson acceleration of depth 2 for groups of eight bodies or more: on chain_64 it
    // halves the right-hand sides (the plain iteration fails to converge 1,600 times and cuts
    // the step each time); on a single body its extra vector work costs more than it saves
    int depth = g->nbodies >= 8 ? 2 : 0;
    g->NLS = SUNNonlinSol_FixedPoint(g->y, depth, sim->ctx);
    if (!g->NLS) {
      cs_setError(err, CS_ERR_MEMORY, "", "out of memory creating the fixed-point solver");
      return CS_ERR_MEMORY;
    }
    return check(CVodeSetNonlinearSolver(g->mem, g->NLS), "CVodeSetNonlinearSolver", sim, t0,
                 err) ? CS_ERR_SOLVER : CS_OK;
  }
  // a coupled group's Jacobian is full: dense unless a solver was asked for, or the group is so
  // large that forming and factoring it costs more than Krylov iterations do (a 40-link chain
  // of ball joints, 280 states: 0.20 s dense, 0.056 s GMRES; 200 links 14.6 s against 0.22 s;
  // 25 links whipping a stiff contact 1.07 s against 0.31 s); a chain of pins and sliders
  // solves its reduced system instead (see schurLayout)
  if (opt->linsol == CS_LINSOL_AUTO && !g->iq) {
    g->schur = schurLayout(g);
  }
  // (the reduced system of a chain is solved directly, whatever its size)
  csLinearSolver ls = opt->linsol != CS_LINSOL_AUTO                 ? opt->linsol
                      : g->schur || g->nstate <= AUTO_DENSE_MAX ? CS_LINSOL_DENSE
                                                                : CS_LINSOL_GMRES;
  g->linsol = ls;
  if (opt->linsol == CS_LINSOL_AUTO && g->schur) {
    g->A = chainMatNew(sim->ctx, g->nbodies, g->nz_schur, g->schur_model);
    g->LS = g->A ? schurNew(g) : NULL;
    if (!g->LS) {
      cs_setError(err, CS_ERR_MEMORY, "", "out of memory creating the linear solver");
      return CS_ERR_MEMORY;
    }
    if (check(CVodeSetLinearSolver(g->mem, g->LS, g->A), "CVodeSetLinearSolver", sim, t0, err) ||
        check(CVodeSetJacFn(g->mem, schurJac), "CVodeSetJacFn", sim, t0, err)) {
      return CS_ERR_SOLVER;
    }
    return CS_OK;
  }
  // SUNDIALS' dense and band matrices do not check their allocations (a matrix too large for
  // memory crashed at the first step, where CVODE clones it): the room for the matrix and its
  // clone is tried first, and its lack said in the user's terms. A probe with the system's
  // malloc, freed untouched (the library's counting allocator zeroes, which would cost what it
  // measures); a guard, not a guarantee: where the system overcommits memory it may pass for a
  // matrix that cannot be backed.
  if (ls == CS_LINSOL_DENSE || ls == CS_LINSOL_BAND) {
    double n = (double)g->nstate;
    double columns = ls == CS_LINSOL_DENSE ? n : (double)(g->upper + 2 * g->lower + 1);
    double bytes = 2.0 * n * columns * sizeof(sunrealtype);
    void* room = bytes < 0x1p62 ? malloc((size_t)bytes) : NULL;
    free(room);
    if (!room) {
      cs_setError(err, CS_ERR_MEMORY, "",
                  "out of memory for the %s Jacobian of %d states: it needs %.3g GB (the "
                  "matrix and CVODE's copy of it); linear_solver \"auto\" solves a group this "
                  "large with GMRES (a chain of pins and sliders through its mass matrix), "
                  "without it",
                  ls == CS_LINSOL_DENSE ? "dense" : "band", g->nstate, bytes / 1e9);
      return CS_ERR_MEMORY;
    }
  }
  // band uses the layout's half-bandwidths; GMRES is unpreconditioned
  if (ls == CS_LINSOL_BAND) {
    g->A = SUNBandMatrix(g->nstate, g->upper, g->lower, sim->ctx);
    g->LS = g->A ? SUNLinSol_Band(g->y, g->A, sim->ctx) : NULL;
  } else if (ls == CS_LINSOL_GMRES) {
    g->LS = SUNLinSol_SPGMR(g->y, SUN_PREC_NONE, 0, sim->ctx);
  } else {
    g->A = SUNDenseMatrix(g->nstate, g->nstate, sim->ctx);
    // the same matrix and LU, with the library's compiled arithmetic and a stop request
    // honoured while it factors (sundials_ops.c)
    cs_denseUseFastOps(g->A);
    g->LS = g->A ? cs_denseSolver(g->A, sim->ctx, stopCallback, sim) : NULL;
  }
  if (!g->LS) {
    cs_setError(err, CS_ERR_MEMORY, "", "out of memory creating the linear solver");
    return CS_ERR_MEMORY;
  }
  if (check(CVodeSetLinearSolver(g->mem, g->LS, g->A), "CVodeSetLinearSolver", sim, t0, err) ||
      check(CVodeSetProjFn(g->mem, project), "CVodeSetProjFn", sim, t0, err) ||
      (g->A && ls != CS_LINSOL_BAND &&
       check(CVodeSetJacFn(g->mem, denseJac), "CVodeSetJacFn", sim, t0, err))) {
    return CS_ERR_SOLVER;
  }
  return CS_OK;
}


// every one of these accepts NULL, so a partly created instance is freed too
static void destroySolver(Group* g) {
  cs_rkFree(g->rk);
  g->rk = NULL;
  cs_freeSystemDelete(g->free);
  g->free = NULL;
  arkChainDelete(g->arkchain);
  g->arkchain = NULL;
  CVodeFree(&g->mem);
  SUNNonlinSolFree(g->NLS);
  SUNLinSolFree(g->LS);
  SUNMatDestroy(g->A);
  N_VDestroy(g->atolv);
  N_VDestroy(g->ytmp);
  N_VDestroy(g->y);
}


// How far |q| of a quaternion may drift from 1 before rk puts it back. The rotation is always
// computed from q / |q| (kinematics.c), so a drift changes no force and no output, only the
// quaternion rates by the factor |q|; and putting it back costs a reset, that is a right-hand
// side. Dormand and Prince's steps change |q| by rounding (1e-16 to 1e-12 a step on the bench
// scenes): renormalising every step cost one right-hand side in eight.
static const double RK_QUAT_DRIFT = 1e-9;


// rk, after group g's commit: quaternions back to unit length when they have drifted by more
// than RK_QUAT_DRIFT (an explicit method has no projection; the kinematic pull toward unit
// length only slows the drift), and if that or the commit changed the right-hand side, a reset
// at the current state. rk keeps the derivative at the step's end (computed before the commit,
// from the values the step used) as the first stage of the next step (first same as last);
// after a reset the next step evaluates it afresh. The reset keeps the counters, the step size
// it would have tried next and the controller's memory, so the step-size sequence goes on as
// without the reset. A group whose commit changed nothing (no auto-update variables, or a block
// at rest with its anchor in place) and whose quaternions are within RK_QUAT_DRIFT of unit
// length keeps the first-same-as-last derivative and pays nothing.
static void rkAfterCommit(Group* g) {
  Sim* sim = g->sim;
  csData* d = sim->d;
  int changed = 0;
  for (int i = 0; i < d->nact_force && !changed; i++) {
    const csForce* f = &sim->m->force[d->act_force[i]];
    changed = memcmp(sim->auto_before + f->autoadr, d->autoval + f->autoadr,
                     sizeof(double) * (size_t)f->autonum) != 0;
  }
  sunrealtype* y = N_VGetArrayPointer(g->y);
  for (int k = 0; k < g->nquat; k++) {
    sunrealtype* q = y + g->quat[k];
    double n = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    if (n > 0 && fabs(n - 1) > RK_QUAT_DRIFT) {
      for (int i = 0; i < 4; i++) {
        q[i] /= n;
      }
      changed = 1;
    }
  }
  if (!changed) {
    return;
  }
  if (g->nquat > 0) {
    loadState(g, g->t, y);  // the data holds the state the next step starts from
  }
  cs_rkReset(g->rk, g->t);
}


// whether the data still holds group g's state at the end of its step, realized to dynamics (or
// its rates realized by the planar right-hand side, dynamics.c):
// rk's last stage evaluates the right-hand side there (the next step's first stage), and unless
// a report or another group has used the data since, that realization is the step end's. The
// list pointer tells another group's use; a group holding the whole model shares its lists with
// reports (cs_activateAll), and then the time and the state compared below tell: a report at
// another time or state fails them, and one at the step end itself realized the same state.
static int holdsStepEnd(const Group* g) {
  const csData* d = g->sim->d;
  if ((d->stage < CS_STAGE_DYNAMICS && !d->planar_rates) || d->t != g->t ||
      d->act_body != groupBodies(g)) {
    return 0;
  }
  const sunrealtype* y = N_VGetArrayPointer(g->y);
  for (int i = 0; i < g->nused; i++) {
    if (*g->slot[i] != y[i]) {
      return 0;
    }
  }
  return 1;
}


// The active group's elements' gaps (csForceKind.gaps) at the state the data holds (its rates
// realized here if they are not yet), into gap, element after element; returns how many
static int groupGaps(Group* g, double* gap) {
  const csModel* m = g->sim->m;
  csData* d = g->sim->d;
  int n = 0;
  if (g->nonset > 0) {
    cs_realizeRates(m, d);  // nothing once the data holds them
  }
  for (int i = 0; i < g->nonset; i++) {
    int e = g->onset[i];
    n += cs_forceKind(m->force[e].kind)->gaps(m, d, e, gap + 3 * n);
  }
  return n;
}


// rk starts again at t (the state or the elements' variables were set from outside, or a
// change applied): the first step chosen afresh, and the gaps found before are not the state's
static void restartRk(Group* g, double t) {
  cs_rkRestart(g->rk, t, g->sim->opt.initial_step);
  g->gap_t = g->gap_end_t = NAN;
}


// When one of the active group's elements is next predicted to start acting (cs_gapRoot), from
// the step end the data holds: rk and ark end their next step there rather than step across it.
// INFINITY when no element has an onset. The gaps are kept, as the next step's start
// (grazeWithin), which found them already when it checked the step (the state is then the
// step's end: an edit or a change since restarts the group, restartRk).
static double nextOnset(Group* g) {
  if (g->gap_end_t == g->t) {
    double* swap = g->gap;
    g->gap = g->gap_end;
    g->gap_end = swap;
    g->ngap = g->ngap_end;
    g->gap_end_t = NAN;
  } else {
    g->ngap = groupGaps(g, g->gap);
  }
  g->gap_t = g->t;
  double t = INFINITY;
  for (int i = 0; i < g->ngap; i++) {
    const double* gi = g->gap + 3 * i;
    double te = cs_gapRoot(gi[0], gi[1], gi[2]);
    if (te > 0 && te < t) {
      t = te;
    }
  }
  return g->t + t;
}


// rk's check of a try from t0 to t1 that passed its error test (csRk.graze), the data realized at
// its end by its last stage: where a gap apart at both ends closes within it (cs_gapDip from the
// gaps at the step's start, nextOnset's, and at the end), the earliest such time; NaN when there
// is none, or when the start's gaps are not known
static double grazeWithin(void* ctx, double t0, double t1, double* width) {
  Group* g = ctx;
  if (g->nonset == 0 || g->gap_t != t0) {
    return NAN;
  }
  g->ngap_end = groupGaps(g, g->gap_end);
  g->gap_end_t = t1;
  if (g->ngap_end != g->ngap) {
    return NAN;  // (a stop's stiffness set to 0 or from 0 restarts the group: not in a step)
  }
  double s = INFINITY;
  for (int i = 0; i < g->ngap; i++) {
    double wi = 0;
    double si = cs_gapDip(g->gap + 3 * i, g->gap_end + 3 * i, t1 - t0, &wi);
    if (si < s) {
      s = si;
      *width = wi * (t1 - t0);
    }
  }
  if (!(s < 1)) {
    return NAN;
  }
  // the try is taken again: its end's gaps, of a motion that skipped the touch, are no step's
  // (the retaken steps can end at t1 again)
  g->gap_end_t = NAN;
  return t0 + s * (t1 - t0);
}


// group g's step reached a report time: it is finished after the report (finishStep), so that
// the report sees the values the step used and a stop at the report drops the step unseen. rk's
// next onset is found now, while its last stage has left the step's end realized: after the
// report, which interpolates into the data, that end would be realized a second time.
static void holdStep(Group* g) {
  if (g->sim->rk && holdsStepEnd(g)) {
    g->rk->tonset = nextOnset(g);
    g->onset_seen = 1;
  }
  g->pending = 1;
}


// A report at which a contact or a stop acts that no evaluation of its group's step around the
// report, nor of the FELT_BEFORE steps before (whose last evaluation may be the next one's
// first; BDF and Adams evaluate at predicted states, so the tail of a touch, still pressed in
// at a step's accepted end, can lie two steps after the last evaluation that felt it) found
// acting: the report, made on the step's interpolant, shows a force the motion has not felt.
// Either the next step feels it (the touch began inside the step, which did not reach it:
// nothing is lost) or no step does: the steps passed over a touch shorter than a step (BDF
// and Adams locate no onsets; rk takes such a step again, grazeWithin, unless the ends'
// interpolant and the start's prediction both miss the touch). The report is a
// suspect until the next step ends (touchesFelt). Not within the first step after a
// (re)start, whose state no evaluation had seen before.
enum { FELT_BEFORE = 3 };
static void passedOver(Sim* sim) {
  csData* d = sim->d;
  for (int gi = 0; gi < sim->ngroup; gi++) {
    const Group* g = &sim->group[gi];
    if (g->stepno <= g->felt_from) {
      continue;
    }
    for (int i = 0; i < g->nonset; i++) {
      int e = g->onset[i];
      if (d->force_pe[e] > 0 && d->felt_step[e] + FELT_BEFORE < g->stepno) {
        if (d->suspect_n[e]++ == 0) {
          d->suspect_step[e] = g->stepno;
          d->suspect_t[e] = d->t;
        }
      }
    }
  }
}


// At the end of group g's step: the suspects of its elements from an earlier step (passedOver)
// that this step did not feel either were passed over, counted for a diagnostic (metrics.c)
static void touchesFelt(Group* g) {
  csData* d = g->sim->d;
  for (int i = 0; i < g->nonset; i++) {
    int e = g->onset[i];
    if (d->suspect_n[e] == 0 || d->suspect_step[e] >= g->stepno) {
      continue;
    }
    if (d->felt_step[e] != g->stepno) {
      if (d->stat.warnings_passed_over == 0) {
        d->stat.passed_over_force = e;
        d->stat.passed_over_t = d->suspect_t[e];
      }
      d->stat.warnings_passed_over += d->suspect_n[e];
      if (e != d->stat.passed_over_force) {
        d->stat.passed_over_others += d->suspect_n[e];
      }
    }
    d->suspect_n[e] = 0;
  }
}


// the step just taken by the active group g is over: statistics hook, rk's next onset (unless
// holdStep found it), then auto-updates
static void finishStep(Group* g) {
  Sim* sim = g->sim;
  csData* d = sim->d;
  if (!holdsStepEnd(g)) {
    loadState(g, g->t, N_VGetArrayPointer(g->y));
  }
  if (sim->rep && sim->rep->step) {
    // the realization is the commit's (below), not the hook's: it counts as integration
    cs_realizeDynamics(sim->m, d);
    if (sim->nhook++ % HOOK_SAMPLE == 0) {
      double c0 = cpuSeconds();
      sim->rep->step(sim->rep->ctx, sim->m, d);
      sim->hook_sampled += cpuSeconds() - c0;
      sim->nhook_sampled++;
    } else {
      sim->rep->step(sim->rep->ctx, sim->m, d);
    }
  }
  if (sim->rk && !g->onset_seen) {
    g->rk->tonset = nextOnset(g);
  }
  g->onset_seen = 0;
  // rk: the values before the commit, to tell whether it changed the right-hand side
  if (sim->rk) {
    for (int i = 0; i < d->nact_force; i++) {
      const csForce* f = &sim->m->force[d->act_force[i]];
      memcpy(sim->auto_before + f->autoadr, d->autoval + f->autoadr,
             sizeof(double) * (size_t)f->autonum);
    }
  }
  // (each element measures the step from its own last commit: d->commit_t)
  cs_commitAutoUpdates(sim->m, d);
  g->pending = 0;
  touchesFelt(g);
  g->stepno++;
  if (sim->rk) {
    rkAfterCommit(g);
  }
}


// When the failing group's step size has collapsed, err is rewritten to say so, with why CVODE
// stopped (printf format), CVODE's message for the failing call and its first warning of the
// run, instead of only "too much work", which suggests raising a limit. Collapsed: CVODE warned
// (t + h = t), the step is below 1e-9 of the problem's time scale, the report interval (or of a
// second, where the interval is longer), or a failing step shrank below 1e-3 of the last
// successful one (error-test or convergence failures repeated down to nothing). The time itself
// is no such scale: where it is counted from says nothing of the motion (a run from t = 1e6 s
// that needed more than max_steps steps of 3e-5 s was called collapsed), and steps too short for
// the time to follow are the rounding error's (roundingError, lostInRounding), unless they are
// below 1e-9 of the report interval too: those collapsed wherever the time stands.
// A step below 1e-9 of the problem's time scale: the report interval, but not beyond a second
// (free fall reported every 1e14 s, in steps of 0.06 s, was called collapsed: too many steps is
// too much work)
static int collapsedStep(const Sim* sim, double h) {
  return h < 1e-9 * fmin(sim->opt.report_interval, 1.0);
}


__attribute__((format(printf, 4, 5))) static void collapseError(Group* g, csError* err,
                                                                int failed, const char* why,
                                                                ...) {
  const Sim* sim = g->sim;
  const csStats* s = &sim->d->stat;
  double hlast = lastStep(g), hcur = currentStep(g);
  double h = failed && hcur > 0 ? fabs(hcur) : fabs(hlast);
  if (s->warnings_cvode == 0 && !collapsedStep(sim, h) && !(failed && h < 1e-3 * fabs(hlast))) {
    return;
  }
  char reason[160];
  va_list ap;
  va_start(ap, why);
  vsnprintf(reason, sizeof(reason), why, ap);
  va_end(ap);
  // an absolute tolerance far below the rounding of the state's values: the components rounding
  // moves (a quaternion's zeros) cannot meet it, whatever the forces (free fall at atol 1e-50)
  double ymax = N_VMaxNorm(g->y);
  char tight[200] = "";
  if (sim->opt.atol < 1e-3 * DBL_EPSILON * ymax) {
    snprintf(tight, sizeof(tight), "; or atol %g is below what rounding leaves of the state's "
             "values (up to %.3g): try an atol such as %.1g", sim->opt.atol, ymax,
             1e-12 * ymax);
  }
  cs_setError(err, CS_ERR_SOLVER, "",
              "the step size collapsed to h = %.3g s at t = %.9g s (%s): the forces probably "
              "jump or stop being finite there%s%s%.160s%s%.160s%s",
              h, (double)g->t, reason, tight,
              failed && sim->cvmsg[0] ? "; CVODE said: " : "",
              failed ? sim->cvmsg : "",
              s->warnings_cvode ? "; CVODE warned: " : "",
              s->cvode_warning, s->warnings_cvode > 1 ? " (and again later)" : "");
  err->time = g->t;
}


// CVODE's first step from a start or a restart failed (flag), with no step accepted: err says
// so, with both causes it can have and CVODE's message.
static void firstStepFailed(Group* g, int flag, csError* err) {
  const Sim* sim = g->sim;
  double h = fabs(currentStep(g));
  cs_setError(err, CS_ERR_SOLVER, "",
              "the first step from t = %.9g s failed (h = %.3g s, CVode failed with %s): the "
              "forces there are not finite or jump, or a step that long cannot follow the "
              "motion (%s)%s%.160s",
              (double)g->t, h, flagName(flag),
              sim->opt.initial_step > 0
                  ? "it is simulation.initial_step: give a shorter one, or a max_step"
                  : "its length is estimated from the distance to the next report: give "
                    "simulation.initial_step or max_step",
              sim->cvmsg[0] ? "; CVODE said: " : "", sim->cvmsg);
  err->time = g->t;
}


// A multistep method whose steps collapsed in a group with exponential springs on the blended
// anchor rule: that rule moves the anchor by a fraction of the stretch at every commit whatever
// the step's length, so short steps read a large anchor speed, Sliding jumps and the friction
// force with it, and the steps shrink on (docs/contact-models.md, "The anchor rule"). Not a
// failure of forces that are not finite (the state of the failed try is then not finite).
static int blendedAnchorsFailed(const Group* g) {
  const Sim* sim = g->sim;
  if (sim->rk || !cs_metricsBlendedAnchors(sim->m, g->forces, g->nforces)) {
    return 0;
  }
  const double* y = N_VGetArrayPointer(g->y);
  for (int i = 0; i < g->nstate; i++) {
    if (!isfinite(y[i])) {
      return 0;
    }
  }
  return 1;
}


// The message then says what runs such scenes, since raising max_steps or tightening the
// tolerances does not.
static void blendedAnchorHint(csError* err) {
  size_t len = strlen(err->message);
  snprintf(err->message + len, sizeof(err->message) - len,
           "; on exponential springs with the blended anchor rule (the default), bdf's and "
           "adams's steps can collapse at tight tolerances: the one-step integrators rk and ark "
           "run such scenes, or anchor_rule \"limit\" (docs/contact-models.md, \"The anchor "
           "rule\")");
}


// what a failed rk step (rk.c) means, for the messages
static const char* rkStatusName(csRkStatus status) {
  switch (status) {
    case CS_RK_OK: return "CS_RK_OK";
    case CS_RK_RHS_FAIL: return "CS_RK_RHS_FAIL (the right-hand side failed)";
    case CS_RK_RHS_REPEATED:
      return "CS_RK_RHS_REPEATED (the forces were not finite on eleven tries, the step cut by 4 "
             "each time)";
    case CS_RK_STEP_TOO_SMALL:
      return "CS_RK_STEP_TOO_SMALL (error tests, or forces that were not finite, kept cutting the "
             "step down to the round-off of t)";
  }
  return "CS_RK_UNKNOWN";
}


// a step cut short by a stop request (groupRhs): the group's state is the last completed step's
// (CVODE returns it in y on failure; rk changes y only when a step succeeds), and the run ends
// as one stopped between steps does
static int stoppedInStep(Group* g, csError* err) {
  loadState(g, g->t, N_VGetArrayPointer(g->y));
  cs_setError(err, CS_STOPPED, "", "stopped on request at t = %.9g s", g->t);
  err->time = g->t;
  return CS_STOPPED;
}


// steps since CVODE's last (re)start below which a failing step is not retried from a restart
enum { RETRY_MIN_STEPS = 50 };
// How far the time may move beyond the step CVODE integrated (its stop time taken as reached
// within its rounding, 100 units of t): TIME_SLIP s, or TIME_SLIP_REPORTS of the report
// interval when that is more. The physics does not notice either (1e-6 s at the default
// report interval; CVODE's rounding reaches it only beyond t = 4.5e7 s), while a stop time
// taken as reached a whole step or more early (1 s at t = 1e14 s) is refused.
static const double TIME_SLIP = 1e-9, TIME_SLIP_REPORTS = 1e-4;
static double timeSlip(const Sim* sim) {
  return fmax(TIME_SLIP, TIME_SLIP_REPORTS * sim->opt.report_interval);
}


// The error of a step of h s from t that the time cannot follow (the time moved by `moved`
// instead): doubles are too far apart at t for the steps the motion needs (docs/cli.md), or,
// when h is the whole way to the stop, for an advance that short.
static int roundingError(double h, double t, double moved, int to_stop, csError* err) {
  double ulp = nextafter(fabs(t), INFINITY) - fabs(t);
  cs_setError(err, CS_ERR_SOLVER, "",
              "the step of %.3g s is lost in rounding at t = %.17g s, where doubles are %.3g s "
              "apart (the time moved by %.3g s): the time is too large for %s",
              h, t, ulp, moved,
              to_stop ? "an advance that short; advance further or count the time from nearer 0"
                      : "the steps this motion needs; count the time from nearer 0");
  err->time = t;
  return CS_ERR_SOLVER;
}


// Steps within this many roundings of t (DBL_EPSILON |t|) are lost in rounding: CVODE counts
// a stop time within 100 of them as reached, and starts no shorter unless its stop time is
// nearer or an initial step is given (rk refuses steps below 16: cs_rkTry).
static const double ROUNDING_STEPS = 100;

// Whether a step that failed at t (an error test, a Newton iteration or rk's refusal, the
// step tried last being h, to_stop s short of the stop) failed for the rounding of t rather
// than for the forces: h is within ROUNDING_STEPS roundings of t, and it is either the whole
// way to the stop (the advance asked for is that short) or a step the motion could take nearer
// 0 (at least 1e-9 of the report interval; shorter is the collapse that collapseError reports
// wherever the time stands). Far from 0 every step is short: at 1e14 s, 2.2 s is.
static int lostInRounding(const Sim* sim, double t, double h, double to_stop) {
  return h > 0 && h <= ROUNDING_STEPS * DBL_EPSILON * fabs(t) &&
         (h >= 0.5 * to_stop || h >= 1e-9 * sim->opt.report_interval);
}


// The tout of CVODE's first step after a (re)start, which must be more than two roundings of t
// away (CV_TOO_CLOSE; CV_ILL_INPUT for tout = t): far from 0 a report interval may be less
// (t + 0.002 s = t at 1e14 s), and the hint is then 1000 roundings of t (CVODE's first step
// there is at least 100 of them, cut by its stop time); what becomes of the step is judged
// after it.
// Whether tout is too close to t for CVODE's first step (within four roundings: CV_TOO_CLOSE
// is two).
static int tooCloseToStart(double t, double tout) {
  return !(tout - t > 4 * DBL_EPSILON * fmax(fabs(t), fabs(tout)));
}


static double startHint(const Group* g, double tout) {
  double t = (double)g->t;
  if (tooCloseToStart(t, tout)) {
    return t + 1e3 * DBL_EPSILON * fabs(t);
  }
  return tout;
}


// The step budget (max_steps between two reports), judged before group g steps from t_before:
// CVODE's own limit counts steps within one call, and every call here is one step. A budget
// spent fails here, before the step that would exceed it: a step past it that reached the
// report was lost with that report (the checkpoint past the last row). An advance without
// reports (cs_integratorAdvance) has a budget per interval of the report grid all the same, as a
// run over the same time would: a step that starts at or past the grid time begins a new one.
static int budgetSpent(Group* g, double t_before, csError* err) {
  Sim* sim = g->sim;
  if (sim->budget_grid && t_before >= g->budget_end) {
    g->steps_since_report = 0;
    g->budget_end = nextGridTime(t_before, sim->opt.report_interval);
  }
  // the last tenth of the budget's steps (at least its last 100, or all of a smaller one)
  long window = sim->opt.max_steps / 10 > 100 ? sim->opt.max_steps / 10 : 100;
  window = window < sim->opt.max_steps ? window : sim->opt.max_steps;
  if (g->steps_since_report == sim->opt.max_steps - window) {
    g->budget_tw = t_before;
  }
  if (g->steps_since_report++ < sim->opt.max_steps) {
    return CS_OK;
  }
  double hlast = lastStep(g);
  int blended = blendedAnchorsFailed(g);
  // steps so short that a report interval would take a hundred times the budget: raising it
  // carries the run a little further at great cost (a transition velocity of 1e-11 m/s: steps
  // of 7e-11 s, 26 s of CPU for 0.8 ms of the run at max_steps 1e7). Judged by the mean step
  // of the budget's last window, not by the last step, which an impact can cut short, nor over
  // the whole budget, whose first steps can be long ones; and only where the steps have stopped
  // growing: a small budget spent on an integrator's first steps, each longer than the one
  // before, says nothing of the steps the run will take (exp_spring_incline at max_steps 5:
  // CVODE's first steps read as 3,200 a report interval; it takes 8)
  double hmean = ((double)g->t - g->budget_tw) / (double)window;
  double need = sim->opt.report_interval / hmean;
  int steady = window >= 2 && hlast <= 1.5 * hmean;
  char shortSteps[320] = "";
  if (hmean > 0 && need > 100.0 * (double)sim->opt.max_steps && steady) {
    snprintf(shortSteps, sizeof(shortSteps),
             "; at steps this short a report interval takes about %.2g steps, so raising "
             "max_steps will not carry the run far: what makes them short (a very stiff force, "
             "such as a tiny transition velocity) is what to change", need);
  }
  char since[96];
  if (sim->budget_grid) {
    snprintf(since, sizeof(since), "in one report interval (%.9g s)", sim->opt.report_interval);
  } else {
    snprintf(since, sizeof(since), "since the last report");
  }
  cs_setError(err, CS_ERR_SOLVER, "",
              "too much work: more than %ld steps %s, at t = %.9g s (last step %.3g s)%s%s",
              sim->opt.max_steps, since, (double)g->t, hlast,
              "; raise max_steps (simulation.max_steps in the scene, --max-steps on the "
              "command line) or loosen the tolerances", shortSteps);
  err->time = g->t;
  // steps that collapsed say so instead; not steps still growing from the start (at max_steps
  // 1, an integrator's first step of 6e-12 s on exponential springs), whose budget is the cause
  if (steady) {
    collapseError(g, err, 0, "more than %ld steps %s", sim->opt.max_steps, since);
  }
  // (and where the steps may have collapsed on blended anchors, what runs such scenes: a
  // small max_steps may be the cause all the same, so both are said)
  if (blended) {
    blendedAnchorHint(err);
  }
  return CS_ERR_SOLVER;
}


// whether an evaluation of group g's step being taken found one of its contacts or stops acting
static int anyTouchFelt(const Group* g) {
  const csData* d = g->sim->d;
  for (int i = 0; i < g->nonset; i++) {
    if (d->felt_step[g->onset[i]] == g->stepno) {
      return 1;
    }
  }
  return 0;
}


// advance the active group g one step toward tout, never past tstop; returns CS_OK or fills err
// (stepGroup then sets the state back to the last accepted one)
static int tryStep(Group* g, double tout, double tstop, csError* err) {
  Sim* sim = g->sim;
  sim->cvmsg[0] = 0;  // a message from an earlier, recovered condition is not this step's
  // the stop time keeps CVODE from stepping past the group's next change (where its right-hand side
  // jumps) or past the end
  int flag = 0;
  const double t_before = g->t;
  const int first = g->fresh;  // the first step from a start or a change's restart
  if (budgetSpent(g, t_before, err) != CS_OK) {
    return CS_ERR_SOLVER;
  }
  if (sim->rk) {
    if (isnan(g->rk->tonset)) {
      // not known since the start, a restart or a change: from the step's start
      loadState(g, g->t, N_VGetArrayPointer(g->y));
      g->rk->tonset = nextOnset(g);
    }
    g->rk->hslip = timeSlip(sim);
    csRkStatus status = cs_rkStep(g->rk, tstop);
    g->t = g->rk->t;
    if (status == CS_RK_OK && g->rk->grazed && !anyTouchFelt(g)) {
      // (a corner passing a plane at 1e-12 cost ten steps a pass without this)
      cs_rkGrazeNotFelt(g->rk);
    }
    if (status != CS_RK_OK && stopRequested(sim)) {
      return stoppedInStep(g, err);
    }
    if (status == CS_RK_STEP_TOO_SMALL &&
        lostInRounding(sim, t_before, g->rk->h, tstop - t_before)) {
      return roundingError(g->rk->h, t_before, (double)g->t - t_before,
                           g->rk->h >= 0.5 * (tstop - t_before), err);
    }
    if (status != CS_RK_OK) {
      cs_setError(err, CS_ERR_SOLVER, "", "the rk step failed with %s at t = %.9g s",
                  rkStatusName(status), (double)g->t);
      err->time = g->t;
      collapseError(g, err, 1, "the rk step failed with %s", rkStatusName(status));
      return CS_ERR_SOLVER;
    }
  } else {
    if (check(CVodeSetStopTime(g->mem, tstop), "CVodeSetStopTime", sim, g->t, err)) {
      return CS_ERR_SOLVER;
    }
    int fresh = g->fresh;
    // tout only scales CVODE's first step, whose estimate multiplies distances to tout: beyond
    // about 1e154 s away (a report interval of 1e200 s) the product overflows and the first
    // trial state is NaN. A scale of 1e100 s is as good a hint and stays finite.
    tout = fmin(tout, (double)g->t + 1e100);
    // the state before the step, should the time not follow its length (below)
    N_VScale(1.0, g->y, g->ytmp);
    if (fresh && tstop > g->t && tooCloseToStart((double)g->t, tstop) &&
        tstop - g->t <= timeSlip(sim)) {
      // an advance within a few roundings of t, before CVODE's first step, which it refuses
      // (CV_TOO_CLOSE): reached, as CVODE takes a stop that near once it has started and rk
      // steps there exactly (cs_rkTry); the state moves by less than the rounding of the time
      // times its rates (far from 0, where that is more than the time may slip, it fails as
      // any step there does)
      g->t = tstop;
      return check(CVodeReInit(g->mem, tstop, g->y), "CVodeReInit", sim, tstop, err)
                 ? CS_ERR_SOLVER
                 : CS_OK;
    }
    flag = CVode(g->mem, fresh ? startHint(g, tout) : tout, g->y, &g->t, CV_ONE_STEP);
    // A step whose error test (or Newton iteration) fails over and over after a long history:
    // CVODE extrapolates from a history that no longer fits (a block at rest for minutes,
    // stepping 138 s at a time, failed down to 1 ms when the next step needed short ones). It
    // is restarted once, at order 1 from the last accepted state (where CVODE leaves y and t on
    // failing), before the failure counts. A failure within RETRY_MIN_STEPS of a (re)start, or
    // within a report interval of the last restart, is the failure, with CVODE's message: the
    // motion itself cannot be followed there.
    long nst = 0;
    if ((flag == CV_ERR_FAILURE || flag == CV_CONV_FAILURE) && !fresh && !stopRequested(sim) &&
        g->t >= g->t_retried + sim->opt.report_interval &&
        CVodeGetNumSteps(g->mem, &nst) == CV_SUCCESS && nst >= RETRY_MIN_STEPS) {
      g->t_retried = g->t;
      addCounters(g, &g->banked);
      // from the state before the step (CVODE's output on failing need not hold it)
      N_VScale(1.0, g->ytmp, g->y);
      if (check(CVodeReInit(g->mem, g->t, g->y), "CVodeReInit", sim, g->t, err)) {
        return CS_ERR_SOLVER;
      }
      sim->nrestart++;
      flag = CVode(g->mem, startHint(g, tout), g->y, &g->t, CV_ONE_STEP);
    }
  }
  g->fresh = 0;
  if (flag < 0 && stopRequested(sim)) {
    return stoppedInStep(g, err);
  }
  if (flag < 0) {
    // whether the failed try's state was finite, which tells the blended anchors' collapse from
    // forces that stop being finite (below); then the group stands at the state before the
    // failed step, which CVODE's output need not hold (a first step of 5.7e32 s, failing, left
    // it zero, and the run's final state and energies read as zero)
    int blended = flag == CV_ERR_FAILURE && blendedAnchorsFailed(g);
    if ((double)g->t == t_before) {
      N_VScale(1.0, g->ytmp, g->y);
    }
    check(flag, "CVode", sim, g->t, err);
    // a step cut down to the rounding of t by error tests or Newton failures (at 1e14 s CVODE
    // starts at 2.2 s and warns that t + h = t on the way down), or an advance within it
    // (CVODE's first step aims at the nearer of tout and the stop time: CV_TOO_CLOSE)
    double h =
        flag == CV_TOO_CLOSE ? fmin(startHint(g, tout), tstop) - t_before : fabs(currentStep(g));
    if (!(h > 0)) {
      h = fabs(lastStep(g));
    }
    if ((flag == CV_ERR_FAILURE || flag == CV_CONV_FAILURE || flag == CV_TOO_CLOSE) &&
        lostInRounding(sim, t_before, h, tstop - t_before)) {
      return roundingError(h, t_before, (double)g->t - t_before, h >= 0.5 * (tstop - t_before),
                           err);
    }
    if (flag == CV_TOO_MUCH_ACC) {
      // tolerances near the spacing of doubles: no step can meet them, whatever the forces
      cs_setError(err, CS_ERR_SOLVER, "",
                  "rtol %g and atol %g ask for more accuracy than doubles carry at t = %.9g s "
                  "(CVode failed with CV_TOO_MUCH_ACC): loosen them (rtol 1e-14 or more)",
                  sim->opt.rtol, sim->opt.atol, (double)g->t);
      err->time = g->t;
      return CS_ERR_SOLVER;
    }
    // the first step from a start or a change's restart, failed with nothing accepted and not
    // shrunk below the time scale: either the forces there, or a first step too long for the
    // motion (estimated from the distance to the next report: a report interval of 1e299 s made
    // it 5.7e32 s, which was called a collapse). A step that shrank further collapsed (below).
    // (repeated failures of the projection or of the forces end a first step too)
    long accepted = 0;
    if (first &&
        (flag == CV_ERR_FAILURE || flag == CV_CONV_FAILURE || flag == CV_REPTD_PROJFUNC_ERR ||
         flag == CV_REPTD_RHSFUNC_ERR) &&
        sim->d->stat.warnings_cvode == 0 && !collapsedStep(sim, fabs(currentStep(g))) &&
        CVodeGetNumSteps(g->mem, &accepted) == CV_SUCCESS && accepted == 0) {
      firstStepFailed(g, flag, err);
      return CS_ERR_SOLVER;
    }
    collapseError(g, err, 1, "CVode failed with %s", flagName(flag));
    if (blended) {
      blendedAnchorHint(err);
    }
    return CS_ERR_SOLVER;
  }
  // A step whose length the time does not follow: one that moved the state but not the time
  // (t + h = t: the step is below the spacing of doubles at t, as at t = 1e12 s) would go on
  // with the time standing still, and CVODE counts a stop time as reached within 100 rounding
  // units of t (2.2 s at t = 1e14 s: one step of 5e-5 s "reached" t + 1 s). Either is a
  // failure: the time is too far from 0 for the steps the motion needs, or, for a step below
  // 1e-9 of the report interval, the step size collapsed. (Near 0 that rounding is picoseconds,
  // far below the slip allowed, whatever the step.)
  // (rk refuses a step below 16 roundings of t itself: cs_rkTry)
  if (!sim->rk) {
    double hu = lastStep(g);
    double moved = (double)g->t - t_before;
    double slip = timeSlip(sim);
    int none = !(hu > 0) && !(moved > 0);
    int lost = !(moved > 0) || (moved > 2 * hu && moved - hu > slip);
    if (none || lost) {
      // the step is not taken: the group stands where it stood before it, at its own time (a
      // step of 5e-6 s that CVODE counted as reaching a stop 1 s on would otherwise leave its
      // state labelled with that stop's time)
      N_VScale(1.0, g->ytmp, g->y);
      g->t = t_before;
    }
    if (none) {
      // no step at all (CVODE's first step estimated as 0 under forces near the largest double)
      cs_setError(err, CS_ERR_SOLVER, "",
                  "the step size collapsed to h = 0 s at t = %.9g s: the forces are too large "
                  "to take a step from (accelerations near the largest double)", t_before);
      err->time = t_before;
      return CS_ERR_SOLVER;
    }
    if (lost && !lostInRounding(sim, t_before, hu, tstop - t_before) &&
        hu < 1e-9 * sim->opt.report_interval) {
      // a step below 1e-9 of the report interval: the collapse, wherever the time stands
      collapseError(g, err, 0, "CVODE's last step moved the time by %.3g s", moved);
      if (blendedAnchorsFailed(g)) {
        blendedAnchorHint(err);
      }
      return CS_ERR_SOLVER;
    }
    if (lost) {
      return roundingError(hu, t_before, moved, hu >= 0.5 * (tstop - t_before), err);
    }
  }
  return CS_OK;
}


// The state after a failed step of group g. The data then holds the solver's last try (its
// last force evaluation), which was never accepted; it goes back to the last accepted state,
// which the summary of a run, its checkpoint and the API's readers then all describe. With one
// group that is its last step's end: CVODE leaves the accepted solution in y and its time in t
// when a step fails, rk and ark change them only when a step succeeds, and that step's
// auto-updates are committed (a step budget spent fails before a step is tried). With
// several groups, which stepped on to different times since they last stood together, it is
// that last time (the state the last gather left, with the discrete and auto-update variables
// and the changes applied as they were then). The solvers stay where they are: what follows a
// failure starts again from the data (cs_integratorRestart, or a new integrator).
static void backToAccepted(Group* g) {
  Sim* sim = g->sim;
  csData* d = sim->d;
  if (sim->together) {
    cs_copyState(sim->m, d, sim->together);
    sim->nchange_done = sim->together_nchange;
  } else {
    loadState(g, g->t, N_VGetArrayPointer(g->y));
  }
  sim->tcur = d->t;
}


// one step of the active group g toward tout, never past tstop; on a failure the data holds the
// last accepted state (backToAccepted)
static int stepGroup(Group* g, double tout, double tstop, csError* err) {
  int status = tryStep(g, tout, tstop, err);
  if (status == CS_ERR_SOLVER) {
    backToAccepted(g);
  }
  return status;
}


// with several groups, the gathered state at the time they stand together, for backToAccepted
static void keepTogether(Sim* sim) {
  if (sim->together) {
    cs_copyState(sim->m, sim->together, sim->d);
    sim->together_nchange = sim->nchange_done;
  }
}


// the state of every group at time t, into the data; everything active, realized to dynamics
static int gatherAt(Sim* sim, double t, csError* err) {
  for (int gi = 0; gi < sim->ngroup; gi++) {
    Group* g = &sim->group[gi];
    // a group whose step ended exactly at t is read directly; the others are interpolated with
    // the polynomial CVODE keeps of its last step (CVodeGetDky), to the step's own accuracy
    // (rk's from its stages: Shampine's interpolant of order 4, no evaluation)
    if (t == g->t) {
      loadState(g, t, N_VGetArrayPointer(g->y));
    } else if (sim->rk) {
      cs_rkInterpolate(g->rk, t, N_VGetArrayPointer(g->ytmp));
      loadState(g, t, N_VGetArrayPointer(g->ytmp));
    } else if (check(CVodeGetDky(g->mem, t, 0, g->ytmp), "CVodeGetDky", sim, t, err)) {
      return CS_ERR_SOLVER;
    } else {
      loadState(g, t, N_VGetArrayPointer(g->ytmp));
    }
  }
  cs_activateAll(sim->m, sim->d);
  sim->d->t = t;
  keepTogether(sim);
  return CS_OK;
}


// one report at the gathered state; its CPU time is kept out of the integration time, and a
// reporter that fails (a write error) stops the run
static int report(Sim* sim, csError* err) {
  csData* d = sim->d;
  double c0 = cpuSeconds();
  cs_realizeDynamics(sim->m, d);
  passedOver(sim);
  int stop = sim->rep && sim->rep->report ? sim->rep->report(sim->rep->ctx, sim->m, d) : 0;
  sim->cpu_reporting += cpuSeconds() - c0 + sim->clock_cost;
  d->stat.nreport++;
  if (stop) {
    cs_setError(err, CS_ERR_IO, "", "the report could not be written at t = %.9g s", d->t);
    return CS_ERR_IO;
  }
  return CS_OK;
}


// Changes closer to t than this count as due at t: CVODE refuses a stop time a few rounding
// steps away from where it stands (CV_TOO_CLOSE), and times built as k * dt land there.
static double dueSlack(double t) {
  return 64 * DBL_EPSILON * fmax(1.0, fabs(t));
}


// the time group gi must stop at: its next scheduled change (or one that touches every group),
// else the end
static double nextStop(const Sim* sim, int gi, int from, double tend) {
  const csModel* m = sim->m;
  for (int c = from; c < m->nchange && m->change[c].time < tend - dueSlack(tend); c++) {
    int g = sim->force_group[m->change[c].force];
    if (g < 0 || g == gi) {
      return m->change[c].time;
    }
  }
  return tend;
}


// ---------------------------------------------------------------------------------------------
// the integrator object: created once, advanced repeatedly
//
// cs_simulate used to hold the CVODE instances on its stack for one run. A simulation that is
// advanced step by step, read, changed and advanced again needs them to outlive each call, so
// they live in a csIntegrator; cs_simulate creates one, runs it over its reports and frees it,
// making exactly the CVODE calls the single loop made.

// the CPU time of the call that started at cpu0, less what its reports and step hooks took, is
// integration
static void addIntegrationTime(Sim* sim, double cpu0, double reporting0) {
  double spent = cpuSeconds() - cpu0 - (sim->cpu_reporting - reporting0);
  sim->cpu_integration += fmax(0.0, spent);
}


// scheduled changes earlier than t are history: count them. One within rounding of t (dueSlack)
// is due at t, not history: a run that ends at t leaves it unapplied (nextStop), so that the run
// continued from there applies it (a change at 0.49999999999999994 was lost from a run ended
// at 0.5 and continued from its checkpoint); where a run had applied it already, it sets the same
// values again (unless something else wrote the variable in between, at that very time: an
// edit made at a report a rounding step after a change is then undone by the checkpoint's load)
static int changesBefore(const csModel* m, double t) {
  int n = 0;
  while (n < m->nchange && m->change[n].time < t - dueSlack(t)) {
    n++;
  }
  return n;
}


// the changes due at the integrator's time: in the groups they touch (which all stopped exactly
// here), finish the pending step, apply the changes and re-initialise; other groups carry on
// undisturbed
static int applyDueChanges(Sim* sim, double horizon, csError* err) {
  const csModel* m = sim->m;
  csData* d = sim->d;
  double due = sim->tcur + dueSlack(sim->tcur);
  (void)horizon;
  if (!(sim->nchange_done < m->nchange && m->change[sim->nchange_done].time <= due)) {
    return CS_OK;
  }
  int all = 0;
  for (int c = sim->nchange_done; c < m->nchange && m->change[c].time <= due; c++) {
    int gi = sim->force_group[m->change[c].force];
    if (gi < 0) {
      all = 1;
    } else {
      sim->group[gi].changed = 1;
    }
  }
  // touched groups finish the step that ended here, so that its auto-updates commit with the
  // values that step used, before the changes take effect
  for (int gi = 0; gi < sim->ngroup; gi++) {
    Group* g = &sim->group[gi];
    g->changed |= all;
    if (g->changed && g->pending) {
      activate(g);
      finishStep(g);
    }
  }
  cs_activateAll(m, d);
  // the changes themselves, in time order, with everything active
  while (sim->nchange_done < m->nchange && m->change[sim->nchange_done].time <= due) {
    const csChange* c = &m->change[sim->nchange_done++];
    cs_setDiscrete(m, d, c->force, c->index, c->value);
  }
  // only the touched groups restart: CVodeReInit drops the order and step-size history, so
  // restarting the others would cost them steps and change their trajectories for nothing
  for (int gi = 0; gi < sim->ngroup; gi++) {
    Group* g = &sim->group[gi];
    if (!g->changed) {
      continue;
    }
    g->changed = 0;
    if (g->fresh) {
      continue;  // nothing integrated since the last (re)start: nothing to restart
    }
    // the right-hand side jumped: restart; CVodeReInit zeroes CVODE's counters, so bank them.
    // The one-step integrators restart too, their first step chosen afresh as after a
    // checkpoint (the counters are kept): keeping the step of the motion before the change
    // (a block held at rest, in long steps) took that step into the motion after it, and on
    // exponential springs, whose blended anchor rule depends on the step lengths, the whole run
    // then ended 5e-4 m from one continued from a checkpoint at the change, at any tolerance
    if (sim->rk) {
      restartRk(g, g->t);
    } else {
      addCounters(g, &g->banked);
      if (check(CVodeReInit(g->mem, g->t, g->y), "CVodeReInit", sim, g->t, err)) {
        return CS_ERR_SOLVER;
      }
    }
    g->fresh = 1;
    g->felt_from = g->stepno;
    sim->nrestart++;
  }
  return CS_OK;
}


// every group to tgoal, through the changes on the way; no group steps past horizon (nor past
// its own next change). Leaves the data gathered at tgoal.
static int advanceTo(Sim* sim, double tgoal_final, double horizon, csError* err) {
  const csModel* m = sim->m;
  while (sim->tcur < tgoal_final) {
    int status = applyDueChanges(sim, horizon, err);
    if (status != CS_OK) {
      return status;
    }
    // the next change of any group is a goal; each group stops exactly at its own next change
    double tstop = horizon;
    if (sim->nchange_done < m->nchange &&
        m->change[sim->nchange_done].time < horizon - dueSlack(horizon)) {
      tstop = m->change[sim->nchange_done].time;
    }
    double tgoal = tgoal_final < tstop ? tgoal_final : tstop;
    // each group steps until it reaches the goal; the step that reaches it is finished
    // (auto-updates committed) after the goal's report, so that reports see the values it used
    for (int gi = 0; gi < sim->ngroup; gi++) {
      Group* g = &sim->group[gi];
      if (g->t >= tgoal) {
        continue;  // one earlier step already covers the goal
      }
      activate(g);
      // the step that reached the previous goal is finished now, after that goal's report
      if (g->pending) {
        finishStep(g);
      }
      // the group may step past the goal (the report interpolates back) but never past its
      // own next change; other groups' changes do not cut its steps
      double gstop = nextStop(sim, gi, sim->nchange_done, horizon);
      while (g->t < tgoal) {
        // a stop request ends the run before the next step, after every report due so far
        if (sim->rep && sim->rep->stop && *sim->rep->stop) {
          cs_setError(err, CS_STOPPED, "", "stopped on request at t = %.9g s", g->t);
          err->time = g->t;
          return CS_STOPPED;
        }
        status = stepGroup(g, gstop, gstop, err);
        if (status != CS_OK) {
          return status;
        }
        // the step that reaches the goal stays pending until after the report
        if (g->t >= tgoal) {
          holdStep(g);
        } else {
          finishStep(g);
        }
      }
    }
    sim->tcur = tgoal;
    if (sim->rep && sim->rep->progress) {
      sim->rep->progress(sim->rep->ctx, sim->tcur, horizon);
    }
  }
  return gatherAt(sim, tgoal_final, err);
}


csIntegrator* cs_integratorNew(const csModel* m, csData* d, const csSimOptions* opt,
                               int nchange_done, csError* err) {
  if (cs_validateSimOptions(opt, err)) {
    return NULL;
  }
  double cpu0 = cpuSeconds();
  Sim* sim = csu_malloc(sizeof(Sim));
  if (!sim) {
    cs_setError(err, CS_ERR_MEMORY, "", "out of memory creating the integrator");
    return NULL;
  }
  memset(sim, 0, sizeof(*sim));
  sim->m = m;
  sim->d = d;
  sim->opt = *opt;
  sim->tcur = d->t;
  sim->clock_cost = cpuClockCost();
  sim->rk = opt->integrator == CS_INTEGRATOR_RK || opt->integrator == CS_INTEGRATOR_RK23 ||
            opt->integrator == CS_INTEGRATOR_ARK;
  int status = CS_OK;
  if (sim->rk) {
    sim->auto_before = allocArray((size_t)m->nauto, sizeof(double));
    if (!sim->auto_before) {
      cs_setError(err, CS_ERR_MEMORY, "", "out of memory creating the integrator");
      status = CS_ERR_MEMORY;
    }
  }

  // 1. groups, context, one CVODE instance per group
  cs_activateAll(m, d);
  if (status == CS_OK && layoutGroups(sim, opt->linsol != CS_LINSOL_AUTO) != 0) {
    cs_setError(err, CS_ERR_MEMORY, "", "out of memory laying out the integrator's state");
    status = CS_ERR_MEMORY;
  }
  if (status == CS_OK && CS_SUN_CONTEXT_CREATE(&sim->ctx) != 0) {
    cs_setError(err, CS_ERR_MEMORY, "", "SUNContext_Create failed");
    status = CS_ERR_MEMORY;
  }
#if SUNDIALS_VERSION_MAJOR >= 7
  if (status == CS_OK) {
    SUNContext_ClearErrHandlers(sim->ctx);
    SUNContext_PushErrHandler(sim->ctx, errorHandler, sim);
  }
#endif
  for (int gi = 0; status == CS_OK && gi < sim->ngroup; gi++) {
    status = createSolver(&sim->group[gi], d->t, err);
  }
  if (status == CS_OK && sim->ngroup > 1 && !(sim->together = cs_makeData(m))) {
    cs_setError(err, CS_ERR_MEMORY, "", "out of memory creating the integrator");
    status = CS_ERR_MEMORY;
  }
  if (status != CS_OK) {
    cs_integratorFree(sim);
    return NULL;
  }

  // 2. scheduled changes: those before the start are not replayed (the state holds their
  // effect), and those due at the start hold from the first report on (nothing to restart yet)
  if (nchange_done < 0) {
    nchange_done = changesBefore(m, d->t);
    double due = d->t + dueSlack(d->t);
    while (nchange_done < m->nchange && m->change[nchange_done].time <= due) {
      const csChange* c = &m->change[nchange_done++];
      cs_setDiscrete(m, d, c->force, c->index, c->value);
    }
  }
  sim->nchange_done = nchange_done;
  keepTogether(sim);
  addIntegrationTime(sim, cpu0, 0);
  return sim;
}


// every one of the destroy functions accepts NULL, so a partly created integrator is freed too
void cs_integratorFree(csIntegrator* sim) {
  if (!sim) {
    return;
  }
  for (int gi = sim->group ? sim->ngroup - 1 : -1; gi >= 0; gi--) {
    destroySolver(&sim->group[gi]);
    freeGroupLayout(&sim->group[gi]);
  }
  csu_free(sim->group, 0);
  csu_free(sim->force_group, 0);
  csu_free(sim->auto_before, 0);
  csu_free(sim->dfdq, 0);
  csu_free(sim->dfdu, 0);
  cs_deleteData(sim->together);
  if (sim->ctx) {
    SUNContext_Free(&sim->ctx);
  }
  cs_activateAll(sim->m, sim->d);
  csu_free(sim, sizeof(*sim));
}


int cs_integratorAdvance(csIntegrator* sim, double t, double horizon, const csReporter* rep,
                         csError* err) {
  double cpu0 = cpuSeconds(), reporting0 = sim->cpu_reporting;
  sim->rep = rep;
  // a new step budget per call, and per interval of the report grid within it (tryStep)
  for (int gi = 0; gi < sim->ngroup; gi++) {
    sim->group[gi].steps_since_report = 0;
    sim->group[gi].budget_end = nextGridTime(sim->group[gi].t, sim->opt.report_interval);
  }
  sim->budget_grid = 1;
  int status = advanceTo(sim, t, horizon, err);
  sim->budget_grid = 0;
  // whatever the status, the stages work on the whole model again: a stop or a failure within
  // a group's step left them narrowed to that group, and a caller realizing the data then (the
  // state returned to a report, read or saved) would recompute that group's bodies only
  cs_activateAll(sim->m, sim->d);
  sim->rep = NULL;
  addIntegrationTime(sim, cpu0, reporting0);
  return status;
}


int cs_integratorStep(csIntegrator* sim, double horizon, const csReporter* rep, csError* err) {
  double cpu0 = cpuSeconds(), reporting0 = sim->cpu_reporting;
  sim->rep = rep;
  int status = applyDueChanges(sim, horizon, err);
  // every group standing at the current time takes one step; the others are ahead already
  for (int gi = 0; status == CS_OK && gi < sim->ngroup; gi++) {
    Group* g = &sim->group[gi];
    if (g->t > sim->tcur) {
      continue;
    }
    g->steps_since_report = 0;
    activate(g);
    if (g->pending) {
      finishStep(g);
    }
    double gstop = nextStop(sim, gi, sim->nchange_done, horizon);
    if (!(gstop > g->t)) {
      continue;  // at the horizon: nothing left to do
    }
    // a stop request is honoured before the step, as in a run
    if (sim->rep && sim->rep->stop && *sim->rep->stop) {
      cs_setError(err, CS_STOPPED, "", "stopped on request at t = %.9g s", g->t);
      err->time = g->t;
      status = CS_STOPPED;
      break;
    }
    // tout only scales CVODE's first step; one report interval is the scale the user gave
    double tout = fmin(gstop, g->t + sim->opt.report_interval);
    status = stepGroup(g, tout, gstop, err);
    if (status == CS_OK) {
      holdStep(g);  // (a failed step is no step: the group stands at its last one, finished)
    }
  }
  if (status == CS_OK) {
    // the earliest step end is the new time; the groups ahead of it are interpolated there
    double tnew = INFINITY;
    for (int gi = 0; gi < sim->ngroup; gi++) {
      tnew = fmin(tnew, sim->group[gi].t);
    }
    if (tnew > sim->tcur) {
      sim->tcur = tnew;
    }
    status = gatherAt(sim, sim->tcur, err);
  }
  // as after cs_integratorAdvance: the whole model active, whatever the status
  cs_activateAll(sim->m, sim->d);
  sim->rep = NULL;
  addIntegrationTime(sim, cpu0, reporting0);
  return status;
}


// A report time this close to an end of the run (t0 or t_end) is that end itself: the last
// report is made at t_end exactly, not a rounding step before it. 1e-12 of 1 + |t|, which
// covers the rounding of sums such as t0 + duration, but never more than a quarter of the
// interval: far from t = 0 (1e9 s, where 1e-12 is a millisecond) the grid points near the ends
// are reports of their own, not rounding (a run of 100 reports of 1 us made 2).
static double reportSlack(double t, double interval) {
  return fmin(1e-12 * (1 + fabs(t)), 0.25 * interval);
}

// The index k of the first report time k * interval after t0 (a multiple within rounding of t0
// is t0 itself): the smallest k whose product k * interval, as the run computes it, passes t0
// and its slack. From the quotient, corrected for its rounding by a grid point or two; the
// corrections are counted, so that this ends whatever the arguments (k is exact, and the
// answer right, while |t0| / interval is below 2^52).
static double firstReportIndex(double t0, double interval) {
  double lim = t0 + reportSlack(t0, interval);
  double k = floor(lim / interval) + 1;
  for (int i = 0; i < 4 && (k - 1) * interval > lim; i++) {
    k--;
  }
  for (int i = 0; i < 4 && k * interval <= lim; i++) {
    k++;
  }
  return k;
}


int cs_reportTimesProblem(double t0, double t_end, double interval, char* why, size_t size) {
  double far = fmax(fabs(t0), fabs(t_end));
  if (far / interval < 0x1p52) {
    return 0;
  }
  if (why && size > 0) {
    char count[32];
    double k = far / interval;
    snprintf(count, sizeof(count), isfinite(k) ? "%.3g" : "more than 1e308", k);
    snprintf(why, size, "the time %.17g s is %s report intervals of %g s from 0, beyond the 2^52 "
             "that doubles count exactly: report times cannot be told apart; count the time from "
             "nearer 0, run for less time or report less often", far, count, interval);
  }
  return 1;
}


double cs_reportCount(double t0, double t_end, double interval) {
  if (!(t_end > t0)) {
    return 1;
  }
  if (!(interval > 0) || !isfinite(t_end - t0)) {
    return INFINITY;
  }
  // as cs_integratorRun walks them: the start, the grid points strictly inside, the end
  double first = firstReportIndex(t0, interval);
  // the last grid point short of the end, with the loop's own products k * interval (while
  // doubles count every integer; beyond 2^53 reports the count is as near as they allow)
  double x = t_end - reportSlack(t_end, interval);
  double last = floor(x / interval);
  if (fabs(last) < 0x1p53 && fabs(first) < 0x1p53) {
    for (int i = 0; i < 4 && (last + 1) * interval <= x; i++) {
      last++;
    }
    for (int i = 0; i < 4 && last >= first && last * interval > x; i++) {
      last--;
    }
  }
  return 2 + fmax(last - first + 1, 0);
}


// Report times on the absolute grid k * report_interval, so that a run continued from a
// checkpoint reports where the run that saved it did; computed by index rather than by
// accumulation, so that rounding never drifts. From t0 = 0 this is t0 + k * interval exactly.
int cs_integratorRun(csIntegrator* sim, double t_end, const csReporter* rep, csError* err) {
  double cpu0 = cpuSeconds(), reporting0 = sim->cpu_reporting;
  const double t0 = sim->tcur;
  const double dt = sim->opt.report_interval;
  sim->rep = rep;
  int status = CS_OK;
  // the first report, at the start
  for (int gi = 0; gi < sim->ngroup; gi++) {
    sim->group[gi].steps_since_report = 0;
  }
  status = gatherAt(sim, t0, err);
  if (status == CS_OK) {
    status = report(sim, err);
  }
  // A run over no time is that one report, with no grid to walk (from 1e14 s, 1e16 report
  // intervals of 0.01 s, the search for the grid's first point after the start never ended).
  // Report times k dt that doubles cannot tell apart (k beyond 2^52, where k + 1 may equal k,
  // and the loop below would never end) are refused; below that every k is exact, every turn
  // of the loop takes the next one, and a turn that reaches t_end (tr = t_end) is the last.
  char why[CS_MAX_ERROR];
  if (status == CS_OK && sim->tcur < t_end && cs_reportTimesProblem(t0, t_end, dt, why,
                                                                     sizeof(why))) {
    cs_setError(err, CS_ERR_INPUT, "", "%s", why);
    status = CS_ERR_INPUT;
  }
  // the first grid point after the start (one within rounding of it is the start itself)
  double k = status == CS_OK && sim->tcur < t_end ? firstReportIndex(t0, dt) : 0;
  while (status == CS_OK && sim->tcur < t_end) {
    double tr = k * dt;
    if (tr > t_end - reportSlack(t_end, dt)) {
      tr = t_end;  // the last report is at the end exactly
    }
    status = advanceTo(sim, tr, t_end, err);
    if (status == CS_OK) {
      status = report(sim, err);
    }
    k++;
    // a new step budget after every report
    for (int gi = 0; gi < sim->ngroup; gi++) {
      sim->group[gi].steps_since_report = 0;
    }
  }
  // as after cs_integratorAdvance: the whole model active, whatever the status
  cs_activateAll(sim->m, sim->d);
  sim->rep = NULL;
  addIntegrationTime(sim, cpu0, reporting0);
  return status;
}


// finish the steps that ended exactly at the current time (commit their auto-updates), so that
// the data holds the state the next step will start from
void cs_integratorSettle(csIntegrator* sim, const csReporter* rep) {
  sim->rep = rep;
  for (int gi = 0; gi < sim->ngroup; gi++) {
    Group* g = &sim->group[gi];
    if (g->pending && g->t == sim->tcur) {
      activate(g);
      finishStep(g);
    }
  }
  cs_activateAll(sim->m, sim->d);
  sim->d->t = sim->tcur;
  sim->rep = NULL;
}


// the state in the data was edited at its time: every group starts again from it there (a
// group that had stepped past that time drops the step and its pending commit)
int cs_integratorRestart(csIntegrator* sim, int nchange_done, csError* err) {
  csData* d = sim->d;
  sim->tcur = d->t;
  for (int gi = 0; gi < sim->ngroup; gi++) {
    Group* g = &sim->group[gi];
    storeState(g, N_VGetArrayPointer(g->y));
    if (sim->rk) {
      // an edited state starts afresh, with the first step chosen as at creation
      restartRk(g, d->t);
    } else {
      addCounters(g, &g->banked);
      if (check(CVodeReInit(g->mem, d->t, g->y), "CVodeReInit", sim, d->t, err)) {
        return CS_ERR_SOLVER;
      }
    }
    g->t = d->t;
    commitsNotAfter(g, d->t);
    g->pending = 0;
    g->onset_seen = 0;
    g->changed = 0;
    g->fresh = 1;
    g->felt_from = g->stepno;
    g->steps_since_report = 0;
  }
  sim->nrestart++;
  if (nchange_done >= 0) {
    sim->nchange_done = nchange_done;
  }
  cs_activateAll(sim->m, d);
  keepTogether(sim);
  return CS_OK;
}


void cs_integratorStats(const csIntegrator* sim, csStats* st) {
  st->nsteps = st->nrhs = st->netf = st->nncf = st->njac = st->nrhs_jac = st->nstiff = 0;
  st->nsteps_group = 0;
  st->one_step = sim->rk;
  int largest = 0;
  st->last_step = 0;
  st->bandwidth = 0;
  for (int gi = 0; sim->group && gi < sim->ngroup; gi++) {
    const Group* g = &sim->group[gi];
    csStats sum = g->banked;
    if (g->mem || g->rk) {
      addCounters(g, &sum);
      // the smallest last step of any group: the one that limits the run
      double h = lastStep(g);
      if (h > 0 && (st->last_step == 0 || h < st->last_step)) {
        st->last_step = h;
      }
    }
    st->nsteps += sum.nsteps;
    st->nsteps_group = sum.nsteps > st->nsteps_group ? sum.nsteps : st->nsteps_group;
    st->nrhs += sum.nrhs;
    st->netf += sum.netf;
    st->nncf += sum.nncf;
    st->nstiff += sum.nstiff;
    st->njac += sum.njac;
    st->nrhs_jac += sum.nrhs_jac + g->schur_rhs + g->dense_rhs;
    int width = g->linsol == CS_LINSOL_BAND ? g->upper + g->lower + 1 : g->nstate;
    st->bandwidth = width > st->bandwidth ? width : st->bandwidth;
    // the solver of the largest group (groups of one run may differ: GMRES for a long chain,
    // dense for a box beside it), the first of equals
    if (gi == 0 || g->nstate > largest) {
      largest = g->nstate;
      st->linsol = g->linsol < 0 ? CS_LINSOL_AUTO : g->linsol;
    }
  }
  st->ngroup = sim->ngroup;
  // The step hooks' share of the integration time, estimated from the timed ones (a timed window
  // holds the hook and about one clock read). The hooks stay inside the integration time:
  // subtracting an estimate made it read 20-30% low under load (the estimate doubled when
  // another process shared the core), and only the process clock read at both ends of a call
  // is immune to preemption.
  st->cpu_step_hook = 0;
  if (sim->nhook_sampled > 0) {
    double each = fmax(0.0, sim->hook_sampled / (double)sim->nhook_sampled - sim->clock_cost);
    st->cpu_step_hook = each * (double)sim->nhook;
  }
}


double cs_integratorTime(const csIntegrator* sim) {
  return sim->tcur;
}


int cs_integratorGroups(const csIntegrator* sim) {
  return sim->ngroup;
}


int cs_integratorChangesDone(const csIntegrator* sim) {
  return sim->nchange_done;
}


int cs_integratorChangesBefore(const csModel* m, double t) {
  return changesBefore(m, t);
}


double cs_integratorCpu(const csIntegrator* sim) {
  return sim->cpu_integration;
}


long cs_integratorRestarts(const csIntegrator* sim) {
  return sim->nrestart;
}


// ---------------------------------------------------------------------------------------------
// one run, as the command line does it

int cs_simulate(const csModel* m, csData* d, const csSimOptions* opt, const csReporter* rep,
                csError* err) {
  cs_clearError(err);
  if (cs_validateSimOptions(opt, err)) {
    return CS_ERR_INPUT;
  }
  double cpu0 = cpuSeconds();
  memset(&d->stat, 0, sizeof(d->stat));  // the statistics describe this call alone
  // 1. groups and CVODE instances; scheduled changes due at the start applied
  csIntegrator* sim = cs_integratorNew(m, d, opt, -1, err);
  if (!sim) {
    cs_activateAll(m, d);
    return err ? err->code : CS_ERR_MEMORY;
  }
  // 2. the reports: at the start, every report interval, at the end
  int status = cs_integratorRun(sim, d->t + opt->duration, rep, err);
  // 3. the steps that ended the run: finish them, and leave the data at the end state
  if (status == CS_OK) {
    cs_integratorSettle(sim, rep);
  }
  // 4. statistics (summed over groups, with counters banked at re-initialisations), then free
  // everything in reverse order of creation
  cs_integratorStats(sim, &d->stat);
  double reporting = sim->cpu_reporting;
  cs_integratorFree(sim);
  // never negative, should a preempted hook window have been counted in full
  d->stat.cpu_seconds = fmax(0.0, cpuSeconds() - cpu0 - reporting);
  return status;
}
