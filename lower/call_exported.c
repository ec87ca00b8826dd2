/* lower/call_exported.c: calling an exported function from another
 * lowering.  JAX counterpart: export/_export.py _call_exported_abstract_eval
 * (the trace-time checks of the arguments against Exported.in_avals) and
 * _call_exported_lowering (the callee's platform index, the exported module
 * merged as a private function by mlir.py merge_mlir_modules, the func.call);
 * see lowersim/export.h. */
#include "lowersim/export.h"
#include "lowersim/alloc.h"
#include "lowersim/emit.h"
#include "lowersim/lowering_rule_context.h"
#include "lowersim/module_context.h"
#include "support/emit_cache.h"
#include "support/raise.h"
#include "support/strbuf.h"

#include <mlir-c/BuiltinAttributes.h>
#include <mlir-c/BuiltinTypes.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static MlirStringRef ref(const char *s) { return mlirStringRefCreateFromCString(s); }

/* _call_exported_abstract_eval: rank, dtype, then each dimension, per
 * argument in order (pretty_print_dimension_descriptor: args[i],
 * args[i].shape[d]). */
static int call_exported_check(const lsim_aval *avals_in, size_t num_in,
                               const lsim_aval *avals_out, size_t num_out, const void *params,
                               const lsim_jax_profile *jax, lsim_error *err) {
  (void)avals_out, (void)num_out, (void)jax;
  const lsim_call_exported_params *p = params;
  if (!p || !p->exported || !p->exported->fun_name || !p->exported->lowering)
    return lsim_error_set(err, LSIM_E_INVALID_ARGUMENT, "a call_exported needs an Exported");
  const lsim_exported *e = p->exported;
  if (num_in != e->num_in_avals)
    return lsim_error_set(err, LSIM_E_INVALID_ARGUMENT,
                          "the exported function '%s' takes %zu arguments, called with %zu",
                          e->fun_name, e->num_in_avals, num_in);
  for (size_t i = 0; i < num_in; i++) {
    const lsim_aval *want = &e->in_avals[i], *got = &avals_in[i];
    int code = LSIM_OK, dim = -1;
    if (want->rank != got->rank)
      code = LSIM_E_EXPORT_CALL_RANK;
    else if (want->dtype != got->dtype)
      code = LSIM_E_EXPORT_CALL_DTYPE;
    for (int d = 0; !code && d < want->rank; d++)
      if (want->dims[d] != got->dims[d])
        code = LSIM_E_EXPORT_CALL_SHAPE, dim = d;
    if (!code)
      continue;
    lsimp_strbuf arg = LSIMP_STRBUF_INIT, x = LSIMP_STRBUF_INIT, y = LSIMP_STRBUF_INIT;
    lsimp_strbuf_printf(&arg, "args[%zu]", i);
    if (dim >= 0)
      lsimp_strbuf_printf(&arg, ".shape[%d]", dim);
    if (code == LSIM_E_EXPORT_CALL_DTYPE) {
      lsimp_strbuf_puts(&x, lsim_dtype_numpy_name(want->dtype));
      lsimp_strbuf_puts(&y, lsim_dtype_numpy_name(got->dtype));
    } else {
      lsimp_py_shape(&x, want->dims, want->rank);
      lsimp_py_shape(&y, got->dims, got->rank);
    }
    int rc = lsimp_strbuf_failed(&arg) || lsimp_strbuf_failed(&x) || lsimp_strbuf_failed(&y)
                 ? lsimp_fail_oom(err)
                 : lsimp_raise(err, code, lsimp_strbuf_cstr(&arg), lsimp_strbuf_cstr(&x),
                               lsimp_strbuf_cstr(&y));
    lsimp_strbuf_free(&arg);
    lsimp_strbuf_free(&x);
    lsimp_strbuf_free(&y);
    return rc;
  }
  return LSIM_OK;
}

/* `exported=Exported(fun_name=f, ...)`, as str(Exported) prints it. */
static int explain_params(const void *params, char *buf, size_t size) {
  const lsim_call_exported_params *p = params;
  return snprintf(buf, size, "exported=Exported(fun_name=%s, ...)", p->exported->fun_name);
}

/* Its results' avals are the Exported's out_avals, made without the
 * abstract mesh (checked live). */
const lsim_primitive lsim_call_exported_p = {.name = "call_exported",
                                             .trace_check = call_exported_check,
                                             .explain_params = explain_params,
                                             .results_outside_mesh = true};

static bool is_op(MlirOperation op, const char *name) {
  MlirStringRef n = mlirIdentifierStr(mlirOperationGetName(op));
  return n.length == strlen(name) && memcmp(n.data, name, n.length) == 0;
}

static bool named(MlirOperation op, const char *name) {
  MlirAttribute a = mlirOperationGetAttributeByName(op, ref("sym_name"));
  if (!mlirAttributeIsAString(a))
    return false;
  MlirStringRef s = mlirStringAttrGetValue(a);
  return s.length == strlen(name) && memcmp(s.data, name, s.length) == 0;
}

static MlirOperation find_func(MlirModule module, const char *name) {
  for (MlirOperation f = mlirBlockGetFirstOperation(mlirModuleGetBody(module));
       !mlirOperationIsNull(f); f = mlirOperationGetNextInBlock(f))
    if (is_op(f, "func.func") && named(f, name))
      return f;
  return (MlirOperation){NULL};
}

/* merge_mlir_modules(dst, "call_exported_<fun_name>", exported module):
 * the exported main, private, under that name (or name_N when it is taken)
 * at the end of the caller's module; the callee's other functions keep
 * their names unless the caller has them.  A second identical call reuses
 * the function (JAX's lowering cache).  *callee receives the function. */
static int merge(lsim_lowering_rule_context *ctx, const lsim_exported *e, MlirOperation *callee,
                 lsim_error *err) {
  MlirModule dst = lsim_module_context_module(ctx->module_context);
  lsimp_strbuf name = LSIMP_STRBUF_INIT;
  lsimp_strbuf_printf(&name, "call_exported_%s", e->fun_name);
  if (lsimp_strbuf_failed(&name))
    return lsimp_fail_oom(err);
  *callee = find_func(dst, lsimp_strbuf_cstr(&name));
  if (!mlirOperationIsNull(*callee)) {
    lsimp_strbuf_free(&name);
    return LSIM_OK;
  }
  char *text = lsim_lowering_print(e->lowering);
  MlirContext mlir = lsim_module_context_mlir_context(ctx->module_context);
  MlirModule src = text ? mlirModuleCreateParse(mlir, ref(text)) : (MlirModule){NULL};
  free(text);
  if (mlirModuleIsNull(src)) {
    lsimp_strbuf_free(&name);
    return lsim_error_set(err, LSIM_E_VERIFY,
                          "the module exported as '%s' does not parse in the caller's context",
                          e->fun_name);
  }
  MlirBlock body = mlirModuleGetBody(dst);
  for (MlirOperation f = mlirBlockGetFirstOperation(mlirModuleGetBody(src)), next;
       !mlirOperationIsNull(f); f = next) {
    next = mlirOperationGetNextInBlock(f);
    if (!is_op(f, "func.func"))
      continue;
    if (named(f, "main")) {
      mlirOperationSetAttributeByName(
          f, ref("sym_name"), mlirStringAttrGet(mlir, ref(lsimp_strbuf_cstr(&name))));
      mlirOperationSetAttributeByName(f, ref("sym_visibility"),
                                      mlirStringAttrGet(mlir, ref("private")));
      *callee = f;
    }
    mlirOperationRemoveFromParent(f);
    mlirBlockAppendOwnedOperation(body, f);
    lsimp_emit_cache_made(lsim_module_context_insertion_point(ctx->module_context).cache, f);
  }
  mlirModuleDestroy(src);
  lsimp_strbuf_free(&name);
  if (mlirOperationIsNull(*callee))
    return lsim_error_set(err, LSIM_E_VERIFY, "the module exported as '%s' has no main",
                          e->fun_name);
  return LSIM_OK;
}

static void py_platforms(lsimp_strbuf *sb, const char *const *platforms, size_t n) {
  lsimp_py_tuple(sb, platforms, n);
}

/* The callee's platform index for each caller platform: its position in
 * Exported.platforms, 0 when DisabledSafetyCheck.platform() allows a
 * platform the export lacks; else JAX's ValueError. */
static int callee_indices(const lsim_exported *e, const char *const *platforms, size_t n,
                          int32_t *out, lsim_error *err) {
  for (size_t i = 0; i < n; i++) {
    size_t k = 0;
    while (k < e->num_platforms && strcmp(e->platforms[k], platforms[i]) != 0)
      k++;
    if (k < e->num_platforms || e->platform_check_disabled) {
      out[i] = k < e->num_platforms ? (int32_t)k : 0;
      continue;
    }
    lsimp_strbuf exported = LSIMP_STRBUF_INIT, used = LSIMP_STRBUF_INIT;
    py_platforms(&exported, e->platforms, e->num_platforms);
    py_platforms(&used, platforms, n);
    int rc = lsimp_strbuf_failed(&exported) || lsimp_strbuf_failed(&used)
                 ? lsimp_fail_oom(err)
                 : lsimp_raise(err, LSIM_E_EXPORT_CALL_PLATFORMS, e->fun_name,
                               lsimp_strbuf_cstr(&exported), lsimp_strbuf_cstr(&used));
    lsimp_strbuf_free(&exported);
    lsimp_strbuf_free(&used);
    return rc;
  }
  return LSIM_OK;
}

/* The callee's platform index: a stablehlo.case over the caller's platform
 * index (the constant 0 with one caller platform), each branch returning
 * the callee's index, converted to the callee's index type. */
static int platform_index(lsim_lowering_rule_context *ctx, const int32_t *indices, size_t n,
                          MlirType callee_type, MlirValue *out, lsim_error *err) {
  MlirContext mlir = ctx->ip.context;
  MlirType i32 = lsim_i32_scalar_type(mlir);
  MlirValue current;
  int rc = LSIM_OK;
  if (n > 1) {
    if (!ctx->num_dim_var_values)
      return lsim_error_set(err, LSIM_E_VERIFY, "no platform index for call_exported");
    current = ctx->dim_var_values[0];
  } else {
    rc = lsim_emit_constant_i32(&ctx->ip, 0, &current, err);
  }
  if (!rc && !mlirTypeEqual(mlirValueGetType(current), i32))
    rc = lsim_emit_convert(&ctx->ip, current, i32, &current, err);
  MlirOperation case_op;
  if (!rc)
    rc = lsim_emit_case(&ctx->ip, current, &i32, 1, n, &case_op, err);
  for (size_t i = 0; !rc && i < n; i++) {
    lsim_insertion_point in = lsim_insertion_point_in(&ctx->ip, lsim_case_branch(case_op, i));
    MlirValue c;
    rc = lsim_emit_constant_i32(&in, indices[i], &c, err);
    if (!rc)
      rc = lsim_emit_return(&in, &c, 1, err);
  }
  if (rc)
    return rc;
  *out = mlirOperationGetResult(case_op, 0);
  if (!mlirTypeEqual(i32, callee_type))
    rc = lsim_emit_convert(&ctx->ip, *out, callee_type, out, err);
  return rc;
}

static int call_exported_lowering(lsim_lowering_rule_context *ctx, const MlirValue *args,
                                  MlirValue *results, const void *params, void *data,
                                  lsim_error *err) {
  (void)data;
  const lsim_exported *e = ((const lsim_call_exported_params *)params)->exported;
  size_t n;
  const char *const *platforms = lsim_module_context_platforms(ctx->module_context, &n);
  int32_t *indices = lsim_calloc(n, sizeof *indices);
  if (!indices)
    return lsimp_fail_oom(err);
  int rc = callee_indices(e, platforms, n, indices, err);
  MlirOperation callee = {NULL};
  if (!rc)
    rc = merge(ctx, e, &callee, err);
  MlirType fn = {NULL};
  size_t with_index = e->num_platforms > 1;
  size_t num_kept = 0;
  for (size_t i = 0; i < ctx->num_avals_in; i++)
    num_kept += lsim_lowering_arg_kept(e->lowering, i);
  if (!rc) {
    fn = mlirTypeAttrGetValue(mlirOperationGetAttributeByName(callee, ref("function_type")));
    if ((size_t)mlirFunctionTypeGetNumInputs(fn) != with_index + num_kept)
      rc = lsim_error_set(err, LSIM_E_VERIFY,
                          "the exported main of '%s' does not take its kept arguments",
                          e->fun_name);
  }
  if (!rc && !with_index && n != 1)
    rc = lsimp_raise0(err, LSIM_E_EXPORT_CALL_ASSERTION); /* assert len(lowering_platforms) == 1 */
  size_t num_operands = with_index + num_kept;
  MlirValue *operands = rc ? NULL : lsim_calloc(num_operands, sizeof *operands);
  if (!rc && !operands)
    rc = lsimp_fail_oom(err);
  if (!rc && with_index)
    rc = platform_index(ctx, indices, n, mlirFunctionTypeGetInput(fn, 0), &operands[0], err);
  if (!rc) {
    lsimp_strbuf said = LSIMP_STRBUF_INIT;
    lsimp_strbuf_printf(&said, "call_exported: '%s' (exported for ", e->fun_name);
    py_platforms(&said, e->platforms, e->num_platforms);
    MlirStringRef sym =
        mlirStringAttrGetValue(mlirOperationGetAttributeByName(callee, ref("sym_name")));
    lsimp_strbuf_printf(&said, ") merged as private @%.*s, called with %zu of %zu arguments",
                        (int)sym.length, sym.data, num_kept, ctx->num_avals_in);
    if (with_index) {
      lsimp_strbuf_puts(&said, "; the callee's platform index per caller platform:");
      for (size_t i = 0; i < n; i++)
        lsimp_strbuf_printf(&said, " %s->%d", platforms[i], (int)indices[i]);
    }
    if (!lsimp_strbuf_failed(&said))
      lsim_module_context_explain(ctx->module_context, LSIM_EXPLAIN_DECISION, 0, "%s",
                                  lsimp_strbuf_cstr(&said));
    lsimp_strbuf_free(&said);
  }
  size_t num_results = rc ? 0 : (size_t)mlirFunctionTypeGetNumResults(fn);
  MlirType *types = rc ? NULL : lsim_calloc(num_results, sizeof *types);
  if (!rc && !types)
    rc = lsimp_fail_oom(err);
  if (!rc) {
    /* The kept arguments only (module_kept_var_idx). */
    for (size_t i = 0, k = with_index; i < ctx->num_avals_in; i++)
      if (lsim_lowering_arg_kept(e->lowering, i))
        operands[k++] = args[i];
    for (size_t i = 0; i < num_results; i++)
      types[i] = mlirFunctionTypeGetResult(fn, (intptr_t)i);
    MlirContext mlir = ctx->ip.context;
    MlirStringRef name = mlirStringAttrGetValue(
        mlirOperationGetAttributeByName(callee, ref("sym_name")));
    MlirNamedAttribute attr =
        lsim_named(mlir, "callee", mlirFlatSymbolRefAttrGet(mlir, name));
    MlirOperation call;
    rc = lsim_emit_op(&ctx->ip, "func.call", operands, num_operands, types, num_results, &attr,
                      1, 0, &call, err);
    for (size_t i = 0; !rc && i < num_results && i < ctx->num_avals_out; i++)
      results[i] = mlirOperationGetResult(call, (intptr_t)i);
  }
  free(types);
  free(operands);
  free(indices);
  return rc;
}

int lsim_register_call_exported_rules(lsim_registry *reg, lsim_error *err) {
  return lsim_register_lowering(reg, &lsim_call_exported_p,
                                (lsim_rule){call_exported_lowering, NULL}, NULL, err);
}
