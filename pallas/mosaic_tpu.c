/* pallas/mosaic_tpu.c: the Mosaic TPU backend's pallas_call lowering.
 * JAX counterparts: pallas/mosaic/pallas_call_registration.py
 * pallas_call_tpu_lowering_rule; tpu_custom_call.py
 * CustomCallBackendConfig.to_json and _tpu_custom_call_lowering. */
#include "lowersim/mosaic_tpu.h"
#include "backend.h"
#include "kernels.h"
#include "target.h"
#include "support/encode.h"
#include "support/raise.h"

#include <mlir-c/BuiltinAttributes.h>

#include <stdio.h>
#include <stdlib.h>

static const lsim_mosaic_tpu_param_values default_values = {0};

/* _compact_json_object(**cost_estimate): sorted keys, indent=0. */
static void cost_estimate_json(lsimp_strbuf *json, const lsim_pallas_cost_estimate *c) {
  lsimp_strbuf_printf(json,
                      "{\n\"bytes_accessed\":%lld,\n\"flops\":%lld,\n\"remote_bytes_transferred\":"
                      "%lld,\n\"transcendentals\":%lld\n}",
                      (long long)c->bytes_accessed, (long long)c->flops,
                      (long long)c->remote_bytes_transferred, (long long)c->transcendentals);
}

char *lsim_tpu_custom_call_config_located(const void *bytecode, size_t size,
                                          const void *debug_locations, size_t locations_size,
                                          const lsim_mosaic_tpu_param_values *v,
                                          const lsim_pallas_cost_estimate *cost) {
  if (!v)
    v = &default_values;
  lsimp_strbuf json = LSIMP_STRBUF_INIT;
  lsimp_strbuf_puts(&json, "{\"custom_call_config\": {\"body\": \"");
  lsimp_base64_encode(&json, bytecode, size);
  lsimp_strbuf_puts(&json, "\"");
  if (cost) {
    lsimp_strbuf_puts(&json, ", \"cost_estimate\": ");
    cost_estimate_json(&json, cost);
  }
  lsimp_strbuf_puts(&json, ", \"serialization_format\": 1");
  /* _lower_mosaic_module_to_asm's caller: needs_layout_passes or not
   * device_type, so a TensorCore kernel (device_type None) always has it. */
  lsimp_strbuf_puts(&json, ", \"needs_layout_passes\": true");
  if (v->shape_invariant_numerics_off)
    lsimp_strbuf_puts(&json, ", \"shape_invariant_numerics\": false");
  if (v->has_allow_input_fusion) {
    lsimp_strbuf_puts(&json, ", \"allow_input_fusion\": [");
    for (size_t i = 0; i < v->num_allow_input_fusion; i++)
      lsimp_strbuf_puts(&json, v->allow_input_fusion[i] ? (i ? ",true" : "true")
                                                         : (i ? ",false" : "false"));
    lsimp_strbuf_puts(&json, "]");
  }
  if (v->has_internal_scratch_in_bytes)
    lsimp_strbuf_printf(&json, ", \"internal_scratch_in_bytes\": %lld",
                        (long long)v->internal_scratch_in_bytes);
  if (v->disable_bounds_checks)
    lsimp_strbuf_puts(&json, ", \"disable_bounds_checks\": true");
  if (v->disable_semaphore_checks)
    lsimp_strbuf_puts(&json, ", \"disable_semaphore_checks\": true");
  if (v->skip_device_barrier)
    lsimp_strbuf_puts(&json, ", \"skip_device_barrier\": true");
  if (debug_locations && locations_size) { /* `if self.debug_locations:` */
    lsimp_strbuf_puts(&json, ", \"debug_locations\": \"");
    lsimp_base64_encode(&json, debug_locations, locations_size);
    lsimp_strbuf_puts(&json, "\"");
  }
  lsimp_strbuf_puts(&json, "}");
  if (v->has_vmem_limit_bytes)
    lsimp_strbuf_printf(&json,
                        ", \"scoped_memory_configs\": [{\"memory_space\":1, \"offset\": 0, "
                        "\"size\": %lld}]",
                        (long long)v->vmem_limit_bytes);
  if (v->has_flags) {
    lsimp_strbuf_puts(&json, ", \"flag_configs\": [");
    for (size_t i = 0; i < v->num_flags; i++) {
      const lsim_mosaic_tpu_flag *f = &v->flags[i];
      lsimp_strbuf_printf(&json, "%s{\"flag_type\": \"%s\", \"value\": {", i ? "," : "",
                          f->name);
      switch (f->type) {
      case LSIM_MOSAIC_TPU_FLAG_BOOL:
        lsimp_strbuf_printf(&json, "\"boolean_value\": %s", f->b ? "true" : "false");
        break;
      case LSIM_MOSAIC_TPU_FLAG_INT:
        lsimp_strbuf_printf(&json, "\"integer_value\": %lld", (long long)f->i);
        break;
      case LSIM_MOSAIC_TPU_FLAG_FLOAT:
        lsimp_strbuf_puts(&json, "\"double_value\": ");
        lsimp_py_float(&json, f->d);
        break;
      }
      lsimp_strbuf_puts(&json, "}}");
    }
    lsimp_strbuf_puts(&json, "]");
  }
  lsimp_strbuf_puts(&json, "}");
  return lsimp_strbuf_take(&json);
}

char *lsim_tpu_custom_call_config_with(const void *bytecode, size_t size,
                                       const lsim_mosaic_tpu_param_values *v,
                                       const lsim_pallas_cost_estimate *cost) {
  return lsim_tpu_custom_call_config_located(bytecode, size, NULL, 0, v, cost);
}

char *lsim_tpu_custom_call_config(const void *bytecode, size_t size) {
  return lsim_tpu_custom_call_config_with(bytecode, size, NULL, NULL);
}

/* tpu_custom_call.get_ir_version: the forward-compatible version for
 * jax.export or without a backend of the lowering platform
 * (get_backend(optional=True) is None), else the serializer's own; and
 * what the profile's JAX makes of the module: named after the kernel, and
 * its locations unzipped unless for export (_lower_to_custom_call_config's
 * unzip_debug_locations). */
static int serialization(const lsim_lowering_rule_context *ctx, lsimp_kernel_spec *spec,
                         lsim_error *err) {
  const lsim_module_context *mc = ctx->module_context;
  const lsim_jax_profile *profile = lsim_module_context_profile(mc);
  const lsim_backend *backend;
  int rc = lsimp_jit_backend(ctx, &backend, err);
  if (rc)
    return rc;
  bool for_export = lsim_module_context_lowering_parameters(mc)->for_export;
  bool fwd = for_export || !backend;
  spec->mosaic_version =
      fwd ? profile->pallas_mosaic_fwd_compat_version : profile->pallas_mosaic_serde_version;
  spec->module_sym_name = profile->pallas_mosaic_module_sym_name;
  spec->unzip_locations = profile->pallas_mosaic_debug_locations && !for_export;
  lsim_module_context_explain(mc, LSIM_EXPLAIN_DECISION, 0,
                              "get_ir_version: %s -> stable_mosaic.version %d",
                              fwd ? "forward compatible" : "a TPU backend", spec->mosaic_version);
  if (spec->unzip_locations)
    lsim_module_context_explain(mc, LSIM_EXPLAIN_DECISION, 0,
                                "unzip_debug_locations: the kernel's locations go to "
                                "\"debug_locations\"");
  return LSIM_OK;
}

/* The index map of the kernel's first blocked operand as its jaxpr prints:
 * the grid indices are int32, a literal index the default int. */
static void index_map_jaxpr(const lsim_pallas_call_params *p, const lsim_aval *prefetch, bool x64,
                            char *buf, size_t size) {
  const char *lit = x64 ? "i64" : "i32";
  if (prefetch) { /* gather_rows: lambda i, idx_ref: (idx_ref[i], 0) */
    char ref[LSIM_AVAL_TEXT_MAX];
    snprintf(buf, size, "{ lambda ; a:i32[] b:Ref<smem>{%s}. let c:%s[] <- b[a] in (c, 0:%s[]) }",
             lsim_aval_format(prefetch, ref, sizeof ref), lsim_dtype_name(prefetch->dtype), lit);
  } else if (lsimp_kernel_is_reduction(p->kernel)) { /* lambda i: (i, 0) */
    snprintf(buf, size, "{ lambda ; a:i32[]. let  in (a, 0:%s[]) }", lit);
  } else { /* lambda i, j: (i, j) */
    snprintf(buf, size, "{ lambda ; a:i32[] b:i32[]. let  in (a, b) }");
  }
}

/* lower_jaxpr_to_module's _check_block_mappings for a 2-D block: its last
 * dimension whole or a multiple of 128, the one before whole or a multiple
 * of 8.  The first blocked operand's block is the first mapping checked,
 * and every kernel of the library's blocks its output alike. */
static int check_blocks(const lsim_lowering_rule_context *ctx, const lsim_pallas_call_params *p,
                        size_t blocked, lsim_error *err) {
  const lsim_aval *a = &ctx->avals_in[blocked];
  if ((p->block[1] == a->dims[1] || p->block[1] % 128 == 0) &&
      (p->block[0] == a->dims[0] || p->block[0] % 8 == 0))
    return LSIM_OK;
  bool x64 = lsim_module_context_lowering_parameters(ctx->module_context)->enable_x64;
  char origin[32], rows[24], cols[24], array[64], index_map[LSIM_AVAL_TEXT_MAX + 96];
  snprintf(origin, sizeof origin, "args[%zu]", blocked);
  snprintf(rows, sizeof rows, "%lld", (long long)p->block[0]);
  snprintf(cols, sizeof cols, "%lld", (long long)p->block[1]);
  snprintf(array, sizeof array, "(%lld, %lld)", (long long)a->dims[0], (long long)a->dims[1]);
  index_map_jaxpr(p, blocked ? &ctx->avals_in[0] : NULL, x64, index_map, sizeof index_map);
  char *name = lsimp_kernel_func_name(p);
  int rc = name ? lsimp_raise(err, LSIM_E_PALLAS_TPU_BLOCK_SHAPE, origin, name,
                              LSIMP_KERNEL_SOURCE, rows, cols, array, index_map)
                : lsimp_fail_oom(err);
  free(name);
  return rc;
}

/* A tpu_custom_call whose backend config is the JSON to_json writes, the
 * kernel (and its unzipped locations) as base64 of its bytecode.  The block
 * checks of lower_jaxpr_to_pipelined_module read the TPU's kind for a
 * rank-1 block, as lowersim's are. */
int lsim_mosaic_tpu_pallas_call_lowering(lsim_lowering_rule_context *ctx, const MlirValue *args,
                                         MlirValue *results, const lsim_pallas_call_params *p,
                                         void *data, lsim_error *err) {
  (void)data;
  lsimp_strbuf bytes = LSIMP_STRBUF_INIT, locations = LSIMP_STRBUF_INIT;
  char *json = NULL;
  size_t blocked = lsimp_kernel_num_scalar_prefetch(p->kernel); /* the first blocked operand */
  lsimp_kernel_spec spec = {
      .flavor = LSIMP_KERNEL_MOSAIC_TPU,
      .mesh_operand = ctx->in_abstract_mesh && ctx->in_abstract_mesh[blocked],
      .x64 = lsim_module_context_lowering_parameters(ctx->module_context)->enable_x64};
  /* lower_jaxpr_to_pipelined_module reads the TPU's kind for rank-1 blocks
   * only (the scalar-prefetch operands are not blocks). */
  int rc = ctx->avals_in[blocked].rank == 1 ? lsimp_tpu_info(ctx, err)
                                            : check_blocks(ctx, p, blocked, err);
  if (!rc)
    rc = serialization(ctx, &spec, err);
  if (!rc)
    rc = lsimp_kernel_bytecode(ctx, p, spec, true, &bytes, &locations, err);
  const lsim_mosaic_tpu_param_values *v = p->mosaic_tpu ? p->mosaic_tpu : &default_values;
  if (!rc && !(json = lsim_tpu_custom_call_config_located(bytes.data, bytes.len, locations.data,
                                                         locations.len, v, p->cost_estimate)))
    rc = lsimp_fail_oom(err);
  /* _tpu_custom_call_lowering: a lowering over several devices (jit's
   * ShardingContext) cannot partition the kernel; shard_map's manual axes,
   * which could, are not modelled. */
  if (!rc && lsim_module_context_num_devices(ctx->module_context) != 1)
    rc = lsimp_raise0(err, LSIM_E_PALLAS_MOSAIC_TPU_PARTITIONED);
  lsimp_strbuf metadata_json = LSIMP_STRBUF_INIT;
  char *kernel_name = NULL;
  if (!rc) {
    /* kernel_metadata: the metadata dict (pallas_call_registration's
     * dict_metadata, {} when none); a dataflow side effect lets XLA DCE the
     * call (xla_allow_dce_side_effecting_op). */
    lsimp_metadata_json(&metadata_json, p, true);
    kernel_name = lsimp_kernel_func_name(p);
    if (lsimp_strbuf_failed(&metadata_json) || !kernel_name)
      rc = lsimp_fail_oom(err);
  }
  if (!rc) {
    MlirContext mlir = ctx->ip.context;
    MlirNamedAttribute frontend[] = {
        lsim_named(mlir, "kernel_metadata", lsim_string_attr(mlir, metadata_json.data)),
        lsim_named(mlir, "xla_allow_dce_side_effecting_op", lsim_string_attr(mlir, "true")),
    };
    bool dataflow = v->has_side_effects == LSIM_TPU_DATAFLOW_SIDE_EFFECTING;
    MlirNamedAttribute extra[] = {
        lsim_named(mlir, "kernel_name", lsim_string_attr(mlir, kernel_name)),
        lsim_named(mlir, "mhlo.frontend_attributes",
                   mlirDictionaryAttrGet(mlir, dataflow ? 2 : 1, frontend)),
    };
    lsim_custom_call call = {.target = "tpu_custom_call",
                             .has_side_effect = v->has_side_effects != LSIM_TPU_PURE,
                             .backend_config = json,
                             .api_version = 1,
                             .extra = extra,
                             .num_extra = 2};
    rc = lsimp_emit_kernel_call(ctx, &call, args, results, p, err);
  }
  lsimp_strbuf_free(&metadata_json);
  free(kernel_name);
  lsimp_strbuf_free(&bytes);
  lsimp_strbuf_free(&locations);
  free(json);
  return rc;
}
