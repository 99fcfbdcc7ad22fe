// core_run.c: run(): integrate a model from its initial state and fill a numpy table with one
// row per report, with the GIL released for the whole integration.
//
// The table is allocated once for the number of reports the options imply and filled in
// place by the library's reporter; should more rows come (they do not, but the count is not
// the library's promise), it grows by doubling, the GIL taken back for the reallocation only.
#include "core.h"

#include <math.h>
#include <string.h>

// rows allocated up front at most (a longer run grows the table by doubling)
#define MAX_INITIAL_ROWS 1000000


// what the reporter needs while the integration runs without the GIL
typedef struct RunCtx {
  csPyRowWriter writer;    // the library's CSV row, read back as numbers
  PyArrayObject* table;    // (cap x ncol) float64, owned
  npy_intp rows;           // rows filled
  npy_intp cap;            // rows allocated
  int ncol;
  PyThreadState** save;    // the released thread state, to take the GIL back for growing
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


// the number of reports the options give: t0, every interval, and the end
static npy_intp expectedRows(const csSimOptions* o) {
  double n = ceil(o->duration / o->report_interval) + 2;
  if (!(n > 16)) {
    return 16;
  }
  return n < MAX_INITIAL_ROWS ? (npy_intp)n : MAX_INITIAL_ROWS;
}


PyObject* csPy_run(PyObject* self, PyObject* args, PyObject* kw) {
  (void)self;
  // run(model, forces=False, **options): the model and the flag come positionally or by
  // keyword, every other keyword is a run option
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
  int rc = csPy_readOptions(options, &m->opt, &opt);
  Py_DECREF(options);
  if (rc || forces < 0) {
    return NULL;
  }

  // the columns, the table, the data
  RunCtx r;
  memset(&r, 0, sizeof(r));
  PyObject* columns = csPy_columnNames(m, forces, &r.ncol);
  if (!columns) {
    return NULL;
  }
  // options the library would refuse are refused before the table is sized from them
  if (!(opt.duration > 0) || !(opt.report_interval > 0)) {
    Py_DECREF(columns);
    csError err;
    memset(&err, 0, sizeof(err));
    err.code = CS_ERR_INPUT;
    snprintf(err.message, sizeof(err.message), "%s must be positive",
             !(opt.duration > 0) ? "duration" : "report_interval");
    return csPy_raise(&err, NULL);
  }
  r.cap = expectedRows(&opt);
  npy_intp shape[2] = {r.cap, r.ncol};
  r.table = (PyArrayObject*)PyArray_SimpleNew(2, shape, NPY_DOUBLE);
  csData* d = cs_makeData(m);
  if (!r.table || !d || csPy_rowWriterOpen(&r.writer, r.ncol, forces) != 0) {
    Py_DECREF(columns);
    Py_XDECREF(r.table);
    cs_deleteData(d);
    csPy_rowWriterClose(&r.writer);
    return r.table ? PyErr_NoMemory() : NULL;
  }

  // the integration, without the GIL: other threads may run their own simulations meanwhile
  csReporter rep = {reportRow, NULL, NULL, &r};
  csError err;
  memset(&err, 0, sizeof(err));
  PyThreadState* save = PyEval_SaveThread();
  r.save = &save;
  int status = cs_simulate(m, d, &opt, &rep, &err);
  PyEval_RestoreThread(save);
  csPy_rowWriterClose(&r.writer);

  // the table cut to the rows filled (a shrinking realloc, no copy of the rows)
  PyObject* result = NULL;
  PyObject* stats = csPy_statsDict(&d->stat);
  if (PyErr_Occurred() || !stats || resizeTable(&r, r.rows) != 0) {
    goto done;
  }
  if (status == CS_OK) {
    result = Py_BuildValue("(OOOO)", columns, r.table, stats, Py_None);
  } else if (status == CS_ERR_SOLVER) {
    // the caller raises SimulationError with the partial trajectory built from the table
    if (!err.file[0]) {
      snprintf(err.file, sizeof(err.file), "%s", m->file);
    }
    result = Py_BuildValue("(OOO(sds))", columns, r.table, stats, err.message, err.time,
                           err.file);
  } else {
    if (!err.file[0]) {
      snprintf(err.file, sizeof(err.file), "%s", m->file);
    }
    csPy_raise(&err, NULL);
  }

done:
  cs_deleteData(d);
  Py_XDECREF(stats);
  Py_DECREF(r.table);
  Py_DECREF(columns);
  return result;
}
