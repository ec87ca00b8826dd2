/* fuzz/generate.c: random scenarios, filled into an lsim_scenario directly.
 *
 * Everything generated is what the scenario reader accepts (value indices
 * defined before use, binary operands with equal avals, implied results,
 * well-formed platform names, reader defaults for absent settings), so a
 * generated scenario written and read back must lower the same way.  What
 * the lowering refuses (unknown platforms, failing backends, bad aliases,
 * kernels that do not fit) is generated on purpose, at lower rates. */
#include "internal.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#define MAX_ARGS 4
#define MAX_EQNS 8
#define MAX_RESULTS 2
#define MAX_LIST 4
#define MAX_VALUES (MAX_ARGS + MAX_EQNS * (MAX_RESULTS + 1))
#define COUNT(table) (sizeof(table) / sizeof(table)[0])

/* Lowering platforms, rule and branch platforms, JAX_PLATFORMS items: the
 * first five are always known; "gpu" is an alias, "metal" a plugin known
 * only when a backend declares it. */
static const char *const platforms[] = {"cpu", "cuda", "rocm", "oneapi", "tpu", "gpu", "metal"};
#define CONCRETE_PLATFORMS 5
/* What a <backend> may be: no alias; "neuron" stands for an unknown plugin. */
static const char *const backend_platforms[] = {"cpu", "cuda",  "rocm",  "oneapi",
                                                "tpu", "metal", "neuron"};
static const char *const backend_errors[] = {"no TPU chips found", "CUDA driver not found",
                                             "plugin \"metal\" <failed> & gave up", "tab\tinside",
                                             "two\nlines"};
static const char *const function_names[] = {"f",
                                             "main",
                                             "my_fn",
                                             "f-g.h",
                                             "a b",
                                             "x!",
                                             "__",
                                             "f__",
                                             "\xc3\xbc"
                                             "n"
                                             "\xc3\xaf"
                                             "code"};
static const char *const primitive_names[] = {"my_op", "ffi_call", "scatter.x", "my_op2"};
/* A scenario's own primitive may shadow a built-in one. */
static const char *const builtin_primitive_names[] = {
    "sin",           "add",         "platform_dependent", "buffer_callback",
    "pure_callback", "io_callback", "debug_callback",     "pallas_call"};
static const char *const targets[] = {"my_cpu_kernel", "my_gpu_kernel", "generic_kernel", "t"};
static const char *const kernels[] = {"add_one", "copy"};
static const char *const descriptions[] = {"generated", "a < b & \"c\" > 'd'", "tab\there"};

typedef struct gen {
  lsim_fuzz_rng *rng;
  lsim_scenario *s;
  lsim_aval values[MAX_VALUES]; /* the avals of the values defined so far */
  size_t num_values;
  bool oom;
} gen;

/* --- Small helpers ---------------------------------------------------------- */

static uint64_t below(gen *g, uint64_t n) { return lsim_fuzz_rng_below(g->rng, n); }
static bool chance(gen *g, unsigned percent) { return lsim_fuzz_rng_chance(g->rng, percent); }

static const char *pick(gen *g, const char *const *table, size_t n) { return table[below(g, n)]; }

/* Zeroed storage for n items (never NULL on success, even for 0 items). */
static void *alloc(gen *g, size_t n, size_t size) {
  void *p = calloc(n ? n : 1, size);
  if (!p)
    g->oom = true;
  return p;
}

static char *copy_text(gen *g, const char *text) {
  char *copy = strdup(text);
  if (!copy)
    g->oom = true;
  return copy;
}

/* A comma list of 1 to `max` names of `table` (mostly one or two),
 * distinct but now and then. */
static char *name_list(gen *g, size_t max, const char *const *table, size_t n) {
  size_t count = chance(g, 55) ? 1 : 1 + below(g, max);
  bool repeats = chance(g, 5);
  char text[MAX_LIST * 16] = "";
  bool used[16] = {false};
  for (size_t i = 0; i < count; i++) {
    size_t k = below(g, n);
    if (used[k] && !repeats)
      continue;
    used[k] = true;
    if (text[0])
      strcat(text, ",");
    strcat(text, table[k]);
  }
  return copy_text(g, text);
}

/* --- Avals and values ------------------------------------------------------- */

static int64_t random_dim(gen *g, bool small) {
  if (small)
    return 1 + (int64_t)below(g, 2);
  if (chance(g, 4))
    return 0;
  return chance(g, 2) ? (int64_t)1 << 20 : 1 + (int64_t)below(g, 8);
}

static void random_aval(gen *g, lsim_aval *a) {
  memset(a, 0, sizeof *a);
  a->dtype = chance(g, 40) ? LSIM_DTYPE_F32 : (lsim_dtype)below(g, LSIM_DTYPE_COUNT);
  unsigned r = (unsigned)below(g, 100);
  a->rank = r < 20 ? 0 : r < 65 ? 1 : r < 88 ? 2 : r < 98 ? 3 : LSIM_MAX_RANK;
  for (int i = 0; i < a->rank; i++)
    a->dims[i] = random_dim(g, a->rank == LSIM_MAX_RANK);
}

/* A result's aval: often one a value already has, so that aliases and
 * binary ops find partners. */
static void result_aval(gen *g, lsim_aval *a) {
  if (g->num_values && chance(g, 50))
    *a = g->values[below(g, g->num_values)];
  else
    random_aval(g, a);
}

static size_t pick_value(gen *g) { return (size_t)below(g, g->num_values); }

/* A value with the same aval as value `v` (v itself at least). */
static size_t pick_equal(gen *g, size_t v) {
  size_t same[MAX_VALUES], n = 0;
  for (size_t i = 0; i < g->num_values; i++)
    if (lsim_aval_equal(&g->values[i], &g->values[v]))
      same[n++] = i;
  return same[below(g, n)];
}

/* A 1-D, non-empty, numeric value: what a Pallas kernel takes. */
static bool pick_kernel_operand(gen *g, size_t *out) {
  size_t fit[MAX_VALUES], n = 0;
  for (size_t i = 0; i < g->num_values; i++) {
    const lsim_aval *a = &g->values[i];
    if (a->rank == 1 && a->dims[0] > 0 && a->dtype != LSIM_DTYPE_BOOL)
      fit[n++] = i;
  }
  if (!n)
    return false;
  *out = fit[below(g, n)];
  return true;
}

static void define(gen *g, const lsim_aval *a) {
  if (g->num_values < MAX_VALUES)
    g->values[g->num_values++] = *a;
}

/* --- Equations -------------------------------------------------------------- */

static void random_operands(gen *g, lsim_scenario_eqn *e, size_t max) {
  size_t n = g->num_values ? (size_t)below(g, max + 1) : 0;
  e->args = alloc(g, n, sizeof *e->args);
  for (size_t i = 0; e->args && i < n; i++)
    e->args[e->num_args++] = pick_value(g);
}

static void random_results(gen *g, lsim_scenario_eqn *e, size_t max) {
  size_t n = (size_t)below(g, max + 1);
  e->results = alloc(g, n, sizeof *e->results);
  for (size_t i = 0; e->results && i < n; i++)
    result_aval(g, &e->results[e->num_results++]);
}

/* Operands for an op of `arity` (binary operands share an aval) and the
 * implied result, the first operand's aval. */
static void op_operands(gen *g, lsim_scenario_eqn *e, int arity) {
  e->args = alloc(g, (size_t)arity, sizeof *e->args);
  e->results = alloc(g, 1, sizeof *e->results);
  if (!e->args || !e->results)
    return;
  e->args[0] = pick_value(g);
  if (arity == 2)
    e->args[1] = pick_equal(g, e->args[0]);
  e->num_args = (size_t)arity;
  e->results[0] = g->values[e->args[0]];
  e->num_results = 1;
}

static lsim_op_kind random_op(gen *g, int arity) {
  lsim_op_kind ops[LSIM_OP_COUNT];
  size_t n = 0;
  for (int k = 0; k < LSIM_OP_COUNT; k++)
    if (lsim_op_kind_arity((lsim_op_kind)k) == arity)
      ops[n++] = (lsim_op_kind)k;
  return ops[below(g, n)];
}

static void gen_op(gen *g, lsim_scenario_eqn *e) {
  e->op = (lsim_op_kind)below(g, LSIM_OP_COUNT);
  op_operands(g, e, lsim_op_kind_arity(e->op));
}

static void gen_primitive(gen *g, lsim_scenario_eqn *e) {
  e->name = chance(g, 8)
                ? copy_text(g, pick(g, builtin_primitive_names, COUNT(builtin_primitive_names)))
                : copy_text(g, pick(g, primitive_names, COUNT(primitive_names)));
  e->backend_access = (lsim_backend_access)below(g, 3);
  random_operands(g, e, 2);
  size_t n = (size_t)below(g, 4), with_default = chance(g, 65);
  e->rules = alloc(g, n + with_default, sizeof *e->rules);
  for (size_t i = 0; e->rules && i < n + with_default; i++) {
    lsim_scenario_rule *r = &e->rules[e->num_rules++];
    r->platform =
        i < n ? copy_text(g, pick(g, platforms, chance(g, 20) ? COUNT(platforms) : 6)) : NULL;
    r->target = copy_text(g, pick(g, targets, COUNT(targets)));
  }
  random_results(g, e, MAX_RESULTS);
}

static void gen_platform_dependent(gen *g, lsim_scenario_eqn *e) {
  int arity = chance(g, 70) ? 1 : 2;
  op_operands(g, e, arity);
  size_t n = 1 + (size_t)below(g, 3), with_default = chance(g, 50);
  e->branches = alloc(g, n + with_default, sizeof *e->branches);
  for (size_t i = 0; e->branches && i < n + with_default; i++) {
    lsim_scenario_branch *b = &e->branches[e->num_branches++];
    size_t from = chance(g, 15) ? COUNT(platforms) : CONCRETE_PLATFORMS;
    b->platforms = i < n ? name_list(g, 2, platforms, from) : NULL;
    b->op = random_op(g, arity);
  }
}

/* An alias index: mostly in range, sometimes just outside, rarely extreme. */
static long long alias_index(gen *g, size_t n) {
  if (chance(g, 2))
    return chance(g, 50) ? LLONG_MIN : LLONG_MAX;
  if (n && chance(g, 90))
    return (long long)below(g, n);
  return chance(g, 25) ? -1 : (long long)n + (long long)below(g, 2);
}

static void gen_buffer_callback(gen *g, lsim_scenario_eqn *e) {
  random_operands(g, e, 2);
  size_t n = (size_t)below(g, MAX_RESULTS + 1);
  e->results = alloc(g, n, sizeof *e->results);
  for (size_t i = 0; e->results && i < n; i++) {
    if (i < e->num_args && chance(g, 60))
      e->results[i] = g->values[e->args[i]];
    else
      result_aval(g, &e->results[i]);
    e->num_results++;
  }
  e->side_effect = chance(g, 50);
  e->command_buffer = chance(g, 50);
  e->returns_value = chance(g, 10);
  size_t k = chance(g, 50) ? 1 + (size_t)below(g, 2) : 0;
  e->aliases = alloc(g, k, sizeof *e->aliases);
  for (size_t i = 0; e->aliases && i < k; i++) {
    e->aliases[i].input = alias_index(g, e->num_args);
    e->aliases[i].output = alias_index(g, e->num_results);
    e->num_aliases++;
  }
}

static void gen_python_callback(gen *g, lsim_scenario_eqn *e) {
  random_operands(g, e, 2);
  if (e->kind != LSIM_EQN_DEBUG_CALLBACK)
    random_results(g, e, MAX_RESULTS);
  e->ordered = e->kind != LSIM_EQN_PURE_CALLBACK && chance(g, 40);
  e->partitioned = e->kind == LSIM_EQN_DEBUG_CALLBACK && chance(g, 30);
}

/* Mostly a kernel that fits its operand; now and then one that does not. */
static void gen_pallas_call(gen *g, lsim_scenario_eqn *e) {
  size_t v = 0;
  bool has_operand = chance(g, 92) && pick_kernel_operand(g, &v);
  if (!has_operand && g->num_values && chance(g, 60)) {
    v = pick_value(g);
    has_operand = true;
  }
  e->args = alloc(g, 1, sizeof *e->args);
  e->results = alloc(g, 2, sizeof *e->results);
  if (!e->args || !e->results)
    return;
  if (has_operand)
    e->args[e->num_args++] = v;
  size_t n = chance(g, 96) ? 1 : (size_t)below(g, 2) * 2;
  for (size_t i = 0; i < n; i++) {
    if (has_operand && chance(g, 94))
      e->results[i] = g->values[v];
    else
      result_aval(g, &e->results[i]);
    e->num_results++;
  }
  e->kernel = copy_text(g, chance(g, 97) ? pick(g, kernels, COUNT(kernels)) : "no_such_kernel");
  e->grid = chance(g, 5) ? LSIM_SCENARIO_MAX_GRID : 1 + (int64_t)below(g, 8);
  e->interpret = chance(g, 25);
  e->compiler_params = (lsim_compiler_params)below(g, 4);
  e->has_constants = chance(g, 6);
}

/* Weights of the equation kinds, in lsim_scenario_eqn_kind order. */
static const unsigned kind_weights[] = {20, 15, 12, 12, 10, 10, 8, 13};

static lsim_scenario_eqn_kind random_kind(gen *g) {
  unsigned total = 0;
  for (size_t i = 0; i < COUNT(kind_weights); i++)
    total += kind_weights[i];
  unsigned r = (unsigned)below(g, total);
  size_t k = 0;
  while (r >= kind_weights[k])
    r -= kind_weights[k++];
  return (lsim_scenario_eqn_kind)k;
}

static void gen_eqn(gen *g, lsim_scenario_eqn *e) {
  e->kind = random_kind(g);
  e->grid = 1;
  bool needs_operand = e->kind == LSIM_EQN_OP || e->kind == LSIM_EQN_PLATFORM_DEPENDENT;
  size_t unused;
  if ((needs_operand && !g->num_values) ||
      (e->kind == LSIM_EQN_PALLAS_CALL && !pick_kernel_operand(g, &unused) && chance(g, 80)))
    e->kind = LSIM_EQN_PURE_CALLBACK;
  switch (e->kind) {
  case LSIM_EQN_OP: gen_op(g, e); break;
  case LSIM_EQN_PRIMITIVE: gen_primitive(g, e); break;
  case LSIM_EQN_PLATFORM_DEPENDENT: gen_platform_dependent(g, e); break;
  case LSIM_EQN_BUFFER_CALLBACK: gen_buffer_callback(g, e); break;
  case LSIM_EQN_PALLAS_CALL: gen_pallas_call(g, e); break;
  default: gen_python_callback(g, e); break;
  }
  for (size_t i = 0; i < e->num_results; i++)
    define(g, &e->results[i]);
}

/* --- The scenario ------------------------------------------------------------ */

static void gen_backend(gen *g, lsim_scenario_backend *b, bool *used) {
  size_t k = below(g, COUNT(backend_platforms));
  while (used[k] && !chance(g, 10))
    k = (k + 1) % COUNT(backend_platforms);
  used[k] = true;
  b->platform = copy_text(g, backend_platforms[k]);
  b->devices = chance(g, 5) ? 0 : chance(g, 10) ? 8 : 1;
  b->has_priority = chance(g, 20);
  b->priority = b->has_priority ? (int)below(g, 700) - 100 : 0;
  if (chance(g, 12))
    b->error = copy_text(g, pick(g, backend_errors, COUNT(backend_errors)));
  b->has_fail_quietly = chance(g, 50);
  b->fail_quietly = b->has_fail_quietly && chance(g, 60);
}

static void gen_runtime(gen *g) {
  lsim_scenario_runtime *rt = &g->s->runtime;
  if (!chance(g, 80))
    return;
  rt->present = true;
  if (chance(g, 30))
    rt->jax_platforms =
        chance(g, 10) ? copy_text(g, "") : name_list(g, 3, platforms, COUNT(platforms));
  size_t n = chance(g, 8) ? 0 : 1 + (size_t)below(g, 4);
  bool used[COUNT(backend_platforms)] = {false};
  rt->backends = alloc(g, n, sizeof *rt->backends);
  for (size_t i = 0; rt->backends && i < n; i++)
    gen_backend(g, &rt->backends[rt->num_backends++], used);
}

static void gen_pallas(gen *g) {
  lsim_scenario *s = g->s;
  s->pallas = (lsim_scenario_pallas){.mosaic_tpu = true, .triton = true, .mosaic_gpu = true};
  if (!chance(g, 30))
    return;
  s->has_pallas = true;
  s->pallas = (lsim_scenario_pallas){chance(g, 75), chance(g, 75), chance(g, 75), chance(g, 30)};
}

static void gen_lower(gen *g) {
  lsim_scenario *s = g->s;
  s->function = copy_text(g, pick(g, function_names, COUNT(function_names)));
  if (chance(g, 75))
    s->platforms = name_list(g, MAX_LIST, platforms, COUNT(platforms));
  if (chance(g, 15))
    s->backend = copy_text(g, pick(g, platforms, COUNT(platforms)));
  size_t n = (size_t)below(g, MAX_ARGS + 1);
  s->args = alloc(g, n, sizeof *s->args);
  for (size_t i = 0; s->args && i < n; i++) {
    lsim_scenario_arg *a = &s->args[s->num_args++];
    random_aval(g, &a->aval);
    a->donated = chance(g, 15);
    define(g, &a->aval);
  }
  size_t m = (size_t)below(g, MAX_EQNS + 1);
  s->eqns = alloc(g, m, sizeof *s->eqns);
  for (size_t i = 0; s->eqns && i < m && !g->oom; i++)
    gen_eqn(g, &s->eqns[s->num_eqns++]);
}

/* <return values=...>: sometimes, with 0 to 3 values. */
static void gen_return(gen *g) {
  lsim_scenario *s = g->s;
  if (!chance(g, 20))
    return;
  s->has_return = true;
  size_t n = g->num_values ? (size_t)below(g, 4) : 0;
  s->returns = alloc(g, n, sizeof *s->returns);
  for (size_t i = 0; s->returns && i < n; i++)
    s->returns[s->num_returns++] = pick_value(g);
}

int lsim_fuzz_generate(lsim_fuzz_rng *rng, const char *name, lsim_scenario **out, lsim_error *err) {
  gen g = {.rng = rng, .s = calloc(1, sizeof(lsim_scenario))};
  if (g.s) {
    g.s->path = copy_text(&g, name);
    g.s->name = copy_text(&g, name);
    if (chance(&g, 5))
      g.s->description = copy_text(&g, pick(&g, descriptions, COUNT(descriptions)));
    gen_runtime(&g);
    gen_pallas(&g);
    gen_lower(&g);
    gen_return(&g);
    g.s->execute = chance(&g, 15);
  }
  if (!g.s || g.oom) {
    lsim_scenario_destroy(g.s);
    return lsim_fuzz_no_memory(err);
  }
  *out = g.s;
  return LSIM_OK;
}
