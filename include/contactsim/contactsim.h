// contactsim.h: the public API of libcontactsim.
//
// The data path: scene file -> model (cs_loadScene) -> data with the initial state (cs_makeData)
// -> integrator loop (cs_simulate) -> right-hand side (cs_realize*: kinematics, forces,
// articulated-body dynamics) -> accepted step -> auto-updates -> reports (csReporter, CSV).
#ifndef CONTACTSIM_CONTACTSIM_H
#define CONTACTSIM_CONTACTSIM_H

#include <signal.h>
#include <stdio.h>

#include "contactsim/math.h"
#include "contactsim/types.h"

#ifdef __cplusplus
extern "C" {
#endif

// ---------------------------------------------------------------------------------------------
// memory

// Allocate n bytes, counted; returns NULL on failure. Every library allocation goes through here.
CS_API void* csu_malloc(size_t n);
// Reallocate p (nullable) to n bytes, counted.
CS_API void* csu_realloc(void* p, size_t oldsize, size_t n);
// Free p (nullable) that was allocated with n bytes.
CS_API void csu_free(void* p, size_t n);
// Free a text (nullable) whose allocation size is stored right after its terminating zero, as
// the library's texts keep it (cs_readSceneText, cs_saveStateText).
CS_API void csu_freeText(char* text);
// Number of csu_malloc/csu_realloc calls made so far (a test asserts the RHS adds none).
CS_API long csu_allocationCount(void);


// ---------------------------------------------------------------------------------------------
// math helpers that are too long to inline

// Unit quaternion of a rotation matrix.
CS_API csQuat csu_matToQuat(const csMat33* R);
// Transform from a position and a unit quaternion.
CS_API csTransform csu_transformFromPosQuat(csVec3 p, csQuat q);
// Central inertia of a solid box with half-sizes h, a solid sphere of radius r, a solid cylinder
// of radius r and half-length h along z; mass in kg.
CS_API csMat33 csu_inertiaBox(double mass, csVec3 halfsize);
CS_API csMat33 csu_inertiaSphere(double mass, double radius);
CS_API csMat33 csu_inertiaCylinder(double mass, double radius, double halflength);
// 1 if the symmetric matrix is positive definite and its principal moments satisfy the triangle
// inequality (each <= the sum of the other two, with a relative slack of 1e-9).
CS_API int csu_inertiaIsValid(const csMat33* I);
// 1 if the symmetric matrix is positive definite (its leading minors, scaled by its trace's
// magnitude so that small entries such as 1e-113 do not underflow, all positive).
CS_API int csu_isPositiveDefinite(const csMat33* I);
// The quintic step 10x^3 - 15x^4 + 6x^5 of x clamped to [0, 1].
CS_API double csu_step5(double x);


// ---------------------------------------------------------------------------------------------
// defaults (used by the loader, the command line and the C API alike)

CS_API csSimOptions cs_defaultSimOptions(void);
// 0 when the largest step o->max_step (0: unlimited) lets a run with options o start; 1 when it
// is so small that the run cannot: below CS_MIN_STEP_ULPS spacings of doubles at the end time
// (t + h == t), or needing as many steps as o->max_steps allows or more to reach the first
// report (rounding can leave the last of them short, and the run then needs one more). The reason,
// one sentence naming the numbers, goes to why (size bytes, nullable).
CS_API int cs_maxStepProblem(const csSimOptions* o, char* why, size_t size);
// The number of reports a run from t0 to t_end makes with this report interval: one at t0, one
// at every multiple of the interval strictly between them (a multiple within rounding of t0 or
// t_end, 1e-12 of 1 + |t| but at most a quarter of the interval, is that end), and one at
// t_end; 1 when t_end <= t0. For refusing, before a run starts, one that would write more rows
// than a limit.
CS_API double cs_reportCount(double t0, double t_end, double interval);
// 1 when the report times of a run from t0 to t_end lie beyond 2^52 report intervals from 0,
// where doubles cannot tell them apart and a run refuses them (CS_ERR_INPUT), with the reason,
// one sentence with the numbers, in why (size bytes, nullable); else 0. interval > 0.
CS_API int cs_reportTimesProblem(double t0, double t_end, double interval, char* why,
                                 size_t size);


// ---------------------------------------------------------------------------------------------
// force kinds

typedef enum csForceKindId {
  CS_FORCE_GRAVITY = 0,
  CS_FORCE_SPRING,            // two-point linear spring-damper
  CS_FORCE_MOBILITY_SPRING,
  CS_FORCE_MOBILITY_DAMPER,
  CS_FORCE_CONSTANT,          // constant body force and torque
  CS_FORCE_EXP_SPRING,        // exponential spring (seed 000)
  CS_FORCE_SMOOTH_SPHERE,     // smooth sphere / half space (seed 001)
  CS_FORCE_HUNT_CROSSLEY,     // classic Hunt-Crossley sphere / plane
  CS_FORCE_COMPLIANT_POINT,   // linear penalty point with Stribeck friction
  CS_FORCE_LINEAR_STOP,       // mobility linear stop (seed 002)
  CS_FORCE_LINEAR_BUSHING,    // linear bushing (seed 003)
  CS_FORCE_COUNTER,           // test element: counts auto-update commits
  CS_FORCE_KIND_COUNT
} csForceKindId;

// Kind table of id, or NULL when id is out of range.
CS_API const csForceKind* cs_forceKind(int id);
// Kind id of a scene "type" name, or -1.
CS_API int cs_forceKindByName(const char* name);


// ---------------------------------------------------------------------------------------------
// building a model (the loader uses these; programs and tests may too)

// Empty model with ground as body 0. Returns NULL when out of memory.
CS_API csModel* cs_newModel(const char* name);
CS_API void cs_deleteModel(csModel* m);
// Append a body whose joint, parent, frames, mass properties are filled in b (qadr, uadr, qnum,
// unum are computed). Returns the body id, or -1 with err filled: a parent that does not exist,
// an empty name, a joint type that does not exist, a mass negative or not finite (zero is
// allowed: a frame between joints, with zero inertia), an inertia neither zero nor symmetric
// positive definite within the triangle inequality, a centre of mass or frames not finite, a
// frame's rotation not orthonormal (to 1e-6). Two bodies of one name are refused by
// cs_finalizeModel.
CS_API int cs_addBody(csModel* m, const csBody* b, csError* err);
CS_API int cs_addPlane(csModel* m, const csPlane* p, csError* err);
// Append a force element of kind `kind` whose param and ref are set to the kind's defaults;
// the caller then overwrites what it needs. Returns the element id or -1.
CS_API int cs_addForce(csModel* m, int kind, const char* name, csError* err);
// Set a real parameter of element e by its scene key; returns 0, or -1 if there is no such key.
// On a finalized model the element's derived constants (csForce.derived) are recomputed; the
// value is not validated again.
CS_API int cs_setForceParam(csModel* m, int e, const char* key, double value);
CS_API int cs_addChange(csModel* m, const csChange* c, csError* err);
CS_API int cs_addGroup(csModel* m, const char* name, csError* err);
// Lay out the state (q, u, z, discrete, auto-update addresses), validate every element, allocate
// q0/u0 (set to the identity pose and zero speed where the caller has not set them). Call once,
// after all cs_add* calls; then q0 and u0 may be written.
CS_API int cs_finalizeModel(csModel* m, csError* err);
// Body, plane or force id by name, or -1.
CS_API int cs_bodyId(const csModel* m, const char* name);
CS_API int cs_planeId(const csModel* m, const char* name);
CS_API int cs_forceId(const csModel* m, const char* name);
// Number of q for a joint type (weld 0, pin 1, slider 1, ball 4, free 7), and of u.
CS_API int cs_jointQnum(csJointType type);
CS_API int cs_jointUnum(csJointType type);


// ---------------------------------------------------------------------------------------------
// loading scenes (src/io/scene_load.c)

// One parameter set by its scene key path, as a user writes it in the scene
// ("contact_models.exponential_spring.mu_static", "bodies.block.mass", "simulation.rtol"):
// value is JSON text ("0.6", "[1, 0, 0]", "\"bdf\""). The change is made to the parsed scene
// before it is checked, so a scene loaded with an override is the scene file edited to that value.
typedef struct csOverride {
  const char* key;             // key path; not NULL
  const char* value;           // JSON text; not NULL
} csOverride;

typedef struct csLoadOptions {
  const char* contact_model;   // override the scene's default contact model; nullable
  const csOverride* overrides; // noverrides parameters set by key path, in order; nullable
  int noverrides;              // (a later override of a value an earlier one set wins)
  int distinct;                // 1: refuse two overrides of one value (a key spelled two ways,
                               // bodies.arm.mass and bodies[0].mass), or of a value and one
                               // inside it, as one of them would be lost (a sweep's axes)
} csLoadOptions;

// Load a scene file. Returns NULL with err filled (code, file, JSON path, line, column, message).
CS_API csModel* cs_loadScene(const char* path, const csLoadOptions* opt, csError* err);
// Load from text in memory; filename is used in messages only. Nullable opt.
CS_API csModel* cs_loadSceneString(const char* text, const char* filename,
                                   const csLoadOptions* opt, csError* err);
// Names of the contact models the scene gives parameter blocks for (in file order, at most
// maxnames of them), and the default one (contact_models.default, else the only block, else "").
// Both empty when the scene has no "contacts". Returns the number of blocks, or -1 with err
// filled (the blocks are checked as the loader checks them). A loaded model carries the same in
// csModel.contact_model_names and contact_model_default.
CS_API int cs_sceneContactModels(const char* path, char names[][CS_MAX_NAME], int maxnames,
                                 char* defaultname, csError* err);
// The same from scene text in memory, with opt's overrides applied first (opt nullable);
// filename is used in messages only.
CS_API int cs_sceneContactModelsString(const char* text, const char* filename,
                                       const csLoadOptions* opt, char names[][CS_MAX_NAME],
                                       int maxnames, char* defaultname, csError* err);
// Read a whole scene file once, so that it can be loaded several times (once per contact model)
// from memory: path "-" is standard input; pipes work. The text is zero-terminated and at most
// 64 MiB; a NUL byte inside it is an input error (with its line and column). *length (nullable)
// receives its length. Returns NULL with err filled (code, file, message). Free the text with
// cs_freeSceneText.
CS_API char* cs_readSceneText(const char* path, size_t* length, csError* err);
CS_API void cs_freeSceneText(char* text);


// ---------------------------------------------------------------------------------------------
// data and the stages of the right-hand side

// Data for m holding its initial state, realized to velocity, with every element's init callback
// applied. Returns NULL when out of memory.
CS_API csData* cs_makeData(const csModel* m);
CS_API void cs_deleteData(csData* d);
// Back to the model's initial state (t = 0, q0, u0, z = 0, discrete and auto-update from init).
CS_API void cs_resetData(const csModel* m, csData* d);

// Normalise quaternions in d->q, compute poses of bodies and planes.
CS_API void cs_realizePosition(const csModel* m, csData* d);
// Body spatial velocities and qdot.
CS_API void cs_realizeVelocity(const csModel* m, csData* d);
// Zero the force accumulators and let every element add its forces.
CS_API void cs_realizeDynamics(const csModel* m, csData* d);
// Articulated-body algorithm: udot from the accumulated forces.
CS_API void cs_realizeAcceleration(const csModel* m, csData* d);
// All four stages. Returns 0, or 1 if a non-finite value appeared (counted in d->stat).
CS_API int cs_forward(const csModel* m, csData* d);
// The state's rates alone (qdot, udot, zdot), as the integrator evaluates them: a model of
// planar pin trees whose elements all have planar forms finds them in the plane's coordinates
// and realizes no stage, so read nothing else after it. Returns as cs_forward does.
CS_API int cs_rates(const csModel* m, csData* d);
// Mark the state as changed so the next realize call recomputes every stage.
CS_API void cs_invalidate(csData* d);

// Helpers for force elements (the data must be realized to velocity). body is a body id of the
// model, 0 (ground) to nbody - 1; any other is a programming error (checked unless NDEBUG).
// Position in Ground of a station given in the body frame.
CS_API csVec3 cs_stationPosition(const csModel* m, const csData* d, int body, csVec3 station_B);
// Velocity in Ground of the body-fixed point currently at point_G.
CS_API csVec3 cs_pointVelocity(const csModel* m, const csData* d, int body, csVec3 point_G);
// Add a force (in Ground) applied at point_G (in Ground) to a body; ground (0) ignores it.
CS_API void cs_applyForceAtPoint(const csModel* m, csData* d, int body, csVec3 point_G,
                                 csVec3 force_G);
// Add a pure torque (in Ground) to a body.
CS_API void cs_applyTorque(const csModel* m, csData* d, int body, csVec3 torque_G);

// Energies of the realized state: kinetic; potential (sum over elements, gravity included);
// dissipated (sum of the elements' dissipated-energy z states).
CS_API double cs_kineticEnergy(const csModel* m, const csData* d);
CS_API double cs_potentialEnergy(const csModel* m, const csData* d);
CS_API double cs_dissipatedEnergy(const csModel* m, const csData* d);
// Angular momentum of all bodies about the Ground origin, in Ground (requires velocity stage).
CS_API csVec3 cs_angularMomentum(const csModel* m, const csData* d);

// Set discrete variable `index` of element e, applying the kind's rules.
CS_API void cs_setDiscrete(const csModel* m, csData* d, int e, int index, double value);

// Whether `value` may be given to discrete variable `index` of element e: not NaN, and within
// the rule of the parameter that gives the variable its initial value (mu_static >= 0 and
// finite, a stop's stiffness >= 0; a stop's bounds may be infinite). 0, or -1 with why (size
// bytes) saying what is wrong.
CS_API int cs_discreteProblem(const csModel* m, int e, int index, double value, char* why,
                              size_t size);

// Whether element e's discrete variables in disc (the model's whole discrete array, as in
// csData.disc) and its auto-update values in autoval (likewise) are a state the element can be
// in: each discrete value as cs_discreteProblem requires, the values together as the kind's
// rules keep them (mu_dynamic <= mu_static, lower bound <= upper bound), each auto-update value
// finite and within its kind's range (an exponential spring's sliding in [0, 1]). 0, or -1 with
// why filled. disc is used as scratch and left as it was.
CS_API int cs_elementStateProblem(const csModel* m, double* disc, const double* autoval, int e,
                                  char* why, size_t size);
// Fill the contact report of element e and its model-specific values (d->force_extra); returns 0,
// or -1 if the element is not a contact. Requires the dynamics stage.
CS_API int cs_contactReport(const csModel* m, csData* d, int e, csContactReport* r);
// Compute every element's auto-update cache at the realized state and commit it (what the
// integrator does after each successful step); dt is the time since the last commit.
CS_API void cs_commitAutoUpdates(const csModel* m, csData* d);


// ---------------------------------------------------------------------------------------------
// running (src/engine/integrator.c)

// Called at each report time with the data realized to dynamics at exactly that time.
typedef struct csReporter {
  int (*report)(void* ctx, const csModel* m, csData* d);  // nonzero stops the run (I/O error)
  // Nullable. Called after every successful step with the data realized to dynamics at the
  // step's end, before auto-updates are committed (for statistics such as peak forces).
  void (*step)(void* ctx, const csModel* m, csData* d);
  // Nullable; called after every goal (a report or a scheduled change) with the simulated time
  // reached and the end time of the run (for cs_simulate from t = 0, the duration).
  void (*progress)(void* ctx, double t, double t_end);
  void* ctx;
  // Nullable. Polled before every step and within one (every right-hand-side evaluation and
  // the dense factorisations): once it is nonzero the run ends with CS_STOPPED at the last
  // completed step, after the reports due so far (a signal handler may set it; the library
  // installs none).
  const volatile sig_atomic_t* stop;
} csReporter;

// Integrate from the data's current state for opt->duration seconds, reporting at t0, every
// report interval and at the end. Returns CS_OK, CS_ERR_SOLVER (with err->time and CVODE's
// message), CS_STOPPED when rep->stop was set, or CS_ERR_INPUT for unusable options.
// Statistics land in d->stat. Nullable rep.
CS_API int cs_simulate(const csModel* m, csData* d, const csSimOptions* opt,
                       const csReporter* rep, csError* err);
// The linear solver a run with options opt used, as `run` and `compare` name it: "none" (adams,
// rk), "dense" (ark; bdf's groups of up to 100 states), "band" or "gmres" (bdf; d->stat.linsol,
// the largest group's). A static string. opt not NULL; d nullable. Before any group was set
// up (no run yet, or a set-up that failed) the solver opt asks for ("dense" for bdf's "auto").
CS_API const char* cs_linearSolverUsed(const csSimOptions* opt, const csData* d);


// ---------------------------------------------------------------------------------------------
// CSV reports (src/io/csv.c)

typedef struct csCsvOptions {
  int forces;              // 1: per-element contact columns (force, point, pe, power, extras)
} csCsvOptions;

// Write the header row for m. Returns 0, or -1 on an I/O error.
CS_API int cs_csvHeader(FILE* f, const csModel* m, const csCsvOptions* opt);
// Total contact force on the touching bodies of contact set `group` and its centre of pressure,
// both in Ground (NaN centre when no normal force acts). Requires the dynamics stage.
CS_API void cs_centreOfPressure(const csModel* m, csData* d, int group, csVec3* force, csVec3* cop);
// Write one row for the realized data (requires the dynamics stage). Returns 0 or -1.
CS_API int cs_csvRow(FILE* f, const csModel* m, csData* d, const csCsvOptions* opt);
// The header row and one row as text, ending in a newline, into buf (size bytes, zero-terminated
// when size > 0). Return the length of the whole text without the zero, as snprintf does: when
// it is size or more, the text was cut and needs a buffer of that length + 1. The row realizes
// d to the dynamics stage. Nullable: buf when size is 0.
CS_API size_t cs_csvFormatHeader(char* buf, size_t size, const csModel* m,
                                 const csCsvOptions* opt);
CS_API size_t cs_csvFormatRow(char* buf, size_t size, const csModel* m, csData* d,
                              const csCsvOptions* opt);

#ifdef __cplusplus
}
#endif

// the simulation API through opaque handles (it builds on the declarations above)
#include "contactsim/simulation.h"

#endif  // CONTACTSIM_CONTACTSIM_H
