/* scenario/kinds/op_kind.c: <op kind="sine" args="0"/>: lax's elementwise
 * primitives (lax.sin_p, cos_p, neg_p, exp_p, add_p, mul_p, sub_p), their
 * scenario spellings, and the equation kind that applies one. */
#include "kinds.h"
#include "lowersim/lax.h"

#include <stdlib.h>
#include <string.h>

static const struct {
  const char *name;
  const lsim_primitive *primitive;
  int arity;
} ops[LSIMP_OP_COUNT] = {
    [LSIMP_OP_SINE] = {"sine", &lsim_sin_p, 1},
    [LSIMP_OP_COSINE] = {"cosine", &lsim_cos_p, 1},
    [LSIMP_OP_NEGATE] = {"negate", &lsim_neg_p, 1},
    [LSIMP_OP_EXPONENTIAL] = {"exponential", &lsim_exp_p, 1},
    [LSIMP_OP_ADD] = {"add", &lsim_add_p, 2},
    [LSIMP_OP_MULTIPLY] = {"multiply", &lsim_mul_p, 2},
    [LSIMP_OP_SUBTRACT] = {"subtract", &lsim_sub_p, 2},
};

const char *lsimp_op_name(lsimp_op op) {
  return (unsigned)op < LSIMP_OP_COUNT ? ops[op].name : NULL;
}

const lsim_primitive *lsimp_op_primitive(lsimp_op op) {
  return (unsigned)op < LSIMP_OP_COUNT ? ops[op].primitive : NULL;
}

int lsimp_op_arity(lsimp_op op) { return (unsigned)op < LSIMP_OP_COUNT ? ops[op].arity : 0; }

bool lsimp_op_from_name(const char *name, lsimp_op *out) {
  for (int i = 0; name && i < LSIMP_OP_COUNT; i++) {
    if (strcmp(ops[i].name, name) == 0) {
      *out = (lsimp_op)i;
      return true;
    }
  }
  return false;
}

int lsimp_read_op(lsimp_reader *r, const xmlNode *node, const char *name, lsimp_op *out) {
  char *text;
  int rc = lsimp_attr_required(r, node, name, &text);
  if (!rc && !lsimp_op_from_name(text, out))
    rc = lsimp_read_fail(r, node, "<%s> %s=\"%s\" is not an op kind", node->name, name, text);
  free(text);
  return rc;
}

int lsimp_check_operands(lsimp_reader *r, const xmlNode *node, const char *attr, lsimp_op op,
                         const lsim_scenario_eqn *e) {
  int arity = lsimp_op_arity(op);
  const char *name = lsimp_op_name(op);
  if ((size_t)arity != e->num_args)
    return lsimp_read_fail(r, node, "<%s %s=\"%s\"> takes %d operand%s, not %zu", node->name, attr,
                           name, arity, arity == 1 ? "" : "s", e->num_args);
  const lsim_aval *a = arity == 2 ? lsimp_value_aval(r, e->args[0]) : NULL;
  const lsim_aval *b = arity == 2 ? lsimp_value_aval(r, e->args[1]) : NULL;
  /* Memory spaces may differ: lax's rule raises JAX's error for arrays. */
  if (arity == 2 && !lsim_aval_same_array(a, b)) {
    char ta[LSIM_AVAL_TEXT_MAX], tb[LSIM_AVAL_TEXT_MAX];
    return lsimp_read_fail(r, node, "<%s %s=\"%s\"> operands have different avals: %s and %s",
                           node->name, attr, name, lsim_aval_format(a, ta, sizeof ta),
                           lsim_aval_format(b, tb, sizeof tb));
  }
  return LSIM_OK;
}

void lsimp_gen_op_operands(lsim_scenario_gen *g, lsim_scenario_eqn *e, int arity) {
  e->args = lsim_scenario_gen_alloc(g, (size_t)arity, sizeof *e->args);
  e->results = lsim_scenario_gen_alloc(g, 1, sizeof *e->results);
  if (!e->args || !e->results)
    return;
  e->args[0] = lsimp_gen_value(g);
  if (arity == 2)
    e->args[1] = lsimp_gen_equal(g, e->args[0]);
  e->num_args = (size_t)arity;
  e->results[0] = lsimp_implied_aval(&g->values[e->args[0]]);
  e->num_results = 1;
}

lsimp_op lsimp_gen_op(lsim_scenario_gen *g, int arity) {
  lsimp_op of_arity[LSIMP_OP_COUNT];
  size_t n = 0;
  for (int k = 0; k < LSIMP_OP_COUNT; k++)
    if (ops[k].arity == arity)
      of_arity[n++] = (lsimp_op)k;
  return of_arity[lsim_scenario_gen_below(g, n)];
}

const lsim_program *lsimp_build_op_program(lsimp_builder *b, const lsim_scenario_eqn *e, lsimp_op op,
                                          const lsim_aval *operands) {
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

/* --- the kind -------------------------------------------------------------------- */

static int read_eqn(lsimp_reader *r, const xmlNode *node, lsim_scenario_eqn *e) {
  lsimp_op_params *p = e->params;
  int rc = lsimp_read_op(r, node, "kind", &p->op);
  if (!rc)
    rc = lsimp_check_operands(r, node, "kind", p->op, e);
  return rc ? rc : lsimp_implied_result(r, e);
}

static void write_eqn(lsimp_writer *wr, const lsim_scenario_eqn *e) {
  const lsimp_op_params *p = e->params;
  lsimp_write_attr_required(wr, "kind", lsimp_op_name(p->op));
  lsimp_write_indices(wr, "args", e->args, e->num_args);
}

static int build_eqn(lsimp_builder *b, const lsim_scenario_eqn *e, lsim_eqn *out) {
  (void)b;
  const lsimp_op_params *p = e->params;
  out->primitive = lsimp_op_primitive(p->op);
  return LSIM_OK;
}

static bool copy_params(void *to, const void *from) {
  *(lsimp_op_params *)to = *(const lsimp_op_params *)from;
  return true;
}

static void clear_params(void *params) { (void)params; }

static bool can_generate(lsim_scenario_gen *g) { return g->num_values > 0; }

static void generate_eqn(lsim_scenario_gen *g, lsim_scenario_eqn *e) {
  lsimp_op_params *p = e->params;
  p->op = (lsimp_op)lsim_scenario_gen_below(g, LSIMP_OP_COUNT);
  lsimp_gen_op_operands(g, e, lsimp_op_arity(p->op));
}

const lsim_scenario_kind lsimp_op_kind = {
    .element = "op",
    .summary = "one of lax's elementwise ops (kind=, an op kind below)",
    .params_size = sizeof(lsimp_op_params),
    .implies_result = true,
    .weight = 20,
    .read = read_eqn,
    .write = write_eqn,
    .build = build_eqn,
    .copy = copy_params,
    .clear = clear_params,
    .can_generate = can_generate,
    .generate = generate_eqn,
};
