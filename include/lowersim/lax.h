/* lowersim/lax.h: lax's elementwise primitives and their lowerings.
 * JAX counterparts: jax/_src/lax/lax.py sin_p, cos_p, neg_p, exp_p, add_p,
 * mul_p, sub_p, lowered to the stablehlo op of the same name (hlo.SineOp,
 * ...).  Their equations have no params; binary ones take operands of one
 * aval (lax does not broadcast them). */
#ifndef LOWERSIM_LAX_H
#define LOWERSIM_LAX_H

#include "lowersim/error.h"
#include "lowersim/primitive.h"
#include "lowersim/registry.h"

#ifdef __cplusplus
extern "C" {
#endif

extern const lsim_primitive lsim_sin_p;
extern const lsim_primitive lsim_cos_p;
extern const lsim_primitive lsim_neg_p;
extern const lsim_primitive lsim_exp_p;
extern const lsim_primitive lsim_add_p;
extern const lsim_primitive lsim_mul_p;
extern const lsim_primitive lsim_sub_p;

/* Registers the default rules of the elementwise primitives. */
int lsim_register_lax_rules(lsim_registry *reg, lsim_error *err);

#ifdef __cplusplus
}
#endif

#endif /* LOWERSIM_LAX_H */
