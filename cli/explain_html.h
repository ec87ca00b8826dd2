/* cli/explain_html.h: `lowersim explain --html OUT.html`: the lowering as
 * one self-contained page (inline CSS and JS, no network): the scenario,
 * the narration beside the emitted module, each op linked to the step that
 * made it and back, the request, the runtime and the module context as the
 * terminal gives them, each step's JAX function linked to its source at the
 * profile's source_ref, each stablehlo.case dispatch drawn as an inline SVG
 * (platform index -> rule index -> kept rules), an error as the outcome. */
#ifndef LOWERSIM_CLI_EXPLAIN_HTML_H
#define LOWERSIM_CLI_EXPLAIN_HTML_H

#include "explain_facts.h"
#include "lowersim/module_context.h"
#include "lowersim/scenario_run.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* One narrated line, in the order the narration came (SOURCE lines too). */
typedef struct explain_line {
  lsim_explain_kind kind;
  int depth;
  char *text; /* owned */
} explain_line;

/* The narration as it came: the explain function's data. */
typedef struct explain_record {
  explain_line *lines;
  size_t count, cap;
  bool failed; /* out of memory: lines were dropped */
} explain_record;

void explain_record_line(void *record, lsim_explain_kind kind, int depth, const char *text);
void explain_record_free(explain_record *r);

/* What the page shows. */
typedef struct explain_page {
  const char *path;                  /* the scenario file ("-": standard input) */
  const char *scenario_text;         /* the scenario as written (NULL: unavailable) */
  const char *scenario_name;         /* may be NULL */
  const char *python;                /* the scenario as the JAX program it means (NULL: none) */
  const char *jaxpr;                 /* as jax.make_jaxpr(f)(*args) prints it (NULL: none) */
  const lsim_jax_profile *profile;   /* the JAX version modelled */
  const explain_facts *facts;
  bool generic;                      /* the module in MLIR's generic form, not JAX's pretty one */       /* the request, runtime and module context (NULL: none) */
  const explain_record *narration;
  const lsim_scenario_outcome *outcome; /* NULL: the scenario could not be read */
  int code;                          /* 0, or the status that ended the lowering */
  const char *error_class;           /* with code: JAX's exception class (may be NULL) */
  const char *error_message;         /* with code */
} explain_page;

/* Writes the page to `out`; false when out of memory (nothing is promised
 * about what was written). */
bool explain_html_write(FILE *out, const explain_page *page);

#endif /* LOWERSIM_CLI_EXPLAIN_HTML_H */
