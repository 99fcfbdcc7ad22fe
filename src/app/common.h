// common.h: what the commands of the contactsim executable share (private to it).
#ifndef CONTACTSIM_CLI_H
#define CONTACTSIM_CLI_H

#include <limits.h>
#include <signal.h>

#include "contactsim/contactsim.h"
#include "engine/metrics.h"

// Exit codes of the contactsim command.
enum { CS_EXIT_OK = 0, CS_EXIT_FAILURE = 1, CS_EXIT_USAGE = 2 };

// A file in an output directory: a path as long as the system takes for the directory, and the
// file's name (a model's, with its extension)
#define CS_CLI_MAX_FILE (PATH_MAX + CS_MAX_NAME + 16)

// The commands. argv[0] is the command name ("run", ...), the rest its options and the scene
// path, as main passes them; argv is only read. Each prints its own errors on stderr and
// returns an exit code (CS_EXIT_*). They reset getopt's state, so they may be called again in
// one process.
// `contactsim run`: simulate one scene, CSV on stdout or --output, summary on stderr.
int cs_cliRun(int argc, char** argv);
// `contactsim validate`: load and check a scene, print its size on stdout; nothing is run.
int cs_cliValidate(int argc, char** argv);
// `contactsim compare`: run a scene once per contact model and tabulate (cmd_compare.c).
int cs_cliCompare(int argc, char** argv);
// `contactsim replay`: the 3D replay page of runs already made, from their CSVs (cmd_replay.c).
int cs_cliReplay(int argc, char** argv);
// Write the usage text of every command to f (stdout for --help, stderr after a usage error).
void cs_cliUsage(FILE* f);

// How messages and tables name the scene argument: "<stdin>" for "-", else the path.
const char* cs_cliSceneName(const char* path);
// 0 when path names a file; -1, saying so, when it is "-": standard output for -o and --stats,
// but no place for an output written whole at the end (a checkpoint, a replay page), which
// went to a file named "-". option: the option's name, "--save-state".
int cs_cliNotStandardOutput(const char* option, const char* path);

// Values per report in a run's track (the convergence check): the time, then per body but
// ground its origin and its centre of mass in Ground (a pendulum's origin sits on its pin and
// never moves: the origins alone called any run of it converged).
size_t cs_cliTrackWidth(const csModel* m);

// Print err to stderr as "contactsim: error: FILE:LINE:COL: PATH: MESSAGE".
// The parts that are not known (empty file or path, line 0) are left out. err is read only,
// not NULL.
void cs_cliPrintError(const csError* err);
// The scene file: the one positional argument left after getopt_long; prints "COMMAND takes
// exactly one scene file" and the usage, and returns NULL, when there is not exactly one.
const char* cs_cliSceneArgument(int argc, char** argv, const char* command);
// Index of text among the n names allowed for option `name`; prints "--name must be a, b or c,
// not 'text'" and returns -1 when it is none of them. None may be NULL.
int cs_cliParseChoice(const char* text, const char* name, const char* const* names, int n);
// Parse a positive (or non-negative when allow_zero) number for option `name`; prints and
// returns -1 when it is not one.
// text is the whole argument (trailing characters, NaN and infinity are refused); name is the
// option without "--", for the message; out is written only on success. None may be NULL.
int cs_cliParseNumber(const char* text, const char* name, int allow_zero, double* out);
// The same for a positive number that must be at least min (--duration, --report-interval and
// --atol: the lower limits scenes have too), said with its unit (" s", or "" for a tolerance,
// which has the units of each state); prints the usage error and returns -1 otherwise.
int cs_cliParseAtLeast(const char* text, const char* name, double min, const char* unit,
                       double* out);
// Write an error message to f made safe for a terminal, its backslashes kept as they are (the
// loader has escaped a scene's bytes as \xNN already).
void cs_cliPutMessage(FILE* f, const char* message);
// Scene parameters set on the command line with --set KEY=VALUE, in the order given.
typedef struct csCliSets {
  csOverride* item;            // (n) key and value point into copies of the arguments (owned)
  int n, cap;
} csCliSets;
// Add one --set argument "KEY=VALUE" (split at the first '='); prints the error and returns -1
// when there is no '=' or the key is empty. Free the whole set with cs_cliFreeSets.
int cs_cliAddSet(csCliSets* sets, const char* arg);
// Free what sets owns; safe on a zeroed or already freed set.
void cs_cliFreeSets(csCliSets* sets);
// Read the scene named on the command line once (a file, a pipe, or "-" for standard input),
// printing any error; NULL on failure. Free the text with cs_freeSceneText.
char* cs_cliReadScene(const char* path);
// Apply --contact-model and --set: load the scene from its text (read by cs_cliReadScene; path
// names it in messages), printing any error. NULL on failure.
// Nullable: contact_model (NULL: the scene's own choice), sets (none). The caller owns the
// returned model and frees it with cs_deleteModel (or through cs_cliFreeRun once it is in a
// csCliRun).
csModel* cs_cliLoad(const char* text, const char* path, const char* contact_model,
                    const csCliSets* sets);

// What `compare --convergence` found for one model: the run against a rerun with tolerances
// `factor` times tighter, and that rerun against a third with every initial generalized speed
// changed by `perturbation`. Distances are between body origins at the same report time, m.
typedef struct csCliConvergence {
  int done;                    // 1: the check ran (both reruns finished)
  double factor;               // tolerances divided by this
  double perturbation;         // added to every initial speed, m/s or rad/s
  double tighter_max;          // largest distance over the run and the bodies, run vs tighter
  double tighter_final;        // the same at the last report
  double perturbed_max;        // tighter vs perturbed, largest over the run and the bodies
  double perturbed_final;      // the same at the last report
  double perturbed_horizon;    // first report time at which tighter vs perturbed exceeds
                               // CS_CLI_CONVERGENCE_DISTANCE, s; NAN if never
  double cpu_seconds;          // integration CPU of the two reruns together, s
} csCliConvergence;

// Distance, m, above which --convergence calls positions changed (and writes a diagnostic).
#define CS_CLI_CONVERGENCE_DISTANCE 1e-3

// The convergence check's distances, as named in the CSV columns and the JSON keys (results.c).
enum { CS_CLI_NCONVERGENCE = 5 };
extern const char* const cs_cliConvergenceKeys[CS_CLI_NCONVERGENCE];
// c's distances in the order of cs_cliConvergenceKeys. c and v not NULL.
void cs_cliConvergenceValues(const csCliConvergence* c, double v[CS_CLI_NCONVERGENCE]);

// One simulation of a scene with one contact model, as `run` and `compare` perform it.
typedef struct csCliRun {
  char model[CS_MAX_NAME];     // contact model name, or "scene" when the scene names none
  csModel* m;                  // the loaded scene (owned)
  csData* d;                   // its data after the run (owned), NULL before
  csSimOptions opt;            // options of the run (the scene's, overridden on the command line)
  csMetrics metrics;           // contact statistics and diagnostics
  int status;                  // csStatus of the run
  csError err;                 // what went wrong when status != CS_OK
  double cpu_seconds;          // process CPU time of the run less its reports (csStats), s
  double perturb_u;            // added to every generalized speed of the initial state (0: none)
  double* track;               // nullable: (track_rows x (1 + 3 (nbody - 1))) per report the
                               // time, s, then the origin of every body but ground in Ground, m;
                               // owned, freed by cs_cliFreeRun
  long track_rows;             // rows track holds
  long track_used;             // rows written by the run
  csCliConvergence convergence;  // compare --convergence (done = 0 otherwise)
  const char* initial_state;   // nullable: checkpoint the run starts from (run --initial-state)
  csData* initial_data;        // nullable: that checkpoint already read (owned): the run starts
                               // from it rather than reading the file again, which a pipe
                               // (--initial-state <(...)) could not give twice
  double t_start;              // time the run started at, s (0, or its checkpoint's)
  csData* checkpoint;          // the state at the last report (owned; NULL when out of memory),
                               // what run --save-state writes for an interrupted run, and where
                               // the summary of one stands
  csMetricsSaved report_metrics;  // the statistics at the last report, which an interrupted run
                                  // goes back to
  int report_kept;             // 1: checkpoint and report_metrics hold the last report's
  const char* csv_name;        // nullable: the CSV's name for messages (a file, or "standard
                               // output")
  int output_errno;            // why a CSV (either of cs_cliSimulateTwo's) could not be
                               // written, whatever else ended the run; 0 when it could
} csCliRun;

// Simulate r->m from its initial state with r->opt: make r->d, feed the statistics, write the
// CSV header and a row per report to csv (nullable) with csvopt, draw a progress bar on stderr
// when progress is nonzero. Sets r->status, r->err (file set to the scene) and r->cpu_seconds.
// r->m and r->opt must be set; r->d is created here and owned by r (NULL only when memory ran
// out). When r->track is set, each report also stores the body origins there (up to
// track_rows rows, counted in track_used); r->perturb_u is added to every initial speed.
// With r->initial_data, or else r->initial_state, the run starts from that checkpoint (a bad
// one fails the run with CS_ERR_INPUT); each report's state is copied to r->checkpoint, and the
// statistics to r->report_metrics. An interrupted run goes back to them (r->d and r->metrics
// then describe the state of the last row, which --save-state writes and a continued run starts
// from: the steps after it are counted in d->stat, their motion is not).
// Nullable: csv (no CSV is written; csvopt is then unused). csv stays open and owned by the
// caller. cpu_seconds is CPU time in seconds. A CSV that could not be written (its header, a
// row, or the last rows after a failure) sets r->output_errno, which tells an output error
// from a failed simulation: the rows go to the stream's descriptor, so the stream's error flag
// never shows it.
void cs_cliSimulate(csCliRun* r, FILE* csv, const csCsvOptions* csvopt, int progress);

// The same, writing a second CSV as well, to also (nullable) with alsoopt: run --replay keeps
// the CSV with every column for its page there, while csv gets the columns asked for, row by
// row as without a page.
void cs_cliSimulateTwo(csCliRun* r, FILE* csv, const csCsvOptions* csvopt, FILE* also,
                       const csCsvOptions* alsoopt, int progress);
// mkdir -p: create path and its missing parents (0777 less the umask); the whole must end up a
// directory. Returns 0, or -1 with errno set (ENOTDIR when a file stands in the way). Not NULL.
int cs_cliMakeDirectory(const char* path);
// How far r got, s: the time of its data, 0 when it never got data (out of memory). Not NULL.
double cs_cliSimulatedTime(const csCliRun* r);
// How much time r simulated, s: from r->t_start to the time reached (what CPU time per
// simulated second divides by). Not NULL.
double cs_cliSimulatedSpan(const csCliRun* r);
// Free what r owns (model, data, statistics, track).
// r->m and r->d are set to NULL, so it is safe on a zeroed or already freed run; r itself is
// not freed.
void cs_cliFreeRun(csCliRun* r);
// err as one line "FILE:LINE:COL: PATH: MESSAGE" (the parts that are known) into buf.
// buf holds size bytes (size > 0) and is always zero-terminated; a longer line is cut.
void cs_cliFormatError(const csError* err, char* buf, size_t size);
// Energy audit, contact statistics, statistics and diagnostics after a run, on stderr.
// Requires r->d (not NULL): call it only for a run that got data. Energies in J, times in s.
void cs_cliSummary(const csCliRun* r);
// The statistics of runs as one JSON object {"scene", "file", "models": [...]} (docs/cli.md).
// Returns 0, or -1 on an I/O error.
// runs holds nrun runs (read only); f stays open and owned by the caller. Non-finite numbers
// are written as null. Units: SI (s, m, N, J).
int cs_cliWriteJson(FILE* f, const char* scene, const char* file, const csCliRun* runs, int nrun);
// The statistics of one run as one JSON object: "scene", "file", then the keys of an entry of
// "models" (what `run --stats` writes). Returns 0, or -1 on an I/O error.
// run is read only; run->d may be NULL (the counters are then 0). f stays the caller's.
int cs_cliWriteRunJson(FILE* f, const char* scene, const char* file, const csCliRun* run);
// Name of the linear solver a run used: "dense", "band", "gmres", or "none" (Adams).
// Returns a static string (not to be freed); r->d may be NULL (BDF then reports "dense").
const char* cs_cliLinearSolverName(const csCliRun* r);

// ---------------------------------------------------------------------------------------------
// signals, outputs and safe text (common.c)

// The signal that asked the run in progress to stop (SIGINT, SIGTERM or SIGHUP), 0 while none
// has. cs_cliCatchSignals' handler sets it; the runs hand it to the library as csReporter.stop.
// A global because a signal handler can reach nothing else.
extern volatile sig_atomic_t cs_cliStopSignal;
// Catch SIGINT, SIGTERM and SIGHUP: the first sets cs_cliStopSignal (the run stops before its
// next step and writes what is due), a second one ends the process at once with status
// 128 + signal, removing the temporary file registered with cs_cliTemporaryFile.
void cs_cliCatchSignals(void);
// The same while the outputs are being opened, without restarting an interrupted system call:
// opening a FIFO waits for its reader, and a Ctrl-C there must end that wait (the open fails
// with EINTR and cs_cliStopSignal is set). Call cs_cliCatchSignals once they are open.
void cs_cliCatchSignalsWhileOpening(void);
// A stop signal taken while a command read its inputs (the handlers are installed before the
// scene is read: a large one takes seconds to load and to set up): 0 when none came, else the
// exit status 128 + signal, with a line naming the scene (what) and the signal. Called before
// any output is opened, so that such a command writes nothing.
int cs_cliStoppedBeforeStart(const char* what);
// The stop signals' own actions back (those not ignored at the start), while an input that may
// block is read: a caught signal restarts the read (SA_RESTART), which a FIFO with no writer
// would then wait out; a signal taken before stays in cs_cliStopSignal.
void cs_cliDefaultSignals(void);
// The stop signals the program acts on: SIGINT, SIGTERM and SIGHUP, less any that was ignored
// when it started (nohup ignores SIGHUP, a shell's background job SIGINT), which stays ignored,
// as whoever started the program asked (and is never blocked: a blocked signal that is ignored
// stays pending, and would be taken for a stop). Read once, before any handler is installed.
void cs_cliStopSet(sigset_t* set);
// Set sa as the action of each of cs_cliStopSet's signals. Every change of their action goes
// through here.
void cs_cliSetStopAction(const struct sigaction* sa);
// The exit status of a command stopped by cs_cliStopSignal: 128 + its number.
int cs_cliStopStatus(void);
// "SIGINT", "SIGTERM", "SIGHUP" or "signal N" for sig, in a static buffer.
const char* cs_cliSignalName(int sig);
// Name a temporary file being written in slot 0 .. CS_CLI_NTEMPORARY - 1 (nullable path: the
// slot is free again), removed if a second signal ends the process. path is copied.
#define CS_CLI_NTEMPORARY 2
void cs_cliTemporaryFile(int slot, const char* path);
// "ok", "failed" or "interrupted": how run r ended, as the JSON and the CSV say it. Not NULL.
const char* cs_cliStatusName(const csCliRun* r);

// Open the n outputs named in paths (a NULL entry is skipped; files[i] is then NULL) for
// writing, after making sure that none of them is the scene file or another of them, by
// dev + inode where they exist and by their directory's real path where they do not (a symbolic
// link to nothing yet by the name it points to, which is created: such a link is written
// through, as a shell's redirection writes it); all are opened before any is truncated, so
// that one that cannot be opened leaves every file as it was (and removes the ones this call
// created). Returns 0, or -1 with the error printed. None of
// scene, paths, files is NULL; the caller closes the files. Bit i of checkOnly: path i is only
// checked (clashes, and that it can be opened for writing), then left as it was (files[i]
// NULL): an output written whole at the end (the replay page) keeps its old content meanwhile.
// options[i]: the option that names path i, for the message of a clash ("--stats").
int cs_cliOpenOutputs(const char* scene, const char* const* paths, const char* const* options,
                      FILE** files, int n, unsigned checkOnly);
// 1 when paths a and b name the same file (as cs_cliOpenOutputs judges it), else 0.
int cs_cliSameFile(const char* a, const char* b);
// The same for two outputs: 1 when they are one file that is not a device (/dev/null may stand
// for several outputs), else 0.
int cs_cliSameOutput(const char* a, const char* b);

// 1 when path names the file standard output goes to (a shell's > FILE, /dev/stdout, a pipe
// given as /proc/self/fd/1), which a command writing to standard output holds: another output
// there would write over it or between its lines. A character device (/dev/null) may be
// named twice, as in cs_cliSameOutput.
int cs_cliIsStandardOutput(const char* path);
// 1, with a message, when standard output goes to the input file path names (for "-", the file
// standard input was redirected from): `run sc.json >> sc.json` appended its CSV to its own
// scene. what names the input in the message ("scene", "checkpoint", "study").
int cs_cliStandardOutputIsInput(const char* what, const char* path);
// 1 when path names the scene file, else 0: as cs_cliSameFile, and for the scene "-" (standard
// input) when standard input is a regular file and path names it.
int cs_cliIsScene(const char* path, const char* scene);

// text for a terminal or a log: valid UTF-8 is copied, control characters and bytes that are
// not UTF-8 are written as escapes (\n, \t, \x1b, \xff), so that a name read from a scene can
// neither move the cursor nor fake a line of output. Returns buf, always zero-terminated (a
// longer text is cut at a whole character or escape). buf holds size > 0 bytes; s not NULL.
const char* cs_cliSafeText(const char* s, char* buf, size_t size);
// The same for printing: s made safe in one of a few rotating static buffers (so that one
// printf may take several), cut to CS_CLI_SAFE_LEN bytes: room for a diagnostic whose every
// byte became a four-byte escape.
#define CS_CLI_SAFE_LEN (4 * CS_METRICS_NOTE_LEN)
const char* cs_cliSafe(const char* s);

// The usage of one command ("run", "validate", "compare") to f, for COMMAND --help (stdout) and
// after a usage error (stderr); the overview of every command for an unknown command.
void cs_cliCommandUsage(FILE* f, const char* command);
// 1 when command names one of the commands (run, validate, compare, sweep, replay), else 0.
int cs_cliIsCommand(const char* command);
// Report getopt_long's '?' or ':' for command as a usage error (opterr must be 0 and the option
// string start with ':'): "contactsim: error: run: unknown option '--x'" or "option '-o' needs a
// value". Returns CS_EXIT_USAGE.
int cs_cliOptionError(int c, char** argv, const char* command);
// Parse a positive whole number (a step count) for option `name` (without "--"); prints and
// returns -1 when text is not one. None may be NULL; out written only on success.
int cs_cliParseCount(const char* text, const char* name, long* out);
// Refuse, before anything is written, a run whose report rows (duration / report_interval)
// would exceed o->max_rows, or whose report interval is below CS_MIN_REPORT_INTERVAL: prints
// the numbers and how to raise the limit (with model, nullable, named) and returns -1; 0 when
// the run may go ahead. path names the scene.
// The same for a largest step that cannot work (cs_maxStepProblem), named stepName
// ("--max-step" or "simulation.max_step").
int cs_cliCheckRows(const csSimOptions* o, const char* path, const char* model,
                    const char* stepName);
// The same for a run that starts at t0 (a checkpoint's time, run --initial-state) and ends at
// o->duration, the end time counted from t = 0: the rows are those from t0 to that end.
int cs_cliCheckRowsFrom(const csSimOptions* o, double t0, const char* path, const char* model,
                        const char* stepName);
// The test of cs_cliCheckRows without printing: 1 with the sentence in why (size bytes) and the
// option or key at fault in *what (stepName, "simulation.report_interval" or
// "simulation.max_rows"), 0 when the run may go ahead. raise says how to raise the row limit.
int cs_cliRowsProblem(const csSimOptions* o, const char* stepName, const char* raise,
                      const char** what, char* why, size_t size);

#endif  // CONTACTSIM_CLI_H
