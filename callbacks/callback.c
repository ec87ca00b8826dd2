/* callbacks/callback.c: pure_callback, io_callback and
 * emit_python_callback.
 * JAX counterparts: callback.py pure_callback_p and io_callback_p with
 * their lowerings, emit_python_callback, _emit_tpu_python_callback,
 * send_to_host and receive_from_host. */
#include "lowersim/alloc.h"
#include "lowersim/callback.h"
#include "lowersim/emit.h"
#include "support/raise.h"
#include "support/strbuf.h"

#include <mlir-c/BuiltinAttributes.h>
#include <mlir-c/BuiltinTypes.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>


/* Steps 1-4 of emit_python_callback: the platform checks, then
 * get_backend(). */
static int python_callback_checks(lsim_lowering_rule_context *ctx, const lsim_python_callback *how,
                                  const char **platform_out, lsim_error *err) {
  size_t n;
  const char *platform = lsim_module_context_platforms(ctx->module_context, &n)[0];
  if (n > 1) {
    lsim_module_context_explain(ctx->module_context, LSIM_EXPLAIN_DETAIL, 0,
                                "emit_python_callback: %zu lowering platforms, and it lowers "
                                "for one only",
                                n);
    return lsimp_raise0(err, LSIM_E_PYTHON_CALLBACK_MULTI_PLATFORM);
  }
  const lsim_jax_profile *jax = lsim_module_context_profile(ctx->module_context);
  if (!lsim_jax_strings_contain(&jax->python_callback_platforms, platform)) {
    lsim_module_context_explain(ctx->module_context, LSIM_EXPLAIN_DETAIL, 0,
                                "emit_python_callback: the lowering platform %s is not one "
                                "host callbacks run on",
                                platform);
    return lsimp_raise(err, LSIM_E_PYTHON_CALLBACK_UNSUPPORTED, platform);
  }
  if (how->partitioned && !lsim_jax_strings_contain(&jax->partitioned_callback_platforms, platform))
    return lsimp_raise(err, LSIM_E_PARTITIONED_CALLBACK_PLATFORM, platform);
  if (how->partitioned && ctx->num_avals_out)
    return lsimp_raise0(err, LSIM_E_PARTITIONED_CALLBACK_RESULTS);
  const lsim_backend *backend;
  int rc = lsim_module_context_get_backend(ctx->module_context, false, &backend, err);
  if (!rc)
    lsim_module_context_explain(ctx->module_context, LSIM_EXPLAIN_DETAIL, 0,
                                "get_backend() -> %s", backend->platform);
  *platform_out = platform;
  return rc;
}

/* Adds (a copy of) the callback to the module; its index is its position. */
static int add_callback(lsim_lowering_rule_context *ctx, const lsim_host_callback *callback,
                        uint64_t *index, lsim_error *err) {
  return lsim_module_context_add_host_callback(ctx->module_context, callback,
                                               ctx->primitive->name, index, err);
}

/* cpu, cuda, rocm: one FFI custom call, the token threaded first. */
static int emit_ffi_callback(lsim_lowering_rule_context *ctx, const lsim_host_callback *callback,
                             const lsim_python_callback *how, const char *platform,
                             const MlirValue *args, MlirValue *results, lsim_error *err) {
  bool token = ctx->num_tokens_in > 0;
  char target[64];
  snprintf(target, sizeof target, "xla_ffi%s_python_%s_callback",
           how->partitioned ? "_partitioned" : "", strcmp(platform, "cpu") == 0 ? "cpu" : "gpu");
  uint64_t index;
  int rc = add_callback(ctx, callback, &index, err);
  size_t first = token ? 1 : 0, num_operands = ctx->num_avals_in + first;
  size_t num_results = ctx->num_avals_out + first;
  MlirValue *operands = lsim_malloc_array(num_operands + 1, sizeof *operands);
  MlirType *types = lsim_malloc_array(num_results + 1, sizeof *types);
  if (!rc && (!operands || !types))
    rc = lsimp_fail_oom(err);
  if (!rc && token) {
    operands[0] = ctx->tokens_in[0];
    types[0] = lsim_token_type(ctx->ip.context);
  }
  if (!rc) {
    memcpy(operands + first, args, ctx->num_avals_in * sizeof *args);
    rc = lsim_lowering_rule_context_out_types(ctx, types + first, err);
  }
  MlirContext mlir = ctx->ip.context;
  lsim_ffi_param param = {"index",
                          mlirIntegerAttrGet(mlirIntegerTypeUnsignedGet(mlir, 64), (int64_t)index)};
  lsim_ffi_call call = {.target = target, .has_side_effect = how->has_side_effect,
                        .params = &param, .num_params = 1};
  MlirOperation op;
  if (!rc)
    rc = lsim_emit_ffi_call(&ctx->ip, &call, operands, num_operands, types, num_results, &op, err);
  if (!rc && how->sharding) {
    /* A token entry in front when the call has results (with none, the
     * one entry every op needs stands for the token). */
    lsim_op_sharding with_token = *how->sharding;
    with_token.num_values += token && ctx->num_avals_out ? 1 : 0;
    rc = lsim_set_sharding(ctx->module_context, op, &with_token, err);
  }
  if (!rc && token) {
    ctx->tokens_out[0] = mlirOperationGetResult(op, 0);
    ctx->num_tokens_out = 1;
  }
  for (size_t i = 0; !rc && i < ctx->num_avals_out; i++)
    results[i] = mlirOperationGetResult(op, (intptr_t)(i + first));
  free(operands);
  free(types);
  return rc;
}

static bool empty_shape(const lsim_aval *a) { return lsim_aval_size(a) == 0; }

/* send_to_host / receive_from_host's shardings: the op sharding's device,
 * with one entry for a send (its token) and two for a receive (value and
 * token). */
static int set_transfer_sharding(lsim_lowering_rule_context *ctx, const lsim_op_sharding *sharding,
                                 MlirValue token, size_t num_values, lsim_error *err) {
  if (!sharding)
    return LSIM_OK;
  lsim_op_sharding transfer = {sharding->device, num_values};
  return lsim_set_sharding(ctx->module_context, mlirOpResultGetOwner(token), &transfer, err);
}

static int send(lsim_lowering_rule_context *ctx, const lsim_op_sharding *sharding,
                MlirValue operand, MlirValue *token, lsim_error *err) {
  int64_t channel;
  int rc = lsim_module_context_new_channel(ctx->module_context, &channel, err);
  if (!rc)
    rc = lsim_emit_send_to_host(&ctx->ip, *token, operand, channel, token, err);
  return rc ? rc : set_transfer_sharding(ctx, sharding, *token, 1, err);
}

static int receive(lsim_lowering_rule_context *ctx, const lsim_op_sharding *sharding,
                   const lsim_aval *aval, MlirValue *result, MlirValue *token, lsim_error *err) {
  int64_t channel;
  int rc = lsim_module_context_new_channel(ctx->module_context, &channel, err);
  if (!rc)
    rc = lsim_emit_recv_from_host(&ctx->ip, *token,
                                  lsim_module_context_aval_to_ir_type(ctx->module_context, aval),
                                  channel, result, token, err);
  return rc ? rc : set_transfer_sharding(ctx, sharding, *token, 2, err);
}

/* _emit_tpu_python_callback's sends: one per operand, or a dummy f32[1]
 * without operands, each on a fresh channel. */
static int send_operands(lsim_lowering_rule_context *ctx, const lsim_op_sharding *sharding,
                         const MlirValue *args, MlirValue *token, lsim_error *err) {
  int rc = LSIM_OK;
  if (ctx->num_avals_in == 0) {
    static const lsim_aval dummy = {.dtype = LSIM_DTYPE_F32, .rank = 1, .dims = {1}};
    MlirValue zeros;
    rc = lsim_emit_zeros(&ctx->ip, lsim_module_context_aval_to_ir_type(ctx->module_context, &dummy),
                         &zeros, err);
    if (!rc)
      rc = send(ctx, sharding, zeros, token, err);
  }
  for (size_t i = 0; !rc && i < ctx->num_avals_in; i++)
    rc = send(ctx, sharding, args[i], token, err);
  return rc;
}

/* Its receives: one per non-empty result, or a dummy f32[] when a token is
 * wanted and there are none, each on a fresh channel. */
static int receive_results(lsim_lowering_rule_context *ctx, const lsim_python_callback *how,
                           MlirValue *results, MlirValue *token, lsim_error *err) {
  size_t non_empty = 0;
  for (size_t i = 0; i < ctx->num_avals_out; i++)
    non_empty += !empty_shape(&ctx->avals_out[i]);
  int rc = LSIM_OK;
  if (how->returns_token && non_empty == 0) {
    static const lsim_aval scalar = {.dtype = LSIM_DTYPE_F32};
    MlirValue ignored;
    rc = receive(ctx, how->sharding, &scalar, &ignored, token, err);
  }
  for (size_t i = 0; !rc && i < ctx->num_avals_out; i++)
    if (!empty_shape(&ctx->avals_out[i]))
      rc = receive(ctx, how->sharding, &ctx->avals_out[i], &results[i], token, err);
  return rc;
}

/* tpu: host transfers, then empty results as zero constants. */
static int emit_tpu_callback(lsim_lowering_rule_context *ctx, const lsim_host_callback *callback,
                             const lsim_python_callback *how, const MlirValue *args,
                             MlirValue *results, lsim_error *err) {
  MlirValue token;
  int rc = ctx->num_tokens_in ? (token = ctx->tokens_in[0], LSIM_OK)
                              : lsim_emit_create_token(&ctx->ip, &token, err);
  if (!rc)
    rc = send_operands(ctx, how->sharding, args, &token, err);
  if (!rc)
    rc = receive_results(ctx, how, results, &token, err);
  uint64_t index;
  if (!rc)
    rc = add_callback(ctx, callback, &index, err);
  for (size_t i = 0; !rc && i < ctx->num_avals_out; i++)
    if (empty_shape(&ctx->avals_out[i]))
      rc = lsim_emit_zeros(&ctx->ip,
                           lsim_module_context_aval_to_ir_type(ctx->module_context,
                                                               &ctx->avals_out[i]),
                           &results[i], err);
  if (!rc && ctx->num_tokens_in) {
    ctx->tokens_out[0] = token;
    ctx->num_tokens_out = 1;
  }
  return rc;
}

int lsim_emit_python_callback(lsim_lowering_rule_context *ctx, const lsim_host_callback *callback,
                              const lsim_python_callback *how, const MlirValue *operands,
                              MlirValue *results, lsim_error *err) {
  const char *platform = NULL;
  int rc = python_callback_checks(ctx, how, &platform, err);
  if (rc)
    return rc;
  if (strcmp(platform, "tpu") == 0)
    return emit_tpu_callback(ctx, callback, how, operands, results, err);
  return emit_ffi_callback(ctx, callback, how, platform, operands, results, err);
}

static bool same_device(const lsim_device *a, const lsim_device *b) {
  return a->backend == b->backend && a->id == b->id;
}

/* A device as jaxlib's Device prints it: str "cpu:1", repr "CpuDevice(id=1)"
 * (CpuDevice, CudaDevice, RocmDevice; other platforms take the same form,
 * an approximation: a TPU's repr names its coordinates too). */
static void device_str(lsimp_strbuf *sb, const lsim_device *d) {
  lsimp_strbuf_printf(sb, "%s:%d", d->backend->platform, d->id);
}

static void device_repr(lsimp_strbuf *sb, const lsim_device *d) {
  const char *p = d->backend->platform;
  lsimp_strbuf_printf(sb, "%c%sDevice(id=%d)",
                      *p >= 'a' && *p <= 'z' ? *p - 'a' + 'A' : *p, p + 1, d->id);
}

/* _callback_op_sharding's error for a device outside the assignment: before
 * 0.12.0 tuple.index's ValueError escapes, from 0.12.0 it is caught and
 * reworded with the device and the assignment (a Python tuple). */
static int device_not_assigned(const lsim_jax_profile *jax, const lsim_device *device,
                               const lsim_device *assignment, size_t n, lsim_error *err) {
  if (!jax->callback_sharding_names_devices)
    return lsimp_raise0(err, LSIM_E_CALLBACK_SHARDING_DEVICE);
  lsimp_strbuf str = LSIMP_STRBUF_INIT, tuple = LSIMP_STRBUF_INIT;
  device_str(&str, device);
  lsimp_strbuf_putc(&tuple, '(');
  for (size_t i = 0; i < n; i++) {
    if (i)
      lsimp_strbuf_puts(&tuple, ", ");
    device_repr(&tuple, &assignment[i]);
  }
  lsimp_strbuf_puts(&tuple, n == 1 ? ",)" : ")");
  int rc = lsimp_strbuf_failed(&str) || lsimp_strbuf_failed(&tuple)
               ? lsimp_fail_oom(err)
               : lsimp_raise(err, LSIM_E_CALLBACK_SHARDING_DEVICE_ASSIGNMENT,
                             lsimp_strbuf_cstr(&str), lsimp_strbuf_cstr(&tuple));
  lsimp_strbuf_free(&str);
  lsimp_strbuf_free(&tuple);
  return rc;
}

int lsim_callback_op_sharding(lsim_lowering_rule_context *ctx,
                              const lsim_callback_sharding *requested, lsim_op_sharding *out,
                              lsim_error *err) {
  lsim_module_context *mc = ctx->module_context;
  int64_t index = 0;
  if (requested->kind == LSIM_CALLBACK_SHARDING_NAMED)
    return lsimp_raise(err, LSIM_E_CALLBACK_SHARDING_TYPE, "<class 'jax.sharding.NamedSharding'>");
  if (requested->kind != LSIM_CALLBACK_SHARDING_NONE) {
    const lsim_device *assignment;
    size_t n;
    int rc = lsim_module_context_device_assignment(mc, &assignment, &n, err);
    if (rc)
      return rc;
    while ((size_t)index < n && !same_device(&assignment[index], &requested->device))
      index++;
    if ((size_t)index == n)
      return device_not_assigned(lsim_module_context_profile(mc), &requested->device, assignment,
                                 n, err);
  }
  *out = (lsim_op_sharding){index, ctx->num_avals_out ? ctx->num_avals_out : 1};
  lsim_module_context_explain(mc, LSIM_EXPLAIN_DETAIL, 0,
                              "_callback_op_sharding: maximal on device %lld of the device "
                              "assignment%s",
                              (long long)index,
                              requested->kind == LSIM_CALLBACK_SHARDING_NONE ? " (sharding=None)"
                                                                             : "");
  return LSIM_OK;
}

/* `sharding=SingleDeviceSharding(cpu:1)`, as the equation's params show it. */
static int explain_sharding(const lsim_callback_sharding *s, char *buf, size_t size) {
  switch (s->kind) {
  case LSIM_CALLBACK_SHARDING_SINGLE_DEVICE:
    return snprintf(buf, size, "sharding=SingleDeviceSharding(%s:%d)", s->device.backend->platform,
                    s->device.id);
  case LSIM_CALLBACK_SHARDING_SCALAR_MESH:
    return snprintf(buf, size, "sharding=NamedSharding(Mesh(%s:%d, ()), P())",
                    s->device.backend->platform, s->device.id);
  case LSIM_CALLBACK_SHARDING_NAMED:
    return snprintf(buf, size, "sharding=NamedSharding(Mesh(..., ('x',)), P())");
  default:
    return snprintf(buf, size, "sharding=None");
  }
}

/* `sharding=None`. */
static int explain_pure_params(const void *params, char *buf, size_t size) {
  return explain_sharding(&((const lsim_python_callback_params *)params)->sharding, buf, size);
}

/* `ordered=False sharding=None`. */
static int explain_params(const void *params, char *buf, size_t size) {
  const lsim_python_callback_params *p = params;
  int n = snprintf(buf, size, "ordered=%s ", p->ordered ? "True" : "False");
  return n < 0 || (size_t)n >= size ? n : n + explain_sharding(&p->sharding, buf + n, size - (size_t)n);
}

/* The jaxpr's `sharding=`: the sharding's repr, a device as jaxlib prints
 * its CPU and GPU devices (`CpuDevice(id=1)`); a mesh's devices are not in
 * its repr, a scalar mesh has no axes. */
static void jaxpr_sharding(lsim_jaxpr_printer *jp, const lsim_callback_sharding *s) {
  const char *platform = s->device.backend ? s->device.backend->platform : "";
  switch (s->kind) {
  case LSIM_CALLBACK_SHARDING_SINGLE_DEVICE:
    lsim_jaxpr_param(jp, "sharding",
                     "SingleDeviceSharding(device=%c%sDevice(id=%d), memory_kind=device)",
                     platform[0] ? platform[0] - 'a' + 'A' : '?', platform[0] ? platform + 1 : "",
                     s->device.id);
    break;
  case LSIM_CALLBACK_SHARDING_SCALAR_MESH:
    lsim_jaxpr_param(jp, "sharding",
                     "NamedSharding(mesh=Mesh(, axis_types=()), spec=P(), memory_kind=device)");
    break;
  case LSIM_CALLBACK_SHARDING_NAMED:
    lsim_jaxpr_param(jp, "sharding",
                     "NamedSharding(mesh=Mesh('x': %d, axis_types=(Auto,)), spec=P(), "
                     "memory_kind=device)",
                     s->mesh_size);
    break;
  default:
    lsim_jaxpr_param(jp, "sharding", "None");
  }
}

/* `callback=_FlatCallback(callback_func=<function callback at 0x...>,
 * in_tree=PyTreeDef(((*,), {})))`: the user's callback (the rendered
 * program's `callback`), flattened over the call's arguments; JAX prints
 * function addresses as 0xXXXXXXXXXXXX. */
static void jaxpr_flat_callback(lsim_jaxpr_printer *jp, size_t num_args) {
  lsimp_strbuf tree = LSIMP_STRBUF_INIT;
  for (size_t i = 0; i < num_args; i++)
    lsimp_strbuf_puts(&tree, i ? ", *" : "*");
  lsim_jaxpr_param(jp, "callback",
                   "_FlatCallback(callback_func=<function callback at 0xXXXXXXXXXXXX>, "
                   "in_tree=PyTreeDef(((%s%s), {})))",
                   lsimp_strbuf_cstr(&tree), num_args == 1 ? "," : "");
  lsimp_strbuf_free(&tree);
}

/* pure_callback[callback=... result_avals=... sharding=None vmap_method=None]. */
static void jaxpr_pure_params(const lsim_eqn *eqn, const lsim_jax_profile *jax,
                              lsim_jaxpr_printer *jp) {
  (void)jax;
  const lsim_python_callback_params *p = eqn->params;
  jaxpr_flat_callback(jp, eqn->num_operands);
  lsim_jaxpr_param_result_avals(jp, eqn);
  jaxpr_sharding(jp, &p->sharding);
  lsim_jaxpr_param(jp, "vmap_method", "None");
}

/* io_callback[callback=... ordered=True result_avals=... sharding=None]. */
static void jaxpr_io_params(const lsim_eqn *eqn, const lsim_jax_profile *jax,
                            lsim_jaxpr_printer *jp) {
  (void)jax;
  const lsim_python_callback_params *p = eqn->params;
  jaxpr_flat_callback(jp, eqn->num_operands);
  lsim_jaxpr_param(jp, "ordered", "%s", p->ordered ? "True" : "False");
  lsim_jaxpr_param_result_avals(jp, eqn);
  jaxpr_sharding(jp, &p->sharding);
}

/* callback.py OrderedIOEffect: in effects.shardable_ordered_effects. */
const lsim_effect lsim_ordered_io_effect = {
    .name = "OrderedIO", .type = "jax._src.callback.OrderedIOEffect", .shardable = true};

const lsim_primitive lsim_pure_callback_p = {.name = "pure_callback",
                                             .explain_params = explain_pure_params,
                                             .jaxpr_params = jaxpr_pure_params,
                                             .results_outside_mesh = true};
/* io_callback has an IO effect, ordered or not: jit keeps it unused. */
const lsim_primitive lsim_io_callback_p = {.name = "io_callback",
                                           .explain_params = explain_params,
                                           .jaxpr_params = jaxpr_io_params,
                                           .ordered_effect = &lsim_ordered_io_effect,
                                           .kept_when_unused = lsim_always_kept,
                                           .results_outside_mesh = true};

/* pure_callback's lowering: no side effect, no token. */
static int pure_callback_lowering(lsim_lowering_rule_context *ctx, const MlirValue *args,
                                  MlirValue *results, const void *params, void *data,
                                  lsim_error *err) {
  (void)data;
  const lsim_python_callback_params *p = params;
  lsim_op_sharding sharding;
  int rc = lsim_callback_op_sharding(ctx, &p->sharding, &sharding, err);
  lsim_python_callback how = {.has_side_effect = false, .sharding = &sharding};
  return rc ? rc : lsim_emit_python_callback(ctx, &p->callback, &how, args, results, err);
}

/* io_callback's lowering: a side effect; a token when ordered. */
static int io_callback_lowering(lsim_lowering_rule_context *ctx, const MlirValue *args,
                                MlirValue *results, const void *params, void *data,
                                lsim_error *err) {
  (void)data;
  const lsim_python_callback_params *p = params;
  lsim_op_sharding sharding;
  int rc = lsim_callback_op_sharding(ctx, &p->sharding, &sharding, err);
  lsim_python_callback how = {.has_side_effect = true, .returns_token = p->ordered,
                              .sharding = &sharding};
  return rc ? rc : lsim_emit_python_callback(ctx, &p->callback, &how, args, results, err);
}

int lsim_register_callback_rules(lsim_registry *reg, lsim_error *err) {
  /* cacheable=False: "these have an embedded channel ID" on TPU. */
  int rc = lsim_register_lowering_uncacheable(reg, &lsim_pure_callback_p,
                                              (lsim_rule){pure_callback_lowering, NULL}, NULL, err);
  return rc ? rc
            : lsim_register_lowering_uncacheable(reg, &lsim_io_callback_p,
                                                 (lsim_rule){io_callback_lowering, NULL}, NULL,
                                                 err);
}
