/* lowersim/pallas_call.h: pallas_call and its lowering.
 * JAX counterpart: jax/_src/pallas/pallas_call.py (pallas_call_p,
 * _pallas_call_lowering: interpret mode, then lower_per_platform with its
 * cpu, tpu and gpu lowerings and no default). */
#ifndef LOWERSIM_PALLAS_CALL_H
#define LOWERSIM_PALLAS_CALL_H

#include "lowersim/error.h"
#include "lowersim/pallas.h"
#include "lowersim/primitive.h"
#include "lowersim/program.h"
#include "lowersim/registry.h"

#ifdef __cplusplus
extern "C" {
#endif

extern const lsim_primitive lsim_pallas_call_p;

/* Makes `eqn` a pallas_call equation with `params` (borrowed). */
static inline void lsim_pallas_call_bind(lsim_eqn *eqn, const lsim_pallas_call_params *params) {
  eqn->primitive = &lsim_pallas_call_p;
  eqn->params = params;
}

/* Registers pallas_call's rule, lowering with `pallas` (borrowed: it must
 * outlive the registry's lowerings), and imports Triton's registration, as
 * importing jax.experimental.pallas.triton (what names its params class)
 * does. */
int lsim_register_pallas_call_rules(lsim_registry *reg, lsim_pallas *pallas, lsim_error *err);

#ifdef __cplusplus
}
#endif

#endif /* LOWERSIM_PALLAS_CALL_H */
