// model.c: building a model (bodies, planes, force elements, scheduled changes) and laying out
// its state. The loader calls these; nothing here touches a state, and of a file only its
// identity is read (cs_modelSetSceneFile, cs_modelIsSceneFile: the scene file outputs never
// replace).
//
// A model is built in two phases. The cs_add* calls only append (arrays grow by doubling) and
// check what they can see at once, such as a body's parent existing. cs_finalizeModel then fixes
// the layout: q and u addresses along the body order, and each force element's addresses in the
// z, discrete, auto-update and report arrays. Doing this in one pass at the end keeps the cs_add*
// calls free of ordering rules beyond parents first: the loader may add elements and set their
// parameters in any order, and each element is validated once its parameters are final.
#define _XOPEN_SOURCE 700  // realpath is an X/Open function
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "engine/assert.h"
#include "contactsim/contactsim.h"
#include "engine/error.h"
#include "engine/model.h"


// q per joint type (weld, pin, slider, ball, free): a quaternion for ball, plus a position for free
int cs_jointQnum(csJointType type) {
  static const int qnum[CS_JOINT_COUNT] = {0, 1, 1, 4, 7};
  return (type >= 0 && type < CS_JOINT_COUNT) ? qnum[type] : 0;
}


// u per joint type: one fewer than q for ball and free (a quaternion's norm is not a freedom)
int cs_jointUnum(csJointType type) {
  static const int unum[CS_JOINT_COUNT] = {0, 1, 1, 3, 6};
  return (type >= 0 && type < CS_JOINT_COUNT) ? unum[type] : 0;
}


// Defaults of a run that neither the scene nor the caller overrides: BDF for stiff contact,
// tolerances for metres and seconds, max_step 0 = unlimited, initial_step 0 = CVODE's estimate.
csSimOptions cs_defaultSimOptions(void) {
  csSimOptions o;
  o.duration = 1.0;
  o.integrator = CS_INTEGRATOR_BDF;
  o.linsol = CS_LINSOL_AUTO;
  o.rtol = 3e-7;
  o.atol = 1e-8;
  o.max_step = 0;
  o.initial_step = 0;
  o.max_steps = 100000;
  o.report_interval = 0.01;
  o.max_rows = CS_DEFAULT_MAX_ROWS;
  return o;
}


// grow an array of n elements of size sz to hold at least one more; returns 0 or -1
// (doubling from 8 keeps a long run of appends linear in total; csu_realloc zeroes the new tail)
static int grow(void** array, int* cap, int n, size_t sz) {
  if (n < *cap) {
    return 0;
  }
  int newcap = *cap ? 2 * *cap : 8;
  void* p = csu_realloc(*array, (size_t)*cap * sz, (size_t)newcap * sz);
  if (!p) {
    return -1;
  }
  *array = p;
  *cap = newcap;
  return 0;
}


// truncated to CS_MAX_NAME - 1 characters and always terminated; NULL is the empty name
static void copyName(char* dst, const char* src) {
  snprintf(dst, CS_MAX_NAME, "%s", src ? src : "");
}


// A new model holds only ground. Its gravity vector acts only through a gravity force element.
csModel* cs_newModel(const char* name) {
  csModel* m = csu_malloc(sizeof(csModel));
  if (!m) {
    return NULL;
  }
  copyName(m->name, name);
  m->gravity = csu_vec3(0, 0, -9.81);
  m->opt = cs_defaultSimOptions();

  // body 0 is ground: no joint, infinite mass in effect (never integrated)
  csBody ground;
  memset(&ground, 0, sizeof(ground));
  copyName(ground.name, "ground");
  ground.parent = -1;
  ground.joint = CS_JOINT_WELD;
  ground.X_PF = csu_transformIdentity();
  ground.X_BM = csu_transformIdentity();
  ground.inertia = csu_identity33();
  csError err;
  if (cs_addBody(m, &ground, &err) != 0) {
    cs_deleteModel(m);
    return NULL;
  }
  return m;
}


// NULL-safe; each array is freed with the capacity it was grown to
void cs_deleteModel(csModel* m) {
  if (!m) {
    return;
  }
  csu_free(m->body, (size_t)m->capbody * sizeof(csBody));
  csu_free(m->plane, (size_t)m->capplane * sizeof(csPlane));
  csu_free(m->force, (size_t)m->capforce * sizeof(csForce));
  csu_free(m->change, (size_t)m->capchange * sizeof(csChange));
  csu_free(m->group_name, (size_t)m->capgroup * CS_MAX_NAME);
  csu_free(m->diss_z, (size_t)(m->ndiss + 1) * sizeof(int));
  csu_free(m->q0, (size_t)m->nq * sizeof(double));
  csu_free(m->u0, (size_t)m->nu * sizeof(double));
  csu_free(m->source, m->source_size);
  csu_free(m, sizeof(csModel));
}


// 1 when X is a rigid transform: finite, its R orthonormal with determinant +1 (to 1e-6, so that
// a rotation read from single precision, accurate to about 6e-8, passes)
static int rigidTransform(const csTransform* X) {
  if (!csu_isFiniteVec3(X->p)) {
    return 0;
  }
  csMat33 RtR = csu_mulMtM(&X->R, &X->R);
  for (int i = 0; i < 3; i++) {
    for (int j = 0; j < 3; j++) {
      if (!(fabs(RtR.m[i][j] - (i == j)) <= 1e-6)) {
        return 0;
      }
    }
  }
  const double(*R)[3] = X->R.m;
  double det = R[0][0] * (R[1][1] * R[2][2] - R[1][2] * R[2][1]) -
               R[0][1] * (R[1][0] * R[2][2] - R[1][2] * R[2][0]) +
               R[0][2] * (R[1][0] * R[2][1] - R[1][1] * R[2][0]);
  return det > 0;
}


// what is wrong with body b as the next body of a model (ground, the first, is not checked), or
// NULL (a name given twice is found by cs_finalizeModel, in one sort of them all):
// what the scene loader checks of a body, so that a body built in code is held to the same
// rules (a NaN or negative mass ran on, or failed later as an integrator's error)
static const char* bodyProblem(const csBody* b) {
  if (!b->name[0] || !memchr(b->name, '\0', sizeof(b->name))) {
    return "has no name, or one not ended within CS_MAX_NAME bytes";
  }
  if ((int)b->joint < 0 || b->joint >= CS_JOINT_COUNT) {
    return "has a joint type that does not exist";
  }
  // massless bodies (frames between two joints) and point masses are the C API's to build,
  // as long as the bodies beyond keep the tree's mass matrix positive definite
  if (!(b->mass >= 0) || !isfinite(b->mass)) {
    return "needs a finite mass, positive or zero";
  }
  if (!csu_isFiniteVec3(b->com)) {
    return "has a centre of mass that is not finite";
  }
  int zero = 1;
  for (int i = 0; i < 9; i++) {
    zero &= (&b->inertia.m[0][0])[i] == 0;
  }
  if (!zero && !csu_inertiaIsValid(&b->inertia)) {
    return "has an inertia that is neither zero nor symmetric positive definite, finite and "
           "within the triangle inequality";
  }
  if (!rigidTransform(&b->X_PF) || !rigidTransform(&b->X_BM)) {
    return "has a joint frame (X_PF or X_BM) that is not finite or whose rotation is not "
           "orthonormal";
  }
  return NULL;
}


// Append a body; the parent must already exist, so parents always precede children, the order
// every pass over the tree relies on. q and u addresses wait for cs_finalizeModel.
int cs_addBody(csModel* m, const csBody* b, csError* err) {
  // bodies change the state layout, so they are refused once it is fixed
  if (m->finalized) {
    cs_setError(err, CS_ERR_INPUT, "", "bodies cannot be added after the model is finalized");
    return -1;
  }
  // every body but ground (the first one added) hangs from an existing body
  if (m->nbody > 0 && (b->parent < 0 || b->parent >= m->nbody)) {
    cs_setError(err, CS_ERR_INPUT, "", "body '%s' has parent id %d, which is not an existing body",
                b->name, b->parent);
    return -1;
  }
  const char* problem = m->nbody > 0 ? bodyProblem(b) : NULL;
  if (problem) {
    cs_setError(err, CS_ERR_INPUT, "", "body '%.*s' %s", CS_MAX_NAME - 1, b->name, problem);
    return -1;
  }
  if (grow((void**)&m->body, &m->capbody, m->nbody, sizeof(csBody))) {
    cs_setError(err, CS_ERR_MEMORY, "", "out of memory adding a body");
    return -1;
  }
  // copy, then fill what the joint type implies
  csBody* nb = &m->body[m->nbody];
  *nb = *b;
  nb->qnum = cs_jointQnum(b->joint);
  nb->unum = cs_jointUnum(b->joint);
  return m->nbody++;
}


// A plane is a frame on an existing body; it adds no state variables.
int cs_addPlane(csModel* m, const csPlane* p, csError* err) {
  if (p->body < 0 || p->body >= m->nbody) {
    cs_setError(err, CS_ERR_INPUT, "", "plane '%s' is on body id %d, which does not exist",
                p->name, p->body);
    return -1;
  }
  if (grow((void**)&m->plane, &m->capplane, m->nplane, sizeof(csPlane))) {
    cs_setError(err, CS_ERR_MEMORY, "", "out of memory adding a plane");
    return -1;
  }
  m->plane[m->nplane] = *p;
  return m->nplane++;
}


// Append an element of the given kind: every parameter unset (NaN, references -1), then the
// kind's defaults. The caller or the loader sets the rest (cs_setForceParam, or m->force[e]
// directly); the kind's validate callback checks them in cs_finalizeModel.
int cs_addForce(csModel* m, int kind, const char* name, csError* err) {
  const csForceKind* k = cs_forceKind(kind);
  if (!k) {
    cs_setError(err, CS_ERR_INPUT, "", "force kind %d does not exist", kind);
    return -1;
  }
  if (m->finalized) {
    cs_setError(err, CS_ERR_INPUT, "", "forces cannot be added after the model is finalized");
    return -1;
  }
  if (grow((void**)&m->force, &m->capforce, m->nforce, sizeof(csForce))) {
    cs_setError(err, CS_ERR_MEMORY, "", "out of memory adding a force element");
    return -1;
  }
  // NaN marks a real parameter nobody set, which validate can tell from a legitimate zero;
  // group -1: in no contact set
  csForce* f = &m->force[m->nforce];
  memset(f, 0, sizeof(*f));
  copyName(f->name, name);
  f->kind = kind;
  f->group = -1;
  for (int i = 0; i < CS_MAX_PARAM; i++) {
    f->param[i] = NAN;
  }
  for (int i = 0; i < CS_MAX_REF; i++) {
    f->ref[i] = -1;
  }
  // defaults from the kind's parameter table
  for (int i = 0; i < k->nparams; i++) {
    const csParamInfo* p = &k->params[i];
    // optional parameters keep NaN or -1, which the kind reads as "not given"
    if (p->flags & CS_PARAM_OPTIONAL) {
      continue;
    }
    switch (p->type) {
      case CS_PARAM_REAL:
        f->param[p->slot] = p->value;
        break;
      case CS_PARAM_VEC3:
        for (int j = 0; j < 3; j++) {
          f->param[p->slot + j] = p->value;
        }
        break;
      case CS_PARAM_FRAME:
        // a frame: position zero and the identity quaternion (w at slot + 3)
        for (int j = 0; j < 7; j++) {
          f->param[p->slot + j] = (j == 3) ? 1.0 : 0.0;
        }
        break;
      // ids and integers go in ref[], not param[]
      case CS_PARAM_BODY:
      case CS_PARAM_PLANE:
      case CS_PARAM_INT:
      case CS_PARAM_CHOICE:
        f->ref[p->slot] = (int)p->value;
        break;
    }
  }
  return m->nforce++;
}


// Set one scalar parameter or reference by its key in the kind's table (the name the JSON loader
// uses). -1 for an unknown key or a vector or frame parameter, which spans several slots.
int cs_setForceParam(csModel* m, int e, const char* key, double value) {
  const csForceKind* k = cs_forceKind(m->force[e].kind);
  for (int i = 0; i < k->nparams; i++) {
    if (strcmp(k->params[i].key, key) == 0) {
      const csParamInfo* p = &k->params[i];
      if (p->type == CS_PARAM_REAL) {
        m->force[e].param[p->slot] = value;
        // a finalized model's derived constants follow the parameter they come from
        if (m->finalized && k->prepare) {
          k->prepare(m, &m->force[e]);
        }
      } else if (p->type == CS_PARAM_BODY || p->type == CS_PARAM_PLANE || p->type == CS_PARAM_INT ||
                 p->type == CS_PARAM_CHOICE) {
        // a choice is set by its index in the kind's list (the kind's validate checks it)
        m->force[e].ref[p->slot] = (int)value;
      } else {
        return -1;
      }
      return 0;
    }
  }
  return -1;
}


// Schedule a change of one discrete variable. Whether the element has that variable is checked in
// cs_finalizeModel, where the elements' discrete counts are known.
int cs_addChange(csModel* m, const csChange* c, csError* err) {
  if (grow((void**)&m->change, &m->capchange, m->nchange, sizeof(csChange))) {
    cs_setError(err, CS_ERR_MEMORY, "", "out of memory adding a change");
    return -1;
  }
  // keep sorted by time (stable: equal times keep their order)
  // insertion from the end: the integrator walks the changes in order, and scenes list them mostly
  // in order, so this is usually one comparison
  int i = m->nchange;
  while (i > 0 && m->change[i - 1].time > c->time) {
    m->change[i] = m->change[i - 1];
    i--;
  }
  m->change[i] = *c;
  m->nchange++;
  return i;
}


// A named contact set: the CSV reports its total force and centre of pressure. Elements join it
// through csForce.group.
int cs_addGroup(csModel* m, const char* name, csError* err) {
  if (grow((void**)&m->group_name, &m->capgroup, m->ngroup, CS_MAX_NAME)) {
    cs_setError(err, CS_ERR_MEMORY, "", "out of memory adding a contact set");
    return -1;
  }
  copyName(m->group_name[m->ngroup], name);
  return m->ngroup++;
}


static int compareNames(const void* a, const void* b) {
  return strcmp(*(const char* const*)a, *(const char* const*)b);
}


// a name two bodies share into *repeated, or NULL (-1: out of memory); sorted, not searched per
// body (a search per body added was quadratic: 7 billion instructions for 20,000 bodies)
static int repeatedBodyName(const csModel* m, const char** repeated) {
  *repeated = NULL;
  const char** names = csu_malloc(sizeof(char*) * (size_t)(m->nbody + 1));
  if (!names) {
    return -1;
  }
  for (int b = 0; b < m->nbody; b++) {
    names[b] = m->body[b].name;
  }
  qsort(names, (size_t)m->nbody, sizeof(char*), compareNames);
  for (int b = 1; b < m->nbody && !*repeated; b++) {
    if (strcmp(names[b - 1], names[b]) == 0) {
      *repeated = names[b];
    }
  }
  csu_free(names, sizeof(char*) * (size_t)(m->nbody + 1));
  return 0;
}


// Freeze the model: assign addresses, validate every element (the first failure fills err),
// check the scheduled changes, and set the initial state. A second call does nothing.
int cs_finalizeModel(csModel* m, csError* err) {
  if (m->finalized) {
    return 0;
  }
  const char* repeated = NULL;
  if (repeatedBodyName(m, &repeated) != 0) {
    cs_setError(err, CS_ERR_MEMORY, "", "out of memory checking the bodies' names");
    return -1;
  }
  if (repeated) {
    cs_setError(err, CS_ERR_INPUT, "", "two bodies are named '%.*s': a name finds one body",
                CS_MAX_NAME - 1, repeated);
    return -1;
  }
  // lay out q and u along the body order (parents always precede children)
  m->nq = m->nu = 0;
  for (int b = 0; b < m->nbody; b++) {
    csBody* body = &m->body[b];
    body->X_MB = csu_transformInverse(&body->X_BM);
    body->qadr = m->nq;
    body->uadr = m->nu;
    m->nq += body->qnum;
    m->nu += body->unum;
  }
  // bodies welded to ground through welds never move; an element's home is the highest moving
  // body it refers to (through body or plane parameters)
  int* dissOfBody = csu_malloc(sizeof(int) * (size_t)m->nbody);
  csu_free(m->diss_z, 0);  // a finalize that failed validation may be retried
  m->diss_z = csu_malloc(sizeof(int) * (size_t)(m->nforce + 1));
  if (!dissOfBody || !m->diss_z) {
    csu_free(dissOfBody, 0);
    cs_setError(err, CS_ERR_MEMORY, "", "out of memory laying out the state");
    return -1;
  }
  for (int b = 0; b < m->nbody; b++) {
    csBody* body = &m->body[b];
    body->fixed = b == 0 || (body->joint == CS_JOINT_WELD && m->body[body->parent].fixed);
    dissOfBody[b] = -1;
  }
  // force elements: z, discrete, auto-update, report columns
  m->nz = m->ndisc = m->nauto = m->nextra = m->ndiss = 0;
  for (int e = 0; e < m->nforce; e++) {
    csForce* f = &m->force[e];
    const csForceKind* k = cs_forceKind(f->kind);
    // validate sees the final parameters; a kind that forgets to set a code still fails as input
    if (k->validate && k->validate(m, f, err) != 0) {
      if (err->code == CS_OK) {
        err->code = CS_ERR_INPUT;
      }
      csu_free(dissOfBody, 0);
      return -1;
    }
    if (k->prepare) {
      k->prepare(m, f);
    }
    f->home = 0;
    for (int i = 0; i < k->nparams; i++) {
      const csParamInfo* p = &k->params[i];
      int b = p->type == CS_PARAM_BODY                               ? f->ref[p->slot]
              : p->type == CS_PARAM_PLANE && f->ref[p->slot] >= 0 ? m->plane[f->ref[p->slot]].body
                                                                     : -1;
      if (b > 0 && b < m->nbody && !m->body[b].fixed && b > f->home) {
        f->home = b;
      }
    }
    // Dissipated energy: one z state per home body, which all the dissipative elements homed
    // there add their power to. Only the total is ever reported, and a state per element would
    // make the integrator carry (and control the error of) eight extra states for a block on
    // eight corner springs. An element with no moving body keeps a state of its own.
    f->dissadr = -1;
    if (k->dissipative) {
      if (f->home > 0 && dissOfBody[f->home] >= 0) {
        f->dissadr = dissOfBody[f->home];
      } else {
        f->dissadr = m->nz++;
        m->diss_z[m->ndiss++] = f->dissadr;
        if (f->home > 0) {
          dissOfBody[f->home] = f->dissadr;
        }
      }
    }
    f->zadr = m->nz;
    f->znum = k->znum;
    m->nz += k->znum;
    f->discadr = m->ndisc;
    f->discnum = k->discnum;
    m->ndisc += k->discnum;
    f->autoadr = m->nauto;
    f->autonum = k->autonum;
    m->nauto += k->autonum;
    // model-specific report values get consecutive columns in force_extra
    f->repadr = m->nextra;
    m->nextra += k->nextra;
  }
  csu_free(dissOfBody, 0);
  // each change must name an existing element and one of its discrete variables
  for (int c = 0; c < m->nchange; c++) {
    const csChange* ch = &m->change[c];
    if (ch->force < 0 || ch->force >= m->nforce || ch->index < 0 ||
        ch->index >= m->force[ch->force].discnum) {
      cs_setError(err, CS_ERR_INPUT, "", "change %d names a discrete variable that does not exist",
                  c);
      return -1;
    }
  }
  // initial state: identity poses, zero speeds
  m->q0 = csu_malloc((size_t)(m->nq ? m->nq : 1) * sizeof(double));
  m->u0 = csu_malloc((size_t)(m->nu ? m->nu : 1) * sizeof(double));
  if (!m->q0 || !m->u0) {
    cs_setError(err, CS_ERR_MEMORY, "", "out of memory laying out the state");
    return -1;
  }
  // the arrays are zeroed; only each quaternion's w needs setting
  for (int b = 1; b < m->nbody; b++) {
    const csBody* body = &m->body[b];
    if (body->joint == CS_JOINT_BALL || body->joint == CS_JOINT_FREE) {
      m->q0[body->qadr] = 1.0;
    }
  }
  // whole-model consistency (the validate build option): parents precede children, the q and
  // u ranges tile the state, every element's variables lie inside their arrays
  for (int b = 1; b < m->nbody; b++) {
    const csBody* body = &m->body[b];
    CS_VALIDATE(body->parent >= 0 && body->parent < b, "a body's parent must come before it");
    CS_VALIDATE(body->qadr + body->qnum <= m->nq && body->uadr + body->unum <= m->nu,
                "a mobilizer's coordinates must lie inside q and u");
  }
  for (int e = 0; e < m->nforce; e++) {
    const csForce* f = &m->force[e];
    CS_VALIDATE(f->zadr + f->znum <= m->nz && f->discadr + f->discnum <= m->ndisc &&
                    f->autoadr + f->autonum <= m->nauto && f->dissadr < m->nz,
                "a force element's variables must lie inside the state arrays");
  }
  m->finalized = 1;
  return 0;
}


// Linear search of a name field through an array of structs: names points at element 0's name and
// stride is the struct's size. Lookups happen while loading, over tens of entries, so no index is
// kept.
static int findName(const char* names, size_t stride, int n, const char* name) {
  // no name is no element's (the lookups are documented to give -1 for a name not found)
  for (int i = 0; name && i < n; i++) {
    if (strcmp(names + (size_t)i * stride, name) == 0) {
      return i;
    }
  }
  return -1;
}


// ids by name, -1 when absent; with no planes or forces the arrays may be NULL, hence the guards
int cs_bodyId(const csModel* m, const char* name) {
  return findName(m->body[0].name, sizeof(csBody), m->nbody, name);
}


int cs_planeId(const csModel* m, const char* name) {
  return m->nplane ? findName(m->plane[0].name, sizeof(csPlane), m->nplane, name) : -1;
}


int cs_forceId(const csModel* m, const char* name) {
  return m->nforce ? findName(m->force[0].name, sizeof(csForce), m->nforce, name) : -1;
}


void cs_modelSetSceneFile(csModel* m, const char* path) {
  struct stat st;
  m->file_known = path && path[0] && stat(path, &st) == 0 && S_ISREG(st.st_mode);
  m->file_dev = m->file_known ? (unsigned long long)st.st_dev : 0;
  m->file_ino = m->file_known ? (unsigned long long)st.st_ino : 0;
  char* abs = m->file_known ? realpath(path, NULL) : NULL;
  m->file_abs[0] = '\0';
  if (abs && strlen(abs) < sizeof(m->file_abs)) {
    memcpy(m->file_abs, abs, strlen(abs) + 1);
  }
  free(abs);  // realpath's own allocation
  // the name's own absolute path: its directory resolved, its last part kept (a link named as
  // the scene, replaced by a regular file by an editor or sed -i, is the scene still)
  m->file_name_abs[0] = '\0';
  const char* slash = m->file_known ? strrchr(path, '/') : NULL;
  char dir[CS_MAX_FILE];
  snprintf(dir, sizeof(dir), "%.*s", slash ? (int)(slash - path) + (slash == path) : 1,
           slash ? path : ".");
  char* dirAbs = m->file_known ? realpath(dir, NULL) : NULL;
  if (dirAbs) {
    snprintf(m->file_name_abs, sizeof(m->file_name_abs), "%s/%s", strcmp(dirAbs, "/") ? dirAbs : "",
             slash ? slash + 1 : path);
  }
  free(dirAbs);
}


void cs_modelCopySceneFile(csModel* dst, const csModel* src) {
  dst->file_known = src->file_known;
  dst->file_dev = src->file_dev;
  dst->file_ino = src->file_ino;
  memcpy(dst->file_abs, src->file_abs, sizeof(dst->file_abs));
  memcpy(dst->file_name_abs, src->file_name_abs, sizeof(dst->file_name_abs));
}


int cs_modelIsSceneFile(const csModel* m, const char* path) {
  struct stat st, now;
  if (!m || !m->file_known || !path || stat(path, &st) != 0) {
    return 0;
  }
  // the file loaded, or the one at its absolute path now (an editor, git or sed -i saves a new
  // file there, under another identity)
  if ((unsigned long long)st.st_dev == m->file_dev &&
      (unsigned long long)st.st_ino == m->file_ino) {
    return 1;
  }
  const char* names[2] = {m->file_abs, m->file_name_abs};
  for (int i = 0; i < 2; i++) {
    if (names[i][0] && stat(names[i], &now) == 0 && now.st_dev == st.st_dev &&
        now.st_ino == st.st_ino) {
      return 1;
    }
  }
  return 0;
}


// One blob rather than a struct of strings: the model stays one object with one owned block
// for its source, and copying the overrides needs no per-string bookkeeping.
csModel* cs_modelKeepSource(csModel* m, const char* text, size_t len, const csLoadOptions* opt,
                            csError* err) {
  if (!m) {
    return NULL;
  }
  const char* cm = opt && opt->contact_model ? opt->contact_model : "";
  int nov = opt && opt->overrides ? opt->noverrides : 0;
  // sizes: text, contact model, then every key and value, each with its terminating zero
  size_t size = len + 1 + strlen(cm) + 1;
  for (int i = 0; i < nov; i++) {
    size += strlen(opt->overrides[i].key) + 1 + strlen(opt->overrides[i].value) + 1;
  }
  char* blob = csu_malloc(size);
  if (!blob) {
    cs_setError(err, CS_ERR_MEMORY, "", "out of memory keeping the scene text");
    cs_deleteModel(m);
    return NULL;
  }
  // copy them in that order
  char* p = blob;
  memcpy(p, text, len);
  p[len] = '\0';
  p += len + 1;
  p = stpcpy(p, cm) + 1;
  for (int i = 0; i < nov; i++) {
    p = stpcpy(p, opt->overrides[i].key) + 1;
    p = stpcpy(p, opt->overrides[i].value) + 1;
  }
  csu_free(m->source, m->source_size);
  m->source = blob;
  m->source_size = size;
  m->source_len = len;
  m->source_noverride = nov;
  return m;
}
