/* tests/test_scenario.c: scenario files: every element and attribute read,
 * the defaults, the write/read round trip, and every class of invalid input
 * with its exact `PATH:LINE: message`. */
#include "lowersim/scenario.h"
#include "lowersim/scenario_generate.h"
#include "lowersim/scenario_kind.h"
#include "lowersim/scenario_run.h"
#include "scenario/kinds/kinds.h"
#include "support/strbuf.h"
#include "tests/suites.h"

#include <libxml/parser.h>

#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef LSIM_TEST_SOURCE_DIR
#error "tests/CMakeLists.txt defines LSIM_TEST_SOURCE_DIR"
#endif
#define FIXTURE(name) LSIM_TEST_SOURCE_DIR "/testdata/scenario-fixtures/" name

/* A scenario whose <lower> body starts on line 3. */
#define LOWER(body) "<scenario name=\"t\">\n<lower>\n" body "</lower>\n</scenario>\n"
/* A scenario with one f32[4] arg (value 0) whose body starts on line 4. */
#define LOWER_ARG(body) LOWER("<arg dtype=\"f32\" shape=\"4\"/>\n" body)

/* --- Helpers ------------------------------------------------------------- */

static lsim_scenario *read_text(const char *xml) {
  lsim_error err = LSIM_ERROR_INIT;
  lsim_scenario *s = NULL;
  int rc = lsim_scenario_read_memory(xml, strlen(xml), "t.xml", &s, &err);
  if (rc)
    fprintf(stderr, "\nunexpected failure: %s\n", lsim_error_message(&err));
  CU_ASSERT_EQUAL(rc, LSIM_OK);
  lsim_error_clear(&err);
  return s;
}

/* `xml` must fail as invalid input with a message starting with `expected`
 * (exactly `expected` when `exact`). */
static void check_invalid_text(const char *xml, size_t size, const char *expected, bool exact) {
  lsim_error err = LSIM_ERROR_INIT;
  lsim_scenario *s = (lsim_scenario *)&err; /* must be reset to NULL */
  int rc = lsim_scenario_read_memory(xml, size, "t.xml", &s, &err);
  CU_ASSERT_EQUAL(rc, LSIM_E_INVALID_INPUT);
  CU_ASSERT_EQUAL(err.code, LSIM_E_INVALID_INPUT);
  CU_ASSERT_PTR_NULL(s);
  const char *got = lsim_error_message(&err);
  bool ok = exact ? strcmp(got, expected) == 0 : strncmp(got, expected, strlen(expected)) == 0;
  if (!ok)
    fprintf(stderr, "\nexpected %s'%s'\n     got '%s'\n", exact ? "" : "a prefix ", expected, got);
  CU_ASSERT_TRUE(ok);
  lsim_error_clear(&err);
}

static void check_invalid(const char *xml, const char *message) {
  check_invalid_text(xml, strlen(xml), message, true);
}

/* For messages worded by libxml2, which may change between its versions. */
static void check_invalid_prefix(const char *xml, const char *prefix) {
  check_invalid_text(xml, strlen(xml), prefix, false);
}

static bool same_string(const char *a, const char *b) {
  return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

static bool same_strings(char *const *a, size_t na, char *const *b, size_t nb) {
  if (na != nb)
    return false;
  for (size_t i = 0; i < na; i++)
    if (!same_string(a[i], b[i]))
      return false;
  return true;
}

static bool same_avals(const lsim_aval *a, size_t na, const lsim_aval *b, size_t nb) {
  if (na != nb)
    return false;
  for (size_t i = 0; i < na; i++)
    if (!lsim_aval_equal(&a[i], &b[i]))
      return false;
  return true;
}

static bool same_indices(const size_t *a, size_t na, const size_t *b, size_t nb) {
  return na == nb && (na == 0 || memcmp(a, b, na * sizeof *a) == 0);
}

static void assert_same_backends(const lsim_scenario_runtime *a, const lsim_scenario_runtime *b) {
  CU_ASSERT_EQUAL(a->present, b->present);
  CU_ASSERT_TRUE(same_string(a->jax_platforms, b->jax_platforms));
  CU_ASSERT_EQUAL_FATAL(a->num_backends, b->num_backends);
  for (size_t i = 0; i < a->num_backends; i++) {
    const lsim_scenario_backend *x = &a->backends[i], *y = &b->backends[i];
    CU_ASSERT_TRUE(same_string(x->platform, y->platform));
    CU_ASSERT_EQUAL(x->devices, y->devices);
    CU_ASSERT_EQUAL(x->has_priority, y->has_priority);
    CU_ASSERT_EQUAL(x->priority, y->priority);
    CU_ASSERT_EQUAL(x->has_fail_quietly, y->has_fail_quietly);
    CU_ASSERT_EQUAL(x->fail_quietly, y->fail_quietly);
    CU_ASSERT_TRUE(same_string(x->error, y->error));
  }
}

/* The kinds' params, field by field (scenario/kinds/kinds.h). */
static void assert_same_kind_params(const lsim_scenario_eqn *x, const lsim_scenario_eqn *y) {
  const lsim_scenario_kind *k = x->kind;
  if (k == &lsimp_op_kind) {
    CU_ASSERT_EQUAL(((lsimp_op_params *)x->params)->op, ((lsimp_op_params *)y->params)->op);
  } else if (k == &lsimp_primitive_kind) {
    const lsimp_primitive_params *a = x->params, *b = y->params;
    CU_ASSERT_TRUE(same_string(a->name, b->name));
    CU_ASSERT_EQUAL(a->backend_use, b->backend_use);
    CU_ASSERT_EQUAL_FATAL(a->num_rules, b->num_rules);
    for (size_t i = 0; i < a->num_rules; i++) {
      CU_ASSERT_TRUE(same_string(a->rules[i].platform, b->rules[i].platform));
      CU_ASSERT_TRUE(same_string(a->rules[i].target, b->rules[i].target));
      CU_ASSERT_EQUAL(a->rules[i].has_lower_fun, b->rules[i].has_lower_fun);
      if (a->rules[i].has_lower_fun)
        CU_ASSERT_EQUAL(a->rules[i].lower_fun, b->rules[i].lower_fun);
      CU_ASSERT_EQUAL(a->rules[i].not_inline, b->rules[i].not_inline);
    }
  } else if (k == &lsimp_platform_dependent_kind) {
    const lsimp_platform_dependent_params *a = x->params, *b = y->params;
    CU_ASSERT_EQUAL_FATAL(a->num_branches, b->num_branches);
    for (size_t i = 0; i < a->num_branches; i++) {
      CU_ASSERT_TRUE(same_string(a->branches[i].platforms, b->branches[i].platforms));
      CU_ASSERT_EQUAL(a->branches[i].op, b->branches[i].op);
    }
  } else if (k == &lsimp_buffer_callback_kind) {
    const lsimp_buffer_callback_params *a = x->params, *b = y->params;
    CU_ASSERT_EQUAL(a->params.has_side_effect, b->params.has_side_effect);
    CU_ASSERT_EQUAL(a->params.command_buffer_compatible, b->params.command_buffer_compatible);
    CU_ASSERT_EQUAL(a->returns_value, b->returns_value);
    CU_ASSERT_EQUAL_FATAL(a->params.num_aliases, b->params.num_aliases);
    for (size_t i = 0; i < a->params.num_aliases; i++) {
      CU_ASSERT_EQUAL(a->params.aliases[i].input, b->params.aliases[i].input);
      CU_ASSERT_EQUAL(a->params.aliases[i].output, b->params.aliases[i].output);
    }
  } else if (k == &lsimp_pure_callback_kind || k == &lsimp_io_callback_kind ||
             k == &lsimp_debug_callback_kind) {
    const lsimp_python_callback_params *a = x->params, *b = y->params;
    CU_ASSERT_EQUAL(a->params.ordered, b->params.ordered);
    CU_ASSERT_EQUAL(a->params.partitioned, b->params.partitioned);
  } else if (k == &lsimp_pallas_call_kind) {
    const lsimp_pallas_call_params *a = x->params, *b = y->params;
    CU_ASSERT_TRUE(same_string(a->params.kernel, b->params.kernel));
    CU_ASSERT_EQUAL(a->params.grid, b->params.grid);
    CU_ASSERT_EQUAL(a->params.interpret, b->params.interpret);
    CU_ASSERT_PTR_EQUAL(a->params.compiler_params, b->params.compiler_params);
    CU_ASSERT_EQUAL(a->params.has_constants, b->params.has_constants);
  } else if (k == &lsimp_ffi_call_kind) {
    const lsimp_ffi_call_params *a = x->params, *b = y->params;
    CU_ASSERT_TRUE(same_string(a->params.target_name, b->params.target_name));
    CU_ASSERT_EQUAL(a->params.has_side_effect, b->params.has_side_effect);
  } else if (k == &lsimp_compute_on_kind) {
    const lsimp_compute_on_params *a = x->params, *b = y->params;
    CU_ASSERT_TRUE(same_string(a->compute_type, b->compute_type));
    CU_ASSERT_EQUAL(a->op, b->op);
  } else {
    CU_FAIL("a kind the test does not know: compare its params here");
  }
}

static void assert_same_eqn(const lsim_scenario_eqn *x, const lsim_scenario_eqn *y) {
  CU_ASSERT_PTR_EQUAL_FATAL(x->kind, y->kind);
  CU_ASSERT_TRUE(same_indices(x->args, x->num_args, y->args, y->num_args));
  CU_ASSERT_TRUE(same_avals(x->results, x->num_results, y->results, y->num_results));
  assert_same_kind_params(x, y);
}

/* Equal as scenarios: everything but the path and line numbers. */
static void assert_same_scenario(const lsim_scenario *a, const lsim_scenario *b) {
  CU_ASSERT_TRUE(same_string(a->name, b->name));
  CU_ASSERT_TRUE(same_string(a->description, b->description));
  assert_same_backends(&a->runtime, &b->runtime);
  CU_ASSERT_EQUAL(a->has_pallas, b->has_pallas);
  CU_ASSERT_EQUAL(a->pallas.mosaic_tpu, b->pallas.mosaic_tpu);
  CU_ASSERT_EQUAL(a->pallas.triton, b->pallas.triton);
  CU_ASSERT_EQUAL(a->pallas.mosaic_gpu, b->pallas.mosaic_gpu);
  CU_ASSERT_EQUAL(a->pallas.use_mosaic_gpu, b->pallas.use_mosaic_gpu);
  CU_ASSERT_TRUE(same_string(a->function, b->function));
  CU_ASSERT_TRUE(same_string(a->platforms, b->platforms));
  CU_ASSERT_TRUE(same_string(a->backend, b->backend));
  CU_ASSERT_EQUAL_FATAL(a->num_args, b->num_args);
  for (size_t i = 0; i < a->num_args; i++) {
    CU_ASSERT_TRUE(lsim_aval_equal(&a->args[i].aval, &b->args[i].aval));
    CU_ASSERT_EQUAL(a->args[i].donated, b->args[i].donated);
  }
  CU_ASSERT_EQUAL_FATAL(a->num_eqns, b->num_eqns);
  for (size_t i = 0; i < a->num_eqns; i++)
    assert_same_eqn(&a->eqns[i], &b->eqns[i]);
  CU_ASSERT_EQUAL(a->has_return, b->has_return);
  CU_ASSERT_TRUE(same_indices(a->returns, a->num_returns, b->returns, b->num_returns));
  CU_ASSERT_EQUAL(a->execute, b->execute);
  const lsim_scenario_expect *x = &a->expect, *y = &b->expect;
  CU_ASSERT_EQUAL(x->present, y->present);
  CU_ASSERT_EQUAL(x->ok, y->ok);
  CU_ASSERT_TRUE(same_string(x->error, y->error));
  CU_ASSERT_TRUE(same_string(x->message, y->message));
  CU_ASSERT_TRUE(same_strings(x->contains, x->num_contains, y->contains, y->num_contains));
  CU_ASSERT_TRUE(same_strings(x->absent, x->num_absent, y->absent, y->num_absent));
}

/* Writes `s` into a heap string (owned), or NULL; `*rc` gets the status. */
static char *write_text(const lsim_scenario *s, int *rc, lsim_error *err) {
  char *text = NULL;
  size_t size = 0;
  FILE *f = open_memstream(&text, &size);
  CU_ASSERT_PTR_NOT_NULL_FATAL(f);
  *rc = lsim_scenario_write(s, f, err);
  fclose(f);
  if (*rc) {
    free(text);
    return NULL;
  }
  return text;
}

/* read -> write -> read gives an equal scenario; returns the written text. */
static void check_round_trip(const lsim_scenario *s) {
  lsim_error err = LSIM_ERROR_INIT;
  int rc;
  char *text = write_text(s, &rc, &err);
  CU_ASSERT_EQUAL_FATAL(rc, LSIM_OK);
  lsim_scenario *again = NULL;
  rc = lsim_scenario_read_memory(text, strlen(text), "written.xml", &again, &err);
  if (rc)
    fprintf(stderr, "\nre-reading failed: %s\n%s\n", lsim_error_message(&err), text);
  CU_ASSERT_EQUAL_FATAL(rc, LSIM_OK);
  assert_same_scenario(s, again);
  lsim_scenario_destroy(again);
  free(text);
  lsim_error_clear(&err);
}

static bool aval_is(const lsim_aval *aval, const char *text) {
  char buf[LSIM_AVAL_TEXT_MAX];
  return strcmp(lsim_aval_format(aval, buf, sizeof buf), text) == 0;
}

/* A file in the temporary directory holding `size` bytes from `fill`. */
static char *temp_file(const char *content, size_t size) {
  const char *dir = getenv("TMPDIR");
  size_t n = strlen(dir ? dir : "/tmp") + 32;
  char *path = malloc(n);
  CU_ASSERT_PTR_NOT_NULL_FATAL(path);
  snprintf(path, n, "%s/lsim-scenario-XXXXXX", dir ? dir : "/tmp");
  int fd = mkstemp(path);
  CU_ASSERT_TRUE_FATAL(fd >= 0);
  CU_ASSERT_EQUAL(write(fd, content, size), (ssize_t)size);
  close(fd);
  return path;
}

static void remove_temp_file(char *path) {
  unlink(path);
  free(path);
}

/* --- Reading ------------------------------------------------------------- */

static void check_full_runtime(const lsim_scenario *s) {
  CU_ASSERT_TRUE(s->runtime.present);
  CU_ASSERT_STRING_EQUAL(s->runtime.jax_platforms, "cuda,cpu");
  CU_ASSERT_EQUAL_FATAL(s->runtime.num_backends, 4);
  const lsim_scenario_backend *b = s->runtime.backends;
  CU_ASSERT_STRING_EQUAL(b[0].platform, "cpu");
  CU_ASSERT_EQUAL(b[0].devices, 1);
  CU_ASSERT_FALSE(b[0].has_priority);
  CU_ASSERT_FALSE(b[0].has_fail_quietly);
  CU_ASSERT_PTR_NULL(b[0].error);
  CU_ASSERT_EQUAL(b[0].line, 7);
  CU_ASSERT_EQUAL(b[1].devices, 8);
  CU_ASSERT_TRUE(b[1].has_priority);
  CU_ASSERT_EQUAL(b[1].priority, -5);
  CU_ASSERT_STRING_EQUAL(b[2].error, "no TPU chips found");
  CU_ASSERT_TRUE(b[2].has_fail_quietly && b[2].fail_quietly);
  CU_ASSERT_EQUAL(b[3].devices, 0);
  CU_ASSERT_TRUE(b[3].has_fail_quietly && !b[3].fail_quietly);
}

static void check_full_lower(const lsim_scenario *s) {
  CU_ASSERT_STRING_EQUAL(s->function, "g");
  CU_ASSERT_STRING_EQUAL(s->platforms, "cuda,tpu");
  CU_ASSERT_STRING_EQUAL(s->backend, "cpu");
  CU_ASSERT_EQUAL(s->lower_line, 13);
  CU_ASSERT_EQUAL_FATAL(s->num_args, 3);
  CU_ASSERT_TRUE(aval_is(&s->args[0].aval, "f32[4]"));
  CU_ASSERT_FALSE(s->args[0].donated);
  CU_ASSERT_TRUE(aval_is(&s->args[1].aval, "bf16[]"));
  CU_ASSERT_TRUE(s->args[1].donated);
  CU_ASSERT_EQUAL(s->args[1].line, 15);
  CU_ASSERT_EQUAL_FATAL(s->num_eqns, 8);
  CU_ASSERT_TRUE(s->has_return);
  CU_ASSERT_EQUAL(s->return_line, 41);
  CU_ASSERT_EQUAL_FATAL(s->num_returns, 2);
  CU_ASSERT_EQUAL(s->returns[0], 3);
  CU_ASSERT_EQUAL(s->returns[1], 9);
}

#define PARAMS(e, kind_struct) ((const kind_struct *)(e).params)

static void check_full_op_primitive_pd(const lsim_scenario_eqn *e) {
  CU_ASSERT_PTR_EQUAL(e[0].kind, &lsimp_op_kind);
  CU_ASSERT_EQUAL(PARAMS(e[0], lsimp_op_params)->op, LSIMP_OP_ADD);
  CU_ASSERT_EQUAL(e[0].line, 17);
  CU_ASSERT_EQUAL_FATAL(e[0].num_args, 2);
  CU_ASSERT_EQUAL(e[0].args[1], 2);
  CU_ASSERT_EQUAL_FATAL(e[0].num_results, 1);
  CU_ASSERT_TRUE(aval_is(&e[0].results[0], "f32[4]"));

  CU_ASSERT_PTR_EQUAL(e[1].kind, &lsimp_primitive_kind);
  const lsimp_primitive_params *p = PARAMS(e[1], lsimp_primitive_params);
  CU_ASSERT_STRING_EQUAL(p->name, "my_op");
  CU_ASSERT_EQUAL(p->backend_use, LSIM_BACKEND_USE_OPTIONAL);
  CU_ASSERT_EQUAL_FATAL(p->num_rules, 3);
  CU_ASSERT_STRING_EQUAL(p->rules[1].platform, "gpu");
  CU_ASSERT_STRING_EQUAL(p->rules[1].target, "my_gpu_kernel");
  CU_ASSERT_EQUAL(p->rules[1].line, 20);
  CU_ASSERT_PTR_NULL(p->rules[2].platform);
  CU_ASSERT_STRING_EQUAL(p->rules[2].target, "my_generic_kernel");
  CU_ASSERT_EQUAL_FATAL(e[1].num_results, 2);
  CU_ASSERT_TRUE(aval_is(&e[1].results[1], "u8[2,3]"));

  CU_ASSERT_PTR_EQUAL(e[2].kind, &lsimp_platform_dependent_kind);
  const lsimp_platform_dependent_params *pd = PARAMS(e[2], lsimp_platform_dependent_params);
  CU_ASSERT_EQUAL_FATAL(pd->num_branches, 3);
  CU_ASSERT_STRING_EQUAL(pd->branches[1].platforms, "cuda,rocm");
  CU_ASSERT_EQUAL(pd->branches[1].op, LSIMP_OP_COSINE);
  CU_ASSERT_PTR_NULL(pd->branches[2].platforms);
  CU_ASSERT_EQUAL(pd->branches[2].op, LSIMP_OP_NEGATE);
  CU_ASSERT_EQUAL(pd->branches[2].line, 28);
  CU_ASSERT_EQUAL_FATAL(e[2].num_results, 1);
  CU_ASSERT_TRUE(aval_is(&e[2].results[0], "f32[4]"));
}

static void check_full_callbacks(const lsim_scenario_eqn *e) {
  CU_ASSERT_PTR_EQUAL(e[3].kind, &lsimp_buffer_callback_kind);
  const lsimp_buffer_callback_params *bc = PARAMS(e[3], lsimp_buffer_callback_params);
  CU_ASSERT_TRUE(bc->params.has_side_effect && bc->params.command_buffer_compatible &&
                 bc->returns_value);
  CU_ASSERT_EQUAL_FATAL(bc->params.num_aliases, 1);
  CU_ASSERT_EQUAL(bc->params.aliases[0].input, 0);
  CU_ASSERT_EQUAL(bc->params.aliases[0].output, -1);
  CU_ASSERT_EQUAL(bc->alias_lines[0], 32);

  CU_ASSERT_PTR_EQUAL(e[4].kind, &lsimp_pure_callback_kind);
  CU_ASSERT_EQUAL(e[4].num_args, 0);
  CU_ASSERT_EQUAL_FATAL(e[4].num_results, 1);
  CU_ASSERT_EQUAL(lsim_aval_size(&e[4].results[0]), INT64_C(1) << 40);

  CU_ASSERT_PTR_EQUAL(e[5].kind, &lsimp_io_callback_kind);
  CU_ASSERT_TRUE(PARAMS(e[5], lsimp_python_callback_params)->params.ordered);
  CU_ASSERT_EQUAL(e[5].args[0], 4);
  CU_ASSERT_TRUE(aval_is(&e[5].results[0], "bool[2,3]"));

  CU_ASSERT_PTR_EQUAL(e[6].kind, &lsimp_debug_callback_kind);
  const lsimp_python_callback_params *dc = PARAMS(e[6], lsimp_python_callback_params);
  CU_ASSERT_TRUE(dc->params.ordered && dc->params.partitioned);
  CU_ASSERT_EQUAL(e[6].num_results, 0);

  CU_ASSERT_PTR_EQUAL(e[7].kind, &lsimp_pallas_call_kind);
  const lsimp_pallas_call_params *pc = PARAMS(e[7], lsimp_pallas_call_params);
  CU_ASSERT_STRING_EQUAL(pc->params.kernel, "add_one");
  CU_ASSERT_EQUAL(pc->params.grid, 8);
  CU_ASSERT_TRUE(pc->params.interpret && pc->params.has_constants);
  CU_ASSERT_PTR_EQUAL(pc->params.compiler_params, &lsim_mosaic_gpu_compiler_params);
}

static void test_reads_every_element_and_attribute(void) {
  lsim_error err = LSIM_ERROR_INIT;
  lsim_scenario *s = NULL;
  CU_ASSERT_EQUAL_FATAL(lsim_scenario_read_file(FIXTURE("full.xml"), &s, &err), LSIM_OK);
  CU_ASSERT_STRING_EQUAL(s->path, FIXTURE("full.xml"));
  CU_ASSERT_STRING_EQUAL(s->name, "full");
  CU_ASSERT_STRING_EQUAL(s->description, "Every element & attribute.");
  check_full_runtime(s);
  CU_ASSERT_TRUE(s->has_pallas);
  CU_ASSERT_TRUE(!s->pallas.mosaic_tpu && s->pallas.triton && !s->pallas.mosaic_gpu);
  CU_ASSERT_TRUE(s->pallas.use_mosaic_gpu);
  check_full_lower(s);
  check_full_op_primitive_pd(s->eqns);
  check_full_callbacks(s->eqns);
  CU_ASSERT_TRUE(s->execute);
  CU_ASSERT_TRUE(s->expect.present && s->expect.ok);
  CU_ASSERT_PTR_NULL(s->expect.error);
  CU_ASSERT_EQUAL(s->expect.line, 44);
  CU_ASSERT_EQUAL_FATAL(s->expect.num_contains, 2);
  CU_ASSERT_STRING_EQUAL(s->expect.contains[0], "func.func public @g");
  CU_ASSERT_STRING_EQUAL(s->expect.contains[1], "\"quoted\" <text>");
  CU_ASSERT_EQUAL_FATAL(s->expect.num_absent, 1);
  CU_ASSERT_STRING_EQUAL(s->expect.absent[0], "stablehlo.custom_call");
  lsim_scenario_destroy(s);
  lsim_error_clear(&err);
}

static void test_defaults(void) {
  lsim_scenario *s = read_text("<scenario name=\"m\"><lower/></scenario>");
  CU_ASSERT_PTR_NOT_NULL_FATAL(s);
  CU_ASSERT_STRING_EQUAL(s->path, "t.xml");
  CU_ASSERT_PTR_NULL(s->description);
  CU_ASSERT_FALSE(s->runtime.present);
  CU_ASSERT_EQUAL(s->runtime.num_backends, 0);
  CU_ASSERT_FALSE(s->has_pallas);
  CU_ASSERT_TRUE(s->pallas.mosaic_tpu && s->pallas.triton && s->pallas.mosaic_gpu);
  CU_ASSERT_TRUE(s->pallas.use_mosaic_gpu); /* JAX's default (config.py) */
  CU_ASSERT_PTR_NULL(s->jax);
  CU_ASSERT_FALSE(s->has_abstract_device);
  CU_ASSERT_STRING_EQUAL(s->function, "f");
  CU_ASSERT_PTR_NULL(s->platforms);
  CU_ASSERT_PTR_NULL(s->backend);
  CU_ASSERT_EQUAL(s->num_args + s->num_eqns, 0);
  CU_ASSERT_FALSE(s->has_return);
  CU_ASSERT_FALSE(s->execute);
  CU_ASSERT_FALSE(s->expect.present);
  lsim_scenario_destroy(s);
}

static void test_element_defaults(void) {
  lsim_scenario *s =
      read_text("<scenario name=\"m\"><runtime><backend platform=\"metal\"/></runtime><pallas/>"
                "<lower><arg dtype=\"i32\" shape=\"\"/>"
                "<primitive name=\"p\" args=\"0\"/><buffer_callback args=\"\"/>"
                "<io_callback args=\"\"/><debug_callback args=\"0\"/>"
                "<pallas_call args=\"0\" kernel=\"copy\"/></lower>"
                "<expect error=\"LSIM_E_TOO_MANY_CHANNELS\"/></scenario>");
  CU_ASSERT_PTR_NOT_NULL_FATAL(s);
  CU_ASSERT_TRUE(s->runtime.present);
  CU_ASSERT_PTR_NULL(s->runtime.jax_platforms);
  const lsim_scenario_backend *b = &s->runtime.backends[0];
  CU_ASSERT_TRUE(b->devices == 1 && !b->has_priority && !b->has_fail_quietly && !b->error &&
                 !b->device_kind && !b->compute_capability);
  CU_ASSERT_TRUE(s->has_pallas);
  CU_ASSERT_TRUE(s->pallas.mosaic_tpu && s->pallas.triton && s->pallas.mosaic_gpu);
  CU_ASSERT_TRUE(s->pallas.use_mosaic_gpu);
  CU_ASSERT_FALSE(s->args[0].donated);
  const lsim_scenario_eqn *e = s->eqns;
  const lsimp_primitive_params *p = PARAMS(e[0], lsimp_primitive_params);
  CU_ASSERT_EQUAL(p->backend_use, LSIM_BACKEND_USE_NONE);
  CU_ASSERT_EQUAL(p->num_rules + e[0].num_results, 0);
  const lsimp_buffer_callback_params *bc = PARAMS(e[1], lsimp_buffer_callback_params);
  CU_ASSERT_FALSE(bc->params.has_side_effect || bc->params.command_buffer_compatible ||
                  bc->returns_value);
  CU_ASSERT_FALSE(PARAMS(e[2], lsimp_python_callback_params)->params.ordered);
  const lsimp_python_callback_params *dc = PARAMS(e[3], lsimp_python_callback_params);
  CU_ASSERT_FALSE(dc->params.ordered || dc->params.partitioned);
  const lsimp_pallas_call_params *pc = PARAMS(e[4], lsimp_pallas_call_params);
  CU_ASSERT_EQUAL(pc->params.grid, 1);
  CU_ASSERT_FALSE(pc->params.interpret || pc->params.has_constants);
  CU_ASSERT_PTR_NULL(pc->params.compiler_params);
  CU_ASSERT_TRUE(s->expect.present && !s->expect.ok);
  CU_ASSERT_STRING_EQUAL(s->expect.error, "LSIM_E_TOO_MANY_CHANNELS");
  CU_ASSERT_PTR_NULL(s->expect.message);
  lsim_scenario_destroy(s);
}

static void test_ffi_call(void) {
  lsim_scenario *s = read_text(LOWER_ARG("<ffi_call args=\"0,0\" target=\"my_target\" "
                                         "has_side_effect=\"true\">"
                                         "<result dtype=\"i32\" shape=\"2,3\"/></ffi_call>\n"
                                         "<ffi_call args=\"\" target=\"t\"/>\n"));
  CU_ASSERT_PTR_NOT_NULL_FATAL(s);
  CU_ASSERT_EQUAL_FATAL(s->num_eqns, 2);
  const lsim_scenario_eqn *e = s->eqns;
  CU_ASSERT_PTR_EQUAL(e[0].kind, &lsimp_ffi_call_kind);
  const lsimp_ffi_call_params *p = PARAMS(e[0], lsimp_ffi_call_params);
  CU_ASSERT_STRING_EQUAL(p->params.target_name, "my_target");
  CU_ASSERT_TRUE(p->params.has_side_effect);
  CU_ASSERT_EQUAL(e[0].num_args, 2);
  CU_ASSERT_EQUAL_FATAL(e[0].num_results, 1);
  CU_ASSERT_TRUE(aval_is(&e[0].results[0], "i32[2,3]"));
  CU_ASSERT_EQUAL(e[0].line, 4);
  p = PARAMS(e[1], lsimp_ffi_call_params);
  CU_ASSERT_FALSE(p->params.has_side_effect);
  CU_ASSERT_EQUAL(e[1].num_args + e[1].num_results, 0);
  check_round_trip(s);
  lsim_scenario_destroy(s);
  check_invalid(LOWER_ARG("<ffi_call args=\"0\"/>\n"),
                "t.xml:4: <ffi_call> needs the attribute 'target'");
  check_invalid(LOWER_ARG("<ffi_call args=\"0\" target=\"\"/>\n"),
                "t.xml:4: <ffi_call> target=\"\" must not be empty");
  check_invalid(LOWER_ARG("<ffi_call args=\"0\" target=\"t\" side_effect=\"true\"/>\n"),
                "t.xml:4: <ffi_call> has no attribute 'side_effect'; it takes args, compute_on, "
                "target, has_side_effect, api_version, legacy_backend_config, vmap_method");
}

static void test_values_are_numbered_in_order(void) {
  lsim_scenario *s = read_text(LOWER("<arg dtype=\"f32\" shape=\"2\"/>\n"
                                     "<arg dtype=\"i8\" shape=\"3\"/>\n"
                                     "<op kind=\"negate\" args=\"1\"/>\n"
                                     "<debug_callback args=\"2\"/>\n"
                                     "<pure_callback args=\"0,2\">"
                                     "<result dtype=\"u16\" shape=\"\"/>"
                                     "<result dtype=\"f64\" shape=\"5,6\"/></pure_callback>\n"
                                     "<platform_dependent args=\"0\"><branch platforms=\"cpu\" "
                                     "op=\"exponential\"/></platform_dependent>\n"
                                     "<return values=\"5,2\"/>\n"));
  CU_ASSERT_PTR_NOT_NULL_FATAL(s);
  const char *expected[] = {"f32[2]", "i8[3]", "i8[3]", "u16[]", "f64[5,6]", "f32[2]"};
  for (size_t i = 0; i < 6; i++) {
    lsim_aval aval;
    CU_ASSERT_TRUE_FATAL(lsim_scenario_value_aval(s, i, &aval));
    CU_ASSERT_TRUE(aval_is(&aval, expected[i]));
  }
  lsim_aval aval;
  CU_ASSERT_FALSE(lsim_scenario_value_aval(s, 6, &aval));
  CU_ASSERT_FALSE(lsim_scenario_value_aval(NULL, 0, &aval));
  CU_ASSERT_EQUAL(s->num_returns, 2);
  CU_ASSERT_EQUAL(s->returns[0], 5);
  lsim_scenario_destroy(s);
}

static void test_empty_lists(void) {
  lsim_scenario *s = read_text(LOWER("<pure_callback args=\"\"><result dtype=\"f32\" "
                                     "shape=\"0\"/></pure_callback>\n<return values=\"\"/>\n"));
  CU_ASSERT_PTR_NOT_NULL_FATAL(s);
  CU_ASSERT_EQUAL(s->eqns[0].num_args, 0);
  CU_ASSERT_PTR_NULL(s->eqns[0].args);
  CU_ASSERT_EQUAL(lsim_aval_size(&s->eqns[0].results[0]), 0);
  CU_ASSERT_TRUE(s->has_return);
  CU_ASSERT_EQUAL(s->num_returns, 0);
  lsim_scenario_destroy(s);
}

/* --- Writing ------------------------------------------------------------- */

static void test_round_trip_full(void) {
  lsim_error err = LSIM_ERROR_INIT;
  lsim_scenario *s = NULL;
  CU_ASSERT_EQUAL_FATAL(lsim_scenario_read_file(FIXTURE("full.xml"), &s, &err), LSIM_OK);
  check_round_trip(s);
  lsim_scenario_destroy(s);
}

static void test_round_trip_minimal(void) {
  lsim_scenario *s = read_text("<scenario name=\"m\"><lower/></scenario>");
  CU_ASSERT_PTR_NOT_NULL_FATAL(s);
  check_round_trip(s);
  lsim_scenario_destroy(s);
}

/* Text XML escapes: quotes, markup, tabs, newlines and carriage returns in
 * attributes and content, leading and trailing blanks, non-ASCII. */
static void test_round_trip_awkward_text(void) {
  lsim_scenario *s = read_text(
      "<scenario name=\"a &quot;b&quot; &amp; &lt;c&gt; &#9;&#10;&#13;d\">"
      "<description>\n  Two\r\n lines, ]]&gt; &#13; caf\xc3\xa9 \xe2\x86\x92  </description>"
      "<runtime><backend platform=\"cpu\" error=\"it's &apos;broken&apos;\n  badly\"/></runtime>"
      "<lower/><expect error=\"LSIM_E_BACKEND_INIT\" message=\" spaced &#10; \"/></scenario>");
  CU_ASSERT_PTR_NOT_NULL_FATAL(s);
  CU_ASSERT_STRING_EQUAL(s->name, "a \"b\" & <c> \t\n\rd");
  CU_ASSERT_STRING_EQUAL(s->description, "\n  Two\n lines, ]]> \r caf\xc3\xa9 \xe2\x86\x92  ");
  CU_ASSERT_STRING_EQUAL(s->runtime.backends[0].error, "it's 'broken'   badly");
  CU_ASSERT_STRING_EQUAL(s->expect.message, " spaced \n ");
  check_round_trip(s);
  lsim_scenario_destroy(s);
}

static void check_write_fails(const lsim_scenario *s, int code, const char *message) {
  lsim_error err = LSIM_ERROR_INIT;
  int rc;
  char *text = write_text(s, &rc, &err);
  CU_ASSERT_PTR_NULL(text);
  CU_ASSERT_EQUAL(rc, code);
  if (strcmp(lsim_error_message(&err), message) != 0)
    fprintf(stderr, "\nexpected '%s'\n     got '%s'\n", message, lsim_error_message(&err));
  CU_ASSERT_STRING_EQUAL(lsim_error_message(&err), message);
  lsim_error_clear(&err);
}

static void test_write_rejects_what_xml_cannot_carry(void) {
  lsim_scenario *s = read_text(LOWER_ARG("<op kind=\"sine\" args=\"0\"/>\n"));
  CU_ASSERT_PTR_NOT_NULL_FATAL(s);
  char *name = s->name;
  s->name = "bell\a";
  check_write_fails(s, LSIM_E_INVALID_ARGUMENT,
                    "lsim_scenario_write: <scenario> has text that is not UTF-8 XML can carry "
                    "(control characters?) in name");
  s->name = "\xff\xfe";
  check_write_fails(s, LSIM_E_INVALID_ARGUMENT,
                    "lsim_scenario_write: <scenario> has text that is not UTF-8 XML can carry "
                    "(control characters?) in name");
  s->name = NULL;
  check_write_fails(s, LSIM_E_INVALID_ARGUMENT,
                    "lsim_scenario_write: <scenario> has no valid name");
  s->name = name;
  lsimp_op_params *op = s->eqns[0].params;
  op->op = LSIMP_OP_COUNT;
  check_write_fails(s, LSIM_E_INVALID_ARGUMENT, "lsim_scenario_write: <op> has no valid kind");
  op->op = LSIMP_OP_SINE;
  s->args[0].aval.dtype = LSIM_DTYPE_COUNT;
  check_write_fails(s, LSIM_E_INVALID_ARGUMENT, "lsim_scenario_write: <arg> has no valid dtype");
  s->args[0].aval.dtype = LSIM_DTYPE_F32;
  s->eqns[0].kind = NULL;
  check_write_fails(s, LSIM_E_INVALID_ARGUMENT,
                    "lsim_scenario_write: <lower> has an equation of an invalid kind");
  s->eqns[0].kind = &lsimp_op_kind;
  lsim_error err = LSIM_ERROR_INIT;
  CU_ASSERT_EQUAL(lsim_scenario_write(NULL, stdout, &err), LSIM_E_INVALID_ARGUMENT);
  CU_ASSERT_EQUAL(lsim_scenario_write(s, NULL, &err), LSIM_E_INVALID_ARGUMENT);
  lsim_error_clear(&err);
  lsim_scenario_destroy(s);
}

static void test_write_reports_io_errors(void) {
  lsim_scenario *s = read_text("<scenario name=\"m\"><lower/></scenario>");
  CU_ASSERT_PTR_NOT_NULL_FATAL(s);
  FILE *full = fopen("/dev/full", "w");
  if (full) {
    lsim_error err = LSIM_ERROR_INIT;
    CU_ASSERT_EQUAL(lsim_scenario_write(s, full, &err), LSIM_E_IO);
    CU_ASSERT_STRING_EQUAL(lsim_error_message(&err),
                           "writing the scenario failed: No space left on device");
    lsim_error_clear(&err);
    fclose(full);
  }
  lsim_scenario_destroy(s);
}

/* --- Invalid input ------------------------------------------------------- */

static void test_malformed_xml(void) {
  check_invalid_prefix(LOWER("<op kind=\"sine\" args=\"0\">\n"),
                       "t.xml:4: Opening and ending tag mismatch: op line 3 and lower");
  check_invalid_prefix("<scenario name=\"t\">\n<lower/>\n", "t.xml:3: ");
  check_invalid_prefix("<scenario name=\"t\" name=\"u\"><lower/></scenario>",
                       "t.xml:1: Attribute name redefined");
  check_invalid_prefix("hello", "t.xml:1: Start tag expected");
  check_invalid_prefix("\n\n   \n", "t.xml:");
  check_invalid_prefix("<scenario name=\"\xff\"><lower/></scenario>", "t.xml:1: ");
  static const char with_nul[] = "<scenario name=\"t\">\0<lower/></scenario>";
  check_invalid_text(with_nul, sizeof with_nul - 1, "t.xml:1: ", false);
  check_invalid_prefix("<scenario name=\"t\"><lower/></scenario><scenario/>",
                       "t.xml:1: Extra content at the end of the document");
}

static void test_deep_nesting_is_refused(void) {
  size_t depth = 100000;
  char *xml = malloc(depth * 3 + 1);
  CU_ASSERT_PTR_NOT_NULL_FATAL(xml);
  for (size_t i = 0; i < depth; i++)
    memcpy(xml + 3 * i, "<a>", 3);
  xml[depth * 3] = '\0';
  check_invalid_prefix(xml, "t.xml:1: ");
  free(xml);
}

static void test_doctype_is_refused(void) {
  check_invalid("<?xml version=\"1.0\"?>\n"
                "<!DOCTYPE lolz [\n"
                " <!ENTITY lol \"lol\">\n"
                " <!ENTITY lol2 \"&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;\">\n"
                " <!ENTITY lol3 \"&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;\">\n"
                "]>\n"
                "<scenario name=\"&lol3;\"><lower/></scenario>\n",
                "t.xml:2: a DOCTYPE is not allowed in a scenario file (no DTD, no entities)");
  check_invalid("<!DOCTYPE scenario [<!ENTITY xxe SYSTEM \"file:///etc/passwd\">]>\n"
                "<scenario name=\"&xxe;\"><lower/></scenario>\n",
                "t.xml:1: a DOCTYPE is not allowed in a scenario file (no DTD, no entities)");
  check_invalid("<!DOCTYPE scenario SYSTEM \"http://example.invalid/s.dtd\">\n"
                "<scenario name=\"t\"><lower/></scenario>\n",
                "t.xml:1: a DOCTYPE is not allowed in a scenario file (no DTD, no entities)");
  check_invalid_prefix("<scenario name=\"&undeclared;\"><lower/></scenario>", "t.xml:1: ");
}

static void test_schema_violations(void) {
  check_invalid("<scenario>\n<lower/></scenario>",
                "t.xml:1: <scenario> needs the attribute 'name'");
  check_invalid("<scenario name=\"t\">\n</scenario>",
                "t.xml:1: <scenario> needs a <lower> element");
  check_invalid(LOWER("<op kind=\"sine\"/>\n"), "t.xml:3: <op> needs the attribute 'args'");
  check_invalid(LOWER("<op kind=\"sine\" argz=\"0\"/>\n"),
                "t.xml:3: <op> has no attribute 'argz'; it takes kind, args, compute_on");
  check_invalid(LOWER("<op kind=\"tan\" args=\"\"/>\n"),
                "t.xml:3: <op> kind=\"tan\" is not one of: sine, cosine, negate, exponential, "
                "add, multiply, subtract");
  check_invalid(LOWER("<io_callback args=\"\" ordered=\"yes\"/>\n"),
                "t.xml:3: <io_callback> ordered=\"yes\" is not one of: true, false");
  check_invalid(LOWER("<primitive name=\"p\" args=\"\" backend_access=\"always\"/>\n"),
                "t.xml:3: <primitive> backend_access=\"always\" is not one of: none, required, "
                "optional");
  check_invalid(LOWER("<pallas_call args=\"\" kernel=\"k\" compiler_params=\"cuda\"/>\n"),
                "t.xml:3: <pallas_call> compiler_params=\"cuda\" is not one of: none, mosaic_tpu, "
                "triton, mosaic_gpu");
  check_invalid(LOWER("<return values=\"\"/>\n<op kind=\"sine\" args=\"\"/>\n"),
                "t.xml:4: <op> is not allowed here, in <lower> after <return>");
  check_invalid(LOWER("<platform_dependent args=\"\">\n<default op=\"sine\"/>\n"
                      "</platform_dependent>\n"),
                "t.xml:4: <default> is not allowed here, in <platform_dependent> as the first "
                "element");
  check_invalid(LOWER("hello\n"), "t.xml:2: <lower> cannot contain text");
  /* Two <default> elements, told apart by where they sit. */
  check_invalid(LOWER("<primitive name=\"p\" args=\"\">\n<default op=\"sine\"/>\n</primitive>\n"),
                "t.xml:4: <default> has no attribute 'op'; it takes target, lower_fun, inline");
  check_invalid(
      LOWER_ARG("<platform_dependent args=\"0\">\n<branch platforms=\"cpu\" op=\"sine\"/>\n"
                "<default target=\"k\"/>\n</platform_dependent>\n"),
      "t.xml:6: <default> has no attribute 'target'; it takes op");
  check_invalid("<scenario name=\"t\"><lower/><execute/><execute/></scenario>",
                "t.xml:1: <execute> is not allowed here, in <scenario> after <execute>");
  check_invalid("<scenario name=\"t\"><lower enable_x64=\"false\"><arg dtype=\"i64\" "
                "shape=\"2\"/></lower></scenario>",
                "t.xml:1: <lower enable_x64=\"false\"> has a 64-bit value: JAX without "
                "jax_enable_x64 has no 64-bit arrays");
  check_invalid("<scenario name=\"t\" jax=\"0.9\"><lower/></scenario>",
                "t.xml:1: <scenario> jax=\"0.9\" is not a JAX version lowersim models (0.10.2, "
                "0.11.0, 0.11.1, 0.11.2, 0.12.0.1; see `lowersim versions`)");
  check_invalid("<scenario name=\"t\"><lower disabled_checks=\"platform\"/></scenario>",
                "t.xml:1: <lower> disabled_checks= goes with export=\"true\"");
  check_invalid("<scenario name=\"t\"><lower export=\"true\" disabled_checks=\"custom_call:\"/>"
                "</scenario>",
                "t.xml:1: <lower> disabled_checks=\"custom_call:\": 'custom_call:' is not a "
                "disabled safety check (DisabledSafetyCheck.platform() is 'platform', "
                "DisabledSafetyCheck.custom_call(TARGET) is 'custom_call:TARGET')");
  check_invalid("<scenario name=\"t\" xml:lang=\"en\"><lower/></scenario>",
                "t.xml:1: <scenario> has no attribute 'xml:lang'; it takes name, jax");
}

static void test_unknown_elements(void) {
  check_invalid(LOWER("<opp kind=\"sine\" args=\"0\"/>\n"),
                "t.xml:3: unknown element <opp> in <lower>");
  check_invalid(LOWER("<op kind=\"sine\" args=\"\"><bar/></op>\n"),
                "t.xml:3: unknown element <bar> in <op>");
  check_invalid("<scenario name=\"t\">\n<lower/>\n<foo/>\n</scenario>",
                "t.xml:3: unknown element <foo> in <scenario>");
  check_invalid("<scenarioo name=\"t\"/>",
                "t.xml:1: unknown root element <scenarioo>; a scenario file's root is <scenario>");
  check_invalid_prefix("<s:scenario xmlns:s=\"urn:x\" name=\"t\"><lower/></s:scenario>",
                       "t.xml:1: ");
}

static void test_value_indices(void) {
  check_invalid(LOWER_ARG("<op kind=\"sine\" args=\"1\"/>\n"),
                "t.xml:4: <op> args=\"1\": value 1 is outside the range [0, 1) of values defined "
                "before it");
  check_invalid(LOWER("<op kind=\"sine\" args=\"0\"/>\n"),
                "t.xml:3: <op> args=\"0\": value 0 is outside the range [0, 0) of values defined "
                "before it");
  check_invalid(LOWER_ARG("<op kind=\"sine\" args=\"0\"/>\n<return values=\"0,2\"/>\n"),
                "t.xml:5: <return> values=\"0,2\": value 2 is outside the range [0, 2) of values "
                "defined before it");
  const char *bad[] = {"0,,0", "0,", ",0", "-1",  " 0",
                       "0 ",   "+0", "a",  "0x1", "99999999999999999999999"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    char xml[256], message[256];
    snprintf(xml, sizeof xml, LOWER_ARG("<pure_callback args=\"%s\"/>\n"), bad[i]);
    snprintf(message, sizeof message,
             "t.xml:4: <pure_callback> args=\"%s\" is not a comma-separated list of value "
             "indices",
             bad[i]);
    check_invalid(xml, message);
  }
  check_invalid(LOWER_ARG("<return values=\"x\"/>\n"),
                "t.xml:4: <return> values=\"x\" is not a comma-separated list of value indices");
}

static void test_shapes(void) {
  check_invalid(LOWER("<arg dtype=\"f32\" shape=\"2,-3\"/>\n"),
                "t.xml:3: <arg> shape=\"2,-3\": shape '2,-3' is not a comma-separated list of "
                "non-negative integers");
  check_invalid(LOWER("<arg dtype=\"f32\" shape=\"4294967296,4294967296\"/>\n"),
                "t.xml:3: <arg> shape=\"4294967296,4294967296\": the element count of the shape "
                "overflows a 64-bit integer");
  check_invalid(LOWER("<arg dtype=\"f32\" shape=\"1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1\"/>\n"),
                "t.xml:3: <arg> shape=\"1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1\": shape "
                "'1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1' has more than 16 dimensions");
  check_invalid(LOWER("<pure_callback args=\"\"><result dtype=\"f32\" shape=\"2,\"/>"
                      "</pure_callback>\n"),
                "t.xml:3: <result> shape=\"2,\": shape '2,' is not a comma-separated list of "
                "non-negative integers");
  lsim_scenario *s = read_text(LOWER("<arg dtype=\"f32\" shape=\"1048576,1048576\"/>\n"));
  CU_ASSERT_PTR_NOT_NULL_FATAL(s);
  CU_ASSERT_EQUAL(lsim_aval_size(&s->args[0].aval), INT64_C(1) << 40);
  lsim_scenario_destroy(s);
}

static void test_unknown_dtype(void) {
  check_invalid(LOWER("<arg dtype=\"f128\" shape=\"\"/>\n"),
                "t.xml:3: <arg> dtype=\"f128\" is not one of: bool, i8, i16, i32, i64, u8, u16, "
                "u32, u64, f16, bf16, f32, f64");
  check_invalid(LOWER("<pure_callback args=\"\"><result dtype=\"float32\" shape=\"\"/>"
                      "</pure_callback>\n"),
                "t.xml:3: <result> dtype=\"float32\" is not one of: bool, i8, i16, i32, i64, u8, "
                "u16, u32, u64, f16, bf16, f32, f64");
}

static void test_numbers_out_of_range(void) {
  check_invalid("<scenario name=\"t\"><runtime>\n<backend platform=\"cpu\" devices=\"-1\"/>"
                "</runtime><lower/></scenario>",
                "t.xml:2: <backend> devices=\"-1\" is not an integer from 0 to 1048576");
  check_invalid("<scenario name=\"t\"><runtime>\n<backend platform=\"cpu\" devices=\"1048577\"/>"
                "</runtime><lower/></scenario>",
                "t.xml:2: <backend> devices=\"1048577\" is not an integer from 0 to 1048576");
  check_invalid("<scenario name=\"t\"><runtime>\n<backend platform=\"cpu\" devices=\"1.5\"/>"
                "</runtime><lower/></scenario>",
                "t.xml:2: <backend> devices=\"1.5\" is not an integer from 0 to 1048576");
  check_invalid("<scenario name=\"t\"><runtime>\n<backend platform=\"cpu\" priority=\"1e9\"/>"
                "</runtime><lower/></scenario>",
                "t.xml:2: <backend> priority=\"1e9\" is not an integer from -1000000 to 1000000");
  check_invalid(LOWER("<pallas_call args=\"\" kernel=\"k\" grid=\"0\"/>\n"),
                "t.xml:3: <pallas_call> grid=\"0\" is not an integer from 1 to 2147483647");
  check_invalid(LOWER("<pallas_call args=\"\" kernel=\"k\" grid=\"99999999999999999999\"/>\n"),
                "t.xml:3: <pallas_call> grid=\"99999999999999999999\" is not an integer from 1 "
                "to 2147483647");
  check_invalid(LOWER("<buffer_callback args=\"\"><alias input=\"x\" output=\"0\"/>"
                      "</buffer_callback>\n"),
                "t.xml:3: <alias> input=\"x\" is not an integer from -9223372036854775808 to "
                "9223372036854775807");
}

/* lower_fun="OP" on a rule: the op must fit the equation's operands and
 * the <primitive> must declare the op's one result; another equation of
 * the same primitive that the op does not fit is refused when lowered. */
static void test_lower_fun_rules(void) {
  check_invalid(LOWER_ARG("<primitive name=\"p\" args=\"0,0\">\n<default lower_fun=\"sine\"/>"
                          "<result dtype=\"f32\" shape=\"4\"/></primitive>\n"),
                "t.xml:5: <default lower_fun=\"sine\"> takes 1 operand, not 2");
  check_invalid(LOWER_ARG("<primitive name=\"p\" args=\"0\">\n<rule platform=\"cpu\" "
                          "lower_fun=\"cosine\"/><result dtype=\"f32\" shape=\"5\"/>"
                          "</primitive>\n"),
                "t.xml:4: <primitive> with lower_fun=\"cosine\" must declare one <result> of "
                "f32[4], what the op returns");
  check_invalid(LOWER_ARG("<primitive name=\"p\" args=\"0\">\n<default lower_fun=\"sign\"/>"
                          "<result dtype=\"f32\" shape=\"4\"/></primitive>\n"),
                "t.xml:5: <default> lower_fun=\"sign\" is not one of: sine, cosine, negate, "
                "exponential, add, multiply, subtract");
  lsim_scenario *s = read_text(LOWER_ARG(
      "<primitive name=\"p\" args=\"0\"><default lower_fun=\"sine\"/>"
      "<result dtype=\"f32\" shape=\"4\"/></primitive>\n"
      "<primitive name=\"p\" args=\"0,1\"><result dtype=\"f32\" shape=\"4\"/></primitive>\n"));
  CU_ASSERT_PTR_NOT_NULL_FATAL(s);
  lsim_lowerer *lowerer = NULL;
  CU_ASSERT_EQUAL_FATAL(lsim_lowerer_create(&lowerer, NULL), LSIM_OK);
  lsim_error err = LSIM_ERROR_INIT;
  lsim_scenario_outcome out = {0};
  int rc = lsim_scenario_run(lowerer, s, NULL, &out, &err);
  CU_ASSERT_EQUAL(lsim_status_kind(rc), LSIM_KIND_INVALID_INPUT);
  CU_ASSERT_STRING_EQUAL(lsim_error_message(&err), "t.xml:2: lower_fun=\"sine\" does not fit this "
                                                   "equation's 2 operands (not modelled)");
  lsim_scenario_outcome_clear(&out);
  lsim_error_clear(&err);
  lsim_lowerer_destroy(lowerer);
  lsim_scenario_destroy(s);
}

static void test_operands_match_the_op(void) {
  check_invalid(LOWER_ARG("<op kind=\"add\" args=\"0\"/>\n"),
                "t.xml:4: <op kind=\"add\"> takes 2 operands, not 1");
  check_invalid(LOWER_ARG("<op kind=\"sine\" args=\"0,0\"/>\n"),
                "t.xml:4: <op kind=\"sine\"> takes 1 operand, not 2");
  check_invalid(
      LOWER_ARG("<arg dtype=\"i32\" shape=\"4\"/>\n<op kind=\"multiply\" args=\"0,1\"/>\n"),
      "t.xml:5: <op kind=\"multiply\"> operands have different avals: f32[4] and i32[4]");
  check_invalid(
      LOWER_ARG("<platform_dependent args=\"0\">\n<branch platforms=\"cpu\" op=\"sine\"/>\n"
                "<default op=\"subtract\"/>\n</platform_dependent>\n"),
      "t.xml:6: <default op=\"subtract\"> takes 2 operands, not 1");
  check_invalid(LOWER("<platform_dependent args=\"\">\n<branch platforms=\"cpu\" op=\"sine\"/>\n"
                      "</platform_dependent>\n"),
                "t.xml:4: <branch op=\"sine\"> takes 1 operand, not 0");
  lsim_scenario *s = read_text(LOWER_ARG("<platform_dependent args=\"0,0\">"
                                         "<branch platforms=\"cpu\" op=\"add\"/>"
                                         "</platform_dependent>\n"));
  CU_ASSERT_PTR_NOT_NULL_FATAL(s);
  CU_ASSERT_TRUE(aval_is(&s->eqns[0].results[0], "f32[4]"));
  lsim_scenario_destroy(s);
}

static void test_platform_names(void) {
  check_invalid("<scenario name=\"t\"><runtime>\n<backend platform=\"gpu\"/></runtime><lower/>"
                "</scenario>",
                "t.xml:2: <backend> platform=\"gpu\" is an alias, not a platform a backend can "
                "have");
  check_invalid("<scenario name=\"t\"><runtime>\n<backend platform=\"c p u\"/></runtime><lower/>"
                "</scenario>",
                "t.xml:2: <backend> platform=\"c p u\": platform name 'c p u' has a character "
                "outside [A-Za-z0-9_.-]");
  check_invalid("<scenario name=\"t\">\n<runtime jax_platforms=\"cpu,\"/><lower/></scenario>",
                "t.xml:2: <runtime> jax_platforms=\"cpu,\": platform name is empty");
  check_invalid("<scenario name=\"t\">\n<lower platforms=\"cuda,,cpu\"/></scenario>",
                "t.xml:2: <lower> platforms=\"cuda,,cpu\": platform name is empty");
  check_invalid("<scenario name=\"t\">\n<lower backend=\"\"/></scenario>",
                "t.xml:2: <lower> backend=\"\": platform name is empty");
  check_invalid("<scenario name=\"t\">\n<lower backend=\"cpu,cuda\"/></scenario>",
                "t.xml:2: <lower> backend=\"cpu,cuda\": platform name 'cpu,cuda' has a character "
                "outside [A-Za-z0-9_.-]");
  check_invalid("<scenario name=\"t\"><runtime>\n<backend platform=\"cpu,tpu\"/></runtime>"
                "<lower/></scenario>",
                "t.xml:2: <backend> platform=\"cpu,tpu\": platform name 'cpu,tpu' has a character "
                "outside [A-Za-z0-9_.-]");
  check_invalid("<scenario name=\"t\">\n<lower function=\"\"/></scenario>",
                "t.xml:2: <lower> function=\"\" must not be empty");
  check_invalid(LOWER_ARG("<platform_dependent args=\"0\">\n<branch platforms=\"\" op=\"sine\"/>"
                          "</platform_dependent>\n"),
                "t.xml:5: <branch> platforms=\"\" must not be empty");
  check_invalid(LOWER("<primitive name=\"p\" args=\"\">\n<rule platform=\"cpu/x\" target=\"t\"/>"
                      "</primitive>\n"),
                "t.xml:4: <rule> platform=\"cpu/x\": platform name 'cpu/x' has a character "
                "outside [A-Za-z0-9_.-]");
  check_invalid(LOWER("<primitive name=\"\" args=\"\"/>\n"),
                "t.xml:3: <primitive> name=\"\" must not be empty");
  lsim_scenario *s = read_text("<scenario name=\"t\"><runtime jax_platforms=\"\"/><lower "
                               "platforms=\"gpu\" backend=\"gpu\"/></scenario>");
  CU_ASSERT_PTR_NOT_NULL(s);
  lsim_scenario_destroy(s);
}

static void test_expect(void) {
  check_invalid("<scenario name=\"t\"><lower/>\n<expect error=\"LSIM_E_NOPE\"/></scenario>",
                "t.xml:2: <expect> error=\"LSIM_E_NOPE\" is not a lowersim error code (see "
                "`lowersim errors`)");
  check_invalid("<scenario name=\"t\"><lower/>\n<expect error=\"LSIM_OK\"/></scenario>",
                "t.xml:2: <expect> error=\"LSIM_OK\" is not a lowersim error code (see `lowersim "
                "errors`)");
  check_invalid("<scenario name=\"t\"><lower/>\n<expect/></scenario>",
                "t.xml:2: <expect> needs error=\"CODE\" or ok=\"true\"");
  check_invalid("<scenario name=\"t\"><lower/>\n<expect ok=\"true\" "
                "error=\"LSIM_E_TOO_MANY_CHANNELS\"/></scenario>",
                "t.xml:2: <expect> cannot have both error= and ok=\"true\"");
  check_invalid("<scenario name=\"t\"><lower/>\n<expect ok=\"true\" message=\"m\"/></scenario>",
                "t.xml:2: <expect> message= goes with error=, not ok=\"true\"");
  check_invalid("<scenario name=\"t\"><lower/>\n<expect error=\"LSIM_E_TOO_MANY_CHANNELS\">"
                "<contains>x</contains></expect></scenario>",
                "t.xml:2: <expect error=\"LSIM_E_TOO_MANY_CHANNELS\"> cannot have <contains> or "
                "<absent>: they check the module of a successful lowering");
  lsim_scenario *s = read_text("<scenario name=\"t\"><lower/><expect ok=\"true\">"
                               "<absent>a</absent><contains></contains><absent>b</absent>"
                               "</expect></scenario>");
  CU_ASSERT_PTR_NOT_NULL_FATAL(s);
  CU_ASSERT_EQUAL(s->expect.num_contains, 1);
  CU_ASSERT_STRING_EQUAL(s->expect.contains[0], "");
  CU_ASSERT_EQUAL_FATAL(s->expect.num_absent, 2);
  CU_ASSERT_STRING_EQUAL(s->expect.absent[1], "b");
  lsim_scenario_destroy(s);
}

/* --- Files --------------------------------------------------------------- */

static void test_empty_input(void) {
  check_invalid_text("", 0, "t.xml:1: the file is empty; a scenario is a <scenario> element", true);
  char *path = temp_file("", 0);
  lsim_error err = LSIM_ERROR_INIT;
  lsim_scenario *s = NULL;
  CU_ASSERT_EQUAL(lsim_scenario_read_file(path, &s, &err), LSIM_E_INVALID_INPUT);
  char expected[512];
  snprintf(expected, sizeof expected, "%s:1: the file is empty; a scenario is a <scenario> element",
           path);
  CU_ASSERT_STRING_EQUAL(lsim_error_message(&err), expected);
  CU_ASSERT_PTR_NULL(s);
  lsim_error_clear(&err);
  remove_temp_file(path);
}

static void test_unreadable_files(void) {
  lsim_error err = LSIM_ERROR_INIT;
  lsim_scenario *s = NULL;
  CU_ASSERT_EQUAL(lsim_scenario_read_file(FIXTURE("no-such-file.xml"), &s, &err), LSIM_E_IO);
  CU_ASSERT_STRING_EQUAL(lsim_error_message(&err),
                         FIXTURE("no-such-file.xml") ": No such file or directory");
  CU_ASSERT_EQUAL(lsim_scenario_read_file(LSIM_TEST_SOURCE_DIR "/testdata", &s, &err), LSIM_E_IO);
  CU_ASSERT_STRING_EQUAL(lsim_error_message(&err),
                         LSIM_TEST_SOURCE_DIR "/testdata: Is a directory");
  CU_ASSERT_PTR_NULL(s);
  lsim_error_clear(&err);
}

static void test_invalid_fixture_names_its_path(void) {
  lsim_error err = LSIM_ERROR_INIT;
  lsim_scenario *s = NULL;
  CU_ASSERT_EQUAL(lsim_scenario_read_file(FIXTURE("bad-return.xml"), &s, &err),
                  LSIM_E_INVALID_INPUT);
  CU_ASSERT_STRING_EQUAL(lsim_error_message(&err),
                         FIXTURE("bad-return.xml") ":7: <return> values=\"1\": value 1 is outside "
                                                   "the range [0, 1) of values defined before it");
  lsim_error_clear(&err);
}

/* A scenario of `ops` sine ops on value 0, ending with `last` (a line). */
static char *many_ops(size_t ops, const char *last, size_t *size) {
  const char *head = "<scenario name=\"big\">\n<lower>\n<arg dtype=\"f32\" shape=\"4\"/>\n";
  const char *op = "<op kind=\"sine\" args=\"0\"/>\n";
  const char *tail = "</lower>\n</scenario>\n";
  size_t n = strlen(head) + ops * strlen(op) + strlen(last) + strlen(tail);
  char *xml = malloc(n + 1), *p = xml;
  CU_ASSERT_PTR_NOT_NULL_FATAL(xml);
  p += sprintf(p, "%s", head);
  for (size_t i = 0; i < ops; i++)
    p += sprintf(p, "%s", op);
  sprintf(p, "%s%s", last, tail);
  *size = n;
  return xml;
}

static void test_ten_megabyte_file_is_refused(void) {
  size_t size;
  char *xml = many_ops(10 * 1000 * 1000 / 27 + 1, "", &size);
  CU_ASSERT_TRUE(size > 10 * 1000 * 1000);
  check_invalid_text(
      xml, size, "t.xml:1: the file is larger than 8388608 bytes, the limit for a scenario", true);
  char *path = temp_file(xml, size);
  lsim_error err = LSIM_ERROR_INIT;
  lsim_scenario *s = NULL;
  CU_ASSERT_EQUAL(lsim_scenario_read_file(path, &s, &err), LSIM_E_INVALID_INPUT);
  char expected[512];
  snprintf(expected, sizeof expected,
           "%s:1: the file is larger than 8388608 bytes, the limit for a scenario", path);
  CU_ASSERT_STRING_EQUAL(lsim_error_message(&err), expected);
  lsim_error_clear(&err);
  remove_temp_file(path);
  free(xml);
}

static void test_pipe_over_the_limit_is_refused(void) {
  FILE *big = popen("head -c 9000000 /dev/zero", "r");
  CU_ASSERT_PTR_NOT_NULL_FATAL(big);
  char path[32];
  snprintf(path, sizeof path, "/dev/fd/%d", fileno(big));
  lsim_error err = LSIM_ERROR_INIT;
  lsim_scenario *s = NULL;
  int rc = lsim_scenario_read_file(path, &s, &err);
  pclose(big);
  CU_ASSERT_EQUAL(rc, LSIM_E_INVALID_INPUT);
  char expected[256];
  snprintf(expected, sizeof expected,
           "%s:1: the file is larger than 8388608 bytes, the limit for a scenario", path);
  CU_ASSERT_STRING_EQUAL(lsim_error_message(&err), expected);
  lsim_error_clear(&err);
}

/* Each element's attributes and children are counted on the bytes, before
 * libxml2 (issue 11: 200,000 attributes on one element kept libxml2 2.9's
 * pairwise duplicate check busy for minutes). */
static char *op_with_attributes(size_t n, size_t *size) {
  const char *head = "<scenario name=\"t\">\n<lower>\n<arg dtype=\"f32\" shape=\"4\"/>\n<op";
  const char *tail = " kind=\"sine\" args=\"0\"/>\n</lower>\n</scenario>\n";
  char *xml = malloc(strlen(head) + 16 * n + strlen(tail) + 1), *p = xml;
  CU_ASSERT_PTR_NOT_NULL_FATAL(xml);
  p += sprintf(p, "%s", head);
  for (size_t i = 0; i < n; i++)
    p += sprintf(p, " a%zu='%zu'", i, i);
  p += sprintf(p, "%s", tail);
  *size = (size_t)(p - xml);
  return xml;
}

static void test_limits_per_element(void) {
  size_t size;
  char *xml = op_with_attributes(62, &size); /* 64 with kind and args */
  check_invalid_text(xml, size, "t.xml:4: <op> has no attribute 'a0'; it takes kind, args, compute_on", true);
  free(xml);
  xml = op_with_attributes(63, &size);
  check_invalid_text(
      xml, size, "t.xml:4: <op> has more than 64 attributes, the limit for an element of a scenario",
      true);
  free(xml);
  clock_t start = clock();
  xml = op_with_attributes(200000, &size);
  check_invalid_text(
      xml, size, "t.xml:4: <op> has more than 64 attributes, the limit for an element of a scenario",
      true);
  free(xml);
  CU_ASSERT_TRUE((double)(clock() - start) / CLOCKS_PER_SEC < 2.0);
  /* Attributes are counted on every element, quoted values skipped. */
  check_invalid("<scenario name='t' a='>' b=\"'\" c='1' d='1' e='1' f='1' g='1' h='1' i='1' j='1' "
                "k='1' l='1' m='1' n='1' o='1' p='1' q='1' r='1' s='1' t='1' u='1' v='1' w='1' "
                "x='1' y='1' z='1' a1='1' b1='1' c1='1' d1='1' e1='1' f1='1' g1='1' h1='1' i1='1' "
                "j1='1' k1='1' l1='1' m1='1' n1='1' o1='1' p1='1' q1='1' r1='1' s1='1' t1='1' "
                "u1='1' v1='1' w1='1' x1='1' y1='1' z1='1' a2='1' b2='1' c2='1' d2='1' e2='1' "
                "f2='1' g2='1' h2='1' i2='1' j2='1' k2='1' l2='1'><lower/></scenario>",
                "t.xml:1: <scenario> has more than 64 attributes, the limit for an element of a "
                "scenario");
  /* Children: one more <op> than the limit (the <arg> is a child too). */
  xml = many_ops(LSIM_SCENARIO_MAX_CHILDREN, "", &size);
  check_invalid_text(xml, size,
                     "t.xml:131075: <lower> has more than 131072 child elements, the limit for an "
                     "element of a scenario",
                     true);
  free(xml);
  xml = many_ops(LSIM_SCENARIO_MAX_CHILDREN - 1, "", &size);
  lsim_error err = LSIM_ERROR_INIT;
  lsim_scenario *s = NULL;
  CU_ASSERT_EQUAL(lsim_scenario_read_memory(xml, size, "t.xml", &s, &err), LSIM_OK);
  lsim_scenario_destroy(s);
  lsim_error_clear(&err);
  free(xml);
  /* Comments, CDATA and processing instructions hold no elements. */
  lsim_scenario_destroy(read_text("<scenario name=\"t\"><!-- <a b='1' c='2'> -->"
                                  "<?pi <x/> ?><description><![CDATA[<y>]]></description>"
                                  "<lower/></scenario>"));
  size_t depth = LSIM_SCENARIO_MAX_DEPTH + 1;
  char deep[4 * (LSIM_SCENARIO_MAX_DEPTH + 1) + 1];
  for (size_t i = 0; i < depth; i++)
    memcpy(deep + 4 * i, "\n<a>", 4);
  deep[4 * depth] = '\0';
  check_invalid(deep, "t.xml:66: elements nested deeper than 64, the limit for a scenario");
}

/* XML allows no NUL byte anywhere (issue 11: after the root element one
 * made libxml2 stop reading, so what followed was ignored). */
static void test_nul_bytes_are_refused(void) {
  static const char after_root[] = "<scenario name=\"t\">\n<lower/>\n</scenario>\n\0junk";
  check_invalid_text(after_root, sizeof after_root - 1,
                     "t.xml:4: a NUL byte (at byte offset 41): XML allows none, so this is not a "
                     "scenario file",
                     true);
  static const char inside[] = "<scenario name=\"t\">\0<lower/></scenario>";
  check_invalid_text(inside, sizeof inside - 1,
                     "t.xml:1: a NUL byte (at byte offset 19): XML allows none, so this is not a "
                     "scenario file",
                     true);
}

/* Every message is one line (issue 11: libxml2's invalid-UTF-8 message
 * had a line break in it). */
static void test_messages_are_one_line(void) {
  const char *cases[] = {
      "<scenario name=\"a\xff\"><lower/></scenario>",
      "<scenario name=\"a\"><description>x\xff</description><lower/></scenario>",
      "<scen\xff" "ario name=\"a\"><lower/></scenario>",
      "<scenario name=\"a\"><!-- \xff --><lower/></scenario>",
      "<scenario name=\"a\"><?pi \xff ?><lower/></scenario>",
      "<scenario name=\"a\"><![CDATA[ \xff ]]><lower/></scenario>",
      "<scenario \xff=\"a\"><lower/></scenario>",
      "<scenario name=\"a\"><lower/></scenario>\xff",
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    lsim_error err = LSIM_ERROR_INIT;
    lsim_scenario *s = NULL;
    CU_ASSERT_EQUAL(lsim_scenario_read_memory(cases[i], strlen(cases[i]), "t.xml", &s, &err),
                    LSIM_E_INVALID_INPUT);
    const char *m = lsim_error_message(&err);
    CU_ASSERT_TRUE(strncmp(m, "t.xml:1: ", 9) == 0);
    CU_ASSERT_PTR_NULL(strchr(m, '\n'));
    if (strchr(m, '\n'))
      fprintf(stderr, "\ncase %zu: a message of two lines: %s\n", i, m);
    lsim_error_clear(&err);
  }
}

/* libxml2 counts lines in 16 bits; the reader's lines stay exact. */
static void test_lines_past_65535(void) {
  size_t size;
  char *xml = many_ops(70000, "<op kind=\"sine\" args=\"0,0\"/>\n", &size);
  check_invalid_text(xml, size, "t.xml:70004: <op kind=\"sine\"> takes 1 operand, not 2", true);
  free(xml);
  xml = many_ops(70000, "<op kind=\"sine\" argz=\"0\"/>\n", &size);
  check_invalid_text(xml, size, "t.xml:70004: <op> has no attribute 'argz'; it takes kind, args, compute_on",
                     true);
  free(xml);
  xml = many_ops(70000, "", &size);
  lsim_error err = LSIM_ERROR_INIT;
  lsim_scenario *s = NULL;
  CU_ASSERT_EQUAL_FATAL(lsim_scenario_read_memory(xml, size, "big.xml", &s, &err), LSIM_OK);
  CU_ASSERT_EQUAL(s->num_eqns, 70000);
  CU_ASSERT_EQUAL(s->eqns[69999].line, 70003);
  lsim_scenario_destroy(s);
  free(xml);
}

/* --- libxml2's global state ---------------------------------------------- */

static int marker;

#if LIBXML_VERSION >= 21200
typedef const xmlError *lsim_test_xml_error;
#else
typedef xmlErrorPtr lsim_test_xml_error;
#endif

static void user_structured(void *data, lsim_test_xml_error e) {
  (void)data;
  (void)e;
}

static void test_restores_libxml_handlers(void) {
  xmlSetStructuredErrorFunc(&marker, user_structured);
  check_invalid_prefix("<scenario", "t.xml:1: ");
  check_invalid(LOWER("<opp/>\n"), "t.xml:3: unknown element <opp> in <lower>");
  CU_ASSERT_PTR_EQUAL(xmlStructuredErrorContext, &marker);
  CU_ASSERT_TRUE(xmlStructuredError == user_structured);
  xmlSetStructuredErrorFunc(NULL, NULL);
}

/* libxml2 itself never prints: everything goes into the error. */
static void test_nothing_is_printed(void) {
  fflush(stderr);
  int saved = dup(STDERR_FILENO);
  char *path = temp_file("", 0);
  int fd = open(path, O_WRONLY);
  CU_ASSERT_TRUE_FATAL(saved >= 0 && fd >= 0);
  dup2(fd, STDERR_FILENO);
  close(fd);
  check_invalid_prefix(LOWER("<op>\n"), "t.xml:");
  check_invalid_prefix(LOWER("<op/>\n"), "t.xml:3: ");
  check_invalid_prefix("<!DOCTYPE x [<!ENTITY a \"b\">]><x/>", "t.xml:1: ");
  check_invalid_prefix("<x>&bogus;</x>", "t.xml:1: ");
  check_invalid_prefix("<x>\xc3\x28</x>", "t.xml:1: ");
  fflush(stderr);
  dup2(saved, STDERR_FILENO);
  close(saved);
  struct stat st;
  CU_ASSERT_EQUAL(stat(path, &st), 0);
  CU_ASSERT_EQUAL(st.st_size, 0);
  remove_temp_file(path);
}

/* Two threads read side by side: the schema is shared, errors are not. */
static void *read_repeatedly(void *arg) {
  intptr_t failures = 0;
  const char *bad = (const char *)arg;
  for (int i = 0; i < 40; i++) {
    lsim_error err = LSIM_ERROR_INIT;
    lsim_scenario *s = NULL;
    const char *xml = i % 2 ? bad : LOWER_ARG("<op kind=\"sine\" args=\"0\"/>\n");
    int rc = lsim_scenario_read_memory(xml, strlen(xml), "t.xml", &s, &err);
    failures += i % 2 ? rc != LSIM_E_INVALID_INPUT || strncmp(err.message, "t.xml:", 6) != 0
                      : rc != LSIM_OK || s->num_eqns != 1;
    lsim_scenario_destroy(s);
    lsim_error_clear(&err);
  }
  return (void *)failures;
}

static void test_threads(void) {
  const char *bad[] = {LOWER("<op/>\n"), "<scenario", LOWER_ARG("<op kind=\"add\" args=\"0\"/>\n"),
                       LOWER("<arg dtype=\"f32\" shape=\"-1\"/>\n")};
  pthread_t threads[4];
  for (int i = 0; i < 4; i++)
    CU_ASSERT_EQUAL_FATAL(pthread_create(&threads[i], NULL, read_repeatedly, (void *)bad[i]), 0);
  for (int i = 0; i < 4; i++) {
    void *failures;
    pthread_join(threads[i], &failures);
    CU_ASSERT_PTR_NULL(failures);
  }
}

/* --- The schema and the names -------------------------------------------- */

static void test_embedded_schema_is_the_shipped_one(void) {
  size_t size;
  const char *text = lsim_scenario_schema(&size);
  CU_ASSERT_EQUAL(strlen(text), size);
  CU_ASSERT_PTR_NOT_NULL(strstr(text, "<grammar"));
  FILE *f = fopen(LSIM_TEST_SOURCE_DIR "/testdata/schema/scenario.rng", "rb");
  CU_ASSERT_PTR_NOT_NULL_FATAL(f);
  char *shipped = malloc(size + 2);
  CU_ASSERT_PTR_NOT_NULL_FATAL(shipped);
  size_t got = fread(shipped, 1, size + 1, f);
  fclose(f);
  CU_ASSERT_EQUAL(got, size);
  CU_ASSERT_EQUAL(memcmp(shipped, text, size), 0);
  free(shipped);
}

static void test_names(void) {
  CU_ASSERT_STRING_EQUAL(lsimp_op_primitive(LSIMP_OP_SINE)->name, "sin");
  CU_ASSERT_STRING_EQUAL(lsimp_op_primitive(LSIMP_OP_MULTIPLY)->name, "mul");
  CU_ASSERT_PTR_NULL(lsimp_op_primitive(LSIMP_OP_COUNT));
  CU_ASSERT_PTR_NULL(lsimp_op_name(LSIMP_OP_COUNT));
  size_t n = lsim_scenario_kind_count();
  CU_ASSERT_EQUAL(n, 11);
  for (size_t i = 0; i < n; i++) {
    const lsim_scenario_kind *k = lsim_scenario_kind_at(i);
    CU_ASSERT_PTR_EQUAL(lsim_scenario_kind_find(lsim_scenario_kind_element(k)), k);
    CU_ASSERT_PTR_NOT_NULL(lsim_scenario_kind_summary(k));
  }
  CU_ASSERT_PTR_NULL(lsim_scenario_kind_at(n));
  CU_ASSERT_PTR_NULL(lsim_scenario_kind_find("op_kind"));
  CU_ASSERT_PTR_NULL(lsim_scenario_kind_find(NULL));
  CU_ASSERT_PTR_EQUAL(lsim_scenario_kind_primitive(&lsimp_buffer_callback_kind),
                      &lsim_buffer_callback_p);
  CU_ASSERT_PTR_NULL(lsim_scenario_kind_primitive(&lsimp_op_kind));
  CU_ASSERT_TRUE(lsim_scenario_kind_implies_result(&lsimp_platform_dependent_kind));
  CU_ASSERT_FALSE(lsim_scenario_kind_implies_result(&lsimp_pure_callback_kind));
  lsim_backend_use use;
  CU_ASSERT_TRUE(lsimp_backend_use_from_name("required", &use));
  CU_ASSERT_EQUAL(use, LSIM_BACKEND_USE_REQUIRED);
  CU_ASSERT_STRING_EQUAL(lsimp_backend_use_name(LSIM_BACKEND_USE_OPTIONAL), "optional");
  CU_ASSERT_FALSE(lsimp_backend_use_from_name("sometimes", &use));
  const lsim_pallas_params_class *params;
  CU_ASSERT_TRUE(lsimp_compiler_params_from_name("triton", &params));
  CU_ASSERT_PTR_EQUAL(params, &lsim_triton_compiler_params);
  CU_ASSERT_TRUE(lsimp_compiler_params_from_name("none", &params));
  CU_ASSERT_PTR_NULL(params);
  CU_ASSERT_FALSE(lsimp_compiler_params_from_name("tpu", &params));
  CU_ASSERT_STRING_EQUAL(lsimp_compiler_params_name(NULL), "none");
  CU_ASSERT_STRING_EQUAL(lsimp_compiler_params_name(&lsim_mosaic_tpu_compiler_params), "mosaic_tpu");
}

/* --- Each kind: generated, written, read back, lowered ------------------- */

static uint64_t splitmix_below(void *rng, uint64_t n) {
  uint64_t z = (*(uint64_t *)rng += UINT64_C(0x9E3779B97F4A7C15));
  z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
  z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
  return n ? (z ^ (z >> 31)) % n : 0;
}

static const char *const kind_platforms[] = {NULL, "cpu", "cuda,tpu", "cpu,cuda,rocm,tpu"};

/* The nth scenario of the k-th kind: up to three random args, an f32[8] (what a
 * pallas_call needs) and one random equation of `kind`, lowered for
 * kind_platforms[nth % 4] on a cpu, cuda, rocm and tpu runtime, executed;
 * owned. */
/* <call_exported> needs an earlier export of its session: the session
 * scenarios (testdata/conformance/export/call-*.xml) and test_session
 * cover it. */
static bool generable_alone(const lsim_scenario_kind *kind) {
  return kind != &lsimp_call_exported_kind;
}

static lsim_scenario *kind_scenario(size_t k, uint64_t nth) {
  const lsim_scenario_kind *kind = lsim_scenario_kind_at(k);
  uint64_t seed = nth * 1000 + k;
  lsim_scenario *s = calloc(1, sizeof *s);
  CU_ASSERT_PTR_NOT_NULL_FATAL(s);
  lsim_scenario_gen g = {.below = splitmix_below, .rng = &seed};
  s->name = lsim_scenario_gen_text(&g, lsim_scenario_kind_element(kind));
  s->function = lsim_scenario_gen_text(&g, "f");
  s->pallas = lsim_scenario_default_pallas();
  s->runtime.present = true;
  static const char *const backends[] = {"cpu", "cuda", "rocm", "tpu"};
  s->runtime.backends = lsim_scenario_gen_alloc(&g, 4, sizeof *s->runtime.backends);
  for (size_t i = 0; s->runtime.backends && i < 4; i++) {
    s->runtime.backends[i].platform = lsim_scenario_gen_text(&g, backends[i]);
    s->runtime.backends[i].devices = 1;
  }
  s->runtime.num_backends = s->runtime.backends ? 4 : 0;
  const char *platforms = kind_platforms[nth % 4];
  s->platforms = platforms ? lsim_scenario_gen_text(&g, platforms) : NULL;
  size_t num_args = 1 + (size_t)lsim_scenario_gen_below(&g, 3);
  s->args = lsim_scenario_gen_alloc(&g, num_args + 1, sizeof *s->args);
  CU_ASSERT_PTR_NOT_NULL_FATAL(s->args);
  for (size_t i = 0; i < num_args; i++)
    lsim_scenario_gen_aval(&g, &s->args[i].aval);
  s->args[num_args].aval = (lsim_aval){LSIM_DTYPE_F32, 1, {8}, LSIM_MEMORY_DEVICE};
  s->num_args = num_args + 1;
  for (size_t i = 0; i < s->num_args; i++)
    lsim_scenario_gen_define(&g, &s->args[i].aval);
  s->eqns = lsim_scenario_gen_alloc(&g, 1, sizeof *s->eqns);
  CU_ASSERT_PTR_NOT_NULL_FATAL(s->eqns);
  CU_ASSERT_TRUE(lsim_scenario_gen_eqn_of_kind(&g, kind, &s->eqns[0]));
  s->num_eqns = 1;
  s->execute = true;
  CU_ASSERT_FALSE(g.oom);
  return s;
}

#define KIND_SEEDS 64

static void test_each_kind_round_trips(void) {
  for (size_t k = 0; k < lsim_scenario_kind_count(); k++) {
    const lsim_scenario_kind *kind = lsim_scenario_kind_at(k);
    if (!generable_alone(kind))
      continue;
    for (uint64_t seed = 0; seed < KIND_SEEDS; seed++) {
      lsim_scenario *s = kind_scenario(k, seed);
      CU_ASSERT_PTR_EQUAL(s->eqns[0].kind, kind);
      check_round_trip(s);
      lsim_scenario_destroy(s);
    }
  }
}

/* Every kind's generated equations lower (at least one in KIND_SEEDS for
 * each kind) or fail as JAX or invalid input would, never as a lowersim
 * bug; a lowering that succeeds verifies and executes. */
static void test_each_kind_lowers(void) {
  lsim_lowerer *lowerer = NULL;
  CU_ASSERT_EQUAL_FATAL(lsim_lowerer_create(&lowerer, NULL), LSIM_OK);
  for (size_t k = 0; k < lsim_scenario_kind_count(); k++) {
    const lsim_scenario_kind *kind = lsim_scenario_kind_at(k);
    if (!generable_alone(kind))
      continue;
    size_t lowered = 0;
    for (uint64_t seed = 0; seed < KIND_SEEDS; seed++) {
      lsim_scenario *s = kind_scenario(k, seed);
      lsim_error err = LSIM_ERROR_INIT;
      lsim_scenario_outcome out = {0};
      int rc = lsim_scenario_run(lowerer, s, NULL, &out, &err);
      lsim_kind what = lsim_status_kind(rc);
      if (what != LSIM_KIND_OK && what != LSIM_KIND_JAX_ERROR && what != LSIM_KIND_INVALID_INPUT)
        fprintf(stderr, "\n%s, seed %llu: %s\n", lsim_scenario_kind_element(kind),
                (unsigned long long)seed, lsim_error_message(&err));
      CU_ASSERT_TRUE(what == LSIM_KIND_OK || what == LSIM_KIND_JAX_ERROR ||
                     what == LSIM_KIND_INVALID_INPUT);
      if (!rc) {
        lowered++;
        CU_ASSERT_PTR_NOT_NULL(out.lowering);
        CU_ASSERT_TRUE(out.executed);
      }
      lsim_scenario_outcome_clear(&out);
      lsim_error_clear(&err);
      lsim_scenario_destroy(s);
    }
    if (!lowered)
      fprintf(stderr, "\nno generated <%s> lowered\n", lsim_scenario_kind_element(kind));
    CU_ASSERT_TRUE(lowered > 0);
  }
  lsim_lowerer_destroy(lowerer);
}

/* A process session: the lowerings in order in one process, a rule
 * registered by the first still there in the second; written back with
 * every lowering; each <expect> checked, the first difference named by its
 * lowering; explain narrates each lowering. */
static void narrate(void *data, lsim_explain_kind kind, int depth, const char *text) {
  (void)kind;
  (void)depth;
  lsimp_strbuf *sb = data;
  lsimp_strbuf_printf(sb, "%s\n", text);
}

#define SESSION_XML(first_expect)                                                          \
  "<scenario name=\"s\">\n"                                                                \
  "<lower platforms=\"cpu\"><arg dtype=\"f32\" shape=\"4\"/>\n"                            \
  "<primitive name=\"my_op\" args=\"0\"><rule platform=\"cpu\" target=\"k_cpu\"/>"         \
  "<result dtype=\"f32\" shape=\"4\"/></primitive></lower>\n"                              \
  "<expect ok=\"true\"><contains>" first_expect "</contains></expect>\n"                   \
  "<lower function=\"g\" platforms=\"cpu,tpu\"><arg dtype=\"f32\" shape=\"4\"/>\n"         \
  "<primitive name=\"my_op\" args=\"0\"><rule platform=\"tpu\" target=\"k_tpu\"/>"         \
  "<result dtype=\"f32\" shape=\"4\"/></primitive></lower>\n"                              \
  "<expect ok=\"true\"><contains>k_cpu</contains><contains>k_tpu</contains></expect>\n"   \
  "</scenario>\n"

static void test_session(void) {
  lsim_scenario *s = read_text(SESSION_XML("k_cpu"));
  CU_ASSERT_PTR_NOT_NULL_FATAL(s);
  CU_ASSERT_EQUAL(s->step, 1);
  CU_ASSERT_PTR_NOT_NULL_FATAL(s->next);
  CU_ASSERT_EQUAL(s->next->step, 2);
  CU_ASSERT_STRING_EQUAL(s->next->function, "g");
  CU_ASSERT_EQUAL(s->next->num_args, 1);
  CU_ASSERT_EQUAL(s->next->eqns[0].args[0], 0);
  CU_ASSERT_PTR_NULL(s->next->next);

  char *text = NULL;
  size_t size = 0;
  FILE *mem = open_memstream(&text, &size);
  lsim_error err = LSIM_ERROR_INIT;
  CU_ASSERT_EQUAL(lsim_scenario_write(s, mem, &err), LSIM_OK);
  fclose(mem);
  lsim_scenario *back = read_text(text);
  CU_ASSERT_TRUE(back && back->next && back->next->step == 2 && !back->next->next &&
                 strcmp(back->next->platforms, "cpu,tpu") == 0);
  lsim_scenario_destroy(back);
  free(text);

  lsim_lowerer *lowerer = NULL;
  CU_ASSERT_EQUAL_FATAL(lsim_lowerer_create(&lowerer, NULL), LSIM_OK);
  lsim_scenario_verdict v;
  CU_ASSERT_EQUAL(lsim_scenario_check(lowerer, s, &v, &err), LSIM_OK);
  CU_ASSERT_TRUE(v.passed);
  lsim_scenario_verdict_clear(&v);

  lsimp_strbuf said = LSIMP_STRBUF_INIT;
  lsim_scenario_run_options opts = LSIM_SCENARIO_RUN_OPTIONS_INIT(.explain = narrate,
                                                                  .explain_data = &said);
  lsimp_session_outcome out;
  CU_ASSERT_EQUAL(lsimp_scenario_run_session(lowerer, s, &opts, &out, &err), LSIM_OK);
  CU_ASSERT_EQUAL(out.num_earlier, 1);
  CU_ASSERT_EQUAL(out.earlier[0].code, LSIM_OK);
  CU_ASSERT_PTR_NOT_NULL(out.earlier[0].lowering);
  CU_ASSERT_PTR_NOT_NULL(out.last.lowering);
  CU_ASSERT_PTR_NOT_NULL(strstr(lsimp_strbuf_cstr(&said), "session: lowering 1 of 2 (line 2)\n"));
  CU_ASSERT_PTR_NOT_NULL(strstr(lsimp_strbuf_cstr(&said),
                                "session: lowering 2 of 2 (line 5), in the same JAX process"));
  lsimp_session_outcome_clear(&out);
  lsimp_strbuf_free(&said);
  lsim_scenario_destroy(s);

  s = read_text(SESSION_XML("k_zz"));
  CU_ASSERT_PTR_NOT_NULL_FATAL(s);
  CU_ASSERT_EQUAL(lsim_scenario_check(lowerer, s, &v, &err), LSIM_OK);
  CU_ASSERT_FALSE(v.passed);
  CU_ASSERT_STRING_EQUAL(v.difference,
                         "lowering 1 (line 2): the module does not contain \"k_zz\"");
  lsim_scenario_verdict_clear(&v);
  lsim_scenario_destroy(s);
  lsim_lowerer_destroy(lowerer);
}

/* <contains> and <absent> texts, many against a large module: one pass of
 * an automaton of the texts (a search per text took texts x module).  Texts
 * that are suffixes and prefixes of one another ("%1 = ", "%11 = ",
 * "%111 = "), the first missing <contains> in order, else the first <absent>
 * the module has. */
static char *texts_scenario(int ops, const char *last_contains, const char *last_absent) {
  lsimp_strbuf x = LSIMP_STRBUF_INIT;
  lsimp_strbuf_puts(&x, "<scenario name=\"texts\"><lower function=\"f\">"
                        "<arg dtype=\"f32\" shape=\"8\"/>");
  for (int i = 0; i < ops; i++)
    lsimp_strbuf_printf(&x, "<op kind=\"%s\" args=\"%d\"/>", i % 3 ? "sine" : "cosine", i);
  lsimp_strbuf_puts(&x, "</lower><expect ok=\"true\">");
  for (int i = ops - 1; i >= 0; i--)
    lsimp_strbuf_printf(&x, "<contains>%%%d = </contains>", i);
  lsimp_strbuf_puts(&x, "<contains>stablehlo.cosine</contains><contains>sine\"(%</contains>");
  if (last_contains)
    lsimp_strbuf_printf(&x, "<contains>%s</contains>", last_contains);
  for (int i = 0; i < ops; i++)
    lsimp_strbuf_printf(&x, "<absent>%%%d = stablehlo.tan</absent>", i);
  lsimp_strbuf_puts(&x, "<absent>%arg1</absent>");
  if (last_absent)
    lsimp_strbuf_printf(&x, "<absent>%s</absent>", last_absent);
  lsimp_strbuf_puts(&x, "</expect></scenario>");
  return lsimp_strbuf_take(&x);
}

static void test_many_texts(void) {
  lsim_lowerer *lowerer = NULL;
  CU_ASSERT_EQUAL_FATAL(lsim_lowerer_create(&lowerer, NULL), LSIM_OK);
  lsim_error err = LSIM_ERROR_INIT;
  struct {
    int ops;
    const char *contains, *absent, *difference; /* NULL: passes */
  } cases[] = {
      {3000, NULL, NULL, NULL},
      {3000, "%3000 = ", "%2999 = ", "the module does not contain \"%3000 = \""},
      {3000, "%2999 = \"stablehlo.sine", "tensor&lt;8xf32>",
       "the module contains \"tensor<8xf32>\", which must be absent"},
      {3000, "", "stablehlo.cosine %", NULL}, /* "" is in every module */
      {5, "%5 = ", NULL, "the module does not contain \"%5 = \""}, /* a search per text */
  };
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
    char *xml = texts_scenario(cases[c].ops, cases[c].contains, cases[c].absent);
    lsim_scenario *s = read_text(xml);
    lsim_scenario_verdict v;
    CU_ASSERT_EQUAL(lsim_scenario_check(lowerer, s, &v, &err), LSIM_OK);
    CU_ASSERT_EQUAL(v.passed, cases[c].difference == NULL);
    if (cases[c].difference)
      CU_ASSERT_STRING_EQUAL(v.difference ? v.difference : "", cases[c].difference);
    lsim_scenario_verdict_clear(&v);
    lsim_scenario_destroy(s);
    free(xml);
  }
  lsim_lowerer_destroy(lowerer);
}

static void test_null_arguments(void) {
  lsim_error err = LSIM_ERROR_INIT;
  lsim_scenario *s;
  CU_ASSERT_EQUAL(lsim_scenario_read_file(NULL, &s, &err), LSIM_E_INVALID_ARGUMENT);
  CU_ASSERT_EQUAL(lsim_scenario_read_file("x", NULL, &err), LSIM_E_INVALID_ARGUMENT);
  CU_ASSERT_EQUAL(lsim_scenario_read_memory(NULL, 3, "x", &s, &err), LSIM_E_INVALID_ARGUMENT);
  CU_ASSERT_EQUAL(lsim_scenario_read_memory(NULL, 0, NULL, &s, &err), LSIM_E_INVALID_INPUT);
  CU_ASSERT_STRING_EQUAL(lsim_error_message(&err),
                         "<memory>:1: the file is empty; a scenario is a <scenario> element");
  lsim_scenario_destroy(NULL);
  lsim_error_clear(&err);
}

static CU_TestInfo tests[] = {
    {"reads every element and attribute", test_reads_every_element_and_attribute},
    {"defaults", test_defaults},
    {"element defaults", test_element_defaults},
    {"values are numbered in order", test_values_are_numbered_in_order},
    {"ffi_call", test_ffi_call},
    {"empty lists", test_empty_lists},
    {"round trip: every element", test_round_trip_full},
    {"a process session", test_session},
    {"many <contains> and <absent> texts", test_many_texts},
    {"round trip: minimal", test_round_trip_minimal},
    {"round trip: awkward text", test_round_trip_awkward_text},
    {"write rejects what XML cannot carry", test_write_rejects_what_xml_cannot_carry},
    {"write reports I/O errors", test_write_reports_io_errors},
    {"malformed XML", test_malformed_xml},
    {"deep nesting is refused", test_deep_nesting_is_refused},
    {"DOCTYPE is refused", test_doctype_is_refused},
    {"schema violations", test_schema_violations},
    {"unknown elements", test_unknown_elements},
    {"value indices", test_value_indices},
    {"shapes", test_shapes},
    {"unknown dtype", test_unknown_dtype},
    {"numbers out of range", test_numbers_out_of_range},
    {"operands match the op", test_operands_match_the_op},
    {"lower_fun rules", test_lower_fun_rules},
    {"platform names", test_platform_names},
    {"expect", test_expect},
    {"empty input", test_empty_input},
    {"unreadable files", test_unreadable_files},
    {"invalid fixture names its path", test_invalid_fixture_names_its_path},
    {"10 MB file is refused", test_ten_megabyte_file_is_refused},
    {"pipe over the limit is refused", test_pipe_over_the_limit_is_refused},
    {"lines past 65535", test_lines_past_65535},
    {"attributes, children and depth per element", test_limits_per_element},
    {"NUL bytes are refused", test_nul_bytes_are_refused},
    {"messages are one line", test_messages_are_one_line},
    {"restores libxml2 handlers", test_restores_libxml_handlers},
    {"nothing is printed", test_nothing_is_printed},
    {"threads", test_threads},
    {"embedded schema is the shipped one", test_embedded_schema_is_the_shipped_one},
    {"names", test_names},
    {"each kind round-trips", test_each_kind_round_trips},
    {"each kind lowers", test_each_kind_lowers},
    {"NULL arguments", test_null_arguments},
    CU_TEST_INFO_NULL,
};

CU_SuiteInfo scenario_suite[] = {{"scenario", NULL, NULL, NULL, NULL, tests}, CU_SUITE_INFO_NULL};
