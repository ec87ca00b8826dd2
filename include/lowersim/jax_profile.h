/* lowersim/jax_profile.h: the JAX versions lowersim models.
 *
 * A profile names one JAX release or commit.  Every fact of JAX's that
 * depends on its version is to be a field of this one table, next to the
 * version it belongs to (ctx/jax_profile.c); today the profiles differ only
 * in name.  Functions that take a profile accept NULL for the newest. */
#ifndef LOWERSIM_JAX_PROFILE_H
#define LOWERSIM_JAX_PROFILE_H

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct lsim_jax_profile {
  const char *name; /* as jax.__version__ spells it: "0.10.2" */

  /* --- Pallas (pallas/): pallas_call.py, the backends' registrations,
   * tpu_info.py, tpu_custom_call.py, triton/gpu_info.py --------------------- */

  /* Triton's CompilerParams class is registered when
   * jax.experimental.pallas.triton is imported (it imports
   * CUSTOM_CALL_TARGET_NAME from triton/pallas_call_registration.py), not only
   * by the first gpu lowering that picks Triton: 8fde3f3846 (2026-06-24,
   * after 0.10.2).  Before, Triton params reaching tpu_lowering find no rule
   * and Mosaic TPU's rule asserts on them. */
  bool pallas_triton_registered_on_import;
  /* What tpu_info.get_tpu_info appends to "Unsupported TPU device kind:
   * {kind}": nothing, then the use_abstract_mesh hint from 1ebd186c61
   * (2026-08-03, after 0.11.0). */
  const char *pallas_tpu_device_kind_hint;
  /* The device kinds tpu_info.chip_version_from_device_kind knows, NULL
   * terminated; "TPU8t" from a92b670a41 (2026-07-21, after 0.11.0). */
  const char *const *pallas_tpu_device_kinds;
  /* tpu_custom_call._FWD_COMPAT_VERSION: the stable_mosaic.version a Mosaic
   * TPU kernel is serialized at for jax.export or without a TPU backend
   * (get_backend(optional=True) is None): 11, then 13 from 6e8d8e4f62
   * (2026-06-30, 0.11.0). */
  int pallas_mosaic_fwd_compat_version;
  /* MosaicSerdePass::kVersion (jaxlib/mosaic/dialect/tpu/transforms/
   * serde.h), the version otherwise: 15 at every modelled version. */
  int pallas_mosaic_serde_version;
  /* Triton takes the GPU from gpu_info.get_gpu_info() (the abstract mesh's
   * device or the default device; an unknown kind is a RuntimeError)
   * instead of jax.local_devices(backend="gpu") with a 9.0 fallback:
   * 9a42858685 (2026-06-30, 0.11.0).  NULL: the old way; else the GPU kinds
   * gpu_info.GpuVersion knows, NULL terminated. */
  const char *const *pallas_gpu_device_kinds;
  /* gpu_lowering warns (DeprecationWarning) when it picks Triton itself:
   * c486c9d985 (2026-07-13, 0.11.0). */
  bool pallas_triton_deprecated;
  /* Mosaic GPU lowers pl.pallas_call kernels with warpgroup semantics and
   * layout inference: 32915de40f "[Mosaic GPU] Turn WG on by default."
   * (2026-07-16, 0.11.0).  A block whose loads do not fill a warpgroup then
   * fails layout inference, before the copy checks. */
  bool pallas_mosaic_gpu_warpgroup_semantics;
  /* mosaic_gpu-serde's kVersion (jaxlib/mosaic/gpu/serde.cc), the
   * stable_mosaic_gpu.version a Mosaic GPU kernel is serialized at: 6, then
   * 7 from 4656473b67 (2026-08-05, after 0.11.0). */
  int pallas_mosaic_gpu_serde_version;
  /* mosaic/gpu/core.py FWD_COMPAT_IR_VERSION, the version for jax.export
   * (ctx.is_forward_compat()): 2, then 6 from 7a6b8927fe (2026-07-31, after
   * 0.11.0). */
  int pallas_mosaic_gpu_fwd_compat_version;
} lsim_jax_profile;

/* JAX 0.10.2, the newest release for Python 3.11 (the oracle's). */
extern const lsim_jax_profile lsim_jax_0_10_2;
/* JAX at commit 1e1c6a8f (2026-08-27), the seeds' version, named as
 * jax/version.py _version_from_git_tree names it. */
extern const lsim_jax_profile lsim_jax_0_11_1_dev20260827;

/* The profiles, oldest first: lsim_jax_profile_count() of them. */
size_t lsim_jax_profile_count(void);
const lsim_jax_profile *lsim_jax_profile_at(size_t i); /* NULL past the end */

/* The profile named `name`, or NULL. */
const lsim_jax_profile *lsim_jax_profile_find(const char *name);

/* The newest profile: what NULL stands for. */
const lsim_jax_profile *lsim_jax_profile_default(void);

/* `profile`, or the newest when it is NULL. */
const lsim_jax_profile *lsim_jax_profile_or_default(const lsim_jax_profile *profile);

#ifdef __cplusplus
}
#endif

#endif /* LOWERSIM_JAX_PROFILE_H */
