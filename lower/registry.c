/* lower/registry.c: the lowering-rule registry.
 * JAX counterpart: mlir.py register_lowering, _lowerings,
 * _platform_specific_lowerings and _get_lowering_rules. */
#include "lower/internal.h"
#include "support/raise.h"
#include "support/strbuf.h"

#include <stdlib.h>
#include <string.h>

typedef struct platform_entry {
  char *platform;
  lsim_rule rule;
  bool inline_rule;
} platform_entry;

typedef struct primitive_entry {
  char *name;
  bool has_default;
  lsim_rule default_rule;
  bool default_inline;
  platform_entry *platforms; /* in registration order */
  size_t num_platforms;
  lsim_trace_check_fn check;
  void *check_data;
} primitive_entry;

struct lsim_registry {
  lsim_runtime *runtime;
  const lsim_registry *parent;
  primitive_entry *prims;
  size_t num_prims, cap_prims;
};

int lsim_registry_create(lsim_runtime *runtime, const lsim_registry *parent,
                         lsim_registry **out, lsim_error *err) {
  if (!runtime || !out)
    return lsim_error_set(err, LSIM_E_INVALID_ARGUMENT, "lsim_registry_create: NULL argument");
  *out = calloc(1, sizeof **out);
  if (!*out)
    return lsimp_fail_oom(err);
  (*out)->runtime = runtime;
  (*out)->parent = parent;
  return LSIM_OK;
}

void lsim_registry_destroy(lsim_registry *reg) {
  if (!reg)
    return;
  for (size_t i = 0; i < reg->num_prims; i++) {
    for (size_t j = 0; j < reg->prims[i].num_platforms; j++)
      free(reg->prims[i].platforms[j].platform);
    free(reg->prims[i].platforms);
    free(reg->prims[i].name);
  }
  free(reg->prims);
  free(reg);
}

static primitive_entry *find_own(const lsim_registry *reg, const char *name) {
  for (size_t i = 0; i < reg->num_prims; i++)
    if (strcmp(reg->prims[i].name, name) == 0)
      return &reg->prims[i];
  return NULL;
}

static const primitive_entry *find(const lsim_registry *reg, const char *name) {
  for (; reg; reg = reg->parent) {
    const primitive_entry *e = find_own(reg, name);
    if (e)
      return e;
  }
  return NULL;
}

static primitive_entry *find_or_add(lsim_registry *reg, const char *name) {
  primitive_entry *e = find_own(reg, name);
  if (e)
    return e;
  if (reg->num_prims == reg->cap_prims) {
    size_t cap = reg->cap_prims ? reg->cap_prims * 2 : 16;
    primitive_entry *grown = realloc(reg->prims, cap * sizeof *grown);
    if (!grown)
      return NULL;
    reg->prims = grown;
    reg->cap_prims = cap;
  }
  char *copy = malloc(strlen(name) + 1);
  if (!copy)
    return NULL;
  strcpy(copy, name);
  e = &reg->prims[reg->num_prims++];
  *e = (primitive_entry){.name = copy};
  return e;
}

static int set_platform_rule(primitive_entry *e, const char *platform, lsim_rule rule,
                             bool inline_rule) {
  for (size_t i = 0; i < e->num_platforms; i++) {
    if (strcmp(e->platforms[i].platform, platform) == 0) {
      e->platforms[i].rule = rule;
      e->platforms[i].inline_rule = inline_rule;
      return LSIM_OK;
    }
  }
  platform_entry *grown = realloc(e->platforms, (e->num_platforms + 1) * sizeof *grown);
  if (!grown)
    return LSIM_E_NO_MEMORY;
  e->platforms = grown;
  char *copy = malloc(strlen(platform) + 1);
  if (!copy)
    return LSIM_E_NO_MEMORY;
  strcpy(copy, platform);
  e->platforms[e->num_platforms++] = (platform_entry){copy, rule, inline_rule};
  return LSIM_OK;
}

static int unknown_platform(const lsim_registry *reg, const char *primitive, const char *platform,
                            lsim_error *err) {
  const char *const *known;
  size_t n;
  int rc = lsim_runtime_known_platforms(reg->runtime, &known, &n, err);
  if (rc)
    return rc;
  lsimp_strbuf list = LSIMP_STRBUF_INIT;
  lsimp_join(&list, known, n, ", ");
  rc = lsimp_strbuf_failed(&list)
           ? lsimp_fail_oom(err)
           : lsimp_raise(err, LSIM_E_UNKNOWN_RULE_PLATFORM, primitive, platform,
                        lsimp_strbuf_cstr(&list));
  lsimp_strbuf_free(&list);
  return rc;
}

int lsim_register_lowering(lsim_registry *reg, const char *primitive, lsim_rule rule,
                           const char *platform, bool inline_rule, lsim_error *err) {
  if (!reg || !primitive || !*primitive || !rule.fn)
    return lsim_error_set(err, LSIM_E_INVALID_ARGUMENT,
                     "lsim_register_lowering: a registry, a primitive name and a rule are needed");
  if (platform) {
    int rc = lsim_check_platform_name(platform, err);
    if (rc)
      return rc;
    if (!lsim_runtime_is_known_platform(reg->runtime, platform))
      return unknown_platform(reg, primitive, platform, err);
  }
  primitive_entry *e = find_or_add(reg, primitive);
  if (!e)
    return lsimp_fail_oom(err);
  if (!platform) {
    e->has_default = true;
    e->default_rule = rule;
    e->default_inline = inline_rule;
    return LSIM_OK;
  }
  const char *const *expanded;
  size_t n;
  lsim_expand_platform_alias(platform, &expanded, &n);
  for (size_t i = 0; i < n; i++)
    if (set_platform_rule(e, expanded ? expanded[i] : platform, rule, inline_rule))
      return lsimp_fail_oom(err);
  return LSIM_OK;
}

int lsim_registry_declare(lsim_registry *reg, const char *primitive, lsim_error *err) {
  if (!reg || !primitive || !*primitive)
    return lsim_error_set(err, LSIM_E_INVALID_ARGUMENT, "lsim_registry_declare: NULL argument");
  return find_or_add(reg, primitive) ? LSIM_OK : lsimp_fail_oom(err);
}

int lsim_registry_set_trace_check(lsim_registry *reg, const char *primitive,
                                  lsim_trace_check_fn check, void *data, lsim_error *err) {
  if (!reg || !primitive)
    return lsim_error_set(err, LSIM_E_INVALID_ARGUMENT, "lsim_registry_set_trace_check: NULL argument");
  primitive_entry *e = find_or_add(reg, primitive);
  if (!e)
    return lsimp_fail_oom(err);
  e->check = check;
  e->check_data = data;
  return LSIM_OK;
}

bool lsim_registry_lookup(const lsim_registry *reg, const char *primitive,
                          const char *const *platforms, size_t count, lsim_platform_rule *out,
                          size_t *num_out, lsim_rule *default_rule, bool *has_default,
                          bool *inline_rule) {
  const primitive_entry *e = find(reg, primitive);
  *num_out = 0;
  *has_default = false;
  *inline_rule = true;
  if (!e)
    return false;
  for (size_t i = 0; i < count; i++) {
    for (size_t j = 0; j < e->num_platforms; j++) {
      if (strcmp(e->platforms[j].platform, platforms[i]) == 0) {
        out[(*num_out)++] = (lsim_platform_rule){platforms[i], e->platforms[j].rule};
        *inline_rule = *inline_rule && e->platforms[j].inline_rule;
      }
    }
  }
  if (e->has_default) {
    *has_default = true;
    *default_rule = e->default_rule;
    *inline_rule = *inline_rule && e->default_inline;
  }
  return true;
}

int lsim_registry_trace_check(const lsim_registry *reg, const char *primitive,
                              const lsim_aval *avals_in, size_t num_in, const lsim_aval *avals_out,
                              size_t num_out, const void *params, lsim_error *err) {
  const primitive_entry *e = find(reg, primitive);
  return e && e->check ? e->check(avals_in, num_in, avals_out, num_out, params, e->check_data, err)
                       : LSIM_OK;
}
