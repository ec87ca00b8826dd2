/* lowersim/lower.h: lowering rules, lower_per_platform and module lowering.
 *
 * JAX counterparts (jax/_src/interpreters/mlir.py): register_lowering and
 * its tables (a registry object here, not global state), lower_per_platform,
 * and lower_jaxpr_to_module for the small programs lowersim describes.
 */
#ifndef LOWERSIM_LOWER_H
#define LOWERSIM_LOWER_H

#include "lowersim/aval.h"
#include "lowersim/context.h"
#include "lowersim/error.h"
#include "lowersim/runtime.h"

#include <mlir-c/IR.h>

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* --- Rules ------------------------------------------------------------------ */

/* A lowering rule: emits ops into ctx->block for the operands `args` and
 * writes ctx->num_avals_out values into `results`.  `params` are the
 * equation's (primitive-specific, borrowed); `rule_data` is what the rule was
 * registered with.  Returns 0 or a status with `err` filled. */
typedef int (*lsim_rule_fn)(lsim_lowering_rule_context *ctx, const MlirValue *args,
                            MlirValue *results, const void *params, void *rule_data,
                            lsim_error *err);

typedef struct lsim_rule {
  lsim_rule_fn fn;
  void *data;
} lsim_rule;

typedef struct lsim_platform_rule {
  const char *platform;
  lsim_rule rule;
} lsim_platform_rule;

/* --- The registry (register_lowering) ------------------------------------- */

typedef struct lsim_registry lsim_registry;

/* Creates a registry (owned).  `runtime` (borrowed) decides which platforms
 * are known.  With a `parent` (borrowed, must outlive the child), primitives
 * the child does not have are looked up in the parent: a scenario's own
 * primitives go in a child of a shared registry of built-in rules. */
int lsim_registry_create(lsim_runtime *runtime, const lsim_registry *parent,
                         lsim_registry **out, lsim_error *err);
void lsim_registry_destroy(lsim_registry *reg);

/* register_lowering(prim, rule, platform, inline): `platform` NULL registers
 * the default rule; "gpu" stores the rule for cuda, rocm and oneapi; an
 * unknown platform fails with LSIM_E_UNKNOWN_RULE_PLATFORM.  A later
 * registration replaces an earlier one.  `primitive` is copied. */
int lsim_register_lowering(lsim_registry *reg, const char *primitive, lsim_rule rule,
                           const char *platform, bool inline_rule, lsim_error *err);

/* Declares `primitive` in this registry without rules: a new primitive that
 * shadows one of the same name in the parent (JAX's primitives are objects,
 * not names: a user's `sin` is not lax.sin_p). */
int lsim_registry_declare(lsim_registry *reg, const char *primitive, lsim_error *err);

/* A trace-time check of an equation (what JAX raises before lowering, while
 * tracing or binding: platform_dependent's `gpu` key, buffer_callback's
 * input_output_aliases), given the equation's operand and result avals. */
typedef int (*lsim_trace_check_fn)(const lsim_aval *avals_in, size_t num_in,
                                   const lsim_aval *avals_out, size_t num_out, const void *params,
                                   void *data, lsim_error *err);
int lsim_registry_set_trace_check(lsim_registry *reg, const char *primitive,
                                  lsim_trace_check_fn check, void *data, lsim_error *err);

/* _get_lowering_rules: the platform rules of `primitive` for `platforms`, in
 * the order of `platforms` (at most `count` entries written to `out`, their
 * number to *num_out), and the default rule (*has_default).  False when the
 * primitive was never registered. */
bool lsim_registry_lookup(const lsim_registry *reg, const char *primitive,
                          const char *const *platforms, size_t count, lsim_platform_rule *out,
                          size_t *num_out, lsim_rule *default_rule, bool *has_default,
                          bool *inline_rule);

/* --- lower_per_platform ----------------------------------------------------- */

/* Lowers one equation with per-platform rules, exactly as JAX's
 * lower_per_platform: one platform uses its rule or the default; several
 * keep one rule per platform with a specific rule (in `platform_rules`
 * order) plus the default once, and emit two stablehlo.case ops over the
 * platform index (ctx->dim_var_values[0]) unless one rule remains.  Missing
 * rules fail with LSIM_E_NO_LOWERING_RULE naming `description`. */
int lsim_lower_per_platform(lsim_lowering_rule_context *ctx, const char *description,
                            const lsim_platform_rule *platform_rules, size_t num_platform_rules,
                            const lsim_rule *default_rule, const MlirValue *args,
                            MlirValue *results, const void *params, lsim_error *err);

/* --- Built-in primitives --------------------------------------------------- */

/* The elementwise primitives registered in every registry made with
 * lsim_registry_create_builtin, by JAX name: sin cos neg exp add mul sub. */

/* platform_dependent: lax.platform_dependent under jit, i.e. platform_index
 * then a cond whose branches carry their platforms.  A branch is one
 * elementwise primitive applied to the equation's operands. */
typedef struct lsim_platform_branch {
  const char *const *platforms; /* NULL: the default branch */
  size_t num_platforms;
  const char *primitive;        /* e.g. "sin" */
} lsim_platform_branch;

typedef struct lsim_platform_dependent_params {
  const lsim_platform_branch *branches; /* joined: one per distinct function; default last */
  size_t num_branches;
} lsim_platform_dependent_params;

#define LSIM_PRIMITIVE_PLATFORM_DEPENDENT "platform_dependent"

/* A rule that lowers as jax.ffi.ffi_lowering(target) and, first, asks the
 * module for its backend as `backend_access` says. */
typedef enum lsim_backend_use {
  LSIM_BACKEND_USE_NONE,
  LSIM_BACKEND_USE_REQUIRED, /* ModuleContext.get_backend() */
  LSIM_BACKEND_USE_OPTIONAL, /* ModuleContext.get_backend(optional=True) */
} lsim_backend_use;

typedef struct lsim_ffi_rule_data {
  const char *target;
  lsim_backend_use backend_use;
} lsim_ffi_rule_data;

/* The rule function of such a rule; register it with data pointing to an
 * lsim_ffi_rule_data that outlives the registry. */
int lsim_ffi_lowering_rule(lsim_lowering_rule_context *ctx, const MlirValue *args,
                           MlirValue *results, const void *params, void *rule_data,
                           lsim_error *err);

/* Creates a registry (owned) holding the built-in primitives. */
int lsim_registry_create_builtin(lsim_runtime *runtime, lsim_registry **out, lsim_error *err);

/* --- Programs --------------------------------------------------------------- */

/* One equation.  Values are numbered: the program's args first, then every
 * result of every equation in order. */
typedef struct lsim_eqn {
  const char *primitive;     /* registry key, also lower_per_platform's description */
  const size_t *operands;
  size_t num_operands;
  const lsim_aval *results;
  size_t num_results;
  const void *params;        /* primitive-specific, borrowed */
  bool ordered_effect;       /* threads the program's ordered-effect token */
} lsim_eqn;

typedef struct lsim_program {
  const char *function_name; /* the jitted function's name: module jit_{name} */
  const lsim_aval *args;
  const bool *donated;       /* per arg, or NULL */
  size_t num_args;
  const lsim_eqn *eqns;
  size_t num_eqns;
  bool has_outputs;          /* false: the last equation's results (or none) */
  const size_t *outputs;     /* with has_outputs: the returned values, possibly none */
  size_t num_outputs;
} lsim_program;

/* --- Lowering a program -------------------------------------------------- */

typedef struct lsim_lowering_request {
  lsim_runtime *runtime;           /* borrowed */
  const lsim_registry *registry;   /* borrowed */
  const lsim_program *program;     /* borrowed */
  const char *const *platforms;    /* lowering platforms; 0 of them: the default backend's */
  size_t num_platforms;
  const char *backend;             /* pinned backend (jit(backend=...)), or NULL */
  lsim_trace_fn trace;             /* optional narration (lowersim explain) */
  void *trace_data;
  bool for_export;                 /* jax.export: the module says jax.uses_shape_polymorphism */
  bool skip_verify;                /* benchmarks only: no verification */
} lsim_lowering_request;

/* Reuses one MLIR context across lowerings (one per thread). */
typedef struct lsim_lowerer lsim_lowerer;
int lsim_lowerer_create(lsim_lowerer **out, lsim_error *err);
void lsim_lowerer_destroy(lsim_lowerer *lowerer);
MlirContext lsim_lowerer_mlir_context(const lsim_lowerer *lowerer);

/* A lowered module and its module context (host callbacks, channels). */
typedef struct lsim_lowering lsim_lowering;

/* lower_jaxpr_to_module: trace-time checks, the pinned backend, canonical
 * platforms, donation, the main function, each equation through
 * lower_per_platform, then MLIR's verifier and lowersim's structural checks
 * (LSIM_E_VERIFY).  On failure nothing is returned. */
int lsim_lower(lsim_lowerer *lowerer, const lsim_lowering_request *request, lsim_lowering **out,
               lsim_error *err);
void lsim_lowering_destroy(lsim_lowering *lowering);

MlirModule lsim_lowering_module(const lsim_lowering *lowering);
lsim_module_context *lsim_lowering_module_context(const lsim_lowering *lowering);

/* The module as MLIR text (owned, caller frees), or NULL when out of memory. */
char *lsim_lowering_print(const lsim_lowering *lowering);

/* Runs the host callbacks once each, in index order, as the runtime would;
 * the first failure stops the run. */
int lsim_lowering_execute(lsim_lowering *lowering, lsim_error *err);

/* lowersim's structural checks of the stablehlo subset it emits (case index
 * and branch types, custom_call attributes, send/recv tokens), after MLIR's
 * own verifier. */
int lsim_verify_module(MlirModule module, lsim_error *err);

#ifdef __cplusplus
}
#endif

#endif /* LOWERSIM_LOWER_H */
