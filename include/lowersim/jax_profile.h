/* lowersim/jax_profile.h: the JAX versions lowersim models.
 *
 * A profile names one JAX release or commit.  Every fact of JAX's that
 * depends on its version is to be a field of this one table, next to the
 * version it belongs to (ctx/jax_profile.c); today the profiles differ only
 * in name.  Functions that take a profile accept NULL for the newest. */
#ifndef LOWERSIM_JAX_PROFILE_H
#define LOWERSIM_JAX_PROFILE_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct lsim_jax_profile {
  const char *name; /* as jax.__version__ spells it: "0.10.2" */
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
