/* scenario/ops.c: the elementwise op kinds of the scenario format and the
 * JAX primitives they stand for: lax.sin_p, cos_p, neg_p, exp_p, add_p, mul_p, sub_p. */
#include "lowersim/scenario.h"
#include "lowersim/lax.h"

#include <string.h>

static const struct {
  const char *name;
  const lsim_primitive *primitive; /* lax's */
  int arity;
} ops[LSIM_OP_COUNT] = {
    [LSIM_OP_SINE] = {"sine", &lsim_sin_p, 1},
    [LSIM_OP_COSINE] = {"cosine", &lsim_cos_p, 1},
    [LSIM_OP_NEGATE] = {"negate", &lsim_neg_p, 1},
    [LSIM_OP_EXPONENTIAL] = {"exponential", &lsim_exp_p, 1},
    [LSIM_OP_ADD] = {"add", &lsim_add_p, 2},
    [LSIM_OP_MULTIPLY] = {"multiply", &lsim_mul_p, 2},
    [LSIM_OP_SUBTRACT] = {"subtract", &lsim_sub_p, 2},
};

const char *lsim_op_kind_name(lsim_op_kind op) {
  return (unsigned)op < LSIM_OP_COUNT ? ops[op].name : NULL;
}

const lsim_primitive *lsim_op_kind_primitive(lsim_op_kind op) {
  return (unsigned)op < LSIM_OP_COUNT ? ops[op].primitive : NULL;
}

int lsim_op_kind_arity(lsim_op_kind op) { return (unsigned)op < LSIM_OP_COUNT ? ops[op].arity : 0; }

bool lsim_op_kind_from_name(const char *name, lsim_op_kind *out) {
  for (int i = 0; name && i < LSIM_OP_COUNT; i++) {
    if (strcmp(ops[i].name, name) == 0) {
      *out = (lsim_op_kind)i;
      return true;
    }
  }
  return false;
}
