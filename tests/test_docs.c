// test_docs.c: docs/contact-models.md agrees with the force kinds' parameter tables.
//
// For every kind except the diagnostic "commit_counter" the document must have a heading naming
// the kind in backticks, and within that heading's section a key table (a Markdown table whose
// header starts with "key") holding exactly one row per csParamInfo entry: the key in backticks
// in the first cell, the type in the second and the default in the third. Defaults are compared
// numerically with the table's value as C's %g prints it; required keys and keys that may be
// left out show "—"; body, plane and frame keys only need their row. The kind's report columns
// (extranames, as `E.<name>`) and discrete variables must be mentioned in its section. A
// second test feeds the checker altered copies of the document (a changed default, a missing
// row, an unknown row) and expects it to complain, so the check cannot silently pass.
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "helpers.h"

#define DOC_PATH CS_SOURCE_ROOT "/docs/contact-models.md"
#define MAX_CELLS 8
#define MAX_CELL 256
#define DASH "\xe2\x80\x94"  // the em dash "—" in UTF-8

// the document split into lines (one mutable buffer, lines point into it)
typedef struct docLines {
  char* text;
  char** line;
  int n;
} docLines;


// ---------------------------------------------------------------------------------------------
// reading and splitting

static char* readFile(const char* path) {
  FILE* f = fopen(path, "rb");
  if (!f) {
    return NULL;
  }
  fseek(f, 0, SEEK_END);
  long size = ftell(f);
  fseek(f, 0, SEEK_SET);
  char* s = malloc((size_t)size + 1);
  if (s && fread(s, 1, (size_t)size, f) != (size_t)size) {
    free(s);
    s = NULL;
  }
  if (s) {
    s[size] = '\0';
  }
  fclose(f);
  return s;
}


// split a copy of text into lines
static docLines splitLines(const char* text) {
  docLines d;
  size_t len = strlen(text);
  d.text = malloc(len + 1);
  memcpy(d.text, text, len + 1);
  int cap = 1;
  for (size_t i = 0; i < len; i++) {
    cap += d.text[i] == '\n';
  }
  d.line = malloc(sizeof(char*) * (size_t)cap);
  d.n = 0;
  char* p = d.text;
  for (;;) {
    d.line[d.n++] = p;
    char* nl = strchr(p, '\n');
    if (!nl) {
      break;
    }
    *nl = '\0';
    p = nl + 1;
  }
  return d;
}


static void freeLines(docLines* d) {
  free(d->text);
  free(d->line);
}


// number of leading '#' of a Markdown heading ("## x" -> 2), 0 for other lines
static int headingLevel(const char* line) {
  int n = 0;
  while (line[n] == '#') {
    n++;
  }
  return (n > 0 && line[n] == ' ') ? n : 0;
}


// 1 for lines that open or close a fenced code block
static int isFence(const char* line) {
  return strncmp(line, "```", 3) == 0;
}


// the cells of a table row "| a | b |", trimmed; returns their number
static int splitRow(const char* line, char cell[MAX_CELLS][MAX_CELL]) {
  const char* p = line;
  while (*p == ' ') {
    p++;
  }
  if (*p != '|') {
    return 0;
  }
  p++;
  int n = 0;
  while (*p && n < MAX_CELLS) {
    const char* bar = strchr(p, '|');
    if (!bar) {
      break;  // text after the last bar is not a cell
    }
    // trim both ends
    const char* a = p;
    const char* b = bar;
    while (a < b && *a == ' ') {
      a++;
    }
    while (b > a && b[-1] == ' ') {
      b--;
    }
    size_t len = (size_t)(b - a);
    if (len >= MAX_CELL) {
      len = MAX_CELL - 1;
    }
    memcpy(cell[n], a, len);
    cell[n][len] = '\0';
    n++;
    p = bar + 1;
  }
  return n;
}


// ---------------------------------------------------------------------------------------------
// the checker

// counts problems and prints them when verbose
typedef struct checker {
  int problems;
  int verbose;
} checker;


__attribute__((format(printf, 2, 3))) static void problem(checker* c, const char* fmt, ...) {
  c->problems++;
  if (c->verbose) {
    va_list ap;
    va_start(ap, fmt);
    printf("docs/contact-models.md: ");
    vprintf(fmt, ap);
    printf("\n");
    va_end(ap);
  }
}


// the section of the heading that names kind `name` in backticks: lines [*start, *end)
static int findSection(const docLines* d, const char* name, int* start, int* end) {
  char tag[MAX_CELL];
  snprintf(tag, sizeof(tag), "`%s`", name);
  int found = 0, level = 0, fence = 0;
  *start = *end = -1;
  for (int i = 0; i < d->n; i++) {
    if (isFence(d->line[i])) {
      fence = !fence;
      continue;
    }
    int h = fence ? 0 : headingLevel(d->line[i]);
    if (!h) {
      continue;
    }
    // a heading at the same or a higher level closes the section
    if (found == 1 && *end < 0 && h <= level) {
      *end = i;
    }
    if (strstr(d->line[i], tag)) {
      found++;
      if (found == 1) {
        *start = i;
        level = h;
      }
    }
  }
  if (found == 1 && *end < 0) {
    *end = d->n;
  }
  return found;
}


// 1 if text occurs in lines [start, end)
static int sectionContains(const docLines* d, int start, int end, const char* text) {
  for (int i = start; i < end; i++) {
    if (strstr(d->line[i], text)) {
      return 1;
    }
  }
  return 0;
}


// the type column each parameter type must show (the names of docs/scene-format.md)
static const char* typeName(csParamType t) {
  switch (t) {
    case CS_PARAM_REAL: return "number";
    case CS_PARAM_VEC3: return "[3 numbers]";
    case CS_PARAM_FRAME: return "FRAME";
    case CS_PARAM_BODY: return "body name";
    case CS_PARAM_PLANE: return "plane name";
    case CS_PARAM_INT: return "integer";
    case CS_PARAM_CHOICE: return "string";
  }
  return "?";
}


// one number of a default cell equals the table's value as %g prints it (or exactly)
static int sameNumber(double doc, double value) {
  char buf[64];
  snprintf(buf, sizeof(buf), "%g", value);
  double printed = strtod(buf, NULL);
  return doc == printed || doc == value;
}


// parse the whole of s as one number
static int parseNumber(const char* s, double* out) {
  char* endp = NULL;
  *out = strtod(s, &endp);
  return endp != s && *endp == '\0' && isfinite(*out);
}


// parse "[a, b, c]"
static int parseVec3(const char* s, double out[3]) {
  char* endp = NULL;
  const char* p = s;
  if (*p++ != '[') {
    return 0;
  }
  for (int i = 0; i < 3; i++) {
    out[i] = strtod(p, &endp);
    if (endp == p) {
      return 0;
    }
    p = endp;
    while (*p == ' ') {
      p++;
    }
    if (*p != (i < 2 ? ',' : ']')) {
      return 0;
    }
    p++;
  }
  return *p == '\0';
}


// the default cell of a row against the parameter's entry
static void checkDefault(checker* c, const char* kind, const csParamInfo* p, const char* cell) {
  // required keys, and keys that may be left out, show a dash
  if (p->flags & (CS_PARAM_REQUIRED | CS_PARAM_OPTIONAL)) {
    if (strcmp(cell, DASH) != 0) {
      problem(c, "%s.%s: default shown as '%s', expected the dash of a required or unset key",
              kind, p->key, cell);
    }
    return;
  }
  switch (p->type) {
    case CS_PARAM_REAL: {
      double v;
      if (!parseNumber(cell, &v) || !sameNumber(v, p->value)) {
        problem(c, "%s.%s: default shown as '%s', the parameter table says %g", kind, p->key,
                cell, p->value);
      }
      break;
    }
    case CS_PARAM_VEC3: {
      double v[3];
      if (!parseVec3(cell, v) || !sameNumber(v[0], p->value) || !sameNumber(v[1], p->value) ||
          !sameNumber(v[2], p->value)) {
        problem(c, "%s.%s: default shown as '%s', the parameter table says [%g, %g, %g]", kind,
                p->key, cell, p->value, p->value, p->value);
      }
      break;
    }
    case CS_PARAM_INT: {
      double v;
      if (!parseNumber(cell, &v) || v != (double)(int)p->value) {
        problem(c, "%s.%s: default shown as '%s', the parameter table says %d", kind, p->key,
                cell, (int)p->value);
      }
      break;
    }
    case CS_PARAM_CHOICE: {
      // the default string, in double quotes
      const csForceKind* k = cs_forceKind(cs_forceKindByName(kind));
      const char* const* names = k && k->choices ? k->choices[p - k->params] : NULL;
      char want[64] = "?";
      if (names) {
        snprintf(want, sizeof(want), "\"%s\"", names[(int)p->value]);
      }
      if (strcmp(cell, want) != 0) {
        problem(c, "%s.%s: default shown as '%s', the parameter table says %s", kind, p->key,
                cell, want);
      }
      break;
    }
    case CS_PARAM_BODY:
    case CS_PARAM_PLANE:
    case CS_PARAM_FRAME:
      break;  // a name or a frame: the row only has to exist
  }
}


// everything the document must say about one kind
static void checkKind(checker* c, const docLines* d, const csForceKind* k) {
  int start, end;
  int found = findSection(d, k->name, &start, &end);
  if (found != 1) {
    problem(c, "kind %s: %d headings name it in backticks, expected one", k->name, found);
    return;
  }

  // the rows of the key tables in the section: a table's first row is its header, the second
  // its separator; a table is a key table when its header's first cell is "key"
  int seen[64] = {0};
  int nparams = k->nparams < 64 ? k->nparams : 64;
  int fence = 0, prevRow = 0, separator = 0, keyTable = 0;
  for (int i = start + 1; i < end; i++) {
    const char* line = d->line[i];
    if (isFence(line)) {
      fence = !fence;
    }
    char cell[MAX_CELLS][MAX_CELL];
    int ncell = fence ? 0 : splitRow(line, cell);
    if (ncell == 0) {
      prevRow = 0;
      continue;
    }
    if (!prevRow) {
      prevRow = 1;
      separator = 1;
      keyTable = strcmp(cell[0], "key") == 0;
      continue;
    }
    if (separator) {
      separator = 0;
      continue;
    }
    if (!keyTable) {
      continue;
    }

    // a key row: `key` | type | default | meaning
    size_t len = strlen(cell[0]);
    if (len < 3 || cell[0][0] != '`' || cell[0][len - 1] != '`' || ncell < 4) {
      problem(c, "kind %s: key table row '%s' is not `key` | type | default | meaning", k->name,
              line);
      continue;
    }
    cell[0][len - 1] = '\0';
    const char* key = cell[0] + 1;
    int idx = -1;
    for (int j = 0; j < nparams; j++) {
      if (strcmp(k->params[j].key, key) == 0) {
        idx = j;
      }
    }
    if (idx < 0) {
      problem(c, "kind %s: row for '%s' but the parameter table has no such key", k->name, key);
      continue;
    }
    if (seen[idx]++) {
      problem(c, "kind %s: key '%s' has more than one row", k->name, key);
      continue;
    }
    const csParamInfo* p = &k->params[idx];
    if (strcmp(cell[1], typeName(p->type)) != 0) {
      problem(c, "%s.%s: type shown as '%s', expected '%s'", k->name, p->key, cell[1],
              typeName(p->type));
    }
    checkDefault(c, k->name, p, cell[2]);
  }

  // every key has a row
  for (int j = 0; j < nparams; j++) {
    if (!seen[j]) {
      problem(c, "kind %s: key '%s' is not documented (no row with `%s` in its key table)",
              k->name, k->params[j].key, k->params[j].key);
    }
  }

  // report columns and discrete variables are mentioned in the section
  for (int j = 0; j < k->nextra; j++) {
    char tag[MAX_CELL];
    snprintf(tag, sizeof(tag), "`E.%s`", k->extranames[j]);
    if (!sectionContains(d, start, end, tag)) {
      problem(c, "kind %s: report column %s is not described in its section", k->name, tag);
    }
  }
  for (int j = 0; j < k->discnum; j++) {
    char tag[MAX_CELL];
    snprintf(tag, sizeof(tag), "`%s`", k->discnames[j]);
    if (!sectionContains(d, start, end, tag)) {
      problem(c, "kind %s: discrete variable %s is not described in its section", k->name, tag);
    }
  }
}


// check the whole document text; returns the number of problems
static int checkDocument(const char* text, int verbose) {
  checker c = {0, verbose};
  docLines d = splitLines(text);
  for (int id = 0; id < CS_FORCE_KIND_COUNT; id++) {
    const csForceKind* k = cs_forceKind(id);
    if (!k || strcmp(k->name, "commit_counter") == 0) {
      continue;  // a diagnostic element, not for users
    }
    checkKind(&c, &d, k);
  }
  freeLines(&d);
  return c.problems;
}


// ---------------------------------------------------------------------------------------------
// alterations of the document for the self-test

// the table row of `key` in the section of kind: a copy of text with that row's default cell
// replaced by newDefault (or the row removed when newDefault is NULL); NULL if not found
static char* alterRow(const char* text, const char* kind, const char* key,
                      const char* newDefault) {
  docLines d = splitLines(text);
  int start, end;
  char* out = NULL;
  if (findSection(&d, kind, &start, &end) == 1) {
    char prefix[MAX_CELL];
    snprintf(prefix, sizeof(prefix), "| `%s` |", key);
    for (int i = start; i < end && !out; i++) {
      if (strncmp(d.line[i], prefix, strlen(prefix)) != 0) {
        continue;
      }
      // rebuild the text line by line, rewriting line i
      size_t cap = strlen(text) + 256;
      out = malloc(cap);
      out[0] = '\0';
      for (int j = 0; j < d.n; j++) {
        if (j == i) {
          if (!newDefault) {
            continue;
          }
          char cell[MAX_CELLS][MAX_CELL];
          int n = splitRow(d.line[j], cell);
          strcat(out, "|");
          for (int m = 0; m < n; m++) {
            strcat(out, " ");
            strcat(out, m == 2 ? newDefault : cell[m]);
            strcat(out, " |");
          }
        } else {
          strcat(out, d.line[j]);
        }
        if (j + 1 < d.n) {
          strcat(out, "\n");
        }
      }
    }
  }
  freeLines(&d);
  return out;
}


// a copy of text with one extra key row inserted after the row of `after` in kind's section
static char* addRow(const char* text, const char* kind, const char* after, const char* row) {
  docLines d = splitLines(text);
  int start, end;
  char* out = NULL;
  if (findSection(&d, kind, &start, &end) == 1) {
    char prefix[MAX_CELL];
    snprintf(prefix, sizeof(prefix), "| `%s` |", after);
    for (int i = start; i < end && !out; i++) {
      if (strncmp(d.line[i], prefix, strlen(prefix)) != 0) {
        continue;
      }
      out = malloc(strlen(text) + strlen(row) + 8);
      out[0] = '\0';
      for (int j = 0; j < d.n; j++) {
        strcat(out, d.line[j]);
        strcat(out, "\n");
        if (j == i) {
          strcat(out, row);
          strcat(out, "\n");
        }
      }
    }
  }
  freeLines(&d);
  return out;
}


// the entry of key in kind's parameter table
static const csParamInfo* paramOf(int kind, const char* key) {
  const csForceKind* k = cs_forceKind(kind);
  for (int i = 0; i < k->nparams; i++) {
    if (strcmp(k->params[i].key, key) == 0) {
      return &k->params[i];
    }
  }
  return NULL;
}


// ---------------------------------------------------------------------------------------------
// tests

// the document matches every kind's table
static void test_contact_models_doc_matches_tables(void** state) {
  (void)state;
  char* text = readFile(DOC_PATH);
  if (!text) {
    fail_msg("cannot read %s", DOC_PATH);
  }
  int problems = checkDocument(text, 1);
  free(text);
  assert_int_equal(problems, 0);
}


// the checker notices a changed default, a missing row, an unknown row and a missing heading
static void test_checker_catches_mistakes(void** state) {
  (void)state;
  char* text = readFile(DOC_PATH);
  if (!text) {
    fail_msg("cannot read %s", DOC_PATH);
  }
  assert_int_equal(checkDocument(text, 0), 0);

  // a real default changed in the last printed digit: 1150 -> 1151
  const csParamInfo* d2 = paramOf(CS_FORCE_EXP_SPRING, "d2");
  assert_non_null(d2);
  char changed[64];
  snprintf(changed, sizeof(changed), "%g", d2->value + 1);
  char* t1 = alterRow(text, "exponential_spring", "d2", changed);
  assert_non_null(t1);
  assert_int_equal(checkDocument(t1, 0), 1);
  free(t1);

  // the default of cxy written with one digit fewer than %g prints
  const csParamInfo* cxy = paramOf(CS_FORCE_EXP_SPRING, "cxy");
  assert_non_null(cxy);
  snprintf(changed, sizeof(changed), "%.5g", cxy->value);
  char* t2 = alterRow(text, "exponential_spring", "cxy", changed);
  assert_non_null(t2);
  assert_int_equal(checkDocument(t2, 0), 1);
  free(t2);

  // a vector default changed in one component
  char* t3 = alterRow(text, "smooth_sphere_half_space", "center", "[0, 0, 1]");
  assert_non_null(t3);
  assert_int_equal(checkDocument(t3, 0), 1);
  free(t3);

  // a required key shown with a number instead of the dash
  char* t4 = alterRow(text, "linear_stop", "stiffness", "0");
  assert_non_null(t4);
  assert_int_equal(checkDocument(t4, 0), 1);
  free(t4);

  // a key without its row
  char* t5 = alterRow(text, "compliant_point", "plane_material.mu_viscous", NULL);
  assert_non_null(t5);
  assert_int_equal(checkDocument(t5, 0), 1);
  free(t5);

  // a row for a key the table does not have
  char* t6 = addRow(text, "hunt_crossley", "dissipation", "| `damping` | number | 0 | s/m |");
  assert_non_null(t6);
  assert_int_equal(checkDocument(t6, 0), 1);
  free(t6);

  // the same defaults written another way still match: 1e-05 as 0.00001
  char* t7 = alterRow(text, "smooth_sphere_half_space", "constant_contact_force", "0.00001");
  assert_non_null(t7);
  assert_int_equal(checkDocument(t7, 0), 0);
  free(t7);

  // a report column not described: rename it in the document
  char* t8 = malloc(strlen(text) + 1);
  strcpy(t8, text);
  assert_non_null(strstr(t8, "`E.slip_speed`"));
  for (char* p = t8; (p = strstr(p, "`E.slip_speed`")) != NULL; p++) {
    p[3] = 'S';  // `E.Slip_speed`
  }
  assert_true(checkDocument(t8, 0) >= 1);
  free(t8);

  free(text);
}


int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_contact_models_doc_matches_tables),
      cmocka_unit_test(test_checker_catches_mistakes),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
