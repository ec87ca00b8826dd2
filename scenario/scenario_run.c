/* scenario/scenario_run.c: from a scenario to a lowering: the simulated
 * runtime, the Pallas state, the registry of a JAX process
 * (lsim_registry_create_jax), then each equation built by its kind (with the
 * scenario's own primitives' rules registered on the way), lowered, and run
 * with <execute/>. */
#include "lowersim/scenario_run.h"
#include "internal.h"
#include "lowersim/jax.h"
#include "support/options.h"
#include "support/raise.h"

#include <stdlib.h>
#include <string.h>

/* Everything a run allocates besides the outcome. */
typedef struct prepared {
  lsim_pallas *pallas;
  lsim_registry *registry;
  lsimp_builder builder;
  lsim_program program;
  const char **platforms; /* the lowering platforms, split (in the builder's storage) */
  size_t num_platforms;
} prepared;

static void prepared_free(prepared *p) {
  lsim_registry_destroy(p->registry);
  lsimp_builder_free(&p->builder);
  lsim_pallas_destroy(p->pallas);
}

/* Turns an invalid-argument error of the library into the file's error. */
static int invalid(const lsim_scenario *s, int line, lsim_error *err) {
  return lsim_error_set(err, LSIM_E_INVALID_INPUT, "%s:%d: %s", s->path ? s->path : "<scenario>",
                        line, lsim_error_message(err));
}

static int build_runtime(const lsim_scenario *s, lsim_runtime **out, lsim_error *err) {
  if (!s->runtime.present)
    return lsim_runtime_create_default(out, err);
  int rc = lsim_runtime_create(out, err);
  for (size_t i = 0; !rc && i < s->runtime.num_backends; i++) {
    const lsim_scenario_backend *b = &s->runtime.backends[i];
    lsim_backend_factory f;
    lsim_backend_factory_defaults(&f, b->platform);
    f.device_count = b->devices;
    if (b->has_priority)
      f.priority = b->priority;
    if (b->has_fail_quietly)
      f.fail_quietly = b->fail_quietly;
    f.error = b->error;
    f.device_kind = b->device_kind;
    f.compute_capability = b->compute_capability;
    if ((rc = lsim_runtime_register_backend_factory(*out, &f, err)) == LSIM_E_INVALID_ARGUMENT)
      rc = invalid(s, b->line, err);
  }
  if (!rc && (rc = lsim_runtime_set_jax_platforms(*out, s->runtime.jax_platforms, err)))
    rc = invalid(s, s->lower_line, err);
  return rc;
}

/* The JAX process: which Pallas backends the scenario says are installed
 * (all, by default), and the registry of what JAX registers. */
static int build_process(const lsim_scenario *s, lsim_runtime *rt, prepared *p, lsim_error *err) {
  lsim_pallas_installed installed = s->has_pallas ? s->pallas : lsim_scenario_default_pallas();
  int rc = lsim_pallas_create(&installed, &p->pallas, err);
  const lsim_jax_profile *profile = s->jax ? lsim_jax_profile_find(s->jax) : NULL;
  return rc ? rc : lsim_registry_create_jax(rt, p->pallas, profile, &p->registry, err);
}

/* The program: each equation by its kind, in document order. */
static int build_program(const lsim_scenario *s, prepared *p) {
  lsimp_builder *b = &p->builder;
  lsim_aval *args = lsimp_build_alloc(b, s->num_args, sizeof *args);
  bool *donated = lsimp_build_alloc(b, s->num_args, sizeof *donated);
  lsim_eqn *eqns = lsimp_build_alloc(b, s->num_eqns, sizeof *eqns);
  if (!args || !donated || !eqns)
    return LSIM_E_NO_MEMORY;
  for (size_t i = 0; i < s->num_args; i++) {
    args[i] = s->args[i].aval;
    donated[i] = s->args[i].donated;
  }
  for (size_t i = 0; i < s->num_eqns; i++) {
    const lsim_scenario_eqn *e = &s->eqns[i];
    eqns[i] = (lsim_eqn){.operands = e->args, .num_operands = e->num_args,
                         .results = e->results, .num_results = e->num_results};
    int rc = e->kind->build(b, e, &eqns[i]);
    if (rc)
      return rc;
  }
  p->program = (lsim_program){
      .function_name = s->function,
      .args = args,
      .donated = donated,
      .num_args = s->num_args,
      .eqns = eqns,
      .num_eqns = s->num_eqns,
      .has_outputs = s->has_return,
      .outputs = s->has_return ? s->returns : NULL,
      .num_outputs = s->has_return ? s->num_returns : 0,
  };
  return LSIM_OK;
}

/* platforms="cuda,tpu" as names. */
static int split_platforms(const lsim_scenario *s, prepared *p) {
  if (!s->platforms)
    return LSIM_OK;
  size_t len = strlen(s->platforms), n = 1;
  for (const char *c = s->platforms; *c; c++)
    n += *c == ',';
  char *storage = lsimp_build_alloc(&p->builder, len + 1, 1);
  p->platforms = lsimp_build_alloc(&p->builder, n, sizeof *p->platforms);
  if (!storage || !p->platforms)
    return LSIM_E_NO_MEMORY;
  memcpy(storage, s->platforms, len + 1);
  for (char *item = storage; item;) {
    char *comma = strchr(item, ',');
    if (comma)
      *comma = '\0';
    p->platforms[p->num_platforms++] = item;
    item = comma ? comma + 1 : NULL;
  }
  return LSIM_OK;
}

/* jax_enable_x64 is on when a value of the program is 64-bit (JAX would
 * otherwise make it 32-bit). */
static bool needs_x64(const lsim_scenario *s) {
  lsim_aval aval;
  for (size_t i = 0; lsim_scenario_value_aval(s, i, &aval); i++)
    if (lsim_dtype_itemsize(aval.dtype) == 8)
      return true;
  return false;
}

static int lower(lsim_lowerer *lowerer, const lsim_scenario *s, prepared *p,
                 const lsim_scenario_run_options *opts, lsim_scenario_outcome *out,
                 lsim_error *err) {
  lsim_lowering_request req = LSIM_LOWERING_REQUEST_INIT(
      .registry = p->registry, .program = &p->program, .platforms = p->platforms,
      .num_platforms = p->num_platforms, .backend = s->backend,
      .for_export = s->platforms != NULL, /* explicit platforms: export(platforms=...) */
      .explain = opts->explain, .explain_data = opts->explain_data,
      .skip_verify = opts->skip_verify,
      .abstract_device = s->has_abstract_device ? &s->abstract_device : NULL,
      .enable_x64 = needs_x64(s));
  int rc = lsim_lower(lowerer, &req, &out->lowering, err);
  return rc == LSIM_E_INVALID_ARGUMENT ? invalid(s, s->lower_line, err) : rc;
}

int lsim_scenario_run(lsim_lowerer *lowerer, const lsim_scenario *s,
                      const lsim_scenario_run_options *options, lsim_scenario_outcome *out,
                      lsim_error *err) {
  lsim_scenario_run_options opts;
  if (!lowerer || !s || !out)
    return lsim_error_set(err, LSIM_E_INVALID_ARGUMENT, "lsim_scenario_run: NULL argument");
  *out = (lsim_scenario_outcome){0};
  int rc = lsimp_options_copy(&opts, sizeof opts, options, "lsim_scenario_run_options", err);
  prepared p = {.builder = {.s = s, .err = err}};
  if (!rc)
    rc = build_runtime(s, &out->runtime, err);
  if (!rc)
    rc = build_process(s, out->runtime, &p, err);
  p.builder.registry = p.registry;
  if (!rc)
    rc = build_program(s, &p);
  if (!rc)
    rc = split_platforms(s, &p);
  if (!rc)
    rc = lower(lowerer, s, &p, &opts, out, err);
  if (!rc && s->execute) {
    out->executed = true;
    rc = lsim_lowering_execute(out->lowering, err);
  }
  prepared_free(&p);
  return rc;
}

void lsim_scenario_outcome_clear(lsim_scenario_outcome *out) {
  if (!out)
    return;
  lsim_lowering_destroy(out->lowering);
  lsim_runtime_destroy(out->runtime);
  *out = (lsim_scenario_outcome){0};
}
