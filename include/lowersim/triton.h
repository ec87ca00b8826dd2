/* lowersim/triton.h: Pallas's Triton backend.
 * JAX counterpart: pallas/triton/pallas_call_registration.py
 * (pallas_call_lowering). */
#ifndef LOWERSIM_TRITON_H
#define LOWERSIM_TRITON_H

#include "lowersim/pallas.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The kernel's Triton module in a __gpu$xla.gpu.triton custom call (the
 * rule the backend registers for its params class). */
int lsim_triton_pallas_call_lowering(lsim_lowering_rule_context *ctx, const MlirValue *args,
                                     MlirValue *results, const lsim_pallas_call_params *p,
                                     void *data, lsim_error *err);

#ifdef __cplusplus
}
#endif

#endif /* LOWERSIM_TRITON_H */
