/* lower/lower_module.c: a program lowered to a module.
 * JAX counterparts: mlir.py lower_jaxpr_to_module, lower_jaxpr_to_fun and
 * jaxpr_subcomp (for the straight-line programs lowersim describes), and
 * the module name sanitization (sanitize_name). */
#include "lower/internal.h"
#include "lowersim/emit.h"
#include "support/raise.h"
#include "support/mlir_text.h"
#include "support/strbuf.h"

#include <mlir-c/BuiltinAttributes.h>
#include <mlir-c/BuiltinTypes.h>
#include <mlir-c/Diagnostics.h>
#include <mlir-c/Dialect/Func.h>

#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wctype.h>

struct lsim_lowerer {
  MlirContext mlir;
  locale_t utf8;           /* C.UTF-8, for Unicode \w in module names; 0 if absent */
  lsimp_strbuf diagnostics; /* what MLIR's verifier said during the last lowering */
  MlirDiagnosticHandlerID handler;
};

struct lsim_lowering {
  lsim_module_context *module_context;
};


int lsim_lowerer_create(lsim_lowerer **out, lsim_error *err) {
  if (!out)
    return lsim_error_set(err, LSIM_E_INVALID_ARGUMENT, "lsim_lowerer_create: out is NULL");
  lsim_lowerer *l = calloc(1, sizeof *l);
  if (!l)
    return lsimp_fail_oom(err);
  l->utf8 = newlocale(LC_CTYPE_MASK, "C.UTF-8", (locale_t)0);
  l->mlir = mlirContextCreateWithThreading(false);
  mlirContextSetAllowUnregisteredDialects(l->mlir, true);
  mlirDialectHandleLoadDialect(mlirGetDialectHandle__func__(), l->mlir);
  l->handler = mlirContextAttachDiagnosticHandler(l->mlir, lsimp_strbuf_collect_diagnostic, &l->diagnostics,
                                                  NULL);
  *out = l;
  return LSIM_OK;
}

void lsim_lowerer_destroy(lsim_lowerer *l) {
  if (!l)
    return;
  mlirContextDetachDiagnosticHandler(l->mlir, l->handler);
  mlirContextDestroy(l->mlir);
  if (l->utf8)
    freelocale(l->utf8);
  lsimp_strbuf_free(&l->diagnostics);
  free(l);
}

MlirContext lsim_lowerer_mlir_context(const lsim_lowerer *l) { return l->mlir; }

/* --- names and attributes ----------------------------------------------------- */

/* Decodes one UTF-8 character at `p` into *cp; returns its length (1 for a
 * byte that does not start a valid sequence, taken as is). */
static size_t utf8_decode(const unsigned char *p, unsigned *cp) {
  int n = p[0] < 0x80 ? 1 : (p[0] >> 5) == 6 ? 2 : (p[0] >> 4) == 14 ? 3 : (p[0] >> 3) == 30 ? 4 : 0;
  *cp = n == 1 ? p[0] : n == 2 ? p[0] & 0x1f : n == 3 ? p[0] & 0x0f : p[0] & 0x07;
  for (int i = 1; i < n; i++) {
    if ((p[i] & 0xc0) != 0x80)
      n = 0;
    else
      *cp = (*cp << 6) | (p[i] & 0x3f);
  }
  if (n == 0)
    *cp = p[0];
  return n ? (size_t)n : 1;
}

/* Python's \w on one character: [A-Za-z0-9_] and Unicode letters and
 * digits (as the C.UTF-8 locale classifies them; without it, every
 * non-ASCII character counts). */
static bool is_word(unsigned cp, locale_t utf8) {
  if (cp < 0x80)
    return (cp >= 'a' && cp <= 'z') || (cp >= 'A' && cp <= 'Z') || (cp >= '0' && cp <= '9') ||
           cp == '_';
  return !utf8 || iswalnum_l((wint_t)cp, utf8);
}

/* sanitize_name("jit(" + name + ")").rstrip("_"): each character outside
 * [\w.-] becomes one '_', then trailing '_' go. */
static char *module_name(const char *function, locale_t utf8) {
  lsimp_strbuf in = LSIMP_STRBUF_INIT, out = LSIMP_STRBUF_INIT;
  lsimp_strbuf_printf(&in, "jit(%s)", function);
  for (const unsigned char *p = (const unsigned char *)lsimp_strbuf_cstr(&in); *p;) {
    unsigned cp;
    size_t n = utf8_decode(p, &cp);
    if (is_word(cp, utf8) || cp == '.' || cp == '-')
      lsimp_strbuf_append(&out, (const char *)p, n);
    else
      lsimp_strbuf_putc(&out, '_');
    p += n;
  }
  while (out.len && out.data[out.len - 1] == '_')
    out.data[--out.len] = '\0';
  lsimp_strbuf_free(&in);
  return lsimp_strbuf_take(&out);
}

/* mlir.py _platforms_with_donation. */
static const char *const platforms_with_donation[] = {"cpu", "cuda", "rocm", "tpu", "neuron"};

static bool supports_donation(const char *platform) {
  for (size_t i = 0; i < sizeof platforms_with_donation / sizeof platforms_with_donation[0]; i++)
    if (strcmp(platform, platforms_with_donation[i]) == 0)
      return true;
  return false;
}

static int check_donation(const lsim_program *prog, const char *const *platforms, size_t n,
                          lsim_error *err) {
  bool any_donated = false;
  for (size_t i = 0; prog->donated && i < prog->num_args; i++)
    any_donated = any_donated || prog->donated[i];
  const char **supporting = malloc(n * sizeof *supporting);
  if (!supporting)
    return lsimp_fail_oom(err);
  size_t k = 0;
  for (size_t i = 0; i < n; i++)
    if (supports_donation(platforms[i]))
      supporting[k++] = platforms[i];
  int rc = LSIM_OK;
  if (any_donated && k > 0 && k != n) {
    lsimp_strbuf all = LSIMP_STRBUF_INIT, some = LSIMP_STRBUF_INIT;
    lsimp_py_tuple(&all, platforms, n);
    lsimp_py_list(&some, supporting, k);
    rc = lsimp_strbuf_failed(&all) || lsimp_strbuf_failed(&some)
             ? lsimp_fail_oom(err)
             : lsimp_raise(err, LSIM_E_DONATION_MIXED, lsimp_strbuf_cstr(&all),
                          lsimp_strbuf_cstr(&some));
    lsimp_strbuf_free(&all);
    lsimp_strbuf_free(&some);
  }
  free(supporting);
  return rc;
}

/* --- the lowering -------------------------------------------------------------- */

typedef struct lowering_state {
  const lsim_lowering_request *req;
  lsim_module_context *mc;
  MlirContext mlir;
  bool multi;            /* a platform-index argument */
  bool has_token;        /* the program has ordered effects */
  size_t num_values;
  lsim_aval *avals;      /* per value */
  MlirValue *values;     /* per value */
  bool *donor;           /* per arg: jax.buffer_donor */
  int64_t *alias_of;     /* per arg: the output it aliases (tf.aliasing_output), or -1 */
  MlirValue platform_index;
  MlirValue token;
  MlirBlock body;
} lowering_state;

static bool program_has_ordered_effects(const lsim_program *prog) {
  for (size_t i = 0; i < prog->num_eqns; i++)
    if (prog->eqns[i].ordered_effect)
      return true;
  return false;
}

static int check_program(const lsim_program *prog, lsim_error *err) {
  size_t num_values = prog->num_args;
  for (size_t i = 0; i < prog->num_eqns; i++) {
    const lsim_eqn *e = &prog->eqns[i];
    if (!e->primitive)
      return lsim_error_set(err, LSIM_E_INVALID_ARGUMENT, "equation %zu has no primitive", i);
    for (size_t j = 0; j < e->num_operands; j++)
      if (e->operands[j] >= num_values)
        return lsim_error_set(err, LSIM_E_INVALID_ARGUMENT,
                         "equation %zu (%s) uses value %zu, which is not defined before it", i,
                         e->primitive, e->operands[j]);
    num_values += e->num_results;
  }
  if (prog->has_outputs && prog->num_outputs && !prog->outputs)
    return lsim_error_set(err, LSIM_E_INVALID_ARGUMENT, "the program's outputs are missing");
  for (size_t i = 0; prog->has_outputs && i < prog->num_outputs; i++)
    if (prog->outputs[i] >= num_values)
      return lsim_error_set(err, LSIM_E_INVALID_ARGUMENT, "output %zu is value %zu, which is undefined",
                       i, prog->outputs[i]);
  return LSIM_OK;
}

/* The output values: the program's, else the last equation's results. */
static size_t output_values(const lowering_state *st, size_t *first, const size_t **list) {
  const lsim_program *prog = st->req->program;
  *list = prog->has_outputs ? prog->outputs : NULL;
  if (prog->has_outputs)
    return prog->num_outputs;
  if (prog->num_eqns == 0)
    return 0;
  *first = st->num_values - prog->eqns[prog->num_eqns - 1].num_results;
  return prog->eqns[prog->num_eqns - 1].num_results;
}

static size_t output_at(size_t first, const size_t *list, size_t i) {
  return list ? list[i] : first + i;
}

static MlirAttribute dict1(MlirContext mlir, const char *name, MlirAttribute value) {
  MlirNamedAttribute a = lsim_named(mlir, name, value);
  return mlirDictionaryAttrGet(mlir, 1, &a);
}

/* func.func public @main with its argument and result attributes. */
static int build_main(lowering_state *st, MlirOperation *func_out, lsim_error *err) {
  const lsim_program *prog = st->req->program;
  MlirContext mlir = st->mlir;
  size_t first = 0;
  const size_t *list;
  size_t num_outputs = output_values(st, &first, &list);
  size_t num_in = (st->multi ? 1 : 0) + (st->has_token ? 1 : 0) + prog->num_args;
  size_t num_out = (st->has_token ? 1 : 0) + num_outputs;
  MlirType *in = malloc((num_in + 1) * sizeof *in);
  MlirType *out = malloc((num_out + 1) * sizeof *out);
  MlirAttribute *arg_attrs = malloc((num_in + 1) * sizeof *arg_attrs);
  MlirAttribute *res_attrs = malloc((num_out + 1) * sizeof *res_attrs);
  MlirLocation *locs = malloc((num_in + 1) * sizeof *locs);
  int rc = in && out && arg_attrs && res_attrs && locs ? LSIM_OK : lsimp_fail_oom(err);
  MlirAttribute empty = mlirDictionaryAttrGet(mlir, 0, NULL);
  MlirAttribute yes = mlirBoolAttrGet(mlir, 1);
  size_t a = 0, r = 0;
  if (!rc && st->multi) {
    in[a] = lsim_i32_scalar_type(mlir);
    arg_attrs[a++] = dict1(mlir, "jax.global_constant", lsim_string_attr(mlir, "_platform_index"));
  }
  if (!rc && st->has_token) {
    in[a] = lsim_token_type(mlir);
    arg_attrs[a++] = dict1(mlir, "jax.token", yes);
    out[r] = lsim_token_type(mlir);
    res_attrs[r++] = dict1(mlir, "jax.token", yes);
  }
  for (size_t i = 0; !rc && i < prog->num_args; i++) {
    in[a] = lsim_module_context_aval_to_ir_type(st->mc, &prog->args[i]);
    if (st->alias_of[i] >= 0)
      arg_attrs[a++] = dict1(mlir, "tf.aliasing_output",
                             mlirIntegerAttrGet(mlirIntegerTypeGet(mlir, 32),
                                                st->alias_of[i] + (st->has_token ? 1 : 0)));
    else
      arg_attrs[a++] = st->donor[i] ? dict1(mlir, "jax.buffer_donor", yes) : empty;
  }
  for (size_t i = 0; !rc && i < num_outputs; i++) {
    out[r] = lsim_module_context_aval_to_ir_type(st->mc, &st->avals[output_at(first, list, i)]);
    char info[32];
    if (num_outputs == 1)
      snprintf(info, sizeof info, "result");
    else
      snprintf(info, sizeof info, "result[%zu]", i);
    res_attrs[r++] = dict1(mlir, "jax.result_info", lsim_string_attr(mlir, info));
  }
  for (size_t i = 0; !rc && i < a; i++)
    locs[i] = mlirLocationUnknownGet(mlir);
  if (!rc) {
    MlirType fn_type = mlirFunctionTypeGet(mlir, (intptr_t)num_in, in, (intptr_t)num_out, out);
    MlirNamedAttribute attrs[] = {
        lsim_named(mlir, "sym_name", lsim_string_attr(mlir, "main")),
        lsim_named(mlir, "function_type", mlirTypeAttrGet(fn_type)),
        lsim_named(mlir, "sym_visibility", lsim_string_attr(mlir, "public")),
        lsim_named(mlir, "arg_attrs", mlirArrayAttrGet(mlir, (intptr_t)num_in, arg_attrs)),
        lsim_named(mlir, "res_attrs", mlirArrayAttrGet(mlir, (intptr_t)num_out, res_attrs)),
    };
    MlirOperationState state =
        mlirOperationStateGet(mlirStringRefCreateFromCString("func.func"), mlirLocationUnknownGet(mlir));
    MlirRegion region = mlirRegionCreate();
    st->body = mlirBlockCreate((intptr_t)num_in, in, locs);
    mlirRegionAppendOwnedBlock(region, st->body);
    mlirOperationStateAddAttributes(&state, 5, attrs);
    mlirOperationStateAddOwnedRegions(&state, 1, &region);
    *func_out = mlirOperationCreate(&state);
    mlirBlockAppendOwnedOperation(mlirModuleGetBody(lsim_module_context_module(st->mc)), *func_out);
    size_t b = 0;
    if (st->multi)
      st->platform_index = mlirBlockGetArgument(st->body, (intptr_t)b++);
    if (st->has_token)
      st->token = mlirBlockGetArgument(st->body, (intptr_t)b++);
    for (size_t i = 0; i < prog->num_args; i++)
      st->values[i] = mlirBlockGetArgument(st->body, (intptr_t)b++);
  }
  free(in);
  free(out);
  free(arg_attrs);
  free(res_attrs);
  free(locs);
  return rc;
}

/* _set_up_aliases for one partition (no result shardings): a donated
 * argument aliases the first unclaimed output of the same aval
 * (tf.aliasing_output); the others become buffer donors when an unaliased
 * output of the same size remains (jax.buffer_donor); the rest are not
 * usable.  Nothing is donated when no lowering platform supports donation. */
static int match_donations(lowering_state *st, lsim_error *err) {
  const lsim_program *prog = st->req->program;
  size_t first = 0, n_platforms;
  const size_t *list;
  size_t n = output_values(st, &first, &list);
  const char *const *platforms = lsim_module_context_platforms(st->mc, &n_platforms);
  bool supported = false;
  for (size_t p = 0; p < n_platforms; p++)
    supported = supported || supports_donation(platforms[p]);
  bool *claimed = calloc(n + 1, sizeof *claimed);
  if (!claimed)
    return lsimp_fail_oom(err);
  for (int pass = 0; supported && pass < 2; pass++) {
    for (size_t i = 0; prog->donated && i < prog->num_args; i++) {
      if (!prog->donated[i] || st->alias_of[i] >= 0 || st->donor[i])
        continue;
      for (size_t o = 0; o < n; o++) {
        const lsim_aval *out = &st->avals[output_at(first, list, o)];
        bool match = pass == 0 ? lsim_aval_equal(out, &prog->args[i])
                               : lsim_aval_size(out) == lsim_aval_size(&prog->args[i]);
        if (!claimed[o] && match) {
          claimed[o] = true;
          if (pass == 0)
            st->alias_of[i] = (int64_t)o;
          else
            st->donor[i] = true;
          break;
        }
      }
    }
  }
  for (size_t i = 0; prog->donated && i < prog->num_args; i++) {
    if (prog->donated[i] && st->alias_of[i] < 0 && !st->donor[i]) {
      char text[LSIM_AVAL_TEXT_MAX];
      lsim_module_context_trace(st->mc, LSIM_TRACE_DETAIL, 0,
                                "warning: %sSome donated buffers were not usable: %s.",
                                supported ? "" : "Donation is not implemented for these platforms. ",
                                lsim_aval_str(&prog->args[i], text, sizeof text));
    }
  }
  free(claimed);
  return LSIM_OK;
}

static void narrate_eqn(lowering_state *st, size_t index, const lsim_eqn *e) {
  if (!lsim_module_context_tracing(st->mc))
    return;
  lsimp_strbuf line = LSIMP_STRBUF_INIT;
  lsimp_strbuf_printf(&line, "equation %zu: %s(", index, e->primitive);
  char text[LSIM_AVAL_TEXT_MAX];
  for (size_t i = 0; i < e->num_operands; i++)
    lsimp_strbuf_printf(&line, "%s%s", i ? ", " : "",
                       lsim_aval_format(&st->avals[e->operands[i]], text, sizeof text));
  lsimp_strbuf_puts(&line, ") -> (");
  for (size_t i = 0; i < e->num_results; i++)
    lsimp_strbuf_printf(&line, "%s%s", i ? ", " : "", lsim_aval_format(&e->results[i], text, sizeof text));
  lsimp_strbuf_puts(&line, e->ordered_effect ? ")  [ordered effect: threads the token]" : ")");
  lsim_module_context_trace(st->mc, LSIM_TRACE_STEP, +1, "%s", lsimp_strbuf_cstr(&line));
  lsimp_strbuf_free(&line);
}

static void narrate_lookup(lowering_state *st, const lsim_platform_rule *rules, size_t n,
                           bool has_default) {
  if (!lsim_module_context_tracing(st->mc))
    return;
  lsimp_strbuf line = LSIMP_STRBUF_INIT;
  lsimp_strbuf_puts(&line, n ? "rule lookup: platform rules for " : "rule lookup: no platform rules");
  for (size_t i = 0; i < n; i++)
    lsimp_strbuf_printf(&line, "%s%s", i ? ", " : "", rules[i].platform);
  lsimp_strbuf_puts(&line, has_default ? "; a default rule" : "; no default rule");
  lsim_module_context_trace(st->mc, LSIM_TRACE_DETAIL, 0, "%s", lsimp_strbuf_cstr(&line));
  lsimp_strbuf_free(&line);
}

static int lower_eqn(lowering_state *st, size_t index, const lsim_eqn *e, size_t first_result,
                     lsim_error *err) {
  size_t n;
  const char *const *platforms = lsim_module_context_platforms(st->mc, &n);
  lsim_platform_rule *rules = malloc(n * sizeof *rules);
  lsim_aval *avals_in = malloc((e->num_operands ? e->num_operands : 1) * sizeof *avals_in);
  MlirValue *args = malloc((e->num_operands ? e->num_operands : 1) * sizeof *args);
  int rc = rules && avals_in && args ? LSIM_OK : lsimp_fail_oom(err);
  for (size_t i = 0; !rc && i < e->num_operands; i++) {
    avals_in[i] = st->avals[e->operands[i]];
    args[i] = st->values[e->operands[i]];
  }
  narrate_eqn(st, index, e);
  size_t num_rules = 0;
  lsim_rule default_rule;
  bool has_default = false, inline_rule;
  if (!rc)
    lsim_registry_lookup(st->req->registry, e->primitive, platforms, n, rules, &num_rules,
                         &default_rule, &has_default, &inline_rule);
  if (!rc)
    narrate_lookup(st, rules, num_rules, has_default);
  MlirValue token_out = {NULL};
  if (!rc) {
    lsim_lowering_rule_context ctx = lsim_lowering_rule_context_make(st->mc, e->primitive);
    ctx.block = st->body;
    ctx.location = mlirLocationUnknownGet(st->mlir);
    ctx.avals_in = avals_in;
    ctx.num_avals_in = e->num_operands;
    ctx.avals_out = e->results;
    ctx.num_avals_out = e->num_results;
    ctx.dim_var_values = st->multi ? &st->platform_index : NULL;
    ctx.num_dim_var_values = st->multi ? 1 : 0;
    if (e->ordered_effect) {
      ctx.tokens_in = &st->token;
      ctx.num_tokens_in = 1;
      ctx.tokens_out = &token_out;
    }
    rc = lsim_lower_per_platform(&ctx, e->primitive, rules, num_rules,
                                 has_default ? &default_rule : NULL, args,
                                 st->values + first_result, e->params, err);
    if (!rc && e->ordered_effect && ctx.num_tokens_out)
      st->token = token_out;
  }
  lsim_module_context_trace_nest(st->mc, -1);
  free(rules);
  free(avals_in);
  free(args);
  return rc;
}

static int emit_func_return(lowering_state *st, lsim_error *err) {
  size_t first = 0;
  const size_t *list;
  size_t n = output_values(st, &first, &list);
  MlirValue *values = malloc((n + 1) * sizeof *values);
  if (!values)
    return lsimp_fail_oom(err);
  size_t k = 0;
  if (st->has_token)
    values[k++] = st->token;
  for (size_t i = 0; i < n; i++)
    values[k++] = st->values[output_at(first, list, i)];
  lsim_lowering_rule_context ctx = lsim_lowering_rule_context_make(st->mc, "return");
  ctx.block = st->body;
  ctx.location = mlirLocationUnknownGet(st->mlir);
  int rc = lsim_emit_op(&ctx, "func.return", values, k, NULL, 0, NULL, 0, 0, NULL, err);
  free(values);
  return rc;
}

static void set_module_attributes(lowering_state *st, const char *name) {
  MlirOperation module = mlirModuleGetOperation(lsim_module_context_module(st->mc));
  MlirContext mlir = st->mlir;
  MlirType i32 = mlirIntegerTypeGet(mlir, 32);
  mlirOperationSetAttributeByName(module, mlirStringRefCreateFromCString("sym_name"),
                                  lsim_string_attr(mlir, name));
  mlirOperationSetAttributeByName(module, mlirStringRefCreateFromCString("mhlo.num_replicas"),
                                  mlirIntegerAttrGet(i32, 1));
  mlirOperationSetAttributeByName(module, mlirStringRefCreateFromCString("mhlo.num_partitions"),
                                  mlirIntegerAttrGet(i32, 1));
  if (st->req->for_export) /* _export.py sets it; mlir.py does not */
    mlirOperationSetAttributeByName(module,
                                    mlirStringRefCreateFromCString("jax.uses_shape_polymorphism"),
                                    mlirBoolAttrGet(mlir, st->multi));
}

static int verify(lsim_lowerer *l, lowering_state *st, lsim_error *err) {
  MlirModule module = lsim_module_context_module(st->mc);
  lsimp_strbuf_reset(&l->diagnostics);
  if (!mlirOperationVerify(mlirModuleGetOperation(module)))
    return lsim_error_set(err, LSIM_E_VERIFY, "the emitted module fails MLIR verification: %s",
                     lsimp_strbuf_cstr(&l->diagnostics));
  int rc = lsim_verify_module(module, err);
  if (!rc)
    lsim_module_context_trace(st->mc, LSIM_TRACE_STEP, 0,
                              "verified: MLIR's verifier and lowersim's stablehlo checks pass");
  return rc;
}

/* The pinned backend, then the lowering platforms (the default backend's
 * platform when none are given). */
static int resolve_platforms(const lsim_lowering_request *req, const lsim_backend **pinned,
                             const char *const **platforms, size_t *n, lsim_error *err) {
  *pinned = NULL;
  int rc = req->backend ? lsim_runtime_get_backend(req->runtime, req->backend, pinned, err)
                        : LSIM_OK;
  if (rc)
    return rc;
  *platforms = req->platforms;
  *n = req->num_platforms;
  if (*n == 0) {
    const lsim_backend *b = *pinned;
    if (!b && (rc = lsim_runtime_get_backend(req->runtime, NULL, &b, err)))
      return rc;
    *platforms = &b->platform;
    *n = 1;
  }
  return LSIM_OK;
}

static void narrate_start(lowering_state *st, const lsim_backend *pinned) {
  if (!lsim_module_context_tracing(st->mc))
    return;
  size_t n;
  const char *const *p = lsim_module_context_platforms(st->mc, &n);
  lsimp_strbuf line = LSIMP_STRBUF_INIT;
  lsimp_py_tuple(&line, p, n);
  lsim_module_context_trace(st->mc, LSIM_TRACE_STEP, 0,
                            "lowering platforms (canonicalized): %s%s", lsimp_strbuf_cstr(&line),
                            n > 1 ? "  -> main takes the platform index first" : "");
  lsim_module_context_trace(st->mc, LSIM_TRACE_DETAIL, 0, "pinned backend: %s",
                            pinned ? pinned->platform : "none (jit without backend=)");
  lsimp_strbuf_free(&line);
}

static int lower_program(lsim_lowerer *l, lowering_state *st, const lsim_backend *pinned,
                         lsim_error *err) {
  const lsim_program *prog = st->req->program;
  size_t n;
  const char *const *platforms = lsim_module_context_platforms(st->mc, &n);
  int rc = check_donation(prog, platforms, n, err);
  if (rc)
    return rc;
  narrate_start(st, pinned);
  st->multi = n > 1;
  st->has_token = program_has_ordered_effects(prog);
  if ((rc = match_donations(st, err)))
    return rc;
  char *name = module_name(prog->function_name ? prog->function_name : "f", l->utf8);
  if (!name)
    return lsimp_fail_oom(err);
  set_module_attributes(st, name);
  free(name);
  MlirOperation func;
  if ((rc = build_main(st, &func, err)))
    return rc;
  size_t next = prog->num_args;
  for (size_t i = 0; i < prog->num_eqns && !rc; i++) {
    rc = lower_eqn(st, i, &prog->eqns[i], next, err);
    next += prog->eqns[i].num_results;
  }
  if (!rc)
    rc = emit_func_return(st, err);
  if (!rc && !st->req->skip_verify)
    rc = verify(l, st, err);
  return rc;
}

/* What JAX raises while tracing, before any lowering: every equation's
 * trace-time check, in program order. */
static int trace_checks(const lowering_state *st, lsim_error *err) {
  const lsim_program *prog = st->req->program;
  lsim_aval *in = NULL;
  int rc = LSIM_OK;
  for (size_t i = 0; i < prog->num_eqns && !rc; i++) {
    const lsim_eqn *e = &prog->eqns[i];
    lsim_aval *grown = realloc(in, (e->num_operands + 1) * sizeof *in);
    if (!grown)
      rc = lsimp_fail_oom(err);
    in = grown ? grown : in;
    for (size_t j = 0; !rc && j < e->num_operands; j++)
      in[j] = st->avals[e->operands[j]];
    if (!rc)
      rc = lsim_registry_trace_check(st->req->registry, e->primitive, in, e->num_operands,
                                     e->results, e->num_results, e->params, err);
  }
  free(in);
  return rc;
}

/* The avals of every value: args, then each equation's results. */
static int value_avals(lowering_state *st, lsim_error *err) {
  const lsim_program *prog = st->req->program;
  st->num_values = prog->num_args;
  for (size_t i = 0; i < prog->num_eqns; i++)
    st->num_values += prog->eqns[i].num_results;
  st->avals = malloc((st->num_values + 1) * sizeof *st->avals);
  st->values = calloc(st->num_values + 1, sizeof *st->values);
  st->donor = calloc(prog->num_args + 1, sizeof *st->donor);
  st->alias_of = malloc((prog->num_args + 1) * sizeof *st->alias_of);
  if (!st->avals || !st->values || !st->donor || !st->alias_of)
    return lsimp_fail_oom(err);
  for (size_t i = 0; i < prog->num_args; i++)
    st->alias_of[i] = -1;
  size_t k = 0;
  for (size_t i = 0; i < prog->num_args; i++)
    st->avals[k++] = prog->args[i];
  for (size_t i = 0; i < prog->num_eqns; i++)
    for (size_t j = 0; j < prog->eqns[i].num_results; j++)
      st->avals[k++] = prog->eqns[i].results[j];
  return LSIM_OK;
}

int lsim_lower(lsim_lowerer *l, const lsim_lowering_request *req, lsim_lowering **out,
               lsim_error *err) {
  if (!l || !req || !out || !req->runtime || !req->registry || !req->program)
    return lsim_error_set(err, LSIM_E_INVALID_ARGUMENT, "lsim_lower: NULL argument");
  *out = NULL;
  lowering_state st = {.req = req, .mlir = l->mlir};
  int rc = check_program(req->program, err);
  if (!rc)
    rc = value_avals(&st, err);
  if (!rc)
    rc = trace_checks(&st, err);
  const lsim_backend *pinned = NULL;
  const char *const *platforms = NULL;
  size_t n = 0;
  if (!rc)
    rc = resolve_platforms(req, &pinned, &platforms, &n, err);
  if (!rc) {
    lsim_module_context_options mo = {.runtime = req->runtime, .platforms = platforms,
                                      .num_platforms = n, .backend = pinned,
                                      .mlir_context = l->mlir, .trace = req->trace,
                                      .trace_data = req->trace_data};
    rc = lsim_module_context_create(&mo, &st.mc, err);
  }
  if (!rc)
    rc = lower_program(l, &st, pinned, err);
  if (rc && st.mc)
    lsim_module_context_trace(st.mc, LSIM_TRACE_ERROR, 0, "%s: %s", lsim_error_class(err),
                              lsim_error_message(err));
  free(st.avals);
  free(st.values);
  free(st.donor);
  free(st.alias_of);
  if (rc) {
    lsim_module_context_destroy(st.mc);
    return rc;
  }
  lsim_lowering *lowering = malloc(sizeof *lowering);
  if (!lowering) {
    lsim_module_context_destroy(st.mc);
    return lsimp_fail_oom(err);
  }
  lowering->module_context = st.mc;
  *out = lowering;
  return LSIM_OK;
}

void lsim_lowering_destroy(lsim_lowering *lowering) {
  if (!lowering)
    return;
  lsim_module_context_destroy(lowering->module_context);
  free(lowering);
}

MlirModule lsim_lowering_module(const lsim_lowering *lowering) {
  return lsim_module_context_module(lowering->module_context);
}

lsim_module_context *lsim_lowering_module_context(const lsim_lowering *lowering) {
  return lowering->module_context;
}

char *lsim_lowering_print(const lsim_lowering *lowering) {
  lsimp_strbuf sb = LSIMP_STRBUF_INIT;
  mlirOperationPrint(mlirModuleGetOperation(lsim_lowering_module(lowering)), lsimp_strbuf_append_mlir, &sb);
  lsimp_strbuf_putc(&sb, '\n');
  return lsimp_strbuf_take(&sb);
}

int lsim_lowering_execute(lsim_lowering *lowering, lsim_error *err) {
  if (!lowering)
    return lsim_error_set(err, LSIM_E_INVALID_ARGUMENT, "lsim_lowering_execute: NULL argument");
  lsim_module_context *mc = lowering->module_context;
  for (size_t i = 0; i < lsim_module_context_host_callback_count(mc); i++) {
    const lsim_host_callback *cb = lsim_module_context_host_callback_at(mc, i);
    lsim_host_callback_call call = {.index = i, .error = err};
    int rc = cb->fn ? cb->fn(cb->user_data, &call) : LSIM_OK;
    if (rc)
      return rc;
  }
  return LSIM_OK;
}
