/* scenario/kinds/call_exported_kind.c: <call_exported lowering="K"
 * args="...">: exp.call(*args), exp being what the session's K-th lowering
 * (an earlier <lower export="true">) exported: jax.export.export(jax.jit(f),
 * platforms=..., disabled_checks=...)(*arg_specs).  The results are the
 * exported function's (Exported.out_avals), implied. */
#include "kinds.h"
#include "lowersim/export.h"
#include "lowersim/scenario_run.h"

#include <stdlib.h>
#include <string.h>

/* The K-th lowering of the session `head` (1-based); NULL when none. */
static const lsim_scenario *lowering_at(const lsim_scenario *head, long long k) {
  for (const lsim_scenario *s = head; s; s = s->next)
    if (s->step == k)
      return s;
  return NULL;
}

/* How many values a lowering returns: <return>'s, else the last
 * equation's results (what the program's function returns). */
static size_t num_outputs(const lsim_scenario *s) {
  if (s->has_return)
    return s->num_returns;
  return s->num_eqns ? s->eqns[s->num_eqns - 1].num_results : 0;
}

/* The aval of output `i` of `s`: the last equation's result is read
 * directly (lsim_scenario_value_aval walks the equations, so a session
 * calling a long export many times would be quadratic); a <return>'s
 * value is looked up. */
static void output_aval(const lsim_scenario *s, size_t i, lsim_aval *aval) {
  if (!s->has_return) {
    *aval = s->eqns[s->num_eqns - 1].results[i];
    return;
  }
  lsim_scenario_value_aval(s, s->returns[i], aval);
}

static int read_eqn(lsimp_reader *r, const xmlNode *node, lsim_scenario_eqn *e) {
  lsimp_call_exported_params *p = e->params;
  long long k = 0;
  int rc = lsimp_attr_int(r, node, "lowering", 1, LSIM_SCENARIO_MAX_LOWERINGS, 0, &k, NULL);
  if (rc)
    return rc;
  const lsim_scenario *x = lowering_at(r->head, k);
  if (!k || !x || x == r->s)
    return lsimp_read_fail(r, node,
                           "<call_exported> lowering=\"%lld\" must name an earlier <lower> of the "
                           "session (1 for the first)",
                           k);
  if (!x->for_export)
    return lsimp_read_fail(r, node,
                           "<call_exported> lowering=\"%lld\": that <lower> is not an export "
                           "(export=\"true\")",
                           k);
  p->lowering = (int)k;
  size_t n = num_outputs(x);
  e->results = lsimp_read_alloc(r, n, sizeof *e->results, &rc);
  for (size_t i = 0; !rc && i < n; i++)
    output_aval(x, i, &e->results[i]);
  e->num_results = rc ? 0 : n;
  return rc;
}

static void write_eqn(lsimp_writer *wr, const lsim_scenario_eqn *e) {
  lsimp_write_int(wr, "lowering", ((const lsimp_call_exported_params *)e->params)->lowering);
  lsimp_write_indices(wr, "args", e->args, e->num_args);
}

static bool disables_platform(const char *checks) {
  for (const char *c = checks; c && *c;) {
    size_t len = strcspn(c, ",");
    if (len == strlen("platform") && strncmp(c, "platform", len) == 0)
      return true;
    c += len + (c[len] == ',');
  }
  return false;
}

/* The Exported of lowering K: its function's name, the platforms it was
 * lowered for, its platform check, its module and argument avals. */
static int build_eqn(lsimp_builder *b, const lsim_scenario_eqn *e, lsim_eqn *out) {
  int k = ((const lsimp_call_exported_params *)e->params)->lowering;
  const lsim_scenario *x = lowering_at(b->head, k);
  const lsim_lowering *lowering =
      x && (size_t)k <= b->num_earlier ? b->earlier[k - 1].lowering : NULL;
  if (!x || !lowering)
    return lsim_error_set(b->err, LSIM_E_INVALID_INPUT,
                          "%s:%d: <call_exported lowering=\"%d\">: that lowering failed, so "
                          "there is no Exported to call",
                          b->s->path ? b->s->path : "<scenario>", e->line, k);
  lsim_exported *exp = lsimp_build_alloc(b, 1, sizeof *exp);
  lsim_call_exported_params *params = lsimp_build_alloc(b, 1, sizeof *params);
  lsim_aval *in = lsimp_build_alloc(b, x->num_args, sizeof *in);
  if (!exp || !params || !in)
    return LSIM_E_NO_MEMORY;
  for (size_t i = 0; i < x->num_args; i++)
    in[i] = x->args[i].aval;
  exp->fun_name = x->function;
  exp->platforms =
      lsim_module_context_platforms(lsim_lowering_module_context(lowering), &exp->num_platforms);
  exp->platform_check_disabled = disables_platform(x->disabled_checks);
  exp->lowering = lowering;
  exp->in_avals = in;
  exp->num_in_avals = x->num_args;
  params->exported = exp;
  lsim_call_exported_bind(out, params);
  return LSIM_OK;
}

static bool copy_params(void *to, const void *from) {
  *(lsimp_call_exported_params *)to = *(const lsimp_call_exported_params *)from;
  return true;
}

static void clear_params(void *params) { (void)params; }

/* An earlier lowering of the session that is an export (1-based), or 0:
 * the `pick`-th such one when pick < their number, else their number. */
static size_t export_at(const lsim_scenario_gen *g, size_t pick, size_t *count) {
  size_t n = 0, found = 0, k = 1;
  for (const lsim_scenario *x = g->session; x && k <= g->num_earlier; x = x->next, k++) {
    if (!x->for_export)
      continue;
    if (n++ == pick)
      found = k;
  }
  *count = n;
  return found;
}

static bool can_generate(lsim_scenario_gen *g) {
  size_t n;
  export_at(g, 0, &n);
  return n > 0;
}

/* exp.call(*args) of an earlier export: mostly args of the export's avals
 * (a value of this lowering with the aval, when there is one), now and
 * then any value, for _call_exported_abstract_eval's checks. */
static void generate_eqn(lsim_scenario_gen *g, lsim_scenario_eqn *e) {
  lsimp_call_exported_params *p = e->params;
  size_t n;
  export_at(g, 0, &n);
  size_t k = export_at(g, (size_t)lsim_scenario_gen_below(g, n), &n);
  const lsim_scenario *x = lowering_at(g->session, (long long)k);
  if (!x)
    return;
  p->lowering = (int)k;
  e->args = lsim_scenario_gen_alloc(g, x->num_args, sizeof *e->args);
  for (size_t i = 0; e->args && i < x->num_args && g->num_values; i++) {
    size_t at = (size_t)lsim_scenario_gen_below(g, g->num_values);
    for (size_t j = 0; j < g->num_values && !lsim_scenario_gen_chance(g, 10); j++)
      if (lsim_aval_equal(&g->values[j], &x->args[i].aval)) {
        at = j;
        break;
      }
    e->args[e->num_args++] = at;
  }
  size_t m = num_outputs(x);
  e->results = lsim_scenario_gen_alloc(g, m, sizeof *e->results);
  for (size_t i = 0; e->results && i < m; i++)
    output_aval(x, i, &e->results[e->num_results++]);
}

/* The session's K-th lowering's Exported.call on the operands. */
static void python_eqn(lsimp_python *py, const lsim_scenario_eqn *e) {
  lsimp_strbuf_printf(&py->body, "  v += results(exports[%d](",
                      ((const lsimp_call_exported_params *)e->params)->lowering);
  lsimp_python_operands(py, e);
  lsimp_strbuf_puts(&py->body, "))\n");
}

const lsim_scenario_kind lsimp_call_exported_kind = {
    .element = "call_exported",
    .summary = "exp.call(*args), exp the export of an earlier lowering of the session",
    .primitive = &lsim_call_exported_p,
    .params_size = sizeof(lsimp_call_exported_params),
    .weight = 6, /* only where an earlier lowering of the session is an export */
    .read = read_eqn,
    .write = write_eqn,
    .build = build_eqn,
    .copy = copy_params,
    .clear = clear_params,
    .can_generate = can_generate,
    .generate = generate_eqn,
    .python = python_eqn,
};
