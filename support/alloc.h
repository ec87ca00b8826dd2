/* support/alloc.h: arrays allocated with their sizes checked.  Private.
 *
 * `n * size` is checked for overflow (SQLite's rule: a size that does not
 * fit is an allocation failure, never a short buffer), and an empty array
 * is still a distinct allocation, so callers need no `n ? n : 1` of their
 * own.  The growable-array helper doubles a capacity, so appending n items
 * costs O(n) in all. */
#ifndef LSIMP_SUPPORT_ALLOC_H
#define LSIMP_SUPPORT_ALLOC_H

#include <stdbool.h>
#include <stddef.h>

/* `n` items of `size` bytes, uninitialized (lsimp_alloc_array) or zeroed
 * (lsimp_zalloc_array); NULL when out of memory or when n * size
 * overflows.  Free with free(). */
void *lsimp_alloc_array(size_t n, size_t size);
void *lsimp_zalloc_array(size_t n, size_t size);

/* Makes `*array` (of `size`-byte items, `*cap` of them) hold at least
 * `need` items, doubling the capacity; the new items are not initialized.
 * False (and `*array` unchanged) when out of memory or on overflow. */
bool lsimp_grow_array(void *array, size_t *cap, size_t need, size_t size);

#endif
