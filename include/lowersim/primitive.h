/* lowersim/primitive.h: primitives, as JAX's core.Primitive.
 *
 * A primitive is an object: rules are registered for it and equations apply
 * it, both by its address, so two primitives with one name are different
 * primitives (a user's `sin` is not lax.sin_p).  Built-in primitives are
 * static objects of the feature that owns them (lsim_sin_p,
 * lsim_buffer_callback_p, lsim_pallas_call_p, ...); a program's own are made
 * with lsim_primitive_create.  A primitive fixes the type of its equations'
 * params (its feature's header names the struct and a typed bind helper). */
#ifndef LOWERSIM_PRIMITIVE_H
#define LOWERSIM_PRIMITIVE_H

#include "lowersim/aval.h"
#include "lowersim/jax_profile.h"
#include "lowersim/error.h"

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A check JAX makes of an equation while tracing or binding, before any
 * lowering (platform_dependent's `gpu` key, buffer_callback's
 * input_output_aliases), given its operand and result avals, as JAX
 * release `jax` makes it (NULL: the newest). */
typedef int (*lsim_trace_check_fn)(const lsim_aval *avals_in, size_t num_in,
                                   const lsim_aval *avals_out, size_t num_out, const void *params,
                                   const lsim_jax_profile *jax, lsim_error *err);

/* Writes an equation's params as a jaxpr prints them (`kernel=add_one
 * grid=4`) into `buf` (`size` bytes, NUL-terminated, cut short when it does
 * not fit); returns what snprintf returns.  For narration (lowersim explain). */
typedef int (*lsim_explain_params_fn)(const void *params, char *buf, size_t size);

struct lsim_eqn;
struct lsim_jaxpr_printer;

/* Adds an equation's params, as jax.make_jaxpr prints them, to the jaxpr
 * being printed (lsim_jaxpr_param and friends, lowersim/program.h), in
 * the order JAX prints them (sorted by name); `jax` is the release printed
 * for.  May print the equation as several (lsim_jaxpr_eqn_begin). */
typedef void (*lsim_jaxpr_params_fn)(const struct lsim_eqn *eqn, const lsim_jax_profile *jax,
                                     struct lsim_jaxpr_printer *p);

/* A kind of ordered effect (an effects.Effect of effects.ordered_effects,
 * such as callback.py's OrderedIOEffect): main threads one token per kind
 * its program has. */
typedef struct lsim_effect {
  const char *name;  /* str(effect): "OrderedIO" */
  const char *type;  /* its class as repr names it: "jax._src.callback.OrderedIOEffect" */
  bool shardable;    /* in effects.shardable_ordered_effects: allowed on several devices */
} lsim_effect;

/* Whether jit's dead-code elimination (pe.dce_jaxpr) keeps an equation none
 * of whose results is used: it has effects (pe.has_effects: io_callback,
 * debug_callback, a buffer_callback or ffi_call with has_side_effect), or
 * its primitive's dce rule keeps it (pallas_call's, which depends on the
 * release: `jax` is the lowering's profile, never NULL).  An equation with
 * an ordered effect is always kept. */
typedef bool (*lsim_kept_when_unused_fn)(const void *params, const lsim_jax_profile *jax);

typedef struct lsim_primitive {
  const char *name;                      /* the description in lowering errors */
  lsim_trace_check_fn trace_check;       /* NULL: none */
  lsim_explain_params_fn explain_params; /* NULL: no params */
  const lsim_effect *ordered_effect;     /* the kind of its equations' ordered effect; NULL:
                                            a kind of the primitive's own */
  lsim_kept_when_unused_fn kept_when_unused; /* NULL: effect-free, dropped when unused */
  /* Its results' avals do not carry the abstract mesh of a use_abstract_mesh
   * block: they are made from result_shape_dtypes (pure_callback,
   * io_callback), from an Exported's out_avals (call_exported) or by an
   * abstract eval that builds them (a program's own primitive), where lax's
   * rules and ffi_call's take the mesh (checked
   * live: a Mosaic TPU kernel over such a value has no vector.shape_cast). */
  bool results_outside_mesh;
  /* The operand whose aval a result is, abstract mesh included, or -1 for a
   * result of its own (pallas_call's input_output_aliases:
   * _pallas_call_abstract_eval returns the aliased input's aval, so an
   * output aliased to main's argument carries no mesh; checked live).
   * NULL: every result is its own. */
  long (*result_aval_operand)(const void *params, size_t result);
  /* Its equations' params in the jaxpr (NULL: none); a primitive that
   * prints its equation as others (platform_dependent: platform_index and
   * cond) sets jaxpr_eqns instead. */
  lsim_jaxpr_params_fn jaxpr_params;
  lsim_jaxpr_params_fn jaxpr_eqns;
} lsim_primitive;

/* A kept_when_unused for primitives that always have effects. */
bool lsim_always_kept(const void *params, const lsim_jax_profile *jax);

/* core.Primitive(name): a new primitive without checks or params (owned:
 * lsim_primitive_destroy).  `name` is copied; it must not be empty. */
int lsim_primitive_create(const char *name, lsim_primitive **out, lsim_error *err);

/* Frees a primitive made by lsim_primitive_create; NULL is accepted. */
void lsim_primitive_destroy(lsim_primitive *primitive);

#ifdef __cplusplus
}
#endif

#endif /* LOWERSIM_PRIMITIVE_H */
