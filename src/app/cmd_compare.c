// cmd_compare.c: `contactsim compare`: run one scene once per contact model, from the same contact
// geometry and initial state, and tabulate cost and contact statistics side by side (table, CSV
// or JSON).
//
// Every model's scene is loaded before anything runs, so that a bad parameter block is reported
// as bad input (exit 2) without half a comparison. A model whose run fails is reported as failed
// and the others still run (exit 1). Every number except the CPU times is a function of the
// scene and the binary alone, so two comparisons print the same numbers.
//
// The runs go one after the other in this process rather than in parallel: CPU time is one of
// the compared figures, and runs competing for the cores would distort it. Each model gets a
// csModel of its own, loaded from the scene with that model chosen, rather than one model whose
// contact elements are swapped between runs: a model is immutable during a run, and the loader
// is the one place that builds contact elements from a parameter block and checks them.
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "app/common.h"
#include "app/replay.h"
#include "io/replace_file.h"
#include "io/study_load.h"

// most models one comparison runs (more than there are contact kinds)
#define MAX_MODELS 32

// what standard output gets; an output directory always gets both the CSV and the JSON
typedef enum Format { FORMAT_TABLE = 0, FORMAT_CSV, FORMAT_JSON } Format;


// ---------------------------------------------------------------------------------------------
// CSV and the text table share their cells

// the free bodies of a model (every model of a comparison has the same bodies)
static int isFree(const csModel* m, int b) {
  return m->body[b].joint == CS_JOINT_FREE;
}


// a CSV field, quoted only when it must be (RFC 4180): when it holds a comma, a quote or a
// line break (a carriage return too: readers end a row at a bare CR, and a message may quote a
// file name holding one); quotes inside are doubled
static void csvString(FILE* f, const char* s) {
  if (!strpbrk(s, ",\"\r\n")) {
    fputs(s, f);
    return;
  }
  fputc('"', f);
  for (const char* p = s; *p; p++) {
    if (*p == '"') {
      fputc('"', f);
    }
    fputc(*p, f);
  }
  fputc('"', f);
}


// a separator and a number in full precision; a non-finite value leaves the cell empty, which
// spreadsheets and CSV readers take as missing
static void csvNumber(FILE* f, double x) {
  fputc(',', f);
  if (isfinite(x)) {
    fprintf(f, "%.17g", x);
  }
}


// one row per run. The free-body columns come from the first model: every model of a comparison
// is loaded from the same scene and so has the same bodies
static int writeCsv(FILE* f, const csCliRun* runs, int nrun) {
  const csModel* m0 = runs[0].m;
  // header: fixed columns, seven pose columns per free body, then the text columns last, since
  // they may be long and hold commas
  fputs("model,status,cpu_seconds,cpu_per_sim_second,simulated,steps,rhs_evals,"
        "rhs_evals_jacobian,rhs_total,error_test_failures,linear_solver,max_penetration,"
        "peak_normal_force",
        f);
  for (int b = 1; b < m0->nbody; b++) {
    if (isFree(m0, b)) {
      const char* n = m0->body[b].name;
      fprintf(f, ",%s.px,%s.py,%s.pz,%s.qw,%s.qx,%s.qy,%s.qz", n, n, n, n, n, n, n);
    }
  }
  fputs(",sliding_distance,stuck_drift,energy_error", f);
  // the convergence columns only when the check was asked for (every run then has a factor)
  int checked = runs[0].convergence.factor > 0;
  for (int k = 0; checked && k < CS_CLI_NCONVERGENCE; k++) {
    fprintf(f, ",%s", cs_cliConvergenceKeys[k]);
  }
  fputs(",error,diagnostics\n", f);
  for (int i = 0; i < nrun; i++) {
    // a row; every run has data here, since the caller writes nothing when a run has none
    const csCliRun* r = &runs[i];
    const csStats* s = &r->d->stat;
    double simulated = cs_cliSimulatedTime(r);
    csvString(f, r->model);
    fprintf(f, ",%s", cs_cliStatusName(r));
    csvNumber(f, r->cpu_seconds);
    csvNumber(f, simulated > 0 ? r->cpu_seconds / simulated : NAN);
    csvNumber(f, simulated);
    // solver counters as in the JSON; rhs_total includes the evaluations made for Jacobians
    fprintf(f, ",%ld,%ld,%ld,%ld,%ld,%s", s->nsteps, s->nrhs, s->nrhs_jac, s->nrhs + s->nrhs_jac,
            s->netf, cs_cliLinearSolverName(r));
    csvNumber(f, r->metrics.max_penetration);
    csvNumber(f, r->metrics.peak_normal_force);
    // the final pose of each free body: position, then quaternion (w, x, y, z), in Ground
    for (int b = 1; b < r->m->nbody; b++) {
      if (isFree(r->m, b)) {
        const csTransform* X = &r->d->body_pose[b];
        csQuat q = csu_matToQuat(&X->R);
        double v[7] = {X->p.x, X->p.y, X->p.z, q.w, q.x, q.y, q.z};
        for (int k = 0; k < 7; k++) {
          csvNumber(f, v[k]);
        }
      }
    }
    // sliding, drift while stuck and the energy balance, as in the JSON
    csvNumber(f, r->metrics.sliding_distance);
    csvNumber(f, r->metrics.stuck_drift);
    csvNumber(f, r->metrics.energy_error);
    // empty cells where the check did not run
    if (checked) {
      double v[CS_CLI_NCONVERGENCE];
      cs_cliConvergenceValues(&r->convergence, v);
      for (int k = 0; k < CS_CLI_NCONVERGENCE; k++) {
        csvNumber(f, r->convergence.done ? v[k] : NAN);
      }
    }
    // the error cell, empty for a run that finished
    fputc(',', f);
    if (r->status != CS_OK) {
      char msg[CS_MAX_ERROR_LINE];
      cs_cliFormatError(&r->err, msg, sizeof(msg));
      csvString(f, msg);
    }
    fputc(',', f);
    // the diagnostics joined into one cell
    char notes[CS_METRICS_JOINED_LEN];
    cs_metricsJoinNotes(&r->metrics, notes, sizeof(notes));
    csvString(f, notes);
    fputc('\n', f);
  }
  return ferror(f) ? -1 : 0;
}


// The text table: one row per model, columns sized to their widest cell, made to fit a terminal
// of TABLE_WIDTH columns. It holds the figures a choice between models turns on, in compact
// formats (three significant digits, short exponents); every other number (solver counters,
// final poses, per-set peaks) and full precision are in the CSV and the JSON.
enum { TABLE_MAXCOLS = 12, TABLE_CELL = 64, TABLE_WIDTH = 100, TABLE_MIN_MODEL = 12 };

// cells are fixed-size strings: the table is small (a row per model), and a cell longer than
// TABLE_CELL is cut rather than allowed to widen the layout
typedef struct Table {
  int ncol, nrow;
  char head[TABLE_MAXCOLS][TABLE_CELL];
  char (*cell)[TABLE_MAXCOLS][TABLE_CELL];   // (nrow) rows
  int right[TABLE_MAXCOLS];                  // 1: numbers, aligned right
} Table;


// add a column; columns past TABLE_MAXCOLS are dropped (the CSV and the JSON have them all)
static void tableColumn(Table* t, const char* head, int right) {
  if (t->ncol < TABLE_MAXCOLS) {
    snprintf(t->head[t->ncol], TABLE_CELL, "%s", head);
    t->right[t->ncol++] = right;
  }
}


// format one cell; cells of dropped columns are ignored
__attribute__((format(printf, 4, 5))) static void tableCell(Table* t, int row, int col,
                                                            const char* fmt, ...) {
  if (col < TABLE_MAXCOLS) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(t->cell[row][col], TABLE_CELL, fmt, ap);
    va_end(ap);
  }
}


// a number in three significant digits with a short exponent ("1.2e-5", not "1.2e-05"; "2e3",
// not "2e+03"), "-" when it is not finite: at most 8 characters
static void tableNumber(Table* t, int row, int col, double x) {
  char buf[32];
  if (!isfinite(x)) {
    tableCell(t, row, col, "-");
    return;
  }
  // below 0.01 the exponent form is the shorter one ("4.28e-4", not "0.000428")
  int small = x != 0 && fabs(x) < 1e-2;
  snprintf(buf, sizeof(buf), small ? "%.2e" : "%.3g", x);
  char* e = strchr(buf, 'e');
  if (e) {
    // drop the exponent's plus sign and leading zeros
    char* digits = e + 1 + (e[1] == '-' || e[1] == '+');
    char* first = digits;
    while (*first == '0' && first[1]) {
      first++;
    }
    memmove(digits, first, strlen(first) + 1);
    if (e[1] == '+') {
      memmove(e + 1, e + 2, strlen(e + 2) + 1);
    }
  }
  tableCell(t, row, col, "%s", buf);
}


// a name cut to width columns (counting UTF-8 characters), marked with "~" when cut
static void cutName(char* cell, int width) {
  const unsigned char* p = (const unsigned char*)cell;
  int chars = 0;
  size_t at = 0;
  for (size_t i = 0; p[i]; chars++) {
    if (chars == width - 1) {
      at = i;
    }
    int n = csu_utf8Length(p + i);
    i += n > 0 ? (size_t)n : 1;
  }
  if (chars > width) {
    snprintf(cell + at, TABLE_CELL - at, "~");
  }
}


// display width of a cell: UTF-8 characters, not bytes (the cells are made safe first)
static int cellWidth(const char* s) {
  int w = 0;
  for (const unsigned char* p = (const unsigned char*)s; *p; p++) {
    w += (*p & 0xc0) != 0x80;
  }
  return w;
}


// the comparison for people, on standard output: a title line, the aligned table, then the
// failures and the diagnostics as text below it
static int writeTable(FILE* f, const char* scene, const char* path, const csCliRun* runs,
                      int nrun) {
  // one row per run, allocated here since only the caller knows how many models there are
  Table t;
  memset(&t, 0, sizeof(t));
  t.nrow = nrun;
  t.cell = calloc((size_t)nrun, sizeof(*t.cell));
  if (!t.cell) {
    return -1;
  }
  // the model, what it cost, what it did at the contacts, how well energy balanced, and whether
  // it finished (docs/cli.md, "The table")
  tableColumn(&t, "model", 0);
  tableColumn(&t, "cpu_s", 1);
  tableColumn(&t, "steps", 1);
  tableColumn(&t, "pen_m", 1);
  tableColumn(&t, "peak_N", 1);
  tableColumn(&t, "slip_m", 1);
  tableColumn(&t, "drift_m", 1);
  tableColumn(&t, "E_err", 1);
  int checked = runs[0].convergence.factor > 0;
  if (checked) {
    tableColumn(&t, "tight_m", 1);
  }
  tableColumn(&t, "status", 0);
  for (int i = 0; i < nrun; i++) {
    const csCliRun* r = &runs[i];
    int c = 0;
    tableCell(&t, i, c++, "%s", cs_cliSafe(r->model));
    tableNumber(&t, i, c++, r->cpu_seconds);
    tableCell(&t, i, c++, "%ld", r->d->stat.nsteps);
    tableNumber(&t, i, c++, r->metrics.max_penetration);
    tableNumber(&t, i, c++, r->metrics.peak_normal_force);
    tableNumber(&t, i, c++, r->metrics.sliding_distance);
    tableNumber(&t, i, c++, r->metrics.stuck_drift);
    tableNumber(&t, i, c++, r->metrics.energy_error);
    if (checked) {
      tableNumber(&t, i, c++, r->convergence.done ? r->convergence.tighter_max : NAN);
    }
    tableCell(&t, i, c++, "%s", r->status == CS_OK        ? "ok"
                                : r->status == CS_STOPPED ? "STOPPED"
                                                          : "FAILED");
  }
  // widths; when the row is wider than the terminal, the model names give way (down to
  // TABLE_MIN_MODEL characters)
  int width[TABLE_MAXCOLS], total = 0;
  for (int c = 0; c < t.ncol; c++) {
    width[c] = cellWidth(t.head[c]);
    for (int i = 0; i < nrun; i++) {
      int w = cellWidth(t.cell[i][c]);
      width[c] = w > width[c] ? w : width[c];
    }
    total += width[c] + (c ? 2 : 0);
  }
  if (total > TABLE_WIDTH && width[0] > TABLE_MIN_MODEL) {
    int w = width[0] - (total - TABLE_WIDTH);
    width[0] = w > TABLE_MIN_MODEL ? w : TABLE_MIN_MODEL;
    for (int i = 0; i < nrun; i++) {
      cutName(t.cell[i][0], width[0]);
    }
  }
  // the title gives the scene and the simulated duration, the same for every run
  double duration = runs[0].opt.duration;
  fprintf(f, "scene %s (%s): %d model%s, %.6g s each\n\n", cs_cliSafe(scene),
          cs_cliSafe(cs_cliSceneName(path)),
          nrun, nrun == 1 ? "" : "s", duration);
  // text aligned left, numbers right, padded by display width (names may be UTF-8)
  for (int i = -1; i < nrun; i++) {
    for (int c = 0; c < t.ncol; c++) {
      const char* text = i < 0 ? t.head[c] : t.cell[i][c];
      int pad = width[c] - cellWidth(text);
      pad = pad > 0 ? pad : 0;
      // the last column is left-aligned text: no trailing spaces
      int last = c + 1 == t.ncol;
      fprintf(f, "%s%*s%s%*s", c ? "  " : "", t.right[c] ? pad : 0, "", text,
              t.right[c] || last ? 0 : pad, "");
    }
    fputc('\n', f);
  }
  // the cells are done with; what follows is plain text
  free(t.cell);
  // failures and diagnostics below the table
  int header = 0;
  for (int i = 0; i < nrun; i++) {
    if (runs[i].status != CS_OK) {
      char msg[CS_MAX_ERROR_LINE];
      cs_cliFormatError(&runs[i].err, msg, sizeof(msg));
      fprintf(f, "%s  %s: %s at t = %.6g s: %s\n",
              header++ ? "" : "\nfailures:\n", cs_cliSafe(runs[i].model),
              runs[i].status == CS_STOPPED ? "interrupted" : "failed",
              cs_cliSimulatedTime(&runs[i]), cs_cliSafe(msg));
    }
  }
  // then every diagnostic, prefixed with its model
  header = 0;
  for (int i = 0; i < nrun; i++) {
    for (int k = 0; k < runs[i].metrics.nnotes; k++) {
      fprintf(f, "%s  %s: %s\n", header++ ? "" : "\nnotes:\n", cs_cliSafe(runs[i].model),
              cs_cliSafe(runs[i].metrics.notes[k]));
    }
  }
  // where the rest is
  fprintf(f, "\n(solver counters, final poses and full precision: --format csv or json)\n");
  return ferror(f) ? -1 : 0;
}


// ---------------------------------------------------------------------------------------------
// convergence check (--convergence)
//
// Is a model's answer on this scene a property of the scene, or of the tolerances? The run is
// repeated with tolerances CONVERGENCE_FACTOR times tighter; positions that move by more than
// CS_CLI_CONVERGENCE_DISTANCE mean the run is not converged. But some motions (a lightly damped
// block rocking on its edges) amplify any difference, however small, and no tolerance makes them
// reproducible: so the tighter run is repeated once more from initial speeds changed by
// CONVERGENCE_PERTURBATION, far below anything measurable. If that also moves the positions, the
// scene itself does not determine them, and the diagnostic says so instead of asking for tighter
// tolerances.

#define CONVERGENCE_FACTOR 100.0
#define CONVERGENCE_PERTURBATION 1e-9  // m/s or rad/s, added to every generalized speed
#define SENSITIVE_FRACTION 0.1          // perturbed distance / tighter distance for "sensitive"

// a track for every report r's options produce (the start, one per interval, the end); 0 or -1
static int allocTrack(csCliRun* r) {
  // a count too large for memory is refused before it can overflow the size computation
  double reports = cs_reportCount(0, r->opt.duration, r->opt.report_interval);
  size_t rowBytes = cs_cliTrackWidth(r->m) * sizeof(double);
  if (!(reports < 1e12) || (size_t)reports > SIZE_MAX / rowBytes) {
    return -1;
  }
  long rows = (long)reports;
  r->track = malloc((size_t)rows * rowBytes);
  r->track_rows = r->track ? rows : 0;
  return r->track ? 0 : -1;
}


// a and b report by report (same model and report times): the largest distance between the
// origins or the centres of mass of one body, over the run, at the last report, and the first
// time it exceeds CS_CLI_CONVERGENCE_DISTANCE (NAN if never)
static void compareTracks(const csCliRun* a, const csCliRun* b, double* largest, double* last,
                          double* horizon) {
  size_t w = cs_cliTrackWidth(a->m);
  long rows = a->track_used < b->track_used ? a->track_used : b->track_used;
  *largest = *last = 0;
  *horizon = NAN;
  for (long i = 0; i < rows; i++) {
    const double* ra = a->track + (size_t)i * w;
    const double* rb = b->track + (size_t)i * w;
    double worst = 0;
    for (size_t k = 1; k < w; k += 3) {
      worst = fmax(worst, csu_norm(csu_sub(csu_vec3FromArray(ra + k), csu_vec3FromArray(rb + k))));
    }
    *largest = fmax(*largest, worst);
    *last = worst;
    if (isnan(*horizon) && worst > CS_CLI_CONVERGENCE_DISTANCE) {
      *horizon = ra[0];
    }
  }
}


// tol / factor as the decimal number a user would type: 1e-5 / 100 is 1.0000000000000001e-07 in
// binary, one unit in the last place off 1e-7, and on a sensitive scene that is enough to make the
// check disagree with a run at --rtol 1e-7
static double tighten(double tol, double factor) {
  char text[32];
  snprintf(text, sizeof(text), "%.15g", tol / factor);
  return strtod(text, NULL);
}


// The two reruns of r (which finished, with its track), the distances, and the verdict as a
// diagnostic of r. The reruns borrow r's model, which no run writes, and write no CSV.
static void checkConvergence(csCliRun* r) {
  csCliConvergence* c = &r->convergence;
  csCliRun rerun[2];
  memset(rerun, 0, sizeof(rerun));
  static const char* const what[2] = {"tighter tolerances",
                                      "tighter tolerances and perturbed initial speeds"};
  int ok = 1;
  for (int k = 0; k < 2 && ok; k++) {
    csCliRun* x = &rerun[k];
    memcpy(x->model, r->model, sizeof(x->model));
    x->m = r->m;
    x->opt = r->opt;
    x->opt.rtol = tighten(r->opt.rtol, c->factor);
    x->opt.atol = tighten(r->opt.atol, c->factor);
    x->perturb_u = k ? c->perturbation : 0;
    if (allocTrack(x) != 0) {
      cs_metricsVerdict(&r->metrics, "the convergence check could not run: out of memory");
      ok = 0;
      break;
    }
    cs_cliSimulate(x, NULL, NULL, 0);
    c->cpu_seconds += x->cpu_seconds;
    if (x->status == CS_STOPPED) {
      // a stop signal is the user's, not the model's: the check was not made, and says so
      cs_metricsVerdict(&r->metrics,
                        "the convergence check was interrupted (%s) during the rerun "
                        "with %s; run compare --convergence again for its verdict",
                        cs_cliSignalName(cs_cliStopSignal), what[k]);
      ok = 0;
    } else if (x->status != CS_OK) {
      char msg[CS_MAX_ERROR_LINE];
      cs_cliFormatError(&x->err, msg, sizeof(msg));
      cs_metricsVerdict(&r->metrics,
                        "the convergence check could not run: the rerun with %s "
                        "failed: %s",
                        what[k], msg);
      ok = 0;
    }
  }
  if (ok) {
    double unused;
    compareTracks(r, &rerun[0], &c->tighter_max, &c->tighter_final, &unused);
    compareTracks(&rerun[0], &rerun[1], &c->perturbed_max, &c->perturbed_final,
                  &c->perturbed_horizon);
    c->done = 1;
    // the distances in mm for the notes
    double tmax = 1e3 * c->tighter_max, tend = 1e3 * c->tighter_final;
    double pmax = 1e3 * c->perturbed_max, pend = 1e3 * c->perturbed_final;
    double limit = 1e3 * CS_CLI_CONVERGENCE_DISTANCE;
    // Sensitive only when the perturbation moves the positions by a good fraction of what the
    // tightening does: if the tighter run is itself far from converged, a tiny change of the
    // initial speeds changes its steps and so its error, which is no evidence of sensitivity.
    if (c->tighter_max > CS_CLI_CONVERGENCE_DISTANCE &&
        c->perturbed_max > CS_CLI_CONVERGENCE_DISTANCE &&
        c->perturbed_max >= SENSITIVE_FRACTION * c->tighter_max) {
      // sensitive: say from when, and what that means for the final state, which a damped
      // motion may reach all the same after diverging on the way
      char end[160];
      if (c->perturbed_final > CS_CLI_CONVERGENCE_DISTANCE) {
        snprintf(end, sizeof(end), "nor the final state: compare statistics such as the "
                 "sliding distance and the energy rather than poses");
      } else if (c->tighter_final > CS_CLI_CONVERGENCE_DISTANCE) {
        snprintf(end, sizeof(end), "the final state is determined all the same, but this "
                 "run's is off by %.3g mm: tighten rtol and atol (now %g and %g)",
                 tend, r->opt.rtol, r->opt.atol);
      } else {
        snprintf(end, sizeof(end), "the final state is reproducible all the same");
      }
      cs_metricsVerdict(&r->metrics,
                        "positions move by up to %.3g mm (%.3g mm at the end) when the tolerances "
                        "are tightened %gx, and by up to %.3g mm (%.3g mm at the end) when every "
                        "initial speed changes by only %g: no tolerance pins the motion down to "
                        "%g mm after t = %.4g s; %s",
                        tmax, tend, c->factor, pmax, pend, c->perturbation, limit,
                        c->perturbed_horizon, end);
    } else if (c->tighter_max > CS_CLI_CONVERGENCE_DISTANCE) {
      cs_metricsVerdict(&r->metrics,
                        "positions move by up to %.3g mm (%.3g mm at the end) when the tolerances "
                        "are tightened %gx, while changing every initial speed by %g moves them "
                        "only %.3g mm: this run is not converged; tighten rtol and atol (now %g "
                        "and %g) and check again",
                        tmax, tend, c->factor, c->perturbation, pmax, r->opt.rtol, r->opt.atol);
    }
  }
  for (int k = 0; k < 2; k++) {
    rerun[k].m = NULL;  // r's, not the rerun's
    cs_cliFreeRun(&rerun[k]);
  }
}


// ---------------------------------------------------------------------------------------------
// the command

// mkdir -p
// split "a,b,c" into names; returns the count or -1 (message printed)
static int splitModels(const char* text, char names[][CS_MAX_NAME], int max) {
  int n = 0;
  const char* p = text;
  for (;;) {
    const char* end = strchr(p, ',');
    size_t len = end ? (size_t)(end - p) : strlen(p);
    // trim the spaces around each name, so that "a, b" works as typed
    while (len > 0 && (*p == ' ')) {
      p++;
      len--;
    }
    while (len > 0 && p[len - 1] == ' ') {
      len--;
    }
    // an empty name ("a,,b", a trailing comma) is a usage error, not silently skipped
    if (len == 0 || len >= CS_MAX_NAME) {
      fprintf(stderr, "contactsim: error: --models needs a comma-separated list of model names, "
                      "not '%s'\n", cs_cliSafe(text));
      return -1;
    }
    if (n >= max) {
      fprintf(stderr, "contactsim: error: --models: at most %d models\n", max);
      return -1;
    }
    // copy the trimmed name; the length check above guarantees that it fits
    memcpy(names[n], p, len);
    names[n][len] = '\0';
    // a model named twice would run twice and overwrite its own CSV
    for (int i = 0; i < n; i++) {
      if (strcmp(names[i], names[n]) == 0) {
        fprintf(stderr, "contactsim: error: --models names '%s' twice\n", cs_cliSafe(names[n]));
        return -1;
      }
    }
    n++;
    // the last name is the one without a comma after it
    if (!end) {
      return n;
    }
    p = end + 1;
  }
}


// DIR/NAME into file (size bytes); the buffers hold any directory the command accepted plus a
// file name
static void pathIn(char* file, size_t size, const char* dir, const char* name) {
  snprintf(file, size, "%s/%s", dir, name);
}


// output i of a comparison in dir: the models' CSVs (nrun of them), then the two tables and the
// replay page
static void outputIn(char* file, size_t size, const char* dir, const csCliRun* runs, int nrun,
                     int i) {
  static const char* const tables[3] = {"compare.csv", "compare.json", "replay.html"};
  char name[CS_MAX_NAME + 8];
  snprintf(name, sizeof(name), "%s%s", i < nrun ? runs[i].model : tables[i - nrun],
           i < nrun ? ".csv" : "");
  pathIn(file, size, dir, name);
}


// why file cannot be an output of compare --out-dir, a FIFO or a socket, or NULL
static const char* pipeLike(const char* file) {
  struct stat st;
  if (stat(file, &st) != 0) {
    return NULL;
  }
  return S_ISFIFO(st.st_mode)   ? "it is a FIFO; compare --out-dir writes regular files"
         : S_ISSOCK(st.st_mode) ? "it is a socket; compare --out-dir writes regular files"
                                : NULL;
}


// A model's CSV must be writable before the first model runs: found unwritable only at its
// turn (a directory of that name, say), the comparison ended with nothing tabulated, the models
// that had run included. Opened without truncating, so that an earlier comparison's CSV stays
// whole until its model runs again (a comparison interrupted before then leaves it as it was);
// one created here is removed again. 0, or -1 with the message printed.
static int checkWritable(const char* file) {
  // a FIFO or a socket would be opened here, its reader would see an empty stream when it is
  // closed again, and the model's turn would then wait for a reader that is gone: refused, as
  // the tables' files (written whole under a temporary name) could not be one either
  const char* piped = pipeLike(file);
  if (piped) {
    fprintf(stderr, "contactsim: error: cannot write %s: %s\n", cs_cliSafe(file), piped);
    return -1;
  }
  // a symbolic link to nothing yet is written through, creating the name it points to, as
  // `run -o` writes it (O_EXCL alone refuses any link)
  char target[PATH_MAX];
  const char* create = csu_danglingLinkTarget(file, target, sizeof(target)) ? target : file;
  int fd = open(create, O_WRONLY | O_CREAT | O_EXCL | O_NOCTTY | O_CLOEXEC, 0666);
  int created = fd >= 0;
  if (fd < 0 && errno == EEXIST) {
    fd = open(file, O_WRONLY | O_NOCTTY | O_CLOEXEC);
  }
  struct stat st;
  if (fd >= 0 && fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
    close(fd);
    fd = -1;
    errno = EISDIR;
  }
  if (fd < 0) {
    fprintf(stderr, "contactsim: error: cannot write %s: %s\n", cs_cliSafe(file),
            strerror(errno));
    return -1;
  }
  close(fd);
  if (created) {
    unlink(create);
  }
  return 0;
}


// A table (compare.csv, compare.json) or the page (replay.html) must be replaceable before the
// first model runs: found otherwise only once every model had run (a directory of that name,
// say), the comparison's time was spent for nothing. The tables are renamed over their files,
// which must be regular files (writeTables refuses anything else, a link included); the page is
// replaced as the replay writer does it, which refuses a directory and a file it may not write.
// 0, or -1 with the message printed.
// Both are made under a temporary name in dir and renamed (a page through a link, or onto a
// device, is written where it points), so dir must let a file be created in it.
static int checkReplaceable(const char* file, const char* dir, int page) {
  struct stat st, lst;
  const char* why = NULL;
  int exists = lstat(file, &lst) == 0;
  if (!page && exists && !S_ISREG(lst.st_mode)) {
    why = "it is not a regular file";
  } else if (!page && exists && csu_replaceRefused(file)) {
    why = "it belongs to another user in a directory with the sticky bit (such as /tmp), where "
          "only its owner may replace it";
  } else if (page && stat(file, &st) == 0) {
    // a FIFO would hold the comparison, once every model had run, waiting for a reader (the
    // page is opened in place there), and a first stop signal did not end that wait
    const char* piped = pipeLike(file);
    why = S_ISDIR(st.st_mode)       ? strerror(EISDIR)
          : piped                   ? piped
          : access(file, W_OK) != 0 ? strerror(errno)
                                    : NULL;
  }
  if (!why && (!exists || S_ISREG(lst.st_mode)) && access(dir, W_OK) != 0) {
    char reason[CS_CLI_MAX_FILE + 96];
    snprintf(reason, sizeof(reason), "no file can be created in %s (%s)", cs_cliSafe(dir),
             strerror(errno));
    fprintf(stderr, "contactsim: error: cannot write %s: %s\n", cs_cliSafe(file), reason);
    return -1;
  }
  if (why) {
    fprintf(stderr, "contactsim: error: cannot write %s: %s\n", cs_cliSafe(file), why);
    return -1;
  }
  return 0;
}


// write the table as CSV or JSON (format) to the temporary file tmp; 0 or -1 (message printed,
// tmp removed)
static int writeTemporary(const char* tmp, const char* file, const char* scene, const char* path,
                          const csCliRun* runs, int nrun, Format format) {
  FILE* f = fopen(tmp, "w");
  if (!f) {
    fprintf(stderr, "contactsim: error: cannot write %s: %s\n", cs_cliSafe(tmp),
            strerror(errno));
    return -1;
  }
  // the writers leave the stream's error flag set on any failure, checked with the close
  errno = 0;
  int r = format == FORMAT_JSON ? cs_cliWriteJson(f, scene, path, runs, nrun)
                                : writeCsv(f, runs, nrun);
  // a failed close may lose buffered data, so it counts as a failed write; the reason is the
  // first failure's (a full disk, say)
  int saved = errno;
  if (fclose(f) != 0 || r != 0) {
    fprintf(stderr, "contactsim: error: could not write %s: %s\n", cs_cliSafe(file),
            strerror(r != 0 && saved ? saved : errno ? errno : EIO));
    unlink(tmp);
    return -1;
  }
  return 0;
}


// DIR/replay.html: every model of the comparison in one page, from DIR/MODEL.csv; 0 or -1
static int writeReplay(const char* outDir, const char* tpl, const csCliRun* runs, int nrun) {
  csReplayRun page[MAX_MODELS];
  char csv[MAX_MODELS][CS_CLI_MAX_FILE];
  for (int i = 0; i < nrun; i++) {
    outputIn(csv[i], sizeof(csv[i]), outDir, runs, nrun, i);
    page[i] = (csReplayRun){.model = runs[i].model, .m = runs[i].m, .csv = csv[i]};
  }
  char file[CS_CLI_MAX_FILE];
  outputIn(file, sizeof(file), outDir, runs, nrun, nrun + 2);
  csError err;
  if (cs_replayWrite(file, tpl, page, nrun, &err) != CS_OK) {
    cs_cliPrintError(&err);
    return -1;
  }
  return 0;
}


// DIR/compare.csv and DIR/compare.json, each written to a temporary name beside it and renamed
// over it only once both are complete: an interrupted or failing write never leaves half a table,
// nor a new table beside an old one. Returns 0 or -1 (message printed).
static int writeTables(const char* dir, const char* scene, const char* path,
                       const csCliRun* runs, int nrun) {
  static const char* const names[2] = {"compare.csv", "compare.json"};
  static const Format formats[2] = {FORMAT_CSV, FORMAT_JSON};
  char file[2][CS_CLI_MAX_FILE], tmp[2][CS_CLI_MAX_FILE + 32];
  int ok = 1;
  for (int k = 0; k < 2; k++) {
    pathIn(file[k], sizeof(file[k]), dir, names[k]);
    // a hidden name in the same directory, so that the rename stays within one file system
    char hidden[CS_MAX_NAME];
    snprintf(hidden, sizeof(hidden), ".%s.%ld.tmp", names[k], (long)getpid());
    pathIn(tmp[k], sizeof(tmp[k]), dir, hidden);
    cs_cliTemporaryFile(k, tmp[k]);
  }
  // a target that is not a regular file (a directory, say) would fail its rename after the other
  // one succeeded: refuse before either is touched
  for (int k = 0; k < 2 && ok; k++) {
    struct stat st;
    if (lstat(file[k], &st) == 0 && !S_ISREG(st.st_mode)) {
      fprintf(stderr, "contactsim: error: cannot write %s: it is not a regular file\n",
              cs_cliSafe(file[k]));
      ok = 0;
    }
  }
  for (int k = 0; k < 2 && ok; k++) {
    ok = writeTemporary(tmp[k], file[k], scene, path, runs, nrun, formats[k]) == 0;
  }
  for (int k = 0; k < 2 && ok; k++) {
    if (rename(tmp[k], file[k]) != 0) {
      fprintf(stderr, "contactsim: error: cannot write %s: %s\n", cs_cliSafe(file[k]),
              strerror(errno));
      ok = 0;
    }
  }
  // whatever is left of the temporaries goes
  for (int k = 0; k < 2; k++) {
    if (!ok) {
      unlink(tmp[k]);
    }
    cs_cliTemporaryFile(k, NULL);
  }
  return ok ? 0 : -1;
}


// Files of DIR this comparison did not write that an earlier one may have: trajectory CSVs
// (first line "t,...") of models that did not run now, and replay.html without --replay. They
// are named on standard error rather than removed: the command removes nothing it did not
// write, and a model's earlier CSV may be wanted; compare.json lists this comparison's models
// (tools/plot.py --compare draws only those).
static void noteStaleFiles(const char* dir, const csCliRun* runs, int nrun, int replay) {
  DIR* dp = opendir(dir);
  if (!dp) {
    return;
  }
  char list[1024];
  size_t len = 0;
  int count = 0;
  list[0] = '\0';
  for (struct dirent* e; (e = readdir(dp)) != NULL;) {
    const char* name = e->d_name;
    size_t n = strlen(name);
    int stale = !replay && strcmp(name, "replay.html") == 0;
    if (n > 4 && strcmp(name + n - 4, ".csv") == 0 && strcmp(name, "compare.csv") != 0) {
      // a model's trajectory, unless it is one of this comparison's, under its name or
      // another (the file a model's CSV links to)
      char file[CS_CLI_MAX_FILE], model[sizeof(file)];
      pathIn(file, sizeof(file), dir, name);
      int ours = 0;
      for (int i = 0; i < nrun && !ours; i++) {
        outputIn(model, sizeof(model), dir, runs, nrun, i);
        ours = (strlen(runs[i].model) == n - 4 && strncmp(runs[i].model, name, n - 4) == 0) ||
               cs_cliSameFile(file, model);
      }
      // only a regular file is read (opening a FIFO would wait for a writer)
      struct stat st;
      FILE* f = !ours && stat(file, &st) == 0 && S_ISREG(st.st_mode) ? fopen(file, "r") : NULL;
      if (f) {
        char head[3] = "";
        stale = fgets(head, sizeof(head), f) && strcmp(head, "t,") == 0;
        fclose(f);
      }
    }
    // the names that fit the line; a name cut short is dropped whole
    if (stale) {
      int w = snprintf(list + len, sizeof(list) - len, "%s%s", count++ ? ", " : "",
                       cs_cliSafe(name));
      len = w > 0 && len + (size_t)w < sizeof(list) ? len + (size_t)w : len;
      list[len] = '\0';
    }
  }
  closedir(dp);
  if (count) {
    fprintf(stderr, "contactsim: compare: %s also holds %s from an earlier comparison, not "
            "rewritten by this one (compare.json lists this comparison's models)\n",
            cs_cliSafe(dir), list);
  }
}


// `contactsim compare`: run the scene once per contact model and tabulate the results.
// Returns the exit status: 2 bad input, 1 a failed run or output, 0 otherwise.
int cs_cliCompare(int argc, char** argv) {
  static const struct option longopts[] = {
      {"models", required_argument, NULL, 'M'},
      {"out-dir", required_argument, NULL, 'D'},
      {"format", required_argument, NULL, 'F'},
      {"duration", required_argument, NULL, 'd'},
      {"rtol", required_argument, NULL, 'r'},
      {"atol", required_argument, NULL, 'a'},
      {"set", required_argument, NULL, 'S'},
      {"convergence", no_argument, NULL, 'C'},
      {"max-steps", required_argument, NULL, 'N'},
      {"quiet", no_argument, NULL, 'q'},
      {"replay", no_argument, NULL, 'R'},
      {"help", no_argument, NULL, 'h'},
      {NULL, 0, NULL, 0},
  };
  // -1 marks an option that was not given, so the scene's value stays
  int convergence = 0, replay = 0;
  const char* modelsArg = NULL;
  const char* outDir = NULL;
  Format format = FORMAT_TABLE;
  double duration = -1, rtol = -1, atol = -1;
  long max_steps = -1;
  int quiet = 0;
  // --set KEY=VALUE; freed once every model is loaded, and on the returns before
  csCliSets sets = {0};
  int c;
  // getopt keeps global state: reset it, since a process may parse more than one command; its
  // messages are ours (cs_cliOptionError)
  optind = 1;
  opterr = 0;
  while ((c = getopt_long(argc, argv, ":qh", longopts, NULL)) != -1) {
    int bad = 0;
    switch (c) {
      case 'M': modelsArg = optarg; break;
      case 'D': outDir = optarg; break;
      case 'd':
        bad = cs_cliParseAtLeast(optarg, "duration", CS_MIN_DURATION, " s", &duration);
        break;
      case 'r': bad = cs_cliParseNumber(optarg, "rtol", 0, &rtol); break;
      case 'a': bad = cs_cliParseAtLeast(optarg, "atol", CS_MIN_ATOL, "", &atol); break;
      case 'q': quiet = 1; break;
      case 'C': convergence = 1; break;
      case 'R': replay = 1; break;
      // the format of standard output, by name
      case 'F': {
        // indexed like Format
        static const char* const names[] = {"table", "csv", "json"};
        int choice = cs_cliParseChoice(optarg, "format", names, 3);
        format = choice >= 0 ? (Format)choice : format;
        bad = choice < 0;
        break;
      }
      case 'S': bad = cs_cliAddSet(&sets, optarg); break;
      case 'N': bad = cs_cliParseCount(optarg, "max-steps", &max_steps); break;
      case 'h': cs_cliCommandUsage(stdout, "compare"); cs_cliFreeSets(&sets); return CS_EXIT_OK;
      default: cs_cliFreeSets(&sets); return cs_cliOptionError(c, argv, "compare");
    }
    if (bad) {
      cs_cliFreeSets(&sets);
      return CS_EXIT_USAGE;
    }
  }
  const char* path = cs_cliSceneArgument(argc, argv, "compare");
  if (!path) {
    cs_cliFreeSets(&sets);
    return CS_EXIT_USAGE;
  }
  // --replay reads the models' CSVs from the output directory, and needs the page template
  char replayTemplate[4096];
  csError replayErr;
  if (replay && !outDir) {
    fprintf(stderr, "contactsim: error: compare --replay needs --out-dir (the page is made from "
            "the models' CSVs there)\n");
    cs_cliFreeSets(&sets);
    return CS_EXIT_USAGE;
  }
  if (replay && cs_replayFindTemplate(replayTemplate, sizeof(replayTemplate), &replayErr) != 0) {
    cs_cliPrintError(&replayErr);
    cs_cliFreeSets(&sets);
    return CS_EXIT_USAGE;
  }

  // 1. the models the scene has blocks for, and the ones asked for
  // a scene without contact_models blocks still compares: it runs once, as "scene"
  // the scene is read once (it may be a pipe) and every model is loaded from its text; a stop
  // signal while a large one loads is told once every model has (cs_cliStoppedBeforeStart),
  // one while the text is read (a pipe with no writer yet) ends the command as it comes
  char* text = cs_cliReadScene(path);
  if (!text) {
    cs_cliFreeSets(&sets);
    return CS_EXIT_USAGE;
  }
  cs_cliCatchSignals();
  char available[MAX_MODELS][CS_MAX_NAME];
  char defaultName[CS_MAX_NAME];
  csError err;
  memset(&err, 0, sizeof(err));
  csLoadOptions lo = {.overrides = sets.item, .noverrides = sets.n};
  int navailable =
      cs_sceneContactModelsString(text, cs_cliSceneName(path), &lo,
                                  available, MAX_MODELS, defaultName, &err);
  // a scene whose blocks are bad is bad input; the error names the path
  if (navailable < 0) {
    cs_cliPrintError(&err);
    cs_freeSceneText(text);
    cs_cliFreeSets(&sets);
    return CS_EXIT_USAGE;
  }
  // without blocks the only run loads the scene as it is, choosing no model
  int hasBlocks = navailable > 0;
  if (!hasBlocks) {
    snprintf(available[0], CS_MAX_NAME, "scene");
    navailable = 1;
  }
  // the count is of every block, the names only of the first MAX_MODELS: compare those
  navailable = navailable > MAX_MODELS ? MAX_MODELS : navailable;
  char names[MAX_MODELS][CS_MAX_NAME];
  int nrun = navailable;
  if (modelsArg) {
    nrun = splitModels(modelsArg, names, MAX_MODELS);
    if (nrun < 0) {
      cs_freeSceneText(text);
      cs_cliFreeSets(&sets);
      return CS_EXIT_USAGE;
    }
    // every requested name must have a block; the message lists the blocks there are
    for (int i = 0; i < nrun; i++) {
      int found = 0;
      for (int j = 0; j < navailable; j++) {
        found |= strcmp(names[i], available[j]) == 0;
      }
      if (!found) {
        char list[MAX_MODELS * (CS_MAX_NAME + 2)];
        size_t len = 0;
        for (int j = 0; j < navailable; j++) {
          int n = snprintf(list + len, sizeof(list) - len, "%s%s", j ? ", " : "", available[j]);
          len += n > 0 ? (size_t)n : 0;
        }
        fprintf(stderr, "contactsim: error: %s: %s '%s' (%s: %s)\n",
                cs_cliSafe(cs_cliSceneName(path)),
                hasBlocks ? "the scene has no parameter block for contact model"
                          : "the scene has no contact model to choose (no contact_models, or "
                            "no contacts for them), so there is no model",
                cs_cliSafe(names[i]), hasBlocks ? "models" : "its only run is", cs_cliSafe(list));
        cs_freeSceneText(text);
        cs_cliFreeSets(&sets);
        return CS_EXIT_USAGE;
      }
    }
  } else {
    // no --models: every block, in the order of the file
    memcpy(names, available, sizeof(names[0]) * (size_t)navailable);
  }

  // 2. load every model's scene before anything runs
  // each run gets its own model, with the command-line options over the scene's
  csCliRun* runs = calloc((size_t)nrun, sizeof(csCliRun));
  if (!runs) {
    fprintf(stderr, "contactsim: error: out of memory\n");
    cs_freeSceneText(text);
    cs_cliFreeSets(&sets);
    return CS_EXIT_FAILURE;
  }
  // loading stops at the first model that does not load, which is bad input (exit 2)
  int exitCode = CS_EXIT_OK;
  for (int i = 0; i < nrun && exitCode == CS_EXIT_OK; i++) {
    csCliRun* r = &runs[i];
    // the label of the run, cut to the size of its name field
    snprintf(r->model, sizeof(r->model), "%.63s", names[i]);
    r->m = cs_cliLoad(text, path, hasBlocks ? names[i] : NULL, &sets);
    if (!r->m) {
      exitCode = CS_EXIT_USAGE;
      break;
    }
    r->opt = r->m->opt;
    if (duration > 0) r->opt.duration = duration;
    if (rtol > 0) r->opt.rtol = rtol;
    if (atol > 0) r->opt.atol = atol;
    if (max_steps > 0) r->opt.max_steps = max_steps;
    // more report rows than the limit are refused before anything runs
    if (cs_cliCheckRows(&r->opt, path, r->model, "simulation.max_step") != 0) {
      exitCode = CS_EXIT_USAGE;
      break;
    }
    // the convergence check compares this run's trajectory with its reruns'
    if (convergence) {
      r->convergence.factor = CONVERGENCE_FACTOR;
      r->convergence.perturbation = CONVERGENCE_PERTURBATION;
      if (allocTrack(r) != 0) {
        fprintf(stderr, "contactsim: error: out of memory for the convergence check's "
                "trajectories (%.6g s reported every %.6g s)\n", r->opt.duration,
                r->opt.report_interval);
        exitCode = CS_EXIT_FAILURE;
      }
    }
  }
  cs_freeSceneText(text);
  cs_cliFreeSets(&sets);
  // nothing runs unless every model loaded and got what it needs
  if (exitCode == CS_EXIT_OK) {
    exitCode = cs_cliStoppedBeforeStart(path);
  }
  int ready = exitCode == CS_EXIT_OK;
  // the output directory is made before any run, so that an unwritable path fails at once
  if (exitCode == CS_EXIT_OK && outDir && cs_cliMakeDirectory(outDir) != 0) {
    fprintf(stderr, "contactsim: error: cannot create directory %s: %s\n", cs_cliSafe(outDir),
            strerror(errno));
    exitCode = CS_EXIT_USAGE;
  }
  // and none of the files it will hold may be the scene (a scene named compare.json there, or
  // replay.html with --replay) or another of them (names linked to one file), and each must be
  // one the comparison can write
  for (int i = 0; exitCode == CS_EXIT_OK && outDir && i < nrun + 2 + replay; i++) {
    char file[CS_CLI_MAX_FILE], other[sizeof(file)];
    outputIn(file, sizeof(file), outDir, runs, nrun, i);
    int same = -1;
    for (int j = 0; j < i && same < 0; j++) {
      outputIn(other, sizeof(other), outDir, runs, nrun, j);
      same = cs_cliSameOutput(file, other) ? j : -1;
    }
    if (cs_cliIsScene(file, path)) {
      fprintf(stderr, "contactsim: error: %s is the scene file; refusing to write over it\n",
              cs_cliSafe(file));
      exitCode = CS_EXIT_USAGE;
    } else if (cs_cliIsStandardOutput(file)) {
      // the table goes to standard output
      fprintf(stderr, "contactsim: error: %s is the file standard output goes to, where the "
              "table goes; send standard output elsewhere\n", cs_cliSafe(file));
      exitCode = CS_EXIT_USAGE;
    } else if (same >= 0) {
      fprintf(stderr, "contactsim: error: %s and %s are the same file (linked); give each "
              "output a file of its own\n", cs_cliSafe(other), cs_cliSafe(file));
      exitCode = CS_EXIT_USAGE;
    } else if (i < nrun ? checkWritable(file) != 0
                        : checkReplaceable(file, outDir, i == nrun + 2) != 0) {
      exitCode = CS_EXIT_USAGE;
    }
  }
  ready = exitCode == CS_EXIT_OK;
  // from here on SIGINT, SIGTERM and SIGHUP stop the model running and skip the others
  cs_cliCatchSignals();
  int ndone = 0;

  // 3. run them one after the other, each with its own CSV in the output directory
  for (int i = 0; ready && i < nrun && exitCode != CS_EXIT_USAGE; i++) {
    // the per-model CSV carries the per-contact columns (forces), for plotting side by side
    csCliRun* r = &runs[i];
    FILE* csv = NULL;
    char file[CS_CLI_MAX_FILE];
    if (outDir) {
      outputIn(file, sizeof(file), outDir, runs, nrun, i);
      csv = fopen(file, "w");
      if (!csv) {
        fprintf(stderr, "contactsim: error: cannot write %s: %s\n", cs_cliSafe(file),
                strerror(errno));
        exitCode = CS_EXIT_USAGE;
        break;
      }
    }
    if (!quiet) {
      // progress on stderr: a line before and a line after each run
      fprintf(stderr, "contactsim: compare: %s (%d of %d) ...\n", cs_cliSafe(r->model), i + 1,
              nrun);
    }
    csCsvOptions csvopt = {.forces = 1};
    r->csv_name = csv ? file : NULL;
    cs_cliSimulate(r, csv, &csvopt, !quiet && isatty(STDERR_FILENO));
    r->csv_name = NULL;  // file is this iteration's
    // a CSV that fails to close turns a finished run into an I/O failure
    if (csv && fclose(csv) != 0 && r->status == CS_OK) {
      r->status = CS_ERR_IO;
      snprintf(r->err.message, sizeof(r->err.message), "could not write %.400s", file);
    }
    // an I/O failure of the run names the CSV it was writing: the header's failure comes with
    // no message at all, the reports' with the time only
    if (csv && r->status == CS_ERR_IO && !strstr(r->err.message, file)) {
      char what[CS_MAX_ERROR];
      snprintf(what, sizeof(what), "%s", r->err.message);
      snprintf(r->err.message, sizeof(r->err.message), "could not write %.400s%s%.500s", file,
               what[0] ? ": " : "", what);
    }
    // no data means the run never started (out of memory): stop, there is nothing to tabulate
    if (!r->d) {
      fprintf(stderr, "contactsim: error: out of memory\n");
      exitCode = CS_EXIT_FAILURE;
      break;
    }
    ndone = i + 1;
    // a failed run is kept: it shows as failed in the outputs and the other models still run
    if (r->status != CS_OK && r->status != CS_STOPPED) {
      cs_cliPrintError(&r->err);
      exitCode = CS_EXIT_FAILURE;
    }
    if (!quiet) {
      fprintf(stderr, "contactsim: compare: %s: %s at t = %.6g s, %ld steps, %.3g s CPU\n",
              cs_cliSafe(r->model),
              r->status == CS_OK ? "finished" : r->status == CS_STOPPED ? "interrupted" : "failed",
              r->d->t, r->d->stat.nsteps, r->cpu_seconds);
    }
    // a failed run has no trajectory to check
    if (convergence && r->status == CS_OK && !cs_cliStopSignal) {
      if (!quiet) {
        fprintf(stderr, "contactsim: compare: %s: convergence check (two reruns) ...\n",
                cs_cliSafe(r->model));
      }
      checkConvergence(r);
    }
    // a stop signal ends the comparison: the models that ran are tabulated, the others skipped
    if (cs_cliStopSignal) {
      if (!quiet) {
        fprintf(stderr, "contactsim: compare: interrupted by %s; %d of %d models ran to the end\n",
                cs_cliSignalName(cs_cliStopSignal), ndone - (r->status == CS_STOPPED), nrun);
      }
      break;
    }
  }

  // 4. the table on standard output, and the files
  // outputs only when every run got data; after a usage error there is nothing to show
  // (an interrupted comparison shows the models that ran, the interrupted one included)
  int ran = ready && exitCode != CS_EXIT_USAGE && ndone > 0 && runs[ndone - 1].d &&
            (ndone == nrun || cs_cliStopSignal);
  if (ran) {
    const char* scene = runs[0].m->name;
    // standard output gets the chosen format
    errno = 0;
    int bad = format == FORMAT_JSON  ? cs_cliWriteJson(stdout, scene, path, runs, ndone)
              : format == FORMAT_CSV ? writeCsv(stdout, runs, ndone)
                                     : writeTable(stdout, scene, path, runs, ndone);
    bad |= fflush(stdout) != 0;
    // said, not only counted in the exit status (a full disk, a closed pipe)
    if (bad) {
      fprintf(stderr, "contactsim: error: could not write the comparison to standard output: "
              "%s\n", strerror(errno ? errno : EIO));
    }
    // the directory always gets both the CSV and the JSON, whatever went to standard output
    if (outDir) {
      bad |= writeTables(outDir, scene, path, runs, ndone) != 0;
    }
    // the replay page of every model, from their CSVs (a failed run shows as far as it got)
    if (replay) {
      bad |= writeReplay(outDir, replayTemplate, runs, ndone) != 0;
    }
    if (outDir) {
      noteStaleFiles(outDir, runs, ndone, replay);
    }
    // a failed output fails the command, even when every run finished
    if (bad) {
      exitCode = CS_EXIT_FAILURE;
    }
  }
  // free every run, loaded or not (cs_cliFreeRun accepts an empty one)
  for (int i = 0; i < nrun; i++) {
    cs_cliFreeRun(&runs[i]);
  }
  free(runs);
  // stopped by a signal: the status a shell reports for one, after everything that ran is out
  return cs_cliStopSignal && exitCode != CS_EXIT_USAGE ? cs_cliStopStatus() : exitCode;
}
