/* lower/lower_jaxpr_to_module.c: a program lowered to a module.
 * JAX counterpart: mlir.py lower_jaxpr_to_module (for one partition and
 * the straight-line programs lowersim describes): the ModuleContext, the
 * donation checks and aliases, the module's attributes, main, and
 * verification. */
#include "lower_jaxpr_to_module.h"
#include "donation.h"
#include "lower_jaxpr_to_fun.h"
#include "lowersim/emit.h"
#include "lowersim/verify.h"
#include "support/raise.h"
#include "support/strbuf.h"

#include <mlir-c/BuiltinAttributes.h>
#include <mlir-c/BuiltinTypes.h>

#include <stdlib.h>

static void set_attribute(MlirOperation op, const char *name, MlirAttribute value) {
  mlirOperationSetAttributeByName(op, mlirStringRefCreateFromCString(name), value);
}

/* sym_name, mhlo.num_replicas and mhlo.num_partitions (jax.export adds
 * jax.uses_shape_polymorphism afterwards: export.c). */
static void set_module_attributes(lsim_module_context *mc, const char *name) {
  MlirOperation module = mlirModuleGetOperation(lsim_module_context_module(mc));
  MlirContext mlir = lsim_module_context_mlir_context(mc);
  MlirType i32 = mlirIntegerTypeGet(mlir, 32);
  set_attribute(module, "sym_name", lsim_string_attr(mlir, name));
  set_attribute(module, "mhlo.num_replicas", mlirIntegerAttrGet(i32, 1));
  set_attribute(module, "mhlo.num_partitions", mlirIntegerAttrGet(i32, 1));
}

static void narrate_start(lsim_module_context *mc) {
  if (!lsim_module_context_explaining(mc))
    return;
  size_t n;
  const char *const *p = lsim_module_context_platforms(mc, &n);
  const lsim_backend *pinned = lsim_module_context_pinned_backend(mc);
  lsimp_strbuf line = LSIMP_STRBUF_INIT;
  lsimp_py_tuple(&line, p, n);
  lsim_module_context_explain(mc, LSIM_EXPLAIN_STEP, 0,
                              "lowering platforms (canonicalized): %s%s",
                              lsimp_strbuf_cstr(&line),
                              n > 1 ? "  -> main takes the platform index first" : "");
  if (pinned)
    lsim_module_context_explain(mc, LSIM_EXPLAIN_DETAIL, 0,
                                "ModuleContext.backend: %s (the device's)", pinned->platform);
  else
    lsim_module_context_explain(mc, LSIM_EXPLAIN_DETAIL, 0, "ModuleContext.backend: None");
  lsimp_strbuf_free(&line);
}

static int verify(lsim_module_context *mc, lsim_error *err) {
  int rc = lsim_verify_module(lsim_module_context_module(mc), err);
  if (!rc)
    lsim_module_context_explain(mc, LSIM_EXPLAIN_STEP, 0,
                                "verified: MLIR's verifier and lowersim's stablehlo checks pass");
  return rc;
}

/* Everything after the module context exists. */
static int lower_module(lsim_module_context *mc, const lsimp_module_request *req,
                        lsim_error *err) {
  const lsim_program *jaxpr = req->jaxpr;
  size_t n, num_values = lsim_program_num_values(jaxpr);
  const char *const *platforms = lsim_module_context_platforms(mc, &n);
  int rc = lsimp_check_donation(jaxpr, platforms, n, err);
  if (rc)
    return rc;
  narrate_start(mc);
  lsim_aval *avals = malloc((num_values + 1) * sizeof *avals);
  lsimp_donation d = {malloc((jaxpr->num_args + 1) * sizeof *d.alias_of),
                      malloc((jaxpr->num_args + 1) * sizeof *d.donor)};
  rc = avals && d.alias_of && d.donor ? LSIM_OK : lsimp_fail_oom(err);
  if (!rc) {
    lsim_program_value_avals(jaxpr, avals);
    rc = lsimp_set_up_aliases(mc, jaxpr, avals, num_values, &d, err);
  }
  lsimp_fun fun = {"main", jaxpr, avals, num_values, &d, n > 1,
                    lsim_program_has_ordered_effects(jaxpr)};
  if (!rc) {
    set_module_attributes(mc, req->module_name);
    rc = lsimp_lower_jaxpr_to_fun(mc, req->registry, &fun, err);
  }
  if (!rc && req->verify)
    rc = verify(mc, err);
  free(avals);
  free(d.alias_of);
  free(d.donor);
  return rc;
}

int lsimp_lower_jaxpr_to_module(const lsimp_module_request *req, lsim_module_context **out,
                                lsim_error *err) {
  lsim_module_context *mc = NULL;
  *out = NULL;
  int rc = lsim_module_context_create(req->context, &mc, err);
  if (rc)
    return rc;
  rc = lower_module(mc, req, err);
  if (rc) {
    lsim_module_context_explain(mc, LSIM_EXPLAIN_ERROR, 0, "%s: %s", lsim_error_class(err),
                                lsim_error_message(err));
    lsim_module_context_destroy(mc);
    return rc;
  }
  *out = mc;
  return LSIM_OK;
}
