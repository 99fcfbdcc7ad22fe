// study_load.c: the study file of `contactsim sweep` (docs/sweep-format.md) read into a plan of
// runs, and the sweep directory's manifest read back; with the scene loader, the only users of
// cJSON.
//
// The study is read as strictly as a scene: unknown and duplicate keys, non-finite numbers,
// non-integers where a count is needed, empty lists and impossible ranges are errors naming their
// JSON path ("parameters[2].range.n"). Every point of every axis is expanded here, once, into
// the JSON text that the scene loader takes as an override: a range's points and the random
// samples are computed by this file alone, so every process of a sweep (local workers, Slurm
// array tasks, the final gather) derives the same values from the same study bytes.
//
// The random samples come from xoshiro256** seeded through splitmix64, our own few lines rather
// than the C library's rand(), whose sequence differs between libraries; the samples are then
// bitwise the same on every machine (the normal and log-uniform ones up to libm's log and exp,
// which glibc computes the same way on every x86-64 and arm64 machine).
#include "io/study_load.h"

#include "cJSON.h"
#include "engine/error.h"
#include "io/shortest.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// study and manifest files larger than this are refused before they are parsed
#define CS_MAX_STUDY_BYTES (16L * 1024 * 1024)


// ---------------------------------------------------------------------------------------------
// hashes and random numbers

uint64_t csu_fnv1a(uint64_t h, const void* bytes, size_t n) {
  // FNV-1a 64: xor each byte in, multiply by the FNV prime
  const unsigned char* p = bytes;
  for (size_t i = 0; i < n; i++) {
    h ^= p[i];
    h *= 1099511628211ULL;
  }
  return h;
}


int csu_hashFile(const char* path, uint64_t* hash) {
  FILE* f = fopen(path, "rb");
  if (!f) {
    return -1;
  }
  // stream the bytes through the hash, a block at a time
  uint64_t h = CS_FNV_OFFSET;
  unsigned char buf[65536];
  size_t got;
  while ((got = fread(buf, 1, sizeof(buf), f)) > 0) {
    h = csu_fnv1a(h, buf, got);
  }
  int bad = ferror(f);
  fclose(f);
  if (bad) {
    return -1;
  }
  *hash = h;
  return 0;
}


// the shortest text that reads back to x, as the CSV writer prints its numbers (shortest.cc):
// 0.9 rather than 0.90000000000000002, and 5e-324 rather than 4.94065645841247e-324 (trying
// 15, 16 and 17 significant digits with printf found the first, not the second: a subnormal
// holds fewer digits than 15)
void csu_shortestNumber(double x, char* buf, size_t size) {
  size_t n = size > 0 ? cs_formatShortest(buf, size - 1, x) : 0;
  if (size > 0) {
    buf[n] = '\0';
  }
}


// splitmix64: turns any seed, 0 included, into well-mixed state words
static uint64_t splitmix64(uint64_t* x) {
  uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}


void csu_randomSeed(csRandom* r, uint64_t seed) {
  for (int i = 0; i < 4; i++) {
    r->s[i] = splitmix64(&seed);
  }
}


static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }


// xoshiro256** 1.0 (Blackman and Vigna, 2018)
uint64_t csu_randomNext(csRandom* r) {
  uint64_t* s = r->s;
  uint64_t result = rotl(s[1] * 5, 7) * 9;
  uint64_t t = s[1] << 17;
  s[2] ^= s[0];
  s[3] ^= s[1];
  s[1] ^= s[2];
  s[0] ^= s[3];
  s[2] ^= t;
  s[3] = rotl(s[3], 45);
  return result;
}


// the top 53 bits, scaled by 2^-53: every double in [0, 1) on that grid equally likely
double csu_randomUniform(csRandom* r) { return (double)(csu_randomNext(r) >> 11) * 0x1.0p-53; }


// Marsaglia's polar method: a point uniform in the unit disc gives a normal deviate through one
// log and one square root (the second deviate is dropped, so a sample never depends on an
// earlier one)
double csu_randomNormal(csRandom* r) {
  for (;;) {
    double x = 2 * csu_randomUniform(r) - 1, y = 2 * csu_randomUniform(r) - 1;
    double s = x * x + y * y;
    if (s > 0 && s < 1) {
      return x * sqrt(-2 * log(s) / s);
    }
  }
}


// ---------------------------------------------------------------------------------------------
// the reader's context: the study being filled, the first error, the JSON path

typedef struct Reader {
  csStudy* s;
  csError* err;
  char path[CS_MAX_PATH];
  size_t pathlen;
} Reader;


// the JSON path grows as the reader descends: ".key" or "[i]"; a path too long is cut
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-truncation"
static size_t pushKey(Reader* rd, const char* key) {
  size_t old = rd->pathlen;
  int n = snprintf(rd->path + old, sizeof(rd->path) - old, old ? ".%s" : "%s", key);
  rd->pathlen =
      n > 0 && (size_t)n < sizeof(rd->path) - old ? old + (size_t)n : sizeof(rd->path) - 1;
  return old;
}


static size_t pushIndex(Reader* rd, long i) {
  size_t old = rd->pathlen;
  int n = snprintf(rd->path + old, sizeof(rd->path) - old, "[%ld]", i);
  rd->pathlen =
      n > 0 && (size_t)n < sizeof(rd->path) - old ? old + (size_t)n : sizeof(rd->path) - 1;
  return old;
}
#pragma GCC diagnostic pop


static void popPath(Reader* rd, size_t old) {
  rd->pathlen = old;
  rd->path[old] = '\0';
}


// fail at the current path; returns -1 for the caller to pass on
__attribute__((format(printf, 2, 3))) static int fail(Reader* rd, const char* fmt, ...) {
  char msg[CS_MAX_ERROR];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof(msg), fmt, ap);
  va_end(ap);
  cs_setError(rd->err, CS_ERR_INPUT, rd->path, "%s", msg);
  return -1;
}


// every member of obj must be one of keys (NULL-terminated), each once
static int checkKeys(Reader* rd, const cJSON* obj, const char* const* keys) {
  for (const cJSON* c = obj->child; c; c = c->next) {
    const char* key = c->string ? c->string : "";
    int known = 0;
    for (int i = 0; keys[i] && !known; i++) {
      known = strcmp(keys[i], key) == 0;
    }
    size_t old = pushKey(rd, key);
    if (!known) {
      // the allowed keys, since the usual cause is a misspelling
      char list[CS_MAX_ERROR / 2];
      size_t len = 0;
      list[0] = '\0';
      for (int i = 0; keys[i] && len < sizeof(list); i++) {
        int n = snprintf(list + len, sizeof(list) - len, "%s%s", i ? ", " : "", keys[i]);
        len += n > 0 ? (size_t)n : 0;
      }
      return fail(rd, "unknown key '%.64s' (allowed here: %s)", key, list);
    }
    // cJSON keeps both members of a duplicated key: look for an earlier one of the same name
    for (const cJSON* e = obj->child; e != c; e = e->next) {
      if (e->string && strcmp(e->string, key) == 0) {
        return fail(rd, "the key '%.64s' appears more than once in this object", key);
      }
    }
    popPath(rd, old);
  }
  return 0;
}


// a finite number at the current path
static int readNumber(Reader* rd, const cJSON* item, double* out) {
  if (!cJSON_IsNumber(item) || !isfinite(item->valuedouble)) {
    return fail(rd, "expected a finite number");
  }
  *out = item->valuedouble;
  return 0;
}


// member `key` of obj as a finite number; a missing member is an error when required
static int memberNumber(Reader* rd, const cJSON* obj, const char* key, double* out) {
  const cJSON* item = cJSON_GetObjectItemCaseSensitive(obj, key);
  if (!item) {
    return fail(rd, "missing key '%s'", key);
  }
  size_t old = pushKey(rd, key);
  int r = readNumber(rd, item, out);
  popPath(rd, old);
  return r;
}


// member `key` of obj as an integer in [lo, hi]
static int memberInteger(Reader* rd, const cJSON* obj, const char* key, double lo, double hi,
                         long* out) {
  double v = 0;
  if (memberNumber(rd, obj, key, &v) != 0) {
    return -1;
  }
  if (v != floor(v) || v < lo || v > hi) {
    size_t old = pushKey(rd, key);
    int r = fail(rd, "expected an integer from %.0f to %.0f, not %.17g", lo, hi, v);
    popPath(rd, old);
    return r;
  }
  *out = (long)v;
  return 0;
}


// a key path: a non-empty string without spaces
static int readKey(Reader* rd, const cJSON* item, char* out) {
  if (!cJSON_IsString(item) || !item->valuestring[0]) {
    return fail(rd, "expected a key path such as \"contact_models.exponential_spring.mu_static\"");
  }
  if (strlen(item->valuestring) >= CS_MAX_PATH || strpbrk(item->valuestring, " \t\n")) {
    return fail(rd, "'%.64s' is not a key path (at most %d characters, no spaces)",
                item->valuestring, CS_MAX_PATH - 1);
  }
  snprintf(out, CS_MAX_PATH, "%s", item->valuestring);
  return 0;
}


// a new parameter key; a key given by two axes would have two values in one run
static int addKey(Reader* rd, const cJSON* item) {
  csStudy* s = rd->s;
  if (s->nkey >= CS_STUDY_MAX_KEYS) {
    return fail(rd, "a study varies at most %d keys", CS_STUDY_MAX_KEYS);
  }
  if (readKey(rd, item, s->key[s->nkey]) != 0) {
    return -1;
  }
  for (int k = 0; k < s->nkey; k++) {
    if (strcmp(s->key[k], s->key[s->nkey]) == 0) {
      return fail(rd, "the key '%s' is varied twice", s->key[k]);
    }
  }
  for (int k = 0; k < s->nset; k++) {
    if (strcmp(s->set_key[k], s->key[s->nkey]) == 0) {
      return fail(rd, "the key '%s' is also fixed in \"set\"", s->key[k]);
    }
  }
  s->nkey++;
  return 0;
}


// ---------------------------------------------------------------------------------------------
// values: the JSON text of each (for the loader's override) and its number

// append one value; the arrays grow by doubling, counted through csu_realloc
static int addValue(Reader* rd, const char* text, double number) {
  csStudy* s = rd->s;
  size_t len = strlen(text) + 1;
  if (len > CS_STUDY_MAX_VALUE) {
    return fail(rd, "a value's JSON text is longer than %d characters", CS_STUDY_MAX_VALUE - 1);
  }
  if (s->nvalue == s->value_capacity) {
    long cap = s->value_capacity ? 2 * s->value_capacity : 256;
    long* adr = csu_realloc(s->value_adr, sizeof(long) * (size_t)s->value_capacity,
                            sizeof(long) * (size_t)cap);
    if (adr) {
      s->value_adr = adr;
    }
    double* num = csu_realloc(s->value_number, sizeof(double) * (size_t)s->value_capacity,
                              sizeof(double) * (size_t)cap);
    if (num) {
      s->value_number = num;
    }
    if (!adr || !num) {
      cs_setError(rd->err, CS_ERR_MEMORY, rd->path, "out of memory for the study's values");
      return -1;
    }
    s->value_capacity = cap;
  }
  if (s->ntext + (long)len > s->text_capacity) {
    long cap = s->text_capacity ? 2 * s->text_capacity : 4096;
    while (cap < s->ntext + (long)len) {
      cap *= 2;
    }
    char* t = csu_realloc(s->text, (size_t)s->text_capacity, (size_t)cap);
    if (!t) {
      cs_setError(rd->err, CS_ERR_MEMORY, rd->path, "out of memory for the study's values");
      return -1;
    }
    s->text = t;
    s->text_capacity = cap;
  }
  memcpy(s->text + s->ntext, text, len);
  s->value_adr[s->nvalue] = s->ntext;
  s->value_number[s->nvalue] = number;
  s->ntext += (long)len;
  s->nvalue++;
  return 0;
}


// Numbers inside an array or object value as the shortest text that reads back to the same
// double: cJSON prints 15 digits where they read back to within its own tolerance
// (0.30000000000000004 as 0.3, 1.0000000000000002 as 1), and a run got the rounded value.
// Every number of item (a copy) turns into raw JSON text in place, its key and place kept (a
// replacement by key name looped for ever on a key given twice); 0, -1 when memory runs out,
// -2 for a number that is not finite (1e999).
static int exactNumbers(cJSON* item) {
  for (cJSON* c = item->child; c; c = c->next) {
    if (cJSON_IsNumber(c)) {
      if (!isfinite(c->valuedouble)) {
        return -2;
      }
      char text[32];
      csu_shortestNumber(c->valuedouble, text, sizeof(text));
      char* raw = cJSON_malloc(strlen(text) + 1);  // freed by cJSON_Delete, as a string is
      if (!raw) {
        return -1;
      }
      memcpy(raw, text, strlen(text) + 1);
      c->type = cJSON_Raw;
      c->valuestring = raw;
    } else {
      int r = exactNumbers(c);
      if (r != 0) {
        return r;
      }
    }
  }
  return 0;
}


// item as JSON text with exact numbers into *out (cJSON_free it); 0, -1 (memory) or -2 (a number
// that is not finite)
static int printExact(const cJSON* item, char** out) {
  cJSON* copy = cJSON_Duplicate(item, 1);
  int r = copy ? exactNumbers(copy) : -1;
  *out = r == 0 ? cJSON_PrintUnformatted(copy) : NULL;
  cJSON_Delete(copy);
  return r == 0 && !*out ? -1 : r;
}


// a value printExact could not print: what is wrong, said at the value's path
static int printFailed(Reader* rd, int r) {
  if (r == -2) {
    return fail(rd, "a number in the value is not finite (1e999 overflows a double)");
  }
  cs_setError(rd->err, CS_ERR_MEMORY, rd->path, "out of memory");
  return -1;
}


// a number as JSON text that reads back to the same double
static int addNumber(Reader* rd, double x) {
  // a draw can overflow where its parameters do not (a normal one with std 1e308)
  if (!isfinite(x)) {
    return fail(rd, "gives the value %g, which is not a finite number: its values overflow a "
                "double", x);
  }
  char text[32];
  csu_shortestNumber(x, text, sizeof(text));
  return addValue(rd, text, x);
}


// any JSON value, as given (a number, a string such as "adams", an array such as [0, 0, 1])
static int addJson(Reader* rd, const cJSON* item) {
  if (cJSON_IsNumber(item)) {
    double x = 0;
    return readNumber(rd, item, &x) != 0 ? -1 : addNumber(rd, x);
  }
  if (cJSON_IsNull(item) || cJSON_IsInvalid(item)) {
    return fail(rd, "null is not a value a scene key can take");
  }
  char* text = NULL;
  int printed = printExact(item, &text);
  if (printed != 0) {
    return printFailed(rd, printed);
  }
  int r = addValue(rd, text, NAN);
  cJSON_free(text);
  return r;
}


// ---------------------------------------------------------------------------------------------
// the axes

// An axis of n points, nkey keys each, may join the grid: checked before its points are
// computed, since a range or a random axis costs memory and time per point (some 50 bytes and
// a microsecond), and a typo such as "n": 1e9 or a third axis of 1000 points must be refused at
// once rather than after minutes and gigabytes. The product of the axes before it is s->npoint.
static int checkGridSize(Reader* rd, long n, int nkey) {
  const csStudy* s = rd->s;
  double points = (double)s->npoint * (double)n;
  if (points > (double)CS_STUDY_MAX_RUNS) {
    return fail(rd,
                "the grid would have %.0f points (%ld from the axes before this one, times %ld); "
                "a study has at most %ld runs",
                points, s->npoint, n, CS_STUDY_MAX_RUNS);
  }
  if ((double)s->nvalue + (double)n * nkey > (double)CS_STUDY_MAX_VALUES) {
    return fail(rd,
                "the axes would hold %.0f values (points times keys); a study holds at most %ld",
                (double)s->nvalue + (double)n * nkey, CS_STUDY_MAX_VALUES);
  }
  return 0;
}

// {"key": K, "values": [v, ...]} or {"keys": [K1, K2], "values": [[v1, v2], ...]}
static int readValuesAxis(Reader* rd, const cJSON* obj, csStudyAxis* ax) {
  const cJSON* key = cJSON_GetObjectItemCaseSensitive(obj, "key");
  const cJSON* keys = cJSON_GetObjectItemCaseSensitive(obj, "keys");
  const cJSON* values = cJSON_GetObjectItemCaseSensitive(obj, "values");
  // one key, or several set together
  ax->kind = CS_STUDY_VALUES;
  if (key && keys) {
    return fail(rd, "give either \"key\" or \"keys\", not both");
  }
  if (key) {
    size_t old = pushKey(rd, "key");
    if (addKey(rd, key) != 0) {
      return -1;
    }
    popPath(rd, old);
    ax->nkey = 1;
  } else if (keys) {
    size_t old = pushKey(rd, "keys");
    if (!cJSON_IsArray(keys) || cJSON_GetArraySize(keys) < 1) {
      return fail(rd, "expected a non-empty list of key paths");
    }
    long i = 0;
    for (const cJSON* k = keys->child; k; k = k->next, i++) {
      size_t o2 = pushIndex(rd, i);
      if (addKey(rd, k) != 0) {
        return -1;
      }
      popPath(rd, o2);
    }
    popPath(rd, old);
    ax->nkey = (int)i;
    ax->keylist = 1;
  } else {
    return fail(rd, "missing key 'key' (or 'keys')");
  }
  // the points: one value each, or a list of nkey values each
  size_t old = pushKey(rd, "values");
  if (!cJSON_IsArray(values) || cJSON_GetArraySize(values) < 1) {
    return fail(rd, "expected a non-empty list of values");
  }
  long p = 0;
  for (const cJSON* v = values->child; v; v = v->next, p++) {
    size_t o2 = pushIndex(rd, p);
    if (keys) {
      if (!cJSON_IsArray(v) || cJSON_GetArraySize(v) != ax->nkey) {
        return fail(rd, "expected a list of %d values, one per key of \"keys\"", ax->nkey);
      }
      long j = 0;
      for (const cJSON* e = v->child; e; e = e->next, j++) {
        size_t o3 = pushIndex(rd, j);
        if (addJson(rd, e) != 0) {
          return -1;
        }
        popPath(rd, o3);
      }
    } else if (addJson(rd, v) != 0) {
      return -1;
    }
    popPath(rd, o2);
  }
  popPath(rd, old);
  ax->npoint = p;
  return 0;
}


// {"key": K, "range": {"from": a, "to": b, "n": N, "scale": "linear" | "log"}}
static int readRangeAxis(Reader* rd, const cJSON* obj, csStudyAxis* ax) {
  ax->kind = CS_STUDY_RANGE;
  ax->nkey = 1;
  size_t old = pushKey(rd, "key");
  if (addKey(rd, cJSON_GetObjectItemCaseSensitive(obj, "key")) != 0) {
    return -1;
  }
  popPath(rd, old);
  const cJSON* range = cJSON_GetObjectItemCaseSensitive(obj, "range");
  old = pushKey(rd, "range");
  static const char* const keys[] = {"from", "to", "n", "scale", NULL};
  if (!cJSON_IsObject(range)) {
    return fail(rd, "expected an object {\"from\", \"to\", \"n\", \"scale\"}");
  }
  double a, b;
  long n;
  if (checkKeys(rd, range, keys) != 0 || memberNumber(rd, range, "from", &a) != 0 ||
      memberNumber(rd, range, "to", &b) != 0 ||
      memberInteger(rd, range, "n", 1, (double)CS_STUDY_MAX_RUNS, &n) != 0) {
    return -1;
  }
  size_t on = pushKey(rd, "n");
  if (checkGridSize(rd, n, 1) != 0) {
    return -1;
  }
  popPath(rd, on);
  // the scale: linear unless "log" is asked for; log needs both ends of one sign, not zero
  int logScale = 0;
  const cJSON* scale = cJSON_GetObjectItemCaseSensitive(range, "scale");
  if (scale) {
    size_t o2 = pushKey(rd, "scale");
    if (!cJSON_IsString(scale) ||
        (strcmp(scale->valuestring, "linear") != 0 && strcmp(scale->valuestring, "log") != 0)) {
      return fail(rd, "expected \"linear\" or \"log\"");
    }
    logScale = strcmp(scale->valuestring, "log") == 0;
    popPath(rd, o2);
  }
  if (logScale && !(a > 0 && b > 0)) {
    return fail(rd, "a log range needs \"from\" and \"to\" both positive, not %.17g and %.17g", a,
                b);
  }
  // n points with both ends exact: the interior ones at equal steps in x or in log x (and, where
  // the span b - a overflows a double though every point is finite, from -1e308 to 1e308, as
  // the weighted mean of the ends)
  int wide = !isfinite(b - a);
  for (long i = 0; i < n; i++) {
    double f = n > 1 ? (double)i / (double)(n - 1) : 0.0;
    double x = logScale ? exp(log(a) + f * (log(b) - log(a)))
               : wide   ? (1 - f) * a + f * b
                        : a + f * (b - a);
    x = i == 0 ? a : i == n - 1 ? b : x;
    if (addNumber(rd, x) != 0) {
      return -1;
    }
  }
  popPath(rd, old);
  ax->npoint = n;
  return 0;
}


// one random parameter: {"key": K, "distribution": "uniform" | "log_uniform", "min", "max"}
// or {"key": K, "distribution": "normal", "mean", "std"}
typedef struct RandomParam {
  int kind;     // 0 uniform, 1 log-uniform, 2 normal
  double a, b;  // min and max, or mean and standard deviation
} RandomParam;


static int readRandomParam(Reader* rd, const cJSON* obj, RandomParam* rp) {
  static const char* const keys[] = {"key", "distribution", "min", "max", "mean", "std", NULL};
  if (!cJSON_IsObject(obj)) {
    return fail(rd, "expected an object {\"key\", \"distribution\", ...}");
  }
  if (checkKeys(rd, obj, keys) != 0) {
    return -1;
  }
  size_t old = pushKey(rd, "key");
  if (addKey(rd, cJSON_GetObjectItemCaseSensitive(obj, "key")) != 0) {
    return -1;
  }
  popPath(rd, old);
  const cJSON* dist = cJSON_GetObjectItemCaseSensitive(obj, "distribution");
  old = pushKey(rd, "distribution");
  static const char* const names[] = {"uniform", "log_uniform", "normal"};
  rp->kind = -1;
  for (int i = 0; i < 3 && cJSON_IsString(dist); i++) {
    rp->kind = strcmp(dist->valuestring, names[i]) == 0 ? i : rp->kind;
  }
  if (rp->kind < 0) {
    return fail(rd, "expected \"uniform\", \"log_uniform\" or \"normal\"");
  }
  popPath(rd, old);
  // the two numbers of the distribution, and only those
  const char* ka = rp->kind == 2 ? "mean" : "min";
  const char* kb = rp->kind == 2 ? "std" : "max";
  const char* other[2] = {rp->kind == 2 ? "min" : "mean", rp->kind == 2 ? "max" : "std"};
  for (int i = 0; i < 2; i++) {
    if (cJSON_GetObjectItemCaseSensitive(obj, other[i])) {
      old = pushKey(rd, other[i]);
      return fail(rd, "the %s distribution takes \"%s\" and \"%s\", not \"%s\"", names[rp->kind],
                  ka, kb, other[i]);
    }
  }
  if (memberNumber(rd, obj, ka, &rp->a) != 0 || memberNumber(rd, obj, kb, &rp->b) != 0) {
    return -1;
  }
  old = pushKey(rd, kb);
  if (rp->kind == 2 && !(rp->b >= 0)) {
    return fail(rd, "the standard deviation must not be negative");
  }
  if (rp->kind != 2 && !(rp->b >= rp->a)) {
    return fail(rd, "\"max\" must not be below \"min\"");
  }
  if (rp->kind == 1 && !(rp->a > 0)) {
    return fail(rd, "a log-uniform distribution needs a positive \"min\"");
  }
  popPath(rd, old);
  return 0;
}


// {"random": {"n": N, "parameters": [...]}}: N points, each drawing every parameter in turn
static int readRandomAxis(Reader* rd, const cJSON* obj, csStudyAxis* ax, csRandom* rng) {
  ax->kind = CS_STUDY_RANDOM;
  const cJSON* rnd = cJSON_GetObjectItemCaseSensitive(obj, "random");
  size_t old = pushKey(rd, "random");
  static const char* const keys[] = {"n", "parameters", NULL};
  if (!cJSON_IsObject(rnd)) {
    return fail(rd, "expected an object {\"n\", \"parameters\"}");
  }
  long n;
  if (checkKeys(rd, rnd, keys) != 0 ||
      memberInteger(rd, rnd, "n", 1, (double)CS_STUDY_MAX_RUNS, &n) != 0) {
    return -1;
  }
  const cJSON* params = cJSON_GetObjectItemCaseSensitive(rnd, "parameters");
  size_t o2 = pushKey(rd, "parameters");
  if (!cJSON_IsArray(params) || cJSON_GetArraySize(params) < 1) {
    return fail(rd, "expected a non-empty list of {\"key\", \"distribution\", ...}");
  }
  RandomParam rp[CS_STUDY_MAX_KEYS];
  int np = 0;
  for (const cJSON* p = params->child; p; p = p->next, np++) {
    size_t o3 = pushIndex(rd, np);
    if (np >= CS_STUDY_MAX_KEYS || readRandomParam(rd, p, &rp[np]) != 0) {
      return np >= CS_STUDY_MAX_KEYS ? fail(rd, "too many parameters") : -1;
    }
    popPath(rd, o3);
  }
  popPath(rd, o2);
  size_t on = pushKey(rd, "n");
  if (checkGridSize(rd, n, np) != 0) {
    return -1;
  }
  popPath(rd, on);
  // the draws, sample by sample and parameter by parameter, from the study's one generator
  for (long i = 0; i < n; i++) {
    for (int k = 0; k < np; k++) {
      double x;
      switch (rp[k].kind) {
        case 0:
          x = rp[k].a + (rp[k].b - rp[k].a) * csu_randomUniform(rng);
          break;
        case 1:
          x = exp(log(rp[k].a) + (log(rp[k].b) - log(rp[k].a)) * csu_randomUniform(rng));
          break;
        default:
          x = rp[k].a + rp[k].b * csu_randomNormal(rng);
          break;
      }
      size_t o4 = pushKey(rd, "parameters");
      size_t o5 = pushIndex(rd, k);
      if (addNumber(rd, x) != 0) {
        return -1;
      }
      popPath(rd, o5);
      popPath(rd, o4);
    }
  }
  popPath(rd, old);
  ax->nkey = np;
  ax->npoint = n;
  return 0;
}


// one entry of "parameters": which kind of axis it is, by its keys
static int readAxis(Reader* rd, const cJSON* obj, csRandom* rng) {
  csStudy* s = rd->s;
  if (!cJSON_IsObject(obj)) {
    return fail(rd,
                "expected an object: {\"key\", \"values\"}, {\"keys\", \"values\"}, "
                "{\"key\", \"range\"} or {\"random\"}");
  }
  if (s->naxis >= CS_STUDY_MAX_AXES) {
    return fail(rd, "a study has at most %d axes", CS_STUDY_MAX_AXES);
  }
  csStudyAxis* ax = &s->axis[s->naxis];
  memset(ax, 0, sizeof(*ax));
  ax->keyadr = s->nkey;
  ax->valueadr = s->nvalue;
  int r;
  if (cJSON_GetObjectItemCaseSensitive(obj, "random")) {
    static const char* const keys[] = {"random", NULL};
    r = checkKeys(rd, obj, keys) != 0 ? -1 : readRandomAxis(rd, obj, ax, rng);
  } else if (cJSON_GetObjectItemCaseSensitive(obj, "range")) {
    static const char* const keys[] = {"key", "range", NULL};
    r = checkKeys(rd, obj, keys) != 0 ? -1 : readRangeAxis(rd, obj, ax);
  } else {
    static const char* const keys[] = {"key", "keys", "values", NULL};
    r = checkKeys(rd, obj, keys) != 0 ? -1 : readValuesAxis(rd, obj, ax);
  }
  if (r == 0) {
    s->naxis++;
  }
  return r;
}


// ---------------------------------------------------------------------------------------------
// text and files

int csu_utf8Length(const unsigned char* s) {
  if (s[0] < 0x80) {
    return 1;
  }
  int n = s[0] >= 0xf0 ? 4 : s[0] >= 0xe0 ? 3 : s[0] >= 0xc2 ? 2 : 0;
  if (n == 0 || s[0] > 0xf4) {
    return 0;
  }
  for (int i = 1; i < n; i++) {
    // also stops at the terminating zero
    if ((s[i] & 0xc0) != 0x80) {
      return 0;
    }
  }
  // the shortest form, no surrogates (U+D800..U+DFFF), nothing past U+10FFFF
  if ((s[0] == 0xe0 && s[1] < 0xa0) || (s[0] == 0xed && s[1] >= 0xa0) ||
      (s[0] == 0xf0 && s[1] < 0x90) || (s[0] == 0xf4 && s[1] >= 0x90)) {
    return 0;
  }
  return n;
}


int csu_jsonStringValue(const char* open, char* out, size_t size) {
  if (size > 0) {
    out[0] = '\0';
  }
  if (!open || open[0] != '"' || size == 0) {
    return 0;
  }
  const char* c = open + 1;
  while (*c && *c != '"') {
    c += c[0] == '\\' && c[1] ? 2 : 1;
  }
  cJSON* v = *c ? cJSON_ParseWithLength(open, (size_t)(c + 1 - open)) : NULL;
  int ok = cJSON_IsString(v);
  if (ok) {
    snprintf(out, size, "%s", v->valuestring);
  }
  cJSON_Delete(v);
  return ok;
}


void csu_jsonString(FILE* f, const char* s, int html) {
  fputc('"', f);
  for (const unsigned char* p = (const unsigned char*)s; *p; p++) {
    int n = csu_utf8Length(p);
    if (n > 1) {
      fwrite(p, 1, (size_t)n, f);
      p += n - 1;
    } else if (n == 0) {
      fputs("\\ufffd", f);
    } else if (*p == '"' || *p == '\\') {
      fprintf(f, "\\%c", *p);
    } else if (*p == '\n') {
      fputs("\\n", f);
    } else if (*p < 0x20 || *p == 0x7f || (html && (*p == '<' || *p == '>' || *p == '&'))) {
      fprintf(f, "\\u%04x", *p);
    } else {
      fputc(*p, f);
    }
  }
  fputc('"', f);
}


void csu_lineColumn(const char* text, size_t pos, int* line, int* column) {
  // columns count characters, as editors do: a UTF-8 continuation byte adds none
  int l = 1, c = 1;
  for (size_t i = 0; i < pos && text[i]; i++) {
    if (text[i] == '\n') {
      l++;
      c = 1;
    } else if (((unsigned char)text[i] & 0xC0) != 0x80) {
      c++;
    }
  }
  *line = l;
  *column = c;
}


// read and parse a JSON file strictly (one value, nothing after it); the bytes' hash through
// hash (nullable). Returns the tree, or NULL with err filled (err->file is set here).
static cJSON* parseFile(const char* path, uint64_t* hash, csError* err) {
  snprintf(err->file, sizeof(err->file), "%s", path);
  FILE* f = fopen(path, "rb");
  if (!f) {
    cs_setError(err, CS_ERR_IO, "", "cannot open '%s': %s", path, strerror(errno));
    return NULL;
  }
  // the whole file, with a terminating NUL; the size limit caps what a wrong path can cost
  size_t cap = 4096, n = 0;
  int readErrno = 0;
  char* buf = csu_malloc(cap);
  for (;;) {
    if (!buf) {
      fclose(f);
      cs_setError(err, CS_ERR_MEMORY, "", "out of memory reading '%s'", path);
      return NULL;
    }
    if (n + 1 >= cap) {
      if (cap >= (size_t)CS_MAX_STUDY_BYTES) {
        csu_free(buf, cap);
        fclose(f);
        cs_setError(err, CS_ERR_INPUT, "", "'%s' is larger than %ld bytes", path,
                    CS_MAX_STUDY_BYTES);
        return NULL;
      }
      char* grown = csu_realloc(buf, cap, 2 * cap);
      if (!grown) {
        csu_free(buf, cap);
      }
      buf = grown;
      cap *= 2;
      continue;
    }
    errno = 0;
    size_t got = fread(buf + n, 1, cap - 1 - n, f);
    readErrno = got == 0 && errno ? errno : readErrno;
    n += got;
    if (got == 0) {
      break;
    }
  }
  int bad = ferror(f);
  fclose(f);
  if (bad) {
    csu_free(buf, cap);
    // with the system's reason (a directory: EISDIR)
    cs_setError(err, CS_ERR_IO, "", "cannot read '%s'%s%s", path, readErrno ? ": " : "",
                readErrno ? strerror(readErrno) : "");
    return NULL;
  }
  buf[n] = '\0';
  if (hash) {
    *hash = csu_fnv1a(CS_FNV_OFFSET, buf, n);
  }
  // a NUL inside would end the parse early and hide the rest; an escaped one would cut a name
  cJSON* root = NULL;
  if (csu_jsonNulProblem(buf, n, err) == 0) {
    const char* end = NULL;
    root = cJSON_ParseWithLengthOpts(buf, n + 1, &end, 1);
    size_t pos = root ? n : end && end >= buf && end <= buf + n ? (size_t)(end - buf) : n;
    // a number cJSON took though JSON forbids it (010, 1.), in the text it read: the first error
    if (csu_jsonStrictProblem(buf, pos, err) != 0) {
      cJSON_Delete(root);
      root = NULL;
    } else if (!root) {
      csu_jsonSyntaxError(buf, n, pos, err);
    }
  }
  csu_free(buf, cap);
  return root;
}


// ---------------------------------------------------------------------------------------------
// the study

// The number of points an axis asks for, read leniently (0 when it cannot tell; the axis's own
// reader gives the error): a list's length, a range's or a random axis's "n".
static double declaredPoints(const cJSON* axis) {
  const cJSON* values = cJSON_GetObjectItemCaseSensitive(axis, "values");
  const cJSON* range = cJSON_GetObjectItemCaseSensitive(axis, "range");
  const cJSON* random = cJSON_GetObjectItemCaseSensitive(axis, "random");
  const cJSON* n = cJSON_GetObjectItemCaseSensitive(random ? random : range, "n");
  if (cJSON_IsArray(values) && !range && !random) {
    return cJSON_GetArraySize(values);
  }
  return cJSON_IsNumber(n) && isfinite(n->valuedouble) && n->valuedouble >= 1 ? n->valuedouble
                                                                              : 0;
}


// the models a study's size is counted with, for its messages: a study that lists no models
// runs the scene's, which are not known here, and is counted as one
static void modelsCounted(const csStudy* s, char* buf, size_t size) {
  if (s->nmodel) {
    snprintf(buf, size, "%d models", s->nmodel);
  } else {
    snprintf(buf, size, "one model, before the scene's models multiply it");
  }
}


// The size of the whole study, from the sizes its axes declare, before any point is computed:
// the axes are expanded in turn, and a grid of 10^9 points whose first axes are large would
// otherwise be refused only after those were made (tens of seconds and gigabytes for 10^7
// points). The error names the axis at which the product passes the limit.
static int checkStudySize(Reader* rd, const cJSON* params) {
  const csStudy* s = rd->s;
  double runs = (double)s->repeats * (s->nmodel ? s->nmodel : 1);
  long i = 0;
  for (const cJSON* a = params->child; a; a = a->next, i++) {
    double n = cJSON_IsObject(a) ? declaredPoints(a) : 0;
    if (n >= 1) {
      runs *= n;
    }
    if (runs > (double)CS_STUDY_MAX_RUNS) {
      pushIndex(rd, i);
      char models[64];
      modelsCounted(s, models, sizeof(models));
      return fail(rd,
                  "the study would have %.3g runs or more (the points of parameters[0] to "
                  "[%ld], times %d repeats and %s); a study has at most %ld runs",
                  runs, i, s->repeats, models, CS_STUDY_MAX_RUNS);
    }
  }
  return 0;
}

// the top level: scene, models, set, parameters, seed, repeats
static int readStudy(Reader* rd, const cJSON* root) {
  csStudy* s = rd->s;
  static const char* const keys[] = {"description", "scene", "models",  "set",
                                     "parameters",  "seed",  "repeats", NULL};
  if (!cJSON_IsObject(root)) {
    return fail(rd, "a study is a JSON object");
  }
  if (checkKeys(rd, root, keys) != 0) {
    return -1;
  }
  // the description: free text for the reader, ignored, but text (a number or an object there
  // is a study written wrong, as any other key of the wrong type is)
  const cJSON* description = cJSON_GetObjectItemCaseSensitive(root, "description");
  size_t old = pushKey(rd, "description");
  if (description && !cJSON_IsString(description)) {
    return fail(rd, "expected a string (free text)");
  }
  popPath(rd, old);
  // the scene, relative to the study's folder unless absolute
  const cJSON* scene = cJSON_GetObjectItemCaseSensitive(root, "scene");
  old = pushKey(rd, "scene");
  if (!cJSON_IsString(scene) || !scene->valuestring[0]) {
    return fail(rd, scene ? "expected the scene file's path" : "missing: the scene file's path");
  }
  const char* slash = strrchr(s->file, '/');
  int dirlen = slash && scene->valuestring[0] != '/' ? (int)(slash - s->file) + 1 : 0;
  // a scene named "-" is the file of that name next to the study, never standard input (which
  // the loaders read for a path "-")
  const char* here = dirlen == 0 && strcmp(scene->valuestring, "-") == 0 ? "./" : "";
  if (snprintf(s->scene, sizeof(s->scene), "%s%.*s%s", here, dirlen, s->file,
               scene->valuestring) >= (int)sizeof(s->scene)) {
    return fail(rd, "the scene's path is too long");
  }
  popPath(rd, old);
  // models: a list of contact model names (absent: every block of the scene)
  const cJSON* models = cJSON_GetObjectItemCaseSensitive(root, "models");
  if (models) {
    old = pushKey(rd, "models");
    if (!cJSON_IsArray(models) || cJSON_GetArraySize(models) < 1) {
      return fail(rd, "expected a non-empty list of contact model names");
    }
    for (const cJSON* m = models->child; m; m = m->next) {
      size_t o2 = pushIndex(rd, s->nmodel);
      if (s->nmodel >= CS_STUDY_MAX_MODELS) {
        return fail(rd, "at most %d models", CS_STUDY_MAX_MODELS);
      }
      if (!cJSON_IsString(m) || !m->valuestring[0] || strlen(m->valuestring) >= CS_MAX_NAME) {
        return fail(rd, "expected a contact model name (a block of the scene's contact_models)");
      }
      for (int i = 0; i < s->nmodel; i++) {
        if (strcmp(s->model[i], m->valuestring) == 0) {
          return fail(rd, "the model '%s' is listed twice", m->valuestring);
        }
      }
      snprintf(s->model[s->nmodel++], CS_MAX_NAME, "%s", m->valuestring);
      popPath(rd, o2);
    }
    popPath(rd, old);
  }
  // fixed overrides, applied to every run before the parameters
  const cJSON* set = cJSON_GetObjectItemCaseSensitive(root, "set");
  if (set) {
    old = pushKey(rd, "set");
    if (!cJSON_IsObject(set)) {
      return fail(rd, "expected an object {\"key.path\": value, ...}");
    }
    for (const cJSON* c = set->child; c; c = c->next) {
      size_t o2 = pushKey(rd, c->string ? c->string : "");
      if (s->nset >= CS_STUDY_MAX_SET) {
        return fail(rd, "at most %d fixed keys", CS_STUDY_MAX_SET);
      }
      cJSON keyItem = {.type = cJSON_String, .valuestring = c->string};
      if (readKey(rd, &keyItem, s->set_key[s->nset]) != 0) {
        return -1;
      }
      for (int i = 0; i < s->nset; i++) {
        if (strcmp(s->set_key[i], c->string) == 0) {
          return fail(rd, "the key '%.64s' appears more than once in this object", c->string);
        }
      }
      if (cJSON_IsNull(c) || (cJSON_IsNumber(c) && !isfinite(c->valuedouble))) {
        return fail(rd, "expected a value the scene key can take");
      }
      char text[64] = "";
      char* printed = NULL;
      if (cJSON_IsNumber(c)) {
        csu_shortestNumber(c->valuedouble, text, sizeof(text));
      } else {
        int r = printExact(c, &printed);
        if (r != 0) {
          return printFailed(rd, r);
        }
      }
      const char* t = printed ? printed : text;
      int toolong = strlen(t) >= CS_STUDY_MAX_VALUE;
      if (!toolong) {
        snprintf(s->set_value[s->nset++], CS_STUDY_MAX_VALUE, "%s", t);
      }
      cJSON_free(printed);
      if (toolong) {
        return fail(rd, "the value's JSON text is longer than %d characters",
                    CS_STUDY_MAX_VALUE - 1);
      }
      popPath(rd, o2);
    }
    popPath(rd, old);
  }
  // seed and repeats
  s->seed = 0;
  if (cJSON_GetObjectItemCaseSensitive(root, "seed")) {
    long seed;
    // up to 2^53 - 1, every integer a double holds exactly: a seed written above it would be
    // read rounded (9007199254740993 as 2^53), another seed than the one written
    if (memberInteger(rd, root, "seed", 0, 9007199254740991.0, &seed) != 0) {
      return -1;
    }
    s->seed = (uint64_t)seed;
  }
  s->repeats = 1;
  if (cJSON_GetObjectItemCaseSensitive(root, "repeats")) {
    long rep;
    if (memberInteger(rd, root, "repeats", 1, 1000, &rep) != 0) {
      return -1;
    }
    s->repeats = (int)rep;
  }
  // the axes, in file order; the random ones draw from one generator in that order
  csRandom rng;
  csu_randomSeed(&rng, s->seed);
  const cJSON* params = cJSON_GetObjectItemCaseSensitive(root, "parameters");
  s->npoint = 1;
  if (params) {
    old = pushKey(rd, "parameters");
    if (!cJSON_IsArray(params)) {
      return fail(rd, "expected a list of axes");
    }
    if (checkStudySize(rd, params) != 0) {
      return -1;
    }
    long i = 0;
    for (const cJSON* a = params->child; a; a = a->next, i++) {
      size_t o2 = pushIndex(rd, i);
      if (readAxis(rd, a, &rng) != 0) {
        return -1;
      }
      // the grid's size (ranges and random axes were checked before their points were made;
      // a list's points are few, bounded by the file's size), guarded against an overflowing
      // product: both factors are at most CS_STUDY_MAX_RUNS and CS_MAX_STUDY_BYTES
      long axisPoints = s->axis[s->naxis - 1].npoint;
      if ((double)s->npoint * (double)axisPoints > (double)CS_STUDY_MAX_RUNS) {
        return fail(rd, "the grid would have %.0f points (%ld from the axes before this one, "
                    "times %ld); a study has at most %ld runs",
                    (double)s->npoint * (double)axisPoints, s->npoint, axisPoints,
                    CS_STUDY_MAX_RUNS);
      }
      s->npoint *= axisPoints;
      popPath(rd, o2);
    }
    popPath(rd, old);
  }
  long nrun = s->npoint * s->repeats * (s->nmodel ? s->nmodel : 1);
  if (nrun > CS_STUDY_MAX_RUNS) {
    char counted[64];
    modelsCounted(s, counted, sizeof(counted));
    return fail(rd, "the study has %ld runs (%ld points x %s x %d repeats); at most %ld", nrun,
                s->npoint, counted, s->repeats, CS_STUDY_MAX_RUNS);
  }
  return 0;
}


csStudy* cs_loadStudy(const char* path, csError* err) {
  memset(err, 0, sizeof(*err));
  csStudy* s = csu_malloc(sizeof(csStudy));
  if (!s) {
    cs_setError(err, CS_ERR_MEMORY, "", "out of memory");
    return NULL;
  }
  memset(s, 0, sizeof(*s));
  if (strlen(path) >= sizeof(s->file)) {
    cs_setError(err, CS_ERR_INPUT, "", "the study's path is longer than %d characters",
                CS_MAX_PATH - 1);
    csu_free(s, sizeof(csStudy));
    return NULL;
  }
  snprintf(s->file, sizeof(s->file), "%s", path);
  cJSON* root = parseFile(path, &s->hash, err);
  Reader rd = {.s = s, .err = err};
  int r = root ? readStudy(&rd, root) : -1;
  cJSON_Delete(root);
  if (r != 0) {
    snprintf(err->file, sizeof(err->file), "%s", path);
    cs_deleteStudy(s);
    return NULL;
  }
  return s;
}


void cs_deleteStudy(csStudy* s) {
  if (!s) {
    return;
  }
  csu_free(s->value_adr, sizeof(long) * (size_t)s->value_capacity);
  csu_free(s->value_number, sizeof(double) * (size_t)s->value_capacity);
  csu_free(s->text, (size_t)s->text_capacity);
  csu_free(s, sizeof(csStudy));
}


long cs_studyRunCount(const csStudy* s, int nmodel) { return s->npoint * nmodel * s->repeats; }


void cs_studyDecode(const csStudy* s, int nmodel, long index, long* point, int* model,
                    int* repeat) {
  *repeat = (int)(index % s->repeats);
  *model = (int)((index / s->repeats) % nmodel);
  *point = index / s->repeats / nmodel;
}


const char* cs_studyValue(const csStudy* s, long point, int k, double* number) {
  // the axis of key k, and that axis's coordinate of the point: the first axis varies slowest
  int a = 0;
  while (a + 1 < s->naxis && s->axis[a + 1].keyadr <= k) {
    a++;
  }
  long stride = 1;
  for (int b = s->naxis - 1; b > a; b--) {
    stride *= s->axis[b].npoint;
  }
  const csStudyAxis* ax = &s->axis[a];
  long coord = (point / stride) % ax->npoint;
  long v = ax->valueadr + coord * ax->nkey + (k - ax->keyadr);
  if (number) {
    *number = s->value_number[v];
  }
  return s->text + s->value_adr[v];
}


int cs_studyOverrides(const csStudy* s, long point, csOverride* ov) {
  int n = 0;
  for (int i = 0; i < s->nset; i++) {
    ov[n++] = (csOverride){.key = s->set_key[i], .value = s->set_value[i]};
  }
  for (int k = 0; k < s->nkey; k++) {
    ov[n++] = (csOverride){.key = s->key[k], .value = cs_studyValue(s, point, k, NULL)};
  }
  return n;
}


// ---------------------------------------------------------------------------------------------
// the records and the manifest of a sweep directory

size_t csu_jsonNulEscape(const char* text, size_t n) {
  int inString = 0;
  for (size_t i = 0; i < n; i++) {
    if (text[i] == '"') {
      inString = !inString;
    } else if (inString && text[i] == '\\' && i + 1 < n) {
      if (text[i + 1] == 'u' && i + 5 < n && strncmp(text + i + 2, "0000", 4) == 0) {
        return i;
      }
      i++;  // the escaped character (a quote among them) is not the string's end
    }
  }
  return n;
}


int csu_jsonNulProblem(const char* text, size_t n, csError* err) {
  size_t nul = strlen(text), esc = csu_jsonNulEscape(text, n);
  if (nul >= n && esc >= n) {
    return 0;
  }
  int line, column;
  csu_lineColumn(text, nul < n ? nul : esc, &line, &column);
  if (nul < n) {
    cs_setError(err, CS_ERR_INPUT, "", "the file contains a NUL byte at line %d, column %d", line,
                column);
  } else {
    cs_setError(err, CS_ERR_INPUT, "", "a string holds the NUL character (\\u0000) at line %d, "
                "column %d: names and values cannot contain it", line, column);
  }
  err->line = line;
  err->column = column;
  return -1;
}


// what RFC 8259's grammar finds wrong with the number t[0..k) (the characters cJSON read as
// one), or NULL: cJSON hands them to strtod, which also takes 010, 1., -.5 and 1.e5
static const char* numberProblem(const char* t, size_t k) {
#define DIGIT(i) ((i) < k && t[i] >= '0' && t[i] <= '9')
  size_t i = t[0] == '-';
  if (!DIGIT(i)) {
    return i < k && t[i] == '.' ? "a number needs a digit before its decimal point"
                                : "a minus sign must be followed by a digit";
  }
  if (t[i] == '0' && DIGIT(i + 1)) {
    return "a number may not start with 0 followed by a digit";
  }
  while (DIGIT(i)) {
    i++;
  }
  if (i < k && t[i] == '.') {
    if (!DIGIT(i + 1)) {
      return "a decimal point must be followed by a digit";
    }
    for (i++; DIGIT(i); i++) {
    }
  }
  if (i < k && (t[i] == 'e' || t[i] == 'E')) {
    i += i + 1 < k && (t[i + 1] == '+' || t[i + 1] == '-') ? 2 : 1;
    if (!DIGIT(i)) {
      return "an exponent needs a digit";
    }
    while (DIGIT(i)) {
      i++;
    }
  }
  return i < k ? "it is not a JSON number" : NULL;
#undef DIGIT
}


// an escape in a JSON string, s[0] the backslash, left bytes from it: one JSON has
static int validEscape(const char* s, size_t left) {
  if (left < 2 || !strchr("\"\\/bfnrtu", s[1]) || !s[1]) {
    return 0;
  }
  for (size_t h = 2; s[1] == 'u' && h < 6; h++) {
    if (h >= left || !s[h] || !strchr("0123456789abcdefABCDEF", s[h])) {
      return 0;
    }
  }
  return 1;
}

// (as the reason of an error, after ": ")
#define BAD_ESCAPE                                                                          \
  ": an escape JSON does not have (\\\" \\\\ \\/ \\b \\f \\n \\r \\t, \\u and four " \
  "hexadecimal digits)"


size_t csu_jsonNotStrict(const char* text, size_t n, char* why, size_t size) {
  int inString = 0;
  for (size_t i = 0; i < n; i++) {
    char c = text[i];
    if (inString) {
      if (c == '\\' && !validEscape(text + i, n - i)) {
        // (cJSON takes \u with fewer than four hexadecimal digits)
        if (why && size > 0) {
          snprintf(why, size, "%s", BAD_ESCAPE + 2);
        }
        return i;
      } else if (c == '\\') {
        i++;  // the escaped character (a quote among them) is not the string's end
      } else if (c == '"') {
        inString = 0;
      } else if ((unsigned char)c < 0x20) {
        // (a tab or a line break typed into a name or a description)
        if (why && size > 0) {
          snprintf(why, size, "a string holds the control character U+%04X, which JSON "
                   "needs escaped (\\t, \\n, \\u%04X)", (unsigned)c, (unsigned)c);
        }
        return i;
      }
      continue;
    }
    if (c == '"') {
      inString = 1;
      continue;
    }
    // outside strings, JSON text holds digits and minus signs only in numbers (true, false and
    // null have none): each starts the run of characters cJSON takes as one number
    if (c != '-' && !(c >= '0' && c <= '9')) {
      continue;
    }
    size_t e = i;
    while (e < n && text[e] && strchr("0123456789+-.eE", text[e])) {
      e++;
    }
    const char* problem = numberProblem(text + i, e - i);
    if (problem) {
      if (why && size > 0) {
        // the number as written, shortened when long (its characters are all printable)
        int shown = e - i > 40 ? 37 : (int)(e - i);
        snprintf(why, size, "the number %.*s%s: %s", shown, text + i, e - i > 40 ? "..." : "",
                 problem);
      }
      return i;
    }
    i = e - 1;
  }
  return n;
}


int csu_jsonStrictProblem(const char* text, size_t n, csError* err) {
  char why[CS_MAX_ERROR / 2];
  size_t bad = csu_jsonNotStrict(text, n, why, sizeof(why));
  if (bad >= n) {
    return 0;
  }
  int line, column;
  csu_lineColumn(text, bad, &line, &column);
  cs_setError(err, CS_ERR_INPUT, "", "malformed JSON at line %d, column %d: %s", line, column,
              why);
  err->line = line;
  err->column = column;
  return -1;
}


// The offset of the quote that closes the JSON string opened at text[open], or n when it is not
// closed within text[0..n) (or before a NUL): the one place strings are skipped, escapes and all.
static size_t stringEnd(const char* text, size_t n, size_t open) {
  for (size_t i = open + 1; i < n && text[i]; i++) {
    if (text[i] == '\\') {
      i++;  // the escaped character, whatever it is (a quote among them)
    } else if (text[i] == '"') {
      return i;
    }
  }
  return n;
}


int csu_jsonNesting(const char* text, size_t end, char* innermost) {
  char open[1024];  // the openers of the innermost levels (cJSON refuses past 1000 anyway)
  size_t depth = 0;
  char inner = 0;
  for (size_t i = 0; i < end && text[i]; i++) {
    char c = text[i];
    if (c == '"') {
      i = stringEnd(text, end, i);
      inner = i >= end ? '"' : 0;  // end lies inside this string
    } else if (c == '[' || c == '{') {
      if (depth < sizeof(open)) {
        open[depth] = c;
      }
      depth++;
    } else if ((c == ']' || c == '}') && depth > 0) {
      depth--;
    }
  }
  if (innermost) {
    *innermost = inner ? inner : depth > 0 && depth <= sizeof(open) ? open[depth - 1] : 0;
  }
  return (int)depth;
}


// the offset of the last character before pos that is not white space, or (size_t)-1
static size_t lastToken(const char* text, size_t pos) {
  while (pos > 0 && strchr(" \t\r\n", text[pos - 1])) {
    pos--;
  }
  return pos > 0 ? pos - 1 : (size_t)-1;
}


// the opening quote of the string that text[close] closes, or (size_t)-1
static size_t stringStart(const char* text, size_t close) {
  for (size_t i = 0; i < close && text[i]; i++) {
    if (text[i] == '"') {
      size_t e = stringEnd(text, close + 1, i);
      if (e == close) {
        return i;
      }
      i = e;
    }
  }
  return (size_t)-1;
}


// The value of the \u escape at s (s[0] the backslash, four hexadecimal digits after "\u").
static unsigned escapeCode(const char* s) {
  return (unsigned)strtoul((char[5]){s[2], s[3], s[4], s[5], '\0'}, NULL, 16);
}


// The first problem in the string opened at text[open] (n bytes of text): its offset, the
// reason in *why; or (size_t)-1 for none. An escape JSON does not have, a UTF-16 surrogate not
// in a pair (which cJSON refuses), a string not closed (at its opening quote).
static size_t stringProblem(const char* text, size_t n, size_t open, const char** why) {
  size_t close = stringEnd(text, n, open);
  for (size_t i = open + 1; i < close; i++) {
    if (text[i] != '\\') {
      continue;
    }
    if (i + 1 >= close) {
      break;  // a backslash as the last byte: the string is not closed
    }
    if (!validEscape(text + i, close - i)) {
      *why = BAD_ESCAPE;
      return i;
    }
    if (text[i + 1] == 'u') {
      unsigned u = escapeCode(text + i);
      int high = u >= 0xD800 && u <= 0xDBFF, low = u >= 0xDC00 && u <= 0xDFFF;
      int paired = high && i + 11 < close + 1 && text[i + 6] == '\\' && text[i + 7] == 'u' &&
                   validEscape(text + i + 6, close - i - 6) &&
                   escapeCode(text + i + 6) >= 0xDC00 && escapeCode(text + i + 6) <= 0xDFFF;
      if ((high && !paired) || low) {
        *why = ": a UTF-16 surrogate not in a pair (\\uD800 to \\uDBFF needs one of \\uDC00 "
               "to \\uDFFF after it; the parser takes no other)";
        return i;
      }
      i += paired ? 11 : 5;
      continue;
    }
    i++;
  }
  if (close >= n) {
    *why = ": the string is not closed";
    return open;
  }
  return (size_t)-1;
}


// What JSON expects where a parse stopped at text[pos] (a character it cannot take there), as
// the reason of the error: from the last character before it and the array or object it is in.
static const char* jsonExpected(const char* text, size_t pos) {
  char c = text[pos];
  size_t k = lastToken(text, pos);
  char prev = k == (size_t)-1 ? 0 : text[k];
  char open = 0;
  csu_jsonNesting(text, pos, &open);
  if ((c == '}' || c == ']') && prev == ',') {
    return ": a comma before the closing bracket (JSON allows none after the last item)";
  }
  if (open == '{' && (prev == '{' || prev == ',')) {
    return ": expected a name in double quotes";
  }
  if (prev == 0 || prev == '[' || prev == ',' || prev == ':') {
    return c == '+' && (isdigit((unsigned char)text[pos + 1]) || text[pos + 1] == '.')
               ? ": a number has no '+' in front (JSON allows only '-')"
           : isalpha((unsigned char)c) ? ": expected a value (a string needs double quotes)"
                                       : ": expected a value";
  }
  // after a string: a name when the string follows '{' or ',' in an object (then ':')
  if (prev == '"' && open == '{') {
    size_t before = lastToken(text, stringStart(text, k));
    if (before != (size_t)-1 && (text[before] == '{' || text[before] == ',')) {
      return ": expected ':' after the name";
    }
  }
  return open == '{' ? ": expected ',' or '}' after the value"
         : open == '[' ? ": expected ',' or ']' after the value"
                       : ": text after the value (a JSON text is one value)";
}


size_t csu_jsonErrorAt(const char* text, size_t n, size_t pos, const char** why) {
  // cJSON reads an object's key as a string from the character after the opening quote it
  // expects, and stops one past any other character there ("{,}", "{\"a\": 1,}"): the error
  // is that character, when it stands where a key must (after '{' or ',' in an object; not
  // the '}' of an empty object, "{}x")
  if (pos > 0 && pos <= n && !strchr(" \t\r\n\"", text[pos - 1])) {
    size_t k = lastToken(text, pos - 1);
    char open = 0;
    if (k != (size_t)-1 && (text[k] == ',' || (text[k] == '{' && text[pos - 1] != '}'))) {
      csu_jsonNesting(text, pos - 1, &open);
    }
    if (open == '{') {
      pos--;
    }
  }
  // a string before the place or around it with a problem of its own (cJSON fails inside a
  // string, or just after one it refused): that problem, at its place
  for (size_t i = 0; i < n && i <= pos && text[i]; i++) {
    if (text[i] == '"') {
      size_t at = stringProblem(text, n, i, why);
      if (at != (size_t)-1) {
        return at;
      }
      i = stringEnd(text, n, i);
    }
  }
  *why = pos >= n ? " (unexpected end of the text)" : jsonExpected(text, pos);
  return pos;
}


void csu_jsonSyntaxError(const char* text, size_t n, size_t pos, csError* err) {
  const char* why;
  pos = csu_jsonErrorAt(text, n, pos, &why);
  int line, column;
  csu_lineColumn(text, pos, &line, &column);
  cs_setError(err, CS_ERR_INPUT, "", "malformed JSON at line %d, column %d%s", line, column,
              why);
  err->line = line;
  err->column = column;
}


int csu_isJsonText(const char* text, size_t n) {
  // cJSON reads up to n bytes and must end exactly there: nothing cut, nothing after
  const char* end = NULL;
  cJSON* root = cJSON_ParseWithLengthOpts(text, n, &end, 0);
  int whole = root != NULL && end == text + n;
  cJSON_Delete(root);
  return whole;
}


int cs_readSweepManifest(const char* path, csSweepManifest* out, csError* err) {
  memset(err, 0, sizeof(*err));
  memset(out, 0, sizeof(*out));
  cJSON* root = parseFile(path, NULL, err);
  if (!root) {
    return -1;
  }
  // only the identifying fields are read; the rest of the manifest is for people
  Reader rd = {.err = err};
  const struct {
    const char* key;
    char* dst;
    size_t size;
  } strings[] = {{"study", out->study, sizeof(out->study)},
                 {"study_hash", out->study_hash, sizeof(out->study_hash)},
                 {"scene_hash", out->scene_hash, sizeof(out->scene_hash)}};
  int r = cJSON_IsObject(root) ? 0 : fail(&rd, "a sweep manifest is a JSON object");
  for (size_t i = 0; r == 0 && i < sizeof(strings) / sizeof(strings[0]); i++) {
    const cJSON* item = cJSON_GetObjectItemCaseSensitive(root, strings[i].key);
    size_t old = pushKey(&rd, strings[i].key);
    if (!cJSON_IsString(item) || strlen(item->valuestring) >= strings[i].size) {
      r = fail(&rd, "expected a string");
    } else {
      snprintf(strings[i].dst, strings[i].size, "%s", item->valuestring);
    }
    popPath(&rd, old);
  }
  if (r == 0) {
    r = memberInteger(&rd, root, "runs", 0, (double)CS_STUDY_MAX_RUNS, &out->nrun);
  }
  cJSON_Delete(root);
  if (r != 0) {
    snprintf(err->file, sizeof(err->file), "%s", path);
  }
  return r;
}
