/* lowersim/mosaic_gpu.h: Pallas's Mosaic GPU backend.
 * JAX counterpart: pallas/mosaic_gpu/pallas_call_registration.py
 * (pallas_call_lowering). */
#ifndef LOWERSIM_MOSAIC_GPU_H
#define LOWERSIM_MOSAIC_GPU_H

#include "lowersim/pallas.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The kernel's Mosaic GPU module in a mosaic_gpu_v2 custom call (the rule
 * the backend registers for its params class). */
int lsim_mosaic_gpu_pallas_call_lowering(lsim_lowering_rule_context *ctx, const MlirValue *args,
                                         MlirValue *results, const lsim_pallas_call_params *p,
                                         void *data, lsim_error *err);

#ifdef __cplusplus
}
#endif

#endif /* LOWERSIM_MOSAIC_GPU_H */
