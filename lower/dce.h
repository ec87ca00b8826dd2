/* lower/dce.h: jit's dead-code elimination (dce.c).  Private to lower/. */
#ifndef LSIMP_LOWER_DCE_H
#define LSIMP_LOWER_DCE_H

#include "lowersim/error.h"
#include "lowersim/program.h"

#include <stdbool.h>
#include <stddef.h>

/* The program jit lowers: the kept equations and arguments, renumbered.
 * It borrows the original's avals, params and primitives; the arrays are
 * its own. */
typedef struct lsimp_dce_result {
  lsim_program program;
  size_t dropped_eqns, dropped_args;
  bool *kept_eqn;   /* per original equation */
  bool *used_value; /* per original value (args first): some kept equation or output uses it */
  lsim_eqn *eqns;
  size_t *operands;
  lsim_aval *args;
  bool *donated;
  size_t *outputs;
} lsimp_dce_result;

/* pe.dce_jaxpr of `prog` (checked), every output used, and the arguments
 * nothing uses, as the JAX of `jax` (NULL: the newest) does it; with
 * `keep_unused` nothing is dropped.  `*out` is filled on success (free
 * with lsimp_dce_free). */
int lsimp_dce(const lsim_program *prog, const lsim_jax_profile *jax, bool keep_unused,
              lsimp_dce_result *out, lsim_error *err);
void lsimp_dce_free(lsimp_dce_result *d);

#endif
