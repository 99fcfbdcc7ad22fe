// test_csv.c: the numbers of a CSV row read back as the same doubles, in no more characters than
// needed, and a row cut by a small buffer behaves as snprintf's text would.
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "helpers.h"
#include "io/shortest.h"


// xorshift64*: reproducible bit patterns, independent of the library's sampler
static uint64_t next(uint64_t* s) {
  *s ^= *s >> 12;
  *s ^= *s << 25;
  *s ^= *s >> 27;
  return *s * 2685821657736338717ull;
}


// the length of the shortest %.*e text that reads back as x (the independent answer: glibc's
// printf is exact); the library's text may be fixed-point, but never longer
static size_t shortestScientific(double x) {
  char text[64];
  for (int p = 0; p <= 16; p++) {
    int n = snprintf(text, sizeof(text), "%.*e", p, x);
    if (strtod(text, NULL) == x) {
      return (size_t)n;
    }
  }
  return strlen(text);
}


static void checkOne(double x) {
  char text[CS_SHORTEST_MAX + 1];
  size_t n = cs_formatShortest(text, CS_SHORTEST_MAX, x);
  assert_true(n > 0 && n < CS_SHORTEST_MAX);
  text[n] = '\0';
  double back = strtod(text, NULL);
  if (isnan(x)) {
    assert_true(isnan(back));
    return;
  }
  // bit for bit, so -0 stays -0
  if (memcmp(&back, &x, sizeof(x)) != 0) {
    fail_msg("%.17g printed as '%s' reads back as %.17g", x, text, back);
  }
  if (isfinite(x) && n > shortestScientific(x)) {
    fail_msg("%.17g printed as '%s', longer than needed (%zu characters)", x, text,
             shortestScientific(x));
  }
}


static void test_numbers_read_back_exactly_and_shortest(void** state) {
  (void)state;
  const double special[] = {0.0, -0.0, 1.0, -1.0, 0.1, 1.0 / 3.0, 1e-5, 123456789012345678.0,
                            5e-324, 2.2250738585072014e-308, 1.7976931348623157e308, 3.141592653589793,
                            9.81, 40.065270428583823, INFINITY, -INFINITY, NAN};
  for (size_t i = 0; i < sizeof(special) / sizeof(special[0]); i++) {
    checkOne(special[i]);
  }
  uint64_t s = 0x9e3779b97f4a7c15ull;
  for (int i = 0; i < 100000; i++) {
    uint64_t bits = next(&s);
    double x;
    memcpy(&x, &bits, sizeof(x));
    checkOne(x);
    // and values of the size a simulation prints
    checkOne(ldexp((double)(next(&s) >> 11), -53) * pow(10.0, (int)(next(&s) % 13) - 6));
  }
}


static void test_cut_row_is_a_terminated_prefix(void** state) {
  (void)state;
  csModel* m = th_loadFile("scenes/pendulum_stop.json");
  csData* d = cs_makeData(m);
  char full[8192];
  size_t len = cs_csvFormatRow(full, sizeof(full), m, d, NULL);
  assert_true(len > 10 && len < sizeof(full));
  assert_int_equal(strlen(full), len);
  assert_int_equal(full[len - 1], '\n');
  // every shorter buffer: the same length is returned, the text is the terminated prefix
  for (size_t size = 1; size <= len + 1; size++) {
    char cut[8192];
    memset(cut, 'x', sizeof(cut));
    assert_int_equal(cs_csvFormatRow(cut, size, m, d, NULL), len);
    assert_int_equal(strlen(cut), size - 1 < len ? size - 1 : len);
    assert_memory_equal(cut, full, strlen(cut));
  }
  assert_int_equal(cs_csvFormatRow(NULL, 0, m, d, NULL), len);
  cs_deleteData(d);
  cs_deleteModel(m);
}


// The value of column `name` in a header and a row formatted together.
static double column(const char* header, const char* row, const char* name) {
  size_t n = strlen(name);
  int index = 0;
  for (const char* h = header;; index++) {
    size_t len = strcspn(h, ",\n");
    if (len == n && memcmp(h, name, n) == 0) {
      break;
    }
    assert_true(h[len] == ',');
    h += len + 1;
  }
  const char* r = row;
  for (int i = 0; i < index; i++) {
    r = strchr(r, ',') + 1;
  }
  return strtod(r, NULL);
}


// Three blocks of different masses resting on the floor, each its own contact set (compliant
// points, settled): each set's columns carry its own block's weight, and its centre of pressure
// lies under that block's centre of mass.
static void test_contact_sets_carry_their_own_weights(void** state) {
  (void)state;
  const char* json =
      "{\"gravity\": [0, 0, -9.81], \"bodies\": ["
      " {\"name\": \"a\", \"mass\": 1, \"inertia\": {\"box\": [0.1, 0.1, 0.1]},"
      "  \"joint\": {\"type\": \"free\", \"q\": [1, 0, 0, 0, 0, 0, 0.1]}},"
      " {\"name\": \"b\", \"mass\": 3, \"inertia\": {\"box\": [0.1, 0.1, 0.1]},"
      "  \"joint\": {\"type\": \"free\", \"q\": [1, 0, 0, 0, 1, 0.5, 0.1]}},"
      " {\"name\": \"c\", \"mass\": 7, \"inertia\": {\"box\": [0.1, 0.1, 0.1]},"
      "  \"com\": [0.02, -0.01, 0],"
      "  \"joint\": {\"type\": \"free\", \"q\": [1, 0, 0, 0, -2, 1, 0.1]}}],"
      " \"planes\": [{\"name\": \"floor\"}],"
      " \"contacts\": ["
      "  {\"name\": \"sa\", \"body\": \"a\", \"plane\": \"floor\", \"points\": [[-0.1, -0.1, -0.1],"
      "   [0.1, -0.1, -0.1], [-0.1, 0.1, -0.1], [0.1, 0.1, -0.1]]},"
      "  {\"name\": \"sb\", \"body\": \"b\", \"plane\": \"floor\", \"points\": [[-0.1, -0.1, -0.1],"
      "   [0.1, -0.1, -0.1], [-0.1, 0.1, -0.1], [0.1, 0.1, -0.1]]},"
      "  {\"name\": \"sc\", \"body\": \"c\", \"plane\": \"floor\", \"points\": [[-0.1, -0.1, -0.1],"
      "   [0.1, -0.1, -0.1], [-0.1, 0.1, -0.1], [0.1, 0.1, -0.1]]}],"
      " \"contact_models\": {\"default\": \"compliant_point\","
      "  \"compliant_point\": {\"penalty_stiffness\": 1e5, \"dissipation\": 10}},"
      " \"simulation\": {\"duration\": 2, \"report_interval\": 2}}";
  csModel* m = th_loadString(json);
  csData* d = th_run(m, &m->opt, NULL);
  csCsvOptions opt = {.forces = 1};
  size_t nh = cs_csvFormatHeader(NULL, 0, m, &opt), nr = cs_csvFormatRow(NULL, 0, m, d, &opt);
  char* header = malloc(nh + 1);
  char* row = malloc(nr + 1);
  cs_csvFormatHeader(header, nh + 1, m, &opt);
  cs_csvFormatRow(row, nr + 1, m, d, &opt);
  const char* sets[3] = {"sa", "sb", "sc"};
  const double mass[3] = {1, 3, 7};
  for (int i = 0; i < 3; i++) {
    char name[32];
    const csVec3 com = d->body_com[i + 1];
    snprintf(name, sizeof(name), "%s.fz", sets[i]);
    th_assertClose(column(header, row, name), mass[i] * 9.81, 1e-6, 0, "the set's normal force");
    snprintf(name, sizeof(name), "%s.fx", sets[i]);
    th_assertClose(column(header, row, name), 0, 0, 1e-6, "no sideways force at rest");
    snprintf(name, sizeof(name), "%s.copx", sets[i]);
    th_assertClose(column(header, row, name), com.x, 0, 1e-6, "centre of pressure x");
    snprintf(name, sizeof(name), "%s.copy", sets[i]);
    th_assertClose(column(header, row, name), com.y, 0, 1e-6, "centre of pressure y");
  }
  free(header);
  free(row);
  cs_deleteData(d);
  cs_deleteModel(m);
}


int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_numbers_read_back_exactly_and_shortest),
      cmocka_unit_test(test_cut_row_is_a_terminated_prefix),
      cmocka_unit_test(test_contact_sets_carry_their_own_weights),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
