/* support/name_index.h: names -> indices, a hash table.  Private.
 *
 * What lowersim looks up by name (platforms, factories, backends, a
 * primitive's platform rules, a scenario's own primitives) goes through one
 * of these, so a lookup costs O(1) whatever the number of names and a file
 * naming thousands of platforms lowers in time linear in its size.  The
 * hash is SipHash-1-3 keyed once per process from the system's random
 * source, so names chosen to collide cannot make the table quadratic.
 * Names are borrowed: each must stay valid, unchanged, while it is in the
 * table. */
#ifndef LSIMP_SUPPORT_NAME_INDEX_H
#define LSIMP_SUPPORT_NAME_INDEX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct lsimp_name_slot {
  const char *name; /* NULL: free */
  uint64_t hash;
  size_t value;
} lsimp_name_slot;

typedef struct lsimp_name_index {
  lsimp_name_slot *slots; /* power-of-two capacity, at most half full */
  size_t cap, count;
} lsimp_name_index;

#define LSIMP_NAME_INDEX_INIT {NULL, 0, 0}

void lsimp_name_index_free(lsimp_name_index *ix);
/* Empties the table, keeping its storage. */
void lsimp_name_index_clear(lsimp_name_index *ix);

/* True, with `*value`, when `name` is in the table. */
bool lsimp_name_index_find(const lsimp_name_index *ix, const char *name, size_t *value);

/* Makes room for `more` names not yet in the table, so that adding them
 * cannot fail.  False when out of memory.  Replacing the value of a name
 * already there never allocates. */
bool lsimp_name_index_reserve(lsimp_name_index *ix, size_t more);

/* Adds `name` -> `value` unless `name` is there already; either way
 * `*value` receives the value `name` now has (so a first occurrence wins).
 * False when out of memory (the table is unchanged). */
bool lsimp_name_index_add(lsimp_name_index *ix, const char *name, size_t *value);

/* Sets `name` -> `value`, replacing an earlier value and name pointer.
 * False when out of memory. */
bool lsimp_name_index_set(lsimp_name_index *ix, const char *name, size_t value);

#endif
