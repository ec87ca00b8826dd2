/* tests/consumer/main.c: a C program outside lowersim using its installed
 * package (find_package(lowersim) or pkg-config, shared or static): the
 * library's version is the headers'; a buffer_callback lowered for tpu gives
 * JAX's ValueError; a scenario read from memory lowers to a module. */
#include <lowersim/buffer_callback.h>
#include <lowersim/jax.h>
#include <lowersim/lowering.h>
#include <lowersim/scenario.h>
#include <lowersim/scenario_run.h>
#include <lowersim/version.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char scenario[] =
    "<scenario name=\"sine\"><lower platforms=\"cpu,tpu\" export=\"true\"><arg dtype=\"f32\" shape=\"4\"/>"
    "<op kind=\"sine\" args=\"0\"/></lower></scenario>";

static int lower_buffer_callback_for_tpu(void) {
  lsim_error err = LSIM_ERROR_INIT;
  lsim_runtime *rt = NULL; lsim_registry *reg = NULL; lsim_lowerer *l = NULL;
  lsim_lowering *low = NULL;
  lsim_runtime_create_default(&rt, &err);
  lsim_registry_create_jax(rt, NULL, NULL, &reg, &err);
  lsim_lowerer_create(&l, &err);
  static const lsim_aval a = {.dtype = LSIM_DTYPE_F32, .rank = 1, .dims = {4}};
  static const size_t zero = 0;
  lsim_buffer_callback_params bc = {.has_side_effect = false};
  lsim_eqn e = {.operands = &zero, .num_operands = 1, .results = &a, .num_results = 1};
  lsim_buffer_callback_bind(&e, &bc);
  lsim_program p = {.function_name = "f", .args = &a, .num_args = 1, .eqns = &e, .num_eqns = 1};
  const char *tpu = "tpu";
  lsim_lowering_request req = LSIM_LOWERING_REQUEST_INIT(.registry = reg, .program = &p,
                                                         .platforms = &tpu, .num_platforms = 1);
  int rc = lsim_lower(l, &req, &low, &err);
  printf("%s: %s\n", lsim_error_class(&err), lsim_error_message(&err));
  lsim_error_clear(&err);
  lsim_lowering_destroy(low);
  lsim_lowerer_destroy(l); lsim_registry_destroy(reg); lsim_runtime_destroy(rt);
  return rc == LSIM_E_BUFFER_CALLBACK_UNSUPPORTED ? 0 : 1;
}

static int lower_scenario_from_memory(void) {
  lsim_error err = LSIM_ERROR_INIT;
  lsim_scenario *s = NULL;
  lsim_lowerer *l = NULL;
  lsim_scenario_outcome out = {0};
  int rc = lsim_scenario_read_memory(scenario, sizeof scenario - 1, "memory", &s, &err);
  if (!rc)
    rc = lsim_lowerer_create(&l, &err);
  if (!rc)
    rc = lsim_scenario_run(l, s, NULL, &out, &err);
  char *text = rc ? NULL : lsim_lowering_print(out.lowering);
  bool ok = text && strstr(text, "\"stablehlo.sine\"") &&
            strstr(text, "jax.uses_shape_polymorphism = true");
  if (text)
    fputs(text, stdout);
  else
    printf("%s\n", lsim_error_message(&err));
  free(text);
  lsim_scenario_outcome_clear(&out);
  lsim_lowerer_destroy(l);
  lsim_scenario_destroy(s);
  lsim_error_clear(&err);
  return ok ? 0 : 1;
}

int main(void) {
  printf("lowersim %s (headers %s)\n", lsim_version(), LOWERSIM_VERSION_STRING);
  if (strcmp(lsim_version(), LOWERSIM_VERSION_STRING) != 0)
    return 1;
  return lower_buffer_callback_for_tpu() || lower_scenario_from_memory();
}
