// fuzz_driver.c: a libFuzzer target's entry function fed with files, without libFuzzer, so that
// the test suite runs it everywhere (and under AddressSanitizer and UndefinedBehaviorSanitizer
// in the sanitizer build): every file named, and every file ending in FUZZ_SUFFIX (".json" for
// the scene target, ".csv" for the replay CSV target) in every directory named, in name order.
// A crash or a sanitizer report fails the test; each file that comes back counts as passed.
// Prints one line per file and "N passed, N failed". Linked with one target per executable
// (tests/meson.build): fuzz_scene_files with fuzz_scene_load.c, fuzz_replay_csv_files with
// fuzz_replay_csv.c.
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#ifndef FUZZ_SUFFIX
#define FUZZ_SUFFIX ".json"
#endif

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);


// feed one file; returns 0, or -1 when it cannot be read
static int replay(const char* path) {
  FILE* f = fopen(path, "rb");
  if (!f) {
    return -1;
  }
  size_t cap = 1 << 16, n = 0;
  uint8_t* buf = malloc(cap);
  size_t got;
  while (buf && (got = fread(buf + n, 1, cap - n, f)) > 0) {
    n += got;
    if (n == cap) {
      uint8_t* grown = realloc(buf, 2 * cap);
      if (!grown) {
        free(buf);
        buf = NULL;
      }
      buf = grown;
      cap *= 2;
    }
  }
  fclose(f);
  if (!buf) {
    return -1;
  }
  LLVMFuzzerTestOneInput(buf, n);
  free(buf);
  return 0;
}


static int byName(const void* a, const void* b) {
  return strcmp(*(char* const*)a, *(char* const*)b);
}


int main(int argc, char** argv) {
  int passed = 0, failed = 0;
  for (int i = 1; i < argc; i++) {
    struct stat st;
    if (stat(argv[i], &st) != 0) {
      printf("FAIL: %s: cannot read\n", argv[i]);
      failed++;
      continue;
    }
    if (!S_ISDIR(st.st_mode)) {
      int r = replay(argv[i]);
      printf("%s: %s\n", r ? "FAIL" : "ok", argv[i]);
      r ? failed++ : passed++;
      continue;
    }
    // the directory's files ending in FUZZ_SUFFIX, sorted
    DIR* dir = opendir(argv[i]);
    char** files = NULL;
    size_t nfile = 0, cap = 0;
    for (struct dirent* e = dir ? readdir(dir) : NULL; e; e = readdir(dir)) {
      size_t len = strlen(e->d_name);
      size_t slen = strlen(FUZZ_SUFFIX);
      if (len <= slen || strcmp(e->d_name + len - slen, FUZZ_SUFFIX) != 0) {
        continue;
      }
      if (nfile == cap) {
        cap = cap ? 2 * cap : 64;
        files = realloc(files, cap * sizeof(char*));
      }
      size_t plen = strlen(argv[i]) + len + 2;
      files[nfile] = malloc(plen);
      snprintf(files[nfile++], plen, "%s/%s", argv[i], e->d_name);
    }
    if (dir) {
      closedir(dir);
    }
    qsort(files, nfile, sizeof(char*), byName);
    for (size_t j = 0; j < nfile; j++) {
      int r = replay(files[j]);
      printf("%s: %s\n", r ? "FAIL" : "ok", files[j]);
      fflush(stdout);
      r ? failed++ : passed++;
      free(files[j]);
    }
    free(files);
  }
  printf("%d passed, %d failed\n", passed, failed);
  return failed ? 1 : 0;
}
