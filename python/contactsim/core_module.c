// core_module.c: the module contactsim._core: its function table, the exception mapping, run
// options and statistics shared by run() and Simulation, and the row writer that turns the
// library's report rows into numbers.
//
// The module never prints: every failure becomes an exception carrying the library's csError
// (file, JSON path, line, column, sentence).
#define CS_PY_IMPORT_ARRAY
#include "core.h"

#include <locale.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

PyObject* csPy_SceneError = NULL;
PyObject* csPy_SimulationError = NULL;


// ---------------------------------------------------------------------------------------------
// errors

PyObject* csPy_text(const char* s) {
  return PyUnicode_DecodeUTF8(s, (Py_ssize_t)strlen(s), "replace");
}


const char* csPy_name(PyObject* str) {
  Py_ssize_t size = 0;
  const char* name = PyUnicode_AsUTF8AndSize(str, &size);
  if (!name && PyErr_ExceptionMatches(PyExc_UnicodeEncodeError)) {
    PyErr_Clear();
    return "";
  }
  // a NUL inside would end the name early, and another element of that prefix's name be found
  return name && strlen(name) != (size_t)size ? "" : name;
}


// a file name as the file system's encoding decodes it (surrogateescape), as os.fsdecode and
// Model.file do, so that the error's file opens the same file again
static PyObject* fileText(const char* s) {
  return PyUnicode_DecodeFSDefaultAndSize(s, (Py_ssize_t)strnlen(s, CS_MAX_FILE));
}


PyObject* csPy_raise(const csError* err, PyObject* trajectory) {
  if (err->code == CS_ERR_MEMORY) {
    return PyErr_NoMemory();
  }
  PyObject* kw = NULL;
  PyObject* exc = NULL;
  PyObject* args = Py_BuildValue("(N)", csPy_text(err->message));
  // a solver failure: the time and the partial trajectory; anything else is bad input
  if (err->code == CS_ERR_SOLVER) {
    kw = Py_BuildValue("{s:d,s:O,s:N}", "time", err->time, "trajectory",
                       trajectory ? trajectory : Py_None, "file", fileText(err->file));
    if (args && kw) {
      exc = PyObject_Call(csPy_SimulationError, args, kw);
    }
  } else {
    kw = Py_BuildValue("{s:N,s:N,s:i,s:i}", "file", fileText(err->file), "path",
                       csPy_text(err->path), "line", err->line, "column", err->column);
    if (args && kw) {
      exc = PyObject_Call(csPy_SceneError, args, kw);
    }
  }
  if (exc) {
    PyErr_SetObject((PyObject*)Py_TYPE(exc), exc);
  }
  Py_XDECREF(exc);
  Py_XDECREF(kw);
  Py_XDECREF(args);
  return NULL;
}


// An option error in the user's terms. The scene file of the options csPy_readOptions is
// reading (NULL outside it): its errors are located as the library's checks of the same options
// are, FILE: simulation: MESSAGE. The GIL is held throughout, so one static serves.
static const char* optionFile;

static int optionError(const char* fmt, ...) __attribute__((format(printf, 1, 2)));
static int optionError(const char* fmt, ...) {
  csError err = {0};
  err.code = CS_ERR_INPUT;
  if (optionFile) {
    snprintf(err.file, sizeof(err.file), "%s", optionFile);
    snprintf(err.path, sizeof(err.path), "simulation");
  }
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(err.message, sizeof(err.message), fmt, ap);
  va_end(ap);
  csPy_raise(&err, NULL);
  return -1;
}


// ---------------------------------------------------------------------------------------------
// options

// a real option: a finite Python number (int, float, numpy scalar). Another type (a str, a
// bool) is a TypeError, as the docs say of wrong Python types; a number out of range is a
// SceneError. The library's checks (> 0, >= 0) let infinity through, and no option means
// anything with it (atol = inf would switch the error test off), so it is refused here, as the
// command line refuses it.
int csPy_number(PyObject* v, const char* what, double* out) {
  if (PyBool_Check(v) || PyArray_IsScalar(v, Bool)) {
    PyErr_Format(PyExc_TypeError, "%s must be a number, not a bool", what);
    return -1;
  }
  double x = PyFloat_AsDouble(v);
  if (x == -1.0 && PyErr_Occurred()) {
    if (PyErr_ExceptionMatches(PyExc_OverflowError)) {
      PyErr_Clear();
      // located as the option's other errors are, while options are read (optionFile)
      return optionError("%s must be a finite number, got an integer too large for a double",
                         what);
    }
    PyErr_Clear();
    PyErr_Format(PyExc_TypeError, "%s must be a number, not %.100s", what,
                 Py_TYPE(v)->tp_name);
    return -1;
  }
  *out = x;
  return 0;
}


static int readReal(PyObject* v, const char* name, double* out) {
  double x = 0;
  if (csPy_number(v, name, &x)) {
    return -1;
  }
  if (!isfinite(x)) {
    return optionError("%s must be a finite number, got %g", name, x);
  }
  *out = x;
  return 0;
}


// a count option (max_steps, max_rows): a whole number from 1 to 1e15, as the scene file and
// the command line take it (0 or a negative count would silently mean the default)
static int readCount(PyObject* v, const char* name, long* out) {
  double x = 0;
  if (readReal(v, name, &x)) {
    return -1;
  }
  if (!(x == floor(x) && x >= 1 && x <= 1e15)) {
    return optionError("%s must be a whole number from 1 to 1e15, got %.17g", name, x);
  }
  *out = (long)x;
  return 0;
}


// a name among n choices; the index in *out
static int readChoice(PyObject* v, const char* name, const char* const* names, int n, int* out) {
  if (!PyUnicode_Check(v)) {
    PyErr_Format(PyExc_TypeError, "%s must be a str, not %.100s", name, Py_TYPE(v)->tp_name);
    return -1;
  }
  const char* s = PyUnicode_AsUTF8(v);
  for (int i = 0; s && i < n; i++) {
    if (strcmp(s, names[i]) == 0) {
      *out = i;
      return 0;
    }
  }
  PyErr_Clear();
  // the choices, as the list the message gives: 'a', 'b' or 'c'
  char list[256] = "";
  size_t len = 0;
  for (int i = 0; i < n && len < sizeof(list); i++) {
    int w = snprintf(list + len, sizeof(list) - len, "%s'%s'",
                     i == 0 ? "" : i == n - 1 ? " or " : ", ", names[i]);
    len += w > 0 ? (size_t)w : 0;
  }
  return optionError("%s must be %s", name, list);
}


// the names of csIntegratorType and csLinearSolver, by value
static const char* const integrators[] = CS_INTEGRATOR_NAMES;
static const char* const solvers[] = CS_LINSOL_NAMES;


PyObject* csPy_optionsDict(const csSimOptions* o) {
  int integ = o->integrator >= 0 && o->integrator < CS_INTEGRATOR_COUNT ? (int)o->integrator : 0;
  int ls = o->linsol >= 0 && o->linsol < CS_LINSOL_COUNT ? (int)o->linsol : 0;
  // the row limit in force: 0 means the default
  long max_rows = o->max_rows > 0 ? o->max_rows : CS_DEFAULT_MAX_ROWS;
  return Py_BuildValue("{s:d,s:s,s:s,s:d,s:d,s:d,s:d,s:l,s:d,s:l}", "duration", o->duration,
                       "integrator", integrators[integ], "linear_solver", solvers[ls], "rtol",
                       o->rtol, "atol", o->atol, "max_step", o->max_step, "initial_step",
                       o->initial_step, "max_steps", o->max_steps, "report_interval",
                       o->report_interval, "max_rows", max_rows);
}


static int readOptions(PyObject* kw, csSimOptions* out);


int csPy_readOptions(PyObject* kw, const csSimOptions* base, csSimOptions* out,
                     const char* file) {
  *out = *base;
  if (!kw) {
    return 0;
  }
  optionFile = file;
  int rc = readOptions(kw, out);
  optionFile = NULL;
  return rc;
}


static int readOptions(PyObject* kw, csSimOptions* out) {
  PyObject* key;
  PyObject* value;
  Py_ssize_t pos = 0;
  while (PyDict_Next(kw, &pos, &key, &value)) {
    Py_ssize_t klen = 0;
    const char* k = PyUnicode_AsUTF8AndSize(key, &klen);
    if (!k) {
      return -1;
    }
    // a name with a NUL is no option's ('rtol\0x' read as rtol)
    if (strlen(k) != (size_t)klen) {
      PyErr_Format(PyExc_TypeError, "unexpected keyword argument %R", key);
      return -1;
    }
    // None leaves the scene's value
    if (value == Py_None) {
      continue;
    }
    int rc = 0, choice = 0;
    if (strcmp(k, "duration") == 0) {
      rc = readReal(value, k, &out->duration);
    } else if (strcmp(k, "rtol") == 0) {
      rc = readReal(value, k, &out->rtol);
    } else if (strcmp(k, "atol") == 0) {
      rc = readReal(value, k, &out->atol);
    } else if (strcmp(k, "report_interval") == 0) {
      rc = readReal(value, k, &out->report_interval);
      // the scene's and the command line's lower limit: the library would take 1e-300 and
      // write rows without end (or merge report times that round together)
      if (rc == 0 && out->report_interval > 0 && out->report_interval < CS_MIN_REPORT_INTERVAL) {
        return optionError("report_interval must be >= %g s (the smallest report interval), got %g",
                           CS_MIN_REPORT_INTERVAL, out->report_interval);
      }
    } else if (strcmp(k, "max_step") == 0) {
      rc = readReal(value, k, &out->max_step);
    } else if (strcmp(k, "initial_step") == 0) {
      rc = readReal(value, k, &out->initial_step);
    } else if (strcmp(k, "max_steps") == 0) {
      rc = readCount(value, k, &out->max_steps);
    } else if (strcmp(k, "max_rows") == 0) {
      rc = readCount(value, k, &out->max_rows);
    } else if (strcmp(k, "integrator") == 0) {
      rc = readChoice(value, k, integrators, CS_INTEGRATOR_COUNT, &choice);
      out->integrator = (csIntegratorType)choice;
    } else if (strcmp(k, "linear_solver") == 0) {
      rc = readChoice(value, k, solvers, CS_LINSOL_COUNT, &choice);
      out->linsol = (csLinearSolver)choice;
    } else {
      // a keyword no option has, as Python calls it
      PyErr_Format(PyExc_TypeError,
                   "unexpected keyword argument %R (the run options: duration, rtol, atol, "
                   "integrator, report_interval, max_step, initial_step, max_steps, max_rows, "
                   "linear_solver)",
                   key);
      return -1;
    }
    if (rc) {
      return -1;
    }
  }
  return 0;
}


// {name: value} of the contact sets' peak normal forces (elements 0), or of each contact
// element's peak normal force (1) or deepest penetration (2); NULL with an exception set
static PyObject* contactPeaks(csSimulation* s, int what) {
  const csModel* m = cs_simModel(s);
  PyObject* out = PyDict_New();
  int n = cs_modelCount(m, what == 0 ? CS_COUNT_CONTACT_SET : CS_COUNT_FORCE);
  for (int i = 0; out && i < n; i++) {
    double peak = 0, depth = 0;
    int got = what == 0 ? cs_simContactSetStatistics(s, i, &peak)
                        : cs_simContactStatistics(s, i, &peak, &depth);
    if (got != 0) {
      continue;  // not a contact element
    }
    PyObject* v = PyFloat_FromDouble(what == 2 ? depth : peak);
    PyObject* name = csPy_text(what == 0 ? cs_modelContactSetName(m, i) : cs_modelForceName(m, i));
    if (!v || !name || PyDict_SetItem(out, name, v) != 0) {
      Py_CLEAR(out);
    }
    Py_XDECREF(name);
    Py_XDECREF(v);
  }
  return out;
}


PyObject* csPy_statistics(csSimulation* s) {
  csRunStatistics st;
  cs_simStatistics(s, &st);
  PyObject* notes = PyList_New(0);
  for (int i = 0; notes && i < st.nnotes; i++) {
    const char* n = cs_simNote(s, i);
    PyObject* str = csPy_text(n ? n : "");
    if (!str || PyList_Append(notes, str) != 0) {
      Py_CLEAR(notes);
    }
    Py_XDECREF(str);
  }
  PyObject* sets = notes ? contactPeaks(s, 0) : NULL;
  PyObject* peaks = sets ? contactPeaks(s, 1) : NULL;
  PyObject* depths = peaks ? contactPeaks(s, 2) : NULL;
  if (!depths) {
    Py_XDECREF(notes);
    Py_XDECREF(sets);
    Py_XDECREF(peaks);
    return NULL;
  }
  // the keys of `contactsim run --stats` and `compare --format json` (and t_start, t, the
  // commits, restarts, groups and the initial energy, which those do not write)
  return Py_BuildValue(
      "{s:d,s:d,s:l,s:l,s:l,s:l,s:l,s:l,s:l,s:l,s:l,s:i,s:d,s:d,s:s,s:d,s:d,s:d,s:d,s:d,s:l,"
      "s:d,s:d,s:N,s:N,s:N,s:N}",
      "t_start", st.t_start, "t", st.t, "steps", st.nsteps, "rhs_evals", st.nrhs,
      "rhs_evals_jacobian", st.nrhs_jac, "rhs_total", st.nrhs + st.nrhs_jac, "jacobian_evaluations",
      st.njac, "error_test_failures", st.netf, "nonlinear_failures", st.nncf, "auto_update_commits",
      st.ncommit, "restarts", st.nrestart, "groups", st.ngroup, "cpu_seconds", st.cpu_seconds,
      "statistics_cpu_seconds", st.cpu_statistics, "linear_solver", st.linear_solver,
      "max_penetration", st.max_penetration, "peak_normal_force", st.peak_normal_force,
      "sliding_distance", st.sliding_distance, "stuck_drift", st.stuck_drift, "stick_speed",
      st.stick_speed, "stuck_steps", st.nstuck, "energy_error", st.energy_error,
      "energy_initial", st.energy_initial, "peak_normal_force_sets", sets,
      "peak_normal_force_elements", peaks, "max_penetration_elements", depths, "diagnostics",
      notes);
}


// ---------------------------------------------------------------------------------------------
// column names and rows, through the library's CSV formatter
//
// The columns and their order are the CSV's by construction: the header and each row are
// formatted by the library (cs_csvFormatHeader, cs_csvFormatRow) and read back here. The CSV
// prints %.17g, which reads back as the same double, so the numbers are exactly the library's.
// Writing the row from the model's fields here instead would repeat csv.c's column list in a
// second place, which could drift from it; the library has no numeric form of a row yet.

PyObject* csPy_columnNames(const csModel* m, int forces, int* ncol) {
  csCsvOptions opt = {forces};
  size_t n = cs_csvFormatHeader(NULL, 0, m, &opt);
  char* text = PyMem_Malloc(n + 1);
  if (!text) {
    return PyErr_NoMemory();
  }
  cs_csvFormatHeader(text, n + 1, m, &opt);
  // split "a,b,c\n" at the commas
  PyObject* names = PyList_New(0);
  char* start = text;
  for (char* p = text; names; p++) {
    if (*p == ',' || *p == '\n' || *p == '\0') {
      PyObject* s = PyUnicode_DecodeUTF8(start, p - start, "replace");
      if (!s || PyList_Append(names, s) != 0) {
        Py_CLEAR(names);
      }
      Py_XDECREF(s);
      if (*p != ',') {
        break;
      }
      start = p + 1;
    }
  }
  PyMem_Free(text);
  *ncol = names ? (int)PyList_GET_SIZE(names) : 0;
  return names;
}


int csPy_rowWriterOpen(csPyRowWriter* w, int ncol, int forces) {
  memset(w, 0, sizeof(*w));
  w->ncol = ncol;
  w->forces = forces;
  // 25 characters per %.17g number and its comma; grown if a row ever needs more
  w->size = 25 * (size_t)ncol + 64;
  w->text = PyMem_RawMalloc(w->size);
  return w->text ? 0 : -1;
}


// the C locale, made once when the module is imported (NULL if it could not be)
static locale_t cLocale;


int csPy_rowWriterFill(csPyRowWriter* w, const csModel* m, csData* d, double* row) {
  csCsvOptions opt = {w->forces};
  size_t n = cs_csvFormatRow(w->text, w->size, m, d, &opt);
  if (n >= w->size) {
    // a longer row than foreseen: a larger buffer, and the row again (realized already)
    char* bigger = PyMem_RawRealloc(w->text, n + 1);
    if (!bigger) {
      return -1;
    }
    w->text = bigger;
    w->size = n + 1;
    cs_csvFormatRow(w->text, w->size, m, d, &opt);
  }
  // the row ends with a newline; strtod stops at each comma. The row's numbers are C's (a
  // '.'), read in the C locale whatever the program set (a GUI toolkit's setlocale(LC_ALL, "")
  // in a German locale made strtod stop at the '.'): this thread only, for this row
  locale_t old = cLocale ? uselocale(cLocale) : (locale_t)0;
  const char* p = w->text;
  for (int i = 0; i < w->ncol; i++) {
    char* end = NULL;
    row[i] = strtod(p, &end);
    if (end == p) {
      // an empty cell never occurs in a report row; be safe and mark it missing
      row[i] = NAN;
    }
    p = (*end == ',') ? end + 1 : end;
  }
  if (cLocale) {
    uselocale(old);
  }
  return 0;
}


void csPy_rowWriterClose(csPyRowWriter* w) {
  PyMem_RawFree(w->text);
  memset(w, 0, sizeof(*w));
}


// ---------------------------------------------------------------------------------------------
// the module

static PyMethodDef methods[] = {
    {"load", (PyCFunction)(void (*)(void))csPy_load, METH_VARARGS | METH_KEYWORDS,
     "load(path, contact_model=None, overrides=()) -> Model\n\n"
     "Load a scene file. overrides is a sequence of (key path, JSON text) pairs.\n"
     "Raises SceneError naming the file, the JSON path and what is wrong."},
    {"loads", (PyCFunction)(void (*)(void))csPy_loads, METH_VARARGS | METH_KEYWORDS,
     "loads(text, filename='<string>', contact_model=None, overrides=()) -> Model\n\n"
     "Load a scene from JSON text; filename is used in messages only."},
    {"run", (PyCFunction)(void (*)(void))csPy_run, METH_VARARGS | METH_KEYWORDS,
     "run(model, forces=False, **options) -> (columns, data, stats, error)\n\n"
     "Integrate the model from its initial state with the GIL released and return the\n"
     "CSV column names, the report table (rows x columns, float64), the statistics and\n"
     "None, or on a solver failure the exception to raise as the last item."},
    {"scene_contact_models", (PyCFunction)csPy_sceneContactModels, METH_VARARGS,
     "scene_contact_models(path, text, overrides=()) -> (names, default)\n\n"
     "The contact models a scene gives parameter blocks for (in file order) and its default\n"
     "('' when it has none), from its text (bytes, as read_scene gives it; path names it in\n"
     "messages) with the overrides applied first."},
    {"read_scene", (PyCFunction)csPy_readScene, METH_O,
     "read_scene(path) -> bytes\n\n"
     "A scene file's text, read once ('-' is standard input; pipes work), to load it\n"
     "several times."},
    {"_model_from_source", (PyCFunction)csPy_modelFromSource, METH_VARARGS,
     "_model_from_source(text, filename, contact_model, overrides, source) -> Model\n\n"
     "A Model from scene text read already, with source as its file: a pickled Model loaded\n"
     "again (Model.__reduce__), and compare()'s models from the scene read once."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef moduledef = {
    PyModuleDef_HEAD_INIT,
    "contactsim._core",
    "The C extension behind contactsim: libcontactsim's models, runs and simulations.",
    -1,
    methods,
    NULL,
    NULL,
    NULL,
    NULL,
};


PyMODINIT_FUNC PyInit__core(void);
PyMODINIT_FUNC PyInit__core(void) {
  if (!cLocale) {
    cLocale = newlocale(LC_ALL_MASK, "C", (locale_t)0);
  }
  import_array();
  // the exception classes are defined in Python (contactsim._errors)
  PyObject* errors = PyImport_ImportModule("contactsim._errors");
  if (!errors) {
    return NULL;
  }
  csPy_SceneError = PyObject_GetAttrString(errors, "SceneError");
  csPy_SimulationError = PyObject_GetAttrString(errors, "SimulationError");
  Py_DECREF(errors);
  if (!csPy_SceneError || !csPy_SimulationError) {
    return NULL;
  }
  if (PyType_Ready(&csPy_ModelType) < 0 || PyType_Ready(&csPy_SimulationType) < 0 ||
      PyType_Ready(&csPy_StateOwnerType) < 0) {
    return NULL;
  }
  PyObject* mod = PyModule_Create(&moduledef);
  if (!mod) {
    return NULL;
  }
  Py_INCREF(&csPy_ModelType);
  Py_INCREF(&csPy_SimulationType);
  if (PyModule_AddObject(mod, "Model", (PyObject*)&csPy_ModelType) < 0 ||
      PyModule_AddObject(mod, "Simulation", (PyObject*)&csPy_SimulationType) < 0 ||
      PyModule_AddStringConstant(mod, "version", cs_versionString()) < 0) {
    Py_DECREF(mod);
    return NULL;
  }
  return mod;
}
