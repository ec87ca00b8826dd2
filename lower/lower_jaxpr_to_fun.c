/* lower/lower_jaxpr_to_fun.c: main, built as mlir.py lower_jaxpr_to_fun
 * builds it: signature, argument and result attributes (donation, names,
 * shardings), the body through jaxpr_subcomp, the return. */
#include "lower_jaxpr_to_fun.h"
#include "lowersim/alloc.h"
#include "lowersim/emit.h"
#include "lowersim/jaxpr_subcomp.h"
#include "lowersim/sharding.h"
#include "support/raise.h"
#include "support/strbuf.h"

#include <mlir-c/BuiltinAttributes.h>
#include <mlir-c/BuiltinTypes.h>

#include <stdio.h>
#include <stdlib.h>

/* The signature of main: types and attribute dictionaries. */
typedef struct signature {
  MlirType *in, *out;
  MlirAttribute *arg_attrs, *res_attrs;
  size_t num_in, num_out;
} signature;

static void signature_free(signature *sig) {
  free(sig->in);
  free(sig->out);
  free(sig->arg_attrs);
  free(sig->res_attrs);
}

static MlirAttribute dict1(MlirContext mlir, const char *name, MlirAttribute value) {
  MlirNamedAttribute a = lsim_named(mlir, name, value);
  return mlirDictionaryAttrGet(mlir, 1, &a);
}

/* An arg's attributes: what donation made of it, and its sharding. */
static int arg_attrs(lsim_module_context *mc, const lsimp_fun *fun, size_t i, MlirAttribute *out,
                     lsim_error *err) {
  MlirContext mlir = lsim_module_context_mlir_context(mc);
  const lsimp_donation *d = fun->donation;
  MlirNamedAttribute attrs[3];
  size_t n = 0;
  /* A sharded arg's memory kind, its in sharding's: device. */
  if (fun->memory_kinds && fun->arg_mesh)
    attrs[n++] = lsim_named(mlir, "mhlo.memory_kind", lsim_string_attr(mlir, "device"));
  if (d->alias_of[i] >= 0)
    attrs[n++] = lsim_named(mlir, "tf.aliasing_output",
                            mlirIntegerAttrGet(mlirIntegerTypeGet(mlir, 32),
                                               d->alias_of[i] + (int64_t)fun->num_effects));
  else if (d->donor[i])
    attrs[n++] = lsim_named(mlir, "jax.buffer_donor", mlirBoolAttrGet(mlir, 1));
  int rc = fun->arg_mesh ? lsim_replicated_sharding(mc, fun->arg_mesh, fun->jaxpr->args[i].rank,
                                                    &attrs[n++], err)
                         : LSIM_OK;
  *out = mlirDictionaryAttrGet(mlir, (intptr_t)n, attrs);
  return rc;
}

/* jax.result_info: "result", or "result[i]" of several; the memory kind of
 * its memory space (fun->memory_kinds); the sharding. */
static int result_attrs(lsim_module_context *mc, const lsimp_fun *fun, const lsim_aval *aval,
                        size_t i, size_t num_outputs, MlirAttribute *out, lsim_error *err) {
  MlirContext mlir = lsim_module_context_mlir_context(mc);
  char info[32];
  if (num_outputs == 1)
    snprintf(info, sizeof info, "result");
  else
    snprintf(info, sizeof info, "result[%zu]", i);
  MlirNamedAttribute attrs[3] = {lsim_named(mlir, "jax.result_info", lsim_string_attr(mlir, info))};
  size_t n = 1;
  /* The out sharding's memory kind (device, jit(backend=)'s), else the
   * value's memory space's (propagated_out_mem_kinds). */
  if (fun->memory_kinds)
    attrs[n++] = lsim_named(mlir, "mhlo.memory_kind",
                            lsim_string_attr(mlir, fun->result_mesh
                                                       ? "device"
                                                       : lsim_memory_kind(aval->memory_space)));
  int rc = fun->result_mesh
               ? lsim_replicated_sharding(mc, fun->result_mesh, aval->rank, &attrs[n++], err)
               : LSIM_OK;
  *out = mlirDictionaryAttrGet(mlir, (intptr_t)n, attrs);
  return rc;
}

static int make_signature(lsim_module_context *mc, const lsimp_fun *fun, signature *sig,
                          lsim_error *err) {
  MlirContext mlir = lsim_module_context_mlir_context(mc);
  const lsim_program *jaxpr = fun->jaxpr;
  size_t num_outputs = lsim_program_num_outputs(jaxpr);
  sig->num_in = (fun->platform_index ? 1 : 0) + fun->num_effects + jaxpr->num_args;
  sig->num_out = fun->num_effects + num_outputs;
  sig->in = lsim_malloc_array(sig->num_in + 1, sizeof *sig->in);
  sig->out = lsim_malloc_array(sig->num_out + 1, sizeof *sig->out);
  sig->arg_attrs = lsim_malloc_array(sig->num_in + 1, sizeof *sig->arg_attrs);
  sig->res_attrs = lsim_malloc_array(sig->num_out + 1, sizeof *sig->res_attrs);
  if (!sig->in || !sig->out || !sig->arg_attrs || !sig->res_attrs)
    return lsimp_fail_oom(err);
  size_t a = 0, r = 0;
  if (fun->platform_index) {
    /* lower_jaxpr_to_fun's dim_var_avals: dtypes.default_int_dtype(). */
    sig->in[a] = lsim_module_context_lowering_parameters(mc)->enable_x64
                     ? mlirRankedTensorTypeGet(0, NULL, mlirIntegerTypeGet(mlir, 64),
                                               mlirAttributeGetNull())
                     : lsim_i32_scalar_type(mlir);
    sig->arg_attrs[a++] =
        dict1(mlir, "jax.global_constant", lsim_string_attr(mlir, "_platform_index"));
  }
  for (size_t t = 0; t < fun->num_effects; t++) {
    MlirAttribute yes = mlirBoolAttrGet(mlir, 1);
    sig->in[a] = sig->out[r] = lsim_token_type(mlir);
    sig->arg_attrs[a++] = sig->res_attrs[r++] = dict1(mlir, "jax.token", yes);
  }
  int rc = LSIM_OK;
  for (size_t i = 0; !rc && i < jaxpr->num_args; i++) {
    sig->in[a] = lsim_module_context_aval_to_ir_type(mc, &jaxpr->args[i]);
    rc = arg_attrs(mc, fun, i, &sig->arg_attrs[a++], err);
  }
  for (size_t i = 0; !rc && i < num_outputs; i++) {
    const lsim_aval *aval = &fun->avals[lsim_program_output(jaxpr, fun->num_values, i)];
    sig->out[r] = lsim_module_context_aval_to_ir_type(mc, aval);
    rc = result_attrs(mc, fun, aval, i, num_outputs, &sig->res_attrs[r++], err);
  }
  if (rc)
    return rc;
  for (size_t i = 0; i < sig->num_in; i++)
    if (mlirTypeIsNull(sig->in[i]))
      return lsimp_fail_oom(err);
  for (size_t i = 0; i < sig->num_out; i++)
    if (mlirTypeIsNull(sig->out[i]))
      return lsimp_fail_oom(err);
  return LSIM_OK;
}

/* The body: jaxpr_subcomp over the block's arguments, then func.return of
 * the tokens and the outputs. */
static int lower_body(lsim_module_context *mc, const lsim_registry *reg, const lsimp_fun *fun,
                      const lsim_insertion_point *ip, size_t num_out, lsim_error *err) {
  size_t b = 0;
  MlirValue platform_index = {NULL};
  if (fun->platform_index)
    platform_index = mlirBlockGetArgument(ip->block, (intptr_t)b++);
  size_t num_args = fun->jaxpr->num_args, n = fun->num_effects;
  MlirValue *args = lsim_malloc_array(num_args + 1, sizeof *args);
  MlirValue *results = lsim_malloc_array(num_out + 1, sizeof *results);
  lsim_token_set tokens = {fun->effects, results, n};
  int rc = args && results ? LSIM_OK : lsimp_fail_oom(err);
  for (size_t t = 0; !rc && t < n; t++)
    results[t] = mlirBlockGetArgument(ip->block, (intptr_t)b++);
  for (size_t i = 0; !rc && i < num_args; i++)
    args[i] = mlirBlockGetArgument(ip->block, (intptr_t)(b + i));
  lsimp_strbuf stack = LSIMP_STRBUF_INIT;
  lsimp_strbuf_puts(&stack, "jit(");
  lsimp_strbuf_puts(&stack, fun->jaxpr->function_name ? fun->jaxpr->function_name : "f");
  lsimp_strbuf_putc(&stack, ')');
  rc = rc ? rc : lsimp_strbuf_failed(&stack) ? lsimp_fail_oom(err) : LSIM_OK;
  lsim_subcomp_inputs in = {args, &tokens, fun->platform_index ? &platform_index : NULL,
                            fun->platform_index ? 1 : 0, lsimp_strbuf_cstr(&stack), NULL, NULL};
  lsim_subcomp_observer spill;
  if (!rc && fun->spill &&
      !(rc = lsimp_spill_begin(fun->spill, mc, ip->block,
                               (size_t)mlirBlockGetNumArguments(ip->block), &tokens, &spill,
                               err)))
    in.observer = &spill;
  if (!rc)
    rc = lsim_jaxpr_subcomp(mc, reg, fun->jaxpr, ip, &in, results + n, err);
  /* Outputs whose out sharding names a memory kind (jit(backend=)'s device)
   * are annotated with it, for XLA's transfer. */
  for (size_t i = n; !rc && fun->memory_kinds && fun->result_mesh && i < num_out; i++)
    rc = lsim_emit_wrap_with_memory_kind(ip, "device", &results[i], err);
  if (!rc)
    rc = lsim_emit_op(ip, "func.return", results, num_out, NULL, 0, NULL, 0, 0, NULL, err);
  if (!rc && fun->spill)
    rc = lsimp_spill_finish(fun->spill, err);
  lsimp_strbuf_free(&stack);
  free(args);
  free(results);
  return rc;
}

int lsimp_lower_jaxpr_to_fun(lsim_module_context *mc, const lsim_registry *reg,
                             const lsimp_fun *fun, lsim_error *err) {
  signature sig = {0};
  int rc = make_signature(mc, fun, &sig, err);
  lsim_insertion_point module = lsim_module_context_insertion_point(mc);
  lsim_func f = {.name = fun->name, .visibility = "public", .inputs = sig.in,
                 .num_inputs = sig.num_in, .results = sig.out, .num_results = sig.num_out,
                 .arg_attrs = sig.arg_attrs, .res_attrs = sig.res_attrs};
  MlirBlock body = {NULL};
  if (!rc)
    rc = lsim_emit_func(&module, &f, NULL, &body, err);
  lsim_insertion_point ip = lsim_insertion_point_in(&module, body);
  if (!rc)
    rc = lower_body(mc, reg, fun, &ip, sig.num_out, err);
  signature_free(&sig);
  return rc;
}
