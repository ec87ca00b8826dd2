/* lower/registry.c: the lowering-rule tables.
 * JAX counterpart: mlir.py register_lowering, _lowerings,
 * _platform_specific_lowerings and _get_lowering_rules.  JAX's tables are
 * dicts keyed by primitive object; here one open-addressing table keyed by
 * the primitive's address, so a lookup is one hash whatever the number of
 * primitives. */
#include "lowersim/registry.h"
#include "lowersim/module_context.h"
#include "support/alloc.h"
#include "support/name_index.h"
#include "support/raise.h"
#include "support/strbuf.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct platform_entry {
  char *platform;
  lsim_rule rule;
  bool not_inline; /* registered with inline=False */
} platform_entry;

typedef struct primitive_entry {
  const lsim_primitive *primitive; /* NULL: a free slot */
  bool has_default;
  lsim_rule default_rule;
  bool default_not_inline; /* the default rule was registered with inline=False */
  platform_entry *platforms; /* in registration order */
  size_t num_platforms, cap_platforms;
  size_t num_not_inline;     /* of `platforms`, those registered with inline=False */
  lsimp_name_index platform_index; /* platform -> its place in `platforms` */
  bool uncacheable;          /* in mlir.py's _uncacheable_primitives */
} primitive_entry;

struct lsim_registry {
  lsim_runtime *runtime;
  const lsim_jax_profile *profile;
  primitive_entry *table; /* power-of-two capacity, at most 3/4 full */
  size_t num_entries, capacity;
};

int lsim_registry_create(lsim_runtime *runtime, const lsim_jax_profile *profile,
                         lsim_registry **out, lsim_error *err) {
  if (!runtime || !out)
    return lsim_error_set(err, LSIM_E_INVALID_ARGUMENT, "lsim_registry_create: NULL argument");
  *out = lsim_calloc(1, sizeof **out);
  if (!*out)
    return lsimp_fail_oom(err);
  (*out)->runtime = runtime;
  (*out)->profile = lsim_jax_profile_or_default(profile);
  return LSIM_OK;
}

void lsim_registry_destroy(lsim_registry *reg) {
  if (!reg)
    return;
  for (size_t i = 0; i < reg->capacity; i++) {
    for (size_t j = 0; j < reg->table[i].num_platforms; j++)
      free(reg->table[i].platforms[j].platform);
    free(reg->table[i].platforms);
    lsimp_name_index_free(&reg->table[i].platform_index);
  }
  free(reg->table);
  free(reg);
}

lsim_runtime *lsim_registry_runtime(const lsim_registry *reg) { return reg->runtime; }

const lsim_jax_profile *lsim_registry_profile(const lsim_registry *reg) { return reg->profile; }

static size_t slot_of(const lsim_primitive *p, size_t capacity) {
  uint64_t h = (uint64_t)(uintptr_t)p * 0x9e3779b97f4a7c15ull;
  return (size_t)(h >> 32) & (capacity - 1);
}

/* The entry of `p` in `table`, or the free slot where it would go. */
static primitive_entry *probe(primitive_entry *table, size_t capacity, const lsim_primitive *p) {
  size_t i = slot_of(p, capacity);
  while (table[i].primitive && table[i].primitive != p)
    i = (i + 1) & (capacity - 1);
  return &table[i];
}

static const primitive_entry *find(const lsim_registry *reg, const lsim_primitive *p) {
  if (!reg->capacity)
    return NULL;
  const primitive_entry *e = probe(reg->table, reg->capacity, p);
  return e->primitive ? e : NULL;
}

static void *entry_place(void *table, size_t capacity, const void *old) {
  const primitive_entry *e = old;
  return e->primitive ? probe(table, capacity, e->primitive) : NULL;
}

static bool grow(lsim_registry *reg) {
  return lsim_hash_grow(&reg->table, &reg->capacity, reg->capacity + 1, 64, sizeof *reg->table,
                        entry_place);
}

static primitive_entry *find_or_add(lsim_registry *reg, const lsim_primitive *p) {
  if ((reg->num_entries + 1) * 4 > reg->capacity * 3 && !grow(reg))
    return NULL;
  primitive_entry *e = probe(reg->table, reg->capacity, p);
  if (!e->primitive) {
    e->primitive = p;
    reg->num_entries++;
  }
  return e;
}

static int set_platform_rule(primitive_entry *e, const char *platform, lsim_rule rule,
                             bool not_inline) {
  size_t at;
  if (lsimp_name_index_find(&e->platform_index, platform, &at)) {
    e->platforms[at].rule = rule;
    e->num_not_inline += (size_t)not_inline - (size_t)e->platforms[at].not_inline;
    e->platforms[at].not_inline = not_inline;
    return LSIM_OK;
  }
  if (!lsim_grow_array(&e->platforms, &e->cap_platforms, e->num_platforms + 1,
                        sizeof *e->platforms))
    return LSIM_E_NO_MEMORY;
  char *copy = lsim_strdup(platform);
  if (!copy || !lsimp_name_index_set(&e->platform_index, copy, e->num_platforms)) {
    free(copy);
    return LSIM_E_NO_MEMORY;
  }
  e->platforms[e->num_platforms++] = (platform_entry){copy, rule, not_inline};
  e->num_not_inline += not_inline;
  return LSIM_OK;
}

/* register_lowering's check: `platform` must be a known one. */
static int check_known(const lsim_registry *reg, const char *primitive, const char *platform,
                       lsim_error *err) {
  if (lsim_runtime_is_known_platform(reg->runtime, platform))
    return LSIM_OK;
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

/* register_lowering(prim, rule, platform, inline=..., cacheable=...): an
 * uncacheable primitive is marked first, whether or not the platform is
 * known. */
static int register_lowering(lsim_registry *reg, const lsim_primitive *primitive, lsim_rule rule,
                             const char *platform, bool cacheable, bool not_inline,
                             lsim_error *err) {
  if (!reg || !primitive || !primitive->name || !rule.fn)
    return lsim_error_set(err, LSIM_E_INVALID_ARGUMENT,
                          "lsim_register_lowering: a registry, a primitive and a rule are needed");
  if (!cacheable) {
    primitive_entry *e = find_or_add(reg, primitive);
    if (!e)
      return lsimp_fail_oom(err);
    e->uncacheable = true;
  }
  if (platform) {
    int rc = lsim_check_platform_name(platform, err);
    if (rc)
      return rc;
    if ((rc = check_known(reg, primitive->name, platform, err)))
      return rc;
  }
  primitive_entry *e = find_or_add(reg, primitive);
  if (!e)
    return lsimp_fail_oom(err);
  if (!platform) {
    e->has_default = true;
    e->default_rule = rule;
    e->default_not_inline = not_inline;
    return LSIM_OK;
  }
  const char *const *expanded;
  size_t n;
  lsim_expand_platform_alias(platform, &expanded, &n);
  for (size_t i = 0; i < n; i++)
    if (set_platform_rule(e, expanded ? expanded[i] : platform, rule, not_inline))
      return lsimp_fail_oom(err);
  return LSIM_OK;
}

int lsim_register_lowering(lsim_registry *reg, const lsim_primitive *primitive, lsim_rule rule,
                           const char *platform, lsim_error *err) {
  return register_lowering(reg, primitive, rule, platform, true, false, err);
}

int lsim_register_lowering_uncacheable(lsim_registry *reg, const lsim_primitive *primitive,
                                       lsim_rule rule, const char *platform, lsim_error *err) {
  return register_lowering(reg, primitive, rule, platform, false, false, err);
}

int lsim_register_lowering_not_inline(lsim_registry *reg, const lsim_primitive *primitive,
                                      lsim_rule rule, const char *platform, lsim_error *err) {
  return register_lowering(reg, primitive, rule, platform, true, true, err);
}

bool lsim_registry_is_cacheable(const lsim_registry *reg, const lsim_primitive *primitive) {
  const primitive_entry *e = find(reg, primitive);
  return !e || !e->uncacheable;
}

/* Rules in the order of their platforms: the module context keeps its
 * platform names in one block, in order, so the names' addresses order them. */
static int by_platform(const void *a, const void *b) {
  const char *x = ((const lsim_platform_rule *)a)->platform;
  const char *y = ((const lsim_platform_rule *)b)->platform;
  return (x > y) - (x < y);
}

void lsim_get_lowering_rules_in(const lsim_registry *reg, const lsim_primitive *primitive,
                                const lsim_module_context *mc, lsim_platform_rule *out,
                                size_t *num_out, const lsim_rule **default_rule) {
  size_t count;
  const char *const *platforms = lsim_module_context_platforms(mc, &count);
  const primitive_entry *e = find(reg, primitive);
  if (!e || e->num_platforms >= count || lsim_module_context_explaining(mc)) {
    lsim_get_lowering_rules(reg, primitive, platforms, count, out, num_out, default_rule);
    return;
  }
  *num_out = 0;
  *default_rule = e->has_default ? &e->default_rule : NULL;
  for (size_t j = 0; j < e->num_platforms; j++) {
    size_t at;
    if (lsim_module_context_platform_index(mc, e->platforms[j].platform, &at))
      out[(*num_out)++] = (lsim_platform_rule){platforms[at], e->platforms[j].rule};
  }
  qsort(out, *num_out, sizeof *out, by_platform);
}

void lsim_get_lowering_rules(const lsim_registry *reg, const lsim_primitive *primitive,
                             const char *const *platforms, size_t count, lsim_platform_rule *out,
                             size_t *num_out, const lsim_rule **default_rule) {
  const primitive_entry *e = find(reg, primitive);
  *num_out = 0;
  *default_rule = e && e->has_default ? &e->default_rule : NULL;
  size_t at;
  for (size_t i = 0; e && e->num_platforms && i < count; i++)
    if (lsimp_name_index_find(&e->platform_index, platforms[i], &at))
      out[(*num_out)++] = (lsim_platform_rule){platforms[i], e->platforms[at].rule};
}

bool lsim_lowering_rules_inline(const lsim_registry *reg, const lsim_primitive *primitive,
                                const char *const *platforms, size_t count) {
  const primitive_entry *e = find(reg, primitive);
  if (!e)
    return true;
  bool inline_ = !(e->has_default && e->default_not_inline);
  size_t at;
  /* Only a platform rule registered with inline=False can say otherwise:
   * without one, no platform need be looked up (n platforms, n equations). */
  for (size_t i = 0; inline_ && e->num_not_inline && i < count; i++)
    if (lsimp_name_index_find(&e->platform_index, platforms[i], &at))
      inline_ = !e->platforms[at].not_inline;
  return inline_;
}
