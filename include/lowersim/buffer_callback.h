/* lowersim/buffer_callback.h: jax.experimental.buffer_callback.
 * JAX counterpart: jax/_src/buffer_callback.py: buffer_callback's checks of
 * input_output_aliases, _buffer_callback_lowering and wrapped_callback.  The
 * callback is a C function and user data (lsim_host_callback); lowering adds
 * it to the module (add_host_callback) and lsim_lowering_execute runs it. */
#ifndef LOWERSIM_BUFFER_CALLBACK_H
#define LOWERSIM_BUFFER_CALLBACK_H

#include "lowersim/error.h"
#include "lowersim/io_alias.h"
#include "lowersim/module_context.h"
#include "lowersim/primitive.h"
#include "lowersim/program.h"
#include "lowersim/registry.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* buffer_callback's params (borrowed by an equation; the lowering keeps a
 * copy of `callback`, whose user_data must live as long as the lowering). */
typedef struct lsim_buffer_callback_params {
  lsim_host_callback callback;    /* run by lsim_lowering_execute */
  bool has_side_effect;
  bool command_buffer_compatible; /* `_cmd_buffer` targets on the GPU platforms */
  const lsim_io_alias *aliases;   /* a Python dict: a repeated input takes its last
                                     output; checked and lowered sorted by input */
  size_t num_aliases;
} lsim_buffer_callback_params;

extern const lsim_primitive lsim_buffer_callback_p;

/* Makes `eqn` a buffer_callback equation with `params` (borrowed). */
static inline void lsim_buffer_callback_bind(lsim_eqn *eqn,
                                             const lsim_buffer_callback_params *params) {
  eqn->primitive = &lsim_buffer_callback_p;
  eqn->params = params;
}

/* The checks buffer_callback makes of input_output_aliases before binding
 * (inputs in ascending order): LSIM_E_ALIAS_INPUT_RANGE,
 * LSIM_E_ALIAS_OUTPUT_RANGE, LSIM_E_ALIAS_AVAL_MISMATCH. */
int lsim_buffer_callback_check_aliases(const lsim_aval *args, size_t num_args,
                                       const lsim_aval *results, size_t num_results,
                                       const lsim_io_alias *aliases, size_t num_aliases,
                                       lsim_error *err);

/* Registers buffer_callback's rule (for every platform: it checks them). */
int lsim_register_buffer_callback_rules(lsim_registry *reg, lsim_error *err);

#ifdef __cplusplus
}
#endif

#endif /* LOWERSIM_BUFFER_CALLBACK_H */
