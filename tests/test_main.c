/* tests/test_main.c: runs lowersim's CUnit suites: all of them, or the one
 * named on the command line (CTest runs each suite as its own test). */
#include "tests/suites.h"

#include <CUnit/Basic.h>

#include <stdio.h>
#include <string.h>

static CU_SuiteInfo *const all_suites[] = {
#define SUITE(name) name##_suite,
    LSIM_TEST_SUITES
#undef SUITE
};

int main(int argc, char **argv) {
  if (CU_initialize_registry() != CUE_SUCCESS)
    return 2;
  size_t registered = 0;
  for (size_t i = 0; i < sizeof all_suites / sizeof all_suites[0]; i++) {
    for (CU_SuiteInfo *s = all_suites[i]; s->pName; s++) {
      if (argc > 1 && strcmp(argv[1], s->pName) != 0)
        continue;
      CU_SuiteInfo one[] = {*s, CU_SUITE_INFO_NULL};
      if (CU_register_suites(one) != CUE_SUCCESS) {
        fprintf(stderr, "cannot register suite %s: %s\n", s->pName, CU_get_error_msg());
        CU_cleanup_registry();
        return 2;
      }
      registered++;
    }
  }
  if (registered == 0) {
    fprintf(stderr, "no suite named '%s'\n", argc > 1 ? argv[1] : "");
    CU_cleanup_registry();
    return 2;
  }
  CU_basic_set_mode(CU_BRM_NORMAL);
  CU_basic_run_tests();
  unsigned failed = CU_get_number_of_failures() + CU_get_number_of_tests_failed();
  unsigned ran = CU_get_number_of_tests_run();
  CU_cleanup_registry();
  return failed || ran == 0 ? 1 : 0;
}
