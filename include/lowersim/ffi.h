/* lowersim/ffi.h: lowering rules that call an FFI target.
 * JAX counterpart: jax/_src/ffi.py ffi_lowering (mlir.custom_call with a
 * dictionary backend config, api_version 4, row-major layouts), as a
 * register_lowering rule of a program's own primitives. */
#ifndef LOWERSIM_FFI_H
#define LOWERSIM_FFI_H

#include "lowersim/error.h"
#include "lowersim/registry.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Whether a rule, before its FFI call, asks the module for its backend. */
typedef enum lsim_backend_use {
  LSIM_BACKEND_USE_NONE,
  LSIM_BACKEND_USE_REQUIRED, /* ModuleContext.get_backend() */
  LSIM_BACKEND_USE_OPTIONAL, /* ModuleContext.get_backend(optional=True) */
  LSIM_BACKEND_USE_COUNT
} lsim_backend_use;

/* What a rule of jax.ffi.ffi_lowering(target) is made of. */
typedef struct lsim_ffi_rule {
  const char *target;          /* call_target_name */
  lsim_backend_use backend_use;
} lsim_ffi_rule;

/* The rule jax.ffi.ffi_lowering(rule->target) makes, after the backend
 * access `rule` asks for; `rule` is borrowed (it must outlive the
 * registry). */
lsim_rule lsim_ffi_lowering(const lsim_ffi_rule *rule);

#ifdef __cplusplus
}
#endif

#endif /* LOWERSIM_FFI_H */
