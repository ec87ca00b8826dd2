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
#include "lowersim/sharding.h"

#include <mlir-c/IR.h>

#include <stdbool.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The `sharding=` of pure_callback and io_callback: which device runs the
 * callback (callback.py _callback_op_sharding). */
typedef enum lsim_callback_sharding_kind {
  LSIM_CALLBACK_SHARDING_NONE,          /* sharding=None: the assignment's first device */
  LSIM_CALLBACK_SHARDING_SINGLE_DEVICE, /* jax.sharding.SingleDeviceSharding(device) */
  LSIM_CALLBACK_SHARDING_SCALAR_MESH,   /* NamedSharding(Mesh(device, ()), P()): a scalar
                                           mesh, taken as its one device */
  LSIM_CALLBACK_SHARDING_NAMED,         /* NamedSharding over a mesh with an axis: refused
                                           (NotImplementedError) */
} lsim_callback_sharding_kind;

typedef struct lsim_callback_sharding {
  lsim_callback_sharding_kind kind;
  lsim_device device; /* SINGLE_DEVICE, SCALAR_MESH: the device (its backend borrowed) */
  int mesh_size;      /* NAMED: the size of the mesh's axis `x` (jax.devices()[:N]) */
} lsim_callback_sharding;

/* The params of pure_callback, io_callback and debug_callback equations
 * (borrowed by an equation; the lowering keeps a copy of `callback`). */
typedef struct lsim_python_callback_params {
  lsim_host_callback callback;
  lsim_callback_sharding sharding; /* pure_callback, io_callback; zero: sharding=None */
  bool ordered;     /* io_callback(ordered=True) / an ordered debug callback: the
                       equation must have an ordered effect (lsim_eqn.ordered_effect) */
  bool partitioned; /* debug_callback(partitioned=True) */
} lsim_python_callback_params;

extern const lsim_primitive lsim_pure_callback_p;
extern const lsim_primitive lsim_io_callback_p;
/* io_callback(ordered=True)'s effect (OrderedIO, shardable). */
extern const lsim_effect lsim_ordered_io_effect;

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
  const lsim_op_sharding *sharding; /* the op's sharding, or NULL for none */
} lsim_python_callback;

/* callback.py _callback_op_sharding under jit (a ShardingContext): a
 * maximal sharding on the device `requested` names (its index in the device
 * assignment; sharding=None: index 0) with one entry per result of the
 * rule, at least one.  Errors as JAX's: a NamedSharding over a mesh with
 * axes (NotImplementedError), a device outside the assignment (ValueError
 * of tuple.index). */
int lsim_callback_op_sharding(lsim_lowering_rule_context *ctx,
                              const lsim_callback_sharding *requested, lsim_op_sharding *out,
                              lsim_error *err);

/* callback.py emit_python_callback(ctx, callback, token, operands,
 * operand_avals, result_avals, ...): the platform checks, get_backend(),
 * then an FFI custom call (cpu, cuda, rocm) or host transfers (tpu), each
 * annotated with how->sharding (the FFI call's with an entry for the token
 * in front when it has results; a send's with one entry, a receive's with
 * two: value and token).  The
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
