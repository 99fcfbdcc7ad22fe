// model.c: building a model (bodies, planes, force elements, scheduled changes) and laying out
// its state. The loader calls these; nothing here touches a state or a file.
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "assert.h"
#include "contactsim/contactsim.h"
#include "error.h"


int cs_jointQnum(csJointType type) {
  static const int qnum[CS_JOINT_COUNT] = {0, 1, 1, 4, 7};
  return (type >= 0 && type < CS_JOINT_COUNT) ? qnum[type] : 0;
}


int cs_jointUnum(csJointType type) {
  static const int unum[CS_JOINT_COUNT] = {0, 1, 1, 3, 6};
  return (type >= 0 && type < CS_JOINT_COUNT) ? unum[type] : 0;
}


csSimOptions cs_defaultSimOptions(void) {
  csSimOptions o;
  o.duration = 1.0;
  o.integrator = CS_INTEGRATOR_BDF;
  o.linsol = CS_LINSOL_AUTO;
  o.rtol = 1e-6;
  o.atol = 1e-8;
  o.max_step = 0;
  o.initial_step = 0;
  o.max_steps = 100000;
  o.report_interval = 0.01;
  return o;
}


// grow an array of n elements of size sz to hold at least one more; returns 0 or -1
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


static void copyName(char* dst, const char* src) {
  snprintf(dst, CS_MAX_NAME, "%s", src ? src : "");
}


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


void cs_deleteModel(csModel* m) {
  if (!m) {
    return;
  }
  csu_free(m->body, (size_t)m->capbody * sizeof(csBody));
  csu_free(m->plane, (size_t)m->capplane * sizeof(csPlane));
  csu_free(m->force, (size_t)m->capforce * sizeof(csForce));
  csu_free(m->change, (size_t)m->capchange * sizeof(csChange));
  csu_free(m->group_name, (size_t)m->capgroup * CS_MAX_NAME);
  csu_free(m->q0, (size_t)m->nq * sizeof(double));
  csu_free(m->u0, (size_t)m->nu * sizeof(double));
  csu_free(m, sizeof(csModel));
}


int cs_addBody(csModel* m, const csBody* b, csError* err) {
  if (m->finalized) {
    cs_setError(err, CS_ERR_INPUT, "", "bodies cannot be added after the model is finalized");
    return -1;
  }
  if (m->nbody > 0 && (b->parent < 0 || b->parent >= m->nbody)) {
    cs_setError(err, CS_ERR_INPUT, "", "body '%s' has parent id %d, which is not an existing body",
                b->name, b->parent);
    return -1;
  }
  if (grow((void**)&m->body, &m->capbody, m->nbody, sizeof(csBody))) {
    cs_setError(err, CS_ERR_MEMORY, "", "out of memory adding a body");
    return -1;
  }
  csBody* nb = &m->body[m->nbody];
  *nb = *b;
  nb->qnum = cs_jointQnum(b->joint);
  nb->unum = cs_jointUnum(b->joint);
  return m->nbody++;
}


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
        for (int j = 0; j < 7; j++) {
          f->param[p->slot + j] = (j == 3) ? 1.0 : 0.0;
        }
        break;
      case CS_PARAM_BODY:
      case CS_PARAM_PLANE:
      case CS_PARAM_INT:
        f->ref[p->slot] = (int)p->value;
        break;
    }
  }
  return m->nforce++;
}


int cs_setForceParam(csModel* m, int e, const char* key, double value) {
  const csForceKind* k = cs_forceKind(m->force[e].kind);
  for (int i = 0; i < k->nparams; i++) {
    if (strcmp(k->params[i].key, key) == 0) {
      const csParamInfo* p = &k->params[i];
      if (p->type == CS_PARAM_REAL) {
        m->force[e].param[p->slot] = value;
      } else if (p->type == CS_PARAM_BODY || p->type == CS_PARAM_PLANE || p->type == CS_PARAM_INT) {
        m->force[e].ref[p->slot] = (int)value;
      } else {
        return -1;
      }
      return 0;
    }
  }
  return -1;
}


int cs_addChange(csModel* m, const csChange* c, csError* err) {
  if (grow((void**)&m->change, &m->capchange, m->nchange, sizeof(csChange))) {
    cs_setError(err, CS_ERR_MEMORY, "", "out of memory adding a change");
    return -1;
  }
  // keep sorted by time (stable: equal times keep their order)
  int i = m->nchange;
  while (i > 0 && m->change[i - 1].time > c->time) {
    m->change[i] = m->change[i - 1];
    i--;
  }
  m->change[i] = *c;
  m->nchange++;
  return i;
}


int cs_addGroup(csModel* m, const char* name, csError* err) {
  if (grow((void**)&m->group_name, &m->capgroup, m->ngroup, CS_MAX_NAME)) {
    cs_setError(err, CS_ERR_MEMORY, "", "out of memory adding a contact set");
    return -1;
  }
  copyName(m->group_name[m->ngroup], name);
  return m->ngroup++;
}


int cs_finalizeModel(csModel* m, csError* err) {
  if (m->finalized) {
    return 0;
  }
  // lay out q and u along the body order (parents always precede children)
  m->nq = m->nu = 0;
  for (int b = 0; b < m->nbody; b++) {
    csBody* body = &m->body[b];
    body->qadr = m->nq;
    body->uadr = m->nu;
    m->nq += body->qnum;
    m->nu += body->unum;
  }
  // force elements: z, discrete, auto-update, report columns
  m->nz = m->ndisc = m->nauto = m->nextra = 0;
  for (int e = 0; e < m->nforce; e++) {
    csForce* f = &m->force[e];
    const csForceKind* k = cs_forceKind(f->kind);
    if (k->validate && k->validate(m, f, err) != 0) {
      if (err->code == CS_OK) {
        err->code = CS_ERR_INPUT;
      }
      return -1;
    }
    f->dissadr = k->dissipative ? m->nz++ : -1;
    f->zadr = m->nz;
    f->znum = k->znum;
    m->nz += k->znum;
    f->discadr = m->ndisc;
    f->discnum = k->discnum;
    m->ndisc += k->discnum;
    f->autoadr = m->nauto;
    f->autonum = k->autonum;
    m->nauto += k->autonum;
    f->repadr = m->nextra;
    m->nextra += k->nextra;
  }
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


static int findName(const char* names, size_t stride, int n, const char* name) {
  for (int i = 0; i < n; i++) {
    if (strcmp(names + (size_t)i * stride, name) == 0) {
      return i;
    }
  }
  return -1;
}


int cs_bodyId(const csModel* m, const char* name) {
  return findName(m->body[0].name, sizeof(csBody), m->nbody, name);
}


int cs_planeId(const csModel* m, const char* name) {
  return m->nplane ? findName(m->plane[0].name, sizeof(csPlane), m->nplane, name) : -1;
}


int cs_forceId(const csModel* m, const char* name) {
  return m->nforce ? findName(m->force[0].name, sizeof(csForce), m->nforce, name) : -1;
}
