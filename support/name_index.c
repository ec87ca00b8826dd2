/* support/name_index.c: names -> indices, open addressing with linear
 * probing over SipHash-1-3 (Aumasson and Bernstein's keyed hash). */
#define _DEFAULT_SOURCE /* getentropy */
#include "support/name_index.h"

#include "lowersim/alloc.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* --- SipHash-1-3, keyed once per process ---------------------------------- */

static uint64_t sip_key[2];
static pthread_once_t sip_once = PTHREAD_ONCE_INIT;

static void sip_init(void) {
  if (getentropy(sip_key, sizeof sip_key) == 0)
    return;
  struct timespec ts; /* no entropy source: still different per process */
  clock_gettime(CLOCK_REALTIME, &ts);
  sip_key[0] = (uint64_t)ts.tv_nsec ^ ((uint64_t)ts.tv_sec << 32) ^ (uint64_t)(uintptr_t)&ts;
  sip_key[1] = (uint64_t)getpid() * 0x9e3779b97f4a7c15ull ^ (uint64_t)(uintptr_t)sip_key;
}

static uint64_t rotl(uint64_t x, int b) { return (x << b) | (x >> (64 - b)); }

#define SIP_ROUND(v0, v1, v2, v3)                                                          \
  do {                                                                                     \
    v0 += v1, v1 = rotl(v1, 13), v1 ^= v0, v0 = rotl(v0, 32);                              \
    v2 += v3, v3 = rotl(v3, 16), v3 ^= v2;                                                 \
    v0 += v3, v3 = rotl(v3, 21), v3 ^= v0;                                                 \
    v2 += v1, v1 = rotl(v1, 17), v1 ^= v2, v2 = rotl(v2, 32);                              \
  } while (0)

static uint64_t siphash13(const unsigned char *in, size_t len) {
  uint64_t v0 = sip_key[0] ^ 0x736f6d6570736575ull, v1 = sip_key[1] ^ 0x646f72616e646f6dull;
  uint64_t v2 = sip_key[0] ^ 0x6c7967656e657261ull, v3 = sip_key[1] ^ 0x7465646279746573ull;
  size_t whole = len - len % 8;
  for (size_t i = 0; i < whole; i += 8) {
    uint64_t m = 0;
    for (int b = 7; b >= 0; b--)
      m = (m << 8) | in[i + (size_t)b];
    v3 ^= m;
    SIP_ROUND(v0, v1, v2, v3);
    v0 ^= m;
  }
  uint64_t last = (uint64_t)len << 56;
  for (size_t b = 0; b < len % 8; b++)
    last |= (uint64_t)in[whole + b] << (8 * b);
  v3 ^= last;
  SIP_ROUND(v0, v1, v2, v3);
  v0 ^= last;
  v2 ^= 0xff;
  SIP_ROUND(v0, v1, v2, v3);
  SIP_ROUND(v0, v1, v2, v3);
  SIP_ROUND(v0, v1, v2, v3);
  return v0 ^ v1 ^ v2 ^ v3;
}

static uint64_t hash_name(const char *name) {
  pthread_once(&sip_once, sip_init);
  return siphash13((const unsigned char *)name, strlen(name));
}

/* --- The table -------------------------------------------------------------- */

void lsimp_name_index_free(lsimp_name_index *ix) {
  free(ix->slots);
  *ix = (lsimp_name_index)LSIMP_NAME_INDEX_INIT;
}

void lsimp_name_index_clear(lsimp_name_index *ix) {
  if (ix->slots)
    memset(ix->slots, 0, ix->cap * sizeof *ix->slots);
  ix->count = 0;
}

/* The slot holding `name`, or the free slot where it would go. */
static lsimp_name_slot *probe(lsimp_name_slot *slots, size_t cap, const char *name, uint64_t h) {
  size_t i = (size_t)h & (cap - 1);
  while (slots[i].name && (slots[i].hash != h || strcmp(slots[i].name, name) != 0))
    i = (i + 1) & (cap - 1);
  return &slots[i];
}

bool lsimp_name_index_find(const lsimp_name_index *ix, const char *name, size_t *value) {
  if (!ix->count)
    return false;
  const lsimp_name_slot *s = probe(ix->slots, ix->cap, name, hash_name(name));
  if (s->name && value)
    *value = s->value;
  return s->name != NULL;
}

static void *slot_place(void *slots, size_t cap, const void *old) {
  const lsimp_name_slot *s = old;
  return s->name ? probe(slots, cap, s->name, s->hash) : NULL;
}

bool lsimp_name_index_reserve(lsimp_name_index *ix, size_t more) {
  if (more > SIZE_MAX / 4 - ix->count)
    return false;
  size_t need = (ix->count + more) * 2;
  if (need <= ix->cap)
    return true;
  return lsim_hash_grow(&ix->slots, &ix->cap, need, 16, sizeof *ix->slots, slot_place);
}

/* The slot of `name`, made free for it when absent; NULL when out of memory. */
static lsimp_name_slot *slot_for(lsimp_name_index *ix, const char *name, uint64_t h) {
  if (ix->count) {
    lsimp_name_slot *s = probe(ix->slots, ix->cap, name, h);
    if (s->name)
      return s;
  }
  return lsimp_name_index_reserve(ix, 1) ? probe(ix->slots, ix->cap, name, h) : NULL;
}

bool lsimp_name_index_add(lsimp_name_index *ix, const char *name, size_t *value) {
  uint64_t h = hash_name(name);
  lsimp_name_slot *s = slot_for(ix, name, h);
  if (!s)
    return false;
  if (!s->name) {
    *s = (lsimp_name_slot){name, h, *value};
    ix->count++;
  }
  *value = s->value;
  return true;
}

bool lsimp_name_index_set(lsimp_name_index *ix, const char *name, size_t value) {
  uint64_t h = hash_name(name);
  lsimp_name_slot *s = slot_for(ix, name, h);
  if (!s)
    return false;
  ix->count += s->name == NULL;
  *s = (lsimp_name_slot){name, h, value};
  return true;
}
