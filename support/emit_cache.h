/* support/emit_cache.h: what lower/emit.c builds once per MLIR context of a
 * module context instead of once per op (MLIR uniques types and attributes,
 * but each look-up hashes the parameters).  Private. */
#ifndef LSIMP_SUPPORT_EMIT_CACHE_H
#define LSIMP_SUPPORT_EMIT_CACHE_H

#include <mlir-c/IR.h>

/* The small i32 constants lowersim emits most (platform and branch indices). */
#define LSIMP_EMIT_CACHE_SMALL_I32 8

/* Filled on first use; a null handle is not built yet.  `mlir` is the context
 * the entries belong to: an insertion point in another context does not use
 * them. */
struct lsim_emit_cache {
  MlirContext mlir;
  MlirType i32_scalar;                               /* tensor<i32> */
  MlirIdentifier value;                              /* "value" */
  MlirAttribute small_i32[LSIMP_EMIT_CACHE_SMALL_I32]; /* dense<k> : tensor<i32> */
  /* Told of each op put into the module, as it is (explain --html's
   * anchors: the module context records the step that made it); NULL:
   * nobody asked. */
  void (*made)(void *data, MlirOperation op);
  void *made_data;
};

/* Tells `c`'s listener (if any) that `op` was put into its module. */
static inline void lsimp_emit_cache_made(const struct lsim_emit_cache *c, MlirOperation op) {
  if (c && c->made)
    c->made(c->made_data, op);
}

#endif
