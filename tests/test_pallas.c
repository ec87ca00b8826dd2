/* tests/test_pallas.c: Pallas through the public API.
 *
 * The expectations come from an oracle written from the JAX source (mirror
 * HEAD cec06d116c05; PC = jax/_src/pallas/pallas_call.py, PCORE =
 * jax/_src/pallas/core.py, MLIR = jax/_src/interpreters/mlir.py, MREG/TREG/
 * GREG = the mosaic, triton and mosaic_gpu pallas_call_registration.py, TCC
 * = jax/_src/tpu_custom_call.py, MGC = jax/experimental/mosaic/gpu/core.py).
 * The oracle simulates one Python process: which registration modules are
 * in sys.modules and what PCORE's _backend_lowering_rules dict holds, and it
 * runs pallas_call's lowering as PC L840-989 does, so a sequence of
 * lowerings in one process is predicted as well as a single one.
 *
 * Tests: the table over platform x params x installed backends x flag x
 * interpret (fresh state per case), constants, order-dependent registry
 * behaviour in one process, the params registry API with a C-defined class,
 * the kernels embedded in each custom call (bytecode round trips, SHA-256),
 * and bad kernels. */
#include "lowersim/emit.h"
#include "lowersim/jax.h"
#include "lowersim/lowering.h"
#include "lowersim/pallas.h"
#include "lowersim/pallas_call.h"
#include "pallas/kernels.h"
#include "support/encode.h"
#include "support/strbuf.h"
#include "tests/fixtures.h"
#include "tests/suites.h"

#include <mlir-c/BuiltinAttributes.h>
#include <mlir-c/BuiltinTypes.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ============================================================================
 * The oracle: a JAX process
 * ========================================================================== */

/* The compiler params a pallas_call carries. */
enum { PARAMS_NONE, PARAMS_MOSAIC_TPU, PARAMS_TRITON, PARAMS_MOSAIC_GPU, NUM_PARAMS };
static const char *const params_names[NUM_PARAMS] = {"none", "mosaic_tpu", "triton", "mosaic_gpu"};

/* The three pallas_call_registration modules; module m registers params
 * class m + 1 (MREG L732 "tpu", TREG L222 "gpu", GREG L178 "gpu"). */
enum { MOD_MOSAIC_TPU, MOD_TRITON, MOD_MOSAIC_GPU, NUM_MODS };
static const char *const module_platform[NUM_MODS] = {"tpu", "gpu", "gpu"};

typedef struct jax_process {
  bool importable[NUM_MODS]; /* the backend is installed */
  bool in_sys_modules[NUM_MODS];
  const char *rules[NUM_PARAMS]; /* _backend_lowering_rules: class -> platform (NULL: absent) */
  bool use_mosaic_gpu;           /* config.jax_pallas_use_mosaic_gpu */
} jax_process;

/* `import ...pallas_call_registration`: ImportError (false) when not
 * installed; the first import runs the module's register_lowering_rule. */
static bool jax_import(jax_process *jp, int mod) {
  if (!jp->importable[mod])
    return false;
  if (!jp->in_sys_modules[mod]) {
    jp->in_sys_modules[mod] = true;
    jp->rules[mod + 1] = module_platform[mod]; /* PCORE L177: last registration wins */
  }
  return true;
}

/* A new process of JAX 0.10.2, the profile these tests lower with: nothing
 * imported yet.  (From 8fde3f3846 on, jax/experimental/pallas/triton.py
 * imports TREG, so a process that names pltriton.CompilerParams has
 * Triton's rule registered from the start: test_triton_registration.) */
static jax_process jax_start(bool mosaic_tpu, bool triton, bool mosaic_gpu, bool flag) {
  jax_process jp = {{mosaic_tpu, triton, mosaic_gpu}, {false}, {NULL}, flag};
  return jp;
}

typedef struct outcome {
  int code;
  const char *cls; /* Python exception class */
  char message[256];
  /* success: one target per kept rule ("" = interpret: plain HLO) */
  const char *targets[4];
  int num_stages[4]; /* Triton's, else 0 */
  size_t num_targets;
} outcome;

#define MSG_UNSUPPORTED                                                                            \
  "Cannot lower pallas_call on platform: %s. To use Pallas on GPU, install jaxlib GPU. To "        \
  "use Pallas on TPU, install jaxlib TPU and libtpu. See "                                         \
  "https://docs.jax.dev/en/latest/installation.html."
#define MSG_PARAMS_PLATFORM "Compiler params for platform %s cannot be used for %s lowering."
#define MSG_ROCM                                                                                   \
  "Mosaic GPU does not yet support AMD ROCm devices. Use "                                         \
  "``compiler_params=pltriton.CompilerParams()`` for ROCm."

static const char *const TARGET_TPU = "tpu_custom_call";
static const char *const TARGET_TRITON = "__gpu$xla.gpu.triton";
static const char *const TARGET_MOSAIC_GPU = "mosaic_gpu_v2";

static bool fail_with(outcome *o, int code, const char *cls, const char *fmt, const char *a,
                      const char *b) {
  o->code = code;
  o->cls = cls;
  snprintf(o->message, sizeof o->message, fmt, a, b);
  return false;
}

static bool emitted(outcome *o, const char *target, int num_stages) {
  o->targets[o->num_targets] = target;
  o->num_stages[o->num_targets++] = num_stages;
  return true;
}

/* What the rule registered for params class `cls` emits on `platform`
 * (MREG pallas_call_tpu_lowering_rule, TREG / GREG pallas_call_lowering). */
static bool run_registered_rule(outcome *o, int cls, const char *platform) {
  if (cls == PARAMS_MOSAIC_TPU)
    return emitted(o, TARGET_TPU, 0);
  if (cls == PARAMS_TRITON) /* TREG L96 */
    return emitted(o, TARGET_TRITON, strcmp(platform, "rocm") == 0 ? 1 : 3);
  return emitted(o, TARGET_MOSAIC_GPU, 0); /* GREG: no ROCm check on this path */
}

/* PCORE L180-190: NULL rule -> 0; platform mismatch -> ValueError. */
static int get_lowering_rule(outcome *o, const jax_process *jp, int cls, const char *expected) {
  const char *platform = jp->rules[cls];
  if (!platform)
    return 0;
  if (strcmp(platform, expected) != 0) {
    fail_with(o, LSIM_E_PALLAS_PARAMS_PLATFORM, "ValueError", MSG_PARAMS_PLATFORM, platform,
              expected);
    return -1;
  }
  return 1;
}

/* PC L883-901. */
static bool jax_tpu_lowering(outcome *o, jax_process *jp, int params) {
  if (params != PARAMS_NONE) {
    int r = get_lowering_rule(o, jp, params, "tpu");
    if (r)
      return r > 0 && run_registered_rule(o, params, "tpu");
  }
  if (!jax_import(jp, MOD_MOSAIC_TPU))
    return fail_with(o, LSIM_E_PALLAS_UNSUPPORTED_PLATFORM, "ValueError", MSG_UNSUPPORTED, "tpu",
                     NULL);
  /* MREG L418: assert isinstance(compiler_params, tpu_core.CompilerParams) */
  if (params != PARAMS_NONE && params != PARAMS_MOSAIC_TPU)
    return fail_with(o, LSIM_E_PALLAS_FOREIGN_PARAMS, "AssertionError", "%s", "", NULL);
  return emitted(o, TARGET_TPU, 0);
}

/* PC L903-973. */
static bool jax_gpu_lowering(outcome *o, jax_process *jp, int params, bool is_rocm) {
  const char *platform = is_rocm ? "rocm" : "cuda";
  if (params != PARAMS_NONE) { /* L911-914 */
    int r = get_lowering_rule(o, jp, params, "gpu");
    if (r)
      return r > 0 && run_registered_rule(o, params, platform);
  }
  int backend = -1;
  if (jax_import(jp, MOD_MOSAIC_GPU)) { /* L918-945 */
    if (params == PARAMS_MOSAIC_GPU || (params == PARAMS_NONE && jp->use_mosaic_gpu))
      backend = MOD_MOSAIC_GPU;
    if (backend == MOD_MOSAIC_GPU && is_rocm)
      return fail_with(o, LSIM_E_PALLAS_MOSAIC_GPU_ROCM, "ValueError", "%s", MSG_ROCM, NULL);
  }
  if (jax_import(jp, MOD_TRITON)) { /* L947-966 */
    if (params == PARAMS_TRITON || (params == PARAMS_NONE && !jp->use_mosaic_gpu))
      backend = MOD_TRITON;
  }
  if (backend < 0) /* L968-969 */
    return fail_with(o, LSIM_E_PALLAS_UNSUPPORTED_PLATFORM, "ValueError", MSG_UNSUPPORTED, "gpu",
                     NULL);
  if (backend == MOD_TRITON)
    return emitted(o, TARGET_TRITON, is_rocm ? 1 : 3);
  return emitted(o, TARGET_MOSAIC_GPU, 0);
}

/* _pallas_call_lowering (PC L840-989) for `platforms`, in process `jp`. */
static outcome jax_lower_pallas_call(jax_process *jp, const char *const *platforms, size_t n,
                                     int params, bool interpret) {
  outcome o = {.code = LSIM_OK};
  if (interpret) { /* L845-874: before any platform dispatch */
    emitted(&o, "", 0);
    return o;
  }
  /* L975-989: lower_per_platform with dict(cpu, tpu, cuda, rocm), no default. */
  static const char *const dict_order[] = {"cpu", "tpu", "cuda", "rocm"};
  bool has_rule[4] = {false};
  char without[128] = "";
  size_t num_without = 0;
  for (size_t i = 0; i < n; i++) {
    size_t k = 0;
    while (k < 4 && strcmp(dict_order[k], platforms[i]) != 0)
      k++;
    if (k < 4) {
      has_rule[k] = true;
    } else {
      snprintf(without + strlen(without), sizeof without - strlen(without), "%s'%s'",
               num_without++ ? ", " : "", platforms[i]);
    }
  }
  if (n == 1 && num_without) { /* MLIR L2555-2560 */
    fail_with(&o, LSIM_E_NO_LOWERING_RULE, "NotImplementedError",
              "MLIR translation rule for primitive 'pallas_call' not found for platform %s",
              platforms[0], NULL);
    return o;
  }
  if (num_without) { /* MLIR L2571-2577 */
    fail_with(&o, LSIM_E_NO_LOWERING_RULE, "NotImplementedError",
              "MLIR translation rule for primitive 'pallas_call' not found for platforms [%s]",
              without, NULL);
    return o;
  }
  /* MLIR L2565: kept rules in the dict's order, lowered in that order. */
  for (size_t k = 0; k < 4; k++) {
    if (!has_rule[k])
      continue;
    bool ok = k == 0   ? fail_with(&o, LSIM_E_PALLAS_CPU_NOT_INTERPRET, "ValueError", "%s",
                                   "Only interpret mode is supported on CPU backend.", NULL)
              : k == 1 ? jax_tpu_lowering(&o, jp, params)
                       : jax_gpu_lowering(&o, jp, params, k == 3);
    if (!ok) {
      o.num_targets = 0;
      return o;
    }
  }
  return o;
}

/* ============================================================================
 * Fixtures
 * ========================================================================== */

#define all_platforms test_platforms
#define N_PLATFORMS TEST_NUM_PLATFORMS

static lsim_runtime *runtime;
static lsim_lowerer *lowerer;

static int suite_init(void) {
  return !(runtime = test_runtime_all_platforms()) || lsim_lowerer_create(&lowerer, NULL);
}

static int suite_clean(void) {
  lsim_lowerer_destroy(lowerer);
  lsim_runtime_destroy(runtime);
  return 0;
}

static const lsim_aval f32_4 = {.dtype = LSIM_DTYPE_F32, .rank = 1, .dims = {4}};
static const lsim_aval f32_8 = {.dtype = LSIM_DTYPE_F32, .rank = 1, .dims = {8}};
/* A block every backend lowers: a power of 2 (Triton), 128 elements of 4
 * bytes (Mosaic GPU's warpgroup). */
static const lsim_aval f32_128 = {.dtype = LSIM_DTYPE_F32, .rank = 1, .dims = {128}};

/* The dispatch tests lower under use_abstract_mesh with a TPU v5e, so that
 * Mosaic TPU finds a TPU (the default device is cuda's); Mosaic GPU then
 * takes arch 9.0, and Triton at 0.10.2 reads cuda's device. */
static const lsim_abstract_device tpu_v5e = {"tpu", "TPU v5 lite", 1};

static const lsim_pallas_params_class *const params_classes[NUM_PARAMS] = {
    NULL, &lsim_mosaic_tpu_compiler_params, &lsim_triton_compiler_params,
    &lsim_mosaic_gpu_compiler_params};

/* One simulated process: its Pallas state and a registry lowering with it. */
typedef struct process {
  lsim_pallas *pallas;
  lsim_registry *registry;
} process;

static bool process_start(process *pr, bool mosaic_tpu, bool triton, bool mosaic_gpu, bool flag) {
  lsim_pallas_installed inst = LSIM_PALLAS_INSTALLED_INIT(
      .mosaic_tpu = mosaic_tpu, .triton = triton, .mosaic_gpu = mosaic_gpu, .use_mosaic_gpu = flag);
  pr->pallas = NULL;
  pr->registry = NULL;
  lsim_error err = LSIM_ERROR_INIT;
  bool ok = lsim_pallas_create(&inst, &pr->pallas, &err) == LSIM_OK &&
            lsim_registry_create_jax(runtime, pr->pallas, &lsim_jax_0_10_2, &pr->registry,
                                     &err) == LSIM_OK;
  if (!ok)
    fprintf(stderr, "\n  cannot start a Pallas process: %s", lsim_error_message(&err));
  lsim_error_clear(&err);
  return ok;
}

static void process_end(process *pr) {
  lsim_registry_destroy(pr->registry);
  lsim_pallas_destroy(pr->pallas);
}

/* Lowers one equation `primitive` over `args` (operands: every arg). */
static int lower_eqn(const lsim_registry *reg, const lsim_aval *args, size_t num_args,
                     const lsim_aval *results, size_t num_results, const void *params,
                     const char *const *platforms, size_t n, lsim_lowering **out, lsim_error *err) {
  static const size_t operands[] = {0, 1, 2, 3};
  lsim_eqn eqn = {.primitive = &lsim_pallas_call_p,
                  .operands = operands,
                  .num_operands = num_args,
                  .results = results,
                  .num_results = num_results,
                  .params = params};
  lsim_program prog = {
      .function_name = "f", .args = args, .num_args = num_args, .eqns = &eqn, .num_eqns = 1};
  lsim_lowering_request req = LSIM_LOWERING_REQUEST_INIT(.registry = reg,
                               .program = &prog,
                               .platforms = platforms,
                               .num_platforms = n,
                               .abstract_device = &tpu_v5e);
  *out = NULL;
  return lsim_lower(lowerer, &req, out, err);
}

static int lower_pallas(const process *pr, const lsim_pallas_call_params *p,
                        const char *const *platforms, size_t n, const lsim_aval *aval,
                        lsim_lowering **out, lsim_error *err) {
  return lower_eqn(pr->registry, aval, 1, aval, 1, p, platforms, n, out, err);
}

/* --- inspecting modules ---------------------------------------------------- */

static bool op_is(MlirOperation op, const char *name) {
  MlirStringRef s = mlirIdentifierStr(mlirOperationGetName(op));
  return s.length == strlen(name) && memcmp(s.data, name, s.length) == 0;
}

static bool ref_is(MlirStringRef s, const char *text) {
  return s.length == strlen(text) && memcmp(s.data, text, s.length) == 0;
}

static MlirAttribute attr_of(MlirOperation op, const char *name) {
  return mlirOperationGetAttributeByName(op, mlirStringRefCreateFromCString(name));
}

typedef struct summary {
  size_t num_custom_calls, num_whiles, num_cases;
  MlirOperation custom_calls[8];
} summary;

static MlirWalkResult summarize_op(MlirOperation op, void *data) {
  summary *s = data;
  if (op_is(op, "stablehlo.custom_call")) {
    if (s->num_custom_calls < 8)
      s->custom_calls[s->num_custom_calls] = op;
    s->num_custom_calls++;
  } else if (op_is(op, "stablehlo.while")) {
    s->num_whiles++;
  } else if (op_is(op, "stablehlo.case")) {
    s->num_cases++;
  }
  return MlirWalkResultAdvance;
}

/* The custom calls (in pre-order: case branches in branch order), while
 * loops (the HLO interpreter's) and cases of a lowered module. */
static summary summarize(const lsim_lowering *low) {
  summary s = {0};
  mlirOperationWalk(mlirModuleGetOperation(lsim_lowering_module(low)), summarize_op, &s,
                    MlirWalkPreOrder);
  return s;
}

static bool target_is(MlirOperation call, const char *target) {
  MlirAttribute a = attr_of(call, "call_target_name");
  return !mlirAttributeIsNull(a) && mlirAttributeIsAString(a) &&
         ref_is(mlirStringAttrGetValue(a), target);
}

static MlirAttribute config_entry(MlirOperation call, const char *name) {
  MlirAttribute dict = attr_of(call, "mhlo.backend_config");
  if (mlirAttributeIsNull(dict) || !mlirAttributeIsADictionary(dict))
    return (MlirAttribute){NULL};
  return mlirDictionaryAttrGetElementByName(dict, mlirStringRefCreateFromCString(name));
}

/* An i32 IntegerAttr's value, or INT64_MIN when it is not one. */
static int64_t i32_value(MlirAttribute a) {
  if (mlirAttributeIsNull(a) || !mlirAttributeIsAInteger(a) ||
      !mlirTypeIsAInteger(mlirAttributeGetType(a)) ||
      mlirIntegerTypeGetWidth(mlirAttributeGetType(a)) != 32)
    return INT64_MIN;
  return mlirIntegerAttrGetValueInt(a);
}

static void append_ref(MlirStringRef s, void *data) { lsimp_strbuf_append(data, s.data, s.length); }

/* An attribute as MLIR prints it (owned). */
static char *attr_text(MlirAttribute a) {
  lsimp_strbuf sb = LSIMP_STRBUF_INIT;
  if (mlirAttributeIsNull(a))
    lsimp_strbuf_puts(&sb, "<absent>");
  else
    mlirAttributePrint(a, append_ref, &sb);
  lsimp_strbuf_putc(&sb, '\0');
  return lsimp_strbuf_take(&sb);
}

static void expect_attr(MlirOperation op, const char *name, const char *want) {
  char *got = attr_text(attr_of(op, name));
  CU_ASSERT_STRING_EQUAL(got, want);
  if (strcmp(got, want) != 0)
    fprintf(stderr, "\n  attribute %s: got '%s', want '%s'", name, got, want);
  free(got);
}

static char *module_text(MlirModule m) {
  lsimp_strbuf sb = LSIMP_STRBUF_INIT;
  mlirOperationPrint(mlirModuleGetOperation(m), append_ref, &sb);
  lsimp_strbuf_putc(&sb, '\0');
  return lsimp_strbuf_take(&sb);
}

/* Checks an outcome of lsim_lower against the oracle's; false (and a line
 * on stderr prefixed by `what`) when they differ. */
static bool matches(const char *what, int rc, const lsim_error *err, const lsim_lowering *low,
                    const outcome *want) {
  char got[512];
  bool ok = rc == want->code;
  if (rc) {
    ok = ok && low == NULL && strcmp(lsim_error_message(err), want->message) == 0 &&
         strcmp(lsim_error_class(err), want->cls) == 0;
    snprintf(got, sizeof got, "rc %d %s '%s'%s", rc, lsim_error_class(err), lsim_error_message(err),
             low ? " (and a lowering)" : "");
  } else if (low) {
    summary s = summarize(low);
    snprintf(got, sizeof got, "ok: %zu custom calls, %zu while loops", s.num_custom_calls,
             s.num_whiles);
    bool interpret = want->num_targets == 1 && want->targets[0][0] == '\0';
    if (interpret) {
      ok = ok && s.num_custom_calls == 0 && s.num_whiles == 1;
    } else {
      ok = ok && s.num_custom_calls == want->num_targets && s.num_whiles == 0 &&
           s.num_cases == (want->num_targets > 1 ? 2u : 0u);
      for (size_t i = 0; ok && i < want->num_targets; i++) {
        MlirOperation call = s.custom_calls[i];
        ok = target_is(call, want->targets[i]);
        if (ok && strcmp(want->targets[i], TARGET_TRITON) == 0)
          ok = i32_value(config_entry(call, "num_stages")) == want->num_stages[i];
      }
    }
    for (size_t i = 0; i < s.num_custom_calls && i < 8; i++) {
      MlirAttribute t = attr_of(s.custom_calls[i], "call_target_name");
      MlirStringRef ts = !mlirAttributeIsNull(t) && mlirAttributeIsAString(t)
                             ? mlirStringAttrGetValue(t)
                             : mlirStringRefCreateFromCString("?");
      snprintf(got + strlen(got), sizeof got - strlen(got), " [%.*s stages %lld]", (int)ts.length,
               ts.data, (long long)i32_value(config_entry(s.custom_calls[i], "num_stages")));
    }
  } else {
    ok = false;
    snprintf(got, sizeof got, "rc 0 without a lowering");
  }
  if (!ok) {
    fprintf(stderr, "\n  %s:\n    got  %s\n    want rc %d %s '%s'", what, got, want->code,
            want->cls ? want->cls : "", want->code ? want->message : "");
    for (size_t i = 0; i < want->num_targets; i++)
      fprintf(stderr, " [%s stages %d]", want->targets[i][0] ? want->targets[i] : "(interpret)",
              want->num_stages[i]);
  }
  return ok;
}

/* ============================================================================
 * 1. The table
 * ========================================================================== */

static void test_table(void) {
  size_t cases = 0, failures = 0, successes = 0;
  for (size_t pl = 0; pl < N_PLATFORMS; pl++) {
    for (int params = 0; params < NUM_PARAMS; params++) {
      for (int installed = 0; installed < 8; installed++) {
        for (int flag = 0; flag < 2; flag++) {
          for (int interpret = 0; interpret < 2; interpret++) {
            bool mt = installed & 1, tr = installed & 2, mg = installed & 4;
            jax_process jp = jax_start(mt, tr, mg, flag);
            outcome want =
                jax_lower_pallas_call(&jp, &all_platforms[pl], 1, params, interpret);
            process pr;
            if (!process_start(&pr, mt, tr, mg, flag)) {
              CU_FAIL("process_start");
              process_end(&pr);
              return;
            }
            lsim_pallas_call_params p = {.kernel = "add_one",
                                         .grid = 2,
                                         .interpret = interpret,
                                         .compiler_params = params_classes[params]};
            lsim_lowering *low = NULL;
            lsim_error err = LSIM_ERROR_INIT;
            int rc = lower_pallas(&pr, &p, &all_platforms[pl], 1, &f32_128, &low, &err);
            char what[160];
            snprintf(what, sizeof what,
                     "case %zu: platform %s, params %s, installed {%s%s%s}, "
                     "use_mosaic_gpu %d, interpret %d",
                     cases, all_platforms[pl], params_names[params], mt ? " mosaic_tpu" : "",
                     tr ? " triton" : "", mg ? " mosaic_gpu" : "", flag, interpret);
            bool ok = matches(what, rc, &err, low, &want);
            CU_ASSERT_TRUE(ok);
            failures += !ok;
            successes += want.code == LSIM_OK;
            cases++;
            lsim_lowering_destroy(low);
            lsim_error_clear(&err);
            process_end(&pr);
          }
        }
      }
    }
  }
  CU_ASSERT_EQUAL(cases, 6 * 4 * 8 * 2 * 2);
  CU_ASSERT_EQUAL(cases, 768);
  if (failures)
    fprintf(stderr, "\n  pallas table: %zu of %zu cases failed", failures, cases);
  /* A hand count, to check the oracle: interpret mode always lowers (384
   * cases).  Of the 384 others, tpu lowers with no params or Mosaic TPU's
   * when Mosaic TPU is installed (2 x 4 installed sets x 2 flags = 16);
   * cuda with no params when the flag's backend is installed (4 + 4), with
   * Triton's or Mosaic GPU's when installed (8 + 8): 24; rocm only with
   * Triton: no params and the flag unset (4), Triton's params (8): 12. */
  CU_ASSERT_EQUAL(successes, 384 + 16 + 24 + 12);
}

/* Captured constants: refused while tracing the kernel, on every platform
 * and in interpret mode too, before any lowering (so before any
 * registration module is imported). */
static void test_constants(void) {
  const char *const message =
      "The kernel function in the pallas_call add_one at kernels.py:1 captures constants "
      "[f32[128]]. You should pass them as inputs.";
  for (size_t pl = 0; pl < N_PLATFORMS; pl++) {
    for (int interpret = 0; interpret < 2; interpret++) {
      process pr;
      CU_ASSERT_FATAL(process_start(&pr, true, true, true, true));
      lsim_pallas_call_params p = {.kernel = "add_one",
                                   .grid = 1,
                                   .interpret = interpret,
                                   .has_constants = true,
                                   .compiler_params = &lsim_mosaic_gpu_compiler_params};
      lsim_lowering *low = NULL;
      lsim_error err = LSIM_ERROR_INIT;
      int rc = lower_pallas(&pr, &p, &all_platforms[pl], 1, &f32_128, &low, &err);
      CU_ASSERT_EQUAL(rc, LSIM_E_PALLAS_CAPTURED_CONSTANTS);
      CU_ASSERT_STRING_EQUAL(lsim_error_message(&err), message);
      CU_ASSERT_STRING_EQUAL(lsim_error_class(&err), "ValueError");
      CU_ASSERT_PTR_NULL(low);
      /* Several platforms, one of them without a rule: still constants. */
      const char *const pair[] = {all_platforms[pl], pl == 3 ? "metal" : "oneapi"};
      rc = lower_pallas(&pr, &p, pair, 2, &f32_128, &low, &err);
      CU_ASSERT_EQUAL(rc, LSIM_E_PALLAS_CAPTURED_CONSTANTS);
      CU_ASSERT_STRING_EQUAL(lsim_error_message(&err), message);
      CU_ASSERT_PTR_NULL(low);
      /* Nothing was imported: Mosaic GPU params on rocm are still refused. */
      if (pl == 2 && !interpret) {
        p.has_constants = false;
        rc = lower_pallas(&pr, &p, &all_platforms[pl], 1, &f32_128, &low, &err);
        CU_ASSERT_EQUAL(rc, LSIM_E_PALLAS_MOSAIC_GPU_ROCM);
        CU_ASSERT_STRING_EQUAL(lsim_error_message(&err), MSG_ROCM);
        CU_ASSERT_PTR_NULL(low);
      }
      lsim_lowering_destroy(low);
      lsim_error_clear(&err);
      process_end(&pr);
    }
  }
}

/* ============================================================================
 * 2. Order-dependent behaviour in one process
 * ========================================================================== */

/* One lowering of a sequence: its platforms, params, and the expected
 * result: an error (code, message) or the custom-call targets in order. */
typedef struct step {
  const char *platforms[3];
  int params;
  int code;
  const char *message;
  const char *targets[3];
  int stages[3]; /* num_stages of a Triton target */
} step;

static size_t count_strings(const char *const *a, size_t max) {
  size_t n = 0;
  while (n < max && a[n])
    n++;
  return n;
}

/* Runs `steps` in one process (every backend installed; the flag is True
 * by default in JAX, config.py L2376-2378), checking each against `step` and against the oracle
 * running the same sequence in one simulated JAX process. */
static void run_sequence(const char *name, const step *steps, size_t num_steps, bool flag) {
  process pr;
  CU_ASSERT_FATAL(process_start(&pr, true, true, true, flag));
  jax_process jp = jax_start(true, true, true, flag);
  for (size_t i = 0; i < num_steps; i++) {
    const step *s = &steps[i];
    size_t n = count_strings(s->platforms, 3);
    outcome stated = {.code = s->code, .cls = s->code ? "ValueError" : NULL};
    if (s->code == LSIM_E_NO_LOWERING_RULE)
      stated.cls = "NotImplementedError";
    if (s->code == LSIM_E_PALLAS_FOREIGN_PARAMS)
      stated.cls = "AssertionError";
    snprintf(stated.message, sizeof stated.message, "%s", s->message ? s->message : "");
    stated.num_targets = count_strings(s->targets, 3);
    for (size_t t = 0; t < stated.num_targets; t++) {
      stated.targets[t] = s->targets[t];
      stated.num_stages[t] = s->stages[t];
    }
    /* The oracle agrees with what this test states. */
    outcome oracle = jax_lower_pallas_call(&jp, s->platforms, n, s->params, false);
    bool same = oracle.code == stated.code && strcmp(oracle.message, stated.message) == 0 &&
                oracle.num_targets == stated.num_targets;
    for (size_t t = 0; same && t < stated.num_targets; t++)
      same = strcmp(oracle.targets[t], stated.targets[t]) == 0 &&
             oracle.num_stages[t] == stated.num_stages[t];
    CU_ASSERT_TRUE(same);
    if (!same)
      fprintf(stderr, "\n  %s step %zu: the oracle says rc %d '%s'", name, i, oracle.code,
              oracle.message);
    lsim_pallas_call_params p = {
        .kernel = "add_one", .grid = 2, .compiler_params = params_classes[s->params]};
    lsim_lowering *low = NULL;
    lsim_error err = LSIM_ERROR_INIT;
    int rc = lower_pallas(&pr, &p, s->platforms, n, &f32_128, &low, &err);
    char what[128];
    snprintf(what, sizeof what, "%s step %zu (%s%s%s%s%s, params %s)", name, i, s->platforms[0],
             n > 1 ? ", " : "", n > 1 ? s->platforms[1] : "", n > 2 ? ", " : "",
             n > 2 ? s->platforms[2] : "", params_names[s->params]);
    CU_ASSERT_TRUE(matches(what, rc, &err, low, &stated));
    lsim_lowering_destroy(low);
    lsim_error_clear(&err);
  }
  process_end(&pr);
}

static void test_rocm_alone_refused(void) {
  /* PC L911: registry first (GREG not imported yet: nothing), L920 imports
   * GREG, L924 picks Mosaic GPU for its params, L933 refuses ROCm. */
  const step steps[] = {{.platforms = {"rocm"},
                         .params = PARAMS_MOSAIC_GPU,
                         .code = LSIM_E_PALLAS_MOSAIC_GPU_ROCM,
                         .message = MSG_ROCM}};
  run_sequence("rocm alone", steps, 1, true);
}

static void test_cuda_then_rocm(void) {
  /* MLIR L2565 keeps rules in the dict's order (PC L978-983: cpu, tpu,
   * cuda, rocm), whatever the lowering platforms' order: cuda's branch
   * runs first and imports GREG (L920, registering it: GREG L178), so
   * rocm's branch finds the registry rule (L911-914) and skips the ROCm
   * check. */
  const step a[] = {{.platforms = {"cuda", "rocm"},
                     .params = PARAMS_MOSAIC_GPU,
                     .targets = {TARGET_MOSAIC_GPU, TARGET_MOSAIC_GPU}}};
  run_sequence("(cuda, rocm)", a, 1, true);
  const step b[] = {{.platforms = {"rocm", "cuda"},
                     .params = PARAMS_MOSAIC_GPU,
                     .targets = {TARGET_MOSAIC_GPU, TARGET_MOSAIC_GPU}}};
  run_sequence("(rocm, cuda)", b, 1, true);
}

static void test_tpu_then_cuda(void) {
  char message[128];
  snprintf(message, sizeof message, MSG_PARAMS_PLATFORM, "tpu", "gpu");
  /* tpu's branch (before cuda's in the dict) imports MREG (PC L895, which
   * registers the class for "tpu": MREG L732); cuda's branch then gets
   * PCORE L186-188's ValueError.  The failed lowering keeps the import:
   * a later cuda lowering fails the same way, where a fresh process says
   * "Cannot lower pallas_call on platform: gpu". */
  char unsupported[256];
  snprintf(unsupported, sizeof unsupported, MSG_UNSUPPORTED, "gpu");
  const step fresh[] = {{.platforms = {"cuda"},
                         .params = PARAMS_MOSAIC_TPU,
                         .code = LSIM_E_PALLAS_UNSUPPORTED_PLATFORM,
                         .message = unsupported}};
  run_sequence("cuda, fresh", fresh, 1, true);
  const step a[] = {
      {.platforms = {"tpu", "cuda"},
       .params = PARAMS_MOSAIC_TPU,
       .code = LSIM_E_PALLAS_PARAMS_PLATFORM,
       .message = message},
      {.platforms = {"cuda"},
       .params = PARAMS_MOSAIC_TPU,
       .code = LSIM_E_PALLAS_PARAMS_PLATFORM,
       .message = message},
      {.platforms = {"tpu"}, .params = PARAMS_MOSAIC_TPU, .targets = {TARGET_TPU}},
  };
  run_sequence("(tpu, cuda)", a, 3, true);
  const step b[] = {{.platforms = {"cuda", "tpu"},
                     .params = PARAMS_MOSAIC_TPU,
                     .code = LSIM_E_PALLAS_PARAMS_PLATFORM,
                     .message = message}};
  run_sequence("(cuda, tpu)", b, 1, true);
}

static void test_rocm_retry(void) {
  /* The refused lowering imported GREG before raising (PC L920 before
   * L933), so the retry takes the registry rule (L911-914). */
  const step steps[] = {
      {.platforms = {"rocm"},
       .params = PARAMS_MOSAIC_GPU,
       .code = LSIM_E_PALLAS_MOSAIC_GPU_ROCM,
       .message = MSG_ROCM},
      {.platforms = {"rocm"}, .params = PARAMS_MOSAIC_GPU, .targets = {TARGET_MOSAIC_GPU}},
      /* Without params the registry is never consulted: refused again. */
      {.platforms = {"rocm"},
       .params = PARAMS_NONE,
       .code = LSIM_E_PALLAS_MOSAIC_GPU_ROCM,
       .message = MSG_ROCM},
  };
  run_sequence("rocm retry", steps, 3, true);
}

static void test_more_orderings(void) {
  char gpu_for_tpu[128];
  snprintf(gpu_for_tpu, sizeof gpu_for_tpu, MSG_PARAMS_PLATFORM, "gpu", "tpu");
  /* Mosaic GPU params on tpu: unregistered in a fresh process, so they
   * reach MREG's assert (L418); once a gpu lowering imported GREG they are
   * registered for "gpu" and PCORE raises the ValueError instead. */
  const step a[] = {
      {.platforms = {"tpu"},
       .params = PARAMS_MOSAIC_GPU,
       .code = LSIM_E_PALLAS_FOREIGN_PARAMS,
       .message = ""},
      {.platforms = {"cuda"}, .params = PARAMS_MOSAIC_GPU, .targets = {TARGET_MOSAIC_GPU}},
      {.platforms = {"tpu"},
       .params = PARAMS_MOSAIC_GPU,
       .code = LSIM_E_PALLAS_PARAMS_PLATFORM,
       .message = gpu_for_tpu},
  };
  run_sequence("mosaic gpu params on tpu", a, 3, true);
  /* A platform without a rule fails before any rule runs (MLIR L2571-2577):
   * nothing is imported, so rocm is still refused afterwards. */
  const step b[] = {
      {.platforms = {"cuda", "oneapi", "rocm"},
       .params = PARAMS_MOSAIC_GPU,
       .code = LSIM_E_NO_LOWERING_RULE,
       .message =
           "MLIR translation rule for primitive 'pallas_call' not found for platforms ['oneapi']"},
      {.platforms = {"rocm"},
       .params = PARAMS_MOSAIC_GPU,
       .code = LSIM_E_PALLAS_MOSAIC_GPU_ROCM,
       .message = MSG_ROCM},
  };
  run_sequence("oneapi first", b, 2, true);
  /* cpu's branch comes first and raises: nothing imported either. */
  const step c[] = {
      {.platforms = {"rocm", "cpu"},
       .params = PARAMS_MOSAIC_GPU,
       .code = LSIM_E_PALLAS_CPU_NOT_INTERPRET,
       .message = "Only interpret mode is supported on CPU backend."},
      {.platforms = {"rocm"},
       .params = PARAMS_MOSAIC_GPU,
       .code = LSIM_E_PALLAS_MOSAIC_GPU_ROCM,
       .message = MSG_ROCM},
  };
  run_sequence("cpu first", c, 2, true);
  /* gpu_lowering imports GREG whatever the params (PC L918-920 run before
   * the isinstance test): a cuda lowering that fails with Mosaic TPU's
   * params still registers Mosaic GPU's, so rocm then lowers with them. */
  char unsupported[256];
  snprintf(unsupported, sizeof unsupported, MSG_UNSUPPORTED, "gpu");
  const step f[] = {
      {.platforms = {"cuda"},
       .params = PARAMS_MOSAIC_TPU,
       .code = LSIM_E_PALLAS_UNSUPPORTED_PLATFORM,
       .message = unsupported},
      {.platforms = {"rocm"}, .params = PARAMS_MOSAIC_GPU, .targets = {TARGET_MOSAIC_GPU}},
  };
  run_sequence("a failed cuda lowering imports Mosaic GPU", f, 2, true);
  /* Three platforms: one branch each, in the dict's order (tpu, cuda,
   * rocm).  Triton params on tpu: not registered yet at 0.10.2, so Mosaic
   * TPU's rule asserts on them. */
  const step d[] = {
      {.platforms = {"rocm", "tpu", "cuda"},
       .params = PARAMS_TRITON,
       .code = LSIM_E_PALLAS_FOREIGN_PARAMS,
       .message = ""},
      /* No params, flag set: tpu and cuda lower, rocm is refused. */
      {.platforms = {"rocm", "tpu", "cuda"},
       .params = PARAMS_NONE,
       .code = LSIM_E_PALLAS_MOSAIC_GPU_ROCM,
       .message = MSG_ROCM},
  };
  run_sequence("three platforms", d, 2, true);
  const step e[] = {{.platforms = {"rocm", "tpu", "cuda"},
                     .params = PARAMS_NONE,
                     .targets = {TARGET_TPU, TARGET_TRITON, TARGET_TRITON},
                     .stages = {0, 3, 1}}};
  run_sequence("three platforms, flag unset", e, 1, false);
}

/* ============================================================================
 * 3. The params registry with a C-defined class
 * ========================================================================== */

static const lsim_pallas_params_class my_params = {"my_backend.CompilerParams"};

typedef struct my_rule_state {
  int calls;
  char platforms[64];
  char kernel[16];
  int64_t grid;
} my_rule_state;

static int my_rule(lsim_lowering_rule_context *ctx, const MlirValue *args, MlirValue *results,
                   const lsim_pallas_call_params *params, void *data, lsim_error *err) {
  my_rule_state *st = data;
  st->calls++;
  size_t n;
  const char *const *p = lsim_lowering_rule_context_platforms(ctx, &n);
  for (size_t i = 0; i < n; i++)
    snprintf(st->platforms + strlen(st->platforms), sizeof st->platforms - strlen(st->platforms),
             "%s%s", strlen(st->platforms) ? "," : "", p[i]);
  snprintf(st->kernel, sizeof st->kernel, "%s", params->kernel);
  st->grid = params->grid;
  return test_emit_ffi(ctx, "my_backend_kernel", args, results, err);
}

static int other_rule(lsim_lowering_rule_context *ctx, const MlirValue *args, MlirValue *results,
                      const lsim_pallas_call_params *params, void *data, lsim_error *err) {
  (void)params;
  (*(int *)data)++;
  return test_emit_ffi(ctx, "my_other_kernel", args, results, err);
}

static size_t count_target(const lsim_lowering *low, const char *target) {
  summary s = summarize(low);
  size_t n = 0;
  for (size_t i = 0; i < s.num_custom_calls && i < 8; i++)
    n += target_is(s.custom_calls[i], target);
  return n;
}

static void test_registry_api(void) {
  /* Nothing installed: a user's class is the only way to lower on gpu. */
  process pr;
  CU_ASSERT_FATAL(process_start(&pr, false, false, false, true));
  lsim_error err = LSIM_ERROR_INIT;
  static const lsim_pallas_rule dummy = {my_rule, NULL};
  const lsim_pallas_rule *rule = &dummy; /* must be reset to NULL */
  my_rule_state st = {0};

  /* Unregistered: no rule, no error, for any platform. */
  CU_ASSERT_EQUAL(lsim_pallas_get_lowering_rule(pr.pallas, &my_params, "gpu", &rule, &err),
                  LSIM_OK);
  CU_ASSERT_PTR_NULL(rule);
  CU_ASSERT_EQUAL(lsim_pallas_get_lowering_rule(pr.pallas, &my_params, "tpu", &rule, &err),
                  LSIM_OK);
  CU_ASSERT_PTR_NULL(rule);

  CU_ASSERT_EQUAL(lsim_pallas_register_lowering_rule(pr.pallas, &my_params,
                                                     (lsim_pallas_rule){my_rule, &st}, "gpu", &err),
                  LSIM_OK);
  /* Same platform: the rule. */
  CU_ASSERT_EQUAL(lsim_pallas_get_lowering_rule(pr.pallas, &my_params, "gpu", &rule, &err),
                  LSIM_OK);
  CU_ASSERT_PTR_NOT_NULL_FATAL(rule);
  CU_ASSERT_PTR_EQUAL(rule->fn, my_rule);
  CU_ASSERT_PTR_EQUAL(rule->data, &st);
  /* Another platform: PCORE L186-188's ValueError. */
  CU_ASSERT_EQUAL(lsim_pallas_get_lowering_rule(pr.pallas, &my_params, "tpu", &rule, &err),
                  LSIM_E_PALLAS_PARAMS_PLATFORM);
  CU_ASSERT_STRING_EQUAL(lsim_error_message(&err),
                         "Compiler params for platform gpu cannot be used for tpu lowering.");
  CU_ASSERT_STRING_EQUAL(lsim_error_class(&err), "ValueError");
  /* "cuda" is not "gpu": the comparison is of the strings (PCORE L185). */
  CU_ASSERT_EQUAL(lsim_pallas_get_lowering_rule(pr.pallas, &my_params, "cuda", &rule, &err),
                  LSIM_E_PALLAS_PARAMS_PLATFORM);
  CU_ASSERT_STRING_EQUAL(lsim_error_message(&err),
                         "Compiler params for platform gpu cannot be used for cuda lowering.");

  /* pallas_call on cuda calls the rule (PC L911-914), once. */
  lsim_pallas_call_params p = {.kernel = "add_one", .grid = 5, .compiler_params = &my_params};
  const char *const cuda[] = {"cuda"}, *const rocm[] = {"rocm"}, *const tpu[] = {"tpu"};
  lsim_lowering *low = NULL;
  CU_ASSERT_EQUAL(lower_pallas(&pr, &p, cuda, 1, &f32_128, &low, &err), LSIM_OK);
  CU_ASSERT_EQUAL(st.calls, 1);
  CU_ASSERT_STRING_EQUAL(st.platforms, "cuda");
  CU_ASSERT_STRING_EQUAL(st.kernel, "add_one");
  CU_ASSERT_EQUAL(st.grid, 5);
  if (low) {
    CU_ASSERT_EQUAL(count_target(low, "my_backend_kernel"), 1);
  }
  lsim_lowering_destroy(low);
  /* On rocm too: the registry path has no ROCm check. */
  st.platforms[0] = '\0';
  CU_ASSERT_EQUAL(lower_pallas(&pr, &p, rocm, 1, &f32_128, &low, &err), LSIM_OK);
  CU_ASSERT_EQUAL(st.calls, 2);
  CU_ASSERT_STRING_EQUAL(st.platforms, "rocm");
  lsim_lowering_destroy(low);
  /* (cuda, rocm): one branch each (MLIR L2565-2569 keeps one per platform). */
  st.platforms[0] = '\0';
  const char *const both[] = {"rocm", "cuda"};
  CU_ASSERT_EQUAL(lower_pallas(&pr, &p, both, 2, &f32_128, &low, &err), LSIM_OK);
  CU_ASSERT_EQUAL(st.calls, 4);
  CU_ASSERT_STRING_EQUAL(st.platforms, "cuda,rocm");
  if (low) {
    CU_ASSERT_EQUAL(count_target(low, "my_backend_kernel"), 2);
  }
  lsim_lowering_destroy(low);
  /* On tpu: the registry's ValueError, the rule not called. */
  CU_ASSERT_EQUAL(lower_pallas(&pr, &p, tpu, 1, &f32_128, &low, &err), LSIM_E_PALLAS_PARAMS_PLATFORM);
  CU_ASSERT_STRING_EQUAL(lsim_error_message(&err),
                         "Compiler params for platform gpu cannot be used for tpu lowering.");
  CU_ASSERT_PTR_NULL(low);
  CU_ASSERT_EQUAL(st.calls, 4);
  /* interpret=True never looks at the params. */
  p.interpret = true;
  CU_ASSERT_EQUAL(lower_pallas(&pr, &p, tpu, 1, &f32_128, &low, &err), LSIM_OK);
  CU_ASSERT_EQUAL(st.calls, 4);
  lsim_lowering_destroy(low);
  p.interpret = false;

  /* A later registration replaces the earlier one (PCORE L177). */
  int other_calls = 0;
  CU_ASSERT_EQUAL(lsim_pallas_register_lowering_rule(pr.pallas, &my_params,
                                                     (lsim_pallas_rule){other_rule, &other_calls},
                                                     "tpu", &err),
                  LSIM_OK);
  CU_ASSERT_EQUAL(lsim_pallas_get_lowering_rule(pr.pallas, &my_params, "gpu", &rule, &err),
                  LSIM_E_PALLAS_PARAMS_PLATFORM);
  CU_ASSERT_STRING_EQUAL(lsim_error_message(&err),
                         "Compiler params for platform tpu cannot be used for gpu lowering.");
  CU_ASSERT_EQUAL(lsim_pallas_get_lowering_rule(pr.pallas, &my_params, "tpu", &rule, &err),
                  LSIM_OK);
  CU_ASSERT_PTR_NOT_NULL_FATAL(rule);
  CU_ASSERT_PTR_EQUAL(rule->fn, other_rule);
  CU_ASSERT_EQUAL(lower_pallas(&pr, &p, tpu, 1, &f32_128, &low, &err), LSIM_OK);
  CU_ASSERT_EQUAL(other_calls, 1);
  if (low) {
    CU_ASSERT_EQUAL(count_target(low, "my_other_kernel"), 1);
  }
  lsim_lowering_destroy(low);
  CU_ASSERT_EQUAL(lower_pallas(&pr, &p, cuda, 1, &f32_128, &low, &err),
                  LSIM_E_PALLAS_PARAMS_PLATFORM);
  CU_ASSERT_STRING_EQUAL(lsim_error_message(&err),
                         "Compiler params for platform tpu cannot be used for gpu lowering.");
  CU_ASSERT_EQUAL(st.calls, 4);

  /* Bad arguments. */
  CU_ASSERT_EQUAL(lsim_pallas_register_lowering_rule(pr.pallas, &my_params,
                                                     (lsim_pallas_rule){NULL, NULL}, "gpu", &err),
                  LSIM_E_INVALID_ARGUMENT);
  CU_ASSERT_EQUAL(lsim_pallas_register_lowering_rule(pr.pallas, &my_params,
                                                     (lsim_pallas_rule){my_rule, &st}, "", &err),
                  LSIM_E_INVALID_ARGUMENT);
  CU_ASSERT_EQUAL(lsim_pallas_register_lowering_rule(pr.pallas, NULL,
                                                     (lsim_pallas_rule){my_rule, &st}, "gpu", &err),
                  LSIM_E_INVALID_ARGUMENT);
  CU_ASSERT_EQUAL(lsim_pallas_get_lowering_rule(pr.pallas, &my_params, NULL, &rule, &err),
                  LSIM_E_INVALID_ARGUMENT);
  lsim_pallas *none = NULL;
  CU_ASSERT_EQUAL(lsim_pallas_create(NULL, &none, &err), LSIM_E_INVALID_ARGUMENT);
  lsim_pallas_destroy(none); /* NULL */
  lsim_error_clear(&err);
  process_end(&pr);
}

/* A user's class that was never registered reaches MREG's assert on tpu
 * (AssertionError, empty message) and "Cannot lower ... gpu" on cuda. */
static void test_unregistered_user_class(void) {
  process pr;
  CU_ASSERT_FATAL(process_start(&pr, true, true, true, false));
  lsim_pallas_call_params p = {.kernel = "add_one", .grid = 1, .compiler_params = &my_params};
  const char *const tpu[] = {"tpu"}, *const cuda[] = {"cuda"};
  lsim_lowering *low = NULL;
  lsim_error err = LSIM_ERROR_INIT;
  CU_ASSERT_EQUAL(lower_pallas(&pr, &p, tpu, 1, &f32_128, &low, &err), LSIM_E_PALLAS_FOREIGN_PARAMS);
  CU_ASSERT_STRING_EQUAL(lsim_error_message(&err), "");
  CU_ASSERT_STRING_EQUAL(lsim_error_class(&err), "AssertionError");
  CU_ASSERT_PTR_NULL(low);
  char unsupported[256];
  snprintf(unsupported, sizeof unsupported, MSG_UNSUPPORTED, "gpu");
  CU_ASSERT_EQUAL(lower_pallas(&pr, &p, cuda, 1, &f32_128, &low, &err),
                  LSIM_E_PALLAS_UNSUPPORTED_PLATFORM);
  CU_ASSERT_STRING_EQUAL(lsim_error_message(&err), unsupported);
  CU_ASSERT_PTR_NULL(low);
  lsim_error_clear(&err);
  process_end(&pr);
}

/* JAX 0.10.2's own classes: each registered by the lowering that first
 * imports its backend (Triton's by a gpu lowering that gets past Mosaic
 * GPU's choice); from 8fde3f3846 Triton's at creation when installed. */
static void test_builtin_registrations(void) {
  for (int installed = 0; installed < 8; installed++) {
    bool mt = installed & 1, tr = installed & 2, mg = installed & 4;
    lsim_pallas_installed inst = LSIM_PALLAS_INSTALLED_INIT(.mosaic_tpu = mt, .triton = tr,
                                                            .mosaic_gpu = mg);
    lsim_pallas *newest = NULL;
    lsim_registry *reg = NULL;
    const lsim_pallas_rule *rule;
    CU_ASSERT_FATAL(lsim_pallas_create(&inst, &newest, NULL) == LSIM_OK);
    CU_ASSERT_FATAL(lsim_registry_create_jax(runtime, newest, NULL, &reg, NULL) == LSIM_OK);
    CU_ASSERT_EQUAL(
        lsim_pallas_get_lowering_rule(newest, &lsim_triton_compiler_params, "gpu", &rule, NULL),
        LSIM_OK);
    CU_ASSERT_EQUAL(rule != NULL, tr);
    lsim_registry_destroy(reg);
    lsim_pallas_destroy(newest);

    process pr;
    CU_ASSERT_FATAL(process_start(&pr, mt, tr, mg, true));
    lsim_error err = LSIM_ERROR_INIT;
    CU_ASSERT_EQUAL(
        lsim_pallas_get_lowering_rule(pr.pallas, &lsim_triton_compiler_params, "gpu", &rule, &err),
        LSIM_OK);
    CU_ASSERT_PTR_NULL(rule);
    CU_ASSERT_EQUAL(lsim_pallas_get_lowering_rule(pr.pallas, &lsim_mosaic_tpu_compiler_params,
                                                  "tpu", &rule, &err),
                    LSIM_OK);
    CU_ASSERT_PTR_NULL(rule);
    CU_ASSERT_EQUAL(lsim_pallas_get_lowering_rule(pr.pallas, &lsim_mosaic_gpu_compiler_params,
                                                  "gpu", &rule, &err),
                    LSIM_OK);
    CU_ASSERT_PTR_NULL(rule);
    /* A tpu lowering and a gpu lowering, whatever they end in. */
    lsim_pallas_call_params p = {.kernel = "add_one", .grid = 1};
    const char *const tpu[] = {"tpu"}, *const rocm[] = {"rocm"};
    lsim_lowering *low = NULL;
    lower_pallas(&pr, &p, tpu, 1, &f32_128, &low, &err);
    lsim_lowering_destroy(low);
    lower_pallas(&pr, &p, rocm, 1, &f32_128, &low, &err);
    lsim_lowering_destroy(low);
    CU_ASSERT_EQUAL(lsim_pallas_get_lowering_rule(pr.pallas, &lsim_mosaic_tpu_compiler_params,
                                                  "tpu", &rule, &err),
                    LSIM_OK);
    CU_ASSERT_EQUAL(rule != NULL, mt);
    CU_ASSERT_EQUAL(lsim_pallas_get_lowering_rule(pr.pallas, &lsim_mosaic_gpu_compiler_params,
                                                  "gpu", &rule, &err),
                    LSIM_OK);
    CU_ASSERT_EQUAL(rule != NULL, mg);
    /* rocm picked Mosaic GPU (the flag) when installed and was refused
     * before the Triton import. */
    CU_ASSERT_EQUAL(
        lsim_pallas_get_lowering_rule(pr.pallas, &lsim_triton_compiler_params, "gpu", &rule, &err),
        LSIM_OK);
    CU_ASSERT_EQUAL(rule != NULL, tr && !mg);
    if (mt) {
      CU_ASSERT_EQUAL(lsim_pallas_get_lowering_rule(pr.pallas, &lsim_mosaic_tpu_compiler_params,
                                                    "gpu", &rule, &err),
                      LSIM_E_PALLAS_PARAMS_PLATFORM);
      CU_ASSERT_STRING_EQUAL(lsim_error_message(&err),
                             "Compiler params for platform tpu cannot be used for gpu lowering.");
    }
    lsim_error_clear(&err);
    process_end(&pr);
  }
}

/* ============================================================================
 * 4. The embedded kernels
 * ========================================================================== */

/* RFC 4648 base64 with '=' padding; false on anything else. */
static bool b64_decode(const char *text, size_t len, lsimp_strbuf *out) {
  static const char alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  if (len % 4)
    return false;
  for (size_t i = 0; i < len; i += 4) {
    uint32_t v = 0;
    int pad = 0;
    for (int j = 0; j < 4; j++) {
      char c = text[i + j];
      const char *at = c ? strchr(alphabet, c) : NULL;
      if (c == '=' && i + 4 == len && j >= 2 && (j == 3 || text[i + 3] == '=')) {
        pad++;
        v <<= 6;
      } else if (at && !pad) {
        v = v << 6 | (uint32_t)(at - alphabet);
      } else {
        return false;
      }
    }
    char bytes[3] = {(char)(v >> 16), (char)(v >> 8), (char)v};
    lsimp_strbuf_append(out, bytes, (size_t)(3 - pad));
  }
  return true;
}

static void test_base64_decoder_itself(void) {
  lsimp_strbuf sb = LSIMP_STRBUF_INIT;
  CU_ASSERT_TRUE(b64_decode("TWFu", 4, &sb));
  CU_ASSERT_TRUE(b64_decode("TWE=", 4, &sb));
  CU_ASSERT_TRUE(b64_decode("TQ==", 4, &sb));
  CU_ASSERT_EQUAL(sb.len, 6);
  CU_ASSERT_EQUAL(memcmp(sb.data, "ManMaM", 6), 0);
  CU_ASSERT_FALSE(b64_decode("TQ=a", 4, &sb));
  CU_ASSERT_FALSE(b64_decode("T===", 4, &sb));
  CU_ASSERT_FALSE(b64_decode("TQ==TWFu", 8, &sb));
  CU_ASSERT_FALSE(b64_decode("TWF", 3, &sb));
  lsimp_strbuf_free(&sb);
}

/* lsimp_base64_encode: RFC 4648's vectors, and every length across its
 * chunks decodes back to the bytes. */
static void test_base64_encoder(void) {
  static const char *const vectors[][2] = {{"", ""},         {"f", "Zg=="},         {"fo", "Zm8="},
                                           {"foo", "Zm9v"}, {"foob", "Zm9vYg=="}, {"fooba", "Zm9vYmE="},
                                           {"foobar", "Zm9vYmFy"}};
  lsimp_strbuf sb = LSIMP_STRBUF_INIT, back = LSIMP_STRBUF_INIT;
  for (size_t i = 0; i < sizeof vectors / sizeof vectors[0]; i++) {
    lsimp_strbuf_reset(&sb);
    lsimp_base64_encode(&sb, vectors[i][0], strlen(vectors[i][0]));
    CU_ASSERT_STRING_EQUAL(lsimp_strbuf_cstr(&sb), vectors[i][1]);
  }
  uint8_t data[2400];
  for (size_t i = 0; i < sizeof data; i++)
    data[i] = (uint8_t)(i * 131 + 7);
  for (size_t n = 0; n <= sizeof data; n += n < 800 ? 1 : 97) {
    lsimp_strbuf_reset(&sb);
    lsimp_strbuf_reset(&back);
    lsimp_base64_encode(&sb, data, n);
    CU_ASSERT_EQUAL(sb.len, (n + 2) / 3 * 4);
    CU_ASSERT_TRUE(b64_decode(lsimp_strbuf_cstr(&sb), sb.len, &back));
    CU_ASSERT_TRUE(back.len == n && (n == 0 || memcmp(back.data, data, n) == 0));
  }
  lsimp_strbuf_free(&sb);
  lsimp_strbuf_free(&back);
}

static void hex(const uint8_t *d, size_t n, char *out) {
  for (size_t i = 0; i < n; i++)
    sprintf(out + 2 * i, "%02x", d[i]);
}

static void test_sha256_vectors(void) {
  static const struct {
    const char *msg;
    const char *digest;
  } vectors[] = {
      {"abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"},
      {"", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"},
      {"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
       "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"},
  };
  for (size_t i = 0; i < sizeof vectors / sizeof vectors[0]; i++) {
    uint8_t d[32];
    char text[65];
    lsimp_sha256(vectors[i].msg, strlen(vectors[i].msg), d);
    hex(d, 32, text);
    CU_ASSERT_STRING_EQUAL(text, vectors[i].digest);
  }
}

/* Lowers one pallas_call over f32[8] with grid 3 on `platform` in a fresh
 * process with every backend installed; returns its only custom call. */
static lsim_lowering *lower_kernel(const char *platform, int params, bool flag,
                                   MlirOperation *call) {
  process pr;
  if (!process_start(&pr, true, true, true, flag)) {
    process_end(&pr);
    return NULL;
  }
  lsim_pallas_call_params p = {
      .kernel = "add_one", .grid = 3, .compiler_params = params_classes[params]};
  lsim_lowering *low = NULL;
  lsim_error err = LSIM_ERROR_INIT;
  int rc = lower_pallas(&pr, &p, &platform, 1, &f32_128, &low, &err);
  CU_ASSERT_EQUAL(rc, LSIM_OK);
  if (rc)
    fprintf(stderr, "\n  lowering on %s: %s", platform, lsim_error_message(&err));
  lsim_error_clear(&err);
  process_end(&pr); /* the lowering does not need the process any more */
  if (low) {
    summary s = summarize(low);
    CU_ASSERT_EQUAL(s.num_custom_calls, 1);
    *call = s.custom_calls[0];
    if (s.num_custom_calls != 1) {
      lsim_lowering_destroy(low);
      low = NULL;
    }
  }
  return low;
}

static void write_bytes(MlirStringRef s, void *data) { lsimp_strbuf_append(data, s.data, s.length); }

/* Checks that `bytes` are MLIR bytecode (of version 0 when `version0`, as
 * JAX's write_bytecode(desired_version=0) writes) of the module that
 * lsimp_pallas_build_kernel builds for `flavor`, f32[8] and grid 3: parsed
 * back, it prints as that module prints, and writing that module the same
 * way gives the same bytes. */
static void expect_kernel_bytes(const char *what, MlirStringRef bytes, lsimp_kernel_flavor flavor,
                                bool version0) {
  MlirContext mlir = lsimp_kernel_context();
  CU_ASSERT_TRUE_FATAL(bytes.length > 5);
  CU_ASSERT_EQUAL(memcmp(bytes.data, "ML\xefR", 4), 0);
  /* The version is a VarInt: one byte (v << 1) | 1 for small v. */
  if (version0) {
    CU_ASSERT_EQUAL((unsigned char)bytes.data[4], 0x01);
  } else {
    CU_ASSERT_NOT_EQUAL((unsigned char)bytes.data[4], 0x01);
  }
  MlirModule parsed = mlirModuleCreateParse(mlir, bytes);
  CU_ASSERT_FALSE_FATAL(mlirModuleIsNull(parsed));
  MlirModule direct;
  lsim_error err = LSIM_ERROR_INIT;
  /* The test runtime's default device is cuda's; Mosaic GPU serializes at
   * 0.10.2's stable_mosaic_gpu.version 6 for a 9.0 GPU. */
  bool gpu = flavor == LSIMP_KERNEL_MOSAIC_GPU;
  /* Triton's loads and stores carry cache and evict at 0.10.2. */
  lsimp_kernel_spec spec = {.kernel = "add_one", .flavor = flavor, .block = &f32_128, .grid = 3,
                            .mosaic_version = gpu ? 6 : 11, .arch_major = gpu ? 9 : 0,
                            .cache_evict = flavor == LSIMP_KERNEL_TRITON};
  CU_ASSERT_EQUAL_FATAL(lsimp_pallas_build_kernel(mlir, &spec, &direct, NULL, &err), LSIM_OK);
  char *got = module_text(parsed), *want = module_text(direct);
  CU_ASSERT_STRING_EQUAL(got, want);
  if (strcmp(got, want) != 0)
    fprintf(stderr, "\n  %s kernel:\n%s\n  direct:\n%s", what, got, want);
  lsimp_strbuf direct_bytes = LSIMP_STRBUF_INIT;
  if (version0) {
    MlirBytecodeWriterConfig config = mlirBytecodeWriterConfigCreate();
    mlirBytecodeWriterConfigDesiredEmitVersion(config, 0);
    CU_ASSERT_TRUE(mlirLogicalResultIsSuccess(mlirOperationWriteBytecodeWithConfig(
        mlirModuleGetOperation(direct), config, write_bytes, &direct_bytes)));
    mlirBytecodeWriterConfigDestroy(config);
  } else {
    mlirOperationWriteBytecode(mlirModuleGetOperation(direct), write_bytes, &direct_bytes);
  }
  CU_ASSERT_EQUAL(direct_bytes.len, bytes.length);
  CU_ASSERT_TRUE(direct_bytes.len == bytes.length &&
                 memcmp(direct_bytes.data, bytes.data, bytes.length) == 0);
  lsimp_strbuf_free(&direct_bytes);
  free(got);
  free(want);
  mlirModuleDestroy(parsed);
  mlirModuleDestroy(direct);
  mlirContextDestroy(mlir);
}

static void expect_layouts(MlirOperation call) {
  expect_attr(call, "operand_layouts", "[dense<0> : tensor<1xindex>]");
  expect_attr(call, "result_layouts", "[dense<0> : tensor<1xindex>]");
  expect_attr(call, "output_operand_aliases", "[]");
  expect_attr(call, "has_side_effect", "false");
  expect_attr(call, "api_version", "1 : i32");
  expect_attr(call, "called_computations", "[]");
}

static void test_tpu_kernel(void) {
  static const char prefix[] = "{\"custom_call_config\": {\"body\": \"";
  static const char suffix[] = "\", \"serialization_format\": 1, \"needs_layout_passes\": true}}";
  const int with_params[] = {PARAMS_NONE, PARAMS_MOSAIC_TPU};
  for (size_t k = 0; k < 2; k++) {
    MlirOperation call;
    lsim_lowering *low = lower_kernel("tpu", with_params[k], true, &call);
    CU_ASSERT_PTR_NOT_NULL_FATAL(low);
    CU_ASSERT_TRUE(target_is(call, TARGET_TPU));
    expect_layouts(call);
    expect_attr(call, "kernel_name", "\"add_one\"");
    expect_attr(call, "mhlo.frontend_attributes", "{kernel_metadata = \"{}\"}");
    CU_ASSERT_TRUE(mlirAttributeIsNull(attr_of(call, "mhlo.backend_config")));
    MlirAttribute config = attr_of(call, "backend_config");
    CU_ASSERT_TRUE_FATAL(!mlirAttributeIsNull(config) && mlirAttributeIsAString(config));
    MlirStringRef json = mlirStringAttrGetValue(config);
    size_t np = strlen(prefix), ns = strlen(suffix);
    CU_ASSERT_TRUE_FATAL(json.length > np + ns);
    CU_ASSERT_EQUAL(memcmp(json.data, prefix, np), 0);
    CU_ASSERT_EQUAL(memcmp(json.data + json.length - ns, suffix, ns), 0);
    const char *b64 = json.data + np;
    size_t b64_len = json.length - np - ns;
    CU_ASSERT_PTR_NULL(memchr(b64, '"', b64_len));
    lsimp_strbuf body = LSIMP_STRBUF_INIT;
    CU_ASSERT_TRUE_FATAL(b64_decode(b64, b64_len, &body));
    expect_kernel_bytes("tpu", (MlirStringRef){body.data, body.len}, LSIMP_KERNEL_MOSAIC_TPU, true);
    lsimp_strbuf_free(&body);
    lsim_lowering_destroy(low);
  }
}

static void test_triton_kernel(void) {
  const struct {
    const char *platform;
    int params;
    bool flag;
    int num_stages;
  } cases[] = {
      {"cuda", PARAMS_TRITON, true, 3}, /* the registry rule */
      {"cuda", PARAMS_NONE, false, 3},  /* the flag unset */
      {"rocm", PARAMS_TRITON, true, 1}, /* TREG L96 */
      {"rocm", PARAMS_NONE, false, 1},
  };
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
    MlirOperation call;
    lsim_lowering *low = lower_kernel(cases[k].platform, cases[k].params, cases[k].flag, &call);
    CU_ASSERT_PTR_NOT_NULL_FATAL(low);
    CU_ASSERT_TRUE(target_is(call, TARGET_TRITON));
    expect_layouts(call);
    expect_attr(call, "backend_config", "\"\"");
    MlirAttribute dict = attr_of(call, "mhlo.backend_config");
    CU_ASSERT_TRUE_FATAL(!mlirAttributeIsNull(dict) && mlirAttributeIsADictionary(dict));
    CU_ASSERT_EQUAL(mlirDictionaryAttrGetNumElements(dict), 8);
    CU_ASSERT_EQUAL(i32_value(config_entry(call, "grid_x")), 3);
    CU_ASSERT_EQUAL(i32_value(config_entry(call, "grid_y")), 1);
    CU_ASSERT_EQUAL(i32_value(config_entry(call, "grid_z")), 1);
    CU_ASSERT_EQUAL(i32_value(config_entry(call, "num_warps")), 4);
    CU_ASSERT_EQUAL(i32_value(config_entry(call, "num_stages")), cases[k].num_stages);
    MlirAttribute debug = config_entry(call, "debug");
    CU_ASSERT_TRUE(!mlirAttributeIsNull(debug) && mlirAttributeIsABool(debug) &&
                   !mlirBoolAttrGetValue(debug));
    MlirAttribute name = config_entry(call, "name");
    CU_ASSERT_TRUE(!mlirAttributeIsNull(name) && mlirAttributeIsAString(name) &&
                   ref_is(mlirStringAttrGetValue(name), "add_one"));
    MlirAttribute ir = config_entry(call, "ir");
    CU_ASSERT_TRUE_FATAL(!mlirAttributeIsNull(ir) && mlirAttributeIsAString(ir));
    /* write_bytecode(buf) with the default version (TREG L128). */
    expect_kernel_bytes("triton", mlirStringAttrGetValue(ir), LSIMP_KERNEL_TRITON, false);
    lsim_lowering_destroy(low);
  }
}

static void test_mosaic_gpu_kernel(void) {
  const struct {
    int params;
    bool flag;
  } cases[] = {{PARAMS_NONE, true}, {PARAMS_MOSAIC_GPU, false}, {PARAMS_MOSAIC_GPU, true}};
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
    MlirOperation call;
    lsim_lowering *low = lower_kernel("cuda", cases[k].params, cases[k].flag, &call);
    CU_ASSERT_PTR_NOT_NULL_FATAL(low);
    CU_ASSERT_TRUE(target_is(call, TARGET_MOSAIC_GPU));
    expect_layouts(call);
    expect_attr(call, "backend_config", "\"\"");
    MlirAttribute dict = attr_of(call, "mhlo.backend_config");
    CU_ASSERT_TRUE_FATAL(!mlirAttributeIsNull(dict) && mlirAttributeIsADictionary(dict));
    CU_ASSERT_EQUAL(mlirDictionaryAttrGetNumElements(dict), 4);
    MlirAttribute module = config_entry(call, "module"), hash = config_entry(call, "kernel_hash");
    CU_ASSERT_TRUE_FATAL(!mlirAttributeIsNull(module) && mlirAttributeIsAString(module));
    CU_ASSERT_TRUE_FATAL(!mlirAttributeIsNull(hash) && mlirAttributeIsAString(hash));
    MlirStringRef bytes = mlirStringAttrGetValue(module), digest = mlirStringAttrGetValue(hash);
    uint8_t want[32];
    lsimp_sha256(bytes.data, bytes.length, want);
    CU_ASSERT_EQUAL(digest.length, 32);
    CU_ASSERT_TRUE(digest.length == 32 && memcmp(digest.data, want, 32) == 0);
    expect_kernel_bytes("mosaic gpu", bytes, LSIMP_KERNEL_MOSAIC_GPU, true); /* MGC L254 */
    const char *const flags[] = {"use_custom_barrier", "uses_xla_collective_metadata"};
    for (size_t f = 0; f < 2; f++) {
      MlirAttribute b = config_entry(call, flags[f]);
      CU_ASSERT_TRUE(!mlirAttributeIsNull(b) && mlirAttributeIsABool(b) &&
                     !mlirBoolAttrGetValue(b));
    }
    lsim_lowering_destroy(low);
  }
}

/* ============================================================================
 * 5. Bad kernels
 * ========================================================================== */

static void test_bad_kernels(void) {
  static const lsim_aval f32_2x2 = {.dtype = LSIM_DTYPE_F32, .rank = 2, .dims = {2, 2}};
  static const lsim_aval bool_4 = {.dtype = LSIM_DTYPE_BOOL, .rank = 1, .dims = {4}};
  static const lsim_aval two_f32_4[] = {{.dtype = LSIM_DTYPE_F32, .rank = 1, .dims = {4}},
                                        {.dtype = LSIM_DTYPE_F32, .rank = 1, .dims = {4}}};
  const struct {
    const char *name;
    const char *kernel;
    int64_t grid;
    const lsim_aval *args;
    size_t num_args;
    const lsim_aval *results;
    size_t num_results;
  } cases[] = {
      {"unknown kernel", "add_two", 1, &f32_4, 1, &f32_4, 1},
      {"two operands", "add_one", 1, two_f32_4, 2, &f32_4, 1},
      {"two results", "add_one", 1, &f32_4, 1, two_f32_4, 2},
      {"rank 2", "add_one", 1, &f32_2x2, 1, &f32_2x2, 1},
      {"bool", "add_one", 1, &bool_4, 1, &bool_4, 1},
      {"grid 0", "add_one", 0, &f32_4, 1, &f32_4, 1},
      {"grid -1", "copy", -1, &f32_4, 1, &f32_4, 1},
  };
  process pr;
  CU_ASSERT_FATAL(process_start(&pr, true, true, true, true));
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
    for (size_t pl = 0; pl < N_PLATFORMS; pl++) {
      for (int interpret = 0; interpret < 2; interpret++) {
        lsim_pallas_call_params p = {
            .kernel = cases[c].kernel, .grid = cases[c].grid, .interpret = interpret};
        lsim_lowering *low = NULL;
        lsim_error err = LSIM_ERROR_INIT;
        int rc = lower_eqn(pr.registry, cases[c].args, cases[c].num_args, cases[c].results,
                           cases[c].num_results, &p, &all_platforms[pl], 1, &low, &err);
        CU_ASSERT_EQUAL(rc, LSIM_E_INVALID_ARGUMENT);
        CU_ASSERT_PTR_NULL(low);
        if (rc != LSIM_E_INVALID_ARGUMENT)
          fprintf(stderr, "\n  bad kernel '%s' on %s (interpret %d): rc %d '%s'", cases[c].name,
                  all_platforms[pl], interpret, rc, lsim_error_message(&err));
        lsim_lowering_destroy(low);
        lsim_error_clear(&err);
      }
    }
  }
  process_end(&pr);

  /* The library functions directly. */
  lsim_error err = LSIM_ERROR_INIT;
  const int64_t zero_block[2] = {0, 0}, tile[2] = {8, 128};
  const lsim_aval f32_16x256 = {LSIM_DTYPE_F32, 2, {16, 256}, LSIM_MEMORY_DEVICE};
  CU_ASSERT_EQUAL(lsimp_pallas_check_kernel("tiled_add_one", &f32_16x256, 1, &f32_16x256, 1, tile,
                                            1, &err), LSIM_OK);
  CU_ASSERT_EQUAL(lsimp_pallas_check_kernel("tiled_add_one", &f32_16x256, 1, &f32_16x256, 1,
                                            zero_block, 1, &err), LSIM_E_INVALID_ARGUMENT);
  /* Any block that divides the array is the kernel's (Mosaic TPU's own
   * rule is its lowering's: testdata/conformance/pallas/tpu-block-*.xml). */
  const int64_t narrow[2] = {16, 64}, odd[2] = {16, 96};
  CU_ASSERT_EQUAL(lsimp_pallas_check_kernel("tiled_add_one", &f32_16x256, 1, &f32_16x256, 1,
                                            narrow, 1, &err), LSIM_OK);
  CU_ASSERT_EQUAL(lsimp_pallas_check_kernel("tiled_add_one", &f32_16x256, 1, &f32_16x256, 1, odd,
                                            1, &err), LSIM_E_INVALID_ARGUMENT);
  CU_ASSERT_EQUAL(lsimp_pallas_check_kernel("add_one", &f32_4, 1, &f32_4, 1, tile, 1, &err),
                  LSIM_E_INVALID_ARGUMENT);
  CU_ASSERT_EQUAL(lsimp_pallas_check_kernel("add_one", &f32_4, 1, &f32_4, 1, zero_block, 1, &err), LSIM_OK);
  CU_ASSERT_EQUAL(lsimp_pallas_check_kernel("copy", &f32_8, 1, &f32_8, 1, zero_block, 1, &err), LSIM_OK);
  CU_ASSERT_EQUAL(lsimp_pallas_check_kernel("nope", &f32_4, 1, &f32_4, 1, zero_block, 1, &err),
                  LSIM_E_INVALID_ARGUMENT);
  CU_ASSERT_EQUAL(lsimp_pallas_check_kernel("add_one", &f32_4, 1, &f32_8, 1, zero_block, 1, &err),
                  LSIM_E_INVALID_ARGUMENT);
  CU_ASSERT_EQUAL(lsimp_pallas_check_kernel("add_one", &bool_4, 1, &bool_4, 1, zero_block, 1, &err),
                  LSIM_E_INVALID_ARGUMENT);
  CU_ASSERT_EQUAL(lsimp_pallas_check_kernel("add_one", &f32_2x2, 1, &f32_2x2, 1, zero_block, 1, &err),
                  LSIM_E_INVALID_ARGUMENT);
  MlirContext mlir = lsim_lowerer_mlir_context(lowerer);
  const struct {
    const char *kernel;
    const lsim_aval *block;
    int64_t grid;
  } builds[] = {{"nope", &f32_4, 1},
                {"add_one", &f32_2x2, 1},
                {"add_one", &f32_4, 0},
                {NULL, &f32_4, 1},
                {"add_one", NULL, 1}};
  for (size_t b = 0; b < sizeof builds / sizeof builds[0]; b++) {
    for (int flavor = LSIMP_KERNEL_MOSAIC_TPU; flavor <= LSIMP_KERNEL_MOSAIC_GPU; flavor++) {
      MlirModule m = {NULL};
      lsimp_kernel_spec spec = {.kernel = builds[b].kernel, .flavor = (lsimp_kernel_flavor)flavor,
                                .block = builds[b].block, .grid = builds[b].grid};
      CU_ASSERT_EQUAL(lsimp_pallas_build_kernel(mlir, &spec, &m, NULL, &err), LSIM_E_INVALID_ARGUMENT);
      CU_ASSERT_TRUE(mlirModuleIsNull(m));
    }
  }
  lsim_error_clear(&err);
}

static CU_TestInfo tests[] = {
    {"table: platform x params x installed x flag x interpret", test_table},
    {"constants refused first", test_constants},
    {"order: rocm alone with Mosaic GPU params", test_rocm_alone_refused},
    {"order: cuda's branch registers Mosaic GPU for rocm's", test_cuda_then_rocm},
    {"order: tpu's branch registers Mosaic TPU before cuda's", test_tpu_then_cuda},
    {"order: rocm retry in the same process", test_rocm_retry},
    {"order: more sequences", test_more_orderings},
    {"registry API with a C-defined class", test_registry_api},
    {"an unregistered user class", test_unregistered_user_class},
    {"JAX's registrations: eager and lazy", test_builtin_registrations},
    {"base64 decoder of the test", test_base64_decoder_itself},
    {"base64 encoder", test_base64_encoder},
    {"SHA-256 vectors", test_sha256_vectors},
    {"Mosaic TPU kernel round trip", test_tpu_kernel},
    {"Triton kernel round trip", test_triton_kernel},
    {"Mosaic GPU kernel round trip and hash", test_mosaic_gpu_kernel},
    {"bad kernels", test_bad_kernels},
    CU_TEST_INFO_NULL,
};

CU_SuiteInfo pallas_suite[] = {{"pallas", suite_init, suite_clean, NULL, NULL, tests},
                               CU_SUITE_INFO_NULL};
