/* fuzz/edit.c: copying, serializing and pruning scenarios, what the
 * minimizer builds its candidates with. */
#include "internal.h"
#include "lowersim/alloc.h"
#include "lowersim/scenario_kind.h"

#include <stdlib.h>
#include <string.h>

/* --- Deep copies --------------------------------------------------------- */

/* Copies remember a failed allocation instead of stopping: every pointer of
 * the copy is replaced (by a copy or NULL), so the copy can always be
 * destroyed, and never points into the original. */
typedef struct copier {
  bool oom;
} copier;

static char *copy_string(copier *c, const char *s) {
  if (!s)
    return NULL;
  char *d = lsim_strdup(s);
  c->oom = c->oom || !d;
  return d;
}

/* NULL stays NULL: for <return>, a NULL list and an empty one differ. */
static void *copy_array(copier *c, const void *src, size_t n, size_t size) {
  if (!src)
    return NULL;
  void *d = lsim_malloc_array(n, size);
  if (!d) {
    c->oom = true;
    return NULL;
  }
  if (n)
    memcpy(d, src, n * size);
  return d;
}

static void copy_runtime(copier *c, lsim_scenario_runtime *rt) {
  rt->jax_platforms = copy_string(c, rt->jax_platforms);
  rt->backends = copy_array(c, rt->backends, rt->num_backends, sizeof *rt->backends);
  for (size_t i = 0; rt->backends && i < rt->num_backends; i++) {
    rt->backends[i].platform = copy_string(c, rt->backends[i].platform);
    rt->backends[i].error = copy_string(c, rt->backends[i].error);
    rt->backends[i].device_kind = copy_string(c, rt->backends[i].device_kind);
    rt->backends[i].compute_capability = copy_string(c, rt->backends[i].compute_capability);
  }
}

static char **copy_strings(copier *c, char **strings, size_t n) {
  char **d = copy_array(c, strings, n, sizeof *strings);
  for (size_t i = 0; d && i < n; i++)
    d[i] = copy_string(c, strings[i]);
  return d;
}

static void copy_expect(copier *c, lsim_scenario_expect *x) {
  x->error = copy_string(c, x->error);
  x->message = copy_string(c, x->message);
  x->contains = copy_strings(c, x->contains, x->num_contains);
  x->absent = copy_strings(c, x->absent, x->num_absent);
  x->warnings = copy_strings(c, x->warnings, x->num_warnings);
}

static int clone_one(const lsim_scenario *s, lsim_scenario **out, lsim_error *err);

/* A session's lowerings are copied one after another. */
int lsim_fuzz_scenario_clone(const lsim_scenario *s, lsim_scenario **out, lsim_error *err) {
  int rc = clone_one(s, out, err);
  for (lsim_scenario *d = rc ? NULL : *out; d && s->next; d = d->next, s = s->next) {
    if ((rc = clone_one(s->next, &d->next, err))) {
      lsim_scenario_destroy(*out);
      *out = NULL;
      return rc;
    }
  }
  return rc;
}

static int clone_one(const lsim_scenario *s, lsim_scenario **out, lsim_error *err) {
  lsim_scenario *d = lsim_malloc(sizeof *d);
  if (!d)
    return lsim_fuzz_no_memory(err);
  *d = *s;
  d->next = NULL;
  copier c = {false};
  d->path = copy_string(&c, s->path);
  d->name = copy_string(&c, s->name);
  d->jax = copy_string(&c, s->jax);
  d->description = copy_string(&c, s->description);
  copy_runtime(&c, &d->runtime);
  d->function = copy_string(&c, s->function);
  d->platforms = copy_string(&c, s->platforms);
  d->backend = copy_string(&c, s->backend);
  d->disabled_checks = copy_string(&c, s->disabled_checks);
  d->abstract_device.platform = copy_string(&c, s->abstract_device.platform);
  d->abstract_device.device_kind = copy_string(&c, s->abstract_device.device_kind);
  d->args = copy_array(&c, s->args, s->num_args, sizeof *s->args);
  d->eqns = s->eqns ? lsim_calloc(s->num_eqns + 1, sizeof *d->eqns) : NULL;
  c.oom = c.oom || (s->eqns && !d->eqns);
  d->num_eqns = 0;
  for (size_t i = 0; d->eqns && i < s->num_eqns && !c.oom; i++)
    c.oom = lsim_scenario_eqn_copy(&d->eqns[d->num_eqns++], &s->eqns[i], NULL) != LSIM_OK;
  d->returns = copy_array(&c, s->returns, s->num_returns, sizeof *s->returns);
  copy_expect(&c, &d->expect);
  if (c.oom) {
    lsim_scenario_destroy(d);
    return lsim_fuzz_no_memory(err);
  }
  *out = d;
  return LSIM_OK;
}

/* --- Text ---------------------------------------------------------------- */

int lsim_fuzz_scenario_text(const lsim_scenario *s, char **text, size_t *size, lsim_error *err) {
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  if (!f)
    return lsim_fuzz_no_memory(err);
  int rc = lsim_scenario_write(s, f, err);
  if (fclose(f) != 0 && !rc)
    rc = lsim_fuzz_no_memory(err);
  if (rc) {
    free(buf);
    return rc;
  }
  *text = buf;
  *size = len;
  return LSIM_OK;
}

/* --- Pruning ------------------------------------------------------------- */

size_t lsim_fuzz_scenario_num_values(const lsim_scenario *s) {
  size_t n = s->num_args;
  for (size_t i = 0; i < s->num_eqns; i++)
    n += s->eqns[i].num_results;
  return n;
}

/* What a prune decides before it changes anything. */
typedef struct pruning {
  bool *gone;       /* per value */
  size_t *renumber; /* per value: its new index (when kept) */
  bool *eqn_gone;   /* per equation */
  size_t num_eqns_gone;
} pruning;

static bool uses_gone_value(const lsim_scenario_eqn *e, const bool *gone) {
  for (size_t a = 0; a < e->num_args; a++)
    if (gone[e->args[a]])
      return true;
  return false;
}

/* Marks the equations to delete, and their values, in program order. */
static void mark(const lsim_scenario *s, const bool *drop_eqn, pruning *p) {
  size_t v = s->num_args;
  for (size_t i = 0; i < s->num_eqns; i++) {
    const lsim_scenario_eqn *e = &s->eqns[i];
    bool implied = lsim_scenario_kind_implies_result(e->kind);
    bool go = (drop_eqn && drop_eqn[i]) || uses_gone_value(e, p->gone);
    for (size_t r = 0; implied && r < e->num_results; r++)
      go = go || p->gone[v + r];
    if (go) {
      p->eqn_gone[i] = true;
      p->num_eqns_gone++;
      for (size_t r = 0; r < e->num_results; r++)
        p->gone[v + r] = true;
    }
    v += e->num_results;
  }
  size_t k = 0;
  for (size_t i = 0; i < v; i++)
    p->renumber[i] = p->gone[i] ? SIZE_MAX : k++;
}

/* Keeps the indices whose values stay, renumbered; returns their count. */
static size_t keep_indices(size_t *indices, size_t n, const pruning *p) {
  size_t k = 0;
  for (size_t i = 0; i < n; i++)
    if (!p->gone[indices[i]])
      indices[k++] = p->renumber[indices[i]];
  return k;
}

/* Drops the results whose values go; `first` is the first one's value. */
static void keep_results(lsim_scenario_eqn *e, size_t first, const pruning *p) {
  size_t k = 0;
  for (size_t r = 0; r < e->num_results; r++)
    if (!p->gone[first + r])
      e->results[k++] = e->results[r];
  e->num_results = k;
}

/* Applies the marks; deleted equations move to `trash`, which the scenario
 * layer then frees (one place knows how to free an equation). */
static void apply(lsim_scenario *s, const pruning *p, lsim_scenario *trash) {
  size_t first = s->num_args; /* an equation's first result, numbered as before */
  size_t k = 0;
  for (size_t i = 0; i < s->num_args; i++)
    if (!p->gone[i])
      s->args[k++] = s->args[i];
  s->num_args = k;
  size_t kept = 0;
  for (size_t i = 0; i < s->num_eqns; i++) {
    lsim_scenario_eqn e = s->eqns[i];
    size_t n = e.num_results;
    if (p->eqn_gone[i]) {
      trash->eqns[trash->num_eqns++] = e;
    } else {
      e.num_args = keep_indices(e.args, e.num_args, p);
      keep_results(&e, first, p);
      s->eqns[kept++] = e;
    }
    first += n;
  }
  s->num_eqns = kept;
  if (s->returns)
    s->num_returns = keep_indices(s->returns, s->num_returns, p);
}

int lsim_fuzz_scenario_prune(lsim_scenario *s, const bool *drop_value, const bool *drop_eqn,
                             lsim_error *err) {
  size_t nv = lsim_fuzz_scenario_num_values(s);
  pruning p = {lsim_calloc(nv + 1, sizeof *p.gone), lsim_malloc_array(nv + 1, sizeof *p.renumber),
               lsim_calloc(s->num_eqns + 1, sizeof *p.eqn_gone), 0};
  lsim_scenario *trash = lsim_calloc(1, sizeof *trash);
  bool ok = p.gone && p.renumber && p.eqn_gone && trash;
  if (ok) {
    for (size_t v = 0; drop_value && v < nv; v++)
      p.gone[v] = drop_value[v];
    mark(s, drop_eqn, &p);
    trash->eqns = lsim_calloc(p.num_eqns_gone + 1, sizeof *trash->eqns);
    ok = trash->eqns != NULL;
  }
  if (ok)
    apply(s, &p, trash);
  lsim_scenario_destroy(trash);
  free(p.gone);
  free(p.renumber);
  free(p.eqn_gone);
  return ok ? LSIM_OK : lsim_fuzz_no_memory(err);
}
