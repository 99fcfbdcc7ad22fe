// cli.h: the command line (private to the contactsim executable).
#ifndef CONTACTSIM_CLI_H
#define CONTACTSIM_CLI_H

#include "contactsim/contactsim.h"
#include "metrics.h"

// Exit codes of the contactsim command.
enum { CS_EXIT_OK = 0, CS_EXIT_FAILURE = 1, CS_EXIT_USAGE = 2 };

int cs_cliRun(int argc, char** argv);
int cs_cliValidate(int argc, char** argv);
int cs_cliCompare(int argc, char** argv);
void cs_cliUsage(FILE* f);

// Print err to stderr as "contactsim: error: FILE:LINE:COL: PATH: MESSAGE".
void cs_cliPrintError(const csError* err);
// Parse a positive (or non-negative when allow_zero) number for option `name`; prints and
// returns -1 when it is not one.
int cs_cliParseNumber(const char* text, const char* name, int allow_zero, double* out);
// Apply --contact-model etc.: load the scene, printing any error. NULL on failure.
csModel* cs_cliLoad(const char* path, const char* contact_model);

// One simulation of a scene with one contact model, as `run` and `compare` perform it.
typedef struct csCliRun {
  char model[CS_MAX_NAME];     // contact model name, or "scene" when the scene names none
  csModel* m;                  // the loaded scene (owned)
  csData* d;                   // its data after the run (owned), NULL before
  csSimOptions opt;            // options of the run (the scene's, overridden on the command line)
  csMetrics metrics;           // contact statistics and diagnostics
  int status;                  // csStatus of the run
  csError err;                 // what went wrong when status != CS_OK
  double cpu_seconds;          // CPU time of the integration without the statistics' sampling
} csCliRun;

// Simulate r->m from its initial state with r->opt: make r->d, feed the statistics, write the
// CSV header and a row per report to csv (nullable) with csvopt, draw a progress bar on stderr
// when progress is nonzero. Sets r->status, r->err (file set to the scene) and r->cpu_seconds.
void cs_cliSimulate(csCliRun* r, FILE* csv, const csCsvOptions* csvopt, int progress);
// Free what r owns (model, data, statistics).
void cs_cliFreeRun(csCliRun* r);
// err as one line "FILE:LINE:COL: PATH: MESSAGE" (the parts that are known) into buf.
void cs_cliFormatError(const csError* err, char* buf, size_t size);
// Energy audit, contact statistics, statistics and diagnostics after a run, on stderr.
void cs_cliSummary(const csCliRun* r);
// The statistics of runs as one JSON object {"scene", "file", "models": [...]} (docs/cli.md).
// Returns 0, or -1 on an I/O error.
int cs_cliWriteJson(FILE* f, const char* scene, const char* file, const csCliRun* runs, int nrun);
// The statistics of one run as one JSON object: "scene", "file", then the keys of an entry of
// "models" (what `run --stats` writes). Returns 0, or -1 on an I/O error.
int cs_cliWriteRunJson(FILE* f, const char* scene, const char* file, const csCliRun* run);
// Name of the linear solver a run used: "dense", "band", "gmres", or "none" (Adams).
const char* cs_cliLinearSolverName(const csCliRun* r);

#endif  // CONTACTSIM_CLI_H
