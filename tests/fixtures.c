/* tests/fixtures.c: shared test set-up. */
#include "tests/fixtures.h"
#include "lowersim/emit.h"

const char *const test_platforms[TEST_NUM_PLATFORMS] = {"cpu", "cuda", "rocm", "oneapi", "tpu",
                                                        "metal"};

lsim_runtime *test_runtime_all_platforms(void) {
  lsim_runtime *rt = NULL;
  if (lsim_runtime_create(&rt, NULL))
    return NULL;
  for (size_t i = 0; i < TEST_NUM_PLATFORMS; i++) {
    lsim_backend_factory f;
    lsim_backend_factory_defaults(&f, test_platforms[i]);
    if (lsim_runtime_register_backend_factory(rt, &f, NULL)) {
      lsim_runtime_destroy(rt);
      return NULL;
    }
  }
  if (lsim_runtime_backends(rt, NULL)) {
    lsim_runtime_destroy(rt);
    return NULL;
  }
  return rt;
}

int test_emit_ffi(lsim_lowering_rule_context *ctx, const char *target, const MlirValue *args,
                  MlirValue *results, lsim_error *err) {
  lsim_ffi_call call = {.target = target};
  return lsim_emit_ffi_lowering_op(ctx, &call, args, results, err);
}
