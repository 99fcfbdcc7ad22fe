// integrator.c: the integrator loop, and the only file that includes SUNDIALS.
//
// CVODE is driven one step at a time (CV_ONE_STEP) so that, after each successful step, reports
// due within the step are interpolated (CVodeGetDky) and then every force element's auto-update
// discrete variables are computed from the state at the end of the step and committed, exactly
// once per successful step and never on rejected trials. Scheduled discrete changes are applied
// at their exact times (CVODE's stop time), followed by a re-initialisation because the
// right-hand side jumps there.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cvode/cvode.h>
#include <cvode/cvode_proj.h>
#include <nvector/nvector_serial.h>
#include <sundials/sundials_types.h>
#include <sunlinsol/sunlinsol_band.h>
#include <sunlinsol/sunlinsol_dense.h>
#include <sunlinsol/sunlinsol_spgmr.h>
#include <sunmatrix/sunmatrix_band.h>
#include <sunmatrix/sunmatrix_dense.h>
#include <sunnonlinsol/sunnonlinsol_fixedpoint.h>

#include "contactsim/contactsim.h"
#include "error.h"

// SUNDIALS 6.x / 7.x differences: context creation takes a communicator in 7.x, the real type
// is sunrealtype in both (realtype was removed in 7.x), and 7.x replaced the per-solver error
// handler by the context's error handler stack.
#if SUNDIALS_VERSION_MAJOR >= 7
#define CS_SUN_CONTEXT_CREATE(ctx) SUNContext_Create(SUN_COMM_NULL, (ctx))
#else
#define CS_SUN_CONTEXT_CREATE(ctx) SUNContext_Create(NULL, (ctx))
#endif

// everything the callbacks need; passed as CVODE's user_data (no globals)
typedef struct Run {
  const csModel* m;
  csData* d;
  int nstate;              // length of the CVODE vector: nq + nu + nz (at least 1)
  int nused;               // nq + nu + nz
  double** slot;           // (nused) where CVODE's state i lives in the data (q, u or z)
  double** rate;           // (nused) where its time derivative lives (qdot, udot or zdot)
  int* qindex;             // (nq) CVODE index of each q (for the quaternion projection)
  int upper, lower;        // half-bandwidths of the Jacobian in this ordering
  char cvmsg[CS_MAX_ERROR];// CVODE's last error message
} Run;


// ---------------------------------------------------------------------------------------------
// state vector <-> data
//
// CVODE's vector holds the states body by body: q and u of body 1, then the z states of the
// force elements whose highest-numbered body is body 1, then body 2, and so on. Bodies that
// neither share a tree (below ground) nor a force element never influence each other, so in this
// order the Jacobian of many independent bodies (a pile of blocks) is block diagonal: a banded
// solver with a difference-quotient Jacobian then costs time linear in the number of bodies,
// where a dense one is cubic. A sparse solver (KLU) was rejected because CVODE cannot form a
// sparse Jacobian by difference quotients, and an analytic Jacobian of every contact model is a
// large, error-prone addition.

static int findRoot(int* parent, int i) {
  while (parent[i] != i) {
    parent[i] = parent[parent[i]];
    i = parent[i];
  }
  return i;
}


static void unite(int* parent, int a, int b) {
  if (a > 0 && b > 0) {
    parent[findRoot(parent, a)] = findRoot(parent, b);
  }
}


// the highest non-ground body an element refers to (through bodies or planes), or 0
static int homeBody(const csModel* m, const csForce* f, int* parent) {
  const csForceKind* k = cs_forceKind(f->kind);
  int home = 0;
  for (int i = 0; i < k->nparams; i++) {
    const csParamInfo* p = &k->params[i];
    int b = -1;
    if (p->type == CS_PARAM_BODY) {
      b = f->ref[p->slot];
    } else if (p->type == CS_PARAM_PLANE && f->ref[p->slot] >= 0) {
      b = m->plane[f->ref[p->slot]].body;
    }
    if (b > 0) {
      if (home > 0) {
        unite(parent, home, b);
      }
      home = b > home ? b : home;
    }
  }
  return home;
}


// lay out CVODE's vector and find the Jacobian's bandwidth; returns 0 or -1 (out of memory)
static int layoutState(Run* run) {
  const csModel* m = run->m;
  csData* d = run->d;
  int n = run->nused, nb = m->nbody;
  run->slot = csu_malloc(sizeof(double*) * (size_t)(n + 1));
  run->rate = csu_malloc(sizeof(double*) * (size_t)(n + 1));
  run->qindex = csu_malloc(sizeof(int) * (size_t)(m->nq + 1));
  int* parent = csu_malloc(sizeof(int) * (size_t)nb);
  int* home = csu_malloc(sizeof(int) * (size_t)(m->nforce + 1));
  int* owner = csu_malloc(sizeof(int) * (size_t)(n + 1));
  int* lo = csu_malloc(sizeof(int) * (size_t)nb);
  int* hi = csu_malloc(sizeof(int) * (size_t)nb);
  int ok = run->slot && run->rate && run->qindex && parent && home && owner && lo && hi;
  if (ok) {
    // bodies that share a tree below ground or a force element form one coupled group
    for (int b = 0; b < nb; b++) {
      parent[b] = b;
    }
    for (int b = 1; b < nb; b++) {
      unite(parent, b, m->body[b].parent);
    }
    for (int e = 0; e < m->nforce; e++) {
      home[e] = homeBody(m, &m->force[e], parent);
    }
    // order: per body q, u, then the z of elements homed there; elements homed on ground first
    int i = 0;
    for (int b = 0; b < nb; b++) {
      const csBody* body = &m->body[b];
      for (int k = 0; k < body->qnum; k++, i++) {
        run->slot[i] = d->q + body->qadr + k;
        run->rate[i] = d->qdot + body->qadr + k;
        run->qindex[body->qadr + k] = i;
        owner[i] = b;
      }
      for (int k = 0; k < body->unum; k++, i++) {
        run->slot[i] = d->u + body->uadr + k;
        run->rate[i] = d->udot + body->uadr + k;
        owner[i] = b;
      }
      for (int e = 0; e < m->nforce; e++) {
        const csForce* f = &m->force[e];
        if (home[e] != b) {
          continue;
        }
        int zfirst = f->dissadr >= 0 ? f->dissadr : f->zadr;
        int znum = f->znum + (f->dissadr >= 0 ? 1 : 0);
        for (int k = 0; k < znum; k++, i++) {
          run->slot[i] = d->z + zfirst + k;
          run->rate[i] = d->zdot + zfirst + k;
          owner[i] = b;
        }
      }
    }
    // half-bandwidths: how far apart two states of one coupled group can be
    for (int b = 0; b < nb; b++) {
      lo[b] = n;
      hi[b] = -1;
    }
    for (int j = 0; j < n; j++) {
      int g = owner[j] > 0 ? findRoot(parent, owner[j]) : 0;
      lo[g] = j < lo[g] ? j : lo[g];
      hi[g] = j > hi[g] ? j : hi[g];
    }
    run->upper = run->lower = 0;
    for (int j = 0; j < n; j++) {
      int g = owner[j] > 0 ? findRoot(parent, owner[j]) : 0;
      run->upper = hi[g] - j > run->upper ? hi[g] - j : run->upper;
      run->lower = j - lo[g] > run->lower ? j - lo[g] : run->lower;
    }
  }
  csu_free(parent, 0);
  csu_free(home, 0);
  csu_free(owner, 0);
  csu_free(lo, 0);
  csu_free(hi, 0);
  return ok ? 0 : -1;
}


static void freeLayout(Run* run) {
  csu_free(run->slot, 0);
  csu_free(run->rate, 0);
  csu_free(run->qindex, 0);
}


static void loadState(Run* run, sunrealtype t, const sunrealtype* y) {
  csData* d = run->d;
  d->t = t;
  for (int i = 0; i < run->nused; i++) {
    *run->slot[i] = y[i];
  }
  cs_invalidate(d);
}


static void storeState(const Run* run, sunrealtype* y) {
  for (int i = 0; i < run->nused; i++) {
    y[i] = *run->slot[i];
  }
}


// ---------------------------------------------------------------------------------------------
// CVODE callbacks

// the right-hand side: kinematics, forces, articulated-body dynamics; allocates nothing
static int rhs(sunrealtype t, N_Vector y, N_Vector ydot, void* user_data) {
  Run* run = user_data;
  csData* d = run->d;
  loadState(run, t, N_VGetArrayPointer(y));
  sunrealtype* f = N_VGetArrayPointer(ydot);
  if (cs_forward(run->m, d) != 0) {
    return 1;  // recoverable: CVODE retries with a smaller step
  }
  for (int i = 0; i < run->nused; i++) {
    f[i] = *run->rate[i];
  }
  for (int i = run->nused; i < run->nstate; i++) {
    f[i] = 0;  // placeholder state of a model with nothing to integrate
  }
  return 0;
}


// put quaternions back on the unit sphere; corr receives the change, err loses its radial part
static int project(sunrealtype t, N_Vector ycur, N_Vector corr, sunrealtype eps, N_Vector err,
                   void* user_data) {
  (void)t;
  (void)eps;
  Run* run = user_data;
  const csModel* m = run->m;
  sunrealtype* y = N_VGetArrayPointer(ycur);
  sunrealtype* c = N_VGetArrayPointer(corr);
  sunrealtype* e = err ? N_VGetArrayPointer(err) : NULL;
  N_VConst(0, corr);
  for (int b = 1; b < m->nbody; b++) {
    const csBody* body = &m->body[b];
    if (body->joint != CS_JOINT_BALL && body->joint != CS_JOINT_FREE) {
      continue;
    }
    int i0 = run->qindex[body->qadr];  // the four quaternion entries are consecutive
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


static void errorHandler(int code, const char* module, const char* function, char* msg,
                         void* user_data) {
  (void)code;
  (void)module;
  Run* run = user_data;
  snprintf(run->cvmsg, sizeof(run->cvmsg), "%s: %s", function, msg);
}


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
static int check(int flag, const char* function, const Run* run, csError* err) {
  if (flag >= 0) {
    return 0;
  }
  cs_setError(err, CS_ERR_SOLVER, "", "%s failed with %s at t = %.9g s%s%s", function,
              flagName(flag), run->d->t, run->cvmsg[0] ? ": " : "", run->cvmsg);
  err->time = run->d->t;
  return -1;
}


static double cpuSeconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}


static int validateOptions(const csSimOptions* o, csError* err) {
  const char* bad = NULL;
  if (!(o->duration > 0)) {
    bad = "duration must be positive";
  } else if (!(o->rtol > 0)) {
    bad = "rtol must be positive";
  } else if (!(o->atol > 0)) {
    bad = "atol must be positive";
  } else if (!(o->max_step >= 0)) {
    bad = "max_step must be zero (unlimited) or positive";
  } else if (!(o->initial_step >= 0)) {
    bad = "initial_step must be zero (automatic) or positive";
  } else if (!(o->max_steps > 0)) {
    bad = "max_steps must be positive";
  } else if (!(o->report_interval > 0)) {
    bad = "report_interval must be positive";
  }
  if (bad) {
    cs_setError(err, CS_ERR_INPUT, "simulation", "%s", bad);
    return -1;
  }
  return 0;
}


// add CVODE's counters to *sum
static void addCounters(void* mem, int linear_solver, csStats* sum) {
  long v;
  if (CVodeGetNumSteps(mem, &v) == CV_SUCCESS) sum->nsteps += v;
  if (CVodeGetNumRhsEvals(mem, &v) == CV_SUCCESS) sum->nrhs += v;
  if (CVodeGetNumErrTestFails(mem, &v) == CV_SUCCESS) sum->netf += v;
  if (CVodeGetNumNonlinSolvConvFails(mem, &v) == CV_SUCCESS) sum->nncf += v;
  if (linear_solver) {
    if (CVodeGetNumJacEvals(mem, &v) == CV_SUCCESS) sum->njac += v;
    if (CVodeGetNumLinRhsEvals(mem, &v) == CV_SUCCESS) sum->nrhs_jac += v;
  }
}


// report at time t: from the current solution y when t is its time tcur (the interpolant is
// undefined before the first step), otherwise from CVODE's interpolant
static int reportAt(Run* run, void* mem, sunrealtype t, sunrealtype tcur, N_Vector y,
                    N_Vector ytmp, const csReporter* rep, double* cpu_reporting, csError* err) {
  if (t == tcur) {
    N_VScale(1.0, y, ytmp);
  } else if (check(CVodeGetDky(mem, t, 0, ytmp), "CVodeGetDky", run, err)) {
    return -1;
  }
  loadState(run, t, N_VGetArrayPointer(ytmp));
  double c0 = cpuSeconds();
  cs_realizeDynamics(run->m, run->d);
  int stop = rep && rep->report ? rep->report(rep->ctx, run->m, run->d) : 0;
  *cpu_reporting += cpuSeconds() - c0;
  run->d->stat.nreport++;
  if (stop) {
    cs_setError(err, CS_ERR_IO, "", "the report could not be written at t = %.9g s", t);
    return -1;
  }
  return 0;
}


int cs_simulate(const csModel* m, csData* d, const csSimOptions* opt, const csReporter* rep,
                csError* err) {
  if (validateOptions(opt, err)) {
    return CS_ERR_INPUT;
  }
  Run run = {.m = m, .d = d};
  run.nused = m->nq + m->nu + m->nz;
  run.nstate = run.nused > 0 ? run.nused : 1;
  if (layoutState(&run) != 0) {
    freeLayout(&run);
    cs_setError(err, CS_ERR_MEMORY, "", "out of memory laying out the integrator's state");
    return CS_ERR_MEMORY;
  }
  int status = CS_OK;
  SUNContext ctx = NULL;
  N_Vector y = NULL, ytmp = NULL, atolv = NULL;
  SUNMatrix A = NULL;
  SUNLinearSolver LS = NULL;
  SUNNonlinearSolver NLS = NULL;
  void* mem = NULL;
  const double t0 = d->t;
  const double tend = t0 + opt->duration;
  double cpu_reporting = 0;
  double cpu0 = cpuSeconds();

  // 1. context, vectors, solver memory, tolerances, solvers
  if (CS_SUN_CONTEXT_CREATE(&ctx) != 0) {
    cs_setError(err, CS_ERR_MEMORY, "", "SUNContext_Create failed");
    return CS_ERR_MEMORY;
  }
  y = N_VNew_Serial(run.nstate, ctx);
  ytmp = N_VNew_Serial(run.nstate, ctx);
  atolv = N_VNew_Serial(run.nstate, ctx);
  int bdf = opt->integrator == CS_INTEGRATOR_BDF;
  mem = CVodeCreate(bdf ? CV_BDF : CV_ADAMS, ctx);
  if (!y || !ytmp || !atolv || !mem) {
    cs_setError(err, CS_ERR_MEMORY, "", "out of memory creating the integrator");
    status = CS_ERR_MEMORY;
    goto cleanup;
  }
  N_VConst(0, y);
  storeState(&run, N_VGetArrayPointer(y));
  N_VConst(opt->atol, atolv);
  if (getenv("CS_ZATOL")) {
    double za = atof(getenv("CS_ZATOL"));
    for (int i = 0; i < run.nused; i++) {
      double* slot = run.slot[i];
      if (slot >= d->z && slot < d->z + d->nz) {
        N_VGetArrayPointer(atolv)[i] = za;
      }
    }
  }
  CVodeSetErrHandlerFn(mem, errorHandler, &run);
  if (check(CVodeInit(mem, rhs, t0, y), "CVodeInit", &run, err) ||
      check(CVodeSetUserData(mem, &run), "CVodeSetUserData", &run, err) ||
      check(CVodeSVtolerances(mem, opt->rtol, atolv), "CVodeSVtolerances", &run, err) ||
      (opt->max_step > 0 &&
       check(CVodeSetMaxStep(mem, opt->max_step), "CVodeSetMaxStep", &run, err)) ||
      (opt->initial_step > 0 &&
       check(CVodeSetInitStep(mem, opt->initial_step), "CVodeSetInitStep", &run, err))) {
    status = CS_ERR_SOLVER;
    goto cleanup;
  }
  if (bdf) {
    // the linear solver: banded when the coupled groups are small next to the whole system
    csLinearSolver ls = opt->linsol;
    int band = run.upper + run.lower + 1;
    if (ls == CS_LINSOL_AUTO) {
      ls = (run.nstate >= 200 && 4 * band <= run.nstate) ? CS_LINSOL_BAND : CS_LINSOL_DENSE;
    }
    d->stat.linsol = ls;
    d->stat.bandwidth = band;
    if (ls == CS_LINSOL_BAND) {
      A = SUNBandMatrix(run.nstate, run.upper, run.lower, ctx);
      LS = A ? SUNLinSol_Band(y, A, ctx) : NULL;
    } else if (ls == CS_LINSOL_GMRES) {
      LS = SUNLinSol_SPGMR(y, SUN_PREC_NONE, 0, ctx);
    } else {
      A = SUNDenseMatrix(run.nstate, run.nstate, ctx);
      LS = A ? SUNLinSol_Dense(y, A, ctx) : NULL;
    }
    if (!LS) {
      cs_setError(err, CS_ERR_MEMORY, "", "out of memory creating the linear solver");
      status = CS_ERR_MEMORY;
      goto cleanup;
    }
    if (check(CVodeSetLinearSolver(mem, LS, A), "CVodeSetLinearSolver", &run, err) ||
        check(CVodeSetProjFn(mem, project), "CVodeSetProjFn", &run, err)) {
      status = CS_ERR_SOLVER;
      goto cleanup;
    }
  } else {
    NLS = SUNNonlinSol_FixedPoint(y, 0, ctx);
    if (!NLS || check(CVodeSetNonlinearSolver(mem, NLS), "CVodeSetNonlinearSolver", &run, err)) {
      status = NLS ? CS_ERR_SOLVER : CS_ERR_MEMORY;
      goto cleanup;
    }
  }

  // 2. the first report, at the initial time
  csStats banked;  // CVODE's counters from before the last re-initialisation
  memset(&banked, 0, sizeof(banked));
  long nextReport = 1;
  long stepsSinceReport = 0;
  int nchangeDone = 0;
  while (nchangeDone < m->nchange && m->change[nchangeDone].time < t0) {
    nchangeDone++;  // changes scheduled before the start are not replayed
  }
  d->t_commit = t0;
  if (reportAt(&run, mem, t0, t0, y, ytmp, rep, &cpu_reporting, err)) {
    status = err->code;
    goto cleanup;
  }

  // 3. step until the end: step, report within the step, commit auto-updates, apply changes
  sunrealtype t = t0;
  while (t < tend) {
    // apply changes due now (at t0 or at the stop time just reached)
    int changed = 0;
    while (nchangeDone < m->nchange && m->change[nchangeDone].time <= t) {
      const csChange* c = &m->change[nchangeDone++];
      cs_setDiscrete(m, d, c->force, c->index, c->value);
      changed = 1;
    }
    if (changed && t > t0) {
      // CVodeReInit zeroes CVODE's counters: bank them first
      addCounters(mem, bdf && LS, &banked);
      if (check(CVodeReInit(mem, t, y), "CVodeReInit", &run, err)) {
        status = CS_ERR_SOLVER;
        goto cleanup;
      }
    }
    double tstop = tend;
    if (nchangeDone < m->nchange && m->change[nchangeDone].time < tstop) {
      tstop = m->change[nchangeDone].time;
    }
    if (check(CVodeSetStopTime(mem, tstop), "CVodeSetStopTime", &run, err)) {
      status = CS_ERR_SOLVER;
      goto cleanup;
    }
    int flag = CVode(mem, tstop, y, &t, CV_ONE_STEP);
    if (flag < 0) {
      d->t = t;
      check(flag, "CVode", &run, err);
      status = CS_ERR_SOLVER;
      goto cleanup;
    }
    // CVODE's own step limit counts steps within one call, and every call here is one step,
    // so the limit between two reports is enforced here
    if (++stepsSinceReport > opt->max_steps) {
      sunrealtype hlast = 0;
      CVodeGetLastStep(mem, &hlast);
      d->t = t;
      cs_setError(err, CS_ERR_SOLVER, "",
                  "too much work: more than %ld steps since the last report, at t = %.9g s "
                  "(last step %.3g s); raise max_steps or loosen the tolerances", opt->max_steps,
                  t, (double)hlast);
      err->time = t;
      status = CS_ERR_SOLVER;
      goto cleanup;
    }
    // reports due within the step just taken, with the auto-update values it used
    for (;;) {
      double tr = t0 + (double)nextReport * opt->report_interval;
      if (tr > tend - 1e-12 * (1 + tend)) {
        tr = tend;  // the last report is at the end exactly
      }
      if (tr > t || nextReport < 0) {
        break;
      }
      if (reportAt(&run, mem, tr, t, y, ytmp, rep, &cpu_reporting, err)) {
        status = err->code;
        goto cleanup;
      }
      nextReport = (tr >= tend) ? -1 : nextReport + 1;
      stepsSinceReport = 0;
    }
    // commit auto-update discrete variables at the end of the successful step
    loadState(&run, t, N_VGetArrayPointer(y));
    if (rep && rep->step) {
      double c0 = cpuSeconds();
      cs_realizeDynamics(m, d);
      rep->step(rep->ctx, m, d);
      cpu_reporting += cpuSeconds() - c0;
    }
    cs_commitAutoUpdates(m, d);
    if (rep && rep->progress) {
      rep->progress(rep->ctx, t - t0, opt->duration);
    }
  }
  loadState(&run, t, N_VGetArrayPointer(y));

cleanup:
  // 4. statistics (counters banked at re-initialisations plus the current ones), then free in
  // reverse order of creation
  if (mem) {
    sunrealtype h;
    addCounters(mem, bdf && LS, &banked);
    d->stat.nsteps = banked.nsteps;
    d->stat.nrhs = banked.nrhs;
    d->stat.netf = banked.netf;
    d->stat.nncf = banked.nncf;
    d->stat.njac = banked.njac;
    d->stat.nrhs_jac = banked.nrhs_jac;
    if (CVodeGetLastStep(mem, &h) == CV_SUCCESS) {
      d->stat.last_step = h;
    }
  }
  d->stat.cpu_seconds = cpuSeconds() - cpu0 - cpu_reporting;
  CVodeFree(&mem);
  SUNNonlinSolFree(NLS);
  SUNLinSolFree(LS);
  SUNMatDestroy(A);
  N_VDestroy(atolv);
  N_VDestroy(ytmp);
  N_VDestroy(y);
  SUNContext_Free(&ctx);
  freeLayout(&run);
  return status;
}
