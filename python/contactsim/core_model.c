// core_model.c: contactsim.Model, a loaded scene (an immutable csModel), and the functions that
// load one from a file or from text.
#include "core.h"

#include <limits.h>
#include <string.h>

// ---------------------------------------------------------------------------------------------
// loading

// The overrides as the library takes them: a sequence of (key, JSON text) pairs, both str. The
// Python side (contactsim.load) turns a mapping of values into these pairs with json.dumps. As
// many as given, as the command line takes any number of --set (*out: PyMem, the caller's to
// free). The csOverride strings point into the Python objects, which `seq` (a new reference kept
// in *keep) holds alive until the load is over.
static int readOverrides(PyObject* overrides, csOverride** out, int* n, PyObject** keep) {
  *n = 0;
  *out = NULL;
  *keep = NULL;
  if (!overrides || overrides == Py_None) {
    return 0;
  }
  PyObject* seq = PySequence_Fast(overrides, "overrides must be a sequence of (key, json) pairs");
  if (!seq) {
    return -1;
  }
  Py_ssize_t count = PySequence_Fast_GET_SIZE(seq);
  if (count > INT_MAX) {
    Py_DECREF(seq);
    PyErr_NoMemory();
    return -1;
  }
  csOverride* ov = PyMem_Calloc((size_t)count + 1, sizeof(csOverride));
  if (!ov) {
    Py_DECREF(seq);
    PyErr_NoMemory();
    return -1;
  }
  for (Py_ssize_t i = 0; i < count; i++) {
    PyObject* pair = PySequence_Fast_GET_ITEM(seq, i);
    const char* key = NULL;
    const char* value = NULL;
    if (!PyTuple_Check(pair) || !PyArg_ParseTuple(pair, "ss", &key, &value)) {
      Py_DECREF(seq);
      PyMem_Free(ov);
      if (!PyErr_Occurred()) {
        PyErr_SetString(PyExc_TypeError, "each override must be a (key, json) pair of str");
      }
      return -1;
    }
    ov[i].key = key;
    ov[i].value = value;
  }
  *n = (int)count;
  *out = ov;
  *keep = seq;
  return 0;
}


// wrap a freshly loaded model; takes ownership of m (freed on failure)
static PyObject* wrapModel(csModel* m, PyObject* contact_model, PyObject* source) {
  csPyModel* self = PyObject_New(csPyModel, &csPy_ModelType);
  if (!self) {
    cs_deleteModel(m);
    return NULL;
  }
  self->m = m;
  self->weakrefs = NULL;
  Py_INCREF(contact_model);
  self->contact_model = contact_model;
  Py_INCREF(source);
  self->source = source;
  return (PyObject*)self;
}


// load a file (text NULL) or text: the shared part of load() and loads()
static PyObject* loadCommon(PyObject* pathobj, const char* text, const char* filename,
                            PyObject* contact_model, PyObject* overrides) {
  const char* cm = NULL;
  if (contact_model != Py_None) {
    if (!PyUnicode_Check(contact_model)) {
      PyErr_Format(PyExc_TypeError, "contact_model must be a str or None, not %s",
                   Py_TYPE(contact_model)->tp_name);
      return NULL;
    }
    Py_ssize_t size = 0;
    cm = PyUnicode_AsUTF8AndSize(contact_model, &size);
    if (!cm) {
      return NULL;
    }
    if (strlen(cm) != (size_t)size) {
      PyErr_SetString(PyExc_ValueError, "contact_model: embedded null character");
      return NULL;
    }
  }
  csOverride* ov = NULL;
  int nov = 0;
  PyObject* keep = NULL;
  if (readOverrides(overrides, &ov, &nov, &keep)) {
    return NULL;
  }
  csLoadOptions lo = {.contact_model = cm, .overrides = nov ? ov : NULL, .noverrides = nov};
  csError err = {0};
  csModel* m = NULL;
  const char* path = pathobj ? PyBytes_AS_STRING(pathobj) : NULL;
  // loading reads and parses a file: other threads may run meanwhile (the strings stay alive)
  Py_BEGIN_ALLOW_THREADS m =
      path ? cs_loadScene(path, &lo, &err) : cs_loadSceneString(text, filename, &lo, &err);
  Py_END_ALLOW_THREADS PyMem_Free(ov);
  Py_XDECREF(keep);
  if (!m) {
    // a file that could not even be opened is still named, as the command line names it
    if (path && !err.file[0]) {
      snprintf(err.file, sizeof(err.file), "%s", path);
    }
    return csPy_raise(&err, NULL);
  }
  PyObject* source = pathobj ? PyUnicode_DecodeFSDefault(path) : Py_None;
  if (!source) {
    cs_deleteModel(m);
    return NULL;
  }
  PyObject* model = wrapModel(m, contact_model, source);
  if (pathobj) {
    Py_DECREF(source);
  }
  return model;
}


PyObject* csPy_load(PyObject* self, PyObject* args, PyObject* kw) {
  (void)self;
  static char* kwlist[] = {"path", "contact_model", "overrides", NULL};
  PyObject* path = NULL;
  PyObject* contact_model = Py_None;
  PyObject* overrides = Py_None;
  // the path as bytes in the file system's encoding (str, bytes or os.PathLike)
  if (!PyArg_ParseTupleAndKeywords(args, kw, "O&|OO:load", kwlist, PyUnicode_FSConverter, &path,
                                   &contact_model, &overrides)) {
    return NULL;
  }
  PyObject* model = loadCommon(path, NULL, NULL, contact_model, overrides);
  Py_DECREF(path);
  return model;
}


PyObject* csPy_loads(PyObject* self, PyObject* args, PyObject* kw) {
  (void)self;
  static char* kwlist[] = {"text", "filename", "contact_model", "overrides", NULL};
  const char* text = NULL;
  Py_ssize_t length = 0;
  const char* filename = "<string>";
  PyObject* contact_model = Py_None;
  PyObject* overrides = Py_None;
  if (!PyArg_ParseTupleAndKeywords(args, kw, "s#|sOO:loads", kwlist, &text, &length, &filename,
                                   &contact_model, &overrides)) {
    return NULL;
  }
  // a NUL in the text is bad input, as in a file (SceneError at its line and column), not
  // Python's ValueError "embedded null character"
  const char* nul = memchr(text, '\0', (size_t)length);
  if (nul) {
    csError err = {.code = CS_ERR_INPUT, .line = 1, .column = 1};
    for (const char* c = text; c < nul; c++) {
      err.line += *c == '\n';
      err.column = *c == '\n' ? 1 : err.column + 1;
    }
    snprintf(err.file, sizeof(err.file), "%s", filename);
    snprintf(err.message, sizeof(err.message),
             "the text contains a NUL byte at line %d, column %d", err.line, err.column);
    return csPy_raise(&err, NULL);
  }
  return loadCommon(NULL, text, filename, contact_model, overrides);
}


// _model_from_source(text, filename, contact_model, overrides, source): a model loaded again
// from what Model.__reduce__ saved (the scene text as loaded, its contact model and overrides),
// with the path it was first loaded from
PyObject* csPy_modelFromSource(PyObject* self, PyObject* args) {
  (void)self;
  // the text and the file name as bytes (a scene may hold bytes that are not UTF-8, a path
  // anything but NUL); str is taken too, as the filesystem encoding gives it
  PyObject* text = NULL;
  PyObject* filename = NULL;
  PyObject* contact_model = NULL;
  PyObject* overrides = NULL;
  PyObject* source = NULL;
  PyObject* abs = NULL;  // the scene file's absolute path when pickled (optional)
  if (!PyArg_ParseTuple(args, "O&O&OOO|O&:_model_from_source", PyUnicode_FSConverter, &text,
                        PyUnicode_FSConverter, &filename, &contact_model, &overrides, &source,
                        PyUnicode_FSConverter, &abs)) {
    Py_XDECREF(text);
    Py_XDECREF(filename);
    return NULL;
  }
  csPyModel* model = (csPyModel*)loadCommon(NULL, PyBytes_AS_STRING(text),
                                            PyBytes_AS_STRING(filename), contact_model, overrides);
  Py_DECREF(text);
  Py_DECREF(filename);
  if (model) {
    Py_INCREF(source);
    Py_SETREF(model->source, source);
    if (abs && PyBytes_GET_SIZE(abs) > 0) {
      cs_modelSetSceneFile(model->m, PyBytes_AS_STRING(abs));
    }
  }
  Py_XDECREF(abs);
  return (PyObject*)model;
}


// the contact models a scene gives parameter blocks for, and its default: (names, default)
PyObject* csPy_sceneContactModels(PyObject* self, PyObject* args) {
  (void)self;
  PyObject* path = NULL;
  PyObject* text = NULL;
  PyObject* overrides = Py_None;
  // the text (bytes, as read_scene gives it) read once already, the path naming it only
  if (!PyArg_ParseTuple(args, "O&O!|O:scene_contact_models", PyUnicode_FSConverter, &path,
                        &PyBytes_Type, &text, &overrides)) {
    return NULL;
  }
  csOverride* ov = NULL;
  int nov = 0;
  PyObject* keep = NULL;
  if (readOverrides(overrides, &ov, &nov, &keep)) {
    Py_DECREF(path);
    return NULL;
  }
  csLoadOptions lo = {.overrides = nov ? ov : NULL, .noverrides = nov};
  enum { MAX_MODELS = 64 };
  char names[MAX_MODELS][CS_MAX_NAME];
  char def[CS_MAX_NAME];
  csError err = {0};
  int n = cs_sceneContactModelsString(PyBytes_AS_STRING(text), PyBytes_AS_STRING(path), &lo,
                                      names, MAX_MODELS, def, &err);
  PyMem_Free(ov);
  Py_XDECREF(keep);
  if (n < 0) {
    if (!err.file[0]) {
      snprintf(err.file, sizeof(err.file), "%s", PyBytes_AS_STRING(path));
    }
    Py_DECREF(path);
    return csPy_raise(&err, NULL);
  }
  Py_DECREF(path);
  PyObject* list = PyTuple_New(n < MAX_MODELS ? n : MAX_MODELS);
  for (int i = 0; list && i < n && i < MAX_MODELS; i++) {
    PyObject* str = csPy_text(names[i]);
    if (!str) {
      Py_CLEAR(list);
      break;
    }
    PyTuple_SET_ITEM(list, i, str);
  }
  return list ? Py_BuildValue("(NN)", list, csPy_text(def)) : NULL;
}


PyObject* csPy_readScene(PyObject* self, PyObject* arg) {
  (void)self;
  PyObject* path = NULL;
  if (!PyUnicode_FSConverter(arg, &path)) {
    return NULL;
  }
  csError err = {0};
  size_t length = 0;
  char* text = NULL;
  // a pipe or standard input may keep the reader waiting: other threads run meanwhile
  Py_BEGIN_ALLOW_THREADS text = cs_readSceneText(PyBytes_AS_STRING(path), &length, &err);
  Py_END_ALLOW_THREADS if (!text) {
    if (!err.file[0]) {
      snprintf(err.file, sizeof(err.file), "%s", PyBytes_AS_STRING(path));
    }
    Py_DECREF(path);
    return csPy_raise(&err, NULL);
  }
  Py_DECREF(path);
  PyObject* bytes = PyBytes_FromStringAndSize(text, (Py_ssize_t)length);
  cs_freeSceneText(text);
  return bytes;
}


// ---------------------------------------------------------------------------------------------
// the Model type

static void modelDealloc(csPyModel* self) {
  if (self->weakrefs) {
    PyObject_ClearWeakRefs((PyObject*)self);
  }
  cs_deleteModel(self->m);
  Py_XDECREF(self->contact_model);
  Py_XDECREF(self->source);
  Py_TYPE(self)->tp_free((PyObject*)self);
}


static PyObject* modelRepr(csPyModel* self) {
  const csModel* m = self->m;
  // bodies besides ground, which nbody and bodies count
  int n = m->nbody - 1;
  return PyUnicode_FromFormat(
      "<contactsim.Model '%s': %d bod%s besides ground, %d force elements, nq=%d, nu=%d>",
      m->name, n, n == 1 ? "y" : "ies", m->nforce, m->nq, m->nu);
}


// a tuple of the names of n structs of size sz, the name at the start of each
static PyObject* nameTuple(const void* base, int first, int n, size_t sz) {
  PyObject* t = PyTuple_New(n - first > 0 ? n - first : 0);
  for (int i = first; t && i < n; i++) {
    PyObject* s = csPy_text((const char*)base + (size_t)i * sz);
    if (!s) {
      Py_CLEAR(t);
      break;
    }
    PyTuple_SET_ITEM(t, i - first, s);
  }
  return t;
}


static PyObject* modelGetBodies(csPyModel* self, void* closure) {
  (void)closure;
  return nameTuple(self->m->body, 0, self->m->nbody, sizeof(csBody));
}


static PyObject* modelGetForces(csPyModel* self, void* closure) {
  (void)closure;
  return nameTuple(self->m->force, 0, self->m->nforce, sizeof(csForce));
}


static PyObject* modelGetPlanes(csPyModel* self, void* closure) {
  (void)closure;
  return nameTuple(self->m->plane, 0, self->m->nplane, sizeof(csPlane));
}


// the elements that report contacts (the ones with contact columns in the CSV)
static PyObject* modelGetContacts(csPyModel* self, void* closure) {
  (void)closure;
  const csModel* m = self->m;
  PyObject* list = PyList_New(0);
  for (int e = 0; list && e < m->nforce; e++) {
    if (cs_forceKind(m->force[e].kind)->report) {
      PyObject* s = csPy_text(m->force[e].name);
      if (!s || PyList_Append(list, s) != 0) {
        Py_CLEAR(list);
      }
      Py_XDECREF(s);
    }
  }
  PyObject* t = list ? PyList_AsTuple(list) : NULL;
  Py_XDECREF(list);
  return t;
}


static PyObject* modelGetOptions(csPyModel* self, void* closure) {
  (void)closure;
  return csPy_optionsDict(&self->m->opt);
}


// a read-only 1-D view of n doubles owned by the model (which the view keeps alive)
static PyObject* modelView(csPyModel* self, double* data, int n) {
  npy_intp dims[1] = {n};
  PyObject* a = PyArray_SimpleNewFromData(1, dims, NPY_DOUBLE, data);
  if (!a) {
    return NULL;
  }
  PyArray_CLEARFLAGS((PyArrayObject*)a, NPY_ARRAY_WRITEABLE);
  Py_INCREF(self);
  if (PyArray_SetBaseObject((PyArrayObject*)a, (PyObject*)self) < 0) {
    Py_DECREF(a);
    return NULL;
  }
  return a;
}


static PyObject* modelGetQ0(csPyModel* self, void* closure) {
  (void)closure;
  return modelView(self, self->m->q0, self->m->nq);
}


static PyObject* modelGetU0(csPyModel* self, void* closure) {
  (void)closure;
  return modelView(self, self->m->u0, self->m->nu);
}


static PyObject* modelGetGravity(csPyModel* self, void* closure) {
  (void)closure;
  csVec3 g = self->m->gravity;
  return Py_BuildValue("(ddd)", g.x, g.y, g.z);
}


static PyObject* modelGetName(csPyModel* self, void* closure) {
  (void)closure;
  return csPy_text(self->m->name);
}


static PyObject* modelGetFile(csPyModel* self, void* closure) {
  (void)closure;
  return PyUnicode_DecodeFSDefault(self->m->file);
}


static PyObject* modelGetSource(csPyModel* self, void* closure) {
  (void)closure;
  Py_INCREF(self->source);
  return self->source;
}


// the model the contact elements were built with: the one asked for, else the scene's own
// choice; None for a scene without contacts (the one asked for is kept for pickling)
static PyObject* modelGetContactModel(csPyModel* self, void* closure) {
  (void)closure;
  if (!self->m->contact_model[0]) {
    Py_RETURN_NONE;
  }
  return csPy_text(self->m->contact_model);
}


// the sizes: one getter, the closure says which field
#define SIZE_FIELDS(X) X(nbody) X(nq) X(nu) X(nz) X(ndisc) X(nauto) X(nplane) X(nforce) X(ngroup)
#define SIZE_GETTER(f)                                            \
  static PyObject* modelGet_##f(csPyModel* self, void* closure) { \
    (void)closure;                                                \
    return PyLong_FromLong(self->m->f);                           \
  }
SIZE_FIELDS(SIZE_GETTER)
#undef SIZE_GETTER


// id of a body, force element or plane by name; KeyError when there is none
static PyObject* idLookup(csPyModel* self, PyObject* arg,
                          int (*lookup)(const csModel*, const char*), const char* what) {
  if (!PyUnicode_Check(arg)) {
    PyErr_Format(PyExc_TypeError, "a %s is looked up by its name (a str), not %s", what,
                 Py_TYPE(arg)->tp_name);
    return NULL;
  }
  const char* name = csPy_name(arg);
  if (!name) {
    return NULL;
  }
  int id = name[0] ? lookup(self->m, name) : -1;
  if (id < 0) {
    PyErr_Format(PyExc_KeyError, "there is no %s named %R in model '%s'", what, arg,
                 self->m->name);
    return NULL;
  }
  return PyLong_FromLong(id);
}


static PyObject* modelBodyId(csPyModel* self, PyObject* arg) {
  return idLookup(self, arg, cs_bodyId, "body");
}


static PyObject* modelForceId(csPyModel* self, PyObject* arg) {
  return idLookup(self, arg, cs_forceId, "force element");
}


static PyObject* modelPlaneId(csPyModel* self, PyObject* arg) {
  return idLookup(self, arg, cs_planeId, "plane");
}


// the addresses of a body's coordinates and speeds in q and u
// slice(start, stop): PySlice_New takes its own references, so the integers are released here
static PyObject* slice(long start, long stop) {
  PyObject* a = PyLong_FromLong(start);
  PyObject* b = PyLong_FromLong(stop);
  PyObject* s = a && b ? PySlice_New(a, b, NULL) : NULL;
  Py_XDECREF(a);
  Py_XDECREF(b);
  return s;
}


static PyObject* modelBodyCoordinates(csPyModel* self, PyObject* arg) {
  PyObject* idobj = modelBodyId(self, arg);
  if (!idobj) {
    return NULL;
  }
  int b = (int)PyLong_AsLong(idobj);
  Py_DECREF(idobj);
  const csBody* body = &self->m->body[b];
  return Py_BuildValue("(NN)", slice(body->qadr, body->qadr + body->qnum),
                       slice(body->uadr, body->uadr + body->unum));
}


// Pickling and copying (a Trajectory or a SimulationError holds its model, and
// multiprocessing pickles what workers return): the model is loaded again from the scene text
// it keeps, with the same contact model and overrides, so the copy is the same model exactly.
static PyObject* modelReduce(csPyModel* self, PyObject* unused) {
  (void)unused;
  const csModel* m = self->m;
  if (!m->source) {
    PyErr_SetString(PyExc_TypeError, "a model without its scene text cannot be pickled");
    return NULL;
  }
  // the text, then zero-terminated the contact model and each override's key and value
  const char* p = m->source;
  PyObject* text = PyBytes_FromStringAndSize(p, (Py_ssize_t)m->source_len);
  p += m->source_len + 1;
  p += strlen(p) + 1;
  PyObject* overrides = PyTuple_New(m->source_noverride);
  for (int i = 0; overrides && i < m->source_noverride; i++) {
    const char* key = p;
    const char* value = key + strlen(key) + 1;
    p = value + strlen(value) + 1;
    PyObject* pair = Py_BuildValue("(ss)", key, value);
    if (!pair) {
      Py_CLEAR(overrides);
      break;
    }
    PyTuple_SET_ITEM(overrides, i, pair);
  }
  PyObject* core = PyImport_ImportModule("contactsim._core");
  PyObject* load = core ? PyObject_GetAttrString(core, "_model_from_source") : NULL;
  PyObject* file = PyBytes_FromString(m->file);
  // the scene file's absolute path, so that the model loaded again knows its scene file from
  // whatever directory it is unpickled in (its relative name would be looked up there)
  PyObject* abs = PyBytes_FromString(m->file_abs);
  PyObject* result = NULL;
  if (text && overrides && load && file && abs) {
    result = Py_BuildValue("(O(OOOOOO))", load, text, file, self->contact_model, overrides,
                           self->source, abs);
  }
  Py_XDECREF(abs);
  Py_XDECREF(file);
  Py_XDECREF(load);
  Py_XDECREF(core);
  Py_XDECREF(overrides);
  Py_XDECREF(text);
  return result;
}


// whether a path names the scene file (cs_modelIsSceneFile), for what the package writes itself
static PyObject* modelIsSceneFile(csPyModel* self, PyObject* arg) {
  PyObject* path = NULL;
  if (!PyUnicode_FSConverter(arg, &path)) {
    return NULL;
  }
  int is = cs_modelIsSceneFile(self->m, PyBytes_AS_STRING(path));
  Py_DECREF(path);
  return PyBool_FromLong(is);
}


static PyMethodDef modelMethods[] = {
    {"__reduce__", (PyCFunction)modelReduce, METH_NOARGS,
     "Pickle support: the model is loaded again from its scene text, contact model and\n"
     "overrides."},
    {"_is_scene_file", (PyCFunction)modelIsSceneFile, METH_O,
     "_is_scene_file(path) -> bool\n\nWhether path names the scene file the model was loaded\n"
     "from (any spelling, from any directory, or the file saved in its place since)."},
    {"body_id", (PyCFunction)modelBodyId, METH_O,
     "body_id(name) -> int\n\nId of the body named `name` (ground is 0); KeyError if none."},
    {"force_id", (PyCFunction)modelForceId, METH_O,
     "force_id(name) -> int\n\nId of the force element named `name`; KeyError if none."},
    {"plane_id", (PyCFunction)modelPlaneId, METH_O,
     "plane_id(name) -> int\n\nId of the plane named `name`; KeyError if none."},
    {"body_coordinates", (PyCFunction)modelBodyCoordinates, METH_O,
     "body_coordinates(name) -> (slice, slice)\n\n"
     "Where the coordinates and speeds of the body's mobilizer sit in q and u:\n"
     "sim.q[qs], sim.u[us]. Pin: angle, rad, and rate, rad/s; slider: m, m/s; ball: quaternion\n"
     "(w, x, y, z) of R_FM and angular velocity in F; free: quaternion, then position of M in\n"
     "F, m; angular velocity in F, then linear velocity in F."},
    {NULL, NULL, 0, NULL},
};


static PyGetSetDef modelGetset[] = {
    {"name", (getter)modelGetName, NULL, "Scene name.", NULL},
    {"file", (getter)modelGetFile, NULL,
     "Scene file the model was loaded from, or the name given to loads() ('<string>' by\n"
     "default).", NULL},
    {"source", (getter)modelGetSource, NULL,
     "Path given to load(), or None for a model loaded from text.", NULL},
    {"contact_model", (getter)modelGetContactModel, NULL,
     "Contact model the scene's contacts use (the one asked for when loading, else the "
     "scene's default), or None for a scene without contacts.", NULL},
    {"bodies", (getter)modelGetBodies, NULL, "Body names by id; bodies[0] is 'ground'.", NULL},
    {"forces", (getter)modelGetForces, NULL, "Force element names by id (gravity included).", NULL},
    {"planes", (getter)modelGetPlanes, NULL, "Plane names by id.", NULL},
    {"contacts", (getter)modelGetContacts, NULL,
     "Names of the force elements that report contacts (point, force, energy, power).", NULL},
    {"options", (getter)modelGetOptions, NULL,
     "The scene's simulation options (a dict): duration, s; integrator; linear_solver; rtol;\n"
     "atol; max_step, s (0: unlimited); initial_step, s (0: automatic); max_steps;\n"
     "report_interval, s; max_rows.",
     NULL},
    {"gravity", (getter)modelGetGravity, NULL, "Gravity in Ground, m/s^2 (x, y, z).", NULL},
    {"q0", (getter)modelGetQ0, NULL,
     "Initial generalized coordinates (read-only view, nq): rad or m; quaternions w, x, y, z.",
     NULL},
    {"u0", (getter)modelGetU0, NULL,
     "Initial generalized speeds (read-only view, nu): rad/s or m/s.", NULL},
#define SIZE_GETSET(f) {#f, (getter)modelGet_##f, NULL, "Model size " #f ".", NULL},
    SIZE_FIELDS(SIZE_GETSET)
#undef SIZE_GETSET
        {NULL, NULL, NULL, NULL, NULL},
};


PyTypeObject csPy_ModelType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "contactsim.Model",
    .tp_basicsize = sizeof(csPyModel),
    .tp_weaklistoffset = offsetof(csPyModel, weakrefs),
    .tp_dealloc = (destructor)modelDealloc,
    .tp_repr = (reprfunc)modelRepr,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc =
        "A loaded scene: bodies, planes, force elements, initial state and simulation\n"
        "options, fixed once loaded (read-only). Made by contactsim.load or loads; run it\n"
        "with contactsim.run or step it with contactsim.Simulation.",
    .tp_methods = modelMethods,
    .tp_getset = modelGetset,
};
