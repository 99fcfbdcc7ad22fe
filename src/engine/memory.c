// memory.c: the counted allocator every library allocation goes through.
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "contactsim/contactsim.h"

// One process-wide counter of allocation calls. It is the single piece of global state in the
// library: a diagnostic that lets a test assert that a right-hand-side evaluation allocates
// nothing. It is only ever incremented, so sharing it between models is harmless; it is atomic
// so that simulations created in several threads at once (the C API promises they share
// nothing) do not race on it.
static _Atomic long g_allocations;


// zeroed, and never NULL for a zero size, so NULL always means out of memory
void* csu_malloc(size_t n) {
  g_allocations++;
  return calloc(1, n ? n : 1);
}


// like realloc, but the grown tail is zeroed as csu_malloc's memory is; the old size is passed in
// because the C library cannot be asked for it
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


// the size is part of the interface so that a sized allocator could replace this one without
// touching the callers; free does not need it
void csu_free(void* p, size_t n) {
  (void)n;
  free(p);
}


void csu_freeText(char* text) {
  if (text) {
    size_t size = 0;
    memcpy(&size, text + strlen(text) + 1, sizeof(size_t));
    csu_free(text, size);
  }
}


long csu_allocationCount(void) {
  return g_allocations;
}
