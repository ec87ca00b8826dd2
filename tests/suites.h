/* tests/suites.h: every CUnit suite array of the test program. A suite file
 * defines `CU_SuiteInfo NAME_suite[]` (terminated by CU_SUITE_INFO_NULL). */
#ifndef LOWERSIM_TESTS_SUITES_H
#define LOWERSIM_TESTS_SUITES_H

#include <CUnit/CUnit.h>

#define LSIM_TEST_SUITES \
  SUITE(error)           \
  SUITE(runtime)         \
  SUITE(context)         \
  SUITE(scenario)        \
  SUITE(run)             \
  SUITE(lower)           \
  SUITE(callbacks)       \
  SUITE(pallas)          \
  SUITE(spill)           \
  SUITE(port)            \
  SUITE(oom)

#define SUITE(name) extern CU_SuiteInfo name##_suite[];
LSIM_TEST_SUITES
#undef SUITE

#endif
