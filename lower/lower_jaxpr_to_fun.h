/* lower/lower_jaxpr_to_fun.h: a function of the module.  Private to lower/. */
#ifndef LSIMP_LOWER_LOWER_JAXPR_TO_FUN_H
#define LSIMP_LOWER_LOWER_JAXPR_TO_FUN_H

#include "donation.h"
#include "spill.h"

#include "lowersim/error.h"
#include "lowersim/module_context.h"
#include "lowersim/program.h"
#include "lowersim/registry.h"

#include <stdbool.h>

/* How main is to be made. */
typedef struct lsimp_fun {
  const char *name;            /* "main" */
  const lsim_program *jaxpr;
  const lsim_aval *avals;      /* the jaxpr's value avals */
  size_t num_values;
  const lsimp_donation *donation;
  bool platform_index;         /* takes the platform index first */
  const lsim_effect_kind *effects; /* the ordered effects, one token each, in this order */
  size_t num_effects;
  const lsim_mesh *arg_mesh;   /* the args' sharding: replicated over it, or NULL */
  const lsim_mesh *result_mesh; /* the results' likewise, or NULL */
  bool memory_kinds;           /* the results carry mhlo.memory_kind (a memory kind other
                                  than device in the jaxpr) */
  lsimp_spill *spill;          /* main's body printed as it is lowered (spill.h), or NULL */
} lsimp_fun;

/* mlir.py lower_jaxpr_to_fun(ctx, name, jaxpr, ...) for main: a public
 * func.func taking the platform index (jax.global_constant =
 * "_platform_index"), a token per ordered effect (jax.token) and the args (tf.aliasing_output
 * or jax.buffer_donor; their sharding), returning the tokens and the outputs
 * (jax.result_info; their sharding), its body lowered by jaxpr_subcomp, then
 * func.return. */
int lsimp_lower_jaxpr_to_fun(lsim_module_context *mc, const lsim_registry *reg,
                             const lsimp_fun *fun, lsim_error *err);

#endif
