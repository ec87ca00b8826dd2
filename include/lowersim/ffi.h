/* lowersim/ffi.h: lowering rules that call an FFI target, and ffi_call.
 * JAX counterpart: jax/_src/ffi.py ffi_lowering (mlir.custom_call with a
 * dictionary backend config, api_version 4, row-major layouts), as a
 * register_lowering rule of a program's own primitives; ffi_call_p and
 * ffi_call_lowering (jax.ffi.ffi_call). */
#ifndef LOWERSIM_FFI_H
#define LOWERSIM_FFI_H

#include "lowersim/error.h"
#include "lowersim/io_alias.h"
#include "lowersim/primitive.h"
#include "lowersim/program.h"
#include "lowersim/registry.h"

#include <stdbool.h>

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

/* jax.ffi.ffi_call(target_name, result_shape_dtypes, has_side_effect=...,
 * vmap_method=..., input_output_aliases=..., custom_call_api_version=...,
 * legacy_backend_config=...)(*args): the params of its equation (borrowed),
 * whose results are the result_shape_dtypes.  Row-major layouts, no
 * attributes.  Checked while tracing as ffi_call checks them: vmap_method,
 * legacy_backend_config with the typed FFI, then each alias (lsim_io_alias
 * checks).  Lowered as ffi_call_lowering: api version 4 (the typed FFI) is
 * api_version = 1 with mhlo.backend_config = {}; a lower one is that
 * api_version with backend_config = legacy_backend_config (or ""); the
 * aliases as output_operand_aliases, sorted by input.  The target is not
 * looked up: JAX lowers a call to a target no platform registered the
 * same (XLA finds the handler, or fails, when it compiles). */
typedef struct lsim_ffi_call_params {
  const char *target_name;
  bool has_side_effect;               /* an unordered effect: no token */
  const lsim_io_alias *aliases;       /* input_output_aliases (a dict), or NULL */
  size_t num_aliases;
  int custom_call_api_version;        /* 0: the default, 4 (version 0 is not expressible) */
  const char *legacy_backend_config;  /* NULL: None */
  const char *vmap_method;            /* NULL: None */
} lsim_ffi_call_params;

extern const lsim_primitive lsim_ffi_call_p;

/* Makes `eqn` an ffi_call equation with `params` (borrowed). */
static inline void lsim_ffi_call_bind(lsim_eqn *eqn, const lsim_ffi_call_params *params) {
  eqn->primitive = &lsim_ffi_call_p;
  eqn->params = params;
}

/* Registers ffi_call_lowering, the default rule of ffi_call_p. */
int lsim_register_ffi_rules(lsim_registry *reg, lsim_error *err);

#ifdef __cplusplus
}
#endif

#endif /* LOWERSIM_FFI_H */
