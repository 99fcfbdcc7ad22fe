// results.c: the statistics of runs as JSON (`run --stats`, `compare --format json` and
// compare.json): one writer, so that a number has the same key everywhere.
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "app/common.h"
#include "io/study_load.h"

// the convergence check's distances, as named in the CSV and the JSON (docs/cli.md)
const char* const cs_cliConvergenceKeys[CS_CLI_NCONVERGENCE] = {
    "tighter_max_distance", "tighter_final_distance", "perturbed_max_distance",
    "perturbed_final_distance", "perturbed_horizon"};

void cs_cliConvergenceValues(const csCliConvergence* c, double v[CS_CLI_NCONVERGENCE]) {
  v[0] = c->tighter_max;
  v[1] = c->tighter_final;
  v[2] = c->perturbed_max;
  v[3] = c->perturbed_final;
  v[4] = c->perturbed_horizon;
}


const char* cs_cliStatusName(const csCliRun* r) {
  return r->status == CS_OK ? "ok" : r->status == CS_STOPPED ? "interrupted" : "failed";
}


// ---------------------------------------------------------------------------------------------
// JSON

// a JSON string literal (csu_jsonString)
static void jsonString(FILE* f, const char* s) {
  csu_jsonString(f, s, 0);
}


// a number in full precision, or null when it is not finite (JSON has no NaN or infinity)
static void jsonNumber(FILE* f, double x) {
  if (isfinite(x)) {
    fprintf(f, "%.17g", x);
  } else {
    fputs("null", f);
  }
}


// start the next member of an object: comma, newline, indent, key. The first member of each
// object is written by hand, every later one through here
static void jsonKey(FILE* f, const char* indent, const char* key) {
  fprintf(f, ",\n%s", indent);
  jsonString(f, key);
  fputs(": ", f);
}

// one entry of "models", indented by `outer` (the keys by two more spaces); with scene and file
// (nullable) first when it stands alone
static void jsonRun(FILE* f, const csCliRun* r, const char* outer, const char* scene,
                    const char* file) {
  // the keys sit two spaces deeper than the braces
  char in[16];
  snprintf(in, sizeof(in), "%s  ", outer);
  const csModel* m = r->m;
  const csData* d = r->d;
  const csMetrics* mt = &r->metrics;
  const csStats* s = d ? &d->stat : NULL;
  double simulated = cs_cliSimulatedTime(r);
  fprintf(f, "%s{\n%s", outer, in);
  // standing alone (run --stats) the entry names its scene, as the comparison's top object does
  if (scene) {
    fputs("\"scene\": ", f);
    jsonString(f, scene);
    jsonKey(f, in, "file");
    jsonString(f, file);
    fprintf(f, ",\n%s", in);
  }
  // outcome: the model, ok or failed, and the formatted error (null when ok)
  fputs("\"model\": ", f);
  jsonString(f, r->model);
  jsonKey(f, in, "status");
  jsonString(f, cs_cliStatusName(r));
  jsonKey(f, in, "error");
  if (r->status == CS_OK) {
    fputs("null", f);
  } else {
    char msg[CS_MAX_ERROR_LINE];
    cs_cliFormatError(&r->err, msg, sizeof(msg));
    jsonString(f, msg);
  }
  // cost: CPU of the integration, the statistics' own share, CPU per simulated second; the
  // solver counters are 0 for a run that never got data
  jsonKey(f, in, "cpu_seconds");
  jsonNumber(f, r->cpu_seconds);
  jsonKey(f, in, "statistics_cpu_seconds");
  jsonNumber(f, s ? s->cpu_step_hook : 0.0);
  jsonKey(f, in, "cpu_per_sim_second");
  double span = cs_cliSimulatedSpan(r);
  jsonNumber(f, span > 0 ? r->cpu_seconds / span : NAN);
  // how far it got, then the integrator's counters (csStats); rhs_total is the sum by which
  // the cost of a model is best judged
  jsonKey(f, in, "simulated");
  jsonNumber(f, d ? simulated : NAN);  // null for a run that never started, as its CSV cell
  jsonKey(f, in, "steps");
  fprintf(f, "%ld", s ? s->nsteps : 0L);
  jsonKey(f, in, "rhs_evals");
  fprintf(f, "%ld", s ? s->nrhs : 0L);
  jsonKey(f, in, "rhs_evals_jacobian");
  fprintf(f, "%ld", s ? s->nrhs_jac : 0L);
  jsonKey(f, in, "rhs_total");
  fprintf(f, "%ld", s ? s->nrhs + s->nrhs_jac : 0L);
  jsonKey(f, in, "error_test_failures");
  fprintf(f, "%ld", s ? s->netf : 0L);
  jsonKey(f, in, "nonlinear_failures");
  fprintf(f, "%ld", s ? s->nncf : 0L);
  jsonKey(f, in, "jacobian_evaluations");
  fprintf(f, "%ld", s ? s->njac : 0L);
  // the integrator and the linear solver the run used
  jsonKey(f, in, "integrator");
  static const char* const integrators[] = CS_INTEGRATOR_NAMES;
  jsonString(f, integrators[r->opt.integrator]);
  jsonKey(f, in, "linear_solver");
  jsonString(f, cs_cliLinearSolverName(r));
  // contact statistics (definitions in docs/cli.md, "Metrics")
  jsonKey(f, in, "max_penetration");
  jsonNumber(f, mt->max_penetration);
  jsonKey(f, in, "peak_normal_force");
  jsonNumber(f, mt->peak_normal_force);
  // final pose of every free body, in Ground
  jsonKey(f, in, "final_pose");
  fputc('{', f);
  int first = 1;
  for (int b = 1; d && b < m->nbody; b++) {
    if (m->body[b].joint != CS_JOINT_FREE) {
      continue;
    }
    const csTransform* X = &d->body_pose[b];
    // the orientation from the body's rotation matrix, in Ground (not the joint's own q)
    csQuat q = csu_matToQuat(&X->R);
    fprintf(f, "%s\n%s  ", first ? "" : ",", in);
    jsonString(f, m->body[b].name);
    fputs(": {\"position\": [", f);
    jsonNumber(f, X->p.x);
    fputs(", ", f);
    jsonNumber(f, X->p.y);
    fputs(", ", f);
    jsonNumber(f, X->p.z);
    fputs("], \"quaternion\": [", f);
    jsonNumber(f, q.w);
    fputs(", ", f);
    jsonNumber(f, q.x);
    fputs(", ", f);
    jsonNumber(f, q.y);
    fputs(", ", f);
    jsonNumber(f, q.z);
    fputs("]}", f);
    first = 0;
  }
  // close the object on a line of its own only when it has members, so that {} stays compact
  if (!first) {
    fprintf(f, "\n%s", in);
  }
  fputc('}', f);
  // sliding, drift while stuck, and the stick speed that defined "stuck" for this run
  jsonKey(f, in, "sliding_distance");
  jsonNumber(f, mt->sliding_distance);
  jsonKey(f, in, "stuck_drift");
  jsonNumber(f, mt->stuck_drift);
  jsonKey(f, in, "stick_speed");
  jsonNumber(f, mt->stick_speed);
  jsonKey(f, in, "stuck_steps");
  fprintf(f, "%ld", mt->nstuck);
  jsonKey(f, in, "energy_error");
  jsonNumber(f, mt->energy_error);
  // peaks per contact set and per element, penetration per element
  jsonKey(f, in, "peak_normal_force_sets");
  fputc('{', f);
  for (int g = 0; g < mt->nset; g++) {
    fputs(g ? ", " : "", f);
    jsonString(f, m->group_name[g]);
    fputs(": ", f);
    jsonNumber(f, mt->set_peak[g]);
  }
  fputc('}', f);
  jsonKey(f, in, "peak_normal_force_elements");
  fputc('{', f);
  for (int i = 0; i < mt->ncontact; i++) {
    fputs(i ? ", " : "", f);
    jsonString(f, m->force[mt->contact[i].force].name);
    fputs(": ", f);
    jsonNumber(f, mt->contact[i].peak_fn);
  }
  fputc('}', f);
  jsonKey(f, in, "max_penetration_elements");
  fputc('{', f);
  for (int i = 0; i < mt->ncontact; i++) {
    fputs(i ? ", " : "", f);
    jsonString(f, m->force[mt->contact[i].force].name);
    fputs(": ", f);
    jsonNumber(f, mt->contact[i].max_penetration);
  }
  fputc('}', f);
  // the convergence check, null when it was not asked for or could not run
  jsonKey(f, in, "convergence");
  const csCliConvergence* c = &r->convergence;
  if (!c->done) {
    fputs("null", f);
  } else {
    fputs("{\"factor\": ", f);
    jsonNumber(f, c->factor);
    fputs(", \"perturbation\": ", f);
    jsonNumber(f, c->perturbation);
    double v[CS_CLI_NCONVERGENCE];
    cs_cliConvergenceValues(c, v);
    for (int k = 0; k < CS_CLI_NCONVERGENCE; k++) {
      fprintf(f, ", \"%s\": ", cs_cliConvergenceKeys[k]);
      jsonNumber(f, v[k]);
    }
    fputs(", \"cpu_seconds\": ", f);
    jsonNumber(f, c->cpu_seconds);
    fputc('}', f);
  }
  // diagnostics in plain words, in the order they were found
  jsonKey(f, in, "diagnostics");
  fputc('[', f);
  for (int i = 0; i < mt->nnotes; i++) {
    fputs(i ? ", " : "", f);
    jsonString(f, mt->notes[i]);
  }
  fprintf(f, "]\n%s}", outer);
}


// write errors are collected once with ferror at the end, not checked after every call: the
// stream is buffered, and a failure anywhere leaves its error flag set
int cs_cliWriteJson(FILE* f, const char* scene, const char* file, const csCliRun* runs, int nrun) {
  fputs("{\n  \"scene\": ", f);
  jsonString(f, scene);
  fputs(",\n  \"file\": ", f);
  jsonString(f, file);
  fputs(",\n  \"models\": [\n", f);
  // the entries, separated by commas, the last one without
  for (int i = 0; i < nrun; i++) {
    jsonRun(f, &runs[i], "    ", NULL, NULL);
    fputs(i + 1 < nrun ? ",\n" : "\n", f);
  }
  fputs("  ]\n}\n", f);
  return ferror(f) ? -1 : 0;
}


// the entry of one run, standing alone with its scene and file
int cs_cliWriteRunJson(FILE* f, const char* scene, const char* file, const csCliRun* run) {
  jsonRun(f, run, "", scene, file);
  fputc('\n', f);
  return ferror(f) ? -1 : 0;
}
