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

/* The most sdy.mesh ops a module of lowersim's declares. */
#define LSIM_VERIFY_MAX_MESHES 64

/* The same checks of one op of a function and the ops it holds, as the
 * op is built (a module lowered with a spill checks each op of main so):
 * its shardings may name the meshes `meshes` (the symbols of the sdy.mesh
 * ops the module will have; borrowed), at most LSIM_VERIFY_MAX_MESHES. */
int lsim_verify_op(MlirOperation op, const MlirStringRef *meshes, size_t num_meshes,
                   lsim_error *err);

#ifdef __cplusplus
}
#endif

#endif /* LOWERSIM_VERIFY_H */
