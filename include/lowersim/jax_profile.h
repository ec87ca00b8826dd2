/* lowersim/jax_profile.h: the JAX versions lowersim models.
 *
 * A profile names one JAX release or commit.  Every fact of JAX's that
 * depends on its version is to be a field of this one table, next to the
 * version it belongs to (ctx/jax_profile.c), in blocks by area.  Functions that take a profile accept NULL for the newest. */
#ifndef LOWERSIM_JAX_PROFILE_H
#define LOWERSIM_JAX_PROFILE_H

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct lsim_jax_profile {
  const char *name; /* as jax.__version__ spells it: "0.10.2" */

  /* --- Host callbacks, sharding and effects (callback.py, debugging.py,
   * buffer_callback.py, mlir.py) --- */
  /* config.py jax_use_shardy_partitioner's default (True since df8e17a549,
   * 2025-07-20): callbacks carry sdy.sharding (maximal on a device) and the
   * module sdy.mesh ops; else mhlo.sharding = "{maximal device=0}". */
  bool use_shardy_partitioner;
  /* buffer_callback.py _buffer_callback_lowering: oneapi has a target
   * (xla_buffer_python_gpu_callback) and takes the _cmd_buffer suffix; before,
   * it is "`buffer_callback` not supported on oneapi backend." (seed
   * 1e1c6a8f; not at 0.10.2, 0.11.0 or the mirror's HEAD cec06d116c). */
  bool buffer_callback_oneapi;
  /* mlir.py lower_per_platform: an equation lowered through
   * _uncached_lowering (a primitive registered with cacheable=False, e.g.
   * debug_callback) has a tuple avals_out, and `[token] * n + ctx.avals_out`
   * raises TypeError once two rules are kept (since 38581b7f80, 2025-09-22;
   * still at 0.11.0 and HEAD). */
  bool uncached_multi_platform_type_error;
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
