// cmd_replay.c: `contactsim replay`: the replay page of runs already made, from the scene and
// the CSV files `run` or `compare --out-dir` wrote (docs/replay.md).
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "app/common.h"
#include "app/replay.h"

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


// `contactsim replay SCENE CSV... [-o OUT.html] [--contact-model NAME]`: load the scene once per
// CSV with the contact model that CSV was written with, and write the page. Returns the exit
// status.
int cs_cliReplay(int argc, char** argv) {
  static const struct option longopts[] = {
      {"output", required_argument, NULL, 'o'},
      {"contact-model", required_argument, NULL, 'c'},
      {"help", no_argument, NULL, 'h'},
      {NULL, 0, NULL, 0},
  };
  const char* output = NULL;
  const char* contact_model = NULL;
  int c;
  optind = 1;
  while ((c = getopt_long(argc, argv, "o:h", longopts, NULL)) != -1) {
    switch (c) {
      case 'o': output = optarg; break;
      case 'c': contact_model = optarg; break;
      case 'h': cs_cliUsage(stdout); return CS_EXIT_OK;
      default: return CS_EXIT_USAGE;
    }
  }
  // the scene, then one or more CSV files
  int ncsv = argc - optind - 1;
  if (ncsv < 1) {
    fprintf(stderr, "contactsim: error: replay takes a scene file and at least one CSV file\n");
    cs_cliUsage(stderr);
    return CS_EXIT_USAGE;
  }
  if (ncsv > MAX_REPLAY_RUNS) {
    fprintf(stderr, "contactsim: error: replay shows at most %d CSV files, not %d\n",
            MAX_REPLAY_RUNS, ncsv);
    return CS_EXIT_USAGE;
  }
  const char* scene = argv[optind];
  char** csv = argv + optind + 1;
  // without a viewer there is nothing to fill: say so before loading anything
  char tpl[4096];
  csError err;
  if (cs_replayFindTemplate(tpl, sizeof(tpl), &err) != 0) {
    cs_cliPrintError(&err);
    return CS_EXIT_USAGE;
  }
  // the contact model of each CSV: the one asked for; else the file's name when the scene has a
  // block of that name (compare --out-dir writes MODEL.csv); else the scene's default
  char blocks[MAX_REPLAY_RUNS][CS_MAX_NAME];
  char defaultName[CS_MAX_NAME] = "";
  memset(&err, 0, sizeof(err));
  int nblock = cs_sceneContactModels(scene, blocks, MAX_REPLAY_RUNS, defaultName, &err);
  if (nblock < 0) {
    if (!err.file[0]) {
      snprintf(err.file, sizeof(err.file), "%s", scene);
    }
    cs_cliPrintError(&err);
    return CS_EXIT_USAGE;
  }
  nblock = nblock > MAX_REPLAY_RUNS ? MAX_REPLAY_RUNS : nblock;
  csReplayRun runs[MAX_REPLAY_RUNS];
  char labels[MAX_REPLAY_RUNS][CS_MAX_NAME];
  csModel* models[MAX_REPLAY_RUNS] = {0};
  int status = CS_EXIT_OK;
  for (int i = 0; i < ncsv; i++) {
    const char* model = contact_model;
    char stem[CS_MAX_PATH];
    fileStem(csv[i], stem, sizeof(stem));
    for (int j = 0; !model && j < nblock; j++) {
      if (strcmp(stem, blocks[j]) == 0) {
        model = blocks[j];
      }
    }
    snprintf(labels[i], CS_MAX_NAME, "%s",
             model ? model : defaultName[0] ? defaultName : "scene");
    // two CSVs of one model (two runs of `run`) are told apart by their file names
    if (ncsv > 1 && !(model && strcmp(model, stem) == 0)) {
      snprintf(labels[i], CS_MAX_NAME, "%.63s", stem);
    }
    models[i] = cs_cliLoad(scene, model);
    if (!models[i]) {
      status = CS_EXIT_USAGE;
      break;
    }
    runs[i] = (csReplayRun){labels[i], models[i], csv[i]};
  }
  // the page goes next to the first CSV unless -o says otherwise
  char outbuf[CS_MAX_PATH + 8];
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
  if (status == CS_EXIT_OK) {
    csStatus s = cs_replayWrite(output, tpl, runs, ncsv, &err);
    if (s != CS_OK) {
      cs_cliPrintError(&err);
      status = s == CS_ERR_INPUT ? CS_EXIT_USAGE : CS_EXIT_FAILURE;
    } else {
      fprintf(stderr, "contactsim: replay: wrote %s\n", output);
    }
  }
  for (int i = 0; i < ncsv; i++) {
    cs_deleteModel(models[i]);
  }
  return status;
}
