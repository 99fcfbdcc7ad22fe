// scene_load.c: the JSON scene loader (scene file -> csModel), and the only file that includes
// cJSON.
//
// The loader reads the parsed tree strictly: every object's keys are checked against the keys it
// may hold (unknown and duplicate keys are errors), numbers must be finite, integers must be
// integral, and the JSON path of the value being read ("bodies[2].joint.q") is kept as the
// loader descends so that every error names it. The model is built only through the public
// cs_* building functions, in this order:
//   1. name, gravity, simulation options
//   2. bodies (parents before children), planes
//   3. the "gravity" element, then "forces" (keys driven by each kind's csParamInfo table)
//   4. "contacts" x the chosen entry of "contact_models": one element per contact point
//   5. "changes" (scheduled discrete-variable changes)
//   6. the kinds' validate callbacks, cs_finalizeModel, then the initial state q0/u0 (free
//      bodies given by their pose and velocity in Ground are converted to joint coordinates).
// docs/scene-format.md describes the format; keep the two in step.
//
// The load stops at the first error and reports it with its JSON path (malformed JSON: its line
// and column). Collecting every error was rejected: one bad value, such as a misspelt body name,
// sets off a cascade of follow-on errors that hide the real one.
// cJSON is lenient in ways a scene format must not be, so the loader never relies on it: keys are
// looked up only with cJSON_GetObjectItemCaseSensitive ("Mass" is an unknown key, not the mass),
// duplicate keys are found by checkKeys and walkParams (cJSON keeps both silently), and valueint
// is never read (integers are checked on valuedouble, so 2.5 is an error rather than 2).
#include "cJSON.h"
#include "engine/error.h"
#include "engine/forces.h"
#include "forces/kinds.h"
#include "engine/model.h"
#include "io/study_load.h"

#include "contactsim/contactsim.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// files larger than this are refused before they are read (no scene comes near it)
#define CS_MAX_SCENE_BYTES (64L * 1024 * 1024)
// longest parameter table a force kind may have (the loader tracks which keys were given)
#define CS_MAX_KIND_PARAMS 64
// longest dotted key of a force parameter ("body_material.stiffness")
#define CS_MAX_KEY 128
// radians per degree
#define CS_RADIANS_PER_DEGREE (3.14159265358979323846 / 180.0)

// ---------------------------------------------------------------------------------------------
// the loader's context and the JSON path of the value being read

// Names to ids in a hash table, so that a scene of 100,000 bodies loads in linear time: every
// body, plane and force name is looked up at least once (a parent, a contact's body, a change's
// target), and the model's own cs_bodyId is a linear search. Open addressing on a power-of-two
// table kept at most half full; a slot holds id + 1 (0: empty). The names themselves stay in the
// model's arrays.
typedef struct NameSlot {
  uint32_t hash;  // of the name: most probes that miss are told apart without strcmp
  int id;         // id + 1; 0: empty
  int origin;     // NameOrigin: where the name came from, for the message of a clash
} NameSlot;

// A name is the file's, an unnamed entry's default, or one the loader made (ground, the gravity
// element, a contact's elements "NAME.i"): a clash with a name the file does not hold says so.
typedef enum NameOrigin { NAME_GIVEN = 0, NAME_DEFAULT, NAME_MADE } NameOrigin;

typedef struct NameIndex {
  NameSlot* slot;  // (cap)
  size_t cap;      // 0 before the first insertion
  int count;
} NameIndex;

// the four name spaces of a scene (force elements and contact sets also share one, checked by
// looking in both)
enum { NAMES_BODY = 0, NAMES_PLANE, NAMES_FORCE, NAMES_GROUP, NAMES_COUNT };

// the state threaded through every reader: the model being built, the first error, and the JSON
// path of the current value, grown and shrunk as the readers descend. The path is a fixed buffer
// (no allocation); a path too long for it is cut, which only shortens messages.
// where a change read was written: its entry of "changes" and the variable's key there (the
// key's text is the parsed document's, which outlives the loading)
typedef struct ChangeSource {
  int entry;
  const char* key;
} ChangeSource;


typedef struct Loader {
  csModel* m;              // model being built (NULL before the name is known)
  csError* err;            // where the first error goes (never NULL inside the loader)
  char path[CS_MAX_JSON_PATH];  // JSON path of the value being read
  size_t pathlen;          // strlen(path)
  const csOverride* overrides;  // the load's parameters set by key path (noverrides)
  int noverrides;
  char (*created)[CS_MAX_JSON_PATH];  // (noverrides) JSON path of the first member each override
                                      // created, "" when it created none
  int* createdObject;                 // (noverrides) 1: that member is an object made on the way
                                      // to the value, 0: it is the value itself
  char (*target)[CS_MAX_JSON_PATH];   // (noverrides, after created) with csLoadOptions.distinct,
                                      // the JSON path of the value each override set, by index
                                      // (bodies[0].mass); NULL otherwise
  int unknownKey;                // the error recorded is an unknown key (a created one is the
                                 // override's fault)
  NameIndex names[NAMES_COUNT];  // bodies, planes, force elements, contact sets by name
  int* groupFirst;               // (ngroup) first element of each contact set (they are
                                 // consecutive), set while the contacts are built
  int* groupCount;               // (ngroup) its number of elements
  csChange* change;              // (nchange) the changes read, in the order read
  ChangeSource* changeFrom;      // (nchange) where each was written
  size_t nchange, capchange;
} Loader;

// ---------------------------------------------------------------------------------------------
// messages: what the scene wrote, made printable

// s[0..len) as printable text into out (size bytes, always terminated): printable ASCII and
// valid UTF-8 as they are; control characters (C0, DEL, C1) and bytes that are not valid UTF-8
// as \xNN, one per byte, so that a name with a terminal escape in it cannot act on the terminal
// and the message stays one line. Returns the length written.
static size_t escapeText(char* out, size_t size, const char* s, size_t len) {
  static const char hex[] = "0123456789abcdef";
  const unsigned char* p = (const unsigned char*)s;
  const unsigned char* end = p + len;
  size_t n = 0;
  while (p < end && *p) {
    int u = csu_utf8Length(p);
    // a sequence cut by the end of s counts as invalid
    if (u > 1 && p + u > end) {
      u = 0;
    }
    int c1 = u == 2 && p[0] == 0xc2 && p[1] < 0xa0;
    if ((u == 1 && *p >= 0x20 && *p != 0x7f) || (u > 1 && !c1)) {
      if (n + (size_t)u + 1 > size) {
        break;
      }
      memcpy(out + n, p, (size_t)u);
      n += (size_t)u;
      p += u;
    } else {
      if (n + 5 > size) {
        break;
      }
      out[n++] = '\\';
      out[n++] = 'x';
      out[n++] = hex[*p >> 4];
      out[n++] = hex[*p & 15];
      p++;
    }
  }
  if (size) {
    out[n] = '\0';
  }
  return n;
}


// append text[0..n) to the path; returns the previous length for popPath. The path is for
// messages: text that does not fit is cut (the buffer holds every path a valid scene has). The
// pushes run for every value read, so they copy by hand rather than through snprintf.
static size_t pushText(Loader* ld, const char* text, size_t n) {
  size_t old = ld->pathlen;
  // the common case, plain keys and indices, is copied; anything else goes through escapeText
  int plain = 1;
  for (size_t i = 0; i < n && plain; i++) {
    plain = text[i] >= 0x20 && text[i] < 0x7f;
  }
  if (plain) {
    size_t room = sizeof(ld->path) - 1 - old;
    // a path longer than the buffer (only an unknown key of hundreds of characters makes one)
    // ends in "..." so that the message shows it was cut
    if (n > room) {
      n = room >= 3 ? room - 3 : 0;
      memcpy(ld->path + old, text, n);
      memcpy(ld->path + old + n, "...", room - n);
      ld->pathlen = sizeof(ld->path) - 1;
      ld->path[ld->pathlen] = '\0';
      return old;
    }
    memcpy(ld->path + old, text, n);
    ld->pathlen = old + n;
    ld->path[ld->pathlen] = '\0';
  } else {
    ld->pathlen = old + escapeText(ld->path + old, sizeof(ld->path) - old, text, n);
  }
  return old;
}


// ".key" below an object ("key" at the top); a NULL key counts as empty
static size_t pushKey(Loader* ld, const char* key) {
  size_t old = ld->pathlen;
  if (old) {
    pushText(ld, ".", 1);
  }
  key = key ? key : "";
  pushText(ld, key, strlen(key));
  return old;
}


// "[index]" below an array
static size_t pushIndex(Loader* ld, int index) {
  // the digits from the end of a small buffer: "[", up to 10 digits and a sign, "]"
  char buf[16];
  char* p = buf + sizeof(buf);
  unsigned v = index < 0 ? 0u - (unsigned)index : (unsigned)index;
  *--p = ']';
  do {
    *--p = (char)('0' + v % 10);
    v /= 10;
  } while (v);
  if (index < 0) {
    *--p = '-';
  }
  *--p = '[';
  return pushText(ld, p, (size_t)(buf + sizeof(buf) - p));
}


// cut the path back to the length a push returned
static void popPath(Loader* ld, size_t len) {
  ld->pathlen = len;
  ld->path[len] = '\0';
}


// record an input error at the current path; returns -1 so callers can `return fail(...)`
__attribute__((format(printf, 2, 3))) static int fail(Loader* ld, const char* fmt, ...) {
  char msg[CS_MAX_ERROR];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof(msg), fmt, ap);
  va_end(ap);
  // names and keys from the scene are in the message: it is made printable as a whole (the
  // loader's own text is plain ASCII, so only what came from the scene changes)
  char safe[CS_MAX_ERROR];
  escapeText(safe, sizeof(safe), msg, strlen(msg));
  cs_setError(ld->err, CS_ERR_INPUT, ld->path, "%s", safe);
  return -1;
}


// an error at member `key` of the current value
__attribute__((format(printf, 3, 4))) static int failAt(Loader* ld, const char* key,
                                                        const char* fmt, ...) {
  char msg[CS_MAX_ERROR];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof(msg), fmt, ap);
  va_end(ap);
  // the key is pushed only for the message and popped again, so the caller's path is unchanged
  size_t p = pushKey(ld, key);
  fail(ld, "%s", msg);
  popPath(ld, p);
  return -1;
}


// the usual message for an absent required key, at that key's path
static int missing(Loader* ld, const char* key) {
  return failAt(ld, key, "the required key '%s' is missing", key);
}


// ---------------------------------------------------------------------------------------------
// typed readers: each checks the type of the value at the current path

// the JSON type of a value, as a phrase for "expected X, got Y" messages
static const char* typeName(const cJSON* item) {
  if (cJSON_IsNumber(item)) {
    return "a number";
  } else if (cJSON_IsString(item)) {
    return "a string";
  } else if (cJSON_IsBool(item)) {
    return "a boolean";
  } else if (cJSON_IsNull(item)) {
    return "null";
  } else if (cJSON_IsArray(item)) {
    return "an array";
  } else if (cJSON_IsObject(item)) {
    return "an object";
  }
  return "an invalid value";
}


// type checks that name the type found; each returns 0, or -1 with the error recorded
static int expectObject(Loader* ld, const cJSON* item) {
  return cJSON_IsObject(item) ? 0 : fail(ld, "expected an object, got %s", typeName(item));
}


static int expectArray(Loader* ld, const cJSON* item) {
  return cJSON_IsArray(item) ? 0 : fail(ld, "expected an array, got %s", typeName(item));
}


// a string; the pointer is into the cJSON tree and lives as long as the tree
static int expectString(Loader* ld, const cJSON* item, const char** out) {
  if (!cJSON_IsString(item) || !item->valuestring) {
    return fail(ld, "expected a string, got %s", typeName(item));
  }
  *out = item->valuestring;
  return 0;
}


// a finite number
static int expectNumber(Loader* ld, const cJSON* item, double* out) {
  if (!cJSON_IsNumber(item)) {
    return fail(ld, "expected a number, got %s", typeName(item));
  }
  // cJSON turns an overflowing literal such as 1e999 into infinity: refuse it here
  if (!isfinite(item->valuedouble)) {
    return fail(ld, "the number is not finite (out of the range of a double)");
  }
  *out = item->valuedouble;
  return 0;
}


// an integral number in [lo, hi]
static int expectInteger(Loader* ld, const cJSON* item, double lo, double hi, long* out) {
  double v = 0;
  if (expectNumber(ld, item, &v)) {
    return -1;
  }
  // checked on the double, not on cJSON's valueint, which truncates and saturates silently
  if (v != floor(v)) {
    return fail(ld, "expected an integer, got %.17g", v);
  }
  if (v < lo || v > hi) {
    return fail(ld, "the integer %.0f is outside [%.0f, %.0f]", v, lo, hi);
  }
  *out = (long)v;
  return 0;
}


// an array of exactly n finite numbers
static int expectNumbers(Loader* ld, const cJSON* item, int n, double* out) {
  if (expectArray(ld, item)) {
    return -1;
  }
  int len = cJSON_GetArraySize(item);
  if (len != n) {
    return fail(ld, "expected an array of %d numbers, got %d values", n, len);
  }
  // each element gets its index in the path, so that an error names it
  int i = 0;
  for (const cJSON* c = item->child; c && i < n; c = c->next, i++) {
    size_t p = pushIndex(ld, i);
    int r = expectNumber(ld, c, &out[i]);
    popPath(ld, p);
    if (r) {
      return -1;
    }
  }
  return 0;
}


// three finite numbers as a vector
static int expectVec3(Loader* ld, const cJSON* item, csVec3* out) {
  double a[3];
  if (expectNumbers(ld, item, 3, a)) {
    return -1;
  }
  *out = csu_vec3FromArray(a);
  return 0;
}


// sign rules of numeric values (the csParamInfo flags map onto them in readParam)
enum { RULE_ANY = 0, RULE_POSITIVE, RULE_NONNEG };

// a number obeying a sign rule
static int expectNumberRule(Loader* ld, const cJSON* item, int rule, double* out) {
  if (expectNumber(ld, item, out)) {
    return -1;
  }
  if (rule == RULE_POSITIVE && !(*out > 0)) {
    return fail(ld, "must be > 0, got %g", *out);
  }
  if (rule == RULE_NONNEG && !(*out >= 0)) {
    return fail(ld, "must be >= 0, got %g", *out);
  }
  return 0;
}


// member readers: 1 when read, 0 when absent, -1 on error
static int memberNumber(Loader* ld, const cJSON* obj, const char* key, int rule, double* out) {
  const cJSON* item = cJSON_GetObjectItemCaseSensitive(obj, key);
  if (!item) {
    return 0;
  }
  size_t p = pushKey(ld, key);
  int r = expectNumberRule(ld, item, rule, out);
  popPath(ld, p);
  return r ? -1 : 1;
}


// an optional vector member; 1 read, 0 absent, -1 error
static int memberVec3(Loader* ld, const cJSON* obj, const char* key, csVec3* out) {
  const cJSON* item = cJSON_GetObjectItemCaseSensitive(obj, key);
  if (!item) {
    return 0;
  }
  size_t p = pushKey(ld, key);
  int r = expectVec3(ld, item, out);
  popPath(ld, p);
  return r ? -1 : 1;
}


// an optional string member; 1 read, 0 absent, -1 error
static int memberString(Loader* ld, const cJSON* obj, const char* key, const char** out) {
  const cJSON* item = cJSON_GetObjectItemCaseSensitive(obj, key);
  if (!item) {
    return 0;
  }
  size_t p = pushKey(ld, key);
  int r = expectString(ld, item, out);
  popPath(ld, p);
  return r ? -1 : 1;
}


// an optional member naming one of n choices; *out its index when present; 1 read, 0 absent,
// -1 error (the message names what and lists the choices)
static int memberChoice(Loader* ld, const cJSON* obj, const char* key, const char* what,
                        const char* const* names, int n, int* out) {
  const char* s = NULL;
  int r = memberString(ld, obj, key, &s);
  if (r <= 0) {
    return r;
  }
  for (int i = 0; i < n; i++) {
    if (strcmp(names[i], s) == 0) {
      *out = i;
      return 1;
    }
  }
  char list[256] = "";
  for (int i = 0; i < n; i++) {
    size_t len = strlen(list);
    snprintf(list + len, sizeof(list) - len, "%s%s", i ? ", " : "", names[i]);
  }
  return failAt(ld, key, "unknown %s '%.64s' (%s)", what, s, list);
}


// the same, with absence an error
static int requireNumber(Loader* ld, const cJSON* obj, const char* key, int rule, double* out) {
  int r = memberNumber(ld, obj, key, rule, out);
  return r == 0 ? missing(ld, key) : (r < 0 ? -1 : 0);
}


static int requireString(Loader* ld, const cJSON* obj, const char* key, const char** out) {
  int r = memberString(ld, obj, key, out);
  return r == 0 ? missing(ld, key) : (r < 0 ? -1 : 0);
}


// ---------------------------------------------------------------------------------------------
// keys and names

// 1 if an earlier member of obj has the same key as c
static int isDuplicate(const cJSON* obj, const cJSON* c) {
  for (const cJSON* p = obj->child; p && p != c; p = p->next) {
    if (p->string && c->string && strcmp(p->string, c->string) == 0) {
      return 1;
    }
  }
  return 0;
}


// the message for a key given twice, at that key's path
static int duplicateKey(Loader* ld, const char* key) {
  return failAt(ld, key, "the key '%s' appears more than once in this object", key);
}


// every member of the object obj must be one of keys (NULL-terminated) and appear once. Each
// member is compared with the earlier ones only after it is known, so the cost stays bounded by
// the number of allowed keys however long the object is.
static int checkKeys(Loader* ld, const cJSON* obj, const char* const* keys) {
  for (const cJSON* c = obj->child; c; c = c->next) {
    const char* key = c->string ? c->string : "";
    int known = 0;
    for (int i = 0; keys[i] && !known; i++) {
      known = strcmp(keys[i], key) == 0;
    }
    // unknown: list the keys allowed here, since the usual cause is a misspelling
    if (!known) {
      char list[CS_MAX_ERROR / 2];
      size_t len = 0;
      list[0] = '\0';
      for (int i = 0; keys[i] && len < sizeof(list); i++) {
        int n = snprintf(list + len, sizeof(list) - len, "%s%s", i ? ", " : "", keys[i]);
        len += n > 0 ? (size_t)n : 0;
      }
      ld->unknownKey = 1;
      return failAt(ld, key, "unknown key '%.64s' (allowed here: %s)", key, list);
    }
    // only a known key reaches the duplicate check (see above)
    if (isDuplicate(obj, c)) {
      return duplicateKey(ld, key);
    }
  }
  return 0;
}


// names of bodies, planes, forces and contacts end up in CSV headers: keep them plain
static int checkName(Loader* ld, const char* name) {
  size_t len = strlen(name);
  if (len == 0) {
    return fail(ld, "a name must not be empty");
  }
  // names live in fixed CS_MAX_NAME buffers: a longer one is refused rather than cut, so that
  // two long names cannot end up equal
  if (len >= CS_MAX_NAME) {
    return fail(ld, "the name is %zu characters long; at most %d are allowed", len,
                CS_MAX_NAME - 1);
  }
  // letters, digits, '_', '-' and '.': nothing that needs quoting in a CSV header, and '.' since
  // contact elements are named "<contact>.<i>"
  for (const char* c = name; *c; c++) {
    int ok = (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') ||
             *c == '_' || *c == '-' || *c == '.';
    if (!ok) {
      return fail(ld, "the name '%s' may contain only letters, digits, '_', '-' and '.'", name);
    }
  }
  return 0;
}


// a name member (required or with a default); checks the character set and length
static int memberName(Loader* ld, const cJSON* obj, const char* key, const char* fallback,
                      char out[CS_MAX_NAME]) {
  const char* s = NULL;
  int r = memberString(ld, obj, key, &s);
  if (r < 0) {
    return -1;
  }
  if (r == 0) {
    if (!fallback) {
      return missing(ld, key);
    }
    s = fallback;
  }
  // the fallback is checked too, so that a generated name obeys the same rules
  size_t p = pushKey(ld, key);
  int bad = checkName(ld, s);
  popPath(ld, p);
  if (bad) {
    return -1;
  }
  snprintf(out, CS_MAX_NAME, "%s", s);
  return 0;
}


// the name of id in name space `which` of the model
static const char* nameOf(const csModel* m, int which, int id) {
  switch (which) {
    case NAMES_BODY:
      return m->body[id].name;
    case NAMES_PLANE:
      return m->plane[id].name;
    case NAMES_FORCE:
      return m->force[id].name;
    default:
      return m->group_name[id];
  }
}


// FNV-1a: short names, spread well enough for a table kept half empty
static size_t hashName(const char* s) {
  uint64_t h = 1469598103934665603ull;
  for (; *s; s++) {
    h = (h ^ (unsigned char)*s) * 1099511628211ull;
  }
  return (size_t)h;
}


// id of `name` in name space `which`, or -1
static const NameSlot* nameSlot(const Loader* ld, int which, const char* name) {
  const NameIndex* x = &ld->names[which];
  if (!x->cap || !name) {
    return NULL;
  }
  size_t h = hashName(name);
  for (size_t i = h & (x->cap - 1);; i = (i + 1) & (x->cap - 1)) {
    const NameSlot* s = &x->slot[i];
    if (!s->id) {
      return NULL;
    }
    if (s->hash == (uint32_t)h && strcmp(nameOf(ld->m, which, s->id - 1), name) == 0) {
      return s;
    }
  }
}


static int nameFind(const Loader* ld, int which, const char* name) {
  const NameSlot* s = nameSlot(ld, which, name);
  return s ? s->id - 1 : -1;
}


// put id (whose name hashes to h) into the first free slot from its home
static void nameInsert(NameIndex* x, size_t h, int id, int origin) {
  size_t i = h & (x->cap - 1);
  while (x->slot[i].id) {
    i = (i + 1) & (x->cap - 1);
  }
  x->slot[i].hash = (uint32_t)h;
  x->slot[i].id = id + 1;
  x->slot[i].origin = origin;
}


// record the newest id of name space `which`, its name of that origin (NameOrigin); the table
// doubles when half full. Returns -1 (with the error recorded) when memory runs out.
static int nameAdd(Loader* ld, int which, int id, int origin) {
  NameIndex* x = &ld->names[which];
  if (2 * ((size_t)x->count + 1) > x->cap) {
    size_t cap = x->cap ? 2 * x->cap : 64;
    NameSlot* slot = csu_malloc(cap * sizeof(NameSlot));
    if (!slot) {
      cs_setError(ld->err, CS_ERR_MEMORY, "", "out of memory indexing the names");
      return -1;
    }
    // rehash what the old table held into the new one (the stored hashes suffice: the
    // table size is a power of two, so the home slot is the hash's low bits)
    NameSlot* old = x->slot;
    size_t oldcap = x->cap;
    x->slot = slot;
    x->cap = cap;
    for (size_t i = 0; i < oldcap; i++) {
      if (old[i].id) {
        nameInsert(x, old[i].hash, old[i].id - 1, old[i].origin);
      }
    }
    csu_free(old, oldcap * sizeof(NameSlot));
  }
  nameInsert(x, hashName(nameOf(ld->m, which, id)), id, origin);
  x->count++;
  return 0;
}


static void nameFree(Loader* ld) {
  for (int i = 0; i < NAMES_COUNT; i++) {
    csu_free(ld->names[i].slot, ld->names[i].cap * sizeof(NameSlot));
    memset(&ld->names[i], 0, sizeof(ld->names[i]));
  }
}


// lookups by name in the model being built: id or -1
static int bodyId(const Loader* ld, const char* name) { return nameFind(ld, NAMES_BODY, name); }


static int planeId(const Loader* ld, const char* name) { return nameFind(ld, NAMES_PLANE, name); }


static int forceId(const Loader* ld, const char* name) { return nameFind(ld, NAMES_FORCE, name); }


static int groupId(const Loader* ld, const char* name) { return nameFind(ld, NAMES_GROUP, name); }


// What a clash of names in the force elements' and contact sets' name space adds where a name
// is not in the file: this entry's default name (given: 0), an earlier entry's, or one the
// loader made. "" when the name clashes with none.
static const char* nameClash(const Loader* ld, const char* name, int given) {
  const NameSlot* s = nameSlot(ld, NAMES_FORCE, name);
  s = s ? s : nameSlot(ld, NAMES_GROUP, name);
  if (!s) {
    return "";
  }
  return !given                   ? " (the name given by default to this entry, which has none: "
                                    "give it a \"name\")"
         : s->origin == NAME_DEFAULT ? " (the name given by default to an earlier entry without "
                                       "one: give that entry a \"name\")"
         : s->origin == NAME_MADE    ? " (the name of an element the loader makes: the gravity "
                                       "element, or a contact's element per point, NAME.i)"
                                     : "";
}


// force element and contact set names share one name space (changes refer to either); given:
// the name is the entry's own, not its default
static int checkForceNameFree(Loader* ld, const char* key, const char* name, int given) {
  if (forceId(ld, name) >= 0 || groupId(ld, name) >= 0) {
    return failAt(ld, key, "a force element or contact named '%s' already exists%s", name,
                  nameClash(ld, name, given));
  }
  return 0;
}


// body id of a name member (absent: fallback, or required when fallback is NULL)
static int memberBody(Loader* ld, const cJSON* obj, const char* key, const char* fallback,
                      int* id) {
  const char* s = NULL;
  int r = memberString(ld, obj, key, &s);
  if (r < 0) {
    return -1;
  }
  if (r == 0 && !fallback) {
    return missing(ld, key);
  }
  const char* name = r ? s : fallback;
  // bodies are looked up in the model built so far, hence the order rule in the message
  *id = bodyId(ld, name);
  if (*id < 0) {
    return failAt(ld, key, "there is no body named '%.64s' (bodies must be defined before use)",
                  name);
  }
  return 0;
}


// plane id of a required name member; planes too must be defined before use
static int memberPlane(Loader* ld, const cJSON* obj, const char* key, int* id) {
  const char* s = NULL;
  if (requireString(ld, obj, key, &s)) {
    return -1;
  }
  *id = planeId(ld, s);
  if (*id < 0) {
    return failAt(ld, key, "there is no plane named '%.64s'", s);
  }
  return 0;
}


// ---------------------------------------------------------------------------------------------
// rotations and frames

// v (n numbers) divided by its largest magnitude, so that its length can be taken without
// overflow or underflow (an axis of 1e160 or 1e-160 is as good as one of 1); 0 when v is zero
// or not finite
static int scaleToUnitRange(double* v, int n) {
  double big = 0;
  for (int i = 0; i < n; i++) {
    big = fmax(big, fabs(v[i]));
  }
  if (!(big > 0) || !isfinite(big)) {
    return 0;
  }
  for (int i = 0; i < n; i++) {
    v[i] /= big;
  }
  return 1;
}


// quaternion (w,x,y,z) from 4 numbers; a zero quaternion is an error, others are normalised
static int quatFromNumbers(Loader* ld, const double* a, csQuat* out) {
  // normalising is kinder than insisting on unit length: hand-typed quaternions such as
  // [0.7071, 0, 0, 0.7071] are a rounding away from it
  double s[4] = {a[0], a[1], a[2], a[3]};
  if (!scaleToUnitRange(s, 4)) {
    return fail(ld, "the quaternion must have a non-zero, finite length");
  }
  double n = sqrt(s[0] * s[0] + s[1] * s[1] + s[2] * s[2] + s[3] * s[3]);
  *out = csu_quat(s[0] / n, s[1] / n, s[2] / n, s[3] / n);
  return 0;
}


// ROTATION = {"axis", "angle"} | {"axis", "angle_deg"} | {"quaternion"}
static int readRotation(Loader* ld, const cJSON* item, csQuat* out) {
  static const char* const keys[] = {"axis", "angle", "angle_deg", "quaternion", NULL};
  if (expectObject(ld, item) || checkKeys(ld, item, keys)) {
    return -1;
  }
  // exactly one form: a quaternion, or an axis with one of the two angle keys
  const cJSON* quat = cJSON_GetObjectItemCaseSensitive(item, "quaternion");
  const cJSON* axis = cJSON_GetObjectItemCaseSensitive(item, "axis");
  int hasAngle = cJSON_GetObjectItemCaseSensitive(item, "angle") != NULL;
  int hasDeg = cJSON_GetObjectItemCaseSensitive(item, "angle_deg") != NULL;
  if (quat) {
    if (axis || hasAngle || hasDeg) {
      return failAt(ld, "quaternion", "give either 'quaternion' or 'axis' with an angle, not both");
    }
    double a[4];
    size_t p = pushKey(ld, "quaternion");
    int r = expectNumbers(ld, quat, 4, a) || quatFromNumbers(ld, a, out);
    popPath(ld, p);
    return r ? -1 : 0;
  }
  if (!axis) {
    return fail(ld, "a rotation needs 'axis' with 'angle' or 'angle_deg', or 'quaternion'");
  }
  // axis and angle: the axis need not be a unit vector (the conversion divides by its length)
  csVec3 v;
  size_t p = pushKey(ld, "axis");
  int r = expectVec3(ld, axis, &v);
  double a[3] = {v.x, v.y, v.z};
  if (!r && !scaleToUnitRange(a, 3)) {
    r = fail(ld, "the rotation axis must be a non-zero, finite vector");
  }
  v = csu_vec3(a[0], a[1], a[2]);
  popPath(ld, p);
  if (r) {
    return -1;
  }
  // one angle key only: radians and degrees together would be ambiguous
  if (hasAngle && hasDeg) {
    return failAt(ld, "angle_deg", "give either 'angle' (radians) or 'angle_deg', not both");
  }
  // the angle in radians, from whichever key gave it
  double angle = 0;
  if (hasAngle) {
    r = requireNumber(ld, item, "angle", RULE_ANY, &angle);
  } else if (hasDeg) {
    r = requireNumber(ld, item, "angle_deg", RULE_ANY, &angle);
    angle *= CS_RADIANS_PER_DEGREE;
  } else {
    r = missing(ld, "angle");
  }
  if (r) {
    return -1;
  }
  *out = csu_quatFromAxisAngle(v, angle);
  return 0;
}


// an optional rotation member; 1 read, 0 absent, -1 error
static int memberRotation(Loader* ld, const cJSON* obj, const char* key, csQuat* out) {
  const cJSON* item = cJSON_GetObjectItemCaseSensitive(obj, key);
  if (!item) {
    return 0;
  }
  size_t p = pushKey(ld, key);
  int r = readRotation(ld, item, out);
  popPath(ld, p);
  return r ? -1 : 1;
}


// FRAME = {"position": [3], "rotation": ROTATION}, both optional
static int readFrameParts(Loader* ld, const cJSON* item, csVec3* pos, csQuat* rot) {
  static const char* const keys[] = {"position", "rotation", NULL};
  // defaults: no offset, no rotation
  *pos = csu_vec3(0, 0, 0);
  *rot = csu_quatIdentity();
  if (expectObject(ld, item) || checkKeys(ld, item, keys)) {
    return -1;
  }
  if (memberVec3(ld, item, "position", pos) < 0 || memberRotation(ld, item, "rotation", rot) < 0) {
    return -1;
  }
  return 0;
}


// a frame member; identity when absent
static int memberFrame(Loader* ld, const cJSON* obj, const char* key, csTransform* X) {
  *X = csu_transformIdentity();
  const cJSON* item = cJSON_GetObjectItemCaseSensitive(obj, key);
  if (!item) {
    return 0;
  }
  csVec3 pos;
  csQuat rot;
  size_t p = pushKey(ld, key);
  int r = readFrameParts(ld, item, &pos, &rot);
  popPath(ld, p);
  if (r) {
    return -1;
  }
  *X = csu_transformFromPosQuat(pos, rot);
  return 1;
}


// ---------------------------------------------------------------------------------------------
// bodies

// what a body's "joint" says about the initial state; applied once the state is laid out
typedef struct BodyInit {
  int hasq, hasu;     // "q" / "u" given
  int hasinitial;     // free joint given by "initial" (pose and velocity in Ground)
  double q[7], u[6];  // joint coordinates and speeds as given (quaternions normalised)
  csTransform X_GB;   // "initial": body frame in Ground
  csVec3 w_G;         // "initial": angular velocity of the body, in Ground, rad/s
  csVec3 v_G;         // "initial": velocity of the body origin, in Ground, m/s
} BodyInit;

// SHAPE member c (key kind: "box", "sphere" or "cylinder") into shape: half sizes, radius, or
// {"radius", "half_length"} with the axis along the body's z; every size > 0
static int readShape(Loader* ld, const cJSON* c, const char* kind, csShape* shape) {
  memset(shape, 0, sizeof(*shape));
  int r = 0;
  if (strcmp(kind, "box") == 0) {
    // box: half sizes along the body axes, all positive
    csVec3 h = csu_vec3(0, 0, 0);
    r = expectVec3(ld, c, &h);
    if (!r && !(h.x > 0 && h.y > 0 && h.z > 0)) {
      r = fail(ld, "the half sizes of a box must be > 0");
    }
    *shape = (csShape){CS_SHAPE_BOX, {h.x, h.y, h.z}};
  } else if (strcmp(kind, "sphere") == 0) {
    // sphere: a solid ball of the given radius
    double radius = 0;
    r = expectNumberRule(ld, c, RULE_POSITIVE, &radius);
    *shape = (csShape){CS_SHAPE_SPHERE, {radius, 0, 0}};
  } else {
    // cylinder: {"radius", "half_length"}, its axis along the body's z
    static const char* const ckeys[] = {"radius", "half_length", NULL};
    double radius = 0, half = 0;
    r = expectObject(ld, c) || checkKeys(ld, c, ckeys) ||
        requireNumber(ld, c, "radius", RULE_POSITIVE, &radius) ||
        requireNumber(ld, c, "half_length", RULE_POSITIVE, &half);
    *shape = (csShape){CS_SHAPE_CYLINDER, {radius, half, 0}};
  }
  if (r) {
    shape->type = CS_SHAPE_NONE;
  }
  return r;
}


// INERTIA = {"diag"} | {"matrix"} | {"box"} | {"sphere"} | {"cylinder"}: about the COM, in the
// body frame; the shapes are solids of the body's mass, and the shape is kept (for drawing)
static int readInertia(Loader* ld, const cJSON* item, double mass, csMat33* I, csShape* shape) {
  static const char* const keys[] = {"diag", "matrix", "box", "sphere", "cylinder", NULL};
  memset(shape, 0, sizeof(*shape));
  if (expectObject(ld, item) || checkKeys(ld, item, keys)) {
    return -1;
  }
  // exactly one member, whose key names the form
  const cJSON* c = item->child;
  if (!c) {
    return fail(ld, "give one of 'diag', 'matrix', 'box', 'sphere', 'cylinder'");
  }
  if (c->next) {
    return failAt(ld, c->next->string,
                  "give only one of 'diag', 'matrix', 'box', 'sphere', "
                  "'cylinder'");
  }
  const char* kind = c->string;
  size_t p = pushKey(ld, kind);
  int r = 0;
  memset(I, 0, sizeof(*I));
  // each form yields the 3x3 matrix about the COM in the body frame
  if (strcmp(kind, "diag") == 0) {
    // diag: the principal moments along the body axes
    double a[3];
    r = expectNumbers(ld, c, 3, a);
    for (int i = 0; i < 3 && !r; i++) {
      I->m[i][i] = a[i];
    }
  } else if (strcmp(kind, "matrix") == 0) {
    // ixx, iyy, izz, ixy, ixz, iyz: the entries of the matrix (not negated products)
    double a[6];
    r = expectNumbers(ld, c, 6, a);
    if (!r) {
      csMat33 M = {{{a[0], a[3], a[4]}, {a[3], a[1], a[5]}, {a[4], a[5], a[2]}}};
      *I = M;
    }
  } else {
    // a solid shape: its inertia for the body's mass
    r = readShape(ld, c, kind, shape);
    if (!r) {
      const double* h = shape->size;
      *I = shape->type == CS_SHAPE_BOX      ? csu_inertiaBox(mass, csu_vec3(h[0], h[1], h[2]))
           : shape->type == CS_SHAPE_SPHERE ? csu_inertiaSphere(mass, h[0])
                                            : csu_inertiaCylinder(mass, h[0], h[1]);
    }
  }
  popPath(ld, p);
  if (r) {
    return -1;
  }
  // the physical checks apply to the resulting matrix, whatever form gave it
  for (int i = 0; i < 9; i++) {
    if (!isfinite(I->m[i / 3][i % 3])) {
      return fail(ld, "the inertia is not finite");
    }
  }
  // positive definiteness is not enough for a real body, which also obeys the triangle
  // inequality; the message says which of the two conditions failed
  if (!csu_inertiaIsValid(I)) {
    if (!csu_isPositiveDefinite(I) && strcmp(kind, "diag") != 0 && strcmp(kind, "matrix") != 0) {
      // a shape's moments are m r^2: a mass of 5e-324 kg leaves them zero
      return fail(ld, "the inertia of this %s of %g kg is zero in double precision (too small a "
                  "mass or size)", kind, mass);
    }
    if (!csu_isPositiveDefinite(I)) {
      return fail(ld, "the inertia matrix is not positive definite");
    }
    return fail(ld,
                "the principal moments of inertia violate the triangle inequality "
                "(each must be <= the sum of the other two)");
  }
  return 0;
}


// "initial" of a free joint: body pose and velocity in Ground
static int readInitial(Loader* ld, const cJSON* item, BodyInit* init) {
  static const char* const keys[] = {"position", "orientation", "velocity", "angular_velocity",
                                     NULL};
  if (expectObject(ld, item) || checkKeys(ld, item, keys)) {
    return -1;
  }
  // everything defaults to rest at the origin, unrotated
  csVec3 pos = csu_vec3(0, 0, 0);
  csQuat rot = csu_quatIdentity();
  init->v_G = init->w_G = csu_vec3(0, 0, 0);
  if (memberVec3(ld, item, "position", &pos) < 0 ||
      memberRotation(ld, item, "orientation", &rot) < 0 ||
      memberVec3(ld, item, "velocity", &init->v_G) < 0 ||
      memberVec3(ld, item, "angular_velocity", &init->w_G) < 0) {
    return -1;
  }
  init->X_GB = csu_transformFromPosQuat(pos, rot);
  init->hasinitial = 1;
  return 0;
}


// "q" or "u" of a joint: exactly n numbers; the quaternion of a ball or free joint is normalised
static int readCoordinates(Loader* ld, const cJSON* joint, const char* key, int n, int quaternion,
                           double* out, int* has) {
  const cJSON* item = cJSON_GetObjectItemCaseSensitive(joint, key);
  if (!item) {
    return 0;
  }
  size_t p = pushKey(ld, key);
  int r = 0;
  // the count is checked before the numbers, so that the message says how many the joint needs
  if (expectArray(ld, item)) {
    r = -1;
  } else if (cJSON_GetArraySize(item) != n) {
    r = fail(ld, "this joint needs %d %s values, got %d", n, key, cJSON_GetArraySize(item));
  } else if (n > 0) {
    r = expectNumbers(ld, item, n, out);
    csQuat qq = {1, 0, 0, 0};
    // ball and free joints start with a quaternion: normalise it as a rotation's is
    if (!r && quaternion) {
      r = quatFromNumbers(ld, out, &qq);
      if (!r) {
        out[0] = qq.w;
        out[1] = qq.x;
        out[2] = qq.y;
        out[3] = qq.z;
      }
    }
  }
  popPath(ld, p);
  *has = 1;
  return r;
}


// JOINT = {"type", "parent", "parent_frame", "child_frame", "q", "u"}, or "initial" in place of
// q and u for a free joint; fills the joint fields of body and the initial values in init
static int readJoint(Loader* ld, const cJSON* item, csBody* body, BodyInit* init) {
  static const char* const keys[] = {"type", "parent", "parent_frame", "child_frame",
                                     "q",    "u",      "initial",      NULL};
  static const char* const types[CS_JOINT_COUNT] = {"weld", "pin", "slider", "ball", "free"};
  if (expectObject(ld, item) || checkKeys(ld, item, keys)) {
    return -1;
  }
  // type
  const char* type = NULL;
  if (requireString(ld, item, "type", &type)) {
    return -1;
  }
  // types[] is indexed by csJointType
  int jt = -1;
  for (int i = 0; i < CS_JOINT_COUNT; i++) {
    if (strcmp(types[i], type) == 0) {
      jt = i;
    }
  }
  if (jt < 0) {
    return failAt(ld, "type", "unknown joint type '%.64s' (weld, pin, slider, ball, free)", type);
  }
  body->joint = (csJointType)jt;
  // parent and the two mobilizer frames
  if (memberBody(ld, item, "parent", "ground", &body->parent) ||
      memberFrame(ld, item, "parent_frame", &body->X_PF) < 0 ||
      memberFrame(ld, item, "child_frame", &body->X_BM) < 0) {
    return -1;
  }
  // initial coordinates and speeds, or (free joints) the initial pose and velocity in Ground
  const cJSON* initial = cJSON_GetObjectItemCaseSensitive(item, "initial");
  // "initial" excludes q and u, since the two would both set the same state
  if (initial) {
    if (jt != CS_JOINT_FREE) {
      return failAt(ld, "initial", "'initial' is only for free joints; give 'q' and 'u'");
    }
    if (cJSON_GetObjectItemCaseSensitive(item, "q") ||
        cJSON_GetObjectItemCaseSensitive(item, "u")) {
      return failAt(ld, "initial", "give either 'initial' or 'q'/'u', not both");
    }
    size_t p = pushKey(ld, "initial");
    int r = readInitial(ld, initial, init);
    popPath(ld, p);
    return r;
  }
  // joint coordinates as given, their counts from the joint type
  int quaternion = (jt == CS_JOINT_BALL || jt == CS_JOINT_FREE);
  if (readCoordinates(ld, item, "q", cs_jointQnum(body->joint), quaternion, init->q, &init->hasq) ||
      readCoordinates(ld, item, "u", cs_jointUnum(body->joint), 0, init->u, &init->hasu)) {
    return -1;
  }
  return 0;
}


// VISUAL = {"box"} | {"sphere"} | {"cylinder"}: the shape the body is drawn as (the replay
// page), centred on its centre of mass; the dynamics never reads it
static int readVisual(Loader* ld, const cJSON* item, csShape* shape) {
  static const char* const keys[] = {"box", "sphere", "cylinder", NULL};
  if (expectObject(ld, item) || checkKeys(ld, item, keys)) {
    return -1;
  }
  const cJSON* c = item->child;
  if (!c) {
    return fail(ld, "give one of 'box', 'sphere', 'cylinder'");
  }
  if (c->next) {
    return failAt(ld, c->next->string, "give only one of 'box', 'sphere', 'cylinder'");
  }
  size_t p = pushKey(ld, c->string);
  int r = readShape(ld, c, c->string, shape);
  popPath(ld, p);
  return r;
}


// BODY = {"name", "mass", "com", "inertia", "visual", "joint"}: read and check, then add through
// cs_addBody (which checks the tree); init receives the joint's initial values
static int readBody(Loader* ld, const cJSON* item, BodyInit* init) {
  static const char* const keys[] = {"name", "mass", "com", "inertia", "visual", "joint", NULL};
  if (expectObject(ld, item) || checkKeys(ld, item, keys)) {
    return -1;
  }
  // the fields the scene does not give (state addresses) stay zero until cs_finalizeModel
  csBody b;
  memset(&b, 0, sizeof(b));
  if (memberName(ld, item, "name", NULL, b.name)) {
    return -1;
  }
  // names are unique among bodies; ground exists from the start
  if (bodyId(ld, b.name) >= 0) {
    return failAt(ld, "name", "a body named '%s' already exists%s", b.name,
                  strcmp(b.name, "ground") == 0 ? " (ground is predefined)" : "");
  }
  if (requireNumber(ld, item, "mass", RULE_POSITIVE, &b.mass) ||
      memberVec3(ld, item, "com", &b.com) < 0) {
    return -1;
  }
  // the inertia is read after the mass, which the solid shapes need
  const cJSON* inertia = cJSON_GetObjectItemCaseSensitive(item, "inertia");
  if (!inertia) {
    return missing(ld, "inertia");
  }
  size_t p = pushKey(ld, "inertia");
  int r = readInertia(ld, inertia, b.mass, &b.inertia, &b.inertia_shape);
  popPath(ld, p);
  if (r) {
    return -1;
  }
  // the optional shape to draw the body as
  const cJSON* visual = cJSON_GetObjectItemCaseSensitive(item, "visual");
  if (visual) {
    p = pushKey(ld, "visual");
    r = readVisual(ld, visual, &b.visual);
    popPath(ld, p);
    if (r) {
      return -1;
    }
  }
  const cJSON* joint = cJSON_GetObjectItemCaseSensitive(item, "joint");
  if (!joint) {
    return missing(ld, "joint");
  }
  p = pushKey(ld, "joint");
  r = readJoint(ld, joint, &b, init);
  popPath(ld, p);
  if (r) {
    return -1;
  }
  // an error from cs_addBody gets the body's JSON path, which it cannot know
  int id = cs_addBody(ld->m, &b, ld->err);
  if (id < 0) {
    snprintf(ld->err->path, sizeof(ld->err->path), "%s", ld->path);
    return -1;
  }
  return nameAdd(ld, NAMES_BODY, id, NAME_GIVEN);
}


// PLANE = {"name", "body", "frame"}: a plane fixed on a body (ground by default), whose +z axis
// is the outward normal
static int readPlane(Loader* ld, const cJSON* item) {
  static const char* const keys[] = {"name", "body", "frame", NULL};
  if (expectObject(ld, item) || checkKeys(ld, item, keys)) {
    return -1;
  }
  csPlane pl;
  memset(&pl, 0, sizeof(pl));
  if (memberName(ld, item, "name", NULL, pl.name)) {
    return -1;
  }
  // plane names are unique among planes
  if (planeId(ld, pl.name) >= 0) {
    return failAt(ld, "name", "a plane named '%s' already exists", pl.name);
  }
  if (memberBody(ld, item, "body", "ground", &pl.body) ||
      memberFrame(ld, item, "frame", &pl.X_BP) < 0) {
    return -1;
  }
  // an error from cs_addPlane gets the plane's JSON path, which it cannot know
  int id = cs_addPlane(ld->m, &pl, ld->err);
  if (id < 0) {
    snprintf(ld->err->path, sizeof(ld->err->path), "%s", ld->path);
    return -1;
  }
  return nameAdd(ld, NAMES_PLANE, id, NAME_GIVEN);
}


// ---------------------------------------------------------------------------------------------
// force parameters, driven by the kind's csParamInfo table

// keys of a contact kind that come from the "contacts" entry, never from a model block
static int isGeometryKey(const char* key) {
  return strcmp(key, "body") == 0 || strcmp(key, "plane") == 0 || strcmp(key, "station") == 0 ||
         strcmp(key, "center") == 0 || strcmp(key, "radius") == 0;
}


// the table entries a scene may set: all of them, minus the geometry of a contact model block
static int paramAllowed(const csParamInfo* p, int geometryFromContact) {
  return !(geometryFromContact && isGeometryKey(p->key));
}


// a kind table whose slots do not fit csForce is a programming error; refuse it gracefully
static int checkSlot(Loader* ld, const csParamInfo* p) {
  int width = p->type == CS_PARAM_VEC3 ? 3 : (p->type == CS_PARAM_FRAME ? 7 : 1);
  int isref = p->type == CS_PARAM_BODY || p->type == CS_PARAM_PLANE || p->type == CS_PARAM_INT ||
              p->type == CS_PARAM_CHOICE;
  int limit = isref ? CS_MAX_REF : CS_MAX_PARAM;
  if (p->slot < 0 || p->slot + width > limit) {
    return fail(ld,
                "the parameter table of this force kind puts '%s' in slot %d, which does not "
                "exist",
                p->key, p->slot);
  }
  return 0;
}


// read the value of one table entry at the current path into f
static int readParam(Loader* ld, const cJSON* item, const csForceKind* k, const csParamInfo* p,
                     csForce* f) {
  if (checkSlot(ld, p)) {
    return -1;
  }
  // the table's flags become the sign rule of the value
  int rule = (p->flags & CS_PARAM_POSITIVE)
                 ? RULE_POSITIVE
                 : ((p->flags & CS_PARAM_NONNEG) ? RULE_NONNEG : RULE_ANY);
  switch (p->type) {
    // a real: one slot, obeying the sign rule
    case CS_PARAM_REAL:
      return expectNumberRule(ld, item, rule, &f->param[p->slot]);
    // a vector: each component obeys the rule, and the error names the component
    case CS_PARAM_VEC3: {
      if (expectNumbers(ld, item, 3, &f->param[p->slot])) {
        return -1;
      }
      for (int i = 0; i < 3; i++) {
        double v = f->param[p->slot + i];
        if ((rule == RULE_POSITIVE && !(v > 0)) || (rule == RULE_NONNEG && !(v >= 0))) {
          size_t q = pushIndex(ld, i);
          fail(ld, "must be %s 0, got %g", rule == RULE_POSITIVE ? ">" : ">=", v);
          popPath(ld, q);
          return -1;
        }
      }
      return 0;
    }
    // a frame: position, then quaternion (w, x, y, z), in seven consecutive slots
    case CS_PARAM_FRAME: {
      csVec3 pos;
      csQuat rot;
      if (readFrameParts(ld, item, &pos, &rot)) {
        return -1;
      }
      double* a = &f->param[p->slot];
      csu_vec3ToArray(a, pos);
      a[3] = rot.w;
      a[4] = rot.x;
      a[5] = rot.y;
      a[6] = rot.z;
      return 0;
    }
    // a body or a plane: the name is resolved to an id kept in ref[]
    case CS_PARAM_BODY:
    case CS_PARAM_PLANE: {
      const char* s = NULL;
      if (expectString(ld, item, &s)) {
        return -1;
      }
      if (!ld->m) {
        return 0;  // only checking keys (cs_sceneContactModels): names resolve at load time
      }
      int id = p->type == CS_PARAM_BODY ? bodyId(ld, s) : planeId(ld, s);
      if (id < 0) {
        return fail(ld, "there is no %s named '%.64s'", p->type == CS_PARAM_BODY ? "body" : "plane",
                    s);
      }
      f->ref[p->slot] = id;
      return 0;
    }
    // a non-negative integer, kept in ref[]
    case CS_PARAM_INT: {
      long v = 0;
      if (expectInteger(ld, item, 0, INT_MAX, &v)) {
        return -1;
      }
      f->ref[p->slot] = (int)v;
      return 0;
    }
    // one of the kind's names for the setting, kept in ref[] as its index in the list
    case CS_PARAM_CHOICE: {
      const char* s = NULL;
      if (expectString(ld, item, &s)) {
        return -1;
      }
      const char* const* names = k->choices ? k->choices[p - k->params] : NULL;
      char list[256] = "";
      size_t used = 0;
      for (int i = 0; names && names[i]; i++) {
        if (strcmp(s, names[i]) == 0) {
          f->ref[p->slot] = i;
          return 0;
        }
        int w = snprintf(list + used, sizeof(list) - used, "%s\"%s\"", i ? ", " : "", names[i]);
        if (w > 0 && used + (size_t)w < sizeof(list)) {
          used += (size_t)w;
        }
      }
      return fail(ld, "must be one of %s, got \"%.64s\"", list, s);
    }
  }
  // unreachable for a well-formed table
  return fail(ld, "the parameter '%s' has an unknown type in its kind table", p->key);
}


// 1 if some allowed table key starts with prefix followed by a dot
static int isKeyPrefix(const csForceKind* k, const char* prefix, int geometryFromContact) {
  size_t n = strlen(prefix);
  for (int i = 0; i < k->nparams; i++) {
    const csParamInfo* p = &k->params[i];
    if (paramAllowed(p, geometryFromContact) && strncmp(p->key, prefix, n) == 0 &&
        p->key[n] == '.') {
      return 1;
    }
  }
  return 0;
}


// walk the members of obj (keys relative to `prefix`, "" at the top): each is a table key, an
// object whose members continue a dotted table key, or (at the top) one of the reserved keys
//
// Nested objects are accepted in the scene, rather than flat dotted keys only, because a
// material reads naturally as "body_material": {"stiffness": ...}; the kind tables keep the flat
// dotted form so that a kind declares its parameters in one list.
static int walkParams(Loader* ld, const cJSON* obj, const char* prefix, const csForceKind* k,
                      csForce* f, int geometryFromContact, const char* const* reserved,
                      unsigned char* seen) {
  for (const cJSON* c = obj->child; c; c = c->next) {
    const char* key = c->string ? c->string : "";
    // reserved keys ("type", "name") belong to the caller, and only at the top level
    int isReserved = 0;
    for (int i = 0; !prefix[0] && reserved && reserved[i]; i++) {
      isReserved |= strcmp(reserved[i], key) == 0;
    }
    // a table key with a dot is written nested (scene-format.md); a member named with the dot
    // itself would be a second way to give it, which could give it twice with two values
    if (strchr(key, '.')) {
      ld->unknownKey = 1;
      const char* dot = strchr(key, '.');
      return failAt(ld, key, "unknown key '%.64s' for a force of type '%s'; a parameter with a dot "
                    "in its name is written nested: \"%.*s\": {\"%.64s\": ...}", key, k->name,
                    (int)(dot - key < 64 ? dot - key : 64), key, dot + 1);
    }
    // the dotted key this member stands for; a key too long for the buffer matches nothing
    char full[CS_MAX_KEY];
    int n = snprintf(full, sizeof(full), "%s%s%s", prefix, prefix[0] ? "." : "", key);
    int found = -1;
    for (int i = 0; i < k->nparams && !isReserved && n < (int)sizeof(full); i++) {
      if (paramAllowed(&k->params[i], geometryFromContact) && strcmp(k->params[i].key, full) == 0) {
        found = i;
      }
    }
    // not a key itself: perhaps the start of a longer dotted key
    int nested = found < 0 && !isReserved && n < (int)sizeof(full) &&
                 isKeyPrefix(k, full, geometryFromContact);
    // neither: unknown here; a geometry key in a model block gets a hint where it belongs
    if (found < 0 && !nested && !isReserved) {
      const char* why = (geometryFromContact && isGeometryKey(key))
                            ? "; the geometry of a contact comes from its \"contacts\" entry"
                            : "";
      ld->unknownKey = 1;
      // a key of the old vocabulary: name the new one
      const char* note = "";
      const char* renamed = cs_renamedKey(k, full, &note);
      if (renamed) {
        return failAt(ld, key, "'%.64s' is now called '%s'%s for a force of type '%s'", full,
                      renamed, note, k->name);
      }
      return failAt(ld, key, "unknown key '%.64s' for a force of type '%s'%s", key, k->name, why);
    }
    if (isDuplicate(obj, c)) {
      return duplicateKey(ld, key);
    }
    if (isReserved) {
      continue;
    }
    // read the value, or descend into the object with the longer prefix
    size_t p = pushKey(ld, key);
    int r;
    if (found >= 0) {
      seen[found] = 1;
      r = readParam(ld, c, k, &k->params[found], f);
    } else {
      r = expectObject(ld, c) || walkParams(ld, c, full, k, f, geometryFromContact, NULL, seen);
    }
    popPath(ld, p);
    if (r) {
      return -1;
    }
  }
  return 0;
}


// set the parameters of element f (of kind k) from the members of obj, then insist on the
// REQUIRED ones; geometryFromContact leaves out the keys a "contacts" entry provides
//
// The kind's csParamInfo table drives the reading, so a new kind needs no code here; the same
// table drives the documentation, so the scene format and the docs cannot disagree.
static int applyParams(Loader* ld, const cJSON* obj, const csForceKind* k, csForce* f,
                       int geometryFromContact, const char* const* reserved) {
  // seen[i] marks the table entries given, to find missing required ones afterwards
  unsigned char seen[CS_MAX_KIND_PARAMS];
  memset(seen, 0, sizeof(seen));
  // seen[] is on the stack, so the table size is capped: a longer table is refused, not overrun
  if (k->nparams > CS_MAX_KIND_PARAMS) {
    return fail(ld, "the force kind '%s' has more parameters than the loader supports", k->name);
  }
  if (walkParams(ld, obj, "", k, f, geometryFromContact, reserved, seen)) {
    return -1;
  }
  // required entries the scene did not give (the geometry excepted for model blocks)
  for (int i = 0; i < k->nparams; i++) {
    const csParamInfo* p = &k->params[i];
    if ((p->flags & CS_PARAM_REQUIRED) && !seen[i] && paramAllowed(p, geometryFromContact)) {
      return failAt(ld, p->key, "the required key '%s' of a force of type '%s' is missing", p->key,
                    k->name);
    }
  }
  return 0;
}


// a comma-separated list of the kind names, contact kinds only or the others
static void kindList(char* out, size_t size, int contact) {
  size_t len = 0;
  out[0] = '\0';
  for (int i = 0; i < CS_FORCE_KIND_COUNT && len < size; i++) {
    const csForceKind* k = cs_forceKind(i);
    // gravity comes from the top-level vector, so it is never listed as a type
    if ((k->contact != 0) != contact || i == CS_FORCE_GRAVITY) {
      continue;
    }
    int n = snprintf(out + len, size - len, "%s%s", len ? ", " : "", k->name);
    len += n > 0 ? (size_t)n : 0;
  }
  if (!out[0]) {
    snprintf(out, size, "none");
  }
}


// FORCE = {"type", "name", ...the kind's parameters}: one element; an unnamed one is called
// <type><index>
static int readForce(Loader* ld, const cJSON* item, int index) {
  static const char* const reserved[] = {"type", "name", NULL};
  if (expectObject(ld, item)) {
    return -1;
  }
  const char* type = NULL;
  if (requireString(ld, item, "type", &type)) {
    return -1;
  }
  // gravity has its own top-level key; any other known kind may be a force entry
  int kid = cs_forceKindByName(type);
  if (kid == CS_FORCE_GRAVITY) {
    return failAt(ld, "type", "gravity is not a force entry: set the top-level \"gravity\" vector");
  }
  // unknown: list the kinds a force entry takes, the contact kinds apart (a contact kind here is
  // one element of its own; "contacts" is their usual place)
  if (kid < 0) {
    char list[CS_MAX_ERROR / 2], contacts[CS_MAX_ERROR / 4];
    kindList(list, sizeof(list), 0);
    kindList(contacts, sizeof(contacts), 1);
    return failAt(ld, "type", "unknown force type '%.64s' (known: %s; contact kinds, one "
                  "element each: %s)", type, list, contacts);
  }
  const csForceKind* k = cs_forceKind(kid);
  char fallback[CS_MAX_NAME];
  snprintf(fallback, sizeof(fallback), "%.50s%d", k->name, index);
  char name[CS_MAX_NAME];
  int given = cJSON_GetObjectItemCaseSensitive(item, "name") != NULL;
  if (memberName(ld, item, "name", fallback, name) ||
      checkForceNameFree(ld, "name", name, given)) {
    return -1;
  }
  // the element is added first and then filled in place, in the model's array
  int e = cs_addForce(ld->m, kid, name, ld->err);
  if (e < 0) {
    snprintf(ld->err->path, sizeof(ld->err->path), "%s", ld->path);
    return -1;
  }
  if (nameAdd(ld, NAMES_FORCE, e, given ? NAME_GIVEN : NAME_DEFAULT)) {
    return -1;
  }
  return applyParams(ld, item, k, &ld->m->force[e], 0, reserved);
}


// ---------------------------------------------------------------------------------------------
// contacts: geometry once, the model chosen at load time

// one "contacts" entry, read before the model is chosen: the geometry is the same for every
// contact model, and its points become elements only once the model is known
typedef struct ContactGeom {
  // name of the contact set its elements form
  char name[CS_MAX_NAME];
  // touching body and the plane touched (ids in the model)
  int body, plane;
  double radius;        // m (sphere models)
  const cJSON* points;  // array of stations in the body frame (checked)
  // number of points: one element each
  int npoints;
  int named;  // 1: the name is the contact's own, not its default
} ContactGeom;

// CONTACT = {"name", "body", "plane", "points", "radius"}, checked in full here; the points are
// kept as the JSON array and copied into elements by buildContact
static int readContact(Loader* ld, const cJSON* item, int index, ContactGeom* g) {
  static const char* const keys[] = {"name", "body", "plane", "points", "radius", NULL};
  if (expectObject(ld, item) || checkKeys(ld, item, keys)) {
    return -1;
  }
  // an unnamed contact is called "contact<index>"
  char fallback[CS_MAX_NAME];
  snprintf(fallback, sizeof(fallback), "contact%d", index);
  g->named = cJSON_GetObjectItemCaseSensitive(item, "name") != NULL;
  if (memberName(ld, item, "name", fallback, g->name) ||
      memberBody(ld, item, "body", NULL, &g->body) || memberPlane(ld, item, "plane", &g->plane)) {
    return -1;
  }
  // the radius is optional here, since point models ignore it; buildContact insists on it for
  // sphere models
  g->radius = 0;
  if (memberNumber(ld, item, "radius", RULE_NONNEG, &g->radius) < 0) {
    return -1;
  }
  const cJSON* pts = cJSON_GetObjectItemCaseSensitive(item, "points");
  if (!pts) {
    return missing(ld, "points");
  }
  size_t p = pushKey(ld, "points");
  int r = expectArray(ld, pts);
  g->npoints = r ? 0 : cJSON_GetArraySize(pts);
  if (!r && g->npoints == 0) {
    r = fail(ld, "a contact needs at least one point");
  }
  // every point must be a vector of three finite numbers
  int i = 0;
  for (const cJSON* c = r ? NULL : pts->child; c; c = c->next, i++) {
    csVec3 v;
    size_t q = pushIndex(ld, i);
    r = expectVec3(ld, c, &v);
    popPath(ld, q);
    if (r) {
      break;
    }
  }
  popPath(ld, p);
  g->points = pts;
  return r;
}


// the "contact_models" object: every block's keys are checked against its kind's table (with a
// scratch element) even when another model is chosen, so a typo never waits for a later run
static int readContactModels(Loader* ld, const cJSON* cm, const char** defaultName, int* nblocks,
                             const cJSON** onlyBlock) {
  *defaultName = NULL;
  *nblocks = 0;
  *onlyBlock = NULL;
  if (expectObject(ld, cm)) {
    return -1;
  }
  // "default" names the chosen block; every other key must be a contact kind
  for (const cJSON* c = cm->child; c; c = c->next) {
    const char* key = c->string ? c->string : "";
    if (strcmp(key, "default") == 0) {
      if (isDuplicate(cm, c)) {
        return duplicateKey(ld, key);
      }
      size_t p = pushKey(ld, key);
      int r = expectString(ld, c, defaultName);
      popPath(ld, p);
      if (r) {
        return -1;
      }
      continue;
    }
    int kid = cs_forceKindByName(key);
    const csForceKind* k = kid >= 0 ? cs_forceKind(kid) : NULL;
    if (!k || !k->contact) {
      char list[CS_MAX_ERROR / 2];
      kindList(list, sizeof(list), 1);
      ld->unknownKey = 1;
      return failAt(ld, key, "unknown contact model '%.64s' (contact models: %s)", key, list);
    }
    if (isDuplicate(cm, c)) {
      return duplicateKey(ld, key);
    }
    // check the block's keys on a scratch element, which is then thrown away
    csForce scratch;
    memset(&scratch, 0, sizeof(scratch));
    size_t p = pushKey(ld, key);
    int r = expectObject(ld, c) || applyParams(ld, c, k, &scratch, 1, NULL);
    popPath(ld, p);
    if (r) {
      return -1;
    }
    (*nblocks)++;
    *onlyBlock = c;
  }
  // the only block is the fallback choice when there is no default
  if (*nblocks != 1) {
    *onlyBlock = NULL;
  }
  return 0;
}


// the names of the blocks of contact_models, for messages
static void blockList(const cJSON* cm, char* out, size_t size) {
  size_t len = 0;
  out[0] = '\0';
  for (const cJSON* c = cm ? cm->child : NULL; c && len < size; c = c->next) {
    if (c->string && strcmp(c->string, "default") != 0) {
      int n = snprintf(out + len, size - len, "%s%.64s", len ? ", " : "", c->string);
      len += n > 0 ? (size_t)n : 0;
    }
  }
  if (!out[0]) {
    snprintf(out, size, "none");
  }
}


// pick the contact model: the load option, else contact_models.default, else the only block
static int chooseContactModel(Loader* ld, const cJSON* cm, const char* requested,
                              const char* defaultName, const cJSON* onlyBlock, const cJSON** block,
                              int* kind) {
  char list[CS_MAX_ERROR / 2];
  blockList(cm, list, sizeof(list));
  const char* name = requested ? requested : defaultName;
  // called at the top level; a model requested by the caller belongs to no JSON value
  size_t p = ld->pathlen;
  if (!requested && defaultName) {
    pushKey(ld, "contact_models");
    pushKey(ld, "default");
  } else if (!requested) {
    // several blocks and no default: the choice is ambiguous, so ask for one
    if (!onlyBlock) {
      pushKey(ld, cm ? "contact_models" : "contacts");
      int r = fail(ld,
                   "the contacts need a contact model: give contact_models.default or a single "
                   "model block, or choose one with --contact-model (blocks: %s; compare runs "
                   "each)",
                   list);
      popPath(ld, p);
      return r;
    }
    name = onlyBlock->string;
  }
  // the name must be a contact kind and have a block
  int r = 0;
  int kid = cs_forceKindByName(name);
  if (kid < 0 || !cs_forceKind(kid)->contact) {
    char kinds[CS_MAX_ERROR / 2];
    kindList(kinds, sizeof(kinds), 1);
    r = fail(ld, "unknown contact model '%.64s' (contact models: %s)", name, kinds);
  } else if (!cm || !(*block = cJSON_GetObjectItemCaseSensitive(cm, name))) {
    r = fail(ld, "contact model '%.64s' has no parameter block in contact_models (blocks: %s)",
             name, list);
  }
  *kind = kid;
  popPath(ld, p);
  return r;
}


// an error at member `key` of contacts[ci] (called at the top level of the path)
__attribute__((format(printf, 4, 5))) static int failContact(Loader* ld, int ci, const char* key,
                                                             const char* fmt, ...) {
  char msg[CS_MAX_ERROR];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof(msg), fmt, ap);
  va_end(ap);
  size_t p = pushKey(ld, "contacts");
  pushIndex(ld, ci);
  failAt(ld, key, "%s", msg);
  popPath(ld, p);
  return -1;
}


// one element per contact point: "<contact name>.<i>" in the contact's set, with the geometry
// of contacts[ci] and the parameters of the model block (called at the top level of the path)
static int buildContact(Loader* ld, int ci, const ContactGeom* g, int kid, const cJSON* block) {
  const csForceKind* k = cs_forceKind(kid);
  if (k->contact == CS_CONTACT_SPHERE && !(g->radius > 0)) {
    return failContact(ld, ci, "radius",
                       "the contact model '%s' is a sphere model: give a "
                       "radius > 0",
                       k->name);
  }
  // the contact's name becomes a contact set, in the name space of force elements
  if (forceId(ld, g->name) >= 0 || groupId(ld, g->name) >= 0) {
    return failContact(ld, ci, "name", "a force element or contact named '%s' already exists%s",
                       g->name, nameClash(ld, g->name, g->named));
  }
  int group = cs_addGroup(ld->m, g->name, ld->err);
  if (group < 0 || nameAdd(ld, NAMES_GROUP, group, g->named ? NAME_GIVEN : NAME_DEFAULT)) {
    return -1;
  }
  // the set's elements follow, one per point
  ld->groupFirst[group] = ld->m->nforce;
  ld->groupCount[group] = g->npoints;
  // one element per point, named "<contact>.<i>"
  int i = 0;
  for (const cJSON* c = g->points->child; c; c = c->next, i++) {
    char name[CS_MAX_NAME + 16];
    snprintf(name, sizeof(name), "%s.%d", g->name, i);
    // the numbered element name must fit as well, not only the contact's
    if (strlen(name) >= CS_MAX_NAME) {
      // the last point's number is the longest suffix
      char last[32];
      int suffix = snprintf(last, sizeof(last), ".%d", g->npoints - 1);
      return failContact(ld, ci, "name",
                         "the contact name is too long to number its %d points: each point "
                         "is an element named '<contact>.<i>', at most %d bytes, so with %d "
                         "points the name may have at most %d bytes, not %zu",
                         g->npoints, CS_MAX_NAME - 1, g->npoints, CS_MAX_NAME - 1 - suffix,
                         strlen(g->name));
    }
    // a force entry may already use a name of that form
    if (forceId(ld, name) >= 0) {
      return failContact(ld, ci, "name", "the element name '%s' of this contact is already taken",
                         name);
    }
    int e = cs_addForce(ld->m, kid, name, ld->err);
    if (e < 0 || nameAdd(ld, NAMES_FORCE, e, NAME_MADE)) {
      return -1;
    }
    csForce* f = &ld->m->force[e];
    // geometry in the slot convention of forces.h: body, plane, station, radius
    f->group = group;
    f->ref[CS_REF_BODY] = g->body;
    f->ref[CS_REF_PLANE] = g->plane;
    for (int j = 0; j < 3; j++) {
      f->param[CS_SLOT_STATION + j] = cJSON_GetArrayItem(c, j)->valuedouble;
    }
    if (k->contact == CS_CONTACT_SPHERE) {
      f->param[CS_SLOT_RADIUS] = g->radius;
    }
    // the model's own parameters: errors name the block, not the contact
    size_t p = pushKey(ld, "contact_models");
    pushKey(ld, k->name);
    int r = applyParams(ld, block, k, f, 1, NULL);
    popPath(ld, p);
    if (r) {
      return -1;
    }
  }
  return 0;
}


// ---------------------------------------------------------------------------------------------
// scheduled changes of discrete variables

// Set n values of element e's discrete variables in turn (variable index[j] to value[j]), as a
// run sets them, from the element's initial values, in a scratch copy: 1 when one of them
// moves a value set before it under the kind's own rules (setDiscrete: lower_bound 2 after
// upper_bound 1 takes the upper bound along), with *earlier the value moved, *later the one
// that moved it and *to where; else 0
static int movesEarlier(Loader* ld, int e, const int* index, const double* value, int n,
                        int* earlier, int* later, double* to) {
  csForce* f = &ld->m->force[e];
  const csForceKind* k = cs_forceKind(f->kind);
  if (!k->setDiscrete || n < 2 || k->discnum > CS_MAX_KIND_PARAMS) {
    return 0;
  }
  // the element's discrete variables in a scratch array, from the parameters that give them
  // their initial values
  double disc[CS_MAX_KIND_PARAMS];
  for (int i = 0; i < k->discnum; i++) {
    const csParamInfo* p = k->discnames ? cs_paramOfVariable(k, k->discnames[i]) : NULL;
    disc[i] = p ? f->param[p->slot] : 0.0;
  }
  // the element's discrete variables are put at the start of the scratch array for the calls
  // (the state is not laid out yet, so its address is 0 anyway), then its address is restored
  int discadr = f->discadr;
  f->discadr = 0;
  csData d;
  memset(&d, 0, sizeof(d));
  d.disc = disc;
  d.ndisc = k->discnum;
  int moved = 0;
  for (int j = 0; j < n && !moved; j++) {
    k->setDiscrete(ld->m, &d, e, index[j], value[j]);
    for (int i = 0; i < j && !moved; i++) {
      if (disc[index[i]] != value[i]) {
        *earlier = i;
        *later = j;
        *to = disc[index[i]];
        moved = 1;
      }
    }
  }
  f->discadr = discadr;
  return moved;
}


// the values one change sets together must be consistent under the kind's own rules
// (setDiscrete): each is set in turn, as the run does, starting from the element's initial
// values, and a value that a later one of the same change moves (lower_bound 2 with upper_bound
// 1: the upper bound wins) is reported at its path. Values set at different times are not
// compared: there the kind's rule for the value being set is what the user asked for.
static int checkChangeTogether(Loader* ld, int e, const int* index, const double* value,
                               const char* const* key, int n) {
  int i, j;
  double to;
  if (!movesEarlier(ld, e, index, value, n, &i, &j, &to)) {
    return 0;
  }
  size_t p = pushKey(ld, key[j]);
  int r = fail(ld,
               "%s = %g and %s = %g, set by the same change, contradict each other (a force "
               "of type '%s' would change %s to %g)",
               key[j], value[j], key[i], value[i], cs_forceKind(ld->m->force[e].kind)->name,
               key[i], to);
  popPath(ld, p);
  return r;
}


// keep a change for addChanges; -1 when memory runs out
static int pendingChange(Loader* ld, const csChange* c, ChangeSource from) {
  if (ld->nchange == ld->capchange) {
    size_t cap = ld->capchange ? 2 * ld->capchange : 16;
    csChange* grown =
        csu_realloc(ld->change, ld->capchange * sizeof(csChange), cap * sizeof(csChange));
    if (grown) {
      ld->change = grown;
    }
    ChangeSource* src = grown ? csu_realloc(ld->changeFrom, ld->capchange * sizeof(ChangeSource),
                                            cap * sizeof(ChangeSource))
                              : NULL;
    if (!src) {
      // the changes array may have grown alone: its capacity is the sources' until both do
      csChange* back = grown ? csu_realloc(ld->change, cap * sizeof(csChange),
                                           ld->capchange * sizeof(csChange))
                             : NULL;
      ld->change = back ? back : ld->change;
      cs_setError(ld->err, CS_ERR_MEMORY, "", "out of memory reading the changes");
      return -1;
    }
    ld->changeFrom = src;
    ld->capchange = cap;
  }
  ld->changeFrom[ld->nchange] = from;
  ld->change[ld->nchange++] = *c;
  return 0;
}


// a change read, in the order of checkChangesAtOnce: by time, element, then as read
typedef struct ChangeOrder {
  double time;
  int force;
  size_t read;
} ChangeOrder;


static int compareChangeOrder(const void* pa, const void* pb) {
  const ChangeOrder *a = pa, *b = pb;
  if (a->time != b->time) {
    return a->time < b->time ? -1 : 1;
  }
  if (a->force != b->force) {
    return a->force < b->force ? -1 : 1;
  }
  return (a->read > b->read) - (a->read < b->read);
}


// Changes of one element at one time written in different entries of "changes" must agree as
// the values of one change must (checkChangeTogether): set in the order written, a value that
// a later one moves (lower_bound 1, then upper_bound -1 at the same time: the lower bound
// follows down) would make the outcome depend on the order, which it must not. Reported at the
// later value's path, naming the earlier entry. 0, or -1 with the error recorded.
static int checkChangesAtOnce(Loader* ld) {
  size_t n = ld->nchange;
  if (n < 2) {
    return 0;
  }
  ChangeOrder* order = csu_malloc(n * sizeof(ChangeOrder));
  int* index = csu_malloc(n * sizeof(int));
  double* value = csu_malloc(n * sizeof(double));
  int r = 0;
  if (!order || !index || !value) {
    r = -1;
    cs_setError(ld->err, CS_ERR_MEMORY, "", "out of memory checking the changes");
  }
  for (size_t i = 0; i < n && !r; i++) {
    order[i] = (ChangeOrder){ld->change[i].time, ld->change[i].force, i};
  }
  if (!r) {
    qsort(order, n, sizeof(ChangeOrder), compareChangeOrder);
  }
  for (size_t a = 0, b; a < n && !r; a = b) {
    // [a, b): one element's changes at one time, in the order read; written in one entry of
    // "changes", they were checked together as it was read
    int entries = 0;
    for (b = a; b < n && order[b].time == order[a].time && order[b].force == order[a].force;
         b++) {
      const csChange* c = &ld->change[order[b].read];
      index[b - a] = c->index;
      value[b - a] = c->value;
      entries |= ld->changeFrom[order[b].read].entry != ld->changeFrom[order[a].read].entry;
    }
    int i, j;
    double to;
    if (!entries || b - a > INT_MAX ||
        !movesEarlier(ld, order[a].force, index, value, (int)(b - a), &i, &j, &to)) {
      continue;
    }
    const ChangeSource si = ld->changeFrom[order[a + (size_t)i].read];
    const ChangeSource sj = ld->changeFrom[order[a + (size_t)j].read];
    size_t p = pushKey(ld, "changes");
    pushIndex(ld, sj.entry);
    pushKey(ld, sj.key);
    if (index[i] == index[j]) {
      r = fail(ld, "%s is set twice at t = %g s, to %g by changes[%d] and to %g here: the one "
               "written last would hold; keep one", sj.key, order[a].time, value[i], si.entry,
               value[j]);
    } else {
      r = fail(ld,
               "%s = %g and %s = %g (set by changes[%d]) at the same time, t = %g s, "
               "contradict each other: set in the order written, a force of type '%s' would "
               "change %s to %g, so the outcome would depend on the order of the changes; give "
               "them values that agree",
               sj.key, value[j], si.key, value[i], si.entry, order[a].time,
               cs_forceKind(ld->m->force[order[a].force].kind)->name, si.key, to);
    }
    popPath(ld, p);
  }
  csu_free(order, n * sizeof(ChangeOrder));
  csu_free(index, n * sizeof(int));
  csu_free(value, n * sizeof(double));
  return r;
}


// hand the changes to the model in time order. cs_addChange keeps the model's list sorted by
// inserting from the end, which costs one comparison per change given in order but grows
// quadratically for changes listed backwards; a stable merge sort here (equal times keep the
// order of the file, then of the elements) keeps the load linear in n log n.
static int addChanges(Loader* ld) {
  size_t n = ld->nchange;
  csChange* a = ld->change;
  csChange* tmp = n > 1 ? csu_malloc(n * sizeof(csChange)) : NULL;
  if (n > 1 && !tmp) {
    cs_setError(ld->err, CS_ERR_MEMORY, "", "out of memory sorting the changes");
    return -1;
  }
  // bottom-up: merge runs of width w into tmp, then swap the roles of the two arrays
  for (size_t w = 1; w < n; w *= 2) {
    for (size_t lo = 0; lo < n; lo += 2 * w) {
      size_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
      size_t i = lo, j = mid, k = lo;
      while (i < mid && j < hi) {
        // the left run wins ties: stable
        tmp[k++] = (a[j].time < a[i].time) ? a[j++] : a[i++];
      }
      while (i < mid) {
        tmp[k++] = a[i++];
      }
      while (j < hi) {
        tmp[k++] = a[j++];
      }
    }
    csChange* swap = a;
    a = tmp;
    tmp = swap;
  }
  int r = 0;
  for (size_t i = 0; i < n && !r; i++) {
    r = cs_addChange(ld->m, &a[i], ld->err) < 0 ? -1 : 0;
  }
  // one of the two arrays is the loader's (freed at cleanup), the other the scratch
  csu_free(a == ld->change ? tmp : a, n > 1 ? n * sizeof(csChange) : 0);
  return r;
}


// CHANGE = {"time", "force", <discrete variable>: value, ...}: a scheduled change of discrete
// variables of one element, or of every element of a contact set at once. Each value obeys the
// rules of the parameter that gives the variable its initial value (the kind's table: mu_static
// >= 0, a stop's stiffness >= 0), and the values of one change must agree with each other.
static int readChange(Loader* ld, const cJSON* item, int entry) {
  if (expectObject(ld, item)) {
    return -1;
  }
  double time = 0;
  const char* target = NULL;
  if (requireNumber(ld, item, "time", RULE_NONNEG, &time) ||
      requireString(ld, item, "force", &target)) {
    return -1;
  }
  // the target: one element, or every element of a contact set
  int first = forceId(ld, target), count = 1;
  int group = first < 0 ? groupId(ld, target) : -1;
  if (first < 0 && group >= 0) {
    first = ld->groupFirst[group];
    count = ld->groupCount[group];
  }
  if (first < 0) {
    return failAt(ld, "force", "there is no force element or contact named '%.64s'", target);
  }
  // the elements of a set share one kind, so the first one's kind names the variables
  const csForceKind* k = cs_forceKind(ld->m->force[first].kind);
  // every other key names a discrete variable of that kind
  int nvars = 0;
  int indices[CS_MAX_KIND_PARAMS];
  double values[CS_MAX_KIND_PARAMS];
  const char* keys[CS_MAX_KIND_PARAMS];
  for (const cJSON* c = item->child; c; c = c->next) {
    const char* key = c->string ? c->string : "";
    int index = -1;
    int fixed = strcmp(key, "time") == 0 || strcmp(key, "force") == 0;
    for (int i = 0; i < k->discnum && !fixed; i++) {
      if (k->discnames && strcmp(k->discnames[i], key) == 0) {
        index = i;
      }
    }
    // an unknown variable: the message names the target's kind, whose variables are the valid
    // keys; a parameter's old name is told its new one only where that is a variable too
    const char* renamed = !fixed && index < 0 ? cs_renamedKey(k, key, NULL) : NULL;
    int renamedIsVariable = 0;
    for (int i = 0; renamed && k->discnames && i < k->discnum; i++) {
      renamedIsVariable |= strcmp(k->discnames[i], renamed) == 0;
    }
    if (renamedIsVariable) {
      return failAt(ld, key, "discrete variable '%.64s' is now called '%s' for a force of type "
                    "'%s'", key, renamed, k->name);
    }
    if (!fixed && index < 0) {
      ld->unknownKey = 1;
      return failAt(ld, key, "'%.64s' (a force of type '%s') has no discrete variable '%.64s'",
                    target, k->name, key);
    }
    if (isDuplicate(item, c)) {
      return duplicateKey(ld, key);
    }
    if (fixed) {
      continue;
    }
    // the new value: a finite number with the sign rule of the parameter it replaces
    const csParamInfo* p = cs_paramOfVariable(k, key);
    int rule = !p                               ? RULE_ANY
               : (p->flags & CS_PARAM_POSITIVE) ? RULE_POSITIVE
               : (p->flags & CS_PARAM_NONNEG)   ? RULE_NONNEG
                                                : RULE_ANY;
    double value = 0;
    size_t pp = pushKey(ld, key);
    int r = expectNumberRule(ld, c, rule, &value);
    popPath(ld, pp);
    if (r) {
      return -1;
    }
    // one change per element of the target (a set's elements are consecutive), in element order
    for (int e = first; e < first + count; e++) {
      csChange ch = {.time = time, .force = e, .index = index, .value = value};
      if (pendingChange(ld, &ch, (ChangeSource){entry, key})) {
        return -1;
      }
    }
    if (nvars < CS_MAX_KIND_PARAMS) {
      indices[nvars] = index;
      values[nvars] = value;
      keys[nvars] = key;
    }
    nvars++;
  }
  // a change with only "time" and "force" does nothing, which is surely not what was meant
  if (nvars == 0) {
    return fail(ld, "a change must set at least one discrete variable");
  }
  // the elements of a set share their parameters, so the first one stands for all
  return checkChangeTogether(ld, first, indices, values, keys,
                             nvars < CS_MAX_KIND_PARAMS ? nvars : CS_MAX_KIND_PARAMS);
}


// ---------------------------------------------------------------------------------------------
// simulation options

// SIMULATION = the csSimOptions a scene may set; absent keys keep the defaults of cs_newModel
static int readSimulation(Loader* ld, const cJSON* item, csSimOptions* o) {
  static const char* const keys[] = {
      "duration",     "integrator", "linear_solver",   "rtol",     "atol", "max_step",
      "initial_step", "max_steps",  "report_interval", "max_rows", NULL};
  static const char* const integrators[] = CS_INTEGRATOR_NAMES;
  static const char* const solvers[] = CS_LINSOL_NAMES;
  if (expectObject(ld, item) || checkKeys(ld, item, keys)) {
    return -1;
  }
  // the duration and the tolerances must be positive; the step limits may be 0 (none, automatic)
  if (memberNumber(ld, item, "duration", RULE_POSITIVE, &o->duration) < 0 ||
      memberNumber(ld, item, "rtol", RULE_POSITIVE, &o->rtol) < 0 ||
      memberNumber(ld, item, "atol", RULE_POSITIVE, &o->atol) < 0 ||
      memberNumber(ld, item, "max_step", RULE_NONNEG, &o->max_step) < 0 ||
      memberNumber(ld, item, "initial_step", RULE_NONNEG, &o->initial_step) < 0 ||
      memberNumber(ld, item, "report_interval", RULE_POSITIVE, &o->report_interval) < 0) {
    return -1;
  }
  if (o->duration < CS_MIN_DURATION) {
    return failAt(ld, "duration", "must be >= %g s (the shortest run), got %g", CS_MIN_DURATION,
                  o->duration);
  }
  // the report interval has the command line's lower limit: 5e-324 would write rows without end
  if (o->report_interval < CS_MIN_REPORT_INTERVAL) {
    return failAt(ld, "report_interval", "must be >= %g s (the smallest report interval), got %g",
                  CS_MIN_REPORT_INTERVAL, o->report_interval);
  }
  // max_steps and max_rows are integers; 1e15 keeps them well inside a long
  static const char* const counts[] = {"max_steps", "max_rows"};
  long* countOut[] = {&o->max_steps, &o->max_rows};
  for (int i = 0; i < 2; i++) {
    const cJSON* count = cJSON_GetObjectItemCaseSensitive(item, counts[i]);
    if (count) {
      size_t p = pushKey(ld, counts[i]);
      int r = expectInteger(ld, count, 1, 1e15, countOut[i]);
      popPath(ld, p);
      if (r) {
        return -1;
      }
    }
  }
  // a largest step so small that the run cannot start is refused before the run, naming the
  // key (cs_maxStepProblem), not here: the run's duration and report interval may be others
  // than the scene's (the command line's, a simulation's options in the C API or Python)
  // and so a first step too small for the integrators' arithmetic
  if (o->initial_step > 0 && o->initial_step < CS_MIN_INITIAL_STEP) {
    return failAt(ld, "initial_step", "must be 0 (automatic) or at least %g s, not %g",
                  CS_MIN_INITIAL_STEP, o->initial_step);
  }
  // a tolerance whose reciprocal, the error test's weight near zero, is beyond doubles
  if (o->atol < CS_MIN_ATOL) {
    return failAt(ld, "atol", "must be at least %g (the error test weighs a component near zero "
                  "by 1 / atol), not %g", CS_MIN_ATOL, o->atol);
  }
  // enumerations by name, in the order of csIntegratorType and csLinearSolver
  int choice = -1;
  if (memberChoice(ld, item, "integrator", "integrator", integrators, CS_INTEGRATOR_COUNT,
                   &choice) < 0) {
    return -1;
  }
  o->integrator = choice >= 0 ? (csIntegratorType)choice : o->integrator;
  choice = -1;
  if (memberChoice(ld, item, "linear_solver", "linear solver", solvers, CS_LINSOL_COUNT,
                   &choice) < 0) {
    return -1;
  }
  o->linsol = choice >= 0 ? (csLinearSolver)choice : o->linsol;
  return 0;
}


// ---------------------------------------------------------------------------------------------
// initial state of a free body given in Ground

// Joint coordinates of a free mobilizer that put the body frame at X_GB with angular velocity
// w_G and origin velocity v_G (all in Ground), given the parent's pose X_GP and spatial velocity
// (w_P, v_P at the parent's origin, in Ground). q = (quaternion of R_FM, p_FM in F);
// u = (w_FM in F, velocity of M's origin relative to F, in F).
static void freeInitialToState(const csBody* body, const csTransform* X_GP, csVec3 w_P, csVec3 v_P,
                               const BodyInit* in, double* q, double* u) {
  // pose: X_FM = X_FG X_GM, with F fixed on the parent and M on the body
  csTransform X_GF = csu_transformMul(X_GP, &body->X_PF);
  csTransform X_GM = csu_transformMul(&in->X_GB, &body->X_BM);
  csTransform X_FG = csu_transformInverse(&X_GF);
  csTransform X_FM = csu_transformMul(&X_FG, &X_GM);
  csQuat quat = csu_matToQuat(&X_FM.R);
  q[0] = quat.w;
  q[1] = quat.x;
  q[2] = quat.y;
  q[3] = quat.z;
  csu_vec3ToArray(q + 4, X_FM.p);
  // F is fixed on the parent, so it turns with w_P; its origin moves with the parent
  csVec3 vF = csu_add(v_P, csu_cross(w_P, csu_sub(X_GF.p, X_GP->p)));
  // M is fixed on the body, so it moves with the body's w_G and v_G
  csVec3 vM = csu_add(in->v_G, csu_cross(in->w_G, csu_sub(X_GM.p, in->X_GB.p)));
  // M's velocity relative to F, less the part that F's rotation carries along
  csVec3 r = csu_sub(X_GM.p, X_GF.p);
  csVec3 vrel = csu_sub(csu_sub(vM, vF), csu_cross(w_P, r));
  // u: the relative angular and linear velocities, expressed in F
  csu_vec3ToArray(u, csu_mulMtV(&X_GF.R, csu_sub(in->w_G, w_P)));
  csu_vec3ToArray(u + 3, csu_mulMtV(&X_GF.R, vrel));
}


// write q0/u0 from the joints' "q"/"u", then convert the "initial" of free bodies in body order
// (a parent's state is final before its children are converted)
//
// A temporary data realized from the state so far gives each parent's pose and velocity; this
// was preferred to composing the parent chain by hand here, so that the kinematics has a single
// implementation.
// *d (made on first use, the caller frees it) holding the model's q0 and u0 as they stand,
// realized to velocity; -1 when out of memory
static int realizeSoFar(Loader* ld, csData** d) {
  const csModel* m = ld->m;
  if (!*d && !(*d = cs_makeData(m))) {
    cs_setError(ld->err, CS_ERR_MEMORY, "", "out of memory computing the initial state");
    return -1;
  }
  memcpy((*d)->q, m->q0, sizeof(double) * (size_t)m->nq);
  memcpy((*d)->u, m->u0, sizeof(double) * (size_t)m->nu);
  cs_invalidate(*d);
  cs_realizeVelocity(m, *d);
  return 0;
}


static int setInitialState(Loader* ld, const BodyInit* init) {
  csModel* m = ld->m;
  csData* d = NULL;
  // pass 1: the coordinates and speeds given per joint
  for (int b = 1; b < m->nbody; b++) {
    const csBody* body = &m->body[b];
    if (init[b].hasq) {
      memcpy(m->q0 + body->qadr, init[b].q, sizeof(double) * (size_t)body->qnum);
    }
    if (init[b].hasu) {
      memcpy(m->u0 + body->uadr, init[b].u, sizeof(double) * (size_t)body->unum);
    }
  }
  // pass 2: free bodies given in Ground, parents first (bodies are stored parents first)
  for (int b = 1; b < m->nbody; b++) {
    const csBody* body = &m->body[b];
    if (!init[b].hasinitial) {
      continue;
    }
    // a body on ground has its parent at rest at the origin
    csTransform X_GP = csu_transformIdentity();
    csVec3 w_P = csu_vec3(0, 0, 0), v_P = csu_vec3(0, 0, 0);
    if (body->parent != 0) {
      // the parent's pose and velocity from the state so far (every earlier body is final)
      if (realizeSoFar(ld, &d)) {
        return -1;
      }
      X_GP = d->body_pose[body->parent];
      w_P = d->body_vel[body->parent].w;
      v_P = d->body_vel[body->parent].v;
    }
    // q0 and u0 of this body are written at once, so that its children see them
    freeInitialToState(body, &X_GP, w_P, v_P, &init[b], m->q0 + body->qadr, m->u0 + body->uadr);
  }
  // the state every run starts from has a finite energy: finite coordinates and speeds can
  // still give an infinite kinetic energy (1e300 m/s) or potential energy (1e307 m up), which
  // every row would then carry as inf or NaN
  if (realizeSoFar(ld, &d)) {
    return -1;
  }
  int bad = 0;
  int which = cs_infiniteEnergy(m, d, &bad);
  if (which) {
    popPath(ld, 0);
    pushKey(ld, "bodies");
    if (bad) {
      pushIndex(ld, bad - 1);
      pushKey(ld, "joint");
    }
    fail(ld, "the initial state's %s energy is not finite%s%s%s: masses, speeds or coordinates "
         "too large",
         which == 'p' ? "potential" : "kinetic", bad ? " (body '" : "",
         bad ? m->body[bad].name : "", bad ? "')" : "");
    bad = bad ? bad : 1;
  }
  cs_deleteData(d);
  return bad ? -1 : 0;
}


// ---------------------------------------------------------------------------------------------
// validation of the elements, with their errors mapped to JSON paths

// JSON path of element e: the gravity element, forces[i], or a point of contacts[c] (the key
// rel, relative to the element, picks the contact's geometry or the model block)
//
// Validation runs on the built model, where an element knows only its index. Rather than store
// a JSON path in every element (memory spent on messages alone), the path is rebuilt from the
// order in which the loader added the elements: gravity, forces, then contacts point by point.
static void elementPath(Loader* ld, const cJSON* root, int hasGravity, const char* model, int e,
                        const char* rel) {
  popPath(ld, 0);
  // the gravity element, element 0 when present
  if (hasGravity && e == 0) {
    pushKey(ld, "gravity");
    return;
  }
  e -= hasGravity;
  // then the force entries, one element each
  int nforces = cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(root, "forces"));
  if (e < nforces) {
    pushKey(ld, "forces");
    pushIndex(ld, e);
    if (rel[0]) {
      pushKey(ld, rel);
    }
    return;
  }
  // then the contacts: find the entry whose points hold element e (e becomes the point index)
  e -= nforces;
  int ci = 0;
  const cJSON* contacts = cJSON_GetObjectItemCaseSensitive(root, "contacts");
  for (const cJSON* c = contacts ? contacts->child : NULL; c; c = c->next, ci++) {
    int np = cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(c, "points"));
    if (e < np) {
      break;
    }
    e -= np;
  }
  // a parameter of the model block: the path into contact_models
  if (rel[0] && !isGeometryKey(rel)) {
    pushKey(ld, "contact_models");
    pushKey(ld, model ? model : "");
    pushKey(ld, rel);
    return;
  }
  // geometry: the contact entry, down to the point for a station or centre
  pushKey(ld, "contacts");
  pushIndex(ld, ci);
  if (strcmp(rel, "station") == 0 || strcmp(rel, "center") == 0) {
    pushKey(ld, "points");
    pushIndex(ld, e);
  } else if (rel[0]) {
    pushKey(ld, rel);
  }
}


// run each kind's validate callback (ranges and relations the table flags cannot express); the
// first failure is reported at the JSON path of the value it names
static int validateElements(Loader* ld, const cJSON* root, int hasGravity, const char* model) {
  for (int e = 0; e < ld->m->nforce; e++) {
    const csForce* f = &ld->m->force[e];
    const csForceKind* k = cs_forceKind(f->kind);
    csError verr;
    memset(&verr, 0, sizeof(verr));
    // kinds without a validate callback rely on their table's flags alone
    if (k->validate && k->validate(ld->m, f, &verr) != 0) {
      // the kind names the key it objects to relative to the element; map it into the scene
      char rel[CS_MAX_JSON_PATH];
      snprintf(rel, sizeof(rel), "%s", verr.path);
      elementPath(ld, root, hasGravity, model, e, rel);
      return fail(ld, "%s", verr.message[0] ? verr.message : "the force element is invalid");
    }
  }
  return 0;
}


// 1 when the n values are all finite
static int allFinite(const double* x, size_t n) {
  double probe = 0;
  for (size_t i = 0; i < n; i++) {
    probe += x[i] * 0.0;  // NaN exactly when some x[i] is not finite
  }
  return probe == 0;
}


// 1 when body b can move: it or a body it hangs from has a mobility (a body welded to Ground,
// directly or through other welds, takes whatever force it is given)
static int bodyMoves(const csModel* m, int b) {
  for (; b > 0; b = m->body[b].parent) {
    if (m->body[b].unum > 0) {
      return 1;
    }
  }
  return 0;
}


// the first body that can move whose force is not finite, 0 when there is none
static int nonFiniteForceBody(const csModel* m, const csData* d) {
  for (int b = 1; b < m->nbody; b++) {
    const csBody* body = &m->body[b];
    if (bodyMoves(m, b) && (!allFinite((const double*)&d->body_force[b], 6) ||
                            !allFinite(d->mobility_force + body->uadr, (size_t)body->unum))) {
      return b;
    }
  }
  return 0;
}


// " (contact model 'X')" for an element of a contact (its path names the contact entry, which
// each contact model reads, so the message says which one was being loaded), "" otherwise
static const char* modelNote(const cJSON* root, int hasGravity, const char* model, int e,
                             char* buf, size_t size) {
  int nforces = cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(root, "forces"));
  buf[0] = '\0';
  if (model && model[0] && e - hasGravity >= nforces) {
    snprintf(buf, size, " (contact model '%.64s')", model);
  }
  return buf;
}


// Finite parameters and a finite initial state can still give an element an infinite
// potential energy, force or power (a spring's q0 of 1e300, gravity of 1e300, a contact point
// 1e300 m away, a bushing's stiffness of 1e308), which every row of a run would then carry as
// inf or NaN, or which would stop the run at its first step with no place named: refused at the
// element's path. Then the accelerations, which masses and inertias near the largest double
// (1e308 kg) overflow: refused at the first body whose acceleration is not finite.
static int checkInitialForces(Loader* ld, const cJSON* root, int hasGravity, const char* model) {
  const csModel* m = ld->m;
  csData* d = cs_makeData(m);
  if (!d) {
    cs_setError(ld->err, CS_ERR_MEMORY, "", "out of memory");
    return -1;
  }
  cs_realizeDynamics(m, d);
  char note[96];
  int r = 0;
  for (int e = 0; e < m->nforce && !r; e++) {
    if (!isfinite(d->force_pe[e])) {
      elementPath(ld, root, hasGravity, model, e, "");
      double pe = d->force_pe[e];
      r = fail(ld, "the element's potential energy in the initial state is %s%s: its "
               "parameters or the initial state are too large",
               isnan(pe) ? "nan" : pe > 0 ? "inf" : "-inf",
               modelNote(root, hasGravity, model, e, note, sizeof(note)));
    }
  }
  size_t nbf = 6 * (size_t)m->nbody;
  int forcesFinite = !nonFiniteForceBody(m, d) && allFinite(d->force_power, (size_t)m->nforce) &&
                     allFinite(d->zdot, (size_t)m->nz);
  // which element: each applied alone (only when the sum is not finite, so a large scene's load
  // does not pay elements times bodies)
  for (int e = 0; e < m->nforce && !r && !forcesFinite; e++) {
    memset(d->body_force, 0, sizeof(double) * nbf);
    memset(d->mobility_force, 0, sizeof(double) * (size_t)m->nu);
    memset(d->zdot, 0, sizeof(double) * (size_t)m->nz);
    d->force_power[e] = 0;
    cs_forceKind(m->force[e].kind)->apply(m, d, e);
    // the body it pushes too hard (gravity on a body of 1e308 kg), when it is one body's
    int on = nonFiniteForceBody(m, d);
    if (on || !isfinite(d->force_power[e]) || !allFinite(d->zdot, (size_t)m->nz)) {
      elementPath(ld, root, hasGravity, model, e, "");
      r = fail(ld, "the element's force%s%s%s in the initial state is not finite%s: its "
               "parameters, the bodies' masses or the initial state are too large",
               on ? " on body '" : "", on ? m->body[on].name : "", on ? "'" : "",
               modelNote(root, hasGravity, model, e, note, sizeof(note)));
    }
  }
  if (!r && !forcesFinite) {
    // finite alone, not finite together: the sum overflows
    popPath(ld, 0);
    r = fail(ld, "the forces in the initial state add up to more than the largest number: "
             "parameters too large");
  }
  if (!r) {
    cs_invalidate(d);
    if (cs_forward(m, d) != 0) {
      int bad = 0;
      for (int b = 1; b < m->nbody && !bad; b++) {
        const csBody* body = &m->body[b];
        if (!allFinite(d->udot + body->uadr, (size_t)body->unum)) {
          bad = b;
        }
      }
      popPath(ld, 0);
      pushKey(ld, "bodies");
      if (bad) {
        pushIndex(ld, bad - 1);
      }
      r = fail(ld, "the accelerations in the initial state are not finite%s%s%s: masses, "
               "inertias, distances or forces too large for double precision",
               bad ? " (body '" : "", bad ? m->body[bad].name : "", bad ? "')" : "");
    }
  }
  cs_deleteData(d);
  return r;
}


// ---------------------------------------------------------------------------------------------
// the whole scene

// the name of a scene read from `file`: the file name without directories and extension, made
// a valid name (scene-format.md): cut to CS_MAX_NAME - 1 bytes on a UTF-8 character's boundary,
// and each C0 control character or DEL, which a file name may hold, as '_'
static void fileStem(const char* file, char out[CS_MAX_NAME]) {
  const char* base = file ? file : "scene";
  const char* slash = strrchr(base, '/');
  base = slash ? slash + 1 : base;
  const char* dot = strrchr(base, '.');
  // the stem ends at the last dot, unless the name starts with it (".scene" keeps its name)
  size_t len = (dot && dot != base) ? (size_t)(dot - base) : strlen(base);
  if (len > CS_MAX_NAME - 1) {
    len = CS_MAX_NAME - 1;
    // not inside a character: back over its continuation bytes and its lead byte
    while (len > 0 && ((unsigned char)base[len] & 0xC0) == 0x80) {
      len--;
    }
  }
  for (size_t i = 0; i < len; i++) {
    unsigned char c = (unsigned char)base[i];
    out[i] = c < 0x20 || c == 0x7F ? '_' : (char)c;
  }
  out[len] = '\0';
  if (!out[0]) {
    snprintf(out, CS_MAX_NAME, "scene");
  }
}


// every member of an array member `key` goes through reader; returns -1 on the first error
typedef int (*ItemReader)(Loader* ld, const cJSON* item, int index, void* ctx);

// (an absent key reads as an empty array; each item gets its index in the path)
static int forEachItem(Loader* ld, const cJSON* root, const char* key, ItemReader reader,
                       void* ctx) {
  const cJSON* arr = cJSON_GetObjectItemCaseSensitive(root, key);
  if (!arr) {
    return 0;
  }
  size_t p = pushKey(ld, key);
  int r = expectArray(ld, arr);
  int i = 0;
  for (const cJSON* c = r ? NULL : arr->child; c && !r; c = c->next, i++) {
    size_t q = pushIndex(ld, i);
    r = reader(ld, c, i, ctx);
    popPath(ld, q);
  }
  popPath(ld, p);
  return r ? -1 : 0;
}


// adapters from forEachItem to the readers; body i of the array is body i + 1 of the model,
// since ground is body 0, so its initial values go to init[index + 1]
static int bodyItem(Loader* ld, const cJSON* item, int index, void* ctx) {
  BodyInit* init = ctx;
  memset(&init[index + 1], 0, sizeof(BodyInit));
  return readBody(ld, item, &init[index + 1]);
}


static int planeItem(Loader* ld, const cJSON* item, int index, void* ctx) {
  (void)index;
  (void)ctx;
  return readPlane(ld, item);
}


static int forceItem(Loader* ld, const cJSON* item, int index, void* ctx) {
  (void)ctx;
  return readForce(ld, item, index);
}


static int contactItem(Loader* ld, const cJSON* item, int index, void* ctx) {
  ContactGeom* geoms = ctx;
  return readContact(ld, item, index, &geoms[index]);
}


static int changeItem(Loader* ld, const cJSON* item, int index, void* ctx) {
  (void)ctx;
  return readChange(ld, item, index);
}


// ---------------------------------------------------------------------------------------------
// CSV column names

static int compareNames(const void* a, const void* b) {
  return strcmp(*(const char* const*)a, *(const char* const*)b);
}


// 1 when column is "<name>.<something>"
static int namesColumn(const char* name, const char* column) {
  size_t n = strlen(name);
  return strncmp(column, name, n) == 0 && column[n] == '.';
}


// the longest name among the non-body owners (force elements, contact sets) that prefixes
// column, as an element index (>= 0) or -1 - set; INT_MIN when none does
static int columnOwner(const csModel* m, const char* column) {
  int best = INT_MIN;
  size_t bestLen = 0;
  for (int e = 0; e < m->nforce; e++) {
    if (strlen(m->force[e].name) > bestLen && namesColumn(m->force[e].name, column)) {
      best = e;
      bestLen = strlen(m->force[e].name);
    }
  }
  for (int g = 0; g < m->ngroup; g++) {
    if (strlen(m->group_name[g]) > bestLen && namesColumn(m->group_name[g], column)) {
      best = -1 - g;
      bestLen = strlen(m->group_name[g]);
    }
  }
  return best;
}


// Every column of the CSV (with the force columns of --forces) is named "<owner>.<quantity>",
// the owners being bodies, force elements and contact sets; names that are fine on their own can
// still give two columns one name (a body 'm' and a bushing 'm' both have a column m.q0; a body
// 'c.0' and the first point of a contact 'c' both have c.0.px), which a reader by name would
// confuse. Refused at the name of the force element or contact.
static int checkColumnNames(Loader* ld, const cJSON* root, int hasGravity, const char* model) {
  const csModel* m = ld->m;
  csCsvOptions opt = {.forces = 1};
  char probe[1];
  size_t len = cs_csvFormatHeader(probe, sizeof(probe), m, &opt);
  char* header = csu_malloc(len + 1);
  size_t ncol = 1;
  if (!header) {
    return fail(ld, "out of memory checking the CSV column names");
  }
  cs_csvFormatHeader(header, len + 1, m, &opt);
  for (size_t i = 0; i < len; i++) {
    ncol += header[i] == ',';
  }
  const char** cols = csu_malloc(ncol * sizeof(char*));
  if (!cols) {
    csu_free(header, len + 1);
    return fail(ld, "out of memory checking the CSV column names");
  }
  // split in place: commas and the final newline end the names
  size_t k = 0;
  cols[k++] = header;
  for (size_t i = 0; i < len; i++) {
    if (header[i] == ',' || header[i] == '\n') {
      header[i] = 0;
      if (i + 1 < len && k < ncol) {
        cols[k++] = header + i + 1;
      }
    }
  }
  qsort(cols, k, sizeof(char*), compareNames);
  int r = 0;
  for (size_t i = 1; i < k && r == 0; i++) {
    if (strcmp(cols[i - 1], cols[i]) != 0) {
      continue;
    }
    const char* column = cols[i];
    int owner = columnOwner(m, column);
    // the other owner: a body whose name prefixes the column, else "another element"
    const char* other = NULL;
    for (int b = 1; b < m->nbody && !other; b++) {
      if (namesColumn(m->body[b].name, column)) {
        other = m->body[b].name;
      }
    }
    char otherText[CS_MAX_NAME + 16];
    snprintf(otherText, sizeof(otherText), other ? "body '%s'" : "another element",
             other ? other : "");
    if (owner >= 0 && m->force[owner].group < 0) {
      elementPath(ld, root, hasGravity, model, owner, "name");
      r = fail(ld, "the CSV would have two columns named '%s', of force element '%s' and of %s; "
               "give one of them another name", column, m->force[owner].name, otherText);
    } else {
      int g = owner >= 0 ? m->force[owner].group : owner == INT_MIN ? -1 : -1 - owner;
      popPath(ld, 0);
      pushKey(ld, "contacts");
      pushIndex(ld, g >= 0 ? g : 0);
      pushKey(ld, "name");
      r = fail(ld, "the CSV would have two columns named '%s', of contact '%s' and of %s; give "
               "one of them another name", column, g >= 0 ? m->group_name[g] : "?", otherText);
    }
  }
  csu_free(cols, ncol * sizeof(char*));
  csu_free(header, len + 1);
  return r;
}


// build the model from the parsed tree; NULL with ld->err filled on failure
//
// One function with a single cleanup label was preferred to a chain of functions that each
// own part of the state: the scratch arrays and the partial model then have one owner and one
// place where they are freed.
static csModel* buildModel(Loader* ld, const cJSON* root, const char* file,
                           const csLoadOptions* opt) {
  static const char* const keys[] = {"name",    "description", "gravity",  "bodies",
                                     "planes",  "forces",      "contacts", "contact_models",
                                     "changes", "simulation",  NULL};
  // scratch arrays, freed at cleanup whatever happens
  BodyInit* init = NULL;
  size_t initBytes = 0;
  ContactGeom* geoms = NULL;
  size_t geomBytes = 0;
  size_t groupBytes = 0;
  int ok = 0;

  // 1. name, gravity, simulation options
  if (expectObject(ld, root) || checkKeys(ld, root, keys)) {
    goto cleanup;
  }
  // the description is free text, read only to check its type
  const char* desc = NULL;
  if (memberString(ld, root, "description", &desc) < 0) {
    goto cleanup;
  }
  // the name defaults to the file's stem; a given one may be any printable text, since it names
  // no CSV column and so the name rules do not apply
  char name[CS_MAX_NAME];
  fileStem(file, name);
  const char* given = NULL;
  int r = memberString(ld, root, "name", &given);
  if (r < 0) {
    goto cleanup;
  }
  if (r > 0) {
    // no C0 control characters or DEL: they would break the one-line messages that print it;
    // other bytes are the outputs' to show (escaped in messages, U+FFFD in JSON)
    size_t len = strlen(given);
    int printable = len > 0 && len < CS_MAX_NAME;
    for (size_t i = 0; i < len && printable; i++) {
      printable = (unsigned char)given[i] >= 0x20 && given[i] != 0x7f;
    }
    if (!printable) {
      failAt(ld, "name", "the scene name must be 1 to %d bytes of printable characters (UTF-8 "
             "takes 2 to 4 bytes for a character beyond ASCII), got %zu bytes: '%.*s'",
             CS_MAX_NAME - 1, len, (int)(len < 80 ? len : 80), given);
      goto cleanup;
    }
    snprintf(name, sizeof(name), "%s", given);
  }
  // the model exists from here on; any later failure deletes it at cleanup
  ld->m = cs_newModel(name);
  if (!ld->m) {
    cs_setError(ld->err, CS_ERR_MEMORY, "", "out of memory creating the model");
    goto cleanup;
  }
  // ground is body 0, known by name from the start
  if (nameAdd(ld, NAMES_BODY, 0, NAME_MADE)) {
    goto cleanup;
  }
  // the file is kept for the messages of the run
  snprintf(ld->m->file, sizeof(ld->m->file), "%s", file ? file : "");
  cs_modelSetSceneFile(ld->m, ld->m->file);
  // gravity in Ground, m/s^2; with zero gravity no gravity element is added
  if (memberVec3(ld, root, "gravity", &ld->m->gravity) < 0) {
    goto cleanup;
  }
  // simulation options over the defaults that cs_newModel set
  const cJSON* sim = cJSON_GetObjectItemCaseSensitive(root, "simulation");
  if (sim) {
    size_t p = pushKey(ld, "simulation");
    r = readSimulation(ld, sim, &ld->m->opt);
    popPath(ld, p);
    if (r) {
      goto cleanup;
    }
  }

  // 2. bodies (init[b] holds body b's initial values; ground is 0), planes
  const cJSON* bodies = cJSON_GetObjectItemCaseSensitive(root, "bodies");
  int nbodies = cJSON_IsArray(bodies) ? cJSON_GetArraySize(bodies) : 0;
  // sized from the array before it is read; a value that is not an array is reported by
  // forEachItem
  initBytes = sizeof(BodyInit) * (size_t)(nbodies + 1);
  init = csu_malloc(initBytes);
  if (!init) {
    cs_setError(ld->err, CS_ERR_MEMORY, "", "out of memory reading the bodies");
    goto cleanup;
  }
  memset(init, 0, initBytes);
  // bodies in file order, so a parent must come before its children
  if (forEachItem(ld, root, "bodies", bodyItem, init) ||
      forEachItem(ld, root, "planes", planeItem, NULL)) {
    goto cleanup;
  }

  // 3. gravity element (when gravity is not zero), then the force entries
  // the gravity element exists only for non-zero gravity, so element 0 is either gravity or the
  // first force entry (elementPath relies on this order)
  int hasGravity = csu_norm(ld->m->gravity) > 0;
  if (hasGravity && (cs_addForce(ld->m, CS_FORCE_GRAVITY, "gravity", ld->err) < 0 ||
                     nameAdd(ld, NAMES_FORCE, 0, NAME_MADE))) {
    goto cleanup;
  }
  if (forEachItem(ld, root, "forces", forceItem, NULL)) {
    goto cleanup;
  }

  // 4. contacts: geometry first, then the model, then one element per point
  const cJSON* contacts = cJSON_GetObjectItemCaseSensitive(root, "contacts");
  int ncontacts = cJSON_IsArray(contacts) ? cJSON_GetArraySize(contacts) : 0;
  // one geometry per "contacts" entry, likewise
  geomBytes = sizeof(ContactGeom) * (size_t)(ncontacts + 1);
  geoms = csu_malloc(geomBytes);
  groupBytes = sizeof(int) * (size_t)(ncontacts + 1);
  ld->groupFirst = csu_malloc(groupBytes);
  ld->groupCount = csu_malloc(groupBytes);
  if (!geoms || !ld->groupFirst || !ld->groupCount) {
    cs_setError(ld->err, CS_ERR_MEMORY, "", "out of memory reading the contacts");
    goto cleanup;
  }
  if (forEachItem(ld, root, "contacts", contactItem, geoms)) {
    goto cleanup;
  }
  // every block is checked, then the default must name one of them
  const cJSON* cm = cJSON_GetObjectItemCaseSensitive(root, "contact_models");
  const char* defaultName = NULL;
  const cJSON* onlyBlock = NULL;
  int nblocks = 0;
  if (cm) {
    size_t p = pushKey(ld, "contact_models");
    r = readContactModels(ld, cm, &defaultName, &nblocks, &onlyBlock);
    if (!r && defaultName && !cJSON_GetObjectItemCaseSensitive(cm, defaultName)) {
      char list[CS_MAX_ERROR / 2];
      blockList(cm, list, sizeof(list));
      r = failAt(ld, "default", "the default contact model '%.64s' has no block here (blocks: %s)",
                 defaultName, list);
    }
    popPath(ld, p);
    if (r) {
      goto cleanup;
    }
  }
  // the chosen model's name, for the paths of validation errors
  const char* model = NULL;
  if (ncontacts > 0) {
    const cJSON* block = NULL;
    int kid = -1;
    if (chooseContactModel(ld, cm, opt ? opt->contact_model : NULL, defaultName, onlyBlock, &block,
                           &kid)) {
      goto cleanup;
    }
    model = cs_forceKind(kid)->name;
    // the model carries its contact models, so that nobody needs to read the scene again
    snprintf(ld->m->contact_model, sizeof(ld->m->contact_model), "%s", model);
    snprintf(ld->m->contact_model_default, sizeof(ld->m->contact_model_default), "%s",
             defaultName ? defaultName : (onlyBlock ? onlyBlock->string : ""));
    for (const cJSON* c = cm ? cm->child : NULL; c; c = c->next) {
      if (strcmp(c->string, "default") != 0 && ld->m->ncontact_model < CS_MAX_CONTACT_MODELS) {
        snprintf(ld->m->contact_model_names[ld->m->ncontact_model++], CS_MAX_NAME, "%s", c->string);
      }
    }
    // the elements of each contact, in the order of "contacts" (elementPath relies on it)
    for (int c = 0; c < ncontacts; c++) {
      if (buildContact(ld, c, &geoms[c], kid, block)) {
        goto cleanup;
      }
    }
  } else if (opt && opt->contact_model) {
    // a requested model must at least exist, even when the scene has no contacts
    int kid = cs_forceKindByName(opt->contact_model);
    if (kid < 0 || !cs_forceKind(kid)->contact) {
      char kinds[CS_MAX_ERROR / 2];
      kindList(kinds, sizeof(kinds), 1);
      fail(ld, "unknown contact model '%.64s' (contact models: %s)", opt->contact_model, kinds);
      goto cleanup;
    }
    // a model asked for would be ignored: say so, since the caller expects it to change something
    fail(ld, "contact model '%.64s' requested, but the scene has no \"contacts\", so there is no "
         "contact model to choose", opt->contact_model);
    goto cleanup;
  }

  // 5. scheduled changes, handed to the model in time order
  if (forEachItem(ld, root, "changes", changeItem, NULL) || checkChangesAtOnce(ld) ||
      addChanges(ld)) {
    goto cleanup;
  }

  // 6. element checks, state layout, initial state
  // the kinds' own checks, once every element exists
  if (validateElements(ld, root, hasGravity, model)) {
    goto cleanup;
  }
  // cs_finalizeModel lays out the state, so q0 and u0 can only be written after it
  if (cs_finalizeModel(ld->m, ld->err) != 0 || setInitialState(ld, init) != 0) {
    goto cleanup;
  }
  // 7. every CSV column a distinct name
  if (checkColumnNames(ld, root, hasGravity, model)) {
    goto cleanup;
  }
  // 8. every element's energy and force, and every acceleration, finite in the initial state
  if (checkInitialForces(ld, root, hasGravity, model)) {
    goto cleanup;
  }
  ok = 1;

  // on failure the partial model is deleted: a caller gets a whole model or NULL
cleanup:
  csu_free(init, initBytes);
  csu_free(geoms, geomBytes);
  csu_free(ld->groupFirst, groupBytes);
  csu_free(ld->groupCount, groupBytes);
  ld->groupFirst = ld->groupCount = NULL;
  csu_free(ld->change, ld->capchange * sizeof(csChange));
  csu_free(ld->changeFrom, ld->capchange * sizeof(ChangeSource));
  ld->change = NULL;
  ld->changeFrom = NULL;
  ld->nchange = ld->capchange = 0;
  nameFree(ld);
  if (!ok) {
    cs_deleteModel(ld->m);
    ld->m = NULL;
  }
  return ld->m;
}


// ---------------------------------------------------------------------------------------------
// parameters set by key path (csLoadOptions.overrides), applied to the tree before any check

// the noun for an entry of a top-level array of named objects, for "the scene has no body named"
static const char* entryNoun(const char* arrayKey) {
  static const char* const nouns[][2] = {{"bodies", "body"},
                                         {"planes", "plane"},
                                         {"forces", "force element"},
                                         {"contacts", "contact"},
                                         {"changes", "change"}};
  for (size_t i = 0; i < sizeof(nouns) / sizeof(nouns[0]); i++) {
    if (strcmp(nouns[i][0], arrayKey) == 0) {
      return nouns[i][1];
    }
  }
  return "entry";
}


// length of the longest `name` that `rest` starts with as a whole segment (followed by the end,
// '.' or '['); 0 when none. Names may themselves contain dots ("foot.0"), so the longest wins.
static size_t segmentMatch(const char* rest, const char* name) {
  size_t n = name ? strlen(name) : 0;
  if (n == 0 || strncmp(rest, name, n) != 0) {
    return 0;
  }
  return (rest[n] == '\0' || rest[n] == '.' || rest[n] == '[') ? n : 0;
}


// the name an entry of a top-level array answers to: its "name", else the name the loader gives
// an unnamed force ("<type><index>") or contact ("contact<index>")
static const char* entryName(const cJSON* entry, const char* arrayKey, int index, char* buf,
                             size_t size) {
  const cJSON* name = cJSON_GetObjectItemCaseSensitive(entry, "name");
  if (cJSON_IsString(name)) {
    return name->valuestring;
  }
  const cJSON* type = cJSON_GetObjectItemCaseSensitive(entry, "type");
  if (strcmp(arrayKey, "forces") == 0 && cJSON_IsString(type) &&
      cs_forceKindByName(type->valuestring) >= 0) {
    snprintf(buf, size, "%.50s%d", type->valuestring, index);
    return buf;
  }
  if (strcmp(arrayKey, "contacts") == 0) {
    snprintf(buf, size, "contact%d", index);
    return buf;
  }
  return NULL;
}


// The child of node whose key (an object's member) or name (an array's entry: entryName, with
// arrayKey for the names of unnamed top-level entries) is the longest that rest starts with as a
// whole segment, as an override's walk takes it (names and keys may hold dots); NULL when none.
// Its length in *len, its position in *index.
static cJSON* longestChild(const cJSON* node, const char* rest, const char* arrayKey,
                           size_t* len, int* index) {
  cJSON* best = NULL;
  *len = 0;
  *index = -1;
  int i = 0;
  for (cJSON* c = node->child; c && (cJSON_IsObject(node) || cJSON_IsArray(node));
       c = c->next, i++) {
    char buf[CS_MAX_NAME + 16];
    const char* name = cJSON_IsObject(node) ? c->string
                       : cJSON_IsObject(c)  ? entryName(c, arrayKey, i, buf, sizeof(buf))
                                            : NULL;
    size_t n = segmentMatch(rest, name);
    if (n > *len) {
      best = c;
      *len = n;
      *index = i;
    }
  }
  return best;
}


// [N] of a key path at p (after the '['): digits only, without sign, space or leading zero ("0",
// "12"; strtol took "[ 0]" and "[00]" as [0]); the index, or -1, with *stop after the digits
static long pathIndex(const char* p, const char** stop) {
  const char* q = p;
  while (*q >= '0' && *q <= '9') {
    q++;
  }
  *stop = q;
  if (q == p || q - p > 9 || (*p == '0' && q - p > 1)) {
    return -1;
  }
  return strtol(p, NULL, 10);
}


// whether the rest of a key path (empty, or starting with '.' or '[') leads from node to a value
// the tree holds, each step as the override's walk takes it (the longest key or name)
static int pathExists(const cJSON* node, const char* rest) {
  while (*rest) {
    if (*rest == '[') {
      const char* stop = NULL;
      long i = pathIndex(rest + 1, &stop);
      if (i < 0 || *stop != ']' || !cJSON_IsArray(node) ||
          i >= cJSON_GetArraySize(node)) {
        return 0;
      }
      node = cJSON_GetArrayItem(node, (int)i);
      rest = stop + 1;
      continue;
    }
    if (*rest != '.') {
      return 0;
    }
    size_t len;
    int index;
    node = longestChild(node, rest + 1, "", &len, &index);
    if (!node) {
      return 0;
    }
    rest += 1 + len;
  }
  return 1;
}


static int overrideFail(Loader* ld, int index, const char* fmt, ...)
    __attribute__((format(printf, 3, 4)));

// an error in override `index` (0-based): the path is the key path as given, and err->override
// tells the caller which override it was
static int overrideFail(Loader* ld, int index, const char* fmt, ...) {
  char msg[CS_MAX_ERROR];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof(msg), fmt, ap);
  va_end(ap);
  // the key path and the message hold what the caller gave: both made printable
  char safe[CS_MAX_ERROR], key[CS_MAX_JSON_PATH];
  escapeText(safe, sizeof(safe), msg, strlen(msg));
  const char* given = ld->overrides[index].key ? ld->overrides[index].key : "";
  escapeText(key, sizeof(key), given, strlen(given));
  cs_setError(ld->err, CS_ERR_INPUT, key, "%s", safe);
  ld->err->override = index + 1;
  return -1;
}


// put `value` in the place of `item`, keeping item's key and its position among its siblings
// (so the tree is the one the edited file would give); value is consumed
static void replaceValue(cJSON* item, cJSON* value) {
  // swap the contents, not the nodes: the key string and the sibling links stay with item
  int keepFlags = item->type & cJSON_StringIsConst;
  cJSON tmp = *item;
  item->type = (value->type & ~cJSON_StringIsConst) | keepFlags;
  item->valuestring = value->valuestring;
  item->valueint = value->valueint;
  item->valuedouble = value->valuedouble;
  item->child = value->child;
  value->type = tmp.type & ~cJSON_StringIsConst;
  value->valuestring = tmp.valuestring;
  value->child = tmp.child;
  cJSON_Delete(value);
}


// the 1-based place of byte offset pos in an override's value, in characters (UTF-8)
static int valueCharacter(const char* value, size_t pos) {
  int n = 1;
  for (size_t i = 0; i < pos && value[i]; i++) {
    n += ((unsigned char)value[i] & 0xC0) != 0x80;
  }
  return n;
}


// apply override `index` to the tree: walk its key path from the root, creating members of
// objects that the scene does not have, and set the value. On an error the message names the
// override; a created member's JSON path is kept in ld->created[index] so that a later "unknown
// key" there is reported as the override's too.
static int applyOverride(Loader* ld, cJSON* root, int index) {
  const csOverride* o = &ld->overrides[index];
  if (!o->key || !o->value) {
    return overrideFail(ld, index, "an override needs a key path and a value");
  }
  // the value first: JSON text, one value with nothing after it
  if (csu_jsonNulEscape(o->value, strlen(o->value)) < strlen(o->value)) {
    return overrideFail(ld, index, "the value holds the NUL character (\\u0000), which names "
                        "and values cannot contain");
  }
  const char* end = NULL;
  cJSON* value = cJSON_ParseWithOpts(o->value, &end, 1);
  // a number JSON does not allow, though cJSON reads it (010, 1., -.5), in what cJSON read
  size_t valueLen = strlen(o->value);
  size_t read = valueLen;
  if (!value && end && end >= o->value && end <= o->value + valueLen) {
    read = (size_t)(end - o->value);
  }
  char why[CS_MAX_ERROR / 4];
  size_t bad = csu_jsonNotStrict(o->value, read, why, sizeof(why));
  // places in the value are counted in characters, as a file's columns are
  // a value too long to quote whole is quoted to 200 bytes and says so
  const char* more = valueLen > 200 ? "..." : "";
  if (bad < read) {
    cJSON_Delete(value);
    return overrideFail(ld, index,
                        "the value '%.200s%s' is not JSON text: at character %d, %s", o->value,
                        more, valueCharacter(o->value, bad), why);
  }
  // nested deeper than cJSON reads: said as such, as in a file
  if (!value && csu_jsonNesting(o->value, read, NULL) >= CJSON_NESTING_LIMIT &&
      (o->value[read] == '[' || o->value[read] == '{')) {
    return overrideFail(ld, index,
                        "the value is nested more than %d levels deep at character %d (arrays "
                        "and objects inside each other); the parser refuses deeper nesting",
                        CJSON_NESTING_LIMIT, valueCharacter(o->value, read));
  }
  if (!value) {
    int word = o->value[0] != '\0';
    for (const char* c = o->value; *c && word; c++) {
      word = (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') ||
             *c == '_' || *c == '-' || *c == '.';
    }
    const char* reason;
    size_t at = csu_jsonErrorAt(o->value, valueLen, read, &reason);
    if (word) {
      reason = " (a string needs double quotes, e.g. \"bdf\")";
    }
    return overrideFail(ld, index, "the value '%.200s%s' is not JSON text: at character %d%s",
                        o->value, more, valueCharacter(o->value, at), reason);
  }
  // walk: node is the value reached so far; rest the key path still to follow
  cJSON* node = root;
  cJSON* parent = NULL;  // the value holding node
  const char* rest = o->key;
  const char* arrayKey = "";  // the top-level key of the array the walk is in, for names
  popPath(ld, 0);
  int r = 0;
  if (!rest[0]) {
    r = overrideFail(ld, index, "the key path is empty");
  }
  while (!r && rest[0]) {
    // the part of the key path followed so far, for messages
    int done = (int)(rest - o->key);
    if (rest[0] == '[') {
      // [index] of an array
      const char* stop = NULL;
      long i = pathIndex(rest + 1, &stop);
      if (i < 0 || *stop != ']') {
        r = overrideFail(ld, index, "malformed index after '%.*s' (expected [N])", done, o->key);
        break;
      }
      if (!cJSON_IsArray(node)) {
        r = overrideFail(ld, index, "'%.*s' is %s, not an array", done, o->key, typeName(node));
        break;
      }
      int n = cJSON_GetArraySize(node);
      if (i >= n) {
        r = overrideFail(ld, index, "'%.*s' has %d element%s; there is no [%ld]", done, o->key, n,
                         n == 1 ? "" : "s", i);
        break;
      }
      parent = node;
      node = cJSON_GetArrayItem(node, (int)i);
      pushIndex(ld, (int)i);
      rest = stop + 1;
    } else {
      // upto: the part naming the value reached; done also covers the dot after it
      int upto = done;
      if (rest[0] == '.' && done > 0) {
        rest++;
        done++;
      }
      if (rest[0] == '.' || rest[0] == '[' || rest[0] == '\0') {
        r = overrideFail(ld, index, "malformed key path (an empty key after '%.*s')", done, o->key);
        break;
      }
      if (cJSON_IsObject(node)) {
        // the longest member key that the rest starts with (keys may hold dots)
        size_t bestLen;
        int unused;
        cJSON* best = longestChild(node, rest, "", &bestLen, &unused);
        if (!best) {
          // a member the scene does not have: created (an object when the path goes on); the
          // normal checks then judge whether it is a valid key here
          size_t n = strcspn(rest, ".[");
          char key[CS_MAX_KEY];
          if (n >= sizeof(key)) {
            r = overrideFail(ld, index, "the key '%.64s...' is too long", rest);
            break;
          }
          memcpy(key, rest, n);
          key[n] = '\0';
          // the arrays of named entries are not made up: an entry must exist to be set
          if (node == root && rest[n] == '.' && strcmp(entryNoun(key), "entry") != 0) {
            r = overrideFail(ld, index, "the scene has no %s named '%.*s' (it has no '%s')",
                             entryNoun(key), (int)strcspn(rest + n + 1, ".["), rest + n + 1, key);
            break;
          }
          if (rest[n] == '[') {
            r = overrideFail(ld, index, "'%.*s' does not exist in the scene, so it has no elements",
                             (int)(done + (int)n), o->key);
            break;
          }
          cJSON* made = rest[n] ? cJSON_CreateObject() : value;
          if (!made || !cJSON_AddItemToObject(node, key, made)) {
            if (made && made != value) {
              cJSON_Delete(made);
            }
            cs_setError(ld->err, CS_ERR_MEMORY, "", "out of memory applying an override");
            r = -1;
            break;
          }
          if (!ld->created[index][0]) {
            pushKey(ld, key);
            snprintf(ld->created[index], sizeof(ld->created[index]), "%s", ld->path);
            ld->createdObject[index] = made != value;
          } else {
            pushKey(ld, key);
          }
          if (made == value) {
            value = NULL;  // consumed
            rest += n;
            break;
          }
          node = made;
          rest += n;
          continue;
        }
        if (node == root) {
          arrayKey = best->string;
        }
        pushKey(ld, best->string);
        parent = node;
        node = best;
        rest += bestLen;
      } else if (cJSON_IsArray(node)) {
        // an entry of an array of objects, by its name
        size_t bestLen;
        int bestIndex;
        cJSON* best =
            longestChild(node, rest, parent == root ? arrayKey : "", &bestLen, &bestIndex);
        if (!best) {
          size_t n = strcspn(rest, ".[");
          int top = parent == root;
          if (top && strcmp(arrayKey, "changes") == 0) {
            r = overrideFail(ld, index,
                             "the entries of 'changes' have no names: address them by index, "
                             "e.g. changes[0]");
          } else if (top) {
            r = overrideFail(ld, index, "the scene has no %s named '%.*s'", entryNoun(arrayKey),
                             (int)(n > 64 ? 64 : n), rest);
          } else {
            r = overrideFail(ld, index, "'%.*s' has no entry named '%.*s' (use an index: [N])",
                             upto, o->key, (int)(n > 64 ? 64 : n), rest);
          }
          break;
        }
        // names may hold dots, so a shorter name can match too: with forces 'f' and
        // 'f.body_material', "f.body_material.mu_dynamic" could be either. It is ambiguous when
        // the rest of the path leads to a value of the shorter name's entry as well
        int other = -1;
        size_t otherLen = 0;
        cJSON* otherNode = NULL;
        int i = 0;
        for (cJSON* c = node->child; c && other < 0; c = c->next, i++) {
          char buf[CS_MAX_NAME + 16];
          const char* name = cJSON_IsObject(c)
                                 ? entryName(c, parent == root ? arrayKey : "", i, buf, sizeof(buf))
                                 : NULL;
          size_t n = segmentMatch(rest, name);
          if (n > 0 && n < bestLen && pathExists(c, rest + n)) {
            other = i;
            otherLen = n;
            otherNode = c;
          }
        }
        // where the rest of the path is a value of the shorter name's entry only, that entry is
        // meant (bodies 'b' and 'b.joint': "b.joint.type" is b's joint type, not a "type" of
        // the body b.joint, which bodies do not have)
        if (other >= 0 && !pathExists(best, rest + bestLen)) {
          best = otherNode;
          bestIndex = other;
          bestLen = otherLen;
          other = -1;
        }
        if (other >= 0) {
          r = overrideFail(ld, index,
                           "'%.*s' is ambiguous: it names the entry '%.*s' and a member of the "
                           "entry '%.*s'; use an index: %.*s[%d]%s or %.*s[%d]%s",
                           (int)(rest - o->key) + (int)bestLen, o->key, (int)bestLen, rest,
                           (int)otherLen, rest, upto, o->key, bestIndex, rest + bestLen, upto,
                           o->key, other, rest + otherLen);
          break;
        }
        pushIndex(ld, bestIndex);
        parent = node;
        node = best;
        rest += bestLen;
      } else {
        r = overrideFail(ld, index, "'%.*s' is %s, which has no member '%.*s'", upto, o->key,
                         typeName(node), (int)strcspn(rest, ".["), rest);
        break;
      }
    }
    if (!r && rest[0] && rest[0] != '.' && rest[0] != '[') {
      r = overrideFail(ld, index, "malformed key path after '%.*s'", (int)(rest - o->key), o->key);
    }
  }
  // with csLoadOptions.distinct, the value it sets, by its JSON path: an override of a value
  // an earlier one set (a key given twice, or spelled two ways: bodies.arm.mass and
  // bodies[0].mass), or of a value holding one an earlier override set, would leave the earlier
  // one without effect (a member set after its object refines it, and is kept)
  if (!r && ld->target) {
    snprintf(ld->target[index], sizeof(ld->target[index]), "%s", ld->path);
    for (int j = 0; j < index && !r; j++) {
      const char* a = ld->target[j];
      const char* b = ld->target[index];
      size_t na = strlen(a), nb = strlen(b);
      if (na > 0 && nb > 0 && nb <= na && strncmp(a, b, nb) == 0 &&
          (a[nb] == '\0' || a[nb] == '.' || a[nb] == '[')) {
        r = overrideFail(ld, index, "sets %s, and '%s' sets %s: one of the two would have no "
                         "effect; give each value once", b, ld->overrides[j].key, a);
      }
    }
  }
  // the place exists: the value goes there (unless a created member took it already)
  if (!r && value) {
    if (node == root) {
      r = overrideFail(ld, index, "the key path must name a value inside the scene");
    } else {
      replaceValue(node, value);
      value = NULL;
    }
  }
  cJSON_Delete(value);
  popPath(ld, 0);
  return r;
}


// every override of opt (nullable) in order, each on the tree the ones before it left, with
// the loader's record of what each created and (csLoadOptions.distinct) set, *bytes of it
// allocated for the caller to free; 0, or -1 with the error set
static int applyLoadOverrides(Loader* ld, cJSON* root, const csLoadOptions* opt, size_t* bytes) {
  *bytes = 0;
  if (!opt || opt->noverrides <= 0 || !opt->overrides) {
    return 0;
  }
  ld->overrides = opt->overrides;
  ld->noverrides = opt->noverrides;
  // created, then target, then createdObject, in one block (the paths' size keeps the ints
  // aligned)
  *bytes = (2 * sizeof(*ld->created) + sizeof(int)) * (size_t)opt->noverrides;
  ld->created = csu_malloc(*bytes);
  if (!ld->created) {
    *bytes = 0;
    cs_setError(ld->err, CS_ERR_MEMORY, "", "out of memory applying the overrides");
    return -1;
  }
  memset(ld->created, 0, *bytes);
  ld->target = opt->distinct ? ld->created + opt->noverrides : NULL;
  ld->createdObject = (int*)(void*)(ld->created + 2 * opt->noverrides);
  if (!cJSON_IsObject(root)) {
    return 0;  // the checks report a root that is not an object
  }
  for (int i = 0; i < ld->noverrides; i++) {
    if (applyOverride(ld, root, i)) {
      return -1;
    }
  }
  return 0;
}


// ---------------------------------------------------------------------------------------------
// text and files

// parse text[0..len) (text[len] must be '\0') strictly: one JSON value, nothing after it
static cJSON* parseText(const char* text, size_t len, csError* err) {
  // a NUL inside the text would end cJSON's parse early and hide the rest, an escaped one in a
  // string would cut it short: refused where they are
  if (csu_jsonNulProblem(text, len, err) != 0) {
    return NULL;
  }
  // require a NUL right after the value: anything after it (a second object) is an error
  const char* end = NULL;
  cJSON* root = cJSON_ParseWithLengthOpts(text, len + 1, &end, 1);
  // where cJSON stopped is where the error is; at the end, the text ended too early
  size_t pos = root ? len : (end && end >= text && end <= text + len) ? (size_t)(end - text) : len;
  // unless a number before it is one JSON does not allow, which cJSON read all the same (010,
  // 1., -.5): that is the first error
  if (csu_jsonStrictProblem(text, pos, err) != 0) {
    cJSON_Delete(root);
    return NULL;
  }
  if (!root) {
    csu_lineColumn(text, pos, &err->line, &err->column);
    // cJSON refuses arrays and objects nested deeper than its limit as it does a syntax error:
    // say which it was, since the text may well be valid JSON
    // (the bracket must stand where a value may: after '[', ',' or ':'; after a value it is a
    // syntax error, a missing comma, whatever the depth)
    int depth = csu_jsonNesting(text, pos, NULL);
    size_t before = pos;
    while (before > 0 && strchr(" \t\r\n", text[before - 1])) {
      before--;
    }
    int valueHere = before > 0 && strchr("[,:", text[before - 1]) != NULL;
    if (depth >= CJSON_NESTING_LIMIT && valueHere && (text[pos] == '[' || text[pos] == '{')) {
      cs_setError(err, CS_ERR_INPUT, "",
                  "the JSON is nested more than %d levels deep at line %d, column %d (arrays "
                  "and objects inside each other); the parser refuses deeper nesting",
                  CJSON_NESTING_LIMIT, err->line, err->column);
      return NULL;
    }
    csu_jsonSyntaxError(text, len, pos, err);
  }
  return root;
}


// read a whole stream into a counted, zero-terminated buffer of *size bytes; name is for messages
static char* readStream(FILE* f, const char* name, size_t* size, size_t* len, csError* err) {
  // read until the end of the file rather than asking its size with fseek/ftell, so that pipes
  // and special files work too; the buffer doubles, and the size limit is checked before each
  // growth so that an endless input costs at most CS_MAX_SCENE_BYTES
  size_t cap = 4096, n = 0;
  int readErrno = 0;
  char* buf = csu_malloc(cap);
  // the buffer at its largest holds a file of the limit, its NUL and one byte more, which is
  // how a larger file is told from one of exactly the limit
  const size_t most = (size_t)CS_MAX_SCENE_BYTES + 2;
  while (buf) {
    if (n + 1 >= cap) {
      if (cap >= most) {
        cs_setError(err, CS_ERR_INPUT, "", "'%s' is larger than %ld bytes", name,
                    CS_MAX_SCENE_BYTES);
        csu_free(buf, cap);
        return NULL;
      }
      size_t next = 2 * cap < most ? 2 * cap : most;
      char* grown = csu_realloc(buf, cap, next);
      if (!grown) {
        csu_free(buf, cap);
        buf = NULL;
        break;
      }
      buf = grown;
      cap = next;
    }
    // fill the rest of the buffer, keeping one byte for the NUL; a read of nothing is the end
    errno = 0;
    size_t got = fread(buf + n, 1, cap - 1 - n, f);
    readErrno = got == 0 && errno ? errno : readErrno;
    n += got;
    if (got == 0) {
      break;
    }
  }
  if (!buf) {
    cs_setError(err, CS_ERR_MEMORY, "", "out of memory reading '%s'", name);
    return NULL;
  }
  // a read error is not the end of the file: report it rather than load a truncated scene
  if (ferror(f)) {
    // with the system's reason: a directory (EISDIR), a closed standard input (EBADF)
    cs_setError(err, CS_ERR_IO, "", "cannot read '%s'%s%s", name, readErrno ? ": " : "",
                readErrno ? strerror(readErrno) : "");
    csu_free(buf, cap);
    return NULL;
  }
  // cJSON needs the terminating NUL; the loop always keeps one byte free for it
  buf[n] = '\0';
  *size = cap;
  *len = n;
  return buf;
}


// read a whole file ("-": standard input) into a counted, zero-terminated buffer
static char* readFile(const char* path, size_t* size, size_t* len, csError* err) {
  if (strcmp(path, "-") == 0) {
    return readStream(stdin, "standard input", size, len, err);
  }
  FILE* f = fopen(path, "rb");
  if (!f) {
    cs_setError(err, CS_ERR_IO, "", "cannot open '%s': %s", path, strerror(errno));
    return NULL;
  }
  char* buf = readStream(f, path, size, len, err);
  fclose(f);
  return buf;
}


// start every load with a clean error that already names the file
static void clearError(csError* err, const char* file) {
  cs_clearError(err);
  // "-" is standard input (readFile), named as the command line names it
  snprintf(err->file, sizeof(err->file), "%s",
           !file ? "" : strcmp(file, "-") == 0 ? "<stdin>" : file);
}


// an unknown key that an override created is that override's mistake, not the file's: the error
// is then given the override's key path and index. So is an unknown key inside a member it
// created (simulation.rtool where the scene had no simulation block: the block is created, and
// the unknown key is found inside it), and any error about that member itself (name.x = 1 where
// the scene had no name: the created object is not a string). A bad value, inside a created
// member or created itself (simulation.rtol = -1 or "tight"), is reported at its path with no
// override, as one the file held: sweep records such a run as failed instead of refusing the
// study.
static int createdBy(const char* created, const char* at) {
  size_t n = strlen(created);
  return n > 0 && strncmp(at, created, n) == 0 && (at[n] == '\0' || at[n] == '.' || at[n] == '[');
}

static void blameOverride(Loader* ld) {
  // the override that created the innermost member holding the error (one override can create
  // the simulation block, a later one a key inside it)
  int blamed = -1;
  size_t depth = 0;
  for (int i = 0; i < ld->noverrides; i++) {
    size_t n = strlen(ld->created[i]);
    if (n > depth && createdBy(ld->created[i], ld->err->path) &&
        (ld->unknownKey ||
         (ld->createdObject[i] && strcmp(ld->created[i], ld->err->path) == 0))) {
      blamed = i;
      depth = n;
    }
  }
  if (blamed >= 0) {
    // the error's place inside the value the override gave is kept in the message (an unknown
    // variable in changes[0] of `--set changes=[...]`)
    const char* key = ld->overrides[blamed].key;
    if (strlen(ld->err->path) > strlen(ld->created[blamed]) && strcmp(ld->err->path, key) != 0) {
      cs_prefixError(ld->err, "at %s: ", ld->err->path);
    }
    escapeText(ld->err->path, sizeof(ld->err->path), key, strlen(key));
    ld->err->override = blamed + 1;
  }
}


// parse, build, then free the tree (the model keeps no pointer into it)
static csModel* loadText(const char* text, size_t len, const char* file, const csLoadOptions* opt,
                         csError* err) {
  // the override list as the header describes it: a count of 0 or more, and the array when it
  // is more (a negative count was kept with the model and overran its copy of the list later)
  if (opt && (opt->noverrides < 0 || (opt->noverrides > 0 && !opt->overrides))) {
    cs_setError(err, CS_ERR_INPUT, "", "csLoadOptions: %d overrides %s", opt->noverrides,
                opt->noverrides < 0 ? "(the count must be 0 or more)" : "but no array of them");
    return NULL;
  }
  cJSON* root = parseText(text, len, err);
  if (!root) {
    return NULL;
  }
  Loader ld;
  memset(&ld, 0, sizeof(ld));
  ld.err = err;
  // the overrides edit the tree first, so everything after sees the edited scene
  csModel* m = NULL;
  size_t createdBytes = 0;
  if (applyLoadOverrides(&ld, root, opt, &createdBytes)) {
    goto done;
  }
  m = buildModel(&ld, root, file, opt);
  if (!m) {
    blameOverride(&ld);
  }
done:
  csu_free(ld.created, createdBytes);
  cJSON_Delete(root);
  return m;
}


// public entry points (contactsim.h): err may be NULL, in which case a local one is used
csModel* cs_loadSceneString(const char* text, const char* filename, const csLoadOptions* opt,
                            csError* err) {
  csError local;
  err = err ? err : &local;
  clearError(err, filename);
  // NULL text is an input error, not a crash
  if (!text) {
    cs_setError(err, CS_ERR_INPUT, "", "no scene text was given");
    return NULL;
  }
  // the model keeps the text and options, so that cs_modelWithOverrides can load it again
  return cs_modelKeepSource(loadText(text, strlen(text), filename, opt, err), text, strlen(text),
                            opt, err);
}


csModel* cs_loadScene(const char* path, const csLoadOptions* opt, csError* err) {
  csError local;
  err = err ? err : &local;
  // read as the command line reads (a NULL path, a pipe, a NUL byte: the same checks); the text
  // is freed right after the load, since the model keeps a copy of its own
  size_t len = 0;
  char* text = cs_readSceneText(path, &len, err);
  if (!text) {
    return NULL;
  }
  csModel* m = loadText(text, len, path, opt, err);
  m = cs_modelKeepSource(m, text, len, opt, err);
  cs_freeSceneText(text);
  return m;
}


// the blocks of contact_models in a parsed scene, checked as the loader checks them; see
// cs_sceneContactModels
static int contactModelsOfTree(Loader* ld, const cJSON* root, char names[][CS_MAX_NAME],
                               int maxnames, char* defaultname) {
  // only the blocks are checked here, not the whole scene: compare loads every model afterwards,
  // and that load reports any other error with its path
  const cJSON* contacts = cJSON_GetObjectItemCaseSensitive(root, "contacts");
  const cJSON* cm = cJSON_GetObjectItemCaseSensitive(root, "contact_models");
  // a root that is not an object is bad input here, as in the load
  if (expectObject(ld, root)) {
    return -1;
  }
  // no contacts or no blocks: zero models, and the scene runs as it is
  if (!cJSON_IsArray(contacts) || cJSON_GetArraySize(contacts) == 0 || !cm) {
    return 0;
  }
  // the blocks, checked as the loader checks them
  const char* defaultName = NULL;
  const cJSON* onlyBlock = NULL;
  int count = 0;
  // errors in a block carry its path, as they would in the load
  size_t p = pushKey(ld, "contact_models");
  int r = readContactModels(ld, cm, &defaultName, &count, &onlyBlock);
  popPath(ld, p);
  if (r) {
    return -1;
  }
  // names in file order, at most maxnames of them; the count returned is of all blocks
  int i = 0;
  for (const cJSON* c = cm->child; c; c = c->next) {
    if (strcmp(c->string, "default") != 0 && i < maxnames && names) {
      snprintf(names[i++], CS_MAX_NAME, "%s", c->string);
    }
  }
  // the default, else the only block, else empty
  if (defaultname) {
    const char* d = defaultName ? defaultName : (onlyBlock ? onlyBlock->string : "");
    snprintf(defaultname, CS_MAX_NAME, "%s", d);
  }
  return count;
}


int cs_sceneContactModelsString(const char* text, const char* filename, const csLoadOptions* opt,
                                char names[][CS_MAX_NAME], int maxnames, char* defaultname,
                                csError* err) {
  csError local;
  err = err ? err : &local;
  clearError(err, filename);
  // empty results first, so that they are defined on every return
  if (defaultname) {
    defaultname[0] = '\0';
  }
  if (!text) {
    cs_setError(err, CS_ERR_INPUT, "", "no scene text was given");
    return -1;
  }
  cJSON* root = parseText(text, strlen(text), err);
  if (!root) {
    return -1;
  }
  Loader ld;
  memset(&ld, 0, sizeof(ld));
  ld.err = err;
  int count = -1;
  size_t createdBytes = 0;
  // the overrides first, as in the load (they may add or change blocks)
  if (applyLoadOverrides(&ld, root, opt, &createdBytes)) {
    goto done;
  }
  count = contactModelsOfTree(&ld, root, names, maxnames, defaultname);
  if (count < 0) {
    blameOverride(&ld);
  }
done:
  csu_free(ld.created, createdBytes);
  cJSON_Delete(root);
  return count;
}


int cs_sceneContactModels(const char* path, char names[][CS_MAX_NAME], int maxnames,
                          char* defaultname, csError* err) {
  csError local;
  err = err ? err : &local;
  clearError(err, path);
  if (defaultname) {
    defaultname[0] = '\0';
  }
  char* text = cs_readSceneText(path, NULL, err);
  if (!text) {
    return -1;
  }
  int count = cs_sceneContactModelsString(text, path, NULL, names, maxnames, defaultname, err);
  cs_freeSceneText(text);
  return count;
}


// The text of cs_readSceneText is the buffer it was read into, not a copy (a scene may be tens
// of megabytes): the size of the allocation is stored right after the terminating NUL, where
// cs_freeSceneText finds it again.
char* cs_readSceneText(const char* path, size_t* length, csError* err) {
  csError local;
  err = err ? err : &local;
  clearError(err, path);
  if (!path) {
    cs_setError(err, CS_ERR_INPUT, "", "no scene file was given");
    return NULL;
  }
  size_t size = 0, len = 0;
  char* buf = readFile(path, &size, &len, err);
  if (!buf) {
    return NULL;
  }
  // a NUL inside the text would end every later parse early and hide the rest: refuse it here
  if (csu_jsonNulProblem(buf, len, err) != 0) {
    csu_free(buf, size);
    return NULL;
  }
  // room for the size after the NUL
  if (size < len + 1 + sizeof(size_t)) {
    char* grown = csu_realloc(buf, size, len + 1 + sizeof(size_t));
    if (!grown) {
      cs_setError(err, CS_ERR_MEMORY, "", "out of memory reading '%s'", path);
      csu_free(buf, size);
      return NULL;
    }
    buf = grown;
    size = len + 1 + sizeof(size_t);
  }
  memcpy(buf + len + 1, &size, sizeof(size_t));
  if (length) {
    *length = len;
  }
  return buf;
}


void cs_freeSceneText(char* text) { csu_freeText(text); }
