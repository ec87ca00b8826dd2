/* lower/lowering_cache.c: rules that are not inlined.
 * JAX counterpart: mlir.py jaxpr_subcomp's lowering cache (LoweringCacheKey:
 * primitive, eqn ctx, avals_in, effects, params, platforms;
 * ModuleContext.lowering_cache), _cached_lowering_miss,
 * _emit_lowering_rule_as_fun (inline=False: func.FuncOp(primitive.name)
 * at the module's insertion point, sym_visibility "private", inserted in
 * the module's symbol table, which renames it `name_N` when the name is
 * taken), _emit_cached_call (func.CallOp). */
#include "lowering_cache.h"
#include "lowersim/emit.h"
#include "lowersim/jaxpr_subcomp.h"
#include "lowersim/lower_per_platform.h"
#include "support/alloc.h"
#include "support/raise.h"

#include <mlir-c/BuiltinAttributes.h>

#include <stdlib.h>
#include <string.h>

typedef struct cache_entry {
  const lsim_primitive *primitive;
  const char *compute_type; /* borrowed from the program */
  const void *params;
  const lsim_program *jaxpr; /* a called computation's (borrowed), compared by structure */
  const char *traced_in;     /* the compute type it was traced in (part of the jaxpr in JAX) */
  lsim_aval *avals; /* avals in, then avals out */
  size_t num_in, num_out;
  bool token;
  char *platforms; /* the module's, NUL-separated */
  size_t platforms_len;
  char *name;      /* the function's symbol, as the symbol table left it */
  MlirType *result_types;
  size_t num_results;
} cache_entry;

typedef struct lowering_cache {
  cache_entry *entries;
  size_t count, cap;
} lowering_cache;

static void cache_destroy(void *object) {
  lowering_cache *c = object;
  for (size_t i = 0; i < c->count; i++) {
    free(c->entries[i].avals);
    free(c->entries[i].platforms);
    free(c->entries[i].name);
    free(c->entries[i].result_types);
  }
  free(c->entries);
  free(c);
}

static lowering_cache *cache_of(lsim_module_context *mc) {
  lowering_cache *c = lsim_module_context_lowering_cache(mc);
  if (c)
    return c;
  c = lsim_calloc(1, sizeof *c);
  if (!c)
    return NULL;
  lsim_module_context_set_lowering_cache(mc, c, cache_destroy);
  return c;
}

/* The module's platforms, NUL-separated, into a malloc'd buffer. */
static char *join_platforms(const lsim_module_context *mc, size_t *len) {
  size_t n, total = 0;
  const char *const *platforms = lsim_module_context_platforms(mc, &n);
  for (size_t i = 0; i < n; i++)
    total += strlen(platforms[i]) + 1;
  char *out = lsim_malloc(total);
  if (!out)
    return NULL;
  size_t at = 0;
  for (size_t i = 0; i < n; i++) {
    size_t k = strlen(platforms[i]) + 1;
    memcpy(out + at, platforms[i], k);
    at += k;
  }
  *len = total;
  return out;
}

static bool same_text(const char *a, const char *b) {
  return a == b || (a && b && strcmp(a, b) == 0);
}

/* Two jaxprs of the scenario's functions (one lax op each, one Python
 * function per op) are the same jaxpr object in JAX exactly when they have
 * the same structure: its trace cache keys on the function and the avals. */
static bool same_jaxpr(const lsim_program *a, const lsim_program *b) {
  if (a == b)
    return true;
  if (a->num_args != b->num_args || a->num_eqns != b->num_eqns ||
      a->has_outputs != b->has_outputs || a->num_outputs != b->num_outputs)
    return false;
  for (size_t i = 0; i < a->num_args; i++)
    if (!lsim_aval_equal(&a->args[i], &b->args[i]))
      return false;
  for (size_t i = 0; i < a->num_eqns; i++) {
    const lsim_eqn *x = &a->eqns[i], *y = &b->eqns[i];
    if (x->primitive != y->primitive || x->params != y->params ||
        x->num_operands != y->num_operands || x->num_results != y->num_results ||
        !same_text(x->compute_type, y->compute_type) ||
        (x->num_operands && memcmp(x->operands, y->operands, x->num_operands * sizeof *x->operands)))
      return false;
    for (size_t j = 0; j < x->num_results; j++)
      if (!lsim_aval_equal(&x->results[j], &y->results[j]))
        return false;
  }
  return !a->num_outputs || memcmp(a->outputs, b->outputs, a->num_outputs * sizeof *a->outputs) == 0;
}

/* What a cached function's body is: the equation's rules through
 * lower_per_platform (inline=False), or a jaxpr lowered by jaxpr_subcomp in
 * the compute type it was traced in (lower_called_computation). */
typedef struct fun_body {
  const char *name; /* the function's name before the symbol table uniques it */
  const lsim_platform_rule *rules;
  size_t num_rules;
  const lsim_rule *default_rule;
  const lsim_registry *registry;
  const lsim_program *jaxpr; /* non-NULL: a called computation */
  const char *compute_type;
} fun_body;

static bool matches(const cache_entry *c, const lsim_lowering_rule_context *ctx,
                    const lsim_eqn *eqn, const fun_body *body, bool token, const char *platforms,
                    size_t len) {
  bool same = body->jaxpr ? c->jaxpr && same_jaxpr(c->jaxpr, body->jaxpr) &&
                                same_text(c->traced_in, body->compute_type)
                          : !c->jaxpr && c->params == eqn->params;
  if (!same || c->primitive != eqn->primitive || c->token != token ||
      !same_text(c->compute_type, ctx->compute_type) || c->num_in != ctx->num_avals_in ||
      c->num_out != ctx->num_avals_out || c->platforms_len != len ||
      memcmp(c->platforms, platforms, len) != 0)
    return false;
  for (size_t i = 0; i < c->num_in; i++)
    if (!lsim_aval_equal(&c->avals[i], &ctx->avals_in[i]))
      return false;
  for (size_t i = 0; i < c->num_out; i++)
    if (!lsim_aval_equal(&c->avals[c->num_in + i], &ctx->avals_out[i]))
      return false;
  return true;
}

/* The body of a called computation: its jaxpr, its equations in the
 * compute type it was traced in, the function's token passed through. */
static int emit_jaxpr_body(lsim_lowering_rule_context *sub, const fun_body *body,
                           const MlirValue *args, MlirValue *rets, lsim_error *err) {
  lsim_token_set tokens = {NULL, NULL, 0};
  lsim_subcomp_inputs in = {args, &tokens, sub->dim_var_values, sub->num_dim_var_values, NULL,
                            body->compute_type, NULL};
  return lsim_jaxpr_subcomp(sub->module_context, body->registry, body->jaxpr, &sub->ip, &in, rets,
                            err);
}

/* {jax.global_constant = "_platform_index"} on a called computation's
 * dim var (lower_jaxpr_to_fun's arg attributes), none on the others. */
static MlirAttribute *called_arg_attrs(MlirContext mlir, size_t nd, size_t n) {
  MlirAttribute *attrs = lsim_malloc_array(n + 1, sizeof *attrs);
  if (!attrs)
    return NULL;
  for (size_t i = 0; i < n; i++) {
    MlirNamedAttribute g = lsim_named(mlir, "jax.global_constant",
                                      lsim_string_attr(mlir, "_platform_index"));
    attrs[i] = mlirDictionaryAttrGet(mlir, i < nd ? 1 : 0, &g);
  }
  return attrs;
}

/* _cached_lowering_miss with inline=False (the private function and its
 * body, the rule lowered in it through lower_per_platform), or
 * _lower_jaxpr_to_fun_cached (the jaxpr lowered in it). */
static int emit_function(lsim_lowering_rule_context *ctx, const lsim_eqn *eqn,
                         cache_entry *entry, const fun_body *fb, lsim_error *err) {
  lsim_module_context *mc = ctx->module_context;
  MlirContext mlir = ctx->ip.context;
  size_t nd = ctx->num_dim_var_values, nt = entry->token ? 1 : 0, ni = ctx->num_avals_in,
         no = ctx->num_avals_out;
  MlirType *in = lsim_malloc_array(nd + nt + ni + 1, sizeof *in);
  MlirType *out = lsim_malloc_array(nt + no + 1, sizeof *out);
  MlirValue *rets = lsim_malloc_array(nt + no + 1, sizeof *rets);
  int rc = in && out && rets ? LSIM_OK : lsimp_fail_oom(err);
  for (size_t i = 0; !rc && i < nd; i++)
    in[i] = mlirValueGetType(ctx->dim_var_values[i]);
  if (!rc && nt)
    in[nd] = out[0] = lsim_token_type(mlir);
  for (size_t i = 0; !rc && i < ni; i++)
    in[nd + nt + i] = lsim_module_context_aval_to_ir_type(mc, &ctx->avals_in[i]);
  for (size_t i = 0; !rc && i < no; i++)
    out[nt + i] = lsim_module_context_aval_to_ir_type(mc, &ctx->avals_out[i]);
  MlirOperation func;
  MlirBlock body;
  lsim_insertion_point module_ip = lsim_module_context_insertion_point(mc);
  module_ip.location = ctx->ip.location;
  MlirAttribute *arg_attrs = !rc && fb->jaxpr ? called_arg_attrs(mlir, nd, nd + nt + ni) : NULL;
  if (!rc && fb->jaxpr && !arg_attrs)
    rc = lsimp_fail_oom(err);
  lsim_func f = {.name = fb->name, .visibility = "private", .inputs = in,
                 .num_inputs = nd + nt + ni, .results = out, .num_results = nt + no,
                 .arg_attrs = nd ? arg_attrs : NULL};
  if (!rc)
    rc = lsim_emit_func(&module_ip, &f, &func, &body, err);
  free(arg_attrs);
  if (!rc) {
    MlirStringRef s;
    rc = lsim_module_context_insert_symbol(mc, func, &s, err);
    entry->name = rc ? NULL : lsim_malloc(s.length + 1);
    if (!rc && !entry->name)
      rc = lsimp_fail_oom(err);
    else if (!rc) {
      memcpy(entry->name, s.data, s.length);
      entry->name[s.length] = '\0';
    }
  }
  MlirValue *block_args = lsim_malloc_array(nd + nt + ni + 1, sizeof *block_args);
  if (!rc && !block_args)
    rc = lsimp_fail_oom(err);
  for (size_t i = 0; !rc && i < nd + nt + ni; i++)
    block_args[i] = mlirBlockGetArgument(body, (intptr_t)i);
  if (!rc) {
    lsim_lowering_rule_context sub = *ctx;
    sub.ip = (lsim_insertion_point){mlir, body, ctx->ip.location, ctx->ip.cache};
    sub.dim_var_values = block_args;
    sub.tokens_in = nt ? &block_args[nd] : NULL;
    sub.num_tokens_in = nt;
    MlirValue token_out = {NULL};
    sub.tokens_out = nt ? &token_out : NULL;
    sub.num_tokens_out = 0;
    rc = fb->jaxpr ? emit_jaxpr_body(&sub, fb, block_args + nd + nt, rets + nt, err)
                   : lsim_lower_per_platform(&sub, eqn->primitive->name, fb->rules, fb->num_rules,
                                             fb->default_rule, block_args + nd + nt, rets + nt,
                                             eqn->params, err);
    if (!rc) {
      if (nt)
        rets[0] = sub.num_tokens_out ? token_out : block_args[nd];
      rc = lsim_emit_op(&sub.ip, "func.return", rets, nt + no, NULL, 0, NULL, 0, 0, NULL, err);
    }
  }
  if (!rc) {
    entry->result_types = out;
    entry->num_results = nt + no;
    out = NULL;
  }
  free(in);
  free(out);
  free(rets);
  free(block_args);
  return rc;
}

/* The cached function of `fb` (made on a miss) and a func.call of it at
 * ctx->ip (*call_out, when not NULL). */
static int lower_cached(lsim_lowering_rule_context *ctx, const lsim_eqn *eqn, const fun_body *fb,
                        const MlirValue *args, MlirValue *results, MlirOperation *call_out,
                        lsim_error *err) {
  lsim_module_context *mc = ctx->module_context;
  lowering_cache *c = cache_of(mc);
  size_t len = 0;
  char *platforms = c ? join_platforms(mc, &len) : NULL;
  if (!platforms)
    return lsimp_fail_oom(err);
  bool token = ctx->num_tokens_in > 0;
  cache_entry *entry = NULL;
  for (size_t i = 0; !entry && i < c->count; i++)
    if (matches(&c->entries[i], ctx, eqn, fb, token, platforms, len))
      entry = &c->entries[i];
  int rc = LSIM_OK;
  /* A called computation is in cached_primitive_lowerings, a rule's
   * function in the lowering cache. */
  bool called = fb->jaxpr != NULL;
  lsim_module_context_explain_source(
      mc, called ? LSIM_JAX_SOURCE("jax/_src/interpreters/mlir.py", "_lower_jaxpr_to_fun_cached")
                 : LSIM_JAX_SOURCE("jax/_src/interpreters/mlir.py", "_emit_lowering_rule_as_fun"));
  if (entry)
    lsim_module_context_explain(mc, LSIM_EXPLAIN_DETAIL, 0, "%s: hit, func.call @%s",
                                called ? "cached_primitive_lowerings" : "lowering cache",
                                entry->name);
  else
    lsim_module_context_explain(mc, LSIM_EXPLAIN_DETAIL, 0,
                                "%s: miss, %s: a private func.func @%s and a func.call of it",
                                called ? "cached_primitive_lowerings" : "lowering cache",
                                called ? "the jaxpr lowered" : "the rule is not inlined", fb->name);
  if (!entry) {
    size_t ni = ctx->num_avals_in, no = ctx->num_avals_out;
    lsim_aval *avals = lsim_malloc_array(ni + no + 1, sizeof *avals);
    if (!avals || !lsim_grow_array(&c->entries, &c->cap, c->count + 1, sizeof *c->entries)) {
      free(avals);
      free(platforms);
      return lsimp_fail_oom(err);
    }
    for (size_t i = 0; i < ni; i++)
      avals[i] = ctx->avals_in[i];
    for (size_t i = 0; i < no; i++)
      avals[ni + i] = ctx->avals_out[i];
    cache_entry fresh = {eqn->primitive, ctx->compute_type, eqn->params, fb->jaxpr,
                         fb->compute_type, avals, ni, no, token, platforms, len, NULL, NULL, 0};
    platforms = NULL;
    rc = emit_function(ctx, eqn, &fresh, fb, err);
    if (rc) {
      free(fresh.avals);
      free(fresh.platforms);
      free(fresh.name);
      return rc;
    }
    c->entries[c->count] = fresh;
    entry = &c->entries[c->count++];
  }
  free(platforms);
  /* _emit_cached_call: dim vars, tokens, operands. */
  size_t nd = ctx->num_dim_var_values, nt = token ? 1 : 0;
  MlirValue *operands = lsim_malloc_array(nd + nt + ctx->num_avals_in + 1, sizeof *operands);
  MlirValue *outs = lsim_malloc_array(entry->num_results + 1, sizeof *outs);
  if (!operands || !outs)
    rc = lsimp_fail_oom(err);
  for (size_t i = 0; !rc && i < nd; i++)
    operands[i] = ctx->dim_var_values[i];
  if (!rc && nt)
    operands[nd] = ctx->tokens_in[0];
  for (size_t i = 0; !rc && i < ctx->num_avals_in; i++)
    operands[nd + nt + i] = args[i];
  MlirOperation call;
  MlirContext mlir = ctx->ip.context;
  MlirNamedAttribute callee = lsim_named(
      mlir, "callee", mlirFlatSymbolRefAttrGet(mlir, mlirStringRefCreateFromCString(entry->name)));
  if (!rc)
    rc = lsim_emit_op(&ctx->ip, "func.call", operands, nd + nt + ctx->num_avals_in,
                      entry->result_types, entry->num_results, &callee, 1, 0, &call, err);
  for (size_t i = 0; !rc && i < ctx->num_avals_out; i++)
    results[i] = mlirOperationGetResult(call, (intptr_t)(nt + i));
  if (!rc && nt && ctx->tokens_out) {
    ctx->tokens_out[0] = mlirOperationGetResult(call, 0);
    ctx->num_tokens_out = 1;
  }
  if (!rc && call_out)
    *call_out = call;
  free(operands);
  free(outs);
  return rc;
}

int lsimp_lower_as_function(lsim_lowering_rule_context *ctx, const lsim_eqn *eqn,
                            const lsim_platform_rule *rules, size_t num_rules,
                            const lsim_rule *default_rule, const MlirValue *args,
                            MlirValue *results, lsim_error *err) {
  fun_body fb = {.name = eqn->primitive->name, .rules = rules, .num_rules = num_rules,
                 .default_rule = default_rule};
  return lower_cached(ctx, eqn, &fb, args, results, NULL, err);
}

int lsimp_lower_called_computation(lsim_lowering_rule_context *ctx, const lsim_eqn *eqn,
                                   const char *fn_name, const lsim_registry *reg,
                                   const lsim_program *jaxpr, const char *compute_type,
                                   const MlirValue *args, MlirValue *results,
                                   MlirOperation *call, lsim_error *err) {
  fun_body fb = {.name = fn_name, .registry = reg, .jaxpr = jaxpr, .compute_type = compute_type};
  return lower_cached(ctx, eqn, &fb, args, results, call, err);
}
