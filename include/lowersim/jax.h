/* lowersim/jax.h: the rules of a JAX process, registered as JAX registers
 * them when it is imported.
 *
 * This is lowersim's composition root: the one place that knows every
 * feature folder.  A program that lowers what JAX lowers makes its registry
 * here; one that models something else builds a registry of its own with
 * lsim_registry_create and the features' registration functions. */
#ifndef LOWERSIM_JAX_H
#define LOWERSIM_JAX_H

#include "lowersim/error.h"
#include "lowersim/jax_profile.h"
#include "lowersim/pallas.h"
#include "lowersim/registry.h"
#include "lowersim/runtime.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Creates the registry (owned) of a JAX process of version `profile` (NULL:
 * the newest) with `runtime` (borrowed) as its xla_bridge state: lax's
 * elementwise primitives and platform_dependent (lax.h, conditionals.h),
 * jax.ffi.ffi_call (ffi.h), buffer_callback, pure_callback, io_callback and jax.debug.callback
 * (buffer_callback.h, callback.h, debugging.h) and, when `pallas` is not
 * NULL, pallas_call lowering with that Pallas state (borrowed; it must
 * outlive the registry's lowerings). */
int lsim_registry_create_jax(lsim_runtime *runtime, lsim_pallas *pallas,
                             const lsim_jax_profile *profile, lsim_registry **out,
                             lsim_error *err);

#ifdef __cplusplus
}
#endif

#endif /* LOWERSIM_JAX_H */
