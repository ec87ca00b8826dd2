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
#include "lowersim/alloc.h"
#include "lowersim/scenario_generate.h"
#include "lowersim/scenario_kind.h"

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
/* Device kinds Pallas's backends read: TPUs JAX knows, one it does not,
 * GPUs gpu_info knows, a ROCm architecture, a cpu. */
static const char *const device_kinds[] = {"TPU v5 lite", "TPU v4", "TPU7x", "TPU v9",
                                           "NVIDIA H100 80GB HBM3", "Tesla T4", "gfx942",
                                           "cpu", "cuda"};
static const char *const compute_capabilities[] = {"9.0", "8.0", "10.0", "gfx90a"};
static const char *const abstract_platforms[] = {"tpu", "gpu", "cuda", "rocm", "cpu"};

#define NUM_PLATFORMS LSIM_SCENARIO_GEN_NUM_PLATFORMS
static const char *const *const platforms = lsim_scenario_gen_platforms;

typedef struct gen {
  lsim_scenario_gen g;
  lsim_scenario *s;
  const lsim_scenario_kind *focus; /* NULL: every kind alike */
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
  if (chance(g, 10))
    b->device_kind = copy_text(g, pick(g, device_kinds, COUNT(device_kinds)));
  if (chance(g, 8))
    b->compute_capability =
        copy_text(g, pick(g, compute_capabilities, COUNT(compute_capabilities)));
}

/* A focused campaign's machine: a cpu (as every JAX process has), then up to
 * three accelerators that come up, some with device kinds of their own. */
static void gen_tame_runtime(gen *g) {
  static const char *const accelerators[] = {"tpu", "cuda", "rocm", "oneapi", "metal"};
  lsim_scenario_runtime *rt = &g->s->runtime;
  rt->present = true;
  size_t extra = (size_t)below(g, 4);
  rt->backends = lsim_scenario_gen_alloc(&g->g, 1 + extra, sizeof *rt->backends);
  if (!rt->backends)
    return;
  rt->backends[rt->num_backends++] = (lsim_scenario_backend){.platform = copy_text(g, "cpu"),
                                                             .devices = 1};
  bool used[COUNT(accelerators)] = {false};
  for (size_t i = 0; i < extra; i++) {
    size_t k = below(g, COUNT(accelerators));
    if (used[k])
      continue;
    used[k] = true;
    lsim_scenario_backend *b = &rt->backends[rt->num_backends++];
    *b = (lsim_scenario_backend){.platform = copy_text(g, accelerators[k]), .devices = 1};
    if (chance(g, 25))
      b->device_kind = copy_text(g, pick(g, device_kinds, COUNT(device_kinds)));
    if (chance(g, 15))
      b->compute_capability =
          copy_text(g, pick(g, compute_capabilities, COUNT(compute_capabilities)));
  }
}

static void gen_runtime(gen *g) {
  lsim_scenario_runtime *rt = &g->s->runtime;
  if (g->focus) {
    gen_tame_runtime(g);
    return;
  }
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
  /* Set or not, where the release has the option (from 0.11.2 JAX has
   * none, and a scenario setting it is refused): drawn either way, so that
   * the draws after it are the same for every release. */
  bool set = chance(g, 30);
  s->has_use_mosaic_gpu = set && g->g.profile->pallas_use_mosaic_gpu_option;
  s->pallas.use_mosaic_gpu = set ? chance(g, 30) : true;
  if (!s->has_use_mosaic_gpu)
    s->pallas.use_mosaic_gpu = true;
}

/* A focused campaign's argument: one non-empty 1-D array of a numeric
 * dtype, of a size kernels care about.  A Pallas campaign also draws the
 * 2-D kernels' operands: (M, N) arrays whose blocks tile them (8 rows, 128
 * lanes, powers of 2 for Triton) or not, and int32 index arrays (scalar
 * prefetch). */
static void gen_array(gen *g, lsim_aval *a) {
  static const int64_t sizes[] = {1, 3, 6, 8, 16, 64, 128, 128, 256, 256, 384, 30000};
  static const int64_t shapes[][2] = {{8, 128}, {16, 256}, {32, 128}, {1, 256}, {64, 128},
                                      {16, 384}, {24, 128}, {3, 5}};
  bool pallas = strcmp(lsim_scenario_kind_element(g->focus), "pallas_call") == 0;
  unsigned r = pallas ? (unsigned)below(g, 100) : 100;
  if (r < 30) {
    size_t k = (size_t)below(g, COUNT(shapes));
    lsim_dtype dtype = chance(g, 50) ? LSIM_DTYPE_F32
                                     : (lsim_dtype)(1 + below(g, LSIM_DTYPE_COUNT - 1));
    *a = (lsim_aval){.dtype = dtype, .rank = 2, .dims = {shapes[k][0], shapes[k][1]}};
    return;
  }
  if (r < 55) {
    *a = (lsim_aval){.dtype = LSIM_DTYPE_I32, .rank = 1, .dims = {1 + (int64_t)below(g, 8)}};
    return;
  }
  *a = (lsim_aval){.dtype = (lsim_dtype)(1 + below(g, LSIM_DTYPE_COUNT - 1)), .rank = 1,
                   .dims = {sizes[below(g, COUNT(sizes))]}};
}

static void gen_lower(gen *g) {
  lsim_scenario *s = g->s;
  /* A focused campaign lowers mostly for the platforms every kind has rules
   * for, rarely with jit(backend=). */
  static const char *const main_platforms[] = {"cpu", "tpu", "cuda", "rocm"};
  bool main_only = g->focus && chance(g, 85);
  s->function = copy_text(g, pick(g, function_names, COUNT(function_names)));
  if (chance(g, 75))
    s->platforms = main_only ? lsim_scenario_gen_name_list(&g->g, 3, main_platforms,
                                                           COUNT(main_platforms))
                             : lsim_scenario_gen_name_list(&g->g, MAX_LIST, platforms,
                                                           NUM_PLATFORMS);
  if (chance(g, g->focus ? 3 : 15))
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
  if (chance(g, 20)) {
    s->has_abstract_device = true;
    s->abstract_device.platform =
        copy_text(g, pick(g, abstract_platforms, COUNT(abstract_platforms)));
    s->abstract_device.device_kind = copy_text(g, pick(g, device_kinds, COUNT(device_kinds)));
    s->abstract_device.num_cores = chance(g, 50) ? 1 : chance(g, 50) ? 2 : 0;
  }
  size_t n = g->focus ? 1 + (size_t)below(g, 2) : (size_t)below(g, MAX_ARGS + 1);
  s->args = lsim_scenario_gen_alloc(&g->g, n, sizeof *s->args);
  for (size_t i = 0; s->args && i < n; i++) {
    lsim_scenario_arg *a = &s->args[s->num_args++];
    if (g->focus && chance(g, 85))
      gen_array(g, &a->aval);
    else
      lsim_scenario_gen_aval(&g->g, &a->aval);
    a->donated = chance(g, g->focus ? 3 : 15);
    lsim_scenario_gen_define(&g->g, &a->aval);
  }
  size_t m = g->focus ? 1 + (size_t)below(g, 3) : (size_t)below(g, MAX_EQNS + 1);
  s->eqns = lsim_scenario_gen_alloc(&g->g, m, sizeof *s->eqns);
  for (size_t i = 0; s->eqns && i < m && !g->g.oom; i++) {
    lsim_scenario_eqn *e = &s->eqns[s->num_eqns++];
    if (!g->focus || chance(g, 20) || !lsim_scenario_gen_eqn_of_kind(&g->g, g->focus, e))
      lsim_scenario_gen_eqn(&g->g, e);
  }
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

/* Sometimes a process session: one or two more lowerings in the same
 * process (drawn after everything else, so a seed's first lowering is what
 * it was before sessions). */
static void gen_session(gen *g) {
  lsim_scenario *head = g->s, *last = head;
  for (int more = chance(g, 8) ? 1 + (int)below(g, 2) : 0; more > 0 && !g->g.oom; more--) {
    lsim_scenario *next = lsim_calloc(1, sizeof *next);
    if (!next) {
      g->g.oom = true;
      break;
    }
    last->next = next;
    next->step = last->step + 1;
    next->path = copy_text(g, head->path);
    next->pallas = lsim_scenario_default_pallas();
    g->s = last = next;
    g->g.num_values = 0;
    g->g.session = head;
    g->g.num_earlier = (size_t)last->step - 1;
    gen_lower(g);
    gen_return(g);
    next->execute = chance(g, 15);
  }
  g->s = head;
  g->g.session = NULL;
  g->g.num_earlier = 0;
}

int lsim_fuzz_generate(lsim_fuzz_rng *rng, const char *name, lsim_scenario **out, lsim_error *err) {
  return lsim_fuzz_generate_focused(rng, name, NULL, NULL, out, err);
}

int lsim_fuzz_generate_focused(lsim_fuzz_rng *rng, const char *name, const char *focus,
                               const lsim_jax_profile *profile, lsim_scenario **out,
                               lsim_error *err) {
  gen g = {.g = {.below = draw, .rng = rng, .profile = lsim_jax_profile_or_default(profile)},
           .s = lsim_calloc(1, sizeof(lsim_scenario)),
           .focus = focus ? lsim_scenario_kind_find(focus) : NULL};
  if (focus && !g.focus) {
    free(g.s);
    return lsim_error_set(err, LSIM_E_INVALID_ARGUMENT, "no equation element <%s>", focus);
  }
  if (g.s) {
    g.s->path = copy_text(&g, name);
    g.s->step = 1;
    g.s->name = copy_text(&g, name);
    if (chance(&g, 5))
      g.s->description = copy_text(&g, pick(&g, descriptions, COUNT(descriptions)));
    gen_runtime(&g);
    gen_pallas(&g);
    gen_lower(&g);
    gen_return(&g);
    g.s->execute = chance(&g, 15);
    gen_session(&g);
  }
  if (!g.s || g.g.oom) {
    lsim_scenario_destroy(g.s);
    return lsim_fuzz_no_memory(err);
  }
  *out = g.s;
  return LSIM_OK;
}
