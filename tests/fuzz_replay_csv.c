// fuzz_replay_csv.c: libFuzzer target for the replay page's CSV reader (src/app/replay.c), which
// reads back any CSV a user names with `contactsim replay`: any byte string must give either a
// page or an error naming the file, never a crash, a leak, a hang or undefined behaviour. Each
// input is written to a scratch file and read as the CSV of one run of the scene
// tests/data/fuzz_replay/scene.json, once under each of its two contact models (exponential
// springs, with friction anchors among the force columns, and Hunt-Crossley spheres; the scene
// also has a stop whose bounds a change moves, and a bushing). A page that is written must
// hold the template around one JSON object (the data the page parses), and an error must say
// what is wrong.
//
// The scene is read from $CONTACTSIM_FUZZ_REPLAY_SCENE, else from the path above relative to
// the working directory (the source root, as the test suite and docs/testing.md run it). Seed
// inputs: tests/data/fuzz_replay/*.csv, written by `contactsim run` from that scene.
// Built with libFuzzer by `meson setup build-fuzz -Dfuzz=true` (clang; docs/testing.md), and
// always as tests/fuzz_replay_csv_files, which feeds it the seed CSVs.
#include "app/replay.h"

#include "contactsim/contactsim.h"

#include <cjson/cJSON.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

#define SCENE_ENV "CONTACTSIM_FUZZ_REPLAY_SCENE"
#define SCENE_DEFAULT "tests/data/fuzz_replay/scene.json"
#define NMODEL 2
static const char* const modelName[NMODEL] = {"exponential_spring", "hunt_crossley"};

// a template as small as the real one is large: its two halves around the placeholder
#define TPL_HEAD "<!doctype html><script>const data = "
#define TPL_TAIL ";</script>\n"

static csModel* model[NMODEL];
static char dir[64], csvPath[96], tplPath[96], pagePath[96];


static void removeScratch(void) {
  unlink(csvPath);
  unlink(tplPath);
  unlink(pagePath);
  rmdir(dir);
}


// a failure of the set-up, not a finding: say so and stop
static void setupFailed(const char* what, const char* why) {
  fprintf(stderr, "fuzz_replay_csv: %s: %s\n", what, why);
  exit(2);
}


// once: the scene under each model, and a scratch directory with the template
static void setUp(void) {
  const char* scene = getenv(SCENE_ENV) ? getenv(SCENE_ENV) : SCENE_DEFAULT;
  for (int i = 0; i < NMODEL; i++) {
    csLoadOptions lo = {.contact_model = modelName[i]};
    csError err;
    model[i] = cs_loadScene(scene, &lo, &err);
    if (!model[i]) {
      setupFailed(scene, err.message);
    }
  }
  // memory-backed when there is one: libFuzzer runs thousands of inputs a second
  const char* base = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
  snprintf(dir, sizeof(dir), "%s/fuzz_replay_csv.XXXXXX", base);
  if (!mkdtemp(dir)) {
    setupFailed(dir, "cannot make the scratch directory");
  }
  snprintf(csvPath, sizeof(csvPath), "%s/run.csv", dir);
  snprintf(tplPath, sizeof(tplPath), "%s/template.html", dir);
  snprintf(pagePath, sizeof(pagePath), "%s/page.html", dir);
  atexit(removeScratch);
  FILE* f = fopen(tplPath, "w");
  if (!f || fputs(TPL_HEAD CS_REPLAY_PLACEHOLDER TPL_TAIL, f) < 0 || fclose(f) != 0) {
    setupFailed(tplPath, "cannot write the template");
  }
}


// the whole of file path, zero-terminated (owned by the caller), NULL when it cannot be read
static char* slurp(const char* path, size_t* len) {
  FILE* f = fopen(path, "rb");
  if (!f) {
    return NULL;
  }
  size_t cap = 1 << 16, n = 0, got;
  char* buf = malloc(cap + 1);
  while (buf && (got = fread(buf + n, 1, cap - n, f)) > 0) {
    n += got;
    if (n == cap) {
      char* grown = realloc(buf, 2 * cap + 1);
      if (!grown) {
        free(buf);
      }
      buf = grown;
      cap *= 2;
    }
  }
  fclose(f);
  if (buf) {
    buf[n] = 0;
    *len = n;
  }
  return buf;
}


// a page that was written: the template's head, one JSON object of the replay format, the
// template's tail. Anything else is a finding: abort, which libFuzzer reports with the input.
static void checkPage(void) {
  size_t len = 0;
  char* page = slurp(pagePath, &len);
  size_t head = strlen(TPL_HEAD), tail = strlen(TPL_TAIL);
  if (!page || len < head + tail || memcmp(page, TPL_HEAD, head) != 0 ||
      memcmp(page + len - tail, TPL_TAIL, tail) != 0) {
    fprintf(stderr, "fuzz_replay_csv: the page is not the template around the data\n");
    abort();
  }
  page[len - tail] = 0;
  cJSON* json = cJSON_Parse(page + head);
  cJSON* format = cJSON_GetObjectItemCaseSensitive(json, "format");
  if (!cJSON_IsString(format) || strcmp(format->valuestring, "contactsim-replay") != 0 ||
      !cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(json, "runs"))) {
    fprintf(stderr, "fuzz_replay_csv: the page's data is not a replay object: %.200s\n",
            page + head);
    abort();
  }
  cJSON_Delete(json);
  free(page);
}


int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (!model[0]) {
    setUp();
  }
  FILE* f = fopen(csvPath, "wb");
  if (!f || fwrite(data, 1, size, f) != size || fclose(f) != 0) {
    setupFailed(csvPath, "cannot write the input");
  }
  for (int i = 0; i < NMODEL; i++) {
    csReplayRun run = {.model = modelName[i], .m = model[i], .csv = csvPath};
    csError err;
    unlink(pagePath);
    csStatus status = cs_replayWrite(pagePath, tplPath, &run, 1, &err);
    if (status == CS_OK) {
      checkPage();
    } else if ((status != CS_ERR_INPUT && status != CS_ERR_MEMORY) || !err.message[0] ||
               strcmp(err.file, csvPath) != 0) {
      // a bad CSV is bad input (or too large for memory), named, with a sentence
      fprintf(stderr, "fuzz_replay_csv: status %d, file '%s', message '%s'\n", (int)status,
              err.file, err.message);
      abort();
    } else if (access(pagePath, F_OK) == 0) {
      fprintf(stderr, "fuzz_replay_csv: a page was left by a CSV that was refused\n");
      abort();
    }
  }
  // nothing of this input stays behind (a crash or a timeout later ends the process without
  // its exit handler: only the directory and the small template would remain)
  unlink(pagePath);
  unlink(csvPath);
  return 0;
}
