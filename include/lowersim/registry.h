/* lowersim/registry.h: lowering rules and the tables of register_lowering.
 *
 * JAX counterparts (jax/_src/interpreters/mlir.py): register_lowering and
 * its tables _lowerings and _platform_specific_lowerings, and
 * _get_lowering_rules.  JAX keeps the tables as process state; here they are
 * a registry object holding the rules of one simulated JAX process: create
 * one (lsim_registry_create_jax, lowersim/jax.h, registers what JAX
 * registers) per runtime.  Rules are keyed by primitive object. */
#ifndef LOWERSIM_REGISTRY_H
#define LOWERSIM_REGISTRY_H

#include "lowersim/error.h"
#include "lowersim/jax_profile.h"
#include "lowersim/lowering_rule_context.h"
#include "lowersim/primitive.h"
#include "lowersim/runtime.h"

#include <mlir-c/IR.h>

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A lowering rule: emits ops at ctx->ip for the operands `args` and writes
 * ctx->num_avals_out values into `results`.  `params` are the equation's
 * (of the type its primitive fixes; a feature's rule casts them in one
 * place); `data` is what the rule was registered with.  Returns 0 or a
 * status with `err` filled. */
typedef int (*lsim_rule_fn)(lsim_lowering_rule_context *ctx, const MlirValue *args,
                            MlirValue *results, const void *params, void *data, lsim_error *err);

typedef struct lsim_rule {
  lsim_rule_fn fn;
  void *data; /* borrowed: it must outlive the registry */
} lsim_rule;

typedef struct lsim_platform_rule {
  const char *platform;
  lsim_rule rule;
} lsim_platform_rule;

typedef struct lsim_registry lsim_registry;

/* Creates an empty registry (owned).  `runtime` (borrowed, it must outlive
 * the registry) decides which platforms are known and is the runtime of
 * every lowering with this registry; `profile` (NULL: the newest) is the JAX
 * version whose rules it holds. */
int lsim_registry_create(lsim_runtime *runtime, const lsim_jax_profile *profile,
                         lsim_registry **out, lsim_error *err);
void lsim_registry_destroy(lsim_registry *reg);

lsim_runtime *lsim_registry_runtime(const lsim_registry *reg);
const lsim_jax_profile *lsim_registry_profile(const lsim_registry *reg);

/* register_lowering(prim, rule, platform): `platform` NULL registers the
 * default rule; "gpu" stores the rule for cuda, rocm and oneapi; an unknown
 * platform fails with LSIM_E_UNKNOWN_RULE_PLATFORM.  A later registration
 * replaces an earlier one.  `primitive` is borrowed: it must outlive the
 * registry. */
int lsim_register_lowering(lsim_registry *reg, const lsim_primitive *primitive, lsim_rule rule,
                           const char *platform, lsim_error *err);

/* register_lowering(prim, rule, platform, cacheable=False): the same, and
 * `primitive` joins mlir.py's _uncacheable_primitives (even when the
 * platform is refused, as in JAX): its equations are lowered through
 * _uncached_lowering, whose rule context has a tuple avals_out (see the
 * profile's uncached_multi_platform_type_error). */
int lsim_register_lowering_uncacheable(lsim_registry *reg, const lsim_primitive *primitive,
                                       lsim_rule rule, const char *platform, lsim_error *err);

/* register_lowering(prim, rule, platform, inline=False): the same, and the
 * rule is not inlined: jaxpr_subcomp emits it as a private func.func named
 * after the primitive (renamed by the module's symbol table when the name
 * is taken) and calls it with func.call, one function per distinct
 * equation (mlir.py's lowering cache). */
int lsim_register_lowering_not_inline(lsim_registry *reg, const lsim_primitive *primitive,
                                      lsim_rule rule, const char *platform, lsim_error *err);

/* _get_lowering_rules's `inline`: false when the default rule of
 * `primitive`, or one of its rules for `platforms`, was registered with
 * inline=False. */
bool lsim_lowering_rules_inline(const lsim_registry *reg, const lsim_primitive *primitive,
                                const char *const *platforms, size_t count);

/* Whether `primitive` is cacheable (never registered with cacheable=False). */
bool lsim_registry_is_cacheable(const lsim_registry *reg, const lsim_primitive *primitive);

/* _get_lowering_rules: the platform rules of `primitive` for `platforms`, in
 * the order of `platforms` (at most `count` entries written to `out`, their
 * number to *num_out), and its default rule (*default_rule, NULL when it has
 * none).  Rules are borrowed from the registry. */
void lsim_get_lowering_rules(const lsim_registry *reg, const lsim_primitive *primitive,
                             const char *const *platforms, size_t count, lsim_platform_rule *out,
                             size_t *num_out, const lsim_rule **default_rule);

/* The same for the lowering platforms of `mc`, in O(rules of the primitive)
 * when it has fewer platform rules than there are platforms (thousands of
 * platforms, a rule for few of them) and `mc` is not narrating (the
 * narration lists each platform's rule, one per platform); the rules come
 * in the order of the platforms' first mention.  `out` has room for one
 * per platform. */
void lsim_get_lowering_rules_in(const lsim_registry *reg, const lsim_primitive *primitive,
                                const lsim_module_context *mc, lsim_platform_rule *out,
                                size_t *num_out, const lsim_rule **default_rule);

#ifdef __cplusplus
}
#endif

#endif /* LOWERSIM_REGISTRY_H */
