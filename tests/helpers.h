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
// the same, loaded with that contact model (NULL: the scene's own)
csModel* th_loadFileWith(const char* relpath, const char* contact_model);
// The whole file at path, malloc'd and zero-terminated (free it); its length in *n unless n is
// NULL. Fails the test if it cannot be read.
char* th_readFile(const char* path, size_t* n);

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
// The same on data the caller made (and may have set up), which it deletes.
void th_runData(const csModel* m, csData* d, const csSimOptions* opt, thTrace* tr);
void th_traceFree(thTrace* tr);

// |a - b| <= atol + rtol*|b|, with a message naming what is compared
void th_assertClose(double a, double b, double rtol, double atol, const char* what);
// each component within atol + rtol*|b| (the tolerance scales with the whole vector b)
void th_assertVecClose(csVec3 a, csVec3 b, double rtol, double atol, const char* what);

// ---------------------------------------------------------------------------------------------
// building models with the C API (each fails the test if the model refuses the addition)

// Append a body on `joint` to `parent` with joint frames X_PF, X_BM; NULL name gives "body<n>".
int th_addBody(csModel* m, const char* name, int parent, csJointType joint, csTransform X_PF,
               csTransform X_BM, double mass, csVec3 com, csMat33 inertia);
// Append a free body on ground with identity joint frames.
int th_addFreeBody(csModel* m, const char* name, double mass, csVec3 com, csMat33 inertia);
// Append a plane fixed on `body` with pose X_BP in the body frame (+z is the outward normal).
int th_addPlane(csModel* m, const char* name, int body, csTransform X_BP);
// Append a force element of `kind` with default parameters; returns its id.
int th_addForce(csModel* m, int kind, const char* name);
// Set a force element's parameter by key; fails the test if the kind has no such key.
void th_setParam(csModel* m, int e, const char* key, double value);
// Finalize the model; fails the test, printing the model's error, if it is refused.
void th_finalize(csModel* m);

// Default options with the given duration, tolerances and report interval.
csSimOptions th_simOptions(double duration, double rtol, double atol, double report_interval);
// The diagonal matrix diag(a, b, c).
csMat33 th_diag(double a, double b, double c);
// Write free body b's state into q (and u when not NULL): R_FM, p_FM, angular and linear velocity.
void th_setFreeState(const csModel* m, double* q, double* u, int b, csQuat R, csVec3 p, csVec3 w,
                     csVec3 v);

// What a trace shows of a body dropped onto a floor and bouncing back (energies per unit weight
// of the drop height z0 - contact_z).
typedef struct thBounce {
  double apex;   // height of the origin at the apex after the first bounce (free flight)
  double cor;    // rebound speed / impact speed, both at the height contact_z
  double drift;  // max |KE + PE + dissipated - initial| / (g (z0 - contact_z)) (unit mass)
  double lost;   // dissipated energy when free flight resumes / (g (z0 - contact_z)) (unit mass)
} thBounce;

// Measure the first bounce of free body b (vertical along Ground z) from a trace of a drop from
// rest at z0 under gravity g; contact begins at z = contact_z and the model exerts no force above
// contact_z + clear. Fails the test if the body never leaves the floor again.
thBounce th_measureBounce(const csModel* m, const thTrace* tr, int b, double g, double z0,
                          double contact_z, double clear);

#endif  // CONTACTSIM_TEST_HELPERS_H
