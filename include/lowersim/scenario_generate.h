/* lowersim/scenario_generate.h: random equations of every kind, for fuzzing
 * lowersim or a port of it (lowersim fuzz drives them from its PRNG).
 *
 * A generator draws from the caller's random source and from the values
 * defined so far; what it makes is what the reader accepts (value indices
 * defined before use, binary operands with equal avals, implied results,
 * reader defaults), and what the lowering refuses (bad aliases, kernels that
 * do not fit, unknown platforms) is made on purpose, at lower rates. */
#ifndef LOWERSIM_SCENARIO_GENERATE_H
#define LOWERSIM_SCENARIO_GENERATE_H

#include "lowersim/aval.h"
#include "lowersim/jax_profile.h"
#include "lowersim/scenario.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define LSIM_SCENARIO_GEN_MAX_VALUES 64 /* values remembered; later ones are not reused */
#define LSIM_SCENARIO_GEN_MAX_RESULTS 2 /* results of a generated equation */

/* The state of one generated scenario. */
typedef struct lsim_scenario_gen {
  uint64_t (*below)(void *rng, uint64_t n); /* uniform in [0, n); 0 when n is 0 */
  void *rng;
  lsim_aval values[LSIM_SCENARIO_GEN_MAX_VALUES]; /* the avals of the values so far */
  size_t num_values;
  bool oom; /* an allocation failed: the scenario is to be thrown away */
  /* A later lowering of a process session: the session's first lowering
   * and how many come before the one being generated (0: none), so that
   * an equation can refer to an earlier one (<call_exported>). */
  const lsim_scenario *session;
  size_t num_earlier;
  /* The JAX release the scenario is made for (NULL: the newest): a
   * generator makes only what that release accepts as input (no
   * jax_pallas_use_mosaic_gpu where the release has no such option). */
  const lsim_jax_profile *profile;
} lsim_scenario_gen;

/* Uniform in [0, n); true with probability percent/100; one of `n` names. */
uint64_t lsim_scenario_gen_below(lsim_scenario_gen *g, uint64_t n);
bool lsim_scenario_gen_chance(lsim_scenario_gen *g, unsigned percent);
const char *lsim_scenario_gen_pick(lsim_scenario_gen *g, const char *const *names, size_t n);

/* Zeroed storage for `n` items (never NULL on success, even for 0 items) and
 * a copy of `text`; on failure NULL, and g->oom is set. */
void *lsim_scenario_gen_alloc(lsim_scenario_gen *g, size_t n, size_t size);
char *lsim_scenario_gen_text(lsim_scenario_gen *g, const char *text);

/* The platforms generated scenarios name: the five concrete ones (the first
 * LSIM_SCENARIO_GEN_CONCRETE_PLATFORMS), the alias gpu, and metal, a
 * plugin known only when a backend declares it. */
extern const char *const lsim_scenario_gen_platforms[];
#define LSIM_SCENARIO_GEN_NUM_PLATFORMS 7
#define LSIM_SCENARIO_GEN_CONCRETE_PLATFORMS 5

/* A comma list of 1 to `max` names of `names` (mostly one or two), distinct
 * but now and then (owned). */
char *lsim_scenario_gen_name_list(lsim_scenario_gen *g, size_t max, const char *const *names,
                                  size_t n);

/* A random aval (mostly f32 of rank 0 to 3, now and then empty or huge). */
void lsim_scenario_gen_aval(lsim_scenario_gen *g, lsim_aval *a);

/* Records a value just defined (an arg or a result). */
void lsim_scenario_gen_define(lsim_scenario_gen *g, const lsim_aval *a);

/* A random equation of a random kind (by the kinds' weights) over the
 * values defined so far; its results are defined. */
void lsim_scenario_gen_eqn(lsim_scenario_gen *g, lsim_scenario_eqn *e);

/* A random equation of `kind` (lowersim/scenario_kind.h) over the values
 * defined so far, its results defined; false (and `e` zeroed) when the kind
 * cannot be made from them (a pallas_call needs a 1-D numeric value). */
bool lsim_scenario_gen_eqn_of_kind(lsim_scenario_gen *g, const lsim_scenario_kind *kind,
                                   lsim_scenario_eqn *e);

#ifdef __cplusplus
}
#endif

#endif /* LOWERSIM_SCENARIO_GENERATE_H */
