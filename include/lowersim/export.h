/* lowersim/export.h: calling an exported function from another lowering.
 *
 * JAX counterpart: jax/_src/export/_export.py Exported.call and
 * _call_exported_lowering: the exported module (Exported.mlir_module(),
 * read back from its serialization) is merged into the caller's module as a
 * private function named call_exported_<fun_name> (mlir.py
 * merge_mlir_modules), and called with func.call; when the export has
 * several platforms, the callee's platform index is computed from the
 * caller's with a stablehlo.case over the caller's platforms.  Every caller
 * platform must be among the export's ("Function '...' was exported for
 * platforms '...' but it is used on '...'."), unless the export disabled
 * DisabledSafetyCheck.platform() (the callee's index is then 0). */
#ifndef LOWERSIM_EXPORT_H
#define LOWERSIM_EXPORT_H

#include "lowersim/aval.h"
#include "lowersim/error.h"
#include "lowersim/lowering.h"
#include "lowersim/primitive.h"
#include "lowersim/program.h"
#include "lowersim/registry.h"

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* An Exported, as much of it as calling it needs (all borrowed). */
typedef struct lsim_exported {
  const char *fun_name;          /* Exported.fun_name */
  const char *const *platforms;  /* Exported.platforms, lowercase as lowered */
  size_t num_platforms;
  bool platform_check_disabled;  /* DisabledSafetyCheck.platform() in disabled_checks */
  const lsim_lowering *lowering; /* the export's lowering: its module is mlir_module() */
  const lsim_aval *in_avals;     /* Exported.in_avals */
  size_t num_in_avals;
} lsim_exported;

/* call_exported_p's params. */
typedef struct lsim_call_exported_params {
  const lsim_exported *exported; /* borrowed */
} lsim_call_exported_params;

extern const lsim_primitive lsim_call_exported_p;

/* Makes `eqn` a call of `params->exported` (params borrowed). */
static inline void lsim_call_exported_bind(lsim_eqn *eqn, const lsim_call_exported_params *params) {
  eqn->primitive = &lsim_call_exported_p;
  eqn->params = params;
}

/* Registers _call_exported_lowering, call_exported_p's rule for every platform. */
int lsim_register_call_exported_rules(lsim_registry *reg, lsim_error *err);

#ifdef __cplusplus
}
#endif

#endif /* LOWERSIM_EXPORT_H */
