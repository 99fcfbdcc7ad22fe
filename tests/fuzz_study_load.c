// fuzz_study_load.c: libFuzzer target for the study loader (src/io/study_load.c), which reads
// the study file a user gives `contactsim sweep`: any byte string must give either a study or an
// error with a sentence, never a crash, a leak, a hang or undefined behaviour. Each input is
// written to a scratch directory as study.json, beside scene.json (a copy of
// tests/data/fuzz_replay/scene.json: a block on exponential springs, a ball, a pin with a stop,
// a bushing; two contact models), and loaded. Of a study that loads, up to FUZZ_MAX_POINTS grid
// points are decoded, their values read, and the scene loaded with each point's overrides under
// each of the study's models (or the scene's own), as a sweep's set-up and runs do.
//
// The scene is read from $CONTACTSIM_FUZZ_STUDY_SCENE, else from the path above relative to the
// working directory (the source root, as the test suite and docs/testing.md run it). Seed
// inputs: tests/data/fuzz_study/*.json. Built with libFuzzer by `meson setup build-fuzz
// -Dfuzz=true` (clang; docs/testing.md), and always as tests/fuzz_study_files, which feeds it
// the seeds.
#include "io/study_load.h"

#include "contactsim/contactsim.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

#define SCENE_ENV "CONTACTSIM_FUZZ_STUDY_SCENE"
#define SCENE_DEFAULT "tests/data/fuzz_replay/scene.json"
// grid points tried per study: a study of 10^7 runs costs the same as one of four
#define FUZZ_MAX_POINTS 4

static char dir[64], studyPath[96], scenePath[96];


static void removeScratch(void) {
  unlink(studyPath);
  unlink(scenePath);
  rmdir(dir);
}


// a failure of the set-up, not a finding: say so and stop
static void setupFailed(const char* what, const char* why) {
  fprintf(stderr, "fuzz_study_load: %s: %s\n", what, why);
  exit(2);
}


// once: a scratch directory holding the scene the studies name
static void setUp(void) {
  const char* scene = getenv(SCENE_ENV) ? getenv(SCENE_ENV) : SCENE_DEFAULT;
  csError err;
  size_t len = 0;
  char* text = cs_readSceneText(scene, &len, &err);
  if (!text) {
    setupFailed(scene, err.message);
  }
  const char* base = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
  snprintf(dir, sizeof(dir), "%s/fuzz_study.XXXXXX", base);
  if (!mkdtemp(dir)) {
    setupFailed(dir, "cannot make the scratch directory");
  }
  snprintf(studyPath, sizeof(studyPath), "%s/study.json", dir);
  snprintf(scenePath, sizeof(scenePath), "%s/scene.json", dir);
  atexit(removeScratch);
  FILE* f = fopen(scenePath, "wb");
  if (!f || fwrite(text, 1, len, f) != len || fclose(f) != 0) {
    setupFailed(scenePath, "cannot write the scene");
  }
  cs_freeSceneText(text);
}


// an error must come with a sentence
static void checkError(const csError* err, const char* what) {
  if (err->code == CS_OK || !err->message[0]) {
    fprintf(stderr, "fuzz_study_load: %s failed without a message (code %d)\n", what,
            (int)err->code);
    abort();
  }
}


int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (!dir[0]) {
    setUp();
  }
  FILE* f = fopen(studyPath, "wb");
  if (!f || fwrite(data, 1, size, f) != size || fclose(f) != 0) {
    setupFailed(studyPath, "cannot write the input");
  }
  csError err;
  csStudy* s = cs_loadStudy(studyPath, &err);
  if (!s) {
    checkError(&err, "a study that does not load");
    unlink(studyPath);
    return 0;
  }
  // the plan: its size, and the first points' values and overrides
  int nmodel = s->nmodel > 0 ? s->nmodel : 1;
  long nrun = cs_studyRunCount(s, nmodel);
  if (nrun < 1 || s->npoint < 1 || nrun > CS_STUDY_MAX_RUNS * (long)CS_STUDY_MAX_MODELS) {
    fprintf(stderr, "fuzz_study_load: a study that loaded has %ld runs, %ld points\n", nrun,
            s->npoint);
    abort();
  }
  size_t len = 0;
  char* scene = cs_readSceneText(s->scene, &len, &err);
  for (long point = 0; point < s->npoint && point < FUZZ_MAX_POINTS; point++) {
    for (int k = 0; k < s->nkey; k++) {
      double number = 0;
      const char* value = cs_studyValue(s, point, k, &number);
      if (!value || !csu_isJsonText(value, strlen(value))) {
        fprintf(stderr, "fuzz_study_load: key %d of point %ld is not JSON text\n", k, point);
        abort();
      }
    }
    csOverride ov[CS_STUDY_MAX_SET + CS_STUDY_MAX_KEYS];
    int nov = cs_studyOverrides(s, point, ov);
    // the scene (when the study names this one) under each model, with the point's values
    for (int m = 0; scene && m < nmodel; m++) {
      csLoadOptions lo = {.contact_model = s->nmodel > 0 ? s->model[m] : NULL,
                          .overrides = ov,
                          .noverrides = nov,
                          .distinct = point == 0};
      csModel* model = cs_loadSceneString(scene, s->scene, &lo, &err);
      if (model) {
        cs_deleteModel(model);
      } else {
        checkError(&err, "a scene with a study's values");
      }
    }
  }
  // a run's decoding: the last run's point, model and repeat are in range
  long point;
  int model, repeat;
  cs_studyDecode(s, nmodel, nrun - 1, &point, &model, &repeat);
  if (point != s->npoint - 1 || model != nmodel - 1 || repeat != s->repeats - 1) {
    fprintf(stderr, "fuzz_study_load: the last run decodes to point %ld, model %d, repeat %d\n",
            point, model, repeat);
    abort();
  }
  cs_freeSceneText(scene);
  cs_deleteStudy(s);
  unlink(studyPath);
  return 0;
}
