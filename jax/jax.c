/* jax/jax.c: the composition root: the rules a JAX process registers on
 * import (lax, jax.ffi, the callback modules, Pallas), in one registry. */
#include "lowersim/jax.h"
#include "lowersim/buffer_callback.h"
#include "lowersim/callback.h"
#include "lowersim/compute_on.h"
#include "lowersim/conditionals.h"
#include "lowersim/debugging.h"
#include "lowersim/export.h"
#include "lowersim/ffi.h"
#include "lowersim/lax.h"
#include "lowersim/pallas_call.h"

static int register_all(lsim_registry *reg, lsim_pallas *pallas, lsim_error *err) {
  int rc = lsim_register_lax_rules(reg, err);
  if (!rc)
    rc = lsim_register_conditionals_rules(reg, err);
  if (!rc)
    rc = lsim_register_ffi_rules(reg, err);
  if (!rc)
    rc = lsim_register_buffer_callback_rules(reg, err);
  if (!rc)
    rc = lsim_register_callback_rules(reg, err);
  if (!rc)
    rc = lsim_register_debugging_rules(reg, err);
  if (!rc)
    rc = lsim_register_call_exported_rules(reg, err);
  if (!rc)
    rc = lsim_register_compute_on_rules(reg, err);
  if (!rc && pallas)
    rc = lsim_register_pallas_call_rules(reg, pallas, err);
  return rc;
}

int lsim_registry_create_jax(lsim_runtime *runtime, lsim_pallas *pallas,
                             const lsim_jax_profile *profile, lsim_registry **out,
                             lsim_error *err) {
  int rc = lsim_registry_create(runtime, profile, out, err);
  if (!rc && (rc = register_all(*out, pallas, err))) {
    lsim_registry_destroy(*out);
    *out = NULL;
  }
  return rc;
}
