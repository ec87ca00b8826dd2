/* callbacks/callbacks.c: the lowering rules of the host-callback primitives.
 * JAX counterparts: buffer_callback.py (buffer_callback's alias checks,
 * _buffer_callback_lowering, wrapped_callback) and callback.py
 * (emit_python_callback, _emit_tpu_python_callback, send_to_host,
 * receive_from_host), debugging.py (debug_callback's lowering). */
#include "lowersim/callbacks.h"
#include "lowersim/emit.h"
#include "support/raise.h"
#include "support/strbuf.h"

#include <mlir-c/BuiltinAttributes.h>
#include <mlir-c/BuiltinTypes.h>

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool in_list(const char *p, const char *const *list, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (strcmp(p, list[i]) == 0)
      return true;
  return false;
}

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* The module's single lowering platform; the callbacks refuse several. */
static const char *only_platform(const lsim_lowering_rule_context *ctx, lsim_status multi,
                                 lsim_error *err) {
  size_t n;
  const char *const *p = lsim_module_context_platforms(ctx->module_context, &n);
  if (n > 1) {
    lsimp_raise0(err, multi);
    return NULL;
  }
  return p[0];
}

/* Adds the callback to the module; its index is its position. */
static int add_callback(lsim_lowering_rule_context *ctx, const char *kind, lsim_host_callback_fn fn,
                        void *user_data, uint64_t *index, lsim_error *err) {
  lsim_host_callback cb = {.kind = kind, .fn = fn, .user_data = user_data};
  return lsim_module_context_add_host_callback(ctx->module_context, &cb, index, err);
}

static MlirAttribute ui64_attr(lsim_lowering_rule_context *ctx, uint64_t v) {
  MlirContext mlir = lsim_module_context_mlir_context(ctx->module_context);
  return mlirIntegerAttrGet(mlirIntegerTypeUnsignedGet(mlir, 64), (int64_t)v);
}

/* --- buffer_callback ------------------------------------------------------ */

static int compare_input(const void *a, const void *b) {
  const lsim_io_alias *x = a, *y = b;
  return (x->input > y->input) - (x->input < y->input);
}

/* `sorted(input_output_aliases.items())` of the user's dict (a repeated
 * input takes its last output), as buffer_callback checks and binds them.
 * Returns the number of entries written to `out`. */
static size_t sorted_aliases(const lsim_io_alias *aliases, size_t n, lsim_io_alias *out) {
  size_t k = 0;
  for (size_t i = 0; i < n; i++) {
    size_t j = 0;
    while (j < k && out[j].input != aliases[i].input)
      j++;
    out[j] = aliases[i];
    if (j == k)
      k++;
  }
  qsort(out, k, sizeof *out, compare_input);
  return k;
}

int lsim_buffer_callback_check_aliases(const lsim_aval *args, size_t num_args,
                                       const lsim_aval *results, size_t num_results,
                                       const lsim_io_alias *aliases, size_t num_aliases,
                                       lsim_error *err) {
  lsim_io_alias *sorted = malloc((num_aliases ? num_aliases : 1) * sizeof *sorted);
  if (!sorted)
    return lsimp_fail_oom(err);
  size_t n = sorted_aliases(aliases, num_aliases, sorted);
  int rc = LSIM_OK;
  for (size_t i = 0; i < n && !rc; i++) {
    int64_t in = sorted[i].input, out = sorted[i].output;
    char si[24], so[24], sn[24], sm[24];
    snprintf(si, sizeof si, "%" PRId64, in);
    snprintf(so, sizeof so, "%" PRId64, out);
    snprintf(sn, sizeof sn, "%zu", num_args);
    snprintf(sm, sizeof sm, "%zu", num_results);
    if (in < 0 || out < 0)
      rc = lsim_error_set(err, LSIM_E_INVALID_ARGUMENT,
                     "input_output_aliases contains the mapping '%s:%s' with a negative index", si,
                     so);
    else if ((uint64_t)in >= num_args)
      rc = lsimp_raise(err, LSIM_E_ALIAS_INPUT_RANGE, si, so, sn);
    else if ((uint64_t)out >= num_results)
      rc = lsimp_raise(err, LSIM_E_ALIAS_OUTPUT_RANGE, si, so, sm);
    else if (!lsim_aval_equal(&args[in], &results[out])) {
      char a[LSIM_AVAL_TEXT_MAX], b[LSIM_AVAL_TEXT_MAX];
      rc = lsimp_raise(err, LSIM_E_ALIAS_AVAL_MISMATCH, si, so,
                      lsim_aval_str(&args[in], a, sizeof a),
                      lsim_aval_str(&results[out], b, sizeof b));
    }
  }
  free(sorted);
  return rc;
}

static int buffer_callback_check(const lsim_aval *avals_in, size_t num_in,
                                 const lsim_aval *avals_out, size_t num_out, const void *params,
                                 void *data, lsim_error *err) {
  (void)data;
  const lsim_buffer_callback_params *p = params;
  return lsim_buffer_callback_check_aliases(avals_in, num_in, avals_out, num_out, p->aliases,
                                            p->num_aliases, err);
}

/* wrapped_callback: runs the user's callback, which must return nothing. */
static int buffer_callback_wrapper(void *user_data, lsim_host_callback_call *call) {
  const lsim_buffer_callback_params *p = user_data;
  call->returned_values = 0;
  int rc = p->callback.fn ? p->callback.fn(p->callback.user_data, call) : LSIM_OK;
  if (!rc && call->returned_values)
    rc = lsimp_raise0(call->error, LSIM_E_CALLBACK_RETURNED_VALUES);
  return rc;
}

/* buffer_callback's FFI targets (seed 004: oneapi included). */
static const char *buffer_callback_target(const char *platform) {
  if (strcmp(platform, "cpu") == 0)
    return "xla_buffer_python_cpu_callback";
  static const char *const gpus[] = {"cuda", "rocm", "oneapi"};
  return in_list(platform, gpus, COUNT(gpus)) ? "xla_buffer_python_gpu_callback" : NULL;
}

static int buffer_callback_rule(lsim_lowering_rule_context *ctx, const MlirValue *args,
                                MlirValue *results, const void *params, void *rule_data,
                                lsim_error *err) {
  (void)rule_data;
  const lsim_buffer_callback_params *p = params;
  const char *platform = only_platform(ctx, LSIM_E_BUFFER_CALLBACK_MULTI_PLATFORM, err);
  if (!platform)
    return err ? err->code : LSIM_E_BUFFER_CALLBACK_MULTI_PLATFORM;
  const char *base = buffer_callback_target(platform);
  if (!base)
    return lsimp_raise(err, LSIM_E_BUFFER_CALLBACK_UNSUPPORTED, platform);
  char target[64];
  bool cmd = p->command_buffer_compatible && strcmp(platform, "cpu") != 0;
  snprintf(target, sizeof target, "%s%s", base, cmd ? "_cmd_buffer" : "");
  uint64_t index;
  int rc = add_callback(ctx, LSIM_PRIMITIVE_BUFFER_CALLBACK, buffer_callback_wrapper, (void *)p,
                        &index, err);
  lsim_io_alias *dict = malloc((p->num_aliases ? p->num_aliases : 1) * sizeof *dict);
  lsim_operand_alias *aliases = malloc((p->num_aliases ? p->num_aliases : 1) * sizeof *aliases);
  if (!rc && (!dict || !aliases))
    rc = lsimp_fail_oom(err);
  size_t n = rc ? 0 : sorted_aliases(p->aliases, p->num_aliases, dict);
  for (size_t i = 0; i < n; i++)
    aliases[i] = (lsim_operand_alias){(size_t)dict[i].input, (size_t)dict[i].output};
  MlirOperation op;
  if (!rc) {
    lsim_ffi_param param = {"index", ui64_attr(ctx, index)};
    rc = lsim_emit_ffi_call(ctx, target, p->has_side_effect, &param, 1, true, aliases, n, args,
                            ctx->num_avals_in, false, &op, err);
  }
  for (size_t i = 0; !rc && i < ctx->num_avals_out; i++)
    results[i] = mlirOperationGetResult(op, (intptr_t)i);
  free(dict);
  free(aliases);
  return rc;
}

/* --- emit_python_callback ----------------------------------------------- */

typedef struct python_callback_kind {
  const char *primitive;
  bool has_side_effect;
} python_callback_kind;

static const python_callback_kind pure_kind = {LSIM_PRIMITIVE_PURE_CALLBACK, false};
static const python_callback_kind io_kind = {LSIM_PRIMITIVE_IO_CALLBACK, true};
static const python_callback_kind debug_kind = {LSIM_PRIMITIVE_DEBUG_CALLBACK, true};

static int python_callback_wrapper(void *user_data, lsim_host_callback_call *call) {
  const lsim_python_callback_params *p = user_data;
  return p->callback.fn ? p->callback.fn(p->callback.user_data, call) : LSIM_OK;
}

/* Steps 1-4 of emit_python_callback: the platform checks, then
 * get_backend(). */
static int python_callback_checks(lsim_lowering_rule_context *ctx, const lsim_python_callback_params *p,
                                  const char **platform_out, lsim_error *err) {
  const char *platform = only_platform(ctx, LSIM_E_PYTHON_CALLBACK_MULTI_PLATFORM, err);
  if (!platform)
    return err ? err->code : LSIM_E_PYTHON_CALLBACK_MULTI_PLATFORM;
  static const char *const supported[] = {"cpu", "cuda", "rocm", "tpu"};
  static const char *const partitionable[] = {"cpu", "cuda", "rocm"};
  if (!in_list(platform, supported, COUNT(supported)))
    return lsimp_raise(err, LSIM_E_PYTHON_CALLBACK_UNSUPPORTED, platform);
  if (p->partitioned && !in_list(platform, partitionable, COUNT(partitionable)))
    return lsimp_raise(err, LSIM_E_PARTITIONED_CALLBACK_PLATFORM, platform);
  if (p->partitioned && ctx->num_avals_out)
    return lsimp_raise0(err, LSIM_E_PARTITIONED_CALLBACK_RESULTS);
  const lsim_backend *backend;
  int rc = lsim_module_context_get_backend(ctx->module_context, false, &backend, err);
  if (!rc)
    lsim_module_context_trace(ctx->module_context, LSIM_TRACE_DETAIL, 0,
                              "get_backend() -> %s", backend->platform);
  *platform_out = platform;
  return rc;
}

/* cpu, cuda, rocm: one FFI custom call, the token threaded first. */
static int emit_ffi_callback(lsim_lowering_rule_context *ctx, const python_callback_kind *kind,
                             const lsim_python_callback_params *p, const char *platform,
                             const MlirValue *args, MlirValue *results, lsim_error *err) {
  bool token = ctx->num_tokens_in > 0;
  char target[64];
  snprintf(target, sizeof target, "xla_ffi%s_python_%s_callback",
           p->partitioned ? "_partitioned" : "", strcmp(platform, "cpu") == 0 ? "cpu" : "gpu");
  uint64_t index;
  int rc = add_callback(ctx, kind->primitive, python_callback_wrapper, (void *)p, &index, err);
  size_t num_operands = ctx->num_avals_in + (token ? 1 : 0);
  MlirValue *operands = malloc((num_operands + 1) * sizeof *operands);
  if (!rc && !operands)
    rc = lsimp_fail_oom(err);
  MlirOperation op;
  if (!rc) {
    if (token)
      operands[0] = ctx->tokens_in[0];
    memcpy(operands + (token ? 1 : 0), args, ctx->num_avals_in * sizeof *args);
    lsim_ffi_param param = {"index", ui64_attr(ctx, index)};
    rc = lsim_emit_ffi_call(ctx, target, kind->has_side_effect, &param, 1, false, NULL, 0, operands,
                            num_operands, token, &op, err);
  }
  if (!rc && token) {
    ctx->tokens_out[0] = mlirOperationGetResult(op, 0);
    ctx->num_tokens_out = 1;
  }
  for (size_t i = 0; !rc && i < ctx->num_avals_out; i++)
    results[i] = mlirOperationGetResult(op, (intptr_t)(i + (token ? 1 : 0)));
  free(operands);
  return rc;
}

static bool empty_shape(const lsim_aval *a) { return lsim_aval_size(a) == 0; }

/* tpu: host transfers.  Sends (a dummy f32[1] without operands), then
 * receives for the non-empty results (a dummy f32[] when a token is wanted
 * and there are none), a fresh channel for each; empty results become zero
 * constants. */
static int emit_tpu_callback(lsim_lowering_rule_context *ctx, const python_callback_kind *kind,
                             const lsim_python_callback_params *p, bool returns_token,
                             const MlirValue *args, MlirValue *results, lsim_error *err) {
  lsim_module_context *mc = ctx->module_context;
  MlirValue token;
  int rc = ctx->num_tokens_in ? (token = ctx->tokens_in[0], LSIM_OK)
                              : lsim_emit_create_token(ctx, &token, err);
  int64_t channel;
  if (!rc && ctx->num_avals_in == 0) {
    static const lsim_aval dummy = {.dtype = LSIM_DTYPE_F32, .rank = 1, .dims = {1}};
    MlirValue zeros;
    rc = lsim_module_context_new_channel(mc, &channel, err);
    if (!rc)
      rc = lsim_emit_zeros(ctx, &dummy, &zeros, err);
    if (!rc)
      rc = lsim_emit_send_to_host(ctx, token, zeros, channel, &token, err);
  }
  for (size_t i = 0; !rc && i < ctx->num_avals_in; i++) {
    rc = lsim_module_context_new_channel(mc, &channel, err);
    if (!rc)
      rc = lsim_emit_send_to_host(ctx, token, args[i], channel, &token, err);
  }
  size_t non_empty = 0;
  for (size_t i = 0; i < ctx->num_avals_out; i++)
    non_empty += !empty_shape(&ctx->avals_out[i]);
  if (!rc && returns_token && non_empty == 0) {
    static const lsim_aval scalar = {.dtype = LSIM_DTYPE_F32};
    MlirValue ignored;
    rc = lsim_module_context_new_channel(mc, &channel, err);
    if (!rc)
      rc = lsim_emit_recv_from_host(ctx, token,
                                    lsim_module_context_aval_to_ir_type(mc, &scalar), channel,
                                    &ignored, &token, err);
  }
  for (size_t i = 0; !rc && i < ctx->num_avals_out; i++) {
    if (empty_shape(&ctx->avals_out[i]))
      continue;
    rc = lsim_module_context_new_channel(mc, &channel, err);
    if (!rc)
      rc = lsim_emit_recv_from_host(ctx, token,
                                    lsim_module_context_aval_to_ir_type(mc, &ctx->avals_out[i]),
                                    channel, &results[i], &token, err);
  }
  uint64_t index;
  if (!rc)
    rc = add_callback(ctx, kind->primitive, python_callback_wrapper, (void *)p, &index, err);
  for (size_t i = 0; !rc && i < ctx->num_avals_out; i++)
    if (empty_shape(&ctx->avals_out[i]))
      rc = lsim_emit_zeros(ctx, &ctx->avals_out[i], &results[i], err);
  if (!rc && ctx->num_tokens_in) {
    ctx->tokens_out[0] = token;
    ctx->num_tokens_out = 1;
  }
  return rc;
}

static int python_callback_rule(lsim_lowering_rule_context *ctx, const MlirValue *args,
                                MlirValue *results, const void *params, void *rule_data,
                                lsim_error *err) {
  const python_callback_kind *kind = rule_data;
  const lsim_python_callback_params *p = params;
  const char *platform = NULL;
  int rc = python_callback_checks(ctx, p, &platform, err);
  if (rc)
    return rc;
  if (strcmp(platform, "tpu") != 0)
    return emit_ffi_callback(ctx, kind, p, platform, args, results, err);
  /* returns_token: pure never; io when ordered; debug always. */
  bool returns_token = kind == &debug_kind || (kind == &io_kind && p->ordered);
  return emit_tpu_callback(ctx, kind, p, returns_token, args, results, err);
}

int lsim_register_callback_rules(lsim_registry *reg, lsim_error *err) {
  int rc = lsim_register_lowering(reg, LSIM_PRIMITIVE_BUFFER_CALLBACK,
                                  (lsim_rule){buffer_callback_rule, NULL}, NULL, true, err);
  if (!rc)
    rc = lsim_registry_set_trace_check(reg, LSIM_PRIMITIVE_BUFFER_CALLBACK, buffer_callback_check,
                                       NULL, err);
  if (!rc)
    rc = lsim_register_lowering(reg, LSIM_PRIMITIVE_PURE_CALLBACK,
                                (lsim_rule){python_callback_rule, (void *)&pure_kind}, NULL, true,
                                err);
  if (!rc)
    rc = lsim_register_lowering(reg, LSIM_PRIMITIVE_IO_CALLBACK,
                                (lsim_rule){python_callback_rule, (void *)&io_kind}, NULL, true,
                                err);
  static const char *const debug_platforms[] = {"cpu", "gpu", "tpu"};
  for (size_t i = 0; !rc && i < COUNT(debug_platforms); i++)
    rc = lsim_register_lowering(reg, LSIM_PRIMITIVE_DEBUG_CALLBACK,
                                (lsim_rule){python_callback_rule, (void *)&debug_kind},
                                debug_platforms[i], true, err);
  return rc;
}
