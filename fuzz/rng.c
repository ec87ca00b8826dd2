/* fuzz/rng.c: xoshiro256** (Blackman and Vigna), seeded with splitmix64.
 * lowersim's own so that a seed names the same scenarios on every libc. */
#include "fuzz.h"

static uint64_t splitmix64(uint64_t *state) {
  uint64_t z = (*state += 0x9e3779b97f4a7c15u);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
  return z ^ (z >> 31);
}

void lsim_fuzz_rng_seed(lsim_fuzz_rng *rng, uint64_t seed, uint64_t iteration) {
  uint64_t state = seed;
  uint64_t mixed = splitmix64(&state) ^ (iteration * 0xd1b54a32d192ed03u);
  for (int i = 0; i < 4; i++)
    rng->s[i] = splitmix64(&mixed);
}

static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

uint64_t lsim_fuzz_rng_next(lsim_fuzz_rng *rng) {
  uint64_t *s = rng->s;
  uint64_t result = rotl(s[1] * 5, 7) * 9;
  uint64_t t = s[1] << 17;
  s[2] ^= s[0];
  s[3] ^= s[1];
  s[1] ^= s[2];
  s[0] ^= s[3];
  s[2] ^= t;
  s[3] = rotl(s[3], 45);
  return result;
}

/* Lemire's multiply-shift would need 128-bit arithmetic; rejection keeps it
 * exact in C11. */
uint64_t lsim_fuzz_rng_below(lsim_fuzz_rng *rng, uint64_t n) {
  if (n == 0)
    return 0;
  uint64_t limit = UINT64_MAX - UINT64_MAX % n;
  uint64_t x;
  do
    x = lsim_fuzz_rng_next(rng);
  while (x >= limit);
  return x % n;
}

bool lsim_fuzz_rng_chance(lsim_fuzz_rng *rng, unsigned percent) {
  return lsim_fuzz_rng_below(rng, 100) < percent;
}
