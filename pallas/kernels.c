/* pallas/kernels.c: lowersim's kernel library.  Each kernel is built with
 * the MLIR C API as the module its backend would carry: Mosaic TPU's
 * (func + arith + vector on VMEM memrefs, with the window parameters
 * Pallas's TPU lowering attaches), Triton's (tt.func over pointers; tt ops
 * built generically) and Mosaic GPU's (func + arith + vector on memrefs).
 * JAX counterparts: pallas/mosaic/lowering.py, pallas/triton/lowering.py,
 * pallas/mosaic_gpu/lowering.py for real kernels. */
#include "kernels.h"
#include "lowersim/emit.h"
#include "support/raise.h"

#include <mlir-c/BuiltinAttributes.h>
#include <mlir-c/BuiltinTypes.h>
#include <mlir-c/Dialect/Arith.h>
#include <mlir-c/Dialect/Func.h>
#include <mlir-c/Dialect/MemRef.h>
#include <mlir-c/Dialect/Vector.h>

#include <stdio.h>
#include <string.h>

typedef enum kernel_kind { KERNEL_ADD_ONE, KERNEL_COPY } kernel_kind;

static const char *const kernel_names[] = {[KERNEL_ADD_ONE] = "add_one", [KERNEL_COPY] = "copy"};

static bool find_kernel(const char *name, kernel_kind *out) {
  for (int i = 0; name && i < 2; i++) {
    if (strcmp(kernel_names[i], name) == 0) {
      *out = (kernel_kind)i;
      return true;
    }
  }
  return false;
}

int lsimp_pallas_check_kernel(const char *kernel, const lsim_aval *avals_in, size_t num_in,
                             const lsim_aval *avals_out, size_t num_out, lsim_error *err) {
  kernel_kind kind;
  if (!find_kernel(kernel, &kind))
    return lsim_error_set(err, LSIM_E_INVALID_ARGUMENT,
                     "unknown Pallas kernel '%s' (the library has add_one and copy)",
                     kernel ? kernel : "(null)");
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

/* Where a kernel's ops go, and the first failure (later ops are skipped). */
typedef struct builder {
  MlirContext mlir;
  lsim_insertion_point at;
  lsim_error *err;
  int rc;
} builder;

static MlirValue op1(builder *b, const char *name, const MlirValue *operands, size_t n,
                     MlirType result, const MlirNamedAttribute *attrs, size_t num_attrs) {
  MlirOperation op = {NULL};
  if (!b->rc)
    b->rc = lsim_emit_op(&b->at, name, operands, n, mlirTypeIsNull(result) ? NULL : &result,
                         mlirTypeIsNull(result) ? 0 : 1, attrs, num_attrs, 0, &op, b->err);
  return b->rc || mlirTypeIsNull(result) ? (MlirValue){NULL} : mlirOperationGetResult(op, 0);
}

static MlirValue constant(builder *b, MlirAttribute value) {
  MlirNamedAttribute a = lsim_named(b->mlir, "value", value);
  return op1(b, "arith.constant", NULL, 0, mlirAttributeGetType(value), &a, 1);
}

/* The kernel's element type: arith and the kernel dialects take signless
 * integers, so unsigned dtypes become iN there (as in Pallas kernels). */
static const char *kernel_elt_name(lsim_dtype dtype) {
  switch (dtype) {
  case LSIM_DTYPE_U8: return "i8";
  case LSIM_DTYPE_U16: return "i16";
  case LSIM_DTYPE_U32: return "i32";
  case LSIM_DTYPE_U64: return "i64";
  default: return lsim_dtype_mlir_name(dtype);
  }
}

static MlirType elt_type(MlirContext mlir, lsim_dtype dtype) {
  return mlirTypeParseGet(mlir, mlirStringRefCreateFromCString(kernel_elt_name(dtype)));
}

/* A splat of one in `type` (a vector or tensor of the element type). */
static MlirAttribute ones(MlirContext mlir, MlirType type, lsim_dtype dtype) {
  MlirType elt = elt_type(mlir, dtype);
  MlirAttribute one = mlirTypeIsAFloat(elt) ? mlirFloatAttrDoubleGet(mlir, elt, 1.0)
                                            : mlirIntegerAttrGet(elt, 1);
  return mlirDenseElementsAttrSplatGet(type, one);
}

static bool is_float(lsim_dtype d) {
  return d == LSIM_DTYPE_F16 || d == LSIM_DTYPE_BF16 || d == LSIM_DTYPE_F32 || d == LSIM_DTYPE_F64;
}

/* The kernel's computation on a loaded value: x + 1, or x. */
static MlirValue compute(builder *b, kernel_kind kind, MlirValue x, MlirType type,
                         lsim_dtype dtype) {
  if (kind == KERNEL_COPY)
    return x;
  MlirValue operands[] = {x, constant(b, ones(b->mlir, type, dtype))};
  return op1(b, is_float(dtype) ? "arith.addf" : "arith.addi", operands, 2, type, NULL, 0);
}

/* A function (`op_name`: func.func or tt.func) named `name` in the module
 * body with `num_extra` more attributes; returns its body. */
static MlirBlock add_func(builder *b, MlirBlock module_body, const char *op_name, const char *name,
                          const MlirType *inputs, size_t n_in, const MlirType *outputs,
                          size_t n_out, const MlirNamedAttribute *extra, size_t num_extra) {
  lsim_insertion_point module = lsim_insertion_point_in(&b->at, module_body);
  lsim_func f = {.op_name = op_name, .name = name, .inputs = inputs, .num_inputs = n_in,
                 .results = outputs, .num_results = n_out, .extra = extra,
                 .num_extra = num_extra};
  MlirBlock body = {NULL};
  if (!b->rc)
    b->rc = lsim_emit_func(&module, &f, NULL, &body, b->err);
  return body;
}

static void at_block(builder *b, MlirBlock block) { b->at.block = block; }

/* --- Mosaic TPU and Mosaic GPU: func + vector on memrefs -------------------- */

static MlirAttribute parse_attr(MlirContext mlir, const char *text) {
  return mlirAttributeParseGet(mlir, mlirStringRefCreateFromCString(text));
}

/* func.func @transform_i(%i: i32) -> i32: the block index (always 0: the
 * block is the whole array). */
static void add_transform(builder *b, MlirBlock module_body, int i) {
  MlirType i32 = mlirIntegerTypeGet(b->mlir, 32);
  char name[32];
  snprintf(name, sizeof name, "transform_%d", i);
  MlirBlock body = add_func(b, module_body, "func.func", name, &i32, 1, &i32, 1, NULL, 0);
  at_block(b, body);
  MlirValue zero = constant(b, mlirIntegerAttrGet(i32, 0));
  op1(b, "func.return", &zero, 1, (MlirType){NULL}, NULL, 0);
}

static void build_memref_kernel(builder *b, MlirModule module, kernel_kind kind,
                                const lsim_aval *block, int64_t grid, bool tpu) {
  MlirContext mlir = b->mlir;
  MlirBlock module_body = mlirModuleGetBody(module);
  MlirType elt = elt_type(mlir, block->dtype);
  MlirAttribute space = tpu ? parse_attr(mlir, "#tpu.memory_space<vmem>") : (MlirAttribute){NULL};
  MlirType memref = mlirMemRefTypeGet(elt, block->rank, block->dims, (MlirAttribute){NULL}, space);
  MlirType vector = mlirVectorTypeGet(block->rank, block->dims, elt);
  MlirType i32 = mlirIntegerTypeGet(mlir, 32);
  MlirType inputs[] = {i32, memref, memref};
  MlirNamedAttribute extra[6] = {{{NULL}, {NULL}}};
  size_t n_extra = 0;
  if (tpu) {
    char text[256];
    snprintf(text, sizeof text, "array<i64: %lld>", (long long)grid);
    extra[n_extra++] = lsim_named(mlir, "iteration_bounds", parse_attr(mlir, text));
    extra[n_extra++] = lsim_named(mlir, "dimension_semantics",
                                  parse_attr(mlir, "[#tpu.dimension_semantics<arbitrary>]"));
    extra[n_extra++] = lsim_named(mlir, "scalar_prefetch",
                                  mlirIntegerAttrGet(mlirIntegerTypeGet(mlir, 64), 0));
    extra[n_extra++] = lsim_named(mlir, "scratch_operands",
                                  mlirIntegerAttrGet(mlirIntegerTypeGet(mlir, 64), 0));
    snprintf(text, sizeof text,
             "[{transform_indices = @transform_0, window_bounds = array<i64: %lld>}, "
             "{transform_indices = @transform_1, window_bounds = array<i64: %lld>}]",
             (long long)block->dims[0], (long long)block->dims[0]);
    extra[n_extra++] = lsim_named(mlir, "window_params", parse_attr(mlir, text));
  }
  const char *name = kernel_names[kind];
  MlirBlock body = add_func(b, module_body, "func.func", name, tpu ? inputs : inputs + 1,
                            tpu ? 3 : 2, NULL, 0, extra, n_extra);
  at_block(b, body);
  MlirValue x_ref = mlirBlockGetArgument(body, tpu ? 1 : 0);
  MlirValue o_ref = mlirBlockGetArgument(body, tpu ? 2 : 1);
  MlirValue zero = constant(b, mlirIntegerAttrGet(mlirIndexTypeGet(mlir), 0));
  MlirValue load_operands[] = {x_ref, zero};
  MlirValue x = op1(b, "vector.load", load_operands, 2, vector, NULL, 0);
  MlirValue y = compute(b, kind, x, vector, block->dtype);
  MlirValue store_operands[] = {y, o_ref, zero};
  op1(b, "vector.store", store_operands, 3, (MlirType){NULL}, NULL, 0);
  op1(b, "func.return", NULL, 0, (MlirType){NULL}, NULL, 0);
  if (tpu) {
    add_transform(b, module_body, 0);
    add_transform(b, module_body, 1);
    MlirOperation m = mlirModuleGetOperation(module);
    mlirOperationSetAttributeByName(m, mlirStringRefCreateFromCString("stable_mosaic.version"),
                                    mlirIntegerAttrGet(mlirIntegerTypeGet(mlir, 64), 11));
  }
}

/* --- Triton: tt ops over pointers ---------------------------------------------- */

static MlirType parse_type(MlirContext mlir, const char *text) {
  return mlirTypeParseGet(mlir, mlirStringRefCreateFromCString(text));
}

static void build_triton_kernel(builder *b, MlirModule module, kernel_kind kind,
                                const lsim_aval *block) {
  MlirContext mlir = b->mlir;
  char text[96];
  const char *elt_name = kernel_elt_name(block->dtype);
  long long n = (long long)block->dims[0];
  snprintf(text, sizeof text, "!tt.ptr<%s>", elt_name);
  MlirType ptr = parse_type(mlir, text);
  snprintf(text, sizeof text, "tensor<%lldx!tt.ptr<%s>>", n, elt_name);
  MlirType ptrs = parse_type(mlir, text);
  MlirType i32 = mlirIntegerTypeGet(mlir, 32);
  MlirType offsets_type = mlirRankedTensorTypeGet(1, block->dims, i32, (MlirAttribute){NULL});
  MlirType values_type = mlirRankedTensorTypeGet(1, block->dims, elt_type(mlir, block->dtype),
                                                 (MlirAttribute){NULL});
  MlirType inputs[] = {ptr, ptr};
  MlirNamedAttribute extra[] = {
      lsim_named(mlir, "sym_visibility", lsim_string_attr(mlir, "public")),
      lsim_named(mlir, "noinline", mlirBoolAttrGet(mlir, 0)),
  };
  MlirBlock body = add_func(b, mlirModuleGetBody(module), "tt.func", kernel_names[kind], inputs,
                            2, NULL, 0, extra, 2);
  at_block(b, body);
  MlirNamedAttribute range[] = {
      lsim_named(mlir, "start", mlirIntegerAttrGet(i32, 0)),
      lsim_named(mlir, "end", mlirIntegerAttrGet(i32, n)),
  };
  MlirNamedAttribute axis = lsim_named(mlir, "axis", mlirIntegerAttrGet(i32, 0));
  op1(b, "tt.get_program_id", NULL, 0, i32, &axis, 1);
  MlirValue offsets = op1(b, "tt.make_range", NULL, 0, offsets_type, range, 2);
  MlirValue in_base = mlirBlockGetArgument(body, 0), out_base = mlirBlockGetArgument(body, 1);
  MlirValue in_ptrs = op1(b, "tt.splat", &in_base, 1, ptrs, NULL, 0);
  MlirValue in_addr[] = {in_ptrs, offsets};
  MlirValue in_at = op1(b, "tt.addptr", in_addr, 2, ptrs, NULL, 0);
  MlirValue x = op1(b, "tt.load", &in_at, 1, values_type, NULL, 0);
  MlirValue y = compute(b, kind, x, values_type, block->dtype);
  MlirValue out_ptrs = op1(b, "tt.splat", &out_base, 1, ptrs, NULL, 0);
  MlirValue out_addr[] = {out_ptrs, offsets};
  MlirValue out_at = op1(b, "tt.addptr", out_addr, 2, ptrs, NULL, 0);
  MlirValue store[] = {out_at, y};
  op1(b, "tt.store", store, 2, (MlirType){NULL}, NULL, 0);
  op1(b, "tt.return", NULL, 0, (MlirType){NULL}, NULL, 0);
}

int lsimp_pallas_build_kernel(MlirContext mlir, const char *kernel, lsimp_kernel_flavor flavor,
                              const lsim_aval *block, int64_t grid, MlirModule *out,
                              lsim_error *err) {
  kernel_kind kind;
  if (!find_kernel(kernel, &kind) || !block || block->rank != 1 || grid < 1)
    return lsim_error_set(err, LSIM_E_INVALID_ARGUMENT,
                     "lsimp_pallas_build_kernel: unknown kernel, or not a 1-D block and grid");
  MlirDialectHandle dialects[] = {mlirGetDialectHandle__func__(), mlirGetDialectHandle__arith__(),
                                  mlirGetDialectHandle__vector__(),
                                  mlirGetDialectHandle__memref__()};
  for (size_t i = 0; i < sizeof dialects / sizeof dialects[0]; i++)
    mlirDialectHandleLoadDialect(dialects[i], mlir);
  MlirLocation loc = mlirLocationUnknownGet(mlir);
  MlirModule module = mlirModuleCreateEmpty(loc);
  builder b = {.mlir = mlir, .at = {mlir, {NULL}, loc}, .err = err};
  if (flavor == LSIMP_KERNEL_TRITON)
    build_triton_kernel(&b, module, kind, block);
  else
    build_memref_kernel(&b, module, kind, block, grid, flavor == LSIMP_KERNEL_MOSAIC_TPU);
  if (!b.rc && !mlirOperationVerify(mlirModuleGetOperation(module)))
    b.rc = lsim_error_set(err, LSIM_E_VERIFY, "the %s kernel module fails MLIR verification", kernel);
  if (b.rc) {
    mlirModuleDestroy(module);
    return b.rc;
  }
  *out = module;
  return LSIM_OK;
}
