/* ctx/jax_source_table.h: the table tools/gen_jax_source.py generates
 * (ctx/jax_source_table.c): where the JAX functions lowersim's narration
 * names are defined, at each profile's source_ref. */
#ifndef LOWERSIM_CTX_JAX_SOURCE_TABLE_H
#define LOWERSIM_CTX_JAX_SOURCE_TABLE_H

#include <stddef.h>

typedef struct lsimp_jax_source_row {
  const char *ref;      /* a profile's source_ref */
  const char *file;     /* a path in the JAX repository */
  const char *function; /* "name" or "Class.method" */
  int line;             /* of its `def` */
} lsimp_jax_source_row;

extern const lsimp_jax_source_row lsimp_jax_source_rows[];
extern const size_t lsimp_jax_source_row_count;

#endif /* LOWERSIM_CTX_JAX_SOURCE_TABLE_H */
