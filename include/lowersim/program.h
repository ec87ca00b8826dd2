/* lowersim/program.h: the programs lowersim lowers: straight-line jaxprs.
 *
 * The counterpart of core.Jaxpr (with its JaxprEqns).  Values are numbered
 * as in a jaxpr: the program's args first, then every result of every
 * equation in order; an equation names its operands by number.  A program
 * and everything it points to is borrowed by whoever lowers it. */
#ifndef LOWERSIM_PROGRAM_H
#define LOWERSIM_PROGRAM_H

#include "lowersim/aval.h"
#include "lowersim/error.h"
#include "lowersim/jax_profile.h"
#include "lowersim/primitive.h"

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* One equation: `primitive` applied to its operands.  `params` has the type
 * the primitive fixes (set both with the primitive's bind helper, e.g.
 * lsim_buffer_callback_bind); NULL for a primitive without params. */
typedef struct lsim_eqn {
  const lsim_primitive *primitive; /* borrowed */
  const size_t *operands;
  size_t num_operands;
  const lsim_aval *results;
  size_t num_results;
  const void *params;  /* borrowed; the primitive's params type */
  bool ordered_effect; /* has an ordered effect: threads the token of its kind (its
                          primitive's ordered_effect, else the primitive's own) */
  /* The equation context's compute_type (borrowed; NULL: none), what
   * jax.experimental.compute_on.compute_on(compute_type) gives the
   * equations traced inside it: "device_host" lowers the equation for
   * ('cpu',), "tpu_sparsecore" for ('tpu',) (mlir.py _platforms_for_eqn),
   * and its results' ops carry mhlo.frontend_attributes
   * (wrap_compute_type_in_place). */
  const char *compute_type;
} lsim_eqn;

typedef struct lsim_program {
  const char *function_name; /* the traced function's name: module jit_{name} */
  const lsim_aval *args;
  const bool *donated;       /* per arg, or NULL */
  size_t num_args;
  const lsim_eqn *eqns;
  size_t num_eqns;
  bool has_outputs;          /* false: the last equation's results (or none) */
  const size_t *outputs;     /* with has_outputs: the returned values, possibly none */
  size_t num_outputs;
} lsim_program;

/* Checks that every equation has a primitive and names values defined
 * before it, and that the outputs are values (LSIM_E_INVALID_ARGUMENT). */
int lsim_program_check(const lsim_program *program, lsim_error *err);

/* How many values the program defines: args plus every equation's results. */
size_t lsim_program_num_values(const lsim_program *program);

/* Whether an equation has an ordered effect (the program threads a token). */
bool lsim_program_has_ordered_effects(const lsim_program *program);

/* The kind of an ordered effect, as the token set keys it: an lsim_effect,
 * or, for a primitive without one, the primitive (a kind of its own). */
typedef struct lsim_effect_kind {
  const lsim_effect *effect;       /* NULL: the primitive's own kind */
  const lsim_primitive *primitive; /* with effect NULL: whose kind */
} lsim_effect_kind;

/* The kind of `eqn`'s ordered effect (meaningful when eqn->ordered_effect). */
lsim_effect_kind lsim_eqn_effect_kind(const lsim_eqn *eqn);
bool lsim_effect_kind_equal(lsim_effect_kind a, lsim_effect_kind b);
/* str(effect): the effect's name, or the primitive's for its own kind. */
const char *lsim_effect_kind_name(lsim_effect_kind kind);

/* The program's ordered effects, one per kind, in the order the equations
 * first have them (pxla.py's ordered_effects; JAX's is the order of a set
 * and differs between processes): at most `max` into `out` (may be NULL
 * with max 0); returns how many there are. */
size_t lsim_program_ordered_effects(const lsim_program *program, lsim_effect_kind *out,
                                    size_t max);

/* The values the program returns: its outputs, else the last equation's
 * results.  `num_values` is lsim_program_num_values(program). */
size_t lsim_program_num_outputs(const lsim_program *program);
size_t lsim_program_output(const lsim_program *program, size_t num_values, size_t i);

/* What JAX raises while tracing the program, before any lowering: every
 * equation's trace-time check (its primitive's, as bind runs it: lax's shape
 * and dtype rules, platform_dependent's gpu key and its branches, ...), in
 * program order.  `program` is checked (lsim_program_check). */
int lsim_program_trace(const lsim_program *program, lsim_error *err);

/* The same as JAX version `profile` (NULL: the newest) traces it: each
 * equation's compute type first (entering compute_on: compute_on.py
 * _check_valid, or compute_on's TypeError once the context manager is gone,
 * lsim_jax_profile.compute_on_context_manager). */
int lsim_program_trace_for(const lsim_program *program, const lsim_jax_profile *profile,
                           lsim_error *err);

/* Writes the aval of every value (lsim_program_num_values of them) to `out`. */
void lsim_program_value_avals(const lsim_program *program, lsim_aval *out);

/* --- The jaxpr, as jax.make_jaxpr(f)(*args) prints it ----------------------
 *
 * `{ lambda ; a:f32[4]. let b:f32[4] = sin a in (b,) }`: values named a, b,
 * ..., z, ba, ... in the order they are printed, nested jaxprs (cond's
 * branches) continuing the names, laid out as JAX's pretty printer lays it
 * out in 80 columns (a group on one line when it fits, else broken; an
 * equation's operands filled).  Each equation's params come from its
 * primitive's jaxpr_params. */
typedef struct lsim_jaxpr_printer lsim_jaxpr_printer;

/* The jaxpr of `program` for release `jax` (NULL: the newest), owned by the
 * caller; NULL when out of memory.  `program` is checked
 * (lsim_program_check). */
char *lsim_program_jaxpr(const lsim_program *program, const lsim_jax_profile *jax);

/* For a primitive's jaxpr_eqns: begins an equation of `primitive` with
 * `operands` (values of the program printed, or those an earlier
 * lsim_jaxpr_eqn_begin returned) and results of `results`' avals: the
 * equation's own when `results` is its `results`, else fresh values;
 * returns the value number of its first result.  Params follow, then
 * lsim_jaxpr_eqn_end. */
size_t lsim_jaxpr_eqn_begin(lsim_jaxpr_printer *p, const char *primitive,
                            const size_t *operands, size_t num_operands,
                            const lsim_aval *results, size_t num_results);
void lsim_jaxpr_eqn_end(lsim_jaxpr_printer *p);

/* The aval of a value of the jaxpr printed (an operand). */
const lsim_aval *lsim_jaxpr_value_aval(const lsim_jaxpr_printer *p, size_t value);
/* Marks the jaxpr failed (out of memory): lsim_program_jaxpr gives NULL. */
void lsim_jaxpr_fail(lsim_jaxpr_printer *p);

/* A param `key=VALUE`, VALUE as printf formats it. */
void lsim_jaxpr_param(lsim_jaxpr_printer *p, const char *key, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* A param whose value is a jaxpr (compute_on's). */
void lsim_jaxpr_param_jaxpr(lsim_jaxpr_printer *p, const char *key, const lsim_program *jaxpr);
/* A param whose value is a tuple of closed jaxprs (cond's branches). */
void lsim_jaxpr_param_jaxprs(lsim_jaxpr_printer *p, const char *key,
                             const lsim_program *const *jaxprs, size_t num_jaxprs);
/* result_avals=(ShapedArray(float32[4]),): the avals of the equation's
 * results, as the callbacks and a program's own primitives have it. */
void lsim_jaxpr_param_result_avals(lsim_jaxpr_printer *p, const lsim_eqn *eqn);
/* in_tree / out_tree's PyTreeDef of `n` leaves: `PyTreeDef(((*, *), {}))`
 * for the arguments of a call (args, kwargs), `PyTreeDef((*,))` for a
 * tuple. */
void lsim_jaxpr_param_tree(lsim_jaxpr_printer *p, const char *key, size_t n, bool call);

#ifdef __cplusplus
}
#endif

#endif /* LOWERSIM_PROGRAM_H */
