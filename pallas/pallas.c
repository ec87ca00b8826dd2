/* pallas/pallas.c: the compiler-params registry and pallas_call lowering.
 * JAX counterparts: pallas/core.py register_lowering_rule and
 * get_lowering_rule; pallas/pallas_call.py _pallas_call_lowering
 * (cpu_lowering, tpu_lowering, gpu_lowering, _unsupported_lowering_error);
 * the pallas_call lowerings of pallas/mosaic, pallas/triton and
 * pallas/mosaic_gpu's pallas_call_registration.py; tpu_custom_call.py. */
#include "lowersim/emit.h"
#include "lowersim/pallas.h"
#include "support/encode.h"
#include "support/raise.h"
#include "support/mlir_text.h"
#include "support/strbuf.h"

#include <mlir-c/BuiltinAttributes.h>
#include <mlir-c/BuiltinTypes.h>

#include <stdlib.h>
#include <string.h>

const lsim_pallas_params_class lsim_mosaic_tpu_compiler_params = {"pltpu.CompilerParams"};
const lsim_pallas_params_class lsim_triton_compiler_params = {"pltriton.CompilerParams"};
const lsim_pallas_params_class lsim_mosaic_gpu_compiler_params = {"plgpu.CompilerParams"};

typedef struct registration {
  const lsim_pallas_params_class *cls;
  lsim_pallas_rule rule;
  char platform[LSIM_PLATFORM_NAME_MAX + 1];
} registration;

struct lsim_pallas {
  lsim_pallas_installed installed;
  registration *rules;
  size_t num_rules;
  /* Which backends' pallas_call_registration modules have been imported. */
  bool imported_mosaic_tpu, imported_triton, imported_mosaic_gpu;
};

/* --- the registry ------------------------------------------------------------ */

int lsim_pallas_register_lowering_rule(lsim_pallas *pallas, const lsim_pallas_params_class *cls,
                                       lsim_pallas_rule rule, const char *platform,
                                       lsim_error *err) {
  if (!pallas || !cls || !rule.fn)
    return lsim_error_set(err, LSIM_E_INVALID_ARGUMENT,
                     "lsim_pallas_register_lowering_rule: NULL argument");
  int rc = lsim_check_platform_name(platform, err);
  if (rc)
    return rc;
  size_t i = 0;
  while (i < pallas->num_rules && pallas->rules[i].cls != cls)
    i++;
  if (i == pallas->num_rules) {
    registration *grown = realloc(pallas->rules, (i + 1) * sizeof *grown);
    if (!grown)
      return lsimp_fail_oom(err);
    pallas->rules = grown;
    pallas->num_rules++;
  }
  pallas->rules[i].cls = cls;
  pallas->rules[i].rule = rule;
  strcpy(pallas->rules[i].platform, platform);
  return LSIM_OK;
}

int lsim_pallas_get_lowering_rule(const lsim_pallas *pallas, const lsim_pallas_params_class *cls,
                                  const char *expected_platform, const lsim_pallas_rule **out,
                                  lsim_error *err) {
  if (!pallas || !cls || !expected_platform || !out)
    return lsim_error_set(err, LSIM_E_INVALID_ARGUMENT, "lsim_pallas_get_lowering_rule: NULL argument");
  *out = NULL;
  for (size_t i = 0; i < pallas->num_rules; i++) {
    if (pallas->rules[i].cls != cls)
      continue;
    if (strcmp(pallas->rules[i].platform, expected_platform) != 0)
      return lsimp_raise(err, LSIM_E_PALLAS_PARAMS_PLATFORM, pallas->rules[i].platform,
                        expected_platform);
    *out = &pallas->rules[i].rule;
  }
  return LSIM_OK;
}

/* --- the backends' pallas_call lowerings ------------------------------------------ */

static MlirContext mlir_of(const lsim_lowering_rule_context *ctx) {
  return lsim_module_context_mlir_context(ctx->module_context);
}


/* Narrates the kernel module, one line per line of its text. */
static void narrate_kernel(lsim_lowering_rule_context *ctx, MlirModule kernel) {
  lsim_module_context *mc = ctx->module_context;
  if (!lsim_module_context_tracing(mc))
    return;
  lsimp_strbuf text = LSIMP_STRBUF_INIT;
  mlirOperationPrint(mlirModuleGetOperation(kernel), lsimp_strbuf_append_mlir, &text);
  lsim_module_context_trace(mc, LSIM_TRACE_DETAIL, +1, "kernel module:");
  for (char *line = text.data; line && *line;) {
    char *nl = strchr(line, '\n');
    if (nl)
      *nl = '\0';
    lsim_module_context_trace(mc, LSIM_TRACE_TEXT, 0, "%s", line);
    line = nl ? nl + 1 : NULL;
  }
  lsim_module_context_trace_nest(mc, -1);
  lsimp_strbuf_free(&text);
}

/* Builds the kernel and serializes it as MLIR bytecode into `bytes`
 * (desired_version 0 for the Mosaic serializations, else the default). */
static int kernel_bytecode(lsim_lowering_rule_context *ctx, const lsim_pallas_call_params *p,
                           lsim_kernel_flavor flavor, bool version0, lsimp_strbuf *bytes,
                           lsim_error *err) {
  MlirModule kernel;
  int rc = lsim_pallas_build_kernel(mlir_of(ctx), p->kernel, flavor, &ctx->avals_in[0], p->grid,
                                    &kernel, err);
  if (rc)
    return rc;
  narrate_kernel(ctx, kernel);
  MlirOperation op = mlirModuleGetOperation(kernel);
  if (version0) {
    MlirBytecodeWriterConfig config = mlirBytecodeWriterConfigCreate();
    mlirBytecodeWriterConfigDesiredEmitVersion(config, 0);
    if (mlirLogicalResultIsFailure(mlirOperationWriteBytecodeWithConfig(op, config, lsimp_strbuf_append_mlir, bytes)))
      rc = lsim_error_set(err, LSIM_E_VERIFY, "MLIR could not write the %s kernel as bytecode", p->kernel);
    mlirBytecodeWriterConfigDestroy(config);
  } else {
    mlirOperationWriteBytecode(op, lsimp_strbuf_append_mlir, bytes);
  }
  mlirModuleDestroy(kernel);
  if (!rc && lsimp_strbuf_failed(bytes))
    rc = lsimp_fail_oom(err);
  return rc;
}

/* The custom call of a pallas_call: one result per output aval, row-major
 * layouts, output_operand_aliases always present (no aliases here). */
static int emit_kernel_call(lsim_lowering_rule_context *ctx, lsim_custom_call *call,
                            const MlirValue *args, MlirValue *results, lsim_error *err) {
  MlirType types[1];
  types[0] = lsim_module_context_aval_to_ir_type(ctx->module_context, &ctx->avals_out[0]);
  call->layouts = true;
  call->has_aliases = true;
  MlirOperation op;
  int rc = lsim_emit_custom_call(ctx, call, args, ctx->num_avals_in, types, 1, &op, err);
  if (!rc)
    results[0] = mlirOperationGetResult(op, 0);
  return rc;
}

static MlirAttribute bytes_attr(MlirContext mlir, const lsimp_strbuf *bytes) {
  return mlirStringAttrGet(mlir, (MlirStringRef){bytes->data ? bytes->data : "", bytes->len});
}

char *lsim_tpu_custom_call_config(const void *bytecode, size_t size) {
  lsimp_strbuf json = LSIMP_STRBUF_INIT;
  lsimp_strbuf_puts(&json, "{\"custom_call_config\": {\"body\": \"");
  lsimp_base64_encode(&json, bytecode, size);
  lsimp_strbuf_puts(&json, "\", \"serialization_format\": 1, \"needs_layout_passes\": true}}");
  return lsimp_strbuf_take(&json);
}

/* pallas_call_tpu_lowering_rule: a tpu_custom_call whose backend config is
 * the JSON CustomCallBackendConfig.to_json writes, the kernel as base64 of
 * its bytecode, with default CompilerParams. */
static int mosaic_tpu_lowering(lsim_lowering_rule_context *ctx, const MlirValue *args,
                               MlirValue *results, const lsim_pallas_call_params *p, void *data,
                               lsim_error *err) {
  (void)data;
  lsimp_strbuf bytes = LSIMP_STRBUF_INIT;
  char *json = NULL;
  int rc = kernel_bytecode(ctx, p, LSIM_KERNEL_MOSAIC_TPU, true, &bytes, err);
  if (!rc && !(json = lsim_tpu_custom_call_config(bytes.data, bytes.len)))
    rc = lsimp_fail_oom(err);
  if (!rc) {
    MlirContext mlir = mlir_of(ctx);
    MlirNamedAttribute metadata = lsim_named(mlir, "kernel_metadata", lsim_string_attr(mlir, "{}"));
    MlirNamedAttribute extra[] = {
        lsim_named(mlir, "kernel_name", lsim_string_attr(mlir, p->kernel)),
        lsim_named(mlir, "mhlo.frontend_attributes", mlirDictionaryAttrGet(mlir, 1, &metadata)),
    };
    lsim_custom_call call = {.target = "tpu_custom_call",
                             .backend_config = json,
                             .api_version = 1,
                             .extra = extra,
                             .num_extra = 2};
    rc = emit_kernel_call(ctx, &call, args, results, err);
  }
  lsimp_strbuf_free(&bytes);
  free(json);
  return rc;
}

static MlirAttribute i32_attr(MlirContext mlir, int64_t v) {
  return mlirIntegerAttrGet(mlirIntegerTypeGet(mlir, 32), v);
}

/* The Triton backend's pallas_call_lowering: __gpu$xla.gpu.triton with the
 * kernel's bytecode in the `ir` entry of mhlo.backend_config. */
static int triton_lowering(lsim_lowering_rule_context *ctx, const MlirValue *args,
                           MlirValue *results, const lsim_pallas_call_params *p, void *data,
                           lsim_error *err) {
  (void)data;
  size_t n;
  const char *const *platforms = lsim_lowering_rule_context_platforms(ctx, &n);
  bool rocm = strcmp(platforms[0], "rocm") == 0;
  lsimp_strbuf bytes = LSIMP_STRBUF_INIT;
  int rc = kernel_bytecode(ctx, p, LSIM_KERNEL_TRITON, false, &bytes, err);
  if (!rc) {
    MlirContext mlir = mlir_of(ctx);
    MlirNamedAttribute config[] = {
        lsim_named(mlir, "name", lsim_string_attr(mlir, p->kernel)),
        lsim_named(mlir, "ir", bytes_attr(mlir, &bytes)),
        lsim_named(mlir, "num_stages", i32_attr(mlir, rocm ? 1 : 3)),
        lsim_named(mlir, "num_warps", i32_attr(mlir, 4)),
        lsim_named(mlir, "grid_x", i32_attr(mlir, p->grid)),
        lsim_named(mlir, "grid_y", i32_attr(mlir, 1)),
        lsim_named(mlir, "grid_z", i32_attr(mlir, 1)),
        lsim_named(mlir, "debug", mlirBoolAttrGet(mlir, 0)),
    };
    lsim_custom_call call = {.target = "__gpu$xla.gpu.triton",
                             .backend_config_dict = mlirDictionaryAttrGet(mlir, 8, config)};
    rc = emit_kernel_call(ctx, &call, args, results, err);
  }
  lsimp_strbuf_free(&bytes);
  return rc;
}

/* The Mosaic GPU backend's lowering: mosaic_gpu_v2 with the module's
 * bytecode and its SHA-256 as kernel_hash. */
static int mosaic_gpu_lowering(lsim_lowering_rule_context *ctx, const MlirValue *args,
                               MlirValue *results, const lsim_pallas_call_params *p, void *data,
                               lsim_error *err) {
  (void)data;
  lsimp_strbuf bytes = LSIMP_STRBUF_INIT;
  int rc = kernel_bytecode(ctx, p, LSIM_KERNEL_MOSAIC_GPU, true, &bytes, err);
  if (!rc) {
    MlirContext mlir = mlir_of(ctx);
    uint8_t digest[32];
    lsimp_sha256(bytes.data, bytes.len, digest);
    MlirNamedAttribute config[] = {
        lsim_named(mlir, "kernel_hash", mlirStringAttrGet(mlir, (MlirStringRef){(const char *)digest, 32})),
        lsim_named(mlir, "module", bytes_attr(mlir, &bytes)),
        lsim_named(mlir, "use_custom_barrier", mlirBoolAttrGet(mlir, 0)),
        lsim_named(mlir, "uses_xla_collective_metadata", mlirBoolAttrGet(mlir, 0)),
    };
    lsim_custom_call call = {.target = "mosaic_gpu_v2",
                             .backend_config_dict = mlirDictionaryAttrGet(mlir, 4, config)};
    rc = emit_kernel_call(ctx, &call, args, results, err);
  }
  lsimp_strbuf_free(&bytes);
  return rc;
}

/* Importing a backend's pallas_call_registration module: possible when the
 * backend is installed; the first import registers its params class. */
static int import_registration(lsim_pallas *pallas, const char *which, bool *imported,
                               lsim_error *err) {
  bool installed = strcmp(which, "mosaic_tpu") == 0 ? pallas->installed.mosaic_tpu
                   : strcmp(which, "triton") == 0   ? pallas->installed.triton
                                                    : pallas->installed.mosaic_gpu;
  *imported = false;
  if (!installed)
    return LSIM_OK;
  *imported = true;
  if (strcmp(which, "mosaic_tpu") == 0 && !pallas->imported_mosaic_tpu) {
    pallas->imported_mosaic_tpu = true;
    return lsim_pallas_register_lowering_rule(pallas, &lsim_mosaic_tpu_compiler_params,
                                              (lsim_pallas_rule){mosaic_tpu_lowering, NULL}, "tpu",
                                              err);
  }
  if (strcmp(which, "triton") == 0 && !pallas->imported_triton) {
    pallas->imported_triton = true;
    return lsim_pallas_register_lowering_rule(pallas, &lsim_triton_compiler_params,
                                              (lsim_pallas_rule){triton_lowering, NULL}, "gpu",
                                              err);
  }
  if (strcmp(which, "mosaic_gpu") == 0 && !pallas->imported_mosaic_gpu) {
    pallas->imported_mosaic_gpu = true;
    return lsim_pallas_register_lowering_rule(pallas, &lsim_mosaic_gpu_compiler_params,
                                              (lsim_pallas_rule){mosaic_gpu_lowering, NULL}, "gpu",
                                              err);
  }
  return LSIM_OK;
}

/* --- _pallas_call_lowering --------------------------------------------------------- */

typedef struct pallas_rule_data {
  lsim_pallas *pallas;
  bool rocm;
} pallas_rule_data;

static int run_registered(lsim_lowering_rule_context *ctx, const lsim_pallas_rule *rule,
                          const MlirValue *args, MlirValue *results,
                          const lsim_pallas_call_params *p, lsim_error *err) {
  lsim_module_context_trace(ctx->module_context, LSIM_TRACE_DECISION, 0,
                            "get_lowering_rule(%s) -> the registered rule", p->compiler_params->name);
  return rule->fn(ctx, args, results, p, rule->data, err);
}

static int cpu_lowering(lsim_lowering_rule_context *ctx, const MlirValue *args, MlirValue *results,
                        const void *params, void *rule_data, lsim_error *err) {
  (void)ctx, (void)args, (void)results, (void)params, (void)rule_data;
  return lsimp_raise0(err, LSIM_E_PALLAS_CPU_NOT_INTERPRET);
}

static int tpu_lowering(lsim_lowering_rule_context *ctx, const MlirValue *args, MlirValue *results,
                        const void *params, void *rule_data, lsim_error *err) {
  const lsim_pallas_call_params *p = params;
  lsim_pallas *pallas = ((pallas_rule_data *)rule_data)->pallas;
  if (p->compiler_params) {
    const lsim_pallas_rule *rule = NULL;
    int rc = lsim_pallas_get_lowering_rule(pallas, p->compiler_params, "tpu", &rule, err);
    if (rc || rule)
      return rc ? rc : run_registered(ctx, rule, args, results, p, err);
  }
  bool imported;
  int rc = import_registration(pallas, "mosaic_tpu", &imported, err);
  if (rc)
    return rc;
  if (!imported)
    return lsimp_raise(err, LSIM_E_PALLAS_UNSUPPORTED_PLATFORM, "tpu");
  /* pallas_call_tpu_lowering_rule asserts that the params are Mosaic TPU's. */
  if (p->compiler_params && p->compiler_params != &lsim_mosaic_tpu_compiler_params)
    return lsimp_raise0(err, LSIM_E_PALLAS_FOREIGN_PARAMS);
  lsim_module_context_trace(ctx->module_context, LSIM_TRACE_DECISION, 0, "backend: Mosaic TPU");
  return mosaic_tpu_lowering(ctx, args, results, p, NULL, err);
}

typedef enum gpu_backend { GPU_NONE, GPU_MOSAIC, GPU_TRITON } gpu_backend;

static int gpu_lowering(lsim_lowering_rule_context *ctx, const MlirValue *args, MlirValue *results,
                        const void *params, void *rule_data, lsim_error *err) {
  const lsim_pallas_call_params *p = params;
  const pallas_rule_data *data = rule_data;
  lsim_pallas *pallas = data->pallas;
  if (p->compiler_params) {
    const lsim_pallas_rule *rule = NULL;
    int rc = lsim_pallas_get_lowering_rule(pallas, p->compiler_params, "gpu", &rule, err);
    if (rc || rule)
      return rc ? rc : run_registered(ctx, rule, args, results, p, err);
  }
  gpu_backend backend = GPU_NONE;
  bool flag = pallas->installed.use_mosaic_gpu, imported;
  int rc = import_registration(pallas, "mosaic_gpu", &imported, err);
  if (!rc && imported &&
      (p->compiler_params == &lsim_mosaic_gpu_compiler_params || (!p->compiler_params && flag))) {
    if (data->rocm)
      return lsimp_raise0(err, LSIM_E_PALLAS_MOSAIC_GPU_ROCM);
    backend = GPU_MOSAIC;
  }
  if (!rc)
    rc = import_registration(pallas, "triton", &imported, err);
  if (!rc && imported &&
      (p->compiler_params == &lsim_triton_compiler_params || (!p->compiler_params && !flag)))
    backend = GPU_TRITON;
  if (rc)
    return rc;
  if (backend == GPU_NONE)
    return lsimp_raise(err, LSIM_E_PALLAS_UNSUPPORTED_PLATFORM, "gpu");
  lsim_module_context_trace(ctx->module_context, LSIM_TRACE_DECISION, 0, "backend: %s",
                            backend == GPU_MOSAIC ? "Mosaic GPU" : "Triton");
  return backend == GPU_MOSAIC ? mosaic_gpu_lowering(ctx, args, results, p, NULL, err)
                               : triton_lowering(ctx, args, results, p, NULL, err);
}

/* interpret=True: the kernel evaluated as ordinary HLO, on any platform. */
static int interpret_lowering(lsim_lowering_rule_context *ctx, const MlirValue *args,
                              MlirValue *results, const lsim_pallas_call_params *p,
                              lsim_error *err) {
  if (strcmp(p->kernel, "copy") == 0) {
    results[0] = args[0];
    return LSIM_OK;
  }
  MlirContext mlir = mlir_of(ctx);
  MlirType type = lsim_module_context_aval_to_ir_type(ctx->module_context, &ctx->avals_out[0]);
  MlirType elt = mlirShapedTypeGetElementType(type);
  MlirAttribute one = mlirTypeIsAFloat(elt) ? mlirFloatAttrDoubleGet(mlir, elt, 1.0)
                                            : mlirIntegerAttrGet(elt, 1);
  MlirNamedAttribute value = lsim_named(mlir, "value", mlirDenseElementsAttrSplatGet(type, one));
  MlirOperation c;
  int rc = lsim_emit_op(ctx, "stablehlo.constant", NULL, 0, &type, 1, &value, 1, 0, &c, err);
  if (rc)
    return rc;
  MlirValue operands[] = {args[0], mlirOperationGetResult(c, 0)};
  return lsim_emit_elementwise(ctx, "stablehlo.add", operands, 2, &results[0], err);
}

static int pallas_call_check(const lsim_aval *avals_in, size_t num_in, const lsim_aval *avals_out,
                             size_t num_out, const void *params, void *data, lsim_error *err) {
  (void)data;
  const lsim_pallas_call_params *p = params;
  if (p->grid < 1)
    return lsim_error_set(err, LSIM_E_INVALID_ARGUMENT, "a pallas_call grid has at least one step");
  return lsim_pallas_check_kernel(p->kernel, avals_in, num_in, avals_out, num_out, err);
}

static int pallas_call_rule(lsim_lowering_rule_context *ctx, const MlirValue *args,
                            MlirValue *results, const void *params, void *rule_data,
                            lsim_error *err) {
  const lsim_pallas_call_params *p = params;
  pallas_rule_data *rules = rule_data; /* [0] non-rocm, [1] rocm */
  if (p->has_constants)
    return lsimp_raise0(err, LSIM_E_PALLAS_CONSTANTS);
  if (p->interpret) {
    lsim_module_context_trace(ctx->module_context, LSIM_TRACE_DECISION, 0,
                              "interpret=True: the kernel lowers as plain HLO");
    return interpret_lowering(ctx, args, results, p, err);
  }
  const lsim_platform_rule platform_rules[] = {
      {"cpu", {cpu_lowering, &rules[0]}},
      {"tpu", {tpu_lowering, &rules[0]}},
      {"cuda", {gpu_lowering, &rules[0]}},
      {"rocm", {gpu_lowering, &rules[1]}},
  };
  return lsim_lower_per_platform(ctx, LSIM_PRIMITIVE_PALLAS_CALL, platform_rules, 4, NULL, args,
                                 results, params, err);
}

/* --- the Pallas state -------------------------------------------------------------- */

typedef struct pallas_state {
  lsim_pallas pallas;
  pallas_rule_data rules[2];
} pallas_state;

int lsim_pallas_create(const lsim_pallas_installed *installed, lsim_pallas **out, lsim_error *err) {
  if (!installed || !out)
    return lsim_error_set(err, LSIM_E_INVALID_ARGUMENT, "lsim_pallas_create: NULL argument");
  pallas_state *s = calloc(1, sizeof *s);
  if (!s)
    return lsimp_fail_oom(err);
  s->pallas.installed = *installed;
  s->rules[0] = (pallas_rule_data){&s->pallas, false};
  s->rules[1] = (pallas_rule_data){&s->pallas, true};
  /* jax.experimental.pallas.triton imports Triton's registration eagerly:
   * whoever can name pltriton.CompilerParams has registered them. */
  bool imported;
  int rc = import_registration(&s->pallas, "triton", &imported, err);
  if (rc) {
    lsim_pallas_destroy(&s->pallas);
    return rc;
  }
  *out = &s->pallas;
  return LSIM_OK;
}

void lsim_pallas_destroy(lsim_pallas *pallas) {
  if (!pallas)
    return;
  free(pallas->rules);
  free((pallas_state *)pallas);
}

int lsim_register_pallas_rules(lsim_registry *reg, lsim_pallas *pallas, lsim_error *err) {
  if (!reg || !pallas)
    return lsim_error_set(err, LSIM_E_INVALID_ARGUMENT, "lsim_register_pallas_rules: NULL argument");
  pallas_state *s = (pallas_state *)pallas;
  int rc = lsim_register_lowering(reg, LSIM_PRIMITIVE_PALLAS_CALL,
                                  (lsim_rule){pallas_call_rule, s->rules}, NULL, true, err);
  if (!rc)
    rc = lsim_registry_set_trace_check(reg, LSIM_PRIMITIVE_PALLAS_CALL, pallas_call_check, NULL,
                                       err);
  return rc;
}
