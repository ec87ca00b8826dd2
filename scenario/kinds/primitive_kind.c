/* scenario/kinds/primitive_kind.c: <primitive name="my_op" args="0"
 * backend_access="none"> with <rule platform target inline>s and a <default
 * target inline> (inline="false": register_lowering(..., inline=False)): a
 * new primitive (core.Primitive(name); two elements with one name are one
 * primitive) with register_lowering rules that lower as
 * jax.ffi.ffi_lowering(target), after asking ModuleContext.get_backend as
 * backend_access says, or, with lower_fun="OP" in place of target, as
 * mlir.lower_fun of the lax op OP over the equation's operands. */
#include "kinds.h"

#include "lowersim/alloc.h"
#include "lowersim/jaxpr_subcomp.h"
#include "support/raise.h"

#include <stdlib.h>
#include <string.h>

/* mlir.py register_lowering's rule either ignores the backend or calls
 * ModuleContext.get_backend(optional=False / True). */
static const char *const backend_uses[LSIM_BACKEND_USE_COUNT] = {
    [LSIM_BACKEND_USE_NONE] = "none",
    [LSIM_BACKEND_USE_REQUIRED] = "required",
    [LSIM_BACKEND_USE_OPTIONAL] = "optional",
};

const char *lsimp_backend_use_name(lsim_backend_use use) {
  return (unsigned)use < LSIM_BACKEND_USE_COUNT ? backend_uses[use] : NULL;
}

bool lsimp_backend_use_from_name(const char *name, lsim_backend_use *out) {
  for (int i = 0; name && i < LSIM_BACKEND_USE_COUNT; i++) {
    if (strcmp(backend_uses[i], name) == 0) {
      *out = (lsim_backend_use)i;
      return true;
    }
  }
  return false;
}

/* A <rule platform target|lower_fun> or the <default target|lower_fun>:
 * one of target and lower_fun, the op fitting the equation's operands. */
static int read_rule(lsimp_reader *r, const xmlNode *node, void *item, const void *ctx) {
  const lsim_scenario_eqn *e = ctx;
  lsimp_rule *rule = item;
  rule->line = (int)lsimp_xml_line(node);
  int rc = LSIM_OK;
  if (lsimp_is_element(node, "rule")) {
    rc = lsimp_attr_required(r, node, "platform", &rule->platform);
    if (!rc)
      rc = lsimp_check_platform(r, node, "platform", rule->platform, rule->platform);
  }
  rule->has_lower_fun = xmlHasProp(node, (const xmlChar *)"lower_fun") != NULL;
  if (!rc && rule->has_lower_fun && xmlHasProp(node, (const xmlChar *)"target"))
    rc = lsimp_read_fail(r, node, "<%s> takes target= or lower_fun=, not both", node->name);
  if (!rc && rule->has_lower_fun) {
    rc = lsimp_read_op(r, node, "lower_fun", &rule->lower_fun);
    if (!rc)
      rc = lsimp_check_operands(r, node, "lower_fun", rule->lower_fun, e);
  } else if (!rc) {
    rc = lsimp_attr_required(r, node, "target", &rule->target);
  }
  bool inline_ = true;
  if (!rc)
    rc = lsimp_attr_bool(r, node, "inline", true, &inline_, NULL);
  rule->not_inline = !inline_;
  return rc;
}

/* A lower_fun rule returns its op's one result, of its first operand's aval:
 * the <primitive> must declare just that (JAX would lower a function whose
 * results differ from the primitive's into a module that does not verify,
 * whose message quotes Python source). */
static int check_lower_fun_results(lsimp_reader *r, const xmlNode *node,
                                   const lsim_scenario_eqn *e) {
  const lsimp_primitive_params *p = e->params;
  for (size_t i = 0; i < p->num_rules; i++) {
    if (!p->rules[i].has_lower_fun)
      continue;
    const lsim_aval *a = lsimp_value_aval(r, e->args[0]);
    /* (in any memory space: the primitive's abstract eval gives device
     * avals, and the op's are the operand's) */
    if (e->num_results != 1 || !lsim_aval_same_array(&e->results[0], a)) {
      char ta[LSIM_AVAL_TEXT_MAX];
      return lsimp_read_fail(r, node,
                             "<primitive> with lower_fun=\"%s\" must declare one <result> of %s, "
                             "what the op returns",
                             lsimp_op_name(p->rules[i].lower_fun), lsim_aval_format(a, ta, sizeof ta));
    }
  }
  return LSIM_OK;
}

static int read_eqn(lsimp_reader *r, const xmlNode *node, lsim_scenario_eqn *e) {
  lsimp_primitive_params *p = e->params;
  char *access;
  int rc = lsimp_attr_required(r, node, "name", &p->name);
  if (!rc)
    rc = lsimp_attr_string(r, node, "backend_access", &access);
  if (rc)
    return rc;
  if (access && !lsimp_backend_use_from_name(access, &p->backend_use))
    rc = lsimp_read_fail(r, node,
                         "<primitive> backend_access=\"%s\" is not none, required or optional",
                         access);
  free(access);
  if (rc)
    return rc;
  p->rules = lsimp_read_children(r, node, "rule", "default", sizeof *p->rules, read_rule, e,
                                 &p->num_rules, &rc);
  if (!rc)
    rc = lsimp_read_results(r, node, e);
  return rc ? rc : check_lower_fun_results(r, node, e);
}

/* A rule's target (or lower_fun) and inline. */
static void write_rule_body(lsimp_writer *wr, const lsimp_rule *rule) {
  if (rule->has_lower_fun)
    lsimp_write_attr_required(wr, "lower_fun", lsimp_op_name(rule->lower_fun));
  else
    lsimp_write_attr_required(wr, "target", rule->target);
  if (rule->not_inline)
    lsimp_write_bool(wr, "inline", false);
}

/* The schema wants <rule>s, then at most one <default> (platform NULL). */
static void write_eqn(lsimp_writer *wr, const lsim_scenario_eqn *e) {
  const lsimp_primitive_params *p = e->params;
  lsimp_write_attr_required(wr, "name", p->name);
  lsimp_write_indices(wr, "args", e->args, e->num_args);
  lsimp_write_attr_required(wr, "backend_access", lsimp_backend_use_name(p->backend_use));
  size_t defaults = 0;
  for (size_t i = 0; i < p->num_rules; i++) {
    if (!p->rules[i].platform) {
      defaults++;
      continue;
    }
    lsimp_write_start(wr, "rule");
    lsimp_write_attr(wr, "platform", p->rules[i].platform);
    write_rule_body(wr, &p->rules[i]);
    lsimp_write_end(wr);
  }
  for (size_t i = 0; i < p->num_rules; i++) {
    if (!p->rules[i].platform) {
      lsimp_write_start(wr, "default");
      write_rule_body(wr, &p->rules[i]);
      lsimp_write_end(wr);
    }
  }
  if (defaults > 1)
    lsimp_write_invalid(wr, "has more than one <default> rule", NULL);
  lsimp_write_results(wr, e);
}

/* lower_fun's function: its op over the rule's operands, traced (the op's
 * trace-time checks, e.g. lax's dtype rules) into a one-equation jaxpr. */
typedef struct lower_fun_op {
  lsim_lower_fun fun;
  lsimp_op op;
} lower_fun_op;

typedef struct traced_op {
  lsim_program jaxpr;
  lsim_eqn eqn;
  size_t operands[2];
} traced_op;

static int trace_op(void *data, const lsim_aval *avals_in, size_t num_in,
                    const lsim_program **jaxpr, lsim_error *err) {
  const lower_fun_op *f = data;
  const lsim_primitive *prim = lsimp_op_primitive(f->op);
  if ((size_t)lsimp_op_arity(f->op) != num_in || (num_in == 2 && !lsim_aval_equal(&avals_in[0], &avals_in[1])))
    return lsim_error_set(err, LSIM_E_INVALID_ARGUMENT,
                          "lower_fun=\"%s\" does not fit this equation's %zu operand%s (not modelled)",
                          lsimp_op_name(f->op), num_in, num_in == 1 ? "" : "s");
  if (prim->trace_check) {
    int rc = prim->trace_check(avals_in, num_in, avals_in, 1, NULL, NULL, err);
    if (rc)
      return rc;
  }
  traced_op *t = lsim_malloc(sizeof *t);
  if (!t)
    return lsimp_fail_oom(err);
  t->operands[0] = 0;
  t->operands[1] = 1;
  t->eqn = (lsim_eqn){.primitive = prim, .operands = t->operands, .num_operands = num_in,
                      .results = avals_in, .num_results = 1};
  t->jaxpr = (lsim_program){.function_name = prim->name, .args = avals_in, .num_args = num_in,
                            .eqns = &t->eqn, .num_eqns = 1};
  *jaxpr = &t->jaxpr;
  return LSIM_OK;
}

static void release_op(void *data, const lsim_program *jaxpr) {
  (void)data;
  free((void *)jaxpr); /* the traced_op it begins */
}

/* register_lowering(prim, rule, platform) per rule, in document order: the
 * rule is ffi_lowering(target) or lower_fun of the op. */
static int build_eqn(lsimp_builder *b, const lsim_scenario_eqn *e, lsim_eqn *out) {
  const lsimp_primitive_params *p = e->params;
  lsim_primitive *prim = lsimp_build_primitive(b, p->name);
  lsim_ffi_rule *rules = lsimp_build_alloc(b, p->num_rules, sizeof *rules);
  lower_fun_op *funs = lsimp_build_alloc(b, p->num_rules, sizeof *funs);
  if (!prim || !rules || !funs)
    return b->err ? b->err->code : LSIM_E_NO_MEMORY;
  out->primitive = prim;
  for (size_t i = 0; i < p->num_rules; i++) {
    lsim_rule rule;
    if (p->rules[i].has_lower_fun) {
      funs[i] = (lower_fun_op){{b->registry, trace_op, release_op, &funs[i]}, p->rules[i].lower_fun};
      rule = lsim_lower_fun_rule(&funs[i].fun);
    } else {
      rules[i] = (lsim_ffi_rule){p->rules[i].target, p->backend_use};
      rule = lsim_ffi_lowering(&rules[i]);
    }
    int rc = (p->rules[i].not_inline ? lsim_register_lowering_not_inline
                                     : lsim_register_lowering)(
        b->registry, prim, rule, p->rules[i].platform, b->err);
    if (rc)
      return lsimp_build_invalid(b, rc, p->rules[i].line);
  }
  return LSIM_OK;
}

static void clear_rule(lsimp_rule *rule) {
  free(rule->platform);
  free(rule->target);
}

static void clear_params(void *params) {
  lsimp_primitive_params *p = params;
  free(p->name);
  for (size_t i = 0; p->rules && i < p->num_rules; i++)
    clear_rule(&p->rules[i]);
  free(p->rules);
}

static bool copy_params(void *to, const void *from) {
  lsimp_primitive_params *d = to;
  const lsimp_primitive_params *s = from;
  *d = (lsimp_primitive_params){.backend_use = s->backend_use};
  bool ok = lsimp_copy_string(&d->name, s->name);
  d->rules = s->num_rules ? lsim_calloc(s->num_rules, sizeof *d->rules) : NULL;
  ok = ok && (d->rules || !s->num_rules);
  for (size_t i = 0; ok && i < s->num_rules; i++) {
    d->rules[d->num_rules].not_inline = s->rules[i].not_inline;
    d->rules[d->num_rules].has_lower_fun = s->rules[i].has_lower_fun;
    d->rules[d->num_rules].lower_fun = s->rules[i].lower_fun;
    d->rules[d->num_rules++].line = s->rules[i].line;
    ok = lsimp_copy_string(&d->rules[i].platform, s->rules[i].platform) &&
         lsimp_copy_string(&d->rules[i].target, s->rules[i].target);
  }
  return ok;
}

static const char *const primitive_names[] = {"my_op", "ffi_call", "scatter.x", "my_op2"};
/* A scenario's own primitive may be named like a built-in one. */
static const char *const builtin_primitive_names[] = {
    "sin",           "add",         "platform_dependent", "buffer_callback",
    "pure_callback", "io_callback", "debug_callback",     "pallas_call"};
static const char *const targets[] = {"my_cpu_kernel", "my_gpu_kernel", "generic_kernel", "t"};

#define COUNT(table) (sizeof(table) / sizeof(table)[0])

static void generate_eqn(lsim_scenario_gen *g, lsim_scenario_eqn *e) {
  lsimp_primitive_params *p = e->params;
  p->name = lsim_scenario_gen_chance(g, 8)
                ? lsim_scenario_gen_text(g, lsim_scenario_gen_pick(g, builtin_primitive_names,
                                                                   COUNT(builtin_primitive_names)))
                : lsim_scenario_gen_text(
                      g, lsim_scenario_gen_pick(g, primitive_names, COUNT(primitive_names)));
  p->backend_use = (lsim_backend_use)lsim_scenario_gen_below(g, 3);
  lsimp_gen_operands(g, e, 2);
  /* lower_fun rules need operands an op fits: one, or two of one aval. */
  bool fits = e->num_args == 1 ||
              (e->num_args == 2 && lsim_aval_equal(&g->values[e->args[0]], &g->values[e->args[1]]));
  bool lower_fun = fits && lsim_scenario_gen_chance(g, 20);
  size_t n = (size_t)lsim_scenario_gen_below(g, 4), with_default = lsim_scenario_gen_chance(g, 65);
  p->rules = lsim_scenario_gen_alloc(g, n + with_default, sizeof *p->rules);
  for (size_t i = 0; p->rules && i < n + with_default; i++) {
    lsimp_rule *r = &p->rules[p->num_rules++];
    if (i < n) {
      size_t from = lsim_scenario_gen_chance(g, 20) ? LSIM_SCENARIO_GEN_NUM_PLATFORMS : 6;
      r->platform =
          lsim_scenario_gen_text(g, lsim_scenario_gen_pick(g, lsim_scenario_gen_platforms, from));
    }
    if (lower_fun && lsim_scenario_gen_chance(g, 60)) {
      r->has_lower_fun = true;
      r->lower_fun = lsimp_gen_op(g, (int)e->num_args);
    } else {
      r->target = lsim_scenario_gen_text(g, lsim_scenario_gen_pick(g, targets, COUNT(targets)));
    }
    r->not_inline = lsim_scenario_gen_chance(g, 15);
  }
  bool any_lower_fun = false;
  for (size_t i = 0; i < p->num_rules; i++)
    any_lower_fun = any_lower_fun || p->rules[i].has_lower_fun;
  if (any_lower_fun) {
    /* what the op returns: its first operand's aval */
    e->results = lsim_scenario_gen_alloc(g, 1, sizeof *e->results);
    if (e->results) {
      e->results[0] = g->values[e->args[0]];
      e->results[0].memory_space = LSIM_MEMORY_DEVICE; /* the abstract eval's */
      e->num_results = 1;
    }
  } else {
    lsimp_gen_results(g, e, LSIM_SCENARIO_GEN_MAX_RESULTS);
  }
}

static size_t num_parts(const lsim_scenario_eqn *e) {
  return ((const lsimp_primitive_params *)e->params)->num_rules;
}

static bool drop_part(lsim_scenario_eqn *e, size_t i) {
  lsimp_primitive_params *p = e->params;
  clear_rule(&p->rules[i]);
  memmove(&p->rules[i], &p->rules[i + 1], (p->num_rules - i - 1) * sizeof *p->rules);
  p->num_rules--;
  return true;
}

/* Its rules registered before tracing (mlir.register_lowering, in document
 * order), then the bind with its results' avals. */
static void python_eqn(lsimp_python *py, const lsim_scenario_eqn *e) {
  const lsimp_primitive_params *p = e->params;
  for (size_t i = 0; i < p->num_rules; i++) {
    const lsimp_rule *r = &p->rules[i];
    lsimp_strbuf_puts(&py->defs, "mlir.register_lowering(primitive(");
    lsimp_py_str(&py->defs, p->name);
    lsimp_strbuf_puts(&py->defs, "), ");
    if (r->has_lower_fun) {
      lsimp_strbuf_puts(&py->defs, "mlir.lower_fun(lambda *args, result_avals: [");
      lsimp_python_op(&py->defs, r->lower_fun);
      lsimp_strbuf_puts(&py->defs, "(*args)], multiple_results=True)");
    } else {
      lsimp_strbuf_puts(&py->defs, "ffi_rule(");
      lsimp_py_str(&py->defs, r->target);
      lsimp_strbuf_printf(&py->defs, ", '%s')", lsimp_backend_use_name(p->backend_use));
    }
    lsimp_strbuf_puts(&py->defs, ", platform=");
    if (r->platform)
      lsimp_py_str(&py->defs, r->platform);
    else
      lsimp_strbuf_puts(&py->defs, "None");
    lsimp_strbuf_printf(&py->defs, ", inline=%s)\n", r->not_inline ? "False" : "True");
  }
  lsimp_strbuf_puts(&py->body, "  v += list(primitive(");
  lsimp_py_str(&py->body, p->name);
  lsimp_strbuf_puts(&py->body, ").bind(");
  lsimp_python_operands(py, e);
  lsimp_strbuf_puts(&py->body, e->num_args ? ", result_avals=(" : "result_avals=(");
  for (size_t i = 0; i < e->num_results; i++) {
    lsimp_strbuf_puts(&py->body, i ? ", core.ShapedArray(" : "core.ShapedArray(");
    lsimp_py_shape(&py->body, e->results[i].dims, e->results[i].rank);
    lsimp_strbuf_printf(&py->body, ", jnp.dtype('%s'))",
                        lsim_dtype_numpy_name(e->results[i].dtype));
  }
  lsimp_strbuf_puts(&py->body, e->num_results == 1 ? ",)))\n" : ")))\n");
}

const lsim_scenario_kind lsimp_primitive_kind = {
    .element = "primitive",
    .summary = "a primitive of its own (name=) with register_lowering rules (inline=)",
    .params_size = sizeof(lsimp_primitive_params),
    .weight = 15,
    .read = read_eqn,
    .write = write_eqn,
    .build = build_eqn,
    .copy = copy_params,
    .clear = clear_params,
    .generate = generate_eqn,
    .num_parts = num_parts,
    .drop_part = drop_part,
    .python = python_eqn,
};
