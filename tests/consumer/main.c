/* tests/consumer/main.c: a program outside lowersim using its installed
 * package (find_package(lowersim) or pkg-config): it lowers a
 * buffer_callback for tpu and expects JAX's ValueError, then reads a
 * scenario. */
#include <lowersim/buffer_callback.h>
#include <lowersim/jax.h>
#include <lowersim/lowering.h>
#include <lowersim/scenario.h>
#include <stdio.h>
#include <stdlib.h>
int main(void) {
  lsim_error err = LSIM_ERROR_INIT;
  lsim_runtime *rt; lsim_registry *reg; lsim_lowerer *l; lsim_lowering *low = NULL;
  lsim_runtime_create_default(&rt, &err);
  lsim_registry_create_jax(rt, NULL, NULL, &reg, &err);
  lsim_lowerer_create(&l, &err);
  static const lsim_aval a = {.dtype = LSIM_DTYPE_F32, .rank = 1, .dims = {4}};
  static const size_t zero = 0;
  lsim_buffer_callback_params bc = {{NULL, NULL, NULL}, false, false, NULL, 0};
  lsim_eqn e = {.operands = &zero, .num_operands = 1, .results = &a, .num_results = 1};
  lsim_buffer_callback_bind(&e, &bc);
  lsim_program p = {.function_name = "f", .args = &a, .num_args = 1, .eqns = &e, .num_eqns = 1};
  const char *tpu = "tpu";
  lsim_lowering_request req = LSIM_LOWERING_REQUEST_INIT(.registry = reg, .program = &p,
                                                         .platforms = &tpu, .num_platforms = 1);
  int rc = lsim_lower(l, &req, &low, &err);
  printf("%s: %s\n", lsim_error_class(&err), lsim_error_message(&err));
  lsim_scenario *s; lsim_error e2 = LSIM_ERROR_INIT;
  printf("read: %d\n", lsim_scenario_read_memory("<scenario/>", 11, "mem", &s, &e2));
  lsim_error_clear(&e2); lsim_error_clear(&err);
  lsim_lowering_destroy(low);
  lsim_lowerer_destroy(l); lsim_registry_destroy(reg); lsim_runtime_destroy(rt);
  return rc == LSIM_E_BUFFER_CALLBACK_UNSUPPORTED ? 0 : 1;
}
