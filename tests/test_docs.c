// test_docs.c: placeholder
#include "helpers.h"


static void test_placeholder(void** state) {
  (void)state;
}


int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_placeholder),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
