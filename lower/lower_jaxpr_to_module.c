/* lower/lower_jaxpr_to_module.c: a program lowered to a module.
 * JAX counterpart: mlir.py lower_jaxpr_to_module (for one partition and
 * the straight-line programs lowersim describes): the ModuleContext, the
 * donation checks and aliases, the module's attributes, main, and
 * verification. */
#include "lower_jaxpr_to_module.h"
#include "donation.h"
#include "lower_jaxpr_to_fun.h"
#include "lowersim/alloc.h"
#include "lowersim/compute_on.h"
#include "lowersim/emit.h"
#include "lowersim/export.h"
#include "lowersim/sharding.h"
#include "lowersim/verify.h"
#include "support/raise.h"
#include "support/strbuf.h"

#include <mlir-c/BuiltinAttributes.h>
#include <mlir-c/BuiltinTypes.h>

#include <stdlib.h>

static void set_attribute(MlirOperation op, const char *name, MlirAttribute value) {
  mlirOperationSetAttributeByName(op, mlirStringRefCreateFromCString(name), value);
}

/* sym_name, mhlo.num_replicas (1 under jit) and mhlo.num_partitions (the
 * device count); jax.export adds jax.uses_shape_polymorphism afterwards
 * (export.c). */
static void set_module_attributes(lsim_module_context *mc, const char *name) {
  MlirOperation module = mlirModuleGetOperation(lsim_module_context_module(mc));
  MlirContext mlir = lsim_module_context_mlir_context(mc);
  MlirType i32 = mlirIntegerTypeGet(mlir, 32);
  set_attribute(module, "sym_name", lsim_string_attr(mlir, name));
  set_attribute(module, "mhlo.num_replicas", mlirIntegerAttrGet(i32, 1));
  set_attribute(module, "mhlo.num_partitions",
                mlirIntegerAttrGet(i32, (int64_t)lsim_module_context_num_devices(mc)));
}

static void narrate_start(lsim_module_context *mc) {
  if (!lsim_module_context_explaining(mc))
    return;
  size_t n;
  const char *const *p = lsim_module_context_platforms(mc, &n);
  const lsim_backend *pinned = lsim_module_context_pinned_backend(mc);
  lsimp_strbuf line = LSIMP_STRBUF_INIT;
  lsimp_py_tuple(&line, p, n);
  lsim_module_context_explain_source(mc, LSIM_JAX_SOURCE("jax/_src/interpreters/mlir.py", "lower_jaxpr_to_module"));
  lsim_module_context_explain(mc, LSIM_EXPLAIN_STEP, 0,
                              "lowering platforms (canonicalized): %s%s",
                              lsimp_strbuf_cstr(&line),
                              n > 1 ? "  -> main takes the platform index first" : "");
  if (pinned)
    lsim_module_context_explain(mc, LSIM_EXPLAIN_DETAIL, 0,
                                "ModuleContext.backend: %s (the device's)", pinned->platform);
  else
    lsim_module_context_explain(mc, LSIM_EXPLAIN_DETAIL, 0, "ModuleContext.backend: None");
  size_t devices = lsim_module_context_num_devices(mc);
  lsim_module_context_explain(mc, LSIM_EXPLAIN_DETAIL, 0,
                              "device assignment: %zu device%s  -> mhlo.num_partitions = %zu",
                              devices, devices == 1 ? " (the pinned or default backend's first)"
                                                    : "s (jit's in_shardings)",
                              devices);
  lsimp_strbuf_free(&line);
}

/* The sdy-lift-inlined-meshes pass that follows with Shardy: each mesh the
 * shardings name becomes an sdy.mesh op at the top of the module. */
static int lift_meshes(lsim_module_context *mc, lsim_error *err) {
  size_t n = lsim_module_context_mesh_count(mc);
  int rc = lsim_emit_module_meshes(mc, err);
  if (!rc && n && lsim_module_context_profile(mc)->use_shardy_partitioner) {
    char name[48];
    lsimp_strbuf line = LSIMP_STRBUF_INIT;
    for (size_t i = 0; i < n; i++)
      lsimp_strbuf_printf(&line, "%s@%s", i ? ", " : "",
                          lsim_mesh_name(lsim_module_context_mesh_at(mc, i), name, sizeof name));
    lsim_module_context_explain_source(mc, LSIM_JAX_SOURCE("jax/_src/interpreters/mlir.py", "lower_jaxpr_to_module"));
    lsim_module_context_explain(mc, LSIM_EXPLAIN_STEP, 0,
                                "sdy-lift-inlined-meshes: sdy.mesh %s first in the module",
                                lsimp_strbuf_cstr(&line));
    lsimp_strbuf_free(&line);
  }
  return rc;
}

/* `ordered effects: OrderedIO, OrderedDebug  -> main threads one token each`. */
static void narrate_effects(lsim_module_context *mc, const lsim_effect_kind *effects, size_t n) {
  if (!n || !lsim_module_context_explaining(mc))
    return;
  lsimp_strbuf line = LSIMP_STRBUF_INIT;
  for (size_t i = 0; i < n; i++)
    lsimp_strbuf_printf(&line, "%s%s", i ? ", " : "", lsim_effect_kind_name(effects[i]));
  lsim_module_context_explain_source(mc, LSIM_JAX_SOURCE("jax/_src/interpreters/mlir.py", "lower_jaxpr_to_module"));
  lsim_module_context_explain(mc, LSIM_EXPLAIN_STEP, 0,
                              "ordered effects: %s  -> main takes and returns one token each, "
                              "in the order the program first has them (JAX's is a set's)",
                              lsimp_strbuf_cstr(&line));
  lsimp_strbuf_free(&line);
}

static int verify(lsim_module_context *mc, lsim_error *err) {
  int rc = lsim_verify_module(lsim_module_context_module(mc), err);
  if (!rc) {
    lsim_module_context_explain_source(mc, LSIM_JAX_SOURCE("jax/_src/interpreters/mlir.py", "lower_jaxpr_to_module"));
    lsim_module_context_explain(mc, LSIM_EXPLAIN_STEP, 0,
                                "verified: MLIR's verifier and lowersim's stablehlo checks pass");
  }
  return rc;
}

/* pxla.jaxpr_transfer_mem_kinds found a memory kind other than device: an
 * output of compute_on or call_exported in host memory.  (Nested jaxprs
 * hold neither in lowersim's programs.)  jit then gives every result of
 * main its out aval's memory kind (propagated_out_mem_kinds). */
static bool transfers_memory_kind(const lsim_program *jaxpr) {
  for (size_t i = 0; i < jaxpr->num_eqns; i++) {
    const lsim_eqn *e = &jaxpr->eqns[i];
    if (e->primitive != &lsim_compute_on_p && e->primitive != &lsim_call_exported_p)
      continue;
    for (size_t r = 0; r < e->num_results; r++)
      if (e->results[r].memory_space != LSIM_MEMORY_DEVICE)
        return true;
  }
  return false;
}

/* lower_jaxpr_to_fun prefixes the result memory kinds with one per token but
 * not the propagated ones, so its safe_zip of the two (and the output types)
 * fails when main returns tokens (JAX 0.10.2 and the seeds' JAX alike). */
static int memory_kinds_with_tokens(const lsim_program *jaxpr, size_t num_effects,
                                    lsim_error *err) {
  char outs[24], all[24];
  size_t num_outputs = lsim_program_num_outputs(jaxpr);
  snprintf(outs, sizeof outs, "%zu", num_outputs);
  snprintf(all, sizeof all, "%zu", num_outputs + num_effects);
  return lsimp_raise(err, LSIM_E_MEMORY_KINDS_TOKENS, all, outs);
}

/* Everything after the module context exists. */
static int lower_module(lsim_module_context *mc, const lsimp_module_request *req,
                        lsim_error *err) {
  const lsim_program *jaxpr = req->jaxpr;
  size_t n, num_values = lsim_program_num_values(jaxpr);
  lsim_module_context_platforms(mc, &n);
  int rc = lsimp_check_donation(mc, jaxpr, err);
  if (rc)
    return rc;
  narrate_start(mc);
  lsim_aval *avals = lsim_malloc_array(num_values + 1, sizeof *avals);
  lsimp_donation d = {lsim_malloc_array(jaxpr->num_args + 1, sizeof *d.alias_of),
                      lsim_malloc_array(jaxpr->num_args + 1, sizeof *d.donor)};
  rc = avals && d.alias_of && d.donor ? LSIM_OK : lsimp_fail_oom(err);
  if (!rc) {
    lsim_program_value_avals(jaxpr, avals);
    rc = lsimp_set_up_aliases(mc, jaxpr, avals, num_values, &d, err);
  }
  size_t num_effects = lsim_program_ordered_effects(jaxpr, NULL, 0);
  lsim_effect_kind *effects = lsim_malloc_array(num_effects + 1, sizeof *effects);
  if (!rc && !effects)
    rc = lsimp_fail_oom(err);
  if (!rc) {
    lsim_program_ordered_effects(jaxpr, effects, num_effects);
    narrate_effects(mc, effects, num_effects);
  }
  lsimp_fun fun = {"main", jaxpr, avals, num_values, &d, n > 1, effects, num_effects,
                   req->arg_mesh, req->result_mesh, transfers_memory_kind(jaxpr), req->spill};
  if (!rc && fun.memory_kinds) {
    lsim_module_context_explain_source(
        mc, LSIM_JAX_SOURCE("jax/_src/interpreters/pxla.py", "jaxpr_transfer_mem_kinds"));
    lsim_module_context_explain(mc, LSIM_EXPLAIN_DECISION, 0,
                                "a result in host memory (compute_on's out_memory_spaces): every "
                                "result of main carries its memory kind (mhlo.memory_kind)");
    if (num_effects)
      rc = memory_kinds_with_tokens(jaxpr, num_effects, err);
  }
  if (!rc) {
    set_module_attributes(mc, req->module_name);
    rc = lsimp_lower_jaxpr_to_fun(mc, req->registry, &fun, err);
  }
  /* Each op of a spilled main is verified as it is printed, then freed:
   * the module is verified with main's body a placeholder. */
  if (!rc && req->spill)
    rc = lsimp_spill_seal(req->spill, err);
  if (!rc)
    rc = lift_meshes(mc, err);
  if (!rc && req->verify)
    rc = verify(mc, err);
  free(effects);
  free(avals);
  free(d.alias_of);
  free(d.donor);
  return rc;
}

int lsimp_lower_jaxpr_to_module(const lsimp_module_request *req, lsim_module_context **out,
                                lsim_error *err) {
  lsim_module_context *mc = NULL;
  *out = NULL;
  /* pxla.py: all_default_mem_kind, which device_put's tpu and gpu rule
   * reads (dispatch.py _tpu_gpu_device_put_lowering). */
  lsim_module_context_options options = *req->context;
  options.memory_kinds = transfers_memory_kind(req->jaxpr);
  int rc = lsim_module_context_create(&options, &mc, err);
  if (rc)
    return rc;
  rc = lower_module(mc, req, err);
  if (rc) {
    lsim_module_context_explain_error(mc, err);
    lsim_module_context_destroy(mc);
    return rc;
  }
  *out = mc;
  return LSIM_OK;
}
