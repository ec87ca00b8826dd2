/* pallas/kernels.h: lowersim's kernel library.  Private to pallas/.
 *
 * Each kernel is built with the MLIR C API as the module its backend would
 * carry, for a block of the whole (1-D) array over a 1-D grid. */
#ifndef LSIMP_PALLAS_KERNELS_H
#define LSIMP_PALLAS_KERNELS_H

#include "lowersim/aval.h"
#include "lowersim/error.h"

#include <mlir-c/IR.h>

#include <stddef.h>
#include <stdint.h>

typedef enum lsimp_kernel_flavor {
  LSIMP_KERNEL_MOSAIC_TPU, /* func/arith/vector on memrefs in VMEM, Mosaic's window params */
  LSIMP_KERNEL_TRITON,     /* tt.func over pointers, tt.load/tt.store */
  LSIMP_KERNEL_MOSAIC_GPU, /* func/arith/vector on memrefs */
} lsimp_kernel_flavor;

/* Checks that `kernel` exists and fits its operands and results
 * (LSIM_E_INVALID_ARGUMENT otherwise). */
int lsimp_pallas_check_kernel(const char *kernel, const lsim_aval *avals_in, size_t num_in,
                              const lsim_aval *avals_out, size_t num_out, lsim_error *err);

/* Builds `kernel` for a block of `block`'s shape over a grid of `grid`
 * steps, verified, as a new module (owned by the caller) in `mlir`. */
int lsimp_pallas_build_kernel(MlirContext mlir, const char *kernel, lsimp_kernel_flavor flavor,
                              const lsim_aval *block, int64_t grid, MlirModule *out,
                              lsim_error *err);

#endif
