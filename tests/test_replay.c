// test_replay.c: the replay writer (src/app/replay.c) on CSVs written by the library from known
// states: the embedded JSON holds the scene's shapes and the CSV's values rounded to 6
// significant digits, a stop is flagged exactly when its angle is beyond the bound in force,
// names cannot end the page's script element, and bad CSVs are refused with the file, line and
// column named. The page itself is tested in a browser by test_replay.mjs.
#include "app/replay.h"
#include "helpers.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// a pendulum with a stop whose lower bound moves at t = 1, a free block with a visual sphere,
// and a floor
static const char* const SCENE =
    "{\"name\": \"replay_test\", \"gravity\": [0, 0, -9.81],"
    " \"bodies\": ["
    "  {\"name\": \"arm\", \"mass\": 1, \"com\": [0, -0.5, 0],"
    "   \"inertia\": {\"box\": [0.05, 0.5, 0.05]},"
    "   \"joint\": {\"type\": \"pin\", \"parent\": \"ground\","
    "     \"parent_frame\": {\"position\": [0, 0, 2]}, \"q\": [0.3]}},"
    "  {\"name\": \"block\", \"mass\": 2, \"inertia\": {\"diag\": [0.1, 0.1, 0.1]},"
    "   \"visual\": {\"sphere\": 0.25},"
    "   \"joint\": {\"type\": \"free\", \"initial\": {\"position\": [1, 2, 0.123456789]}}}],"
    " \"planes\": [{\"name\": \"floor\"}],"
    " \"forces\": [{\"type\": \"linear_stop\", \"name\": \"stop\", \"body\": \"arm\","
    "   \"lower_bound\": -0.5, \"upper_bound\": 1.0, \"stiffness\": 100}],"
    " \"contacts\": [{\"name\": \"corners\", \"body\": \"block\", \"plane\": \"floor\","
    "   \"points\": [[0.1, 0.1, -0.1], [-0.1, -0.1, -0.1]]}],"
    " \"contact_models\": {\"default\": \"exponential_spring\", \"exponential_spring\": {}},"
    " \"changes\": [{\"time\": 1.0, \"force\": \"stop\", \"lower_bound\": -0.1}]}";

// the arm's angle at each row, and whether the stop pushes then (lower bound -0.5 before t = 1,
// -0.1 from t = 1; upper bound 1)
static const double ANGLES[] = {0.3, -0.3, -0.6, -0.3, 1.2, 0.0};
static const double TIMES[] = {0.0, 0.5, 0.9, 1.0, 1.5, 2.0};
static const int ENGAGED[] = {0, 0, 1, 1, 1, 0};
enum { NROWS = 6 };

static char g_dir[256];


static void path(char* out, size_t size, const char* name) {
  snprintf(out, size, "%s/%s", g_dir, name);
}


static void writeText(const char* file, const char* text) {
  FILE* f = fopen(file, "w");
  assert_non_null(f);
  fputs(text, f);
  assert_int_equal(fclose(f), 0);
}



// the CSV of m at the rows above (the arm set to each angle), with or without forces
static void writeCsv(const csModel* m, const char* file, int forces) {
  csData* d = cs_makeData(m);
  assert_non_null(d);
  FILE* f = fopen(file, "w");
  assert_non_null(f);
  csCsvOptions opt = {.forces = forces};
  assert_int_equal(cs_csvHeader(f, m, &opt), 0);
  int arm = cs_bodyId(m, "arm");
  // the scheduled change of the lower bound, applied as the integrator would at t = 1
  int stop = cs_forceId(m, "stop");
  const csForceKind* k = cs_forceKind(m->force[stop].kind);
  int lower = -1;
  for (int i = 0; i < k->discnum; i++) {
    lower = strcmp(k->discnames[i], "lower_bound") == 0 ? i : lower;
  }
  assert_true(lower >= 0);
  for (int i = 0; i < NROWS; i++) {
    d->t = TIMES[i];
    if (TIMES[i] >= 1.0) {
      d->disc[m->force[stop].discadr + lower] = -0.1;
    }
    d->q[m->body[arm].qadr] = ANGLES[i];
    d->stage = CS_STAGE_NONE;
    cs_realizeAcceleration(m, d);
    assert_int_equal(cs_csvRow(f, m, d, &opt), 0);
  }
  assert_int_equal(fclose(f), 0);
  cs_deleteData(d);
}


// the data object embedded in a page written with the template "<A>placeholder<B>"
static cJSON* pageData(const char* page) {
  char* html = th_readFile(page, NULL);
  assert_memory_equal(html, "<A>", 3);
  char* end = strstr(html, "<B>");
  assert_non_null(end);
  *end = 0;
  cJSON* j = cJSON_Parse(html + 3);
  assert_non_null(j);
  free(html);
  return j;
}


static const cJSON* key(const cJSON* o, const char* k) {
  const cJSON* v = cJSON_GetObjectItemCaseSensitive(o, k);
  if (!v) {
    fail_msg("no key '%s'", k);
  }
  return v;
}


static double num(const cJSON* a, int i) { return cJSON_GetArrayItem(a, i)->valuedouble; }


// exact equality of a decoded JSON number (values written with fewer digits read back exactly)
static void assertNumber(double got, double want) {
  if (got != want) {
    fail_msg("%.17g != %.17g", got, want);
  }
}


static int setup(void** state) {
  (void)state;
  snprintf(g_dir, sizeof(g_dir), "/tmp/test_replay_XXXXXX");
  assert_non_null(mkdtemp(g_dir));
  char tpl[512];
  path(tpl, sizeof(tpl), "template.html");
  writeText(tpl, "<A>" CS_REPLAY_PLACEHOLDER "<B>");
  return 0;
}


static int teardown(void** state) {
  (void)state;
  char cmd[600];
  snprintf(cmd, sizeof(cmd), "rm -rf '%s'", g_dir);
  return system(cmd) == 0 ? 0 : -1;
}


// shapes, planes, contacts and the CSV's values, rounded to 6 significant digits (positions to
// 7, what the page's float32 arrays hold)
static void test_page_holds_scene_and_csv(void** state) {
  (void)state;
  csModel* m = th_loadString(SCENE);
  char csv[512], tpl[512], page[512];
  path(csv, sizeof(csv), "run.csv");
  path(tpl, sizeof(tpl), "template.html");
  path(page, sizeof(page), "run.html");
  writeCsv(m, csv, 1);
  csReplayRun run = {.model = "a</script><b>&\"x\"", .m = m, .csv = csv};
  csError err;
  assert_int_equal(cs_replayWrite(page, tpl, &run, 1, &err), CS_OK);
  // a label cannot end the script element: '<' is escaped
  char* html = th_readFile(page, NULL);
  assert_null(strstr(html, "</script>"));
  free(html);

  // a label (or a file name) with a byte that is not UTF-8: U+FFFD in the page, whose JSON
  // must be UTF-8; valid UTF-8 passes through
  csReplayRun odd = {.model = "x\xff\xc3\xa9", .m = m, .csv = csv};
  assert_int_equal(cs_replayWrite(page, tpl, &odd, 1, &err), CS_OK);
  html = th_readFile(page, NULL);
  assert_null(strchr(html, '\xff'));
  assert_non_null(strstr(html, "\"x\\ufffd\xc3\xa9\""));
  free(html);
  assert_int_equal(cs_replayWrite(page, tpl, &run, 1, &err), CS_OK);

  cJSON* j = pageData(page);
  const cJSON* bodies = key(j, "bodies");
  assert_int_equal(cJSON_GetArraySize(bodies), 2);
  // the arm: its inertia's box, centred on its centre of mass
  const cJSON* arm = cJSON_GetArrayItem(bodies, 0);
  assert_string_equal(key(arm, "name")->valuestring, "arm");
  assert_string_equal(key(key(arm, "shape"), "type")->valuestring, "box");
  assert_string_equal(key(arm, "shape_from")->valuestring, "inertia");
  assertNumber(num(key(key(arm, "shape"), "size"), 1), 0.5);
  assertNumber(num(key(arm, "com"), 1), -0.5);
  // the block: its visual sphere (its inertia is numbers)
  const cJSON* block = cJSON_GetArrayItem(bodies, 1);
  assert_string_equal(key(key(block, "shape"), "type")->valuestring, "sphere");
  assert_string_equal(key(block, "shape_from")->valuestring, "visual");
  assertNumber(num(key(key(block, "shape"), "size"), 0), 0.25);
  // the floor on ground, unrotated
  const cJSON* floor = cJSON_GetArrayItem(key(j, "planes"), 0);
  assert_int_equal(key(floor, "body")->valueint, -1);
  assertNumber(num(key(floor, "quaternion"), 0), 1);

  const cJSON* r = cJSON_GetArrayItem(key(j, "runs"), 0);
  assert_string_equal(key(r, "model")->valuestring, "a</script><b>&\"x\"");
  assert_true(cJSON_IsTrue(key(r, "forces")));
  // two point contacts on the block (page body 1) against plane 0, in contact set 0
  const cJSON* contacts = key(r, "contacts");
  assert_int_equal(cJSON_GetArraySize(contacts), 2);
  const cJSON* c1 = cJSON_GetArrayItem(contacts, 1);
  assert_int_equal(key(c1, "body")->valueint, 1);
  assert_int_equal(key(c1, "plane")->valueint, 0);
  assert_string_equal(key(c1, "type")->valuestring, "point");
  assertNumber(num(key(c1, "station"), 0), -0.1);
  // series: NROWS rows; the block's height is 0.123456789 rounded to 7 digits (a position: at 6,
  // a body 10 km from the origin moved in 0.1 m steps)
  assert_int_equal(cJSON_GetArraySize(key(r, "t")), NROWS);
  const cJSON* p = key(r, "p");
  assert_int_equal(cJSON_GetArraySize(p), NROWS * 2 * 3);
  assertNumber(num(p, 3 * 1 + 2), 0.1234568);
  assertNumber(num(p, 3 * 1 + 0), 1);
  // the arm's origin stays at the pin; its orientation is a rotation by the angle about z
  for (int i = 0; i < NROWS; i++) {
    const cJSON* q = key(r, "q");
    double w = num(q, 8 * i), z = num(q, 8 * i + 3);
    assert_true(fabs(w - cos(ANGLES[i] / 2)) <= 5e-6 * fabs(cos(ANGLES[i] / 2)) + 1e-9);
    assert_true(fabs(z - sin(ANGLES[i] / 2)) <= 5e-6 * fabs(sin(ANGLES[i] / 2)) + 1e-9);
    assertNumber(num(p, 6 * i + 2), 2);
  }
  // forces and points per contact per row; centre of pressure per set
  assert_int_equal(cJSON_GetArraySize(key(r, "cf")), NROWS * 2 * 3);
  assert_int_equal(cJSON_GetArraySize(key(r, "cop")), NROWS * 1 * 3);
  assert_int_equal(cJSON_GetArraySize(key(r, "energy")), NROWS * 4);
  // the stop: engaged exactly when the angle is beyond the bound in force at that time
  const cJSON* stop = key(r, "stop");
  assert_int_equal(cJSON_GetArraySize(stop), NROWS);
  for (int i = 0; i < NROWS; i++) {
    assert_int_equal(cJSON_GetArrayItem(stop, i)->valueint, ENGAGED[i]);
  }
  cJSON_Delete(j);
  cs_deleteModel(m);
}


// without force columns the page has none, and says so
static void test_page_without_forces(void** state) {
  (void)state;
  csModel* m = th_loadString(SCENE);
  char csv[512], tpl[512], page[512];
  path(csv, sizeof(csv), "plain.csv");
  path(tpl, sizeof(tpl), "template.html");
  path(page, sizeof(page), "plain.html");
  writeCsv(m, csv, 0);
  csReplayRun run = {.model = "exponential_spring", .m = m, .csv = csv};
  csError err;
  assert_int_equal(cs_replayWrite(page, tpl, &run, 1, &err), CS_OK);
  cJSON* j = pageData(page);
  const cJSON* r = cJSON_GetArrayItem(key(j, "runs"), 0);
  assert_true(cJSON_IsFalse(key(r, "forces")));
  assert_int_equal(cJSON_GetArraySize(key(r, "cf")), 0);
  assert_int_equal(cJSON_GetArraySize(key(r, "p")), NROWS * 2 * 3);
  // the stop, from its angle and the bounds in force (the scene's change included)
  const cJSON* stop = key(r, "stop");
  for (int i = 0; i < NROWS; i++) {
    assert_int_equal(cJSON_GetArrayItem(stop, i)->valueint, ENGAGED[i]);
  }
  cJSON_Delete(j);
  cs_deleteModel(m);
}


// Write the CSV text to file with some cells replaced: value(ctx, row, column name) gives a cell's
// new text (row 0 is the first after the header), or NULL to keep it.
typedef const char* (*CellValue)(void* ctx, int row, const char* column);

static void rewriteCsv(const char* text, const char* file, CellValue value, void* ctx) {
  const char* nl = strchr(text, '\n');
  assert_non_null(nl);
  char* header = strndup(text, (size_t)(nl - text));
  char* names[256];
  int ncol = 0;
  for (char* f = strtok(header, ","); f && ncol < 256; f = strtok(NULL, ",")) {
    names[ncol++] = f;
  }
  FILE* out = fopen(file, "w");
  assert_non_null(out);
  fwrite(text, 1, (size_t)(nl - text) + 1, out);
  int row = 0;
  for (const char* line = nl + 1; *line; row++) {
    const char* end = strchr(line, '\n');
    int c = 0;
    for (const char* q = line; q < end; c++) {
      const char* comma = memchr(q, ',', (size_t)(end - q));
      const char* stop = comma ? comma : end;
      const char* v = c < ncol ? value(ctx, row, names[c]) : NULL;
      fprintf(out, "%s%.*s", c ? "," : "", v ? (int)strlen(v) : (int)(stop - q), v ? v : q);
      q = comma ? comma + 1 : end;
    }
    fputc('\n', out);
    line = end + 1;
  }
  assert_int_equal(fclose(out), 0);
  free(header);
}


// the energies of test_small_values_kept: ke 1e-21 J in row 1 beside the others' 5.9e-12 J, every
// energy 1e20 J in the last row
static const char* tinyEnergies(void* ctx, int row, const char* column) {
  (void)ctx;
  if (strcmp(column, "ke") && strcmp(column, "pe") && strcmp(column, "dissipated") &&
      strcmp(column, "e_total") && strcmp(column, "block.px")) {
    return NULL;
  }
  if (!strcmp(column, "block.px")) {
    return "1e-12";  // beside a py of 2 m
  }
  return row == NROWS - 1 ? "1e20" : row == 1 && !strcmp(column, "ke") ? "1e-21" : "5.9e-12";
}


// block.px of test_far_positions: ctx is its text
static const char* farBlock(void* ctx, int row, const char* column) {
  (void)row;
  return strcmp(column, "block.px") == 0 ? ctx : NULL;
}


// The values of a series are kept to 6 digits of their own size: the energies of a tiny body
// (1e-12 J) are not written as 0 (an absolute cut-off at 1e-9 did), nor are a row's values
// when a later row blew up (1e20 J), while a component below a billionth of the largest of its
// vector (a body's position in one row) is (rounding noise). A row's energies are each their
// own: a kinetic energy a billionth of the potential energy was shown as 0 J beside a speed.
static void test_small_values_kept(void** state) {
  (void)state;
  csModel* m = th_loadString(SCENE);
  char csv[512], tpl[512], page[512], small[512];
  path(csv, sizeof(csv), "energies.csv");
  path(tpl, sizeof(tpl), "template.html");
  path(page, sizeof(page), "small.html");
  path(small, sizeof(small), "small.csv");
  writeCsv(m, csv, 0);
  char* text = th_readFile(csv, NULL);
  rewriteCsv(text, small, tinyEnergies, NULL);
  free(text);
  csReplayRun run = {.model = "exponential_spring", .m = m, .csv = small};
  csError err;
  assert_int_equal(cs_replayWrite(page, tpl, &run, 1, &err), CS_OK);
  cJSON* j = pageData(page);
  const cJSON* e = key(cJSON_GetArrayItem(key(j, "runs"), 0), "energy");
  assertNumber(num(e, 0), 5.9e-12);  // row 0's kinetic energy, though the last row's are 1e20 J
  assertNumber(num(e, 4), 1e-21);    // row 1's, though its potential energy is 5.9e-12 J
  assertNumber(num(e, 5), 5.9e-12);
  const cJSON* p = key(cJSON_GetArrayItem(key(j, "runs"), 0), "p");
  assertNumber(num(p, 3), 0);  // the block's px, 1e-12 m beside a py of 2 m
  assertNumber(num(p, 4), 2);
  cJSON_Delete(j);
  cs_deleteModel(m);
}


// A page whose data would be longer than a browser's script holds is not written (a 1.97 GB CSV
// made a page of 644 MB, which opened on "Unexpected end of JSON input"): the page that was there
// stays, and the message names the page and what to do (the limit lowered to test it)
static void test_page_too_large(void** state) {
  (void)state;
  csModel* m = th_loadString(SCENE);
  char csv[512], tpl[512], page[512];
  path(csv, sizeof(csv), "large.csv");
  path(tpl, sizeof(tpl), "template.html");
  path(page, sizeof(page), "large.html");
  writeCsv(m, csv, 1);
  writeText(page, "the old page");
  csReplayRun run = {.model = "exponential_spring", .m = m, .csv = csv};
  csError err;
  cs_replaySetDataLimit(1000);
  assert_int_equal(cs_replayWrite(page, tpl, &run, 1, &err), CS_ERR_INPUT);
  assert_string_equal(err.file, page);
  assert_non_null(strstr(err.message, "more than a browser's script can"));
  assert_non_null(strstr(err.message, "--report-interval"));
  char* kept = th_readFile(page, NULL);
  assert_string_equal(kept, "the old page");
  free(kept);
  // within the limit, written
  cs_replaySetDataLimit(0);
  assert_int_equal(cs_replayWrite(page, tpl, &run, 1, &err), CS_OK);
  cJSON* j = pageData(page);
  assert_non_null(j);
  cJSON_Delete(j);
  cs_deleteModel(m);
}


// Positions far from the origin keep the digits the page's float32 arrays hold (at 1e6 m, 7
// digits moved a body in steps of a metre); one beyond what the page can draw (a run that
// diverged to 1e40 m gave a blank page) is refused.
static void test_far_positions(void** state) {
  (void)state;
  csModel* m = th_loadString(SCENE);
  char csv[512], tpl[512], page[512], far[512];
  path(csv, sizeof(csv), "near.csv");
  path(tpl, sizeof(tpl), "template.html");
  path(page, sizeof(page), "far.html");
  path(far, sizeof(far), "far.csv");
  writeCsv(m, csv, 0);
  char* text = th_readFile(csv, NULL);
  // every row's block.px replaced: 1000000.277 m, then 1e40 m
  for (int pass = 0; pass < 2; pass++) {
    rewriteCsv(text, far, farBlock, pass == 0 ? "1000000.277" : "1e40");
    csReplayRun run = {.model = "exponential_spring", .m = m, .csv = far};
    csError err;
    if (pass == 0) {
      assert_int_equal(cs_replayWrite(page, tpl, &run, 1, &err), CS_OK);
      cJSON* j = pageData(page);
      const cJSON* p = key(cJSON_GetArrayItem(key(j, "runs"), 0), "p");
      // the block is the second body: its px is the fourth value of a row
      assertNumber(num(p, 3), 1000000.28);
      cJSON_Delete(j);
    } else {
      assert_int_equal(cs_replayWrite(page, tpl, &run, 1, &err), CS_ERR_INPUT);
      assert_non_null(strstr(err.message, "column 'block.px': 1e+40 m is beyond the coordinates "
                                          "the page can draw"));
    }
  }
  free(text);
  cs_deleteModel(m);
}


// A --forces CSV that does not fit the scene's contacts: the forces of some contact elements and
// not of others (written with other --set values), or without the contact model's own columns
// (written under another contact model), is refused, saying which.
static void test_forces_of_another_run(void** state) {
  (void)state;
  csModel* m = th_loadString(SCENE);
  char csv[512], tpl[512], page[512], bad[512];
  path(csv, sizeof(csv), "forces.csv");
  path(tpl, sizeof(tpl), "template.html");
  path(page, sizeof(page), "forces.html");
  path(bad, sizeof(bad), "other.csv");
  writeCsv(m, csv, 1);
  char* text = th_readFile(csv, NULL);
  csReplayRun run = {.model = "exponential_spring", .m = m, .csv = bad};
  csError err;
  // the second corner's force columns gone (renamed: a corner the other run did not have)
  char* fewer = strdup(text);
  for (char* at = fewer; (at = strstr(at, "corners.1.f")) != NULL; at++) {
    memcpy(at, "cornerz", 7);
  }
  writeText(bad, fewer);
  assert_int_equal(cs_replayWrite(page, tpl, &run, 1, &err), CS_ERR_INPUT);
  assert_string_equal(err.file, bad);
  assert_non_null(strstr(err.message, "1 of the scene's 2 contact elements but not those of "
                                      "'corners.1'"));
  // a contact the scene does not have (a CSV of more corners)
  char* more = strdup(text);
  // (one of the spring's own columns renamed to the force column of a third corner: the
  // scene's two keep all theirs)
  char* own = strstr(more, "corners.1.fxy_elastic_x");
  assert_non_null(own);
  memcpy(own, "xxxxxxxxxxxcorners.7.fx", 23);
  writeText(bad, more);
  assert_int_equal(cs_replayWrite(page, tpl, &run, 1, &err), CS_ERR_INPUT);
  assert_non_null(strstr(err.message, "force columns of 'xxxxxxxxxxxcorners.7', which the scene "
                                      "does not"));
  free(more);
  // none of the scene's contacts, but another scene's (forces of the CSV's own contacts only):
  // refused, where the page showed no forces and said the CSV had none
  char* another = strdup(text);
  for (char* at = another; (at = strstr(at, "corners.")) != NULL; at++) {
    memcpy(at, "wheelss.", 8);
  }
  writeText(bad, another);
  assert_int_equal(cs_replayWrite(page, tpl, &run, 1, &err), CS_ERR_INPUT);
  assert_non_null(strstr(err.message, "force columns of 'wheelss"));
  assert_non_null(strstr(err.message, "written from another scene"));
  free(another);
  // the exponential spring's own values gone: another contact model's CSV
  char* other = strdup(text);
  char* sliding = strstr(other, "corners.0.sliding");
  assert_non_null(sliding);
  memcpy(sliding, "corners.0.slidinx", 17);
  writeText(bad, other);
  assert_int_equal(cs_replayWrite(page, tpl, &run, 1, &err), CS_ERR_INPUT);
  assert_non_null(strstr(err.message, "no column 'corners.0.sliding' of contact model "
                                      "'exponential_spring'"));
  free(fewer);
  free(other);
  free(text);
  cs_deleteModel(m);
}


// a CSV missing a body's column, with a malformed number, or with a row short of fields (not
// the last) is refused with the file, the line and the column; a last row cut short is left out
static void test_bad_csv(void** state) {
  (void)state;
  csModel* m = th_loadString(SCENE);
  char csv[512], tpl[512], page[512], bad[512];
  path(csv, sizeof(csv), "good.csv");
  path(tpl, sizeof(tpl), "template.html");
  path(page, sizeof(page), "bad.html");
  path(bad, sizeof(bad), "bad.csv");
  writeCsv(m, csv, 0);
  char* text = th_readFile(csv, NULL);
  csError err;
  csReplayRun run = {.model = "m", .m = m, .csv = bad};

  // the block's height renamed
  char* renamed = strdup(text);
  memcpy(strstr(renamed, "block.pz"), "block.zz", 8);
  writeText(bad, renamed);
  assert_int_equal(cs_replayWrite(page, tpl, &run, 1, &err), CS_ERR_INPUT);
  assert_string_equal(err.file, bad);
  assert_non_null(strstr(err.message, "'block.pz'"));

  // a letter in the third row's first field (line 4 of the file)
  char* garbled = strdup(text);
  char* line = garbled;
  for (int i = 0; i < 3; i++) {
    line = strchr(line, '\n') + 1;
  }
  line[0] = 'x';
  writeText(bad, garbled);
  assert_int_equal(cs_replayWrite(page, tpl, &run, 1, &err), CS_ERR_INPUT);
  assert_non_null(strstr(err.message, "line 4"));
  assert_non_null(strstr(err.message, "'t'"));

  // the second row cut short, then more rows
  char* cut = strdup(text);
  line = strchr(strchr(cut, '\n') + 1, '\n') + 1;
  char* comma = strchr(line, ',');
  memmove(comma, strchr(line, '\n'), strlen(strchr(line, '\n')) + 1);
  writeText(bad, cut);
  assert_int_equal(cs_replayWrite(page, tpl, &run, 1, &err), CS_ERR_INPUT);
  assert_non_null(strstr(err.message, "line 3 has 1 fields"));

  // a time of nan in the third row (line 4), as a run that diverged can write: the page cannot
  // draw it
  const char* at = text;
  for (int i = 0; i < 3; i++) {
    at = strchr(at, '\n') + 1;
  }
  char* diverged = malloc(strlen(text) + 8);
  sprintf(diverged, "%.*snan%s", (int)(at - text), text, strchr(at, ','));
  writeText(bad, diverged);
  assert_int_equal(cs_replayWrite(page, tpl, &run, 1, &err), CS_ERR_INPUT);
  assert_non_null(strstr(err.message, "line 4, column 't': nan is not a finite number"));

  // the second and third rows swapped: out of time order
  char* swapped = strdup(text);
  char* r2 = strchr(swapped, '\n') + 1;
  char* r3 = strchr(r2, '\n') + 1;
  char* r4 = strchr(r3, '\n') + 1;
  size_t l2 = (size_t)(r3 - r2), l3 = (size_t)(r4 - r3);
  char* keep = malloc(l2 + l3);
  memcpy(keep, r3, l3);
  memcpy(keep + l3, r2, l2);
  memcpy(r2, keep, l2 + l3);
  free(keep);
  writeText(bad, swapped);
  assert_int_equal(cs_replayWrite(page, tpl, &run, 1, &err), CS_ERR_INPUT);
  assert_non_null(strstr(err.message, "line 3: t ="));
  assert_non_null(strstr(err.message, "time order"));
  // two rows at t = 0.48 (lines 2 and 3): the times said as the CSV writes them, not with 17
  // digits (0.47999999999999998)
  {
    const char* row2 = strchr(text, '\n') + 1;
    const char* row3 = strchr(row2, '\n') + 1;
    char* twice = malloc(strlen(text) + 16);
    sprintf(twice, "%.*s0.48%.*s0.48%s", (int)(row2 - text), text,
            (int)(row3 - strchr(row2, ',')), strchr(row2, ','), strchr(row3, ','));
    writeText(bad, twice);
    assert_int_equal(cs_replayWrite(page, tpl, &run, 1, &err), CS_ERR_INPUT);
    assert_non_null(strstr(err.message, "line 3: t = 0.48 does not come after the line before's "
                                        "0.48"));
    free(twice);
  }

  // the last row cut short (a run stopped while writing it): left out
  char* last = strdup(text);
  size_t n = strlen(last);
  last[n - 20] = 0;
  writeText(bad, last);
  assert_int_equal(cs_replayWrite(page, tpl, &run, 1, &err), CS_OK);
  cJSON* j = pageData(page);
  assert_int_equal(cJSON_GetArraySize(key(cJSON_GetArrayItem(key(j, "runs"), 0), "t")), NROWS - 1);
  cJSON_Delete(j);

  // a last row that ends in its newline is whole: a letter in it is refused, not left out
  char* badLast = malloc(strlen(text) + 8);
  sprintf(badLast, "%.*sx%s", (int)(strrchr(text, ',') + 1 - text), text, "\n");
  writeText(bad, badLast);
  assert_int_equal(cs_replayWrite(page, tpl, &run, 1, &err), CS_ERR_INPUT);
  assert_non_null(strstr(err.message, "not a number"));

  // the last row cut within a number ("1e" of "1e-05", say): left out too
  char* inNumber = malloc(strlen(text) + 8);
  sprintf(inNumber, "%.*s1e", (int)(strrchr(text, ',') + 1 - text), text);
  writeText(bad, inNumber);
  assert_int_equal(cs_replayWrite(page, tpl, &run, 1, &err), CS_OK);
  // and one cut after its last digit but before its newline, which looks whole ("222.2" of
  // "222.219..." would be read as a wrong value): left out as well
  char* noNewline = strdup(text);
  noNewline[strlen(noNewline) - 1] = '\0';
  writeText(bad, noNewline);
  assert_int_equal(cs_replayWrite(page, tpl, &run, 1, &err), CS_OK);
  j = pageData(page);
  assert_int_equal(cJSON_GetArraySize(key(cJSON_GetArrayItem(key(j, "runs"), 0), "t")), NROWS - 1);
  cJSON_Delete(j);

  // the first row (line 2) with a field more than the header, or letters after its last
  // number: refused, as a row short of fields is
  const char* end2 = strchr(strchr(text, '\n') + 1, '\n');
  char* longer = malloc(strlen(text) + 8);
  sprintf(longer, "%.*s,5%s", (int)(end2 - text), text, end2);
  writeText(bad, longer);
  assert_int_equal(cs_replayWrite(page, tpl, &run, 1, &err), CS_ERR_INPUT);
  assert_non_null(strstr(err.message, "line 2 has more than"));
  char* trailing = malloc(strlen(text) + 8);
  sprintf(trailing, "%.*sjunk%s", (int)(end2 - text), text, end2);
  writeText(bad, trailing);
  assert_int_equal(cs_replayWrite(page, tpl, &run, 1, &err), CS_ERR_INPUT);
  assert_non_null(strstr(err.message, "line 2, column"));
  assert_non_null(strstr(err.message, "junk' is not a number"));
  // a number in a form no CSV of runs holds (strtod reads the hexadecimal 0x10 as 16): refused
  // as the row's first field, the time; nan and inf are the writer's and are read
  char* hex = malloc(strlen(text) + 8);
  sprintf(hex, "%.*s0x10%s", (int)(strchr(text, '\n') + 1 - text), text,
          strchr(strchr(text, '\n') + 1, ','));
  writeText(bad, hex);
  assert_int_equal(cs_replayWrite(page, tpl, &run, 1, &err), CS_ERR_INPUT);
  assert_non_null(strstr(err.message, "'0x10' is not a number"));
  free(hex);
  // what a run writes for values that are not finite (a force or an energy), and a
  // spreadsheet's Infinity, are numbers of such a file: the last field of the first row
  const char* lastComma = end2;
  while (lastComma[-1] != ',') {
    lastComma--;
  }
  const char* special[] = {"nan", "-nan", "inf", "-inf", "Infinity"};
  for (int i = 0; i < 5; i++) {
    char* with = malloc(strlen(text) + 16);
    sprintf(with, "%.*s%s%s", (int)(lastComma - text), text, special[i], end2);
    writeText(bad, with);
    if (cs_replayWrite(page, tpl, &run, 1, &err) != CS_OK) {
      fail_msg("%s: %s", special[i], err.message);
    }
    free(with);
  }

  // the first row's last field a blank: a missing value, as an empty field is (the number
  // reader skipped the line break after it and took the next row's time as a field too many)
  const char* lastComma2 = end2;
  while (lastComma2[-1] != ',') {
    lastComma2--;
  }
  char* blankLast = malloc(strlen(text) + 8);
  sprintf(blankLast, "%.*s \v\f%s", (int)(lastComma2 - text), text, end2);
  writeText(bad, blankLast);
  assert_int_equal(cs_replayWrite(page, tpl, &run, 1, &err), CS_OK);
  j = pageData(page);
  assert_int_equal(cJSON_GetArraySize(key(cJSON_GetArrayItem(key(j, "runs"), 0), "t")), NROWS);
  cJSON_Delete(j);
  // a blank where a position belongs: refused, and said to be no value (not "nan")
  int pzCol = 0;
  for (const char* h = text; h < strstr(text, "block.pz"); h++) {
    pzCol += *h == ',';
  }
  const char* pz = strchr(text, '\n') + 1;
  for (int k = 0; k < pzCol; k++) {
    pz = strchr(pz, ',') + 1;
  }
  char* blankPose = malloc(strlen(text) + 8);
  sprintf(blankPose, "%.*s %s", (int)(pz - text), text, strchr(pz, ','));
  writeText(bad, blankPose);
  assert_int_equal(cs_replayWrite(page, tpl, &run, 1, &err), CS_ERR_INPUT);
  assert_non_null(strstr(err.message, "line 2, column 'block.pz': no value"));
  // a NUL byte after the first row: refused, not read as the end of the file
  FILE* withNul = fopen(bad, "wb");
  assert_non_null(withNul);
  fwrite(text, 1, (size_t)(end2 + 1 - text), withNul);
  fputc(0, withNul);
  fputs(end2 + 1, withNul);
  assert_int_equal(fclose(withNul), 0);
  assert_int_equal(cs_replayWrite(page, tpl, &run, 1, &err), CS_ERR_INPUT);
  assert_non_null(strstr(err.message, "line 3 holds a NUL byte"));
  free(blankLast);
  free(blankPose);

  // a CSV that is not there, and a page in a directory that is not there: bad input, as for
  // `run` (the command line's exit status 2), not a failed write
  char missing[512];
  path(missing, sizeof(missing), "no-such.csv");
  csReplayRun gone = {.model = "m", .m = m, .csv = missing};
  assert_int_equal(cs_replayWrite(page, tpl, &gone, 1, &err), CS_ERR_INPUT);
  assert_non_null(strstr(err.message, "cannot read"));
  char nodir[512];
  path(nodir, sizeof(nodir), "no-such-dir/page.html");
  writeText(bad, text);
  assert_int_equal(cs_replayWrite(nodir, tpl, &run, 1, &err), CS_ERR_INPUT);
  assert_non_null(strstr(err.message, "cannot write"));

  // a template without the placeholder
  writeText(bad, text);
  char notpl[512];
  path(notpl, sizeof(notpl), "notemplate.html");
  writeText(notpl, "<html></html>");
  assert_int_equal(cs_replayWrite(page, notpl, &run, 1, &err), CS_ERR_INPUT);
  assert_non_null(strstr(err.message, "placeholder"));
  free(renamed);
  free(garbled);
  free(diverged);
  free(swapped);
  free(cut);
  free(last);
  free(inNumber);
  free(noNewline);
  free(badLast);
  free(longer);
  free(trailing);
  free(text);
  cs_deleteModel(m);
}


// the template is found through the environment variable, which must name a readable file
static void test_find_template(void** state) {
  (void)state;
  char tpl[512], found[4096];
  path(tpl, sizeof(tpl), "template.html");
  csError err;
  setenv(CS_REPLAY_TEMPLATE_ENV, tpl, 1);
  assert_int_equal(cs_replayFindTemplate(found, sizeof(found), &err), 0);
  assert_string_equal(found, tpl);
  setenv(CS_REPLAY_TEMPLATE_ENV, "/nonexistent/replay_template.html", 1);
  assert_int_equal(cs_replayFindTemplate(found, sizeof(found), &err), -1);
  assert_non_null(strstr(err.message, CS_REPLAY_TEMPLATE_ENV));
  unsetenv(CS_REPLAY_TEMPLATE_ENV);
}


int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_page_holds_scene_and_csv),
      cmocka_unit_test(test_page_without_forces),
      cmocka_unit_test(test_small_values_kept),
      cmocka_unit_test(test_forces_of_another_run),
      cmocka_unit_test(test_far_positions),
      cmocka_unit_test(test_page_too_large),
      cmocka_unit_test(test_bad_csv),
      cmocka_unit_test(test_find_template),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
