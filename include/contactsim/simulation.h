// contactsim/simulation.h: the simulation API of libcontactsim, through opaque handles.
//
// A program loads a scene into a model (csModel, read-only once loaded), creates a simulation
// of it (csSimulation: the state, the integrator and the run's statistics), advances it to a
// time or by one step, reads the state and the realized quantities through functions, changes
// discrete variables between steps, runs to CSV, and saves or loads checkpoints. Nothing here
// needs the layout of csModel, csData or csSimulation: every quantity is read or written through
// a function, with ids (bodies, force elements, planes, contact sets) that are dense integers
// fixed at load (ground is body 0), looked up by name with cs_bodyId, cs_forceId, cs_planeId.
//
// Conventions (as in contactsim/math.h): SI units; "in Ground" means expressed in the Ground
// frame; quaternions are (w, x, y, z); spatial vectors are (angular, linear). Functions that can
// fail on user input return a csStatus (CS_OK = 0) and fill a caller-supplied csError, which may
// be NULL when the caller does not want the details. Programmer errors (an id out of range, a
// NULL handle) are caught by assertions in builds that enable them. The library never prints,
// exits or keeps global state; two simulations in two threads share nothing.
//
// A complete example: examples/c/bounce.c; the reference: docs/c-api.md.
#ifndef CONTACTSIM_SIMULATION_H
#define CONTACTSIM_SIMULATION_H

#include "contactsim/contactsim.h"
#include "contactsim/version.h"

#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

// ---------------------------------------------------------------------------------------------
// version (CS_VERSION_MAJOR, CS_VERSION_MINOR, CS_VERSION_PATCH and CS_VERSION_STRING are the
// version of the headers, in contactsim/version.h)

// The library's version as "MAJOR.MINOR.PATCH" (static string; compare with CS_VERSION_STRING to
// detect a program built against other headers than the library it runs with).
CS_API const char* cs_versionString(void);
// The library's version as MAJOR * 10000 + MINOR * 100 + PATCH (the CS_VERSION macro's value).
CS_API int cs_version(void);


// ---------------------------------------------------------------------------------------------
// the model: counts, names, parameters

typedef struct csSimulation csSimulation;

// What cs_modelCount counts.
typedef enum csCount {
  CS_COUNT_BODY = 0,     // bodies, ground (id 0) included
  CS_COUNT_Q,            // generalized coordinates
  CS_COUNT_U,            // generalized speeds
  CS_COUNT_Z,            // auxiliary continuous states (dissipated energies, element states)
  CS_COUNT_DISCRETE,     // discrete variables (set between steps: friction coefficients, ...)
  CS_COUNT_AUTO,         // auto-update discrete variables (committed after each step: anchors)
  CS_COUNT_FORCE,        // force elements (gravity included)
  CS_COUNT_PLANE,        // planes
  CS_COUNT_CONTACT_SET,  // contact sets (the scene's "contacts" entries)
  CS_COUNT_CHANGE,       // scheduled discrete changes
} csCount;

// A count of the model (see csCount); 0 for an unknown csCount. m not NULL.
CS_API int cs_modelCount(const csModel* m, csCount what);
// The scene's name (static for the model's life). m not NULL.
CS_API const char* cs_modelName(const csModel* m);
// The scene file the model was loaded from; for a scene loaded from a string, the filename
// cs_loadSceneString was given ("" for none).
CS_API const char* cs_modelFile(const csModel* m);
// 1 when path names the scene file m was loaded from, however it is spelled (./, a link), from
// whatever directory the program is in now, and also when it names the file an editor saved in
// its place since (a new file at the scene's path); else 0. What the library writes (CSV,
// checkpoints) is never written over it; a program writing files of its own can ask the same.
CS_API int cs_modelIsSceneFile(const csModel* m, const char* path);
// Record the regular file path names now (relative to the working directory of now) as m's scene
// file for cs_modelIsSceneFile: its identity and absolute path. The loader records the file it
// read; a model loaded from text can be given the file the text came from. cs_modelFile is not
// changed (it names the file in messages).
CS_API void cs_modelSetSceneFile(csModel* m, const char* path);
// The simulation options the scene gives (its "simulation" block with defaults filled in).
CS_API csSimOptions cs_modelOptions(const csModel* m);
// Gravity, m/s^2, in Ground, into g[3].
CS_API void cs_modelGravity(const csModel* m, double g[3]);

// Names by id (static for the model's life), or NULL when the id is out of range.
CS_API const char* cs_modelBodyName(const csModel* m, int body);
CS_API const char* cs_modelPlaneName(const csModel* m, int plane);
CS_API const char* cs_modelForceName(const csModel* m, int e);
CS_API const char* cs_modelContactSetName(const csModel* m, int set);
// The kind of force element e as its scene "type" ("exponential_spring", ...), or NULL.
CS_API const char* cs_modelForceKind(const csModel* m, int e);
// 1 if force element e is a contact (it has a contact report), 0 if not, -1 for a bad id.
CS_API int cs_modelForceIsContact(const csModel* m, int e);
// The contact set of element e (an index for cs_modelContactSetName), or -1 for none.
CS_API int cs_modelForceContactSet(const csModel* m, int e);
// The mass, kg, of a body (0 for ground), or NAN for a bad id.
CS_API double cs_modelBodyMass(const csModel* m, int body);
// Where a body's mobilizer coordinates and speeds are in the state: q[*qadr .. *qadr+*qnum) and
// u[*uadr .. *uadr+*unum). Returns 0, or -1 for a bad id. Nullable: every output.
CS_API int cs_modelBodyState(const csModel* m, int body, int* qadr, int* qnum, int* uadr,
                             int* unum);

// What the state of a simulation is made of, for cs_simState and friends.
typedef enum csStateKind {
  CS_STATE_Q = 0,     // generalized coordinates (CS_COUNT_Q)
  CS_STATE_U,         // generalized speeds (CS_COUNT_U)
  CS_STATE_Z,         // auxiliary continuous states (CS_COUNT_Z)
  CS_STATE_DISCRETE,  // discrete variables (CS_COUNT_DISCRETE)
  CS_STATE_AUTO,      // auto-update discrete variables (CS_COUNT_AUTO)
} csStateKind;

// Where force element e's variables of one kind (Z, DISCRETE or AUTO) live in the state arrays:
// [*adr, *adr + *num). Z gives the element's own states; its dissipated energy is the shared
// state reported by cs_simEnergy. Returns 0, or -1 for a bad id or kind. Nullable: adr, num.
CS_API int cs_modelForceState(const csModel* m, int e, csStateKind kind, int* adr, int* num);
// The name of discrete variable `index` of element e ("mu_static", ...), or NULL.
CS_API const char* cs_modelDiscreteName(const csModel* m, int e, int index);
// Index of element e's discrete variable `name`, or -1.
CS_API int cs_modelDiscreteIndex(const csModel* m, int e, const char* name);
// The name of auto-update variable `index` of element e ("p0_x", "p0_y", "sliding" for an
// exponential spring: its friction anchor in the plane frame and its Sliding state), or NULL.
// Kinds that name none give "auto0", "auto1", ... (static strings).
CS_API const char* cs_modelAutoName(const csModel* m, int e, int index);
// Number of model-specific report values of element e (cs_simContactValues), and the name of
// value i (its CSV column suffix, e.g. "sliding" for E.sliding), or NULL.
CS_API int cs_modelContactValueCount(const csModel* m, int e);
CS_API const char* cs_modelContactValueName(const csModel* m, int e, int i);

// A new model: m's scene loaded again from the text it was loaded from, with its load options
// and then the noverrides parameters set by key path (csOverride: "simulation.rtol" = "1e-8",
// "contact_models.exponential_spring.mu_static" = "0.6"; later ones win). m is unchanged; the
// caller deletes the new model with cs_deleteModel. Simulations of m are unaffected (create a
// new simulation of the new model, and continue from a checkpoint if the state should carry
// over). Returns NULL with err filled (the key path in err->path) on a bad key or value, or for
// a model not made by the loader.
CS_API csModel* cs_modelWithOverrides(const csModel* m, const csOverride* overrides, int noverrides,
                                      csError* err);
// The same for one parameter: key path and JSON value text.
CS_API csModel* cs_modelWithParameter(const csModel* m, const char* key, const char* value,
                                      csError* err);
// 64-bit fingerprint of the model's structure: names and types of bodies, joints, planes and
// force elements and the state layout (not parameter values: a checkpoint carries over to the
// same scene with another friction coefficient, not to another scene).
CS_API uint64_t cs_modelFingerprint(const csModel* m);


// ---------------------------------------------------------------------------------------------
// simulations

// A simulation of m from its initial state (t = 0, the scene's q and u, element variables from
// their init rules), integrated with opt (nullable: the scene's options). m must outlive the
// simulation and is never written. Returns NULL with err filled when m is not finalized
// (cs_finalizeModel; CS_ERR_INPUT), the options are unusable or memory runs out.
CS_API csSimulation* cs_newSimulation(const csModel* m, const csSimOptions* opt, csError* err);
// Free the simulation (nullable). The model stays.
CS_API void cs_deleteSimulation(csSimulation* s);
// Back to the model's initial state; the statistics start over. Does nothing when called from
// a callback of an advance in progress (see "From a callback" below).
CS_API void cs_simReset(csSimulation* s);
// The model simulated.
CS_API const csModel* cs_simModel(const csSimulation* s);
// The options in use (duration is ignored by cs_simStep and cs_simAdvanceTo).
CS_API csSimOptions cs_simOptions(const csSimulation* s);
// Replace the integrator options (the integrator restarts from the current state at the next
// advance). Returns CS_OK, or CS_ERR_INPUT with err filled when they are unusable.
CS_API int cs_simSetOptions(csSimulation* s, const csSimOptions* opt, csError* err);
// The data of the simulation, for programs that use the engine-level API of contactsim.h
// (struct layouts; not needed by anything in this header). Valid until cs_deleteSimulation.
// A state changed in it directly is not seen by the statistics settled before: hand changes over
// with cs_simSetState.
CS_API csData* cs_simData(csSimulation* s);
// A stop flag (nullable; a signal handler may set it) that cs_simStep, cs_simAdvanceTo and
// cs_simRun poll as cs_simRun polls csReporter.stop, which takes its place when a run's
// reporter has one. A call it stops returns CS_STOPPED with the simulation back at the last
// point where every group of bodies stood together: the start of the call (cs_simStep,
// cs_simAdvanceTo) or its last report (cs_simRun). The flag is the caller's to clear.
CS_API void cs_simSetStop(csSimulation* s, const volatile sig_atomic_t* stop);

// Advance by one integrator step: every independent group of bodies whose integrator stands at
// the current time takes one step (one CVODE step, as long as its error test allows), and the
// simulation moves to the earliest end of those steps, where every other group's state is
// interpolated. Scheduled changes due on the way are applied at their exact times. Returns
// CS_OK, CS_STOPPED (cs_simSetStop) or CS_ERR_SOLVER with err filled (err->time: where it
// failed).
CS_API int cs_simStep(csSimulation* s, csError* err);
// Advance to time t exactly (t >= the current time; steps stop at t). Auto-update variables are
// committed after every successful step; the step that ends at t is committed at the start of
// the next advance, or by cs_simSaveState, so that what is read at t is what the step used.
// Returns CS_OK, CS_ERR_INPUT for t before the current time, not finite, or later by less than
// 1e-150 s (too short for any step; t equal to the current time does nothing), CS_STOPPED
// (cs_simSetStop) or CS_ERR_SOLVER.
CS_API int cs_simAdvanceTo(csSimulation* s, double t, csError* err);
// Advance to t_end, calling rep (nullable) at the current time, at every multiple of the report
// interval after it (k * report_interval: a run continued from a checkpoint reports on the same
// grid as the run that saved it) and at t_end, the data realized to dynamics there; rep->step
// after every successful step. Like cs_simulate, steps may pass a report time (which is then
// interpolated) but never t_end. rep->stop (nullable) is polled before every step and within
// one (every right-hand side, and the dense factorisations): once it is nonzero the run
// returns CS_STOPPED, the simulation back at its last report (where every group
// of bodies stands), ready to be read, saved or run on. t_end equal to the current time is
// that one report, at any time. Returns CS_OK, CS_ERR_INPUT (also for report times beyond
// 2^52 report intervals from 0, which doubles cannot tell apart), CS_ERR_SOLVER, CS_STOPPED or
// CS_ERR_IO (a report returned nonzero).
// From a callback: rep's callbacks may read the simulation (time, state, poses, energies,
// contacts, statistics: those sampled so far), which stands at the report or step they are
// called for. The calls that
// would change the advance in progress (cs_simStep, cs_simAdvanceTo, cs_simRun, cs_simRunCsv,
// cs_simSetOptions, cs_simSetState, cs_simSetTime, cs_simSetDiscrete, cs_simSaveState,
// cs_simLoadState and their Text versions) return CS_ERR_INPUT, cs_simReset does nothing, and cs_deleteSimulation must
// not be called: stop the run (rep->stop) and do it once the call has returned.
CS_API int cs_simRun(csSimulation* s, double t_end, const csReporter* rep, csError* err);
// cs_simRun with a CSV file written at path (the header, then one row per report, the layout of
// `contactsim run`). Nullable: opt (no per-contact columns). The rows written before a failure
// stay in the file. Returns as cs_simRun, or CS_ERR_IO when the file cannot be written or is
// the scene file the model was loaded from (which is never written over).
CS_API int cs_simRunCsv(csSimulation* s, double t_end, const char* path, const csCsvOptions* opt,
                        csError* err);

// The current time, s.
CS_API double cs_simTime(const csSimulation* s);
// A read-only view of one part of the state (cs_modelCount gives its length): valid until the
// simulation is advanced, reset, changed or deleted. NULL for an unknown kind.
CS_API const double* cs_simState(const csSimulation* s, csStateKind kind);
// Copy one part of the state into out, which holds n values. Returns the number of values the
// part has (copies min(n, that)), or -1 for an unknown kind.
CS_API int cs_simGetState(const csSimulation* s, csStateKind kind, double* out, int n);
// Overwrite one part of the state with n values (n must equal its length): the integrator
// restarts from the new state at the next advance; quaternions in q are normalized; discrete
// variables are set through each kind's rules (as cs_simSetDiscrete). Returns CS_OK, or
// CS_ERR_INPUT with err filled (wrong n, a non-finite value).
CS_API int cs_simSetState(csSimulation* s, csStateKind kind, const double* values, int n,
                          csError* err);
// Whether cs_simSetState would take these values, without setting them: CS_OK, or CS_ERR_INPUT
// with err filled as cs_simSetState fills it (for editing several parts together, all or none);
// CS_ERR_MEMORY when checking a discrete set could not allocate its scratch copy.
CS_API int cs_simStateProblem(const csSimulation* s, csStateKind kind, const double* values,
                              int n, csError* err);
// Set the current time, s (finite). Scheduled changes before it are not replayed. The
// auto-update variables keep their age: each element's last commit moves with the time.
CS_API int cs_simSetTime(csSimulation* s, double t, csError* err);
// Set discrete variable `name` of force element e between steps (the kind's rules apply, as in
// Simbody: mu_dynamic <= mu_static, so a mu_static set below mu_dynamic lowers mu_dynamic with
// it and a mu_dynamic set above mu_static raises mu_static; a stop's bound set past the other
// bound moves it along), as a scene's "changes" entry would at the current time; the groups it
// touches restart there. Returns CS_OK, or CS_ERR_INPUT (bad id, unknown name, non-finite).
CS_API int cs_simSetDiscrete(csSimulation* s, int e, const char* name, double value, csError* err);

// Realized quantities at the current time (computed on demand; none of these changes the state).
// Pose of a body frame in Ground: origin p[3], m, and unit quaternion q[4] (w, x, y, z).
// Returns 0, or -1 for a bad id. Nullable: p, q.
CS_API int cs_simBodyPose(csSimulation* s, int body, double p[3], double q[4]);
// Velocity of a body: angular velocity w[3], rad/s, and velocity of its origin v[3], m/s, both
// in Ground. Returns 0, or -1 for a bad id. Nullable: w, v.
CS_API int cs_simBodyVelocity(csSimulation* s, int body, double w[3], double v[3]);
// Centre of mass of a body in Ground, m. Returns 0, or -1 for a bad id.
CS_API int cs_simBodyCom(csSimulation* s, int body, double com[3]);
// Time derivatives of the continuous state at the current time (the right-hand side: q', u' from
// the articulated-body algorithm, z'), for kind CS_STATE_Q, CS_STATE_U or CS_STATE_Z, into out (n
// values). Returns the length of that part (copies min(n, that)), or -1 for another kind.
CS_API int cs_simStateDerivative(csSimulation* s, csStateKind kind, double* out, int n);
// Kinetic, potential (gravity and every element) and dissipated energy, J; their sum is
// conserved. Nullable: every output.
CS_API void cs_simEnergy(csSimulation* s, double* kinetic, double* potential, double* dissipated);
// The contact report of element e (point of application, spatial force on the touching body,
// potential energy, dissipated power; all in Ground). Returns 0, or -1 when e is not a contact.
CS_API int cs_simContact(csSimulation* s, int e, csContactReport* r);
// Element e's model-specific report values (cs_modelContactValueName) into out (n values).
// Returns the number the element has (copies min(n, that)), or -1 when e is not a contact.
CS_API int cs_simContactValues(csSimulation* s, int e, double* out, int n);
// Total contact force on the bodies of contact set `set` and its centre of pressure, in Ground
// (NaN centre when no normal force acts). Returns 0, or -1 for a bad set. Nullable: outputs.
CS_API int cs_simContactSet(csSimulation* s, int set, double force[3], double cop[3]);

// Statistics of the simulation since it was created, reset or loaded from a checkpoint: the
// integrator's counters and the contact metrics of `contactsim run` (docs/cli.md, "Metrics"),
// sampled after every step and at every report or advance.
typedef struct csRunStatistics {
  double t_start;            // time the statistics start from, s
  double t;                  // current time, s
  long nsteps;               // successful integrator steps (summed over groups)
  long nrhs;                 // right-hand-side evaluations
  long nrhs_jac;             // of which for difference-quotient Jacobians
  long njac;                 // Jacobian evaluations
  long netf;                 // error-test failures
  long nncf;                 // nonlinear convergence failures
  long ncommit;              // auto-update commits (one per successful step of each group)
  long nrestart;             // integrator restarts (changes, state edits, new options)
  int ngroup;                // independently integrated groups of bodies
  double cpu_seconds;        // CPU time of the integration, s
  double max_penetration;    // deepest penetration of any contact, m
  double peak_normal_force;  // largest total normal force of any contact set, N
  double sliding_distance;   // distance slid while loaded, m
  double stuck_drift;        // distance moved while counted as stuck, m
  double energy_error;       // largest |E - E0| / scale seen, relative: E less what state edits
                             // gave or took, the scale the most energy held (docs/cli.md)
  double energy_initial;     // KE + PE + dissipated at t_start, J
  int nnotes;                // diagnostics in plain words (cs_simNote)
  // since 0.2.0:
  double cpu_statistics;     // CPU time of the per-step statistics (part of cpu_seconds), s
  double stick_speed;        // m/s: steps whose mean slip speed is below it count as stuck
  long nstuck;               // steps counted as stuck
  const char* linear_solver; // "none", "dense", "band" or "gmres" (cs_linearSolverUsed)
} csRunStatistics;

// Fill st with the statistics so far. s and st not NULL.
CS_API void cs_simStatistics(csSimulation* s, csRunStatistics* st);
// Diagnostic i (0 <= i < st.nnotes) in plain words, or NULL (valid until the next advance).
CS_API const char* cs_simNote(csSimulation* s, int i);
// Peak normal force, N, and deepest penetration, m, of contact element e so far. Returns 0, or
// -1 when e is not a contact. Nullable: outputs.
CS_API int cs_simContactStatistics(csSimulation* s, int e, double* peak_normal_force,
                                   double* max_penetration);
// Peak total normal force, N, of contact set `set` (cs_modelContactSetName) so far. Returns 0,
// or -1 for a bad set. Nullable: peak_normal_force.
CS_API int cs_simContactSetStatistics(csSimulation* s, int set, double* peak_normal_force);


// ---------------------------------------------------------------------------------------------
// checkpoints (src/io/state_file.c; the format is in docs/c-api.md)

// Write the complete state at the current time (t, q, u, z, every discrete and auto-update
// variable, the time of the last auto-update commit) to path, doubles as hexadecimal floats so
// that they are read back exactly, with the format version and the model's fingerprint. The step
// that ended at the current time is committed first. Returns CS_OK, CS_ERR_INPUT (a state that
// is not finite, which could not be read back) or CS_ERR_IO.
CS_API int cs_simSaveState(csSimulation* s, const char* path, csError* err);
// Read a state written by cs_simSaveState (or `contactsim run --save-state`) for this scene and
// continue from it: the time, every variable exactly as saved; statistics start over. Refuses
// (CS_ERR_INPUT, err naming the file, line and what is wrong) a file of another format version,
// of a model with another fingerprint (another scene), or malformed; the simulation is then
// unchanged.
CS_API int cs_simLoadState(csSimulation* s, const char* path, csError* err);

// The same checkpoint in memory, for programs that keep or send states without a file (the
// Python module's get_state and set_state). cs_simSaveStateText sets *text to the checkpoint
// (the bytes cs_simSaveState writes, zero-terminated, allocated by the library: free it with
// cs_freeStateText) and *length (nullable) to its length without the zero; on failure *text is
// NULL. Returns CS_OK, CS_ERR_INPUT (no text pointer, or a state that is not finite) or
// CS_ERR_MEMORY. It commits the step that ended now as cs_simSaveState does.
CS_API int cs_simSaveStateText(csSimulation* s, char** text, size_t* length, csError* err);
// Continue from the checkpoint in text[0 .. length) (no terminating zero needed; a zero byte
// inside it, or more bytes than a checkpoint of the model can hold, is refused), with
// cs_simLoadState's checks and all-or-nothing behaviour: CS_ERR_INPUT with err naming the file
// CS_STATE_TEXT_NAME, the line and what is wrong, the simulation unchanged; CS_ERR_MEMORY.
CS_API int cs_simLoadStateText(csSimulation* s, const char* text, size_t length, csError* err);
// Free a text of cs_simSaveStateText or cs_saveStateText (nullable).
CS_API void cs_freeStateText(char* text);
// What the errors of checkpoint text in memory give as their file (err->file).
#define CS_STATE_TEXT_NAME "<checkpoint text>"

// The same on engine-level data (what the command line uses): save d's state for m; load a
// state into d (realized again; d->stat untouched).
CS_API int cs_saveState(const csModel* m, const csData* d, const char* path, csError* err);
CS_API int cs_loadState(const csModel* m, csData* d, const char* path, csError* err);
CS_API int cs_saveStateText(const csModel* m, const csData* d, char** text, size_t* length,
                            csError* err);
CS_API int cs_loadStateText(const csModel* m, csData* d, const char* text, size_t length,
                            csError* err);
// Copy the state (what a checkpoint holds) of src into dst, both data of m; allocates nothing,
// so that a run can keep the state of its last report cheaply.
CS_API void cs_copyState(const csModel* m, csData* dst, const csData* src);

#ifdef __cplusplus
}
#endif

#endif  // CONTACTSIM_SIMULATION_H
