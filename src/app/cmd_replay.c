// cmd_replay.c: `contactsim replay`: the replay page of runs already made, from the scene and
// the CSV files `run` or `compare --out-dir` wrote (docs/replay.md).
#include "app/common.h"
#include "app/replay.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

// most CSV files one page shows
#define MAX_REPLAY_RUNS 32


// the file name of path without directory and extension, into name
static void fileStem(const char* path, char* name, size_t size) {
  const char* base = strrchr(path, '/');
  base = base ? base + 1 : path;
  snprintf(name, size, "%s", base);
  char* dot = strrchr(name, '.');
  if (dot && dot != name) {
    *dot = 0;
  }
}


// `contactsim replay SCENE CSV... [-o OUT.html] [--contact-model NAME] [--set KEY=VALUE]...`:
// load the scene once per CSV with the contact model that CSV was written with, and write the
// page. Returns the exit status.
int cs_cliReplay(int argc, char** argv) {
  static const struct option longopts[] = {
      {"output", required_argument, NULL, 'o'},
      {"contact-model", required_argument, NULL, 'c'},
      {"set", required_argument, NULL, 'S'},
      {"help", no_argument, NULL, 'h'},
      {NULL, 0, NULL, 0},
  };
  const char* output = NULL;
  const char* contact_model = NULL;
  csCliSets sets = {0};
  int c;
  // getopt's messages are ours (cs_cliOptionError)
  optind = 1;
  opterr = 0;
  while ((c = getopt_long(argc, argv, ":o:h", longopts, NULL)) != -1) {
    switch (c) {
      case 'o':
        output = optarg;
        break;
      case 'c':
        contact_model = optarg;
        break;
      case 'S':
        if (cs_cliAddSet(&sets, optarg) != 0) {
          cs_cliFreeSets(&sets);
          return CS_EXIT_USAGE;
        }
        break;
      case 'h':
        cs_cliCommandUsage(stdout, "replay");
        cs_cliFreeSets(&sets);
        return CS_EXIT_OK;
      default:
        cs_cliFreeSets(&sets);
        return cs_cliOptionError(c, argv, "replay");
    }
  }
  // the scene, then one or more CSV files
  int ncsv = argc - optind - 1;
  if (ncsv < 1 || ncsv > MAX_REPLAY_RUNS) {
    fprintf(stderr,
            ncsv < 1 ? "contactsim: error: replay takes a scene file and at least one "
                       "CSV file\n"
                     : "contactsim: error: replay shows at most %d CSV files\n",
            MAX_REPLAY_RUNS);
    cs_cliCommandUsage(stderr, "replay");
    cs_cliFreeSets(&sets);
    return CS_EXIT_USAGE;
  }
  const char* scene = argv[optind];
  char** csv = argv + optind + 1;
  if (output && cs_cliNotStandardOutput("-o", output) != 0) {
    cs_cliFreeSets(&sets);
    return CS_EXIT_USAGE;
  }
  // without a viewer there is nothing to fill: say so before loading anything
  char tpl[4096];
  csError err;
  if (cs_replayFindTemplate(tpl, sizeof(tpl), &err) != 0) {
    cs_cliPrintError(&err);
    cs_cliFreeSets(&sets);
    return CS_EXIT_USAGE;
  }
  // the contact model of each CSV: the one asked for; else the file's name when the scene has a
  // block of that name (compare --out-dir writes MODEL.csv); else the scene's default
  char* text = cs_cliReadScene(scene);
  if (!text) {
    cs_cliFreeSets(&sets);
    return CS_EXIT_USAGE;
  }
  char blocks[MAX_REPLAY_RUNS][CS_MAX_NAME];
  char defaultName[CS_MAX_NAME] = "";
  memset(&err, 0, sizeof(err));
  csLoadOptions lo = {.overrides = sets.item, .noverrides = sets.n};
  int nblock =
      cs_sceneContactModelsString(text, scene, &lo, blocks, MAX_REPLAY_RUNS, defaultName, &err);
  int status = CS_EXIT_OK;
  if (nblock < 0) {
    cs_cliPrintError(&err);
    status = CS_EXIT_USAGE;
  }
  nblock = nblock > MAX_REPLAY_RUNS ? MAX_REPLAY_RUNS : nblock;
  csReplayRun runs[MAX_REPLAY_RUNS];
  char labels[MAX_REPLAY_RUNS][CS_MAX_NAME];
  csModel* models[MAX_REPLAY_RUNS] = {0};
  for (int i = 0; i < ncsv && status == CS_EXIT_OK; i++) {
    const char* model = contact_model;
    char stem[CS_MAX_PATH];
    fileStem(csv[i], stem, sizeof(stem));
    for (int j = 0; !model && j < nblock; j++) {
      if (strcmp(stem, blocks[j]) == 0) {
        model = blocks[j];
      }
    }
    snprintf(labels[i], CS_MAX_NAME, "%s", model ? model : defaultName[0] ? defaultName : "scene");
    // two CSVs of one model (two runs of `run`) are told apart by their file names
    if (ncsv > 1 && !(model && strcmp(model, stem) == 0)) {
      snprintf(labels[i], CS_MAX_NAME, "%.63s", stem);
    }
    models[i] = cs_cliLoad(text, scene, model, &sets);
    if (!models[i]) {
      status = CS_EXIT_USAGE;
      break;
    }
    runs[i] = (csReplayRun){.model = labels[i], .m = models[i], .csv = csv[i]};
  }
  cs_freeSceneText(text);
  cs_cliFreeSets(&sets);
  // the page goes next to the first CSV unless -o says otherwise; a CSV read from a pipe, a
  // device or standard input (/dev/stdin, /dev/fd/N, /proc/.../fd/N, also when that is a
  // file) has no place for one (a CSV that is not there is refused when it is read)
  char outbuf[CS_MAX_PATH + 8];
  struct stat st;
  if (status == CS_EXIT_OK && !output &&
      ((stat(csv[0], &st) == 0 && !S_ISREG(st.st_mode)) || strcmp(csv[0], "/dev/stdin") == 0 ||
       strncmp(csv[0], "/dev/fd/", 8) == 0 ||
       (strncmp(csv[0], "/proc/", 6) == 0 && strstr(csv[0], "/fd/")))) {
    fprintf(stderr,
            "contactsim: error: %s is no file the page can go next to (a pipe, a device or "
            "standard input): give the page's path with -o\n",
            cs_cliSafe(csv[0]));
    status = CS_EXIT_USAGE;
  }
  if (status == CS_EXIT_OK && !output) {
    snprintf(outbuf, sizeof(outbuf), "%s", csv[0]);
    char* dot = strrchr(outbuf, '.');
    char* slash = strrchr(outbuf, '/');
    if (dot && (!slash || dot > slash)) {
      *dot = 0;
    }
    strncat(outbuf, ".html", sizeof(outbuf) - strlen(outbuf) - 1);
    output = outbuf;
  }
  // the page must not be the scene or one of the CSVs it is made from
  for (int i = 0; status == CS_EXIT_OK && i <= ncsv; i++) {
    const char* other = i == ncsv ? scene : csv[i];
    if (i == ncsv ? cs_cliIsScene(output, scene) : cs_cliSameFile(output, other)) {
      fprintf(stderr, "contactsim: error: the replay page %s would overwrite %s\n",
              cs_cliSafe(output), strcmp(other, "-") ? cs_cliSafe(other)
                                                     : "the scene (standard input)");
      status = CS_EXIT_USAGE;
    }
  }
  if (status == CS_EXIT_OK) {
    csStatus s = cs_replayWrite(output, tpl, runs, ncsv, &err);
    if (s != CS_OK) {
      cs_cliPrintError(&err);
      status = s == CS_ERR_INPUT ? CS_EXIT_USAGE : CS_EXIT_FAILURE;
    } else {
      fprintf(stderr, "contactsim: replay: wrote %s\n", cs_cliSafe(output));
    }
  }
  for (int i = 0; i < ncsv; i++) {
    cs_deleteModel(models[i]);
  }
  return status;
}
