/* pallas/interpret.c: interpret=True, the kernel run by Pallas's HLO
 * interpreter.  JAX counterpart: pallas/hlo_interpreter.py
 * pallas_call_hlo_interpret, as it lowers for lowersim's kernels: add_one
 * and copy (one 1-D block, the whole array, whose index map is
 * `lambda i: (0,)`), tiled_add_one ((rows, cols) blocks, `lambda i, j:
 * (i, j)` over a 2-D grid), row_sum ((rows, N) blocks into (rows, 1)
 * ones, `lambda i: (i, 0)`) and gather_rows (scalar prefetch: the input's
 * map `lambda i, idx_ref: (idx_ref[i], 0)`).
 *
 * The interpreter is a while loop over the grid carrying (the
 * scalar-prefetch operand, unchanged; the number of steps when the grid has
 * two axes: the product of its sizes, traced; the
 * loop counter; the grid index, one value per axis; the input buffer; the
 * output buffer, which starts uninitialized).  Each step computes every
 * block's start from the index map (a grid index times the block size, or
 * the map's literal 0), loads every block (input then output) with
 * dynamic_slice at its start (made non-negative as jnp indexing does:
 * start < 0 ? start + size : start), runs the kernel on them, writes every
 * block back with dynamic_update_slice (the input's too), and advances the
 * grid index, last axis first, through two jnp.where calls per axis
 * (lowered once per module and equation context as the private functions
 * _where and _where_0).
 *
 * From 0.11.2 (the profile's pallas_interpret_device_put and
 * pallas_interpret_alias_sync) each operand is first put in device memory
 * (a device_put equation each, dispatched per platform), and after each
 * step an aliased input's buffer is the output's. */
#include "interpret.h"
#include "kernels.h"
#include "lowersim/emit.h"
#include "lowersim/lower_per_platform.h"
#include "lowersim/alloc.h"
#include "support/raise.h"

#include <mlir-c/BuiltinAttributes.h>
#include <mlir-c/BuiltinTypes.h>

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
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

static MlirValue multiply(emitter *e, MlirValue a, MlirValue b) {
  MlirValue operands[] = {a, b}, out = {NULL};
  EMIT(lsim_emit_elementwise(&e->at, "stablehlo.multiply", operands, 2, &out, e->err));
  return out;
}

/* A kernel's ref as the interpreter sees it: its array, its block, and for
 * each dimension the grid axis the index map gives there (-1: its literal
 * 0). */
typedef struct ref_spec {
  int rank;
  int64_t dims[2], block[2];
  int axis[2];
  bool indirect[2]; /* the map reads the scalar-prefetch ref there: idx_ref[i] */
} ref_spec;

/* The grid, the input's ref and the output's; the scalar-prefetch
 * operand's length when there is one (it comes first, and the loop carries
 * it first). */
typedef struct grid_spec {
  int rank;
  int64_t dims[2];
  ref_spec in, out;
  bool has_prefetch;
  int64_t prefetch; /* its length (0 for an empty one: not "none") */
} grid_spec;

/* A block's start in dimension d, made non-negative: for the map's literal
 * 0 each constant is made where jnp uses it; a traced start is compared,
 * wrapped and selected. */
static MlirValue normalized_start(emitter *e, const ref_spec *r, int d, MlirValue start) {
  if (r->axis[d] < 0) {
    MlirValue index = i32(e, 0);
    MlirValue zero = i32(e, 0);
    MlirValue negative = compare(e, index, zero, "LT");
    MlirValue index_again = i32(e, 0);
    MlirValue wrapped = add(e, index_again, i32(e, r->dims[d]));
    MlirValue unwrapped = i32(e, 0);
    return select_(e, negative, wrapped, unwrapped);
  }
  /* A start of the prefetched array's own integer type is made int32 first. */
  MlirType i32_type = scalar_type(mlirIntegerTypeGet(e->at.context, 32));
  if (!e->rc && !mlirTypeEqual(mlirValueGetType(start), i32_type))
    e->rc = lsim_emit_convert(&e->at, start, i32_type, &start, e->err);
  MlirValue negative = compare(e, start, i32(e, 0), "LT");
  MlirValue wrapped = add(e, start, i32(e, r->dims[d]));
  return select_(e, negative, wrapped, start);
}

static MlirValue load_block(emitter *e, const ref_spec *r, MlirValue buffer,
                            const MlirValue *starts) {
  MlirValue at[2], out = {NULL};
  for (int d = 0; d < r->rank; d++)
    at[d] = normalized_start(e, r, d, starts[d]);
  EMIT(lsim_emit_dynamic_slice(&e->at, buffer, at, (size_t)r->rank, r->block, &out, e->err));
  return out;
}

static MlirValue store_block(emitter *e, const ref_spec *r, MlirValue buffer, MlirValue block,
                             const MlirValue *starts) {
  MlirValue at[2], out = {NULL};
  for (int d = 0; d < r->rank; d++)
    at[d] = normalized_start(e, r, d, starts[d]);
  EMIT(lsim_emit_dynamic_update_slice(&e->at, buffer, block, at, (size_t)r->rank, &out, e->err));
  return out;
}

/* idx_ref[i]: the grid index made non-negative, a one-element
 * dynamic_slice of the prefetched array, reshaped to a scalar. */
static MlirValue read_prefetch(emitter *e, MlirValue prefetch, int64_t length, MlirValue i) {
  MlirValue negative = compare(e, i, i32(e, 0), "LT");
  MlirValue wrapped = add(e, i, i32(e, length));
  MlirValue at = select_(e, negative, wrapped, i), element = {NULL};
  int64_t one = 1;
  EMIT(lsim_emit_dynamic_slice(&e->at, prefetch, &at, 1, &one, &element, e->err));
  if (e->rc)
    return (MlirValue){NULL};
  MlirType scalar = scalar_type(mlirShapedTypeGetElementType(mlirValueGetType(prefetch)));
  MlirOperation reshape;
  EMIT(lsim_emit_op(&e->at, "stablehlo.reshape", &element, 1, &scalar, 1, NULL, 0, 0, &reshape,
                    e->err));
  return e->rc ? (MlirValue){NULL} : mlirOperationGetResult(reshape, 0);
}

/* The index map's starts: block size times the grid index (or the
 * prefetched value it indexes) where it gives one. */
static void block_starts(emitter *e, const ref_spec *r, const MlirValue *index,
                         MlirValue prefetch, int64_t prefetch_length, MlirValue starts[2]) {
  for (int d = 0; d < r->rank; d++) {
    starts[d] = (MlirValue){NULL};
    if (r->axis[d] >= 0) {
      MlirValue block_index = r->indirect[d]
                                  ? read_prefetch(e, prefetch, prefetch_length, index[r->axis[d]])
                                  : index[r->axis[d]];
      /* The block size takes the index's type (the prefetched array's). */
      MlirType elt = e->rc ? mlirIntegerTypeGet(e->at.context, 32)
                           : mlirShapedTypeGetElementType(mlirValueGetType(block_index));
      MlirValue size = constant(e, elt, mlirIntegerAttrGet(elt, r->block[d]));
      starts[d] = multiply(e, size, block_index);
    }
  }
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

/* Whether `name` is one the symbol table gives jnp.where's functions:
 * _where, _where_0, _where_1, ... */
static bool is_where_name(MlirStringRef name) {
  if (name.length < 6 || memcmp(name.data, "_where", 6) != 0)
    return false;
  if (name.length == 6)
    return true;
  if (name.length == 7 || name.data[6] != '_')
    return false;
  for (size_t i = 7; i < name.length; i++)
    if (name.data[i] < '0' || name.data[i] > '9')
      return false;
  return true;
}

/* The interpreter's jnp.where functions for ctx's compute type.  JAX lowers
 * each where once per module, equation context and avals (mlir.lower_fun's
 * cache), so a compute type has, in the order they were made: [0] the
 * last grid axis's first where, its predicate the literal True; [1] the
 * second, taking the weakly typed 0 (converted); [2] under an abstract
 * mesh, an earlier axis's first where, whose predicate (a compare's
 * result) carries the mesh, so its avals differ from [0]'s.  The module's
 * symbol table names those it makes (_where, then _where_N, N its counter's
 * next value).  made[k]: function k is in the module already, names[k] its
 * name. */
#define WHERE_KINDS 3
static void where_names(const lsim_lowering_rule_context *ctx, char names[WHERE_KINDS][24],
                        bool made[WHERE_KINDS]) {
  MlirModule module = lsim_module_context_module(ctx->module_context);
  MlirStringRef sym_name = mlirStringRefCreateFromCString("sym_name");
  int mine = 0;
  for (MlirOperation op = mlirBlockGetFirstOperation(mlirModuleGetBody(module));
       !mlirOperationIsNull(op) && mine < WHERE_KINDS; op = mlirOperationGetNextInBlock(op)) {
    MlirAttribute sym = mlirOperationGetAttributeByName(op, sym_name);
    if (mlirAttributeIsNull(sym) || !is_where_name(mlirStringAttrGetValue(sym)) ||
        !same_compute_type(ctx, op))
      continue;
    MlirStringRef name = mlirStringAttrGetValue(sym);
    snprintf(names[mine], 24, "%.*s", (int)name.length, name.data);
    made[mine++] = true;
  }
  for (int k = mine; k < WHERE_KINDS; k++)
    made[k] = false;
}

/* func.func private @name([%platform_index,] %pred: tensor<i1>, %a: `a`,
 * %b: tensor<i32>) -> tensor<i32>: jnp.where's lowering (mlir.lower_fun
 * caches it per module), which takes the module's platform index first in a
 * multi-platform lowering; `a` is converted to i32 when `convert` (the
 * second where's weakly typed 0). */
static int add_where(const lsim_lowering_rule_context *ctx, char name[24], MlirType a,
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
  lsim_func f = {.name = "_where", .visibility = "private", .inputs = inputs,
                 .num_inputs = k + 3, .results = &i32, .num_results = 1,
                 .arg_attrs = k ? arg_attrs : NULL};
  MlirBlock body;
  MlirOperation func;
  MlirStringRef given;
  int rc = lsim_emit_func(&module, &f, &func, &body, err);
  if (!rc)
    rc = lsim_module_context_insert_symbol(mc, func, &given, err);
  if (rc)
    return rc;
  snprintf(name, 24, "%.*s", (int)given.length, given.data);
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

/* row_sum's jnp.sum(x, axis=1, keepdims=True): stablehlo.reduce over
 * dimension 1 from the dtype's 0, then broadcast_in_dim back to (rows, 1).
 * With jax_enable_x64, jnp.sum sums int32 as int64 (the default int): the
 * block is converted first, and the sum back for the int32 output. */
static MlirValue row_sum(emitter *e, MlirValue x, const ref_spec *in, const ref_spec *out,
                         bool floating, bool x64) {
  MlirContext mlir = e->at.context;
  MlirType stored = mlirShapedTypeGetElementType(mlirValueGetType(x)), elt = stored;
  bool widen = !floating && x64;
  if (widen) {
    elt = mlirIntegerTypeGet(mlir, 64);
    MlirType wide = mlirRankedTensorTypeGet(2, in->block, elt, mlirAttributeGetNull());
    EMIT(lsim_emit_convert(&e->at, x, wide, &x, e->err));
  }
  MlirValue zero = constant(e, elt, floating ? mlirFloatAttrDoubleGet(mlir, elt, 0.0)
                                             : mlirIntegerAttrGet(elt, 0));
  MlirValue operands[] = {x, zero}, sum = {NULL}, result = {NULL};
  MlirType summed = mlirRankedTensorTypeGet(1, out->block, elt, mlirAttributeGetNull());
  int64_t reduced = 1, kept = 0;
  MlirNamedAttribute dims = lsim_named(mlir, "dimensions", mlirDenseI64ArrayGet(mlir, 1, &reduced));
  MlirOperation reduce;
  EMIT(lsim_emit_op(&e->at, "stablehlo.reduce", operands, 2, &summed, 1, &dims, 1, 1, &reduce,
                    e->err));
  if (e->rc)
    return result;
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(reduce, 0));
  MlirType scalar = scalar_type(elt);
  MlirValue a = mlirBlockAddArgument(body, scalar, e->at.location);
  MlirValue b = mlirBlockAddArgument(body, scalar, e->at.location);
  emitter in_body = {lsim_insertion_point_in(&e->at, body), e->err, LSIM_OK};
  MlirValue total = add(&in_body, a, b);
  if (!in_body.rc)
    in_body.rc = lsim_emit_return(&in_body.at, &total, 1, e->err);
  e->rc = in_body.rc;
  sum = mlirOperationGetResult(reduce, 0);
  MlirType block = mlirRankedTensorTypeGet(2, out->block, elt, mlirAttributeGetNull());
  MlirNamedAttribute bdims = lsim_named(mlir, "broadcast_dimensions",
                                        mlirDenseI64ArrayGet(mlir, 1, &kept));
  MlirOperation bcast;
  EMIT(lsim_emit_op(&e->at, "stablehlo.broadcast_in_dim", &sum, 1, &block, 1, &bdims, 1, 0,
                    &bcast, e->err));
  if (!e->rc)
    result = mlirOperationGetResult(bcast, 0);
  if (widen)
    EMIT(lsim_emit_convert(&e->at, result,
                           mlirRankedTensorTypeGet(2, out->block, stored, mlirAttributeGetNull()),
                           &result, e->err));
  return result;
}

/* The kernel on its input block `x`: its output block. */
static MlirValue run_kernel(emitter *e, const char *kernel, MlirValue x, const grid_spec *g,
                            lsim_dtype dtype, bool x64) {
  MlirContext mlir = e->at.context;
  if (e->rc) /* no block was loaded: x is null */
    return (MlirValue){NULL};
  if (strcmp(kernel, "row_sum") == 0)
    return row_sum(e, x, &g->in, &g->out, is_float(dtype), x64);
  if (strcmp(kernel, "copy") == 0 || strcmp(kernel, "gather_rows") == 0)
    return x;
  MlirType block = mlirValueGetType(x);
  MlirType elt = mlirShapedTypeGetElementType(block);
  MlirValue one = constant(e, elt, is_float(dtype) ? mlirFloatAttrDoubleGet(mlir, elt, 1.0)
                                                   : mlirIntegerAttrGet(elt, 1));
  MlirValue ones = {NULL};
  EMIT(lsim_emit_broadcast_scalar(&e->at, one, block, &ones, e->err));
  return add(e, x, ones);
}

/* The loop's body: one grid step.  Its arguments: [prefetched,] [steps,]
 * counter, the grid index (g->rank values), input, output. */
static void emit_step(emitter *e, const lsim_lowering_rule_context *ctx, MlirBlock body,
                      const lsim_pallas_call_params *p, const grid_spec *g, lsim_dtype dtype,
                      bool x64, const char *where, const char *where_0,
                      const char *where_earlier) {
  e->at.block = body;
  intptr_t at = (g->has_prefetch ? 1 : 0) + (g->rank > 1 ? 1 : 0);
  MlirValue prefetch = g->has_prefetch ? mlirBlockGetArgument(body, 0) : (MlirValue){NULL};
  MlirValue counter = mlirBlockGetArgument(body, at);
  MlirValue index[2];
  for (int a = 0; a < g->rank; a++)
    index[a] = mlirBlockGetArgument(body, at + 1 + a);
  MlirValue in = mlirBlockGetArgument(body, at + 1 + g->rank);
  MlirValue out = mlirBlockGetArgument(body, at + 2 + g->rank);
  MlirValue in_starts[2], out_starts[2];
  block_starts(e, &g->in, index, prefetch, g->prefetch, in_starts);
  block_starts(e, &g->out, index, prefetch, g->prefetch, out_starts);
  MlirValue x = load_block(e, &g->in, in, in_starts);
  load_block(e, &g->out, out, out_starts);
  MlirValue y = run_kernel(e, p->kernel, x, g, dtype, x64);
  MlirValue in2 = store_block(e, &g->in, in, x, in_starts);
  MlirValue out2 = store_block(e, &g->out, out, y, out_starts);
  /* From 0.11.2 each aliased pair is synced after the step, by which of
   * the two refs the kernel writes (its jaxpr's write effects): the
   * library's kernels write the output and only read the input, so the
   * input's buffer becomes the output's (an alias of the scalar-prefetch
   * operand, out_carry[-1], would be the output's own). */
  int64_t blocked = g->has_prefetch ? 1 : 0;
  bool sync = lsim_module_context_profile(ctx->module_context)->pallas_interpret_alias_sync;
  for (size_t i = 0; sync && i < p->num_aliases; i++)
    if (p->aliases[i].input == blocked)
      in2 = out2;
  MlirValue next_counter = add(e, counter, i32(e, 1));
  /* The last axis steps; each earlier one when the one after it wrapped. */
  MlirValue next[2], carry = {NULL};
  for (int a = g->rank - 1; a >= 0; a--) {
    MlirValue stepped_index = add(e, index[a], i32(e, 1));
    if (a == g->rank - 1)
      carry = int_constant(e, 1, 1);
    MlirValue stepped = call_where(e, ctx, a == g->rank - 1 ? where : where_earlier, carry,
                                   stepped_index, index[a]);
    carry = compare(e, stepped, i32(e, g->dims[a]), "EQ");
    MlirValue zero = int_constant(e, x64 ? 64 : 32, 0);
    next[a] = call_where(e, ctx, where_0, carry, zero, stepped);
  }
  MlirValue results[7];
  size_t n = 0;
  for (intptr_t k = 0; k < at; k++) /* the prefetched array and the step count, unchanged */
    results[n++] = mlirBlockGetArgument(body, k);
  results[n++] = next_counter;
  for (int a = 0; a < g->rank; a++)
    results[n++] = next[a];
  results[n++] = in2;
  results[n++] = out2;
  EMIT(lsim_emit_return(&e->at, results, n, e->err));
}

/* The grid and refs of p's kernel over the input `in` and output `out`. */
static grid_spec grid_of(const lsim_pallas_call_params *p, const lsim_aval *in,
                         const lsim_aval *out, int64_t prefetch_length) {
  grid_spec g = {0};
  ref_spec *refs[] = {&g.in, &g.out};
  const lsim_aval *avals[] = {in, out};
  for (int r = 0; r < 2; r++) {
    refs[r]->rank = (int)avals[r]->rank;
    for (int d = 0; d < refs[r]->rank; d++) {
      refs[r]->dims[d] = avals[r]->dims[d];
      refs[r]->block[d] = avals[r]->dims[d];
      refs[r]->axis[d] = -1;
      refs[r]->indirect[d] = false;
    }
  }
  g.rank = lsimp_kernel_grid(p->kernel, in, out, p->block, p->grid, g.dims);
  if (lsimp_kernel_num_scalar_prefetch(p->kernel)) {
    /* gather_rows: in_specs (lambda i, idx_ref: (idx_ref[i], 0)), out_specs
     * (lambda i, idx_ref: (i, 0)), over the grid of the output's blocks (the
     * index array may be longer). */
    g.has_prefetch = true;
    g.prefetch = prefetch_length;
    g.in.block[0] = g.out.block[0] = p->block[0];
    g.in.axis[0] = g.out.axis[0] = 0;
    g.in.indirect[0] = true;
  } else if (lsimp_kernel_is_reduction(p->kernel)) {
    g.in.block[0] = g.out.block[0] = p->block[0];
    g.in.axis[0] = g.out.axis[0] = 0;
  } else if (lsimp_kernel_is_tiled(p->kernel)) {
    for (int d = 0; d < 2; d++) {
      g.in.block[d] = g.out.block[d] = p->block[d];
      g.in.axis[d] = g.out.axis[d] = d;
    }
  }
  return g;
}

/* --- jax.device_put(x, MemorySpace.Device) of each operand (0.11.2 on) --- */

/* dispatch.py device_put_p, one operand. */
static const lsim_primitive device_put_p = {.name = "device_put"};

/* dispatch.py _common_device_put_lowering, the default rule: the value. */
static int device_put_default(lsim_lowering_rule_context *ctx, const MlirValue *args,
                              MlirValue *results, const void *params, void *data,
                              lsim_error *err) {
  (void)ctx, (void)params, (void)data, (void)err;
  results[0] = args[0];
  return LSIM_OK;
}

/* dispatch.py _tpu_gpu_device_put_lowering, for tpu and gpu: the value
 * while every memory kind is the default; else wrapped in the memory kind
 * of MemorySpace.Device (mlir.wrap_with_memory_kind, "device"). */
static int device_put_tpu_gpu(lsim_lowering_rule_context *ctx, const MlirValue *args,
                              MlirValue *results, const void *params, void *data,
                              lsim_error *err) {
  (void)params, (void)data;
  results[0] = args[0];
  if (lsim_module_context_all_default_mem_kind(ctx->module_context))
    return LSIM_OK;
  return lsim_emit_wrap_with_memory_kind(&ctx->ip, "device", &results[0], err);
}

/* The device_put equation of operand i, lowered as jaxpr_subcomp lowers it
 * inside mlir.lower_fun (the equation's platforms; its platform rules in
 * their order, mlir.py _get_lowering_rules): lower_per_platform with the
 * tpu/gpu rule for tpu, cuda, rocm and oneapi ("gpu") and the default for
 * the others. */
static int device_put(lsim_lowering_rule_context *ctx, size_t i, MlirValue *x, lsim_error *err) {
  size_t n;
  const char *const *platforms = lsim_lowering_rule_context_platforms(ctx, &n);
  const char *const *gpu;
  size_t num_gpu;
  lsim_expand_platform_alias("gpu", &gpu, &num_gpu);
  lsim_platform_rule *rules = lsim_malloc_array(n + 1, sizeof *rules);
  if (!rules)
    return lsimp_fail_oom(err);
  size_t k = 0;
  for (size_t j = 0; j < n; j++) {
    bool accelerator = strcmp(platforms[j], "tpu") == 0;
    for (size_t g = 0; g < num_gpu && !accelerator; g++)
      accelerator = strcmp(platforms[j], gpu[g]) == 0;
    if (accelerator)
      rules[k++] = (lsim_platform_rule){platforms[j], {device_put_tpu_gpu, NULL}};
  }
  lsim_lowering_rule_context put = *ctx;
  put.primitive = &device_put_p;
  put.avals_in = put.avals_out = &ctx->avals_in[i];
  put.num_avals_in = put.num_avals_out = 1;
  put.tokens_in = NULL, put.num_tokens_in = 0, put.tokens_out = NULL, put.num_tokens_out = 0;
  put.uncached = false;
  put.in_abstract_mesh = ctx->in_abstract_mesh ? &ctx->in_abstract_mesh[i] : NULL;
  const lsim_rule fallback = {device_put_default, NULL};
  MlirValue in = *x;
  int rc = lsim_lower_per_platform(&put, device_put_p.name, rules, k, &fallback, &in, x, NULL,
                                   err);
  free(rules);
  return rc;
}

int lsimp_interpret_lowering(lsim_lowering_rule_context *ctx, const MlirValue *args,
                             MlirValue *results, const lsim_pallas_call_params *p,
                             lsim_error *err) {
  lsim_module_context *mc = ctx->module_context;
  /* From 0.11.2 the interpreter runs on its operands put in device memory. */
  MlirValue put[2];
  if (lsim_module_context_profile(mc)->pallas_interpret_device_put) {
    lsim_module_context_explain(mc, LSIM_EXPLAIN_DECISION, 0,
                                "jax.device_put(x, MemorySpace.Device) of each operand");
    for (size_t i = 0; i < ctx->num_avals_in && i < 2; i++) { /* the library: 1 or 2 */
      put[i] = args[i];
      int rc = device_put(ctx, i, &put[i], err);
      if (rc)
        return rc;
    }
    args = put;
  }
  MlirContext mlir = ctx->ip.context;
  bool x64 = lsim_module_context_lowering_parameters(mc)->enable_x64;
  MlirType i32_type = scalar_type(mlirIntegerTypeGet(mlir, 32));
  /* The blocked operand follows the scalar-prefetch one. */
  size_t blocked = lsimp_kernel_num_scalar_prefetch(p->kernel);
  const lsim_aval *aval = &ctx->avals_in[blocked];
  grid_spec g = grid_of(p, aval, &ctx->avals_out[0], blocked ? ctx->avals_in[0].dims[0] : 0);
  char where[WHERE_KINDS][24];
  bool made[WHERE_KINDS];
  where_names(ctx, where, made);
  bool meshed = g.rank > 1 && lsim_module_context_abstract_device(mc) != NULL;
  int rc = made[0] ? LSIM_OK : add_where(ctx, where[0], i32_type, false, err);
  if (!rc && !made[1])
    rc = add_where(ctx, where[1], scalar_type(mlirIntegerTypeGet(mlir, x64 ? 64 : 32)), true,
                   err);
  if (!rc && meshed && !made[2])
    rc = add_where(ctx, where[2], i32_type, false, err);
  if (rc)
    return rc;
  MlirType out_type = lsim_module_context_aval_to_ir_type(mc, &ctx->avals_out[0]);
  MlirType elt = mlirShapedTypeGetElementType(out_type);
  emitter e = {ctx->ip, err, LSIM_OK};
  /* The output buffer starts as its aliased input, else uninitialized.  The
   * first op made is where the compute type's attributes start. */
  MlirValue out = p->num_aliases ? args[p->aliases[0].input] : (MlirValue){NULL}, first = {NULL};
  if (!p->num_aliases) {
    MlirValue fill = first = constant(&e, elt, uninitialized(mlir, elt, ctx->avals_out[0].dtype));
    if (!e.rc)
      e.rc = lsim_emit_broadcast_scalar(&e.at, fill, out_type, &out, err);
  }
  /* A grid of two axes counts its steps with a traced product (of default
   * ints: int64 with x64); a grid of one compares with its Python int. */
  MlirValue carried[7];
  size_t n = 0;
  if (g.has_prefetch)
    carried[n++] = args[0];
  if (g.rank > 1) {
    int bits = x64 ? 64 : 32;
    MlirValue a = int_constant(&e, bits, g.dims[0]);
    MlirValue b = int_constant(&e, bits, g.dims[1]);
    first = mlirValueIsNull(first) ? a : first;
    carried[n++] = multiply(&e, a, b);
  }
  carried[n] = i32(&e, 0);
  first = mlirValueIsNull(first) ? carried[n] : first;
  n++;
  for (int a = 0; a < g.rank; a++)
    carried[n++] = i32(&e, 0);
  carried[n++] = args[blocked];
  carried[n++] = out;
  MlirOperation loop;
  MlirBlock cond, body;
  if (!e.rc)
    e.rc = lsim_emit_while(&e.at, carried, n, &loop, &cond, &body, err);
  if (e.rc)
    return e.rc;
  emitter in_cond = {lsim_insertion_point_in(&ctx->ip, cond), err, LSIM_OK};
  MlirValue steps = {NULL};
  intptr_t counter_at = (g.has_prefetch ? 1 : 0) + (g.rank > 1 ? 1 : 0);
  if (g.rank > 1) {
    if (!in_cond.rc)
      in_cond.rc = lsim_emit_convert(&in_cond.at, mlirBlockGetArgument(cond, counter_at - 1),
                                     i32_type, &steps, err);
  } else {
    steps = i32(&in_cond, g.dims[0]);
  }
  MlirValue more = compare(&in_cond, mlirBlockGetArgument(cond, counter_at), steps, "LT");
  if (!in_cond.rc)
    in_cond.rc = lsim_emit_return(&in_cond.at, &more, 1, err);
  if (in_cond.rc)
    return in_cond.rc;
  emitter in_body = {lsim_insertion_point_in(&ctx->ip, body), err, LSIM_OK};
  emit_step(&in_body, ctx, body, p, &g, aval->dtype, x64, where[0], where[1],
            meshed ? where[2] : where[0]);
  if (in_body.rc)
    return in_body.rc;
  results[0] = mlirOperationGetResult(loop, (intptr_t)n - 1);
  /* The interpreter is mlir.lower_fun of a traced function: its ops carry
   * the equation's compute type; they end the block, from the output
   * buffer's fill (or the loop's first operand). */
  lsim_wrap_compute_type_from(ctx, mlirOpResultGetOwner(first));
  return LSIM_OK;
}
