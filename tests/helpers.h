// helpers.h: shared fixtures of the test executables.
#ifndef CONTACTSIM_TEST_HELPERS_H
#define CONTACTSIM_TEST_HELPERS_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "contactsim/contactsim.h"

// Load a scene from JSON text; fails the test (printing the loader's error) if it does not load.
csModel* th_loadString(const char* json);
// Load a scene file relative to the source root; fails the test if it does not load.
csModel* th_loadFile(const char* relpath);

// A recorder of report rows: time, q, u and energies at every report.
typedef struct thTrace {
  int n, cap;
  int nq, nu;
  double* t;     // (n)
  double* q;     // (n x nq)
  double* u;     // (n x nu)
  double* ke;    // (n)
  double* pe;    // (n)
  double* diss;  // (n)
} thTrace;

// Run m from its initial state with opt (or the model's options when NULL), recording every
// report into tr (nullable). Fails the test if the run fails or counted a non-finite
// right-hand side (an unexpected warning). Returns the data (caller deletes).
csData* th_run(const csModel* m, const csSimOptions* opt, thTrace* tr);
void th_traceFree(thTrace* tr);

// |a - b| <= atol + rtol*|b|, with a message naming what is compared
void th_assertClose(double a, double b, double rtol, double atol, const char* what);

#endif  // CONTACTSIM_TEST_HELPERS_H
