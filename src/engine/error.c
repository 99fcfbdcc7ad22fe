// error.c: filling a csError.
//
// Every fallible library call fills a csError instead of printing or exiting; err may be NULL
// when the caller wants only the return code.
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "engine/error.h"


void cs_clearError(csError* err) {
  if (err) {
    memset(err, 0, sizeof(*err));
  }
}


void cs_setError(csError* err, csStatus code, const char* path, const char* fmt, ...) {
  if (!err) {
    return;
  }
  // the code, the JSON path of the offending value (may be empty), then the message; both strings
  // are truncated to fixed buffers rather than allocated, so reporting running out of memory
  // cannot itself fail. file, line, column and time are left to the caller, which knows them.
  err->code = code;
  snprintf(err->path, sizeof(err->path), "%s", path ? path : "");
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(err->message, sizeof(err->message), fmt, ap);
  va_end(ap);
}


void cs_prefixError(csError* err, const char* fmt, ...) {
  if (!err) {
    return;
  }
  char prefix[sizeof(err->message)], message[sizeof(err->message)];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(prefix, sizeof(prefix), fmt, ap);
  va_end(ap);
  memcpy(message, err->message, sizeof(message));
  size_t n = strlen(prefix), room = sizeof(err->message) - 1;
  n = n < room ? n : room;
  memcpy(err->message, prefix, n);
  size_t rest = strnlen(message, sizeof(message));
  rest = rest < room - n ? rest : room - n;
  memcpy(err->message + n, message, rest);
  err->message[n + rest] = '\0';
}
