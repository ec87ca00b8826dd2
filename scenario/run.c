/* scenario/run.c: from a scenario to a lowering.  The scenario layer is the
 * only place that knows every feature folder: it registers their rules next
 * to the built-in ones and the scenario's own primitives. */
#include "lowersim/scenario_run.h"
#include "lowersim/buffer_callback.h"
#include "lowersim/callback.h"
#include "lowersim/conditionals.h"
#include "lowersim/debugging.h"
#include "lowersim/ffi.h"
#include "lowersim/jax.h"
#include "lowersim/pallas_call.h"
#include "support/options.h"
#include "support/raise.h"

#include <stdlib.h>
#include <string.h>

/* A comma list split in place into an array of names. */
typedef struct name_list {
  char *storage;
  const char **names;
  size_t count;
} name_list;

static int split_names(const char *text, name_list *out) {
  *out = (name_list){0};
  if (!text)
    return LSIM_OK;
  size_t len = strlen(text);
  out->storage = malloc(len + 1);
  out->names = malloc((len / 2 + 2) * sizeof *out->names);
  if (!out->storage || !out->names)
    return LSIM_E_NO_MEMORY;
  memcpy(out->storage, text, len + 1);
  for (char *item = out->storage; item;) {
    char *comma = strchr(item, ',');
    if (comma)
      *comma = '\0';
    out->names[out->count++] = item;
    item = comma ? comma + 1 : NULL;
  }
  return LSIM_OK;
}

static void free_names(name_list *l) {
  free(l->storage);
  free(l->names);
}

/* Everything a run allocates besides the outcome. */
typedef struct prepared {
  lsim_registry *registry;
  lsim_primitive **primitives; /* per equation: its own primitive, or NULL */
  lsim_ffi_rule *ffi_rules; /* per <rule>/<default>, all primitives */
  lsim_eqn *eqns;
  lsim_aval *args;
  bool *donated;
  name_list platforms;
  /* platform_dependent: per equation, branches and their platform lists */
  lsim_platform_dependent_params *pd_params;
  lsim_platform_branch *branches;
  lsim_program *branch_programs; /* per branch: its op over the operands */
  lsim_eqn *branch_eqns;
  name_list *branch_platforms;
  size_t num_branch_platforms;
  /* callbacks: per equation (indexed like eqns) */
  union callback_params {
    lsim_buffer_callback_params buffer;
    lsim_python_callback_params python;
    lsim_pallas_call_params pallas;
  } *callbacks;
  lsim_pallas *pallas;
  lsim_io_alias *aliases; /* all equations' aliases, in order */
  lsim_aval *operands;    /* per equation: two operand avals (platform_dependent) */
} prepared;

static void prepared_free(prepared *p, size_t num_eqns) {
  lsim_registry_destroy(p->registry);
  for (size_t i = 0; p->primitives && i < num_eqns; i++)
    lsim_primitive_destroy(p->primitives[i]);
  free(p->primitives);
  free(p->ffi_rules);
  free(p->eqns);
  free(p->args);
  free(p->donated);
  free_names(&p->platforms);
  free(p->pd_params);
  free(p->branches);
  free(p->branch_programs);
  free(p->branch_eqns);
  for (size_t i = 0; i < p->num_branch_platforms; i++)
    free_names(&p->branch_platforms[i]);
  free(p->branch_platforms);
  free(p->callbacks);
  free(p->aliases);
  free(p->operands);
  lsim_pallas_destroy(p->pallas);
}

static int invalid(const lsim_scenario *s, int line, lsim_error *err) {
  /* Turns an invalid-argument error of the library into the file's error. */
  return lsim_error_set(err, LSIM_E_INVALID_INPUT, "%s:%d: %s", s->path ? s->path : "<scenario>", line,
                   lsim_error_message(err));
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
    if ((rc = lsim_runtime_register_backend_factory(*out, &f, err)) == LSIM_E_INVALID_ARGUMENT)
      rc = invalid(s, b->line, err);
  }
  if (!rc && (rc = lsim_runtime_set_jax_platforms(*out, s->runtime.jax_platforms, err)))
    rc = invalid(s, s->lower_line, err);
  return rc;
}

static lsim_backend_use backend_use(lsim_backend_access a) {
  return a == LSIM_BACKEND_ACCESS_REQUIRED   ? LSIM_BACKEND_USE_REQUIRED
         : a == LSIM_BACKEND_ACCESS_OPTIONAL ? LSIM_BACKEND_USE_OPTIONAL
                                             : LSIM_BACKEND_USE_NONE;
}

/* The primitive of <primitive name=...>: one per name in a scenario. */
static int own_primitive(const lsim_scenario *s, prepared *p, size_t i, lsim_error *err) {
  for (size_t j = 0; j < i; j++) {
    if (p->primitives[j] && strcmp(p->primitives[j]->name, s->eqns[i].name) == 0) {
      p->primitives[i] = NULL;
      p->eqns[i].primitive = p->primitives[j];
      return LSIM_OK;
    }
  }
  int rc = lsim_primitive_create(s->eqns[i].name, &p->primitives[i], err);
  if (!rc)
    p->eqns[i].primitive = p->primitives[i];
  return rc;
}

/* register_lowering for the scenario's own primitives, in document order. */
static int register_primitives(const lsim_scenario *s, prepared *p, lsim_error *err) {
  size_t total = 0;
  for (size_t i = 0; i < s->num_eqns; i++)
    if (s->eqns[i].kind == LSIM_EQN_PRIMITIVE)
      total += s->eqns[i].num_rules;
  p->ffi_rules = malloc((total ? total : 1) * sizeof *p->ffi_rules);
  p->primitives = calloc(s->num_eqns + 1, sizeof *p->primitives);
  if (!p->ffi_rules || !p->primitives)
    return lsimp_fail_oom(err);
  size_t k = 0;
  for (size_t i = 0; i < s->num_eqns; i++) {
    const lsim_scenario_eqn *e = &s->eqns[i];
    int rc = e->kind == LSIM_EQN_PRIMITIVE ? own_primitive(s, p, i, err) : 0;
    if (rc)
      return rc;
    for (size_t r = 0; e->kind == LSIM_EQN_PRIMITIVE && r < e->num_rules; r++) {
      lsim_ffi_rule *data = &p->ffi_rules[k++];
      *data = (lsim_ffi_rule){e->rules[r].target, backend_use(e->backend_access)};
      rc = lsim_register_lowering(p->registry, p->eqns[i].primitive, lsim_ffi_lowering(data),
                                  e->rules[r].platform, err);
      if (rc == LSIM_E_INVALID_ARGUMENT)
        return invalid(s, e->rules[r].line, err);
      if (rc)
        return rc;
    }
  }
  return LSIM_OK;
}

/* lax.platform_dependent joins branches with the same function: here, the
 * same op.  The default branch stays last and apart. */
/* A branch's function: its op over the equation's operands. */
static const lsim_program *branch_program(const lsim_scenario_eqn *e, prepared *p, size_t at,
                                          lsim_op_kind op, const lsim_aval *operands) {
  static const size_t indices[] = {0, 1};
  p->branch_eqns[at] = (lsim_eqn){.primitive = lsim_op_kind_primitive(op), .operands = indices,
                                  .num_operands = e->num_args, .results = e->results,
                                  .num_results = e->num_results};
  p->branch_programs[at] = (lsim_program){.function_name = lsim_op_kind_primitive(op)->name,
                                          .args = operands, .num_args = e->num_args,
                                          .eqns = &p->branch_eqns[at], .num_eqns = 1};
  return &p->branch_programs[at];
}

static int build_platform_dependent(const lsim_scenario_eqn *e, prepared *p, size_t slot,
                                    size_t *next_branch, const lsim_aval *operands,
                                    lsim_error *err) {
  lsim_platform_branch *branches = p->branches + *next_branch;
  size_t n = 0;
  for (size_t b = 0; b < e->num_branches; b++) {
    const lsim_scenario_branch *sb = &e->branches[b];
    name_list *names = &p->branch_platforms[p->num_branch_platforms++];
    if (split_names(sb->platforms, names))
      return lsimp_fail_oom(err);
    size_t joined = n;
    for (size_t j = 0; sb->platforms && j < n; j++)
      if (branches[j].platforms &&
          branches[j].jaxpr->eqns[0].primitive == lsim_op_kind_primitive(sb->op))
        joined = j;
    if (joined < n) {
      /* Append this branch's platforms to the joined branch's list. */
      lsim_platform_branch *t = &branches[joined];
      const char **merged = realloc((void *)t->platforms,
                                    (t->num_platforms + names->count) * sizeof *merged);
      if (!merged)
        return lsimp_fail_oom(err);
      memcpy(merged + t->num_platforms, names->names, names->count * sizeof *merged);
      t->platforms = merged;
      t->num_platforms += names->count;
      continue;
    }
    const char **own = NULL;
    if (sb->platforms) {
      own = malloc(names->count * sizeof *own);
      if (!own)
        return lsimp_fail_oom(err);
      memcpy(own, names->names, names->count * sizeof *own);
    }
    const lsim_program *jaxpr = branch_program(e, p, *next_branch + n, sb->op, operands);
    branches[n++] = (lsim_platform_branch){own, sb->platforms ? names->count : 0, jaxpr};
  }
  p->pd_params[slot] = (lsim_platform_dependent_params){branches, n};
  *next_branch += e->num_branches;
  return LSIM_OK;
}

/* The host callback a scenario runs with <execute/>: it returns a value
 * when the scenario says so (returns_value="true"). */
static int scenario_callback(void *user_data, lsim_host_callback_call *call) {
  call->returned_values = user_data ? 1 : 0;
  return LSIM_OK;
}

static lsim_host_callback scenario_host_callback(bool returns_value) {
  return (lsim_host_callback){.kind = "scenario", .fn = scenario_callback,
                              .user_data = returns_value ? (void *)1 : NULL};
}

static void build_callback(const lsim_scenario_eqn *e, prepared *p, size_t i, size_t *next_alias,
                           lsim_eqn *q) {
  union callback_params *c = &p->callbacks[i];
  q->params = c;
  if (e->kind == LSIM_EQN_BUFFER_CALLBACK) {
    lsim_io_alias *aliases = p->aliases + *next_alias;
    for (size_t a = 0; a < e->num_aliases; a++)
      aliases[a] = (lsim_io_alias){e->aliases[a].input, e->aliases[a].output};
    *next_alias += e->num_aliases;
    c->buffer = (lsim_buffer_callback_params){scenario_host_callback(e->returns_value),
                                              e->side_effect, e->command_buffer, aliases,
                                              e->num_aliases};
    lsim_buffer_callback_bind(q, &c->buffer);
    return;
  }
  bool ordered = e->kind != LSIM_EQN_PURE_CALLBACK && e->ordered;
  c->python = (lsim_python_callback_params){scenario_host_callback(false), ordered,
                                            e->kind == LSIM_EQN_DEBUG_CALLBACK && e->partitioned};
  q->ordered_effect = ordered;
  if (e->kind == LSIM_EQN_PURE_CALLBACK)
    lsim_pure_callback_bind(q, &c->python);
  else if (e->kind == LSIM_EQN_IO_CALLBACK)
    lsim_io_callback_bind(q, &c->python);
  else
    lsim_debug_callback_bind(q, &c->python);
}

static const lsim_pallas_params_class *params_class(lsim_compiler_params c) {
  switch (c) {
  case LSIM_COMPILER_PARAMS_MOSAIC_TPU: return &lsim_mosaic_tpu_compiler_params;
  case LSIM_COMPILER_PARAMS_TRITON: return &lsim_triton_compiler_params;
  case LSIM_COMPILER_PARAMS_MOSAIC_GPU: return &lsim_mosaic_gpu_compiler_params;
  default: return NULL;
  }
}

static void build_pallas_call(const lsim_scenario_eqn *e, prepared *p, size_t i, lsim_eqn *q) {
  p->callbacks[i].pallas = (lsim_pallas_call_params){e->kernel, e->grid, e->interpret,
                                                     params_class(e->compiler_params),
                                                     e->has_constants};
  lsim_pallas_call_bind(q, &p->callbacks[i].pallas);
}

/* Which Pallas backends the scenario says are installed (all, by default). */
static int build_pallas(const lsim_scenario *s, prepared *p, lsim_error *err) {
  lsim_pallas_installed installed =
      LSIM_PALLAS_INSTALLED_INIT(.mosaic_tpu = true, .triton = true, .mosaic_gpu = true);
  if (s->has_pallas)
    installed = (lsim_pallas_installed)LSIM_PALLAS_INSTALLED_INIT(
        .mosaic_tpu = s->pallas.mosaic_tpu, .triton = s->pallas.triton,
        .mosaic_gpu = s->pallas.mosaic_gpu, .use_mosaic_gpu = s->pallas.use_mosaic_gpu);
  return lsim_pallas_create(&installed, &p->pallas, err);
}

static int alloc_eqns(const lsim_scenario *s, prepared *p, lsim_error *err) {
  p->eqns = calloc(s->num_eqns + 1, sizeof *p->eqns);
  return p->eqns ? LSIM_OK : lsimp_fail_oom(err);
}

static int build_program(const lsim_scenario *s, prepared *p, lsim_program *prog,
                         lsim_error *err) {
  size_t num_branches = 0, num_pd = 0, num_aliases = 0;
  for (size_t i = 0; i < s->num_eqns; i++) {
    if (s->eqns[i].kind == LSIM_EQN_PLATFORM_DEPENDENT) {
      num_branches += s->eqns[i].num_branches;
      num_pd++;
    }
    num_aliases += s->eqns[i].num_aliases;
  }
  p->callbacks = calloc(s->num_eqns + 1, sizeof *p->callbacks);
  p->aliases = malloc((num_aliases + 1) * sizeof *p->aliases);
  if (!p->callbacks || !p->aliases)
    return lsimp_fail_oom(err);
  p->args = malloc((s->num_args + 1) * sizeof *p->args);
  p->donated = malloc((s->num_args + 1) * sizeof *p->donated);
  p->pd_params = calloc(num_pd + 1, sizeof *p->pd_params);
  p->branches = calloc(num_branches + 1, sizeof *p->branches);
  p->branch_platforms = calloc(num_branches + 1, sizeof *p->branch_platforms);
  p->branch_programs = calloc(num_branches + 1, sizeof *p->branch_programs);
  p->branch_eqns = calloc(num_branches + 1, sizeof *p->branch_eqns);
  lsim_aval *operands = malloc((s->num_eqns * 2 + 1) * sizeof *operands);
  if (!p->eqns || !p->args || !p->donated || !p->pd_params || !p->branches ||
      !p->branch_platforms || !p->branch_programs || !p->branch_eqns || !operands) {
    free(operands);
    return lsimp_fail_oom(err);
  }
  p->operands = operands;
  for (size_t i = 0; i < s->num_args; i++) {
    p->args[i] = s->args[i].aval;
    p->donated[i] = s->args[i].donated;
  }
  size_t next_branch = 0, pd = 0, next_alias = 0;
  for (size_t i = 0; i < s->num_eqns; i++) {
    const lsim_scenario_eqn *e = &s->eqns[i];
    lsim_eqn *q = &p->eqns[i];
    const lsim_primitive *prim /* a <primitive>'s object, set already */ = q->primitive;
    *q = (lsim_eqn){.primitive = prim, .operands = e->args, .num_operands = e->num_args,
                    .results = e->results, .num_results = e->num_results};
    switch (e->kind) {
    case LSIM_EQN_OP:
      q->primitive = lsim_op_kind_primitive(e->op);
      break;
    case LSIM_EQN_PRIMITIVE:
      break;
    case LSIM_EQN_PLATFORM_DEPENDENT: {
      lsim_aval *ops = p->operands + 2 * i;
      for (size_t a = 0; a < e->num_args && a < 2; a++)
        lsim_scenario_value_aval(s, e->args[a], &ops[a]);
      int rc = build_platform_dependent(e, p, pd, &next_branch, ops, err);
      if (rc)
        return rc;
      lsim_platform_dependent_bind(q, &p->pd_params[pd++]);
      break;
    }
    case LSIM_EQN_BUFFER_CALLBACK:
    case LSIM_EQN_PURE_CALLBACK:
    case LSIM_EQN_IO_CALLBACK:
    case LSIM_EQN_DEBUG_CALLBACK:
      build_callback(e, p, i, &next_alias, q);
      break;
    case LSIM_EQN_PALLAS_CALL:
      build_pallas_call(e, p, i, q);
      break;
    default:
      return lsim_error_set(err, LSIM_E_INVALID_INPUT, "%s:%d: this equation kind is not supported yet",
                       s->path ? s->path : "<scenario>", e->line);
    }
  }
  *prog = (lsim_program){
      .function_name = s->function,
      .args = p->args,
      .donated = p->donated,
      .num_args = s->num_args,
      .eqns = p->eqns,
      .num_eqns = s->num_eqns,
      .has_outputs = s->has_return,
      .outputs = s->has_return ? s->returns : NULL,
      .num_outputs = s->has_return ? s->num_returns : 0,
  };
  return LSIM_OK;
}

/* Frees the per-branch platform arrays build_platform_dependent made. */
static void free_branch_arrays(prepared *p, size_t num_pd) {
  for (size_t i = 0; p->pd_params && i < num_pd; i++)
    for (size_t b = 0; b < p->pd_params[i].num_branches; b++)
      free((void *)p->pd_params[i].branches[b].platforms);
}

static size_t count_platform_dependent(const lsim_scenario *s) {
  size_t n = 0;
  for (size_t i = 0; i < s->num_eqns; i++)
    n += s->eqns[i].kind == LSIM_EQN_PLATFORM_DEPENDENT;
  return n;
}

int lsim_scenario_run(lsim_lowerer *lowerer, const lsim_scenario *s,
                      const lsim_scenario_run_options *options, lsim_scenario_outcome *out,
                      lsim_error *err) {
  lsim_scenario_run_options opts;
  if (!lowerer || !s || !out)
    return lsim_error_set(err, LSIM_E_INVALID_ARGUMENT, "lsim_scenario_run: NULL argument");
  *out = (lsim_scenario_outcome){0};
  int rc0 = lsimp_options_copy(&opts, sizeof opts, options, "lsim_scenario_run_options", err);
  if (rc0)
    return rc0;
  prepared p = {0};
  lsim_program prog;
  int rc = build_runtime(s, &out->runtime, err);
  if (!rc)
    rc = build_pallas(s, &p, err);
  if (!rc)
    rc = lsim_registry_create_jax(out->runtime, p.pallas, NULL, &p.registry, err);
  if (!rc)
    rc = alloc_eqns(s, &p, err);
  if (!rc)
    rc = register_primitives(s, &p, err);
  if (!rc)
    rc = build_program(s, &p, &prog, err);
  if (!rc && split_names(s->platforms, &p.platforms))
    rc = lsimp_fail_oom(err);
  if (!rc) {
    lsim_lowering_request req = LSIM_LOWERING_REQUEST_INIT(
        .registry = p.registry,
        .program = &prog,
        .platforms = p.platforms.names,
        .num_platforms = p.platforms.count,
        .backend = s->backend,
        .for_export = s->platforms != NULL, /* explicit platforms: export(platforms=...) */
        .explain = opts.explain,
        .explain_data = opts.explain_data,
        .skip_verify = opts.skip_verify);
    rc = lsim_lower(lowerer, &req, &out->lowering, err);
    if (rc == LSIM_E_INVALID_ARGUMENT)
      rc = invalid(s, s->lower_line, err);
  }
  if (!rc && s->execute) {
    out->executed = true;
    rc = lsim_lowering_execute(out->lowering, err);
  }
  free_branch_arrays(&p, count_platform_dependent(s));
  prepared_free(&p, s->num_eqns);
  return rc;
}

void lsim_scenario_outcome_clear(lsim_scenario_outcome *out) {
  if (!out)
    return;
  lsim_lowering_destroy(out->lowering);
  lsim_runtime_destroy(out->runtime);
  *out = (lsim_scenario_outcome){0};
}
