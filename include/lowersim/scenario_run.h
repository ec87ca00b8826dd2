/* lowersim/scenario_run.h: lowering what a scenario describes.
 *
 * Turns a scenario (lowersim/scenario.h) into the simulated runtime, a
 * registry (the built-in rules, the feature folders' rules and the
 * scenario's own primitives) and a program, lowers it, and, with
 * <execute/>, runs the host callbacks. */
#ifndef LOWERSIM_SCENARIO_RUN_H
#define LOWERSIM_SCENARIO_RUN_H

#include "lowersim/jax_profile.h"
#include "lowersim/lowering.h"
#include "lowersim/scenario.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct lsim_scenario_run_options {
  size_t struct_size;      /* LSIM_SCENARIO_RUN_OPTIONS_INIT */
  lsim_explain_fn explain; /* optional narration */
  void *explain_data;
  bool skip_verify;        /* benchmarks only */
  /* The JAX version of a scenario that names none (`--jax`); NULL: the
   * newest.  A scenario's own <scenario jax=...> always wins: the file
   * names the JAX its expectations hold for. */
  const lsim_jax_profile *profile;
  bool explain_ops;        /* with explain: anchor each op to its step (explain --html) */
  /* The last lowering's stream_min_eqns (lsim_lowering_request): for a
   * run whose outcome is only printed (lowersim lower). */
  size_t stream_min_eqns;
  /* When set: the last lowering's program as jax.make_jaxpr prints it
   * (lsim_program_jaxpr, owned by the caller), or NULL when tracing it
   * fails (the run's error says why). */
  char **jaxpr;
  lsim_error *jaxpr_error; /* with jaxpr: why tracing failed (what make_jaxpr raises) */
} lsim_scenario_run_options;

#define LSIM_SCENARIO_RUN_OPTIONS_INIT(...) \
  {.struct_size = sizeof(lsim_scenario_run_options), __VA_ARGS__}

/* What a run produced. */
typedef struct lsim_scenario_outcome {
  lsim_runtime *runtime;   /* owned by the outcome */
  lsim_lowering *lowering; /* NULL when the lowering failed */
  bool executed;           /* host callbacks were run */
  const lsim_jax_profile *profile; /* the JAX version the run modelled */
  /* A session: the fields are its last lowering's (the run's return code
   * and error too); the runtime holds the warnings of all. */
} lsim_scenario_outcome;

/* Lowers `s` with `lowerer` (options may be NULL); a session's lowerings
 * one after another in one JAX process, a failed one (a JAX error) not
 * stopping the next, LSIM_E_INVALID_INPUT or LSIM_E_NO_MEMORY stopping the
 * session.  The lowering (owned by
 * the outcome) references nothing of `s`.  Returns 0, a JAX error code (the typed
 * lowering error; `out->runtime` is still set for narration), or
 * LSIM_E_INVALID_INPUT when the scenario asks for something impossible
 * (message `PATH:LINE: ...`).  Release `out` with lsim_scenario_outcome_clear
 * in every case. */
int lsim_scenario_run(lsim_lowerer *lowerer, const lsim_scenario *s,
                      const lsim_scenario_run_options *options, lsim_scenario_outcome *out,
                      lsim_error *err);

void lsim_scenario_outcome_clear(lsim_scenario_outcome *out);

/* The JAX version `s` is lowered for: its jax= profile, else `fallback`,
 * else the newest.  (The reader has checked that jax= names a profile.) */
const lsim_jax_profile *lsim_scenario_profile(const lsim_scenario *s,
                                              const lsim_jax_profile *fallback);

/* A scenario's <expect> against what lowering it gives. */
typedef struct lsim_scenario_verdict {
  bool passed;
  char *difference; /* owned; NULL when passed: what differs, on one line */
} lsim_scenario_verdict;

/* Lowers `s` (with <execute/> if asked) and compares with its <expect>.
 * Returns 0 with the verdict filled, or an error of lowersim's own (out of
 * memory; a scenario without <expect> is LSIM_E_INVALID_ARGUMENT). */
int lsim_scenario_check(lsim_lowerer *lowerer, const lsim_scenario *s,
                        lsim_scenario_verdict *verdict, lsim_error *err);
/* The same with run options (the default profile). */
int lsim_scenario_check_with(lsim_lowerer *lowerer, const lsim_scenario *s,
                             const lsim_scenario_run_options *options,
                             lsim_scenario_verdict *verdict, lsim_error *err);
void lsim_scenario_verdict_clear(lsim_scenario_verdict *verdict);

#ifdef __cplusplus
}
#endif

#endif
