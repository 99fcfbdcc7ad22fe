// cli.h: the command line (private to the contactsim executable).
#ifndef CONTACTSIM_CLI_H
#define CONTACTSIM_CLI_H

#include "contactsim/contactsim.h"

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
// Energy audit and warnings after a run, on stderr.
void cs_cliSummary(const csModel* m, const csData* d, double e0, int status);

#endif  // CONTACTSIM_CLI_H
