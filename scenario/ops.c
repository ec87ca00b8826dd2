/* scenario/ops.c: the elementwise op kinds of the scenario format and the
 * JAX primitives they stand for: lax.sin_p, cos_p, neg_p, exp_p, add_p, mul_p, sub_p. */
#include "lowersim/scenario.h"

#include <string.h>

static const struct {
  const char *name;
  const char *primitive; /* JAX's primitive, whose rule the engine has */
  int arity;
} ops[LSIM_OP_COUNT] = {
    [LSIM_OP_SINE] = {"sine", "sin", 1},
    [LSIM_OP_COSINE] = {"cosine", "cos", 1},
    [LSIM_OP_NEGATE] = {"negate", "neg", 1},
    [LSIM_OP_EXPONENTIAL] = {"exponential", "exp", 1},
    [LSIM_OP_ADD] = {"add", "add", 2},
    [LSIM_OP_MULTIPLY] = {"multiply", "mul", 2},
    [LSIM_OP_SUBTRACT] = {"subtract", "sub", 2},
};

const char *lsim_op_kind_name(lsim_op_kind op) {
  return (unsigned)op < LSIM_OP_COUNT ? ops[op].name : NULL;
}

const char *lsim_op_kind_primitive(lsim_op_kind op) {
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
