// simulation.c: the simulation API through opaque handles (contactsim/simulation.h).
//
// A csSimulation is a model (borrowed, never written), its data (the state), an integrator
// object holding the CVODE instances across calls, and the run statistics of `contactsim run`
// (csMetrics) fed after every step and at every advance. Nothing here computes physics: every
// number comes from the engine stages, the metrics or the CSV writer, so that a program, the
// command line and the Python module read the same values under the same names.
//
// State edits (q, u, z, discrete variables, time, checkpoints) follow the rule the integrator
// uses for scheduled changes: the steps that ended at the current time are finished first (their
// auto-updates committed with the values they used), then the data is edited, and the groups
// restart from it at the next advance. Edits are therefore cheap to make several at once.
#include "engine/assert.h"
#include "engine/dynamics.h"
#include "engine/error.h"
#include "engine/forces.h"
#include "engine/integrator.h"
#include "engine/metrics.h"
#include "engine/model.h"

#include "contactsim/contactsim.h"

#include <errno.h>
#include <fcntl.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct csSimulation {
  const csModel* m;     // borrowed; outlives the simulation
  csData* d;            // owned: the state and everything realized from it
  csSimOptions opt;     // integrator options (duration unused)
  csIntegrator* it;     // owned; NULL only when its creation failed
  csMetrics metrics;    // contact statistics since t_start
  int nnotes_init;      // diagnostics found at the start (cs_metricsFinish adds the rest)
  int ndropped_init;    // and how many of them were left out
  csStats base;         // CVODE counters of integrators freed since t_start
  double cpu_base;      // their integration CPU time, s
  long restart_base;    // their restarts
  double t_start;       // s
  int dirty;            // the data was edited: the integrator restarts before advancing
  int nchange_restart;  // scheduled changes applied, for that restart (-1: keep the count)
  int failed;           // the integrator failed: only a reset or a new state continues
  double edit_energy;   // KE + PE + dissipated just before the edit in progress, J
  int edited_failure;   // edits made since a failure, before the next advance (endEdit)
  double fail_time;     // s
  csData* snap;         // owned: the state at the last consistent point (the start of the
                        // call in progress, or its last report), where a stopped call returns
  int snap_nchange;     // scheduled changes applied at that point
  // the statistics at that point, kept while a call can be stopped (stoppable), so that they
  // go back with the state: the counters then, the metrics then, and what was given back
  int stoppable;        // the call in progress polls a stop flag
  int snap_stats;       // snap_totals and snap_metrics hold the statistics at the snapshot
  int give_back;        // a failure took several groups back to the snapshot: the steps since
                        // are given back when the simulation goes on from there
  csStats snap_totals;  // step counters (banked and live) at the snapshot
  csMetricsSaved snap_metrics;
  csStats discard;      // step counters of the steps given back since t_start
  const volatile sig_atomic_t* stop;  // cs_simSetStop's flag (nullable)
  int running;          // an advance is in progress: its reporter's callbacks may read the
                        // simulation, not change it (the integrator they would free or
                        // restart is the one calling them)
  int settled;          // the statistics were settled and nothing has changed since (cleared
                        // by every advance, edit, reset and change of options)
};


// CS_ERR_INPUT when called from inside an advance (a reporter's callback), for the calls that
// would change what the advance is integrating
static int refuseWhileRunning(const csSimulation* s, const char* what, csError* err) {
  if (!s->running) {
    return CS_OK;
  }
  cs_setError(err, CS_ERR_INPUT, "",
              "cannot %s while the simulation is advancing (from a report or step callback); "
              "return from the callback first, or stop the run and do it then",
              what);
  return CS_ERR_INPUT;
}


// ---------------------------------------------------------------------------------------------
// version

const char* cs_versionString(void) { return CS_VERSION_STRING; }


int cs_version(void) { return CS_VERSION; }


// ---------------------------------------------------------------------------------------------
// the model

int cs_modelCount(const csModel* m, csCount what) {
  switch (what) {
    case CS_COUNT_BODY:
      return m->nbody;
    case CS_COUNT_Q:
      return m->nq;
    case CS_COUNT_U:
      return m->nu;
    case CS_COUNT_Z:
      return m->nz;
    case CS_COUNT_DISCRETE:
      return m->ndisc;
    case CS_COUNT_AUTO:
      return m->nauto;
    case CS_COUNT_FORCE:
      return m->nforce;
    case CS_COUNT_PLANE:
      return m->nplane;
    case CS_COUNT_CONTACT_SET:
      return m->ngroup;
    case CS_COUNT_CHANGE:
      return m->nchange;
  }
  return 0;
}


const char* cs_modelName(const csModel* m) { return m->name; }


const char* cs_modelFile(const csModel* m) { return m->file; }


csSimOptions cs_modelOptions(const csModel* m) { return m->opt; }


void cs_modelGravity(const csModel* m, double g[3]) {
  if (g) {
    csu_vec3ToArray(g, m->gravity);
  }
}


const char* cs_modelBodyName(const csModel* m, int body) {
  return body >= 0 && body < m->nbody ? m->body[body].name : NULL;
}


const char* cs_modelPlaneName(const csModel* m, int plane) {
  return plane >= 0 && plane < m->nplane ? m->plane[plane].name : NULL;
}


const char* cs_modelForceName(const csModel* m, int e) {
  return e >= 0 && e < m->nforce ? m->force[e].name : NULL;
}


const char* cs_modelContactSetName(const csModel* m, int set) {
  return set >= 0 && set < m->ngroup ? m->group_name[set] : NULL;
}


const char* cs_modelForceKind(const csModel* m, int e) {
  return e >= 0 && e < m->nforce ? cs_forceKind(m->force[e].kind)->name : NULL;
}


int cs_modelForceIsContact(const csModel* m, int e) {
  if (e < 0 || e >= m->nforce) {
    return -1;
  }
  return cs_forceKind(m->force[e].kind)->report != NULL;
}


int cs_modelForceContactSet(const csModel* m, int e) {
  return e >= 0 && e < m->nforce ? m->force[e].group : -1;
}


double cs_modelBodyMass(const csModel* m, int body) {
  return body >= 0 && body < m->nbody ? m->body[body].mass : NAN;
}


int cs_modelBodyState(const csModel* m, int body, int* qadr, int* qnum, int* uadr, int* unum) {
  if (body < 0 || body >= m->nbody) {
    return -1;
  }
  const csBody* b = &m->body[body];
  if (qadr) *qadr = b->qadr;
  if (qnum) *qnum = b->qnum;
  if (uadr) *uadr = b->uadr;
  if (unum) *unum = b->unum;
  return 0;
}


int cs_modelForceState(const csModel* m, int e, csStateKind kind, int* adr, int* num) {
  if (e < 0 || e >= m->nforce) {
    return -1;
  }
  const csForce* f = &m->force[e];
  int a, n;
  switch (kind) {
    case CS_STATE_Z:
      a = f->zadr;
      n = f->znum;
      break;
    case CS_STATE_DISCRETE:
      a = f->discadr;
      n = f->discnum;
      break;
    case CS_STATE_AUTO:
      a = f->autoadr;
      n = f->autonum;
      break;
    default:
      return -1;
  }
  if (adr) *adr = a;
  if (num) *num = n;
  return 0;
}


const char* cs_modelDiscreteName(const csModel* m, int e, int index) {
  if (e < 0 || e >= m->nforce || index < 0 || index >= m->force[e].discnum) {
    return NULL;
  }
  return cs_forceKind(m->force[e].kind)->discnames[index];
}


int cs_modelDiscreteIndex(const csModel* m, int e, const char* name) {
  for (int i = 0; name && e >= 0 && e < m->nforce && i < m->force[e].discnum; i++) {
    if (strcmp(cs_forceKind(m->force[e].kind)->discnames[i], name) == 0) {
      return i;
    }
  }
  return -1;
}


const char* cs_modelAutoName(const csModel* m, int e, int index) {
  static const char* const generic[] = {"auto0", "auto1", "auto2", "auto3",
                                        "auto4", "auto5", "auto6", "auto7"};
  if (e < 0 || e >= m->nforce || index < 0 || index >= m->force[e].autonum) {
    return NULL;
  }
  const csForceKind* k = cs_forceKind(m->force[e].kind);
  if (k->autonames) {
    return k->autonames[index];
  }
  return index < 8 ? generic[index] : "auto";
}


int cs_modelContactValueCount(const csModel* m, int e) {
  return e >= 0 && e < m->nforce ? cs_forceKind(m->force[e].kind)->nextra : 0;
}


const char* cs_modelContactValueName(const csModel* m, int e, int i) {
  if (i < 0 || i >= cs_modelContactValueCount(m, e)) {
    return NULL;
  }
  return cs_forceKind(m->force[e].kind)->extranames[i];
}


// the stored source is the scene text, the contact model and the overrides, each
// zero-terminated (cs_modelKeepSource)
csModel* cs_modelWithOverrides(const csModel* m, const csOverride* overrides, int noverrides,
                               csError* err) {
  cs_clearError(err);
  if (!m->source) {
    cs_setError(err, CS_ERR_INPUT, "",
                "the model was not loaded from a scene, so it cannot be loaded again with "
                "other parameters");
    return NULL;
  }
  if (noverrides < 0 || (noverrides > 0 && !overrides)) {
    cs_setError(err, CS_ERR_INPUT, "", "the overrides are missing");
    return NULL;
  }
  // the stored overrides first, then the new ones (later ones win)
  int n = m->source_noverride + noverrides;
  csOverride* all = csu_malloc(sizeof(csOverride) * (size_t)(n + 1));
  if (!all) {
    cs_setError(err, CS_ERR_MEMORY, "", "out of memory");
    return NULL;
  }
  const char* p = m->source + m->source_len + 1;
  const char* contact_model = p;
  p += strlen(p) + 1;
  for (int i = 0; i < m->source_noverride; i++) {
    all[i].key = p;
    p += strlen(p) + 1;
    all[i].value = p;
    p += strlen(p) + 1;
  }
  for (int i = 0; i < noverrides; i++) {
    all[m->source_noverride + i] = overrides[i];
  }
  csLoadOptions lo = {
      .contact_model = contact_model[0] ? contact_model : NULL, .overrides = all, .noverrides = n};
  csModel* out = cs_loadSceneString(m->source, m->file, &lo, err);
  csu_free(all, sizeof(csOverride) * (size_t)(n + 1));
  // the same scene file as m's, whatever the working directory is now
  if (out) {
    cs_modelCopySceneFile(out, m);
  }
  return out;
}


csModel* cs_modelWithParameter(const csModel* m, const char* key, const char* value, csError* err) {
  cs_clearError(err);
  if (!key || !value) {
    cs_setError(err, CS_ERR_INPUT, "", "the parameter's key path and value must both be given");
    return NULL;
  }
  csOverride o = {.key = key, .value = value};
  return cs_modelWithOverrides(m, &o, 1, err);
}


// ---------------------------------------------------------------------------------------------
// feeding the statistics

// the integrators' counters so far: those of the integrators freed since t_start and the live
// one's (which also gives the last step, the linear solver and the groups), and the commits
// The step counters of csStats, to += sign (a - b) (b NULL: zero): the one list of them that
// banking, the live sum and the steps given back all go through
static void addStepCounts(csStats* to, const csStats* a, const csStats* b, long sign) {
  static const csStats zero;
  if (!b) {
    b = &zero;
  }
  to->nsteps += sign * (a->nsteps - b->nsteps);
  to->nrhs += sign * (a->nrhs - b->nrhs);
  to->nrhs_jac += sign * (a->nrhs_jac - b->nrhs_jac);
  to->njac += sign * (a->njac - b->njac);
  to->netf += sign * (a->netf - b->netf);
  to->nncf += sign * (a->nncf - b->nncf);
  to->nstiff += sign * (a->nstiff - b->nstiff);
  // (summed over the integrators a simulation made, less the calls given back: an upper bound
  // of the busiest group's count, which the diagnostics compare with a threshold of 20000)
  to->nsteps_group += sign * (a->nsteps_group - b->nsteps_group);
}


static void counters(const csSimulation* s, csStats* out) {
  *out = s->base;
  out->ncommit = s->d->stat.ncommit;
  if (s->it) {
    csStats live;
    memset(&live, 0, sizeof(live));
    cs_integratorStats(s->it, &live);
    addStepCounts(out, &live, NULL, 1);
    out->cpu_step_hook += live.cpu_step_hook;
    out->last_step = live.last_step;
    out->linsol = live.linsol;
    out->bandwidth = live.bandwidth;
    out->ngroup = live.ngroup;
  }
}


// whether a failed step takes the groups back to the snapshot (several groups; the integrator,
// cs_integratorGroups)
static int goesBack(const csSimulation* s) {
  return s->it && cs_integratorGroups(s->it) > 1;
}


// the state at a consistent point (every group at the data's time), to return to when a call is
// stopped on request between two such points; a copy, allocating nothing once the statistics'
// copy exists (made by the first stoppable call's start, before anything integrates). The
// statistics are kept too where a call can be stopped, and where a failure goes back to that
// point (several groups)
static void snapshot(csSimulation* s) {
  cs_copyState(s->m, s->snap, s->d);
  s->snap_nchange = s->it ? cs_integratorChangesDone(s->it) : -1;
  s->snap_stats = 0;
  if ((s->stoppable || goesBack(s)) && cs_metricsSave(&s->snap_metrics, &s->metrics) == 0) {
    counters(s, &s->snap_totals);
    s->snap_stats = 1;
  }
}


// the simulation's own reporter: the per-step statistics, then the caller's hook (nullable)
typedef struct Hooks {
  csSimulation* s;
  const csReporter* user;
} Hooks;


static void hookStep(void* ctx, const csModel* m, csData* d) {
  Hooks* h = ctx;
  cs_metricsStep(&h->s->metrics, m, d);
  if (h->user && h->user->step) {
    h->user->step(h->user->ctx, m, d);
  }
}


static int hookReport(void* ctx, const csModel* m, csData* d) {
  Hooks* h = ctx;
  cs_metricsReport(&h->s->metrics, m, d);
  snapshot(h->s);
  return h->user && h->user->report ? h->user->report(h->user->ctx, m, d) : 0;
}


static void hookProgress(void* ctx, double t, double horizon) {
  Hooks* h = ctx;
  if (h->user && h->user->progress) {
    h->user->progress(h->user->ctx, t, horizon);
  }
}


static csReporter hooks(Hooks* h, csSimulation* s, const csReporter* user) {
  h->s = s;
  h->user = user;
  // without contacts to sample or a hook of the caller's there is nothing to do after a step,
  // and without a hook the integrator realizes nothing there only for it
  int stepHook = cs_metricsSamplesSteps(&s->metrics) || (user && user->step);
  csReporter r = {.report = hookReport,
                  .step = stepHook ? hookStep : NULL,
                  .progress = hookProgress,
                  .ctx = h,
                  .stop = user && user->stop ? user->stop : s->stop};
  return r;
}


// statistics start over from the data's state
static int startStatistics(csSimulation* s) {
  cs_metricsFree(&s->metrics);
  memset(&s->base, 0, sizeof(s->base));
  memset(&s->discard, 0, sizeof(s->discard));
  s->snap_stats = 0;
  s->give_back = 0;
  s->cpu_base = 0;
  s->restart_base = 0;
  s->t_start = s->d->t;
  memset(&s->d->stat, 0, sizeof(s->d->stat));
  if (cs_metricsInit(&s->metrics, s->m, s->d) != 0) {
    return -1;
  }
  s->nnotes_init = s->metrics.nnotes;
  s->ndropped_init = s->metrics.ndropped;
  return 0;
}


// a new integrator from the data's state, the old one's counters added to the bank
static int newIntegrator(csSimulation* s, int nchange_done, csError* err) {
  if (s->it) {
    csStats st;
    memset(&st, 0, sizeof(st));
    cs_integratorStats(s->it, &st);
    addStepCounts(&s->base, &st, NULL, 1);
    s->base.cpu_step_hook += st.cpu_step_hook;
    s->cpu_base += cs_integratorCpu(s->it);
    s->restart_base += cs_integratorRestarts(s->it);
    cs_integratorFree(s->it);
  }
  s->it = cs_integratorNew(s->m, s->d, &s->opt, nchange_done, err);
  if (s->it) {
    // the changes due at the start, just applied, are part of it
    cs_metricsStartAfterChanges(&s->metrics, s->m, s->d);
  }
  s->dirty = 0;
  return s->it ? CS_OK : (err && err->code != CS_OK ? err->code : CS_ERR_MEMORY);
}


// the steps taken since the snapshot are given back: they are no part of the trajectory the
// statistics describe (the CPU time they took stays counted: it was spent)
static void giveBackSteps(csSimulation* s) {
  if (s->snap_stats) {
    csStats now;
    counters(s, &now);
    addStepCounts(&s->discard, &now, &s->snap_totals, 1);
    s->discard.ncommit += now.ncommit - s->snap_totals.ncommit;
    cs_metricsRestore(&s->metrics, &s->snap_metrics);
  }
}


// CS_ERR_SOLVER after a failure, until the simulation is reset or given a new state or options
static int refuseFailed(const csSimulation* s, csError* err) {
  if (!s->failed) {
    return CS_OK;
  }
  cs_setError(err, CS_ERR_SOLVER, "",
              "the simulation failed at t = %.9g s; reset it, set its state or options, or "
              "load a checkpoint to go on",
              s->fail_time);
  if (err) {
    err->time = s->fail_time;
  }
  return CS_ERR_SOLVER;
}


// what every advance does first: refuse after a failure, restart after edits
static int prepare(csSimulation* s, csError* err) {
  s->settled = 0;
  if (refuseFailed(s, err) != CS_OK) {
    return CS_ERR_SOLVER;
  }
  s->edited_failure = 0;
  if (s->give_back) {
    giveBackSteps(s);
    s->give_back = 0;
  }
  if (!s->it) {
    int st = newIntegrator(s, s->nchange_restart, err);
    s->nchange_restart = -1;
    if (st != CS_OK) {
      return st;
    }
  }
  if (s->dirty) {
    s->dirty = 0;
    int st = cs_integratorRestart(s->it, s->nchange_restart, err);
    s->nchange_restart = -1;
    if (st != CS_OK) {
      return st;
    }
  }
  snapshot(s);
  return CS_OK;
}


// A call stopped on request (csReporter.stop) leaves the groups at different times, between
// steps; the simulation goes back to the last point where they were together (the start of the
// call or its last report) and restarts there, so that it can be read, saved and continued.
static void returnToSnapshot(csSimulation* s) {
  cs_copyState(s->m, s->d, s->snap);
  s->dirty = 1;
  s->nchange_restart = s->snap_nchange;
  giveBackSteps(s);
}


// a failed call: remembered. With several groups the integrator took the data back to the last
// time they stood together, the snapshot's. The statistics still cover the part that ran, as the
// command line's do; the steps since the snapshot are given back when the simulation goes on
// from there (prepare), which integrates that stretch again: it was counted twice.
static void failed(csSimulation* s) {
  s->failed = 1;
  s->fail_time = s->d->t;
  s->give_back = s->snap_stats && goesBack(s) && s->d->t == s->snap->t;
}


// A call stopped on request goes back to its snapshot, and its message says where the
// simulation stands (the integrator's named the time of the step it abandoned).
static void stopBack(csSimulation* s, const char* where, csError* err) {
  returnToSnapshot(s);
  cs_setError(err, CS_STOPPED, "", "stopped on request; the simulation is back at t = %.9g s, %s",
              s->d->t, where);
  if (err) {
    err->time = s->d->t;
  }
}


// after every advance: the energy balance at the new time, and a failure remembered
static int finish(csSimulation* s, int status, csError* err) {
  if (status == CS_STOPPED) {
    stopBack(s, "where the call started", err);
  }
  if (status == CS_OK) {
    cs_realizeDynamics(s->m, s->d);
    cs_metricsReport(&s->metrics, s->m, s->d);
  } else if (status == CS_ERR_SOLVER) {
    failed(s);
  }
  return status;
}


// before an edit of the state: the steps that ended now are finished with the old values (not
// when the data was edited already, or returned to a snapshot: it no longer holds the
// integrator's state, and the restart to come drops those steps)
// KE + PE + dissipated energy of the data as it stands
static double totalEnergy(csSimulation* s) {
  double ke, pe, w;
  cs_simEnergy(s, &ke, &pe, &w);
  return ke + pe + w;
}


static void beginEdit(csSimulation* s) {
  if (s->it && !s->failed && !s->dirty) {
    Hooks h;
    csReporter r = hooks(&h, s, NULL);
    cs_integratorSettle(s->it, &r);
  }
  s->edit_energy = totalEnergy(s);
}


// The edit is made. The energy it gave or took (a speed set, a spring stiffened) is the user's,
// not the integration's: the energy balance's reference moves by as much, so that
// energy_error keeps measuring what the integration alone lost or gained. After a failure the
// state is the last accepted one, which the edits that follow set back part by part (q, then u,
// ...) from a state that may hold any energy (1e200 J: the jumps would cancel to nothing): the
// balance then goes on from where it stood at the last report, as a stopped call's does, through
// every edit until the next advance.
static void endEdit(csSimulation* s, int nchange_done) {
  s->settled = 0;
  cs_invalidate(s->d);
  double after = totalEnergy(s);
  double jump = after - s->edit_energy;
  s->edited_failure |= s->failed;
  if (s->edited_failure || !isfinite(s->edit_energy)) {
    if (isfinite(after)) {
      s->metrics.e_edit = after - s->metrics.e0 - s->metrics.balance_last;
    }
  } else if (isfinite(jump)) {
    s->metrics.e_edit += jump;
  }
  s->dirty = 1;
  s->failed = 0;
  if (nchange_done >= 0) {
    s->nchange_restart = nchange_done;
  }
}


// ---------------------------------------------------------------------------------------------
// simulations

csSimulation* cs_newSimulation(const csModel* m, const csSimOptions* opt, csError* err) {
  cs_clearError(err);
  if (!m) {
    cs_setError(err, CS_ERR_INPUT, "", "no model was given");
    return NULL;
  }
  // a model built with the cs_add* functions is usable once finalized (the loader finalizes
  // its own)
  if (!m->finalized) {
    cs_setError(err, CS_ERR_INPUT, "", "the model '%s' is not finalized: call cs_finalizeModel "
                "after the last cs_add* call", m->name);
    return NULL;
  }
  const csSimOptions* o = opt ? opt : &m->opt;
  if (cs_validateSimOptions(o, err)) {
    return NULL;
  }
  csSimulation* s = csu_malloc(sizeof(csSimulation));
  if (!s) {
    cs_setError(err, CS_ERR_MEMORY, "", "out of memory creating the simulation");
    return NULL;
  }
  memset(s, 0, sizeof(*s));
  s->m = m;
  s->opt = *o;
  s->nchange_restart = -1;
  s->d = cs_makeData(m);
  s->snap = cs_makeData(m);
  if (!s->d || !s->snap || startStatistics(s) != 0) {
    cs_setError(err, CS_ERR_MEMORY, "", "out of memory creating the simulation");
    cs_deleteSimulation(s);
    return NULL;
  }
  // the integrator at once: changes due at t = 0 then hold from the start, as in a run
  if (newIntegrator(s, -1, err) != CS_OK) {
    cs_deleteSimulation(s);
    return NULL;
  }
  return s;
}


void cs_deleteSimulation(csSimulation* s) {
  if (!s) {
    return;
  }
  cs_integratorFree(s->it);
  cs_metricsFree(&s->metrics);
  cs_metricsSavedFree(&s->snap_metrics);
  cs_deleteData(s->d);
  cs_deleteData(s->snap);
  csu_free(s, sizeof(*s));
}


void cs_simReset(csSimulation* s) {
  if (s->running) {
    return;  // from a callback of the advance in progress (documented): nothing to reset to
  }
  cs_integratorFree(s->it);
  s->it = NULL;
  s->settled = 0;
  cs_resetData(s->m, s->d);
  s->failed = 0;
  s->edited_failure = 0;
  s->dirty = 0;
  s->nchange_restart = -1;
  startStatistics(s);
  // out of memory leaves it NULL: the next advance tries again and reports it
  newIntegrator(s, -1, NULL);
}


const csModel* cs_simModel(const csSimulation* s) { return s->m; }


csSimOptions cs_simOptions(const csSimulation* s) { return s->opt; }


int cs_simSetOptions(csSimulation* s, const csSimOptions* opt, csError* err) {
  cs_clearError(err);
  if (!opt) {
    cs_setError(err, CS_ERR_INPUT, "", "no options were given");
    return CS_ERR_INPUT;
  }
  if (cs_validateSimOptions(opt, err) || refuseWhileRunning(s, "change the options", err)) {
    return CS_ERR_INPUT;
  }
  beginEdit(s);
  s->settled = 0;
  s->opt = *opt;
  // the changes applied by the state the new integrator starts from: a stopped call's return
  // to its last report (or an edit) left that count for the restart it had due
  int nchange = s->nchange_restart >= 0 ? s->nchange_restart
                : s->it                 ? cs_integratorChangesDone(s->it)
                                        : -1;
  s->nchange_restart = -1;
  s->failed = 0;
  // the new integrator starts from the current state: a restart, as after an edit
  s->restart_base += s->it != NULL;
  return newIntegrator(s, nchange, err);
}


csData* cs_simData(csSimulation* s) { return s->d; }


void cs_simSetStop(csSimulation* s, const volatile sig_atomic_t* stop) { s->stop = stop; }


int cs_simStep(csSimulation* s, csError* err) {
  cs_clearError(err);
  if (refuseWhileRunning(s, "step", err) != CS_OK) {
    return CS_ERR_INPUT;
  }
  s->stoppable = s->stop != NULL;
  int status = prepare(s, err);
  if (status != CS_OK) {
    return status;
  }
  Hooks h;
  csReporter r = hooks(&h, s, NULL);
  s->running = 1;
  status = cs_integratorStep(s->it, DBL_MAX, &r, err);
  s->running = 0;
  return finish(s, status, err);
}


// an advance by a positive interval below this, s, is refused: CVODE's first-step arithmetic
// fails below about 1e-165 s (squares underflow), and no step of a model is that short
#define MIN_ADVANCE 1e-150

// CS_ERR_INPUT for an end time before the current one, not finite, or a hair after it
static int checkEndTime(const csSimulation* s, double t, const char* verb, csError* err) {
  if (!isfinite(t) || t < s->d->t) {
    cs_setError(err, CS_ERR_INPUT, "", "cannot %s to t = %.9g s from t = %.9g s", verb, t,
                s->d->t);
    return CS_ERR_INPUT;
  }
  if (t > s->d->t && t - s->d->t < MIN_ADVANCE) {
    cs_setError(err, CS_ERR_INPUT, "",
                "cannot %s to t = %.9g s from t = %.9g s: less than %g s later, too short "
                "for any step",
                verb, t, s->d->t, MIN_ADVANCE);
    return CS_ERR_INPUT;
  }
  return CS_OK;
}


int cs_simAdvanceTo(csSimulation* s, double t, csError* err) {
  cs_clearError(err);
  if (refuseWhileRunning(s, "advance", err) != CS_OK ||
      checkEndTime(s, t, "advance", err) != CS_OK) {
    return CS_ERR_INPUT;
  }
  s->stoppable = s->stop != NULL;
  int status = prepare(s, err);
  if (status != CS_OK) {
    return status;
  }
  Hooks h;
  csReporter r = hooks(&h, s, NULL);
  s->running = 1;
  status = cs_integratorAdvance(s->it, t, t, &r, err);
  s->running = 0;
  return finish(s, status, err);
}


int cs_simRun(csSimulation* s, double t_end, const csReporter* rep, csError* err) {
  cs_clearError(err);
  if (refuseWhileRunning(s, "run", err) != CS_OK || checkEndTime(s, t_end, "run", err) != CS_OK) {
    return CS_ERR_INPUT;
  }
  s->stoppable = s->stop != NULL || (rep && rep->stop);
  int status = prepare(s, err);
  if (status != CS_OK) {
    return status;
  }
  Hooks h;
  csReporter r = hooks(&h, s, rep);
  s->running = 1;
  status = cs_integratorRun(s->it, t_end, &r, err);
  if (status == CS_OK) {
    // the steps that end the run are finished now, through the caller's step hook too, as
    // cs_simulate finishes them (the next call or read would, without it)
    cs_integratorSettle(s->it, &r);
  }
  s->running = 0;
  // the reports sampled the energy balance already; a stopped run returns to its last report
  if (status == CS_STOPPED) {
    stopBack(s, "its last report", err);
  } else if (status == CS_ERR_SOLVER) {
    failed(s);
  }
  return status;
}


// the CSV reporter: one row per report
typedef struct CsvOut {
  FILE* f;
  const csCsvOptions* opt;
} CsvOut;


static int csvRow(void* ctx, const csModel* m, csData* d) {
  CsvOut* c = ctx;
  return cs_csvRow(c->f, m, d, c->opt);
}


// After a failed write (a full disk takes part of the buffer, then fails), a regular file is
// cut back to its last complete line, so that the rows written before the failure stay valid;
// a pipe or a device is left alone.
static void cutToLastLine(const char* path) {
  int fd = open(path, O_RDWR);
  struct stat st;
  if (fd < 0) {
    return;
  }
  if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
    off_t end = st.st_size;
    char buf[4096];
    while (end > 0) {
      off_t from = end > (off_t)sizeof(buf) ? end - (off_t)sizeof(buf) : 0;
      ssize_t n = pread(fd, buf, (size_t)(end - from), from);
      if (n != end - from) {
        break;
      }
      ssize_t i = n - 1;
      while (i >= 0 && buf[i] != '\n') {
        i--;
      }
      if (i >= 0) {
        end = from + i + 1;
        break;
      }
      end = from;
    }
    if (end < st.st_size && ftruncate(fd, end) != 0) {
      // nothing more can be done: the error already reported stands
    }
  }
  close(fd);
}


int cs_simRunCsv(csSimulation* s, double t_end, const char* path, const csCsvOptions* opt,
                 csError* err) {
  cs_clearError(err);
  // a run that cannot start leaves the file as it was
  if (refuseWhileRunning(s, "run", err) != CS_OK || checkEndTime(s, t_end, "run", err) != CS_OK) {
    return CS_ERR_INPUT;
  }
  if (refuseFailed(s, err) != CS_OK) {
    return CS_ERR_SOLVER;
  }
  // never over the scene the model was loaded from (a path spelled another way, ./scene.json,
  // is the same file), as a checkpoint never is: the scene would be lost for its own output
  if (cs_modelIsSceneFile(s->m, path)) {
    cs_setError(err, CS_ERR_IO, "", "refusing to write the CSV over the scene file %s",
                s->m->file);
    if (err) {
      snprintf(err->file, sizeof(err->file), "%s", path);
    }
    return CS_ERR_IO;
  }
  csCsvOptions none = {0};
  CsvOut c = {.opt = opt ? opt : &none};
  c.f = path ? fopen(path, "w") : NULL;
  if (!c.f) {
    cs_setError(err, CS_ERR_IO, "", "cannot write %s: %s", path ? path : "(no path given)",
                path ? strerror(errno) : "a CSV needs a file");
    if (err) {
      snprintf(err->file, sizeof(err->file), "%s", path ? path : "");
    }
    return CS_ERR_IO;
  }
  int status = CS_OK;
  if (cs_csvHeader(c.f, s->m, c.opt) != 0) {
    cs_setError(err, CS_ERR_IO, "", "could not write %s", path);
    status = CS_ERR_IO;
  }
  if (status == CS_OK) {
    csReporter rep = {.report = csvRow, .ctx = &c};
    status = cs_simRun(s, t_end, &rep, err);
  }
  // rows written before a failure stay valid: they are whole lines, and a write that failed
  // part way is cut back to the last of them
  if (fclose(c.f) != 0 && status == CS_OK) {
    cs_setError(err, CS_ERR_IO, "", "could not write %s", path);
    status = CS_ERR_IO;
  }
  if (status == CS_ERR_IO) {
    cutToLastLine(path);
    // the file the failed write was to (a report callback's error names none)
    if (err && !err->file[0]) {
      snprintf(err->file, sizeof(err->file), "%s", path);
    }
  }
  return status;
}


// ---------------------------------------------------------------------------------------------
// the state

double cs_simTime(const csSimulation* s) { return s->d->t; }


// the array and length of one part of the state
static double* statePart(const csSimulation* s, csStateKind kind, int* n) {
  const csData* d = s->d;
  switch (kind) {
    case CS_STATE_Q:
      *n = d->nq;
      return d->q;
    case CS_STATE_U:
      *n = d->nu;
      return d->u;
    case CS_STATE_Z:
      *n = d->nz;
      return d->z;
    case CS_STATE_DISCRETE:
      *n = d->ndisc;
      return d->disc;
    case CS_STATE_AUTO:
      *n = d->nauto;
      return d->autoval;
  }
  *n = -1;
  return NULL;
}


const double* cs_simState(const csSimulation* s, csStateKind kind) {
  int n;
  return statePart(s, kind, &n);
}


int cs_simGetState(const csSimulation* s, csStateKind kind, double* out, int n) {
  int len;
  const double* v = statePart(s, kind, &len);
  if (!v) {
    return -1;
  }
  if (out && n > 0) {
    memcpy(out, v, sizeof(double) * (size_t)(n < len ? n : len));
  }
  return len;
}


static const char* const stateNames[] = {"q", "u", "z", "discrete", "auto-update"};


int cs_simStateProblem(const csSimulation* s, csStateKind kind, const double* values, int n,
                       csError* err) {
  cs_clearError(err);
  int len;
  const double* v = statePart(s, kind, &len);
  if (!v) {
    cs_setError(err, CS_ERR_INPUT, "", "unknown part of the state (%d)", (int)kind);
    return CS_ERR_INPUT;
  }
  if (n != len) {
    cs_setError(err, CS_ERR_INPUT, "", "%s has %d values, not %d", stateNames[kind], len, n);
    return CS_ERR_INPUT;
  }
  if (n > 0 && !values) {
    cs_setError(err, CS_ERR_INPUT, "", "no values were given for %s (%d)", stateNames[kind], n);
    return CS_ERR_INPUT;
  }
  for (int i = 0; i < n; i++) {
    // a discrete variable may be infinite (a stop without a bound): cs_discreteProblem judges
    if (isnan(values[i]) || (kind != CS_STATE_DISCRETE && !isfinite(values[i]))) {
      cs_setError(err, CS_ERR_INPUT, "", "%s[%d] is not finite", stateNames[kind], i);
      return CS_ERR_INPUT;
    }
  }
  const csModel* m = s->m;
  int zero = kind == CS_STATE_Q ? cs_zeroQuaternionBody(m, values) : 0;
  if (zero) {
    const csBody* body = &m->body[zero];
    cs_setError(err, CS_ERR_INPUT, "", "q[%d..%d], the orientation of body '%s', is a zero "
                "quaternion", body->qadr, body->qadr + 3, body->name);
    return CS_ERR_INPUT;
  }
  // finite coordinates or speeds whose energy is not (8.99e307 m up, 1e300 m/s), which the
  // scene and checkpoint loaders refuse too: every report would carry inf or NaN
  int body = 0;
  int which = kind == CS_STATE_Q   ? cs_infiniteEnergyOf(m, values, s->d->u, &body)
              : kind == CS_STATE_U ? cs_infiniteEnergyOf(m, s->d->q, values, &body)
                                   : 0;
  if (which < 0) {
    cs_setError(err, CS_ERR_MEMORY, "", "out of memory checking the state's energy");
    return CS_ERR_MEMORY;
  }
  if (which) {
    cs_setError(err, CS_ERR_INPUT, "", "the state's %s energy would not be finite%s%s%s: %s too "
                "large", which == 'p' ? "potential" : "kinetic", body ? " (body '" : "",
                body ? m->body[body].name : "", body ? "')" : "",
                which == 'p' ? "coordinates" : "speeds");
    return CS_ERR_INPUT;
  }
  if (kind == CS_STATE_DISCRETE && n > 0) {
    // each value, then each element's values together (a lower bound above the upper one,
    // mu_dynamic above mu_static), as the scene and checkpoint loaders check them: values that
    // the elements' rules would move are refused rather than stored moved
    double* scratch = csu_malloc(sizeof(double) * (size_t)n);
    if (!scratch) {
      cs_setError(err, CS_ERR_MEMORY, "", "out of memory checking the discrete state");
      return CS_ERR_MEMORY;
    }
    memcpy(scratch, values, sizeof(double) * (size_t)n);
    for (int e = 0; e < m->nforce; e++) {
      char why[256];
      if (cs_elementStateProblem(m, scratch, s->d->autoval, e, why, sizeof(why)) != 0) {
        cs_setError(err, CS_ERR_INPUT, "", "%s", why);
        csu_free(scratch, sizeof(double) * (size_t)n);
        return CS_ERR_INPUT;
      }
    }
    csu_free(scratch, sizeof(double) * (size_t)n);
  }
  for (int e = 0; kind == CS_STATE_AUTO && e < m->nforce; e++) {
    for (int i = 0; i < m->force[e].autonum; i++) {
      char why[256];
      if (cs_autoProblem(m, e, i, values[m->force[e].autoadr + i], why, sizeof(why))) {
        cs_setError(err, CS_ERR_INPUT, "", "%s", why);
        return CS_ERR_INPUT;
      }
    }
  }
  return CS_OK;
}


int cs_simSetState(csSimulation* s, csStateKind kind, const double* values, int n, csError* err) {
  int status = cs_simStateProblem(s, kind, values, n, err);
  if (status != CS_OK) {
    return status;
  }
  if (refuseWhileRunning(s, "set the state", err) != CS_OK) {
    return CS_ERR_INPUT;
  }
  const csModel* m = s->m;
  int len;
  double* v = statePart(s, kind, &len);
  beginEdit(s);
  if (kind == CS_STATE_DISCRETE) {
    // through each kind's rules, element by element, in order (checked above to leave every
    // value as given)
    for (int e = 0; e < m->nforce; e++) {
      for (int i = 0; i < m->force[e].discnum; i++) {
        cs_setDiscrete(m, s->d, e, i, values[m->force[e].discadr + i]);
      }
    }
  } else if (n > 0) {
    memcpy(v, values, sizeof(double) * (size_t)n);
    if (kind == CS_STATE_AUTO) {
      memcpy(s->d->auto_cache, values, sizeof(double) * (size_t)n);
    }
  }
  // quaternions on the unit sphere, as the integrators keep them (q of norm 3 was taken as it
  // was, and the next advance failed)
  for (int b = 1; kind == CS_STATE_Q && b < m->nbody; b++) {
    const csBody* body = &m->body[b];
    if (body->joint == CS_JOINT_BALL || body->joint == CS_JOINT_FREE) {
      cs_quaternionNormalize(v + body->qadr);
    }
  }
  endEdit(s, -1);
  return CS_OK;
}


int cs_simSetTime(csSimulation* s, double t, csError* err) {
  cs_clearError(err);
  if (!isfinite(t) || t < 0) {
    cs_setError(err, CS_ERR_INPUT, "", "the time must be finite and >= 0 (every run starts at "
                "t = 0), not %g", t);
    return CS_ERR_INPUT;
  }
  if (refuseWhileRunning(s, "set the time", err) != CS_OK) {
    return CS_ERR_INPUT;
  }
  beginEdit(s);
  // each element's last commit moves with the time, so that its anchor keeps its age: the
  // next update measures the anchor's speed over the same interval as without the edit (set
  // to t, a time set to itself between a group's step and its commit shortened it)
  double shift = t - s->d->t;
  for (int e = 0; e < s->m->nforce; e++) {
    s->d->commit_t[e] = fmin(fmax(s->d->commit_t[e] + shift, 0.0), t);
  }
  s->d->t = t;
  endEdit(s, cs_integratorChangesBefore(s->m, t));
  return CS_OK;
}


int cs_simSetDiscrete(csSimulation* s, int e, const char* name, double value, csError* err) {
  cs_clearError(err);
  const csModel* m = s->m;
  if (e < 0 || e >= m->nforce) {
    cs_setError(err, CS_ERR_INPUT, "", "there is no force element %d (the model has %d)", e,
                m->nforce);
    return CS_ERR_INPUT;
  }
  int i = cs_modelDiscreteIndex(m, e, name);
  if (i < 0) {
    cs_setError(err, CS_ERR_INPUT, "", "force element '%s' (%s) has no discrete variable '%s'",
                m->force[e].name, cs_forceKind(m->force[e].kind)->name, name ? name : "(null)");
    return CS_ERR_INPUT;
  }
  char why[256];
  if (cs_discreteProblem(m, e, i, value, why, sizeof(why)) != 0) {
    cs_setError(err, CS_ERR_INPUT, "", "%s", why);
    return CS_ERR_INPUT;
  }
  if (refuseWhileRunning(s, "set a discrete variable", err) != CS_OK) {
    return CS_ERR_INPUT;
  }
  beginEdit(s);
  cs_setDiscrete(m, s->d, e, i, value);
  endEdit(s, -1);
  return CS_OK;
}


// ---------------------------------------------------------------------------------------------
// realized quantities

int cs_simBodyPose(csSimulation* s, int body, double p[3], double q[4]) {
  if (body < 0 || body >= s->m->nbody) {
    return -1;
  }
  cs_realizePosition(s->m, s->d);
  const csTransform* X = &s->d->body_pose[body];
  if (p) {
    csu_vec3ToArray(p, X->p);
  }
  if (q) {
    csQuat r = csu_matToQuat(&X->R);
    q[0] = r.w;
    q[1] = r.x;
    q[2] = r.y;
    q[3] = r.z;
  }
  return 0;
}


int cs_simBodyVelocity(csSimulation* s, int body, double w[3], double v[3]) {
  if (body < 0 || body >= s->m->nbody) {
    return -1;
  }
  cs_realizeVelocity(s->m, s->d);
  const csSpatialVec* V = &s->d->body_vel[body];
  if (w) {
    csu_vec3ToArray(w, V->w);
  }
  if (v) {
    csu_vec3ToArray(v, V->v);
  }
  return 0;
}


int cs_simStateDerivative(csSimulation* s, csStateKind kind, double* out, int n) {
  const double* v;
  int len;
  switch (kind) {
    case CS_STATE_Q:
      v = s->d->qdot;
      len = s->d->nq;
      break;
    case CS_STATE_U:
      v = s->d->udot;
      len = s->d->nu;
      break;
    case CS_STATE_Z:
      v = s->d->zdot;
      len = s->d->nz;
      break;
    default:
      return -1;
  }
  // the rates at the current state, as the integrator finds them (nothing is integrated)
  cs_rates(s->m, s->d);
  if (out && n > 0) {
    memcpy(out, v, sizeof(double) * (size_t)(n < len ? n : len));
  }
  return len;
}


int cs_simBodyCom(csSimulation* s, int body, double com[3]) {
  if (body < 0 || body >= s->m->nbody) {
    return -1;
  }
  cs_realizePosition(s->m, s->d);
  if (com) {
    csu_vec3ToArray(com, s->d->body_com[body]);
  }
  return 0;
}


void cs_simEnergy(csSimulation* s, double* kinetic, double* potential, double* dissipated) {
  cs_realizeDynamics(s->m, s->d);
  if (kinetic) *kinetic = cs_kineticEnergy(s->m, s->d);
  if (potential) *potential = cs_potentialEnergy(s->m, s->d);
  if (dissipated) *dissipated = cs_dissipatedEnergy(s->m, s->d);
}


int cs_simContact(csSimulation* s, int e, csContactReport* r) {
  if (cs_modelForceIsContact(s->m, e) != 1 || !r) {
    return -1;
  }
  return cs_contactReport(s->m, s->d, e, r);
}


int cs_simContactValues(csSimulation* s, int e, double* out, int n) {
  csContactReport r;
  if (cs_simContact(s, e, &r) != 0) {
    return -1;
  }
  int len = cs_modelContactValueCount(s->m, e);
  if (out && n > 0) {
    memcpy(out, s->d->force_extra + s->m->force[e].repadr,
           sizeof(double) * (size_t)(n < len ? n : len));
  }
  return len;
}


int cs_simContactSet(csSimulation* s, int set, double force[3], double cop[3]) {
  if (set < 0 || set >= s->m->ngroup) {
    return -1;
  }
  csVec3 f, c;
  cs_realizeDynamics(s->m, s->d);
  cs_centreOfPressure(s->m, s->d, set, &f, &c);
  if (force) {
    csu_vec3ToArray(force, f);
  }
  if (cop) {
    csu_vec3ToArray(cop, c);
  }
  return 0;
}


// ---------------------------------------------------------------------------------------------
// statistics

// the integrator's counters into d->stat, and the diagnostics that depend on how the run went
// recomputed from those found at the start
static void updateStatistics(csSimulation* s) {
  csStats* st = &s->d->stat;
  csStats cur;
  counters(s, &cur);
  // less the steps given back by stopped calls (returnToSnapshot)
  st->nsteps = st->nrhs = st->nrhs_jac = st->njac = st->netf = st->nncf = st->nstiff = 0;
  st->nsteps_group = 0;
  addStepCounts(st, &cur, &s->discard, 1);
  st->cpu_step_hook = cur.cpu_step_hook;
  st->last_step = cur.last_step;
  st->linsol = cur.linsol;
  st->bandwidth = cur.bandwidth;
  st->ngroup = cur.ngroup;
  st->cpu_seconds = s->cpu_base + (s->it ? cs_integratorCpu(s->it) : 0);
  s->metrics.nnotes = s->nnotes_init;
  s->metrics.ndropped = s->ndropped_init;
  cs_metricsFinish(&s->metrics, s->m, s->d);
}


// Before the statistics are read, the steps that ended at the current time are finished (their
// metrics sampled, their auto-updates committed, as the next step would do): without it the
// last step was missing from the sliding distance and the rest (a block gliding 1 m showed
// 0.68 m). Not from a callback of an advance in progress, which is finishing them itself (and
// whose reporter a settle would replace): the statistics are then those sampled so far.
// Settled once, they stand until the simulation changes: reading every contact's statistics
// settles the simulation once, not once per contact.
static void settleForStatistics(csSimulation* s) {
  if (s->running) {
    updateStatistics(s);
    return;
  }
  if (!s->settled) {
    beginEdit(s);
    updateStatistics(s);
    s->settled = 1;
  }
}


void cs_simStatistics(csSimulation* s, csRunStatistics* out) {
  settleForStatistics(s);
  const csStats* st = &s->d->stat;
  const csMetrics* mt = &s->metrics;
  memset(out, 0, sizeof(*out));
  out->t_start = s->t_start;
  out->t = s->d->t;
  out->nsteps = st->nsteps;
  out->nrhs = st->nrhs;
  out->nrhs_jac = st->nrhs_jac;
  out->njac = st->njac;
  out->netf = st->netf;
  out->nncf = st->nncf;
  out->ncommit = st->ncommit - s->discard.ncommit;
  out->nrestart = s->restart_base + (s->it ? cs_integratorRestarts(s->it) : 0);
  out->ngroup = st->ngroup;
  out->cpu_seconds = st->cpu_seconds;
  out->max_penetration = mt->max_penetration;
  out->peak_normal_force = mt->peak_normal_force;
  out->sliding_distance = mt->sliding_distance;
  out->stuck_drift = mt->stuck_drift;
  out->energy_error = mt->energy_error;
  out->energy_initial = mt->e0;
  out->nnotes = mt->nnotes;
  out->cpu_statistics = st->cpu_step_hook;
  out->stick_speed = mt->stick_speed;
  out->nstuck = mt->nstuck;
  out->linear_solver = cs_linearSolverUsed(&s->opt, s->d);
}


const char* cs_simNote(csSimulation* s, int i) {
  return i >= 0 && i < s->metrics.nnotes ? s->metrics.notes[i] : NULL;
}


int cs_simContactStatistics(csSimulation* s, int e, double* peak_normal_force,
                            double* max_penetration) {
  // the last step's metrics sampled first, as cs_simStatistics does
  settleForStatistics(s);
  const csMetrics* mt = &s->metrics;
  if (e < 0 || e >= mt->nforce || mt->contact_of[e] < 0) {
    return -1;
  }
  const csMetricsContact* c = &mt->contact[mt->contact_of[e]];
  if (peak_normal_force) *peak_normal_force = c->peak_fn;
  if (max_penetration) *max_penetration = c->max_penetration;
  return 0;
}


int cs_simContactSetStatistics(csSimulation* s, int set, double* peak_normal_force) {
  settleForStatistics(s);
  const csMetrics* mt = &s->metrics;
  if (set < 0 || set >= mt->nset) {
    return -1;
  }
  if (peak_normal_force) *peak_normal_force = mt->set_peak[set];
  return 0;
}


// ---------------------------------------------------------------------------------------------
// checkpoints

// before a checkpoint is saved, to a file or to text: not from a callback; the steps that
// ended now are finished first, which an advance in progress is doing
static int beginSave(csSimulation* s, csError* err) {
  cs_clearError(err);
  if (refuseWhileRunning(s, "save a checkpoint", err) != CS_OK) {
    return CS_ERR_INPUT;
  }
  beginEdit(s);
  return CS_OK;
}


int cs_simSaveState(csSimulation* s, const char* path, csError* err) {
  int status = beginSave(s, err);
  return status == CS_OK ? cs_saveState(s->m, s->d, path, err) : status;
}


int cs_simSaveStateText(csSimulation* s, char** text, size_t* length, csError* err) {
  if (text) {
    *text = NULL;
  }
  int status = beginSave(s, err);
  return status == CS_OK ? cs_saveStateText(s->m, s->d, text, length, err) : status;
}


// Where a checkpoint comes from: a file (path) or, with text set, text in memory.
typedef struct Checkpoint {
  const char* path;
  int text;
  const char* bytes;
  size_t length;
} Checkpoint;


static int loadCheckpoint(csSimulation* s, const Checkpoint* from, csError* err) {
  cs_clearError(err);
  if (refuseWhileRunning(s, "load a checkpoint", err) != CS_OK) {
    return CS_ERR_INPUT;
  }
  // read into the scratch data first (the loaders change nothing unless the whole checkpoint
  // is good), so that a refused checkpoint leaves the simulation exactly as it was
  int status = from->text ? cs_loadStateText(s->m, s->snap, from->bytes, from->length, err)
                          : cs_loadState(s->m, s->snap, from->path, err);
  if (status != CS_OK) {
    return status;
  }
  beginEdit(s);
  cs_copyState(s->m, s->d, s->snap);
  // the changes due at its time are applied before anything is reported, as the command line's
  // --initial-state applies them: the new integrator counts them itself (-1)
  endEdit(s, -1);
  // the statistics describe the continued run; the integrator's counters start over too
  if (startStatistics(s) != 0) {
    cs_setError(err, CS_ERR_MEMORY, "", "out of memory");
    return CS_ERR_MEMORY;
  }
  s->nchange_restart = -1;
  cs_integratorFree(s->it);
  s->it = NULL;
  return newIntegrator(s, -1, err);
}


int cs_simLoadState(csSimulation* s, const char* path, csError* err) {
  Checkpoint from = {.path = path};
  return loadCheckpoint(s, &from, err);
}


int cs_simLoadStateText(csSimulation* s, const char* text, size_t length, csError* err) {
  Checkpoint from = {.text = 1, .bytes = text, .length = length};
  return loadCheckpoint(s, &from, err);
}
