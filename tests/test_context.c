/* tests/test_context.c: ModuleContext and LoweringRuleContext.
 *
 * get_backend is checked over every lowering-platform tuple of length 1 and 2
 * from {cpu, cuda, rocm, oneapi, tpu, metal, gpu} x every pinned backend
 * (none or each initialized one) x several runtimes, against an oracle
 * written from JAX's xla_bridge.py and mlir.py with its own message texts. */
#include "lowersim/lowering_rule_context.h"
#include "lowersim/module_context.h"
#include "tests/suites.h"

#include <mlir-c/BuiltinTypes.h>

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const lowering_platforms[] = {"cpu", "cuda", "rocm", "oneapi",
                                                 "tpu", "metal", "gpu"};
#define N_LOWERING (sizeof lowering_platforms / sizeof lowering_platforms[0])

typedef struct runtime_spec {
  const char *name;
  const char *jax_platforms;
  struct {
    const char *platform;
    int devices;
    const char *error;
  } factories[6];
} runtime_spec;

static const runtime_spec runtimes[] = {
    {"cpu only", NULL, {{"cpu", 1, NULL}}},
    {"cpu+cuda, tpu fails quietly", NULL,
     {{"cpu", 1, NULL}, {"cuda", 8, NULL}, {"tpu", 1, "no TPU chips found"}}},
    {"rocm+oneapi+tpu+metal", NULL,
     {{"cpu", 1, NULL}, {"rocm", 2, NULL}, {"oneapi", 1, NULL}, {"tpu", 4, NULL},
      {"metal", 1, NULL}}},
    {"JAX_PLATFORMS=tpu,cpu with cuda registered", "tpu,cpu",
     {{"cpu", 1, NULL}, {"cuda", 1, NULL}, {"tpu", 1, NULL}}},
    {"tpu with zero devices (quiet)", NULL, {{"cpu", 1, NULL}, {"tpu", 0, NULL}}},
};

static lsim_runtime *build_runtime(const runtime_spec *spec) {
  lsim_runtime *rt = NULL;
  CU_ASSERT_EQUAL_FATAL(lsim_runtime_create(&rt, NULL), LSIM_OK);
  for (int i = 0; i < 6 && spec->factories[i].platform; i++) {
    lsim_backend_factory f;
    lsim_backend_factory_defaults(&f, spec->factories[i].platform);
    f.device_count = spec->factories[i].devices;
    f.error = spec->factories[i].error;
    CU_ASSERT_EQUAL_FATAL(lsim_runtime_register_backend_factory(rt, &f, NULL), LSIM_OK);
  }
  CU_ASSERT_EQUAL_FATAL(lsim_runtime_set_jax_platforms(rt, spec->jax_platforms, NULL), LSIM_OK);
  CU_ASSERT_EQUAL_FATAL(lsim_runtime_backends(rt, NULL), LSIM_OK);
  return rt;
}

/* --- the oracle ----------------------------------------------------------- */

typedef struct outcome {
  int code;
  const char *backend; /* on success: the platform, or NULL for None */
  char message[512];
} outcome;

static bool has_backend(const lsim_runtime *rt, const char *p) {
  for (size_t i = 0; i < lsim_runtime_backend_count(rt); i++)
    if (strcmp(lsim_runtime_backend_at(rt, i)->platform, p) == 0)
      return true;
  return false;
}

static void available_list(const lsim_runtime *rt, char *out, size_t size, const char *sep,
                           bool quoted) {
  size_t used = (size_t)snprintf(out, size, "%s", quoted ? "[" : "");
  for (size_t i = 0; i < lsim_runtime_backend_count(rt); i++)
    used += (size_t)snprintf(out + used, size - used, quoted ? "%s'%s'" : "%s%s", i ? sep : "",
                             lsim_runtime_backend_at(rt, i)->platform);
  snprintf(out + used, size - used, "%s", quoted ? "]" : "");
}

/* xla_bridge.canonicalize_platform. False with the error in `o` when it raises. */
static bool oracle_canonical(const lsim_runtime *rt, const char *p, const char **out,
                             outcome *o) {
  if (strcmp(p, "gpu") != 0) {
    *out = p;
    return true;
  }
  const char *gpus[] = {"cuda", "rocm", "oneapi"};
  for (int i = 0; i < 3; i++) {
    if (has_backend(rt, gpus[i])) {
      *out = gpus[i];
      return true;
    }
  }
  char present[128];
  available_list(rt, present, sizeof present, ",", false);
  o->code = LSIM_E_UNKNOWN_ALIAS_PLATFORM;
  snprintf(o->message, sizeof o->message,
           "Unknown backend: 'gpu' requested, but no platforms that are instances of gpu are "
           "present. Platforms present are: %s",
           present);
  return false;
}

/* mlir.py ModuleContext.get_backend, after the context was made for platforms. */
static outcome oracle(const lsim_runtime *rt, const char *const *platforms, size_t n,
                      const char *pinned, bool optional) {
  outcome o = {0};
  const char *canonical[2];
  for (size_t i = 0; i < n; i++)
    if (!oracle_canonical(rt, platforms[i], &canonical[i], &o))
      return o;
  if (n > 1) {
    if (!optional) {
      o.code = LSIM_E_MULTI_PLATFORM_BACKEND;
      strcpy(o.message, "accessing .backend in multi-lowering setting. This can occur when "
                        "lowering a primitive that has not been adapted to multi-platform "
                        "lowering");
    }
    return o;
  }
  if (pinned) {
    if (strcmp(pinned, canonical[0]) != 0) {
      if (!optional) {
        o.code = LSIM_E_BACKEND_PLATFORM_MISMATCH;
        snprintf(o.message, sizeof o.message,
                 "the platform for the specified backend %s is different from the lowering "
                 "platform %s",
                 pinned, canonical[0]);
      }
      return o;
    }
    o.backend = pinned;
    return o;
  }
  if (has_backend(rt, canonical[0])) {
    o.backend = canonical[0];
    return o;
  }
  char available[128];
  available_list(rt, available, sizeof available, ", ", true);
  const char *quiet = lsim_runtime_backend_error(rt, canonical[0]);
  if (quiet) {
    o.code = LSIM_E_BACKEND_FAILED;
    snprintf(o.message, sizeof o.message,
             "Backend '%s' failed to initialize: %s. Available backends are %s", canonical[0],
             quiet, available);
  } else {
    o.code = LSIM_E_UNKNOWN_BACKEND;
    snprintf(o.message, sizeof o.message, "Unknown backend %s. Available backends are %s",
             canonical[0], available);
  }
  return o;
}

static int checked;

static void check_case(lsim_runtime *rt, const char *const *platforms, size_t n,
                       const lsim_backend *pinned) {
  lsim_module_context_options mo = LSIM_MODULE_CONTEXT_OPTIONS_INIT(
      .runtime = rt, .platforms = platforms, .num_platforms = n, .backend = pinned);
  for (int optional = 0; optional < 2; optional++) {
    outcome want = oracle(rt, platforms, n, pinned ? pinned->platform : NULL, optional);
    lsim_error err = LSIM_ERROR_INIT;
    lsim_module_context *ctx = NULL;
    int rc = lsim_module_context_create(&mo, &ctx, &err);
    const lsim_backend *got = NULL;
    if (rc == LSIM_OK)
      rc = lsim_module_context_get_backend(ctx, optional, &got, &err);
    bool ok = rc == want.code &&
              (rc ? strcmp(lsim_error_message(&err), want.message) == 0
                  : (got == NULL) == (want.backend == NULL) &&
                        (!got || strcmp(got->platform, want.backend) == 0));
    CU_ASSERT_TRUE(ok);
    if (!ok)
      fprintf(stderr, "\n  platforms[0]=%s n=%zu pinned=%s optional=%d: got %d '%s', want %d '%s'",
              platforms[0], n, pinned ? pinned->platform : "-", optional, rc,
              lsim_error_message(&err), want.code, want.message);
    checked++;
    lsim_error_clear(&err);
    lsim_module_context_destroy(ctx);
  }
}

static void test_get_backend_every_combination(void) {
  checked = 0;
  for (size_t r = 0; r < sizeof runtimes / sizeof runtimes[0]; r++) {
    lsim_runtime *rt = build_runtime(&runtimes[r]);
    size_t n_pins = lsim_runtime_backend_count(rt) + 1;
    for (size_t pin = 0; pin < n_pins; pin++) {
      const lsim_backend *pinned = pin ? lsim_runtime_backend_at(rt, pin - 1) : NULL;
      for (size_t i = 0; i < N_LOWERING; i++) {
        const char *one[] = {lowering_platforms[i]};
        check_case(rt, one, 1, pinned);
        for (size_t j = 0; j < N_LOWERING; j++) {
          if (i == j)
            continue;
          const char *two[] = {lowering_platforms[i], lowering_platforms[j]};
          check_case(rt, two, 2, pinned);
        }
      }
    }
    lsim_runtime_destroy(rt);
  }
  CU_ASSERT_EQUAL(checked, 16 * 49 * 2); /* 16 pins over 5 runtimes */
}

static lsim_module_context *make_context(lsim_runtime **rt, const char *platform) {
  CU_ASSERT_EQUAL_FATAL(lsim_runtime_create_default(rt, NULL), LSIM_OK);
  lsim_module_context_options mo =
      LSIM_MODULE_CONTEXT_OPTIONS_INIT(.runtime = *rt, .platforms = &platform, .num_platforms = 1);
  lsim_module_context *ctx = NULL;
  CU_ASSERT_EQUAL_FATAL(lsim_module_context_create(&mo, &ctx, NULL), LSIM_OK);
  return ctx;
}

static void test_new_channel_limit_and_shared_counter(void) {
  lsim_runtime *rt;
  lsim_module_context *ctx = make_context(&rt, "tpu");
  int64_t id = 0;
  CU_ASSERT_EQUAL(lsim_module_context_new_channel(ctx, &id, NULL), LSIM_OK);
  CU_ASSERT_EQUAL(id, 2);
  /* A copy made with replace shares the counter, as the iterator is shared. */
  const char *cpu = "cpu";
  lsim_module_context_changes changes =
      LSIM_MODULE_CONTEXT_CHANGES_INIT(.platforms = &cpu, .num_platforms = 1);
  lsim_module_context *copy = NULL;
  CU_ASSERT_EQUAL_FATAL(lsim_module_context_replace(ctx, &changes, &copy, NULL), LSIM_OK);
  size_t n;
  CU_ASSERT_STRING_EQUAL(lsim_module_context_platforms(copy, &n)[0], "cpu");
  CU_ASSERT_STRING_EQUAL(lsim_module_context_platforms(ctx, &n)[0], "tpu");
  CU_ASSERT_EQUAL(lsim_module_context_new_channel(copy, &id, NULL), LSIM_OK);
  CU_ASSERT_EQUAL(id, 3);
  bool all_in_order = true;
  for (int64_t want = 4; want <= 65535; want++) {
    int rc = lsim_module_context_new_channel(want % 2 ? ctx : copy, &id, NULL);
    all_in_order = all_in_order && rc == LSIM_OK && id == want;
  }
  CU_ASSERT_TRUE(all_in_order);
  CU_ASSERT_EQUAL(lsim_module_context_channel_count(ctx), 65534);
  lsim_error err = LSIM_ERROR_INIT;
  id = -1;
  CU_ASSERT_EQUAL(lsim_module_context_new_channel(ctx, &id, &err), LSIM_E_TOO_MANY_CHANNELS);
  CU_ASSERT_EQUAL(id, -1);
  CU_ASSERT_STRING_EQUAL(lsim_error_class(&err), "RuntimeError");
  CU_ASSERT_STRING_EQUAL(lsim_error_message(&err),
                         "Host callback lowering created too many channels. PjRt does not "
                         "support more than 65535 channels");
  CU_ASSERT_EQUAL(lsim_module_context_new_channel(copy, &id, &err), LSIM_E_TOO_MANY_CHANNELS);
  lsim_error_clear(&err);
  /* The original outlives the copy, and the other way round. */
  lsim_module_context_destroy(ctx);
  CU_ASSERT_EQUAL(lsim_module_context_channel_count(copy), 65534);
  lsim_module_context_destroy(copy);
  lsim_runtime_destroy(rt);
}

static int calls;
static void count_destroy(void *p) {
  (void)p;
  calls++;
}

static void test_host_callbacks_keepalives_replace(void) {
  lsim_runtime *rt;
  lsim_module_context *ctx = make_context(&rt, "cpu");
  static int tag;
  lsim_host_callback cb = {.user_data = &tag};
  uint64_t index = 99;
  CU_ASSERT_EQUAL(lsim_module_context_add_host_callback(ctx, &cb, "buffer_callback", &index, NULL),
                  LSIM_OK);
  CU_ASSERT_EQUAL(index, 0);
  lsim_module_context *copy = NULL;
  lsim_module_context_changes changes = LSIM_MODULE_CONTEXT_CHANGES_INIT(
      .set_backend = true, .backend = lsim_runtime_backend_at(rt, 0));
  CU_ASSERT_EQUAL_FATAL(lsim_module_context_replace(ctx, &changes, &copy, NULL), LSIM_OK);
  CU_ASSERT_PTR_EQUAL(lsim_module_context_pinned_backend(copy), lsim_runtime_backend_at(rt, 0));
  /* replace keeps the profile; a context made without one has the newest. */
  CU_ASSERT_PTR_EQUAL(lsim_module_context_profile(copy), lsim_jax_profile_default());
  CU_ASSERT_PTR_NULL(lsim_module_context_pinned_backend(ctx));
  for (uint64_t want = 1; want < 40; want++) {
    CU_ASSERT_EQUAL(lsim_module_context_add_host_callback(want % 2 ? copy : ctx, &cb, NULL, &index, NULL),
                    LSIM_OK);
    CU_ASSERT_EQUAL(index, want);
  }
  CU_ASSERT_EQUAL(lsim_module_context_host_callback_count(ctx), 40);
  CU_ASSERT_PTR_EQUAL(lsim_module_context_host_callback_at(copy, 39)->user_data, &tag);
  CU_ASSERT_PTR_NULL(lsim_module_context_host_callback_at(copy, 39)->fn);
  CU_ASSERT_PTR_NULL(lsim_module_context_host_callback_at(copy, 40));
  CU_ASSERT_TRUE(mlirOperationEqual(mlirModuleGetOperation(lsim_module_context_module(ctx)),
                                    mlirModuleGetOperation(lsim_module_context_module(copy))));
  calls = 0;
  CU_ASSERT_EQUAL(lsim_module_context_add_keepalive(copy, NULL, count_destroy, NULL), LSIM_OK);
  lsim_module_context_destroy(copy);
  CU_ASSERT_EQUAL(calls, 0);
  lsim_module_context_destroy(ctx);
  CU_ASSERT_EQUAL(calls, 1);
  lsim_runtime_destroy(rt);
}

static char printed[256];
static void print_to_buffer(MlirStringRef s, void *user_data) {
  size_t *used = user_data;
  size_t n = s.length < sizeof printed - 1 - *used ? s.length : sizeof printed - 1 - *used;
  memcpy(printed + *used, s.data, n);
  *used += n;
  printed[*used] = '\0';
}

static const char *type_text(MlirType t) {
  size_t used = 0;
  mlirTypePrint(t, print_to_buffer, &used);
  return printed;
}

/* The cache is keyed by aval: a repeated aval is a hit (the cache does not
 * grow), and every entry survives the table growing several times.  (The
 * types themselves are uniqued by MLIR, so comparing them would prove
 * nothing.) */
static void test_aval_to_ir_type_cached(void) {
  lsim_runtime *rt;
  lsim_module_context *ctx = make_context(&rt, "cpu");
  struct {
    lsim_dtype dtype;
    const char *shape;
    const char *text;
  } cases[] = {{LSIM_DTYPE_F32, "4", "tensor<4xf32>"},     {LSIM_DTYPE_BOOL, "", "tensor<i1>"},
               {LSIM_DTYPE_U32, "4", "tensor<4xui32>"},    {LSIM_DTYPE_I32, "2,3", "tensor<2x3xi32>"},
               {LSIM_DTYPE_BF16, "1", "tensor<1xbf16>"},   {LSIM_DTYPE_U8, "0", "tensor<0xui8>"},
               {LSIM_DTYPE_F64, "", "tensor<f64>"},        {LSIM_DTYPE_I64, "7", "tensor<7xi64>"}};
  size_t n = sizeof cases / sizeof cases[0];
  lsim_aval avals[sizeof cases / sizeof cases[0]];
  for (size_t i = 0; i < n; i++) {
    avals[i] = (lsim_aval){.dtype = cases[i].dtype};
    CU_ASSERT_EQUAL_FATAL(lsim_aval_parse_shape(&avals[i], cases[i].shape, NULL), LSIM_OK);
    CU_ASSERT_STRING_EQUAL(type_text(lsim_module_context_aval_to_ir_type(ctx, &avals[i])),
                           cases[i].text);
    CU_ASSERT_EQUAL(lsim_module_context_type_cache_size(ctx), i + 1);
    lsim_module_context_aval_to_ir_type(ctx, &avals[i]);
    CU_ASSERT_EQUAL(lsim_module_context_type_cache_size(ctx), i + 1); /* a hit */
  }
  /* Enough distinct avals to grow the table several times. */
  for (int64_t d = 1; d <= 200; d++) {
    lsim_aval a;
    lsim_aval_make(&a, LSIM_DTYPE_F32, 1, &d, NULL);
    lsim_module_context_aval_to_ir_type(ctx, &a);
  }
  CU_ASSERT_EQUAL(lsim_module_context_type_cache_size(ctx), n + 199);
  /* After the growth every first aval is still found (a miss would add it
   * again) and still maps to its own type. */
  for (size_t i = 0; i < n; i++)
    CU_ASSERT_STRING_EQUAL(type_text(lsim_module_context_aval_to_ir_type(ctx, &avals[i])),
                           cases[i].text);
  CU_ASSERT_EQUAL(lsim_module_context_type_cache_size(ctx), n + 199);
  lsim_module_context_destroy(ctx);
  lsim_runtime_destroy(rt);
}

static void test_rule_context_platforms_override(void) {
  lsim_runtime *rt = NULL;
  CU_ASSERT_EQUAL_FATAL(lsim_runtime_create_default(&rt, NULL), LSIM_OK);
  const char *platforms[] = {"cpu", "tpu", "cuda"};
  lsim_module_context_options mo =
      LSIM_MODULE_CONTEXT_OPTIONS_INIT(.runtime = rt, .platforms = platforms, .num_platforms = 3);
  lsim_module_context *ctx = NULL;
  CU_ASSERT_EQUAL_FATAL(lsim_module_context_create(&mo, &ctx, NULL), LSIM_OK);
  static const lsim_primitive sine = {.name = "sine"};
  lsim_lowering_rule_context rc =
      lsim_lowering_rule_context_make(ctx, &sine, lsim_module_context_insertion_point(ctx));
  size_t n;
  const char *const *eff = lsim_lowering_rule_context_platforms(&rc, &n);
  CU_ASSERT_EQUAL(n, 3);
  CU_ASSERT_STRING_EQUAL(eff[1], "tpu");
  const char *branch[] = {"tpu", "cuda"};
  lsim_lowering_rule_context inner = lsim_lowering_rule_context_with_platforms(&rc, branch, 2);
  eff = lsim_lowering_rule_context_platforms(&inner, &n);
  CU_ASSERT_EQUAL(n, 2);
  CU_ASSERT_STRING_EQUAL(eff[0], "tpu");
  CU_ASSERT_PTR_EQUAL(inner.primitive, &sine);
  /* The original is unchanged. */
  CU_ASSERT_EQUAL(rc.num_platforms, 0);
  lsim_module_context_destroy(ctx);
  lsim_runtime_destroy(rt);
}

static void test_bad_input(void) {
  lsim_runtime *rt = NULL;
  CU_ASSERT_EQUAL_FATAL(lsim_runtime_create_default(&rt, NULL), LSIM_OK);
  lsim_error err = LSIM_ERROR_INIT;
  lsim_module_context *ctx = NULL;
  lsim_module_context_options mo = LSIM_MODULE_CONTEXT_OPTIONS_INIT(.runtime = rt);
  CU_ASSERT_EQUAL(lsim_module_context_create(&mo, &ctx, &err), LSIM_E_INVALID_ARGUMENT);
  CU_ASSERT_STRING_EQUAL(lsim_error_message(&err), "a module context needs at least one platform");
  CU_ASSERT_EQUAL(lsim_module_context_create(NULL, &ctx, &err), LSIM_E_INVALID_ARGUMENT);
  const char *bad[] = {"cpu", ""};
  mo.platforms = bad;
  mo.num_platforms = 2;
  CU_ASSERT_EQUAL(lsim_module_context_create(&mo, &ctx, &err), LSIM_E_INVALID_ARGUMENT);
  const char *null_name[] = {NULL};
  mo.platforms = null_name;
  mo.num_platforms = 1;
  CU_ASSERT_EQUAL(lsim_module_context_create(&mo, &ctx, &err), LSIM_E_INVALID_ARGUMENT);
  CU_ASSERT_PTR_NULL(ctx);
  const lsim_backend *b;
  int64_t id;
  uint64_t index;
  CU_ASSERT_EQUAL(lsim_module_context_get_backend(NULL, false, &b, &err), LSIM_E_INVALID_ARGUMENT);
  CU_ASSERT_EQUAL(lsim_module_context_new_channel(NULL, &id, &err), LSIM_E_INVALID_ARGUMENT);
  CU_ASSERT_EQUAL(lsim_module_context_add_host_callback(NULL, NULL, NULL, &index, &err),
                  LSIM_E_INVALID_ARGUMENT);
  CU_ASSERT_EQUAL(lsim_module_context_replace(NULL, NULL, &ctx, &err), LSIM_E_INVALID_ARGUMENT);
  /* Options not made with their INIT macro, or from a newer lowersim. */
  const char *cpu = "cpu";
  lsim_module_context_options unsized = {.runtime = rt, .platforms = &cpu, .num_platforms = 1};
  CU_ASSERT_EQUAL(lsim_module_context_create(&unsized, &ctx, &err), LSIM_E_INVALID_ARGUMENT);
  unsized.struct_size = sizeof unsized + 8;
  CU_ASSERT_EQUAL(lsim_module_context_create(&unsized, &ctx, &err), LSIM_E_INVALID_ARGUMENT);
  CU_ASSERT_PTR_NULL(ctx);
  /* One built against an older, smaller struct gets the defaults for the rest. */
  unsized.struct_size = offsetof(lsim_module_context_options, backend);
  unsized.backend = lsim_runtime_default_backend(rt);
  CU_ASSERT_EQUAL_FATAL(lsim_module_context_create(&unsized, &ctx, &err), LSIM_OK);
  CU_ASSERT_PTR_NULL(lsim_module_context_pinned_backend(ctx));
  lsim_module_context_destroy(ctx);
  lsim_module_context_destroy(NULL);
  lsim_error_clear(&err);
  lsim_runtime_destroy(rt);
}

/* The profile table: lookup by name, alias and commit, and the facts. */
static void test_jax_profiles(void) {
  const lsim_jax_profile *releases[] = {&lsim_jax_0_10_2, &lsim_jax_0_11_0, &lsim_jax_0_11_1,
                                        &lsim_jax_0_11_2, &lsim_jax_0_12_0_1};
  CU_ASSERT_EQUAL_FATAL(lsim_jax_profile_count(), 5);
  for (size_t i = 0; i < 5; i++) {
    CU_ASSERT_PTR_EQUAL(lsim_jax_profile_at(i), releases[i]);
    CU_ASSERT_PTR_EQUAL(lsim_jax_profile_find(releases[i]->name), releases[i]);
    CU_ASSERT_PTR_EQUAL(lsim_jax_profile_find(releases[i]->commit), releases[i]);
  }
  CU_ASSERT_PTR_NULL(lsim_jax_profile_at(5));
  CU_ASSERT_PTR_EQUAL(lsim_jax_profile_find("0.12.0"), &lsim_jax_0_12_0_1); /* the alias */
  CU_ASSERT_PTR_EQUAL(lsim_jax_profile_find("8dcb7aeced770bd2"), &lsim_jax_0_12_0_1);
  CU_ASSERT_EQUAL(lsim_jax_alias_count(), 1);
  CU_ASSERT_PTR_NULL(lsim_jax_alias_at(1));
  CU_ASSERT_PTR_EQUAL(lsim_jax_profile_find("990e6a0"), &lsim_jax_0_10_2);
  CU_ASSERT_PTR_EQUAL(lsim_jax_profile_find("990e6a0b841383"), &lsim_jax_0_10_2); /* > 10 digits */
  CU_ASSERT_PTR_NULL(lsim_jax_profile_find("990e6a")); /* fewer than 7 digits */
  CU_ASSERT_PTR_NULL(lsim_jax_profile_find("990e6a0b85"));
  CU_ASSERT_PTR_NULL(lsim_jax_profile_find("0.10"));
  CU_ASSERT_PTR_NULL(lsim_jax_profile_find("0.11.1.dev20260827+1e1c6a8fc0")); /* no longer modelled */
  CU_ASSERT_PTR_NULL(lsim_jax_profile_find(NULL));
  CU_ASSERT_PTR_EQUAL(lsim_jax_profile_default(), &lsim_jax_0_12_0_1);
  char names[128];
  size_t n = lsim_jax_profile_names(names, sizeof names);
  CU_ASSERT_STRING_EQUAL(names, "0.10.2, 0.11.0, 0.11.1, 0.11.2, 0.12.0.1");
  CU_ASSERT_EQUAL(n, strlen(names));
  char tiny[5];
  CU_ASSERT_EQUAL(lsim_jax_profile_names(tiny, sizeof tiny), n);
  CU_ASSERT_STRING_EQUAL(tiny, "0.10");
  /* Every fact row points at a field of the type it says and has a meaning
   * and a JAX location.  Between two consecutive columns a row differs
   * exactly when the newer column has a change of it; each change names a
   * fact and a release of the table, at most once. */
  for (size_t i = 0; i < lsim_jax_fact_count(); i++) {
    const lsim_jax_fact *f = lsim_jax_fact_at(i);
    CU_ASSERT_PTR_EQUAL(lsim_jax_fact_find(f->name), f);
    CU_ASSERT(*f->meaning && *f->jax_code);
    CU_ASSERT_PTR_NULL(lsim_jax_change_find(f, releases[0]));
    for (size_t r = 1; r < 5; r++) {
      bool differ = !lsim_jax_fact_equal(f, releases[r - 1], releases[r]);
      const lsim_jax_change *ch = lsim_jax_change_find(f, releases[r]);
      if (differ != (ch != NULL))
        fprintf(stderr, "\n  %s at %s: %s but %s change\n", f->name, releases[r]->name,
                differ ? "differs" : "the same", ch ? "a" : "no");
      CU_ASSERT_EQUAL(differ, ch != NULL);
    }
    char *text = lsim_jax_fact_format(f, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(text);
    free(text);
  }
  size_t last = 0; /* the changes come oldest first */
  for (size_t i = 0; i < lsim_jax_change_count(); i++) {
    const lsim_jax_change *ch = lsim_jax_change_at(i);
    const lsim_jax_fact *f = lsim_jax_fact_find(ch->fact);
    const lsim_jax_profile *at = lsim_jax_profile_find(ch->release);
    size_t r = 0;
    while (r < 5 && releases[r] != at)
      r++;
    CU_ASSERT(r < 5 && r >= last);
    last = r;
    CU_ASSERT_PTR_NOT_NULL(f);
    CU_ASSERT(at && strcmp(at->name, ch->release) == 0);
    CU_ASSERT(f && at && lsim_jax_change_find(f, at) == ch);
    CU_ASSERT(*ch->by);
  }
  CU_ASSERT_PTR_NULL(lsim_jax_change_at(lsim_jax_change_count()));
  CU_ASSERT_PTR_NULL(lsim_jax_fact_at(lsim_jax_fact_count()));
  const lsim_jax_fact *py = lsim_jax_fact_find("environment.python_requires");
  char *a = lsim_jax_fact_format(py, &lsim_jax_0_10_2);
  CU_ASSERT_STRING_EQUAL(a, "'>=3.11'");
  free(a);
  const lsim_jax_strings *stable = lsim_jax_fact_value(
      lsim_jax_fact_find("export.stable_custom_call_targets"), &lsim_jax_0_10_2);
  CU_ASSERT_EQUAL(stable->count, 88);
  CU_ASSERT(lsim_jax_strings_contain(stable, "tpu_custom_call"));
  CU_ASSERT(lsim_jax_strings_contain(stable, "mosaic_gpu_v2"));
  CU_ASSERT(!lsim_jax_strings_contain(stable, "__gpu$xla.gpu.triton"));
  CU_ASSERT(!lsim_jax_strings_contain(stable, "xla_ffi_python_cpu_callback"));
}

/* explain's links: the def lines of the generated table at each profile's
 * source_ref (tools/gen_jax_source.py read them in JAX's source). */
static void test_jax_source_links(void) {
  const char *mlir = "jax/_src/interpreters/mlir.py";
  CU_ASSERT_STRING_EQUAL(lsim_jax_0_10_2.source_ref, "jax-v0.10.2");
  CU_ASSERT_EQUAL(lsim_jax_source_line(&lsim_jax_0_10_2, mlir, "lower_per_platform"), 2462);
  CU_ASSERT_EQUAL(lsim_jax_source_line(&lsim_jax_0_11_1, mlir, "lower_per_platform"), 2516);
  CU_ASSERT_EQUAL(lsim_jax_source_line(NULL, mlir, "ModuleContext.new_channel"), 959);
  CU_ASSERT_EQUAL(lsim_jax_source_line(&lsim_jax_0_10_2, mlir, "no_such_function"), 0);
  CU_ASSERT_EQUAL(lsim_jax_source_line(&lsim_jax_0_10_2, NULL, "lower_per_platform"), 0);
  char url[160];
  int n = lsim_jax_source_url(&lsim_jax_0_10_2, mlir, "lower_jaxpr_to_module", url, sizeof url);
  CU_ASSERT_STRING_EQUAL(url, "https://github.com/jax-ml/jax/blob/jax-v0.10.2/"
                              "jax/_src/interpreters/mlir.py#L1287");
  CU_ASSERT_EQUAL((size_t)n, strlen(url));
  lsim_jax_source_url(&lsim_jax_0_12_0_1, mlir, "nothing", url, sizeof url);
  CU_ASSERT_STRING_EQUAL(url, "https://github.com/jax-ml/jax/blob/jax-v0.12.0.1/"
                              "jax/_src/interpreters/mlir.py");
  char tiny[8];
  CU_ASSERT_EQUAL(lsim_jax_source_url(NULL, mlir, "jaxpr_subcomp", tiny, sizeof tiny),
                  (int)strlen("https://github.com/jax-ml/jax/blob/jax-v0.12.0.1/"
                              "jax/_src/interpreters/mlir.py#L2217"));
  CU_ASSERT_STRING_EQUAL(tiny, "https:/");
}

static CU_TestInfo tests[] = {
    {"JAX profiles and their facts", test_jax_profiles},
    {"explain's links to the JAX source", test_jax_source_links},
    {"get_backend, every combination", test_get_backend_every_combination},
    {"new_channel limit and shared counter", test_new_channel_limit_and_shared_counter},
    {"host callbacks, keepalives, replace", test_host_callbacks_keepalives_replace},
    {"aval to IR type, cached", test_aval_to_ir_type_cached},
    {"rule context platforms override", test_rule_context_platforms_override},
    {"bad input", test_bad_input},
    CU_TEST_INFO_NULL,
};

CU_SuiteInfo context_suite[] = {{"context", NULL, NULL, NULL, NULL, tests}, CU_SUITE_INFO_NULL};
