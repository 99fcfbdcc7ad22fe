// error.h: filling a csError (private).
#ifndef CONTACTSIM_ERROR_H
#define CONTACTSIM_ERROR_H

#include "contactsim/types.h"

// Empty err (nullable): code CS_OK, no file, path, position, time or message. Every public
// function that takes a csError starts with this, so a caller's uninitialised struct never
// shows stale text beside a new message.
void cs_clearError(csError* err);

// Fill err (nullable) with a code, a JSON path (may be "") and a printf-style sentence.
void cs_setError(csError* err, csStatus code, const char* path, const char* fmt, ...)
    __attribute__((format(printf, 4, 5)));

// Put a printf-style prefix before err's message (nullable), which is cut to its buffer.
void cs_prefixError(csError* err, const char* fmt, ...) __attribute__((format(printf, 2, 3)));

#endif  // CONTACTSIM_ERROR_H
