/* ctx/jax_profile.c: the JAX versions lowersim models, newest last.  A fact
 * of JAX's that depends on the version becomes a field of lsim_jax_profile,
 * filled in each row with what that version does. */
#include "lowersim/jax_profile.h"

#include <string.h>

const lsim_jax_profile lsim_jax_0_10_2 = {
    .name = "0.10.2",
    /* Host callbacks, sharding and effects. */
    .use_shardy_partitioner = true,
    .buffer_callback_oneapi = false,
    .uncached_multi_platform_type_error = true,
};

const lsim_jax_profile lsim_jax_0_11_1_dev20260827 = {
    .name = "0.11.1.dev20260827+1e1c6a8f",
    /* Host callbacks, sharding and effects. */
    .use_shardy_partitioner = true,
    .buffer_callback_oneapi = true, /* seed 004, buffer_callback.py L239-248 */
    .uncached_multi_platform_type_error = true,
};

static const lsim_jax_profile *const profiles[] = {&lsim_jax_0_10_2, &lsim_jax_0_11_1_dev20260827};

#define NUM_PROFILES (sizeof profiles / sizeof profiles[0])

size_t lsim_jax_profile_count(void) { return NUM_PROFILES; }

const lsim_jax_profile *lsim_jax_profile_at(size_t i) {
  return i < NUM_PROFILES ? profiles[i] : NULL;
}

const lsim_jax_profile *lsim_jax_profile_find(const char *name) {
  for (size_t i = 0; name && i < NUM_PROFILES; i++)
    if (strcmp(profiles[i]->name, name) == 0)
      return profiles[i];
  return NULL;
}

const lsim_jax_profile *lsim_jax_profile_default(void) { return profiles[NUM_PROFILES - 1]; }

const lsim_jax_profile *lsim_jax_profile_or_default(const lsim_jax_profile *profile) {
  return profile ? profile : lsim_jax_profile_default();
}
