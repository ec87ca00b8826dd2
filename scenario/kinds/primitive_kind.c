/* scenario/kinds/primitive_kind.c: <primitive name="my_op" args="0"
 * backend_access="none"> with <rule platform target inline>s and a <default
 * target inline> (inline="false": register_lowering(..., inline=False)): a new primitive (core.Primitive(name); two elements with one name
 * are one primitive) with register_lowering rules that lower as
 * jax.ffi.ffi_lowering(target), after asking ModuleContext.get_backend as
 * backend_access says. */
#include "kinds.h"

#include "lowersim/alloc.h"

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

/* A <rule platform target> or the <default target>. */
static int read_rule(lsimp_reader *r, const xmlNode *node, void *item, const void *ctx) {
  (void)ctx;
  lsimp_rule *rule = item;
  rule->line = (int)lsimp_xml_line(node);
  int rc = LSIM_OK;
  if (lsimp_is_element(node, "rule")) {
    rc = lsimp_attr_required(r, node, "platform", &rule->platform);
    if (!rc)
      rc = lsimp_check_platform(r, node, "platform", rule->platform, rule->platform);
  }
  if (!rc)
    rc = lsimp_attr_required(r, node, "target", &rule->target);
  bool inline_ = true;
  if (!rc)
    rc = lsimp_attr_bool(r, node, "inline", true, &inline_, NULL);
  rule->not_inline = !inline_;
  return rc;
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
  p->rules = lsimp_read_children(r, node, "rule", "default", sizeof *p->rules, read_rule, NULL,
                                 &p->num_rules, &rc);
  return rc ? rc : lsimp_read_results(r, node, e);
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
    lsimp_write_attr_required(wr, "target", p->rules[i].target);
    if (p->rules[i].not_inline)
      lsimp_write_bool(wr, "inline", false);
    lsimp_write_end(wr);
  }
  for (size_t i = 0; i < p->num_rules; i++) {
    if (!p->rules[i].platform) {
      lsimp_write_start(wr, "default");
      lsimp_write_attr_required(wr, "target", p->rules[i].target);
      if (p->rules[i].not_inline)
        lsimp_write_bool(wr, "inline", false);
      lsimp_write_end(wr);
    }
  }
  if (defaults > 1)
    lsimp_write_invalid(wr, "has more than one <default> rule", NULL);
  lsimp_write_results(wr, e);
}

/* register_lowering(prim, ffi_lowering(target), platform) per rule, in
 * document order. */
static int build_eqn(lsimp_builder *b, const lsim_scenario_eqn *e, lsim_eqn *out) {
  const lsimp_primitive_params *p = e->params;
  lsim_primitive *prim = lsimp_build_primitive(b, p->name);
  lsim_ffi_rule *rules = lsimp_build_alloc(b, p->num_rules, sizeof *rules);
  if (!prim || !rules)
    return b->err ? b->err->code : LSIM_E_NO_MEMORY;
  out->primitive = prim;
  for (size_t i = 0; i < p->num_rules; i++) {
    rules[i] = (lsim_ffi_rule){p->rules[i].target, p->backend_use};
    int rc = (p->rules[i].not_inline ? lsim_register_lowering_not_inline
                                     : lsim_register_lowering)(
        b->registry, prim, lsim_ffi_lowering(&rules[i]), p->rules[i].platform, b->err);
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
  size_t n = (size_t)lsim_scenario_gen_below(g, 4), with_default = lsim_scenario_gen_chance(g, 65);
  p->rules = lsim_scenario_gen_alloc(g, n + with_default, sizeof *p->rules);
  for (size_t i = 0; p->rules && i < n + with_default; i++) {
    lsimp_rule *r = &p->rules[p->num_rules++];
    if (i < n) {
      size_t from = lsim_scenario_gen_chance(g, 20) ? LSIM_SCENARIO_GEN_NUM_PLATFORMS : 6;
      r->platform =
          lsim_scenario_gen_text(g, lsim_scenario_gen_pick(g, lsim_scenario_gen_platforms, from));
    }
    r->target = lsim_scenario_gen_text(g, lsim_scenario_gen_pick(g, targets, COUNT(targets)));
    r->not_inline = lsim_scenario_gen_chance(g, 15);
  }
  lsimp_gen_results(g, e, LSIM_SCENARIO_GEN_MAX_RESULTS);
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
};
