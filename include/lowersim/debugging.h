/* lowersim/debugging.h: jax.debug.callback.
 * JAX counterpart: jax/_src/debugging.py debug_callback_p, whose lowering
 * (emit_python_callback, returning a token) is registered for cpu, gpu and
 * tpu only. */
#ifndef LOWERSIM_DEBUGGING_H
#define LOWERSIM_DEBUGGING_H

#include "lowersim/callback.h"
#include "lowersim/error.h"
#include "lowersim/primitive.h"
#include "lowersim/program.h"
#include "lowersim/registry.h"

#ifdef __cplusplus
extern "C" {
#endif

extern const lsim_primitive lsim_debug_callback_p;
/* An ordered debug callback's effect (OrderedDebug, not shardable). */
extern const lsim_effect lsim_ordered_debug_effect;

/* Makes `eqn` a debug_callback equation with `params` (borrowed). */
static inline void lsim_debug_callback_bind(lsim_eqn *eqn,
                                            const lsim_python_callback_params *params) {
  eqn->primitive = &lsim_debug_callback_p;
  eqn->params = params;
}

/* Registers debug_callback's rule for cpu, gpu and tpu. */
int lsim_register_debugging_rules(lsim_registry *reg, lsim_error *err);

#ifdef __cplusplus
}
#endif

#endif /* LOWERSIM_DEBUGGING_H */
