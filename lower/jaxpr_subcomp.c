/* lower/jaxpr_subcomp.c: a program's equations lowered into a block.
 * JAX counterpart: mlir.py jaxpr_subcomp (for the straight-line programs
 * lowersim describes): per equation, _get_lowering_rules, a
 * LoweringRuleContext and lower_per_platform; tokens threaded through the
 * equations with ordered effects; a rule registered with inline=False
 * through the lowering cache (lowering_cache.c); the equation's compute
 * type (_platforms_for_eqn_ctx, wrap_compute_type_in_place). */
#include "lowersim/alloc.h"
#include "lowersim/jaxpr_subcomp.h"
#include "lowering_cache.h"
#include "lowersim/lower_per_platform.h"
#include "support/raise.h"
#include "support/strbuf.h"

#include <stdlib.h>
#include <string.h>

/* What one jaxpr_subcomp call works on. */
typedef struct subcomp {
  lsim_module_context *mc;
  const lsim_registry *reg;
  const lsim_insertion_point *ip;
  const lsim_subcomp_inputs *in;
  lsim_aval *avals;  /* per value */
  MlirValue *values; /* per value */
  size_t num_args;   /* the values that are the jaxpr's arguments */
  /* Per value, under an abstract device: its aval carries the abstract
   * mesh (a result of an equation whose primitive gives it; not an
   * argument); NULL without one. */
  bool *mesh_values;
} subcomp;

/* `equation 0: pallas_call[kernel=add_one grid=4](f32[8]) -> (f32[8])`, as
 * a jaxpr prints an equation. */
static void narrate_eqn(const subcomp *sc, size_t index, const lsim_eqn *e) {
  if (!lsim_module_context_explaining(sc->mc))
    return;
  lsimp_strbuf line = LSIMP_STRBUF_INIT;
  lsimp_strbuf_printf(&line, "equation %zu: %s", index, e->primitive->name);
  char text[LSIM_AVAL_TEXT_MAX > 256 ? LSIM_AVAL_TEXT_MAX : 256];
  if (e->primitive->explain_params && e->params) {
    e->primitive->explain_params(e->params, text, sizeof text);
    lsimp_strbuf_printf(&line, "[%s]", text);
  }
  lsimp_strbuf_putc(&line, '(');
  for (size_t i = 0; i < e->num_operands; i++)
    lsimp_strbuf_printf(&line, "%s%s", i ? ", " : "",
                        lsim_aval_format(&sc->avals[e->operands[i]], text, sizeof text));
  lsimp_strbuf_puts(&line, ") -> (");
  for (size_t i = 0; i < e->num_results; i++)
    lsimp_strbuf_printf(&line, "%s%s", i ? ", " : "",
                        lsim_aval_format(&e->results[i], text, sizeof text));
  if (e->ordered_effect)
    lsimp_strbuf_printf(&line, ")  [ordered effect %s: threads its token]",
                        lsim_effect_kind_name(lsim_eqn_effect_kind(e)));
  else
    lsimp_strbuf_putc(&line, ')');
  lsim_module_context_explain_source(sc->mc, LSIM_JAX_SOURCE("jax/_src/interpreters/mlir.py", "jaxpr_subcomp"));
  lsim_module_context_explain(sc->mc, LSIM_EXPLAIN_STEP, +1, "%s", lsimp_strbuf_cstr(&line));
  lsimp_strbuf_free(&line);
}

/* Whether result `r` of `e` carries the abstract mesh: its primitive's
 * results do unless they are made outside it, and a result that is an
 * operand's aval carries the mesh that operand does. */
static bool result_in_mesh(const subcomp *sc, const lsim_eqn *e, size_t r) {
  const lsim_primitive *p = e->primitive;
  long k = p->result_aval_operand && e->params ? p->result_aval_operand(e->params, r) : -1;
  if (k >= 0 && (size_t)k < e->num_operands)
    return sc->mesh_values[e->operands[k]];
  return !p->results_outside_mesh;
}

static void narrate_lookup(const subcomp *sc, const lsim_platform_rule *rules, size_t n,
                           const lsim_rule *default_rule) {
  if (!lsim_module_context_explaining(sc->mc))
    return;
  lsimp_strbuf line = LSIMP_STRBUF_INIT;
  lsimp_strbuf_puts(&line, n ? "rule lookup: platform rules for " : "rule lookup: no platform rules");
  for (size_t i = 0; i < n; i++)
    lsimp_strbuf_printf(&line, "%s%s", i ? ", " : "", rules[i].platform);
  lsimp_strbuf_puts(&line, default_rule ? "; a default rule" : "; no default rule");
  lsim_module_context_explain(sc->mc, LSIM_EXPLAIN_DETAIL, 0, "%s", lsimp_strbuf_cstr(&line));
  lsimp_strbuf_free(&line);
}

/* The token of `e`'s ordered effect in the token set (NULL: it has none, or
 * the set does not thread its kind). */
static MlirValue *token_of(const subcomp *sc, const lsim_eqn *e) {
  const lsim_token_set *tokens = sc->in->tokens;
  if (!e->ordered_effect || !tokens)
    return NULL;
  lsim_effect_kind kind = lsim_eqn_effect_kind(e);
  for (size_t i = 0; i < tokens->count; i++)
    if (lsim_effect_kind_equal(tokens->kinds[i], kind))
      return &tokens->tokens[i];
  return NULL;
}

/* `e`'s compute type: its own, else the one its jaxpr was traced in. */
static const char *eqn_compute_type(const subcomp *sc, const lsim_eqn *e) {
  return e->compute_type ? e->compute_type : sc->in->compute_type;
}

/* The rule context of equation `e`, its operands' avals in `avals_in`. */
static lsim_lowering_rule_context rule_context(const subcomp *sc, const lsim_eqn *e,
                                               const lsim_aval *avals_in, MlirValue *token_out) {
  lsim_lowering_rule_context ctx = lsim_lowering_rule_context_make(sc->mc, e->primitive, *sc->ip);
  ctx.uncached = !lsim_registry_is_cacheable(sc->reg, e->primitive);
  ctx.avals_in = avals_in;
  ctx.num_avals_in = e->num_operands;
  ctx.avals_out = e->results;
  ctx.num_avals_out = e->num_results;
  ctx.dim_var_values = sc->in->dim_var_values;
  ctx.num_dim_var_values = sc->in->num_dim_var_values;
  ctx.compute_type = eqn_compute_type(sc, e);
  MlirValue *token = token_of(sc, e);
  if (token) {
    ctx.tokens_in = token;
    ctx.num_tokens_in = 1;
    ctx.tokens_out = token_out;
  }
  return ctx;
}

/* NameLoc("jit(f)/<primitive>") around the insertion point's location. */
static MlirLocation name_location(const subcomp *sc, const lsim_eqn *e) {
  lsimp_strbuf name = LSIMP_STRBUF_INIT;
  lsimp_strbuf_puts(&name, sc->in->name_stack); /* "%s/%s", without printf's two passes */
  lsimp_strbuf_putc(&name, '/');
  lsimp_strbuf_puts(&name, e->primitive->name);
  MlirLocation loc = lsimp_strbuf_failed(&name)
                         ? sc->ip->location
                         : mlirLocationNameGet(sc->ip->context,
                                               mlirStringRefCreateFromCString(
                                                   lsimp_strbuf_cstr(&name)),
                                               sc->ip->location);
  lsimp_strbuf_free(&name);
  return loc;
}

/* _platforms_for_eqn_ctx: device_host lowers for ('cpu',), tpu_sparsecore
 * for ('tpu',); NULL: no override. */
static const char *const *compute_type_platforms(const char *compute_type) {
  static const char *const cpu[] = {"cpu"}, *const tpu[] = {"tpu"};
  if (!compute_type)
    return NULL;
  if (strcmp(compute_type, "device_host") == 0)
    return cpu;
  if (strcmp(compute_type, "tpu_sparsecore") == 0)
    return tpu;
  return NULL;
}

static int lower_eqn(subcomp *sc, size_t index, const lsim_eqn *e, size_t first_result,
                     lsim_error *err) {
  size_t n;
  const char *const *platforms = lsim_module_context_platforms(sc->mc, &n);
  const char *compute_type = eqn_compute_type(sc, e);
  const char *const *override = compute_type_platforms(compute_type);
  if (override) {
    platforms = override;
    n = 1;
  }
  size_t m = e->num_operands ? e->num_operands : 1;
  lsim_platform_rule *rules = lsim_malloc_array(n, sizeof *rules);
  lsim_aval *avals_in = lsim_malloc_array(m, sizeof *avals_in);
  MlirValue *args = lsim_malloc_array(m, sizeof *args);
  bool *in_mesh = lsim_malloc_array(m, sizeof *in_mesh);
  int rc = rules && avals_in && args && in_mesh ? LSIM_OK : lsimp_fail_oom(err);
  bool abstract = lsim_module_context_abstract_device(sc->mc) != NULL;
  for (size_t i = 0; !rc && i < e->num_operands; i++) {
    avals_in[i] = sc->avals[e->operands[i]];
    args[i] = sc->values[e->operands[i]];
    in_mesh[i] = abstract && sc->mesh_values && sc->mesh_values[e->operands[i]];
  }
  narrate_eqn(sc, index, e);
  if (!rc) {
    size_t num_rules = 0;
    const lsim_rule *default_rule;
    /* The module's platforms through its index; a compute type's own one
     * directly. */
    if (override)
      lsim_get_lowering_rules(sc->reg, e->primitive, platforms, n, rules, &num_rules,
                              &default_rule);
    else
      lsim_get_lowering_rules_in(sc->reg, e->primitive, sc->mc, rules, &num_rules, &default_rule);
    narrate_lookup(sc, rules, num_rules, default_rule);
    MlirValue token_out = {NULL};
    lsim_lowering_rule_context ctx = rule_context(sc, e, avals_in, &token_out);
    if (sc->in->name_stack)
      ctx.ip.location = name_location(sc, e);
    ctx.in_abstract_mesh = in_mesh;
    if (override) {
      ctx.platforms = override;
      ctx.num_platforms = 1;
      lsim_module_context_explain(sc->mc, LSIM_EXPLAIN_DETAIL, 0,
                                  "compute_type %s: lowered for ('%s',)", compute_type,
                                  override[0]);
    }
    MlirValue *outs = sc->values + first_result;
    if (!ctx.uncached && !lsim_lowering_rules_inline(sc->reg, e->primitive, platforms, n)) {
      rc = lsimp_lower_as_function(&ctx, e, rules, num_rules, default_rule, args, outs, err);
    } else {
      rc = lsim_lower_per_platform(&ctx, e->primitive->name, rules, num_rules, default_rule,
                                   args, outs, e->params, err);
    }
    if (!rc && ctx.num_tokens_out)
      *token_of(sc, e) = token_out;
  }
  lsim_module_context_explain_nest(sc->mc, -1);
  free(rules);
  free(avals_in);
  free(args);
  free(in_mesh);
  return rc;
}

/* The dead values of each equation, for the observer: the indices of the
 * values whose last reader (or maker, when nothing reads them) is
 * equation i are order[start[i] .. start[i + 1]). */
typedef struct liveness {
  size_t *start; /* per equation, and one past the last */
  size_t *order;
  MlirValue *dead; /* scratch: one equation's dead values */
} liveness;

static void liveness_free(liveness *l) {
  free(l->start);
  free(l->order);
  free(l->dead);
}

static int liveness_make(const lsim_program *jaxpr, size_t num_values, liveness *l,
                         lsim_error *err) {
  const size_t kept = (size_t)-1; /* returned: never dead */
  size_t *last = lsim_malloc_array(num_values + 1, sizeof *last);
  l->start = lsim_calloc(jaxpr->num_eqns + 2, sizeof *l->start);
  l->order = lsim_malloc_array(num_values + 1, sizeof *l->order);
  l->dead = lsim_malloc_array(num_values + 1, sizeof *l->dead);
  if (!last || !l->start || !l->order || !l->dead) {
    free(last);
    return lsimp_fail_oom(err);
  }
  size_t v = jaxpr->num_args;
  for (size_t i = 0; i < jaxpr->num_eqns; i++) {
    const lsim_eqn *e = &jaxpr->eqns[i];
    for (size_t k = 0; k < e->num_operands; k++)
      last[e->operands[k]] = i;
    for (size_t r = 0; r < e->num_results; r++)
      last[v++] = i;
  }
  for (size_t i = 0; i < lsim_program_num_outputs(jaxpr); i++)
    last[lsim_program_output(jaxpr, num_values, i)] = kept;
  /* A counting sort of the values by the equation they die at. */
  for (v = jaxpr->num_args; v < num_values; v++)
    if (last[v] != kept)
      l->start[last[v] + 1]++;
  for (size_t i = 0; i < jaxpr->num_eqns; i++)
    l->start[i + 1] += l->start[i];
  size_t *fill = last; /* reused: each value's slot, then the next free slot per equation */
  for (v = jaxpr->num_args; v < num_values; v++)
    fill[v] = last[v] == kept ? kept : l->start[last[v]]++;
  for (size_t i = jaxpr->num_eqns; i > 0; i--)
    l->start[i] = l->start[i - 1];
  l->start[0] = 0;
  for (v = jaxpr->num_args; v < num_values; v++)
    if (fill[v] != kept)
      l->order[fill[v]] = v;
  free(last);
  return LSIM_OK;
}

/* Tells the observer what equation `i` made and what died with it. */
static int observe(const subcomp *sc, const liveness *l, size_t i, size_t first_result,
                   size_t num_results, lsim_error *err) {
  const lsim_subcomp_observer *o = sc->in->observer;
  size_t n = 0;
  for (size_t k = l->start[i]; k < l->start[i + 1]; k++)
    l->dead[n++] = sc->values[l->order[k]];
  return o->after_eqn(o->data, sc->values + first_result, num_results, l->dead, n, err);
}

int lsim_jaxpr_subcomp(lsim_module_context *mc, const lsim_registry *reg,
                       const lsim_program *jaxpr, const lsim_insertion_point *ip,
                       const lsim_subcomp_inputs *in, MlirValue *outs, lsim_error *err) {
  size_t num_values = lsim_program_num_values(jaxpr);
  subcomp sc = {mc, reg, ip, in, lsim_malloc_array(num_values + 1, sizeof(lsim_aval)),
                lsim_malloc_array(num_values + 1, sizeof(MlirValue)), jaxpr->num_args, NULL};
  int rc = sc.avals && sc.values ? LSIM_OK : lsimp_fail_oom(err);
  if (!rc) {
    lsim_program_value_avals(jaxpr, sc.avals);
    for (size_t i = 0; i < jaxpr->num_args; i++)
      sc.values[i] = in->args[i];
  }
  if (!rc && lsim_module_context_abstract_device(mc)) {
    sc.mesh_values = lsim_calloc(num_values + 1, sizeof *sc.mesh_values);
    if (!sc.mesh_values)
      rc = lsimp_fail_oom(err);
  }
  liveness live = {0};
  if (!rc && in->observer)
    rc = liveness_make(jaxpr, num_values, &live, err);
  size_t next = jaxpr->num_args;
  for (size_t i = 0; !rc && i < jaxpr->num_eqns; i++) {
    rc = lower_eqn(&sc, i, &jaxpr->eqns[i], next, err);
    for (size_t r = 0; sc.mesh_values && r < jaxpr->eqns[i].num_results; r++)
      sc.mesh_values[next + r] = result_in_mesh(&sc, &jaxpr->eqns[i], r);
    if (!rc && in->observer)
      rc = observe(&sc, &live, i, next, jaxpr->eqns[i].num_results, err);
    next += jaxpr->eqns[i].num_results;
  }
  liveness_free(&live);
  for (size_t i = 0; !rc && i < lsim_program_num_outputs(jaxpr); i++)
    outs[i] = sc.values[lsim_program_output(jaxpr, num_values, i)];
  free(sc.avals);
  free(sc.values);
  free(sc.mesh_values);
  return rc;
}
