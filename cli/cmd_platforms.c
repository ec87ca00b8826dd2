/* cli/cmd_platforms.c: `lowersim platforms`: known platforms and aliases, and
 * the backends a simulated runtime initializes (xla_bridge.backends()).  With
 * --lower-for, also what a ModuleContext for those platforms gets from
 * get_backend, optional or not. */
#include "cli.h"
#include "lowersim/alloc.h"
#include "lowersim/module_context.h"
#include "lowersim/runtime.h"
#include "json.h"
#include "options.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void help(void) {
  printf("usage: lowersim platforms [--jax-platforms LIST] [--backend PLATFORM[=DEVICES]]...\n"
         "                          [--fail PLATFORM=MESSAGE]... [--lower-for LIST [--pin PLATFORM]]\n\n"
         "Prints the known platforms and aliases, then initializes a simulated runtime\n"
         "and prints its backends, the default backend, quiet failures and warnings.\n"
         "The runtime starts as a JAX process's: the cpu and tpu factories xla_bridge\n"
         "registers on import (tpu fails quietly, as without libtpu); --backend and --fail\n"
         "for cpu or tpu replace them.\n"
         "Without --backend or --fail: a working backend for each platform named in\n"
         "--jax-platforms (aliases expanded), each with one device.\n");
}

/* --backend and --fail, in the order given: each a factory. */
typedef struct factory_spec {
  const char *spec;
  bool failing;
} factory_spec;

typedef struct options {
  const char *jax_platforms;
  const char *lower_for;
  const char *pin;
  factory_spec *factories;
  size_t n_factories, cap_factories;
  lsim_runtime *rt; /* for the callbacks below */
  bool json;
} options;

/* P[=N]: a factory for P (JAX's priority and quietness) with N devices;
 * F=MESSAGE (failing): one that fails with MESSAGE.  Returns what is wrong
 * with the text, or NULL with *rc the registration's status. */
static const char *add_factory(lsim_runtime *rt, const char *spec, bool failing, lsim_error *err,
                               int *rc) {
  const char *eq = strchr(spec, '=');
  char *name = lsim_strndup(spec, eq ? (size_t)(eq - spec) : strlen(spec));
  if (!name) {
    *rc = lsim_error_set(err, LSIM_E_NO_MEMORY, "out of memory");
    return NULL;
  }
  lsim_backend_factory f;
  lsim_backend_factory_defaults(&f, name);
  uint64_t n = 1;
  if (failing)
    f.error = eq ? eq + 1 : "failed";
  else if (eq && !cli_parse_u64(eq + 1, 0, 1 << 20, &n)) {
    free(name);
    return "takes PLATFORM=DEVICES, DEVICES an integer from 0 to 1048576";
  }
  f.device_count = (int)n;
  *rc = lsim_runtime_register_backend_factory(rt, &f, err);
  free(name);
  return NULL;
}

/* The factories not given (JAX's own, cpu and tpu, are the runtime's from
 * the start): when no factory is given, a working one for every other
 * platform JAX_PLATFORMS names. */
static int add_implied_factories(const options *o, lsim_error *err) {
  int rc = LSIM_OK;
  const char *jax_platforms = o->jax_platforms;
  if (rc || !jax_platforms || o->n_factories)
    return rc;
  lsim_runtime *rt = o->rt;
  size_t n;
  char **items = cli_split(jax_platforms, ',', &n);
  if (!items)
    return lsim_error_set(err, LSIM_E_NO_MEMORY, "out of memory");
  for (size_t k = 0; k < n && !rc; k++) {
    const char *const *expanded;
    size_t m;
    lsim_expand_platform_alias(items[k], &expanded, &m);
    for (size_t i = 0; i < m && !rc; i++) {
      const char *platform = expanded ? expanded[i] : items[k];
      if (strcmp(platform, "cpu") != 0)
        add_factory(rt, platform, false, err, &rc);
    }
  }
  free(items);
  return rc;
}

static void print_known(const lsim_runtime *rt) {
  const char *const *known;
  size_t n;
  if (lsim_runtime_known_platforms(rt, &known, &n, NULL))
    return;
  printf("known platforms   ");
  for (size_t i = 0; i < n; i++)
    printf("%s%s", i ? ", " : "", known[i]);
  const char *const *gpu;
  size_t n_gpu;
  lsim_expand_platform_alias("gpu", &gpu, &n_gpu);
  printf("\naliases           gpu -> ");
  for (size_t i = 0; i < n_gpu; i++)
    printf("%s%s", i ? ", " : "", gpu[i]);
  printf("\n");
}

static void print_backends(const lsim_runtime *rt, const char *jax_platforms) {
  printf("JAX_PLATFORMS     %s\n", jax_platforms ? jax_platforms : "(unset)");
  const lsim_backend *def = lsim_runtime_default_backend(rt);
  printf("backends          (initialization order)\n");
  for (size_t i = 0; i < lsim_runtime_backend_count(rt); i++) {
    const lsim_backend *b = lsim_runtime_backend_at(rt, i);
    printf("  %-8s %4d device%s  priority %4d%s\n", b->platform, b->device_count,
           b->device_count == 1 ? " " : "s", b->priority, b == def ? "  <- default backend" : "");
  }
  const char *const *known;
  size_t n;
  if (!lsim_runtime_known_platforms(rt, &known, &n, NULL)) {
    for (size_t i = 0; i < n; i++) {
      const char *quiet = lsim_runtime_backend_error(rt, known[i]);
      if (quiet)
        printf("quiet failure     %s: %s\n", known[i], quiet);
    }
  }
  for (size_t i = 0; i < lsim_runtime_warning_count(rt); i++) {
    printf("warning           %s: ", lsim_runtime_warning_category(rt, i));
    cli_put_line(stdout, lsim_runtime_warning_at(rt, i));
  }
}

/* The ModuleContext of --lower-for and --pin (*names: the split list, owned,
 * kept while the context lives). */
static int open_module_context(lsim_runtime *rt, const options *o, lsim_module_context **ctx,
                               const lsim_backend **pinned, char ***names, lsim_error *err) {
  size_t n;
  *ctx = NULL, *pinned = NULL;
  *names = cli_split(o->lower_for, ',', &n);
  if (!*names)
    return lsim_error_set(err, LSIM_E_NO_MEMORY, "out of memory");
  int rc = o->pin ? lsim_runtime_get_backend(rt, o->pin, pinned, err) : LSIM_OK;
  if (!rc) {
    lsim_module_context_options mo = LSIM_MODULE_CONTEXT_OPTIONS_INIT(
        .runtime = rt, .platforms = (const char *const *)*names, .num_platforms = n,
        .backend = *pinned);
    rc = lsim_module_context_create(&mo, ctx, err);
  }
  return rc;
}

static int show_module_context(lsim_runtime *rt, const options *o, lsim_error *err) {
  char **names = NULL;
  const lsim_backend *pinned = NULL;
  lsim_module_context *ctx = NULL;
  int rc = open_module_context(rt, o, &ctx, &pinned, &names, err);
  if (!rc) {
    size_t np;
    const char *const *platforms = lsim_module_context_platforms(ctx, &np);
    printf("\nModuleContext     platforms=(");
    for (size_t i = 0; i < np; i++)
      printf("%s'%s'%s", i ? " " : "", platforms[i], np == 1 || i + 1 < np ? "," : "");
    printf(")  backend=%s\n", pinned ? pinned->platform : "None");
    for (int optional = 1; optional >= 0; optional--) {
      const lsim_backend *b = NULL;
      lsim_error e = LSIM_ERROR_INIT;
      int r = lsim_module_context_get_backend(ctx, optional, &b, &e);
      printf("  get_backend(optional=%s)  ", optional ? "True " : "False");
      if (r)
        printf("raises %s: %s\n", lsim_error_class(&e), lsim_error_message(&e));
      else
        printf("-> %s\n", b ? b->platform : "None");
      lsim_error_clear(&e);
    }
    int64_t channel = 0;
    lsim_module_context_new_channel(ctx, &channel, NULL);
    printf("  new_channel()             -> %lld (1 is reserved for collectives)\n",
           (long long)channel);
  }
  lsim_module_context_destroy(ctx);
  free(names);
  return rc;
}

/* --json: what the three printers above show, as members of `j`. */
static void json_runtime(cli_json *j, const lsim_runtime *rt, const char *jax_platforms) {
  const char *const *known = NULL, *const *gpu = NULL;
  size_t n = 0, n_gpu = 0;
  if (lsim_runtime_known_platforms(rt, &known, &n, NULL))
    n = 0;
  cli_json_open_array(j, "known_platforms");
  for (size_t i = 0; i < n; i++)
    cli_json_string(j, NULL, known[i]);
  cli_json_close_array(j);
  lsim_expand_platform_alias("gpu", &gpu, &n_gpu);
  cli_json_open_object(j, "aliases");
  cli_json_open_array(j, "gpu");
  for (size_t i = 0; i < n_gpu; i++)
    cli_json_string(j, NULL, gpu[i]);
  cli_json_close_array(j);
  cli_json_close_object(j);
  cli_json_string(j, "jax_platforms", jax_platforms);
  const lsim_backend *def = lsim_runtime_default_backend(rt);
  cli_json_open_array(j, "backends");
  for (size_t i = 0; i < lsim_runtime_backend_count(rt); i++) {
    const lsim_backend *b = lsim_runtime_backend_at(rt, i);
    cli_json_open_object(j, NULL);
    cli_json_string(j, "platform", b->platform);
    cli_json_int(j, "devices", b->device_count);
    cli_json_int(j, "priority", b->priority);
    cli_json_bool(j, "default", b == def);
    cli_json_close_object(j);
  }
  cli_json_close_array(j);
  cli_json_open_array(j, "quiet_failures");
  for (size_t i = 0; i < n; i++) {
    const char *quiet = lsim_runtime_backend_error(rt, known[i]);
    if (quiet) {
      cli_json_open_object(j, NULL);
      cli_json_string(j, "platform", known[i]);
      cli_json_string(j, "message", quiet);
      cli_json_close_object(j);
    }
  }
  cli_json_close_array(j);
  cli_json_warnings(j, "warnings", rt);
}

static int json_module_context(cli_json *j, lsim_runtime *rt, const options *o, lsim_error *err) {
  char **names = NULL;
  const lsim_backend *pinned = NULL;
  lsim_module_context *ctx = NULL;
  int rc = open_module_context(rt, o, &ctx, &pinned, &names, err);
  if (!rc) {
    size_t np;
    const char *const *platforms = lsim_module_context_platforms(ctx, &np);
    cli_json_open_object(j, "module_context");
    cli_json_open_array(j, "platforms");
    for (size_t i = 0; i < np; i++)
      cli_json_string(j, NULL, platforms[i]);
    cli_json_close_array(j);
    cli_json_string(j, "backend", pinned ? pinned->platform : NULL);
    for (int optional = 1; optional >= 0; optional--) {
      const lsim_backend *b = NULL;
      lsim_error e = LSIM_ERROR_INIT;
      int r = lsim_module_context_get_backend(ctx, optional, &b, &e);
      cli_json_open_object(j, optional ? "get_backend_optional" : "get_backend");
      if (r)
        cli_json_error(j, "error", &e);
      else
        cli_json_string(j, "backend", b ? b->platform : NULL);
      cli_json_close_object(j);
      lsim_error_clear(&e);
    }
    int64_t channel = 0;
    lsim_module_context_new_channel(ctx, &channel, NULL);
    cli_json_int(j, "new_channel", channel);
    cli_json_close_object(j);
  }
  lsim_module_context_destroy(ctx);
  free(names);
  return rc;
}

/* Repeatable options: remembered in order, registered after the parse. */
static const char *collect(options *o, const char *value, bool failing) {
  if (!lsim_grow_array(&o->factories, &o->cap_factories, o->n_factories + 1, sizeof *o->factories))
    return "cannot be kept: out of memory";
  o->factories[o->n_factories++] = (factory_spec){value, failing};
  return NULL;
}

static const char *collect_backend(const char *value, void *o) { return collect(o, value, false); }

static const char *collect_failing(const char *value, void *o) { return collect(o, value, true); }

/* The factories of --backend/--fail, then the implied ones. */
static int add_factories(options *o, lsim_error *err) {
  int rc = LSIM_OK;
  for (size_t i = 0; i < o->n_factories && !rc; i++) {
    const char *wrong = add_factory(o->rt, o->factories[i].spec, o->factories[i].failing, err, &rc);
    if (wrong)
      return cli_usage_error("platforms", "--backend %s, not '%s'", wrong, o->factories[i].spec);
  }
  if (!rc)
    rc = add_implied_factories(o, err);
  return rc;
}

int cmd_platforms(int argc, char **argv) {
  options o = {0};
  const cli_option table[] = {
      CLI_OPT_STRING("jax-platforms", 0, &o.jax_platforms,
                     CLI_HELP("LIST", "the JAX_PLATFORMS value, e.g. cuda,cpu")),
      CLI_OPT_CUSTOM("backend", 0, collect_backend, &o,
                     CLI_HELP("P[=N]", "a backend factory for P with N devices (default 1); "
                              "priorities and quietness are JAX's for P")),
      CLI_OPT_CUSTOM("fail", 0, collect_failing, &o,
                     CLI_HELP("P=MESSAGE", "a factory for P that fails with MESSAGE")),
      CLI_OPT_STRING("lower-for", 0, &o.lower_for,
                     CLI_HELP("LIST", "a ModuleContext for these lowering platforms: shows the "
                              "canonicalized platforms and get_backend's outcome")),
      CLI_OPT_STRING("pin", 0, &o.pin,
                     CLI_HELP("P", "the pinned backend (jit(backend=P)) of that context")),
      CLI_OPT_FLAG("json", 0, &o.json, CLI_OUTPUT,
                   CLI_HELP(NULL, "the same as one JSON object on stdout (an error as its "
                            "\"error\" member, nothing on stderr)")),
  };
  int code = cli_parse_options("platforms", argc, argv, table, sizeof table / sizeof table[0], help);
  lsim_error err = LSIM_ERROR_INIT;
  int rc = code ? LSIM_OK : lsim_runtime_create_default(&o.rt, &err);
  if (!code && !rc && o.jax_platforms)
    rc = lsim_runtime_set_jax_platforms(o.rt, o.jax_platforms, &err);
  if (!code && !rc && (rc = add_factories(&o, &err)) > 0)
    code = rc, rc = LSIM_OK;
  if (!code && o.json) {
    cli_json j;
    cli_json_begin(&j, stdout, "platforms");
    if (!rc)
      rc = lsim_runtime_backends(o.rt, &err);
    if (!rc)
      json_runtime(&j, o.rt, o.jax_platforms);
    if (!rc && o.lower_for)
      rc = json_module_context(&j, o.rt, &o, &err);
    cli_json_string(&j, "outcome", rc ? "error" : "ok");
    if (rc)
      cli_json_error(&j, "error", &err);
    cli_json_end(&j);
    code = cli_json_exit_code(rc);
  }
  if (!code && !rc && !o.json) {
    print_known(o.rt);
    rc = lsim_runtime_backends(o.rt, &err);
  }
  if (!code && !rc && !o.json) {
    print_backends(o.rt, o.jax_platforms);
    if (o.lower_for)
      rc = show_module_context(o.rt, &o, &err);
  }
  if (!code && rc && !o.json)
    code = err.code ? cli_report(&err) : EXIT_INVALID_INPUT;
  lsim_error_clear(&err);
  lsim_runtime_destroy(o.rt);
  free(o.factories);
  return code < 0 ? 0 : code;
}
