/* tests/fixtures.h: what several suites build the same way. */
#ifndef LOWERSIM_TESTS_FIXTURES_H
#define LOWERSIM_TESTS_FIXTURES_H

#include "lowersim/lowering_rule_context.h"
#include "lowersim/runtime.h"

#include <stddef.h>

/* cpu, cuda, rocm, oneapi, tpu and metal (a PJRT plugin). */
extern const char *const test_platforms[];
#define TEST_NUM_PLATFORMS 6

/* An initialized runtime with a backend (JAX's defaults) for each of
 * test_platforms; NULL on failure. */
lsim_runtime *test_runtime_all_platforms(void);

/* A rule body for tests: one FFI custom call to `target` over the rule's
 * operands, with its result types. */
int test_emit_ffi(lsim_lowering_rule_context *ctx, const char *target, const MlirValue *args,
                  MlirValue *results, lsim_error *err);

#endif
