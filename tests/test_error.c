/* tests/test_error.c: the error catalogue, message rendering, Python reprs
 * and avals as JAX prints them. */
#include "lowersim/aval.h"
#include "lowersim/error.h"
#include "lowersim/version.h"
#include "support/raise.h"
#include "support/strbuf.h"
#include "tests/suites.h"

#include <stdio.h>
#include <string.h>

/* Every code of the error catalogue, with JAX's class. */
static const struct {
  const char *name;
  const char *cls;
} contract[] = {
    {"LSIM_E_BACKEND_PLATFORM_MISMATCH", "ValueError"},
    {"LSIM_E_MULTI_PLATFORM_BACKEND", "NotImplementedError"},
    {"LSIM_E_TOO_MANY_CHANNELS", "RuntimeError"},
    {"LSIM_E_UNKNOWN_ALIAS_PLATFORM", "RuntimeError"},
    {"LSIM_E_UNKNOWN_BACKEND", "RuntimeError"},
    {"LSIM_E_BACKEND_FAILED", "RuntimeError"},
    {"LSIM_E_BACKEND_INIT", "RuntimeError"},
    {"LSIM_E_UNKNOWN_RULE_PLATFORM", "NotImplementedError"},
    {"LSIM_E_NO_LOWERING_RULE", "NotImplementedError"},
    {"LSIM_E_DONATION_MIXED", "NotImplementedError"},
    {"LSIM_E_PLATFORM_DEPENDENT_GPU", "ValueError"},
    {"LSIM_E_BUFFER_CALLBACK_MULTI_PLATFORM", "NotImplementedError"},
    {"LSIM_E_BUFFER_CALLBACK_UNSUPPORTED", "ValueError"},
    {"LSIM_E_CALLBACK_RETURNED_VALUES", "ValueError"},
    {"LSIM_E_ALIAS_INPUT_RANGE", "ValueError"},
    {"LSIM_E_ALIAS_OUTPUT_RANGE", "ValueError"},
    {"LSIM_E_ALIAS_AVAL_MISMATCH", "ValueError"},
    {"LSIM_E_PYTHON_CALLBACK_MULTI_PLATFORM", "NotImplementedError"},
    {"LSIM_E_PYTHON_CALLBACK_UNSUPPORTED", "ValueError"},
    {"LSIM_E_PARTITIONED_CALLBACK_PLATFORM", "NotImplementedError"},
    {"LSIM_E_PARTITIONED_CALLBACK_RESULTS", "ValueError"},
    {"LSIM_E_PALLAS_PARAMS_PLATFORM", "ValueError"},
    {"LSIM_E_PALLAS_CPU_NOT_INTERPRET", "ValueError"},
    {"LSIM_E_PALLAS_UNSUPPORTED_PLATFORM", "ValueError"},
    {"LSIM_E_PALLAS_MOSAIC_GPU_ROCM", "ValueError"},
    {"LSIM_E_PALLAS_CONSTANTS", "ValueError"},
};

static void test_catalogue_has_every_contract_code(void) {
  for (size_t i = 0; i < sizeof contract / sizeof contract[0]; i++) {
    int code = lsim_status_from_name(contract[i].name);
    CU_ASSERT_TRUE_FATAL(code < 0);
    CU_ASSERT_STRING_EQUAL(lsim_status_name(code), contract[i].name);
    CU_ASSERT_STRING_EQUAL(lsim_status_class(code), contract[i].cls);
    CU_ASSERT_PTR_NOT_NULL(lsim_status_template(code));
    CU_ASSERT_PTR_NOT_NULL(lsim_status_reference(code));
  }
}

static void test_catalogue_codes_are_distinct_and_named(void) {
  size_t n = lsim_status_count();
  CU_ASSERT_TRUE(n >= sizeof contract / sizeof contract[0] + 4);
  for (size_t i = 0; i < n; i++) {
    lsim_status code = lsim_status_at(i);
    CU_ASSERT_TRUE(code < 0);
    CU_ASSERT_EQUAL(lsim_status_from_name(lsim_status_name(code)), code);
    for (size_t j = i + 1; j < n; j++)
      CU_ASSERT_NOT_EQUAL(code, lsim_status_at(j));
  }
  CU_ASSERT_EQUAL(lsim_status_at(n), LSIM_OK);
  CU_ASSERT_PTR_NULL(lsim_status_name(12345));
  CU_ASSERT_EQUAL(lsim_status_from_name("LSIM_E_NOPE"), LSIM_OK);
  CU_ASSERT_EQUAL(lsim_status_from_name(NULL), LSIM_OK);
}

/* Each code's doc section is PAGE#NAME: the scenario format's for an invalid
 * scenario, the generated behaviour page for every other code
 * (docs.self_contained checks that each anchor exists). */
static void test_catalogue_docs_are_anchored_by_name(void) {
  for (size_t i = 0; i < lsim_status_count(); i++) {
    lsim_status code = lsim_status_at(i);
    const char *doc = lsim_status_doc(code), *hash = doc ? strchr(doc, '#') : NULL;
    CU_ASSERT_PTR_NOT_NULL_FATAL(hash);
    CU_ASSERT_STRING_EQUAL(hash + 1, lsim_status_name(code));
    const char *page =
        code == LSIM_E_INVALID_INPUT ? "docs/scenario-format.md#" : "docs/jax-behaviour.md#";
    CU_ASSERT_EQUAL(strncmp(doc, page, strlen(page)), 0);
  }
  CU_ASSERT_STRING_EQUAL(lsim_status_doc(LSIM_E_BACKEND_PLATFORM_MISMATCH),
                         "docs/jax-behaviour.md#LSIM_E_BACKEND_PLATFORM_MISMATCH");
  CU_ASSERT_PTR_NULL(lsim_status_doc(12345));
  CU_ASSERT_PTR_NULL(lsim_status_doc(LSIM_OK));
}

static void test_raise_substitutes_in_order_and_repeats(void) {
  lsim_error err = LSIM_ERROR_INIT;
  int rc = lsimp_raise(&err, LSIM_E_UNKNOWN_ALIAS_PLATFORM, "gpu", "cpu,tpu");
  CU_ASSERT_EQUAL(rc, LSIM_E_UNKNOWN_ALIAS_PLATFORM);
  CU_ASSERT_EQUAL(err.code, LSIM_E_UNKNOWN_ALIAS_PLATFORM);
  CU_ASSERT_STRING_EQUAL(lsim_error_message(&err),
                         "Unknown backend: 'gpu' requested, but no platforms that are instances "
                         "of gpu are present. Platforms present are: cpu,tpu");
  CU_ASSERT_STRING_EQUAL(lsim_error_class(&err), "RuntimeError");
  lsimp_raise(&err, LSIM_E_ALIAS_INPUT_RANGE, "3", "0", "2");
  CU_ASSERT_STRING_EQUAL(lsim_error_message(&err),
                         "input_output_aliases contains the mapping '3:0' with input index 3 "
                         "outside the range [0, 2).");
  lsimp_raise0(&err, LSIM_E_PALLAS_MOSAIC_GPU_ROCM);
  CU_ASSERT_STRING_EQUAL(lsim_error_message(&err),
                         "Mosaic GPU does not yet support AMD ROCm devices. Use "
                         "``compiler_params=pltriton.CompilerParams()`` for ROCm.");
  lsim_error_clear(&err);
  CU_ASSERT_EQUAL(err.code, LSIM_OK);
  CU_ASSERT_STRING_EQUAL(lsim_error_message(&err), "");
  CU_ASSERT_EQUAL(lsimp_raise0(NULL, LSIM_E_TOO_MANY_CHANNELS), LSIM_E_TOO_MANY_CHANNELS);
}

static void test_error_move_and_oom(void) {
  lsim_error a = LSIM_ERROR_INIT, b = LSIM_ERROR_INIT;
  lsim_error_set(&a, LSIM_E_INVALID_ARGUMENT, "bad %d", 7);
  lsimp_error_move(&b, &a);
  CU_ASSERT_EQUAL(a.code, LSIM_OK);
  CU_ASSERT_STRING_EQUAL(lsim_error_message(&b), "bad 7");
  lsimp_fail_oom(&b);
  CU_ASSERT_EQUAL(b.code, LSIM_E_NO_MEMORY);
  CU_ASSERT_STRING_EQUAL(lsim_error_message(&b), "out of memory");
  CU_ASSERT_STRING_EQUAL(lsim_error_class(&b), "MemoryError");
  lsim_error_clear(&b);
}

static char *render(void (*fn)(lsimp_strbuf *, const char *const *, size_t),
                    const char *const *items, size_t n) {
  static char out[256];
  lsimp_strbuf sb = LSIMP_STRBUF_INIT;
  fn(&sb, items, n);
  strcpy(out, lsimp_strbuf_cstr(&sb));
  lsimp_strbuf_free(&sb);
  return out;
}

static void test_python_reprs(void) {
  const char *two[] = {"tpu", "rocm"};
  const char *one[] = {"cpu"};
  CU_ASSERT_STRING_EQUAL(render(lsimp_py_list, two, 2), "['tpu', 'rocm']");
  CU_ASSERT_STRING_EQUAL(render(lsimp_py_list, two, 0), "[]");
  CU_ASSERT_STRING_EQUAL(render(lsimp_py_tuple, two, 2), "('tpu', 'rocm')");
  CU_ASSERT_STRING_EQUAL(render(lsimp_py_tuple, one, 1), "('cpu',)");
  CU_ASSERT_STRING_EQUAL(render(lsimp_py_tuple, one, 0), "()");
  const char *odd[] = {"it's", "a\\b", "say \"hi\" it's", "tab\there"};
  CU_ASSERT_STRING_EQUAL(render(lsimp_py_list, odd, 4),
                         "[\"it's\", 'a\\\\b', 'say \"hi\" it\\'s', 'tab\\there']");
}

static void test_aval_printing_and_parsing(void) {
  char buf[LSIM_AVAL_TEXT_MAX];
  lsim_aval a = {.dtype = LSIM_DTYPE_F32};
  CU_ASSERT_EQUAL(lsim_aval_parse_shape(&a, "4", NULL), LSIM_OK);
  CU_ASSERT_STRING_EQUAL(lsim_aval_format(&a, buf, sizeof buf), "f32[4]");
  a.dtype = LSIM_DTYPE_I32;
  CU_ASSERT_EQUAL(lsim_aval_parse_shape(&a, "", NULL), LSIM_OK);
  CU_ASSERT_STRING_EQUAL(lsim_aval_format(&a, buf, sizeof buf), "i32[]");
  a.dtype = LSIM_DTYPE_BOOL;
  CU_ASSERT_EQUAL(lsim_aval_parse_shape(&a, "2,3", NULL), LSIM_OK);
  CU_ASSERT_STRING_EQUAL(lsim_aval_format(&a, buf, sizeof buf), "bool[2,3]");
  CU_ASSERT_EQUAL(lsim_aval_size(&a), 6);
  /* In host memory (compute_on's out_memory_spaces=Host): str_short's
   * `<host>`; equal avals are in one space, the same array in either. */
  lsim_aval host = a;
  host.memory_space = LSIM_MEMORY_HOST;
  CU_ASSERT_STRING_EQUAL(lsim_aval_format(&host, buf, sizeof buf), "bool<host>[2,3]");
  CU_ASSERT_STRING_EQUAL(lsim_aval_str(&host, buf, sizeof buf), "bool<host>[2,3]");
  CU_ASSERT_FALSE(lsim_aval_equal(&a, &host));
  CU_ASSERT_TRUE(lsim_aval_same_array(&a, &host));
  CU_ASSERT_STRING_EQUAL(lsim_memory_kind(LSIM_MEMORY_HOST), "pinned_host");
  CU_ASSERT_STRING_EQUAL(lsim_memory_kind(LSIM_MEMORY_DEVICE), "device");
  lsim_aval widest = {.dtype = LSIM_DTYPE_BF16, .rank = LSIM_MAX_RANK,
                      .memory_space = LSIM_MEMORY_HOST};
  for (int i = 0; i < LSIM_MAX_RANK; i++)
    widest.dims[i] = INT64_MAX;
  CU_ASSERT_EQUAL(strlen(lsim_aval_str(&widest, buf, sizeof buf)) + 1 <= LSIM_AVAL_TEXT_MAX, 1);
  CU_ASSERT_EQUAL(buf[strlen(buf) - 1], ']');
  /* 2^40 elements is fine to describe; an overflowing count is not. */
  CU_ASSERT_EQUAL(lsim_aval_parse_shape(&a, "1048576,1048576", NULL), LSIM_OK);
  lsim_error err = LSIM_ERROR_INIT;
  CU_ASSERT_EQUAL(lsim_aval_parse_shape(&a, "4294967296,4294967296", &err),
                  LSIM_E_INVALID_ARGUMENT);
  CU_ASSERT_STRING_EQUAL(lsim_error_message(&err),
                         "the element count of the shape overflows a 64-bit integer");
  CU_ASSERT_EQUAL(lsim_aval_parse_shape(&a, "-1", &err), LSIM_E_INVALID_ARGUMENT);
  CU_ASSERT_EQUAL(lsim_aval_parse_shape(&a, "2,", &err), LSIM_E_INVALID_ARGUMENT);
  CU_ASSERT_EQUAL(lsim_aval_parse_shape(&a, "99999999999999999999", &err),
                  LSIM_E_INVALID_ARGUMENT);
  CU_ASSERT_EQUAL(lsim_aval_parse_shape(&a, "1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1", &err),
                  LSIM_E_INVALID_ARGUMENT);
  lsim_error_clear(&err);
  lsim_dtype d;
  CU_ASSERT_TRUE(lsim_dtype_from_name("bf16", &d) && d == LSIM_DTYPE_BF16);
  CU_ASSERT_FALSE(lsim_dtype_from_name("f8", &d));
  CU_ASSERT_STRING_EQUAL(lsim_dtype_mlir_name(LSIM_DTYPE_U32), "ui32");
  CU_ASSERT_STRING_EQUAL(lsim_dtype_mlir_name(LSIM_DTYPE_BOOL), "i1");
}

/* Every code has a kind; lowersim's own codes say whose fault they are. */
static void test_status_kinds(void) {
  CU_ASSERT_EQUAL(lsim_status_kind(LSIM_OK), LSIM_KIND_OK);
  for (size_t i = 0; i < sizeof contract / sizeof contract[0]; i++)
    CU_ASSERT_EQUAL(lsim_status_kind(lsim_status_from_name(contract[i].name)), LSIM_KIND_JAX_ERROR);
  CU_ASSERT_EQUAL(lsim_status_kind(LSIM_E_NO_DEFAULT_BACKEND), LSIM_KIND_JAX_ERROR);
  CU_ASSERT_EQUAL(lsim_status_kind(LSIM_E_PALLAS_FOREIGN_PARAMS), LSIM_KIND_JAX_ERROR);
  CU_ASSERT_EQUAL(lsim_status_kind(LSIM_E_INVALID_ARGUMENT), LSIM_KIND_INVALID_INPUT);
  CU_ASSERT_EQUAL(lsim_status_kind(LSIM_E_INVALID_INPUT), LSIM_KIND_INVALID_INPUT);
  CU_ASSERT_EQUAL(lsim_status_kind(LSIM_E_IO), LSIM_KIND_INVALID_INPUT);
  CU_ASSERT_EQUAL(lsim_status_kind(LSIM_E_NO_MEMORY), LSIM_KIND_NO_MEMORY);
  CU_ASSERT_EQUAL(lsim_status_kind(LSIM_E_VERIFY), LSIM_KIND_LOWERSIM_BUG);
  CU_ASSERT_EQUAL(lsim_status_kind(-99), LSIM_KIND_LOWERSIM_BUG);
  CU_ASSERT_EQUAL(lsim_status_kind(7), LSIM_KIND_LOWERSIM_BUG);
  /* Every catalogue entry is one of the four failing kinds. */
  for (size_t i = 0; i < lsim_status_count(); i++) {
    lsim_kind k = lsim_status_kind(lsim_status_at(i));
    CU_ASSERT_TRUE(k == LSIM_KIND_JAX_ERROR || k == LSIM_KIND_INVALID_INPUT ||
                   k == LSIM_KIND_NO_MEMORY || k == LSIM_KIND_LOWERSIM_BUG);
  }
}

/* lsim_error_set: free text for lowersim's codes; none allocated for memory. */
static void test_error_set(void) {
  lsim_error err = LSIM_ERROR_INIT;
  CU_ASSERT_EQUAL(lsim_error_set(&err, LSIM_E_INVALID_ARGUMENT, "bad %s %d", "thing", 7),
                  LSIM_E_INVALID_ARGUMENT);
  CU_ASSERT_EQUAL(err.code, LSIM_E_INVALID_ARGUMENT);
  CU_ASSERT_STRING_EQUAL(lsim_error_message(&err), "bad thing 7");
  CU_ASSERT_EQUAL(lsim_error_set(&err, LSIM_E_NO_MEMORY, "ignored %d", 1), LSIM_E_NO_MEMORY);
  CU_ASSERT_PTR_NULL(err.message);
  CU_ASSERT_STRING_EQUAL(lsim_error_message(&err), "out of memory");
  CU_ASSERT_EQUAL(lsim_error_set(NULL, LSIM_E_IO, "nowhere"), LSIM_E_IO);
  lsim_error_clear(&err);
}

/* The library's version is the headers' and reads as MAJOR.MINOR.PATCH. */
static void test_version(void) {
  char expect[32];
  snprintf(expect, sizeof expect, "%d.%d.%d", LOWERSIM_VERSION_MAJOR, LOWERSIM_VERSION_MINOR,
           LOWERSIM_VERSION_PATCH);
  CU_ASSERT_STRING_EQUAL(LOWERSIM_VERSION_STRING, expect);
  CU_ASSERT_STRING_EQUAL(lsim_version(), LOWERSIM_VERSION_STRING);
  CU_ASSERT_TRUE(LOWERSIM_VERSION_AT_LEAST(0, 0, 0));
  CU_ASSERT_TRUE(LOWERSIM_VERSION_AT_LEAST(LOWERSIM_VERSION_MAJOR, LOWERSIM_VERSION_MINOR,
                                           LOWERSIM_VERSION_PATCH));
  CU_ASSERT_FALSE(LOWERSIM_VERSION_AT_LEAST(LOWERSIM_VERSION_MAJOR, LOWERSIM_VERSION_MINOR,
                                            LOWERSIM_VERSION_PATCH + 1));
  CU_ASSERT_FALSE(LOWERSIM_VERSION_AT_LEAST(LOWERSIM_VERSION_MAJOR + 1, 0, 0));
}

static CU_TestInfo tests[] = {
    {"version", test_version},
    {"status kinds", test_status_kinds},
    {"lsim_error_set", test_error_set},
    {"catalogue has every contract code", test_catalogue_has_every_contract_code},
    {"catalogue codes are distinct and named", test_catalogue_codes_are_distinct_and_named},
    {"catalogue docs are anchored by name", test_catalogue_docs_are_anchored_by_name},
    {"raise substitutes in order and repeats", test_raise_substitutes_in_order_and_repeats},
    {"error move and out of memory", test_error_move_and_oom},
    {"python reprs", test_python_reprs},
    {"aval printing and parsing", test_aval_printing_and_parsing},
    CU_TEST_INFO_NULL,
};

CU_SuiteInfo error_suite[] = {{"error", NULL, NULL, NULL, NULL, tests}, CU_SUITE_INFO_NULL};
