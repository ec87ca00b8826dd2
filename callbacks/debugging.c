/* callbacks/debugging.c: jax.debug.callback.
 * JAX counterpart: debugging.py debug_callback_p and
 * debug_callback_lowering, registered for cpu, gpu and tpu. */
#include "lowersim/debugging.h"

#include <stdio.h>

/* `ordered=False partitioned=False`. */
static int explain_params(const void *params, char *buf, size_t size) {
  const lsim_python_callback_params *p = params;
  return snprintf(buf, size, "ordered=%s partitioned=%s", p->ordered ? "True" : "False",
                  p->partitioned ? "True" : "False");
}

/* debug_callback has the debug effect: jit keeps it. */
const lsim_primitive lsim_debug_callback_p = {"debug_callback", NULL, explain_params,
                                              lsim_always_kept};

/* debug_callback_lowering: emit_python_callback with a side effect,
 * returning a token, partitioned as asked. */
static int debug_callback_lowering(lsim_lowering_rule_context *ctx, const MlirValue *args,
                                   MlirValue *results, const void *params, void *data,
                                   lsim_error *err) {
  (void)data;
  const lsim_python_callback_params *p = params;
  lsim_python_callback how = {.has_side_effect = true, .partitioned = p->partitioned,
                              .returns_token = true};
  return lsim_emit_python_callback(ctx, &p->callback, &how, args, results, err);
}

int lsim_register_debugging_rules(lsim_registry *reg, lsim_error *err) {
  static const char *const platforms[] = {"cpu", "gpu", "tpu"};
  int rc = LSIM_OK;
  for (size_t i = 0; !rc && i < sizeof platforms / sizeof platforms[0]; i++)
    rc = lsim_register_lowering(reg, &lsim_debug_callback_p,
                                (lsim_rule){debug_callback_lowering, NULL}, platforms[i], err);
  return rc;
}
