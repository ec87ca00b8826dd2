/* lowersim/lower_per_platform.h: one equation lowered for one platform or
 * several.  JAX counterpart: jax/_src/interpreters/mlir.py
 * lower_per_platform. */
#ifndef LOWERSIM_LOWER_PER_PLATFORM_H
#define LOWERSIM_LOWER_PER_PLATFORM_H

#include "lowersim/error.h"
#include "lowersim/lowering_rule_context.h"
#include "lowersim/registry.h"

#include <mlir-c/IR.h>

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

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

#ifdef __cplusplus
}
#endif

#endif /* LOWERSIM_LOWER_PER_PLATFORM_H */
