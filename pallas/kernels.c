/* pallas/kernels.c: lowersim's kernel library.  Each kernel is built with
 * the MLIR C API op for op as JAX lowers the same Pallas kernel:
 *   Mosaic TPU: what pallas/mosaic/lowering.py emits for `o_ref[...] =
 *     x_ref[...] + 1` (a get, the add of a broadcast scalar, a swap whose
 *     load goes unused), already in the form tpu_custom_call.py's
 *     mosaic-serde{serialize=true} pass gives it: every op renamed
 *     `stable_mosaic.<op>` with all its attributes as plain attributes, and
 *     the module's stable_mosaic.version;
 *   Triton: what pallas/triton/lowering.py emits (program id, the index
 *     maps' block offsets, pointer arithmetic, tt.load, the swap's tt.load
 *     and tt.store);
 *   Mosaic GPU: the fully lowered launch JAX's Mosaic GPU emits, rendered
 *     from JAX's own module (pallas/mosaic_gpu_kernel.c).
 * Every op is built generically, unregistered, with its attributes parsed as
 * text, in a context that loads no dialect: MLIR 19's bytecode encodes a
 * registered op's properties in a way jaxlib's MLIR no longer reads, while
 * an unregistered op's attributes, and attributes of dialects it does not
 * know (written as their text), jaxlib reads as its own dialects' ops and
 * attributes. */
#include "kernels.h"
#include "lowersim/alloc.h"
#include "lowersim/emit.h"
#include "support/raise.h"

#include <mlir-c/BuiltinAttributes.h>
#include <mlir-c/BuiltinTypes.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef enum kernel_kind {
  KERNEL_ADD_ONE,
  KERNEL_COPY,
  KERNEL_TILED_ADD_ONE,
  KERNEL_ROW_SUM,
  KERNEL_GATHER_ROWS,
  KERNEL_COUNT
} kernel_kind;

static const char *const kernel_names[] = {[KERNEL_ADD_ONE] = "add_one", [KERNEL_COPY] = "copy",
                                           [KERNEL_TILED_ADD_ONE] = "tiled_add_one",
                                           [KERNEL_ROW_SUM] = "row_sum",
                                           [KERNEL_GATHER_ROWS] = "gather_rows"};

static bool find_kernel(const char *name, kernel_kind *out) {
  for (int i = 0; name && i < KERNEL_COUNT; i++) {
    if (strcmp(kernel_names[i], name) == 0) {
      *out = (kernel_kind)i;
      return true;
    }
  }
  return false;
}

bool lsimp_kernel_is_tiled(const char *kernel) {
  kernel_kind kind;
  return find_kernel(kernel, &kind) &&
         (kind == KERNEL_TILED_ADD_ONE || kind == KERNEL_ROW_SUM || kind == KERNEL_GATHER_ROWS);
}

size_t lsimp_kernel_num_scalar_prefetch(const char *kernel) {
  kernel_kind kind;
  return find_kernel(kernel, &kind) && kind == KERNEL_GATHER_ROWS ? 1 : 0;
}

bool lsimp_kernel_is_reduction(const char *kernel) {
  kernel_kind kind;
  return find_kernel(kernel, &kind) && kind == KERNEL_ROW_SUM;
}

int lsimp_kernel_grid(const char *kernel, const lsim_aval *avals_in, const lsim_aval *avals_out,
                      const int64_t block[2], int64_t grid, int64_t steps[2]) {
  kernel_kind kind;
  if (!find_kernel(kernel, &kind) || block[0] < 1) {
    steps[0] = grid;
    return 1;
  }
  if (kind == KERNEL_GATHER_ROWS) { /* over the output's rows: the indices may be more */
    steps[0] = avals_out[0].dims[0] / block[0];
    return 1;
  }
  steps[0] = avals_in[0].dims[0] / block[0];
  if (kind == KERNEL_ROW_SUM)
    return 1;
  steps[1] = avals_in[0].dims[1] / block[1];
  return 2;
}

/* Blocks of whole rows (ROWS, N) of the (M, N) array `a`, ROWS dividing M
 * (Mosaic TPU's own rule, all of M or a multiple of 8, is checked when the
 * call is lowered there: mosaic_tpu.c check_blocks). */
static int check_whole_rows(const char *kernel, const lsim_aval *a, const int64_t block[2],
                            lsim_error *err) {
  if (block[0] < 1 || block[1] != a->dims[1] || a->dims[0] % block[0] != 0)
    return lsim_error_set(err, LSIM_E_INVALID_ARGUMENT,
                          "Pallas kernel '%s': block=\"%lld,%lld\" must be whole rows "
                          "(ROWS,%lld), ROWS dividing %lld",
                          kernel, (long long)block[0], (long long)block[1], (long long)a->dims[1],
                          (long long)a->dims[0]);
  return LSIM_OK;
}

/* row_sum: an f32 or i32 (M, N) array in (rows, N) blocks over the grid
 * (M / rows,), into an (M, 1) array of its dtype in (rows, 1) blocks. */
static int check_row_sum(const lsim_aval *in, size_t num_in, const lsim_aval *out,
                         size_t num_out, const int64_t block[2], lsim_error *err) {
  if (num_in != 1 || num_out != 1 || in->rank != 2 || lsim_aval_size(in) == 0 ||
      (in->dtype != LSIM_DTYPE_F32 && in->dtype != LSIM_DTYPE_I32) || out->rank != 2 ||
      out->dtype != in->dtype || out->dims[0] != in->dims[0] || out->dims[1] != 1)
    return lsim_error_set(err, LSIM_E_INVALID_ARGUMENT,
                          "Pallas kernel 'row_sum' takes one non-empty (M, N) f32 or i32 array "
                          "and returns an (M, 1) one of its dtype");
  return check_whole_rows("row_sum", in, block, err);
}

/* gather_rows: an index array (any aval: JAX's own errors judge it, at trace
 * time) and a non-empty (M, N) numeric array in whole-row blocks (ROWS, N),
 * ROWS dividing M, into an array like it. */
static int check_gather_rows(const lsim_aval *in, size_t num_in, const lsim_aval *out,
                             size_t num_out, const int64_t block[2], lsim_error *err) {
  const lsim_aval *x = num_in == 2 ? &in[1] : NULL;
  if (!x || num_out != 1 || x->rank != 2 || lsim_aval_size(x) == 0 ||
      x->dtype == LSIM_DTYPE_BOOL || !lsim_aval_equal(x, out))
    return lsim_error_set(err, LSIM_E_INVALID_ARGUMENT,
                          "Pallas kernel 'gather_rows' takes an index array (scalar prefetch) and "
                          "a non-empty (M, N) numeric array, and returns one like the latter");
  return check_whole_rows("gather_rows", x, block, err);
}

/* tiled_add_one: a 2-D array in blocks that divide it, over the grid the
 * blocks make. */
static int check_tiled(const lsim_aval *a, const int64_t block[2], lsim_error *err) {
  if (!a || a->rank != 2 || lsim_aval_size(a) == 0 || a->dtype == LSIM_DTYPE_BOOL)
    return lsim_error_set(err, LSIM_E_INVALID_ARGUMENT,
                          "Pallas kernel 'tiled_add_one' takes one non-empty 2-D numeric array "
                          "and returns one of the same shape and dtype");
  for (int d = 0; d < 2; d++)
    if (block[d] < 1 || a->dims[d] % block[d] != 0)
      return lsim_error_set(err, LSIM_E_INVALID_ARGUMENT,
                            "Pallas kernel 'tiled_add_one': block=\"%lld,%lld\" must divide the "
                            "array (%lld, %lld)",
                            (long long)block[0], (long long)block[1], (long long)a->dims[0],
                            (long long)a->dims[1]);
  return LSIM_OK;
}

int lsimp_pallas_check_kernel(const char *kernel, const lsim_aval *avals_in, size_t num_in,
                             const lsim_aval *avals_out, size_t num_out, const int64_t block[2],
                             int64_t grid, lsim_error *err) {
  kernel_kind kind;
  if (!find_kernel(kernel, &kind))
    return lsim_error_set(err, LSIM_E_INVALID_ARGUMENT,
                     "unknown Pallas kernel '%s' (the library has add_one, copy, "
                     "tiled_add_one, row_sum and gather_rows)",
                     kernel ? kernel : "(null)");
  if (kind == KERNEL_ROW_SUM || kind == KERNEL_TILED_ADD_ONE || kind == KERNEL_GATHER_ROWS) {
    bool fits = num_in == 1 && num_out == 1 && lsim_aval_equal(&avals_in[0], &avals_out[0]);
    int rc = kind == KERNEL_ROW_SUM
                 ? check_row_sum(&avals_in[0], num_in, &avals_out[0], num_out, block, err)
             : kind == KERNEL_GATHER_ROWS
                 ? check_gather_rows(avals_in, num_in, &avals_out[0], num_out, block, err)
                 : check_tiled(fits ? &avals_in[0] : NULL, block, err);
    if (!rc && grid != 1)
      rc = lsim_error_set(err, LSIM_E_INVALID_ARGUMENT,
                          "Pallas kernel '%s': its grid is the blocks' (no grid=)", kernel);
    return rc;
  }
  if (block[0] || block[1])
    return lsim_error_set(err, LSIM_E_INVALID_ARGUMENT,
                          "Pallas kernel '%s' takes the whole array as its block (no block=)",
                          kernel);
  if (num_in != 1 || num_out != 1 || !lsim_aval_equal(&avals_in[0], &avals_out[0]) ||
      avals_in[0].rank != 1 || lsim_aval_size(&avals_in[0]) == 0 ||
      avals_in[0].dtype == LSIM_DTYPE_BOOL)
    return lsim_error_set(err, LSIM_E_INVALID_ARGUMENT,
                     "Pallas kernel '%s' takes one non-empty 1-D numeric array and returns one of "
                     "the same shape and dtype",
                     kernel);
  return LSIM_OK;
}

/* --- building ops --------------------------------------------------------- */

/* Where a kernel's ops go, the prefix of their names (Mosaic's serialized
 * form), and the first failure (later ops are skipped).
 *
 * Mosaic TPU's ops carry the locations JAX gives them (`loc`: the
 * equation's being lowered, set by at_equation).  When they are unzipped
 * (lsimp_kernel_spec's unzip_locations) every op, function and block
 * argument is built at loc(unknown) and its location is listed in `locs`
 * instead, as it is made: the kernel is built front to back, each
 * function's block arguments right after it, so that is the order of a
 * pre-order walk, tpu.private_unzip_debug_locations's. */
typedef struct builder {
  MlirContext mlir;
  lsim_insertion_point at;
  const char *prefix;
  bool cache_evict; /* Triton: tt.load and tt.store carry cache and evict */
  lsim_error *err;
  int rc;
  MlirLocation unknown, loc;
  bool unzip;
  MlirAttribute *locs;
  size_t num_locs, cap_locs;
} builder;

/* The location of what is made next (what `at` builds at, unless unzipped). */
static void at_location(builder *b, MlirLocation loc) {
  b->loc = loc;
  b->at.location = b->unzip ? b->unknown : loc;
}

/* The ops an equation lowers to are at mlir.py source_info_to_location's
 * location, here without a Python frame (the oracle lowers with
 * jax_traceback_in_locations_limit=0): loc("PRIM:"("STACK/PRIM")), or
 * loc("PRIM:"("PRIM")) when the equation's name stack is empty (`stack`
 * NULL).  JAX gives get, swap, reduce_sum and broadcast_in_dim the stack of
 * their own name, add none. */
static void at_equation(builder *b, const char *stack, const char *primitive) {
  char inner[96], outer[64];
  snprintf(inner, sizeof inner, stack ? "%s/%s" : "%s%s", stack ? stack : "", primitive);
  snprintf(outer, sizeof outer, "%s:", primitive);
  MlirLocation eqn = mlirLocationNameGet(b->mlir, mlirStringRefCreateFromCString(inner), b->unknown);
  at_location(b, mlirLocationNameGet(b->mlir, mlirStringRefCreateFromCString(outer), eqn));
}

/* A kernel parameter's location: its name (lowering.py
 * _lower_jaxpr_to_func_common names the refs' block arguments). */
static MlirLocation param_loc(builder *b, const char *name) {
  return mlirLocationNameGet(b->mlir, mlirStringRefCreateFromCString(name), b->unknown);
}

/* Lists `loc` when the locations are unzipped. */
static void made_at(builder *b, MlirLocation loc) {
  if (!b->unzip || b->rc)
    return;
  if (b->num_locs == b->cap_locs &&
      !lsim_grow_array(&b->locs, &b->cap_locs, b->num_locs + 1, sizeof *b->locs)) {
    b->rc = lsimp_fail_oom(b->err);
    return;
  }
  b->locs[b->num_locs++] = mlirLocationGetAttribute(loc);
}

static MlirAttribute parse_attr(builder *b, const char *text) {
  MlirAttribute a = mlirAttributeParseGet(b->mlir, mlirStringRefCreateFromCString(text));
  if (mlirAttributeIsNull(a) && !b->rc)
    b->rc = lsim_error_set(b->err, LSIM_E_VERIFY, "MLIR 19 does not parse the attribute %s", text);
  return a;
}

static MlirType parse_type(builder *b, const char *text) {
  MlirType t = mlirTypeParseGet(b->mlir, mlirStringRefCreateFromCString(text));
  if (mlirTypeIsNull(t) && !b->rc)
    b->rc = lsim_error_set(b->err, LSIM_E_VERIFY, "MLIR 19 does not parse the type %s", text);
  return t;
}

/* An op named prefix + `name` with at most one result. */
static MlirValue op1(builder *b, const char *name, const MlirValue *operands, size_t n,
                     MlirType result, const MlirNamedAttribute *attrs, size_t num_attrs) {
  char full[96];
  snprintf(full, sizeof full, "%s%s", b->prefix, name);
  MlirOperation op = {NULL};
  bool has_result = !mlirTypeIsNull(result);
  if (!b->rc)
    b->rc = lsim_emit_op(&b->at, full, operands, n, has_result ? &result : NULL, has_result,
                         attrs, num_attrs, 0, &op, b->err);
  made_at(b, b->loc);
  return b->rc || !has_result ? (MlirValue){NULL} : mlirOperationGetResult(op, 0);
}

static void op0(builder *b, const char *name, const MlirValue *operands, size_t n,
                const MlirNamedAttribute *attrs, size_t num_attrs) {
  op1(b, name, operands, n, (MlirType){NULL}, attrs, num_attrs);
}

static MlirValue constant(builder *b, MlirAttribute value) {
  MlirNamedAttribute a = lsim_named(b->mlir, "value", value);
  return op1(b, "arith.constant", NULL, 0, mlirAttributeGetType(value), &a, 1);
}

static MlirValue constant_i32(builder *b, int64_t v) {
  return constant(b, mlirIntegerAttrGet(mlirIntegerTypeGet(b->mlir, 32), v));
}

const char *lsimp_kernel_element_type(lsim_dtype dtype) {
  switch (dtype) {
  case LSIM_DTYPE_U8: return "i8";
  case LSIM_DTYPE_U16: return "i16";
  case LSIM_DTYPE_U32: return "i32";
  case LSIM_DTYPE_U64: return "i64";
  default: return lsim_dtype_mlir_name(dtype);
  }
}

static bool is_float(lsim_dtype d) {
  return d == LSIM_DTYPE_F16 || d == LSIM_DTYPE_BF16 || d == LSIM_DTYPE_F32 || d == LSIM_DTYPE_F64;
}

/* The scalar 1 of the element type (`x + 1` in the kernel). */
static MlirValue scalar_one(builder *b, lsim_dtype dtype) {
  MlirType elt = parse_type(b, lsimp_kernel_element_type(dtype));
  if (b->rc)
    return (MlirValue){NULL};
  return constant(b, is_float(dtype) ? mlirFloatAttrDoubleGet(b->mlir, elt, 1.0)
                                     : mlirIntegerAttrGet(elt, 1));
}

/* arith.addf {fastmath = none} or arith.addi {overflowFlags = none}. */
static MlirValue add(builder *b, MlirValue x, MlirValue y, MlirType type, bool is_fp) {
  MlirNamedAttribute flags =
      is_fp ? lsim_named(b->mlir, "fastmath", parse_attr(b, "#arith.fastmath<none>"))
            : lsim_named(b->mlir, "overflowFlags", parse_attr(b, "#arith.overflow<none>"));
  MlirValue operands[] = {x, y};
  return op1(b, is_fp ? "arith.addf" : "arith.addi", operands, 2, type, &flags, 1);
}

static MlirValue muli(builder *b, MlirValue x, MlirValue y, MlirType type) {
  MlirNamedAttribute flags =
      lsim_named(b->mlir, "overflowFlags", parse_attr(b, "#arith.overflow<none>"));
  MlirValue operands[] = {x, y};
  return op1(b, "arith.muli", operands, 2, type, &flags, 1);
}

/* A function (`f->op_name` under the prefix) in the module body, at
 * loc(unknown), its block arguments at `arg_locs` (NULL: unknown); returns
 * its body. */
static MlirBlock add_func(builder *b, MlirBlock module_body, lsim_func *f,
                          const MlirLocation *arg_locs) {
  char name[64];
  snprintf(name, sizeof name, "%s%s", b->prefix, f->op_name);
  f->op_name = name;
  at_location(b, b->unknown);
  if (arg_locs && !b->unzip)
    f->arg_locs = arg_locs;
  lsim_insertion_point module = lsim_insertion_point_in(&b->at, module_body);
  MlirBlock body = {NULL};
  if (!b->rc)
    b->rc = lsim_emit_func(&module, f, NULL, &body, b->err);
  made_at(b, b->unknown);
  for (size_t i = 0; i < f->num_inputs; i++)
    made_at(b, arg_locs ? arg_locs[i] : b->unknown);
  b->at.block = body;
  return body;
}

/* --- Mosaic TPU (the serialized form) ------------------------------------------ */

/* func.func @transform_i(%i: i32) -> i32: the block index map `lambda i:
 * (0,)`: its literal 0 (int64 under jax_enable_x64, and then the result is
 * too), then an i32 0 that goes unused.  Tiled: `lambda i, j: (i, j)`
 * returns the grid indices, after the unused i32 0. */
static void add_transform(builder *b, MlirBlock module_body, int i, bool x64, bool tiled) {
  MlirType i32 = mlirIntegerTypeGet(b->mlir, 32);
  MlirType index = mlirIntegerTypeGet(b->mlir, x64 ? 64 : 32);
  MlirType pair[] = {i32, i32};
  char name[32];
  snprintf(name, sizeof name, "transform_%d", i);
  lsim_func f = {.op_name = "func.func", .name = name, .inputs = tiled ? pair : &i32,
                 .num_inputs = tiled ? 2 : 1, .results = tiled ? pair : &index,
                 .num_results = tiled ? 2 : 1};
  MlirBlock body = add_func(b, module_body, &f, NULL);
  if (tiled) {
    constant_i32(b, 0);
    if (b->rc)
      return;
    MlirValue ij[] = {mlirBlockGetArgument(body, 0), mlirBlockGetArgument(body, 1)};
    op0(b, "func.return", ij, 2, NULL, 0);
    return;
  }
  MlirValue zero = constant(b, mlirIntegerAttrGet(index, 0));
  constant_i32(b, 0);
  op0(b, "func.return", &zero, 1, NULL, 0);
}

/* The Mosaic kernel's func.func: its grid indices, scalar-prefetch refs
 * and refs as `inputs`, a TensorCore kernel over `grid_rank` arbitrary grid
 * dimensions of `bounds`, `scalar_prefetch` prefetched operands, no
 * scratch, the `window_params` given as text; returns its body.  The refs'
 * arguments are at the kernel's parameter names: idx_ref (the prefetched
 * one), x_ref, o_ref. */
static MlirBlock mosaic_kernel_func(builder *b, MlirBlock module_body,
                                    const lsimp_kernel_spec *spec, const MlirType *inputs,
                                    size_t num_inputs, int grid_rank, MlirAttribute bounds,
                                    int64_t scalar_prefetch, const char *window_params) {
  MlirContext mlir = b->mlir;
  static const char *const refs[] = {"idx_ref", "x_ref", "o_ref"};
  MlirLocation arg_locs[4]; /* the library's kernels: at most 4 inputs */
  size_t first_ref = (size_t)grid_rank, skipped = scalar_prefetch ? 0 : 1;
  for (size_t i = 0; i < num_inputs && i < 4; i++)
    arg_locs[i] = i < first_ref ? b->unknown : param_loc(b, refs[i - first_ref + skipped]);
  MlirType i64 = mlirIntegerTypeGet(mlir, 64);
  MlirNamedAttribute extra[] = {
      lsim_named(mlir, "dimension_semantics",
                 parse_attr(b, grid_rank == 2 ? "[#tpu.dimension_semantics<arbitrary>, "
                                                "#tpu.dimension_semantics<arbitrary>]"
                                              : "[#tpu.dimension_semantics<arbitrary>]")),
      lsim_named(mlir, "iteration_bounds", bounds),
      lsim_named(mlir, "scalar_prefetch", mlirIntegerAttrGet(i64, scalar_prefetch)),
      lsim_named(mlir, "scratch_operands", mlirIntegerAttrGet(i64, 0)),
      lsim_named(mlir, "tpu.core_type", parse_attr(b, "#tpu.core_type<tc>")),
      lsim_named(mlir, "window_params", parse_attr(b, window_params)),
  };
  lsim_func f = {.op_name = "func.func", .name = spec->func_name, .inputs = inputs,
                 .num_inputs = num_inputs, .extra = extra, .num_extra = 6};
  return add_func(b, module_body, &f, arg_locs);
}

/* func.func @transform_i(%i: i32[, %idx_ref]) -> (i32, i32): `lambda i:
 * (i, 0)`: the literal 0 (int64 under jax_enable_x64, and then the result
 * is too), an unused i32 0, then (i, 0).  With the scalar-prefetch ref
 * `idx_ref` (SMEM, of type `prefetch`), the index maps take it after the
 * grid index; `gather`: `lambda i, idx_ref: (idx_ref[i], 0)`, whose get is
 * the index cast and memref.load before the literal. */
static void add_row_transform(builder *b, MlirBlock module_body, int i, bool x64,
                              MlirType prefetch, bool gather) {
  MlirType i32 = mlirIntegerTypeGet(b->mlir, 32);
  MlirType literal = mlirIntegerTypeGet(b->mlir, x64 ? 64 : 32);
  bool has_prefetch = !mlirTypeIsNull(prefetch);
  MlirType inputs[] = {i32, prefetch};
  MlirType results[] = {gather ? mlirShapedTypeGetElementType(prefetch) : i32, literal};
  char name[32];
  snprintf(name, sizeof name, "transform_%d", i);
  lsim_func f = {.op_name = "func.func", .name = name, .inputs = inputs,
                 .num_inputs = has_prefetch ? 2 : 1, .results = results, .num_results = 2};
  MlirBlock body = add_func(b, module_body, &f, NULL);
  if (b->rc)
    return;
  MlirValue first = mlirBlockGetArgument(body, 0);
  if (gather) { /* idx_ref[i] */
    at_equation(b, "get", "get");
    MlirValue at = op1(b, "arith.index_cast", &first, 1, mlirIndexTypeGet(b->mlir), NULL, 0);
    MlirValue load[] = {mlirBlockGetArgument(body, 1), at};
    first = op1(b, "memref.load", load, 2, results[0], NULL, 0);
    at_location(b, b->unknown); /* the literal's constants are no equation's */
  }
  MlirValue zero = constant(b, mlirIntegerAttrGet(literal, 0));
  constant_i32(b, 0);
  if (b->rc)
    return;
  MlirValue result[] = {first, zero};
  op0(b, "func.return", result, 2, NULL, 0);
}

/* The Mosaic module's own attributes: its name, the kernel function's
 * (lowering.py lower_jaxpr_to_pipelined_module, from JAX 0.12.0:
 * lsimp_kernel_spec's module_sym_name), and the stable_mosaic.version
 * mosaic-serde writes. */
static void name_mosaic_module(builder *b, MlirModule module, const lsimp_kernel_spec *spec) {
  MlirOperation op = mlirModuleGetOperation(module);
  if (spec->module_sym_name)
    mlirOperationSetAttributeByName(op, mlirStringRefCreateFromCString("sym_name"),
                                    lsim_string_attr(b->mlir, spec->func_name));
  mlirOperationSetAttributeByName(
      op, mlirStringRefCreateFromCString("stable_mosaic.version"),
      mlirIntegerAttrGet(mlirIntegerTypeGet(b->mlir, 64), spec->mosaic_version));
}

/* row_sum: `o_ref[...] = jnp.sum(x_ref[...], axis=1, keepdims=True)`: the
 * block's load (shape_cast to itself when the operand carries the abstract
 * mesh), vector.multi_reduction <add> over dimension 1 from a zero
 * accumulator, the shape_cast keepdims makes, the swap of the (rows, 1)
 * output block. */
static void build_mosaic_tpu_row_sum(builder *b, MlirModule module,
                                     const lsimp_kernel_spec *spec) {
  MlirContext mlir = b->mlir;
  const lsim_aval *array = spec->block;
  int64_t rows = spec->tile[0], cols = spec->tile[1];
  int64_t in_dims[2] = {rows, cols}, out_dims[2] = {rows, 1};
  bool fp = is_float(array->dtype);
  const char *elt = lsimp_kernel_element_type(array->dtype);
  char text[400];
  MlirAttribute vmem = parse_attr(b, "#tpu.memory_space<vmem>");
  MlirType elt_type = parse_type(b, elt);
  if (b->rc)
    return;
  MlirType in_ref = mlirMemRefTypeGet(elt_type, 2, in_dims, (MlirAttribute){NULL}, vmem);
  MlirType out_ref = mlirMemRefTypeGet(elt_type, 2, out_dims, (MlirAttribute){NULL}, vmem);
  MlirType in_vec = mlirVectorTypeGet(2, in_dims, elt_type);
  MlirType out_vec = mlirVectorTypeGet(2, out_dims, elt_type);
  MlirType acc_vec = mlirVectorTypeGet(1, &rows, elt_type);
  MlirType i32 = mlirIntegerTypeGet(mlir, 32);
  MlirType inputs[] = {i32, in_ref, out_ref};
  snprintf(text, sizeof text, "array<i64: %lld>", (long long)(array->dims[0] / rows));
  MlirAttribute bounds = parse_attr(b, text);
  snprintf(text, sizeof text,
           "[{transform_indices = @transform_0, window_bounds = array<i64: %lld, %lld>}, "
           "{transform_indices = @transform_1, window_bounds = array<i64: %lld, 1>}]",
           (long long)rows, (long long)cols, (long long)rows);
  MlirBlock module_body = mlirModuleGetBody(module);
  MlirBlock body = mosaic_kernel_func(b, module_body, spec, inputs, 3, 1, bounds, 0, text);
  if (b->rc)
    return;
  MlirValue x_ref = mlirBlockGetArgument(body, 1), o_ref = mlirBlockGetArgument(body, 2);
  MlirType index = mlirIndexTypeGet(mlir);
  at_equation(b, "get", "get");
  MlirValue at[] = {x_ref, constant(b, mlirIntegerAttrGet(index, 0)),
                    constant(b, mlirIntegerAttrGet(index, 0))};
  MlirValue x = op1(b, "vector.load", at, 3, in_vec, NULL, 0);
  if (spec->mesh_operand) /* as the other kernels' load */
    x = op1(b, "vector.shape_cast", &x, 1, in_vec, NULL, 0);
  snprintf(text, sizeof text, fp ? "dense<0.000000e+00> : vector<%lldx%s>"
                                 : "dense<0> : vector<%lldx%s>",
           (long long)rows, elt);
  at_equation(b, "reduce_sum", "reduce_sum");
  MlirValue zero = constant(b, parse_attr(b, text));
  MlirNamedAttribute reduce_attrs[] = {
      lsim_named(mlir, "kind", parse_attr(b, "#vector.kind<add>")),
      lsim_named(mlir, "reduction_dims", parse_attr(b, "array<i64: 1>")),
  };
  MlirValue operands[] = {x, zero};
  MlirValue sum = op1(b, "vector.multi_reduction", operands, 2, acc_vec, reduce_attrs, 2);
  at_equation(b, "broadcast_in_dim", "broadcast_in_dim"); /* keepdims */
  MlirValue y = op1(b, "vector.shape_cast", &sum, 1, out_vec, NULL, 0);
  at_equation(b, "swap", "swap");
  MlirValue out_at[] = {o_ref, constant(b, mlirIntegerAttrGet(index, 0)),
                        constant(b, mlirIntegerAttrGet(index, 0))};
  op1(b, "vector.load", out_at, 3, out_vec, NULL, 0);
  MlirNamedAttribute store_attrs[] = {
      lsim_named(mlir, "add", mlirBoolAttrGet(mlir, 0)),
      lsim_named(mlir, "operandSegmentSizes", parse_attr(b, "array<i32: 1, 1, 2, 0>")),
      lsim_named(mlir, "strides", parse_attr(b, "array<i32>")),
  };
  MlirValue store[] = {y, o_ref, out_at[1], out_at[2]};
  op0(b, "tpu.vector_store", store, 4, store_attrs, 3);
  at_location(b, b->unknown);
  op0(b, "func.return", NULL, 0, NULL, 0);
  add_row_transform(b, module_body, 0, false, (MlirType){NULL}, false);
  add_row_transform(b, module_body, 1, false, (MlirType){NULL}, false);
  name_mosaic_module(b, module, spec);
}

/* add_one and copy (the whole 1-D array), tiled_add_one (2-D blocks over a
 * 2-D grid) and gather_rows (whole-row blocks over a 1-D grid, the input's
 * block index read from the scalar-prefetch ref in SMEM). */
static void build_mosaic_tpu_kernel(builder *b, MlirModule module, kernel_kind kind,
                                    const lsimp_kernel_spec *spec) {
  MlirContext mlir = b->mlir;
  const lsim_aval *block = spec->block;
  if (kind == KERNEL_ROW_SUM) {
    build_mosaic_tpu_row_sum(b, module, spec);
    return;
  }
  bool tiled = kind == KERNEL_TILED_ADD_ONE, gather = kind == KERNEL_GATHER_ROWS;
  int rank = tiled || gather ? 2 : 1, grid_rank = tiled ? 2 : 1, num_prefetch = gather;
  int64_t dims[2] = {block->dims[0], rank == 2 ? block->dims[1] : 0};
  int64_t grid[2] = {spec->grid, 1};
  if (rank == 2) { /* the block, and the grid it makes over the array */
    dims[0] = spec->tile[0];
    dims[1] = spec->tile[1];
    grid[0] = block->dims[0] / dims[0];
    grid[1] = block->dims[1] / dims[1];
  }
  char text[400], window[64];
  const char *elt = lsimp_kernel_element_type(block->dtype);
  MlirAttribute vmem = parse_attr(b, "#tpu.memory_space<vmem>");
  MlirType elt_type = parse_type(b, elt);
  MlirType prefetch = {NULL};
  if (gather && spec->prefetch) { /* the index array, whole, in SMEM */
    MlirAttribute smem = parse_attr(b, "#tpu.memory_space<smem>");
    MlirType idx_type = parse_type(b, lsimp_kernel_element_type(spec->prefetch->dtype));
    if (b->rc)
      return;
    prefetch = mlirMemRefTypeGet(idx_type, 1, spec->prefetch->dims, (MlirAttribute){NULL}, smem);
  }
  if (b->rc)
    return;
  MlirType memref = mlirMemRefTypeGet(elt_type, rank, dims, (MlirAttribute){NULL}, vmem);
  MlirType vector = mlirVectorTypeGet(rank, dims, elt_type);
  MlirType i32 = mlirIntegerTypeGet(mlir, 32);
  MlirType inputs[4] = {i32};
  size_t num_inputs = 0;
  for (int d = 0; d < grid_rank; d++)
    inputs[num_inputs++] = i32;
  if (num_prefetch)
    inputs[num_inputs++] = prefetch;
  inputs[num_inputs++] = memref;
  inputs[num_inputs++] = memref;
  if (rank == 2)
    snprintf(window, sizeof window, "%lld, %lld", (long long)dims[0], (long long)dims[1]);
  else
    snprintf(window, sizeof window, "%lld", (long long)dims[0]);
  snprintf(text, sizeof text, grid_rank == 2 ? "array<i64: %lld, %lld>" : "array<i64: %lld>",
           (long long)grid[0], (long long)grid[1]);
  MlirAttribute bounds = parse_attr(b, text);
  /* A trivial window (the whole array, index map all zeros) is single-buffered:
   * pipeline_mode synchronous; a blocked one has none. */
  const char *mode = rank == 2 ? "" : "pipeline_mode = #tpu.pipeline_mode<synchronous>, ";
  snprintf(text, sizeof text,
           "[{%stransform_indices = @transform_0, window_bounds = array<i64: %s>}, {%s"
           "transform_indices = @transform_1, window_bounds = array<i64: %s>}]",
           mode, window, mode, window);
  MlirBlock module_body = mlirModuleGetBody(module);
  MlirBlock body = mosaic_kernel_func(b, module_body, spec, inputs, num_inputs, grid_rank, bounds,
                                      num_prefetch, text);
  if (b->rc)
    return;
  intptr_t first_ref = grid_rank + num_prefetch;
  MlirValue x_ref = mlirBlockGetArgument(body, first_ref);
  MlirValue o_ref = mlirBlockGetArgument(body, first_ref + 1);
  MlirType index = mlirIndexTypeGet(mlir);
  /* x_ref[...]: get, at index 0 in each dimension */
  at_equation(b, "get", "get");
  MlirValue at[3] = {x_ref};
  for (int d = 0; d < rank; d++)
    at[1 + d] = constant(b, mlirIntegerAttrGet(index, 0));
  MlirValue y = op1(b, "vector.load", at, 1 + (size_t)rank, vector, NULL, 0);
  if (spec->mesh_operand) /* load_aval != aval_out: the ref's aval has the mesh */
    y = op1(b, "vector.shape_cast", &y, 1, vector, NULL, 0);
  if (kind != KERNEL_COPY && !gather) { /* + 1: the scalar broadcast */
    at_equation(b, NULL, "add");
    MlirValue one = scalar_one(b, block->dtype);
    MlirValue ones = op1(b, "vector.broadcast", &one, 1, vector, NULL, 0);
    y = add(b, y, ones, vector, is_float(block->dtype));
  }
  /* o_ref[...] = y: swap, whose load of the old value goes unused */
  at_equation(b, "swap", "swap");
  MlirValue out_at[3] = {o_ref};
  for (int d = 0; d < rank; d++)
    out_at[1 + d] = constant(b, mlirIntegerAttrGet(index, 0));
  op1(b, "vector.load", out_at, 1 + (size_t)rank, vector, NULL, 0);
  MlirNamedAttribute store_attrs[] = {
      lsim_named(mlir, "add", mlirBoolAttrGet(mlir, 0)),
      lsim_named(mlir, "operandSegmentSizes",
                 parse_attr(b, rank == 2 ? "array<i32: 1, 1, 2, 0>" : "array<i32: 1, 1, 1, 0>")),
      lsim_named(mlir, "strides", parse_attr(b, "array<i32>")),
  };
  MlirValue store[] = {y, o_ref, out_at[1], out_at[2]};
  op0(b, "tpu.vector_store", store, 2 + (size_t)rank, store_attrs, 3);
  at_location(b, b->unknown);
  op0(b, "func.return", NULL, 0, NULL, 0);
  if (gather) { /* lambda i, idx_ref: (idx_ref[i], 0), then lambda i, idx_ref: (i, 0) */
    add_row_transform(b, module_body, 0, spec->x64, prefetch, true);
    add_row_transform(b, module_body, 1, spec->x64, prefetch, false);
  } else {
    add_transform(b, module_body, 0, spec->x64, tiled);
    add_transform(b, module_body, 1, spec->x64, tiled);
  }
  name_mosaic_module(b, module, spec);
}

/* --- Triton ------------------------------------------------------------------- */

/* The offsets of a block's elements, as _compute_offsets_from_indices
 * computes them: (make_range + block start) * stride 1 + 0. */
static MlirValue block_offsets(builder *b, MlirValue start, MlirType offsets_type, int64_t n) {
  MlirType i32 = mlirIntegerTypeGet(b->mlir, 32);
  MlirValue zero = constant_i32(b, 0);
  MlirValue base = op1(b, "tt.splat", &zero, 1, offsets_type, NULL, 0);
  MlirNamedAttribute range[] = {
      lsim_named(b->mlir, "end", mlirIntegerAttrGet(i32, n)),
      lsim_named(b->mlir, "start", mlirIntegerAttrGet(i32, 0)),
  };
  MlirValue iota = op1(b, "tt.make_range", NULL, 0, offsets_type, range, 2);
  MlirValue starts = op1(b, "tt.splat", &start, 1, offsets_type, NULL, 0);
  MlirValue indices = add(b, iota, starts, offsets_type, false);
  MlirValue one = constant_i32(b, 1);
  MlirValue strides = op1(b, "tt.splat", &one, 1, offsets_type, NULL, 0);
  MlirValue scaled = muli(b, indices, strides, offsets_type);
  return add(b, base, scaled, offsets_type, false);
}

/* tt.load of the block at `base` + `offsets`; *ptrs receives the pointers.
 * lowering.py _load (and _store) give jaxlib's Triton dialect
 * CacheModifier.NONE and EvictionPolicy.NORMAL: as the ops' cache = 1 and
 * evict = 1, or (a dialect with cache_policy, from 0.12.0) through
 * _get_cache_policy, which gives no attribute for those two
 * (b->cache_evict: the profile's pallas_triton_cache_evict). */
static MlirValue block_load(builder *b, MlirValue base, MlirValue offsets, MlirType ptrs_type,
                            MlirType values_type, MlirValue *ptrs) {
  MlirValue splat = op1(b, "tt.splat", &base, 1, ptrs_type, NULL, 0);
  MlirValue addr[] = {splat, offsets};
  *ptrs = op1(b, "tt.addptr", addr, 2, ptrs_type, NULL, 0);
  MlirType i32 = mlirIntegerTypeGet(b->mlir, 32);
  MlirNamedAttribute attrs[] = {
      lsim_named(b->mlir, "cache", mlirIntegerAttrGet(i32, 1)),
      lsim_named(b->mlir, "evict", mlirIntegerAttrGet(i32, 1)),
      lsim_named(b->mlir, "isVolatile", mlirBoolAttrGet(b->mlir, 0)),
      lsim_named(b->mlir, "operandSegmentSizes", parse_attr(b, "array<i32: 1, 0, 0>")),
  };
  /* Without cache and evict: the dialect's cache_policy, unset. */
  size_t skip = b->cache_evict ? 0 : 2;
  return op1(b, "tt.load", ptrs, 1, values_type, attrs + skip, 4 - skip);
}

/* A block's first element: its index (0) times its size. */
static MlirValue block_start(builder *b, int64_t n) {
  MlirValue index = constant_i32(b, 0);
  MlirValue size = constant_i32(b, n);
  return muli(b, index, size, mlirIntegerTypeGet(b->mlir, 32));
}

/* A Triton kernel's types for blocks of `shape` ("8x128"): the element
 * pointer, and the block's pointers, i32 offsets and values. */
typedef struct triton_types {
  MlirType ptr, ptrs, offsets, values;
} triton_types;

static triton_types make_triton_types(builder *b, const char *shape, lsim_dtype dtype) {
  const char *elt = lsimp_kernel_element_type(dtype);
  char text[160];
  triton_types t;
  snprintf(text, sizeof text, "!tt.ptr<%s>", elt);
  t.ptr = parse_type(b, text);
  snprintf(text, sizeof text, "tensor<%sx!tt.ptr<%s>>", shape, elt);
  t.ptrs = parse_type(b, text);
  snprintf(text, sizeof text, "tensor<%sxi32>", shape);
  t.offsets = parse_type(b, text);
  snprintf(text, sizeof text, "tensor<%sx%s>", shape, elt);
  t.values = parse_type(b, text);
  return t;
}

/* The swap of `y` into the output block (its old value loaded, unused,
 * then `y` stored), and the function's return. */
static void swap_and_return(builder *b, MlirValue out, MlirValue offsets, MlirType ptrs_type,
                            MlirType values_type, MlirValue y) {
  MlirValue out_ptrs;
  block_load(b, out, offsets, ptrs_type, values_type, &out_ptrs);
  MlirType i32 = mlirIntegerTypeGet(b->mlir, 32);
  MlirNamedAttribute store_attrs[] = {
      lsim_named(b->mlir, "cache", mlirIntegerAttrGet(i32, 1)),
      lsim_named(b->mlir, "evict", mlirIntegerAttrGet(i32, 1)),
  };
  MlirValue store[] = {out_ptrs, y};
  op0(b, "tt.store", store, 2, store_attrs, b->cache_evict ? 2 : 0);
  op0(b, "tt.return", NULL, 0, NULL, 0);
}

/* The Triton module named after the kernel, and its public tt.func over
 * two pointers of divisibility 32; returns the function's body. */
static MlirBlock triton_func(builder *b, MlirModule module, const lsimp_kernel_spec *spec,
                             MlirType ptr) {
  MlirContext mlir = b->mlir;
  MlirType i32 = mlirIntegerTypeGet(mlir, 32);
  mlirOperationSetAttributeByName(mlirModuleGetOperation(module),
                                  mlirStringRefCreateFromCString("sym_name"),
                                  lsim_string_attr(mlir, spec->func_name));
  MlirNamedAttribute divisibility =
      lsim_named(mlir, "tt.divisibility", mlirIntegerAttrGet(i32, 32));
  MlirAttribute arg_attr = mlirDictionaryAttrGet(mlir, 1, &divisibility);
  MlirType inputs[] = {ptr, ptr};
  MlirAttribute arg_attrs[] = {arg_attr, arg_attr};
  lsim_func f = {.op_name = "tt.func", .name = spec->func_name, .visibility = "public",
                 .inputs = inputs, .num_inputs = 2, .arg_attrs = arg_attrs};
  return add_func(b, mlirModuleGetBody(module), &f, NULL);
}

/* What every Triton kernel starts with: the types of its input blocks of
 * `shape` ("8x128") into *t, the module and its tt.func; returns the
 * function's body (null after a failure). */
static MlirBlock triton_begin(builder *b, MlirModule module, const lsimp_kernel_spec *spec,
                              const char *shape, triton_types *t) {
  *t = make_triton_types(b, shape, spec->block->dtype);
  return b->rc ? (MlirBlock){NULL} : triton_func(b, module, spec, t->ptr);
}

static int collapsed_axes(const int64_t *steps, int rank) {
  /* num_collapse starts at rank - 2 (the axes before the last two) */
  int collapse = rank > 2 ? rank - 2 : 0;
  if (collapse + 1 < rank && steps[collapse + 1] > LSIMP_TRITON_YZ_LIMIT)
    collapse += 2;
  else if (collapse < rank && steps[collapse] > LSIMP_TRITON_YZ_LIMIT)
    collapse += 1;
  return collapse;
}

int lsimp_triton_launch_grid(const int64_t *steps, int rank, int64_t launch[2]) {
  int collapse = collapsed_axes(steps, rank), n = 0;
  if (collapse) {
    int64_t product = 1;
    for (int d = 0; d < collapse; d++)
      product = product > INT64_MAX / (steps[d] ? steps[d] : 1) ? INT64_MAX : product * steps[d];
    launch[n++] = product;
  }
  for (int d = collapse; d < rank && n < 2; d++)
    launch[n++] = steps[d];
  return collapse;
}

/* _program_id of a grid axis of `steps`: the constant 0 for one step. */
static MlirValue program_id(builder *b, int64_t steps, int axis) {
  MlirType i32 = mlirIntegerTypeGet(b->mlir, 32);
  MlirNamedAttribute attr = lsim_named(b->mlir, "axis", mlirIntegerAttrGet(i32, axis));
  return steps == 1 ? constant_i32(b, 0) : op1(b, "tt.get_program_id", NULL, 0, i32, &attr, 1);
}

/* _process_grid_to_3d_grid for a grid of `rank` (1 or 2) axes of `steps`:
 * the pallas grid's program ids into `ids`.  The last launch axis, then the
 * one before, must fit the y/z limit, else the axes from the first through
 * it are collapsed into launch axis 0, each index recovered from its
 * program id with remui and the rest passed on with divui.  The launch grid
 * is lsimp_triton_launch_grid's. */
static void triton_program_ids(builder *b, const int64_t *steps, int rank, MlirValue *ids) {
  MlirType i32 = mlirIntegerTypeGet(b->mlir, 32);
  int64_t launch[2];
  int collapse = lsimp_triton_launch_grid(steps, rank, launch);
  if (collapse) {
    MlirValue grid0 = program_id(b, launch[0], 0);
    for (int d = 0; d < collapse; d++) {
      MlirValue operands[] = {grid0, constant_i32(b, steps[d])};
      ids[d] = op1(b, "arith.remui", operands, 2, i32, NULL, 0);
      grid0 = op1(b, "arith.divui", operands, 2, i32, NULL, 0);
    }
  }
  /* The other axes: launch axes 1, ... after a collapse, else 0, ... */
  for (int d = collapse, axis = collapse ? 1 : 0; d < rank; d++, axis++)
    ids[d] = program_id(b, launch[axis], axis);
}

static void build_triton_kernel(builder *b, MlirModule module, kernel_kind kind,
                                const lsimp_kernel_spec *spec) {
  const lsim_aval *block = spec->block;
  char text[64];
  long long n = (long long)block->dims[0];
  snprintf(text, sizeof text, "%lld", n);
  triton_types t;
  MlirBlock body = triton_begin(b, module, spec, text, &t);
  if (b->rc)
    return;
  /* _process_grid_to_3d_grid: one program id (which the index map `lambda
   * i: (0,)` leaves unused); a grid above the y/z limit is collapsed. */
  MlirValue pid;
  triton_program_ids(b, &spec->grid, 1, &pid);
  (void)pid;
  /* The index maps: block index 0 times the block size, input then output. */
  MlirValue in_start = block_start(b, n), out_start = block_start(b, n);
  MlirValue in_ptrs;
  MlirValue in_offsets = block_offsets(b, in_start, t.offsets, n);
  MlirValue x =
      block_load(b, mlirBlockGetArgument(body, 0), in_offsets, t.ptrs, t.values, &in_ptrs);
  MlirValue y = x;
  if (kind != KERNEL_COPY) {
    MlirValue one = scalar_one(b, block->dtype);
    MlirValue ones = op1(b, "tt.splat", &one, 1, t.values, NULL, 0);
    y = add(b, x, ones, t.values, is_float(block->dtype));
  }
  /* The swap: the old value is loaded, then the new one stored. */
  MlirValue out_offsets = block_offsets(b, out_start, t.offsets, n);
  swap_and_return(b, mlirBlockGetArgument(body, 1), out_offsets, t.ptrs, t.values, y);
}

/* The offsets of a 2-D block's elements: (row range + row start) * cols +
 * (col range + col start) * 1, each range expanded and broadcast to the
 * block (_compute_offsets_from_indices over two dimensions; _bcast_to makes
 * no broadcast where the expanded range already has the block's shape). */
static MlirValue tiled_offsets(builder *b, MlirValue starts[2], MlirType offsets_type,
                               const int64_t tile[2], int64_t cols) {
  MlirContext mlir = b->mlir;
  MlirType i32 = mlirIntegerTypeGet(mlir, 32);
  MlirValue zero = constant_i32(b, 0);
  MlirValue acc = op1(b, "tt.splat", &zero, 1, offsets_type, NULL, 0);
  int64_t strides[2] = {cols, 1};
  for (int d = 0; d < 2; d++) {
    char text[64];
    snprintf(text, sizeof text, "tensor<%lldxi32>", (long long)tile[d]);
    MlirType range_type = parse_type(b, text);
    snprintf(text, sizeof text, d == 0 ? "tensor<%lldx1xi32>" : "tensor<1x%lldxi32>",
             (long long)tile[d]);
    MlirType expanded_type = parse_type(b, text);
    if (b->rc)
      return (MlirValue){NULL};
    MlirNamedAttribute range[] = {
        lsim_named(mlir, "end", mlirIntegerAttrGet(i32, tile[d])),
        lsim_named(mlir, "start", mlirIntegerAttrGet(i32, 0)),
    };
    MlirValue iota = op1(b, "tt.make_range", NULL, 0, range_type, range, 2);
    MlirNamedAttribute axis = lsim_named(mlir, "axis", mlirIntegerAttrGet(i32, d == 0 ? 1 : 0));
    MlirValue wide = op1(b, "tt.expand_dims", &iota, 1, expanded_type, &axis, 1);
    if (tile[1 - d] != 1)
      wide = op1(b, "tt.broadcast", &wide, 1, offsets_type, NULL, 0);
    MlirValue start = op1(b, "tt.splat", &starts[d], 1, offsets_type, NULL, 0);
    MlirValue indices = add(b, wide, start, offsets_type, false);
    MlirValue stride = constant_i32(b, strides[d]);
    MlirValue stride_splat = op1(b, "tt.splat", &stride, 1, offsets_type, NULL, 0);
    MlirValue scaled = muli(b, indices, stride_splat, offsets_type);
    acc = add(b, acc, scaled, offsets_type, false);
  }
  return acc;
}

/* Triton's tiled_add_one: a program id per grid axis (the constant 0 for
 * an axis of one step), each ref's block start (index times block size per
 * dimension, input then output), the block's load, + 1, the swap's load
 * and store. */
static void build_triton_tiled(builder *b, MlirModule module, const lsimp_kernel_spec *spec) {
  const lsim_aval *array = spec->block;
  char text[64];
  snprintf(text, sizeof text, "%lldx%lld", (long long)spec->tile[0], (long long)spec->tile[1]);
  triton_types t;
  MlirBlock body = triton_begin(b, module, spec, text, &t);
  MlirType i32 = mlirIntegerTypeGet(b->mlir, 32);
  if (b->rc)
    return;
  MlirValue pid[2];
  const int64_t steps[2] = {array->dims[0] / spec->tile[0], array->dims[1] / spec->tile[1]};
  triton_program_ids(b, steps, 2, pid);
  MlirValue starts[2][2];
  for (int ref = 0; ref < 2; ref++)
    for (int d = 0; d < 2; d++) {
      MlirValue size = constant_i32(b, spec->tile[d]);
      starts[ref][d] = muli(b, pid[d], size, i32);
    }
  MlirValue in_offsets = tiled_offsets(b, starts[0], t.offsets, spec->tile, array->dims[1]);
  MlirValue in_ptrs;
  MlirValue x =
      block_load(b, mlirBlockGetArgument(body, 0), in_offsets, t.ptrs, t.values, &in_ptrs);
  MlirValue one = scalar_one(b, array->dtype);
  MlirValue ones = op1(b, "tt.splat", &one, 1, t.values, NULL, 0);
  MlirValue y = add(b, x, ones, t.values, is_float(array->dtype));
  MlirValue out_offsets = tiled_offsets(b, starts[1], t.offsets, spec->tile, array->dims[1]);
  swap_and_return(b, mlirBlockGetArgument(body, 1), out_offsets, t.ptrs, t.values, y);
}

/* Triton's row_sum: one program id, each ref's index map `lambda i: (i,
 * 0)` (its literal 0, then index times block size per dimension, input
 * then output), the (rows, cols) block's load, tt.reduce over axis 1 (a
 * region adding two scalars), the tt.expand_dims keepdims makes, the swap
 * of the (rows, 1) output block (its row stride 1). */
static void build_triton_row_sum(builder *b, MlirModule module, const lsimp_kernel_spec *spec) {
  MlirContext mlir = b->mlir;
  const lsim_aval *array = spec->block;
  int64_t rows = spec->tile[0], cols = spec->tile[1];
  const int64_t out_tile[2] = {rows, 1};
  bool fp = is_float(array->dtype);
  char text[64];
  snprintf(text, sizeof text, "%lldx%lld", (long long)rows, (long long)cols);
  triton_types t, o;
  MlirBlock body = triton_begin(b, module, spec, text, &t);
  snprintf(text, sizeof text, "%lldx1", (long long)rows);
  o = make_triton_types(b, text, array->dtype);
  snprintf(text, sizeof text, "tensor<%lldx%s>", (long long)rows,
           lsimp_kernel_element_type(array->dtype));
  MlirType sum_type = parse_type(b, text);
  MlirType elt = parse_type(b, lsimp_kernel_element_type(array->dtype));
  MlirType i32 = mlirIntegerTypeGet(mlir, 32);
  if (b->rc)
    return;
  MlirValue pid;
  const int64_t steps = array->dims[0] / rows;
  triton_program_ids(b, &steps, 1, &pid);
  const int64_t sizes[2][2] = {{rows, cols}, {rows, 1}};
  MlirValue starts[2][2];
  for (int ref = 0; ref < 2; ref++) {
    MlirValue index[2] = {pid, constant_i32(b, 0)};
    for (int d = 0; d < 2; d++)
      starts[ref][d] = muli(b, index[d], constant_i32(b, sizes[ref][d]), i32);
  }
  MlirValue in_offsets = tiled_offsets(b, starts[0], t.offsets, spec->tile, array->dims[1]);
  MlirValue in_ptrs;
  MlirValue x =
      block_load(b, mlirBlockGetArgument(body, 0), in_offsets, t.ptrs, t.values, &in_ptrs);
  /* jnp.sum(..., axis=1): tt.reduce whose region adds its two arguments */
  MlirNamedAttribute axis = lsim_named(mlir, "axis", mlirIntegerAttrGet(i32, 1));
  MlirOperation reduce = {NULL};
  if (!b->rc)
    b->rc = lsim_emit_op(&b->at, "tt.reduce", &x, 1, &sum_type, 1, &axis, 1, 1, &reduce, b->err);
  if (b->rc)
    return;
  MlirBlock combine = mlirRegionGetFirstBlock(mlirOperationGetRegion(reduce, 0));
  MlirLocation loc = mlirLocationUnknownGet(mlir);
  MlirValue lhs = mlirBlockAddArgument(combine, elt, loc);
  MlirValue rhs = mlirBlockAddArgument(combine, elt, loc);
  builder inner = *b;
  inner.at = lsim_insertion_point_in(&b->at, combine);
  MlirValue total = add(&inner, lhs, rhs, elt, fp);
  op0(&inner, "tt.reduce.return", &total, 1, NULL, 0);
  b->rc = inner.rc;
  MlirValue sum = mlirOperationGetResult(reduce, 0);
  MlirValue y = op1(b, "tt.expand_dims", &sum, 1, o.values, &axis, 1);
  MlirValue out_offsets = tiled_offsets(b, starts[1], o.offsets, out_tile, 1);
  swap_and_return(b, mlirBlockGetArgument(body, 1), out_offsets, o.ptrs, o.values, y);
}

MlirContext lsimp_kernel_context(void) {
  MlirContext mlir = mlirContextCreateWithThreading(false);
  mlirContextSetAllowUnregisteredDialects(mlir, true);
  return mlir;
}

/* tpu.private_unzip_debug_locations's module: empty, at loc(unknown),
 * `tpu.locs` the kernel's locations in `b`'s order. */
static MlirModule locations_module(builder *b) {
  MlirModule module = mlirModuleCreateEmpty(b->unknown);
  mlirOperationSetAttributeByName(mlirModuleGetOperation(module),
                                  mlirStringRefCreateFromCString("tpu.locs"),
                                  mlirArrayAttrGet(b->mlir, (intptr_t)b->num_locs, b->locs));
  return module;
}

int lsimp_pallas_build_kernel(MlirContext mlir, const lsimp_kernel_spec *in, MlirModule *out,
                              MlirModule *locations, lsim_error *err) {
  kernel_kind kind;
  if (locations)
    *locations = (MlirModule){NULL};
  lsimp_kernel_spec named = in ? *in : (lsimp_kernel_spec){0};
  if (!named.func_name)
    named.func_name = named.kernel;
  const lsimp_kernel_spec *spec = in ? &named : NULL;
  const lsim_aval *block = spec ? spec->block : NULL;
  if (!spec || !find_kernel(spec->kernel, &kind) || !block ||
      block->rank != (lsimp_kernel_is_tiled(spec->kernel) ? 2 : 1) ||
      (kind == KERNEL_GATHER_ROWS && (!spec->prefetch || spec->prefetch->rank != 1)) ||
      (lsimp_kernel_is_tiled(spec->kernel) && (spec->tile[0] < 1 || spec->tile[1] < 1)) ||
      spec->grid < 1)
    return lsim_error_set(err, LSIM_E_INVALID_ARGUMENT,
                     "lsimp_pallas_build_kernel: unknown kernel, or not a 1-D block and grid");
  if (kind == KERNEL_ROW_SUM && (spec->flavor == LSIMP_KERNEL_MOSAIC_GPU || spec->x64))
    return lsim_error_set(err, LSIM_E_INVALID_ARGUMENT,
                          "lowersim's kernel library has row_sum for Mosaic TPU and Triton only, "
                          "without jax_enable_x64");
  if (kind == KERNEL_GATHER_ROWS && spec->flavor != LSIMP_KERNEL_MOSAIC_TPU)
    return lsim_error_set(err, LSIM_E_INVALID_ARGUMENT,
                          "lowersim's kernel library has gather_rows for Mosaic TPU only");
  if (spec->flavor == LSIMP_KERNEL_MOSAIC_GPU)
    return lsimp_mosaic_gpu_kernel(mlir, spec, kind == KERNEL_ADD_ONE || kind == KERNEL_TILED_ADD_ONE,
                                   kind == KERNEL_TILED_ADD_ONE, out, err);
  MlirLocation loc = mlirLocationUnknownGet(mlir);
  MlirModule module = mlirModuleCreateEmpty(loc);
  builder b = {.mlir = mlir, .at = {mlir, {NULL}, loc, NULL}, .prefix = "", .err = err,
               .unknown = loc, .loc = loc};
  switch (spec->flavor) {
  case LSIMP_KERNEL_MOSAIC_TPU:
    b.prefix = "stable_mosaic.";
    b.unzip = spec->unzip_locations;
    made_at(&b, loc); /* the module's */
    build_mosaic_tpu_kernel(&b, module, kind, spec);
    break;
  case LSIMP_KERNEL_TRITON:
    b.cache_evict = spec->cache_evict;
    if (kind == KERNEL_TILED_ADD_ONE)
      build_triton_tiled(&b, module, spec);
    else if (kind == KERNEL_ROW_SUM)
      build_triton_row_sum(&b, module, spec);
    else
      build_triton_kernel(&b, module, kind, spec);
    break;
  case LSIMP_KERNEL_MOSAIC_GPU:
    break;
  }
  if (!b.rc && !mlirOperationVerify(mlirModuleGetOperation(module)))
    b.rc = lsim_error_set(err, LSIM_E_VERIFY, "the %s kernel module fails MLIR verification",
                          spec->kernel);
  if (b.rc) {
    mlirModuleDestroy(module);
    free(b.locs);
    return b.rc;
  }
  *out = module;
  if (locations)
    *locations = b.unzip ? locations_module(&b) : (MlirModule){NULL};
  free(b.locs);
  return LSIM_OK;
}
