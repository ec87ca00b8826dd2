/* tests/test_oom.c: allocation failures.  The test program is linked with
 * --wrap=malloc,calloc,realloc, so every allocation made by code linked into
 * it can be made to fail: each test runs an operation once to count its
 * allocations, then again once per allocation with that one failing, and
 * checks the outcome is LSIM_E_NO_MEMORY (or success, for allocations whose
 * failure only costs a cache), with nothing leaked (the sanitizer build's
 * LeakSanitizer checks that) and the objects still usable or destroyable.
 * Only operations that call no MLIR code are exercised: MLIR does not
 * survive failing allocations. */
#include "lowersim/ffi.h"
#include "lowersim/jax.h"
#include "lowersim/module_context.h"
#include "lowersim/pallas.h"
#include "lowersim/runtime.h"
#include "lowersim/scenario.h"
#include "tests/suites.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void *__real_malloc(size_t size);
void *__real_calloc(size_t n, size_t size);
void *__real_realloc(void *p, size_t size);
void *__wrap_malloc(size_t size);
void *__wrap_calloc(size_t n, size_t size);
void *__wrap_realloc(void *p, size_t size);

static long countdown; /* 0: off; k: the k-th allocation from now fails */
static long counted;   /* allocations while counting */
static bool counting;

static bool fail_now(void) {
  if (counting)
    counted++;
  return countdown > 0 && --countdown == 0;
}

void *__wrap_malloc(size_t size) { return fail_now() ? NULL : __real_malloc(size); }
void *__wrap_calloc(size_t n, size_t size) { return fail_now() ? NULL : __real_calloc(n, size); }
void *__wrap_realloc(void *p, size_t size) { return fail_now() ? NULL : __real_realloc(p, size); }

/* An operation under test: returns its status; cleans up what it made. */
typedef int (*operation)(void);

/* Runs `op` failing each of its allocations in turn. */
static void each_allocation_fails(const char *name, operation op) {
  counting = true;
  counted = 0;
  int rc = op();
  counting = false;
  CU_ASSERT_EQUAL_FATAL(rc, LSIM_OK);
  long total = counted;
  CU_ASSERT_TRUE(total > 0);
  for (long k = 1; k <= total; k++) {
    countdown = k;
    rc = op();
    countdown = 0;
    bool ok = rc == LSIM_E_NO_MEMORY || rc == LSIM_OK;
    CU_ASSERT_TRUE(ok);
    if (!ok)
      fprintf(stderr, "\n  %s: allocation %ld of %ld failing gives %d (%s)", name, k, total, rc,
                      lsim_status_name(rc) ? lsim_status_name(rc) : "?");
  }
}

/* --- operations ---------------------------------------------------------------- */

static int runtime_lifecycle(void) {
  lsim_error err = LSIM_ERROR_INIT;
  lsim_runtime *rt = NULL;
  int rc = lsim_runtime_create(&rt, &err);
  const char *platforms[] = {"cpu", "tpu", "cuda", "metal"};
  for (size_t i = 0; !rc && i < 4; i++) {
    lsim_backend_factory f;
    lsim_backend_factory_defaults(&f, platforms[i]);
    f.error = i == 1 ? "no TPU chips found" : NULL;
    rc = lsim_runtime_register_backend_factory(rt, &f, &err);
  }
  if (!rc)
    rc = lsim_runtime_set_jax_platforms(rt, NULL, &err);
  if (!rc)
    rc = lsim_runtime_backends(rt, &err);
  const lsim_backend *b;
  if (!rc) {
    /* get_backend's errors format lists; out of memory must win over them. */
    int g = lsim_runtime_get_backend(rt, "tpu", &b, &err);
    rc = g == LSIM_E_BACKEND_FAILED ? LSIM_OK : g;
  }
  if (!rc) {
    int g = lsim_runtime_get_backend(rt, "oneapi", &b, &err);
    rc = g == LSIM_E_UNKNOWN_BACKEND ? LSIM_OK : g;
  }
  if (!rc) {
    const char *const *known;
    size_t n;
    rc = lsim_runtime_known_platforms(rt, &known, &n, &err);
  }
  lsim_runtime_destroy(rt);
  lsim_error_clear(&err);
  return rc;
}

static int jax_platforms_errors(void) {
  lsim_error err = LSIM_ERROR_INIT;
  lsim_runtime *rt = NULL;
  int rc = lsim_runtime_create(&rt, &err);
  lsim_backend_factory f;
  lsim_backend_factory_defaults(&f, "cpu");
  if (!rc)
    rc = lsim_runtime_register_backend_factory(rt, &f, &err);
  if (!rc)
    rc = lsim_runtime_set_jax_platforms(rt, "cpu,gpu", &err);
  if (!rc) {
    int b = lsim_runtime_backends(rt, &err);
    rc = b == LSIM_E_BACKEND_INIT ? LSIM_OK : b;
  }
  lsim_runtime_destroy(rt);
  lsim_error_clear(&err);
  return rc;
}

static int pallas_rule(lsim_lowering_rule_context *ctx, const MlirValue *args, MlirValue *results,
                       const lsim_pallas_call_params *params, void *data, lsim_error *err) {
  (void)ctx, (void)args, (void)results, (void)params, (void)data, (void)err;
  return LSIM_OK;
}

static int pallas_registry(void) {
  static const lsim_pallas_params_class mine = {"MyParams"};
  lsim_error err = LSIM_ERROR_INIT;
  lsim_pallas *p = NULL;
  lsim_pallas_installed all =
      LSIM_PALLAS_INSTALLED_INIT(.mosaic_tpu = true, .triton = true, .mosaic_gpu = true);
  int rc = lsim_pallas_create(&all, &p, &err);
  if (!rc)
    rc = lsim_pallas_register_lowering_rule(p, &mine, (lsim_pallas_rule){pallas_rule, NULL}, "gpu",
                                            &err);
  const lsim_pallas_rule *rule;
  if (!rc) {
    int g = lsim_pallas_get_lowering_rule(p, &mine, "tpu", &rule, &err);
    rc = g == LSIM_E_PALLAS_PARAMS_PLATFORM ? LSIM_OK : g;
  }
  lsim_pallas_destroy(p);
  lsim_error_clear(&err);
  return rc;
}

/* The registry of a JAX process, then a program's own primitives and rules. */
static int jax_registry(void) {
  static const lsim_ffi_rule kernel = {"k", LSIM_BACKEND_USE_NONE};
  lsim_error err = LSIM_ERROR_INIT;
  lsim_runtime *rt = NULL;
  lsim_pallas *p = NULL;
  lsim_registry *reg = NULL;
  lsim_primitive *mine[40] = {NULL};
  lsim_pallas_installed all =
      LSIM_PALLAS_INSTALLED_INIT(.mosaic_tpu = true, .triton = true, .mosaic_gpu = true);
  int rc = lsim_runtime_create_default(&rt, &err);
  if (!rc)
    rc = lsim_pallas_create(&all, &p, &err);
  if (!rc)
    rc = lsim_registry_create_jax(rt, p, NULL, &reg, &err);
  for (size_t i = 0; !rc && i < 40; i++) {
    char name[16];
    snprintf(name, sizeof name, "mine%zu", i);
    rc = lsim_primitive_create(name, &mine[i], &err);
    if (!rc)
      rc = lsim_register_lowering(reg, mine[i], lsim_ffi_lowering(&kernel), i % 2 ? "gpu" : NULL,
                                  &err);
  }
  lsim_registry_destroy(reg);
  for (size_t i = 0; i < 40; i++)
    lsim_primitive_destroy(mine[i]);
  lsim_pallas_destroy(p);
  lsim_runtime_destroy(rt);
  lsim_error_clear(&err);
  return rc;
}

static int read_and_write_scenario(void) {
  lsim_error err = LSIM_ERROR_INIT;
  lsim_scenario *s = NULL;
  int rc = lsim_scenario_read_file(LSIM_TEST_SOURCE_DIR "/testdata/scenario-fixtures/full.xml", &s,
                                   &err);
  if (!rc) {
    FILE *out = tmpfile();
    rc = out ? lsim_scenario_write(s, out, &err) : LSIM_OK;
    if (out)
      fclose(out);
  }
  lsim_scenario_destroy(s);
  lsim_error_clear(&err);
  return rc;
}

static void test_runtime(void) { each_allocation_fails("runtime", runtime_lifecycle); }
static void test_jax_platforms(void) { each_allocation_fails("JAX_PLATFORMS", jax_platforms_errors); }
static void test_pallas_registry(void) { each_allocation_fails("pallas", pallas_registry); }
static void test_jax_registry(void) { each_allocation_fails("jax registry", jax_registry); }
static void test_scenario_files(void) { each_allocation_fails("scenario", read_and_write_scenario); }

/* When the type cache cannot grow, aval_to_ir_type still gives the type
 * (issue 11: it gave a null type, which six callers used unchecked). */
static void test_aval_type_without_cache(void) {
  static const lsim_aval x = {.dtype = LSIM_DTYPE_F32, .rank = 1, .dims = {4}};
  const char *cpu[] = {"cpu"};
  lsim_runtime *rt = NULL;
  lsim_module_context *mc = NULL;
  CU_ASSERT_EQUAL_FATAL(lsim_runtime_create_default(&rt, NULL), LSIM_OK);
  lsim_module_context_options o =
      LSIM_MODULE_CONTEXT_OPTIONS_INIT(.runtime = rt, .platforms = cpu, .num_platforms = 1);
  CU_ASSERT_EQUAL_FATAL(lsim_module_context_create(&o, &mc, NULL), LSIM_OK);
  countdown = 1; /* the cache's first table */
  MlirType t = lsim_module_context_aval_to_ir_type(mc, &x);
  bool failed = countdown == 0;
  countdown = 0;
  CU_ASSERT_TRUE(failed);
  CU_ASSERT_FALSE(mlirTypeIsNull(t));
  CU_ASSERT_EQUAL(lsim_module_context_type_cache_size(mc), 0);
  CU_ASSERT_TRUE(mlirTypeEqual(t, lsim_module_context_aval_to_ir_type(mc, &x)));
  CU_ASSERT_EQUAL(lsim_module_context_type_cache_size(mc), 1);
  lsim_module_context_destroy(mc);
  lsim_runtime_destroy(rt);
}

static CU_TestInfo tests[] = {
    {"runtime: factories, backends, get_backend", test_runtime},
    {"JAX_PLATFORMS and initialization errors", test_jax_platforms},
    {"Pallas params registry", test_pallas_registry},
    {"the registry of a JAX process, own primitives", test_jax_registry},
    {"scenario read and write", test_scenario_files},
    {"aval_to_ir_type when its cache cannot grow", test_aval_type_without_cache},
    CU_TEST_INFO_NULL,
};

CU_SuiteInfo oom_suite[] = {{"oom", NULL, NULL, NULL, NULL, tests}, CU_SUITE_INFO_NULL};
