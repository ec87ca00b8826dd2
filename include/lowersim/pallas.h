/* lowersim/pallas.h: Pallas: the compiler-params registry and pallas_call.
 *
 * JAX counterparts: jax/_src/pallas/core.py (register_lowering_rule,
 * get_lowering_rule), jax/_src/pallas/pallas_call.py (_pallas_call_lowering
 * and its cpu/tpu/gpu lowerings), the backends' pallas_call_registration
 * modules (mosaic, triton, mosaic_gpu) and jax/_src/tpu_custom_call.py.
 *
 * An lsim_pallas is the Pallas state of one simulated process: which
 * backends are installed, the jax_pallas_use_mosaic_gpu flag, the params
 * registry, and which backends' registration modules have been imported.
 * JAX registers a backend's params class when that module is first imported
 * (Triton's eagerly, with jax.experimental.pallas.triton; Mosaic TPU's and
 * Mosaic GPU's lazily, by the first tpu/gpu lowering), so lowering can
 * change the registry, as it does in JAX.
 */
#ifndef LOWERSIM_PALLAS_H
#define LOWERSIM_PALLAS_H

#include "lowersim/context.h"
#include "lowersim/lower.h"

#ifdef __cplusplus
extern "C" {
#endif

#define LSIM_PRIMITIVE_PALLAS_CALL "pallas_call"

/* A compiler-params class, identified by its address (a Python type). */
typedef struct lsim_pallas_params_class {
  const char *name;
} lsim_pallas_params_class;

extern const lsim_pallas_params_class lsim_mosaic_tpu_compiler_params; /* pltpu.CompilerParams */
extern const lsim_pallas_params_class lsim_triton_compiler_params;     /* pltriton.CompilerParams */
extern const lsim_pallas_params_class lsim_mosaic_gpu_compiler_params; /* plgpu.CompilerParams */

/* A pallas_call equation's params. */
typedef struct lsim_pallas_call_params {
  const char *kernel;     /* a kernel of lowersim's library: "add_one", "copy" */
  int64_t grid;           /* a 1-D grid of this many steps (at least 1) */
  bool interpret;         /* interpret=True */
  const lsim_pallas_params_class *compiler_params; /* NULL: none */
  bool has_constants;     /* the kernel captures constants */
} lsim_pallas_call_params;

/* A backend lowering rule of the params registry. */
typedef int (*lsim_pallas_rule_fn)(lsim_lowering_rule_context *ctx, const MlirValue *args,
                                   MlirValue *results, const lsim_pallas_call_params *params,
                                   void *data, lsim_error *err);
typedef struct lsim_pallas_rule {
  lsim_pallas_rule_fn fn;
  void *data;
} lsim_pallas_rule;

typedef struct lsim_pallas_installed {
  bool mosaic_tpu, triton, mosaic_gpu; /* importable backends */
  bool use_mosaic_gpu;                 /* jax_pallas_use_mosaic_gpu */
} lsim_pallas_installed;

typedef struct lsim_pallas lsim_pallas;

int lsim_pallas_create(const lsim_pallas_installed *installed, lsim_pallas **out, lsim_error *err);
void lsim_pallas_destroy(lsim_pallas *pallas);

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

/* Registers the pallas_call primitive, lowering with `pallas` (borrowed:
 * it must outlive the registry's lowerings). */
int lsim_register_pallas_rules(lsim_registry *reg, lsim_pallas *pallas, lsim_error *err);

/* tpu_custom_call.py CustomCallBackendConfig.to_json for a Mosaic kernel
 * serialized as `bytecode` (base64 in "body", default compiler params): the
 * backend_config of a tpu_custom_call.  Owned (free), NULL when out of memory. */
char *lsim_tpu_custom_call_config(const void *bytecode, size_t size);

/* The kernel library: a kernel module as each backend carries it. */
typedef enum lsim_kernel_flavor {
  LSIM_KERNEL_MOSAIC_TPU, /* func/arith/vector on memrefs in VMEM, Mosaic's window params */
  LSIM_KERNEL_TRITON,     /* tt.func over pointers, tt.load/tt.store */
  LSIM_KERNEL_MOSAIC_GPU, /* func/arith/vector on memrefs */
} lsim_kernel_flavor;

/* Checks that `kernel` exists and fits its operands and results
 * (LSIM_E_INVALID_ARGUMENT otherwise). */
int lsim_pallas_check_kernel(const char *kernel, const lsim_aval *avals_in, size_t num_in,
                             const lsim_aval *avals_out, size_t num_out, lsim_error *err);

/* Builds `kernel` for a block of `block`'s shape over a grid of `grid`
 * steps, verified, as a new module (owned by the caller) in `mlir`. */
int lsim_pallas_build_kernel(MlirContext mlir, const char *kernel, lsim_kernel_flavor flavor,
                             const lsim_aval *block, int64_t grid, MlirModule *out,
                             lsim_error *err);

#ifdef __cplusplus
}
#endif

#endif /* LOWERSIM_PALLAS_H */
