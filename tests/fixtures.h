/* tests/fixtures.h: what several suites build the same way. */
#ifndef LOWERSIM_TESTS_FIXTURES_H
#define LOWERSIM_TESTS_FIXTURES_H

#include "lowersim/runtime.h"

#include <stddef.h>

/* cpu, cuda, rocm, oneapi, tpu and metal (a PJRT plugin). */
extern const char *const test_platforms[];
#define TEST_NUM_PLATFORMS 6

/* An initialized runtime with a backend (JAX's defaults) for each of
 * test_platforms; NULL on failure. */
lsim_runtime *test_runtime_all_platforms(void);

#endif
