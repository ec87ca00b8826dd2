/* lower/emit.c: one helper per op kind lowersim emits.
 * JAX counterparts: mlir.py custom_call / ir_constant, ffi.py
 * build_ffi_lowering_function, callback.py send_to_host / receive_from_host. */
#include "lowersim/emit.h"
#include "support/raise.h"

#include <mlir-c/BuiltinAttributes.h>
#include <mlir-c/BuiltinTypes.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static MlirStringRef ref(const char *s) { return mlirStringRefCreateFromCString(s); }

MlirAttribute lsim_string_attr(MlirContext ctx, const char *s) { return mlirStringAttrGet(ctx, ref(s)); }

MlirNamedAttribute lsim_named(MlirContext ctx, const char *name, MlirAttribute value) {
  return mlirNamedAttributeGet(mlirIdentifierGet(ctx, ref(name)), value);
}

static MlirContext mlir_of(const lsim_lowering_rule_context *ctx) {
  return lsim_module_context_mlir_context(ctx->module_context);
}

MlirType lsim_i32_scalar_type(MlirContext ctx) {
  return mlirRankedTensorTypeGet(0, NULL, mlirIntegerTypeGet(ctx, 32), (MlirAttribute){NULL});
}

/* stablehlo's types and attributes are opaque ones of an unregistered
 * dialect: built directly, they are what the parser makes of their text. */
MlirType lsim_token_type(MlirContext ctx) { return mlirOpaqueTypeGet(ctx, ref("stablehlo"), ref("token")); }

static MlirAttribute stablehlo_attr(MlirContext ctx, const char *body) {
  return mlirOpaqueAttrGet(ctx, ref("stablehlo"), (intptr_t)strlen(body), body, mlirNoneTypeGet(ctx));
}

int lsim_emit_op(lsim_lowering_rule_context *ctx, const char *name, const MlirValue *operands,
                 size_t num_operands, const MlirType *result_types, size_t num_results,
                 const MlirNamedAttribute *attrs, size_t num_attrs, size_t num_regions,
                 MlirOperation *out, lsim_error *err) {
  if (mlirBlockIsNull(ctx->block))
    return lsim_error_set(err, LSIM_E_INVALID_ARGUMENT, "emitting %s: the rule context has no block",
                     name);
  MlirOperationState state = mlirOperationStateGet(ref(name), ctx->location);
  mlirOperationStateAddOperands(&state, (intptr_t)num_operands, operands);
  mlirOperationStateAddResults(&state, (intptr_t)num_results, result_types);
  mlirOperationStateAddAttributes(&state, (intptr_t)num_attrs, attrs);
  MlirRegion few[4], *regions = num_regions <= 4 ? few : malloc(num_regions * sizeof *regions);
  if (!regions)
    return lsimp_fail_oom(err);
  for (size_t i = 0; i < num_regions; i++) {
    regions[i] = mlirRegionCreate();
    mlirRegionAppendOwnedBlock(regions[i], mlirBlockCreate(0, NULL, NULL));
  }
  mlirOperationStateAddOwnedRegions(&state, (intptr_t)num_regions, regions);
  if (regions != few)
    free(regions);
  MlirOperation op = mlirOperationCreate(&state);
  if (mlirOperationIsNull(op))
    return lsim_error_set(err, LSIM_E_VERIFY, "MLIR refused to create %s", name);
  mlirBlockAppendOwnedOperation(ctx->block, op);
  if (out)
    *out = op;
  return LSIM_OK;
}

static int emit_constant(lsim_lowering_rule_context *ctx, MlirAttribute value, MlirValue *out,
                         lsim_error *err) {
  MlirContext mlir = mlir_of(ctx);
  MlirNamedAttribute attr = lsim_named(mlir, "value", value);
  MlirType type = mlirAttributeGetType(value);
  MlirOperation op;
  int rc = lsim_emit_op(ctx, "stablehlo.constant", NULL, 0, &type, 1, &attr, 1, 0, &op, err);
  if (rc == LSIM_OK)
    *out = mlirOperationGetResult(op, 0);
  return rc;
}

int lsim_emit_constant_i32(lsim_lowering_rule_context *ctx, int32_t value, MlirValue *out,
                           lsim_error *err) {
  MlirType type = lsim_i32_scalar_type(mlir_of(ctx));
  return emit_constant(ctx, mlirDenseElementsAttrInt32SplatGet(type, value), out, err);
}

int lsim_emit_zeros(lsim_lowering_rule_context *ctx, const lsim_aval *aval, MlirValue *out,
                    lsim_error *err) {
  MlirType type = lsim_module_context_aval_to_ir_type(ctx->module_context, aval);
  if (mlirTypeIsNull(type))
    return lsimp_fail_oom(err);
  if (lsim_aval_size(aval) == 0) /* np.zeros of an empty shape: dense<> */
    return emit_constant(ctx, mlirDenseElementsAttrGet(type, 0, NULL), out, err);
  MlirType elt = mlirShapedTypeGetElementType(type);
  MlirAttribute zero = mlirTypeIsAFloat(elt) ? mlirFloatAttrDoubleGet(mlir_of(ctx), elt, 0.0)
                                             : mlirIntegerAttrGet(elt, 0);
  return emit_constant(ctx, mlirDenseElementsAttrSplatGet(type, zero), out, err);
}

int lsim_emit_elementwise(lsim_lowering_rule_context *ctx, const char *name,
                          const MlirValue *operands, size_t num_operands, MlirValue *out,
                          lsim_error *err) {
  MlirType type = mlirValueGetType(operands[0]);
  MlirOperation op;
  int rc = lsim_emit_op(ctx, name, operands, num_operands, &type, 1, NULL, 0, 0, &op, err);
  if (rc == LSIM_OK)
    *out = mlirOperationGetResult(op, 0);
  return rc;
}

int lsim_emit_convert(lsim_lowering_rule_context *ctx, MlirValue value, MlirType type,
                      MlirValue *out, lsim_error *err) {
  MlirOperation op;
  int rc = lsim_emit_op(ctx, "stablehlo.convert", &value, 1, &type, 1, NULL, 0, 0, &op, err);
  if (rc == LSIM_OK)
    *out = mlirOperationGetResult(op, 0);
  return rc;
}

int lsim_emit_case(lsim_lowering_rule_context *ctx, MlirValue index, const MlirType *result_types,
                   size_t num_results, size_t num_branches, MlirOperation *out, lsim_error *err) {
  return lsim_emit_op(ctx, "stablehlo.case", &index, 1, result_types, num_results, NULL, 0,
                      num_branches, out, err);
}

MlirBlock lsim_case_branch(MlirOperation case_op, size_t i) {
  return mlirRegionGetFirstBlock(mlirOperationGetRegion(case_op, (intptr_t)i));
}

int lsim_emit_return(lsim_lowering_rule_context *ctx, const MlirValue *values, size_t count,
                     lsim_error *err) {
  return lsim_emit_op(ctx, "stablehlo.return", values, count, NULL, 0, NULL, 0, 0, NULL, err);
}

int lsim_emit_create_token(lsim_lowering_rule_context *ctx, MlirValue *out, lsim_error *err) {
  MlirType token = lsim_token_type(mlir_of(ctx));
  MlirOperation op;
  int rc = lsim_emit_op(ctx, "stablehlo.create_token", NULL, 0, &token, 1, NULL, 0, 0, &op, err);
  if (rc == LSIM_OK)
    *out = mlirOperationGetResult(op, 0);
  return rc;
}

/* --- custom_call ------------------------------------------------------------ */

/* The row-major layout of a value of `type`: dense<[r-1, ..., 0]> :
 * tensor<rxindex> (rank 0 and tokens: dense<> : tensor<0xindex>). */
static MlirAttribute row_major_layout(MlirContext mlir, MlirType type) {
  intptr_t rank = mlirTypeIsARankedTensor(type) ? mlirShapedTypeGetRank(type) : 0;
  MlirType index = mlirIndexTypeGet(mlir);
  int64_t shape = rank;
  MlirType layout_type = mlirRankedTensorTypeGet(1, &shape, index, (MlirAttribute){NULL});
  MlirAttribute dims[rank ? rank : 1];
  for (intptr_t i = 0; i < rank; i++)
    dims[i] = mlirIntegerAttrGet(index, rank - 1 - i);
  return mlirDenseElementsAttrGet(layout_type, rank, dims);
}

static MlirAttribute layouts_attr(MlirContext mlir, const MlirType *types, size_t n) {
  MlirAttribute *layouts = malloc((n ? n : 1) * sizeof *layouts);
  if (!layouts)
    return (MlirAttribute){NULL};
  for (size_t i = 0; i < n; i++)
    layouts[i] = row_major_layout(mlir, types[i]);
  MlirAttribute array = mlirArrayAttrGet(mlir, (intptr_t)n, layouts);
  free(layouts);
  return array;
}

static MlirAttribute aliases_attr(MlirContext mlir, const lsim_operand_alias *aliases, size_t n,
                                  size_t num_results) {
  MlirAttribute *items = malloc((n ? n : 1) * sizeof *items);
  if (!items)
    return (MlirAttribute){NULL};
  for (size_t i = 0; i < n; i++) {
    char text[160];
    if (num_results == 1)
      snprintf(text, sizeof text,
               "output_operand_alias<output_tuple_indices = [], operand_index = %zu, "
               "operand_tuple_indices = []>",
               aliases[i].operand);
    else
      snprintf(text, sizeof text,
               "output_operand_alias<output_tuple_indices = [%zu], operand_index = %zu, "
               "operand_tuple_indices = []>",
               aliases[i].output, aliases[i].operand);
    items[i] = stablehlo_attr(mlir, text);
  }
  MlirAttribute array = mlirArrayAttrGet(mlir, (intptr_t)n, items);
  free(items);
  return array;
}

int lsim_emit_custom_call(lsim_lowering_rule_context *ctx, const lsim_custom_call *call,
                          const MlirValue *operands, size_t num_operands,
                          const MlirType *result_types, size_t num_results, MlirOperation *out,
                          lsim_error *err) {
  MlirContext mlir = mlir_of(ctx);
  bool dict = !mlirAttributeIsNull(call->backend_config_dict);
  MlirNamedAttribute attrs[10 + call->num_extra];
  size_t n = 0;
  attrs[n++] = lsim_named(mlir, "call_target_name", lsim_string_attr(mlir, call->target));
  attrs[n++] = lsim_named(mlir, "has_side_effect", mlirBoolAttrGet(mlir, call->has_side_effect));
  attrs[n++] = lsim_named(mlir, "backend_config",
                          lsim_string_attr(mlir, !dict && call->backend_config
                                                     ? call->backend_config
                                                     : ""));
  attrs[n++] = lsim_named(
      mlir, "api_version",
      mlirIntegerAttrGet(mlirIntegerTypeGet(mlir, 32), dict ? 1 : call->api_version));
  attrs[n++] = lsim_named(mlir, "called_computations", mlirArrayAttrGet(mlir, 0, NULL));
  if (dict)
    attrs[n++] = lsim_named(mlir, "mhlo.backend_config", call->backend_config_dict);
  if (call->has_aliases) {
    MlirAttribute a = aliases_attr(mlir, call->aliases, call->num_aliases, num_results);
    if (mlirAttributeIsNull(a))
      return lsimp_fail_oom(err);
    attrs[n++] = lsim_named(mlir, "output_operand_aliases", a);
  }
  if (call->layouts) {
    MlirType *operand_types = malloc((num_operands + 1) * sizeof *operand_types);
    for (size_t i = 0; operand_types && i < num_operands; i++)
      operand_types[i] = mlirValueGetType(operands[i]);
    MlirAttribute in = operand_types ? layouts_attr(mlir, operand_types, num_operands)
                                     : (MlirAttribute){NULL};
    MlirAttribute outl = layouts_attr(mlir, result_types, num_results);
    free(operand_types);
    if (mlirAttributeIsNull(in) || mlirAttributeIsNull(outl))
      return lsimp_fail_oom(err);
    attrs[n++] = lsim_named(mlir, "operand_layouts", in);
    attrs[n++] = lsim_named(mlir, "result_layouts", outl);
  }
  for (size_t i = 0; i < call->num_extra; i++)
    attrs[n++] = call->extra[i];
  return lsim_emit_op(ctx, "stablehlo.custom_call", operands, num_operands, result_types,
                      num_results, attrs, n, 0, out, err);
}

int lsim_emit_ffi_call(lsim_lowering_rule_context *ctx, const char *target, bool has_side_effect,
                       const lsim_ffi_param *params, size_t num_params, bool has_aliases,
                       const lsim_operand_alias *aliases, size_t num_aliases,
                       const MlirValue *operands, size_t num_operands, bool token_result,
                       MlirOperation *out, lsim_error *err) {
  MlirContext mlir = mlir_of(ctx);
  size_t num_results = ctx->num_avals_out + (token_result ? 1 : 0);
  MlirType *types = malloc((num_results + 1) * sizeof *types);
  MlirNamedAttribute *entries = malloc((num_params + 1) * sizeof *entries);
  int rc = types && entries ? LSIM_OK : lsimp_fail_oom(err);
  size_t r = 0;
  if (!rc && token_result)
    types[r++] = lsim_token_type(mlir);
  for (size_t i = 0; !rc && i < ctx->num_avals_out; i++) {
    types[r] = lsim_module_context_aval_to_ir_type(ctx->module_context, &ctx->avals_out[i]);
    if (mlirTypeIsNull(types[r++]))
      rc = lsimp_fail_oom(err);
  }
  for (size_t i = 0; !rc && i < num_params; i++)
    entries[i] = lsim_named(mlir, params[i].name, params[i].value);
  if (rc) {
    free(types);
    free(entries);
    return rc;
  }
  lsim_custom_call call = {
      .target = target,
      .has_side_effect = has_side_effect,
      .backend_config_dict = mlirDictionaryAttrGet(mlir, (intptr_t)num_params, entries),
      .layouts = true,
      .has_aliases = has_aliases,
      .aliases = aliases,
      .num_aliases = num_aliases,
  };
  rc = lsim_emit_custom_call(ctx, &call, operands, num_operands, types, num_results, out, err);
  free(types);
  free(entries);
  return rc;
}

/* --- host transfers -------------------------------------------------------- */

/* xla_bridge / mlir.py: SEND_TO_HOST_TYPE and RECV_FROM_HOST_TYPE. */
enum { SEND_TO_HOST_TYPE = 2, RECV_FROM_HOST_TYPE = 3 };

static int host_transfer(lsim_lowering_rule_context *ctx, const char *name,
                         const MlirValue *operands, size_t num_operands, const MlirType *types,
                         size_t num_types, int64_t channel, int type, MlirOperation *out,
                         lsim_error *err) {
  MlirContext mlir = mlir_of(ctx);
  char handle[96], rendezvous[24];
  snprintf(handle, sizeof handle, "channel_handle<handle = %lld, type = %d>", (long long)channel,
           type);
  snprintf(rendezvous, sizeof rendezvous, "%lld", (long long)channel);
  MlirNamedAttribute frontend[] = {
      lsim_named(mlir, "_xla_host_transfer_handler_name",
                 lsim_string_attr(mlir, "pjrt_rendezvous")),
      lsim_named(mlir, "_xla_host_transfer_rendezvous", lsim_string_attr(mlir, rendezvous)),
  };
  MlirNamedAttribute attrs[] = {
      lsim_named(mlir, "channel_handle", stablehlo_attr(mlir, handle)),
      lsim_named(mlir, "is_host_transfer", mlirBoolAttrGet(mlir, 1)),
      lsim_named(mlir, "mhlo.frontend_attributes", mlirDictionaryAttrGet(mlir, 2, frontend)),
  };
  return lsim_emit_op(ctx, name, operands, num_operands, types, num_types, attrs, 3, 0, out, err);
}

int lsim_emit_send_to_host(lsim_lowering_rule_context *ctx, MlirValue token, MlirValue operand,
                           int64_t channel, MlirValue *token_out, lsim_error *err) {
  MlirValue operands[] = {operand, token};
  MlirType type = lsim_token_type(mlir_of(ctx));
  MlirOperation op;
  int rc = host_transfer(ctx, "stablehlo.send", operands, 2, &type, 1, channel,
                         SEND_TO_HOST_TYPE, &op, err);
  if (rc == LSIM_OK)
    *token_out = mlirOperationGetResult(op, 0);
  return rc;
}

int lsim_emit_recv_from_host(lsim_lowering_rule_context *ctx, MlirValue token, MlirType type,
                             int64_t channel, MlirValue *value_out, MlirValue *token_out,
                             lsim_error *err) {
  MlirType types[] = {type, lsim_token_type(mlir_of(ctx))};
  MlirOperation op;
  int rc = host_transfer(ctx, "stablehlo.recv", &token, 1, types, 2, channel,
                         RECV_FROM_HOST_TYPE, &op, err);
  if (rc == LSIM_OK) {
    *value_out = mlirOperationGetResult(op, 0);
    *token_out = mlirOperationGetResult(op, 1);
  }
  return rc;
}
