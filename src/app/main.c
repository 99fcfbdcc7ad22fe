// main.c: the contactsim command: dispatch to a subcommand; the only place that chooses exit
// codes.
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "app/common.h"
#include "app/sweep.h"


// What a command leaves in standard output's buffer (the help, the version, anything printed
// with stdio) goes out here, at the latest: a write the system refuses (a full disk,
// /dev/full, a closed standard output) turns a success into an output error, said, rather than
// an exit 0 with nothing written. A command that already failed keeps its own status, and a
// reader that went away (EPIPE: `| head` has what it wanted) is no error.
static int finish(int code) {
  errno = 0;
  if ((fflush(stdout) != 0 || ferror(stdout)) && code == CS_EXIT_OK && errno != EPIPE) {
    fprintf(stderr, "contactsim: error: could not write to standard output: %s\n",
            strerror(errno ? errno : EIO));
    return CS_EXIT_FAILURE;
  }
  return code;
}


static int dispatch(int argc, char** argv);


int main(int argc, char** argv) {
  return finish(dispatch(argc, argv));
}


static int dispatch(int argc, char** argv) {
  // A write the system refuses is an output error like any other, reported with the rows and
  // files written so far left whole: a reader that went away (`| head`) fails the write with
  // EPIPE instead of SIGPIPE killing the process, and a file-size limit (ulimit -f) with EFBIG
  // instead of SIGXFSZ. A sweep's workers take SIGPIPE back (cmd_sweep.c).
  signal(SIGPIPE, SIG_IGN);
  signal(SIGXFSZ, SIG_IGN);
  if (argc < 2) {
    fprintf(stderr, "contactsim: error: no command given\n");
    cs_cliUsage(stderr);
    return CS_EXIT_USAGE;
  }
  const char* cmd = argv[1];
  // `contactsim help COMMAND` (or --help COMMAND, -h COMMAND) is `contactsim COMMAND --help`
  int asksHelp = strcmp(cmd, "help") == 0 || strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0;
  if (asksHelp && argc > 2) {
    if (!cs_cliIsCommand(argv[2])) {
      fprintf(stderr, "contactsim: error: %s: unknown command '%s' (contactsim --help lists "
              "the commands)\n", cs_cliSafe(cmd), cs_cliSafe(argv[2]));
      return CS_EXIT_USAGE;
    }
    cs_cliCommandUsage(stdout, argv[2]);
    return CS_EXIT_OK;
  }
  if (asksHelp) {
    cs_cliUsage(stdout);
    return CS_EXIT_OK;
  }
  if (strcmp(cmd, "--version") == 0) {
    if (argc > 2) {
      fprintf(stderr, "contactsim: error: --version takes no arguments, not '%s'\n",
              cs_cliSafe(argv[2]));
      return CS_EXIT_USAGE;
    }
    printf("contactsim %s\n", cs_versionString());
    return CS_EXIT_OK;
  }
  // each subcommand parses argv[1..] with getopt_long (argv[0] of the subcommand is its name)
  if (strcmp(cmd, "run") == 0) {
    return cs_cliRun(argc - 1, argv + 1);
  }
  if (strcmp(cmd, "validate") == 0) {
    return cs_cliValidate(argc - 1, argv + 1);
  }
  if (strcmp(cmd, "compare") == 0) {
    return cs_cliCompare(argc - 1, argv + 1);
  }
  if (strcmp(cmd, "sweep") == 0) {
    return cs_cliSweep(argc - 1, argv + 1);
  }
  if (strcmp(cmd, "replay") == 0) {
    return cs_cliReplay(argc - 1, argv + 1);
  }
  // one line, not the whole help: the help goes to standard output when asked for
  fprintf(stderr, "contactsim: error: unknown command '%s' (contactsim --help lists the "
          "commands)\n", cs_cliSafe(cmd));
  return CS_EXIT_USAGE;
}
