/* pallas/backend.h: what the three backends' pallas_call lowerings share.
 * Private to pallas/. */
#ifndef LSIMP_PALLAS_BACKEND_H
#define LSIMP_PALLAS_BACKEND_H

#include "kernels.h"

#include "lowersim/emit.h"
#include "lowersim/pallas.h"
#include "support/strbuf.h"

#include <stdbool.h>

/* Builds the call's kernel (`spec` with its kernel, block and grid filled
 * in from the call), narrates it and serializes it as MLIR bytecode into
 * `bytes` (desired_version 0 for the Mosaic serializations, else the
 * default). */
int lsimp_kernel_bytecode(lsim_lowering_rule_context *ctx, const lsim_pallas_call_params *p,
                          lsimp_kernel_spec spec, bool version0, lsimp_strbuf *bytes,
                          lsim_error *err);

/* The custom call of a pallas_call: one result per output aval, row-major
 * layouts, output_operand_aliases always present (no aliases here). */
int lsimp_emit_kernel_call(lsim_lowering_rule_context *ctx, lsim_custom_call *call,
                           const MlirValue *args, MlirValue *results, lsim_error *err);

/* Bytes as a string attribute; an i32 integer attribute. */
MlirAttribute lsimp_bytes_attr(MlirContext mlir, const lsimp_strbuf *bytes);
MlirAttribute lsimp_i32_attr(MlirContext mlir, int64_t v);

#endif
