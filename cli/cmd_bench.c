#define _DEFAULT_SOURCE /* syscall */
/* cli/cmd_bench.c: `lowersim bench`: lowerings per second, single-threaded,
 * for three workloads, each next to a floor measured in the same run: the
 * same module built, verified and printed by a bare MLIR C API loop with no
 * lowersim logic (its functions made by lsim_emit_func, the one func.func
 * builder, which adds nothing but the op).  The bench checks that both print
 * the same text. */
#include "cli.h"
#include "options.h"
#include "output.h"
#include "lowersim/buffer_callback.h"
#include "lowersim/conditionals.h"
#include "lowersim/emit.h"
#include "lowersim/jax.h"
#include "lowersim/lax.h"
#include "lowersim/lowering.h"
#include "lowersim/mlir_text.h"
#include "lowersim/mosaic_tpu.h"
#include "lowersim/pallas_call.h"

#include <mlir-c/BuiltinAttributes.h>
#include <mlir-c/BuiltinTypes.h>
#include <mlir-c/Dialect/Arith.h>
#include <mlir-c/Dialect/Func.h>
#include <mlir-c/Dialect/MemRef.h>
#include <mlir-c/Dialect/Vector.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#ifdef __linux__
#include <linux/perf_event.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

/* --- the bare floor: raw MLIR C API ------------------------------------------------ */

static MlirStringRef sref(const char *s) { return mlirStringRefCreateFromCString(s); }

static MlirNamedAttribute nattr(MlirContext c, const char *name, MlirAttribute a) {
  return mlirNamedAttributeGet(mlirIdentifierGet(c, sref(name)), a);
}

static MlirAttribute sattr(MlirContext c, const char *s) { return mlirStringAttrGet(c, sref(s)); }

static MlirAttribute i32attr(MlirContext c, int64_t v) {
  return mlirIntegerAttrGet(mlirIntegerTypeGet(c, 32), v);
}

static MlirOperation bare_op(MlirBlock block, MlirLocation loc, const char *name,
                             const MlirValue *operands, intptr_t n, const MlirType *results,
                             intptr_t nr, const MlirNamedAttribute *attrs, intptr_t na,
                             intptr_t regions) {
  MlirOperationState st = mlirOperationStateGet(sref(name), loc);
  mlirOperationStateAddOperands(&st, n, operands);
  mlirOperationStateAddResults(&st, nr, results);
  mlirOperationStateAddAttributes(&st, na, attrs);
  MlirRegion r[8];
  for (intptr_t i = 0; i < regions; i++) {
    r[i] = mlirRegionCreate();
    mlirRegionAppendOwnedBlock(r[i], mlirBlockCreate(0, NULL, NULL));
  }
  mlirOperationStateAddOwnedRegions(&st, regions, r);
  MlirOperation op = mlirOperationCreate(&st);
  mlirBlockAppendOwnedOperation(block, op);
  return op;
}

static MlirBlock region_block(MlirOperation op, intptr_t i) {
  return mlirRegionGetFirstBlock(mlirOperationGetRegion(op, i));
}

static MlirAttribute layout(MlirContext c, int64_t rank) {
  MlirType index = mlirIndexTypeGet(c);
  MlirAttribute dims[4];
  for (int64_t i = 0; i < rank; i++)
    dims[i] = mlirIntegerAttrGet(index, rank - 1 - i);
  return mlirDenseElementsAttrGet(mlirRankedTensorTypeGet(1, &rank, index, (MlirAttribute){NULL}),
                                  rank, dims);
}

/* module @jit_f {...} with func.func public @main; returns main's block. */
static MlirBlock bare_module(MlirContext c, MlirModule m, bool multi, const MlirType *ins,
                             intptr_t n_in, MlirType out) {
  MlirOperation mop = mlirModuleGetOperation(m);
  mlirOperationSetAttributeByName(mop, sref("sym_name"), sattr(c, "jit_f"));
  mlirOperationSetAttributeByName(mop, sref("mhlo.num_replicas"), i32attr(c, 1));
  mlirOperationSetAttributeByName(mop, sref("mhlo.num_partitions"), i32attr(c, 1));
  MlirAttribute empty = mlirDictionaryAttrGet(c, 0, NULL);
  MlirNamedAttribute pi = nattr(c, "jax.global_constant", sattr(c, "_platform_index"));
  MlirAttribute arg_attrs[2] = {multi ? mlirDictionaryAttrGet(c, 1, &pi) : empty, empty};
  MlirNamedAttribute ri = nattr(c, "jax.result_info", sattr(c, "result"));
  MlirAttribute res_attr = mlirDictionaryAttrGet(c, 1, &ri);
  lsim_insertion_point top = {c, mlirModuleGetBody(m), mlirLocationUnknownGet(c), NULL};
  lsim_func main = {.name = "main", .visibility = "public", .inputs = ins,
                    .num_inputs = (size_t)n_in, .results = &out, .num_results = 1,
                    .arg_attrs = arg_attrs, .res_attrs = &res_attr};
  MlirBlock body = {NULL};
  lsim_emit_func(&top, &main, NULL, &body, NULL);
  return body;
}

static void bare_return(MlirContext c, MlirBlock b, MlirValue v, const char *name) {
  bare_op(b, mlirLocationUnknownGet(c), name, &v, 1, NULL, 0, NULL, 0, 0);
}

static MlirValue bare_custom_call(MlirContext c, MlirBlock b, const char *target, bool side_effect,
                                  const char *config, MlirAttribute dict,
                                  const MlirNamedAttribute *extra, intptr_t n_extra, MlirValue x) {
  MlirType t = mlirValueGetType(x);
  MlirAttribute lay = layout(c, mlirShapedTypeGetRank(t));
  MlirNamedAttribute attrs[10] = {
      nattr(c, "call_target_name", sattr(c, target)),
      nattr(c, "has_side_effect", mlirBoolAttrGet(c, side_effect)),
      nattr(c, "backend_config", sattr(c, config)),
      nattr(c, "api_version", i32attr(c, 1)),
      nattr(c, "called_computations", mlirArrayAttrGet(c, 0, NULL)),
      nattr(c, "output_operand_aliases", mlirArrayAttrGet(c, 0, NULL)),
      nattr(c, "operand_layouts", mlirArrayAttrGet(c, 1, &lay)),
      nattr(c, "result_layouts", mlirArrayAttrGet(c, 1, &lay)),
  };
  intptr_t n = 8;
  if (!mlirAttributeIsNull(dict))
    attrs[n++] = nattr(c, "mhlo.backend_config", dict);
  for (intptr_t i = 0; i < n_extra; i++)
    attrs[n++] = extra[i];
  return mlirOperationGetResult(
      bare_op(b, mlirLocationUnknownGet(c), "stablehlo.custom_call", &x, 1, &t, 1, attrs, n, 0), 0);
}

static MlirType f32_tensor(MlirContext c, int64_t n) {
  return mlirRankedTensorTypeGet(1, &n, mlirF32TypeGet(c), (MlirAttribute){NULL});
}

/* (1) buffer_callback on cpu. */
static void floor_buffer_callback(MlirContext c, MlirModule m) {
  MlirType t = f32_tensor(c, 8);
  MlirBlock body = bare_module(c, m, false, &t, 1, t);
  MlirNamedAttribute index =
      nattr(c, "index", mlirIntegerAttrGet(mlirIntegerTypeUnsignedGet(c, 64), 0));
  MlirValue r = bare_custom_call(c, body, "xla_buffer_python_cpu_callback", false, "",
                                 mlirDictionaryAttrGet(c, 1, &index), NULL, 0,
                                 mlirBlockGetArgument(body, 0));
  bare_return(c, body, r, "func.return");
}

static MlirValue bare_i32(MlirContext c, MlirBlock b, int32_t v) {
  MlirType i32 = mlirRankedTensorTypeGet(0, NULL, mlirIntegerTypeGet(c, 32), (MlirAttribute){NULL});
  MlirNamedAttribute a = nattr(c, "value", mlirDenseElementsAttrInt32SplatGet(i32, v));
  return mlirOperationGetResult(
      bare_op(b, mlirLocationUnknownGet(c), "stablehlo.constant", NULL, 0, &i32, 1, &a, 1, 0), 0);
}

/* A case over `index` whose branch i returns the constant values[i]. */
static MlirValue bare_index_case(MlirContext c, MlirBlock b, MlirValue index, const int *values,
                                 intptr_t n) {
  MlirType i32 = mlirValueGetType(index);
  MlirOperation op =
      bare_op(b, mlirLocationUnknownGet(c), "stablehlo.case", &index, 1, &i32, 1, NULL, 0, n);
  for (intptr_t i = 0; i < n; i++)
    bare_return(c, region_block(op, i), bare_i32(c, region_block(op, i), values[i]),
                "stablehlo.return");
  return mlirOperationGetResult(op, 0);
}

/* (2) platform_dependent(tpu=sin, cuda=cos, rocm=cos, default=neg) for
 * (cpu, cuda, rocm, tpu). */
static void floor_platform_dependent(MlirContext c, MlirModule m) {
  MlirType t = f32_tensor(c, 8);
  MlirType i32 = mlirRankedTensorTypeGet(0, NULL, mlirIntegerTypeGet(c, 32), (MlirAttribute){NULL});
  MlirType ins[] = {i32, t};
  MlirBlock body = bare_module(c, m, true, ins, 2, t);
  static const int rule_of[] = {3, 1, 2, 0}, branch_of_rule[] = {0, 1, 1, 2};
  static const int kept_of_branch[] = {2, 1, 0};
  MlirValue rule = bare_index_case(c, body, mlirBlockGetArgument(body, 0), rule_of, 4);
  MlirValue branch = bare_index_case(c, body, rule, branch_of_rule, 4);
  MlirValue kept = bare_index_case(c, body, branch, kept_of_branch, 3);
  MlirOperation op = bare_op(body, mlirLocationUnknownGet(c), "stablehlo.case", &kept, 1, &t, 1,
                             NULL, 0, 3);
  static const char *const ops[] = {"stablehlo.negate", "stablehlo.cosine", "stablehlo.sine"};
  MlirValue x = mlirBlockGetArgument(body, 1);
  for (int i = 0; i < 3; i++) {
    MlirBlock b = region_block(op, i);
    MlirValue y = mlirOperationGetResult(
        bare_op(b, mlirLocationUnknownGet(c), ops[i], &x, 1, &t, 1, NULL, 0, 0), 0);
    bare_return(c, b, y, "stablehlo.return");
  }
  bare_return(c, body, mlirOperationGetResult(op, 0), "func.return");
}


/* The add_one Mosaic TPU kernel of an f32[8] block over a grid of 4, in
 * Mosaic's serialized form (every op `stable_mosaic.<op>`, unregistered, in
 * a context of its own), as the newest profile writes it without a TPU
 * backend: at the forward-compatible version, 15, named add_one, every
 * location unknown (unzipped: bare_tpu_locations). */
static MlirModule bare_tpu_kernel(MlirContext c) {
  MlirLocation loc = mlirLocationUnknownGet(c);
  MlirModule k = mlirModuleCreateEmpty(loc);
  MlirBlock top = mlirModuleGetBody(k);
  int64_t n = 8;
  MlirType f32 = mlirF32TypeGet(c), i32 = mlirIntegerTypeGet(c, 32), index = mlirIndexTypeGet(c);
  MlirAttribute vmem = mlirAttributeParseGet(c, sref("#tpu.memory_space<vmem>"));
  MlirType memref = mlirMemRefTypeGet(f32, 1, &n, (MlirAttribute){NULL}, vmem);
  MlirType vec = mlirVectorTypeGet(1, &n, f32);
  MlirType ins[] = {i32, memref, memref};
  MlirNamedAttribute attrs[] = {
      nattr(c, "dimension_semantics",
            mlirAttributeParseGet(c, sref("[#tpu.dimension_semantics<arbitrary>]"))),
      nattr(c, "iteration_bounds", mlirAttributeParseGet(c, sref("array<i64: 4>"))),
      nattr(c, "scalar_prefetch", mlirIntegerAttrGet(mlirIntegerTypeGet(c, 64), 0)),
      nattr(c, "scratch_operands", mlirIntegerAttrGet(mlirIntegerTypeGet(c, 64), 0)),
      nattr(c, "tpu.core_type", mlirAttributeParseGet(c, sref("#tpu.core_type<tc>"))),
      nattr(c, "window_params",
            mlirAttributeParseGet(
                c, sref("[{pipeline_mode = #tpu.pipeline_mode<synchronous>, transform_indices = "
                        "@transform_0, window_bounds = array<i64: 8>}, {pipeline_mode = "
                        "#tpu.pipeline_mode<synchronous>, transform_indices = @transform_1, "
                        "window_bounds = array<i64: 8>}]"))),
  };
  lsim_insertion_point at_top = {c, top, loc, NULL};
  lsim_func kernel = {.op_name = "stable_mosaic.func.func", .name = "add_one", .inputs = ins,
                      .num_inputs = 3, .extra = attrs, .num_extra = 6};
  MlirBlock b = {NULL};
  lsim_emit_func(&at_top, &kernel, NULL, &b, NULL);
  MlirNamedAttribute zero_attr = nattr(c, "value", mlirIntegerAttrGet(index, 0));
  MlirValue zero = mlirOperationGetResult(
      bare_op(b, loc, "stable_mosaic.arith.constant", NULL, 0, &index, 1, &zero_attr, 1, 0), 0);
  MlirValue load_in[] = {mlirBlockGetArgument(b, 1), zero};
  MlirValue x = mlirOperationGetResult(
      bare_op(b, loc, "stable_mosaic.vector.load", load_in, 2, &vec, 1, NULL, 0, 0), 0);
  MlirNamedAttribute one_attr = nattr(c, "value", mlirFloatAttrDoubleGet(c, f32, 1.0));
  MlirValue one = mlirOperationGetResult(
      bare_op(b, loc, "stable_mosaic.arith.constant", NULL, 0, &f32, 1, &one_attr, 1, 0), 0);
  MlirValue ones = mlirOperationGetResult(
      bare_op(b, loc, "stable_mosaic.vector.broadcast", &one, 1, &vec, 1, NULL, 0, 0), 0);
  MlirValue add_in[] = {x, ones};
  MlirNamedAttribute fastmath =
      nattr(c, "fastmath", mlirAttributeParseGet(c, sref("#arith.fastmath<none>")));
  MlirValue y = mlirOperationGetResult(
      bare_op(b, loc, "stable_mosaic.arith.addf", add_in, 2, &vec, 1, &fastmath, 1, 0), 0);
  MlirValue zero2 = mlirOperationGetResult(
      bare_op(b, loc, "stable_mosaic.arith.constant", NULL, 0, &index, 1, &zero_attr, 1, 0), 0);
  MlirValue old_in[] = {mlirBlockGetArgument(b, 2), zero2};
  bare_op(b, loc, "stable_mosaic.vector.load", old_in, 2, &vec, 1, NULL, 0, 0);
  MlirNamedAttribute store_attrs[] = {
      nattr(c, "add", mlirBoolAttrGet(c, 0)),
      nattr(c, "operandSegmentSizes", mlirAttributeParseGet(c, sref("array<i32: 1, 1, 1, 0>"))),
      nattr(c, "strides", mlirAttributeParseGet(c, sref("array<i32>"))),
  };
  MlirValue store_in[] = {y, mlirBlockGetArgument(b, 2), zero2};
  bare_op(b, loc, "stable_mosaic.tpu.vector_store", store_in, 3, NULL, 0, store_attrs, 3, 0);
  bare_op(b, loc, "stable_mosaic.func.return", NULL, 0, NULL, 0, NULL, 0, 0);
  for (int i = 0; i < 2; i++) {
    lsim_func transform = {.op_name = "stable_mosaic.func.func",
                           .name = i ? "transform_1" : "transform_0", .inputs = &i32,
                           .num_inputs = 1, .results = &i32, .num_results = 1};
    MlirBlock fb = {NULL};
    lsim_emit_func(&at_top, &transform, NULL, &fb, NULL);
    MlirNamedAttribute z = nattr(c, "value", mlirIntegerAttrGet(i32, 0));
    MlirValue zv = mlirOperationGetResult(
        bare_op(fb, loc, "stable_mosaic.arith.constant", NULL, 0, &i32, 1, &z, 1, 0), 0);
    bare_op(fb, loc, "stable_mosaic.arith.constant", NULL, 0, &i32, 1, &z, 1, 0);
    bare_op(fb, loc, "stable_mosaic.func.return", &zv, 1, NULL, 0, NULL, 0, 0);
  }
  mlirOperationSetAttributeByName(mlirModuleGetOperation(k), sref("sym_name"), sattr(c, "add_one"));
  mlirOperationSetAttributeByName(mlirModuleGetOperation(k), sref("stable_mosaic.version"),
                                  mlirIntegerAttrGet(mlirIntegerTypeGet(c, 64), 15));
  return k;
}

/* The kernel's locations as the newest profile unzips them: an empty
 * module whose tpu.locs lists the module's, the kernel function's, its
 * arguments' (the grid index, x_ref, o_ref), its ops' (the get's two, the
 * add's three, the swap's three, the return) and the two index maps' (each
 * function, its argument and three ops), in that order. */
static MlirModule bare_tpu_locations(MlirContext c) {
  MlirLocation unknown = mlirLocationUnknownGet(c);
  MlirLocation x_ref = mlirLocationNameGet(c, sref("x_ref"), unknown);
  MlirLocation o_ref = mlirLocationNameGet(c, sref("o_ref"), unknown);
  MlirLocation get = mlirLocationNameGet(
      c, sref("get:"), mlirLocationNameGet(c, sref("get/get"), unknown));
  MlirLocation add = mlirLocationNameGet(c, sref("add:"), mlirLocationNameGet(c, sref("add"), unknown));
  MlirLocation swap = mlirLocationNameGet(
      c, sref("swap:"), mlirLocationNameGet(c, sref("swap/swap"), unknown));
  MlirLocation in_order[] = {unknown, unknown, unknown, x_ref, o_ref, get, get, add, add, add,
                             swap, swap, swap, unknown, unknown, unknown, unknown, unknown,
                             unknown, unknown, unknown, unknown, unknown, unknown};
  enum { N = sizeof in_order / sizeof in_order[0] };
  MlirAttribute locs[N];
  for (size_t i = 0; i < N; i++)
    locs[i] = mlirLocationGetAttribute(in_order[i]);
  MlirModule m = mlirModuleCreateEmpty(unknown);
  mlirOperationSetAttributeByName(mlirModuleGetOperation(m), sref("tpu.locs"),
                                  mlirArrayAttrGet(c, N, locs));
  return m;
}

static void write_to_file(MlirStringRef s, void *f) { fwrite(s.data, 1, s.length, f); }

/* `m` as bytecode of version 0 into a new buffer (free) of `*size` bytes;
 * `m` is destroyed. */
static char *bare_bytecode(MlirModule m, size_t *size) {
  char *bytes = NULL;
  FILE *f = open_memstream(&bytes, size);
  MlirBytecodeWriterConfig config = mlirBytecodeWriterConfigCreate();
  mlirBytecodeWriterConfigDesiredEmitVersion(config, 0);
  mlirOperationWriteBytecodeWithConfig(mlirModuleGetOperation(m), config, write_to_file, f);
  mlirBytecodeWriterConfigDestroy(config);
  mlirModuleDestroy(m);
  fclose(f);
  return bytes;
}

/* (3) pallas_call(add_one, grid=4) on tpu: the kernel and its locations,
 * their bytecode in base64 in the tpu_custom_call's JSON config. */
static void floor_pallas_tpu(MlirContext c, MlirModule m) {
  MlirContext kc = mlirContextCreateWithThreading(false);
  mlirContextSetAllowUnregisteredDialects(kc, true);
  MlirModule kernel = bare_tpu_kernel(kc);
  mlirOperationVerify(mlirModuleGetOperation(kernel));
  size_t size = 0, locations_size = 0;
  char *bytes = bare_bytecode(kernel, &size);
  char *locations = bare_bytecode(bare_tpu_locations(kc), &locations_size);
  mlirContextDestroy(kc);
  char *json = lsim_tpu_custom_call_config_located(bytes, size, locations, locations_size, NULL,
                                                   NULL);
  MlirType t = f32_tensor(c, 8);
  MlirBlock body = bare_module(c, m, false, &t, 1, t);
  MlirNamedAttribute meta = nattr(c, "kernel_metadata", sattr(c, "{}"));
  MlirNamedAttribute extra[] = {nattr(c, "kernel_name", sattr(c, "add_one")),
                                nattr(c, "mhlo.frontend_attributes", mlirDictionaryAttrGet(c, 1, &meta))};
  MlirValue r = bare_custom_call(c, body, "tpu_custom_call", false, json ? json : "",
                                 (MlirAttribute){NULL}, extra, 2, mlirBlockGetArgument(body, 0));
  bare_return(c, body, r, "func.return");
  free(bytes);
  free(locations);
  free(json);
}

/* --- lowersim's side ------------------------------------------------------------------ */

#define BENCH_ROUNDS 8

typedef struct workload {
  const char *name;
  void (*floor)(MlirContext, MlirModule);
  lsim_eqn eqn;
  const char *platforms[4];
  size_t num_platforms;
} workload;

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* User-space instructions of this thread, from the kernel's hardware counter
 * (perf_event_open), where the kernel and the machine allow it: -1 when not
 * (many VMs have no counter; then bench/instructions.sh counts with
 * callgrind). */
static int instructions_fd = -2;

static void instructions_open(void) {
#ifdef __linux__
  struct perf_event_attr a;
  memset(&a, 0, sizeof a);
  a.type = PERF_TYPE_HARDWARE;
  a.size = sizeof a;
  a.config = PERF_COUNT_HW_INSTRUCTIONS;
  a.exclude_kernel = 1;
  a.exclude_hv = 1;
  instructions_fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
#else
  instructions_fd = -1;
#endif
}

static int64_t instructions(void) {
#ifdef __linux__
  uint64_t v;
  if (instructions_fd >= 0 && read(instructions_fd, &v, sizeof v) == (ssize_t)sizeof v)
    return (int64_t)v;
#endif
  return -1;
}

/* How one side of a workload runs: for about `seconds` (rounds > 0 modules
 * made in batches of 50), or exactly `modules` modules when that is not 0.
 * `instr` receives the instructions per module, or -1. */
typedef struct run_spec {
  double seconds;
  long modules;
} run_spec;

static bool run_more(const run_spec *spec, long n, double end) {
  return spec->modules ? n < spec->modules : now() < end;
}

/* Lowerings per second over about `seconds`; `text` receives one module's text. */
static double time_lowersim(lsim_lowerer *l, const lsim_lowering_request *req,
                            const run_spec *spec, char **text, double *instr) {
  double start = now(), end = start + spec->seconds;
  int64_t i0 = instructions();
  long n = 0;
  *text = NULL;
  do {
    for (int k = 0; k < 50 && (!spec->modules || n < spec->modules); k++, n++) {
      lsim_lowering *low = NULL;
      if (lsim_lower(l, req, &low, NULL))
        return -1;
      char *t = lsim_lowering_print(low);
      if (!*text)
        *text = t;
      else
        free(t);
      lsim_lowering_destroy(low);
    }
  } while (run_more(spec, n, end));
  int64_t i1 = instructions();
  *instr = i0 >= 0 && i1 >= 0 ? (double)(i1 - i0) / (double)n : -1;
  return (double)n / (now() - start);
}

/* The floor's printer, frozen as the naive loop lowersim printed with before
 * (issue 15): mlirOperationPrint, which verifies the op again, into a
 * callback that appends each token to a doubling buffer, NUL kept after
 * every append; then the final newline. */
typedef struct naive_text {
  char *data;
  size_t len, cap;
  bool failed;
} naive_text;

static void naive_append(MlirStringRef s, void *data) {
  naive_text *t = data;
  if (t->failed)
    return;
  size_t need = t->len + s.length + 1;
  if (need > t->cap) {
    size_t cap = t->cap ? t->cap : 64;
    while (cap < need)
      cap *= 2;
    char *grown = realloc(t->data, cap); /* the bare program's own, not lowersim's allocator */
    if (!grown) {
      t->failed = true;
      return;
    }
    t->data = grown;
    t->cap = cap;
  }
  if (s.length)
    memcpy(t->data + t->len, s.data, s.length);
  t->len += s.length;
  t->data[t->len] = '\0';
}

static char *floor_print(MlirOperation op) {
  naive_text t = {NULL, 0, 0, false};
  mlirOperationPrint(op, naive_append, &t);
  naive_append(mlirStringRefCreate("\n", 1), &t);
  if (t.failed) {
    free(t.data);
    return NULL;
  }
  return t.data;
}

static double time_floor(MlirContext c, void (*build)(MlirContext, MlirModule),
                         const run_spec *spec, char **text, double *instr) {
  double start = now(), end = start + spec->seconds;
  int64_t i0 = instructions();
  long n = 0;
  *text = NULL;
  do {
    for (int k = 0; k < 50 && (!spec->modules || n < spec->modules); k++, n++) {
      MlirModule m = mlirModuleCreateEmpty(mlirLocationUnknownGet(c));
      build(c, m);
      if (!mlirOperationVerify(mlirModuleGetOperation(m)))
        return -1;
      char *t = floor_print(mlirModuleGetOperation(m));
      if (!*text)
        *text = t;
      else
        free(t);
      mlirModuleDestroy(m);
    }
  } while (run_more(spec, n, end));
  int64_t i1 = instructions();
  *instr = i0 >= 0 && i1 >= 0 ? (double)(i1 - i0) / (double)n : -1;
  return (double)n / (now() - start);
}

static void help(void) {
  printf("usage: lowersim bench [--seconds S] [--jax VERSION] [--workload NAME]\n"
         "                      [--modules N [--side lowersim|floor|both]]\n\n"
         "Lowerings per second, single-threaded, of (1) a buffer_callback on cpu, (2) a\n"
         "four-platform lax.platform_dependent whose cuda and rocm branches are shared,\n"
         "(3) a Pallas add_one kernel on tpu with its bytecode embedded; each next to the\n"
         "floor: the same module built, verified and printed by a bare MLIR C API loop in\n"
         "the same MLIR context (its func.func ops made by lowersim's one function\n"
         "builder, its printing MLIR's naive one: verify again, a callback per token);\n"
         "both must print the same text. lowersim's figures include its rule lookup,\n"
         "contexts, verification (MLIR's and its own) and printing. Each side runs in 8\n"
         "alternating rounds and its best round counts. Goal: ratios of at least 1.10.\n"
         "Beside the rates: user-space instructions per module of each side (the\n"
         "kernel's hardware counter; '-' where the machine has none, as in most VMs:\n"
         "bench/instructions.sh then counts them with callgrind).\n"
         "S (default 1, from 0.001 to 3600) is the time of all rounds of one workload.\n"
         "--workload NAME runs one: buffer_callback, platform_dependent or pallas_call.\n"
         "--modules N (1 to 100000000) makes exactly N modules on each side (or only\n"
         "--side's), once, instead of timed rounds: for counting instructions with a\n"
         "tool from outside.\n"
         "The cost of hostile inputs per MB is measured by tests/hostile_bench.py.\n");
}

/* --workload's and --side's values. */
static const char *workload_values(size_t i) {
  static const char *const keys[] = {"buffer_callback", "platform_dependent", "pallas_call"};
  return i < 3 ? keys[i] : NULL;
}

static const char *side_values(size_t i) {
  static const char *const sides[] = {"both", "lowersim", "floor"};
  return i < 3 ? sides[i] : NULL;
}

int cmd_bench(int argc, char **argv) {
  double seconds = 1.0;
  uint64_t modules = 0;
  const char *jax = NULL, *only = NULL, *side = "both";
  const lsim_jax_profile *profile = NULL;
  const cli_option options[] = {
      CLI_OPT_DOUBLE("seconds", 0, &seconds, 0.001, 3600,
                     CLI_HELP("S", "the time of all rounds of one workload (default 1, from "
                              "0.001 to 3600)")),
      CLI_OPT_CHOICE("jax", 0, &jax, cli_jax_values,
                     CLI_HELP("VERSION", "the JAX version lowered for (default: the newest)")),
      CLI_OPT_CHOICE("workload", 0, &only, workload_values,
                     CLI_HELP("NAME", "run one workload")),
      CLI_OPT_U64("modules", 0, &modules, 1, 100000000,
                  CLI_HELP("N", "exactly N modules on each side, once, instead of timed rounds")),
      CLI_OPT_CHOICE("side", 0, &side, side_values,
                     CLI_HELP("SIDE", "with --modules: the side that runs (default both)"))};
  int parsed = cli_parse_options("bench", argc, argv, options, 5, help);
  if (parsed)
    return parsed < 0 ? 0 : parsed;
  if (jax && (parsed = cli_parse_jax("bench", "--jax", jax, &profile)))
    return parsed;
  size_t only_w = SIZE_MAX;
  for (size_t k = 0; only && workload_values(k); k++)
    if (strcmp(only, workload_values(k)) == 0)
      only_w = k;
  if (only && only_w == SIZE_MAX)
    return cli_value_error("bench", "--workload", "takes buffer_callback, platform_dependent or "
                           "pallas_call", only, workload_values);
  bool run_ours = strcmp(side, "both") == 0 || strcmp(side, "lowersim") == 0;
  bool run_floor = strcmp(side, "both") == 0 || strcmp(side, "floor") == 0;
  if (!run_ours && !run_floor)
    return cli_value_error("bench", "--side", "takes lowersim, floor or both", side, side_values);
  if (!modules && !(run_ours && run_floor)) {
    return cli_usage_error("bench", "--side needs --modules");
  }
  instructions_open();
  lsim_error err = LSIM_ERROR_INIT;
  lsim_runtime *rt = NULL;
  lsim_registry *reg = NULL;
  lsim_pallas *pallas = NULL;
  lsim_lowerer *lowerer = NULL;
  lsim_pallas_installed all =
      LSIM_PALLAS_INSTALLED_INIT(.mosaic_tpu = true, .triton = true, .mosaic_gpu = true);
  int rc = lsim_runtime_create_default(&rt, &err);
  if (!rc) rc = lsim_pallas_create(&all, &pallas, &err);
  if (!rc) rc = lsim_registry_create_jax(rt, pallas, profile, &reg, &err);
  if (!rc) rc = lsim_lowerer_create(&lowerer, &err);
  if (rc)
    return cli_report(&err);
  MlirContext mlir = lsim_lowerer_mlir_context(lowerer);
  /* The dialects the kernels are written in, as a bare program loads them. */
  MlirDialectHandle dialects[] = {mlirGetDialectHandle__func__(), mlirGetDialectHandle__arith__(),
                                  mlirGetDialectHandle__vector__(), mlirGetDialectHandle__memref__()};
  for (size_t i = 0; i < sizeof dialects / sizeof dialects[0]; i++)
    mlirDialectHandleLoadDialect(dialects[i], mlir);
  static const lsim_aval f32_8 = {.dtype = LSIM_DTYPE_F32, .rank = 1, .dims = {8}};
  static const size_t operand = 0;
  /* platform_dependent's branches: sin, cos and neg of the operand. */
  static const lsim_eqn sin_eqn = {&lsim_sin_p, &operand, 1, &f32_8, 1, NULL, false, NULL};
  static const lsim_eqn cos_eqn = {&lsim_cos_p, &operand, 1, &f32_8, 1, NULL, false, NULL};
  static const lsim_eqn neg_eqn = {&lsim_neg_p, &operand, 1, &f32_8, 1, NULL, false, NULL};
  static const lsim_program sin_fn = {.function_name = "sin", .args = &f32_8, .num_args = 1,
                                      .eqns = &sin_eqn, .num_eqns = 1};
  static const lsim_program cos_fn = {.function_name = "cos", .args = &f32_8, .num_args = 1,
                                      .eqns = &cos_eqn, .num_eqns = 1};
  static const lsim_program neg_fn = {.function_name = "neg", .args = &f32_8, .num_args = 1,
                                      .eqns = &neg_eqn, .num_eqns = 1};
  static const char *const tpu_only[] = {"tpu"}, *const cuda_rocm[] = {"cuda", "rocm"};
  static const lsim_platform_branch branches[] = {
      {tpu_only, 1, &sin_fn}, {cuda_rocm, 2, &cos_fn}, {NULL, 0, &neg_fn}};
  static const lsim_platform_dependent_params pd = {branches, 3};
  static const lsim_buffer_callback_params bc = {{NULL, NULL}, false, false, NULL, 0};
  static const lsim_pallas_call_params pc = {.kernel = "add_one", .grid = 4};
  workload workloads[] = {
      {"buffer_callback, cpu", floor_buffer_callback,
       {.operands = &operand, .num_operands = 1, .results = &f32_8, .num_results = 1}, {"cpu"}, 1},
      {"platform_dependent, 4 platforms", floor_platform_dependent,
       {.operands = &operand, .num_operands = 1, .results = &f32_8, .num_results = 1},
       {"cpu", "cuda", "rocm", "tpu"}, 4},
      {"pallas_call, tpu (bytecode)", floor_pallas_tpu,
       {.operands = &operand, .num_operands = 1, .results = &f32_8, .num_results = 1}, {"tpu"}, 1},
  };
  lsim_buffer_callback_bind(&workloads[0].eqn, &bc);
  lsim_platform_dependent_bind(&workloads[1].eqn, &pd);
  lsim_pallas_call_bind(&workloads[2].eqn, &pc);
  /* The lowerings run under use_abstract_mesh with a TPU v5e: Mosaic TPU reads
   * the TPU's kind, and the runtime's one device is a cpu. */
  static const lsim_abstract_device tpu_v5e = {"tpu", "TPU v5 lite", 1};
  printf("%-34s %11s %11s %6s %12s %12s\n", "workload (single thread)", "lowersim/s",
         "bare MLIR/s", "ratio", "instr/module", "floor instr");
  int code = 0;
  for (size_t w = 0; w < sizeof workloads / sizeof workloads[0]; w++) {
    if (only_w != SIZE_MAX && w != only_w)
      continue;
    lsim_program prog = {.function_name = "f", .args = &f32_8, .num_args = 1,
                         .eqns = &workloads[w].eqn, .num_eqns = 1};
    lsim_lowering_request req = LSIM_LOWERING_REQUEST_INIT(
        .registry = reg, .program = &prog, .platforms = workloads[w].platforms,
        .num_platforms = workloads[w].num_platforms, .abstract_device = &tpu_v5e);
    /* Alternating short rounds, best of each side: the least disturbed by
     * whatever else the machine does.  With --modules, one round of N. */
    run_spec spec = {seconds / (2 * BENCH_ROUNDS), (long)modules};
    char *ours = NULL, *theirs = NULL;
    double floor_rate = 0, rate = 0, instr = -1, floor_instr = -1;
    for (int round = 0; round < (modules ? 1 : BENCH_ROUNDS); round++) {
      char *a = NULL, *b = NULL;
      double fi = -1, ri = -1;
      double f = run_floor ? time_floor(mlir, workloads[w].floor, &spec, &a, &fi) : 0;
      double r = run_ours ? time_lowersim(lowerer, &req, &spec, &b, &ri) : 0;
      floor_rate = f > floor_rate ? f : floor_rate;
      rate = r > rate ? r : rate;
      /* The least instructions of any round: the one least disturbed by
       * other threads' cache effects (the count itself is this thread's). */
      if (fi >= 0 && (floor_instr < 0 || fi < floor_instr))
        floor_instr = fi;
      if (ri >= 0 && (instr < 0 || ri < instr))
        instr = ri;
      if (!theirs)
        theirs = a, a = NULL;
      if (!ours)
        ours = b, b = NULL;
      free(a);
      free(b);
    }
    bool same = !(run_ours && run_floor) || (ours && theirs && strcmp(ours, theirs) == 0);
    if (!same && getenv("LOWERSIM_BENCH_DUMP") && ours && theirs) {
      cli_write_file("bench", "/tmp/bench-lowersim.mlir", ours, strlen(ours), NULL);
      cli_write_file("bench", "/tmp/bench-floor.mlir", theirs, strlen(theirs), NULL);
    }
    char ins[32] = "-", fins[32] = "-", ratio[32] = "-";
    if (rate > 0 && floor_rate > 0) /* both sides ran */
      snprintf(ratio, sizeof ratio, "%.2f", rate / floor_rate);
    if (instr >= 0)
      snprintf(ins, sizeof ins, "%.0f", instr);
    if (floor_instr >= 0)
      snprintf(fins, sizeof fins, "%.0f", floor_instr);
    printf("%-34s %11.0f %11.0f %6s %12s %12s%s\n", workloads[w].name, rate, floor_rate, ratio,
           ins, fins, same ? "" : "  (modules differ!)");
    if (!same || (run_ours && rate <= 0) || (run_floor && floor_rate <= 0))
      code = EXIT_LOWERING_ERROR;
    free(ours);
    free(theirs);
  }
#ifdef __linux__
  if (instructions_fd >= 0)
    close(instructions_fd);
#endif
  lsim_lowerer_destroy(lowerer);
  lsim_registry_destroy(reg);
  lsim_pallas_destroy(pallas);
  lsim_runtime_destroy(rt);
  return code;
}
