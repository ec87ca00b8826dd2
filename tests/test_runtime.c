/* tests/test_runtime.c: platforms, aliases and the simulated runtime
 * (xla_bridge): canonicalization, JAX_PLATFORMS, initialization errors, the
 * default backend, get_backend, bad input. */
#include "lowersim/runtime.h"
#include "tests/suites.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>

static lsim_runtime *make(const char *const *platforms, size_t n) {
  lsim_runtime *rt = NULL;
  CU_ASSERT_EQUAL_FATAL(lsim_runtime_create(&rt, NULL), LSIM_OK);
  for (size_t i = 0; i < n; i++) {
    lsim_backend_factory f;
    lsim_backend_factory_defaults(&f, platforms[i]);
    CU_ASSERT_EQUAL_FATAL(lsim_runtime_register_backend_factory(rt, &f, NULL), LSIM_OK);
  }
  return rt;
}

static void add(lsim_runtime *rt, const char *platform, int devices, const char *error) {
  lsim_backend_factory f;
  lsim_backend_factory_defaults(&f, platform);
  f.device_count = devices;
  f.error = error;
  CU_ASSERT_EQUAL_FATAL(lsim_runtime_register_backend_factory(rt, &f, NULL), LSIM_OK);
}

static void test_expand_platform_alias(void) {
  const char *const *out;
  size_t n;
  lsim_expand_platform_alias("gpu", &out, &n);
  CU_ASSERT_EQUAL_FATAL(n, 3);
  CU_ASSERT_STRING_EQUAL(out[0], "cuda");
  CU_ASSERT_STRING_EQUAL(out[1], "rocm");
  CU_ASSERT_STRING_EQUAL(out[2], "oneapi");
  lsim_expand_platform_alias("tpu", &out, &n);
  CU_ASSERT_EQUAL(n, 1);
  CU_ASSERT_PTR_NULL(out);
}

static void test_builtin_platforms(void) {
  size_t n;
  const char *const *p = lsim_builtin_platforms(&n);
  const char *want[] = {"cpu", "cuda", "rocm", "oneapi", "tpu"};
  CU_ASSERT_EQUAL_FATAL(n, 5);
  for (size_t i = 0; i < n; i++)
    CU_ASSERT_STRING_EQUAL(p[i], want[i]);
}

static void test_known_platforms(void) {
  const char *cpu[] = {"cpu"};
  lsim_runtime *rt = make(cpu, 1);
  const char *const *known;
  size_t n;
  CU_ASSERT_EQUAL_FATAL(lsim_runtime_known_platforms(rt, &known, &n, NULL), LSIM_OK);
  const char *expected[] = {"cpu", "cuda", "gpu", "oneapi", "rocm", "tpu"};
  CU_ASSERT_EQUAL_FATAL(n, 6);
  for (size_t i = 0; i < n; i++)
    CU_ASSERT_STRING_EQUAL(known[i], expected[i]);
  CU_ASSERT_FALSE(lsim_runtime_is_known_platform(rt, "metal"));
  add(rt, "metal", 1, NULL);
  CU_ASSERT_TRUE(lsim_runtime_is_known_platform(rt, "metal"));
  CU_ASSERT_EQUAL_FATAL(lsim_runtime_known_platforms(rt, &known, &n, NULL), LSIM_OK);
  CU_ASSERT_EQUAL(n, 7);
  CU_ASSERT_STRING_EQUAL(known[3], "metal");
  lsim_runtime_destroy(rt);
}

/* Two threads asking a const runtime for its known platforms at once get
 * one and the same list (issue 11: the list was a cache written through the
 * const pointer, so each thread could make its own and one leaked). */
typedef struct known_reader {
  const lsim_runtime *rt;
  pthread_barrier_t *start;
  const char *const *list;
  int rc;
} known_reader;

static void *read_known(void *arg) {
  known_reader *r = arg;
  size_t n;
  pthread_barrier_wait(r->start);
  r->rc = lsim_runtime_known_platforms(r->rt, &r->list, &n, NULL);
  return NULL;
}

static void test_known_platforms_two_threads(void) {
  int different = 0;
  for (int round = 0; round < 100; round++) {
    lsim_runtime *rt = make(NULL, 0);
    char name[32];
    for (int i = 0; i < 2000; i++) { /* a list that takes a while to make */
      snprintf(name, sizeof name, "plugin%d", (i * 7919) % 2000);
      add(rt, name, 1, NULL);
    }
    pthread_barrier_t start;
    pthread_barrier_init(&start, NULL, 2);
    known_reader a = {rt, &start, NULL, -1}, b = {rt, &start, NULL, -1};
    pthread_t ta, tb;
    CU_ASSERT_EQUAL_FATAL(pthread_create(&ta, NULL, read_known, &a), 0);
    CU_ASSERT_EQUAL_FATAL(pthread_create(&tb, NULL, read_known, &b), 0);
    pthread_join(ta, NULL);
    pthread_join(tb, NULL);
    pthread_barrier_destroy(&start);
    CU_ASSERT_EQUAL(a.rc, LSIM_OK);
    CU_ASSERT_EQUAL(b.rc, LSIM_OK);
    different += a.list != b.list;
    lsim_runtime_destroy(rt);
  }
  CU_ASSERT_EQUAL(different, 0);
}

/* is_known_platform is a table lookup: many plugins cost no more per
 * question than a few (and a platform registered twice is known once). */
static void test_many_known_platforms(void) {
  lsim_runtime *rt = make(NULL, 0);
  char name[32];
  for (int i = 0; i < 5000; i++) {
    snprintf(name, sizeof name, "plugin%d", i);
    add(rt, name, 1, NULL);
    add(rt, name, 2, NULL);
  }
  const char *const *known;
  size_t n;
  CU_ASSERT_EQUAL_FATAL(lsim_runtime_known_platforms(rt, &known, &n, NULL), LSIM_OK);
  CU_ASSERT_EQUAL(n, 5000 + 6);
  for (size_t i = 1; i < n; i++)
    CU_ASSERT_TRUE(strcmp(known[i - 1], known[i]) < 0);
  CU_ASSERT_TRUE(lsim_runtime_is_known_platform(rt, "plugin4999"));
  CU_ASSERT_TRUE(lsim_runtime_is_known_platform(rt, "gpu"));
  CU_ASSERT_FALSE(lsim_runtime_is_known_platform(rt, "plugin5000"));
  CU_ASSERT_EQUAL_FATAL(lsim_runtime_backends(rt, NULL), LSIM_OK);
  CU_ASSERT_EQUAL(lsim_runtime_backend_count(rt), 5000);
  const lsim_backend *b = NULL;
  CU_ASSERT_EQUAL_FATAL(lsim_runtime_get_backend(rt, "plugin123", &b, NULL), LSIM_OK);
  CU_ASSERT_STRING_EQUAL(b->platform, "plugin123");
  CU_ASSERT_EQUAL(b->device_count, 2);
  lsim_runtime_destroy(rt);
  /* Quiet failures are looked up by platform too. */
  rt = make(NULL, 0);
  add(rt, "cpu", 1, NULL);
  for (int i = 0; i < 5000; i++) {
    snprintf(name, sizeof name, "quiet%d", i);
    lsim_backend_factory f;
    lsim_backend_factory_defaults(&f, name);
    f.error = i % 2 ? "odd" : "even";
    f.fail_quietly = true;
    CU_ASSERT_EQUAL_FATAL(lsim_runtime_register_backend_factory(rt, &f, NULL), LSIM_OK);
  }
  CU_ASSERT_EQUAL_FATAL(lsim_runtime_backends(rt, NULL), LSIM_OK);
  CU_ASSERT_STRING_EQUAL(lsim_runtime_backend_error(rt, "quiet4321"), "odd");
  CU_ASSERT_STRING_EQUAL(lsim_runtime_backend_error(rt, "quiet0"), "even");
  CU_ASSERT_PTR_NULL(lsim_runtime_backend_error(rt, "cpu"));
  lsim_runtime_destroy(rt);
}

/* canonicalize_platform("gpu") under every subset of {cuda, rocm, oneapi}. */
static void test_canonicalize_gpu_each_subset(void) {
  const char *gpus[] = {"cuda", "rocm", "oneapi"};
  for (int mask = 0; mask < 8; mask++) {
    lsim_runtime *rt = make((const char *[]){"cpu"}, 1);
    char present[64] = "cpu";
    for (int i = 0; i < 3; i++) {
      if (mask & (1 << i)) {
        add(rt, gpus[i], 1, NULL);
        strcat(present, ",");
        strcat(present, gpus[i]);
      }
    }
    const char *out = NULL;
    lsim_error err = LSIM_ERROR_INIT;
    int rc = lsim_runtime_canonicalize_platform(rt, "gpu", &out, &err);
    if (mask == 0) {
      CU_ASSERT_EQUAL(rc, LSIM_E_UNKNOWN_ALIAS_PLATFORM);
      CU_ASSERT_STRING_EQUAL(lsim_error_message(&err),
                             "Unknown backend: 'gpu' requested, but no platforms that are "
                             "instances of gpu are present. Platforms present are: cpu");
    } else {
      const char *first = gpus[mask & 1 ? 0 : mask & 2 ? 1 : 2];
      CU_ASSERT_EQUAL(rc, LSIM_OK);
      CU_ASSERT_STRING_EQUAL(out, first);
    }
    /* A non-alias is returned unchanged, whatever is present. */
    CU_ASSERT_EQUAL(lsim_runtime_canonicalize_platform(rt, "tpu", &out, NULL), LSIM_OK);
    CU_ASSERT_STRING_EQUAL(out, "tpu");
    lsim_error_clear(&err);
    lsim_runtime_destroy(rt);
  }
}

static void test_default_backend_by_priority(void) {
  lsim_runtime *rt = make((const char *[]){"cpu", "tpu", "cuda", "metal"}, 4);
  CU_ASSERT_EQUAL_FATAL(lsim_runtime_backends(rt, NULL), LSIM_OK);
  CU_ASSERT_EQUAL(lsim_runtime_backend_count(rt), 4);
  CU_ASSERT_STRING_EQUAL(lsim_runtime_default_backend(rt)->platform, "cuda");
  CU_ASSERT_EQUAL(lsim_runtime_backend_at(rt, 1)->priority, 300);
  /* metal is an experimental plugin: one warning. */
  CU_ASSERT_EQUAL_FATAL(lsim_runtime_warning_count(rt), 1);
  CU_ASSERT_STRING_EQUAL(lsim_runtime_warning_at(rt, 0),
                         "Platform 'metal' is experimental and not all JAX functionality may be "
                         "correctly supported!");
  lsim_runtime_destroy(rt);

  /* Ties go to the first initialized. */
  rt = make((const char *[]){"cuda", "rocm"}, 2);
  CU_ASSERT_EQUAL_FATAL(lsim_runtime_backends(rt, NULL), LSIM_OK);
  CU_ASSERT_STRING_EQUAL(lsim_runtime_default_backend(rt)->platform, "cuda");
  CU_ASSERT_EQUAL(lsim_runtime_warning_count(rt), 0);
  lsim_runtime_destroy(rt);
}

static void test_jax_platforms_order_aliases_and_priorities(void) {
  lsim_runtime *rt = make((const char *[]){"cpu", "cuda", "rocm", "oneapi", "tpu"}, 5);
  CU_ASSERT_EQUAL_FATAL(lsim_runtime_set_jax_platforms(rt, "cpu,gpu", NULL), LSIM_OK);
  CU_ASSERT_EQUAL_FATAL(lsim_runtime_backends(rt, NULL), LSIM_OK);
  const char *order[] = {"cpu", "cuda", "rocm", "oneapi"};
  CU_ASSERT_EQUAL_FATAL(lsim_runtime_backend_count(rt), 4);
  for (size_t i = 0; i < 4; i++) {
    CU_ASSERT_STRING_EQUAL(lsim_runtime_backend_at(rt, i)->platform, order[i]);
    CU_ASSERT_EQUAL(lsim_runtime_backend_at(rt, i)->priority, (int)(4 - i));
  }
  /* The first listed wins, whatever the factories' own priorities. */
  CU_ASSERT_STRING_EQUAL(lsim_runtime_default_backend(rt)->platform, "cpu");
  /* oneapi is an experimental plugin. */
  CU_ASSERT_EQUAL(lsim_runtime_warning_count(rt), 1);
  /* tpu was not initialized and did not fail: unknown. */
  const lsim_backend *b;
  lsim_error err = LSIM_ERROR_INIT;
  CU_ASSERT_EQUAL(lsim_runtime_get_backend(rt, "tpu", &b, &err), LSIM_E_UNKNOWN_BACKEND);
  CU_ASSERT_STRING_EQUAL(lsim_error_message(&err),
                         "Unknown backend tpu. Available backends are ['cpu', 'cuda', 'rocm', "
                         "'oneapi']");
  /* No change once initialized. */
  CU_ASSERT_EQUAL(lsim_runtime_set_jax_platforms(rt, "cpu", &err), LSIM_E_INVALID_ARGUMENT);
  lsim_error_clear(&err);
  lsim_runtime_destroy(rt);
}

static void test_jax_platforms_duplicates_as_jax(void) {
  /* JAX initializes a repeated platform again; it keeps its first place and
   * the first (higher) priority keeps the default. */
  lsim_runtime *rt = make((const char *[]){"cpu", "cuda"}, 2);
  CU_ASSERT_EQUAL_FATAL(lsim_runtime_set_jax_platforms(rt, "cuda,cpu,cuda", NULL), LSIM_OK);
  CU_ASSERT_EQUAL_FATAL(lsim_runtime_backends(rt, NULL), LSIM_OK);
  CU_ASSERT_EQUAL(lsim_runtime_backend_count(rt), 2);
  CU_ASSERT_STRING_EQUAL(lsim_runtime_backend_at(rt, 0)->platform, "cuda");
  CU_ASSERT_STRING_EQUAL(lsim_runtime_default_backend(rt)->platform, "cuda");
  lsim_runtime_destroy(rt);
}

static void expect_init_error(lsim_runtime *rt, const char *message) {
  lsim_error err = LSIM_ERROR_INIT;
  CU_ASSERT_EQUAL(lsim_runtime_backends(rt, &err), LSIM_E_BACKEND_INIT);
  CU_ASSERT_STRING_EQUAL(lsim_error_message(&err), message);
  if (strcmp(lsim_error_message(&err), message) != 0)
    fprintf(stderr, "\n  got: %s\n  want: %s\n", lsim_error_message(&err), message);
  lsim_error_clear(&err);
}

static void test_initialization_errors(void) {
  /* A JAX_PLATFORMS item with no factory. */
  lsim_runtime *rt = make((const char *[]){"cpu", "tpu"}, 2);
  lsim_runtime_set_jax_platforms(rt, "cpu,metal", NULL);
  expect_init_error(rt, "Unable to initialize backend 'metal': Backend 'metal' is not in the "
                        "list of known backends: ['cpu', 'tpu']. (set JAX_PLATFORMS='' to "
                        "automatically choose an available backend)");
  /* As in JAX, the backends that came up before the failure stay. */
  CU_ASSERT_EQUAL(lsim_runtime_backends(rt, NULL), LSIM_OK);
  CU_ASSERT_EQUAL(lsim_runtime_backend_count(rt), 1);
  lsim_runtime_destroy(rt);

  /* A loud factory failing without JAX_PLATFORMS. */
  rt = make((const char *[]){"cpu"}, 1);
  add(rt, "cuda", 1, "no CUDA-capable device is detected");
  expect_init_error(rt, "Unable to initialize backend 'cuda': no CUDA-capable device is "
                        "detected (you may need to uninstall the failing plugin package, or set "
                        "JAX_PLATFORMS=cpu to skip this backend.)");
  lsim_runtime_destroy(rt);

  /* Zero devices, loud. */
  rt = make((const char *[]){"cpu"}, 1);
  add(rt, "rocm", 0, NULL);
  expect_init_error(rt, "Unable to initialize backend 'rocm': Backend 'rocm' provides no "
                        "devices. (you may need to uninstall the failing plugin package, or set "
                        "JAX_PLATFORMS=cpu to skip this backend.)");
  lsim_runtime_destroy(rt);

  /* A quiet factory becomes loud when JAX_PLATFORMS names it. */
  rt = make((const char *[]){"cpu"}, 1);
  add(rt, "tpu", 1, "no TPU chips found");
  lsim_runtime_set_jax_platforms(rt, "tpu", NULL);
  expect_init_error(rt, "Unable to initialize backend 'tpu': no TPU chips found (set "
                        "JAX_PLATFORMS='' to automatically choose an available backend)");
  /* Nothing came up: the next call tries (and fails) again. */
  expect_init_error(rt, "Unable to initialize backend 'tpu': no TPU chips found (set "
                        "JAX_PLATFORMS='' to automatically choose an available backend)");
  lsim_runtime_destroy(rt);
}

static void test_quiet_failures_and_get_backend(void) {
  lsim_runtime *rt = make((const char *[]){"cpu"}, 1);
  add(rt, "tpu", 1, "no TPU chips found");
  add(rt, "tpu", 0, NULL); /* re-registration replaces: zero devices, quiet */
  const lsim_backend *b = NULL;
  lsim_error err = LSIM_ERROR_INIT;
  CU_ASSERT_EQUAL(lsim_runtime_get_backend(rt, "tpu", &b, &err), LSIM_E_BACKEND_FAILED);
  CU_ASSERT_STRING_EQUAL(lsim_error_message(&err),
                         "Backend 'tpu' failed to initialize: Backend 'tpu' provides no "
                         "devices.. Available backends are ['cpu']");
  CU_ASSERT_EQUAL(lsim_runtime_get_backend(rt, "cuda", &b, &err), LSIM_E_UNKNOWN_BACKEND);
  CU_ASSERT_STRING_EQUAL(lsim_error_message(&err),
                         "Unknown backend cuda. Available backends are ['cpu']");
  CU_ASSERT_EQUAL(lsim_runtime_get_backend(rt, "gpu", &b, &err), LSIM_E_UNKNOWN_ALIAS_PLATFORM);
  CU_ASSERT_EQUAL(lsim_runtime_get_backend(rt, NULL, &b, &err), LSIM_OK);
  CU_ASSERT_STRING_EQUAL(b->platform, "cpu");
  CU_ASSERT_EQUAL(lsim_runtime_get_backend(rt, "cpu", &b, &err), LSIM_OK);
  CU_ASSERT_STRING_EQUAL(lsim_runtime_backend_error(rt, "tpu"), "Backend 'tpu' provides no devices.");
  lsim_error_clear(&err);
  lsim_runtime_destroy(rt);
}

static void test_no_backend_at_all(void) {
  lsim_runtime *rt = make(NULL, 0);
  add(rt, "tpu", 1, "no TPU chips found");
  lsim_error err = LSIM_ERROR_INIT;
  CU_ASSERT_EQUAL(lsim_runtime_backends(rt, &err), LSIM_E_NO_DEFAULT_BACKEND);
  CU_ASSERT_STRING_EQUAL(lsim_error_class(&err), "AssertionError");
  lsim_error_clear(&err);
  lsim_runtime_destroy(rt);
}

/* A JAX process's runtime: cpu and tpu registered on import, first; the
 * tpu failing quietly with the profile's no-libtpu text; plugins after
 * them; oneapi at 500 and experimental; a visible NVIDIA GPU exactly when
 * a cuda factory is registered. */
static void test_jax_process(void) {
  lsim_runtime *rt = NULL;
  lsim_error err = LSIM_ERROR_INIT;
  CU_ASSERT_EQUAL_FATAL(lsim_runtime_create_jax(&lsim_jax_0_10_2, &rt, &err), LSIM_OK);
  add(rt, "oneapi", 1, NULL);
  add(rt, "cpu", 2, NULL); /* replaces JAX's cpu factory, keeping its place */
  CU_ASSERT_EQUAL(lsim_runtime_get_backend(rt, "tpu", &(const lsim_backend *){NULL}, &err),
                  LSIM_E_BACKEND_FAILED);
  CU_ASSERT_STRING_EQUAL(lsim_error_message(&err),
                         "Backend 'tpu' failed to initialize: INTERNAL: Failed to open libtpu.so: "
                         "libtpu.so: cannot open shared object file: No such file or directory. "
                         "Available backends are ['cpu', 'oneapi']");
  CU_ASSERT_STRING_EQUAL(lsim_runtime_backend_at(rt, 0)->platform, "cpu");
  CU_ASSERT_EQUAL(lsim_runtime_backend_at(rt, 0)->device_count, 2);
  CU_ASSERT_STRING_EQUAL(lsim_runtime_default_backend(rt)->platform, "oneapi");
  CU_ASSERT_EQUAL(lsim_runtime_default_backend(rt)->priority, 500);
  CU_ASSERT_EQUAL_FATAL(lsim_runtime_warning_count(rt), 1);
  CU_ASSERT_STRING_EQUAL(lsim_runtime_warning_category(rt, 0), "jax._src.xla_bridge");
  lsim_runtime_destroy(rt);

  /* Factories are listed in registry order, cpu and tpu first (and, from
   * 0.12.0, the IFRT proxy's). */
  CU_ASSERT_EQUAL_FATAL(lsim_runtime_create_default(&rt, &err), LSIM_OK);
  add(rt, "rocm", 1, NULL);
  CU_ASSERT_EQUAL(lsim_runtime_set_jax_platforms(rt, "metal", &err), LSIM_OK);
  CU_ASSERT_EQUAL(lsim_runtime_backends(rt, &err), LSIM_E_BACKEND_INIT);
  CU_ASSERT_STRING_EQUAL(lsim_error_message(&err),
                         "Unable to initialize backend 'metal': Backend 'metal' is not in the list "
                         "of known backends: ['cpu', 'tpu', 'proxy', 'rocm']. (set JAX_PLATFORMS='' "
                         "to automatically choose an available backend)");
  lsim_runtime_destroy(rt);

  /* JAX_PLATFORMS=cuda without a cuda factory: no visible GPU, cuda is
   * skipped, nothing comes up. */
  CU_ASSERT_EQUAL_FATAL(lsim_runtime_create_default(&rt, &err), LSIM_OK);
  CU_ASSERT_EQUAL(lsim_runtime_set_jax_platforms(rt, "cuda", &err), LSIM_OK);
  CU_ASSERT_EQUAL(lsim_runtime_backends(rt, &err), LSIM_E_NO_DEFAULT_BACKEND);
  CU_ASSERT_EQUAL(lsim_runtime_warning_count(rt), 0);
  lsim_runtime_destroy(rt);

  /* A registered cuda that fails quietly: _suggest_missing_backends. */
  CU_ASSERT_EQUAL_FATAL(lsim_runtime_create_default(&rt, &err), LSIM_OK);
  lsim_backend_factory f;
  lsim_backend_factory_defaults(&f, "cuda");
  f.fail_quietly = true;
  f.error = "no GPU";
  CU_ASSERT_EQUAL(lsim_runtime_register_backend_factory(rt, &f, &err), LSIM_OK);
  CU_ASSERT_EQUAL(lsim_runtime_backends(rt, &err), LSIM_OK);
  CU_ASSERT_EQUAL_FATAL(lsim_runtime_warning_count(rt), 1);
  CU_ASSERT_STRING_EQUAL(lsim_runtime_warning_at(rt, 0),
                         "An NVIDIA GPU may be present on this machine, but a CUDA-enabled jaxlib "
                         "is not installed. Falling back to cpu.");
  CU_ASSERT_EQUAL(lsim_runtime_warn(rt, "UserWarning", "w", &err), LSIM_OK);
  CU_ASSERT_STRING_EQUAL(lsim_runtime_warning_category(rt, 1), "UserWarning");
  CU_ASSERT_PTR_NULL(lsim_runtime_warning_category(rt, 2));
  CU_ASSERT_EQUAL(lsim_runtime_warn(rt, NULL, "w", &err), LSIM_E_INVALID_ARGUMENT);
  lsim_error_clear(&err);
  lsim_runtime_destroy(rt);
}

static void test_bad_input(void) {
  lsim_error err = LSIM_ERROR_INIT;
  lsim_runtime *rt = make((const char *[]){"cpu"}, 1);
  const lsim_backend *b;
  const char *s;
  char long_name[LSIM_PLATFORM_NAME_MAX + 2];
  memset(long_name, 'x', sizeof long_name - 1);
  long_name[sizeof long_name - 1] = '\0';
  CU_ASSERT_EQUAL(lsim_runtime_create(NULL, &err), LSIM_E_INVALID_ARGUMENT);
  CU_ASSERT_EQUAL(lsim_runtime_get_backend(NULL, "cpu", &b, &err), LSIM_E_INVALID_ARGUMENT);
  CU_ASSERT_EQUAL(lsim_runtime_get_backend(rt, "cpu", NULL, &err), LSIM_E_INVALID_ARGUMENT);
  CU_ASSERT_EQUAL(lsim_runtime_get_backend(rt, "", &b, &err), LSIM_E_INVALID_ARGUMENT);
  CU_ASSERT_STRING_EQUAL(lsim_error_message(&err), "platform name is empty");
  CU_ASSERT_EQUAL(lsim_runtime_get_backend(rt, long_name, &b, &err), LSIM_E_INVALID_ARGUMENT);
  CU_ASSERT_EQUAL(lsim_runtime_canonicalize_platform(rt, "c p u", &s, &err),
                  LSIM_E_INVALID_ARGUMENT);
  CU_ASSERT_EQUAL(lsim_runtime_canonicalize_platform(rt, NULL, &s, &err), LSIM_E_INVALID_ARGUMENT);
  CU_ASSERT_EQUAL(lsim_runtime_set_jax_platforms(rt, "cpu,,tpu", &err), LSIM_E_INVALID_ARGUMENT);
  CU_ASSERT_STRING_EQUAL(lsim_error_message(&err),
                         "JAX_PLATFORMS='cpu,,tpu': platform name is empty");
  CU_ASSERT_EQUAL(lsim_runtime_set_jax_platforms(rt, "cpu,", &err), LSIM_E_INVALID_ARGUMENT);
  CU_ASSERT_EQUAL(lsim_runtime_register_backend_factory(rt, NULL, &err), LSIM_E_INVALID_ARGUMENT);
  lsim_backend_factory f;
  lsim_backend_factory_defaults(&f, "gpu");
  CU_ASSERT_EQUAL(lsim_runtime_register_backend_factory(rt, &f, &err), LSIM_E_INVALID_ARGUMENT);
  lsim_backend_factory_defaults(&f, "metal");
  f.device_count = -1;
  CU_ASSERT_EQUAL(lsim_runtime_register_backend_factory(rt, &f, &err), LSIM_E_INVALID_ARGUMENT);
  CU_ASSERT_EQUAL(lsim_runtime_backends(NULL, &err), LSIM_E_INVALID_ARGUMENT);
  /* Registering after initialization is refused. */
  CU_ASSERT_EQUAL(lsim_runtime_backends(rt, &err), LSIM_OK);
  lsim_backend_factory_defaults(&f, "tpu");
  CU_ASSERT_EQUAL(lsim_runtime_register_backend_factory(rt, &f, &err), LSIM_E_INVALID_ARGUMENT);
  CU_ASSERT_STRING_EQUAL(lsim_error_message(&err), "Backend tpu already initialized");
  lsim_error_clear(&err);
  lsim_runtime_destroy(rt);
  lsim_runtime_destroy(NULL);
}

static CU_TestInfo tests[] = {
    {"a JAX process's runtime", test_jax_process},
    {"expand_platform_alias", test_expand_platform_alias},
    {"builtin platforms", test_builtin_platforms},
    {"known_platforms", test_known_platforms},
    {"known_platforms from two threads", test_known_platforms_two_threads},
    {"thousands of known platforms", test_many_known_platforms},
    {"canonicalize gpu under each subset", test_canonicalize_gpu_each_subset},
    {"default backend by priority", test_default_backend_by_priority},
    {"JAX_PLATFORMS order, aliases, priorities", test_jax_platforms_order_aliases_and_priorities},
    {"JAX_PLATFORMS duplicates as JAX", test_jax_platforms_duplicates_as_jax},
    {"initialization errors", test_initialization_errors},
    {"quiet failures and get_backend", test_quiet_failures_and_get_backend},
    {"no backend at all", test_no_backend_at_all},
    {"bad input", test_bad_input},
    CU_TEST_INFO_NULL,
};

CU_SuiteInfo runtime_suite[] = {{"runtime", NULL, NULL, NULL, NULL, tests}, CU_SUITE_INFO_NULL};
