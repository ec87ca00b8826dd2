/* lax/lax.c: the elementwise primitives.
 * JAX counterpart: lax.py's sin_p ... sub_p and their
 * mlir.register_lowering(prim, partial(_nary_lower_hlo, hlo.SineOp)). */
#include "lowersim/lax.h"
#include "lowersim/emit.h"

const lsim_primitive lsim_sin_p = {.name = "sin"};
const lsim_primitive lsim_cos_p = {.name = "cos"};
const lsim_primitive lsim_neg_p = {.name = "neg"};
const lsim_primitive lsim_exp_p = {.name = "exp"};
const lsim_primitive lsim_add_p = {.name = "add"};
const lsim_primitive lsim_mul_p = {.name = "mul"};
const lsim_primitive lsim_sub_p = {.name = "sub"};

static const struct {
  const lsim_primitive *primitive;
  const char *op;
} elementwise[] = {
    {&lsim_sin_p, "stablehlo.sine"},    {&lsim_cos_p, "stablehlo.cosine"},
    {&lsim_neg_p, "stablehlo.negate"},  {&lsim_exp_p, "stablehlo.exponential"},
    {&lsim_add_p, "stablehlo.add"},     {&lsim_mul_p, "stablehlo.multiply"},
    {&lsim_sub_p, "stablehlo.subtract"},
};

/* _nary_lower_hlo: the op over the operands, of the first one's type. */
static int elementwise_rule(lsim_lowering_rule_context *ctx, const MlirValue *args,
                            MlirValue *results, const void *params, void *op, lsim_error *err) {
  (void)params;
  return lsim_emit_elementwise(&ctx->ip, op, args, ctx->num_avals_in, &results[0], err);
}

int lsim_register_lax_rules(lsim_registry *reg, lsim_error *err) {
  int rc = LSIM_OK;
  for (size_t i = 0; !rc && i < sizeof elementwise / sizeof elementwise[0]; i++)
    rc = lsim_register_lowering(reg, elementwise[i].primitive,
                                (lsim_rule){elementwise_rule, (void *)elementwise[i].op}, NULL,
                                err);
  return rc;
}
