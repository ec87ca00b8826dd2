/* scenario/kinds/platform_dependent_kind.c: <platform_dependent args="0"> with
 * <branch platforms op>s and a <default op>: lax.platform_dependent(*args,
 * default=..., **per_platform) over elementwise ops.  Branches with the same
 * op are the same function, and JAX joins them. */
#include "kinds.h"
#include "lowersim/conditionals.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* A <branch platforms op> or the <default op>, applied to the operands of
 * the platform_dependent `ctx`. */
static int read_branch(lsimp_reader *r, const xmlNode *node, void *item, const void *ctx) {
  const lsim_scenario_eqn *e = ctx;
  lsimp_branch *b = item;
  b->line = (int)lsimp_xml_line(node);
  int rc = LSIM_OK;
  if (lsimp_is_element(node, "branch")) {
    rc = lsimp_attr_required(r, node, "platforms", &b->platforms);
    if (!rc)
      rc = lsimp_check_platform_list(r, node, "platforms", b->platforms);
  }
  if (!rc)
    rc = lsimp_read_op(r, node, "op", &b->op);
  return rc ? rc : lsimp_check_operands(r, node, "op", b->op, e);
}

/* Every branch applies to the same operands, so the result has the first
 * operand's aval whichever branch is taken. */
static int read_eqn(lsimp_reader *r, const xmlNode *node, lsim_scenario_eqn *e) {
  lsimp_platform_dependent_params *p = e->params;
  int rc;
  p->branches = lsimp_read_children(r, node, "branch", "default", sizeof *p->branches,
                                    read_branch, e, &p->num_branches, &rc);
  if (!rc && !p->num_branches)
    rc = lsimp_read_fail(r, node, "<platform_dependent> needs a <branch> element");
  return rc ? rc : lsimp_implied_result(r, e);
}

static void write_eqn(lsimp_writer *wr, const lsim_scenario_eqn *e) {
  const lsimp_platform_dependent_params *p = e->params;
  lsimp_write_indices(wr, "args", e->args, e->num_args);
  for (size_t i = 0; i < p->num_branches; i++) {
    const lsimp_branch *b = &p->branches[i];
    bool is_default = !b->platforms;
    if (is_default && i + 1 != p->num_branches) {
      lsimp_write_invalid(wr, "has a <default> branch that is not the last one", NULL);
      return;
    }
    lsimp_write_start(wr, is_default ? "default" : "branch");
    lsimp_write_attr(wr, "platforms", b->platforms);
    lsimp_write_attr_required(wr, "op", lsimp_op_name(b->op));
    lsimp_write_end(wr);
  }
}

static size_t count_names(const char *text) {
  size_t count = 1;
  for (const char *c = text; *c; c++)
    count += *c == ',';
  return count;
}

/* Appends the names of a comma list (copied into lsimp_build_alloc'd
 * storage) to `names`, `*n` of them so far. */
static bool append_names(lsimp_builder *b, const char *text, const char **names, size_t *n) {
  size_t len = strlen(text);
  char *storage = lsimp_build_alloc(b, len + 1, 1);
  if (!storage)
    return false;
  memcpy(storage, text, len + 1);
  for (char *item = storage; item;) {
    char *comma = strchr(item, ',');
    if (comma)
      *comma = '\0';
    names[(*n)++] = item;
    item = comma ? comma + 1 : NULL;
  }
  return true;
}

/* A branch's function: its op over the equation's operands. */
static const lsim_program *branch_program(lsimp_builder *b, const lsim_scenario_eqn *e,
                                          lsimp_op op, const lsim_aval *operands) {
  static const size_t indices[] = {0, 1};
  lsim_eqn *eqn = lsimp_build_alloc(b, 1, sizeof *eqn);
  lsim_program *fn = lsimp_build_alloc(b, 1, sizeof *fn);
  if (!eqn || !fn)
    return NULL;
  *eqn = (lsim_eqn){.primitive = lsimp_op_primitive(op), .operands = indices,
                    .num_operands = e->num_args, .results = e->results,
                    .num_results = e->num_results};
  *fn = (lsim_program){.function_name = lsimp_op_primitive(op)->name, .args = operands,
                       .num_args = e->num_args, .eqns = eqn, .num_eqns = 1};
  return fn;
}

/* lax.platform_dependent joins branches with the same function: here, the
 * same op.  `target[i]` receives where <branch> i goes (the first branch of
 * its op, or a branch of its own; a default stays apart) and `count[t]` the
 * platforms branch t gets.  Returns the number of branches. */
static size_t join_branches(const lsimp_platform_dependent_params *p, size_t *target,
                            size_t *count, lsimp_op *op) {
  size_t of_op[LSIMP_OP_COUNT], n = 0;
  for (size_t o = 0; o < LSIMP_OP_COUNT; o++)
    of_op[o] = SIZE_MAX;
  for (size_t i = 0; i < p->num_branches; i++) {
    const lsimp_branch *sb = &p->branches[i];
    size_t t = sb->platforms ? of_op[sb->op] : SIZE_MAX;
    if (t == SIZE_MAX) {
      t = n++;
      count[t] = 0;
      op[t] = sb->op;
      if (sb->platforms)
        of_op[sb->op] = t;
    }
    target[i] = t;
    count[t] += sb->platforms ? count_names(sb->platforms) : 0;
  }
  return n;
}

static int build_eqn(lsimp_builder *b, const lsim_scenario_eqn *e, lsim_eqn *out) {
  const lsimp_platform_dependent_params *p = e->params;
  lsim_platform_dependent_params *params = lsimp_build_alloc(b, 1, sizeof *params);
  lsim_platform_branch *branches = lsimp_build_alloc(b, p->num_branches, sizeof *branches);
  size_t *target = lsimp_build_alloc(b, p->num_branches, sizeof *target);
  size_t *count = lsimp_build_alloc(b, p->num_branches, sizeof *count);
  lsimp_op *op = lsimp_build_alloc(b, p->num_branches, sizeof *op);
  const lsim_aval *operands = lsimp_build_operand_avals(b, e);
  if (!params || !branches || !target || !count || !op || !operands)
    return LSIM_E_NO_MEMORY;
  size_t n = join_branches(p, target, count, op);
  const char ***names = lsimp_build_alloc(b, n, sizeof *names);
  size_t *filled = lsimp_build_alloc(b, n, sizeof *filled);
  if (!names || !filled)
    return LSIM_E_NO_MEMORY;
  for (size_t t = 0; t < n; t++)
    if (count[t] && !(names[t] = lsimp_build_alloc(b, count[t], sizeof *names[t])))
      return LSIM_E_NO_MEMORY;
  for (size_t i = 0; i < p->num_branches; i++) {
    const char *text = p->branches[i].platforms;
    size_t t = target[i];
    if (text && !append_names(b, text, names[t], &filled[t]))
      return LSIM_E_NO_MEMORY;
  }
  for (size_t t = 0; t < n; t++) {
    const lsim_program *fn = branch_program(b, e, op[t], operands);
    if (!fn)
      return LSIM_E_NO_MEMORY;
    branches[t] = (lsim_platform_branch){names[t], filled[t], fn};
  }
  *params = (lsim_platform_dependent_params){branches, n};
  lsim_platform_dependent_bind(out, params);
  return LSIM_OK;
}

static void clear_params(void *params) {
  lsimp_platform_dependent_params *p = params;
  for (size_t i = 0; p->branches && i < p->num_branches; i++)
    free(p->branches[i].platforms);
  free(p->branches);
}

static bool copy_params(void *to, const void *from) {
  lsimp_platform_dependent_params *d = to;
  const lsimp_platform_dependent_params *s = from;
  *d = (lsimp_platform_dependent_params){0};
  d->branches = s->num_branches ? calloc(s->num_branches, sizeof *d->branches) : NULL;
  bool ok = d->branches || !s->num_branches;
  for (size_t i = 0; ok && i < s->num_branches; i++) {
    d->branches[d->num_branches++] = (lsimp_branch){NULL, s->branches[i].op, s->branches[i].line};
    ok = lsimp_copy_string(&d->branches[i].platforms, s->branches[i].platforms);
  }
  return ok;
}

static bool can_generate(lsim_scenario_gen *g) { return g->num_values > 0; }

static void generate_eqn(lsim_scenario_gen *g, lsim_scenario_eqn *e) {
  lsimp_platform_dependent_params *p = e->params;
  int arity = lsim_scenario_gen_chance(g, 70) ? 1 : 2;
  lsimp_gen_op_operands(g, e, arity);
  size_t n = 1 + (size_t)lsim_scenario_gen_below(g, 3), with_default = lsim_scenario_gen_chance(g, 50);
  p->branches = lsim_scenario_gen_alloc(g, n + with_default, sizeof *p->branches);
  for (size_t i = 0; p->branches && i < n + with_default; i++) {
    lsimp_branch *b = &p->branches[p->num_branches++];
    size_t from = lsim_scenario_gen_chance(g, 15) ? LSIM_SCENARIO_GEN_NUM_PLATFORMS
                                                  : LSIM_SCENARIO_GEN_CONCRETE_PLATFORMS;
    b->platforms =
        i < n ? lsim_scenario_gen_name_list(g, 2, lsim_scenario_gen_platforms, from) : NULL;
    b->op = lsimp_gen_op(g, arity);
  }
}

static size_t num_parts(const lsim_scenario_eqn *e) {
  return ((const lsimp_platform_dependent_params *)e->params)->num_branches;
}

/* platform_dependent keeps at least one <branch> besides its <default>. */
static bool drop_part(lsim_scenario_eqn *e, size_t i) {
  lsimp_platform_dependent_params *p = e->params;
  size_t platform_branches = 0;
  for (size_t b = 0; b < p->num_branches; b++)
    platform_branches += p->branches[b].platforms != NULL;
  if (p->branches[i].platforms && platform_branches == 1)
    return false;
  free(p->branches[i].platforms);
  memmove(&p->branches[i], &p->branches[i + 1], (p->num_branches - i - 1) * sizeof *p->branches);
  p->num_branches--;
  return true;
}

const lsim_scenario_kind lsimp_platform_dependent_kind = {
    .element = "platform_dependent",
    .summary = "lax.platform_dependent(*args, <platform>=..., default=...)",
    .primitive = &lsim_platform_dependent_p,
    .params_size = sizeof(lsimp_platform_dependent_params),
    .implies_result = true,
    .weight = 12,
    .read = read_eqn,
    .write = write_eqn,
    .build = build_eqn,
    .copy = copy_params,
    .clear = clear_params,
    .can_generate = can_generate,
    .generate = generate_eqn,
    .num_parts = num_parts,
    .drop_part = drop_part,
};
