/* cli/matrix.c: the matrix's cases.  Index -> (feature variant, runtime,
 * pinned backend, platform tuple) by mixed-radix decoding, so a case is
 * named by its index alone and shards are plain index ranges. */
#include "lowersim/alloc.h"
#include "matrix.h"
#include "lowersim/buffer_callback.h"
#include "lowersim/callback.h"
#include "lowersim/debugging.h"
#include "lowersim/ffi.h"
#include "lowersim/jax.h"
#include "lowersim/pallas_call.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const matrix_backends[] = {"cpu", "cuda", "rocm", "oneapi", "tpu", "metal"};
const size_t matrix_num_backends = 6;

/* The runtime always has cpu; each subset of these also initializes. */
const char *const matrix_optional_backends[] = {"cuda", "rocm", "oneapi", "tpu", "metal"};
#define NUM_OPTIONAL 5
const size_t matrix_num_optional_backends = NUM_OPTIONAL;
#define NUM_RUNTIMES (1u << NUM_OPTIONAL)
#define NUM_PINS 7 /* none, or each of matrix_backends */

/* Feature variants. */
#define RULE_SETS 6
#define BUFFER_VARIANTS 4 /* command_buffer x aliases */
#define PYTHON_VARIANTS 9 /* pure; io x ordered; debug x ordered x partitioned; pure and
                             ordered io with sharding=jax.devices()[0] */
#define PALLAS_VARIANTS 128 /* params(4) x installed(8) x flag(2) x interpret(2) */

static const int feature_variants[FEATURE_COUNT] = {RULE_SETS, BUFFER_VARIANTS, PYTHON_VARIANTS,
                                                    PALLAS_VARIANTS};

void matrix_spec_default(matrix_spec *spec) {
  static const char *const platforms[] = {"cpu", "cuda", "rocm", "oneapi", "tpu", "gpu", "metal"};
  memset(spec, 0, sizeof *spec);
  for (size_t i = 0; i < 7; i++)
    spec->platforms[i] = platforms[i];
  spec->num_platforms = 7;
  spec->max_len = 2;
  for (int f = 0; f < FEATURE_COUNT; f++)
    spec->features[f] = true;
}

/* Ordered tuples of distinct platforms of length 1..k from n: n + n(n-1) + ... */
static size_t count_tuples(size_t n, int k) {
  size_t total = 0, term = 1;
  for (int len = 1; len <= k && (size_t)len <= n; len++) {
    term *= n - (size_t)len + 1;
    total += term;
  }
  return total;
}

bool matrix_spec_finish(matrix_spec *spec) {
  if (spec->num_platforms == 0 || spec->max_len < 1 || spec->max_len > MATRIX_MAX_LEN)
    return false;
  spec->num_tuples = count_tuples(spec->num_platforms, spec->max_len);
  spec->num_variants = 0;
  for (int f = 0; f < FEATURE_COUNT; f++)
    if (spec->features[f])
      spec->num_variants += (size_t)feature_variants[f];
  spec->total = (uint64_t)spec->num_variants * NUM_RUNTIMES * NUM_PINS * spec->num_tuples;
  return spec->num_variants > 0;
}

/* The t-th ordered tuple: all tuples of length 1 first, then length 2, ... */
static void decode_tuple(const matrix_spec *spec, size_t t, matrix_case *c) {
  size_t n = spec->num_platforms, term = 1;
  int len = 1;
  for (;; len++) {
    term = 1;
    for (int i = 0; i < len; i++)
      term *= n - (size_t)i;
    if (t < term)
      break;
    t -= term;
  }
  bool used[MATRIX_MAX_PLATFORMS] = {false};
  c->tuple_len = len;
  for (int i = 0; i < len; i++) {
    size_t remaining = n - (size_t)i, below = 1;
    for (int j = i + 1; j < len; j++)
      below *= n - (size_t)j;
    size_t pick = t / below;
    t %= below;
    (void)remaining;
    for (size_t p = 0; p < n; p++) {
      if (used[p])
        continue;
      if (pick-- == 0) {
        used[p] = true;
        c->tuple[i] = spec->platforms[p];
        break;
      }
    }
  }
}

void matrix_decode(const matrix_spec *spec, uint64_t index, matrix_case *c) {
  memset(c, 0, sizeof *c);
  c->index = index;
  c->profile = spec->profile;
  c->tuple_len = 0;
  uint64_t rest = index;
  size_t t = (size_t)(rest % spec->num_tuples);
  rest /= spec->num_tuples;
  c->pin = (int)(rest % NUM_PINS) - 1;
  rest /= NUM_PINS;
  c->runtime = (unsigned)(rest % NUM_RUNTIMES);
  rest /= NUM_RUNTIMES;
  size_t v = (size_t)rest;
  for (int f = 0; f < FEATURE_COUNT; f++) {
    if (!spec->features[f])
      continue;
    if (v < (size_t)feature_variants[f]) {
      c->feature = (matrix_feature)f;
      c->variant = (int)v;
      break;
    }
    v -= (size_t)feature_variants[f];
  }
  decode_tuple(spec, t, c);
}

int matrix_feature_variants(matrix_feature f) {
  return (unsigned)f < FEATURE_COUNT ? feature_variants[f] : 0;
}

const char *matrix_feature_name(matrix_feature f) {
  static const char *const names[] = {"rules", "buffer_callback", "python_callback", "pallas"};
  return (unsigned)f < FEATURE_COUNT ? names[f] : "?";
}

/* --- feature variants ------------------------------------------------------------ */

typedef struct rule_set {
  const char *name;
  const char *platforms[3];
  lsim_ffi_rule rules[3];
  bool has_default;
  lsim_ffi_rule default_rule;
} rule_set;

#define RULE(target) {target, LSIM_BACKEND_USE_NONE}

static const rule_set rule_sets[RULE_SETS] = {
    {"default", {NULL}, {{NULL, 0}}, true, RULE("k_default")},
    {"gpu+default", {"gpu"}, {RULE("k_gpu")}, true, RULE("k_default")},
    {"cpu+tpu", {"cpu", "tpu"}, {RULE("k_cpu"), RULE("k_tpu")}, false, {NULL, 0}},
    {"gpu", {"gpu"}, {RULE("k_gpu")}, false, {NULL, 0}},
    {"cpu+metal+cuda+default", {"cpu", "metal", "cuda"},
     {RULE("k_cpu"), RULE("k_metal"), RULE("k_cuda")}, true, RULE("k_default")},
    {"default/get_backend", {NULL}, {{NULL, 0}}, true,
     {"k_default", LSIM_BACKEND_USE_REQUIRED}},
};

static const char *const params_names[] = {"none", "mosaic_tpu", "triton", "mosaic_gpu"};

void matrix_variant_name(matrix_feature f, int v, char *buf, size_t size) {
  if (v < 0 || v >= matrix_feature_variants(f)) {
    snprintf(buf, size, "?");
    return;
  }
  switch (f) {
  case FEATURE_RULES:
    snprintf(buf, size, "rules/%s", rule_sets[v].name);
    break;
  case FEATURE_BUFFER_CALLBACK:
    snprintf(buf, size, "buffer_callback/%s%s", v & 1 ? "cmd_buffer" : "plain",
             v & 2 ? "/alias" : "");
    break;
  case FEATURE_PYTHON_CALLBACK:
    snprintf(buf, size, "%s", (const char *[]){"pure", "io", "io/ordered", "debug",
                                               "debug/ordered", "debug/partitioned",
                                               "debug/ordered/partitioned", "pure/device0",
                                               "io/ordered/device0"}[v]);
    break;
  case FEATURE_PALLAS: {
    int installed = (v >> 2) & 7;
    snprintf(buf, size, "pallas/%s/installed=%s%s%s%s%s", params_names[v >> 5],
             installed & 1 ? "T" : "-", installed & 2 ? "R" : "-", installed & 4 ? "G" : "-",
             v & 2 ? "/flag" : "", v & 1 ? "/interpret" : "");
    break;
  }
  default:
    snprintf(buf, size, "?");
  }
}

/* --- running a case ------------------------------------------------------------- */

/* What one case lowers: a JAX process (its runtime, Pallas state and
 * registry) and a program of one equation over an f32[8] argument. */
typedef struct case_program {
  lsim_runtime *runtime;
  lsim_pallas *pallas;
  lsim_registry *registry;
  lsim_primitive *my_op; /* the rules feature's own primitive */
  lsim_eqn eqn;
  lsim_program program;
  union {
    lsim_buffer_callback_params buffer;
    lsim_python_callback_params python;
    lsim_pallas_call_params pallas;
  } params;
} case_program;

static const lsim_aval f32_8 = {.dtype = LSIM_DTYPE_F32, .rank = 1, .dims = {8}};
static const size_t operand = 0;

/* cpu, then each optional backend the case's runtime has, one device each. */
static int make_runtime(case_program *cp, const matrix_case *c, lsim_error *err) {
  int rc = lsim_runtime_create(&cp->runtime, err);
  for (int i = -1; !rc && i < NUM_OPTIONAL; i++) {
    if (i >= 0 && !(c->runtime & (1u << i)))
      continue;
    lsim_backend_factory f;
    lsim_backend_factory_defaults(&f, i < 0 ? "cpu" : matrix_optional_backends[i]);
    rc = lsim_runtime_register_backend_factory(cp->runtime, &f, err);
  }
  return rc;
}

/* The Pallas state: what the pallas variant installs, else everything. */
static int make_process(case_program *cp, const matrix_case *c, lsim_error *err) {
  int installed = (c->variant >> 2) & 7;
  lsim_pallas_installed all =
      LSIM_PALLAS_INSTALLED_INIT(.mosaic_tpu = true, .triton = true, .mosaic_gpu = true);
  if (c->feature == FEATURE_PALLAS)
    all = (lsim_pallas_installed)LSIM_PALLAS_INSTALLED_INIT(
        .mosaic_tpu = installed & 1, .triton = installed & 2, .mosaic_gpu = installed & 4,
        .use_mosaic_gpu = c->variant & 2);
  int rc = lsim_pallas_create(&all, &cp->pallas, err);
  return rc ? rc
            : lsim_registry_create_jax(cp->runtime, cp->pallas, c->profile, &cp->registry, err);
}

/* register_lowering(my_op, ffi_lowering(target), platform) per rule: part of
 * the process's state (made with the registry). */
static int register_rules(case_program *cp, int v, lsim_error *err) {
  const rule_set *rs = &rule_sets[v];
  int rc = lsim_primitive_create("my_op", &cp->my_op, err);
  for (int i = 0; !rc && i < 3 && rs->platforms[i]; i++)
    rc = lsim_register_lowering(cp->registry, cp->my_op, lsim_ffi_lowering(&rs->rules[i]),
                                rs->platforms[i], err);
  if (!rc && rs->has_default)
    rc = lsim_register_lowering(cp->registry, cp->my_op, lsim_ffi_lowering(&rs->default_rule),
                                NULL, err);
  return rc;
}

/* The python-callback variant v; the sharded ones name the default
 * backend's first device (SingleDeviceSharding(jax.devices()[0])), which is
 * in the device assignment only when no other backend is pinned. */
static int bind_python(case_program *cp, int v, lsim_error *err) {
  static const struct {
    int kind; /* 0 pure, 1 io, 2 debug */
    bool ordered, partitioned, sharded;
  } variants[PYTHON_VARIANTS] = {
      {0, false, false, false}, {1, false, false, false}, {1, true, false, false},
      {2, false, false, false}, {2, true, false, false},  {2, false, true, false},
      {2, true, true, false},   {0, false, false, true},  {1, true, false, true},
  };
  lsim_python_callback_params *p = &cp->params.python;
  *p = (lsim_python_callback_params){.ordered = variants[v].ordered,
                                     .partitioned = variants[v].partitioned};
  const lsim_backend *device_backend = NULL;
  int rc = variants[v].sharded ? lsim_runtime_get_backend(cp->runtime, NULL, &device_backend, err)
                               : LSIM_OK;
  if (device_backend)
    p->sharding = (lsim_callback_sharding){LSIM_CALLBACK_SHARDING_SINGLE_DEVICE,
                                           {device_backend, 0}};
  cp->eqn.ordered_effect = variants[v].kind != 0 && p->ordered;
  if (variants[v].kind == 0)
    lsim_pure_callback_bind(&cp->eqn, p);
  else if (variants[v].kind == 1)
    lsim_io_callback_bind(&cp->eqn, p);
  else
    lsim_debug_callback_bind(&cp->eqn, p);
  if (variants[v].kind == 2)
    cp->eqn.num_results = 0;
  return rc;
}

static const lsim_pallas_params_class *const params_classes[] = {
    NULL, &lsim_mosaic_tpu_compiler_params, &lsim_triton_compiler_params,
    &lsim_mosaic_gpu_compiler_params};

static int make_program(case_program *cp, const matrix_case *c, lsim_error *err) {
  static const lsim_io_alias alias = {0, 0};
  cp->eqn = (lsim_eqn){.operands = &operand, .num_operands = 1, .results = &f32_8,
                       .num_results = 1};
  int rc = LSIM_OK;
  switch (c->feature) {
  case FEATURE_RULES: cp->eqn.primitive = cp->my_op; break;
  case FEATURE_BUFFER_CALLBACK:
    cp->params.buffer = (lsim_buffer_callback_params){
        .command_buffer_compatible = c->variant & 1, .aliases = c->variant & 2 ? &alias : NULL,
        .num_aliases = c->variant & 2 ? 1 : 0};
    lsim_buffer_callback_bind(&cp->eqn, &cp->params.buffer);
    break;
  case FEATURE_PYTHON_CALLBACK: rc = bind_python(cp, c->variant, err); break;
  case FEATURE_PALLAS:
    cp->params.pallas = (lsim_pallas_call_params){.kernel = "add_one", .grid = 2,
                                                  .interpret = c->variant & 1,
                                                  .compiler_params = params_classes[c->variant >> 5]};
    lsim_pallas_call_bind(&cp->eqn, &cp->params.pallas);
    break;
  default: break;
  }
  cp->program = (lsim_program){.function_name = "f", .args = &f32_8, .num_args = 1,
                               .eqns = &cp->eqn, .num_eqns = 1};
  return rc;
}

static void case_program_free(case_program *cp) {
  lsim_registry_destroy(cp->registry);
  lsim_primitive_destroy(cp->my_op);
  lsim_pallas_destroy(cp->pallas);
  lsim_runtime_destroy(cp->runtime);
}

/* FNV-1a of the module text, fed chunk by chunk as it is printed. */
static bool fnv1a(void *data, const char *chunk, size_t n) {
  uint64_t *h = data, v = *h;
  for (size_t i = 0; i < n; i++)
    v = (v ^ (unsigned char)chunk[i]) * 1099511628211ull;
  *h = v;
  return true;
}

bool matrix_is_failure(int code) {
  lsim_kind kind = lsim_status_kind(code);
  return kind != LSIM_KIND_OK && kind != LSIM_KIND_JAX_ERROR;
}

/* A worker's lowerer and the JAX process of its last case.  Cases in index
 * order share their process (runtime, Pallas state, registry and the rules
 * feature's primitive) for all pins and platform tuples: 343 cases in a row.
 * A process is reused only while its state is what a fresh one reaches: the
 * key (runtime bits, profile, feature, variant) is the same, no case imported
 * a Pallas backend's module (its importer registers rules) and none failed in
 * backends() (JAX keeps the backends that came up before a
 * failure, so a second backends() would not fail again), ran out of memory
 * or failed lowersim's own checks.  Otherwise it is rebuilt. */
struct matrix_worker {
  lsim_lowerer *lowerer;
  case_program cp; /* runtime, pallas, registry, my_op: NULL when none */
  bool have;
  unsigned runtime;
  const lsim_jax_profile *profile;
  matrix_feature feature;
  int variant;
};

matrix_worker *matrix_worker_create(void) {
  matrix_worker *w = lsim_calloc(1, sizeof *w);
  if (w && lsim_lowerer_create(&w->lowerer, NULL)) {
    free(w);
    return NULL;
  }
  return w;
}

static void drop_process(matrix_worker *w) {
  case_program_free(&w->cp);
  memset(&w->cp, 0, sizeof w->cp);
  w->have = false;
}

void matrix_worker_destroy(matrix_worker *w) {
  if (!w)
    return;
  drop_process(w);
  lsim_lowerer_destroy(w->lowerer);
  free(w);
}

static int get_process(matrix_worker *w, const matrix_case *c, lsim_error *err) {
  if (w->have && w->runtime == c->runtime && w->profile == c->profile &&
      w->feature == c->feature && w->variant == c->variant)
    return LSIM_OK;
  drop_process(w);
  int rc = make_runtime(&w->cp, c, err);
  if (!rc)
    rc = make_process(&w->cp, c, err);
  if (!rc && c->feature == FEATURE_RULES)
    rc = register_rules(&w->cp, c->variant, err);
  if (rc) {
    drop_process(w);
    return rc;
  }
  w->have = true;
  w->runtime = c->runtime;
  w->profile = c->profile;
  w->feature = c->feature;
  w->variant = c->variant;
  return LSIM_OK;
}

/* Lowers the case as jax.jit(f).trace(x).lower(lowering_platforms=tuple),
 * jax.jit(f, backend=pin) when it has a pinned backend; `*hash` receives the
 * FNV-1a of the module text, printed straight into the hash. */
static unsigned pallas_imports(const lsim_pallas *p) {
  unsigned bits = 0;
  for (int b = 0; p && b < LSIM_PALLAS_BACKEND_COUNT; b++)
    bits |= lsim_pallas_imported(p, (lsim_pallas_backend)b) ? 1u << b : 0;
  return bits;
}

static int lower_case(matrix_worker *w, const matrix_case *c, uint64_t *hash, lsim_error *err) {
  int rc = get_process(w, c, err);
  case_program *cp = &w->cp;
  unsigned imports = pallas_imports(cp->pallas);
  if (!rc)
    rc = make_program(cp, c, err);
  lsim_lowering *low = NULL;
  if (!rc) {
    lsim_lowering_request req = LSIM_LOWERING_REQUEST_INIT(
        .registry = cp->registry, .program = &cp->program, .platforms = c->tuple,
        .num_platforms = (size_t)c->tuple_len,
        .backend = c->pin < 0 ? NULL : matrix_backends[c->pin]);
    rc = lsim_lower(w->lowerer, &req, &low, err);
  }
  *hash = 1469598103934665603ull;
  if (!rc && !lsim_lowering_print_to(low, fnv1a, hash))
    rc = LSIM_E_NO_MEMORY;
  lsim_lowering_destroy(low);
  /* A first import registers rules: the process is no longer a fresh one. */
  if (rc == LSIM_E_BACKEND_INIT || rc == LSIM_E_NO_DEFAULT_BACKEND || matrix_is_failure(rc) ||
      pallas_imports(cp->pallas) != imports)
    drop_process(w);
  return rc;
}

matrix_outcome matrix_run_case(matrix_worker *w, const matrix_case *c) {
  lsim_error err = LSIM_ERROR_INIT;
  uint64_t hash = 0;
  matrix_outcome o = {.code = lower_case(w, c, &hash, &err)};
  if (!o.code)
    o.hash = hash;
  o.failure = matrix_is_failure(o.code);
  lsim_error_clear(&err);
  return o;
}
