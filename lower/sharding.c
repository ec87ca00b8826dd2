/* lower/sharding.c: shardings and meshes, as JAX spells them.
 * JAX counterparts: sharding_impls.py SdyArray.build / SdyArrayList.build
 * (sdy.TensorShardingAttr, TensorShardingPerValueAttr) and HloSharding's
 * text; mlir.py set_sharding and get_sharding_attr; the module pass
 * sdy-lift-inlined-meshes, which replaces each inline mesh by a symbol and
 * declares it with an sdy.mesh op at the top of the module. */
#include "lowersim/sharding.h"
#include "lowersim/emit.h"
#include "support/raise.h"
#include "support/strbuf.h"

#include <mlir-c/BuiltinAttributes.h>
#include <mlir-c/BuiltinTypes.h>

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static bool shardy(const lsim_module_context *mc) {
  return lsim_module_context_profile(mc)->use_shardy_partitioner;
}

/* #sdy.<body>: an attribute of the (here unregistered) sdy dialect. */
static MlirAttribute sdy_attr(MlirContext mlir, const lsimp_strbuf *body) {
  return mlirOpaqueAttrGet(mlir, mlirStringRefCreateFromCString("sdy"),
                           (intptr_t)body->len, lsimp_strbuf_cstr(body),
                           mlirNoneTypeGet(mlir));
}

const char *lsim_mesh_name(const lsim_mesh *mesh, char *buf, size_t size) {
  switch (mesh->kind) {
  case LSIM_MESH_EMPTY: snprintf(buf, size, "empty_mesh"); break;
  case LSIM_MESH_MAXIMAL: snprintf(buf, size, "maximal_mesh_%" PRId64, mesh->device); break;
  case LSIM_MESH_AXIS: snprintf(buf, size, "mesh"); break;
  }
  return buf;
}

int lsim_set_sharding(lsim_module_context *mc, MlirOperation op, const lsim_op_sharding *sharding,
                      lsim_error *err) {
  MlirContext mlir = lsim_module_context_mlir_context(mc);
  lsimp_strbuf text = LSIMP_STRBUF_INIT;
  const char *name = "mhlo.sharding";
  int rc = LSIM_OK;
  if (shardy(mc)) {
    lsim_mesh mesh = {.kind = LSIM_MESH_MAXIMAL, .device = sharding->device};
    char symbol[48];
    lsim_mesh_name(&mesh, symbol, sizeof symbol);
    rc = lsim_module_context_use_mesh(mc, &mesh, err);
    lsimp_strbuf_puts(&text, "sharding_per_value<[");
    for (size_t i = 0; i < sharding->num_values; i++)
      lsimp_strbuf_printf(&text, "%s<@%s, []>", i ? ", " : "", symbol);
    lsimp_strbuf_puts(&text, "]>");
    name = "sdy.sharding";
  } else {
    lsimp_strbuf_printf(&text, "{maximal device=%" PRId64 "}", sharding->device);
  }
  if (!rc && lsimp_strbuf_failed(&text))
    rc = lsimp_fail_oom(err);
  if (!rc) {
    MlirAttribute value = shardy(mc) ? sdy_attr(mlir, &text)
                                     : lsim_string_attr(mlir, lsimp_strbuf_cstr(&text));
    mlirOperationSetAttributeByName(op, mlirStringRefCreateFromCString(name), value);
  }
  lsimp_strbuf_free(&text);
  return rc;
}

int lsim_replicated_sharding(lsim_module_context *mc, const lsim_mesh *mesh, int rank,
                             MlirNamedAttribute *out, lsim_error *err) {
  MlirContext mlir = lsim_module_context_mlir_context(mc);
  if (!shardy(mc)) {
    *out = lsim_named(mlir, "mhlo.sharding", lsim_string_attr(mlir, "{replicated}"));
    return LSIM_OK;
  }
  int rc = lsim_module_context_use_mesh(mc, mesh, err);
  if (rc)
    return rc;
  char symbol[48];
  lsimp_strbuf text = LSIMP_STRBUF_INIT;
  lsimp_strbuf_printf(&text, "sharding<@%s, [", lsim_mesh_name(mesh, symbol, sizeof symbol));
  for (int i = 0; i < rank; i++)
    lsimp_strbuf_puts(&text, i ? ", {}" : "{}");
  lsimp_strbuf_puts(&text, "]>");
  rc = lsimp_strbuf_failed(&text) ? lsimp_fail_oom(err) : LSIM_OK;
  if (!rc)
    *out = lsim_named(mlir, "sdy.sharding", sdy_attr(mlir, &text));
  lsimp_strbuf_free(&text);
  return rc;
}

/* The sdy.mesh attribute (`#sdy.mesh<[], device_ids=[0]>`) and the
 * stablehlo.mesh dictionary jaxlib puts beside it (`{axes = [], device_ids =
 * dense<0> : tensor<1xi64>}`). */
static int mesh_attrs(MlirContext mlir, const lsim_mesh *mesh, MlirAttribute *sdy_mesh,
                      MlirAttribute *stablehlo_mesh, lsim_error *err) {
  lsimp_strbuf text = LSIMP_STRBUF_INIT;
  MlirNamedAttribute fields[2];
  size_t n = 0;
  MlirAttribute axis = {NULL};
  switch (mesh->kind) {
  case LSIM_MESH_EMPTY:
    lsimp_strbuf_puts(&text, "mesh<[]>");
    break;
  case LSIM_MESH_MAXIMAL:
    lsimp_strbuf_printf(&text, "mesh<[], device_ids=[%" PRId64 "]>", mesh->device);
    break;
  case LSIM_MESH_AXIS: {
    lsimp_strbuf_printf(&text, "mesh<[\"x\"=%" PRId64 "]>", mesh->size);
    MlirNamedAttribute entries[] = {
        lsim_named(mlir, "name", lsim_string_attr(mlir, "x")),
        lsim_named(mlir, "size", mlirIntegerAttrGet(mlirIntegerTypeGet(mlir, 64), mesh->size)),
    };
    axis = mlirDictionaryAttrGet(mlir, 2, entries);
    break;
  }
  }
  fields[n++] = lsim_named(mlir, "axes", mlirArrayAttrGet(mlir, mlirAttributeIsNull(axis) ? 0 : 1,
                                                          &axis));
  if (mesh->kind == LSIM_MESH_MAXIMAL) {
    int64_t one = 1;
    MlirType ids = mlirRankedTensorTypeGet(1, &one, mlirIntegerTypeGet(mlir, 64),
                                           (MlirAttribute){NULL});
    int64_t id = mesh->device;
    fields[n++] = lsim_named(mlir, "device_ids", mlirDenseElementsAttrInt64Get(ids, 1, &id));
  }
  int rc = lsimp_strbuf_failed(&text) ? lsimp_fail_oom(err) : LSIM_OK;
  if (!rc) {
    *sdy_mesh = sdy_attr(mlir, &text);
    *stablehlo_mesh = mlirDictionaryAttrGet(mlir, (intptr_t)n, fields);
  }
  lsimp_strbuf_free(&text);
  return rc;
}

/* "sdy.mesh"() {mesh = ..., stablehlo.mesh = ..., sym_name = ...}, moved in
 * front of `before` (the module's first op) when there is one. */
static int emit_mesh(lsim_module_context *mc, const lsim_mesh *mesh, MlirOperation before,
                     lsim_error *err) {
  MlirContext mlir = lsim_module_context_mlir_context(mc);
  MlirAttribute sdy_mesh, stablehlo_mesh;
  int rc = mesh_attrs(mlir, mesh, &sdy_mesh, &stablehlo_mesh, err);
  if (rc)
    return rc;
  char symbol[48];
  MlirNamedAttribute attrs[] = {
      lsim_named(mlir, "sym_name", lsim_string_attr(mlir, lsim_mesh_name(mesh, symbol,
                                                                         sizeof symbol))),
      lsim_named(mlir, "mesh", sdy_mesh),
      lsim_named(mlir, "stablehlo.mesh", stablehlo_mesh),
  };
  lsim_insertion_point ip = lsim_module_context_insertion_point(mc);
  MlirOperation op;
  rc = lsim_emit_op(&ip, "sdy.mesh", NULL, 0, NULL, 0, attrs, 3, 0, &op, err);
  if (!rc && !mlirOperationIsNull(before))
    mlirOperationMoveBefore(op, before);
  return rc;
}

int lsim_emit_module_meshes(lsim_module_context *mc, lsim_error *err) {
  if (!shardy(mc))
    return LSIM_OK;
  MlirBlock body = mlirModuleGetBody(lsim_module_context_module(mc));
  MlirOperation first = mlirBlockGetFirstOperation(body);
  int rc = LSIM_OK;
  for (size_t i = 0; !rc && i < lsim_module_context_mesh_count(mc); i++)
    rc = emit_mesh(mc, lsim_module_context_mesh_at(mc, i), first, err);
  return rc;
}
