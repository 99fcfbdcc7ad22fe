// replay.c: write the replay page: the template built from viewer/ with the scene's geometry and
// the runs' trajectories embedded as one compact JSON object (docs/replay.md has the format).
//
// The trajectories are read back from the CSV files the runs wrote rather than collected while
// they run: `replay` works after the fact on any CSV from `run` or `compare`, and `run --replay`
// and `compare --replay` take the same path, so the page always shows what the CSV holds. The
// numbers are rounded to 6 significant digits (positions to 7, what a float32 on the page holds;
// the time to 10) and a component below a billionth of the largest of its vector is written as
// 0, which keeps a typical replay small enough to mail. Nothing here computes physics: the page
// draws the CSV's poses, forces and centres of pressure; the only derived value is whether a
// linear stop is engaged (its coordinate beyond a bound, as the stop itself decides), because
// the CSV has no column for it.
#define _GNU_SOURCE  // fopencookie: the page data's size counted without writing it
#include "app/replay.h"
#include "engine/error.h"
#include "io/replace_file.h"
#include "io/shortest.h"
#include "io/study_load.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>


// the largest coordinate of a body's position the page draws, m: float32 holds far more, but a
// camera framing such a scene does not
#define CS_REPLAY_MAX_POSITION 1e15

// The most bytes a file the page is made from may hold (4 GiB). The page holds a sixth to a
// half as many bytes as the CSV it shows (measured: 2.5 to 6.5 times fewer: 6 digits where the
// CSV has up to 17, only the columns the page draws), so a larger CSV makes a page of more than
// 600 MB, past what a browser's script can hold (Chrome's JavaScript engine: strings up to
// 512 MiB). Without a limit, /dev/zero or an endless pipe was read until memory ran out.
#define CS_REPLAY_MAX_FILE_BYTES ((size_t)4 << 30)

// The most bytes of data a page may hold: the page reads them as one string, and Chrome's
// JavaScript engine holds strings of up to 2^29 - 24 characters (512 MiB); a page beyond that
// opened on "Unexpected end of JSON input". The CSVs' limit above keeps memory in bounds, this
// one the page: their ratio varies (a 1.97 GB CSV made a page of 644 MB).
#define CS_REPLAY_MAX_DATA_BYTES ((long)500 << 20)
static long g_maxDataBytes = CS_REPLAY_MAX_DATA_BYTES;


void cs_replaySetDataLimit(long bytes) {
  g_maxDataBytes = bytes > 0 ? bytes : CS_REPLAY_MAX_DATA_BYTES;
}

// ---------------------------------------------------------------------------------------------
// errors

static csStatus setError(csError* err, csStatus code, const char* file, const char* fmt, ...)
    __attribute__((format(printf, 4, 5)));

static csStatus setError(csError* err, csStatus code, const char* file, const char* fmt, ...) {
  memset(err, 0, sizeof(*err));
  err->code = code;
  snprintf(err->file, sizeof(err->file), "%s", file ? file : "");
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(err->message, sizeof(err->message), fmt, ap);
  va_end(ap);
  return code;
}


// ---------------------------------------------------------------------------------------------
// finding the template

#if defined(CS_HAVE_REPLAY) && CS_HAVE_REPLAY
// the directory of the running executable, from /proc (Linux); "" when unknown
static void executableDir(char* dir, size_t size) {
  dir[0] = 0;
  ssize_t n = readlink("/proc/self/exe", dir, size - 1);
  if (n <= 0) {
    dir[0] = 0;
    return;
  }
  dir[n] = 0;
  char* slash = strrchr(dir, '/');
  if (slash) {
    *slash = 0;
  }
}
#endif


int cs_replayFindTemplate(char* path, size_t size, csError* err) {
  // 1. the environment variable wins, and must name a readable file
  const char* env = getenv(CS_REPLAY_TEMPLATE_ENV);
  if (env && env[0]) {
    if (access(env, R_OK) != 0) {
      setError(err, CS_ERR_INPUT, env, "cannot read the replay template named by %s: %s",
               CS_REPLAY_TEMPLATE_ENV, strerror(errno));
      return -1;
    }
    snprintf(path, size, "%s", env);
    return 0;
  }
#if defined(CS_HAVE_REPLAY) && CS_HAVE_REPLAY
  // 2. next to the executable: the build directory, an install's bin/../share/contactsim, or
  // a Python wheel's (pip puts the command in VENV/bin and data files in VENV/contactsim).
  // (A build without the viewer looks nowhere: a template found there is another build's or
  // install's, of another version, which a build installed over it left behind.)
  char dir[4096];
  executableDir(dir, sizeof(dir));
  static const char* const relative[] = {"viewer/replay_template.html",
                                         "../share/contactsim/replay_template.html",
                                         "../contactsim/replay_template.html"};
  for (int i = 0; dir[0] && i < 3; i++) {
    char candidate[sizeof(dir) + 64];
    snprintf(candidate, sizeof(candidate), "%s/%s", dir, relative[i]);
    if (access(candidate, R_OK) == 0) {
      snprintf(path, size, "%s", candidate);
      return 0;
    }
  }
  // 3. where meson installs it
#ifdef CS_REPLAY_TEMPLATE_INSTALLED
  if (access(CS_REPLAY_TEMPLATE_INSTALLED, R_OK) == 0) {
    snprintf(path, size, "%s", CS_REPLAY_TEMPLATE_INSTALLED);
    return 0;
  }
#endif
  setError(err, CS_ERR_INPUT, "",
           "the replay template (replay_template.html) is missing from the build and install "
           "directories; set %s to its path",
           CS_REPLAY_TEMPLATE_ENV);
#else
  setError(err, CS_ERR_INPUT, "",
           "contactsim was built without the replay viewer (it needs node and `npm ci` in "
           "viewer/, then meson setup -Dreplay=enabled); set %s to a built "
           "replay_template.html to use one anyway",
           CS_REPLAY_TEMPLATE_ENV);
#endif
  return -1;
}


// ---------------------------------------------------------------------------------------------
// reading a CSV: the header's names, and the wanted columns of every row

// whether the header line h (len bytes, without its newline) has the column t, read as the
// header is read for the page (columnsInit, columnsFind, below); 1 when that cannot be told
static int hasTimeColumn(const char* h, size_t len);


// the fields of a row of len bytes as the reading for the page counts them (readRows): its
// commas, plus one. (Counted any other way, a first row that the reading takes as whole could
// stop the stream early, and the rows after it were dropped unsaid.)
static size_t countFields(const char* line, size_t len) {
  size_t k = 1;
  for (size_t i = 0; i < len; i++) {
    k += line[i] == ',';
  }
  return k;
}


// The header's field that starts at s[i] (s of len bytes), read as RFC 4180 says and as the
// run's CSV writes a name that needs it: in double quotes, it may hold commas, and a doubled
// quote stands for one. Its text, unquoted, goes to out[0..*n) when out is given (never longer
// than the field, so out may be s + i or before it); returns the index just past the field,
// at its comma or at len.
static size_t headerField(const char* s, size_t len, size_t i, char* out, size_t* n) {
  int quoted = i < len && s[i] == '"';
  size_t k = 0;
  for (i += quoted; i < len; i++) {
    if (quoted && s[i] == '"') {
      if (i + 1 < len && s[i + 1] == '"') {
        i++;  // a doubled quote: one quote of the name
      } else {
        quoted = 0;  // the closing quote
        continue;
      }
    } else if (!quoted && s[i] == ',') {
      break;
    }
    if (out) {
      out[k] = s[i];
    }
    k++;
  }
  if (n) {
    *n = k;
  }
  return i;
}


// the header's fields, as columnsInit reads them
static size_t countHeaderFields(const char* h, size_t len) {
  size_t k = 1;
  for (size_t i = headerField(h, len, 0, NULL, NULL); i < len;
       i = headerField(h, len, i + 1, NULL, NULL)) {
    k++;
  }
  return k;
}


// The rest of stream f as one zero-terminated string of *len bytes (owned by the caller), or
// NULL with errno set: EFBIG for a file of more than CS_REPLAY_MAX_FILE_BYTES, told from a
// regular file's size before anything is read and from what a pipe or a device gave once it is
// more. With stopAtNul (a CSV) the reading ends just after the first NUL byte, which *len then
// includes (the caller names it): no CSV holds one, and /dev/zero is all of them. It also ends
// as soon as the first line is complete when that line has no column t, and as soon as the
// second is when it has another number of fields than the first: the caller refuses either
// whatever follows (an endless stream of other text, `yes |`, was read up to the limit before
// it was refused). f is not closed.
static char* readStream(FILE* f, int stopAtNul, size_t* len) {
  struct stat st;
  if (fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode) &&
      (uintmax_t)st.st_size > CS_REPLAY_MAX_FILE_BYTES) {
    errno = EFBIG;
    return NULL;
  }
  char* buf = NULL;
  size_t cap = 0, n = 0, eolHeader = 0, rowStart = 0;
  int nul = 0, header = 0, row = 0, mismatch = 0;
  while (!nul) {
    if (n + 65536 + 1 > cap) {
      // the buffer at its largest holds the limit, one byte more (to tell a larger stream) and
      // the terminating zero
      if (n > CS_REPLAY_MAX_FILE_BYTES) {
        free(buf);
        errno = EFBIG;
        return NULL;
      }
      size_t most = CS_REPLAY_MAX_FILE_BYTES + 2;
      cap = !cap ? 1 << 20 : 2 * cap < most ? 2 * cap : most;
      char* grown = realloc(buf, cap);
      if (!grown) {
        free(buf);
        errno = ENOMEM;
        return NULL;
      }
      buf = grown;
    }
    size_t got = fread(buf + n, 1, cap - n - 1, f);
    char* zero = stopAtNul ? memchr(buf + n, 0, got) : NULL;
    nul = zero != NULL;
    size_t before = n;
    n = zero ? (size_t)(zero - buf) + 1 : n + got;
    if (got == 0) {
      break;
    }
    if (stopAtNul && !header) {
      const char* eol = memchr(buf + before, '\n', n - before);
      if (eol) {
        header = 1;
        eolHeader = (size_t)(eol - buf);
        if (!hasTimeColumn(buf, eolHeader)) {
          break;
        }
        before = eolHeader + 1;
      }
    }
    // the first row that is not blank (a blank line is skipped, as the reading for the page
    // skips it)
    while (stopAtNul && header && !row && n > before) {
      const char* eol = memchr(buf + before, '\n', n - before);
      if (!eol) {
        break;
      }
      size_t start = rowStart ? rowStart : eolHeader + 1, end = (size_t)(eol - buf);
      if (end == start || (end == start + 1 && buf[start] == '\r')) {
        before = rowStart = end + 1;
        continue;
      }
      row = 1;
      if (countHeaderFields(buf, eolHeader) != countFields(buf + start, end - start)) {
        mismatch = 1;
      }
    }
    if (mismatch) {
      break;
    }
  }
  if (ferror(f) && !nul) {
    free(buf);
    errno = errno ? errno : EIO;
    return NULL;
  }
  if (n > CS_REPLAY_MAX_FILE_BYTES) {
    free(buf);
    errno = EFBIG;
    return NULL;
  }
  buf[n] = 0;
  *len = n;
  return buf;
}


// the whole file at path, as readStream reads it
static char* readFile(const char* path, int stopAtNul, size_t* len) {
  FILE* f = fopen(path, "rb");
  if (!f) {
    return NULL;
  }
  char* text = readStream(f, stopAtNul, len);
  int saved = errno;
  fclose(f);
  errno = saved;
  return text;
}


// A table of column names for lookups by name: open addressing on an FNV-1a hash. The header
// of a thousand-body scene with forces has some 50,000 columns, too many for linear searches.
typedef struct Columns {
  char** name;  // (ncol) names, pointing into the header copy
  int ncol;
  int* slot;     // (nslot) column index + 1, 0 for empty
  size_t nslot;  // a power of two >= 2 ncol
  char* header;  // copy of the header line, split in place (owned)
} Columns;


static uint64_t hashName(const char* s) {
  uint64_t h = 1469598103934665603ull;
  for (; *s; s++) {
    h = (h ^ (unsigned char)*s) * 1099511628211ull;
  }
  return h;
}


// split the header line (len bytes at line) into names and index them; -1 when out of memory
static int columnsInit(Columns* c, const char* line, size_t len) {
  memset(c, 0, sizeof(*c));
  c->header = malloc(len + 1);
  if (!c->header) {
    return -1;
  }
  // a byte order mark (a spreadsheet's "CSV UTF-8") is no part of the first name
  if (len >= 3 && memcmp(line, "\xEF\xBB\xBF", 3) == 0) {
    line += 3;
    len -= 3;
  }
  memcpy(c->header, line, len);
  c->header[len] = 0;
  // strip a carriage return (a CSV saved on Windows)
  if (len && c->header[len - 1] == '\r') {
    c->header[len - 1] = 0;
  }
  size_t hlen = strlen(c->header);
  int n = (int)countHeaderFields(c->header, hlen);
  c->name = malloc(sizeof(char*) * (size_t)n);
  c->nslot = 16;
  while (c->nslot < 2 * (size_t)n) {
    c->nslot *= 2;
  }
  c->slot = calloc(c->nslot, sizeof(int));
  if (!c->name || !c->slot) {
    return -1;
  }
  // split in place, unquoting (each name is written over the header at or before where it was
  // read), and insert; a repeated name keeps its first column
  size_t at = 0;
  for (int i = 0; i < n; i++) {
    size_t k;
    c->name[i] = c->header + at;
    at = headerField(c->header, hlen, at, c->name[i], &k) + 1;
    c->name[i][k] = 0;
    size_t s = hashName(c->name[i]) & (c->nslot - 1);
    while (c->slot[s] && strcmp(c->name[c->slot[s] - 1], c->name[i]) != 0) {
      s = (s + 1) & (c->nslot - 1);
    }
    if (!c->slot[s]) {
      c->slot[s] = i + 1;
    }
  }
  c->ncol = n;
  return 0;
}


static void columnsFree(Columns* c) {
  free(c->header);
  free(c->name);
  free(c->slot);
  memset(c, 0, sizeof(*c));
}


// index of the column named prefix + "." + suffix (suffix NULL: prefix alone), -1 if absent
static int columnsFind(const Columns* c, const char* prefix, const char* suffix) {
  char key[2 * CS_MAX_NAME + 32];
  if (suffix) {
    snprintf(key, sizeof(key), "%s.%s", prefix, suffix);
  } else {
    snprintf(key, sizeof(key), "%s", prefix);
  }
  size_t s = hashName(key) & (c->nslot - 1);
  while (c->slot[s]) {
    if (strcmp(c->name[c->slot[s] - 1], key) == 0) {
      return c->slot[s] - 1;
    }
    s = (s + 1) & (c->nslot - 1);
  }
  return -1;
}


static int hasTimeColumn(const char* h, size_t len) {
  Columns c;
  int has = columnsInit(&c, h, len) != 0 || columnsFind(&c, "t", NULL) >= 0;
  columnsFree(&c);
  return has;
}


// ---------------------------------------------------------------------------------------------
// what the page needs of a model

// the slot (param or ref index) of a kind's parameter by key, -1 if the kind has none
static int paramSlot(const csForceKind* k, const char* key) {
  for (int i = 0; i < k->nparams; i++) {
    if (strcmp(k->params[i].key, key) == 0) {
      return k->params[i].slot;
    }
  }
  return -1;
}


// a contact element: one whose kind reports a contact point and force, as the CSV's --forces
// columns count them (csv.c); stops and bushings report values of their own
static int isContact(const csModel* m, int e) {
  const csForceKind* k = cs_forceKind(m->force[e].kind);
  return k->contact != 0 && k->report != NULL;
}


static int isKind(const csModel* m, int e, const char* name) {
  return strcmp(cs_forceKind(m->force[e].kind)->name, name) == 0;
}


// One run's series, row-major: per report row, the values of `width` columns for each of
// `count` items. col holds the CSV column of each value (count x width), -1 for none.
typedef struct Series {
  const char* key;  // JSON key
  int count, width;
  int* col;       // (count x width) CSV columns
  double* value;  // (rows x count x width), filled from the CSV
} Series;

enum { S_T, S_P, S_Q, S_V, S_ENERGY, S_CF, S_CP, S_SF, S_COP, S_BF, S_STOPQ, S_STOPPEN, S_COUNT };

typedef struct RunData {
  Series s[S_COUNT];
  int forces;         // 1: every contact element has force and point columns
  int bushingForces;  // 1: every bushing has its force columns (body2_fx ...)
  long rows;
  int nstop;            // linear stops with a coordinate column
  int stopPenetration;  // 1: each of them has its penetration column too (--forces)
  int* stop;            // (nstop) their element ids
} RunData;


static void runDataFree(RunData* d) {
  for (int i = 0; i < S_COUNT; i++) {
    free(d->s[i].col);
    free(d->s[i].value);
  }
  free(d->stop);
  memset(d, 0, sizeof(*d));
}


static int seriesInit(Series* s, const char* key, int count, int width) {
  s->key = key;
  s->count = count;
  s->width = width;
  s->col = malloc(sizeof(int) * (size_t)(count * width + 1));
  if (!s->col) {
    return -1;
  }
  for (int i = 0; i < count * width; i++) {
    s->col[i] = -1;
  }
  return 0;
}


// Whether column name is "<owner><suffix>" (suffix ".fx", ".qw"), with the owner's name copied
// into owner (CS_MAX_NAME bytes)
static int columnOwner(const char* name, const char* suffix, char* owner) {
  size_t len = strlen(name), ls = strlen(suffix);
  if (len <= ls || strcmp(name + len - ls, suffix) != 0 || len - ls >= CS_MAX_NAME) {
    return 0;
  }
  snprintf(owner, CS_MAX_NAME, "%.*s", (int)(len - ls), name);
  return 1;
}


// columns for items named name + "." + suffixes[j]; returns the first missing column's name in
// missing (when not NULL) and -1 if any is absent
static int findColumns(const Columns* c, Series* s, int item, const char* name,
                       const char* const* suffixes, char* missing, size_t msize) {
  int bad = 0;
  for (int j = 0; j < s->width; j++) {
    int col = columnsFind(c, name, suffixes[j]);
    s->col[item * s->width + j] = col;
    if (col < 0 && !bad) {
      bad = 1;
      if (missing) {
        snprintf(missing, msize, "%s%s%s", name, suffixes[j] ? "." : "",
                 suffixes[j] ? suffixes[j] : "");
      }
    }
  }
  return bad ? -1 : 0;
}


// Map the CSV's header onto the series of run r; fills err for missing required columns.
static csStatus mapColumns(const Columns* c, const csReplayRun* r, RunData* d, csError* err) {
  const csModel* m = r->m;
  int nb = m->nbody - 1;
  int nc = 0;
  for (int e = 0; e < m->nforce; e++) {
    nc += isContact(m, e);
  }
  static const char* const tKey[] = {NULL};
  static const char* const pKeys[] = {"px", "py", "pz"};
  static const char* const qKeys[] = {"qw", "qx", "qy", "qz"};
  static const char* const vKeys[] = {"vx", "vy", "vz"};
  static const char* const fKeys[] = {"fx", "fy", "fz"};
  static const char* const copKeys[] = {"copx", "copy", "copz"};
  static const char* const energyNames[] = {"ke", "pe", "dissipated", "e_total"};
  if (seriesInit(&d->s[S_T], "t", 1, 1) || seriesInit(&d->s[S_P], "p", nb, 3) ||
      seriesInit(&d->s[S_Q], "q", nb, 4) || seriesInit(&d->s[S_V], "v", nb, 3) ||
      // (four items of one value: a row's energies are no vector, writeSeries)
      seriesInit(&d->s[S_ENERGY], "energy", 4, 1) || seriesInit(&d->s[S_CF], "cf", nc, 3) ||
      seriesInit(&d->s[S_CP], "cp", nc, 3) || seriesInit(&d->s[S_SF], "sf", m->ngroup, 3) ||
      seriesInit(&d->s[S_COP], "cop", m->ngroup, 3)) {
    return setError(err, CS_ERR_MEMORY, r->csv, "out of memory");
  }
  char missing[2 * CS_MAX_NAME + 32] = "";
  // required: time, every body's pose and velocity, the energies
  int bad = findColumns(c, &d->s[S_T], 0, "t", tKey, missing, sizeof(missing));
  for (int b = 1; b < m->nbody && !bad; b++) {
    const char* n = m->body[b].name;
    bad = findColumns(c, &d->s[S_P], b - 1, n, pKeys, missing, sizeof(missing)) ||
          findColumns(c, &d->s[S_Q], b - 1, n, qKeys, missing, sizeof(missing)) ||
          findColumns(c, &d->s[S_V], b - 1, n, vKeys, missing, sizeof(missing));
  }
  for (int j = 0; j < 4 && !bad; j++) {
    int col = columnsFind(c, energyNames[j], NULL);
    d->s[S_ENERGY].col[j] = col;
    if (col < 0) {
      bad = 1;
      snprintf(missing, sizeof(missing), "%s", energyNames[j]);
    }
  }
  if (bad) {
    // the model is named only when the scene has contact models ("scene" when it has none)
    int named = r->m->ngroup > 0 && strcmp(r->model, "scene") != 0;
    return setError(err, CS_ERR_INPUT, r->csv,
                    "has no column '%s': is it a CSV that `contactsim run` wrote from this "
                    "scene%s%s%s?",
                    missing, named ? " with contact model '" : "", named ? r->model : "",
                    named ? "'" : "");
  }
  // and no body the scene does not have (a CSV of a longer chain, of more blocks): only bodies
  // have orientations
  char owner[CS_MAX_NAME];
  for (int j = 0; j < c->ncol; j++) {
    if (columnOwner(c->name[j], ".qw", owner) && cs_bodyId(m, owner) < 0) {
      return setError(err, CS_ERR_INPUT, r->csv,
                      "has the columns of body '%s', which the scene does not have: is it a "
                      "CSV that `contactsim run` wrote from this scene?",
                      owner);
    }
  }
  // optional: forces and points of every contact, totals and centres of pressure of the sets.
  // All or none: a CSV with some contacts' forces and not others' was written from another
  // geometry (other --set values) than the scene's
  int i = 0, withForces = 0, firstWithout = -1, firstWith = -1;
  d->forces = nc > 0;
  for (int e = 0; e < m->nforce; e++) {
    if (!isContact(m, e)) {
      continue;
    }
    int has = !findColumns(c, &d->s[S_CF], i, m->force[e].name, fKeys, NULL, 0) &&
              !findColumns(c, &d->s[S_CP], i, m->force[e].name, pKeys, NULL, 0);
    d->forces &= has;
    withForces += has;
    firstWithout = !has && firstWithout < 0 ? e : firstWithout;
    firstWith = has && firstWith < 0 ? e : firstWith;
    i++;
  }
  if (withForces > 0 && firstWithout >= 0) {
    return setError(err, CS_ERR_INPUT, r->csv,
                    "has the force columns of %d of the scene's %d contact elements but not "
                    "those of '%s': was it written with other --set values (give them to replay "
                    "too)?",
                    withForces, nc, m->force[firstWithout].name);
  }
  // and no forces of contacts the scene does not have (a CSV of more corners than the scene's,
  // or of another scene's contacts, none of which this scene has)
  for (int j = 0; j < c->ncol; j++) {
    if (!columnOwner(c->name[j], ".fx", owner)) {
      continue;
    }
    int e = cs_forceId(m, owner);
    int known = e >= 0 && isContact(m, e);
    for (int g = 0; g < m->ngroup && !known; g++) {
      known = strcmp(m->group_name[g], owner) == 0;
    }
    if (!known) {
      return setError(err, CS_ERR_INPUT, r->csv,
                      "has the force columns of '%s', which the scene does not have: was it "
                      "written from another scene, or with other --set values (give them to "
                      "replay too)?",
                      owner);
    }
  }
  // with the forces come the contact model's own values (E.<name>): a CSV without them was
  // written under another contact model than the one the page would draw
  for (int k = 0; d->forces && firstWith >= 0 && k < cs_modelContactValueCount(m, firstWith);
       k++) {
    const char* value = cs_modelContactValueName(m, firstWith, k);
    if (columnsFind(c, m->force[firstWith].name, value) < 0) {
      return setError(err, CS_ERR_INPUT, r->csv,
                      "has no column '%s.%s' of contact model '%s': was it written with another "
                      "contact model (give that one with --contact-model)?",
                      m->force[firstWith].name, value, m->contact_model);
    }
  }
  for (int g = 0; g < m->ngroup && d->forces; g++) {
    d->forces &= !findColumns(c, &d->s[S_SF], g, m->group_name[g], fKeys, NULL, 0);
    d->forces &= !findColumns(c, &d->s[S_COP], g, m->group_name[g], copKeys, NULL, 0);
  }
  if (!d->forces) {
    // none of them then: the page shows no forces rather than some
    for (int s = S_CF; s <= S_COP; s++) {
      d->s[s].count = 0;
    }
  }
  // linear stops: their coordinate's column, B.q<coordinate>
  d->stop = malloc(sizeof(int) * (size_t)(m->nforce + 1));
  if (!d->stop || seriesInit(&d->s[S_STOPQ], "stopq", m->nforce, 1)) {
    return setError(err, CS_ERR_MEMORY, r->csv, "out of memory");
  }
  for (int e = 0; e < m->nforce; e++) {
    const csForceKind* k = cs_forceKind(m->force[e].kind);
    int bs = paramSlot(k, "body"), cs = paramSlot(k, "coordinate");
    if (!isKind(m, e, "linear_stop") || bs < 0 || cs < 0) {
      continue;
    }
    int b = m->force[e].ref[bs];
    char q[16];
    snprintf(q, sizeof(q), "q%d", m->force[e].ref[cs]);
    int col = b > 0 && b < m->nbody ? columnsFind(c, m->body[b].name, q) : -1;
    if (col >= 0) {
      d->s[S_STOPQ].col[d->nstop] = col;
      d->stop[d->nstop++] = e;
    }
  }
  d->s[S_STOPQ].count = d->nstop;
  // with --forces a stop reports its penetration beyond the bound: engaged when > 0
  static const char* const penKey[] = {"penetration"};
  d->stopPenetration = d->nstop > 0;
  if (seriesInit(&d->s[S_STOPPEN], "stoppen", d->nstop, 1)) {
    return setError(err, CS_ERR_MEMORY, r->csv, "out of memory");
  }
  for (int j = 0; j < d->nstop; j++) {
    d->stopPenetration &=
        !findColumns(c, &d->s[S_STOPPEN], j, m->force[d->stop[j]].name, penKey, NULL, 0);
  }
  d->s[S_STOPPEN].count = d->stopPenetration ? d->nstop : 0;
  // with --forces a bushing reports the force on its second body: drawn at its attachment
  static const char* const bKeys[] = {"body2_fx", "body2_fy", "body2_fz"};
  int nbush = 0;
  for (int e = 0; e < m->nforce; e++) {
    nbush += isKind(m, e, "linear_bushing");
  }
  if (seriesInit(&d->s[S_BF], "bf", nbush, 3)) {
    return setError(err, CS_ERR_MEMORY, r->csv, "out of memory");
  }
  d->bushingForces = nbush > 0;
  for (int e = 0, j = 0; e < m->nforce; e++) {
    if (isKind(m, e, "linear_bushing")) {
      d->bushingForces &= !findColumns(c, &d->s[S_BF], j++, m->force[e].name, bKeys, NULL, 0);
    }
  }
  d->s[S_BF].count = d->bushingForces ? nbush : 0;
  return CS_OK;
}


// A number as a CSV of runs writes it, or a spreadsheet saved again: decimal digits with a sign,
// a point and an exponent, or nan and inf (what strtod reads besides, such as the hexadecimal
// 0x10, is no number of such a file)
static int decimalText(const char* s, const char* end) {
  const char* p = s + (*s == '-' || *s == '+');
  size_t n = (size_t)(end - p);
  if ((n == 3 && (strncasecmp(p, "nan", 3) == 0 || strncasecmp(p, "inf", 3) == 0)) ||
      (n == 8 && strncasecmp(p, "infinity", 8) == 0)) {
    return 1;
  }
  for (; p < end; p++) {
    if (!strchr("0123456789.eE+-", *p)) {
      return 0;
    }
  }
  return 1;
}


// Read every row of the CSV text (after the header) into the series. A row with fewer or more
// fields than the header, or a field that is not a number, is an error; a last line without
// its newline is a row cut short (a run stopped while writing it) and is left out.
static csStatus readRows(const char* text, const Columns* c, const csReplayRun* r, RunData* d,
                         csError* err) {
  // which series value each column feeds: one column may feed none (most) or one
  int ncol = c->ncol;
  int* feed = malloc(sizeof(int) * (size_t)ncol * 2);
  if (!feed) {
    return setError(err, CS_ERR_MEMORY, r->csv, "out of memory");
  }
  for (int j = 0; j < ncol; j++) {
    feed[2 * j] = -1;
  }
  for (int s = 0; s < S_COUNT; s++) {
    for (int i = 0; i < d->s[s].count * d->s[s].width; i++) {
      int col = d->s[s].col[i];
      if (col >= 0) {
        feed[2 * col] = s;
        feed[2 * col + 1] = i;
      }
    }
  }
  // rows: count the lines first, so that every series is allocated once
  long lines = 0;
  for (const char* p = text; *p; p++) {
    lines += *p == '\n';
  }
  lines += 1;
  for (int s = 0; s < S_COUNT; s++) {
    size_t n = (size_t)lines * (size_t)(d->s[s].count * d->s[s].width) + 1;
    d->s[s].value = malloc(sizeof(double) * n);
    if (!d->s[s].value) {
      free(feed);
      return setError(err, CS_ERR_MEMORY, r->csv, "out of memory for %ld rows", lines);
    }
  }
  long row = 0, line = 1;  // the file's line: the header is its first, and blank lines count
  const char* p = text;
  csStatus status = CS_OK;
  int cutLast = 0;
  while (*p) {
    const char* end = strchr(p, '\n');
    const char* next = end ? end + 1 : p + strlen(p);
    line++;
    // skip empty lines (the file's last newline)
    if (p == end || (*p == '\r' && p + 1 == end)) {
      p = next;
      continue;
    }
    // a last line without its newline is a row being written when the run stopped, cut
    // anywhere (within a number too: "222.2" of "222.219"): it is left out, even when it looks
    // whole (a writer ends every row with its newline)
    if (!end) {
      cutLast = 1;
      break;
    }
    int j = 0, extra = 0;
    const char* q = p;
    while (j < ncol) {
      char* stop = NULL;
      double v = NAN;
      // an empty field (or one of blanks alone) is a missing value; blanks are skipped here,
      // since strtod would skip a line break too and read the next row's first field
      while (*q == ' ' || *q == '\t' || *q == '\v' || *q == '\f') {
        q++;
      }
      if (*q != ',' && *q != '\n' && *q != '\r' && *q) {
        v = strtod(q, &stop);
        const char* after = stop;
        while (*after == ' ' || *after == '\t') {
          after++;
        }
        if (stop == q || !decimalText(q, stop) ||
            (*after != ',' && *after != '\n' && *after != '\r' && *after)) {
          const char* fieldEnd = strpbrk(q, ",\r\n");
          int len = fieldEnd ? (int)(fieldEnd - q) : (int)strlen(q);
          status = setError(err, CS_ERR_INPUT, r->csv,
                            "line %ld, column '%s': '%s%.*s' is not a number", line,
                            c->name[j], len > 40 ? "..." : "", len > 40 ? 40 : len,
                            len > 40 ? q + len - 40 : q);
          break;
        }
        q = after;
      }
      if (feed[2 * j] >= 0) {
        int which = feed[2 * j];
        // the time and the bodies' poses are what the page draws: each a finite number (a run
        // that diverged writes inf or nan; an energy or a force left out is drawn as missing)
        if ((which == S_T || which == S_P || which == S_Q) && !isfinite(v)) {
          status = setError(err, CS_ERR_INPUT, r->csv,
                            "line %ld, column '%s': %s, which the page cannot draw", line,
                            c->name[j], !stop ? "no value" : isnan(v) ? "nan is not a finite number"
                                                            : "inf is not a finite number");
          break;
        }
        // a position the page's float32 arrays and its camera cannot hold (a run that diverged
        // to 1e40 m showed a blank page): refused as a value that is not finite is
        if (which == S_P && fabs(v) > CS_REPLAY_MAX_POSITION) {
          status = setError(err, CS_ERR_INPUT, r->csv,
                            "line %ld, column '%s': %g m is beyond the coordinates the page can "
                            "draw (up to %g m)", line, c->name[j], v, CS_REPLAY_MAX_POSITION);
          break;
        }
        Series* s = &d->s[which];
        s->value[(size_t)row * (size_t)(s->count * s->width) + (size_t)feed[2 * j + 1]] = v;
      }
      j++;
      if (*q != ',') {
        break;
      }
      // a comma after the header's last column: the row has more fields than the header
      extra = j == ncol;
      q++;
    }
    if (status != CS_OK) {
      break;
    }
    if (j < ncol || extra) {
      status = setError(err, CS_ERR_INPUT, r->csv, "line %ld has %s%d fields, the header %d",
                        line, extra ? "more than " : "", j, ncol);
      break;
    }
    // the rows in time order, as a run writes them
    const double* t = d->s[S_T].value;
    if (row > 0 && d->s[S_T].col[0] >= 0 && !(t[row] > t[row - 1])) {
      // the times as the CSV writes them (0.48, not 0.47999999999999998)
      char now[CS_SHORTEST_MAX], before[CS_SHORTEST_MAX];
      now[cs_formatShortest(now, sizeof(now) - 1, t[row])] = '\0';
      before[cs_formatShortest(before, sizeof(before) - 1, t[row - 1])] = '\0';
      status = setError(err, CS_ERR_INPUT, r->csv,
                        "line %ld: t = %s does not come after the line before's %s (the rows "
                        "must be in time order)", line, now, before);
      break;
    }
    // an orientation for every body: a zero quaternion has none (drawn, it flipped the body);
    // one of another length is drawn normalised, as between rows
    const Series* qs = &d->s[S_Q];
    for (int k = 0; k < qs->count && status == CS_OK; k++) {
      const double* e = qs->value + ((size_t)row * (size_t)qs->count + (size_t)k) * 4;
      if (e[0] == 0 && e[1] == 0 && e[2] == 0 && e[3] == 0) {
        status = setError(err, CS_ERR_INPUT, r->csv,
                          "line %ld, column '%s': the orientation is a zero quaternion, which "
                          "the page cannot draw", line, c->name[qs->col[4 * k]]);
      }
    }
    if (status != CS_OK) {
      break;
    }
    row++;
    p = next;
  }
  free(feed);
  d->rows = row;
  if (status == CS_OK && row == 0) {
    status = setError(err, CS_ERR_INPUT, r->csv, "has a header but no rows%s",
                      cutLast ? " (its only row has no newline at its end: taken as a row cut "
                                "short by a run that stopped while writing it)"
                              : "");
  }
  return status;
}


// ---------------------------------------------------------------------------------------------
// writing JSON

// a number rounded to `digits` significant digits; |x| below tiny as 0, non-finite as null
static void jsonNumberDigits(FILE* f, double x, int digits, double tiny) {
  if (!isfinite(x)) {
    fputs("null", f);
  } else if (fabs(x) < tiny) {
    fputc('0', f);
  } else {
    fprintf(f, "%.*g", digits, x);
  }
}


// most numbers (the scene's geometry): 6 significant digits
static void jsonNumber(FILE* f, double x) { jsonNumberDigits(f, x, 6, 0); }


// a JSON string literal (csu_jsonString, escaped for an HTML <script> element)
static void jsonString(FILE* f, const char* s) {
  csu_jsonString(f, s, 1);
}


static void jsonVec3(FILE* f, const double* v) {
  fputc('[', f);
  for (int i = 0; i < 3; i++) {
    if (i) {
      fputc(',', f);
    }
    jsonNumber(f, v[i]);
  }
  fputc(']', f);
}


// a shape, or null
static void jsonShape(FILE* f, const csShape* s) {
  static const char* const names[] = {"none", "box", "sphere", "cylinder"};
  if (s->type == CS_SHAPE_NONE) {
    fputs("null", f);
    return;
  }
  fprintf(f, "{\"type\":\"%s\",\"size\":", names[s->type]);
  jsonVec3(f, s->size);
  fputc('}', f);
}


// body id in the page: model id - 1 (ground is not a body there: -1)
static int pageBody(int b) { return b - 1; }


// the scene: bodies with their shapes, planes, bushings, stops
static void writeScene(FILE* f, const csModel* m) {
  fputs("\"bodies\":[", f);
  for (int b = 1; b < m->nbody; b++) {
    const csBody* body = &m->body[b];
    static const char* const joints[] = {"weld", "pin", "slider", "ball", "free"};
    fputs(b > 1 ? ",{\"name\":" : "{\"name\":", f);
    jsonString(f, body->name);
    fprintf(f, ",\"parent\":%d,\"joint\":\"%s\",\"com\":", pageBody(body->parent),
            joints[body->joint]);
    double com[3] = {body->com.x, body->com.y, body->com.z};
    jsonVec3(f, com);
    // the visual shape wins over the inertia's
    const csShape* s = body->visual.type != CS_SHAPE_NONE ? &body->visual : &body->inertia_shape;
    fputs(",\"shape\":", f);
    jsonShape(f, s);
    fprintf(f, ",\"shape_from\":\"%s\"}",
            body->visual.type != CS_SHAPE_NONE          ? "visual"
            : body->inertia_shape.type != CS_SHAPE_NONE ? "inertia"
                                                        : "none");
  }
  fputs("],\"planes\":[", f);
  for (int i = 0; i < m->nplane; i++) {
    const csPlane* pl = &m->plane[i];
    fputs(i ? ",{\"name\":" : "{\"name\":", f);
    jsonString(f, pl->name);
    fprintf(f, ",\"body\":%d,\"position\":", pageBody(pl->body));
    double p[3] = {pl->X_BP.p.x, pl->X_BP.p.y, pl->X_BP.p.z};
    jsonVec3(f, p);
    csQuat q = csu_matToQuat(&pl->X_BP.R);
    fputs(",\"quaternion\":[", f);
    jsonNumber(f, q.w);
    fputc(',', f);
    jsonNumber(f, q.x);
    fputc(',', f);
    jsonNumber(f, q.y);
    fputc(',', f);
    jsonNumber(f, q.z);
    fputs("]}", f);
  }
  // bushings: the origins of their two frames on their bodies
  fputs("],\"bushings\":[", f);
  int n = 0;
  for (int e = 0; e < m->nforce; e++) {
    if (!isKind(m, e, "linear_bushing")) {
      continue;
    }
    const csForceKind* k = cs_forceKind(m->force[e].kind);
    const csForce* fe = &m->force[e];
    int b1 = paramSlot(k, "body1"), b2 = paramSlot(k, "body2");
    int f1 = paramSlot(k, "frame1"), f2 = paramSlot(k, "frame2");
    if (b1 < 0 || b2 < 0 || f1 < 0 || f2 < 0) {
      continue;
    }
    fputs(n++ ? ",{\"name\":" : "{\"name\":", f);
    jsonString(f, fe->name);
    fprintf(f, ",\"body1\":%d,\"frame1\":", pageBody(fe->ref[b1]));
    jsonVec3(f, &fe->param[f1]);
    fprintf(f, ",\"body2\":%d,\"frame2\":", pageBody(fe->ref[b2]));
    jsonVec3(f, &fe->param[f2]);
    fputc('}', f);
  }
  fputc(']', f);
}


// the contact elements of a run's model: body, plane, station or sphere, contact set
static void writeContacts(FILE* f, const csModel* m) {
  fputs("\"contacts\":[", f);
  int n = 0;
  for (int e = 0; e < m->nforce; e++) {
    if (!isContact(m, e)) {
      continue;
    }
    const csForceKind* k = cs_forceKind(m->force[e].kind);
    const csForce* fe = &m->force[e];
    int bs = paramSlot(k, "body"), ps = paramSlot(k, "plane");
    int ss = paramSlot(k, "station") >= 0 ? paramSlot(k, "station") : paramSlot(k, "center");
    int rs = paramSlot(k, "radius");
    fputs(n++ ? ",{\"name\":" : "{\"name\":", f);
    jsonString(f, fe->name);
    fprintf(f, ",\"kind\":\"%s\",\"type\":\"%s\",\"body\":%d,\"plane\":%d,\"set\":%d,\"station\":",
            k->name, k->contact == 2 ? "sphere" : "point", bs >= 0 ? pageBody(fe->ref[bs]) : -1,
            ps >= 0 ? fe->ref[ps] : -1, fe->group);
    double zero[3] = {0, 0, 0};
    jsonVec3(f, ss >= 0 ? &fe->param[ss] : zero);
    fputs(",\"radius\":", f);
    jsonNumber(f, rs >= 0 && k->contact == 2 ? fe->param[rs] : 0);
    fputc('}', f);
  }
  fputs("],\"sets\":[", f);
  for (int g = 0; g < m->ngroup; g++) {
    if (g) {
      fputc(',', f);
    }
    jsonString(f, m->group_name[g]);
  }
  fputc(']', f);
}


// one series as a flat JSON array. Positions (bodies, contact points, centres of pressure) get
// 7 significant digits, what the page's float32 arrays hold: at 6, a body 10 km from the origin
// moved in 0.1 m steps. The time gets 10 (the page keeps it in float64): at 6, the reports of a
// long run (t = 12345.67 s) would run together.
static void writeSeries(FILE* f, const Series* s, long rows) {
  fprintf(f, "\"%s\":[", s->key);
  int position = strcmp(s->key, "p") == 0 || strcmp(s->key, "cp") == 0 ||
                 strcmp(s->key, "cop") == 0;
  int digits = strcmp(s->key, "t") == 0 ? 10 : position ? 7 : 6;
  size_t n = (size_t)rows * (size_t)(s->count * s->width);
  // positions far from the origin (1e6 m) keep 9 digits: at 7, a body there moved in steps of
  // a metre, where the page's float32 arrays hold 6 cm
  double largest = 0;
  for (size_t i = 0; position && i < n; i++) {
    if (isfinite(s->value[i])) {
      largest = fmax(largest, fabs(s->value[i]));
    }
  }
  if (largest >= 1e4) {
    digits = 9;
  }
  // a component below a billionth of the largest of its vector (one body's or contact's values
  // in one row: a force of 1e-17 N beside one of 10 N) is rounding noise, written as 0 to keep
  // the page small. Each vector on its own scale: the energies of a 1e-9 kg body (1e-12 J) stay,
  // and a value that blew up in one row leaves the other rows as they are. A row's energies are
  // four items of one value each, not a vector: a kinetic energy of 5e-4 J beside a potential
  // energy of 1e6 J (a body high above the origin) is what the panel shows
  size_t w = s->width > 0 ? (size_t)s->width : 1;
  for (size_t i = 0; i < n; i += w) {
    double scale = 0;
    for (size_t k = i; k < i + w && k < n; k++) {
      if (isfinite(s->value[k])) {
        scale = fmax(scale, fabs(s->value[k]));
      }
    }
    for (size_t k = i; k < i + w && k < n; k++) {
      if (k) {
        fputc(',', f);
      }
      jsonNumberDigits(f, s->value[k], digits, 1e-9 * scale);
    }
  }
  fputc(']', f);
}


// the value of a stop's bound (discrete variable `name`) at time t: the scene's, or the last
// scheduled change at or before t
static double boundAt(const csModel* m, int e, const char* name, double t) {
  const csForceKind* k = cs_forceKind(m->force[e].kind);
  int slot = paramSlot(k, name);
  double v = slot >= 0 ? m->force[e].param[slot] : NAN;
  // changes are sorted by time
  for (int c = 0; c < m->nchange && m->change[c].time <= t; c++) {
    const csChange* ch = &m->change[c];
    if (ch->force == e && ch->index >= 0 && ch->index < k->discnum &&
        strcmp(k->discnames[ch->index], name) == 0) {
      v = ch->value;
    }
  }
  return v;
}


// linear stops engaged per row, 1 or 0, row-major: the stop's penetration column > 0 when the
// CSV has it (--forces), else the coordinate below the lower bound or above the upper one in
// force at that time (what the stop pushes against)
static void writeStops(FILE* f, const csModel* m, const RunData* d) {
  fputs("\"stop\":[", f);
  const Series* s = &d->s[S_STOPQ];
  const double* t = d->s[S_T].value;
  for (long row = 0; row < d->rows; row++) {
    for (int i = 0; i < d->nstop; i++) {
      int e = d->stop[i];
      double q = s->value[row * d->nstop + i];
      // the stop's own word when the CSV has it; else its bounds (an absent bound is NaN, and
      // comparisons with NaN are false)
      int active = d->stopPenetration ? d->s[S_STOPPEN].value[row * d->nstop + i] > 0
                                      : q < boundAt(m, e, "lower_bound", t[row]) ||
                                            q > boundAt(m, e, "upper_bound", t[row]);
      fputs(row || i ? (active ? ",1" : ",0") : (active ? "1" : "0"), f);
    }
  }
  fputc(']', f);
}


static void writeRun(FILE* f, const csReplayRun* r, const RunData* d) {
  fputs("{\"model\":", f);
  jsonString(f, r->model);
  fputs(",\"csv\":", f);
  jsonString(f, r->shown ? r->shown : r->csv);
  fprintf(f, ",\"forces\":%s,\"bushing_forces\":%s,", d->forces ? "true" : "false",
          d->bushingForces ? "true" : "false");
  writeContacts(f, r->m);
  fputs(",\"stops\":[", f);
  for (int i = 0; i < d->nstop; i++) {
    const csForce* fe = &r->m->force[d->stop[i]];
    int bs = paramSlot(cs_forceKind(fe->kind), "body");
    fputs(i ? ",{\"name\":" : "{\"name\":", f);
    jsonString(f, fe->name);
    fprintf(f, ",\"body\":%d}", pageBody(fe->ref[bs]));
  }
  fputs("],", f);
  // the series; those without columns (no forces) are written empty
  for (int s = 0; s < S_COUNT; s++) {
    if (s == S_STOPQ || s == S_STOPPEN) {
      continue;
    }
    writeSeries(f, &d->s[s], d->s[s].count ? d->rows : 0);
    fputc(',', f);
  }
  writeStops(f, r->m, d);
  fputc('}', f);
}


// ---------------------------------------------------------------------------------------------
// the page

// the first reason the writes to f failed for: errno, read while it still holds the failed
// write's (the caller clears it before the writes), once the stream's error flag is set
static void keepWriteError(FILE* f, int* reason) {
  if (!*reason && ferror(f)) {
    *reason = errno ? errno : EIO;
  }
}


// the page's data: one JSON object, the scene and the runs (reason: keepWriteError's)
static void writeData(FILE* f, const csReplayRun* runs, RunData* data, int nrun, int* reason) {
  const csModel* m = runs[0].m;
  fputs("{\"format\":\"contactsim-replay\",\"version\":1,\"scene\":", f);
  jsonString(f, m->name);
  fputs(",\"file\":", f);
  jsonString(f, m->file);
  fputs(",\"gravity\":", f);
  double g[3] = {m->gravity.x, m->gravity.y, m->gravity.z};
  jsonVec3(f, g);
  fputc(',', f);
  writeScene(f, m);
  keepWriteError(f, reason);
  fputs(",\"runs\":[", f);
  for (int i = 0; i < nrun; i++) {
    if (i) {
      fputc(',', f);
    }
    writeRun(f, &runs[i], &data[i]);
    keepWriteError(f, reason);
  }
  fputs("]}", f);
}


// a stream that keeps nothing and counts what it is given
static ssize_t countBytes(void* cookie, const char* buf, size_t size) {
  (void)buf;
  *(long*)cookie += (long)size;
  return (ssize_t)size;
}


// how many bytes writeData writes (LONG_MAX when it cannot be counted: out of memory)
static long dataBytes(const csReplayRun* runs, RunData* data, int nrun) {
  long n = 0;
  cookie_io_functions_t io = {.write = countBytes};
  FILE* f = fopencookie(&n, "w", io);
  if (!f) {
    return LONG_MAX;
  }
  int reason = 0;
  writeData(f, runs, data, nrun, &reason);
  fclose(f);
  return n;
}


csStatus cs_replayWrite(const char* out, const char* template_path, const csReplayRun* runs,
                        int nrun, csError* err) {
  memset(err, 0, sizeof(*err));
  // 1. the template, split at the placeholder
  size_t tlen = 0;
  char* tpl = readFile(template_path, 0, &tlen);
  if (!tpl) {
    return setError(err, CS_ERR_IO, template_path, "cannot read the replay template: %s",
                    strerror(errno));
  }
  char* mark = strstr(tpl, CS_REPLAY_PLACEHOLDER);
  if (!mark) {
    free(tpl);
    return setError(err, CS_ERR_INPUT, template_path,
                    "is not a replay template (it has no %s placeholder)", CS_REPLAY_PLACEHOLDER);
  }
  // 2. every CSV, before the page is opened, so that a bad one leaves no half-written page
  RunData* data = calloc((size_t)nrun, sizeof(RunData));
  if (!data) {
    free(tpl);
    return setError(err, CS_ERR_MEMORY, out, "out of memory");
  }
  csStatus status = CS_OK;
  size_t csvBytes = 0;
  for (int i = 0; i < nrun && status == CS_OK; i++) {
    size_t len = 0;
    // a stream is read from its start (run --replay's scratch CSV, written and still open)
    errno = 0;
    char* text = !runs[i].stream ? readFile(runs[i].csv, 1, &len)
                 : fseek(runs[i].stream, 0, SEEK_SET) == 0 ? readStream(runs[i].stream, 1, &len)
                                                             : NULL;
    if (!text && errno == EFBIG) {
      status = setError(err, CS_ERR_INPUT, runs[i].csv, "is larger than %zu bytes (4 GiB), "
                        "the most a replay reads: its page would be more than a browser opens; "
                        "write the run with a longer --report-interval", CS_REPLAY_MAX_FILE_BYTES);
      break;
    }
    if (!text) {
      // a missing or unreadable CSV is bad input, as a missing scene is
      status = setError(err, errno == ENOMEM ? CS_ERR_MEMORY : CS_ERR_INPUT, runs[i].csv,
                        "cannot read: %s", strerror(errno));
      break;
    }
    csvBytes += len;
    const char* nl = strchr(text, '\n');
    // a NUL byte would end the text there, and the rows after it would be dropped unsaid
    const char* nul = memchr(text, 0, len);
    Columns cols = {0};
    if (nul) {
      long line = 1;
      for (const char* p = text; p < nul; p++) {
        line += *p == '\n';
      }
      status = setError(err, CS_ERR_INPUT, runs[i].csv,
                        "line %ld holds a NUL byte (byte %zu): not a CSV that run writes", line,
                        (size_t)(nul - text) + 1);
    } else if (!nl) {
      status = setError(err, CS_ERR_INPUT, runs[i].csv, "has no header line");
    } else if (columnsInit(&cols, text, (size_t)(nl - text)) != 0) {
      status = setError(err, CS_ERR_MEMORY, runs[i].csv, "out of memory");
    } else {
      status = mapColumns(&cols, &runs[i], &data[i], err);
      if (status == CS_OK) {
        status = readRows(nl + 1, &cols, &runs[i], &data[i], err);
      }
    }
    columnsFree(&cols);
    free(text);
  }
  // 3. the data's size, where the CSVs are large enough for it to pass the limit (the page holds
  // fewer bytes than its CSVs: a sixth to a half), counted before the page is opened, so that a
  // page refused leaves the one that was there as it was, however it is written
  if (status == CS_OK && csvBytes > (size_t)g_maxDataBytes / 2) {
    long n = dataBytes(runs, data, nrun);
    if (n > g_maxDataBytes) {
      status = setError(err, CS_ERR_INPUT, out, "the page would hold %.4g MiB of data, more "
                        "than a browser's script can (%.4g MiB here; 512 MiB in Chrome): write "
                        "the run with a longer --report-interval, or replay a part of it (the "
                        "CSV's header and the rows of the times to show)",
                        (double)n / 1048576.0, (double)g_maxDataBytes / 1048576.0);
    }
  }
  // 4. the page: template, data, rest of the template, written whole (replace_file.h: a reader,
  // or a writing stopped half way, sees the old page or the new one)
  csuReplace page;
  FILE* f = NULL;
  if (status == CS_OK && csu_replaceOpen(&page, out) == 0) {
    f = page.f;
  } else if (status == CS_OK) {
    // a page that cannot be created (no such directory, no permission) is a usage error, as
    // an output of `run` that cannot be created is; a write that fails later is not
    status = setError(err, CS_ERR_INPUT, out, "cannot write: %s", strerror(errno));
  }
  if (f) {
    // the reason of a write that fails, read from errno right after the writes that set the
    // stream's error flag: the flag outlives errno, and the failed write drops what it held,
    // leaving the close nothing to fail on and so no reason of its own
    int reason = 0;
    errno = 0;
    fwrite(tpl, 1, (size_t)(mark - tpl), f);
    keepWriteError(f, &reason);
    writeData(f, runs, data, nrun, &reason);
    const char* rest = mark + strlen(CS_REPLAY_PLACEHOLDER);
    fwrite(rest, 1, tlen - (size_t)(rest - tpl), f);
    keepWriteError(f, &reason);
    if (csu_replaceClose(&page, 0) != 0) {
      status = setError(err, CS_ERR_IO, out, "could not write the replay page: %s",
                        strerror(reason ? reason : errno));
    }
  }
  for (int i = 0; i < nrun; i++) {
    runDataFree(&data[i]);
  }
  free(data);
  free(tpl);
  return status;
}


// ---------------------------------------------------------------------------------------------
// run --replay

FILE* cs_replayOpenScratch(const char* page, char* path, size_t size, csError* err) {
  // next to the page (a symbolic link's target, where the page's own temporary file goes): the
  // user can write there, and it is on the same file system; a short name of its own, as the
  // page's may take all the length a name can have
  char base[PATH_MAX + 32];
  int named = csu_replaceTemporaryName(page, base, sizeof(base)) == 0;
  const char* slash = named ? strrchr(base, '/') : NULL;
  int n = !named ? -1
          : slash
              ? snprintf(path, size, "%.*s/.contactsim-replay.XXXXXX", (int)(slash - base), base)
              : snprintf(path, size, ".contactsim-replay.XXXXXX");
  if (n < 0 || (size_t)n >= size) {
    setError(err, CS_ERR_INPUT, page, "the replay page's path is too long");
    return NULL;
  }
  // removed as soon as it is made: the descriptor keeps it, and the page is made from it through
  // that, so no kill leaves it behind (a name kept until the end stayed, megabytes of it, after a
  // kill -9)
  int fd = mkstemp(path);
  if (fd >= 0) {
    unlink(path);
  }
  FILE* f = fd >= 0 ? fdopen(fd, "w+") : NULL;
  if (!f) {
    setError(err, CS_ERR_IO, path, "cannot create the replay's scratch CSV: %s", strerror(errno));
    if (fd >= 0) {
      close(fd);
    }
  }
  return f;
}


csStatus cs_replayFinishRun(FILE* scratch, const char* scratch_path, const char* page,
                            const char* template_path, const csReplayRun* run, csError* err) {
  memset(err, 0, sizeof(*err));
  csStatus status = CS_OK;
  if (fflush(scratch) != 0 || ferror(scratch)) {
    status = setError(err, CS_ERR_IO, scratch_path, "could not write the run's CSV for the page: "
                      "%s", strerror(errno ? errno : EIO));
  }
  if (status == CS_OK) {
    csReplayRun r = *run;
    r.csv = scratch_path;
    r.stream = scratch;
    status = cs_replayWrite(page, template_path, &r, 1, err);
    // a row the page cannot draw is the run's: named by the page and the CSV asked for, whose
    // lines are the scratch copy's (the same rows, perhaps fewer columns), not by the scratch
    // file, which has no name the user could open
    if (status != CS_OK && strcmp(err->file, scratch_path) == 0) {
      const char* shown = run->shown ? run->shown : run->csv;
      int dash = strcmp(shown, "-") == 0;
      cs_prefixError(err, "cannot draw the run from %s: ",
                     dash ? "its CSV on standard output" : shown);
      snprintf(err->file, sizeof(err->file), "%s", page);
    }
  }
  fclose(scratch);
  return status;
}
