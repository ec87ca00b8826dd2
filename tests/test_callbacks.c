/* tests/test_callbacks.c: host callbacks through the C API: every error of
 * the callbacks' part of the catalogue on every platform of the model, the
 * targets and attributes, the channel boundary through real lowering, and
 * the run-time execution of C callbacks. */
#include "lowersim/buffer_callback.h"
#include "lowersim/callback.h"
#include "lowersim/debugging.h"
#include "lowersim/jax.h"
#include "lowersim/lowering.h"
#include "tests/fixtures.h"
#include "tests/suites.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N_PLATFORMS TEST_NUM_PLATFORMS

static lsim_runtime *runtime;
static lsim_registry *registry;
static lsim_lowerer *lowerer;

static int suite_init(void) {
  if (!(runtime = test_runtime_all_platforms()) || lsim_lowerer_create(&lowerer, NULL))
    return 1;
  return lsim_registry_create_jax(runtime, NULL, NULL, &registry, NULL);
}

static int suite_clean(void) {
  lsim_registry_destroy(registry);
  lsim_lowerer_destroy(lowerer);
  lsim_runtime_destroy(runtime);
  return 0;
}

static const lsim_aval f32_4 = {.dtype = LSIM_DTYPE_F32, .rank = 1, .dims = {4}};
static const lsim_aval i32_scalar = {.dtype = LSIM_DTYPE_I32};
static const size_t operand0 = 0;

/* Lowers one callback equation over f32[4] with `reg` for `p` (count
 * platforms).  One platform without `backend` is lowered as
 * jax.jit(f, backend=p[0]): under jit the callbacks need the ModuleContext's
 * backend to be the lowering platform's (the default device is the
 * runtime's default, cuda). */
static int lower_eqn(const lsim_registry *reg, const lsim_primitive *primitive,
                     const void *params, bool ordered, const lsim_aval *results,
                     size_t num_results, const char *const *p, size_t count, const char *backend,
                     lsim_lowering **out, lsim_error *err) {
  if (!backend && count == 1)
    backend = p[0];
  lsim_eqn eqn = {.primitive = primitive, .operands = &operand0, .num_operands = 1,
                  .results = results, .num_results = num_results, .params = params,
                  .ordered_effect = ordered};
  lsim_program prog = {.function_name = "f", .args = &f32_4, .num_args = 1, .eqns = &eqn,
                       .num_eqns = 1};
  lsim_lowering_request req = LSIM_LOWERING_REQUEST_INIT(.registry = reg, .program = &prog,
                               .platforms = p, .num_platforms = count, .backend = backend);
  return lsim_lower(lowerer, &req, out, err);
}

/* The same with the suite's registry. */
static int lower_one(const lsim_primitive *primitive, const void *params, bool ordered,
                     const lsim_aval *results, size_t num_results, const char *const *p,
                     size_t count, const char *backend, lsim_lowering **out, lsim_error *err) {
  return lower_eqn(registry, primitive, params, ordered, results, num_results, p, count, backend,
                   out, err);
}

static char *lower_text(const lsim_primitive *primitive, const void *params, bool ordered,
                        const lsim_aval *results, size_t num_results, const char *platform) {
  lsim_lowering *low = NULL;
  lsim_error err = LSIM_ERROR_INIT;
  int rc = lower_one(primitive, params, ordered, results, num_results, &platform, 1, NULL, &low,
                     &err);
  CU_ASSERT_EQUAL(rc, LSIM_OK);
  if (rc)
    fprintf(stderr, "\n  %s on %s: %s", primitive->name, platform, lsim_error_message(&err));
  char *text = rc ? NULL : lsim_lowering_print(low);
  lsim_lowering_destroy(low);
  lsim_error_clear(&err);
  return text;
}

static void expect_error(int rc, const lsim_error *err, int code, const char *message) {
  CU_ASSERT_EQUAL(rc, code);
  CU_ASSERT_STRING_EQUAL(lsim_error_message(err), message);
  if (rc != code || strcmp(lsim_error_message(err), message) != 0)
    fprintf(stderr, "\n  got %d '%s'\n  want %d '%s'", rc, lsim_error_message(err), code, message);
}

/* --- buffer_callback -------------------------------------------------------- */

static void test_buffer_callback_every_platform(void) {
  lsim_buffer_callback_params p = {.command_buffer_compatible = true};
  for (size_t i = 0; i < N_PLATFORMS; i++) {
    lsim_lowering *low = NULL;
    lsim_error err = LSIM_ERROR_INIT;
    int rc = lower_one(&lsim_buffer_callback_p, &p, false, &f32_4, 1, &test_platforms[i], 1,
                       NULL, &low, &err);
    const char *target = NULL;
    if (strcmp(test_platforms[i], "cpu") == 0)
      target = "call_target_name = \"xla_buffer_python_cpu_callback\"";
    else if (strcmp(test_platforms[i], "tpu") != 0 && strcmp(test_platforms[i], "metal") != 0)
      target = "call_target_name = \"xla_buffer_python_gpu_callback_cmd_buffer\"";
    if (target) {
      CU_ASSERT_EQUAL_FATAL(rc, LSIM_OK);
      char *text = lsim_lowering_print(low);
      CU_ASSERT_PTR_NOT_NULL(strstr(text, target));
      CU_ASSERT_PTR_NOT_NULL(strstr(text, "mhlo.backend_config = {index = 0 : ui64}"));
      CU_ASSERT_PTR_NOT_NULL(strstr(text, "output_operand_aliases = []"));
      free(text);
    } else {
      char message[96];
      snprintf(message, sizeof message, "`buffer_callback` not supported on %s backend.",
               test_platforms[i]);
      expect_error(rc, &err, LSIM_E_BUFFER_CALLBACK_UNSUPPORTED, message);
      CU_ASSERT_STRING_EQUAL(lsim_error_class(&err), "ValueError");
    }
    /* Several platforms: refused first, whatever they are. */
    const char *pair[] = {test_platforms[i], test_platforms[(i + 1) % N_PLATFORMS]};
    lsim_lowering_destroy(low);
    low = NULL;
    rc = lower_one(&lsim_buffer_callback_p, &p, false, &f32_4, 1, pair, 2, NULL, &low, &err);
    expect_error(rc, &err, LSIM_E_BUFFER_CALLBACK_MULTI_PLATFORM,
                 "multi-platform lowering for buffer_callback");
    CU_ASSERT_PTR_NULL(low);
    lsim_error_clear(&err);
  }
}

static void test_buffer_callback_alias_checks(void) {
  const lsim_aval results[] = {f32_4, i32_scalar};
  struct {
    lsim_io_alias alias[2];
    size_t n;
    int code;
    const char *message;
  } cases[] = {
      {{{1, 0}}, 1, LSIM_E_ALIAS_INPUT_RANGE,
       "input_output_aliases contains the mapping '1:0' with input index 1 outside the range [0, 1)."},
      {{{0, 2}}, 1, LSIM_E_ALIAS_OUTPUT_RANGE,
       "input_output_aliases contains the mapping '0:2' with output index 2 outside the range [0, 2)."},
      {{{0, 1}}, 1, LSIM_E_ALIAS_AVAL_MISMATCH,
       "input_output_aliases contains the mapping '0:1' referring to an input with abstract value "
       "float32[4] and an output with a different abstract value int32[]."},
      /* A dict: the repeated input keeps the last output. */
      {{{0, 1}, {0, 0}}, 2, LSIM_OK, NULL},
  };
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
    for (size_t i = 0; i < N_PLATFORMS; i++) {
      lsim_buffer_callback_params p = {.aliases = cases[c].alias, .num_aliases = cases[c].n};
      lsim_lowering *low = NULL;
      lsim_error err = LSIM_ERROR_INIT;
      /* Checked while binding: before the platform is looked at, even for two. */
      const char *pair[] = {test_platforms[i], "cpu"};
      int rc = lower_one(&lsim_buffer_callback_p, &p, false, results, 2, pair,
                         i == 0 ? 1 : 2, NULL, &low, &err);
      if (cases[c].message) {
        expect_error(rc, &err, cases[c].code, cases[c].message);
      } else {
        CU_ASSERT_TRUE(rc == LSIM_OK || rc == LSIM_E_BUFFER_CALLBACK_MULTI_PLATFORM);
      }
      lsim_lowering_destroy(low);
      lsim_error_clear(&err);
    }
  }
  char *text = lower_text(&lsim_buffer_callback_p,
                          &(lsim_buffer_callback_params){.aliases = cases[3].alias, .num_aliases = 2},
                          false, results, 2, "cpu");
  CU_ASSERT_PTR_NOT_NULL(strstr(text, "output_operand_aliases = [#stablehlo.output_operand_alias<"
                                      "output_tuple_indices = [0], operand_index = 0, "
                                      "operand_tuple_indices = []>]"));
  free(text);
}

/* --- pure, io and debug callbacks ------------------------------------------- */

static void test_python_callbacks_every_platform(void) {
  const lsim_primitive *kinds[] = {&lsim_pure_callback_p, &lsim_io_callback_p,
                                   &lsim_debug_callback_p};
  lsim_python_callback_params p = {0};
  for (size_t k = 0; k < 3; k++) {
    bool debug = k == 2;
    for (size_t i = 0; i < N_PLATFORMS; i++) {
      lsim_lowering *low = NULL;
      lsim_error err = LSIM_ERROR_INIT;
      int rc = lower_one(kinds[k], &p, false, debug ? NULL : &f32_4, debug ? 0 : 1, &test_platforms[i],
                         1, NULL, &low, &err);
      char message[128];
      const char *platform = test_platforms[i];
      /* debug_callback is registered for cpu, gpu (so cuda, rocm, oneapi) and tpu. */
      if (debug && strcmp(platform, "metal") == 0) {
        snprintf(message, sizeof message,
                 "MLIR translation rule for primitive 'debug_callback' not found for platform %s",
                 platform);
        expect_error(rc, &err, LSIM_E_NO_LOWERING_RULE, message);
      } else if (strcmp(platform, "metal") == 0) { /* oneapi from 0.11.1 */
        snprintf(message, sizeof message, "`EmitPythonCallback` not supported on %s backend.",
                 platform);
        expect_error(rc, &err, LSIM_E_PYTHON_CALLBACK_UNSUPPORTED, message);
      } else {
        CU_ASSERT_EQUAL(rc, LSIM_OK);
      }
      const char *pair[] = {"cpu", "tpu"};
      lsim_lowering_destroy(low);
      low = NULL;
      rc = lower_one(kinds[k], &p, false, debug ? NULL : &f32_4, debug ? 0 : 1, pair, 2, NULL,
                     &low, &err);
      /* pure and io callbacks have one rule for every platform, which
       * refuses several; debug_callback's two kept rules meet
       * lower_per_platform's list + tuple (it is not cacheable). */
      if (debug)
        expect_error(rc, &err, LSIM_E_UNCACHED_MULTI_PLATFORM,
                     "can only concatenate list (not \"tuple\") to list");
      else
        expect_error(rc, &err, LSIM_E_PYTHON_CALLBACK_MULTI_PLATFORM,
                     "multi-platform lowering for python_callback");
      lsim_error_clear(&err);
    }
  }
}

/* A rule calling emit_python_callback partitioned, whatever the equation. */
static int partitioned_rule(lsim_lowering_rule_context *ctx, const MlirValue *args,
                            MlirValue *results, const void *params, void *data, lsim_error *err) {
  (void)data;
  const lsim_python_callback_params *p = params;
  lsim_python_callback how = {.has_side_effect = true, .partitioned = true, .returns_token = true};
  return lsim_emit_python_callback(ctx, &p->callback, &how, args, results, err);
}

static void test_partitioned_debug_callback(void) {
  lsim_python_callback_params p = {.partitioned = true};
  for (size_t i = 0; i < N_PLATFORMS; i++) {
    lsim_lowering *low = NULL;
    lsim_error err = LSIM_ERROR_INIT;
    int rc = lower_one(&lsim_debug_callback_p, &p, false, NULL, 0, &test_platforms[i], 1, NULL,
                       &low, &err);
    if (strcmp(test_platforms[i], "tpu") == 0) {
      expect_error(rc, &err, LSIM_E_PARTITIONED_CALLBACK_PLATFORM,
                   "Partitioned callback not implemented on tpu backend.");
    } else if (strcmp(test_platforms[i], "metal") == 0) {
      CU_ASSERT_EQUAL(rc, LSIM_E_NO_LOWERING_RULE);
    } else {
      CU_ASSERT_EQUAL(rc, LSIM_OK);
    }
    lsim_lowering_destroy(low);
    lsim_error_clear(&err);
  }
  /* With results: emit_python_callback itself refuses (no JAX callback
   * primitive asks for that, so a rule of the test's own does). */
  lsim_lowering *low = NULL;
  lsim_error err = LSIM_ERROR_INIT;
  const char *cpu = "cpu";
  static const lsim_primitive partitioned_with_results = {.name = "partitioned_with_results"};
  CU_ASSERT_EQUAL_FATAL(lsim_register_lowering(registry, &partitioned_with_results,
                                               (lsim_rule){partitioned_rule, NULL}, NULL, NULL),
                        LSIM_OK);
  int rc = lower_one(&partitioned_with_results, &p, false, &f32_4, 1, &cpu, 1, NULL, &low, &err);
  expect_error(rc, &err, LSIM_E_PARTITIONED_CALLBACK_RESULTS,
               "Partitioned callback not supported with return values.");
  lsim_error_clear(&err);
  char *text = lower_text(&lsim_debug_callback_p, &p, false, NULL, 0, "cuda");
  CU_ASSERT_PTR_NOT_NULL(strstr(text, "\"xla_ffi_partitioned_python_gpu_callback\""));
  free(text);
}

static void test_pinned_backend_on_other_platform(void) {
  lsim_python_callback_params p = {0};
  lsim_lowering *low = NULL;
  lsim_error err = LSIM_ERROR_INIT;
  const char *tpu = "tpu";
  int rc = lower_one(&lsim_io_callback_p, &p, false, &f32_4, 1, &tpu, 1, "cpu", &low, &err);
  expect_error(rc, &err, LSIM_E_BACKEND_PLATFORM_MISMATCH,
               "the platform for the specified backend cpu is different from the lowering "
               "platform tpu");
  /* buffer_callback never asks for the backend. */
  rc = lower_one(&lsim_buffer_callback_p, &(lsim_buffer_callback_params){0}, false, &f32_4,
                 1, (const char *[]){"cuda"}, 1, "cpu", &low, &err);
  CU_ASSERT_EQUAL(rc, LSIM_OK);
  lsim_lowering_destroy(low);
  lsim_error_clear(&err);
}

static void test_targets_tokens_and_tpu_transfers(void) {
  lsim_python_callback_params ordered = {.ordered = true};
  char *text = lower_text(&lsim_io_callback_p, &ordered, true, &f32_4, 1, "rocm");
  CU_ASSERT_PTR_NOT_NULL(strstr(text, "call_target_name = \"xla_ffi_python_gpu_callback\""));
  CU_ASSERT_PTR_NOT_NULL(strstr(text, "has_side_effect = true"));
  CU_ASSERT_PTR_NOT_NULL(strstr(text, "%arg0: !stablehlo.token {jax.token = true}"));
  CU_ASSERT_PTR_NOT_NULL(strstr(text, "(!stablehlo.token, tensor<4xf32>) -> (!stablehlo.token, tensor<4xf32>)"));
  free(text);
  text = lower_text(&lsim_pure_callback_p, &(lsim_python_callback_params){0}, false, &f32_4,
                    1, "tpu");
  CU_ASSERT_PTR_NOT_NULL(strstr(text, "channel_handle = #stablehlo.channel_handle<handle = 2, type = 2>"));
  CU_ASSERT_PTR_NOT_NULL(strstr(text, "channel_handle = #stablehlo.channel_handle<handle = 3, type = 3>"));
  CU_ASSERT_PTR_NOT_NULL(strstr(text, "_xla_host_transfer_handler_name = \"pjrt_rendezvous\", "
                                      "_xla_host_transfer_rendezvous = \"3\""));
  CU_ASSERT_PTR_NOT_NULL(strstr(text, "stablehlo.create_token"));
  free(text);
  /* A debug callback without operands on tpu: dummy send, dummy receive. */
  text = lower_text(&lsim_debug_callback_p, &(lsim_python_callback_params){0}, false, NULL,
                    0, "tpu");
  CU_ASSERT_PTR_NOT_NULL(strstr(text, "(tensor<4xf32>, !stablehlo.token) -> !stablehlo.token"));
  CU_ASSERT_PTR_NOT_NULL(strstr(text, "(!stablehlo.token) -> (tensor<f32>, !stablehlo.token)"));
  free(text);
}

/* --- the channel boundary --------------------------------------------------- */

static void lower_io_callbacks(size_t count, int *rc_out, lsim_error *err, int64_t *channels) {
  /* Unordered io_callbacks with one operand and no results on tpu: one send,
   * so one channel each. */
  lsim_eqn *eqns = calloc(count, sizeof *eqns);
  static lsim_python_callback_params p = {0};
  for (size_t i = 0; i < count; i++)
    eqns[i] = (lsim_eqn){.primitive = &lsim_io_callback_p, .operands = &operand0,
                         .num_operands = 1, .params = &p};
  lsim_program prog = {.function_name = "f", .args = &f32_4, .num_args = 1, .eqns = eqns,
                       .num_eqns = count};
  const char *tpu = "tpu";
  lsim_lowering_request req = LSIM_LOWERING_REQUEST_INIT(.registry = registry, .program = &prog,
                               .platforms = &tpu, .num_platforms = 1, .backend = tpu);
  lsim_lowering *low = NULL;
  *rc_out = lsim_lower(lowerer, &req, &low, err);
  *channels = low ? lsim_module_context_channel_count(lsim_lowering_module_context(low)) : -1;
  lsim_lowering_destroy(low);
  free(eqns);
}

static void test_channel_boundary(void) {
  int rc;
  int64_t channels;
  lsim_error err = LSIM_ERROR_INIT;
  lower_io_callbacks(65534, &rc, &err, &channels);
  CU_ASSERT_EQUAL(rc, LSIM_OK);
  CU_ASSERT_EQUAL(channels, 65534); /* ids 2..65535 */
  lower_io_callbacks(65535, &rc, &err, &channels);
  expect_error(rc, &err, LSIM_E_TOO_MANY_CHANNELS,
               "Host callback lowering created too many channels. PjRt does not support more "
               "than 65535 channels");
  CU_ASSERT_EQUAL(channels, -1); /* nothing half-emitted is returned */
  lsim_error_clear(&err);
}

/* --- execution ---------------------------------------------------------------- */

typedef struct recorder {
  int calls[8];
  int n;
  bool return_value;
} recorder;

static int record(void *user_data, lsim_host_callback_call *call) {
  recorder *r = user_data;
  r->calls[r->n++ % 8] = (int)call->index;
  call->returned_values = r->return_value ? 1 : 0;
  return LSIM_OK;
}

static void test_execute_in_index_order(void) {
  recorder r = {0};
  lsim_buffer_callback_params b = {.callback = {.fn = record, .user_data = &r}};
  lsim_python_callback_params py = {.callback = {.fn = record, .user_data = &r}};
  const size_t one = 1;
  lsim_eqn eqns[] = {
      {.primitive = &lsim_buffer_callback_p, .operands = &operand0, .num_operands = 1,
       .results = &f32_4, .num_results = 1, .params = &b},
      {.primitive = &lsim_pure_callback_p, .operands = &one, .num_operands = 1,
       .results = &f32_4, .num_results = 1, .params = &py},
      {.primitive = &lsim_buffer_callback_p, .operands = &operand0, .num_operands = 1,
       .results = &f32_4, .num_results = 1, .params = &b},
  };
  static const size_t outputs[] = {1, 2, 3}; /* all used: jit drops none */
  lsim_program prog = {.function_name = "f", .args = &f32_4, .num_args = 1, .eqns = eqns,
                       .num_eqns = 3, .has_outputs = true, .outputs = outputs, .num_outputs = 3};
  const char *cpu = "cpu";
  lsim_lowering_request req = LSIM_LOWERING_REQUEST_INIT(.registry = registry, .program = &prog,
                               .platforms = &cpu, .num_platforms = 1, .backend = cpu);
  lsim_lowering *low = NULL;
  lsim_error err = LSIM_ERROR_INIT;
  CU_ASSERT_EQUAL_FATAL(lsim_lower(lowerer, &req, &low, &err), LSIM_OK);
  char *text = lsim_lowering_print(low);
  CU_ASSERT_PTR_NOT_NULL(strstr(text, "{index = 2 : ui64}"));
  free(text);
  CU_ASSERT_EQUAL(lsim_lowering_execute(low, &err), LSIM_OK);
  CU_ASSERT_EQUAL(r.n, 3);
  CU_ASSERT_TRUE(r.calls[0] == 0 && r.calls[1] == 1 && r.calls[2] == 2);
  r = (recorder){.return_value = true};
  expect_error(lsim_lowering_execute(low, &err), &err, LSIM_E_CALLBACK_RETURNED_VALUES,
               "buffer_callback callback must not return any values.");
  CU_ASSERT_EQUAL(r.n, 1); /* the first failure stops the run */
  lsim_lowering_destroy(low);
  lsim_error_clear(&err);
}

/* --- profiles and shardings ---------------------------------------------------- */

/* Lowers one callback equation with a registry of `profile` over `rt`. */
static int lower_with(lsim_runtime *rt, const lsim_jax_profile *profile,
                      const lsim_primitive *primitive, const void *params, bool ordered,
                      const lsim_aval *results, size_t num_results, const char *const *p,
                      size_t count, const char *backend, char **text, lsim_error *err) {
  lsim_registry *reg = NULL;
  int rc = lsim_registry_create_jax(rt, NULL, profile, &reg, err);
  lsim_lowering *low = NULL;
  if (!rc)
    rc = lower_eqn(reg, primitive, params, ordered, results, num_results, p, count, backend, &low,
                   err);
  *text = rc ? NULL : lsim_lowering_print(low);
  lsim_lowering_destroy(low);
  lsim_registry_destroy(reg);
  return rc;
}

static bool has(const char *text, const char *needle) {
  bool found = text && strstr(text, needle);
  if (!found)
    fprintf(stderr, "\n  missing: %s", needle);
  return found;
}

static void test_buffer_callback_oneapi_by_profile(void) {
  lsim_buffer_callback_params p = {.command_buffer_compatible = true};
  const char *oneapi = "oneapi";
  char *text;
  lsim_error err = LSIM_ERROR_INIT;
  int rc = lower_with(runtime, &lsim_jax_0_10_2, &lsim_buffer_callback_p, &p, false, &f32_4, 1,
                      &oneapi, 1, NULL, &text, &err);
  expect_error(rc, &err, LSIM_E_BUFFER_CALLBACK_UNSUPPORTED,
               "`buffer_callback` not supported on oneapi backend.");
  rc = lower_with(runtime, &lsim_jax_0_11_1, &lsim_buffer_callback_p, &p, false,
                  &f32_4, 1, &oneapi, 1, NULL, &text, &err);
  CU_ASSERT_EQUAL(rc, LSIM_OK);
  CU_ASSERT_TRUE(has(text, "call_target_name = \"xla_buffer_python_gpu_callback_cmd_buffer\""));
  free(text);
  lsim_error_clear(&err);
}

static void test_uncached_type_error_by_profile(void) {
  lsim_jax_profile fixed = lsim_jax_0_10_2;
  fixed.uncached_multi_platform_type_error = false;
  const char *pair[] = {"cuda", "rocm"};
  char *text;
  lsim_error err = LSIM_ERROR_INIT;
  lsim_python_callback_params p = {0};
  int rc = lower_with(runtime, &lsim_jax_0_10_2, &lsim_debug_callback_p, &p, false, NULL, 0, pair,
                      2, NULL, &text, &err);
  expect_error(rc, &err, LSIM_E_UNCACHED_MULTI_PLATFORM,
               "can only concatenate list (not \"tuple\") to list");
  CU_ASSERT_STRING_EQUAL(lsim_error_class(&err), "TypeError");
  /* Without the bug, the rule's own refusal comes next. */
  rc = lower_with(runtime, &fixed, &lsim_debug_callback_p, &p, false, NULL, 0, pair, 2, NULL,
                  &text, &err);
  expect_error(rc, &err, LSIM_E_PYTHON_CALLBACK_MULTI_PLATFORM,
               "multi-platform lowering for python_callback");
  lsim_error_clear(&err);
}

#define MAXIMAL_MESH_0                                                                         \
  "\"sdy.mesh\"() {mesh = #sdy.mesh<[], device_ids=[0]>, stablehlo.mesh = {axes = [], "         \
  "device_ids = dense<0> : tensor<1xi64>}, sym_name = \"maximal_mesh_0\"} : () -> ()"
#define EMPTY_MESH                                                                             \
  "\"sdy.mesh\"() {mesh = #sdy.mesh<[]>, stablehlo.mesh = {axes = []}, sym_name = "            \
  "\"empty_mesh\"} : () -> ()"
#define ONE "<@maximal_mesh_0, []>"

static void test_shardy_shardings(void) {
  const char *cpu = "cpu", *tpu = "tpu";
  const lsim_aval two[] = {f32_4, i32_scalar};
  lsim_python_callback_params none = {0}, ordered = {.ordered = true};
  lsim_error err = LSIM_ERROR_INIT;
  char *text;
  /* pure_callback: one entry per result; the meshes first in the module, in
   * the order named: jit(backend=cpu)'s arguments' (lower_eqn pins the
   * backend), then the callback's (as JAX 0.10.2 prints it). */
  CU_ASSERT_EQUAL(lower_with(runtime, NULL, &lsim_pure_callback_p, &none, false, two, 2, &cpu, 1,
                             NULL, &text, &err), LSIM_OK);
  CU_ASSERT_TRUE(has(text, "{\n  " EMPTY_MESH "\n  " MAXIMAL_MESH_0 "\n  func.func public @main"));
  CU_ASSERT_TRUE(has(text, "sdy.sharding = #sdy.sharding_per_value<[" ONE ", " ONE "]>}"));
  free(text);
  /* Ordered io_callback with a result: an entry for the token in front. */
  CU_ASSERT_EQUAL(lower_with(runtime, NULL, &lsim_io_callback_p, &ordered, true, &f32_4, 1, &cpu,
                             1, NULL, &text, &err), LSIM_OK);
  CU_ASSERT_TRUE(has(text, "sdy.sharding = #sdy.sharding_per_value<[" ONE ", " ONE "]>}"));
  free(text);
  /* ... without results, the one entry stands for the token. */
  CU_ASSERT_EQUAL(lower_with(runtime, NULL, &lsim_io_callback_p, &ordered, true, NULL, 0, &cpu,
                             1, NULL, &text, &err), LSIM_OK);
  CU_ASSERT_TRUE(has(text, "sdy.sharding = #sdy.sharding_per_value<[" ONE "]>}"));
  free(text);
  /* An ordered debug callback has no sharding, and the module no maximal
   * mesh. */
  CU_ASSERT_EQUAL(lower_with(runtime, NULL, &lsim_debug_callback_p, &ordered, true, NULL, 0, &cpu,
                             1, NULL, &text, &err), LSIM_OK);
  CU_ASSERT_PTR_NULL(strstr(text, "maximal_mesh"));
  CU_ASSERT_PTR_NULL(strstr(text, "sdy.sharding_per_value"));
  free(text);
  /* tpu: sends one entry, receives two. */
  CU_ASSERT_EQUAL(lower_with(runtime, NULL, &lsim_pure_callback_p, &none, false, &f32_4, 1, &tpu,
                             1, NULL, &text, &err), LSIM_OK);
  CU_ASSERT_TRUE(has(text, "sdy.sharding = #sdy.sharding_per_value<[" ONE "]>} : (tensor<4xf32>, "
                           "!stablehlo.token) -> !stablehlo.token"));
  CU_ASSERT_TRUE(has(text, "sdy.sharding = #sdy.sharding_per_value<[" ONE ", " ONE "]>} : "
                           "(!stablehlo.token) -> (tensor<4xf32>, !stablehlo.token)"));
  free(text);
  /* jit(backend=): main's args and results on the empty mesh, lifted
   * first. */
  CU_ASSERT_EQUAL(lower_with(runtime, NULL, &lsim_pure_callback_p, &none, false, &f32_4, 1, &cpu,
                             1, "cpu", &text, &err), LSIM_OK);
  CU_ASSERT_TRUE(has(text, "{\n  " EMPTY_MESH "\n  " MAXIMAL_MESH_0 "\n  func.func"));
  CU_ASSERT_TRUE(has(text, "%arg0: tensor<4xf32> {sdy.sharding = #sdy.sharding<@empty_mesh, [{}]>}"));
  CU_ASSERT_TRUE(has(text, "{jax.result_info = \"result\", sdy.sharding = "
                           "#sdy.sharding<@empty_mesh, [{}]>}"));
  free(text);
  lsim_error_clear(&err);
}

static void test_without_shardy(void) {
  lsim_jax_profile gspmd = lsim_jax_0_10_2;
  gspmd.use_shardy_partitioner = false;
  const char *cpu = "cpu", *tpu = "tpu";
  lsim_python_callback_params ordered = {.ordered = true};
  lsim_error err = LSIM_ERROR_INIT;
  char *text;
  CU_ASSERT_EQUAL(lower_with(runtime, &gspmd, &lsim_io_callback_p, &ordered, true, &f32_4, 1, &cpu,
                             1, "cpu", &text, &err), LSIM_OK);
  CU_ASSERT_PTR_NULL(strstr(text, "sdy."));
  CU_ASSERT_TRUE(has(text, "mhlo.sharding = \"{maximal device=0}\""));
  CU_ASSERT_TRUE(has(text, "%arg1: tensor<4xf32> {mhlo.sharding = \"{replicated}\"}"));
  free(text);
  CU_ASSERT_EQUAL(lower_with(runtime, &gspmd, &lsim_pure_callback_p, &ordered, false, &f32_4, 1,
                             &tpu, 1, NULL, &text, &err), LSIM_OK);
  CU_ASSERT_TRUE(has(text, "is_host_transfer = true, mhlo.frontend_attributes = "
                           "{_xla_host_transfer_handler_name = \"pjrt_rendezvous\", "
                           "_xla_host_transfer_rendezvous = \"2\"}, mhlo.sharding = "
                           "\"{maximal device=0}\"}"));
  free(text);
  lsim_error_clear(&err);
}

/* --- effect tokens, devices and sharding= --------------------------------------- */

/* A cpu runtime with `devices` devices, initialized. */
static lsim_runtime *cpu_runtime(int devices) {
  lsim_runtime *rt = NULL;
  lsim_backend_factory f;
  lsim_backend_factory_defaults(&f, "cpu");
  f.device_count = devices;
  if (lsim_runtime_create(&rt, NULL) || lsim_runtime_register_backend_factory(rt, &f, NULL) ||
      lsim_runtime_backends(rt, NULL)) {
    lsim_runtime_destroy(rt);
    return NULL;
  }
  return rt;
}

/* Lowers `prog` for cpu with `devices` (num_devices of them) and `backend`. */
static int lower_program(lsim_runtime *rt, const lsim_program *prog, const lsim_device *devices,
                         size_t num_devices, const char *backend, char **text, lsim_error *err) {
  lsim_registry *reg = NULL;
  int rc = lsim_registry_create_jax(rt, NULL, NULL, &reg, err);
  lsim_lowering_request req = LSIM_LOWERING_REQUEST_INIT(
      .registry = reg, .program = prog, .devices = devices, .num_devices = num_devices,
      .backend = backend);
  lsim_lowering *low = NULL;
  if (!rc)
    rc = lsim_lower(lowerer, &req, &low, err);
  *text = rc ? NULL : lsim_lowering_print(low);
  lsim_lowering_destroy(low);
  lsim_registry_destroy(reg);
  return rc;
}

static void test_one_token_per_effect_kind(void) {
  lsim_runtime *rt = cpu_runtime(1);
  CU_ASSERT_PTR_NOT_NULL_FATAL(rt);
  lsim_python_callback_params ordered = {.ordered = true};
  const size_t one = 1;
  /* debug (ordered), io (ordered), debug again: OrderedDebug's token first. */
  lsim_eqn eqns[] = {
      {.primitive = &lsim_debug_callback_p, .operands = &operand0, .num_operands = 1,
       .params = &ordered, .ordered_effect = true},
      {.primitive = &lsim_io_callback_p, .operands = &operand0, .num_operands = 1,
       .results = &f32_4, .num_results = 1, .params = &ordered, .ordered_effect = true},
      {.primitive = &lsim_debug_callback_p, .operands = &one, .num_operands = 1,
       .params = &ordered, .ordered_effect = true},
  };
  const bool donated = true;
  lsim_program prog = {.function_name = "f", .args = &f32_4, .donated = &donated, .num_args = 1,
                       .eqns = eqns, .num_eqns = 3, .has_outputs = true, .outputs = &one,
                       .num_outputs = 1};
  lsim_effect_kind kinds[3];
  CU_ASSERT_EQUAL(lsim_program_ordered_effects(&prog, kinds, 3), 2);
  CU_ASSERT_STRING_EQUAL(lsim_effect_kind_name(kinds[0]), "OrderedDebug");
  CU_ASSERT_STRING_EQUAL(lsim_effect_kind_name(kinds[1]), "OrderedIO");
  char *text;
  lsim_error err = LSIM_ERROR_INIT;
  CU_ASSERT_EQUAL_FATAL(lower_program(rt, &prog, NULL, 0, NULL, &text, &err), LSIM_OK);
  CU_ASSERT_TRUE(has(text, "@main(%arg0: !stablehlo.token {jax.token = true}, %arg1: "
                           "!stablehlo.token {jax.token = true}, %arg2: tensor<4xf32> "
                           "{tf.aliasing_output = 2 : i32})"));
  /* Each callback takes its kind's token; the later debug callback the one
   * the first returned. */
  CU_ASSERT_TRUE(has(text, "%0 = \"stablehlo.custom_call\"(%arg0, %arg2)"));
  CU_ASSERT_TRUE(has(text, "%1:2 = \"stablehlo.custom_call\"(%arg1, %arg2)"));
  CU_ASSERT_TRUE(has(text, "%2 = \"stablehlo.custom_call\"(%0, %1#1)"));
  CU_ASSERT_TRUE(has(text, "return %2, %1#0, %1#1 : !stablehlo.token, !stablehlo.token, "
                           "tensor<4xf32>"));
  free(text);
  lsim_error_clear(&err);
  lsim_runtime_destroy(rt);
}

static void test_devices_and_sharding(void) {
  lsim_runtime *rt = cpu_runtime(2);
  CU_ASSERT_PTR_NOT_NULL_FATAL(rt);
  const lsim_backend *cpu = lsim_runtime_backend_at(rt, 0);
  const lsim_device two[] = {{cpu, 0}, {cpu, 1}};
  lsim_python_callback_params on_1 = {
      .sharding = {.kind = LSIM_CALLBACK_SHARDING_SINGLE_DEVICE, .device = {cpu, 1}}};
  lsim_eqn pure = {.primitive = &lsim_pure_callback_p, .operands = &operand0, .num_operands = 1,
                   .results = &f32_4, .num_results = 1, .params = &on_1};
  const bool donated = true;
  lsim_program prog = {.function_name = "f", .args = &f32_4, .donated = &donated, .num_args = 1,
                       .eqns = &pure, .num_eqns = 1};
  char *text;
  lsim_error err = LSIM_ERROR_INIT;
  /* One device (the default's first): device 1 is not in the assignment
   * (JAX 0.12.0 names both; before, tuple.index's own ValueError). */
  expect_error(lower_program(rt, &prog, NULL, 0, NULL, &text, &err), &err,
               LSIM_E_CALLBACK_SHARDING_DEVICE_ASSIGNMENT,
               "Sharding provided to pure_callback specifies a device cpu:1 that is not in the "
               "device assignment ((CpuDevice(id=0),))");
  /* in_shardings over both: device 1 is index 1; the arg on @mesh, donated
   * to XLA. */
  CU_ASSERT_EQUAL_FATAL(lower_program(rt, &prog, two, 2, NULL, &text, &err), LSIM_OK);
  CU_ASSERT_TRUE(has(text, "mhlo.num_partitions = 2 : i32"));
  CU_ASSERT_TRUE(has(text, "\"sdy.mesh\"() {mesh = #sdy.mesh<[\"x\"=2]>, stablehlo.mesh = {axes = "
                           "[{name = \"x\", size = 2 : i64}]}, sym_name = \"mesh\"}"));
  CU_ASSERT_TRUE(has(text, "{jax.buffer_donor = true, sdy.sharding = #sdy.sharding<@mesh, [{}]>}"));
  CU_ASSERT_TRUE(has(text, "sdy.sharding = #sdy.sharding_per_value<[<@maximal_mesh_1, []>]>"));
  free(text);
  /* A NamedSharding over a mesh with an axis is refused, for io_callback
   * in pure_callback's words. */
  lsim_python_callback_params named = {.sharding = {.kind = LSIM_CALLBACK_SHARDING_NAMED}};
  pure = (lsim_eqn){.primitive = &lsim_io_callback_p, .operands = &operand0, .num_operands = 1,
                    .params = &named};
  expect_error(lower_program(rt, &prog, NULL, 0, NULL, &text, &err), &err,
               LSIM_E_CALLBACK_SHARDING_TYPE,
               "pure_callback only supports SingleDeviceSharding, but got "
               "<class 'jax.sharding.NamedSharding'>");
  /* Ordered debug callbacks cannot run on several devices; ordered
   * io_callbacks can. */
  lsim_python_callback_params ordered = {.ordered = true};
  pure = (lsim_eqn){.primitive = &lsim_debug_callback_p, .operands = &operand0,
                    .num_operands = 1, .params = &ordered, .ordered_effect = true};
  expect_error(lower_program(rt, &prog, two, 2, NULL, &text, &err), &err,
               LSIM_E_ORDERED_EFFECTS_DEVICES,
               "The following ordered effects are not supported for more than 1 device: "
               "[<jax._src.debugging.OrderedDebugEffect object at 0x7f0000000000>]");
  CU_ASSERT_EQUAL(lower_program(rt, &prog, two, 1, NULL, &text, &err), LSIM_OK);
  free(text);
  pure.primitive = &lsim_io_callback_p;
  CU_ASSERT_EQUAL(lower_program(rt, &prog, two, 2, NULL, &text, &err), LSIM_OK);
  free(text);
  /* jit(backend=) takes no in_shardings; devices must be a backend's first. */
  expect_error(lower_program(rt, &prog, two, 2, "cpu", &text, &err), &err,
               LSIM_E_JIT_BACKEND_IN_SHARDINGS,
               "If backend or device is specified on jit, then in_shardings should not be "
               "specified.");
  CU_ASSERT_EQUAL(lower_program(rt, &prog, two + 1, 1, NULL, &text, &err),
                  LSIM_E_INVALID_ARGUMENT);
  lsim_error_clear(&err);
  lsim_runtime_destroy(rt);
}

static CU_TestInfo tests[] = {
    {"buffer_callback on every platform", test_buffer_callback_every_platform},
    {"buffer_callback alias checks", test_buffer_callback_alias_checks},
    {"pure/io/debug callbacks on every platform", test_python_callbacks_every_platform},
    {"partitioned debug callback", test_partitioned_debug_callback},
    {"pinned backend on another platform", test_pinned_backend_on_other_platform},
    {"targets, tokens and tpu transfers", test_targets_tokens_and_tpu_transfers},
    {"channel boundary through real lowering", test_channel_boundary},
    {"execute in index order", test_execute_in_index_order},
    {"buffer_callback on oneapi by profile", test_buffer_callback_oneapi_by_profile},
    {"lower_per_platform's TypeError by profile", test_uncached_type_error_by_profile},
    {"Shardy shardings and meshes", test_shardy_shardings},
    {"shardings without Shardy", test_without_shardy},
    {"one token per ordered-effect kind", test_one_token_per_effect_kind},
    {"devices, in_shardings and sharding=", test_devices_and_sharding},
    CU_TEST_INFO_NULL,
};

CU_SuiteInfo callbacks_suite[] = {{"callbacks", suite_init, suite_clean, NULL, NULL, tests},
                                  CU_SUITE_INFO_NULL};
