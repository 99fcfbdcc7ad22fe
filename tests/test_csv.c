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


int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_numbers_read_back_exactly_and_shortest),
      cmocka_unit_test(test_cut_row_is_a_terminated_prefix),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
