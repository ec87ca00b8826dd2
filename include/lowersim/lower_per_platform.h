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
 * rules fail with LSIM_E_NO_LOWERING_RULE naming `description`.  Each
 * applied rule's results are wrapped in ctx->compute_type
 * (lsim_wrap_compute_type_in_place), inside the case's branches, not on
 * the case. */
int lsim_lower_per_platform(lsim_lowering_rule_context *ctx, const char *description,
                            const lsim_platform_rule *platform_rules, size_t num_platform_rules,
                            const lsim_rule *default_rule, const MlirValue *args,
                            MlirValue *results, const void *params, lsim_error *err);

/* The frontend attributes of a compute type, into `attrs`; returns how
 * many (0 for an unknown type): _xla_compute_type = map_compute_type's
 * name, or for gpu_stream:N _xla_stream_annotation = "N" and inlineable =
 * "false". */
size_t lsim_compute_type_attributes(MlirContext mlir, const char *compute_type,
                                    MlirNamedAttribute attrs[2]);

/* wrap_compute_type_in_place: when ctx->compute_type is set, its
 * frontend attributes (lsim_compute_type_attributes) merged into the op that
 * defines each of `values` (block arguments are left).  A rule that stands
 * for several JAX equations (lax.platform_dependent: platform_index, then
 * cond) wraps what each of them returns. */
/* map_compute_type: device_host "host", device "dense", tpu_sparsecore
 * "sparseoffload"; NULL for any other. */
const char *lsim_map_compute_type(const char *compute_type);

void lsim_wrap_compute_type_in_place(const lsim_lowering_rule_context *ctx,
                                     const MlirValue *values, size_t count);

/* For a rule that JAX writes with mlir.lower_fun (Pallas's HLO
 * interpreter): the function is traced inside the equation's compute type,
 * so each of its equations' ops carries it; that is every op from `first`
 * to the end of its block and every op nested in them, but the constants
 * (mlir.ir_constant wraps nothing) and the ops without results (returns).
 * No-op without ctx->compute_type or a
 * null `first`. */
void lsim_wrap_compute_type_from(const lsim_lowering_rule_context *ctx, MlirOperation first);

#ifdef __cplusplus
}
#endif

#endif /* LOWERSIM_LOWER_PER_PLATFORM_H */
