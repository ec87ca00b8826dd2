/* fuzz/minimize.c: greedy minimization of a failing scenario.
 *
 * Each edit removes one thing (an equation, a value, an operand, a backend,
 * an alias, a rule, a branch, a return entry, a setting) from a copy of the smallest
 * failing scenario so far; the copy replaces it when the same invariant
 * still fails with the same status.  Rounds repeat until no edit helps. */
#include "internal.h"
#include "lowersim/alloc.h"
#include "lowersim/scenario_kind.h"

#include <stdlib.h>
#include <string.h>

/* An edit: how many places it applies to in `s`, and applying it at `i`
 * (false when it does not apply there). */
typedef size_t (*edit_count_fn)(const lsim_scenario *s);
typedef bool (*edit_apply_fn)(lsim_scenario *s, size_t i, int *rc, lsim_error *err);

typedef struct edit {
  edit_count_fn count;
  edit_apply_fn apply;
} edit;

/* --- Values and equations (renumbered by lsim_fuzz_scenario_prune) --------- */

/* Prunes equation `i` (or value `i`) of `n`, and what depends on it. */
static bool prune_one(lsim_scenario *s, size_t n, size_t i, bool value, int *rc, lsim_error *err) {
  bool *mask = lsim_calloc(n, sizeof *mask);
  if (!mask) {
    *rc = lsim_fuzz_no_memory(err);
    return false;
  }
  mask[i] = true;
  *rc = lsim_fuzz_scenario_prune(s, value ? mask : NULL, value ? NULL : mask, err);
  free(mask);
  return !*rc;
}

static size_t count_eqns(const lsim_scenario *s) { return s->num_eqns; }

static bool drop_eqn(lsim_scenario *s, size_t i, int *rc, lsim_error *err) {
  return prune_one(s, s->num_eqns, i, false, rc, err);
}

static size_t count_values(const lsim_scenario *s) { return lsim_fuzz_scenario_num_values(s); }

static bool drop_value(lsim_scenario *s, size_t i, int *rc, lsim_error *err) {
  return prune_one(s, lsim_fuzz_scenario_num_values(s), i, true, rc, err);
}

/* --- Items of an equation: operands, and the parts its kind can lose ---------- */

/* The equation and item of flat index `i` over every equation's items. */
typedef size_t (*items_of_fn)(const lsim_scenario_eqn *e);

/* Operands an equation may lose: an implied result goes with a fixed arity. */
static size_t operands_of(const lsim_scenario_eqn *e) {
  return lsim_scenario_kind_implies_result(e->kind) ? 0 : e->num_args;
}

static size_t count_items(const lsim_scenario *s, items_of_fn items) {
  size_t n = 0;
  for (size_t e = 0; e < s->num_eqns; e++)
    n += items(&s->eqns[e]);
  return n;
}

static lsim_scenario_eqn *locate(lsim_scenario *s, items_of_fn items, size_t *i) {
  for (size_t e = 0; e < s->num_eqns; e++) {
    if (*i < items(&s->eqns[e]))
      return &s->eqns[e];
    *i -= items(&s->eqns[e]);
  }
  return NULL;
}

/* Removes item `i` of an array of `*n` items of `size` bytes. */
static void remove_item(void *array, size_t *n, size_t size, size_t i) {
  char *a = array;
  memmove(a + i * size, a + (i + 1) * size, (*n - i - 1) * size);
  (*n)--;
}

static size_t count_operands(const lsim_scenario *s) { return count_items(s, operands_of); }

static bool drop_operand(lsim_scenario *s, size_t i, int *rc, lsim_error *err) {
  (void)rc, (void)err;
  lsim_scenario_eqn *e = locate(s, operands_of, &i);
  remove_item(e->args, &e->num_args, sizeof *e->args, i);
  return true;
}

/* The parts of each equation its kind says it can lose: a buffer_callback's
 * aliases, a primitive's rules, a platform_dependent's branches. */
static size_t count_parts(const lsim_scenario *s) {
  return count_items(s, lsim_scenario_eqn_num_parts);
}

static bool drop_part(lsim_scenario *s, size_t i, int *rc, lsim_error *err) {
  (void)rc, (void)err;
  lsim_scenario_eqn *e = locate(s, lsim_scenario_eqn_num_parts, &i);
  return lsim_scenario_eqn_drop_part(e, i);
}

/* --- The runtime and the lowering's settings ---------------------------------- */

static size_t count_backends(const lsim_scenario *s) { return s->runtime.num_backends; }

static void free_backend(lsim_scenario_backend *b) {
  free(b->platform);
  free(b->error);
  free(b->device_kind);
  free(b->compute_capability);
}

static bool drop_backend(lsim_scenario *s, size_t i, int *rc, lsim_error *err) {
  (void)rc, (void)err;
  lsim_scenario_runtime *rt = &s->runtime;
  free_backend(&rt->backends[i]);
  remove_item(rt->backends, &rt->num_backends, sizeof *rt->backends, i);
  return true;
}

static size_t count_returns(const lsim_scenario *s) { return s->num_returns; }

static bool drop_return(lsim_scenario *s, size_t i, int *rc, lsim_error *err) {
  (void)rc, (void)err;
  remove_item(s->returns, &s->num_returns, sizeof *s->returns, i);
  return true;
}

/* Lowering platforms: drop the i-th name of the comma list. */
static size_t count_platforms(const lsim_scenario *s) {
  size_t n = s->platforms ? 1 : 0;
  for (const char *p = s->platforms; p && *p; p++)
    n += *p == ',';
  return n > 1 ? n : 0;
}

static bool drop_platform(lsim_scenario *s, size_t i, int *rc, lsim_error *err) {
  (void)rc, (void)err;
  char *start = s->platforms;
  for (size_t k = 0; k < i; k++)
    start = strchr(start, ',') + 1;
  char *end = strchr(start, ',');
  if (end)
    memmove(start, end + 1, strlen(end + 1) + 1);
  else
    start[-1] = '\0'; /* the last name: cut the comma before it */
  return true;
}

/* Settings back to what an absent attribute or element means; each
 * returns false when the setting is already absent. */
typedef bool (*setting_fn)(lsim_scenario *s);

static bool clear_string(char **p) {
  bool had = *p != NULL;
  free(*p);
  *p = NULL;
  return had;
}

static bool clear_runtime(lsim_scenario *s) {
  lsim_scenario_runtime *rt = &s->runtime;
  if (!rt->present)
    return false;
  for (size_t i = 0; i < rt->num_backends; i++)
    free_backend(&rt->backends[i]);
  free(rt->backends);
  free(rt->jax_platforms);
  *rt = (lsim_scenario_runtime){0};
  return true;
}

static bool clear_jax_platforms(lsim_scenario *s) {
  return clear_string(&s->runtime.jax_platforms);
}
static bool clear_platforms(lsim_scenario *s) { return clear_string(&s->platforms); }
static bool clear_backend(lsim_scenario *s) { return clear_string(&s->backend); }

static bool clear_flag(bool *flag) {
  bool had = *flag;
  *flag = false;
  return had;
}
static bool clear_keep_unused(lsim_scenario *s) { return clear_flag(&s->keep_unused); }
static bool clear_enable_x64(lsim_scenario *s) {
  s->enable_x64 = false;
  return clear_flag(&s->has_enable_x64);
}
static bool clear_export(lsim_scenario *s) {
  clear_string(&s->disabled_checks);
  return clear_flag(&s->for_export);
}
static bool clear_disabled_checks(lsim_scenario *s) { return clear_string(&s->disabled_checks); }

static bool clear_execute(lsim_scenario *s) {
  bool had = s->execute;
  s->execute = false;
  return had;
}

static bool clear_pallas(lsim_scenario *s) {
  bool had = s->has_pallas;
  s->has_pallas = false;
  s->pallas = lsim_scenario_default_pallas();
  return had;
}

static bool clear_abstract_device(lsim_scenario *s) {
  bool had = s->has_abstract_device;
  free((char *)s->abstract_device.platform);
  free((char *)s->abstract_device.device_kind);
  s->abstract_device = (lsim_abstract_device){NULL, NULL, 0};
  s->has_abstract_device = false;
  return had;
}

static bool clear_return(lsim_scenario *s) {
  bool had = s->has_return;
  free(s->returns);
  s->returns = NULL;
  s->num_returns = 0;
  s->has_return = false;
  return had;
}

static bool plain_function(lsim_scenario *s) {
  char *f = strcmp(s->function, "f") != 0 ? lsim_strdup("f") : NULL;
  if (!f)
    return false;
  free(s->function);
  s->function = f;
  return true;
}

static const setting_fn settings[] = {
    clear_runtime,         clear_jax_platforms, clear_platforms,   clear_backend,
    clear_abstract_device, clear_execute,       clear_pallas,      clear_return,
    plain_function,        clear_export,        clear_disabled_checks, clear_keep_unused,
    clear_enable_x64};

static size_t count_settings(const lsim_scenario *s) {
  (void)s;
  return sizeof settings / sizeof settings[0];
}

static bool clear_setting(lsim_scenario *s, size_t i, int *rc, lsim_error *err) {
  (void)rc, (void)err;
  return settings[i](s);
}

static const edit edits[] = {
    {count_eqns, drop_eqn},         {count_values, drop_value},
    {count_backends, drop_backend}, {count_parts, drop_part},
    {count_returns, drop_return},   {count_platforms, drop_platform},
    {count_operands, drop_operand}, {count_settings, clear_setting},
};

/* --- The search ---------------------------------------------------------------- */

typedef struct minimizer {
  lsim_fuzz_checker *checker;
  lsim_scenario *best;      /* owned */
  lsim_fuzz_result *result; /* the result `best` gives */
  size_t checks, max_checks;
  lsim_error *err;
} minimizer;

static bool same_failure(const lsim_fuzz_result *a, const lsim_fuzz_result *b) {
  return a->failed == b->failed && a->code == b->code;
}

/* Applies edit `ed` at `i` to a copy of the best scenario and keeps the copy
 * when it fails the same way.  Returns true when it was kept. */
static bool attempt(minimizer *m, const edit *ed, size_t i, int *rc) {
  lsim_scenario *candidate;
  if ((*rc = lsim_fuzz_scenario_clone(m->best, &candidate, m->err)))
    return false;
  bool applied = ed->apply(candidate, i, rc, m->err);
  lsim_fuzz_result res = {0};
  if (applied && !*rc) {
    m->checks++;
    *rc = lsim_fuzz_check(m->checker, candidate, &res, m->err);
  }
  bool keep = applied && !*rc && same_failure(&res, m->result);
  if (keep) {
    lsim_scenario_destroy(m->best);
    m->best = candidate;
    lsim_fuzz_result_clear(m->result);
    *m->result = res;
  } else {
    lsim_scenario_destroy(candidate);
    lsim_fuzz_result_clear(&res);
  }
  return keep;
}

/* One round: every edit at every place, last places first (so a removal
 * leaves the places still to try where they were). */
static bool round_helps(minimizer *m, int *rc) {
  bool progress = false;
  for (size_t k = 0; k < sizeof edits / sizeof edits[0]; k++) {
    for (size_t i = edits[k].count(m->best); i-- > 0 && !*rc && m->checks < m->max_checks;) {
      if (i < edits[k].count(m->best))
        progress = attempt(m, &edits[k], i, rc) || progress;
    }
  }
  return progress;
}

int lsim_fuzz_minimize(lsim_fuzz_checker *c, const lsim_scenario *s, size_t max_checks,
                       lsim_fuzz_result *result, lsim_scenario **out, lsim_error *err) {
  minimizer m = {c, NULL, result, 0, max_checks, err};
  int rc = lsim_fuzz_scenario_clone(s, &m.best, err);
  bool progress = !rc;
  while (progress && m.checks < max_checks)
    progress = round_helps(&m, &rc) && !rc;
  if (rc) {
    lsim_scenario_destroy(m.best);
    return rc;
  }
  *out = m.best;
  return LSIM_OK;
}
