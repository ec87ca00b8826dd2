/* pallas/target.c: the device a Pallas backend lowers for: the abstract
 * mesh's device inside use_abstract_mesh, else the default device. */
#include "target.h"
#include "lowersim/module_context.h"
#include "support/raise.h"

#include <stdio.h>
#include <string.h>

/* pxla.get_default_device(): the first device of the default backend. */
static int default_device(const lsim_lowering_rule_context *ctx, const lsim_backend **out,
                          lsim_error *err) {
  return lsim_runtime_get_backend(lsim_module_context_runtime(ctx->module_context), NULL, out,
                                  err);
}

int lsimp_jit_backend(const lsim_lowering_rule_context *ctx, const lsim_backend **out,
                      lsim_error *err) {
  const lsim_module_context *mc = ctx->module_context;
  size_t n;
  const char *const *platforms = lsim_module_context_platforms(mc, &n);
  const lsim_backend *b = lsim_module_context_pinned_backend(mc);
  *out = NULL;
  int rc = b || n > 1 ? LSIM_OK : default_device(ctx, &b, err);
  if (rc || n > 1)
    return rc;
  const char *platform;
  rc = lsim_runtime_canonicalize_platform(lsim_module_context_runtime(mc), b->platform, &platform,
                                          err);
  if (!rc && strcmp(platform, platforms[0]) == 0)
    *out = b;
  return rc;
}

static bool starts_with(const char *s, const char *prefix) {
  return strncmp(s, prefix, strlen(prefix)) == 0;
}

int lsimp_tpu_info(const lsim_lowering_rule_context *ctx, lsim_error *err) {
  const lsim_module_context *mc = ctx->module_context;
  const lsim_abstract_device *abstract = lsim_module_context_abstract_device(mc);
  const char *kind;
  if (abstract) {
    kind = abstract->device_kind;
  } else {
    const lsim_backend *device;
    int rc = default_device(ctx, &device, err);
    if (rc)
      return rc;
    kind = device->device_kind;
  }
  const lsim_jax_profile *profile = lsim_module_context_profile(mc);
  lsim_module_context_explain(mc, LSIM_EXPLAIN_DECISION, 0, "tpu_info.get_tpu_info(): %s device kind '%s'",
                              abstract ? "the abstract" : "the default", kind);
  if (lsim_jax_strings_contain(&profile->pallas_tpu_device_kinds, kind))
    return LSIM_OK;
  return lsimp_raise(err, LSIM_E_PALLAS_TPU_DEVICE_KIND, kind, profile->pallas_tpu_device_kind_hint);
}

/* gpu_info.gpu_version_from_device_kind: one of GpuVersion's values at the
 * start of the kind, ending at a word boundary (the regex \b(...)\b). */
static bool known_gpu(const lsim_jax_strings *kinds, const char *kind) {
  for (size_t i = 0; i < kinds->count; i++) {
    size_t n = strlen(kinds->items[i]);
    if (strncmp(kind, kinds->items[i], n) != 0)
      continue;
    char next = kind[n];
    bool word = (next >= 'A' && next <= 'Z') || (next >= 'a' && next <= 'z') ||
                (next >= '0' && next <= '9') || next == '_';
    if (!word)
      return true;
  }
  return false;
}

static bool is_gpu_platform(const char *platform) {
  return strcmp(platform, "gpu") == 0 || strcmp(platform, "cuda") == 0 ||
         strcmp(platform, "rocm") == 0;
}

/* gpu_info.get_gpu_info(): whether it knows the target GPU. */
static int gpu_info(const lsim_lowering_rule_context *ctx, bool *known, lsim_error *err) {
  const lsim_module_context *mc = ctx->module_context;
  const lsim_jax_profile *profile = lsim_module_context_profile(mc);
  const lsim_abstract_device *abstract = lsim_module_context_abstract_device(mc);
  const lsim_backend *device;
  int rc = default_device(ctx, &device, err);
  if (rc)
    return rc;
  /* get_device_kind */
  /* (A gfx abstract kind equal to the default device's is taken as it is
   * from 0aad96ff9a; the kind is then known either way.) */
  const char *kind = device->device_kind;
  const char *cc = device->compute_capability;
  if (abstract && (starts_with(abstract->device_kind, "gfx") ||
                   strcmp(abstract->device_kind, device->device_kind) != 0))
    kind = abstract->device_kind;
  else if (cc && starts_with(cc, "gfx"))
    kind = cc;
  /* get_device_platform */
  const char *platform = abstract ? abstract->platform : device->platform;
  *known = known_gpu(&profile->pallas_gpu_device_kinds, kind) ||
           (is_gpu_platform(platform) && starts_with(kind, "gfx"));
  /* From 0.11.2 any NVIDIA kind is a GPU whose arch is the default device's
   * compute capability (_get_device_arch_name), which an abstract device of
   * another kind cannot give (its ValueError, which pallas_call_lowering
   * turns into the same RuntimeError as an unknown kind). */
  if (!*known && profile->pallas_gpu_info_generic_nvidia && is_gpu_platform(platform) &&
      starts_with(kind, "NVIDIA") && strcmp(kind, device->device_kind) == 0)
    *known = true;
  lsim_module_context_explain(mc, LSIM_EXPLAIN_DECISION, 0,
                              "gpu_info.get_gpu_info(): device kind '%s' on %s: %s", kind,
                              platform, *known ? "known" : "unknown (ValueError)");
  return LSIM_OK;
}

int lsimp_triton_gpu(const lsim_lowering_rule_context *ctx, bool rocm, lsim_error *err) {
  const lsim_module_context *mc = ctx->module_context;
  const lsim_jax_profile *profile = lsim_module_context_profile(mc);
  if (profile->pallas_triton_gpu_info) {
    bool known;
    int rc = gpu_info(ctx, &known, err);
    return rc ? rc : known ? LSIM_OK : lsimp_raise0(err, LSIM_E_PALLAS_TRITON_NO_GPU);
  }
  /* jax.local_devices(backend="gpu"), a RuntimeError meaning no GPU. */
  const lsim_backend *gpu;
  lsim_error ignored = LSIM_ERROR_INIT;
  int rc = lsim_runtime_get_backend(lsim_module_context_runtime(mc), "gpu", &gpu, &ignored);
  lsim_error_clear(&ignored);
  if (rc == LSIM_E_NO_MEMORY)
    return lsimp_fail_oom(err);
  if (rc) {
    lsim_module_context_explain(mc, LSIM_EXPLAIN_DECISION, 0,
                                "jax.local_devices(backend='gpu') raises RuntimeError (no gpu "
                                "backend): compute capability 90, the fallback");
    return LSIM_OK;
  }
  if (!gpu->compute_capability)
    return lsimp_raise0(err, LSIM_E_PALLAS_NO_COMPUTE_CAPABILITY);
  lsim_module_context_explain(mc, LSIM_EXPLAIN_DECISION, 0,
                              "jax.local_devices(backend='gpu')[0]: %s, compute capability %s",
                              gpu->platform, gpu->compute_capability);
  if (rocm)
    return LSIM_OK;
  /* int(arch_name.replace(".", "")): a compute capability is "major.minor"
   * or a ROCm "gfx..." (lsim_check_compute_capability). */
  if (!starts_with(gpu->compute_capability, "gfx"))
    return LSIM_OK;
  return lsimp_raise(err, LSIM_E_PALLAS_TRITON_ARCH, gpu->compute_capability);
}

int lsimp_mosaic_gpu_arch(const lsim_lowering_rule_context *ctx, int *major, int *minor,
                          lsim_error *err) {
  *major = 9, *minor = 0;
  const lsim_abstract_device *abstract = lsim_module_context_abstract_device(ctx->module_context);
  const lsim_jax_profile *profile = lsim_module_context_profile(ctx->module_context);
  bool same_kind = profile->pallas_mosaic_gpu_arch_same_kind;
  if (abstract && !same_kind)
    return LSIM_OK; /* an AbstractDevice has no compute_capability */
  const lsim_backend *device;
  int rc = default_device(ctx, &device, err);
  if (rc || !device->compute_capability)
    return rc;
  /* From 9b4aabf5d7 the default device stands for an abstract device of
   * its own kind. */
  if (abstract && strcmp(abstract->device_kind, device->device_kind) != 0)
    return LSIM_OK;
  const char *cc = device->compute_capability;
  if (starts_with(cc, "gfx"))
    return lsimp_raise(err, LSIM_E_PALLAS_MOSAIC_GPU_ARCH, cc);
  if (sscanf(cc, "%d.%d", major, minor) != 2)
    return lsim_error_set(err, LSIM_E_INVALID_ARGUMENT,
                          "compute capability '%s' is not major.minor", cc);
  return LSIM_OK;
}
