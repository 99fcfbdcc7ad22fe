// compare.c: `contactsim compare` (placeholder).
#include "cli.h"


int cs_cliCompare(int argc, char** argv) {
  (void)argc;
  (void)argv;
  fprintf(stderr, "contactsim: error: compare is not available yet\n");
  return CS_EXIT_USAGE;
}
