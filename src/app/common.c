// common.c: what the commands share: the usage text, loading with clear errors, option parsing,
// one simulation with its statistics, the end-of-run summary and energy audit.
//
// run and compare share one simulation routine, cs_cliSimulate, so that the numbers a model
// gets in a comparison are the numbers `run` prints for it. Every error goes to stderr in one
// layout, FILE:LINE:COL: PATH: MESSAGE, that editors can jump to. The exit status separates bad
// input (2) from a simulation that failed (1), so that a script can tell a typo in a scene from
// a model that is too stiff to integrate.
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "app/common.h"


// the help text; keep it in step with docs/cli.md and the option tables of run and compare
void cs_cliUsage(FILE* f) {
  fprintf(f,
          "usage: contactsim COMMAND [OPTIONS]\n"
          "\n"
          "commands:\n"
          "  run SCENE.json       simulate a scene and write its trajectory as CSV\n"
          "  validate SCENE.json  load and check a scene without running it\n"
          "  compare SCENE.json   run a scene once per contact model and tabulate the results\n"
          "  replay SCENE.json CSV...  write a 3D replay page (HTML) of runs already made\n"
          "\n"
          "run options:\n"
          "  -o, --output FILE         CSV file to write (default: standard output)\n"
          "      --duration T          simulated time, s\n"
          "      --integrator NAME     bdf (default) or adams\n"
          "      --rtol R, --atol A    relative and absolute tolerances\n"
          "      --report-interval DT  time between CSV rows, s\n"
          "      --max-step H          largest step, s (0: unlimited)\n"
          "      --contact-model NAME  use this model for the scene's \"contacts\"\n"
          "      --forces              add per-contact columns (force, point, energy, power)\n"
          "      --stats FILE          write the run's statistics as JSON (a row of compare's)\n"
          "      --replay FILE.html    also write a 3D replay page of the run (with forces)\n"
          "  -q, --quiet               no summary or progress on standard error\n"
          "\n"
          "compare options:\n"
          "      --models a,b,...      models to run (default: every block the scene has)\n"
          "      --out-dir DIR         write each model's CSV, compare.csv and compare.json there\n"
          "      --format F            table (default), csv or json, on standard output\n"
          "      --duration T          simulated time, s\n"
          "      --rtol R, --atol A    relative and absolute tolerances\n"
          "      --convergence         also run each model at tolerances 100x tighter and\n"
          "                            from initial speeds changed by 1e-9, and compare\n"
          "      --replay              write DIR/replay.html showing every model (needs --out-dir)\n"
          "  -q, --quiet               no progress lines on standard error\n"
          "\n"
          "replay options:\n"
          "  -o, --output FILE.html    page to write (default: the first CSV's name, .html)\n"
          "      --contact-model NAME  the model the CSVs were written with (default: a CSV\n"
          "                            named after a model block is that model's, the\n"
          "                            others the scene's default)\n"
          "\n"
          "exit status: 0 success, 1 simulation failure, 2 bad input or usage\n");
}


// the parts of err that are not known (no file, no line, no JSON path) are left out rather
// than printed empty, so a message without a location still reads as a plain sentence
void cs_cliPrintError(const csError* err) {
  fprintf(stderr, "contactsim: error: ");
  if (err->file[0]) {
    fprintf(stderr, "%s", err->file);
    if (err->line > 0) {
      fprintf(stderr, ":%d:%d", err->line, err->column);
    }
    fprintf(stderr, ": ");
  }
  if (err->path[0]) {
    fprintf(stderr, "%s: ", err->path);
  }
  fprintf(stderr, "%s\n", err->message);
}


// shared by run and compare, so that an option is judged the same way in both
const char* cs_cliSceneArgument(int argc, char** argv, const char* command) {
  // exactly one positional argument: the scene; otherwise the help goes to stderr, since the
  // command line is what is wrong
  if (optind != argc - 1) {
    fprintf(stderr, "contactsim: error: %s takes exactly one scene file\n", command);
    cs_cliUsage(stderr);
    return NULL;
  }
  return argv[optind];
}


int cs_cliParseChoice(const char* text, const char* name, const char* const* names, int n) {
  for (int i = 0; i < n; i++) {
    if (strcmp(text, names[i]) == 0) {
      return i;
    }
  }
  // "--format must be table, csv or json, not 'x'"
  fprintf(stderr, "contactsim: error: --%s must be ", name);
  for (int i = 0; i < n; i++) {
    fprintf(stderr, "%s%s", names[i], i + 2 < n ? ", " : i + 1 < n ? " or " : "");
  }
  fprintf(stderr, ", not '%s'\n", text);
  return -1;
}


int cs_cliParseNumber(const char* text, const char* name, int allow_zero, double* out) {
  // strtod must consume the whole text: "1e-3x" and "" are usage errors, not 0.001 and 0; NaN
  // and infinity are refused as well, since no option means anything with them
  char* end = NULL;
  errno = 0;
  double v = strtod(text, &end);
  if (errno || end == text || *end || !isfinite(v) || v < 0 || (!allow_zero && v == 0)) {
    fprintf(stderr, "contactsim: error: --%s needs a %s number, not '%s'\n", name,
            allow_zero ? "non-negative" : "positive", text);
    return -1;
  }
  *out = v;
  return 0;
}


// a load error without a file (one that could not be opened, say) still names the path, so
// that every message starts with the scene it is about
csModel* cs_cliLoad(const char* path, const char* contact_model) {
  csLoadOptions lo = {.contact_model = contact_model};
  csError err;
  memset(&err, 0, sizeof(err));
  csModel* m = cs_loadScene(path, &lo, &err);
  if (!m) {
    if (!err.file[0]) {
      snprintf(err.file, sizeof(err.file), "%s", path);
    }
    cs_cliPrintError(&err);
  }
  return m;
}


// monotonic wall-clock seconds, used only to pace the progress bar, never for statistics
static double wallSeconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}


// what the reporter of a run needs
// (the reporter's ctx; it lives on the stack of cs_cliSimulate for the length of one run)
typedef struct RunOutput {
  csCliRun* run;          // the run being simulated (its track is filled here)
  csMetrics* metrics;
  FILE* csv;              // nullable
  const csCsvOptions* csv_opt;
  int progress;           // draw a progress bar on stderr
  double wall0, last_draw;
  int drawn;
} RunOutput;


// report callback: one CSV row when there is a CSV, and the report-time statistics (energy
// balance); a nonzero return stops the run with an I/O error
static int writeRow(void* ctx, const csModel* m, csData* d) {
  RunOutput* out = ctx;
  int r = out->csv ? cs_csvRow(out->csv, m, d, out->csv_opt) : 0;
  cs_metricsReport(out->metrics, m, d);
  // the body origins, for a convergence check that compares runs report by report
  csCliRun* run = out->run;
  if (run->track && run->track_used < run->track_rows) {
    double* row = run->track + run->track_used++ * (1 + 3 * (m->nbody - 1));
    row[0] = d->t;
    for (int b = 1; b < m->nbody; b++) {
      csu_vec3ToArray(row + 1 + 3 * (b - 1), d->body_pose[b].p);
    }
  }
  return r;
}


// step callback: the per-step contact statistics (peaks, sliding, drift while stuck)
static void sampleStep(void* ctx, const csModel* m, csData* d) {
  RunOutput* out = ctx;
  cs_metricsStep(out->metrics, m, d);
}


// a bar, drawn only for runs that take longer than half a second of wall time
static void drawProgress(void* ctx, double t, double duration) {
  RunOutput* out = ctx;
  if (!out->progress) {
    return;
  }
  // the half-second grace keeps short runs (and tests) free of bar output; redrawing at most
  // every 0.1 s keeps terminal traffic small for runs of millions of steps
  double now = wallSeconds();
  if (now - out->wall0 < 0.5 || now - out->last_draw < 0.1) {
    return;
  }
  out->last_draw = now;
  int width = 40, filled = (int)(width * t / duration);
  // a carriage return without a newline: each draw overwrites the previous one
  fprintf(stderr, "\r[%.*s%*s] %5.1f%%  t = %.4g s", filled,
          "########################################", width - filled, "", 100 * t / duration, t);
  out->drawn = 1;
}


// the layout of cs_cliPrintError, into a buffer for the JSON, CSV and table outputs; each part
// is appended only while there is room, and snprintf truncates the last one
void cs_cliFormatError(const csError* err, char* buf, size_t size) {
  size_t len = 0;
  int n;
  buf[0] = '\0';
  if (err->file[0]) {
    n = err->line > 0 ? snprintf(buf, size, "%s:%d:%d: ", err->file, err->line, err->column)
                      : snprintf(buf, size, "%s: ", err->file);
    len = n > 0 ? (size_t)n : 0;
  }
  if (err->path[0] && len < size) {
    n = snprintf(buf + len, size - len, "%s: ", err->path);
    len += n > 0 ? (size_t)n : 0;
  }
  if (len < size) {
    snprintf(buf + len, size - len, "%s", err->message);
  }
}


// The statistics are fed by the reporter's step and report callbacks rather than computed from
// the CSV afterwards: the CSV is optional (compare may write none), and the step callback sees
// every step, where the CSV holds only the report times.
void cs_cliSimulate(csCliRun* r, FILE* csv, const csCsvOptions* csvopt, int progress) {
  // reset the outcome; the model and the options were set by the caller
  memset(&r->err, 0, sizeof(r->err));
  r->status = CS_OK;
  r->cpu_seconds = 0;
  r->track_used = 0;
  r->d = cs_makeData(r->m);
  // a perturbed initial state, before the statistics record the initial energy
  if (r->d && r->perturb_u != 0) {
    for (int i = 0; i < r->m->nu; i++) {
      r->d->u[i] += r->perturb_u;
    }
    cs_invalidate(r->d);
  }
  if (!r->d || cs_metricsInit(&r->metrics, r->m, r->d) != 0) {
    r->status = CS_ERR_MEMORY;
    snprintf(r->err.message, sizeof(r->err.message), "out of memory setting up the run");
  }
  // the reporter's context, on this stack frame for the whole run
  RunOutput out = {.run = r, .metrics = &r->metrics, .csv = csv, .csv_opt = csvopt,
                   .progress = progress, .wall0 = wallSeconds()};
  // the header goes out before the run, so that a run failing at its first step still leaves a
  // well-formed CSV
  if (r->status == CS_OK && csv && cs_csvHeader(csv, r->m, csvopt) != 0) {
    r->status = CS_ERR_IO;
  }
  // integrate; from here on any error is the integrator's (with the time it stopped at)
  if (r->status == CS_OK) {
    csReporter rep = {.report = writeRow, .step = sampleStep, .progress = drawProgress,
                      .ctx = &out};
    r->status = cs_simulate(r->m, r->d, &r->opt, &rep, &r->err);
  }
  // wipe the progress bar, so that what follows starts on a clean line
  if (out.drawn) {
    fprintf(stderr, "\r%*s\r", 70, "");
  }
  if (r->d) {
    // the state reached (for a failed run: the last one the integrator tried)
    // realized again, so that the final statistics do not depend on the stage the integrator
    // left the data in
    cs_realizeDynamics(r->m, r->d);
    cs_metricsFinish(&r->metrics, r->m, r->d);
    r->cpu_seconds = r->d->stat.cpu_seconds;
  }
  // a failure names the scene file, like a load error
  if (r->status != CS_OK && !r->err.file[0]) {
    snprintf(r->err.file, sizeof(r->err.file), "%s", r->m->file);
  }
}


// the delete functions accept NULL, so a run that never got data is freed the same way;
// the pointers are cleared so that a second call is harmless
void cs_cliFreeRun(csCliRun* r) {
  cs_metricsFree(&r->metrics);
  cs_deleteData(r->d);
  cs_deleteModel(r->m);
  free(r->track);
  r->d = NULL;
  r->m = NULL;
  r->track = NULL;
}


// Adams needs no linear solver (fixed-point iteration); BDF reports the solver the run used,
// and a run without data reports dense, what the automatic choice starts from
const char* cs_cliLinearSolverName(const csCliRun* r) {
  if (r->opt.integrator != CS_INTEGRATOR_BDF) {
    return "none";
  }
  switch (r->d ? r->d->stat.linsol : CS_LINSOL_AUTO) {
    case CS_LINSOL_BAND: return "band";
    case CS_LINSOL_GMRES: return "gmres";
    default: return "dense";
  }
}


// the contact lines of the summary: penetration, normal forces, sliding
static void contactSummary(const csCliRun* r) {
  const csMetrics* mt = &r->metrics;
  const csModel* m = r->m;
  // a scene without contact elements gets no contact lines at all
  if (mt->ncontact == 0) {
    return;
  }
  // where the deepest penetration and the largest normal forces were
  int deepest = 0, strongest = 0, strongestSet = -1;
  for (int i = 1; i < mt->ncontact; i++) {
    if (mt->contact[i].max_penetration > mt->contact[deepest].max_penetration) {
      deepest = i;
    }
    if (mt->contact[i].peak_fn > mt->contact[strongest].peak_fn) {
      strongest = i;
    }
  }
  for (int s = 0; s < mt->nset; s++) {
    if (strongestSet < 0 || mt->set_peak[s] > mt->set_peak[strongestSet]) {
      strongestSet = s;
    }
  }
  // the peak is given per contact set when there are sets: the corners of a foot share the load,
  // and their sum is what compares with the body's weight; the largest single element is printed
  // beside it
  fprintf(stderr, "  contacts (%s): max penetration %.4g m (%s); peak normal force %.4g N",
          r->model, mt->max_penetration, m->force[mt->contact[deepest].force].name,
          mt->peak_normal_force);
  if (strongestSet >= 0) {
    fprintf(stderr, " (sum over contact set %s), %.4g N on one element (%s)",
            m->group_name[strongestSet], mt->contact[strongest].peak_fn,
            m->force[mt->contact[strongest].force].name);
  } else {
    fprintf(stderr, " (%s)", m->force[mt->contact[strongest].force].name);
  }
  // sliding and drift while stuck (defined in metrics.h), then the worst energy balance seen
  fprintf(stderr, "\n  sliding %.4g m in total, %.4g m of it while stuck (%ld of %ld steps with "
                  "a mean slip speed below %.3g m/s); energy balance error %.3g (max over "
                  "reports, relative)\n",
          mt->sliding_distance, mt->stuck_drift, mt->nstuck, mt->nsteps, mt->stick_speed,
          mt->energy_error);
}


// what the run cost (CPU time, solver counters), where the energy went, and what looked wrong;
// all on stderr, so that the CSV on stdout stays clean
void cs_cliSummary(const csCliRun* r) {
  const csModel* m = r->m;
  const csData* d = r->d;
  const csStats* s = &d->stat;
  double simulated = d->t;
  fprintf(stderr, "contactsim: %s: %s at t = %.6g s; %.4g s CPU for the integration",
          m->name, r->status == CS_OK ? "finished" : "stopped", simulated, r->cpu_seconds);
  // the cost per simulated second is the figure that compares runs of different lengths
  if (simulated > 0) {
    fprintf(stderr, " (%.4g CPU s per simulated s)", r->cpu_seconds / simulated);
  }
  // the integrator's counters; the last step size shows how short the steps had become at the end
  fprintf(stderr, "\n  steps %ld, RHS evaluations %ld (+%ld for Jacobians), Jacobians %ld, "
                  "error-test failures %ld, nonlinear failures %ld, last step %.3g s, "
                  "linear solver %s\n",
          s->nsteps, s->nrhs, s->nrhs_jac, s->njac, s->netf, s->nncf, s->last_step,
          cs_cliLinearSolverName(r));
  // energy audit: KE + PE + dissipated should keep its initial value; the scale guards the
  // relative figure against a total of zero (a body at rest at the zero of its potential)
  double e0 = r->metrics.e0;
  double ke = cs_kineticEnergy(m, d), pe = cs_potentialEnergy(m, d);
  double w = cs_dissipatedEnergy(m, d);
  double drift = ke + pe + w - e0;
  double scale = fmax(fmax(fabs(e0), fabs(ke) + fabs(pe)), 1e-300);
  fprintf(stderr, "  energy: KE %.6g J, PE %.6g J, dissipated %.6g J; KE+PE+dissipated drifted "
                  "%.3g J (%.2g relative) since the start\n",
          ke, pe, w, drift, drift / scale);
  contactSummary(r);
  // exponential springs break the balance by design (their anchors jump between steps): say so,
  // rather than let the drift look like a fault of the integration
  int hasExp = 0;
  for (int e = 0; e < m->nforce; e++) {
    hasExp |= m->force[e].kind == CS_FORCE_EXP_SPRING;
  }
  if (hasExp) {
    fprintf(stderr, "  note: exponential springs move their friction anchors between steps; the "
                    "elastic energy that such a move releases is not counted as dissipated, so "
                    "sliding shows up as drift\n");
  }
  // diagnostics from the statistics, then the integrator's own warnings
  for (int i = 0; i < r->metrics.nnotes; i++) {
    fprintf(stderr, "  warning: %s\n", r->metrics.notes[i]);
  }
  if (s->warnings_nonfinite) {
    fprintf(stderr, "  warning: %ld right-hand-side evaluations produced non-finite values and "
                    "were retried with smaller steps\n", s->warnings_nonfinite);
  }
  if (s->warnings_bushing) {
    fprintf(stderr, "  warning: a linear bushing's middle Euler angle came within reach of 90 "
                    "degrees %ld times: its rotational forces are unreliable there; align the "
                    "bushing frames so that the rotation stays away from that angle\n",
            s->warnings_bushing);
  }
}


// how far a run got, s; 0 when it never got data (out of memory)
double cs_cliSimulatedTime(const csCliRun* r) {
  return r->d ? r->d->t : 0.0;
}
