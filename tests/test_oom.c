/* tests/test_oom.c: allocation failures.  Every allocation of lowersim's
 * code goes through lsim_alloc_at (lowersim/alloc.h), whose fault hook this
 * suite sets: each test runs an operation once to count its allocations,
 * then again once per allocation with that one failing, and checks the
 * outcome is LSIM_E_NO_MEMORY (the error object saying so too, never a JAX
 * error), with nothing leaked (the sanitizer build's LeakSanitizer checks
 * that) and the objects still usable or destroyable.  An allocation whose
 * failure is survivable (the outcome is then LSIM_OK) must be on the list
 * `benign` below: any other one giving LSIM_OK is a failure.  The last test
 * prints the allocation sites failed, per folder.
 *
 * MLIR's, libxml2's and libc's own allocations are not lowersim's and are
 * not failed, so lowerings (which call MLIR) are exercised too. */
#include "cli/cli.h"
#include "lowersim/alloc.h"
#include "lowersim/ffi.h"
#include "lowersim/jax.h"
#include "lowersim/lowering.h"
#include "lowersim/module_context.h"
#include "lowersim/pallas.h"
#include "lowersim/runtime.h"
#include "lowersim/scenario.h"
#include "lowersim/scenario_run.h"
#include "tests/suites.h"

#include <errno.h>
#include <execinfo.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The allocations whose failure is survivable: a cache not filled.  Each is
 * named by its file and the function it is in (the site's line moves). */
static const struct {
  const char *file, *function, *why;
} benign[] = {
    {"ctx/module_context.c", "grow_type_cache",
     "the type cache does not grow; the type is made without it"},
    {"ctx/runtime.c", "sorted_known",
     "the sorted list is not cached; it is made again on the next call"},
    {"lower/spill.c", "lsimp_spill_create",
     "no spill: main's body is held whole and printed as MLIR prints it, the same text"},
};

static struct {
  long count;   /* allocations so far in this run */
  long fail_at; /* 0: none fails; k: the k-th fails */
  const char *failed; /* the site of the allocation made to fail */
  void *frames[24];   /* its call stack, with LOWERSIM_OOM_TRACE set */
  int depth;
} hook;

static bool fault(const char *site, void *data) {
  (void)data;
  if (++hook.count != hook.fail_at)
    return false;
  hook.failed = site;
  if (getenv("LOWERSIM_OOM_TRACE"))
    hook.depth = backtrace(hook.frames, 24);
  return true;
}

/* The sites failed over the whole suite, each once. */
#define MAX_SITES 4096
static const char *sites_failed[MAX_SITES];
static size_t num_sites_failed;
static size_t num_benign, num_runs;

static const char *relative(const char *site) {
  size_t n = strlen(LSIM_TEST_SOURCE_DIR);
  return strncmp(site, LSIM_TEST_SOURCE_DIR, n) == 0 && site[n] == '/' ? site + n + 1 : site;
}

static void note_site(const char *site) {
  for (size_t i = 0; i < num_sites_failed; i++)
    if (strcmp(sites_failed[i], site) == 0)
      return;
  if (num_sites_failed < MAX_SITES)
    sites_failed[num_sites_failed++] = site;
}

/* The function a site ("FILE:LINE") is in: the last line before it that
 * starts a definition ("type name(" at column 0). */
static bool site_in_function(const char *site, const char *file, const char *function) {
  const char *rel = relative(site);
  size_t n = strlen(file);
  if (strncmp(rel, file, n) != 0 || rel[n] != ':')
    return false;
  long line = atol(rel + n + 1);
  char path[4096];
  snprintf(path, sizeof path, "%s/%s", LSIM_TEST_SOURCE_DIR, file);
  FILE *f = fopen(path, "r");
  if (!f)
    return false;
  char text[1024], current[256] = "";
  for (long i = 1; i < line && fgets(text, sizeof text, f); i++) {
    if (text[0] == ' ' || text[0] == '\t' || text[0] == '#' || text[0] == '/' || text[0] == '}')
      continue;
    const char *paren = strchr(text, '(');
    if (!paren)
      continue;
    const char *start = paren;
    while (start > text && (start[-1] == '_' || (start[-1] >= 'a' && start[-1] <= 'z') ||
                            (start[-1] >= 'A' && start[-1] <= 'Z') ||
                            (start[-1] >= '0' && start[-1] <= '9')))
      start--;
    snprintf(current, sizeof current, "%.*s", (int)(paren - start), start);
  }
  fclose(f);
  return strcmp(current, function) == 0;
}

static bool is_benign(const char *site) {
  for (size_t i = 0; i < sizeof benign / sizeof benign[0]; i++)
    if (site_in_function(site, benign[i].file, benign[i].function))
      return true;
  return false;
}

/* An operation under test: returns its status (its lsim_error's code must
 * agree: see agreed()); cleans up what it made. */
typedef int (*operation)(void);

/* rc, or a status no lowersim call returns when `err` says otherwise. */
#define DISAGREE (-9999)
static int agreed(int rc, lsim_error *err) {
  int code = err->code;
  lsim_error_clear(err);
  return rc && code != rc ? DISAGREE : rc;
}

/* Runs `op` failing each of its allocations in turn. */
static void each_allocation_fails(const char *name, operation op) {
  hook.fail_at = 0;
  hook.count = 0;
  lsim_alloc_set_fault(fault, NULL);
  int rc = op();
  long total = hook.count;
  CU_ASSERT_EQUAL_FATAL(rc, LSIM_OK);
  CU_ASSERT_TRUE(total > 0);
  for (long k = 1; k <= total; k++) {
    hook.count = 0;
    hook.fail_at = k;
    hook.failed = NULL;
    rc = op();
    num_runs++;
    if (!hook.failed)
      continue; /* this run made fewer allocations */
    note_site(hook.failed);
    bool ok = rc == LSIM_E_NO_MEMORY;
    if (rc == LSIM_OK && is_benign(hook.failed))
      ok = true, num_benign++;
    CU_ASSERT_TRUE(ok);
    if (!ok)
      fprintf(stderr, "\n  %s: allocation %ld of %ld (%s) failing gives %d (%s)", name, k, total,
              relative(hook.failed), rc,
              rc == DISAGREE ? "an error object with another code"
                             : lsim_status_name(rc) ? lsim_status_name(rc) : "?");
    if (!ok && hook.depth) {
      fprintf(stderr, "\n");
      backtrace_symbols_fd(hook.frames, hook.depth, STDERR_FILENO);
      hook.depth = 0;
    }
  }
  hook.fail_at = 0;
  lsim_alloc_set_fault(NULL, NULL);
}

/* --- operations ---------------------------------------------------------------- */

static int runtime_lifecycle(void) {
  lsim_error err = LSIM_ERROR_INIT;
  lsim_runtime *rt = NULL;
  int rc = lsim_runtime_create(&rt, &err);
  const char *platforms[] = {"cpu", "tpu", "cuda", "metal"};
  for (size_t i = 0; !rc && i < 4; i++) {
    lsim_backend_factory f;
    lsim_backend_factory_defaults(&f, platforms[i]);
    f.error = i == 1 ? "no TPU chips found" : NULL;
    rc = lsim_runtime_register_backend_factory(rt, &f, &err);
  }
  if (!rc)
    rc = lsim_runtime_set_jax_platforms(rt, NULL, &err);
  if (!rc)
    rc = lsim_runtime_backends(rt, &err);
  const lsim_backend *b;
  if (!rc) {
    /* get_backend's errors format lists; out of memory must win over them. */
    int g = lsim_runtime_get_backend(rt, "tpu", &b, &err);
    rc = g == LSIM_E_BACKEND_FAILED ? LSIM_OK : g;
  }
  if (!rc) {
    int g = lsim_runtime_get_backend(rt, "oneapi", &b, &err);
    rc = g == LSIM_E_UNKNOWN_BACKEND ? LSIM_OK : g;
  }
  if (!rc) {
    const char *const *known;
    size_t n;
    rc = lsim_runtime_known_platforms(rt, &known, &n, &err);
  }
  lsim_runtime_destroy(rt);
  return agreed(rc, &err);
}

static int jax_platforms_errors(void) {
  lsim_error err = LSIM_ERROR_INIT;
  lsim_runtime *rt = NULL;
  int rc = lsim_runtime_create(&rt, &err);
  lsim_backend_factory f;
  lsim_backend_factory_defaults(&f, "cpu");
  if (!rc)
    rc = lsim_runtime_register_backend_factory(rt, &f, &err);
  if (!rc)
    rc = lsim_runtime_set_jax_platforms(rt, "cpu,gpu", &err);
  if (!rc) {
    int b = lsim_runtime_backends(rt, &err);
    rc = b == LSIM_E_BACKEND_INIT ? LSIM_OK : b;
  }
  lsim_runtime_destroy(rt);
  return agreed(rc, &err);
}

static int pallas_rule(lsim_lowering_rule_context *ctx, const MlirValue *args, MlirValue *results,
                       const lsim_pallas_call_params *params, void *data, lsim_error *err) {
  (void)ctx, (void)args, (void)results, (void)params, (void)data, (void)err;
  return LSIM_OK;
}

static int pallas_registry(void) {
  static const lsim_pallas_params_class mine = {"MyParams"};
  lsim_error err = LSIM_ERROR_INIT;
  lsim_pallas *p = NULL;
  lsim_pallas_installed all =
      LSIM_PALLAS_INSTALLED_INIT(.mosaic_tpu = true, .triton = true, .mosaic_gpu = true);
  int rc = lsim_pallas_create(&all, &p, &err);
  if (!rc)
    rc = lsim_pallas_register_lowering_rule(p, &mine, (lsim_pallas_rule){pallas_rule, NULL}, "gpu",
                                            &err);
  const lsim_pallas_rule *rule;
  if (!rc) {
    int g = lsim_pallas_get_lowering_rule(p, &mine, "tpu", &rule, &err);
    rc = g == LSIM_E_PALLAS_PARAMS_PLATFORM ? LSIM_OK : g;
  }
  lsim_pallas_destroy(p);
  return agreed(rc, &err);
}

/* The registry of a JAX process, then a program's own primitives and rules. */
static int jax_registry(void) {
  static const lsim_ffi_rule kernel = {"k", LSIM_BACKEND_USE_NONE};
  lsim_error err = LSIM_ERROR_INIT;
  lsim_runtime *rt = NULL;
  lsim_pallas *p = NULL;
  lsim_registry *reg = NULL;
  lsim_primitive *mine[40] = {NULL};
  lsim_pallas_installed all =
      LSIM_PALLAS_INSTALLED_INIT(.mosaic_tpu = true, .triton = true, .mosaic_gpu = true);
  int rc = lsim_runtime_create_default(&rt, &err);
  if (!rc)
    rc = lsim_pallas_create(&all, &p, &err);
  if (!rc)
    rc = lsim_registry_create_jax(rt, p, NULL, &reg, &err);
  for (size_t i = 0; !rc && i < 40; i++) {
    char name[16];
    snprintf(name, sizeof name, "mine%zu", i);
    rc = lsim_primitive_create(name, &mine[i], &err);
    if (!rc)
      rc = lsim_register_lowering(reg, mine[i], lsim_ffi_lowering(&kernel), i % 2 ? "gpu" : NULL,
                                  &err);
  }
  lsim_registry_destroy(reg);
  for (size_t i = 0; i < 40; i++)
    lsim_primitive_destroy(mine[i]);
  lsim_pallas_destroy(p);
  lsim_runtime_destroy(rt);
  return agreed(rc, &err);
}

static int read_and_write_scenario(void) {
  lsim_error err = LSIM_ERROR_INIT;
  lsim_scenario *s = NULL;
  int rc = lsim_scenario_read_file(LSIM_TEST_SOURCE_DIR "/testdata/scenario-fixtures/full.xml", &s,
                                   &err);
  if (!rc) {
    FILE *out = tmpfile();
    rc = out ? lsim_scenario_write(s, out, &err) : LSIM_OK;
    if (out)
      fclose(out);
  }
  lsim_scenario_destroy(s);
  return agreed(rc, &err);
}


/* Lowerings (lower_per_platform, callbacks, Pallas, jit's pipeline): the
 * scenario is read and the lowerer made beforehand; the run is failed. */
static lsim_lowerer *lowerer;
static lsim_scenario *scenario;

static int run_scenario(void) {
  lsim_error err = LSIM_ERROR_INIT;
  lsim_scenario_outcome out = {0};
  int rc = lsim_scenario_run(lowerer, scenario, NULL, &out, &err);
  lsim_scenario_outcome_clear(&out);
  return agreed(rc, &err);
}

static int make_lowerer(void) {
  lsim_error err = LSIM_ERROR_INIT;
  lsim_lowerer *l = NULL;
  int rc = lsim_lowerer_create(&l, &err);
  lsim_lowerer_destroy(l);
  return agreed(rc, &err);
}

static void lowering_fails(const char *file) {
  char path[4096];
  snprintf(path, sizeof path, "%s/testdata/scenarios/%s", LSIM_TEST_SOURCE_DIR, file);
  CU_ASSERT_EQUAL_FATAL(lsim_scenario_read_file(path, &scenario, NULL), LSIM_OK);
  CU_ASSERT_EQUAL_FATAL(lsim_lowerer_create(&lowerer, NULL), LSIM_OK);
  each_allocation_fails(file, run_scenario);
  lsim_lowerer_destroy(lowerer);
  lsim_scenario_destroy(scenario);
  lowerer = NULL;
  scenario = NULL;
}

/* The command's own code, in this process (cli_main), in a folder of its
 * own: out of memory is an exit status other than 0 with stderr saying so
 * (LSIM_E_NO_MEMORY or "out of memory"); anything else is reported as the
 * exit status, positive, which no lowersim call returns. */
static char **cli_argv;

static int run_cli(void) {
  int argc = 0;
  while (cli_argv[argc])
    argc++;
  char *args[16];
  memcpy(args, cli_argv, (size_t)(argc + 1) * sizeof *args);
  fflush(stdout);
  fflush(stderr);
  int out = dup(STDOUT_FILENO), errfd = dup(STDERR_FILENO);
  int to = open("cli.out", O_WRONLY | O_CREAT | O_TRUNC, 0600);
  int te = open("cli.err", O_WRONLY | O_CREAT | O_TRUNC, 0600);
  if (out < 0 || errfd < 0 || to < 0 || te < 0 || dup2(to, STDOUT_FILENO) < 0 ||
      dup2(te, STDERR_FILENO) < 0)
    abort();
  close(to);
  close(te);
  int code = cli_main(argc, args);
  fflush(stdout);
  fflush(stderr);
  clearerr(stdout);
  clearerr(stderr);
  dup2(out, STDOUT_FILENO);
  dup2(errfd, STDERR_FILENO);
  close(out);
  close(errfd);
  if (code == 0)
    return LSIM_OK;
  /* stderr, then stdout (check and matrix report each file's or variant's
   * failure there) */
  char text[8192] = "";
  size_t n = 0;
  const char *outputs[] = {"cli.err", "cli.out"};
  for (size_t i = 0; i < 2; i++) {
    FILE *f = fopen(outputs[i], "r");
    n += f ? fread(text + n, 1, sizeof text / 2 - 1, f) : 0;
    text[n] = '\0';
    if (f)
      fclose(f);
  }
  if (strstr(text, "NO_MEMORY") || strstr(text, "out of memory") ||
      strstr(text, strerror(ENOMEM)))
    return LSIM_E_NO_MEMORY;
  fprintf(stderr, "\n  lowersim %s: exit %d: %s", args[1], code, text);
  return code;
}

static void cli_fails(char **argv) {
  cli_argv = argv;
  each_allocation_fails(argv[1], run_cli);
}

static void test_runtime(void) { each_allocation_fails("runtime", runtime_lifecycle); }
static void test_jax_platforms(void) { each_allocation_fails("JAX_PLATFORMS", jax_platforms_errors); }
static void test_pallas_registry(void) { each_allocation_fails("pallas", pallas_registry); }
static void test_jax_registry(void) { each_allocation_fails("jax registry", jax_registry); }
static void test_scenario_files(void) { each_allocation_fails("scenario", read_and_write_scenario); }

/* When the type cache cannot grow, aval_to_ir_type still gives the type
 * (issue 11: it gave a null type, which six callers used unchecked). */
static void test_aval_type_without_cache(void) {
  static const lsim_aval x = {.dtype = LSIM_DTYPE_F32, .rank = 1, .dims = {4}};
  const char *cpu[] = {"cpu"};
  lsim_runtime *rt = NULL;
  lsim_module_context *mc = NULL;
  CU_ASSERT_EQUAL_FATAL(lsim_runtime_create_default(&rt, NULL), LSIM_OK);
  lsim_module_context_options o =
      LSIM_MODULE_CONTEXT_OPTIONS_INIT(.runtime = rt, .platforms = cpu, .num_platforms = 1);
  CU_ASSERT_EQUAL_FATAL(lsim_module_context_create(&o, &mc, NULL), LSIM_OK);
  hook.count = 0;
  hook.fail_at = 1; /* the cache's first table */
  hook.failed = NULL;
  lsim_alloc_set_fault(fault, NULL);
  MlirType t = lsim_module_context_aval_to_ir_type(mc, &x);
  bool failed = hook.failed != NULL;
  lsim_alloc_set_fault(NULL, NULL);
  CU_ASSERT_TRUE(failed);
  CU_ASSERT_FALSE(mlirTypeIsNull(t));
  CU_ASSERT_EQUAL(lsim_module_context_type_cache_size(mc), 0);
  CU_ASSERT_TRUE(mlirTypeEqual(t, lsim_module_context_aval_to_ir_type(mc, &x)));
  CU_ASSERT_EQUAL(lsim_module_context_type_cache_size(mc), 1);
  lsim_module_context_destroy(mc);
  lsim_runtime_destroy(rt);
}


static void test_lowerer(void) { each_allocation_fails("lowerer", make_lowerer); }
static void test_lower_per_platform(void) { lowering_fails("platform-dependent.xml"); }
static void test_shared_rules(void) { lowering_fails("multi-platform-shared-rules.xml"); }
static void test_callbacks(void) {
  lowering_fails("python-callbacks-cpu.xml");
  lowering_fails("buffer-callback-cpu.xml");
}
static void test_pallas_lowering(void) {
  lowering_fails("pallas-tpu.xml");
  lowering_fails("pallas-triton.xml");
}

static void test_cli(void) {
  char dir[] = "/tmp/lowersim-oom-XXXXXX", origin[4096];
  CU_ASSERT_PTR_NOT_NULL_FATAL(getcwd(origin, sizeof origin));
  CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
  CU_ASSERT_EQUAL_FATAL(chdir(dir), 0);
  static char scen[4096];
  snprintf(scen, sizeof scen, "%s/testdata/scenarios/platform-dependent.xml", LSIM_TEST_SOURCE_DIR);
  char *lower[] = {"lowersim", "lower", scen, "-o", "out.mlir", NULL};
  /* main's body printed as it is lowered (lower/spill.c) */
  char *streamed[] = {"lowersim", "lower", "--stream-eqns", "1", scen, "-o", "out.mlir", NULL};
  char *explain[] = {"lowersim", "explain", scen, NULL};
  char *check[] = {"lowersim", "check", scen, "--junit", "j.xml", NULL};
  char *platforms[] = {"lowersim", "platforms", "--jax-platforms", "cuda,cpu", NULL};
  char *matrix[] = {"lowersim", "matrix", "--platforms", "cpu,tpu", "--features", "rules",
                    "--max-len", "1", "--limit", "2", "--jobs", "1", "--csv", "m.csv", NULL};
  char *merge[] = {"lowersim", "matrix", "--merge", "m.csv", "--csv", "merged.csv", NULL};
  char *fuzz[] = {"lowersim", "fuzz", "--seed", "3", "--iterations", "3", "--out", "found", NULL};
  cli_fails(lower);
  cli_fails(streamed);
  cli_fails(explain);
  cli_fails(check);
  cli_fails(platforms);
  cli_fails(matrix);
  cli_argv = matrix; /* the shard --merge reads */
  CU_ASSERT_EQUAL(run_cli(), LSIM_OK);
  cli_fails(merge);
  cli_fails(fuzz);
  const char *made[] = {"cli.out", "cli.err", "out.mlir", "j.xml", "m.csv", "merged.csv"};
  for (size_t i = 0; i < sizeof made / sizeof made[0]; i++)
    unlink(made[i]);
  /* fuzz under out of memory writes findings (see the report of issue 11) */
  CU_ASSERT_EQUAL(system("rm -rf found"), 0);
  CU_ASSERT_EQUAL(chdir(origin), 0);
  CU_ASSERT_EQUAL(rmdir(dir), 0);
}

/* The coverage: the sites failed, per folder (printed; at least one in
 * each folder the suite is meant to reach). */
static void test_coverage(void) {
  static const char *folders[] = {"support", "ctx", "lower", "lax", "callbacks", "pallas",
                                  "jax", "scenario", "fuzz", "cli"};
  printf("\n  oom: %zu runs, %zu allocation sites failed, %zu benign failures;", num_runs,
         num_sites_failed, num_benign);
  for (size_t f = 0; f < sizeof folders / sizeof folders[0]; f++) {
    size_t n = 0, len = strlen(folders[f]);
    for (size_t i = 0; i < num_sites_failed; i++) {
      const char *rel = relative(sites_failed[i]);
      n += strncmp(rel, folders[f], len) == 0 && rel[len] == '/';
    }
    printf(" %s %zu", folders[f], n);
    if (strcmp(folders[f], "jax") != 0 && strcmp(folders[f], "lax") != 0)
      CU_ASSERT_TRUE(n > 0);
  }
  printf("\n");
  const char *list = getenv("LOWERSIM_OOM_SITES");
  FILE *f = list ? fopen(list, "w") : NULL;
  for (size_t i = 0; f && i < num_sites_failed; i++)
    fprintf(f, "%s\n", relative(sites_failed[i]));
  if (f)
    fclose(f);
}

static CU_TestInfo tests[] = {
    {"runtime: factories, backends, get_backend", test_runtime},
    {"JAX_PLATFORMS and initialization errors", test_jax_platforms},
    {"Pallas params registry", test_pallas_registry},
    {"the registry of a JAX process, own primitives", test_jax_registry},
    {"scenario read and write", test_scenario_files},
    {"aval_to_ir_type when its cache cannot grow", test_aval_type_without_cache},
    {"the lowerer", test_lowerer},
    {"lower_per_platform: platform_dependent", test_lower_per_platform},
    {"lower_per_platform: rules shared by platforms", test_shared_rules},
    {"host callbacks", test_callbacks},
    {"Pallas lowerings", test_pallas_lowering},
    {"the command's own code", test_cli},
    {"coverage: sites failed per folder", test_coverage},
    CU_TEST_INFO_NULL,
};

CU_SuiteInfo oom_suite[] = {{"oom", NULL, NULL, NULL, NULL, tests}, CU_SUITE_INFO_NULL};
