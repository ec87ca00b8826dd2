/* lowersim/conditionals.h: lax.platform_dependent.
 *
 * JAX counterpart: jax/_src/lax/control_flow/conditionals.py
 * platform_dependent, which under jit binds platform_index_p (lowered with
 * lower_per_platform, each rule returning its branch number) and then cond_p
 * with branches_platforms (_cond_lowering keeps the branches some lowering
 * platform selects).  lowersim binds one primitive for the pair. */
#ifndef LOWERSIM_CONDITIONALS_H
#define LOWERSIM_CONDITIONALS_H

#include "lowersim/error.h"
#include "lowersim/primitive.h"
#include "lowersim/program.h"
#include "lowersim/registry.h"

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* One branch: the platforms it is for and its function, a program of the
 * equation's operands (args) and results (outputs). */
typedef struct lsim_platform_branch {
  const char *const *platforms; /* NULL: the default branch */
  size_t num_platforms;
  const lsim_program *jaxpr;    /* its function_name names it in narration */
} lsim_platform_branch;

/* platform_dependent's params: branches joined as JAX joins them (one per
 * distinct function), the default last. */
typedef struct lsim_platform_dependent_params {
  const lsim_platform_branch *branches;
  size_t num_branches;
} lsim_platform_dependent_params;

extern const lsim_primitive lsim_platform_dependent_p;

/* Makes `eqn` a platform_dependent equation with `params` (borrowed). */
static inline void lsim_platform_dependent_bind(lsim_eqn *eqn,
                                                const lsim_platform_dependent_params *params) {
  eqn->primitive = &lsim_platform_dependent_p;
  eqn->params = params;
}

/* Registers platform_dependent's rule; its branches lower with `reg`'s
 * rules. */
int lsim_register_conditionals_rules(lsim_registry *reg, lsim_error *err);

#ifdef __cplusplus
}
#endif

#endif /* LOWERSIM_CONDITIONALS_H */
