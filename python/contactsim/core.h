// core.h: the parts of the extension module contactsim._core that its files share (private).
//
// The module is a thin front end over libcontactsim: Model wraps a csModel, Simulation a
// csData stepped by the library, run() fills a numpy table from the library's reports. No
// physics and no parsing live here; every number comes from the library.
#ifndef CONTACTSIM_PYTHON_CORE_H
#define CONTACTSIM_PYTHON_CORE_H

// Python.h comes first, as the Python C API asks (it sets feature macros for system headers)
// clang-format off
#define PY_SSIZE_T_CLEAN
#include <Python.h>
// clang-format on

#include "contactsim/contactsim.h"

// numpy's C API table lives in core_module.c; the other files see it through this symbol
#define PY_ARRAY_UNIQUE_SYMBOL csPy_ARRAY_API
#ifndef CS_PY_IMPORT_ARRAY
#define NO_IMPORT_ARRAY
#endif
#include <numpy/arrayobject.h>

// A loaded scene: the immutable csModel, owned by this object, and how it was loaded.
typedef struct csPyModel {
  PyObject ob_base;         // the object header (what PyObject_HEAD declares)
  csModel* m;               // owned; never written after loading
  PyObject* contact_model;  // the contact model asked for (str) or None: the scene's default
  PyObject* source;         // scene file path (str) or None for text
  PyObject* weakrefs;       // the weak references to it (weakref.ref(model), caches keyed so)
} csPyModel;

extern PyTypeObject csPy_ModelType;
extern PyTypeObject csPy_SimulationType;
extern PyTypeObject csPy_StateOwnerType;

// Raise the Python exception for err: SceneError for bad input and unreadable files (with
// file, path, line, column and message), SimulationError for a solver failure (with the time;
// trajectory may be NULL), MemoryError when out of memory. Returns NULL for `return` chaining.
// Callers start from a zeroed csError: some library paths fill only the code, the JSON path and
// the message, leaving file, line and column to the caller. Text that is not UTF-8 is decoded
// with replacement characters rather than failing.
PyObject* csPy_raise(const csError* err, PyObject* trajectory);

// A str from text the library gives (the names of the scene, its bodies, elements, contact sets
// and columns, diagnostics, messages), which is meant to be UTF-8 but is not checked to be (a
// scene's name may hold any byte): bytes that are not UTF-8 become U+FFFD, as repr(model) and
// the command line's JSON show them, rather than failing. New reference, NULL when out of memory.
PyObject* csPy_text(const char* s);

// The UTF-8 of a name looked up in the model (a str). A str that has no UTF-8 (a lone
// surrogate) or holds a NUL names nothing in the model: "" then, so that the lookup fails as for
// any unknown name (KeyError, not UnicodeEncodeError, nor the element named by the part before
// the NUL). NULL only with an exception set (out of memory).
const char* csPy_name(PyObject* str);

// A number given from Python for `what` (a time, a value): any real number (int, float, numpy
// scalar) but a bool, Python's or numpy's (True is an int to Python, not a number of seconds to
// anyone), which is a TypeError as another type is; an int too large for a double is a
// SceneError (a number out of range). 0, or -1 with the exception set.
int csPy_number(PyObject* v, const char* what, double* out);

// The exception classes of contactsim._errors, looked up once at import (borrowed).
extern PyObject* csPy_SceneError;
extern PyObject* csPy_SimulationError;

// Read a run's options: start from base and overwrite those given (non-None) in the keyword
// dict kw: duration, rtol, atol, integrator ("bdf"/"adams"/"rk"/"ark"/"rk23"), linear_solver,
// report_interval, max_step, initial_step, max_steps, max_rows. Raises TypeError for unknown
// names and wrong types, SceneError (naming file, the model's scene file, and "simulation") for
// values out of range; the library checks the rest. Returns 0 or -1 with an exception set.
int csPy_readOptions(PyObject* kw, const csSimOptions* base, csSimOptions* out,
                     const char* file);
// The options as the dict Model.options and Simulation.options give (new reference).
PyObject* csPy_optionsDict(const csSimOptions* o);

// The statistics of simulation s (integrator counters, contact metrics, diagnostics) as a dict
// keyed as `contactsim run --stats` names them (new reference), or NULL with an exception.
PyObject* csPy_statistics(csSimulation* s);

// The CSV column names of m (with the contact columns when forces is nonzero) as a list of
// str, new reference, or NULL with an exception. *ncol receives their number.
PyObject* csPy_columnNames(const csModel* m, int forces, int* ncol);

// Fill one row of the trajectory table (ncol values, the CSV's columns in order) for the data's
// current state, realized here as needed. Allocates nothing unless a row outgrows the buffer
// sized at open; needs no GIL. Open and fill return 0, or -1 when out of memory.
typedef struct csPyRowWriter {
  char* text;   // one formatted CSV row (PyMem_Raw: used without the GIL)
  size_t size;  // its capacity, bytes
  int ncol;
  int forces;
} csPyRowWriter;
int csPy_rowWriterOpen(csPyRowWriter* w, int ncol, int forces);
int csPy_rowWriterFill(csPyRowWriter* w, const csModel* m, csData* d, double* row);
void csPy_rowWriterClose(csPyRowWriter* w);

// What a Simulation does while one of its calls stands stopped for a signal's Python handlers
// (core_run.c runs them between steps, in the call's thread): run them (PyErr_CheckSignals)
// under its own rules, returning nonzero with an exception set when a handler raised (or the
// Simulation refuses what one did). The call goes on when it returns 0.
// what a Simulation's call is doing (csPySimulation.busy)
enum {
  SIM_IDLE = 0,  // no call under way
  SIM_RUNNING,   // advance_to or _record integrating without the GIL
  SIM_PAUSED,    // that call stopped between steps while a signal's Python handler runs
};

typedef struct csPyPause {
  int (*handle)(void* ctx);  // runs the handlers: 0, or nonzero with an exception set
  void* ctx;                 // the Simulation (csPySimulation*)
  int* busy;                 // its call state, SIM_PAUSED while handlers may run before a
                             // pass of the call begins
} csPyPause;

// Run simulation s to t_end with the GIL released, one row per report into a new table
// (rows x columns, float64) with the CSV's column names (forces: the contact columns too);
// keep 0: the same run and reports (the statistics sample them), no row kept (an empty table).
// Returns the library's status with err filled, and *columns, *table (new references) holding
// the rows reached, or -1 with a Python exception set and nothing returned. A run of the main
// thread stops at a signal that has a Python handler (Ctrl-C): when the handler raises, the
// status is CS_STOPPED, s stands at its last report and *raised holds the exception (new
// reference, else NULL); when it returns, the run goes on. pause (nullable: the handlers run
// as they are) runs the handlers for the Simulation that owns s.
int csPy_record(csSimulation* s, double t_end, int forces, int keep, PyObject** columns,
                PyObject** table, PyObject** raised, csError* err, const csPyPause* pause);
// What run() and Simulation._record return: (columns, table, statistics, failure), failure None,
// (message, time, file) of a solver failure or the exception `raised` of a stopped run; for
// other statuses an exception is raised (NULL).
PyObject* csPy_recordResult(csSimulation* s, int status, const csError* err, PyObject* columns,
                            PyObject* table, PyObject* raised);

// Ctrl-C during a call into the library (core_run.c): in Python's main thread, a handler in
// front of Python's own for SIGINT, SIGTERM and SIGHUP (those it handles) sets *flag, for
// csReporter.stop or cs_simSetStop; *flag is NULL in any other thread. A signal that came before
// (while the call was set up with the GIL held) has its Python handler run first: -1 with its
// exception set when that raised (the call then ends as a stopped one, before it began), else 0.
// busy (nullable): a Simulation's call state, SIM_PAUSED while those handlers run, so that they
// may read it. csPy_stopEnd puts Python's handlers back; then PyErr_CheckSignals runs them. The
// GIL is held for both.
int csPy_stopBegin(const volatile sig_atomic_t** flag, int* busy);
void csPy_stopEnd(const volatile sig_atomic_t* flag);

// module-level functions of core_model.c and core_run.c
PyObject* csPy_load(PyObject* self, PyObject* args, PyObject* kw);
PyObject* csPy_loads(PyObject* self, PyObject* args, PyObject* kw);
PyObject* csPy_run(PyObject* self, PyObject* args, PyObject* kw);
PyObject* csPy_sceneContactModels(PyObject* self, PyObject* args);
PyObject* csPy_readScene(PyObject* self, PyObject* arg);
PyObject* csPy_modelFromSource(PyObject* self, PyObject* args);

#endif  // CONTACTSIM_PYTHON_CORE_H
