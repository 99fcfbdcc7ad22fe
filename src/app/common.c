// common.c: what the commands share: the usage text, loading with clear errors, option parsing,
// one simulation with its statistics, the end-of-run summary and energy audit.
//
// run and compare share one simulation routine, cs_cliSimulate, so that the numbers a model
// gets in a comparison are the numbers `run` prints for it. Every error goes to stderr in one
// layout, FILE:LINE:COL: PATH: MESSAGE, that editors can jump to. The exit status separates bad
// input (2) from a simulation that failed (1), so that a script can tell a typo in a scene from
// a model that is too stiff to integrate.
// realpath is an X/Open function
#define _XOPEN_SOURCE 700
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <float.h>
#include <getopt.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "app/common.h"
#include "io/replace_file.h"
#include "io/study_load.h"


// The help texts, one per command; keep them in step with docs/cli.md and the option tables of
// run and compare. `contactsim --help` prints them all, `contactsim COMMAND --help` its own.
static const char usageRun[] =
    "usage: contactsim run SCENE.json [OPTIONS]\n"
    "simulate a scene and write its trajectory as CSV (summary on standard error)\n"
    "\n"
    "run options:\n"
    "  -o, --output FILE         CSV file to write (default, or -: standard output)\n"
    "      --duration T          simulated time, s\n"
    "      --integrator NAME     bdf (default), adams, rk, ark or rk23\n"
    "      --rtol R, --atol A    relative and absolute tolerances\n"
    "      --report-interval DT  time between CSV rows, s\n"
    "      --max-step H          largest step, s (0: unlimited)\n"
    "      --max-steps N         most steps between two reports (then: too much work)\n"
    "      --max-rows N          most CSV rows (default 10000000; longer runs are refused)\n"
    "      --contact-model NAME  use this model for the scene's \"contacts\"\n"
    "      --set KEY=VALUE       set a scene parameter by key path (repeatable), e.g.\n"
    "                            --set bodies.block.mass=2 --set simulation.rtol=1e-8\n"
    "      --forces              add per-contact columns (force, point, energy, power)\n"
    "      --stats FILE          write the run's statistics as JSON (a row of compare's)\n"
    "      --save-state FILE     write the final state as a checkpoint (an interrupted run:\n"
    "                            the state at its last CSV row)\n"
    "      --initial-state FILE  start from a checkpoint, at its time; the run still ends\n"
    "                            at the scene's (or --duration's) end time\n"
    "      --replay FILE.html    also write a 3D replay page of the run (with forces)\n"
    "  -q, --quiet               no summary or progress on standard error\n"
    "  -h, --help                this help\n";

static const char usageValidate[] =
    "usage: contactsim validate SCENE.json [--contact-model NAME] [--set KEY=VALUE]\n"
    "load and check a scene without running it\n"
    "\n"
    "validate options:\n"
    "      --contact-model NAME  load the scene with this model only (default: with every\n"
    "                            model it has a block for; every block's values are checked)\n"
    "      --set KEY=VALUE       set a scene parameter by key path (repeatable)\n"
    "  -h, --help                this help\n";

static const char usageCompare[] =
    "usage: contactsim compare SCENE.json [OPTIONS]\n"
    "run a scene once per contact model and tabulate the results\n"
    "\n"
    "compare options:\n"
    "      --models a,b,...      models to run (default: every block the scene has)\n"
    "      --out-dir DIR         write each model's CSV, compare.csv and compare.json there\n"
    "      --format F            table (default), csv or json, on standard output\n"
    "      --duration T          simulated time, s\n"
    "      --rtol R, --atol A    relative and absolute tolerances\n"
    "      --max-steps N         most steps between two reports, per model\n"
    "      --set KEY=VALUE       set a scene parameter by key path (repeatable)\n"
    "      --convergence         also run each model at tolerances 100x tighter and\n"
    "                            from initial speeds changed by 1e-9, and compare\n"
    "      --replay              write DIR/replay.html showing every model (needs --out-dir)\n"
    "  -q, --quiet               no progress lines on standard error\n"
    "  -h, --help                this help\n";

static const char usageSweep[] =
    "usage: contactsim sweep STUDY.json --out DIR [OPTIONS]\n"
    "       contactsim sweep --gather DIR\n"
    "run a parameter study (docs/sweep-format.md) on local cores or as a Slurm job array\n"
    "\n"
    "sweep options:\n"
    "  -o, --out DIR             results directory (a rerun runs only what is missing)\n"
    "  -j, --jobs N              worker processes (default: every core this process has)\n"
    "      --new                 discard the records of an earlier, different study in DIR\n"
    "      --retry-failed        run the runs recorded as failed again (not only missing ones)\n"
    "      --trajectories        also write each run's CSV to DIR/trajectories/\n"
    "      --dry-run             print the runs and their values (with --slurm: write the\n"
    "                            batch script and print the sbatch command); run nothing\n"
    "      --task-range A:B      run only the runs A to B-1 (one array task's share)\n"
    "      --gather DIR          merge DIR's records into results.csv, list missing runs\n"
    "      --slurm               submit the study to Slurm as a job array\n"
    "      --slurm-opt OPT       pass OPT to sbatch (repeatable)\n"
    "      --runs-per-task N     runs per array task (default: max(10, runs/100))\n"
    "  -q, --quiet               no progress or summary on standard error (errors and\n"
    "                            failed runs are still printed)\n"
    "  -h, --help                this help\n";

static const char usageReplay[] =
    "usage: contactsim replay SCENE.json CSV [CSV...] [OPTIONS]\n"
    "write a 3D replay page (one self-contained HTML file) of runs already made\n"
    "\n"
    "replay options:\n"
    "  -o, --output FILE.html    page to write (default: the first CSV's name, .html)\n"
    "      --contact-model NAME  the model the CSVs were written with (default: a CSV\n"
    "                            named after a model block is that model's, the\n"
    "                            others the scene's default)\n"
    "      --set KEY=VALUE       the --set values the runs were made with (repeatable)\n"
    "  -h, --help                this help\n";

static const struct {
  const char* name;
  const char* usage;
} commandUsage[] = {
    {"run", usageRun},
    {"validate", usageValidate},
    {"compare", usageCompare},
    {"sweep", usageSweep},
    {"replay", usageReplay},
};
enum { NCOMMAND_USAGE = (int)(sizeof(commandUsage) / sizeof(commandUsage[0])) };


void cs_cliUsage(FILE* f) {
  fprintf(f,
          "usage: contactsim COMMAND [OPTIONS]\n"
          "       contactsim --help | --version\n"
          "\n"
          "commands:\n"
          "  run SCENE.json       simulate a scene and write its trajectory as CSV\n"
          "  validate SCENE.json  load and check a scene without running it\n"
          "  compare SCENE.json   run a scene once per contact model and tabulate the results\n"
          "  replay SCENE.json CSV...  write a 3D replay page (HTML) of runs already made\n"
          "  sweep STUDY.json     run a parameter study (docs/sweep-format.md) on local cores\n"
          "                       or as a Slurm job array; sweep --gather DIR merges results\n"
          "\n"
          "contactsim COMMAND --help (or contactsim help COMMAND) shows one command's options;\n"
          "all of them:");
  for (int i = 0; i < NCOMMAND_USAGE; i++) {
    // each text without its usage line and description: the option list
    const char* options = strstr(commandUsage[i].usage, "\n\n");
    fprintf(f, "%s", options ? options : commandUsage[i].usage);
  }
  fprintf(f, "\nexit status: 0 success, 1 simulation failure, 2 bad input or usage,\n"
             "128 + N stopped by signal N (SIGINT, SIGTERM, SIGHUP)\n");
}


int cs_cliIsCommand(const char* command) {
  for (int i = 0; i < NCOMMAND_USAGE; i++) {
    if (strcmp(command, commandUsage[i].name) == 0) {
      return 1;
    }
  }
  return 0;
}


void cs_cliCommandUsage(FILE* f, const char* command) {
  for (int i = 0; i < NCOMMAND_USAGE; i++) {
    if (strcmp(command, commandUsage[i].name) == 0) {
      fputs(commandUsage[i].usage, f);
      return;
    }
  }
  cs_cliUsage(f);
}


// getopt's own messages would name the command as the program ("run: unrecognized option"),
// without the "contactsim: error:" every message starts with; so opterr is 0 and they are ours
int cs_cliOptionError(int c, char** argv, const char* command) {
  // the argument getopt stopped at: argv[optind - 1] (a long option, or the last of a group of
  // short ones)
  const char* arg = optind > 0 ? argv[optind - 1] : "";
  char shortopt[3] = {'-', (char)optopt, '\0'};
  // a short option is named by its letter; a long one by the argument, cut at '='
  const char* name = optopt && optopt < 128 && strncmp(arg, "--", 2) != 0 ? shortopt : arg;
  int len = (int)strcspn(name, "=");
  // a flag written with a value (-q=1): getopt took the flag and stopped at the '=', in the
  // argument it is still reading (argv[optind], the group not finished)
  const char* group = optopt == '=' ? argv[optind] : NULL;
  if (group && group[0] == '-' && group[1] != '-' && group[1] != '=' && strchr(group, '=')) {
    fprintf(stderr, "contactsim: error: %s: option '%.*s' takes no value\n", command,
            (int)strcspn(group, "="), cs_cliSafe(group));
    return CS_EXIT_USAGE;
  }
  if (c == ':') {
    fprintf(stderr, "contactsim: error: %s: option '%.*s' needs a value\n", command, len,
            cs_cliSafe(name));
  } else if (optopt && name == arg && name[len] == '=') {
    // getopt_long gives '?' for a known long option given a value it does not take
    // (--quiet=1) too, with optopt set to the option; an unknown one leaves optopt 0
    fprintf(stderr, "contactsim: error: %s: option '%.*s' takes no value\n", command, len,
            cs_cliSafe(name));
  } else {
    fprintf(stderr, "contactsim: error: %s: unknown option '%.*s' (contactsim %s --help lists "
            "the options)\n", command, len, cs_cliSafe(name), command);
  }
  return CS_EXIT_USAGE;
}


int cs_cliParseCount(const char* text, const char* name, long* out) {
  char* end = NULL;
  errno = 0;
  long v = strtol(text, &end, 10);
  // (strtol reads past leading space: " 5" is refused as "5 " is); at most 1e15, as the
  // scene's simulation.max_steps and max_rows
  if (errno || end == text || *end || v <= 0 || v > 1000000000000000L ||
      isspace((unsigned char)text[0])) {
    fprintf(stderr, "contactsim: error: --%s needs a whole number from 1 to 1000000000000000 "
            "(10^15) in digits, not '%s'\n", name, cs_cliSafe(text));
    return -1;
  }
  *out = v;
  return 0;
}


// the parts of err that are not known (no file, no line, no JSON path) are left out rather
// than printed empty, so a message without a location still reads as a plain sentence; the
// line is made safe as a whole (file names and names in messages are free text)
void cs_cliPrintError(const csError* err) {
  // the file name is the caller's text: made safe first (a backslash in it shown as \\, as
  // everywhere else), so that the backslashes below are all escapes
  // (into buffers as long as the whole line can be, escaped: cs_cliSafe's ring of 1 KiB cut a
  // line with a long file name before its JSON path and what is wrong)
  static csError safe;
  static char line[CS_MAX_ERROR_LINE];
  safe = *err;
  cs_cliSafeText(err->file, safe.file, sizeof(safe.file));
  cs_cliFormatError(&safe, line, sizeof(line));
  fprintf(stderr, "contactsim: error: ");
  cs_cliPutMessage(stderr, line);
  fprintf(stderr, "\n");
}


// The loader already writes a scene's names and keys as \xNN where it builds its messages: the
// backslashes are kept as they are (escaping them again would print \\xNN), and everything
// between them is made safe. (Buffers as long as the longest line, escaped.)
void cs_cliPutMessage(FILE* f, const char* message) {
  static char piece[CS_MAX_ERROR_LINE], text[4 * CS_MAX_ERROR_LINE];
  for (const char* p = message;;) {
    const char* bs = strchr(p, '\\');
    size_t n = bs ? (size_t)(bs - p) : strlen(p);
    n = n < sizeof(piece) ? n : sizeof(piece) - 1;
    memcpy(piece, p, n);
    piece[n] = '\0';
    fprintf(f, "%s%s", cs_cliSafeText(piece, text, sizeof(text)), bs ? "\\" : "");
    if (!bs) {
      break;
    }
    p = bs + 1;
  }
}


// shared by run and compare, so that an option is judged the same way in both
const char* cs_cliSceneArgument(int argc, char** argv, const char* command) {
  // exactly one positional argument: the scene; otherwise the help goes to stderr, since the
  // command line is what is wrong
  if (optind != argc - 1) {
    fprintf(stderr, "contactsim: error: %s takes exactly one %s file\n", command,
            strcmp(command, "sweep") == 0 ? "study" : "scene");
    cs_cliCommandUsage(stderr, command);
    return NULL;
  }
  return argv[optind];
}


int cs_cliParseChoice(const char* text, const char* name, const char* const* names, int n) {
  for (int i = 0; i < n; i++) {
    if (strcmp(text, names[i]) == 0) {
      return i;
    }
  }
  // "--format must be table, csv or json, not 'x'"
  fprintf(stderr, "contactsim: error: --%s must be ", name);
  for (int i = 0; i < n; i++) {
    fprintf(stderr, "%s%s", names[i], i + 2 < n ? ", " : i + 1 < n ? " or " : "");
  }
  fprintf(stderr, ", not '%s'\n", cs_cliSafe(text));
  return -1;
}


int cs_cliParseNumber(const char* text, const char* name, int allow_zero, double* out) {
  // strtod must consume the whole text: "1e-3x" and "" are usage errors, not 0.001 and 0; NaN
  // and infinity are refused as well, since no option means anything with them, and so are
  // what strtod takes beyond decimal numbers: leading space (" 1e-5" read, "1e-5 " not) and
  // hexadecimal ("0x10" as 16)
  // A number below the smallest normal double (2.2e-308) is a value all the same (strtod says
  // ERANGE): the option's own lower limit then names what is wrong with it, not "needs a
  // positive number". One below the smallest double (5e-324) reads as 0, which it is not
  // (--max-step 1e-400 would be no limit at all): refused as such.
  char* end = NULL;
  errno = 0;
  double v = strtod(text, &end);
  int underflow = errno == ERANGE && isfinite(v) && fabs(v) < DBL_MIN;
  if (underflow && v == 0 && !signbit(v) && end != text && !*end) {
    fprintf(stderr, "contactsim: error: --%s: '%s' is below the smallest double (5e-324)\n", name,
            cs_cliSafe(text));
    return -1;
  }
  if ((errno && !underflow) || end == text || *end || !isfinite(v) || v < 0 ||
      (!allow_zero && v == 0) ||
      isspace((unsigned char)text[0]) || strpbrk(text, "xX")) {
    fprintf(stderr, "contactsim: error: --%s needs a %s number, not '%s'\n", name,
            allow_zero ? "non-negative" : "positive", cs_cliSafe(text));
    return -1;
  }
  *out = v;
  return 0;
}


int cs_cliParseAtLeast(const char* text, const char* name, double min, const char* unit,
                       double* out) {
  if (cs_cliParseNumber(text, name, 0, out)) {
    return -1;
  }
  if (*out < min) {
    fprintf(stderr, "contactsim: error: --%s must be at least %g%s, not '%s'\n", name, min, unit,
            cs_cliSafe(text));
    return -1;
  }
  return 0;
}


size_t cs_cliTrackWidth(const csModel* m) { return 1 + 6 * (size_t)(m->nbody - 1); }


const char* cs_cliSceneName(const char* path) {
  return strcmp(path, "-") == 0 ? "<stdin>" : path;
}


int cs_cliNotStandardOutput(const char* option, const char* path) {
  if (strcmp(path, "-") != 0) {
    return 0;
  }
  fprintf(stderr, "contactsim: error: %s needs a file name; '-' (standard output) is not one "
          "(./- names a file called -)\n", option);
  return -1;
}


// a load error without a file (one that could not be opened, say) still names the path, so
// that every message starts with the scene it is about
char* cs_cliReadScene(const char* path) {
  if (cs_cliStandardOutputIsInput("scene", path)) {
    return NULL;
  }
  csError err;
  memset(&err, 0, sizeof(err));
  char* text = cs_readSceneText(path, NULL, &err);
  if (!text) {
    if (!err.file[0]) {
      snprintf(err.file, sizeof(err.file), "%s", cs_cliSceneName(path));
    }
    cs_cliPrintError(&err);
  }
  return text;
}


csModel* cs_cliLoad(const char* text, const char* path, const char* contact_model,
                    const csCliSets* sets) {
  csLoadOptions lo = {.contact_model = contact_model,
                      .overrides = sets ? sets->item : NULL,
                      .noverrides = sets ? sets->n : 0};
  csError err;
  memset(&err, 0, sizeof(err));
  csModel* m = cs_loadSceneString(text, cs_cliSceneName(path), &lo, &err);
  if (!m) {
    if (!err.file[0]) {
      snprintf(err.file, sizeof(err.file), "%s", cs_cliSceneName(path));
    }
    cs_cliPrintError(&err);
  }
  return m;
}


int cs_cliAddSet(csCliSets* sets, const char* arg) {
  const char* eq = strchr(arg, '=');
  if (!eq || eq == arg) {
    fprintf(stderr, "contactsim: error: --set needs KEY=VALUE (e.g. bodies.block.mass=2), not "
                    "'%s'\n", cs_cliSafe(arg));
    return -1;
  }
  if (sets->n == sets->cap) {
    int cap = sets->cap ? 2 * sets->cap : 8;
    csOverride* grown = realloc(sets->item, sizeof(csOverride) * (size_t)cap);
    if (!grown) {
      fprintf(stderr, "contactsim: error: out of memory\n");
      return -1;
    }
    sets->item = grown;
    sets->cap = cap;
  }
  // one copy holds both: the key ends where the '=' was
  char* copy = strdup(arg);
  if (!copy) {
    fprintf(stderr, "contactsim: error: out of memory\n");
    return -1;
  }
  copy[eq - arg] = '\0';
  sets->item[sets->n].key = copy;
  sets->item[sets->n].value = copy + (eq - arg) + 1;
  sets->n++;
  return 0;
}


void cs_cliFreeSets(csCliSets* sets) {
  for (int i = 0; i < sets->n; i++) {
    free((char*)sets->item[i].key);
  }
  free(sets->item);
  memset(sets, 0, sizeof(*sets));
}


// monotonic wall-clock seconds, used only to pace the progress bar, never for statistics
static double wallSeconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}


// CSV rows leave the process whole. A stdio stream writes when its buffer (4096 bytes) fills,
// in the middle of a row, so a run killed between two such writes ended its CSV in a torn row.
// Rows are therefore formatted into a block of our own and the block goes out in one write(2)
// of complete rows: when the next row would take it past CSV_BLOCK bytes (PIPE_BUF on a pipe,
// where writes up to that size are atomic: a reader never sees half of one), when its oldest row
// has waited CSV_FLUSH_SECONDS of wall time, whether or not another row comes (the flusher
// thread below: so that a reader following the file sees it grow, and a kill -9 loses at most
// the rows of the last quarter second), and when the run ends; the first row goes out at once.
// One write per row was rejected: measured, it adds about a tenth to the CSV's cost (5 us per
// write against 46 us to format a row of 30 numbers), and the CSV is a large share of a run's
// time.
// What remains: Linux stops a write(2) to a regular file that SIGKILL interrupts at the next page
// of the file, so a kill -9 during the call (tens of microseconds for a block) can leave a last
// line cut at a multiple of 4096 bytes (docs/cli.md; tests/test_cli.py checks exactly that).
#define CSV_BLOCK 65536
#define CSV_FLUSH_SECONDS 0.25

typedef struct CsvBlock {
  int fd;                 // -1: no CSV
  char* buf;              // (cap) formatted rows not yet written
  size_t cap, len;
  size_t limit;           // write before a row would take len past this
  double oldest;          // wall time at which the oldest row in buf was formatted, s
  long nrow;              // rows added so far (the header not counted)
  int failed;             // errno of a write the flusher could not make (0: none)
} CsvBlock;


// write the first n bytes of the block (complete rows) and keep the rest; 0 or -1 (errno set).
// A write that fails part way (a full disk takes what fits, then ENOSPC) is undone in a file
// that can seek, so that it still ends with a complete row; a pipe never takes part of a write
// of up to PIPE_BUF bytes, the most a block holds there, unless one row is longer (a block then
// holds that row alone, and a pipe may take part of it before a kill -9 or a second signal).
static int blockWrite(CsvBlock* b, size_t n) {
  size_t done = 0;
  off_t start = lseek(b->fd, 0, SEEK_CUR);
  while (done < n) {
    ssize_t w = write(b->fd, b->buf + done, n - done);
    if (w < 0 && errno == EINTR) {
      continue;
    }
    if (w <= 0) {
      int saved = w < 0 ? errno : EIO;
      if (done > 0 && start >= 0 && ftruncate(b->fd, start) == 0) {
        lseek(b->fd, start, SEEK_SET);
      }
      errno = saved;
      return -1;
    }
    done += (size_t)w;
  }
  memmove(b->buf, b->buf + n, b->len - n);
  b->len -= n;
  return 0;
}


// append the header (d NULL) or a row to the block, writing the block first or after as above;
// 0 or -1 on a write error or when memory runs out
static int blockAppend(CsvBlock* b, const csModel* m, csData* d, const csCsvOptions* opt) {
  // a write the flusher could not make fails the row after it, with its reason
  if (b->failed) {
    errno = b->failed;
    return -1;
  }
  size_t room = b->cap - b->len;
  size_t n = d ? cs_csvFormatRow(b->buf + b->len, room, m, d, opt)
               : cs_csvFormatHeader(b->buf + b->len, room, m, opt);
  if (n >= room) {
    // it did not fit: write what is there, grow when one line is longer than the whole block
    if (b->len > 0 && blockWrite(b, b->len) != 0) {
      return -1;
    }
    if (n + 1 > b->cap) {
      char* grown = realloc(b->buf, n + 1);
      if (!grown) {
        return -1;
      }
      b->buf = grown;
      b->cap = n + 1;
    }
    n = d ? cs_csvFormatRow(b->buf, b->cap, m, d, opt) : cs_csvFormatHeader(b->buf, b->cap, m, opt);
  }
  double now = wallSeconds();
  if (b->len == 0) {
    b->oldest = now;
  }
  // the rows before this one go out first when this one would take the block past its limit
  if (b->len > 0 && b->len + n > b->limit) {
    b->len += n;
    if (blockWrite(b, b->len - n) != 0) {
      return -1;
    }
    b->oldest = now;
  } else {
    b->len += n;
  }
  // the first row goes out at once, as the header did: the next report may be far off
  int first = d && b->nrow++ == 0;
  if (first || b->len >= b->limit || now - b->oldest >= CSV_FLUSH_SECONDS) {
    return blockWrite(b, b->len);
  }
  return 0;
}


// The flusher: a thread that writes a block once its oldest row has waited CSV_FLUSH_SECONDS,
// whether or not another row comes. Reports may be seconds of wall time apart (a pile of a
// hundred bodies, a long report interval), and a row kept until the next report was lost to a
// kill -9 long after it was formatted. Checking the clock from the step callback was rejected:
// in a scene without contacts the callback costs a realization of the state after every step
// (measured: 4 to 20% of such a run), and one step of a large scene may itself take longer than
// the wait. The thread sleeps until the oldest row is due (a quarter second while the blocks
// are empty), holds the lock only to look and to write, and blocks every signal, which stay the
// main thread's. The right-hand side and the integrator know nothing of it.
typedef struct CsvFlusher {
  pthread_mutex_t lock;   // guards both blocks and quit while the thread runs
  pthread_cond_t wake;    // signalled when the run ends
  pthread_t thread;
  int started;            // 1: the thread runs (0: none could be made; rows go out at reports)
  int quit;               // 1: the run has ended
  CsvBlock* block[2];     // the run's CSV and its second CSV (fd -1: none)
} CsvFlusher;


static void* flushLoop(void* arg) {
  CsvFlusher* fl = arg;
  pthread_mutex_lock(&fl->lock);
  while (!fl->quit) {
    // write the blocks that are due; sleep until the next one is
    double now = wallSeconds(), next = now + CSV_FLUSH_SECONDS;
    for (int i = 0; i < 2; i++) {
      CsvBlock* b = fl->block[i];
      if (b->fd < 0 || b->len == 0 || b->failed) {
        continue;
      }
      if (now - b->oldest >= CSV_FLUSH_SECONDS) {
        b->failed = blockWrite(b, b->len) != 0 ? (errno ? errno : EIO) : 0;
      } else if (b->oldest + CSV_FLUSH_SECONDS < next) {
        next = b->oldest + CSV_FLUSH_SECONDS;
      }
    }
    // the condition's clock is CLOCK_MONOTONIC, wallSeconds' clock
    time_t sec = (time_t)next;
    long nsec = (long)((next - (double)sec) * 1e9);
    struct timespec until = {.tv_sec = sec, .tv_nsec = nsec < 999999999 ? nsec : 999999999};
    pthread_cond_timedwait(&fl->wake, &fl->lock, &until);
  }
  pthread_mutex_unlock(&fl->lock);
  return NULL;
}


// start the flusher of blocks a and b (fd -1: none) when there is a CSV; without a thread the
// rows still go out, at the reports
static void flusherStart(CsvFlusher* fl, CsvBlock* a, CsvBlock* b) {
  memset(fl, 0, sizeof(*fl));
  fl->block[0] = a;
  fl->block[1] = b;
  if (a->fd < 0 && b->fd < 0) {
    return;
  }
  pthread_condattr_t attr;
  if (pthread_condattr_init(&attr) != 0) {
    return;
  }
  int ok = pthread_condattr_setclock(&attr, CLOCK_MONOTONIC) == 0 &&
           pthread_cond_init(&fl->wake, &attr) == 0;
  pthread_condattr_destroy(&attr);
  if (!ok) {
    return;
  }
  if (pthread_mutex_init(&fl->lock, NULL) != 0) {
    pthread_cond_destroy(&fl->wake);
    return;
  }
  // the thread starts with every signal blocked, so that SIGINT and the others reach the
  // main thread's handler
  sigset_t all, old;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &old);
  fl->started = pthread_create(&fl->thread, NULL, flushLoop, fl) == 0;
  pthread_sigmask(SIG_SETMASK, &old, NULL);
  if (!fl->started) {
    pthread_mutex_destroy(&fl->lock);
    pthread_cond_destroy(&fl->wake);
  }
}


// the run has ended: the thread goes, leaving the blocks to the caller
static void flusherStop(CsvFlusher* fl) {
  if (!fl->started) {
    return;
  }
  pthread_mutex_lock(&fl->lock);
  fl->quit = 1;
  pthread_cond_signal(&fl->wake);
  pthread_mutex_unlock(&fl->lock);
  pthread_join(fl->thread, NULL);
  pthread_mutex_destroy(&fl->lock);
  pthread_cond_destroy(&fl->wake);
  fl->started = 0;
}


// what the reporter of a run needs
// (the reporter's ctx; it lives on the stack of cs_cliSimulate for the length of one run)
typedef struct RunOutput {
  csCliRun* run;          // the run being simulated (its track is filled here)
  csMetrics* metrics;
  CsvBlock csv;           // fd -1 without a CSV
  int csv_errno;          // why a row could not be written (0: it could), for the message
  const csCsvOptions* csv_opt;
  CsvBlock also;          // the second CSV (fd -1: none)
  const csCsvOptions* also_opt;
  CsvFlusher flusher;     // writes the rows that have waited, between reports
  int also_failed;        // 1: the row that could not be written was the second CSV's
  int progress;           // draw a progress bar on stderr
  double wall0, last_draw;
  int drawn;
} RunOutput;


// report callback: one CSV row when there is a CSV, and the report-time statistics (energy
// balance); a nonzero return stops the run with an I/O error
static int writeRow(void* ctx, const csModel* m, csData* d) {
  RunOutput* out = ctx;
  // the blocks are shared with the flusher
  if (out->flusher.started) {
    pthread_mutex_lock(&out->flusher.lock);
  }
  int r = out->csv.fd >= 0 ? blockAppend(&out->csv, m, d, out->csv_opt) : 0;
  if (r == 0 && out->also.fd >= 0) {
    r = blockAppend(&out->also, m, d, out->also_opt);
    out->also_failed = r != 0;
  }
  if (r != 0) {
    out->csv_errno = errno ? errno : EIO;
  }
  if (out->flusher.started) {
    pthread_mutex_unlock(&out->flusher.lock);
  }
  cs_metricsReport(out->metrics, m, d);
  // the body origins and centres of mass, for a convergence check that compares runs report
  // by report
  csCliRun* run = out->run;
  if (run->track && run->track_used < run->track_rows) {
    double* row = run->track + (size_t)run->track_used++ * cs_cliTrackWidth(m);
    row[0] = d->t;
    cs_realizePosition(m, d);
    for (int b = 1; b < m->nbody; b++) {
      csu_vec3ToArray(row + 1 + 6 * (b - 1), d->body_pose[b].p);
      csu_vec3ToArray(row + 4 + 6 * (b - 1), d->body_com[b]);
    }
  }
  // the state of this report and the statistics up to it, for an interrupted run to go back to
  // (copies; the statistics' arrays are made at the first report)
  if (run->checkpoint) {
    cs_copyState(m, run->checkpoint, d);
    run->report_kept = cs_metricsSave(&run->report_metrics, out->metrics) == 0;
  }
  return r;
}


// step callback: the per-step contact statistics (peaks, sliding, drift while stuck)
static void sampleStep(void* ctx, const csModel* m, csData* d) {
  RunOutput* out = ctx;
  cs_metricsStep(out->metrics, m, d);
}


// a bar, drawn only for runs that take longer than half a second of wall time
static void drawProgress(void* ctx, double t, double duration) {
  RunOutput* out = ctx;
  if (!out->progress) {
    return;
  }
  // the half-second grace keeps short runs (and tests) free of bar output; redrawing at most
  // every 0.1 s keeps terminal traffic small for runs of millions of steps
  double now = wallSeconds();
  if (now - out->wall0 < 0.5 || now - out->last_draw < 0.1) {
    return;
  }
  out->last_draw = now;
  int width = 40, filled = (int)(width * t / duration);
  // a carriage return without a newline: each draw overwrites the previous one
  fprintf(stderr, "\r[%.*s%*s] %5.1f%%  t = %.4g s", filled,
          "########################################", width - filled, "", 100 * t / duration, t);
  out->drawn = 1;
}


// the layout of cs_cliPrintError, into a buffer for the JSON, CSV and table outputs; each part
// is appended only while there is room, and snprintf truncates the last one
void cs_cliFormatError(const csError* err, char* buf, size_t size) {
  size_t len = 0;
  int n;
  buf[0] = '\0';
  if (err->file[0]) {
    // a column that is not known (0) is left out: FILE:LINE: still takes an editor there
    n = err->line > 0 && err->column > 0
            ? snprintf(buf, size, "%s:%d:%d: ", err->file, err->line, err->column)
        : err->line > 0 ? snprintf(buf, size, "%s:%d: ", err->file, err->line)
                        : snprintf(buf, size, "%s: ", err->file);
    len = n > 0 ? (size_t)n : 0;
  }
  if (err->path[0] && len < size) {
    n = snprintf(buf + len, size - len, "%s%s: ", err->override ? "--set " : "", err->path);
    len += n > 0 ? (size_t)n : 0;
  }
  if (len < size) {
    snprintf(buf + len, size - len, "%s", err->message);
  }
}


// The statistics are fed by the reporter's step and report callbacks rather than computed from
// the CSV afterwards: the CSV is optional (compare may write none), and the step callback sees
// every step, where the CSV holds only the report times.
void cs_cliSimulate(csCliRun* r, FILE* csv, const csCsvOptions* csvopt, int progress) {
  cs_cliSimulateTwo(r, csv, csvopt, NULL, NULL, progress);
}


// a CSV sink for the run: the stream's descriptor, written in blocks (a pipe's at most PIPE_BUF
// bytes), its buffered contents flushed first; 0, or -1 when it cannot be set up
static int blockOpen(CsvBlock* b, FILE* f) {
  struct stat st;
  int pipe = fstat(fileno(f), &st) == 0 && S_ISFIFO(st.st_mode);
  b->fd = fileno(f);
  b->cap = CSV_BLOCK;
  b->limit = pipe ? PIPE_BUF : CSV_BLOCK;
  b->buf = malloc(b->cap);
  return fflush(f) != 0 || !b->buf ? -1 : 0;
}


// the header, written out at once
static int blockHeader(CsvBlock* b, const csModel* m, const csCsvOptions* opt) {
  return blockAppend(b, m, NULL, opt) != 0 || blockWrite(b, b->len) != 0 ? -1 : 0;
}


void cs_cliSimulateTwo(csCliRun* r, FILE* csv, const csCsvOptions* csvopt, FILE* also,
                       const csCsvOptions* alsoopt, int progress) {
  // reset the outcome; the model and the options were set by the caller
  memset(&r->err, 0, sizeof(r->err));
  r->status = CS_OK;
  r->output_errno = 0;
  r->cpu_seconds = 0;
  r->track_used = 0;
  r->d = cs_makeData(r->m);
  // a checkpoint to start from, before anything reads the initial state
  if (r->d && r->initial_data) {
    cs_copyState(r->m, r->d, r->initial_data);
  } else if (r->d && r->initial_state) {
    int st = cs_loadState(r->m, r->d, r->initial_state, &r->err);
    if (st != CS_OK) {
      r->status = st == CS_ERR_MEMORY ? st : CS_ERR_INPUT;
      cs_deleteData(r->d);
      r->d = NULL;
      return;
    }
  }
  r->t_start = r->d ? r->d->t : 0.0;
  if (r->d) {
    r->checkpoint = cs_makeData(r->m);
    if (r->checkpoint) {
      cs_copyState(r->m, r->checkpoint, r->d);
    }
  }
  // a perturbed initial state, before the statistics record the initial energy
  if (r->d && r->perturb_u != 0) {
    for (int i = 0; i < r->m->nu; i++) {
      r->d->u[i] += r->perturb_u;
    }
    cs_invalidate(r->d);
  }
  if (!r->d || cs_metricsInit(&r->metrics, r->m, r->d) != 0) {
    r->status = CS_ERR_MEMORY;
    snprintf(r->err.message, sizeof(r->err.message), "out of memory setting up the run");
  }
  // the reporter's context, on this stack frame for the whole run; the CSV is written to the
  // stream's descriptor directly (whatever the stream holds goes first), in blocks of rows
  RunOutput out = {.run = r, .metrics = &r->metrics, .csv_opt = csvopt, .also_opt = alsoopt,
                   .progress = progress, .wall0 = wallSeconds()};
  out.csv.fd = -1;
  out.also.fd = -1;
  if (r->status == CS_OK && ((csv && blockOpen(&out.csv, csv) != 0) ||
                             (also && blockOpen(&out.also, also) != 0))) {
    r->status = CS_ERR_IO;
    r->output_errno = errno ? errno : EIO;
  }
  // the headers go out before the run, so that a run failing at its first step still leaves
  // well-formed CSVs
  int headerFailed = r->status == CS_OK && csv && blockHeader(&out.csv, r->m, csvopt) != 0;
  int alsoFailed = r->status == CS_OK && !headerFailed && also &&
                   blockHeader(&out.also, r->m, alsoopt) != 0;
  if (headerFailed || alsoFailed) {
    r->status = CS_ERR_IO;
    int e = errno ? errno : EIO;
    r->output_errno = e;
    const char* name = alsoFailed ? "the replay page's scratch CSV (beside the page)"
                                  : r->csv_name;
    snprintf(r->err.message, sizeof(r->err.message),
             "the CSV header could not be written%s%s: %s", name ? " to " : "", name ? name : "",
             strerror(e));
  }
  // integrate; from here on any error is the integrator's (with the time it stopped at); a stop
  // signal ends the run before its next step
  int stopped = 0;  // the integration was interrupted (whatever the writing of its rows did)
  if (r->status == CS_OK) {
    // a scene without contacts has nothing to sample after a step: no hook, and so no
    // realization after every step only for it
    flusherStart(&out.flusher, &out.csv, &out.also);
    csReporter rep = {.report = writeRow,
                      .step = cs_metricsSamplesSteps(&r->metrics) ? sampleStep : NULL,
                      .progress = drawProgress,
                      .ctx = &out, .stop = &cs_cliStopSignal};
    r->status = cs_simulate(r->m, r->d, &r->opt, &rep, &r->err);
    stopped = r->status == CS_STOPPED;
    flusherStop(&out.flusher);
    r->output_errno = out.csv_errno;
    // a report the CSV could not take: the library knows only that the reporter refused, the
    // reason (a full disk, a reader that went away) is ours
    if (r->status == CS_ERR_IO && out.csv_errno) {
      snprintf(r->err.message, sizeof(r->err.message),
               "the %s could not be written%s%s at t = %.9g s: %s",
               out.also_failed ? "replay page's scratch CSV (every column, beside the page)"
                               : "CSV",
               !out.also_failed && r->csv_name ? " to " : "",
               !out.also_failed && r->csv_name ? r->csv_name : "", r->d->t,
               strerror(out.csv_errno));
    }
  }
  // the rows still in the block, whatever ended the run
  CsvBlock* blocks[2] = {&out.csv, &out.also};
  // (after a failed simulation too: its CSV then lacks rows, which output_errno says)
  for (int i = 0; i < 2; i++) {
    if (blocks[i]->buf && blocks[i]->len > 0 && blockWrite(blocks[i], blocks[i]->len) != 0) {
      int e = errno ? errno : EIO;
      r->output_errno = r->output_errno ? r->output_errno : e;
      if (r->status == CS_OK || r->status == CS_STOPPED) {
        r->status = CS_ERR_IO;
        const char* name = i == 0 ? r->csv_name : "the replay page's scratch copy";
        snprintf(r->err.message, sizeof(r->err.message), "the CSV could not be written%s%s: %s",
                 name ? " to " : "", name ? name : "", strerror(e));
      }
    }
    free(blocks[i]->buf);
  }
  // wipe the progress bar, so that what follows starts on a clean line
  if (out.drawn) {
    fprintf(stderr, "\r%*s\r", 70, "");
  }
  // An interrupted run goes back to its last row, where its checkpoint is and a continued run
  // starts, as a simulation of the library stopped on request goes back to its last report: the
  // summary described the state its groups had reached, each at its own time (a hundred blocks,
  // some at the next report, others not yet past the last), and counted the motion after the
  // row, which the continued run then counted again. (Also when the rows left to write then
  // failed, its status an output error. A failed run's statistics cover the part that ran, as
  // the library's do.)
  if (r->report_kept && stopped) {
    cs_copyState(r->m, r->d, r->checkpoint);
    cs_metricsRestore(&r->metrics, &r->report_metrics);
  }
  if (r->d) {
    // the state reached (for a failed run: the last one the integrator accepted)
    // realized again, so that the final statistics do not depend on the stage the integrator
    // left the data in
    cs_realizeDynamics(r->m, r->d);
    cs_metricsFinish(&r->metrics, r->m, r->d);
    r->cpu_seconds = r->d->stat.cpu_seconds;
  }
  // an interrupted run says by what, where
  if (r->status == CS_STOPPED) {
    snprintf(r->err.message, sizeof(r->err.message), "interrupted by %s at t = %.9g s",
             cs_cliSignalName(cs_cliStopSignal), cs_cliSimulatedTime(r));
  }
  // a failure names the scene file, like a load error
  if (r->status != CS_OK && !r->err.file[0]) {
    snprintf(r->err.file, sizeof(r->err.file), "%s", r->m->file);
  }
}


// the delete functions accept NULL, so a run that never got data is freed the same way;
// the pointers are cleared so that a second call is harmless
void cs_cliFreeRun(csCliRun* r) {
  cs_metricsFree(&r->metrics);
  cs_metricsSavedFree(&r->report_metrics);
  cs_deleteData(r->d);
  cs_deleteData(r->checkpoint);
  cs_deleteData(r->initial_data);
  cs_deleteModel(r->m);
  free(r->track);
  r->checkpoint = NULL;
  r->initial_data = NULL;
  r->d = NULL;
  r->m = NULL;
  r->track = NULL;
}


// Adams (fixed-point iteration) and rk need no linear solver, ark solves densely with the
// Jacobian of the positions and speeds; BDF reports the solver the run used, and a run without
// data reports dense, what the automatic choice starts from
const char* cs_cliLinearSolverName(const csCliRun* r) {
  return cs_linearSolverUsed(&r->opt, r->d);
}


// the contact lines of the summary: penetration, normal forces, sliding
static void contactSummary(const csCliRun* r) {
  const csMetrics* mt = &r->metrics;
  const csModel* m = r->m;
  // a scene without contact elements gets no contact lines at all
  if (mt->ncontact == 0) {
    return;
  }
  // where the deepest penetration and the largest normal forces were
  int deepest = 0, strongest = 0, strongestSet = -1;
  for (int i = 1; i < mt->ncontact; i++) {
    if (mt->contact[i].max_penetration > mt->contact[deepest].max_penetration) {
      deepest = i;
    }
    if (mt->contact[i].peak_fn > mt->contact[strongest].peak_fn) {
      strongest = i;
    }
  }
  for (int s = 0; s < mt->nset; s++) {
    if (strongestSet < 0 || mt->set_peak[s] > mt->set_peak[strongestSet]) {
      strongestSet = s;
    }
  }
  // the peak is given per contact set when there are sets: the corners of a foot share the load,
  // and their sum is what compares with the body's weight; the largest single element is printed
  // beside it
  fprintf(stderr, "  contacts (%s): max penetration %.4g m (%s); peak normal force %.4g N",
          cs_cliSafe(r->model), mt->max_penetration,
          cs_cliSafe(m->force[mt->contact[deepest].force].name), mt->peak_normal_force);
  // (the overall peak is a set's sum, or a lone element's when one outside the sets pushed
  // harder than any set)
  if (strongestSet >= 0 && mt->set_peak[strongestSet] >= mt->peak_normal_force) {
    fprintf(stderr, " (sum over contact set %s), %.4g N on one element (%s)",
            cs_cliSafe(m->group_name[strongestSet]), mt->contact[strongest].peak_fn,
            cs_cliSafe(m->force[mt->contact[strongest].force].name));
  } else {
    fprintf(stderr, " (%s)", cs_cliSafe(m->force[mt->contact[strongest].force].name));
    if (strongestSet >= 0) {
      fprintf(stderr, ", %.4g N summed over contact set %s",
              mt->set_peak[strongestSet], cs_cliSafe(m->group_name[strongestSet]));
    }
  }
  // sliding and drift while stuck (defined in metrics.h), then the worst energy balance seen
  fprintf(stderr, "\n  sliding %.4g m in total, %.4g m of it while stuck (%ld of %ld steps with "
                  "a mean slip speed below %.3g m/s); energy balance error %.3g (max over "
                  "reports, relative)\n",
          mt->sliding_distance, mt->stuck_drift, mt->nstuck, mt->nsteps, mt->stick_speed,
          mt->energy_error);
}


// what the run cost (CPU time, solver counters), where the energy went, and what looked wrong;
// all on stderr, so that the CSV on stdout stays clean
void cs_cliSummary(const csCliRun* r) {
  const csModel* m = r->m;
  const csData* d = r->d;
  const csStats* s = &d->stat;
  double simulated = d->t;
  // how it ended: finished, interrupted (by which signal) or stopped by a failure
  char ended[64];
  if (r->status == CS_STOPPED) {
    snprintf(ended, sizeof(ended), "interrupted by %s", cs_cliSignalName(cs_cliStopSignal));
  } else {
    snprintf(ended, sizeof(ended), "%s", r->status == CS_OK ? "finished" : "stopped");
  }
  fprintf(stderr, "contactsim: %s: %s at t = %.6g s; %.4g s CPU for the integration",
          cs_cliSafe(m->name), ended, simulated, r->cpu_seconds);
  // the cost per simulated second is the figure that compares runs of different lengths
  if (cs_cliSimulatedSpan(r) > 0) {
    fprintf(stderr, " (%.4g CPU s per simulated s)", r->cpu_seconds / cs_cliSimulatedSpan(r));
  }
  // the integrator's counters; the last step size shows how short the steps had become at the end
  fprintf(stderr, "\n  steps %ld, RHS evaluations %ld (+%ld for Jacobians), Jacobians %ld, "
                  "error-test failures %ld, nonlinear failures %ld, last step %.3g s, "
                  "linear solver %s\n",
          s->nsteps, s->nrhs, s->nrhs_jac, s->njac, s->netf, s->nncf, s->last_step,
          cs_cliLinearSolverName(r));
  // energy audit: KE + PE + dissipated should keep its initial value; relative to the scale
  // energy_error uses (the largest energy the balance held), which a total of zero (a body at
  // rest at the zero of its potential) does not make meaningless
  double e0 = r->metrics.e0;
  double ke = cs_kineticEnergy(m, d), pe = cs_potentialEnergy(m, d);
  double w = cs_dissipatedEnergy(m, d);
  double drift = ke + pe + w - r->metrics.e_edit - e0;
  double scale = fmax(cs_metricsEnergyScale(&r->metrics), fabs(ke) + fabs(pe) + fabs(w));
  if (isfinite(drift)) {
    fprintf(stderr, "  energy: KE %.6g J, PE %.6g J, dissipated %.6g J; KE+PE+dissipated drifted "
                    "%.3g J (%.2g relative) since the start\n",
            ke, pe, w, drift, drift / scale);
  } else {
    fprintf(stderr, "  energy: not finite in the state the run %s\n",
            r->status == CS_OK ? "ended in" : "stopped in");
  }
  contactSummary(r);
  // exponential springs break the balance by design (their anchors jump between steps): say so,
  // rather than let the drift look like a fault of the integration
  int hasExp = 0;
  for (int e = 0; e < m->nforce; e++) {
    hasExp |= m->force[e].kind == CS_FORCE_EXP_SPRING;
  }
  if (hasExp) {
    fprintf(stderr, "  note: exponential springs move their friction anchors between steps; the "
                    "elastic energy that such a move releases is not counted as dissipated, so "
                    "sliding shows up as drift\n");
  }
  // diagnostics from the statistics, the integrator's own warnings among them
  for (int i = 0; i < r->metrics.nnotes; i++) {
    fprintf(stderr, "  warning: %s\n", cs_cliSafe(r->metrics.notes[i]));
  }
}


// how far a run got, s; 0 when it never got data (out of memory)
double cs_cliSimulatedTime(const csCliRun* r) {
  return r->d ? r->d->t : 0.0;
}


// a run continued from a checkpoint simulated from the checkpoint's time on
double cs_cliSimulatedSpan(const csCliRun* r) {
  return r->d ? r->d->t - r->t_start : 0.0;
}


// ---------------------------------------------------------------------------------------------
// signals
//
// The library installs no handler (a program embedding it owns its signals): the command line
// catches SIGINT, SIGTERM and SIGHUP and hands the flag to cs_simulate as csReporter.stop, so
// that an interrupted run ends after its step in progress with every row due written, the
// summary printed and the exit status 128 + signal, as a shell reports a signal. A second
// signal means "now": the handler removes the temporary file being written, if any, and ends
// the process with _exit (both async-signal-safe); the CSV then ends at the last block written,
// which holds only complete rows (on a pipe, a row longer than PIPE_BUF may be cut: cli.md).

volatile sig_atomic_t cs_cliStopSignal = 0;
// the temporary files to remove on a second signal ("" for none); written only outside the
// handler (with the signals blocked), read inside it
static char temporaryFile[CS_CLI_NTEMPORARY][CS_CLI_MAX_FILE + 32];


static void onSignal(int sig) {
  if (cs_cliStopSignal) {
    for (int i = 0; i < CS_CLI_NTEMPORARY; i++) {
      if (temporaryFile[i][0]) {
        unlink(temporaryFile[i]);
      }
    }
    _exit(128 + sig);
  }
  cs_cliStopSignal = sig;
}


static void catchSignals(int restart);

void cs_cliCatchSignals(void) {
  catchSignals(1);
}


void cs_cliCatchSignalsWhileOpening(void) {
  catchSignals(0);
}


void cs_cliDefaultSignals(void) {
  struct sigaction sa;
  memset(&sa, 0, sizeof(sa));
  sa.sa_handler = SIG_DFL;
  cs_cliSetStopAction(&sa);
}


int cs_cliStoppedBeforeStart(const char* what) {
  if (!cs_cliStopSignal) {
    return 0;
  }
  fprintf(stderr, "contactsim: %s: interrupted by %s before the run began; nothing was "
          "written\n", cs_cliSafe(cs_cliSceneName(what)), cs_cliSignalName(cs_cliStopSignal));
  return 128 + cs_cliStopSignal;
}


static const int stopSigs[3] = {SIGINT, SIGTERM, SIGHUP};


void cs_cliStopSet(sigset_t* set) {
  static int known = 0;
  static sigset_t acted;
  if (!known) {
    sigemptyset(&acted);
    for (int i = 0; i < 3; i++) {
      struct sigaction old;
      if (sigaction(stopSigs[i], NULL, &old) != 0 || old.sa_handler != SIG_IGN) {
        sigaddset(&acted, stopSigs[i]);
      }
    }
    known = 1;
  }
  *set = acted;
}


void cs_cliSetStopAction(const struct sigaction* sa) {
  sigset_t acted;
  cs_cliStopSet(&acted);
  for (int i = 0; i < 3; i++) {
    if (sigismember(&acted, stopSigs[i]) == 1) {
      sigaction(stopSigs[i], sa, NULL);
    }
  }
}


static void catchSignals(int restart) {
  struct sigaction sa;
  memset(&sa, 0, sizeof(sa));
  sa.sa_handler = onSignal;
  // the stop signals are blocked while the handler runs, so that it sees them in turn
  cs_cliStopSet(&sa.sa_mask);
  // SA_RESTART: a write blocked on a full pipe carries on rather than failing with EINTR
  sa.sa_flags = restart ? SA_RESTART : 0;
  cs_cliSetStopAction(&sa);
  // (SIGPIPE is ignored for the whole program, main.c: a reader that goes away makes the next
  // CSV write fail with EPIPE, an output error like any other)
}


int cs_cliStopStatus(void) {
  return 128 + (int)cs_cliStopSignal;
}


const char* cs_cliSignalName(int sig) {
  static char buf[32];
  switch (sig) {
    case SIGINT: return "SIGINT";
    case SIGTERM: return "SIGTERM";
    case SIGHUP: return "SIGHUP";
    default: snprintf(buf, sizeof(buf), "signal %d", sig); return buf;
  }
}


void cs_cliTemporaryFile(int slot, const char* path) {
  // blocked while the name changes, so that the handler never reads half a name
  sigset_t block, old;
  cs_cliStopSet(&block);
  sigprocmask(SIG_BLOCK, &block, &old);
  snprintf(temporaryFile[slot], sizeof(temporaryFile[slot]), "%s", path ? path : "");
  sigprocmask(SIG_SETMASK, &old, NULL);
}


// ---------------------------------------------------------------------------------------------
// outputs: never the scene, never one another, nothing truncated until everything opened

// the absolute name of path without resolving its last component: its directory's real path
// and its base name (a file that does not exist yet has no real path of its own; a symbolic
// link to nothing stands for the name it points to, which writing it creates); "" when the
// directory does not exist
static void canonicalName(const char* path, char* out, size_t size) {
  char end[PATH_MAX];
  if (csu_danglingLinkTarget(path, end, sizeof(end))) {
    path = end;
  }
  char dir[PATH_MAX];
  const char* slash = strrchr(path, '/');
  const char* base = slash ? slash + 1 : path;
  if (!slash) {
    snprintf(dir, sizeof(dir), ".");
  } else if (slash == path) {
    snprintf(dir, sizeof(dir), "/");
  } else {
    snprintf(dir, sizeof(dir), "%.*s", (int)(slash - path), path);
  }
  char real[PATH_MAX];
  if (!realpath(dir, real)) {
    out[0] = '\0';
    return;
  }
  int n = snprintf(out, size, "%s/%s", strcmp(real, "/") == 0 ? "" : real, base);
  if (n < 0 || (size_t)n >= size) {
    out[0] = '\0';  // too long to compare
  }
}


int cs_cliSameFile(const char* a, const char* b) {
  struct stat sa, sb;
  int ea = stat(a, &sa) == 0, eb = stat(b, &sb) == 0;
  if (ea && eb) {
    return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
  }
  if (ea || eb) {
    return 0;  // one exists and the other does not
  }
  char ca[PATH_MAX + 256], cb[PATH_MAX + 256];
  canonicalName(a, ca, sizeof(ca));
  canonicalName(b, cb, sizeof(cb));
  return ca[0] && strcmp(ca, cb) == 0;
}


int cs_cliIsScene(const char* path, const char* scene) {
  if (strcmp(scene, "-") != 0) {
    return cs_cliSameFile(path, scene);
  }
  // standard input redirected from a file (`run - -o sc.json < sc.json`) is that file; a pipe or
  // a terminal is no file an output could name
  struct stat in, st;
  return fstat(STDIN_FILENO, &in) == 0 && S_ISREG(in.st_mode) && stat(path, &st) == 0 &&
         in.st_dev == st.st_dev && in.st_ino == st.st_ino;
}


int cs_cliSameOutput(const char* a, const char* b) {
  // a device such as /dev/null may be named twice
  struct stat st;
  return (stat(a, &st) != 0 || S_ISREG(st.st_mode)) && cs_cliSameFile(a, b);
}


int cs_cliIsStandardOutput(const char* path) {
  struct stat out, st;
  return strcmp(path, "-") != 0 && fstat(STDOUT_FILENO, &out) == 0 && !S_ISCHR(out.st_mode) &&
         stat(path, &st) == 0 && out.st_dev == st.st_dev && out.st_ino == st.st_ino;
}


int cs_cliStandardOutputIsInput(const char* what, const char* path) {
  // for "-", standard input redirected from the file standard output goes to
  if (strcmp(path, "-") == 0 ? !cs_cliIsScene("/dev/stdout", "-") : !cs_cliIsStandardOutput(path)) {
    return 0;
  }
  fprintf(stderr, "contactsim: error: standard output goes to the %s file %s, which the command "
          "reads; send standard output elsewhere\n", what,
          strcmp(path, "-") == 0 ? "standard input comes from" : cs_cliSafe(path));
  return 1;
}


int cs_cliOpenOutputs(const char* scene, const char* const* paths, const char* const* options,
                      FILE** files, int n, unsigned checkOnly) {
  for (int i = 0; i < n; i++) {
    files[i] = NULL;
  }
  // 1. clashes, before anything is opened
  for (int i = 0; i < n; i++) {
    if (!paths[i]) {
      continue;
    }
    if (cs_cliIsScene(paths[i], scene)) {
      fprintf(stderr, "contactsim: error: %s is the scene file; refusing to write over it\n",
              cs_cliSafe(paths[i]));
      return -1;
    }
    for (int j = 0; j < i; j++) {
      if (paths[j] && cs_cliSameOutput(paths[i], paths[j])) {
        fprintf(stderr, "contactsim: error: %s %s and %s %s are the same file; give each output "
                "a file of its own\n", options[j], cs_cliSafe(paths[j]), options[i],
                cs_cliSafe(paths[i]));
        return -1;
      }
    }
  }
  // 2. open every one without truncating it, creating the missing ones (noted, so that a
  // failure can remove them again: made[i] is the name created)
  int fd[8], created[8];
  char made[8][PATH_MAX];
  int ok = n <= 8;
  for (int i = 0; i < n; i++) {
    fd[i] = -1;
    created[i] = 0;
  }
  for (int i = 0; ok && i < n; i++) {
    if (!paths[i]) {
      continue;
    }
    snprintf(made[i], sizeof(made[i]), "%s", paths[i]);
    fd[i] = open(paths[i], O_WRONLY | O_CREAT | O_EXCL | O_NOCTTY | O_CLOEXEC, 0666);
    created[i] = fd[i] >= 0;
    if (fd[i] < 0 && errno == EEXIST) {
      fd[i] = open(paths[i], O_WRONLY | O_NOCTTY | O_CLOEXEC);
    }
    // O_EXCL refuses every symbolic link; one to nothing yet is written through, creating its
    // target, as --save-state, cp and shell redirection do (and the target is what a failure
    // removes, not the link)
    if (fd[i] < 0 && errno == ENOENT &&
        csu_danglingLinkTarget(paths[i], made[i], sizeof(made[i]))) {
      fd[i] = open(made[i], O_WRONLY | O_CREAT | O_EXCL | O_NOCTTY | O_CLOEXEC, 0666);
      created[i] = fd[i] >= 0;
    }
    struct stat st;
    if (fd[i] >= 0 && fstat(fd[i], &st) == 0 && S_ISDIR(st.st_mode)) {
      close(fd[i]);
      fd[i] = -1;
      errno = EISDIR;
    }
    if (fd[i] < 0) {
      fprintf(stderr, "contactsim: error: cannot write %s: %s\n", cs_cliSafe(paths[i]),
              strerror(errno));
      ok = 0;
    }
  }
  // 3. all open: truncate the regular files and wrap the descriptors; otherwise undo. One only
  // checked is closed and, if this call made it, removed again
  for (int i = 0; i < n; i++) {
    if (fd[i] < 0) {
      continue;
    }
    if (ok && (checkOnly >> i) & 1u) {
      close(fd[i]);
      fd[i] = -1;
      if (created[i]) {
        unlink(made[i]);
        created[i] = 0;
      }
      continue;
    }
    struct stat st;
    if (ok && fstat(fd[i], &st) == 0 && S_ISREG(st.st_mode) && ftruncate(fd[i], 0) != 0) {
      fprintf(stderr, "contactsim: error: cannot write %s: %s\n", cs_cliSafe(paths[i]),
              strerror(errno));
      ok = 0;
    }
    files[i] = ok ? fdopen(fd[i], "w") : NULL;
    if (!files[i]) {
      ok = 0;
    }
  }
  if (!ok) {
    for (int i = 0; i < n; i++) {
      if (files[i]) {
        fclose(files[i]);
        files[i] = NULL;
      } else if (fd[i] >= 0) {
        close(fd[i]);
      }
      if (created[i]) {
        unlink(made[i]);
      }
    }
    return -1;
  }
  return 0;
}


// ---------------------------------------------------------------------------------------------
// safe text

const char* cs_cliSafeText(const char* s, char* buf, size_t size) {
  size_t len = 0;
  const unsigned char* p = (const unsigned char*)s;
  while (*p) {
    char esc[8];
    const char* piece = esc;
    size_t n;
    int u = csu_utf8Length(p);
    // C1 controls (U+0080..U+009F) move the cursor on some terminals as C0 ones do
    int c1 = u == 2 && p[0] == 0xc2 && p[1] < 0xa0;
    if (u == 1 && *p >= 0x20 && *p != 0x7f && *p != '\\') {
      piece = (const char*)p;
      n = 1;
    } else if (u > 1 && !c1) {
      piece = (const char*)p;
      n = (size_t)u;
    } else if (*p == '\\') {
      n = (size_t)snprintf(esc, sizeof(esc), "\\\\");
    } else if (*p == '\n') {
      n = (size_t)snprintf(esc, sizeof(esc), "\\n");
    } else if (*p == '\t') {
      n = (size_t)snprintf(esc, sizeof(esc), "\\t");
    } else if (*p == '\r') {
      n = (size_t)snprintf(esc, sizeof(esc), "\\r");
    } else {
      n = (size_t)snprintf(esc, sizeof(esc), "\\x%02x", *p);
    }
    if (len + n + 1 > size) {
      break;
    }
    memcpy(buf + len, piece, n);
    len += n;
    // an escape stands for one byte; a C1 control's second byte is escaped on its own
    p += piece == esc ? 1 : n;
  }
  buf[len] = '\0';
  return buf;
}


const char* cs_cliSafe(const char* s) {
  static char ring[4][CS_CLI_SAFE_LEN];
  static int next = 0;
  char* buf = ring[next];
  next = (next + 1) % 4;
  return cs_cliSafeText(s, buf, CS_CLI_SAFE_LEN);
}


// the test of cs_cliRowsProblem for a run from t0 to the end time o->duration (counted from
// t = 0): the rows it writes are counted from t0, where a run from a checkpoint starts
static int rowsProblem(const csSimOptions* o, double t0, const char* stepName, const char* raise,
                       const char** what, char* why, size_t size) {
  char step[CS_MAX_ERROR];
  if (cs_maxStepProblem(o, step, sizeof(step))) {
    *what = stepName;
    snprintf(why, size, "%s", step);
    return 1;
  }
  if (!(o->report_interval >= CS_MIN_REPORT_INTERVAL)) {
    *what = "simulation.report_interval";
    snprintf(why, size, "the report interval %g s is below the smallest, %g s",
             o->report_interval, CS_MIN_REPORT_INTERVAL);
    return 1;
  }
  // the end as the run reaches it: cs_simulate goes on for the duration left after t0
  double end = t0 + (o->duration - t0);
  // report times beyond 2^52 intervals from 0 cannot be told apart (the run refuses them): no
  // row limit would help there, so that is said first
  if (cs_reportTimesProblem(t0, end, o->report_interval, why, size)) {
    *what = "simulation.report_interval";
    return 1;
  }
  double rows = cs_reportCount(t0, end, o->report_interval);
  long limit = o->max_rows > 0 ? o->max_rows : CS_DEFAULT_MAX_ROWS;
  if (rows > (double)limit) {
    // a count as an integer while it is exact (the end's slack, at most 1e-12 of the run, moves it
    // by less than a row below 1e12 rows), beyond that in three digits
    char count[32], span[96];
    snprintf(count, sizeof(count), rows < 1e12 ? "%.0f" : "%.3g", rows);
    if (t0 == 0) {
      snprintf(span, sizeof(span), "%g s", o->duration);
    } else {
      snprintf(span, sizeof(span), "%g s, from t = %.9g s to %.9g s", end - t0, t0, end);
    }
    *what = "simulation.max_rows";
    snprintf(why, size,
             "the run would write %s report rows (%s, one row every %g s), more than the "
             "limit of %ld; raise it with %s, or report less often",
             count, span, o->report_interval, limit, raise);
    return 1;
  }
  return 0;
}


int cs_cliRowsProblem(const csSimOptions* o, const char* stepName, const char* raise,
                      const char** what, char* why, size_t size) {
  return rowsProblem(o, 0, stepName, raise, what, why, size);
}


int cs_cliCheckRowsFrom(const csSimOptions* o, double t0, const char* path, const char* model,
                        const char* stepName) {
  char who[CS_MAX_NAME + 16] = "";
  if (model) {
    snprintf(who, sizeof(who), " (%s)", model);
  }
  char why[CS_MAX_ERROR];
  const char* what = "";
  // compare has no --max-rows: its runs take the limit from the scene
  if (rowsProblem(o, t0, stepName,
                  model ? "--set simulation.max_rows=N" : "--max-rows N or simulation.max_rows",
                  &what, why, sizeof(why))) {
    // the step's problem is named by the option or key at fault; the others by the sentence
    fprintf(stderr, "contactsim: error: %s%s: %s%s%s\n", cs_cliSafe(cs_cliSceneName(path)), who,
            what == stepName ? stepName : "", what == stepName ? ": " : "", why);
    return -1;
  }
  return 0;
}


int cs_cliCheckRows(const csSimOptions* o, const char* path, const char* model,
                    const char* stepName) {
  return cs_cliCheckRowsFrom(o, 0, path, model, stepName);
}


// create each prefix of path in turn, accepting those that exist, then make sure the whole is a
// directory: mkdir reports EEXIST for a plain file of that name too
int cs_cliMakeDirectory(const char* path) {
  char buf[PATH_MAX];
  // work on a copy, cutting it at each '/' in turn to name the prefix
  if (snprintf(buf, sizeof(buf), "%s", path) >= (int)sizeof(buf)) {
    errno = ENAMETOOLONG;
    return -1;
  }
  for (char* p = buf + 1; *p; p++) {
    if (*p == '/') {
      *p = '\0';
      if (mkdir(buf, 0777) != 0 && errno != EEXIST) {
        return -1;
      }
      *p = '/';
    }
  }
  if (mkdir(buf, 0777) != 0 && errno != EEXIST) {
    return -1;
  }
  // the last component exists now, but it may be a file rather than a directory
  struct stat st;
  if (stat(buf, &st) != 0 || !S_ISDIR(st.st_mode)) {
    errno = ENOTDIR;
    return -1;
  }
  return 0;
}
