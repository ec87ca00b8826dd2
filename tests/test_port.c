#define _GNU_SOURCE
/* tests/test_port.c: the judge of a port's answer (scenario/scenario_port.c).
 *
 * Pallas kernels carried as MLIR bytecode in tpu_custom_call's JSON and in
 * Mosaic GPU's mhlo.backend_config: equal kernels pass however their
 * bytecode's producer is named (a note, never a difference), a different
 * kernel fails naming the kernel and its first differing op, with the
 * decoded text in the diff and no base64; a kernel_hash that is not the
 * SHA-256 of its module fails; error lines compare but for a default
 * repr's address and the order of lax's accepted dtypes; an options struct
 * without its size is refused. */
#include "lowersim/alloc.h"
#include "lowersim/lowering.h"
#include "lowersim/scenario_port.h"
#include "support/encode.h"
#include "support/mlir_text.h"
#include "support/strbuf.h"
#include "tests/suites.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static lsim_lowerer *lowerer;

static int suite_init(void) { return lsim_lowerer_create(&lowerer, NULL); }

static int suite_clean(void) {
  lsim_lowerer_destroy(lowerer);
  return 0;
}

static const char KERNEL[] =
    "module {\n"
    "  \"stable_mosaic.func.func\"() ({\n"
    "  ^bb0(%arg0: i32):\n"
    "    %0 = \"stable_mosaic.arith.constant\"() {value = 0 : i32} : () -> i32\n"
    "    \"stable_mosaic.func.return\"(%0) : (i32) -> ()\n"
    "  }) {sym_name = \"copy\"} : () -> ()\n"
    "}\n";

/* `text` as MLIR 19 bytecode, into `out`. */
static void bytecode(const char *text, lsimp_strbuf *out) {
  MlirContext ctx = mlirContextCreateWithThreading(false);
  mlirContextSetAllowUnregisteredDialects(ctx, true);
  MlirModule m = mlirModuleCreateParse(ctx, mlirStringRefCreateFromCString(text));
  CU_ASSERT_FATAL(!mlirModuleIsNull(m));
  mlirOperationWriteBytecode(mlirModuleGetOperation(m), lsimp_strbuf_append_mlir, out);
  mlirModuleDestroy(m);
  mlirContextDestroy(ctx);
}

/* A module whose tpu_custom_call carries `kernel` (bytecode, base64). */
static char *tpu_module(const char *kernel, const char *producer) {
  lsimp_strbuf bc = LSIMP_STRBUF_INIT, b64 = LSIMP_STRBUF_INIT, m = LSIMP_STRBUF_INIT;
  bytecode(kernel, &bc);
  char *p = memmem(bc.data, bc.len, "MLIR19.1.7", 10);
  CU_ASSERT_FATAL(p != NULL);
  if (producer)
    memcpy(p, producer, 10);
  lsimp_base64_encode(&b64, bc.data, bc.len);
  lsimp_strbuf_printf(
      &m,
      "module {\n  func.func public @main(%%arg0: tensor<4xf32>) -> tensor<4xf32> {\n"
      "    %%0 = \"stablehlo.custom_call\"(%%arg0) {backend_config = \"{\\22custom_call_config\\22: "
      "{\\22body\\22: \\22%s\\22}}\", call_target_name = \"tpu_custom_call\"} : (tensor<4xf32>) -> "
      "tensor<4xf32>\n    return %%0 : tensor<4xf32>\n  }\n}\n",
      lsimp_strbuf_cstr(&b64));
  lsimp_strbuf_free(&bc);
  lsimp_strbuf_free(&b64);
  return lsimp_strbuf_take(&m);
}

/* A module whose mosaic_gpu_v2 call carries `kernel` and a kernel_hash:
 * its SHA-256, or (`wrong_hash`) another's. */
static char *mosaic_gpu_module(const char *kernel, bool wrong_hash) {
  lsimp_strbuf bc = LSIMP_STRBUF_INIT, m = LSIMP_STRBUF_INIT;
  bytecode(kernel, &bc);
  uint8_t digest[32];
  lsimp_sha256(bc.data, bc.len, digest);
  digest[0] ^= wrong_hash;
  lsimp_strbuf_puts(&m, "module {\n  func.func public @main(%arg0: tensor<4xf32>) -> tensor<4xf32> "
                        "{\n    %0 = \"stablehlo.custom_call\"(%arg0) {call_target_name = "
                        "\"mosaic_gpu_v2\", mhlo.backend_config = {kernel_hash = \"");
  for (int i = 0; i < 32; i++)
    lsimp_strbuf_printf(&m, "\\%02X", digest[i]);
  lsimp_strbuf_puts(&m, "\", module = \"");
  for (size_t i = 0; i < bc.len; i++)
    lsimp_strbuf_printf(&m, "\\%02X", (unsigned char)bc.data[i]);
  lsimp_strbuf_puts(&m, "\"}} : (tensor<4xf32>) -> tensor<4xf32>\n    return %0 : tensor<4xf32>\n"
                        "  }\n}\n");
  lsimp_strbuf_free(&bc);
  return lsimp_strbuf_take(&m);
}

static lsim_scenario_port_verdict judge_module(const char *ours, const char *theirs) {
  lsim_scenario_port_expected e = {.module = ours};
  lsim_scenario_port_answer a = {.how = LSIM_SCENARIO_PORT_EXITED, .code = 0, .out = theirs};
  lsim_scenario_port_options o = LSIM_SCENARIO_PORT_OPTIONS_INIT();
  lsim_scenario_port_verdict v;
  lsim_error err = LSIM_ERROR_INIT;
  CU_ASSERT_EQUAL(lsim_scenario_port_judge(lsim_lowerer_mlir_context(lowerer), &e, &a, &o, &v,
                                           &err),
                  LSIM_OK);
  lsim_error_clear(&err);
  return v;
}

static void test_tpu_kernels(void) {
  char *ours = tpu_module(KERNEL, NULL);
  /* The same kernel by another MLIR: passes, the producers a note. */
  char *same = tpu_module(KERNEL, "MLIR99.9.9");
  lsim_scenario_port_verdict v = judge_module(ours, same);
  CU_ASSERT_TRUE(v.passed);
  CU_ASSERT_PTR_NULL(v.first);
  CU_ASSERT_PTR_NOT_NULL_FATAL(v.notes);
  CU_ASSERT_STRING_EQUAL(v.notes, "kernel 0 (tpu_custom_call backend_config "
                                  "custom_call_config.body): bytecode version 6 by \"MLIR19.1.7\" "
                                  "(lowersim), version 6 by \"MLIR99.9.9\" (the implementation)");
  lsim_scenario_port_verdict_clear(&v);
  /* Another kernel: its first differing op, the decoded text, no base64. */
  char *kernel = lsim_strdup(KERNEL);
  memcpy(strstr(kernel, "value = 0"), "value = 7", 9);
  char *other = tpu_module(kernel, NULL);
  v = judge_module(ours, other);
  CU_ASSERT_FALSE(v.passed);
  CU_ASSERT_STRING_EQUAL(v.first,
                         "first difference: kernel 0 (tpu_custom_call backend_config "
                         "custom_call_config.body), line 4, stable_mosaic.arith.constant, "
                         "attribute value: lowersim \"...() {value = 0 : i32} : () -> i32\" port "
                         "\"...() {value = 7 : i32} : () -> i32\"");
  CU_ASSERT_PTR_NOT_NULL(strstr(v.difference, "\n-    %0 = \"stable_mosaic.arith.constant\"() "
                                              "{value = [-0-] : i32} : () -> i32\n"));
  CU_ASSERT_PTR_NOT_NULL(strstr(v.difference, "{value = {+7+} : i32}"));
  CU_ASSERT_PTR_NULL(strstr(v.difference, "TUzv")); /* "ML\xefR" in base64 */
  CU_ASSERT_STRING_EQUAL(v.expected_module, "...() {value = 0 : i32} : () -> i32");
  lsim_scenario_port_verdict_clear(&v);
  /* No kernel on the port's side: one first difference, the module's. */
  v = judge_module(ours, "module {\n}\n");
  CU_ASSERT_FALSE(v.passed);
  CU_ASSERT_STRING_EQUAL(v.first, "first difference: line 2, func.func: lowersim \"  func.func "
                                  "public @main(%arg0: tensor<4...\" port \"}\"");
  lsim_scenario_port_verdict_clear(&v);
  free(kernel), free(other), free(same), free(ours);
}

static void test_mosaic_gpu_kernel_hash(void) {
  char *ours = mosaic_gpu_module(KERNEL, false), *good = mosaic_gpu_module(KERNEL, false);
  char *bad = mosaic_gpu_module(KERNEL, true);
  lsim_scenario_port_verdict v = judge_module(ours, good);
  CU_ASSERT_TRUE(v.passed);
  CU_ASSERT_PTR_NULL(v.notes);
  lsim_scenario_port_verdict_clear(&v);
  v = judge_module(ours, bad);
  CU_ASSERT_FALSE(v.passed);
  CU_ASSERT_STRING_EQUAL(v.first, "first difference: kernel 0 (mosaic_gpu_v2 mhlo.backend_config "
                                  "module): kernel_hash is not the SHA-256 of the module on the "
                                  "implementation's side");
  lsim_scenario_port_verdict_clear(&v);
  free(ours), free(good), free(bad);
}

static lsim_scenario_port_verdict judge_error(const char *cls, const char *msg, const char *err) {
  lsim_scenario_port_expected e = {.error_class = cls, .error_message = msg};
  lsim_scenario_port_answer a = {.how = LSIM_SCENARIO_PORT_EXITED, .code = 1, .err = err};
  lsim_scenario_port_verdict v;
  lsim_error le = LSIM_ERROR_INIT;
  CU_ASSERT_EQUAL(lsim_scenario_port_judge(lsim_lowerer_mlir_context(lowerer), &e, &a, NULL, &v,
                                           &le),
                  LSIM_OK);
  lsim_error_clear(&le);
  return v;
}

static void test_error_lines(void) {
  static const char msg[] = "sub does not accept dtype bool. Accepted dtypes are subtypes of "
                            "integer, floating, complexfloating.\nsee <E object at 0x7f01>";
  lsim_scenario_port_verdict v = judge_error(
      "TypeError", msg,
      "warning: x\nLSIM_E_X: TypeError: sub does not accept dtype bool. Accepted dtypes are "
      "subtypes of integer, complexfloating, floating.\\nsee <E object at 0x7fabcdef>\n");
  CU_ASSERT_TRUE(v.passed);
  lsim_scenario_port_verdict_clear(&v);
  v = judge_error("TypeError", msg, "ValueError: sub\n");
  CU_ASSERT_FALSE(v.passed);
  CU_ASSERT_STRING_EQUAL(v.first,
                         "first difference: the error's class: lowersim \"TypeError\" port "
                         "\"ValueError\"");
  CU_ASSERT_STRING_EQUAL(v.actual_class, "ValueError");
  CU_ASSERT_STRING_EQUAL(v.actual_message, "sub");
  CU_ASSERT_STRING_EQUAL(v.expected_message, msg);
  lsim_scenario_port_verdict_clear(&v);
  v = judge_error("TypeError", msg, "nothing of the form\n");
  CU_ASSERT_STRING_EQUAL(v.first, "expected the error \"TypeError: sub does not accept dtype "
                                  "bool. Accepted dtypes are subtypes of integer, floating, "
                                  "complexfloating.\\nsee <E object at 0x7f01>\"; the "
                                  "implementation exits 1 and no line of its stderr is "
                                  "`ErrorClass: message`: nothing of the form");
  CU_ASSERT_STRING_EQUAL(v.difference, v.first);
  lsim_scenario_port_verdict_clear(&v);
}

static void test_options_without_size(void) {
  lsim_scenario_port_expected e = {.module = "module {}"};
  lsim_scenario_port_answer a = {.out = "module {}"};
  lsim_scenario_port_options o = {0};
  lsim_scenario_port_verdict v;
  lsim_error err = LSIM_ERROR_INIT;
  CU_ASSERT_EQUAL(lsim_scenario_port_judge(lsim_lowerer_mlir_context(lowerer), &e, &a, &o, &v,
                                           &err),
                  LSIM_E_INVALID_ARGUMENT);
  CU_ASSERT_FALSE(v.passed);
  lsim_error_clear(&err);
}

static void test_attribute_one_side_has(void) {
  static const char ours[] =
      "module {\n  func.func public @main(%arg0: tensor<4xf32>) -> tensor<4xf32> {\n"
      "    %0 = \"stablehlo.custom_call\"(%arg0) {call_target_name = \"foo\"} : (tensor<4xf32>) "
      "-> tensor<4xf32>\n    return %0 : tensor<4xf32>\n  }\n}\n";
  char *theirs = lsim_strdup(ours);
  lsimp_strbuf t = LSIMP_STRBUF_INIT;
  const char *at = strstr(ours, "} : (tensor");
  lsimp_strbuf_append(&t, ours, (size_t)(at - ours));
  lsimp_strbuf_puts(&t, ", has_side_effect = true");
  lsimp_strbuf_puts(&t, at);
  lsim_scenario_port_verdict v = judge_module(ours, lsimp_strbuf_cstr(&t));
  CU_ASSERT_STRING_EQUAL(v.first, "first difference: line 3, stablehlo.custom_call @foo, "
                                  "attribute has_side_effect: lowersim \"...name = \"foo\"} : "
                                  "(tensor<4xf32>) -> tenso...\" port \"...name = \"foo\", "
                                  "has_side_effect = true} : ...\"");
  lsim_scenario_port_verdict_clear(&v);
  lsimp_strbuf_free(&t);
  free(theirs);
}

/* A NUL byte on either stream fails, saying where; the bytes are judged
 * with their lengths, so junk after it is not hidden. */
static void test_nul_bytes(void) {
  static const char out[] = "module {\n}\n\0junk";
  lsim_scenario_port_expected e = {.module = "module {\n}\n"};
  lsim_scenario_port_answer a = {.out = out, .out_len = sizeof out - 1};
  lsim_scenario_port_options o = LSIM_SCENARIO_PORT_OPTIONS_INIT();
  lsim_scenario_port_verdict v;
  lsim_error err = LSIM_ERROR_INIT;
  CU_ASSERT_EQUAL(lsim_scenario_port_judge(lsim_lowerer_mlir_context(lowerer), &e, &a, &o, &v,
                                           &err),
                  LSIM_OK);
  CU_ASSERT_FALSE(v.passed);
  CU_ASSERT_STRING_EQUAL(v.first, "the implementation's stdout holds a NUL byte at offset 11 "
                                  "(after \"module {\\x0a}\\x0a\"); no module or error line "
                                  "holds one");
  lsim_scenario_port_verdict_clear(&v);
  /* Without a length, up to the first NUL (strlen): the old callers. */
  a.out_len = 0;
  CU_ASSERT_EQUAL(lsim_scenario_port_judge(lsim_lowerer_mlir_context(lowerer), &e, &a, &o, &v,
                                           &err),
                  LSIM_OK);
  CU_ASSERT_TRUE(v.passed);
  lsim_scenario_port_verdict_clear(&v);
  static const char line[] = "ValueError: no\n\0\nValueError: yes";
  lsim_scenario_port_expected ee = {.error_class = "ValueError", .error_message = "yes"};
  lsim_scenario_port_answer ea = {.code = 1, .err = line, .err_len = sizeof line - 1};
  CU_ASSERT_EQUAL(lsim_scenario_port_judge(lsim_lowerer_mlir_context(lowerer), &ee, &ea, &o, &v,
                                           &err),
                  LSIM_OK);
  CU_ASSERT_FALSE(v.passed);
  CU_ASSERT_STRING_EQUAL(v.first, "the implementation's stderr holds a NUL byte at offset 15 "
                                  "(after \"ValueError: no\\x0a\"); no module or error line "
                                  "holds one");
  lsim_scenario_port_verdict_clear(&v);
}

/* {scenario} becomes a reference to $LOWERSIM_SCENARIO quoted for where it
 * stands, escaped quotes and backslashes followed. */
static void test_port_command(void) {
  static const char *const cases[][2] = {
      {"tool {scenario}", "tool \"${LOWERSIM_SCENARIO}\""},
      {"tool \"{scenario}\"", "tool \"${LOWERSIM_SCENARIO}\""},
      {"tool '{scenario}'", "tool ''\"${LOWERSIM_SCENARIO}\"''"},
      {"tool --in={scenario}.xml", "tool --in=\"${LOWERSIM_SCENARIO}\".xml"},
      {"tool \"a'{scenario}\" '\"{scenario}'", "tool \"a'${LOWERSIM_SCENARIO}\" '\"'\"${LOWERSIM_SCENARIO}\"''"},
      {"tool \\\"{scenario}", "tool \\\"\"${LOWERSIM_SCENARIO}\""},
      {"tool \"\\\"{scenario}\"", "tool \"\\\"${LOWERSIM_SCENARIO}\""},
      {"no placeholder {scen", "no placeholder {scen"},
      {"", ""},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    char *got = lsim_scenario_port_command(cases[i][0]);
    CU_ASSERT_PTR_NOT_NULL_FATAL(got);
    if (strcmp(got, cases[i][1]) != 0)
      fprintf(stderr, "\n%s\n  gives %s\n  wants %s\n", cases[i][0], got, cases[i][1]);
    CU_ASSERT_STRING_EQUAL(got, cases[i][1]);
    free(got);
  }
}

/* A module of `n` ops `"x.op"() {i = K}`, K = i, but -(i + 7) where
 * `edit` says (1: one op in 1,000, from op 1; 2: every second op). */
static char *ops_module(int n, int edit) {
  lsimp_strbuf m = LSIMP_STRBUF_INIT;
  lsimp_strbuf_puts(&m, "module {\n  func.func public @main() {\n");
  for (int i = 0; i < n; i++) {
    bool changed = (edit == 1 && i % 1000 == 1) || (edit == 2 && i % 2 == 0);
    lsimp_strbuf_printf(&m, "    \"x.op\"() {i = %d : i32} : () -> ()\n", changed ? -(i + 7) : i);
  }
  lsimp_strbuf_puts(&m, "    return\n  }\n}\n");
  return lsimp_strbuf_take(&m);
}

/* The diff is the shortest edit script (Myers, at most 256 edits): 20,000
 * ops with one line in 1,000 changed is a hunk per change, each its line
 * removed and added with the word marked; past 256 edits the diff shows the
 * first 128 lines of each side from the first difference and says so, in
 * time linear in the module (the table of a longest common subsequence was
 * quadratic). */
static void test_diff_bounded(void) {
  char *ours = ops_module(20000, 0), *few = ops_module(20000, 1), *many = ops_module(20000, 2);
  lsim_scenario_port_verdict v = judge_module(ours, few);
  CU_ASSERT_FALSE(v.passed);
  const char *d = v.difference ? v.difference : "";
  size_t hunks = 0;
  for (const char *h = d; (h = strstr(h, "\n@@ ")); h++)
    hunks++;
  CU_ASSERT_EQUAL(hunks, 20);
  CU_ASSERT_PTR_NOT_NULL(strstr(d, "\n@@ -1,7 +1,7 @@\n module {\n"));
  CU_ASSERT_PTR_NOT_NULL(strstr(d, "\n-    \"x.op\"() {i = [-1-] : i32} : () -> ()\n"
                                   "+    \"x.op\"() {i = {+-8+} : i32} : () -> ()\n"));
  CU_ASSERT_PTR_NOT_NULL(strstr(d, "\n@@ -19001,7 +19001,7 @@\n"));
  CU_ASSERT_PTR_NULL(strstr(d, "more than 256 lines differ"));
  lsim_scenario_port_verdict_clear(&v);
  v = judge_module(ours, many);
  d = v.difference ? v.difference : "";
  CU_ASSERT_PTR_NOT_NULL(strstr(d, "--- lowersim\n+++ the implementation\n(more than 256 lines "
                                   "differ: the first 128 lines of each from the first "
                                   "difference, of 19999 and 19999)\n@@ -1,130 +1,130 @@\n"));
  size_t removed = 0, added = 0;
  for (const char *l = strstr(d, "@@ -1,130"); l && (l = strchr(l, '\n')); l++)
    removed += l[1] == '-', added += l[1] == '+';
  CU_ASSERT_EQUAL(removed, 128);
  CU_ASSERT_EQUAL(added, 128);
  lsim_scenario_port_verdict_clear(&v);
  free(ours), free(few), free(many);
}

static CU_TestInfo tests[] = {
    {"NUL bytes are judged, not an end", test_nul_bytes},
    {"{scenario} quoted for where it stands", test_port_command},
    {"an attribute one side has is named", test_attribute_one_side_has},
    {"the diff: shortest, bounded past 256 edits", test_diff_bounded},
    {"tpu_custom_call kernels decoded and compared", test_tpu_kernels},
    {"mosaic_gpu_v2's kernel_hash holds on each side", test_mosaic_gpu_kernel_hash},
    {"error lines", test_error_lines},
    {"an options struct without its size is refused", test_options_without_size},
    CU_TEST_INFO_NULL,
};

CU_SuiteInfo port_suite[] = {{"port", suite_init, suite_clean, NULL, NULL, tests},
                             CU_SUITE_INFO_NULL};
