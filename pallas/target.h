/* pallas/target.h: the device a Pallas backend lowers for.  Private to
 * pallas/.
 *
 * JAX's backends do not read the lowering platform's device: they read the
 * process's default device (pxla.get_default_device()) or, inside a
 * use_abstract_mesh block, the abstract mesh's device.  JAX counterparts:
 * pallas/mosaic/tpu_info.py (get_device_kind, get_tpu_info),
 * pallas/triton/gpu_info.py (get_device_kind, get_gpu_info) and
 * pallas/triton/pallas_call_registration.py (the device before gpu_info),
 * experimental/mosaic/gpu/core.py (_infer_arch). */
#ifndef LSIMP_PALLAS_TARGET_H
#define LSIMP_PALLAS_TARGET_H

#include "lowersim/lowering_rule_context.h"

/* ModuleContext.get_backend(optional=True) as jit's module context answers
 * it: its backend is the pinned one (jit(backend=)), else the default
 * device's, and it is given only when its platform is the one lowering
 * platform; *out is NULL otherwise. */
int lsimp_jit_backend(const lsim_lowering_rule_context *ctx, const lsim_backend **out,
                      lsim_error *err);

/* tpu_info.get_tpu_info(): the abstract device's kind, else the default
 * device's, must be a TPU the profile knows (else
 * LSIM_E_PALLAS_TPU_DEVICE_KIND). */
int lsimp_tpu_info(const lsim_lowering_rule_context *ctx, lsim_error *err);

/* The GPU Triton's lowering reads (its compute capability matters only to
 * float8 casts, which lowersim's kernels do not make): before 9a42858685
 * jax.local_devices(backend="gpu")[0], whose "major.minor" becomes an int
 * unless lowering for ROCm (a "gfx..." fails, a device without one is
 * LSIM_E_PALLAS_NO_COMPUTE_CAPABILITY), 9.0 without a GPU backend; from it
 * gpu_info.get_gpu_info(), LSIM_E_PALLAS_TRITON_NO_GPU when it knows no
 * such GPU. */
int lsimp_triton_gpu(const lsim_lowering_rule_context *ctx, bool rocm, lsim_error *err);

/* Mosaic GPU's _infer_arch(): (9, 0) for a device without a compute
 * capability (the abstract device has none), else its "major.minor"; a ROCm
 * "gfx..." is LSIM_E_PALLAS_MOSAIC_GPU_ARCH. */
int lsimp_mosaic_gpu_arch(const lsim_lowering_rule_context *ctx, int *major, int *minor,
                          lsim_error *err);

#endif
