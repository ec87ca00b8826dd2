/* fuzz/generate.c: random scenarios, filled into an lsim_scenario directly:
 * the runtime, the Pallas flags, the lowering's platforms, pinned backend
 * and args, then equations of every kind (each kind generates its own:
 * lsim_scenario_gen_eqn), the return and <execute/>.
 *
 * Everything generated is what the scenario reader accepts, so a generated
 * scenario written and read back must lower the same way.  What the
 * lowering refuses (unknown platforms, failing backends, bad aliases,
 * kernels that do not fit) is generated on purpose, at lower rates. */
#include "internal.h"
#include "lowersim/scenario_generate.h"

#include <stdlib.h>
#include <string.h>

#define MAX_ARGS 4
#define MAX_EQNS 8
#define MAX_LIST 4
#define COUNT(table) (sizeof(table) / sizeof(table)[0])

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
static const char *const descriptions[] = {"generated", "a < b & \"c\" > 'd'", "tab\there"};

#define NUM_PLATFORMS LSIM_SCENARIO_GEN_NUM_PLATFORMS
static const char *const *const platforms = lsim_scenario_gen_platforms;

typedef struct gen {
  lsim_scenario_gen g;
  lsim_scenario *s;
} gen;

static uint64_t draw(void *rng, uint64_t n) { return lsim_fuzz_rng_below(rng, n); }

static uint64_t below(gen *g, uint64_t n) { return lsim_scenario_gen_below(&g->g, n); }
static bool chance(gen *g, unsigned percent) { return lsim_scenario_gen_chance(&g->g, percent); }
static const char *pick(gen *g, const char *const *table, size_t n) {
  return lsim_scenario_gen_pick(&g->g, table, n);
}
static char *copy_text(gen *g, const char *text) { return lsim_scenario_gen_text(&g->g, text); }

/* --- The scenario ------------------------------------------------------------ */

static void gen_backend(gen *g, lsim_scenario_backend *b, bool *used) {
  size_t k = below(g, COUNT(backend_platforms));
  while (used[k] && !chance(g, 10))
    k = (k + 1) % COUNT(backend_platforms);
  used[k] = true;
  b->platform = copy_text(g, backend_platforms[k]);
  b->devices = chance(g, 5) ? 0 : chance(g, 10) ? 8 : chance(g, 10) ? 2 : 1;
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
    rt->jax_platforms = chance(g, 10) ? copy_text(g, "")
                                      : lsim_scenario_gen_name_list(&g->g, 3, platforms,
                                                                    NUM_PLATFORMS);
  size_t n = chance(g, 8) ? 0 : 1 + (size_t)below(g, 4);
  bool used[COUNT(backend_platforms)] = {false};
  rt->backends = lsim_scenario_gen_alloc(&g->g, n, sizeof *rt->backends);
  for (size_t i = 0; rt->backends && i < n; i++)
    gen_backend(g, &rt->backends[rt->num_backends++], used);
}

static void gen_pallas(gen *g) {
  lsim_scenario *s = g->s;
  s->pallas = lsim_scenario_default_pallas();
  if (!chance(g, 30))
    return;
  s->has_pallas = true;
  s->pallas.mosaic_tpu = chance(g, 75);
  s->pallas.triton = chance(g, 75);
  s->pallas.mosaic_gpu = chance(g, 75);
  s->pallas.use_mosaic_gpu = chance(g, 30);
}

static void gen_lower(gen *g) {
  lsim_scenario *s = g->s;
  s->function = copy_text(g, pick(g, function_names, COUNT(function_names)));
  if (chance(g, 75))
    s->platforms = lsim_scenario_gen_name_list(&g->g, MAX_LIST, platforms, NUM_PLATFORMS);
  if (chance(g, 15))
    s->backend = copy_text(g, pick(g, platforms, NUM_PLATFORMS));
  if (chance(g, 10))
    s->devices = 1 + (int)below(g, 3);
  s->keep_unused = chance(g, 10);
  s->has_enable_x64 = chance(g, 5);
  s->enable_x64 = s->has_enable_x64; /* "false" with a 64-bit value would be invalid */
  if (chance(g, 15)) {
    static const char *const checks[] = {"platform", "custom_call:ALL", "custom_call:k_cpu",
                                         "custom_call:my_target", "platform,custom_call:k_tpu"};
    s->for_export = true;
    if (chance(g, 30))
      s->disabled_checks = copy_text(g, pick(g, checks, COUNT(checks)));
  }
  size_t n = (size_t)below(g, MAX_ARGS + 1);
  s->args = lsim_scenario_gen_alloc(&g->g, n, sizeof *s->args);
  for (size_t i = 0; s->args && i < n; i++) {
    lsim_scenario_arg *a = &s->args[s->num_args++];
    lsim_scenario_gen_aval(&g->g, &a->aval);
    a->donated = chance(g, 15);
    lsim_scenario_gen_define(&g->g, &a->aval);
  }
  size_t m = (size_t)below(g, MAX_EQNS + 1);
  s->eqns = lsim_scenario_gen_alloc(&g->g, m, sizeof *s->eqns);
  for (size_t i = 0; s->eqns && i < m && !g->g.oom; i++)
    lsim_scenario_gen_eqn(&g->g, &s->eqns[s->num_eqns++]);
}

/* <return values=...>: sometimes, with 0 to 3 values. */
static void gen_return(gen *g) {
  lsim_scenario *s = g->s;
  if (!chance(g, 20))
    return;
  s->has_return = true;
  size_t n = g->g.num_values ? (size_t)below(g, 4) : 0;
  s->returns = lsim_scenario_gen_alloc(&g->g, n, sizeof *s->returns);
  for (size_t i = 0; s->returns && i < n; i++)
    s->returns[s->num_returns++] = (size_t)below(g, g->g.num_values);
}

int lsim_fuzz_generate(lsim_fuzz_rng *rng, const char *name, lsim_scenario **out, lsim_error *err) {
  gen g = {.g = {.below = draw, .rng = rng}, .s = calloc(1, sizeof(lsim_scenario))};
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
  if (!g.s || g.g.oom) {
    lsim_scenario_destroy(g.s);
    return lsim_fuzz_no_memory(err);
  }
  *out = g.s;
  return LSIM_OK;
}
