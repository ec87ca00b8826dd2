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
 * default); a Mosaic TPU kernel's unzipped locations (spec's
 * unzip_locations) go to `locations` the same way (NULL: dropped). */
int lsimp_kernel_bytecode(lsim_lowering_rule_context *ctx, const lsim_pallas_call_params *p,
                          lsimp_kernel_spec spec, bool version0, lsimp_strbuf *bytes,
                          lsimp_strbuf *locations, lsim_error *err);

/* The custom call of a pallas_call: one result per output aval, row-major
 * layouts, output_operand_aliases always present (the call's
 * input_output_aliases, dict(input_output_aliases) in mlir.custom_call). */
int lsimp_emit_kernel_call(lsim_lowering_rule_context *ctx, lsim_custom_call *call,
                           const MlirValue *args, MlirValue *results,
                           const lsim_pallas_call_params *p, lsim_error *err);

/* Bytes as a string attribute; an i32 integer attribute. */
MlirAttribute lsimp_bytes_attr(MlirContext mlir, const lsimp_strbuf *bytes);
MlirAttribute lsimp_i32_attr(MlirContext mlir, int64_t v);

/* Python's json.dumps of the str `s` (ensure_ascii: non-ASCII as \uXXXX,
 * UTF-16 surrogate pairs beyond the BMP), quotes included. */
void lsimp_json_string(lsimp_strbuf *sb, const char *s);

/* Python's str(float): repr, the shortest text that reads back as `v`
 * ("1.5", "100.0", "1e-05", "1e+16", "inf", "nan"). */
void lsimp_py_float(lsimp_strbuf *sb, double v);

/* The metadata dict as JSON: indent=0, sort_keys, separators (",", ":")
 * (tpu_custom_call.py _compact_json_object) when `compact`, else
 * json.dumps's defaults (insertion order, ", " and ": "). */
void lsimp_metadata_json(lsimp_strbuf *sb, const lsim_pallas_call_params *p, bool compact);

/* deprecations.warn(...): a DeprecationWarning of the process, narrated. */
int lsimp_warn_deprecated(lsim_lowering_rule_context *ctx, const char *message, lsim_error *err);

/* The Triton backend's deprecation (c486c9d985): warned by pallas_call.py
 * gpu_lowering when it picks Triton itself, from 0.11.2 by Triton's
 * pallas_call_lowering on every lowering. */
#define LSIMP_TRITON_DEPRECATED                                                                    \
  "The Pallas Triton backend is deprecated and will be removed in a future JAX version. To keep " \
  "using Pallas on GPU, please migrate to the Mosaic GPU backend. To keep using Triton, switch "  \
  "to the official Triton bindings and jax_triton."

/* The kernel's function name: sanitize_name(name=) when given
 * ([^\w.-] -> '_'), else the library kernel's name.  Owned. */
char *lsimp_kernel_func_name(const lsim_pallas_call_params *p);

#endif
