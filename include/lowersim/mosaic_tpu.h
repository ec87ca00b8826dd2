/* lowersim/mosaic_tpu.h: Pallas's Mosaic TPU backend.
 * JAX counterparts: pallas/mosaic/pallas_call_registration.py
 * (pallas_call_tpu_lowering_rule) and tpu_custom_call.py
 * (CustomCallBackendConfig.to_json, _tpu_custom_call_lowering). */
#ifndef LOWERSIM_MOSAIC_TPU_H
#define LOWERSIM_MOSAIC_TPU_H

#include "lowersim/pallas.h"

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* CustomCallBackendConfig.to_json for a Mosaic kernel serialized as
 * `bytecode` (base64 in "body", default compiler params): the
 * backend_config of a tpu_custom_call.  Owned (free), NULL when out of
 * memory. */
char *lsim_tpu_custom_call_config(const void *bytecode, size_t size);

/* The same with pltpu.CompilerParams's values `v` (NULL: the defaults) and
 * pallas_call's cost_estimate (NULL: none), in to_json's order. */
char *lsim_tpu_custom_call_config_with(const void *bytecode, size_t size,
                                       const lsim_mosaic_tpu_param_values *v,
                                       const lsim_pallas_cost_estimate *cost);

/* The same with the kernel's locations as _lower_mosaic_module_to_asm
 * unzips them from JAX 0.12.0 (`debug_locations`: the bytecode of the
 * module listing them; NULL or `locations_size` 0: none), base64 in
 * "debug_locations" after every compiler param. */
char *lsim_tpu_custom_call_config_located(const void *bytecode, size_t size,
                                          const void *debug_locations, size_t locations_size,
                                          const lsim_mosaic_tpu_param_values *v,
                                          const lsim_pallas_cost_estimate *cost);

/* pallas_call_tpu_lowering_rule: the kernel's Mosaic module in a
 * tpu_custom_call (the rule the backend registers for its params class). */
int lsim_mosaic_tpu_pallas_call_lowering(lsim_lowering_rule_context *ctx, const MlirValue *args,
                                         MlirValue *results, const lsim_pallas_call_params *p,
                                         void *data, lsim_error *err);

#ifdef __cplusplus
}
#endif

#endif /* LOWERSIM_MOSAIC_TPU_H */
