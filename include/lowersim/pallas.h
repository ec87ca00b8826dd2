/* lowersim/pallas.h: Pallas's compiler-params registry.
 *
 * JAX counterpart: jax/_src/pallas/core.py (register_lowering_rule,
 * get_lowering_rule, the CompilerParams classes).  An lsim_pallas is the
 * Pallas state of one simulated process: which backends are installed, the
 * jax_pallas_use_mosaic_gpu flag, the params registry, and which backends'
 * pallas_call_registration modules have been imported.  JAX registers a
 * backend's params class when that module is first imported (Triton's
 * eagerly, with jax.experimental.pallas.triton; Mosaic TPU's and Mosaic
 * GPU's lazily, by the first tpu/gpu lowering), so lowering can change the
 * registry, as it does in JAX.
 */
#ifndef LOWERSIM_PALLAS_H
#define LOWERSIM_PALLAS_H

#include "lowersim/error.h"
#include "lowersim/lowering_rule_context.h"

#include <mlir-c/IR.h>

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A compiler-params class, identified by its address (a Python type). */
typedef struct lsim_pallas_params_class {
  const char *name;
} lsim_pallas_params_class;

extern const lsim_pallas_params_class lsim_mosaic_tpu_compiler_params; /* pltpu.CompilerParams */
extern const lsim_pallas_params_class lsim_triton_compiler_params;     /* pltriton.CompilerParams */
extern const lsim_pallas_params_class lsim_mosaic_gpu_compiler_params; /* plgpu.CompilerParams */

/* pallas_call(input_output_aliases={input: output}). */
typedef struct lsim_pallas_alias {
  int64_t input, output;
} lsim_pallas_alias;

/* pl.CostEstimate(flops, transcendentals, bytes_accessed,
 * remote_bytes_transferred=0). */
typedef struct lsim_pallas_cost_estimate {
  int64_t flops, transcendentals, bytes_accessed, remote_bytes_transferred;
} lsim_pallas_cost_estimate;

/* One metadata={key: value} entry (both str). */
typedef struct lsim_pallas_metadata {
  const char *key, *value;
} lsim_pallas_metadata;

/* One pltpu.CompilerParams(flags={name: value}) entry: a bool, an int or a
 * float, as Python's type of the value. */
typedef enum lsim_mosaic_tpu_flag_type {
  LSIM_MOSAIC_TPU_FLAG_BOOL,
  LSIM_MOSAIC_TPU_FLAG_INT,
  LSIM_MOSAIC_TPU_FLAG_FLOAT,
} lsim_mosaic_tpu_flag_type;
typedef struct lsim_mosaic_tpu_flag {
  const char *name;
  lsim_mosaic_tpu_flag_type type;
  bool b;
  int64_t i;
  double d;
} lsim_mosaic_tpu_flag;

/* tpu_core.CompilerParams(...) fields that reach the backend config
 * (tpu_custom_call.py CustomCallBackendConfig.to_json). */
typedef enum lsim_tpu_side_effect {
  LSIM_TPU_PURE,                    /* has_side_effects=False */
  LSIM_TPU_SIDE_EFFECTING,          /* has_side_effects=True */
  LSIM_TPU_DATAFLOW_SIDE_EFFECTING, /* pltpu.SideEffectType.DATAFLOW_SIDE_EFFECTING */
} lsim_tpu_side_effect;
typedef struct lsim_mosaic_tpu_param_values {
  bool has_vmem_limit_bytes;
  int64_t vmem_limit_bytes;
  bool has_flags; /* flags={...} given (possibly empty) */
  const lsim_mosaic_tpu_flag *flags;
  size_t num_flags;
  bool has_allow_input_fusion;
  const bool *allow_input_fusion;
  size_t num_allow_input_fusion;
  lsim_tpu_side_effect has_side_effects;
  bool has_internal_scratch_in_bytes;
  int64_t internal_scratch_in_bytes;
  bool disable_bounds_checks, disable_semaphore_checks, skip_device_barrier;
  bool shape_invariant_numerics_off; /* shape_invariant_numerics=False */
  bool needs_layout_passes_off;      /* needs_layout_passes=False: no effect on a TensorCore
                                        kernel (lower_module_to_custom_call: `needs_layout_passes
                                        or not device_type`) */
} lsim_mosaic_tpu_param_values;

/* A pallas_call equation's params. */
typedef struct lsim_pallas_call_params {
  const char *kernel;     /* a kernel of lowersim's library: "add_one", "copy", "tiled_add_one" */
  int64_t grid;           /* a 1-D grid of this many steps (at least 1) */
  bool interpret;         /* interpret=True */
  const lsim_pallas_params_class *compiler_params; /* NULL: none */
  bool has_constants;     /* the kernel captures constants */
  /* --- issue 13 item 4: pallas_call's own arguments and the params' values --- */
  const char *name;       /* name= (NULL: none): sanitize_name(name) replaces the kernel's
                             function name (pallas_call.py, at trace time) */
  const lsim_pallas_alias *aliases; /* input_output_aliases, in the dict's order */
  size_t num_aliases;
  const lsim_pallas_cost_estimate *cost_estimate; /* cost_estimate= (NULL: none) */
  const lsim_pallas_metadata *metadata; /* metadata= entries (has_metadata: a dict given) */
  size_t num_metadata;
  bool has_metadata;
  const lsim_mosaic_tpu_param_values *mosaic_tpu; /* pltpu.CompilerParams(...)'s fields
                                                     (NULL: the defaults) */
  int64_t num_warps, num_stages; /* pltriton.CompilerParams(num_warps=, num_stages=): 0 = None */
  int64_t block[2]; /* the tiled kernels ("tiled_add_one"): BlockSpec((rows, cols), lambda i, j:
                       (i, j)) over the grid (array rows / rows, array cols / cols); {0, 0} for
                       the whole-array kernels */
} lsim_pallas_call_params;

/* A backend lowering rule of the params registry. */
typedef int (*lsim_pallas_rule_fn)(lsim_lowering_rule_context *ctx, const MlirValue *args,
                                   MlirValue *results, const lsim_pallas_call_params *params,
                                   void *data, lsim_error *err);
typedef struct lsim_pallas_rule {
  lsim_pallas_rule_fn fn;
  void *data;
} lsim_pallas_rule;

/* The Pallas backends a process can import. */
typedef enum lsim_pallas_backend {
  LSIM_PALLAS_MOSAIC_TPU,
  LSIM_PALLAS_TRITON,
  LSIM_PALLAS_MOSAIC_GPU,
  LSIM_PALLAS_BACKEND_COUNT
} lsim_pallas_backend;

typedef struct lsim_pallas_installed {
  size_t struct_size;                  /* LSIM_PALLAS_INSTALLED_INIT */
  bool mosaic_tpu, triton, mosaic_gpu; /* importable backends */
  bool use_mosaic_gpu;                 /* jax_pallas_use_mosaic_gpu */
} lsim_pallas_installed;

#define LSIM_PALLAS_INSTALLED_INIT(...) \
  {.struct_size = sizeof(lsim_pallas_installed), __VA_ARGS__}

typedef struct lsim_pallas lsim_pallas;

/* Creates the Pallas state (owned) with what `installed` (copied) says. */
int lsim_pallas_create(const lsim_pallas_installed *installed, lsim_pallas **out, lsim_error *err);
void lsim_pallas_destroy(lsim_pallas *pallas);

/* jax_pallas_use_mosaic_gpu (read only where the profile has the option,
 * lsim_jax_profile.pallas_use_mosaic_gpu_option). */
bool lsim_pallas_use_mosaic_gpu(const lsim_pallas *pallas);

/* jaxlib's dumped_module_count.fetch_add(1) (jaxlib/mosaic/gpu/dump.cc
 * GetOrSetDumpOptionsForModule): the process's count of Mosaic GPU modules
 * named for dumps before this one, then one more. */
size_t lsim_pallas_next_dumped_module(lsim_pallas *pallas);

/* How many modules the process has named so far: read only, for callers
 * that reuse a process while its state is unchanged. */
size_t lsim_pallas_dumped_modules(const lsim_pallas *pallas);

/* Imports `backend`'s pallas_call_registration module: false when it is not
 * installed; else true, with *first true on the first import (whose
 * importer registers the backend's params class). */
bool lsim_pallas_import(lsim_pallas *pallas, lsim_pallas_backend backend, bool *first);

/* Whether `backend`'s module has been imported (sys.modules): read only, for
 * callers that reuse a process while its state is unchanged. */
bool lsim_pallas_imported(const lsim_pallas *pallas, lsim_pallas_backend backend);

/* register_lowering_rule(params_cls, rule, platform): one (rule, platform)
 * per class, a later registration replacing an earlier one.  `platform` is
 * copied ("tpu" or "gpu" for JAX's own). */
int lsim_pallas_register_lowering_rule(lsim_pallas *pallas, const lsim_pallas_params_class *cls,
                                       lsim_pallas_rule rule, const char *platform,
                                       lsim_error *err);

/* get_lowering_rule(params_cls, expected_platform): *out NULL for an
 * unregistered class, the rule when the platforms match, else
 * LSIM_E_PALLAS_PARAMS_PLATFORM. */
int lsim_pallas_get_lowering_rule(const lsim_pallas *pallas, const lsim_pallas_params_class *cls,
                                  const char *expected_platform, const lsim_pallas_rule **out,
                                  lsim_error *err);

#ifdef __cplusplus
}
#endif

#endif /* LOWERSIM_PALLAS_H */
