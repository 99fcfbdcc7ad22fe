// error.c: filling a csError.
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "error.h"


void cs_setError(csError* err, csStatus code, const char* path, const char* fmt, ...) {
  if (!err) {
    return;
  }
  err->code = code;
  snprintf(err->path, sizeof(err->path), "%s", path ? path : "");
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(err->message, sizeof(err->message), fmt, ap);
  va_end(ap);
}
