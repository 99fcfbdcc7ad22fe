// cli.c: `contactsim run` and `contactsim validate`, and what the commands share (loading with
// clear errors, option parsing, the end-of-run summary and energy audit).
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"


void cs_cliUsage(FILE* f) {
  fprintf(f,
          "usage: contactsim COMMAND [OPTIONS]\n"
          "\n"
          "commands:\n"
          "  run SCENE.json       simulate a scene and write its trajectory as CSV\n"
          "  validate SCENE.json  load and check a scene without running it\n"
          "  compare SCENE.json   run a scene once per contact model and tabulate the results\n"
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
          "  -q, --quiet               no summary or progress on standard error\n"
          "\n"
          "compare options:\n"
          "      --models a,b,...      models to run (default: every block the scene has)\n"
          "      --out-dir DIR         write each model's CSV and the table there\n"
          "      --format F            table (default), csv or json\n"
          "\n"
          "exit status: 0 success, 1 simulation failure, 2 bad input or usage\n");
}


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


int cs_cliParseNumber(const char* text, const char* name, int allow_zero, double* out) {
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


static double wallSeconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}


// what the run command's reporter needs
typedef struct RunOutput {
  FILE* csv;
  csCsvOptions csv_opt;
  int progress;           // draw a progress bar on stderr
  double wall0, last_draw;
  int drawn;
} RunOutput;


static int writeRow(void* ctx, const csModel* m, csData* d) {
  RunOutput* out = ctx;
  return out->csv ? cs_csvRow(out->csv, m, d, &out->csv_opt) : 0;
}


// a bar, drawn only for runs that take longer than half a second of wall time
static void drawProgress(void* ctx, double t, double duration) {
  RunOutput* out = ctx;
  double now = wallSeconds();
  if (!out->progress || now - out->wall0 < 0.5 || now - out->last_draw < 0.1) {
    return;
  }
  out->last_draw = now;
  int width = 40, filled = (int)(width * t / duration);
  fprintf(stderr, "\r[%.*s%*s] %5.1f%%  t = %.4g s", filled,
          "########################################", width - filled, "", 100 * t / duration, t);
  out->drawn = 1;
}


void cs_cliSummary(const csModel* m, const csData* d, double e0, int status) {
  const csStats* s = &d->stat;
  double simulated = d->t;
  fprintf(stderr, "contactsim: %s: %s at t = %.6g s; %.4g s CPU for the integration",
          m->name, status == CS_OK ? "finished" : "stopped", simulated, s->cpu_seconds);
  if (simulated > 0) {
    fprintf(stderr, " (%.4g CPU s per simulated s)", s->cpu_seconds / simulated);
  }
  fprintf(stderr, "\n  steps %ld, RHS evaluations %ld (+%ld for Jacobians), Jacobians %ld, "
                  "error-test failures %ld, nonlinear failures %ld, last step %.3g s\n",
          s->nsteps, s->nrhs, s->nrhs_jac, s->njac, s->netf, s->nncf, s->last_step);
  double ke = cs_kineticEnergy(m, d), pe = cs_potentialEnergy(m, d);
  double w = cs_dissipatedEnergy(m, d);
  double drift = ke + pe + w - e0;
  double scale = fmax(fmax(fabs(e0), fabs(ke) + fabs(pe)), 1e-300);
  fprintf(stderr, "  energy: KE %.6g J, PE %.6g J, dissipated %.6g J; KE+PE+dissipated drifted "
                  "%.3g J (%.2g relative) since the start\n",
          ke, pe, w, drift, drift / scale);
  int hasExp = 0;
  for (int e = 0; e < m->nforce; e++) {
    hasExp |= m->force[e].kind == CS_FORCE_EXP_SPRING;
  }
  if (hasExp) {
    fprintf(stderr, "  note: exponential springs move their friction anchors between steps; the "
                    "elastic energy that such a move releases is not counted as dissipated, so "
                    "sliding shows up as drift\n");
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


int cs_cliRun(int argc, char** argv) {
  static const struct option longopts[] = {
      {"output", required_argument, NULL, 'o'},
      {"duration", required_argument, NULL, 'd'},
      {"integrator", required_argument, NULL, 'i'},
      {"rtol", required_argument, NULL, 'r'},
      {"atol", required_argument, NULL, 'a'},
      {"report-interval", required_argument, NULL, 'p'},
      {"max-step", required_argument, NULL, 'm'},
      {"contact-model", required_argument, NULL, 'c'},
      {"forces", no_argument, NULL, 'f'},
      {"quiet", no_argument, NULL, 'q'},
      {"help", no_argument, NULL, 'h'},
      {NULL, 0, NULL, 0},
  };
  const char* output = NULL;
  const char* contact_model = NULL;
  int quiet = 0, forces = 0;
  double duration = -1, rtol = -1, atol = -1, interval = -1, max_step = -1;
  int integrator = -1;
  int c;
  optind = 1;
  while ((c = getopt_long(argc, argv, "o:qh", longopts, NULL)) != -1) {
    int bad = 0;
    switch (c) {
      case 'o': output = optarg; break;
      case 'd': bad = cs_cliParseNumber(optarg, "duration", 0, &duration); break;
      case 'r': bad = cs_cliParseNumber(optarg, "rtol", 0, &rtol); break;
      case 'a': bad = cs_cliParseNumber(optarg, "atol", 0, &atol); break;
      case 'p': bad = cs_cliParseNumber(optarg, "report-interval", 0, &interval); break;
      case 'm': bad = cs_cliParseNumber(optarg, "max-step", 1, &max_step); break;
      case 'c': contact_model = optarg; break;
      case 'f': forces = 1; break;
      case 'q': quiet = 1; break;
      case 'i':
        if (strcmp(optarg, "bdf") == 0) {
          integrator = CS_INTEGRATOR_BDF;
        } else if (strcmp(optarg, "adams") == 0) {
          integrator = CS_INTEGRATOR_ADAMS;
        } else {
          fprintf(stderr, "contactsim: error: --integrator must be bdf or adams, not '%s'\n",
                  optarg);
          bad = 1;
        }
        break;
      case 'h': cs_cliUsage(stdout); return CS_EXIT_OK;
      default: bad = 1; break;
    }
    if (bad) {
      return CS_EXIT_USAGE;
    }
  }
  if (optind != argc - 1) {
    fprintf(stderr, "contactsim: error: run takes exactly one scene file\n");
    cs_cliUsage(stderr);
    return CS_EXIT_USAGE;
  }
  csModel* m = cs_cliLoad(argv[optind], contact_model);
  if (!m) {
    return CS_EXIT_USAGE;
  }
  // command-line options override the scene's
  csSimOptions opt = m->opt;
  if (duration > 0) opt.duration = duration;
  if (rtol > 0) opt.rtol = rtol;
  if (atol > 0) opt.atol = atol;
  if (interval > 0) opt.report_interval = interval;
  if (max_step >= 0) opt.max_step = max_step;
  if (integrator >= 0) opt.integrator = (csIntegratorType)integrator;

  RunOutput out = {.csv_opt = {.forces = forces}};
  out.progress = !quiet && isatty(STDERR_FILENO);
  out.wall0 = wallSeconds();
  out.csv = output ? fopen(output, "w") : stdout;
  if (!out.csv) {
    fprintf(stderr, "contactsim: error: cannot write %s: %s\n", output, strerror(errno));
    cs_deleteModel(m);
    return CS_EXIT_USAGE;
  }
  csData* d = cs_makeData(m);
  int status = CS_ERR_MEMORY;
  csError err;
  memset(&err, 0, sizeof(err));
  double e0 = 0;
  if (d) {
    cs_realizeDynamics(m, d);
    e0 = cs_kineticEnergy(m, d) + cs_potentialEnergy(m, d) + cs_dissipatedEnergy(m, d);
    status = cs_csvHeader(out.csv, m, &out.csv_opt) == 0 ? CS_OK : CS_ERR_IO;
    if (status == CS_OK) {
      csReporter rep = {.report = writeRow, .progress = drawProgress, .ctx = &out};
      status = cs_simulate(m, d, &opt, &rep, &err);
    }
  }
  if (out.drawn) {
    fprintf(stderr, "\r%*s\r", 70, "");
  }
  // every row written so far stays valid: rows are whole lines, flushed before we report
  int closed = output ? fclose(out.csv) : fflush(out.csv);
  if (closed != 0 && status == CS_OK) {
    status = CS_ERR_IO;
  }
  if (status != CS_OK) {
    if (!err.file[0]) {
      snprintf(err.file, sizeof(err.file), "%s", argv[optind]);
    }
    if (status == CS_ERR_IO && !err.message[0]) {
      snprintf(err.message, sizeof(err.message), "could not write %s",
               output ? output : "standard output");
    }
    cs_cliPrintError(&err);
  }
  if (d && !quiet) {
    cs_cliSummary(m, d, e0, status);
  }
  cs_deleteData(d);
  cs_deleteModel(m);
  return status == CS_OK ? CS_EXIT_OK : status == CS_ERR_INPUT ? CS_EXIT_USAGE : CS_EXIT_FAILURE;
}


int cs_cliValidate(int argc, char** argv) {
  static const struct option longopts[] = {
      {"contact-model", required_argument, NULL, 'c'},
      {"help", no_argument, NULL, 'h'},
      {NULL, 0, NULL, 0},
  };
  const char* contact_model = NULL;
  int c;
  optind = 1;
  while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
    if (c == 'c') {
      contact_model = optarg;
    } else if (c == 'h') {
      cs_cliUsage(stdout);
      return CS_EXIT_OK;
    } else {
      return CS_EXIT_USAGE;
    }
  }
  if (optind != argc - 1) {
    fprintf(stderr, "contactsim: error: validate takes exactly one scene file\n");
    return CS_EXIT_USAGE;
  }
  csModel* m = cs_cliLoad(argv[optind], contact_model);
  if (!m) {
    return CS_EXIT_USAGE;
  }
  printf("%s: ok: %d bodies, %d coordinates, %d speeds, %d force elements, %d planes\n",
         argv[optind], m->nbody - 1, m->nq, m->nu, m->nforce, m->nplane);
  cs_deleteModel(m);
  return CS_EXIT_OK;
}
