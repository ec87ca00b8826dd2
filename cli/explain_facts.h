/* cli/explain_facts.h: what `lowersim explain` says around the narration,
 * made once for the terminal and the page (--html): the JAX version line,
 * the request, the runtime (JAX_PLATFORMS, the factories, the backends and
 * the default one, the quiet failures, the warnings) and the module
 * context's counts, each a section of rows KEY VALUE [NOTE]. */
#ifndef LOWERSIM_CLI_EXPLAIN_FACTS_H
#define LOWERSIM_CLI_EXPLAIN_FACTS_H

#include "lowersim/jax_profile.h"
#include "lowersim/scenario.h"
#include "lowersim/scenario_run.h"

#include <stdbool.h>
#include <stddef.h>

/* How a row stands out: a warning's key, the default backend's note. */
typedef enum explain_tone {
  EXPLAIN_TONE_PLAIN,
  EXPLAIN_TONE_GOOD, /* the note: the default backend */
  EXPLAIN_TONE_WARN, /* the key and value: a warning */
} explain_tone;

typedef struct explain_row {
  const char *key; /* static; "" continues the row above's key */
  char *value;     /* owned */
  const char *note; /* static, or NULL */
  explain_tone tone;
} explain_row;

typedef struct explain_section {
  const char *title; /* "request", "runtime (xla_bridge)", "module context" */
  const char *id;    /* the page's id: "request", "runtime", "module-context" */
  explain_row *rows;
  size_t count, cap;
} explain_section;

typedef struct explain_facts {
  char *jax;    /* "JAX 0.12.0.1 (commit dc4af68444; the newest: neither jax= nor --jax)" */
  char *source; /* "source links at github.com/jax-ml/jax jax-v0.12.0.1" */
  explain_section request, runtime, context; /* context: no rows without a lowering */
  bool failed;  /* out of memory: some rows are missing */
} explain_facts;

/* "JAX 0.12.0.1 (commit dc4af68444; the newest: neither jax= nor --jax)":
 * which JAX `s` lowers as, and why; false when it does not fit. */
bool explain_jax_line(const lsim_scenario *s, const lsim_jax_profile *flag, char *buf,
                      size_t size);

/* "source links at github.com/jax-ml/jax jax-v0.12.0.1". */
bool explain_source_line(const lsim_scenario *s, const lsim_jax_profile *flag, char *buf,
                         size_t size);

/* The facts of scenario `s` lowered to `outcome` (its status `rc`), the
 * JAX version that of `s` with `flag` (--jax, may be NULL).  Initializes
 * the runtime's backends, so that they show even when the lowering never
 * needed them. */
void explain_facts_make(explain_facts *f, const lsim_scenario *s, const lsim_jax_profile *flag,
                        const lsim_scenario_outcome *outcome, int rc);
void explain_facts_free(explain_facts *f);

#endif /* LOWERSIM_CLI_EXPLAIN_FACTS_H */
