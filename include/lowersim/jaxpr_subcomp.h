/* lowersim/jaxpr_subcomp.h: a program's equations lowered into a block.
 * JAX counterpart: jax/_src/interpreters/mlir.py jaxpr_subcomp, which
 * lower_jaxpr_to_fun calls for a function's body and rules such as cond's
 * call for their branches. */
#ifndef LOWERSIM_JAXPR_SUBCOMP_H
#define LOWERSIM_JAXPR_SUBCOMP_H

#include "lowersim/error.h"
#include "lowersim/module_context.h"
#include "lowersim/program.h"
#include "lowersim/registry.h"

#include <mlir-c/IR.h>

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* mlir.TokenSet: the current token of each kind of ordered effect the
 * function threads (none: count 0), in the function's order.  An equation
 * with an ordered effect gets its kind's token and puts back the new one. */
typedef struct lsim_token_set {
  const lsim_effect_kind *kinds; /* borrowed */
  MlirValue *tokens;             /* one per kind (borrowed storage, updated) */
  size_t count;
} lsim_token_set;

/* Told after each equation is lowered: `born` are the equation's results,
 * `dead` the values no later equation reads and the program does not
 * return (each value once, at its last reader, or at the equation that
 * makes it when nothing reads it; never an argument).  A failure stops the
 * lowering with its error.  (lower/spill.c frees what it printed.) */
typedef struct lsim_subcomp_observer {
  int (*after_eqn)(void *data, const MlirValue *born, size_t num_born, const MlirValue *dead,
                   size_t num_dead, lsim_error *err);
  void *data;
} lsim_subcomp_observer;

/* What a program's equations are lowered with: the values of its args, the
 * token set (updated as effects are threaded), dim_var_values (the
 * platform index first, when there is one). */
typedef struct lsim_subcomp_inputs {
  const MlirValue *args;           /* one per program arg */
  lsim_token_set *tokens;
  const MlirValue *dim_var_values;
  size_t num_dim_var_values;
  /* The name stack ("jit(f)"): each equation's ops get the location
   * NameLoc("jit(f)/<primitive>"), as JAX's source_info_to_location names
   * them when locations carry no Python frames; NULL: `ip`'s location. */
  const char *name_stack;
  /* The compute type the jaxpr was traced in (the enclosing equation's,
   * e.g. a cond branch inside compute_on): its equations without one of
   * their own have it, as JAX's eqn ctx takes it from the context manager
   * at trace time; NULL: none. */
  const char *compute_type;
  const lsim_subcomp_observer *observer; /* NULL: none */
} lsim_subcomp_inputs;

/* jaxpr_subcomp(ctx, jaxpr, tokens, *args, dim_var_values): lowers every
 * equation of `jaxpr` at `ip`, in order: its rules from `reg`
 * (_get_lowering_rules), then lower_per_platform with the module's
 * platforms.  Writes the program's outputs (lsim_program_num_outputs of
 * them) to `outs`. */
int lsim_jaxpr_subcomp(lsim_module_context *ctx, const lsim_registry *reg,
                       const lsim_program *jaxpr, const lsim_insertion_point *ip,
                       const lsim_subcomp_inputs *in, MlirValue *outs, lsim_error *err);

/* mlir.lower_fun(fun, multiple_results=True): a rule that traces `fun` for
 * the rule's avals_in (pe.trace_to_jaxpr_dynamic) and lowers the jaxpr in
 * place with jaxpr_subcomp, in a module context whose platforms are the
 * rule's (ctx.platforms, inside a branch of lower_per_platform's case), with
 * the rule's token, dim_var_values and compute type (the equation context's
 * manager is entered while the rule traces).  Like JAX it does not look at
 * avals_out; the jaxpr must return as many values as the equation has
 * results (else LSIM_E_INVALID_ARGUMENT). */
typedef struct lsim_lower_fun {
  const lsim_registry *registry; /* the rules of the jaxpr's equations (borrowed) */
  /* Traces the function: `*jaxpr` (args of avals `avals_in`) stays valid
   * until `release` is called with it (NULL: nothing to release).  A
   * failure is the trace's error (e.g. a lax TypeError), returned. */
  int (*trace)(void *data, const lsim_aval *avals_in, size_t num_in, const lsim_program **jaxpr,
               lsim_error *err);
  void (*release)(void *data, const lsim_program *jaxpr);
  void *data;
} lsim_lower_fun;

/* The rule of `fun` (borrowed: it must outlive the registry it is
 * registered in). */
lsim_rule lsim_lower_fun_rule(const lsim_lower_fun *fun);

#ifdef __cplusplus
}
#endif

#endif /* LOWERSIM_JAXPR_SUBCOMP_H */
