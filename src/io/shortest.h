// shortest.h: doubles as the shortest text that reads back exactly (shortest.cc).
#ifndef CS_IO_SHORTEST_H
#define CS_IO_SHORTEST_H

#include <stddef.h>

// the longest text cs_formatShortest writes ("-2.2250738585072014e-308"), with room to spare
#define CS_SHORTEST_MAX 32

// Writes the shortest decimal text of x that strtod reads back as x, without a terminating NUL,
// and returns its length; 0 if it does not fit in size bytes (CS_SHORTEST_MAX always fits).
size_t cs_formatShortest(char* buf, size_t size, double x);

#endif
