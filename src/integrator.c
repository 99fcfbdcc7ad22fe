// integrator.c: the integrator loop, and the only file that includes SUNDIALS.
//
// CVODE is driven one step at a time (CV_ONE_STEP) so that, after each successful step, reports
// due within the step are interpolated (CVodeGetDky) and then every force element's auto-update
// discrete variables are computed from the state at the end of the step and committed, exactly
// once per successful step and never on rejected trials. Scheduled discrete changes are applied
// at their exact times (CVODE's stop time), followed by a re-initialisation because the
// right-hand side jumps there.
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <cvode/cvode.h>
#include <cvode/cvode_proj.h>
#include <nvector/nvector_serial.h>
#include <sundials/sundials_types.h>
#include <sunlinsol/sunlinsol_dense.h>
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
  char cvmsg[CS_MAX_ERROR];// CVODE's last error message
} Run;


// ---------------------------------------------------------------------------------------------
// state vector <-> data

static void loadState(Run* run, sunrealtype t, const sunrealtype* y) {
  csData* d = run->d;
  d->t = t;
  memcpy(d->q, y, sizeof(double) * (size_t)d->nq);
  memcpy(d->u, y + d->nq, sizeof(double) * (size_t)d->nu);
  memcpy(d->z, y + d->nq + d->nu, sizeof(double) * (size_t)d->nz);
  cs_invalidate(d);
}


static void storeState(const csData* d, sunrealtype* y) {
  memcpy(y, d->q, sizeof(double) * (size_t)d->nq);
  memcpy(y + d->nq, d->u, sizeof(double) * (size_t)d->nu);
  memcpy(y + d->nq + d->nu, d->z, sizeof(double) * (size_t)d->nz);
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
  memcpy(f, d->qdot, sizeof(double) * (size_t)d->nq);
  memcpy(f + d->nq, d->udot, sizeof(double) * (size_t)d->nu);
  memcpy(f + d->nq + d->nu, d->zdot, sizeof(double) * (size_t)d->nz);
  for (int i = d->nq + d->nu + d->nz; i < run->nstate; i++) {
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
    sunrealtype* q = y + body->qadr;
    double n = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    if (!(n > 0.5 && n < 2)) {
      return 1;  // far off the sphere: retry with a smaller step
    }
    for (int i = 0; i < 4; i++) {
      double qi = q[i] / n;
      c[body->qadr + i] = qi - q[i];
      q[i] = qi;
    }
    if (e) {
      sunrealtype* eq = e + body->qadr;
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
  run.nstate = m->nq + m->nu + m->nz;
  if (run.nstate == 0) {
    run.nstate = 1;
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
  storeState(d, N_VGetArrayPointer(y));
  N_VConst(opt->atol, atolv);
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
    A = SUNDenseMatrix(run.nstate, run.nstate, ctx);
    LS = A ? SUNLinSol_Dense(y, A, ctx) : NULL;
    if (!LS) {
      cs_setError(err, CS_ERR_MEMORY, "", "out of memory creating the dense linear solver");
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
    if (changed && t > t0 &&
        check(CVodeReInit(mem, t, y), "CVodeReInit", &run, err)) {
      status = CS_ERR_SOLVER;
      goto cleanup;
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
    cs_commitAutoUpdates(m, d);
    if (rep && rep->progress) {
      rep->progress(rep->ctx, t - t0, opt->duration);
    }
  }
  loadState(&run, t, N_VGetArrayPointer(y));

cleanup:
  // 4. statistics, then free in reverse order of creation
  if (mem) {
    long v;
    sunrealtype h;
    if (CVodeGetNumSteps(mem, &v) == CV_SUCCESS) d->stat.nsteps = v;
    if (CVodeGetNumRhsEvals(mem, &v) == CV_SUCCESS) d->stat.nrhs = v;
    if (CVodeGetNumErrTestFails(mem, &v) == CV_SUCCESS) d->stat.netf = v;
    if (CVodeGetNumNonlinSolvConvFails(mem, &v) == CV_SUCCESS) d->stat.nncf = v;
    if (CVodeGetLastStep(mem, &h) == CV_SUCCESS) d->stat.last_step = h;
    if (bdf && LS) {
      if (CVodeGetNumJacEvals(mem, &v) == CV_SUCCESS) d->stat.njac = v;
      if (CVodeGetNumLinRhsEvals(mem, &v) == CV_SUCCESS) d->stat.nrhs_jac = v;
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
  return status;
}
