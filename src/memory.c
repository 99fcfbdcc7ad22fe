// memory.c: the counted allocator every library allocation goes through.
#include <stdlib.h>

#include "contactsim/contactsim.h"

// One process-wide counter of allocation calls. It is the single piece of global state in the
// library: a diagnostic that lets a test assert that a right-hand-side evaluation allocates
// nothing. It is only ever incremented, so sharing it between models is harmless.
static long g_allocations;


void* csu_malloc(size_t n) {
  g_allocations++;
  return calloc(1, n ? n : 1);
}


void* csu_realloc(void* p, size_t oldsize, size_t n) {
  g_allocations++;
  unsigned char* r = realloc(p, n ? n : 1);
  if (r && n > oldsize) {
    for (size_t i = oldsize; i < n; i++) {
      r[i] = 0;
    }
  }
  return r;
}


void csu_free(void* p, size_t n) {
  (void)n;
  free(p);
}


long csu_allocationCount(void) {
  return g_allocations;
}
