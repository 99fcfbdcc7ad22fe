// state_file.c: checkpoints. The complete state of a simulation written to a small text file
// and read back exactly (the format is specified in docs/c-api.md, "Checkpoints").
//
// Text rather than binary: a checkpoint is small (one line per state variable), a user can read
// which anchor or friction coefficient it holds, and it moves between machines without byte
// order questions. Exactness comes from writing every double as a C99 hexadecimal float ("%a"),
// which strtod reads back to the same bits; the decimal value follows in a comment for people.
// A model fingerprint (a hash of the scene's structure, not its parameter values) makes a state
// from another scene fail to load with a clear message instead of being poured into the wrong
// variables. The file is written under a temporary name and renamed, so that a run interrupted
// while saving never leaves half a checkpoint behind.
#include "engine/error.h"

#include "contactsim/contactsim.h"
#include "io/replace_file.h"
#include "engine/model.h"
#include "engine/forces.h"

#include <errno.h>
#include <inttypes.h>
#include <locale.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define CS_STATE_MAGIC "contactsim-state"
// Version 2 keeps each auto-update element's last commit (version 1 had one time for all, which
// a scene of groups that step apart does not have); version 1 is still read
#define CS_STATE_VERSION 2
// the layout the fingerprint hashes: version 2 added the commit times and kept every array, so
// a model's fingerprint is the same in both
#define CS_STATE_LAYOUT 1
// How far from unit length a checkpoint's quaternion may be. A run keeps them near 1 (rk within
// 1e-9, BDF by its projection, Adams by a stabilizing term only, 4e-3 off after 20 s of a
// spinning top at rtol 1e-2), and every checkpoint a run writes must load; a hand edit to a
// length of 3 is a state no run makes (and the integrators fail from it)
#define QUAT_NORM_SLACK 0.5


// ---------------------------------------------------------------------------------------------
// fingerprint: FNV-1a over the structure

static uint64_t hashBytes(uint64_t h, const void* p, size_t n) {
  const unsigned char* c = p;
  for (size_t i = 0; i < n; i++) {
    h ^= c[i];
    h *= 1099511628211ull;
  }
  return h;
}


// a string with its terminating zero, so that "ab"+"c" and "a"+"bc" differ
static uint64_t hashString(uint64_t h, const char* s) { return hashBytes(h, s, strlen(s) + 1); }


static uint64_t hashInt(uint64_t h, long v) {
  // fixed width and byte order, so that the fingerprint is the same on every machine
  unsigned char b[8];
  for (int i = 0; i < 8; i++) {
    b[i] = (unsigned char)(((unsigned long long)v >> (8 * i)) & 0xff);
  }
  return hashBytes(h, b, sizeof(b));
}


// Names, joint types, the tree, planes, element kinds and the state layout: what a state's
// meaning depends on. Parameter values (masses, stiffnesses, friction) are left out on purpose:
// continuing a run with another friction coefficient is a legitimate use of a checkpoint.
uint64_t cs_modelFingerprint(const csModel* m) {
  uint64_t h = 14695981039346656037ull;
  h = hashInt(h, CS_STATE_LAYOUT);
  long sizes[] = {m->nbody, m->nq, m->nu, m->nz, m->ndisc, m->nauto, m->nplane, m->nforce};
  for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
    h = hashInt(h, sizes[i]);
  }
  for (int b = 0; b < m->nbody; b++) {
    const csBody* body = &m->body[b];
    h = hashString(h, body->name);
    h = hashInt(h, body->parent);
    h = hashInt(h, body->joint);
    h = hashInt(h, body->qadr);
    h = hashInt(h, body->uadr);
  }
  for (int p = 0; p < m->nplane; p++) {
    h = hashString(h, m->plane[p].name);
    h = hashInt(h, m->plane[p].body);
  }
  for (int e = 0; e < m->nforce; e++) {
    const csForce* f = &m->force[e];
    h = hashString(h, f->name);
    h = hashString(h, cs_forceKind(f->kind)->name);
    h = hashInt(h, f->zadr);
    h = hashInt(h, f->znum);
    h = hashInt(h, f->dissadr);
    h = hashInt(h, f->discadr);
    h = hashInt(h, f->discnum);
    h = hashInt(h, f->autoadr);
    h = hashInt(h, f->autonum);
  }
  return h;
}


// ---------------------------------------------------------------------------------------------
// writing

// one value per line: hexadecimal (exact), then the decimal value and what it is, for people
static void writeValue(FILE* f, double v, const char* what, const char* name, int index) {
  fprintf(f, "%a  # %.17g", v, v);
  if (what[0]) {
    fprintf(f, " %s", what);
  }
  if (name) {
    fprintf(f, " %s", name);
  }
  if (index >= 0) {
    fprintf(f, "[%d]", index);
  }
  fputc('\n', f);
}


// the names of q and u entries: the body whose mobilizer owns them
static const char* bodyOf(const csModel* m, int index, int isU, int* local) {
  for (int b = 1; b < m->nbody; b++) {
    int adr = isU ? m->body[b].uadr : m->body[b].qadr;
    int num = isU ? m->body[b].unum : m->body[b].qnum;
    if (index >= adr && index < adr + num) {
      *local = index - adr;
      return m->body[b].name;
    }
  }
  *local = index;
  return NULL;
}


// the element owning state index i of one kind (0 z, 1 discrete, 2 auto-update)
static const csForce* forceOf(const csModel* m, int i, int which, int* local) {
  for (int e = 0; e < m->nforce; e++) {
    const csForce* f = &m->force[e];
    int adr = which == 0 ? f->zadr : which == 1 ? f->discadr : f->autoadr;
    int num = which == 0 ? f->znum : which == 1 ? f->discnum : f->autonum;
    if (i >= adr && i < adr + num) {
      *local = i - adr;
      return f;
    }
  }
  *local = i;
  return NULL;
}


// the elements with auto-update variables, whose last commit a checkpoint keeps
static int autoElements(const csModel* m) {
  int n = 0;
  for (int e = 0; e < m->nforce; e++) {
    n += m->force[e].autonum > 0;
  }
  return n;
}


static void writeState(FILE* f, const csModel* m, const csData* d) {
  fprintf(f, "# contactsim checkpoint: the complete state of a simulation (docs/c-api.md)\n");
  fprintf(f, "%s %d\n", CS_STATE_MAGIC, CS_STATE_VERSION);
  fprintf(f, "scene %s\n", m->name);
  fprintf(f, "fingerprint %016" PRIx64 "\n", cs_modelFingerprint(m));
  fprintf(f, "t ");
  writeValue(f, d->t, "s", NULL, -1);
  int local;
  fprintf(f, "q %d\n", m->nq);
  for (int i = 0; i < m->nq; i++) {
    const char* b = bodyOf(m, i, 0, &local);
    writeValue(f, d->q[i], "q of", b ? b : "?", local);
  }
  fprintf(f, "u %d\n", m->nu);
  for (int i = 0; i < m->nu; i++) {
    const char* b = bodyOf(m, i, 1, &local);
    writeValue(f, d->u[i], "u of", b ? b : "?", local);
  }
  fprintf(f, "z %d\n", m->nz);
  for (int i = 0; i < m->nz; i++) {
    const csForce* e = forceOf(m, i, 0, &local);
    writeValue(f, d->z[i], e ? "state of" : "dissipated energy, J", e ? e->name : NULL,
               e ? local : -1);
  }
  fprintf(f, "discrete %d\n", m->ndisc);
  for (int i = 0; i < m->ndisc; i++) {
    const csForce* e = forceOf(m, i, 1, &local);
    char name[2 * CS_MAX_NAME + 2] = "?";
    if (e) {
      snprintf(name, sizeof(name), "%s.%s", e->name, cs_forceKind(e->kind)->discnames[local]);
    }
    writeValue(f, d->disc[i], "", name, -1);
  }
  fprintf(f, "auto %d\n", m->nauto);
  for (int i = 0; i < m->nauto; i++) {
    const csForce* e = forceOf(m, i, 2, &local);
    const csForceKind* k = e ? cs_forceKind(e->kind) : NULL;
    char name[2 * CS_MAX_NAME + 2] = "?";
    if (e && k->autonames) {
      snprintf(name, sizeof(name), "%s.%s", e->name, k->autonames[local]);
    } else if (e) {
      snprintf(name, sizeof(name), "%s.auto%d", e->name, local);
    }
    writeValue(f, d->autoval[i], "", name, -1);
  }
  fprintf(f, "commit %d\n", autoElements(m));
  for (int e = 0; e < m->nforce; e++) {
    if (m->force[e].autonum > 0) {
      writeValue(f, d->commit_t[e], "s, last auto-update commit of", m->force[e].name, -1);
    }
  }
  fprintf(f, "end\n");
}


// an I/O failure on the checkpoint file, named in err->file as well as in the sentence
__attribute__((format(printf, 3, 4))) static int ioError(csError* err, const char* path,
                                                         const char* fmt, ...) {
  char msg[CS_MAX_ERROR];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof(msg), fmt, ap);
  va_end(ap);
  cs_setError(err, CS_ERR_IO, "", "%s", msg);
  if (err) {
    snprintf(err->file, sizeof(err->file), "%s", path);
  }
  return CS_ERR_IO;
}


// CS_OK, or CS_ERR_INPUT when d's state is no state to save (file: what err names)
static int unsavable(const csModel* m, const csData* d, const char* file, csError* err) {
  // A state that is not finite is no state to continue from, and would be refused when loaded:
  // refused here instead. (A failed advance leaves the last accepted state, which is finite;
  // this guards what the data holds however it came to.) A discrete variable may be infinite (a
  // stop without a bound); none may be NaN.
  const double* parts[5] = {d->q, d->u, d->z, d->autoval, d->disc};
  const int sizes[5] = {m->nq, m->nu, m->nz, m->nauto, m->ndisc};
  static const char* const names[5] = {"q", "u", "z", "auto", "discrete"};
  for (int k = 0; k < 5; k++) {
    for (int i = 0; i < sizes[k]; i++) {
      double v = parts[k][i];
      if (parts[k] == d->disc ? isnan(v) : !isfinite(v)) {
        cs_setError(err, CS_ERR_INPUT, file, "the state is not finite (%s[%d] = %g at t = %g s): "
                    "reset the simulation or load a checkpoint first", names[k], i, v, d->t);
        return CS_ERR_INPUT;
      }
    }
  }
  return CS_OK;
}


static int saveState(const csModel* m, const csData* d, const char* path, csError* err) {
  cs_clearError(err);
  if (!path) {
    cs_setError(err, CS_ERR_INPUT, "", "no checkpoint file was given");
    return CS_ERR_INPUT;
  }
  if (unsavable(m, d, path, err) != CS_OK) {
    return CS_ERR_INPUT;
  }
  // A symbolic link is written through, to the file it names (renaming over the link would
  // replace the link itself: run as root, --save-state /dev/stdout replaced the machine's
  // /dev/stdout link); a device, a pipe or a socket in place (renaming a file over /dev/null
  // would turn it into a regular file for every program on the machine); a regular file under
  // a temporary name, synced, then renamed over the old checkpoint, so that a crash leaves the
  // old one or the new one (replace_file.h).
  // (stat follows a link to the file it names, which is what is checked here)
  struct stat st;
  int exists = stat(path, &st) == 0;
  if (exists && S_ISDIR(st.st_mode)) {
    return ioError(err, path, "cannot write the checkpoint %s: it is a directory", path);
  }
  // A checkpoint never replaces the scene its model was loaded from (a path spelled another
  // way, ./scene.json, is the same file): the scene would be lost for a state that cannot be
  // used without it.
  if (exists && cs_modelIsSceneFile(m, path)) {
    return ioError(err, path, "refusing to write the checkpoint over the scene file %s",
                   m->file);
  }
  csuReplace out;
  if (csu_replaceOpen(&out, path) != 0) {
    return ioError(err, path, "cannot write the checkpoint %s: %s", path, strerror(errno));
  }
  writeState(out.f, m, d);
  if (csu_replaceClose(&out, 1) != 0) {
    return ioError(err, path, "could not write %s: %s", path, strerror(errno));
  }
  return CS_OK;
}


// The text of cs_saveStateText: writeState into a memory stream, then copied into a counted
// allocation (as every library allocation is) with its size stored after the terminating zero,
// where cs_freeStateText finds it (the text holds no zero byte: scene names are C strings).
static int saveStateText(const csModel* m, const csData* d, char** text, size_t* length,
                         csError* err) {
  cs_clearError(err);
  if (!text) {
    cs_setError(err, CS_ERR_INPUT, "", "no place for the checkpoint text was given");
    return CS_ERR_INPUT;
  }
  *text = NULL;
  if (length) {
    *length = 0;
  }
  if (unsavable(m, d, CS_STATE_TEXT_NAME, err) != CS_OK) {
    return CS_ERR_INPUT;
  }
  char* buf = NULL;
  size_t len = 0;
  FILE* f = open_memstream(&buf, &len);
  int bad = !f;
  if (f) {
    writeState(f, m, d);
    bad = ferror(f) != 0;
    bad = fclose(f) != 0 || bad;
  }
  size_t size = len + 1 + sizeof(size_t);
  char* out = bad ? NULL : csu_malloc(size);
  if (out) {
    memcpy(out, buf, len);
    out[len] = '\0';
    memcpy(out + len + 1, &size, sizeof(size_t));
  }
  free(buf);  // open_memstream's own, from malloc
  if (!out) {
    cs_setError(err, CS_ERR_MEMORY, "", "out of memory writing the checkpoint text");
    return CS_ERR_MEMORY;
  }
  *text = out;
  if (length) {
    *length = len;
  }
  return CS_OK;
}


void cs_freeStateText(char* text) { csu_freeText(text); }


// ---------------------------------------------------------------------------------------------
// reading

typedef struct Reader {
  char* text;   // the whole file, zero-terminated (owned)
  size_t size;  // bytes allocated for it
  char* next;   // start of the next line
  int line;     // 1-based number of the line last returned
  int toolarge; // the file goes on past the most a checkpoint of the model can hold
  const char* path;  // the file, or CS_STATE_TEXT_NAME for text in memory (err->file)
  const char* noun;  // "file" or "text", for messages
  csError* err;
} Reader;


// the next line with content: comments ("#" to the end) and blank lines skipped, leading and
// trailing blanks removed; NULL at the end of the file
static char* nextLine(Reader* r) {
  while (r->next && *r->next) {
    char* s = r->next;
    char* nl = strchr(s, '\n');
    if (nl) {
      *nl = '\0';
      r->next = nl + 1;
    } else {
      r->next = NULL;
    }
    r->line++;
    char* hash = strchr(s, '#');
    if (hash) {
      *hash = '\0';
    }
    while (*s == ' ' || *s == '\t' || *s == '\r') {
      s++;
    }
    size_t n = strlen(s);
    while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r')) {
      s[--n] = '\0';
    }
    if (*s) {
      return s;
    }
  }
  return NULL;
}


__attribute__((format(printf, 2, 3))) static int fail(Reader* r, const char* fmt, ...) {
  char msg[CS_MAX_ERROR];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof(msg), fmt, ap);
  va_end(ap);
  cs_setError(r->err, CS_ERR_INPUT, "", "%s", msg);
  if (r->err) {
    snprintf(r->err->file, sizeof(r->err->file), "%s", r->path);
    r->err->line = r->line;
  }
  return CS_ERR_INPUT;
}


// what was expected where the file ended or held something else: a cut file says so, rather
// than reporting its last line as wrong
static int expected(Reader* r, const char* s, const char* what) {
  if (!s) {
    return fail(r, "the %s ends where '%s' was expected: the checkpoint is incomplete", r->noun,
                what);
  }
  return fail(r, "expected '%s', found '%.80s'", what, s);
}


// a whole-token double (hexadecimal or decimal)
static int parseDouble(const char* s, double* v) {
  char* end = NULL;
  errno = 0;
  *v = strtod(s, &end);
  return end != s && *end == '\0' ? 0 : -1;
}


// "KEY VALUE" with a finite double value
static int readScalar(Reader* r, const char* key, double* v) {
  char* s = nextLine(r);
  size_t n = strlen(key);
  if (!s || strncmp(s, key, n) != 0 || (s[n] != ' ' && s[n] != '\t')) {
    char what[32];
    snprintf(what, sizeof(what), "%s VALUE", key);
    return expected(r, s, what);
  }
  s += n;
  while (*s == ' ' || *s == '\t') {
    s++;
  }
  if (parseDouble(s, v) != 0) {
    return fail(r, "%s: '%s' is not a number", key, s);
  }
  if (!isfinite(*v)) {
    return fail(r, "%s: the time must be finite, not %s", key, s);
  }
  return CS_OK;
}


// a last-commit time (what: its name in the message) that a run of a state at time t can have
static int commitProblem(Reader* r, const char* what, double tc, double t) {
  if (tc > t) {
    return fail(r, "%s (%.17g s) is after t (%.17g s): the last auto-update commit cannot come "
                "after the state's time", what, tc, t);
  }
  // runs start at t = 0, and the first commit is at the start or after it
  if (tc < 0) {
    return fail(r, "%s (%.17g s) is before the start: runs start at t = 0, and no auto-update "
                "commit comes before", what, tc);
  }
  return CS_OK;
}


// which values a section may hold
typedef enum Values {
  VALUES_FINITE = 0,  // integrated (q, u, z) and auto-update values: finite
  VALUES_NOT_NAN,     // discrete variables: also an infinite limit (a stop without a bound)
} Values;


// "KEY N" then N lines of one number each, into out (n values: the model's count), the line of
// each into lines (nullable); a value the section may not hold is refused at its own line
static int readArray(Reader* r, const char* key, double* out, int n, Values allowed,
                     int* lines) {
  char* s = nextLine(r);
  size_t len = strlen(key);
  char* end = NULL;
  if (!s || strncmp(s, key, len) != 0 || (s[len] != ' ' && s[len] != '\t')) {
    char what[32];
    snprintf(what, sizeof(what), "%s COUNT", key);
    return expected(r, s, what);
  }
  long count = strtol(s + len, &end, 10);
  if (*end != '\0' || count < 0) {
    return fail(r, "%s: the count must be a non-negative integer", key);
  }
  if (count != n) {
    // the count as written (beyond a long, strtol's clamp would misquote it)
    const char* written = s + len;
    while (*written == ' ' || *written == '\t') {
      written++;
    }
    return fail(r, "the checkpoint has %.40s%s %s values, the model %d", written,
                strlen(written) > 40 ? "..." : "", key, n);
  }
  for (int i = 0; i < n; i++) {
    s = nextLine(r);
    if (!s) {
      return fail(r, "the %s ends inside %s (%d of %d values read): the checkpoint is "
                  "incomplete", r->noun, key, i, n);
    }
    if (lines) {
      lines[i] = r->line;
    }
    if (parseDouble(s, &out[i]) != 0) {
      return fail(r, "%s[%d]: '%s' is not a number", key, i, s);
    }
    // NaN is never a state (the stops keep a missing bound as an infinity); infinities only
    // where a discrete variable may hold one
    if (isnan(out[i]) || (allowed == VALUES_FINITE && !isfinite(out[i]))) {
      return fail(r, "%s[%d]: '%s' is not a usable value: %s", key, i, s,
                  allowed == VALUES_FINITE ? "the state must be finite"
                                           : "a discrete variable may be infinite, not NaN");
    }
  }
  return CS_OK;
}


// the len bytes read into buf (cap allocated) become the reader's text: zero-terminated, and
// refused when they hold a zero byte (the lines would end there, hiding the rest)
static int takeText(Reader* r, char* buf, size_t cap, size_t len) {
  buf[len] = '\0';
  if (strlen(buf) != len) {
    csu_free(buf, cap);
    r->line = 0;
    return fail(r, "not a checkpoint: the %s contains a zero byte", r->noun);
  }
  r->text = buf;
  r->size = cap;
  r->next = buf;
  return CS_OK;
}


// read the file into r->text, at most limit bytes of it (r->toolarge says whether it goes on):
// a file given by mistake (a CSV of millions of rows, /dev/zero) is not read whole into memory
static int readFileText(Reader* r, size_t limit) {
  FILE* f = fopen(r->path, "rb");
  struct stat st;
  if (f && fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode)) {
    fclose(f);
    f = NULL;
    errno = EISDIR;
  }
  if (!f) {
    return ioError(r->err, r->path, "cannot read %s: %s", r->path, strerror(errno));
  }
  size_t cap = 4096, len = 0;
  char* buf = csu_malloc(cap);
  while (buf) {
    size_t want = cap - len - 1;
    want = want < limit - len ? want : limit - len;
    size_t got = fread(buf + len, 1, want, f);
    len += got;
    if (got < want) {
      break;
    }
    if (len == limit) {
      r->toolarge = fgetc(f) != EOF;
      break;
    }
    char* grown = csu_realloc(buf, cap, 2 * cap);
    if (!grown) {
      csu_free(buf, cap);
      buf = NULL;
      break;
    }
    buf = grown;
    cap *= 2;
  }
  int bad = ferror(f);
  int saved = errno;
  fclose(f);
  if (!buf) {
    cs_setError(r->err, CS_ERR_MEMORY, "", "out of memory reading %s", r->path);
    return CS_ERR_MEMORY;
  }
  if (bad) {
    csu_free(buf, cap);
    return ioError(r->err, r->path, "could not read %s: %s", r->path, strerror(saved));
  }
  return takeText(r, buf, cap, len);
}


// the same from text in memory: a copy of its first limit bytes (r->toolarge says whether it
// goes on), which the parser cuts into lines
static int copyText(Reader* r, const char* text, size_t length, size_t limit) {
  size_t len = length < limit ? length : limit;
  r->toolarge = length > limit;
  size_t cap = len + 1;
  char* buf = csu_malloc(cap);
  if (!buf) {
    cs_setError(r->err, CS_ERR_MEMORY, "", "out of memory reading %s", r->path);
    return CS_ERR_MEMORY;
  }
  memcpy(buf, text, len);
  return takeText(r, buf, cap, len);
}


// the values a checkpoint of m holds, and one more
static size_t stateValues(const csModel* m) {
  return (size_t)(m->nq + m->nu + m->nz + m->ndisc + m->nauto + autoElements(m)) + 1;
}


// the most bytes a checkpoint of m is read from: a checkpoint holds a line per value of a few
// hundred bytes at most; the allowance for comments a person may add is generous, and still
// keeps a wrong file from filling memory
static size_t stateLimit(const csModel* m) {
  return ((size_t)1 << 20) + 4096 * stateValues(m);
}


// The state's energy is finite (cs_infiniteEnergy), or the failure at the line of the first
// coordinate (potential energy) or speed (kinetic) of the body that makes it not
static int energyProblem(Reader* r, const csModel* m, const double* q, const double* u,
                         const int* qline, const int* uline) {
  int body = 0, which = cs_infiniteEnergyOf(m, q, u, &body);
  if (which < 0) {
    return fail(r, "out of memory checking the state's energy");
  }
  if (!which) {
    return CS_OK;
  }
  // at the line of the body's first coordinate (speed), or of the nearest body it is welded to
  // that has one: a weld has none, and its address is the next body's
  int b = body;
  while (b > 0 && (which == 'p' ? m->body[b].qnum : m->body[b].unum) == 0) {
    b = m->body[b].parent;
  }
  if (b > 0) {
    r->line = which == 'p' ? qline[m->body[b].qadr] : uline[m->body[b].uadr];
  }
  return fail(r, "the state's %s energy is not finite%s%s%s: %s too large",
              which == 'p' ? "potential" : "kinetic", body ? " (body '" : "",
              body ? m->body[body].name : "", body ? "')" : "",
              which == 'p' ? "coordinates" : "speeds");
}


// The checkpoint in r (filled by readFileText or copyText, its text freed here) into d:
// everything parsed into one scratch block first; the data changes only when all of it is good
static int parseState(const csModel* m, csData* d, Reader r) {
  csError* err = r.err;
  size_t limit = stateLimit(m);
  int status = CS_OK;
  size_t nvals = stateValues(m);
  double* v = csu_malloc(sizeof(double) * nvals);
  if (!v) {
    csu_free(r.text, r.size);
    cs_setError(err, CS_ERR_MEMORY, "", "out of memory reading %s", r.path);
    return CS_ERR_MEMORY;
  }
  // the lines of the values the checks of them together name: q's, the discrete and auto ones,
  // the commit times, u's
  size_t nlines = (size_t)(m->nq + m->ndisc + m->nauto + autoElements(m) + m->nu) + 1;
  int* qline = csu_malloc(sizeof(int) * nlines);
  if (!qline) {
    csu_free(v, sizeof(double) * nvals);
    csu_free(r.text, r.size);
    cs_setError(err, CS_ERR_MEMORY, "", "out of memory reading %s", r.path);
    return CS_ERR_MEMORY;
  }
  int* discline = qline + m->nq;
  int* autoline = discline + m->ndisc;
  int* commitline = autoline + m->nauto;
  int* uline = commitline + autoElements(m);
  double* q = v;
  double* u = q + m->nq;
  double* z = u + m->nu;
  double* disc = z + m->nz;
  double* autoval = disc + m->ndisc;
  double* commit = autoval + m->nauto;  // each auto-update element's, in the elements' order
  int ncommit = autoElements(m);
  double t = 0;

  // 1. magic and version; then the size, so that a file given by mistake is named as not a
  // checkpoint at all
  char* s = nextLine(&r);
  int version = 0;
  char tail = 0;
  // (too large is said first: a checkpoint behind megabytes of comment lines was read only up
  // to the limit, and called no checkpoint for want of its first line)
  if (r.toolarge && (!s || strncmp(s, CS_STATE_MAGIC, strlen(CS_STATE_MAGIC)) != 0)) {
    r.line = 0;
    status = fail(&r, "the %s is larger than a checkpoint of scene '%s' can be (%zu bytes "
                  "at most), and does not start as one", r.noun, m->name, limit);
  } else if (!s || sscanf(s, CS_STATE_MAGIC " %d %c", &version, &tail) != 1) {
    status = fail(&r, "not a contactsim checkpoint (the first line must be '%s VERSION')",
                  CS_STATE_MAGIC);
  } else if (version != 1 && version != CS_STATE_VERSION) {
    status = fail(&r,
                  "checkpoint format version %d is not supported (this library reads "
                  "versions 1 to %d)",
                  version, CS_STATE_VERSION);
  } else if (r.toolarge) {
    r.line = 0;
    status = fail(&r, "the %s is larger than a checkpoint of scene '%s' can be (%zu bytes "
                  "at most)", r.noun, m->name, limit);
  }
  // 2. the scene's name (for the message) and the fingerprint (the check)
  char scene[CS_MAX_NAME] = "";
  if (status == CS_OK) {
    s = nextLine(&r);
    if (!s || strncmp(s, "scene", 5) != 0 || (s[5] != ' ' && s[5] != '\0')) {
      status = expected(&r, s, "scene NAME");
    } else {
      snprintf(scene, sizeof(scene), "%s", s[5] ? s + 6 : "");
    }
  }
  if (status == CS_OK) {
    s = nextLine(&r);
    uint64_t fp = 0;
    char* end = NULL;
    if (!s || strncmp(s, "fingerprint ", 12) != 0) {
      status = expected(&r, s, "fingerprint HEX");
    } else if ((fp = strtoull(s + 12, &end, 16)), *end != '\0') {
      status = fail(&r, "fingerprint: '%s' is not a hexadecimal number", s + 12);
    } else if (fp != cs_modelFingerprint(m)) {
      // the contact model is part of the structure (its elements' kinds and variables)
      status = fail(&r,
                    "the checkpoint was saved from scene '%s' with another structure "
                    "(fingerprint %016" PRIx64 ", this scene '%s'%s%s has %016" PRIx64
                    "): its bodies, joints, planes, force elements or contact model differ, "
                    "so the state does not fit",
                    scene, fp, m->name, m->contact_model[0] ? " with contact model " : "",
                    m->contact_model, cs_modelFingerprint(m));
    }
  }
  // 3. the state itself, each value checked at its own line
  if (status == CS_OK) status = readScalar(&r, "t", &t);
  // runs start at t = 0 (said first: a negative t was blamed on t_commit being after it)
  if (status == CS_OK && t < 0) {
    status = fail(&r, "t (%.17g s) is before the start of every run (t = 0)", t);
  }
  // version 1: one last-commit time for every element
  if (status == CS_OK && version == 1) {
    double t_commit = 0;
    status = readScalar(&r, "t_commit", &t_commit);
    if (status == CS_OK) {
      status = commitProblem(&r, "t_commit", t_commit, t);
    }
    for (int i = 0; i < ncommit; i++) {
      commit[i] = t_commit;
    }
  }
  if (status == CS_OK) status = readArray(&r, "q", q, m->nq, VALUES_FINITE, qline);
  if (status == CS_OK) status = readArray(&r, "u", u, m->nu, VALUES_FINITE, uline);
  if (status == CS_OK) status = readArray(&r, "z", z, m->nz, VALUES_FINITE, NULL);
  if (status == CS_OK) {
    status = readArray(&r, "discrete", disc, m->ndisc, VALUES_NOT_NAN, discline);
  }
  if (status == CS_OK) status = readArray(&r, "auto", autoval, m->nauto, VALUES_FINITE, autoline);
  // version 2: each auto-update element's last commit, at its own line
  if (status == CS_OK && version != 1) {
    status = readArray(&r, "commit", commit, ncommit, VALUES_FINITE, commitline);
    for (int e = 0, i = 0; status == CS_OK && e < m->nforce; e++) {
      if (m->force[e].autonum > 0) {
        char what[CS_MAX_NAME + 32];
        snprintf(what, sizeof(what), "the last commit of '%s'", m->force[e].name);
        r.line = commitline[i];
        status = commitProblem(&r, what, commit[i++], t);
      }
    }
  }
  if (status == CS_OK) {
    s = nextLine(&r);
    if (!s || strcmp(s, "end") != 0) {
      status = expected(&r, s, "end");
    } else if (nextLine(&r)) {
      status = fail(&r, "unexpected text after 'end'");
    }
  }
  // the values together: a time that a run can have, quaternions that can be normalized, and
  // each element's variables as the scene and its changes could have set them
  // (each at the line of the value, or of the first of the values, it is about)
  int zero = status == CS_OK ? cs_zeroQuaternionBody(m, q) : 0;
  if (zero) {
    r.line = qline[m->body[zero].qadr];
    status = fail(&r, "q: the orientation of body '%s' (q[%d..%d]) is a zero quaternion",
                  m->body[zero].name, m->body[zero].qadr, m->body[zero].qadr + 3);
  }
  double norm = 0;
  int far = status == CS_OK ? cs_nonUnitQuaternionBody(m, q, QUAT_NORM_SLACK, &norm) : 0;
  if (far) {
    r.line = qline[m->body[far].qadr];
    status = fail(&r, "q: the orientation of body '%s' (q[%d..%d]) has length %.17g, where a "
                  "run keeps it at 1 (within %g)", m->body[far].name, m->body[far].qadr,
                  m->body[far].qadr + 3, norm, QUAT_NORM_SLACK);
  }
  for (int e = 0; status == CS_OK && e < m->nforce; e++) {
    char why[256];
    const csForce* f = &m->force[e];
    // a variable against its own rule at its line; variables contradicting each other at the
    // line of the one whose setting would move the other, an auto-update value at its own
    for (int i = 0; status == CS_OK && i < f->discnum; i++) {
      if (cs_discreteProblem(m, e, i, disc[f->discadr + i], why, sizeof(why)) != 0) {
        r.line = discline[f->discadr + i];
        status = fail(&r, "%s", why);
      }
    }
    int at = 0;
    if (status == CS_OK &&
        cs_elementStateProblemAt(m, disc, autoval, e, why, sizeof(why), &at) != 0) {
      r.line = at < f->discnum ? discline[f->discadr + at] : autoline[f->autoadr + at - f->discnum];
      status = fail(&r, "%s", why);
    }
  }
  // finite values whose energy is not (a height of 1e307 m): every row would carry inf or NaN,
  // and a scene's initial state may not have them (scene_load.c)
  if (status == CS_OK) {
    status = energyProblem(&r, m, q, u, qline, uline);
  }
  // 4. all good: into the data, exactly as read (no normalization, which would change bits)
  if (status == CS_OK) {
    d->t = t;
    for (int e = 0, i = 0; e < m->nforce; e++) {
      d->commit_t[e] = m->force[e].autonum > 0 ? commit[i++] : t;
    }
    d->auto_dt = 0;
    memcpy(d->q, q, sizeof(double) * (size_t)m->nq);
    memcpy(d->u, u, sizeof(double) * (size_t)m->nu);
    memcpy(d->z, z, sizeof(double) * (size_t)m->nz);
    memcpy(d->disc, disc, sizeof(double) * (size_t)m->ndisc);
    memcpy(d->autoval, autoval, sizeof(double) * (size_t)m->nauto);
    memcpy(d->auto_cache, autoval, sizeof(double) * (size_t)m->nauto);
    cs_invalidate(d);
  }
  csu_free(qline, sizeof(int) * nlines);
  csu_free(v, sizeof(double) * nvals);
  csu_free(r.text, r.size);
  return status;
}


static int loadState(const csModel* m, csData* d, const char* path, csError* err) {
  cs_clearError(err);
  if (!path) {
    cs_setError(err, CS_ERR_INPUT, "", "no checkpoint file was given");
    return CS_ERR_INPUT;
  }
  Reader r = {.path = path, .noun = "file", .err = err};
  int status = readFileText(&r, stateLimit(m));
  return status == CS_OK ? parseState(m, d, r) : status;
}


static int loadStateText(const csModel* m, csData* d, const char* text, size_t length,
                         csError* err) {
  cs_clearError(err);
  if (!text) {
    cs_setError(err, CS_ERR_INPUT, "", "no checkpoint text was given");
    return CS_ERR_INPUT;
  }
  Reader r = {.path = CS_STATE_TEXT_NAME, .noun = "text", .err = err};
  int status = copyText(&r, text, length, stateLimit(m));
  return status == CS_OK ? parseState(m, d, r) : status;
}


// ---------------------------------------------------------------------------------------------
// The numbers are C's ("%a" with a '.', read by strtod), whatever locale the program set: a
// program that calls setlocale(LC_ALL, "") in a German locale (a GUI toolkit does) would write
// "0x1,8p+1", which no other process reads, and read "0x1.8p+1" as 0x1. The calling thread uses
// the C locale while it writes or reads a checkpoint (uselocale: other threads keep theirs).

static locale_t cLocaleEnter(locale_t* c) {
  *c = newlocale(LC_ALL_MASK, "C", (locale_t)0);
  return *c ? uselocale(*c) : (locale_t)0;
}


static void cLocaleLeave(locale_t c, locale_t old) {
  if (c) {
    uselocale(old);
    freelocale(c);
  }
}


int cs_saveState(const csModel* m, const csData* d, const char* path, csError* err) {
  locale_t c, old = cLocaleEnter(&c);
  int r = saveState(m, d, path, err);
  cLocaleLeave(c, old);
  return r;
}


int cs_loadState(const csModel* m, csData* d, const char* path, csError* err) {
  locale_t c, old = cLocaleEnter(&c);
  int r = loadState(m, d, path, err);
  cLocaleLeave(c, old);
  return r;
}


int cs_saveStateText(const csModel* m, const csData* d, char** text, size_t* length,
                     csError* err) {
  locale_t c, old = cLocaleEnter(&c);
  int r = saveStateText(m, d, text, length, err);
  cLocaleLeave(c, old);
  return r;
}


int cs_loadStateText(const csModel* m, csData* d, const char* text, size_t length,
                     csError* err) {
  locale_t c, old = cLocaleEnter(&c);
  int r = loadStateText(m, d, text, length, err);
  cLocaleLeave(c, old);
  return r;
}
