// helpers.c: shared fixtures of the test executables.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "helpers.h"


csModel* th_loadString(const char* json) {
  csError err = {0};
  csModel* m = cs_loadSceneString(json, "<test>", NULL, &err);
  if (!m) {
    print_error("scene did not load: %s: %s (line %d, column %d)\n", err.path, err.message,
                err.line, err.column);
    fail();
  }
  return m;
}


csModel* th_loadFile(const char* relpath) {
  char path[1024];
  snprintf(path, sizeof(path), "%s/%s", CS_SOURCE_ROOT, relpath);
  csError err = {0};
  csModel* m = cs_loadScene(path, NULL, &err);
  if (!m) {
    print_error("%s did not load: %s: %s\n", path, err.path, err.message);
    fail();
  }
  return m;
}


static int record(void* ctx, const csModel* m, csData* d) {
  thTrace* tr = ctx;
  if (!tr) {
    return 0;
  }
  if (tr->n == tr->cap) {
    tr->cap = tr->cap ? 2 * tr->cap : 256;
    tr->t = realloc(tr->t, sizeof(double) * (size_t)tr->cap);
    tr->q = realloc(tr->q, sizeof(double) * (size_t)tr->cap * (size_t)(m->nq + 1));
    tr->u = realloc(tr->u, sizeof(double) * (size_t)tr->cap * (size_t)(m->nu + 1));
    tr->ke = realloc(tr->ke, sizeof(double) * (size_t)tr->cap);
    tr->pe = realloc(tr->pe, sizeof(double) * (size_t)tr->cap);
    tr->diss = realloc(tr->diss, sizeof(double) * (size_t)tr->cap);
  }
  tr->nq = m->nq;
  tr->nu = m->nu;
  tr->t[tr->n] = d->t;
  memcpy(tr->q + (size_t)tr->n * (size_t)m->nq, d->q, sizeof(double) * (size_t)m->nq);
  memcpy(tr->u + (size_t)tr->n * (size_t)m->nu, d->u, sizeof(double) * (size_t)m->nu);
  tr->ke[tr->n] = cs_kineticEnergy(m, d);
  tr->pe[tr->n] = cs_potentialEnergy(m, d);
  tr->diss[tr->n] = cs_dissipatedEnergy(m, d);
  tr->n++;
  return 0;
}


csData* th_run(const csModel* m, const csSimOptions* opt, thTrace* tr) {
  csData* d = cs_makeData(m);
  assert_non_null(d);
  csReporter rep = {.report = record, .ctx = tr};
  csError err = {0};
  int status = cs_simulate(m, d, opt ? opt : &m->opt, &rep, &err);
  if (status != CS_OK) {
    print_error("run failed: %s\n", err.message);
    fail();
  }
  // a run the test expects to be clean must not have needed any non-finite retries
  if (d->stat.warnings_nonfinite != 0) {
    print_error("run produced %ld non-finite right-hand sides\n", d->stat.warnings_nonfinite);
    fail();
  }
  return d;
}


void th_traceFree(thTrace* tr) {
  free(tr->t);
  free(tr->q);
  free(tr->u);
  free(tr->ke);
  free(tr->pe);
  free(tr->diss);
  memset(tr, 0, sizeof(*tr));
}


void th_assertClose(double a, double b, double rtol, double atol, const char* what) {
  if (!(fabs(a - b) <= atol + rtol * fabs(b))) {
    print_error("%s: got %.12g, expected %.12g (rtol %g, atol %g)\n", what, a, b, rtol, atol);
    fail();
  }
}
