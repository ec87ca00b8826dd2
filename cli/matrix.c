/* cli/matrix.c: the matrix's cases.  Index -> (feature variant, runtime,
 * pinned backend, platform tuple) by mixed-radix decoding, so a case is
 * named by its index alone and shards are plain index ranges. */
#include "lowersim/alloc.h"
#include "matrix.h"
#include "lowersim/buffer_callback.h"
#include "lowersim/callback.h"
#include "lowersim/debugging.h"
#include "lowersim/export.h"
#include "lowersim/ffi.h"
#include "lowersim/jax.h"
#include "lowersim/lax.h"
#include "lowersim/pallas_call.h"

#include <inttypes.h>
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
#define FFI_VARIANTS 8      /* has_side_effect x input_output_aliases x api version 4 or 1 */
#define COMPUTE_TYPES 5     /* device_host, tpu_sparsecore, device, gpu_stream:1, unknown */
#define COMPUTE_VARIANTS (COMPUTE_TYPES * 2) /* x the equation: ffi_call, pure_callback */
#define CACHE_VARIANTS 4    /* rules (default, cpu+tpu) x one or two identical equations */
#define EFFECTS_VARIANTS 4  /* io+debug, debug+io, io+io ordered; io ordered + debug */
#define EXPORT_VARIANTS 6   /* body (sin, my_op's custom call, pure_callback) x checks */
#define EXPORT_CALL_VARIANTS 4 /* exported for (cpu, tpu) or (cuda,) x platform check */
#define SESSION_VARIANTS 2  /* a rule registered after a failure; a Pallas retry */
#define KERNEL_CASES 3      /* tiled_add_one, row_sum, gather_rows */
#define KERNEL_VARIANTS (KERNEL_CASES * 8) /* x params(4) x interpret(2) */

static const int feature_variants[FEATURE_COUNT] = {
    RULE_SETS,      BUFFER_VARIANTS,  PYTHON_VARIANTS,  PALLAS_VARIANTS,
    FFI_VARIANTS,   COMPUTE_VARIANTS, CACHE_VARIANTS,   EFFECTS_VARIANTS,
    EXPORT_VARIANTS, EXPORT_CALL_VARIANTS, SESSION_VARIANTS, KERNEL_VARIANTS};

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

void matrix_shard_range(uint64_t total, uint64_t shard, uint64_t shards, uint64_t limit,
                        uint64_t *lo, uint64_t *hi) {
  /* 128-bit products: total * shard overflows 64 bits for large N */
  *lo = (uint64_t)((unsigned __int128)total * shard / shards);
  *hi = (uint64_t)((unsigned __int128)total * (shard + 1) / shards);
  if (limit && *hi - *lo > limit)
    *hi = *lo + limit;
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
  static const char *const names[] = {"rules",      "buffer_callback", "python_callback",
                                      "pallas",     "ffi_call",        "compute_on",
                                      "lowering_cache", "effects",     "export",
                                      "export_call", "session",        "pallas_kernels"};
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

/* compute_on(T): the four compute types JAX knows, and one it does not. */
static const char *const compute_types[COMPUTE_TYPES] = {"device_host", "tpu_sparsecore", "device",
                                                         "gpu_stream:1", "sparsecore"};

static const char *const effects_names[EFFECTS_VARIANTS] = {"io+debug", "debug+io", "io+io",
                                                            "io+debug_unordered"};

/* export: the body, and jax.export.export's disabled_checks. */
static const char *const export_bodies[3] = {"sin", "my_op", "pure"};
static const char *const export_checks[2] = {"none", "custom_call:k_default"};

/* export_call: what the callee was exported for. */
static const char *const exported_for[2][2] = {{"cpu", "tpu"}, {"cuda", NULL}};

static const char *const session_names[SESSION_VARIANTS] = {"rule_after_failure",
                                                            "pallas_retry"};

/* pallas_kernels: the 2-D kernels of the library on avals they take, in
 * blocks of (8, 128) tiles, over the grid their blocks make (variant v:
 * kernel v / 8, compiler params (v / 2) % 4, interpret v % 2); gather_rows
 * with its scalar-prefetch index array first. */
typedef struct kernel_case {
  const char *kernel;
  lsim_aval args[2];
  size_t num_args;
  lsim_aval result;
  int64_t block[2];
} kernel_case;

#define AVAL(dt, ...)                                                                      \
  {                                                                                        \
    .dtype = LSIM_DTYPE_##dt, .rank = sizeof((int64_t[]){__VA_ARGS__}) / sizeof(int64_t), \
    .dims = {__VA_ARGS__}                                                                  \
  }
static const kernel_case kernel_cases[KERNEL_CASES] = {
    {"tiled_add_one", {AVAL(F32, 16, 256)}, 1, AVAL(F32, 16, 256), {8, 128}},
    {"row_sum", {AVAL(F32, 16, 256)}, 1, AVAL(F32, 16, 1), {8, 256}},
    {"gather_rows", {AVAL(I32, 2), AVAL(F32, 16, 128)}, 2, AVAL(F32, 16, 128), {8, 128}},
};
#undef AVAL

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
  case FEATURE_FFI_CALL:
    snprintf(buf, size, "ffi_call/%s%s%s%s", v ? "" : "plain", v & 1 ? "side_effect" : "",
             v & 2 ? (v & 1 ? "/alias" : "alias") : "", v & 4 ? (v & 3 ? "/api1" : "api1") : "");
    break;
  case FEATURE_COMPUTE_ON:
    snprintf(buf, size, "compute_on/%s/%s", compute_types[v >> 1], v & 1 ? "pure" : "ffi_call");
    break;
  case FEATURE_LOWERING_CACHE:
    snprintf(buf, size, "lowering_cache/%s/%s", v & 2 ? "cpu+tpu" : "default",
             v & 1 ? "two_calls" : "one_call");
    break;
  case FEATURE_EFFECTS: snprintf(buf, size, "effects/%s", effects_names[v]); break;
  case FEATURE_EXPORT:
    snprintf(buf, size, "export/%s/checks=%s", export_bodies[v >> 1], export_checks[v & 1]);
    break;
  case FEATURE_EXPORT_CALL:
    snprintf(buf, size, "export_call/for=%s%s%s%s", exported_for[v >> 1][0],
             exported_for[v >> 1][1] ? "+" : "",
             exported_for[v >> 1][1] ? exported_for[v >> 1][1] : "",
             v & 1 ? "/platform_check_disabled" : "");
    break;
  case FEATURE_SESSION: snprintf(buf, size, "session/%s", session_names[v]); break;
  case FEATURE_PALLAS_KERNELS:
    snprintf(buf, size, "pallas_kernels/%s/%s%s", kernel_cases[v >> 3].kernel,
             params_names[(v >> 1) & 3], v & 1 ? "/interpret" : "");
    break;
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
  lsim_eqn eqns[2];      /* one, or two for lowering_cache's two calls and effects */
  size_t operands[2];
  size_t output;         /* effects: the io callback's result */
  lsim_program program;
  union {
    lsim_buffer_callback_params buffer;
    lsim_python_callback_params python;
    lsim_pallas_call_params pallas;
    lsim_ffi_call_params ffi;
    lsim_call_exported_params call;
  } params[2];
  lsim_exported exported;     /* export_call's callee */
  lsim_lowering *export_lowering;
} case_program;

static const lsim_aval f32_8 = {.dtype = LSIM_DTYPE_F32, .rank = 1, .dims = {8}};

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

/* my_op with its rules for the features that lower it: part of the
 * process's state (made with the registry).  lowering_cache's rules are
 * registered with inline=False; a session's first lowering has none. */
static int register_my_op(case_program *cp, const matrix_case *c, lsim_error *err) {
  static const lsim_ffi_rule k_default = RULE("k_default"), k_cpu = RULE("k_cpu"),
                             k_tpu = RULE("k_tpu");
  int rc = LSIM_OK;
  switch (c->feature) {
  case FEATURE_LOWERING_CACHE:
    rc = lsim_primitive_create("my_op", &cp->my_op, err);
    if (!rc && c->variant & 2)
      rc = lsim_register_lowering_not_inline(cp->registry, cp->my_op, lsim_ffi_lowering(&k_cpu),
                                             "cpu", err);
    if (!rc && c->variant & 2)
      rc = lsim_register_lowering_not_inline(cp->registry, cp->my_op, lsim_ffi_lowering(&k_tpu),
                                             "tpu", err);
    if (!rc && !(c->variant & 2))
      rc = lsim_register_lowering_not_inline(cp->registry, cp->my_op,
                                             lsim_ffi_lowering(&k_default), NULL, err);
    return rc;
  case FEATURE_EXPORT:
    rc = lsim_primitive_create("my_op", &cp->my_op, err);
    return rc ? rc
              : lsim_register_lowering(cp->registry, cp->my_op, lsim_ffi_lowering(&k_default),
                                       NULL, err);
  case FEATURE_SESSION: return lsim_primitive_create("my_op", &cp->my_op, err);
  default: return LSIM_OK;
  }
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
static int bind_python(case_program *cp, lsim_eqn *eqn, lsim_python_callback_params *p, int v,
                       lsim_error *err) {
  static const struct {
    int kind; /* 0 pure, 1 io, 2 debug */
    bool ordered, partitioned, sharded;
  } variants[PYTHON_VARIANTS] = {
      {0, false, false, false}, {1, false, false, false}, {1, true, false, false},
      {2, false, false, false}, {2, true, false, false},  {2, false, true, false},
      {2, true, true, false},   {0, false, false, true},  {1, true, false, true},
  };
  *p = (lsim_python_callback_params){.ordered = variants[v].ordered,
                                     .partitioned = variants[v].partitioned};
  const lsim_backend *device_backend = NULL;
  int rc = variants[v].sharded ? lsim_runtime_get_backend(cp->runtime, NULL, &device_backend, err)
                               : LSIM_OK;
  if (device_backend)
    p->sharding = (lsim_callback_sharding){LSIM_CALLBACK_SHARDING_SINGLE_DEVICE,
                                           {device_backend, 0}, 0};
  eqn->ordered_effect = variants[v].kind != 0 && p->ordered;
  if (variants[v].kind == 0)
    lsim_pure_callback_bind(eqn, p);
  else if (variants[v].kind == 1)
    lsim_io_callback_bind(eqn, p);
  else
    lsim_debug_callback_bind(eqn, p);
  if (variants[v].kind == 2)
    eqn->num_results = 0;
  return rc;
}

static const lsim_pallas_params_class *const params_classes[] = {
    NULL, &lsim_mosaic_tpu_compiler_params, &lsim_triton_compiler_params,
    &lsim_mosaic_gpu_compiler_params};

/* The python_callback variants the other features use. */
enum { PY_PURE = 0, PY_IO_ORDERED = 2, PY_DEBUG = 3, PY_DEBUG_ORDERED = 4 };

static void bind_ffi(lsim_eqn *eqn, lsim_ffi_call_params *p, int v) {
  static const lsim_io_alias alias = {0, 0};
  *p = (lsim_ffi_call_params){.target_name = "my_target", .has_side_effect = v & 1,
                              .aliases = v & 2 ? &alias : NULL, .num_aliases = v & 2 ? 1 : 0,
                              .custom_call_api_version = v & 4 ? 1 : 0};
  lsim_ffi_call_bind(eqn, p);
}

/* effects: two callbacks over x (the second io callback over the first's
 * result); the io callback's result is the program's output. */
static int bind_effects(case_program *cp, int v, lsim_error *err) {
  static const int kinds[EFFECTS_VARIANTS][2] = {{PY_IO_ORDERED, PY_DEBUG_ORDERED},
                                                 {PY_DEBUG_ORDERED, PY_IO_ORDERED},
                                                 {PY_IO_ORDERED, PY_IO_ORDERED},
                                                 {PY_IO_ORDERED, PY_DEBUG}};
  int rc = LSIM_OK;
  for (int i = 0; !rc && i < 2; i++)
    rc = bind_python(cp, &cp->eqns[i], &cp->params[i].python, kinds[v][i], err);
  bool io_io = kinds[v][1] == PY_IO_ORDERED && kinds[v][0] == PY_IO_ORDERED;
  if (io_io)
    cp->eqns[1].operands = &cp->operands[1];
  cp->output = io_io ? 2 : 1; /* values: x, then each result (debug callbacks have none) */
  cp->program.has_outputs = true;
  cp->program.outputs = &cp->output;
  cp->program.num_outputs = 1;
  return rc;
}

static int make_program(case_program *cp, const matrix_case *c, lsim_error *err) {
  static const lsim_io_alias alias = {0, 0};
  cp->operands[0] = 0;
  cp->operands[1] = 1; /* a second equation takes the first's result */
  for (int i = 0; i < 2; i++)
    cp->eqns[i] = (lsim_eqn){.operands = &cp->operands[0], .num_operands = 1,
                             .results = &f32_8, .num_results = 1};
  lsim_eqn *eqn = &cp->eqns[0];
  cp->program = (lsim_program){.function_name = "f", .args = &f32_8, .num_args = 1,
                               .eqns = cp->eqns, .num_eqns = 1};
  int rc = LSIM_OK, v = c->variant;
  switch (c->feature) {
  case FEATURE_RULES: eqn->primitive = cp->my_op; break;
  case FEATURE_BUFFER_CALLBACK:
    cp->params[0].buffer = (lsim_buffer_callback_params){
        .command_buffer_compatible = v & 1, .aliases = v & 2 ? &alias : NULL,
        .num_aliases = v & 2 ? 1 : 0};
    lsim_buffer_callback_bind(eqn, &cp->params[0].buffer);
    break;
  case FEATURE_PYTHON_CALLBACK: rc = bind_python(cp, eqn, &cp->params[0].python, v, err); break;
  case FEATURE_PALLAS:
    cp->params[0].pallas = (lsim_pallas_call_params){.kernel = "add_one", .grid = 2,
                                                     .interpret = v & 1,
                                                     .compiler_params = params_classes[v >> 5]};
    lsim_pallas_call_bind(eqn, &cp->params[0].pallas);
    break;
  case FEATURE_FFI_CALL: bind_ffi(eqn, &cp->params[0].ffi, v); break;
  case FEATURE_COMPUTE_ON:
    if (v & 1)
      rc = bind_python(cp, eqn, &cp->params[0].python, PY_PURE, err);
    else
      bind_ffi(eqn, &cp->params[0].ffi, 0);
    eqn->compute_type = compute_types[v >> 1];
    break;
  case FEATURE_LOWERING_CACHE:
    eqn->primitive = cp->my_op;
    if (v & 1) {
      cp->eqns[1] = *eqn;
      cp->eqns[1].operands = &cp->operands[1];
      cp->program.num_eqns = 2;
    }
    break;
  case FEATURE_EFFECTS:
    cp->program.num_eqns = 2;
    rc = bind_effects(cp, v, err);
    break;
  case FEATURE_EXPORT:
    if (v >> 1 == 0)
      eqn->primitive = &lsim_sin_p;
    else if (v >> 1 == 1)
      eqn->primitive = cp->my_op;
    else
      rc = bind_python(cp, eqn, &cp->params[0].python, PY_PURE, err);
    break;
  case FEATURE_EXPORT_CALL:
    cp->params[0].call = (lsim_call_exported_params){.exported = &cp->exported};
    lsim_call_exported_bind(eqn, &cp->params[0].call);
    break;
  case FEATURE_SESSION:
    if (v == 0)
      eqn->primitive = cp->my_op;
    else {
      cp->params[0].pallas = (lsim_pallas_call_params){
          .kernel = "add_one", .grid = 2, .compiler_params = &lsim_mosaic_tpu_compiler_params};
      lsim_pallas_call_bind(eqn, &cp->params[0].pallas);
    }
    break;
  case FEATURE_PALLAS_KERNELS: {
    const kernel_case *k = &kernel_cases[v >> 3];
    cp->program.args = k->args;
    cp->program.num_args = k->num_args;
    eqn->num_operands = k->num_args; /* operands 0 and 1: the arguments */
    eqn->results = &k->result;
    cp->params[0].pallas = (lsim_pallas_call_params){
        .kernel = k->kernel, .grid = 1, .block = {k->block[0], k->block[1]},
        .interpret = v & 1, .compiler_params = params_classes[(v >> 1) & 3]};
    lsim_pallas_call_bind(eqn, &cp->params[0].pallas);
    break;
  }
  default: break;
  }
  return rc;
}

static void case_program_free(case_program *cp) {
  lsim_lowering_destroy(cp->export_lowering);
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
  else if (!rc)
    rc = register_my_op(&w->cp, c, err);
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

/* Which Pallas backends' modules the process has imported (bit per backend). */
static unsigned pallas_imports(const lsim_pallas *p) {
  unsigned bits = 0;
  for (int b = 0; p && b < LSIM_PALLAS_BACKEND_COUNT; b++)
    bits |= lsim_pallas_imported(p, (lsim_pallas_backend)b) ? 1u << b : 0;
  return bits;
}

/* One lowering of the case's program for its platforms and pin (`export`:
 * as jax.export.export does, with the variant's disabled checks). */
static int lower_once(matrix_worker *w, const matrix_case *c, lsim_lowering **low,
                      lsim_error *err) {
  case_program *cp = &w->cp;
  const char *checks[1] = {export_checks[c->variant & 1]};
  bool export = c->feature == FEATURE_EXPORT;
  lsim_lowering_request req = LSIM_LOWERING_REQUEST_INIT(
      .registry = cp->registry, .program = &cp->program, .platforms = c->tuple,
      .num_platforms = (size_t)c->tuple_len,
      .backend = c->pin < 0 ? NULL : matrix_backends[c->pin], .for_export = export,
      .disabled_checks = checks, .num_disabled_checks = export && (c->variant & 1) ? 1 : 0);
  return lsim_lower(w->lowerer, &req, low, err);
}

/* export_call's callee: jax.export.export(jit(sin), platforms=FOR)(x), with
 * DisabledSafetyCheck.platform() in the variant that disables it. */
static int export_callee(matrix_worker *w, const matrix_case *c, lsim_error *err) {
  static const char *const platform_check[1] = {"platform"};
  case_program *cp = &w->cp;
  const char *const *platforms = exported_for[c->variant >> 1];
  size_t n = platforms[1] ? 2 : 1;
  lsim_eqn sin = {.primitive = &lsim_sin_p, .operands = &cp->operands[0], .num_operands = 1,
                  .results = &f32_8, .num_results = 1};
  lsim_program callee = {.function_name = "f", .args = &f32_8, .num_args = 1, .eqns = &sin,
                         .num_eqns = 1};
  bool disabled = c->variant & 1;
  lsim_lowering_request req = LSIM_LOWERING_REQUEST_INIT(
      .registry = cp->registry, .program = &callee, .platforms = platforms, .num_platforms = n,
      .for_export = true, .disabled_checks = platform_check, .num_disabled_checks = disabled);
  lsim_lowering_destroy(cp->export_lowering);
  cp->export_lowering = NULL;
  int rc = lsim_lower(w->lowerer, &req, &cp->export_lowering, err);
  cp->exported = (lsim_exported){.fun_name = "f", .platforms = platforms, .num_platforms = n,
                                 .platform_check_disabled = disabled,
                                 .lowering = cp->export_lowering, .in_avals = &f32_8,
                                 .num_in_avals = 1};
  return rc;
}

/* A session's first lowering, then what changes the process before the
 * case's own: a missing rule registered (register_lowering after the
 * NotImplementedError), or a failed Pallas lowering retried with
 * interpret=True.  A lowersim failure of the first is the case's outcome. */
static int session_first(matrix_worker *w, const matrix_case *c, lsim_error *err) {
  static const lsim_ffi_rule k_default = RULE("k_default");
  case_program *cp = &w->cp;
  lsim_lowering *low = NULL;
  int rc = lower_once(w, c, &low, err);
  lsim_lowering_destroy(low);
  if (matrix_is_failure(rc))
    return rc;
  lsim_error_clear(err);
  if (c->variant == 0)
    return lsim_register_lowering(cp->registry, cp->my_op, lsim_ffi_lowering(&k_default), NULL,
                                  err);
  cp->params[0].pallas.interpret = true;
  return LSIM_OK;
}

/* Lowers the case as jax.jit(f).trace(x).lower(lowering_platforms=tuple),
 * jax.jit(f, backend=pin) when it has a pinned backend; `*hash` receives the
 * FNV-1a of the module text, printed straight into the hash. */
static int lower_case(matrix_worker *w, const matrix_case *c, uint64_t *hash, lsim_error *err) {
  int rc = get_process(w, c, err);
  case_program *cp = &w->cp;
  unsigned imports = pallas_imports(cp->pallas);
  size_t dumped = cp->pallas ? lsim_pallas_dumped_modules(cp->pallas) : 0;
  if (!rc)
    rc = make_program(cp, c, err);
  if (!rc && c->feature == FEATURE_EXPORT_CALL)
    rc = export_callee(w, c, err);
  if (!rc && c->feature == FEATURE_SESSION)
    rc = session_first(w, c, err);
  lsim_lowering *low = NULL;
  if (!rc)
    rc = lower_once(w, c, &low, err);
  *hash = 1469598103934665603ull;
  if (!rc && !lsim_lowering_print_to(low, fnv1a, hash))
    rc = LSIM_E_NO_MEMORY;
  lsim_lowering_destroy(low);
  /* A first import registers rules: the process is no longer a fresh one;
   * nor is a session's, which registered a rule, nor one that named a
   * Mosaic GPU module for dumps (the next one is named after it). */
  if (rc == LSIM_E_BACKEND_INIT || rc == LSIM_E_NO_DEFAULT_BACKEND || matrix_is_failure(rc) ||
      pallas_imports(cp->pallas) != imports || c->feature == FEATURE_SESSION ||
      (cp->pallas && lsim_pallas_dumped_modules(cp->pallas) != dumped))
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

/* --- the case as a scenario ------------------------------------------------------ */

static void write_result(FILE *f) { fputs("<result dtype=\"f32\" shape=\"8\"/>", f); }

/* A rule as <rule platform target> (or <default>), with its backend use on
 * the primitive. */
static void write_rule(FILE *f, const char *platform, const lsim_ffi_rule *r, bool not_inline) {
  if (platform)
    fprintf(f, "<rule platform=\"%s\" target=\"%s\"%s/>", platform, r->target,
            not_inline ? " inline=\"false\"" : "");
  else
    fprintf(f, "<default target=\"%s\"%s/>", r->target, not_inline ? " inline=\"false\"" : "");
}

/* python_callback's variant v over value `arg`, compute_on="T" when set. */
static void write_python(FILE *f, int v, int arg, const char *compute_on) {
  static const char *const elements[] = {"pure_callback", "io_callback", "debug_callback"};
  static const struct {
    int kind;
    bool ordered, partitioned, sharded;
  } variants[PYTHON_VARIANTS] = {
      {0, false, false, false}, {1, false, false, false}, {1, true, false, false},
      {2, false, false, false}, {2, true, false, false},  {2, false, true, false},
      {2, true, true, false},   {0, false, false, true},  {1, true, false, true},
  };
  int k = variants[v].kind;
  fprintf(f, "    <%s args=\"%d\"", elements[k], arg);
  if (compute_on)
    fprintf(f, " compute_on=\"%s\"", compute_on);
  if (k > 0)
    fprintf(f, " ordered=\"%s\"", variants[v].ordered ? "true" : "false");
  if (k == 2)
    fprintf(f, " partitioned=\"%s\"", variants[v].partitioned ? "true" : "false");
  if (variants[v].sharded)
    fputs(" sharding=\"device:0\"", f);
  fputs(">", f);
  if (k < 2)
    write_result(f);
  fprintf(f, "</%s>\n", elements[k]);
}

static void write_ffi(FILE *f, int v, const char *compute_on) {
  fputs("    <ffi_call args=\"0\" target=\"my_target\"", f);
  if (compute_on)
    fprintf(f, " compute_on=\"%s\"", compute_on);
  fprintf(f, " has_side_effect=\"%s\"%s>", v & 1 ? "true" : "false",
          v & 4 ? " api_version=\"1\"" : "");
  write_result(f);
  if (v & 2)
    fputs("<alias input=\"0\" output=\"0\"/>", f);
  fputs("</ffi_call>\n", f);
}

/* <TAG dtype="f32" shape="16,256"/> */
static void write_aval(FILE *f, const char *tag, const lsim_aval *a) {
  fprintf(f, "<%s dtype=\"%s\" shape=\"", tag, lsim_dtype_name(a->dtype));
  for (int d = 0; d < a->rank; d++)
    fprintf(f, "%s%lld", d ? "," : "", (long long)a->dims[d]);
  fputs("\"/>", f);
}

/* <lower ...> for the case's platforms and pin, with an f32[8] argument
 * (pallas_kernels: its kernel's). */
static void write_lower_open(FILE *f, const matrix_case *c, bool export, const char *checks) {
  fputs("  <lower function=\"f\" platforms=\"", f);
  for (int i = 0; i < c->tuple_len; i++)
    fprintf(f, "%s%s", i ? "," : "", c->tuple[i]);
  fputs("\"", f);
  if (c->pin >= 0)
    fprintf(f, " backend=\"%s\"", matrix_backends[c->pin]);
  if (export)
    fputs(" export=\"true\"", f);
  if (checks)
    fprintf(f, " disabled_checks=\"%s\"", checks);
  fputs(">\n", f);
  if (c->feature != FEATURE_PALLAS_KERNELS) {
    fputs("    <arg dtype=\"f32\" shape=\"8\"/>\n", f);
    return;
  }
  const kernel_case *k = &kernel_cases[c->variant >> 3];
  for (size_t i = 0; i < k->num_args; i++) {
    fputs("    ", f);
    write_aval(f, "arg", &k->args[i]);
    fputs("\n", f);
  }
}

static void write_kernel_call(FILE *f, int v) {
  const kernel_case *k = &kernel_cases[v >> 3];
  fprintf(f, "    <pallas_call args=\"%s\" kernel=\"%s\" block=\"%lld,%lld\" interpret=\"%s\" "
             "compiler_params=\"%s\">",
          k->num_args == 2 ? "0,1" : "0", k->kernel, (long long)k->block[0],
          (long long)k->block[1], v & 1 ? "true" : "false", params_names[(v >> 1) & 3]);
  write_aval(f, "result", &k->result);
  fputs("</pallas_call>\n", f);
}

static void write_pallas_call(FILE *f, const char *params, bool interpret) {
  fprintf(f, "    <pallas_call args=\"0\" kernel=\"add_one\" grid=\"2\" interpret=\"%s\" "
             "compiler_params=\"%s\">",
          interpret ? "true" : "false", params);
  write_result(f);
  fputs("</pallas_call>\n", f);
}

/* The case's lowering's equations (and, for export_call and session, the
 * lowering before it). */
static void write_case_body(FILE *f, const matrix_case *c) {
  static const lsim_ffi_rule k_default = RULE("k_default"), k_cpu = RULE("k_cpu"),
                             k_tpu = RULE("k_tpu");
  int v = c->variant;
  switch (c->feature) {
  case FEATURE_RULES: {
    const rule_set *rs = &rule_sets[v];
    fprintf(f, "    <primitive name=\"my_op\" args=\"0\" backend_access=\"%s\">",
            rs->default_rule.backend_use == LSIM_BACKEND_USE_REQUIRED ? "required" : "none");
    for (int i = 0; i < 3 && rs->platforms[i]; i++)
      write_rule(f, rs->platforms[i], &rs->rules[i], false);
    if (rs->has_default)
      write_rule(f, NULL, &rs->default_rule, false);
    write_result(f);
    fputs("</primitive>\n", f);
    break;
  }
  case FEATURE_BUFFER_CALLBACK:
    fprintf(f, "    <buffer_callback args=\"0\" command_buffer=\"%s\">", v & 1 ? "true" : "false");
    write_result(f);
    if (v & 2)
      fputs("<alias input=\"0\" output=\"0\"/>", f);
    fputs("</buffer_callback>\n", f);
    break;
  case FEATURE_PYTHON_CALLBACK: write_python(f, v, 0, NULL); break;
  case FEATURE_PALLAS: write_pallas_call(f, params_names[v >> 5], v & 1); break;
  case FEATURE_FFI_CALL: write_ffi(f, v, NULL); break;
  case FEATURE_COMPUTE_ON:
    if (v & 1)
      write_python(f, PY_PURE, 0, compute_types[v >> 1]);
    else
      write_ffi(f, 0, compute_types[v >> 1]);
    break;
  case FEATURE_LOWERING_CACHE:
    for (int call = 0; call < (v & 1 ? 2 : 1); call++) {
      fprintf(f, "    <primitive name=\"my_op\" args=\"%d\" backend_access=\"none\">", call);
      if (v & 2) {
        write_rule(f, "cpu", &k_cpu, true);
        write_rule(f, "tpu", &k_tpu, true);
      } else {
        write_rule(f, NULL, &k_default, true);
      }
      write_result(f);
      fputs("</primitive>\n", f);
    }
    break;
  case FEATURE_EFFECTS: {
    static const int kinds[EFFECTS_VARIANTS][2] = {{PY_IO_ORDERED, PY_DEBUG_ORDERED},
                                                   {PY_DEBUG_ORDERED, PY_IO_ORDERED},
                                                   {PY_IO_ORDERED, PY_IO_ORDERED},
                                                   {PY_IO_ORDERED, PY_DEBUG}};
    bool io_io = kinds[v][0] == PY_IO_ORDERED && kinds[v][1] == PY_IO_ORDERED;
    write_python(f, kinds[v][0], 0, NULL);
    write_python(f, kinds[v][1], io_io ? 1 : 0, NULL);
    fprintf(f, "    <return values=\"%d\"/>\n", io_io ? 2 : 1);
    break;
  }
  case FEATURE_EXPORT:
    if (v >> 1 == 0) {
      fputs("    <op kind=\"sine\" args=\"0\"/>\n", f);
    } else if (v >> 1 == 1) {
      fputs("    <primitive name=\"my_op\" args=\"0\" backend_access=\"none\">", f);
      write_rule(f, NULL, &k_default, false);
      write_result(f);
      fputs("</primitive>\n", f);
    } else {
      write_python(f, PY_PURE, 0, NULL);
    }
    break;
  case FEATURE_EXPORT_CALL: fputs("    <call_exported lowering=\"1\" args=\"0\"/>\n", f); break;
  case FEATURE_SESSION:
    if (v == 0) {
      fputs("    <primitive name=\"my_op\" args=\"0\" backend_access=\"none\">", f);
      write_rule(f, NULL, &k_default, false);
      write_result(f);
      fputs("</primitive>\n", f);
    } else {
      write_pallas_call(f, "mosaic_tpu", true);
    }
    break;
  case FEATURE_PALLAS_KERNELS: write_kernel_call(f, v); break;
  default: break;
  }
}

/* What comes before the case's lowering in its session: export_call's
 * export of sin, or session's first lowering (my_op without rules, or the
 * Pallas call without interpret). */
static void write_first_lowering(FILE *f, const matrix_case *c) {
  int v = c->variant;
  if (c->feature == FEATURE_EXPORT_CALL) {
    const char *const *platforms = exported_for[v >> 1];
    fprintf(f, "  <lower function=\"f\" platforms=\"%s%s%s\" export=\"true\"%s>\n", platforms[0],
            platforms[1] ? "," : "", platforms[1] ? platforms[1] : "",
            v & 1 ? " disabled_checks=\"platform\"" : "");
    fputs("    <arg dtype=\"f32\" shape=\"8\"/>\n    <op kind=\"sine\" args=\"0\"/>\n  </lower>\n", f);
  } else if (c->feature == FEATURE_SESSION) {
    write_lower_open(f, c, false, NULL);
    if (v == 0) {
      fputs("    <primitive name=\"my_op\" args=\"0\" backend_access=\"none\">", f);
      write_result(f);
      fputs("</primitive>\n", f);
    } else {
      write_pallas_call(f, "mosaic_tpu", false);
    }
    fputs("  </lower>\n", f);
  }
}

bool matrix_write_scenario(const matrix_case *c, FILE *f) {
  char variant[MATRIX_VARIANT_NAME_MAX];
  matrix_variant_name(c->feature, c->variant, variant, sizeof variant);
  const char *jax = lsim_jax_profile_or_default(c->profile)->name;
  fprintf(f, "<?xml version=\"1.0\"?>\n<scenario name=\"matrix-case-%" PRIu64 "\" jax=\"%s\">\n",
          c->index, jax);
  fprintf(f, "  <description>lowersim matrix case %" PRIu64 ": %s for (", c->index, variant);
  for (int i = 0; i < c->tuple_len; i++)
    fprintf(f, "%s%s", i ? ", " : "", c->tuple[i]);
  fprintf(f, ")%s%s, backends cpu", c->pin >= 0 ? ", pinned to " : "",
          c->pin >= 0 ? matrix_backends[c->pin] : "");
  for (size_t i = 0; i < NUM_OPTIONAL; i++)
    if (c->runtime & (1u << i))
      fprintf(f, "+%s", matrix_optional_backends[i]);
  fputs(", JAX ", f);
  fputs(jax, f);
  fputs(".</description>\n  <runtime>\n", f);
  for (size_t i = 0; i < NUM_OPTIONAL; i++)
    if (c->runtime & (1u << i))
      fprintf(f, "    <backend platform=\"%s\" devices=\"1\"/>\n", matrix_optional_backends[i]);
  fputs("  </runtime>\n", f);
  if (c->feature == FEATURE_PALLAS) {
    int installed = (c->variant >> 2) & 7;
    /* The flag variant, where the JAX has jax_pallas_use_mosaic_gpu (else
     * the case lowers as without it, and the attribute would be refused). */
    fprintf(f, "  <pallas mosaic_tpu=\"%s\" triton=\"%s\" mosaic_gpu=\"%s\"",
            installed & 1 ? "true" : "false", installed & 2 ? "true" : "false",
            installed & 4 ? "true" : "false");
    if (lsim_jax_profile_or_default(c->profile)->pallas_use_mosaic_gpu_option)
      fprintf(f, " use_mosaic_gpu=\"%s\"", c->variant & 2 ? "true" : "false");
    fputs("/>\n", f);
  }
  write_first_lowering(f, c);
  bool export = c->feature == FEATURE_EXPORT;
  write_lower_open(f, c, export,
                   export && (c->variant & 1) ? export_checks[1] : NULL);
  write_case_body(f, c);
  fputs("  </lower>\n</scenario>\n", f);
  return !ferror(f);
}

uint64_t matrix_hash_lowering(const lsim_lowering *lowering, bool *ok) {
  uint64_t hash = 1469598103934665603ull;
  *ok = lsim_lowering_print_to(lowering, fnv1a, &hash);
  return hash;
}
