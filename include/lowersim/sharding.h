/* lowersim/sharding.h: the shardings JAX writes into a jit lowering (a
 * callback's maximal sharding, main's replicated arguments and results) and
 * the module's meshes, spelled as JAX prints them with the Shardy
 * partitioner (sdy.sharding, sdy.mesh) or without it (mhlo.sharding); the
 * profile's use_shardy_partitioner chooses.
 *
 * sdy is not an upstream MLIR dialect: its attributes are opaque ones and
 * sdy.mesh a generic op, as stablehlo's are; lsim_verify_module checks their
 * structure.  JAX counterparts: sharding_impls.py SdyArray.build and
 * SdyArrayList.build, xc.HloSharding's text; mlir.py set_sharding,
 * get_sharding_attr, and the sdy-lift-inlined-meshes pass that
 * lower_jaxpr_to_module runs. */
#ifndef LOWERSIM_SHARDING_H
#define LOWERSIM_SHARDING_H

#include "lowersim/error.h"
#include "lowersim/module_context.h"

#include <mlir-c/IR.h>

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A maximal sharding on one device of the device assignment, as host
 * callbacks annotate their ops: with Shardy an SdyArrayList of `num_values`
 * SdyArray(mesh_shape=(), dim_shardings=(), logical_device_ids=(device,)),
 * else an xc.OpSharding MAXIMAL on `device`. */
typedef struct lsim_op_sharding {
  int64_t device;    /* the device's index in the assignment */
  size_t num_values; /* Shardy: one entry per result of the op, at least one */
} lsim_op_sharding;

/* mlir.set_sharding(ctx, op, sharding): `sdy.sharding =
 * #sdy.sharding_per_value<[<@maximal_mesh_D, []>, ...]>` (the mesh recorded
 * in the module context), or `mhlo.sharding = "{maximal device=D}"` for a
 * profile without Shardy. */
int lsim_set_sharding(lsim_module_context *mc, MlirOperation op, const lsim_op_sharding *sharding,
                      lsim_error *err);

/* get_sharding_attr of an argument or result of main replicated over `mesh`
 * (every dimension closed and unsharded): `sdy.sharding =
 * #sdy.sharding<@NAME, [{}, ...]>` with `rank` entries (the mesh recorded),
 * or `mhlo.sharding = "{replicated}"` without Shardy. */
int lsim_replicated_sharding(lsim_module_context *mc, const lsim_mesh *mesh, int rank,
                             MlirNamedAttribute *out, lsim_error *err);

/* The symbol Shardy's lifted mesh gets: "empty_mesh", "maximal_mesh_<id>",
 * "mesh"; written into `buf` (NUL-terminated, cut short when it does not
 * fit), which is returned. */
const char *lsim_mesh_name(const lsim_mesh *mesh, char *buf, size_t size);

/* What sdy-lift-inlined-meshes leaves in the module: one sdy.mesh op per
 * mesh its shardings name, first in the module body, in the order first
 * named.  Nothing for a profile without Shardy. */
int lsim_emit_module_meshes(lsim_module_context *mc, lsim_error *err);

#ifdef __cplusplus
}
#endif

#endif /* LOWERSIM_SHARDING_H */
