// core_simulation.c: contactsim._core.Simulation, a csSimulation stepped from Python.
//
// q and u are numpy views of the simulation's own state arrays (csData's q and u, which live as
// long as the simulation), as MuJoCo's MjData.qpos is a view: reading them costs no copy, and
// writing into them (sim.q[0] = 0.3) works. The integrator keeps its own copy of the state, so
// an edit must reach it through cs_simSetState: the object keeps a shadow of q and u as the
// library last left them, and before anything advances, saves or realizes, a changed array is
// handed to cs_simSetState (which restarts the integrator and normalises quaternions). Comparing
// nq + nu doubles costs nanoseconds; making the views read-only instead would break the MuJoCo
// idiom, and copying on every read would cost an allocation per access.
//
// step() keeps the GIL: one step takes microseconds, and releasing and taking back the GIL
// would cost a noticeable part of that. advance_to() and _record() release it. A flag refuses a
// second thread that calls into a simulation while it runs without the GIL, and any change to a
// simulation whose call is paused for a signal's Python handler (pauseForHandlers).
#include "core.h"

#include <math.h>
#include <string.h>

// The library's simulation and the model it reads, owned by this small object rather than by
// the Simulation: the numpy views of the state (sim.q, sim.u, ...) keep the owner alive, not the
// Simulation. A view kept on the Simulation itself (sim.saved = sim.q) then makes no reference
// cycle (numpy's arrays take no part in garbage collection, so such a cycle was never freed),
// and a view that outlives its Simulation still reads valid memory.
typedef struct csPyStateOwner {
  PyObject ob_base;
  csSimulation* s;  // owned
  PyObject* model;  // the csPyModel simulated (kept alive: s reads it)
} csPyStateOwner;


static void ownerDealloc(csPyStateOwner* self) {
  cs_deleteSimulation(self->s);
  Py_XDECREF(self->model);
  Py_TYPE(self)->tp_free((PyObject*)self);
}


PyTypeObject csPy_StateOwnerType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "contactsim._core._StateOwner",
    .tp_basicsize = sizeof(csPyStateOwner),
    .tp_dealloc = (destructor)ownerDealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "the memory behind a Simulation's state views",
};



typedef struct csPySimulation {
  PyObject ob_base;  // the object header (what PyObject_HEAD declares)
  csSimulation* s;   // the owner's
  PyObject* owner;   // the csPyStateOwner holding s and the model
  PyObject* model;   // the csPyModel simulated
  double* shadow;    // (nq + nu) q then u as the library last left them
  double* scratch;   // (nq + nu) the edited arrays handed to cs_simSetState
  int nq, nu;        // lengths of q and u
  int busy;          // SIM_IDLE, SIM_RUNNING or SIM_PAUSED
  int initializing;  // 1 while __init__ sets it up without the GIL (a second __init__ waits)
} csPySimulation;


// ---------------------------------------------------------------------------------------------
// the state shared with numpy

// the shadow from the library's arrays: after anything that changed the state
static void refreshShadow(csPySimulation* self) {
  csData* d = cs_simData(self->s);
  memcpy(self->shadow, d->q, sizeof(double) * (size_t)self->nq);
  memcpy(self->shadow + self->nq, d->u, sizeof(double) * (size_t)self->nu);
}


// the getters of attributes check this (methods go through prepare): __init__ may have failed
static int ready(csPySimulation* self) {
  if (!self->s) {
    PyErr_SetString(PyExc_RuntimeError, "the Simulation was not initialised");
    return 0;
  }
  return 1;
}


// the getters of the state and the options check this: ready, and not being advanced by another
// thread at the moment (its time and arrays are the integrator's trial values then)
static int readable(csPySimulation* self) {
  if (!ready(self)) {
    return 0;
  }
  if (self->busy == SIM_RUNNING) {
    PyErr_SetString(PyExc_RuntimeError,
                    "this Simulation is being advanced by another thread; use one Simulation "
                    "per thread");
    return 0;
  }
  return 1;
}


// why a paused call's simulation cannot be changed (pauseForHandlers), and what became of an
// edit made through the q and u views meanwhile
static const char pausedMessage[] =
    "this Simulation is paused in the middle of run() or advance_to() while a signal handler "
    "runs: it can be read, not changed, until that call returns (raise from the handler to stop "
    "the call)";
static const char pausedEditMessage[] =
    "q or u was written while this Simulation was paused in the middle of run() or advance_to() "
    "for a signal handler: the edit is undone (it can be read, not changed, until that call "
    "returns; raise from the handler to stop the call)";


// the methods and setters that change the simulation (advance it, set its state, time,
// discrete variables or options) check this: readable, and not paused for a signal handler
static int changeable(csPySimulation* self) {
  if (!readable(self)) {
    return 0;
  }
  if (self->busy == SIM_PAUSED) {
    PyErr_SetString(PyExc_RuntimeError, pausedMessage);
    return 0;
  }
  return 1;
}


// the q and u views put back as the library last left them (the shadow), after an edit that a
// paused call cannot take
static void undoEdits(csPySimulation* self) {
  csData* d = cs_simData(self->s);
  memcpy(d->q, self->shadow, sizeof(double) * (size_t)self->nq);
  memcpy(d->u, self->shadow + self->nq, sizeof(double) * (size_t)self->nu);
}


// reset, load_state and set_state replace the state whole: an edit made through the q and u
// views and not handed over yet is discarded, not checked (a NaN written into q is no reason to
// refuse going back to the initial state). setEditsAside keeps the edited arrays in scratch and
// puts the views back as the library last left them (prepare checks and hands over the edits
// from there); a load that is refused leaves the simulation unchanged, so putEditsBack then
// makes the edit pending again, as it was before the call.
static void setEditsAside(csPySimulation* self) {
  csData* d = cs_simData(self->s);
  memcpy(self->scratch, d->q, sizeof(double) * (size_t)self->nq);
  memcpy(self->scratch + self->nq, d->u, sizeof(double) * (size_t)self->nu);
  undoEdits(self);
}


static void putEditsBack(csPySimulation* self) {
  csData* d = cs_simData(self->s);
  memcpy(d->q, self->scratch, sizeof(double) * (size_t)self->nq);
  memcpy(d->u, self->scratch + self->nq, sizeof(double) * (size_t)self->nu);
}


// Edits made through the q and u views reach the integrator; 0 or -1 with an exception set.
// Also refuses a simulation that another thread is running. Callers convert their arguments
// first and call the library right after: a conversion may run Python code (__index__,
// __float__, __array__), during which another thread can start advancing the simulation. Both arrays are taken before
// either is handed over: setting one part of the state may rewrite the other from the
// integrator's copy. On a refusal (a non-finite value) the arrays are put back as they were.
static int prepare(csPySimulation* self) {
  if (!readable(self)) {
    return -1;
  }
  csData* d = cs_simData(self->s);
  size_t qbytes = sizeof(double) * (size_t)self->nq, ubytes = sizeof(double) * (size_t)self->nu;
  int qchanged = memcmp(d->q, self->shadow, qbytes) != 0;
  int uchanged = memcmp(d->u, self->shadow + self->nq, ubytes) != 0;
  if (!qchanged && !uchanged) {
    return 0;
  }
  // an edit made while a call is paused would splice another state into that call's run
  if (self->busy == SIM_PAUSED) {
    undoEdits(self);
    PyErr_SetString(PyExc_RuntimeError, pausedEditMessage);
    return -1;
  }
  setEditsAside(self);
  csError err = {0};
  int rc = 0;
  // both parts checked before either is handed over, so that a refusal leaves both as they
  // were
  if ((qchanged &&
       cs_simStateProblem(self->s, CS_STATE_Q, self->scratch, self->nq, &err) != CS_OK) ||
      (uchanged && cs_simStateProblem(self->s, CS_STATE_U, self->scratch + self->nq, self->nu,
                                      &err) != CS_OK)) {
    rc = -1;
  }
  if (!rc && qchanged &&
      cs_simSetState(self->s, CS_STATE_Q, self->scratch, self->nq, &err) != CS_OK) {
    rc = -1;
  } else if (!rc && uchanged && cs_simSetState(self->s, CS_STATE_U, self->scratch + self->nq,
                                               self->nu, &err) != CS_OK) {
    rc = -1;
  }
  refreshShadow(self);
  if (rc) {
    csPy_raise(&err, NULL);
  }
  return rc;
}


// prepare, for a call that changes the simulation
static int prepareChange(csPySimulation* self) {
  return changeable(self) ? prepare(self) : -1;
}


// A call of this simulation stopped for a signal (core_run.c) runs the signal's Python handlers
// here, in its own thread, between steps. The simulation stands at the call's start or its last
// report, and the call goes on from there when the handlers return: a handler may read it
// (time, state, energies, statistics, a checkpoint), but a change (reset, set_state, the time,
// set_discrete, set_options, another advance) would splice a second run into the first, so
// changeable() refuses it. Writes into the q and u views, which no call sees, are found against
// the shadow taken here, undone, and refused when the handlers are done.
static int pauseForHandlers(void* ctx) {
  csPySimulation* self = ctx;
  refreshShadow(self);
  int was = self->busy;
  self->busy = SIM_PAUSED;
  int rc = PyErr_CheckSignals();
  self->busy = was;
  csData* d = cs_simData(self->s);
  if (memcmp(d->q, self->shadow, sizeof(double) * (size_t)self->nq) != 0 ||
      memcmp(d->u, self->shadow + self->nq, sizeof(double) * (size_t)self->nu) != 0) {
    undoEdits(self);
    // a handler's own exception stands (it stops the call all the same)
    if (rc == 0) {
      PyErr_SetString(PyExc_RuntimeError, pausedEditMessage);
      rc = -1;
    }
  }
  return rc;
}




// a 1-D view of n doubles of the simulation's data, writable or not; the view keeps the data's
// owner alive
static PyObject* stateView(csPySimulation* self, double* data, int n, int writable) {
  npy_intp dims[1] = {n};
  PyObject* a = PyArray_SimpleNewFromData(1, dims, NPY_DOUBLE, data);
  if (!a) {
    return NULL;
  }
  if (!writable) {
    PyArray_CLEARFLAGS((PyArrayObject*)a, NPY_ARRAY_WRITEABLE);
  }
  Py_INCREF(self->owner);
  if (PyArray_SetBaseObject((PyArrayObject*)a, self->owner) < 0) {
    Py_DECREF(a);
    return NULL;
  }
  return a;
}


// ---------------------------------------------------------------------------------------------
// construction

static int simInit(csPySimulation* self, PyObject* args, PyObject* kw) {
  // (a second __init__ from another thread while the first sets up without the GIL: it left
  // two simulations, one leaked)
  if (self->s || self->initializing) {
    PyErr_SetString(PyExc_RuntimeError, "Simulation.__init__ was already called");
    return -1;
  }
  // the model by position, or as model=; the other keywords are options (without model=, a
  // copy of them: the one reference this function owns)
  PyObject* model = NULL;
  PyObject* given = kw ? PyDict_GetItemString(kw, "model") : NULL;
  PyObject* options = kw;
  PyObject* copy = NULL;
  if (given && PyTuple_GET_SIZE(args) > 0) {
    PyErr_SetString(PyExc_TypeError, "Simulation() got multiple values for argument 'model'");
    return -1;
  }
  if (given) {
    if (!PyObject_TypeCheck(given, &csPy_ModelType)) {
      PyErr_Format(PyExc_TypeError, "Simulation() argument 'model' must be contactsim.Model, "
                   "not %.100s", Py_TYPE(given)->tp_name);
      return -1;
    }
    model = given;
    copy = PyDict_Copy(kw);
    if (!copy || PyDict_DelItemString(copy, "model") != 0) {
      Py_XDECREF(copy);
      return -1;
    }
    options = copy;
  } else if (!PyArg_ParseTuple(args, "O!:Simulation", &csPy_ModelType, &model)) {
    return -1;
  }
  const csModel* m = ((csPyModel*)model)->m;
  csSimOptions base = cs_modelOptions(m);
  csSimOptions opt;
  int bad = csPy_readOptions(options, &base, &opt, cs_modelFile(m));
  Py_XDECREF(copy);
  if (bad) {
    return -1;
  }
  csPyStateOwner* owner = PyObject_New(csPyStateOwner, &csPy_StateOwnerType);
  if (!owner) {
    return -1;
  }
  owner->s = NULL;
  owner->model = NULL;
  csError err = {0};
  // the set-up (seconds for a scene of many bodies) lets other threads run meanwhile; the model
  // stays alive, referenced by the arguments
  csSimulation* sim;
  self->initializing = 1;
  Py_BEGIN_ALLOW_THREADS sim = cs_newSimulation(m, &opt, &err);
  Py_END_ALLOW_THREADS self->initializing = 0;
  if (!sim) {
    Py_DECREF(owner);
    if (!err.file[0]) {
      snprintf(err.file, sizeof(err.file), "%s", cs_modelFile(m));
    }
    csPy_raise(&err, NULL);
    return -1;
  }
  Py_INCREF(model);
  owner->s = sim;
  owner->model = model;
  self->owner = (PyObject*)owner;
  self->s = sim;
  self->nq = cs_modelCount(m, CS_COUNT_Q);
  self->nu = cs_modelCount(m, CS_COUNT_U);
  self->shadow = PyMem_Calloc((size_t)(self->nq + self->nu) + 1, sizeof(double));
  self->scratch = PyMem_Calloc((size_t)(self->nq + self->nu) + 1, sizeof(double));
  if (!self->shadow || !self->scratch) {
    PyErr_NoMemory();
    return -1;
  }
  Py_INCREF(model);
  self->model = model;
  refreshShadow(self);
  return 0;
}


static void simDealloc(csPySimulation* self) {
  Py_XDECREF(self->owner);  // the simulation itself goes with the last view of its state
  PyMem_Free(self->shadow);
  PyMem_Free(self->scratch);
  Py_XDECREF(self->model);
  Py_TYPE(self)->tp_free((PyObject*)self);
}


// ---------------------------------------------------------------------------------------------
// advancing

// a failed step or advance: SimulationError with the time (no trajectory); other statuses are
// bad input
static PyObject* advanceFailed(csPySimulation* self, csError* err) {
  if (!err->file[0]) {
    snprintf(err->file, sizeof(err->file), "%s", cs_modelFile(cs_simModel(self->s)));
  }
  return csPy_raise(err, NULL);
}


static PyObject* simStep(csPySimulation* self, PyObject* unused) {
  (void)unused;
  if (prepareChange(self)) {
    return NULL;
  }
  // the parts the library may leave unset are cleared one by one: zeroing the whole record
  // (1.3 kB) on every step would cost a visible part of a step's few microseconds
  csError err;
  err.file[0] = err.path[0] = err.message[0] = '\0';
  err.line = err.column = 0;
  err.time = NAN;
  int status = cs_simStep(self->s, &err);
  refreshShadow(self);
  if (status != CS_OK) {
    return advanceFailed(self, &err);
  }
  return PyFloat_FromDouble(cs_simTime(self->s));
}


static PyObject* simAdvanceTo(csPySimulation* self, PyObject* arg) {
  double t = 0;
  if (csPy_number(arg, "advance_to's time", &t)) {
    return NULL;
  }
  if (prepareChange(self)) {
    return NULL;
  }
  csError err = {0};
  int status;
  self->busy = SIM_RUNNING;
  for (;;) {
    // Ctrl-C (main thread) stops the advance; the simulation is back where it started
    const volatile sig_atomic_t* stop;
    if (csPy_stopBegin(&stop, &self->busy) != 0) {
      status = CS_STOPPED;  // a signal before the advance began: its handler raised
      break;
    }
    cs_simSetStop(self->s, stop);
    Py_BEGIN_ALLOW_THREADS status = cs_simAdvanceTo(self->s, t, &err);
    Py_END_ALLOW_THREADS cs_simSetStop(self->s, NULL);
    csPy_stopEnd(stop);
    if (status != CS_STOPPED || pauseForHandlers(self) != 0) {
      break;
    }
    // the signal's handler returned: the advance goes on (from its start)
  }
  self->busy = SIM_IDLE;
  refreshShadow(self);
  if (status == CS_STOPPED) {
    return NULL;  // the handler's exception (KeyboardInterrupt)
  }
  if (status != CS_OK) {
    return advanceFailed(self, &err);
  }
  Py_RETURN_NONE;
}


static PyObject* simRecord(csPySimulation* self, PyObject* args) {
  double t_end = 0;
  int forces = 0, relative = 0, keep = 1;
  if (!PyArg_ParseTuple(args, "dp|pp:_record", &t_end, &forces, &relative, &keep) ||
      prepareChange(self)) {
    return NULL;
  }
  // a duration counts from the time read here, in the same call (another thread stepping the
  // simulation between a read of sim.time and this call would otherwise shift the end); one
  // that the time cannot follow (0.01 s from 1e15 s) would run over no time without a word
  if (relative) {
    double t0 = cs_simTime(self->s);
    double duration = t_end;
    t_end += t0;
    if (duration > 0 && !(t_end > t0)) {
      csError err = {0};
      err.code = CS_ERR_INPUT;
      snprintf(err.message, sizeof(err.message),
               "a duration of %g s is lost in rounding at t = %.17g s, where doubles are %.3g s "
               "apart: the run would cover no time; run longer or count the time from nearer 0",
               duration, t0, nextafter(fabs(t0), INFINITY) - fabs(t0));
      return csPy_raise(&err, NULL);
    }
  }
  PyObject* columns = NULL;
  PyObject* table = NULL;
  PyObject* raised = NULL;
  csError err = {0};
  csPyPause pause = {.handle = pauseForHandlers, .ctx = self, .busy = &self->busy};
  self->busy = SIM_RUNNING;
  int status = csPy_record(self->s, t_end, forces, keep, &columns, &table, &raised, &err, &pause);
  self->busy = SIM_IDLE;
  PyObject* result =
      status < 0 ? NULL : csPy_recordResult(self->s, status, &err, columns, table, raised);
  refreshShadow(self);  // after the statistics too, which settle the simulation for reading
  Py_XDECREF(columns);
  Py_XDECREF(table);
  Py_XDECREF(raised);
  return result;
}


static PyObject* simReset(csPySimulation* self, PyObject* unused) {
  (void)unused;
  if (!changeable(self)) {
    return NULL;
  }
  undoEdits(self);
  cs_simReset(self->s);
  refreshShadow(self);
  Py_RETURN_NONE;
}


// ---------------------------------------------------------------------------------------------
// checkpoints
//
// save_state and load_state take a path; get_state and set_state the checkpoint's text, which
// the library writes and reads in memory (cs_simSaveStateText, cs_simLoadStateText): no file.
// The text is str, decoded from UTF-8 with surrogateescape, so that a scene name holding bytes
// that are not UTF-8 is encoded back to the same bytes by set_state.

static PyObject* simSaveState(csPySimulation* self, PyObject* arg) {
  PyObject* path = NULL;
  if (!PyUnicode_FSConverter(arg, &path)) {
    return NULL;
  }
  if (prepare(self) != 0) {
    Py_DECREF(path);
    return NULL;
  }
  csError err = {0};
  int status = cs_simSaveState(self->s, PyBytes_AS_STRING(path), &err);
  refreshShadow(self);
  Py_DECREF(path);
  if (status != CS_OK) {
    return csPy_raise(&err, NULL);
  }
  Py_RETURN_NONE;
}


static PyObject* vec(const double* v, int n);


// _get_state(): the checkpoint text and copies of the state it holds, taken together: no other
// call on the simulation comes between them
static PyObject* simGetState(csPySimulation* self, PyObject* unused) {
  (void)unused;
  if (prepare(self) != 0) {
    return NULL;
  }
  csError err = {0};
  char* text = NULL;
  size_t length = 0;
  int status = cs_simSaveStateText(self->s, &text, &length, &err);
  refreshShadow(self);
  if (status != CS_OK) {
    // a state the library will not save (not finite): there is no file to name
    if (strcmp(err.file, CS_STATE_TEXT_NAME) == 0) {
      err.file[0] = '\0';
    }
    return csPy_raise(&err, NULL);
  }
  PyObject* checkpoint = PyUnicode_DecodeUTF8(text, (Py_ssize_t)length, "surrogateescape");
  cs_freeStateText(text);
  if (!checkpoint) {
    return NULL;
  }
  csData* d = cs_simData(self->s);
  return Py_BuildValue("(NdNNNNN)", checkpoint, cs_simTime(self->s), vec(d->q, self->nq),
                       vec(d->u, self->nu), vec(d->z, d->nz), vec(d->disc, d->ndisc),
                       vec(d->autoval, d->nauto));
}


// cs_simLoadState(path) or, path NULL, cs_simLoadStateText(text, length); a refusal leaves the
// simulation unchanged, the pending edits of q and u included
static PyObject* loadCheckpoint(csPySimulation* self, const char* path, const char* text,
                                size_t length) {
  if (!changeable(self)) {
    return NULL;
  }
  csError err = {0};
  setEditsAside(self);
  int status = path ? cs_simLoadState(self->s, path, &err)
                    : cs_simLoadStateText(self->s, text, length, &err);
  if (status == CS_OK) {
    refreshShadow(self);
    Py_RETURN_NONE;
  }
  putEditsBack(self);
  if (!path && strcmp(err.file, CS_STATE_TEXT_NAME) == 0) {
    // the line is the line of State.checkpoint
    snprintf(err.file, sizeof(err.file), "<State>");
  } else if (path && !err.file[0]) {
    snprintf(err.file, sizeof(err.file), "%s", path);
  }
  return csPy_raise(&err, NULL);
}


static PyObject* simLoadState(csPySimulation* self, PyObject* arg) {
  PyObject* path = NULL;
  if (!PyUnicode_FSConverter(arg, &path)) {
    return NULL;
  }
  PyObject* result = loadCheckpoint(self, PyBytes_AS_STRING(path), NULL, 0);
  Py_DECREF(path);
  return result;
}


// _set_state(checkpoint): continue from a State's checkpoint text (str)
static PyObject* simSetState(csPySimulation* self, PyObject* arg) {
  if (!PyUnicode_Check(arg)) {
    PyErr_Format(PyExc_TypeError, "a State's checkpoint must be a str, not %.100s",
                 Py_TYPE(arg)->tp_name);
    return NULL;
  }
  PyObject* bytes = PyUnicode_AsEncodedString(arg, "utf-8", "surrogateescape");
  if (!bytes) {
    return NULL;
  }
  PyObject* result = loadCheckpoint(self, NULL, PyBytes_AS_STRING(bytes),
                                    (size_t)PyBytes_GET_SIZE(bytes));
  Py_DECREF(bytes);
  return result;
}


// ---------------------------------------------------------------------------------------------
// realized quantities

// an id from a name (str) or an int; -1 with an exception set
static int idOf(csPySimulation* self, PyObject* key, int (*lookup)(const csModel*, const char*),
                csCount count, const char* what) {
  const csModel* m = cs_simModel(self->s);
  int id = -1;
  if (PyUnicode_Check(key)) {
    const char* name = csPy_name(key);
    id = name && name[0] ? lookup(m, name) : -1;
  } else if (PyIndex_Check(key) && !PyBool_Check(key) && !PyArray_IsScalar(key, Bool)) {
    // any integer (numpy's too, as model.body_id and np.argmax give them); one too large for
    // a long is as unknown as any other id out of range
    Py_ssize_t v = PyNumber_AsSsize_t(key, NULL);
    if (v == -1 && PyErr_Occurred()) {
      return -1;
    }
    id = (v >= 0 && v < cs_modelCount(m, count)) ? (int)v : -1;
  } else {
    PyErr_Format(PyExc_TypeError, "a %s is given by name (str) or id (int), not %s", what,
                 Py_TYPE(key)->tp_name);
    return -1;
  }
  if (id < 0 && !PyErr_Occurred()) {
    PyErr_Format(PyExc_KeyError, "there is no %s %R in model '%s'", what, key, cs_modelName(m));
  }
  return id;
}


static PyObject* vec(const double* v, int n) {
  npy_intp dims[1] = {n};
  PyObject* a = PyArray_SimpleNew(1, dims, NPY_DOUBLE);
  if (a) {
    memcpy(PyArray_DATA((PyArrayObject*)a), v, sizeof(double) * (size_t)n);
  }
  return a;
}


// the body named or numbered by key, then the state's edits applied (prepare); -1 with a
// Python exception set when either fails
static int preparedBody(csPySimulation* self, PyObject* key) {
  if (!ready(self)) {
    return -1;
  }
  int b = idOf(self, key, cs_bodyId, CS_COUNT_BODY, "body");
  return b < 0 || prepare(self) ? -1 : b;
}


static PyObject* simBodyPose(csPySimulation* self, PyObject* key) {
  int b = preparedBody(self, key);
  if (b < 0) {
    return NULL;
  }
  double p[3], q[4];
  cs_simBodyPose(self->s, b, p, q);
  return Py_BuildValue("(NN)", vec(p, 3), vec(q, 4));
}


static PyObject* simBodyVelocity(csPySimulation* self, PyObject* key) {
  int b = preparedBody(self, key);
  if (b < 0) {
    return NULL;
  }
  double w[3], v[3];
  cs_simBodyVelocity(self->s, b, w, v);
  return Py_BuildValue("(NN)", vec(w, 3), vec(v, 3));
}


static PyObject* simBodyCom(csPySimulation* self, PyObject* key) {
  int b = preparedBody(self, key);
  if (b < 0) {
    return NULL;
  }
  double c[3];
  cs_simBodyCom(self->s, b, c);
  return vec(c, 3);
}


// every contact element's report as a tuple: (name, set, point, force, moment, pe, power,
// {value name: value}); the Python side wraps each in a ContactReport
static PyObject* simContacts(csPySimulation* self, PyObject* unused) {
  (void)unused;
  if (prepare(self)) {
    return NULL;
  }
  const csModel* m = cs_simModel(self->s);
  int nforce = cs_modelCount(m, CS_COUNT_FORCE);
  PyObject* list = PyList_New(0);
  for (int e = 0; list && e < nforce; e++) {
    csContactReport r;
    if (cs_modelForceIsContact(m, e) != 1 || cs_simContact(self->s, e, &r) != 0) {
      continue;
    }
    // the model's own values by name
    PyObject* values = PyDict_New();
    int nv = cs_modelContactValueCount(m, e);
    double buf[64];
    int got = nv > 0 ? cs_simContactValues(self->s, e, buf, 64) : 0;
    for (int i = 0; values && i < nv && i < got && i < 64; i++) {
      PyObject* x = PyFloat_FromDouble(buf[i]);
      PyObject* key = csPy_text(cs_modelContactValueName(m, e, i));
      if (!x || !key || PyDict_SetItem(values, key, x) != 0) {
        Py_CLEAR(values);
      }
      Py_XDECREF(key);
      Py_XDECREF(x);
    }
    int set = cs_modelForceContactSet(m, e);
    PyObject* setName = set >= 0 ? csPy_text(cs_modelContactSetName(m, set)) : NULL;
    if (set >= 0 && !setName) {
      Py_CLEAR(values);
    }
    double point[3] = {r.point.x, r.point.y, r.point.z};
    double force[3] = {r.force.v.x, r.force.v.y, r.force.v.z};
    double moment[3] = {r.force.w.x, r.force.w.y, r.force.w.z};
    PyObject* item = values ? Py_BuildValue("(NONNNddN)", csPy_text(cs_modelForceName(m, e)),
                                            setName ? setName : Py_None, vec(point, 3),
                                            vec(force, 3), vec(moment, 3), r.pe, r.power, values)
                            : NULL;
    Py_XDECREF(setName);
    if (!item || PyList_Append(list, item) != 0) {
      Py_CLEAR(list);
    }
    Py_XDECREF(item);
  }
  return list;
}


static PyObject* simContactSet(csPySimulation* self, PyObject* key) {
  if (prepare(self)) {
    return NULL;
  }
  const csModel* m = cs_simModel(self->s);
  int set = -1;
  int n = cs_modelCount(m, CS_COUNT_CONTACT_SET);
  // sets are named (contacts[].name), never numbered
  if (!PyUnicode_Check(key)) {
    PyErr_Format(PyExc_TypeError, "a contact set is named by a str, not %.100s",
                 Py_TYPE(key)->tp_name);
    return NULL;
  }
  const char* name = csPy_name(key);
  if (!name) {
    return NULL;
  }
  for (int i = 0; name[0] && i < n; i++) {
    if (strcmp(cs_modelContactSetName(m, i), name) == 0) {
      set = i;
    }
  }
  if (set < 0) {
    PyErr_Format(PyExc_KeyError, "there is no contact set %R in model '%s'", key, cs_modelName(m));
    return NULL;
  }
  double force[3], cop[3];
  cs_simContactSet(self->s, set, force, cop);
  return Py_BuildValue("(NN)", vec(force, 3), vec(cop, 3));
}


// force element id and the index of its discrete variable `name`; -1 with an exception set
static int discreteOf(csPySimulation* self, PyObject* force, const char* name, int* index) {
  int e = idOf(self, force, cs_forceId, CS_COUNT_FORCE, "force element");
  if (e < 0) {
    return -1;
  }
  const csModel* m = cs_simModel(self->s);
  *index = cs_modelDiscreteIndex(m, e, name);
  if (*index < 0) {
    PyErr_Format(PyExc_KeyError, "force element '%s' has no discrete variable '%s'",
                 cs_modelForceName(m, e), name);
    return -1;
  }
  return e;
}


static PyObject* simGetDiscrete(csPySimulation* self, PyObject* args) {
  PyObject* force = NULL;
  const char* name = NULL;
  int index = 0;
  if (!PyArg_ParseTuple(args, "Os:get_discrete", &force, &name) || !ready(self)) {
    return NULL;
  }
  int e = discreteOf(self, force, name, &index);
  if (e < 0 || prepare(self)) {
    return NULL;
  }
  int adr = 0;
  cs_modelForceState(cs_simModel(self->s), e, CS_STATE_DISCRETE, &adr, NULL);
  return PyFloat_FromDouble(cs_simState(self->s, CS_STATE_DISCRETE)[adr + index]);
}


static PyObject* simSetDiscrete(csPySimulation* self, PyObject* args) {
  PyObject* force = NULL;
  const char* name = NULL;
  PyObject* given = NULL;
  double value = 0;
  int index = 0;
  if (!PyArg_ParseTuple(args, "OsO:set_discrete", &force, &name, &given) ||
      csPy_number(given, "set_discrete's value", &value) || !ready(self)) {
    return NULL;
  }
  int e = discreteOf(self, force, name, &index);
  if (e < 0 || prepareChange(self)) {
    return NULL;
  }
  csError err = {0};
  if (cs_simSetDiscrete(self->s, e, name, value, &err) != CS_OK) {
    return csPy_raise(&err, NULL);
  }
  refreshShadow(self);
  Py_RETURN_NONE;
}


static PyObject* simSetOptions(csPySimulation* self, PyObject* args, PyObject* kw) {
  if (PyTuple_GET_SIZE(args) != 0) {
    PyErr_SetString(PyExc_TypeError, "set_options takes keyword arguments only");
    return NULL;
  }
  if (!ready(self)) {
    return NULL;
  }
  // the options change only here, with the GIL held: reading them before prepare is safe
  csSimOptions base = cs_simOptions(self->s);
  csSimOptions opt;
  if (csPy_readOptions(kw, &base, &opt, cs_modelFile(cs_simModel(self->s))) ||
      prepareChange(self)) {
    return NULL;
  }
  csError err = {0};
  int status = cs_simSetOptions(self->s, &opt, &err);
  // the steps that ended now were finished first (a renormalised quaternion), which is no edit
  // of the caller's: the next advance took it for one, restarted again and normalised again
  refreshShadow(self);
  if (status != CS_OK) {
    return csPy_raise(&err, NULL);
  }
  Py_RETURN_NONE;
}


// ---------------------------------------------------------------------------------------------
// attributes

static PyObject* simGetTime(csPySimulation* self, void* closure) {
  (void)closure;
  if (!readable(self)) {
    return NULL;
  }
  return PyFloat_FromDouble(cs_simTime(self->s));
}


static int simSetTime(csPySimulation* self, PyObject* value, void* closure) {
  (void)closure;
  if (!value) {
    PyErr_SetString(PyExc_AttributeError, "the time cannot be deleted");
    return -1;
  }
  double t = 0;
  if (csPy_number(value, "the time", &t) || prepareChange(self)) {
    return -1;
  }
  csError err = {0};
  if (cs_simSetTime(self->s, t, &err) != CS_OK) {
    csPy_raise(&err, NULL);
    return -1;
  }
  return 0;
}


static PyObject* simGetQ(csPySimulation* self, void* closure) {
  (void)closure;
  if (!readable(self)) {
    return NULL;
  }
  return stateView(self, cs_simData(self->s)->q, self->nq, 1);
}


static PyObject* simGetU(csPySimulation* self, void* closure) {
  (void)closure;
  if (!readable(self)) {
    return NULL;
  }
  return stateView(self, cs_simData(self->s)->u, self->nu, 1);
}


// the auxiliary, discrete and auto-update variables: read-only views (set_discrete, load_state)
static PyObject* simGetZ(csPySimulation* self, void* closure) {
  (void)closure;
  if (!readable(self)) {
    return NULL;
  }
  csData* d = cs_simData(self->s);
  return stateView(self, d->z, d->nz, 0);
}


static PyObject* simGetDisc(csPySimulation* self, void* closure) {
  (void)closure;
  if (!readable(self)) {
    return NULL;
  }
  csData* d = cs_simData(self->s);
  return stateView(self, d->disc, d->ndisc, 0);
}


static PyObject* simGetAuto(csPySimulation* self, void* closure) {
  (void)closure;
  if (!readable(self)) {
    return NULL;
  }
  csData* d = cs_simData(self->s);
  return stateView(self, d->autoval, d->nauto, 0);
}


// a 1-D array of objects as doubles, each a real number (a bool as 0 or 1, as in an array of
// bools); NULL with a TypeError (not a number) or a SceneError (an int too large for a double)
static PyArrayObject* objectNumbers(PyArrayObject* a, const char* name) {
  npy_intp n = PyArray_DIM(a, 0);
  npy_intp dims[1] = {n};
  PyArrayObject* out = (PyArrayObject*)PyArray_SimpleNew(1, dims, NPY_DOUBLE);
  if (!out) {
    return NULL;
  }
  double* x = PyArray_DATA(out);
  for (npy_intp i = 0; i < n; i++) {
    PyObject* item = PyArray_GETITEM(a, PyArray_GETPTR1(a, i));
    if (!item) {
      Py_DECREF(out);
      return NULL;
    }
    int rc = 0;
    if (PyBool_Check(item) || PyArray_IsScalar(item, Bool)) {
      x[i] = PyObject_IsTrue(item) ? 1.0 : 0.0;
    } else {
      // any real number, as a time takes (a Fraction, a Decimal); not a complex or a str
      char what[32];
      snprintf(what, sizeof(what), "%s[%ld]", name, (long)i);
      rc = csPy_number(item, what, &x[i]);
      if (rc && PyErr_ExceptionMatches(PyExc_TypeError)) {
        PyErr_Clear();
        PyErr_Format(PyExc_TypeError, "%s needs numbers, not %.100s (%s)", name,
                     Py_TYPE(item)->tp_name, what);
      }
    }
    Py_DECREF(item);
    if (rc) {
      Py_DECREF(out);
      return NULL;
    }
  }
  return out;
}


// sim.q = values and sim.u = values: the whole array at once, checked by the library
static int setPart(csPySimulation* self, PyObject* value, csStateKind kind, int n) {
  if (!value) {
    PyErr_SetString(PyExc_AttributeError, "the state cannot be deleted");
    return -1;
  }
  if (!ready(self)) {
    return -1;
  }
  // numbers only (bools, integers, floats): numpy would also parse strings ("1") into doubles,
  // and complex values would lose their imaginary parts
  PyArrayObject* raw = (PyArrayObject*)PyArray_FROM_O(value);
  if (!raw) {
    return -1;
  }
  // Python ints beyond numpy's 64-bit integers (2**64) make an array of objects: those are
  // numbers too, converted one by one (csPy_number: one too large for a double is a SceneError,
  // as the docs say; another object a TypeError, as for an array of str)
  if (PyArray_DESCR(raw)->kind == 'O' && PyArray_NDIM(raw) == 1) {
    PyArrayObject* numbers = objectNumbers(raw, kind == CS_STATE_Q ? "q" : "u");
    Py_DECREF(raw);
    if (!numbers) {
      return -1;
    }
    raw = numbers;
  }
  if (!strchr("biuf", PyArray_DESCR(raw)->kind)) {
    PyErr_Format(PyExc_TypeError, "%s needs numbers, not an array of %R",
                 kind == CS_STATE_Q ? "q" : "u", (PyObject*)PyArray_DESCR(raw));
    Py_DECREF(raw);
    return -1;
  }
  if (PyArray_NDIM(raw) != 1) {
    PyErr_Format(PyExc_ValueError, "%s needs %d values (one dimension), got an array of %d "
                 "dimensions", kind == CS_STATE_Q ? "q" : "u", n, PyArray_NDIM(raw));
    Py_DECREF(raw);
    return -1;
  }
  PyArrayObject* a =
      (PyArrayObject*)PyArray_FROMANY((PyObject*)raw, NPY_DOUBLE, 1, 1,
                                      NPY_ARRAY_IN_ARRAY | NPY_ARRAY_FORCECAST);
  Py_DECREF(raw);
  if (!a) {
    return -1;
  }
  // converted (which may have run Python code): now the other part's edits, and no other
  // thread advancing
  if (prepareChange(self)) {
    Py_DECREF(a);
    return -1;
  }
  csError err = {0};
  int rc = 0;
  if (PyArray_DIM(a, 0) != n) {
    PyErr_Format(PyExc_ValueError, "%s needs %d values, got %zd", kind == CS_STATE_Q ? "q" : "u", n,
                 (Py_ssize_t)PyArray_DIM(a, 0));
    rc = -1;
  } else if (cs_simSetState(self->s, kind, PyArray_DATA(a), n, &err) != CS_OK) {
    csPy_raise(&err, NULL);
    rc = -1;
  }
  Py_DECREF(a);
  refreshShadow(self);
  return rc;
}


static int simSetQ(csPySimulation* self, PyObject* value, void* closure) {
  (void)closure;
  return setPart(self, value, CS_STATE_Q, self->nq);
}


static int simSetU(csPySimulation* self, PyObject* value, void* closure) {
  (void)closure;
  return setPart(self, value, CS_STATE_U, self->nu);
}


// energies of the current state, J (the CSV's ke, pe, dissipated and e_total)
static PyObject* energy(csPySimulation* self, int which) {
  if (prepare(self)) {
    return NULL;
  }
  double e[3];
  cs_simEnergy(self->s, &e[0], &e[1], &e[2]);
  return PyFloat_FromDouble(which < 3 ? e[which] : e[0] + e[1] + e[2]);
}


static PyObject* simGetKe(csPySimulation* self, void* closure) {
  (void)closure;
  return energy(self, 0);
}


static PyObject* simGetPe(csPySimulation* self, void* closure) {
  (void)closure;
  return energy(self, 1);
}


static PyObject* simGetDissipated(csPySimulation* self, void* closure) {
  (void)closure;
  return energy(self, 2);
}


static PyObject* simGetTotal(csPySimulation* self, void* closure) {
  (void)closure;
  return energy(self, 3);
}


static PyObject* simGetStatistics(csPySimulation* self, void* closure) {
  (void)closure;
  if (prepare(self)) {
    return NULL;
  }
  PyObject* stats = csPy_statistics(self->s);
  refreshShadow(self);  // settled for reading (cs_simStatistics), as for set_options
  return stats;
}


static PyObject* simGetOptions(csPySimulation* self, void* closure) {
  (void)closure;
  if (!readable(self)) {
    return NULL;
  }
  csSimOptions o = cs_simOptions(self->s);
  return csPy_optionsDict(&o);
}


static PyObject* simGetModel(csPySimulation* self, void* closure) {
  (void)closure;
  if (!ready(self)) {
    return NULL;
  }
  Py_INCREF(self->model);
  return self->model;
}


static PyMethodDef simMethods[] = {
    {"step", (PyCFunction)simStep, METH_NOARGS,
     "step() -> float\n\n"
     "Advance by one integrator step (every independent group of bodies standing at the\n"
     "current time takes one step of its integrator, CVODE's or the Runge-Kutta pair's; the\n"
     "simulation moves to the earliest end of them) and\n"
     "return the new time, s. Scheduled changes on the way are applied at their times.\n"
     "Raises SimulationError (with .time) when the integrator fails."},
    {"advance_to", (PyCFunction)simAdvanceTo, METH_O,
     "advance_to(t)\n\n"
     "Advance to time t, s, exactly (t >= time). Releases the GIL while it integrates.\n"
     "Raises SceneError for a t before the current time, SimulationError on failure."},
    {"_record", (PyCFunction)simRecord, METH_VARARGS,
     "_record(t_end, forces, relative=False, rows=True) -> (columns, table, statistics,\n"
     "failure); see Simulation.run. relative: t_end is a duration from the current time;\n"
     "rows False: the same run and reports, no row kept (the table is empty)."},
    {"_get_state", (PyCFunction)simGetState, METH_NOARGS,
     "_get_state() -> (checkpoint, t, q, u, z, discrete, auto_update): the checkpoint text\n"
     "and copies of the arrays it holds, in one call; see Simulation.get_state."},
    {"_set_state", (PyCFunction)simSetState, METH_O,
     "_set_state(checkpoint) -> None: continue from checkpoint text (str); see\n"
     "Simulation.set_state."},
    {"reset", (PyCFunction)simReset, METH_NOARGS,
     "reset()\n\nBack to the model's initial state at t = 0; the statistics start over. An edit\n"
     "of q or u not yet used is discarded with the rest of the state."},
    {"save_state", (PyCFunction)simSaveState, METH_O,
     "save_state(path)\n\n"
     "Write a checkpoint: the complete state at the current time (t, q, u, z, discrete and\n"
     "auto-update variables), exactly (hexadecimal floats), with the model's fingerprint.\n"
     "Raises SceneError when the file cannot be written."},
    {"load_state", (PyCFunction)simLoadState, METH_O,
     "load_state(path)\n\n"
     "Continue from a checkpoint written by save_state (or `contactsim run --save-state`) for\n"
     "the same scene; an edit of q or u not yet used is discarded with the rest of the state.\n"
     "Raises SceneError (file, line, message) for a checkpoint of another scene, another\n"
     "format version or a malformed one; the simulation is then unchanged (a pending edit\n"
     "included)."},
    {"body_pose", (PyCFunction)simBodyPose, METH_O,
     "body_pose(body) -> (p, q)\n\n"
     "Pose of a body (name or id) at the current time: origin p in Ground, m (3,), and\n"
     "orientation q in Ground, unit quaternion (w, x, y, z) (4,)."},
    {"body_velocity", (PyCFunction)simBodyVelocity, METH_O,
     "body_velocity(body) -> (w, v)\n\n"
     "Angular velocity w, rad/s, and velocity v of the body's origin, m/s, both in Ground."},
    {"body_com", (PyCFunction)simBodyCom, METH_O,
     "body_com(body) -> array (3,)\n\nCentre of mass of the body in Ground, m."},
    {"_contacts", (PyCFunction)simContacts, METH_NOARGS,
     "_contacts() -> list of tuples; see Simulation.contacts."},
    {"contact_set", (PyCFunction)simContactSet, METH_O,
     "contact_set(name) -> (force, cop)\n\n"
     "Total contact force on the bodies of a contact set, N, and its centre of pressure, m,\n"
     "both in Ground (cop is NaN when no normal force acts)."},
    {"get_discrete", (PyCFunction)simGetDiscrete, METH_VARARGS,
     "get_discrete(force, name) -> float\n\n"
     "Discrete variable `name` (e.g. 'mu_static') of a force element (name or id)."},
    {"set_discrete", (PyCFunction)simSetDiscrete, METH_VARARGS,
     "set_discrete(force, name, value)\n\n"
     "Set a discrete variable of one force element (a contact set's elements are SET.0,\n"
     "SET.1, ...) between steps, as a scene's \"changes\" entry would at the current time\n"
     "(the kind's rules apply, e.g. mu_dynamic <= mu_static)."},
    {"set_options", (PyCFunction)(void (*)(void))simSetOptions, METH_VARARGS | METH_KEYWORDS,
     "set_options(**options)\n\n"
     "Change integrator options (rtol, atol, integrator, max_step, report_interval, ...); the\n"
     "integrator restarts from the current state at the next advance."},
    {NULL, NULL, 0, NULL},
};


static PyGetSetDef simGetset[] = {
    {"time", (getter)simGetTime, (setter)simSetTime,
     "Current time, s. Settable (scheduled changes before it are not replayed).", NULL},
    {"q", (getter)simGetQ, (setter)simSetQ,
     "Generalized coordinates (nq,): a writable numpy view of the state (rad or m;\n"
     "quaternions w, x, y, z, normalised when handed to the integrator). Edits in place\n"
     "(sim.q[0] = 0.3) and assignment (sim.q = values) both take effect at the next call.",
     NULL},
    {"u", (getter)simGetU, (setter)simSetU,
     "Generalized speeds (nu,): a writable numpy view of the state (rad/s or m/s; for ball\n"
     "and free joints the angular velocity in F, then for free joints the velocity in F).",
     NULL},
    {"z", (getter)simGetZ, NULL,
     "Auxiliary continuous states (nz,), read-only view: dissipated energies, J, and the\n"
     "elements' own states.",
     NULL},
    {"discrete", (getter)simGetDisc, NULL,
     "Discrete variables of every element (read-only view; set with set_discrete).", NULL},
    {"auto_update", (getter)simGetAuto, NULL,
     "Auto-update discrete variables (read-only view), e.g. exponential-spring anchors, m.", NULL},
    {"ke", (getter)simGetKe, NULL, "Kinetic energy, J.", NULL},
    {"pe", (getter)simGetPe, NULL, "Potential energy (gravity and every element), J.", NULL},
    {"dissipated", (getter)simGetDissipated, NULL, "Energy dissipated so far, J.", NULL},
    {"e_total", (getter)simGetTotal, NULL,
     "ke + pe + dissipated, J: constant up to the integration error.", NULL},
    {"statistics", (getter)simGetStatistics, NULL,
     "Statistics since creation, reset or load_state (dict): the keys of run --stats\n"
     "(steps, rhs_evals, cpu_seconds, max_penetration (m), peak_normal_force (N),\n"
     "sliding_distance (m), stuck_drift (m), energy_error (relative), the per-set and\n"
     "per-element peaks, diagnostics (list of str), ...) and t_start, t, restarts, groups.",
     NULL},
    {"options", (getter)simGetOptions, NULL, "Integrator options in use (dict).", NULL},
    {"model", (getter)simGetModel, NULL, "The Model simulated.", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};


PyTypeObject csPy_SimulationType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "contactsim._core.Simulation",
    .tp_basicsize = sizeof(csPySimulation),
    .tp_dealloc = (destructor)simDealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
    .tp_doc = "Simulation(model, **options): a model's state and integrator, stepped from Python.",
    .tp_methods = simMethods,
    .tp_getset = simGetset,
    .tp_init = (initproc)simInit,
    .tp_new = PyType_GenericNew,
};
