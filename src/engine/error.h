// error.h: filling a csError (private).
#ifndef CONTACTSIM_ERROR_H
#define CONTACTSIM_ERROR_H

#include "contactsim/types.h"

// Fill err (nullable) with a code, a JSON path (may be "") and a printf-style sentence.
void cs_setError(csError* err, csStatus code, const char* path, const char* fmt, ...)
    __attribute__((format(printf, 4, 5)));

#endif  // CONTACTSIM_ERROR_H
