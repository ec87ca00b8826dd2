/* ctx/jax_profile.c: the JAX versions lowersim models, newest last.  A fact
 * of JAX's that depends on the version becomes a field of lsim_jax_profile,
 * filled in each row with what that version does. */
#include "lowersim/jax_profile.h"

#include <string.h>

/* --- Pallas ------------------------------------------------------------------ */

/* tpu_info.chip_version_from_device_kind's cases (jax/_src/pallas/mosaic/
 * tpu_info.py at 0.10.2; jax/_src/tpu_info.py at the seed). */
static const char *const tpu_kinds_0_10_2[] = {
    "TPU v2", "TPU v3", "TPU v4", "TPU v4 lite", "TPU v5e", "TPU v5 lite", "TPU v5", "TPU v5p",
    "TPU v6e", "TPU v6 lite", "TPU7", "TPU7x", "TPU8i", NULL};
static const char *const tpu_kinds_seed[] = {
    "TPU v2", "TPU v3", "TPU v4", "TPU v4 lite", "TPU v5e", "TPU v5 lite", "TPU v5",
    "TPU v5p", "TPU v6e", "TPU v6 lite", "TPU7", "TPU7x", "TPU8i", "TPU8t", NULL};

/* gpu_info.GpuVersion's values (jax/_src/pallas/triton/gpu_info.py, the same
 * from 0.11.0 to the seed). */
static const char *const gpu_kinds_seed[] = {
    "NVIDIA A10", "NVIDIA A30", "NVIDIA A100", "NVIDIA H100", "NVIDIA H200",
    "NVIDIA GH200", "NVIDIA B200", "NVIDIA GB200", "NVIDIA B300", "NVIDIA GB300",
    "NVIDIA GB10", "NVIDIA L4", "NVIDIA L40", "Tesla T4", "NVIDIA GeForce RTX 4090",
    "NVIDIA RTX PRO 4500", "NVIDIA RTX PRO 5000", "NVIDIA RTX PRO 6000", "NVIDIA Thor", NULL};

#define TPU_KIND_HINT                                                                              \
  ". If you are not running on a TPU device, you need to wrap your code in a "                    \
  "`jax.sharding.use_abstract_mesh` context manager whose `AbstractMesh` argument specifies "     \
  "the exact TPU version you intend to target."

/* --- The profiles -------------------------------------------------------------- */

const lsim_jax_profile lsim_jax_0_10_2 = {
    .name = "0.10.2",
    .pallas_triton_registered_on_import = false,
    .pallas_tpu_device_kind_hint = "",
    .pallas_tpu_device_kinds = tpu_kinds_0_10_2,
    .pallas_mosaic_fwd_compat_version = 11,
    .pallas_mosaic_serde_version = 15,
    .pallas_gpu_device_kinds = NULL,
    .pallas_triton_deprecated = false,
    .pallas_mosaic_gpu_warpgroup_semantics = false,
    .pallas_mosaic_gpu_serde_version = 6,
    .pallas_mosaic_gpu_fwd_compat_version = 2,
};

const lsim_jax_profile lsim_jax_0_11_1_dev20260827 = {
    .name = "0.11.1.dev20260827+1e1c6a8f",
    .pallas_triton_registered_on_import = true,
    .pallas_tpu_device_kind_hint = TPU_KIND_HINT,
    .pallas_tpu_device_kinds = tpu_kinds_seed,
    .pallas_mosaic_fwd_compat_version = 13,
    .pallas_mosaic_serde_version = 15,
    .pallas_gpu_device_kinds = gpu_kinds_seed,
    .pallas_triton_deprecated = true,
    .pallas_mosaic_gpu_warpgroup_semantics = true,
    .pallas_mosaic_gpu_serde_version = 7,
    .pallas_mosaic_gpu_fwd_compat_version = 6,
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
