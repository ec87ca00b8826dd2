/* callbacks/buffer_callback.c: buffer_callback's checks and lowering.
 * JAX counterpart: buffer_callback.py buffer_callback (the checks of
 * input_output_aliases), _buffer_callback_lowering and wrapped_callback. */
#include "lowersim/alloc.h"
#include "lowersim/buffer_callback.h"
#include "lowersim/emit.h"
#include "support/raise.h"

#include <mlir-c/BuiltinAttributes.h>
#include <mlir-c/BuiltinTypes.h>

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int lsim_buffer_callback_check_aliases(const lsim_aval *args, size_t num_args,
                                       const lsim_aval *results, size_t num_results,
                                       const lsim_io_alias *aliases, size_t num_aliases,
                                       lsim_error *err) {
  return lsim_check_io_aliases(args, num_args, results, num_results, aliases, num_aliases, err);
}

static int buffer_callback_check(const lsim_aval *avals_in, size_t num_in,
                                 const lsim_aval *avals_out, size_t num_out, const void *params,
                                 const lsim_jax_profile *jax, lsim_error *err) {
  (void)jax;
  const lsim_buffer_callback_params *p = params;
  return lsim_buffer_callback_check_aliases(avals_in, num_in, avals_out, num_out, p->aliases,
                                            p->num_aliases, err);
}

/* `has_side_effect=False command_buffer_compatible=True input_output_aliases={0: 0}`. */
static int explain_params(const void *params, char *buf, size_t size) {
  const lsim_buffer_callback_params *p = params;
  int n = snprintf(buf, size, "has_side_effect=%s command_buffer_compatible=%s "
                              "input_output_aliases={",
                   p->has_side_effect ? "True" : "False",
                   p->command_buffer_compatible ? "True" : "False");
  for (size_t i = 0; i < p->num_aliases && n >= 0 && (size_t)n < size; i++)
    n += snprintf(buf + n, size - (size_t)n, "%s%" PRId64 ": %" PRId64, i ? ", " : "",
                  p->aliases[i].input, p->aliases[i].output);
  if (n >= 0 && (size_t)n < size)
    n += snprintf(buf + n, size - (size_t)n, "}");
  return n;
}

/* buffer_callback[callback=<function callback at 0x...> ...]: the params
 * in the jaxpr's order. */
static void jaxpr_params(const lsim_eqn *eqn, const lsim_jax_profile *jax,
                         lsim_jaxpr_printer *jp) {
  (void)jax;
  const lsim_buffer_callback_params *p = eqn->params;
  char *aliases = lsim_io_aliases_repr(p->aliases, p->num_aliases);
  if (!aliases) {
    lsim_jaxpr_fail(jp);
    return;
  }
  lsim_jaxpr_param(jp, "callback", "<function callback at 0xXXXXXXXXXXXX>");
  lsim_jaxpr_param(jp, "command_buffer_compatible", "%s",
                   p->command_buffer_compatible ? "True" : "False");
  lsim_jaxpr_param(jp, "has_side_effect", "%s", p->has_side_effect ? "True" : "False");
  lsim_jaxpr_param_tree(jp, "in_tree", eqn->num_operands, true);
  lsim_jaxpr_param(jp, "input_output_aliases", "%s", aliases);
  lsim_jaxpr_param_tree(jp, "out_tree", eqn->num_results, false);
  lsim_jaxpr_param_result_avals(jp, eqn);
  lsim_jaxpr_param(jp, "vmap_method", "None");
  free(aliases);
}

/* has_side_effect=True is an effect: jit keeps the call unused. */
static bool kept_when_unused(const void *params, const lsim_jax_profile *jax) {
  (void)jax;
  return ((const lsim_buffer_callback_params *)params)->has_side_effect;
}

const lsim_primitive lsim_buffer_callback_p = {.name = "buffer_callback",
                                               .trace_check = buffer_callback_check,
                                               .explain_params = explain_params,
                                               .jaxpr_params = jaxpr_params,
                                               .kept_when_unused = kept_when_unused};

/* wrapped_callback: runs the user's callback (the lowering's copy of it),
 * which must return nothing. */
static int wrapped_callback(void *user_data, lsim_host_callback_call *call) {
  const lsim_host_callback *user = user_data;
  call->returned_values = 0;
  int rc = user->fn ? user->fn(user->user_data, call) : LSIM_OK;
  if (!rc && call->returned_values)
    rc = lsimp_raise0(call->error, LSIM_E_CALLBACK_RETURNED_VALUES);
  return rc;
}

/* Adds wrapped_callback around a copy of the user's callback, which the
 * module keeps alive; `*index` is its position. */
static int add_wrapped_callback(lsim_module_context *mc, const lsim_host_callback *user,
                                uint64_t *index, lsim_error *err) {
  lsim_host_callback *copy = lsim_malloc(sizeof *copy);
  if (!copy)
    return lsimp_fail_oom(err);
  *copy = *user;
  int rc = lsim_module_context_add_keepalive(mc, copy, free, err);
  lsim_host_callback wrapped = {wrapped_callback, copy};
  return rc ? rc : lsim_module_context_add_host_callback(mc, &wrapped, lsim_buffer_callback_p.name,
                                                         index, err);
}

/* buffer_callback's FFI target for `platform`, or NULL: cpu, cuda and rocm,
 * and oneapi where the profile has it (the seed's JAX). */
static const char *buffer_callback_target(const lsim_jax_profile *jax, const char *platform) {
  if (strcmp(platform, "cpu") == 0)
    return "xla_buffer_python_cpu_callback";
  if (strcmp(platform, "cuda") == 0 || strcmp(platform, "rocm") == 0 ||
      (jax->buffer_callback_oneapi && strcmp(platform, "oneapi") == 0))
    return "xla_buffer_python_gpu_callback";
  return NULL;
}

/* ffi.ffi_lowering(target, operand_output_aliases=...)(ctx, *args, index=index). */
static int emit_call(lsim_lowering_rule_context *ctx, const char *target,
                     const lsim_buffer_callback_params *p, uint64_t index, const MlirValue *args,
                     MlirValue *results, lsim_error *err) {
  size_t m = p->num_aliases ? p->num_aliases : 1;
  lsim_io_alias *dict = lsim_malloc_array(m, sizeof *dict);
  lsim_operand_alias *aliases = lsim_malloc_array(m, sizeof *aliases);
  size_t n = 0;
  int rc = dict && aliases && lsim_io_aliases_sorted(p->aliases, p->num_aliases, dict, &n)
               ? LSIM_OK
               : lsimp_fail_oom(err);
  for (size_t i = 0; i < n; i++)
    aliases[i] = (lsim_operand_alias){(size_t)dict[i].input, (size_t)dict[i].output};
  MlirContext mlir = ctx->ip.context;
  lsim_ffi_param param = {"index",
                          mlirIntegerAttrGet(mlirIntegerTypeUnsignedGet(mlir, 64), (int64_t)index)};
  lsim_ffi_call call = {target, p->has_side_effect, &param, 1, true, aliases, n};
  if (!rc)
    rc = lsim_emit_ffi_lowering_op(ctx, &call, args, results, err);
  free(dict);
  free(aliases);
  return rc;
}

/* _buffer_callback_lowering. */
static int buffer_callback_lowering(lsim_lowering_rule_context *ctx, const MlirValue *args,
                                    MlirValue *results, const void *params, void *data,
                                    lsim_error *err) {
  (void)data;
  const lsim_buffer_callback_params *p = params;
  size_t n;
  const char *platform = lsim_module_context_platforms(ctx->module_context, &n)[0];
  if (n > 1) {
    lsim_module_context_explain(ctx->module_context, LSIM_EXPLAIN_DETAIL, 0,
                                "buffer_callback's rule: %zu lowering platforms, and it lowers "
                                "for one only",
                                n);
    return lsimp_raise0(err, LSIM_E_BUFFER_CALLBACK_MULTI_PLATFORM);
  }
  const char *base =
      buffer_callback_target(lsim_module_context_profile(ctx->module_context), platform);
  if (!base) {
    lsim_module_context_explain(ctx->module_context, LSIM_EXPLAIN_DETAIL, 0,
                                "buffer_callback's rule: the lowering platform %s has no "
                                "buffer-callback custom call target",
                                platform);
    return lsimp_raise(err, LSIM_E_BUFFER_CALLBACK_UNSUPPORTED, platform);
  }
  /* The _cmd_buffer platforms are the gpu ones with a target: cuda, rocm
   * (and oneapi where it has one). */
  char target[64];
  bool cmd = p->command_buffer_compatible && strcmp(platform, "cpu") != 0;
  snprintf(target, sizeof target, "%s%s", base, cmd ? "_cmd_buffer" : "");
  uint64_t index;
  int rc = add_wrapped_callback(ctx->module_context, &p->callback, &index, err);
  return rc ? rc : emit_call(ctx, target, p, index, args, results, err);
}

int lsim_register_buffer_callback_rules(lsim_registry *reg, lsim_error *err) {
  return lsim_register_lowering(reg, &lsim_buffer_callback_p,
                                (lsim_rule){buffer_callback_lowering, NULL}, NULL, err);
}
