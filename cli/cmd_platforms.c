/* cli/cmd_platforms.c: `lowersim platforms`: known platforms and aliases, and
 * the backends a simulated runtime initializes (xla_bridge.backends()).  With
 * --lower-for, also what a ModuleContext for those platforms gets from
 * get_backend, optional or not. */
#include "cli.h"
#include "lowersim/module_context.h"
#include "lowersim/runtime.h"

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
         "for cpu or tpu replace them.\n\n"
         "  --jax-platforms LIST   the JAX_PLATFORMS value, e.g. cuda,cpu\n"
         "  --backend P[=N]        a backend factory for P with N devices (default 1);\n"
         "                         priorities and quietness are JAX's for P\n"
         "  --fail P=MESSAGE       a factory for P that fails with MESSAGE\n"
         "  --lower-for LIST       a ModuleContext for these lowering platforms: shows the\n"
         "                         canonicalized platforms and get_backend's outcome\n"
         "  --pin P                the pinned backend (jit(backend=P)) of that context\n\n"
         "Without --backend or --fail: a working backend for each platform named in\n"
         "--jax-platforms (aliases expanded), each with one device.\n");
}

typedef struct options {
  const char *jax_platforms;
  const char *lower_for;
  const char *pin;
  int n_factories;
} options;

static int add_factory(lsim_runtime *rt, const char *spec, bool failing, lsim_error *err) {
  char name[LSIM_PLATFORM_NAME_MAX + 2];
  const char *eq = strchr(spec, '=');
  size_t len = eq ? (size_t)(eq - spec) : strlen(spec);
  if (len >= sizeof name)
    len = sizeof name - 1;
  memcpy(name, spec, len);
  name[len] = '\0';
  lsim_backend_factory f;
  lsim_backend_factory_defaults(&f, name);
  if (failing) {
    f.error = eq ? eq + 1 : "failed";
  } else if (eq) {
    char *end;
    long n = strtol(eq + 1, &end, 10);
    if (*end || n < 0 || n > 1 << 20) {
      fprintf(stderr, "lowersim platforms: bad device count in '%s'\n", spec);
      return LSIM_E_INVALID_ARGUMENT;
    }
    f.device_count = (int)n;
  }
  return lsim_runtime_register_backend_factory(rt, &f, err);
}

/* The default factories: JAX's, plus a working one for every platform
 * JAX_PLATFORMS names. */
static int add_implied_factories(lsim_runtime *rt, const char *jax_platforms, lsim_error *err) {
  int rc = LSIM_OK;
  if (!jax_platforms)
    return rc;
  char *list = strdup(jax_platforms);
  if (!list)
    return LSIM_E_NO_MEMORY;
  for (char *item = strtok(list, ","); item && !rc; item = strtok(NULL, ",")) {
    const char *const *expanded;
    size_t n;
    lsim_expand_platform_alias(item, &expanded, &n);
    for (size_t i = 0; i < n && !rc; i++)
      rc = add_factory(rt, expanded ? expanded[i] : item, false, err);
  }
  free(list);
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
  for (size_t i = 0; i < lsim_runtime_warning_count(rt); i++) {
    printf("warning           %s: ", lsim_runtime_warning_category(rt, i));
    cli_put_line(stdout, lsim_runtime_warning_at(rt, i));
  }
}

static int show_module_context(lsim_runtime *rt, const options *o, lsim_error *err) {
  char *list = strdup(o->lower_for);
  const char *names[64];
  size_t n = 0;
  if (!list)
    return LSIM_E_NO_MEMORY;
  for (char *item = strtok(list, ","); item && n < 64; item = strtok(NULL, ","))
    names[n++] = item;
  const lsim_backend *pinned = NULL;
  int rc = o->pin ? lsim_runtime_get_backend(rt, o->pin, &pinned, err) : LSIM_OK;
  lsim_module_context *ctx = NULL;
  if (!rc) {
    lsim_module_context_options mo = LSIM_MODULE_CONTEXT_OPTIONS_INIT(
        .runtime = rt, .platforms = names, .num_platforms = n, .backend = pinned);
    rc = lsim_module_context_create(&mo, &ctx, err);
  }
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
  free(list);
  return rc;
}

int cmd_platforms(int argc, char **argv) {
  options o = {0};
  lsim_error err = LSIM_ERROR_INIT;
  lsim_runtime *rt = NULL;
  int rc = lsim_runtime_create_default(&rt, &err);
  for (int i = 1; i < argc && !rc; i++) {
    const char *a = argv[i];
    const char *value = i + 1 < argc ? argv[i + 1] : NULL;
    if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
      help();
      lsim_runtime_destroy(rt);
      return 0;
    }
    bool takes_value = strcmp(a, "--jax-platforms") == 0 || strcmp(a, "--backend") == 0 ||
                       strcmp(a, "--fail") == 0 || strcmp(a, "--lower-for") == 0 ||
                       strcmp(a, "--pin") == 0;
    if (!takes_value) {
      lsim_runtime_destroy(rt);
      return cli_usage_error("platforms", "unknown option '%s' (see --help)", a);
    }
    if (!value) {
      lsim_runtime_destroy(rt);
      return cli_usage_error("platforms", "%s needs a value", a);
    }
    i++;
    if (strcmp(a, "--jax-platforms") == 0) {
      o.jax_platforms = value;
      rc = lsim_runtime_set_jax_platforms(rt, value, &err);
    } else if (strcmp(a, "--lower-for") == 0) {
      o.lower_for = value;
    } else if (strcmp(a, "--pin") == 0) {
      o.pin = value;
    } else {
      o.n_factories++;
      rc = add_factory(rt, value, strcmp(a, "--fail") == 0, &err);
    }
  }
  if (!rc && o.n_factories == 0)
    rc = add_implied_factories(rt, o.jax_platforms, &err);
  if (!rc) {
    print_known(rt);
    rc = lsim_runtime_backends(rt, &err);
  }
  if (!rc) {
    print_backends(rt, o.jax_platforms);
    if (o.lower_for)
      rc = show_module_context(rt, &o, &err);
  }
  int exit_code = rc ? (err.code ? cli_report(&err) : EXIT_INVALID_INPUT) : 0;
  lsim_error_clear(&err);
  lsim_runtime_destroy(rt);
  return exit_code;
}
