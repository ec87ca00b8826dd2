/* scenario/scenario_generate.c: what generators of random scenarios share:
 * draws from the caller's random source, avals and the values defined so
 * far.  Each kind generates its own equations (scenario/kinds/); this file
 * has the pieces they are made of. */
#include "lowersim/alloc.h"
#include "lowersim/scenario_generate.h"
#include "internal.h"

#include <stdlib.h>
#include <string.h>

#define MAX_LIST 4 /* names in a generated comma list */

const char *const lsim_scenario_gen_platforms[LSIM_SCENARIO_GEN_NUM_PLATFORMS] = {
    "cpu", "cuda", "rocm", "oneapi", "tpu", "gpu", "metal"};

uint64_t lsim_scenario_gen_below(lsim_scenario_gen *g, uint64_t n) { return g->below(g->rng, n); }

bool lsim_scenario_gen_chance(lsim_scenario_gen *g, unsigned percent) {
  return lsim_scenario_gen_below(g, 100) < percent;
}

const char *lsim_scenario_gen_pick(lsim_scenario_gen *g, const char *const *names, size_t n) {
  return names[lsim_scenario_gen_below(g, n)];
}

void *lsim_scenario_gen_alloc(lsim_scenario_gen *g, size_t n, size_t size) {
  void *p = lsim_calloc(n, size);
  if (!p)
    g->oom = true;
  return p;
}

char *lsim_scenario_gen_text(lsim_scenario_gen *g, const char *text) {
  char *copy = lsim_strdup(text);
  if (!copy)
    g->oom = true;
  return copy;
}

char *lsim_scenario_gen_name_list(lsim_scenario_gen *g, size_t max, const char *const *names,
                                  size_t n) {
  size_t count = lsim_scenario_gen_chance(g, 55) ? 1 : 1 + lsim_scenario_gen_below(g, max);
  bool repeats = lsim_scenario_gen_chance(g, 5);
  char text[MAX_LIST * 16] = "";
  bool used[16] = {false};
  for (size_t i = 0; i < count && i < MAX_LIST; i++) {
    size_t k = lsim_scenario_gen_below(g, n);
    if (used[k] && !repeats)
      continue;
    used[k] = true;
    if (text[0])
      strcat(text, ",");
    strcat(text, names[k]);
  }
  return lsim_scenario_gen_text(g, text);
}

/* --- Avals and values ------------------------------------------------------- */

static int64_t random_dim(lsim_scenario_gen *g, bool small) {
  if (small)
    return 1 + (int64_t)lsim_scenario_gen_below(g, 2);
  if (lsim_scenario_gen_chance(g, 4))
    return 0;
  /* Sizes kernels care about: a warpgroup's 128 elements (Mosaic GPU), a
   * power of 2 (Triton), Mosaic GPU's copy limit of 256. */
  if (lsim_scenario_gen_chance(g, 8))
    return lsim_scenario_gen_chance(g, 60) ? 128 : lsim_scenario_gen_chance(g, 50) ? 256 : 384;
  return lsim_scenario_gen_chance(g, 2) ? (int64_t)1 << 20
                                        : 1 + (int64_t)lsim_scenario_gen_below(g, 8);
}

void lsim_scenario_gen_aval(lsim_scenario_gen *g, lsim_aval *a) {
  memset(a, 0, sizeof *a);
  a->dtype = lsim_scenario_gen_chance(g, 40)
                 ? LSIM_DTYPE_F32
                 : (lsim_dtype)lsim_scenario_gen_below(g, LSIM_DTYPE_COUNT);
  unsigned r = (unsigned)lsim_scenario_gen_below(g, 100);
  a->rank = r < 20 ? 0 : r < 65 ? 1 : r < 88 ? 2 : r < 98 ? 3 : LSIM_MAX_RANK;
  for (int i = 0; i < a->rank; i++)
    a->dims[i] = random_dim(g, a->rank == LSIM_MAX_RANK);
}

void lsim_scenario_gen_define(lsim_scenario_gen *g, const lsim_aval *a) {
  if (g->num_values < LSIM_SCENARIO_GEN_MAX_VALUES)
    g->values[g->num_values++] = *a;
}

/* A result's aval: often one a value already has, so that aliases and
 * binary ops find partners. */
void lsimp_gen_result_aval(lsim_scenario_gen *g, lsim_aval *a) {
  if (g->num_values && lsim_scenario_gen_chance(g, 50))
    *a = g->values[lsim_scenario_gen_below(g, g->num_values)];
  else
    lsim_scenario_gen_aval(g, a);
}

size_t lsimp_gen_value(lsim_scenario_gen *g) {
  return (size_t)lsim_scenario_gen_below(g, g->num_values);
}

/* A value with the same aval as value `v` (v itself at least). */
size_t lsimp_gen_equal(lsim_scenario_gen *g, size_t v) {
  size_t same[LSIM_SCENARIO_GEN_MAX_VALUES], n = 0;
  for (size_t i = 0; i < g->num_values; i++)
    if (lsim_aval_equal(&g->values[i], &g->values[v]))
      same[n++] = i;
  return same[lsim_scenario_gen_below(g, n)];
}

/* A 1-D, non-empty, numeric value: what a Pallas kernel takes. */
bool lsimp_gen_kernel_operand(lsim_scenario_gen *g, size_t *out) {
  size_t fit[LSIM_SCENARIO_GEN_MAX_VALUES], n = 0;
  for (size_t i = 0; i < g->num_values; i++) {
    const lsim_aval *a = &g->values[i];
    if (a->rank == 1 && a->dims[0] > 0 && a->dtype != LSIM_DTYPE_BOOL)
      fit[n++] = i;
  }
  if (!n)
    return false;
  *out = fit[lsim_scenario_gen_below(g, n)];
  return true;
}

void lsimp_gen_operands(lsim_scenario_gen *g, lsim_scenario_eqn *e, size_t max) {
  size_t n = g->num_values ? (size_t)lsim_scenario_gen_below(g, max + 1) : 0;
  e->args = lsim_scenario_gen_alloc(g, n, sizeof *e->args);
  for (size_t i = 0; e->args && i < n; i++)
    e->args[e->num_args++] = lsimp_gen_value(g);
}

void lsimp_gen_results(lsim_scenario_gen *g, lsim_scenario_eqn *e, size_t max) {
  size_t n = (size_t)lsim_scenario_gen_below(g, max + 1);
  e->results = lsim_scenario_gen_alloc(g, n, sizeof *e->results);
  for (size_t i = 0; e->results && i < n; i++)
    lsimp_gen_result_aval(g, &e->results[e->num_results++]);
}
