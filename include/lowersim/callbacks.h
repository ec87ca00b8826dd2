/* lowersim/callbacks.h: host callbacks: buffer_callback, pure_callback,
 * io_callback and jax.debug.callback.
 *
 * JAX counterparts: jax/_src/buffer_callback.py (buffer_callback, its
 * lowering and wrapped callback) and jax/_src/callback.py
 * (emit_python_callback, the pure/io callback lowerings), with
 * jax/_src/debugging.py (debug_callback).  A callback is a C function and
 * user data (lsim_host_callback); lowering registers it with the module
 * (add_host_callback), and lsim_lowering_execute runs it.  Params passed in
 * an equation are borrowed and must outlive the lowering and its execution.
 */
#ifndef LOWERSIM_CALLBACKS_H
#define LOWERSIM_CALLBACKS_H

#include "lowersim/context.h"
#include "lowersim/lower.h"

#ifdef __cplusplus
extern "C" {
#endif

#define LSIM_PRIMITIVE_BUFFER_CALLBACK "buffer_callback"
#define LSIM_PRIMITIVE_PURE_CALLBACK "pure_callback"
#define LSIM_PRIMITIVE_IO_CALLBACK "io_callback"
#define LSIM_PRIMITIVE_DEBUG_CALLBACK "debug_callback"

/* One input_output_aliases entry: input index -> output index. */
typedef struct lsim_io_alias {
  int64_t input;
  int64_t output;
} lsim_io_alias;

typedef struct lsim_buffer_callback_params {
  lsim_host_callback callback;    /* run by lsim_lowering_execute */
  bool has_side_effect;
  bool command_buffer_compatible; /* `_cmd_buffer` targets on the GPU platforms */
  const lsim_io_alias *aliases;   /* a Python dict: a repeated input takes its last
                                     output; checked and lowered sorted by input */
  size_t num_aliases;
} lsim_buffer_callback_params;

/* The checks buffer_callback makes of input_output_aliases before binding
 * (inputs in ascending order): LSIM_E_ALIAS_INPUT_RANGE,
 * LSIM_E_ALIAS_OUTPUT_RANGE, LSIM_E_ALIAS_AVAL_MISMATCH. */
int lsim_buffer_callback_check_aliases(const lsim_aval *args, size_t num_args,
                                       const lsim_aval *results, size_t num_results,
                                       const lsim_io_alias *aliases, size_t num_aliases,
                                       lsim_error *err);

/* pure_callback, io_callback and debug_callback (emit_python_callback). */
typedef struct lsim_python_callback_params {
  lsim_host_callback callback;
  bool ordered;     /* io_callback(ordered=True) / an ordered debug callback: the
                       equation must have an ordered effect (lsim_eqn.ordered_effect) */
  bool partitioned; /* debug_callback(partitioned=True) */
} lsim_python_callback_params;

/* Registers the four callback primitives: buffer_callback, pure_callback and
 * io_callback for every platform (their rules check the platform),
 * debug_callback for cpu, gpu and tpu only. */
int lsim_register_callback_rules(lsim_registry *reg, lsim_error *err);

#ifdef __cplusplus
}
#endif

#endif /* LOWERSIM_CALLBACKS_H */
