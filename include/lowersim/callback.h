/* lowersim/callback.h: jax.pure_callback, jax.experimental.io_callback and
 * emit_python_callback, through which they (and jax.debug.callback) lower.
 * JAX counterpart: jax/_src/callback.py (pure_callback_p, io_callback_p,
 * their lowerings, emit_python_callback, _emit_tpu_python_callback). */
#ifndef LOWERSIM_CALLBACK_H
#define LOWERSIM_CALLBACK_H

#include "lowersim/error.h"
#include "lowersim/lowering_rule_context.h"
#include "lowersim/module_context.h"
#include "lowersim/primitive.h"
#include "lowersim/program.h"
#include "lowersim/registry.h"

#include <mlir-c/IR.h>

#include <stdbool.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The params of pure_callback, io_callback and debug_callback equations
 * (borrowed by an equation; the lowering keeps a copy of `callback`). */
typedef struct lsim_python_callback_params {
  lsim_host_callback callback;
  bool ordered;     /* io_callback(ordered=True) / an ordered debug callback: the
                       equation must have an ordered effect (lsim_eqn.ordered_effect) */
  bool partitioned; /* debug_callback(partitioned=True) */
} lsim_python_callback_params;

extern const lsim_primitive lsim_pure_callback_p;
extern const lsim_primitive lsim_io_callback_p;

/* Make `eqn` a pure_callback / io_callback equation with `params`
 * (borrowed). */
static inline void lsim_pure_callback_bind(lsim_eqn *eqn, const lsim_python_callback_params *params) {
  eqn->primitive = &lsim_pure_callback_p;
  eqn->params = params;
}

static inline void lsim_io_callback_bind(lsim_eqn *eqn, const lsim_python_callback_params *params) {
  eqn->primitive = &lsim_io_callback_p;
  eqn->params = params;
}

/* emit_python_callback's keyword arguments. */
typedef struct lsim_python_callback {
  bool has_side_effect;
  bool partitioned;
  bool returns_token; /* the callback hands a token back (tpu receives one) */
} lsim_python_callback;

/* callback.py emit_python_callback(ctx, callback, token, operands,
 * operand_avals, result_avals, ...): the platform checks, get_backend(),
 * then an FFI custom call (cpu, cuda, rocm) or host transfers (tpu).  The
 * token is ctx->tokens_in[0] when the equation has one, and the new token
 * goes to ctx->tokens_out.  A copy of `callback` is added to the module. */
int lsim_emit_python_callback(lsim_lowering_rule_context *ctx, const lsim_host_callback *callback,
                              const lsim_python_callback *how, const MlirValue *operands,
                              MlirValue *results, lsim_error *err);

/* Registers pure_callback's and io_callback's rules (for every platform:
 * emit_python_callback checks them). */
int lsim_register_callback_rules(lsim_registry *reg, lsim_error *err);

#ifdef __cplusplus
}
#endif

#endif /* LOWERSIM_CALLBACK_H */
