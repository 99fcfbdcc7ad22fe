// cmd_sweep.c: `contactsim sweep`: run a parameter study (docs/sweep-format.md) on the local
// cores or as a Slurm job array, one simulation per worker process at a time, and merge the
// results into one table, DIR/results.csv and DIR/results.json, a row per run in run order.
//
// Each run is simulated exactly as `compare` simulates a model (cs_cliSimulate, the same
// statistics and the same JSON entry), on the scene loaded with the study's overrides, so a
// sweep's numbers are compare's numbers. A run is a pure function of its index: the study
// expands every point up front (io/study_load.c), and a worker derives its overrides from the
// index alone. That is what makes the table the same whatever -j, completion order, node or
// array task ran it.
//
// The workers are processes rather than threads, so that a run that crashes or is killed takes
// only itself down (it is recorded as failed, its worker replaced, and the study goes on). They
// are forked once and fed run indices through a pipe, one run at a time, rather than forked once
// per run: a process per run cost about 1 ms of CPU per run in fork, exit, page faults and lazy
// symbol binding, where a long-lived worker costs a few microseconds (docs/performance.md,
// "Sweeps"). The library's runs keep no global state, so a worker's earlier runs cannot change
// a later one; the tests check that the table does not depend on -j.
//
// Every finished run leaves one small file DIR/runs/NNNNNNNN.rec, written under a temporary name
// and renamed, so that a record either exists whole or not at all. The records are the truth: a
// rerun after an interruption skips the runs that have one, Slurm array tasks write theirs side
// by side on a shared file system, and the final tables are rebuilt from them (by the local
// sweep, the last array task, or `sweep --gather`). DIR/sweep.json identifies the study (hashes
// of its bytes and of the scene's), so that a changed study is refused rather than mixed in.
#define _GNU_SOURCE  // sched_getaffinity, for the cores this process may use
#include "app/common.h"
#include "app/sweep.h"
#include "io/study_load.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/resource.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

// every path inside the sweep directory is built into a buffer SWEEP_PATH long from a directory
// name checked to leave 64 bytes of room (cs_cliSweep), which GCC cannot see
#pragma GCC diagnostic ignored "-Wformat-truncation"


// longest path of a file inside the sweep directory
#define SWEEP_PATH (4 * CS_MAX_PATH + 64)
// most contact model names a scene offers (more than there are contact kinds)
#define SWEEP_MAX_AVAILABLE 32
// failures printed one per line on standard error (the rest are counted)
#define SWEEP_MAX_PRINTED 10


// ---------------------------------------------------------------------------------------------
// the sweep: the study, its models, the directory, and the columns every row has

typedef struct Sweep {
  csStudy* study;
  const char* study_arg;       // study path as given
  char study_abs[SWEEP_PATH];  // absolute study path (for the manifest, Slurm)
  char dir[SWEEP_PATH];        // output directory
  int nmodel;                  // models run
  char model[CS_STUDY_MAX_MODELS][CS_MAX_NAME];
  int use_model;                 // 0: the scene has no blocks (model "scene")
  char scene_name[CS_MAX_NAME];  // the scene's "name"
  uint64_t scene_hash;
  long nrun;
  int nfree;  // free bodies of the scene (pose columns)
  char (*free_name)[CS_MAX_NAME];  // (nfree) their names, owned
  int* free_id;                    // (nfree) their ids in the scene's model, owned
  int lock;          // how openDirectory locks DIR/.lock: 0 not, LOCK_SH, LOCK_EX
  int lockfd;        // DIR/.lock, held open (and so locked) until the process ends; -1: none
  int submitting;    // 1: a Slurm submission (openDirectory checks the job submitted before)
  int dry;           // 1: a dry run of a submission (openDirectory writes no manifest)
  int trajectories;  // write DIR/trajectories/NNNNNNNN.csv
  int retry_failed;  // run again the runs whose record says failed
  int quiet;
} Sweep;


// monotonic wall seconds
static double wallNow(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}


// CPU seconds of this process so far
static double cpuNow(void) {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}


// the plural ending of a count's noun: "1 run", "2 runs"
static const char* plural(long n) { return n == 1 ? "" : "s"; }


static int fileExists(const char* path) {
  struct stat st;
  return stat(path, &st) == 0;
}


// DIR/runs/NNNNNNNN.rec, the record of run i
static void recordPath(const Sweep* sw, long i, char* buf, size_t size) {
  snprintf(buf, size, "%s/runs/%08ld.rec", sw->dir, i);
}


// The most bytes a record may hold: far above what a run writes (its final pose of each free
// body, about 200 bytes a body), so that a file that is not one (a copy of something else) is
// not read whole into memory
#define RECORD_MAX_BYTES (256L << 20)


// a record's bytes into a malloc'ed, zero-terminated buffer; NULL when it cannot be read or is
// no record: not a regular file (a FIFO would wait for a writer, with the sweep deaf to its
// stop signals; /dev/zero has no end), larger than RECORD_MAX_BYTES, or holding a NUL byte (text
// ends there for every reader: a record padded with zeros, as a lost write can leave it, read
// as the whole record before them)
static char* slurpRecord(const char* path) {
  int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  struct stat st;
  if (fd < 0) {
    return NULL;
  }
  // (a regular file: read with blocking reads, as O_NONBLOCK was only for the open)
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size > RECORD_MAX_BYTES ||
      fcntl(fd, F_SETFL, 0) != 0) {
    close(fd);
    return NULL;
  }
  FILE* f = fdopen(fd, "rb");
  if (!f) {
    close(fd);
    return NULL;
  }
  size_t cap = 8192, n = 0;
  char* buf = malloc(cap);
  while (buf) {
    size_t got = fread(buf + n, 1, cap - 1 - n, f);
    n += got;
    if (n + 1 < cap) {
      if (got == 0 || feof(f)) {
        break;
      }
      continue;
    }
    char* grown = n < (size_t)RECORD_MAX_BYTES ? realloc(buf, 2 * cap) : NULL;
    if (!grown) {
      free(buf);
      buf = NULL;
      break;
    }
    buf = grown;
    cap *= 2;
  }
  // a read that failed is no whole record
  if (ferror(f)) {
    free(buf);
    buf = NULL;
  }
  fclose(f);
  if (buf && memchr(buf, '\0', n)) {
    free(buf);
    buf = NULL;
  }
  if (buf) {
    buf[n] = '\0';
  }
  return buf;
}


static void writeRowStart(FILE* f, const Sweep* sw, long i);
static void writeRowStartAs(FILE* f, const Sweep* sw, long i, int legacy);


// a record's second line, into buf: the hashes of the study and of the scene text its run was
// made from
#define RECORD_IDENTITY_SIZE 64
static void recordIdentity(char* buf, uint64_t studyHash, uint64_t sceneHash) {
  snprintf(buf, RECORD_IDENTITY_SIZE, "study fnv1a64:%016" PRIx64 " scene fnv1a64:%016" PRIx64 "\n",
           studyHash, sceneHash);
}

// What run i's record holds: RECORD_NONE when there is no record, or none that is whole and of
// this run; else whether the run finished or failed.
typedef enum RecordState { RECORD_NONE = 0, RECORD_OK, RECORD_FAILED } RecordState;


// Read run i's record and check it is one: a status line, a CSV row that starts with the run's
// index, point, model, repeat and parameter values as this study gives them (a record of
// another study's run i, copied in or written by a sweep of another study started on the same
// directory at the same moment, is not this run's), and a JSON entry that is one whole JSON
// value of that index. The rename
// makes records whole, but not every record that exists is: a node that lost power before its
// disk held the renamed file's blocks (file systems do not order the data of a new file before
// its name) leaves an empty or cut file, and files get copied and edited by hand. Such a record
// counts as missing everywhere alike (the rerun runs it, the Slurm resubmission includes it,
// the tables show it as missing), rather than being skipped by the rerun and copied into
// results.json as invalid JSON. With text != NULL the record's bytes (malloc'ed, the caller
// frees them) and, in *row and *entry, where its CSV row and JSON entry start.
static RecordState readRecord(const Sweep* sw, long i, char** text, char** row, char** entry) {
  char path[SWEEP_PATH];
  recordPath(sw, i, path, sizeof(path));
  char* t = slurpRecord(path);
  if (!t) {
    return RECORD_NONE;
  }
  // the row's first cells as this version writes them, and as earlier ones did
  char* starts[2] = {NULL, NULL};
  size_t lens[2] = {0, 0};
  for (int legacy = 0; legacy < 2; legacy++) {
    FILE* f = open_memstream(&starts[legacy], &lens[legacy]);
    if (f) {
      writeRowStartAs(f, sw, i, legacy);
      fputc(',', f);
    }
    if (!f || fclose(f) != 0) {
      free(starts[0]);
      free(starts[1]);
      free(t);
      return RECORD_NONE;  // out of memory: the run is run again rather than trusted
    }
  }
  char* rowStart = starts[0];
  size_t rowLen = lens[0];
  char entryStart[64];
  snprintf(entryStart, sizeof(entryStart), "{\"index\": %ld, ", i);
  RecordState state = strncmp(t, "ok\n", 3) == 0       ? RECORD_OK
                      : strncmp(t, "failed\n", 7) == 0 ? RECORD_FAILED
                                                       : RECORD_NONE;
  // the identity line: this study's bytes, and the scene's bytes as the study began
  char identity[RECORD_IDENTITY_SIZE];
  recordIdentity(identity, sw->study->hash, sw->scene_hash);
  char* r = strchr(t, '\n');
  r = r ? r + 1 : NULL;
  if (!r) {
    state = RECORD_NONE;
  } else if (strncmp(r, "study ", 6) == 0) {
    // a record names its study and scene (records written before records did are judged by
    // their row alone)
    if (strncmp(r, identity, strlen(identity)) != 0) {
      state = RECORD_NONE;
    } else {
      r += strlen(identity);
    }
  }
  char* e = r ? strchr(r, '\n') : NULL;
  e = e ? e + 1 : NULL;
  // the entry without the newlines after it
  size_t len = e ? strlen(e) : 0;
  while (len > 0 && e[len - 1] == '\n') {
    len--;
  }
  int current = r && strncmp(r, rowStart, rowLen) == 0;
  int legacy = !current && r && strncmp(r, starts[1], lens[1]) == 0;
  int ours = state != RECORD_NONE && r && e && (current || legacy) &&
             strncmp(e, entryStart, strlen(entryStart)) == 0 && csu_isJsonText(e, len);
  if (ours && legacy && text) {
    // an earlier version's record: its row is given the first cells as written now, so that a
    // table's column reads one way
    size_t head = (size_t)(r - t), rest = strlen(r + lens[1]);
    char* u = malloc(head + rowLen + rest + 1);
    if (!u) {
      ours = 0;
    } else {
      memcpy(u, t, head);
      memcpy(u + head, rowStart, rowLen);
      memcpy(u + head + rowLen, r + lens[1], rest + 1);
      e = u + head + rowLen + (size_t)(e - (r + lens[1]));
      r = u + head;
      free(t);
      t = u;
    }
  }
  free(starts[0]);
  free(starts[1]);
  if (!ours) {
    free(t);
    return RECORD_NONE;
  }
  if (text) {
    *text = t;
    *row = r;
    *entry = e;
  } else {
    free(t);
  }
  return state;
}


static int hasTrajectory(const Sweep* sw, long i) {
  char path[SWEEP_PATH];
  snprintf(path, sizeof(path), "%s/trajectories/%08ld.csv", sw->dir, i);
  return fileExists(path);
}


// 1 when run i still has to run: it has no record, or (with --retry-failed) a failed one
static int isPending(const Sweep* sw, long i) {
  RecordState state = readRecord(sw, i, NULL, NULL, NULL);
  if (state == RECORD_NONE || (sw->retry_failed && state == RECORD_FAILED)) {
    return 1;
  }
  // with --trajectories, a run recorded ok without its trajectory (run before the option was
  // given, or the file removed since) runs again to make it; a failed run may have none (its
  // scene did not load, its worker crashed) and is run again only with --retry-failed
  return state == RECORD_OK && sw->trajectories && !hasTrajectory(sw, i);
}


// write to a temporary name in the same folder and rename: readers see the whole file or none
typedef struct AtomicFile {
  FILE* f;
  char* buf;  // the stream's buffer (NULL: stdio's own)
  char tmp[SWEEP_PATH + 32];
  char path[SWEEP_PATH];
} AtomicFile;

// a buffer that holds a whole record (kilobytes; a pile of 100 bodies, 52 kB): its one write is
// then fclose's, whose failure keeps its reason (ENOSPC, EFBIG). A write that fails earlier, as
// a long table's can, leaves only the stream's error flag, and atomicClose can only say EIO.
// (glibc takes the size given to setvbuf only with a buffer of the caller's.)
enum { ATOMIC_BUFFER = 256 * 1024 };


// fclose, then the buffer freed; fclose's result, with its errno
static int atomicFclose(AtomicFile* a) {
  int r = fclose(a->f);
  int saved = errno;
  a->f = NULL;
  free(a->buf);
  a->buf = NULL;
  errno = saved;
  return r;
}


static int atomicOpen(AtomicFile* a, const char* path) {
  snprintf(a->path, sizeof(a->path), "%s", path);
  // the temporary name is hidden (leading dot) and unique to this process
  const char* slash = strrchr(path, '/');
  int dirlen = slash ? (int)(slash - path) + 1 : 0;
  snprintf(a->tmp, sizeof(a->tmp), "%.*s.%s.tmp%ld", dirlen, path, path + dirlen, (long)getpid());
  a->f = fopen(a->tmp, "w");
  a->buf = a->f ? malloc(ATOMIC_BUFFER) : NULL;
  if (a->buf && setvbuf(a->f, a->buf, _IOFBF, ATOMIC_BUFFER) != 0) {
    free(a->buf);
    a->buf = NULL;
  }
  return a->f ? 0 : -1;
}


// close, not yet renamed: 0, or why the file is not whole (an errno). A write that failed
// earlier left only the stream's error flag (its errno is long gone), so that one reads as EIO.
static int atomicFinish(AtomicFile* a) {
  int saved = ferror(a->f) ? EIO : 0;
  errno = 0;
  if (atomicFclose(a) != 0) {
    saved = errno ? errno : EIO;
  }
  return saved;
}


// the closed file given its name: 0, or why not (an errno)
static int atomicRename(AtomicFile* a) {
  return rename(a->tmp, a->path) != 0 ? (errno ? errno : EIO) : 0;
}


// close and give it its name only where there is none (a hard link fails with EEXIST when
// another process made the file first; a file system without hard links gets the rename, which
// is not exclusive); the temporary name removed either way. 0, or -1 with errno set
static int atomicCloseNew(AtomicFile* a) {
  int saved = atomicFinish(a);
  if (!saved && link(a->tmp, a->path) != 0) {
    saved = errno;
    if (saved == EPERM || saved == ENOTSUP || saved == EOPNOTSUPP) {
      saved = atomicRename(a);
    }
  }
  remove(a->tmp);
  errno = saved;
  return saved ? -1 : 0;
}


// close without a name: the temporary file is removed (a file known to be incomplete)
static void atomicDiscard(AtomicFile* a) {
  atomicFclose(a);
  remove(a->tmp);
}


// close and rename; on any error the temporary file is removed and -1 returned
static int atomicClose(AtomicFile* a) {
  int saved = atomicFinish(a);
  if (!saved) {
    saved = atomicRename(a);
  }
  if (saved) {
    remove(a->tmp);
    errno = saved;
    return -1;
  }
  return 0;
}


// ---------------------------------------------------------------------------------------------
// cells of the CSV and the JSON

// a CSV text cell (RFC 4180: quoted when it holds a comma, quote or newline; newlines become
// spaces so that a row is one line)
static void csvText(FILE* f, const char* s) {
  int quote = strpbrk(s, ",\"\n\r") != NULL;
  if (quote) {
    fputc('"', f);
  }
  for (const char* p = s; *p; p++) {
    if (*p == '"') {
      fputc('"', f);
    }
    fputc(*p == '\n' || *p == '\r' ? ' ' : *p, f);
  }
  if (quote) {
    fputc('"', f);
  }
}


// a separator and a number in full precision (empty when not finite)
static void csvNumber(FILE* f, double x) {
  fputc(',', f);
  if (isfinite(x)) {
    fprintf(f, "%.17g", x);
  }
}


// a JSON string literal (csu_jsonString: a byte that is not UTF-8 as U+FFFD)
static void jsonText(FILE* f, const char* s) { csu_jsonString(f, s, 0); }


static void jsonNumber(FILE* f, double x) {
  if (isfinite(x)) {
    fprintf(f, "%.17g", x);
  } else {
    fputs("null", f);
  }
}


// the header of results.csv: run identity, parameters, outcome, cost, compare's metrics
static void writeHeader(FILE* f, const Sweep* sw) {
  fputs("index,point,model,repeat", f);
  for (int k = 0; k < sw->study->nkey; k++) {
    fputc(',', f);
    csvText(f, sw->study->key[k]);
  }
  fputs(
      ",status,cpu_seconds,cpu_per_sim_second,run_cpu_seconds,wall_seconds,simulated,steps,"
      "rhs_evals,rhs_evals_jacobian,rhs_total,error_test_failures,linear_solver,"
      "max_penetration,peak_normal_force",
      f);
  for (int b = 0; b < sw->nfree; b++) {
    const char* n = sw->free_name[b];
    fprintf(f, ",%s.px,%s.py,%s.pz,%s.qw,%s.qx,%s.qy,%s.qz", n, n, n, n, n, n, n);
  }
  fputs(",sliding_distance,stuck_drift,energy_error,error,diagnostics\n", f);
}


// the first cells of a row: index, point, model, repeat and the parameter values
// Run i's first cells with its numbers as earlier builds wrote them (legacy): the fewest of 15,
// 16 or 17 significant digits that read back to the value (100000 where the shortest text is
// 1e+05, 0.0001 for 1e-04), so that their records still count as the runs they are.
static void writeRowStartAs(FILE* f, const Sweep* sw, long i, int legacy) {
  long point;
  int model, repeat;
  cs_studyDecode(sw->study, sw->nmodel, i, &point, &model, &repeat);
  fprintf(f, "%ld,%ld,", i, point);
  csvText(f, sw->model[model]);
  fprintf(f, ",%d", repeat);
  for (int k = 0; k < sw->study->nkey; k++) {
    double x;
    const char* text = cs_studyValue(sw->study, point, k, &x);
    fputc(',', f);
    // numbers as they are, strings without their quotes, anything else as JSON text
    if (isfinite(x) && legacy) {
      char old[32];
      for (int digits = 15; digits <= 17; digits++) {
        snprintf(old, sizeof(old), "%.*g", digits, x);
        if (strtod(old, NULL) == x) {
          break;
        }
      }
      fputs(old, f);
    } else if (isfinite(x)) {
      fputs(text, f);  // the shortest text that reads back to the value
    } else if (text[0] == '"' && strlen(text) >= 2 && !strchr(text + 1, '\\')) {
      char s[CS_STUDY_MAX_VALUE];
      snprintf(s, sizeof(s), "%.*s", (int)strlen(text) - 2, text + 1);
      csvText(f, s);
    } else {
      csvText(f, text);
    }
  }
}


static void writeRowStart(FILE* f, const Sweep* sw, long i) {
  writeRowStartAs(f, sw, i, 0);
}


// the first keys of a run's JSON entry: index, point, model, repeat, parameters
static void writeJsonStart(FILE* f, const Sweep* sw, long i) {
  long point;
  int model, repeat;
  cs_studyDecode(sw->study, sw->nmodel, i, &point, &model, &repeat);
  fprintf(f, "{\"index\": %ld, \"point\": %ld, \"model\": ", i, point);
  jsonText(f, sw->model[model]);
  fprintf(f, ", \"repeat\": %d, \"parameters\": {", repeat);
  for (int k = 0; k < sw->study->nkey; k++) {
    fputs(k ? ", " : "", f);
    jsonText(f, sw->study->key[k]);
    fprintf(f, ": %s", cs_studyValue(sw->study, point, k, NULL));
  }
  fputs("}", f);
}


// What one run leaves: DIR/runs/NNNNNNNN.rec, three parts: a first line "ok" or "failed", the
// run's row of results.csv on the second line, and its entry of results.json after that.
// r may have no model or data (a scene that did not load with the run's overrides, a worker
// that died): its statistics are then empty. Returns 0 or -1.
static int writeRecordFile(const Sweep* sw, long i, const csCliRun* r, uint64_t sceneHash,
                           double runCpu, double wall, const char* host) {
  char path[SWEEP_PATH];
  recordPath(sw, i, path, sizeof(path));
  AtomicFile a;
  if (atomicOpen(&a, path) != 0) {
    return -1;
  }
  FILE* f = a.f;
  int ok = r->status == CS_OK;
  fprintf(f, "%s\n", ok ? "ok" : "failed");
  // what the run was made of: the study's bytes and the scene's bytes it read (readRecord)
  char identity[RECORD_IDENTITY_SIZE];
  recordIdentity(identity, sw->study->hash, sceneHash);
  fputs(identity, f);
  // the CSV row: identity and parameters, outcome and cost
  writeRowStart(f, sw, i);
  const csStats* s = r->d ? &r->d->stat : NULL;
  double simulated = cs_cliSimulatedTime(r);
  fprintf(f, ",%s", ok ? "ok" : "failed");
  csvNumber(f, r->cpu_seconds);
  csvNumber(f, simulated > 0 ? r->cpu_seconds / simulated : NAN);
  csvNumber(f, runCpu);
  csvNumber(f, wall);
  // from here on, empty for a run that never started (its scene did not load)
  csvNumber(f, s ? simulated : NAN);
  if (s) {
    fprintf(f, ",%ld,%ld,%ld,%ld,%ld,%s", s->nsteps, s->nrhs, s->nrhs_jac, s->nrhs + s->nrhs_jac,
            s->netf, cs_cliLinearSolverName(r));
  } else {
    fputs(",,,,,,", f);
  }
  // the metrics
  const csMetrics* mt = &r->metrics;
  csvNumber(f, s ? mt->max_penetration : NAN);
  csvNumber(f, s ? mt->peak_normal_force : NAN);
  // final poses by body name: the scene's free bodies, in Ground
  for (int b = 0; b < sw->nfree; b++) {
    // the body at the scene's id, by name only where a run's model differs there (a linear
    // search per body made a record of 10,000 free bodies cost 5e7 name comparisons)
    int id = -1;
    if (r->m && r->d) {
      id = sw->free_id[b];
      if (id >= r->m->nbody || strcmp(r->m->body[id].name, sw->free_name[b]) != 0) {
        id = cs_bodyId(r->m, sw->free_name[b]);
      }
    }
    double v[7] = {NAN, NAN, NAN, NAN, NAN, NAN, NAN};
    if (id > 0 && r->m->body[id].joint == CS_JOINT_FREE) {
      const csTransform* X = &r->d->body_pose[id];
      csQuat q = csu_matToQuat(&X->R);
      double w[7] = {X->p.x, X->p.y, X->p.z, q.w, q.x, q.y, q.z};
      memcpy(v, w, sizeof(v));
    }
    for (int k = 0; k < 7; k++) {
      csvNumber(f, v[k]);
    }
  }
  csvNumber(f, s ? mt->sliding_distance : NAN);
  csvNumber(f, s ? mt->stuck_drift : NAN);
  csvNumber(f, s ? mt->energy_error : NAN);
  // the error and the diagnostics, text cells last
  char msg[CS_MAX_ERROR_LINE];
  msg[0] = '\0';
  if (!ok) {
    cs_cliFormatError(&r->err, msg, sizeof(msg));
  }
  fputc(',', f);
  csvText(f, msg);
  char notes[CS_METRICS_JOINED_LEN];
  cs_metricsJoinNotes(mt, notes, sizeof(notes));
  fputc(',', f);
  csvText(f, notes);
  fputc('\n', f);
  // the JSON entry: identity, outcome, cost, where it ran, then compare's entry for the run
  writeJsonStart(f, sw, i);
  fprintf(f, ", \"status\": \"%s\", \"error\": ", ok ? "ok" : "failed");
  if (ok) {
    fputs("null", f);
  } else {
    jsonText(f, msg);
  }
  fputs(", \"run_cpu_seconds\": ", f);
  jsonNumber(f, runCpu);
  fputs(", \"wall_seconds\": ", f);
  jsonNumber(f, wall);
  fputs(", \"worker\": {\"host\": ", f);
  jsonText(f, host);
  fprintf(f, ", \"pid\": %ld},\n\"result\": ", (long)getpid());
  cs_cliWriteRunJson(f, sw->scene_name, sw->study->scene, r);
  fputs("}\n", f);
  return atomicClose(&a);
}


// run i's record (writeRecordFile); a record that cannot be written is said here, with the
// system's reason (the run is then missing, not failed). 0, or -1
static int writeRecord(const Sweep* sw, long i, const csCliRun* r, uint64_t sceneHash,
                       double runCpu, double wall, const char* host) {
  if (writeRecordFile(sw, i, r, sceneHash, runCpu, wall, host) != 0) {
    fprintf(stderr, "contactsim: error: cannot write the record of run %ld in %s/runs: %s\n", i,
            cs_cliSafe(sw->dir), strerror(errno ? errno : EIO));
    return -1;
  }
  return 0;
}


// ---------------------------------------------------------------------------------------------
// one run, in a worker process

// run i's trajectory that could not be written, said with the system's reason like a record
// that cannot be (writeRecord); the run is then left without a record
static void tellTrajectoryUnwritten(const Sweep* sw, long i, int reason) {
  fprintf(stderr, "contactsim: error: cannot write the trajectory of run %ld in %s/trajectories: "
          "%s\n", i, cs_cliSafe(sw->dir), strerror(reason));
}


// the run's scene: the study's overrides of its point, its model; simulated as compare does it.
// Returns the status the worker reports: 0 the run finished, 1 it failed (recorded either way),
// 3 its record or its trajectory could not be written (no record: the run is missing).
static int runOne(const Sweep* sw, long i, const char* host) {
  double wall0 = wallNow(), cpu0 = cpuNow();
  long point;
  int model, repeat;
  cs_studyDecode(sw->study, sw->nmodel, i, &point, &model, &repeat);
  csOverride ov[CS_STUDY_MAX_SET + CS_STUDY_MAX_KEYS];
  int nov = cs_studyOverrides(sw->study, point, ov);
  csLoadOptions lo = {
      .contact_model = sw->use_model ? sw->model[model] : NULL, .overrides = ov, .noverrides = nov};
  csCliRun r;
  memset(&r, 0, sizeof(r));
  snprintf(r.model, sizeof(r.model), "%s", sw->model[model]);
  int trajErrno = 0;  // why the trajectory could not be written (0: it was, or none was asked)
  // a value the scene refuses fails this run only, with the loader's message. The scene is read
  // once per run and its bytes' hash goes into the record. A scene edited or removed while the
  // sweep runs leaves the run without a record (and no new run starts), saying so: its records
  // were not this study's, and were told as failed runs with no message, then as records that
  // are not whole
  size_t len = 0;
  char* text = cs_readSceneText(sw->study->scene, &len, &r.err);
  uint64_t sceneHash = text ? csu_fnv1a(CS_FNV_OFFSET, text, len) : 0;
  if (sceneHash != sw->scene_hash) {
    char why[CS_MAX_ERROR_LINE] = "";
    if (!text) {
      cs_cliFormatError(&r.err, why, sizeof(why));
    }
    fprintf(stderr,
            "contactsim: error: %s: run %ld: the scene %s %s since the sweep started%s%s; "
            "the run is left without a record (put the scene back as it was and run the sweep "
            "again, or run it with --new)\n",
            cs_cliSafe(sw->study->file), i, cs_cliSafe(sw->study->scene),
            text ? "has changed" : "cannot be read", text ? "" : ": ", why);
    cs_freeSceneText(text);
    cs_cliFreeRun(&r);
    return 3;
  }
  r.m = text ? cs_loadSceneString(text, sw->study->scene, &lo, &r.err) : NULL;
  cs_freeSceneText(text);
  if (!r.m) {
    r.status = r.err.code != CS_OK ? (int)r.err.code : CS_ERR_INPUT;
    if (!r.err.file[0]) {
      snprintf(r.err.file, sizeof(r.err.file), "%s", sw->study->scene);
    }
  } else {
    r.opt = r.m->opt;
    // a run compare would refuse before it starts (more report rows than max_rows, a largest
    // step that cannot reach the first report) fails here as bad input, without running
    const char* what = "";
    if (cs_cliRowsProblem(&r.opt, "simulation.max_step",
                          "simulation.max_rows (in the study's set or parameters)", &what,
                          r.err.message, sizeof(r.err.message))) {
      r.status = CS_ERR_INPUT;
      r.err.code = CS_ERR_INPUT;
      snprintf(r.err.file, sizeof(r.err.file), "%s", sw->study->scene);
      snprintf(r.err.path, sizeof(r.err.path), "%s", what);
    } else {
      // The trajectory, when asked for, next to the record and renamed into place the same way.
      // A trajectory that cannot be written (a full disk, a file size limit) is an output error
      // like a record that cannot be, not a failure of the simulation: the run is left without
      // a record, its temporary file removed, and the sweep stops. Recording it as failed was
      // rejected: a rerun after making room would keep that record and never run it again.
      AtomicFile traj = {0};
      if (sw->trajectories) {
        char path[SWEEP_PATH];
        snprintf(path, sizeof(path), "%s/trajectories/%08ld.csv", sw->dir, i);
        if (atomicOpen(&traj, path) != 0) {
          trajErrno = errno ? errno : EIO;
        }
      }
      if (!trajErrno) {
        csCsvOptions csvopt = {.forces = 1};
        cs_cliSimulate(&r, traj.f, &csvopt, 0);
      }
      // the rows go to the file's descriptor, so only the run knows whether they were written
      if (traj.f && r.output_errno) {
        trajErrno = r.output_errno;
        atomicDiscard(&traj);
      } else if (traj.f && atomicClose(&traj) != 0) {
        trajErrno = errno ? errno : EIO;
      }
    }
  }
  int status = r.status == CS_OK ? 0 : 1;
  if (trajErrno) {
    tellTrajectoryUnwritten(sw, i, trajErrno);
    status = 3;  // the parent counts the run as missing
  } else if (writeRecord(sw, i, &r, sceneHash, cpuNow() - cpu0, wallNow() - wall0, host) != 0) {
    status = 3;
  }
  cs_cliFreeRun(&r);
  return status;
}


// ---------------------------------------------------------------------------------------------
// the pool of workers and the progress bar

typedef struct Progress {
  long total, done, failed;
  double wall0, last;
  int tty;    // draw a bar (standard error is a terminal)
  int lines;  // print a line per tenth instead (a log file: a Slurm task's output, say)
  int tenth;  // tenths reported so far
  int drawn;
} Progress;


// the bar on a terminal; elsewhere one line at each tenth of the runs (for logs of long sweeps)
static void drawProgress(Progress* p, int force) {
  if (p->lines && p->total >= 50 && p->done * 10 / p->total > p->tenth) {
    p->tenth = (int)(p->done * 10 / p->total);
    fprintf(stderr, "contactsim: sweep: %ld/%ld runs, %ld failed, %.0f s\n", p->done, p->total,
            p->failed, wallNow() - p->wall0);
  }
  if (!p->tty) {
    return;
  }
  double now = wallNow();
  if (!force && now - p->last < 0.1) {
    return;
  }
  p->last = now;
  double elapsed = now - p->wall0;
  int width = 30, filled = p->total ? (int)(width * p->done / p->total) : width;
  char eta[32] = "--";
  if (p->done > 0 && p->done < p->total) {
    double left = elapsed / (double)p->done * (double)(p->total - p->done);
    snprintf(eta, sizeof(eta), "%dm%02ds", (int)(left / 60), (int)fmod(left, 60));
  } else if (p->done == p->total) {
    snprintf(eta, sizeof(eta), "0m00s");
  }
  fprintf(stderr, "\r[%.*s%*s] %ld/%ld runs, %ld failed, %.0f s, ETA %s ", filled,
          "##############################", width - filled, "", p->done, p->total, p->failed,
          elapsed, eta);
  p->drawn = 1;
}


// a failed run, told on standard error: the first few with their message, then a count. Also
// with -q, which silences progress and summaries, not errors: a failed run is one the user
// must see
static void tellFailure(const Sweep* sw, long i, long nfailed) {
  if (nfailed > SWEEP_MAX_PRINTED) {
    return;
  }
  // the message is the record's error cell; reading it back keeps one source for it: the JSON
  // entry, whose "error" is on its first line, a JSON string read as JSON reads it (its
  // escapes, \" and \n, undone)
  char msg[CS_MAX_ERROR_LINE] = "";
  char *text = NULL, *row = NULL, *entry = NULL;
  if (readRecord(sw, i, &text, &row, &entry) != RECORD_NONE) {
    const char* nl = strchr(entry, '\n');
    const char* e = strstr(entry, "\"error\": \"");
    if (e && (!nl || e < nl)) {
      csu_jsonStringValue(e + 9, msg, sizeof(msg));
    }
  }
  free(text);
  const char* said = msg[0] ? msg : NULL;
  // the case: the study, and the run's model and values, which the scene's message cannot name
  long point;
  int model, repeat;
  cs_studyDecode(sw->study, sw->nmodel, i, &point, &model, &repeat);
  char values[400];
  size_t len = 0;
  values[0] = '\0';
  for (int k = 0; k < sw->study->nkey && len < sizeof(values); k++) {
    int n = snprintf(values + len, sizeof(values) - len, ", %s=%s", sw->study->key[k],
                     cs_studyValue(sw->study, point, k, NULL));
    len += n > 0 ? (size_t)n : 0;
  }
  fprintf(stderr, "%scontactsim: sweep: %s: run %ld failed (model %s%s): ",
          sw->quiet ? "" : "\r", cs_cliSafe(sw->study->file), i, sw->model[model], values);
  cs_cliPutMessage(stderr, said ? said : "(no message recorded)");
  fprintf(stderr, "\n");
  if (nfailed == SWEEP_MAX_PRINTED) {
    fprintf(stderr, "contactsim: sweep: (further failures are not printed; see results.csv)\n");
  }
}


// The signal (SIGINT, SIGTERM, SIGHUP) that asked the sweep to stop, 0 while none has. A global
// because a signal handler can reach nothing else; only the parent process sets it.
static volatile sig_atomic_t sweepStop = 0;


static void onStopSignal(int sig) { sweepStop = sig; }


// The signal mask from before stopSignals(1), under which the parent waits for its workers.
static sigset_t sweepWaitMask;


// Catch (install != 0) or restore the default action of the three stop signals (a call that asks
// for what holds already does nothing). While caught they are also blocked, and the parent takes
// them only while it waits for its workers (ppoll with sweepWaitMask): a signal that arrived
// between its look at the flag and the wait would otherwise leave it waiting until a worker
// finished its run, minutes for a long one, with Ctrl-C seemingly ignored. Restoring also
// unblocks them (in a worker too, which starts with the parent's mask).
static void stopSignals(int install) {
  static int installed = 0;
  if (install == installed) {
    return;  // caught already (runPool returns with them caught), or not
  }
  installed = install;
  struct sigaction sa;
  memset(&sa, 0, sizeof(sa));
  sa.sa_handler = install ? onStopSignal : SIG_DFL;
  sigemptyset(&sa.sa_mask);
  cs_cliSetStopAction(&sa);
  if (install) {
    sigset_t stop;
    cs_cliStopSet(&stop);
    sigprocmask(SIG_BLOCK, &stop, &sweepWaitMask);
  } else {
    sigprocmask(SIG_SETMASK, &sweepWaitMask, NULL);
  }
}


// a worker ended by one of the stop signals was interrupted, not failed: it gets no record, so
// that the next sweep runs it again
static int isStopSignal(int sig) { return sig == SIGINT || sig == SIGTERM || sig == SIGHUP; }


// a stop signal pending (blocked outside ppoll): taken as if delivered, and cleared
static void stopPending(void) {
  sigset_t pending, acted;
  if (sweepStop || sigpending(&pending) != 0) {
    return;
  }
  cs_cliStopSet(&acted);
  static const int sigs[3] = {SIGINT, SIGTERM, SIGHUP};
  for (int k = 0; k < 3; k++) {
    if (sigismember(&acted, sigs[k]) == 1 && sigismember(&pending, sigs[k]) == 1) {
      sweepStop = sigs[k];
      // consumed, so that it is not delivered again later
      sigset_t one;
      sigemptyset(&one);
      sigaddset(&one, sigs[k]);
      int got = 0;
      sigwait(&one, &got);
      return;
    }
  }
}


// One worker process: the pipes it is fed through, and the run it has in hand.
typedef struct Worker {
  pid_t pid;  // 0: no process in this slot
  int to;     // write end: run indices to the worker
  int from;   // read end: one status int per finished run from the worker
  long run;   // the run in hand, -1 when idle
} Worker;


// the worker's loop: read a run index, run it, answer with its status; end at end of input
static void workerLoop(const Sweep* sw, int in, int out, const char* host) {
  long i;
  while (read(in, &i, sizeof(i)) == (ssize_t)sizeof(i)) {
    int status = runOne(sw, i, host);
    if (write(out, &status, sizeof(status)) != (ssize_t)sizeof(status)) {
      break;
    }
  }
}


// start the worker of slot k (pipes, fork); returns 0 or -1 with errno set (the caller says
// whether that is an error or a warning: the sweep goes on when other workers run)
static int startWorker(const Sweep* sw, Worker* w, int k, int jobs, const char* host) {
  int to[2], from[2];
  if (pipe(to) != 0) {
    return -1;
  }
  if (pipe(from) != 0) {
    int saved = errno;
    close(to[0]);
    close(to[1]);
    errno = saved;
    return -1;
  }
  // nothing buffered may be written twice, by the parent and by a copy in the child
  fflush(stdout);
  fflush(stderr);
  pid_t parent = getpid();
  pid_t pid = fork();
  if (pid < 0) {
    int saved = errno;
    close(to[0]);
    close(to[1]);
    close(from[0]);
    close(from[1]);
    errno = saved;
    return -1;
  }
  if (pid == 0) {
    // the worker keeps only its own two ends: the other workers' pipes must see their end of
    // input when the parent closes them, so no copy of their ends may stay open here
    // SIGPIPE stays ignored (main.c): a worker whose parent is gone ends on its failed write to
    // it (workerLoop), and one whose messages' reader is gone keeps recording its runs
    stopSignals(0);
    // a sweep killed outright (kill -9, the out-of-memory killer) stops its workers as a stop
    // signal does: left to end their runs, they held DIR's lock, and a rerun was refused as
    // "another sweep is running" for as long (a parent gone before this line: no signal comes).
    // SIGTERM ignored from the start stays ignored here: then SIGKILL, whose run's temporary
    // files the next sweep removes
    sigset_t acted;
    cs_cliStopSet(&acted);
    int death = sigismember(&acted, SIGTERM) == 1 ? SIGTERM : SIGKILL;
    if (prctl(PR_SET_PDEATHSIG, death) != 0 || getppid() != parent) {
      _exit(0);
    }
    for (int j = 0; j < jobs; j++) {
      if (j != k && w[j].pid > 0) {
        close(w[j].to);
        close(w[j].from);
      }
    }
    close(to[1]);
    close(from[0]);
    // the lock is the sweep's, not the worker's: a copy here kept DIR locked after the sweep
    // was killed outright until this worker had ended, and a rerun started at once was
    // refused as "another sweep is running" (closing a copy leaves the parent's lock held)
    if (sw->lockfd >= 0) {
      close(sw->lockfd);
    }
    workerLoop(sw, to[0], from[1], host);
    // out without running the parent's exit handlers
    _exit(0);
  }
  close(to[0]);
  close(from[1]);
  w[k] = (Worker){.pid = pid, .to = to[1], .from = from[0], .run = -1};
  return 0;
}


// A worker that died (a signal, a crash) leaves the files it was writing for run i under their
// temporary names (atomicOpen's): its trajectory and, if it was that far, its record. Nothing
// reads them, but they would pile up in the directory with every interrupted sweep.
static void removeTemporaries(const Sweep* sw, long i, pid_t pid) {
  char path[SWEEP_PATH + 64];
  snprintf(path, sizeof(path), "%s/runs/.%08ld.rec.tmp%ld", sw->dir, i, (long)pid);
  remove(path);
  snprintf(path, sizeof(path), "%s/trajectories/.%08ld.csv.tmp%ld", sw->dir, i, (long)pid);
  remove(path);
}


// Temporary files left by processes that were killed outright (kill -9 of the whole sweep, a
// node lost): those of runs that are finished for every sweep, recorded ok with their
// trajectory when there is a trajectories directory, are removed, and those of runs recorded
// failed by a sweep that holds the directory's lock exclusively (no other sweep process can be
// writing them then; they were left for good before). Any other run may still be writing them
// (an array task on another node, a rerun with --retry-failed or --trajectories), so its files
// are left for its rerun.
static int staleRunFile(const Sweep* sw, const char* name, int withTrajectories) {
  char* end = NULL;
  long i = name[0] == '.' ? strtol(name + 1, &end, 10) : -1;
  if (!(i >= 0 && i < sw->nrun && end && end == name + 9 && strstr(end, ".tmp"))) {
    return 0;
  }
  RecordState state = readRecord(sw, i, NULL, NULL, NULL);
  return (state == RECORD_OK && (!withTrajectories || hasTrajectory(sw, i))) ||
         (state == RECORD_FAILED && sw->lock == LOCK_EX);
}


// the tables' own (DIR/.results.csv.tmpPID, .results.json.tmpPID) of a sweep killed while it
// wrote them
static int staleTable(const Sweep* sw, const char* name, int withTrajectories) {
  (void)sw;
  (void)withTrajectories;
  return strncmp(name, ".results.csv.tmp", 16) == 0 || strncmp(name, ".results.json.tmp", 17) == 0;
}


// remove the entries of the directory dirPath that `stale` picks
static void removeFrom(const Sweep* sw, const char* dirPath, int withTrajectories,
                       int (*stale)(const Sweep* sw, const char* name, int withTrajectories)) {
  DIR* dir = opendir(dirPath);
  for (struct dirent* e; dir && (e = readdir(dir)) != NULL;) {
    if (stale(sw, e->d_name, withTrajectories)) {
      char path[SWEEP_PATH + 300];
      snprintf(path, sizeof(path), "%s/%s", dirPath, e->d_name);
      remove(path);
    }
  }
  if (dir) {
    closedir(dir);
  }
}


// both kinds above, where they are stale
static void removeStaleTemporaries(const Sweep* sw) {
  char trajDir[SWEEP_PATH];
  snprintf(trajDir, sizeof(trajDir), "%s/trajectories", sw->dir);
  struct stat st;
  int withTrajectories = stat(trajDir, &st) == 0 && S_ISDIR(st.st_mode);
  static const char* const sub[2] = {"runs", "trajectories"};
  for (int k = 0; k < 2; k++) {
    char dirPath[SWEEP_PATH];
    snprintf(dirPath, sizeof(dirPath), "%s/%s", sw->dir, sub[k]);
    removeFrom(sw, dirPath, withTrajectories, staleRunFile);
  }
  // the tables': only under the exclusive lock, which no other sweep of DIR holds meanwhile
  // (array tasks and --gather may write the tables side by side)
  if (sw->lock == LOCK_EX) {
    removeFrom(sw, sw->dir, withTrajectories, staleTable);
  }
}


// hand run i to worker w; -1 when the worker is gone (its pipe broken)
static int assignRun(Worker* w, long i) {
  w->run = i;
  return write(w->to, &i, sizeof(i)) == (ssize_t)sizeof(i) ? 0 : -1;
}


// What runPool did with the runs it was given.
typedef struct PoolCounts {
  long ran;        // runs that finished (recorded or not)
  long failed;     // of those, recorded as failed
  long unwritten;  // of those, whose record could not be written (missing)
  long unstarted;  // runs never handed to a worker (a stop signal, a record not written)
} PoolCounts;


// Run the pending runs (their indices in todo) on up to jobs worker processes, each running one
// simulation at a time and fed run indices through a pipe. A worker that dies (a crash, a kill)
// takes only its run in hand with it: that run gets a failed record saying so, and a new worker
// takes its place. A record that cannot be written (a full disk, a file size limit) stops the
// pool as a stop signal does, but gently: no new run starts, the runs in hand finish (their
// records may still be written), and the counts in *out say what was and was not recorded. A
// full disk would fail every later record too: going on would only run simulations whose
// results are thrown away. Returns 0, or -1 when the pool could not run (no worker started).
//
// The workers live for many runs rather than one process per run: a fresh process per run paid
// for its fork, its exit, the page faults that map the program's text into it again and the
// dynamic linker's lazy binding of every library function it calls, about 1 ms per run in all
// (docs/performance.md, "Sweeps"). Runs share nothing through the process: the library keeps no
// global state, and each run loads its own model and data and frees them.
static int runPool(const Sweep* sw, const long* todo, long ntodo, int jobs, const char* host,
                   PoolCounts* out) {
  *out = (PoolCounts){0};
  jobs = ntodo < jobs ? (int)(ntodo > 0 ? ntodo : 1) : jobs;
  Worker* w = calloc((size_t)jobs, sizeof(Worker));
  // the live workers' outputs, packed (poll refuses more entries than the open-file limit,
  // which a large -j can pass) with the slot of each
  struct pollfd* fds = calloc((size_t)jobs, sizeof(struct pollfd));
  int* slot = calloc((size_t)jobs, sizeof(int));
  if (!w || !fds || !slot) {
    free(w);
    free(fds);
    free(slot);
    return -1;
  }
  int tty = !sw->quiet && isatty(STDERR_FILENO);
  Progress p = {.total = ntodo, .wall0 = wallNow(), .tty = tty, .lines = !sw->quiet && !tty};
  long next = 0, failed = 0, interrupted = 0, unwritten = 0;
  int ioError = 0, forwarded = 0, restarts = 0;
  // (a worker that died leaves a broken pipe: the write fails with EPIPE, SIGPIPE being
  // ignored for the whole program, main.c)
  stopSignals(1);
  drawProgress(&p, 1);
  for (;;) {
    // a stop signal that arrived while the workers were being read is still blocked (they are
    // delivered in ppoll only): taken now, before it is forwarded and before a new run starts
    stopPending();
    // a stop signal: no new runs; the workers get the signal too (a terminal's Ctrl-C reaches
    // them anyway, a kill of the parent alone does not)
    if (sweepStop && !forwarded) {
      for (int k = 0; k < jobs; k++) {
        if (w[k].pid > 0) {
          kill(w[k].pid, sweepStop);
        }
      }
      forwarded = 1;
    }
    // every idle slot gets a run (and a worker, when it has none), until none are left
    for (int k = 0; k < jobs && next < ntodo && !sweepStop && !ioError && !unwritten; k++) {
      if (w[k].pid < 0 || (w[k].pid > 0 && w[k].run >= 0)) {
        continue;
      }
      if (w[k].pid == 0 && startWorker(sw, w, k, jobs, host) != 0) {
        // no pipe or process for one more worker (-j beyond the open-file or process limit):
        // the workers already running carry on with the study, one fewer for good: a warning,
        // where no worker at all is an error that ends the sweep
        int reason = errno;
        int alive = 0;
        for (int j = 0; j < jobs; j++) {
          alive += w[j].pid > 0;
        }
        if (alive == 0) {
          fprintf(stderr, "contactsim: error: cannot start a worker: %s\n", strerror(reason));
          ioError = 1;
          break;
        }
        for (int j = 0; j < jobs; j++) {
          w[j].pid = w[j].pid == 0 ? -1 : w[j].pid;
        }
        fprintf(stderr,
                "contactsim: sweep: warning: cannot start another worker (%s); going on with "
                "the %d worker%s started\n",
                strerror(reason), alive, plural(alive));
        continue;
      }
      // a worker that cannot take the run died while idle: the run goes back to the queue and
      // the slot gets a new worker on the next pass
      if (assignRun(&w[k], todo[next++]) != 0) {
        next--;
        close(w[k].to);
        close(w[k].from);
        waitpid(w[k].pid, NULL, 0);
        w[k].pid = 0;
        w[k].run = -1;
      }
    }
    // idle workers are done when nothing is left: closing their input ends them
    int busy = 0;
    for (int k = 0; k < jobs; k++) {
      if (w[k].pid > 0 && w[k].run < 0 && (next >= ntodo || sweepStop || ioError || unwritten)) {
        close(w[k].to);
        close(w[k].from);
        waitpid(w[k].pid, NULL, 0);
        w[k].pid = 0;
      }
      if (w[k].pid > 0) {
        fds[busy] = (struct pollfd){.fd = w[k].from, .events = POLLIN};
        slot[busy++] = k;
      }
    }
    if (busy == 0) {
      // none busy: the end, or a worker that died before taking its run (it is started again,
      // but not forever: a worker that cannot live through a single read is a broken system)
      if (next >= ntodo || sweepStop || ioError || unwritten || ++restarts > 100) {
        ioError |= next < ntodo && !sweepStop && !unwritten;
        break;
      }
      continue;
    }
    // wait for a worker to answer (or to die: end of its output)
    if (ppoll(fds, (nfds_t)busy, NULL, &sweepWaitMask) < 0) {
      if (errno == EINTR) {
        continue;
      }
      fprintf(stderr, "contactsim: error: waiting for the workers: %s\n", strerror(errno));
      ioError = 1;
      break;
    }
    for (int n = 0; n < busy; n++) {
      int k = slot[n];
      if (!(fds[n].revents & (POLLIN | POLLHUP | POLLERR))) {
        continue;
      }
      long i = w[k].run;
      int code;
      ssize_t got = read(w[k].from, &code, sizeof(code));
      if (got != (ssize_t)sizeof(code)) {
        // the worker is gone: how it ended decides what its run in hand becomes
        int status = 0;
        close(w[k].to);
        close(w[k].from);
        waitpid(w[k].pid, &status, 0);
        if (i >= 0) {
          removeTemporaries(sw, i, w[k].pid);
        }
        w[k].pid = 0;
        w[k].run = -1;
        if (i < 0) {
          continue;  // it had no run in hand
        }
        if (WIFSIGNALED(status) && isStopSignal(WTERMSIG(status))) {
          // interrupted, not failed: no record, so that the next sweep runs it again
          interrupted++;
          continue;
        }
        csCliRun r;
        memset(&r, 0, sizeof(r));
        long point;
        int model, repeat;
        cs_studyDecode(sw->study, sw->nmodel, i, &point, &model, &repeat);
        snprintf(r.model, sizeof(r.model), "%s", sw->model[model]);
        r.status = CS_ERR_SOLVER;
        snprintf(r.err.file, sizeof(r.err.file), "%s", sw->study->scene);
        if (WIFSIGNALED(status)) {
          snprintf(r.err.message, sizeof(r.err.message),
                   "the run's worker process was ended by signal %d (%s)", WTERMSIG(status),
                   strsignal(WTERMSIG(status)));
        } else {
          snprintf(r.err.message, sizeof(r.err.message),
                   "the run's worker process exited with status %d",
                   WIFEXITED(status) ? WEXITSTATUS(status) : -1);
        }
        code = writeRecord(sw, i, &r, sw->scene_hash, NAN, NAN, host) != 0 ? 3 : 1;
      } else {
        w[k].run = -1;
      }
      // 0 finished, 1 failed (recorded either way), 3 the record or the trajectory could not
      // be written (the worker said why): the run is missing, not failed, and no new run starts
      if (code == 3) {
        unwritten++;
      }
      p.done++;
      if (code == 1) {
        failed++;
        p.failed++;
        if (p.drawn) {
          fprintf(stderr, "\r%*s", 90, "");
        }
        tellFailure(sw, i, failed);
      }
      drawProgress(&p, p.done == ntodo);
    }
  }
  if (p.drawn) {
    fputc('\n', stderr);
  }
  // the stop signals stay caught: one that comes after the last run, while the tables are
  // written, is taken as a stop once they are whole (mergeResults); one that came already is
  // taken now
  stopPending();
  if (interrupted > 0 || sweepStop) {
    // with --retry-failed the runs left keep the failed records they had, if any
    fprintf(stderr,
            "contactsim: sweep: %s: %ld run%s finished and recorded; %ld interrupted and %ld "
            "not started are left %s; run the same command again to run them\n",
            sweepStop ? cs_cliSignalName(sweepStop) : "workers stopped by a signal", p.done,
            plural(p.done), interrupted, ntodo - next,
            sw->retry_failed ? "as they were (failed, or without a record)"
                             : "without a record");
  }
  free(w);
  free(fds);
  free(slot);
  *out = (PoolCounts){
      .ran = p.done, .failed = failed, .unwritten = unwritten, .unstarted = ntodo - next};
  return ioError ? -1 : 0;
}


// ---------------------------------------------------------------------------------------------
// the merged results

// the provenance record: what made these results, for results.json and the manifest
static void writeProvenance(FILE* f, const Sweep* sw, const char* indent) {
  char host[256] = "";
  gethostname(host, sizeof(host) - 1);
  time_t now = time(NULL);
  struct tm tm;
  gmtime_r(&now, &tm);
  char date[64];
  strftime(date, sizeof(date), "%Y-%m-%dT%H:%M:%SZ", &tm);
  fprintf(f, "%s\"study\": ", indent);
  jsonText(f, sw->study_abs);
  fprintf(f, ",\n%s\"study_hash\": \"fnv1a64:%016" PRIx64 "\",\n%s\"scene\": ", indent,
          sw->study->hash, indent);
  jsonText(f, sw->study->scene);
  fprintf(f, ",\n%s\"scene_name\": ", indent);
  jsonText(f, sw->scene_name);
  fprintf(f, ",\n%s\"scene_hash\": \"fnv1a64:%016" PRIx64 "\",\n", indent, sw->scene_hash);
  fprintf(f,
          "%s\"runs\": %ld,\n%s\"points\": %ld,\n%s\"repeats\": %d,\n%s\"seed\": %" PRIu64
          ",\n%s\"models\": [",
          indent, sw->nrun, indent, sw->study->npoint, indent, sw->study->repeats, indent,
          sw->study->seed, indent);
  for (int m = 0; m < sw->nmodel; m++) {
    fputs(m ? ", " : "", f);
    jsonText(f, sw->model[m]);
  }
  fprintf(f, "],\n%s\"parameters\": [", indent);
  for (int k = 0; k < sw->study->nkey; k++) {
    fputs(k ? ", " : "", f);
    jsonText(f, sw->study->key[k]);
  }
  fprintf(f, "],\n%s\"set\": {", indent);
  for (int k = 0; k < sw->study->nset; k++) {
    fputs(k ? ", " : "", f);
    jsonText(f, sw->study->set_key[k]);
    fprintf(f, ": %s", sw->study->set_value[k]);
  }
  fprintf(f, "},\n%s\"options\": {\"trajectories\": %s},\n", indent,
          sw->trajectories ? "true" : "false");
  fprintf(f, "%s\"contactsim_version\": \"%s\",\n%s\"date\": \"%s\",\n%s\"host\": ", indent,
          cs_versionString(), indent, date, indent);
  jsonText(f, host);
}


// print the missing runs as ranges "a-b, c" into f
static void printRanges(FILE* f, const unsigned char* missing, long n, int limit) {
  int printed = 0;
  for (long i = 0; i < n; i++) {
    if (!missing[i]) {
      continue;
    }
    long j = i;
    while (j + 1 < n && missing[j + 1]) {
      j++;
    }
    if (printed++ == limit) {
      fputs(", ...", f);
      break;
    }
    fprintf(f, printed > 1 ? ", " : "");
    if (j > i) {
      fprintf(f, "%ld-%ld", i, j);
    } else {
      fprintf(f, "%ld", i);
    }
    i = j;
  }
}


// Merge every record into DIR/results.csv and DIR/results.json (both renamed into place together,
// once both are whole), in run order; a run without a record gets a row with status "missing". Counts go to *nfailed and
// *nmissing. executed is the number of runs this invocation ran (-1: a gather, which runs
// none and says nothing of the kind). Returns 0 or -1.
static int writeTables(const Sweep* sw, long executed, long* nfailed, long* nmissing);


// The merged tables, written with the stop signals caught and held off: a SIGINT, SIGTERM or
// SIGHUP that comes meanwhile (it killed the sweep half way through, leaving the temporary
// tables behind) is taken once they are whole, and the caller then stops as for any stop
// (sweepStop). The signals stay caught: the sweep ends next.
//
// Reading the records and renaming the tables into place is one step for every writer of
// DIR's tables (the array tasks, which run side by side, and --gather, which takes no directory
// lock): under DIR/.tables.lock, held exclusively. A gather that read the records before the
// last task wrote its run's, and renamed its tables after the task's complete ones, left tables
// with runs missing whose records were there. The lock is waited for before the signals are
// held off, so that a gather waiting behind a stale one can be stopped.
static int mergeResults(const Sweep* sw, long executed, long* nfailed, long* nmissing) {
  char path[SWEEP_PATH];
  snprintf(path, sizeof(path), "%s/.tables.lock", sw->dir);
  int lock = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0666);
  if (lock >= 0) {
    while (flock(lock, LOCK_EX) != 0 && errno == EINTR) {
    }
  }
  stopSignals(1);
  int r = writeTables(sw, executed, nfailed, nmissing);
  if (lock >= 0) {
    close(lock);
  }
  stopPending();
  return r;
}


// a stop signal taken while the tables were written (they are whole): said, and the exit status
// 128 + the signal; 0 when none came
static int tablesStopped(void) {
  if (sweepStop) {
    fprintf(stderr, "contactsim: sweep: %s: stopped once the tables were written\n",
            cs_cliSignalName(sweepStop));
  }
  return sweepStop ? 128 + (int)sweepStop : 0;
}


static int writeTables(const Sweep* sw, long executed, long* nfailed, long* nmissing) {
  removeStaleTemporaries(sw);
  char csvPath[SWEEP_PATH], jsonPath[SWEEP_PATH];
  snprintf(csvPath, sizeof(csvPath), "%s/results.csv", sw->dir);
  snprintf(jsonPath, sizeof(jsonPath), "%s/results.json", sw->dir);
  AtomicFile c, j;
  if (atomicOpen(&c, csvPath) != 0) {
    fprintf(stderr, "contactsim: error: cannot write %s: %s\n", csvPath, strerror(errno));
    return -1;
  }
  if (atomicOpen(&j, jsonPath) != 0) {
    fprintf(stderr, "contactsim: error: cannot write %s: %s\n", jsonPath, strerror(errno));
    atomicDiscard(&c);
    return -1;
  }
  unsigned char* missing = calloc((size_t)sw->nrun + 1, 1);
  if (!missing) {
    atomicDiscard(&c);
    atomicDiscard(&j);
    return -1;
  }
  writeHeader(c.f, sw);
  fputs("{\n  \"sweep\": {\n", j.f);
  writeProvenance(j.f, sw, "    ");
  fputs("\n  },\n  \"runs\": [\n", j.f);
  *nfailed = *nmissing = 0;
  long damaged = 0;
  for (long i = 0; i < sw->nrun; i++) {
    // a record is three parts: the status line, the CSV row, the JSON entry
    char *text = NULL, *row = NULL, *entry = NULL;
    RecordState state = readRecord(sw, i, &text, &row, &entry);
    if (state == RECORD_NONE) {
      char path[SWEEP_PATH];
      recordPath(sw, i, path, sizeof(path));
      if (fileExists(path) && damaged++ < SWEEP_MAX_PRINTED && !sw->quiet) {
        fprintf(stderr,
                "contactsim: sweep: %s is not a whole record of run %ld; the run counts as "
                "missing\n",
                path, i);
      }
      missing[i] = 1;
      (*nmissing)++;
      writeRowStart(c.f, sw, i);
      // status "missing", every other cell empty
      fputs(",missing,,,,,,,,,,,,,,", c.f);
      for (int b = 0; b < sw->nfree; b++) {
        fputs(",,,,,,,", c.f);
      }
      fputs(",,,,\n", c.f);
      writeJsonStart(j.f, sw, i);
      fputs(", \"status\": \"missing\"}", j.f);
    } else {
      *nfailed += state == RECORD_FAILED;
      fwrite(row, 1, (size_t)(entry - row), c.f);
      // the entry without its final newline
      size_t len = strlen(entry);
      while (len > 0 && entry[len - 1] == '\n') {
        len--;
      }
      fwrite(entry, 1, len, j.f);
    }
    fputs(i + 1 < sw->nrun ? ",\n" : "\n", j.f);
    free(text);
  }
  fprintf(j.f,
          "  ],\n  \"summary\": {\"runs\": %ld, \"ok\": %ld, \"failed\": %ld, \"missing\": "
          "%ld",
          sw->nrun, sw->nrun - *nfailed - *nmissing, *nfailed, *nmissing);
  // reused: the records in the table this invocation did not make, whether it found them when
  // it started or other array tasks wrote them meanwhile, so that executed + reused + missing
  // is the number of runs (the task that writes the tables counted only its own range's, and
  // reported "reused 0" for a table of other tasks' records)
  if (executed >= 0) {
    long reused = sw->nrun - *nmissing - executed;
    fprintf(j.f, ", \"executed\": %ld, \"reused\": %ld", executed, reused > 0 ? reused : 0);
  }
  fputs("}\n}\n", j.f);
  // both tables are given their names only once both are whole, so that they are replaced
  // together or not at all (the CSV renamed over the last run's, the JSON not written, left the
  // two disagreeing); each table that could not be written is named, with the reason
  // (a rename that fails, rare in one directory, stops the other's too)
  AtomicFile* tables[2] = {&c, &j};
  int reason[2] = {atomicFinish(&c), atomicFinish(&j)};
  int bad = reason[0] || reason[1];
  for (int k = 0; k < 2; k++) {
    if (!bad && (reason[k] = atomicRename(tables[k])) != 0) {
      bad = 1;
    }
    if (reason[k]) {
      fprintf(stderr, "contactsim: error: could not write %s: %s\n", cs_cliSafe(tables[k]->path),
              strerror(reason[k]));
    }
  }
  for (int k = 0; k < 2; k++) {
    remove(tables[k]->tmp);  // nothing left there once renamed
  }
  if (*nmissing > 0 && !sw->quiet) {
    fprintf(stderr, "contactsim: sweep: %ld of %ld runs are missing: ", *nmissing, sw->nrun);
    printRanges(stderr, missing, sw->nrun, 20);
    fprintf(stderr, "\n  (run the same sweep command again to run only those)\n");
  }
  free(missing);
  return bad ? -1 : 0;
}


// ---------------------------------------------------------------------------------------------
// setting up: study, models, directory, manifest

// The JSON path in the study file of override o of cs_studyOverrides (the fixed ones of "set"
// first, then the parameters' keys): "set.KEY", "parameters[2].key", "parameters[0].keys[1]",
// "parameters[1].random.parameters[0].key".
static void studyKeyPath(const csStudy* s, int o, char* buf, size_t size) {
  if (o < s->nset) {
    snprintf(buf, size, "set.%s", s->set_key[o]);
    return;
  }
  int k = o - s->nset, a = 0;
  while (a + 1 < s->naxis && s->axis[a + 1].keyadr <= k) {
    a++;
  }
  const csStudyAxis* ax = &s->axis[a];
  if (ax->kind == CS_STUDY_RANDOM) {
    snprintf(buf, size, "parameters[%d].random.parameters[%d].key", a, k - ax->keyadr);
  } else if (ax->keylist) {
    snprintf(buf, size, "parameters[%d].keys[%d]", a, k - ax->keyadr);
  } else {
    snprintf(buf, size, "parameters[%d].key", a);
  }
}


// the study, its models and the scene's free bodies; returns 0 or an exit code
static int setUp(Sweep* sw, const char* studyPath) {
  csError err;
  sw->study_arg = studyPath;
  if (cs_cliStandardOutputIsInput("study", studyPath)) {
    return CS_EXIT_USAGE;
  }
  sw->study = cs_loadStudy(studyPath, &err);
  if (!sw->study) {
    cs_cliPrintError(&err);
    return CS_EXIT_USAGE;
  }
  if (!realpath(studyPath, sw->study_abs)) {
    snprintf(sw->study_abs, sizeof(sw->study_abs), "%s", studyPath);
  }
  // the scene by its absolute path, so that messages and results name it the same way whatever
  // the working directory of the process that ran the run (a local sweep, an array task)
  char sceneAbs[PATH_MAX];
  if (realpath(sw->study->scene, sceneAbs) && strlen(sceneAbs) < sizeof(sw->study->scene)) {
    snprintf(sw->study->scene, sizeof(sw->study->scene), "%s", sceneAbs);
  }
  if (cs_cliStandardOutputIsInput("scene", sw->study->scene)) {
    return CS_EXIT_USAGE;
  }
  const csStudy* s = sw->study;
  // the models: the study's list, each a block of the scene, or every block of the scene
  char available[SWEEP_MAX_AVAILABLE][CS_MAX_NAME];
  char defaultName[CS_MAX_NAME];
  memset(&err, 0, sizeof(err));
  int navailable =
      cs_sceneContactModels(s->scene, available, SWEEP_MAX_AVAILABLE, defaultName, &err);
  if (navailable < 0) {
    if (!err.file[0]) {
      snprintf(err.file, sizeof(err.file), "%s", s->scene);
    }
    cs_cliPrintError(&err);
    fprintf(stderr, "contactsim: error: %s: scene: the study's scene %s does not load\n",
            s->file, s->scene);
    return CS_EXIT_USAGE;
  }
  navailable = navailable > SWEEP_MAX_AVAILABLE ? SWEEP_MAX_AVAILABLE : navailable;
  sw->use_model = navailable > 0;
  if (s->nmodel > 0) {
    for (int m = 0; m < s->nmodel; m++) {
      int found = 0;
      for (int k = 0; k < navailable; k++) {
        found |= strcmp(available[k], s->model[m]) == 0;
      }
      if (!found) {
        fprintf(stderr,
                "contactsim: error: %s: models[%d]: the scene %s has no parameter block "
                "for contact model '%s'\n",
                s->file, m, s->scene, s->model[m]);
        return CS_EXIT_USAGE;
      }
      snprintf(sw->model[m], CS_MAX_NAME, "%s", s->model[m]);
    }
    sw->nmodel = s->nmodel;
  } else if (navailable > 0) {
    memcpy(sw->model, available, sizeof(available[0]) * (size_t)navailable);
    sw->nmodel = navailable;
  } else {
    snprintf(sw->model[0], CS_MAX_NAME, "scene");
    sw->nmodel = 1;
  }
  sw->nrun = cs_studyRunCount(s, sw->nmodel);
  // the study checked its size with the models it lists; the scene's own list may make it larger
  // (and a manifest with more runs than the limit could not be read back by the rerun)
  if (sw->nrun > CS_STUDY_MAX_RUNS) {
    fprintf(stderr,
            "contactsim: error: %s: the study has %ld runs (%ld point%s x %d model%s of the scene "
            "x %d repeat%s); a study has at most %ld runs\n",
            s->file, sw->nrun, s->npoint, plural(s->npoint), sw->nmodel, plural(sw->nmodel),
            s->repeats, plural(s->repeats), CS_STUDY_MAX_RUNS);
    return CS_EXIT_USAGE;
  }
  // the scene's identity, and its free bodies as loaded with the fixed overrides
  if (csu_hashFile(s->scene, &sw->scene_hash) != 0) {
    fprintf(stderr, "contactsim: error: %s: cannot read the scene %s: %s\n", s->file, s->scene,
            strerror(errno));
    return CS_EXIT_USAGE;
  }
  csOverride ov[CS_STUDY_MAX_SET];
  for (int k = 0; k < s->nset; k++) {
    ov[k] = (csOverride){.key = s->set_key[k], .value = s->set_value[k]};
  }
  csLoadOptions lo = {
      .contact_model = sw->use_model ? sw->model[0] : NULL, .overrides = ov, .noverrides = s->nset};
  memset(&err, 0, sizeof(err));
  csModel* m = cs_loadScene(s->scene, &lo, &err);
  if (!m) {
    if (!err.file[0]) {
      snprintf(err.file, sizeof(err.file), "%s", s->scene);
    }
    cs_cliPrintError(&err);
    // the key of "set" at fault when the loader can tell (a key path the scene cannot have)
    char where[CS_MAX_PATH + 64] = "set";
    if (err.override > 0 && err.override <= s->nset) {
      studyKeyPath(s, err.override - 1, where, sizeof(where));
    }
    if (err.override > 0 || s->nset > 0) {
      fprintf(stderr,
              "contactsim: error: %s: %s: the scene does not load with the study's \"set\" "
              "and model '%s'\n",
              cs_cliSafe(s->file), where, sw->model[0]);
    } else {
      // no "set" to blame: the scene itself (or its model's block) is at fault
      fprintf(stderr, "contactsim: error: %s: scene: the study's scene does not load with "
              "model '%s'\n", cs_cliSafe(s->file), sw->model[0]);
    }
    return CS_EXIT_USAGE;
  }
  snprintf(sw->scene_name, sizeof(sw->scene_name), "%s", m->name);
  // every free body's pose has columns (the first 64 had, and the rest were left out)
  int nfree = 0;
  for (int b = 1; b < m->nbody; b++) {
    nfree += m->body[b].joint == CS_JOINT_FREE;
  }
  sw->free_name = nfree ? calloc((size_t)nfree, sizeof(*sw->free_name)) : NULL;
  sw->free_id = nfree ? calloc((size_t)nfree, sizeof(*sw->free_id)) : NULL;
  if (nfree && (!sw->free_name || !sw->free_id)) {
    cs_deleteModel(m);
    fprintf(stderr, "contactsim: error: out of memory setting up the sweep\n");
    return CS_EXIT_FAILURE;
  }
  for (int b = 1; b < m->nbody; b++) {
    if (m->body[b].joint == CS_JOINT_FREE) {
      sw->free_id[sw->nfree] = b;
      snprintf(sw->free_name[sw->nfree++], CS_MAX_NAME, "%s", m->body[b].name);
    }
  }
  cs_deleteModel(m);
  // a key path the scene cannot have fails every run the same way: that is bad input, found
  // here by loading the first point with each model, as are two keys of one scene value (the
  // table would show a value the run did not use). A value the scene refuses is not (it is the
  // run's failure, recorded when it runs): the loader tells the two apart by err.override
  csOverride all[CS_STUDY_MAX_SET + CS_STUDY_MAX_KEYS];
  int nall = cs_studyOverrides(s, 0, all);
  for (int k = 0; k < sw->nmodel; k++) {
    csLoadOptions pre = {.contact_model = sw->use_model ? sw->model[k] : NULL,
                         .overrides = all,
                         .noverrides = nall,
                         .distinct = 1};
    memset(&err, 0, sizeof(err));
    csModel* mk = cs_loadScene(s->scene, &pre, &err);
    cs_deleteModel(mk);
    if (!mk && err.override > 0 && err.override <= nall) {
      int o = err.override - 1;
      char where[CS_MAX_PATH + 64];
      studyKeyPath(s, o, where, sizeof(where));
      fprintf(stderr, "contactsim: error: %s: %s: %s '%s': %s (scene %s, model %s)\n", s->file,
              where, o < s->nset ? "set" : "parameter", all[o].key, err.message, s->scene,
              sw->model[k]);
      return CS_EXIT_USAGE;
    }
  }
  return 0;
}


// The manifest DIR/sweep.json (the study's identity), written whole under a temporary name,
// then given its name: replacing the one there (--new), or only where there is none, so that
// of two sweeps started on one new directory one finds the other's. 0, or -1 with errno set.
static int writeManifest(const Sweep* sw, int replace) {
  char path[SWEEP_PATH];
  snprintf(path, sizeof(path), "%s/sweep.json", sw->dir);
  AtomicFile a;
  if (atomicOpen(&a, path) != 0) {
    return -1;
  }
  fputs("{\n", a.f);
  writeProvenance(a.f, sw, "  ");
  fputs("\n}\n", a.f);
  return replace ? atomicClose(&a) : atomicCloseNew(&a);
}


// remove the records and results of an earlier study (--new)
static int clearDirectory(const Sweep* sw) {
  char path[SWEEP_PATH];
  const char* sub[2] = {"runs", "trajectories"};
  for (int k = 0; k < 2; k++) {
    snprintf(path, sizeof(path), "%s/%s", sw->dir, sub[k]);
    DIR* d = opendir(path);
    if (!d) {
      continue;
    }
    struct dirent* e;
    while ((e = readdir(d)) != NULL) {
      size_t n = strlen(e->d_name);
      int ours = (n > 4 && strcmp(e->d_name + n - 4, ".rec") == 0) ||
                 (n > 4 && strcmp(e->d_name + n - 4, ".csv") == 0) || strstr(e->d_name, ".tmp");
      if (ours && e->d_name[0] != '\0') {
        char file[2 * SWEEP_PATH];
        snprintf(file, sizeof(file), "%s/%s", path, e->d_name);
        if (remove(file) != 0) {
          closedir(d);
          return -1;
        }
      }
    }
    closedir(d);
  }
  const char* files[2] = {"results.csv", "results.json"};
  for (int k = 0; k < 2; k++) {
    snprintf(path, sizeof(path), "%s/%s", sw->dir, files[k]);
    remove(path);
  }
  return 0;
}


static int checkDirectory(Sweep* sw, const char* path, int fresh);
static int checkEarlierJob(const Sweep* sw);


// The study and the scene must not be among what the sweep writes or clears in DIR: its own
// files there, and any file in the directories it fills (runs/, trajectories/, slurm/). A scene
// saved as DIR/results.json was removed by --new and the table written in its place. 0, or
// an exit code with the message printed.
static int refuseInputsInDirectory(const Sweep* sw) {
  static const char* const own[] = {".lock", ".tables.lock", "sweep.json", "results.csv",
                                     "results.json"};
  static const char* const filled[] = {"runs", "trajectories", "slurm"};
  const char* inputs[2][2] = {{sw->study_abs, "study"}, {sw->study->scene, "scene"}};
  for (int i = 0; i < 2; i++) {
    const char* input = inputs[i][0];
    char path[SWEEP_PATH], dir[SWEEP_PATH];
    const char* slash = strrchr(input, '/');
    snprintf(dir, sizeof(dir), "%.*s", slash ? (int)(slash - input) : 1, slash ? input : ".");
    const char* clash = NULL;
    int inside = 0;
    for (size_t k = 0; !clash && k < sizeof(own) / sizeof(own[0]); k++) {
      snprintf(path, sizeof(path), "%s/%s", sw->dir, own[k]);
      clash = cs_cliSameFile(input, path) ? own[k] : NULL;
    }
    for (size_t k = 0; !clash && k < sizeof(filled) / sizeof(filled[0]); k++) {
      snprintf(path, sizeof(path), "%s/%s", sw->dir, filled[k]);
      clash = cs_cliSameFile(dir, path) ? filled[k] : NULL;
      inside = clash != NULL;
    }
    if (clash) {
      fprintf(stderr, "contactsim: error: the %s %s is %s %s/%s%s, which the sweep writes or "
              "clears; keep the %s elsewhere, or give another --out\n",
              inputs[i][1], cs_cliSafe(input), inside ? "in its directory" : "its file",
              cs_cliSafe(sw->dir), clash, inside ? "/" : "", inputs[i][1]);
      return CS_EXIT_USAGE;
    }
  }
  return CS_EXIT_OK;
}

// the directory and its manifest: a new directory gets one; an existing one must have been made
// by this very study and scene, unless fresh (--new) clears it. Returns 0 or an exit code.
static int openDirectory(Sweep* sw, int fresh) {
  if (cs_cliMakeDirectory(sw->dir) != 0) {
    fprintf(stderr, "contactsim: error: cannot create directory %s: %s\n", cs_cliSafe(sw->dir),
            strerror(errno));
    return CS_EXIT_USAGE;
  }
  int inputs = refuseInputsInDirectory(sw);
  if (inputs != CS_EXIT_OK) {
    return inputs;
  }
  // One sweep of the whole study at a time per directory: it holds DIR/.lock exclusively while
  // it runs, array tasks (--task-range, which share a directory by design) hold it shared, from
  // before anything in the directory is looked at or cleared (--new) until the process ends.
  // Two sweeps of the study started together on one directory both ran every run; now the
  // second is refused. (Advisory locks are not honoured by every network file system: there
  // the records' checks still keep the table whole.)
  char path[SWEEP_PATH];
  snprintf(path, sizeof(path), "%s/.lock", sw->dir);
  int lock = sw->lock ? open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0666) : -1;
  if (lock >= 0 && flock(lock, sw->lock | LOCK_NB) != 0 && errno == EWOULDBLOCK) {
    close(lock);
    // a submission meeting a task of the job submitted before, running: that job is named,
    // as when all its tasks wait in the queue
    int earlier = sw->submitting ? checkEarlierJob(sw) : CS_EXIT_OK;
    if (earlier != CS_EXIT_OK) {
      return earlier;
    }
    fprintf(stderr, "contactsim: error: %s: another sweep is running in this directory%s; "
            "wait for it to end, or use another --out directory\n", cs_cliSafe(sw->dir),
            sw->lock == LOCK_SH ? " (of the whole study)" : "");
    return CS_EXIT_USAGE;
  }
  sw->lockfd = lock;
  // under the lock, before anything is cleared: two submissions at once see each other's job
  int earlier = sw->submitting ? checkEarlierJob(sw) : CS_EXIT_OK;
  if (earlier != CS_EXIT_OK) {
    return earlier;
  }
  snprintf(path, sizeof(path), "%s/runs", sw->dir);
  if (!sw->dry && cs_cliMakeDirectory(path) != 0) {
    fprintf(stderr, "contactsim: error: cannot create directory %s: %s\n", path, strerror(errno));
    return CS_EXIT_USAGE;
  }
  if (sw->trajectories && !sw->dry) {
    snprintf(path, sizeof(path), "%s/trajectories", sw->dir);
    if (cs_cliMakeDirectory(path) != 0) {
      fprintf(stderr, "contactsim: error: cannot create directory %s: %s\n", path, strerror(errno));
      return CS_EXIT_USAGE;
    }
  }
  snprintf(path, sizeof(path), "%s/sweep.json", sw->dir);
  // checked again when another sweep writes the manifest between the look and the write
  for (int tries = 0;; tries++) {
    int status = checkDirectory(sw, path, fresh);
    if (status != -1 || sw->dry) {
      return status == -1 ? 0 : status;
    }
    if (fresh && clearDirectory(sw) != 0) {
      fprintf(stderr, "contactsim: error: cannot clear %s: %s\n", cs_cliSafe(sw->dir),
              strerror(errno));
      return CS_EXIT_USAGE;
    }
    if (writeManifest(sw, fresh) == 0) {
      return 0;
    }
    if (errno != EEXIST || tries > 0) {
      fprintf(stderr, "contactsim: error: cannot write %s: %s\n", path, strerror(errno));
      return CS_EXIT_USAGE;
    }
  }
}


// openDirectory's checks of a directory made already: 0 when it is this study's (nothing to
// write), -1 when the manifest is to be written (none yet, or --new), else an exit code
static int checkDirectory(Sweep* sw, const char* path, int fresh) {
  // results or records without a manifest: the manifest was lost (the records may be another
  // study's, with nothing left to tell), or the directory was never a sweep's and its
  // results.csv is someone else's, which writing the tables would replace. The results and
  // records are looked for first and the manifest after them: a sweep writes its manifest
  // before any record, so a manifest missing once records are seen is missing indeed, even
  // while workers started together on a new directory are writing both (looked at the other
  // way round, a worker could see no manifest, then another worker's first record)
  if (!fresh) {
    char other[SWEEP_PATH];
    const char* found = NULL;
    const char* ours[2] = {"results.csv", "results.json"};
    for (int k = 0; k < 2 && !found; k++) {
      snprintf(other, sizeof(other), "%s/%s", sw->dir, ours[k]);
      found = fileExists(other) ? ours[k] : NULL;
    }
    snprintf(other, sizeof(other), "%s/runs", sw->dir);
    DIR* d = found ? NULL : opendir(other);
    for (struct dirent* e; d && !found && (e = readdir(d)) != NULL;) {
      size_t n = strlen(e->d_name);
      found = n > 4 && e->d_name[0] != '.' && strcmp(e->d_name + n - 4, ".rec") == 0
                  ? "records in runs/"
                  : NULL;
    }
    if (d) {
      closedir(d);
    }
    if (found && !fileExists(path)) {
      fprintf(stderr,
              "contactsim: error: %s holds %s but no manifest (sweep.json): it is not a "
              "sweep directory of this study; refusing to overwrite it. Use another --out "
              "directory, or --new to discard its results and records\n",
              cs_cliSafe(sw->dir), found);
      return CS_EXIT_USAGE;
    }
  }
  if (fileExists(path)) {
    csSweepManifest man;
    csError err;
    char studyHash[32], sceneHash[32];
    snprintf(studyHash, sizeof(studyHash), "fnv1a64:%016" PRIx64, sw->study->hash);
    snprintf(sceneHash, sizeof(sceneHash), "fnv1a64:%016" PRIx64, sw->scene_hash);
    int readable = cs_readSweepManifest(path, &man, &err) == 0;
    int same = readable && strcmp(man.study_hash, studyHash) == 0 &&
               strcmp(man.scene_hash, sceneHash) == 0 && man.nrun == sw->nrun;
    if (!same && !fresh) {
      if (!readable) {
        cs_cliPrintError(&err);
      }
      // another study file given for the directory (not the same file edited): the directory
      // is named as that other study's, rather than "the study file has changed since"
      // naming the file that has not. Only while that file is there: a study moved with its
      // directory and then edited is the same study changed, and a file that is gone is no
      // other study to name
      if (readable && strcmp(man.study_hash, studyHash) != 0 &&
          strcmp(man.study, sw->study_abs) != 0 && fileExists(man.study)) {
        fprintf(stderr,
                "contactsim: error: %s belongs to another study file, %s (%s is not that "
                "study); refusing to mix their runs. Use another --out directory, or --new "
                "to discard its runs\n",
                cs_cliSafe(sw->dir), cs_cliSafe(man.study), cs_cliSafe(sw->study_abs));
        return CS_EXIT_USAGE;
      }
      // a gather (which takes no lock, and no --new) has only its records to offer
      int gathering = !sw->lock && !sw->dry;
      fprintf(stderr,
              "contactsim: error: %s holds the runs of a different study or scene "
              "(%s): %s; refusing to mix them. %s\n",
              cs_cliSafe(sw->dir), cs_cliSafe(readable ? man.study : path),
              !readable                                ? "its manifest cannot be read"
              : strcmp(man.study_hash, studyHash) != 0 ? "the study file has changed since"
              : strcmp(man.scene_hash, sceneHash) != 0 ? "the scene file has changed since"
                                                       : "the number of runs differs",
              gathering ? "Put the study and the scene back as they were to gather these "
                          "records, or sweep the study with --new to discard them"
                        : "Use --new to discard them, or another --out directory");
      if (readable && strcmp(man.study_hash, studyHash) == 0 &&
          strcmp(man.scene_hash, sceneHash) != 0) {
        fprintf(stderr, "  (the scene: %s)\n", cs_cliSafe(sw->study->scene));
      }
      return CS_EXIT_USAGE;
    }
    if (same && !fresh) {
      // the same study given from where it is now (moved with its directory, or away from
      // it): the manifest says so from now on, so that --gather finds it
      if (strcmp(man.study, sw->study_abs) != 0 && writeManifest(sw, 1) != 0) {
        fprintf(stderr, "contactsim: error: cannot update %s: %s\n", cs_cliSafe(path),
                strerror(errno));
        return CS_EXIT_FAILURE;
      }
      return 0;
    }
  }
  return -1;
}


// the cores this process may run on (its affinity mask: taskset, cgroups, Slurm's allocation)
static int coreCount(void) {
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof(set), &set) == 0 && CPU_COUNT(&set) > 0) {
    return CPU_COUNT(&set);
  }
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n > 0 ? (int)n : 1;
}


// ---------------------------------------------------------------------------------------------
// Slurm

// a shell word in single quotes ('\'' for a quote inside)
static void shellQuote(FILE* f, const char* s) {
  fputc('\'', f);
  for (const char* p = s; *p; p++) {
    if (*p == '\'') {
      fputs("'\\''", f);
    } else {
      fputc(*p, f);
    }
  }
  fputc('\'', f);
}


// a shell word as it must be typed: as it is when it holds only characters the shell takes
// literally, else quoted (shellQuote), so that a command printed for the user can be pasted
static void shellWord(FILE* f, const char* s) {
  const char* plain = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_@%+=:,./-";
  if (s[0] && strspn(s, plain) == strlen(s)) {
    fputs(s, f);
  } else {
    shellQuote(f, s);
  }
}


// A word of a command printed on a terminal: as shellWord gives it, unless it holds a control
// character, which could move the cursor or fake output there: then escaped (cs_cliSafe), to be
// read rather than pasted
static void commandWord(FILE* f, const char* s) {
  for (const unsigned char* p = (const unsigned char*)s; *p; p++) {
    if (*p < 0x20 || *p == 0x7f) {
      fputs(cs_cliSafe(s), f);
      return;
    }
  }
  shellWord(f, s);
}


// a value of an #SBATCH line, as sbatch reads it: sbatch splits these lines at white space
// unless quoted, and takes a backslash as an escape (so a directory with a space in its name
// gave an --output of its first word); then, in a file name, it replaces % patterns, so a
// literal % is written %%
static void sbatchQuote(FILE* f, const char* s) {
  fputc('"', f);
  for (const char* p = s; *p; p++) {
    if (*p == '"' || *p == '\\' || *p == '\'') {
      fputc('\\', f);
    } else if (*p == '%') {
      fputc('%', f);
    }
    fputc(*p, f);
  }
  fputc('"', f);
}


// Run a Slurm command (args[0] found on PATH) and keep the first outSize - 1 bytes of its
// standard output in out (its standard error too when withErr; otherwise that goes to ours);
// the rest is read and dropped, so the command never blocks on a full pipe. The environment
// variables whose names start with unsetPrefix (nullable) are left out of the command's.
// Returns its exit status, 127 when it could not be run, -1 when it did not exit.
static int runSlurmCommand(char* const args[], int withErr, const char* unsetPrefix, char* out,
                           size_t outSize) {
  int pipefd[2];
  out[0] = '\0';
  if (pipe(pipefd) != 0) {
    return -1;
  }
  fflush(stdout);
  fflush(stderr);
  pid_t pid = fork();
  if (pid == 0) {
    dup2(pipefd[1], STDOUT_FILENO);
    if (withErr) {
      dup2(pipefd[1], STDERR_FILENO);
    }
    close(pipefd[0]);
    close(pipefd[1]);
    // the signals main() ignores are the program's own choice, not the Slurm command's
    signal(SIGPIPE, SIG_DFL);
    signal(SIGXFSZ, SIG_DFL);
    size_t plen = unsetPrefix ? strlen(unsetPrefix) : 0;
    for (char** e = environ; plen && *e;) {
      if (strncmp(*e, unsetPrefix, plen) == 0) {
        char name[256];
        snprintf(name, sizeof(name), "%.*s", (int)strcspn(*e, "="), *e);
        unsetenv(name);  // shifts environ down: look at the same place again
      } else {
        e++;
      }
    }
    execvp(args[0], args);
    fprintf(stderr, "contactsim: error: cannot run %s: %s\n", args[0], strerror(errno));
    _exit(127);
  }
  close(pipefd[1]);
  size_t got = 0;
  char drop[4096];
  ssize_t r;
  for (;;) {
    int keep = got < outSize - 1;
    r = keep ? read(pipefd[0], out + got, outSize - 1 - got) : read(pipefd[0], drop, sizeof(drop));
    if (r > 0) {
      got += keep ? (size_t)r : 0;
    } else if (r == 0 || errno != EINTR) {
      break;
    }
  }
  out[got] = '\0';
  close(pipefd[0]);
  int status = 0;
  while (pid > 0 && waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) {
      return -1;
    }
  }
  return pid > 0 && WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}


// Before a second submission: the job the last --slurm submitted (DIR/slurm/job_id) must have
// left the queue, or its tasks and the new ones would run the same runs side by side. The
// directory's lock keeps out a submission while a task runs, but not while tasks wait in the
// queue. Returns an exit code (CS_EXIT_OK: nothing of it is queued or running).
static int checkEarlierJob(const Sweep* sw) {
  char idPath[SWEEP_PATH + 16], job[64] = "";
  snprintf(idPath, sizeof(idPath), "%s/slurm/job_id", sw->dir);
  FILE* f = fopen(idPath, "r");
  if (!f) {
    return CS_EXIT_OK;  // never submitted from here
  }
  int got = fgets(job, sizeof(job), f) != NULL;
  fclose(f);
  // sbatch --parsable: "ID", or "ID;CLUSTER" for a job submitted to another cluster
  // (--slurm-opt=--clusters=NAME), whose queue is asked with --clusters too
  job[strcspn(job, "\r\n")] = '\0';
  char* cluster = strchr(job, ';');
  if (cluster) {
    *cluster++ = '\0';
  }
  if (!got || !job[0] || strspn(job, "0123456789") != strlen(job)) {
    return CS_EXIT_OK;  // not a job id: nothing to ask about
  }
  char clusterOpt[96] = "", scancelOpt[96] = "";
  if (cluster && cluster[0]) {
    snprintf(clusterOpt, sizeof(clusterOpt), "--clusters=%s", cluster);
    snprintf(scancelOpt, sizeof(scancelOpt), "--clusters=%s ", cluster);
  }
  // one line per queued or running entry (a pending array's tasks may share one), its state;
  // squeue --clusters heads its listing with a "CLUSTER: NAME" line, which is no state
  char* args[] = {"squeue", "--noheader", "--jobs", job, "--format=%T",
                  clusterOpt[0] ? clusterOpt : NULL, NULL};
  char out[4096];
  // without the user's defaults for squeue's listing (SQUEUE_STATES=all, SQUEUE_USERS, ...),
  // which would add finished jobs or hide queued ones: the listing asked for alone
  int status = runSlurmCommand(args, 1, "SQUEUE_", out, sizeof(out));
  if (status == 0) {
    // anything but a task that has finished or is finishing can still run a run; a line that
    // is not a state (a warning squeue wrote to its standard error) is no task
    static const char* const ended[] = {"COMPLETING", "COMPLETED", "CANCELLED", "FAILED",
                                        "TIMEOUT", "NODE_FAIL", "PREEMPTED", "BOOT_FAIL",
                                        "DEADLINE", "OUT_OF_MEMORY", NULL};
    // every state its live entries are in, each once (a running task, the pending rest)
    char states[256] = "";
    for (char* line = strtok(out, "\n"); line; line = strtok(NULL, "\n")) {
      line[strcspn(line, " \t\r")] = '\0';
      int state = line[0] && strspn(line, "ABCDEFGHIJKLMNOPQRSTUVWXYZ_") == strlen(line);
      for (int k = 0; state && ended[k]; k++) {
        state = strcmp(line, ended[k]) != 0;
      }
      char listed[sizeof(states) + 2];
      snprintf(listed, sizeof(listed), ", %s, ", states);
      char item[64];
      snprintf(item, sizeof(item), ", %.40s, ", line);
      if (state && !strstr(listed, item) && strlen(states) + strlen(line) + 3 < sizeof(states)) {
        snprintf(states + strlen(states), sizeof(states) - strlen(states), "%s%s",
                 states[0] ? ", " : "", line);
      }
    }
    if (states[0]) {
      fprintf(stderr,
              "contactsim: error: job %s, submitted earlier for %s, is still in Slurm's "
              "queue (%s); its tasks would run the same runs again beside the new ones. "
              "Wait for it to end, or cancel it (scancel %s%s), then submit again\n",
              job, cs_cliSafe(sw->dir), states, cs_cliSafe(scancelOpt), job);
      return CS_EXIT_FAILURE;
    }
    return CS_EXIT_OK;
  }
  // a job that ended long enough ago is forgotten by the controller
  if (status == 1 && strstr(out, "Invalid job id")) {
    return CS_EXIT_OK;
  }
  // its last line says most (squeue's "fatal: ..." after the lines leading to it)
  size_t end = strlen(out);
  while (end > 0 && (out[end - 1] == '\n' || out[end - 1] == '\r')) {
    out[--end] = '\0';
  }
  char* last = strrchr(out, '\n');
  last = last ? last + 1 : out;
  fprintf(stderr,
          "contactsim: error: cannot ask Slurm whether job %s, submitted earlier for %s, is "
          "still queued (squeue %s%s%s); if it has ended, remove %s and submit again\n",
          job, cs_cliSafe(sw->dir),
          status == 127 ? "not found" : status < 0 ? "did not exit" : "failed",
          last[0] && status != 127 ? ": " : "", status != 127 ? cs_cliSafe(last) : "",
          cs_cliSafe(idPath));
  return CS_EXIT_FAILURE;
}


// The line of sbatch --parsable's output that is the job's id ("ID" or "ID;CLUSTER": digits up
// to a ';' or the line's end), past anything a site's plugin printed before it; NULL when none is
static const char* jobIdLine(const char* out) {
  for (const char* line = out; *line;) {
    size_t digits = strspn(line, "0123456789");
    if (digits > 0 && strchr(";\r\n", line[digits])) {  // (strchr finds the text's end too)
      return line;
    }
    line += strcspn(line, "\n");
    line += *line == '\n';
  }
  return NULL;
}


// Write DIR/slurm/sweep.sbatch and submit the array of bundles that still have missing runs
// (all of them for a new sweep). Returns an exit code.
// The executable and the paths as the nodes will see them on the shared file system (exe and
// dirAbs, SWEEP_PATH bytes each), refused where a Slurm script cannot hold them. Checked before
// the directory is made (DIR as given, when it is not there yet) and again when the script is
// written. 0, or an exit code with the message printed.
static int slurmPaths(const Sweep* sw, char* exe, char* dirAbs) {
  ssize_t n = readlink("/proc/self/exe", exe, SWEEP_PATH - 1);
  if (n <= 0) {
    fprintf(stderr, "contactsim: error: cannot find the contactsim executable's path\n");
    return CS_EXIT_FAILURE;
  }
  exe[n] = '\0';
  if (!realpath(sw->dir, dirAbs)) {
    snprintf(dirAbs, SWEEP_PATH, "%s", sw->dir);
  }
  // the paths go into the script's comment and #SBATCH lines, which end at a line break: one
  // inside a path would end them early and make the rest of the path a shell command
  const char* paths[3] = {exe, sw->study_abs, dirAbs};
  for (int k = 0; k < 3; k++) {
    if (strpbrk(paths[k], "\n\r")) {
      fprintf(stderr,
              "contactsim: error: %s: a path with a line break cannot go into a Slurm batch "
              "script; rename it\n",
              cs_cliSafe(paths[k]));
      return CS_EXIT_USAGE;
    }
  }
  // the tasks' output files go under DIR (#SBATCH --output), where Slurm drops a backslash and,
  // when the path has one, leaves %A and %a unreplaced: every task then failed to start
  if (strchr(dirAbs, '\\')) {
    fprintf(stderr,
            "contactsim: error: %s: Slurm cannot write the tasks' output under a path with a "
            "backslash; use another --out directory\n",
            cs_cliSafe(dirAbs));
    return CS_EXIT_USAGE;
  }
  return CS_EXIT_OK;
}


static int submitSlurm(const Sweep* sw, long perTask, char** slurmOpts, int nslurmOpt, int dryRun) {
  char exe[SWEEP_PATH], dirAbs[SWEEP_PATH];
  int refused = slurmPaths(sw, exe, dirAbs);
  if (refused != CS_EXIT_OK) {
    return refused;
  }
  // automatic bundles: at most about 100 array tasks, and at least 10 runs per task
  if (perTask <= 0) {
    perTask = (sw->nrun + 99) / 100;
    perTask = perTask < 10 ? 10 : perTask;
  }
  long ntask = (sw->nrun + perTask - 1) / perTask;
  // the tasks whose bundle still has a run without a record
  char* list = malloc((size_t)ntask * 24 + 16);
  if (!list) {
    return CS_EXIT_FAILURE;
  }
  size_t len = 0;
  long nsubmit = 0, first = -1;
  list[0] = '\0';
  for (long t = 0; t <= ntask; t++) {
    int pending = 0;
    for (long i = t * perTask; t < ntask && i < (t + 1) * perTask && i < sw->nrun && !pending;
         i++) {
      pending = isPending(sw, i);
    }
    // compress consecutive tasks into ranges a-b
    if (pending && first < 0) {
      first = t;
    }
    if (!pending && first >= 0) {
      len += (size_t)sprintf(list + len, "%s%ld", len ? "," : "", first);
      if (t - 1 > first) {
        len += (size_t)sprintf(list + len, "-%ld", t - 1);
      }
      first = -1;
    }
    nsubmit += pending;
  }
  if (nsubmit == 0) {
    free(list);
    fprintf(stderr,
            "contactsim: sweep: every run of %s has a record already; nothing to "
            "submit (contactsim sweep --gather ",
            cs_cliSafe(sw->study_arg));
    commandWord(stderr, sw->dir);
    fputs(" merges them)\n", stderr);
    return CS_EXIT_OK;
  }
  // the batch script: task i runs the bundle [i R, min((i + 1) R, N))
  char slurmDir[SWEEP_PATH], script[SWEEP_PATH + 16];
  snprintf(slurmDir, sizeof(slurmDir), "%s/slurm", sw->dir);
  snprintf(script, sizeof(script), "%s/sweep.sbatch", slurmDir);
  if (cs_cliMakeDirectory(slurmDir) != 0) {
    fprintf(stderr, "contactsim: error: cannot create %s: %s\n", slurmDir, strerror(errno));
    free(list);
    return CS_EXIT_USAGE;
  }
  AtomicFile a;
  if (atomicOpen(&a, script) != 0) {
    fprintf(stderr, "contactsim: error: cannot write %s: %s\n", script, strerror(errno));
    free(list);
    return CS_EXIT_USAGE;
  }
  FILE* f = a.f;
  fputs("#!/bin/sh\n", f);
  fputs("#SBATCH --job-name=contactsim-sweep\n", f);
  char output[SWEEP_PATH + 32];
  snprintf(output, sizeof(output), "%s/slurm/", dirAbs);
  fputs("#SBATCH --output=", f);
  sbatchQuote(f, output);
  fputs("task-%A_%a.out\n", f);
  fprintf(f,
          "# Written by contactsim sweep --slurm for the study %s (%ld runs).\n"
          "# Array task i runs the runs i*R .. min((i+1)*R, N)-1 of the study; every run\n"
          "# leaves its record in the sweep directory (a shared file system), and the task\n"
          "# that finds every record present merges them into results.csv.\n",
          sw->study_abs, sw->nrun);
  fprintf(f, "R=%ld\nN=%ld\n", perTask, sw->nrun);
  fputs("A=$((SLURM_ARRAY_TASK_ID * R))\nB=$((A + R))\nif [ \"$B\" -gt \"$N\" ]; then B=$N; fi\n",
        f);
  fputs("exec ", f);
  shellQuote(f, exe);
  fputs(" sweep ", f);
  shellQuote(f, sw->study_abs);
  fputs(" --out ", f);
  shellQuote(f, dirAbs);
  fprintf(f, " --task-range \"$A:$B\" -j \"${SLURM_CPUS_PER_TASK:-1}\"%s%s\n",
          sw->trajectories ? " --trajectories" : "", sw->retry_failed ? " --retry-failed" : "");
  if (atomicClose(&a) != 0) {
    fprintf(stderr, "contactsim: error: cannot write %s\n", cs_cliSafe(script));
    free(list);
    return CS_EXIT_USAGE;
  }
  chmod(script, 0755);
  // sbatch --parsable --array=LIST [options] SCRIPT
  int argc = 0;
  char* args[64 + 8];
  char* arrayText = malloc(len + 16);
  if (!arrayText) {
    free(list);
    return CS_EXIT_FAILURE;
  }
  snprintf(arrayText, len + 16, "--array=%s", list);
  args[argc++] = "sbatch";
  args[argc++] = "--parsable";
  args[argc++] = arrayText;
  for (int k = 0; k < nslurmOpt && argc < 64 + 4; k++) {
    args[argc++] = slurmOpts[k];
  }
  // the script by a path that cannot pass for an option (a directory named -J...: sbatch took
  // the path as a job name and submitted what came on standard input)
  char scriptArg[SWEEP_PATH + 32];
  snprintf(scriptArg, sizeof(scriptArg), "%s%s", script[0] == '-' ? "./" : "", script);
  args[argc++] = scriptArg;
  args[argc] = NULL;
  fprintf(stderr,
          "contactsim: sweep: %ld run%s in %ld array task%s of up to %ld run%s (%ld to "
          "submit)\n  ",
          sw->nrun, plural(sw->nrun), ntask, plural(ntask), perTask, plural(perTask), nsubmit);
  // as a shell command, quoted where it must be (a directory with a space or a quote in its
  // name), so that it can be pasted (a control character is escaped instead: commandWord)
  for (int k = 0; k < argc; k++) {
    fputs(k ? " " : "", stderr);
    commandWord(stderr, args[k]);
  }
  fputc('\n', stderr);
  int code = CS_EXIT_OK;
  if (!dryRun) {
    // run sbatch and read the job id it prints (its errors go to the user as they are)
    char out[256];
    int status = runSlurmCommand(args, 0, NULL, out, sizeof(out));
    if (status != 0) {
      fprintf(stderr, "contactsim: error: sbatch failed%s\n",
              status == 127 ? " (is Slurm installed?)" : "");
      code = CS_EXIT_FAILURE;
    } else if (!jobIdLine(out)) {
      // sbatch --test-only, say: it ends well and submits nothing
      fprintf(stderr,
              "contactsim: error: sbatch printed no job id (a --slurm-opt such as --test-only?): "
              "nothing was submitted\n");
      code = CS_EXIT_FAILURE;
    } else {
      // "ID" or "ID;CLUSTER": the id alone to the user, both to the file
      const char* id = jobIdLine(out);
      memmove(out, id, strlen(id) + 1);
      out[strcspn(out, "\r\n")] = '\0';
      printf("%.*s\n", (int)strcspn(out, ";"), out);
      fprintf(stderr,
              "contactsim: sweep: submitted job %.*s; when it ends, results.csv is in "
              "%s (or run: contactsim sweep --gather ",
              (int)strcspn(out, ";"), out, cs_cliSafe(sw->dir));
      commandWord(stderr, sw->dir);
      fputs(")\n", stderr);
      // the job id, for scripts and for the next submission's check (checkEarlierJob)
      char idPath[SWEEP_PATH + 16];
      snprintf(idPath, sizeof(idPath), "%s/job_id", slurmDir);
      FILE* idf = fopen(idPath, "w");
      if (idf) {
        fprintf(idf, "%s\n", out);
        fclose(idf);
      }
    }
  } else {
    fprintf(stderr, "contactsim: sweep: dry run: %s written, nothing submitted\n",
            cs_cliSafe(script));
  }
  free(arrayText);
  free(list);
  return code;
}


// ---------------------------------------------------------------------------------------------
// the command

// "A:B" -> [A, B) (B may exceed the run count: it is clamped)
static int parseRange(const char* text, long* a, long* b) {
  // indices beyond a long (digits only) are past every run, as the clamp to the runs makes them:
  // strtol's clamp to LONG_MAX, with A <= B judged on the digits as written
  char* end = NULL;
  errno = 0;
  long x = strtol(text, &end, 10);
  if ((errno && errno != ERANGE) || end == text || *end != ':' ||
      !isdigit((unsigned char)text[0])) {
    return -1;
  }
  const char* p = end + 1;
  errno = 0;
  long y = strtol(p, &end, 10);
  if ((errno && errno != ERANGE) || end == p || *end || !isdigit((unsigned char)p[0])) {
    return -1;
  }
  // the digits compared without leading zeros: the longer number is the larger, else strcmp
  const char* da = text + strspn(text, "0");
  const char* db = p + strspn(p, "0");
  size_t la = strcspn(da, ":"), lb = strlen(db);
  if (la > lb || (la == lb && strncmp(da, db, la) > 0)) {
    return -1;
  }
  *a = x;
  *b = y;
  return 0;
}


// a whole number from 1 to max, the whole text (no sign, no fraction, no exponent: "1e300" is
// not a count); returns 0 or -1
static int parseCount(const char* text, long max, long* out) {
  char* end = NULL;
  errno = 0;
  long x = text[0] >= '0' && text[0] <= '9' ? strtol(text, &end, 10) : 0;
  if (errno || !end || *end || x < 1 || x > max) {
    return -1;
  }
  *out = x;
  return 0;
}


// what the sweep owns: the study and the free bodies' names and ids
static void freeSweep(Sweep* sw) {
  cs_deleteStudy(sw->study);
  free(sw->free_name);
  free(sw->free_id);
  sw->study = NULL;
  sw->free_name = NULL;
  sw->free_id = NULL;
}


// 1 when an sbatch argument sets the job array, as sbatch reads it: --array, or an abbreviation
// sbatch takes for it (--ar, --arr, --arra; with =LIST or not); -a, alone or after short options
// that take no argument in one word (-Ha0-1: --hold, then the array). A letter that takes an
// argument ends the word's options (-Jab is the job name "ab").
static int setsArray(const char* opt) {
  if (strncmp(opt, "--", 2) == 0) {
    size_t n = strcspn(opt, "=");
    return n >= 4 && n <= 7 && strncmp(opt, "--array", n) == 0;
  }
  for (const char* c = opt[0] == '-' ? opt + 1 : ""; *c; c++) {
    if (*c == 'a') {
      return 1;
    }
    if (!strchr("HhOQsuVvW", *c)) {
      return 0;
    }
  }
  return 0;
}


int cs_cliSweep(int argc, char** argv) {
  static const struct option longopts[] = {
      {"out", required_argument, NULL, 'o'},
      {"jobs", required_argument, NULL, 'j'},
      {"new", no_argument, NULL, 'N'},
      {"trajectories", no_argument, NULL, 'T'},
      {"task-range", required_argument, NULL, 'R'},
      {"gather", required_argument, NULL, 'G'},
      {"slurm", no_argument, NULL, 'S'},
      {"slurm-opt", required_argument, NULL, 'O'},
      {"runs-per-task", required_argument, NULL, 'P'},
      {"dry-run", no_argument, NULL, 'D'},
      {"retry-failed", no_argument, NULL, 'F'},
      {"quiet", no_argument, NULL, 'q'},
      {"help", no_argument, NULL, 'h'},
      {NULL, 0, NULL, 0},
  };
  Sweep sw;
  memset(&sw, 0, sizeof(sw));
  sw.lockfd = -1;
  const char* out = NULL;
  const char* gather = NULL;
  int jobs = 0, fresh = 0, slurm = 0, dryRun = 0;
  long rangeA = -1, rangeB = -1, perTask = 0;
  const char* rangeText = "";  // --task-range as given, for the messages
  char* slurmOpts[64];
  int nslurmOpt = 0;
  int c;
  // getopt's state reset, its messages ours (cs_cliOptionError), as in the other commands
  optind = 1;
  opterr = 0;
  while ((c = getopt_long(argc, argv, ":o:j:qh", longopts, NULL)) != -1) {
    long count;
    switch (c) {
      case 'o':
        out = optarg;
        break;
      case 'j':
        if (parseCount(optarg, 4096, &count) != 0) {
          fprintf(stderr,
                  "contactsim: error: -j needs a whole number of workers from 1 to "
                  "4096, not '%s'\n",
                  cs_cliSafe(optarg));
          return CS_EXIT_USAGE;
        }
        jobs = (int)count;
        break;
      case 'N':
        fresh = 1;
        break;
      case 'T':
        sw.trajectories = 1;
        break;
      case 'R':
        rangeText = optarg;
        if (parseRange(optarg, &rangeA, &rangeB) != 0) {
          fprintf(stderr,
                  "contactsim: error: --task-range needs A:B, run indices with "
                  "0 <= A <= B (runs A to B-1), not '%s'\n",
                  cs_cliSafe(optarg));
          return CS_EXIT_USAGE;
        }
        break;
      case 'G':
        gather = optarg;
        break;
      case 'S':
        slurm = 1;
        break;
      case 'O':
        if (nslurmOpt >= 64) {
          fprintf(stderr, "contactsim: error: at most 64 --slurm-opt\n");
          return CS_EXIT_USAGE;
        }
        slurmOpts[nslurmOpt++] = optarg;
        break;
      case 'P':
        if (parseCount(optarg, CS_STUDY_MAX_RUNS, &perTask) != 0) {
          fprintf(stderr,
                  "contactsim: error: --runs-per-task needs a whole number from 1 to %ld, "
                  "not '%s'\n",
                  CS_STUDY_MAX_RUNS, cs_cliSafe(optarg));
          return CS_EXIT_USAGE;
        }
        break;
      case 'D':
        dryRun = 1;
        break;
      case 'F':
        sw.retry_failed = 1;
        break;
      case 'q':
        sw.quiet = 1;
        break;
      case 'h':
        cs_cliCommandUsage(stdout, "sweep");
        return CS_EXIT_OK;
      default:
        return cs_cliOptionError(c, argv, "sweep");
    }
  }
  // the study: the one positional argument, or the one recorded in the directory (--gather)
  const char* studyPath = NULL;
  if (gather) {
    // a gather runs nothing: options about running would be silently ignored
    if (optind != argc || out || slurm || rangeA >= 0 || dryRun || fresh || jobs ||
        sw.trajectories || sw.retry_failed) {
      fprintf(stderr,
              "contactsim: error: sweep --gather DIR takes no study and none of --out, "
              "--slurm, --task-range, --dry-run, --new, -j, --trajectories, --retry-failed\n");
      return CS_EXIT_USAGE;
    }
    out = gather;
  } else {
    studyPath = cs_cliSceneArgument(argc, argv, "sweep");
    if (!studyPath) {
      return CS_EXIT_USAGE;
    }
    // the plan alone (--dry-run without --slurm) runs nothing and reads no directory: options
    // about running or about the directory would be silently ignored
    if (dryRun && !slurm &&
        (out || jobs || fresh || sw.trajectories || sw.retry_failed || rangeA >= 0)) {
      fprintf(stderr,
              "contactsim: error: sweep STUDY.json --dry-run prints the plan and runs nothing; it "
              "takes none of --out, -j, --new, --trajectories, --retry-failed, --task-range "
              "(with --slurm, --dry-run writes the batch script into --out DIR)\n");
      return CS_EXIT_USAGE;
    }
    if (!out && !(dryRun && !slurm)) {
      fprintf(stderr, "contactsim: error: sweep needs --out DIR, the directory of its results\n");
      return CS_EXIT_USAGE;
    }
    if (slurm && rangeA >= 0) {
      fprintf(stderr,
              "contactsim: error: --slurm and --task-range do not go together (the "
              "array tasks get their ranges from the batch script)\n");
      return CS_EXIT_USAGE;
    }
    // tasks run side by side: one of them clearing the directory would delete the others' work
    if (fresh && rangeA >= 0) {
      fprintf(stderr,
              "contactsim: error: --new does not go with --task-range (other tasks may "
              "be writing to the directory); clear it once before starting the tasks\n");
      return CS_EXIT_USAGE;
    }
  }
  if ((nslurmOpt || perTask) && !slurm) {
    fprintf(stderr, "contactsim: error: --slurm-opt and --runs-per-task go with --slurm\n");
    return CS_EXIT_USAGE;
  }
  // a task's workers are its CPUs (the script's -j is Slurm's count of them): -j was ignored
  if (slurm && jobs > 0) {
    fprintf(stderr,
            "contactsim: error: -j is the workers of a local sweep; an array task runs "
            "one worker per CPU Slurm gives it (--slurm-opt=--cpus-per-task=N)\n");
    return CS_EXIT_USAGE;
  }
  // the array is the sweep's to make, from the runs without a record (an --array of the user's
  // ran tasks past the last run, which failed)
  for (int k = 0; k < nslurmOpt; k++) {
    if (setsArray(slurmOpts[k])) {
      fprintf(stderr,
              "contactsim: error: --slurm-opt=%s: the sweep makes the job array itself, "
              "of the tasks that have runs to do; --runs-per-task sets their size\n",
              cs_cliSafe(slurmOpts[k]));
      return CS_EXIT_USAGE;
    }
  }
  // --dry-run without --slurm: the plan, a row per run with its parameter values, on stdout
  if (dryRun && !slurm) {
    int code = setUp(&sw, studyPath);
    if (code == 0) {
      fputs("index,point,model,repeat", stdout);
      for (int k = 0; k < sw.study->nkey; k++) {
        fputc(',', stdout);
        csvText(stdout, sw.study->key[k]);
      }
      fputc('\n', stdout);
      // a reader that stops reading (| head) ends the plan: quietly, as head's users expect
      // (SIGPIPE is ignored, main.c, so the write fails with EPIPE instead of killing us)
      int failed = 0;
      for (long i = 0; i < sw.nrun && !failed; i++) {
        writeRowStart(stdout, &sw, i);
        failed = fputc('\n', stdout) == EOF;
      }
      if (failed || fflush(stdout) != 0 || ferror(stdout)) {
        if (errno != EPIPE) {
          fprintf(stderr, "contactsim: error: could not write the runs to standard output: %s\n",
                  strerror(errno));
          code = CS_EXIT_FAILURE;
        } else {
          clearerr(stdout);  // said: the reader went away (main.c's last flush agrees)
        }
      }
    }
    freeSweep(&sw);
    return code;
  }
  if (strlen(out) >= sizeof(sw.dir) - 64) {
    fprintf(stderr, "contactsim: error: the --out path is too long\n");
    return CS_EXIT_USAGE;
  }
  snprintf(sw.dir, sizeof(sw.dir), "%s", out);
  // a gather reads the study's path from the directory's manifest
  csSweepManifest man;
  if (gather) {
    char path[SWEEP_PATH];
    snprintf(path, sizeof(path), "%s/sweep.json", sw.dir);
    csError err;
    if (cs_readSweepManifest(path, &man, &err) != 0) {
      cs_cliPrintError(&err);
      fprintf(stderr,
              "contactsim: error: %s is not a sweep directory (no readable "
              "sweep.json)\n",
              cs_cliSafe(sw.dir));
      return CS_EXIT_USAGE;
    }
    studyPath = man.study;
    // moved with its directory, or away from it: the sweep command given the study where it is
    // now does what a gather does when every run has a record (it runs none and writes the
    // tables), after checking it is the same study
    if (!fileExists(studyPath)) {
      fprintf(stderr,
              "contactsim: error: %s/sweep.json names the study %s, which is not there (moved or "
              "removed); give the study where it is now: contactsim sweep STUDY.json --out %s "
              "runs what is missing, if anything, and writes the tables\n",
              cs_cliSafe(sw.dir), cs_cliSafe(studyPath), cs_cliSafe(sw.dir));
      return CS_EXIT_USAGE;
    }
  }
  int code = setUp(&sw, studyPath);
  // a dry run of a submission writes the script and nothing else of a sweep's: no lock, no
  // manifest tying DIR to the study as it stands (checked against one made before, though)
  sw.lock = gather || (slurm && dryRun) ? 0 : rangeA >= 0 ? LOCK_SH : LOCK_EX;
  sw.submitting = slurm && !dryRun;
  sw.dry = slurm && dryRun;
  if (code == 0 && slurm) {
    char exe[SWEEP_PATH], dirAbs[SWEEP_PATH];
    code = slurmPaths(&sw, exe, dirAbs);
  }
  if (code == 0) {
    code = openDirectory(&sw, fresh && !gather);
  }
  if (code != 0) {
    freeSweep(&sw);
    return code;
  }

  if (gather) {
    long nfailed = 0, nmissing = 0;
    int merged = mergeResults(&sw, -1, &nfailed, &nmissing) == 0;
    code = !merged || nfailed || nmissing ? CS_EXIT_FAILURE : CS_EXIT_OK;
    int stopped = merged ? tablesStopped() : 0;
    if (stopped) {
      freeSweep(&sw);
      return stopped;
    }
    // the tables not written: mergeResults said why, and there is nothing to count
    if (!sw.quiet && merged) {
      fprintf(stderr,
              "contactsim: sweep: gathered %ld run%s (%ld ok, %ld failed, %ld missing) "
              "into %s/results.csv\n",
              sw.nrun, plural(sw.nrun), sw.nrun - nfailed - nmissing, nfailed, nmissing,
              cs_cliSafe(sw.dir));
    }
    freeSweep(&sw);
    return code;
  }
  if (slurm) {
    code = submitSlurm(&sw, perTask, slurmOpts, nslurmOpt, dryRun);
    freeSweep(&sw);
    return code;
  }

  // the runs of this invocation: a range, or all; those with a record are done already
  long a = rangeA >= 0 ? rangeA : 0;
  long b = rangeA >= 0 ? (rangeB < sw.nrun ? rangeB : sw.nrun) : sw.nrun;
  a = a < b ? a : b;
  long* todo = malloc(sizeof(long) * (size_t)(b - a + 1));
  if (!todo) {
    fprintf(stderr, "contactsim: error: out of memory\n");
    freeSweep(&sw);
    return CS_EXIT_FAILURE;
  }
  // the records looked for with the stop signals caught (a study of millions of runs takes
  // seconds here, and a SIGTERM ended the process with no word), and said when that takes long
  stopSignals(1);
  if (!sw.quiet && b - a >= 100000) {
    fprintf(stderr, "contactsim: sweep: looking for the records of %ld runs\n", b - a);
  }
  long ntodo = 0;
  for (long i = a; i < b && !sweepStop; i++) {
    if (isPending(&sw, i)) {
      todo[ntodo++] = i;
    }
    if ((i & 4095) == 0) {
      stopPending();
    }
  }
  stopPending();
  if (sweepStop) {
    fprintf(stderr, "contactsim: sweep: %s: stopped before any run started\n",
            cs_cliSignalName(sweepStop));
    free(todo);
    freeSweep(&sw);
    return 128 + (int)sweepStop;
  }
  jobs = jobs > 0 ? jobs : coreCount();
  char host[256] = "";
  gethostname(host, sizeof(host) - 1);
  if (!sw.quiet) {
    fprintf(stderr, "contactsim: sweep: %s: %ld run%s (%ld point%s x %d model%s x %d repeat%s)",
            sw.study_arg, sw.nrun, plural(sw.nrun), sw.study->npoint, plural(sw.study->npoint),
            sw.nmodel, plural(sw.nmodel), sw.study->repeats, plural(sw.study->repeats));
    // an empty range (A:A, or one past the last run) is no error, but is said as one: the
    // runs from A to A - 1 read as a mistake of the sweep's own
    if (rangeA >= 0 && a + 1 == b) {
      fprintf(stderr, "; this task: run %ld", a);
    } else if (rangeA >= 0 && a < b) {
      fprintf(stderr, "; this task: runs %ld to %ld", a, b - 1);
    } else if (rangeA >= 0 && rangeA >= sw.nrun) {
      fprintf(stderr, "; this task: no runs (--task-range %s starts past the last run, %ld)",
              rangeText, sw.nrun - 1);
    } else if (rangeA >= 0) {
      fprintf(stderr, "; this task: no runs (--task-range %s is empty)", rangeText);
    }
    fprintf(stderr, "; %ld to run, %ld done already; %d worker%s\n", ntodo, (b - a) - ntodo, jobs,
            plural(jobs));
  }
  double wall0 = wallNow();
  PoolCounts pool;
  int poolBroken = runPool(&sw, todo, ntodo, jobs, host, &pool) != 0;
  long ran = pool.ran, failed = pool.failed;
  double wall = wallNow() - wall0;
  free(todo);
  if (poolBroken) {
    freeSweep(&sw);
    return CS_EXIT_FAILURE;
  }
  // stopped by a signal: the records stand, the tables wait for the rerun that completes them
  if (sweepStop) {
    freeSweep(&sw);
    return 128 + (int)sweepStop;
  }
  // stopped because a run was left without a record (a record or a trajectory that could not be
  // written, a scene changed or removed: each worker said why): the same, with the counts, said
  // even with -q since the sweep did not do what it was asked
  if (pool.unwritten > 0) {
    fprintf(stderr,
            "contactsim: sweep: stopped, a run was left without a record (the error above says "
            "why): ran %ld run%s in %.3f s wall, %ld recorded (%ld failed) and %ld not; %ld not "
            "started; no tables written. Mend that (make room, raise the file size limit, put "
            "the scene back) and run the same command again: it runs the runs without a "
            "record\n",
            ran, plural(ran), wall, ran - pool.unwritten, failed, pool.unwritten, pool.unstarted);
    freeSweep(&sw);
    return CS_EXIT_FAILURE;
  }
  if (!sw.quiet) {
    fprintf(stderr, "contactsim: sweep: ran %ld run%s (%ld failed) in %.3f s wall\n", ran,
            plural(ran), failed, wall);
  }
  // the merged tables: after a whole sweep, and after the task that completes the set
  long present = 0;
  for (long i = 0; i < sw.nrun; i++) {
    present += readRecord(&sw, i, NULL, NULL, NULL) != RECORD_NONE;
  }
  long nfailed = 0, nmissing = sw.nrun - present;
  if (rangeA < 0 || present == sw.nrun) {
    if (mergeResults(&sw, ran, &nfailed, &nmissing) != 0) {
      freeSweep(&sw);
      return CS_EXIT_FAILURE;
    }
    int stopped = tablesStopped();
    if (stopped) {
      freeSweep(&sw);
      return stopped;
    }
    if (!sw.quiet) {
      fprintf(stderr,
              "contactsim: sweep: %ld run%s: %ld ok, %ld failed, %ld missing; results "
              "in %s/results.csv and results.json\n",
              sw.nrun, plural(sw.nrun), sw.nrun - nfailed - nmissing, nfailed, nmissing,
              cs_cliSafe(sw.dir));
    }
    code = nfailed || nmissing ? CS_EXIT_FAILURE : CS_EXIT_OK;
  }
  // an array task answers for its own runs, whether or not it is the one that wrote the tables
  // (a task whose runs all succeeded showed as FAILED for failures in other tasks)
  if (rangeA >= 0) {
    code = failed ? CS_EXIT_FAILURE : CS_EXIT_OK;
  }
  freeSweep(&sw);
  return code;
}
