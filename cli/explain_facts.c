/* cli/explain_facts.c: the facts around explain's narration, made once for
 * the terminal (cmd_explain.c) and the page (explain_html.c). */
#include "explain_facts.h"

#include "lowersim/alloc.h"
#include "lowersim/lowering.h"
#include "lowersim/module_context.h"
#include "lowersim/runtime.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *vformat(const char *fmt, va_list ap) {
  va_list again;
  va_copy(again, ap);
  int n = vsnprintf(NULL, 0, fmt, ap);
  char *s = n < 0 ? NULL : lsim_malloc((size_t)n + 1);
  if (s)
    vsnprintf(s, (size_t)n + 1, fmt, again);
  va_end(again);
  return s;
}

static void add(explain_facts *f, explain_section *sec, const char *key, const char *note,
                explain_tone tone, const char *fmt, ...) __attribute__((format(printf, 6, 7)));
static void add(explain_facts *f, explain_section *sec, const char *key, const char *note,
                explain_tone tone, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  char *value = vformat(fmt, ap);
  va_end(ap);
  if (!value || !lsim_grow_array(&sec->rows, &sec->cap, sec->count + 1, sizeof *sec->rows)) {
    free(value);
    f->failed = true;
    return;
  }
  sec->rows[sec->count++] = (explain_row){key, value, note, tone};
}

static void request(explain_facts *f, const lsim_scenario *s) {
  explain_section *r = &f->request;
  add(f, r, "function", NULL, EXPLAIN_TONE_PLAIN, "%s  (module jit_%s)", s->function, s->function);
  add(f, r, "platforms", NULL, EXPLAIN_TONE_PLAIN, "%s",
      s->platforms ? s->platforms : "(none given: the default backend's)");
  add(f, r, "pinned backend", NULL, EXPLAIN_TONE_PLAIN, "%s", s->backend ? s->backend : "(none)");
  if (s->devices)
    add(f, r, "in_shardings", NULL, EXPLAIN_TONE_PLAIN,
        "NamedSharding(Mesh(jax.devices()[:%d], ('x',)), P())", s->devices);
  add(f, r, "arguments", NULL, EXPLAIN_TONE_PLAIN, "%zu, equations %zu%s", s->num_args,
      s->num_eqns, s->execute ? ", then <execute/>" : "");
}

static void runtime(explain_facts *f, const lsim_scenario *s, lsim_runtime *rt) {
  explain_section *r = &f->runtime;
  lsim_error init = LSIM_ERROR_INIT;
  lsim_runtime_backends(rt, &init);
  lsim_error_clear(&init);
  add(f, r, "JAX_PLATFORMS", NULL, EXPLAIN_TONE_PLAIN, "%s",
      s->runtime.jax_platforms ? s->runtime.jax_platforms : "(unset: every factory is tried)");
  add(f, r, "factories", NULL, EXPLAIN_TONE_PLAIN,
      "cpu and tpu (registered on import; tpu fails quietly without libtpu)%s",
      s->runtime.num_backends ? ", then the scenario's" : "");
  size_t n = lsim_runtime_backend_count(rt);
  const lsim_backend *def = lsim_runtime_default_backend(rt);
  for (size_t i = 0; i < n; i++) {
    const lsim_backend *b = lsim_runtime_backend_at(rt, i);
    add(f, r, i ? "" : "backends", b == def ? "   <- default backend" : NULL, EXPLAIN_TONE_GOOD,
        "%-8s %d device%s, priority %d", b->platform, b->device_count,
        b->device_count == 1 ? "" : "s", b->priority);
  }
  if (n == 0)
    add(f, r, "backends", NULL, EXPLAIN_TONE_PLAIN, "(not initialized: see the error below)");
  for (size_t i = 0; i < s->runtime.num_backends; i++) {
    const char *e = lsim_runtime_backend_error(rt, s->runtime.backends[i].platform);
    if (e)
      add(f, r, "", NULL, EXPLAIN_TONE_PLAIN, "%-8s failed quietly: %s",
          s->runtime.backends[i].platform, e);
  }
  for (size_t i = 0; i < lsim_runtime_warning_count(rt); i++)
    add(f, r, "warning", NULL, EXPLAIN_TONE_WARN, "%s: %s", lsim_runtime_warning_category(rt, i),
        lsim_runtime_warning_at(rt, i));
}

static void context(explain_facts *f, const lsim_scenario_outcome *o, int rc) {
  explain_section *r = &f->context;
  lsim_module_context *mc = lsim_lowering_module_context(o->lowering);
  long long channels = (long long)lsim_module_context_channel_count(mc);
  add(f, r, "host callbacks", NULL, EXPLAIN_TONE_PLAIN, "%zu",
      lsim_module_context_host_callback_count(mc));
  add(f, r, "channels", NULL, EXPLAIN_TONE_PLAIN, "%lld%s", channels,
      channels ? " (ids from 2; 1 is for collectives)" : "");
  if (o->executed && rc)
    add(f, r, "executed", NULL, EXPLAIN_TONE_PLAIN,
        "the host callbacks ran in index order until one raised (the error step above)");
  else if (o->executed)
    add(f, r, "executed", NULL, EXPLAIN_TONE_PLAIN, "every host callback ran once, in index order");
}

bool explain_jax_line(const lsim_scenario *s, const lsim_jax_profile *flag, char *buf,
                      size_t size) {
  const lsim_jax_profile *jax = lsim_scenario_profile(s, flag);
  int n = snprintf(buf, size, "JAX %s (commit %s; %s)", jax->name, jax->commit,
                   s->jax  ? "the scenario's jax="
                   : flag ? "--jax"
                          : "the newest: neither jax= nor --jax");
  return n >= 0 && (size_t)n < size;
}

bool explain_source_line(const lsim_scenario *s, const lsim_jax_profile *flag, char *buf,
                         size_t size) {
  int n = snprintf(buf, size, "source links at github.com/jax-ml/jax %s",
                   lsim_scenario_profile(s, flag)->source_ref);
  return n >= 0 && (size_t)n < size;
}

void explain_facts_make(explain_facts *f, const lsim_scenario *s, const lsim_jax_profile *flag,
                        const lsim_scenario_outcome *outcome, int rc) {
  *f = (explain_facts){.request = {"request", "request", NULL, 0, 0},
                       .runtime = {"runtime (xla_bridge)", "runtime", NULL, 0, 0},
                       .context = {"module context", "module-context", NULL, 0, 0}};
  char line[256];
  f->jax = explain_jax_line(s, flag, line, sizeof line) ? lsim_strdup(line) : NULL;
  f->source = explain_source_line(s, flag, line, sizeof line) ? lsim_strdup(line) : NULL;
  f->failed = !f->jax || !f->source;
  request(f, s);
  if (outcome && outcome->runtime)
    runtime(f, s, outcome->runtime);
  if (outcome && outcome->lowering)
    context(f, outcome, rc);
}

static void section_free(explain_section *sec) {
  for (size_t i = 0; i < sec->count; i++)
    free(sec->rows[i].value);
  free(sec->rows);
}

void explain_facts_free(explain_facts *f) {
  free(f->jax);
  free(f->source);
  section_free(&f->request);
  section_free(&f->runtime);
  section_free(&f->context);
  *f = (explain_facts){0};
}
