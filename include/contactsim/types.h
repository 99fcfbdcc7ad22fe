// contactsim/types.h: the model (built once, read-only during a run), the data (state, realized
// quantities, statistics), force kinds and errors.
#ifndef CONTACTSIM_TYPES_H
#define CONTACTSIM_TYPES_H

#include <stddef.h>
#include <stdint.h>

#include "contactsim/math.h"

#if defined(CS_BUILDING_LIBRARY)
#define CS_API __attribute__((visibility("default")))
#else
#define CS_API
#endif

#define CS_MAX_NAME 64          // longest body, plane or force name, with the terminating zero
#define CS_MAX_PARAM 32         // real parameters of one force element
#define CS_MAX_REF 4            // integer references (bodies, planes, coordinates) of one element
#define CS_MAX_DERIVED 4        // constants a kind derives from an element's parameters
#define CS_MAX_GAPS 2           // gaps of one element with an onset (csForceKind.gaps)
#define CS_MAX_ERROR 1024       // longest error sentence
#define CS_MAX_PATH 256         // longest key path of a study, or path kept in fixed tables
#define CS_MAX_FILE 4096        // longest file name in an error or a model (PATH_MAX)
#define CS_MAX_JSON_PATH 1024   // longest JSON path in an error (a valid scene's are < 100)
// room for a whole error as one line, "FILE:LINE:COL: PATH: MESSAGE"
#define CS_MAX_ERROR_LINE (CS_MAX_FILE + CS_MAX_JSON_PATH + CS_MAX_ERROR + 64)
#define CS_MAX_CONTACT_MODELS 16  // contact models a scene may give parameter blocks for


// ---------------------------------------------------------------------------------------------
// errors (the library reports, the caller decides)

typedef enum csStatus {
  CS_OK = 0,
  CS_ERR_INPUT = 2,      // bad scene, bad option, bad argument: exit code 2
  CS_ERR_SOLVER = 1,     // integrator failure during a run: exit code 1
  CS_ERR_IO = 3,         // file could not be read or written (reported as exit code 2 or 1)
  CS_ERR_MEMORY = 4,     // allocation failed
  CS_STOPPED = 5,        // the run was stopped on request (csReporter.stop), not a failure
} csStatus;

typedef struct csError {
  csStatus code;               // CS_OK when nothing went wrong
  char file[CS_MAX_FILE];      // scene or output file concerned, or ""
  char path[CS_MAX_JSON_PATH]; // JSON path of the offending value, e.g. "bodies[2].joint.q", or ""
  int line;                    // 1-based line in the file, 0 when unknown
  int column;                  // 1-based column in the file, 0 when unknown
  double time;                 // simulation time of a solver failure
  char message[CS_MAX_ERROR];  // one sentence saying what is wrong
  int override;                // 1-based index of the csLoadOptions override whose key path is
                               // at fault (path is then that key path: a key the scene cannot
                               // have, a malformed path), 0 otherwise; a value an override set
                               // that the scene refuses is reported at its JSON path with 0
} csError;


// ---------------------------------------------------------------------------------------------
// mobilizers (joints)

typedef enum csJointType {
  CS_JOINT_WELD = 0,    // 0 dof
  CS_JOINT_PIN,         // rotation about the common z axis of F and M; q = angle, u = rate
  CS_JOINT_SLIDER,      // translation along the common x axis of F and M
  CS_JOINT_BALL,        // q = quaternion (w,x,y,z) of R_FM; u = angular velocity of M in F, in F
  CS_JOINT_FREE,        // q = quaternion of R_FM, then p_FM in F; u = w_FM in F, then v_FM in F
  CS_JOINT_COUNT
} csJointType;

// A solid shape in a body's frame, centred on the body's centre of mass: what the scene's
// inertia was computed from ("inertia": {"box" | "sphere" | "cylinder"}) or what it asks to be
// drawn as ("visual"). Only front ends read it (the replay page); the dynamics uses the inertia.
typedef enum csShapeType {
  CS_SHAPE_NONE = 0,       // no shape known (inertia given as numbers)
  CS_SHAPE_BOX,            // size = half sizes along the body axes, m
  CS_SHAPE_SPHERE,         // size[0] = radius, m
  CS_SHAPE_CYLINDER,       // size[0] = radius, size[1] = half length along the body z axis, m
} csShapeType;

typedef struct csShape {
  csShapeType type;
  double size[3];          // m, as type says; unused entries 0
} csShape;

// Per-body description. Bodies are stored as an array of structs rather than MuJoCo-style
// parallel arrays: the loader appends them one at a time, each carries a dozen related fields, and
// the dynamics touches all of them together, so one struct per body is the clearer layout.
typedef struct csBody {
  char name[CS_MAX_NAME];
  int parent;              // parent body id (-1 for ground)
  csJointType joint;       // mobilizer connecting the parent to this body
  int qadr, qnum;          // generalized coordinates of the mobilizer in q
  int uadr, unum;          // generalized speeds of the mobilizer in u
  csTransform X_PF;        // mobilizer frame F on the parent, in the parent's body frame
  csTransform X_BM;        // mobilizer frame M on this body, in this body's frame
  csTransform X_MB;        // its inverse (set by cs_finalizeModel; the stages use it every call)
  double mass;             // kg
  csVec3 com;              // centre of mass in the body frame, m
  csMat33 inertia;         // inertia about the centre of mass, in the body frame, kg m^2
  int fixed;               // 1: welded to ground through welds only (never moves); set by
                           // cs_finalizeModel, ground included
  csShape inertia_shape;   // the solid the inertia came from (CS_SHAPE_NONE: given as numbers)
  csShape visual;          // the scene's "visual" shape, CS_SHAPE_NONE when it gives none
} csBody;

typedef struct csPlane {
  char name[CS_MAX_NAME];
  int body;                // body carrying the plane (0 = ground)
  csTransform X_BP;        // plane frame in the body frame; +z is the outward normal
} csPlane;


// ---------------------------------------------------------------------------------------------
// force elements

typedef struct csModel csModel;
typedef struct csData csData;

// What a contact element reports (seed 004, Simbody's ContactForce): the point of application, the
// spatial force that the contact applies to its second surface (the body that touches the
// plane), the potential energy stored and the power being dissipated.
typedef struct csContactReport {
  csVec3 point;            // contact point, in Ground, m
  csSpatialVec force;      // (moment about point, force) on the second surface, in Ground
  double pe;               // J
  double power;            // dissipated power, W (>= 0)
} csContactReport;

typedef enum csParamType {
  CS_PARAM_REAL = 0,       // one number, stored in param[slot]
  CS_PARAM_VEC3,           // three numbers, param[slot .. slot+2]
  CS_PARAM_FRAME,          // a frame {position, rotation}: param[slot .. slot+6] = p then quat wxyz
  CS_PARAM_BODY,           // a body name, stored as an id in ref[slot]
  CS_PARAM_PLANE,          // a plane name, stored as an id in ref[slot]
  CS_PARAM_INT,            // a non-negative integer, stored in ref[slot]
  CS_PARAM_CHOICE,         // one of the strings in `choices`, stored as its index in ref[slot]
} csParamType;

typedef enum csParamFlags {
  CS_PARAM_REQUIRED = 1,   // must be given (otherwise the default is used)
  CS_PARAM_POSITIVE = 2,   // must be > 0
  CS_PARAM_NONNEG = 4,     // must be >= 0
  CS_PARAM_OPTIONAL = 8,   // may be absent; param stays NaN / ref stays -1 when absent
} csParamFlags;

// One key of a force element in the scene file. The same table drives the loader, the defaults
// and docs/scene-format.md.
typedef struct csParamInfo {
  const char* key;         // JSON key
  csParamType type;
  int slot;                // index into param[] (REAL, VEC3, FRAME) or ref[] (BODY, PLANE, INT)
  double value;            // default for REAL (and for each component of VEC3), INT, and the
                           // index of the default of CHOICE
  int flags;               // csParamFlags
  const char* doc;         // one line: meaning and unit
} csParamInfo;

typedef struct csForce {
  char name[CS_MAX_NAME];
  int kind;                // index into the kind registry (csForceKindId)
  int group;               // contact set this element belongs to (-1: none)
  double param[CS_MAX_PARAM];  // kind-specific real parameters, laid out by the kind's table
  double derived[CS_MAX_DERIVED];  // constants the kind computes from param when the model is
                                   // finalized (csForceKind.prepare), e.g. a pair's stiffness
  int ref[CS_MAX_REF];     // kind-specific integer references (bodies, planes, coordinates)
  int zadr, znum;          // auxiliary continuous states owned by the element
  int home;                // highest-numbered moving body it refers to (bodies welded to
                           // ground do not count), 0 for none; set by cs_finalizeModel
  int dissadr;             // z index of the dissipated energy it adds to, -1 if it dissipates
                           // nothing; shared by the dissipative elements with the same home
  int discadr, discnum;    // discrete variables owned by the element
  int autoadr, autonum;    // auto-update discrete variables owned by the element
  int repadr;              // first column of its model-specific report values in d->force_extra
} csForce;

// A kind of force element: a const table of callbacks, one per kind, one file per kind
// (force_<kind>.c). Every callback takes (m, d, e) with e the element's index in m->force.
typedef struct csForceKind {
  const char* name;        // scene-file "type", e.g. "exponential_spring"
  const char* doc;         // one line for --help and docs
  const csParamInfo* params;
  int nparams;
  // the accepted strings of each CS_PARAM_CHOICE parameter, NULL-terminated, indexed like
  // params (NULL for the others); nullable when the kind has no such parameter
  const char* const* const* choices;
  int contact;             // 0: not a contact; 1: point contact; 2: sphere contact
  int znum;                // auxiliary continuous states beyond the dissipated energy
  int dissipative;         // 1: the core gives the element a z holding its dissipated energy
  int discnum;             // discrete variables
  const char* const* discnames;  // their names (scene "changes" and CSV), discnum entries
  int autonum;             // auto-update discrete variables
  const char* const* autonames;  // their names (checkpoints, the C API), autonum entries;
                                 // nullable: then "auto0", "auto1", ...
  const double (*autorange)[2];  // the closed interval each may hold, autonum entries;
                                 // nullable: any finite value
  int nextra;              // model-specific report values (CSV columns with --forces)
  const char* const* extranames; // their column suffixes, nextra entries
  // Check parameters after loading; fill err and return nonzero if they are unusable.
  // Nullable.
  int (*validate)(const csModel* m, const csForce* f, csError* err);
  // Set discrete and auto-update variables of element e from the realized initial state (the
  // data is realized to velocity when this is called). Nullable.
  void (*init)(const csModel* m, csData* d, int e);
  // Add the element's forces for the realized state: d->body_force (Ground, about each body's
  // origin) and d->mobility_force; set d->force_pe[e] and d->force_power[e]; write the time
  // derivatives of its own z states (beyond the dissipated energy) to d->zdot. Required.
  void (*apply)(const csModel* m, csData* d, int e);
  // Compute new auto-update values into d->auto_cache from the realized state at the end of a
  // successful step; d->auto_dt is the time since this element's last commit. Nullable.
  void (*update)(const csModel* m, csData* d, int e);
  // Fill the contact report and the model-specific values (extra, nextra entries) for the
  // realized state. A kind that is not a contact (contact = 0) may still report its own values
  // (a stop, a bushing): it leaves r zero and fills extra. Nullable (nothing to report).
  void (*report)(const csModel* m, const csData* d, int e, csContactReport* r, double* extra);
  // Set discrete variable `index` of element e to value, applying the kind's rules (e.g.
  // mu_static >= mu_kinetic). Nullable: plain assignment.
  void (*setDiscrete)(const csModel* m, csData* d, int e, int index, double value);
  // The element's part of the Jacobian an implicit integrator uses on a chain of pins and
  // sliders: add d(generalized force)/dq to dfdq and d(generalized force)/du to dfdu (both
  // indexed like u, nu entries; N/m or N m/rad, and N s/m or N m s/rad) at the realized state
  // (velocity stage), for the speeds whose own generalized force the element changes. Terms
  // that vary only as slowly as the motion itself (gravity's dependence on the pose) are left
  // out. Nullable: a group with an element of a kind without it forms that Jacobian by
  // difference quotients.
  void (*mobilityJacobian)(const csModel* m, const csData* d, int e, double* dfdq, double* dfdu);
  // Compute f->derived from f->param once, when the model is finalized (after validate), so that
  // apply need not recompute constants (a material pair's combined stiffness) on every
  // evaluation. Nullable.
  void (*prepare)(const csModel* m, csForce* f);
  // The element's part of the Jacobian the integrator "ark" forms for a free body: add to dQdX
  // and dQdV (6 x 6 each, row-major) the derivatives of the spatial force the element applies to
  // body `body` (moment about the body's origin, then force; Ground) with respect to that body's
  // pose (a turn about each Ground axis through the origin, rad, then a move of the origin along
  // each, m) and to its spatial velocity (angular velocity, then the origin's velocity; Ground),
  // at the realized state (velocity stage), every other body held still. Terms that vary only
  // as slowly as the motion itself may be left out, as for mobilityJacobian, and so may a
  // uniform field's (gravity's), whose turning with the body the inverse inertia's cancels.
  // Nullable: the integrator then forms the element's part by difference quotients of apply.
  void (*bodyJacobian)(const csModel* m, const csData* d, int e, int body, double* dQdX,
                       double* dQdV);
  // Element e's gaps (CS_MAX_GAPS at most: a contact's one, a stop's two bounds) at the realized
  // state (its rates realized: the acceleration stage or the planar right-hand side): for each,
  // g[3 i] the distance left before the element starts to act (m or rad; <= 0 when it acts,
  // INFINITY for an absent bound), g[3 i + 1] and g[3 i + 2] its first and second time
  // derivatives. Returns how many. The one-step integrators (rk, ark) end a step where a gap,
  // its second derivative held constant, is predicted to close, rather than step across the
  // onset, where the force's derivatives jump and a step's error estimate fails; and they take a
  // step again, ending where the touch begins, when the gap's interpolant between the step's
  // ends dips below 0 though both ends are apart (a graze shorter than the step). Nullable: the
  // element's force has no onset (an exponential spring, gravity, a bushing).
  int (*gaps)(const csModel* m, const csData* d, int e, double* g);
  // A model whose bodies are all links of planar pin trees (dynamics.c, planarTrees) takes the
  // planar right-hand side for its rates when each of its elements has this, since that
  // right-hand side realizes no pose or velocity in Ground: the element's forces from the
  // planar record of each active body (engine/dynamics.h, CS_K2_*), added to the record's
  // applied force, with its energy and power set as apply does. A kind whose apply reads only
  // the coordinates, speeds, time and the element's own variables and writes only
  // d->mobility_force, its energy, power and z rates (a stop, a mobility spring) gives its apply
  // here too. Nullable: a model with the element takes the general path.
  void (*planarApply)(const csModel* m, csData* d, int e);
} csForceKind;

// A scheduled change of a discrete variable, applied between steps.
typedef struct csChange {
  double time;             // s
  int force;               // element id
  int index;               // discrete variable of that element
  double value;
} csChange;


// ---------------------------------------------------------------------------------------------
// options

typedef enum csIntegratorType {
  CS_INTEGRATOR_BDF = 0,   // BDF, Newton iteration, direct linear solver (default)
  CS_INTEGRATOR_ADAMS,     // Adams-Moulton, fixed-point iteration
  CS_INTEGRATOR_RK,        // explicit Runge-Kutta, Dormand-Prince 5(4)
  CS_INTEGRATOR_ARK,       // additive Runge-Kutta ARK4(3)6L[2]SA, linearly implicit: the
                           // linearization in q and u implicit, the remainder explicit
  CS_INTEGRATOR_RK23,      // explicit Runge-Kutta, Bogacki-Shampine 3(2): for loose tolerances
  CS_INTEGRATOR_COUNT
} csIntegratorType;

// the integrators' names in scene files, on the command line and in Python, indexed like
// csIntegratorType: static const char* const names[] = CS_INTEGRATOR_NAMES;
#define CS_INTEGRATOR_NAMES {"bdf", "adams", "rk", "ark", "rk23"}

typedef enum csLinearSolver {
  CS_LINSOL_AUTO = 0,      // each independent group of bodies on its own, dense solver each
  CS_LINSOL_DENSE,         // the whole model as one system: dense, difference-quotient Jacobian
  CS_LINSOL_BAND,          // the whole model as one system, banded (states body by body)
  CS_LINSOL_GMRES,         // the whole model as one system, matrix-free GMRES, no preconditioner
  CS_LINSOL_COUNT
} csLinearSolver;

// the linear solvers' names, indexed like csLinearSolver
#define CS_LINSOL_NAMES {"auto", "dense", "band", "gmres"}

typedef struct csSimOptions {
  double duration;         // s, > 0
  csIntegratorType integrator;
  csLinearSolver linsol;
  double rtol;             // relative tolerance, > 0
  double atol;             // absolute tolerance, > 0
  double max_step;         // s, 0 = unlimited
  double initial_step;     // s, 0 = CVODE's estimate
  long max_steps;          // steps of one group between two reports (like CVODE's mxstep), > 0;
                           // cs_simAdvanceTo, which reports nothing, counts them per interval
                           // of the report grid as a run would
  double report_interval;  // s, >= CS_MIN_REPORT_INTERVAL
  long max_rows;           // report rows a command-line run may write, > 0 (0 in a zeroed
                           // struct: CS_DEFAULT_MAX_ROWS): a run that would write more
                           // (duration / report_interval) is refused up front
} csSimOptions;

// The smallest report interval a scene or the command line may ask for, s: report times are
// kept apart, and a run of one second stays within a billion rows.
#define CS_MIN_REPORT_INTERVAL 1e-9
// The shortest run, s: CVODE's first-step arithmetic fails on intervals near 1e-160 s (the
// squares of such numbers underflow), long before a useful run is that short.
#define CS_MIN_DURATION 1e-9
// The smallest first step (initial_step) other than 0, s: as with CS_MIN_DURATION, the
// integrators' arithmetic on smaller steps underflows (BDF's first step of 1e-300 s collapsed).
#define CS_MIN_INITIAL_STEP 1e-150
// The smallest absolute tolerance: the error test weighs a component near zero by 1 / atol,
// which for atol below about 5.6e-309 is beyond doubles (every step then fails at once).
#define CS_MIN_ATOL 1e-300
// A largest step (max_step) must be at least this many times the spacing of doubles at the
// run's end time: below it, t + h == t and the integrator cannot advance.
#define CS_MIN_STEP_ULPS 16.0
// The default of csSimOptions.max_rows: 10 million rows, about 2 GB of CSV for a dozen bodies.
#define CS_DEFAULT_MAX_ROWS 10000000L


// ---------------------------------------------------------------------------------------------
// model: built once by the loader (or the cs_add* functions), never written during a run

struct csModel {
  char name[CS_MAX_NAME];
  char file[CS_MAX_FILE];  // scene file it was loaded from, or ""
  // that file's identity when it was loaded (file_known), its absolute path then (file_abs, the
  // target of a link; "" when unknown) and the absolute path of the name itself (file_name_abs,
  // a link's own), so that outputs never replace it, whatever the working directory is when they
  // are written, nor the file saved in its place since (cs_modelIsSceneFile)
  unsigned long long file_dev, file_ino;
  int file_known;
  char file_abs[CS_MAX_FILE];
  char file_name_abs[CS_MAX_FILE];

  // sizes
  int nbody;               // bodies including ground (body 0)
  int nq, nu, nz;          // coordinates, speeds, auxiliary continuous states
  int ndisc, nauto;        // discrete and auto-update discrete variables
  int nplane, nforce, nchange;
  int nextra;              // model-specific report values of all elements
  int ngroup;              // contact sets
  int ndiss;               // dissipated-energy z states (one per home body with dissipation)

  csVec3 gravity;          // m/s^2, in Ground (used by the "gravity" element)
  csSimOptions opt;

  // the contact models of the scene (filled by the loader; all empty when it has no contacts):
  // the one this model was loaded with, the scene's own choice (contact_models.default, else the
  // only block; "" when neither), and every block of contact_models in file order
  char contact_model[CS_MAX_NAME];
  char contact_model_default[CS_MAX_NAME];
  int ncontact_model;
  char contact_model_names[CS_MAX_CONTACT_MODELS][CS_MAX_NAME];

  csBody* body;            // (nbody)
  csPlane* plane;          // (nplane)
  csForce* force;          // (nforce)
  csChange* change;        // (nchange), sorted by time
  char (*group_name)[CS_MAX_NAME];  // (ngroup)
  int* diss_z;             // (ndiss) z index of each dissipated-energy state

  // initial state
  double* q0;              // (nq)
  double* u0;              // (nu)

  // what the loader read, so that cs_modelWithOverrides can load the scene again with more
  // parameters set: the scene text, then zero-terminated the contact model asked for ("" for
  // the scene's own) and each override's key and value; NULL for a model built with cs_add*
  char* source;            // (source_size) owned
  size_t source_size;      // bytes of source
  size_t source_len;       // length of the scene text at its start
  int source_noverride;    // overrides stored after it

  int finalized;           // 1 once cs_finalizeModel has laid out the state
  int capbody, capplane, capforce, capchange, capgroup;  // allocated lengths while building
};


// ---------------------------------------------------------------------------------------------
// data: the state and everything computed from it

typedef enum csStage {
  CS_STAGE_NONE = 0,
  CS_STAGE_POSITION,
  CS_STAGE_VELOCITY,
  CS_STAGE_DYNAMICS,
  CS_STAGE_ACCELERATION,
} csStage;

typedef struct csStats {
  long nsteps;             // successful steps
  long nrhs;               // RHS evaluations by CVODE
  long nrhs_jac;           // RHS evaluations spent on difference-quotient Jacobians
  long njac;               // Jacobian evaluations
  long netf;               // error-test failures
  long nncf;               // nonlinear convergence failures
  long ncommit;            // auto-update commits (one per successful step)
  long nreport;            // report rows
  double last_step;        // s
  double cpu_seconds;      // process CPU time of the run less the reports', s
  double cpu_step_hook;    // CPU time in the reporter's step callback (part of the above), s,
                           // estimated from one call in 16
  long warnings_nonfinite; // RHS evaluations that produced a non-finite value
  long warnings_bushing;   // bushing evaluations near gimbal lock
  long warnings_passed_over;  // reports at which a contact or stop acted that no evaluation of
                              // the step around them (or the step before) found acting: the
                              // steps passed over a touch shorter than a step
  int passed_over_force;      // the element of the first of them (when there is one)
  double passed_over_t;       // its time, s
  long passed_over_others;    // those of the other elements
  int one_step;               // 1: the last run's integrator was rk, rk23 or ark
  long nstage[4];          // evaluations of the position, velocity, dynamics and acceleration
                           // stages (repeated calls on a realized state do not count; one of
                           // the planar right-hand side counts as one of each)
  int linsol;              // csLinearSolver of the last run's largest group (AUTO: none, Adams)
  int bandwidth;           // Jacobian bandwidth of the largest group
  int ngroup;              // independently integrated coupled groups of bodies
  long warnings_cvode;     // warnings CVODE issued during the run (such as t + h = t)
  char cvode_warning[CS_MAX_ERROR];  // the first of them, "" when there was none
  long nstiff;             // rk and rk23 steps held by stability rather than accuracy
                           // (DOPRI5's test, against each pair's stability boundary)
  long nsteps_group;       // the most steps one group of bodies took (nsteps with one group;
                           // a simulation's sums each integrator's: an upper bound)
} csStats;

// A realized pair of a body: everything a force element may read.
struct csData {
  int nbody, nq, nu, nz, ndisc, nauto;  // copies of the model sizes
  csStats stat;
  size_t nbytes;           // size of the single allocation behind the arrays below

  // ---- state ----
  double t;                // s
  double* q;               // (nq) generalized coordinates
  double* u;               // (nu) generalized speeds
  double* z;               // (nz) auxiliary continuous states
  double* disc;            // (ndisc) discrete variables
  double* autoval;         // (nauto) auto-update discrete variables
  double* auto_cache;      // (nauto) their update cache, committed after each successful step
  double auto_dt;          // s, time since the element's last commit (read by its update
                           // callback, set before each call)
  double* commit_t;        // (nforce) s, each element's last commit: groups of bodies step
                           // apart, and an element's update measures its own interval

  csStage stage;           // highest stage realized for the current state
  int planar_model;        // 1: the rates take the planar right-hand side (cs_realizeRates)
  int planar_rates;        // 1: that right-hand side has realized qdot, udot and the z rates
                           // for the current state, whatever stage is realized besides
                           // (cs_invalidate clears it)

  // What the stages work on: every body, force element and plane by default; the integrator
  // narrows these to one coupled group of bodies while it advances that group alone.
  const int* act_body;     // (nact_body) body ids in increasing order (parents first)
  const int* act_force;    // (nact_force) force element ids
  const int* act_plane;    // (nact_plane) plane ids
  int nact_body, nact_force, nact_plane;

  // ---- position stage ----
  csTransform* body_pose;  // (nbody) X_GB: body frame in Ground
  csTransform* joint_XFM;  // (nbody) mobilizer transform X_FM(q)
  csVec3* body_com;        // (nbody) centre of mass in Ground, m
  csTransform* plane_pose; // (nplane) X_GP: plane frame in Ground

  // ---- velocity stage ----
  csSpatialVec* body_vel;  // (nbody) angular velocity in Ground, velocity of body origin in Ground
  double* qdot;            // (nq)

  // ---- dynamics stage (force elements write here) ----
  csSpatialVec* body_force;   // (nbody) moment about body origin and force, in Ground, N m / N
  double* mobility_force;     // (nu) generalized forces
  double* force_pe;           // (nforce) potential energy of each element, J
  long* felt_step;            // (nforce) an element with an onset: the last step of its group
                              // (the integrator's count) in which an evaluation found it
                              // acting (potential energy > 0), 0 when none (counts from 1)
  long* suspect_step;         // (nforce) the step at whose reports it acted unfelt (0: none),
  long* suspect_n;            // how many such reports, and the first one's time, s: a touch
  double* suspect_t;          // passed over unless the next step feels it (integrator.c)
  double* force_power;        // (nforce) power dissipated by each element, W
  csVec3* contact_point;      // (nforce) a sphere contact's point at its last evaluation (its
                              // report's), in Ground, m: the statistics read it after each step
  double* zdot;               // (nz)

  // ---- acceleration stage ----
  double* udot;            // (nu)
  csSpatialVec* body_acc;  // (nbody) spatial acceleration in Ground at body origin

  // ---- reports ----
  double* force_extra;     // (nextra) model-specific report values, filled by cs_report

  // ---- scratch for the articulated-body algorithm (Ground axes, about each body origin) ----
  double* aba_I0;          // (nbody x 9) rotational inertia of each body about its origin, body coords
  double* aba_IA;          // (nbody x 21) articulated inertias, Ground axes, packed (dynamics.c)
  double* aba_pA;          // (nbody x 6) articulated bias forces
  double* aba_c;           // (nbody x 6) velocity-product accelerations
  double* aba_S;           // (nu x 6) motion subspace columns, Ground axes
  double* aba_U;           // (nu x 6) IA * S (a planar link: what its outward step takes,
                           // dynamics.c, planarInward)
  double* aba_Dinv;        // (nu x 6) inverse of S^T IA S: a body's unum rows at 6 uadr (not
                           // kept for a planar link)
  double* aba_utau;        // (nu) tau - S^T pA (a planar link: as aba_U)
  double* aba_Iinv;        // (nbody x 9) inverse central inertia, body coords (free leaves)
  int* aba_freeLeaf;       // (nbody) 1: free mobilizer on ground with no children (fast path)
  double* aba_pinLeaf;     // (nbody) a pin on ground, its axis through the body origin, with no
                           // children (fast path): 1 / the moment of inertia about the axis;
                           // 0 for every other body
  double* aba_Sbody;       // (nu x 6) pin and slider motion subspace in body coordinates (constant)
  int* aba_plainMB;        // (nbody) 1: X_MB is the identity (body frame = mobilizer frame M)
  int* aba_plainPF;        // (nbody) 1: X_PF has no rotation (F parallel to the parent frame)
  int* aba_diagI0;         // (nbody) 1: the inertia about the body origin is diagonal
  int* aba_planar;         // (nbody) 1: a link of a planar pin tree (dynamics.c, planar path)
  double* aba_plane;       // (nbody x 12) its plane: basis e1, e2, normal n (Ground), the pin
                           // axis's sign along n, the central moment of inertia about n
  double* aba_acc2;        // (nbody x 3) its planar acceleration (about n; along e1, e2)
  double* aba_r2;          // (nbody x 2) its origin from its parent's, along e1 and e2
  double* aba_k2;          // (nbody x 22) the planar right-hand side's record of it
  int* all_body;           // (nbody) 1 .. nbody-1: the default active body list
  int* all_force;          // (nforce) 0 .. nforce-1
  int* all_plane;          // (nplane) 0 .. nplane-1

  // ---- scratch for the CSV writer (last, so that the fields above keep their offsets) ----
  double* set_sum;         // (ngroup x 7) per contact set, the CSV row's sums in one pass over
                           // the elements: force, normal-force-weighted point, normal force
};

#endif  // CONTACTSIM_TYPES_H
