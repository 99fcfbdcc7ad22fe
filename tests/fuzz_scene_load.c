// fuzz_scene_load.c: libFuzzer target for the scene loader: any byte string must give either a
// model or an error, never a crash, a leak or undefined behaviour. Build with
// `meson setup build-fuzz -Dfuzz=true` (needs clang) and run ./build-fuzz/tests/fuzz_scene_load
// scenes/ for a while.
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "contactsim/contactsim.h"

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);


int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  char* text = malloc(size + 1);
  if (!text) {
    return 0;
  }
  memcpy(text, data, size);
  text[size] = 0;
  csError err;
  memset(&err, 0, sizeof(err));
  csModel* m = cs_loadSceneString(text, "<fuzz>", NULL, &err);
  if (m) {
    csData* d = cs_makeData(m);
    if (d) {
      cs_forward(m, d);
      cs_deleteData(d);
    }
    cs_deleteModel(m);
  }
  free(text);
  return 0;
}
