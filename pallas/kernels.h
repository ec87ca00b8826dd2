/* pallas/kernels.h: lowersim's kernel library.  Private to pallas/.
 *
 * Each kernel is built with the MLIR C API as the module its backend
 * carries for a block of the whole (1-D) array over a 1-D grid, op for op as
 * JAX's lowering of the same Pallas kernel emits it. */
#ifndef LSIMP_PALLAS_KERNELS_H
#define LSIMP_PALLAS_KERNELS_H

#include "lowersim/aval.h"
#include "lowersim/error.h"

#include <mlir-c/IR.h>

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Where JAX's messages say a library kernel is defined (debug_info's
 * func_src_info "add_one at kernels.py:1"): the kernels are the Python
 * functions of docs/scenario-format.md, each compiled from its own text under the file
 * name kernels.py, as the Python rendering's `pallas` helper (scenario/python.c
 * KERNELS, which the oracle runs) does. */
#define LSIMP_KERNEL_SOURCE "kernels.py:1"

typedef enum lsimp_kernel_flavor {
  LSIMP_KERNEL_MOSAIC_TPU, /* Mosaic's serialized form (stable_mosaic. ops on VMEM memrefs) */
  LSIMP_KERNEL_TRITON,     /* tt.func over pointers, tt.load/tt.store */
  LSIMP_KERNEL_MOSAIC_GPU, /* the lowered launch (pallas/mosaic_gpu_kernel.mlir), serialized */
} lsimp_kernel_flavor;

/* Checks that `kernel` exists and fits its operands and results
 * (LSIM_E_INVALID_ARGUMENT otherwise). */
int lsimp_pallas_check_kernel(const char *kernel, const lsim_aval *avals_in, size_t num_in,
                              const lsim_aval *avals_out, size_t num_out, const int64_t block[2],
                              int64_t grid, lsim_error *err);

/* A kernel of the tiled kind (a 2-D array in blocks of the call's block=:
 * tiled_add_one over a 2-D grid, row_sum over a 1-D one). */
bool lsimp_kernel_is_tiled(const char *kernel);
/* row_sum: its output is (M, 1), not its input's aval. */
bool lsimp_kernel_is_reduction(const char *kernel);
/* The kernel's scalar-prefetch operands (PrefetchScalarGridSpec's
 * num_scalar_prefetch): the first operands of the call, the blocked ones
 * after them (gather_rows: 1, the others 0). */
size_t lsimp_kernel_num_scalar_prefetch(const char *kernel);

/* The call's pallas grid into steps[] (its rank returned, 1 or 2): the
 * tiled kernel's blocks per axis of its 2-D array, row_sum's row blocks,
 * gather_rows's blocks of its output's rows, else grid= (a checked call:
 * lsimp_pallas_check_kernel). */
int lsimp_kernel_grid(const char *kernel, const lsim_aval *avals_in, const lsim_aval *avals_out,
                      const int64_t block[2], int64_t grid, int64_t steps[2]);

/* The element type of `dtype` in a kernel: arith and the kernel dialects
 * take signless integers, so unsigned dtypes are iN there ("i32" for u32). */
const char *lsimp_kernel_element_type(lsim_dtype dtype);

/* What a kernel is built for. */
typedef struct lsimp_kernel_spec {
  const char *kernel;       /* a kernel of the library: "add_one", "copy", "tiled_add_one",
                               "row_sum" or "gather_rows" */
  const char *func_name;    /* the kernel function's name as the jaxpr's debug info has it
                               (sanitize_name(name=) when given; NULL: `kernel`) */
  lsimp_kernel_flavor flavor;
  const lsim_aval *block;   /* the whole-array kernels' block: the whole 1-D array; the tiled
                               kernels': the whole 2-D array, in blocks of `tile` */
  int64_t tile[2];          /* tiled kernels: the block (rows, cols) */
  const lsim_aval *prefetch; /* gather_rows: the scalar-prefetch operand (the 1-D index
                               array, whole in SMEM); NULL for the others */
  int64_t grid;             /* steps of the 1-D grid */
  int mosaic_version;       /* Mosaic TPU / GPU: the stable_mosaic.version or
                               stable_mosaic_gpu.version serialized at */
  bool mesh_operand;        /* Mosaic TPU: the operand's aval carries the abstract mesh, so
                               the get's load is shape_cast to it */
  bool module_sym_name;     /* Mosaic TPU: the module is named after the kernel function
                               (JAX 0.12.0 on) */
  bool unzip_locations;     /* Mosaic TPU: the ops' locations go to a module of their own
                               (tpu.private_unzip_debug_locations), the kernel's are unknown;
                               else they stay on the ops */
  bool x64;                 /* jax_enable_x64: the index maps' literals are int64 (Mosaic
                               GPU: so is the grid index) */
  int arch_major, arch_minor; /* Mosaic GPU: the GPU's compute capability */
  bool warpgroup;           /* Mosaic GPU: lowered with warpgroup semantics */
  bool cache_evict;         /* Triton: tt.load and tt.store carry cache = 1, evict = 1 (the
                               profile's pallas_triton_cache_evict) */
  bool expect_tx_constant;  /* Mosaic GPU: the copy's arrive made its byte count an i32
                               constant of the launch's cache (left unused) */
  bool dump_basename;       /* Mosaic GPU: the module carries mosaic_gpu.dump_basename =
                               "FUNC_NAME_<dump_count>" */
  long long dump_count;
} lsimp_kernel_spec;

/* Triton's launch grid limits (triton/lowering.py _process_grid_to_3d_grid):
 * a grid dimension above the y/z limit is collapsed into grid_x, which must
 * stay below 2**31 - 1. */
#define LSIMP_TRITON_YZ_LIMIT 65535
/* _process_grid_to_3d_grid for a pallas grid of `rank` (1 or 2) axes of
 * `steps` each: the launch grid into *launch (the collapsed axes' product
 * first, then the rest), and how many leading axes it collapses into launch
 * axis 0 (through the last axis, or the one before it, over the y/z
 * limit; 0: none). */
int lsimp_triton_launch_grid(const int64_t *steps, int rank, int64_t launch[2]);
#define LSIMP_TRITON_X_LIMIT 2147483647

/* Builds the kernel `spec` describes, verified, as a new module (owned by
 * the caller) in `mlir`: a context that allows unregistered dialects and
 * has none of the kernel's dialects loaded (func, arith, vector, memref),
 * so that its ops stay unregistered (lsimp_kernel_context).  `locations`
 * (NULL: not wanted) receives, for a Mosaic TPU kernel whose locations are
 * unzipped, the module listing them (owned by the caller; an empty module
 * whose `tpu.locs` is the kernel's locations in a pre-order walk: each op,
 * its regions' block arguments, then the ops inside), else a null module. */
int lsimp_pallas_build_kernel(MlirContext mlir, const lsimp_kernel_spec *spec, MlirModule *out,
                              MlirModule *locations, lsim_error *err);

/* pallas/mosaic_gpu_kernel.mlir, embedded (pallas/CMakeLists.txt). */
extern const unsigned char lsimp_mosaic_gpu_kernel_mlir[];
extern const size_t lsimp_mosaic_gpu_kernel_mlir_size;

/* Mosaic GPU's module for `spec` (add_one or copy on the whole 1-D array;
 * `tiled`: tiled_add_one), rendered from the
 * template and parsed in `mlir` (pallas/mosaic_gpu_kernel.c). */
int lsimp_mosaic_gpu_kernel(MlirContext mlir, const lsimp_kernel_spec *spec, bool add_one,
                            bool tiled, MlirModule *out, lsim_error *err);

/* A context for kernels (owned): threading off, unregistered dialects
 * allowed, no dialect loaded. */
MlirContext lsimp_kernel_context(void);

#endif
