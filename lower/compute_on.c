/* lower/compute_on.c: compute_on's function form.  JAX counterpart:
 * compute_on.py _compute_on_abstract_eval (the function traced inside the
 * compute type, _check_valid first), _compute_on_lowering
 * (mlir.lower_called_computation("compute_on", ...), func.CallOp with
 * mhlo.frontend_attributes, mlir.wrap_with_memory_kind per result). */
#include "lowersim/compute_on.h"
#include "lowering_cache.h"
#include "lowersim/emit.h"
#include "lowersim/lower_per_platform.h"
#include "support/alloc.h"
#include "support/raise.h"
#include "support/strbuf.h"

#include <mlir-c/BuiltinAttributes.h>

#include <stdio.h>
#include <string.h>

/* compute_on(f, compute_type=...)(*args): _check_valid, then the function
 * is traced (its equations' own trace-time checks). */
static int compute_on_check(const lsim_aval *avals_in, size_t num_in, const lsim_aval *avals_out,
                            size_t num_out, const void *params, const lsim_jax_profile *jax,
                            lsim_error *err) {
  (void)avals_in, (void)num_in, (void)avals_out, (void)num_out;
  const lsim_compute_on_params *p = params;
  const char *t = p->compute_type;
  if (!lsim_map_compute_type(t) && strncmp(t, "gpu_stream:", 11) != 0)
    return lsimp_raise(err, LSIM_E_INVALID_COMPUTE_TYPE, t);
  return lsim_program_trace_for(p->jaxpr, jax, err);
}

/* `compute_type=device_host jaxpr=sin`. */
static int explain_params(const void *params, char *buf, size_t size) {
  const lsim_compute_on_params *p = params;
  return snprintf(buf, size, "compute_type=%s jaxpr=%s", p->compute_type,
                  p->jaxpr->function_name ? p->jaxpr->function_name : "f");
}

/* compute_on[compiler_options_json=None compute_type=device_host
 * jaxpr={ lambda ; ... } out_memory_spaces=(MemorySpace.Host,)]. */
static void jaxpr_params(const lsim_eqn *eqn, const lsim_jax_profile *jax, lsim_jaxpr_printer *jp) {
  (void)jax;
  const lsim_compute_on_params *p = eqn->params;
  lsimp_strbuf spaces = LSIMP_STRBUF_INIT;
  lsimp_strbuf_putc(&spaces, '(');
  for (size_t i = 0; i < eqn->num_results; i++)
    lsimp_strbuf_printf(&spaces, "%sMemorySpace.%s", i ? ", " : "",
                        p->out_memory_space == LSIM_MEMORY_HOST ? "Host" : "Device");
  lsimp_strbuf_puts(&spaces, eqn->num_results == 1 ? ",)" : ")");
  if (lsimp_strbuf_failed(&spaces))
    lsim_jaxpr_fail(jp);
  lsim_jaxpr_param(jp, "compiler_options_json", "None");
  lsim_jaxpr_param(jp, "compute_type", "%s", p->compute_type);
  lsim_jaxpr_param_jaxpr(jp, "jaxpr", p->jaxpr);
  lsim_jaxpr_param(jp, "out_memory_spaces", "%s", lsimp_strbuf_cstr(&spaces));
  lsimp_strbuf_free(&spaces);
}

const lsim_primitive lsim_compute_on_p = {.name = "compute_on",
                                          .trace_check = compute_on_check,
                                          .explain_params = explain_params,
                                          .jaxpr_params = jaxpr_params};

/* The call's frontend attributes: the compute type (a GPU stream's
 * annotation, with inlineable = "false"), and for `device` (and from 0.12.0
 * `tpu_sparsecore`) the release's attribute (inlineable = "false", then
 * backend_config = "{}"). */
static void annotate_call(MlirContext mlir, MlirOperation call, const char *compute_type,
                          const lsim_jax_profile *jax) {
  MlirNamedAttribute attrs[3];
  size_t n = lsim_compute_type_attributes(mlir, compute_type, attrs);
  const lsim_jax_strings *device = &jax->compute_on_device_attribute;
  if (lsim_jax_strings_contain(&jax->compute_on_attribute_types, compute_type) &&
      device->count == 2)
    attrs[n++] = lsim_named(mlir, device->items[0], lsim_string_attr(mlir, device->items[1]));
  mlirOperationSetAttributeByName(call,
                                  mlirStringRefCreateFromCString("mhlo.frontend_attributes"),
                                  mlirDictionaryAttrGet(mlir, (intptr_t)n, attrs));
}

static int compute_on_rule(lsim_lowering_rule_context *ctx, const MlirValue *args,
                           MlirValue *results, const void *params, void *reg, lsim_error *err) {
  const lsim_compute_on_params *p = params;
  lsim_eqn eqn = {.primitive = ctx->primitive, .params = params};
  lsim_module_context_explain_source(
      ctx->module_context, LSIM_JAX_SOURCE("jax/_src/compute_on.py", "_compute_on_lowering"));
  lsim_module_context_explain(ctx->module_context, LSIM_EXPLAIN_STEP, +1,
                              "compute_on(%s): lower_called_computation(\"compute_on\", jaxpr)",
                              p->compute_type);
  MlirOperation call;
  int rc = lsimp_lower_called_computation(ctx, &eqn, "compute_on", reg, p->jaxpr,
                                          p->compute_type, args, results, &call, err);
  lsim_module_context_explain_nest(ctx->module_context, -1);
  const lsim_jax_profile *jax = lsim_module_context_profile(ctx->module_context);
  if (!rc)
    annotate_call(ctx->ip.context, call, p->compute_type, jax);
  /* A sparse core's results in device memory are not wrapped, from 0.11.2. */
  bool wrap = jax->compute_on_sparsecore_device_wrapped ||
              strcmp(p->compute_type, "tpu_sparsecore") != 0 ||
              p->out_memory_space != LSIM_MEMORY_DEVICE;
  for (size_t i = 0; !rc && wrap && i < ctx->num_avals_out; i++)
    rc = lsim_emit_wrap_with_memory_kind(&ctx->ip, lsim_memory_kind(p->out_memory_space),
                                         &results[i], err);
  return rc;
}

int lsim_register_compute_on_rules(lsim_registry *reg, lsim_error *err) {
  return lsim_register_lowering(reg, &lsim_compute_on_p, (lsim_rule){compute_on_rule, reg}, NULL,
                                err);
}
