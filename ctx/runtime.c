/* ctx/runtime.c: platforms, aliases and the simulated runtime.
 * JAX counterpart: jax/_src/xla_bridge.py (expand_platform_alias,
 * known_platforms, canonicalize_platform, backends, _init_backend,
 * _get_backend_uncached). */
#include "lowersim/alloc.h"
#include "lowersim/runtime.h"
#include "support/name_index.h"
#include "support/options.h"
#include "support/raise.h"
#include "support/strbuf.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

static const char *const builtin_platforms[] = {"cpu", "cuda", "rocm", "oneapi", "tpu"};
static const char *const gpu_platforms[] = {"cuda", "rocm", "oneapi"};
/* xla_bridge: _nonexperimental_plugins. */
static const char *const nonexperimental_plugins[] = {"cuda", "rocm"};
/* The jax_plugins packages: xb.register_plugin(name, priority=500). */
static const char *const jax_plugins[] = {"cuda", "rocm", "oneapi"};
/* Factories JAX registers on import whatever is installed. */
static const char *const import_time_factories[] = {"cpu", "tpu"};

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

static bool in_list(const char *s, const char *const *list, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (strcmp(s, list[i]) == 0)
      return true;
  return false;
}

const char *const *lsim_builtin_platforms(size_t *count) {
  *count = COUNT(builtin_platforms);
  return builtin_platforms;
}

bool lsim_is_platform_alias(const char *platform) {
  return platform && strcmp(platform, "gpu") == 0;
}

void lsim_expand_platform_alias(const char *platform, const char *const **out, size_t *count) {
  bool alias = lsim_is_platform_alias(platform);
  *out = alias ? gpu_platforms : NULL;
  *count = alias ? COUNT(gpu_platforms) : 1;
}

int lsim_check_platform_name(const char *platform, lsim_error *err) {
  if (!platform)
    return lsim_error_set(err, LSIM_E_INVALID_ARGUMENT, "platform name is NULL");
  size_t n = strlen(platform);
  if (n == 0)
    return lsim_error_set(err, LSIM_E_INVALID_ARGUMENT, "platform name is empty");
  if (n > LSIM_PLATFORM_NAME_MAX)
    return lsim_error_set(err, LSIM_E_INVALID_ARGUMENT,
                     "platform name is %zu characters long; the limit is %d", n,
                     LSIM_PLATFORM_NAME_MAX);
  for (size_t i = 0; i < n; i++) {
    char c = platform[i];
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '_' || c == '.' || c == '-';
    if (!ok)
      return lsim_error_set(err, LSIM_E_INVALID_ARGUMENT,
                       "platform name '%s' has a character outside [A-Za-z0-9_.-]", platform);
  }
  return LSIM_OK;
}

void lsim_backend_factory_defaults(lsim_backend_factory *f, const char *platform) {
  *f = (lsim_backend_factory)LSIM_BACKEND_FACTORY_INIT(.platform = platform, .device_count = 1);
  if (strcmp(platform, "cpu") == 0) {
    f->priority = 0;
  } else if (strcmp(platform, "tpu") == 0) {
    f->priority = 300;
    f->fail_quietly = true;
  } else {
    f->priority = in_list(platform, jax_plugins, COUNT(jax_plugins)) ? 500 : 400;
    f->experimental = !in_list(platform, nonexperimental_plugins, COUNT(nonexperimental_plugins));
  }
}

const char *lsim_default_device_kind(const char *platform) {
  return strcmp(platform, "tpu") == 0 ? "TPU v5 lite" : platform;
}

const char *lsim_default_compute_capability(const char *platform) {
  if (strcmp(platform, "cuda") == 0)
    return "9.0";
  return strcmp(platform, "rocm") == 0 ? "gfx942" : NULL;
}

/* "major.minor" (CUDA) or "gfx" and an architecture name (ROCm). */
static bool compute_capability_ok(const char *cc) {
  size_t n = strspn(cc, "0123456789");
  if (n > 0 && n < 10 && cc[n] == '.') {
    size_t m = strspn(cc + n + 1, "0123456789");
    return m > 0 && m < 10 && cc[n + 1 + m] == '\0';
  }
  return strncmp(cc, "gfx", 3) == 0 && cc[3] &&
         strspn(cc + 3, "0123456789abcdefghijklmnopqrstuvwxyz") == strlen(cc + 3);
}

/* --- The runtime --------------------------------------------------------- */

typedef struct factory {
  char *platform;
  int device_count;
  int priority;
  bool fail_quietly;
  bool experimental;
  char *error;
  char *device_kind;
  char *compute_capability; /* NULL: the devices have none */
} factory;

typedef struct backend_error {
  char *platform;
  char *message;
} backend_error;

typedef struct warning {
  char *category;
  char *message;
} warning;

struct lsim_runtime {
  factory *factories;
  size_t n_factories, cap_factories;
  lsimp_name_index factory_index; /* platform -> its factory */
  lsimp_name_index known_index;   /* the known platforms (is_known_platform) */

  char *jax_platforms; /* NULL: unset */

  bool initialized;
  lsim_backend *backends; /* platform points at a factory's name */
  size_t n_backends, cap_backends;
  lsimp_name_index backend_index; /* platform -> its backend */
  size_t default_index;   /* valid when n_backends > 0 */
  backend_error *errors;  /* quiet failures */
  size_t n_errors, cap_errors;
  lsimp_name_index error_index; /* platform -> its quiet failure */
  warning *warnings;
  size_t n_warnings, cap_warnings;

  /* known_platforms(), sorted: made by the first call after a registration
   * and published atomically, so threads reading a const runtime agree on
   * one list and none is lost (registration, which needs a non-const
   * runtime, drops it). */
  _Atomic(const char **) known;
};

/* Grows rt->X (of `size`-byte items) to hold one more. */
#define GROW(rt, X, size) lsim_grow_array(&(rt)->X, &(rt)->cap_##X, (rt)->n_##X + 1, (size))

/* The platforms known whatever the factories: JAX's plugins and import-time
 * factories, and the gpu alias with what it expands to. */
static bool add_fixed_known(lsimp_name_index *known) {
  const char *const *lists[] = {nonexperimental_plugins, import_time_factories, gpu_platforms};
  const size_t counts[] = {COUNT(nonexperimental_plugins), COUNT(import_time_factories),
                           COUNT(gpu_platforms)};
  bool ok = lsimp_name_index_set(known, "gpu", 0);
  for (size_t l = 0; l < COUNT(lists); l++)
    for (size_t i = 0; ok && i < counts[l]; i++)
      ok = lsimp_name_index_set(known, lists[l][i], 0);
  return ok;
}

int lsim_runtime_create(lsim_runtime **out, lsim_error *err) {
  if (!out)
    return lsim_error_set(err, LSIM_E_INVALID_ARGUMENT, "lsim_runtime_create: out is NULL");
  *out = lsim_calloc(1, sizeof(lsim_runtime));
  if (*out && add_fixed_known(&(*out)->known_index))
    return LSIM_OK;
  lsim_runtime_destroy(*out);
  *out = NULL;
  return lsimp_fail_oom(err);
}

int lsim_runtime_create_jax(const lsim_jax_profile *profile, lsim_runtime **out,
                            lsim_error *err) {
  const lsim_jax_profile *jax = lsim_jax_profile_or_default(profile);
  int rc = lsim_runtime_create(out, err);
  for (size_t i = 0; !rc && i < COUNT(import_time_factories); i++) {
    lsim_backend_factory f;
    lsim_backend_factory_defaults(&f, import_time_factories[i]);
    if (strcmp(import_time_factories[i], "tpu") == 0)
      f.error = jax->tpu_factory_error;
    rc = lsim_runtime_register_backend_factory(*out, &f, err);
  }
  /* xla_bridge registers the IFRT Proxy's factory after tpu's (from
   * 0.12.0): priority -1, so never the default, failing quietly unless
   * jax_backend_target names a server, which a scenario cannot. */
  if (!rc && jax->proxy_factory_error) {
    lsim_backend_factory f = LSIM_BACKEND_FACTORY_INIT(
        .platform = "proxy", .priority = -1, .fail_quietly = true,
        .error = jax->proxy_factory_error);
    rc = lsim_runtime_register_backend_factory(*out, &f, err);
  }
  if (rc && out && *out) {
    lsim_runtime_destroy(*out);
    *out = NULL;
  }
  return rc;
}

int lsim_runtime_create_default(lsim_runtime **out, lsim_error *err) {
  return lsim_runtime_create_jax(NULL, out, err);
}

static void free_factory(factory *f) {
  free(f->platform);
  free(f->error);
  free(f->device_kind);
  free(f->compute_capability);
}

static void clear_backends(lsim_runtime *rt) {
  free(rt->backends);
  rt->backends = NULL;
  rt->n_backends = rt->cap_backends = 0;
  lsimp_name_index_clear(&rt->backend_index);
  for (size_t i = 0; i < rt->n_errors; i++) {
    free(rt->errors[i].platform);
    free(rt->errors[i].message);
  }
  free(rt->errors);
  rt->errors = NULL;
  rt->n_errors = rt->cap_errors = 0;
  lsimp_name_index_clear(&rt->error_index);
}

void lsim_runtime_destroy(lsim_runtime *rt) {
  if (!rt)
    return;
  clear_backends(rt);
  for (size_t i = 0; i < rt->n_factories; i++)
    free_factory(&rt->factories[i]);
  free(rt->factories);
  for (size_t i = 0; i < rt->n_warnings; i++) {
    free(rt->warnings[i].category);
    free(rt->warnings[i].message);
  }
  free(rt->warnings);
  free(rt->jax_platforms);
  free((void *)atomic_load(&rt->known));
  lsimp_name_index_free(&rt->factory_index);
  lsimp_name_index_free(&rt->known_index);
  lsimp_name_index_free(&rt->backend_index);
  lsimp_name_index_free(&rt->error_index);
  free(rt);
}

static factory *find_factory(const lsim_runtime *rt, const char *platform) {
  size_t i;
  return lsimp_name_index_find(&rt->factory_index, platform, &i) ? &rt->factories[i] : NULL;
}

int lsim_runtime_register_backend_factory(lsim_runtime *rt, const lsim_backend_factory *given,
                                          lsim_error *err) {
  lsim_backend_factory copied, *f = &copied;
  if (!rt || !given)
    return lsim_error_set(err, LSIM_E_INVALID_ARGUMENT,
                          "lsim_runtime_register_backend_factory: NULL argument");
  int rc = lsimp_options_copy(&copied, sizeof copied, given, "lsim_backend_factory", err);
  if (!rc)
    rc = lsim_check_platform_name(f->platform, err);
  if (rc)
    return rc;
  if (lsim_is_platform_alias(f->platform))
    return lsim_error_set(err, LSIM_E_INVALID_ARGUMENT,
                     "'%s' is an alias, not a platform a backend can have", f->platform);
  if (f->device_count < 0)
    return lsim_error_set(err, LSIM_E_INVALID_ARGUMENT, "backend '%s' has a negative device count",
                     f->platform);
  if (rt->initialized)
    return lsim_error_set(err, LSIM_E_INVALID_ARGUMENT, "Backend %s already initialized",
                     f->platform);
  if (f->compute_capability && !compute_capability_ok(f->compute_capability))
    return lsim_error_set(err, LSIM_E_INVALID_ARGUMENT,
                          "compute capability '%s' is neither major.minor nor gfx...",
                          f->compute_capability);
  const char *kind = f->device_kind ? f->device_kind : lsim_default_device_kind(f->platform);
  const char *cc =
      f->compute_capability ? f->compute_capability : lsim_default_compute_capability(f->platform);
  factory copy = {
      .platform = lsim_strdup(f->platform),
      .device_count = f->device_count,
      .priority = f->priority,
      .fail_quietly = f->fail_quietly,
      .experimental = f->experimental,
      .error = f->error ? lsim_strdup(f->error) : NULL,
      .device_kind = lsim_strdup(kind),
      .compute_capability = cc ? lsim_strdup(cc) : NULL,
  };
  factory *slot = find_factory(rt, f->platform);
  size_t at = slot ? (size_t)(slot - rt->factories) : rt->n_factories;
  if (!copy.platform || (f->error && !copy.error) || !copy.device_kind ||
      (cc && !copy.compute_capability) ||
      (!slot && !GROW(rt, factories, sizeof(factory))) ||
      !lsimp_name_index_reserve(&rt->factory_index, 1) ||
      !lsimp_name_index_reserve(&rt->known_index, 1)) {
    free_factory(&copy);
    return lsimp_fail_oom(err);
  }
  /* Both tables take the new copy of the name (an old one is freed). */
  lsimp_name_index_set(&rt->factory_index, copy.platform, at);
  lsimp_name_index_set(&rt->known_index, copy.platform, 0);
  if (slot) {
    free_factory(slot);
  } else {
    slot = &rt->factories[rt->n_factories++];
  }
  *slot = copy;
  free((void *)atomic_exchange(&rt->known, NULL));
  return LSIM_OK;
}

int lsim_runtime_set_jax_platforms(lsim_runtime *rt, const char *jax_platforms, lsim_error *err) {
  if (!rt)
    return lsim_error_set(err, LSIM_E_INVALID_ARGUMENT, "lsim_runtime_set_jax_platforms: rt is NULL");
  if (rt->initialized)
    return lsim_error_set(err, LSIM_E_INVALID_ARGUMENT,
                     "JAX_PLATFORMS cannot change once backends are initialized");
  char *copy = NULL;
  if (jax_platforms && *jax_platforms) {
    if (!(copy = lsim_strdup(jax_platforms)))
      return lsimp_fail_oom(err);
    for (char *item = copy;;) {
      char *comma = strchr(item, ',');
      if (comma)
        *comma = '\0';
      int rc = lsim_check_platform_name(item, err);
      if (rc) {
        rc = lsim_error_set(err, LSIM_E_INVALID_ARGUMENT, "JAX_PLATFORMS='%s': %s", jax_platforms,
                  lsim_error_message(err));
        free(copy);
        return rc;
      }
      if (!comma)
        break;
      *comma = ',';
      item = comma + 1;
    }
  }
  free(rt->jax_platforms);
  rt->jax_platforms = copy;
  return LSIM_OK;
}

static int compare_str(const void *a, const void *b) {
  return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The names of known_index, sorted; NULL when out of memory.  The list
 * ends with a NULL entry, which known_platforms does not count. */
static const char **sorted_known(const lsim_runtime *rt) {
  const char **list = lsim_malloc_array(rt->known_index.count + 1, sizeof *list);
  if (!list)
    return NULL;
  size_t n = 0;
  for (size_t i = 0; i < rt->known_index.cap; i++)
    if (rt->known_index.slots[i].name)
      list[n++] = rt->known_index.slots[i].name;
  qsort(list, n, sizeof *list, compare_str);
  list[n] = NULL;
  return list;
}

int lsim_runtime_known_platforms(const lsim_runtime *rt, const char *const **out, size_t *count,
                                 lsim_error *err) {
  if (!rt || !out || !count)
    return lsim_error_set(err, LSIM_E_INVALID_ARGUMENT, "lsim_runtime_known_platforms: NULL argument");
  _Atomic(const char **) *known = &((lsim_runtime *)rt)->known;
  const char **list = atomic_load(known);
  if (!list) {
    const char **made = sorted_known(rt);
    if (!made)
      return lsimp_fail_oom(err);
    list = NULL;
    if (atomic_compare_exchange_strong(known, &list, made))
      list = made;
    else
      free(made); /* another thread published the same list first */
  }
  *out = list;
  *count = rt->known_index.count;
  return LSIM_OK;
}

bool lsim_runtime_is_known_platform(const lsim_runtime *rt, const char *platform) {
  return rt && platform && lsimp_name_index_find(&rt->known_index, platform, NULL);
}

/* --- backends() ---------------------------------------------------------- */

static bool add_warning(lsim_runtime *rt, const char *category, const char *message) {
  warning w = {lsim_strdup(category), lsim_strdup(message)};
  if (!w.category || !w.message || !GROW(rt, warnings, sizeof(warning))) {
    free(w.category);
    free(w.message);
    return false;
  }
  rt->warnings[rt->n_warnings++] = w;
  return true;
}

/* A WARNING record of xla_bridge's logger (`fmt` with one %s). */
static bool log_warning(lsim_runtime *rt, const char *fmt, const char *value) {
  lsimp_strbuf sb = LSIMP_STRBUF_INIT;
  lsimp_strbuf_printf(&sb, fmt, value);
  bool ok = !lsimp_strbuf_failed(&sb) && add_warning(rt, LSIM_XLA_BRIDGE_LOGGER,
                                                     lsimp_strbuf_cstr(&sb));
  lsimp_strbuf_free(&sb);
  return ok;
}

int lsim_runtime_warn(lsim_runtime *rt, const char *category, const char *message,
                      lsim_error *err) {
  if (!rt || !category || !message)
    return lsim_error_set(err, LSIM_E_INVALID_ARGUMENT, "lsim_runtime_warn: NULL argument");
  return add_warning(rt, category, message) ? LSIM_OK : lsimp_fail_oom(err);
}

/* _init_backend: on failure `why` receives the exception text. */
static int init_backend(lsim_runtime *rt, const char *platform, lsimp_strbuf *why,
                        const factory **made) {
  const factory *f = find_factory(rt, platform);
  if (!f) {
    lsimp_strbuf_printf(why, "Backend '%s' is not in the list of known backends: ", platform);
    const char **names = lsim_malloc_array(rt->n_factories + 1, sizeof(char *));
    if (!names)
      return LSIM_E_NO_MEMORY;
    for (size_t i = 0; i < rt->n_factories; i++)
      names[i] = rt->factories[i].platform;
    lsimp_py_list(why, names, rt->n_factories);
    free(names);
    lsimp_strbuf_putc(why, '.');
    return LSIM_E_BACKEND_INIT;
  }
  if (f->experimental &&
      !log_warning(rt, "Platform '%s' is experimental and not all JAX functionality may be "
                       "correctly supported!", platform))
    return LSIM_E_NO_MEMORY;
  if (f->error) {
    lsimp_strbuf_puts(why, f->error);
    return LSIM_E_BACKEND_INIT;
  }
  if (f->device_count == 0) {
    lsimp_strbuf_printf(why, "Backend '%s' provides no devices.", platform);
    return LSIM_E_BACKEND_INIT;
  }
  *made = f;
  return LSIM_OK;
}

static lsim_backend *find_backend(const lsim_runtime *rt, const char *platform) {
  size_t i;
  return lsimp_name_index_find(&rt->backend_index, platform, &i) ? &rt->backends[i] : NULL;
}

/* Records an initialized backend; a platform initialized twice (a repeat in
 * JAX_PLATFORMS) keeps its first place, as a Python dict does. */
static lsim_backend *add_backend(lsim_runtime *rt, const factory *f, int priority) {
  lsim_backend *b = find_backend(rt, f->platform);
  if (!b) {
    if (!GROW(rt, backends, sizeof(lsim_backend)) ||
        !lsimp_name_index_set(&rt->backend_index, f->platform, rt->n_backends))
      return NULL;
    b = &rt->backends[rt->n_backends++];
  }
  *b = (lsim_backend){f->platform, f->device_count, priority, f->device_kind,
                      f->compute_capability};
  return b;
}

static bool record_quiet_error(lsim_runtime *rt, const char *platform, const char *message) {
  if (!GROW(rt, errors, sizeof(backend_error)) ||
      !lsimp_name_index_reserve(&rt->error_index, 1))
    return false;
  backend_error e = {lsim_strdup(platform), lsim_strdup(message)};
  if (!e.platform || !e.message) {
    free(e.platform);
    free(e.message);
    return false;
  }
  size_t first = rt->n_errors; /* a platform failing twice keeps its first error */
  lsimp_name_index_add(&rt->error_index, e.platform, &first);
  rt->errors[rt->n_errors++] = e;
  return true;
}

/* One (platform, priority, fail_quietly) registration of backends(). */
typedef struct registration {
  const char *platform;
  int priority;
  bool fail_quietly;
} registration;

/* The registrations backends() tries: JAX_PLATFORMS (aliases expanded,
 * priorities descending, all loud), else every factory. */
static int list_registrations(const lsim_runtime *rt, registration **out, size_t *count) {
  size_t n = 0, cap = rt->n_factories;
  char *spec = rt->jax_platforms;
  if (spec) {
    cap = 0;
    for (const char *p = spec; p; p = strchr(p + 1, ','))
      cap += COUNT(gpu_platforms);
  }
  registration *regs = lsim_malloc_array(cap, sizeof(registration));
  if (!regs)
    return LSIM_E_NO_MEMORY;
  if (spec) {
    for (const char *item = spec; item;) {
      const char *comma = strchr(item, ',');
      size_t len = comma ? (size_t)(comma - item) : strlen(item);
      if (len == 3 && strncmp(item, "gpu", 3) == 0) {
        for (size_t i = 0; i < COUNT(gpu_platforms); i++)
          regs[n++] = (registration){gpu_platforms[i], 0, false};
      } else {
        regs[n++] = (registration){item, 0, false};
      }
      item = comma ? comma + 1 : NULL;
    }
    for (size_t i = 0; i < n; i++)
      regs[i].priority = (int)(n - i);
  } else {
    for (size_t i = 0; i < rt->n_factories; i++)
      regs[n++] = (registration){rt->factories[i].platform, rt->factories[i].priority,
                                 rt->factories[i].fail_quietly};
  }
  *out = regs;
  *count = n;
  return LSIM_OK;
}

/* The name of a JAX_PLATFORMS item, which is not NUL-terminated in place. */
static const char *registration_name(const registration *r, char *buf, size_t size) {
  const char *comma = strchr(r->platform, ',');
  size_t len = comma ? (size_t)(comma - r->platform) : strlen(r->platform);
  if (len >= size)
    len = size - 1;
  memcpy(buf, r->platform, len);
  buf[len] = '\0';
  return buf;
}

/* _suggest_missing_backends (Linux): a visible NVIDIA GPU (a registered
 * cuda factory) without a cuda backend.  jaxlib's _jax has no
 * GpuAllocatorConfig (0.10.2 and 0.11.0), so the message does not depend on
 * the quiet failure.  (The TPU suggestion needs TPU chips on the PCI bus,
 * which lowersim's machine has none of.) */
static bool suggest_missing_backends(lsim_runtime *rt) {
  if (find_backend(rt, "cuda") || !find_factory(rt, "cuda"))
    return true;
  return log_warning(rt,
                     "An NVIDIA GPU may be present on this machine, but a CUDA-enabled jaxlib "
                     "is not installed. Falling back to %s.",
                     rt->backends[rt->default_index].platform);
}

static int initialize(lsim_runtime *rt, lsim_error *err) {
  registration *regs;
  size_t n;
  if (list_registrations(rt, &regs, &n))
    return lsimp_fail_oom(err);
  int default_priority = -1000;
  int rc = LSIM_OK;
  lsimp_strbuf why = LSIMP_STRBUF_INIT;
  for (size_t i = 0; i < n && rc == LSIM_OK; i++) {
    char name[LSIM_PLATFORM_NAME_MAX + 1];
    const char *platform = registration_name(&regs[i], name, sizeof name);
    const factory *made = NULL;
    /* hardware_utils.has_visible_nvidia_gpu(): a GPU is visible exactly when
     * a cuda factory (a CUDA plugin) is registered. */
    if (strcmp(platform, "cuda") == 0 && !find_factory(rt, "cuda"))
      continue;
    lsimp_strbuf_reset(&why);
    rc = init_backend(rt, platform, &why, &made);
    if (rc == LSIM_OK) {
      lsim_backend *b = add_backend(rt, made, regs[i].priority);
      if (!b) {
        rc = LSIM_E_NO_MEMORY;
      } else if (regs[i].priority > default_priority) {
        rt->default_index = (size_t)(b - rt->backends);
        default_priority = regs[i].priority;
      }
    } else if (rc == LSIM_E_BACKEND_INIT && regs[i].fail_quietly) {
      rc = record_quiet_error(rt, platform, lsimp_strbuf_cstr(&why)) ? LSIM_OK : LSIM_E_NO_MEMORY;
    } else if (rc == LSIM_E_BACKEND_INIT) {
      const char *advice =
          rt->jax_platforms
              ? "(set JAX_PLATFORMS='' to automatically choose an available backend)"
              : "(you may need to uninstall the failing plugin package, or set "
                "JAX_PLATFORMS=cpu to skip this backend.)";
      rc = lsimp_raise(err, LSIM_E_BACKEND_INIT, platform, lsimp_strbuf_cstr(&why), advice);
    }
    if (lsimp_strbuf_failed(&why))
      rc = LSIM_E_NO_MEMORY;
  }
  lsimp_strbuf_free(&why);
  free(regs);
  if (rc == LSIM_OK && rt->n_backends == 0)
    rc = lsimp_raise0(err, LSIM_E_NO_DEFAULT_BACKEND);
  else if (rc == LSIM_OK && !rt->jax_platforms && !suggest_missing_backends(rt))
    rc = LSIM_E_NO_MEMORY;
  if (rc == LSIM_E_NO_MEMORY)
    lsimp_fail_oom(err);
  /* As in JAX, backends that came up before a failure stay; with none, the
   * next call tries again. */
  rt->initialized = rt->n_backends > 0;
  return rc;
}

int lsim_runtime_backends(lsim_runtime *rt, lsim_error *err) {
  if (!rt)
    return lsim_error_set(err, LSIM_E_INVALID_ARGUMENT, "lsim_runtime_backends: rt is NULL");
  if (rt->initialized)
    return LSIM_OK;
  clear_backends(rt);
  return initialize(rt, err);
}

size_t lsim_runtime_backend_count(const lsim_runtime *rt) {
  return rt && rt->initialized ? rt->n_backends : 0;
}

const lsim_backend *lsim_runtime_backend_at(const lsim_runtime *rt, size_t i) {
  return i < lsim_runtime_backend_count(rt) ? &rt->backends[i] : NULL;
}

const lsim_backend *lsim_runtime_default_backend(const lsim_runtime *rt) {
  return lsim_runtime_backend_count(rt) ? &rt->backends[rt->default_index] : NULL;
}

const char *lsim_runtime_backend_error(const lsim_runtime *rt, const char *platform) {
  size_t i;
  if (rt && platform && lsimp_name_index_find(&rt->error_index, platform, &i))
    return rt->errors[i].message;
  return NULL;
}

size_t lsim_runtime_warning_count(const lsim_runtime *rt) { return rt ? rt->n_warnings : 0; }

const char *lsim_runtime_warning_at(const lsim_runtime *rt, size_t i) {
  return rt && i < rt->n_warnings ? rt->warnings[i].message : NULL;
}

const char *lsim_runtime_warning_category(const lsim_runtime *rt, size_t i) {
  return rt && i < rt->n_warnings ? rt->warnings[i].category : NULL;
}

/* --- canonicalize_platform and get_backend ------------------------------- */

/* The names of the initialized backends, in initialization order. */
static const char **backend_names(const lsim_runtime *rt) {
  const char **names = lsim_malloc_array(rt->n_backends + 1, sizeof(char *));
  for (size_t i = 0; names && i < rt->n_backends; i++)
    names[i] = rt->backends[i].platform;
  return names;
}

int lsim_runtime_canonicalize_platform(lsim_runtime *rt, const char *platform, const char **out,
                                       lsim_error *err) {
  if (!rt || !out)
    return lsim_error_set(err, LSIM_E_INVALID_ARGUMENT,
                     "lsim_runtime_canonicalize_platform: NULL argument");
  int rc = lsim_check_platform_name(platform, err);
  if (rc)
    return rc;
  if (!lsim_is_platform_alias(platform)) {
    *out = platform;
    return LSIM_OK;
  }
  if ((rc = lsim_runtime_backends(rt, err)))
    return rc;
  for (size_t i = 0; i < COUNT(gpu_platforms); i++) {
    if (find_backend(rt, gpu_platforms[i])) {
      *out = gpu_platforms[i];
      return LSIM_OK;
    }
  }
  const char **names = backend_names(rt);
  if (!names)
    return lsimp_fail_oom(err);
  lsimp_strbuf present = LSIMP_STRBUF_INIT;
  lsimp_join(&present, names, rt->n_backends, ",");
  free(names);
  if (lsimp_strbuf_failed(&present))
    rc = lsimp_fail_oom(err);
  else
    rc = lsimp_raise(err, LSIM_E_UNKNOWN_ALIAS_PLATFORM, platform, lsimp_strbuf_cstr(&present));
  lsimp_strbuf_free(&present);
  return rc;
}

int lsim_runtime_get_backend(lsim_runtime *rt, const char *platform, const lsim_backend **out,
                             lsim_error *err) {
  if (!rt || !out)
    return lsim_error_set(err, LSIM_E_INVALID_ARGUMENT, "lsim_runtime_get_backend: NULL argument");
  int rc = platform ? lsim_check_platform_name(platform, err) : LSIM_OK;
  if (rc || (rc = lsim_runtime_backends(rt, err)))
    return rc;
  if (!platform) {
    *out = lsim_runtime_default_backend(rt);
    return LSIM_OK;
  }
  if ((rc = lsim_runtime_canonicalize_platform(rt, platform, &platform, err)))
    return rc;
  const lsim_backend *b = find_backend(rt, platform);
  if (b) {
    *out = b;
    return LSIM_OK;
  }
  const char **names = backend_names(rt);
  if (!names)
    return lsimp_fail_oom(err);
  lsimp_strbuf available = LSIMP_STRBUF_INIT;
  lsimp_py_list(&available, names, rt->n_backends);
  free(names);
  const char *quiet = lsim_runtime_backend_error(rt, platform);
  if (lsimp_strbuf_failed(&available))
    rc = lsimp_fail_oom(err);
  else if (quiet)
    rc = lsimp_raise(err, LSIM_E_BACKEND_FAILED, platform, quiet, lsimp_strbuf_cstr(&available));
  else
    rc = lsimp_raise(err, LSIM_E_UNKNOWN_BACKEND, platform, lsimp_strbuf_cstr(&available));
  lsimp_strbuf_free(&available);
  return rc;
}
