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
#include "support/name_index.h"
#include "support/raise.h"
#include "support/strbuf.h"

#include <mlir-c/BuiltinAttributes.h>

#include <stdlib.h>
#include <string.h>

typedef struct cache_entry {
  char *key;  /* LoweringCacheKey as text (cache_key): the index's name */
  char *name; /* the function's symbol, as the symbol table left it */
  MlirType *result_types;
  size_t num_results;
} cache_entry;

/* The entries, and their keys -> their indices: a lookup costs the key's
 * length, not the number of entries (n distinct not-inlined equations were
 * n^2 comparisons). */
typedef struct lowering_cache {
  cache_entry *entries;
  size_t count, cap;
  lsimp_name_index index;
} lowering_cache;

static void cache_destroy(void *object) {
  lowering_cache *c = object;
  for (size_t i = 0; i < c->count; i++) {
    free(c->entries[i].name);
    free(c->entries[i].result_types);
    free(c->entries[i].key);
  }
  lsimp_name_index_free(&c->index);
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

/* A text of the key, NULL as "-" and others length-prefixed. */
static void key_text(lsimp_strbuf *k, const char *s) {
  if (s)
    lsimp_strbuf_printf(k, "%zu:%s", strlen(s), s);
  else
    lsimp_strbuf_putc(k, '-');
}

static void key_avals(lsimp_strbuf *k, const lsim_aval *a, size_t n) {
  lsimp_strbuf_printf(k, "[%zu", n);
  for (size_t i = 0; i < n; i++) {
    lsimp_strbuf_printf(k, " %d/%d/%d", (int)a[i].dtype, (int)a[i].memory_space, a[i].rank);
    for (int d = 0; d < a[i].rank; d++)
      lsimp_strbuf_printf(k, ",%lld", (long long)a[i].dims[d]);
  }
  lsimp_strbuf_putc(k, ']');
}

static void key_indices(lsimp_strbuf *k, const size_t *v, size_t n) {
  lsimp_strbuf_printf(k, "(%zu", n);
  for (size_t i = 0; i < n; i++)
    lsimp_strbuf_printf(k, " %zu", v[i]);
  lsimp_strbuf_putc(k, ')');
}

/* Two jaxprs of the scenario's functions (one lax op each, one Python
 * function per op) are the same jaxpr object in JAX exactly when they have
 * the same structure: its trace cache keys on the function and the avals.
 * So the key holds the structure: args, each equation (primitive, params,
 * operands, compute type, results), the outputs. */
static void key_jaxpr(lsimp_strbuf *k, const lsim_program *j) {
  key_avals(k, j->args, j->num_args);
  lsimp_strbuf_printf(k, "{%zu", j->num_eqns);
  for (size_t i = 0; i < j->num_eqns; i++) {
    const lsim_eqn *e = &j->eqns[i];
    lsimp_strbuf_printf(k, " %p/%p", (const void *)e->primitive, e->params);
    key_indices(k, e->operands, e->num_operands);
    key_text(k, e->compute_type);
    key_avals(k, e->results, e->num_results);
  }
  lsimp_strbuf_printf(k, "}%d", j->has_outputs ? 1 : 0);
  key_indices(k, j->outputs, j->num_outputs);
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

/* LoweringCacheKey as text: the primitive, the body (the equation's params
 * by address, or the jaxpr's structure and the compute type it was traced
 * in), the token, the equation's compute type, the avals in and out, the
 * module's platforms.  NULL when out of memory. */
static char *cache_key(const lsim_lowering_rule_context *ctx, const lsim_eqn *eqn,
                       const fun_body *body, bool token, const lsim_module_context *mc) {
  lsimp_strbuf k = LSIMP_STRBUF_INIT;
  lsimp_strbuf_printf(&k, "%p", (const void *)eqn->primitive);
  if (body->jaxpr) {
    lsimp_strbuf_putc(&k, 'J');
    key_text(&k, body->compute_type);
    key_jaxpr(&k, body->jaxpr);
  } else {
    lsimp_strbuf_printf(&k, "E%p", eqn->params);
  }
  lsimp_strbuf_putc(&k, token ? 'T' : 't');
  key_text(&k, ctx->compute_type);
  key_avals(&k, ctx->avals_in, ctx->num_avals_in);
  key_avals(&k, ctx->avals_out, ctx->num_avals_out);
  size_t n;
  const char *const *platforms = lsim_module_context_platforms(mc, &n);
  lsimp_strbuf_printf(&k, "<%zu", n);
  for (size_t i = 0; i < n; i++)
    key_text(&k, platforms[i]);
  if (lsimp_strbuf_failed(&k)) {
    lsimp_strbuf_free(&k);
    return NULL;
  }
  return lsimp_strbuf_take(&k);
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
  size_t nd = ctx->num_dim_var_values, nt = ctx->num_tokens_in > 0 ? 1 : 0, ni = ctx->num_avals_in,
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
  bool token = ctx->num_tokens_in > 0;
  char *key = c ? cache_key(ctx, eqn, fb, token, mc) : NULL;
  if (!key)
    return lsimp_fail_oom(err);
  size_t at;
  cache_entry *entry = lsimp_name_index_find(&c->index, key, &at) ? &c->entries[at] : NULL;
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
  if (entry) {
    free(key);
  } else {
    if (!lsim_grow_array(&c->entries, &c->cap, c->count + 1, sizeof *c->entries) ||
        !lsimp_name_index_reserve(&c->index, 1)) {
      free(key);
      return lsimp_fail_oom(err);
    }
    cache_entry fresh = {key, NULL, NULL, 0};
    rc = emit_function(ctx, eqn, &fresh, fb, err);
    if (rc) {
      free(fresh.key);
      free(fresh.name);
      return rc;
    }
    at = c->count;
    c->entries[c->count++] = fresh;
    lsimp_name_index_add(&c->index, fresh.key, &at); /* room reserved: cannot fail */
    entry = &c->entries[c->count - 1];
  }
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
