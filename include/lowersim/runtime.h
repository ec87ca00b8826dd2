/* lowersim/runtime.h: platforms, aliases and the simulated JAX runtime.
 *
 * The counterpart of jax/_src/xla_bridge.py.  A runtime holds backend
 * factories (what JAX registers at import time or through PJRT plugins), an
 * optional JAX_PLATFORMS value, and, once initialized, the backends that came
 * up, in initialization order.  It is an object, not global state: create one
 * per simulated process.  A runtime is not thread-safe while it initializes;
 * once lsim_runtime_backends() has succeeded it is only read and may be
 * shared by threads.
 */
#ifndef LOWERSIM_RUNTIME_H
#define LOWERSIM_RUNTIME_H

#include "lowersim/error.h"
#include "lowersim/jax_profile.h"

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Longest platform name lowersim accepts (JAX has no limit; names are short). */
#define LSIM_PLATFORM_NAME_MAX 63

/* --- Platforms and aliases (no runtime needed) -------------------------- */

/* The concrete platforms JAX knows of itself: cpu, cuda, rocm, oneapi, tpu. */
const char *const *lsim_builtin_platforms(size_t *count);

/* expand_platform_alias: "gpu" gives cuda, rocm, oneapi (in that order) in
 * `*out` (a static array); any other name gives itself: `*out` is NULL and
 * `*count` 1, meaning `platform` alone. */
void lsim_expand_platform_alias(const char *platform, const char *const **out, size_t *count);

/* True when `platform` is an alias (today only "gpu"). */
bool lsim_is_platform_alias(const char *platform);

/* Checks a platform name: 1 to LSIM_PLATFORM_NAME_MAX characters from
 * [A-Za-z0-9_.-].  Fails with LSIM_E_INVALID_ARGUMENT. */
int lsim_check_platform_name(const char *platform, lsim_error *err);

/* --- Backend factories --------------------------------------------------- */

/* A backend factory, as register_backend_factory / register_plugin record it.
 * Strings are copied by the runtime. */
typedef struct lsim_backend_factory {
  size_t struct_size; /* LSIM_BACKEND_FACTORY_INIT, or set by lsim_backend_factory_defaults */
  const char *platform;
  int device_count;   /* 0: the backend comes up with no devices */
  int priority;       /* higher wins the default backend */
  bool fail_quietly;  /* a failure is recorded, not raised */
  bool experimental;  /* initializing it logs JAX's experimental warning */
  const char *error;  /* non-NULL: the factory raises this message */
  /* What the backend's devices report (Device.device_kind,
   * Device.compute_capability: "major.minor" or a ROCm "gfx..."); NULL:
   * lsim_default_device_kind and lsim_default_compute_capability of the
   * platform. */
  const char *device_kind;
  const char *compute_capability;
} lsim_backend_factory;

#define LSIM_BACKEND_FACTORY_INIT(...) \
  {.struct_size = sizeof(lsim_backend_factory), __VA_ARGS__}

/* Fills `f` with what JAX registers for `platform`: cpu priority 0 (loud);
 * tpu 300 (quiet); cuda, rocm and oneapi 500 (the jax_plugins packages'
 * register_plugin(priority=500), loud; oneapi experimental, not in
 * _nonexperimental_plugins); any other platform a PJRT plugin with
 * register_plugin's priority 400, loud and experimental.  One device, no
 * error.  `platform` is borrowed. */
void lsim_backend_factory_defaults(lsim_backend_factory *f, const char *platform);

/* An initialized backend (a client, in JAX's terms). Borrowed from its
 * runtime, valid until the runtime is destroyed. */
typedef struct lsim_backend {
  const char *platform;
  int device_count;
  int priority;
  const char *device_kind;        /* every device's Device.device_kind */
  const char *compute_capability; /* Device.compute_capability; NULL: none */
} lsim_backend;

/* A device of an initialized backend (an xc.Device): its backend
 * (borrowed) and its index among the backend's devices (jax.devices()[id]
 * for the default backend). */
typedef struct lsim_device {
  const lsim_backend *backend;
  int id;
} lsim_device;

/* The kind a device of `platform` reports when its factory names none: the
 * oracle's stand-in devices' ("TPU v5 lite" for tpu, a v5e; the platform's
 * name otherwise, as cpu devices report "cpu").  Static. */
const char *lsim_default_device_kind(const char *platform);

/* The compute capability a device of `platform` reports when its factory
 * names none: "9.0" (an H100) for cuda, "gfx942" (an MI300) for rocm, NULL
 * (no such attribute) otherwise.  Static. */
const char *lsim_default_compute_capability(const char *platform);

/* --- The runtime --------------------------------------------------------- */

typedef struct lsim_runtime lsim_runtime;

/* Creates an empty runtime (owned: destroy with lsim_runtime_destroy). */
int lsim_runtime_create(lsim_runtime **out, lsim_error *err);

/* Creates the runtime of a JAX process of version `profile` (NULL: the
 * newest) on a machine with a CPU and without libtpu: the factories
 * xla_bridge registers on import, first in registry order, cpu (one
 * device, priority 0) and tpu (priority 300, fail_quietly, failing with
 * profile->tpu_factory_error).  Registering cpu or tpu again replaces them
 * in place; plugins come after them. */
int lsim_runtime_create_jax(const lsim_jax_profile *profile, lsim_runtime **out, lsim_error *err);

/* lsim_runtime_create_jax for the newest JAX: what a scenario without
 * <runtime> gets. */
int lsim_runtime_create_default(lsim_runtime **out, lsim_error *err);

void lsim_runtime_destroy(lsim_runtime *rt);

/* register_backend_factory: a later registration for the same platform
 * replaces the earlier one (keeping its place).  Fails with
 * LSIM_E_INVALID_ARGUMENT once the runtime is initialized ("Backend {p}
 * already initialized", as JAX's RuntimeError says). */
int lsim_runtime_register_backend_factory(lsim_runtime *rt, const lsim_backend_factory *f,
                                          lsim_error *err);

/* Sets the JAX_PLATFORMS value (copied; NULL or "" unsets it).  Items are
 * checked as platform names; aliases are expanded when backends initialize.
 * Fails with LSIM_E_INVALID_ARGUMENT on an empty or invalid item, or when the
 * runtime is already initialized. */
int lsim_runtime_set_jax_platforms(lsim_runtime *rt, const char *jax_platforms, lsim_error *err);

/* known_platforms(), sorted as Python's sorted() sorts them.  The platforms
 * cpu and tpu are always known: JAX registers their factories on import.
 * The list (borrowed, valid until the next registration) is made on the
 * first call and published atomically, so threads may ask a const runtime
 * at once.  Fails only when out of memory. */
int lsim_runtime_known_platforms(const lsim_runtime *rt, const char *const **out, size_t *count,
                                 lsim_error *err);

/* is_known_platform: a table lookup, which cannot fail. */
bool lsim_runtime_is_known_platform(const lsim_runtime *rt, const char *platform);

/* backends(): initializes the backends on first use, as JAX does, and may
 * fail with LSIM_E_BACKEND_INIT or LSIM_E_NO_DEFAULT_BACKEND.  As in JAX, a
 * failure after some backends came up leaves those backends in place for
 * later calls.  An NVIDIA GPU is visible (hardware_utils.has_visible_nvidia_gpu)
 * exactly when a cuda factory is registered: a JAX_PLATFORMS naming cuda
 * without one skips it silently, and without JAX_PLATFORMS a registered cuda
 * that did not come up (it failed quietly) logs _suggest_missing_backends'
 * warning. */
int lsim_runtime_backends(lsim_runtime *rt, lsim_error *err);

/* The initialized backends in initialization order (after a successful
 * lsim_runtime_backends; otherwise none). */
size_t lsim_runtime_backend_count(const lsim_runtime *rt);
const lsim_backend *lsim_runtime_backend_at(const lsim_runtime *rt, size_t i);

/* The default backend (highest priority, first on ties), or NULL. */
const lsim_backend *lsim_runtime_default_backend(const lsim_runtime *rt);

/* The error a quietly failing factory recorded for `platform`, or NULL. */
const char *lsim_runtime_backend_error(const lsim_runtime *rt, const char *platform);

/* The warnings of the process, in the order given: Python's
 * warnings.warn(message, category) and the WARNING records of JAX's loggers
 * (the category is then the logger's name, e.g. "jax._src.xla_bridge" for
 * the experimental-plugin warning).  Both strings are copied. */
int lsim_runtime_warn(lsim_runtime *rt, const char *category, const char *message,
                      lsim_error *err);

/* The warnings so far: message and category of the i-th.  Borrowed. */
size_t lsim_runtime_warning_count(const lsim_runtime *rt);
const char *lsim_runtime_warning_at(const lsim_runtime *rt, size_t i);
const char *lsim_runtime_warning_category(const lsim_runtime *rt, size_t i);

/* The logger xla_bridge's warnings come from. */
#define LSIM_XLA_BRIDGE_LOGGER "jax._src.xla_bridge"

/* canonicalize_platform: a non-alias is returned unchanged (without
 * initializing anything); "gpu" becomes the first of cuda, rocm, oneapi with
 * an initialized backend, else LSIM_E_UNKNOWN_ALIAS_PLATFORM.  `*out` is
 * `platform` itself for a non-alias, else a string owned by the runtime. */
int lsim_runtime_canonicalize_platform(lsim_runtime *rt, const char *platform, const char **out,
                                       lsim_error *err);

/* get_backend(platform): NULL gives the default backend.  Errors:
 * LSIM_E_BACKEND_INIT (from backends()), LSIM_E_UNKNOWN_ALIAS_PLATFORM,
 * LSIM_E_BACKEND_FAILED (a quiet failure recorded for it) and
 * LSIM_E_UNKNOWN_BACKEND. */
int lsim_runtime_get_backend(lsim_runtime *rt, const char *platform, const lsim_backend **out,
                             lsim_error *err);

#ifdef __cplusplus
}
#endif

#endif /* LOWERSIM_RUNTIME_H */
