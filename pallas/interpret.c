/* pallas/interpret.c: interpret=True, the kernel run by Pallas's HLO
 * interpreter.  JAX counterpart: pallas/hlo_interpreter.py
 * pallas_call_hlo_interpret, as it lowers for lowersim's kernels (one 1-D
 * block, the whole array, whose index map is `lambda i: (0,)`).
 *
 * The interpreter is a while loop over the grid carrying (loop counter, grid
 * index, the input buffer, the output buffer, which starts uninitialized).
 * Each step loads every block (input then output) with dynamic_slice at its
 * start (the index map's 0, made non-negative as jnp indexing does: 0 < 0 ?
 * 0 + size : 0), runs the kernel on them, writes every block back with
 * dynamic_update_slice (the input's too), and advances the grid index
 * through two jnp.where calls (lowered once per module as the private
 * functions _where and _where_0). */
#include "interpret.h"
#include "lowersim/emit.h"
#include "lowersim/lower_per_platform.h"
#include "support/raise.h"

#include <mlir-c/BuiltinAttributes.h>
#include <mlir-c/BuiltinTypes.h>

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* Where the ops go and the first failure (later ops are skipped). */
typedef struct emitter {
  lsim_insertion_point at;
  lsim_error *err;
  int rc;
} emitter;

static MlirType scalar_type(MlirType elt) {
  return mlirRankedTensorTypeGet(0, NULL, elt, mlirAttributeGetNull());
}

static MlirValue constant(emitter *e, MlirType elt, MlirAttribute value) {
  MlirValue v = {NULL};
  if (!e->rc)
    e->rc = lsim_emit_constant(
        &e->at, mlirDenseElementsAttrSplatGet(scalar_type(elt), value), &v,
        e->err);
  return v;
}

static MlirValue int_constant(emitter *e, int bits, int64_t v) {
  MlirType t = mlirIntegerTypeGet(e->at.context, (unsigned)bits);
  return constant(e, t, mlirIntegerAttrGet(t, v));
}

static MlirValue i32(emitter *e, int64_t v) { return int_constant(e, 32, v); }

#define EMIT(call)                                                                                 \
  do {                                                                                             \
    if (!e->rc)                                                                                    \
      e->rc = (call);                                                                              \
  } while (0)

static MlirValue add(emitter *e, MlirValue a, MlirValue b) {
  MlirValue operands[] = {a, b}, out = {NULL};
  EMIT(lsim_emit_elementwise(&e->at, "stablehlo.add", operands, 2, &out, e->err));
  return out;
}

static MlirValue compare(emitter *e, MlirValue a, MlirValue b, const char *direction) {
  MlirValue out = {NULL};
  EMIT(lsim_emit_compare_signed(&e->at, a, b, direction, &out, e->err));
  return out;
}

static MlirValue select_(emitter *e, MlirValue pred, MlirValue on_true, MlirValue on_false) {
  MlirValue out = {NULL};
  EMIT(lsim_emit_select(&e->at, pred, on_true, on_false, &out, e->err));
  return out;
}

/* The block's start: the index map's 0, made non-negative. */
static MlirValue block_start(emitter *e, int64_t size) {
  MlirValue index = i32(e, 0);
  MlirValue zero = i32(e, 0);
  MlirValue negative = compare(e, index, zero, "LT");
  MlirValue index_again = i32(e, 0);
  MlirValue wrapped = add(e, index_again, i32(e, size));
  MlirValue unwrapped = i32(e, 0);
  return select_(e, negative, wrapped, unwrapped);
}

static MlirValue load_block(emitter *e, MlirValue buffer, int64_t size) {
  MlirValue start = block_start(e, size), out = {NULL};
  EMIT(lsim_emit_dynamic_slice(&e->at, buffer, start, size, &out, e->err));
  return out;
}

static MlirValue store_block(emitter *e, MlirValue buffer, MlirValue block, int64_t size) {
  MlirValue start = block_start(e, size), out = {NULL};
  EMIT(lsim_emit_dynamic_update_slice(&e->at, buffer, block, start, &out, e->err));
  return out;
}

/* hlo_interpreter.py uninitialized_value: NaN for floats, 0 for i16 (the
 * semaphore dtype) and unsigned integers, iinfo(dtype).min otherwise. */
static MlirAttribute uninitialized(MlirContext mlir, MlirType elt, lsim_dtype dtype) {
  switch (dtype) {
  case LSIM_DTYPE_F16: case LSIM_DTYPE_BF16: case LSIM_DTYPE_F32: case LSIM_DTYPE_F64:
    return mlirFloatAttrDoubleGet(mlir, elt, NAN);
  case LSIM_DTYPE_I8: return mlirIntegerAttrGet(elt, INT8_MIN);
  case LSIM_DTYPE_I32: return mlirIntegerAttrGet(elt, INT32_MIN);
  case LSIM_DTYPE_I64: return mlirIntegerAttrGet(elt, INT64_MIN);
  default: return mlirIntegerAttrGet(elt, 0);
  }
}

static bool is_float(lsim_dtype d) {
  return d == LSIM_DTYPE_F16 || d == LSIM_DTYPE_BF16 || d == LSIM_DTYPE_F32 || d == LSIM_DTYPE_F64;
}

/* The module's op whose sym_name is `name`, or a null op. */
static MlirOperation find_symbol(MlirModule module, const char *name) {
  MlirStringRef want = mlirStringRefCreateFromCString(name);
  for (MlirOperation op = mlirBlockGetFirstOperation(mlirModuleGetBody(module));
       !mlirOperationIsNull(op); op = mlirOperationGetNextInBlock(op)) {
    MlirAttribute sym = mlirOperationGetAttributeByName(op, mlirStringRefCreateFromCString("sym_name"));
    if (!mlirAttributeIsNull(sym) && mlirStringRefEqual(mlirStringAttrGetValue(sym), want))
      return op;
  }
  return (MlirOperation){NULL};
}

/* Whether the jnp.where function `f` was traced in the compute type of
 * `ctx`: its select carries that type's frontend attributes, or none. */
static bool same_compute_type(const lsim_lowering_rule_context *ctx, MlirOperation f) {
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(f, 0));
  MlirOperation ret = mlirBlockGetTerminator(body);
  MlirOperation select = mlirOpResultGetOwner(mlirOperationGetOperand(ret, 0));
  MlirAttribute has = mlirOperationGetAttributeByName(
      select, mlirStringRefCreateFromCString("mhlo.frontend_attributes"));
  MlirNamedAttribute attrs[2];
  size_t n = ctx->compute_type ? lsim_compute_type_attributes(ctx->ip.context, ctx->compute_type,
                                                              attrs)
                               : 0;
  if (!n)
    return mlirAttributeIsNull(has);
  return !mlirAttributeIsNull(has) &&
         mlirAttributeEqual(has, mlirDictionaryAttrGet(ctx->ip.context, (intptr_t)n, attrs));
}

/* The names of the jnp.where pair for ctx's compute type: JAX lowers the
 * two where calls once per module and equation context, the symbol table
 * naming the k-th pair made _where and _where_0, then _where_1 and
 * _where_2, ...  *made: the pair is already in the module. */
static void where_names(const lsim_lowering_rule_context *ctx, char first[24], char second[24],
                        bool *made) {
  MlirModule module = lsim_module_context_module(ctx->module_context);
  for (int k = 0;; k++) {
    if (k == 0)
      snprintf(first, 24, "_where");
    else
      snprintf(first, 24, "_where_%d", 2 * k - 1);
    snprintf(second, 24, "_where_%d", 2 * k);
    MlirOperation f = find_symbol(module, first);
    *made = !mlirOperationIsNull(f);
    if (!*made || same_compute_type(ctx, f))
      return;
  }
}

/* func.func private @name([%platform_index,] %pred: tensor<i1>, %a: `a`,
 * %b: tensor<i32>) -> tensor<i32>: jnp.where's lowering (mlir.lower_fun
 * caches it per module), which takes the module's platform index first in a
 * multi-platform lowering; `a` is converted to i32 when `convert` (the
 * second where's weakly typed 0). */
static int add_where(const lsim_lowering_rule_context *ctx, const char *name, MlirType a,
                     bool convert, lsim_error *err) {
  lsim_module_context *mc = ctx->module_context;
  lsim_insertion_point module = lsim_module_context_insertion_point(mc);
  MlirContext mlir = module.context;
  MlirType i32 = scalar_type(mlirIntegerTypeGet(mlir, 32));
  size_t k = ctx->num_dim_var_values;
  MlirType inputs[8];
  MlirAttribute arg_attrs[8];
  MlirNamedAttribute global = lsim_named(mlir, "jax.global_constant",
                                         lsim_string_attr(mlir, "_platform_index"));
  for (size_t i = 0; i < k && i < 5; i++) {
    inputs[i] = mlirValueGetType(ctx->dim_var_values[i]);
    arg_attrs[i] = mlirDictionaryAttrGet(mlir, 1, &global);
  }
  MlirType rest[] = {scalar_type(mlirIntegerTypeGet(mlir, 1)), a, i32};
  for (size_t i = 0; i < 3; i++) {
    inputs[k + i] = rest[i];
    arg_attrs[k + i] = mlirDictionaryAttrGet(mlir, 0, NULL);
  }
  lsim_func f = {.name = name, .visibility = "private", .inputs = inputs, .num_inputs = k + 3,
                 .results = &i32, .num_results = 1, .arg_attrs = k ? arg_attrs : NULL};
  MlirBlock body;
  int rc = lsim_emit_func(&module, &f, NULL, &body, err);
  if (rc)
    return rc;
  emitter e = {lsim_insertion_point_in(&module, body), err, LSIM_OK};
  MlirValue value = mlirBlockGetArgument(body, (intptr_t)k + 1);
  if (convert)
    e.rc = lsim_emit_convert(&e.at, value, i32, &value, err);
  MlirValue result = select_(&e, mlirBlockGetArgument(body, (intptr_t)k), value,
                             mlirBlockGetArgument(body, (intptr_t)k + 2));
  if (!e.rc)
    e.rc = lsim_emit_op(&e.at, "func.return", &result, 1, NULL, 0, NULL, 0, 0, NULL, err);
  /* jnp.where traced in the equation's compute type. */
  if (!e.rc)
    lsim_wrap_compute_type_from(ctx, mlirBlockGetFirstOperation(body));
  return e.rc;
}

/* func.call @name(platform index..., args...). */
static MlirValue call_where(emitter *e, const lsim_lowering_rule_context *ctx, const char *name,
                            MlirValue pred, MlirValue a, MlirValue b) {
  MlirValue operands[8], out = {NULL};
  size_t k = ctx->num_dim_var_values < 5 ? ctx->num_dim_var_values : 5;
  for (size_t i = 0; i < k; i++)
    operands[i] = ctx->dim_var_values[i];
  operands[k] = pred, operands[k + 1] = a, operands[k + 2] = b;
  MlirType i32 = scalar_type(mlirIntegerTypeGet(e->at.context, 32));
  EMIT(lsim_emit_call(&e->at, name, operands, k + 3, i32, &out, e->err));
  return out;
}

/* The loop's body: one grid step. */
static void emit_step(emitter *e, const lsim_lowering_rule_context *ctx, MlirBlock body,
                      const lsim_pallas_call_params *p, lsim_dtype dtype, int64_t size, bool x64,
                      const char *where, const char *where_0) {
  MlirContext mlir = e->at.context;
  e->at.block = body;
  MlirValue counter = mlirBlockGetArgument(body, 0), index = mlirBlockGetArgument(body, 1);
  MlirValue in = mlirBlockGetArgument(body, 2), out = mlirBlockGetArgument(body, 3);
  MlirValue x = load_block(e, in, size);
  load_block(e, out, size);
  MlirValue y = x;
  if (strcmp(p->kernel, "add_one") == 0) {
    MlirType block = mlirValueGetType(x);
    MlirType elt = mlirShapedTypeGetElementType(block);
    MlirValue one = constant(e, elt, is_float(dtype) ? mlirFloatAttrDoubleGet(mlir, elt, 1.0)
                                                     : mlirIntegerAttrGet(elt, 1));
    MlirValue ones = {NULL};
    EMIT(lsim_emit_broadcast_scalar(&e->at, one, block, &ones, e->err));
    y = add(e, x, ones);
  }
  MlirValue in2 = store_block(e, in, x, size);
  MlirValue out2 = store_block(e, out, y, size);
  MlirValue next_counter = add(e, counter, i32(e, 1));
  MlirValue next_index = add(e, index, i32(e, 1));
  MlirValue always = int_constant(e, 1, 1);
  MlirValue stepped = call_where(e, ctx, where, always, next_index, index);
  MlirValue wrap = compare(e, stepped, i32(e, p->grid), "EQ");
  MlirValue zero = int_constant(e, x64 ? 64 : 32, 0);
  MlirValue wrapped = call_where(e, ctx, where_0, wrap, zero, stepped);
  MlirValue results[] = {next_counter, wrapped, in2, out2};
  EMIT(lsim_emit_return(&e->at, results, 4, e->err));
}

int lsimp_interpret_lowering(lsim_lowering_rule_context *ctx, const MlirValue *args,
                             MlirValue *results, const lsim_pallas_call_params *p,
                             lsim_error *err) {
  lsim_module_context *mc = ctx->module_context;
  MlirContext mlir = ctx->ip.context;
  bool x64 = lsim_module_context_lowering_parameters(mc)->enable_x64;
  MlirType i32_type = scalar_type(mlirIntegerTypeGet(mlir, 32));
  char where[24], where_0[24];
  bool made;
  where_names(ctx, where, where_0, &made);
  int rc = made ? LSIM_OK : add_where(ctx, where, i32_type, false, err);
  if (!rc && !made)
    rc = add_where(ctx, where_0, scalar_type(mlirIntegerTypeGet(mlir, x64 ? 64 : 32)), true,
                   err);
  if (rc)
    return rc;
  const lsim_aval *aval = &ctx->avals_in[0];
  int64_t size = aval->dims[0];
  MlirType block = mlirValueGetType(args[0]);
  MlirType elt = mlirShapedTypeGetElementType(block);
  emitter e = {ctx->ip, err, LSIM_OK};
  /* The output buffer starts as its aliased input, else uninitialized. */
  MlirValue out = p->num_aliases ? args[0] : (MlirValue){NULL};
  if (!p->num_aliases) {
    MlirValue fill = constant(&e, elt, uninitialized(mlir, elt, aval->dtype));
    if (!e.rc)
      e.rc = lsim_emit_broadcast_scalar(&e.at, fill, block, &out, err);
  }
  MlirValue counter = i32(&e, 0);
  MlirValue index = i32(&e, 0);
  MlirValue carried[] = {counter, index, args[0], out};
  MlirOperation loop;
  MlirBlock cond, body;
  if (!e.rc)
    e.rc = lsim_emit_while(&e.at, carried, 4, &loop, &cond, &body, err);
  if (e.rc)
    return e.rc;
  emitter in_cond = {lsim_insertion_point_in(&ctx->ip, cond), err, LSIM_OK};
  MlirValue more = compare(&in_cond, mlirBlockGetArgument(cond, 0), i32(&in_cond, p->grid), "LT");
  if (!in_cond.rc)
    in_cond.rc = lsim_emit_return(&in_cond.at, &more, 1, err);
  if (in_cond.rc)
    return in_cond.rc;
  emitter in_body = {lsim_insertion_point_in(&ctx->ip, body), err, LSIM_OK};
  emit_step(&in_body, ctx, body, p, aval->dtype, size, x64, where, where_0);
  if (in_body.rc)
    return in_body.rc;
  results[0] = mlirOperationGetResult(loop, 3);
  /* The interpreter is mlir.lower_fun of a traced function: its ops carry
   * the equation's compute type; they end the block, from the output
   * buffer's fill (or the loop). */
  lsim_wrap_compute_type_from(ctx, p->num_aliases ? loop : mlirOpResultGetOwner(out));
  return LSIM_OK;
}
