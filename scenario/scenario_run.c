/* scenario/scenario_run.c: from a scenario to a lowering: the simulated
 * runtime, the Pallas state, the registry of a JAX process
 * (lsim_registry_create_jax), then each equation built by its kind (with the
 * scenario's own primitives' rules registered on the way), lowered, and run
 * with <execute/>. */
#include "lowersim/scenario_run.h"
#include "internal.h"
#include "kinds/kinds.h"
#include "lowersim/jax.h"
#include "support/alloc.h"
#include "support/options.h"
#include "support/raise.h"
#include "support/strbuf.h"

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
  lsim_device *devices;   /* <lower devices>: jax.devices()[:N] (in the builder's storage) */
  size_t num_devices;
  const char **disabled_checks; /* export's, split likewise */
  size_t num_disabled_checks;
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

/* The JAX process's runtime (cpu and tpu registered on import), then the
 * scenario's backends: cpu and tpu replace JAX's factories in place, the
 * others are plugins registered after them. */
static int build_runtime(const lsim_scenario *s, const lsim_jax_profile *profile,
                         lsim_runtime **out, lsim_error *err) {
  int rc = lsim_runtime_create_jax(profile, out, err);
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
 * (all, by default), and the registry of what JAX registers.  A scenario
 * that sets jax_pallas_use_mosaic_gpu for a JAX without the option (0.11.2
 * on: config.update would raise AttributeError before the program runs) is
 * refused, not lowered as if it were unset. */
static int build_process(const lsim_scenario *s, lsim_runtime *rt,
                         const lsim_jax_profile *profile, prepared *p, lsim_error *err) {
  if (s->has_pallas && s->has_use_mosaic_gpu && !profile->pallas_use_mosaic_gpu_option) {
    lsim_error_set(err, LSIM_E_INVALID_ARGUMENT,
                   "<pallas use_mosaic_gpu=\"%s\">: JAX %s has no jax_pallas_use_mosaic_gpu "
                   "option (gone from 0.11.2, where a GPU pallas_call without compiler params "
                   "lowers with Triton): drop the attribute or pin the scenario to an older JAX",
                   s->pallas.use_mosaic_gpu ? "true" : "false", profile->name);
    return invalid(s, s->pallas_line, err);
  }
  lsim_pallas_installed installed = s->has_pallas ? s->pallas : lsim_scenario_default_pallas();
  int rc = lsim_pallas_create(&installed, &p->pallas, err);
  return rc ? rc : lsim_registry_create_jax(rt, p->pallas, profile, &p->registry, err);
}

const lsim_jax_profile *lsim_scenario_profile(const lsim_scenario *s,
                                              const lsim_jax_profile *fallback) {
  const lsim_jax_profile *pinned = s && s->jax ? lsim_jax_profile_find(s->jax) : NULL;
  return lsim_jax_profile_or_default(pinned ? pinned : fallback);
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
    int rc = lsimp_resolve_callback_sharding(b, &s->eqns[i]);
    if (rc)
      return rc;
  }
  for (size_t i = 0; i < s->num_eqns; i++) {
    const lsim_scenario_eqn *e = &s->eqns[i];
    eqns[i] = (lsim_eqn){.operands = e->args, .num_operands = e->num_args,
                         .results = e->results, .num_results = e->num_results,
                         .compute_type = e->compute_type};
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

/* devices="N": the default backend's first N devices (fewer when it has
 * fewer, as jax.devices()[:N] slices), looked up as the program makes its
 * mesh, before jit. */
static int resolve_devices(const lsim_scenario *s, prepared *p, lsim_error *err) {
  if (!s->devices)
    return LSIM_OK;
  const lsim_backend *b;
  int rc = lsim_runtime_get_backend(lsim_registry_runtime(p->registry), NULL, &b, err);
  if (rc)
    return rc;
  p->num_devices = (size_t)(s->devices < b->device_count ? s->devices : b->device_count);
  p->devices = lsimp_build_alloc(&p->builder, p->num_devices, sizeof *p->devices);
  if (!p->devices)
    return LSIM_E_NO_MEMORY;
  for (size_t i = 0; i < p->num_devices; i++)
    p->devices[i] = (lsim_device){b, (int)i};
  return LSIM_OK;
}

/* A comma list ("cuda,tpu") as names, in the builder's storage. */
static int split_list(prepared *p, const char *list, const char ***out, size_t *count) {
  if (!list || !*list)
    return LSIM_OK;
  size_t len = strlen(list), n = 1;
  for (const char *c = list; *c; c++)
    n += *c == ',';
  char *storage = lsimp_build_alloc(&p->builder, len + 1, 1);
  *out = lsimp_build_alloc(&p->builder, n, sizeof **out);
  if (!storage || !*out)
    return LSIM_E_NO_MEMORY;
  memcpy(storage, list, len + 1);
  for (char *item = storage; item;) {
    char *comma = strchr(item, ',');
    if (comma)
      *comma = '\0';
    (*out)[(*count)++] = item;
    item = comma ? comma + 1 : NULL;
  }
  return LSIM_OK;
}

/* The line of the first equation whose trace-time check refuses it as an
 * invalid argument (what the library's lowering refuses as such comes from
 * those checks), else the <lower> line; -1 when out of memory. */
static int refused_line(const lsim_scenario *s, const lsim_program *prog) {
  size_t num_values = lsim_program_num_values(prog), most = 0;
  for (size_t i = 0; i < prog->num_eqns; i++)
    most = prog->eqns[i].num_operands > most ? prog->eqns[i].num_operands : most;
  lsim_aval *avals = lsim_malloc_array(num_values, sizeof *avals);
  lsim_aval *in = lsim_malloc_array(most, sizeof *in);
  int line = (avals || !num_values) && (in || !most) ? s->lower_line : -1;
  if (line >= 0)
    lsim_program_value_avals(prog, avals);
  for (size_t i = 0; line >= 0 && i < prog->num_eqns; i++) {
    const lsim_eqn *e = &prog->eqns[i];
    if (!e->primitive->trace_check)
      continue;
    for (size_t j = 0; j < e->num_operands; j++)
      in[j] = avals[e->operands[j]];
    lsim_error ignored = LSIM_ERROR_INIT;
    int rc = e->primitive->trace_check(in, e->num_operands, e->results, e->num_results, e->params,
                                       NULL, &ignored);
    lsim_error_clear(&ignored);
    if (rc == LSIM_E_INVALID_ARGUMENT || rc == LSIM_E_NO_MEMORY) {
      line = rc == LSIM_E_NO_MEMORY ? -1 : s->eqns[i].line;
      break;
    }
  }
  free(avals);
  free(in);
  return line;
}

static int split_platforms(const lsim_scenario *s, prepared *p) {
  int rc = s->platforms ? split_list(p, s->platforms, &p->platforms, &p->num_platforms) : LSIM_OK;
  return rc ? rc : split_list(p, s->disabled_checks, &p->disabled_checks, &p->num_disabled_checks);
}

static int lower(lsim_lowerer *lowerer, const lsim_scenario *s, prepared *p,
                 const lsim_scenario_run_options *opts, bool last, lsim_scenario_outcome *out,
                 lsim_error *err) {
  lsim_lowering_request req = LSIM_LOWERING_REQUEST_INIT(
      .registry = p->registry, .program = &p->program, .platforms = p->platforms,
      .num_platforms = p->num_platforms, .backend = s->backend, .devices = p->devices,
      .num_devices = p->num_devices,
      .keep_unused = s->keep_unused, .enable_x64 = lsim_scenario_enable_x64(s),
      .for_export = s->for_export,
      .disabled_checks = p->disabled_checks,
      .num_disabled_checks = p->num_disabled_checks,
      .explain = opts->explain, .explain_data = opts->explain_data,
      .explain_ops = opts->explain_ops, .skip_verify = opts->skip_verify,
      .abstract_device = s->has_abstract_device ? &s->abstract_device : NULL,
      .stream_min_eqns = last ? opts->stream_min_eqns : 0);
  int rc = lsim_lower(lowerer, &req, &out->lowering, err);
  if (rc != LSIM_E_INVALID_ARGUMENT)
    return rc;
  int line = refused_line(s, &p->program);
  return line >= 0 ? invalid(s, line, err) : lsimp_fail_oom(err);
}

/* The program's jaxpr, for a run that asks for it: none when tracing it
 * fails (the lowering then fails the same way and says why). */
static int print_jaxpr(const lsim_scenario *s, prepared *p, const lsim_scenario_run_options *opts) {
  const lsim_jax_profile *jax = lsim_scenario_profile(p->builder.head ? p->builder.head : s,
                                                      opts->profile);
  lsim_error trace = LSIM_ERROR_INIT;
  int rc = lsim_program_trace_for(&p->program, jax, &trace);
  if (opts->jaxpr_error)
    lsimp_error_move(opts->jaxpr_error, &trace);
  lsim_error_clear(&trace);
  free(*opts->jaxpr);
  *opts->jaxpr = rc ? NULL : lsim_program_jaxpr(&p->program, jax);
  return rc == LSIM_E_NO_MEMORY || (!rc && !*opts->jaxpr) ? LSIM_E_NO_MEMORY : LSIM_OK;
}

/* One lowering of the run: its program, devices and platforms (in the
 * builder's storage, which lives as long as the run), lowered, then
 * executed when it says so. */
static int run_step(lsim_lowerer *lowerer, const lsim_scenario *s, prepared *p,
                    const lsim_scenario_run_options *opts, lsim_lowering **lowering,
                    bool *executed, lsim_error *err) {
  bool last = s->next == NULL;
  p->builder.s = s;
  p->builder.err = err;
  p->builder.values = NULL; /* this lowering's values (the storage stays the run's) */
  p->builder.num_values = 0;
  p->platforms = p->disabled_checks = NULL;
  p->num_platforms = p->num_disabled_checks = 0;
  p->devices = NULL;
  p->num_devices = 0;
  lsim_scenario_outcome step = {0};
  int rc = build_program(s, p);
  if (!rc && last && opts->jaxpr)
    rc = print_jaxpr(s, p, opts);
  if (!rc)
    rc = resolve_devices(s, p, err);
  if (!rc)
    rc = split_platforms(s, p);
  if (!rc)
    rc = lower(lowerer, s, p, opts, last, &step, err);
  if (!rc && s->execute) {
    *executed = true;
    rc = lsim_lowering_execute(step.lowering, err);
  }
  *lowering = step.lowering;
  return rc;
}

/* A session's lowering before the last: kept in out->earlier. */
static int run_earlier(lsim_lowerer *lowerer, const lsim_scenario *s, prepared *p,
                       const lsim_scenario_run_options *opts, lsimp_session_outcome *out,
                       lsim_error *err) {
  lsimp_step_outcome *step = &out->earlier[out->num_earlier++];
  step->first_warning = lsim_runtime_warning_count(out->last.runtime);
  step->code = run_step(lowerer, s, p, opts, &step->lowering, &step->executed, &step->error);
  step->num_warnings = lsim_runtime_warning_count(out->last.runtime) - step->first_warning;
  if (step->code == LSIM_E_INVALID_INPUT || step->code == LSIM_E_NO_MEMORY) {
    lsimp_error_move(err, &step->error);
    return step->code;
  }
  return LSIM_OK;
}

static void narrate_step(const lsim_scenario *head, const lsim_scenario *s,
                         const lsim_scenario_run_options *opts) {
  if (!opts->explain || !head->next)
    return;
  size_t n = 0;
  for (const lsim_scenario *x = head; x; x = x->next)
    n++;
  lsimp_strbuf sb = LSIMP_STRBUF_INIT;
  lsimp_strbuf_printf(&sb,
                      "session: lowering %d of %zu (line %d)%s", s->step, n, s->lower_line,
                      s == head ? ""
                                : ", in the same JAX process: its backends, Pallas state and "
                                  "registered primitives are the earlier lowerings'");
  if (!lsimp_strbuf_failed(&sb))
    opts->explain(opts->explain_data, LSIM_EXPLAIN_STEP, 0, lsimp_strbuf_cstr(&sb));
  lsimp_strbuf_free(&sb);
}

int lsimp_scenario_run_session(lsim_lowerer *lowerer, const lsim_scenario *s,
                               const lsim_scenario_run_options *options,
                               lsimp_session_outcome *out, lsim_error *err) {
  lsim_scenario_run_options opts;
  if (out)
    *out = (lsimp_session_outcome){0};
  if (!lowerer || !s || !out)
    return lsim_error_set(err, LSIM_E_INVALID_ARGUMENT, "lsim_scenario_run: NULL argument");
  int rc = lsimp_options_copy(&opts, sizeof opts, options, "lsim_scenario_run_options", err);
  prepared p = {.builder = {.s = s, .err = err}};
  out->last.profile = lsim_scenario_profile(s, rc ? NULL : opts.profile);
  if (!rc)
    rc = build_runtime(s, out->last.profile, &out->last.runtime, err);
  if (!rc)
    rc = build_process(s, out->last.runtime, out->last.profile, &p, err);
  p.builder.registry = p.registry;
  p.builder.head = s;
  size_t steps = 0;
  for (const lsim_scenario *x = s->next; x; x = x->next)
    steps++;
  if (!rc && steps && !(out->earlier = lsim_calloc(steps, sizeof *out->earlier)))
    rc = lsimp_fail_oom(err);
  const lsim_scenario *step = s;
  p.builder.earlier = out->earlier;
  for (; !rc && step->next; step = step->next) {
    p.builder.num_earlier = out->num_earlier;
    narrate_step(s, step, &opts);
    rc = run_earlier(lowerer, step, &p, &opts, out, err);
  }
  if (!rc) {
    p.builder.num_earlier = out->num_earlier;
    narrate_step(s, step, &opts);
    out->first_warning = lsim_runtime_warning_count(out->last.runtime);
    rc = run_step(lowerer, step, &p, &opts, &out->last.lowering, &out->last.executed, err);
  }
  prepared_free(&p);
  if (rc == LSIM_E_NO_MEMORY) /* build_program and split_platforms take no error */
    lsimp_fail_oom(err);
  return rc;
}

void lsimp_session_outcome_clear(lsimp_session_outcome *out) {
  if (!out)
    return;
  for (size_t i = 0; i < out->num_earlier; i++) {
    lsim_lowering_destroy(out->earlier[i].lowering);
    lsim_error_clear(&out->earlier[i].error);
  }
  free(out->earlier);
  lsim_scenario_outcome_clear(&out->last);
  *out = (lsimp_session_outcome){0};
}

/* A session's earlier lowerings are dropped: the outcome is the last's. */
int lsim_scenario_run(lsim_lowerer *lowerer, const lsim_scenario *s,
                      const lsim_scenario_run_options *options, lsim_scenario_outcome *out,
                      lsim_error *err) {
  if (!out)
    return lsim_error_set(err, LSIM_E_INVALID_ARGUMENT, "lsim_scenario_run: NULL argument");
  lsimp_session_outcome session;
  int rc = lsimp_scenario_run_session(lowerer, s, options, &session, err);
  *out = session.last;
  session.last = (lsim_scenario_outcome){0};
  lsimp_session_outcome_clear(&session);
  return rc;
}

void lsim_scenario_outcome_clear(lsim_scenario_outcome *out) {
  if (!out)
    return;
  lsim_lowering_destroy(out->lowering);
  lsim_runtime_destroy(out->runtime);
  *out = (lsim_scenario_outcome){0};
}
