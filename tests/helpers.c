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


char* th_readFile(const char* path, size_t* n) {
  FILE* f = fopen(path, "rb");
  assert_non_null(f);
  fseek(f, 0, SEEK_END);
  long size = ftell(f);
  fseek(f, 0, SEEK_SET);
  char* s = malloc((size_t)size + 1);
  assert_non_null(s);
  assert_int_equal(fread(s, 1, (size_t)size, f), (size_t)size);
  s[size] = 0;
  fclose(f);
  if (n) {
    *n = (size_t)size;
  }
  return s;
}


csModel* th_loadFile(const char* relpath) { return th_loadFileWith(relpath, NULL); }


csModel* th_loadFileWith(const char* relpath, const char* contact_model) {
  char path[1024];
  snprintf(path, sizeof(path), "%s/%s", CS_SOURCE_ROOT, relpath);
  csError err = {0};
  csLoadOptions lo = {.contact_model = contact_model};
  csModel* m = cs_loadScene(path, &lo, &err);
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
  th_runData(m, d, opt, tr);
  return d;
}


void th_runData(const csModel* m, csData* d, const csSimOptions* opt, thTrace* tr) {
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


void th_assertVecClose(csVec3 a, csVec3 b, double rtol, double atol, const char* what) {
  char buf[128];
  double scale = csu_norm(b);
  snprintf(buf, sizeof(buf), "%s.x", what);
  th_assertClose(a.x, b.x, 0, atol + rtol * scale, buf);
  snprintf(buf, sizeof(buf), "%s.y", what);
  th_assertClose(a.y, b.y, 0, atol + rtol * scale, buf);
  snprintf(buf, sizeof(buf), "%s.z", what);
  th_assertClose(a.z, b.z, 0, atol + rtol * scale, buf);
}


int th_addBody(csModel* m, const char* name, int parent, csJointType joint, csTransform X_PF,
               csTransform X_BM, double mass, csVec3 com, csMat33 inertia) {
  csBody b;
  memset(&b, 0, sizeof(b));
  if (name) {
    snprintf(b.name, sizeof(b.name), "%s", name);
  } else {
    snprintf(b.name, sizeof(b.name), "body%d", m->nbody);
  }
  b.parent = parent;
  b.joint = joint;
  b.X_PF = X_PF;
  b.X_BM = X_BM;
  b.mass = mass;
  b.com = com;
  b.inertia = inertia;
  csError err = {0};
  int id = cs_addBody(m, &b, &err);
  if (id <= 0) {
    print_error("body '%s' refused: %s\n", b.name, err.message);
    fail();
  }
  return id;
}


int th_addFreeBody(csModel* m, const char* name, double mass, csVec3 com, csMat33 inertia) {
  return th_addBody(m, name, 0, CS_JOINT_FREE, csu_transformIdentity(), csu_transformIdentity(),
                    mass, com, inertia);
}


int th_addPlane(csModel* m, const char* name, int body, csTransform X_BP) {
  csPlane pl;
  memset(&pl, 0, sizeof(pl));
  snprintf(pl.name, sizeof(pl.name), "%s", name);
  pl.body = body;
  pl.X_BP = X_BP;
  csError err = {0};
  int id = cs_addPlane(m, &pl, &err);
  if (id < 0) {
    print_error("plane '%s' refused: %s\n", name, err.message);
    fail();
  }
  return id;
}


int th_addForce(csModel* m, int kind, const char* name) {
  csError err = {0};
  int e = cs_addForce(m, kind, name, &err);
  if (e < 0) {
    print_error("force '%s' refused: %s\n", name, err.message);
    fail();
  }
  return e;
}


void th_setParam(csModel* m, int e, const char* key, double value) {
  if (cs_setForceParam(m, e, key, value) != 0) {
    print_error("no parameter '%s'\n", key);
    fail();
  }
}


void th_finalize(csModel* m) {
  csError err = {0};
  if (cs_finalizeModel(m, &err) != 0) {
    print_error("finalize: %s: %s\n", err.path, err.message);
    fail();
  }
}


csSimOptions th_simOptions(double duration, double rtol, double atol, double report_interval) {
  csSimOptions o = cs_defaultSimOptions();
  o.duration = duration;
  o.rtol = rtol;
  o.atol = atol;
  o.report_interval = report_interval;
  return o;
}


csMat33 th_diag(double a, double b, double c) {
  csMat33 r = {{{a, 0, 0}, {0, b, 0}, {0, 0, c}}};
  return r;
}


void th_setFreeState(const csModel* m, double* q, double* u, int b, csQuat R, csVec3 p, csVec3 w,
                     csVec3 v) {
  double* qb = q + m->body[b].qadr;
  qb[0] = R.w;
  qb[1] = R.x;
  qb[2] = R.y;
  qb[3] = R.z;
  csu_vec3ToArray(qb + 4, p);
  if (u) {
    double* ub = u + m->body[b].uadr;
    csu_vec3ToArray(ub, w);
    csu_vec3ToArray(ub + 3, v);
  }
}


thBounce th_measureBounce(const csModel* m, const thTrace* tr, int b, double g, double z0,
                          double contact_z, double clear) {
  // columns of the body's height and vertical speed (free joint: quaternion, then position)
  int qz = m->body[b].qadr + 6, uz = m->body[b].uadr + 5;
  thBounce res = {0};
  double scale = g * (z0 - contact_z);
  double e0 = tr->ke[0] + tr->pe[0] + tr->diss[0];
  for (int i = 0; i < tr->n; i++) {
    double drift = fabs(tr->ke[i] + tr->pe[i] + tr->diss[i] - e0) / scale;
    res.drift = drift > res.drift ? drift : res.drift;
  }
  // first sample rising again, then the first one in free flight after it
  int i = 0;
  while (i < tr->n && tr->u[i * tr->nu + uz] <= 0) {
    i++;
  }
  while (i < tr->n && !(tr->q[i * tr->nq + qz] > contact_z + clear && tr->u[i * tr->nu + uz] > 0)) {
    i++;
  }
  assert_true(i < tr->n);
  double z = tr->q[i * tr->nq + qz], vz = tr->u[i * tr->nu + uz];
  // free flight: vz^2 + 2 g z is constant
  res.apex = z + vz * vz / (2 * g);
  double vout = sqrt(vz * vz + 2 * g * (z - contact_z));
  double vin = sqrt(2 * g * (z0 - contact_z));
  res.cor = vout / vin;
  res.lost = tr->diss[i] / scale;
  return res;
}
