/* cli/matrix.c: the matrix's cases.  Index -> (feature variant, runtime,
 * pinned backend, platform tuple) by mixed-radix decoding, so a case is
 * named by its index alone and shards are plain index ranges. */
#include "matrix.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const matrix_backends[] = {"cpu", "cuda", "rocm", "oneapi", "tpu", "metal"};
const size_t matrix_num_backends = 6;

/* The runtime always has cpu; each subset of these also initializes. */
static const char *const optional_backends[] = {"cuda", "rocm", "oneapi", "tpu", "metal"};
#define NUM_OPTIONAL 5
#define NUM_RUNTIMES (1u << NUM_OPTIONAL)
#define NUM_PINS 7 /* none, or each of matrix_backends */

/* Feature variants. */
#define RULE_SETS 6
#define BUFFER_VARIANTS 4 /* command_buffer x aliases */
#define PYTHON_VARIANTS 7 /* pure; io x ordered; debug x ordered x partitioned */
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

const char *matrix_feature_name(matrix_feature f) {
  static const char *const names[] = {"rules", "buffer_callback", "python_callback", "pallas"};
  return (unsigned)f < FEATURE_COUNT ? names[f] : "?";
}

/* --- feature variants ------------------------------------------------------------ */

typedef struct rule_set {
  const char *name;
  const char *platforms[3];
  const char *targets[3];
  bool has_default;
  lsim_backend_access access;
} rule_set;

static const rule_set rule_sets[RULE_SETS] = {
    {"default", {NULL}, {NULL}, true, LSIM_BACKEND_ACCESS_NONE},
    {"gpu+default", {"gpu"}, {"k_gpu"}, true, LSIM_BACKEND_ACCESS_NONE},
    {"cpu+tpu", {"cpu", "tpu"}, {"k_cpu", "k_tpu"}, false, LSIM_BACKEND_ACCESS_NONE},
    {"gpu", {"gpu"}, {"k_gpu"}, false, LSIM_BACKEND_ACCESS_NONE},
    {"cpu+metal+cuda+default", {"cpu", "metal", "cuda"}, {"k_cpu", "k_metal", "k_cuda"}, true,
     LSIM_BACKEND_ACCESS_NONE},
    {"default/get_backend", {NULL}, {NULL}, true, LSIM_BACKEND_ACCESS_REQUIRED},
};

static const char *const params_names[] = {"none", "mosaic_tpu", "triton", "mosaic_gpu"};

void matrix_variant_name(matrix_feature f, int v, char *buf, size_t size) {
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
                                               "debug/ordered/partitioned"}[v]);
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

void matrix_case_columns(const matrix_case *c, char *platforms, char *backend, char *runtime,
                         size_t size) {
  size_t used = 0;
  platforms[0] = '\0';
  for (int i = 0; i < c->tuple_len && used < size; i++)
    used += (size_t)snprintf(platforms + used, size - used, i ? "+%s" : "%s", c->tuple[i]);
  snprintf(backend, size, "%s", c->pin < 0 ? "-" : matrix_backends[c->pin]);
  used = (size_t)snprintf(runtime, size, "cpu");
  for (int i = 0; i < NUM_OPTIONAL && used < size; i++)
    if (c->runtime & (1u << i))
      used += (size_t)snprintf(runtime + used, size - used, "+%s", optional_backends[i]);
}

/* --- running a case ------------------------------------------------------------- */

/* A case's scenario, built in place from static strings. */
typedef struct case_scenario {
  lsim_scenario s;
  lsim_scenario_backend backends[1 + NUM_OPTIONAL];
  lsim_scenario_arg arg;
  lsim_scenario_eqn eqn;
  lsim_aval result;
  size_t operand;
  lsim_scenario_rule rules[4];
  lsim_scenario_alias alias;
  char platforms[MATRIX_MAX_LEN * 8];
} case_scenario;

static void build_runtime(case_scenario *cs, const matrix_case *c) {
  size_t n = 0;
  cs->backends[n++] = (lsim_scenario_backend){.platform = (char *)"cpu", .devices = 1};
  for (int i = 0; i < NUM_OPTIONAL; i++)
    if (c->runtime & (1u << i))
      cs->backends[n++] = (lsim_scenario_backend){.platform = (char *)optional_backends[i],
                                                  .devices = 1};
  cs->s.runtime = (lsim_scenario_runtime){.present = true, .backends = cs->backends,
                                          .num_backends = n};
}

static void build_rules_eqn(case_scenario *cs, int v) {
  const rule_set *rs = &rule_sets[v];
  lsim_scenario_eqn *e = &cs->eqn;
  e->kind = LSIM_EQN_PRIMITIVE;
  e->name = (char *)"my_op";
  e->backend_access = rs->access;
  size_t n = 0;
  for (int i = 0; i < 3 && rs->platforms[i]; i++)
    cs->rules[n++] = (lsim_scenario_rule){(char *)rs->platforms[i], (char *)rs->targets[i], 0};
  if (rs->has_default)
    cs->rules[n++] = (lsim_scenario_rule){NULL, (char *)"k_default", 0};
  e->rules = cs->rules;
  e->num_rules = n;
}

static void build_python_eqn(case_scenario *cs, int v) {
  static const struct {
    lsim_scenario_eqn_kind kind;
    bool ordered, partitioned;
  } variants[PYTHON_VARIANTS] = {
      {LSIM_EQN_PURE_CALLBACK, false, false},  {LSIM_EQN_IO_CALLBACK, false, false},
      {LSIM_EQN_IO_CALLBACK, true, false},     {LSIM_EQN_DEBUG_CALLBACK, false, false},
      {LSIM_EQN_DEBUG_CALLBACK, true, false},  {LSIM_EQN_DEBUG_CALLBACK, false, true},
      {LSIM_EQN_DEBUG_CALLBACK, true, true},
  };
  lsim_scenario_eqn *e = &cs->eqn;
  e->kind = variants[v].kind;
  e->ordered = variants[v].ordered;
  e->partitioned = variants[v].partitioned;
  if (e->kind == LSIM_EQN_DEBUG_CALLBACK)
    e->num_results = 0;
}

static void build_pallas(case_scenario *cs, int v) {
  lsim_scenario_eqn *e = &cs->eqn;
  int installed = (v >> 2) & 7;
  e->kind = LSIM_EQN_PALLAS_CALL;
  e->kernel = (char *)"add_one";
  e->grid = 2;
  e->interpret = v & 1;
  e->compiler_params = (lsim_compiler_params)(v >> 5);
  cs->s.has_pallas = true;
  cs->s.pallas = (lsim_scenario_pallas){installed & 1, installed & 2, installed & 4, v & 2};
}

static void build_scenario(case_scenario *cs, const matrix_case *c) {
  memset(cs, 0, sizeof *cs);
  size_t used = 0;
  for (int i = 0; i < c->tuple_len; i++)
    used += (size_t)snprintf(cs->platforms + used, sizeof cs->platforms - used,
                             i ? ",%s" : "%s", c->tuple[i]);
  build_runtime(cs, c);
  cs->s.path = (char *)"<matrix>";
  cs->s.function = (char *)"f";
  cs->s.platforms = cs->platforms;
  cs->s.backend = c->pin < 0 ? NULL : (char *)matrix_backends[c->pin];
  cs->arg.aval = (lsim_aval){.dtype = LSIM_DTYPE_F32, .rank = 1, .dims = {8}};
  cs->result = cs->arg.aval;
  cs->s.args = &cs->arg;
  cs->s.num_args = 1;
  lsim_scenario_eqn *e = &cs->eqn;
  e->args = &cs->operand;
  e->num_args = 1;
  e->results = &cs->result;
  e->num_results = 1;
  switch (c->feature) {
  case FEATURE_RULES: build_rules_eqn(cs, c->variant); break;
  case FEATURE_BUFFER_CALLBACK:
    e->kind = LSIM_EQN_BUFFER_CALLBACK;
    e->command_buffer = c->variant & 1;
    cs->alias = (lsim_scenario_alias){0, 0, 0};
    e->aliases = c->variant & 2 ? &cs->alias : NULL;
    e->num_aliases = c->variant & 2 ? 1 : 0;
    break;
  case FEATURE_PYTHON_CALLBACK: build_python_eqn(cs, c->variant); break;
  case FEATURE_PALLAS: build_pallas(cs, c->variant); break;
  default: break;
  }
  cs->s.eqns = e;
  cs->s.num_eqns = 1;
}

static uint64_t fnv1a(const char *s) {
  uint64_t h = 1469598103934665603ull;
  for (; *s; s++)
    h = (h ^ (unsigned char)*s) * 1099511628211ull;
  return h;
}

bool matrix_is_failure(int code) {
  lsim_kind kind = lsim_status_kind(code);
  return kind != LSIM_KIND_OK && kind != LSIM_KIND_JAX_ERROR;
}

matrix_outcome matrix_run_case(lsim_lowerer *lowerer, const matrix_case *c) {
  case_scenario cs;
  build_scenario(&cs, c);
  lsim_error err = LSIM_ERROR_INIT;
  lsim_scenario_outcome out;
  int rc = lsim_scenario_run(lowerer, &cs.s, NULL, &out, &err);
  matrix_outcome o = {.code = rc};
  if (!rc) {
    char *text = lsim_lowering_print(out.lowering);
    if (text)
      o.hash = fnv1a(text);
    else
      o.code = LSIM_E_NO_MEMORY;
    free(text);
  }
  o.failure = matrix_is_failure(o.code);
  lsim_scenario_outcome_clear(&out);
  lsim_error_clear(&err);
  return o;
}
