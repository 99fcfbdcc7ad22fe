// cmd_run.c: `contactsim run` and `contactsim validate`.
// realpath is an X/Open function
#define _XOPEN_SOURCE 700
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "app/common.h"
#include "app/replay.h"
#include "io/replace_file.h"


// --initial-state: the checkpoint must load into this scene, and its time must come before the
// end time (run->opt.duration, counted from t = 0); kept in run->initial_data, where the run
// starts from
static int checkInitialState(csCliRun* run, const char* state, const char* scene) {
  csData* probe = cs_makeData(run->m);
  csError err;
  memset(&err, 0, sizeof(err));
  int status = probe ? cs_loadState(run->m, probe, state, &err) : CS_ERR_MEMORY;
  double t0 = probe ? probe->t : 0;
  if (status != CS_OK) {
    cs_deleteData(probe);
    if (!err.file[0]) {
      snprintf(err.file, sizeof(err.file), "%s", state);
    }
    cs_cliPrintError(&err);
    return -1;
  }
  double end = run->opt.duration;
  double least = fmax(CS_MIN_DURATION, 1e-12 * (1 + fabs(end)));
  if (!(t0 <= end - least)) {
    // with every digit where nine do not tell the two times apart (4.999999999999999 and 5)
    char a[32], b[32];
    snprintf(a, sizeof(a), "%.9g", t0);
    snprintf(b, sizeof(b), "%.9g", end);
    int all = strcmp(a, b) == 0;
    char when[64] = "at or after";
    if (t0 < end) {
      snprintf(when, sizeof(when), "less than the shortest run (%g s) before", least);
    }
    fprintf(stderr, "contactsim: error: %s: the state is at t = %.*g s, %s the end of the run "
            "of %s (t = %.*g s): give a longer --duration (an end time, counted from t = 0)\n",
            cs_cliSafe(state), all ? 17 : 9, t0, when, cs_cliSafe(scene), all ? 17 : 9, end);
    cs_deleteData(probe);
    return -1;
  }
  // the run starts from this copy: the file is read once (it may be a pipe)
  run->initial_data = probe;
  return 0;
}


// 1 when the temporary name for writing path whole can be created (beside the file path stands
// for: a symbolic link's target): a regular file in a directory that is not writable is written
// in place instead
static int directoryWritable(const char* path) {
  char tmp[PATH_MAX + 32], dir[PATH_MAX + 32];
  if (csu_replaceTemporaryName(path, tmp, sizeof(tmp)) != 0) {
    return 0;
  }
  const char* slash = strrchr(tmp, '/');
  int n = slash ? snprintf(dir, sizeof(dir), "%.*s", (int)(slash - tmp) + 1, tmp)
                : snprintf(dir, sizeof(dir), ".");
  return n > 0 && (size_t)n < sizeof(dir) && access(dir, W_OK) == 0;
}


// --save-state: not the scene or another output, and writable now rather than after a long run
// (the file itself is written at the end, under a temporary name renamed into place)
static int checkSaveState(const char* state, const char* scene, const char* output,
                          const char* stats, const char* replay) {
  if (!state[0]) {
    fprintf(stderr, "contactsim: error: --save-state needs a file name, not an empty one\n");
    return -1;
  }
  // "-" is standard output for -o and --stats; a checkpoint there would go between CSV rows
  if (cs_cliNotStandardOutput("--save-state", state) != 0) {
    return -1;
  }
  // the same file however it is spelled (./scene.json, a link to the CSV)
  const char* others[] = {scene, output, stats, replay};
  const char* what[] = {"scene", "CSV output", "statistics", "replay page"};
  for (int i = 0; i < 4; i++) {
    if (others[i] && (i ? cs_cliSameOutput(state, others[i]) : cs_cliIsScene(state, scene))) {
      fprintf(stderr, "contactsim: error: --save-state %s would overwrite the %s\n",
              cs_cliSafe(state), what[i]);
      return -1;
    }
  }
  struct stat st;
  if (stat(state, &st) == 0 && S_ISDIR(st.st_mode)) {
    fprintf(stderr, "contactsim: error: cannot write the checkpoint %s: it is a directory\n",
            cs_cliSafe(state));
    return -1;
  }
  // a name that cannot be followed (a loop of symbolic links, a folder that cannot be searched,
  // a file where a folder should be) would fail only at the end, after the whole run
  if (stat(state, &st) != 0 && errno != ENOENT) {
    fprintf(stderr, "contactsim: error: cannot write the checkpoint %s: %s\n", cs_cliSafe(state),
            strerror(errno));
    return -1;
  }
  // a device or a pipe is written in place (cs_saveState); opening a pipe here would wait for
  // its reader, so only a regular file's directory is tried, by creating the temporary file
  // cs_saveState will write (next to the file a symbolic link names)
  if (stat(state, &st) == 0 && !S_ISREG(st.st_mode)) {
    return 0;
  }
  // an existing file is replaced keeping its mode, so one that may not be written is refused
  // (csu_replaceOpen): found only after the whole run, until this check
  if (stat(state, &st) == 0 && access(state, W_OK) != 0) {
    fprintf(stderr, "contactsim: error: cannot write %s: %s\n", cs_cliSafe(state),
            strerror(errno));
    return -1;
  }
  char tmp[PATH_MAX + 32];
  FILE* f = csu_replaceTemporaryName(state, tmp, sizeof(tmp)) == 0 ? fopen(tmp, "w") : NULL;
  int saved = f ? 0 : errno ? errno : ENAMETOOLONG;
  if (f) {
    fclose(f);
    remove(tmp);
  }
  if (!f) {
    fprintf(stderr, "contactsim: error: cannot write %s: %s\n", cs_cliSafe(state),
            strerror(saved));
    return -1;
  }
  return 0;
}


// `contactsim run`: parse the options, load the scene, simulate it to a CSV, then write the
// optional JSON statistics and the summary. Returns the exit status.
int cs_cliRun(int argc, char** argv) {
  static const struct option longopts[] = {
      {"output", required_argument, NULL, 'o'},
      {"duration", required_argument, NULL, 'd'},
      {"integrator", required_argument, NULL, 'i'},
      {"rtol", required_argument, NULL, 'r'},
      {"atol", required_argument, NULL, 'a'},
      {"report-interval", required_argument, NULL, 'p'},
      {"max-step", required_argument, NULL, 'm'},
      {"contact-model", required_argument, NULL, 'c'},
      {"set", required_argument, NULL, 'S'},
      {"forces", no_argument, NULL, 'f'},
      {"stats", required_argument, NULL, 's'},
      {"max-steps", required_argument, NULL, 'N'},
      {"max-rows", required_argument, NULL, 'X'},
      {"save-state", required_argument, NULL, 'W'},
      {"initial-state", required_argument, NULL, 'I'},
      {"quiet", no_argument, NULL, 'q'},
      {"replay", required_argument, NULL, 'R'},
      {"help", no_argument, NULL, 'h'},
      {NULL, 0, NULL, 0},
  };
  // -1 marks an option that was not given, so the scene's value stays (0 is a valid max step)
  const char* output = NULL;
  const char* contact_model = NULL;
  const char* stats = NULL;
  const char* saveState = NULL;
  const char* initialState = NULL;
  const char* replay = NULL;
  int quiet = 0, forces = 0;
  double duration = -1, rtol = -1, atol = -1, interval = -1, max_step = -1;
  long max_steps = -1, max_rows = -1;
  int integrator = -1;
  // --set KEY=VALUE, freed on every return below
  csCliSets sets = {0};
  int c;
  // getopt keeps global state: reset it, since a process may parse more than one command; its
  // messages are ours (cs_cliOptionError)
  optind = 1;
  opterr = 0;
  while ((c = getopt_long(argc, argv, ":o:qh", longopts, NULL)) != -1) {
    int bad = 0;
    switch (c) {
      case 'o': output = strcmp(optarg, "-") == 0 ? NULL : optarg; break;  // - is stdout
      case 'S': bad = cs_cliAddSet(&sets, optarg); break;
      case 'd':
        bad = cs_cliParseAtLeast(optarg, "duration", CS_MIN_DURATION, " s", &duration);
        break;
      case 'r': bad = cs_cliParseNumber(optarg, "rtol", 0, &rtol); break;
      case 'a': bad = cs_cliParseAtLeast(optarg, "atol", CS_MIN_ATOL, "", &atol); break;
      case 'p':
        bad = cs_cliParseAtLeast(optarg, "report-interval", CS_MIN_REPORT_INTERVAL, " s",
                                 &interval);
        break;
      case 'm': bad = cs_cliParseNumber(optarg, "max-step", 1, &max_step); break;
      case 'c': contact_model = optarg; break;
      case 'f': forces = 1; break;
      case 's': stats = optarg; break;  // - is stdout, when the CSV goes to a file
      case 'W': saveState = optarg; break;
      case 'I': initialState = optarg; break;
      case 'R': replay = optarg; break;
      case 'q': quiet = 1; break;
      // the integrator by name; the linear solver stays the scene's (simulation.linear_solver)
      case 'i': {
        static const char* const names[] = CS_INTEGRATOR_NAMES;
        integrator = cs_cliParseChoice(optarg, "integrator", names, CS_INTEGRATOR_COUNT);
        bad = integrator < 0;
        break;
      }
      case 'N': bad = cs_cliParseCount(optarg, "max-steps", &max_steps); break;
      case 'X': bad = cs_cliParseCount(optarg, "max-rows", &max_rows); break;
      case 'h': cs_cliCommandUsage(stdout, "run"); cs_cliFreeSets(&sets); return CS_EXIT_OK;
      default: cs_cliFreeSets(&sets); return cs_cliOptionError(c, argv, "run");
    }
    if (bad) {
      cs_cliFreeSets(&sets);
      return CS_EXIT_USAGE;
    }
  }
  const char* path = cs_cliSceneArgument(argc, argv, "run");
  if (!path) {
    cs_cliFreeSets(&sets);
    return CS_EXIT_USAGE;
  }
  // --replay needs the page template: a build without the viewer says so before running
  char replayTemplate[4096];
  csError replayErr;
  if (replay && cs_cliNotStandardOutput("--replay", replay) != 0) {
    cs_cliFreeSets(&sets);
    return CS_EXIT_USAGE;
  }
  if (replay && cs_replayFindTemplate(replayTemplate, sizeof(replayTemplate), &replayErr) != 0) {
    cs_cliPrintError(&replayErr);
    cs_cliFreeSets(&sets);
    return CS_EXIT_USAGE;
  }
  // load with the requested contact model and --set values; a scene that does not load is bad
  // input (exit 2)
  csCliRun run;
  memset(&run, 0, sizeof(run));
  // a stop signal while a large scene loads is told once it has (cs_cliStoppedBeforeStart);
  // while its text is read (a pipe with no writer yet) the signal ends the command as it comes
  char* text = cs_cliReadScene(path);
  cs_cliCatchSignals();
  run.m = text ? cs_cliLoad(text, path, contact_model, &sets) : NULL;
  cs_freeSceneText(text);
  cs_cliFreeSets(&sets);
  if (!run.m) {
    return CS_EXIT_USAGE;
  }
  // the model name of the run: the contact model used, else "scene"
  snprintf(run.model, sizeof(run.model), "%s",
           run.m->contact_model[0] ? run.m->contact_model : "scene");
  // command-line options override the scene's
  run.opt = run.m->opt;
  if (duration > 0) run.opt.duration = duration;
  if (rtol > 0) run.opt.rtol = rtol;
  if (atol > 0) run.opt.atol = atol;
  if (interval > 0) run.opt.report_interval = interval;
  if (max_step >= 0) run.opt.max_step = max_step;
  if (integrator >= 0) run.opt.integrator = (csIntegratorType)integrator;
  if (max_steps > 0) run.opt.max_steps = max_steps;
  if (max_rows > 0) run.opt.max_rows = max_rows;
  // a checkpoint to continue from: read and checked now, before any output is opened; the run
  // goes from its time to the end time the scene (or --duration) gives, counted from t = 0
  // (read with the signals' own actions, as the scene's text: a FIFO may wait for its writer)
  if (initialState) {
    cs_cliDefaultSignals();
    int bad = cs_cliStandardOutputIsInput("checkpoint", initialState) ||
              checkInitialState(&run, initialState, path) != 0;
    cs_cliCatchSignals();
    if (bad) {
      cs_cliFreeRun(&run);
      return CS_EXIT_USAGE;
    }
  }
  run.initial_state = initialState;
  // more rows than the limit are refused before any output is opened: the rows this run writes,
  // from the checkpoint's time to the end time
  double t0 = run.initial_data ? run.initial_data->t : 0;
  if (cs_cliCheckRowsFrom(&run.opt, t0, path, NULL,
                          max_step >= 0 ? "--max-step" : "simulation.max_step") != 0) {
    cs_cliFreeRun(&run);
    return CS_EXIT_USAGE;
  }
  // the run's duration is what is left after the checkpoint's time
  run.opt.duration -= t0;
  // standard output carries the CSV (no -o, or -o -) or the statistics (--stats -): no other
  // output may be the file it goes to (> out.txt with --stats out.txt lost the CSV)
  // --stats -: the statistics on standard output, which the CSV must then leave free
  int statsToStdout = stats && strcmp(stats, "-") == 0;
  if (!output || statsToStdout) {
    // (-o there with --stats - is told below: the CSV needs a file)
    const char* paths[3] = {statsToStdout ? NULL : stats, replay, saveState};
    static const char* const names[3] = {"--stats", "--replay", "--save-state"};
    for (int i = 0; i < 3; i++) {
      if (paths[i] && cs_cliIsStandardOutput(paths[i])) {
        fprintf(stderr, "contactsim: error: %s %s is the file standard output goes to, where "
                "%s; give each output a file of its own\n", names[i], cs_cliSafe(paths[i]),
                output ? "the statistics go (--stats -)" : "the CSV goes (no -o)");
        cs_cliFreeRun(&run);
        return CS_EXIT_USAGE;
      }
    }
  }
  // the checkpoint to write must be writable, and must not overwrite the scene or an output
  if (saveState && checkSaveState(saveState, path, output, stats, replay) != 0) {
    cs_cliFreeRun(&run);
    return CS_EXIT_USAGE;
  }
  run.csv_name = output ? output : "standard output";

  // the outputs, opened before the run so that a bad path costs nothing; neither may be the
  // scene or the other, and neither is truncated unless both open
  struct stat outStat;
  int outDevice = output && stat(output, &outStat) == 0 && S_ISCHR(outStat.st_mode);
  if (statsToStdout &&
      (!output || (!outDevice && cs_cliSameFile(output, "/dev/stdout")))) {
    fprintf(stderr, "contactsim: error: --stats - writes the statistics to standard output, "
                    "where the CSV goes too: give the CSV a file with -o\n");
    cs_cliFreeRun(&run);
    return CS_EXIT_USAGE;
  }
  const char* outPaths[3] = {output, statsToStdout ? NULL : stats, replay};
  // the checkpoint the run starts from is an input: an output of that name would destroy it
  // (--save-state may name it: the run's end replaces it whole, as continuing a run wants)
  static const char* const outNames[3] = {"-o", "--stats", "--replay"};
  for (int i = 0; initialState && i < 3; i++) {
    if (outPaths[i] && cs_cliSameFile(outPaths[i], initialState)) {
      fprintf(stderr, "contactsim: error: %s %s would overwrite the checkpoint the run starts "
              "from (--initial-state)\n", outNames[i], cs_cliSafe(outPaths[i]));
      cs_cliFreeRun(&run);
      return CS_EXIT_USAGE;
    }
  }
  int stopped = cs_cliStoppedBeforeStart(path);
  if (stopped) {
    cs_cliFreeRun(&run);
    return stopped;
  }
  FILE* outFiles[3];
  // the stop signals are caught from before the outputs are truncated, so that a signal between
  // then and the run still leaves the CSV's header; a Ctrl-C while a FIFO output waits for its
  // reader ends that wait and the command
  cs_cliCatchSignalsWhileOpening();
  // the page is only checked: it is written whole at the end, and keeps its old content till
  // then (an interrupted writing of it leaves the old page, not an empty file); so are the
  // statistics in a regular file (or a new one), while a device or a FIFO is opened now and
  // written in place at the end
  struct stat statsStat;
  int statsWhole = outPaths[1] && (stat(stats, &statsStat) != 0 || S_ISREG(statsStat.st_mode)) &&
                   directoryWritable(stats);
  if (cs_cliOpenOutputs(path, outPaths, outNames, outFiles, 3,
                        1u << 2 | (unsigned)statsWhole << 1) != 0) {
    cs_cliFreeRun(&run);
    return cs_cliStopSignal ? cs_cliStopStatus() : CS_EXIT_USAGE;
  }
  FILE* csv = output ? outFiles[0] : stdout;
  FILE* statsFile = statsToStdout ? stdout : outFiles[1];
  // --replay: the run writes every column, forces included, to a scratch CSV for the page as
  // well as the CSV asked for (replay.c)
  char scratchPath[4096 + 16];
  FILE* scratch = replay ? cs_replayOpenScratch(replay, scratchPath, sizeof(scratchPath),
                                                &replayErr)
                         : NULL;
  if (replay && !scratch) {
    cs_cliPrintError(&replayErr);
    if (output) {
      fclose(csv);
    }
    if (statsFile) {
      fclose(statsFile);
    }
    cs_cliFreeRun(&run);
    return CS_EXIT_USAGE;
  }
  csCsvOptions csvopt = {.forces = forces}, fullopt = {.forces = 1};
  // from here on SIGINT, SIGTERM and SIGHUP stop the run cleanly, and an interrupted write
  // carries on (the scratch CSV has no name to remove: it went when it was made)
  cs_cliCatchSignals();
  // simulate; the progress bar only when stderr is a terminal, so that logs stay free of it
  cs_cliSimulateTwo(&run, csv, &csvopt, scratch, &fullopt, !quiet && isatty(STDERR_FILENO));
  int status = run.status;
  int pageFailed = 0;
  if (scratch) {
    // the page names the CSV asked for (standard output: "-"), not the scratch copy it reads
    csReplayRun page = {run.model, run.m, NULL, output ? output : "-", NULL};
    // the page's temporary file too is removed if a second signal ends the process
    char pageTmp[PATH_MAX + 32];
    if (csu_replaceTemporaryName(replay, pageTmp, sizeof(pageTmp)) == 0) {
      cs_cliTemporaryFile(1, pageTmp);
    }
    csStatus s = cs_replayFinishRun(scratch, scratchPath, replay, replayTemplate, &page,
                                    &replayErr);
    cs_cliTemporaryFile(1, NULL);
    if (s != CS_OK) {
      cs_cliPrintError(&replayErr);
      pageFailed = status == CS_OK;
    }
  }
  // every row written so far stays valid: rows are whole lines, flushed before we report
  int closed = output ? fclose(csv) : fflush(csv);
  if (closed != 0 && status == CS_OK) {
    status = CS_ERR_IO;
  }
  // a failure is reported with the scene's name; an I/O failure without a message names the
  // output that could not be written; an interruption is no error (the summary says it)
  if (status != CS_OK && status != CS_STOPPED) {
    if (!run.err.file[0]) {
      snprintf(run.err.file, sizeof(run.err.file), "%s", cs_cliSceneName(path));
    }
    if (status == CS_ERR_IO && !run.err.message[0]) {
      snprintf(run.err.message, sizeof(run.err.message), "could not write %s",
               output ? output : "standard output");
    }
    cs_cliPrintError(&run.err);
  }
  // the statistics are written for a failed run too: they describe how far it got. A regular
  // file is written whole under a temporary name (removed if a second signal ends the process),
  // so that a run killed before its end leaves the old statistics, not an empty file
  csuReplace whole;
  if (statsWhole) {
    char tmp[PATH_MAX + 32];
    if (csu_replaceTemporaryName(stats, tmp, sizeof(tmp)) == 0) {
      cs_cliTemporaryFile(1, tmp);
    }
    statsFile = csu_replaceOpen(&whole, stats) == 0 ? whole.f : NULL;
    if (!statsFile) {
      fprintf(stderr, "contactsim: error: could not write %s: %s\n", cs_cliSafe(stats),
              strerror(errno));
      status = status == CS_OK ? CS_ERR_IO : status;
    }
  }
  if (statsFile) {
    errno = 0;
    int bad = cs_cliWriteRunJson(statsFile, run.m->name, path, &run) != 0;
    int err = errno;
    bad |= statsWhole ? csu_replaceClose(&whole, 0) != 0 : fclose(statsFile) != 0;
    err = err ? err : errno;
    if (bad) {
      fprintf(stderr, "contactsim: error: could not write %s%s%s\n",
              statsToStdout ? "the statistics to standard output" : cs_cliSafe(stats),
              err ? ": " : "", err ? strerror(err) : "");
      status = status == CS_OK ? CS_ERR_IO : status;
    }
  }
  cs_cliTemporaryFile(1, NULL);
  // the checkpoint: the end state of a finished run; the last accepted state of one that failed
  // (the integrator leaves it in the data, and the summary describes it); the state of the last
  // CSV row of one that was interrupted (so that it can be continued, with other options if
  // need be)
  if (saveState && run.d &&
      (status == CS_OK || status == CS_STOPPED || status == CS_ERR_SOLVER || status == CS_ERR_IO)) {
    const csData* state = status == CS_OK || status == CS_ERR_SOLVER ? run.d : run.checkpoint;
    csError serr;
    memset(&serr, 0, sizeof(serr));
    // the temporary file cs_saveState writes (named in this thread, as it is) removed if a
    // signal ends the program while it is written
    char stateTmp[PATH_MAX + 32];
    if (csu_replaceTemporaryName(saveState, stateTmp, sizeof(stateTmp)) == 0) {
      cs_cliTemporaryFile(1, stateTmp);
    }
    // a FIFO is opened in place, which waits for its reader: a stop signal ends that wait
    struct stat st;
    int fifo = stat(saveState, &st) == 0 && S_ISFIFO(st.st_mode);
    if (fifo) {
      cs_cliCatchSignalsWhileOpening();
    }
    csStatus saved = state ? cs_saveState(run.m, state, saveState, &serr) : CS_OK;
    cs_cliCatchSignals();
    cs_cliTemporaryFile(1, NULL);
    if (saved != CS_OK && fifo && cs_cliStopSignal) {
      fprintf(stderr, "contactsim: the checkpoint was not written: %s came while %s waited "
              "for a reader\n", cs_cliSignalName(cs_cliStopSignal), cs_cliSafe(saveState));
      status = CS_STOPPED;
    } else if (saved != CS_OK) {
      cs_cliPrintError(&serr);
      status = status == CS_OK ? CS_ERR_IO : status;
    } else if (state && status != CS_OK && !quiet) {
      // after an output error the rows of the last block may be missing from the CSV
      fprintf(stderr, "contactsim: state at t = %.9g s (%s) saved to %s\n", state->t,
              status == CS_ERR_IO       ? "the last report reached"
              : status == CS_ERR_SOLVER ? "the last accepted state"
                                        : "the last CSV row",
              cs_cliSafe(saveState));
    }
  }
  // the summary needs data, which is missing only when memory ran out before the run
  if (run.d && !quiet) {
    cs_cliSummary(&run);
  }
  cs_cliFreeRun(&run);
  // an input error found only at run time (unusable options) is a usage error as well; a run
  // stopped by a signal exits as the shell reports one, and so does one whose stop signal came
  // after its last step, while its outputs were written (whole: the signal is taken once they
  // are, as a sweep takes it)
  if (status == CS_OK && cs_cliStopSignal) {
    fprintf(stderr, "contactsim: %s came after the run had finished, while its outputs were "
            "written; they are whole\n", cs_cliSignalName(cs_cliStopSignal));
    status = CS_STOPPED;
  }
  if (status == CS_STOPPED) {
    return cs_cliStopStatus();
  }
  // a page that could not be written fails the command, though the run and its CSV are whole
  if (status == CS_OK && pageFailed) {
    return CS_EXIT_FAILURE;
  }
  return status == CS_OK ? CS_EXIT_OK : status == CS_ERR_INPUT ? CS_EXIT_USAGE : CS_EXIT_FAILURE;
}


// `contactsim validate`: load the scene (with a contact model when one is asked for) and print
// its size; everything the loader checks is checked, nothing is integrated
int cs_cliValidate(int argc, char** argv) {
  static const struct option longopts[] = {
      {"contact-model", required_argument, NULL, 'c'},
      {"set", required_argument, NULL, 'S'},
      {"help", no_argument, NULL, 'h'},
      {NULL, 0, NULL, 0},
  };
  const char* contact_model = NULL;
  csCliSets sets = {0};
  int c;
  optind = 1;
  opterr = 0;
  // only --contact-model and --set matter here: run options would have no effect, so getopt
  // refuses them
  while ((c = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
    if (c == 'c') {
      contact_model = optarg;
    } else if (c == 'S') {
      // a --set without KEY=VALUE has been said by cs_cliAddSet
      if (cs_cliAddSet(&sets, optarg) != 0) {
        cs_cliFreeSets(&sets);
        return CS_EXIT_USAGE;
      }
    } else if (c == 'h') {
      cs_cliCommandUsage(stdout, "validate");
      cs_cliFreeSets(&sets);
      return CS_EXIT_OK;
    } else {
      cs_cliFreeSets(&sets);
      return cs_cliOptionError(c, argv, "validate");
    }
  }
  const char* path = cs_cliSceneArgument(argc, argv, "validate");
  if (!path) {
    cs_cliFreeSets(&sets);
    return CS_EXIT_USAGE;
  }
  char* text = cs_cliReadScene(path);
  csModel* m = text ? cs_cliLoad(text, path, contact_model, &sets) : NULL;
  // without --contact-model, every other model the scene has a block for must load as well (its
  // block's values, the changes against its variables), so that neither `run --contact-model`
  // nor `compare` fails on a scene that validated
  for (int i = 0; m && !contact_model && i < m->ncontact_model; i++) {
    const char* name = m->contact_model_names[i];
    if (strcmp(name, m->contact_model) == 0) {
      continue;
    }
    csModel* other = cs_cliLoad(text, path, name, &sets);
    if (!other) {
      fprintf(stderr, "contactsim: error: %s: the scene does not load with its contact model "
                      "'%s' (as run --contact-model %s and compare load it)\n",
              cs_cliSafe(cs_cliSceneName(path)), cs_cliSafe(name), cs_cliSafe(name));
      cs_deleteModel(m);
      m = NULL;
    }
    cs_deleteModel(other);
  }
  cs_freeSceneText(text);
  cs_cliFreeSets(&sets);
  if (!m) {
    return CS_EXIT_USAGE;
  }
  // and what `run` refuses before it starts: more report rows than the limit, a largest step
  // that cannot work, an integrator the model's groups cannot have (ark's dense Jacobian of a
  // large group), found by making the simulation as `run` makes it
  csError err;
  memset(&err, 0, sizeof(err));
  csSimulation* sim = NULL;
  if (cs_cliCheckRows(&m->opt, path, NULL, "simulation.max_step") != 0 ||
      !(sim = cs_newSimulation(m, NULL, &err))) {
    if (!sim && err.code != CS_OK && err.message[0]) {
      if (!err.file[0]) {
        snprintf(err.file, sizeof(err.file), "%s", cs_cliSceneName(path));
      }
      cs_cliPrintError(&err);
    }
    cs_deleteModel(m);
    return CS_EXIT_USAGE;
  }
  cs_deleteSimulation(sim);
  // the body count leaves out ground, which every model has
  printf("%s: ok: %d bodies, %d coordinates, %d speeds, %d force elements, %d planes\n",
         cs_cliSafe(cs_cliSceneName(path)), m->nbody - 1, m->nq, m->nu, m->nforce, m->nplane);
  cs_deleteModel(m);
  // the verdict is the output: one that could not be written (a full disk, a closed standard
  // output) is no verdict, and a script reading it must not take the exit status alone
  if (fflush(stdout) != 0 || ferror(stdout)) {
    fprintf(stderr, "contactsim: error: could not write the result to standard output: %s\n",
            strerror(errno));
    return CS_EXIT_FAILURE;
  }
  return CS_EXIT_OK;
}
