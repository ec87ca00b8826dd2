/* fuzz/libfuzzer_bindings.c: the libFuzzer target of the C entry points the
 * Python bindings call (python/lowersim/_native.py) with arbitrary bytes
 * (issue 26: a string given to lowersim.reprint nested 5,000 deep took the
 * interpreter down).  The input's first byte picks the entry point:
 *   0  lsim_mlir_reprint (lowersim.reprint): the rest as MLIR text;
 *   1  lsim_scenario_read_memory then lsim_scenario_run and
 *      lsim_lowering_print (lowersim.lower_xml): the rest as a scenario;
 *   2  lsim_scenario_port_judge (lowersim.judge): the rest as a port's
 *      stdout against a module of lowersim's, exit status 0;
 *   3  the same against JAX's error: the rest, to its first NUL, as the
 *      port's stderr, exit status 1;
 * each in one lsim_lowerer for the whole run, as a Python thread has.  No
 * input may crash, hang or leak; a failure is an error, never an abort. */
#include "lowersim/lowering.h"
#include "lowersim/mlir_text.h"
#include "lowersim/alloc.h"
#include "lowersim/scenario.h"
#include "lowersim/scenario_port.h"
#include "lowersim/scenario_run.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* lowersim's module for a one-sine program, as a judge's expected side. */
static const char MODULE[] =
    "module @jit_f attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {\n"
    "  func.func public @main(%arg0: tensor<4xf32>) -> (tensor<4xf32> {jax.result_info = "
    "\"result\"}) {\n"
    "    %0 = \"stablehlo.sine\"(%arg0) : (tensor<4xf32>) -> tensor<4xf32>\n"
    "    return %0 : tensor<4xf32>\n"
    "  }\n"
    "}\n";

static lsim_lowerer *lowerer;

static void fail(const char *what, const lsim_error *err) {
  fprintf(stderr, "lowersim_libfuzzer_bindings: %s: %s\n", what, lsim_error_message(err));
  abort();
}

static void reprint(const char *text) {
  char *out = NULL;
  lsim_error err = LSIM_ERROR_INIT;
  if (lsim_mlir_reprint(lsim_lowerer_mlir_context(lowerer), text, &out, &err) &&
      err.code != LSIM_E_INVALID_INPUT)
    fail("lsim_mlir_reprint", &err);
  free(out);
  lsim_error_clear(&err);
}

static void lower(const char *text, size_t n) {
  lsim_error err = LSIM_ERROR_INIT;
  lsim_scenario *s = NULL;
  if (lsim_scenario_read_memory(text, n, "<fuzz>", &s, &err) == LSIM_OK) {
    lsim_scenario_outcome outcome = {0};
    if (lsim_scenario_run(lowerer, s, NULL, &outcome, &err) == LSIM_OK)
      free(lsim_lowering_print(outcome.lowering));
    lsim_scenario_outcome_clear(&outcome);
  }
  if (err.code == LSIM_E_NO_MEMORY)
    fail("lower_xml", &err);
  lsim_scenario_destroy(s);
  lsim_error_clear(&err);
}

static void judge(const char *text, bool error) {
  lsim_scenario_port_expected e = {.module = error ? NULL : MODULE,
                                   .error_class = error ? "ValueError" : NULL,
                                   .error_message = error ? "bad\nthing" : NULL};
  lsim_scenario_port_answer a = {.how = LSIM_SCENARIO_PORT_EXITED, .code = error,
                                 .out = error ? "" : text, .err = error ? text : ""};
  lsim_scenario_port_options o = LSIM_SCENARIO_PORT_OPTIONS_INIT();
  lsim_scenario_port_verdict v;
  lsim_error err = LSIM_ERROR_INIT;
  if (lsim_scenario_port_judge(lsim_lowerer_mlir_context(lowerer), &e, &a, &o, &v, &err))
    fail("lsim_scenario_port_judge", &err);
  lsim_scenario_port_verdict_clear(&v);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  lsim_error err = LSIM_ERROR_INIT;
  if (!lowerer && lsim_lowerer_create(&lowerer, &err))
    fail("lsim_lowerer_create", &err);
  if (size == 0)
    return 0;
  /* The bindings pass Python strings: NUL-terminated copies. */
  char *text = lsim_malloc(size);
  if (!text)
    abort();
  memcpy(text, data + 1, size - 1);
  text[size - 1] = '\0';
  switch (data[0] % 4) {
  case 0:
    reprint(text);
    break;
  case 1:
    lower(text, size - 1);
    break;
  default:
    judge(text, data[0] % 4 == 3);
  }
  free(text);
  return 0;
}
