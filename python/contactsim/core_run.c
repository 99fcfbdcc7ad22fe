// core_run.c: run(): integrate a model from its initial state and fill a numpy table with one
// row per report, with the GIL released for the whole integration.
//
// The table is allocated once for the number of reports the options imply and filled in
// place by the library's reporter; should more rows come (they do not, but the count is not
// the library's promise), it grows by doubling, the GIL taken back for the reallocation only.
#include "core.h"

#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

// rows allocated up front at most (a longer run grows the table by doubling)
#define MAX_INITIAL_ROWS 1000000


// what the reporter needs while the integration runs without the GIL
typedef struct RunCtx {
  csPyRowWriter writer;  // the library's CSV row, read back as numbers
  PyArrayObject* table;  // (cap x ncol) float64, owned
  npy_intp rows;         // rows filled
  npy_intp cap;          // rows allocated
  int ncol;
  PyThreadState** save;  // the released thread state, to take the GIL back for growing
} RunCtx;


// resize the table to n rows (the GIL is held); 0 or -1 with an exception set
static int resizeTable(RunCtx* r, npy_intp n) {
  npy_intp shape[2] = {n, r->ncol};
  PyArray_Dims dims = {shape, 2};
  // refcheck 0: nothing else refers to the table while it is being filled
  PyObject* res = PyArray_Resize(r->table, &dims, 0, NPY_CORDER);
  if (!res) {
    return -1;
  }
  Py_DECREF(res);
  r->cap = n;
  return 0;
}


// the reporter: one row at each report time, written in place; nonzero stops the run
static int reportRow(void* ctx, const csModel* m, csData* d) {
  RunCtx* r = ctx;
  if (r->rows == r->cap) {
    PyEval_RestoreThread(*r->save);
    int rc = resizeTable(r, 2 * r->cap);
    *r->save = PyEval_SaveThread();
    if (rc) {
      return 1;
    }
  }
  double* row = (double*)PyArray_DATA(r->table) + r->rows * r->ncol;
  if (csPy_rowWriterFill(&r->writer, m, d, row)) {
    return 1;
  }
  r->rows++;
  return 0;
}


// ---------------------------------------------------------------------------------------------
// Ctrl-C during a run
//
// Python runs its signal handlers between bytecodes of the main thread, and the integration
// runs in C with the GIL released: without help, a KeyboardInterrupt would wait for the end of
// the run, hours away perhaps, and then throw its rows away. So while a run of the main thread
// integrates, a C handler stands in front of the handler already installed (Python's) for the
// signals the command line stops on: it sets the library's stop flag (csReporter.stop, polled
// before every step and within one) and passes the signal on, so that Python notes it as usual.
// When the run has stopped (at its last report), the Python handler runs: KeyboardInterrupt by
// default, raised with the rows so far; a handler that returns lets the run go on. Signals left
// to their default action or ignored are not touched (SIGTERM still ends the process), nor are
// runs of other threads, which Python never interrupts either.

static const int stopSignals[] = {SIGINT, SIGTERM, SIGHUP};
enum { NSTOP = sizeof(stopSignals) / sizeof(stopSignals[0]) };

// one run of the main thread at a time (the main thread is one thread and the run does not
// call back into Python code that could start another)
static volatile sig_atomic_t stopRequested;
static struct sigaction previousAction[NSTOP];
static int installed[NSTOP];


static void onStopSignal(int sig, siginfo_t* info, void* uc) {
  stopRequested = 1;
  for (int i = 0; i < NSTOP; i++) {
    if (stopSignals[i] == sig && installed[i]) {
      const struct sigaction* p = &previousAction[i];
      if (p->sa_flags & SA_SIGINFO) {
        p->sa_sigaction(sig, info, uc);
      } else if (p->sa_handler != SIG_DFL && p->sa_handler != SIG_IGN) {
        p->sa_handler(sig);
      }
    }
  }
}


// 1 when the calling thread is Python's main thread, the only one its signal handlers run in; 0
// in another; -1 with the exception set when the call into Python raised. That call runs Python
// code, and with it the handler of a signal that came while the GIL was held (a Ctrl-C during a
// big scene's set-up): its KeyboardInterrupt must reach the caller, not be cleared.
static int inMainThread(void) {
  PyObject* threading = PyImport_ImportModule("threading");
  PyObject* main = threading ? PyObject_CallMethod(threading, "main_thread", NULL) : NULL;
  PyObject* ident = main ? PyObject_GetAttrString(main, "ident") : NULL;
  int yes = ident ? PyLong_Check(ident) && PyLong_AsUnsignedLong(ident) ==
                                               PyThread_get_thread_ident()
                  : -1;
  Py_XDECREF(ident);
  Py_XDECREF(main);
  Py_XDECREF(threading);
  if (yes >= 0 && PyErr_Occurred()) {
    PyErr_Clear();  // an ident that is no unsigned long: not this thread's
    yes = 0;
  }
  return yes;
}


// put the stop handler in front of each handled signal's handler; the GIL is held
static void installStopHandlers(void) {
  stopRequested = 0;
  for (int i = 0; i < NSTOP; i++) {
    struct sigaction now;
    installed[i] = 0;
    if (sigaction(stopSignals[i], NULL, &now) != 0 ||
        (!(now.sa_flags & SA_SIGINFO) &&
         (now.sa_handler == SIG_DFL || now.sa_handler == SIG_IGN))) {
      continue;
    }
    struct sigaction ours;
    memset(&ours, 0, sizeof(ours));
    ours.sa_sigaction = onStopSignal;
    ours.sa_flags = SA_SIGINFO | SA_ONSTACK;
    ours.sa_mask = now.sa_mask;
    // installed is set before the handler can run, previousAction by the same call
    installed[i] = 1;
    if (sigaction(stopSignals[i], &ours, &previousAction[i]) != 0) {
      installed[i] = 0;
    }
  }
}


static void removeStopHandlers(void) {
  for (int i = 0; i < NSTOP; i++) {
    if (installed[i]) {
      sigaction(stopSignals[i], &previousAction[i], NULL);
      installed[i] = 0;
    }
  }
}


int csPy_stopBegin(const volatile sig_atomic_t** flag, int* busy) {
  *flag = NULL;
  // a handler run here (inMainThread runs Python code) finds a Simulation paused, readable
  int was = busy ? *busy : 0;
  if (busy) {
    *busy = SIM_PAUSED;
  }
  int main = inMainThread();
  // the stop handlers first, then a signal that came before this call has its handler run
  // (before anything integrates): one that comes in between then stops the call too
  if (main > 0) {
    installStopHandlers();
    if (PyErr_CheckSignals() != 0) {
      removeStopHandlers();
      main = -1;
    } else {
      *flag = &stopRequested;
    }
  }
  if (busy) {
    *busy = was;
  }
  return main < 0 ? -1 : 0;
}


void csPy_stopEnd(const volatile sig_atomic_t* flag) {
  if (flag) {
    removeStopHandlers();
  }
}


// Fill err as bad input with a JSON path and a sentence (file, line and column left empty).
static void setInputError(csError* err, const char* path, const char* fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void setInputError(csError* err, const char* path, const char* fmt, ...) {
  memset(err, 0, sizeof(*err));
  err->code = CS_ERR_INPUT;
  snprintf(err->path, sizeof(err->path), "%s", path);
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(err->message, sizeof(err->message), fmt, ap);
  va_end(ap);
}


// the exception set, normalized and with its traceback, taken out of the error indicator
static PyObject* takeException(void) {
  PyObject *type, *value, *tb;
  PyErr_Fetch(&type, &value, &tb);
  PyErr_NormalizeException(&type, &value, &tb);
  if (tb && value) {
    PyException_SetTraceback(value, tb);
  }
  Py_XDECREF(type);
  Py_XDECREF(tb);
  return value;
}


// the rows to allocate up front for that many reports
static npy_intp expectedRows(double rows) {
  if (!(rows > 16)) {
    return 16;
  }
  return rows < MAX_INITIAL_ROWS ? (npy_intp)rows : MAX_INITIAL_ROWS;
}


int csPy_record(csSimulation* s, double t_end, int forces, int keep, PyObject** columns,
                PyObject** table, PyObject** raised, csError* err, const csPyPause* pause) {
  const csModel* m = cs_simModel(s);
  *columns = NULL;
  *table = NULL;
  *raised = NULL;
  RunCtx r;
  memset(&r, 0, sizeof(r));
  PyObject* names = csPy_columnNames(m, forces, &r.ncol);
  if (!names) {
    return -1;
  }
  // a bad end time is the library's to refuse; the table is sized only from a usable one
  double t = cs_simTime(s);
  csSimOptions opt = cs_simOptions(s);
  // a run that would report more rows than max_rows is refused before it starts, as the
  // command line refuses it (reports at the start, every interval and at the end)
  double rows = cs_reportCount(t, t_end, opt.report_interval);
  long limit = opt.max_rows > 0 ? opt.max_rows : CS_DEFAULT_MAX_ROWS;
  // report times beyond 2^52 intervals are refused as such (no row limit would help)
  char beyond[CS_MAX_ERROR / 2];
  if (isfinite(t_end) && t_end > t &&
      cs_reportTimesProblem(t, t_end, opt.report_interval, beyond, sizeof(beyond))) {
    Py_DECREF(names);
    setInputError(err, "simulation.report_interval", "%s", beyond);
    return CS_ERR_INPUT;
  }
  // an end that is not finite is the library's to refuse (checkEndTime), not a count of rows
  if (isfinite(t_end) && t_end > t && rows > (double)limit) {
    Py_DECREF(names);
    // a count as an integer while it is exact (the end's slack, at most 1e-12 of the run, moves it
    // by less than a row below 1e12 rows), beyond that in three digits
    char count[32];
    snprintf(count, sizeof(count), rows < 1e12 ? "%.0f" : "%.3g", rows);
    setInputError(err, "simulation.max_rows",
                  "the run would report %s rows (%g s, one every %g s), more than the limit "
                  "of %ld; raise simulation.max_rows (max_rows=N of run and Simulation, "
                  "overrides of compare), or report less often",
                  count, t_end - t, opt.report_interval, limit);
    return CS_ERR_INPUT;
  }
  // a largest step too small for the run to start is refused naming max_step, as the scene
  // file and the command line refuse it, rather than found by the integrator after a long wait
  // as a "collapsed step"; its end-time test is made at the run's length, which is never
  // stricter than at t_end
  csSimOptions span = opt;
  span.duration = t_end - t;
  char why[CS_MAX_ERROR / 2];
  if (t_end > t && cs_maxStepProblem(&span, why, sizeof(why))) {
    Py_DECREF(names);
    setInputError(err, "simulation.max_step", "%s", why);
    return CS_ERR_INPUT;
  }
  // without rows, the library's reports still happen at the same times (the statistics
  // sample the energy balance there) but nothing is kept of them: the table stays empty
  r.cap = keep ? expectedRows(rows) : 0;
  npy_intp shape[2] = {r.cap, r.ncol};
  r.table = (PyArrayObject*)PyArray_SimpleNew(2, shape, NPY_DOUBLE);
  if (!r.table || (keep && csPy_rowWriterOpen(&r.writer, r.ncol, forces) != 0)) {
    Py_DECREF(names);
    Py_XDECREF(r.table);
    csPy_rowWriterClose(&r.writer);
    return r.table ? (PyErr_NoMemory(), -1) : -1;
  }

  // the integration, without the GIL: other threads may run their own simulations meanwhile
  csReporter rep = {.report = keep ? reportRow : NULL, .ctx = &r};
  int status;
  for (;;) {
    if (csPy_stopBegin(&rep.stop, pause ? pause->busy : NULL) != 0) {
      // a signal before the run began: its handler raised, as it would have at a report
      status = CS_STOPPED;
      *raised = takeException();
      break;
    }
    PyThreadState* save = PyEval_SaveThread();
    r.save = &save;
    status = cs_simRun(s, t_end, &rep, err);
    PyEval_RestoreThread(save);
    csPy_stopEnd(rep.stop);
    if (status != CS_STOPPED) {
      break;
    }
    // stopped by a signal, at the last report: its Python handler runs now (and may read the
    // simulation, which stands there)
    int stopped = pause ? pause->handle(pause->ctx) : PyErr_CheckSignals();
    if (stopped) {
      *raised = takeException();
      break;
    }
    // the handler let the run go on: from the last report, which the run reports again
    if (r.rows > 0) {
      r.rows--;
    }
  }
  csPy_rowWriterClose(&r.writer);

  // the table cut to the rows filled (a shrinking reallocation, the rows are not copied)
  if (PyErr_Occurred() || resizeTable(&r, r.rows) != 0) {
    Py_DECREF(names);
    Py_DECREF(r.table);
    Py_CLEAR(*raised);
    return -1;
  }
  *columns = names;
  *table = (PyObject*)r.table;
  return status;
}


// (columns, table, statistics, failure): failure is None, (message, time, file) of a solver
// failure, for the Python side to raise SimulationError with the partial trajectory, or the
// exception a signal handler raised (KeyboardInterrupt), to raise with it
PyObject* csPy_recordResult(csSimulation* s, int status, const csError* err, PyObject* columns,
                            PyObject* table, PyObject* raised) {
  PyObject* stats = csPy_statistics(s);
  PyObject* result = NULL;
  // a signal noted while the run ended and its statistics were read (the GIL held): its
  // handler runs here, so that what it raises goes out with the rows (raised at the return to
  // Python, it lost them); a failure of the run itself stays the one raised
  PyObject* late = NULL;
  if (stats && !raised && status == CS_OK && PyErr_CheckSignals() != 0) {
    late = takeException();
    raised = late;
    status = CS_STOPPED;
  }
  if (!stats) {
    // an exception is set
  } else if (status == CS_OK) {
    result = Py_BuildValue("(OOOO)", columns, table, stats, Py_None);
  } else if (status == CS_STOPPED && raised) {
    result = Py_BuildValue("(OOOO)", columns, table, stats, raised);
  } else if (status == CS_ERR_SOLVER) {
    const char* file = err->file[0] ? err->file : cs_modelFile(cs_simModel(s));
    // the message as every library text, the file as os.fsdecode decodes a path (csPy_raise)
    result = Py_BuildValue("(OOO(NdN))", columns, table, stats, csPy_text(err->message), err->time,
                           PyUnicode_DecodeFSDefault(file));
  } else {
    csError e = *err;
    if (!e.file[0]) {
      snprintf(e.file, sizeof(e.file), "%s", cs_modelFile(cs_simModel(s)));
    }
    csPy_raise(&e, NULL);
  }
  Py_XDECREF(stats);
  Py_XDECREF(late);
  return result;
}


PyObject* csPy_run(PyObject* self, PyObject* args, PyObject* kw) {
  (void)self;
  // run(model, forces=False, **options): every keyword but forces is a run option
  PyObject* modelobj = NULL;
  int forces = 0;
  if (!PyArg_ParseTuple(args, "O!|p:run", &csPy_ModelType, &modelobj, &forces)) {
    return NULL;
  }
  PyObject* options = kw ? PyDict_Copy(kw) : PyDict_New();
  if (!options) {
    return NULL;
  }
  PyObject* f = PyDict_GetItemString(options, "forces");
  if (f) {
    forces = PyObject_IsTrue(f);
    PyDict_DelItemString(options, "forces");
  }
  const csModel* m = ((csPyModel*)modelobj)->m;
  csSimOptions opt;
  csSimOptions base = cs_modelOptions(m);
  int rc = csPy_readOptions(options, &base, &opt, cs_modelFile(m));
  Py_DECREF(options);
  if (rc || forces < 0) {
    return NULL;
  }
  csError err = {0};
  // the set-up without the GIL, as the run (other threads may run their own meanwhile)
  csSimulation* s;
  Py_BEGIN_ALLOW_THREADS s = cs_newSimulation(m, &opt, &err);
  Py_END_ALLOW_THREADS if (!s) {
    if (!err.file[0]) {
      snprintf(err.file, sizeof(err.file), "%s", cs_modelFile(m));
    }
    return csPy_raise(&err, NULL);
  }
  // a run from the initial state (t = 0) for the duration
  PyObject* columns = NULL;
  PyObject* table = NULL;
  PyObject* raised = NULL;
  int status =
      csPy_record(s, cs_simTime(s) + opt.duration, forces, 1, &columns, &table, &raised, &err,
                  NULL);
  PyObject* result =
      status < 0 ? NULL : csPy_recordResult(s, status, &err, columns, table, raised);
  Py_XDECREF(columns);
  Py_XDECREF(table);
  Py_XDECREF(raised);
  cs_deleteSimulation(s);
  return result;
}
