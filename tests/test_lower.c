/* tests/test_lower.c: the registry and lower_per_platform.
 *
 * One primitive is lowered for every platform tuple of length 1 to 4 from
 * {cpu, cuda, rocm, oneapi, tpu, metal} under several rule sets; an oracle
 * written from JAX's mlir.py lower_per_platform predicts the error or the case
 * structure: the constants of the first stablehlo.case, the number of
 * branches of the second, and the platforms each rule was invoked for. */
#include "lowersim/emit.h"
#include "lowersim/ffi.h"
#include "lowersim/jax.h"
#include "lowersim/lowering.h"
#include "lowersim/mlir_text.h"
#include "lowersim/registry.h"
#include "support/strbuf.h"
#include "tests/fixtures.h"
#include "lowersim/lax.h"
#include "cli/pretty.h"
#include "tests/suites.h"

#include <mlir-c/BuiltinAttributes.h>
#include <mlir-c/BuiltinTypes.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define all_platforms test_platforms
#define N_ALL TEST_NUM_PLATFORMS

/* --- a recording rule ---------------------------------------------------- */

typedef struct invocation {
  int rule;
  char platforms[64];
} invocation;

static invocation calls[16];
static int num_calls;

static int recording_rule(lsim_lowering_rule_context *ctx, const MlirValue *args,
                          MlirValue *results, const void *params, void *rule_data,
                          lsim_error *err) {
  (void)params;
  size_t n;
  const char *const *p = lsim_lowering_rule_context_platforms(ctx, &n);
  invocation *inv = &calls[num_calls++ % 16];
  inv->rule = (int)(intptr_t)rule_data;
  inv->platforms[0] = '\0';
  for (size_t i = 0; i < n; i++) {
    strcat(inv->platforms, i ? "," : "");
    strcat(inv->platforms, p[i]);
  }
  char target[16];
  snprintf(target, sizeof target, "rule%d", inv->rule);
  MlirType type = lsim_module_context_aval_to_ir_type(ctx->module_context, &ctx->avals_out[0]);
  lsim_ffi_call call = {.target = target};
  MlirOperation op;
  int rc = lsim_emit_ffi_call(&ctx->ip, &call, args, 1, &type, 1, &op, err);
  if (!rc)
    results[0] = mlirOperationGetResult(op, 0);
  return rc;
}

static lsim_rule rule(int id) { return (lsim_rule){recording_rule, (void *)(intptr_t)id}; }

static const lsim_primitive my_op = {.name = "my_op"};

/* --- rule sets ------------------------------------------------------------ */

typedef struct rule_set {
  const char *name;
  const char *platform[4]; /* registration platforms ("gpu" allowed) */
  int id[4];
  int default_id;          /* -1: none */
} rule_set;

static const rule_set rule_sets[] = {
    {"default only", {NULL}, {0}, 9},
    {"gpu rule and default", {"gpu"}, {1}, 9},
    {"cpu and tpu rules, no default", {"cpu", "tpu"}, {2, 3}, -1},
    {"gpu rule only", {"gpu"}, {4}, -1},
    {"cpu, metal and cuda rules plus default", {"cpu", "metal", "cuda"}, {5, 6, 7}, 9},
};

/* The rule id a platform gets (registration for gpu covers cuda, rocm,
 * oneapi), or -1. */
static int specific_rule(const rule_set *rs, const char *platform) {
  int id = -1;
  for (int i = 0; i < 4 && rs->platform[i]; i++) {
    bool gpu = strcmp(rs->platform[i], "gpu") == 0 &&
               (!strcmp(platform, "cuda") || !strcmp(platform, "rocm") || !strcmp(platform, "oneapi"));
    if (gpu || strcmp(rs->platform[i], platform) == 0)
      id = rs->id[i];
  }
  return id;
}

/* --- the oracle ------------------------------------------------------------- */

typedef struct expectation {
  int code;
  char message[256];
  int num_cases;             /* 0 or 2 */
  int index_of[4];           /* first case: per platform, its kept-rule index */
  int num_kept;
  int kept_rule[5];          /* rule id per kept index */
  char kept_platforms[5][64];
} expectation;

static expectation oracle(const rule_set *rs, const char *const *p, size_t n) {
  expectation e = {0};
  if (n == 1 && specific_rule(rs, p[0]) < 0 && rs->default_id < 0) {
    e.code = LSIM_E_NO_LOWERING_RULE;
    snprintf(e.message, sizeof e.message,
             "MLIR translation rule for primitive 'my_op' not found for platform %s", p[0]);
    return e;
  }
  char without[128] = "";
  int num_without = 0;
  for (size_t i = 0; i < n; i++) {
    int id = specific_rule(rs, p[i]);
    if (id >= 0) {
      e.index_of[i] = e.num_kept;
      e.kept_rule[e.num_kept] = id;
      strcpy(e.kept_platforms[e.num_kept++], p[i]);
    } else {
      e.index_of[i] = -1;
      snprintf(without + strlen(without), sizeof without - strlen(without), "%s'%s'",
               num_without++ ? ", " : "", p[i]);
    }
  }
  if (num_without && rs->default_id < 0) {
    e.code = LSIM_E_NO_LOWERING_RULE;
    snprintf(e.message, sizeof e.message,
             "MLIR translation rule for primitive 'my_op' not found for platforms [%s]", without);
    return e;
  }
  if (num_without) {
    int k = e.num_kept++;
    e.kept_rule[k] = rs->default_id;
    e.kept_platforms[k][0] = '\0';
    for (size_t i = 0; i < n; i++) {
      if (e.index_of[i] < 0) {
        e.index_of[i] = k;
        strcat(e.kept_platforms[k], e.kept_platforms[k][0] ? "," : "");
        strcat(e.kept_platforms[k], p[i]);
      }
    }
  }
  e.num_cases = e.num_kept > 1 ? 2 : 0;
  if (e.num_kept == 1) { /* applied directly, with the module's platforms */
    e.kept_platforms[0][0] = '\0';
    for (size_t i = 0; i < n; i++) {
      strcat(e.kept_platforms[0], i ? "," : "");
      strcat(e.kept_platforms[0], p[i]);
    }
  }
  return e;
}

/* --- inspecting the module ---------------------------------------------- */

typedef struct found {
  int num_cases;
  MlirOperation cases[4];
} found;

static bool op_named(MlirOperation op, const char *name) {
  MlirStringRef n = mlirIdentifierStr(mlirOperationGetName(op));
  return n.length == strlen(name) && memcmp(n.data, name, n.length) == 0;
}

/* The top-level stablehlo.case ops of main, in order. */
static found top_level_cases(MlirModule module) {
  found f = {0};
  MlirOperation func = mlirBlockGetFirstOperation(mlirModuleGetBody(module));
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(func, 0));
  for (MlirOperation op = mlirBlockGetFirstOperation(body); !mlirOperationIsNull(op);
       op = mlirOperationGetNextInBlock(op))
    if (op_named(op, "stablehlo.case") && f.num_cases < 4)
      f.cases[f.num_cases++] = op;
  return f;
}

/* The i32 constant returned by branch b of a case. */
static long long branch_constant(MlirOperation case_op, intptr_t b) {
  MlirBlock block = mlirRegionGetFirstBlock(mlirOperationGetRegion(case_op, b));
  MlirOperation c = mlirBlockGetFirstOperation(block);
  MlirAttribute v = mlirOperationGetAttributeByName(c, mlirStringRefCreateFromCString("value"));
  return mlirDenseElementsAttrGetInt32SplatValue(v);
}

static lsim_runtime *runtime;
static lsim_lowerer *lowerer;
static int checked;

static int suite_init(void) {
  return !(runtime = test_runtime_all_platforms()) || lsim_lowerer_create(&lowerer, NULL);
}

static int suite_clean(void) {
  lsim_lowerer_destroy(lowerer);
  lsim_runtime_destroy(runtime);
  return 0;
}

static lsim_registry *registry_for(const rule_set *rs) {
  lsim_registry *reg = NULL;
  CU_ASSERT_EQUAL_FATAL(lsim_registry_create(runtime, NULL, &reg, NULL), LSIM_OK);
  for (int i = 0; i < 4 && rs->platform[i]; i++)
    CU_ASSERT_EQUAL_FATAL(
        lsim_register_lowering(reg, &my_op, rule(rs->id[i]), rs->platform[i], NULL), LSIM_OK);
  if (rs->default_id >= 0)
    CU_ASSERT_EQUAL_FATAL(lsim_register_lowering(reg, &my_op, rule(rs->default_id), NULL, NULL),
                          LSIM_OK);
  return reg;
}

static const lsim_aval f32_4 = {.dtype = LSIM_DTYPE_F32, .rank = 1, .dims = {4}};

static void check_tuple(const rule_set *rs, lsim_registry *reg, const char *const *p, size_t n) {
  static const size_t operand = 0;
  lsim_eqn eqn = {.primitive = &my_op, .operands = &operand, .num_operands = 1,
                  .results = &f32_4, .num_results = 1};
  lsim_program prog = {.function_name = "f", .args = &f32_4, .num_args = 1, .eqns = &eqn,
                       .num_eqns = 1};
  lsim_lowering_request req =
      LSIM_LOWERING_REQUEST_INIT(.registry = reg, .program = &prog, .platforms = p,
                                 .num_platforms = n);
  expectation want = oracle(rs, p, n);
  num_calls = 0;
  lsim_lowering *low = NULL;
  lsim_error err = LSIM_ERROR_INIT;
  int rc = lsim_lower(lowerer, &req, &low, &err);
  bool ok = rc == want.code;
  if (ok && rc) {
    ok = strcmp(lsim_error_message(&err), want.message) == 0;
  } else if (ok) {
    found f = top_level_cases(lsim_lowering_module(low));
    ok = f.num_cases == want.num_cases && num_calls == want.num_kept;
    if (ok && f.num_cases == 2) {
      ok = mlirOperationGetNumRegions(f.cases[0]) == (intptr_t)n &&
           mlirOperationGetNumRegions(f.cases[1]) == want.num_kept;
      for (size_t i = 0; ok && i < n; i++)
        ok = branch_constant(f.cases[0], (intptr_t)i) == want.index_of[i];
    }
    for (int k = 0; ok && k < want.num_kept; k++)
      ok = calls[k].rule == want.kept_rule[k] && strcmp(calls[k].platforms, want.kept_platforms[k]) == 0;
  }
  CU_ASSERT_TRUE(ok);
  if (!ok) {
    fprintf(stderr, "\n  rule set '%s', platforms", rs->name);
    for (size_t i = 0; i < n; i++)
      fprintf(stderr, " %s", p[i]);
    fprintf(stderr, ": rc %d '%s' (want %d '%s'), %d calls", rc, lsim_error_message(&err),
            want.code, want.message, num_calls);
  }
  checked++;
  lsim_lowering_destroy(low);
  lsim_error_clear(&err);
}

/* Every ordered tuple of distinct platforms of length 1..4. */
static void for_each_tuple(const rule_set *rs, lsim_registry *reg, const char **prefix, size_t n) {
  if (n)
    check_tuple(rs, reg, prefix, n);
  if (n == 4)
    return;
  for (size_t i = 0; i < N_ALL; i++) {
    bool used = false;
    for (size_t j = 0; j < n; j++)
      used = used || strcmp(prefix[j], all_platforms[i]) == 0;
    if (!used) {
      prefix[n] = all_platforms[i];
      for_each_tuple(rs, reg, prefix, n + 1);
    }
  }
}

static void test_lower_per_platform_every_tuple(void) {
  checked = 0;
  for (size_t r = 0; r < sizeof rule_sets / sizeof rule_sets[0]; r++) {
    lsim_registry *reg = registry_for(&rule_sets[r]);
    const char *prefix[4];
    for_each_tuple(&rule_sets[r], reg, prefix, 0);
    lsim_registry_destroy(reg);
  }
  /* 6 + 30 + 120 + 360 tuples per rule set. */
  CU_ASSERT_EQUAL(checked, 5 * 516);
}

static void test_register_unknown_platform(void) {
  lsim_runtime *rt = NULL;
  lsim_registry *reg = NULL;
  CU_ASSERT_EQUAL_FATAL(lsim_runtime_create_default(&rt, NULL), LSIM_OK);
  CU_ASSERT_EQUAL_FATAL(lsim_registry_create(rt, NULL, &reg, NULL), LSIM_OK);
  lsim_error err = LSIM_ERROR_INIT;
  CU_ASSERT_EQUAL(lsim_register_lowering(reg, &my_op, rule(1), "metal", &err),
                  LSIM_E_UNKNOWN_RULE_PLATFORM);
  CU_ASSERT_STRING_EQUAL(lsim_error_class(&err), "NotImplementedError");
  CU_ASSERT_STRING_EQUAL(lsim_error_message(&err),
                         "Registering an MLIR lowering rule for primitive my_op for an unknown "
                         "platform metal. Known platforms are: cpu, cuda, gpu, oneapi, proxy, rocm, "
                         "tpu.");
  /* tpu is known without a tpu backend (JAX registers its factory on import). */
  CU_ASSERT_EQUAL(lsim_register_lowering(reg, &my_op, rule(1), "tpu", &err), LSIM_OK);
  CU_ASSERT_EQUAL(lsim_register_lowering(reg, &my_op, rule(1), "", &err),
                  LSIM_E_INVALID_ARGUMENT);
  CU_ASSERT_EQUAL(lsim_register_lowering(reg, NULL, rule(1), NULL, &err),
                  LSIM_E_INVALID_ARGUMENT);
  CU_ASSERT_EQUAL(lsim_register_lowering(reg, &my_op, (lsim_rule){0}, NULL, &err),
                  LSIM_E_INVALID_ARGUMENT);
  lsim_error_clear(&err);
  lsim_registry_destroy(reg);
  lsim_runtime_destroy(rt);
}

/* _get_lowering_rules: in the order of the lowering platforms, `gpu`
 * expanded, a later registration replacing an earlier one; keyed by the
 * primitive object, so two primitives of one name have their own rules. */
static void test_get_lowering_rules(void) {
  static const lsim_primitive p = {.name = "p"}, q = {.name = "q"}, p_too = {.name = "p"};
  lsim_registry *reg = NULL;
  CU_ASSERT_EQUAL_FATAL(lsim_registry_create(runtime, NULL, &reg, NULL), LSIM_OK);
  lsim_register_lowering(reg, &p, rule(1), "tpu", NULL);
  lsim_register_lowering(reg, &p, rule(2), "gpu", NULL);
  lsim_register_lowering(reg, &p, rule(3), "rocm", NULL); /* replaces gpu's for rocm */
  lsim_register_lowering(reg, &q, rule(4), NULL, NULL);
  const char *platforms[] = {"oneapi", "rocm", "cpu", "tpu", "cuda"};
  lsim_platform_rule out[5];
  size_t n;
  const lsim_rule *def;
  lsim_get_lowering_rules(reg, &p, platforms, 5, out, &n, &def);
  CU_ASSERT_EQUAL_FATAL(n, 4);
  CU_ASSERT_STRING_EQUAL(out[0].platform, "oneapi");
  CU_ASSERT_EQUAL((intptr_t)out[0].rule.data, 2);
  CU_ASSERT_EQUAL((intptr_t)out[1].rule.data, 3);
  CU_ASSERT_EQUAL((intptr_t)out[2].rule.data, 1);
  CU_ASSERT_STRING_EQUAL(out[3].platform, "cuda");
  CU_ASSERT_PTR_NULL(def);
  lsim_get_lowering_rules(reg, &q, platforms, 5, out, &n, &def);
  CU_ASSERT_TRUE(n == 0 && def && (intptr_t)def->data == 4);
  lsim_get_lowering_rules(reg, &p_too, platforms, 5, out, &n, &def);
  CU_ASSERT_TRUE(n == 0 && !def);
  CU_ASSERT_PTR_EQUAL(lsim_registry_runtime(reg), runtime);
  CU_ASSERT_PTR_EQUAL(lsim_registry_profile(reg), lsim_jax_profile_default());
  lsim_registry_destroy(reg);
}

/* Many primitives (the table grows many times): each keeps its own rule. */
static void test_many_primitives(void) {
  enum { N = 5000 };
  lsim_primitive **prims = calloc(N, sizeof *prims);
  lsim_registry *reg = NULL;
  CU_ASSERT_EQUAL_FATAL(lsim_registry_create(runtime, NULL, &reg, NULL), LSIM_OK);
  bool ok = prims != NULL;
  for (int i = 0; ok && i < N; i++) {
    char name[16];
    snprintf(name, sizeof name, "p%d", i);
    ok = lsim_primitive_create(name, &prims[i], NULL) == LSIM_OK &&
         lsim_register_lowering(reg, prims[i], rule(i), i % 2 ? "cpu" : NULL, NULL) == LSIM_OK;
  }
  const char *cpu = "cpu";
  for (int i = 0; ok && i < N; i++) {
    lsim_platform_rule out[1];
    size_t n;
    const lsim_rule *def;
    lsim_get_lowering_rules(reg, prims[i], &cpu, 1, out, &n, &def);
    ok = i % 2 ? n == 1 && !def && (intptr_t)out[0].rule.data == i
               : n == 0 && def && (intptr_t)def->data == i;
  }
  CU_ASSERT_TRUE(ok);
  lsim_registry_destroy(reg);
  for (int i = 0; prims && i < N; i++)
    lsim_primitive_destroy(prims[i]);
  free(prims);
  lsim_error err = LSIM_ERROR_INIT;
  lsim_primitive *none = NULL;
  CU_ASSERT_EQUAL(lsim_primitive_create("", &none, &err), LSIM_E_INVALID_ARGUMENT);
  CU_ASSERT_PTR_NULL(none);
  lsim_error_clear(&err);
}

/* jax.ffi.ffi_call lowers to what JAX 0.10.2 emits, on one platform and on
 * several (its one default rule: no platform index case), with and without
 * its side effect (no token either way). */
static void test_ffi_call(void) {
  lsim_registry *reg = NULL;
  CU_ASSERT_EQUAL_FATAL(lsim_registry_create_jax(runtime, NULL, NULL, &reg, NULL), LSIM_OK);
  static const lsim_aval results[] = {{LSIM_DTYPE_I32, 2, {2, 3}, LSIM_MEMORY_DEVICE}, {LSIM_DTYPE_F32, 0, {0}, LSIM_MEMORY_DEVICE}};
  static const size_t operands[] = {0, 0};
  lsim_ffi_call_params params = {.target_name = "my_target", .has_side_effect = true};
  lsim_eqn eqn = {.operands = operands, .num_operands = 2, .results = results, .num_results = 2};
  lsim_ffi_call_bind(&eqn, &params);
  lsim_program prog = {.function_name = "g", .args = &f32_4, .num_args = 1, .eqns = &eqn,
                       .num_eqns = 1};
  const char *const platforms[] = {"cpu", "tpu"};
  const char *expected =
      "%0:2 = \"stablehlo.custom_call\"(%arg0, %arg0) {api_version = 1 : i32, "
      "backend_config = \"\", call_target_name = \"my_target\", called_computations = [], "
      "has_side_effect = true, mhlo.backend_config = {}, operand_layouts = [dense<0> : "
      "tensor<1xindex>, dense<0> : tensor<1xindex>], output_operand_aliases = [], "
      "result_layouts = [dense<[1, 0]> : tensor<2xindex>, dense<> : tensor<0xindex>]} : "
      "(tensor<4xf32>, tensor<4xf32>) -> (tensor<2x3xi32>, tensor<f32>)";
  for (size_t n = 1; n <= 2; n++) {
    lsim_lowering_request req = LSIM_LOWERING_REQUEST_INIT(
        .registry = reg, .program = &prog, .platforms = platforms, .num_platforms = n);
    lsim_lowering *low = NULL;
    lsim_error err = LSIM_ERROR_INIT;
    CU_ASSERT_EQUAL_FATAL(lsim_lower(lowerer, &req, &low, &err), LSIM_OK);
    char *text = lsim_lowering_print(low);
    CU_ASSERT_PTR_NOT_NULL_FATAL(text);
    const char *want = n == 1 ? expected
                              : "%0:2 = \"stablehlo.custom_call\"(%arg1, %arg1) {api_version";
    if (!strstr(text, want))
      fprintf(stderr, "\nexpected %s\nin %s\n", want, text);
    CU_ASSERT_PTR_NOT_NULL(strstr(text, want));
    CU_ASSERT_PTR_NULL(strstr(text, "stablehlo.case"));
    CU_ASSERT_PTR_NULL(strstr(text, "token"));
    free(text);
    lsim_lowering_destroy(low);
  }
  params.has_side_effect = false;
  lsim_lowering_request req = LSIM_LOWERING_REQUEST_INIT(.registry = reg, .program = &prog);
  lsim_lowering *low = NULL;
  CU_ASSERT_EQUAL_FATAL(lsim_lower(lowerer, &req, &low, NULL), LSIM_OK);
  char *text = lsim_lowering_print(low);
  CU_ASSERT_PTR_NOT_NULL(strstr(text, "has_side_effect = false"));
  free(text);
  lsim_lowering_destroy(low);
  params.target_name = NULL;
  lsim_error err = LSIM_ERROR_INIT;
  CU_ASSERT_EQUAL(lsim_lower(lowerer, &req, &low, &err), LSIM_E_INVALID_ARGUMENT);
  CU_ASSERT_STRING_EQUAL(lsim_error_message(&err), "an ffi_call needs a target name");
  lsim_error_clear(&err);
  lsim_registry_destroy(reg);
}

/* register_lowering(..., inline=False) through the C API: one private
 * function per lowering-cache key, called once per equation, renamed when
 * the name is taken; a registration with inline=True replaces it. */
static void test_not_inline(void) {
  lsim_registry *reg = NULL;
  CU_ASSERT_EQUAL_FATAL(lsim_registry_create_jax(runtime, NULL, NULL, &reg, NULL), LSIM_OK);
  static const lsim_primitive p = {.name = "main"};
  static const lsim_ffi_rule ffi = {"t", LSIM_BACKEND_USE_NONE};
  CU_ASSERT_EQUAL(lsim_register_lowering_not_inline(reg, &p, lsim_ffi_lowering(&ffi), "cpu", NULL),
                  LSIM_OK);
  const char *cpu[] = {"cpu"}, *tpu[] = {"tpu"};
  CU_ASSERT_FALSE(lsim_lowering_rules_inline(reg, &p, cpu, 1));
  CU_ASSERT_TRUE(lsim_lowering_rules_inline(reg, &p, tpu, 1));
  static const lsim_aval f32_2 = {.dtype = LSIM_DTYPE_F32, .rank = 1, .dims = {2}};
  static const size_t a0 = 0, a1 = 1;
  lsim_eqn eqns[] = {{.primitive = &p, .operands = &a0, .num_operands = 1, .results = &f32_4,
                      .num_results = 1},
                     {.primitive = &p, .operands = &a0, .num_operands = 1, .results = &f32_4,
                      .num_results = 1},
                     {.primitive = &p, .operands = &a1, .num_operands = 1, .results = &f32_2,
                      .num_results = 1}};
  const lsim_aval args[] = {f32_4, f32_2};
  lsim_program prog = {.function_name = "g", .args = args, .num_args = 2, .eqns = eqns,
                       .num_eqns = 3};
  lsim_lowering_request req =
      LSIM_LOWERING_REQUEST_INIT(.registry = reg, .program = &prog, .platforms = cpu,
                                 .num_platforms = 1, .keep_unused = true);
  lsim_lowering *low = NULL;
  CU_ASSERT_EQUAL_FATAL(lsim_lower(lowerer, &req, &low, NULL), LSIM_OK);
  char *text = lsim_lowering_print(low);
  CU_ASSERT_PTR_NOT_NULL_FATAL(text);
  const char *want[] = {"%0 = call @main_0(%arg0) : (tensor<4xf32>) -> tensor<4xf32>",
                        "%1 = call @main_0(%arg0) : (tensor<4xf32>) -> tensor<4xf32>",
                        "%2 = call @main_1(%arg1) : (tensor<2xf32>) -> tensor<2xf32>",
                        "func.func private @main_0(%arg0: tensor<4xf32>) -> tensor<4xf32>",
                        "func.func private @main_1(%arg0: tensor<2xf32>) -> tensor<2xf32>"};
  for (size_t i = 0; i < sizeof want / sizeof *want; i++) {
    if (!strstr(text, want[i]))
      fprintf(stderr, "\nexpected %s\nin %s\n", want[i], text);
    CU_ASSERT_PTR_NOT_NULL(strstr(text, want[i]));
  }
  free(text);
  lsim_lowering_destroy(low);
  CU_ASSERT_EQUAL(lsim_register_lowering(reg, &p, lsim_ffi_lowering(&ffi), "cpu", NULL), LSIM_OK);
  CU_ASSERT_TRUE(lsim_lowering_rules_inline(reg, &p, cpu, 1));
  lsim_registry_destroy(reg);
}

/* lsim_mlir_reprint: a module as MLIR prints it, whatever the spacing and the
 * generic or custom form it came in; what does not parse is invalid input. */
static void test_mlir_reprint(void) {
  MlirContext mlir = lsim_lowerer_mlir_context(lowerer);
  char *a = NULL, *b = NULL;
  lsim_error err = LSIM_ERROR_INIT;
  CU_ASSERT_EQUAL(lsim_mlir_reprint(mlir, "module {\n func.func @f() {\n return\n }\n}", &a, &err),
                  LSIM_OK);
  CU_ASSERT_EQUAL(lsim_mlir_reprint(mlir,
                                    "\"builtin.module\"() ({ \"func.func\"() <{function_type = "
                                    "() -> (), sym_name = \"f\"}> ({ \"func.return\"() : () -> () "
                                    "}) : () -> () }) : () -> ()",
                                    &b, &err),
                  LSIM_OK);
  CU_ASSERT_STRING_EQUAL(a, "module {\n  func.func @f() {\n    return\n  }\n}\n\n");
  CU_ASSERT_STRING_EQUAL(a, b);
  free(a);
  free(b);
  CU_ASSERT_EQUAL(lsim_mlir_reprint(mlir, "module {", &a, &err), LSIM_E_INVALID_INPUT);
  CU_ASSERT_PTR_NULL(a);
  CU_ASSERT_NSTRING_EQUAL(lsim_error_message(&err), "the module does not parse: ", 27);
  lsim_error_clear(&err);
}

/* `head` + `open` n times + `middle` + `close` n times + `tail` (owned). */
static char *nested(const char *head, const char *open, size_t n, const char *middle,
                    const char *close, const char *tail) {
  size_t len = strlen(head) + n * (strlen(open) + strlen(close)) + strlen(middle) + strlen(tail);
  char *t = malloc(len + 1), *q = t;
  q = stpcpy(q, head);
  for (size_t i = 0; i < n; i++)
    q = stpcpy(q, open);
  q = stpcpy(q, middle);
  for (size_t i = 0; i < n; i++)
    q = stpcpy(q, close);
  stpcpy(q, tail);
  return t;
}

/* Every kind of nesting MLIR's parser recurses into (each 4,000 to 75,000
 * deep overflowed its stack: a segfault of `check`, of `check --impl` and of
 * Python's lowersim.reprint) is refused before MLIR sees it, at 256 levels
 * whatever brings them (brackets, affine operators, aliases), and a text as
 * deep as the limit still parses; brackets in strings and comments count
 * for nothing. */
static void test_mlir_nesting_bound(void) {
  MlirContext mlir = lsim_lowerer_mlir_context(lowerer);
  static const struct {
    const char *head, *open, *middle, *close, *tail;
    size_t ok; /* a depth that parses */
  } kinds[] = {
      {"", "module {", "", "}", "", 255},
      {"module {", "\"x.op\"() ({", "", "}) : () -> ()\n", "}", 127},
      {"module attributes {x.a = ", "[", "", "]", "} {}", 250},
      {"module attributes {x.a = ", "{a = ", "1", "}", "} {}", 250},
      {"module attributes {x.a = ", "tuple<", "i32", ">", "} {}", 250},
      {"module attributes {x.a = ", "(", "i32", ") -> ()", "} {}", 250},
      {"module attributes {x.a = dense<", "[", "1", "]", "> : tensor<1xi32>} {}", 0},
      {"module {} loc(", "fused[", "unknown", "]", ")", 250},
      {"module attributes {x.a = affine_map<(d0) -> (", "(", "d0", ")", ")>} {}", 250},
      {"module attributes {x.a = affine_map<(d0) -> (d0", " + d0", "", "", ")>} {}", 250},
      {"module attributes {x.a = affine_map <(d0) -> (", "-", "d0", "", ")>} {}", 250},
      {"module attributes {x.a = affine_map<(d0) -> (d0", " floordiv 2", "", "", ")>} {}", 250},
      {"module attributes {x.a = affine_set<(d0) : (d0", " - 1", " >= 0", "", ")>} {}", 250},
  };
  for (size_t i = 0; i < sizeof kinds / sizeof *kinds; i++) {
    for (int deep = 0; deep < 2; deep++) {
      size_t n = deep ? 100000 : kinds[i].ok;
      if (!n)
        continue;
      char *text = nested(kinds[i].head, kinds[i].open, n, kinds[i].middle, kinds[i].close,
                          kinds[i].tail);
      char *out = NULL;
      lsim_error err = LSIM_ERROR_INIT;
      int rc = lsim_mlir_reprint(mlir, text, &out, &err);
      const char *said = rc ? lsim_error_message(&err) : "";
      if (deep) {
        CU_ASSERT_EQUAL(rc, LSIM_E_INVALID_INPUT);
        CU_ASSERT_STRING_EQUAL(said, "the module does not parse: it is nested deeper than 256 "
                                     "levels at line 1, the limit lowersim gives MLIR's parser "
                                     "and printer (their recursion would overflow the stack)");
      } else {
        CU_ASSERT_PTR_NULL(strstr(said, "nested deeper"));
        CU_ASSERT_EQUAL(rc, LSIM_OK);
      }
      if (rc && !deep)
        fprintf(stderr, "nesting kind %zu, depth %zu: %s\n", i, n, said);
      free(out);
      free(text);
      lsim_error_clear(&err);
    }
  }
  /* Brackets inside strings (escaped quotes too) and comments are text. */
  char *quoted = nested("module attributes {x.a = \"\\\"", "[({<", 100000, "", "", "\"} {}\n");
  char *commented = nested("// ", "[({<", 100000, "\nmodule {", "", "}");
  const char *texts[] = {quoted, commented};
  for (size_t i = 0; i < 2; i++) {
    char *out = NULL;
    lsim_error err = LSIM_ERROR_INIT;
    CU_ASSERT_EQUAL(lsim_mlir_reprint(mlir, texts[i], &out, &err), LSIM_OK);
    free(out);
    lsim_error_clear(&err);
  }
  free(quoted);
  free(commented);
  /* Aliases: a chain of them nests as deep as it expands, and a DAG prints
   * as large (2^40 elements for 40 lines). */
  lsimp_strbuf chain = LSIMP_STRBUF_INIT, dag = LSIMP_STRBUF_INIT;
  lsimp_strbuf_puts(&dag, "#a0 = [1, 1]\n");
  for (int i = 0; i < 40; i++) {
    lsimp_strbuf_printf(&chain, "#a%d = [[[[[[[[[[%s%d]]]]]]]]]]\n", i, i ? "#a" : "", i ? i - 1 : 0);
    if (i)
      lsimp_strbuf_printf(&dag, "#a%d = [#a%d, #a%d]\n", i, i - 1, i - 1);
  }
  lsimp_strbuf_puts(&chain, "module attributes {x.a = #a39} {}\n");
  lsimp_strbuf_puts(&dag, "module attributes {x.a = #a39} {}\n");
  char *out = NULL;
  lsim_error err = LSIM_ERROR_INIT;
  CU_ASSERT_EQUAL(lsim_mlir_reprint(mlir, lsimp_strbuf_cstr(&chain), &out, &err),
                  LSIM_E_INVALID_INPUT);
  CU_ASSERT_STRING_EQUAL(lsim_error_message(&err),
                         "the module does not parse: it is nested deeper than 256 levels through "
                         "the alias #a24 at line 26, the limit lowersim gives MLIR's parser and "
                         "printer (their recursion would overflow the stack)");
  lsim_error_clear(&err);
  CU_ASSERT_EQUAL(lsim_mlir_reprint(mlir, lsimp_strbuf_cstr(&dag), &out, &err),
                  LSIM_E_INVALID_INPUT);
  CU_ASSERT_STRING_EQUAL(lsim_error_message(&err),
                         "the module does not parse: its aliases print as more than 16789984 "
                         "bytes (#a18 at line 20), the limit lowersim gives MLIR's printer for a "
                         "text of 798 bytes");
  lsim_error_clear(&err);
  CU_ASSERT_PTR_NULL(out);
  /* A value past its first token (`12 : tensor<...>`) is the alias's too. */
  char *typed = nested("#a0 = ", "[", 200, "", "]", "\n#t = 12 : tensor<1xi32, #a0>\n");
  char *use = nested("module attributes {x.a = ", "[", 60, "#t", "]", "} {}\n");
  lsimp_strbuf_reset(&chain);
  lsimp_strbuf_puts(&chain, typed);
  lsimp_strbuf_puts(&chain, use);
  CU_ASSERT_EQUAL(lsim_mlir_reprint(mlir, lsimp_strbuf_cstr(&chain), &out, &err),
                  LSIM_E_INVALID_INPUT);
  CU_ASSERT_STRING_EQUAL(lsim_error_message(&err),
                         "the module does not parse: it is nested deeper than 256 levels through "
                         "the alias #t at line 3, the limit lowersim gives MLIR's parser and "
                         "printer (their recursion would overflow the stack)");
  lsim_error_clear(&err);
  free(typed);
  free(use);
  lsimp_strbuf_free(&chain);
  lsimp_strbuf_free(&dag);
}

/* lax's shape and dtype rules, as binding a binary op checks them while
 * tracing (the messages are JAX 0.10.2's, checked live). */
#define AV(d, r, ...) {.dtype = (d), .rank = (r), .dims = {__VA_ARGS__}}
static void test_lax_binary_rules(void) {
  lsim_registry *reg = NULL;
  CU_ASSERT_EQUAL_FATAL(lsim_registry_create_jax(runtime, NULL, NULL, &reg, NULL), LSIM_OK);
  static const struct {
    const lsim_primitive *p;
    lsim_aval a, b;
    int code;
    const char *message;
  } cases[] = {
      {&lsim_add_p, AV(LSIM_DTYPE_F32, 1, 4), AV(LSIM_DTYPE_I32, 1, 4), LSIM_E_DTYPE_MISMATCH,
       "lax.add requires arguments to have the same dtypes, got float32, int32. (Tip: jnp.add is "
       "a similar function that does automatic type promotion on inputs)."},
      {&lsim_sub_p, AV(LSIM_DTYPE_BF16, 1, 4), AV(LSIM_DTYPE_F16, 1, 4), LSIM_E_DTYPE_MISMATCH,
       "lax.sub requires arguments to have the same dtypes, got bfloat16, float16. (Tip: "
       "jnp.subtract is a similar function that does automatic type promotion on inputs)."},
      {&lsim_add_p, AV(LSIM_DTYPE_F32, 1, 4), AV(LSIM_DTYPE_F32, 1, 3), LSIM_E_SHAPE_MISMATCH,
       "add got incompatible shapes for broadcasting: (4,), (3,)."},
      {&lsim_add_p, AV(LSIM_DTYPE_BOOL, 2, 2, 3), AV(LSIM_DTYPE_F32, 2, 3, 2),
       LSIM_E_SHAPE_MISMATCH, "add got incompatible shapes for broadcasting: (2, 3), (3, 2)."},
      {&lsim_add_p, AV(LSIM_DTYPE_F32, 1, 4), AV(LSIM_DTYPE_F32, 2, 2, 2), LSIM_E_SHAPE_MISMATCH,
       "add: arrays must have the same number of dimensions, got {1, 2}"},
      {&lsim_mul_p, AV(LSIM_DTYPE_F32, 1, 4), AV(LSIM_DTYPE_BOOL, 1, 4), LSIM_E_DTYPE_AT,
       "mul does not accept dtype bool at position 1. Accepted dtypes at position 1 are subtypes "
       "of integer, floating, complexfloating."},
      {&lsim_mul_p, AV(LSIM_DTYPE_F32, 0, 0), AV(LSIM_DTYPE_F32, 1, 4), LSIM_E_INVALID_ARGUMENT,
       "mul of a rank-0 and a rank-1 operand: lax's implicit scalar broadcasting is not modelled"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    lsim_aval args[2] = {cases[i].a, cases[i].b};
    static const size_t operands[] = {0, 1};
    lsim_eqn eqn = {.primitive = cases[i].p, .operands = operands, .num_operands = 2,
                    .results = &args[0], .num_results = 1};
    lsim_program prog = {.function_name = "f", .args = args, .num_args = 2, .eqns = &eqn,
                         .num_eqns = 1};
    lsim_lowering_request req = LSIM_LOWERING_REQUEST_INIT(.registry = reg, .program = &prog);
    lsim_lowering *low = NULL;
    lsim_error err = LSIM_ERROR_INIT;
    CU_ASSERT_EQUAL(lsim_lower(lowerer, &req, &low, &err), cases[i].code);
    CU_ASSERT_STRING_EQUAL(lsim_error_message(&err), cases[i].message);
    CU_ASSERT_PTR_NULL(low);
    lsim_error_clear(&err);
  }
  lsim_registry_destroy(reg);
}

/* cli/pretty.c on modules of unregistered ops: constants named by their
 * kind and made unique, the others numbered after; an op it has no pretty
 * form for refused by name, the text not promised. */
static void test_pretty_names_and_refusal(void) {
  MlirContext c = mlirContextCreateWithThreading(false);
  mlirContextSetAllowUnregisteredDialects(c, true);
  MlirModule m = mlirModuleCreateParse(
      c, mlirStringRefCreateFromCString(
             "module {\n"
             "  %0 = \"stablehlo.constant\"() {value = dense<1> : tensor<i32>} : () -> tensor<i32>\n"
             "  %1 = \"stablehlo.constant\"() {value = dense<2> : tensor<i32>} : () -> tensor<i32>\n"
             "  %2 = \"stablehlo.constant\"() {value = dense<1.0> : tensor<f32>} : () -> tensor<f32>\n"
             "  %3 = \"stablehlo.add\"(%0, %1) : (tensor<i32>, tensor<i32>) -> tensor<i32>\n"
             "  %4 = \"stablehlo.convert\"(%3) : (tensor<i32>) -> tensor<f32>\n"
             "}\n"));
  CU_ASSERT_FATAL(!mlirModuleIsNull(m));
  char *text = NULL, refused[64];
  size_t size = 0;
  FILE *mem = open_memstream(&text, &size);
  CU_ASSERT_TRUE(cli_pretty_print(m, mem, refused, sizeof refused));
  fclose(mem);
  CU_ASSERT_STRING_EQUAL(text, "module {\n"
                               "  %c = stablehlo.constant dense<1> : tensor<i32>\n"
                               "  %c_0 = stablehlo.constant dense<2> : tensor<i32>\n"
                               "  %cst = stablehlo.constant dense<1.000000e+00> : tensor<f32>\n"
                               "  %0 = stablehlo.add %c, %c_0 : tensor<i32>\n"
                               "  %1 = stablehlo.convert %0 : (tensor<i32>) -> tensor<f32>\n"
                               "}\n");
  CU_ASSERT_STRING_EQUAL(refused, "");
  free(text);
  mlirModuleDestroy(m);
  m = mlirModuleCreateParse(c, mlirStringRefCreateFromCString(
                                   "module {\n  \"stablehlo.fft\"() : () -> ()\n}\n"));
  mem = open_memstream(&text, &size);
  CU_ASSERT_FALSE(cli_pretty_print(m, mem, refused, sizeof refused));
  fclose(mem);
  CU_ASSERT_STRING_EQUAL(refused, "stablehlo.fft");
  free(text);
  mlirModuleDestroy(m);
  mlirContextDestroy(c);
}

/* Every emitter given a null operand (a rule's value never made) refuses it
 * with an error and emits nothing; MLIR would dereference it (fuzz seed 1,
 * iteration 53777).  A dynamic_slice larger than its operand is JAX's
 * TypeError (lax.dynamic_slice's shape rule), before any op is made. */
static void test_emit_refuses_bad_operands(void) {
  MlirContext mlir = lsim_lowerer_mlir_context(lowerer);
  MlirType i32 = mlirRankedTensorTypeGet(0, NULL, mlirIntegerTypeGet(mlir, 32),
                                         mlirAttributeGetNull());
  int64_t zero = 0;
  MlirType empty = mlirRankedTensorTypeGet(1, &zero, mlirIntegerTypeGet(mlir, 64),
                                           mlirAttributeGetNull());
  MlirLocation loc = mlirLocationUnknownGet(mlir);
  MlirType types[] = {i32, i32, i32, empty};
  MlirLocation locs[] = {loc, loc, loc, loc};
  MlirBlock block = mlirBlockCreate(4, types, locs);
  lsim_insertion_point ip = {mlir, block, loc, NULL};
  MlirValue ok = mlirBlockGetArgument(block, 0), null = {NULL}, out = {NULL};
  MlirValue one_null[] = {ok, null}, first_null[] = {null, ok};
  int64_t one = 1;
  MlirOperation op;
  MlirBlock cond, body;
  lsim_custom_call call = {.target = "t", .api_version = 1};
  lsim_error err = LSIM_ERROR_INIT;
  int rcs[] = {
      lsim_emit_elementwise(&ip, "stablehlo.add", one_null, 2, &out, &err),
      lsim_emit_elementwise(&ip, "stablehlo.add", first_null, 2, &out, &err),
      lsim_emit_convert(&ip, null, i32, &out, &err),
      lsim_emit_broadcast_scalar(&ip, null, i32, &out, &err),
      lsim_emit_compare_signed(&ip, ok, null, "LT", &out, &err),
      lsim_emit_select(&ip, ok, null, ok, &out, &err),
      lsim_emit_dynamic_slice(&ip, null, &ok, 1, &one, &out, &err),
      lsim_emit_dynamic_slice(&ip, ok, &null, 1, &one, &out, &err),
      lsim_emit_dynamic_update_slice(&ip, ok, null, &ok, 1, &out, &err),
      lsim_emit_call(&ip, "f", one_null, 2, i32, &out, &err),
      lsim_emit_while(&ip, one_null, 2, &op, &cond, &body, &err),
      lsim_emit_return(&ip, one_null, 2, &err),
      lsim_emit_custom_call(&ip, &call, one_null, 2, &i32, 1, &op, &err),
      lsim_emit_wrap_with_memory_kind(&ip, "device", &null, &err),
  };
  for (size_t i = 0; i < sizeof rcs / sizeof rcs[0]; i++)
    CU_ASSERT_EQUAL(rcs[i], LSIM_E_INVALID_ARGUMENT);
  CU_ASSERT_STRING_EQUAL(lsim_error_message(&err), "emitting stablehlo.custom_call: operand 0 is null");
  CU_ASSERT_EQUAL(lsim_emit_dynamic_slice(&ip, mlirBlockGetArgument(block, 3), &ok, 1, &one,
                                          &out, &err),
                  LSIM_E_DYNAMIC_SLICE_SIZES);
  CU_ASSERT_STRING_EQUAL(lsim_error_message(&err),
                         "slice slice_sizes must be less than or equal to operand shape, got "
                         "slice_sizes (1,) for operand shape (0,).");
  CU_ASSERT_TRUE(mlirOperationIsNull(mlirBlockGetFirstOperation(block)));
  lsim_error_clear(&err);
  mlirBlockDestroy(block);
}

static CU_TestInfo tests[] = {
    {"cli/pretty.c: names and refusal", test_pretty_names_and_refusal},
    {"lax binary ops: shape and dtype rules", test_lax_binary_rules},
    {"lower_per_platform, every tuple and rule set", test_lower_per_platform_every_tuple},
    {"register_lowering, unknown platform", test_register_unknown_platform},
    {"_get_lowering_rules: order, gpu expansion, objects", test_get_lowering_rules},
    {"many primitives", test_many_primitives},
    {"ffi_call", test_ffi_call},
    {"register_lowering(inline=False): the lowering cache", test_not_inline},
    {"lsim_mlir_reprint", test_mlir_reprint},
    {"emitters: null operands, dynamic_slice sizes", test_emit_refuses_bad_operands},
    {"MLIR text nested within bounds", test_mlir_nesting_bound},
    CU_TEST_INFO_NULL,
};

CU_SuiteInfo lower_suite[] = {{"lower", suite_init, suite_clean, NULL, NULL, tests},
                              CU_SUITE_INFO_NULL};
