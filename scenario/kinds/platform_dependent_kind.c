/* scenario/kinds/platform_dependent_kind.c: <platform_dependent args="0"> with
 * <branch platforms op>s and a <default op>: lax.platform_dependent(*args,
 * default=..., **per_platform) over elementwise ops.  Branches with the same
 * op are the same function, and JAX joins them. */
#include "kinds.h"
#include "lowersim/alloc.h"
#include "lowersim/conditionals.h"
#include "support/name_index.h"

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

/* A comma list as an array of names (lsimp_build_alloc'd); *n its length. */
static const char **split_names(lsimp_builder *b, const char *text, size_t *n) {
  size_t len = strlen(text), count = 1;
  for (const char *c = text; *c; c++)
    count += *c == ',';
  char *storage = lsimp_build_alloc(b, len + 1, 1);
  const char **names = lsimp_build_alloc(b, count, sizeof *names);
  if (!storage || !names)
    return NULL;
  memcpy(storage, text, len + 1);
  *n = 0;
  for (char *item = storage; item;) {
    char *comma = strchr(item, ',');
    if (comma)
      *comma = '\0';
    names[(*n)++] = item;
    item = comma ? comma + 1 : NULL;
  }
  return names;
}

/* lax.platform_dependent(*args, default=..., **per_platform): the scenario's
 * branches in document order fill the per_platform dict (a platform named
 * again keeps its first place and takes the later op, so a branch whose
 * platforms were all named again is no branch at all); then JAX joins the
 * dict's entries with the same function (here, the same op) in order; the
 * default branch stays last and apart, even when its op is a platform's. */
static int build_eqn(lsimp_builder *b, const lsim_scenario_eqn *e, lsim_eqn *out) {
  const lsimp_platform_dependent_params *p = e->params;
  lsim_platform_dependent_params *params = lsimp_build_alloc(b, 1, sizeof *params);
  lsim_platform_branch *branches = lsimp_build_alloc(b, p->num_branches, sizeof *branches);
  const lsim_aval *operands = lsimp_build_operand_avals(b, e);
  size_t total = 0;
  const char ***names = lsimp_build_alloc(b, p->num_branches, sizeof *names);
  size_t *counts = lsimp_build_alloc(b, p->num_branches, sizeof *counts);
  if (!params || !branches || !operands || !names || !counts)
    return LSIM_E_NO_MEMORY;
  const lsimp_branch *def = NULL;
  for (size_t i = 0; i < p->num_branches; i++) {
    const lsimp_branch *sb = &p->branches[i];
    if (!sb->platforms) {
      def = sb;
    } else if (!(names[i] = split_names(b, sb->platforms, &counts[i]))) {
      return LSIM_E_NO_MEMORY;
    }
    total += counts[i];
  }
  /* The dict: each platform once, in first-mention order, with its last op. */
  const char **keys = lsimp_build_alloc(b, total, sizeof *keys);
  lsimp_op *ops = lsimp_build_alloc(b, total, sizeof *ops);
  if (total && (!keys || !ops))
    return LSIM_E_NO_MEMORY;
  lsimp_name_index seen = LSIMP_NAME_INDEX_INIT; /* platform -> its place in the dict */
  if (!lsimp_name_index_reserve(&seen, total))
    return LSIM_E_NO_MEMORY;
  size_t k = 0;
  for (size_t i = 0; i < p->num_branches; i++) {
    for (size_t j = 0; j < counts[i]; j++) {
      size_t at = k;
      lsimp_name_index_add(&seen, names[i][j], &at); /* reserved: cannot fail */
      if (at == k)
        keys[k++] = names[i][j];
      ops[at] = p->branches[i].op;
    }
  }
  lsimp_name_index_free(&seen);
  /* Joined by op, in the order of first appearance. */
  const char ***lists = lsimp_build_alloc(b, p->num_branches, sizeof *lists);
  if (!lists)
    return LSIM_E_NO_MEMORY;
  size_t n = 0;
  for (size_t d = 0; d < k; d++) {
    size_t g = 0;
    while (g < n && branches[g].jaxpr->eqns[0].primitive != lsimp_op_primitive(ops[d]))
      g++;
    if (g == n) {
      lists[n] = lsimp_build_alloc(b, k, sizeof *lists[n]);
      const lsim_program *fn = lsimp_build_op_program(b, e, ops[d], operands);
      if (!lists[n] || !fn)
        return LSIM_E_NO_MEMORY;
      branches[n++] = (lsim_platform_branch){lists[g], 0, fn};
    }
    lists[g][branches[g].num_platforms++] = keys[d];
  }
  if (def) {
    const lsim_program *fn = lsimp_build_op_program(b, e, def->op, operands);
    if (!fn)
      return LSIM_E_NO_MEMORY;
    branches[n++] = (lsim_platform_branch){NULL, 0, fn};
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
  d->branches = s->num_branches ? lsim_calloc(s->num_branches, sizeof *d->branches) : NULL;
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

/* lax.platform_dependent(*args, default=..., **{platform: branch}): one
 * lax function per op, so equal branches are one callable and JAX joins
 * them; a platform named twice takes its last branch, as a dict does. */
static void python_eqn(lsimp_python *py, const lsim_scenario_eqn *e) {
  const lsimp_platform_dependent_params *p = e->params;
  const lsimp_branch *def = NULL;
  for (size_t b = 0; b < p->num_branches; b++)
    if (!p->branches[b].platforms)
      def = &p->branches[b];
  lsimp_strbuf_puts(&py->body, "  v += [lax.platform_dependent(");
  lsimp_python_operands(py, e);
  lsimp_strbuf_puts(&py->body, e->num_args ? ", default=" : "default=");
  if (def)
    lsimp_python_op(&py->body, def->op);
  else
    lsimp_strbuf_puts(&py->body, "None");
  lsimp_strbuf_puts(&py->body, ", **{");
  size_t n = 0;
  for (size_t b = 0; b < p->num_branches; b++) {
    for (const char *q = p->branches[b].platforms; q && *q;) {
      size_t len = strcspn(q, ",");
      lsimp_strbuf_printf(&py->body, "%s'%.*s': ", n++ ? ", " : "", (int)len, q);
      lsimp_python_op(&py->body, p->branches[b].op);
      q += len + (q[len] == ',');
    }
  }
  lsimp_strbuf_puts(&py->body, "})]\n");
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
    .python = python_eqn,
};
