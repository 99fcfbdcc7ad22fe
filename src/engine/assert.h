// assert.h: checks of programmer errors (private).
//
// CS_ASSERT guards the library's own invariants and the preconditions of its API that only a
// programming mistake can break (an element index out of range, a model used before it is
// finalized). It is on in every build that does not define NDEBUG, which includes the test
// builds at any optimisation level, and its message is a sentence telling the caller what was
// wrong. Bad user input never reaches it: that is reported through csError (rule 7 of the
// style guide). CS_VALIDATE is a heavier tier (whole-model consistency checks) compiled in with
// the Meson option `validate`.
#ifndef CONTACTSIM_ASSERT_H
#define CONTACTSIM_ASSERT_H

#include <stdio.h>
#include <stdlib.h>

#ifndef NDEBUG
#define CS_ASSERT(cond, sentence)                                                       \
  do {                                                                                  \
    if (!(cond)) {                                                                      \
      fprintf(stderr, "contactsim: internal check failed at %s:%d: %s\n", __FILE__,     \
              __LINE__, (sentence));                                                    \
      abort();                                                                          \
    }                                                                                   \
  } while (0)
#else
#define CS_ASSERT(cond, sentence) ((void)sizeof(!(cond)))  // unevaluated: no cost
#endif

#ifdef CS_ENABLE_VALIDATE
#define CS_VALIDATE(cond, sentence) CS_ASSERT(cond, sentence)
#else
#define CS_VALIDATE(cond, sentence) ((void)sizeof(!(cond)))  // unevaluated: no cost
#endif

#endif  // CONTACTSIM_ASSERT_H
