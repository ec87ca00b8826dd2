/* ctx/primitive.c: primitives made at run time (core.Primitive(name)). */
#include "lowersim/alloc.h"
#include "lowersim/primitive.h"
#include "lowersim/program.h"
#include "support/raise.h"

#include <stdlib.h>
#include <string.h>

/* A program's own primitive is bound with its results' avals
 * (prim.bind(*args, result_avals=...), its abstract eval returning them). */
static void result_avals_params(const lsim_eqn *eqn, const lsim_jax_profile *jax,
                                lsim_jaxpr_printer *p) {
  (void)jax;
  lsim_jaxpr_param_result_avals(p, eqn);
}

int lsim_primitive_create(const char *name, lsim_primitive **out, lsim_error *err) {
  if (!name || !*name || !out)
    return lsim_error_set(err, LSIM_E_INVALID_ARGUMENT,
                          "lsim_primitive_create: a primitive needs a name");
  size_t len = strlen(name) + 1;
  /* One allocation: the object, then its name. */
  lsim_primitive *p = lsim_malloc(sizeof *p + len);
  if (!p)
    return lsimp_fail_oom(err);
  char *copy = (char *)(p + 1);
  memcpy(copy, name, len);
  *p = (lsim_primitive){
      .name = copy, .results_outside_mesh = true, .jaxpr_params = result_avals_params};
  *out = p;
  return LSIM_OK;
}

void lsim_primitive_destroy(lsim_primitive *primitive) { free(primitive); }

bool lsim_always_kept(const void *params, const lsim_jax_profile *jax) {
  (void)params, (void)jax;
  return true;
}
