/* fuzz/fuzz.h: random scenarios and the invariants every lowering keeps.
 *
 * Shared by `lowersim fuzz` (cli/cmd_fuzz.c) and the libFuzzer target
 * (fuzz/libfuzzer_scenario.c).  Private to lowersim: the library
 * lowersim_fuzz sits on top of the scenario layer, next to the command.
 *
 * A generator fills an lsim_scenario (lowersim/scenario.h) directly, from a
 * small deterministic PRNG, with everything a scenario file can say.  A
 * checker lowers a scenario several ways and reports the first invariant
 * that fails; a minimizer shrinks a failing scenario while the same
 * invariant still fails; a finding is written as a scenario file that
 * `lowersim lower` reproduces. */
#ifndef LOWERSIM_FUZZ_H
#define LOWERSIM_FUZZ_H

#include "lowersim/scenario.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* --- The PRNG (xoshiro256**, seeded with splitmix64) ---------------------- */

typedef struct lsim_fuzz_rng {
  uint64_t s[4];
} lsim_fuzz_rng;

/* Seeds `rng` from a run's seed and an iteration number, so that every
 * iteration's scenario depends on nothing else. */
void lsim_fuzz_rng_seed(lsim_fuzz_rng *rng, uint64_t seed, uint64_t iteration);
uint64_t lsim_fuzz_rng_next(lsim_fuzz_rng *rng);
/* Uniform in [0, n); 0 when n is 0. */
uint64_t lsim_fuzz_rng_below(lsim_fuzz_rng *rng, uint64_t n);
/* True with probability percent/100. */
bool lsim_fuzz_rng_chance(lsim_fuzz_rng *rng, unsigned percent);

/* --- Generating and editing scenarios -------------------------------------- */

/* A random scenario named `name` (copied), for the newest JAX: runtime, Pallas flags, lowering
 * platforms, pinned backend, args and equations of every kind with valid
 * value indices and avals (what the reader accepts), maybe <execute/>.
 * `*out` is owned: lsim_scenario_destroy.  Fails only when out of memory. */
int lsim_fuzz_generate(lsim_fuzz_rng *rng, const char *name, lsim_scenario **out, lsim_error *err);

/* The same, for the JAX release `profile` (NULL: the newest; only what it
 * accepts as input is made, from the same draws: a scenario of one seed
 * differs between releases only in what one of them would refuse), and
 * focused on the equation element `focus` (NULL: none): most equations are
 * of that kind and the runtime is a cpu with up to three accelerators that
 * come up, so the scenarios reach that kind's lowering.  Fails with
 * LSIM_E_INVALID_ARGUMENT for an unknown element. */
int lsim_fuzz_generate_focused(lsim_fuzz_rng *rng, const char *name, const char *focus,
                               const lsim_jax_profile *profile, lsim_scenario **out,
                               lsim_error *err);

/* A deep copy of `s` (owned). */
int lsim_fuzz_scenario_clone(const lsim_scenario *s, lsim_scenario **out, lsim_error *err);

/* Serializes `s` with lsim_scenario_write into a new NUL-terminated buffer
 * (`*text` owned, `*size` its length). */
int lsim_fuzz_scenario_text(const lsim_scenario *s, char **text, size_t *size, lsim_error *err);

/* Deletes the values marked in `drop_value` (indexed like the scenario's
 * values: args, then every equation's results) and the equations marked in
 * `drop_eqn`, then, transitively, every equation that uses a deleted value;
 * <return> entries naming one go too.  An op or platform_dependent whose
 * (implied) result is marked goes whole.  References are renumbered.  The
 * arrays are read only and may be NULL. */
int lsim_fuzz_scenario_prune(lsim_scenario *s, const bool *drop_value, const bool *drop_eqn,
                             lsim_error *err);

/* The number of values of `s`: args plus every equation's results. */
size_t lsim_fuzz_scenario_num_values(const lsim_scenario *s);

/* --- Invariants ------------------------------------------------------------ */

typedef enum lsim_fuzz_invariant {
  LSIM_FUZZ_HOLDS,          /* every invariant holds */
  LSIM_FUZZ_CATALOGUED,     /* a failure is a catalogued code lsim_scenario_run may return */
  LSIM_FUZZ_VERIFY,         /* LSIM_E_VERIFY: lowersim emitted an invalid module */
  LSIM_FUZZ_SUCCESS_VERIFY, /* a successful lowering's module fails verification */
  LSIM_FUZZ_REPARSE,        /* the printed module does not re-parse and print the same */
  LSIM_FUZZ_DETERMINISM,    /* lowering twice gives different outcomes */
  LSIM_FUZZ_ROUND_TRIP,     /* write + read gives a scenario that lowers differently */
  LSIM_FUZZ_CRASH,          /* the check crashed (isolated checkers only) */
  LSIM_FUZZ_READER,         /* a refused file's error is not one `NAME:LINE: ...` line */
  LSIM_FUZZ_STREAM,         /* streamed (stream_min_eqns), the outcome differs */
  LSIM_FUZZ_INVARIANT_COUNT
} lsim_fuzz_invariant;

/* "catalogued", "verify", ... (static); NULL when out of range. */
const char *lsim_fuzz_invariant_name(lsim_fuzz_invariant inv);
/* One sentence saying what the invariant is (static). */
const char *lsim_fuzz_invariant_description(lsim_fuzz_invariant inv);

/* What checking one scenario found. */
typedef struct lsim_fuzz_result {
  lsim_fuzz_invariant failed; /* LSIM_FUZZ_HOLDS when every invariant holds */
  int code;                   /* the status of the first lowering (0: a module) */
  char *detail;               /* owned; what differs, on one line; NULL when all hold */
} lsim_fuzz_result;

void lsim_fuzz_result_clear(lsim_fuzz_result *r);

/* Lowers scenarios with one MLIR context and re-parses modules in another
 * (unregistered dialects allowed, func loaded).  One per thread. */
typedef struct lsim_fuzz_checker lsim_fuzz_checker;

int lsim_fuzz_checker_create(lsim_fuzz_checker **out, lsim_error *err);
void lsim_fuzz_checker_destroy(lsim_fuzz_checker *c);

/* From now on, runs every check in a child process (fork), so that a crash
 * or a sanitizer report becomes a finding (LSIM_FUZZ_CRASH, its detail the
 * signal or the sanitizer's first lines) instead of ending the caller.
 * Leaks are not looked for in the children.  Fails with LSIM_E_IO when the
 * temporary files the children report through cannot be made. */
int lsim_fuzz_checker_isolate(lsim_fuzz_checker *c, lsim_error *err);

/* Checks every invariant for `s` (borrowed): the lowering fails with a
 * catalogued code other than LSIM_E_VERIFY, or succeeds with a module that
 * verifies and re-parses to the same text; a second lowering gives the same
 * outcome; the scenario written and read back lowers to the same outcome
 * and writes the same text.  Returns 0 with `*result` filled (clear it), or
 * an error of the checker's own (out of memory). */
int lsim_fuzz_check(lsim_fuzz_checker *c, const lsim_scenario *s, lsim_fuzz_result *result,
                    lsim_error *err);

/* --- What the generator met too rarely (hostile.c) ------------------------- */

/* The text of a scenario named `name` of a large shape: 16 to 1024 distinct
 * platforms (a platform_dependent branch each, plugin backends with a rule
 * each or a default rule only, JAX_PLATFORMS naming them), or as many
 * branches of one platform, or as many aliases.  A valid scenario; `*text`
 * owned. */
int lsim_fuzz_generate_large(lsim_fuzz_rng *rng, const char *name, char **text, size_t *size,
                             lsim_error *err);

/* `text` with junk attributes (and namespace declarations) added to one of
 * its start tags: a few, about the limit of 64, or thousands.  `*out`
 * owned. */
int lsim_fuzz_add_attributes(lsim_fuzz_rng *rng, const char *text, size_t size, char **out,
                             size_t *out_size, lsim_error *err);

/* Reads `text` as the file `name`: a scenario the reader accepts is checked
 * as lsim_fuzz_check does; one it refuses must get LSIM_E_INVALID_INPUT and
 * one line `NAME:LINE: ...` (LSIM_FUZZ_READER otherwise; res->code is the
 * reader's status).  Returns 0 with `*res` filled, or the checker's own
 * error. */
int lsim_fuzz_check_text(lsim_fuzz_checker *c, const char *name, const char *text, size_t size,
                         lsim_fuzz_result *res, lsim_error *err);

/* --- Minimizing and reporting --------------------------------------------- */

/* Greedy minimization of a scenario for which lsim_fuzz_check reported
 * `*result`: repeatedly tries removing equations, args that became unused,
 * backends, aliases, rules, branches, results and settings, keeping each
 * removal after which the same invariant (with the same status) still fails,
 * until none helps or `max_checks` checks were made.  `*out` is the smallest
 * scenario (owned) and `*result` is replaced by its result. */
int lsim_fuzz_minimize(lsim_fuzz_checker *c, const lsim_scenario *s, size_t max_checks,
                       lsim_fuzz_result *result, lsim_scenario **out, lsim_error *err);

/* Writes `s` to `out` as a scenario file that starts, after the XML
 * declaration, with a comment naming the failed invariant of `result` and
 * its detail, and `note` (optional) on a line of its own. */
int lsim_fuzz_write_finding(FILE *out, const lsim_scenario *s, const lsim_fuzz_result *result,
                            const char *note, lsim_error *err);

/* Writes `text` to `out` with `comment` (XML-escaped as a comment) after
 * its XML declaration. */
int lsim_fuzz_write_commented(FILE *out, const char *text, size_t size, const char *comment,
                              lsim_error *err);

#endif
