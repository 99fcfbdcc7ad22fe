// study_load.h: parameter studies (`contactsim sweep`): the study file (docs/sweep-format.md)
// read into a plan of runs, the sweep directory's manifest, and the hashes and random numbers
// that keep a study identical on every machine (private to the library and the executable).
//
// A study is the cartesian product of its axes (each an explicit list of points, a linear or
// logarithmic range, or seeded random samples), times its contact models, times its repeats.
// Every point is expanded here once, into the JSON text the scene loader takes as a csOverride,
// so a run is fully described by its index: cs_studyRun decodes it.
#ifndef CONTACTSIM_STUDY_LOAD_H
#define CONTACTSIM_STUDY_LOAD_H

#include "contactsim/contactsim.h"

#include <stdint.h>
#include <stdio.h>

#define CS_STUDY_MAX_MODELS 32       // contact models of one study
#define CS_STUDY_MAX_KEYS 64         // parameter keys (over every axis) of one study
#define CS_STUDY_MAX_AXES 32         // axes of the grid
#define CS_STUDY_MAX_SET 64          // fixed overrides ("set")
#define CS_STUDY_MAX_VALUE 256       // longest JSON text of one value, with the terminating zero
#define CS_STUDY_MAX_RUNS 10000000L    // most runs of one study (a guard against typos in "n")
#define CS_STUDY_MAX_VALUES 20000000L  // most values (points x keys, over every axis) of one study

// How the points of an axis were given.
typedef enum csStudyAxisKind {
  CS_STUDY_VALUES = 0,  // an explicit list ("values")
  CS_STUDY_RANGE,       // n points from..to, linear or logarithmic ("range")
  CS_STUDY_RANDOM,      // n seeded random samples ("random")
} csStudyAxisKind;

// One axis of the grid: npoint points, each giving a value to nkey keys.
typedef struct csStudyAxis {
  csStudyAxisKind kind;
  int keyadr;     // first key of the axis in csStudy.key
  int nkey;       // keys the axis sets together
  int keylist;    // 1: the keys were given as a list ("keys"), 0: as one "key" (or random)
  long npoint;    // points of the axis
  long valueadr;  // first value in csStudy.value_adr: (npoint x nkey), point-major
} csStudyAxis;

// A study, read from its file. Plain arrays of fixed size for the small parts; the values (one
// per point and key) in three arrays allocated by the loader and freed by cs_deleteStudy.
typedef struct csStudy {
  char file[CS_MAX_PATH];                        // study file as given
  char scene[2 * CS_MAX_PATH];                   // scene path, resolved against the study's folder
  uint64_t hash;                                 // FNV-1a 64 of the study file's bytes
  uint64_t seed;                                 // seed of the random samples
  int repeats;                                   // runs per point and model (>= 1)
  int nmodel;                                    // models listed (0: every block of the scene)
  char model[CS_STUDY_MAX_MODELS][CS_MAX_NAME];  // (nmodel) contact model names
  int nset;                                      // fixed overrides applied to every run
  char set_key[CS_STUDY_MAX_SET][CS_MAX_PATH];   // (nset) key paths
  char set_value[CS_STUDY_MAX_SET][CS_STUDY_MAX_VALUE];  // (nset) JSON texts
  int nkey;                                              // parameter keys over all axes
  char key[CS_STUDY_MAX_KEYS][CS_MAX_PATH];              // (nkey) key paths, in file order
  int naxis;                                             // axes of the grid
  csStudyAxis axis[CS_STUDY_MAX_AXES];                   // (naxis)
  long nvalue;                                           // values over all axes
  long* value_adr;       // (nvalue) offset of each value's text in text
  double* value_number;  // (nvalue) the value when it is a number, else NAN
  char* text;            // (ntext) zero-terminated JSON texts
  long ntext;            // bytes used in text
  long text_capacity;    // bytes allocated for text
  long value_capacity;   // entries allocated for value_adr, value_number
  long npoint;           // points of the grid (product of the axes')
} csStudy;

// Load a study file. Returns NULL with err filled (file, JSON path, line, column, message).
// The caller frees the study with cs_deleteStudy.
csStudy* cs_loadStudy(const char* path, csError* err);
// Free a study (nullable).
void cs_deleteStudy(csStudy* s);

// Number of runs of s with nmodel models: npoint x nmodel x repeats.
long cs_studyRunCount(const csStudy* s, int nmodel);
// Decode run `index` (0 <= index < cs_studyRunCount): the grid point, the model and the repeat.
// Runs are ordered point by point (the first axis varies slowest), then model, then repeat.
void cs_studyDecode(const csStudy* s, int nmodel, long index, long* point, int* model, int* repeat);
// The value of key k at grid point `point`: its JSON text, and its number (NAN for a value that
// is not a number) through number (nullable). s not NULL.
const char* cs_studyValue(const csStudy* s, long point, int k, double* number);
// Fill ov (room for CS_STUDY_MAX_SET + CS_STUDY_MAX_KEYS entries) with the overrides of grid
// point `point`: the fixed ones first, then each key's value. Returns their count. The texts
// point into s, which must outlive ov.
int cs_studyOverrides(const csStudy* s, long point, csOverride* ov);

// FNV-1a 64 of n bytes, continuing from h (start with CS_FNV_OFFSET).
#define CS_FNV_OFFSET 14695981039346656037ULL
uint64_t csu_fnv1a(uint64_t h, const void* bytes, size_t n);
// FNV-1a 64 of a file's bytes; returns 0 and sets *hash, or -1 when it cannot be read.
int csu_hashFile(const char* path, uint64_t* hash);

// x as the shortest decimal text that reads back to the same double (cs_formatShortest, the
// CSV writer's), zero-terminated, into buf (size >= CS_SHORTEST_MAX).
void csu_shortestNumber(double x, char* buf, size_t size);

// A small random generator, the same on every machine: xoshiro256** seeded through splitmix64
// (Blackman and Vigna).
typedef struct csRandom {
  uint64_t s[4];
} csRandom;
// Seed a generator.
void csu_randomSeed(csRandom* r, uint64_t seed);
// Next 64 random bits.
uint64_t csu_randomNext(csRandom* r);
// Uniform double in [0, 1) with 53 random bits.
double csu_randomUniform(csRandom* r);
// Standard normal deviate (Marsaglia's polar method).
double csu_randomNormal(csRandom* r);

// 1 when the n bytes of text are one whole JSON value (a run's entry in a sweep record, checked
// before it is copied into results.json), else 0.
int csu_isJsonText(const char* text, size_t n);

// The offset of the first escape \u0000 inside a JSON string of the n bytes of text, or n when
// there is none. cJSON decodes it into a C string, which ends there: a name "a\u0000b" would
// be read as "a", so the loaders refuse such text instead.
size_t csu_jsonNulEscape(const char* text, size_t n);

// JSON text of n bytes that cJSON would read cut short: a NUL byte in it, or the escape \u0000
// in a string. 0, or -1 with err's message, line and column set at the first one.
int csu_jsonNulProblem(const char* text, size_t n, csError* err);

// The offset of the first thing in the n bytes of JSON text that RFC 8259 does not allow
// though cJSON reads it, or n when there is none: a number such as 010, -01, 1., -.5 or 1.e5,
// or a control character (below U+0020) not escaped in a string; why (size bytes, nullable)
// then says what and what is wrong with it. n is the end of the text, or where cJSON's parse
// stopped (only what it read is JSON to scan).
size_t csu_jsonNotStrict(const char* text, size_t n, char* why, size_t size);

// The same as an error: 0, or -1 with err's message ("malformed JSON at line L, column C: ..."),
// line and column set at the first such thing.
int csu_jsonStrictProblem(const char* text, size_t n, csError* err);

// The error of JSON text of n bytes that cJSON refused, stopping at offset pos: err's message
// ("malformed JSON at line L, column C", with the reason where one is known), line and column,
// at the character at fault (where cJSON stopped, or the one before where it read a key that is
// no string).
void csu_jsonSyntaxError(const char* text, size_t n, size_t pos, csError* err);
// The same, as the offset of the character at fault and *why, the reason where one is known
// (" (unexpected end of the text)", ": a number has no '+' in front ..."), else "".
size_t csu_jsonErrorAt(const char* text, size_t n, size_t pos, const char** why);

// How many arrays and objects are open at byte offset end of JSON text (strings skipped), and
// into *innermost (nullable) the innermost one's opener, '[' or '{' (0 at the top level, or
// deeper than 1024 levels), or '"' when end lies inside a string.
int csu_jsonNesting(const char* text, size_t end, char* innermost);

// The 1-based line and column of byte offset pos in text.
void csu_lineColumn(const char* text, size_t pos, int* line, int* column);

// The length of the valid UTF-8 sequence at s (1 to 4), or 0 when s does not start one (a stray
// continuation byte, an overlong form, a surrogate, beyond U+10FFFF, or cut short by the end of
// the string): what the loaders, messages and JSON writers pass through as text.
int csu_utf8Length(const unsigned char* s);

// s written to f as a JSON string literal: quotes and backslashes escaped, control characters
// as \n or six-character unicode escapes, valid UTF-8 as it is, and a byte that is not part of
// valid UTF-8 as U+FFFD (JSON text must be UTF-8, RFC 8259). With html, also '<', '>' and '&'
// escaped, so that the literal can sit inside an HTML <script> element.
void csu_jsonString(FILE* f, const char* s, int html);

// The JSON string literal that starts at open (its opening quote), as JSON reads it (its
// escapes undone), into out (size bytes, always terminated; cut to fit): the reverse of
// csu_jsonString. 1, or 0 with out empty when open holds no whole string literal.
int csu_jsonStringValue(const char* open, char* out, size_t size);

// What a sweep directory's manifest (DIR/sweep.json) records about the study that made it.
typedef struct csSweepManifest {
  char study[4 * CS_MAX_PATH];  // absolute path of the study file
  char study_hash[32];          // "fnv1a64:" and 16 hex digits
  char scene_hash[32];          // the same, of the scene file
  long nrun;                    // runs of the study
} csSweepManifest;
// Read DIR/sweep.json's identifying fields. Returns 0, or -1 with err filled.
int cs_readSweepManifest(const char* path, csSweepManifest* out, csError* err);

#endif  // CONTACTSIM_STUDY_LOAD_H
