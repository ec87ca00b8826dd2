/* callbacks/debugging.c: jax.debug.callback.
 * JAX counterpart: debugging.py debug_callback_p and
 * debug_callback_lowering, registered for cpu, gpu and tpu. */
#include "lowersim/debugging.h"
#include "lowersim/program.h"

#include <stdio.h>

/* `ordered=False partitioned=False`. */
static int explain_params(const void *params, char *buf, size_t size) {
  const lsim_python_callback_params *p = params;
  return snprintf(buf, size, "ordered=%s partitioned=%s", p->ordered ? "True" : "False",
                  p->partitioned ? "True" : "False");
}

/* debug_callback[callback=... effect=Debug partitioned=False]: the callback
 * is debugging.py's flat wrapper of the user's; the effect OrderedDebug
 * when ordered. */
static void jaxpr_params(const lsim_eqn *eqn, const lsim_jax_profile *jax,
                         lsim_jaxpr_printer *jp) {
  (void)jax;
  const lsim_python_callback_params *p = eqn->params;
  lsim_jaxpr_param(jp, "callback", "<function debug_callback.<locals>._debug_callback.<locals>."
                                   "_flat_callback at 0xXXXXXXXXXXXX>");
  lsim_jaxpr_param(jp, "effect", "%s", p->ordered ? "OrderedDebug" : "Debug");
  lsim_jaxpr_param(jp, "partitioned", "%s", p->partitioned ? "True" : "False");
}

/* debugging.py OrderedDebugEffect: not shardable. */
const lsim_effect lsim_ordered_debug_effect = {
    .name = "OrderedDebug", .type = "jax._src.debugging.OrderedDebugEffect", .shardable = false};

/* debug_callback has the debug effect: jit keeps it. */
const lsim_primitive lsim_debug_callback_p = {.name = "debug_callback",
                                              .explain_params = explain_params,
                                              .jaxpr_params = jaxpr_params,
                                              .ordered_effect = &lsim_ordered_debug_effect,
                                              .kept_when_unused = lsim_always_kept};

/* debug_callback_lowering: emit_python_callback with a side effect,
 * returning a token, partitioned as asked; under jit (a ShardingContext) an
 * unordered callback is maximal on device 0, an ordered one has no
 * sharding. */
static int debug_callback_lowering(lsim_lowering_rule_context *ctx, const MlirValue *args,
                                   MlirValue *results, const void *params, void *data,
                                   lsim_error *err) {
  (void)data;
  const lsim_python_callback_params *p = params;
  static const lsim_op_sharding device_0 = {.device = 0, .num_values = 1};
  lsim_python_callback how = {.has_side_effect = true, .partitioned = p->partitioned,
                              .returns_token = true, .sharding = p->ordered ? NULL : &device_0};
  return lsim_emit_python_callback(ctx, &p->callback, &how, args, results, err);
}

int lsim_register_debugging_rules(lsim_registry *reg, lsim_error *err) {
  lsim_rule rule = {debug_callback_lowering, NULL};
  int rc = lsim_register_lowering(reg, &lsim_debug_callback_p, rule, "cpu", err);
  if (!rc)
    rc = lsim_register_lowering(reg, &lsim_debug_callback_p, rule, "gpu", err);
  /* "Debug callbacks use channel IDs on TPU, which require non-caching." */
  return rc ? rc : lsim_register_lowering_uncacheable(reg, &lsim_debug_callback_p, rule, "tpu", err);
}
