/* lowersim/alloc.h: lowersim's one allocator (SQLite's discipline).
 *
 * Every allocation lowersim's code makes (library, scenario layer, fuzzer,
 * command) goes through lsim_alloc_at: `n * size` is checked for overflow
 * (a size that does not fit is an allocation failure, never a short
 * buffer), an empty request is still a distinct allocation (so no caller
 * writes `n ? n : 1`), and a fault hook can make any one allocation fail,
 * which is how the out-of-memory suite (tests/test_oom.c) fails each of
 * them in turn.  Memory is freed with free().  The macros name their call
 * site (`FILE:LINE`), which the hook receives.
 *
 * Allocations made inside MLIR, LLVM, libxml2 and libc (open_memstream,
 * realpath) are theirs, not lowersim's, and are not seen by the hook. */
#ifndef LOWERSIM_ALLOC_H
#define LOWERSIM_ALLOC_H

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

enum {
  LSIM_ALLOC_ZERO = 1,   /* the new bytes are zeroed (a fresh block only) */
  LSIM_ALLOC_RESIZE = 2, /* `old` (NULL or a block of this allocator) is resized */
};

/* n items of size bytes: a fresh block, or `old` resized (LSIM_ALLOC_RESIZE;
 * on failure `old` stays valid and unchanged).  NULL when out of memory,
 * when n * size overflows, or when the fault hook says this one fails
 * (errno is then ENOMEM, as malloc sets it).
 * `site` names the caller ("file.c:42"). */
void *lsim_alloc_at(void *old, size_t n, size_t size, unsigned flags, const char *site);

/* A copy of at most `max` bytes of `s` (SIZE_MAX: all of it), NUL-ended;
 * NULL as lsim_alloc_at. */
char *lsim_strndup_at(const char *s, size_t max, const char *site);

/* The fault hook: called before every allocation with its site; returning
 * true makes that allocation fail.  NULL (the default) fails none.  One
 * hook per process, set while no other thread allocates (tests only). */
typedef bool (*lsim_alloc_fault_fn)(const char *site, void *data);
void lsim_alloc_set_fault(lsim_alloc_fault_fn fn, void *data);

/* Makes `*array` (of `size`-byte items, `*cap` of them) hold at least
 * `need` items, doubling the capacity (from 8), so appending n items costs
 * O(n) in all; the new items are not initialized.  False (and `*array`
 * and `*cap` unchanged) when out of memory or on overflow. */
bool lsim_grow_array_at(void *array, size_t *cap, size_t need, size_t size, const char *site);

/* Open-addressing hash tables of `slot_size`-byte slots, a power of two of
 * them: makes `*table` (`*cap` slots) have room for `need` slots at the
 * table's load factor (the caller says how many slots that takes: `slots`
 * >= what it needs), doubling from `first`.  Every used slot of the old
 * table is moved to where `place` says in the new, zeroed one (`place`
 * returns NULL for a free old slot).  False (the table unchanged) when out
 * of memory or on overflow. */
typedef void *(*lsim_hash_place_fn)(void *table, size_t cap, const void *old_slot);
bool lsim_hash_grow_at(void *table, size_t *cap, size_t slots, size_t first, size_t slot_size,
                       lsim_hash_place_fn place, const char *site);

#define LSIM_ALLOC_STR2_(x) #x
#define LSIM_ALLOC_STR_(x) LSIM_ALLOC_STR2_(x)
#define LSIM_ALLOC_SITE __FILE__ ":" LSIM_ALLOC_STR_(__LINE__)

#define lsim_malloc(bytes) lsim_alloc_at(NULL, 1, (bytes), 0, LSIM_ALLOC_SITE)
#define lsim_calloc(n, size) lsim_alloc_at(NULL, (n), (size), LSIM_ALLOC_ZERO, LSIM_ALLOC_SITE)
#define lsim_malloc_array(n, size) lsim_alloc_at(NULL, (n), (size), 0, LSIM_ALLOC_SITE)
#define lsim_realloc(p, bytes) lsim_alloc_at((p), 1, (bytes), LSIM_ALLOC_RESIZE, LSIM_ALLOC_SITE)
#define lsim_realloc_array(p, n, size)                                                            \
  lsim_alloc_at((p), (n), (size), LSIM_ALLOC_RESIZE, LSIM_ALLOC_SITE)
#define lsim_strdup(s) lsim_strndup_at((s), (size_t)-1, LSIM_ALLOC_SITE)
#define lsim_strndup(s, max) lsim_strndup_at((s), (max), LSIM_ALLOC_SITE)
#define lsim_grow_array(array, cap, need, size)                                                   \
  lsim_grow_array_at((array), (cap), (need), (size), LSIM_ALLOC_SITE)
#define lsim_hash_grow(table, cap, slots, first, slot_size, place)                                \
  lsim_hash_grow_at((table), (cap), (slots), (first), (slot_size), (place), LSIM_ALLOC_SITE)

#ifdef __cplusplus
}
#endif

#endif
