/* tests/test_spill.c: main's body printed as it is lowered (lower/spill.c).
 *
 * The printer against MLIR's own on one function that holds what the
 * corpus (tests/stream_test.sh) holds rarely or never: results of several
 * values, nested regions two deep with block arguments, an empty region,
 * attribute names that need quotes, a unit attribute, a MARK byte in an
 * opaque attribute, func.call at main's level and nested; then a streamed
 * lowering against a whole one, the placeholder left in main, the
 * fall-back without a temporary file, and the refusal of an op lowersim
 * does not print or would miss. */
#include "lower/spill.h"
#include "lowersim/jax.h"
#include "lowersim/lax.h"
#include "lowersim/lowering.h"
#include "support/mlir_text.h"
#include "tests/fixtures.h"
#include "tests/suites.h"

#include <mlir-c/BuiltinAttributes.h>
#include <mlir-c/BuiltinTypes.h>
#include <mlir-c/Dialect/Func.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static lsim_runtime *runtime;
static lsim_lowerer *lowerer;

static int suite_init(void) {
  return !(runtime = test_runtime_all_platforms()) || lsim_lowerer_create(&lowerer, NULL);
}

static int suite_clean(void) {
  lsim_lowerer_destroy(lowerer);
  lsim_runtime_destroy(runtime);
  return 0;
}

/* --- a function built with the C API ----------------------------------------- */

static MlirStringRef ref(const char *s) { return mlirStringRefCreateFromCString(s); }

static MlirNamedAttribute named(MlirContext c, const char *name, MlirAttribute a) {
  return mlirNamedAttributeGet(mlirIdentifierGet(c, ref(name)), a);
}

/* An op `name` at the end of `block`, with `regions` regions of one block
 * each, of `num_block_args` arguments of type `arg_type` (but the last of
 * several regions). */
static MlirOperation op(MlirBlock block, const char *name, const MlirValue *operands, intptr_t n,
                        const MlirType *results, intptr_t m, const MlirNamedAttribute *attrs,
                        intptr_t k, intptr_t regions, intptr_t num_block_args, MlirType arg_type) {
  MlirContext c = mlirTypeGetContext(arg_type);
  MlirOperationState st = mlirOperationStateGet(ref(name), mlirLocationUnknownGet(c));
  mlirOperationStateAddOperands(&st, n, operands);
  mlirOperationStateAddResults(&st, m, results);
  mlirOperationStateAddAttributes(&st, k, attrs);
  MlirRegion r[4];
  for (intptr_t i = 0; i < regions; i++) {
    MlirType types[4] = {arg_type, arg_type, arg_type, arg_type};
    MlirLocation locs[4];
    for (int j = 0; j < 4; j++)
      locs[j] = mlirLocationUnknownGet(c);
    r[i] = mlirRegionCreate();
    /* The last of several regions is left without arguments. */
    bool args = regions == 1 || i + 1 < regions;
    mlirRegionAppendOwnedBlock(r[i], mlirBlockCreate(args ? num_block_args : 0, types, locs));
  }
  mlirOperationStateAddOwnedRegions(&st, regions, r);
  MlirOperation o = mlirOperationCreate(&st);
  mlirBlockAppendOwnedOperation(block, o);
  return o;
}

static MlirBlock region_block(MlirOperation o, intptr_t i) {
  return mlirRegionGetFirstBlock(mlirOperationGetRegion(o, i));
}

typedef struct built {
  MlirModule module;
  MlirBlock main;
  MlirValue held[2]; /* main's outputs */
} built;

/* main's body but its return, and the private @callee. */
static built build(MlirContext c) {
  built b;
  b.module = mlirModuleCreateEmpty(mlirLocationUnknownGet(c));
  MlirBlock body = mlirModuleGetBody(b.module);
  MlirType i32 =
      mlirRankedTensorTypeGet(0, NULL, mlirIntegerTypeGet(c, 32), mlirAttributeGetNull());
  int64_t four = 4;
  MlirType f4 = mlirRankedTensorTypeGet(1, &four, mlirF32TypeGet(c), mlirAttributeGetNull());
  MlirType ins[2] = {i32, f4}, outs[2] = {i32, f4};
  MlirLocation locs[2] = {mlirLocationUnknownGet(c), mlirLocationUnknownGet(c)};
  MlirNamedAttribute fattrs[2] = {
      named(c, "sym_name", mlirStringAttrGet(c, ref("main"))),
      named(c, "function_type", mlirTypeAttrGet(mlirFunctionTypeGet(c, 2, ins, 2, outs)))};
  MlirOperationState st = mlirOperationStateGet(ref("func.func"), mlirLocationUnknownGet(c));
  mlirOperationStateAddAttributes(&st, 2, fattrs);
  MlirRegion r = mlirRegionCreate();
  b.main = mlirBlockCreate(2, ins, locs);
  mlirRegionAppendOwnedBlock(r, b.main);
  mlirOperationStateAddOwnedRegions(&st, 1, &r);
  mlirBlockAppendOwnedOperation(body, mlirOperationCreate(&st));
  /* @callee(f32[4]) -> f32[4], private. */
  MlirNamedAttribute cattrs[3] = {
      named(c, "sym_name", mlirStringAttrGet(c, ref("callee"))),
      named(c, "sym_visibility", mlirStringAttrGet(c, ref("private"))),
      named(c, "function_type", mlirTypeAttrGet(mlirFunctionTypeGet(c, 1, &f4, 1, &f4)))};
  st = mlirOperationStateGet(ref("func.func"), mlirLocationUnknownGet(c));
  mlirOperationStateAddAttributes(&st, 3, cattrs);
  r = mlirRegionCreate();
  MlirBlock cb = mlirBlockCreate(1, &f4, locs);
  mlirRegionAppendOwnedBlock(r, cb);
  mlirOperationStateAddOwnedRegions(&st, 1, &r);
  mlirBlockAppendOwnedOperation(body, mlirOperationCreate(&st));
  MlirValue carg = mlirBlockGetArgument(cb, 0);
  op(cb, "func.return", &carg, 1, NULL, 0, NULL, 0, 0, 0, i32);

  MlirBlock m = b.main;
  MlirValue a0 = mlirBlockGetArgument(m, 0), a1 = mlirBlockGetArgument(m, 1);
  MlirNamedAttribute attrs[4] = {
      named(c, "weird name", mlirIntegerAttrGet(mlirIntegerTypeGet(c, 32), 1)),
      named(c, "unit_attr", mlirUnitAttrGet(c)),
      named(c, "a.b$c", mlirStringAttrGet(c, mlirStringRefCreate("s\001x\"\\", 5))),
      named(c, "opaque", mlirOpaqueAttrGet(c, ref("t"), 3, "a\001b", mlirNoneTypeGet(c)))};
  MlirType two[2] = {i32, f4};
  MlirOperation multi = op(m, "t.multi", &a0, 1, two, 2, attrs, 4, 0, 0, i32);
  MlirValue m0 = mlirOperationGetResult(multi, 0), m1 = mlirOperationGetResult(multi, 1);
  /* Two regions: the first with arguments and a region inside, the second
   * empty. */
  MlirOperation outer = op(m, "t.region", &m1, 1, &i32, 1, NULL, 0, 2, 2, i32);
  MlirBlock r0 = region_block(outer, 0);
  MlirValue uses[3] = {mlirBlockGetArgument(r0, 1), m0, a0};
  MlirOperation use = op(r0, "t.use", uses, 3, &i32, 1, NULL, 0, 0, 0, i32);
  MlirOperation inner = op(r0, "t.inner", NULL, 0, two, 2, NULL, 0, 1, 1, i32);
  MlirBlock ib = region_block(inner, 0);
  MlirValue deep[3] = {mlirOperationGetResult(use, 0), mlirBlockGetArgument(ib, 0), a1};
  MlirOperation d = op(ib, "t.deep", deep, 3, &i32, 1, NULL, 0, 0, 0, i32);
  MlirValue dr = mlirOperationGetResult(d, 0);
  op(ib, "t.ret", &dr, 1, NULL, 0, NULL, 0, 0, 0, i32);
  MlirValue rr[2] = {mlirOperationGetResult(inner, 1), mlirBlockGetArgument(r0, 0)};
  op(r0, "t.ret", rr, 2, NULL, 0, NULL, 0, 0, 0, i32);
  /* func.call in main, with an attribute, and inside a region. */
  MlirNamedAttribute host = named(c, "_xla_compute_type", mlirStringAttrGet(c, ref("host")));
  MlirNamedAttribute call_attrs[2] = {
      named(c, "callee", mlirFlatSymbolRefAttrGet(c, ref("callee"))),
      named(c, "mhlo.frontend_attributes", mlirDictionaryAttrGet(c, 1, &host))};
  MlirOperation call = op(m, "func.call", &a1, 1, &f4, 1, call_attrs, 2, 0, 0, i32);
  /* (An unregistered op of one region might be a symbol table: MLIR looks
   * for @callee no further.) */
  MlirOperation wrap = op(m, "t.wrap", NULL, 0, &f4, 1, NULL, 0, 2, 0, i32);
  MlirBlock wb = region_block(wrap, 0);
  MlirOperation nested_call = op(wb, "func.call", &a1, 1, &f4, 1, call_attrs, 1, 0, 0, i32);
  MlirValue nc = mlirOperationGetResult(nested_call, 0);
  op(wb, "t.ret", &nc, 1, NULL, 0, NULL, 0, 0, 0, i32);
  MlirValue sink[2] = {mlirOperationGetResult(wrap, 0), mlirOperationGetResult(call, 0)};
  op(m, "t.sink", sink, 2, NULL, 0, NULL, 0, 0, 0, i32);
  b.held[0] = mlirOperationGetResult(outer, 0);
  b.held[1] = mlirOperationGetResult(call, 0);
  return b;
}

static void add_return(built *b) {
  op(b->main, "func.return", b->held, 2, NULL, 0, NULL, 0, 0, 0,
     mlirValueGetType(b->held[0]));
}

static MlirContext context(void) {
  MlirContext c = mlirContextCreateWithThreading(false);
  mlirContextSetAllowUnregisteredDialects(c, true);
  mlirDialectHandleLoadDialect(mlirGetDialectHandle__func__(), c);
  return c;
}

/* `b`'s main streamed as one equation that made every op and whose two
 * outputs stay read: `between` (NULL: nothing) runs after the equation,
 * then the return is added; returns what sealing returns. */
static int stream(built *b, void (*between)(built *), lsimp_spill **sp, lsim_error *err) {
  CU_ASSERT_EQUAL_FATAL(lsimp_spill_create(sp, err), LSIM_OK);
  lsim_subcomp_observer o;
  CU_ASSERT_EQUAL_FATAL(lsimp_spill_begin(*sp, NULL, b->main, 2, NULL, &o, err), LSIM_OK);
  CU_ASSERT_EQUAL(o.after_eqn(o.data, b->held, 2, NULL, 0, err), LSIM_OK);
  if (between)
    between(b);
  add_return(b);
  CU_ASSERT_EQUAL(lsimp_spill_finish(*sp, err), LSIM_OK);
  return lsimp_spill_seal(*sp, err);
}

static void test_printer_is_mlirs(void) {
  MlirContext c = context();
  built whole = build(c);
  add_return(&whole);
  CU_ASSERT_TRUE_FATAL(mlirOperationVerify(mlirModuleGetOperation(whole.module)));
  char *expected = lsimp_mlir_print(mlirModuleGetOperation(whole.module), LSIMP_PRINT_OWN);

  built streamed = build(c);
  lsimp_spill *sp = NULL;
  lsim_error err = LSIM_ERROR_INIT;
  CU_ASSERT_EQUAL(stream(&streamed, NULL, &sp, &err), LSIM_OK);
  CU_ASSERT_EQUAL(lsimp_spill_ops_printed(sp), 6);
  lsimp_strbuf got = LSIMP_STRBUF_INIT;
  CU_ASSERT_TRUE(lsimp_spill_print(sp, mlirModuleGetOperation(streamed.module), LSIMP_PRINT_OWN,
                                   lsimp_strbuf_write, &got));
  CU_ASSERT_STRING_EQUAL(lsimp_strbuf_cstr(&got), expected);
  /* The lines that make the case: main's four values first, then each
   * region's from %4, a region's arguments counted on from main's. */
  CU_ASSERT_PTR_NOT_NULL(strstr(expected, "%0:2 = \"t.multi\"(%arg0) {a.b$c = \"s\\01x\\22\\\\\", "
                                          "opaque = #t<a\001b>, unit_attr, \"weird name\" = 1 : "
                                          "i32} : (tensor<i32>) -> (tensor<i32>, tensor<4xf32>)"));
  CU_ASSERT_PTR_NOT_NULL(strstr(expected, "%1 = \"t.region\"(%0#1) ({\n    ^bb0(%arg2: "
                                          "tensor<i32>, %arg3: tensor<i32>):\n      %4 = "
                                          "\"t.use\"(%arg3, %0#0, %arg0)"));
  CU_ASSERT_PTR_NOT_NULL(strstr(expected, "%6 = \"t.deep\"(%4, %arg4, %arg1)"));
  CU_ASSERT_PTR_NOT_NULL(strstr(expected, "}, {\n    ^bb0:\n    }) : (tensor<4xf32>) -> "));
  CU_ASSERT_PTR_NOT_NULL(strstr(expected, "%2 = call @callee(%arg1) {mhlo.frontend_attributes = "
                                          "{_xla_compute_type = \"host\"}} : (tensor<4xf32>) -> "
                                          "tensor<4xf32>"));
  CU_ASSERT_PTR_NOT_NULL(strstr(expected, "%4 = func.call @callee(%arg1) : (tensor<4xf32>) -> "
                                          "tensor<4xf32>"));
  CU_ASSERT_PTR_NOT_NULL(strstr(expected, "return %1, %2 : tensor<i32>, tensor<4xf32>"));
  /* main holds the placeholder alone. */
  MlirOperation first = mlirBlockGetFirstOperation(streamed.main);
  CU_ASSERT_TRUE(mlirOperationIsNull(mlirOperationGetNextInBlock(first)));
  MlirStringRef name = mlirIdentifierStr(mlirOperationGetName(first));
  CU_ASSERT_EQUAL(name.length, strlen("lsimp.spilled_body"));
  CU_ASSERT_EQUAL(memcmp(name.data, "lsimp.spilled_body", name.length), 0);
  lsimp_strbuf_free(&got);
  free(expected);
  lsimp_spill_destroy(sp);
  mlirModuleDestroy(whole.module);
  mlirModuleDestroy(streamed.module);
  mlirContextDestroy(c);
}

/* An op lowersim does not print: LSIM_E_VERIFY, saying which. */
static void test_refuses_what_it_cannot_print(void) {
  MlirContext c = context();
  built b = build(c);
  int64_t four = 4;
  MlirType f4 = mlirRankedTensorTypeGet(1, &four, mlirF32TypeGet(c), mlirAttributeGetNull());
  MlirType fn = mlirFunctionTypeGet(c, 1, &f4, 1, &f4);
  MlirNamedAttribute value = named(c, "value", mlirFlatSymbolRefAttrGet(c, ref("callee")));
  op(b.main, "func.constant", NULL, 0, &fn, 1, &value, 1, 0, 0, f4);
  lsimp_spill *sp = NULL;
  lsim_error err = LSIM_ERROR_INIT;
  CU_ASSERT_EQUAL_FATAL(lsimp_spill_create(&sp, &err), LSIM_OK);
  lsim_subcomp_observer o;
  CU_ASSERT_EQUAL_FATAL(lsimp_spill_begin(sp, NULL, b.main, 2, NULL, &o, &err), LSIM_OK);
  CU_ASSERT_EQUAL(o.after_eqn(o.data, b.held, 2, NULL, 0, &err), LSIM_E_VERIFY);
  CU_ASSERT_STRING_EQUAL(lsim_error_message(&err),
                         "lowersim cannot print main's body as it lowers it: func.constant: a "
                         "registered op lowersim does not print");
  lsim_error_clear(&err);
  lsimp_spill_destroy(sp);
  mlirModuleDestroy(b.module);
  mlirContextDestroy(c);
}

static void put_early_op(built *b) {
  MlirContext c = mlirOperationGetContext(mlirModuleGetOperation(b->module));
  MlirOperationState st = mlirOperationStateGet(ref("t.early"), mlirLocationUnknownGet(c));
  mlirBlockInsertOwnedOperation(b->main, 0, mlirOperationCreate(&st));
}

/* An op put before ops already printed would be lost: sealing refuses. */
static void test_refuses_an_op_put_before(void) {
  MlirContext c = context();
  built b = build(c);
  lsimp_spill *sp = NULL;
  lsim_error err = LSIM_ERROR_INIT;
  CU_ASSERT_EQUAL(stream(&b, put_early_op, &sp, &err), LSIM_E_VERIFY);
  CU_ASSERT_STRING_EQUAL(lsim_error_message(&err),
                         "lowersim cannot print main's body as it lowers it: t.early: put "
                         "before ops already printed");
  lsim_error_clear(&err);
  lsimp_spill_destroy(sp);
  mlirModuleDestroy(b.module);
  mlirContextDestroy(c);
}

/* A call of main to a function the module lacks, or of another type: what
 * the module's verifier says of main's calls is checked at sealing. */
static void test_checks_main_calls(void) {
  static const char *const callees[] = {"nowhere", "callee"};
  static const char *const problems[] = {"'callee' does not reference a valid function",
                                         "the callee's type is not the call's"};
  for (int k = 0; k < 2; k++) {
    MlirContext c = context();
    built b = build(c);
    MlirNamedAttribute callee = named(c, "callee", mlirFlatSymbolRefAttrGet(c, ref(callees[k])));
    MlirValue a0 = mlirBlockGetArgument(b.main, 0);
    MlirType i32 = mlirValueGetType(a0); /* @callee takes f32[4] */
    op(b.main, "func.call", &a0, 1, &i32, 1, &callee, 1, 0, 0, i32);
    lsimp_spill *sp = NULL;
    lsim_error err = LSIM_ERROR_INIT;
    CU_ASSERT_EQUAL(stream(&b, NULL, &sp, &err), LSIM_E_VERIFY);
    char want[200];
    snprintf(want, sizeof want,
             "the emitted module fails MLIR verification: 'func.call' op to @%s in main: %s",
             callees[k], problems[k]);
    CU_ASSERT_STRING_EQUAL(lsim_error_message(&err), want);
    lsim_error_clear(&err);
    lsimp_spill_destroy(sp);
    mlirModuleDestroy(b.module);
    mlirContextDestroy(c);
  }
}

/* A chain of CHAIN_OPS "equations", each an op with a region reading the
 * one before: each is freed once the next has read it, so at most three of
 * main's ops are in memory (the one read, the one reading it, and the
 * frontier), and the last two stay, main returning the last. */
enum { CHAIN_OPS = 50 };

static void test_frees_what_nothing_reads(void) {
  MlirContext c = context();
  MlirModule m = mlirModuleCreateEmpty(mlirLocationUnknownGet(c));
  MlirType i32 =
      mlirRankedTensorTypeGet(0, NULL, mlirIntegerTypeGet(c, 32), mlirAttributeGetNull());
  MlirNamedAttribute attrs[2] = {
      named(c, "sym_name", mlirStringAttrGet(c, ref("main"))),
      named(c, "function_type", mlirTypeAttrGet(mlirFunctionTypeGet(c, 1, &i32, 1, &i32)))};
  MlirOperationState st = mlirOperationStateGet(ref("func.func"), mlirLocationUnknownGet(c));
  mlirOperationStateAddAttributes(&st, 2, attrs);
  MlirRegion r = mlirRegionCreate();
  MlirLocation loc = mlirLocationUnknownGet(c);
  MlirBlock main = mlirBlockCreate(1, &i32, &loc);
  mlirRegionAppendOwnedBlock(r, main);
  mlirOperationStateAddOwnedRegions(&st, 1, &r);
  mlirBlockAppendOwnedOperation(mlirModuleGetBody(m), mlirOperationCreate(&st));
  lsimp_spill *sp = NULL;
  lsim_error err = LSIM_ERROR_INIT;
  CU_ASSERT_EQUAL_FATAL(lsimp_spill_create(&sp, &err), LSIM_OK);
  lsim_subcomp_observer o;
  CU_ASSERT_EQUAL_FATAL(lsimp_spill_begin(sp, NULL, main, 1, NULL, &o, &err), LSIM_OK);
  MlirValue prev = mlirBlockGetArgument(main, 0);
  for (int i = 0; i < CHAIN_OPS; i++) {
    /* The previous value is read inside the op's region, as a branch reads it. */
    MlirOperation link = op(main, "t.link", NULL, 0, &i32, 1, NULL, 0, 2, 0, i32);
    op(region_block(link, 0), "t.ret", &prev, 1, NULL, 0, NULL, 0, 0, 0, i32);
    MlirValue v = mlirOperationGetResult(link, 0);
    CU_ASSERT_EQUAL_FATAL(o.after_eqn(o.data, &v, 1, i ? &prev : NULL, i ? 1 : 0, &err), LSIM_OK);
    prev = v;
  }
  op(main, "func.return", &prev, 1, NULL, 0, NULL, 0, 0, 0, i32);
  CU_ASSERT_EQUAL(lsimp_spill_finish(sp, &err), LSIM_OK);
  CU_ASSERT_EQUAL(lsimp_spill_ops_printed(sp), CHAIN_OPS + 1);
  CU_ASSERT(lsimp_spill_ops_peak(sp) <= 3);
  size_t left = 0;
  for (MlirOperation x = mlirBlockGetFirstOperation(main); !mlirOperationIsNull(x);
       x = mlirOperationGetNextInBlock(x))
    left++;
  CU_ASSERT_EQUAL(left, 2); /* the last link, hollowed out, and the return */
  CU_ASSERT_EQUAL(lsimp_spill_seal(sp, &err), LSIM_OK);
  lsimp_strbuf got = LSIMP_STRBUF_INIT;
  CU_ASSERT_TRUE(lsimp_spill_print(sp, mlirModuleGetOperation(m), LSIMP_PRINT_OWN,
                                   lsimp_strbuf_write, &got));
  /* Each link's region reads the link before it, by main's numbers. */
  CU_ASSERT_PTR_NOT_NULL(strstr(lsimp_strbuf_cstr(&got), "    %49 = \"t.link\"() ({\n"
                                                         "      \"t.ret\"(%48)"));
  CU_ASSERT_PTR_NOT_NULL(
      strstr(lsimp_strbuf_cstr(&got), "    return %49 : tensor<i32>\n  }\n}"));
  lsimp_strbuf_free(&got);
  lsimp_spill_destroy(sp);
  mlirModuleDestroy(m);
  mlirContextDestroy(c);
}

/* --- lsim_lower with stream_min_eqns ------------------------------------------ */

enum { CHAIN = 300 };

/* sin applied CHAIN times to f32[8], for (cpu, tpu): a case per equation. */
typedef struct chain {
  lsim_aval arg;
  lsim_eqn eqns[CHAIN];
  size_t operands[CHAIN];
  lsim_program prog;
} chain;

static void make_chain(chain *c) {
  c->arg = (lsim_aval){.dtype = LSIM_DTYPE_F32, .rank = 1, .dims = {8}};
  for (size_t i = 0; i < CHAIN; i++) {
    c->operands[i] = i;
    c->eqns[i] = (lsim_eqn){.primitive = &lsim_sin_p, .operands = &c->operands[i],
                            .num_operands = 1, .results = &c->arg, .num_results = 1};
  }
  c->prog = (lsim_program){.function_name = "f", .args = &c->arg, .num_args = 1,
                           .eqns = c->eqns, .num_eqns = CHAIN};
}

static char *lower_chain(const lsim_registry *reg, size_t stream_min_eqns, bool *placeholder) {
  static chain c;
  make_chain(&c);
  static const char *const platforms[] = {"cpu", "tpu"};
  lsim_lowering_request req = LSIM_LOWERING_REQUEST_INIT(
      .registry = reg, .program = &c.prog, .platforms = platforms, .num_platforms = 2,
      .stream_min_eqns = stream_min_eqns);
  lsim_lowering *low = NULL;
  lsim_error err = LSIM_ERROR_INIT;
  CU_ASSERT_EQUAL_FATAL(lsim_lower(lowerer, &req, &low, &err), LSIM_OK);
  MlirOperation module = mlirModuleGetOperation(lsim_lowering_module(low));
  MlirOperation main = mlirBlockGetFirstOperation(
      mlirRegionGetFirstBlock(mlirOperationGetRegion(module, 0)));
  MlirOperation first = mlirBlockGetFirstOperation(
      mlirRegionGetFirstBlock(mlirOperationGetRegion(main, 0)));
  MlirStringRef name = mlirIdentifierStr(mlirOperationGetName(first));
  *placeholder = name.length == strlen("lsimp.spilled_body") &&
                 memcmp(name.data, "lsimp.spilled_body", name.length) == 0;
  char *text = lsim_lowering_print(low);
  /* Printed twice, the same text (the file is read again). */
  char *again = lsim_lowering_print(low);
  CU_ASSERT_STRING_EQUAL(text, again);
  free(again);
  lsim_lowering_destroy(low);
  return text;
}

static void test_streamed_lowering(void) {
  lsim_registry *reg = NULL;
  CU_ASSERT_EQUAL_FATAL(lsim_registry_create_jax(runtime, NULL, NULL, &reg, NULL), LSIM_OK);
  bool placeholder;
  char *whole = lower_chain(reg, 0, &placeholder);
  CU_ASSERT_FALSE(placeholder);
  char *streamed = lower_chain(reg, CHAIN, &placeholder);
  CU_ASSERT_TRUE(placeholder);
  CU_ASSERT_STRING_EQUAL(streamed, whole);
  /* One more equation than the program has: not streamed. */
  free(streamed);
  streamed = lower_chain(reg, CHAIN + 1, &placeholder);
  CU_ASSERT_FALSE(placeholder);
  CU_ASSERT_STRING_EQUAL(streamed, whole);
  free(streamed);
  /* No temporary file: the whole module, the same text. */
  char *tmpdir = getenv("TMPDIR") ? strdup(getenv("TMPDIR")) : NULL;
  setenv("TMPDIR", "/nonexistent/lowersim", 1);
  streamed = lower_chain(reg, 1, &placeholder);
  CU_ASSERT_FALSE(placeholder);
  CU_ASSERT_STRING_EQUAL(streamed, whole);
  if (tmpdir)
    setenv("TMPDIR", tmpdir, 1);
  else
    unsetenv("TMPDIR");
  free(tmpdir);
  free(streamed);
  free(whole);
  lsim_registry_destroy(reg);
}

static CU_TestInfo tests[] = {
    {"the printer gives MLIR's text", test_printer_is_mlirs},
    {"an op it cannot print is refused", test_refuses_what_it_cannot_print},
    {"an op put before printed ones is refused", test_refuses_an_op_put_before},
    {"main's calls are checked as the module's verifier does", test_checks_main_calls},
    {"an op is freed once nothing reads it", test_frees_what_nothing_reads},
    {"lsim_lower with stream_min_eqns", test_streamed_lowering},
    CU_TEST_INFO_NULL,
};

CU_SuiteInfo spill_suite[] = {{"spill", suite_init, suite_clean, NULL, NULL, tests},
                              CU_SUITE_INFO_NULL};
