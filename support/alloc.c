/* support/alloc.c: arrays allocated with their sizes checked. */
#include "support/alloc.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* n * size in bytes, at least 1; false on overflow. */
static bool array_bytes(size_t n, size_t size, size_t *bytes) {
  if (size && n > SIZE_MAX / size)
    return false;
  *bytes = n && size ? n * size : 1;
  return true;
}

void *lsimp_alloc_array(size_t n, size_t size) {
  size_t bytes;
  return array_bytes(n, size, &bytes) ? malloc(bytes) : NULL;
}

void *lsimp_zalloc_array(size_t n, size_t size) {
  size_t bytes;
  return array_bytes(n, size, &bytes) ? calloc(1, bytes) : NULL;
}

bool lsimp_grow_array(void *array, size_t *cap, size_t need, size_t size) {
  if (need <= *cap)
    return true;
  size_t grown = *cap ? *cap : 8;
  while (grown < need) {
    if (grown > SIZE_MAX / 2)
      return false;
    grown *= 2;
  }
  size_t bytes;
  if (!array_bytes(grown, size, &bytes))
    return false;
  void **p = array;
  void *bigger = realloc(*p, bytes);
  if (!bigger)
    return false;
  *p = bigger;
  *cap = grown;
  return true;
}
