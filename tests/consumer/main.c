/* tests/consumer/main.c: a program outside lowersim using its installed
 * package (find_package(lowersim) or pkg-config): it lowers a
 * buffer_callback for tpu and expects JAX's ValueError. */
#include <lowersim/lower.h>
#include <lowersim/callbacks.h>
#include <lowersim/scenario.h>
#include <stdio.h>
#include <stdlib.h>
int main(void) {
  lsim_error err = LSIM_ERROR_INIT;
  lsim_runtime *rt; lsim_registry *reg; lsim_lowerer *l; lsim_lowering *low;
  lsim_runtime_create_default(&rt, &err);
  lsim_registry_create_builtin(rt, &reg, &err);
  lsim_register_callback_rules(reg, &err);
  lsim_lowerer_create(&l, &err);
  static const lsim_aval a = {.dtype = LSIM_DTYPE_F32, .rank = 1, .dims = {4}};
  static const size_t zero = 0;
  lsim_buffer_callback_params bc = {0};
  lsim_eqn e = {.primitive = LSIM_PRIMITIVE_BUFFER_CALLBACK, .operands = &zero, .num_operands = 1, .results = &a, .num_results = 1, .params = &bc};
  lsim_program p = {.function_name = "f", .args = &a, .num_args = 1, .eqns = &e, .num_eqns = 1};
  const char *tpu = "tpu";
  int rc = lsim_lower(l, &(lsim_lowering_request){.runtime = rt, .registry = reg, .program = &p, .platforms = &tpu, .num_platforms = 1}, &low, &err);
  printf("%s: %s\n", lsim_error_class(&err), lsim_error_message(&err));
  lsim_scenario *s; lsim_error e2 = LSIM_ERROR_INIT;
  printf("read: %d\n", lsim_scenario_read_memory("<scenario/>", 11, "mem", &s, &e2));
  lsim_error_clear(&e2); lsim_error_clear(&err);
  lsim_lowerer_destroy(l); lsim_registry_destroy(reg); lsim_runtime_destroy(rt);
  return rc == LSIM_E_BUFFER_CALLBACK_UNSUPPORTED ? 0 : 1;
}
