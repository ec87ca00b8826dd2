/* support/alloc.c: lowersim's one allocator (lowersim/alloc.h). */
#include "lowersim/alloc.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static lsim_alloc_fault_fn fault;
static void *fault_data;

void lsim_alloc_set_fault(lsim_alloc_fault_fn fn, void *data) {
  fault = fn;
  fault_data = data;
}

void *lsim_alloc_at(void *old, size_t n, size_t size, unsigned flags, const char *site) {
  if ((size && n > SIZE_MAX / size) || (fault && fault(site, fault_data))) {
    errno = ENOMEM; /* as malloc says it */
    return NULL;
  }
  size_t bytes = n && size ? n * size : 1;
  if (flags & LSIM_ALLOC_RESIZE)
    return realloc(old, bytes);
  return flags & LSIM_ALLOC_ZERO ? calloc(1, bytes) : malloc(bytes);
}

char *lsim_strndup_at(const char *s, size_t max, const char *site) {
  size_t len = strnlen(s, max);
  if (len == SIZE_MAX)
    return NULL;
  char *d = lsim_alloc_at(NULL, len + 1, 1, 0, site);
  if (d) {
    memcpy(d, s, len);
    d[len] = '\0';
  }
  return d;
}

bool lsim_grow_array_at(void *array, size_t *cap, size_t need, size_t size, const char *site) {
  if (need <= *cap)
    return true;
  size_t grown = *cap ? *cap : 8;
  while (grown < need) {
    if (grown > SIZE_MAX / 2)
      return false;
    grown *= 2;
  }
  void **p = array;
  void *bigger = lsim_alloc_at(*p, grown, size, LSIM_ALLOC_RESIZE, site);
  if (!bigger)
    return false;
  *p = bigger;
  *cap = grown;
  return true;
}

bool lsim_hash_grow_at(void *table, size_t *cap, size_t slots, size_t first, size_t slot_size,
                       lsim_hash_place_fn place, const char *site) {
  if (slots <= *cap)
    return true;
  size_t grown = *cap ? *cap : first;
  while (grown < slots) {
    if (grown > SIZE_MAX / 2)
      return false;
    grown *= 2;
  }
  char **t = table;
  char *bigger = lsim_alloc_at(NULL, grown, slot_size, LSIM_ALLOC_ZERO, site);
  if (!bigger)
    return false;
  for (size_t i = 0; i < *cap; i++) {
    const char *old = *t + i * slot_size;
    void *to = place(bigger, grown, old);
    if (to)
      memcpy(to, old, slot_size);
  }
  free(*t);
  *t = bigger;
  *cap = grown;
  return true;
}
