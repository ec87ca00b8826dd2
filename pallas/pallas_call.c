/* pallas/pallas_call.c: pallas_call's lowering.
 * JAX counterparts: pallas/pallas_call.py _pallas_call_lowering (interpret
 * mode, cpu_lowering, tpu_lowering, gpu_lowering in its two shapes: the
 * backend chosen by params and jax_pallas_use_mosaic_gpu until 0.11.1,
 * Triton's registry alone from 0.11.2; _unsupported_lowering_error) and
 * the lazy imports of the backends' pallas_call_registration modules, each
 * registering its CompilerParams class on first import. */
#include "lowersim/pallas_call.h"
#include "backend.h"
#include "interpret.h"
#include "kernels.h"
#include "lowersim/emit.h"
#include "lowersim/lower_per_platform.h"
#include "lowersim/mosaic_gpu.h"
#include "lowersim/mosaic_tpu.h"
#include "lowersim/triton.h"
#include "support/raise.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What each backend's pallas_call_registration module registers on import. */
static const struct {
  const lsim_pallas_params_class *cls;
  lsim_pallas_rule_fn rule;
  const char *platform;
  const char *name;
} backends[LSIM_PALLAS_BACKEND_COUNT] = {
    [LSIM_PALLAS_MOSAIC_TPU] = {&lsim_mosaic_tpu_compiler_params,
                                lsim_mosaic_tpu_pallas_call_lowering, "tpu", "Mosaic TPU"},
    [LSIM_PALLAS_TRITON] = {&lsim_triton_compiler_params, lsim_triton_pallas_call_lowering, "gpu",
                            "Triton"},
    [LSIM_PALLAS_MOSAIC_GPU] = {&lsim_mosaic_gpu_compiler_params,
                                lsim_mosaic_gpu_pallas_call_lowering, "gpu", "Mosaic GPU"},
};

/* `from jax._src.pallas.<backend> import pallas_call_registration`: false
 * (in *imported) when the backend is not installed; the first import
 * registers its params class (the rule's data is the process's Pallas
 * state). */
static int import_registration(lsim_pallas *pallas, lsim_pallas_backend b, bool *imported,
                               lsim_error *err) {
  bool first;
  *imported = lsim_pallas_import(pallas, b, &first);
  if (!first)
    return LSIM_OK;
  return lsim_pallas_register_lowering_rule(pallas, backends[b].cls,
                                            (lsim_pallas_rule){backends[b].rule, pallas},
                                            backends[b].platform, err);
}

/* --- the platform lowerings ---------------------------------------------------- */

typedef struct pallas_rule_data {
  lsim_pallas *pallas;
  bool rocm; /* gpu_lowering's is_rocm */
} pallas_rule_data;

/* The rule registered for `cls` (the call's params' class, or the one
 * gpu_lowering gives a call without params). */
static int run_registered(lsim_lowering_rule_context *ctx, const lsim_pallas_rule *rule,
                          const lsim_pallas_params_class *cls, const MlirValue *args,
                          MlirValue *results, const lsim_pallas_call_params *p,
                          lsim_error *err) {
  const char *backend = NULL;
  for (int b = 0; b < LSIM_PALLAS_BACKEND_COUNT && !backend; b++)
    if (backends[b].rule == rule->fn)
      backend = backends[b].name;
  if (backend)
    lsim_module_context_explain(ctx->module_context, LSIM_EXPLAIN_DECISION, 0,
                                "get_lowering_rule(%s) -> the registered rule -> backend: %s "
                                "(registered when its pallas_call_registration was imported)",
                                cls->name, backend);
  else
    lsim_module_context_explain(ctx->module_context, LSIM_EXPLAIN_DECISION, 0,
                                "get_lowering_rule(%s) -> the registered rule", cls->name);
  return rule->fn(ctx, args, results, p, rule->data, err);
}

/* The backend's lowering, once chosen. */
static int run_backend(lsim_lowering_rule_context *ctx, const char *rule, lsim_pallas *pallas,
                       lsim_pallas_backend b, const MlirValue *args, MlirValue *results,
                       const lsim_pallas_call_params *p, lsim_error *err) {
  lsim_module_context_explain(ctx->module_context, LSIM_EXPLAIN_DECISION, 0, "%s -> backend: %s",
                              rule, backends[b].name);
  return backends[b].rule(ctx, args, results, p, pallas, err);
}

/* No installed backend lowers the call for `platform`: the rule says
 * which registration it needed, then raises. */
static int not_installed(lsim_lowering_rule_context *ctx, const char *rule, const char *needed,
                         const char *platform, lsim_error *err) {
  lsim_module_context_explain(ctx->module_context, LSIM_EXPLAIN_DETAIL, 0,
                              "%s: %s pallas_call_registration is not installed (the "
                              "scenario's Pallas backends): nothing lowers pallas_call for %s",
                              rule, needed, platform);
  return lsimp_raise(err, LSIM_E_PALLAS_UNSUPPORTED_PLATFORM, platform);
}

/* gpu_lowering chose no backend: what it had to choose from. */
static int no_gpu_backend(lsim_lowering_rule_context *ctx, lsim_pallas *pallas,
                          const lsim_pallas_call_params *p, lsim_error *err) {
  bool flag = lsim_module_context_profile(ctx->module_context)->pallas_use_mosaic_gpu_option &&
              lsim_pallas_use_mosaic_gpu(pallas);
  lsim_module_context_explain(
      ctx->module_context, LSIM_EXPLAIN_DETAIL, 0,
      "gpu_lowering: no backend is chosen: Mosaic GPU %s, Triton %s; compiler_params=%s, "
      "the Mosaic GPU flag %s",
      lsim_pallas_imported(pallas, LSIM_PALLAS_MOSAIC_GPU) ? "installed" : "not installed",
      lsim_pallas_imported(pallas, LSIM_PALLAS_TRITON) ? "installed" : "not installed",
      p->compiler_params ? p->compiler_params->name : "None", flag ? "on" : "off");
  return lsimp_raise(err, LSIM_E_PALLAS_UNSUPPORTED_PLATFORM, "gpu");
}

#define MOSAIC_GPU_DEPRECATED                                                                      \
  "Using ``pl.pallas_call`` for Mosaic GPU kernels is deprecated. Support for that will be "      \
  "removed in a future JAX version. Please migrate to ``plgpu.kernel``."

static int cpu_lowering(lsim_lowering_rule_context *ctx, const MlirValue *args, MlirValue *results,
                        const void *params, void *data, lsim_error *err) {
  (void)args, (void)results, (void)params, (void)data;
  lsim_module_context_explain(ctx->module_context, LSIM_EXPLAIN_DETAIL, 0,
                              "cpu_lowering: interpret=False, and no Pallas backend lowers "
                              "kernels for cpu (only the interpreter does)");
  return lsimp_raise0(err, LSIM_E_PALLAS_CPU_NOT_INTERPRET);
}

static int tpu_lowering(lsim_lowering_rule_context *ctx, const MlirValue *args, MlirValue *results,
                        const void *params, void *data, lsim_error *err) {
  const lsim_pallas_call_params *p = params;
  lsim_pallas *pallas = ((pallas_rule_data *)data)->pallas;
  if (p->compiler_params) {
    const lsim_pallas_rule *rule = NULL;
    int rc = lsim_pallas_get_lowering_rule(pallas, p->compiler_params, "tpu", &rule, err);
    if (rc || rule)
      return rc ? rc : run_registered(ctx, rule, p->compiler_params, args, results, p, err);
  }
  bool imported;
  int rc = import_registration(pallas, LSIM_PALLAS_MOSAIC_TPU, &imported, err);
  if (rc)
    return rc;
  if (!imported)
    return not_installed(ctx, "tpu_lowering", "Mosaic TPU's", "tpu", err);
  /* pallas_call_tpu_lowering_rule asserts that the params are Mosaic TPU's. */
  if (p->compiler_params && p->compiler_params != &lsim_mosaic_tpu_compiler_params)
    return lsimp_raise0(err, LSIM_E_PALLAS_FOREIGN_PARAMS);
  return run_backend(ctx, "tpu_lowering", pallas, LSIM_PALLAS_MOSAIC_TPU, args, results, p, err);
}

/* gpu_lowering's choice without registered params (until JAX 0.11.1):
 * Mosaic GPU when installed and asked for (its params, or none and the
 * flag), Triton when installed and asked for (its params, or none and no
 * flag); the count when neither. */
static int choose_gpu_backend(lsim_lowering_rule_context *ctx, lsim_pallas *pallas,
                              const lsim_pallas_call_params *p, bool rocm,
                              lsim_pallas_backend *out, lsim_error *err) {
  const lsim_jax_profile *profile = lsim_module_context_profile(ctx->module_context);
  bool flag = profile->pallas_use_mosaic_gpu_option && lsim_pallas_use_mosaic_gpu(pallas);
  bool imported;
  *out = LSIM_PALLAS_BACKEND_COUNT;
  int rc = import_registration(pallas, LSIM_PALLAS_MOSAIC_GPU, &imported, err);
  if (!rc && imported &&
      (p->compiler_params == &lsim_mosaic_gpu_compiler_params || (!p->compiler_params && flag))) {
    if (rocm) {
      lsim_module_context_explain(ctx->module_context, LSIM_EXPLAIN_DETAIL, 0,
                                  "gpu_lowering: Mosaic GPU is chosen (%s) for rocm, which it "
                                  "does not support",
                                  p->compiler_params ? "its params" : "the flag");
      return lsimp_raise0(err, LSIM_E_PALLAS_MOSAIC_GPU_ROCM);
    }
    *out = LSIM_PALLAS_MOSAIC_GPU;
    rc = lsimp_warn_deprecated(ctx, MOSAIC_GPU_DEPRECATED, err);
  }
  if (!rc)
    rc = import_registration(pallas, LSIM_PALLAS_TRITON, &imported, err);
  if (!rc && imported &&
      (p->compiler_params == &lsim_triton_compiler_params || (!p->compiler_params && !flag))) {
    *out = LSIM_PALLAS_TRITON;
    /* Until Triton's own lowering warns (on every lowering) instead. */
    if (profile->pallas_triton_deprecated && !profile->pallas_triton_deprecated_in_lowering)
      rc = lsimp_warn_deprecated(ctx, LSIMP_TRITON_DEPRECATED, err);
  }
  return rc;
}

/* gpu_lowering from JAX 0.11.2 (pallas_gpu_lowering_triton_only): Triton's
 * registration must import (it registers Triton's params on the first
 * import), a call without params gets pltriton.CompilerParams(), and the
 * rule registered for the params' class lowers it: `assert rule is not
 * None` for a class without one (plgpu.CompilerParams: Mosaic GPU's
 * registration registers no pallas_call rule any more).  ROCm is Triton's
 * business alone. */
static int gpu_lowering_triton_only(lsim_lowering_rule_context *ctx, lsim_pallas *pallas,
                                    const MlirValue *args, MlirValue *results,
                                    const lsim_pallas_call_params *p, lsim_error *err) {
  bool imported;
  int rc = import_registration(pallas, LSIM_PALLAS_TRITON, &imported, err);
  if (rc)
    return rc;
  if (!imported)
    return not_installed(ctx, "gpu_lowering", "Triton's", "gpu", err);
  const lsim_pallas_params_class *cls =
      p->compiler_params ? p->compiler_params : &lsim_triton_compiler_params;
  const lsim_pallas_rule *rule = NULL;
  rc = lsim_pallas_get_lowering_rule(pallas, cls, "gpu", &rule, err);
  if (rc)
    return rc;
  if (!rule) {
    lsim_module_context_explain(ctx->module_context, LSIM_EXPLAIN_DECISION, 0,
                                "get_lowering_rule(%s) -> None: assert rule is not None",
                                cls->name);
    return lsimp_raise0(err, LSIM_E_PALLAS_GPU_NO_RULE);
  }
  return run_registered(ctx, rule, cls, args, results, p, err);
}

static int gpu_lowering(lsim_lowering_rule_context *ctx, const MlirValue *args, MlirValue *results,
                        const void *params, void *data, lsim_error *err) {
  const lsim_pallas_call_params *p = params;
  const pallas_rule_data *d = data;
  if (lsim_module_context_profile(ctx->module_context)->pallas_gpu_lowering_triton_only)
    return gpu_lowering_triton_only(ctx, d->pallas, args, results, p, err);
  if (p->compiler_params) {
    const lsim_pallas_rule *rule = NULL;
    int rc = lsim_pallas_get_lowering_rule(d->pallas, p->compiler_params, "gpu", &rule, err);
    if (rc || rule)
      return rc ? rc : run_registered(ctx, rule, p->compiler_params, args, results, p, err);
  }
  lsim_pallas_backend b;
  int rc = choose_gpu_backend(ctx, d->pallas, p, d->rocm, &b, err);
  if (rc)
    return rc;
  if (b == LSIM_PALLAS_BACKEND_COUNT)
    return no_gpu_backend(ctx, d->pallas, p, err);
  return run_backend(ctx, "gpu_lowering", d->pallas, b, args, results, p, err);
}

/* --- pallas_call_p ------------------------------------------------------------- */

/* Tracing the index maps (pallas/core.py BlockSpec.to_block_mapping, before
 * the kernel): gather_rows's input map `lambda i, idx_ref: (idx_ref[i], 0)`
 * (the library's index maps are compiled from their own text as
 * kernels.py, as the kernels are) indexes the scalar-prefetch ref with the
 * int32 grid index, which a rank-0 ref refuses, and must return int32 or
 * int64 scalars: idx_ref[i] has the ref's aval without its first
 * dimension.  The call's operands count the prefetched ones: the input
 * block is args[1]. */
static int check_index_maps(const lsim_pallas_call_params *p, const lsim_aval *avals_in,
                            size_t num_in, lsim_error *err) {
  if (!lsimp_kernel_num_scalar_prefetch(p->kernel) || num_in < 2)
    return LSIM_OK;
  const lsim_aval *idx = &avals_in[0];
  if (idx->rank == 0)
    return lsimp_raise(err, LSIM_E_PALLAS_INDICES_TOO_LONG, "(JitTracer(int32[]),)", "()");
  if (idx->rank == 1 && (idx->dtype == LSIM_DTYPE_I32 || idx->dtype == LSIM_DTYPE_I64))
    return LSIM_OK;
  lsim_aval element = *idx; /* idx_ref[i] */
  element.rank--;
  memmove(element.dims, element.dims + 1, (size_t)element.rank * sizeof element.dims[0]);
  char text[LSIM_AVAL_TEXT_MAX];
  return lsimp_raise(err, LSIM_E_PALLAS_INDEX_MAP_NOT_INTEGER, "<lambda>", LSIMP_KERNEL_SOURCE,
                     "args[1]", "0", lsim_aval_str(&element, text, sizeof text));
}

/* Tracing the kernel (pallas_call.py _trace_kernel_to_jaxpr): a kernel that
 * captures an array fails here, before any lowering.  The constant a
 * library kernel captures is an array like its operand. */
static int pallas_call_check(const lsim_aval *avals_in, size_t num_in, const lsim_aval *avals_out,
                             size_t num_out, const void *params, const lsim_jax_profile *jax,
                             lsim_error *err) {
  (void)jax;
  const lsim_pallas_call_params *p = params;
  if (p->grid < 1)
    return lsim_error_set(err, LSIM_E_INVALID_ARGUMENT, "a pallas_call grid has at least one step");
  int rc = lsimp_pallas_check_kernel(p->kernel, avals_in, num_in, avals_out, num_out, p->block,
                                     p->grid, err);
  if (!rc)
    rc = check_index_maps(p, avals_in, num_in, err);
  if (rc)
    return rc;
  size_t blocked = lsimp_kernel_num_scalar_prefetch(p->kernel); /* the first blocked operand */
  if (p->has_constants) {
    char aval[LSIM_AVAL_TEXT_MAX];
    char *name = lsimp_kernel_func_name(p);
    rc = name ? lsimp_raise(err, LSIM_E_PALLAS_CAPTURED_CONSTANTS, name, LSIMP_KERNEL_SOURCE,
                            lsim_aval_format(&avals_in[blocked], aval, sizeof aval))
              : lsimp_fail_oom(err);
    free(name);
    return rc;
  }
  /* input_output_aliases, after the kernel is traced: each index in range,
   * then the two avals equal (keystr of each one's path: the call's
   * positional argument, the output's place in out_shape, none for one). */
  for (size_t i = 0; i < p->num_aliases; i++) {
    char in[24], out[24], count[24];
    snprintf(in, sizeof in, "%lld", (long long)p->aliases[i].input);
    snprintf(out, sizeof out, "%lld", (long long)p->aliases[i].output);
    if (p->aliases[i].input < 0 || (uint64_t)p->aliases[i].input >= num_in) {
      snprintf(count, sizeof count, "%zu", num_in);
      return lsimp_raise(err, LSIM_E_PALLAS_ALIAS_INPUT_RANGE, in, out, count);
    }
    if (p->aliases[i].output < 0 || (uint64_t)p->aliases[i].output >= num_out) {
      snprintf(count, sizeof count, "%zu", num_out);
      return lsimp_raise(err, LSIM_E_PALLAS_ALIAS_OUTPUT_RANGE, in, out, count);
    }
    const lsim_aval *a = &avals_in[p->aliases[i].input], *b = &avals_out[p->aliases[i].output];
    if (!lsim_aval_same_array(a, b)) {
      char in_path[32], out_path[32], a_text[LSIM_AVAL_TEXT_MAX], b_text[LSIM_AVAL_TEXT_MAX];
      snprintf(in_path, sizeof in_path, "[%s]", in);
      out_path[0] = '\0'; /* one output: the path of the result itself */
      if (num_out != 1)
        snprintf(out_path, sizeof out_path, "[%s]", out);
      return lsimp_raise(err, LSIM_E_PALLAS_ALIAS_AVAL_MISMATCH, in, out, in_path,
                         lsim_aval_str(a, a_text, sizeof a_text), out_path,
                         lsim_aval_str(b, b_text, sizeof b_text));
    }
  }
  return LSIM_OK;
}

/* `kernel=add_one grid=4 interpret=False compiler_params=None`. */
static int explain_params(const void *params, char *buf, size_t size) {
  const lsim_pallas_call_params *p = params;
  /* A blocked kernel's grid is its block's (narrated by the lowering). */
  char grid[32] = "";
  if (!p->block[0])
    snprintf(grid, sizeof grid, " grid=%lld", (long long)p->grid);
  int n = snprintf(buf, size, "kernel=%s%s interpret=%s compiler_params=%s%s", p->kernel, grid,
                   p->interpret ? "True" : "False",
                   p->compiler_params ? p->compiler_params->name : "None",
                   p->has_constants ? " constants=True" : "");
  size_t at = n > 0 ? (size_t)n : 0;
  if (p->name && at < size)
    at += (size_t)snprintf(buf + at, size - at, " name=%s", p->name);
  if (p->block[0] && at < size)
    at += (size_t)snprintf(buf + at, size - at, " block=(%lld, %lld)", (long long)p->block[0],
                           (long long)p->block[1]);
  if (lsimp_kernel_num_scalar_prefetch(p->kernel) && at < size)
    at += (size_t)snprintf(buf + at, size - at, " num_scalar_prefetch=%zu",
                           lsimp_kernel_num_scalar_prefetch(p->kernel));
  if ((p->num_warps || p->num_stages) && at < size)
    at += (size_t)snprintf(buf + at, size - at, " num_warps=%lld num_stages=%lld",
                           (long long)p->num_warps, (long long)p->num_stages);
  for (size_t i = 0; i < p->num_aliases && at < size; i++)
    at += (size_t)snprintf(buf + at, size - at, "%s%lld:%lld%s",
                           i ? ", " : " input_output_aliases={", (long long)p->aliases[i].input,
                           (long long)p->aliases[i].output, i + 1 == p->num_aliases ? "}" : "");
  if (p->cost_estimate && at < size)
    at += (size_t)snprintf(buf + at, size - at, " cost_estimate=CostEstimate(flops=%lld, "
                           "transcendentals=%lld, bytes_accessed=%lld)",
                           (long long)p->cost_estimate->flops,
                           (long long)p->cost_estimate->transcendentals,
                           (long long)p->cost_estimate->bytes_accessed);
  if (p->has_metadata && at < size)
    at += (size_t)snprintf(buf + at, size - at, " metadata=(%zu entries)", p->num_metadata);
  return (int)at;
}

/* _pallas_call_abstract_eval: an aliased output is its input's aval. */
static long aliased_input(const void *params, size_t result) {
  const lsim_pallas_call_params *p = params;
  for (size_t i = 0; i < p->num_aliases; i++)
    if (p->aliases[i].output >= 0 && (size_t)p->aliases[i].output == result)
      return (long)p->aliases[i].input;
  return -1;
}

/* pallas_call.py _pallas_call_dce_rule: the call is kept whatever is used
 * until 0.12.0; then an unused call is dropped unless it writes a live ref
 * or has effects (never, for the library's kernels under jit) or
 * _has_side_effects(compiler_params): getattr(params, 'has_side_effects',
 * False), a bool or Mosaic TPU's SideEffectType, SIDE_EFFECTING alone
 * keeping it (Triton's and Mosaic GPU's params have no such field). */
static bool kept_when_unused(const void *params, const lsim_jax_profile *jax) {
  const lsim_pallas_call_params *p = params;
  if (!jax->pallas_call_dce_unused)
    return true;
  return p->compiler_params == &lsim_mosaic_tpu_compiler_params && p->mosaic_tpu &&
         p->mosaic_tpu->has_side_effects == LSIM_TPU_SIDE_EFFECTING;
}

const lsim_primitive lsim_pallas_call_p = {.name = "pallas_call",
                                           .trace_check = pallas_call_check,
                                           .explain_params = explain_params,
                                           .kept_when_unused = kept_when_unused,
                                           .result_aval_operand = aliased_input};

/* A blocked kernel's grid comes from its block (the equation's line shows
 * no grid=): `grid: (3, 3), the f32[24,384] in (8, 128) blocks`. */
static void narrate_grid(lsim_lowering_rule_context *ctx, const lsim_pallas_call_params *p) {
  if (!p->block[0] || !lsim_module_context_explaining(ctx->module_context))
    return;
  int64_t steps[2];
  int rank = lsimp_kernel_grid(p->kernel, ctx->avals_in, ctx->avals_out, p->block, p->grid, steps);
  char grid[48], array[LSIM_AVAL_TEXT_MAX];
  if (rank == 2)
    snprintf(grid, sizeof grid, "(%lld, %lld)", (long long)steps[0], (long long)steps[1]);
  else
    snprintf(grid, sizeof grid, "(%lld,)", (long long)steps[0]);
  bool over_output = lsimp_kernel_num_scalar_prefetch(p->kernel) > 0;
  const lsim_aval *a = over_output ? &ctx->avals_out[0] : &ctx->avals_in[0];
  lsim_module_context_explain(ctx->module_context, LSIM_EXPLAIN_DECISION, 0,
                              "grid: %s, the %s%s in (%lld, %lld) blocks", grid,
                              over_output ? "output " : "",
                              lsim_aval_format(a, array, sizeof array), (long long)p->block[0],
                              (long long)p->block[1]);
}

static int pallas_call_lowering(lsim_lowering_rule_context *ctx, const MlirValue *args,
                                MlirValue *results, const void *params, void *pallas,
                                lsim_error *err) {
  const lsim_pallas_call_params *p = params;
  narrate_grid(ctx, p);
  if (p->interpret) {
    lsim_module_context_explain(ctx->module_context, LSIM_EXPLAIN_DECISION, 0,
                                "interpret=True: Pallas's HLO interpreter, a loop over the grid");
    return lsimp_interpret_lowering(ctx, args, results, p, err);
  }
  pallas_rule_data not_rocm = {pallas, false}, rocm = {pallas, true};
  const lsim_platform_rule platform_rules[] = {
      {"cpu", {cpu_lowering, &not_rocm}},
      {"tpu", {tpu_lowering, &not_rocm}},
      {"cuda", {gpu_lowering, &not_rocm}},
      {"rocm", {gpu_lowering, &rocm}},
  };
  lsim_module_context_explain(ctx->module_context, LSIM_EXPLAIN_DETAIL, 0,
                              "pallas_call's rule: its own lower_per_platform over the rules "
                              "{cpu: cpu_lowering, tpu: tpu_lowering, cuda: gpu_lowering, "
                              "rocm: gpu_lowering}");
  return lsim_lower_per_platform(ctx, lsim_pallas_call_p.name, platform_rules, 4, NULL, args,
                                 results, params, err);
}

int lsim_register_pallas_call_rules(lsim_registry *reg, lsim_pallas *pallas, lsim_error *err) {
  if (!reg || !pallas)
    return lsim_error_set(err, LSIM_E_INVALID_ARGUMENT,
                          "lsim_register_pallas_call_rules: NULL argument");
  bool imported;
  int rc = LSIM_OK;
  if (lsim_registry_profile(reg)->pallas_triton_registered_on_import)
    rc = import_registration(pallas, LSIM_PALLAS_TRITON, &imported, err);
  return rc ? rc
            : lsim_register_lowering(reg, &lsim_pallas_call_p,
                                     (lsim_rule){pallas_call_lowering, pallas}, NULL, err);
}
