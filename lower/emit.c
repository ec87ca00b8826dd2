/* lower/emit.c: one helper per op kind lowersim emits.
 * JAX counterparts: mlir.py custom_call / ir_constant, ffi.py
 * build_ffi_lowering_function, callback.py send_to_host / receive_from_host. */
#include "lowersim/alloc.h"
#include "lowersim/emit.h"
#include "support/emit_cache.h"
#include "support/raise.h"
#include "support/strbuf.h"

#include <mlir-c/BuiltinAttributes.h>
#include <mlir-c/BuiltinTypes.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static MlirStringRef ref(const char *s) { return mlirStringRefCreateFromCString(s); }

MlirAttribute lsim_string_attr(MlirContext mlir, const char *s) { return mlirStringAttrGet(mlir, ref(s)); }

MlirNamedAttribute lsim_named(MlirContext mlir, const char *name, MlirAttribute value) {
  return mlirNamedAttributeGet(mlirIdentifierGet(mlir, ref(name)), value);
}

MlirType lsim_i32_scalar_type(MlirContext mlir) {
  return mlirRankedTensorTypeGet(0, NULL, mlirIntegerTypeGet(mlir, 32), (MlirAttribute){NULL});
}

/* stablehlo's types and attributes are opaque ones of an unregistered
 * dialect: built directly, they are what the parser makes of their text. */
MlirType lsim_token_type(MlirContext mlir) {
  return mlirOpaqueTypeGet(mlir, ref("stablehlo"), ref("token"));
}

static MlirAttribute stablehlo_attr(MlirContext mlir, const char *body) {
  return mlirOpaqueAttrGet(mlir, ref("stablehlo"), (intptr_t)strlen(body), body,
                           mlirNoneTypeGet(mlir));
}

/* A null operand (a rule's value never made) is refused before MLIR reads
 * it: MLIR's C API dereferences it (a crash, not an error).  Every emitter
 * checks its operands before it asks any of them for its type. */
static int null_operand(const char *name, const MlirValue *operands, size_t n, lsim_error *err) {
  for (size_t i = 0; i < n; i++)
    if (mlirValueIsNull(operands[i]))
      return lsim_error_set(err, LSIM_E_INVALID_ARGUMENT, "emitting %s: operand %zu is null",
                            name, i);
  return LSIM_OK;
}

int lsim_emit_op(const lsim_insertion_point *ip, const char *name, const MlirValue *operands,
                 size_t num_operands, const MlirType *result_types, size_t num_results,
                 const MlirNamedAttribute *attrs, size_t num_attrs, size_t num_regions,
                 MlirOperation *out, lsim_error *err) {
  if (mlirBlockIsNull(ip->block))
    return lsim_error_set(err, LSIM_E_INVALID_ARGUMENT,
                          "emitting %s: the insertion point has no block", name);
  if (null_operand(name, operands, num_operands, err))
    return LSIM_E_INVALID_ARGUMENT;
  MlirOperationState state = mlirOperationStateGet(ref(name), ip->location);
  mlirOperationStateAddOperands(&state, (intptr_t)num_operands, operands);
  mlirOperationStateAddResults(&state, (intptr_t)num_results, result_types);
  mlirOperationStateAddAttributes(&state, (intptr_t)num_attrs, attrs);
  MlirRegion few[4], *regions = num_regions <= 4 ? few : lsim_malloc_array(num_regions, sizeof *regions);
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
  mlirBlockAppendOwnedOperation(ip->block, op);
  lsimp_emit_cache_made(ip->cache, op);
  if (out)
    *out = op;
  return LSIM_OK;
}

lsim_insertion_point lsim_insertion_point_in(const lsim_insertion_point *ip, MlirBlock block) {
  return (lsim_insertion_point){ip->context, block, ip->location, ip->cache};
}

int lsim_emit_func(const lsim_insertion_point *ip, const lsim_func *f, MlirOperation *op,
                   MlirBlock *body, lsim_error *err) {
  MlirContext mlir = ip->context;
  size_t n = 0, max = 5 + f->num_extra;
  MlirNamedAttribute few[12], *attrs = max <= 12 ? few : lsim_malloc_array(max, sizeof *attrs);
  MlirLocation few_locs[8], *locs = f->num_inputs <= 8 ? few_locs
                                                       : lsim_malloc_array(f->num_inputs, sizeof *locs);
  if (!attrs || !locs) {
    if (attrs != few)
      free(attrs);
    if (locs != few_locs)
      free(locs);
    return lsimp_fail_oom(err);
  }
  MlirType type = mlirFunctionTypeGet(mlir, (intptr_t)f->num_inputs, f->inputs,
                                      (intptr_t)f->num_results, f->results);
  attrs[n++] = lsim_named(mlir, "sym_name", lsim_string_attr(mlir, f->name));
  attrs[n++] = lsim_named(mlir, "function_type", mlirTypeAttrGet(type));
  if (f->visibility)
    attrs[n++] = lsim_named(mlir, "sym_visibility", lsim_string_attr(mlir, f->visibility));
  if (f->arg_attrs)
    attrs[n++] = lsim_named(mlir, "arg_attrs",
                            mlirArrayAttrGet(mlir, (intptr_t)f->num_inputs, f->arg_attrs));
  if (f->res_attrs)
    attrs[n++] = lsim_named(mlir, "res_attrs",
                            mlirArrayAttrGet(mlir, (intptr_t)f->num_results, f->res_attrs));
  for (size_t i = 0; i < f->num_extra; i++)
    attrs[n++] = f->extra[i];
  for (size_t i = 0; i < f->num_inputs; i++)
    locs[i] = f->arg_locs ? f->arg_locs[i] : ip->location;
  MlirRegion region = mlirRegionCreate();
  *body = mlirBlockCreate((intptr_t)f->num_inputs, f->inputs, locs);
  mlirRegionAppendOwnedBlock(region, *body);
  MlirOperationState state =
      mlirOperationStateGet(ref(f->op_name ? f->op_name : "func.func"), ip->location);
  mlirOperationStateAddAttributes(&state, (intptr_t)n, attrs);
  mlirOperationStateAddOwnedRegions(&state, 1, &region);
  MlirOperation func = mlirOperationCreate(&state);
  mlirBlockAppendOwnedOperation(ip->block, func);
  lsimp_emit_cache_made(ip->cache, func);
  if (op)
    *op = func;
  if (attrs != few)
    free(attrs);
  if (locs != few_locs)
    free(locs);
  return LSIM_OK;
}

/* ip's cache when it belongs to ip's context, else NULL. */
static lsim_emit_cache *cache_of(const lsim_insertion_point *ip) {
  lsim_emit_cache *c = ip->cache;
  return c && c->mlir.ptr == ip->context.ptr ? c : NULL;
}

static MlirType i32_scalar(const lsim_insertion_point *ip) {
  lsim_emit_cache *c = cache_of(ip);
  if (!c)
    return lsim_i32_scalar_type(ip->context);
  if (mlirTypeIsNull(c->i32_scalar))
    c->i32_scalar = lsim_i32_scalar_type(ip->context);
  return c->i32_scalar;
}

static int emit_constant(const lsim_insertion_point *ip, MlirAttribute value, MlirValue *out,
                         lsim_error *err) {
  MlirContext mlir = ip->context;
  lsim_emit_cache *c = cache_of(ip);
  if (c && !c->value.ptr)
    c->value = mlirIdentifierGet(mlir, ref("value"));
  MlirNamedAttribute attr =
      c ? mlirNamedAttributeGet(c->value, value) : lsim_named(mlir, "value", value);
  MlirType type = mlirAttributeGetType(value);
  MlirOperation op;
  int rc = lsim_emit_op(ip, "stablehlo.constant", NULL, 0, &type, 1, &attr, 1, 0, &op, err);
  if (rc == LSIM_OK)
    *out = mlirOperationGetResult(op, 0);
  return rc;
}

int lsim_emit_constant_i32(const lsim_insertion_point *ip, int32_t value, MlirValue *out,
                           lsim_error *err) {
  lsim_emit_cache *c = cache_of(ip);
  bool small = c && value >= 0 && value < LSIMP_EMIT_CACHE_SMALL_I32;
  if (small && !mlirAttributeIsNull(c->small_i32[value]))
    return emit_constant(ip, c->small_i32[value], out, err);
  MlirAttribute attr = mlirDenseElementsAttrInt32SplatGet(i32_scalar(ip), value);
  if (small)
    c->small_i32[value] = attr;
  return emit_constant(ip, attr, out, err);
}

/* A splat of `value` (0 or 1) of `type`; dense<> for an empty shape, as
 * np.zeros of one is. */
static int emit_splat(const lsim_insertion_point *ip, MlirType type, int value, MlirValue *out,
                      lsim_error *err) {
  if (mlirTypeIsNull(type))
    return lsimp_fail_oom(err);
  int64_t count = 1;
  for (intptr_t i = 0; i < mlirShapedTypeGetRank(type); i++)
    count *= mlirShapedTypeGetDimSize(type, i);
  if (count == 0)
    return emit_constant(ip, mlirDenseElementsAttrGet(type, 0, NULL), out, err);
  MlirType elt = mlirShapedTypeGetElementType(type);
  MlirAttribute v = mlirTypeIsAFloat(elt) ? mlirFloatAttrDoubleGet(ip->context, elt, value)
                                          : mlirIntegerAttrGet(elt, value);
  return emit_constant(ip, mlirDenseElementsAttrSplatGet(type, v), out, err);
}

int lsim_emit_zeros(const lsim_insertion_point *ip, MlirType type, MlirValue *out,
                    lsim_error *err) {
  return emit_splat(ip, type, 0, out, err);
}

int lsim_emit_ones(const lsim_insertion_point *ip, MlirType type, MlirValue *out,
                   lsim_error *err) {
  return emit_splat(ip, type, 1, out, err);
}

int lsim_emit_elementwise(const lsim_insertion_point *ip, const char *name,
                          const MlirValue *operands, size_t num_operands, MlirValue *out,
                          lsim_error *err) {
  if (null_operand(name, operands, num_operands ? num_operands : 1, err))
    return LSIM_E_INVALID_ARGUMENT;
  MlirType type = mlirValueGetType(operands[0]);
  MlirOperation op;
  int rc = lsim_emit_op(ip, name, operands, num_operands, &type, 1, NULL, 0, 0, &op, err);
  if (rc == LSIM_OK)
    *out = mlirOperationGetResult(op, 0);
  return rc;
}

int lsim_emit_constant(const lsim_insertion_point *ip, MlirAttribute value, MlirValue *out,
                       lsim_error *err) {
  return emit_constant(ip, value, out, err);
}

/* One op with one result; *out its value. */
static int emit1(const lsim_insertion_point *ip, const char *name, const MlirValue *operands,
                 size_t n, MlirType type, const MlirNamedAttribute *attrs, size_t num_attrs,
                 MlirValue *out, lsim_error *err) {
  MlirOperation op;
  int rc = lsim_emit_op(ip, name, operands, n, &type, 1, attrs, num_attrs, 0, &op, err);
  if (rc == LSIM_OK)
    *out = mlirOperationGetResult(op, 0);
  return rc;
}

/* Built directly, not parsed: MLIR's parser verifies an opaque attribute's
 * dialect namespace with a regular expression it compiles each time. */
int lsim_emit_broadcast_scalar(const lsim_insertion_point *ip, MlirValue scalar, MlirType type,
                               MlirValue *out, lsim_error *err) {
  MlirNamedAttribute dims = lsim_named(ip->context, "broadcast_dimensions",
                                       mlirDenseI64ArrayGet(ip->context, 0, NULL));
  return emit1(ip, "stablehlo.broadcast_in_dim", &scalar, 1, type, &dims, 1, out, err);
}

int lsim_emit_compare_signed(const lsim_insertion_point *ip, MlirValue a, MlirValue b,
                             const char *direction, MlirValue *out, lsim_error *err) {
  char text[64];
  snprintf(text, sizeof text, "comparison_direction %s", direction);
  MlirNamedAttribute attrs[] = {
      lsim_named(ip->context, "compare_type",
                 stablehlo_attr(ip->context, "comparison_type SIGNED")),
      lsim_named(ip->context, "comparison_direction", stablehlo_attr(ip->context, text)),
  };
  MlirValue operands[] = {a, b};
  MlirType i1 = mlirRankedTensorTypeGet(0, NULL, mlirIntegerTypeGet(ip->context, 1),
                                        mlirAttributeGetNull());
  return emit1(ip, "stablehlo.compare", operands, 2, i1, attrs, 2, out, err);
}

int lsim_emit_select(const lsim_insertion_point *ip, MlirValue pred, MlirValue on_true,
                     MlirValue on_false, MlirValue *out, lsim_error *err) {
  MlirValue operands[] = {pred, on_true, on_false};
  if (null_operand("stablehlo.select", operands, 3, err))
    return LSIM_E_INVALID_ARGUMENT;
  return emit1(ip, "stablehlo.select", operands, 3, mlirValueGetType(on_true), NULL, 0, out,
               err);
}

/* The operands of a slice op: `lead` values, then the starts. */
static int slice_operands(const char *op, const MlirValue *lead, size_t num_lead,
                          const MlirValue *starts, size_t rank, MlirValue *operands,
                          lsim_error *err) {
  if (rank > LSIM_EMIT_MAX_SLICE_RANK)
    return lsim_error_set(err, LSIM_E_INVALID_ARGUMENT, "%s: more than %d dimensions", op,
                          LSIM_EMIT_MAX_SLICE_RANK);
  memcpy(operands, lead, num_lead * sizeof *lead);
  memcpy(operands + num_lead, starts, rank * sizeof *starts);
  return LSIM_OK;
}

/* lax.dynamic_slice's shape rule: no slice larger than the operand (JAX
 * raises it while tracing, before any op is made). */
static int check_slice_sizes(MlirValue operand, const int64_t *sizes, size_t rank,
                             lsim_error *err) {
  MlirType type = mlirValueGetType(operand);
  int64_t dims[LSIM_EMIT_MAX_SLICE_RANK];
  bool larger = false;
  for (size_t d = 0; d < rank; d++) {
    dims[d] = mlirShapedTypeGetDimSize(type, (intptr_t)d);
    larger = larger || sizes[d] > dims[d];
  }
  if (!larger)
    return LSIM_OK;
  lsimp_strbuf wanted = LSIMP_STRBUF_INIT, shape = LSIMP_STRBUF_INIT;
  lsimp_py_shape(&wanted, sizes, (int)rank);
  lsimp_py_shape(&shape, dims, (int)rank);
  int rc = lsimp_strbuf_failed(&wanted) || lsimp_strbuf_failed(&shape)
               ? lsimp_fail_oom(err)
               : lsimp_raise(err, LSIM_E_DYNAMIC_SLICE_SIZES, lsimp_strbuf_cstr(&wanted),
                             lsimp_strbuf_cstr(&shape));
  lsimp_strbuf_free(&wanted);
  lsimp_strbuf_free(&shape);
  return rc;
}

int lsim_emit_dynamic_slice(const lsim_insertion_point *ip, MlirValue operand,
                            const MlirValue *starts, size_t rank, const int64_t *sizes,
                            MlirValue *out, lsim_error *err) {
  MlirValue operands[1 + LSIM_EMIT_MAX_SLICE_RANK];
  int rc = slice_operands("lsim_emit_dynamic_slice", &operand, 1, starts, rank, operands, err);
  if (!rc)
    rc = null_operand("stablehlo.dynamic_slice", operands, 1 + rank, err);
  if (!rc)
    rc = check_slice_sizes(operand, sizes, rank, err);
  if (rc)
    return rc;
  MlirNamedAttribute attr = lsim_named(ip->context, "slice_sizes",
                                       mlirDenseI64ArrayGet(ip->context, (intptr_t)rank, sizes));
  MlirType type = mlirValueGetType(operand);
  MlirType sliced = mlirRankedTensorTypeGet((intptr_t)rank, sizes,
                                            mlirShapedTypeGetElementType(type),
                                            mlirAttributeGetNull());
  return emit1(ip, "stablehlo.dynamic_slice", operands, 1 + rank, sliced, &attr, 1, out, err);
}

int lsim_emit_dynamic_update_slice(const lsim_insertion_point *ip, MlirValue operand,
                                   MlirValue update, const MlirValue *starts, size_t rank,
                                   MlirValue *out, lsim_error *err) {
  MlirValue operands[2 + LSIM_EMIT_MAX_SLICE_RANK], lead[] = {operand, update};
  int rc = slice_operands("lsim_emit_dynamic_update_slice", lead, 2, starts, rank, operands, err);
  if (!rc)
    rc = null_operand("stablehlo.dynamic_update_slice", operands, 2 + rank, err);
  if (rc)
    return rc;
  return emit1(ip, "stablehlo.dynamic_update_slice", operands, 2 + rank,
               mlirValueGetType(operand), NULL, 0, out, err);
}

int lsim_emit_call(const lsim_insertion_point *ip, const char *callee, const MlirValue *operands,
                   size_t num_operands, MlirType result, MlirValue *out, lsim_error *err) {
  MlirNamedAttribute attr = lsim_named(
      ip->context, "callee", mlirFlatSymbolRefAttrGet(ip->context, ref(callee)));
  return emit1(ip, "func.call", operands, num_operands, result, &attr, 1, out, err);
}

int lsim_emit_while(const lsim_insertion_point *ip, const MlirValue *operands, size_t count,
                    MlirOperation *out, MlirBlock *cond, MlirBlock *body, lsim_error *err) {
  MlirType types[8];
  if (count > 8)
    return lsim_error_set(err, LSIM_E_INVALID_ARGUMENT, "lsim_emit_while: more than 8 operands");
  if (null_operand("stablehlo.while", operands, count, err))
    return LSIM_E_INVALID_ARGUMENT;
  for (size_t i = 0; i < count; i++)
    types[i] = mlirValueGetType(operands[i]);
  int rc = lsim_emit_op(ip, "stablehlo.while", operands, count, types, count, NULL, 0, 2, out,
                        err);
  if (rc)
    return rc;
  MlirBlock *blocks[] = {cond, body};
  for (int r = 0; r < 2; r++) {
    *blocks[r] = mlirRegionGetFirstBlock(mlirOperationGetRegion(*out, r));
    for (size_t i = 0; i < count; i++)
      mlirBlockAddArgument(*blocks[r], types[i], ip->location);
  }
  return LSIM_OK;
}

int lsim_emit_convert(const lsim_insertion_point *ip, MlirValue value, MlirType type,
                      MlirValue *out, lsim_error *err) {
  MlirOperation op;
  int rc = lsim_emit_op(ip, "stablehlo.convert", &value, 1, &type, 1, NULL, 0, 0, &op, err);
  if (rc == LSIM_OK)
    *out = mlirOperationGetResult(op, 0);
  return rc;
}

int lsim_emit_case(const lsim_insertion_point *ip, MlirValue index, const MlirType *result_types,
                   size_t num_results, size_t num_branches, MlirOperation *out, lsim_error *err) {
  return lsim_emit_op(ip, "stablehlo.case", &index, 1, result_types, num_results, NULL, 0,
                      num_branches, out, err);
}

MlirBlock lsim_case_branch(MlirOperation case_op, size_t i) {
  return mlirRegionGetFirstBlock(mlirOperationGetRegion(case_op, (intptr_t)i));
}

int lsim_emit_return(const lsim_insertion_point *ip, const MlirValue *values, size_t count,
                     lsim_error *err) {
  return lsim_emit_op(ip, "stablehlo.return", values, count, NULL, 0, NULL, 0, 0, NULL, err);
}

int lsim_emit_create_token(const lsim_insertion_point *ip, MlirValue *out, lsim_error *err) {
  MlirType token = lsim_token_type(ip->context);
  MlirOperation op;
  int rc = lsim_emit_op(ip, "stablehlo.create_token", NULL, 0, &token, 1, NULL, 0, 0, &op, err);
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
  MlirAttribute *layouts = lsim_malloc_array(n, sizeof *layouts);
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
  MlirAttribute *items = lsim_malloc_array(n, sizeof *items);
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

int lsim_emit_custom_call(const lsim_insertion_point *ip, const lsim_custom_call *call,
                          const MlirValue *operands, size_t num_operands,
                          const MlirType *result_types, size_t num_results, MlirOperation *out,
                          lsim_error *err) {
  MlirContext mlir = ip->context;
  if (null_operand("stablehlo.custom_call", operands, num_operands, err))
    return LSIM_E_INVALID_ARGUMENT;
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
    MlirType *operand_types = lsim_malloc_array(num_operands + 1, sizeof *operand_types);
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
  return lsim_emit_op(ip, "stablehlo.custom_call", operands, num_operands, result_types,
                      num_results, attrs, n, 0, out, err);
}

int lsim_emit_ffi_call(const lsim_insertion_point *ip, const lsim_ffi_call *ffi,
                       const MlirValue *operands, size_t num_operands,
                       const MlirType *result_types, size_t num_results, MlirOperation *out,
                       lsim_error *err) {
  MlirNamedAttribute few[4] = {{{NULL}, {NULL}}};
  MlirNamedAttribute *entries = ffi->num_params <= 4 ? few : lsim_malloc_array(ffi->num_params, sizeof *entries);
  if (!entries)
    return lsimp_fail_oom(err);
  for (size_t i = 0; i < ffi->num_params; i++)
    entries[i] = lsim_named(ip->context, ffi->params[i].name, ffi->params[i].value);
  lsim_custom_call call = {
      .target = ffi->target,
      .has_side_effect = ffi->has_side_effect,
      .backend_config_dict =
          mlirDictionaryAttrGet(ip->context, (intptr_t)ffi->num_params, entries),
      .layouts = true,
      .has_aliases = ffi->has_aliases,
      .aliases = ffi->aliases,
      .num_aliases = ffi->num_aliases,
  };
  if (entries != few)
    free(entries);
  return lsim_emit_custom_call(ip, &call, operands, num_operands, result_types, num_results, out,
                               err);
}

int lsim_emit_ffi_lowering_op(lsim_lowering_rule_context *ctx, const lsim_ffi_call *call,
                              const MlirValue *args, MlirValue *results, lsim_error *err) {
  MlirType few[4], *types = ctx->num_avals_out <= 4
                                ? few
                                : lsim_malloc_array(ctx->num_avals_out, sizeof *types);
  if (!types)
    return lsimp_fail_oom(err);
  int rc = lsim_lowering_rule_context_out_types(ctx, types, err);
  MlirOperation op;
  if (!rc)
    rc = lsim_emit_ffi_call(&ctx->ip, call, args, ctx->num_avals_in, types, ctx->num_avals_out,
                            &op, err);
  for (size_t i = 0; !rc && i < ctx->num_avals_out; i++)
    results[i] = mlirOperationGetResult(op, (intptr_t)i);
  if (types != few)
    free(types);
  return rc;
}

/* --- host transfers -------------------------------------------------------- */

/* xla_bridge / mlir.py: SEND_TO_HOST_TYPE and RECV_FROM_HOST_TYPE. */
enum { SEND_TO_HOST_TYPE = 2, RECV_FROM_HOST_TYPE = 3 };

static int host_transfer(const lsim_insertion_point *ip, const char *name,
                         const MlirValue *operands, size_t num_operands, const MlirType *types,
                         size_t num_types, int64_t channel, int type, MlirOperation *out,
                         lsim_error *err) {
  MlirContext mlir = ip->context;
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
  return lsim_emit_op(ip, name, operands, num_operands, types, num_types, attrs, 3, 0, out, err);
}

int lsim_emit_send_to_host(const lsim_insertion_point *ip, MlirValue token, MlirValue operand,
                           int64_t channel, MlirValue *token_out, lsim_error *err) {
  MlirValue operands[] = {operand, token};
  MlirType type = lsim_token_type(ip->context);
  MlirOperation op;
  int rc = host_transfer(ip, "stablehlo.send", operands, 2, &type, 1, channel,
                         SEND_TO_HOST_TYPE, &op, err);
  if (rc == LSIM_OK)
    *token_out = mlirOperationGetResult(op, 0);
  return rc;
}

int lsim_emit_recv_from_host(const lsim_insertion_point *ip, MlirValue token, MlirType type,
                             int64_t channel, MlirValue *value_out, MlirValue *token_out,
                             lsim_error *err) {
  MlirType types[] = {type, lsim_token_type(ip->context)};
  MlirOperation op;
  int rc = host_transfer(ip, "stablehlo.recv", &token, 1, types, 2, channel,
                         RECV_FROM_HOST_TYPE, &op, err);
  if (rc == LSIM_OK) {
    *value_out = mlirOperationGetResult(op, 0);
    *token_out = mlirOperationGetResult(op, 1);
  }
  return rc;
}

int lsim_emit_wrap_with_memory_kind(const lsim_insertion_point *ip, const char *memory_kind,
                                    MlirValue *value, lsim_error *err) {
  MlirContext mlir = ip->context;
  MlirNamedAttribute placement =
      lsim_named(mlir, "_xla_buffer_placement", lsim_string_attr(mlir, memory_kind));
  MlirNamedAttribute frontend = lsim_named(mlir, "mhlo.frontend_attributes",
                                           mlirDictionaryAttrGet(mlir, 1, &placement));
  lsim_custom_call call = {.target = "annotate_device_placement", .has_side_effect = true,
                           .api_version = 1, .extra = &frontend, .num_extra = 1};
  if (null_operand("stablehlo.custom_call", value, 1, err))
    return LSIM_E_INVALID_ARGUMENT;
  MlirType type = mlirValueGetType(*value);
  MlirOperation op;
  int rc = lsim_emit_custom_call(ip, &call, value, 1, &type, 1, &op, err);
  if (!rc)
    *value = mlirOperationGetResult(op, 0);
  return rc;
}
