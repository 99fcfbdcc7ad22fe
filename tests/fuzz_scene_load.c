// fuzz_scene_load.c: libFuzzer target for the whole path of a scene, as the command line takes
// it: any byte string must give either models or an error, never a crash, a leak, a hang or
// undefined behaviour. For each input:
//   1. the contact models the scene names (cs_sceneContactModelsString), and the scene loaded
//      with each of them (or once, as it is, when it names none);
//   2. each model simulated briefly, as `run` does it (cs_cliSimulate, CSV written to
//      /dev/null through the command line's block writer), with the duration, the report
//      interval and the steps capped so that one input costs milliseconds (models of more than
//      FUZZ_MAX_BODIES bodies are loaded only);
//   3. the run's statistics written as `run --stats` JSON, and the header and a row as CSV, to
//      memory.
// Built with libFuzzer by `meson setup build-fuzz -Dfuzz=true` (clang; docs/testing.md), and
// always as tests/fuzz_scene_files (fuzz_driver.c), which feeds it the bad-input corpus and
// the bundled scenes.
#include "app/common.h"

#include "contactsim/contactsim.h"

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

// the caps of one simulation: a millisecond of simulated time, four reports, 200 steps between
// two reports (the run then fails with "too much work", which is a result like any other)
#define FUZZ_DURATION 1e-3
#define FUZZ_REPORTS 4
#define FUZZ_MAX_STEPS 200
// larger models are loaded but not run: each of pile_1000's 1000 independent groups takes its
// own steps, seconds per input under the sanitizers (libFuzzer reported that as a timeout)
#define FUZZ_MAX_BODIES 64


// run model m briefly and write what `run` writes, to nowhere and to memory
static void simulate(csModel* m, FILE* devnull) {
  csCliRun run;
  memset(&run, 0, sizeof(run));
  run.m = m;
  snprintf(run.model, sizeof(run.model), "%s", m->contact_model[0] ? m->contact_model : "scene");
  // the scene's options, capped
  run.opt = m->opt;
  run.opt.duration = fmin(run.opt.duration, FUZZ_DURATION);
  run.opt.report_interval = fmax(run.opt.report_interval, run.opt.duration / FUZZ_REPORTS);
  run.opt.max_steps = run.opt.max_steps < FUZZ_MAX_STEPS ? run.opt.max_steps : FUZZ_MAX_STEPS;
  // what the command line refuses up front is not run (cs_cliCheckRows, without its message)
  if (cs_maxStepProblem(&run.opt, NULL, 0) == 0 &&
      cs_modelCount(m, CS_COUNT_BODY) <= FUZZ_MAX_BODIES + 1) {
    csCsvOptions csvopt = {.forces = 1};
    cs_cliSimulate(&run, devnull, &csvopt, 0);
    // the statistics as JSON, and the CSV header and the last row, to memory
    char buf[1 << 14];
    FILE* mem = fmemopen(buf, sizeof(buf), "w");
    if (mem) {
      cs_cliWriteRunJson(mem, m->name, "<fuzz>", &run);
      fclose(mem);
    }
    if (run.d) {
      cs_csvFormatHeader(buf, sizeof(buf), m, &csvopt);
      cs_csvFormatRow(buf, sizeof(buf), m, run.d, &csvopt);
    }
  }
  // the model is the caller's
  run.m = NULL;
  cs_cliFreeRun(&run);
}


int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  char* text = malloc(size + 1);
  if (!text) {
    return 0;
  }
  memcpy(text, data, size);
  text[size] = 0;
  csError err;
  memset(&err, 0, sizeof(err));
  char names[CS_MAX_CONTACT_MODELS][CS_MAX_NAME];
  char def[CS_MAX_NAME];
  int nmodel =
      cs_sceneContactModelsString(text, "<fuzz>", NULL, names, CS_MAX_CONTACT_MODELS, def, &err);
  FILE* devnull = fopen("/dev/null", "w");
  // every model the scene names, or the scene as it is
  for (int i = 0; devnull && nmodel >= 0 && i < (nmodel > 0 ? nmodel : 1); i++) {
    csLoadOptions lo = {.contact_model = nmodel > 0 ? names[i] : NULL};
    memset(&err, 0, sizeof(err));
    csModel* m = cs_loadSceneString(text, "<fuzz>", &lo, &err);
    if (m) {
      simulate(m, devnull);
      cs_deleteModel(m);
    }
  }
  if (devnull) {
    fclose(devnull);
  }
  free(text);
  return 0;
}
