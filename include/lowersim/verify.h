/* lowersim/verify.h: checking an emitted module. */
#ifndef LOWERSIM_VERIFY_H
#define LOWERSIM_VERIFY_H

#include "lowersim/error.h"

#include <mlir-c/IR.h>

#ifdef __cplusplus
extern "C" {
#endif

/* MLIR's verifier (which knows func, not the unregistered stablehlo), then
 * lowersim's structural checks of the stablehlo subset it emits (case index
 * and branch types, custom_call attributes, send/recv tokens, constants).
 * A failure is always a lowersim bug: LSIM_E_VERIFY with what failed. */
int lsim_verify_module(MlirModule module, lsim_error *err);

#ifdef __cplusplus
}
#endif

#endif /* LOWERSIM_VERIFY_H */
